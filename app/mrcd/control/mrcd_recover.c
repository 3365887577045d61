/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: the main lcore (setup, every control tick, teardown).
 *
 * The control side of bringing a generator flow back after one of its QPs
 * went to ERROR: the steps of mrcd_recover.h, one state per flow, moved on
 * each tick by what the shards and workers have done. Control never
 * touches a QP a shard owns nor the generator's state: it asks, through
 * the host's shard request ring and its generator ring, and reads the
 * answers once their `done` flags are set.
 */

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_malloc.h>

#include "mrcd_control.h"
#include "mrcd_log.h"
#include "mrcd_recover.h"
#include "mrcd_recover_priv.h"

static const char *const why_names[] = {
#define WHY_NAME(name, text) #name,
	MRCD_RECOVER_WHY(WHY_NAME)
#undef WHY_NAME
};

static const char *const why_texts[] = {
#define WHY_TEXT(name, text) text,
	MRCD_RECOVER_WHY(WHY_TEXT)
#undef WHY_TEXT
};

const char *
mrcd_recover_why_name(enum mrcd_recover_why why)
{
	return why < MRCD_RECOVER_N_WHY ? why_names[why] : "?";
}

const char *
mrcd_recover_why_text(enum mrcd_recover_why why)
{
	return why < MRCD_RECOVER_N_WHY ? why_texts[why] : "?";
}

struct mrc_shard *
mrcd_rec_shard_of(const struct mrcd_daemon *d, unsigned int h, const struct mrc_qp *qp)
{
	for (unsigned int k = 1; k < d->host[h].n_shards; k++)
		if (mrc_shard_owns(d->host[h].shard[k].rt, mrc_qp_qpn(qp)))
			return d->host[h].shard[k].rt;
	return d->host[h].shard[0].rt;
}

int
mrcd_recover_init(struct mrcd_daemon *d)
{
	struct mrcd_recover *r;

	r = rte_zmalloc("mrcd_recover", sizeof(*r), RTE_CACHE_LINE_SIZE);
	if (r == NULL)
		goto nomem;
	d->recover = r;
	r->n_spares = mrcd_recover_spares(d->n_cluster_flows);
	r->spare_flow = rte_malloc("mrcd_spares", (r->n_spares + 1) * sizeof(int32_t), 64);
	r->spare_free_tsc = rte_zmalloc("mrcd_spare_tsc", (r->n_spares + 1) * sizeof(uint64_t), 64);
	/* flows a reload adds are recovered too: room for d->flow_cap */
	r->rec = rte_zmalloc("mrcd_rec", (d->flow_cap + 1) * sizeof(*r->rec), 64);
	r->active = rte_malloc("mrcd_rec_active", (d->flow_cap + 1) * sizeof(uint32_t), 64);
	if (r->spare_flow == NULL || r->spare_free_tsc == NULL || r->rec == NULL ||
		r->active == NULL)
		goto nomem;
	for (uint32_t s = 0; s < r->n_spares; s++)
		r->spare_flow[s] = -1;
	mrc_rand_seed(&r->rand, d->cfg.daemon.seed * 1000003u + 0x7ec);
	for (unsigned int h = 0; h < d->n_hosts; h++)
		for (unsigned int k = 0; k < d->host[h].n_shards; k++) {
			char name[RTE_RING_NAMESIZE];

			snprintf(name, sizeof(name), "mrcd_gq%u_%u", h, k);
			r->gen_req[h][k] = rte_ring_create(
				name, 1024, (int)rte_socket_id(), RING_F_SP_ENQ | RING_F_SC_DEQ);
			if (r->gen_req[h][k] == NULL) {
				MRCD_LOG(ctrl, ERR,
					"host %u shard %u: cannot make its generator ring: %s", h,
					k, rte_strerror(rte_errno));
				return -rte_errno;
			}
		}
	return 0;
nomem:
	MRCD_LOG(ctrl, ERR, "out of memory for the recovery state of %u flows", d->n_flows);
	return -ENOMEM;
}

