/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * mrc_poll_cq's merge of a CQ's completion rings, one per mrcd worker
 * (doc/applications.md, "The channel"): each QP's completions in the order
 * its worker put them, and every ring served while another stays busy, so a
 * worker whose ring the application does not empty does not overrun it. The
 * CQ's shared memory is made here, as mrcd lays it out, with no mrcd.
 */

#include <stdlib.h>
#include <string.h>

#include "mrc_chan.h"
#include "mrc_lib_priv.h"
#include "mrc_test.h"

#define ENTRIES 8

struct fake {
	struct mrc_lib_dev dev;
	struct mrc_context ctx;
	struct mrc_cq cq;
	uint32_t head[2];
};

static void
fake_init(struct fake *f, uint32_t n_rings)
{
	memset(f, 0, sizeof(*f));
	f->dev.fd = -1;
	f->ctx.dev = &f->dev;
	f->cq.ctx = &f->ctx;
	f->cq.entries = ENTRIES;
	f->cq.n_rings = n_rings;
	f->cq.bytes = mrc_chan_cq_bytes(ENTRIES, n_rings);
	f->cq.shm = calloc(1, f->cq.bytes);
}

/* What worker `w` does: one completion of QP `qpn` on its ring. */
static void
produce(struct fake *f, uint32_t w, uint32_t qpn, uint64_t wr_id)
{
	struct mrc_chan_ring *r =
		(struct mrc_chan_ring *)(f->cq.shm + mrc_chan_cq_ring_off(ENTRIES, w));
	struct mrc_chan_cqe *e = (struct mrc_chan_cqe *)(r + 1);

	memset(&e[f->head[w] & (ENTRIES - 1)], 0, sizeof(*e));
	e[f->head[w] & (ENTRIES - 1)].wr_id = wr_id;
	e[f->head[w] & (ENTRIES - 1)].qpn = qpn;
	e[f->head[w] & (ENTRIES - 1)].sq_index = (uint32_t)wr_id;
	f->head[w]++;
	__atomic_store_n(&r->head, f->head[w], __ATOMIC_RELEASE);
}

/* The application's tail of worker w's ring, as mrcd reads it. */
static uint32_t
ring_tail(const struct fake *f, uint32_t w)
{
	const struct mrc_chan_ring *r =
		(const struct mrc_chan_ring *)(f->cq.shm + mrc_chan_cq_ring_off(ENTRIES, w));

	return __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
}

/* A worker that keeps its ring full does not keep the other's from being read. */
static int
test_rings_take_turns(void)
{
	struct fake f;
	struct ibv_wc wc[4];
	unsigned int from1 = 0;

	fake_init(&f, 2);
	MRC_T_ASSERT(f.cq.shm != NULL, "no memory");
	for (uint64_t k = 0; k < 4; k++)
		produce(&f, 1, 0x501, 100 + k);
	/* worker 0 refills its ring as fast as the application polls, ten times over */
	for (uint64_t round = 0; round < 10; round++) {
		while (f.head[0] - ring_tail(&f, 0) < ENTRIES)
			produce(&f, 0, 0x500, f.head[0]);
		MRC_T_EQ(mrc_poll_cq(&f.cq, 2, wc), 2);
		for (unsigned int k = 0; k < 2; k++)
			from1 += wc[k].qp_num == 0x501;
	}
	MRC_T_EQ(from1, 4); /* all of worker 1's, while worker 0's ring never ran dry */
	free(f.cq.shm);
	return MRC_TEST_OK;
}

/* Interleaved rings: each QP's completions come out in the order its worker put them. */
static int
test_order_per_qp(void)
{
	struct fake f;
	struct ibv_wc wc[16];
	uint64_t next[2] = {0, 1000};
	int n, total = 0;

	fake_init(&f, 2);
	MRC_T_ASSERT(f.cq.shm != NULL, "no memory");
	for (uint64_t k = 0; k < 6; k++) {
		produce(&f, 0, 0x600, k);
		produce(&f, 1, 0x601, 1000 + k);
	}
	while ((n = mrc_poll_cq(&f.cq, 3, wc)) > 0) {
		for (int k = 0; k < n; k++) {
			const unsigned int q = wc[k].qp_num - 0x600;

			MRC_T_ASSERT(q < 2, "qpn 0x%x", wc[k].qp_num);
			MRC_T_U64_EQ(wc[k].wr_id, next[q]);
			next[q]++;
		}
		total += n;
	}
	MRC_T_EQ(total, 12);
	MRC_T_EQ(mrc_poll_cq(&f.cq, 16, wc), 0);
	free(f.cq.shm);
	return MRC_TEST_OK;
}

static const struct mrc_test_case cases[] = {
	MRC_TEST_CASE(test_rings_take_turns),
	MRC_TEST_CASE(test_order_per_qp),
};

MRC_TEST_MAIN("mrc_lib_poll", cases)
