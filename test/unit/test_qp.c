/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * The QP end to end over a simple in-process wire: every packet is built by
 * lib/wire, parsed back and handed to the peer QP, on a fake clock. The wire
 * has a fixed latency and can reverse each burst (spraying makes arrival
 * order arbitrary) or drop packets by rule. Lossier and more realistic
 * networks are test_transport.c's business (the channel simulator).
 */

#include <stdlib.h>
#include <string.h>

#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "mrc_ev.h"
#include "mrc_rel_rx.h"
#include "mrc_rel_tx.h"

#include "mrc_test.h"
#include "mrc_test_qp.h"

#define US 1000ull

struct wire {
	uint64_t latency_ns;
	bool reverse;					  /* deliver each burst backwards */
	bool (*drop)(void *ctx, const struct mrc_pkt *v); /* NULL: drop nothing */
	void *ctx;
	struct {
		struct rte_mbuf *m;
		uint64_t at;
		uint8_t to;
	} q[8192];
	unsigned int head, tail;
	uint64_t pkts_per_plane[8];
	uint64_t parse_errors;
};

static void
wire_send(struct wire *w, struct mrc_test_pair *p, uint8_t to, struct rte_mbuf **pk, uint16_t n)
{
	for (uint16_t k = 0; k < n; k++) {
		struct rte_mbuf *m = pk[w->reverse ? n - 1 - k : k];

		if (m->port < 8)
			w->pkts_per_plane[m->port]++;
		if (w->tail - w->head >= RTE_DIM(w->q)) {
			rte_pktmbuf_free(m);
			continue;
		}
		w->q[w->tail % RTE_DIM(w->q)].m = m;
		w->q[w->tail % RTE_DIM(w->q)].at = p->now + w->latency_ns;
		w->q[w->tail % RTE_DIM(w->q)].to = to;
		w->tail++;
	}
}

static void
wire_deliver(struct wire *w, struct mrc_test_pair *p)
{
	while (w->head != w->tail && w->q[w->head % RTE_DIM(w->q)].at <= p->now) {
		struct rte_mbuf *m = w->q[w->head % RTE_DIM(w->q)].m;
		uint8_t to = w->q[w->head % RTE_DIM(w->q)].to;
		struct mrc_pkt v;

		w->head++;
		if (mrc_pkt_parse(m, &p->wire, &v) != MRC_WIRE_OK) {
			w->parse_errors++;
			rte_pktmbuf_free(m);
			continue;
		}
		if (w->drop != NULL && w->drop(w->ctx, &v)) {
			rte_pktmbuf_free(m);
			continue;
		}
		mrc_qp_rx(p->h[to].qp, m, &v, p->now);
	}
}

/* Run until both QPs are idle and the wire empty, or `limit_ns` passes. */
static void
run(struct mrc_test_pair *p, struct wire *w, uint64_t limit_ns)
{
	const uint64_t end = p->now + limit_ns;
	struct rte_mbuf *pk[64];

	while (p->now < end) {
		for (uint8_t i = 0; i < 2; i++) {
			uint16_t n = mrc_qp_tx_burst(p->h[i].qp, p->now, 0xff, &p->rand, pk, 64);

			wire_send(w, p, (uint8_t)(1 - i), pk, n);
			mrc_qp_poll(p->h[i].qp, p->now);
		}
		wire_deliver(w, p);
		if (w->head == w->tail && mrc_qp_idle(p->h[0].qp) && mrc_qp_idle(p->h[1].qp))
			break;
		p->now += 100;
	}
}

/* How a test's wire behaves; whatever it leaves out is 0 (no reversal, no drops). */
struct wire_cfg {
	uint64_t latency_ns;
	bool reverse;
	bool (*drop)(void *ctx, const struct mrc_pkt *v);
	void *ctx;
};

/* Empty the wire and give it `c`: each test starts from a clean one. */
static void
wire_reset(struct wire *w, struct wire_cfg c)
{
	memset(w, 0, sizeof(*w));
	w->latency_ns = c.latency_ns;
	w->reverse = c.reverse;
	w->drop = c.drop;
	w->ctx = c.ctx;
}

/* `imm` of post_at() for a plain WRITE: no immediate. */
#define NO_IMM (-1ll)

/*
 * Host 0 writes `len` bytes at `off` in its buffer to the same offset in
 * host 1's, as a WRITE, or a WRITE with immediate `imm` unless NO_IMM.
 */
static int
post_at(struct mrc_test_pair *p, uint64_t wr_id, size_t off, uint32_t len, long long imm)
{
	return mrc_qp_post_write(p->h[0].qp, wr_id, p->h[0].mem + off, len, p->h[0].key,
		(uint64_t)(uintptr_t)p->h[1].mem + off, p->h[1].key, imm != NO_IMM,
		imm == NO_IMM ? 0 : (uint32_t)imm);
}

static void
wire_drain(struct wire *w)
{
	while (w->head != w->tail)
		rte_pktmbuf_free(w->q[w->head++ % RTE_DIM(w->q)].m);
}

static int
no_leak(const struct mrc_test_pair *p)
{
	MRC_T_EQ(rte_mempool_avail_count(p->pool), p->pool->size);
	for (int i = 0; i < 2; i++)
		MRC_T_EQ(mrc_mr_attached(p->h[i].mrs, p->h[i].mrs->mr[0].key), 0);
	return MRC_TEST_OK;
}

/* The end of a test: nothing leaked, the pair destroyed. */
static int
finish(struct mrc_test_pair *p)
{
	MRC_T_RUN(no_leak(p));
	mrc_test_pair_destroy(p);
	return MRC_TEST_OK;
}

/* The same after freeing what is still on the wire. */
static int
drained_no_leak(struct mrc_test_pair *p, struct wire *w)
{
	wire_drain(w);
	return finish(p);
}

#define SETUP(p, cfg)                                            \
	do {                                                     \
		int rc_ = mrc_test_eal_init("test_qp");          \
		if (rc_ != 0)                                    \
			return rc_;                              \
		MRC_T_EQ(mrc_test_pair_create(&(p), &(cfg)), 0); \
	} while (0)

/* What the QPs of a pair borrow from a pool of one in the tests of lent memory. */
enum lent_block { LENT_IMM_TABLE, LENT_CTRL_RING };

/*
 * A pair of 1 KiB MTU whose QPs borrow their Write-IMM tables or their
 * control answer rings from `*pool`, a pool of one.
 */
static int
setup_lent(struct mrc_test_pair *p, struct mrc_test_pair_cfg *cfg, enum lent_block what,
	struct mrc_trk_pool **pool)
{
	int rc = mrc_test_eal_init("test_qp");

	if (rc != 0)
		return rc;
	mrc_test_pair_cfg_defaults(cfg);
	cfg->mtu = 1024;
	*pool = mrc_trk_pool_create(1,
		what == LENT_IMM_TABLE ? mrc_qp_imm_block_bytes(&cfg->attr)
				       : mrc_qp_ctrl_block_bytes(),
		SOCKET_ID_ANY);
	MRC_T_ASSERT(*pool != NULL, "pool of one");
	if (what == LENT_IMM_TABLE)
		cfg->imm_pool = *pool;
	else
		cfg->ctrl_pool = *pool;
	MRC_T_EQ(mrc_test_pair_create(p, cfg), 0);
	return MRC_TEST_OK;
}

/*
 * The end of a test of lent memory: every block is back in `pool` and
 * nothing leaked; then the pair and the pool go.
 */
static int
finish_lent(struct mrc_test_pair *p, struct mrc_trk_pool *pool)
{
	MRC_T_EQ(mrc_trk_pool_in_use(pool), 0);
	MRC_T_EQ(pool->stats.lent, pool->stats.returned);
	MRC_T_RUN(no_leak(p));
	mrc_test_pair_destroy(p);
	MRC_T_EQ(mrc_trk_pool_free(pool), 0);
	return MRC_TEST_OK;
}

/* Four writes, k = 0..3: 3000 + k bytes at k x 10,000 on both sides, `imm` with imm0 + k. */
static int
post_four(struct mrc_test_pair *p, bool imm, uint32_t imm0)
{
	for (uint32_t k = 0; k < 4; k++)
		MRC_T_EQ(post_at(p, k, k * 10000, 3000 + k, imm ? (long long)imm0 + k : NO_IMM), 0);
	return MRC_TEST_OK;
}

/* The four writes of post_four() arrived intact. */
static int
four_placed(const struct mrc_test_pair *p)
{
	for (uint32_t k = 0; k < 4; k++)
		MRC_T_MEMEQ(p->h[1].mem + k * 10000, p->h[0].mem + k * 10000, 3000 + k);
	return MRC_TEST_OK;
}

static int
test_lifecycle(void)
{
	struct mrc_test_pair_cfg cfg;
	struct mrc_test_pair p;
	struct mrc_qp_attr a;
	const char *why = NULL;

	mrc_test_pair_cfg_defaults(&cfg);
	SETUP(p, cfg);
	MRC_T_EQ(mrc_qp_state(p.h[0].qp), MRC_QP_RTS);
	/* Illegal jumps name the rule. */
	a = cfg.attr;
	MRC_T_EQ(mrc_qp_modify(p.h[0].qp, MRC_QP_INIT, &a, 0, &p.rand, &why), -EINVAL);
	MRC_T_ASSERT(why != NULL && strstr(why, "RESET->INIT") != NULL, "reason: %s", why);
	/* ERROR flushes what was posted; RESET then INIT needs a valid profile. */
	MRC_T_EQ(post_at(&p, 7, 0, 100, NO_IMM), 0);
	MRC_T_EQ(mrc_qp_modify(p.h[0].qp, MRC_QP_ERROR, NULL, 0, &p.rand, &why), 0);
	MRC_T_EQ(mrc_qp_error(p.h[0].qp), MRC_QP_ERR_USER);
	struct mrc_cqe e;

	MRC_T_EQ(mrc_cq_poll(p.h[0].cq, &e, 1), 1);
	MRC_T_EQ(e.wr_id, 7);
	MRC_T_EQ(e.status, MRC_CQE_FLUSHED);
	MRC_T_EQ(mrc_qp_post_write(p.h[0].qp, 8, p.h[0].mem, 100, p.h[0].key, 0, 0, false, 0),
		-EPERM);
	MRC_T_EQ(mrc_qp_modify(p.h[0].qp, MRC_QP_RESET, NULL, 0, &p.rand, &why), 0);
	a = cfg.attr;
	snprintf(a.cc_name, sizeof(a.cc_name), "no-such-cc");
	MRC_T_EQ(mrc_qp_modify(p.h[0].qp, MRC_QP_INIT, &a, 0, &p.rand, &why), -EINVAL);
	MRC_T_ASSERT(why != NULL && strstr(why, "congestion control") != NULL, "reason: %s", why);
	mrc_test_pair_destroy(&p);
	return MRC_TEST_OK;
}

static int
test_post_checks_local_buffer(void)
{
	struct mrc_test_pair_cfg cfg;
	struct mrc_test_pair p;
	struct mrc_qp *qp;

	mrc_test_pair_cfg_defaults(&cfg);
	SETUP(p, cfg);
	qp = p.h[0].qp;
	MRC_T_EQ(mrc_qp_post_write(
			 qp, 1, p.h[0].mem + p.h[0].mem_len - 10, 11, p.h[0].key, 0, 0, false, 0),
		-EINVAL);
	MRC_T_EQ(mrc_qp_post_write(qp, 1, p.h[0].mem, 10, p.h[0].key + 1, 0, 0, false, 0), -EINVAL);
	for (int k = 0; k < 256; k++)
		MRC_T_EQ(mrc_qp_post_write(qp, 1, p.h[0].mem, 10, p.h[0].key, 0, 0, false, 0), 0);
	MRC_T_EQ(mrc_qp_post_write(qp, 1, p.h[0].mem, 10, p.h[0].key, 0, 0, false, 0), -ENOSPC);
	mrc_test_pair_destroy(&p);
	return MRC_TEST_OK;
}

/* One 1 MiB write sprayed over 8 planes, every burst arriving backwards. */
static int
test_write_sprayed_reordered(void)
{
	static struct wire w;
	struct mrc_test_pair_cfg cfg;
	struct mrc_test_pair p;
	struct mrc_cqe e;
	const uint32_t len = 1u << 20;

	mrc_test_pair_cfg_defaults(&cfg);
	SETUP(p, cfg);
	wire_reset(&w, (struct wire_cfg){.latency_ns = 5 * US, .reverse = true});
	mrc_test_fill(&p.h[0], 0, len, 42);
	MRC_T_EQ(mrc_qp_post_write(p.h[0].qp, 99, p.h[0].mem, len, p.h[0].key,
			 (uint64_t)(uintptr_t)p.h[1].mem + 4096, p.h[1].key, false, 0),
		0);
	run(&p, &w, 10000 * US);
	MRC_T_EQ(w.parse_errors, 0);
	MRC_T_EQ(mrc_cq_poll(p.h[0].cq, &e, 1), 1);
	MRC_T_EQ(e.wr_id, 99);
	MRC_T_EQ(e.status, MRC_CQE_OK);
	MRC_T_EQ(e.opcode, MRC_CQE_WRITE);
	MRC_T_MEMEQ(p.h[1].mem + 4096, p.h[0].mem, len);
	MRC_T_EQ(p.h[1].mem[4095], 0); /* nothing before the target */
	MRC_T_EQ(p.h[1].mem[4096 + len], 0);
	const struct mrc_qp_counters *c = mrc_qp_counters(p.h[0].qp);

	MRC_T_EQ(c->tx_data_pkts, 256);
	MRC_T_EQ(c->tx_retx_pkts, 0);
	MRC_T_EQ(mrc_qp_counters(p.h[1].qp)->rx_data_pkts, 256);
	for (int pl = 0; pl < 8; pl++) /* sprayed evenly: 32 data packets per plane, plus SACKs */
		MRC_T_ASSERT(w.pkts_per_plane[pl] >= 32, "plane %d carried %llu", pl,
			(unsigned long long)w.pkts_per_plane[pl]);
	return finish(&p);
}

