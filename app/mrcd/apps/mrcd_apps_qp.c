/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: the control thread (mrcd_apps_ctl.h), and on the owning shard's
 * lcore the calls that add a QP, move it to RTS or ERROR and take it out.
 * Owns the sessions' QPs: their shared memory, the engine's QP made at RTR,
 * the profiles they hold, and the state the application sees.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include <rte_cycles.h>
#include <rte_malloc.h>

#include "mrc_shard.h"
#include "mrcd_apps.h"
#include "mrcd_apps_ctl.h"
#include "mrcd_apps_priv.h"
#include "mrcd_config.h"
#include "mrcd_control.h"

static int
on_add(struct mrc_shard *s, void *arg)
{
	struct mrcd_apps_call *c = arg;
	struct mrcd_apps_worker *w = &c->a->w[c->q->worker];
	int rc;

	if (w->n == RTE_DIM(w->qp))
		return -ENOSPC;
	rc = mrc_shard_add_qp(s, c->q->qp, rte_rdtsc());
	if (rc == 0)
		w->qp[w->n++] = c->q;
	return rc;
}

static int
on_rts(struct mrc_shard *s, void *arg)
{
	struct mrcd_apps_call *c = arg;
	const char *why = NULL;

	return mrc_qp_modify(c->q->qp, MRC_QP_RTS, c->attr, mrc_shard_run_clock(s, rte_rdtsc()),
		&c->a->rand, &why);
}

static int
on_error(struct mrc_shard *s, void *arg)
{
	struct mrcd_apps_call *c = arg;

	mrcd_app_qp_to_error(c->q, MRC_CHAN_QPE_USER, mrc_shard_run_clock(s, rte_rdtsc()));
	return 0;
}

/* Off the worker's list and out of the shard: what it had posted completes flushed. */
static int
on_remove(struct mrc_shard *s, void *arg)
{
	struct mrcd_apps_call *c = arg;
	struct mrcd_apps_worker *w = &c->a->w[c->q->worker];

	for (unsigned int k = 0; k < w->n; k++)
		if (w->qp[k] == c->q) {
			w->qp[k] = w->qp[--w->n];
			break;
		}
	return mrc_shard_retire_qp(s, c->q->qp);
}

struct mrcd_app_qp *
mrcd_apps_find_qp(struct mrcd_app_session *s, uint32_t qpn)
{
	for (unsigned int k = 0; k < RTE_DIM(s->qp); k++)
		if (s->qp[k].qpn != 0 && s->qp[k].qpn == qpn)
			return &s->qp[k];
	return NULL;
}

int
mrcd_apps_create_qp(struct mrcd_apps *a, struct mrcd_app_session *s, const struct mrc_chan_req *r,
	struct mrc_chan_rep *rep, int *fd)
{
	struct mrcd_app_cq *scq = mrcd_apps_find_cq(s, r->u.create_qp.send_cq),
			   *rcq = mrcd_apps_find_cq(s, r->u.create_qp.recv_cq);
	const unsigned int h = s->host;
	struct mrcd_app_qp *q = NULL;
	uint32_t slot = MRCD_APPS_QPNS, icq_n;