/* Teardown, the workers stopped: whatever QPs the recoveries still hold go. */
void
mrcd_recover_free(struct mrcd_daemon *d)
{
	struct mrcd_recover *r = d->recover;

	if (r == NULL)
		return;
	for (unsigned int i = 0; i < d->flow_cap && r->rec != NULL; i++) {
		struct mrcd_flow_rec *x = r->rec[i];

		if (x == NULL)
			continue;
		/* Made and maybe added, never taken: out of the shard (now ours), freed. */
		if (x->new_send != NULL)
			(void)mrc_shard_del_qp(
				mrcd_rec_shard_of(
					d, (unsigned int)d->flows[i].src_local, x->new_send),
				x->new_send);
		if (x->new_recv != NULL)
			(void)mrc_shard_del_qp(
				mrcd_rec_shard_of(
					d, (unsigned int)d->flows[i].dst_local, x->new_recv),
				x->new_recv);
		mrcd_gen_qp_destroy(d, x->new_send);
		mrcd_gen_qp_destroy(d, x->new_recv);
		mrcd_gen_qp_destroy(d, x->old_send);
		mrcd_gen_qp_destroy(d, x->old_recv);
		rte_free(x);
	}
	for (unsigned int h = 0; h < d->n_hosts; h++)
		for (unsigned int k = 0; k < MRC_SHARD_MAX_SHARDS; k++)
			rte_ring_free(r->gen_req[h][k]);
	rte_free(r->spare_flow);
	rte_free(r->spare_free_tsc);
	rte_free(r->rec);
	rte_free(r->active);
	rte_free(r);
	d->recover = NULL;
}

void
mrcd_rec_list(struct mrcd_recover *r, struct mrcd_flow_rec *x, uint32_t fi)
{
	if (!x->listed) {
		x->listed = true;
		r->active[r->n_active++] = fi;
	}
}

void
mrcd_rec_rest_spare(struct mrcd_daemon *d, uint32_t s, uint64_t now)
{
	struct mrcd_recover *r = d->recover;

	r->spare_free_tsc[s] = now + (uint64_t)MRCD_RECOVER_QUIET_MS * d->hz / 1000;
	__atomic_store_n(&r->spare_flow[s], -1, __ATOMIC_RELEASE);
}

void
mrcd_rec_give_up(struct mrcd_daemon *d, unsigned int h, uint32_t fi, struct mrcd_flow_rec *x,
	enum mrcd_recover_why why)
{
	const struct mrcd_flow *f = &d->flows[fi];
	uint64_t *c = &d->recover->not_recovered[h][why];

	if (x != NULL && x->state != REC_DOWN) {
		if (x->xp && f->src_local >= 0)
			mrcd_rec_xp_gave_up(d, fi, x);
		x->why = (uint8_t)why;
		x->state = REC_DOWN;
	}
	__atomic_store_n(c, *c + 1, __ATOMIC_RELAXED);
	MRCD_LOG(ctrl, WARNING, "flow %u (host %u -> %u) is not brought back: %s; it stays failed",
		f->id, f->src, f->dst, mrcd_recover_why_text(why));
}

struct mrcd_flow_rec *
mrcd_rec_of(struct mrcd_daemon *d, uint32_t fi)
{
	struct mrcd_recover *r = d->recover;
	const struct mrcd_flow *f = &d->flows[fi];
	struct mrcd_flow_rec *x = r->rec[fi];

	if (x != NULL)
		return x;
	x = rte_zmalloc("mrcd_flow_rec", sizeof(*x), 0);
	if (x == NULL)
		return NULL;
	/* Never recovered: the pair setup made, which no worker has changed (NULL: an
	 * end in another process). */
	x->cur_send = f->qp;
	x->cur_recv = d->peer_qp[fi];
	x->spare = -1;
	x->xp = f->src_local < 0 || f->dst_local < 0;
	r->rec[fi] = x;
	return x;
}

