/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * bench_fabric: what the emulated fabric costs per forwarded packet on a
 * 3-switch path (host -> T0 -> T1 -> T0 -> host): the host's tx burst
 * into the ring port, ingress, four link queues, three FIB lookups with
 * NEXT-C-SID shifts, four heap events, delivery and the host's rx burst.
 * A measurement, not a test.
 *
 * Packets are built once (lib/wire, paths from lib/ev's mrc_ev_path over
 * the 4 T1s). After a packet comes out, its outer DA and hop limit are put
 * back (17 bytes) and it is sent again, so packet building is not in the
 * numbers. Each round sends a burst from host 0, polls with a fake clock
 * 20 us later than the round before (every packet of the previous round is
 * through by then), and receives the previous round's burst at host 1.
 *
 *   bench_fabric [--pkts N] [--burst B] [--runs R]   ns per packet, median of R runs
 *   bench_fabric --pkts N --quiet                    for callgrind (no output)
 */

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <unistd.h>

#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "mrc_env.h"
#include "mrc_ev_path.h"
#include "mrc_fabric.h"
#include "mrc_srv6.h"

#define HZ	  1000000000ull
#define ROUND_NS  20000u
#define MAX_BURST 1024u
#define PAYLOAD	  1024u
#define HOP_LIMIT 64

struct slot {
	struct rte_mbuf *m;
	uint8_t da[16];
	uint16_t l3_off;
};

static struct rte_mempool *pool;
static struct mrc_fabric *fab;
static struct slot slots[MAX_BURST];
static struct mrc_wire_cfg wire;

static struct rte_mbuf *
build(unsigned int i, const struct mrc_fabric_cfg *c)
{
	const struct mrc_ev_layout layout = MRC_EV_LAYOUT_DEFAULT;
	const struct mrc_ev_path_tmpl t = {
		.block = c->block, .src_t0 = 0, .dst_t0 = 1, .dst_host = 1, .n_t1 = c->n_t1};
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	struct mrc_usid_path up;
	struct mrc_pkt p;

	if (m == NULL)
		return NULL;
	m->data_off = 256;
	if (rte_pktmbuf_append(m, PAYLOAD) == NULL)
		return NULL;
	memset(rte_pktmbuf_mtod(m, void *), 0x5a, PAYLOAD);
	memset(&p, 0, sizeof(p));
	memcpy(p.ip.src, c->nic_addr[0], 16);
	memcpy(p.ip.dst, c->nic_addr[1], 16);
	p.ip.hop_limit = HOP_LIMIT;
	p.ip.dscp = wire.dscp.trimmable;
	p.ip.ecn = 0; /* not ECN-capable: no marking draws on the way */
	p.flags = MRC_PKT_F_SRV6;
	p.outer = p.ip;
	p.outer.src[0] = 0xfc;
	p.ev = (i & 3) << 20 | i; /* plane 0, T1 i mod 4 */
	if (mrc_ev_path(&t, &layout, p.ev, &up) != 0 || mrc_srv6_set_path(&p, &up) != 0)
		return NULL;
	p.bth.opcode = MRC_OP_WRITE_ONLY;
	p.bth.pkey = MRC_BTH_DEFAULT_PKEY;
	p.bth.psn = i;
	p.data.dma_len = PAYLOAD;
	if (mrc_pkt_build(m, &p, &wire, NULL) != 0)
		return NULL;
	m->hash.usr = i;
	slots[i].m = m;
	slots[i].l3_off = RTE_ETHER_HDR_LEN;
	memcpy(slots[i].da, p.outer.dst, 16);
	return m;
}

