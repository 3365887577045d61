/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * drivers/fabric through its ethdev ports only: packets are built with
 * lib/wire and lib/ev's path mapping, sent with rte_eth_tx_burst on the
 * source host's port, and received with rte_eth_rx_burst on the
 * destination's. Time is a fake 1 GHz TSC (1 tick = 1 ns).
 *
 * This file: the shared helpers (test_fabric.h), then forwarding (every
 * host pair over every plane and T1 with 2 and 8 planes, RFC 9800 shifts
 * and hop limits, SRH containers, structured-EV ECMP, exact timing), every
 * drop reason where it happens, dead links and black holes, and the table
 * of all cases. test_fabric_congestion.c has queues, ECN, trims and loss;
 * test_fabric_faults.c scenario files and a QP pair through a dying plane;
 * test_fabric_model.c jitter, forced marks, the configuration check, the
 * NIC's plain queue and untrimmable data.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "mrc_ev_path.h"
#include "mrc_test.h"
#include "mrc_test_pkts.h"
#include "mrc_test_qp.h"
#include "test_fabric.h"

struct rte_mempool *t_pool;
struct mrc_wire_cfg t_wire;
static const struct mrc_ev_layout layout = MRC_EV_LAYOUT_DEFAULT;

int
setup(void)
{
	int rc = mrc_test_eal_init("test_fabric");

	if (rc != 0)
		return rc;
	mrc_wire_cfg_defaults(&t_wire);
	if (t_pool == NULL)
		t_pool = rte_pktmbuf_pool_create(
			"fab_test", 8191, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	return t_pool != NULL ? MRC_TEST_OK : MRC_TEST_FAIL;
}

struct mrc_fabric *
mkfab(struct mrc_fabric_cfg *c)
{
	const char *why = NULL;
	struct mrc_fabric *f;

	c->tsc_hz = HZ;
	f = mrc_fabric_create(c, &why);
	if (f == NULL) {
		fprintf(stderr, "  fabric: %s\n", why);
		return NULL;
	}
	if (mrc_fabric_start_ports(f, t_pool) != 0) {
		mrc_fabric_free(f);
		return NULL;
	}
	return f;
}

uint32_t
spec_ev(const struct spec *s)
{
	if (s->ev != 0)
		return s->ev;
	return (uint32_t)s->plane << 28 | (s->uplink & 0xff) << 20 | (s->psn & 0xfffff);
}

struct rte_mbuf *
mk(const struct mrc_fabric_cfg *c, const struct spec *s)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(t_pool), *d = m, *trailer = NULL;
	struct mrc_usid_path up;
	struct mrc_pkt p;
	uint8_t *pl;

	if (m == NULL)
		return NULL;
	m->data_off = 320; /* room for every header, an SRH of 8 segments included */
	if (s->chain) {
		/* The payload in an indirect segment, so the ICRC goes to a trailer. */
		struct rte_mbuf *mi = rte_pktmbuf_alloc(t_pool);

		d = rte_pktmbuf_alloc(t_pool);
		trailer = rte_pktmbuf_alloc(t_pool);
		if (mi == NULL || d == NULL || trailer == NULL) {
			rte_pktmbuf_free(mi);
			rte_pktmbuf_free(d);
			rte_pktmbuf_free(trailer);
			goto fail;
		}
		if (rte_pktmbuf_append(d, (uint16_t)s->payload) == NULL) {
			rte_pktmbuf_free(mi);
			rte_pktmbuf_free(d);
			rte_pktmbuf_free(trailer);
			goto fail;
		}
		rte_pktmbuf_attach(mi, d);
		pl = rte_pktmbuf_mtod(d, uint8_t *);
		rte_pktmbuf_free(d); /* mi holds it now */
		m->next = mi;
		m->nb_segs = 2;
		m->pkt_len = mi->pkt_len;
	} else {
		pl = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)s->payload);
		if (pl == NULL && s->payload > 0)
			goto fail;
	}
	for (uint32_t i = 0; i < s->payload; i++)
		pl[i] = mrc_test_payload_byte(s->psn, i);
	memset(&p, 0, sizeof(p));
	p.eth_dst = (struct rte_ether_addr){{0x02, 0, 0, 0, (uint8_t)s->dst, (uint8_t)s->plane}};
	p.eth_src = (struct rte_ether_addr){{0x02, 0, 0, 0, (uint8_t)s->src, (uint8_t)s->plane}};
	memcpy(p.ip.src, c->nic_addr[s->src], 16);
	memcpy(p.ip.dst, c->nic_addr[s->dst], 16);
	p.ip.hop_limit = s->hl ? s->hl : HL;
	p.ip.ecn = s->ecn;
	p.ip.dscp = s->no_trim	   ? t_wire.dscp.no_trim
		    : s->dscp == 0 ? t_wire.dscp.trimmable
				   : s->dscp;
	p.ev = spec_ev(s);
	if (!s->plain) {
		p.flags |= MRC_PKT_F_SRV6;
		p.outer = p.ip;
		p.outer.src[0] = 0xfc;
		p.outer.src[15] = (uint8_t)s->src;
		if (s->path != NULL) {
			up = *s->path;
		} else {
			const struct mrc_ev_path_tmpl t = {.block = c->block,
				.src_t0 = (uint8_t)(s->src / c->hosts_per_t0),
				.dst_t0 = (uint8_t)(s->dst / c->hosts_per_t0),
				.dst_host = (uint8_t)s->dst,
				.n_t1 = c->n_t1,
				.dst_workers = s->dst_workers,
				.dst_worker = s->dst_worker};

			if (mrc_ev_path(&t, &layout, p.ev, &up) != 0)
				goto fail;
		}
		if (s->block != 0)
			up.block = s->block;
		if (mrc_srv6_set_path(&p, &up) != 0)
			goto fail;
	}
	p.bth.opcode = MRC_OP_WRITE_ONLY;
	p.bth.pkey = MRC_BTH_DEFAULT_PKEY;
	p.bth.dqpn = 0x11;
	p.bth.psn = s->psn & 0xffffff;
	p.data.va = 0x10000;
	p.data.rkey = 0x1234;
	p.data.dma_len = s->payload;
	if (s->ep_request) {
		memset(&p.ep, 0, sizeof(p.ep));
		p.bth.opcode = MRC_OP_EP_REQUEST;
		p.bth.dqpn = MRC_EP_QPN;
		p.ep.req_id = (uint16_t)s->psn;
		p.ep.port_status_mask = 0xd;
	}
	if (mrc_pkt_build(m, &p, &t_wire, trailer) != 0)
		goto fail;
	if (trailer != NULL && rte_pktmbuf_lastseg(m) != trailer)
		rte_pktmbuf_free(trailer);
	return m;
