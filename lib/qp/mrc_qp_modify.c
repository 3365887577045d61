/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * A QP's transitions (doc/protocol.md, "Queue pairs"): RESET -> INIT builds
 * the EV pool and congestion control, INIT -> RTR the responder, RTR -> RTS
 * the requester; any state -> ERROR fails it, ERROR -> RESET frees its parts.
 */

#include <errno.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "mrc_qp_priv.h"

/* A well-mixed 32-bit hash (murmur3's finaliser): consecutive QPNs land anywhere. */
static uint32_t
qpn_hash(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x85ebca6bu;
	x ^= x >> 13;
	x *= 0xc2b2ae35u;
	x ^= x >> 16;
	return x;
}

/*
 * Paths ECMP: the one EV this QP will ever use, as a switch hashing the
 * flow would choose it: a plane, then one of that plane's active EVs (whose
 * uplink field is the T1).
 */
static void
pin_path(struct mrc_qp *qp)
{
	const uint32_t h = qpn_hash(qp->qpn);
	const uint32_t per_plane = qp->ev->active_per_plane;
	const uint32_t plane = h % qp->ev->n_planes;

	qp->pin_slot = (int32_t)(plane * per_plane + (h >> 8) % per_plane);
	qp->pin_ev = mrc_ev_value(qp->ev, qp->pin_slot);
	qp->pin_plane = mrc_ev_plane(qp->ev, qp->pin_slot);
}

static int
to_init(struct mrc_qp *qp, const struct mrc_qp_attr *a, struct mrc_rand *rand, const char **why)
{
	int rc;

	if (a->paths > MRC_QP_PATHS_ECMP) {
		*why = "paths must be spray or ecmp";
		return -EINVAL;
	}
	if (a->reliability > MRC_QP_REL_GBN) {
		*why = "reliability must be sack or gbn";
		return -EINVAL;
	}
	if (a->reliability == MRC_QP_REL_GBN && a->paths != MRC_QP_PATHS_ECMP) {
		*why = "reliability gbn needs paths ecmp: go-back-N takes every reordered packet "
		       "for a loss";
		return -EINVAL;
	}
	if (mrc_ev_cfg_check(&a->ev, why) != 0)
		return -EINVAL;
	if (mrc_cc_params_check(&a->cc, why) != 0)
		return -EINVAL;
	qp->ev_cfg = a->ev;
	/* The path template knows which uplinks share a T1: replacements avoid a failed one's. */
	if (qp->hdr->srv6 && qp->ev_cfg.uplink_groups == 0)
		qp->ev_cfg.uplink_groups = qp->path.n_t1;
	qp->layout = qp->ev_cfg.layout;
	qp->ev = mrc_qp_zalloc(qp, mrc_ev_pool_memsize(&a->ev));
	if (qp->ev == NULL) {
		*why = "out of memory for the EV pool";
		return -ENOMEM;
	}
	if (qp->want_ev_stats) {
		qp->ev_stats = mrc_qp_zalloc(
			qp, (size_t)mrc_ev_pool_n_slots(&a->ev) * sizeof(*qp->ev_stats));
		if (qp->ev_stats == NULL) {
			*why = "out of memory for per-EV statistics";
			return -ENOMEM;
		}
	}
	rc = mrc_ev_pool_init(qp->ev, &qp->ev_cfg, rand, qp->ev_stats);
	if (rc != 0) {
		*why = "EV pool rejected its configuration";
		return rc;
	}
	mrc_ev_set_bad_flag(qp->ev, &qp->ev_bad);
	rc = mrc_cc_init(&qp->cc, a->cc_name, &a->cc);
	if (rc != 0) {
		*why = rc == -ENOENT ? "unknown congestion control name"
				     : "congestion control rejected its parameters";
		return -EINVAL;
	}
	qp->cc_ready = true;
	qp->plane_mask = (uint16_t)((1u << a->ev.n_planes) - 1);
	qp->pin_slot = -1;
	if (a->paths == MRC_QP_PATHS_ECMP)
		pin_path(qp);
	qp->reliability = a->reliability;
	qp->order_loss_retires = a->order_loss_retires;
	/* A RoCEv2 NIC knows nothing of trimming: go-back-N data must not be trimmed. */
	qp->data_dscp[0] =
		a->reliability == MRC_QP_REL_GBN ? qp->wire.dscp.no_trim : qp->wire.dscp.trimmable;
	qp->data_dscp[1] = a->reliability == MRC_QP_REL_GBN ? qp->wire.dscp.no_trim
							    : qp->wire.dscp.trimmable_retx;
	return 0;
}

