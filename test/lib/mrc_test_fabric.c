/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#include <stdio.h>
#include <string.h>

#include <rte_mbuf.h>

#include "mrc_test_fabric.h"

void
mrc_test_net_cfg_defaults(struct mrc_test_net_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	mrc_fabric_cfg_defaults(&cfg->fabric);
	cfg->nic_room = true;
	cfg->seed = 1;
}

int
mrc_test_net_create(struct mrc_test_net *net, const struct mrc_test_net_cfg *cfg)
{
	static unsigned int n_pools;
	const char *why = NULL;
	char name[32];

	memset(net, 0, sizeof(*net));
	snprintf(name, sizeof(name), "test_net_%u", n_pools++);
	net->pool = rte_pktmbuf_pool_create(
		name, 16383, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	if (net->pool == NULL) {
		fprintf(stderr, "  net: no mbuf pool\n");
		return -1;
	}
	net->fcfg = cfg->fabric;
	net->fcfg.tsc_hz = MRC_TEST_HZ;
	if (net->fcfg.n_hosts > MRC_TEST_NET_MAX_HOSTS) {
		fprintf(stderr, "  net: at most %u hosts\n", MRC_TEST_NET_MAX_HOSTS);
		return -1;
	}
	net->n_hosts = net->fcfg.n_hosts;
	net->step_ns = cfg->step_ns != 0 ? cfg->step_ns : 100;
	mrc_rand_seed(&net->rand, cfg->seed);
	net->fab = mrc_fabric_create(&net->fcfg, &why);
	if (net->fab == NULL) {
		fprintf(stderr, "  fabric: %s\n", why);
		return -1;
	}
	if (mrc_fabric_start_ports(net->fab, net->pool) != 0) {
		fprintf(stderr, "  fabric: ports do not start\n");
		return -1;
	}
	mrc_fabric_start(net->fab, net->now);
	for (unsigned int h = 0; h < net->n_hosts; h++) {
		struct mrc_shard_cfg sc = {
			.host_id = (uint8_t)h,
			.n_planes = net->fcfg.n_planes,
			.qpn_base = MRC_TEST_NET_QPN_BASE,
			.max_qps = 2 * MRC_TEST_NET_MAX_PAIRS,
			.tsc_hz = MRC_TEST_HZ,
			.socket = SOCKET_ID_ANY,
		};
		const uint64_t room_ns = cfg->tx_room_ns != 0 ? cfg->tx_room_ns : 2560;

		mrc_wire_cfg_defaults(&sc.wire);
		for (unsigned int pl = 0; pl < net->fcfg.n_planes; pl++)
			sc.port_id[pl] = mrc_fabric_port(net->fab, h, pl);
		if (cfg->nic_room) {
			sc.tx_backlog = mrc_fabric_tx_backlog_cb;
			sc.tx_backlog_ctx = net->fab;
			sc.tx_backlog_host = h;
			/* As the daemon: the room, but at least two frames of the default MTU. */
			sc.tx_room_bytes =
				RTE_MAX((uint64_t)((double)room_ns * net->fcfg.link_gbps / 8),
					2 * (4096u + 256u));
		}
		net->shard[h] = mrc_shard_create(&sc, net->now, &why);
		if (net->shard[h] == NULL) {
			fprintf(stderr, "  shard %u: %s\n", h, why);
			return -1;
		}
		net->port_mask[h] = mrc_shard_refresh_links(net->shard[h]);
	}
	return 0;
}

void
mrc_test_net_pair_cfg(const struct mrc_test_net *net, unsigned int index, uint8_t a, uint8_t b,
	struct mrc_test_pair_cfg *pc)
{
	mrc_test_pair_cfg_defaults(pc);
	pc->n_planes = net->fcfg.n_planes;
	mrc_qp_attr_defaults(&pc->attr, pc->n_planes, MRC_TEST_HZ);
	pc->qpn_base = MRC_TEST_NET_QPN_BASE + 2 * index;
	pc->host[0] = a;
	pc->host[1] = b;
	pc->hosts_per_t0 = net->fcfg.hosts_per_t0;
	pc->n_t1 = net->fcfg.n_t1;
}

int
mrc_test_net_add_pair(
	struct mrc_test_net *net, struct mrc_test_pair *p, const struct mrc_test_pair_cfg *pc)
{
	const unsigned int k = net->n_pairs;

	if (k >= MRC_TEST_NET_MAX_PAIRS)
		return -1;
	for (unsigned int i = 0; i < 2; i++) {
		const unsigned int host = pc->host[i];

		if (host >= net->n_hosts ||
			mrc_shard_add_qp(net->shard[host], p->h[i].qp, net->now) != 0) {
			fprintf(stderr, "  pair %u: QP 0x%x not taken by host %u\n", k,
				mrc_qp_qpn(p->h[i].qp), host);
			return -1;
		}
		net->pair_host[k][i] = (uint8_t)host;
	}
	net->pair[k] = p;
	net->n_pairs++;
	return 0;
}

void
mrc_test_net_links(struct mrc_test_net *net)
{
	for (unsigned int h = 0; h < net->n_hosts; h++) {
		const uint32_t m = mrc_shard_refresh_links(net->shard[h]);

		if (m == net->port_mask[h])
			continue;
		net->port_mask[h] = m;
		/* Port status to the peers: their QPs stop using this host's dead planes too. */
		for (unsigned int k = 0; k < net->n_pairs; k++)
			for (unsigned int i = 0; i < 2; i++)
				if (net->pair_host[k][i] == h)
					mrc_qp_set_peer_planes(net->pair[k]->h[1 - i].qp, m);
	}
}

void
mrc_test_net_step(struct mrc_test_net *net)
{
	net->now += net->step_ns;
	mrc_fabric_poll(net->fab, net->now);
	for (unsigned int h = 0; h < net->n_hosts; h++)
		mrc_shard_iterate(net->shard[h], net->now, &net->rand);
	if (net->now >= net->next_links) {
		mrc_test_net_links(net);
		net->next_links = net->now + 1000;
	}
}

bool
mrc_test_net_idle(const struct mrc_test_net *net)
{
	if (mrc_fabric_in_flight(net->fab) != 0)
		return false;
	for (unsigned int h = 0; h < net->n_hosts; h++)
		if (mrc_shard_staged(net->shard[h]) != 0)
			return false;
	for (unsigned int k = 0; k < net->n_pairs; k++)
		for (unsigned int i = 0; i < 2; i++)
			if (!mrc_qp_idle(net->pair[k]->h[i].qp))
				return false;
	return true;
}

bool
mrc_test_net_free(struct mrc_test_net *net)
{
	bool full;

	for (unsigned int k = 0; k < net->n_pairs; k++)
		for (unsigned int i = 0; i < 2; i++)
			mrc_shard_del_qp(net->shard[net->pair_host[k][i]], net->pair[k]->h[i].qp);
	for (unsigned int h = 0; h < net->n_hosts; h++)
		if (net->shard[h] != NULL) {
			mrc_shard_drop_staged(net->shard[h]);
			mrc_shard_free(net->shard[h]);
		}
	mrc_fabric_free(net->fab);
	full = net->pool == NULL || rte_mempool_avail_count(net->pool) == net->pool->size;
	rte_mempool_free(net->pool);
	memset(net, 0, sizeof(*net));
	return full;
}