fail:
	rte_pktmbuf_free(trailer);
	rte_pktmbuf_free(m);
	return NULL;
}

int
send_spec(struct mrc_fabric *f, const struct mrc_fabric_cfg *c, const struct spec *s)
{
	struct rte_mbuf *m = mk(c, s);

	MRC_T_ASSERT(m != NULL, "packet built");
	MRC_T_EQ(rte_eth_tx_burst(mrc_fabric_port(f, s->src, s->plane), 0, &m, 1), 1);
	return MRC_TEST_OK;
}

/* Poll at every event until nothing is left; *now ends at the last one. */
void
run_idle(struct mrc_fabric *f, uint64_t *now)
{
	for (;;) {
		uint64_t t;

		mrc_fabric_poll(f, *now);
		t = mrc_fabric_next_event_tsc(f);
		if (t == UINT64_MAX)
			return;
		if (t > *now)
			*now = t;
	}
}

/* Everything waiting on every port of the fabric; returns the count. */
unsigned int
rx_all(struct mrc_fabric *f, const struct mrc_fabric_cfg *c, struct rte_mbuf **out,
	unsigned int max, unsigned int *host, unsigned int *plane)
{
	unsigned int n = 0;

	for (unsigned int h = 0; h < c->n_hosts; h++)
		for (unsigned int p = 0; p < c->n_planes; p++) {
			uint16_t k;

			while (n < max && (k = rte_eth_rx_burst(mrc_fabric_port(f, h, p), 0,
						   out + n, (uint16_t)RTE_MIN(max - n, 64u))) > 0) {
				for (uint16_t i = 0; i < k; i++) {
					if (host != NULL)
						host[n + i] = h;
					if (plane != NULL)
						plane[n + i] = p;
				}
				n += k;
			}
		}
	return n;
}

void
free_all(struct rte_mbuf **m, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		rte_pktmbuf_free(m[i]);
}

int
check_no_leak(void)
{
	MRC_T_EQ(rte_mempool_avail_count(t_pool), t_pool->size);
	return MRC_TEST_OK;
}

int
write_file(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	if (fp == NULL)
		return -1;
	fputs(text, fp);
	return fclose(fp);
}

/* ---- forwarding ---- */

static uint16_t
host_usid(unsigned int plane, unsigned int host)
{
	return mrc_ev_usid(plane, MRC_USID_TIER_HOST, (uint8_t)host);
}

/* ---- forwarding ---- */

static int
forward_matrix(uint8_t n_hosts, uint8_t n_planes, uint8_t per_t0)
{
	struct mrc_fabric_cfg c;
	struct mrc_fabric *f;
	uint64_t now = 0;
	unsigned int n_sent = 0;

	mrc_fabric_cfg_defaults(&c);
	c.n_hosts = n_hosts;
	c.n_planes = n_planes;
	c.hosts_per_t0 = per_t0;
	c.n_t1 = 4;
	f = mkfab(&c);
	MRC_T_ASSERT(f != NULL, "fabric created");
	for (unsigned int s = 0; s < n_hosts; s++)
		for (unsigned int d = 0; d < n_hosts; d++)
			for (unsigned int pl = 0; pl < n_planes && s != d; pl++)
				for (unsigned int u = 0; u < c.n_t1; u++) {
					const bool cross = s / per_t0 != d / per_t0;
					const struct spec sp = {.src = s,
						.dst = d,
						.plane = pl,
						.uplink = u,
						.payload = 256,
						.psn = n_sent};
					struct mrc_fabric_switch_counters t1a, t1b;
					struct rte_mbuf *rx[4];
					unsigned int rh[4], rp[4], n;
					struct mrc_pkt v;

					MRC_T_EQ(mrc_fabric_switch_stats(f, 1, pl, u, &t1a), 0);
					MRC_T_RUN(send_spec(f, &c, &sp));
					n_sent++;
					run_idle(f, &now);
					n = rx_all(f, &c, rx, 4, rh, rp);
					MRC_T_EQ(n, 1);
					MRC_T_ASSERT(rh[0] == d && rp[0] == pl,
						"%u -> %u plane %u T1 %u arrived at host %u plane "
						"%u",
						s, d, pl, u, rh[0], rp[0]);
					MRC_T_EQ(rx[0]->port, mrc_fabric_port(f, d, pl));
					MRC_T_EQ(mrc_pkt_parse(rx[0], &t_wire, &v), MRC_WIRE_OK);
					/* RFC 9800: every switch shifted once; the host's uSID is
					 * left. */
					MRC_T_EQ(mrc_usid_block(v.outer.dst), c.block);
					MRC_T_EQ(mrc_usid_active(v.outer.dst), host_usid(pl, d));
					MRC_T_EQ(mrc_usid_shift(v.outer.dst), 0);
					MRC_T_EQ(v.outer.hop_limit, HL - (cross ? 3 : 1));
					MRC_T_EQ(v.ip.hop_limit,
						HL); /* the inner header is not touched */
					MRC_T_EQ(v.bth.psn, sp.psn);
					MRC_T_EQ(v.payload_len, 256);
					/* ... and it went through the T1 its EV names. */
					MRC_T_EQ(mrc_fabric_switch_stats(f, 1, pl, u, &t1b), 0);
					MRC_T_EQ(t1b.rx_pkts - t1a.rx_pkts, cross ? 1 : 0);
					MRC_T_EQ(t1b.usid_shifts - t1a.usid_shifts, cross ? 1 : 0);
					free_all(rx, n);
				}
	MRC_T_EQ(mrc_fabric_counters(f)->delivered_pkts, n_sent);
	MRC_T_EQ(mrc_fabric_in_flight(f), 0);
	printf("  %u hosts x %u planes x %u T1: %u paths, all delivered\n", n_hosts, n_planes,
		c.n_t1, n_sent);
	mrc_fabric_free(f);
	return check_no_leak();
}