	if (scq == NULL || rcq == NULL)
		return mrcd_apps_fail(rep, EINVAL, "CQ %u or %u is not one of this application's",
			r->u.create_qp.send_cq, r->u.create_qp.recv_cq);
	for (unsigned int k = 0; k < RTE_DIM(s->qp) && q == NULL; k++)
		if (s->qp[k].qpn == 0)
			q = &s->qp[k];
	/* QPNs round the host's range, so a number comes back as late as it can. */
	for (unsigned int k = 0; k < MRCD_APPS_QPNS && slot == MRCD_APPS_QPNS; k++) {
		const uint32_t t = (a->qpn_next[h] + k) % MRCD_APPS_QPNS;

		if (!a->qpn_used[h][t])
			slot = t;
	}
	if (q == NULL || slot == MRCD_APPS_QPNS)
		return mrcd_apps_fail(rep, ENOMEM, "no QP left: %u per application, %u per host",
			MRCD_APPS_SESSION_QPS, MRCD_APPS_QPNS);
	memset(q, 0, sizeof(*q));
	q->sq_size = RTE_MAX(mrc_chan_pow2(r->u.create_qp.max_send_wr), 16u);
	q->rq_size = RTE_MAX(mrc_chan_pow2(r->u.create_qp.max_recv_wr), 16u);
	q->bytes = mrc_chan_qp_bytes(q->sq_size, q->rq_size);
	q->shadow = rte_zmalloc("mrcd_app_wr", q->sq_size * sizeof(*q->shadow), 64);
	/* the engine's completions: every send the ring holds, and the immediates that may
	 * arrive meanwhile (the worker empties it each pass) */
	icq_n = mrc_chan_pow2(2 * q->sq_size + 1024);
	q->icq = rte_zmalloc("mrcd_app_icq", mrc_cq_memsize(icq_n), 64);
	q->shm = mrcd_apps_make_shm("mrcd-qp", q->bytes, fd);
	if (q->shadow == NULL || q->icq == NULL || q->shm == NULL) {
		rte_free(q->shadow);
		rte_free(q->icq);
		if (q->shm != NULL)
			munmap(q->shm, q->bytes);
		return mrcd_apps_fail(rep, ENOMEM, "no memory for a QP of %u sends", q->sq_size);
	}
	mrc_cq_init(q->icq, icq_n);
	q->st = (struct mrc_chan_qp_status *)q->shm;
	q->sq = (struct mrc_chan_ring *)(q->shm + mrc_chan_qp_sq_off());
	q->sqe = (struct mrc_chan_swqe *)(q->sq + 1);
	q->rq = (struct mrc_chan_ring *)(q->shm + mrc_chan_qp_rq_off(q->sq_size));
	q->rqe = (struct mrc_chan_rwqe *)(q->rq + 1);
	q->s = s;
	q->host = h;
	q->qpn = a->qpn_first + slot;
	q->shard = mrcd_apps_qpn_shard(q->qpn, a->d->host[h].n_shards);
	q->worker = a->d->host[h].shard[q->shard].worker;
	q->scq = scq;
	q->rcq = rcq;
	q->sig_all = r->u.create_qp.sq_sig_all != 0;
	q->pd = mrcd_apps_pd(s, r->u.create_qp.pd);
	q->mtu = a->d->cfg.transport.mtu;
	a->qpn_used[h][slot] = true;
	a->qpn_next[h] = (slot + 1) % MRCD_APPS_QPNS;
	q->state = MRC_CHAN_QPS_RESET;
	rep->u.create_qp.qpn = q->qpn;
	rep->u.create_qp.sq_entries = q->sq_size;
	rep->u.create_qp.rq_entries = q->rq_size;
	rep->u.create_qp.bytes = q->bytes;
	return 0;
}

/* Out of the shard (flushing what it had), the engine's QP freed: back to RESET. */
static void
qp_unplug(struct mrcd_apps *a, struct mrcd_app_qp *q)
{
	struct mrcd_apps_call c = {.a = a, .q = q};

	if (q->added)
		(void)mrcd_apps_call_owner(a, q, on_remove, &c);
	q->added = false;
	if (q->qp != NULL)
		mrc_qp_destroy(q->qp);
	q->qp = NULL;
	if (q->profiles_held)
		mrcd_profile_table_release(&a->d->profiles, q->ev_profile, q->cc_profile);
	q->profiles_held = false;
}

/* The attributes of q's engine QP: the configuration's, with the profiles q was made with. */
static int
qp_attr(struct mrcd_apps *a, const struct mrcd_app_qp *q, struct mrc_qp_attr *at)
{
	if (mrcd_config_qp_attr(&a->d->cfg, a->d->hz, at) != 0)
		return -EINVAL;
	mrcd_profile_apply(&q->evp, a->d->hz, at);
	mrcd_profile_apply(&q->ccp, a->d->hz, at);
	return 0;
}

/*
 * RESET -> INIT: take the profiles the application names (the defaults where it names
 * none), if they are online; a QP already holding some (INIT again) keeps them.
 */
