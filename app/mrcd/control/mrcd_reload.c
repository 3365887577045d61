/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: the main lcore (setup, SIGHUP, every control tick, teardown).
 *
 * A reload's changes to the flows (mrcd_reload.h), carried out the way
 * recovery carries out its steps (mrcd_recover.h): control asks the shards
 * (shard requests) and the generator (the host's generator ring) and reads
 * their answers; it never writes a worker's state itself.
 *
 *   a flow removed   1. its sender's worker stops posting on it and answers
 *                       what it still has in flight or queued (asked again
 *                       until nothing, or [daemon] drain_ms passed); with
 *                       its sender in another process, which takes the
 *                       reload at its own moment, its receiver instead
 *                       keeps taking messages for drain_ms +
 *                       MRCD_RECOVER_QUIET_MS (OP_HOLD), the sender's
 *                       drain and the time between the two processes'
 *                       reloads
 *                    2. each end's worker takes it out of its shard's lists
 *                       (the QPs' counters carried into the host's totals)
 *                    3. both QPs (those of this process) retired from
 *                       their shards
 *                    4. MRCD_RECOVER_QUIET_MS later (telemetry may hold a
 *                       QP pointer, a late packet finds no QP) the QPs are
 *                       destroyed and its slots and QP numbers are free
 *   a flow added     made at once: a spare pair of QP numbers, a slot in
 *                    each end's region, both QPs in RTS connected to each
 *                    other; then 1. both added to their shards, 2. the
 *                    receiver's worker lists it, 3. the sender's worker
 *                    lists it and queues it to post. With the cluster
 *                    spread over processes, the pair and slots are the
 *                    cluster's numbering's (mrcd_reload_number) and each
 *                    process makes, adds and lists its own ends only.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_malloc.h>

#include "mrc_shard.h"
#include "mrcd_control.h"
#include "mrcd_daemon.h"
#include "mrcd_log.h"
#include "mrcd_recover.h"
#include "mrcd_reload.h"

/* Free message slots of one host's region: freed ones first, then the reserve. */
struct slot_pool {
	uint64_t *free;
	uint32_t n_free, cap;
	uint64_t bump, end; /* the reserve not yet handed out: [bump, end) */
};

enum op_state {
	OP_ADD_QPS,	/* both QPs asked into their shards */
	OP_ATTACH_RECV, /* the receiver's worker listing it */
	OP_ATTACH_SEND, /* the sender's worker listing it */
	OP_STOP,	/* the sender's worker stopping it, until nothing is in flight */
	OP_HOLD,	/* its sender elsewhere: the receiver takes messages until deadline */
	OP_DETACH_SEND, /* the sender's worker unlisting it */
	OP_DETACH_RECV, /* the receiver's worker unlisting it */
	OP_RETIRE,	/* both QPs asked out of their shards */
	OP_QUIET,	/* out of use; freed at free_tsc */
	OP_DONE,
};

struct reload_op {
	uint32_t fi;
	uint8_t state; /* enum op_state */
	bool sent[2];
	struct mrc_shard_req sreq[2]; /* [0] the sender's end, [1] the receiver's */
	struct mrcd_gen_req greq;
	uint64_t deadline, free_tsc;
	struct mrc_qp *send, *recv;
};

struct mrcd_reload {
	size_t slot_bytes;
	struct slot_pool slots[MRCD_MAX_HOSTS];
	struct reload_op *ops;
	uint32_t n_ops;
	uint64_t added, removed; /* flows, over the run */
	/*
	 * The cluster spread over processes (mrcd_reload.h, "Across processes"):
	 * every flow added takes the cluster's numbering, counted from the
	 * cluster's flows in force (cl, in the profile's order). Per cluster
	 * host: its layout at start (bytes; its reserve follows) and its
	 * reserve (slots), as every process computes them.
	 */
	bool cluster;
	struct mrcd_flow_key *cl;
	uint32_t n_cl;
	struct mrcd_reload_count count;
	uint64_t layout[MRCD_RELOAD_MAX_HOSTS];
	uint32_t reserve[MRCD_RELOAD_MAX_HOSTS];
};

_Static_assert(MRCD_RELOAD_MAX_HOSTS == MRCD_CONFIG_MAX_HOSTS, "one host count");

unsigned int
mrcd_reload_reserve(unsigned int n, unsigned int min)
{
	const unsigned int room = n > min ? n : min;

	return room < MRCD_RECOVER_SPARES_MAX ? room : MRCD_RECOVER_SPARES_MAX;
}

unsigned int
mrcd_reload_room(const struct mrcd_daemon *d, unsigned int n, unsigned int min)
{
	if (!d->cli.service || d->no_traffic)
		return 0;
	return mrcd_reload_reserve(n, min);
}

/* Are some of the cluster's hosts in other processes? */
static bool
spread(const struct mrcd_daemon *d)
{
	return d->n_hosts != mrcd_config_cluster_hosts(&d->cfg);
}

uint32_t
mrcd_reload_added_pairs(const struct mrcd_daemon *d)
{
	if (!d->cli.service || d->no_traffic || !spread(d))
		return 0;
	return mrcd_recover_spares(d->n_cluster_flows);
}

/*
 * The cluster's numbering's start: its flows in force, and each host's
 * layout and reserve as mrcd_make_flows() lays them out (a host's slots
 * at start, out and in, then its reserve).
 */
static int
cluster_init(struct mrcd_daemon *d, struct mrcd_reload *r)
{
	const unsigned int lo = d->cfg.daemon.first_host;
	uint32_t per_host[MRCD_RELOAD_MAX_HOSTS] = {0};
	const int rc = mrcd_reload_want(d, &d->prof, &r->cl, &r->n_cl);

	if (rc != 0)
		return rc;
	for (uint32_t i = 0; i < r->n_cl; i++) {
		per_host[r->cl[i].src]++;
		per_host[r->cl[i].dst]++;
	}
	for (unsigned int c = 0; c < mrcd_config_cluster_hosts(&d->cfg); c++) {
		r->layout[c] = (uint64_t)per_host[c] * r->slot_bytes;
		r->reserve[c] = mrcd_reload_reserve(per_host[c], 4);
	}
	for (unsigned int h = 0; h < d->n_hosts; h++)
		if (r->layout[lo + h] + (uint64_t)r->reserve[lo + h] * r->slot_bytes !=
			d->host[h].region_bytes) {
			MRCD_LOG(ctrl, ERR,
				"host %u: its region is %zu bytes, the cluster's numbering "
				"counts %" PRIu64 " + %u slots of %zu",
				lo + h, d->host[h].region_bytes, r->layout[lo + h],
				r->reserve[lo + h], r->slot_bytes);
			return -EINVAL;
		}
	r->cluster = true;
	return 0;
}

int
mrcd_reload_init(struct mrcd_daemon *d)
{
	struct mrcd_reload *r;

	/* No room made: every change to the flows is refused. */
	if (!d->cli.service || d->no_traffic || d->recover == NULL || d->flow_cap == d->n_flows)
		return 0;
	r = calloc(1, sizeof(*r));
	if (r == NULL)
		return -ENOMEM;
	d->reload = r;
	r->slot_bytes = mrcd_flow_slot_bytes(&d->prof);
	r->ops = calloc(2ull * d->flow_cap + 1, sizeof(*r->ops));
	if (r->ops == NULL)
		return -ENOMEM;
	for (unsigned int h = 0; h < d->n_hosts; h++) {
		struct slot_pool *p = &r->slots[h];
		const uint64_t slots = d->host[h].region_bytes / RTE_MAX(r->slot_bytes, (size_t)1);
		/* the reserve is the region's last part (mrcd_make_flows) */
		const uint64_t room = mrcd_reload_room(d, (unsigned int)(slots / 2), 4);

		p->cap = (uint32_t)slots + 1;
		p->free = calloc(p->cap, sizeof(*p->free));
		if (p->free == NULL)
			return -ENOMEM;
		p->end = d->host[h].region_bytes;
		p->bump = p->end - RTE_MIN(room * r->slot_bytes, p->end);
		if (spread(d))
			p->bump = p->end; /* the reserve is the cluster's numbering's */
	}
	return spread(d) ? cluster_init(d, r) : 0;
}

void
mrcd_reload_free(struct mrcd_daemon *d)
{
	struct mrcd_reload *r = d->reload;

	if (r == NULL)
		return;
	/* The QPs of flows still being removed are still the flows' own: freed with theirs. */
	for (unsigned int h = 0; h < d->n_hosts; h++)
		free(r->slots[h].free);
	free(r->cl);
	free(r->ops);
	free(r);
	d->reload = NULL;
}

bool
mrcd_reload_busy(const struct mrcd_daemon *d)
{
	return d->reload != NULL && d->reload->n_ops > 0;
}

int
mrcd_reload_want(const struct mrcd_daemon *d, const struct mrcd_profile *p,
	struct mrcd_flow_key **out, uint32_t *n)
{
	const unsigned int nc = mrcd_config_cluster_hosts(&d->cfg);
	uint16_t(*pairs)[2] = calloc((size_t)nc * nc + 1, sizeof(*pairs));
	const unsigned int np =
		pairs != NULL ? mrcd_pattern_pairs(p, nc, d->cfg.daemon.seed, pairs, nc * nc) : 0;
	const uint64_t total = (uint64_t)np * p->qps_per_peer;
	uint32_t k = 0;

	*out = NULL;
	*n = 0;
	if (pairs == NULL)
		return -ENOMEM;
	if (total > MRCD_MAX_FLOWS) {
		free(pairs);
		return -E2BIG;
	}
	*out = calloc(total + 1, sizeof(**out));
	if (*out == NULL) {
		free(pairs);
		return -ENOMEM;
	}
	/* In mrcd_make_flows()'s order: pair by pair, q within a pair. */
	for (unsigned int i = 0; i < np; i++)
		for (unsigned int q = 0; q < p->qps_per_peer; q++)
			(*out)[k++] = (struct mrcd_flow_key){pairs[i][0], pairs[i][1], (uint16_t)q};
	*n = k;
	free(pairs);
	return 0;
}

static bool
slot_take(struct slot_pool *p, size_t bytes, uint64_t *off)
{
	if (p->n_free > 0) {
		*off = p->free[--p->n_free];
		return true;
	}
	if (p->bump + bytes > p->end)
		return false;
	*off = p->bump;
	p->bump += bytes;
	return true;
}

static void
slot_give(struct slot_pool *p, uint64_t off)
{
	if (p->n_free < p->cap)
		p->free[p->n_free++] = off;
}

static uint32_t
slots_free(const struct slot_pool *p, size_t bytes)
{
	return p->n_free + (uint32_t)((p->end - p->bump) / RTE_MAX(bytes, (size_t)1));
}

/* Is cluster host c one of this process's? */
static bool
local_end(const struct mrcd_daemon *d, unsigned int c)
{
	const unsigned int lo = d->cfg.daemon.first_host;

	return c >= lo && c < lo + d->n_hosts;
}

/* Check everything a change needs before changing anything: 0, or -errno with `what`. */
static int
can_apply(struct mrcd_daemon *d, const struct mrcd_flow_key *live, const uint32_t *live_fi,
	uint32_t n_live, const uint8_t *keep, const struct mrcd_flow_key *want, uint32_t n_want,
	const uint8_t *add, uint64_t now, char *what, size_t len)
{
	struct mrcd_reload *r = d->reload;
	uint32_t adds = 0, need[MRCD_MAX_HOSTS] = {0}, spares = 0;
	const unsigned int lo = d->cfg.daemon.first_host;

	for (uint32_t i = 0; i < n_live; i++) {
		if (keep[i])
			continue;
		if (mrcd_recover_busy(d, live_fi[i])) {
			snprintf(what, len,
				"flow host %u -> %u (q %u) would go while it is being brought back "
				"on "
				"a new QP pair; try again in a moment",
				live[i].src, live[i].dst, live[i].q);
			return -EBUSY;
		}
	}
	for (uint32_t j = 0; j < n_want; j++) {
		if (!add[j])
			continue;
		adds++;
		/* across processes the cluster's numbering places it (checked before) */
		if (r->cluster)
			continue;
		need[want[j].src - lo]++;
		need[want[j].dst - lo]++;
	}
	if (d->n_flows + adds > d->flow_cap) {
		snprintf(what, len,
			"%u flows would come and the flow table has room for %u more (twice the "
			"start's flows, made at start)",
			adds, d->flow_cap - d->n_flows);
		return -ENOSPC;
	}
	for (unsigned int h = 0; h < d->n_hosts; h++)
		if (need[h] > slots_free(&r->slots[h], r->slot_bytes)) {
			snprintf(what, len,
				"host %u would need %u message slots of %zu bytes for new flows "
				"and its "
				"registered region has %u free (the reserve made at start, and the "
				"slots of removed flows once they are freed)",
				lo + h, need[h], r->slot_bytes,
				slots_free(&r->slots[h], r->slot_bytes));
			return -ENOSPC;
		}
	for (uint32_t s = 0; s < d->recover->n_spares; s++)
		spares += d->recover->spare_flow[s] < 0 && d->recover->spare_free_tsc[s] <= now;
	if (adds > spares && !r->cluster) {
		snprintf(what, len, "%u flows would come and %u spare QP number pairs are free",
			adds, spares);
		return -ENOSPC;
	}
	return 0;
}

static struct reload_op *
new_op(struct mrcd_reload *r, uint32_t fi, uint8_t state)
{
	struct reload_op *o = &r->ops[r->n_ops++];

	*o = (struct reload_op){.fi = fi, .state = state};
	return o;
}

static void
ask_gen(struct reload_op *o, uint8_t op, struct mrc_qp *qp)
{
	o->greq = (struct mrcd_gen_req){.op = op, .flow = o->fi, .qp = qp};
	o->sent[0] = false;
}

static void
ask_shards(struct reload_op *o, uint8_t op)
{
	o->sreq[0] = (struct mrc_shard_req){.op = op, .qp = o->send};
	o->sreq[1] = (struct mrc_shard_req){.op = op, .qp = o->recv};
	o->sent[0] = o->sent[1] = false;
}

/*
 * A flow made whole (its local ends' QPs in RTS) goes live: with both ends
 * here each takes the other's planes as its port shows them (the worker
 * keeps them up to date; an end elsewhere is told by port-status
 * requests), the flow is counted (telemetry lists flows up to n_flows, so
 * it is whole before), and its steps ask the shards to take its QPs.
 */
static void
publish_added(struct mrcd_daemon *d, uint32_t fi)
{
	struct mrcd_flow *f = &d->flows[fi];
	struct mrc_qp *recv = d->peer_qp[fi];
	struct reload_op *o;

	if (f->qp != NULL && recv != NULL) {
		mrc_qp_set_peer_planes(
			f->qp, mrc_shard_port_mask(d->host[f->dst_local].shard[f->dst_shard].rt));
		mrc_qp_set_peer_planes(
			recv, mrc_shard_port_mask(d->host[f->src_local].shard[f->src_shard].rt));
	}
	d->qp_bytes += (f->qp != NULL ? mrc_qp_mem_bytes(f->qp) : 0) +
		       (recv != NULL ? mrc_qp_mem_bytes(recv) : 0);
	__atomic_store_n(&d->n_flows, fi + 1, __ATOMIC_RELEASE);
	o = new_op(d->reload, fi, OP_ADD_QPS);
	o->send = f->qp;
	o->recv = recv;
	ask_shards(o, MRC_SHARD_ADD_QP);
}

/*
 * A new flow with an end in another process, made at our ends and
 * published: the pair and slots the cluster's numbering gave it (pl), so
 * the other process makes the same flow's other end alike.
 */
static int
add_flow_cluster(struct mrcd_daemon *d, const struct mrcd_flow_key *k,
	const struct mrcd_reload_place *pl, uint64_t now)
{
	struct mrcd_reload *r = d->reload;
	const unsigned int lo = d->cfg.daemon.first_host;
	const unsigned int n_shards =
		d->cfg.lcores.workers_per_host ? d->cfg.lcores.workers_per_host : 1;
	const uint32_t fi = d->n_flows, sq = d->added_qpn + 2 * pl->pair;
	struct mrcd_flow *f = &d->flows[fi];

	memset(f, 0, sizeof(*f));
	/* its payload's name, the same at both ends, apart from every other flow's */
	f->id = d->n_cluster_flows + d->recover->n_spares + pl->pair;
	f->src = k->src;
	f->dst = k->dst;
	f->q = k->q;
	f->shape_gen = d->gen_pub->shape_gen;
	f->src_local = (int16_t)(local_end(d, k->src) ? (int)(k->src - lo) : -1);
	f->dst_local = (int16_t)(local_end(d, k->dst) ? (int)(k->dst - lo) : -1);
	f->qpn = sq;
	/* the owner of each QPN in every host's map (mrcd_setup.c), in every process */
	mrcd_spare_shards(
		pl->pair, n_shards, d->cfg.lcores.peer_shard, &f->src_shard, &f->dst_shard);
	f->src_off = r->layout[k->src] + (uint64_t)pl->src_slot * r->slot_bytes;
	f->dst_off = r->layout[k->dst] + (uint64_t)pl->dst_slot * r->slot_bytes;
	/* every host's region has the same key (mrcd_connect_flows) */
	f->src_key = f->dst_key = d->host[0].key;
	if (f->src_local >= 0) {
		struct mrcd_hostctx *src = &d->host[f->src_local];

		f->src_buf = src->mem + f->src_off;
		f->post_tsc = rte_zmalloc("mrcd_slots", d->prof.outstanding * sizeof(uint64_t), 64);
		f->qp = f->post_tsc != NULL
				? mrcd_make_qp_rts(d, (unsigned int)f->src_local, f->src_shard,
					  f->dst, f->dst_shard, sq, sq + 1, now, &d->recover->rand)
				: NULL;
		if (f->qp == NULL)
			goto fail;
	}
	if (f->dst_local >= 0) {
		f->dst_buf = d->host[f->dst_local].mem + f->dst_off;
		mrcd_flow_copy_rx(f);
		d->peer_qp[fi] = mrcd_make_qp_rts(d, (unsigned int)f->dst_local, f->dst_shard,
			f->src, f->src_shard, sq + 1, sq, now, &d->recover->rand);
		if (d->peer_qp[fi] == NULL)
			goto fail;
	}
	/* The pair's QPNs name the flow before any packet or completion can carry them. */
	__atomic_store_n(&d->added_of[pl->pair], (int32_t)fi, __ATOMIC_RELEASE);
	publish_added(d, fi);
	MRCD_LOG(ctrl, INFO,
		"reload: flow host %u -> %u (q %u) comes on QPs 0x%x -> 0x%x (added pair %u, "
		"shards %u -> %u; slots at 0x%" PRIx64 " -> 0x%" PRIx64 "), our end%s %s",
		f->src, f->dst, f->q, sq, sq + 1, pl->pair, f->src_shard, f->dst_shard, f->src_off,
		f->dst_off, f->qp != NULL && d->peer_qp[fi] != NULL ? "s" : "",
		f->qp != NULL && d->peer_qp[fi] != NULL ? "both"
		: f->qp != NULL				? "the sender"
							: "the receiver");
	return 0;
fail:
	mrcd_gen_qp_destroy(d, f->qp);
	mrcd_gen_qp_destroy(d, d->peer_qp[fi]);
	rte_free(f->post_tsc);
	memset(f, 0, sizeof(*f));
	d->peer_qp[fi] = NULL;
	return -ENOMEM;
}

/* A new flow, made whole and published; its steps ask the shards and workers to take it. */
static int
add_flow(struct mrcd_daemon *d, const struct mrcd_flow_key *k, uint64_t now)
{
	struct mrcd_reload *r = d->reload;
	const unsigned int lo = d->cfg.daemon.first_host;
	const uint32_t fi = d->n_flows;
	struct mrcd_flow *f = &d->flows[fi];
	const int32_t s = mrcd_recover_take_spare(d, now);
	struct mrcd_hostctx *src = &d->host[k->src - lo], *dst = &d->host[k->dst - lo];
	uint32_t sq;

	if (s < 0)
		return -ENOSPC; /* counted beforehand: cannot happen */
	sq = MRCD_QPN_BASE + 2 * (d->n_cluster_flows + (uint32_t)s);
	memset(f, 0, sizeof(*f));
	f->id = d->n_cluster_flows + (uint32_t)s; /* its payload's name, the same at both ends */
	f->src = k->src;
	f->dst = k->dst;
	f->q = k->q;
	/* Its messages have the sizes in force (a reload that also changes them sets its own). */
	f->shape_gen = d->gen_pub->shape_gen;
	f->src_local = (int16_t)(k->src - lo);
	f->dst_local = (int16_t)(k->dst - lo);
	f->qpn = sq;
	/* Its QPs' QPNs belong to these shards in every host's QPN map (mrcd_setup.c). */
	mrcd_spare_shards(
		(uint32_t)s, src->n_shards, d->cfg.lcores.peer_shard, &f->src_shard, &f->dst_shard);
	if (!slot_take(&r->slots[f->src_local], r->slot_bytes, &f->src_off))
		return -ENOSPC;
	if (!slot_take(&r->slots[f->dst_local], r->slot_bytes, &f->dst_off)) {
		slot_give(&r->slots[f->src_local], f->src_off);
		return -ENOSPC;
	}
	f->src_buf = src->mem + f->src_off;
	f->dst_buf = dst->mem + f->dst_off;
	mrcd_flow_copy_rx(f);
	f->src_key = src->key;
	f->dst_key = dst->key;
	f->post_tsc = rte_zmalloc("mrcd_slots", d->prof.outstanding * sizeof(uint64_t), 64);
	f->qp = f->post_tsc != NULL
			? mrcd_make_qp_rts(d, (unsigned int)f->src_local, f->src_shard, f->dst,
				  f->dst_shard, sq, sq + 1, now, &d->recover->rand)
			: NULL;
	d->peer_qp[fi] = f->qp != NULL
				 ? mrcd_make_qp_rts(d, (unsigned int)f->dst_local, f->dst_shard,
					   f->src, f->src_shard, sq + 1, sq, now, &d->recover->rand)
				 : NULL;
	if (d->peer_qp[fi] == NULL || mrcd_recover_adopt(d, fi, s) != 0) {
		mrcd_gen_qp_destroy(d, f->qp);
		mrcd_gen_qp_destroy(d, d->peer_qp[fi]);
		rte_free(f->post_tsc);
		slot_give(&r->slots[f->src_local], f->src_off);
		slot_give(&r->slots[f->dst_local], f->dst_off);
		memset(f, 0, sizeof(*f));
		d->peer_qp[fi] = NULL;
		return -ENOMEM;
	}
	publish_added(d, fi);
	MRCD_LOG(ctrl, INFO,
		"reload: flow host %u -> %u (q %u) comes on QPs 0x%x (shard %u) -> 0x%x (shard %u)",
		f->src, f->dst, f->q, sq, f->src_shard, sq + 1, f->dst_shard);
	return 0;
}

static void
remove_flow(struct mrcd_daemon *d, uint32_t fi, uint64_t now)
{
	struct mrcd_flow *f = &d->flows[fi];
	struct reload_op *o = new_op(d->reload, fi, OP_STOP);

	f->gone = true; /* recovery leaves it alone from now on */
	/* Recovery's QPs of it, if it was ever brought back, are the current ones. */
	o->send = __atomic_load_n(&f->qp, __ATOMIC_ACQUIRE);
	o->recv = __atomic_load_n(&d->peer_qp[fi], __ATOMIC_ACQUIRE);
	o->deadline = now + (uint64_t)d->cfg.daemon.drain_ms * d->hz / 1000;
	if (f->src_local >= 0) {
		ask_gen(o, MRCD_GEN_STOP, NULL);
	} else {
		/* Its sender drains in its own process, from its own reload: wait for both. */
		o->deadline += (uint64_t)MRCD_RECOVER_QUIET_MS * d->hz / 1000;
		o->state = OP_HOLD;
	}
	MRCD_LOG(ctrl, INFO, "reload: flow host %u -> %u (q %u) goes: draining QPs 0x%x -> 0x%x",
		f->src, f->dst, f->q, o->send != NULL ? mrc_qp_qpn(o->send) : f->qpn,
		o->recv != NULL ? mrc_qp_qpn(o->recv) : f->qpn + 1);
}

/*
 * Across processes: number the flows `next` adds to the cluster's list in
 * force (mrcd_reload_number), into *place (per entry of want, the whole
 * cluster's list) and *count, nothing changed yet. 0, or <0 with `what`.
 */
static int
cluster_number(struct mrcd_daemon *d, const struct mrcd_flow_key *want, uint32_t n_want,
	struct mrcd_reload_place **place, struct mrcd_reload_count *count, char *what, size_t len)
{
	struct mrcd_reload *r = d->reload;
	uint8_t *keep = malloc((size_t)r->n_cl + 1), *add = malloc((size_t)n_want + 1);
	int rc;

	*place = calloc((size_t)n_want + 1, sizeof(**place));
	*count = r->count;
	rc = keep != NULL && add != NULL && *place != NULL
		     ? mrcd_reload_diff(r->cl, r->n_cl, want, n_want, keep, add)
		     : -ENOMEM;
	if (rc < 0)
		snprintf(what, len, "out of memory comparing the cluster's flows");
	else
		rc = mrcd_reload_number(
			count, want, n_want, add, d->n_added_pairs, r->reserve, *place, what, len);
	free(keep);
	free(add);
	return rc < 0 ? rc : 0;
}

/*
 * A reload taken: the cluster's flow list `*cl` (made by this reload, or
 * NULL when the hosts are in one process) and its numbering become the
 * run's, so the next reload numbers from them; *cl is r's after.
 */
static void
cluster_take(struct mrcd_reload *r, struct mrcd_flow_key **cl, uint32_t n_cl,
	const struct mrcd_reload_count *count)
{
	if (*cl == NULL)
		return;
	free(r->cl);
	r->cl = *cl;
	r->n_cl = n_cl;
	r->count = *count;
	*cl = NULL;
}

int
mrcd_reload_flows(struct mrcd_daemon *d, const struct mrcd_profile *next, uint64_t now, char *what,
	size_t len)
{
	struct mrcd_reload *r = d->reload;
	struct mrcd_flow_key *live = NULL, *want = NULL, *cl = NULL;
	uint32_t *live_fi = NULL, *from = NULL, n_live = 0, n_want = 0, n_cl = 0, adds = 0,
		 dels = 0;
	uint8_t *keep = NULL, *add = NULL;
	struct mrcd_reload_place *place = NULL;
	struct mrcd_reload_count count;
	int rc;

	rc = mrcd_reload_want(d, next, &want, &n_want);
	if (rc == 0 && r != NULL && r->cluster) {
		/* the whole cluster's list, kept in force once this reload is taken */
		cl = malloc(((size_t)n_want + 1) * sizeof(*cl));
		rc = cl != NULL ? 0 : -ENOMEM;
		if (cl != NULL)
			memcpy(cl, want, (size_t)n_want * sizeof(*cl));
		n_cl = n_want;
	}
	from = malloc(((size_t)n_want + 1) * sizeof(*from));
	rc = rc == 0 && from == NULL ? -ENOMEM : rc;
	/* This process's part of the cluster's list: the flows with an end here. */
	for (uint32_t j = 0, k = 0; rc == 0; j++) {
		if (j == n_want) {
			n_want = k;
			break;
		}
		if (local_end(d, want[j].src) || local_end(d, want[j].dst)) {
			from[k] = j;
			want[k++] = want[j];
		}
	}
	live = calloc((size_t)d->n_flows + 1, sizeof(*live));
	live_fi = calloc((size_t)d->n_flows + 1, sizeof(*live_fi));
	if (rc != 0 || live == NULL || live_fi == NULL) {
		snprintf(what, len, "the new profile's flow list: %s",
			rc == -E2BIG ? "more flows than mrcd takes" : "out of memory");
		rc = rc != 0 ? rc : -ENOMEM;
		goto out;
	}
	/* Every process refuses alike what the cluster's numbering cannot place. */
	if (cl != NULL) {
		rc = cluster_number(d, cl, n_cl, &place, &count, what, len);
		if (rc != 0)
			goto out;
	}
	for (uint32_t i = 0; i < d->n_flows; i++)
		if (!d->flows[i].gone) {
			live[n_live] = (struct mrcd_flow_key){
				d->flows[i].src, d->flows[i].dst, d->flows[i].q};
			live_fi[n_live++] = i;
		}
	keep = malloc((size_t)n_live + 1);
	add = malloc((size_t)n_want + 1);
	rc = keep != NULL && add != NULL ? mrcd_reload_diff(live, n_live, want, n_want, keep, add)
					 : -ENOMEM;
	if (rc < 0) {
		snprintf(what, len, "out of memory comparing the flows");
		goto out;
	}
	if (rc == 0) {
		/* none of ours changes; the cluster's list (others' flows) may have */
		cluster_take(r, &cl, n_cl, &count);
		goto out;
	}
	if (r == NULL) {
		snprintf(what, len,
			"the flows would change, and this run made no room for that (%s)",
			!d->cli.service ? "not a service"
			: d->no_traffic ? "it started without a profile"
					: "no room was made at start");
		rc = -EPERM;
		goto out;
	}
	if (__atomic_load_n(&d->phase, __ATOMIC_ACQUIRE) != MRCD_RUN) {
		snprintf(what, len, "the run is ending: its flows are draining");
		rc = -ECANCELED;
		goto out;
	}
	if (mrcd_reload_busy(d)) {
		snprintf(what, len, "the previous reload's flows are still being changed");
		rc = -EBUSY;
		goto out;
	}
	rc = can_apply(d, live, live_fi, n_live, keep, want, n_want, add, now, what, len);
	if (rc != 0)
		goto out;
	/* Taken: the cluster's numbering moves on, whatever happens below. */
	cluster_take(r, &cl, n_cl, &count);
	for (uint32_t i = 0; i < n_live; i++)
		if (!keep[i]) {
			remove_flow(d, live_fi[i], now);
			dels++;
		}
	for (uint32_t j = 0; j < n_want; j++)
		if (add[j]) {
			rc = r->cluster ? add_flow_cluster(d, &want[j], &place[from[j]], now)
					: add_flow(d, &want[j], now);
			if (rc != 0) {
				/* out of memory half-way: what was started goes on, said */
				snprintf(what, len,
					"flow host %u -> %u (q %u) could not be made: %s; %u of "
					"the changes were made",
					want[j].src, want[j].dst, want[j].q, strerror(-rc),
					dels + adds);
				goto out;
			}
			adds++;
		}
	r->added += adds;
	r->removed += dels;
	snprintf(what, len, "%u flows kept, %u removed, %u added", n_live - dels, dels, adds);
	rc = 1;
out:
	free(live);
	free(live_fi);
	free(want);
	free(from);
	free(cl);
	free(place);
	free(keep);
	free(add);
	return rc;
}

/* Put the current step's shard requests on the rings (again, if a ring was full). */
static bool
shard_reqs_done(struct mrcd_daemon *d, const struct mrcd_flow *f, struct reload_op *o)
{
	/* each QP to (and out of) the shard that owns its QPN, where its flow is listed */
	struct mrc_shard *const end[2] = {
		f->src_local >= 0 ? d->host[f->src_local].shard[f->src_shard].rt : NULL,
		f->dst_local >= 0 ? d->host[f->dst_local].shard[f->dst_shard].rt : NULL};
	bool done = true;

	for (int k = 0; k < 2; k++) {
		if (end[k] == NULL || o->sreq[k].qp == NULL)
			continue; /* that end is in another process */
		if (!o->sent[k])
			o->sent[k] = mrc_shard_request(end[k], &o->sreq[k]) == 0;
		done = done && o->sent[k] && mrc_shard_req_done(&o->sreq[k]);
	}
	return done;
}

/* Ask the worker of host h's shard k (once); true when it has answered. */
static bool
gen_done(struct mrcd_daemon *d, int16_t h, uint8_t k, struct reload_op *o)
{
	if (!o->sent[0]) {
		__atomic_store_n(&o->greq.done, 0, __ATOMIC_RELAXED);
		o->sent[0] = rte_ring_sp_enqueue(d->recover->gen_req[h][k], &o->greq) == 0;
	}
	return o->sent[0] && __atomic_load_n(&o->greq.done, __ATOMIC_ACQUIRE) != 0;
}

/* One step of op o if what it waits for is done; false once it is finished. */
static bool
step(struct mrcd_daemon *d, struct reload_op *o, uint64_t now)
{
	struct mrcd_reload *r = d->reload;
	struct mrcd_flow *f = &d->flows[o->fi];

	switch (o->state) {
	case OP_ADD_QPS:
		if (!shard_reqs_done(d, f, o))
			break;
		if (o->sreq[0].rc != 0 || o->sreq[1].rc != 0)
			MRCD_LOG(ctrl, ERR, "reload: flow %u: a shard refused its new QP", f->id);
		ask_gen(o, MRCD_GEN_ATTACH_RECV, NULL);
		o->state = OP_ATTACH_RECV;
		/* fall through */
	case OP_ATTACH_RECV:
		/* (an end in another process is listed there, by its own reload) */
		if (f->dst_local >= 0 && !gen_done(d, f->dst_local, f->dst_shard, o))
			break;
		ask_gen(o, MRCD_GEN_ATTACH_SEND, NULL);
		o->state = OP_ATTACH_SEND;
		/* fall through */
	case OP_ATTACH_SEND:
		if (f->src_local >= 0 && !gen_done(d, f->src_local, f->src_shard, o))
			break;
		o->state = OP_DONE;
		break;
	case OP_STOP:
		if (!gen_done(d, f->src_local, f->src_shard, o))
			break;
		/* Messages still in flight: ask again (a pass later) until the drain time ends. */
		if (o->greq.seq != 0 && now < o->deadline) {
			ask_gen(o, MRCD_GEN_STOP, NULL);
			break;
		}
		ask_gen(o, MRCD_GEN_DETACH_SEND, NULL);
		o->state = OP_DETACH_SEND;
		/* fall through */
	case OP_DETACH_SEND:
		if (!gen_done(d, f->src_local, f->src_shard, o))
			break;
		if (f->dst_local < 0) {
			ask_shards(o, MRC_SHARD_RETIRE_QP);
			o->state = OP_RETIRE;
			goto retire; /* its receiving end is in another process */
		}
		ask_gen(o, MRCD_GEN_DETACH_RECV, NULL);
		o->state = OP_DETACH_RECV;
		/* fall through */
	case OP_HOLD:
		if (o->state == OP_HOLD) {
			if (now < o->deadline)
				break;
			ask_gen(o, MRCD_GEN_DETACH_RECV, NULL);
			o->state = OP_DETACH_RECV;
		}
		/* fall through */
	case OP_DETACH_RECV:
		if (!gen_done(d, f->dst_local, f->dst_shard, o))
			break;
		ask_shards(o, MRC_SHARD_RETIRE_QP);
		o->state = OP_RETIRE;
		/* fall through */
	case OP_RETIRE:
	retire:
		if (!shard_reqs_done(d, f, o))
			break;
		mrcd_recover_forget(d, o->fi, now);
		if (f->id < d->n_cluster_flows)
			__atomic_store_n(&d->flow_of[f->id], -1, __ATOMIC_RELEASE);
		/* an added pair is never handed out again: its late packets find no flow */
		if (f->qpn - d->added_qpn < 2 * d->n_added_pairs)
			__atomic_store_n(
				&d->added_of[(f->qpn - d->added_qpn) / 2], -1, __ATOMIC_RELEASE);
		o->free_tsc = now + (uint64_t)MRCD_RECOVER_QUIET_MS * d->hz / 1000;
		o->state = OP_QUIET;
		/* fall through */
	case OP_QUIET:
		if (now < o->free_tsc)
			break;
		/* Out of every list and shard: nobody reaches them but through these pointers. */
		__atomic_store_n(&f->qp, NULL, __ATOMIC_RELEASE);
		__atomic_store_n(&d->peer_qp[o->fi], NULL, __ATOMIC_RELEASE);
		mrcd_gen_qp_destroy(d, o->send);
		mrcd_gen_qp_destroy(d, o->recv);
		o->send = o->recv = NULL;
		rte_free(f->post_tsc);
		f->post_tsc = NULL;
		/* each end's slots, in its host's region (an end elsewhere has none here);
		 * across processes the cluster's numbering never gives one back */
		if (f->src_local >= 0 && !r->cluster)
			slot_give(&r->slots[f->src_local], f->src_off);
		if (f->dst_local >= 0 && !r->cluster)
			slot_give(&r->slots[f->dst_local], f->dst_off);
		o->state = OP_DONE;
		break;
	default:
		break;
	}
	return o->state != OP_DONE;
}

void
mrcd_reload_tick(struct mrcd_daemon *d, uint64_t now)
{
	struct mrcd_reload *r = d->reload;

	bool pending = false;

	if (r == NULL || r->n_ops == 0)
		return;
	/* Ops stay where they are until all are done: the rings hold pointers into them. */
	for (uint32_t k = 0; k < r->n_ops; k++)
		if (r->ops[k].state != OP_DONE)
			pending |= step(d, &r->ops[k], now);
	if (!pending) {
		MRCD_LOG(ctrl, NOTICE, "reload: the flows' changes are done (%u)", r->n_ops);
		r->n_ops = 0;
	}
}