static int
test_forward_2_planes(void)
{
	int rc = setup();

	return rc != MRC_TEST_OK ? rc : forward_matrix(8, 2, 2);
}

static int
test_forward_8_planes(void)
{
	int rc = setup();

	return rc != MRC_TEST_OK ? rc : forward_matrix(4, 8, 2); /* 32 ports: all DPDK has */
}

/* A packet's time through 3 switches is 4 x (serialisation + delay), to the ps. */
static int
test_exact_timing(void)
{
	struct mrc_fabric_cfg c;
	struct mrc_fabric *f;
	struct rte_mbuf *rx[2];
	uint64_t now = 1000, arrive_ps;
	uint32_t len;

	MRC_T_RUN(setup());
	mrc_fabric_cfg_defaults(&c);
	c.n_planes = 1;
	c.link_gbps = 25;
	c.link_delay_ns = 700;
	f = mkfab(&c);
	MRC_T_ASSERT(f != NULL, "fabric");
	mrc_fabric_start(f, now);
	const struct spec sp = {.src = 0, .dst = 1, .uplink = 2, .payload = 1001};
	struct rte_mbuf *m = mk(&c, &sp);

	MRC_T_ASSERT(m != NULL, "built");
	len = m->pkt_len;
	MRC_T_EQ(rte_eth_tx_burst(mrc_fabric_port(f, 0, 0), 0, &m, 1), 1);
	MRC_T_EQ(mrc_fabric_next_event_tsc(f), now); /* waiting in the host's ring */
	mrc_fabric_poll(f, now);
	/* 25 Gb/s: 320 ps per byte. 4 links. The hop limit byte does not change the size. */
	arrive_ps = 4 * ((uint64_t)(len + 24) * 320 + 700000);
	MRC_T_EQ(mrc_fabric_next_event_tsc(f), now + 1 * ((len + 24) * 320 + 700000 + 999) / 1000);
	for (;;) {
		uint64_t t = mrc_fabric_next_event_tsc(f);

		if (t >= now + (arrive_ps + 999) / 1000)
			break;
		mrc_fabric_poll(f, t);
	}
	mrc_fabric_poll(f, now + (arrive_ps + 999) / 1000 - 1);
	MRC_T_EQ(rx_all(f, &c, rx, 2, NULL, NULL), 0);
	MRC_T_EQ(mrc_fabric_next_event_tsc(f), now + (arrive_ps + 999) / 1000);
	mrc_fabric_poll(f, now + (arrive_ps + 999) / 1000);
	MRC_T_EQ(rx_all(f, &c, rx, 2, NULL, NULL), 1);
	MRC_T_EQ(mrc_fabric_next_event_tsc(f), UINT64_MAX);
	printf("  %u-byte frame, 3 switches at 25 Gb/s, 700 ns per hop: %.3f us\n", len,
		arrive_ps / 1e6);
	free_all(rx, 1);
	mrc_fabric_free(f);
	return check_no_leak();
}

/*
 * A NIC port's tx backlog, what a sender asks to know whether the port has
 * room: two frames sent at once are both waiting (the first is being
 * serialised); a frame time later (in whole ns), the second and the sliver
 * of the first still on its way out; none once both left. Other ports,
 * hosts and out-of-range numbers read 0.
 */
