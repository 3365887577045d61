/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * bench_fabric_qps: N QPs on the emulated fabric under a fake clock, for
 * the head-to-head benchmarks of MRC against its reference modes
 * (mrc_qp.h: paths ECMP, reliability GBN). A measurement, not a test.
 *  - load balance (scripts/bench/bench-balance.sh): how evenly the QPs load the
 *    planes and the T0 -> T1 links, spraying against ECMP pinning;
 *  - goodput under random loss (scripts/bench/bench-loss.sh, with --loss): bytes
 *    of completed messages per second of fabric time, sprayed SACK against
 *    one path and go-back-N.
 *
 * Host 0 writes to host 1 over 8 planes x 4 T1s of 100 Gb/s links: N QP
 * pairs (test/lib/mrc_test_qp), each sender keeping `outstanding` 256 KiB
 * messages posted, all on one fabric (drivers/fabric) through its ethdev
 * ports, each host's QPs run by the engine (lib/host: a shard per host,
 * bench_hosts.h) as the daemon runs them. Time is a fake clock stepped
 * 100 ns at a time, so a window is exactly 1 ms of fabric time however
 * loaded the machine is, and a seed gives the same run twice. After a
 * warm-up, at every window end the link counters are read: bytes
 * serialised on host 0's link of each plane (8 values) and on each link
 * from host 0's T0 to a T1 (32 values). Per window: Jain's fairness
 * index (sum x)^2 / (n sum x^2), 1 = perfectly even, 1/n = one link
 * carries all; and max / mean. Printed as one JSON object: the median,
 * worst and every window's values, host 0's uplink rate (headers
 * included) and the goodput (payload of the messages that completed inside
 * the measured windows) over them; and, summed over the senders for the
 * whole run, how the losses were found (rel's rules), resends, probes, and
 * the duplicates the receivers saw (spurious resends).
 *
 *   bench_fabric_qps --paths spray|ecmp [--reliability sack|gbn] [--qps N]
 *                    [--windows W] [--outstanding K] [--loss P] [--seed S]
 *                    [--cc NAME]   (a congestion control other than NSCC)
 *
 * The seed moves the QP numbers too (so ECMP's hash lands elsewhere) and
 * the EV values of the pools.
 */

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "bench_hosts.h"
#include "mrc_fabric.h"
#include "mrc_rel_tx.h"
#include "mrc_test_qp.h"

#define PLANES	  8
#define T1S	  4
#define MAX_QPS	  16
#define MSG	  (256u * 1024)
#define STEP_NS	  100
#define WINDOW_NS 1000000ull
#define MAX_WIN	  64
#define MEM_LEN	  (4u << 20)

static struct mrc_test_pair pairs[MAX_QPS];
static unsigned int n_qps = 8, n_windows = 10, outstanding = 4;
static uint32_t qpn_base;
static uint64_t posted[MAX_QPS], done_msgs[MAX_QPS], done_in_windows;

struct win {
	double plane_jain, plane_maxmean, link_jain, link_maxmean;
};

static void
fairness(const double *x, unsigned int n, double *jain, double *maxmean)
{
	double s = 0, s2 = 0, mx = 0;

	for (unsigned int i = 0; i < n; i++) {
		s += x[i];
		s2 += x[i] * x[i];
		mx = x[i] > mx ? x[i] : mx;
	}
	*jain = s2 > 0 ? s * s / (n * s2) : 0;
	*maxmean = s > 0 ? mx / (s / n) : 0;
}

static int
cmp_double(const void *a, const void *b)
{
	const double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double
median(double *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n == 0 ? 0 : (n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2);
}

/* Cumulative bytes on host 0's plane links and on T0 0's uplinks. */
static void
read_links(const struct mrc_fabric *f, double *plane, double *link)
{
	const unsigned int n = mrc_fabric_n_links(f);

	for (unsigned int i = 0; i < n; i++) {
		struct mrc_fabric_link_id id;
		struct mrc_fabric_link_counters c;
		enum mrc_fabric_state st;
		double loss;

		if (mrc_fabric_link_info(f, i, &id, &st, &loss, &c) != 0 || id.plane >= PLANES)
			continue;
		if (id.kind == MRC_FABRIC_LINK_HOST_UP && id.a == 0)
			plane[id.plane] = (double)c.tx_bytes;
		else if (id.kind == MRC_FABRIC_LINK_T0_T1 && id.a == 0 && id.b < T1S)
			link[id.plane * T1S + id.b] = (double)c.tx_bytes;
	}
}

static int
post_one(unsigned int q)
{
	struct mrc_test_host *s = &pairs[q].h[0], *r = &pairs[q].h[1];
	const size_t off = (size_t)(posted[q] % (MEM_LEN / MSG)) * MSG;

	if (mrc_qp_post_write(s->qp, posted[q], s->mem + off, MSG, s->key,
		    (uint64_t)(uintptr_t)r->mem + off, r->key, false, 0) != 0)
		return -1;
	posted[q]++;
	return 0;
}

static void
usage(void)
{
	fprintf(stderr,
		"usage: bench_fabric_qps --paths spray|ecmp [--reliability sack|gbn] "
		"[--qps N (1..%d)] [--windows W (1..%d)] [--seed S] [--outstanding K] "
		"[--loss P] [--cc NAME] [--order-loss-retires] [--nic-room-ns N (0: unlimited)]\n",
		MAX_QPS, MAX_WIN);
	exit(2);
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {{"paths", required_argument, NULL, 'p'},
		{"qps", required_argument, NULL, 'q'}, {"windows", required_argument, NULL, 'w'},
		{"seed", required_argument, NULL, 's'},
		{"outstanding", required_argument, NULL, 'o'},
		{"reliability", required_argument, NULL, 'r'},
		{"loss", required_argument, NULL, 'l'}, {"cc", required_argument, NULL, 'c'},
		{"order-loss-retires", no_argument, NULL, 'R'},
		{"nic-room-ns", required_argument, NULL, 'n'}, {NULL, 0, NULL, 0}};
	const char *cc = NULL;
	uint8_t paths = 0xff, rel = MRC_QP_REL_SACK;
	bool order_loss_retires = false;
	unsigned int nic_room_ns = BENCH_NIC_ROOM_NS;
	double loss = 0;
	uint64_t seed = 1;
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (strcmp(optarg, "spray") == 0)
				paths = MRC_QP_PATHS_SPRAY;
			else if (strcmp(optarg, "ecmp") == 0)
				paths = MRC_QP_PATHS_ECMP;
			else {
				fprintf(stderr, "bench_fabric_qps: --paths %s: spray or ecmp\n",
					optarg);
				return 2;
			}
			break;
		case 'q':
			n_qps = (unsigned int)atoi(optarg);
			if (n_qps < 1 || n_qps > MAX_QPS) {
				fprintf(stderr, "bench_fabric_qps: --qps %s: 1..%d\n", optarg,
					MAX_QPS);
				return 2;
			}
			break;
		case 'w':
			n_windows = (unsigned int)atoi(optarg);
			if (n_windows < 1 || n_windows > MAX_WIN) {
				fprintf(stderr, "bench_fabric_qps: --windows %s: 1..%d\n", optarg,
					MAX_WIN);
				return 2;
			}
			break;
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'r':
			if (strcmp(optarg, "sack") == 0)
				rel = MRC_QP_REL_SACK;
			else if (strcmp(optarg, "gbn") == 0)
				rel = MRC_QP_REL_GBN;
			else {
				fprintf(stderr, "bench_fabric_qps: --reliability %s: sack or gbn\n",
					optarg);
				return 2;
			}
			break;
		case 'c':
			cc = optarg;
			break;
		case 'R':
			order_loss_retires = true;
			break;
		case 'n':
			nic_room_ns = (unsigned int)atoi(optarg);
			break;
		case 'l':
			loss = strtod(optarg, NULL);
			if (!(loss >= 0 && loss <= 0.5)) {
				fprintf(stderr, "bench_fabric_qps: --loss %s: 0..0.5\n", optarg);
				return 2;
			}
			break;
		case 'o':
			outstanding = (unsigned int)atoi(optarg);
			if (outstanding < 1 || outstanding > MEM_LEN / MSG) {
				fprintf(stderr, "bench_fabric_qps: --outstanding %s: 1..%u\n",
					optarg, MEM_LEN / MSG);
				return 2;
			}
			break;
		default:
			usage();
		}
	}
	if (paths == 0xff)
		usage();
	if (mrc_test_eal_init("bench_fabric_qps") != 0) {
		fprintf(stderr, "bench_fabric_qps: EAL did not start\n");
		return 1;
	}
	/* Even QP numbers for senders, from a seed-chosen base: ECMP hashes them. */
	qpn_base = 0x1000 + (uint32_t)(seed % 4096) * 64;

	for (unsigned int q = 0; q < n_qps; q++) {
		struct mrc_test_pair_cfg pc;

		mrc_test_pair_cfg_defaults(&pc);
		pc.mem_len = MEM_LEN;
		pc.seed = seed * 1000 + q;
		pc.qpn_base = qpn_base + 2 * q;
		pc.attr.paths = paths;
		pc.attr.reliability = rel;
		pc.attr.order_loss_retires = order_loss_retires;
		if (cc != NULL)
			snprintf(pc.attr.cc_name, sizeof(pc.attr.cc_name), "%s", cc);
		/* The rate a QP can use: every plane sprayed, one pinned. */
		pc.attr.cc.link_bps = (paths == MRC_QP_PATHS_ECMP ? 1 : PLANES) * 100000000000ull;
		pc.attr.cc.base_rtt_ns = 12000;
		if (mrc_test_pair_create(&pairs[q], &pc) != 0) {
			fprintf(stderr, "bench_fabric_qps: QP pair %u not created\n", q);
			return 1;
		}
	}
	struct mrc_fabric_cfg fc;
	const char *why = NULL;

	mrc_fabric_cfg_defaults(&fc);
	fc.n_hosts = 2;
	fc.n_planes = PLANES;
	fc.n_t1 = T1S;
	fc.block = 0xfcbb0000;
	fc.seed = seed;
	fc.loss_prob = loss;
	fc.tsc_hz = MRC_TEST_HZ;
	struct mrc_fabric *f = mrc_fabric_create(&fc, &why);

	if (f == NULL || mrc_fabric_start_ports(f, pairs[0].pool) != 0) {
		fprintf(stderr, "bench_fabric_qps: fabric: %s\n", why ? why : "ports");
		return 1;
	}
	uint64_t now = 0;

	mrc_fabric_start(f, now);
	for (unsigned int q = 0; q < n_qps; q++)
		for (unsigned int k = 0; k < outstanding; k++)
			if (post_one(q) != 0)
				return 1;

	double plane0[PLANES] = {0}, link0[PLANES * T1S] = {0};
	double plane1[PLANES], link1[PLANES * T1S];
	struct win w[MAX_WIN];
	unsigned int n_w = 0;
	uint64_t errors = 0, bytes = 0;
	const uint64_t warmup_ns = WINDOW_NS, end_ns = warmup_ns + n_windows * WINDOW_NS;
	uint64_t next_ns = warmup_ns;
	struct mrc_cqe e[64];
	struct bench_hosts hosts;
	const struct bench_hosts_cfg hc = {.pairs = pairs,
		.n_pairs = n_qps,
		.qpn_base = qpn_base,
		.n_hosts = 2,
		.n_planes = PLANES,
		.nic_room_ns = nic_room_ns,
		.link_gbps = 100,
		.seed = seed};

	if (bench_hosts_create(&hosts, f, &hc, now) != 0)
		return 1;
	while (now <= end_ns) {
		bench_hosts_step(&hosts, now);
		for (unsigned int q = 0; q < n_qps; q++) {
			unsigned int n;

			while ((n = mrc_cq_poll(pairs[q].h[0].cq, e, RTE_DIM(e))) > 0)
				for (unsigned int k = 0; k < n; k++) {
					errors += e[k].status != MRC_CQE_OK;
					done_msgs[q]++;
					done_in_windows += now > warmup_ns && now <= end_ns;
					if (now < end_ns && post_one(q) != 0)
						errors++;
				}
			while (mrc_cq_poll(pairs[q].h[1].cq, e, RTE_DIM(e)) > 0)
				;
		}
		if (now == next_ns) {
			read_links(f, plane1, link1);
			if (now > warmup_ns) {
				double dp[PLANES], dl[PLANES * T1S];

				for (unsigned int k = 0; k < PLANES; k++) {
					dp[k] = plane1[k] - plane0[k];
					bytes += (uint64_t)dp[k];
				}
				for (unsigned int k = 0; k < PLANES * T1S; k++)
					dl[k] = link1[k] - link0[k];
				fairness(dp, PLANES, &w[n_w].plane_jain, &w[n_w].plane_maxmean);
				fairness(dl, PLANES * T1S, &w[n_w].link_jain, &w[n_w].link_maxmean);
				n_w++;
			}
			memcpy(plane0, plane1, sizeof(plane0));
			memcpy(link0, link1, sizeof(link0));
			next_ns += WINDOW_NS;
		}
		now += STEP_NS;
	}

	double v[4][MAX_WIN], worst[4] = {1e9, 0, 1e9, 0};
	const uint64_t host_errors = bench_hosts_errors(&hosts);
	uint64_t total_done = 0, lost[MRC_REL_LOSS_MAX] = {0}, retx = 0, probes = 0, dups = 0;

	for (unsigned int q = 0; q < n_qps; q++) {
		const struct mrc_rel_tx_stats *st = &mrc_qp_rel_tx(pairs[q].h[0].qp)->stats;

		total_done += done_msgs[q];
		for (unsigned int k = 0; k < MRC_REL_LOSS_MAX; k++)
			lost[k] += st->lost[k];
		retx += st->retx_pkts;
		probes += st->probes_asked;
		dups += mrc_qp_counters(pairs[q].h[1].qp)->rx_dup_pkts;
	}

	for (unsigned int k = 0; k < n_w; k++) {
		v[0][k] = w[k].plane_jain;
		v[1][k] = w[k].plane_maxmean;
		v[2][k] = w[k].link_jain;
		v[3][k] = w[k].link_maxmean;
		worst[0] = RTE_MIN(worst[0], v[0][k]);
		worst[1] = RTE_MAX(worst[1], v[1][k]);
		worst[2] = RTE_MIN(worst[2], v[2][k]);
		worst[3] = RTE_MAX(worst[3], v[3][k]);
	}
	printf("{\"paths\": \"%s\", \"reliability\": \"%s\", \"loss\": %g, \"qps\": %u, "
	       "\"seed\": %llu, \"windows\": %u, \"window_ms\": 1, \"goodput_gbps\": %.3f, "
	       "\"plane_jain\": [",
		paths == MRC_QP_PATHS_ECMP ? "ecmp" : "spray",
		rel == MRC_QP_REL_GBN ? "gbn" : "sack", loss, n_qps, (unsigned long long)seed, n_w,
		(double)done_in_windows * MSG * 8 / ((double)n_w * WINDOW_NS));
	for (unsigned int k = 0; k < n_w; k++)
		printf("%s%.5f", k ? ", " : "", w[k].plane_jain);
	printf("], \"link_jain\": [");
	for (unsigned int k = 0; k < n_w; k++)
		printf("%s%.5f", k ? ", " : "", w[k].link_jain);
	printf("],\n \"plane_jain_median\": %.5f, \"plane_maxmean_median\": %.4f, "
	       "\"link_jain_median\": %.5f, \"link_maxmean_median\": %.4f,\n"
	       " \"plane_jain_worst\": %.5f, \"plane_maxmean_worst\": %.4f, "
	       "\"link_jain_worst\": %.5f, \"link_maxmean_worst\": %.4f,\n"
	       " \"uplink_gbps\": %.2f, \"msgs_done\": %llu, \"errors\": %llu,\n"
	       " \"lost_by\": {\"ev_order\": %llu, \"time\": %llu, \"pkt_timeout\": %llu, "
	       "\"rto\": %llu, \"nack\": %llu, \"rewind\": %llu}, \"retx_pkts\": %llu, "
	       "\"probes\": %llu, \"rx_dup_pkts\": %llu}\n",
		median(v[0], n_w), median(v[1], n_w), median(v[2], n_w), median(v[3], n_w),
		worst[0], worst[1], worst[2], worst[3],
		(double)bytes * 8 / ((double)n_w * WINDOW_NS), (unsigned long long)total_done,
		(unsigned long long)(errors + host_errors),
		(unsigned long long)lost[MRC_REL_LOSS_EV_ORDER],
		(unsigned long long)lost[MRC_REL_LOSS_TIME],
		(unsigned long long)lost[MRC_REL_LOSS_PKT_TIMEOUT],
		(unsigned long long)lost[MRC_REL_LOSS_RTO],
		(unsigned long long)lost[MRC_REL_LOSS_NACK],
		(unsigned long long)lost[MRC_REL_LOSS_REWIND], (unsigned long long)retx,
		(unsigned long long)probes, (unsigned long long)dups);
	bench_hosts_free(&hosts);
	mrc_fabric_free(f);
	for (unsigned int q = 0; q < n_qps; q++)
		mrc_test_pair_destroy(&pairs[q]);
	return errors + host_errors == 0 ? 0 : 1;
}
