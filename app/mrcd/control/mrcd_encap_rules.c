/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: the main lcore, at setup as each QP is made (mrcd_encap_attach,
 * before the QP goes to its shard) and at teardown (mrcd_encap_remove);
 * reports read the counts after the run.
 *
 * The egress encap rules the workers' packets take (doc/offload.md). A rule
 * adds the bytes of one (destination, EV flow-label half, traffic class),
 * so as a QP is made its EVs' rules are made on each plane port that took
 * the probe rule, and the QP is given its destination's table: per plane, a
 * bitmap over the 65536 flow-label halves saying which have every class's
 * rule. The bit is set after the rules exist, so a packet that finds it set
 * finds its rule in the NIC. The QP's answers (SACK, NACK) travel on the
 * EVs of the QP at the other end: when that QP is in this process its EVs'
 * rules are made too; otherwise those answers go in software, counted.
 *
 * Keys: bit 31 set (no key is 0, which a port may match on packets without
 * metadata), bits 30..18 the destination slot (peer host x workers + peer
 * worker), 17..2 the flow-label half, 1..0 the class (mrc_qp_encap_key()).
 * The header bytes come from the QP itself (mrc_qp_encap_hdr(): the code
 * its software build addresses packets with), so a key's bytes are those
 * of every packet that carries it, as long as the path is a function of
 * the flow-label half: checked per QP (the EV layout's plane and uplink
 * fields inside it), else the QP keeps software headers.
 *
 * A port whose next hop neighbour discovery resolves books its rules here
 * and makes them when the MAC is known (mrcd_encap_nd.c); until then, and
 * while they are remade for a new MAC, its tables show no rules (sw_no_port).
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_flow.h>
#include <rte_malloc.h>

#include "mrc_encap.h"
#include "mrc_qp.h"
#include "mrcd_control.h"
#include "mrcd_daemon.h"
#include "mrcd_encap_nd.h"
#include "mrcd_log.h"

/* Destination slots a key holds (13 bits). */
#define SLOTS (1u << 13)

struct encap_dest {
	uint32_t slot;
	uint64_t *bits[MRC_EV_MAX_PLANES]; /* shared by the shards' tables; NULL: no rules */
	struct mrc_qp_encap *shard[MRC_SHARD_MAX_SHARDS]; /* each shard's QPs read their own */
};

struct mrcd_encap_host {
	struct encap_dest *dest;
	unsigned int n_dest, cap_dest;
	struct mrc_flow **flows[MRC_SHARD_MAX_PLANES];
	unsigned int n_flows[MRC_SHARD_MAX_PLANES], cap_flows[MRC_SHARD_MAX_PLANES];
	bool refused[MRC_SHARD_MAX_PLANES]; /* a port that refused one makes no more */
	/* QPs made while running to a destination without a table: no rule anywhere */
	struct mrc_qp_encap *late[MRC_SHARD_MAX_SHARDS];
	uint64_t *no_bits; /* an empty bitmap: the late tables' offloading planes */
	/* ports whose next hop neighbour discovery resolves: rules booked, made later */
	struct mrcd_encap_nd *nd[MRC_SHARD_MAX_PLANES];
};

/* Does plane p's port show its rules to the workers now? */
static bool
port_live(const struct mrcd_encap_host *eh, unsigned int p)
{
	return p >= MRC_SHARD_MAX_PLANES || eh->nd[p] == NULL || eh->nd[p]->live;
}

/*
 * Host `local`'s encap state, made at its first QP: a port whose next hop
 * neighbour discovery resolves books its rules, to make them when the MAC
 * is known (mrcd_encap_nd.c). Neighbour discovery is set up after the
 * ports are probed, so this is decided here.
 */