static int
test_tx_backlog(void)
{
	struct mrc_fabric_cfg c;
	struct mrc_fabric *f;
	struct rte_mbuf *m[2], *rx[2];
	const uint64_t now = 1000;
	uint64_t ser_ps, d_ns;
	uint32_t wire;

	MRC_T_RUN(setup());
	mrc_fabric_cfg_defaults(&c);
	c.n_planes = 2;
	c.link_gbps = 25; /* 320 ps per byte */
	f = mkfab(&c);
	MRC_T_ASSERT(f != NULL, "fabric");
	mrc_fabric_start(f, now);
	const struct spec sp = {.src = 0, .dst = 1, .uplink = 0, .payload = 1001};

	for (int k = 0; k < 2; k++) {
		m[k] = mk(&c, &sp);
		MRC_T_ASSERT(m[k] != NULL, "built");
	}
	wire = m[0]->pkt_len + 24;
	MRC_T_EQ(mrc_fabric_tx_backlog(f, 0, 0), 0);
	MRC_T_EQ(rte_eth_tx_burst(mrc_fabric_port(f, 0, 0), 0, m, 2), 2);
	mrc_fabric_poll(f, now);
	MRC_T_EQ(mrc_fabric_tx_backlog(f, 0, 0), 2 * wire);
	MRC_T_EQ(mrc_fabric_tx_backlog(f, 0, 1), 0);
	MRC_T_EQ(mrc_fabric_tx_backlog(f, 1, 0), 0);
	MRC_T_EQ(mrc_fabric_tx_backlog(f, 2, 0), 0);
	MRC_T_EQ(mrc_fabric_tx_backlog(f, 0, 2), 0);
	ser_ps = (uint64_t)wire * 320;
	d_ns = ser_ps / 1000;
	mrc_fabric_poll(f, now + d_ns);
	MRC_T_EQ(mrc_fabric_tx_backlog(f, 0, 0), (2 * ser_ps - d_ns * 1000) / 320);
	for (uint64_t t; (t = mrc_fabric_next_event_tsc(f)) != UINT64_MAX;)
		mrc_fabric_poll(f, t);
	MRC_T_EQ(mrc_fabric_tx_backlog(f, 0, 0), 0);
	MRC_T_EQ(rx_all(f, &c, rx, 2, NULL, NULL), 2);
	free_all(rx, 2);
	mrc_fabric_free(f);
	return check_no_leak();
}

/*
 * Host 0 -> host 1 on plane 1 with DA = [T0 0, T1 3] and an SRH holding that
 * and [T0 1, host 1], segments_left 1 (what mrc_srv6_set_path() would do
 * with a path cut into two short containers). `bad`: routing type 5.
 */
static int
send_split(struct mrc_fabric *f, const struct mrc_fabric_cfg *c, bool bad)
{
	const struct mrc_usid_path c1 = {.block = c->block, .n = 2, .usid = {0x2000, 0x2103}};
	const struct mrc_usid_path c2 = {.block = c->block, .n = 2, .usid = {0x2001, 0x2e01}};
	uint8_t a1[1][16], a2[1][16];
	struct rte_mbuf *h = rte_pktmbuf_alloc(t_pool);
	struct mrc_pkt q;

	MRC_T_ASSERT(h != NULL, "mbuf");
	MRC_T_EQ(mrc_usid_encode(&c1, a1, 1), 1);
	MRC_T_EQ(mrc_usid_encode(&c2, a2, 1), 1);
	h->data_off = 320;
	memset(&q, 0, sizeof(q));
	memcpy(q.ip.src, c->nic_addr[0], 16);
	memcpy(q.ip.dst, c->nic_addr[1], 16);
	q.ip.hop_limit = HL;
	q.ip.dscp = t_wire.dscp.trimmable;
	q.flags = MRC_PKT_F_SRV6 | MRC_PKT_F_SRH;
	q.outer = q.ip;
	memcpy(q.outer.dst, a1[0], 16);
	q.srh.n_segs = 2;
	q.srh.segments_left = 1;
	memcpy(q.srh.segs[1], a1[0], 16); /* RFC 8754: the list is stored last first */
	memcpy(q.srh.segs[0], a2[0], 16);
	q.ev = 1u << 28 | 3u << 20;
	q.bth.opcode = MRC_OP_WRITE_ONLY;
	q.bth.pkey = MRC_BTH_DEFAULT_PKEY;
	MRC_T_EQ(mrc_pkt_build(h, &q, &t_wire, NULL), 0);
	if (bad)
		rte_pktmbuf_mtod(h, uint8_t *)[RTE_ETHER_HDR_LEN + 40 + 2] = 5;
	MRC_T_EQ(rte_eth_tx_burst(mrc_fabric_port(f, 0, 1), 0, &h, 1), 1);
	return MRC_TEST_OK;
}

