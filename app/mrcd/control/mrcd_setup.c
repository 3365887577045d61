/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: the main lcore, before the workers are launched (and the pools
 * check at teardown, after they stopped).
 *
 * mrcd's setup, between the EAL and the run: sizing the memory the flows
 * need (before the EAL starts), each host's pools and dataplane, the
 * traffic generator's flows and their QP pairs, and which lcore runs what.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring_elem.h>

#include "mrc_fabric.h"
#include "mrcd_apps.h"
#include "mrcd_cli.h"
#include "mrcd_config.h"
#include "mrcd_daemon.h"
#include "mrcd_log.h"
#include "mrcd_control.h"
#include "mrcd_gen.h"
#include "mrcd_recover.h"
#include "mrcd_reload.h"
#include "mrc_shard.h"

int
mrcd_make_pools(struct mrcd_daemon *d, unsigned int h)
{
	char name[RTE_MEMPOOL_NAMESIZE];
	const struct mrcd_cfg_ports *p = &d->cfg.ports;

	snprintf(name, sizeof(name), "rx_h%u", h);
	d->host[h].rx_pool = rte_pktmbuf_pool_create(
		name, p->rx_pool_mbufs, 256, 0, p->rx_mbuf_data_room, (int)rte_socket_id());
	snprintf(name, sizeof(name), "tx_h%u", h);
	/* Headers and retransmits come from their own pool: they can never starve rx. */
	d->host[h].tx_pool = rte_pktmbuf_pool_create(
		name, p->tx_pool_mbufs, 256, 0, p->tx_mbuf_data_room, (int)rte_socket_id());
	if (d->host[h].rx_pool == NULL || d->host[h].tx_pool == NULL) {
		MRCD_LOG(ctrl, ERR, "host %u: cannot create mbuf pools (%u + %u mbufs): %s", h,
			p->rx_pool_mbufs, p->tx_pool_mbufs, rte_strerror(rte_errno));
		return -rte_errno;
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
int
mrcd_make_flows(struct mrcd_daemon *d, bool fill)
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
		MRCD_LOG(ctrl, ERR, "out of memory for the flow list");
		return -ENOMEM;
	}
	/* Profile none: the hosts and their ports, and no flow of the generator's. */
	np = d->no_traffic ? 0
			   : mrcd_pattern_pairs(&d->prof, nc, d->cfg.daemon.seed, pairs, nc * nc);
	n_cluster = (uint64_t)np * d->prof.qps_per_peer;
	if (n_cluster > MRCD_MAX_FLOWS) {
		MRCD_LOG(ctrl, ERR,
			"the profile makes %" PRIu64 " flows (pattern %s over %u hosts "
			"x qps_per_peer = %u); at most %u: lower qps_per_peer to %" PRIu64,
			n_cluster, mrcd_pattern_name(d->prof.pattern), nc, d->prof.qps_per_peer,
			MRCD_MAX_FLOWS, (uint64_t)MRCD_MAX_FLOWS / (np ? np : 1));
		free(pairs);
		return -E2BIG;
	}
	for (unsigned int k = 0; k < np; k++)
		out_bytes[pairs[k][0]] += d->prof.qps_per_peer * slot_bytes;
	for (unsigned int c = 0; c < nc; c++)
		in_off[c] = out_bytes[c];
	d->n_cluster_flows = (unsigned int)n_cluster;
	/* the pairs reloads add flows on across processes: after the applications' QPNs */
	d->n_added_pairs = mrcd_reload_added_pairs(d);
	d->added_qpn = MRCD_QPN_BASE + 2 * d->n_cluster_flows +
		       2 * mrcd_recover_spares(d->n_cluster_flows) + MRCD_APPS_QPNS;
	if (fill) {
		d->flow_cap = d->n_flows + mrcd_reload_room(d, d->n_flows, 16);
		d->flow_of = rte_malloc("mrcd_flow_of", (n_cluster + 1) * sizeof(*d->flow_of), 64);
		d->flows = rte_zmalloc("mrcd_flows", (d->flow_cap + 1) * sizeof(*d->flows), 64);
		d->peer_qp =
			rte_zmalloc("mrcd_peer_qp", (d->flow_cap + 1) * sizeof(*d->peer_qp), 64);
		d->added_of = rte_malloc(
			"mrcd_added_of", (d->n_added_pairs + 1) * sizeof(*d->added_of), 64);
		for (uint32_t k = 0; d->added_of != NULL && k < d->n_added_pairs; k++)
			d->added_of[k] = -1;
		for (unsigned int h = 0; h < d->n_hosts; h++) {
			struct mrcd_hostctx *hc = &d->host[h];

			hc->send_flows =
				rte_malloc("mrcd_send", (hc->n_send + 1) * sizeof(uint32_t), 64);
			hc->recv_flows =
				rte_malloc("mrcd_recv", (hc->n_recv + 1) * sizeof(uint32_t), 64);
			if (hc->send_flows == NULL || hc->recv_flows == NULL)
				d->flows = NULL; /* reported below */
		}
		if (d->flow_of == NULL || d->flows == NULL || d->peer_qp == NULL ||
			d->added_of == NULL) {
			MRCD_LOG(ctrl, ERR,
				"out of memory for %u flows' state (raise -m, or use "
				"hugepages; or lower qps_per_peer)",
				d->n_flows);
			free(pairs);
			return -ENOMEM;
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
				f->q = (uint16_t)q;
				f->qpn = MRCD_QPN_BASE + 2 * g;
				f->src = (uint16_t)src;
				f->dst = (uint16_t)dst;
				f->src_local = (int16_t)(src_ours ? (int)(src - lo) : -1);
				f->dst_local = (int16_t)(dst_ours ? (int)(dst - lo) : -1);
				f->dst_off = in_off[dst];
				f->src_off = out_off[src];
				mrcd_flow_shards(g, d->cfg.lcores.workers_per_host,
					d->cfg.lcores.peer_shard, &f->src_shard, &f->dst_shard);
				d->flow_of[g] = (int32_t)(d->n_flows - 1);
			}
			out_off[src] += slot_bytes;
			in_off[dst] += slot_bytes;
		}
	free(pairs);
	/* A host's region spans its whole layout, including slots of flows it does not run. */
	for (unsigned int h = 0; h < d->n_hosts; h++)
		d->host[h].region_bytes = in_off[lo + h];
	/* in service mode the region has as much again for flows a reload adds (mrcd_reload.h);
	 * across processes every process computes every host's alike (its reserve) */
	for (unsigned int h = 0; h < d->n_hosts; h++)
		d->host[h].region_bytes +=
			mrcd_reload_room(d,
				(unsigned int)(in_off[lo + h] / RTE_MAX(slot_bytes, (size_t)1)),
				4) *
			slot_bytes;
	if (d->n_flows == 0 && !d->no_traffic) {
		MRCD_LOG(ctrl, ERR, "the profile's pattern '%s' gives no flows for %u hosts",
			mrcd_pattern_name(d->prof.pattern), d->n_hosts);
		return -EINVAL;
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
	return n ? (uint32_t)n : 1; /* profile none: no QP, and pools are never empty */
}

/*
 * What this process will allocate for its flows, before the EAL starts:
 * the message buffers (every local host's region: flows x slots (`buffers`) x the
 * largest message, at both ends), its QPs' state, and the in-flight rings.
 * Refused, saying what to lower, when it exceeds the machine's available
 * memory; otherwise added to the EAL's -m without hugepages.
 */
int
mrcd_size_memory(struct mrcd_daemon *d)
{
	struct mrc_qp_attr a, c;
	uint64_t buf = 0, qps, trk = 0, avail = 0, trk_bytes;
	FILE *mi;
	char line[128];

	int rc = mrcd_make_flows(d, false);

	if (rc != 0)
		return rc;
	/* The flows' QPs are made with the traffic profile's EV and CC profiles. */
	rc = mrcd_profile_qp_attr(&d->profiles, d->prof.ev_profile, d->prof.cc_profile,
		1000000000ull, &a, line, sizeof(line));
	if (rc != 0) {
		MRCD_LOG(ctrl, ERR, "the flows' QP attributes: %s", line);
		return rc;
	}
	mrcd_profile_table_release(&d->profiles, d->prof.ev_profile, d->prof.cc_profile);
	if (mrcd_config_qp_attr(&d->cfg, 1000000000ull, &c) != 0) {
		MRCD_LOG(ctrl, ERR, "[transport] does not convert to QP attributes");
		return -EINVAL;
	}
	/* the shards' in-flight blocks fit both: mrcd_make_host */
	trk_bytes = RTE_MAX(mrc_qp_trk_block_bytes(&a), mrc_qp_trk_block_bytes(&c));
	for (unsigned int h = 0; h < d->n_hosts; h++) {
		const unsigned int n_shards = d->cfg.lcores.workers_per_host;
		const uint64_t qps_h = n_shards > 1
					       ? (uint64_t)d->host[h].n_send + d->host[h].n_recv
					       : 2ull * d->n_cluster_flows;

		buf += RTE_MAX(d->host[h].region_bytes, (size_t)4096);
		/* each shard's pool: at most its QPs (an even share, or one more) */
		trk += (uint64_t)n_shards *
		       trk_blocks(d, n_shards > 1 ? qps_h / n_shards + 1 : qps_h) * trk_bytes;
	}
	/*
	 * A QP's own state is about 4 KiB plus its send queue (64 B a message)
	 * and, when asked for, per-EV statistics (152 B an EV); 8 KiB more covers
	 * the allocator and the Write-IMM table. The host's QP table: 64 B a QPN.
	 */
	const uint64_t per_qp =
		12288ull + 64ull * d->cfg.transport.sq_size +
		(d->cfg.telemetry.ev_stats ? 152ull * (a.ev.n_active + a.ev.n_backup) : 0);

	/* The QP table also covers the spare pairs that recovered flows move to, and the
	 * pairs reloads add across processes. */
	qps = 64ull * 2 *
	      (d->n_cluster_flows + mrcd_recover_spares(d->n_cluster_flows) + d->n_added_pairs) *
	      d->n_hosts;
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
		MRCD_LOG(ctrl, ERR,
			"the profile needs %" PRIu64 " MiB: %" PRIu64 " MiB of message "
			"buffers (%u flows x %u x %u KiB slots, at both ends), %" PRIu64
			" MiB of QP state, %" PRIu64 " MiB of in-flight rings; %" PRIu64
			" MiB are available: lower qps_per_peer, outstanding, buffers or msg_kb "
			"(size_mix)%s",
			(buf + qps + trk) >> 20, buf >> 20, d->n_flows, mrcd_flow_buffers(&d->prof),
			d->prof.max_kb, qps >> 20, trk >> 20, avail >> 20,
			d->cfg.telemetry.ev_stats ? ", or set [telemetry] ev_stats = false" : "");
		return -ENOMEM;
	}
	d->cli.extra_mem_bytes = buf + qps + trk;
	return 0;
}

