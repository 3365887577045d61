/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * The fabric's queues under load, through its ports: a 2:1 overload in
 * the middle of the fabric (the queue grows to the trim threshold, ECN
 * marks follow the Kmin..Kmax ramp, headers are trimmed, same seed same
 * marks) and at the last hop (trims marked last-hop, no ECN unless asked),
 * tail drop without trimming, a full host ring, random loss per link, and
 * freeing a fabric full of packets. Chained packets (an indirect payload
 * and a trailer, as QPs send) are trimmed too.
 */

#include <string.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "mrc_test.h"
#include "test_fabric.h"

struct overload {
	uint64_t trims, trims_lasthop, marks, peak, delivered, ce_early, ce_late, late;
	uint64_t rx_trimmed, rx_trimmed_lasthop, rx_trimmed_chained;
};

/*
 * Two hosts send 400 frames each at once. mid: hosts 0 and 1 (T0 0) to 2
 * and 3 (T0 1), both through T1 0, so T0 0 -> T1 0 is 2:1 overloaded.
 * last: hosts 0 and 1 both to host 2 over T1 0 and T1 1: the last hop is.
 */
static int
overload(bool last, bool ecn_last_hop, uint64_t seed, struct overload *o)
{
	struct mrc_fabric_cfg c;
	struct mrc_fabric *f;
	struct rte_mbuf *rx[1024];
	uint64_t now = 0;
	unsigned int n;

	memset(o, 0, sizeof(*o));
	mrc_fabric_cfg_defaults(&c);
	c.n_hosts = 4;
	c.n_planes = 1;
	c.hosts_per_t0 = 2;
	c.n_t1 = 2;
	c.seed = seed;
	c.ecn_last_hop = ecn_last_hop;
	f = mkfab(&c);
	MRC_T_ASSERT(f != NULL, "fabric");
	for (unsigned int k = 0; k < 400; k++)
		for (unsigned int h = 0; h < 2; h++) {
			const struct spec sp = {.src = h,
				.dst = last ? 2 : 2 + h,
				.uplink = last ? h : 0,
				.payload = 1500,
				.psn = k,
				.ecn = MRC_ECN_ECT0,
				.chain = h == 1};

			MRC_T_RUN(send_spec(f, &c, &sp));
		}
	run_idle(f, &now);
	n = rx_all(f, &c, rx, RTE_DIM(rx), NULL, NULL);
	MRC_T_EQ(n, 800); /* trimmed, not dropped */
	for (unsigned int i = 0; i < n; i++) {
		struct mrc_pkt v;

		MRC_T_EQ(mrc_pkt_parse(rx[i], &t_wire, &v), MRC_WIRE_OK);
		if (v.flags & MRC_PKT_F_TRIMMED) {
			o->rx_trimmed++;
			o->rx_trimmed_lasthop += !!(v.flags & MRC_PKT_F_TRIMMED_LASTHOP);
			MRC_T_EQ(v.payload_len, 0);
			MRC_T_EQ(rx[i]->pkt_len, v.payload_off);
			MRC_T_EQ(rx[i]->nb_segs, 1); /* payload and ICRC segments were freed */
			o->rx_trimmed_chained += v.ip.src[15] == 2; /* host 1 sends chains */
			continue;
		}
		MRC_T_EQ(v.payload_len, 1500);
		if (v.bth.psn < 10)
			o->ce_early += v.outer.ecn == MRC_ECN_CE;
		if (v.bth.psn >= 70 && v.bth.psn < 100) {
			o->late++;
			o->ce_late += v.outer.ecn == MRC_ECN_CE;
		}
	}
	free_all(rx, n);
	const struct mrc_fabric_counters *fc = mrc_fabric_counters(f);
	const struct mrc_fabric_link_id bottleneck =
		last ? (struct mrc_fabric_link_id){.kind = MRC_FABRIC_LINK_HOST_DOWN, .a = 2}
		     : (struct mrc_fabric_link_id){.kind = MRC_FABRIC_LINK_T0_T1, .a = 0, .b = 0};
	struct mrc_fabric_link_counters lc;

	MRC_T_EQ(mrc_fabric_link_stats(f, &bottleneck, &lc), 0);
	o->trims = fc->trims;
	o->trims_lasthop = fc->trims_lasthop;
	o->marks = fc->ecn_marks;
	o->peak = lc.queue_peak_bytes;
	o->delivered = fc->delivered_pkts;
	/* Everything happened at the bottleneck, nowhere else. */
	MRC_T_EQ(lc.trims, fc->trims);
	MRC_T_EQ(lc.ecn_marks, fc->ecn_marks);
	MRC_T_EQ(fc->drop_queue, 0);
	MRC_T_EQ(o->rx_trimmed, fc->trims);
	MRC_T_ASSERT(o->rx_trimmed_chained > 0 && o->rx_trimmed_chained < o->rx_trimmed,
		"both kinds trimmed");
	mrc_fabric_free(f);
	return check_no_leak();
}