/* Packets take the next hop's MAC from the live table, as another thread changes it. */
static int
test_next_hop_mac_read_live(void)
{
	static uint64_t nh[MRC_EV_MAX_PLANES];
	struct mrc_test_pair_cfg cfg;
	struct mrc_test_pair p;
	struct rte_mbuf *m[8];

	for (unsigned int pl = 0; pl < MRC_EV_MAX_PLANES; pl++)
		nh[pl] = mrc_qp_mac_word(&(struct rte_ether_addr){{0x02, 0xaa, 0, 0, 0, pl}});
	mrc_test_pair_cfg_defaults(&cfg);
	cfg.next_hop_mac = nh;
	SETUP(p, cfg);
	MRC_T_EQ(post_at(&p, 1, 0, 64 * 1024, NO_IMM), 0);
	for (int round = 0; round < 2; round++) {
		const uint16_t n = mrc_qp_tx_burst(p.h[0].qp, p.now, 0xff, &p.rand, m, RTE_DIM(m));

		MRC_T_ASSERT(n > 0, "round %d: nothing sent", round);
		for (uint16_t k = 0; k < n; k++) {
			const struct rte_ether_hdr *e =
				rte_pktmbuf_mtod(m[k], struct rte_ether_hdr *);

			MRC_T_EQ(mrc_qp_mac_word(&e->dst_addr), nh[m[k]->port]);
			MRC_T_EQ(e->dst_addr.addr_bytes[1], round == 0 ? 0xaa : 0xbb);
		}
		rte_pktmbuf_free_bulk(m, n);
		/* the resolver learns new MACs */
		for (unsigned int pl = 0; pl < MRC_EV_MAX_PLANES; pl++)
			__atomic_store_n(&nh[pl],
				mrc_qp_mac_word(
					&(struct rte_ether_addr){{0x02, 0xbb, 0, 0, 0, pl}}),
				__ATOMIC_RELAXED);
	}
	mrc_test_pair_destroy(&p);
	return MRC_TEST_OK;
}

/* Write-with-immediate completions arrive in order even when packets do not. */
static int
test_imm_completions_in_order(void)
{
	static struct wire w;
	struct mrc_test_pair_cfg cfg;
	struct mrc_test_pair p;
	struct mrc_cqe e[8];

	mrc_test_pair_cfg_defaults(&cfg);
	cfg.mtu = 1024;
	SETUP(p, cfg);
	wire_reset(&w, (struct wire_cfg){.latency_ns = 3 * US, .reverse = true});
	mrc_test_fill(&p.h[0], 0, 65536, 7);
	for (uint32_t k = 0; k < 4; k++)
		MRC_T_EQ(post_at(&p, k, k * 10000, 5000 + k, 0xa0 + k), 0);
	run(&p, &w, 10000 * US);
	MRC_T_EQ(mrc_cq_poll(p.h[1].cq, e, 8), 4);
	for (uint32_t k = 0; k < 4; k++) {
		MRC_T_EQ(e[k].opcode, MRC_CQE_RECV_IMM);
		MRC_T_EQ(e[k].imm, 0xa0 + k);
		MRC_T_EQ(e[k].byte_len, 5000 + k);
		MRC_T_MEMEQ(p.h[1].mem + k * 10000, p.h[0].mem + k * 10000, 5000 + k);
	}
	MRC_T_EQ(mrc_cq_poll(p.h[0].cq, e, 8), 4);
	for (uint32_t k = 0; k < 4; k++) {
		MRC_T_EQ(e[k].wr_id, k);
		MRC_T_EQ(e[k].opcode, MRC_CQE_WRITE_IMM);
	}
	return finish(&p);
}

/*
 * A CQ its poller drains starts over at its first entry: with many QPs
 * completing in turn, a ring that went round wrote each completion into a
 * line untouched for thousands of completions, a miss each time; started
 * over, it keeps writing the few lines its backlog spans. One not drained
 * goes on where it was.
 */
static int
test_cq_starts_over_when_drained(void)
{
	static struct wire w;
	struct mrc_test_pair_cfg cfg;
	struct mrc_test_pair p;
	struct mrc_cqe e[4];

	mrc_test_pair_cfg_defaults(&cfg);
	SETUP(p, cfg);
	wire_reset(&w, (struct wire_cfg){.latency_ns = 3 * US, .reverse = true});
	mrc_test_fill(&p.h[0], 0, 65536, 9);
	for (uint32_t k = 0; k < 3; k++)
		MRC_T_EQ(post_at(&p, k, k * 4096, 1000, NO_IMM), 0);
	run(&p, &w, 1000 * US);
	MRC_T_EQ(mrc_cq_poll(p.h[0].cq, e, 2), 2);
	MRC_T_EQ(p.h[0].cq->head, 2); /* one left: not started over */
	MRC_T_EQ(p.h[0].cq->tail, 3);
	MRC_T_EQ(mrc_cq_poll(p.h[0].cq, e, 4), 1);
	MRC_T_EQ(e[0].wr_id, 2);
	MRC_T_EQ(p.h[0].cq->head, 0);
	MRC_T_EQ(p.h[0].cq->tail, 0);
	MRC_T_EQ(post_at(&p, 3, 3 * 4096, 1000, NO_IMM), 0);
	run(&p, &w, 1000 * US);
	MRC_T_EQ(p.h[0].cq->tail, 1);
	MRC_T_EQ(p.h[0].cq->e[0].wr_id, 3); /* in the first entry */
	MRC_T_EQ(mrc_cq_poll(p.h[0].cq, e, 4), 1);
	MRC_T_EQ(e[0].wr_id, 3);
	MRC_T_EQ(e[0].status, MRC_CQE_OK);
	return finish(&p);
}

/* A write aimed outside the peer's region: refused, counted, never written. */
static int
refused_write(uint32_t rkey_delta, uint64_t raddr_off)
{
	static struct wire w;
	struct mrc_test_pair_cfg cfg;
	struct mrc_test_pair p;
	struct mrc_cqe e;

	mrc_test_pair_cfg_defaults(&cfg);
	SETUP(p, cfg);
	wire_reset(&w, (struct wire_cfg){.latency_ns = 2 * US});
	mrc_test_fill(&p.h[0], 0, 8192, 3);
	MRC_T_EQ(mrc_qp_post_write(p.h[0].qp, 5, p.h[0].mem, 8192, p.h[0].key,
			 (uint64_t)(uintptr_t)p.h[1].mem + raddr_off, p.h[1].key + rkey_delta,
			 false, 0),
		0);
	run(&p, &w, 1000 * US);
	for (size_t i = 0; i < p.h[1].mem_len; i++)
		MRC_T_ASSERT(p.h[1].mem[i] == 0, "byte %zu written", i);
	MRC_T_ASSERT(mrc_qp_counters(p.h[1].qp)->rx_bad_rkey >= 1, "refusal counted");
	MRC_T_EQ(mrc_qp_counters(p.h[1].qp)->rx_data_pkts, 0);
	MRC_T_EQ(mrc_qp_state(p.h[0].qp), MRC_QP_ERROR);
	MRC_T_EQ(mrc_qp_error(p.h[0].qp), MRC_QP_ERR_REMOTE_OP);
	MRC_T_EQ(mrc_cq_poll(p.h[0].cq, &e, 1), 1);
	MRC_T_EQ(e.wr_id, 5);
	MRC_T_EQ(e.status, MRC_CQE_FLUSHED);
	MRC_T_EQ(mrc_qp_state(p.h[1].qp), MRC_QP_RTS); /* the responder is fine */
	run(&p, &w, 1000 * US);
	return drained_no_leak(&p, &w);
}

/*
 * Zero-based regions: peers address them by offset. A write lands at the
 * offset; a write aimed at the region's pointer value (which a peer of a
 * zero-based region has no business knowing) is out of bounds.
 */
static int
test_zero_based_region(void)
{
	static struct wire w;
	struct mrc_test_pair_cfg cfg;
	struct mrc_test_pair p;
	struct mrc_cqe e;

	mrc_test_pair_cfg_defaults(&cfg);
	cfg.zero_based = true;
	SETUP(p, cfg);
	wire_reset(&w, (struct wire_cfg){.latency_ns = 2 * US});
	mrc_test_fill(&p.h[0], 0, 3 * 4096, 5);
	MRC_T_EQ(mrc_qp_post_write(p.h[0].qp, 1, p.h[0].mem, 3 * 4096, p.h[0].key, 8192, p.h[1].key,
			 true, 0x77),
		0);
	run(&p, &w, 1000 * US);
	MRC_T_EQ(mrc_cq_poll(p.h[0].cq, &e, 1), 1);
	MRC_T_EQ(e.status, MRC_CQE_OK);
	MRC_T_MEMEQ(p.h[1].mem + 8192, p.h[0].mem, 3 * 4096);
	MRC_T_EQ(p.h[1].mem[8191], 0);
	MRC_T_EQ(p.h[1].mem[8192 + 3 * 4096], 0);
	MRC_T_EQ(mrc_cq_poll(p.h[1].cq, &e, 1), 1);
	MRC_T_EQ(e.imm, 0x77);
	/* Local posts still name local pointers: an offset is not one. */
	MRC_T_EQ(mrc_qp_post_write(p.h[0].qp, 2, (void *)(uintptr_t)4096, 4096, p.h[0].key, 0,
			 p.h[1].key, false, 0),
		-EINVAL);
	/* The pointer value as a remote address: beyond [0, len), refused. */
	MRC_T_EQ(post_at(&p, 3, 0, 4096, NO_IMM), 0);
	run(&p, &w, 1000 * US);
	MRC_T_ASSERT(mrc_qp_counters(p.h[1].qp)->rx_bad_rkey >= 1, "refusal counted");
	MRC_T_EQ(mrc_qp_state(p.h[0].qp), MRC_QP_ERROR);
	return drained_no_leak(&p, &w);
}

/*
 * QPs of different lanes (a host's shards, on different lcores) count their
 * payload attachments on different shared infos of the region, each on its
 * own cache lines. With one shared info for all of them, DPDK's count
 * (a plain store when it reads 1) could lose an attachment when two lcores
 * attached at once, and its writes moved one line between cores on every
 * packet. The region stays busy while any lane holds a packet.
 */
static int
test_region_lanes_per_lcore(void)
{
	struct mrc_test_pair_cfg cfg;
	struct mrc_test_pair p;
	struct rte_mbuf *m[8];
	struct mrc_mr_table *t;
	struct mrc_mr *mr;
	uint16_t n;

	mrc_test_pair_cfg_defaults(&cfg);
	SETUP(p, cfg);
	t = p.h[0].mrs;
	mr = &t->mr[p.h[0].key >> 8];
	for (unsigned int a = 0; a < MRC_MR_LANES; a++)
		for (unsigned int b = a + 1; b < MRC_MR_LANES; b++) {
			const uintptr_t x = (uintptr_t)mrc_mr_shinfo(t, mr, a);
			const uintptr_t y = (uintptr_t)mrc_mr_shinfo(t, mr, b);

			MRC_T_ASSERT(x / RTE_CACHE_LINE_SIZE != y / RTE_CACHE_LINE_SIZE,
				"lanes %u and %u share a cache line", a, b);
		}
	MRC_T_ASSERT((uintptr_t)mrc_mr_shinfo(t, mr, 0) >= (uintptr_t)&t->mr[t->n_slots],
		"the lanes are not on the slots' lines");
	mrc_qp_set_mr_lane(p.h[0].qp, 3);
	MRC_T_EQ(post_at(&p, 1, 0, 64 * 1024, NO_IMM), 0);
	n = mrc_qp_tx_burst(p.h[0].qp, p.now, 0xff, &p.rand, m, RTE_DIM(m));
	MRC_T_EQ(n, RTE_DIM(m));
	for (uint16_t k = 0; k < n; k++)
		MRC_T_ASSERT(m[k]->next != NULL && m[k]->next->shinfo == mrc_mr_shinfo(t, mr, 3),
			"packet %u attached on lane 3", k);
	MRC_T_EQ(rte_mbuf_ext_refcnt_read(mrc_mr_shinfo(t, mr, 3)), 1 + n);
	MRC_T_EQ(rte_mbuf_ext_refcnt_read(mrc_mr_shinfo(t, mr, 0)), 1);
	MRC_T_EQ(mrc_mr_attached(t, p.h[0].key), n);
	MRC_T_EQ(mrc_mr_deregister(t, p.h[0].key), -EBUSY);
	rte_pktmbuf_free_bulk(m, n);
	MRC_T_EQ(mrc_mr_attached(t, p.h[0].key), 0);
	mrc_test_pair_destroy(&p);
	return MRC_TEST_OK;
}

/*
 * Verbs lets a region go after its completions, whatever the wire still
 * carries: retiring it makes the key stop matching at once, while its slot
 * keeps counting the packets in flight (no new region may take it, or its
 * counts would be reset under them) until the last one is freed.
 */
static int
test_region_retired_while_packets_hold_it(void)
{
	struct mrc_test_pair_cfg cfg;
	struct mrc_test_pair p;
	struct rte_mbuf *m[8];
	struct mrc_mr_table *t;
	uint32_t key, slot, key2;
	uint64_t bad;
	uint16_t n;

	mrc_test_pair_cfg_defaults(&cfg);
	SETUP(p, cfg);
	t = p.h[0].mrs;
	key = p.h[0].key;
	slot = key >> 8;
	MRC_T_EQ(mrc_qp_post_write(p.h[0].qp, 1, p.h[0].mem, 32 * 1024, key,
			 (uint64_t)(uintptr_t)p.h[1].mem, p.h[1].key, false, 0),
		0);
	n = mrc_qp_tx_burst(p.h[0].qp, p.now, 0xff, &p.rand, m, RTE_DIM(m));
	MRC_T_ASSERT(n > 1, "%u packets", n);
	MRC_T_EQ(mrc_mr_deregister(t, key), -EBUSY); /* the strict call refuses */
	MRC_T_EQ(mrc_mr_retire(t, key), 1);	     /* retired, packets still attached */
	bad = t->stats.bad_key;
	MRC_T_ASSERT(
		mrc_mr_check_local(t, 0, key, p.h[0].mem, 64, MRC_MR_ACCESS_LOCAL_READ) == NULL,
		"the retired key no longer matches");
	MRC_T_U64_EQ(t->stats.bad_key, bad + 1);
	MRC_T_EQ(mrc_mr_retire(t, key), -ENOENT);
	MRC_T_EQ(mrc_mr_slot_attached(t, key), n);
	/* Every other slot free: a new region must not land on the retired one. */
	for (uint32_t k = 0; k < t->n_slots; k++) {
		key2 = mrc_mr_register(t, p.h[0].mem, 4096, 0, MRC_MR_ACCESS_LOCAL_READ);
		if (key2 == 0)
			break;
		MRC_T_ASSERT(key2 >> 8 != slot, "slot %u taken while packets hold it", slot);
	}
	MRC_T_EQ(mrc_mr_reap(t, key), -EBUSY);
	rte_pktmbuf_free_bulk(m, n - 1);
	MRC_T_EQ(mrc_mr_reap(t, key), -EBUSY); /* one still out */
	rte_pktmbuf_free(m[n - 1]);
	MRC_T_EQ(mrc_mr_slot_attached(t, key), 0);
	MRC_T_EQ(mrc_mr_reap(t, key), 0);
	MRC_T_EQ(mrc_mr_reap(t, key), -ENOENT);
	key2 = mrc_mr_register(t, p.h[0].mem, 4096, 0, MRC_MR_ACCESS_LOCAL_READ);
	MRC_T_EQ(key2 >> 8, slot); /* the only free slot again */
	MRC_T_ASSERT(key2 != key, "a new generation: the old key never matches it");
	mrc_test_pair_destroy(&p);
	return MRC_TEST_OK;
}

