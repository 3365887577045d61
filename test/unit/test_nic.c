/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * drivers/nic: the rte_flow ops table (the recording backend's rules and
 * refusals, the probe on it and on ports that cannot steer), the emulated
 * NIC's classifier (RSS spreading of what no rule names; hostile frames),
 * a loop pair with 2 queues a side (packets to worker k's address on rx
 * queue k, the rest spread by RSS, counted; a full queue returns packets unsent), the fabric's
 * host ports with 2 queues, and the capture both write as pcap files.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_bus_vdev.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "mrc_ev_path.h"
#include "mrc_fabric.h"
#include "mrc_shard.h"
#include "mrc_flow.h"
#include "mrc_nic_capture.h"
#include "mrc_nic_emu.h"
#include "mrc_nic_loop.h"
#include "mrc_steer.h"
#include "mrc_test.h"
#include "mrc_test_qp.h"
#include "mrc_wire.h"

#define BLOCK 0xfcbb0000u

static struct rte_mempool *pool;
static struct mrc_wire_cfg wire;

static int
setup(void)
{
	int rc = mrc_test_eal_init("test_nic");

	if (rc != 0)
		return rc;
	mrc_wire_cfg_defaults(&wire);
	if (pool == NULL)
		pool = rte_pktmbuf_pool_create(
			"nic_test", 4095, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	mrc_flow_rec_reset();
	return pool != NULL ? MRC_TEST_OK : MRC_TEST_FAIL;
}

static int
check_no_leak(void)
{
	MRC_T_EQ(rte_mempool_avail_count(pool), pool->size);
	return MRC_TEST_OK;
}

/*
 * An SRv6 data packet on `plane` from host 0 (T0 0) to `host` (T0
 * `dst_t0`), for `worker` of `workers` (workers <= 1: no worker uSID);
 * `psn` tells packets apart. plain: structured EV, no outer header.
 */
static struct rte_mbuf *
mk(unsigned int plane, uint8_t dst_t0, uint8_t host, uint16_t workers, uint8_t worker, uint32_t psn,
	bool plain)
{
	const struct mrc_ev_layout l = MRC_EV_LAYOUT_DEFAULT;
	const struct mrc_ev_path_tmpl t = {.block = BLOCK,
		.src_t0 = 0,
		.dst_t0 = dst_t0,
		.dst_host = host,
		.n_t1 = 2,
		.dst_workers = workers,
		.dst_worker = worker};
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	struct mrc_usid_path up;
	struct mrc_pkt p;

	if (m == NULL)
		return NULL;
	m->data_off = 256;
	memset(&p, 0, sizeof(p));
	p.ip.src[0] = 0xfd;
	p.ip.src[15] = 1;
	p.ip.dst[0] = 0xfd;
	p.ip.dst[15] = (uint8_t)(host + 1);
	p.ip.hop_limit = 64;
	p.ip.dscp = wire.dscp.trimmable;
	p.ev = (uint32_t)plane << 28 | (psn & 0xfffff);
	if (!plain) {
		p.flags |= MRC_PKT_F_SRV6;
		p.outer = p.ip;
		p.outer.src[0] = 0xfc;
		if (mrc_ev_path(&t, &l, p.ev, &up) != 0 || mrc_srv6_set_path(&p, &up) != 0)
			goto fail;
	}
	p.bth.opcode = MRC_OP_WRITE_ONLY;
	p.bth.pkey = MRC_BTH_DEFAULT_PKEY;
	p.bth.dqpn = 0x11;
	p.bth.psn = psn;
	p.data.va = 0x1000;
	p.data.rkey = 1;
	p.data.dma_len = 64;
	if (rte_pktmbuf_append(m, 64) == NULL || mrc_pkt_build(m, &p, &wire, NULL) != 0)
		goto fail;
	return m;
fail:
	rte_pktmbuf_free(m);
	return NULL;
}

/* ---- the ops table ---- */

/*
 * The recording backend takes the steering rule on a port with the queue,
 * keeps it where the emulated NIC reads it, and refuses, with -errno and
 * words, what a steering NIC would: a queue the port lacks, a second rule
 * for the same address, and shapes it does not emulate (a UDP item, a
 * partial mask, egress, a DROP action). destroy and flush empty the table.
 */
static int
test_rec_backend(void)
{
	const struct mrc_flow_ops *ops = &mrc_flow_ops_rec;
	const struct mrc_nic_loop_cfg lc = {.name = "nrec", .n_queues = 2, .ring_size = 64};
	struct rte_mempool *pools[2] = {NULL, NULL};
	struct mrc_flow *f[4];
	struct mrc_flow_err err;
	struct mrc_nic_loop *l;
	struct mrc_steer_rule r;
	const char *why = NULL;
	uint8_t a0[16], a1[16];
	uint16_t port;
	int rc = setup();

	if (rc != MRC_TEST_OK)
		return rc;
	pools[0] = pools[1] = pool;
	l = mrc_nic_loop_create(&lc, &why);
	MRC_T_ASSERT(l != NULL, "loop: %s", why);
	MRC_T_EQ(mrc_nic_loop_start(l, pools, &why), 0);
	port = mrc_nic_loop_port(l, 1);
	MRC_T_EQ(mrc_ev_worker_addr(BLOCK, 0, 1, 0, a0), 0);
	MRC_T_EQ(mrc_ev_worker_addr(BLOCK, 0, 1, 1, a1), 0);
	f[0] = mrc_steer_install(ops, port, a0, 0, &err);
	MRC_T_ASSERT(f[0] != NULL, "rule 0: %s", err.msg);
	f[1] = mrc_steer_install(ops, port, a1, 1, &err);
	MRC_T_ASSERT(f[1] != NULL, "rule 1: %s", err.msg);
	MRC_T_EQ(mrc_flow_rec_count(port), 2);
	MRC_T_EQ(mrc_flow_rec_count(mrc_nic_loop_port(l, 0)), 0);
	const struct mrc_flow_rec_rules *t = mrc_flow_rec_table(port);

	MRC_T_MEMEQ(t->dst[1], a1, 16);
	MRC_T_EQ(t->queue[1], 1);
	/* Refusals. */
	MRC_T_ASSERT(mrc_steer_install(ops, port, a1, 1, &err) == NULL, "duplicate");
	MRC_T_EQ(err.code, -EEXIST);
	a1[15] = 9;
	MRC_T_ASSERT(mrc_steer_install(ops, port, a1, 2, &err) == NULL, "queue 2 of 2");
	MRC_T_EQ(err.code, -EINVAL);
	MRC_T_ASSERT(strstr(err.msg, "2 rx queues") != NULL, "says why: %s", err.msg);
	MRC_T_ASSERT(mrc_steer_install(ops, RTE_MAX_ETHPORTS - 1, a1, 0, &err) == NULL, "port");
	MRC_T_EQ(err.code, -ENODEV);
	mrc_steer_rule_build(&r, a1, 0);
	r.ip_mask.hdr.dst_addr[15] = 0; /* a prefix, not the address */
	MRC_T_ASSERT(ops->create(port, &r.attr, r.pattern, r.actions, &err) == NULL, "mask");
	MRC_T_EQ(err.code, -ENOTSUP);
	mrc_steer_rule_build(&r, a1, 0);
	r.attr.ingress = 0;
	r.attr.egress = 1;
	MRC_T_ASSERT(ops->create(port, &r.attr, r.pattern, r.actions, &err) == NULL, "egress");
	MRC_T_EQ(err.code, -ENOTSUP);
	mrc_steer_rule_build(&r, a1, 0);
	r.actions[0].type = RTE_FLOW_ACTION_TYPE_DROP;
	MRC_T_ASSERT(ops->create(port, &r.attr, r.pattern, r.actions, &err) == NULL, "drop");
	MRC_T_EQ(err.code, -ENOTSUP);
	mrc_steer_rule_build(&r, a1, 0);
	const struct rte_flow_item_udp udp = {.hdr.dst_port = RTE_BE16(4791)};
	const struct rte_flow_item with_udp[] = {r.pattern[0], r.pattern[1],
		{.type = RTE_FLOW_ITEM_TYPE_UDP, .spec = &udp, .mask = &rte_flow_item_udp_mask},
		{.type = RTE_FLOW_ITEM_TYPE_END}};
	MRC_T_ASSERT(ops->create(port, &r.attr, with_udp, r.actions, &err) == NULL, "udp");
	MRC_T_EQ(err.code, -ENOTSUP);
	printf("  refused as: %s\n", err.msg);
	MRC_T_EQ(mrc_flow_rec_count(port), 2);
	/* Destroy, destroy again, flush. */
	MRC_T_EQ(ops->destroy(port, f[0], &err), 0);
	MRC_T_EQ(mrc_flow_rec_count(port), 1);
	MRC_T_EQ(ops->destroy(port, f[0], &err), -ENOENT);
	MRC_T_EQ(ops->destroy(mrc_nic_loop_port(l, 0), f[1], &err), -ENOENT); /* other port's */
	MRC_T_EQ(ops->flush(port, &err), 0);
	MRC_T_EQ(mrc_flow_rec_count(port), 0);
	/* The probe leaves nothing behind; the per-worker set makes one rule per worker. */
	MRC_T_EQ(mrc_steer_probe(ops, port, a0, 1, &err), 0);
	MRC_T_EQ(mrc_flow_rec_count(port), 0);
	MRC_T_EQ(mrc_steer_probe(ops, port, a0, 5, &err), -EINVAL);
	MRC_T_EQ(mrc_steer_workers(ops, port, BLOCK, 0, 1, 2, f, &err), 0);
	MRC_T_EQ(mrc_flow_rec_count(port), 2);
	MRC_T_EQ(ops->flush(port, &err), 0);
	/* Three workers on a 2-queue port: the third fails, the first two are undone. */
	MRC_T_EQ(mrc_steer_workers(ops, port, BLOCK, 0, 1, 3, f, &err), -EINVAL);
	MRC_T_EQ(mrc_flow_rec_count(port), 0);
	mrc_nic_loop_free(l);
	return check_no_leak();
}

/*
 * The real backend on ports that cannot steer: net_ring (a loop side) and
 * net_null answer ENOSYS, so the probe says unsupported, with the reason.
 */
static int
test_real_backend_unsupported(void)
{
	const struct mrc_nic_loop_cfg lc = {.name = "nreal", .n_queues = 2, .ring_size = 64};
	struct rte_mempool *pools[2];
	const struct rte_eth_conf conf = {0};
	struct mrc_flow_err err;
	struct mrc_nic_loop *l;
	const char *why = NULL;
	uint16_t null_port;
	uint8_t a[16];
	int rc = setup();

	if (rc != MRC_TEST_OK)
		return rc;
	pools[0] = pools[1] = pool;
	l = mrc_nic_loop_create(&lc, &why);
	MRC_T_ASSERT(l != NULL, "loop: %s", why);
	MRC_T_EQ(mrc_nic_loop_start(l, pools, &why), 0);
	MRC_T_EQ(mrc_ev_worker_addr(BLOCK, 0, 1, 1, a), 0);
	rc = mrc_steer_probe(&mrc_flow_ops_real, mrc_nic_loop_port(l, 1), a, 1, &err);
	printf("  net_ring: %d, %s\n", rc, err.msg);
	MRC_T_EQ(rc, -ENOSYS);
	MRC_T_ASSERT(err.msg[0] != '\0', "a reason");
	mrc_nic_loop_free(l);
	if (rte_vdev_init("net_null_nic0", NULL) != 0 ||
		rte_eth_dev_get_port_by_name("net_null_nic0", &null_port) != 0) {
		printf("  net_null not available here: that half skipped\n");
		return check_no_leak();
	}
	MRC_T_EQ(rte_eth_dev_configure(null_port, 2, 1, &conf), 0);
	for (uint16_t q = 0; q < 2; q++)
		MRC_T_EQ(rte_eth_rx_queue_setup(null_port, q, 64, SOCKET_ID_ANY, NULL, pool), 0);
	MRC_T_EQ(rte_eth_tx_queue_setup(null_port, 0, 64, SOCKET_ID_ANY, NULL), 0);
	MRC_T_EQ(rte_eth_dev_start(null_port), 0);
	rc = mrc_steer_probe(&mrc_flow_ops_real, null_port, a, 1, &err);
	printf("  net_null: %d, %s\n", rc, err.msg);
	MRC_T_EQ(rc, -ENOSYS);
	MRC_T_EQ(mrc_flow_ops_real.flush(null_port, &err), -ENOSYS);
	(void)rte_eth_dev_stop(null_port);
	(void)rte_eth_dev_close(null_port);
	(void)rte_vdev_uninit("net_null_nic0");
	return check_no_leak();
}

/* ---- the emulated NIC ---- */

/*
 * With no rule the emulated NIC spreads packets over the port's queues as
 * RSS on addresses and UDP destination port does: packets to 32 hosts land
 * on every one of 4 queues, SRv6 (hashed past the outer header) and plain
 * alike; the 64 packets of one host pair, whatever their entropy value (the
 * UDP source port, the path), land on one queue, so a QP's packets stay in
 * order; with one queue all go to queue 0. All counted as rss_pkts.
 */
static int
test_classify_rss(void)
{
	struct mrc_nic_emu_counters c = {0};
	struct rte_mbuf *m[64];
	uint16_t q[64], q1[64];
	int rc = setup();

	if (rc != MRC_TEST_OK)
		return rc;
	for (int plain = 0; plain < 2; plain++) {
		unsigned int per_q[4] = {0};

		/* 32 destination hosts (2 per T0), 2 packets (2 EVs) each. */
		for (uint32_t i = 0; i < 64; i++) {
			m[i] = mk(0, (uint8_t)(i / 4), (uint8_t)(i / 2), 0, 0, i, plain);
			MRC_T_ASSERT(m[i] != NULL, "built");
		}
		mrc_nic_emu_classify(NULL, m, 64, 4, q, &c);
		for (int i = 0; i < 64; i++) {
			MRC_T_ASSERT(q[i] < 4, "queue %u", q[i]);
			MRC_T_EQ(q[i], q[i ^ 1]); /* same host pair, another EV */
			per_q[q[i]]++;
		}
		for (int k = 0; k < 4; k++)
			MRC_T_ASSERT(per_q[k] > 0, "%s: queue %d got none (%u %u %u %u)",
				plain ? "plain" : "srv6", k, per_q[0], per_q[1], per_q[2],
				per_q[3]);
		rte_pktmbuf_free_bulk(m, 64);
		/* One host pair, 64 EVs: one queue. */
		for (uint32_t i = 0; i < 64; i++) {
			m[i] = mk(0, 0, 1, 0, 0, i, plain);
			MRC_T_ASSERT(m[i] != NULL, "built");
		}
		mrc_nic_emu_classify(NULL, m, 64, 4, q, &c);
		for (int i = 1; i < 64; i++)
			MRC_T_EQ(q[i], q[0]);
		/* The hash is the same whatever the queue count; only its use differs. */
		mrc_nic_emu_classify(NULL, m, 64, 1, q1, &c);
		for (int i = 0; i < 64; i++)
			MRC_T_EQ(q1[i], 0);
		rte_pktmbuf_free_bulk(m, 64);
	}
	MRC_T_EQ(c.rss_pkts, 2 * 3 * 64);
	MRC_T_EQ(c.steered_pkts + c.unparsed_pkts, 0);
	return check_no_leak();
}

/*
 * Frames a rule cannot match go to queue 0, counted as unparsed: shorter
 * than an IPv6 header, not IPv6 by EtherType or by version, empty; the
 * classifier reads nothing beyond the first segment's data.
 */
static int
test_classify_hostile(void)
{
	struct mrc_flow_rec_rules rules = {.n = 1, .queue = {1}};
	struct mrc_nic_emu_counters c = {0};
	struct rte_mbuf *m[5];
	uint16_t q[5];
	int rc = setup();

	if (rc != MRC_TEST_OK)
		return rc;
	MRC_T_EQ(mrc_ev_worker_addr(BLOCK, 0, 1, 1, rules.dst[0]), 0);
	m[0] = mk(0, 0, 1, 2, 1, 1, false); /* a good one, for contrast */
	MRC_T_ASSERT(m[0] != NULL, "built");
	mrc_nic_emu_consume_switch_usids(m[0]);
	for (int i = 1; i < 5; i++) {
		m[i] = rte_pktmbuf_alloc(pool);
		MRC_T_ASSERT(m[i] != NULL, "mbuf");
		uint8_t *b = (uint8_t *)rte_pktmbuf_append(m[i], i == 4 ? 0 : 60);

		if (i != 4)
			memcpy(b, rte_pktmbuf_mtod(m[0], uint8_t *), 60);
	}
	rte_pktmbuf_trim(m[1], 30);		      /* cut inside the IPv6 header */
	rte_pktmbuf_mtod(m[2], uint8_t *)[12] = 0x08; /* EtherType 0x08dd */
	rte_pktmbuf_mtod(m[3], uint8_t *)[14] = 0x45; /* version 4 */
	mrc_nic_emu_classify(&rules, m, 5, 2, q, &c);
	MRC_T_EQ(q[0], 1);
	for (int i = 1; i < 5; i++)
		MRC_T_EQ(q[i], 0);
	MRC_T_EQ(c.steered_pkts, 1);
	MRC_T_EQ(c.unparsed_pkts, 4);
	MRC_T_EQ(c.rss_pkts, 0);
	/* A rule naming a queue the port lacks is no match. */
	mrc_nic_emu_classify(&rules, m, 1, 1, q, &c);
	MRC_T_EQ(q[0], 0);
	MRC_T_EQ(c.rss_pkts, 1);
	rte_pktmbuf_free_bulk(m, 5);
	return check_no_leak();
}

/*
 * Everything waiting on `port` queue `q`; returns the count. Sets bit psn % 64
 * of *psns (when not NULL) for each packet that parses.
 */
static unsigned int
drain(uint16_t port, uint16_t q, uint64_t *psns)
{
	struct rte_mbuf *m[64];
	unsigned int total = 0;
	uint16_t n;

	while ((n = rte_eth_rx_burst(port, q, m, RTE_DIM(m))) > 0) {
		for (uint16_t i = 0; i < n; i++) {
			struct mrc_pkt v;

			if (mrc_pkt_parse(m[i], &wire, &v) == MRC_WIRE_OK && psns != NULL)
				*psns |= 1ull << (v.bth.psn % 64);
		}
		rte_pktmbuf_free_bulk(m, n);
		total += n;
	}
	return total;
}

/*
 * A loop pair with 2 queues a side and side 1's rules for its 2 workers:
 * from either tx queue of side 0, packets to worker k's address arrive on
 * side 1's rx queue k (with the T0 uSID consumed, as the fabric would),
 * packets to a third worker's address and plain ones where RSS puts them,
 * counted. With no rules one host pair's packets share a queue. A full rx queue hands packets back
 * unsent (counted) and nothing leaks.
 */
static int
test_loop_steers(void)
{
	const struct mrc_nic_loop_cfg lc = {.name = "nsteer", .n_queues = 2, .ring_size = 64};
	struct rte_mempool *pools[2];
	struct mrc_flow *f[2];
	struct mrc_flow_err err;
	struct mrc_nic_emu_counters c;
	struct mrc_nic_loop *l;
	const char *why = NULL;
	uint16_t a, b;
	int rc = setup();

	if (rc != MRC_TEST_OK)
		return rc;
	pools[0] = pools[1] = pool;
	l = mrc_nic_loop_create(&lc, &why);
	MRC_T_ASSERT(l != NULL, "loop: %s", why);
	MRC_T_EQ(mrc_nic_loop_start(l, pools, &why), 0);
	a = mrc_nic_loop_port(l, 0);
	b = mrc_nic_loop_port(l, 1);
	MRC_T_EQ(mrc_steer_workers(&mrc_flow_ops_rec, b, BLOCK, 0, 1, 2, f, &err), 0);
	/* 8 to each of workers 0, 1, 2 (2 has no rule) and 8 plain, from both tx queues. */
	for (uint32_t i = 0; i < 32; i++) {
		struct rte_mbuf *m = mk(0, 0, 1, 3, (uint8_t)(i % 3), i, i >= 24);
		const bool cross = i & 1;

		MRC_T_ASSERT(m != NULL, "built");
		MRC_T_EQ(rte_eth_tx_burst(a, cross ? 1 : 0, &m, 1), 1);
	}
	uint64_t p0 = 0, p1 = 0;
	const unsigned int n0 = drain(b, 0, &p0), n1 = drain(b, 1, &p1);

	MRC_T_EQ(n0 + n1, 32);
	MRC_T_EQ(p0 | p1, 0xffffffffull); /* all arrived, each parses */
	MRC_T_EQ(p0 & p1, 0);
	/* Worker k's (i % 3 == k, i < 24) on queue k; worker 2's and plain ones anywhere. */
	for (uint32_t i = 0; i < 24; i++)
		if (i % 3 < 2)
			MRC_T_ASSERT(
				((i % 3 == 1 ? p1 : p0) >> i) & 1, "psn %u on queue %u", i, i % 3);
	mrc_nic_loop_counters(l, 1, &c);
	MRC_T_EQ(c.steered_pkts, 16);
	MRC_T_EQ(c.rss_pkts, 16); /* 8 for worker 2, 8 plain */
	MRC_T_EQ(c.rx_full_pkts, 0);
	mrc_nic_loop_counters(l, 0, &c);
	MRC_T_EQ(c.steered_pkts + c.rss_pkts, 0);
	/* Nothing came back the other way. */
	MRC_T_EQ(drain(a, 0, NULL) + drain(a, 1, NULL), 0);
	/* Queue 1 full: 64 fit, 16 come back unsent. */
	struct rte_mbuf *burst[80];

	for (uint32_t i = 0; i < 80; i++) {
		burst[i] = mk(0, 0, 1, 2, 1, 1000 + i, false);
		MRC_T_ASSERT(burst[i] != NULL, "built");
	}
	uint16_t sent = rte_eth_tx_burst(a, 0, burst, 80);

	MRC_T_EQ(sent, 64);
	mrc_nic_loop_counters(l, 1, &c);
	MRC_T_EQ(c.rx_full_pkts, 16);
	rte_pktmbuf_free_bulk(burst + sent, 80 - sent);
	MRC_T_EQ(drain(b, 1, NULL), 64);
	/* No rules: RSS keeps one host pair on one queue, whatever the EV. */
	MRC_T_EQ(mrc_flow_ops_rec.flush(b, &err), 0);
	for (uint32_t i = 0; i < 32; i++) {
		struct rte_mbuf *m = mk(0, 0, 1, 2, 1, i, false);

		MRC_T_ASSERT(m != NULL, "built");
		MRC_T_EQ(rte_eth_tx_burst(a, 1, &m, 1), 1);
	}
	const unsigned int r0 = drain(b, 0, NULL), r1 = drain(b, 1, NULL);

	MRC_T_ASSERT(r0 == 32 || r1 == 32, "split: %u on queue 0, %u on queue 1", r0, r1);
	mrc_nic_loop_free(l);
	return check_no_leak();
}

/*
 * One queue a side is loop mode as it always was: nothing classified,
 * nothing rewritten (the T0 uSID is still there), every packet through.
 */
static int
test_loop_one_queue(void)
{
	const struct mrc_nic_loop_cfg lc = {.name = "none", .n_queues = 1, .ring_size = 64};
	struct rte_mempool *pools[2];
	struct mrc_nic_emu_counters c;
	struct mrc_nic_loop *l;
	const char *why = NULL;
	struct rte_mbuf *m, *r;
	struct mrc_pkt v;
	int rc = setup();

	if (rc != MRC_TEST_OK)
		return rc;
	pools[0] = pools[1] = pool;
	l = mrc_nic_loop_create(&lc, &why);
	MRC_T_ASSERT(l != NULL, "loop: %s", why);
	MRC_T_EQ(mrc_nic_loop_start(l, pools, &why), 0);
	m = mk(0, 0, 1, 2, 1, 7, false);
	MRC_T_ASSERT(m != NULL, "built");
	MRC_T_EQ(rte_eth_tx_burst(mrc_nic_loop_port(l, 1), 0, &m, 1), 1);
	MRC_T_EQ(rte_eth_rx_burst(mrc_nic_loop_port(l, 0), 0, &r, 1), 1);
	MRC_T_EQ(mrc_pkt_parse(r, &wire, &v), MRC_WIRE_OK);
	MRC_T_EQ(mrc_usid_active(v.outer.dst), mrc_ev_usid(0, MRC_USID_TIER_T0, 0));
	rte_pktmbuf_free(r);
	mrc_nic_loop_counters(l, 0, &c);
	MRC_T_EQ(c.steered_pkts + c.rss_pkts, 0);
	mrc_nic_loop_free(l);
	return check_no_leak();
}

/*
 * The fabric's host ports with 2 queues: host 3's plane-1 port has rules
 * for its 2 workers; packets from host 0 (another T0, 3 switches) reach
 * queue k for worker k, a third worker's spread by RSS; both tx queues of the
 * sender feed the fabric.
 */
static int
test_fabric_steers(void)
{
	struct mrc_fabric_cfg fc;
	struct mrc_fabric *fab;
	struct mrc_flow *f[2];
	struct mrc_flow_err err;
	const char *why = NULL;
	uint64_t now = 0;
	int rc = setup();

	if (rc != MRC_TEST_OK)
		return rc;
	mrc_fabric_cfg_defaults(&fc);
	fc.n_hosts = 4;
	fc.n_planes = 2;
	fc.hosts_per_t0 = 2;
	fc.n_t1 = 2;
	fc.host_queues = 2;
	fc.block = BLOCK;
	fc.tsc_hz = 1000000000ull;
	fab = mrc_fabric_create(&fc, &why);
	MRC_T_ASSERT(fab != NULL, "fabric: %s", why);
	MRC_T_EQ(mrc_fabric_start_ports(fab, pool), 0);
	const uint16_t dst = mrc_fabric_port(fab, 3, 1);

	MRC_T_EQ(mrc_steer_workers(&mrc_flow_ops_rec, dst, BLOCK, 1, 3, 2, f, &err), 0);
	for (uint32_t i = 0; i < 30; i++) {
		struct rte_mbuf *m = mk(1, 1, 3, 3, (uint8_t)(i % 3), i, false);

		MRC_T_ASSERT(m != NULL, "built");
		MRC_T_EQ(rte_eth_tx_burst(mrc_fabric_port(fab, 0, 1), (uint16_t)(i & 1), &m, 1), 1);
	}
	for (;;) {
		uint64_t t;

		mrc_fabric_poll(fab, now);
		t = mrc_fabric_next_event_tsc(fab);
		if (t == UINT64_MAX)
			break;
		now = t > now ? t : now;
	}
	uint64_t p0 = 0, p1 = 0;

	MRC_T_EQ(drain(dst, 0, &p0) + drain(dst, 1, &p1), 30);
	MRC_T_EQ(p0 | p1, (1ull << 30) - 1);
	MRC_T_EQ(p0 & p1, 0);
	for (uint32_t i = 0; i < 30; i++)
		if (i % 3 < 2)
			MRC_T_ASSERT(
				((i % 3 == 1 ? p1 : p0) >> i) & 1, "psn %u on queue %u", i, i % 3);
	const struct mrc_nic_emu_counters *c = mrc_fabric_nic_counters(fab);

	MRC_T_EQ(c->steered_pkts, 20);
	MRC_T_EQ(c->rss_pkts, 10);
	MRC_T_EQ(mrc_fabric_counters(fab)->delivered_pkts, 30);
	mrc_fabric_free(fab);
	mrc_flow_rec_reset();
	return check_no_leak();
}

/*
 * The engine end to end on steered queues, over the fabric and over loop
 * pairs (one per plane): host 1 runs two shards (QPs sharded by number,
 * shard k on rx and tx queue k of every plane port), host 0 one; host 1's
 * ports have a rule per worker. Two QP pairs from
 * host 0 write 256 KiB each to host 1, whose QPs belong one to each shard;
 * host 0's QPs address their peer's owner (dest_workers 2). Every byte
 * arrives, each host-1 shard receives packets, and none reaches a shard
 * that does not own it (no hand-off). The SACKs back to host 0 (no rules
 * there) arrive on its queue 0.
 */
static int
engine_steered(bool loop)
{
	enum { N_PAIRS = 2, LEN = 256 * 1024, BASE = 0x100 };
	/* Pair j's QPNs: host 0 qpn_base_j, host 1 qpn_base_j + 1; host 1's owners 1 and 0. */
	static const uint32_t qpn_base[N_PAIRS] = {BASE, BASE + 3};
	struct mrc_test_pair pair[N_PAIRS];
	struct mrc_shard *sh[3]; /* host 0; host 1 shard 0; host 1 shard 1 */
	struct mrc_fabric_cfg fc;
	struct mrc_fabric *fab = NULL;
	struct mrc_nic_loop *lp[2] = {NULL, NULL};
	uint16_t port[2][2]; /* [host][plane] */
	struct mrc_flow *f[2];
	struct mrc_flow_err err;
	struct mrc_rand rand;
	const char *why = NULL;
	uint64_t now = 0;
	unsigned int done = 0;
	int rc = setup();

	if (rc != MRC_TEST_OK)
		return rc;
	mrc_fabric_cfg_defaults(&fc);
	fc.n_hosts = 2;
	fc.n_planes = 2;
	fc.hosts_per_t0 = 1;
	fc.n_t1 = 4;
	fc.host_queues = 2;
	fc.tsc_hz = MRC_TEST_HZ;
	if (!loop) {
		fab = mrc_fabric_create(&fc, &why);
		MRC_T_ASSERT(fab != NULL, "fabric: %s", why);
		MRC_T_EQ(mrc_fabric_start_ports(fab, pool), 0);
		mrc_fabric_start(fab, now);
		for (unsigned int h = 0; h < 2; h++)
			for (unsigned int pl = 0; pl < fc.n_planes; pl++)
				port[h][pl] = mrc_fabric_port(fab, h, pl);
	} else {
		struct rte_mempool *pools[2] = {pool, pool};

		for (unsigned int pl = 0; pl < fc.n_planes; pl++) {
			const struct mrc_nic_loop_cfg lc = {.name = pl == 0 ? "neng0" : "neng1",
				.n_queues = 2,
				.ring_size = 1024};

			lp[pl] = mrc_nic_loop_create(&lc, &why);
			MRC_T_ASSERT(lp[pl] != NULL, "loop: %s", why);
			MRC_T_EQ(mrc_nic_loop_start(lp[pl], pools, &why), 0);
			port[0][pl] = mrc_nic_loop_port(lp[pl], 0);
			port[1][pl] = mrc_nic_loop_port(lp[pl], 1);
		}
	}
	for (unsigned int pl = 0; pl < fc.n_planes; pl++)
		MRC_T_EQ(mrc_steer_workers(
				 &mrc_flow_ops_rec, port[1][pl], fc.block, pl, 1, 2, f, &err),
			0);
	for (unsigned int i = 0; i < 3; i++) {
		struct mrc_shard_cfg sc = {.host_id = i == 0 ? 0 : 1,
			.n_planes = fc.n_planes,
			.qpn_base = BASE,
			.max_qps = 8,
			.n_shards = i == 0 ? 1 : 2,
			.shard_index = i == 0 ? 0 : (uint16_t)(i - 1),
			.rx_queue = i == 0 ? 0 : (uint16_t)(i - 1),
			.tx_queue = i == 0 ? 0 : (uint16_t)(i - 1),
			.tsc_hz = MRC_TEST_HZ,
			.socket = SOCKET_ID_ANY};

		mrc_wire_cfg_defaults(&sc.wire);
		for (unsigned int pl = 0; pl < fc.n_planes; pl++)
			sc.port_id[pl] = port[sc.host_id][pl];
		sh[i] = mrc_shard_create(&sc, now, &why);
		MRC_T_ASSERT(sh[i] != NULL, "shard %u: %s", i, why);
		(void)mrc_shard_refresh_links(sh[i]);
	}
	for (unsigned int j = 0; j < N_PAIRS; j++) {
		struct mrc_test_pair_cfg pc;
		const uint32_t owner = (qpn_base[j] + 1 - BASE) % 2;

		mrc_test_pair_cfg_defaults(&pc);
		pc.n_planes = fc.n_planes;
		mrc_qp_attr_defaults(&pc.attr, pc.n_planes, MRC_TEST_HZ);
		pc.qpn_base = qpn_base[j];
		pc.host[0] = 0;
		pc.host[1] = 1;
		pc.n_t1 = fc.n_t1;
		pc.mem_len = LEN;
		/* Both QPs get these; host 0 has no rules, so host 1's uSID there is moot. */
		pc.attr.dest_workers = 2;
		pc.attr.dest_worker = (uint8_t)owner;
		MRC_T_EQ(mrc_test_pair_create(&pair[j], &pc), 0);
		MRC_T_EQ(mrc_shard_add_qp(sh[0], pair[j].h[0].qp, now), 0);
		MRC_T_EQ(mrc_shard_add_qp(sh[1 + owner], pair[j].h[1].qp, now), 0);
		mrc_test_fill(&pair[j].h[0], 0, LEN, j + 1);
		MRC_T_EQ(mrc_qp_post_write(pair[j].h[0].qp, j + 1, pair[j].h[0].mem, LEN,
				 pair[j].h[0].key, (uint64_t)(uintptr_t)pair[j].h[1].mem,
				 pair[j].h[1].key, false, 0),
			0);
	}
	mrc_rand_seed(&rand, 7);
	for (unsigned int step = 0; step < 2000000 && done < N_PAIRS; step++) {
		struct mrc_cqe cqe;

		now += 100;
		if (fab != NULL)
			mrc_fabric_poll(fab, now);
		for (unsigned int i = 0; i < 3; i++)
			mrc_shard_iterate(sh[i], now, &rand);
		for (unsigned int j = 0; j < N_PAIRS; j++)
			while (mrc_cq_poll(pair[j].h[0].cq, &cqe, 1) == 1) {
				MRC_T_EQ(cqe.status, MRC_CQE_OK);
				done++;
			}
	}
	MRC_T_EQ(done, N_PAIRS);
	for (unsigned int j = 0; j < N_PAIRS; j++)
		MRC_T_MEMEQ(pair[j].h[1].mem, pair[j].h[0].mem, LEN);
	for (unsigned int i = 1; i < 3; i++) {
		const struct mrc_shard_counters *c = mrc_shard_counters(sh[i]);

		printf("  host 1 shard %u: %" PRIu64 " packets in, %" PRIu64 " handed off\n", i - 1,
			c->rx_pkts, c->rx_handoff + c->rx_handoff_drops);
		MRC_T_ASSERT(c->rx_pkts > 0, "shard %u received nothing", i - 1);
		MRC_T_EQ(c->rx_handoff + c->rx_handoff_drops + c->rx_unknown_qpn, 0);
	}
	MRC_T_EQ(mrc_shard_counters(sh[0])->rx_handoff_drops, 0);
	if (fab != NULL) {
		MRC_T_ASSERT(mrc_fabric_nic_counters(fab)->steered_pkts > 0, "steered");
	} else {
		struct mrc_nic_emu_counters c;

		mrc_nic_loop_counters(lp[0], 1, &c);
		MRC_T_ASSERT(c.steered_pkts > 0, "steered");
	}
	for (unsigned int j = 0; j < N_PAIRS; j++) {
		MRC_T_EQ(mrc_shard_del_qp(sh[0], pair[j].h[0].qp), 0);
		MRC_T_EQ(
			mrc_shard_del_qp(sh[1 + (qpn_base[j] + 1 - BASE) % 2], pair[j].h[1].qp), 0);
	}
	for (unsigned int i = 0; i < 3; i++) {
		mrc_shard_drop_staged(sh[i]);
		mrc_shard_free(sh[i]);
	}
	if (fab != NULL)
		mrc_fabric_free(fab);
	for (unsigned int pl = 0; pl < 2; pl++)
		mrc_nic_loop_free(lp[pl]);
	for (unsigned int j = 0; j < N_PAIRS; j++)
		mrc_test_pair_destroy(&pair[j]);
	mrc_flow_rec_reset();
	return check_no_leak();
}

static int
test_engine_steered_fabric(void)
{
	return engine_steered(false);
}

static int
test_engine_steered_loop(void)
{
	return engine_steered(true);
}

/*
 * The capture the loop pairs and the fabric share: what fits is kept (snapped),
 * the rest counted as missed, and the pcap says each packet's stamp in the
 * capture's own unit (here the fabric's picoseconds), length and bytes.
 */
static int
test_capture_pcap(void)
{
	const uint64_t ps = 1000000000000ull;
	const uint64_t stamp[2] = {3 * ps + 250000000000ull, 7 * ps + 999999ull};
	char path[] = "/tmp/test_nic_capXXXXXX";
	struct rte_mbuf *m[3];
	struct mrc_nic_capture *c;
	uint32_t n = 0, gh[6], rh[4];
	uint64_t missed = 0;
	uint8_t bytes[64];
	FILE *f;
	int rc = setup(), fd;

	if (rc != MRC_TEST_OK)
		return rc;
	MRC_T_ASSERT(mrc_nic_capture_create(4, 63, ps) == NULL, "a snap under 64 is refused");
	c = mrc_nic_capture_create(2, 64, ps);
	MRC_T_ASSERT(c != NULL, "capture");
	for (unsigned int i = 0; i < 3; i++) {
		m[i] = rte_pktmbuf_alloc(pool);
		MRC_T_ASSERT(m[i] != NULL, "mbuf");
		char *d = rte_pktmbuf_append(m[i], i == 0 ? 100 : 40);

		MRC_T_ASSERT(d != NULL, "append");
		memset(d, 0xa0 + i, i == 0 ? 100 : 40);
	}
	mrc_nic_capture_burst(c, m, 1, stamp[0]);
	mrc_nic_capture_burst(c, m + 1, 2, stamp[1]); /* room for one of the two */
	fd = mkstemp(path);
	MRC_T_ASSERT(fd >= 0, "mkstemp");
	close(fd);
	MRC_T_EQ(mrc_nic_capture_write(c, path, &n, &missed), 0);
	MRC_T_EQ(n, 2);
	MRC_T_EQ(missed, 1);
	f = fopen(path, "rb");
	MRC_T_ASSERT(f != NULL, "%s", path);
	MRC_T_EQ(fread(gh, 4, 6, f), 6);
	MRC_T_EQ(gh[0], 0xa1b2c3d4u);
	MRC_T_EQ(gh[4], 64); /* snaplen */
	MRC_T_EQ(gh[5], 1);  /* Ethernet */
	for (unsigned int i = 0; i < 2; i++) {
		const uint32_t len = i == 0 ? 100 : 40, cap = i == 0 ? 64 : 40;

		MRC_T_EQ(fread(rh, 4, 4, f), 4);
		MRC_T_EQ(rh[0], i == 0 ? 3 : 7);
		MRC_T_EQ(rh[1], i == 0 ? 250000 : 0); /* 999,999 ps is under a microsecond */
		MRC_T_EQ(rh[2], cap);
		MRC_T_EQ(rh[3], len);
		MRC_T_EQ(fread(bytes, 1, cap, f), cap);
		MRC_T_EQ(bytes[0], 0xa0 + i);
		MRC_T_EQ(bytes[cap - 1], 0xa0 + i);
	}
	MRC_T_EQ(fread(bytes, 1, 1, f), 0); /* nothing after the two */
	fclose(f);
	unlink(path);
	mrc_nic_capture_free(c);
	for (unsigned int i = 0; i < 3; i++)
		rte_pktmbuf_free(m[i]);
	return check_no_leak();
}

static const struct mrc_test_case cases[] = {
	MRC_TEST_CASE(test_rec_backend),
	MRC_TEST_CASE(test_real_backend_unsupported),
	MRC_TEST_CASE(test_classify_rss),
	MRC_TEST_CASE(test_classify_hostile),
	MRC_TEST_CASE(test_loop_steers),
	MRC_TEST_CASE(test_loop_one_queue),
	MRC_TEST_CASE(test_fabric_steers),
	MRC_TEST_CASE(test_engine_steered_fabric),
	MRC_TEST_CASE(test_engine_steered_loop),
	MRC_TEST_CASE(test_capture_pcap),
};

MRC_TEST_MAIN("nic", cases)