void
mrcd_recover_qp_failed(struct mrcd_daemon *d, unsigned int h, uint32_t qpn, uint64_t now)
{
	struct mrcd_recover *r = d->recover;
	const int32_t fi = r != NULL ? mrcd_flow_of_qpn(d, qpn) : -1;
	struct mrcd_flow_rec *x;
	const struct mrcd_flow *f;

	if (fi < 0 || d->flows[fi].gone)
		return; /* a reload removes it (mrcd_reload.h): its QPs go anyway */
	f = &d->flows[fi];
	if (__atomic_load_n(&d->phase, __ATOMIC_ACQUIRE) != MRCD_RUN) {
		mrcd_rec_give_up(d, h, (uint32_t)fi, NULL, MRCD_RECOVER_ending);
		return;
	}
	if (f->src_local < 0 || f->dst_local < 0) {
		/* Agreed with the other end's process by endpoint requests, which name
		 * the flow by the number both give it (the cluster's or a reload's). */
		if (d->ep == NULL || mrcd_flow_of_cluster_id(d, f->id) != fi)
			mrcd_rec_give_up(d, h, (uint32_t)fi, NULL, MRCD_RECOVER_other_process);
		else
			mrcd_rec_xp_failed(d, (uint32_t)fi, qpn, now);
		return;
	}
	x = mrcd_rec_of(d, (uint32_t)fi);
	if (x == NULL) {
		mrcd_rec_give_up(d, h, (uint32_t)fi, NULL, MRCD_RECOVER_no_qp);
		return;
	}
	/* Only the pair in use now: the other end of it failing too, or a stale QPN, is no news. */
	if (x->state != REC_UP ||
		(qpn != mrc_qp_qpn(x->cur_send) && qpn != mrc_qp_qpn(x->cur_recv)))
		return;
	if (x->fails == 0 || now - x->window_tsc > (uint64_t)MRCD_RECOVER_WINDOW_S * d->hz) {
		x->window_tsc = now;
		x->fails = 0;
	}
	if (++x->fails > MRCD_RECOVER_TRIES) {
		mrcd_rec_give_up(
			d, (unsigned int)f->src_local, (uint32_t)fi, x, MRCD_RECOVER_too_often);
		return;
	}
	x->at_tsc = now + ((uint64_t)MRCD_RECOVER_HOLD_MS << (x->fails - 1)) * d->hz / 1000;
	x->sreq[0] = (struct mrc_shard_req){.op = MRC_SHARD_RETIRE_QP, .qp = x->cur_send};
	x->sreq[1] = (struct mrc_shard_req){.op = MRC_SHARD_RETIRE_QP, .qp = x->cur_recv};
	x->sent[0] = x->sent[1] = false;
	x->state = REC_RETIRING;
	mrcd_rec_list(r, x, (uint32_t)fi);
	MRCD_LOG(ctrl, NOTICE,
		"flow %u (host %u -> %u): retiring QPs 0x%x and 0x%x, a new pair in %" PRIu64
		" ms (failure %u of at most %u in %u s)",
		f->id, f->src, f->dst, mrc_qp_qpn(x->cur_send), mrc_qp_qpn(x->cur_recv),
		(x->at_tsc - now) * 1000 / d->hz, x->fails, MRCD_RECOVER_TRIES,
		MRCD_RECOVER_WINDOW_S);
}

/* Put the current step's shard requests on the rings (again, if a ring was full). */
static bool
shard_reqs_done(struct mrcd_daemon *d, const struct mrcd_flow *f, struct mrcd_flow_rec *x)
{
	const int16_t end[2] = {f->src_local, f->dst_local};
	bool done = true;

	for (int k = 0; k < 2; k++) {
		if (!x->sent[k])
			x->sent[k] = mrc_shard_request(mrcd_rec_shard_of(d, (unsigned int)end[k],
							       x->sreq[k].qp),
					     &x->sreq[k]) == 0;
		done = done && x->sent[k] && mrc_shard_req_done(&x->sreq[k]);
	}
	return done;
}

bool
mrcd_rec_gen_done(struct mrcd_daemon *d, unsigned int h, unsigned int k, struct mrcd_flow_rec *x)
{
	if (!x->sent[0]) {
		__atomic_store_n(&x->greq.done, 0, __ATOMIC_RELAXED);
		x->sent[0] = rte_ring_sp_enqueue(d->recover->gen_req[h][k], &x->greq) == 0;
	}
	return x->sent[0] && __atomic_load_n(&x->greq.done, __ATOMIC_ACQUIRE) != 0;
}