/*
 * A region let go while a message from it is posted and not yet sent (an
 * application deregistering it with work outstanding): its memory may be
 * unmapped next, so not one packet of it is built; the QP fails (LOCAL) and
 * the message completes flushed, as a NIC finding the region gone would.
 */
static int
test_region_let_go_under_a_posted_message(void)
{
	struct mrc_test_pair_cfg cfg;
	struct mrc_test_pair p;
	struct rte_mbuf *m[8];
	struct mrc_cqe e[4];
	uint16_t n;

	mrc_test_pair_cfg_defaults(&cfg);
	SETUP(p, cfg);
	MRC_T_EQ(mrc_qp_post_write(p.h[0].qp, 7, p.h[0].mem, 32 * 1024, p.h[0].key,
			 (uint64_t)(uintptr_t)p.h[1].mem, p.h[1].key, false, 0),
		0);
	MRC_T_EQ(mrc_mr_retire(p.h[0].mrs, p.h[0].key), 0); /* nothing attached: freed */
	n = mrc_qp_tx_burst(p.h[0].qp, p.now, 0xff, &p.rand, m, RTE_DIM(m));
	rte_pktmbuf_free_bulk(m, n);
	MRC_T_EQ(n, 0);
	MRC_T_EQ(mrc_qp_state(p.h[0].qp), MRC_QP_ERROR);
	MRC_T_EQ(mrc_qp_error(p.h[0].qp), MRC_QP_ERR_LOCAL);
	MRC_T_EQ(mrc_cq_poll(p.h[0].cq, e, RTE_DIM(e)), 1);
	MRC_T_U64_EQ(e[0].wr_id, 7);
	MRC_T_EQ(e[0].status, MRC_CQE_FLUSHED);
	mrc_test_pair_destroy(&p);
	return MRC_TEST_OK;
}

/* Nothing attached: retired and freed at once, as mrc_mr_deregister() would. */
static int
test_region_retired_idle_is_freed(void)
{
	static union {
		struct mrc_mr_table t;
		uint8_t b[8192];
	} u;
	static uint8_t mem[4096];
	struct mrc_mr_table *t = &u.t;
	uint32_t key;

	MRC_T_ASSERT(mrc_mr_table_memsize(4) <= sizeof(u), "table fits");
	MRC_T_EQ(mrc_mr_table_init(t, 4), 0);
	key = mrc_mr_register(t, mem, sizeof(mem), 0, MRC_MR_ACCESS_LOCAL_READ);
	MRC_T_ASSERT(key != 0, "registered");
	MRC_T_EQ(t->used, 1);
	MRC_T_EQ(mrc_mr_retire(t, key), 0);
	MRC_T_EQ(t->used, 0);
	MRC_T_EQ(mrc_mr_reap(t, key), -ENOENT);
	MRC_T_EQ(mrc_mr_retire(t, 0), -ENOENT);
	return MRC_TEST_OK;
}

/*
 * A NIC fetches payload segments by their IOVA: each one's is the region's
 * IOVA plus the segment's offset in the region (mrcd gives an application
 * region the IOVA it mapped for DMA, app/mrcd/apps/mrcd_apps_dma.c).
 */
static int
test_payload_iova_is_regions(void)
{
	const rte_iova_t iova = 0x40000000000ull; /* unlike any address: a mix-up shows */
	struct mrc_test_pair_cfg cfg;
	struct mrc_test_pair p;
	struct rte_mbuf *m[8];
	struct mrc_mr *mr;
	uint16_t n;

	mrc_test_pair_cfg_defaults(&cfg);
	SETUP(p, cfg);
	mr = &p.h[0].mrs->mr[p.h[0].key >> 8];
	mr->iova = iova;
	MRC_T_EQ(mrc_qp_post_write(p.h[0].qp, 1, p.h[0].mem + 100, 32 * 1024, p.h[0].key,
			 (uint64_t)(uintptr_t)p.h[1].mem, p.h[1].key, false, 0),
		0);
	n = mrc_qp_tx_burst(p.h[0].qp, p.now, 0xff, &p.rand, m, RTE_DIM(m));
	MRC_T_ASSERT(n > 1, "%u packets", n);
	for (uint16_t k = 0; k < n; k++) {
		const struct rte_mbuf *pl = m[k]->next;
		const uint64_t off = (uint64_t)((uint8_t *)pl->buf_addr - mr->addr);

		MRC_T_ASSERT(RTE_MBUF_HAS_EXTBUF(pl), "packet %u's payload is the region's", k);
		MRC_T_U64_EQ(pl->buf_iova, iova + off);
		MRC_T_U64_EQ(rte_pktmbuf_iova(pl), iova + off);
		MRC_T_ASSERT(off >= 100 && off < 100 + 32 * 1024, "offset %lu inside the post",
			(unsigned long)off);
	}
	rte_pktmbuf_free_bulk(m, n);
	mrc_test_pair_destroy(&p);
	return MRC_TEST_OK;
}

/* A region mapped here at one address that peers (and the posts) name by another's. */
static int
test_region_at_another_address(void)
{
	static uint8_t mem[8192];
	static union {
		struct mrc_mr_table t;
		uint8_t b[4096];
	} u;
	struct mrc_mr_table *t = &u.t;
	const uint64_t va = 0x7f0000001000ull;
	struct mrc_mr *mr;
	uint32_t key;

	MRC_T_ASSERT(mrc_mr_table_memsize(4) <= sizeof(u), "table fits");
	MRC_T_EQ(mrc_mr_table_init(t, 4), 0);
	key = mrc_mr_register_va(t, 7, mem, va, sizeof(mem), 0,
		MRC_MR_ACCESS_LOCAL_READ | MRC_MR_ACCESS_REMOTE_WRITE);
	MRC_T_ASSERT(key != 0, "registered");
	mr = mrc_mr_check(t, 7, key, va + 100, 50, MRC_MR_ACCESS_REMOTE_WRITE);
	MRC_T_ASSERT(mr != NULL, "the other address space is the region's");
	MRC_T_ASSERT(mrc_mr_ptr(mr, va + 100) == mem + 100, "and lands in our mapping");
	MRC_T_ASSERT(mrc_mr_check(t, 7, key, va - 1, 1, MRC_MR_ACCESS_REMOTE_WRITE) == NULL,
		"below it refused");
	MRC_T_ASSERT(mrc_mr_check(t, 7, key, va + sizeof(mem) - 10, 11,
			     MRC_MR_ACCESS_REMOTE_WRITE) == NULL,
		"past it refused");
	MRC_T_ASSERT(mrc_mr_check(t, 7, key, (uint64_t)(uintptr_t)mem, 1,
			     MRC_MR_ACCESS_REMOTE_WRITE) == NULL,
		"our own pointer is not its address");
	MRC_T_ASSERT(mrc_mr_check_local(t, 7, key, mem + 10, 10, MRC_MR_ACCESS_LOCAL_READ) != NULL,
		"local posts name our mapping");
	/* Another domain's QP: refused both ways, counted as such, before the bounds. */
	MRC_T_ASSERT(mrc_mr_check(t, 8, key, va + 100, 50, MRC_MR_ACCESS_REMOTE_WRITE) == NULL,
		"a peer of another domain refused");
	MRC_T_ASSERT(mrc_mr_check_local(t, 0, key, mem + 10, 10, MRC_MR_ACCESS_LOCAL_READ) == NULL,
		"a post of the daemon's domain refused");
	MRC_T_U64_EQ(t->stats.other_pd, 2);
	MRC_T_U64_EQ(t->stats.out_of_bounds, 3);
	MRC_T_EQ(mrc_mr_register_va(
			 t, 7, mem, UINT64_MAX - 10, sizeof(mem), 0, MRC_MR_ACCESS_LOCAL_READ),
		0);
	MRC_T_EQ(mrc_mr_deregister(t, key), 0);
	MRC_T_ASSERT(mrc_mr_check(t, 7, key, va, 1, MRC_MR_ACCESS_REMOTE_WRITE) == NULL,
		"its key stops matching");
	return MRC_TEST_OK;
}

static int
test_bad_rkey_refused(void)
{
	return refused_write(0x100, 0); /* another slot's key */
}

static int
test_out_of_region_refused(void)
{
	/* Each packet is checked on its own: these start inside and run past the end. */
	return refused_write(0, (4u << 20) - 100);
}

/*
 * Regions of another protection domain, at both ends of a pair of the
 * daemon's domain (0): a peer's write aimed at one with its right key and
 * address is refused and writes nothing, and a post naming one fails.
 */
static int
test_other_domain_refused(void)
{
	static struct wire w;
	static uint8_t theirs[8192], ours[8192];
	struct mrc_test_pair_cfg cfg;
	struct mrc_test_pair p;
	struct mrc_cqe e;
	uint32_t key, our_key;

	mrc_test_pair_cfg_defaults(&cfg);
	SETUP(p, cfg);
	wire_reset(&w, (struct wire_cfg){.latency_ns = 2 * US});
	memset(theirs, 0, sizeof(theirs));
	key = mrc_mr_register_va(p.h[1].mrs, 9, theirs, (uint64_t)(uintptr_t)theirs, sizeof(theirs),
		0, MRC_MR_ACCESS_LOCAL_READ | MRC_MR_ACCESS_REMOTE_WRITE);
	our_key = mrc_mr_register_va(p.h[0].mrs, 9, ours, (uint64_t)(uintptr_t)ours, sizeof(ours),
		0, MRC_MR_ACCESS_LOCAL_READ);
	MRC_T_ASSERT(key != 0 && our_key != 0, "registered");
	MRC_T_EQ(mrc_qp_post_write(p.h[0].qp, 4, ours, 64, our_key, (uint64_t)(uintptr_t)p.h[1].mem,
			 p.h[1].key, false, 0),
		-EINVAL);
	MRC_T_U64_EQ(p.h[0].mrs->stats.other_pd, 1);
	mrc_test_fill(&p.h[0], 0, 4096, 3);
	MRC_T_EQ(mrc_qp_post_write(p.h[0].qp, 5, p.h[0].mem, 4096, p.h[0].key,
			 (uint64_t)(uintptr_t)theirs, key, false, 0),
		0);
	run(&p, &w, 1000 * US);
	for (size_t i = 0; i < sizeof(theirs); i++)
		MRC_T_ASSERT(theirs[i] == 0, "byte %zu of the other domain's region written", i);
	MRC_T_ASSERT(mrc_qp_counters(p.h[1].qp)->rx_bad_rkey >= 1, "refusal counted");
	MRC_T_ASSERT(p.h[1].mrs->stats.other_pd >= 1, "as another domain's key");
	MRC_T_EQ(mrc_qp_counters(p.h[1].qp)->rx_data_pkts, 0);
	MRC_T_EQ(mrc_qp_state(p.h[0].qp), MRC_QP_ERROR);
	MRC_T_EQ(mrc_qp_error(p.h[0].qp), MRC_QP_ERR_REMOTE_OP);
	MRC_T_EQ(mrc_cq_poll(p.h[0].cq, &e, 1), 1);
	MRC_T_EQ(e.wr_id, 5);
	MRC_T_EQ(mrc_qp_state(p.h[1].qp), MRC_QP_RTS);
	run(&p, &w, 1000 * US);
	return drained_no_leak(&p, &w);
}

static bool
drop_all_data(void *ctx, const struct mrc_pkt *v)
{
	(void)ctx;
	return mrc_opcode_is_data(v->bth.opcode) || v->bth.opcode == MRC_OP_PROBE;
}

static bool
drop_everything(void *ctx, const struct mrc_pkt *v)
{
	(void)ctx;
	(void)v;
	return true;
}

/*
 * A peer that answers nothing: the sender must not flood the void. Its
 * retired EVs are not probed while nothing at all comes back (the
 * reliability probe already asks whether the peer is there), and its
 * resends thin out.
 */
static int
test_silent_peer_is_not_flooded(void)
{
	static struct wire w;
	struct mrc_test_pair_cfg cfg;
	struct mrc_test_pair p;
	const struct mrc_qp_counters *c;
	uint64_t probes_mid, retx_mid;

	mrc_test_pair_cfg_defaults(&cfg);
	cfg.attr.timeout = 8; /* 262 us base */
	SETUP(p, cfg);
	wire_reset(&w, (struct wire_cfg){.latency_ns = 2 * US, .drop = drop_everything});
	MRC_T_EQ(post_at(&p, 1, 0, 256 * 1024, NO_IMM), 0);
	run(&p, &w, 50000 * US);
	c = mrc_qp_counters(p.h[0].qp);
	probes_mid = c->tx_ev_probes;
	retx_mid = c->tx_retx_pkts;
	run(&p, &w, 150000 * US);
	printf("  silent peer: %llu EV probes and %llu resends in the first 50 ms, "
	       "%llu and %llu in the next 150 ms\n",
		(unsigned long long)probes_mid, (unsigned long long)retx_mid,
		(unsigned long long)(c->tx_ev_probes - probes_mid),
		(unsigned long long)(c->tx_retx_pkts - retx_mid));
	MRC_T_ASSERT(c->tx_ev_probes - probes_mid <= 64, "EV probes kept going: %llu",
		(unsigned long long)(c->tx_ev_probes - probes_mid));
	MRC_T_ASSERT((c->tx_retx_pkts - retx_mid) < retx_mid, "resends did not thin out");
	MRC_T_EQ(mrc_qp_state(p.h[0].qp), MRC_QP_RTS); /* retry_exp 25: keep trying */
	wire_drain(&w);
	mrc_test_pair_destroy(&p);
	return MRC_TEST_OK;
}

static int
test_retry_budget_exhausted(void)
{
	static struct wire w;
	struct mrc_test_pair_cfg cfg;
	struct mrc_test_pair p;
	struct mrc_cqe e;

	mrc_test_pair_cfg_defaults(&cfg);
	cfg.attr.timeout = 0; /* 1 us base */
	cfg.attr.retry_linear = 2;
	cfg.attr.retry_exp = 2;
	SETUP(p, cfg);
	wire_reset(&w, (struct wire_cfg){.latency_ns = 2 * US, .drop = drop_all_data});
	MRC_T_EQ(post_at(&p, 11, 0, 4096, NO_IMM), 0);
	run(&p, &w, 100000 * US);
	MRC_T_EQ(mrc_qp_state(p.h[0].qp), MRC_QP_ERROR);
	MRC_T_EQ(mrc_qp_error(p.h[0].qp), MRC_QP_ERR_RETRY_EXCEEDED);
	MRC_T_STREQ(mrc_qp_error_name(mrc_qp_error(p.h[0].qp)), "retry count exceeded");
	MRC_T_EQ(mrc_cq_poll(p.h[0].cq, &e, 1), 1);
	MRC_T_EQ(e.status, MRC_CQE_FLUSHED);
	MRC_T_EQ(mrc_qp_rel_tx(p.h[0].qp)->stats.rto_fired, 5);
	return drained_no_leak(&p, &w);
}