/*
 * QPNs of a host the map covers: the flows', their spare pairs', the
 * applications', then the pairs reloads add across processes.
 */
static uint32_t
map_len(const struct mrcd_daemon *d)
{
	return 2 * d->n_cluster_flows + 2 * mrcd_recover_spares(d->n_cluster_flows) +
	       MRCD_APPS_QPNS + 2 * d->n_added_pairs;
}

/*
 * Host h's QPNs over its shards: the per-shard lists of the flows whose
 * QPs each owns and, with more than one shard, the QPN map every shard of
 * the host reads (lib/host/mrc_shard.h). One shard keeps the plain rule
 * (slot = QPN - base), exactly as a host of one shard always did.
 */
static int
split_host(struct mrcd_daemon *d, unsigned int h, uint32_t *max_qps)
{
	struct mrcd_hostctx *hc = &d->host[h];
	const uint32_t n_qpns = 2 * d->n_cluster_flows;

	for (unsigned int k = 0; k < hc->n_shards; k++) {
		struct mrcd_shardctx *sc = &hc->shard[k];

		/* room for flows a reload adds: d->flow_cap past the start's (mrcd_reload.h) */
		const uint32_t room = d->flow_cap - d->n_flows;

		sc->send_flows =
			rte_malloc("mrcd_send", (hc->n_send + room + 1) * sizeof(uint32_t), 64);
		sc->recv_flows =
			rte_malloc("mrcd_recv", (hc->n_recv + room + 1) * sizeof(uint32_t), 64);
		if (sc->send_flows == NULL || sc->recv_flows == NULL)
			return -ENOMEM;
		sc->n_send = sc->n_recv = 0;
		/* one shard: the flows' QPNs, then the spare pairs of recovered flows
		 * (mrcd_recover.h); with several, the map below counts them */
		max_qps[k] = hc->n_shards == 1 ? map_len(d) : 0;
	}
	if (hc->n_shards > 1) {
		hc->qpn_map = rte_malloc("mrcd_qpn_map", (map_len(d) + 1) * sizeof(uint32_t), 64);
		if (hc->qpn_map == NULL)
			return -ENOMEM;
		for (uint32_t q = 0; q < map_len(d); q++)
			hc->qpn_map[q] = mrc_shard_map_entry(0xff, 0); /* nobody's */
		/* The applications' QPNs, by the rule every process of the cluster computes
		 * from the QPN alone (mrcd_apps_qpn_shard), so a peer addresses the owner. */
		for (uint32_t q = d->added_qpn - MRCD_APPS_QPNS - MRCD_QPN_BASE;
			q < d->added_qpn - MRCD_QPN_BASE; q++) {
			const unsigned int k = mrcd_apps_qpn_shard(MRCD_QPN_BASE + q, hc->n_shards);

			hc->qpn_map[q] = mrc_shard_map_entry(k, max_qps[k]++);
		}
		/* The pairs reloads add across processes, placed as the spares are (below),
		 * the same in every process (mrcd_reload.c add_flow_cluster). */
		for (uint32_t ap = 0; ap < d->n_added_pairs; ap++) {
			uint8_t k[2];

			mrcd_spare_shards(ap, hc->n_shards, d->cfg.lcores.peer_shard, &k[0], &k[1]);
			for (uint32_t e = 0; e < 2; e++)
				hc->qpn_map[d->added_qpn - MRCD_QPN_BASE + 2 * ap + e] =
					mrc_shard_map_entry(k[e], max_qps[k[e]]++);
		}
		/* The spare pairs recovered and reloaded flows take, each end on the
		 * shard mrcd_spare_shards() names: the map never changes at run time. */
		for (uint32_t sp = 0; sp < mrcd_recover_spares(d->n_cluster_flows); sp++) {
			uint8_t k[2];

			mrcd_spare_shards(sp, hc->n_shards, d->cfg.lcores.peer_shard, &k[0], &k[1]);
			for (uint32_t e = 0; e < 2; e++)
				hc->qpn_map[n_qpns + 2 * sp + e] =
					mrc_shard_map_entry(k[e], max_qps[k[e]]++);
		}
	}
	for (uint32_t j = 0; j < hc->n_send; j++) {
		const struct mrcd_flow *f = &d->flows[hc->send_flows[j]];
		struct mrcd_shardctx *sc = &hc->shard[f->src_shard];

		if (hc->qpn_map != NULL)
			hc->qpn_map[f->qpn - MRCD_QPN_BASE] =
				mrc_shard_map_entry(f->src_shard, max_qps[f->src_shard]++);
		sc->send_flows[sc->n_send++] = hc->send_flows[j];
	}
	for (uint32_t j = 0; j < hc->n_recv; j++) {
		const struct mrcd_flow *f = &d->flows[hc->recv_flows[j]];
		struct mrcd_shardctx *sc = &hc->shard[f->dst_shard];

		if (hc->qpn_map != NULL)
			hc->qpn_map[f->qpn + 1 - MRCD_QPN_BASE] =
				mrc_shard_map_entry(f->dst_shard, max_qps[f->dst_shard]++);
		sc->recv_flows[sc->n_recv++] = hc->recv_flows[j];
	}
	for (unsigned int k = 0; k < hc->n_shards; k++)
		max_qps[k] = RTE_MAX(max_qps[k], 1u); /* a shard may own no QP */
	return 0;
}