int
test_overload_mid_fabric(void)
{
	struct overload o;

	MRC_T_RUN(setup());
	MRC_T_RUN(overload(false, false, 1, &o));
	/* The queue grew to the trim threshold and stayed there (one frame of slack). */
	MRC_T_ASSERT(o.peak > 200000 && o.peak <= 200000 + 2 * 1700, "peak %llu",
		(unsigned long long)o.peak);
	MRC_T_ASSERT(o.trims > 100, "trimmed %llu", (unsigned long long)o.trims);
	MRC_T_EQ(o.trims_lasthop, 0);
	MRC_T_EQ(o.rx_trimmed_lasthop, 0);
	/* The ramp: nothing below Kmin, everything above Kmax, some in between. */
	MRC_T_EQ(o.ce_early, 0);
	MRC_T_ASSERT(o.late > 0 && o.ce_late == o.late, "%llu of %llu marked above Kmax",
		(unsigned long long)o.ce_late, (unsigned long long)o.late);
	MRC_T_ASSERT(o.marks > o.late, "marks %llu", (unsigned long long)o.marks);
	printf("  2:1 at T0 -> T1: peak %llu B, %llu ECN marks, %llu trims (mid-fabric)\n",
		(unsigned long long)o.peak, (unsigned long long)o.marks,
		(unsigned long long)o.trims);
	/* Same seed, same story; another seed marks other packets on the ramp. */
	struct overload o2, o3;

	MRC_T_RUN(overload(false, false, 1, &o2));
	MRC_T_ASSERT(memcmp(&o, &o2, sizeof(o)) == 0, "deterministic");
	MRC_T_RUN(overload(false, false, 2, &o3));
	MRC_T_EQ(o3.trims, o.trims); /* trims do not depend on the draws */
	return MRC_TEST_OK;
}

int
test_overload_last_hop(void)
{
	struct overload o;

	MRC_T_RUN(setup());
	MRC_T_RUN(overload(true, false, 1, &o));
	MRC_T_EQ(o.marks, 0); /* no ECN on the last hop */
	MRC_T_ASSERT(o.trims > 100 && o.trims == o.trims_lasthop, "%llu trims, %llu last hop",
		(unsigned long long)o.trims, (unsigned long long)o.trims_lasthop);
	MRC_T_EQ(o.rx_trimmed_lasthop, o.trims);
	printf("  2:1 at T0 -> host: peak %llu B, 0 ECN marks, %llu trims (last hop)\n",
		(unsigned long long)o.peak, (unsigned long long)o.trims);
	MRC_T_RUN(overload(true, true, 1, &o));
	MRC_T_ASSERT(o.marks > 0, "the knob turns last-hop marking on");
	return MRC_TEST_OK;
}

