/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * mrcd: the MRC dataplane daemon.
 *
 *   parse the command line and the config (strict: errors name file:line)
 *   start the EAL (unique file prefix, explicit lcores, --no-huge if need be)
 *   per host: mbuf pools (rx, and a separate tx/retransmit pool), regions,
 *             a completion queue, the dataplane loop (mrcd_host)
 *   the emulated fabric and its fault scenario
 *   the traffic generator's flows: one QP pair per (source, destination, k)
 *   workers: fabric poll + for each host: post, iterate, completions
 *   main lcore: link status, console line, time series, Prometheus file,
 *               duration and signals, drain, summary
 *   unwind in reverse, checking every mempool is full again
 *
 * This is the only file that exits.
 */

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "mrc_fabric.h"
#include "mrcd_cli.h"
#include "mrcd_config.h"
#include "mrcd_cpus.h"
#include "mrcd_daemon.h"
#include "mrcd_gen.h"
#include "mrcd_host.h"

static volatile sig_atomic_t signalled;

static void
on_signal(int sig)
{
	signalled = sig;
}

/* ---- setup ---- */

static int
make_pools(struct mrcd_daemon *d, unsigned int h)
{
	char name[RTE_MEMPOOL_NAMESIZE];
	const struct mrcd_cfg_ports *p = &d->cfg.ports;

	snprintf(name, sizeof(name), "rx_h%u", h);
	d->host[h].rx_pool = rte_pktmbuf_pool_create(name, p->rx_pool_mbufs, 256, 0,
		p->rx_mbuf_data_room, (int)rte_socket_id());
	snprintf(name, sizeof(name), "tx_h%u", h);
	/* Headers and retransmits come from their own pool: they can never starve rx. */
	d->host[h].tx_pool = rte_pktmbuf_pool_create(name, p->tx_pool_mbufs, 256, 0,
		p->tx_mbuf_data_room, (int)rte_socket_id());
	if (d->host[h].rx_pool == NULL || d->host[h].tx_pool == NULL) {
		fprintf(stderr, "mrcd: host %u: cannot create mbuf pools (%u + %u mbufs): %s\n", h,
			p->rx_pool_mbufs, p->tx_pool_mbufs, rte_strerror(rte_errno));
		return -1;
	}
	return 0;
}

/*
 * The cluster's flows, from the profile over every cluster host (the same
 * list in every process), kept when one end is ours. Each host's region is
 * laid out as [its outgoing slots][its incoming slots] in flow order, which
 * every process can compute for every host: that is what lets a sender
 * address a receiver in another process by offset.
 *
 * With `fill` false this only counts (before the EAL starts, to size its
 * memory and refuse what cannot fit): n_cluster_flows, n_flows, each local
 * host's n_send, n_recv and region_bytes. With `fill` true it allocates the
 * per-flow arrays for exactly that many flows and fills them.
 */