static int
qp_take_profiles(struct mrcd_apps *a, struct mrcd_app_qp *q, const struct mrc_chan_req *r,
	struct mrc_chan_rep *rep)
{
	const uint32_t m = r->u.modify_qp.mask;
	const unsigned int ev =
		(m & MRC_CHAN_MOD_EV_PROFILE) ? r->u.modify_qp.ev_profile : MRCD_PROFILE_DEFAULT;
	const unsigned int cc =
		(m & MRC_CHAN_MOD_CC_PROFILE) ? r->u.modify_qp.cc_profile : MRCD_PROFILE_DEFAULT;
	char err[160];

	if (mrcd_profile_table_hold(&a->d->profiles, ev, cc, &q->evp, &q->ccp, err, sizeof(err)) !=
		0)
		return mrcd_apps_fail(rep, EINVAL, "QP 0x%x: %s", q->qpn, err);
	q->ev_profile = (uint8_t)ev;
	q->cc_profile = (uint8_t)cc;
	q->profiles_held = true;
	return 0;
}

void
mrcd_apps_qp_free(struct mrcd_apps *a, struct mrcd_app_qp *q)
{
	qp_unplug(a, q);
	a->qpn_used[q->host][q->qpn - a->qpn_first] = false;
	munmap(q->shm, q->bytes);
	rte_free(q->shadow);
	rte_free(q->icq);
	memset(q, 0, sizeof(*q));
}

/* INIT -> RTR: the engine's QP is made now, when its peer is known, and given to the shard. */
static int
qp_to_rtr(struct mrcd_apps *a, struct mrcd_app_qp *q, struct mrc_chan_rep *rep)
{
	struct mrcd_daemon *d = a->d;
	struct mrcd_hostctx *hc = &d->host[q->host];
	struct mrcd_shardctx *sc = &hc->shard[q->shard]; /* its pools are the owner's */
	const unsigned int local = d->cfg.daemon.first_host + q->host;
	const unsigned int n = mrcd_config_cluster_hosts(&d->cfg);
	struct mrc_qp_init in = {.qpn = q->qpn,
		.sq_size = (uint16_t)q->sq_size,
		.mtu = (uint16_t)RTE_MIN(q->mtu, d->cfg.transport.mtu),
		.tsc_hz = d->hz,
		.mrs = hc->mrs,
		.pd = q->pd,
		.cq = q->icq,
		.hdr_pool = hc->tx_pool,
		.socket = (int)rte_socket_id(),
		.trk_pool = mrc_shard_trk_pool(sc->rt),
		.imm_pool = sc->imm_pool,
		.ctrl_pool = sc->ctrl_pool};
	struct mrcd_apps_call c = {.a = a, .q = q};
	const char *why = NULL;
	struct mrc_qp_attr at;
	unsigned int peer = n;
	int rc;

	const uint32_t need = MRC_CHAN_MOD_AV | MRC_CHAN_MOD_DEST_QPN | MRC_CHAN_MOD_RQ_PSN;
	if ((q->mod_mask & need) != need)
		return mrcd_apps_fail(rep, EINVAL,
			"INIT -> RTR needs the address vector, the destination QPN "
			"and the receive PSN");
	for (unsigned int p = 0; p < n && peer == n; p++)
		if (p != local && mrcd_config_qp_addr(&d->cfg, local, p, &in.addr) == 0 &&
			memcmp(in.addr.dst_ip, q->dgid, 16) == 0)
			peer = p;
	if (peer == n)
		return mrcd_apps_fail(
			rep, EINVAL, "the destination GID is no host of this cluster's");
	mrcd_config_wire(&d->cfg, &in.wire);
	if (qp_attr(a, q, &at) != 0)
		return mrcd_apps_fail(rep, EINVAL, "[transport] does not convert to QP attributes");
	at.dest_qpn = q->dest_qpn;
	at.start_psn_rx = q->rq_psn;
	if (q->mod_mask & MRC_CHAN_MOD_MPR_DEST)
		at.mpr = q->mpr_dest;
	/* A peer host of several workers is addressed at the one that owns dest_qpn: every
	 * host of the cluster runs [lcores] workers_per_host, and the rule is the QPN's. */
	if (d->cfg.lcores.workers_per_host > 1) {
		at.dest_workers = (uint16_t)d->cfg.lcores.workers_per_host;
		at.dest_worker =
			(uint8_t)mrcd_apps_qpn_shard(q->dest_qpn, d->cfg.lcores.workers_per_host);
	}
	q->qp = mrc_qp_create(&in, &why);
	if (q->qp == NULL)
		return mrcd_apps_fail(rep, ENOMEM, "QP 0x%x: %s", q->qpn, why);
	for (int to = MRC_QP_INIT; to <= MRC_QP_RTR; to++)
		if (mrc_qp_modify(q->qp, (enum mrc_qp_state)to, &at, rte_rdtsc(), &a->rand, &why) !=
			0) {
			mrc_qp_destroy(q->qp);
			q->qp = NULL;
			return mrcd_apps_fail(rep, EINVAL, "QP 0x%x -> %s: %s", q->qpn,
				mrc_qp_state_name((enum mrc_qp_state)to), why);
		}
	/* the NIC's encap rules where its destination has some (doc/offload.md) */
	mrcd_encap_attach_late(d, q->host, q->shard, peer, at.dest_worker, q->qp);
	rc = mrcd_apps_call_owner(a, q, on_add, &c);
	if (rc != 0) {
		mrc_qp_destroy(q->qp);
		q->qp = NULL;
		return mrcd_apps_fail(
			rep, -rc, "the host's shard refused QP 0x%x: %s", q->qpn, strerror(-rc));
	}
	q->added = true;
	return 0;
}