static struct mrcd_encap_host *
host_get(struct mrcd_daemon *d, unsigned int local)
{
	struct mrcd_hostctx *hc = &d->host[local];
	struct mrcd_encap_host *eh = hc->encap;

	if (eh != NULL)
		return eh;
	eh = calloc(1, sizeof(*eh));
	if (eh == NULL)
		return NULL;
	for (unsigned int p = 0; p < MRC_SHARD_MAX_PLANES; p++) {
		if (hc->encap_ops[p] == NULL || !hc->nd_on || !hc->nd[p].resolve)
			continue;
		eh->nd[p] = calloc(1, sizeof(*eh->nd[p]));
		if (eh->nd[p] == NULL) {
			hc->encap_ops[p] = NULL;
			snprintf(hc->encap_why[p], sizeof(hc->encap_why[p]),
				"rule accepted, unused: out of memory for the rules' book");
			continue;
		}
		eh->nd[p]->ops = hc->encap_ops[p];
		eh->nd[p]->port = hc->port[p];
		snprintf(hc->encap_why[p], sizeof(hc->encap_why[p]),
			"%s probe: rule accepted; neighbour discovery resolves the next hop: "
			"rules made when its MAC is known, made again when it changes",
			hc->encap_ops[p]->name);
		MRCD_LOG(ctrl, NOTICE, "host %u plane %u: port %u: SRv6 encap by the NIC (%s)",
			d->cfg.daemon.first_host + local, p, hc->port[p], hc->encap_why[p]);
	}
	/* the stats thread reads the pointer as it runs */
	__atomic_store_n(&hc->encap, eh, __ATOMIC_RELEASE);
	return eh;
}

static struct encap_dest *
dest_get(struct mrcd_daemon *d, unsigned int local, uint32_t slot)
{
	struct mrcd_hostctx *hc = &d->host[local];
	struct mrcd_encap_host *eh = host_get(d, local);
	struct encap_dest *de;

	if (eh == NULL)
		return NULL;
	for (unsigned int i = 0; i < eh->n_dest; i++)
		if (eh->dest[i].slot == slot)
			return &eh->dest[i];
	if (eh->n_dest == eh->cap_dest) {
		const unsigned int cap = eh->cap_dest ? 2 * eh->cap_dest : 8;
		struct encap_dest *n = realloc(eh->dest, cap * sizeof(*n));

		if (n == NULL)
			return NULL;
		eh->dest = n;
		eh->cap_dest = cap;
	}
	de = &eh->dest[eh->n_dest];
	memset(de, 0, sizeof(*de));
	de->slot = slot;
	for (unsigned int p = 0; p < d->cfg.daemon.planes && p < MRC_EV_MAX_PLANES; p++) {
		if (hc->encap_ops[p] == NULL)
			continue;
		de->bits[p] = rte_zmalloc(
			"mrcd_encap_bits", MRC_QP_ENCAP_FL_WORDS * sizeof(uint64_t), 64);
		if (de->bits[p] == NULL)
			goto nomem;
	}
	eh->n_dest++;
	return de;
nomem:
	for (unsigned int p = 0; p < MRC_EV_MAX_PLANES; p++)
		rte_free(de->bits[p]);
	return NULL;
}

static struct mrc_qp_encap *
table_get(struct mrcd_daemon *d, unsigned int local, struct encap_dest *de, unsigned int shard)
{
	struct mrc_qp_encap *e = de->shard[shard];

	if (e != NULL)
		return e;
	/* A line of its own: the shard's worker writes its counters. */
	e = rte_zmalloc("mrcd_encap_qp", sizeof(*e), RTE_CACHE_LINE_SIZE);
	if (e == NULL)
		return NULL;
	e->key_base = UINT32_C(1) << 31 | de->slot << 18;
	e->meta_off = rte_flow_dynf_metadata_offs;
	e->meta_flag = rte_flow_dynf_metadata_mask;
	for (unsigned int p = 0; p < MRC_EV_MAX_PLANES; p++)
		e->fl_bits[p] = port_live(d->host[local].encap, p) ? de->bits[p] : NULL;
	de->shard[shard] = e;
	return e;
}