void
mrcd_rec_ask_gen(struct mrcd_flow_rec *x, uint8_t op, uint32_t fi, struct mrc_qp *qp, uint64_t seq)
{
	x->greq = (struct mrcd_gen_req){.op = op, .flow = fi, .qp = qp, .seq = seq};
	x->sent[0] = false;
}

int32_t
mrcd_recover_pick_spare_from(const int32_t *spare_flow, const uint64_t *free_tsc, uint32_t n_spares,
	unsigned int n_shards, unsigned int mode, int send, int recv, uint64_t now, uint32_t from)
{
	for (uint32_t k = 0; k < n_spares; k++) {
		const uint32_t s = (uint32_t)(((uint64_t)from + k) % n_spares);
		uint8_t ss, rs;

		if (__atomic_load_n(&spare_flow[s], __ATOMIC_RELAXED) >= 0 || free_tsc[s] > now)
			continue;
		mrcd_spare_shards(s, n_shards, mode, &ss, &rs);
		if ((send < 0 || ss == send) && (recv < 0 || rs == recv))
			return (int32_t)s;
	}
	return -1;
}

int32_t
mrcd_recover_pick_spare(const int32_t *spare_flow, const uint64_t *free_tsc, uint32_t n_spares,
	unsigned int n_shards, unsigned int mode, int send, int recv, uint64_t now)
{
	return mrcd_recover_pick_spare_from(
		spare_flow, free_tsc, n_spares, n_shards, mode, send, recv, now, 0);
}

/*
 * A spare pair free now whose sending QP lives on the shard that lists flow
 * f's sending end and whose receiving QP on the one that lists its
 * receiving end (at both hosts: every host has the same shard count): the
 * generator state of each end stays with its shard's worker, so the new QP
 * must too. -1: none free there.
 */
static int32_t
take_spare_for(const struct mrcd_daemon *d, const struct mrcd_flow *f, uint64_t now)
{
	const struct mrcd_recover *r = d->recover;

	return mrcd_recover_pick_spare(r->spare_flow, r->spare_free_tsc, r->n_spares,
		d->host[f->src_local].n_shards, d->cfg.lcores.peer_shard, f->src_shard,
		f->dst_shard, now);
}

int32_t
mrcd_recover_take_spare(struct mrcd_daemon *d, uint64_t now)
{
	const struct mrcd_recover *r = d->recover;

	return r != NULL ? mrcd_recover_pick_spare(r->spare_flow, r->spare_free_tsc, r->n_spares,
				   d->host[0].n_shards, d->cfg.lcores.peer_shard, -1, -1, now)
			 : -1;
}

int
mrcd_recover_adopt(struct mrcd_daemon *d, uint32_t fi, int32_t s)
{
	struct mrcd_recover *r = d->recover;
	struct mrcd_flow_rec *x = r->rec[fi];

	if (x == NULL) {
		x = rte_zmalloc("mrcd_flow_rec", sizeof(*x), 0);
		if (x == NULL)
			return -ENOMEM;
		r->rec[fi] = x;
	}
	memset(x, 0, sizeof(*x));
	x->cur_send = d->flows[fi].qp;
	x->cur_recv = d->peer_qp[fi];
	x->spare = s;
	/* The pair's QPNs name the flow before any packet or completion can carry them. */
	__atomic_store_n(&r->spare_flow[s], (int32_t)fi, __ATOMIC_RELEASE);
	return 0;
}

void
mrcd_recover_forget(struct mrcd_daemon *d, uint32_t fi, uint64_t now)
{
	struct mrcd_recover *r = d->recover;
	struct mrcd_flow_rec *x = r != NULL ? r->rec[fi] : NULL;

	if (x == NULL)
		return;
	if (x->spare >= 0)
		mrcd_rec_rest_spare(d, (uint32_t)x->spare, now);
	x->spare = -1;
	x->state = REC_DOWN; /* its QPs are the reload's to free: a late failure is no news */
	x->cur_send = x->cur_recv = NULL;
}

bool
mrcd_recover_busy(const struct mrcd_daemon *d, uint32_t fi)
{
	const struct mrcd_flow_rec *x = d->recover != NULL ? d->recover->rec[fi] : NULL;

	return x != NULL && (x->state != REC_UP || x->old_send != NULL || x->old_recv != NULL);
}