static int
qp_to_rts(struct mrcd_apps *a, struct mrcd_app_qp *q, struct mrc_chan_rep *rep)
{
	struct mrc_qp_attr at;
	struct mrcd_apps_call c = {.a = a, .q = q, .attr = &at};
	int rc;

	if (!(q->mod_mask & MRC_CHAN_MOD_SQ_PSN))
		return mrcd_apps_fail(rep, EINVAL, "RTR -> RTS needs the send PSN");
	if (qp_attr(a, q, &at) != 0)
		return mrcd_apps_fail(rep, EINVAL, "[transport] does not convert to QP attributes");
	at.dest_qpn = q->dest_qpn;
	at.start_psn_rx = q->rq_psn;
	at.start_psn_tx = q->sq_psn;
	if (q->mod_mask & MRC_CHAN_MOD_TIMEOUT)
		at.timeout = q->timeout;
	if (q->mod_mask & MRC_CHAN_MOD_RETRY) {
		at.retry_linear = q->retry_linear;
		at.retry_exp = q->retry_exp;
	}
	if (q->mod_mask & MRC_CHAN_MOD_MPR)
		at.peer_mpr = q->mpr;
	rc = mrcd_apps_call_owner(a, q, on_rts, &c);
	return rc == 0 ? 0
		       : mrcd_apps_fail(
				 rep, EINVAL, "QP 0x%x refused RTS: %s", q->qpn, strerror(-rc));
}

int
mrcd_apps_modify_qp(struct mrcd_apps *a, struct mrcd_app_session *s, const struct mrc_chan_req *r,
	struct mrc_chan_rep *rep)
{
	struct mrcd_app_qp *q = mrcd_apps_find_qp(s, r->u.modify_qp.qpn);
	const uint32_t m = r->u.modify_qp.mask, to = r->u.modify_qp.state;
	uint32_t cur;
	int rc = 0;