/* Paths longer than one container: the SRH supplies the next, segments_left counts down. */
static int
test_srh_containers(void)
{
	struct mrc_fabric_cfg c;
	struct mrc_fabric *f;
	struct rte_mbuf *rx[2];
	struct mrc_pkt v;
	uint64_t now = 0;

	MRC_T_RUN(setup());
	mrc_fabric_cfg_defaults(&c);
	c.n_planes = 2;
	f = mkfab(&c);
	MRC_T_ASSERT(f != NULL, "fabric");
	/* Eight uSIDs, two containers: T0 0, T1 0, T0 1, T1 1, T0 0, T1 2 | T0 1, host 1. */
	struct mrc_usid_path bounce = {.block = c.block, .n = 8};
	const uint16_t hops[8] = {0x2000, 0x2100, 0x2001, 0x2101, 0x2000, 0x2102, 0x2001, 0x2e01};

	memcpy(bounce.usid, hops, sizeof(hops));
	const struct spec sp = {.src = 0, .dst = 1, .plane = 1, .payload = 100, .path = &bounce};

	MRC_T_RUN(send_spec(f, &c, &sp));
	run_idle(f, &now);
	MRC_T_EQ(rx_all(f, &c, rx, 2, NULL, NULL), 1);
	MRC_T_EQ(mrc_pkt_parse(rx[0], &t_wire, &v), MRC_WIRE_OK);
	MRC_T_ASSERT(v.flags & MRC_PKT_F_SRH, "SRH kept");
	MRC_T_EQ(v.srh.n_segs, 2);
	MRC_T_EQ(v.srh.segments_left, 0);
	MRC_T_EQ(mrc_usid_active(v.outer.dst), 0x2e01);
	MRC_T_EQ(v.outer.hop_limit, HL - 7);
	free_all(rx, 1);
	struct mrc_fabric_switch_counters s0, s2;

	MRC_T_EQ(mrc_fabric_switch_stats(f, 0, 1, 0, &s0), 0);
	MRC_T_EQ(s0.rx_pkts, 2); /* T0 0 saw it twice */
	MRC_T_EQ(mrc_fabric_switch_stats(f, 1, 1, 2, &s2), 0);
	/* T1 2 ends the first container (6 uSIDs): it takes the next from the SRH. */
	MRC_T_EQ(s2.srh_advances, 1);
	MRC_T_EQ(s2.usid_shifts, 0);

	/* A hand-cut path: [T0 0, T1 3] then [T0 1, host 1]; the T1 crosses the boundary. */
	MRC_T_RUN(send_split(f, &c, false));
	struct mrc_fabric_switch_counters t3a, t3b;

	MRC_T_EQ(mrc_fabric_switch_stats(f, 1, 1, 3, &t3a), 0);
	run_idle(f, &now);
	MRC_T_EQ(rx_all(f, &c, rx, 2, NULL, NULL), 1);
	MRC_T_EQ(mrc_pkt_parse(rx[0], &t_wire, &v), MRC_WIRE_OK);
	MRC_T_EQ(v.srh.segments_left, 0);
	MRC_T_EQ(mrc_usid_active(v.outer.dst), 0x2e01);
	MRC_T_EQ(v.outer.hop_limit, HL - 3);
	MRC_T_EQ(mrc_fabric_switch_stats(f, 1, 1, 3, &t3b), 0);
	MRC_T_EQ(t3b.srh_advances - t3a.srh_advances, 1); /* the T1 took the next container */
	MRC_T_EQ(t3b.usid_shifts - t3a.usid_shifts, 0);
	free_all(rx, 1);
	/* The same with a routing type that is not 4: the T1 cannot take the next container. */
	MRC_T_RUN(send_split(f, &c, true));
	run_idle(f, &now);
	MRC_T_EQ(rx_all(f, &c, rx, 2, NULL, NULL), 0);
	MRC_T_EQ(mrc_fabric_switch_stats(f, 1, 1, 3, &t3b), 0);
	MRC_T_EQ(t3b.drop_bad_srh, 1);
	MRC_T_EQ(mrc_fabric_counters(f)->drop_bad_srh, 1);
	mrc_fabric_free(f);
	return check_no_leak();
}

/* Structured EV: no path; the destination address and an ECMP hash of the EV route it. */
static int
test_structured_ev_ecmp(void)
{
	struct mrc_fabric_cfg c;
	struct mrc_fabric *f;
	struct rte_mbuf *rx[64];
	unsigned int rh[64];
	uint64_t now = 0, used = 0;

	MRC_T_RUN(setup());
	mrc_fabric_cfg_defaults(&c);
	c.n_hosts = 4;
	c.n_planes = 2;
	c.hosts_per_t0 = 2;
	f = mkfab(&c);
	MRC_T_ASSERT(f != NULL, "fabric");
	for (unsigned int k = 0; k < 64; k++) {
		const struct spec sp = {.src = 0,
			.dst = k & 1 ? 3 : 1,
			.plane = 1,
			.plain = true,
			.payload = 64,
			.psn = k,
			.ev = 0x9e3779b9u * (k + 1)};

		MRC_T_RUN(send_spec(f, &c, &sp));
	}
	run_idle(f, &now);
	MRC_T_EQ(rx_all(f, &c, rx, 64, rh, NULL), 64);
	for (unsigned int k = 0; k < 64; k++) {
		struct mrc_pkt v;

		MRC_T_EQ(mrc_pkt_parse(rx[k], &t_wire, &v), MRC_WIRE_OK);
		MRC_T_EQ(rh[k], v.bth.psn & 1 ? 3 : 1);
		MRC_T_EQ(v.ip.hop_limit, HL - (rh[k] == 3 ? 3 : 1));
	}
	for (unsigned int u = 0; u < 4; u++) {
		struct mrc_fabric_switch_counters s;

		MRC_T_EQ(mrc_fabric_switch_stats(f, 1, 1, u, &s), 0);
		used += s.rx_pkts > 0;
	}
	MRC_T_EQ(used, 4); /* 32 EVs across the T1s spread over all four */
	struct mrc_fabric_switch_counters t0;

	MRC_T_EQ(mrc_fabric_switch_stats(f, 0, 1, 0, &t0), 0);
	MRC_T_EQ(t0.ecmp_pkts, 32);
	free_all(rx, 64);
	/* An address no host has: no route. */
	const struct spec bad = {.src = 0, .dst = 5, .plane = 0, .plain = true, .payload = 8};

	memset(c.nic_addr[5], 0xee, 16);
	MRC_T_RUN(send_spec(f, &c, &bad));
	run_idle(f, &now);
	MRC_T_EQ(mrc_fabric_counters(f)->drop_no_route, 1);
	mrc_fabric_free(f);
	return check_no_leak();
}

/*
 * Several workers at the destination (doc/steering.md): the worker uSID
 * after the host's rides through every switch untouched, near and far, and
 * the packet reaches the host port with the worker's address as outer
 * destination, parses, and decodes to [host, worker]. A path whose worker
 * uSID is active at a switch (a peer that left the host uSID out) is no
 * route there, counted, not delivered.
 */