static int
keep_flow(struct mrcd_encap_host *eh, unsigned int p, struct mrc_flow *f)
{
	if (eh->n_flows[p] == eh->cap_flows[p]) {
		const unsigned int cap = eh->cap_flows[p] ? 2 * eh->cap_flows[p] : 256;
		struct mrc_flow **n = realloc(eh->flows[p], cap * sizeof(*n));

		if (n == NULL)
			return -ENOMEM;
		eh->flows[p] = n;
		eh->cap_flows[p] = cap;
	}
	eh->flows[p][eh->n_flows[p]++] = f;
	return 0;
}

/*
 * A port whose next hop is resolved: the rules of `ev` in its book, made
 * when the MAC is known; the bit set now (the port's tables show no bitmap
 * until then).
 */
static void
book_ev(struct mrcd_daemon *d, unsigned int local, struct encap_dest *de, const struct mrc_qp *qp,
	uint32_t ev, unsigned int p, uint16_t fl)
{
	struct mrcd_encap_host *eh = d->host[local].encap;
	uint8_t hdr[MRC_ENCAP_MAX_LEN];

	for (unsigned int cls = 0; cls < MRC_QP_ENCAP_CLASSES; cls++) {
		const uint32_t key = mrc_qp_encap_key(UINT32_C(1) << 31 | de->slot << 18, fl, cls);
		const size_t len = mrc_qp_encap_hdr(qp, ev, cls, hdr, sizeof(hdr));

		if (len == 0 || mrcd_encap_nd_book(eh->nd[p], key, (uint32_t)(de - eh->dest), fl,
					hdr, len) != 0) {
			MRCD_LOG(ctrl, WARNING,
				"host %u plane %u: encap rule (key 0x%08x) not booked: %s; the "
				"EV's packets go in software",
				d->cfg.daemon.first_host + local, p, key,
				len == 0 ? "no header for the EV" : "no memory");
			return;
		}
	}
	de->bits[p][fl >> 6] |= UINT64_C(1) << (fl & 63);
}

/* The rules of `ev` as `qp` addresses it, unless there; the bit set when all are. */
static void
install_ev(struct mrcd_daemon *d, unsigned int local, struct encap_dest *de,
	const struct mrc_qp *qp, uint32_t ev, unsigned int p, uint16_t fl)
{
	struct mrcd_hostctx *hc = &d->host[local];
	struct mrcd_encap_host *eh = hc->encap;
	uint64_t *w = &de->bits[p][fl >> 6];
	const uint64_t bit = UINT64_C(1) << (fl & 63);
	uint8_t hdr[MRC_ENCAP_MAX_LEN];

	if ((*w & bit) || eh->refused[p])
		return;
	if (eh->nd[p] != NULL) {
		book_ev(d, local, de, qp, ev, p, fl);
		return;
	}
	for (unsigned int cls = 0; cls < MRC_QP_ENCAP_CLASSES; cls++) {
		const uint32_t key = mrc_qp_encap_key(UINT32_C(1) << 31 | de->slot << 18, fl, cls);
		const size_t len = mrc_qp_encap_hdr(qp, ev, cls, hdr, sizeof(hdr));
		struct mrc_flow_err err = {0};
		struct mrc_flow *f = NULL;

		if (len != 0)
			f = mrc_encap_install(hc->encap_ops[p], hc->port[p], key, hdr, len, &err);
		if (f == NULL || keep_flow(eh, p, f) != 0) {
			if (f != NULL)
				(void)hc->encap_ops[p]->destroy(hc->port[p], f, &err);
			hc->encap_fails[p]++;
			eh->refused[p] = true;
			MRCD_LOG(ctrl, WARNING,
				"host %u plane %u: port %u: encap rule %u (key 0x%08x) refused "
				"after %u: %s; the port's packets without a rule go in software",
				d->cfg.daemon.first_host + local, p, hc->port[p],
				hc->encap_rules[p] + 1, key, hc->encap_rules[p],
				len == 0     ? "no header for the EV"
				: err.msg[0] ? err.msg
					     : "no memory");
			return;
		}
		hc->encap_rules[p]++;
	}
	/* the rules exist: QPs finding the bit find them */
	__atomic_fetch_or(w, bit, __ATOMIC_RELEASE);
}

