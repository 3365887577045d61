/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * bench_qp: what the transport costs per delivered data packet, sender and
 * receiver together, on one core: build (header mbuf, payload attached from
 * the registered region, ICRC), parse, placement (the copy into the target
 * region), SACK generation, SACK processing, completions. Packets go
 * straight from one QP to its peer (no network model) so only our code is
 * measured. A measurement, not a test.
 *
 *   bench_qp [--qps N] [--pkts N] [--payload B] [--runs R]   table, median of R runs
 *   bench_qp --qps N --pkts N --quiet                        for callgrind
 *
 * With N QP pairs, messages are posted round-robin so every QP is active
 * and the working set is N times larger (cache misses show).
 */

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <unistd.h>

#include <rte_eal.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "mrc_env.h"
#include "mrc_qp.h"

#define HZ 1000000000ull

struct host {
	struct mrc_mr_table *mrs;
	struct mrc_cq *cq;
	uint8_t *mem;
	uint32_t key;
};

static struct host hosts[2];
static struct rte_mempool *pool;
static struct mrc_qp **qps; /* qps[2k] sends to qps[2k+1] */
static struct mrc_rand rnd;
static struct mrc_wire_cfg wire;
static uint64_t parse_errors;

static int
setup(unsigned int n_pairs, uint16_t mtu, size_t mem_len)
{
	char buf[512], *argv[32];
	int argc = mrc_eal_test_args(argv, 32, buf, sizeof(buf), "bench_qp");
	struct mrc_qp_attr a;

	if (argc < 0 || rte_eal_init(argc, argv) < 0)
		return -1;
	rmdir(rte_eal_get_runtime_dir()); /* empty: no telemetry, no shared config */
	pool = rte_pktmbuf_pool_create("bench", 65535, 256, 0, 512, SOCKET_ID_ANY);
	if (pool == NULL)
		return -1;
	mrc_rand_seed(&rnd, 1);
	mrc_wire_cfg_defaults(&wire);
	for (int i = 0; i < 2; i++) {
		hosts[i].mrs = calloc(1, mrc_mr_table_memsize(4));
		hosts[i].cq = calloc(1, mrc_cq_memsize(65536));
		hosts[i].mem = rte_zmalloc("m", mem_len, 64);
		if (!hosts[i].mrs || !hosts[i].cq || !hosts[i].mem)
			return -1;
		mrc_mr_table_init(hosts[i].mrs, 4);
		mrc_cq_init(hosts[i].cq, 65536);
		memset(hosts[i].mem, 0x5a, mem_len);
		hosts[i].key = mrc_mr_register(hosts[i].mrs, hosts[i].mem, mem_len, 0,
			MRC_MR_ACCESS_LOCAL_READ | MRC_MR_ACCESS_REMOTE_WRITE);
	}
	qps = calloc(2 * n_pairs, sizeof(*qps));
	mrc_qp_attr_defaults(&a, 8, HZ);
	snprintf(a.cc_name, sizeof(a.cc_name), "fixed"); /* measure the datapath, not CC's ramp */
	a.cc.fixed_cwnd_bytes = 1u << 20;
	for (unsigned int q = 0; q < 2 * n_pairs; q++) {
		const unsigned int side = q & 1;
		struct mrc_qp_init in = {
			.qpn = 0x1000 + q,
			.sq_size = 64,
			.mtu = mtu,
			.tsc_hz = HZ,
			.mrs = hosts[side].mrs,
			.cq = hosts[side].cq,
			.hdr_pool = pool,
			.wire = wire,
			.socket = SOCKET_ID_ANY,
		};
		const char *why = NULL;

		in.addr.srv6 = true;
		in.addr.path = (struct mrc_ev_path_tmpl){.block = 0xfcbb0000,
			.src_t0 = (uint8_t)side,
			.dst_t0 = (uint8_t)(1 - side),
			.dst_host = 1,
			.n_t1 = 4};
		qps[q] = mrc_qp_create(&in, &why);
		if (qps[q] == NULL) {
			fprintf(stderr, "bench_qp: %s\n", why);
			return -1;
		}
		a.dest_qpn = 0x1000 + (q ^ 1);
		for (int to = MRC_QP_INIT; to <= MRC_QP_RTS; to++)
			if (mrc_qp_modify(qps[q], (enum mrc_qp_state)to, &a, 0, &rnd, &why) != 0) {
				fprintf(stderr, "bench_qp: %s\n", why);
				return -1;
			}
	}
	return 0;
}

