/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Fuzz the checks mrcd makes on what an application writes
 * (lib/mrc_api/mrc_chan.h): socket requests, send requests copied out of
 * shared memory, ring indexes. Input: a selector byte, then the bytes an
 * application would have written. Oracles: a request accepted has every field
 * its operation uses in range (so the daemon's handlers may rely on them); a
 * send request accepted has a known opcode and flags and a length that wraps
 * nothing; a ring count accepted is at most the ring's size; each check gives
 * the same answer twice.
 */

#include <string.h>

#include "fuzz.h"
#include "mrc_chan.h"

static void
check_req(const uint8_t *data, size_t size)
{
	struct mrc_chan_req r, r2;
	const enum mrc_chan_refusal why = mrc_chan_req_check(data, size, &r);

	FUZZ_CHECK(why <= MRC_CHAN_REF_NONE, "refusal %d", why);
	FUZZ_CHECK(mrc_chan_req_check(data, size, &r2) == why, "not deterministic");
	if (why != MRC_CHAN_REF_NONE)
		return;
	FUZZ_CHECK(size == sizeof(r) && r.magic == MRC_CHAN_MAGIC, "size %zu", size);
	FUZZ_CHECK(r.op >= MRC_CHAN_HELLO && r.op < MRC_CHAN_OP_END, "op %u", r.op);
	switch (r.op) {
	case MRC_CHAN_REG_MR:
		FUZZ_CHECK(r.u.reg_mr.len != 0 &&
				   r.u.reg_mr.addr + r.u.reg_mr.len > r.u.reg_mr.addr &&
				   r.u.reg_mr.fd_off + r.u.reg_mr.len > r.u.reg_mr.fd_off,
			"region wraps");
		FUZZ_CHECK((r.u.reg_mr.access & ~3u) == 0, "access 0x%x", r.u.reg_mr.access);
		break;
	case MRC_CHAN_CREATE_CQ:
		FUZZ_CHECK(r.u.create_cq.entries >= 1 && r.u.create_cq.entries <= MRC_CHAN_MAX_CQ &&
				   mrc_chan_pow2(r.u.create_cq.entries) <= MRC_CHAN_MAX_CQ,
			"entries %u", r.u.create_cq.entries);
		break;
	case MRC_CHAN_CREATE_QP:
		FUZZ_CHECK(r.u.create_qp.max_send_wr >= 1 &&
				   mrc_chan_pow2(r.u.create_qp.max_send_wr) <= MRC_CHAN_MAX_SQ &&
				   mrc_chan_pow2(r.u.create_qp.max_recv_wr) <= MRC_CHAN_MAX_RQ,
			"sizes %u %u", r.u.create_qp.max_send_wr, r.u.create_qp.max_recv_wr);
		break;
	case MRC_CHAN_MODIFY_QP: {
		const uint32_t s = r.u.modify_qp.state, m = r.u.modify_qp.mask;

		FUZZ_CHECK(s <= MRC_CHAN_QPS_RTS || s == MRC_CHAN_QPS_ERR, "state %u", s);
		FUZZ_CHECK((m & ~MRC_CHAN_MOD_ALL) == 0, "mask 0x%x", m);
		if (m & MRC_CHAN_MOD_MTU)
			FUZZ_CHECK(r.u.modify_qp.mtu >= 256 && r.u.modify_qp.mtu <= 4096 &&
					   mrc_chan_pow2(r.u.modify_qp.mtu) == r.u.modify_qp.mtu,
				"mtu %u", r.u.modify_qp.mtu);
		if (m & MRC_CHAN_MOD_TIMEOUT)
			FUZZ_CHECK(
				r.u.modify_qp.timeout <= 24, "timeout %u", r.u.modify_qp.timeout);
		if (m & MRC_CHAN_MOD_RETRY)
			FUZZ_CHECK(r.u.modify_qp.retry_linear <= 7 && r.u.modify_qp.retry_exp <= 25,
				"retry");
		if (m & MRC_CHAN_MOD_DEST_QPN)
			FUZZ_CHECK(r.u.modify_qp.dest_qpn <= 0xffffff, "dest_qpn");
		break;
	}
	default:
		break;
	}
}

static void
check_swqe(const uint8_t *data, size_t size)
{
	struct mrc_chan_swqe w;
	enum mrc_chan_refusal why;

	memset(&w, 0, sizeof(w));
	memcpy(&w, data, size < sizeof(w) ? size : sizeof(w));
	why = mrc_chan_swqe_check(&w);
	FUZZ_CHECK(mrc_chan_swqe_check(&w) == why, "not deterministic");
	if (why != MRC_CHAN_REF_NONE)
		return;
	FUZZ_CHECK(w.opcode == MRC_CHAN_WR_WRITE || w.opcode == MRC_CHAN_WR_WRITE_IMM, "opcode");
	FUZZ_CHECK((w.flags & ~MRC_CHAN_WR_SIGNALED) == 0, "flags 0x%x", w.flags);
	FUZZ_CHECK(w.len <= MRC_CHAN_MAX_MSG && w.laddr + w.len >= w.laddr &&
			   w.raddr + w.len >= w.raddr,
		"length %u", w.len);
}

static void
check_ring(const uint8_t *data, size_t size)
{
	uint32_t v[3] = {0, 0, 0}, n;
	enum mrc_chan_refusal why;
	uint32_t ring_size;

	memcpy(v, data, size < sizeof(v) ? size : sizeof(v));
	ring_size = mrc_chan_pow2((v[2] & 0xffff) + 1);
	why = mrc_chan_ring_count(v[0], v[1], ring_size, &n);
	FUZZ_CHECK(why == MRC_CHAN_REF_NONE || why == MRC_CHAN_REF_ring_index, "refusal %d", why);
	FUZZ_CHECK(why != MRC_CHAN_REF_NONE || n <= ring_size, "%u entries in a ring of %u", n,
		ring_size);
	FUZZ_CHECK(why == MRC_CHAN_REF_NONE || n == 0, "a refused ring counts %u", n);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	switch (data[0] % 3) {
	case 0:
		check_req(data + 1, size - 1);
		break;
	case 1:
		check_swqe(data + 1, size - 1);
		break;
	default:
		check_ring(data + 1, size - 1);
		break;
	}
	return 0;
}