static int
test_worker_usid(void)
{
	struct mrc_fabric_cfg c;
	struct mrc_fabric *f;
	uint64_t now = 0;

	MRC_T_RUN(setup());
	mrc_fabric_cfg_defaults(&c);
	c.n_hosts = 4;
	c.n_planes = 2;
	c.hosts_per_t0 = 2;
	c.n_t1 = 2;
	f = mkfab(&c);
	MRC_T_ASSERT(f != NULL, "fabric created");
	for (unsigned int d = 1; d < 4; d++)
		for (uint8_t w = 0; w < 3; w++) {
			const struct spec sp = {.src = 0,
				.dst = d,
				.plane = 1,
				.uplink = w,
				.payload = 128,
				.psn = d * 8 + w,
				.dst_workers = 3,
				.dst_worker = w};
			struct rte_mbuf *rx[2];
			unsigned int rh[2], rp[2];
			uint8_t want[16];
			struct mrc_usid_path back;
			struct mrc_pkt v;

			MRC_T_RUN(send_spec(f, &c, &sp));
			run_idle(f, &now);
			MRC_T_EQ(rx_all(f, &c, rx, 2, rh, rp), 1);
			MRC_T_ASSERT(rh[0] == d && rp[0] == 1,
				"to host %u worker %u: host %u plane %u", d, w, rh[0], rp[0]);
			MRC_T_EQ(mrc_pkt_parse(rx[0], &t_wire, &v), MRC_WIRE_OK);
			MRC_T_EQ(mrc_ev_worker_addr(c.block, 1, (uint8_t)d, w, want), 0);
			MRC_T_MEMEQ(v.outer.dst, want, 16);
			MRC_T_EQ(mrc_srv6_get_path(&v, c.block, &back), 0);
			MRC_T_EQ(back.n, 2);
			MRC_T_EQ(back.usid[1], mrc_ev_usid(1, MRC_USID_TIER_WORKER, w));
			MRC_T_EQ(v.payload_len, 128);
			free_all(rx, 1);
		}
	MRC_T_EQ(mrc_fabric_counters(f)->delivered_pkts, 9);
	/* The worker uSID where a switch's should be: no switch owns it. */
	const struct mrc_usid_path bad = {.block = c.block,
		.n = 2,
		.usid = {mrc_ev_usid(1, MRC_USID_TIER_T0, 0),
			mrc_ev_usid(1, MRC_USID_TIER_WORKER, 0)}};
	const struct spec hostile = {.src = 0, .dst = 1, .plane = 1, .payload = 8, .path = &bad};
	struct rte_mbuf *rx[2];

	MRC_T_RUN(send_spec(f, &c, &hostile));
	run_idle(f, &now);
	MRC_T_EQ(rx_all(f, &c, rx, 2, NULL, NULL), 0);
	MRC_T_EQ(mrc_fabric_counters(f)->drop_no_route, 1);
	mrc_fabric_free(f);
	return check_no_leak();
}

/* ---- drops ---- */

static int
expect_drop(struct mrc_fabric *f, const struct mrc_fabric_cfg *c, const struct spec *sp,
	uint64_t *now, unsigned int field)
{
	const uint64_t before = mrc_fabric_counters_get(mrc_fabric_counters(f), field);
	struct rte_mbuf *rx[2];

	MRC_T_RUN(send_spec(f, c, sp));
	run_idle(f, now);
	MRC_T_EQ(rx_all(f, c, rx, 2, NULL, NULL), 0);
	MRC_T_ASSERT(mrc_fabric_counters_get(mrc_fabric_counters(f), field) == before + 1,
		"%s counted", mrc_fabric_counters_desc[field].name);
	return MRC_TEST_OK;
}

#define IDX(f) MRC_COUNTER_INDEX(mrc_fabric_counters, f)