/* Host h's rings: hand-off and events (the shards share them), and each shard's inbound. */
static int
make_rings(struct mrcd_daemon *d, unsigned int h)
{
	struct mrcd_hostctx *hc = &d->host[h];
	char name[RTE_RING_NAMESIZE];
	/* one producer per host as before; the shards of a host share these rings */
	const unsigned int prod = hc->n_shards > 1 ? 0 : RING_F_SP_ENQ;

	/* What the shards do not own (endpoint requests) goes to the control thread. */
	snprintf(name, sizeof(name), "mrcd_ho%u", h);
	hc->handoff = rte_ring_create(name, 1024, (int)rte_socket_id(), prod | RING_F_SC_DEQ);
	/* QPs that went to ERROR: reported by the control thread. */
	snprintf(name, sizeof(name), "mrcd_ev%u", h);
	hc->events = rte_ring_create(name, 4096, (int)rte_socket_id(), prod | RING_F_SC_DEQ);
	/* What the control thread sends (endpoint operations, and neighbour discovery's
	 * frames: mrcd_nd_setup() takes this ring): shard 0 sends it. */
	snprintf(name, sizeof(name), "mrcd_ct%u", h);
	hc->ctl_tx =
		rte_ring_create(name, 256, (int)rte_socket_id(), RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (hc->handoff == NULL || hc->events == NULL || hc->ctl_tx == NULL) {
		MRCD_LOG(ctrl, ERR, "host %u: cannot make its hand-off and event rings: %s", h,
			rte_strerror(rte_errno));
		return -rte_errno;
	}
	for (unsigned int k = 0; k < hc->n_shards && hc->n_shards > 1; k++) {
		/* The packets its port queues took for this shard: a few bursts per plane. */
		const unsigned int size = rte_align32pow2(
			RTE_MAX(4u * MRC_SHARD_RX_BURSTS * MRC_SHARD_BURST * d->cfg.daemon.planes,
				(unsigned int)d->cfg.ports.rx_desc));

		snprintf(name, sizeof(name), "mrcd_in%u_%u", h, k);
		hc->shard[k].inbound = rte_ring_create(name, size, (int)rte_socket_id(),
			RING_F_SC_DEQ); /* multi producer: the host's other shards */
		if (hc->shard[k].inbound == NULL) {
			MRCD_LOG(ctrl, ERR, "host %u shard %u: cannot make its inbound ring: %s", h,
				k, rte_strerror(rte_errno));
			return -rte_errno;
		}
	}
	return 0;
}

int
mrcd_make_host(struct mrcd_daemon *d, unsigned int h, uint64_t now)
{
	struct mrcd_hostctx *hc = &d->host[h];
	const unsigned int c = d->cfg.daemon.first_host + h; /* the cluster's number for it */
	uint32_t max_qps[MRC_SHARD_MAX_SHARDS];
	struct mrc_shard_cfg cfg = {.host_id = (uint8_t)c,
		.n_planes = d->cfg.daemon.planes,
		.qpn_base = MRCD_QPN_BASE,
		.tsc_hz = d->hz,
		.socket = (int)rte_socket_id(),
		.path_t1s = d->cfg.fabric.t1s};
	const char *why = NULL;
	struct mrc_qp_attr a, g;
	char err[256];
	int rc;

	rc = mrcd_config_qp_attr(&d->cfg, d->hz, &a);
	if (rc != 0) {
		MRCD_LOG(ctrl, ERR, "[transport] does not convert to QP attributes");
		return rc;
	}
	/* The flows' QPs, made with the traffic profile's EV profile, may have more EVs. */
	rc = mrcd_profile_qp_attr(
		&d->profiles, d->prof.ev_profile, d->prof.cc_profile, d->hz, &g, err, sizeof(err));
	if (rc != 0) {
		MRCD_LOG(ctrl, ERR, "the flows' QP attributes: %s", err);
		return rc;
	}
	mrcd_profile_table_release(&d->profiles, d->prof.ev_profile, d->prof.cc_profile);
	hc->n_shards = d->cfg.lcores.workers_per_host ? d->cfg.lcores.workers_per_host : 1;
	rc = split_host(d, h, max_qps);
	if (rc == 0)
		rc = make_rings(d, h);
	if (rc == 0)
		rc = mrcd_nd_setup(d, h); /* neighbour discovery: its rings, before the shards */
	if (rc != 0) {
		if (rc == -ENOMEM)
			MRCD_LOG(ctrl, ERR, "host %u: out of memory for its shards' tables", h);
		return rc;
	}
	mrcd_config_wire(&d->cfg, &cfg.wire);
	for (unsigned int p = 0; p < d->cfg.daemon.planes; p++) {
		cfg.port_id[p] = hc->port[p];
		/* ethdev ports: tx room from the NIC where it tells (mrcd_ports.c) */
		cfg.tx_ring_desc[p] = hc->tx_desc[p];
		cfg.tx_room_desc[p] = hc->tx_room_desc[p];
	}
	/* the generator's region, then the applications' (apps/mrcd_apps.h) */
	hc->mrs = rte_zmalloc("mrcd_mrs", mrc_mr_table_memsize(4 + MRCD_APPS_MR_SLOTS), 64);
	hc->mem_len = RTE_MAX(hc->region_bytes, (size_t)4096); /* a host may have no flows */
	hc->mem = rte_zmalloc("mrcd_mem", hc->mem_len, 4096);
	if (hc->mrs == NULL || hc->mem == NULL) {
		MRCD_LOG(ctrl, ERR,
			"host %u: out of memory for %zu bytes of message buffers "
			"(raise -m, or use hugepages)",
			h, hc->mem_len);
		return -ENOMEM;
	}
	mrc_mr_table_init(hc->mrs, 4 + MRCD_APPS_MR_SLOTS);
	hc->key = mrc_mr_register(hc->mrs, hc->mem, hc->mem_len, rte_malloc_virt2iova(hc->mem),
		MRC_MR_ACCESS_LOCAL_READ | MRC_MR_ACCESS_REMOTE_WRITE | MRC_MR_ZERO_BASED);
	if (hc->key == 0) {
		MRCD_LOG(ctrl, ERR, "host %u: cannot register memory", h);
		return -EINVAL;
	}
	cfg.handoff = hc->handoff;
	cfg.events = hc->events;
	cfg.n_shards = (uint16_t)hc->n_shards;
	cfg.qpn_map = hc->qpn_map;
	cfg.qpn_map_len = hc->qpn_map != NULL ? map_len(d) : 0;
	/* a peer in another process may make its end of an added flow first */
	cfg.pending_qpn = d->added_qpn;
	cfg.n_pending_qpns = 2 * d->n_added_pairs;
	for (unsigned int k = 0; k < hc->n_shards && hc->n_shards > 1; k++)
		cfg.dispatch[k] = hc->shard[k].inbound;
	for (unsigned int k = 0; k < hc->n_shards; k++) {
		struct mrcd_shardctx *sc = &hc->shard[k];

		/*
		 * In-flight rings, lent to the shard's QPs while they have packets in
		 * flight: one per QP up to MRCD_TRK_BLOCKS_MAX (beyond, QPs take turns).
		 */
		cfg.max_qps = max_qps[k];
		/* sized by the flows: a recovered flow's new pair replaces its old one */
		cfg.trk_blocks = trk_blocks(d, RTE_MIN(cfg.max_qps, 2 * d->n_cluster_flows));
		cfg.trk_block_bytes =
			RTE_MAX(mrc_qp_trk_block_bytes(&a), mrc_qp_trk_block_bytes(&g));
		cfg.shard_index = (uint16_t)k;
		/* its own queue on every port; past a port's rx queues it reads none */
		cfg.tx_queue = (uint16_t)k;
		cfg.rx_queue = (uint16_t)k;
		for (unsigned int p = 0; p < d->cfg.daemon.planes; p++)
			if (hc->rx_queues[p] != 0 && k >= hc->rx_queues[p])
				cfg.rx_queue = MRC_SHARD_NO_RX_QUEUE;
		/*
		 * Write-IMM tables, lent the same way to a responder only while an
		 * immediate waits for the rest of its message (one per QP up to
		 * MRCD_TRK_BLOCKS_MAX; with none free the packet is NACKed and resent).
		 */
		{
			/* RTE_MIN nested would shadow its own locals (-Wshadow) */
			uint32_t qps = RTE_MIN(cfg.max_qps, 2 * d->n_cluster_flows);

			qps = qps ? qps : 1; /* profile none: no QP, and pools are never empty */
			sc->imm_pool =
				mrc_trk_pool_create(RTE_MIN(qps, (uint32_t)MRCD_TRK_BLOCKS_MAX),
					mrc_qp_imm_block_bytes(&a), (int)rte_socket_id());
			/* as many control answer rings: a QP holds one while an answer waits */
			sc->ctrl_pool =
				mrc_trk_pool_create(RTE_MIN(qps, (uint32_t)MRCD_TRK_BLOCKS_MAX),
					mrc_qp_ctrl_block_bytes(), (int)rte_socket_id());
		}
		sc->cq = rte_zmalloc("mrcd_cq", mrc_cq_memsize(d->cfg.transport.cq_size), 64);
		/* Requests from the control thread: QPs retired and added (mrcd_recover.c). */
		{
			char name[RTE_RING_NAMESIZE];

			snprintf(name, sizeof(name), "mrcd_rq%u_%u", h, k);
			sc->requests =
				rte_ring_create(name, 1024, (int)rte_socket_id(), RING_F_SC_DEQ);
			if (sc->requests == NULL) {
				MRCD_LOG(ctrl, ERR,
					"host %u shard %u: cannot make its request ring: %s", h, k,
					rte_strerror(rte_errno));
				return -rte_errno;
			}
			cfg.requests = sc->requests;
			/* EVs out of use and back, for mrcctl events (control/mrcd_ctl.h) */
			snprintf(name, sizeof(name), "mrcd_ee%u_%u", h, k);
			sc->ev_events =
				rte_ring_create_elem(name, sizeof(struct mrc_shard_ev_event), 4096,
					(int)rte_socket_id(), RING_F_SP_ENQ | RING_F_SC_DEQ);
			if (sc->ev_events == NULL) {
				MRCD_LOG(ctrl, ERR,
					"host %u shard %u: cannot make its EV event ring: %s", h, k,
					rte_strerror(rte_errno));
				return -rte_errno;
			}
			cfg.ev_events = sc->ev_events;
		}
		if (sc->imm_pool == NULL || sc->ctrl_pool == NULL || sc->cq == NULL) {
			MRCD_LOG(ctrl, ERR,
				"host %u shard %u: out of memory for its Write-IMM tables, answer "
				"rings and CQ",
				h, k);
			return -ENOMEM;
		}
		mrc_cq_init(sc->cq, d->cfg.transport.cq_size);
		/* frames that are not MRC to the control thread; its own frames out by shard 0 */
		cfg.exception = hc->exception;
		cfg.ctl_tx = k == 0 ? hc->ctl_tx : NULL;
		sc->rt = mrc_shard_create(&cfg, now, &why);
		if (sc->rt == NULL) {
			MRCD_LOG(ctrl, ERR, "host %u shard %u: %s", h, k, why);
			return -ENOMEM;
		}
		/* a plane whose next hop is resolved is out of rotation until it is */
		if (hc->nd_on) {
			uint32_t known = 0;

			for (unsigned int p = 0; p < d->cfg.daemon.planes; p++)
				known |= (uint32_t)!hc->nd[p].resolve << p;
			mrc_shard_set_port_mask(sc->rt, known);
		}
		/* shard 0 keeps the seed a host of one shard always had */
		mrc_rand_seed(&sc->rand, d->cfg.daemon.seed * 1000003u + c + 7919u * k);
	}
	if (hc->n_shards > 1) {
		struct mrc_shard *all[MRC_SHARD_MAX_SHARDS];

		for (unsigned int k = 0; k < hc->n_shards; k++)
			all[k] = hc->shard[k].rt;
		/* each one's input horizon waits for what the others read for it */
		(void)mrc_shard_join(all, hc->n_shards);
	}
	return 0;
}

/* What to do when the heap ran out while making QPs. */
static const char *
oom_hint(const char *why)
{
	return strstr(why, "memory") != NULL ? " (the heap ran out: raise -m or use --no-huge; or "
					       "lower qps_per_peer, or set "
					       "[telemetry] ev_stats = false)"
					     : "";
}

struct mrc_qp *
mrcd_make_qp_rts(struct mrcd_daemon *d, unsigned int local, unsigned int shard, unsigned int peer,
	unsigned int peer_shard, uint32_t qpn, uint32_t dest_qpn, uint64_t now,
	struct mrc_rand *rand)
{
	struct mrcd_hostctx *hc = &d->host[local];
	struct mrcd_shardctx *sc = &hc->shard[shard];
	struct mrc_qp_init in = {.qpn = qpn,
		.sq_size = d->cfg.transport.sq_size,
		.mtu = d->cfg.transport.mtu,
		.tsc_hz = d->hz,
		.mrs = hc->mrs,
		.cq = sc->cq,
		.hdr_pool = hc->tx_pool,
		.ev_stats = d->cfg.telemetry.ev_stats,
		.socket = (int)rte_socket_id(),
		.trk_pool = mrc_shard_trk_pool(sc->rt),
		.imm_pool = sc->imm_pool,
		.ctrl_pool = sc->ctrl_pool};
	struct mrc_qp_attr a;
	const char *why = NULL;
	struct mrc_qp *qp;
	char err[256];

	mrcd_config_wire(&d->cfg, &in.wire);
	if (mrcd_config_qp_addr(&d->cfg, d->cfg.daemon.first_host + local, peer, &in.addr) != 0) {
		MRCD_LOG(ctrl, ERR, "QP 0x%x: cannot derive its addresses", qpn);
		rte_errno = EINVAL;
		return NULL;
	}
	/* The traffic profile's EV and CC profiles (0: [transport], [cc]); counted from here. */
	if (mrcd_profile_qp_attr(&d->profiles, d->prof.ev_profile, d->prof.cc_profile, d->hz, &a,
		    err, sizeof(err)) != 0) {
		MRCD_LOG(ctrl, ERR, "QP 0x%x: [profile] ev_profile = %u, cc_profile = %u: %s", qpn,
			d->prof.ev_profile, d->prof.cc_profile, err);
		rte_errno = EINVAL;
		return NULL;
	}
	a.dest_qpn = dest_qpn;
	/* each plane's next hop as neighbour discovery keeps it (mrcd_nd.c) */
	if (d->host[local].nd_on)
		in.addr.next_hop_mac = d->host[local].next_hop_mac;
	/*
	 * A peer with several workers is addressed at the one that owns
	 * dest_qpn (its worker micro-SID after the host's, SRv6): where its
	 * ports steer by flow rules, the packet lands on that worker's queue.
	 */
	if (d->cfg.lcores.workers_per_host > 1) {
		a.dest_workers = d->cfg.lcores.workers_per_host;
		a.dest_worker = (uint8_t)peer_shard;
	}
	qp = mrc_qp_create(&in, &why);
	if (qp == NULL) {
		MRCD_LOG(ctrl, ERR, "QP 0x%x: %s%s", qpn, why, oom_hint(why));
		mrcd_profile_table_release(&d->profiles, d->prof.ev_profile, d->prof.cc_profile);
		rte_errno = ENOMEM;
		return NULL;
	}
	for (int to = MRC_QP_INIT; to <= MRC_QP_RTS; to++)
		if (mrc_qp_modify(qp, (enum mrc_qp_state)to, &a, now, rand, &why) != 0) {
			MRCD_LOG(ctrl, ERR, "QP 0x%x -> %s: %s%s", qpn,
				mrc_qp_state_name((enum mrc_qp_state)to), why, oom_hint(why));
			mrcd_gen_qp_destroy(d, qp);
			rte_errno = EINVAL;
			return NULL;
		}
	return qp;
}

void
mrcd_gen_qp_destroy(struct mrcd_daemon *d, struct mrc_qp *qp)
{
	if (qp == NULL)
		return;
	mrc_qp_destroy(qp);
	mrcd_profile_table_release(&d->profiles, d->prof.ev_profile, d->prof.cc_profile);
}

/* answers_to: the QP at the other end when this process made it (its EVs carry our answers) */
static struct mrc_qp *
make_qp(struct mrcd_daemon *d, unsigned int local, unsigned int shard, unsigned int peer,
	unsigned int peer_shard, uint32_t qpn, uint32_t dest_qpn, uint64_t now,
	const struct mrc_qp *answers_to)
{
	struct mrcd_shardctx *sc = &d->host[local].shard[shard];
	struct mrc_qp *qp =
		mrcd_make_qp_rts(d, local, shard, peer, peer_shard, qpn, dest_qpn, now, &sc->rand);
	int rc;

	if (qp == NULL)
		return NULL;
	/* the NIC's encap rules for its packets, before its worker sees it */
	mrcd_encap_attach(d, local, shard, peer, peer_shard, qp, answers_to);
	rc = mrc_shard_add_qp(sc->rt, qp, now);
	if (rc != 0) {
		MRCD_LOG(ctrl, ERR, "QP 0x%x: its host's shard refused it: %s", qpn,
			rte_strerror(-rc));
		mrcd_gen_qp_destroy(d, qp);
		rte_errno = -rc;
		return NULL;
	}
	return qp;
}

/*
 * QPs for our ends of each flow, and the message slots. Every host
 * registers one zero-based region in a fresh table, so its rkey is the same
 * in every process: a sender uses its own host's key for a peer elsewhere.
 */
int
mrcd_connect_flows(struct mrcd_daemon *d, uint64_t now)
{
	for (unsigned int i = 0; i < d->n_flows; i++) {
		struct mrcd_flow *f = &d->flows[i];
		const uint32_t sq = f->qpn, rq = sq + 1;

		if (f->src_local >= 0) {
			struct mrcd_hostctx *hc = &d->host[f->src_local];

			f->qp = make_qp(d, (unsigned int)f->src_local, f->src_shard, f->dst,
				f->dst_shard, sq, rq, now, NULL);
			if (f->qp == NULL)
				return -rte_errno;
			f->src_buf = hc->mem + f->src_off;
			f->src_key = hc->key;
			f->dst_key = d->host[f->dst_local >= 0 ? f->dst_local : 0].key;
			f->post_tsc = rte_zmalloc(
				"mrcd_slots", d->prof.outstanding * sizeof(uint64_t), 64);
			if (f->post_tsc == NULL) {
				MRCD_LOG(
					ctrl, ERR, "out of memory at flow %u of %u", i, d->n_flows);
				return -ENOMEM;
			}
			d->qp_bytes +=
				mrc_qp_mem_bytes(f->qp) + d->prof.outstanding * sizeof(uint64_t);
		}
		if (f->dst_local >= 0) {
			struct mrcd_hostctx *hc = &d->host[f->dst_local];

			d->peer_qp[i] = make_qp(d, (unsigned int)f->dst_local, f->dst_shard, f->src,
				f->src_shard, rq, sq, now, f->src_local >= 0 ? f->qp : NULL);
			if (d->peer_qp[i] == NULL)
				return -rte_errno;
			f->dst_buf = hc->mem + f->dst_off;
			mrcd_flow_copy_rx(f);
			d->qp_bytes += mrc_qp_mem_bytes(d->peer_qp[i]);
		}
	}
	for (unsigned int h = 1; h < d->n_hosts; h++)
		if (d->host[h].key != d->host[0].key) {
			MRCD_LOG(ctrl, ERR,
				"host %u's region key 0x%x differs from host %u's 0x%x: "
				"peers elsewhere could not address it",
				d->cfg.daemon.first_host + h, d->host[h].key,
				d->cfg.daemon.first_host, d->host[0].key);
			return -EINVAL;
		}
	return 0;
}

int
mrcd_assign_lcores(struct mrcd_daemon *d)
{
	unsigned int lc, n = 0;

	RTE_LCORE_FOREACH_WORKER (lc) {
		if (n == RTE_DIM(d->workers))
			break;
		d->workers[n].d = d;
		d->workers[n].lcore = lc;
		n++;
	}
	if (n == 0) {
		MRCD_LOG(ctrl, ERR, "no worker lcore: give the EAL at least two (e.g. -l 0,1)");
		return -ENODEV;
	}
	d->n_workers = n;
	/* The fabric on the first worker (or its own lcore when [lcores] fabric = own). */
	const bool own = d->cfg.lcores.fabric == MRCD_FABRIC_OWN_LCORE && n > 1;
	const unsigned int first_host_worker = own ? 1 : 0;

	d->workers[0].runs_fabric = d->fab != NULL;
	/*
	 * Shard k of host h on worker (h x n_shards + k) mod workers: with as
	 * many workers as shards per host, worker k runs shard k of every host,
	 * and with one shard per host the hosts go round robin as they always did.
	 */
	for (unsigned int h = 0; h < d->n_hosts; h++)
		for (unsigned int k = 0; k < d->host[h].n_shards; k++) {
			const unsigned int wi = first_host_worker + (h * d->host[h].n_shards + k) %
									    (n - first_host_worker);
			struct mrcd_worker *w = &d->workers[wi];
			struct mrcd_shardctx *sc = &d->host[h].shard[k];

			sc->worker = wi;
			w->units[w->n_units++] = (struct mrcd_unit){(uint16_t)h, (uint16_t)k};
			/*
			 * A host polled with the fabric sends on a plane only while its
			 * NIC queue there holds under 2.56 us of line rate, and at least
			 * two frames, so a worker pass slower than a frame time leaves
			 * no gap on the wire (doc/architecture.md, "NIC transmit room").
			 */
			if (d->fab != NULL && w == &d->workers[0]) {
				const uint64_t frame = d->cfg.transport.mtu + 256u;
				const uint64_t room =
					(uint64_t)(2560 * d->cfg.fabric.link_gbps / 8);

				mrc_shard_set_tx_backlog(sc->rt, mrc_fabric_tx_backlog_cb, d->fab,
					h, RTE_MAX(room, 2 * frame));
			}
		}
	return 0;
}

int
mrcd_pools_full(const struct mrcd_hostctx *hc)
{
	int rc = 0;

	if (hc->rx_pool != NULL && rte_mempool_avail_count(hc->rx_pool) != hc->rx_pool->size) {
		MRCD_LOG(ctrl, ERR, "%s: %u of %u mbufs not returned", hc->rx_pool->name,
			hc->rx_pool->size - rte_mempool_avail_count(hc->rx_pool),
			hc->rx_pool->size);
		rc = -EBUSY;
	}
	if (hc->tx_pool != NULL && rte_mempool_avail_count(hc->tx_pool) != hc->tx_pool->size) {
		MRCD_LOG(ctrl, ERR, "%s: %u of %u mbufs not returned", hc->tx_pool->name,
			hc->tx_pool->size - rte_mempool_avail_count(hc->tx_pool),
			hc->tx_pool->size);
		rc = -EBUSY;
	}
	return rc;
}