static int
make_flows(struct mrcd_daemon *d, bool fill)
{
	const unsigned int nc = mrcd_config_cluster_hosts(&d->cfg);
	const unsigned int lo = d->cfg.daemon.first_host;
	const size_t slot_bytes = mrcd_flow_slot_bytes(&d->prof);
	size_t out_bytes[MRCD_CONFIG_MAX_HOSTS] = {0}, out_off[MRCD_CONFIG_MAX_HOSTS] = {0};
	size_t in_off[MRCD_CONFIG_MAX_HOSTS] = {0};
	uint16_t(*pairs)[2] = calloc((size_t)nc * nc + 1, sizeof(*pairs));
	unsigned int np, g = 0;
	uint64_t n_cluster;

	if (pairs == NULL) {
		fprintf(stderr, "mrcd: out of memory for the flow list\n");
		return -1;
	}
	np = mrcd_pattern_pairs(&d->prof, nc, d->cfg.daemon.seed, pairs, nc * nc);
	n_cluster = (uint64_t)np * d->prof.qps_per_peer;
	if (n_cluster > MRCD_MAX_FLOWS) {
		fprintf(stderr,
			"mrcd: the profile makes %" PRIu64 " flows (pattern %s over %u hosts "
			"x qps_per_peer = %u); at most %u: lower qps_per_peer to %" PRIu64 "\n",
			n_cluster, mrcd_pattern_name(d->prof.pattern), nc, d->prof.qps_per_peer,
			MRCD_MAX_FLOWS, (uint64_t)MRCD_MAX_FLOWS / (np ? np : 1));
		free(pairs);
		return -1;
	}
	for (unsigned int k = 0; k < np; k++)
		out_bytes[pairs[k][0]] += d->prof.qps_per_peer * slot_bytes;
	for (unsigned int c = 0; c < nc; c++)
		in_off[c] = out_bytes[c];
	d->n_cluster_flows = (unsigned int)n_cluster;
	if (fill) {
		d->flow_of = rte_malloc("mrcd_flow_of", (n_cluster + 1) * sizeof(*d->flow_of), 64);
		d->flows = rte_zmalloc("mrcd_flows", (d->n_flows + 1) * sizeof(*d->flows), 64);
		d->peer_qp =
			rte_zmalloc("mrcd_peer_qp", (d->n_flows + 1) * sizeof(*d->peer_qp), 64);
		for (unsigned int h = 0; h < d->n_hosts; h++) {
			struct mrcd_hostctx *hc = &d->host[h];

			hc->send_flows =
				rte_malloc("mrcd_send", (hc->n_send + 1) * sizeof(uint32_t), 64);
			hc->recv_flows =
				rte_malloc("mrcd_recv", (hc->n_recv + 1) * sizeof(uint32_t), 64);
			if (hc->send_flows == NULL || hc->recv_flows == NULL)
				d->flows = NULL; /* reported below */
		}
		if (d->flow_of == NULL || d->flows == NULL || d->peer_qp == NULL) {
			fprintf(stderr,
				"mrcd: out of memory for %u flows' state (raise -m, or use "
				"hugepages; or lower qps_per_peer)\n",
				d->n_flows);
			free(pairs);
			return -1;
		}
		for (unsigned int h = 0; h < d->n_hosts; h++)
			d->host[h].n_send = d->host[h].n_recv = 0;
	}
	d->n_flows = 0;
	for (unsigned int h = 0; h < d->n_hosts && !fill; h++)
		d->host[h].n_send = d->host[h].n_recv = 0;
	for (unsigned int k = 0; k < np; k++)
		for (unsigned int q = 0; q < d->prof.qps_per_peer; q++, g++) {
			const unsigned int src = pairs[k][0], dst = pairs[k][1];
			const bool src_ours = src >= lo && src < lo + d->n_hosts;
			const bool dst_ours = dst >= lo && dst < lo + d->n_hosts;

			if (fill)
				d->flow_of[g] = -1;
			if (src_ours || dst_ours) {
				const uint32_t i = d->n_flows++;

				if (src_ours) {
					if (fill)
						d->host[src - lo]
							.send_flows[d->host[src - lo].n_send] = i;
					d->host[src - lo].n_send++;
				}
				if (dst_ours) {
					if (fill)
						d->host[dst - lo]
							.recv_flows[d->host[dst - lo].n_recv] = i;
					d->host[dst - lo].n_recv++;
				}
			}
			if ((src_ours || dst_ours) && fill) {
				struct mrcd_flow *f = &d->flows[d->n_flows - 1];

				f->id = g;
				f->qpn = MRCD_QPN_BASE + 2 * g;
				f->src = (uint16_t)src;
				f->dst = (uint16_t)dst;
				f->src_local = (int16_t)(src_ours ? (int)(src - lo) : -1);
				f->dst_local = (int16_t)(dst_ours ? (int)(dst - lo) : -1);
				f->dst_off = in_off[dst];
				f->src_off = out_off[src];
				d->flow_of[g] = (int32_t)(d->n_flows - 1);
			}
			out_off[src] += slot_bytes;
			in_off[dst] += slot_bytes;
		}
	free(pairs);
	/* A host's region spans its whole layout, including slots of flows it does not run. */
	for (unsigned int h = 0; h < d->n_hosts; h++)
		d->host[h].region_bytes = in_off[lo + h];
	if (d->n_flows == 0) {
		fprintf(stderr, "mrcd: the profile's pattern '%s' gives no flows for %u hosts\n",
			mrcd_pattern_name(d->prof.pattern), d->n_hosts);
		return -1;
	}
	return 0;
}

/*
 * A host's in-flight rings: one per QP up to MRCD_TRK_BLOCKS_MAX, and with
 * [profile] active_flows no more than twice that (only the flows holding a
 * turn send; the slack covers a ring given back a moment after the turn
 * moved on). Short, a QP waits for one (counted), it never fails.
 */
static uint32_t
trk_blocks(const struct mrcd_daemon *d, uint64_t max_qps)
{
	uint64_t n = RTE_MIN(max_qps, (uint64_t)MRCD_TRK_BLOCKS_MAX);

	if (d->prof.active_flows > 0)
		n = RTE_MIN(n, 2ull * d->prof.active_flows);
	return (uint32_t)n;
}

/*
 * What this process will allocate for its flows, before the EAL starts:
 * the message buffers (every local host's region: flows x outstanding x the
 * largest message, at both ends), its QPs' state, and the in-flight rings.
 * Refused, saying what to lower, when it exceeds the machine's available
 * memory; otherwise added to the EAL's -m without hugepages.
 */
