/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/* The channel's layouts and the checks on what the application side wrote (mrc_chan.h). */

#include <string.h>

#include "mrc_chan.h"

#define LINE 64u

static size_t
up(size_t n)
{
	return (n + LINE - 1) & ~(size_t)(LINE - 1);
}

uint32_t
mrc_chan_pow2(uint32_t n)
{
	uint32_t p = 1;

	if (n > (1u << 31))
		return 0;
	while (p < n)
		p <<= 1;
	return p;
}

size_t
mrc_chan_cq_ring_off(uint32_t entries, uint32_t ring)
{
	const size_t one =
		sizeof(struct mrc_chan_ring) + up((size_t)entries * sizeof(struct mrc_chan_cqe));

	return LINE + (size_t)ring * one;
}

size_t
mrc_chan_cq_bytes(uint32_t entries, uint32_t n_rings)
{
	return mrc_chan_cq_ring_off(entries, n_rings);
}

size_t
mrc_chan_qp_sq_off(void)
{
	return sizeof(struct mrc_chan_qp_status);
}

size_t
mrc_chan_qp_rq_off(uint32_t sq_entries)
{
	return mrc_chan_qp_sq_off() + sizeof(struct mrc_chan_ring) +
	       up((size_t)sq_entries * sizeof(struct mrc_chan_swqe));
}

size_t
mrc_chan_qp_bytes(uint32_t sq_entries, uint32_t rq_entries)
{
	return mrc_chan_qp_rq_off(sq_entries) + sizeof(struct mrc_chan_ring) +
	       up((size_t)rq_entries * sizeof(struct mrc_chan_rwqe));
}

const char *
mrc_chan_refusal_name(enum mrc_chan_refusal r)
{
	static const char *const names[] = {
#define NAME(n, d) #n,
		MRC_CHAN_REFUSALS(NAME)
#undef NAME
	};

	return r < MRC_CHAN_REF_END ? names[r] : "none";
}

static bool
state_ok(uint32_t s)
{
	return s <= MRC_CHAN_QPS_RTS || s == MRC_CHAN_QPS_ERR;
}

enum mrc_chan_refusal
mrc_chan_req_check(const void *buf, size_t len, struct mrc_chan_req *out)
{
	struct mrc_chan_req *r = out;

	if (len != sizeof(*r))
		return MRC_CHAN_REF_msg_size;
	memcpy(r, buf, sizeof(*r));
	if (r->magic != MRC_CHAN_MAGIC)
		return MRC_CHAN_REF_msg_magic;
	switch (r->op) {
	case MRC_CHAN_HELLO:
	case MRC_CHAN_CREATE_CHANNEL:
	case MRC_CHAN_DESTROY_CHANNEL:
	case MRC_CHAN_DEREG_MR:
	case MRC_CHAN_DESTROY_CQ:
	case MRC_CHAN_DESTROY_QP:
		return MRC_CHAN_REF_NONE; /* their numbers are looked up, not trusted */
	case MRC_CHAN_REG_MR: {
		const uint64_t a = r->u.reg_mr.addr, n = r->u.reg_mr.len, o = r->u.reg_mr.fd_off;

		if (n == 0 || a + n < a || o + n < o ||
			(r->u.reg_mr.access &
				~(MRC_CHAN_ACC_LOCAL_WRITE | MRC_CHAN_ACC_REMOTE_WRITE)) != 0)
			return MRC_CHAN_REF_msg_field;
		return MRC_CHAN_REF_NONE;
	}
	case MRC_CHAN_CREATE_CQ:
		return r->u.create_cq.entries == 0 || r->u.create_cq.entries > MRC_CHAN_MAX_CQ
			       ? MRC_CHAN_REF_msg_field
			       : MRC_CHAN_REF_NONE;
	case MRC_CHAN_CREATE_QP:
		if (r->u.create_qp.max_send_wr == 0 ||
			r->u.create_qp.max_send_wr > MRC_CHAN_MAX_SQ ||
			r->u.create_qp.max_recv_wr > MRC_CHAN_MAX_RQ ||
			r->u.create_qp.sq_sig_all > 1)
			return MRC_CHAN_REF_msg_field;
		return MRC_CHAN_REF_NONE;
	case MRC_CHAN_MODIFY_QP: {
		const uint32_t m = r->u.modify_qp.mask;

		if (!state_ok(r->u.modify_qp.state) || (m & ~MRC_CHAN_MOD_ALL) != 0 ||
			((m & MRC_CHAN_MOD_CUR) && !state_ok(r->u.modify_qp.cur_state)) ||
			((m & MRC_CHAN_MOD_MTU) &&
				(r->u.modify_qp.mtu < 256 || r->u.modify_qp.mtu > 4096 ||
					(r->u.modify_qp.mtu & (r->u.modify_qp.mtu - 1)) != 0)) ||
			((m & MRC_CHAN_MOD_TIMEOUT) && r->u.modify_qp.timeout > 24) ||
			((m & MRC_CHAN_MOD_RETRY) && (r->u.modify_qp.retry_linear > 7 ||
							     r->u.modify_qp.retry_exp > 25)) ||
			((m & MRC_CHAN_MOD_DEST_QPN) && r->u.modify_qp.dest_qpn > 0xffffff) ||
			((m & MRC_CHAN_MOD_RQ_PSN) && r->u.modify_qp.rq_psn > 0xffffff) ||
			((m & MRC_CHAN_MOD_SQ_PSN) && r->u.modify_qp.sq_psn > 0xffffff))
			return MRC_CHAN_REF_msg_field;
		return MRC_CHAN_REF_NONE;
	}
	default:
		return MRC_CHAN_REF_msg_op;
	}
}

enum mrc_chan_refusal
mrc_chan_ring_count(uint32_t head, uint32_t tail, uint32_t size, uint32_t *n)
{
	const uint32_t d = head - tail; /* free running: wraps as the indexes do */

	if (d > size) {
		*n = 0;
		return MRC_CHAN_REF_ring_index;
	}
	*n = d;
	return MRC_CHAN_REF_NONE;
}

enum mrc_chan_refusal
mrc_chan_swqe_check(const struct mrc_chan_swqe *w)
{
	if (w->opcode != MRC_CHAN_WR_WRITE && w->opcode != MRC_CHAN_WR_WRITE_IMM)
		return MRC_CHAN_REF_wqe_opcode;
	if ((w->flags & ~MRC_CHAN_WR_SIGNALED) != 0)
		return MRC_CHAN_REF_wqe_flags;
	if (w->len > MRC_CHAN_MAX_MSG || w->laddr + w->len < w->laddr ||
		w->raddr + w->len < w->raddr)
		return MRC_CHAN_REF_wqe_len;
	return MRC_CHAN_REF_NONE;
}
