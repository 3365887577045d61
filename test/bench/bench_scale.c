/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * bench_scale: many QP pairs on one core. Creates N QP
 * pairs in RTS, reports what each QP costs in memory (the library's own
 * account, mrc_qp_mem_bytes, step by step through the transitions, and
 * what the DPDK heap actually gave out), then spreads traffic over all of
 * them: `--active` pairs have a message in flight at any time; when one
 * completes, the pair goes idle and the next pair in turn becomes active,
 * so every QP goes idle -> active -> idle again and again. Packets go
 * from a QP to its peer with no network in between (lib/qp only, as
 * bench_qp), but one pass over the active pairs late: what a pass sends
 * arrives at the start of the next, so packets are really in flight (a
 * round trip is two passes) and senders hold their rings meanwhile. Time
 * is the real TSC. Reports packets delivered per CPU-second and the
 * completion time of messages (post to the sender's completion).
 *
 * All QPs share one pool of in-flight rings (mrc_trk_pool.h, --trk-blocks,
 * default 2 x active): a QP holds one only while it has packets in flight,
 * so an idle QP costs what its sequence state does, an active one that
 * plus a ring. The pool's size and how often a QP had to wait for a ring
 * are reported with the memory.
 *
 * --private-rings is the reference: no shared pool, every QP keeps a ring
 * of its own for life (the layout before rings were lent).
 *
 *   bench_scale --qps N [--active A] [--pkts P] [--payload B] [--mem-mb M] [--trk-blocks K]
 *               [--private-rings] [--imm]
 *
 * Prints one JSON line. A scale whose QPs would not fit in --mem-mb is not
 * attempted: the line says how much it would need.
 */

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "mrc_qp.h"
#include "mrc_rel_tx.h"

#define MSG_PKTS 4

struct host {
	struct mrc_mr_table *mrs;
	struct mrc_cq *cq;
	uint8_t *mem;
	uint32_t key;
};

static struct host hosts[2];
static struct rte_mempool *pool;
static struct mrc_qp **qps; /* qps[2k] sends to qps[2k+1] */
static struct mrc_trk_pool *trk;
static struct mrc_trk_pool *imm_tables;
static struct mrc_trk_pool *ctrl_rings;
static struct mrc_rand rnd;
static struct mrc_wire_cfg wire;
static uint64_t parse_errors;

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static double
cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static size_t
heap_bytes(void)
{
	struct rte_malloc_socket_stats s;

	rte_malloc_get_socket_stats(0, &s);
	return s.heap_allocsz_bytes;
}

static struct mrc_qp *
make_qp(unsigned int q, uint16_t mtu, uint64_t hz, const struct mrc_qp_attr *base,
	size_t step_bytes[4], struct mrc_qp_mem *idle_parts)
{
	const unsigned int side = q & 1;
	struct mrc_qp_init in = {
		.qpn = 0x1000 + q,
		.sq_size = 4,
		.mtu = mtu,
		.tsc_hz = hz,
		.mrs = hosts[side].mrs,
		.cq = hosts[side].cq,
		.hdr_pool = pool,
		.wire = wire,
		.socket = SOCKET_ID_ANY,
		.trk_pool = trk,
		.imm_pool = imm_tables,
		.ctrl_pool = ctrl_rings,
	};
	struct mrc_qp_attr a = *base;
	const char *why = NULL;
	struct mrc_qp *qp;

	in.addr.srv6 = false;
	qp = mrc_qp_create(&in, &why);
	if (qp == NULL) {
		fprintf(stderr, "bench_scale: QP %u: %s\n", q, why);
		return NULL;
	}
	step_bytes[0] = mrc_qp_mem_bytes(qp);
	a.dest_qpn = 0x1000 + (q ^ 1);
	for (int to = MRC_QP_INIT; to <= MRC_QP_RTS; to++) {
		if (mrc_qp_modify(qp, (enum mrc_qp_state)to, &a, rte_rdtsc(), &rnd, &why) != 0) {
			fprintf(stderr, "bench_scale: QP %u: %s\n", q, why);
			mrc_qp_destroy(qp);
			return NULL;
		}
		step_bytes[to] = mrc_qp_mem_bytes(qp);
	}
	mrc_qp_mem_parts(qp, idle_parts);
	return qp;
}

int
main(int argc, char **argv)
{
	static const struct option lo[] = {{"qps", 1, NULL, 'q'}, {"active", 1, NULL, 'a'},
		{"pkts", 1, NULL, 'p'}, {"payload", 1, NULL, 'b'}, {"mem-mb", 1, NULL, 'm'},
		{"trk-blocks", 1, NULL, 't'}, {"private-rings", 0, NULL, 'r'},
		{"imm", 0, NULL, 'i'}, {"help", 0, NULL, 'h'}, {NULL, 0, NULL, 0}};
	bool private_rings = false, with_imm = false;
	unsigned long n_pairs = 1000, active = 256, mem_mb = 2048, trk_blocks = 0;
	unsigned long long pkts = 400000;
	unsigned long mtu = 1024;
	int c;

	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'q':
			n_pairs = strtoul(optarg, NULL, 0);
			break;
		case 'a':
			active = strtoul(optarg, NULL, 0);
			break;
		case 'p':
			pkts = strtoull(optarg, NULL, 0);
			break;
		case 'b':
			mtu = strtoul(optarg, NULL, 0);
			break;
		case 'm':
			mem_mb = strtoul(optarg, NULL, 0);
			break;
		case 't':
			trk_blocks = strtoul(optarg, NULL, 0);
			break;
		case 'r':
			private_rings = true;
			break;
		case 'i':
			with_imm = true;
			break;
		default:
			printf("usage: %s --qps N [--active A] [--pkts P] [--payload B] "
			       "[--mem-mb M] [--trk-blocks K] [--private-rings] [--imm]\n",
				argv[0]);
			return c == 'h' ? 0 : 2;
		}
	}
	if (n_pairs == 0 || n_pairs > 1000000 || active == 0 || pkts == 0 || mtu < 256 ||
		mtu > 9000 || mem_mb < 256) {
		fprintf(stderr,
			"bench_scale: --qps 1..1000000, --active >= 1, --pkts >= 1, "
			"--payload 256..9000, --mem-mb >= 256 (got %lu, %lu, %llu, %lu, %lu)\n",
			n_pairs, active, pkts, mtu, mem_mb);
		return 2;
	}
	if (active > n_pairs)
		active = n_pairs;
	if (trk_blocks == 0)
		trk_blocks = 2 * active;

	char mem_arg[32], prefix[64];
	char *eal[] = {"bench_scale", "--no-huge", "-m", mem_arg, "--no-shconf", "--no-pci",
		"--no-telemetry", "--log-level=*:warning", prefix, NULL};

	snprintf(mem_arg, sizeof(mem_arg), "%lu", mem_mb);
	snprintf(prefix, sizeof(prefix), "--file-prefix=bench_scale_%d", (int)getpid());
	if (rte_eal_init(RTE_DIM(eal) - 1, eal) < 0) {
		fprintf(stderr, "bench_scale: EAL init failed (-m %lu)\n", mem_mb);
		return 1;
	}
	const uint64_t hz = rte_get_tsc_hz();
	const uint32_t msg_len = MSG_PKTS * (uint32_t)mtu;
	const size_t region = (size_t)msg_len * 2;

	pool = rte_pktmbuf_pool_create("bench", 32767, 256, 0, 512, SOCKET_ID_ANY);
	if (pool == NULL)
		goto nomem;
	mrc_rand_seed(&rnd, 1);
	mrc_wire_cfg_defaults(&wire);
	for (int i = 0; i < 2; i++) {
		hosts[i].mrs = calloc(1, mrc_mr_table_memsize(4));
		hosts[i].cq = calloc(1, mrc_cq_memsize(65536));
		hosts[i].mem = rte_zmalloc("m", region, 64);
		if (!hosts[i].mrs || !hosts[i].cq || !hosts[i].mem)
			goto nomem;
		mrc_mr_table_init(hosts[i].mrs, 4);
		mrc_cq_init(hosts[i].cq, 65536);
		hosts[i].key = mrc_mr_register(hosts[i].mrs, hosts[i].mem, region, 0,
			MRC_MR_ACCESS_LOCAL_READ | MRC_MR_ACCESS_REMOTE_WRITE);
	}

	struct mrc_qp_attr a;
	size_t step[4] = {0}, first_step[4] = {0};
	struct mrc_qp_mem parts, first_parts;

	mrc_qp_attr_defaults(&a, 8, hz);
	a.ev.n_planes = 8;
	snprintf(a.cc_name, sizeof(a.cc_name), "fixed"); /* the scale, not CC's ramp */
	a.cc.fixed_cwnd_bytes = 1u << 16;
	/*
	 * Nothing is lost here, but a pass over the active pairs takes real
	 * time (and this machine is shared): timers long enough that a late
	 * pass is never taken for a loss, or resends would be measured.
	 */
	a.timeout = 20;		       /* 1.07 s retransmit timeout */
	a.min_pkt_timeout_tsc = hz;    /* 1 s */
	a.initial_rtt_tsc = hz / 1000; /* 1 ms */

	/* The worker's in-flight rings, made once, before any QP. */
	trk = mrc_trk_pool_create((uint32_t)trk_blocks, mrc_qp_trk_block_bytes(&a), SOCKET_ID_ANY);
	/* And its Write-IMM tables, as many (a table is held only while an immediate waits). */
	imm_tables = mrc_trk_pool_create(
		(uint32_t)trk_blocks, mrc_qp_imm_block_bytes(&a), SOCKET_ID_ANY);
	/* And its control answer rings, as many (held only while an answer waits). */
	ctrl_rings =
		mrc_trk_pool_create((uint32_t)trk_blocks, mrc_qp_ctrl_block_bytes(), SOCKET_ID_ANY);
	if (trk == NULL || imm_tables == NULL || ctrl_rings == NULL)
		goto nomem;
	const size_t pool_bytes = private_rings ? 0
						: mrc_trk_pool_mem_bytes(trk) +
							  mrc_trk_pool_mem_bytes(imm_tables) +
							  mrc_trk_pool_mem_bytes(ctrl_rings);
	struct mrc_trk_pool *shared = trk, *shared_imm = imm_tables, *shared_ctrl = ctrl_rings;

	if (private_rings) {
		/* make_qp passes them on: NULL = a ring and a table of its own */
		trk = NULL;
		imm_tables = NULL;
		ctrl_rings = NULL;
	}

	/* What one QP costs, measured on the first pair before committing to N. */
	qps = calloc(2 * n_pairs, sizeof(*qps));
	if (qps == NULL)
		goto nomem;
	const size_t heap0 = heap_bytes();

	for (unsigned int q = 0; q < 2; q++) {
		qps[q] = make_qp(q, (uint16_t)mtu, hz, &a, step, &parts);
		if (qps[q] == NULL)
			return 1;
		if (q == 0) {
			memcpy(first_step, step, sizeof(step));
			first_parts = parts;
		}
	}
	const size_t per_qp_heap = (heap_bytes() - heap0) / 2;
	const double need_mb = (double)(per_qp_heap * 2 * n_pairs + pool_bytes) / (1 << 20) + 96;

	if (need_mb > mem_mb * 0.9) {
		printf("{\"bench\": \"scale\", \"qp_pairs\": %lu, \"fits\": false, "
		       "\"need_mb\": %.0f, \"mem_mb\": %lu, \"bytes_per_idle_qp\": %zu, "
		       "\"heap_bytes_per_qp\": %zu}\n",
			n_pairs, need_mb, mem_mb, first_step[3], per_qp_heap);
		return 0;
	}
	for (unsigned long q = 2; q < 2 * n_pairs; q++) {
		qps[q] = make_qp((unsigned int)q, (uint16_t)mtu, hz, &a, step, &parts);
		if (qps[q] == NULL)
			return 1;
	}
	const double heap_per_qp = (double)(heap_bytes() - heap0) / (2.0 * n_pairs);

	/* Traffic: `active` pairs in flight; a completion hands the turn on. */
	uint64_t *post_tsc = calloc(n_pairs, sizeof(*post_tsc));
	uint64_t *lat = calloc(pkts / MSG_PKTS + active + 1, sizeof(*lat));
	unsigned long *act = calloc(active, sizeof(*act));
	unsigned long next = active;
	uint64_t n_lat = 0, delivered = 0, max_qp_bytes = 0;
	struct mrc_cqe cqe[256];
	/* The wire: packets sent during a pass, delivered at the start of the next. */
	const size_t wire_cap = (size_t)active * 2 * 64;
	struct rte_mbuf **wm = calloc(wire_cap, sizeof(*wm));
	struct mrc_qp **wto = calloc(wire_cap, sizeof(*wto));
	size_t wn = 0;

	if (post_tsc == NULL || lat == NULL || act == NULL || wm == NULL || wto == NULL)
		goto nomem;
	for (unsigned long k = 0; k < active; k++) {
		act[k] = k;
		post_tsc[k] = rte_rdtsc();
		mrc_qp_post_write(qps[2 * k], k, hosts[0].mem, msg_len, hosts[0].key,
			(uint64_t)(uintptr_t)hosts[1].mem, hosts[1].key, with_imm, (uint32_t)k);
	}
	const double t0 = cpu_s();
	const uint64_t w0 = rte_rdtsc();

	/* The watchdog counts this thread's CPU time: being starved by a loaded machine is not
	 * stuck. */
	uint64_t last_n_lat = 0;
	double last_progress = t0;

	while (delivered < pkts) {
		const uint64_t now = rte_rdtsc();

		if (n_lat != last_n_lat) {
			last_n_lat = n_lat;
			last_progress = cpu_s();
		} else if (cpu_s() - last_progress > 5.0) {
			fprintf(stderr,
				"bench_scale: no message completed in 5 CPU-seconds: stuck (%llu "
				"completed, %zu packets on the wire, rings out %u, waits %llu)\n",
				(unsigned long long)n_lat, wn,
				trk != NULL ? mrc_trk_pool_in_use(trk) : 0,
				trk != NULL ? (unsigned long long)trk->stats.waits : 0ull);
			for (unsigned long k = 0; k < active && k < 4; k++) {
				const struct mrc_qp *q = qps[2 * act[k]];
				const struct mrc_rel_tx *t = mrc_qp_rel_tx(q);

				fprintf(stderr,
					"  pair %lu: state %s, una %u nxt %u inflight %u "
					"lost %u ring %s, idle %d\n",
					act[k], mrc_qp_state_name(mrc_qp_state(q)), t->snd_una,
					t->snd_nxt, t->n_inflight, t->n_lost,
					mrc_rel_tx_has_trk(t) ? "held" : "none", mrc_qp_idle(q));
			}
			return 1;
		}

		for (size_t j = 0; j < wn; j++) {
			struct mrc_pkt v;

			if (mrc_pkt_parse(wm[j], &wire, &v) != MRC_WIRE_OK) {
				parse_errors++;
				rte_pktmbuf_free(wm[j]);
				continue;
			}
			if (v.bth.opcode != MRC_OP_SACK && v.bth.opcode != MRC_OP_NACK)
				delivered++;
			mrc_qp_rx(wto[j], wm[j], &v, now);
		}
		wn = 0;
		for (unsigned long k = 0; k < active; k++) {
			struct mrc_qp *s = qps[2 * act[k]], *r = qps[2 * act[k] + 1];

			for (int dir = 0; dir < 2; dir++) {
				struct mrc_qp *from = dir ? r : s, *to = dir ? s : r;
				uint16_t n = mrc_qp_tx_burst(from, now, 0xff, &rnd, wm + wn, 64);

				for (uint16_t j = 0; j < n; j++)
					wto[wn++] = to;
			}
			mrc_qp_poll(s, now);
			mrc_qp_poll(r, now);
			if (mrc_qp_mem_bytes(s) > max_qp_bytes)
				max_qp_bytes = mrc_qp_mem_bytes(s);
		}
		unsigned int n = mrc_cq_poll(hosts[0].cq, cqe, RTE_DIM(cqe));

		for (unsigned int j = 0; j < n; j++) {
			const unsigned long pair = (unsigned long)cqe[j].wr_id;
			const uint64_t t = rte_rdtsc();

			lat[n_lat++] = (t - post_tsc[pair]) * 1000000000ull / hz;
			/* The pair goes idle; the next pair in turn takes its place. */
			for (unsigned long k = 0; k < active; k++)
				if (act[k] == pair) {
					act[k] = next % n_pairs;
					next++;
					post_tsc[act[k]] = t;
					mrc_qp_post_write(qps[2 * act[k]], act[k], hosts[0].mem,
						msg_len, hosts[0].key,
						(uint64_t)(uintptr_t)hosts[1].mem, hosts[1].key,
						with_imm, (uint32_t)act[k]);
					break;
				}
		}
		while (mrc_cq_poll(hosts[1].cq, cqe, RTE_DIM(cqe)) > 0)
			;
	}
	const double dt = cpu_s() - t0;
	uint64_t retx = 0;

	for (unsigned long q = 0; q < 2 * n_pairs; q++)
		retx += mrc_qp_counters(qps[q])->tx_retx_pkts;
	const double wall = (double)(rte_rdtsc() - w0) / (double)hz;

	qsort(lat, n_lat, sizeof(*lat), cmp_u64);
	uint64_t imm_refused = 0, imm_delivered = 0, ctrl_dropped = 0;

	for (unsigned long q = 0; q < 2 * n_pairs; q++) {
		ctrl_dropped += mrc_qp_counters(qps[q])->tx_ctrl_dropped;
		imm_refused += mrc_qp_counters(qps[q])->rx_imm_no_table;
		imm_delivered += mrc_qp_counters(qps[q])->imm_delivered;
	}
	if (private_rings) {
		trk = shared; /* unused: its counters read zero */
		imm_tables = shared_imm;
		ctrl_rings = shared_ctrl;
	}
	printf("{\"bench\": \"scale\", \"qp_pairs\": %lu, \"fits\": true, \"active_pairs\": %lu, "
	       "\"private_rings\": %s, \"trk_blocks\": %lu, \"trk_block_bytes\": %zu, "
	       "\"trk_pool_bytes\": %zu, "
	       "\"trk_lent\": %llu, \"trk_waits\": %llu, \"trk_max_in_use\": %u, "
	       "\"trk_in_use_at_end\": %u, \"bytes_per_qp_with_pool\": %.0f, "
	       "\"payload_bytes\": %lu, \"msg_pkts\": %d, \"bytes_per_qp_created\": %zu, "
	       "\"bytes_per_qp_init\": %zu, \"bytes_per_qp_rtr\": %zu, \"bytes_per_idle_qp\": %zu, "
	       "\"bytes_per_active_qp\": %llu, \"heap_bytes_per_qp\": %.0f, "
	       "\"pkts\": %llu, \"cpu_s\": %.4f, \"wall_s\": %.4f, \"pps\": %.0f, "
	       "\"ns_per_pkt\": %.1f, \"msgs\": %llu, \"msg_us_p50\": %.2f, \"msg_us_p99\": %.2f, "
	       "\"pairs_touched\": %lu, \"retx_pkts\": %llu, \"parse_errors\": %llu, "
	       "\"imm\": %s, \"imm_table_bytes\": %zu, \"imm_tables_max_in_use\": %u, "
	       "\"imm_refused\": %llu, \"imm_delivered\": %llu, "
	       "\"ctrl_ring_bytes\": %zu, \"ctrl_rings_max_in_use\": %u, \"ctrl_dropped\": %llu, "
	       "\"idle_qp_parts\": {\"qp\": %zu, \"sq\": %zu, \"ctrl\": %zu, \"ev_pool\": %zu, "
	       "\"ev_stats\": %zu, \"responder\": %zu, \"imm\": %zu, \"requester\": %zu, "
	       "\"trk\": %zu}}\n",
		n_pairs, active, private_rings ? "true" : "false", private_rings ? 0ul : trk_blocks,
		private_rings ? 0 : trk->block_bytes, pool_bytes,
		(unsigned long long)trk->stats.lent, (unsigned long long)trk->stats.waits,
		trk->stats.max_in_use, mrc_trk_pool_in_use(trk),
		(double)first_step[3] + (double)pool_bytes / (2.0 * n_pairs), mtu, MSG_PKTS,
		first_step[0], first_step[1], first_step[2], first_step[3],
		(unsigned long long)max_qp_bytes, heap_per_qp, (unsigned long long)delivered, dt,
		wall, delivered / dt, dt * 1e9 / delivered, (unsigned long long)n_lat,
		n_lat ? lat[n_lat / 2] / 1e3 : 0.0, n_lat ? lat[n_lat * 99 / 100] / 1e3 : 0.0,
		next < n_pairs ? next : n_pairs, (unsigned long long)retx,
		(unsigned long long)parse_errors, with_imm ? "true" : "false",
		imm_tables->block_bytes, imm_tables->stats.max_in_use,
		(unsigned long long)imm_refused, (unsigned long long)imm_delivered,
		ctrl_rings->block_bytes, ctrl_rings->stats.max_in_use,
		(unsigned long long)ctrl_dropped, first_parts.qp, first_parts.sq, first_parts.ctrl,
		first_parts.ev_pool, first_parts.ev_stats, first_parts.responder, first_parts.imm,
		first_parts.requester, first_parts.trk);
	return parse_errors == 0 ? 0 : 1;
nomem:
	fprintf(stderr, "bench_scale: out of memory (raise --mem-mb, now %lu)\n", mem_mb);
	return 1;
}
