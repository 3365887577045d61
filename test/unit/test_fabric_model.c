/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * The fabric's model in detail, through its ports: jitter (a link, and so
 * a path, never reorders; paths overtake each other; exact timing without
 * it; bounds and determinism with it), forced ECN marking of a path
 * (setter and scenario file, never on a NIC's own queue), the
 * configuration check, the NIC queue (plain tail drop, never a trim or a
 * mark), untrimmable data dropped at the limit, a poll at the clock's last
 * value, back-to-back and priority timing, faults hitting only later
 * packets, loss by element, time that does not go back, trimming chains
 * cut anywhere, and random operations against every knob with the
 * accounting checked at every step.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "mrc_test.h"
#include "test_fabric.h"

/* ---- jitter ---- */

struct arrival {
	uint64_t t;
	uint32_t psn;
};

/*
 * Receive what has arrived by `now` into out[*n] (the time it was seen),
 * stepping the fabric event by event up to `now`.
 */
static int
collect_until(struct mrc_fabric *f, const struct mrc_fabric_cfg *c, uint64_t now,
	struct arrival *out, unsigned int *n, unsigned int cap)
{
	for (;;) {
		uint64_t t = mrc_fabric_next_event_tsc(f);
		struct rte_mbuf *rx[64];
		unsigned int k;

		if (t > now)
			t = now;
		mrc_fabric_poll(f, t);
		k = rx_all(f, c, rx, RTE_DIM(rx), NULL, NULL);
		for (unsigned int i = 0; i < k; i++) {
			struct mrc_pkt v;

			MRC_T_EQ(mrc_pkt_parse(rx[i], &t_wire, &v), MRC_WIRE_OK);
			MRC_T_ASSERT(*n < cap, "room");
			out[(*n)++] = (struct arrival){.t = t, .psn = v.bth.psn};
		}
		free_all(rx, k);
		if (t == now && mrc_fabric_next_event_tsc(f) > now)
			return MRC_TEST_OK;
	}
}

enum { J_N = 400, J_SPACING = 100, J_PATHS = 4 };

/* 400 frames 100 ns apart from host 0 to host 1 over 4 T1s, path = psn % 4. */
static int
jitter_run(uint32_t jitter_ns, uint64_t seed, struct arrival *got, uint64_t *base_ns)
{
	struct mrc_fabric_cfg c;
	struct mrc_fabric *f;
	unsigned int n = 0;
	uint32_t len = 0;

	mrc_fabric_cfg_defaults(&c);
	c.n_planes = 1;
	c.n_t1 = J_PATHS;
	c.link_jitter_ns = jitter_ns;
	c.seed = seed;
	f = mkfab(&c);
	MRC_T_ASSERT(f != NULL, "fabric");
	mrc_fabric_start(f, 0);
	for (uint32_t i = 0; i < J_N; i++) {
		const struct spec sp = {
			.src = 0, .dst = 1, .uplink = i % J_PATHS, .payload = 256, .psn = i};
		struct rte_mbuf *m;

		MRC_T_RUN(collect_until(f, &c, (uint64_t)i * J_SPACING, got, &n, J_N));
		m = mk(&c, &sp);
		MRC_T_ASSERT(m != NULL, "built");
		len = m->pkt_len;
		MRC_T_EQ(rte_eth_tx_burst(mrc_fabric_port(f, 0, 0), 0, &m, 1), 1);
	}
	MRC_T_RUN(collect_until(f, &c, 1000 * 1000 * US, got, &n, J_N));
	MRC_T_EQ(n, J_N);
	/* 4 links of serialisation (80 ps per byte) and 1 us each, rounded up to a whole ns. */
	*base_ns = (4 * ((uint64_t)(len + 24) * 80 + 1000000) + 999) / 1000;
	mrc_fabric_free(f);
	return check_no_leak();
}

int
test_jitter_keeps_paths_in_order(void)
{
	static struct arrival a[J_N], b[J_N], d[J_N];
	uint64_t base;
	unsigned int crossings = 0;

	MRC_T_RUN(setup());
	/* Without jitter: every frame exactly one unloaded path delay after it was sent. */
	MRC_T_RUN(jitter_run(0, 11, a, &base));
	for (unsigned int i = 0; i < J_N; i++) {
		MRC_T_EQ(a[i].psn, i);
		MRC_T_U64_EQ(a[i].t, (uint64_t)i * J_SPACING + base);
	}
	/* With 3 us per link: within 4 x 3 us of it, each path in order, paths overtake. */
	MRC_T_RUN(jitter_run(3000, 11, a, &base));
	uint32_t last[J_PATHS];

	memset(last, 0xff, sizeof(last));
	for (unsigned int i = 0; i < J_N; i++) {
		const uint32_t psn = a[i].psn, path = psn % J_PATHS;
		const uint64_t lo = (uint64_t)psn * J_SPACING + base;

		MRC_T_ASSERT(last[path] == UINT32_MAX || psn > last[path],
			"path %u: psn %u after %u", path, psn, last[path]);
		last[path] = psn;
		MRC_T_ASSERT(a[i].t >= lo && a[i].t <= lo + 4 * 3000, "psn %u at %llu, sent %llu",
			psn, (unsigned long long)a[i].t, (unsigned long long)(psn * J_SPACING));
		if (i > 0 && psn < a[i - 1].psn)
			crossings++;
	}
	MRC_T_ASSERT(crossings > 10, "paths overtake each other (%u)", crossings);
	/* Same seed, same arrivals; another seed, others. */
	MRC_T_RUN(jitter_run(3000, 11, b, &base));
	MRC_T_MEMEQ(a, b, sizeof(a));
	MRC_T_RUN(jitter_run(3000, 12, d, &base));
	MRC_T_ASSERT(memcmp(a, d, sizeof(a)) != 0, "another seed, other delays");
	printf("  3 us of jitter per link: %u of %u frames overtook one of another path\n",
		crossings, J_N);
	return MRC_TEST_OK;
}

/* ---- forced ECN marking ---- */

/* Send 40 ECT frames (and 40 not ECT) host `src` -> `dst` over T1 psn % 4; count CE. */
static int
mark_round(struct mrc_fabric *f, const struct mrc_fabric_cfg *c, unsigned int src, unsigned int dst,
	uint64_t *now, unsigned int ce_by_t1[4], unsigned int *ce_not_ect)
{
	struct rte_mbuf *rx[128];
	unsigned int n;

	memset(ce_by_t1, 0, 4 * sizeof(*ce_by_t1));
	*ce_not_ect = 0;
	for (uint32_t k = 0; k < 80; k++) {
		const struct spec sp = {.src = src,
			.dst = dst,
			.uplink = k % 4,
			.payload = 128,
			.psn = k,
			.ecn = k < 40 ? MRC_ECN_ECT0 : MRC_ECN_NOT_ECT};

		MRC_T_RUN(send_spec(f, c, &sp));
		*now += 50; /* no queue anywhere */
		mrc_fabric_poll(f, *now);
	}
	run_idle(f, now);
	n = rx_all(f, c, rx, RTE_DIM(rx), NULL, NULL);
	MRC_T_EQ(n, 80);
	for (unsigned int i = 0; i < n; i++) {
		struct mrc_pkt v;

		MRC_T_EQ(mrc_pkt_parse(rx[i], &t_wire, &v), MRC_WIRE_OK);
		if (v.outer.ecn != MRC_ECN_CE)
			continue;
		if (v.bth.psn < 40)
			ce_by_t1[v.bth.psn % 4]++;
		else
			(*ce_not_ect)++;
	}
	free_all(rx, n);
	return MRC_TEST_OK;
}

int
test_forced_mark(void)
{
	struct mrc_fabric_cfg c;
	struct mrc_fabric *f;
	struct mrc_fabric_switch_counters sw;
	const struct mrc_fabric_event *log;
	unsigned int ce[4], ce_not_ect, n_log;
	char text[96], path[64];
	uint64_t now = 0;

	MRC_T_RUN(setup());
	mrc_fabric_cfg_defaults(&c);
	c.n_planes = 1;
	f = mkfab(&c);
	MRC_T_ASSERT(f != NULL, "fabric");
	mrc_fabric_start(f, 0);
	const struct mrc_fabric_target t1 = {.elem = MRC_FABRIC_ELEM_T1, .plane = 0, .a = 2};

	/* Nothing queues: no marks at all. */
	MRC_T_RUN(mark_round(f, &c, 0, 1, &now, ce, &ce_not_ect));
	MRC_T_EQ(ce[0] + ce[1] + ce[2] + ce[3] + ce_not_ect, 0);
	/* T1 2 marks everything ECT it sends on, and only that. */
	MRC_T_EQ(mrc_fabric_set_mark(f, &t1, 1.0), 0);
	MRC_T_RUN(mark_round(f, &c, 0, 1, &now, ce, &ce_not_ect));
	MRC_T_EQ(ce[2], 10);
	MRC_T_EQ(ce[0] + ce[1] + ce[3] + ce_not_ect, 0);
	MRC_T_EQ(mrc_fabric_switch_stats(f, 1, 0, 2, &sw), 0);
	MRC_T_EQ(sw.ecn_marks, 10);
	MRC_T_EQ(mrc_fabric_counters(f)->ecn_marks, 10);
	n_log = mrc_fabric_event_log(f, &log);
	MRC_T_ASSERT(n_log > 0, "logged");
	mrc_fabric_event_format(text, sizeof(text), &log[n_log - 1]);
	MRC_T_STREQ(text, "plane 0 t1 2 mark 1");
	/* Half: about half, and the draws are the fabric's seed's. */
	MRC_T_EQ(mrc_fabric_set_mark(f, &t1, 0.5), 0);
	for (int r = 0; r < 5; r++)
		MRC_T_RUN(mark_round(f, &c, 0, 1, &now, ce, &ce_not_ect));
	MRC_T_EQ(mrc_fabric_switch_stats(f, 1, 0, 2, &sw), 0);
	MRC_T_ASSERT(sw.ecn_marks > 10 + 10 && sw.ecn_marks < 10 + 40, "%llu of 50 marked at 0.5",
		(unsigned long long)(sw.ecn_marks - 10));
	MRC_T_EQ(mrc_fabric_set_mark(f, &t1, 0.0), 0);
	MRC_T_RUN(mark_round(f, &c, 0, 1, &now, ce, &ce_not_ect));
	MRC_T_EQ(ce[0] + ce[1] + ce[2] + ce[3] + ce_not_ect, 0);
	/* A host cable: its T0 -> host side marks; the NIC's own queue never does. */
	const struct mrc_fabric_target cable = {.elem = MRC_FABRIC_ELEM_HOST_LINK, .a = 0};

	MRC_T_EQ(mrc_fabric_set_mark(f, &cable, 1.0), 0);
	MRC_T_RUN(mark_round(f, &c, 0, 1, &now, ce, &ce_not_ect));
	MRC_T_EQ(ce[0] + ce[1] + ce[2] + ce[3], 0);
	MRC_T_RUN(mark_round(f, &c, 1, 0, &now, ce, &ce_not_ect));
	MRC_T_EQ(ce[0] + ce[1] + ce[2] + ce[3], 40);
	MRC_T_EQ(ce_not_ect, 0);
	MRC_T_EQ(mrc_fabric_set_mark(f, &cable, 0.0), 0);
	/* Bad arguments. */
	MRC_T_EQ(mrc_fabric_set_mark(f, &t1, 1.5), -EINVAL);
	MRC_T_EQ(mrc_fabric_set_mark(f, &t1, -0.1), -EINVAL);
	const struct mrc_fabric_target bad = {.elem = MRC_FABRIC_ELEM_T1, .plane = 0, .a = 4};

	MRC_T_EQ(mrc_fabric_set_mark(f, &bad, 1.0), -EINVAL);
	/* From a scenario file: T1 1 marks from 1 ms on. */
	snprintf(path, sizeof(path), "/tmp/test_fabric_mark_%d.ini", (int)getpid());
	MRC_T_EQ(write_file(path, "[event.m]\nat = 1ms\nelement = t1\nplane = 0\nt1 = 1\naction = "
				  "mark\nmark = 1\n"),
		0);
	MRC_T_EQ(mrc_fabric_load_scenario(f, path, NULL), 1);
	unlink(path);
	MRC_T_ASSERT(now < 1000 * US, "before the event");
	MRC_T_RUN(mark_round(f, &c, 0, 1, &now, ce, &ce_not_ect));
	MRC_T_EQ(ce[0] + ce[1] + ce[2] + ce[3], 0);
	now = 1000 * US;
	MRC_T_RUN(mark_round(f, &c, 0, 1, &now, ce, &ce_not_ect));
	MRC_T_EQ(ce[1], 10);
	MRC_T_EQ(ce[0] + ce[2] + ce[3] + ce_not_ect, 0);
	mrc_fabric_free(f);
	return check_no_leak();
}

/* ---- configuration ---- */

int
test_cfg_check(void)
{
	struct mrc_fabric_cfg c, b;
	const char *why = NULL;

	mrc_fabric_cfg_defaults(&c);
	MRC_T_EQ(c.n_hosts, 2);
	MRC_T_EQ(c.n_planes, 8);
	MRC_T_EQ(c.n_t1, 4);
	MRC_T_EQ(c.link_delay_ns, 1000);
	MRC_T_EQ(c.link_jitter_ns, 0);
	MRC_T_EQ(c.queue_limit_bytes, 1000000);
	MRC_T_EQ(c.ecn_kmin_bytes, 25000);
	MRC_T_EQ(c.ecn_kmax_bytes, 100000);
	MRC_T_EQ(c.trim_threshold_bytes, 200000);
	MRC_T_EQ(mrc_fabric_cfg_check(&c, &why), -EINVAL); /* tsc_hz is the caller's */
	MRC_T_ASSERT(strstr(why, "tsc_hz") != NULL, "%s", why);
	c.tsc_hz = HZ;
	MRC_T_EQ(mrc_fabric_cfg_check(&c, &why), 0);
#define BAD(field, value, word)                                                  \
	do {                                                                     \
		b = c;                                                           \
		b.field = value;                                                 \
		why = NULL;                                                      \
		MRC_T_EQ(mrc_fabric_cfg_check(&b, &why), -EINVAL);               \
		MRC_T_ASSERT(why != NULL && strstr(why, word) != NULL, "%s: %s", \
			#field " = " #value, why != NULL ? why : "(none)");      \
	} while (0)
	BAD(n_hosts, 0, "n_hosts");
	BAD(n_hosts, 65, "n_hosts");
	BAD(n_planes, 0, "n_planes");
	BAD(n_planes, 9, "n_planes");
	BAD(hosts_per_t0, 0, "hosts_per_t0");
	BAD(hosts_per_t0, 3, "hosts_per_t0");
	BAD(n_t1, 0, "n_t1");
	BAD(link_gbps, 0.0, "link_gbps");
	BAD(link_delay_ns, 2000000000u, "link_delay_ns");
	BAD(link_jitter_ns, 2000000000u, "link_jitter_ns");
	BAD(queue_limit_bytes, 0, "queue_limit_bytes");
	BAD(ecn_kmin_bytes, 200000, "ecn_kmin_bytes");
	BAD(loss_prob, 1.5, "loss_prob");
	BAD(ring_size, 100, "ring_size");
	BAD(max_in_flight, 10, "max_in_flight");
	BAD(wire.dscp.trimmed, 64, "DSCP");
#undef BAD
	b = c;
	b.n_hosts = 5;
	b.n_planes = 8; /* 40 ports: more than this DPDK has */
	MRC_T_EQ(mrc_fabric_cfg_check(&b, &why), -EINVAL);
	b = c;
	memcpy(b.nic_addr[1], b.nic_addr[0], sizeof(b.nic_addr[0]));
	MRC_T_EQ(mrc_fabric_cfg_check(&b, &why), -EINVAL);
	MRC_T_ASSERT(strstr(why, "nic_addr") != NULL, "%s", why);
	return MRC_TEST_OK;
}

/* ---- the NIC's queue, and untrimmable data at a switch ---- */

/*
 * A burst of 1000 frames of 1186 wire bytes at once into host 0's own NIC
 * queue (1 MB): 843 fit, the rest is tail-dropped there; no trim and no
 * mark, whatever the thresholds say (a NIC is not a switch).
 */
int
test_nic_queue_plain(void)
{
	enum { N = 1000, FIT = 843 };
	struct mrc_fabric_cfg c;
	struct mrc_fabric *f;
	struct mrc_fabric_link_counters lc;
	struct rte_mbuf *rx[64];
	uint64_t now = 0, got = 0;
	uint32_t wire = 0;

	MRC_T_RUN(setup());
	mrc_fabric_cfg_defaults(&c);
	c.n_planes = 1;
	c.ring_size = 1024;
	f = mkfab(&c);
	MRC_T_ASSERT(f != NULL, "fabric");
	mrc_fabric_start(f, 0);
	for (uint32_t k = 0; k < N; k++) {
		const struct spec sp = {
			.src = 0, .dst = 1, .payload = 1024, .psn = k, .ecn = MRC_ECN_ECT0};
		struct rte_mbuf *m = mk(&c, &sp);

		MRC_T_ASSERT(m != NULL, "built");
		wire = m->pkt_len + 24;
		MRC_T_EQ(rte_eth_tx_burst(mrc_fabric_port(f, 0, 0), 0, &m, 1), 1);
		if (k % 500 == 499)
			mrc_fabric_poll(f, now); /* the tx ring holds 1024 */
	}
	MRC_T_ASSERT(FIT * wire <= 1000000 && (FIT + 1) * wire > 1000000, "%u per MB", wire);
	for (;;) {
		uint64_t t = mrc_fabric_next_event_tsc(f);
		unsigned int n;

		mrc_fabric_poll(f, now);
		n = rx_all(f, &c, rx, RTE_DIM(rx), NULL, NULL);
		for (unsigned int i = 0; i < n; i++) {
			struct mrc_pkt v;

			MRC_T_EQ(mrc_pkt_parse(rx[i], &t_wire, &v), MRC_WIRE_OK);
			MRC_T_EQ(v.outer.ecn, MRC_ECN_ECT0);
			MRC_T_ASSERT(!(v.flags & MRC_PKT_F_TRIMMED), "trimmed");
		}
		got += n;
		free_all(rx, n);
		if (t == UINT64_MAX)
			break;
		now = RTE_MAX(now, t);
	}
	const struct mrc_fabric_link_id up = {.kind = MRC_FABRIC_LINK_HOST_UP, .a = 0};

	MRC_T_EQ(mrc_fabric_link_stats(f, &up, &lc), 0);
	MRC_T_EQ(lc.drop_queue, N - FIT);
	MRC_T_EQ(lc.queue_peak_bytes, FIT * wire);
	MRC_T_EQ(lc.trims + lc.ecn_marks, 0);
	MRC_T_EQ(got, FIT);
	MRC_T_EQ(mrc_fabric_counters(f)->trims + mrc_fabric_counters(f)->ecn_marks, 0);
	mrc_fabric_free(f);
	return check_no_leak();
}

/*
 * Two hosts into one at once (the last hop 2:1): data the sender marked
 * not trimmable (DSCP no_trim) is dropped at the queue limit though
 * trimming is on; trimmable data is trimmed instead, even past the limit.
 */
static int
untrimmable_round(bool no_trim, uint64_t *trims, uint64_t *drops, uint64_t *got)
{
	struct mrc_fabric_cfg c;
	struct mrc_fabric *f;
	struct rte_mbuf *rx[256];
	uint64_t now = 0;
	unsigned int n;

	mrc_fabric_cfg_defaults(&c);
	c.n_hosts = 3;
	c.n_planes = 1;
	c.queue_limit_bytes = 100000;
	c.trim_threshold_bytes = 400000; /* above the limit: only the limit can trim */
	c.ring_size = 1024;
	f = mkfab(&c);
	MRC_T_ASSERT(f != NULL, "fabric");
	*got = 0;
	for (uint32_t k = 0; k < 300; k++) {
		for (unsigned int h = 0; h < 2; h++) {
			const struct spec sp = {.src = h,
				.dst = 2,
				.uplink = h,
				.payload = 1024,
				.psn = k,
				.no_trim = no_trim};

			MRC_T_RUN(send_spec(f, &c, &sp));
		}
		now += 95; /* each sender at line rate */
		mrc_fabric_poll(f, now);
		n = rx_all(f, &c, rx, RTE_DIM(rx), NULL, NULL);
		*got += n;
		free_all(rx, n);
	}
	run_idle(f, &now);
	n = rx_all(f, &c, rx, RTE_DIM(rx), NULL, NULL);
	*got += n;
	free_all(rx, n);
	*trims = mrc_fabric_counters(f)->trims;
	*drops = mrc_fabric_counters(f)->drop_queue;
	MRC_T_EQ(*got + *drops, 600);
	mrc_fabric_free(f);
	return check_no_leak();
}

int
test_untrimmable_dropped_trimmable_trimmed(void)
{
	uint64_t trims, drops, got;

	MRC_T_RUN(setup());
	MRC_T_RUN(untrimmable_round(true, &trims, &drops, &got));
	MRC_T_EQ(trims, 0);
	MRC_T_ASSERT(drops > 100, "%llu dropped", (unsigned long long)drops);
	MRC_T_RUN(untrimmable_round(false, &trims, &drops, &got));
	MRC_T_EQ(drops, 0);
	MRC_T_ASSERT(trims > 100, "%llu trimmed", (unsigned long long)trims);
	MRC_T_EQ(got, 600);
	return MRC_TEST_OK;
}

/*
 * A poll whose time is the largest the clock can say (a loop that drains
 * "until the end") has nothing more to do than any other: it delivers what
 * is in flight and applies no fault that is not there. It once took
 * "no fault pending" and "no packet pending" (both UINT64_MAX) for due.
 */
int
test_poll_at_the_end_of_time(void)
{
	struct mrc_fabric_cfg c;
	struct mrc_fabric *f;
	struct rte_mbuf *rx[2];

	MRC_T_RUN(setup());
	mrc_fabric_cfg_defaults(&c);
	c.n_planes = 1;
	f = mkfab(&c);
	MRC_T_ASSERT(f != NULL, "fabric");
	mrc_fabric_start(f, 0);
	MRC_T_EQ(mrc_fabric_poll(f, UINT64_MAX - 1), 0);
	MRC_T_EQ(mrc_fabric_counters(f)->events_applied, 0);
	const struct spec sp = {.src = 0, .dst = 1, .payload = 64};

	MRC_T_RUN(send_spec(f, &c, &sp));
	mrc_fabric_poll(f, UINT64_MAX);
	mrc_fabric_poll(f, UINT64_MAX);
	MRC_T_EQ(rx_all(f, &c, rx, 2, NULL, NULL), 1);
	free_all(rx, 1);
	MRC_T_EQ(mrc_fabric_in_flight(f), 0);
	MRC_T_EQ(mrc_fabric_counters(f)->events_applied, 0);
	mrc_fabric_free(f);
	return check_no_leak();
}

/* ---- timing details ---- */

/* Receive the one packet due at exactly `t_ns`: none at t - 1. */
static int
expect_at(struct mrc_fabric *f, const struct mrc_fabric_cfg *c, uint64_t t_ns, uint32_t psn)
{
	struct rte_mbuf *rx[2];
	struct mrc_pkt v;

	mrc_fabric_poll(f, t_ns - 1);
	MRC_T_EQ(rx_all(f, c, rx, 2, NULL, NULL), 0);
	mrc_fabric_poll(f, t_ns);
	MRC_T_EQ(rx_all(f, c, rx, 2, NULL, NULL), 1);
	MRC_T_EQ(mrc_pkt_parse(rx[0], &t_wire, &v), MRC_WIRE_OK);
	MRC_T_EQ(v.bth.psn, psn);
	free_all(rx, 1);
	return MRC_TEST_OK;
}

/*
 * Two frames sent back to back on one path: the second arrives exactly one
 * serialisation after the first (store and forward at line rate, no other
 * wait). Two hosts on one T0: two links, no T1. A control frame in the
 * priority queue (control_priority) takes real link time: a data frame
 * sent right behind it on an idle path is one control serialisation late.
 */
int
test_back_to_back_timing(void)
{
	struct mrc_fabric_cfg c;
	struct mrc_fabric *f;
	struct rte_mbuf *m[2];
	uint64_t ser_ps, ctl_ps;

	MRC_T_RUN(setup());
	mrc_fabric_cfg_defaults(&c);
	c.n_hosts = 3;
	c.n_planes = 1;
	c.hosts_per_t0 = 2;
	c.control_priority = true;
	f = mkfab(&c);
	MRC_T_ASSERT(f != NULL, "fabric");
	mrc_fabric_start(f, 0);
	const struct spec far = {.src = 0, .dst = 2, .uplink = 1, .payload = 1024};
	const struct spec near = {.src = 1, .dst = 0, .payload = 1024, .psn = 7};

	for (int k = 0; k < 2; k++) {
		struct spec s = far;

		s.psn = (uint32_t)k + 1;
		m[k] = mk(&c, &s);
		MRC_T_ASSERT(m[k] != NULL, "built");
	}
	ser_ps = (uint64_t)(m[0]->pkt_len + 24) * 80;
	MRC_T_EQ(rte_eth_tx_burst(mrc_fabric_port(f, 0, 0), 0, m, 2), 2);
	mrc_fabric_poll(f, 0); /* taken (and stamped) at 0 */
	MRC_T_RUN(expect_at(f, &c, (4 * (ser_ps + 1000000) + 999) / 1000, 1));
	MRC_T_RUN(expect_at(f, &c, (4 * (ser_ps + 1000000) + ser_ps + 999) / 1000, 2));
	/* Within a T0: two links. */
	const uint64_t t0 = 100000;

	mrc_fabric_poll(f, t0);
	MRC_T_RUN(send_spec(f, &c, &near));
	mrc_fabric_poll(f, t0);
	MRC_T_RUN(expect_at(f, &c, t0 + (2 * (ser_ps + 1000000) + 999) / 1000, 7));
	/* A priority control frame, then data, both at once on an idle path. */
	const uint64_t t1 = 200000;
	const struct spec ctl = {.src = 0,
		.dst = 2,
		.uplink = 1,
		.payload = 64,
		.psn = 8,
		.dscp = t_wire.dscp.control};
	struct spec data = far;

	data.psn = 9;
	mrc_fabric_poll(f, t1);
	m[0] = mk(&c, &ctl);
	m[1] = mk(&c, &data);
	MRC_T_ASSERT(m[0] != NULL && m[1] != NULL, "built");
	ctl_ps = (uint64_t)(m[0]->pkt_len + 24) * 80;
	MRC_T_EQ(rte_eth_tx_burst(mrc_fabric_port(f, 0, 0), 0, m, 2), 2);
	mrc_fabric_poll(f, t1);
	MRC_T_RUN(expect_at(f, &c, t1 + (4 * (ctl_ps + 1000000) + 999) / 1000, 8));
	MRC_T_RUN(expect_at(f, &c, t1 + (ctl_ps + 4 * (ser_ps + 1000000) + 999) / 1000, 9));
	mrc_fabric_free(f);
	return check_no_leak();
}

/* ---- faults in time, loss by element, time that does not go back ---- */

/* Send one frame from `src` to `dst` over T1 `u` at *now; run to idle; frames received. */
static unsigned int
one(struct mrc_fabric *f, const struct mrc_fabric_cfg *c, unsigned int src, unsigned int dst,
	unsigned int u, uint64_t *now)
{
	const struct spec sp = {.src = src, .dst = dst, .uplink = u, .payload = 256};
	struct rte_mbuf *rx[4];
	unsigned int n;

	if (send_spec(f, c, &sp) != MRC_TEST_OK)
		return 99;
	run_idle(f, now);
	n = rx_all(f, c, rx, 4, NULL, NULL);
	free_all(rx, n);
	*now += 10000;
	return n;
}

/*
 * A change hits the packets that reach the element after it, never one
 * already past it: a frame 500 ns out dies on a T1 -> T0 link taken down
 * then; one already on the last link when that goes down arrives. A T0
 * down cuts both ways through it. Loss set on a T1 covers its egress
 * links, and only those. A poll with an earlier time counts as the latest
 * time seen.
 */
int
test_faults_in_time(void)
{
	struct mrc_fabric_cfg c;
	struct mrc_fabric *f;
	uint64_t now = 0;

	MRC_T_RUN(setup());
	mrc_fabric_cfg_defaults(&c);
	c.n_hosts = 3;
	c.n_planes = 1;
	c.n_t1 = 2;
	f = mkfab(&c);
	MRC_T_ASSERT(f != NULL, "fabric");
	mrc_fabric_start(f, 0);
	const struct spec sp = {.src = 0, .dst = 1, .payload = 256};
	const struct mrc_fabric_target t1t0 = {.elem = MRC_FABRIC_ELEM_LINK,
		.dir = MRC_FABRIC_DIR_DOWN,
		.plane = 0,
		.a = 1,
		.b = 0};
	const struct mrc_fabric_target last = {
		.elem = MRC_FABRIC_ELEM_HOST_LINK, .dir = MRC_FABRIC_DIR_DOWN, .plane = 0, .a = 1};
	struct rte_mbuf *rx[2];

	/* 500 ns out it is on host 0's link: the T1 -> T0 link it will need goes down. */
	MRC_T_RUN(send_spec(f, &c, &sp));
	mrc_fabric_poll(f, now);
	mrc_fabric_poll(f, now + 500);
	MRC_T_EQ(mrc_fabric_set_state(f, &t1t0, MRC_FABRIC_DOWN), 0);
	run_idle(f, &now);
	MRC_T_EQ(rx_all(f, &c, rx, 2, NULL, NULL), 0);
	MRC_T_EQ(mrc_fabric_counters(f)->drop_down, 1);
	MRC_T_EQ(mrc_fabric_set_state(f, &t1t0, MRC_FABRIC_UP), 0);
	/* On the last link already (3 hops = 3.3 us): taking it down does not recall it. */
	now += 10000;
	MRC_T_RUN(send_spec(f, &c, &sp));
	mrc_fabric_poll(f, now);
	mrc_fabric_poll(f, now + 3500);
	MRC_T_EQ(mrc_fabric_set_state(f, &last, MRC_FABRIC_DOWN), 0);
	run_idle(f, &now);
	MRC_T_EQ(rx_all(f, &c, rx, 2, NULL, NULL), 1);
	free_all(rx, 1);
	MRC_T_EQ(mrc_fabric_counters(f)->drop_down, 1);
	MRC_T_EQ(mrc_fabric_set_state(f, &last, MRC_FABRIC_UP), 0);
	now += 10000;
	/* T0 1 down: nothing reaches host 1, nothing leaves it; host 0 <-> 2 works. */
	const struct mrc_fabric_target t0 = {.elem = MRC_FABRIC_ELEM_T0, .plane = 0, .a = 1};

	MRC_T_EQ(mrc_fabric_set_state(f, &t0, MRC_FABRIC_DOWN), 0);
	MRC_T_ASSERT(!mrc_fabric_port_up(f, 1, 0) && mrc_fabric_port_up(f, 0, 0), "host 1 cut");
	MRC_T_EQ(one(f, &c, 0, 1, 0, &now), 0);
	MRC_T_EQ(one(f, &c, 1, 0, 0, &now), 0);
	MRC_T_EQ(one(f, &c, 0, 2, 0, &now), 1);
	MRC_T_EQ(one(f, &c, 2, 0, 1, &now), 1);
	MRC_T_EQ(mrc_fabric_set_state(f, &t0, MRC_FABRIC_UP), 0);
	/* Loss 1 on T1 1: every frame through it, none through T1 0. */
	const struct mrc_fabric_target t1 = {.elem = MRC_FABRIC_ELEM_T1, .plane = 0, .a = 1};
	const uint64_t lost0 = mrc_fabric_counters(f)->drop_loss;

	MRC_T_EQ(mrc_fabric_set_loss(f, &t1, 1.0), 0);
	for (unsigned int k = 0; k < 8; k++)
		MRC_T_EQ(one(f, &c, k % 3, (k + 1) % 3, k % 2, &now), k % 2 ? 0u : 1u);
	MRC_T_EQ(mrc_fabric_counters(f)->drop_loss - lost0, 4);
	MRC_T_EQ(mrc_fabric_set_loss(f, &t1, 0.0), 0);
	/* Time does not go back: a poll "at 0" is a poll at the latest time seen. */
	MRC_T_RUN(send_spec(f, &c, &sp));
	mrc_fabric_poll(f, now);
	mrc_fabric_poll(f, now + 5000);
	mrc_fabric_poll(f, 0);
	MRC_T_EQ(mrc_fabric_now_ns(f), now + 5000);
	MRC_T_EQ(rx_all(f, &c, rx, 2, NULL, NULL), 1);
	free_all(rx, 1);
	mrc_fabric_free(f);
	return check_no_leak();
}

/* ---- trimming a chain cut anywhere ---- */

/* `m` copied into a chain of t_pool segments cut at `cuts` (offsets in the frame). */
static struct rte_mbuf *
rechain(struct rte_mbuf *m, const uint32_t *cuts, unsigned int n_cuts)
{
	static uint8_t flat[4096];
	const uint32_t len = m->pkt_len;
	struct rte_mbuf *head = NULL, *tail = NULL;
	uint32_t from = 0;

	if (len > sizeof(flat) || rte_pktmbuf_read(m, 0, len, flat) == NULL)
		return NULL;
	if (rte_pktmbuf_read(m, 0, len, flat) != flat)
		memcpy(flat, rte_pktmbuf_read(m, 0, len, flat), len);
	rte_pktmbuf_free(m);
	for (unsigned int i = 0; i <= n_cuts; i++) {
		const uint32_t to = i < n_cuts ? cuts[i] : len;
		struct rte_mbuf *s = rte_pktmbuf_alloc(t_pool);
		char *dst;

		if (s == NULL || (dst = rte_pktmbuf_append(s, (uint16_t)(to - from))) == NULL) {
			rte_pktmbuf_free(s);
			rte_pktmbuf_free(head);
			return NULL;
		}
		memcpy(dst, flat + from, to - from);
		if (head == NULL) {
			head = s;
		} else {
			tail->next = s;
			head->nb_segs++;
			head->pkt_len += s->data_len;
		}
		tail = s;
		from = to;
	}
	return head;
}

/*
 * Trimming a chain cut inside the transport headers, at the payload's
 * first byte, inside the payload, or not at all (the fabric needs the
 * Ethernet and outer IPv6 headers in the first segment: the cuts start
 * after them). Host 2's full frame and, 10 ns behind it, host 0's chained
 * one meet at T1 0 -> host 1's T0: with anything queued trimmed, the chain
 * is trimmed there and its headers overtake the full frame.
 */
int
test_trim_any_chain(void)
{
	static const uint32_t cut_sets[][4] = {{0}, {100, 130, 600}, {140}, {146, 1000}};
	static const unsigned int n_cuts[] = {0, 3, 1, 2};
	struct mrc_fabric_cfg c;
	struct mrc_fabric *f;

	MRC_T_RUN(setup());
	mrc_fabric_cfg_defaults(&c);
	c.n_hosts = 3;
	c.n_planes = 1;
	c.trim_threshold_bytes = 1; /* anything queued ahead: trim */
	f = mkfab(&c);
	MRC_T_ASSERT(f != NULL, "fabric");
	mrc_fabric_start(f, 0);
	for (unsigned int k = 0; k < RTE_DIM(cut_sets); k++) {
		const struct spec first = {.src = 2, .dst = 1, .payload = 1024, .psn = 1};
		const struct spec second = {.src = 0, .dst = 1, .payload = 1024, .psn = 2};
		struct rte_mbuf *m[2], *rx[4];
		struct mrc_pkt v, w;
		uint64_t now = (k + 1) * 100000;
		uint32_t full_len;

		m[0] = mk(&c, &first);
		m[1] = mk(&c, &second);
		MRC_T_ASSERT(m[0] != NULL && m[1] != NULL, "built");
		full_len = m[1]->pkt_len;
		MRC_T_EQ(mrc_pkt_parse(m[1], &t_wire, &w), MRC_WIRE_OK);
		m[1] = rechain(m[1], cut_sets[k], n_cuts[k]);
		MRC_T_ASSERT(m[1] != NULL, "chain %u", k);
		MRC_T_EQ(m[1]->nb_segs, n_cuts[k] + 1);
		MRC_T_EQ(m[1]->pkt_len, full_len);
		mrc_fabric_poll(f, now);
		MRC_T_EQ(rte_eth_tx_burst(mrc_fabric_port(f, 2, 0), 0, &m[0], 1), 1);
		mrc_fabric_poll(f, now);
		MRC_T_EQ(rte_eth_tx_burst(mrc_fabric_port(f, 0, 0), 0, &m[1], 1), 1);
		mrc_fabric_poll(f, now + 10);
		run_idle(f, &now);
		MRC_T_EQ(rx_all(f, &c, rx, 4, NULL, NULL), 2);
		MRC_T_EQ(mrc_pkt_parse(rx[0], &t_wire, &v), MRC_WIRE_OK);
		MRC_T_EQ(v.bth.psn, 2); /* the trimmed one overtook */
		MRC_T_ASSERT(v.flags & MRC_PKT_F_TRIMMED, "set %u trimmed", k);
		MRC_T_EQ(v.payload_len, 0);
		MRC_T_EQ(rx[0]->pkt_len, w.payload_off);
		MRC_T_EQ(v.outer.payload_len, w.payload_off - w.l3_off - 40);
		MRC_T_EQ(v.outer.dscp, t_wire.dscp.trimmed);
		MRC_T_EQ(mrc_pkt_parse(rx[1], &t_wire, &v), MRC_WIRE_OK);
		MRC_T_EQ(v.payload_len, 1024);
		free_all(rx, 2);
	}
	MRC_T_EQ(mrc_fabric_counters(f)->trims, RTE_DIM(cut_sets));
	mrc_fabric_free(f);
	return check_no_leak(); /* the cut-off payload and ICRC segments were freed */
}

/* ---- everything at once ---- */

static uint64_t
all_drops(const struct mrc_fabric_counters *fc)
{
	uint64_t d = 0;

	for (unsigned int i = 0; i < mrc_fabric_counters_count; i++)
		if (strncmp(mrc_fabric_counters_desc[i].name, "drop_", 5) == 0)
			d += mrc_fabric_counters_get(fc, i);
	return d;
}

/*
 * Random operations against every knob at once: sends of every kind
 * (SRv6 and structured EV, chains, every DSCP and ECN, bursts), polls
 * (now and then with a time in the past), receptions, faults, loss and
 * marks coming and going. At every step the accounting holds (taken from
 * the hosts = delivered + dropped + inside) and nothing is pending without
 * packets inside; every received frame parses, its chain is whole and it
 * came to a port of the host it was for; at the end every mbuf is back.
 */
int
test_random_ops(void)
{
	struct mrc_fabric_cfg c;
	struct mrc_fabric *f;
	struct mrc_rand r;
	struct rte_mbuf *rx[64];
	unsigned int rh[64], bad = 0, broken = 0;
	uint64_t now = 0;

	MRC_T_RUN(setup());
	mrc_fabric_cfg_defaults(&c);
	c.n_hosts = 5;
	c.n_planes = 3;
	c.n_t1 = 3;
	c.hosts_per_t0 = 2;
	c.link_jitter_ns = 300;
	c.queue_limit_bytes = 60000;
	c.ecn_kmin_bytes = 5000;
	c.ecn_kmax_bytes = 20000;
	c.trim_threshold_bytes = 30000;
	c.loss_prob = 0.01;
	c.ring_size = 256;
	c.seed = 1234;
	f = mkfab(&c);
	MRC_T_ASSERT(f != NULL, "fabric");
	mrc_fabric_start(f, 0);
	const struct mrc_fabric_counters *fc = mrc_fabric_counters(f);

	mrc_rand_seed(&r, 99);
	for (unsigned int i = 0; i < 20000; i++) {
		const uint32_t op = (uint32_t)mrc_rand_bounded(&r, 100);
		const unsigned int a = (unsigned int)mrc_rand_bounded(&r, c.n_hosts);
		const unsigned int pl = (unsigned int)mrc_rand_bounded(&r, c.n_planes);

		if (op < 60) {
			const uint8_t dscps[] = {
				0, t_wire.dscp.trimmable_retx, t_wire.dscp.control};
			struct spec s = {.src = a,
				.dst = (a + 1 + (unsigned int)mrc_rand_bounded(&r, c.n_hosts - 1)) %
				       c.n_hosts,
				.plane = pl,
				.uplink = (unsigned int)mrc_rand_bounded(&r, 8),
				.payload = (uint32_t)mrc_rand_bounded(&r, 1500),
				.psn = i,
				.dscp = dscps[mrc_rand_bounded(&r, 3)],
				.no_trim = mrc_rand_bounded(&r, 5) == 0,
				.ecn = (uint8_t)mrc_rand_bounded(&r, 3),
				.plain = mrc_rand_bounded(&r, 10) == 0,
				.chain = mrc_rand_bounded(&r, 4) == 0};
			/* Now and then a burst from three hosts into one, to fill queues. */
			const unsigned int n = mrc_rand_bounded(&r, 20) ? 1 : 90;

			if (n > 1)
				s.payload = 1400;

			for (unsigned int j = 0; j < n; j++) {
				struct rte_mbuf *m = mk(&c, &s);

				if (m == NULL)
					break; /* the pool is busy: the test holds too much */
				if (rte_eth_tx_burst(mrc_fabric_port(f, s.src, pl), 0, &m, 1) != 1)
					rte_pktmbuf_free(m); /* a full tx ring, as a NIC's */
				if (n > 1) {
					s.src = (s.src + 1) % c.n_hosts;
					s.src = s.src == s.dst ? (s.src + 1) % c.n_hosts : s.src;
				}
			}
		} else if (op < 80) {
			now += mrc_rand_bounded(&r, 3000);
			mrc_fabric_poll(f, mrc_rand_bounded(&r, 50) ? now : now / 2);
		} else if (op < 92) {
			unsigned int n = rx_all(f, &c, rx, RTE_DIM(rx), rh, NULL);

			for (unsigned int j = 0; j < n; j++) {
				struct mrc_pkt v;
				uint32_t len = 0;
				uint16_t segs = 0;

				for (const struct rte_mbuf *s = rx[j]; s != NULL; s = s->next) {
					len += s->data_len;
					segs++;
				}
				broken += len != rx[j]->pkt_len || segs != rx[j]->nb_segs;
				bad += mrc_pkt_parse(rx[j], &t_wire, &v) != MRC_WIRE_OK ||
				       memcmp(v.ip.dst, c.nic_addr[rh[j]], 16) != 0;
			}
			free_all(rx, n);
		} else if (op < 99) {
			static const uint8_t elems[] = {MRC_FABRIC_ELEM_PLANE, MRC_FABRIC_ELEM_T0,
				MRC_FABRIC_ELEM_T1, MRC_FABRIC_ELEM_LINK,
				MRC_FABRIC_ELEM_HOST_LINK};
			const struct mrc_fabric_target t = {
				.elem = elems[mrc_rand_bounded(&r, RTE_DIM(elems))],
				.dir = (uint8_t)mrc_rand_bounded(&r, 3),
				.plane = (uint8_t)pl,
				.a = (uint16_t)mrc_rand_bounded(&r, 3),
				.b = (uint16_t)mrc_rand_bounded(&r, 3)};
			const unsigned int what = (unsigned int)mrc_rand_bounded(&r, 4);

			/* Mostly UP, so traffic keeps flowing. */
			if (what == 0)
				(void)mrc_fabric_set_state(f, &t,
					mrc_rand_bounded(&r, 3)
						? MRC_FABRIC_UP
						: (enum mrc_fabric_state)(
							  1 + mrc_rand_bounded(&r, 2)));
			else if (what == 1)
				(void)mrc_fabric_set_loss(f, &t, mrc_rand_unit(&r) * 0.05);
			else if (what == 2)
				(void)mrc_fabric_set_mark(f, &t, mrc_rand_unit(&r) * 0.5);
			else
				(void)mrc_fabric_set_state(f, &t, MRC_FABRIC_UP);
		} else {
			/* Heal everything, so faults come and go. */
			const struct mrc_fabric_target all = {.elem = MRC_FABRIC_ELEM_FABRIC};

			MRC_T_EQ(mrc_fabric_set_state(f, &all, MRC_FABRIC_UP), 0);
			for (unsigned int p = 0; p < c.n_planes; p++)
				for (unsigned int e = MRC_FABRIC_ELEM_T0; e <= MRC_FABRIC_ELEM_T1;
					e++)
					for (unsigned int x = 0; x < 3; x++) {
						const struct mrc_fabric_target t = {
							.elem = (uint8_t)e,
							.plane = (uint8_t)p,
							.a = (uint16_t)x};

						(void)mrc_fabric_set_state(f, &t, MRC_FABRIC_UP);
					}
		}
		MRC_T_ASSERT(fc->host_tx_pkts ==
				     fc->delivered_pkts + all_drops(fc) + mrc_fabric_in_flight(f),
			"step %u: %llu taken, %llu delivered, %llu dropped, %u inside", i,
			(unsigned long long)fc->host_tx_pkts,
			(unsigned long long)fc->delivered_pkts, (unsigned long long)all_drops(fc),
			mrc_fabric_in_flight(f));
		MRC_T_ASSERT(
			mrc_fabric_next_event_tsc(f) != UINT64_MAX || mrc_fabric_in_flight(f) == 0,
			"step %u: packets inside, nothing pending", i);
	}
	MRC_T_EQ(bad, 0);
	MRC_T_EQ(broken, 0);
	MRC_T_ASSERT(fc->delivered_pkts > 1000 && fc->trims > 0 && fc->ecn_marks > 0 &&
			     fc->drop_queue > 0 && fc->drop_loss > 0 && fc->drop_down > 0 &&
			     fc->drop_blackhole > 0,
		"the mix reaches every path through the model: %llu delivered, %llu trims, "
		"%llu marks, %llu queue drops, %llu lost, %llu down, %llu black-holed",
		(unsigned long long)fc->delivered_pkts, (unsigned long long)fc->trims,
		(unsigned long long)fc->ecn_marks, (unsigned long long)fc->drop_queue,
		(unsigned long long)fc->drop_loss, (unsigned long long)fc->drop_down,
		(unsigned long long)fc->drop_blackhole);
	printf("  20000 random operations: %llu frames taken, %llu delivered, %llu dropped, %llu "
	       "trimmed, %llu marked\n",
		(unsigned long long)fc->host_tx_pkts, (unsigned long long)fc->delivered_pkts,
		(unsigned long long)all_drops(fc), (unsigned long long)fc->trims,
		(unsigned long long)fc->ecn_marks);
	mrc_fabric_free(f); /* some are left inside: freed here */
	return check_no_leak();
}
