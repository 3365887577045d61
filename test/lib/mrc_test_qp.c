/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "mrc_env.h"
#include "mrc_test.h"
#include "mrc_test_qp.h"

static int eal_state; /* 0 not tried, 1 up, -1 failed */

int
mrc_test_eal_init(const char *prefix)
{
	static char buf[512];
	char *argv[32];
	int argc;

	if (eal_state != 0)
		return eal_state > 0 ? 0 : MRC_TEST_SKIP;
	argc = mrc_eal_test_args(argv, RTE_DIM(argv), buf, sizeof(buf), prefix);
	if (argc < 0 || rte_eal_init(argc, argv) < 0) {
		fprintf(stderr, "  EAL does not start here (%s): skipping\n",
			rte_strerror(rte_errno));
		eal_state = -1;
		return MRC_TEST_SKIP;
	}
	eal_state = 1;
	/*
	 * Test EALs keep nothing on disk (no telemetry, no shared config), but
	 * the EAL still makes a runtime directory that outlives the process:
	 * remove it now, while it is empty, so runs do not pile them up.
	 */
	rmdir(rte_eal_get_runtime_dir());
	return 0;
}

void
mrc_test_pair_cfg_defaults(struct mrc_test_pair_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->n_planes = 8;
	cfg->srv6 = true;
	cfg->mtu = MRC_QP_DEF_MTU;
	cfg->mem_len = 4u << 20;
	cfg->seed = 1;
	mrc_qp_attr_defaults(&cfg->attr, cfg->n_planes, MRC_TEST_HZ);
}

void
mrc_test_fill(struct mrc_test_host *h, size_t off, size_t len, uint32_t seed)
{
	uint32_t x = seed * 2654435761u + 1;

	for (size_t i = 0; i < len; i++) {
		x = x * 1103515245u + 12345u;
		h->mem[off + i] = (uint8_t)(x >> 16);
	}
}

static int
host_init(struct mrc_test_pair *p, unsigned int i, const struct mrc_test_pair_cfg *cfg)
{
	struct mrc_test_host *h = &p->h[i];
	const bool dflt = cfg->host[0] == 0 && cfg->host[1] == 0;
	const uint8_t me = dflt ? (uint8_t)i : cfg->host[i];
	const uint8_t peer = dflt ? (uint8_t)(1 - i) : cfg->host[1 - i];
	struct mrc_qp_init init;
	const char *why = NULL;

	h->mrs = calloc(1, mrc_mr_table_memsize(16));
	h->cq = calloc(1, mrc_cq_memsize(4096));
	h->mem_len = cfg->mem_len;
	h->mem = rte_zmalloc("test_mem", cfg->mem_len, 64);
	if (h->mrs == NULL || h->cq == NULL || h->mem == NULL)
		return -1;
	mrc_mr_table_init(h->mrs, 16);
	mrc_cq_init(h->cq, 4096);
	h->key = mrc_mr_register(h->mrs, h->mem, h->mem_len, 0,
		MRC_MR_ACCESS_LOCAL_READ | MRC_MR_ACCESS_REMOTE_WRITE |
			(cfg->zero_based ? MRC_MR_ZERO_BASED : 0));
	if (h->key == 0)
		return -1;

	memset(&init, 0, sizeof(init));
	init.qpn = (cfg->qpn_base ? cfg->qpn_base : 0x100) + i;
	init.sq_size = 256;
	init.mtu = cfg->mtu;
	init.tsc_hz = MRC_TEST_HZ;
	init.mrs = h->mrs;
	init.cq = h->cq;
	init.hdr_pool = p->pool;
	init.wire = p->wire;
	init.socket = SOCKET_ID_ANY;
	init.ev_stats = i == 0; /* the sender keeps per-EV statistics */
	init.trk_pool = cfg->trk_pool;
	init.imm_pool = cfg->imm_pool;
	init.ctrl_pool = cfg->ctrl_pool;
	init.addr.srv6 = cfg->srv6;
	init.addr.hop_limit = 64;
	init.addr.src_ip[0] = init.addr.dst_ip[0] = 0xfd;
	init.addr.src_ip[15] = (uint8_t)(1 + me);
	init.addr.dst_ip[15] = (uint8_t)(1 + peer);
	init.addr.src_loc[0] = 0xfc;
	init.addr.src_loc[1] = 0xbb;
	init.addr.src_loc[5] = (uint8_t)(1 + me);
	const uint8_t per_t0 = cfg->hosts_per_t0 != 0 ? cfg->hosts_per_t0 : 1;

	init.addr.path = (struct mrc_ev_path_tmpl){.block = 0xfcbb0000,
		.src_t0 = (uint8_t)(me / per_t0),
		.dst_t0 = (uint8_t)(peer / per_t0),
		.dst_host = peer,
		.n_t1 = cfg->n_t1 != 0 ? cfg->n_t1 : 4};
	for (unsigned int pl = 0; pl < MRC_EV_MAX_PLANES; pl++) {
		init.addr.src_mac[pl] = (struct rte_ether_addr){{0x02, 0, 0, me, 0, (uint8_t)pl}};
		init.addr.dst_mac[pl] = (struct rte_ether_addr){{0x02, 0, 0, peer, 0, (uint8_t)pl}};
	}
	if (i == 0)
		init.addr.next_hop_mac = cfg->next_hop_mac;
	h->qp = mrc_qp_create(&init, &why);
	if (h->qp == NULL) {
		fprintf(stderr, "  qp create: %s\n", why);
		return -1;
	}
	return 0;
}