/* Move `pkts` data packets through `n_pairs` pairs; returns data packets delivered. */
static uint64_t
run(unsigned int n_pairs, uint64_t pkts, uint32_t msg_len, uint16_t mtu, uint64_t *now)
{
	const uint32_t per_msg = (msg_len + mtu - 1) / mtu;
	uint64_t delivered = 0, msgs = 0, target = pkts / per_msg;
	struct rte_mbuf *pk[64];
	struct mrc_cqe cqe[256];

	while (delivered < target * per_msg) {
		for (unsigned int k = 0; k < n_pairs; k++) {
			struct mrc_qp *s = qps[2 * k], *r = qps[2 * k + 1];

			if (msgs < target &&
				mrc_qp_post_write(s, msgs, hosts[0].mem, msg_len, hosts[0].key,
					(uint64_t)(uintptr_t)hosts[1].mem, hosts[1].key, false,
					0) == 0)
				msgs++;
			for (int dir = 0; dir < 2; dir++) {
				struct mrc_qp *from = dir ? r : s, *to = dir ? s : r;
				uint16_t n = mrc_qp_tx_burst(from, *now, 0xff, &rnd, pk, 64);

				for (uint16_t j = 0; j < n; j++) {
					struct mrc_pkt v;

					if (mrc_pkt_parse(pk[j], &wire, &v) != MRC_WIRE_OK) {
						parse_errors++;
						rte_pktmbuf_free(pk[j]);
						continue;
					}
					mrc_qp_rx(to, pk[j], &v, *now);
				}
			}
			mrc_qp_poll(r, *now);
		}
		*now += 50;
		for (int i = 0; i < 2; i++)
			while (mrc_cq_poll(hosts[i].cq, cqe, 256) > 0)
				;
		delivered = 0;
		for (unsigned int k = 0; k < n_pairs; k++)
			delivered += mrc_qp_counters(qps[2 * k + 1])->rx_data_pkts;
	}
	return delivered;
}

static double
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int
main(int argc, char **argv)
{
	static const struct option lo[] = {{"qps", 1, NULL, 'q'}, {"pkts", 1, NULL, 'p'},
		{"payload", 1, NULL, 'b'}, {"runs", 1, NULL, 'r'}, {"quiet", 0, NULL, 'Q'},
		{"help", 0, NULL, 'h'}, {NULL, 0, NULL, 0}};
	unsigned int n_pairs = 1, runs = 5;
	uint64_t pkts = 200000, now = 0;
	uint16_t mtu = 4096;
	bool quiet = false;
	double t[99];
	int c;

	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'q':
			n_pairs = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 'p':
			pkts = strtoull(optarg, NULL, 0);
			break;
		case 'b':
			mtu = (uint16_t)strtoul(optarg, NULL, 0);
			break;
		case 'r':
			runs = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 'Q':
			quiet = true;
			break;
		default:
			printf("usage: %s [--qps N] [--pkts N] [--payload BYTES] [--runs R] "
			       "[--quiet]\n",
				argv[0]);
			return c == 'h' ? 0 : 2;
		}
	}
	if (n_pairs == 0 || n_pairs > 4096 || runs == 0 || runs > 99 || mtu < 256 || mtu > 9000) {
		fprintf(stderr, "bench_qp: --qps 1..4096, --runs 1..99, --payload 256..9000\n");
		return 2;
	}
	const uint32_t msg_len = 16u * mtu;

	if (setup(n_pairs, mtu, msg_len + 4096) != 0) {
		fprintf(stderr, "bench_qp: setup failed\n");
		return 1;
	}
	if (quiet) {
		run(n_pairs, pkts, msg_len, mtu, &now);
		return 0;
	}
	run(n_pairs, pkts / 10 + 16, msg_len, mtu, &now); /* warm up */
	for (unsigned int r = 0; r < runs; r++) {
		uint64_t before = 0, after = 0;

		for (unsigned int k = 0; k < n_pairs; k++)
			before += mrc_qp_counters(qps[2 * k + 1])->rx_data_pkts;
		double t0 = now_ns();

		run(n_pairs, before + pkts, msg_len, mtu, &now);
		double dt = now_ns() - t0;

		for (unsigned int k = 0; k < n_pairs; k++)
			after += mrc_qp_counters(qps[2 * k + 1])->rx_data_pkts;
		t[r] = dt / (double)(after - before);
	}
	qsort(t, runs, sizeof(t[0]), cmp);
	uint64_t retx = 0;

	for (unsigned int k = 0; k < n_pairs; k++)
		retx += mrc_qp_counters(qps[2 * k])->tx_retx_pkts;
	printf("bench_qp: %u QP pair(s), %u B payload, %u-packet messages, median of %u runs\n",
		n_pairs, mtu, msg_len / mtu, runs);
	printf("  %.1f ns per delivered data packet (sender + receiver, one core), %.2f Mpps, "
	       "%.2f Gb/s of payload; %llu resends\n",
		t[runs / 2], 1e3 / t[runs / 2], mtu * 8 / t[runs / 2], (unsigned long long)retx);
	printf("  memory per QP in RTS: %zu bytes; parse errors: %llu\n", mrc_qp_mem_bytes(qps[0]),
		(unsigned long long)parse_errors);
	return parse_errors == 0 ? 0 : 1;
}