/* Every EV of `src`'s pool, addressed as `qp` sends on it. */
static void
install_pool(struct mrcd_daemon *d, unsigned int local, struct encap_dest *de,
	const struct mrc_qp *qp, const struct mrc_qp *src)
{
	const struct mrc_ev_pool *pool = mrc_qp_ev_pool(src);
	const struct mrcd_hostctx *hc = &d->host[local];
	struct mrc_wire_cfg w;

	if (pool == NULL)
		return;
	mrcd_config_wire(&d->cfg, &w);
	for (int s = 0; s < mrc_ev_n_slots(pool); s++) {
		const uint32_t ev = mrc_ev_value(pool, s);
		const unsigned int p = mrc_ev_plane(pool, s);

		if (p < MRC_EV_MAX_PLANES && hc->encap_ops[p] != NULL && de->bits[p] != NULL)
			install_ev(d, local, de, qp, ev, p, mrc_ev_flow_bits(ev, w.ev_split));
	}
}

/* Is the path of an EV of `qp` a function of its flow-label half alone? */
static bool
path_in_flow_label(const struct mrcd_daemon *d, const struct mrc_qp *qp)
{
	const struct mrc_ev_pool *pool = mrc_qp_ev_pool(qp);
	struct mrc_wire_cfg w;
	uint32_t half, path = 0;

	if (pool == NULL)
		return false;
	mrcd_config_wire(&d->cfg, &w);
	half = w.ev_split == MRC_EV_SPLIT_SPORT_HIGH ? 0xffffu : 0xffff0000u;
	if (pool->layout.plane_bits)
		path |= (uint32_t)(((UINT64_C(1) << pool->layout.plane_bits) - 1)
				   << pool->layout.plane_shift);
	if (pool->layout.uplink_bits)
		path |= (uint32_t)(((UINT64_C(1) << pool->layout.uplink_bits) - 1)
				   << pool->layout.uplink_shift);
	return (path & ~half) == 0;
}

void
mrcd_encap_attach(struct mrcd_daemon *d, unsigned int local, unsigned int shard, unsigned int peer,
	unsigned int peer_shard, struct mrc_qp *qp, const struct mrc_qp *answers_to)
{
	struct mrcd_hostctx *hc = &d->host[local];
	const unsigned int workers =
		d->cfg.lcores.workers_per_host ? d->cfg.lcores.workers_per_host : 1;
	const uint32_t slot = peer * workers + peer_shard;
	struct encap_dest *de;
	struct mrc_qp_encap *e;
	bool any = false;

	if (host_get(d, local) == NULL)
		return;
	for (unsigned int p = 0; p < MRC_SHARD_MAX_PLANES; p++)
		any |= hc->encap_ops[p] != NULL;
	if (!any)
		return;
	if (slot >= SLOTS || !path_in_flow_label(d, qp)) {
		MRCD_LOG(ctrl, WARNING, "QP 0x%x: SRv6 encap in software: %s", mrc_qp_qpn(qp),
			slot >= SLOTS ? "destination beyond the 8192 a rule key names"
				      : "the EV layout puts path bits outside the flow label");
		return;
	}
	de = dest_get(d, local, slot);
	e = de != NULL ? table_get(d, local, de, shard) : NULL;
	if (e == NULL) {
		MRCD_LOG(ctrl, WARNING, "QP 0x%x: SRv6 encap in software: out of memory",
			mrc_qp_qpn(qp));
		return;
	}
	install_pool(d, local, de, qp, qp);
	if (answers_to != NULL && path_in_flow_label(d, answers_to))
		install_pool(d, local, de, qp, answers_to);
	mrc_qp_set_encap(qp, e);
}

/* The table of none for shard `shard`: empty bitmaps where the port offloads. */
static struct mrc_qp_encap *
late_table(
	struct mrcd_daemon *d, struct mrcd_encap_host *eh, unsigned int local, unsigned int shard)
{
	const struct mrcd_hostctx *hc = &d->host[local];
	struct mrc_qp_encap *e = eh->late[shard];