static int
test_drop_reasons(void)
{
	struct mrc_fabric_cfg c;
	struct mrc_fabric *f;
	struct rte_mbuf *rx[2];
	uint64_t now = 0;

	MRC_T_RUN(setup());
	mrc_fabric_cfg_defaults(&c);
	c.n_planes = 2;
	f = mkfab(&c);
	MRC_T_ASSERT(f != NULL, "fabric");
	const struct spec ok = {.src = 0, .dst = 1, .plane = 1, .uplink = 1, .payload = 64};
	struct spec s = ok;

	/* Outside the block. */
	s.block = 0xfcbb0001;
	MRC_T_RUN(expect_drop(f, &c, &s, &now, IDX(drop_wrong_block)));
	/* A T1 that does not exist, and a uSID of another plane. */
	struct mrc_usid_path p = {
		.block = c.block, .n = 4, .usid = {0x2000, 0x2109, 0x2001, 0x2e01}};

	s = ok;
	s.path = &p;
	MRC_T_RUN(expect_drop(f, &c, &s, &now, IDX(drop_no_route)));
	p.usid[1] = 0x1101; /* plane 0's T1 1 named on plane 1 */
	MRC_T_RUN(expect_drop(f, &c, &s, &now, IDX(drop_no_route)));
	/* The path ends at the T0. */
	p.n = 1;
	p.usid[0] = 0x2000;
	MRC_T_RUN(expect_drop(f, &c, &s, &now, IDX(drop_ends_here)));
	/* Hop limit 2: the T0 shifts (1 left), the T1 may not. */
	s = ok;
	s.hl = 2;
	MRC_T_RUN(expect_drop(f, &c, &s, &now, IDX(drop_hop_limit)));
	struct mrc_fabric_switch_counters t1;

	MRC_T_EQ(mrc_fabric_switch_stats(f, 1, 1, 1, &t1), 0);
	MRC_T_EQ(t1.drop_hop_limit, 1);
	/* Not IPv6. */
	struct rte_mbuf *m = mk(&c, &ok);

	MRC_T_ASSERT(m != NULL, "built");
	rte_pktmbuf_mtod(m, uint8_t *)[12] = 0x08; /* EtherType 0x08dd */
	MRC_T_EQ(rte_eth_tx_burst(mrc_fabric_port(f, 0, 1), 0, &m, 1), 1);
	run_idle(f, &now);
	MRC_T_EQ(mrc_fabric_counters(f)->drop_unparseable, 1);
	/* A header the sender still holds: the fabric may not write it. */
	m = mk(&c, &ok);
	MRC_T_ASSERT(m != NULL, "built");
	rte_mbuf_refcnt_update(m, 1);
	MRC_T_EQ(rte_eth_tx_burst(mrc_fabric_port(f, 0, 1), 0, &m, 1), 1);
	run_idle(f, &now);
	MRC_T_EQ(mrc_fabric_counters(f)->drop_shared_header, 1);
	MRC_T_EQ(rte_mbuf_refcnt_read(m), 1);
	rte_pktmbuf_free(m);

	/* A dead T0 -> T1 link: packets whose path names it die there; other T1s work. */
	const struct mrc_fabric_target link = {
		.elem = MRC_FABRIC_ELEM_LINK, .plane = 1, .a = 0, .b = 1, .dir = MRC_FABRIC_DIR_UP};
	const struct mrc_fabric_link_id lid = {
		.kind = MRC_FABRIC_LINK_T0_T1, .plane = 1, .a = 0, .b = 1};
	struct mrc_fabric_link_counters lc;

	MRC_T_EQ(mrc_fabric_set_state(f, &link, MRC_FABRIC_DOWN), 0);
	MRC_T_RUN(expect_drop(f, &c, &ok, &now, IDX(drop_down)));
	MRC_T_EQ(mrc_fabric_link_stats(f, &lid, &lc), 0);
	MRC_T_EQ(lc.drop_down, 1);
	MRC_T_ASSERT(mrc_fabric_port_up(f, 0, 1), "a fabric link does not take a host port down");
	s = ok;
	s.uplink = 2;
	MRC_T_RUN(send_spec(f, &c, &s));
	s.uplink = 1;
	s.src = 1; /* the other direction uses T1 1 -> T0 0, which is up */
	s.dst = 0;
	MRC_T_RUN(send_spec(f, &c, &s));
	run_idle(f, &now);
	MRC_T_EQ(rx_all(f, &c, rx, 2, NULL, NULL), 2);
	free_all(rx, 2);
	MRC_T_EQ(mrc_fabric_set_state(f, &link, MRC_FABRIC_UP), 0);

	/* A dead host cable: the port goes down, as the host sees it through ethdev. */
	const struct mrc_fabric_target cable = {
		.elem = MRC_FABRIC_ELEM_HOST_LINK, .plane = 1, .a = 1, .dir = MRC_FABRIC_DIR_DOWN};
	struct rte_eth_link el;

	MRC_T_EQ(mrc_fabric_set_state(f, &cable, MRC_FABRIC_DOWN), 0);
	MRC_T_ASSERT(!mrc_fabric_port_up(f, 1, 1), "port down");
	MRC_T_EQ(rte_eth_link_get_nowait(mrc_fabric_port(f, 1, 1), &el), 0);
	MRC_T_EQ(el.link_status, RTE_ETH_LINK_DOWN);
	MRC_T_EQ(rte_eth_link_get_nowait(mrc_fabric_port(f, 1, 0), &el), 0);
	MRC_T_EQ(el.link_status, RTE_ETH_LINK_UP);
	MRC_T_RUN(expect_drop(f, &c, &ok, &now, IDX(drop_down)));
	MRC_T_EQ(mrc_fabric_set_state(f, &cable, MRC_FABRIC_UP), 0);
	MRC_T_EQ(rte_eth_link_get_nowait(mrc_fabric_port(f, 1, 1), &el), 0);
	MRC_T_EQ(el.link_status, RTE_ETH_LINK_UP);

	/* A T1 down, then the whole plane. */
	const struct mrc_fabric_target t1t = {.elem = MRC_FABRIC_ELEM_T1, .plane = 1, .a = 1};

	MRC_T_EQ(mrc_fabric_set_state(f, &t1t, MRC_FABRIC_DOWN), 0);
	MRC_T_RUN(expect_drop(f, &c, &ok, &now, IDX(drop_down)));
	MRC_T_EQ(mrc_fabric_switch_stats(f, 1, 1, 1, &t1), 0);
	MRC_T_EQ(t1.drop_down, 1);
	MRC_T_EQ(mrc_fabric_set_state(f, &t1t, MRC_FABRIC_UP), 0);
	MRC_T_EQ(mrc_fabric_set_plane(f, 1, MRC_FABRIC_DOWN), 0);
	MRC_T_ASSERT(!mrc_fabric_port_up(f, 0, 1) && mrc_fabric_port_up(f, 0, 0), "plane 1 only");
	MRC_T_RUN(expect_drop(f, &c, &ok, &now, IDX(drop_down)));
	MRC_T_EQ(mrc_fabric_set_plane(f, 1, MRC_FABRIC_UP), 0);
	MRC_T_RUN(send_spec(f, &c, &ok));
	run_idle(f, &now);
	MRC_T_EQ(rx_all(f, &c, rx, 2, NULL, NULL), 1);
	free_all(rx, 1);
	/* Bad setter arguments. */
	const struct mrc_fabric_target bad = {.elem = MRC_FABRIC_ELEM_T1, .plane = 1, .a = 4};

	MRC_T_EQ(mrc_fabric_set_state(f, &bad, MRC_FABRIC_DOWN), -EINVAL);
	MRC_T_EQ(mrc_fabric_set_plane(f, 2, MRC_FABRIC_DOWN), -EINVAL);
	MRC_T_EQ(mrc_fabric_set_loss(f, &t1t, 1.5), -EINVAL);
	mrc_fabric_free(f);
	return check_no_leak();
}