	if (q == NULL)
		return mrcd_apps_fail(rep, EINVAL, "QP 0x%x is not one of this application's",
			r->u.modify_qp.qpn);
	cur = __atomic_load_n(&q->st->state, __ATOMIC_RELAXED) == MRC_CHAN_QPS_ERR
		      ? MRC_CHAN_QPS_ERR
		      : q->state;
	if ((m & MRC_CHAN_MOD_CUR) && r->u.modify_qp.cur_state != cur)
		return mrcd_apps_fail(rep, EINVAL, "QP 0x%x is in state %u, not %u", q->qpn, cur,
			r->u.modify_qp.cur_state);
	if (!(to == MRC_CHAN_QPS_ERR || to == MRC_CHAN_QPS_RESET || to == cur ||
		    (cur == MRC_CHAN_QPS_RESET && to == MRC_CHAN_QPS_INIT) ||
		    (cur == MRC_CHAN_QPS_INIT && to == MRC_CHAN_QPS_RTR) ||
		    (cur == MRC_CHAN_QPS_RTR && to == MRC_CHAN_QPS_RTS)))
		return mrcd_apps_fail(
			rep, EINVAL, "QP 0x%x: no transition from state %u to %u", q->qpn, cur, to);
	/* Profiles are picked when the QP is made ready, RESET -> INIT, as on an MRC NIC. */
	if ((m & (MRC_CHAN_MOD_EV_PROFILE | MRC_CHAN_MOD_CC_PROFILE)) &&
		!(cur == MRC_CHAN_QPS_RESET && to == MRC_CHAN_QPS_INIT))
		return mrcd_apps_fail(
			rep, EINVAL, "QP 0x%x: profile ids are set at RESET -> INIT only", q->qpn);
	if (cur == MRC_CHAN_QPS_RESET && to == MRC_CHAN_QPS_INIT && !q->profiles_held) {
		rc = qp_take_profiles(a, q, r, rep);
		if (rc != 0)
			return rc;
	}
	if (m & MRC_CHAN_MOD_AV)
		memcpy(q->dgid, r->u.modify_qp.dgid, 16);
	if (m & MRC_CHAN_MOD_DEST_QPN)
		q->dest_qpn = r->u.modify_qp.dest_qpn;
	if (m & MRC_CHAN_MOD_RQ_PSN)
		q->rq_psn = r->u.modify_qp.rq_psn;
	if (m & MRC_CHAN_MOD_SQ_PSN)
		q->sq_psn = r->u.modify_qp.sq_psn;
	if (m & MRC_CHAN_MOD_MTU)
		q->mtu = r->u.modify_qp.mtu;
	if (m & MRC_CHAN_MOD_ACCESS)
		q->access = r->u.modify_qp.access;
	if (m & MRC_CHAN_MOD_TIMEOUT)
		q->timeout = r->u.modify_qp.timeout;
	if (m & MRC_CHAN_MOD_RETRY) {
		q->retry_linear = r->u.modify_qp.retry_linear;
		q->retry_exp = r->u.modify_qp.retry_exp;
	}
	if (m & MRC_CHAN_MOD_MPR)
		q->mpr = r->u.modify_qp.mpr;
	if (m & MRC_CHAN_MOD_MPR_DEST)
		q->mpr_dest = r->u.modify_qp.mpr_dest;
	q->mod_mask |= m;
	if (to == cur && to != MRC_CHAN_QPS_RESET)
		return 0;
	if (to == MRC_CHAN_QPS_RTR)
		rc = qp_to_rtr(a, q, rep);
	else if (to == MRC_CHAN_QPS_RTS)
		rc = qp_to_rts(a, q, rep);
	else if (to == MRC_CHAN_QPS_ERR) {
		struct mrcd_apps_call c = {.a = a, .q = q};

		if (q->added)
			rc = mrcd_apps_call_owner(a, q, on_error, &c);
		else
			__atomic_store_n(&q->st->state, MRC_CHAN_QPS_ERR, __ATOMIC_RELAXED);
	} else if (to == MRC_CHAN_QPS_RESET) {
		qp_unplug(a, q);
		q->mod_mask = 0;
		q->error_told = false;
		/* What the application had posted is dropped with the old QP. */
		q->sq_tail = __atomic_load_n(&q->sq->head, __ATOMIC_ACQUIRE);
		q->rq_tail = __atomic_load_n(&q->rq->head, __ATOMIC_ACQUIRE);
		__atomic_store_n(&q->sq->tail, q->sq_tail, __ATOMIC_RELEASE);
		__atomic_store_n(&q->rq->tail, q->rq_tail, __ATOMIC_RELEASE);
		__atomic_store_n(&q->st->error, 0, __ATOMIC_RELAXED);
		/* The old QP's flushed completions stay behind: the next one starts empty. */
		mrc_cq_init(q->icq, q->icq->mask + 1);
	}
	if (rc == 0) {
		uint32_t seen = __atomic_load_n(&q->st->state, __ATOMIC_ACQUIRE);

		q->state = to;
		/* A worker that put the QP in ERROR meanwhile wins, but over RESET. */
		while ((seen != MRC_CHAN_QPS_ERR || to == MRC_CHAN_QPS_RESET) &&
			!__atomic_compare_exchange_n(&q->st->state, &seen, to, false,
				__ATOMIC_RELEASE, __ATOMIC_ACQUIRE))
			;
	}
	return rc;
}