	if (e != NULL)
		return e;
	if (eh->no_bits == NULL) {
		eh->no_bits = rte_zmalloc(
			"mrcd_encap_nobits", MRC_QP_ENCAP_FL_WORDS * sizeof(uint64_t), 64);
		if (eh->no_bits == NULL)
			return NULL;
	}
	e = rte_zmalloc("mrcd_encap_late", sizeof(*e), RTE_CACHE_LINE_SIZE);
	if (e == NULL)
		return NULL;
	for (unsigned int p = 0; p < d->cfg.daemon.planes && p < MRC_EV_MAX_PLANES; p++)
		e->fl_bits[p] = hc->encap_ops[p] != NULL && port_live(eh, p) ? eh->no_bits : NULL;
	/* the stats thread reads the pointer as it runs */
	__atomic_store_n(&eh->late[shard], e, __ATOMIC_RELEASE);
	return e;
}

void
mrcd_encap_attach_late(struct mrcd_daemon *d, unsigned int local, unsigned int shard,
	unsigned int peer, unsigned int peer_shard, struct mrc_qp *qp)
{
	struct mrcd_hostctx *hc = &d->host[local];
	const unsigned int workers =
		d->cfg.lcores.workers_per_host ? d->cfg.lcores.workers_per_host : 1;
	const uint32_t slot = peer * workers + peer_shard;
	struct mrcd_encap_host *eh = host_get(d, local);
	struct mrc_qp_encap *e = NULL;
	bool any = false, keyed;

	for (unsigned int p = 0; p < MRC_SHARD_MAX_PLANES; p++)
		any |= hc->encap_ops[p] != NULL;
	if (eh == NULL || !any || shard >= MRC_SHARD_MAX_SHARDS)
		return;
	/* a rule's key needs the path in the flow label; else no rule can match */
	keyed = path_in_flow_label(d, qp);
	/* no realloc here: the stats thread walks eh->dest as it runs */
	for (unsigned int i = 0; keyed && i < eh->n_dest; i++)
		if (eh->dest[i].slot == slot) {
			struct encap_dest *de = &eh->dest[i];

			e = de->shard[shard];
			if (e == NULL) {
				e = table_get(d, local, de, shard);
				if (e != NULL) /* table_get set it; the stats thread reads it */
					__atomic_store_n(&de->shard[shard], e, __ATOMIC_RELEASE);
			}
			break;
		}
	if (e == NULL)
		e = late_table(d, eh, local, shard);
	if (e == NULL) {
		MRCD_LOG(ctrl, WARNING, "QP 0x%x: SRv6 encap in software, uncounted: out of memory",
			mrc_qp_qpn(qp));
		return;
	}
	mrc_qp_set_encap(qp, e);
}

void
mrcd_encap_fallback(
	const struct mrcd_daemon *d, unsigned int h, uint64_t *no_table, uint64_t *epreq)
{
	const struct mrcd_encap_host *eh = __atomic_load_n(&d->host[h].encap, __ATOMIC_ACQUIRE);

	*no_table = 0;
	*epreq = __atomic_load_n(&d->host[h].encap_sw_epreq, __ATOMIC_RELAXED);
	if (eh == NULL)
		return;
	for (unsigned int k = 0; k < MRC_SHARD_MAX_SHARDS; k++) {
		const struct mrc_qp_encap *e = __atomic_load_n(&eh->late[k], __ATOMIC_ACQUIRE);

		if (e != NULL)
			*no_table += __atomic_load_n(&e->cnt.sw_no_port, __ATOMIC_RELAXED) +
				     __atomic_load_n(&e->cnt.sw_no_rule, __ATOMIC_RELAXED);
	}
}

