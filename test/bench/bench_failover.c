/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * bench_failover: a fault in the middle of a transfer on the emulated
 * fabric, under a fake clock. A measurement, not a test.
 *
 * Host 0 writes to host 1 over 8 planes x 4 T1s of 100 Gb/s links: N QP
 * pairs (test/lib/mrc_test_qp), each sender keeping `outstanding`
 * WRITE-with-immediate messages posted, every one verified byte for byte
 * at the receiver when the sender sees it complete. Time is a fake clock
 * stepped 100 ns, so every microsecond below is exact whatever the load of
 * the machine, and a seed gives the same run twice. Each host is the
 * engine (lib/host, a shard per host: bench_hosts.h); its port mask is its
 * ports' link state (mrc_shard_refresh_links, as the daemon's control
 * thread reads it) and its QPs' peer-plane mask is the peer's (port-status
 * updates, taken as instant). At --fault-us one fault is applied through
 * the fabric's fault API (drivers/fabric/mrc_fabric.h):
 *   plane     plane P DOWN: both hosts see their port go down
 *   plane-bh  plane P BLACKHOLE: ports stay up, nothing is forwarded
 *   link      the cable T0 0 - T1 B of plane P DOWN (both directions);
 *             the hosts see nothing (it is not their cable)
 *   t1-bh     T1 B of plane P BLACKHOLE (up, forwards nothing)
 *   none      no fault (the reference run)
 * with P = seed % 8 and B = (seed / 8) % 4. The surviving capacity is 7/8
 * of the hosts' for the planes; for a link or a T1 it is all of it (each T0
 * has 4 x 100 Gb/s toward the T1s of a plane for one 100 Gb/s host port).
 *
 * Measured (times in us from the fault):
 *  (a) ev_retired_us: first EV of a sender's pool retired (ASSUMED_BAD,
 *      with or without a backup to replace it);
 *  (b) recovered_us: goodput is payload bytes placed at the receiver
 *      (its QPs' rx_data_bytes) per bin_us window. Before: the mean over
 *      the last 1000 us before the fault. Target: 0.95 x before x the
 *      surviving fraction. recovered_us is the start of the first window
 *      from which the mean goodput of every later run of `hold` windows
 *      (hold_us, to the end of the run) stays >= target; a single 10 us
 *      window is a few hundred packets, so the run average keeps the
 *      window-to-window noise of CC at full load out of the figure;
 *  (c) stall_msg_us / stall_pkt_us: the largest gap between successive
 *      message completions at the receiver (any QP), and between successive
 *      data packets placed, counted from the last one before the fault to
 *      the end; also the worst single QP's message gap;
 *  (d) msgs lost (posted - completed after a drain) and bytes verified.
 * Also, after the fault: EV probes sent (per second, from 1 ms after the
 * fault, when any first reaction is over), data packets resent, packets the
 * fabric dropped at the dead element, and the pools' counters.
 *
 *   bench_failover --fault none|plane|plane-bh|link|t1-bh [--seed S] [--qps N]
 *                  [--outstanding K] [--msg-kib M] [--fault-us T] [--after-us A]
 *                  [--bin-us W] [--hold-us H] [--series] [--cc NAME]
 *
 * Prints one JSON object; --series adds the goodput of every bin.
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
#define STEP_NS	  100
#define MEM_LEN	  (4u << 20)
#define MAX_US	  200000u
#define DRAIN_US  100000u
#define BEFORE_US 1000u

enum fault { F_NONE, F_PLANE, F_PLANE_BH, F_LINK, F_T1_BH };
static const char *const fault_names[] = {"none", "plane", "plane-bh", "link", "t1-bh"};

static struct mrc_test_pair pairs[MAX_QPS];
static unsigned int n_qps = 8, outstanding = 8, msg_bytes = 64u * 1024;
static uint32_t qpn_base;
static uint64_t posted[MAX_QPS], done_ok[MAX_QPS], recv_done[MAX_QPS];
static uint64_t verify_errors, verified_bytes, errors;
static uint64_t placed_us[MAX_US]; /* payload bytes placed at the receiver, per us */

static uint64_t
max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/* What a message of QP q with sequence number seq carries. */
static void
fill_msg(unsigned int q, uint64_t seq)
{
	struct mrc_test_host *s = &pairs[q].h[0];
	const size_t off = (size_t)(seq % (MEM_LEN / msg_bytes)) * msg_bytes;

	mrc_test_fill(s, off, msg_bytes, (uint32_t)(q * 1000003u + seq));
}

static int
post_one(unsigned int q)
{
	struct mrc_test_host *s = &pairs[q].h[0], *r = &pairs[q].h[1];
	const size_t off = (size_t)(posted[q] % (MEM_LEN / msg_bytes)) * msg_bytes;

	fill_msg(q, posted[q]);
	if (mrc_qp_post_write(s->qp, posted[q], s->mem + off, msg_bytes, s->key,
		    (uint64_t)(uintptr_t)r->mem + off, r->key, true, (uint32_t)posted[q]) != 0)
		return -1;
	posted[q]++;
	return 0;
}

/* The sender saw message `seq` complete: the receiver must hold its bytes. */
static void
verify(unsigned int q, uint64_t seq)
{
	const size_t off = (size_t)(seq % (MEM_LEN / msg_bytes)) * msg_bytes;

	if (memcmp(pairs[q].h[0].mem + off, pairs[q].h[1].mem + off, msg_bytes) != 0)
		verify_errors++;
	else
		verified_bytes += msg_bytes;
}

/* Sums over the QPs of host h. */
struct sums {
	uint64_t rx_bytes, rx_pkts, ev_probes, retx, ev_losses, retired, no_backup, floor_holds,
		n_bad, readmitted, rel_probes, rto, plane_outs, dead_planes;
};

static void
sums(unsigned int h, struct sums *s)
{
	memset(s, 0, sizeof(*s));
	for (unsigned int q = 0; q < n_qps; q++) {
		const struct mrc_qp *qp = pairs[q].h[h].qp;
		const struct mrc_qp_counters *c = mrc_qp_counters(qp);
		const struct mrc_ev_pool *ev = mrc_qp_ev_pool(qp);
		const struct mrc_rel_tx *rt = mrc_qp_rel_tx(qp);

		s->rx_bytes += c->rx_data_bytes;
		s->rx_pkts += c->rx_data_pkts;
		s->ev_probes += c->tx_ev_probes;
		s->retx += c->tx_retx_pkts;
		s->ev_losses += c->ev_losses;
		s->rel_probes += c->tx_probes;
		if (rt != NULL)
			s->rto += rt->stats.rto_fired;
		if (ev != NULL) {
			const struct mrc_ev_pool_counters *k = mrc_ev_counters(ev);

			s->retired += k->retired;
			s->no_backup += k->no_backup;
			s->floor_holds += k->floor_holds;
			s->readmitted += k->readmitted;
			s->plane_outs += k->plane_outs;
			s->dead_planes += k->dead_planes;
			s->n_bad += ev->n_bad;
		}
	}
}

static int
apply_fault(struct mrc_fabric *f, enum fault k, unsigned int plane, unsigned int t1)
{
	struct mrc_fabric_target t = {.plane = (uint8_t)plane, .dir = MRC_FABRIC_DIR_BOTH};

	switch (k) {
	case F_PLANE:
		return mrc_fabric_set_plane(f, plane, MRC_FABRIC_DOWN);
	case F_PLANE_BH:
		return mrc_fabric_set_plane(f, plane, MRC_FABRIC_BLACKHOLE);
	case F_LINK:
		t.elem = MRC_FABRIC_ELEM_LINK;
		t.a = 0; /* host 0's T0 */
		t.b = (uint16_t)t1;
		return mrc_fabric_set_state(f, &t, MRC_FABRIC_DOWN);
	case F_T1_BH:
		t.elem = MRC_FABRIC_ELEM_T1;
		t.a = (uint16_t)t1;
		return mrc_fabric_set_state(f, &t, MRC_FABRIC_BLACKHOLE);
	default:
		return 0;
	}
}

static void
usage(void)
{
	fprintf(stderr,
		"usage: bench_failover --fault none|plane|plane-bh|link|t1-bh [--seed S] "
		"[--qps N (1..%d)] [--outstanding K] [--msg-kib M] [--fault-us T] [--after-us A] "
		"[--bin-us W] [--hold-us H] [--series] [--cc NAME] [--nic-room-ns N (0: "
		"unlimited)]\n",
		MAX_QPS);
	exit(2);
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {{"fault", required_argument, NULL, 'f'},
		{"seed", required_argument, NULL, 's'}, {"qps", required_argument, NULL, 'q'},
		{"outstanding", required_argument, NULL, 'o'},
		{"msg-kib", required_argument, NULL, 'm'},
		{"fault-us", required_argument, NULL, 't'},
		{"after-us", required_argument, NULL, 'a'},
		{"bin-us", required_argument, NULL, 'b'}, {"hold-us", required_argument, NULL, 'H'},
		{"series", no_argument, NULL, 'S'}, {"cc", required_argument, NULL, 'c'},
		{"nic-room-ns", required_argument, NULL, 'n'}, {NULL, 0, NULL, 0}};
	int fault = -1, c;
	uint64_t seed = 1;
	unsigned int fault_us = 2000, after_us = 3000, bin_us = 10, hold_us = 50;
	unsigned int nic_room_ns = BENCH_NIC_ROOM_NS;
	bool series = false;
	const char *cc = NULL;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			for (int k = 0; k < (int)RTE_DIM(fault_names); k++)
				if (strcmp(optarg, fault_names[k]) == 0)
					fault = k;
			if (fault < 0)
				usage();
			break;
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'q':
			n_qps = (unsigned int)atoi(optarg);
			if (n_qps < 1 || n_qps > MAX_QPS)
				usage();
			break;
		case 'o':
			outstanding = (unsigned int)atoi(optarg);
			break;
		case 'm':
			msg_bytes = (unsigned int)atoi(optarg) * 1024u;
			break;
		case 't':
			fault_us = (unsigned int)atoi(optarg);
			break;
		case 'a':
			after_us = (unsigned int)atoi(optarg);
			break;
		case 'b':
			bin_us = (unsigned int)atoi(optarg);
			break;
		case 'H':
			hold_us = (unsigned int)atoi(optarg);
			break;
		case 'S':
			series = true;
			break;
		case 'c':
			cc = optarg;
			break;
		case 'n':
			nic_room_ns = (unsigned int)atoi(optarg);
			break;
		default:
			usage();
		}
	}
	if (fault < 0 || msg_bytes == 0 || msg_bytes > MEM_LEN || outstanding < 1 ||
		outstanding > MEM_LEN / msg_bytes || fault_us < BEFORE_US + 500 || bin_us < 1 ||
		hold_us < bin_us || (uint64_t)fault_us + after_us + DRAIN_US >= MAX_US)
		usage();
	if (mrc_test_eal_init("bench_failover") != 0) {
		fprintf(stderr, "bench_failover: EAL did not start\n");
		return 1;
	}
	qpn_base = 0x1000 + (uint32_t)(seed % 4096) * 64;
	for (unsigned int q = 0; q < n_qps; q++) {
		struct mrc_test_pair_cfg pc;

		mrc_test_pair_cfg_defaults(&pc);
		pc.mem_len = MEM_LEN;
		pc.seed = seed * 1000 + q;
		pc.qpn_base = qpn_base + 2 * q;
		pc.attr.cc.link_bps = PLANES * 100000000000ull;
		pc.attr.cc.base_rtt_ns = 12000;
		if (cc != NULL)
			snprintf(pc.attr.cc_name, sizeof(pc.attr.cc_name), "%s", cc);
		if (mrc_test_pair_create(&pairs[q], &pc) != 0) {
			fprintf(stderr, "bench_failover: QP pair %u not created\n", q);
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
	fc.tsc_hz = MRC_TEST_HZ;
	struct mrc_fabric *f = mrc_fabric_create(&fc, &why);

	if (f == NULL || mrc_fabric_start_ports(f, pairs[0].pool) != 0) {
		fprintf(stderr, "bench_failover: fabric: %s\n", why ? why : "ports");
		return 1;
	}
	const unsigned int plane = (unsigned int)(seed % PLANES);
	const unsigned int t1 = (unsigned int)((seed / PLANES) % T1S);
	const double surviving =
		fault == F_PLANE || fault == F_PLANE_BH ? (double)(PLANES - 1) / PLANES : 1.0;
	const uint64_t fault_ns = (uint64_t)fault_us * 1000;
	const uint64_t end_ns = fault_ns + (uint64_t)after_us * 1000;
	const uint64_t drain_end_ns = end_ns + (uint64_t)DRAIN_US * 1000;
	const uint64_t probe_from_ns = fault_ns + (after_us > 2000 ? 1000000 : 0);
	uint64_t now = 0;
	struct bench_hosts hosts;
	const struct bench_hosts_cfg hc = {.pairs = pairs,
		.n_pairs = n_qps,
		.qpn_base = qpn_base,
		.n_hosts = 2,
		.n_planes = PLANES,
		.nic_room_ns = nic_room_ns,
		.link_gbps = 100,
		.seed = seed};

	mrc_fabric_start(f, now);
	if (bench_hosts_create(&hosts, f, &hc, now) != 0)
		return 1;
	for (unsigned int q = 0; q < n_qps; q++)
		for (unsigned int k = 0; k < outstanding; k++)
			if (post_one(q) != 0)
				return 1;

	struct mrc_cqe e[64];
	struct sums s0 = {0}, s1 = {0}, at_fault[2], at_probe_from[2];
	struct mrc_fabric_counters fab_at_fault = {0}, fab_at_probe_from = {0};
	uint64_t ev_retired_ns = UINT64_MAX, retired_at_fault = 0;
	uint64_t last_rx_pkts = 0, last_pkt_ns = 0, stall_pkt_ns = 0, stall_pkt_before_ns = 0;
	uint64_t last_msg_ns = 0, stall_msg_ns = 0, stall_msg_before_ns = 0;
	uint64_t last_msg_q[MAX_QPS] = {0}, stall_msg_q_ns = 0;
	bool faulted = false, drained = false, ended = false;
	uint64_t srtt_ns = 0, reo_ns = 0, pto_ns = 0, rtt_min_ns = 0, rtt_max_ns = 0;

	while (now <= drain_end_ns) {
		if (!faulted && now >= fault_ns) {
			if (apply_fault(f, (enum fault)fault, plane, t1) != 0) {
				fprintf(stderr, "bench_failover: fault not applied\n");
				return 1;
			}
			sums(0, &at_fault[0]);
			sums(1, &at_fault[1]);
			fab_at_fault = *mrc_fabric_counters(f);
			retired_at_fault = at_fault[0].retired + at_fault[0].no_backup;
			faulted = true;
			{
				const struct mrc_rel_tx *rt = mrc_qp_rel_tx(pairs[0].h[0].qp);

				srtt_ns = rt->srtt_tsc;
				reo_ns = mrc_rel_tx_reo_wnd(rt);
				pto_ns = mrc_rel_tx_pkt_timeout(rt);
				rtt_min_ns = rt->min_rtt_tsc;
				rtt_max_ns = rt->max_rtt_tsc;
			}
		}
		if (now == probe_from_ns) {
			sums(0, &at_probe_from[0]);
			sums(1, &at_probe_from[1]);
			fab_at_probe_from = *mrc_fabric_counters(f);
		}
		/*
		 * The control thread reads each host's ports' link state (the
		 * shard's port mask), here every us, and tells the peer (its
		 * QPs' peer planes: port-status updates, taken as instant).
		 */
		if (now % 1000 == 0)
			for (unsigned int i = 0; i < 2; i++) {
				const uint32_t m = mrc_shard_refresh_links(hosts.shard[i]);

				for (unsigned int q = 0; q < n_qps; q++)
					mrc_qp_set_peer_planes(pairs[q].h[1 - i].qp, m);
			}
		bench_hosts_step(&hosts, now);
		for (unsigned int q = 0; q < n_qps; q++) {
			unsigned int n;

			while ((n = mrc_cq_poll(pairs[q].h[0].cq, e, RTE_DIM(e))) > 0)
				for (unsigned int k = 0; k < n; k++) {
					if (e[k].status != MRC_CQE_OK) {
						errors++;
						continue;
					}
					verify(q, e[k].wr_id);
					done_ok[q]++;
					if (now < end_ns && post_one(q) != 0)
						errors++;
				}
			while ((n = mrc_cq_poll(pairs[q].h[1].cq, e, RTE_DIM(e))) > 0)
				for (unsigned int k = 0; k < n; k++) {
					if (e[k].opcode != MRC_CQE_RECV_IMM ||
						e[k].status != MRC_CQE_OK)
						continue;
					recv_done[q]++;
					/* Stalls are measured while the senders keep posting. */
					if (now <= end_ns) {
						const uint64_t gap = now - last_msg_ns;
						const uint64_t gq = now - last_msg_q[q];

						if (now >= fault_ns)
							stall_msg_ns = RTE_MAX(stall_msg_ns, gap);
						else if (now > fault_ns - BEFORE_US * 1000)
							stall_msg_before_ns =
								RTE_MAX(stall_msg_before_ns, gap);
						if (now >= fault_ns)
							stall_msg_q_ns =
								RTE_MAX(stall_msg_q_ns, gq);
					}
					last_msg_ns = now;
					last_msg_q[q] = now;
				}
		}
		sums(0, &s0);
		sums(1, &s1);
		if (now <= end_ns) {
			placed_us[now / 1000] = s1.rx_bytes; /* cumulative; differenced below */
			if (s1.rx_pkts != last_rx_pkts) {
				const uint64_t gap = now - last_pkt_ns;

				if (now >= fault_ns)
					stall_pkt_ns = RTE_MAX(stall_pkt_ns, gap);
				else if (now > fault_ns - BEFORE_US * 1000)
					stall_pkt_before_ns = RTE_MAX(stall_pkt_before_ns, gap);
				last_pkt_ns = now;
				last_rx_pkts = s1.rx_pkts;
			}
		}
		if (faulted && ev_retired_ns == UINT64_MAX &&
			s0.retired + s0.no_backup > retired_at_fault)
			ev_retired_ns = now - fault_ns;
		if (now > end_ns && !ended) {
			/*
			 * A stall still open when the senders stop posting counts too.
			 * Completions in this very step are already past end_ns.
			 */
			const uint64_t m = max_u64(last_msg_ns, fault_ns);
			const uint64_t p = max_u64(last_pkt_ns, fault_ns);

			stall_msg_ns = RTE_MAX(stall_msg_ns, end_ns > m ? end_ns - m : 0);
			stall_pkt_ns = RTE_MAX(stall_pkt_ns, end_ns > p ? end_ns - p : 0);
			ended = true;
		}
		if (now > end_ns) {
			bool idle = true;

			for (unsigned int q = 0; q < n_qps && idle; q++)
				idle = done_ok[q] == posted[q] && recv_done[q] == posted[q];
			if (idle) {
				drained = true;
				break;
			}
		}
		now += STEP_NS;
	}

	/* Goodput per bin (Gb/s), from the cumulative bytes placed per us. */
	const unsigned int n_us = (unsigned int)(end_ns / 1000);
	const unsigned int n_bins = n_us / bin_us;
	static double gbps[MAX_US];

	for (unsigned int b = 0; b < n_bins; b++) {
		const unsigned int e_us = (b + 1) * bin_us - 1;
		const uint64_t hi = placed_us[e_us];
		const uint64_t lo = b == 0 ? 0 : placed_us[b * bin_us - 1];

		gbps[b] = (double)(hi - lo) * 8 / (bin_us * 1000.0);
	}
	const unsigned int fault_bin = fault_us / bin_us;
	const unsigned int before_bins = BEFORE_US / bin_us;
	const unsigned int hold = hold_us / bin_us;
	double before = 0, after = 0;

	for (unsigned int b = fault_bin - before_bins; b < fault_bin; b++)
		before += gbps[b] / before_bins;
	for (unsigned int b = n_bins - before_bins; b < n_bins; b++)
		after += gbps[b] / before_bins;
	const double target = 0.95 * before * surviving;
	/* Latest start of a hold-run whose mean is below target: recovery is after it. */
	int64_t recovered_bin = fault_bin;

	for (unsigned int b = fault_bin; b + hold <= n_bins; b++) {
		double m = 0;

		for (unsigned int k = 0; k < hold; k++)
			m += gbps[b + k] / hold;
		if (m < target)
			recovered_bin = b + 1;
	}
	const bool recovered = recovered_bin + hold <= (int64_t)n_bins;
	/* The same test on the windows before the fault: how often CC alone dips. */
	unsigned int dips_before = 0;

	for (unsigned int b = fault_bin - before_bins; b + hold <= fault_bin; b++) {
		double m = 0;

		for (unsigned int k = 0; k < hold; k++)
			m += gbps[b + k] / hold;
		dips_before += m < 0.95 * before;
	}

	uint64_t total_posted = 0, total_done = 0, total_recv = 0;

	for (unsigned int q = 0; q < n_qps; q++) {
		total_posted += posted[q];
		total_done += done_ok[q];
		total_recv += recv_done[q];
	}
	const struct mrc_fabric_counters *fe = mrc_fabric_counters(f);
	const double probe_s = (double)(end_ns - probe_from_ns) / 1e9;

	sums(0, &s0);
	sums(1, &s1);
	errors += bench_hosts_errors(&hosts);
	printf("{\"fault\": \"%s\", \"plane\": %u, \"t1\": %u, \"seed\": %llu, \"qps\": %u, "
	       "\"outstanding\": %u, \"msg_bytes\": %u, \"fault_us\": %u, \"after_us\": %u, "
	       "\"bin_us\": %u, \"hold_us\": %u, \"surviving_fraction\": %.4f,\n",
		fault_names[fault], plane, t1, (unsigned long long)seed, n_qps, outstanding,
		msg_bytes, fault_us, after_us, bin_us, hold_us, surviving);
	printf(" \"goodput_before_gbps\": %.2f, \"goodput_after_gbps\": %.2f, "
	       "\"target_gbps\": %.2f, \"hold_runs_below_before_fault\": %u,\n",
		before, after, target, dips_before);
	printf(" \"qp0_at_fault\": {\"srtt_us\": %.1f, \"rtt_min_us\": %.1f, \"rtt_max_us\": %.1f, "
	       "\"reorder_window_us\": %.1f, \"pkt_timeout_us\": %.1f},\n",
		srtt_ns / 1e3, rtt_min_ns / 1e3, rtt_max_ns / 1e3, reo_ns / 1e3, pto_ns / 1e3);
	printf(" \"ev_retired_us\": %.1f, \"recovered_us\": %.1f, \"recovered\": %s,\n",
		ev_retired_ns == UINT64_MAX ? -1.0 : (double)ev_retired_ns / 1000,
		recovered ? (double)(recovered_bin - fault_bin) * bin_us : -1.0,
		recovered ? "true" : "false");
	printf(" \"stall_msg_us\": %.1f, \"stall_msg_qp_us\": %.1f, \"stall_pkt_us\": %.1f, "
	       "\"stall_msg_before_us\": %.1f, \"stall_pkt_before_us\": %.1f,\n",
		(double)stall_msg_ns / 1000, (double)stall_msg_q_ns / 1000,
		(double)stall_pkt_ns / 1000, (double)stall_msg_before_ns / 1000,
		(double)stall_pkt_before_ns / 1000);
	printf(" \"msgs_posted\": %llu, \"msgs_completed\": %llu, \"msgs_received\": %llu, "
	       "\"msgs_lost\": %llu, \"bytes_verified\": %llu, \"verify_errors\": %llu, "
	       "\"drained\": %s, \"errors\": %llu,\n",
		(unsigned long long)total_posted, (unsigned long long)total_done,
		(unsigned long long)total_recv, (unsigned long long)(total_posted - total_done),
		(unsigned long long)verified_bytes, (unsigned long long)verify_errors,
		drained ? "true" : "false", (unsigned long long)errors);
	printf(" \"after_fault\": {\"resent_pkts\": %llu, \"ev_losses\": %llu, "
	       "\"evs_retired\": %llu, \"evs_lost_no_backup\": %llu, \"floor_holds\": %llu, "
	       "\"readmitted\": %llu, \"evs_bad_at_end\": %llu, \"rel_probes\": %llu, "
	       "\"rto_fired\": %llu, \"ev_probes\": %llu, \"fabric_dropped_at_fault\": %llu, "
	       "\"plane_outs\": %llu, \"dead_planes\": %llu},\n",
		(unsigned long long)(s0.retx - at_fault[0].retx),
		(unsigned long long)(s0.ev_losses - at_fault[0].ev_losses),
		(unsigned long long)(s0.retired - at_fault[0].retired),
		(unsigned long long)(s0.no_backup - at_fault[0].no_backup),
		(unsigned long long)(s0.floor_holds - at_fault[0].floor_holds),
		(unsigned long long)(s0.readmitted - at_fault[0].readmitted),
		(unsigned long long)s0.n_bad,
		(unsigned long long)(s0.rel_probes + s1.rel_probes - at_fault[0].rel_probes -
				     at_fault[1].rel_probes),
		(unsigned long long)(s0.rto - at_fault[0].rto),
		(unsigned long long)(s0.ev_probes + s1.ev_probes - at_fault[0].ev_probes -
				     at_fault[1].ev_probes),
		(unsigned long long)(fe->drop_down + fe->drop_blackhole - fab_at_fault.drop_down -
				     fab_at_fault.drop_blackhole),
		(unsigned long long)(s0.plane_outs - at_fault[0].plane_outs),
		(unsigned long long)(s0.dead_planes - at_fault[0].dead_planes));
	RTE_SET_USED(fab_at_probe_from);
	printf(" \"steady\": {\"from_us_after_fault\": %.0f, \"ev_probes_per_s\": %.0f, "
	       "\"fabric_drops_per_s\": %.0f, \"resent_per_s\": %.0f}",
		(double)(probe_from_ns - fault_ns) / 1000,
		probe_s > 0 ? (double)(s0.ev_probes + s1.ev_probes - at_probe_from[0].ev_probes -
				       at_probe_from[1].ev_probes) /
				      probe_s
			    : 0.0,
		probe_s > 0
			? (double)(fe->drop_down + fe->drop_blackhole -
				   fab_at_probe_from.drop_down - fab_at_probe_from.drop_blackhole) /
				  probe_s
			: 0.0,
		probe_s > 0 ? (double)(s0.retx - at_probe_from[0].retx) / probe_s : 0.0);
	if (series) {
		printf(",\n \"series_gbps\": [");
		for (unsigned int b = 0; b < n_bins; b++)
			printf("%s%.1f", b ? ", " : "", gbps[b]);
		printf("]");
	}
	printf("}\n");
	bench_hosts_free(&hosts);
	mrc_fabric_free(f);
	for (unsigned int q = 0; q < n_qps; q++)
		mrc_test_pair_destroy(&pairs[q]);
	return errors == 0 && verify_errors == 0 ? 0 : 1;
}
