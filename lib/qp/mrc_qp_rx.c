/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * The QP's input. As responder: check the write against registered memory
 * before anything else, account the PSN, place the payload at its final
 * address, queue the SACK or NACK the rules ask for, and deliver immediate
 * data in RQMSN order once every packet of its message is in (the
 * cumulative ACK has passed the message's last PSN). As requester: apply
 * SACKs and NACKs to rel (delivered / lost), the EV pool (ECN echoes,
 * trims, probe answers) and CC, then complete finished messages; a
 * transport ACK (AETH) counts as a SACK with no bitmap and no EV echo.
 *
 * A packet refused for lack of a resource (no bitmap for its PSN, no
 * Write-IMM table, no room in the CQ for its immediate) is NACKed so the
 * sender resends it, and tells rel, whose next SACK then carries a window
 * penalty (mrc_rel_rx.h).
 */

#include <string.h>

#include "mrc_qp_priv.h"
#include "mrc_seq.h"
#include "mrc_time.h"

/* Copy `len` bytes at `off` of an mbuf chain to `dst`. */
static void
copy_out(const struct rte_mbuf *m, uint32_t off, uint8_t *dst, uint32_t len)
{
	while (m != NULL && off >= m->data_len) {
		off -= m->data_len;
		m = m->next;
	}
	while (m != NULL && len > 0) {
		uint32_t n = RTE_MIN((uint32_t)m->data_len - off, len);

		memcpy(dst, rte_pktmbuf_mtod_offset(m, const uint8_t *, off), n);
		dst += n;
		len -= n;
		off = 0;
		m = m->next;
	}
}

/* The next immediate in RQMSN order is complete: to the CQ. False if the CQ is full (QP failed). */
static bool
imm_complete(struct mrc_qp *qp, uint32_t imm, uint32_t len)
{
	const struct mrc_cqe c = {.qpn = qp->qpn,
		.byte_len = len,
		.imm = imm,
		.opcode = MRC_CQE_RECV_IMM,
		.status = MRC_CQE_OK};

	if (!mrc_qp_cqe_push(qp, &c)) {
		mrc_qp_fail(qp, MRC_QP_ERR_LOCAL);
		return false;
	}
	qp->imm_next++;
	qp->cnt.imm_delivered++;
	return true;
}

static void
deliver_imms(struct mrc_qp *qp)
{
	const uint32_t cack = mrc_rel_rx_cack(qp->rrx);

	while (qp->imm_pending != 0) {
		struct qp_imm *e = &qp->imm[qp->imm_next & qp->imm_mask];

		if (!e->valid || !mrc_psn_le(e->last_psn, cack))
			return;
		if (!imm_complete(qp, e->imm, e->len))
			return;
		e->valid = false;
		qp->imm_pending--;
	}
	/* Every immediate is out: a lent table goes back for another QP. */
	if (qp->imm_pool != NULL && qp->imm != NULL)
		mrc_qp_imm_put(qp);
}

/*
 * A lent table is needed only by an immediate that will have to wait. Not
 * by one that is next in RQMSN order on the next expected PSN: its packet
 * completes its message in order, so it is delivered on arrival. Nor by a
 * packet seen before (nothing is written for it).
 */
static inline bool
imm_needs_table(const struct mrc_qp *qp, const struct mrc_pkt *v)
{
	if (v->data.rqmsn == qp->imm_next && v->bth.psn == mrc_psn_add(mrc_rel_rx_cack(qp->rrx), 1))
		return false;
	return !mrc_rel_rx_has(qp->rrx, v->bth.psn);
}

/* Completions a CQ can still take. */
static inline uint32_t
cq_room(const struct mrc_cq *cq)
{
	return cq->mask + 1 - (cq->tail - cq->head);
}

/* The TSETH stamp an answer to data packet `v` echoes: 0 when it had none. */
static inline uint16_t
rx_ts(const struct mrc_pkt *v)
{
	return v->bth.ts ? v->tseth.ts : 0;
}

/* Refuse a data packet for lack of a resource: NACK it, and rel raises the penalty. */
static void
refuse(struct mrc_qp *qp, const struct mrc_pkt *v, uint8_t reason)
{
	mrc_rel_rx_refused(qp->rrx);
	mrc_qp_queue_ctrl(qp, CTRL_NACK, reason, false, v->bth.psn, v->ev, rx_ts(v));
}

static void
rx_data(struct mrc_qp *qp, const struct rte_mbuf *m, const struct mrc_pkt *v, uint64_t now)
{
	const bool trimmed = (v->flags & MRC_PKT_F_TRIMMED) != 0;
	const uint8_t ecn = (v->flags & MRC_PKT_F_SRV6) ? v->outer.ecn : v->ip.ecn;
	const bool imm = mrc_opcode_has_imm(v->bth.opcode);
	struct mrc_rel_rx_verdict rv;
	struct mrc_mr *mr = NULL;
	unsigned int flags = 0;

	qp->last_rx_ev = v->ev;
	if (!trimmed) {
		/* Nothing is written, or acknowledged, outside registered memory. */
		mr = mrc_mr_check(qp->mrs, qp->pd, v->data.rkey, v->data.va, v->payload_len,
			MRC_MR_ACCESS_REMOTE_WRITE);
		if (mr == NULL) {
			qp->cnt.rx_bad_rkey++;
			mrc_qp_queue_ctrl(qp, CTRL_NACK, MRC_NACK_UNEXP_EVENT, false, v->bth.psn,
				v->ev, rx_ts(v));
			return;
		}
		if (imm && (uint16_t)(v->data.rqmsn - qp->imm_next) >= qp->wimm &&
			!mrc_rel_rx_has(qp->rrx, v->bth.psn)) {
			qp->cnt.rx_wimm_exceeded++;
			mrc_qp_queue_ctrl(qp, CTRL_NACK, MRC_NACK_UNEXP_EVENT, false, v->bth.psn,
				v->ev, rx_ts(v));
			return;
		}
		/*
		 * An immediate needs a completion, and one that must wait a table
		 * entry, until it is delivered: the receive buffers of MRC's
		 * Write-IMM. Without them the packet is refused before it is
		 * accounted, so the NACK (NO_PKT_BUFFER) makes the sender resend
		 * it: nothing is lost, where an overrun CQ would fail the QP (and
		 * in order, the resend needs no table).
		 */
		if (imm && unlikely(cq_room(qp->cq) <= qp->imm_pending) &&
			!mrc_rel_rx_has(qp->rrx, v->bth.psn)) {
			qp->cnt.rx_imm_no_cqe++;
			refuse(qp, v, MRC_NACK_NO_PKT_BUFFER);
			return;
		}
		if (imm && unlikely(qp->imm == NULL) && imm_needs_table(qp, v) &&
			!mrc_qp_imm_get(qp)) {
			qp->cnt.rx_imm_no_table++;
			refuse(qp, v, MRC_NACK_NO_PKT_BUFFER);
			return;
		}
	}
	if (ecn == MRC_ECN_CE)
		flags |= MRC_REL_RX_F_CE;
	if (v->bth.ackreq)
		flags |= MRC_REL_RX_F_ACKREQ;
	if (trimmed)
		flags |= MRC_REL_RX_F_TRIMMED;
	if (v->flags & MRC_PKT_F_TRIMMED_LASTHOP)
		flags |= MRC_REL_RX_F_LASTHOP;
	qp->rx_unacked = true; /* a SACK may now be pending: the poll looks */
	rv = mrc_rel_rx_data(qp->rrx, v->bth.psn, v->payload_len, flags, now);
	switch (rv.kind) {
	case MRC_REL_RX_NEW:
		copy_out(m, v->payload_off, mrc_mr_ptr(mr, v->data.va), v->payload_len);
		qp->cnt.rx_data_pkts++;
		qp->cnt.rx_data_bytes += v->payload_len;
		if (imm && qp->imm == NULL) {
			/* No table: it completes its message, next in order. */
			imm_complete(qp, v->data.imm, v->data.dma_len);
		} else if (imm) {
			struct qp_imm *e = &qp->imm[v->data.rqmsn & qp->imm_mask];

			qp->imm_pending += !e->valid;
			*e = (struct qp_imm){.last_psn = v->bth.psn,
				.imm = v->data.imm,
				.len = v->data.dma_len,
				.valid = true};
		}
		break;
	case MRC_REL_RX_DUP:
		qp->cnt.rx_dup_pkts++;
		break;
	case MRC_REL_RX_OOR:
		qp->cnt.rx_oor_pkts++;
		break;
	case MRC_REL_RX_OOS:
		qp->cnt.rx_oos_pkts++;
		break;
	case MRC_REL_RX_NO_BITMAP:
		qp->cnt.rx_no_bitmap++;
		break;
	default:
		qp->cnt.rx_trimmed_pkts++;
		break;
	}
	if (rv.nack_now)
		mrc_qp_queue_ctrl(
			qp, CTRL_NACK, rv.nack_reason, false, rv.nack_psn, v->ev, rx_ts(v));
	/*
	 * The path's verdict, echoed as M: a mark, or one mark too many in a
	 * row (ALWAYS_SKIP). A marked packet placed or seen before always gets
	 * a SACK; one refused gets none and counts for nothing. An unmarked
	 * packet that gets no SACK still ends its EV's row of marks.
	 */
	if (rv.sack_now)
		mrc_qp_queue_ctrl(qp, CTRL_SACK,
			mrc_rel_rx_path_verdict(qp->rrx, v->ev, (flags & MRC_REL_RX_F_CE) != 0),
			false, v->bth.psn, v->ev, rx_ts(v));
	else if (unlikely(qp->rrx->marks_live != 0) && !trimmed && !(flags & MRC_REL_RX_F_CE))
		mrc_rel_rx_path_verdict(qp->rrx, v->ev, false);
	if (rv.in_order)
		deliver_imms(qp);
	else if (imm && qp->imm_pending == 0 && qp->imm_pool != NULL)
		mrc_qp_imm_put(qp); /* taken for a packet that was not new after all */
}

/*
 * A SACK, or (`has_ev` false) a transport ACK seen as one: no EV echoed, no
 * path verdict. Inlined into each caller, so the SACK's copy is the code it
 * was before transport ACKs shared it.
 */
static __rte_always_inline void
sack_in(struct mrc_qp *qp, struct mrc_sack_view s, bool has_ev, uint64_t now)
{
	struct mrc_rel_ack_info info;
	struct mrc_cc_ack ca;
	/* A pinned QP learns nothing about paths: its pool is left alone. */
	int slot = qp->pin_slot < 0 && has_ev ? mrc_ev_find(qp->ev, s.entropy) : -1;
	bool ev_probe_answer = false;

	if (s.pr) {
		/* Probes of retired EVs and the reliability probe use disjoint EVs. */
		for (unsigned int i = 0; i < EV_PROBES; i++) {
			struct qp_ev_probe *p = &qp->ev_probe[i];

			if (p->busy && p->ev == s.entropy) {
				if (p->op) {
					qp->op_probe_state = OP_PROBE_ANSWERED;
					qp->op_probe_rtt_tsc = now - p->sent_tsc;
					p->op = false;
				}
				p->busy = false;
				qp->ev_probe_busy &= (uint8_t) ~(1u << i);
				ev_probe_answer = true;
				if (slot >= 0)
					mrc_ev_on_probe_answer(qp->ev, slot, (enum mrc_sack_m)s.m);
			}
		}
		s.pr = !ev_probe_answer && s.entropy == qp->probe_ev;
	}
	qp_rtx_busy(qp);
	if (mrc_rel_tx_on_sack(qp->rtx, &s, now, &mrc_qp_rel_ops, qp, &info) != 0) {
		qp->cnt.rx_sacks_refused++;
		return;
	}
	const uint64_t rtt_ns = mrc_tsc_to_ns(info.rtt_tsc, qp->tsc_hz);
	const uint32_t rtt32 = rtt_ns > UINT32_MAX ? UINT32_MAX : (uint32_t)rtt_ns;

	if (!ev_probe_answer && slot >= 0)
		mrc_ev_on_sack(qp->ev, slot, (enum mrc_sack_m)s.m, rtt32);
	if (s.m != MRC_SACK_M_NONE)
		qp->cnt.ecn_echoes++;
	if (has_ev && (s.m != MRC_SACK_M_NONE || info.rtt_tsc != 0)) {
		struct mrc_path_counters *pc = mrc_qp_path(qp, s.entropy);

		if (pc != NULL) {
			pc->ecn_echoes += s.m != MRC_SACK_M_NONE;
			if (info.rtt_tsc != 0) {
				pc->rtt_samples++;
				pc->rtt_sum_ns += rtt_ns;
				pc->rtt_hist[mrc_path_rtt_bucket(rtt_ns)]++;
			}
		}
	}
	ca = (struct mrc_cc_ack){
		.newly_acked_bytes = info.acked_bytes,
		.rtt_ns = rtt32,
		.inflight_bytes = mrc_rel_tx_inflight_bytes(qp->rtx),
		.ooo_count = s.ooo_count,
		.rcv_cwnd_pen = s.cwnd_pen,
		.restore_cwnd = s.rc,
		.ecn = s.m != MRC_SACK_M_NONE,
	};
	mrc_cc_on_ack(&qp->cc, &ca, now);
	if (info.progress)
		mrc_qp_complete_sends(qp);
}

static void
rx_sack(struct mrc_qp *qp, const struct mrc_pkt *v, uint64_t now)
{
	qp->cnt.rx_sacks++;
	sack_in(qp, v->sack, true, now);
}

static void
apply_nack(struct mrc_qp *qp, const struct mrc_nack_view *n, uint64_t now)
{
	qp->nack_reason = n->reason;
	qp_rtx_busy(qp);
	mrc_rel_tx_on_nack(qp->rtx, n, now, &mrc_qp_rel_ops, qp);
	if (qp->rtx->error != MRC_REL_OK)
		mrc_qp_fail(qp, qp->rtx->error == MRC_REL_ERR_REMOTE_OP
					? MRC_QP_ERR_REMOTE_OP
					: MRC_QP_ERR_RETRY_EXCEEDED);
}

/*
 * The transport ACK, RC's AETH kept by MRC for compatibility (doc/protocol.md,
 * "Transport ACK"). An ACK syndrome acknowledges every PSN up to the BTH
 * PSN: a SACK with that cumulative ACK, no bitmap and no EV (so no path
 * learns anything). A NAK: a sequence error names the PSN to resend from
 * (go-back-N; selective repeat ignores it, as it does NACK PSN_SEQ_ERR);
 * invalid request, remote access and remote operational errors fail the QP
 * as NACK UNEXP_EVENT does. RNR NAKs (MRC has no RNR) and reserved
 * syndromes are counted as unexpected.
 */
static void
rx_ack(struct mrc_qp *qp, const struct mrc_pkt *v, uint64_t now)
{
	const uint8_t syn = v->aeth.syndrome;

	if ((syn & MRC_AETH_TYPE_MASK) == MRC_AETH_ACK) {
		const struct mrc_sack_view s = {.cack_psn = v->bth.psn, .sack_offset = 1};

		qp->cnt.rx_acks++;
		sack_in(qp, s, false, now);
	} else if ((syn & MRC_AETH_TYPE_MASK) == MRC_AETH_NAK &&
		   (syn & MRC_AETH_CODE_MASK) <= MRC_AETH_NAK_REMOTE_OP) {
		const struct mrc_nack_view n = {
			.reason = (syn & MRC_AETH_CODE_MASK) == MRC_AETH_NAK_PSN_SEQ
					  ? MRC_NACK_PSN_SEQ_ERR
					  : MRC_NACK_UNEXP_EVENT,
			.nack_psn = v->bth.psn,
		};

		qp->cnt.rx_naks++;
		apply_nack(qp, &n, now);
	} else {
		qp->cnt.rx_unexpected++;
	}
}

static void
rx_nack(struct mrc_qp *qp, const struct mrc_pkt *v, uint64_t now)
{
	int slot = qp->pin_slot < 0 ? mrc_ev_find(qp->ev, v->nack.entropy) : -1;

	qp->cnt.rx_nacks++;
	if (slot >= 0)
		mrc_ev_on_nack(qp->ev, slot, v->nack.reason);
	if (v->nack.reason == MRC_NACK_TRIMMED || v->nack.reason == MRC_NACK_TRIMMED_LASTHOP) {
		struct mrc_path_counters *pc = mrc_qp_path(qp, v->nack.entropy);

		if (pc != NULL)
			pc->trims++;
	}
	apply_nack(qp, &v->nack, now);
}

void
mrc_qp_rx_keep(
	struct mrc_qp *qp, const struct rte_mbuf *m, const struct mrc_pkt *v, uint64_t now_tsc)
{
	const uint8_t op = v->bth.opcode;

	qp->now_tsc = now_tsc;
	if (mrc_opcode_is_data(op) || op == MRC_OP_PROBE) {
		if (qp->state != MRC_QP_RTR && qp->state != MRC_QP_RTS) {
			qp->cnt.rx_unexpected++;
		} else if (op == MRC_OP_PROBE) {
			const uint8_t ecn = (v->flags & MRC_PKT_F_SRV6) ? v->outer.ecn : v->ip.ecn;

			/* The answer echoes the probe's EV and what the path did to it. */
			qp->cnt.rx_probes++;
			mrc_rel_rx_probe(qp->rrx);
			mrc_qp_queue_ctrl(qp, CTRL_SACK,
				ecn == MRC_ECN_CE ? MRC_SACK_M_SKIP_ONCE : MRC_SACK_M_NONE, true,
				mrc_rel_rx_cack(qp->rrx), v->ev, 0);
		} else {
			rx_data(qp, m, v, now_tsc);
		}
	} else if ((op == MRC_OP_SACK || op == MRC_OP_NACK || op == MRC_OP_ACK) &&
		   qp->state == MRC_QP_RTS) {
		if (op == MRC_OP_SACK)
			rx_sack(qp, v, now_tsc);
		else if (op == MRC_OP_NACK)
			rx_nack(qp, v, now_tsc);
		else
			rx_ack(qp, v, now_tsc);
	} else {
		qp->cnt.rx_unexpected++;
	}
}

void
mrc_qp_rx(struct mrc_qp *qp, struct rte_mbuf *m, const struct mrc_pkt *v, uint64_t now_tsc)
{
	mrc_qp_rx_keep(qp, m, v, now_tsc);
	rte_pktmbuf_free(m);
}
