/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * bench_incast: N:1 incast of real QPs on the emulated fabric under a fake
 * clock. A measurement, not a
 * test: the same seed gives the same run, however loaded the machine is.
 *
 * The network is the daemon's incast benchmark (config/bench/incast.ini):
 * N + 1 hosts x 4 planes, one host per T0, 4 T1s per plane, every link
 * 0.25 Gb/s with 1 us of propagation, 64 KB data queues, ECN 8..24 KB (not
 * on the last hop) and trimming above --trim-kb (0: tail drop at the queue
 * limit). Hosts 1..N each keep `outstanding` 256 KiB writes posted to host
 * 0, one QP pair per sender, each host the engine (lib/host, a shard per
 * host: bench_hosts.h), with the daemon's transport settings (NSCC with
 * link = 4 planes x 0.25 Gb/s and the base RTT the fabric implies, NACKs for
 * trims, timeout 12, first RTT and per-packet timeout from the base RTT).
 * Host 0's four last-hop links are the bottleneck.
 *
 * Messages are posted during --ms of fabric time, then the run drains
 * until every one completed. Completion time = post to the sender's CQE.
 * The ideal is the fair share (scripts/bench/bench-incast.sh explains it):
 *
 *   ideal = N x outstanding x message wire bytes / (4 x 0.25 Gb/s) + base RTT
 *
 * Printed as one JSON object: p50/p99/max of every message's completion
 * time (exact, nearest rank) and over the ideal; per sender its messages,
 * worst completion, bytes, trims and resends, its window's min / mean /
 * max, NSCC's event counts, and the time its last message completed; Jain's
 * fairness index of the senders' delivered bytes per 10 ms. --trace adds
 * every sender's window and acked bytes each millisecond.
 *
 *   bench_incast [--senders N] [--trim-kb K] [--ms T] [--seed S]
 *                [--outstanding K] [--cc NAME] [--trace]
 *
 * --trim-kb 0 also tells NSCC that the fabric does not trim.
 */

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "mrc_cc.h"
#include "bench_hosts.h"
#include "mrc_fabric.h"
#include "mrc_test_qp.h"

#define PLANES	    4
#define T1S	    4
#define LINK_GBPS   0.25
#define DELAY_NS    1000
#define FRAME_BYTES 24
#define HDR_BYTES   150 /* SRv6, inner IPv6, UDP, BTH, METH, RETH, ICRC */
#define SACK_BYTES  150
#define MAX_SENDERS 15
#define MSG	    (256u * 1024)
#define MTU	    4096u
#define STEP_NS	    500
#define FAIR_NS	    10000000ull /* fairness window */
#define TRACE_NS    1000000ull
#define MAX_TRACE   4096
#define MEM_LEN	    (2u << 20)
#define MAX_MSGS    (1u << 16)

struct sender {
	uint64_t posted, done, bytes_done, last_done_ns;
	uint64_t post_ns[MEM_LEN / MSG * 4]; /* by wr_id modulo */
	double worst_us, cwnd_sum;
	uint64_t cwnd_samples, win_bytes0;
};

static struct mrc_test_pair pairs[MAX_SENDERS];
static uint8_t hosts[MAX_SENDERS][2]; /* sender q on fabric host q + 1, receivers on host 0 */
static struct sender snd[MAX_SENDERS];
static unsigned int n_snd = 7, outstanding = 2;
static uint32_t qpn_base = 0x1000;
static double done_us[MAX_MSGS];
static unsigned int n_done;
static uint32_t trace_cwnd[MAX_TRACE][MAX_SENDERS];
static uint64_t trace_acked[MAX_TRACE][MAX_SENDERS];
static unsigned int n_trace;

static int
post_one(unsigned int q, uint64_t now)
{
	struct mrc_test_host *s = &pairs[q].h[0], *r = &pairs[q].h[1];
	const uint64_t id = snd[q].posted;
	const size_t off = (size_t)(id % (MEM_LEN / MSG)) * MSG;

	if (mrc_qp_post_write(s->qp, id, s->mem + off, MSG, s->key,
		    (uint64_t)(uintptr_t)r->mem + off, r->key, false, 0) != 0)
		return -1;
	snd[q].post_ns[id % RTE_DIM(snd[q].post_ns)] = now;
	snd[q].posted++;
	return 0;
}