static int
size_memory(struct mrcd_daemon *d)
{
	struct mrc_qp_attr a;
	uint64_t buf = 0, qps, trk = 0, avail = 0;
	FILE *mi;
	char line[128];

	if (make_flows(d, false) != 0 || mrcd_config_qp_attr(&d->cfg, 1000000000ull, &a) != 0)
		return -1;
	for (unsigned int h = 0; h < d->n_hosts; h++) {
		const uint64_t qps_h = 2ull * d->n_cluster_flows;

		buf += RTE_MAX(d->host[h].region_bytes, (size_t)4096);
		trk += (uint64_t)trk_blocks(d, qps_h) * mrc_qp_trk_block_bytes(&a);
	}
	/*
	 * A QP's own state is about 4 KiB plus its send queue (64 B a message)
	 * and, when asked for, per-EV statistics (152 B an EV); 8 KiB more covers
	 * the allocator and the Write-IMM table. The host's QP table: 64 B a QPN.
	 */
	const uint64_t per_qp = 12288ull + 64ull * d->cfg.transport.sq_size +
		(d->cfg.telemetry.ev_stats ?
				152ull * (d->cfg.transport.ev_active + d->cfg.transport.ev_backup) :
				0);

	qps = 64ull * 2 * d->n_cluster_flows * d->n_hosts;
	for (unsigned int h = 0; h < d->n_hosts; h++)
		qps += per_qp * (d->host[h].n_send + d->host[h].n_recv);
	mi = fopen("/proc/meminfo", "r");
	while (mi != NULL && fgets(line, sizeof(line), mi) != NULL)
		if (sscanf(line, "MemAvailable: %" SCNu64 " kB", &avail) == 1)
			break;
	if (mi != NULL)
		fclose(mi);
	avail *= 1024;
	if (avail != 0 && buf + qps + trk > avail) {
		fprintf(stderr,
			"mrcd: the profile needs %" PRIu64 " MiB: %" PRIu64 " MiB of message "
			"buffers (%u flows x outstanding %u x %u KiB, at both ends), %" PRIu64
			" MiB of QP state, %" PRIu64 " MiB of in-flight rings; %" PRIu64
			" MiB are available: lower qps_per_peer, outstanding or msg_kb "
			"(size_mix)%s\n",
			(buf + qps + trk) >> 20, buf >> 20, d->n_flows, d->prof.outstanding,
			d->prof.max_kb, qps >> 20, trk >> 20, avail >> 20,
			d->cfg.telemetry.ev_stats ? ", or set [telemetry] ev_stats = false" : "");
		return -1;
	}
	d->cli.extra_mem_bytes = buf + qps + trk;
	return 0;
}

static int
make_host(struct mrcd_daemon *d, unsigned int h, uint64_t now)
{
	struct mrcd_hostctx *hc = &d->host[h];
	const unsigned int c = d->cfg.daemon.first_host + h; /* the cluster's number for it */
	struct mrcd_host_cfg cfg = {.id = (uint8_t)c, .n_planes = d->cfg.daemon.planes,
		.max_qps = 2 * d->n_cluster_flows, .qpn_base = MRCD_QPN_BASE,
		.tsc_hz = d->hz,
		.socket = (int)rte_socket_id()};
	const char *why = NULL;
	struct mrc_qp_attr a;

	/*
	 * In-flight rings, lent to the host's QPs while they have packets in
	 * flight: one per QP up to MRCD_TRK_BLOCKS_MAX (beyond, QPs take turns).
	 */
	if (mrcd_config_qp_attr(&d->cfg, d->hz, &a) != 0)
		return -1;
	cfg.trk_blocks = trk_blocks(d, cfg.max_qps);
	cfg.trk_block_bytes = mrc_qp_trk_block_bytes(&a);
	/*
	 * Write-IMM tables, lent the same way to a responder only while an
	 * immediate waits for the rest of its message (one per QP up to
	 * MRCD_TRK_BLOCKS_MAX; with none free the packet is NACKed and resent).
	 */
	hc->imm_pool = mrc_trk_pool_create(RTE_MIN(cfg.max_qps, (uint32_t)MRCD_TRK_BLOCKS_MAX),
		mrc_qp_imm_block_bytes(&a), (int)rte_socket_id());
	if (hc->imm_pool == NULL) {
		fprintf(stderr, "mrcd: host %u: out of memory for its Write-IMM tables\n", h);
		return -1;
	}

	mrcd_config_wire(&d->cfg, &cfg.wire);
	for (unsigned int p = 0; p < d->cfg.daemon.planes; p++)
		cfg.port_id[p] = hc->port[p];
	hc->mrs = rte_zmalloc("mrcd_mrs", mrc_mr_table_memsize(4), 64);
	hc->cq = rte_zmalloc("mrcd_cq", mrc_cq_memsize(d->cfg.transport.cq_size), 64);
	hc->mem_len = RTE_MAX(hc->region_bytes, (size_t)4096); /* a host may have no flows */
	hc->mem = rte_zmalloc("mrcd_mem", hc->mem_len, 4096);
	if (hc->mrs == NULL || hc->cq == NULL || hc->mem == NULL) {
		fprintf(stderr, "mrcd: host %u: out of memory for %zu bytes of message buffers "
				"(raise -m, or use hugepages)\n", h, hc->mem_len);
		return -1;
	}
	mrc_mr_table_init(hc->mrs, 4);
	mrc_cq_init(hc->cq, d->cfg.transport.cq_size);
	hc->key = mrc_mr_register(hc->mrs, hc->mem, hc->mem_len, rte_malloc_virt2iova(hc->mem),
		MRC_MR_ACCESS_LOCAL_READ | MRC_MR_ACCESS_REMOTE_WRITE | MRC_MR_ZERO_BASED);
	hc->rt = mrcd_host_create(&cfg, now, &why);
	if (hc->key == 0 || hc->rt == NULL) {
		fprintf(stderr, "mrcd: host %u: %s\n", h, why ? why : "cannot register memory");
		return -1;
	}
	mrc_rand_seed(&hc->rand, d->cfg.daemon.seed * 1000003u + c);
	return 0;
}

