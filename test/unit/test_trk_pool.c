/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * In-flight tracking on loan (mrc_trk_pool.h, mrc_rel_tx.h "Storage on
 * loan"): the pool lends and takes back blocks; a sender works without a
 * block while drained, and a block comes back clear for the next sender;
 * QPs borrow when they send, give back when everything is acknowledged or
 * when they are reset or destroyed, and wait (never fail, never drop) while
 * the pool is empty. Packets cross straight from one QP to its peer.
 */

#include <stdlib.h>
#include <string.h>

#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "mrc_rel_tx.h"
#include "mrc_rel_tx_priv.h"
#include "mrc_test.h"
#include "mrc_test_qp.h"
#include "mrc_trk_pool.h"

static int
test_pool_lend_return(void)
{
	int rc = mrc_test_eal_init("test_trk_pool");

	if (rc != 0)
		return rc;
	struct mrc_trk_pool *p = mrc_trk_pool_create(2, 100, SOCKET_ID_ANY);
	void *a, *b;

	MRC_T_ASSERT(p != NULL, "pool create");
	MRC_T_EQ(p->block_bytes, 128); /* a cache line multiple */
	a = mrc_trk_pool_get(p);
	b = mrc_trk_pool_get(p);
	MRC_T_ASSERT(a != NULL && b != NULL && a != b, "two distinct blocks");
	MRC_T_EQ(mrc_trk_pool_in_use(p), 2);
	MRC_T_ASSERT(mrc_trk_pool_get(p) == NULL, "a third block from a pool of two");
	MRC_T_ASSERT(mrc_trk_pool_get(p) == NULL, "still empty");
	MRC_T_EQ(p->stats.waits, 2);
	MRC_T_EQ(mrc_trk_pool_free(p), -EBUSY); /* blocks are out: nothing freed */
	mrc_trk_pool_put(p, a);
	MRC_T_ASSERT(mrc_trk_pool_get(p) == a, "the block given back is lent again");
	mrc_trk_pool_put(p, a);
	mrc_trk_pool_put(p, b);
	MRC_T_EQ(p->stats.lent, 3);
	MRC_T_EQ(p->stats.returned, 3);
	MRC_T_EQ(p->stats.max_in_use, 2);
	MRC_T_EQ(mrc_trk_pool_in_use(p), 0);
	MRC_T_EQ(mrc_trk_pool_free(p), 0);
	MRC_T_ASSERT(mrc_trk_pool_create(0, 100, SOCKET_ID_ANY) == NULL, "zero blocks refused");
	return MRC_TEST_OK;
}

static struct mrc_sack_view
sack_upto(uint32_t cack)
{
	return (struct mrc_sack_view){.cack_psn = cack, .sack_offset = 1, .ack_psn_offset = 0};
}

/* A sender without a block while drained, and blocks that come back clear. */
static int
test_rel_tx_attach_detach(void)
{
	struct mrc_rel_tx_cfg c1, c2;
	struct mrc_rel_tx t1, t2;
	struct mrc_rel_ack_info info;
	struct mrc_nack_view nk = {.reason = MRC_NACK_TRIMMED};
	uint32_t psn, ev, cookie;
	uint16_t len;
	size_t sz, ring_bytes;
	uint8_t *blk, *zero;

	mrc_rel_tx_cfg_defaults(&c1, 1000000000ull);
	c1.mpr = 1; /* 128 PSNs */
	c1.n_ev_slots = 8;
	c2 = c1;
	c2.n_ev_slots = 3; /* another QP shape sharing the block */
	sz = mrc_rel_tx_trk_memsize(&c1);
	MRC_T_ASSERT(mrc_rel_tx_trk_memsize(&c2) <= sz, "fewer EVs, no bigger block");
	MRC_T_EQ(mrc_rel_tx_memsize(&c1), sizeof(struct mrc_rel_tx) + sz);
	ring_bytes = 128 * sizeof(struct mrc_rel_tx_pkt);
	blk = calloc(1, sz);
	zero = calloc(1, sz);
	MRC_T_ASSERT(blk != NULL && zero != NULL, "alloc");

	MRC_T_EQ(mrc_rel_tx_init_lent(&t1, &c1, 100, 0), 0);
	MRC_T_ASSERT(!mrc_rel_tx_has_trk(&t1) && mrc_rel_tx_drained(&t1), "starts without a block");
	/* Drained and blockless, every call but sending works. */
	MRC_T_ASSERT(mrc_rel_tx_can_send(&t1), "can send");
	MRC_T_EQ(mrc_rel_tx_poll(&t1, 1000, NULL, NULL), UINT64_MAX);
	struct mrc_sack_view s = sack_upto(99);

	MRC_T_EQ(mrc_rel_tx_on_sack(&t1, &s, 10, NULL, NULL, &info), 0); /* stale: nothing sent */
	MRC_T_EQ(mrc_rel_tx_next_retx(&t1, &psn, &ev, &cookie, &len), -ENOENT);
	nk.nack_psn = 100;
	MRC_T_EQ(mrc_rel_tx_on_nack(&t1, &nk, 10, NULL, NULL), 0);
	MRC_T_EQ(t1.stats.nacks_ignored, 1);
	MRC_T_ASSERT(mrc_rel_tx_detach(&t1, NULL) == NULL, "nothing to give back");

	mrc_rel_tx_attach(&t1, blk, 0);
	for (uint32_t k = 0; k < 5; k++)
		MRC_T_EQ(mrc_rel_tx_sent_new(&t1, (uint16_t)k, 0x100 + k, 1000, k, 100 + k),
			100 + k);
	MRC_T_ASSERT(!mrc_rel_tx_drained(&t1), "in flight");
	s = sack_upto(104);
	MRC_T_EQ(mrc_rel_tx_on_sack(&t1, &s, 500, NULL, NULL, &info), 0);
	MRC_T_EQ(info.acked_pkts, 5);
	MRC_T_ASSERT(mrc_rel_tx_drained(&t1), "everything acknowledged");
	MRC_T_ASSERT(mrc_rel_tx_detach(&t1, NULL) == blk, "the same block back");
	MRC_T_ASSERT(!mrc_rel_tx_has_trk(&t1), "detached");
	/* The sequence state stays with the sender. */
	MRC_T_EQ(t1.snd_nxt, 105);
	MRC_T_EQ(t1.stats.rtt_samples, 1);

	/* The drained block serves a sender of another shape, losses and all. */
	MRC_T_EQ(mrc_rel_tx_init_lent(&t2, &c2, 7000, 0), 0);
	mrc_rel_tx_attach(&t2, blk, 0);
	for (uint32_t k = 0; k < 4; k++)
		mrc_rel_tx_sent_new(&t2, (uint16_t)(k % 3), 0x200 + k % 3, 500, 40 + k, 10 + k);
	nk.nack_psn = 7002;
	MRC_T_EQ(mrc_rel_tx_on_nack(&t2, &nk, 20, NULL, NULL), 0);
	MRC_T_EQ(mrc_rel_tx_next_retx(&t2, &psn, &ev, &cookie, &len), 0);
	MRC_T_EQ(psn, 7002);
	MRC_T_EQ(cookie, 42);
	mrc_rel_tx_sent_retx(&t2, psn, 0, 0x200, 30);
	s = sack_upto(7003);
	MRC_T_EQ(mrc_rel_tx_on_sack(&t2, &s, 40, NULL, NULL, &info), 0);
	MRC_T_EQ(info.acked_pkts, 4);
	MRC_T_ASSERT(mrc_rel_tx_drained(&t2), "drained after the resend");

	/* A probe's answer that comes after the ring went back finds nothing to condemn. */
	mrc_rel_tx_sent_new(&t2, 1, 0x201, 500, 1, 45);
	mrc_rel_tx_probe_sent_on(&t2, 1, 0x201, 46);
	s = sack_upto(7004);
	MRC_T_EQ(mrc_rel_tx_on_sack(&t2, &s, 47, NULL, NULL, &info), 0);
	MRC_T_ASSERT(mrc_rel_tx_drained(&t2) && t2.probe_outstanding, "drained, probe unanswered");
	MRC_T_ASSERT(mrc_rel_tx_detach(&t2, NULL) == blk, "given back");
	s.pr = true;
	MRC_T_EQ(mrc_rel_tx_on_sack(&t2, &s, 48, NULL, NULL, &info), 0);
	MRC_T_ASSERT(!t2.probe_outstanding, "the answer is taken");
	MRC_T_EQ(info.lost_pkts, 0);
	mrc_rel_tx_attach(&t2, blk, 0);

	/* Given back with packets in flight (a QP reset or destroyed): the ring is cleared. */
	mrc_rel_tx_sent_new(&t2, 1, 0x201, 500, 1, 50);
	mrc_rel_tx_sent_new(&t2, 2, 0x202, 500, 2, 51);
	MRC_T_ASSERT(mrc_rel_tx_detach(&t2, NULL) == blk, "forced detach returns the block");
	MRC_T_ASSERT(mrc_rel_tx_drained(&t2), "a forced detach forgets what was in flight");
	MRC_T_MEMEQ(blk, zero, ring_bytes);
	free(blk);
	free(zero);
	return MRC_TEST_OK;
}

/*
 * A drained sender leaves its lists reset and says so: the next attach of
 * the same shape skips the reset, one of another shape does not.
 */
static int
test_rel_tx_clean_stamp(void)
{
	struct mrc_rel_tx_cfg c8, c3, cbig;
	struct mrc_rel_tx a, b;
	struct mrc_rel_ack_info info;
	struct mrc_nack_view nk = {.reason = MRC_NACK_TRIMMED};
	struct mrc_sack_view s;
	uint32_t psn, ev, cookie;
	uint16_t len, *lists;
	uint64_t clean = 0;
	uint8_t *blk;

	mrc_rel_tx_cfg_defaults(&c8, 1000000000ull);
	c8.mpr = 1; /* 128 PSNs */
	c8.n_ev_slots = 8;
	c3 = c8;
	c3.n_ev_slots = 3;
	cbig = c8;
	cbig.n_ev_slots = 9;
	blk = calloc(1, mrc_rel_tx_trk_memsize(&cbig));
	MRC_T_ASSERT(blk != NULL, "alloc");
	lists = (uint16_t *)(blk + 128 * sizeof(struct mrc_rel_tx_pkt) + 128 / 8);

	/* Spread over every EV, one lost and resent on another EV, acked out of order. */
	MRC_T_EQ(mrc_rel_tx_init_lent(&a, &c8, 500, 0), 0);
	mrc_rel_tx_attach(&a, blk, 0);
	for (uint32_t k = 0; k < 20; k++)
		mrc_rel_tx_sent_new(&a, (uint16_t)(k % 8), 0x300 + k % 8, 100, k, 10 + k);
	nk.nack_psn = 503;
	MRC_T_EQ(mrc_rel_tx_on_nack(&a, &nk, 40, NULL, NULL), 0);
	MRC_T_EQ(mrc_rel_tx_next_retx(&a, &psn, &ev, &cookie, &len), 0);
	mrc_rel_tx_sent_retx(&a, psn, 6, 0x306, 41);
	s = (struct mrc_sack_view){.cack_psn = 502, .sack_offset = 1};
	MRC_T_EQ(mrc_rel_tx_on_sack(&a, &s, 50, NULL, NULL, &info), 0);
	MRC_T_ASSERT(!mrc_rel_tx_drained(&a), "still in flight");
	MRC_T_EQ(mrc_rel_tx_detach(&a, &clean) != NULL, 1); /* forced: no stamp */
	MRC_T_EQ(clean, 0);

	MRC_T_EQ(mrc_rel_tx_init_lent(&a, &c8, 900, 0), 0);
	mrc_rel_tx_attach(&a, blk, 0);
	for (uint32_t k = 0; k < 20; k++)
		mrc_rel_tx_sent_new(&a, (uint16_t)(k % 8), 0x300 + k % 8, 100, k, 60 + k);
	nk.nack_psn = 905;
	MRC_T_EQ(mrc_rel_tx_on_nack(&a, &nk, 90, NULL, NULL), 0);
	MRC_T_EQ(mrc_rel_tx_next_retx(&a, &psn, &ev, &cookie, &len), 0);
	mrc_rel_tx_sent_retx(&a, psn, 2, 0x302, 91);
	s = sack_upto(919);
	MRC_T_EQ(mrc_rel_tx_on_sack(&a, &s, 100, NULL, NULL, &info), 0);
	MRC_T_ASSERT(mrc_rel_tx_drained(&a), "drained");
	MRC_T_ASSERT(mrc_rel_tx_trk_reset(&a), "lists and lost bits reset by draining alone");
	MRC_T_ASSERT(mrc_rel_tx_detach(&a, &clean) == blk, "given back");
	MRC_T_ASSERT(clean != 0, "a drained block comes back stamped");

	/* Same ring, fewer EVs: the stamp is trusted, nothing is rewritten. */
	lists[0] = 0x1234; /* a marker only a reset would overwrite */
	MRC_T_EQ(mrc_rel_tx_init_lent(&b, &c3, 7000, 0), 0);
	mrc_rel_tx_attach(&b, blk, clean);
	MRC_T_EQ(lists[0], 0x1234);
	lists[0] = MRC_REL_NIL;
	for (uint32_t k = 0; k < 6; k++)
		mrc_rel_tx_sent_new(&b, (uint16_t)(k % 3), 0x400 + k % 3, 100, k, 200 + k);
	s = sack_upto(7005);
	MRC_T_EQ(mrc_rel_tx_on_sack(&b, &s, 210, NULL, NULL, &info), 0);
	MRC_T_EQ(info.acked_pkts, 6);
	MRC_T_ASSERT(mrc_rel_tx_detach(&b, &clean) == blk && clean != 0, "drained again");

	/* More EVs than the stamp covers: reset. */
	lists[0] = 0x1234;
	MRC_T_EQ(mrc_rel_tx_init_lent(&b, &cbig, 8000, 0), 0);
	mrc_rel_tx_attach(&b, blk, clean);
	MRC_T_ASSERT(mrc_rel_tx_trk_reset(&b), "reset for a bigger shape");
	mrc_rel_tx_detach(&b, NULL);
	free(blk);
	return MRC_TEST_OK;
}

static int
post(struct mrc_test_pair *p, uint64_t wr_id, size_t off, uint32_t len)
{
	return mrc_qp_post_write(p->h[0].qp, wr_id, p->h[0].mem + off, len, p->h[0].key,
		(uint64_t)(uintptr_t)p->h[1].mem + off, p->h[1].key, false, 0);
}

static int
setup_pair(struct mrc_test_pair *p, struct mrc_trk_pool *pool, uint32_t qpn_base)
{
	struct mrc_test_pair_cfg cfg;

	mrc_test_pair_cfg_defaults(&cfg);
	cfg.mem_len = 1 << 20;
	cfg.trk_pool = pool;
	cfg.qpn_base = qpn_base;
	cfg.seed = qpn_base;
	MRC_T_EQ(mrc_test_pair_create(p, &cfg), 0);
	return MRC_TEST_OK;
}

/* A QP holds a block from its first send to its last acknowledgement, and counts it. */
static int
test_qp_borrows_while_in_flight(void)
{
	static struct mrc_test_pair p;
	struct mrc_trk_pool *pool;
	struct mrc_qp_attr a;
	struct mrc_cqe e[8];
	struct rte_mbuf *pk[64];
	size_t idle_bytes;
	int rc = mrc_test_eal_init("test_trk_pool");

	if (rc != 0)
		return rc;
	mrc_qp_attr_defaults(&a, 8, MRC_TEST_HZ);
	pool = mrc_trk_pool_create(4, mrc_qp_trk_block_bytes(&a), SOCKET_ID_ANY);
	MRC_T_ASSERT(pool != NULL, "pool");
	MRC_T_RUN(setup_pair(&p, pool, 0x100));
	MRC_T_EQ(mrc_trk_pool_in_use(pool), 0); /* in RTS, idle: nothing borrowed */
	MRC_T_ASSERT(!mrc_qp_trk_held(p.h[0].qp), "idle QP holds no block");
	idle_bytes = mrc_qp_mem_bytes(p.h[0].qp);

	mrc_test_fill(&p.h[0], 0, 65536, 7);
	MRC_T_EQ(post(&p, 1, 0, 65536), 0);
	MRC_T_ASSERT(mrc_qp_tx_burst(p.h[0].qp, p.now, 0xff, &p.rand, pk, 4) == 4, "sent");
	MRC_T_EQ(mrc_trk_pool_in_use(pool), 1);
	MRC_T_ASSERT(mrc_qp_trk_held(p.h[0].qp), "sender holds a block");
	MRC_T_EQ(mrc_qp_mem_bytes(p.h[0].qp), idle_bytes + pool->block_bytes);
	for (int j = 0; j < 4; j++) { /* deliver these four, then let the pair run */
		struct mrc_pkt v;

		MRC_T_EQ(mrc_pkt_parse(pk[j], &p.wire, &v), MRC_WIRE_OK);
		mrc_qp_rx(p.h[1].qp, pk[j], &v, p.now);
	}
	mrc_test_pairs_run(&p, 1, 100000);
	MRC_T_EQ(mrc_cq_poll(p.h[0].cq, e, 8), 1);
	MRC_T_EQ(e[0].status, MRC_CQE_OK);
	MRC_T_MEMEQ(p.h[1].mem, p.h[0].mem, 65536);
	MRC_T_EQ(mrc_trk_pool_in_use(pool), 0); /* given back once drained */
	MRC_T_EQ(mrc_qp_mem_bytes(p.h[0].qp), idle_bytes);
	MRC_T_EQ(pool->stats.lent, pool->stats.returned);
	MRC_T_ASSERT(!mrc_qp_trk_held(p.h[1].qp), "the responder never borrowed");

	/* Borrowed again for the next message, and back again. */
	MRC_T_EQ(post(&p, 2, 65536, 4096), 0);
	mrc_test_pairs_run(&p, 1, 100000);
	MRC_T_EQ(mrc_cq_poll(p.h[0].cq, e, 8), 1);
	MRC_T_EQ(pool->stats.lent, 2);
	MRC_T_EQ(mrc_trk_pool_in_use(pool), 0);
	mrc_test_pair_destroy(&p);
	MRC_T_EQ(mrc_trk_pool_free(pool), 0);
	return MRC_TEST_OK;
}

/* Three senders, one block: they take turns; nothing fails, nothing is lost. */
static int
test_qp_waits_when_pool_empty(void)
{
	static struct mrc_test_pair ps[3];
	struct mrc_trk_pool *pool;
	struct mrc_qp_attr a;
	struct mrc_cqe e[16];
	int rc = mrc_test_eal_init("test_trk_pool");

	if (rc != 0)
		return rc;
	mrc_qp_attr_defaults(&a, 8, MRC_TEST_HZ);
	pool = mrc_trk_pool_create(1, mrc_qp_trk_block_bytes(&a), SOCKET_ID_ANY);
	MRC_T_ASSERT(pool != NULL, "pool");
	for (unsigned int i = 0; i < 3; i++) {
		MRC_T_RUN(setup_pair(&ps[i], pool, 0x100 + 2 * i));
		mrc_test_fill(&ps[i].h[0], 0, 8 * 32768, 11 + i);
		for (unsigned int m = 0; m < 8; m++)
			MRC_T_EQ(post(&ps[i], m, m * 32768, 32768), 0);
	}
	mrc_test_pairs_run(ps, 3, 200000);
	MRC_T_ASSERT(pool->stats.waits > 0, "the senders had to wait");
	MRC_T_EQ(pool->stats.max_in_use, 1);
	for (unsigned int i = 0; i < 3; i++) {
		MRC_T_EQ(mrc_cq_poll(ps[i].h[0].cq, e, 16), 8);
		for (unsigned int m = 0; m < 8; m++) {
			MRC_T_EQ(e[m].status, MRC_CQE_OK);
			MRC_T_EQ(e[m].wr_id, m);
		}
		MRC_T_EQ(mrc_qp_state(ps[i].h[0].qp), MRC_QP_RTS);
		MRC_T_EQ(mrc_qp_counters(ps[i].h[0].qp)->tx_retx_pkts, 0);
		MRC_T_MEMEQ(ps[i].h[1].mem, ps[i].h[0].mem, 8 * 32768);
	}
	MRC_T_EQ(mrc_trk_pool_in_use(pool), 0);
	MRC_T_EQ(pool->stats.lent, pool->stats.returned);
	for (unsigned int i = 0; i < 3; i++)
		mrc_test_pair_destroy(&ps[i]);
	MRC_T_EQ(mrc_trk_pool_free(pool), 0);
	return MRC_TEST_OK;
}

/* A QP reset or destroyed with packets in flight gives its block back, clear. */
static int
test_qp_reset_destroy_return_block(void)
{
	static struct mrc_test_pair p;
	struct mrc_trk_pool *pool;
	struct mrc_qp_attr a;
	struct rte_mbuf *pk[64];
	struct mrc_cqe e[8];
	uint16_t n;
	int rc = mrc_test_eal_init("test_trk_pool");

	if (rc != 0)
		return rc;
	mrc_qp_attr_defaults(&a, 8, MRC_TEST_HZ);
	pool = mrc_trk_pool_create(2, mrc_qp_trk_block_bytes(&a), SOCKET_ID_ANY);
	MRC_T_ASSERT(pool != NULL, "pool");
	MRC_T_RUN(setup_pair(&p, pool, 0x100));

	/* ERROR keeps the block (the state is inspectable); RESET gives it back. */
	MRC_T_EQ(post(&p, 1, 0, 65536), 0);
	n = mrc_qp_tx_burst(p.h[0].qp, p.now, 0xff, &p.rand, pk, 8);
	MRC_T_ASSERT(n > 0, "sent");
	rte_pktmbuf_free_bulk(pk, n); /* lost on the way */
	MRC_T_EQ(mrc_trk_pool_in_use(pool), 1);
	MRC_T_EQ(mrc_qp_modify(p.h[0].qp, MRC_QP_ERROR, NULL, p.now, &p.rand, NULL), 0);
	MRC_T_EQ(mrc_cq_poll(p.h[0].cq, e, 8), 1);
	MRC_T_EQ(mrc_trk_pool_in_use(pool), 1);
	MRC_T_EQ(mrc_qp_modify(p.h[0].qp, MRC_QP_RESET, NULL, p.now, &p.rand, NULL), 0);
	MRC_T_EQ(mrc_trk_pool_in_use(pool), 0);

	/* Destroyed mid-flight: the other QP of the pair borrows, is destroyed, gives back. */
	MRC_T_EQ(mrc_qp_post_write(p.h[1].qp, 2, p.h[1].mem, 65536, p.h[1].key,
			 (uint64_t)(uintptr_t)p.h[0].mem, p.h[0].key, false, 0),
		0);
	n = mrc_qp_tx_burst(p.h[1].qp, p.now, 0xff, &p.rand, pk, 8);
	MRC_T_ASSERT(n > 0, "sent");
	rte_pktmbuf_free_bulk(pk, n);
	MRC_T_EQ(mrc_trk_pool_in_use(pool), 1);
	mrc_qp_destroy(p.h[1].qp);
	p.h[1].qp = NULL;
	MRC_T_EQ(mrc_trk_pool_in_use(pool), 0);
	MRC_T_EQ(pool->stats.lent, pool->stats.returned);
	/* What comes back is clear: the whole pool reads as fresh. */
	for (uint32_t b = 0; b < pool->n_blocks; b++) {
		const uint8_t *blk = pool->blocks + (size_t)b * pool->block_bytes;
		const size_t ring = 1024 * sizeof(struct mrc_rel_tx_pkt);

		for (size_t i = 0; i < ring; i += sizeof(struct mrc_rel_tx_pkt)) {
			const struct mrc_rel_tx_pkt *pkt = (const struct mrc_rel_tx_pkt *)(blk + i);

			MRC_T_ASSERT(pkt->state == 0, "block %u entry %zu state %u", b,
				i / sizeof(*pkt), pkt->state);
		}
	}
	mrc_test_pair_destroy(&p);
	MRC_T_EQ(mrc_trk_pool_free(pool), 0);
	return MRC_TEST_OK;
}

/* A pool whose blocks are too small for the peer's MPR is refused at RTS, with the reason. */
static int
test_qp_pool_too_small_refused(void)
{
	static struct mrc_test_pair p;
	struct mrc_trk_pool *pool;
	struct mrc_qp_attr a;
	int rc = mrc_test_eal_init("test_trk_pool");

	if (rc != 0)
		return rc;
	mrc_qp_attr_defaults(&a, 8, MRC_TEST_HZ);
	a.peer_mpr = 4; /* blocks for a 512-PSN window: the default 1024 does not fit */
	pool = mrc_trk_pool_create(1, mrc_qp_trk_block_bytes(&a), SOCKET_ID_ANY);
	MRC_T_ASSERT(pool != NULL, "pool");
	struct mrc_test_pair_cfg cfg;

	mrc_test_pair_cfg_defaults(&cfg);
	cfg.mem_len = 1 << 16;
	cfg.trk_pool = pool;
	MRC_T_EQ(mrc_test_pair_create(&p, &cfg), -1);
	mrc_test_pair_destroy(&p);
	MRC_T_EQ(mrc_trk_pool_free(pool), 0);
	return MRC_TEST_OK;
}

static const struct mrc_test_case cases[] = {
	MRC_TEST_CASE(test_pool_lend_return),
	MRC_TEST_CASE(test_rel_tx_attach_detach),
	MRC_TEST_CASE(test_rel_tx_clean_stamp),
	MRC_TEST_CASE(test_qp_borrows_while_in_flight),
	MRC_TEST_CASE(test_qp_waits_when_pool_empty),
	MRC_TEST_CASE(test_qp_reset_destroy_return_block),
	MRC_TEST_CASE(test_qp_pool_too_small_refused),
};

MRC_TEST_MAIN("trk_pool", cases)