static int
cmp_double(const void *a, const void *b)
{
	const double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Nearest-rank percentile of a sorted array. */
static double
pct(const double *v, unsigned int n, double p)
{
	unsigned int k;

	if (n == 0)
		return 0;
	k = (unsigned int)(p / 100.0 * n + 0.999999);
	return v[k == 0 ? 0 : RTE_MIN(k, n) - 1];
}

static double
ser_us(double bytes)
{
	return bytes * 8 / (LINK_GBPS * 1e3);
}

static void
usage(void)
{
	fprintf(stderr,
		"usage: bench_incast [--senders N (1..%d)] [--trim-kb K] [--ms T] "
		"[--seed S] [--outstanding K] [--cc NAME] [--trace] [--nic-room-ns N (0: "
		"unlimited)]\n",
		MAX_SENDERS);
	exit(2);
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {{"senders", required_argument, NULL, 'n'},
		{"trim-kb", required_argument, NULL, 't'}, {"ms", required_argument, NULL, 'm'},
		{"seed", required_argument, NULL, 's'},
		{"outstanding", required_argument, NULL, 'o'}, {"cc", required_argument, NULL, 'c'},
		{"trace", no_argument, NULL, 'T'}, {"nic-room-ns", required_argument, NULL, 'N'},
		{NULL, 0, NULL, 0}};
	const char *cc = NULL;
	unsigned int trim_kb = 32, run_ms = 1000, nic_room_ns = BENCH_NIC_ROOM_NS;
	uint64_t seed = 1;
	bool trace = false;
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			n_snd = (unsigned int)atoi(optarg);
			if (n_snd < 1 || n_snd > MAX_SENDERS)
				usage();
			break;
		case 't':
			trim_kb = (unsigned int)atoi(optarg);
			break;
		case 'm':
			run_ms = (unsigned int)atoi(optarg);
			if (run_ms < 1 || run_ms > 60000)
				usage();
			break;
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'o':
			outstanding = (unsigned int)atoi(optarg);
			if (outstanding < 1 || outstanding > MEM_LEN / MSG)
				usage();
			break;
		case 'c':
			cc = optarg;
			break;
		case 'T':
			trace = true;
			break;
		case 'N':
			nic_room_ns = (unsigned int)atoi(optarg);
			break;
		default:
			usage();
		}
	}
	if (mrc_test_eal_init("bench_incast") != 0) {
		fprintf(stderr, "bench_incast: EAL did not start\n");
		return 1;
	}

	/* As mrcd_config_base_rtt_ns(): 4 links, data one way, a SACK back. */
	const double base_rtt_us =
		4 * (2.0 * DELAY_NS / 1e3 + ser_us(MTU + HDR_BYTES + FRAME_BYTES) +
			    ser_us(SACK_BYTES + FRAME_BYTES));
	const double wire = (double)((MSG + MTU - 1) / MTU) * (MTU + HDR_BYTES + FRAME_BYTES);
	const double ideal_us =
		n_snd * outstanding * wire * 8 / (PLANES * LINK_GBPS * 1e3) + base_rtt_us;
	const uint64_t rtt_ns = (uint64_t)(base_rtt_us * 1000);

	for (unsigned int q = 0; q < n_snd; q++) {
		struct mrc_test_pair_cfg pc;

		mrc_test_pair_cfg_defaults(&pc);
		pc.n_planes = PLANES;
		mrc_qp_attr_defaults(&pc.attr, PLANES, MRC_TEST_HZ);
		pc.mem_len = MEM_LEN;
		pc.seed = seed * 1000 + q;
		pc.qpn_base = qpn_base + 2 * q;
		hosts[q][0] = (uint8_t)(q + 1);
		hosts[q][1] = 0;
		memcpy(pc.host, hosts[q], sizeof(pc.host));
		if (cc != NULL)
			snprintf(pc.attr.cc_name, sizeof(pc.attr.cc_name), "%s", cc);
		/*
		 * What mrcd runs with config/bench/incast.ini (mrcd_config_qp_attr):
		 * the library's defaults (mrc_qp_defaults.h) but for this
		 * network's rate and RTT, the daemon's timeout and that config's
		 * EV probe interval.
		 */
		pc.attr.cc.link_bps = (uint64_t)(PLANES * LINK_GBPS * 1e9);
		pc.attr.cc.base_rtt_ns = (uint32_t)rtt_ns;
		pc.attr.cc.trimming_enabled = trim_kb != 0;
		pc.attr.timeout = 12;
		pc.attr.initial_rtt_tsc = rtt_ns;
		pc.attr.min_pkt_timeout_tsc = 2 * rtt_ns;
		pc.attr.ev.probe_interval_tsc = 1000 * 1000; /* 1000 us */
		if (mrc_test_pair_create(&pairs[q], &pc) != 0) {
			fprintf(stderr, "bench_incast: QP pair %u not created\n", q);
			return 1;
		}
	}
	struct mrc_fabric_cfg fc;
	const char *why = NULL;

	mrc_fabric_cfg_defaults(&fc);
	fc.n_hosts = (uint16_t)(n_snd + 1);
	fc.n_planes = PLANES;
	fc.n_t1 = T1S;
	fc.link_gbps = LINK_GBPS;
	fc.link_delay_ns = DELAY_NS;
	fc.frame_overhead_bytes = FRAME_BYTES;
	fc.queue_limit_bytes = 64000;
	fc.ecn_kmin_bytes = 8000;
	fc.ecn_kmax_bytes = 24000;
	fc.trim_threshold_bytes = trim_kb * 1000;
	fc.seed = seed;
	fc.tsc_hz = MRC_TEST_HZ;
	struct mrc_fabric *f = mrc_fabric_create(&fc, &why);

	if (f == NULL || mrc_fabric_start_ports(f, pairs[0].pool) != 0) {
		fprintf(stderr, "bench_incast: fabric: %s\n", why ? why : "ports");
		return 1;
	}
	uint64_t now = 0, errors = 0, next_fair = FAIR_NS, next_trace = 0;
	const uint64_t post_end = (uint64_t)run_ms * 1000000, hard_end = post_end * 4 + 1000000000;
	double jain_sum = 0, jain_min = 1;
	unsigned int n_fair = 0;
	struct mrc_cqe e[64];
	struct bench_hosts bh;
	const struct bench_hosts_cfg hc = {.pairs = pairs,
		.n_pairs = n_snd,
		.qpn_base = qpn_base,
		.hosts = hosts,
		.n_hosts = n_snd + 1,
		.n_planes = PLANES,
		.nic_room_ns = nic_room_ns,
		.link_gbps = LINK_GBPS,
		.seed = seed};

	mrc_fabric_start(f, now);
	if (bench_hosts_create(&bh, f, &hc, now) != 0)
		return 1;
	for (unsigned int q = 0; q < n_snd; q++)
		for (unsigned int k = 0; k < outstanding; k++)
			if (post_one(q, now) != 0)
				return 1;

	for (; now < hard_end; now += STEP_NS) {
		unsigned int busy = 0;

		bench_hosts_step(&bh, now);
		for (unsigned int q = 0; q < n_snd; q++) {
			struct sender *s = &snd[q];
			unsigned int n;

			while ((n = mrc_cq_poll(pairs[q].h[0].cq, e, RTE_DIM(e))) > 0)
				for (unsigned int k = 0; k < n; k++) {
					const double us =
						(double)(now - s->post_ns[e[k].wr_id %
									  RTE_DIM(s->post_ns)]) /
						1e3;

					errors += e[k].status != MRC_CQE_OK;
					s->done++;
					s->bytes_done += MSG;
					s->last_done_ns = now;
					s->worst_us = RTE_MAX(s->worst_us, us);
					if (n_done < MAX_MSGS)
						done_us[n_done++] = us;
					if (now < post_end && post_one(q, now) != 0)
						errors++;
				}
			while (mrc_cq_poll(pairs[q].h[1].cq, e, RTE_DIM(e)) > 0)
				;
			busy += s->done < s->posted;
		}
		if (now >= next_trace) {
			for (unsigned int q = 0; q < n_snd; q++) {
				struct mrc_cc_stats st;

				mrc_cc_stats(mrc_qp_cc(pairs[q].h[0].qp), &st);
				snd[q].cwnd_sum += st.cwnd_bytes;
				snd[q].cwnd_samples++;
				if (trace && n_trace < MAX_TRACE) {
					trace_cwnd[n_trace][q] = st.cwnd_bytes;
					trace_acked[n_trace][q] =
						mrc_qp_counters(pairs[q].h[1].qp)->rx_data_bytes;
				}
			}
			n_trace += trace && n_trace < MAX_TRACE;
			next_trace += TRACE_NS;
		}
		if (now >= next_fair && now <= post_end) {
			double sum = 0, sum2 = 0;

			for (unsigned int q = 0; q < n_snd; q++) {
				const uint64_t b = mrc_qp_counters(pairs[q].h[1].qp)->rx_data_bytes;
				const double x = (double)(b - snd[q].win_bytes0);

				sum += x;
				sum2 += x * x;
				snd[q].win_bytes0 = b;
			}
			if (sum2 > 0) {
				const double j = sum * sum / (n_snd * sum2);

				jain_sum += j;
				jain_min = RTE_MIN(jain_min, j);
				n_fair++;
			}
			next_fair += FAIR_NS;
		}
		if (now >= post_end && busy == 0)
			break;
	}

	qsort(done_us, n_done, sizeof(*done_us), cmp_double);
	const struct mrc_fabric_counters *fcnt = mrc_fabric_counters(f);
	const double p50 = pct(done_us, n_done, 50), p99 = pct(done_us, n_done, 99),
		     mx = n_done ? done_us[n_done - 1] : 0;

	printf("{\"senders\": %u, \"outstanding\": %u, \"msg_kib\": %u, \"trim_kb\": %u, "
	       "\"seed\": %llu, \"post_ms\": %u, \"end_ms\": %.3f, \"cc\": \"%s\",\n"
	       " \"base_rtt_us\": %.3f, \"ideal_us\": %.3f, \"msgs\": %u,\n"
	       " \"p50_us\": %.1f, \"p99_us\": %.1f, \"max_us\": %.1f, "
	       "\"p50_over_ideal\": %.4f, \"p99_over_ideal\": %.4f, \"max_over_ideal\": %.4f,\n"
	       " \"goodput_gbps\": %.4f, \"jain_10ms_mean\": %.4f, \"jain_10ms_min\": %.4f,\n"
	       " \"fabric_trims\": %llu, \"fabric_trims_lasthop\": %llu, \"fabric_drops\": %llu,\n"
	       " \"per_sender\": [",
		n_snd, outstanding, MSG / 1024, trim_kb, (unsigned long long)seed, run_ms,
		(double)now / 1e6, cc ? cc : MRC_CC_NSCC, base_rtt_us, ideal_us, n_done, p50, p99,
		mx, p50 / ideal_us, p99 / ideal_us, mx / ideal_us,
		(double)n_done * MSG * 8 / (double)now, n_fair ? jain_sum / n_fair : 0, jain_min,
		(unsigned long long)fcnt->trims, (unsigned long long)fcnt->trims_lasthop,
		(unsigned long long)fcnt->drop_queue);
	for (unsigned int q = 0; q < n_snd; q++) {
		const struct mrc_qp_counters *qc = mrc_qp_counters(pairs[q].h[0].qp);
		struct mrc_cc_stats st;

		mrc_cc_stats(mrc_qp_cc(pairs[q].h[0].qp), &st);
		printf("%s\n  {\"msgs\": %llu, \"worst_us\": %.1f, \"last_done_ms\": %.3f, "
		       "\"pkts\": %llu, \"resent\": %llu, \"trims\": %llu, \"losses\": %llu, "
		       "\"timeouts\": %llu, \"cwnd_min\": %u, \"cwnd_mean\": %.0f, \"cwnd_max\": "
		       "%u, "
		       "\"md\": %llu, \"qa\": %llu, \"fi\": %llu, \"pi\": %llu, \"fast\": %llu}",
			q ? "," : "", (unsigned long long)snd[q].done, snd[q].worst_us,
			(double)snd[q].last_done_ns / 1e6, (unsigned long long)qc->tx_data_pkts,
			(unsigned long long)qc->tx_retx_pkts, (unsigned long long)st.trims,
			(unsigned long long)st.losses, (unsigned long long)st.timeouts,
			st.min_cwnd_bytes,
			snd[q].cwnd_samples ? snd[q].cwnd_sum / (double)snd[q].cwnd_samples : 0,
			st.max_cwnd_bytes, (unsigned long long)st.md_events,
			(unsigned long long)st.qa_events, (unsigned long long)st.fi_events,
			(unsigned long long)st.pi_events, (unsigned long long)st.fast_events);
	}
	printf("]");
	if (trace) {
		printf(",\n \"trace_ms\": 1, \"trace_cwnd\": [");
		for (unsigned int q = 0; q < n_snd; q++) {
			printf("%s\n  [", q ? "," : "");
			for (unsigned int t = 0; t < n_trace; t++)
				printf("%s%u", t ? "," : "", trace_cwnd[t][q]);
			printf("]");
		}
		printf("],\n \"trace_rx_bytes\": [");
		for (unsigned int q = 0; q < n_snd; q++) {
			printf("%s\n  [", q ? "," : "");
			for (unsigned int t = 0; t < n_trace; t++)
				printf("%s%llu", t ? "," : "",
					(unsigned long long)trace_acked[t][q]);
			printf("]");
		}
		printf("]");
	}
	errors += bench_hosts_errors(&bh);
	printf(", \"errors\": %llu}\n", (unsigned long long)errors);
	bench_hosts_free(&bh);
	mrc_fabric_free(f);
	for (unsigned int q = 0; q < n_snd; q++)
		mrc_test_pair_destroy(&pairs[q]);
	return errors == 0 && n_done > 0 ? 0 : 1;
}