/* What to do when the heap ran out while making QPs. */
static const char *
oom_hint(const char *why)
{
	return strstr(why, "memory") != NULL ?
		" (the heap ran out: raise -m or use --no-huge; or lower qps_per_peer, or set "
		"[telemetry] ev_stats = false)" :
		"";
}

static struct mrc_qp *
make_qp(struct mrcd_daemon *d, unsigned int local, unsigned int peer, uint32_t qpn,
	uint32_t dest_qpn, uint64_t now)
{
	struct mrcd_hostctx *hc = &d->host[local];
	struct mrc_qp_init in = {.qpn = qpn, .sq_size = d->cfg.transport.sq_size,
		.mtu = d->cfg.transport.mtu, .tsc_hz = d->hz, .mrs = hc->mrs, .cq = hc->cq,
		.hdr_pool = hc->tx_pool, .ev_stats = d->cfg.telemetry.ev_stats,
		.socket = (int)rte_socket_id(), .trk_pool = mrcd_host_trk_pool(hc->rt),
		.imm_pool = hc->imm_pool};
	struct mrc_qp_attr a;
	const char *why = NULL;
	struct mrc_qp *qp;

	mrcd_config_wire(&d->cfg, &in.wire);
	if (mrcd_config_qp_addr(&d->cfg, d->cfg.daemon.first_host + local, peer, &in.addr) != 0 ||
		mrcd_config_qp_attr(&d->cfg, d->hz, &a) != 0) {
		fprintf(stderr, "mrcd: QP 0x%x: cannot derive its addresses or attributes\n", qpn);
		return NULL;
	}
	a.dest_qpn = dest_qpn;
	qp = mrc_qp_create(&in, &why);
	if (qp == NULL) {
		fprintf(stderr, "mrcd: QP 0x%x: %s%s\n", qpn, why, oom_hint(why));
		return NULL;
	}
	for (int to = MRC_QP_INIT; to <= MRC_QP_RTS; to++)
		if (mrc_qp_modify(qp, (enum mrc_qp_state)to, &a, now, &hc->rand, &why) != 0) {
			fprintf(stderr, "mrcd: QP 0x%x -> %s: %s%s\n", qpn,
				mrc_qp_state_name((enum mrc_qp_state)to), why, oom_hint(why));
			mrc_qp_destroy(qp);
			return NULL;
		}
	if (mrcd_host_add_qp(hc->rt, qp, now) != 0) {
		mrc_qp_destroy(qp);
		return NULL;
	}
	return qp;
}

/*
 * QPs for our ends of each flow, and the message slots. Every host
 * registers one zero-based region in a fresh table, so its rkey is the same
 * in every process: a sender uses its own host's key for a peer elsewhere.
 */
static int
connect_flows(struct mrcd_daemon *d, uint64_t now)
{
	for (unsigned int i = 0; i < d->n_flows; i++) {
		struct mrcd_flow *f = &d->flows[i];
		const uint32_t sq = f->qpn, rq = sq + 1;

		if (f->src_local >= 0) {
			struct mrcd_hostctx *hc = &d->host[f->src_local];

			f->qp = make_qp(d, (unsigned int)f->src_local, f->dst, sq, rq, now);
			if (f->qp == NULL)
				return -1;
			f->src_buf = hc->mem + f->src_off;
			f->src_key = hc->key;
			f->dst_key = d->host[f->dst_local >= 0 ? f->dst_local : 0].key;
			f->post_tsc = rte_zmalloc(
				"mrcd_slots", d->prof.outstanding * sizeof(uint64_t), 64);
			if (f->post_tsc == NULL) {
				fprintf(stderr, "mrcd: out of memory at flow %u of %u\n", i,
					d->n_flows);
				return -1;
			}
			d->qp_bytes +=
				mrc_qp_mem_bytes(f->qp) + d->prof.outstanding * sizeof(uint64_t);
		}
		if (f->dst_local >= 0) {
			struct mrcd_hostctx *hc = &d->host[f->dst_local];

			d->peer_qp[i] = make_qp(d, (unsigned int)f->dst_local, f->src, rq, sq, now);
			if (d->peer_qp[i] == NULL)
				return -1;
			f->dst_buf = hc->mem + f->dst_off;
			d->qp_bytes += mrc_qp_mem_bytes(d->peer_qp[i]);
		}
	}
	for (unsigned int h = 1; h < d->n_hosts; h++)
		if (d->host[h].key != d->host[0].key) {
			fprintf(stderr, "mrcd: host %u's region key 0x%x differs from host %u's 0x%x: "
					"peers elsewhere could not address it\n",
				d->cfg.daemon.first_host + h, d->host[h].key,
				d->cfg.daemon.first_host, d->host[0].key);
			return -1;
		}
	return 0;
}

/* ---- the worker loop ---- */