/* Step 3: a fresh pair on a spare pair of QPNs, connected, asked into the shards. */
static void
make_pair(struct mrcd_daemon *d, uint32_t fi, struct mrcd_flow_rec *x, uint64_t now)
{
	struct mrcd_recover *r = d->recover;
	const struct mrcd_flow *f = &d->flows[fi];
	const unsigned int src = (unsigned int)f->src_local, dst = (unsigned int)f->dst_local;
	int32_t s;
	uint32_t sq;

	s = take_spare_for(d, f, now);
	if (s < 0) {
		mrcd_rec_give_up(d, src, fi, x, MRCD_RECOVER_no_spare);
		return;
	}
	sq = MRCD_QPN_BASE + 2 * (d->n_cluster_flows + (uint32_t)s);
	x->new_send = mrcd_make_qp_rts(
		d, src, f->src_shard, f->dst, f->dst_shard, sq, sq + 1, now, &r->rand);
	x->new_recv = x->new_send != NULL ? mrcd_make_qp_rts(d, dst, f->dst_shard, f->src,
						    f->src_shard, sq + 1, sq, now, &r->rand)
					  : NULL;
	if (x->new_recv == NULL) {
		mrcd_gen_qp_destroy(d, x->new_send);
		x->new_send = NULL;
		mrcd_rec_give_up(d, src, fi, x, MRCD_RECOVER_no_qp);
		return;
	}
	/* the NIC's encap rules its flow's first pair left (doc/offload.md) */
	mrcd_encap_attach_late(d, src, f->src_shard, f->dst, f->dst_shard, x->new_send);
	mrcd_encap_attach_late(d, dst, f->dst_shard, f->src, f->src_shard, x->new_recv);
	/* Each end's planes as the other's port shows them; the worker keeps them up to date. */
	mrc_qp_set_peer_planes(x->new_send, mrc_shard_port_mask(d->host[dst].shard[0].rt));
	mrc_qp_set_peer_planes(x->new_recv, mrc_shard_port_mask(d->host[src].shard[0].rt));
	/* The pair's QPNs name the flow before any packet or completion can carry them. */
	__atomic_store_n(&r->spare_flow[s], (int32_t)fi, __ATOMIC_RELEASE);
	x->next_spare = s;
	x->sreq[0] = (struct mrc_shard_req){.op = MRC_SHARD_ADD_QP, .qp = x->new_send};
	x->sreq[1] = (struct mrc_shard_req){.op = MRC_SHARD_ADD_QP, .qp = x->new_recv};
	x->sent[0] = x->sent[1] = false;
	x->state = REC_ADDING;
}

/* The flow runs on its new pair: the old one's QPNs rest, its QPs wait to be freed. */
static void
recovered(struct mrcd_daemon *d, uint32_t fi, struct mrcd_flow_rec *x, uint64_t now)
{
	struct mrcd_recover *r = d->recover;
	const struct mrcd_flow *f = &d->flows[fi];
	uint64_t *c = &r->recovered[f->src_local];

	if (x->spare >= 0)
		mrcd_rec_rest_spare(d, (uint32_t)x->spare, now);
	x->spare = x->next_spare;
	x->free_tsc = now + (uint64_t)MRCD_RECOVER_QUIET_MS * d->hz / 1000;
	x->state = REC_UP;
	__atomic_store_n(c, *c + 1, __ATOMIC_RELAXED);
	MRCD_LOG(ctrl, NOTICE,
		"flow %u (host %u -> %u) recovered on QPs 0x%x -> 0x%x, from message %" PRIu64,
		f->id, f->src, f->dst, mrc_qp_qpn(x->cur_send), mrc_qp_qpn(x->cur_recv), x->seq);
}