struct drop_psn {
	uint32_t psn;
	int left;
	int probes; /* drop_once_unprobed: probes still to drop */
};

static bool
drop_once(void *ctx, const struct mrc_pkt *v)
{
	struct drop_psn *d = ctx;

	if (mrc_opcode_is_data(v->bth.opcode) && v->bth.psn == d->psn && d->left > 0) {
		d->left--;
		return true;
	}
	return false;
}

/*
 * The responder tracks 4 Write-IMM messages at once; the requester has 16
 * posted and the first packet is lost, so the responder's next immediate
 * stays at message 0 until the resend. A requester that started message 4
 * meanwhile would be NACKed (UNEXP_EVENT) into ERROR: it must hold it back.
 */
static int
test_peer_wimm_holds_back_write_imm(void)
{
	static struct wire w;
	struct mrc_test_pair_cfg cfg;
	struct mrc_test_pair p;
	struct drop_psn d = {.psn = 0, .left = 1};
	struct mrc_cqe e[32];

	mrc_test_pair_cfg_defaults(&cfg);
	cfg.mtu = 1024;
	cfg.attr.wimm = 4;
	cfg.attr.peer_wimm = 4;
	SETUP(p, cfg);
	wire_reset(&w, (struct wire_cfg){.latency_ns = 3 * US, .drop = drop_once, .ctx = &d});
	mrc_test_fill(&p.h[0], 0, 16 * 2048, 9);
	for (uint32_t k = 0; k < 16; k++)
		MRC_T_EQ(post_at(&p, k, k * 2048, 2048, 0xb0 + k), 0);
	run(&p, &w, 100000 * US);
	MRC_T_EQ(d.left, 0);
	MRC_T_EQ(mrc_qp_counters(p.h[1].qp)->rx_wimm_exceeded, 0);
	MRC_T_ASSERT(mrc_qp_counters(p.h[0].qp)->tx_wimm_waits > 0, "messages were held back");
	MRC_T_EQ(mrc_qp_state(p.h[0].qp), MRC_QP_RTS);
	MRC_T_EQ(mrc_qp_state(p.h[1].qp), MRC_QP_RTS);
	MRC_T_EQ(mrc_cq_poll(p.h[1].cq, e, 32), 16);
	for (uint32_t k = 0; k < 16; k++) {
		MRC_T_EQ(e[k].opcode, MRC_CQE_RECV_IMM);
		MRC_T_EQ(e[k].imm, 0xb0 + k);
	}
	MRC_T_MEMEQ(p.h[1].mem, p.h[0].mem, 16 * 2048);
	MRC_T_EQ(mrc_cq_poll(p.h[0].cq, e, 32), 16);
	for (uint32_t k = 0; k < 16; k++)
		MRC_T_EQ(e[k].status, MRC_CQE_OK);
	return drained_no_leak(&p, &w);
}

/* mrc_qp_mem_parts() adds up to mrc_qp_mem_bytes(). */
static int
parts_add_up(const struct mrc_qp *qp)
{
	struct mrc_qp_mem m;

	mrc_qp_mem_parts(qp, &m);
	MRC_T_EQ(m.qp + m.sq + m.ctrl + m.ev_pool + m.ev_stats + m.responder + m.imm + m.requester +
			 m.trk,
		mrc_qp_mem_bytes(qp));
	return MRC_TEST_OK;
}

/*
 * Write-IMM tables lent by a pool of one, shared by both QPs: the
 * responder holds it only while immediates wait (the first packet is lost
 * once and bursts arrive backwards, so they do wait), then gives it back;
 * completions stay in order, nothing is refused, and the account follows
 * the table.
 */
static int
test_imm_table_lent(void)
{
	static struct wire w;
	struct mrc_test_pair_cfg cfg;
	struct mrc_test_pair p;
	struct mrc_trk_pool *tables;
	struct mrc_qp_mem m;
	struct mrc_cqe e[8];
	struct drop_psn d = {.psn = 0, .left = 1};
	size_t idle;

	MRC_T_RUN(setup_lent(&p, &cfg, LENT_IMM_TABLE, &tables));
	MRC_T_ASSERT(!mrc_qp_imm_held(p.h[1].qp), "an idle responder holds no table");
	mrc_qp_mem_parts(p.h[1].qp, &m);
	MRC_T_EQ(m.imm, 0);
	MRC_T_RUN(parts_add_up(p.h[1].qp));
	idle = mrc_qp_mem_bytes(p.h[1].qp);
	wire_reset(
		&w, (struct wire_cfg){
			    .latency_ns = 3 * US, .reverse = true, .drop = drop_once, .ctx = &d});
	mrc_test_fill(&p.h[0], 0, 65536, 9);
	MRC_T_RUN(post_four(&p, true, 0xc0));
	/* Step until an immediate waits for its message's other packets. */
	bool seen_held = false;

	for (int step = 0; step < 2000 && !seen_held; step++) {
		run(&p, &w, 100);
		if (mrc_qp_imm_held(p.h[1].qp)) {
			seen_held = true;
			MRC_T_EQ(mrc_qp_mem_bytes(p.h[1].qp), idle + tables->block_bytes);
			MRC_T_RUN(parts_add_up(p.h[1].qp));
		}
	}
	MRC_T_ASSERT(seen_held, "the responder never held the table");
	run(&p, &w, 10000 * US);
	MRC_T_EQ(mrc_cq_poll(p.h[1].cq, e, 8), 4);
	for (uint32_t k = 0; k < 4; k++) {
		MRC_T_EQ(e[k].opcode, MRC_CQE_RECV_IMM);
		MRC_T_EQ(e[k].imm, 0xc0 + k);
		MRC_T_EQ(e[k].byte_len, 3000 + k);
	}
	MRC_T_RUN(four_placed(&p));
	MRC_T_EQ(mrc_qp_counters(p.h[1].qp)->rx_imm_no_table, 0);
	MRC_T_ASSERT(!mrc_qp_imm_held(p.h[1].qp), "the table went back");
	MRC_T_EQ(mrc_qp_mem_bytes(p.h[1].qp), idle);
	return finish_lent(&p, tables);
}

/*
 * Control answer rings lent by a pool of one, shared by both QPs: neither
 * idle QP holds one (nor counts it), the responder holds it from the
 * arrival it answers to the tx burst that sends the answers, and every
 * message completes with no answer dropped.
 */
static int
test_ctrl_ring_lent(void)
{
	static struct wire w;
	struct mrc_test_pair_cfg cfg;
	struct mrc_test_pair p;
	struct mrc_trk_pool *rings;
	struct mrc_qp_mem m;
	struct mrc_cqe e[8];
	size_t idle;
	bool seen_held = false;

	MRC_T_RUN(setup_lent(&p, &cfg, LENT_CTRL_RING, &rings));
	for (int i = 0; i < 2; i++) {
		mrc_qp_mem_parts(p.h[i].qp, &m);
		MRC_T_EQ(m.ctrl, 0);
		MRC_T_RUN(parts_add_up(p.h[i].qp));
	}
	idle = mrc_qp_mem_bytes(p.h[1].qp);
	wire_reset(&w, (struct wire_cfg){.latency_ns = 3 * US});
	mrc_test_fill(&p.h[0], 0, 65536, 5);
	MRC_T_RUN(post_four(&p, false, 0));
	for (int step = 0; step < 2000 && !seen_held; step++) {
		run(&p, &w, 100);
		if (mrc_trk_pool_in_use(rings) == 1) {
			seen_held = true;
			mrc_qp_mem_parts(p.h[1].qp, &m);
			MRC_T_EQ(m.ctrl, rings->block_bytes);
			MRC_T_EQ(mrc_qp_mem_bytes(p.h[1].qp), idle + rings->block_bytes);
			MRC_T_RUN(parts_add_up(p.h[1].qp));
		}
	}
	MRC_T_ASSERT(seen_held, "the responder never held the ring");
	run(&p, &w, 10000 * US);
	MRC_T_EQ(mrc_cq_poll(p.h[0].cq, e, 8), 4);
	MRC_T_RUN(four_placed(&p));
	MRC_T_EQ(mrc_qp_counters(p.h[1].qp)->tx_ctrl_dropped, 0);
	MRC_T_EQ(mrc_qp_counters(p.h[0].qp)->tx_retx_pkts, 0);
	MRC_T_ASSERT(mrc_qp_counters(p.h[1].qp)->tx_sacks > 0, "SACKs were sent");
	MRC_T_ASSERT(rings->stats.lent > 0, "the ring was lent");
	MRC_T_EQ(mrc_qp_mem_bytes(p.h[1].qp), idle);
	return finish_lent(&p, rings);
}

/*
 * No ring free (another QP holds the only one): the responder's answers
 * are dropped and counted, not written anywhere; once the ring is back the
 * sender's resends are answered and the message completes intact.
 */
static int
test_ctrl_ring_pool_empty(void)
{
	static struct wire w;
	struct mrc_test_pair_cfg cfg;
	struct mrc_test_pair p;
	struct mrc_trk_pool *rings;
	struct mrc_cqe e[2];
	void *taken;

	MRC_T_RUN(setup_lent(&p, &cfg, LENT_CTRL_RING, &rings));
	taken = mrc_trk_pool_get(rings);
	MRC_T_ASSERT(taken != NULL, "the only ring");
	wire_reset(&w, (struct wire_cfg){.latency_ns = 3 * US});
	mrc_test_fill(&p.h[0], 0, 65536, 6);
	MRC_T_EQ(post_at(&p, 1, 0, 3000, NO_IMM), 0);
	run(&p, &w, 200 * US);
	MRC_T_ASSERT(mrc_qp_counters(p.h[1].qp)->tx_ctrl_dropped > 0, "answers dropped");
	MRC_T_EQ(mrc_qp_counters(p.h[1].qp)->tx_sacks, 0);
	MRC_T_EQ(mrc_cq_poll(p.h[0].cq, e, 2), 0);
	mrc_trk_pool_put(rings, taken);
	run(&p, &w, 100000 * US);
	MRC_T_EQ(mrc_cq_poll(p.h[0].cq, e, 2), 1);
	MRC_T_EQ(e[0].status, MRC_CQE_OK);
	MRC_T_MEMEQ(p.h[1].mem, p.h[0].mem, 3000);
	wire_drain(&w);
	return finish_lent(&p, rings);
}

/*
 * No table free, ever (another QP holds the only one): an immediate that
 * arrives before the rest of its message is refused with a NACK
 * NO_PKT_BUFFER and counted, the rest of the message is placed, and the
 * sender's resend, now next in order, is delivered without a table: in
 * order, intact. Immediates arriving in order never need one.
 */
static int
test_imm_table_pool_empty(void)
{
	static struct wire w;
	struct mrc_test_pair_cfg cfg;
	struct mrc_test_pair p;
	struct mrc_trk_pool *tables;
	struct mrc_cqe e[8];
	void *taken;

	MRC_T_RUN(setup_lent(&p, &cfg, LENT_IMM_TABLE, &tables));
	taken = mrc_trk_pool_get(tables);
	MRC_T_ASSERT(taken != NULL, "the table");
	wire_reset(&w, (struct wire_cfg){.latency_ns = 3 * US});
	w.reverse = true; /* the immediate (the last packet) arrives first */
	mrc_test_fill(&p.h[0], 0, 65536, 5);
	MRC_T_EQ(post_at(&p, 1, 0, 4000, 0x5a), 0);
	run(&p, &w, 10000 * US);
	const struct mrc_qp_counters *rc = mrc_qp_counters(p.h[1].qp);

	MRC_T_EQ(rc->rx_imm_no_table, 1);
	MRC_T_EQ(rc->rx_data_pkts, 4); /* three at once, the immediate's on its resend */
	MRC_T_EQ(rc->imm_delivered, 1);
	MRC_T_EQ(mrc_cq_poll(p.h[1].cq, e, 8), 1);
	MRC_T_EQ(e[0].opcode, MRC_CQE_RECV_IMM);
	MRC_T_EQ(e[0].imm, 0x5a);
	MRC_T_EQ(e[0].byte_len, 4000);
	MRC_T_MEMEQ(p.h[1].mem, p.h[0].mem, 4000);
	MRC_T_EQ(mrc_cq_poll(p.h[0].cq, e, 8), 1);
	MRC_T_EQ(e[0].status, MRC_CQE_OK);
	MRC_T_EQ(mrc_qp_state(p.h[0].qp), MRC_QP_RTS);
	MRC_T_EQ(mrc_qp_counters(p.h[0].qp)->tx_retx_pkts, 1);
	MRC_T_ASSERT(mrc_qp_rel_tx(p.h[0].qp)->stats.nacks > 0, "the refusal came back as a NACK");

	/* In order: nothing is refused, and the pool is never asked. */
	w.reverse = false;
	for (uint32_t k = 0; k < 4; k++)
		MRC_T_EQ(post_at(&p, 10 + k, k * 10000, 3000, 0x60 + k), 0);
	run(&p, &w, 10000 * US);
	MRC_T_EQ(mrc_cq_poll(p.h[1].cq, e, 8), 4);
	for (uint32_t k = 0; k < 4; k++)
		MRC_T_EQ(e[k].imm, 0x60 + k);
	MRC_T_EQ(rc->rx_imm_no_table, 1);
	MRC_T_EQ(tables->stats.lent, 1); /* the test's own */
	mrc_trk_pool_put(tables, taken);
	return finish_lent(&p, tables);
}

/* A responder reset or destroyed with an immediate waiting gives its table back, clear. */
static int
test_imm_table_back_on_reset(void)
{
	static struct wire w;
	struct mrc_test_pair_cfg cfg;
	struct mrc_test_pair p;
	struct mrc_trk_pool *tables;
	const char *why = NULL;
	struct drop_psn d = {.psn = 0, .left = 1};

	MRC_T_RUN(setup_lent(&p, &cfg, LENT_IMM_TABLE, &tables));
	wire_reset(&w, (struct wire_cfg){.latency_ns = 3 * US});
	w.drop = drop_once; /* the first packet is lost: the immediate waits for its resend */
	w.ctx = &d;
	MRC_T_EQ(post_at(&p, 1, 0, 4000, 0x11), 0);
	for (int step = 0; step < 200 && !mrc_qp_imm_held(p.h[1].qp); step++)
		run(&p, &w, 100);
	MRC_T_ASSERT(mrc_qp_imm_held(p.h[1].qp), "the immediate waits in the table");
	MRC_T_EQ(mrc_qp_modify(p.h[1].qp, MRC_QP_ERROR, NULL, p.now, &p.rand, &why), 0);
	MRC_T_EQ(mrc_qp_modify(p.h[1].qp, MRC_QP_RESET, NULL, p.now, &p.rand, &why), 0);
	MRC_T_EQ(mrc_trk_pool_in_use(tables), 0);
	/* Back clear: the next holder finds no stale immediate. */
	const uint8_t *t = mrc_trk_pool_get(tables);

	MRC_T_ASSERT(t != NULL, "the table");
	for (size_t k = 0; k < tables->block_bytes; k++)
		MRC_T_ASSERT(t[k] == 0, "byte %zu of the table", k);
	mrc_trk_pool_put(tables, (void *)(uintptr_t)t);
	wire_drain(&w);
	mrc_test_pair_destroy(&p);
	MRC_T_EQ(mrc_trk_pool_free(tables), 0);
	return MRC_TEST_OK;
}