/* QPN -> flow index, O(1): the daemon's QPNs are MRCD_QPN_BASE + 2 x cluster flow (+ 1). */
static int32_t
flow_of_qpn(const struct mrcd_daemon *d, uint32_t qpn)
{
	const uint32_t g = (qpn - MRCD_QPN_BASE) / 2;

	if (qpn < MRCD_QPN_BASE || g >= d->n_cluster_flows)
		return -1;
	return d->flow_of[g];
}

static void
completions(struct mrcd_daemon *d, unsigned int h, uint64_t now)
{
	struct mrcd_hostctx *hc = &d->host[h];
	struct mrc_cqe e[64];
	unsigned int n;

	while ((n = mrc_cq_poll(hc->cq, e, RTE_DIM(e))) > 0)
		for (unsigned int k = 0; k < n; k++) {
			const int32_t fi = flow_of_qpn(d, e[k].qpn);
			struct mrcd_flow *f = &d->flows[fi < 0 ? 0 : fi];

			if (fi < 0)
				continue;
			if (e[k].status != MRC_CQE_OK) {
				hc->failed_msgs++;
			} else if (e[k].opcode == MRC_CQE_RECV_IMM) {
				const uint64_t vb = f->verified_bytes, ve = f->verify_errors;

				mrcd_gen_received(&d->prof, f, &e[k]);
				hc->verified_bytes += f->verified_bytes - vb;
				hc->verify_errors += f->verify_errors - ve;
				mrcd_gaps_add(&hc->gaps, now);
			} else {
				const uint64_t sb = f->completed_bytes;

				mrcd_gen_sent(&d->prof, f, &e[k], now, d->hz, &hc->hist);
				hc->completed++;
				hc->sent_bytes += f->completed_bytes - sb;
				mrcd_sched_wake(d, f, (uint32_t)fi);
			}
		}
}

static uint32_t
peer_planes(const struct mrcd_daemon *d, int local)
{
	return local >= 0 ? mrcd_host_port_mask(d->host[local].rt) :
			    (uint32_t)((1u << d->cfg.daemon.planes) - 1);
}

/*
 * Port status: a local peer's planes are usable only where its port is up;
 * a peer elsewhere is assumed up on all (its losses retire EVs) until
 * port-status messages exist. Told to the worker's QPs when a mask changes,
 * not every iteration: that would walk every QP.
 */
static void
tell_peer_planes(struct mrcd_daemon *d, const struct mrcd_worker *w)
{
	for (unsigned int k = 0; k < w->n_hosts; k++) {
		const struct mrcd_hostctx *hc = &d->host[w->hosts[k]];

		for (uint32_t j = 0; j < hc->n_send; j++) {
			const struct mrcd_flow *f = &d->flows[hc->send_flows[j]];

			mrc_qp_set_peer_planes(f->qp, peer_planes(d, f->dst_local));
		}
		for (uint32_t j = 0; j < hc->n_recv; j++) {
			const uint32_t i = hc->recv_flows[j];

			mrc_qp_set_peer_planes(
				d->peer_qp[i], peer_planes(d, d->flows[i].src_local));
		}
	}
}

static int
worker_main(void *arg)
{
	struct mrcd_worker *w = arg;
	struct mrcd_daemon *d = w->d;
	uint64_t next_snap = 0, snap_gap = d->hz / 1000;
	uint32_t seen_mask[MRCD_MAX_HOSTS];
	struct timespec cpu0, cpu1;

	memset(seen_mask, 0xff, sizeof(seen_mask)); /* no mask is all ones: told at once */
	/* Per-core rates divide by the CPU this thread got, not by wall time:
	 * on a shared machine the two differ. Two calls per run, none per packet. */
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu0);
	while (__atomic_load_n(&d->phase, __ATOMIC_ACQUIRE) != MRCD_EXIT) {
		const uint64_t now = rte_rdtsc();
		const bool stopping = __atomic_load_n(&d->phase, __ATOMIC_ACQUIRE) != MRCD_RUN;
		bool changed = false;

		for (unsigned int h = 0; h < d->n_hosts; h++) {
			const uint32_t m = mrcd_host_port_mask(d->host[h].rt);

			changed |= m != seen_mask[h];
			seen_mask[h] = m;
		}
		if (changed)
			tell_peer_planes(d, w);
		if (w->runs_fabric)
			mrc_fabric_poll(d->fab, now);
		for (unsigned int k = 0; k < w->n_hosts; k++) {
			const unsigned int h = w->hosts[k];
			struct mrcd_hostctx *hc = &d->host[h];

			/* Only flows that may post are visited (mrcd_sched.h). */
			mrcd_sched_post(d, h, now, stopping);
			mrcd_host_iterate(hc->rt, now, &hc->rand);
			completions(d, h, now);
		}
		if (now >= next_snap) {
			for (unsigned int k = 0; k < w->n_hosts; k++)
				mrcd_snapshot_publish(d, w->hosts[k], now, false);
			if (w->runs_fabric)
				mrcd_fabric_snapshot_publish(d);
			mrcd_query_serve(d, w);
			next_snap = now + snap_gap;
		}
	}
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu1);
	w->cpu_ns = (uint64_t)((cpu1.tv_sec - cpu0.tv_sec) * 1000000000ll +
		(cpu1.tv_nsec - cpu0.tv_nsec));
	return 0;
}