static int
to_rtr(struct mrc_qp *qp, const struct mrc_qp_attr *a, const char **why)
{
	struct mrc_rel_rx_cfg rc;

	if (a->dest_qpn <= MRC_EP_QPN || a->dest_qpn > MRC_BTH_QPN_MASK) {
		*why = "dest_qpn must be 3..0xffffff";
		return -EINVAL;
	}
	if (a->dest_workers > MRC_EV_MAX_WORKERS ||
		(a->dest_workers > 1 && a->dest_worker >= a->dest_workers)) {
		*why = "dest_worker must be below dest_workers (at most 256)";
		return -EINVAL;
	}
	if (a->wimm == 0 || !rte_is_power_of_2(a->wimm)) {
		*why = "wimm must be a power of two";
		return -EINVAL;
	}
	mrc_rel_rx_cfg_defaults(&rc);
	rc.mpr = a->mpr;
	rc.ack_every = a->ack_every;
	rc.ack_delay_tsc = a->ack_delay_tsc;
	rc.trim_nack = a->trim_nack;
	rc.dyn_mpr = a->dyn_mpr;
	rc.always_skip_marks = a->always_skip_marks;
	rc.in_order_only = qp->reliability == MRC_QP_REL_GBN;
	if (a->mpr == 0 || a->ack_every == 0) {
		*why = "mpr and ack_every must be at least 1";
		return -EINVAL;
	}
	if (qp->imm_pool != NULL &&
		(size_t)a->wimm * sizeof(*qp->imm) > qp->imm_pool->block_bytes) {
		*why = "wimm needs a bigger Write-IMM table than the worker's pool lends";
		return -EINVAL;
	}
	qp->rrx = mrc_qp_zalloc(qp, mrc_rel_rx_memsize(&rc));
	/* Lent: taken when an immediate arrives (mrc_qp_imm_get). */
	if (qp->imm_pool == NULL)
		qp->imm = mrc_qp_zalloc(qp, (size_t)a->wimm * sizeof(*qp->imm));
	if (qp->rrx == NULL || (qp->imm_pool == NULL && qp->imm == NULL)) {
		*why = "out of memory for the responder";
		return -ENOMEM;
	}
	/*
	 * The requester's state too, set up at RTS: a QP given to its shard at
	 * RTR goes to RTS on its worker, which must not allocate (the heap's
	 * lock, a page fault). With a worker's in-flight pool nothing at RTS does.
	 */
	qp->rtx = mrc_qp_zalloc(qp, sizeof(*qp->rtx));
	if (qp->rtx == NULL) {
		*why = "out of memory for the requester";
		return -ENOMEM;
	}
	if (mrc_rel_rx_init(qp->rrx, &rc, a->start_psn_rx) != 0) {
		*why = "responder rejected its configuration";
		return -EINVAL;
	}
	qp->dest_qpn = a->dest_qpn;
	qp->path.dst_workers = a->dest_workers;
	qp->path.dst_worker = a->dest_worker;
	qp->wimm = a->wimm;
	qp->imm_mask = a->wimm - 1u;
	return 0;
}

/*
 * TSETH stamps count units of 2^shift TSC cycles, the largest power of two
 * no longer than 128 ns: 16 bits then wrap after 8.4 ms at most. Only the
 * sender reads its stamps (the responder echoes them unread), so the unit
 * is its own business (TSR stays clear).
 */
static uint8_t
ts_shift(uint64_t tsc_hz)
{
	const uint64_t cycles = tsc_hz * 128 / 1000000000;

	return cycles > 1 ? (uint8_t)(63 - __builtin_clzll(cycles)) : 1;
}