void
mrcd_encap_remove(struct mrcd_daemon *d)
{
	for (unsigned int h = 0; h < d->n_hosts; h++) {
		struct mrcd_hostctx *hc = &d->host[h];
		struct mrcd_encap_host *eh = hc->encap;

		if (eh == NULL)
			continue;
		for (unsigned int p = 0; p < MRC_SHARD_MAX_PLANES; p++) {
			unsigned int left = 0;
			struct mrc_flow_err err = {0};

			for (unsigned int i = 0; i < eh->n_flows[p]; i++)
				if (hc->encap_ops[p]->destroy(hc->port[p], eh->flows[p][i], &err) !=
					0)
					left++;
			if (left != 0)
				MRCD_LOG(ctrl, WARNING,
					"host %u plane %u: %u encap rules not removed: %s",
					d->cfg.daemon.first_host + h, p, left, err.msg);
			free(eh->flows[p]);
			if (eh->nd[p] != NULL && (left = mrcd_encap_nd_free(eh->nd[p], &err)) != 0)
				MRCD_LOG(ctrl, WARNING,
					"host %u plane %u: %u encap rules not removed: %s",
					d->cfg.daemon.first_host + h, p, left, err.msg);
			free(eh->nd[p]);
		}
		for (unsigned int i = 0; i < eh->n_dest; i++) {
			for (unsigned int p = 0; p < MRC_EV_MAX_PLANES; p++)
				rte_free(eh->dest[i].bits[p]);
			for (unsigned int k = 0; k < MRC_SHARD_MAX_SHARDS; k++)
				rte_free(eh->dest[i].shard[k]);
		}
		for (unsigned int k = 0; k < MRC_SHARD_MAX_SHARDS; k++)
			rte_free(eh->late[k]);
		rte_free(eh->no_bits);
		free(eh->dest);
		free(eh);
		hc->encap = NULL;
	}
}

void
mrcd_encap_counts(const struct mrcd_daemon *d, unsigned int h, struct mrc_qp_encap_counters *out)
{
	const struct mrcd_encap_host *eh = __atomic_load_n(&d->host[h].encap, __ATOMIC_ACQUIRE);

	memset(out, 0, sizeof(*out));
	if (eh == NULL)
		return;
	for (unsigned int i = 0; i < eh->n_dest; i++)
		for (unsigned int k = 0; k < MRC_SHARD_MAX_SHARDS; k++) {
			const struct mrc_qp_encap *e =
				__atomic_load_n(&eh->dest[i].shard[k], __ATOMIC_ACQUIRE);

			if (e == NULL)
				continue;
			out->nic += __atomic_load_n(&e->cnt.nic, __ATOMIC_RELAXED);
			out->sw_no_port += __atomic_load_n(&e->cnt.sw_no_port, __ATOMIC_RELAXED);
			out->sw_no_rule += __atomic_load_n(&e->cnt.sw_no_rule, __ATOMIC_RELAXED);
		}
}

const char *
mrcd_encap_port_mode(const struct mrcd_daemon *d, unsigned int h, unsigned int p)
{
	const struct mrcd_hostctx *hc = &d->host[h];

	return hc->encap_ops[p] != NULL && hc->encap_rules[p] != 0 && hc->encap_fails[p] == 0
		       ? "nic"
		       : "software";
}

/* What mrcd_encap_nd.c calls back for host h's plane p. */
struct nd_port_ctx {
	struct mrcd_daemon *d;
	unsigned int h, p;
};

/* Every table of the host shows plane p's bitmaps, or none (sw_no_port). */
static void
nd_publish(void *arg, bool on)
{
	const struct nd_port_ctx *c = arg;
	struct mrcd_encap_host *eh = c->d->host[c->h].encap;
	const unsigned int p = c->p;

	if (p >= MRC_EV_MAX_PLANES)
		return;
	for (unsigned int i = 0; i < eh->n_dest; i++)
		for (unsigned int k = 0; k < MRC_SHARD_MAX_SHARDS; k++)
			if (eh->dest[i].shard[k] != NULL)
				__atomic_store_n(&eh->dest[i].shard[k]->fl_bits[p],
					on ? eh->dest[i].bits[p] : NULL, __ATOMIC_RELEASE);
	for (unsigned int k = 0; k < MRC_SHARD_MAX_SHARDS; k++)
		if (eh->late[k] != NULL)
			__atomic_store_n(&eh->late[k]->fl_bits[p], on ? eh->no_bits : NULL,
				__ATOMIC_RELEASE);
}