/* ---- the run ---- */

static bool
drained(struct mrcd_daemon *d)
{
	for (unsigned int h = 0; h < d->n_hosts; h++) {
		struct mrcd_snapshot s;

		/* A snapshot from before the worker saw the drain may miss its last posts. */
		mrcd_snapshot_read(d, h, &s);
		if (!s.stopping || s.posted != s.completed + s.failed)
			return false;
	}
	return true;
}

static void
run(struct mrcd_daemon *d)
{
	const uint64_t start = rte_rdtsc();
	struct timespec mono;
	const uint64_t end = d->cfg.daemon.duration_s ?
		start + (uint64_t)d->cfg.daemon.duration_s * d->hz : UINT64_MAX;
	uint64_t next_link = start, next_console = start + d->hz, drain_end = 0;
	struct mrcd_output out;

	/* Benchmarks stamp their faults with CLOCK_MONOTONIC: say where t = 0 is on it. */
	clock_gettime(CLOCK_MONOTONIC, &mono);
	d->start_tsc = start;
	d->start_mono_ns = (uint64_t)mono.tv_sec * 1000000000u + (uint64_t)mono.tv_nsec;
	mrcd_output_open(d, &out);
	for (;;) {
		const uint64_t now = rte_rdtsc();

		if (now >= next_link) {
			for (unsigned int h = 0; h < d->n_hosts; h++)
				mrcd_host_refresh_links(d->host[h].rt);
			next_link = now + d->hz / 1000;
		}
		mrcd_output_tick(d, &out, now, start);
		if (d->cfg.telemetry.console && now >= next_console) {
			mrcd_console_line(d, now, start);
			next_console += d->hz;
		}
		if (d->phase == MRCD_RUN && (now >= end || signalled)) {
			if (signalled)
				printf("mrcd: %s: stopping, draining messages in flight (up to %u ms)\n",
					strsignal(signalled), d->cfg.daemon.drain_ms);
			__atomic_store_n(&d->phase, MRCD_DRAIN, __ATOMIC_RELEASE);
			d->run_tsc = now - start;
			drain_end = now + (uint64_t)d->cfg.daemon.drain_ms * d->hz / 1000;
		}
		if (d->phase == MRCD_DRAIN && (drained(d) || now >= drain_end)) {
			d->drain_tsc = now - start - d->run_tsc;
			break;
		}
		rte_delay_us_sleep(200);
	}
	__atomic_store_n(&d->phase, MRCD_EXIT, __ATOMIC_RELEASE);
	rte_eal_mp_wait_lcore();
	/* Final numbers, read after the workers stopped. */
	for (unsigned int h = 0; h < d->n_hosts; h++)
		mrcd_snapshot_publish(d, h, rte_rdtsc(), true);
	mrcd_output_close(d, &out, rte_rdtsc(), start);
}

static int
assign_lcores(struct mrcd_daemon *d)
{
	unsigned int lc, n = 0;

	RTE_LCORE_FOREACH_WORKER(lc) {
		if (n == RTE_DIM(d->workers))
			break;
		d->workers[n].d = d;
		d->workers[n].lcore = lc;
		n++;
	}
	if (n == 0) {
		fprintf(stderr, "mrcd: no worker lcore: give the EAL at least two (e.g. -l 0,1)\n");
		return -1;
	}
	d->n_workers = n;
	/* The fabric on the first worker (or its own lcore when [lcores] fabric = own). */
	const bool own = d->cfg.lcores.fabric == MRCD_FABRIC_OWN_LCORE && n > 1;
	const unsigned int first_host_worker = own ? 1 : 0;

	d->workers[0].runs_fabric = d->fab != NULL;
	for (unsigned int h = 0; h < d->n_hosts; h++) {
		struct mrcd_worker *w = &d->workers[first_host_worker +
			h % (n - first_host_worker)];

		w->hosts[w->n_hosts++] = h;
		/*
		 * A host polled with the fabric sends on a plane only while its
		 * NIC queue there holds under 2.56 us of line rate, and at least
		 * two frames, so a worker pass slower than a frame time leaves
		 * no gap on the wire (README, "MRC against its references").
		 */
		if (d->fab != NULL && w == &d->workers[0]) {
			const uint64_t frame = d->cfg.transport.mtu + 256u;
			const uint64_t room = (uint64_t)(2560 * d->cfg.fabric.link_gbps / 8);

			mrcd_host_set_fabric(d->host[h].rt, d->fab, h, RTE_MAX(room, 2 * frame));
		}
	}
	return 0;
}