/*
 * A Write-with-immediate of no bytes (a signal) reads no memory: it names no
 * region, and completes at both ends.
 */
static int
test_zero_bytes_name_no_region(void)
{
	static struct wire w;
	struct mrc_test_pair_cfg cfg;
	struct mrc_test_pair p;
	struct mrc_cqe e[4];

	mrc_test_pair_cfg_defaults(&cfg);
	SETUP(p, cfg);
	wire_reset(&w, (struct wire_cfg){.latency_ns = 2 * US});
	MRC_T_EQ(mrc_qp_post_write(p.h[0].qp, 9, NULL, 0, 0, (uint64_t)(uintptr_t)p.h[1].mem,
			 p.h[1].key, true, 0x77),
		0);
	run(&p, &w, 1000 * US);
	MRC_T_EQ(mrc_cq_poll(p.h[0].cq, e, 4), 1);
	MRC_T_EQ(e[0].wr_id, 9);
	MRC_T_EQ(e[0].status, MRC_CQE_OK);
	MRC_T_EQ(mrc_cq_poll(p.h[1].cq, e, 4), 1);
	MRC_T_EQ(e[0].opcode, MRC_CQE_RECV_IMM);
	MRC_T_EQ(e[0].imm, 0x77);
	MRC_T_EQ(e[0].byte_len, 0);
	return drained_no_leak(&p, &w);
}

/* Allocations from DPDK's heap so far, on every socket. */
static uint64_t
heap_allocs(void)
{
	uint64_t n = 0;

	for (unsigned int s = 0; s < rte_socket_count(); s++) {
		struct rte_malloc_socket_stats st;

		if (rte_malloc_get_socket_stats(rte_socket_id_by_idx(s), &st) == 0)
			n += st.alloc_count;
	}
	return n;
}

/*
 * A QP given to its shard at RTR goes to RTS on the worker that owns it
 * (an application's QP, mrcd's apps code), which must not allocate: with
 * the worker's in-flight pool, RTS takes nothing from the heap.
 */
static int
test_rts_allocates_nothing(void)
{
	struct mrc_test_pair_cfg cfg;
	struct mrc_test_pair p;
	struct mrc_trk_pool *pool;
	struct mrc_qp_attr a;
	const char *why = NULL;
	uint64_t before;

	MRC_T_EQ(mrc_test_eal_init("test_qp"), 0);
	mrc_test_pair_cfg_defaults(&cfg);
	pool = mrc_trk_pool_create(2, mrc_qp_trk_block_bytes(&cfg.attr), SOCKET_ID_ANY);
	MRC_T_ASSERT(pool != NULL, "the worker's in-flight pool");
	cfg.trk_pool = pool;
	MRC_T_EQ(mrc_test_pair_create(&p, &cfg), 0);
	a = cfg.attr;
	a.dest_qpn = 0x101;
	MRC_T_EQ(mrc_qp_modify(p.h[0].qp, MRC_QP_ERROR, NULL, p.now, &p.rand, &why), 0);
	MRC_T_EQ(mrc_qp_modify(p.h[0].qp, MRC_QP_RESET, NULL, p.now, &p.rand, &why), 0);
	MRC_T_EQ(mrc_qp_modify(p.h[0].qp, MRC_QP_INIT, &a, p.now, &p.rand, &why), 0);
	MRC_T_EQ(mrc_qp_modify(p.h[0].qp, MRC_QP_RTR, &a, p.now, &p.rand, &why), 0);
	before = heap_allocs();
	MRC_T_EQ(mrc_qp_modify(p.h[0].qp, MRC_QP_RTS, &a, p.now, &p.rand, &why), 0);
	MRC_T_U64_EQ(heap_allocs(), before);
	mrc_test_pair_destroy(&p);
	MRC_T_EQ(mrc_trk_pool_free(pool), 0);
	return MRC_TEST_OK;
}

/* The last packet of a message vanishes: a probe recovers it, not the retransmit timer. */
static int
test_tail_loss_recovered_by_probe(void)
{
	static struct wire w;
	struct mrc_test_pair_cfg cfg;
	struct mrc_test_pair p;
	struct drop_psn d = {.psn = 7, .left = 1};
	struct mrc_cqe e;

	mrc_test_pair_cfg_defaults(&cfg);
	SETUP(p, cfg);
	wire_reset(&w, (struct wire_cfg){.latency_ns = 5 * US, .drop = drop_once, .ctx = &d});
	mrc_test_fill(&p.h[0], 0, 8 * 4096, 9);
	MRC_T_EQ(post_at(&p, 1, 0, 8 * 4096, NO_IMM), 0);
	run(&p, &w, 10000 * US);
	MRC_T_EQ(mrc_cq_poll(p.h[0].cq, &e, 1), 1);
	MRC_T_EQ(e.status, MRC_CQE_OK);
	MRC_T_MEMEQ(p.h[1].mem, p.h[0].mem, 8 * 4096);
	const struct mrc_rel_tx *rtx = mrc_qp_rel_tx(p.h[0].qp);

	MRC_T_EQ(d.left, 0);
	MRC_T_ASSERT(mrc_qp_counters(p.h[0].qp)->tx_probes >= 1, "a probe was sent");
	MRC_T_EQ(rtx->stats.rto_fired, 0);
	/* Of the oldest message: resent twice (test_head_resend_goes_twice). */
	MRC_T_EQ(mrc_qp_counters(p.h[0].qp)->tx_retx_pkts, 2);
	MRC_T_EQ(mrc_qp_counters(p.h[1].qp)->rx_dup_pkts, 1);
	/* Recovered within a few RTTs (10 us here), far inside the 262 us timer. */
	MRC_T_ASSERT(p.now < 100 * US, "took %llu ns", (unsigned long long)p.now);
	return finish(&p);
}

/*
 * mrc_qp_tx_pending(), which keeps a shard's busy list to the QPs a burst
 * can serve: true while data waits to go, false while the QP only waits
 * for acknowledgements (not idle), true again once a loss leaves a resend
 * waiting, and at the responder while a SACK is queued.
 */
static int
test_tx_pending_follows_work(void)
{
	static struct wire w;
	struct mrc_test_pair_cfg cfg;
	struct mrc_test_pair p;
	struct rte_mbuf *pk[64];
	struct mrc_cqe e;
	uint16_t n;

	mrc_test_pair_cfg_defaults(&cfg);
	SETUP(p, cfg);
	wire_reset(&w, (struct wire_cfg){.latency_ns = 5 * US});
	MRC_T_ASSERT(!mrc_qp_tx_pending(p.h[0].qp), "idle: nothing to send");
	mrc_test_fill(&p.h[0], 0, 4 * 4096, 3);
	MRC_T_EQ(post_at(&p, 1, 0, 4 * 4096, NO_IMM), 0);
	MRC_T_ASSERT(mrc_qp_tx_pending(p.h[0].qp), "posted: data to send");
	n = mrc_qp_tx_burst(p.h[0].qp, p.now, 0xff, &p.rand, pk, 64);
	MRC_T_EQ(n, 4);
	MRC_T_ASSERT(!mrc_qp_idle(p.h[0].qp), "in flight");
	MRC_T_ASSERT(!mrc_qp_tx_pending(p.h[0].qp), "in flight, nothing more to send");
	/* Nothing arrives: the per-packet timeout marks them lost, to be resent. */
	p.now += 10000 * US;
	mrc_qp_poll(p.h[0].qp, p.now);
	MRC_T_ASSERT(mrc_qp_rel_tx(p.h[0].qp)->n_lost > 0, "losses declared");
	MRC_T_ASSERT(mrc_qp_tx_pending(p.h[0].qp), "resends waiting");
	/* The first copies arrive after all: the responder owes a SACK. */
	wire_send(&w, &p, 1, pk, n);
	p.now += w.latency_ns;
	wire_deliver(&w, &p);
	mrc_qp_poll(p.h[1].qp, p.now + 1000 * US);
	MRC_T_ASSERT(mrc_qp_tx_pending(p.h[1].qp), "responder: a SACK queued");
	run(&p, &w, 10000 * US);
	MRC_T_EQ(mrc_cq_poll(p.h[0].cq, &e, 1), 1);
	MRC_T_EQ(e.status, MRC_CQE_OK);
	MRC_T_ASSERT(!mrc_qp_tx_pending(p.h[0].qp) && !mrc_qp_tx_pending(p.h[1].qp), "done");
	return drained_no_leak(&p, &w);
}

/* What test_head_resend_goes_twice drops and sees: PSNs 3 and 12 once, then copies. */
struct twice_watch {
	int left3, left12;
	uint8_t lost_plane;
	unsigned int copies3, copies12;
	uint8_t plane3[4];
};

static bool
drop_watch(void *ctx, const struct mrc_pkt *v)
{
	struct twice_watch *t = ctx;
	const uint8_t plane = (uint8_t)mrc_ev_layout_plane(&MRC_EV_LAYOUT_DEFAULT, v->ev);

	if (!mrc_opcode_is_data(v->bth.opcode))
		return false;
	if (v->bth.psn == 3 && t->left3 > 0) {
		t->left3--;
		t->lost_plane = plane;
		return true;
	}
	if (v->bth.psn == 12 && t->left12 > 0) {
		t->left12--;
		return true;
	}
	if (v->bth.rtx && v->bth.psn == 3 && t->copies3 < RTE_DIM(t->plane3))
		t->plane3[t->copies3++] = plane;
	if (v->bth.rtx && v->bth.psn == 12)
		t->copies12++;
	return false;
}

/*
 * A lost packet of the oldest message, which every later completion waits
 * for (RC order), is resent twice, on two planes other than the one that
 * lost it: a resend lost again would cost another loss detection and round
 * trip. A later message's packet is resent once. Two 8-packet messages,
 * PSN 3 (first) and 12 (second) dropped once each.
 */
static int
test_head_resend_goes_twice(void)
{
	static struct wire w;
	struct mrc_test_pair_cfg cfg;
	struct mrc_test_pair p;
	struct twice_watch t = {.left3 = 1, .left12 = 1};
	struct mrc_cqe e[2];

	mrc_test_pair_cfg_defaults(&cfg);
	cfg.attr.start_psn_tx = cfg.attr.start_psn_rx = 0;
	SETUP(p, cfg);
	wire_reset(&w, (struct wire_cfg){.latency_ns = 5 * US, .drop = drop_watch, .ctx = &t});
	mrc_test_fill(&p.h[0], 0, 16 * 4096, 3);
	for (uint64_t k = 0; k < 2; k++)
		MRC_T_EQ(post_at(&p, k, k * 8 * 4096, 8 * 4096, NO_IMM), 0);
	run(&p, &w, 10000 * US);
	MRC_T_EQ(mrc_cq_poll(p.h[0].cq, e, 2), 2);
	MRC_T_EQ(e[0].status, MRC_CQE_OK);
	MRC_T_EQ(e[1].status, MRC_CQE_OK);
	MRC_T_MEMEQ(p.h[1].mem, p.h[0].mem, 16 * 4096);
	MRC_T_EQ(t.left3 + t.left12, 0);
	MRC_T_EQ(t.copies3, 2);
	MRC_T_ASSERT(t.plane3[0] != t.plane3[1] && t.plane3[0] != t.lost_plane &&
			     t.plane3[1] != t.lost_plane,
		"planes: lost on %u, resent on %u and %u", t.lost_plane, t.plane3[0], t.plane3[1]);
	MRC_T_EQ(t.copies12, 1);
	MRC_T_EQ(mrc_qp_counters(p.h[0].qp)->tx_retx_pkts, 3);
	MRC_T_EQ(mrc_qp_counters(p.h[1].qp)->rx_dup_pkts, 1);
	return finish(&p);
}

/*
 * With a standing queue (round trip at twice its minimum or more) a silent
 * loss may be congestion (no trimming: full queues drop): the resend goes
 * once, even for the oldest message. The first message sets the minimum
 * RTT (2 us); then the wire's latency goes from 1 to 5 us each way, five
 * more messages of 8 packets raise srtt past 4 us, and PSN 45, in the
 * last one, is dropped.
 */
static int
test_no_second_copy_when_queued(void)
{
	static struct wire w;
	struct mrc_test_pair_cfg cfg;
	struct mrc_test_pair p;
	struct drop_psn d = {.psn = 45, .left = 1};
	struct mrc_cqe e;

	mrc_test_pair_cfg_defaults(&cfg);
	cfg.attr.start_psn_tx = cfg.attr.start_psn_rx = 0;
	SETUP(p, cfg);
	wire_reset(&w, (struct wire_cfg){.latency_ns = 1 * US, .drop = drop_once, .ctx = &d});
	for (uint64_t k = 0; k < 6; k++) {
		MRC_T_EQ(post_at(&p, k, 0, 8 * 4096, NO_IMM), 0);
		run(&p, &w, 10000 * US);
		MRC_T_EQ(mrc_cq_poll(p.h[0].cq, &e, 1), 1);
		MRC_T_EQ(e.status, MRC_CQE_OK);
		w.latency_ns = 5 * US;
	}
	MRC_T_EQ(d.left, 0);
	const struct mrc_rel_tx *rtx = mrc_qp_rel_tx(p.h[0].qp);

	MRC_T_ASSERT(rtx->srtt_tsc / 2 >= rtx->min_rtt_tsc, "srtt %llu, min %llu",
		(unsigned long long)rtx->srtt_tsc, (unsigned long long)rtx->min_rtt_tsc);
	MRC_T_EQ(mrc_qp_counters(p.h[0].qp)->tx_retx_pkts, 1);
	MRC_T_EQ(mrc_qp_counters(p.h[1].qp)->rx_dup_pkts, 0);
	return finish(&p);
}

/*
 * Send from host `from`; deliver to the peer at once every packet except
 * data packets whose PSN is not in [lo, hi), which are kept in `held` (or
 * freed when `held` is full). Returns the data packets sent.
 */