/* Tail drop when trimming is off; a full host ring drops and counts. */
int
test_queue_limit_and_host_ring(void)
{
	struct mrc_fabric_cfg c;
	struct mrc_fabric *f;
	struct rte_mbuf *rx[256];
	uint64_t now = 0;

	MRC_T_RUN(setup());
	mrc_fabric_cfg_defaults(&c);
	c.n_hosts = 3;
	c.n_planes = 1;
	c.trim_threshold_bytes = 0;
	c.queue_limit_bytes = 20000;
	c.ring_size = 128;
	f = mkfab(&c);
	MRC_T_ASSERT(f != NULL, "fabric");
	/* 2 x 100 frames into host 2 (the NIC queues hold 20 KB: send in steps). */
	for (unsigned int k = 0; k < 100; k++) {
		for (unsigned int h = 0; h < 2; h++) {
			const struct spec sp = {
				.src = h, .dst = 2, .uplink = h, .payload = 1000, .psn = k};

			MRC_T_RUN(send_spec(f, &c, &sp));
		}
		now += 90; /* a bit faster than line rate per host */
		mrc_fabric_poll(f, now);
	}
	run_idle(f, &now);
	const struct mrc_fabric_counters *fc = mrc_fabric_counters(f);
	unsigned int n = rx_all(f, &c, rx, RTE_DIM(rx), NULL, NULL);

	MRC_T_ASSERT(fc->drop_queue > 0, "tail drops at the last hop");
	MRC_T_EQ(fc->trims, 0);
	MRC_T_EQ(n + fc->drop_queue + fc->drop_host_rx_full, 200);
	MRC_T_EQ(n, fc->delivered_pkts);
	free_all(rx, n);
	/* Nobody reads host 2: its ring (128) fills, the rest is dropped. */
	const uint64_t full0 = fc->drop_host_rx_full;

	for (unsigned int k = 0; k < 200; k++) {
		const struct spec sp = {.src = 0, .dst = 2, .payload = 64, .psn = k};

		MRC_T_RUN(send_spec(f, &c, &sp));
		now += 100;
		mrc_fabric_poll(f, now);
	}
	run_idle(f, &now);
	MRC_T_EQ(fc->drop_host_rx_full - full0, 200 - 128);
	n = rx_all(f, &c, rx, RTE_DIM(rx), NULL, NULL);
	MRC_T_EQ(n, 128);
	free_all(rx, n);
	mrc_fabric_free(f);
	return check_no_leak();
}

/*
 * Where a control packet lands among 300 data packets sent before it on
 * the same path through a 2:1 bottleneck: strict priority (control_priority)
 * puts it first; otherwise it waits its turn, last.
 */
static int
control_position(bool prio, unsigned int *pos)
{
	struct mrc_fabric_cfg c;
	struct mrc_fabric *f;
	struct rte_mbuf *rx[320];
	unsigned int n;
	uint64_t now = 0;

	mrc_fabric_cfg_defaults(&c);
	c.n_hosts = 4;
	c.n_planes = 1;
	c.hosts_per_t0 = 2;
	c.n_t1 = 2;
	c.trim_threshold_bytes = 0;
	c.control_priority = prio;
	f = mkfab(&c);
	MRC_T_ASSERT(f != NULL, "fabric");
	for (unsigned int k = 0; k < 300; k++)
		for (unsigned int h = 0; h < 2; h++) {
			const struct spec sp = {.src = h, .dst = 2 + h, .payload = 1500, .psn = k};

			MRC_T_RUN(send_spec(f, &c, &sp));
		}
	const struct spec ctl = {
		.src = 0, .dst = 2, .payload = 64, .psn = 9999, .dscp = t_wire.dscp.control};

	MRC_T_RUN(send_spec(f, &c, &ctl));
	run_idle(f, &now);
	n = 0;
	for (uint16_t k; n < RTE_DIM(rx) &&
			 (k = rte_eth_rx_burst(mrc_fabric_port(f, 2, 0), 0, rx + n, 32)) > 0;)
		n += k;
	MRC_T_EQ(n, 301); /* host 2's, in arrival order; host 3's stay in its ring */
	*pos = UINT32_MAX;
	for (unsigned int i = 0; i < n; i++) {
		struct mrc_pkt v;

		MRC_T_EQ(mrc_pkt_parse(rx[i], &t_wire, &v), MRC_WIRE_OK);
		if (v.bth.psn == 9999)
			*pos = i;
	}
	free_all(rx, n);
	mrc_fabric_free(f);
	return check_no_leak();
}