/* A refused rule: its EV's packets go in software (the port is unpublished now). */
static void
nd_refused(void *arg, const struct mrcd_encap_nd_rule *r, const struct mrc_flow_err *err)
{
	const struct nd_port_ctx *c = arg;
	struct mrcd_encap_host *eh = c->d->host[c->h].encap;

	eh->dest[r->dest].bits[c->p][r->fl >> 6] &= ~(UINT64_C(1) << (r->fl & 63));
	if (err->code != 0 || err->msg[0] != '\0')
		MRCD_LOG(ctrl, WARNING,
			"host %u plane %u: port %u: encap rule (key 0x%08x) refused after %u: "
			"%s; the port's packets without a rule go in software",
			c->d->cfg.daemon.first_host + c->h, c->p, c->d->host[c->h].port[c->p],
			r->key, eh->nd[c->p]->n_made, err->msg[0] ? err->msg : "no memory");
}

void
mrcd_encap_nd_tick(
	struct mrcd_daemon *d, unsigned int h, unsigned int p, const struct rte_ether_addr *mac)
{
	struct mrcd_hostctx *hc = &d->host[h];
	struct mrcd_encap_host *eh = hc->encap;
	struct nd_port_ctx c = {.d = d, .h = h, .p = p};
	struct mrcd_encap_nd_env env = {.ctx = &c, .publish = nd_publish, .refused = nd_refused};
	struct mrcd_encap_nd *e;
	enum mrcd_encap_nd_event ev;
	char buf[RTE_ETHER_ADDR_FMT_SIZE];

	if (eh == NULL || p >= MRC_SHARD_MAX_PLANES || (e = eh->nd[p]) == NULL)
		return;
	/* every worker that builds this host's packets: its shards' loop counts */
	for (unsigned int k = 0; k < hc->n_shards && k < MRCD_ENCAP_ND_MAX_PASSES; k++)
		env.passes[env.n_passes++] = &mrc_shard_counters(hc->shard[k].rt)->iterations;
	ev = mrcd_encap_nd_step(e, &env, mac != NULL ? mrc_qp_mac_word(mac) : 0);
	if (ev == MRCD_ENCAP_ND_NOTHING || ev == MRCD_ENCAP_ND_GRACE)
		return;
	__atomic_store_n(&hc->encap_rules[p], e->n_made, __ATOMIC_RELAXED);
	__atomic_store_n(&hc->encap_fails[p], e->fails, __ATOMIC_RELAXED);
	__atomic_store_n(&hc->encap_remakes[p], e->remakes, __ATOMIC_RELAXED);
	if (mac != NULL)
		rte_ether_format_addr(buf, sizeof(buf), mac);
	switch (ev) {
	case MRCD_ENCAP_ND_OUT:
		MRCD_LOG(ctrl, NOTICE,
			"host %u plane %u: port %u: next hop %s: encap rules out of use, in "
			"software until they are made again",
			d->cfg.daemon.first_host + h, p, hc->port[p],
			mac != NULL ? "moved" : "lost");
		break;
	case MRCD_ENCAP_ND_GONE:
		MRCD_LOG(ctrl, NOTICE, "host %u plane %u: port %u: old encap rules destroyed",
			d->cfg.daemon.first_host + h, p, hc->port[p]);
		break;
	default:
		MRCD_LOG(ctrl, NOTICE,
			"host %u plane %u: port %u: %u encap rules %s for next hop %s, in use",
			d->cfg.daemon.first_host + h, p, hc->port[p], e->n_made,
			ev == MRCD_ENCAP_ND_REMADE ? "made again" : "made", buf);
		break;
	}
}
