/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Prefetch hints for a worker that handles many QPs in turn (mrc_qp.h).
 * With more QPs in flight than one core's caches hold, a packet's QP is
 * cold: its lines come from the last-level cache or memory, each miss in
 * turn while the handling waits on the one before. Asking for the lines of
 * the next few QPs first lets those misses overlap. The offsets name the
 * fields the per-packet paths read, so the hint follows the layout.
 */

#include <stddef.h>

#include <rte_prefetch.h>

#include "mrc_qp_priv.h"

#define QP_LINE(f) ((const char *)qp + offsetof(struct mrc_qp, f))

/* The counters every message writes, the only ones mrc_qp_prefetch() asks for (mrc_qp.h). */
_Static_assert(offsetof(struct mrc_qp_counters, imm_delivered) + sizeof(uint64_t) <= 64,
	"the counters every message writes fill the block's first line");

void
mrc_qp_prefetch(const struct mrc_qp *qp)
{
	rte_prefetch0(qp);	      /* qpn, state, queue indices, time, CQ */
	rte_prefetch0(QP_LINE(pool)); /* headers, encap rules, parts' pointers */
	rte_prefetch0(QP_LINE(mrs));  /* a responder's: regions, answer ring, Write-IMMs */
	rte_prefetch0(QP_LINE(sq));   /* a requester's: send queue, wake, path counters */
	/*
	 * The counters' first line only: the rest count resends, probes and
	 * refusals, which a message without trouble never writes, and asking
	 * for a line nobody reads takes a fill buffer from one that is read.
	 */
	rte_prefetch0(QP_LINE(cnt));
}

void
mrc_qp_prefetch_cc(const struct mrc_qp *qp)
{
	rte_prefetch0(QP_LINE(cc)); /* CC ops and state */
	rte_prefetch0(QP_LINE(cc) + 64);
	rte_prefetch0(QP_LINE(cc) + 128); /* CC state and counters */
}

/* A requester's parts: its second line, its reliability state and EV pool, first lines. */
static inline void
prefetch_requester(const struct mrc_qp *qp)
{
	rte_prefetch0(QP_LINE(pin_slot)); /* ECMP pin, message numbers, probes, path */
	if (qp->rtx != NULL) {
		rte_prefetch0(qp->rtx);
		rte_prefetch0((const char *)qp->rtx + 64);
		rte_prefetch0((const char *)qp->rtx + 128);
	}
	if (qp->ev != NULL) {
		rte_prefetch0(qp->ev);
		rte_prefetch0((const char *)qp->ev + 64);
	}
}

void
mrc_qp_prefetch_ack(const struct mrc_qp *qp)
{
	prefetch_requester(qp);
	mrc_qp_prefetch_cc(qp); /* the window it opens */
}

void
mrc_qp_prefetch_parts(const struct mrc_qp *qp)
{
	/*
	 * Only the parts its turn reads: a requester's while it has sends out
	 * or waiting (new data, resends), the responder's while answers wait.
	 * Asking for every QP's all would take the fill buffers those need.
	 */
	if (qp->sq_head != qp->sq_tail)
		prefetch_requester(qp);
	if (qp->ctrl_head != qp->ctrl_tail && qp->rrx != NULL)
		rte_prefetch0(qp->rrx);
	/*
	 * New data waiting: its entry was written at the post, not long ago;
	 * the payload the fill wrote may have been evicted since (posts wait
	 * for room behind other QPs), and the ICRC reads every byte of it.
	 * Only its first lines: the hardware prefetcher follows the ICRC
	 * through the rest, and asking for all of them would take the fill
	 * buffers the QPs' own lines wait for.
	 */
	if (qp->sq_send != qp->sq_tail && qp->sq != NULL) {
		const struct qp_wqe *w = &qp->sq[qp->sq_send & qp->sq_mask];

		mrc_qp_prefetch_cc(qp); /* the window it is sent in */

		if (w->next_pkt < w->n_pkts && w->laddr != NULL) {
			const uint8_t *src = w->laddr + (size_t)w->next_pkt * qp->mtu;
			const uint32_t left = w->len - w->next_pkt * qp->mtu;
			const uint32_t len = RTE_MIN(left, MRC_QP_PREFETCH_SEND_BYTES);

			for (uintptr_t a = (uintptr_t)src & ~(uintptr_t)63;
				a < (uintptr_t)src + len; a += 64)
				rte_prefetch0((const void *)a);
		}
	}
}