static unsigned int
xfer(struct mrc_test_pair *p, int from, uint32_t lo, uint32_t hi, struct rte_mbuf **held,
	unsigned int *n_held, unsigned int max_held)
{
	struct rte_mbuf *pk[64];
	const uint16_t n = mrc_qp_tx_burst(p->h[from].qp, p->now, 0xff, &p->rand, pk, 64);
	unsigned int data = 0;

	for (uint16_t k = 0; k < n; k++) {
		struct mrc_pkt v;

		if (mrc_pkt_parse(pk[k], &p->wire, &v) != MRC_WIRE_OK) {
			rte_pktmbuf_free(pk[k]);
			continue;
		}
		if (mrc_opcode_is_data(v.bth.opcode)) {
			data++;
			if (v.bth.psn < lo || v.bth.psn >= hi) {
				if (*n_held < max_held)
					held[(*n_held)++] = pk[k];
				else
					rte_pktmbuf_free(pk[k]);
				continue;
			}
		}
		mrc_qp_rx(p->h[1 - from].qp, pk[k], &v, p->now);
	}
	return data;
}

/* ASSUMED_BAD EVs, active or backup, across the pool. */
static unsigned int
bad_evs(const struct mrc_qp *qp)
{
	unsigned int n = 0;

	for (unsigned int pl = 0; pl < 8; pl++) {
		struct mrc_ev_counts c;

		if (mrc_ev_plane_counts(mrc_qp_ev_pool(qp), pl, &c) == 0)
			n += c.active[MRC_EV_ASSUMED_BAD] + c.backup[MRC_EV_ASSUMED_BAD];
	}
	return n;
}

/*
 * SRv6: the EV names the path, so the loss of PSN 0 is proven by the next
 * packet on its plane and T1, whatever EV that one took: 64 packets over
 * 8 planes x 4 T1s give every path later packets, while 128 EVs give PSN
 * 0's own EV none. Without the path (structured EVs, ECMP-hashed), or
 * with path_order off (a hop that is a LAG may reorder a path), only the
 * timers can find it. A loss proven so does not retire its EV (unless
 * order_loss_retires, MRC's rule): the path
 * has just delivered.
 */
static int
test_loss_proven_by_path_order(void)
{
	/*
	 * Plain; SRv6 (paths named: order proves); SRv6 with path_order off (a
	 * LAG hop); SRv6 with order_loss_retires (MRC's rule: the EV goes too).
	 */
	for (int mode = 0; mode <= 3; mode++) {
		const bool proves = mode == 1 || mode == 3;
		const unsigned int retired = mode == 3 ? 1 : 0;
		struct mrc_test_pair_cfg cfg;
		struct mrc_test_pair p;
		unsigned int n_held = 0;

		mrc_test_pair_cfg_defaults(&cfg);
		cfg.srv6 = mode != 0;
		cfg.attr.path_order = mode != 2;
		cfg.attr.order_loss_retires = mode == 3;
		cfg.attr.start_psn_tx = cfg.attr.start_psn_rx = 0;
		snprintf(cfg.attr.cc_name, sizeof(cfg.attr.cc_name), "fixed");
		cfg.attr.cc.fixed_cwnd_bytes = 64 * 4096;
		SETUP(p, cfg);
		const struct mrc_rel_tx *rtx = mrc_qp_rel_tx(p.h[0].qp);

		MRC_T_EQ(post_at(&p, 1, 0, 64 * 4096, NO_IMM), 0);
		p.now = 0;
		MRC_T_EQ(xfer(&p, 0, 1, 64, NULL, &n_held, 0), 64); /* PSN 0 dropped */
		p.now = 5 * US;
		mrc_qp_poll(p.h[1].qp, p.now);
		xfer(&p, 1, 0, 0, NULL, &n_held, 0); /* the SACKs */
		mrc_qp_poll(p.h[0].qp, p.now);
		MRC_T_EQ(rtx->stats.acked_pkts, 63);
		MRC_T_EQ(rtx->stats.lost[MRC_REL_LOSS_EV_ORDER], proves ? 1 : 0);
		MRC_T_EQ(rtx->n_lost, proves ? 1 : 0);
		MRC_T_EQ(rtx->stats.spurious, 0);
		/* The path delivered a later packet: it works, its EV stays in service. */
		MRC_T_EQ(bad_evs(p.h[0].qp), retired);
		MRC_T_EQ(mrc_qp_counters(p.h[0].qp)->ev_losses, retired);
		mrc_test_pair_destroy(&p);
	}
	return MRC_TEST_OK;
}

/*
 * The destination's worker (doc/steering.md): with dest_workers <= 1 the
 * path ends with the host uSID, as always; with 2 every packet the QP sends
 * (data and the peer's SACKs alike) ends with the worker uSID of
 * dest_worker, and the message still completes. A worker index beyond the
 * count is refused at RTR.
 */
static int
test_dest_worker_usid(void)
{
	for (int mode = 0; mode <= 2; mode++) {
		struct mrc_test_pair_cfg cfg;
		struct mrc_test_pair p;
		struct rte_mbuf *pk[64];
		unsigned int n_held = 0;

		mrc_test_pair_cfg_defaults(&cfg);
		cfg.attr.start_psn_tx = cfg.attr.start_psn_rx = 0;
		cfg.attr.dest_workers = (uint16_t)mode; /* 0, 1: none; 2: worker uSID */
		cfg.attr.dest_worker = mode == 2 ? 1 : 0;
		SETUP(p, cfg);
		MRC_T_EQ(post_at(&p, 1, 0, 8 * 4096, NO_IMM), 0);
		const uint16_t n = mrc_qp_tx_burst(p.h[0].qp, p.now, 0xff, &p.rand, pk, 64);

		MRC_T_EQ(n, 8);
		for (uint16_t k = 0; k < n; k++) {
			struct mrc_usid_path up;
			struct mrc_pkt v;

			MRC_T_EQ(mrc_pkt_parse(pk[k], &p.wire, &v), MRC_WIRE_OK);
			MRC_T_EQ(mrc_srv6_get_path(&v, 0xfcbb0000u, &up), 0);
			MRC_T_ASSERT(up.n >= 2, "path of %u uSIDs", up.n);
			const unsigned int tier = (up.usid[up.n - 1] >> 8) & 0xf;

			MRC_T_EQ(tier, mode == 2 ? MRC_USID_TIER_WORKER : MRC_USID_TIER_HOST);
			if (mode == 2)
				MRC_T_EQ(up.usid[up.n - 1] & 0xff, 1);
			mrc_qp_rx(p.h[1].qp, pk[k], &v, p.now);
		}
		p.now += 5 * US;
		mrc_qp_poll(p.h[1].qp, p.now);
		xfer(&p, 1, 0, 0, NULL, &n_held, 0); /* the SACKs, over the same kind of path */
		MRC_T_EQ(mrc_qp_rel_tx(p.h[0].qp)->stats.acked_pkts, 8);
		mrc_test_pair_destroy(&p);
	}
	struct mrc_test_pair_cfg cfg;
	struct mrc_test_pair p;

	mrc_test_pair_cfg_defaults(&cfg);
	cfg.attr.dest_workers = 2;
	cfg.attr.dest_worker = 2;
	MRC_T_EQ(mrc_test_eal_init("test_qp"), 0);
	MRC_T_EQ(mrc_test_pair_create(&p, &cfg), -1);
	return MRC_TEST_OK;
}

/*
 * A QP builds its packets from a copy of its addresses shared with the other
 * QPs to its destination (mrc_qp_share_addr) only when that copy says the
 * same but for the path, and its path stays its own: here its peer's worker
 * (uSID 1) where the shared copy names none. The hop limit, changed in the
 * shared copy after the fact, shows which copy a packet was built from.
 */
static int
test_shared_addresses(void)
{
	struct mrc_test_pair_cfg cfg;
	struct mrc_test_pair p;
	struct mrc_qp_addr sh, other;
	struct rte_mbuf *pk[64];
	struct mrc_qp *qp;

	mrc_test_pair_cfg_defaults(&cfg);
	cfg.attr.dest_workers = 2;
	cfg.attr.dest_worker = 1;
	SETUP(p, cfg);
	qp = p.h[0].qp;
	sh = *mrc_qp_addr(qp);
	sh.path.dst_workers = 0;
	sh.path.dst_worker = 0;
	other = sh;
	other.dst_mac[2].addr_bytes[5] ^= 1;
	MRC_T_ASSERT(!mrc_qp_share_addr(qp, &other), "another destination MAC: not shared");
	MRC_T_ASSERT(mrc_qp_share_addr(qp, &sh), "the same but for the path: shared");
	sh.hop_limit = 17;
	MRC_T_EQ(post_at(&p, 1, 0, 8 * 4096, NO_IMM), 0);
	uint16_t n = mrc_qp_tx_burst(qp, p.now, 0xff, &p.rand, pk, 64);

	MRC_T_EQ(n, 8);
	for (uint16_t k = 0; k < n; k++) {
		struct mrc_usid_path up;
		struct mrc_pkt v;

		MRC_T_EQ(mrc_pkt_parse(pk[k], &p.wire, &v), MRC_WIRE_OK);
		MRC_T_EQ(v.ip.hop_limit, 17); /* built from the shared copy */
		MRC_T_EQ(mrc_srv6_get_path(&v, 0xfcbb0000u, &up), 0);
		MRC_T_ASSERT(up.n >= 2, "path of %u uSIDs", up.n);
		MRC_T_EQ((up.usid[up.n - 1] >> 8) & 0xf, MRC_USID_TIER_WORKER); /* its own path */
		MRC_T_EQ(up.usid[up.n - 1] & 0xff, 1);
		rte_pktmbuf_free(pk[k]);
	}
	MRC_T_ASSERT(!mrc_qp_share_addr(qp, NULL), "its own again");
	MRC_T_EQ(post_at(&p, 2, 8 * 4096, 4096, NO_IMM), 0);
	n = mrc_qp_tx_burst(qp, p.now, 0xff, &p.rand, pk, 64);
	MRC_T_ASSERT(n >= 1, "%u packets", n);
	for (uint16_t k = 0; k < n; k++) {
		struct mrc_pkt v;

		MRC_T_EQ(mrc_pkt_parse(pk[k], &p.wire, &v), MRC_WIRE_OK);
		MRC_T_EQ(v.ip.hop_limit,
			mrc_qp_addr(qp)->hop_limit ? mrc_qp_addr(qp)->hop_limit : 64);
		rte_pktmbuf_free(pk[k]);
	}
	mrc_test_pair_destroy(&p);
	return MRC_TEST_OK;
}

/*
 * The SACK a message's last packet asks for is queued at once; while it
 * waits for the next burst the responder's poll gives no SACK deadline (in
 * a shard, that would be a timer fired per message for a SACK already on
 * its way). A packet that asks for nothing (the first of two) is owed a
 * SACK only after the coalescing delay: that deadline stays, and the SACK
 * is queued when it comes.
 */
static int
test_queued_sack_has_no_deadline(void)
{
	const uint32_t mtu = MRC_QP_DEF_MTU;
	struct mrc_test_pair_cfg cfg;
	struct mrc_test_pair p;
	struct rte_mbuf *held[4];
	unsigned int n_held = 0;
	uint64_t arrived;

	mrc_test_pair_cfg_defaults(&cfg);
	cfg.attr.start_psn_tx = cfg.attr.start_psn_rx = 0;
	cfg.attr.ack_delay_tsc = 2 * US;
	SETUP(p, cfg);
	const struct mrc_rel_tx *rtx = mrc_qp_rel_tx(p.h[0].qp);

	/* One packet, the message's last: its SACK is queued, with no deadline. */
	MRC_T_EQ(post_at(&p, 1, 0, mtu, NO_IMM), 0);
	MRC_T_EQ(xfer(&p, 0, 0, 1, held, &n_held, 4), 1);
	MRC_T_ASSERT(mrc_qp_tx_pending(p.h[1].qp), "no SACK queued for the last packet");
	MRC_T_U64_EQ(mrc_qp_poll(p.h[1].qp, p.now), UINT64_MAX);
	xfer(&p, 1, 0, 0, NULL, &n_held, 0); /* the SACK */
	MRC_T_EQ(rtx->stats.acked_pkts, 1);
	MRC_T_U64_EQ(mrc_qp_poll(p.h[1].qp, p.now), UINT64_MAX);
	/* Two packets: the first, which asks for nothing, arrives alone. */
	MRC_T_EQ(post_at(&p, 2, 0, 2 * mtu, NO_IMM), 0);
	p.now += 10 * US;
	arrived = p.now;
	MRC_T_EQ(xfer(&p, 0, 1, 2, held, &n_held, 4), 2); /* PSN 1 arrives, 2 is held */
	MRC_T_EQ(n_held, 1);
	MRC_T_ASSERT(!mrc_qp_tx_pending(p.h[1].qp), "a SACK queued for a packet that asks none");
	MRC_T_U64_EQ(mrc_qp_poll(p.h[1].qp, p.now), arrived + 2 * US);
	p.now = arrived + 2 * US;
	MRC_T_U64_EQ(mrc_qp_poll(p.h[1].qp, p.now), UINT64_MAX); /* due: queued now */
	MRC_T_ASSERT(mrc_qp_tx_pending(p.h[1].qp), "the SACK owed was not queued at its deadline");
	xfer(&p, 1, 0, 0, NULL, &n_held, 0);
	MRC_T_EQ(rtx->stats.acked_pkts, 2);
	/* The last packet (PSN 2) asks for its SACK: queued, no deadline. */
	p.now += US;
	{
		struct mrc_pkt v;

		MRC_T_EQ(mrc_pkt_parse(held[0], &p.wire, &v), MRC_WIRE_OK);
		mrc_qp_rx(p.h[1].qp, held[0], &v, p.now);
	}
	MRC_T_ASSERT(mrc_qp_tx_pending(p.h[1].qp), "no SACK queued for the last packet");
	MRC_T_U64_EQ(mrc_qp_poll(p.h[1].qp, p.now), UINT64_MAX);
	xfer(&p, 1, 0, 0, NULL, &n_held, 0);
	MRC_T_EQ(rtx->stats.acked_pkts, 3);
	mrc_test_pair_destroy(&p);
	return MRC_TEST_OK;
}

/*
 * A packet declared lost and then acknowledged before it is resent leaves
 * the flight once, not twice: counting it out twice made the QP send past
 * its window. Window 4 packets; PSN 0 is late, 1..3 arrive, 4..6 go out
 * and stay in flight; 0 times out, then arrives after all. In flight: 4..6,
 * so exactly one more packet may go.
 */
