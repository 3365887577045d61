/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * test/lib/mrc_sim: exact timing, routing by EV, per-path order under
 * jitter, every fault and drop reason, queueing, ECN (never on the last
 * hop), trimming (mid-fabric and last hop), tail drop, random loss and
 * determinism, and that every mbuf segment comes back exactly once.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>

#include "mrc_rand.h"
#include "mrc_sim.h"
#include "mrc_test.h"
#include "mrc_test_mbuf.h"
#include "mrc_test_pkts.h"

/* Sample packets used (test/lib/mrc_test_pkts.c). */
#define S_WRITE_SRV6  0 /* WRITE_FIRST, SRv6, 1024 B payload, 1162 B frame */
#define S_WRITE_PLAIN 5 /* WRITE_ONLY_IMM, no SRv6, 2 B payload */
#define S_SACK_SRV6   8 /* SACK, control DSCP */

#define W_LEN  1162u	      /* frame of S_WRITE_SRV6 */
#define W_WIRE (W_LEN + 24u)  /* plus the default frame overhead */
#define W_SER  (W_WIRE * 80u) /* ps at 100 Gb/s */
#define HOP_PS 1000000u	      /* default propagation per hop */
#define W_HDRS 134u	      /* its headers through RETH: what a trim keeps */

static struct mrc_wire_cfg wcfg;
/* Segments handed to the simulator and not yet freed (by it or by us). */
static long live_segs;

static void
count_free(struct rte_mbuf *m)
{
	for (struct rte_mbuf *s = m; s != NULL; s = s->next)
		live_segs--;
	mrc_test_mbuf_free(m);
}

static struct rte_mbuf *
mk(unsigned int sample, uint32_t ev, uint32_t psn, int dscp)
{
	struct mrc_test_sample s;
	struct rte_mbuf *m;

	if (mrc_test_sample_get(sample, &s) != 0)
		return NULL;
	s.pkt.ev = ev;
	s.pkt.bth.psn = psn & 0xffffff;
	if (dscp >= 0) {
		s.pkt.ip.dscp = (uint8_t)dscp;
		s.pkt.outer.dscp = (uint8_t)dscp;
	}
	m = mrc_test_sample_build(&s, &wcfg, NULL, 0);
	if (m != NULL)
		live_segs += m->nb_segs;
	return m;
}

/* The same packet as flat bytes cut into segments at `cuts` (offsets in the frame). */
static struct rte_mbuf *
mk_cut(unsigned int sample, uint32_t ev, uint32_t psn, const size_t *cuts, unsigned int n_cuts)
{
	static uint8_t buf[MRC_TEST_MAX_PKT];
	struct mrc_test_sample s;
	struct rte_mbuf *m;
	size_t len;

	if (mrc_test_sample_get(sample, &s) != 0)
		return NULL;
	s.pkt.ev = ev;
	s.pkt.bth.psn = psn & 0xffffff;
	len = mrc_test_sample_bytes(&s, &wcfg, buf, sizeof(buf));
	if (len == 0)
		return NULL;
	m = mrc_test_mbuf_from(buf, len, cuts, n_cuts, 0);
	if (m != NULL)
		live_segs += m->nb_segs;
	return m;
}

static uint32_t
ev_of(uint8_t plane, uint32_t uplink)
{
	const struct mrc_ev_layout l = MRC_EV_LAYOUT_DEFAULT;

	return mrc_sim_ev_with(&l, 0x0005a5c1, plane, uplink);
}

static struct mrc_sim *
mksim(const struct mrc_sim_cfg *cfg)
{
	struct mrc_sim *sim = mrc_sim_create(cfg);

	if (sim != NULL)
		mrc_sim_set_free_fn(sim, count_free);
	return sim;
}

/* What a test learns of a received packet. */
struct rec {
	uint64_t t_ns;
	uint32_t psn;
	uint32_t flags;
	uint32_t payload_len;
	uint32_t pkt_len;
	uint32_t payload_off;
	uint16_t l3_plen; /* outermost IPv6 payload length */
	uint8_t host;
	uint8_t port;
	uint8_t dscp; /* outermost */
	uint8_t ecn;  /* outermost */
	uint8_t opcode;
};

static unsigned int bad_parse;
static unsigned int bad_invariant;
static unsigned int bad_chain;

/* nb_segs and pkt_len agree with the segments. */
static bool
chain_ok(const struct rte_mbuf *m)
{
	uint32_t len = 0;
	uint16_t n = 0;

	for (const struct rte_mbuf *s = m; s != NULL; s = s->next) {
		len += s->data_len;
		n++;
	}
	return len == m->pkt_len && n == m->nb_segs;
}

static bool
invariant_holds(const struct mrc_sim *sim)
{
	const struct mrc_sim_counts *c = &mrc_sim_stats(sim)->total;
	uint64_t drops = 0;

	for (int i = 0; i < MRC_SIM_DROP_MAX; i++)
		drops += c->drops[i];
	return c->sent_pkts == c->delivered_pkts + drops + mrc_sim_in_flight(sim);
}

/* Where received packets are recorded. */
struct coll {
	struct rec *r;
	unsigned int n; /* received so far (only the first cap are kept) */
	unsigned int cap;
	uint8_t n_hosts;
};

/*
 * Step from event to event up to `until_ns`, receiving at every host; parse
 * each packet (ICRC checked: a switch's writes must leave it valid), record
 * it with the time it was received, free it. Check the accounting
 * invariant at every step.
 */
static void
collect(struct mrc_sim *sim, struct coll *c, uint64_t until_ns)
{
	for (;;) {
		uint64_t t = mrc_sim_next_event_ns(sim);
		struct rte_mbuf *pkts[64];

		if (t == UINT64_MAX || t > until_ns)
			break;
		for (uint8_t h = 0; h < c->n_hosts; h++) {
			unsigned int k;

			while ((k = mrc_sim_recv(sim, h, pkts, 64, t)) > 0) {
				for (unsigned int i = 0; i < k; i++) {
					struct mrc_pkt v;
					bool srv6;

					if (!chain_ok(pkts[i]))
						bad_chain++;
					if (mrc_pkt_parse(pkts[i], &wcfg, &v) != MRC_WIRE_OK) {
						bad_parse++;
					} else if (c->n < c->cap) {
						srv6 = (v.flags & MRC_PKT_F_SRV6) != 0;
						c->r[c->n] = (struct rec){
							.t_ns = t,
							.psn = v.bth.psn,
							.flags = v.flags,
							.payload_len = v.payload_len,
							.pkt_len = pkts[i]->pkt_len,
							.payload_off = v.payload_off,
							.l3_plen = srv6 ? v.outer.payload_len
									: v.ip.payload_len,
							.host = h,
							.port = (uint8_t)pkts[i]->port,
							.dscp = srv6 ? v.outer.dscp : v.ip.dscp,
							.ecn = srv6 ? v.outer.ecn : v.ip.ecn,
							.opcode = v.bth.opcode,
						};
					}
					c->n++;
					count_free(pkts[i]);
				}
			}
		}
		if (!invariant_holds(sim))
			bad_invariant++;
	}
}

/* Collect everything up to `until_ns`; returns the number of packets received. */
static unsigned int
drain(struct mrc_sim *sim, uint8_t n_hosts, struct rec *out, unsigned int cap, uint64_t until_ns)
{
	struct coll c = {.r = out, .cap = cap, .n_hosts = n_hosts};

	collect(sim, &c, until_ns);
	return c.n;
}

/*
 * Send at `t` after receiving everything due before it, so that the
 * recorded arrival times are the real ones (the simulator's clock only
 * moves forward: a recv after a later send would see the later time).
 */
static void
tx(struct mrc_sim *sim, struct coll *c, uint8_t src, uint8_t dst, struct rte_mbuf *m, uint64_t t)
{
	collect(sim, c, t);
	mrc_sim_send(sim, src, dst, m, t);
}

static void
reset_counts(void)
{
	mrc_wire_cfg_defaults(&wcfg);
	live_segs = 0;
	bad_parse = 0;
	bad_invariant = 0;
	bad_chain = 0;
}

/* Free the simulator and check that every segment came back exactly once. */
#define FINISH(sim)                         \
	do {                                \
		mrc_sim_free(sim);          \
		MRC_T_EQ(live_segs, 0);     \
		MRC_T_EQ(bad_parse, 0);     \
		MRC_T_EQ(bad_invariant, 0); \
		MRC_T_EQ(bad_chain, 0);     \
	} while (0)

static uint64_t
total_drops(const struct mrc_sim_counts *c)
{
	uint64_t d = 0;

	for (int i = 0; i < MRC_SIM_DROP_MAX; i++)
		d += c->drops[i];
	return d;
}

/* ---- configuration ---- */