/* Each line of [from, to] once. */
static inline void
prefetch_span(const char *from, const char *to)
{
	for (uintptr_t a = (uintptr_t)from & ~(uintptr_t)63; a <= (uintptr_t)to; a += 64)
		rte_prefetch0((const void *)a);
}

void
mrc_qp_prefetch_turn(const struct mrc_qp *qp)
{
	/* The MACs of the planes it may send on: every packet's addresses. */
	const unsigned int top =
		qp->plane_mask != 0 ? 31u - (unsigned int)__builtin_clz(qp->plane_mask) : 0;
	const unsigned int last = RTE_MIN(top, (unsigned int)MRC_EV_MAX_PLANES - 1);

	prefetch_span((const char *)&qp->hdr->src_mac[0],
		(const char *)&qp->hdr->src_mac[last] + sizeof(qp->hdr->src_mac[0]) - 1);
	prefetch_span((const char *)&qp->hdr->dst_mac[0],
		(const char *)&qp->hdr->dst_mac[last] + sizeof(qp->hdr->dst_mac[0]) - 1);
	if (qp->ev == NULL || qp->sq_send == qp->sq_tail)
		return;
	mrc_ev_prefetch_pick(qp->ev);
	/* what recording the send writes, from the slot the pick most likely returns */
	if (qp->rtx != NULL)
		mrc_rel_tx_prefetch_send(qp->rtx, qp->ev->peek);
}

void
mrc_qp_prefetch_post(const struct mrc_qp *qp)
{
	rte_prefetch0(QP_LINE(pin_slot)); /* message numbers; the send after it reads the rest */
	if (qp->sq != NULL)
		rte_prefetch0_write(&qp->sq[qp->sq_tail & qp->sq_mask]);
	if (qp->wake_ctx != NULL)
		rte_prefetch0_write(qp->wake_ctx);
}

void
mrc_qp_prefetch_rx(const struct mrc_qp *qp, const struct mrc_pkt *v)
{
	const struct mrc_mr *mr;
	const uint8_t *dst;
	uint32_t len;

	if (!mrc_opcode_is_data(v->bth.opcode))
		return;
	if (qp->rrx != NULL)
		rte_prefetch0(qp->rrx); /* its verdict */
	if ((v->flags & MRC_PKT_F_TRIMMED) || v->payload_len == 0 || qp->mrs == NULL)
		return;
	mr = mrc_mr_peek(qp->mrs, qp->pd, v->data.rkey, v->data.va, v->payload_len,
		MRC_MR_ACCESS_REMOTE_WRITE);
	if (mr == NULL)
		return; /* refused on arrival: nothing is written */
	dst = mrc_mr_ptr(mr, v->data.va);
	len = RTE_MIN(v->payload_len, MRC_QP_PREFETCH_PLACE_BYTES);
	/* From the line that holds the first byte to the one that holds the last. */
	for (uintptr_t a = (uintptr_t)dst & ~(uintptr_t)63; a < (uintptr_t)dst + len; a += 64)
		rte_prefetch0_write((const void *)a);
}

void
mrc_qp_prefetch_judge(const struct mrc_qp *qp, const struct mrc_pkt *v)
{
	const uint8_t op = v->bth.opcode;

	if (mrc_opcode_is_data(op)) {
		if (qp->rrx != NULL)
			mrc_rel_rx_prefetch_judge(qp->rrx, v->bth.psn);
	} else if (qp->ev != NULL && qp->pin_slot < 0) {
		if (op == MRC_OP_SACK)
			mrc_ev_prefetch_find(qp->ev, v->sack.entropy);
		else if (op == MRC_OP_NACK)
			mrc_ev_prefetch_find(qp->ev, v->nack.entropy);
	}
}