int
main(int argc, char **argv)
{
	static struct mrcd_daemon d;
	static char err[1024], eal_buf[8192];
	char *eal_argv[96], profile[PATH_MAX], scenario[PATH_MAX];
	const char *why = NULL;
	int rc, eal_argc, status = 1;
	unsigned int step = 0; /* how far setup got: undone in reverse */

	/* Progress and errors stay in order when both go to one file or pipe. */
	setvbuf(stdout, NULL, _IOLBF, 0);

	/* 1. Command line and files: nothing is started before they all check out. */
	rc = mrcd_cli_parse(argc, argv, &d.cli, err, sizeof(err));
	if (rc != 0) {
		if (rc < 0)
			fprintf(stderr, "mrcd: %s\n(see mrcd --help)\n", err);
		return rc > 0 ? 0 : 2;
	}
	if (mrcd_config_load(&d.cfg, d.cli.config, err, sizeof(err)) != 0 ||
		mrcd_cli_apply(&d.cli, &d.cfg, err, sizeof(err)) != 0) {
		fprintf(stderr, "mrcd: %s\n", err);
		return 1;
	}
	/* These return the path's length, like snprintf. */
	rc = mrcd_cli_profile(&d.cli, &d.cfg, profile, sizeof(profile));
	if (rc < 0 || (size_t)rc >= sizeof(profile) ||
		mrcd_profile_load(&d.prof, profile, err, sizeof(err)) != 0) {
		fprintf(stderr, "mrcd: profile: %s\n", err[0] ? err : "path too long");
		return 1;
	}
	rc = mrcd_cli_scenario(&d.cli, &d.cfg, scenario, sizeof(scenario));
	if (rc < 0 || (size_t)rc >= sizeof(scenario)) {
		fprintf(stderr, "mrcd: scenario path too long\n");
		return 1;
	}
	if (d.cfg.ports.mode != MRCD_PORTS_FABRIC && scenario[0] != '\0') {
		/* Faults are the emulated fabric's; real ports fail on their own. */
		printf("mrcd: [ports] mode = %s: scenario %s ignored (it drives the emulated "
		       "fabric only)\n", d.cfg.ports.mode == MRCD_PORTS_LOOP ? "loop" : "ethdev",
			scenario);
		scenario[0] = '\0';
	}
	d.n_hosts = d.cfg.daemon.hosts;
	if (d.cli.check) {
		mrcd_config_print(stdout, &d.cfg);
		printf("; profile %s: pattern %s, ", profile[0] ? profile : "(built-in)",
			mrcd_pattern_name(d.prof.pattern));
		if (d.prof.n_mix > 0)
			printf("sizes %s KiB:weight", d.prof.size_mix);
		else
			printf("%u KiB messages", d.prof.msg_kb);
		printf(", %s, %u QP(s) per peer, %u in flight, %s\n",
			d.prof.opcode == MRCD_OP_WRITE ? "WRITE" : "WRITE with immediate",
			d.prof.qps_per_peer, d.prof.outstanding,
			d.prof.rate_gbps > 0 ? "paced" : "closed loop");
		printf("; scenario %s (checked when the fabric starts)\n",
			scenario[0] ? scenario : "none");
		printf(";\n; the profile, key by key (a profile file is this [profile] section):\n");
		mrcd_profile_print(stdout, &d.prof, "; ");
		return 0;
	}

	/* The flows' count and memory, refused here when they cannot fit. */
	if (size_memory(&d) != 0)
		return 1;

	/* 2. EAL, on CPUs no other instance polls on. */
	d.cli.busy_cpus = mrcd_cpus_busy();
	eal_argc = mrcd_cli_eal_argv(&d.cli, &d.cfg, eal_argv, RTE_DIM(eal_argv), eal_buf,
		sizeof(eal_buf), err, sizeof(err));
	if (eal_argc < 0) {
		fprintf(stderr, "mrcd: EAL arguments: %s\n", err);
		return 1;
	}
	mrcd_cli_format_argv(eal_argc, eal_argv, err, sizeof(err));
	printf("mrcd: EAL %s\n", err);
	if (rte_eal_init(eal_argc, eal_argv) < 0) {
		fprintf(stderr, "mrcd: EAL did not start: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	step = 1;
	{
		unsigned int taken;

		if (mrcd_cpus_claim_pollers(mrcd_cli_user_lcores(&d.cli), &taken) != 0) {
			fprintf(stderr, "mrcd: CPU %u was claimed by another mrcd while this one "
					"started: run again to pick another\n", taken);
			goto out;
		}
	}
	d.hz = rte_get_tsc_hz();
	printf("mrcd: runtime dir %s, telemetry socket %s/dpdk_telemetry.v2\n",
		rte_eal_get_runtime_dir(), rte_eal_get_runtime_dir());
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);

	/* 3. Pools, fabric, hosts, flows. */
	for (unsigned int h = 0; h < d.n_hosts; h++)
		if (make_pools(&d, h) != 0)
			goto out;
	step = 3; /* both undo steps below cope with what was not made */
	if (d.cfg.ports.mode == MRCD_PORTS_ETHDEV) {
		if (mrcd_ports_open(&d) != 0)
			goto out;
	} else if (d.cfg.ports.mode == MRCD_PORTS_LOOP) {
		if (mrcd_loop_open(&d) != 0)
			goto out;
	} else {
		struct mrc_fabric_cfg fc;

		if (mrcd_config_fabric(&d.cfg, d.hz, &fc) != 0) {
			fprintf(stderr, "mrcd: [fabric] does not convert to a fabric configuration\n");
			goto out;
		}
		d.fab = mrc_fabric_create(&fc, &why);
		if (d.fab == NULL || mrc_fabric_start_ports(d.fab, d.host[0].rx_pool) != 0) {
			fprintf(stderr, "mrcd: fabric: %s\n", why ? why : "ports did not start");
			goto out;
		}
		for (unsigned int h = 0; h < d.n_hosts; h++)
			for (unsigned int p = 0; p < d.cfg.daemon.planes; p++)
				d.host[h].port[p] = mrc_fabric_port(d.fab, h, p);
	}
	/* Returns how many events it scheduled. */
	if (scenario[0] != '\0' && mrc_fabric_load_scenario(d.fab, scenario, &why) < 0) {
		fprintf(stderr, "mrcd: scenario: %s\n", why);
		goto out;
	}
	{
		struct rte_malloc_socket_stats ms;

		if (rte_malloc_get_socket_stats((int)rte_socket_id(), &ms) == 0)
			d.heap_bytes =
				ms.heap_allocsz_bytes; /* before the flows: subtracted below */
	}
	if (make_flows(&d, true) != 0)
		goto out;

	const uint64_t t0 = rte_rdtsc();

	for (unsigned int h = 0; h < d.n_hosts; h++)
		if (make_host(&d, h, t0) != 0)
			goto out;
	step = 4;
	if (connect_flows(&d, t0) != 0 || assign_lcores(&d) != 0)
		goto out;
	for (unsigned int h = 0; h < d.n_hosts; h++)
		if (mrcd_sched_init(&d, h, rte_rdtsc()) != 0) {
			fprintf(stderr, "mrcd: host %u: out of memory for its flow queues\n", h);
			goto out;
		}
	{
		struct rte_malloc_socket_stats ms;

		for (unsigned int h = 0; h < d.n_hosts; h++) {
			d.msg_buf_bytes += d.host[h].mem_len;
			d.trk_bytes += mrc_trk_pool_mem_bytes(mrcd_host_trk_pool(d.host[h].rt)) +
				mrc_trk_pool_mem_bytes(d.host[h].imm_pool);
		}
		/* What the flows, hosts and QPs took from the heap (mbuf pools excluded). */
		if (rte_malloc_get_socket_stats((int)rte_socket_id(), &ms) == 0)
			d.heap_bytes = ms.heap_allocsz_bytes - d.heap_bytes;
	}
	mrcd_banner(&d, profile, scenario);
	if (mrcd_telemetry_register(&d) != 0)
		fprintf(stderr, "mrcd: telemetry commands not registered (continuing without)\n");

	/* 4. Run. */
	if (d.fab != NULL)
		mrc_fabric_start(d.fab, rte_rdtsc());
	for (unsigned int i = 0; i < d.n_workers; i++)
		rte_eal_remote_launch(worker_main, &d.workers[i], d.workers[i].lcore);
	run(&d);
	status = mrcd_summary(&d) == 0 ? 0 : 1;

out:
	/* 5. Unwind in reverse. */
	if (step >= 4) {
		for (unsigned int i = 0; i < d.n_flows && d.flows != NULL; i++) {
			if (d.flows[i].qp != NULL)
				mrcd_host_del_qp(d.host[d.flows[i].src_local].rt, d.flows[i].qp);
			if (d.peer_qp[i] != NULL)
				mrcd_host_del_qp(d.host[d.flows[i].dst_local].rt, d.peer_qp[i]);
			mrc_qp_destroy(d.flows[i].qp);
			mrc_qp_destroy(d.peer_qp[i]);
			rte_free(d.flows[i].post_tsc);
		}
		for (unsigned int h = 0; h < d.n_hosts; h++) {
			mrcd_sched_free(&d, h);
			mrcd_host_free(d.host[h].rt);
		}
	}
	if (step >= 3) {
		/* Every QP is gone, so every table is back (-EBUSY would leak, not crash). */
		for (unsigned int h = 0; h < d.n_hosts; h++)
			(void)mrc_trk_pool_free(d.host[h].imm_pool);
		mrcd_ports_close(&d); /* their rings give back the mbufs they hold */
		mrcd_loop_close(&d);
		mrc_fabric_free(d.fab); /* returns every packet still inside */
	}
	if (step >= 2) {
		for (unsigned int h = 0; h < d.n_hosts; h++) {
			struct mrcd_hostctx *hc = &d.host[h];

			if (mrcd_pools_full(hc) != 0)
				status = 1;
			rte_mempool_free(hc->rx_pool);
			rte_mempool_free(hc->tx_pool);
			rte_free(hc->mem);
			rte_free(hc->mrs);
			rte_free(hc->cq);
			rte_free(hc->send_flows);
			rte_free(hc->recv_flows);
		}
		rte_free(d.flows);
		rte_free(d.peer_qp);
		rte_free(d.flow_of);
	}
	if (step >= 1) {
		mrcd_eal_cleanup();
		mrcd_cpus_release();
	}
	return status;
}