static int
to_rts(struct mrc_qp *qp, const struct mrc_qp_attr *a, uint64_t now_tsc, const char **why)
{
	struct mrc_rel_tx_cfg tc;

	mrc_rel_tx_cfg_defaults(&tc, qp->tsc_hz);
	tc.mpr = a->peer_mpr;
	tc.n_ev_slots = (uint16_t)mrc_ev_pool_n_slots(&qp->ev_cfg);
	tc.timeout = a->timeout;
	tc.retry_linear = a->retry_linear;
	tc.retry_exp = a->retry_exp;
	tc.gbn = qp->reliability == MRC_QP_REL_GBN;
	/* Honoured only when both ends enabled it; our SACKs advertise by our own switch. */
	tc.dyn_mpr = qp->rrx != NULL && qp->rrx->dyn_mpr && a->peer_dyn_mpr;
	if (a->tseth)
		tc.ts_shift = ts_shift(qp->tsc_hz);
	if (a->initial_rtt_tsc)
		tc.initial_rtt_tsc = a->initial_rtt_tsc;
	if (a->min_pkt_timeout_tsc)
		tc.min_pkt_timeout_tsc = a->min_pkt_timeout_tsc;
	if (qp->hdr->srv6 && a->path_order) {
		/* The EV names its path: order lists per (plane, T1), see mrc_rel_tx.h rule 1. */
		const struct mrc_ev_layout *l = &qp->ev_cfg.layout;
		const uint8_t n_t1 = qp->path.src_t0 == qp->path.dst_t0 ? 1 : qp->path.n_t1;

		if (n_t1 != 0 && l->plane_bits <= 8 &&
			(UINT32_C(1) << l->plane_bits) * n_t1 <= tc.n_ev_slots) {
			tc.path_n_t1 = n_t1;
			tc.path_plane_shift = l->plane_shift;
			tc.path_plane_bits = l->plane_bits;
			tc.path_uplink_shift = l->uplink_shift;
			tc.path_uplink_bits = l->uplink_bits;
		}
	}
	if (a->peer_mpr == 0 || a->peer_wimm == 0 || a->timeout > 24 || a->retry_linear > 7 ||
		a->retry_exp > MRC_REL_RETRY_EXP_INFINITE) {
		*why = "peer_mpr >= 1, peer_wimm >= 1, timeout <= 24, retry_linear <= 7, "
		       "retry_exp <= 25";
		return -EINVAL;
	}
	qp->peer_wimm = a->peer_wimm;
	qp->tseth = a->tseth;
	if (qp->shared_pool != NULL && mrc_rel_tx_trk_memsize(&tc) > qp->shared_pool->block_bytes) {
		*why = "peer_mpr needs a bigger in-flight ring than the worker's pool lends";
		return -EINVAL;
	}
	/* made at RTR (to_rtr) */
	if (mrc_rel_tx_init_lent(qp->rtx, &tc, a->start_psn_tx, now_tsc) != 0) {
		*why = "requester rejected its configuration";
		return -EINVAL;
	}
	mrc_rel_tx_set_share(qp->rtx, qp->rtt_share);
	qp_rtx_busy(qp); /* a fresh rtx: the next poll looks */
	qp->trk_pool = qp->shared_pool;
	if (qp->trk_pool == NULL) {
		qp->trk_pool = mrc_trk_pool_create(1, mrc_rel_tx_trk_memsize(&tc), qp->socket);
		if (qp->trk_pool == NULL) {
			*why = "out of memory for the requester's in-flight ring";
			return -ENOMEM;
		}
		qp->trk_own = true;
		qp->mem_bytes += mrc_trk_pool_mem_bytes(qp->trk_pool);
	}
	qp->ev_probe_timeout_tsc = mrc_rel_tx_pkt_timeout(qp->rtx);
	qp->ev_probe_held = false;
	return 0;
}

int
mrc_qp_modify(struct mrc_qp *qp, enum mrc_qp_state to, const struct mrc_qp_attr *attr,
	uint64_t now_tsc, struct mrc_rand *rand, const char **why)
{
	const char *dummy;
	int rc = 0;

	if (why == NULL)
		why = &dummy;
	*why = NULL;
	if (to == MRC_QP_ERROR) {
		mrc_qp_fail(qp, MRC_QP_ERR_USER);
		return 0;
	}
	if (to == MRC_QP_RESET && qp->state == MRC_QP_ERROR) {
		mrc_qp_free_parts(qp);
		qp->sq_head = qp->sq_send = qp->sq_tail = 0;
		qp->ctrl_head = qp->ctrl_tail = 0;
		qp->sack_run = false;
		qp->state = MRC_QP_RESET;
		qp->error = MRC_QP_ERR_NONE;
		return 0;
	}
	if ((unsigned int)to != (unsigned int)qp->state + 1 || to > MRC_QP_RTS || attr == NULL) {
		*why = "legal transitions: RESET->INIT->RTR->RTS, any->ERROR, ERROR->RESET";
		return -EINVAL;
	}
	switch (to) {
	case MRC_QP_INIT:
		rc = to_init(qp, attr, rand, why);
		break;
	case MRC_QP_RTR:
		rc = to_rtr(qp, attr, why);
		break;
	case MRC_QP_RTS:
		rc = to_rts(qp, attr, now_tsc, why);
		break;
	default:
		break;
	}
	if (rc != 0)
		return rc;
	qp->state = (uint8_t)to;
	return 0;
}
