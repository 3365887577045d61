/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * bench_nic: what the emulated NIC costs per packet on a loop pair
 * (drivers/nic/mrc_nic_loop.h): a tx burst of 32 on one side and the rx
 * bursts that take them on the other, with
 *   1 queue          the plain ring pair loop mode always was (no callback);
 *   2 queues, no rule every packet hashed (RSS) through the tx callback;
 *   2 queues, 2 rules each packet classified, half to each queue.
 * Packets (SRv6, path [T0, host, worker], alternating workers) are built
 * once; after each trip their outer destination and hop limit are put back
 * (the callback consumed the T0 uSID). A measurement, not a test.
 *
 *   bench_nic [--pkts N] [--runs R]     ns per packet, median of R runs
 */

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "mrc_env.h"
#include "mrc_ev_path.h"
#include "mrc_nic_loop.h"
#include "mrc_steer.h"
#include "mrc_wire.h"

#define BURST 32
#define BLOCK 0xfcbb0000u
#define DA    (14 + 24)

static struct rte_mempool *pool;
static struct rte_mbuf *pkt[BURST];
static uint8_t orig[BURST][17]; /* hop limit, outer destination */

static int
build(void)
{
	const struct mrc_ev_layout l = MRC_EV_LAYOUT_DEFAULT;
	struct mrc_wire_cfg w;

	mrc_wire_cfg_defaults(&w);
	for (unsigned int i = 0; i < BURST; i++) {
		const struct mrc_ev_path_tmpl t = {.block = BLOCK,
			.dst_host = 1,
			.n_t1 = 1,
			.dst_workers = 2,
			.dst_worker = (uint8_t)(i & 1)};
		struct mrc_usid_path up;
		struct mrc_pkt p;

		pkt[i] = rte_pktmbuf_alloc(pool);
		if (pkt[i] == NULL)
			return -1;
		pkt[i]->data_off = 256;
		memset(&p, 0, sizeof(p));
		p.flags = MRC_PKT_F_SRV6;
		p.ip.hop_limit = 64;
		p.ip.src[0] = p.ip.dst[0] = 0xfd;
		p.ev = i;
		p.outer = p.ip;
		p.bth.opcode = MRC_OP_WRITE_ONLY;
		p.bth.pkey = MRC_BTH_DEFAULT_PKEY;
		p.bth.dqpn = 0x100;
		p.data.dma_len = 1024;
		if (mrc_ev_path(&t, &l, p.ev, &up) != 0 || mrc_srv6_set_path(&p, &up) != 0 ||
			rte_pktmbuf_append(pkt[i], 1024) == NULL ||
			mrc_pkt_build(pkt[i], &p, &w, NULL) != 0)
			return -1;
		memcpy(orig[i], rte_pktmbuf_mtod(pkt[i], uint8_t *) + 21, 17);
	}
	return 0;
}

static double
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* One run: n packets through; ns per packet, or -1. */
static double
run(struct mrc_nic_loop *lp, uint16_t nq, unsigned long n)
{
	const uint16_t a = mrc_nic_loop_port(lp, 0), b = mrc_nic_loop_port(lp, 1);
	const double t0 = now_ns();

	for (unsigned long done = 0; done < n; done += BURST) {
		struct rte_mbuf *rx[BURST];
		uint8_t from_q[BURST];
		unsigned int got = 0;

		if (rte_eth_tx_burst(a, 0, pkt, BURST) != BURST)
			return -1;
		for (uint16_t q = 0; q < nq; q++) {
			const uint16_t k = rte_eth_rx_burst(b, q, rx + got, BURST - got);

			memset(from_q + got, q, k);
			got += k;
		}
		if (got != BURST)
			return -1;
		for (unsigned int i = 0; i < BURST; i++) {
			/* Steered: queue q had worker q's packets; else any half will do. */
			const unsigned int w = nq > 1 && from_q[i] != 0 ? 1 : nq > 1 ? 0 : i & 1;

			pkt[i] = rx[i];
			memcpy(rte_pktmbuf_mtod(pkt[i], uint8_t *) + 21, orig[w], 17);
		}
	}
	return (now_ns() - t0) / (double)n;
}

static int
cmp_d(const void *x, const void *y)
{
	const double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

int
main(int argc, char **argv)
{
	static char buf[512];
	char *eargv[32];
	unsigned long n = 2000000;
	int runs = 5, opt;
	static const struct option lo[] = {{"pkts", required_argument, NULL, 'n'},
		{"runs", required_argument, NULL, 'r'}, {0}};

	while ((opt = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		if (opt == 'n')
			n = strtoul(optarg, NULL, 0);
		else if (opt == 'r')
			runs = atoi(optarg);
		else
			return 2;
	}
	if (runs < 1 || runs > 64)
		runs = 5;
	int eargc = mrc_eal_test_args(eargv, 32, buf, sizeof(buf), "bench_nic");

	if (eargc < 0 || rte_eal_init(eargc, eargv) < 0) {
		fprintf(stderr, "bench_nic: EAL does not start\n");
		return 77;
	}
	pool = rte_pktmbuf_pool_create("bench_nic", 1023, 0, 0, 2048 + 256, SOCKET_ID_ANY);
	if (pool == NULL || build() != 0) {
		fprintf(stderr, "bench_nic: no packets\n");
		return 1;
	}
	static const struct {
		const char *what;
		uint16_t nq;
		bool rules;
	} modes[] = {{"1 queue (plain rings)", 1, false}, {"2 queues, no rule", 2, false},
		{"2 queues, 2 rules", 2, true}};
	double med[3];

	for (unsigned int m = 0; m < 3; m++) {
		const struct mrc_nic_loop_cfg c = {
			.name = "bn", .n_queues = modes[m].nq, .ring_size = 256};
		struct rte_mempool *pools[2] = {pool, pool};
		struct mrc_flow *f[2];
		struct mrc_flow_err err;
		struct mrc_nic_loop *lp = mrc_nic_loop_create(&c, NULL);
		double r[64];

		if (lp == NULL || mrc_nic_loop_start(lp, pools, NULL) != 0 ||
			(modes[m].rules &&
				mrc_steer_workers(&mrc_flow_ops_rec, mrc_nic_loop_port(lp, 1),
					BLOCK, 0, 1, 2, f, &err) != 0)) {
			fprintf(stderr, "bench_nic: %s: setup failed\n", modes[m].what);
			return 1;
		}
		for (int k = 0; k < runs; k++) {
			r[k] = run(lp, modes[m].nq, n);
			if (r[k] < 0) {
				fprintf(stderr, "bench_nic: %s: packets lost\n", modes[m].what);
				return 1;
			}
		}
		qsort(r, (size_t)runs, sizeof(r[0]), cmp_d);
		med[m] = r[runs / 2];
		printf("  %-22s %6.1f ns per packet (median of %d runs of %lu; min %.1f, max "
		       "%.1f)\n",
			modes[m].what, med[m], runs, n, r[0], r[runs - 1]);
		(void)mrc_flow_ops_rec.flush(mrc_nic_loop_port(lp, 1), &err);
		mrc_nic_loop_free(lp);
	}
	printf("  classification adds %.1f ns per packet over the plain rings (%.2fx)\n",
		med[2] - med[0], med[2] / med[0]);
	return 0;
}