static int
test_late_packet_leaves_flight_once(void)
{
	struct mrc_test_pair_cfg cfg;
	struct mrc_test_pair p;
	struct rte_mbuf *held[16];
	unsigned int n_held = 0;
	struct mrc_pkt v;

	mrc_test_pair_cfg_defaults(&cfg);
	cfg.attr.start_psn_tx = cfg.attr.start_psn_rx = 0;
	snprintf(cfg.attr.cc_name, sizeof(cfg.attr.cc_name), "fixed");
	cfg.attr.cc.fixed_cwnd_bytes = 4 * 4096;
	SETUP(p, cfg);
	const struct mrc_rel_tx *rtx = mrc_qp_rel_tx(p.h[0].qp);

	MRC_T_EQ(post_at(&p, 1, 0, 16 * 4096, NO_IMM), 0);
	p.now = 0;
	MRC_T_EQ(xfer(&p, 0, 1, 4, held, &n_held, 1), 4); /* 0 held, 1..3 arrive */
	MRC_T_EQ(n_held, 1);
	p.now = 3 * US;
	mrc_qp_poll(p.h[1].qp, p.now);
	xfer(&p, 1, 0, 0, NULL, &n_held, 0); /* the SACK for 1..3 */
	MRC_T_EQ(rtx->stats.acked_pkts, 3);
	MRC_T_EQ(xfer(&p, 0, 0, 0, held, &n_held, 1), 3); /* 4..6, never delivered */
	/* Until 0's per-packet timeout (4..6 left 3 us later and are not due). */
	while (rtx->n_lost == 0 && p.now < 1000 * US) {
		p.now += 100;
		mrc_qp_poll(p.h[0].qp, p.now);
	}
	MRC_T_EQ(rtx->n_lost, 1);
	MRC_T_EQ(rtx->stats.lost[MRC_REL_LOSS_PKT_TIMEOUT], 1);
	/* 0 arrives after all, and its SACK comes back before the resend goes. */
	MRC_T_EQ(mrc_pkt_parse(held[0], &p.wire, &v), MRC_WIRE_OK);
	mrc_qp_rx(p.h[1].qp, held[0], &v, p.now);
	mrc_qp_poll(p.h[1].qp, p.now + 2 * US);
	p.now += 2 * US;
	xfer(&p, 1, 0, 0, NULL, &n_held, 0);
	MRC_T_EQ(rtx->stats.spurious, 1);
	MRC_T_EQ(rtx->n_inflight, 3);
	MRC_T_EQ(mrc_rel_tx_inflight_bytes(rtx), 3 * 4096);
	n_held = 0;
	MRC_T_EQ(xfer(&p, 0, 0, 0, held, &n_held, 16), 1); /* 4 in flight again, no more */
	MRC_T_EQ(rtx->n_inflight, 4);
	for (unsigned int k = 0; k < n_held; k++)
		rte_pktmbuf_free(held[k]);
	mrc_test_pair_destroy(&p);
	return MRC_TEST_OK;
}

/* Retired EVs (active slots) across the pool. */
static unsigned int
retired_evs(const struct mrc_qp *qp)
{
	unsigned int n = 0;

	for (unsigned int pl = 0; pl < 8; pl++) {
		struct mrc_ev_counts c;

		if (mrc_ev_plane_counts(mrc_qp_ev_pool(qp), pl, &c) == 0)
			n += c.active[MRC_EV_ASSUMED_BAD];
	}
	return n;
}

/* Both QPs send and poll and the wire moves until host 0's QP has no retired EV, or `ns` passed. */
static void
run_until_readmitted(struct mrc_test_pair *p, struct wire *w, uint64_t ns)
{
	struct rte_mbuf *pk[64];
	const uint64_t end = p->now + ns;

	while (p->now < end && retired_evs(p->h[0].qp) > 0) {
		for (uint8_t i = 0; i < 2; i++) {
			uint16_t n = mrc_qp_tx_burst(p->h[i].qp, p->now, 0xff, &p->rand, pk, 64);

			wire_send(w, p, (uint8_t)(1 - i), pk, n);
			mrc_qp_poll(p->h[i].qp, p->now);
		}
		wire_deliver(w, p);
		p->now += 100;
	}
}

/* Drop data PSN d->psn once and the first probe: nothing then shows the path alive. */
static bool
drop_once_unprobed(void *ctx, const struct mrc_pkt *v)
{
	struct drop_psn *d = ctx;

	if (v->bth.opcode == MRC_OP_PROBE && d->probes > 0) {
		d->probes--;
		return true;
	}
	return drop_once(ctx, v);
}

/*
 * A loss found by the timers (no later packet or probe answer from its
 * path) retires its EV; with no backup left, its plane carries less until
 * the EV is re-admitted. Probe rounds are frequent enough to bring a sound
 * EV back within a millisecond (3 good answers).
 */
static int
test_sound_ev_readmitted_soon(void)
{
	static struct wire w;
	struct mrc_test_pair_cfg cfg;
	struct mrc_test_pair p;
	struct drop_psn d = {.psn = 3, .left = 1, .probes = 1};
	struct mrc_cqe e;

	mrc_test_pair_cfg_defaults(&cfg);
	cfg.attr.ev.n_backup = 0;
	SETUP(p, cfg);
	wire_reset(
		&w, (struct wire_cfg){.latency_ns = 5 * US, .drop = drop_once_unprobed, .ctx = &d});
	MRC_T_EQ(post_at(&p, 1, 0, 8 * 4096, NO_IMM), 0);
	run(&p, &w, 1000 * US);
	MRC_T_EQ(mrc_cq_poll(p.h[0].cq, &e, 1), 1);
	MRC_T_EQ(d.left, 0);
	MRC_T_EQ(d.probes, 0);
	MRC_T_EQ(mrc_qp_rel_tx(p.h[0].qp)->stats.lost[MRC_REL_LOSS_PKT_TIMEOUT], 1);
	MRC_T_EQ(retired_evs(p.h[0].qp), 1);

	/* Idle but for the probes: within 1 ms the EV is back. */
	run_until_readmitted(&p, &w, 1000 * US);
	MRC_T_EQ(retired_evs(p.h[0].qp), 0);
	MRC_T_ASSERT(mrc_qp_counters(p.h[0].qp)->tx_ev_probes >= 3, "probed");
	run(&p, &w, 100 * US);
	return drained_no_leak(&p, &w);
}

/*
 * An EV retired from outside the QP's packets (a path event, a controller)
 * while the QP sits idle, its requester side quiet (rel's timers found
 * nothing, so its bursts and polls skip rtx and the pool): the QP's flag
 * follows the pool, so the next bursts probe the EV and it comes back. A
 * message posted to the quiet QP then loses its only packet: rel's timer,
 * which the polls look at again once anything is sent, resends it.
 */
static int
test_idle_qp_probes_ev_retired_meanwhile(void)
{
	static struct wire w;
	struct mrc_test_pair_cfg cfg;
	struct mrc_test_pair p;
	struct rte_mbuf *pk[64];
	const struct mrc_qp_counters *c;
	struct mrc_cqe e;
	uint64_t probes;

	mrc_test_pair_cfg_defaults(&cfg);
	cfg.attr.ev.n_backup = 0;
	SETUP(p, cfg);
	c = mrc_qp_counters(p.h[0].qp);
	wire_reset(&w, (struct wire_cfg){.latency_ns = 5 * US});
	MRC_T_EQ(post_at(&p, 1, 0, 8 * 4096, NO_IMM), 0);
	run(&p, &w, 1000 * US);
	MRC_T_EQ(mrc_cq_poll(p.h[0].cq, &e, 1), 1);
	run(&p, &w, 100 * US); /* idle: the polls find rel's timers with nothing */
	MRC_T_EQ(retired_evs(p.h[0].qp), 0);
	MRC_T_ASSERT(!mrc_qp_tx_pending(p.h[0].qp), "idle");
	probes = c->tx_ev_probes;
	MRC_T_EQ(mrc_qp_tx_burst(p.h[0].qp, p.now, 0xff, &p.rand, pk, 64), 0);

	mrc_ev_on_loss(mrc_qp_ev_pool_owner(p.h[0].qp), 5);
	MRC_T_EQ(retired_evs(p.h[0].qp), 1);
	run_until_readmitted(&p, &w, 1000 * US);
	MRC_T_ASSERT(c->tx_ev_probes > probes, "the idle QP probed the EV");
	MRC_T_EQ(retired_evs(p.h[0].qp), 0);
	run(&p, &w, 100 * US); /* idle again */

	/* The next message's only packet is lost: no answer comes, rel's timer alone finds it. */
	struct drop_psn d = {.psn = mrc_qp_rel_tx(p.h[0].qp)->snd_nxt, .left = 1};

	wire_reset(&w, (struct wire_cfg){.latency_ns = 5 * US, .drop = drop_once, .ctx = &d});
	MRC_T_EQ(post_at(&p, 1, 0, 4096, NO_IMM), 0);
	run(&p, &w, 10000 * US);
	MRC_T_EQ(d.left, 0);
	MRC_T_EQ(mrc_cq_poll(p.h[0].cq, &e, 1), 1);
	MRC_T_EQ(e.status, MRC_CQE_OK);
	MRC_T_ASSERT(c->tx_retx_pkts >= 1, "resent");
	return drained_no_leak(&p, &w);
}

/* Plane of the first retired EV of `qp`, or -1. */
static int
retired_plane(const struct mrc_qp *qp, const struct mrc_test_pair_cfg *cfg)
{
	const struct mrc_ev_pool *pool = mrc_qp_ev_pool(qp);

	for (int s = 0; s < (int)mrc_ev_n_slots(pool); s++)
		if (mrc_ev_state(pool, s) == MRC_EV_ASSUMED_BAD)
			return (int)mrc_ev_layout_plane(
				&cfg->attr.ev.layout, mrc_ev_value(pool, s));
	return -1;
}

/* Both QPs send (host 0 with `up` and `room`), the wire moves, for `ns`. */
static void
run_masks(struct mrc_test_pair *p, struct wire *w, uint32_t up, uint32_t room, uint64_t ns)
{
	struct rte_mbuf *pk[64];
	const uint64_t end = p->now + ns;

	while (p->now < end) {
		for (uint8_t i = 0; i < 2; i++) {
			uint16_t n = i == 0 ? mrc_qp_tx_burst_room(p->h[0].qp, p->now, up, room,
						      &p->rand, pk, 64)
					    : mrc_qp_tx_burst(
						      p->h[1].qp, p->now, 0xff, &p->rand, pk, 64);

			wire_send(w, p, (uint8_t)(1 - i), pk, n);
			mrc_qp_poll(p->h[i].qp, p->now);
		}
		wire_deliver(w, p);
		p->now += 100;
	}
}

/*
 * mrc_qp_tx_burst_room: a retired EV's probe is not sent while its port is
 * down, waits while the port is up but has no tx room, and goes past the
 * room after a quarter of the probe interval (counted), so the EV still
 * comes back on a plane that never has room. (Its plane taken for down
 * whenever it had no room, a line-rate sender never probed it.)
 */
static int
test_ev_probe_waits_for_room(void)
{
	static struct wire w;
	struct mrc_test_pair_cfg cfg;
	struct mrc_test_pair p;
	struct drop_psn d = {.psn = 3, .left = 1, .probes = 1};
	const struct mrc_qp_counters *c;
	struct mrc_cqe e;
	uint32_t others;
	uint64_t probes;
	int pl;

	mrc_test_pair_cfg_defaults(&cfg);
	cfg.attr.ev.n_backup = 0;
	SETUP(p, cfg);
	c = mrc_qp_counters(p.h[0].qp);
	wire_reset(
		&w, (struct wire_cfg){.latency_ns = 5 * US, .drop = drop_once_unprobed, .ctx = &d});
	MRC_T_EQ(post_at(&p, 1, 0, 8 * 4096, NO_IMM), 0);
	run(&p, &w, 1000 * US);
	MRC_T_EQ(mrc_cq_poll(p.h[0].cq, &e, 1), 1);
	MRC_T_EQ(retired_evs(p.h[0].qp), 1);
	pl = retired_plane(p.h[0].qp, &cfg);
	MRC_T_ASSERT(pl >= 0, "a retired EV");
	others = 0xffu & ~(1u << pl);

	/* Its port down: no probe of it, however long. */
	probes = c->tx_ev_probes;
	run_masks(&p, &w, others, others, 2000 * US);
	MRC_T_EQ(c->tx_ev_probes, probes);
	MRC_T_EQ(retired_evs(p.h[0].qp), 1);

	/* Up but never any room: probes go past it after waiting, and it comes back. */
	const uint64_t from = p.now;

	while (p.now < from + 2000 * US && retired_evs(p.h[0].qp) > 0)
		run_masks(&p, &w, 0xff, others, 10 * US);
	MRC_T_EQ(retired_evs(p.h[0].qp), 0);
	/* Every probe since went past the room (its plane never had any). */
	MRC_T_ASSERT(c->tx_ev_probes > probes, "probed");
	MRC_T_EQ(c->tx_ev_probes_past_room, c->tx_ev_probes - probes);
	printf("  EV on plane %d back %.0f us after its port came up without tx room, %llu probes "
	       "past the room\n",
		pl, (p.now - from) / 1e3, (unsigned long long)c->tx_ev_probes_past_room);
	run(&p, &w, 100 * US);
	return drained_no_leak(&p, &w);
}

/* ---- reference modes: paths ECMP, reliability GBN ---- */

static void
ref_modes(struct mrc_test_pair_cfg *cfg)
{
	cfg->attr.paths = MRC_QP_PATHS_ECMP;
	cfg->attr.reliability = MRC_QP_REL_GBN;
}

/* Go-back-N on a sprayed QP would take every reordering for a loss: refused, and said why. */
static int
test_gbn_needs_ecmp(void)
{
	struct mrc_test_pair_cfg cfg;
	struct mrc_test_pair p;
	struct mrc_qp_attr a;
	const char *why = NULL;

	mrc_test_pair_cfg_defaults(&cfg);
	SETUP(p, cfg);
	MRC_T_EQ(mrc_qp_modify(p.h[0].qp, MRC_QP_ERROR, NULL, 0, &p.rand, &why), 0);
	MRC_T_EQ(mrc_qp_modify(p.h[0].qp, MRC_QP_RESET, NULL, 0, &p.rand, &why), 0);
	a = cfg.attr;
	a.reliability = MRC_QP_REL_GBN;
	MRC_T_EQ(mrc_qp_modify(p.h[0].qp, MRC_QP_INIT, &a, 0, &p.rand, &why), -EINVAL);
	MRC_T_ASSERT(why != NULL && strstr(why, "gbn needs paths ecmp") != NULL, "reason: %s", why);
	a.paths = 2;
	MRC_T_EQ(mrc_qp_modify(p.h[0].qp, MRC_QP_INIT, &a, 0, &p.rand, &why), -EINVAL);
	MRC_T_ASSERT(why != NULL && strstr(why, "paths must be") != NULL, "reason: %s", why);
	a.paths = MRC_QP_PATHS_ECMP;
	MRC_T_EQ(mrc_qp_modify(p.h[0].qp, MRC_QP_INIT, &a, 0, &p.rand, &why), 0);
	mrc_test_pair_destroy(&p);
	return MRC_TEST_OK;
}

/*
 * ECMP pins a QP to one EV by a hash of its QPN: 16 QPs, each sending a
 * 4-packet message, use one plane each (their SACKs come back on the same
 * EV), and between them most planes.
 */