int
test_control_priority(void)
{
	unsigned int with, without;

	MRC_T_RUN(setup());
	MRC_T_RUN(control_position(true, &with));
	MRC_T_RUN(control_position(false, &without));
	MRC_T_EQ(with, 0);
	MRC_T_EQ(without, 300);
	return MRC_TEST_OK;
}

/* Random loss: per link, counted where it happens, repeatable by seed. */
static int
loss_run(uint64_t seed, uint64_t *lost)
{
	struct mrc_fabric_cfg c;
	struct mrc_fabric *f;
	struct rte_mbuf *rx[64];
	uint64_t now = 0, got = 0;

	mrc_fabric_cfg_defaults(&c);
	c.n_planes = 1;
	c.seed = seed;
	f = mkfab(&c);
	MRC_T_ASSERT(f != NULL, "fabric");
	const struct mrc_fabric_target all = {.elem = MRC_FABRIC_ELEM_FABRIC};

	MRC_T_EQ(mrc_fabric_set_loss(f, &all, 0.05), 0);
	for (unsigned int k = 0; k < 2000; k++) {
		const struct spec sp = {.src = 0, .dst = 1, .uplink = k, .payload = 64, .psn = k};
		unsigned int n;

		MRC_T_RUN(send_spec(f, &c, &sp));
		now += 1000;
		mrc_fabric_poll(f, now);
		n = rx_all(f, &c, rx, RTE_DIM(rx), NULL, NULL);
		got += n;
		free_all(rx, n);
	}
	run_idle(f, &now);
	{
		const unsigned int n = rx_all(f, &c, rx, RTE_DIM(rx), NULL, NULL);

		got += n;
		free_all(rx, n);
	}
	*lost = mrc_fabric_counters(f)->drop_loss;
	MRC_T_EQ(got + *lost, 2000);
	mrc_fabric_free(f);
	return check_no_leak();
}

int
test_random_loss(void)
{
	uint64_t a, b, d;

	MRC_T_RUN(setup());
	MRC_T_RUN(loss_run(7, &a));
	MRC_T_RUN(loss_run(7, &b));
	MRC_T_RUN(loss_run(8, &d));
	MRC_T_EQ(a, b);
	/* 4 links at 5%: 18.5% expected, 2000 packets. */
	MRC_T_ASSERT(a > 300 && a < 440, "%llu lost", (unsigned long long)a);
	MRC_T_ASSERT(d > 300 && d < 440, "%llu lost", (unsigned long long)d);
	printf("  5%% per link over 4 links: %llu and %llu of 2000 lost (seeds 7, 8)\n",
		(unsigned long long)a, (unsigned long long)d);
	return MRC_TEST_OK;
}

/* Freeing a fabric with packets everywhere returns every mbuf. */
int
test_free_in_flight(void)
{
	struct mrc_fabric_cfg c;
	struct mrc_fabric *f;

	MRC_T_RUN(setup());
	mrc_fabric_cfg_defaults(&c);
	c.n_planes = 2;
	f = mkfab(&c);
	MRC_T_ASSERT(f != NULL, "fabric");
	for (unsigned int k = 0; k < 300; k++) {
		const struct spec sp = {.src = k & 1,
			.dst = !(k & 1),
			.plane = k % 2,
			.uplink = k,
			.payload = 1000,
			.psn = k};

		MRC_T_RUN(send_spec(f, &c, &sp));
		if (k % 3 == 0)
			mrc_fabric_poll(f, k * 200);
	}
	MRC_T_ASSERT(mrc_fabric_in_flight(f) > 0, "packets inside");
	mrc_fabric_free(f); /* in the heap, in tx rings, in rx rings */
	return check_no_leak();
}