/* A black hole drops without taking anything down. */
static int
test_black_hole(void)
{
	struct mrc_fabric_cfg c;
	struct mrc_fabric *f;
	struct rte_mbuf *rx[8];
	struct rte_eth_link el;
	uint64_t now = 0;

	MRC_T_RUN(setup());
	mrc_fabric_cfg_defaults(&c);
	c.n_planes = 4;
	f = mkfab(&c);
	MRC_T_ASSERT(f != NULL, "fabric");
	const struct mrc_fabric_target t1 = {.elem = MRC_FABRIC_ELEM_T1, .plane = 2, .a = 1};

	MRC_T_EQ(mrc_fabric_set_state(f, &t1, MRC_FABRIC_BLACKHOLE), 0);
	for (unsigned int u = 0; u < 4; u++) {
		const struct spec sp = {.src = 0, .dst = 1, .plane = 2, .uplink = u, .payload = 64};

		MRC_T_RUN(send_spec(f, &c, &sp));
	}
	run_idle(f, &now);
	MRC_T_EQ(rx_all(f, &c, rx, 8, NULL, NULL), 3);
	free_all(rx, 3);
	MRC_T_EQ(mrc_fabric_counters(f)->drop_blackhole, 1);
	MRC_T_EQ(mrc_fabric_counters(f)->drop_down, 0);
	for (unsigned int h = 0; h < 2; h++) {
		MRC_T_ASSERT(mrc_fabric_port_up(f, h, 2), "black holes look up");
		MRC_T_EQ(rte_eth_link_get_nowait(mrc_fabric_port(f, h, 2), &el), 0);
		MRC_T_EQ(el.link_status, RTE_ETH_LINK_UP);
	}
	/* A black-holed cable too. */
	MRC_T_EQ(mrc_fabric_set_state(f, &t1, MRC_FABRIC_UP), 0);
	const struct mrc_fabric_target cable = {
		.elem = MRC_FABRIC_ELEM_HOST_LINK, .plane = 2, .a = 0};

	MRC_T_EQ(mrc_fabric_set_state(f, &cable, MRC_FABRIC_BLACKHOLE), 0);
	MRC_T_ASSERT(mrc_fabric_port_up(f, 0, 2), "still up");
	const struct spec sp = {.src = 0, .dst = 1, .plane = 2, .payload = 64};

	MRC_T_RUN(send_spec(f, &c, &sp));
	run_idle(f, &now);
	MRC_T_EQ(rx_all(f, &c, rx, 8, NULL, NULL), 0);
	MRC_T_EQ(mrc_fabric_counters(f)->drop_blackhole, 2);
	mrc_fabric_free(f);
	return check_no_leak();
}

static const struct mrc_test_case cases[] = {
	MRC_TEST_CASE(test_forward_2_planes),
	MRC_TEST_CASE(test_forward_8_planes),
	MRC_TEST_CASE(test_worker_usid),
	MRC_TEST_CASE(test_exact_timing),
	MRC_TEST_CASE(test_tx_backlog),
	MRC_TEST_CASE(test_srh_containers),
	MRC_TEST_CASE(test_structured_ev_ecmp),
	MRC_TEST_CASE(test_drop_reasons),
	MRC_TEST_CASE(test_black_hole),
	MRC_TEST_CASE(test_overload_mid_fabric),
	MRC_TEST_CASE(test_overload_last_hop),
	MRC_TEST_CASE(test_queue_limit_and_host_ring),
	MRC_TEST_CASE(test_control_priority),
	MRC_TEST_CASE(test_random_loss),
	MRC_TEST_CASE(test_free_in_flight),
	MRC_TEST_CASE(test_scenario_plane3),
	MRC_TEST_CASE(test_scenario_log_deferred),
	MRC_TEST_CASE(test_scenario_examples),
	MRC_TEST_CASE(test_scenario_errors),
	MRC_TEST_CASE(test_drop_request),
	MRC_TEST_CASE(test_qp_pair_plane_down),
	MRC_TEST_CASE(test_jitter_keeps_paths_in_order),
	MRC_TEST_CASE(test_forced_mark),
	MRC_TEST_CASE(test_cfg_check),
	MRC_TEST_CASE(test_nic_queue_plain),
	MRC_TEST_CASE(test_untrimmable_dropped_trimmable_trimmed),
	MRC_TEST_CASE(test_poll_at_the_end_of_time),
	MRC_TEST_CASE(test_back_to_back_timing),
	MRC_TEST_CASE(test_faults_in_time),
	MRC_TEST_CASE(test_trim_any_chain),
	MRC_TEST_CASE(test_random_ops),
	MRC_TEST_CASE(test_timeline_replace),
	MRC_TEST_CASE(test_timeline_errors),
};

MRC_TEST_MAIN("fabric", cases)