static int
setup(unsigned int burst)
{
	char buf[512], *argv[32];
	int argc = mrc_eal_test_args(argv, 32, buf, sizeof(buf), "bench_fabric");
	struct mrc_fabric_cfg c;
	const char *why = NULL;

	if (argc < 0 || rte_eal_init(argc, argv) < 0)
		return -1;
	rmdir(rte_eal_get_runtime_dir()); /* empty: no telemetry, no shared config */
	pool = rte_pktmbuf_pool_create(
		"bench", 4095, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	if (pool == NULL)
		return -1;
	mrc_wire_cfg_defaults(&wire);
	mrc_fabric_cfg_defaults(&c);
	c.n_hosts = 2;
	c.n_planes = 1;
	c.n_t1 = 4;
	c.tsc_hz = HZ;
	c.ring_size = 2048;
	fab = mrc_fabric_create(&c, &why);
	if (fab == NULL) {
		fprintf(stderr, "bench_fabric: %s\n", why);
		return -1;
	}
	if (mrc_fabric_start_ports(fab, pool) != 0)
		return -1;
	mrc_fabric_start(fab, 0);
	for (unsigned int i = 0; i < burst; i++)
		if (build(i, &c) == NULL)
			return -1;
	return 0;
}

/* Put back what the switches changed: the outer DA and hop limit. */
static inline void
rewind_pkt(struct rte_mbuf *m)
{
	const struct slot *s = &slots[m->hash.usr];
	uint8_t *ip = rte_pktmbuf_mtod_offset(m, uint8_t *, s->l3_off);

	memcpy(ip + 24, s->da, 16);
	ip[7] = HOP_LIMIT;
}

/* Forward `n_pkts` packets in rounds of `burst`; returns packets delivered. */
static uint64_t
run(uint64_t n_pkts, unsigned int burst, uint64_t *now)
{
	const uint16_t tx = mrc_fabric_port(fab, 0, 0), rx = mrc_fabric_port(fab, 1, 0);
	struct rte_mbuf *out[MAX_BURST], *in[MAX_BURST];
	unsigned int n_out = burst;
	uint64_t got = 0, sent = 0;

	for (unsigned int i = 0; i < burst; i++)
		out[i] = slots[i].m;
	while (got < n_pkts) {
		if (sent < n_pkts && n_out > 0) {
			const uint16_t k = rte_eth_tx_burst(tx, 0, out, (uint16_t)n_out);

			sent += k;
			n_out = 0;
		}
		*now += ROUND_NS;
		mrc_fabric_poll(fab, *now);
		for (;;) {
			const uint16_t k = rte_eth_rx_burst(rx, 0, in, 64);

			if (k == 0)
				break;
			for (uint16_t j = 0; j < k; j++) {
				rewind_pkt(in[j]);
				out[n_out++] = in[j];
			}
			got += k;
		}
	}
	/* Drain what the last round sent. */
	*now += ROUND_NS;
	mrc_fabric_poll(fab, *now);
	*now += ROUND_NS;
	mrc_fabric_poll(fab, *now);
	for (uint16_t k; (k = rte_eth_rx_burst(rx, 0, in, 64)) > 0;)
		for (uint16_t j = 0; j < k; j++)
			rewind_pkt(in[j]); /* every slot is ready for the next run */
	return got;
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int
cmp_double(const void *a, const void *b)
{
	const double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {{"pkts", 1, NULL, 'n'}, {"burst", 1, NULL, 'b'},
		{"runs", 1, NULL, 'r'}, {"quiet", 0, NULL, 'Q'}, {NULL, 0, NULL, 0}};
	uint64_t n_pkts = 1000000, now = 0;
	unsigned int burst = 32, runs = 5;
	bool quiet = false;
	double ns[99];
	int o;

	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case 'n':
			n_pkts = strtoull(optarg, NULL, 10);
			break;
		case 'b':
			burst = (unsigned int)atoi(optarg);
			break;
		case 'r':
			runs = (unsigned int)atoi(optarg);
			break;
		case 'Q':
			quiet = true;
			break;
		default:
			printf("usage: %s [--pkts N] [--burst B] [--runs R] [--quiet]\n", argv[0]);
			return 2;
		}
	}
	if (burst < 1 || burst > MAX_BURST || runs < 1 || runs > 99 || n_pkts < burst) {
		fprintf(stderr, "bench_fabric: --burst 1..1024, --runs 1..99, --pkts >= burst\n");
		return 2;
	}
	if (setup(burst) != 0) {
		fprintf(stderr, "bench_fabric: setup failed\n");
		return 1;
	}
	if (quiet) {
		/* One run, no timing: callgrind counts what it costs. */
		return run(n_pkts, burst, &now) >= n_pkts ? 0 : 1;
	}
	run(n_pkts / 10 + burst, burst, &now); /* warm up */
	for (unsigned int r = 0; r < runs; r++) {
		const double t0 = now_s();
		const uint64_t got = run(n_pkts, burst, &now);

		ns[r] = (now_s() - t0) * 1e9 / (double)got;
	}
	qsort(ns, runs, sizeof(ns[0]), cmp_double);
	const struct mrc_fabric_counters *c = mrc_fabric_counters(fab);

	printf("bench_fabric: %u-byte payload, 3 switches (host -> T0 -> T1 -> T0 -> host), "
	       "%u packets per round\n",
		PAYLOAD, burst);
	printf("  %.1f ns per forwarded packet (median of %u runs of %llu; min %.1f, max %.1f)\n",
		ns[runs / 2], runs, (unsigned long long)n_pkts, ns[0], ns[runs - 1]);
	printf("  %llu delivered, %llu dropped in all\n", (unsigned long long)c->delivered_pkts,
		(unsigned long long)(c->host_tx_pkts - c->delivered_pkts));
	mrc_fabric_free(fab);
	rte_mempool_free(pool);
	rte_eal_cleanup();
	return 0;
}
