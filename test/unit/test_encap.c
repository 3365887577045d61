/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * SRv6 encap by the NIC (doc/offload.md): the encap rule through the
 * recording backend (accepted shapes, refusals, the probe's create and
 * destroy; the real backend on a port without rte_flow), and the twin: for
 * every SRv6 sample packet, the offload build (no outer header, a key in
 * the tx metadata) after the emulated NIC applied the recorded rule is the
 * software build byte for byte, ICRC included, directly and through a loop
 * pair's tx path and the emulated fabric.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "mrc_encap.h"
#include "mrc_ev_path.h"
#include "mrc_fabric.h"
#include "mrc_flow.h"
#include "mrc_nic_emu.h"
#include "mrc_nic_loop.h"
#include "mrc_qp.h"
#include "mrc_test.h"
#include "mrc_test_mbuf.h"
#include "mrc_test_pkts.h"
#include "mrc_test_qp.h"
#include "mrc_wire.h"

static struct rte_mempool *pool;
static struct mrc_wire_cfg wire;

static int
setup(void)
{
	int rc = mrc_test_eal_init("test_encap");

	if (rc != 0)
		return rc;
	mrc_wire_cfg_defaults(&wire);
	wire.verify_icrc = true;
	if (pool == NULL)
		pool = rte_pktmbuf_pool_create(
			"encap_test", 1023, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	mrc_flow_rec_reset();
	MRC_T_EQ(mrc_encap_meta_register(), 0);
	return pool != NULL ? MRC_TEST_OK : MRC_TEST_FAIL;
}

/* The software build of sample `s` (flat) and its offload twin (mbuf, key set). */
static int
build_pair(const struct mrc_test_sample *s, uint32_t key, uint8_t *sw, size_t *sw_len,
	struct rte_mbuf **off, uint8_t *hdr, size_t *hdr_len)
{
	struct mrc_test_sample o = *s;

	*sw_len = mrc_test_sample_bytes(s, &wire, sw, MRC_TEST_MAX_PKT);
	MRC_T_ASSERT(*sw_len > 0, "%s: software build", s->name);
	*hdr_len = mrc_pkt_encap_hdr(&s->pkt, &wire, hdr, MRC_ENCAP_MAX_LEN);
	MRC_T_ASSERT(*hdr_len > 0, "%s: encap header", s->name);
	o.pkt.flags |= MRC_PKT_F_NIC_ENCAP;
	*off = mrc_test_sample_build(&o, &wire, NULL, 0);
	MRC_T_ASSERT(*off != NULL, "%s: offload build", s->name);
	/* What the worker skips: the outer IPv6 and the SRH. */
	MRC_T_EQ((*off)->pkt_len + *hdr_len - mrc_encap_l2_len(hdr, *hdr_len), *sw_len);
	mrc_encap_set_key(*off, key);
	return MRC_TEST_OK;
}

static int
test_rule_shapes(void)
{
	const struct mrc_flow_ops *ops = &mrc_flow_ops_rec;
	const struct mrc_nic_loop_cfg lc = {.name = "erec", .n_queues = 2, .ring_size = 64};
	struct rte_mempool *pools[2];
	struct mrc_test_sample s;
	struct mrc_flow_err err;
	struct mrc_encap_rule r;
	struct mrc_nic_loop *l;
	struct mrc_flow *f[2];
	uint8_t hdr[MRC_ENCAP_MAX_LEN];
	const char *why = NULL;
	size_t len;
	uint16_t port;
	int rc = setup();

	if (rc != 0)
		return rc;
	pools[0] = pools[1] = pool;
	l = mrc_nic_loop_create(&lc, &why);
	MRC_T_ASSERT(l != NULL, "loop: %s", why);
	MRC_T_EQ(mrc_nic_loop_start(l, pools, &why), 0);
	port = mrc_nic_loop_port(l, 0);
	MRC_T_EQ(mrc_test_sample_get(0, &s), 0);
	MRC_T_ASSERT(s.pkt.flags & MRC_PKT_F_SRV6, "sample 0 is SRv6 (%s)", s.name);
	len = mrc_pkt_encap_hdr(&s.pkt, &wire, hdr, sizeof(hdr));
	MRC_T_EQ(len, 14 + 40);
	MRC_T_EQ(mrc_encap_l2_len(hdr, len), 14);
	/* Outer payload length 0: the NIC's to set. */
	MRC_T_EQ(hdr[14 + 4], 0);
	MRC_T_EQ(hdr[14 + 5], 0);
	MRC_T_EQ(mrc_pkt_encap_hdr(&s.pkt, &wire, hdr, len - 1), 0);

	/* The probe creates and destroys: nothing is left. */
	MRC_T_EQ(mrc_encap_probe(ops, port, 7, hdr, len, &err), 0);
	MRC_T_EQ(mrc_flow_rec_encap_count(port), 0);
	f[0] = mrc_encap_install(ops, port, 7, hdr, len, &err);
	MRC_T_ASSERT(f[0] != NULL, "rule: %s", err.msg);
	MRC_T_ASSERT(mrc_encap_install(ops, port, 7, hdr, len, &err) == NULL, "duplicate key");
	MRC_T_EQ(err.code, -EEXIST);
	f[1] = mrc_encap_install(ops, port, 3, hdr, len, &err);
	MRC_T_ASSERT(f[1] != NULL, "rule: %s", err.msg);
	MRC_T_EQ(mrc_flow_rec_encap_count(port), 2);
	/* Sorted by key for the data path's search. */
	MRC_T_EQ(mrc_flow_rec_encap_table(port)->key[0], 3);
	MRC_T_ASSERT(mrc_flow_rec_encap_find(mrc_flow_rec_encap_table(port), 7) != NULL, "key 7");
	MRC_T_ASSERT(mrc_flow_rec_encap_find(mrc_flow_rec_encap_table(port), 5) == NULL, "no 5");
	/* Steering rules are a table apart. */
	MRC_T_EQ(mrc_flow_rec_count(port), 0);

	/* Refusals, each with a reason. */
	MRC_T_EQ(mrc_encap_rule_build(&r, 9, hdr, len), 0);
	r.decap.size = 18; /* not the header's L2 */
	MRC_T_ASSERT(ops->create(port, &r.attr, r.pattern, r.actions, &err) == NULL, "decap len");
	MRC_T_EQ(err.code, -ENOTSUP);
	MRC_T_ASSERT(strstr(err.msg, "RAW_DECAP of 18") != NULL, "%s", err.msg);
	MRC_T_EQ(mrc_encap_rule_build(&r, 9, hdr, len), 0);
	r.meta_mask.data = 0xffff;
	MRC_T_ASSERT(ops->create(port, &r.attr, r.pattern, r.actions, &err) == NULL, "mask");
	MRC_T_EQ(err.code, -ENOTSUP);
	MRC_T_EQ(mrc_encap_rule_build(&r, 9, hdr, len), 0);
	r.attr.egress = 0;
	r.attr.ingress = 1;
	MRC_T_ASSERT(ops->create(port, &r.attr, r.pattern, r.actions, &err) == NULL, "ingress");
	MRC_T_EQ(err.code, -ENOTSUP);
	hdr[12] = 0x08; /* IPv4 ether type: not an IPv6 tunnel header */
	hdr[13] = 0x00;
	MRC_T_ASSERT(mrc_encap_install(ops, port, 9, hdr, len, &err) == NULL, "not IPv6");
	MRC_T_EQ(err.code, -EINVAL);
	MRC_T_EQ(mrc_flow_rec_encap_count(port), 2);

	MRC_T_EQ(ops->destroy(port, f[0], &err), 0);
	MRC_T_EQ(mrc_flow_rec_encap_count(port), 1);
	MRC_T_EQ(ops->flush(port, &err), 0);
	MRC_T_EQ(mrc_flow_rec_encap_count(port), 0);
	mrc_nic_loop_free(l);
	return MRC_TEST_OK;
}

/* A port without rte_flow (net_ring) refuses, and says why: the software path. */
static int
test_real_backend_refuses(void)
{
	const struct mrc_nic_loop_cfg lc = {.name = "ereal", .n_queues = 1, .ring_size = 64};
	struct rte_mempool *pools[2];
	struct mrc_test_sample s;
	struct mrc_flow_err err;
	struct mrc_nic_loop *l;
	uint8_t hdr[MRC_ENCAP_MAX_LEN];
	const char *why = NULL;
	size_t len;
	int rc = setup();

	if (rc != 0)
		return rc;
	pools[0] = pools[1] = pool;
	l = mrc_nic_loop_create(&lc, &why);
	MRC_T_ASSERT(l != NULL, "loop: %s", why);
	MRC_T_EQ(mrc_nic_loop_start(l, pools, &why), 0);
	MRC_T_EQ(mrc_test_sample_get(0, &s), 0);
	len = mrc_pkt_encap_hdr(&s.pkt, &wire, hdr, sizeof(hdr));
	rc = mrc_encap_probe(&mrc_flow_ops_real, mrc_nic_loop_port(l, 0), 1, hdr, len, &err);
	printf("  net_ring: %d, %s\n", rc, err.msg);
	MRC_T_ASSERT(rc < 0, "net_ring has no egress encap");
	MRC_T_ASSERT(err.msg[0] != '\0', "a reason");
	mrc_nic_loop_free(l);
	return MRC_TEST_OK;
}

/* Every SRv6 sample: offload build + recorded rule == software build, byte for byte. */
static int
test_twin_bytes(void)
{
	static uint8_t sw[MRC_TEST_MAX_PKT], off[MRC_TEST_MAX_PKT];
	const struct mrc_nic_loop_cfg lc = {.name = "etwin", .n_queues = 1, .ring_size = 64};
	struct mrc_nic_emu_counters c = {0};
	struct rte_mempool *pools[2];
	struct mrc_nic_loop *l;
	const char *why = NULL;
	unsigned int n_srv6 = 0;
	uint16_t port;
	int rc = setup();

	if (rc != 0)
		return rc;
	pools[0] = pools[1] = pool;
	l = mrc_nic_loop_create(&lc, &why);
	MRC_T_ASSERT(l != NULL, "loop: %s", why);
	MRC_T_EQ(mrc_nic_loop_start(l, pools, &why), 0);
	port = mrc_nic_loop_port(l, 0); /* only for its rule table */
	for (unsigned int i = 0; i < mrc_test_sample_count(); i++) {
		struct mrc_test_sample s;
		uint8_t hdr[MRC_ENCAP_MAX_LEN];
		struct mrc_flow_err err;
		struct rte_mbuf *m;
		struct mrc_pkt parsed;
		size_t sw_len, hdr_len;

		MRC_T_EQ(mrc_test_sample_get(i, &s), 0);
		if (!(s.pkt.flags & MRC_PKT_F_SRV6) || s.trim)
			continue;
		n_srv6++;
		rc = build_pair(&s, 100 + i, sw, &sw_len, &m, hdr, &hdr_len);
		if (rc != 0)
			return rc;
		/* Before its rule exists the packet goes as built, counted. */
		mrc_nic_emu_encap(mrc_flow_rec_encap_table(port), &m, 1, &c);
		MRC_T_EQ(c.encap_nomatch_pkts, n_srv6);
		MRC_T_EQ(c.encap_pkts, n_srv6 - 1);
		MRC_T_ASSERT(mrc_encap_install(
				     &mrc_flow_ops_rec, port, 100 + i, hdr, hdr_len, &err) != NULL,
			"rule: %s", err.msg);
		mrc_encap_set_key(m, 100 + i);
		mrc_nic_emu_encap(mrc_flow_rec_encap_table(port), &m, 1, &c);
		MRC_T_EQ(c.encap_pkts, n_srv6);
		MRC_T_ASSERT(!(m->ol_flags & RTE_MBUF_DYNFLAG_TX_METADATA), "metadata consumed");
		MRC_T_EQ(mrc_test_mbuf_flatten(m, off, sizeof(off)), sw_len);
		MRC_T_ASSERT(memcmp(off, sw, sw_len) == 0, "%s: offload bytes differ", s.name);
		/* The same ICRC: the receiver verifies it. */
		MRC_T_EQ(mrc_pkt_parse(m, &wire, &parsed), MRC_WIRE_OK);
		MRC_T_EQ(parsed.ev, s.pkt.ev);
		mrc_test_mbuf_free(m);
	}
	printf("  %u SRv6 samples identical\n", n_srv6);
	MRC_T_ASSERT(n_srv6 >= 8, "the catalogue's SRv6 samples (%u)", n_srv6);
	mrc_flow_rec_reset();
	mrc_nic_loop_free(l);
	return MRC_TEST_OK;
}

/* Through a loop pair's tx path: rules recorded for the sending port are applied. */
static int
test_loop_encap(void)
{
	static uint8_t sw[MRC_TEST_MAX_PKT], got[MRC_TEST_MAX_PKT], flat[MRC_TEST_MAX_PKT];
	const struct mrc_nic_loop_cfg lc = {.name = "eloop", .n_queues = 2, .ring_size = 64};
	struct rte_mempool *pools[2];
	struct mrc_nic_emu_counters c;
	struct mrc_nic_loop *l;
	const char *why = NULL;
	unsigned int n = 0, got_n = 0;
	uint16_t tx_port, rx_port;
	int rc = setup();

	if (rc != 0)
		return rc;
	pools[0] = pools[1] = pool;
	l = mrc_nic_loop_create(&lc, &why);
	MRC_T_ASSERT(l != NULL, "loop: %s", why);
	MRC_T_EQ(mrc_nic_loop_start(l, pools, &why), 0);
	tx_port = mrc_nic_loop_port(l, 0);
	rx_port = mrc_nic_loop_port(l, 1);
	for (unsigned int i = 0; i < mrc_test_sample_count(); i++) {
		struct mrc_test_sample s;
		uint8_t hdr[MRC_ENCAP_MAX_LEN];
		struct rte_mbuf *heap, *m, *rx[4];
		struct mrc_flow_err err;
		size_t sw_len, hdr_len, len;
		uint16_t k = 0;

		MRC_T_EQ(mrc_test_sample_get(i, &s), 0);
		if (!(s.pkt.flags & MRC_PKT_F_SRV6) || s.trim || (s.pkt.flags & MRC_PKT_F_SRH))
			continue; /* the loop plays switches on the DA container only */
		rc = build_pair(&s, i, sw, &sw_len, &heap, hdr, &hdr_len);
		if (rc != 0)
			return rc;
		MRC_T_ASSERT(mrc_encap_install(&mrc_flow_ops_rec, tx_port, i, hdr, hdr_len, &err) !=
				     NULL,
			"rule: %s", err.msg);
		/* Into a pool mbuf with headroom, as a worker's header mbuf. */
		len = mrc_test_mbuf_flatten(heap, flat, sizeof(flat));
		mrc_test_mbuf_free(heap);
		m = rte_pktmbuf_alloc(pool);
		MRC_T_ASSERT(m != NULL, "mbuf");
		memcpy(rte_pktmbuf_append(m, (uint16_t)len), flat, len);
		mrc_encap_set_key(m, i);
		MRC_T_EQ(rte_eth_tx_burst(tx_port, 0, &m, 1), 1);
		n++;
		/* The software twin crosses the same cable: its switch uSIDs shift away too. */
		m = rte_pktmbuf_alloc(pool);
		memcpy(rte_pktmbuf_append(m, (uint16_t)sw_len), sw, sw_len);
		mrc_nic_emu_consume_switch_usids(m);
		MRC_T_EQ(mrc_test_mbuf_flatten(m, sw, sizeof(sw)), sw_len);
		rte_pktmbuf_free(m);
		for (uint16_t q = 0; q < 2 && k == 0; q++)
			k = rte_eth_rx_burst(rx_port, q, rx, 4);
		MRC_T_EQ(k, 1);
		got_n++;
		MRC_T_EQ(rx[0]->pkt_len, sw_len);
		MRC_T_ASSERT(memcmp(rte_pktmbuf_read(rx[0], 0, sw_len, got), sw, sw_len) == 0,
			"%s: bytes differ after the loop", s.name);
		rte_pktmbuf_free(rx[0]);
	}
	mrc_nic_loop_counters(l, 1, &c);
	MRC_T_EQ(c.encap_pkts, n);
	MRC_T_EQ(got_n, n);
	MRC_T_ASSERT(n >= 4, "SRv6 samples without an SRH (%u)", n);
	mrc_flow_rec_reset();
	mrc_nic_loop_free(l);
	MRC_T_EQ(rte_mempool_avail_count(pool), pool->size);
	return MRC_TEST_OK;
}

#define BLOCK 0xfcbb0000u

/* A 64-byte write from host 0 to host 3 on plane 1, software or NIC encap (key = psn). */
static struct rte_mbuf *
fab_pkt(uint32_t psn, bool nic, uint8_t *hdr, size_t *hdr_len)
{
	const struct mrc_ev_layout l = MRC_EV_LAYOUT_DEFAULT;
	const struct mrc_ev_path_tmpl t = {
		.block = BLOCK, .src_t0 = 0, .dst_t0 = 1, .dst_host = 3, .n_t1 = 2};
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
	p.ip.dst[15] = 4;
	p.ip.hop_limit = 64;
	p.ip.dscp = wire.dscp.trimmable;
	p.ev = 1u << 28 | (psn * 0x10001u & 0xfffff); /* plane 1, uplinks and flow bits vary */
	p.outer = p.ip;
	p.outer.src[0] = 0xfc;
	if (mrc_ev_path(&t, &l, p.ev, &up) != 0 || mrc_srv6_set_path(&p, &up) != 0)
		goto fail;
	p.bth.opcode = MRC_OP_WRITE_ONLY;
	p.bth.pkey = MRC_BTH_DEFAULT_PKEY;
	p.bth.dqpn = 0x11;
	p.bth.psn = psn;
	p.data.va = 0x1000;
	p.data.rkey = 1;
	p.data.dma_len = 64;
	*hdr_len = mrc_pkt_encap_hdr(&p, &wire, hdr, MRC_ENCAP_MAX_LEN);
	if (nic)
		p.flags |= MRC_PKT_F_NIC_ENCAP;
	if (*hdr_len == 0 || rte_pktmbuf_append(m, 64) == NULL ||
		mrc_pkt_build(m, &p, &wire, NULL) != 0)
		goto fail;
	if (nic)
		mrc_encap_set_key(m, psn);
	return m;
fail:
	rte_pktmbuf_free(m);
	return NULL;
}

/* Send `m` from host 0 plane 1, run the fabric dry, read what host 3 gets (its length). */
static size_t
fab_cross(struct mrc_fabric *fab, uint64_t *now, struct rte_mbuf *m, uint8_t *out)
{
	struct rte_mbuf *rx[4];
	size_t len = 0;
	uint16_t n;

	if (rte_eth_tx_burst(mrc_fabric_port(fab, 0, 1), 0, &m, 1) != 1) {
		rte_pktmbuf_free(m);
		return 0;
	}
	for (;;) {
		uint64_t t;

		mrc_fabric_poll(fab, *now);
		t = mrc_fabric_next_event_tsc(fab);
		if (t == UINT64_MAX)
			break;
		*now = t > *now ? t : *now;
	}
	n = rte_eth_rx_burst(mrc_fabric_port(fab, 3, 1), 0, rx, 4);
	if (n == 1) {
		len = rx[0]->pkt_len;
		memcpy(out, rte_pktmbuf_read(rx[0], 0, (uint32_t)len, out), len);
	}
	rte_pktmbuf_free_bulk(rx, n);
	return n == 1 ? len : 0;
}

/*
 * Across the emulated fabric: a packet built for NIC encap, with the rule
 * recorded for the sending host port, reaches the destination as the
 * software build does, byte for byte, over both T1s.
 */
static int
test_fabric_encap(void)
{
	static uint8_t a[MRC_TEST_MAX_PKT], b[MRC_TEST_MAX_PKT];
	struct mrc_fabric_cfg fc;
	struct mrc_fabric *fab;
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
	fc.block = BLOCK;
	fc.tsc_hz = 1000000000ull;
	fab = mrc_fabric_create(&fc, &why);
	MRC_T_ASSERT(fab != NULL, "fabric: %s", why);
	MRC_T_EQ(mrc_fabric_start_ports(fab, pool), 0);
	for (uint32_t psn = 0; psn < 8; psn++) {
		uint8_t hdr[MRC_ENCAP_MAX_LEN];
		struct mrc_flow_err err;
		size_t hdr_len, la, lb;
		struct rte_mbuf *m;

		m = fab_pkt(psn, false, hdr, &hdr_len);
		MRC_T_ASSERT(m != NULL, "software build");
		la = fab_cross(fab, &now, m, a);
		MRC_T_ASSERT(la > 0, "psn %u: software packet delivered", psn);
		MRC_T_ASSERT(mrc_encap_install(&mrc_flow_ops_rec, mrc_fabric_port(fab, 0, 1), psn,
				     hdr, hdr_len, &err) != NULL,
			"rule: %s", err.msg);
		m = fab_pkt(psn, true, hdr, &hdr_len);
		MRC_T_ASSERT(m != NULL, "offload build");
		lb = fab_cross(fab, &now, m, b);
		MRC_T_EQ(lb, la);
		MRC_T_ASSERT(memcmp(a, b, la) == 0, "psn %u: bytes differ across the fabric", psn);
	}
	MRC_T_EQ(mrc_fabric_nic_counters(fab)->encap_pkts, 8);
	MRC_T_EQ(mrc_fabric_counters(fab)->delivered_pkts, 16);
	mrc_fabric_free(fab);
	mrc_flow_rec_reset();
	MRC_T_EQ(rte_mempool_avail_count(pool), pool->size);
	return MRC_TEST_OK;
}

/*
 * The engine's twin (the daemon's offload mode): two identical QP pairs
 * (same seed, so the same EVs and the same choices), one building every
 * outer header in software, the other keyed to rules made from its own
 * addressing (mrc_qp_encap_hdr(), as mrcd_encap_rules.c makes them). After
 * the emulated NIC applied the rules, every packet either pair sends, data
 * one way and SACKs the other (on the sender's EVs: the answers' rules), is
 * the same bytes. Plane 7 has no rules (its port took none) and plane 6's
 * bitmap is empty: those packets go in software, counted by reason.
 */
struct qp_twin {
	struct mrc_qp_encap e[2];
	uint64_t bits[2][6][MRC_QP_ENCAP_FL_WORDS];
	uint16_t port[2];
};

/* h[side]'s rules on its port for every EV of `src`'s pool but plane 6's. */
static int
twin_rules(struct qp_twin *t, unsigned int side, const struct mrc_qp *qp, const struct mrc_qp *src)
{
	const struct mrc_ev_pool *evs = mrc_qp_ev_pool(src);
	struct mrc_qp_encap *e = &t->e[side];
	uint8_t hdr[MRC_ENCAP_MAX_LEN];
	struct mrc_flow_err err;

	e->key_base = UINT32_C(1) << 31 | (uint32_t)(side + 1) << 18;
	e->meta_off = rte_flow_dynf_metadata_offs;
	e->meta_flag = rte_flow_dynf_metadata_mask;
	for (unsigned int p = 0; p < 6; p++)
		e->fl_bits[p] = t->bits[side][p];
	for (int s = 0; s < mrc_ev_n_slots(evs); s++) {
		const uint32_t ev = mrc_ev_value(evs, s);
		const uint16_t fl = mrc_ev_flow_bits(ev, wire.ev_split);
		const unsigned int p = mrc_ev_plane(evs, s);

		if (p >= 6 || (e->fl_bits[p][fl >> 6] >> (fl & 63) & 1))
			continue;
		for (unsigned int c = 0; c < MRC_QP_ENCAP_CLASSES; c++) {
			const size_t len = mrc_qp_encap_hdr(qp, ev, c, hdr, sizeof(hdr));

			MRC_T_ASSERT(len > 0, "EV 0x%08x class %u: no header", ev, c);
			MRC_T_ASSERT(mrc_encap_install(&mrc_flow_ops_rec, t->port[side],
					     mrc_qp_encap_key(e->key_base, fl, c), hdr, len,
					     &err) != NULL,
				"EV 0x%08x class %u: %s", ev, c, err.msg);
		}
		t->bits[side][p][fl >> 6] |= UINT64_C(1) << (fl & 63);
	}
	return MRC_TEST_OK;
}

/* Send side `from`'s burst of both pairs, compare, deliver; the packets sent. */
static int
twin_burst(struct mrc_test_pair *sw, struct mrc_test_pair *nic, struct qp_twin *t,
	unsigned int from, uint16_t *sent, uint64_t want[3])
{
	static uint8_t a[MRC_TEST_MAX_PKT], b[MRC_TEST_MAX_PKT];
	struct rte_mbuf *ms[32], *mn[32];
	struct mrc_nic_emu_counters c = {0};
	const uint16_t n =
		mrc_qp_tx_burst(sw->h[from].qp, sw->now, 0xff, &sw->rand, ms, RTE_DIM(ms));
	const uint16_t k =
		mrc_qp_tx_burst(nic->h[from].qp, nic->now, 0xff, &nic->rand, mn, RTE_DIM(mn));

	MRC_T_EQ(k, n);
	for (uint16_t i = 0; i < n; i++)
		want[mn[i]->port == 7 ? 1 : mn[i]->port == 6 ? 2 : 0]++;
	mrc_nic_emu_encap(mrc_flow_rec_encap_table(t->port[from]), mn, n, &c);
	MRC_T_EQ(c.encap_nomatch_pkts, 0);
	MRC_T_EQ(c.encap_noroom_pkts, 0);
	for (uint16_t i = 0; i < n; i++) {
		const size_t la = mrc_test_mbuf_flatten(ms[i], a, sizeof(a));
		const size_t lb = mrc_test_mbuf_flatten(mn[i], b, sizeof(b));
		struct mrc_pkt va, vb;

		MRC_T_EQ(lb, la);
		for (size_t j = 0; j < la; j++)
			MRC_T_ASSERT(a[j] == b[j],
				"side %u packet %u (plane %u): byte %zu differs: 0x%02x != 0x%02x",
				from, i, ms[i]->port, j, b[j], a[j]);
		MRC_T_EQ(mrc_pkt_parse(ms[i], &sw->wire, &va), MRC_WIRE_OK);
		MRC_T_EQ(mrc_pkt_parse(mn[i], &nic->wire, &vb), MRC_WIRE_OK);
		mrc_qp_rx(sw->h[1 - from].qp, ms[i], &va, sw->now);
		mrc_qp_rx(nic->h[1 - from].qp, mn[i], &vb, nic->now);
	}
	*sent = n;
	return MRC_TEST_OK;
}

static int
test_qp_twin(void)
{
	const struct mrc_nic_loop_cfg lc = {.name = "eqp", .n_queues = 2, .ring_size = 64};
	static struct qp_twin t;
	static const uint64_t empty[MRC_QP_ENCAP_FL_WORDS];
	struct mrc_test_pair_cfg cfg;
	struct mrc_test_pair sw, nic;
	struct rte_mempool *pools[2];
	uint64_t want[2][3] = {{0}};
	struct mrc_nic_loop *l;
	const char *why = NULL;
	uint16_t n, sacks = 0;
	int rc = setup();

	if (rc != 0)
		return rc;
	memset(&t, 0, sizeof(t));
	pools[0] = pools[1] = pool;
	l = mrc_nic_loop_create(&lc, &why);
	MRC_T_ASSERT(l != NULL, "loop: %s", why);
	MRC_T_EQ(mrc_nic_loop_start(l, pools, &why), 0);
	t.port[0] = mrc_nic_loop_port(l, 0);
	t.port[1] = mrc_nic_loop_port(l, 1);
	mrc_test_pair_cfg_defaults(&cfg);
	cfg.attr.ack_every = 4;
	cfg.zero_based = true; /* the same remote address in both pairs' packets */
	MRC_T_EQ(mrc_test_pair_create(&sw, &cfg), 0);
	MRC_T_EQ(mrc_test_pair_create(&nic, &cfg), 0);
	/* data from h[0] on its EVs; h[1]'s answers on h[0]'s EVs */
	MRC_T_EQ(twin_rules(&t, 0, nic.h[0].qp, nic.h[0].qp), 0);
	MRC_T_EQ(twin_rules(&t, 1, nic.h[1].qp, nic.h[0].qp), 0);
	for (unsigned int side = 0; side < 2; side++) {
		t.e[side].fl_bits[6] = (uint64_t *)(uintptr_t)empty;
		mrc_qp_set_encap(nic.h[side].qp, &t.e[side]);
	}
	for (int i = 0; i < 2; i++) {
		struct mrc_test_pair *p = i ? &nic : &sw;

		mrc_test_fill(&p->h[0], 0, 256 * 1024, 7);
		MRC_T_EQ(mrc_qp_post_write(p->h[0].qp, 1, p->h[0].mem, 256 * 1024, p->h[0].key, 0,
				 p->h[1].key, false, 0),
			0);
	}
	for (int round = 0; round < 200 && !mrc_qp_idle(sw.h[0].qp); round++) {
		MRC_T_EQ(twin_burst(&sw, &nic, &t, 0, &n, want[0]), 0);
		sw.now += 2000;
		nic.now += 2000;
		mrc_qp_poll(sw.h[1].qp, sw.now);
		mrc_qp_poll(nic.h[1].qp, nic.now);
		MRC_T_EQ(twin_burst(&sw, &nic, &t, 1, &n, want[1]), 0);
		sacks += n;
		mrc_qp_poll(sw.h[0].qp, sw.now);
		mrc_qp_poll(nic.h[0].qp, nic.now);
	}
	MRC_T_ASSERT(mrc_qp_idle(sw.h[0].qp) && mrc_qp_idle(nic.h[0].qp), "the write completed");
	MRC_T_ASSERT(memcmp(nic.h[0].mem, nic.h[1].mem, 256 * 1024) == 0, "bytes placed");
	MRC_T_ASSERT(sacks > 0, "no SACK was sent");
	for (unsigned int side = 0; side < 2; side++) {
		const struct mrc_qp_encap_counters *c = &t.e[side].cnt;

		printf("  side %u: %" PRIu64 " by rules, %" PRIu64 " without port rules, %" PRIu64
		       " without a rule\n",
			side, c->nic, c->sw_no_port, c->sw_no_rule);
		MRC_T_EQ(c->nic, want[side][0]);
		MRC_T_EQ(c->sw_no_port, want[side][1]);
		MRC_T_EQ(c->sw_no_rule, want[side][2]);
		MRC_T_ASSERT(c->nic > 0, "side %u: nothing went through a rule", side);
	}
	MRC_T_ASSERT(want[0][1] > 0 && want[0][2] > 0, "data on planes 6 and 7");
	mrc_test_pair_destroy(&sw);
	mrc_test_pair_destroy(&nic);
	mrc_nic_loop_free(l);
	mrc_flow_rec_reset();
	return MRC_TEST_OK;
}

static const struct mrc_test_case cases[] = {
	MRC_TEST_CASE(test_rule_shapes),
	MRC_TEST_CASE(test_real_backend_refuses),
	MRC_TEST_CASE(test_twin_bytes),
	MRC_TEST_CASE(test_loop_encap),
	MRC_TEST_CASE(test_fabric_encap),
	MRC_TEST_CASE(test_qp_twin),
};

MRC_TEST_MAIN("encap", cases)