static int
connect_qp(struct mrc_test_pair *p, unsigned int i, const struct mrc_test_pair_cfg *cfg)
{
	struct mrc_qp_attr a = cfg->attr;
	const char *why = NULL;

	a.dest_qpn = (cfg->qpn_base ? cfg->qpn_base : 0x100) + (1 - i);
	for (int to = MRC_QP_INIT; to <= MRC_QP_RTS; to++) {
		if (mrc_qp_modify(p->h[i].qp, (enum mrc_qp_state)to, &a, p->now, &p->rand, &why) !=
			0) {
			fprintf(stderr, "  qp %u -> %s: %s\n", i,
				mrc_qp_state_name((enum mrc_qp_state)to), why);
			return -1;
		}
	}
	return 0;
}

int
mrc_test_pair_create(struct mrc_test_pair *p, const struct mrc_test_pair_cfg *cfg)
{
	char name[64];
	static unsigned int n_pools;

	memset(p, 0, sizeof(*p));
	mrc_rand_seed(&p->rand, cfg->seed);
	mrc_wire_cfg_defaults(&p->wire);
	snprintf(name, sizeof(name), "test_pool_%u", n_pools++);
	p->pool = rte_pktmbuf_pool_create(name, 16383, 256, 0, 512, SOCKET_ID_ANY);
	if (p->pool == NULL) {
		fprintf(stderr, "  mbuf pool: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	/* A pair that fails to come up is taken down again: nothing leaks. */
	for (unsigned int i = 0; i < 2; i++)
		if (host_init(p, i, cfg) != 0)
			goto fail;
	for (unsigned int i = 0; i < 2; i++)
		if (connect_qp(p, i, cfg) != 0)
			goto fail;
	return 0;
fail:
	mrc_test_pair_destroy(p);
	return -1;
}

void
mrc_test_pair_destroy(struct mrc_test_pair *p)
{
	for (unsigned int i = 0; i < 2; i++) {
		struct mrc_test_host *h = &p->h[i];

		mrc_qp_destroy(h->qp);
		rte_free(h->mem);
		free(h->mrs);
		free(h->cq);
	}
	rte_mempool_free(p->pool);
	memset(p, 0, sizeof(*p));
}

void
mrc_test_pairs_run(struct mrc_test_pair *ps, unsigned int n, unsigned int max_rounds)
{
	struct {
		struct rte_mbuf *m[128];
		uint8_t to[128];
		unsigned int n;
	} q[MRC_TEST_PAIRS_RUN_MAX] = {0};

	n = RTE_MIN(n, (unsigned int)MRC_TEST_PAIRS_RUN_MAX);
	for (unsigned int r = 0; r < max_rounds; r++) {
		bool idle = true;

		for (unsigned int i = 0; i < n; i++) {
			struct mrc_test_pair *p = &ps[i];

			for (unsigned int j = 0; j < q[i].n; j++) {
				struct mrc_pkt v;

				if (mrc_pkt_parse(q[i].m[j], &p->wire, &v) != MRC_WIRE_OK)
					rte_pktmbuf_free(q[i].m[j]);
				else
					mrc_qp_rx(p->h[q[i].to[j]].qp, q[i].m[j], &v, p->now);
			}
			q[i].n = 0;
			for (unsigned int h = 0; h < 2; h++) {
				uint16_t k = mrc_qp_tx_burst(
					p->h[h].qp, p->now, 0xff, &p->rand, q[i].m + q[i].n, 64);

				for (uint16_t j = 0; j < k; j++)
					q[i].to[q[i].n++] = (uint8_t)(1 - h);
				mrc_qp_poll(p->h[h].qp, p->now);
			}
			idle = idle && q[i].n == 0 && mrc_qp_idle(p->h[0].qp) &&
			       mrc_qp_idle(p->h[1].qp);
			p->now += 200;
		}
		if (idle)
			break;
	}
	for (unsigned int i = 0; i < n; i++)
		rte_pktmbuf_free_bulk(q[i].m, q[i].n);
}