/* One step of flow fi, if what it waits for is done; false once nothing is pending. */
static bool
step(struct mrcd_daemon *d, uint32_t fi, struct mrcd_flow_rec *x, uint64_t now)
{
	const struct mrcd_flow *f = &d->flows[fi];
	const unsigned int src = (unsigned int)f->src_local, dst = (unsigned int)f->dst_local;

	if (x->xp)
		mrcd_rec_xp_step(d, fi, x, now);
	switch (x->xp ? REC_UP : x->state) {
	case REC_RETIRING:
		if (!shard_reqs_done(d, f, x))
			break;
		if (x->sreq[0].rc != 0 || x->sreq[1].rc != 0) {
			mrcd_rec_give_up(d, src, fi, x, MRCD_RECOVER_refused);
			break;
		}
		x->state = REC_HOLD;
		/* fall through */
	case REC_HOLD:
		if (now >= x->at_tsc)
			make_pair(d, fi, x, now);
		break;
	case REC_ADDING:
		if (!shard_reqs_done(d, f, x))
			break;
		if (x->sreq[0].rc != 0 || x->sreq[1].rc != 0) {
			mrcd_rec_give_up(d, src, fi, x, MRCD_RECOVER_refused);
			break;
		}
		mrcd_rec_ask_gen(x, MRCD_GEN_SEQ, fi, NULL, 0);
		x->state = REC_SEQ;
		/* fall through */
	case REC_SEQ:
		if (!mrcd_rec_gen_done(d, src, f->src_shard, x))
			break;
		x->seq = x->greq.seq;
		mrcd_rec_ask_gen(x, MRCD_GEN_RESUME_RECV, fi, x->new_recv, x->seq);
		x->state = REC_RECV;
		/* fall through */
	case REC_RECV:
		if (!mrcd_rec_gen_done(d, dst, f->dst_shard, x))
			break;
		mrcd_gen_qp_destroy(d, x->old_recv); /* a previous recovery's, long out of use */
		x->old_recv = x->cur_recv;
		x->cur_recv = x->new_recv;
		x->new_recv = NULL;
		mrcd_rec_ask_gen(x, MRCD_GEN_RESUME_SEND, fi, x->new_send, 0);
		x->state = REC_SEND;
		/* fall through */
	case REC_SEND:
		if (!mrcd_rec_gen_done(d, src, f->src_shard, x))
			break;
		mrcd_gen_qp_destroy(d, x->old_send);
		x->old_send = x->cur_send;
		x->cur_send = x->new_send;
		x->new_send = NULL;
		recovered(d, fi, x, now);
		break;
	default:
		break;
	}
	/* Retired QPs are freed a while after the swap: telemetry may still hold one. */
	if ((x->state == REC_UP || x->state == REC_DOWN || x->state == REC_X_WAIT) &&
		now >= x->free_tsc) {
		mrcd_gen_qp_destroy(d, x->old_send);
		mrcd_gen_qp_destroy(d, x->old_recv);
		x->old_send = x->old_recv = NULL;
	}
	/* a receiver waiting for the sender's process to ask is idle too; a sender that gave
	 * up is not while it tells the receiver's process */
	return !((x->state == REC_UP || x->state == REC_DOWN || x->state == REC_X_WAIT) &&
		 x->old_send == NULL && x->old_recv == NULL && !x->bye);
}

bool
mrcd_recover_tick(struct mrcd_daemon *d, uint64_t now)
{
	struct mrcd_recover *r = d->recover;
	bool moving = false;

	for (uint32_t k = 0; r != NULL && k < r->n_active;) {
		const uint32_t fi = r->active[k];
		struct mrcd_flow_rec *x = r->rec[fi];

		if (step(d, fi, x, now)) {
			/* up or down, only its old QPs left to free a second later: idle */
			moving |= (x->state != REC_UP && x->state != REC_DOWN &&
					  x->state != REC_X_WAIT) ||
				  x->bye;
			k++;
			continue;
		}
		x->listed = false;
		r->active[k] = r->active[--r->n_active];
	}
	return moving;
}

uint64_t
mrcd_recover_count(const struct mrcd_daemon *d, unsigned int h)
{
	return d->recover != NULL ? __atomic_load_n(&d->recover->recovered[h], __ATOMIC_RELAXED)
				  : 0;
}

uint64_t
mrcd_recover_failed(const struct mrcd_daemon *d, unsigned int h)
{
	uint64_t n = 0;

	for (unsigned int w = 0; d->recover != NULL && w < MRCD_RECOVER_N_WHY; w++)
		n += __atomic_load_n(&d->recover->not_recovered[h][w], __ATOMIC_RELAXED);
	return n;
}