static int
test_cfg(void)
{
	struct mrc_sim_cfg cfg, bad;
	struct mrc_sim *sim;
	const char *why = NULL;

	reset_counts();
	mrc_sim_cfg_defaults(&cfg);
	MRC_T_EQ(cfg.n_hosts, 2);
	MRC_T_EQ(cfg.n_planes, 1);
	MRC_T_EQ(cfg.n_uplinks, 1);
	MRC_T_EQ(cfg.hosts_per_t0, 1);
	MRC_T_ASSERT(cfg.link_gbps == 100.0, "100 Gb/s");
	MRC_T_EQ(cfg.link_delay_ns, 1000);
	MRC_T_EQ(cfg.jitter_ns, 0);
	MRC_T_EQ(cfg.queue_limit_bytes, 1000000);
	MRC_T_EQ(cfg.ecn_kmin_bytes, 25000);
	MRC_T_EQ(cfg.ecn_kmax_bytes, 100000);
	MRC_T_EQ(cfg.trim_threshold_bytes, 200000);
	MRC_T_ASSERT(cfg.loss_prob == 0.0, "no loss");
	MRC_T_EQ(mrc_sim_cfg_check(&cfg, &why), 0);

#define BAD(field, value)                                                        \
	do {                                                                     \
		bad = cfg;                                                       \
		bad.field = value;                                               \
		why = NULL;                                                      \
		MRC_T_EQ(mrc_sim_cfg_check(&bad, &why), -EINVAL);                \
		MRC_T_ASSERT(why != NULL, "a reason for " #field);               \
		rte_errno = 0;                                                   \
		MRC_T_ASSERT(mrc_sim_create(&bad) == NULL, #field " = " #value); \
		MRC_T_EQ(rte_errno, EINVAL);                                     \
	} while (0)
	BAD(n_hosts, 1);
	BAD(n_hosts, 9);
	BAD(n_planes, 0);
	BAD(n_planes, 9);
	BAD(n_uplinks, 0);
	BAD(n_uplinks, 17);
	BAD(hosts_per_t0, 0);
	BAD(hosts_per_t0, 3);
	BAD(link_gbps, 0.0);
	BAD(link_delay_ns, 2000000000);
	BAD(ecn_kmin_bytes, 200000);
	BAD(loss_prob, 1.5);
	BAD(layout.plane_shift, 20); /* overlaps the uplink field */
	BAD(wire.dscp.trimmed, 64);
#undef BAD

	cfg.n_planes = 2;
	cfg.n_uplinks = 2;
	sim = mksim(&cfg);
	MRC_T_ASSERT(sim != NULL, "create");
	MRC_T_EQ(mrc_sim_set_link(sim, MRC_SIM_LINK_HOST_UP, 2, 0, 0, MRC_SIM_DOWN), -EINVAL);
	MRC_T_EQ(mrc_sim_set_link(sim, MRC_SIM_LINK_HOST_UP, 0, 2, 0, MRC_SIM_DOWN), -EINVAL);
	MRC_T_EQ(mrc_sim_set_link(sim, MRC_SIM_LINK_T0_T1, 0, 0, 2, MRC_SIM_DOWN), -EINVAL);
	MRC_T_EQ(mrc_sim_set_link(sim, MRC_SIM_LINK_T1_T0, 0, 2, 0, MRC_SIM_DOWN), -EINVAL);
	MRC_T_EQ(mrc_sim_set_link(sim, (enum mrc_sim_link)9, 0, 0, 0, MRC_SIM_DOWN), -EINVAL);
	MRC_T_EQ(mrc_sim_set_link(sim, MRC_SIM_LINK_HOST, 0, 0, 0, (enum mrc_sim_state)3), -EINVAL);
	MRC_T_EQ(mrc_sim_set_t0(sim, 0, 2, MRC_SIM_DOWN), -EINVAL);
	MRC_T_EQ(mrc_sim_set_t1(sim, 0, 2, MRC_SIM_DOWN), -EINVAL);
	MRC_T_EQ(mrc_sim_set_plane(sim, 2, MRC_SIM_DOWN), -EINVAL);
	MRC_T_EQ(mrc_sim_set_path_blackhole(sim, 2, 0, true), -EINVAL);
	MRC_T_EQ(mrc_sim_set_path_loss(sim, 2, 0, 0.5), -EINVAL);
	MRC_T_EQ(mrc_sim_set_link(sim, MRC_SIM_LINK_FABRIC, MRC_SIM_ANY, MRC_SIM_ANY, MRC_SIM_ANY,
			 MRC_SIM_UP),
		0);
	MRC_T_EQ(mrc_sim_next_event_ns(sim), UINT64_MAX);
	MRC_T_EQ(mrc_sim_in_flight(sim), 0);
	MRC_T_STREQ(mrc_sim_drop_name(MRC_SIM_DROP_BLACKHOLE), "blackhole");
	MRC_T_STREQ(mrc_sim_drop_name(MRC_SIM_DROP_MAX), "?");
	FINISH(sim);
	return MRC_TEST_OK;
}

/* ---- timing ---- */

/* Receive one packet at host `h`: none at exact_ns - 1, it at exact_ns. */
static int
expect_arrival(struct mrc_sim *sim, uint8_t h, uint64_t exact_ns, uint8_t plane)
{
	struct rte_mbuf *m = NULL;

	MRC_T_EQ(mrc_sim_recv(sim, h, &m, 1, exact_ns - 1), 0);
	MRC_T_U64_EQ(mrc_sim_next_event_ns(sim), exact_ns);
	MRC_T_EQ(mrc_sim_recv(sim, h, &m, 1, exact_ns), 1);
	MRC_T_EQ(m->port, plane);
	MRC_T_EQ(m->pkt_len, W_LEN);
	count_free(m);
	return MRC_TEST_OK;
}

static int
test_timing_exact(void)
{
	struct mrc_sim_cfg cfg;
	struct mrc_sim *sim;
	struct rte_mbuf *m;

	reset_counts();
	mrc_sim_cfg_defaults(&cfg);
	sim = mksim(&cfg);
	MRC_T_ASSERT(sim != NULL, "create");

	/*
	 * 1162 B frame + 24 B overhead = 9488 bits = 94.88 ns at 100 Gb/s, on
	 * each of 4 store-and-forward hops, plus 4 x 1 us: 4379.52 ns.
	 */
	m = mk(S_WRITE_SRV6, ev_of(0, 0), 1, -1);
	MRC_T_ASSERT(m != NULL, "build");
	MRC_T_EQ(m->pkt_len, W_LEN);
	MRC_T_U64_EQ(mrc_sim_base_delay_ps(sim, 0, 1, W_LEN), 4 * (94880 + HOP_PS));
	mrc_sim_send(sim, 0, 1, m, 1000);
	MRC_T_EQ(mrc_sim_in_flight(sim), 1);
	/* The internal hops come first: never later than the arrival. */
	MRC_T_U64_EQ(mrc_sim_next_event_ns(sim), 1000 + 1095); /* reaches the T0->T1 link */
	MRC_T_RUN(expect_arrival(sim, 1, 1000 + 4380, 0));
	MRC_T_EQ(mrc_sim_in_flight(sim), 0);
	MRC_T_EQ(mrc_sim_next_event_ns(sim), UINT64_MAX);

	/* Back to back on one path: the second is exactly one serialisation behind. */
	mrc_sim_send(sim, 0, 1, mk(S_WRITE_SRV6, ev_of(0, 0), 2, -1), 10000);
	mrc_sim_send(sim, 0, 1, mk(S_WRITE_SRV6, ev_of(0, 0), 3, -1), 10000);
	MRC_T_RUN(expect_arrival(sim, 1, 10000 + 4380, 0)); /* 4379.52 */
	MRC_T_RUN(expect_arrival(sim, 1, 10000 + 4475, 0)); /* 4474.40 */
	MRC_T_EQ(mrc_sim_stats(sim)->total.delivered_pkts, 3);
	MRC_T_U64_EQ(mrc_sim_stats(sim)->total.delivered_bytes, 3 * W_LEN);
	FINISH(sim);

	/* Two hosts on one T0: two hops, no T1. */
	reset_counts();
	cfg.hosts_per_t0 = 2;
	sim = mksim(&cfg);
	MRC_T_ASSERT(sim != NULL, "create");
	MRC_T_U64_EQ(mrc_sim_base_delay_ps(sim, 1, 0, W_LEN), 2 * (94880 + HOP_PS));
	mrc_sim_send(sim, 1, 0, mk(S_WRITE_SRV6, ev_of(0, 0), 1, -1), 0);
	MRC_T_RUN(expect_arrival(sim, 0, 2190, 0)); /* 2189.76 */
	struct mrc_sim_link_stats ls;
	MRC_T_EQ(mrc_sim_link_stats(sim, MRC_SIM_LINK_T0_T1, 0, 0, 0, &ls), 0);
	MRC_T_EQ(ls.tx_pkts, 0);
	FINISH(sim);

	/* 25 Gb/s, 500 ns hops: 9488 bits = 379.52 ns; 4 x 879.52 = 3518.08 ns. */
	reset_counts();
	mrc_sim_cfg_defaults(&cfg);
	cfg.link_gbps = 25.0;
	cfg.link_delay_ns = 500;
	sim = mksim(&cfg);
	MRC_T_ASSERT(sim != NULL, "create");
	mrc_sim_send(sim, 1, 0, mk(S_WRITE_SRV6, ev_of(0, 0), 1, -1), 0);
	MRC_T_RUN(expect_arrival(sim, 0, 3519, 0));
	FINISH(sim);
	return MRC_TEST_OK;
}

/* ---- routing ---- */

static int
test_ev_routing(void)
{
	struct mrc_sim_cfg cfg;
	struct mrc_sim *sim;
	struct rec recs[64];
	const struct mrc_sim_stats *st;
	unsigned int n;

	reset_counts();
	mrc_sim_cfg_defaults(&cfg);
	cfg.n_planes = 4;
	cfg.n_uplinks = 3;
	sim = mksim(&cfg);
	MRC_T_ASSERT(sim != NULL, "create");
	st = mrc_sim_stats(sim);
	/* Uplink fields 0..5 on 3 T1s: u and u + 3 share a T1. */
	for (uint8_t p = 0; p < 4; p++)
		for (uint32_t u = 0; u < 6; u++)
			mrc_sim_send(sim, 0, 1, mk(S_WRITE_SRV6, ev_of(p, u), p * 16 + u, -1), 0);
	n = drain(sim, 2, recs, 64, UINT64_MAX);
	MRC_T_EQ(n, 24);
	for (unsigned int i = 0; i < n; i++) {
		MRC_T_EQ(recs[i].host, 1);
		MRC_T_EQ(recs[i].port, recs[i].psn / 16);
	}
	for (uint8_t p = 0; p < 4; p++) {
		MRC_T_EQ(st->plane[p].delivered_pkts, 6);
		for (unsigned int t1 = 0; t1 < 3; t1++) {
			MRC_T_EQ(st->path[p][t1].sent_pkts, 2);
			MRC_T_EQ(st->path[p][t1].delivered_pkts, 2);
		}
	}
	/* The uplink picks the T1: the T1_T0 link of T1 2 carried 2 per plane. */
	struct mrc_sim_link_stats ls;
	MRC_T_EQ(mrc_sim_link_stats(sim, MRC_SIM_LINK_T1_T0, 3, 2, 1, &ls), 0);
	MRC_T_EQ(ls.tx_pkts, 2);
	MRC_T_EQ(mrc_sim_link_stats(sim, MRC_SIM_LINK_T0_T1, 3, 0, 2, &ls), 0);
	MRC_T_EQ(ls.tx_pkts, 2);

	/* T1 2 of plane 1 down: exactly the uplink-2 and uplink-5 EVs of plane 1 die. */
	MRC_T_EQ(mrc_sim_set_t1(sim, 1, 2, MRC_SIM_DOWN), 0);
	for (uint8_t p = 0; p < 4; p++)
		for (uint32_t u = 0; u < 6; u++)
			mrc_sim_send(
				sim, 0, 1, mk(S_WRITE_SRV6, ev_of(p, u), p * 16 + u, -1), 100000);
	n = drain(sim, 2, recs, 64, UINT64_MAX);
	MRC_T_EQ(n, 22);
	MRC_T_EQ(st->total.drops[MRC_SIM_DROP_DOWN], 2);
	MRC_T_EQ(st->path[1][2].drops[MRC_SIM_DROP_DOWN], 2);
	for (unsigned int i = 0; i < n; i++)
		MRC_T_ASSERT(
			!(recs[i].port == 1 && recs[i].psn % 16 % 3 == 2), "psn %u", recs[i].psn);

	/* A plane the fabric does not have, a host it does not have. */
	mrc_sim_send(sim, 0, 1, mk(S_WRITE_SRV6, ev_of(5, 0), 1, -1), 200000);
	mrc_sim_send(sim, 0, 2, mk(S_WRITE_SRV6, ev_of(0, 0), 1, -1), 200000);
	mrc_sim_send(sim, 7, 1, mk(S_WRITE_SRV6, ev_of(0, 0), 1, -1), 200000);
	MRC_T_EQ(st->total.drops[MRC_SIM_DROP_NO_ROUTE], 3);
	MRC_T_EQ(mrc_sim_in_flight(sim), 0);
	FINISH(sim);

	/* The layout comes from the configuration. */
	reset_counts();
	cfg.layout = (struct mrc_ev_layout){
		.plane_shift = 0, .plane_bits = 2, .uplink_shift = 8, .uplink_bits = 4};
	sim = mksim(&cfg);
	MRC_T_ASSERT(sim != NULL, "create");
	st = mrc_sim_stats(sim);
	mrc_sim_send(sim, 1, 0, mk(S_WRITE_SRV6, 0xf0000302, 9, -1), 0); /* plane 2, uplink 3 */
	n = drain(sim, 2, recs, 64, UINT64_MAX);
	MRC_T_EQ(n, 1);
	MRC_T_EQ(recs[0].host, 0);
	MRC_T_EQ(recs[0].port, 2);
	MRC_T_EQ(st->path[2][0].delivered_pkts, 1);
	FINISH(sim);
	return MRC_TEST_OK;
}

/* ---- order ---- */

static int
test_fifo_jitter(void)
{
	enum { N = 400, SPACING_NS = 100, PATHS = 4 };
	static struct rec recs[N];
	struct mrc_sim_cfg cfg;
	struct mrc_sim *sim;
	uint32_t last[PATHS];
	unsigned int n, crossings = 0;
	uint64_t base_ps;

	for (int jitter = 0; jitter <= 1; jitter++) {
		reset_counts();
		mrc_sim_cfg_defaults(&cfg);
		cfg.n_uplinks = PATHS;
		cfg.jitter_ns = jitter ? 3000 : 0;
		cfg.seed = 11;
		sim = mksim(&cfg);
		MRC_T_ASSERT(sim != NULL, "create");
		base_ps = mrc_sim_base_delay_ps(sim, 0, 1, W_LEN);
		/* Spaced wider than a serialisation: no queueing anywhere. */
		struct coll c = {.r = recs, .cap = N, .n_hosts = 2};
		for (uint32_t i = 0; i < N; i++)
			tx(sim, &c, 0, 1, mk(S_WRITE_SRV6, ev_of(0, i % PATHS), i, -1),
				(uint64_t)i * SPACING_NS);
		collect(sim, &c, UINT64_MAX);
		n = c.n;
		MRC_T_EQ(n, N);
		memset(last, 0xff, sizeof(last));
		crossings = 0;
		for (unsigned int i = 0; i < n; i++) {
			const uint32_t psn = recs[i].psn, path = psn % PATHS;
			const uint64_t sent_ps = (uint64_t)psn * SPACING_NS * 1000;
			const uint64_t lo = (sent_ps + base_ps + 999) / 1000;
			const uint64_t hi = (sent_ps + base_ps + cfg.jitter_ns * 1000 + 999) / 1000;

			MRC_T_ASSERT(last[path] == UINT32_MAX || psn > last[path],
				"path %u: psn %u after %u", path, psn, last[path]);
			last[path] = psn;
			MRC_T_ASSERT(recs[i].t_ns >= lo && recs[i].t_ns <= hi,
				"psn %u at %" PRIu64 " not in [%" PRIu64 ", %" PRIu64 "]", psn,
				recs[i].t_ns, lo, hi);
			if (!jitter)
				MRC_T_U64_EQ(recs[i].t_ns, lo);
			if (i > 0 && psn < recs[i - 1].psn)
				crossings++;
		}
		if (jitter)
			MRC_T_ASSERT(crossings > 10, "paths overtake each other (%u)", crossings);
		else
			MRC_T_EQ(crossings, 0);
		FINISH(sim);
	}
	return MRC_TEST_OK;
}

/* ---- faults ---- */

/* Send one write from `src` to `dst` on (plane, uplink) at `t`; drain; packets delivered. */
static unsigned int
one(struct mrc_sim *sim, uint8_t src, uint8_t dst, uint8_t plane, uint32_t uplink, uint64_t t)
{
	struct rec r[4];

	mrc_sim_send(sim, src, dst, mk(S_WRITE_SRV6, ev_of(plane, uplink), 1, -1), t);
	return drain(sim, 4, r, 4, UINT64_MAX);
}

static int
test_faults(void)
{
	struct mrc_sim_cfg cfg;
	struct mrc_sim *sim;
	const struct mrc_sim_stats *st;
	const uint64_t *drops;
	struct mrc_sim_link_stats ls;
	uint64_t t = 0;

	reset_counts();
	mrc_sim_cfg_defaults(&cfg);
	cfg.n_hosts = 4;
	cfg.n_planes = 2;
	cfg.n_uplinks = 2;
	sim = mksim(&cfg);
	MRC_T_ASSERT(sim != NULL, "create");
	st = mrc_sim_stats(sim);
	drops = st->total.drops;
#define NEXT (t += 100000)

	/* Host 0's uplink on plane 0: DOWN, visible to the host. */
	MRC_T_ASSERT(mrc_sim_port_up(sim, 0, 0), "up");
	MRC_T_EQ(mrc_sim_set_link(sim, MRC_SIM_LINK_HOST_UP, 0, 0, 0, MRC_SIM_DOWN), 0);
	MRC_T_ASSERT(!mrc_sim_port_up(sim, 0, 0), "port down");
	MRC_T_ASSERT(mrc_sim_port_up(sim, 0, 1), "other plane up");
	MRC_T_ASSERT(mrc_sim_port_up(sim, 1, 0), "other host up");
	MRC_T_EQ(one(sim, 0, 1, 0, 0, NEXT), 0);
	MRC_T_EQ(one(sim, 0, 1, 1, 0, NEXT), 1);
	MRC_T_EQ(one(sim, 1, 0, 0, 0, NEXT), 1); /* the downlink still works */
	MRC_T_EQ(drops[MRC_SIM_DROP_DOWN], 1);
	MRC_T_EQ(st->plane[0].drops[MRC_SIM_DROP_DOWN], 1);
	MRC_T_EQ(mrc_sim_link_stats(sim, MRC_SIM_LINK_HOST_UP, 0, 0, 0, &ls), 0);
	MRC_T_EQ(ls.drops, 1);
	MRC_T_EQ(mrc_sim_set_link(sim, MRC_SIM_LINK_HOST_UP, 0, 0, 0, MRC_SIM_UP), 0);
	MRC_T_EQ(one(sim, 0, 1, 0, 0, NEXT), 1);

	/* A black-holed T0 -> T1 link: silent, counted apart, port still up. */
	MRC_T_EQ(mrc_sim_set_link(sim, MRC_SIM_LINK_T0_T1, 1, 0, 1, MRC_SIM_BLACKHOLE), 0);
	MRC_T_EQ(one(sim, 0, 2, 1, 1, NEXT), 0);
	MRC_T_EQ(one(sim, 0, 2, 1, 0, NEXT), 1);
	MRC_T_EQ(one(sim, 2, 0, 1, 1, NEXT), 1); /* the other direction is another link */
	MRC_T_EQ(drops[MRC_SIM_DROP_BLACKHOLE], 1);
	MRC_T_EQ(drops[MRC_SIM_DROP_DOWN], 1);
	MRC_T_ASSERT(mrc_sim_port_up(sim, 0, 1), "a black hole looks up");
	MRC_T_EQ(mrc_sim_set_link(sim, MRC_SIM_LINK_T0_T1, 1, 0, 1, MRC_SIM_UP), 0);

	/* A black-holed T1; a DOWN T0 (it owns the T0 -> T1 and T0 -> host queues). */
	MRC_T_EQ(mrc_sim_set_t1(sim, 0, 0, MRC_SIM_BLACKHOLE), 0);
	MRC_T_EQ(one(sim, 1, 2, 0, 0, NEXT), 0);
	MRC_T_EQ(one(sim, 1, 2, 0, 1, NEXT), 1);
	MRC_T_EQ(drops[MRC_SIM_DROP_BLACKHOLE], 2);
	MRC_T_EQ(mrc_sim_set_t1(sim, 0, 0, MRC_SIM_UP), 0);
	MRC_T_EQ(mrc_sim_set_t0(sim, 0, 3, MRC_SIM_DOWN), 0);
	MRC_T_EQ(one(sim, 1, 3, 0, 0, NEXT), 0);
	MRC_T_EQ(one(sim, 3, 1, 0, 1, NEXT), 0);
	MRC_T_EQ(one(sim, 3, 1, 1, 1, NEXT), 1);
	MRC_T_EQ(drops[MRC_SIM_DROP_DOWN], 3);
	MRC_T_EQ(mrc_sim_set_t0(sim, 0, 3, MRC_SIM_UP), 0);

	/* A whole plane. */
	MRC_T_EQ(mrc_sim_set_plane(sim, 1, MRC_SIM_DOWN), 0);
	MRC_T_ASSERT(!mrc_sim_port_up(sim, 2, 1), "plane down");
	MRC_T_EQ(one(sim, 2, 3, 1, 0, NEXT), 0);
	MRC_T_EQ(one(sim, 2, 3, 0, 0, NEXT), 1);
	MRC_T_EQ(drops[MRC_SIM_DROP_DOWN], 4);
	MRC_T_EQ(mrc_sim_set_plane(sim, 1, MRC_SIM_BLACKHOLE), 0);
	MRC_T_EQ(one(sim, 2, 3, 1, 0, NEXT), 0);
	MRC_T_EQ(drops[MRC_SIM_DROP_BLACKHOLE], 3);
	MRC_T_EQ(mrc_sim_set_plane(sim, 1, MRC_SIM_UP), 0);

	/* One (plane, uplink) path; uplink 3 is T1 1 too. */
	MRC_T_EQ(mrc_sim_set_path_blackhole(sim, 0, 1, true), 0);
	MRC_T_EQ(one(sim, 0, 1, 0, 1, NEXT), 0);
	MRC_T_EQ(one(sim, 0, 1, 0, 3, NEXT), 0);
	MRC_T_EQ(one(sim, 0, 1, 0, 2, NEXT), 1);
	MRC_T_EQ(one(sim, 0, 1, 1, 1, NEXT), 1);
	MRC_T_EQ(drops[MRC_SIM_DROP_BLACKHOLE], 5);
	MRC_T_EQ(st->path[0][1].drops[MRC_SIM_DROP_BLACKHOLE], 2);
	MRC_T_EQ(mrc_sim_set_path_blackhole(sim, 0, 1, false), 0);

	/* A fabric cable: both directions between T0 1 and T1 0 of plane 0. */
	MRC_T_EQ(mrc_sim_set_link(sim, MRC_SIM_LINK_FABRIC, 0, 1, 0, MRC_SIM_DOWN), 0);
	MRC_T_EQ(one(sim, 1, 2, 0, 0, NEXT), 0);
	MRC_T_EQ(one(sim, 2, 1, 0, 0, NEXT), 0);
	MRC_T_EQ(one(sim, 2, 1, 0, 1, NEXT), 1);
	MRC_T_EQ(one(sim, 2, 3, 0, 0, NEXT), 1);
	MRC_T_EQ(drops[MRC_SIM_DROP_DOWN], 6);
	MRC_T_EQ(mrc_sim_set_link(sim, MRC_SIM_LINK_FABRIC, 0, 1, 0, MRC_SIM_UP), 0);

	/* Wildcards: every host cable of every plane. */
	MRC_T_EQ(
		mrc_sim_set_link(sim, MRC_SIM_LINK_HOST, MRC_SIM_ANY, MRC_SIM_ANY, 0, MRC_SIM_DOWN),
		0);
	for (uint8_t h = 0; h < 4; h++)
		for (uint8_t p = 0; p < 2; p++)
			MRC_T_ASSERT(!mrc_sim_port_up(sim, h, p), "host %u plane %u", h, p);
	MRC_T_EQ(mrc_sim_set_link(sim, MRC_SIM_LINK_HOST, MRC_SIM_ANY, MRC_SIM_ANY, 0, MRC_SIM_UP),
		0);

	/*
	 * Timing of a change: it hits packets that reach the element after
	 * the latest time passed in. Sent at T, the packet reaches the
	 * T1 -> T0 link at T + 2189.76 ns and the last link at T + 3284.64 ns.
	 */
	NEXT;
	mrc_sim_send(sim, 0, 1, mk(S_WRITE_SRV6, ev_of(0, 0), 1, -1), t);
	mrc_sim_advance(sim, t + 500);
	MRC_T_EQ(mrc_sim_set_link(sim, MRC_SIM_LINK_T1_T0, 0, 0, 1, MRC_SIM_DOWN), 0);
	MRC_T_EQ(drain(sim, 4, NULL, 0, UINT64_MAX), 0);
	MRC_T_EQ(drops[MRC_SIM_DROP_DOWN], 7);
	MRC_T_EQ(mrc_sim_set_link(sim, MRC_SIM_LINK_T1_T0, 0, 0, 1, MRC_SIM_UP), 0);
	NEXT;
	mrc_sim_send(sim, 0, 1, mk(S_WRITE_SRV6, ev_of(0, 0), 1, -1), t);
	mrc_sim_advance(sim, t + 3500);
	MRC_T_EQ(mrc_sim_set_link(sim, MRC_SIM_LINK_HOST_DOWN, 0, 1, 0, MRC_SIM_DOWN), 0);
	MRC_T_EQ(drain(sim, 4, NULL, 0, UINT64_MAX), 1); /* already on the last link */
	MRC_T_EQ(drops[MRC_SIM_DROP_DOWN], 7);
#undef NEXT
	FINISH(sim);
	return MRC_TEST_OK;
}

/* ---- queues: delay, ECN, trimming, tail drop ---- */

static int
test_burst_queue_ecn(void)
{
	enum { N = 150 };
	static struct rec recs[N];
	bool marked[N] = {false};
	struct mrc_sim_cfg cfg;
	struct mrc_sim *sim;
	struct mrc_sim_link_stats ls;
	unsigned int n, ramp = 0;
	uint64_t base_ps;

	reset_counts();
	mrc_sim_cfg_defaults(&cfg);
	cfg.seed = 5;
	sim = mksim(&cfg);
	MRC_T_ASSERT(sim != NULL, "create");
	base_ps = mrc_sim_base_delay_ps(sim, 0, 1, W_LEN);
	/*
	 * 150 packets at once into host 0's uplink: packet i finds exactly
	 * i * 1186 wire bytes ahead of it (at most 176714: no trimming).
	 */
	for (uint32_t i = 0; i < N; i++)
		mrc_sim_send(sim, 0, 1, mk(S_WRITE_SRV6, ev_of(0, 0), i, -1), 0);
	n = drain(sim, 2, recs, N, UINT64_MAX);
	MRC_T_EQ(n, N);
	for (unsigned int i = 0; i < n; i++) {
		const uint32_t psn = recs[i].psn;

		MRC_T_EQ(psn, i); /* one path, FIFO */
		/* The delay grows by one serialisation per packet ahead. */
		MRC_T_U64_EQ(recs[i].t_ns, (base_ps + (uint64_t)i * W_SER + 999) / 1000);
		MRC_T_EQ(recs[i].payload_len, 1024);
		MRC_T_ASSERT(recs[i].ecn == MRC_ECN_CE || recs[i].ecn == MRC_ECN_ECT0, "ecn");
		marked[psn] = recs[i].ecn == MRC_ECN_CE;
	}
	/* Below Kmin (25000 B: i <= 21) never, from Kmax (100000 B: i >= 85) always. */
	for (unsigned int i = 0; i < N; i++) {
		if (i * W_WIRE <= 25000)
			MRC_T_ASSERT(!marked[i], "%u marked below Kmin", i);
		else if (i * W_WIRE >= 100000)
			MRC_T_ASSERT(marked[i], "%u not marked above Kmax", i);
		else
			ramp += marked[i];
	}
	/* 63 packets on the ramp, expected 31.8 marks, sd ~3.7. */
	MRC_T_ASSERT(ramp >= 20 && ramp <= 44, "%u marks on the ramp", ramp);
	MRC_T_EQ(mrc_sim_stats(sim)->total.ecn_marks, ramp + (N - 85));
	MRC_T_EQ(mrc_sim_link_stats(sim, MRC_SIM_LINK_HOST_UP, 0, 0, 0, &ls), 0);
	MRC_T_EQ(ls.ecn_marks, ramp + (N - 85));
	MRC_T_EQ(ls.max_queue_bytes, N * W_WIRE);
	MRC_T_EQ(ls.tx_pkts, N);
	MRC_T_EQ(mrc_sim_stats(sim)->total.max_queue_bytes, N * W_WIRE);
	/* Downstream links see the packets spaced at line rate: no queue. */
	MRC_T_EQ(mrc_sim_link_stats(sim, MRC_SIM_LINK_T1_T0, 0, 0, 1, &ls), 0);
	MRC_T_EQ(ls.max_queue_bytes, W_WIRE);
	MRC_T_EQ(ls.ecn_marks, 0);
	MRC_T_EQ(mrc_sim_stats(sim)->total.trims, 0);
	FINISH(sim);
	return MRC_TEST_OK;
}

static int
test_burst_trim(void)
{
	enum { N = 250, FIRST_TRIM = 169 };
	static struct rec recs[N];
	struct mrc_sim_cfg cfg;
	struct mrc_sim *sim;
	const struct mrc_sim_stats *st;
	unsigned int n, trimmed = 0, data_last_at = 0, trim_last_at = 0;

	reset_counts();
	mrc_sim_cfg_defaults(&cfg);
	sim = mksim(&cfg);
	MRC_T_ASSERT(sim != NULL, "create");
	st = mrc_sim_stats(sim);
	/* Packet i finds i * 1186 B queued; above 200000 B (i >= 169) it is trimmed. */
	MRC_T_ASSERT((FIRST_TRIM - 1) * W_WIRE <= 200000 && FIRST_TRIM * W_WIRE > 200000, "169");
	for (uint32_t i = 0; i < N; i++)
		mrc_sim_send(sim, 0, 1, mk(S_WRITE_SRV6, ev_of(0, 0), 1000 + i, -1), 0);
	MRC_T_EQ(st->total.trims, N - FIRST_TRIM);
	MRC_T_EQ(st->total.trims_lasthop, 0);
	n = drain(sim, 2, recs, N, UINT64_MAX);
	MRC_T_EQ(n, N);
	for (unsigned int i = 0; i < n; i++) {
		const uint32_t k = recs[i].psn - 1000;

		if (k < FIRST_TRIM) {
			MRC_T_ASSERT(!(recs[i].flags & MRC_PKT_F_TRIMMED), "%u trimmed", k);
			MRC_T_EQ(recs[i].payload_len, 1024);
			data_last_at = i;
			continue;
		}
		trimmed++;
		trim_last_at = i;
		MRC_T_ASSERT(recs[i].flags & MRC_PKT_F_TRIMMED, "%u not trimmed", k);
		MRC_T_ASSERT(
			!(recs[i].flags & MRC_PKT_F_TRIMMED_LASTHOP), "%u: not the last hop", k);
		MRC_T_EQ(recs[i].dscp, wcfg.dscp.trimmed);
		MRC_T_EQ(recs[i].payload_len, 0);
		MRC_T_EQ(recs[i].pkt_len, W_HDRS);
		MRC_T_EQ(recs[i].payload_off, W_HDRS);
		MRC_T_EQ(recs[i].l3_plen, W_HDRS - 14 - 40); /* fixed to what is left */
		MRC_T_EQ(recs[i].opcode, MRC_OP_WRITE_FIRST);
		/* Priority: headers of 158 wire bytes, 12.64 ns per hop, no waiting. */
		if (k == FIRST_TRIM)
			MRC_T_U64_EQ(recs[i].t_ns, 4051); /* 4 x (12.64 + 1000) = 4050.56 */
	}
	MRC_T_EQ(trimmed, N - FIRST_TRIM);
	MRC_T_ASSERT(trim_last_at < data_last_at, "trimmed headers overtake the queued data");
	MRC_T_EQ(st->total.delivered_pkts, N);
	MRC_T_EQ(st->total.delivered_bytes, FIRST_TRIM * W_LEN + (N - FIRST_TRIM) * W_HDRS);
	FINISH(sim); /* the cut-off payload and ICRC segments were freed */
	return MRC_TEST_OK;
}

/*
 * Trimming a chain cut anywhere: inside the IPv6 word the DSCP lives in,
 * inside its payload length, inside the transport headers, inside the
 * payload, or not at all.
 */
static int
test_trim_any_chain(void)
{
	static const size_t cut_sets[][5] = {
		{0},
		{16, 19, 100, 135, 600},
		{15, 18, 134},
		{134},
		{140, 1000},
	};
	static const unsigned int n_cuts[] = {0, 5, 3, 1, 2};
	struct mrc_sim_cfg cfg;
	struct mrc_sim *sim;
	struct rec recs[2];

	for (unsigned int k = 0; k < RTE_DIM(cut_sets); k++) {
		reset_counts();
		mrc_sim_cfg_defaults(&cfg);
		cfg.trim_threshold_bytes = 1; /* anything queued: trim */
		sim = mksim(&cfg);
		MRC_T_ASSERT(sim != NULL, "create");
		mrc_sim_send(sim, 0, 1, mk(S_WRITE_SRV6, ev_of(0, 0), 1, -1), 0);
		struct rte_mbuf *m = mk_cut(S_WRITE_SRV6, ev_of(0, 0), 2, cut_sets[k], n_cuts[k]);
		MRC_T_ASSERT(m != NULL, "build");
		MRC_T_EQ(m->nb_segs, n_cuts[k] + 1);
		mrc_sim_send(sim, 0, 1, m, 0);
		MRC_T_EQ(mrc_sim_stats(sim)->total.trims, 1);
		MRC_T_EQ(drain(sim, 2, recs, 2, UINT64_MAX), 2);
		MRC_T_EQ(recs[0].psn, 2); /* the trimmed one overtook */
		MRC_T_ASSERT(recs[0].flags & MRC_PKT_F_TRIMMED, "set %u", k);
		MRC_T_EQ(recs[0].pkt_len, W_HDRS);
		MRC_T_EQ(recs[0].l3_plen, W_HDRS - 14 - 40);
		MRC_T_EQ(recs[0].dscp, wcfg.dscp.trimmed);
		MRC_T_EQ(recs[1].payload_len, 1024);
		FINISH(sim);
	}
	return MRC_TEST_OK;
}

static int
test_burst_tail_drop(void)
{
	enum { N = 1000, FIRST_DROP = 843 };
	struct mrc_sim_cfg cfg;
	struct mrc_sim *sim;
	const struct mrc_sim_stats *st;
	unsigned int n;

	reset_counts();
	mrc_sim_cfg_defaults(&cfg);
	sim = mksim(&cfg);
	MRC_T_ASSERT(sim != NULL, "create");
	st = mrc_sim_stats(sim);
	/* Not trimmable (DSCP no_trim): past 1 MB queued it is dropped. */
	MRC_T_ASSERT(FIRST_DROP * W_WIRE <= 1000000 && (FIRST_DROP + 1) * W_WIRE > 1000000, "843");
	for (uint32_t i = 0; i < N; i++)
		mrc_sim_send(sim, 0, 1, mk(S_WRITE_SRV6, ev_of(0, 0), i, wcfg.dscp.no_trim), 0);
	MRC_T_EQ(st->total.drops[MRC_SIM_DROP_QUEUE], N - FIRST_DROP);
	MRC_T_EQ(st->total.trims, 0);
	MRC_T_ASSERT(st->total.max_queue_bytes <= 1000000, "limit");
	MRC_T_EQ(st->total.max_queue_bytes, FIRST_DROP * W_WIRE);
	n = drain(sim, 2, NULL, 0, UINT64_MAX);
	MRC_T_EQ(n, FIRST_DROP);
	MRC_T_EQ(st->total.delivered_pkts, FIRST_DROP);
	FINISH(sim);

	/* A trimmable packet is trimmed rather than dropped, even past the limit. */
	reset_counts();
	cfg.trim_threshold_bytes = 2000000;
	sim = mksim(&cfg);
	MRC_T_ASSERT(sim != NULL, "create");
	st = mrc_sim_stats(sim);
	for (uint32_t i = 0; i < N; i++)
		mrc_sim_send(sim, 0, 1, mk(S_WRITE_SRV6, ev_of(0, 0), i, -1), 0);
	MRC_T_EQ(st->total.drops[MRC_SIM_DROP_QUEUE], 0);
	MRC_T_EQ(st->total.trims, N - FIRST_DROP);
	MRC_T_EQ(drain(sim, 2, NULL, 0, UINT64_MAX), N);
	FINISH(sim);

	/* Trimming off: everything past the limit is dropped. */
	reset_counts();
	cfg.trim_threshold_bytes = 0;
	sim = mksim(&cfg);
	MRC_T_ASSERT(sim != NULL, "create");
	st = mrc_sim_stats(sim);
	for (uint32_t i = 0; i < N; i++)
		mrc_sim_send(sim, 0, 1, mk(S_WRITE_SRV6, ev_of(0, 0), i, -1), 0);
	MRC_T_EQ(st->total.drops[MRC_SIM_DROP_QUEUE], N - FIRST_DROP);
	MRC_T_EQ(st->total.trims, 0);
	FINISH(sim);
	return MRC_TEST_OK;
}

/*
 * Two senders paced just under line rate toward one receiver. Through
 * different T1s they meet only on the receiver's downlink: the last hop,
 * which trims with trimmed_lasthop and never marks. Through the same T1
 * they meet on the T1 -> T0 link, which marks (and trims with trimmed).
 */
static int
test_incast(void)
{
	enum { N = 400, PACE_NS = 95 };
	static struct rec recs[2 * N];
	struct mrc_sim_cfg cfg;
	struct mrc_sim *sim;
	const struct mrc_sim_stats *st;
	struct mrc_sim_link_stats ls;
	unsigned int n, lasthop = 0;

	for (int shared = 0; shared <= 1; shared++) {
		const unsigned int count = shared ? 100 : N;

		reset_counts();
		mrc_sim_cfg_defaults(&cfg);
		cfg.n_hosts = 3;
		cfg.n_uplinks = 2;
		cfg.seed = 3;
		sim = mksim(&cfg);
		MRC_T_ASSERT(sim != NULL, "create");
		st = mrc_sim_stats(sim);
		struct coll c = {.r = recs, .cap = 2 * N, .n_hosts = 3};
		for (uint32_t i = 0; i < count; i++) {
			tx(sim, &c, 0, 2, mk(S_WRITE_SRV6, ev_of(0, 0), i, -1),
				(uint64_t)i * PACE_NS);
			tx(sim, &c, 1, 2, mk(S_WRITE_SRV6, ev_of(0, shared ? 0 : 1), 5000 + i, -1),
				(uint64_t)i * PACE_NS);
		}
		collect(sim, &c, UINT64_MAX);
		n = c.n;
		MRC_T_EQ(n, 2 * count);
		/* The senders' own links never queue. */
		for (uint8_t h = 0; h < 2; h++) {
			MRC_T_EQ(mrc_sim_link_stats(sim, MRC_SIM_LINK_HOST_UP, 0, h, 0, &ls), 0);
			MRC_T_EQ(ls.max_queue_bytes, W_WIRE);
			MRC_T_EQ(mrc_sim_link_stats(
					 sim, MRC_SIM_LINK_T0_T1, 0, h, shared ? 0 : h, &ls),
				0);
			MRC_T_EQ(ls.max_queue_bytes, W_WIRE);
		}
		if (!shared) {
			MRC_T_EQ(mrc_sim_link_stats(sim, MRC_SIM_LINK_HOST_DOWN, 0, 2, 0, &ls), 0);
			MRC_T_ASSERT(ls.max_queue_bytes > cfg.trim_threshold_bytes, "queue %u",
				ls.max_queue_bytes);
			MRC_T_EQ(ls.ecn_marks, 0);
			MRC_T_ASSERT(ls.trims > 0, "last-hop trims");
			MRC_T_EQ(st->total.ecn_marks, 0);
			MRC_T_EQ(st->total.trims, ls.trims);
			MRC_T_EQ(st->total.trims_lasthop, ls.trims);
			lasthop = 0;
			for (unsigned int i = 0; i < n; i++) {
				MRC_T_EQ(recs[i].ecn, MRC_ECN_ECT0);
				if (!(recs[i].flags & MRC_PKT_F_TRIMMED))
					continue;
				lasthop++;
				MRC_T_ASSERT(recs[i].flags & MRC_PKT_F_TRIMMED_LASTHOP, "lasthop");
				MRC_T_EQ(recs[i].dscp, wcfg.dscp.trimmed_lasthop);
				MRC_T_EQ(recs[i].payload_len, 0);
			}
			MRC_T_EQ(lasthop, ls.trims);
		} else {
			/* 100 pairs: the T1 -> T0 queue passes Kmax but not the trim threshold. */
			MRC_T_EQ(mrc_sim_link_stats(sim, MRC_SIM_LINK_T1_T0, 0, 0, 2, &ls), 0);
			MRC_T_ASSERT(ls.max_queue_bytes > cfg.ecn_kmax_bytes &&
					     ls.max_queue_bytes <= cfg.trim_threshold_bytes,
				"queue %u", ls.max_queue_bytes);
			MRC_T_ASSERT(ls.ecn_marks > 20, "%" PRIu64 " marks", ls.ecn_marks);
			MRC_T_EQ(st->total.ecn_marks, ls.ecn_marks);
			MRC_T_EQ(st->total.trims, 0);
			/* Behind the congested link, the last hop sees line rate. */
			MRC_T_EQ(mrc_sim_link_stats(sim, MRC_SIM_LINK_HOST_DOWN, 0, 2, 0, &ls), 0);
			MRC_T_EQ(ls.max_queue_bytes, W_WIRE);
			unsigned int ce = 0;
			for (unsigned int i = 0; i < n; i++)
				ce += recs[i].ecn == MRC_ECN_CE;
			MRC_T_EQ(ce, st->total.ecn_marks);
		}
		FINISH(sim);
	}
	return MRC_TEST_OK;
}

/* Control packets share the data queue unless control_priority is set. */
static int
test_control_class(void)
{
	static struct rec recs[101];
	struct mrc_sim_cfg cfg;
	struct mrc_sim *sim;
	unsigned int n;

	for (int prio = 0; prio <= 1; prio++) {
		reset_counts();
		mrc_sim_cfg_defaults(&cfg);
		cfg.control_priority = prio;
		sim = mksim(&cfg);
		MRC_T_ASSERT(sim != NULL, "create");
		for (uint32_t i = 0; i < 100; i++)
			mrc_sim_send(sim, 0, 1, mk(S_WRITE_SRV6, ev_of(0, 0), i, -1), 0);
		mrc_sim_send(sim, 0, 1, mk(S_SACK_SRV6, ev_of(0, 0), 7777, -1), 0);
		n = drain(sim, 2, recs, 101, UINT64_MAX);
		MRC_T_EQ(n, 101);
		MRC_T_EQ(recs[prio ? 0 : 100].opcode, MRC_OP_SACK);
		MRC_T_EQ(recs[prio ? 0 : 100].ecn, prio ? MRC_ECN_ECT0 : MRC_ECN_CE);
		FINISH(sim);
	}

	/*
	 * A priority packet takes real link time: a write sent right behind a
	 * priority SACK on an idle path arrives one SACK serialisation late.
	 */
	reset_counts();
	mrc_sim_cfg_defaults(&cfg);
	cfg.control_priority = true;
	sim = mksim(&cfg);
	MRC_T_ASSERT(sim != NULL, "create");
	struct rte_mbuf *sack = mk(S_SACK_SRV6, ev_of(0, 0), 1, -1);
	MRC_T_ASSERT(sack != NULL, "build");
	const uint64_t sack_ser_ps = (uint64_t)(sack->pkt_len + 24) * 80;
	mrc_sim_send(sim, 0, 1, sack, 0);
	mrc_sim_send(sim, 0, 1, mk(S_WRITE_SRV6, ev_of(0, 0), 2, -1), 0);
	n = drain(sim, 2, recs, 2, UINT64_MAX);
	MRC_T_EQ(n, 2);
	MRC_T_EQ(recs[1].opcode, MRC_OP_WRITE_FIRST);
	MRC_T_U64_EQ(recs[1].t_ns, (sack_ser_ps + 4 * (W_SER + HOP_PS) + 999) / 1000);
	FINISH(sim);

	/* The NIC's queue made plain: no trims or marks there, tail drop at the limit. */
	reset_counts();
	mrc_sim_cfg_defaults(&cfg);
	cfg.nic_queue_plain = true;
	sim = mksim(&cfg);
	MRC_T_ASSERT(sim != NULL, "create");
	for (uint32_t i = 0; i < 1000; i++)
		mrc_sim_send(sim, 0, 1, mk(S_WRITE_SRV6, ev_of(0, 0), i, -1), 0);
	MRC_T_EQ(mrc_sim_stats(sim)->total.trims, 0);
	MRC_T_EQ(mrc_sim_stats(sim)->total.ecn_marks, 0);
	MRC_T_EQ(mrc_sim_stats(sim)->total.drops[MRC_SIM_DROP_QUEUE], 1000 - 843);
	MRC_T_EQ(drain(sim, 2, NULL, 0, UINT64_MAX), 843);
	FINISH(sim);
	return MRC_TEST_OK;
}

/* ---- loss and determinism ---- */

struct loss_run {
	uint8_t got[10000];
	uint64_t digest;
	uint64_t lost;
};

static int
loss_run(uint64_t seed, double p, struct loss_run *out)
{
	static struct rec recs[10000];
	struct mrc_sim_cfg cfg;
	struct mrc_sim *sim;
	unsigned int n;

	reset_counts();
	mrc_sim_cfg_defaults(&cfg);
	cfg.n_uplinks = 2;
	cfg.loss_prob = p;
	cfg.jitter_ns = 500;
	cfg.seed = seed;
	sim = mksim(&cfg);
	MRC_T_ASSERT(sim != NULL, "create");
	struct coll c = {.r = recs, .cap = 10000, .n_hosts = 2};
	for (uint32_t i = 0; i < 10000; i++)
		tx(sim, &c, 0, 1, mk(S_WRITE_PLAIN, ev_of(0, i), i, -1), (uint64_t)i * 20);
	collect(sim, &c, UINT64_MAX);
	n = c.n;
	memset(out, 0, sizeof(*out));
	out->digest = 1469598103934665603ull;
	for (unsigned int i = 0; i < n; i++) {
		out->got[recs[i].psn] = 1;
		out->digest = (out->digest ^ (recs[i].t_ns << 24 ^ recs[i].psn)) * 1099511628211ull;
	}
	out->lost = mrc_sim_stats(sim)->total.drops[MRC_SIM_DROP_LOSS];
	MRC_T_EQ(n + out->lost, 10000);
	MRC_T_EQ(total_drops(&mrc_sim_stats(sim)->total), out->lost);
	FINISH(sim);
	return MRC_TEST_OK;
}

static int
test_loss(void)
{
	static struct loss_run a, b, c;
	struct mrc_sim_cfg cfg;
	struct mrc_sim *sim;
	const struct mrc_sim_stats *st;

	/* 5% of 10000: mean 500, sd 21.8. */
	MRC_T_RUN(loss_run(42, 0.05, &a));
	MRC_T_ASSERT(a.lost >= 400 && a.lost <= 600, "%" PRIu64 " lost", a.lost);
	MRC_T_RUN(loss_run(42, 0.05, &b));
	MRC_T_EQ(b.lost, a.lost);
	MRC_T_MEMEQ(a.got, b.got, sizeof(a.got));
	MRC_T_U64_EQ(b.digest, a.digest);
	MRC_T_RUN(loss_run(43, 0.05, &c));
	MRC_T_ASSERT(memcmp(a.got, c.got, sizeof(a.got)) != 0, "another seed, other losses");
	MRC_T_RUN(loss_run(42, 0.0, &c));
	MRC_T_EQ(c.lost, 0);

	/* Per-link and per-path probabilities. */
	reset_counts();
	mrc_sim_cfg_defaults(&cfg);
	cfg.n_uplinks = 2;
	cfg.seed = 9;
	sim = mksim(&cfg);
	MRC_T_ASSERT(sim != NULL, "create");
	st = mrc_sim_stats(sim);
	MRC_T_EQ(mrc_sim_set_link_loss(sim, MRC_SIM_LINK_T1_T0, 0, 1, 1, 1.0), 0);
	MRC_T_EQ(mrc_sim_set_path_loss(sim, 0, 0, 0.2), 0);
	for (uint32_t i = 0; i < 4000; i++)
		mrc_sim_send(sim, 0, 1, mk(S_WRITE_PLAIN, ev_of(0, i), i, -1), (uint64_t)i * 20);
	drain(sim, 2, NULL, 0, UINT64_MAX);
	MRC_T_EQ(st->path[0][1].drops[MRC_SIM_DROP_LOSS], 2000);
	MRC_T_ASSERT(st->path[0][0].drops[MRC_SIM_DROP_LOSS] >= 320 &&
			     st->path[0][0].drops[MRC_SIM_DROP_LOSS] <= 480,
		"%" PRIu64 " of 2000 at 20%%", st->path[0][0].drops[MRC_SIM_DROP_LOSS]);
	MRC_T_EQ(st->total.drops[MRC_SIM_DROP_LOSS],
		st->path[0][0].drops[MRC_SIM_DROP_LOSS] + st->path[0][1].drops[MRC_SIM_DROP_LOSS]);
	const uint64_t before = st->total.drops[MRC_SIM_DROP_LOSS];
	mrc_sim_set_loss(sim, 1.0);
	mrc_sim_send(sim, 0, 1, mk(S_WRITE_PLAIN, ev_of(0, 0), 1, -1), 1000000);
	MRC_T_EQ(st->total.drops[MRC_SIM_DROP_LOSS], before + 1);
	FINISH(sim);
	return MRC_TEST_OK;
}

/* Everything at once, twice with one seed and once with another. */
static int
mixed_run(uint64_t seed, uint64_t *digest, struct mrc_sim_stats *stats)
{
	static struct rec recs[2000];
	struct mrc_sim_cfg cfg;
	struct mrc_sim *sim;
	unsigned int n;
	uint64_t d = 1469598103934665603ull;

	reset_counts();
	mrc_sim_cfg_defaults(&cfg);
	cfg.n_hosts = 4;
	cfg.n_planes = 2;
	cfg.n_uplinks = 2;
	cfg.jitter_ns = 2000;
	cfg.loss_prob = 0.01;
	cfg.seed = seed;
	sim = mksim(&cfg);
	MRC_T_ASSERT(sim != NULL, "create");
	/* 3:1 incast onto host 3 plus host 3's own traffic back, spread over 4 paths. */
	struct coll c = {.r = recs, .cap = 2000, .n_hosts = 4};
	for (uint32_t i = 0; i < 1500; i++) {
		const uint64_t t = (uint64_t)i * 20;

		tx(sim, &c, (uint8_t)(i % 3), 3,
			mk(S_WRITE_SRV6, ev_of((uint8_t)(i / 3 % 2), i / 6), i, -1), t);
		if (i % 9 == 0)
			tx(sim, &c, 3, (uint8_t)(i % 3),
				mk(S_SACK_SRV6, ev_of((uint8_t)(i % 2), i), 10000 + i, -1), t);
		if (i == 450)
			mrc_sim_set_t1(sim, 1, 1, MRC_SIM_BLACKHOLE);
	}
	collect(sim, &c, UINT64_MAX);
	n = c.n;
	MRC_T_ASSERT(n <= 2000, "recs");
	for (unsigned int i = 0; i < n; i++) {
		const struct rec *r = &recs[i];

		d = (d ^ r->t_ns) * 1099511628211ull;
		d = (d ^ ((uint64_t)r->psn << 16 | (uint64_t)r->host << 8 | r->port)) *
		    1099511628211ull;
		d = (d ^ ((uint64_t)r->dscp << 8 | r->ecn | (uint64_t)r->pkt_len << 16)) *
		    1099511628211ull;
	}
	*digest = d;
	*stats = *mrc_sim_stats(sim);
	MRC_T_ASSERT(stats->total.trims > 0 && stats->total.ecn_marks > 0 &&
			     stats->total.drops[MRC_SIM_DROP_LOSS] > 0 &&
			     stats->total.drops[MRC_SIM_DROP_BLACKHOLE] > 0,
		"the scenario exercises trims, marks, loss, black hole");
	FINISH(sim);
	return MRC_TEST_OK;
}

static int
test_determinism(void)
{
	static struct mrc_sim_stats s1, s2, s3;
	uint64_t d1, d2, d3;

	MRC_T_RUN(mixed_run(77, &d1, &s1));
	MRC_T_RUN(mixed_run(77, &d2, &s2));
	MRC_T_U64_EQ(d1, d2);
	MRC_T_MEMEQ(&s1, &s2, sizeof(s1));
	MRC_T_RUN(mixed_run(78, &d3, &s3));
	MRC_T_ASSERT(d3 != d1, "another seed, another run");
	return MRC_TEST_OK;
}

/* ---- odds and ends ---- */

static int
test_unparseable_and_free(void)
{
	static const uint8_t junk[64] = {0};
	struct mrc_sim_cfg cfg;
	struct mrc_sim *sim;
	struct rte_mbuf *m;

	reset_counts();
	mrc_sim_cfg_defaults(&cfg);
	sim = mksim(&cfg);
	MRC_T_ASSERT(sim != NULL, "create");
	m = mrc_test_mbuf_from(junk, sizeof(junk), NULL, 0, 0);
	MRC_T_ASSERT(m != NULL, "alloc");
	live_segs += m->nb_segs;
	mrc_sim_send(sim, 0, 1, m, 0);
	mrc_sim_send(sim, 0, 1, NULL, 0); /* ignored */
	MRC_T_EQ(mrc_sim_stats(sim)->total.drops[MRC_SIM_DROP_UNPARSEABLE], 1);
	MRC_T_EQ(mrc_sim_stats(sim)->total.sent_pkts, 1);
	MRC_T_EQ(live_segs, 0);

	/* Packets still inside (in queues, on links, arrived) go back through the free function. */
	for (uint32_t i = 0; i < 300; i++)
		mrc_sim_send(sim, (uint8_t)(i & 1), (uint8_t)(~i & 1),
			mk(S_WRITE_SRV6, ev_of(0, 0), i, -1), 0);
	mrc_sim_advance(sim, 5000);
	MRC_T_EQ(mrc_sim_in_flight(sim), 300); /* arrived but not received counts as inside */
	/* Time does not go backwards: a recv "at 0" is a recv at 5000. */
	struct rte_mbuf *pkts[8];
	unsigned int k = mrc_sim_recv(sim, 1, pkts, 8, 0);
	MRC_T_ASSERT(k > 0, "already arrived by 5000");
	MRC_T_EQ(mrc_sim_in_flight(sim), 300 - k);
	MRC_T_ASSERT(invariant_holds(sim), "invariant");
	for (unsigned int i = 0; i < k; i++)
		count_free(pkts[i]);
	FINISH(sim);
	mrc_sim_free(NULL);
	return MRC_TEST_OK;
}

/* Writing into a packet someone else still references is counted (and said once). */
static int
test_shared_write(void)
{
	struct mrc_sim_cfg cfg;
	struct mrc_sim *sim;
	struct rte_mbuf *m;

	reset_counts();
	mrc_sim_cfg_defaults(&cfg);
	cfg.ecn_kmin_bytes = 0;
	cfg.ecn_kmax_bytes = 1; /* mark whenever anything is queued */
	sim = mksim(&cfg);
	MRC_T_ASSERT(sim != NULL, "create");
	mrc_sim_send(sim, 0, 1, mk(S_WRITE_SRV6, ev_of(0, 0), 1, -1), 0);
	mrc_sim_send(sim, 0, 1, mk(S_WRITE_SRV6, ev_of(0, 0), 2, -1), 0);
	MRC_T_EQ(mrc_sim_stats(sim)->total.ecn_marks, 1);
	MRC_T_EQ(mrc_sim_stats(sim)->shared_writes, 0);
	m = mk(S_WRITE_SRV6, ev_of(0, 0), 3, -1);
	MRC_T_ASSERT(m != NULL, "build");
	rte_mbuf_refcnt_set(m, 2); /* as if the sender kept it for retransmission */
	mrc_sim_send(sim, 0, 1, m, 0);
	MRC_T_EQ(mrc_sim_stats(sim)->total.ecn_marks, 2);
	MRC_T_ASSERT(mrc_sim_stats(sim)->shared_writes > 0, "shared write counted");
	MRC_T_EQ(drain(sim, 2, NULL, 0, UINT64_MAX), 3);
	FINISH(sim);
	return MRC_TEST_OK;
}

/*
 * Random operations against every knob at once: the accounting invariant
 * holds at every step, every packet parses, and nothing leaks.
 */
static int
test_random_ops(void)
{
	static const unsigned int samples[] = {0, 2, 3, 4, 5, 6, 7, 8, 10, 12, 13, 17};
	struct mrc_sim_cfg cfg;
	struct mrc_sim *sim;
	struct mrc_rand r;
	struct rte_mbuf *pkts[16];
	uint64_t t = 0;

	reset_counts();
	mrc_sim_cfg_defaults(&cfg);
	cfg.n_hosts = 5;
	cfg.n_planes = 3;
	cfg.n_uplinks = 3;
	cfg.hosts_per_t0 = 2;
	cfg.jitter_ns = 700;
	cfg.queue_limit_bytes = 60000;
	cfg.ecn_kmin_bytes = 5000;
	cfg.ecn_kmax_bytes = 20000;
	cfg.trim_threshold_bytes = 30000;
	cfg.loss_prob = 0.01;
	cfg.seed = 1234;
	sim = mksim(&cfg);
	MRC_T_ASSERT(sim != NULL, "create");
	mrc_rand_seed(&r, 99);
	for (unsigned int i = 0; i < 20000; i++) {
		const uint32_t op = (uint32_t)mrc_rand_bounded(&r, 100);
		const uint8_t a = (uint8_t)mrc_rand_bounded(&r, 6);
		const uint8_t b = (uint8_t)mrc_rand_bounded(&r, 6);
		const uint8_t p = (uint8_t)mrc_rand_bounded(&r, 4);
		const enum mrc_sim_state st = (enum mrc_sim_state)mrc_rand_bounded(&r, 3);

		t += mrc_rand_bounded(&r, 16);
		if (op < 70) {
			const unsigned int k = samples[mrc_rand_bounded(&r, RTE_DIM(samples))];

			/* Plane 3 and host 5 do not exist. */
			const uint32_t ev =
				ev_of((uint8_t)mrc_rand_bounded(&r, 4), mrc_rand_u32(&r)) ^
				(mrc_rand_u32(&r) & 0xfffff);

			/* Now and then a burst, to fill queues. */
			const unsigned int n = mrc_rand_bounded(&r, 20) ? 1 : 60;
			/* Some data the fabric may not trim (it is dropped instead). */
			const int dscp = mrc_rand_bounded(&r, 4) ? -1 : wcfg.dscp.no_trim;

			for (unsigned int j = 0; j < n; j++)
				mrc_sim_send(sim, a, b, mk(k, ev, i, dscp), t);
		} else if (op < 88) {
			unsigned int n = mrc_sim_recv(sim, a, pkts, RTE_DIM(pkts), t);

			for (unsigned int j = 0; j < n; j++) {
				struct mrc_pkt v;

				if (mrc_pkt_parse(pkts[j], &wcfg, &v) != MRC_WIRE_OK ||
					!chain_ok(pkts[j]) || pkts[j]->port >= cfg.n_planes)
					bad_parse++;
				count_free(pkts[j]);
			}
		} else if (op < 92) {
			/* Mostly UP, so traffic keeps flowing. */
			const enum mrc_sim_state s2 = mrc_rand_bounded(&r, 3) ? MRC_SIM_UP : st;

			(void)mrc_sim_set_link(
				sim, (enum mrc_sim_link)mrc_rand_bounded(&r, 6), p, a, b, s2);
		} else if (op < 94) {
			(void)mrc_sim_set_t1(sim, p, a, mrc_rand_bounded(&r, 2) ? MRC_SIM_UP : st);
			(void)mrc_sim_set_t0(sim, p, b, mrc_rand_bounded(&r, 2) ? MRC_SIM_UP : st);
		} else if (op < 95) {
			(void)mrc_sim_set_plane(sim, p, mrc_rand_bounded(&r, 2) ? MRC_SIM_UP : st);
		} else if (op < 96) {
			(void)mrc_sim_set_path_blackhole(sim, p, a, mrc_rand_bounded(&r, 2) == 0);
			(void)mrc_sim_set_path_loss(sim, p, b, mrc_rand_unit(&r) * 0.1);
		} else if (op < 97) {
			(void)mrc_sim_set_link_loss(sim, (enum mrc_sim_link)mrc_rand_bounded(&r, 6),
				p, a, b, mrc_rand_unit(&r) * 0.05);
		} else if (op < 99) {
			mrc_sim_advance(sim, t);
		} else {
			/* Heal everything, so faults come and go. */
			MRC_T_EQ(mrc_sim_set_link(sim, MRC_SIM_LINK_HOST, MRC_SIM_ANY, MRC_SIM_ANY,
					 0, MRC_SIM_UP),
				0);
			MRC_T_EQ(mrc_sim_set_link(sim, MRC_SIM_LINK_FABRIC, MRC_SIM_ANY,
					 MRC_SIM_ANY, MRC_SIM_ANY, MRC_SIM_UP),
				0);
			for (uint8_t q = 0; q < cfg.n_planes; q++) {
				MRC_T_EQ(mrc_sim_set_plane(sim, q, MRC_SIM_UP), 0);
				for (uint8_t x = 0; x < cfg.n_uplinks; x++) {
					MRC_T_EQ(mrc_sim_set_t1(sim, q, x, MRC_SIM_UP), 0);
					MRC_T_EQ(mrc_sim_set_path_blackhole(sim, q, x, false), 0);
				}
				for (uint8_t x = 0; x < 3; x++)
					MRC_T_EQ(mrc_sim_set_t0(sim, q, x, MRC_SIM_UP), 0);
			}
		}
		if (!invariant_holds(sim))
			bad_invariant++;
		MRC_T_ASSERT(mrc_sim_next_event_ns(sim) == UINT64_MAX || mrc_sim_in_flight(sim) > 0,
			"pending events need packets");
	}
	const struct mrc_sim_stats *st = mrc_sim_stats(sim);
	MRC_T_ASSERT(st->total.delivered_pkts > 1000 && st->total.trims > 0 &&
			     st->total.ecn_marks > 0 && st->total.drops[MRC_SIM_DROP_QUEUE] > 0 &&
			     st->total.drops[MRC_SIM_DROP_NO_ROUTE] > 0,
		"the mix reaches every path through the model");
	/* Some left inside: freed by mrc_sim_free(). */
	FINISH(sim);
	return MRC_TEST_OK;
}

static const struct mrc_test_case cases[] = {
	MRC_TEST_CASE(test_cfg),
	MRC_TEST_CASE(test_timing_exact),
	MRC_TEST_CASE(test_ev_routing),
	MRC_TEST_CASE(test_fifo_jitter),
	MRC_TEST_CASE(test_faults),
	MRC_TEST_CASE(test_burst_queue_ecn),
	MRC_TEST_CASE(test_burst_trim),
	MRC_TEST_CASE(test_trim_any_chain),
	MRC_TEST_CASE(test_burst_tail_drop),
	MRC_TEST_CASE(test_incast),
	MRC_TEST_CASE(test_control_class),
	MRC_TEST_CASE(test_loss),
	MRC_TEST_CASE(test_determinism),
	MRC_TEST_CASE(test_unparseable_and_free),
	MRC_TEST_CASE(test_shared_write),
	MRC_TEST_CASE(test_random_ops),
};

MRC_TEST_MAIN("sim", cases)
