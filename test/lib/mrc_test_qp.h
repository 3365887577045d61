/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRC_TEST_QP_H
#define MRC_TEST_QP_H

/*
 * A connected pair of QPs on two simulated hosts, for the transport tests:
 * EAL (hugepages if usable, --no-huge otherwise) started once per process,
 * one mbuf pool, and per host a region of memory registered for both
 * sending and receiving, a CQ and a QP taken to RTS. Time is a fake TSC
 * at 1 GHz (1 tick = 1 ns) that the tests advance.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_mempool.h>

#include "mrc_qp.h"

#define MRC_TEST_HZ 1000000000ull

struct mrc_test_host {
	struct mrc_mr_table *mrs;
	struct mrc_cq *cq;
	struct mrc_qp *qp;
	uint8_t *mem;
	size_t mem_len;
	uint32_t key;
};

struct mrc_test_pair_cfg {
	uint8_t n_planes;
	bool srv6;
	uint16_t mtu;
	size_t mem_len;		 /* per host */
	struct mrc_qp_attr attr; /* as both QPs get it (dest_qpn set by the fixture) */
	uint64_t seed;
	bool zero_based;   /* regions addressed from 0 (MRC_MR_ZERO_BASED) */
	uint32_t qpn_base; /* host i's QPN is qpn_base + i; 0 = 0x100 */
	/*
	 * Fabric host numbers (drivers/fabric addressing, one host per T0) of
	 * h[0] and h[1]; {0, 0} means {0, 1}. Many pairs can so share hosts,
	 * e.g. an incast: every pair's h[1] on host 0.
	 */
	uint8_t host[2];
	/* The fabric's shape the paths are built for: hosts per T0 (0 = 1), T1s per plane (0 = 4).
	 */
	uint8_t hosts_per_t0, n_t1;
	struct mrc_trk_pool *trk_pool;	/* shared in-flight tracking pool; NULL = one per QP */
	struct mrc_trk_pool *imm_pool;	/* shared Write-IMM tables; NULL = one per QP */
	struct mrc_trk_pool *ctrl_pool; /* shared control answer rings; NULL = one per QP */
	const uint64_t *next_hop_mac;	/* h[0]'s live next-hop MACs (mrc_qp_addr); NULL: static */
};

struct mrc_test_pair {
	struct rte_mempool *pool;
	struct mrc_test_host h[2];
	struct mrc_rand rand;
	struct mrc_wire_cfg wire;
	uint64_t now;
};

/* Start the EAL once per process; 0, or MRC_TEST_SKIP when it cannot start here. */
int mrc_test_eal_init(const char *prefix);

/* Defaults: 8 planes, SRv6, MTU 4096, 4 MiB per host, default attributes. */
void mrc_test_pair_cfg_defaults(struct mrc_test_pair_cfg *cfg);

/* 0, or -1 (and says why on stderr). */
int mrc_test_pair_create(struct mrc_test_pair *p, const struct mrc_test_pair_cfg *cfg);
void mrc_test_pair_destroy(struct mrc_test_pair *p);

/*
 * Run n pairs (at most MRC_TEST_PAIRS_RUN_MAX) until every QP of every
 * pair is idle, or max_rounds rounds: a pair's packets reach the peer on
 * the pair's next turn (a round of latency, so senders hold their
 * in-flight blocks across turns); each turn adds 200 ns to the pair's
 * clock. Packets still on their way at the end are freed.
 */
#define MRC_TEST_PAIRS_RUN_MAX 4
void mrc_test_pairs_run(struct mrc_test_pair *ps, unsigned int n, unsigned int max_rounds);

/* Fill host h's memory with a pattern derived from `seed`. */
void mrc_test_fill(struct mrc_test_host *h, size_t off, size_t len, uint32_t seed);

#endif /* MRC_TEST_QP_H */