static int
test_ecmp_qpns_hash_to_planes(void)
{
	static struct wire w;
	uint32_t planes_seen = 0;

	for (uint32_t q = 0; q < 16; q++) {
		struct mrc_test_pair_cfg cfg;
		struct mrc_test_pair p;
		unsigned int used = 0, plane = 0;

		mrc_test_pair_cfg_defaults(&cfg);
		cfg.attr.paths = MRC_QP_PATHS_ECMP;
		cfg.qpn_base = 0x200 + 2 * q;
		SETUP(p, cfg);
		wire_reset(&w, (struct wire_cfg){.latency_ns = 2 * US});
		MRC_T_EQ(post_at(&p, 1, 0, 4 * 4096, NO_IMM), 0);
		run(&p, &w, 1000 * US);
		for (unsigned int pl = 0; pl < 8; pl++)
			if (w.pkts_per_plane[pl] != 0) {
				used++;
				plane = pl;
			}
		MRC_T_ASSERT(used == 1, "QPN 0x%x used %u planes", cfg.qpn_base, used);
		planes_seen |= 1u << plane;
		MRC_T_MEMEQ(p.h[1].mem, p.h[0].mem, 4 * 4096);
		MRC_T_RUN(no_leak(&p));
		mrc_test_pair_destroy(&p);
	}
	MRC_T_ASSERT(__builtin_popcount(planes_seen) >= 5, "16 QPNs hashed onto planes 0x%02x",
		planes_seen);
	return MRC_TEST_OK;
}

/*
 * One gap, go-back-N: PSN 5 of a 32-packet window vanishes once. The
 * responder drops 6..31 unplaced and NACKs once; the sender resends 5..31,
 * all of it, in order.
 */
static int
test_gbn_rewinds_on_gap(void)
{
	static struct wire w;
	struct mrc_test_pair_cfg cfg;
	struct mrc_test_pair p;
	struct drop_psn d = {.psn = 5, .left = 1};
	struct mrc_cqe e;

	mrc_test_pair_cfg_defaults(&cfg);
	ref_modes(&cfg);
	SETUP(p, cfg);
	wire_reset(&w, (struct wire_cfg){.latency_ns = 5 * US, .drop = drop_once, .ctx = &d});
	mrc_test_fill(&p.h[0], 0, 32 * 4096, 5);
	MRC_T_EQ(post_at(&p, 1, 0, 32 * 4096, NO_IMM), 0);
	run(&p, &w, 10000 * US);
	MRC_T_EQ(mrc_cq_poll(p.h[0].cq, &e, 1), 1);
	MRC_T_EQ(e.status, MRC_CQE_OK);
	MRC_T_MEMEQ(p.h[1].mem, p.h[0].mem, 32 * 4096);
	const struct mrc_qp_counters *tx = mrc_qp_counters(p.h[0].qp);
	const struct mrc_qp_counters *rx = mrc_qp_counters(p.h[1].qp);
	const struct mrc_rel_tx *rtx = mrc_qp_rel_tx(p.h[0].qp);

	/* The whole window left in the first burst, so all of it after the hole went again. */
	MRC_T_EQ(tx->tx_data_pkts, 32);
	MRC_T_EQ(rx->rx_oos_pkts, 26);
	MRC_T_EQ(rx->tx_nacks, 1);
	MRC_T_EQ(rtx->stats.lost[MRC_REL_LOSS_NACK], 1);
	MRC_T_EQ(rtx->stats.lost[MRC_REL_LOSS_REWIND], 26);
	MRC_T_EQ(tx->tx_retx_pkts, 27);
	MRC_T_EQ(rx->rx_data_pkts, 32);
	MRC_T_EQ(mrc_qp_rel_rx(p.h[1].qp)->stats.ooo_pkts, 0); /* nothing placed out of order */
	MRC_T_EQ(rtx->stats.rto_fired, 0);
	MRC_T_EQ(tx->tx_probes, 0);
	return finish(&p);
}

/* The tail vanishes: no later packet to reveal the gap, so the timer rewinds (no probes in RC). */
static int
test_gbn_tail_loss_timer(void)
{
	static struct wire w;
	struct mrc_test_pair_cfg cfg;
	struct mrc_test_pair p;
	struct drop_psn d = {.psn = 7, .left = 1};
	struct mrc_cqe e;

	mrc_test_pair_cfg_defaults(&cfg);
	ref_modes(&cfg);
	SETUP(p, cfg);
	wire_reset(&w, (struct wire_cfg){.latency_ns = 5 * US, .drop = drop_once, .ctx = &d});
	mrc_test_fill(&p.h[0], 0, 8 * 4096, 9);
	MRC_T_EQ(post_at(&p, 1, 0, 8 * 4096, NO_IMM), 0);
	run(&p, &w, 10000 * US);
	MRC_T_EQ(mrc_cq_poll(p.h[0].cq, &e, 1), 1);
	MRC_T_EQ(e.status, MRC_CQE_OK);
	MRC_T_MEMEQ(p.h[1].mem, p.h[0].mem, 8 * 4096);
	const struct mrc_rel_tx *rtx = mrc_qp_rel_tx(p.h[0].qp);

	MRC_T_EQ(rtx->stats.rto_fired, 1);
	MRC_T_EQ(mrc_qp_counters(p.h[0].qp)->tx_probes, 0);
	MRC_T_EQ(mrc_qp_counters(p.h[0].qp)->tx_retx_pkts, 1);
	MRC_T_EQ(mrc_qp_counters(p.h[1].qp)->tx_nacks, 0);
	/* Waited for the 262 us timer, as RC does (the sprayed QP's probe takes ~20 us). */
	MRC_T_ASSERT(p.now > 262 * US, "done at %llu ns", (unsigned long long)p.now);
	return finish(&p);
}

/*
 * Every burst arrives backwards: go-back-N keeps only the in-order packet
 * of each burst, NACKs, and gets there anyway, never placing out of order.
 */
static int
test_gbn_reordered_never_placed(void)
{
	static struct wire w;
	struct mrc_test_pair_cfg cfg;
	struct mrc_test_pair p;
	struct mrc_cqe e;
	const uint32_t len = 64 * 4096;

	mrc_test_pair_cfg_defaults(&cfg);
	ref_modes(&cfg);
	SETUP(p, cfg);
	wire_reset(&w, (struct wire_cfg){.latency_ns = 5 * US, .reverse = true});
	mrc_test_fill(&p.h[0], 0, len, 77);
	MRC_T_EQ(post_at(&p, 5, 0, len, 0x77), 0);
	run(&p, &w, 100000 * US);
	MRC_T_EQ(mrc_cq_poll(p.h[0].cq, &e, 1), 1);
	MRC_T_EQ(e.status, MRC_CQE_OK);
	MRC_T_EQ(mrc_cq_poll(p.h[1].cq, &e, 1), 1);
	MRC_T_EQ(e.imm, 0x77);
	MRC_T_MEMEQ(p.h[1].mem, p.h[0].mem, len);
	const struct mrc_qp_counters *rx = mrc_qp_counters(p.h[1].qp);

	MRC_T_EQ(mrc_qp_rel_rx(p.h[1].qp)->stats.ooo_pkts, 0);
	MRC_T_EQ(rx->rx_data_pkts, 64);
	MRC_T_ASSERT(rx->rx_oos_pkts > 0, "nothing arrived out of sequence");
	MRC_T_ASSERT(rx->tx_nacks > 0 && rx->tx_nacks <= rx->rx_oos_pkts, "%llu NACKs",
		(unsigned long long)rx->tx_nacks);
	MRC_T_ASSERT(mrc_qp_counters(p.h[0].qp)->tx_retx_pkts > 0, "no rewind");
	return finish(&p);
}

static int
test_zero_length_write(void)
{
	static struct wire w;
	struct mrc_test_pair_cfg cfg;
	struct mrc_test_pair p;
	struct mrc_cqe e;

	mrc_test_pair_cfg_defaults(&cfg);
	SETUP(p, cfg);
	wire_reset(&w, (struct wire_cfg){.latency_ns = US});
	MRC_T_EQ(post_at(&p, 3, 0, 0, 0x55), 0);
	run(&p, &w, 1000 * US);
	MRC_T_EQ(mrc_cq_poll(p.h[1].cq, &e, 1), 1);
	MRC_T_EQ(e.imm, 0x55);
	MRC_T_EQ(e.byte_len, 0);
	MRC_T_EQ(mrc_cq_poll(p.h[0].cq, &e, 1), 1);
	MRC_T_EQ(e.wr_id, 3);
	return finish(&p);
}

/*
 * Two arrivals 150 PSNs apart while PSN 0, lost, holds the cumulative ACK:
 * each asks for a SACK at once (a gap opens), and the responder sends
 * nothing in between (the arrivals came in one receive burst). A SACK's
 * 64-PSN bitmap cannot show both, so each needs its own: the responder
 * once moved the waiting SACK's trigger to the later arrival and the
 * earlier one was never reported, so the requester timed it out, resent a
 * packet that had arrived and blamed a path that worked.
 */
static int
test_waiting_sack_reports_far_arrivals(void)
{
	struct mrc_test_pair_cfg cfg;
	struct mrc_test_pair p;
	struct rte_mbuf *pk[64], *keep[2] = {NULL, NULL};
	struct mrc_pkt kv[2];
	unsigned int sent = 0, sacks = 0;

	mrc_test_pair_cfg_defaults(&cfg);
	cfg.attr.start_psn_tx = cfg.attr.start_psn_rx = 0;
	snprintf(cfg.attr.cc_name, sizeof(cfg.attr.cc_name), "fixed");
	cfg.attr.cc.fixed_cwnd_bytes = 256 * 4096;
	SETUP(p, cfg);
	const struct mrc_rel_tx *rtx = mrc_qp_rel_tx(p.h[0].qp);

	MRC_T_EQ(post_at(&p, 1, 0, 256 * 4096, NO_IMM), 0);
	/* The requester sends 256 packets; only PSNs 50 and 200 reach the responder. */
	for (int burst = 0; burst < 16 && sent < 256; burst++) {
		const uint16_t n = mrc_qp_tx_burst(p.h[0].qp, p.now, 0xff, &p.rand, pk, 64);

		for (uint16_t k = 0; k < n; k++) {
			struct mrc_pkt v;

			MRC_T_EQ(mrc_pkt_parse(pk[k], &p.wire, &v), MRC_WIRE_OK);
			sent += mrc_opcode_is_data(v.bth.opcode);
			if (v.bth.psn == 50 || v.bth.psn == 200) {
				keep[v.bth.psn == 200] = pk[k];
				kv[v.bth.psn == 200] = v;
			} else {
				rte_pktmbuf_free(pk[k]);
			}
		}
	}
	MRC_T_EQ(sent, 256);
	MRC_T_ASSERT(keep[0] != NULL && keep[1] != NULL, "PSNs 50 and 200 sent");
	p.now += 2 * US;
	mrc_qp_rx(p.h[1].qp, keep[0], &kv[0], p.now);
	mrc_qp_rx(p.h[1].qp, keep[1], &kv[1], p.now);
	/* Whatever SACKs the responder sends, the requester learns of both. */
	const uint16_t n = mrc_qp_tx_burst(p.h[1].qp, p.now, 0xff, &p.rand, pk, 64);

	p.now += 2 * US;
	for (uint16_t k = 0; k < n; k++) {
		struct mrc_pkt v;

		MRC_T_EQ(mrc_pkt_parse(pk[k], &p.wire, &v), MRC_WIRE_OK);
		sacks += v.bth.opcode == MRC_OP_SACK;
		mrc_qp_rx(p.h[0].qp, pk[k], &v, p.now);
	}
	MRC_T_ASSERT(sacks >= 1 && sacks <= 2, "%u SACKs", sacks);
	MRC_T_EQ(rtx->stats.acked_pkts, 2);
	mrc_test_pair_destroy(&p);
	return MRC_TEST_OK;
}

static const struct mrc_test_case cases[] = {
	MRC_TEST_CASE(test_queued_sack_has_no_deadline),
	MRC_TEST_CASE(test_lifecycle),
	MRC_TEST_CASE(test_post_checks_local_buffer),
	MRC_TEST_CASE(test_write_sprayed_reordered),
	MRC_TEST_CASE(test_next_hop_mac_read_live),
	MRC_TEST_CASE(test_imm_completions_in_order),
	MRC_TEST_CASE(test_cq_starts_over_when_drained),
	MRC_TEST_CASE(test_peer_wimm_holds_back_write_imm),
	MRC_TEST_CASE(test_imm_table_lent),
	MRC_TEST_CASE(test_ctrl_ring_lent),
	MRC_TEST_CASE(test_ctrl_ring_pool_empty),
	MRC_TEST_CASE(test_imm_table_pool_empty),
	MRC_TEST_CASE(test_imm_table_back_on_reset),
	MRC_TEST_CASE(test_bad_rkey_refused),
	MRC_TEST_CASE(test_zero_based_region),
	MRC_TEST_CASE(test_region_at_another_address),
	MRC_TEST_CASE(test_region_lanes_per_lcore),
	MRC_TEST_CASE(test_payload_iova_is_regions),
	MRC_TEST_CASE(test_region_retired_while_packets_hold_it),
	MRC_TEST_CASE(test_region_retired_idle_is_freed),
	MRC_TEST_CASE(test_region_let_go_under_a_posted_message),
	MRC_TEST_CASE(test_out_of_region_refused),
	MRC_TEST_CASE(test_other_domain_refused),
	MRC_TEST_CASE(test_rts_allocates_nothing),
	MRC_TEST_CASE(test_zero_bytes_name_no_region),
	MRC_TEST_CASE(test_retry_budget_exhausted),
	MRC_TEST_CASE(test_silent_peer_is_not_flooded),
	MRC_TEST_CASE(test_tail_loss_recovered_by_probe),
	MRC_TEST_CASE(test_tx_pending_follows_work),
	MRC_TEST_CASE(test_head_resend_goes_twice),
	MRC_TEST_CASE(test_no_second_copy_when_queued),
	MRC_TEST_CASE(test_zero_length_write),
	MRC_TEST_CASE(test_late_packet_leaves_flight_once),
	MRC_TEST_CASE(test_waiting_sack_reports_far_arrivals),
	MRC_TEST_CASE(test_loss_proven_by_path_order),
	MRC_TEST_CASE(test_sound_ev_readmitted_soon),
	MRC_TEST_CASE(test_idle_qp_probes_ev_retired_meanwhile),
	MRC_TEST_CASE(test_ev_probe_waits_for_room),
	MRC_TEST_CASE(test_gbn_needs_ecmp),
	MRC_TEST_CASE(test_ecmp_qpns_hash_to_planes),
	MRC_TEST_CASE(test_gbn_rewinds_on_gap),
	MRC_TEST_CASE(test_gbn_tail_loss_timer),
	MRC_TEST_CASE(test_gbn_reordered_never_placed),
	MRC_TEST_CASE(test_dest_worker_usid),
	MRC_TEST_CASE(test_shared_addresses),
};

MRC_TEST_MAIN("qp", cases)
