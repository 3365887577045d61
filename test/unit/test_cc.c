/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * lib/cc: the registry, "fixed" and NSCC ("uet-1.0-nscc").
 *
 * Everything runs on a fake clock: tsc_hz = 1 GHz, so one TSC tick is one
 * nanosecond and `now` below is both. The reference network is the one the
 * QP defaults describe (doc/protocol.md, "Congestion control"): 100 Gb/s,
 * 10 us base RTT, 4096 B MTU.
 */

#include <errno.h>

#include <rte_common.h>

#include "mrc_cc.h"
#include "mrc_rand.h"
#include "mrc_test.h"

#define HZ     UINT64_C(1000000000)
#define MTU    4096u
#define RTT_NS 10000u
#define LINK   UINT64_C(100000000000)
#define BDP    125000u
#define MAXWND 187500u
#define T0     UINT64_C(1000000) /* first event time; any value works */
#define US     UINT64_C(1000)

static double
abs_d(double x)
{
	return x < 0 ? -x : x;
}

static struct mrc_cc_params
params(bool trimming)
{
	return (struct mrc_cc_params){
		.mtu_bytes = MTU,
		.base_rtt_ns = RTT_NS,
		.link_bps = LINK,
		.tsc_hz = HZ,
		.trimming_enabled = trimming,
	};
}

/* Quadrant tests: no quick adapt, so only the quadrant under test moves cwnd. */
static struct mrc_cc_params
params_no_qa(void)
{
	struct mrc_cc_params p = params(false);

	p.disable_qa = true;
	return p;
}

static void
ack_full(struct mrc_cc *cc, uint64_t now, uint32_t bytes, uint32_t rtt_ns, bool ecn, uint8_t pen,
	bool rc, uint32_t inflight)
{
	const struct mrc_cc_ack a = {
		.newly_acked_bytes = bytes,
		.rtt_ns = rtt_ns,
		.inflight_bytes = inflight,
		.rcv_cwnd_pen = pen,
		.restore_cwnd = rc,
		.ecn = ecn,
	};

	mrc_cc_on_ack(cc, &a, now);
}

static void
ack(struct mrc_cc *cc, uint64_t now, uint32_t bytes, uint32_t delay_ns, bool ecn)
{
	ack_full(cc, now, bytes, RTT_NS + delay_ns, ecn, 0, false, mrc_cc_cwnd(cc));
}

static struct mrc_cc_stats
stats(const struct mrc_cc *cc)
{
	struct mrc_cc_stats st;

	mrc_cc_stats(cc, &st);
	return st;
}

/*
 * An NSCC instance whose window was cut to `cwnd` by one loss (QA disabled):
 * without trimming a silent loss shrinks the window, with it a trim does.
 */
static int
nscc_at(struct mrc_cc *cc, const struct mrc_cc_params *p, uint32_t cwnd)
{
	MRC_T_EQ(mrc_cc_init(cc, MRC_CC_NSCC, p), 0);
	MRC_T_EQ(mrc_cc_cwnd(cc), p->max_cwnd_bytes ? p->max_cwnd_bytes : MAXWND);
	if (p->trimming_enabled)
		mrc_cc_on_trim(cc, mrc_cc_cwnd(cc) - cwnd, false, T0);
	else
		mrc_cc_on_loss(cc, mrc_cc_cwnd(cc) - cwnd, T0);
	MRC_T_EQ(mrc_cc_cwnd(cc), cwnd);
	return MRC_TEST_OK;
}

/* ---- configuration ---- */

static int
test_defaults_derived(void)
{
	struct mrc_cc_params p = params(false);
	struct mrc_cc_nscc_cfg c;
	struct mrc_cc cc;

	MRC_T_EQ(mrc_cc_bdp_bytes(LINK, RTT_NS), BDP);
	MRC_T_EQ(mrc_cc_nscc_derive(&p, &c), 0);
	printf("  100G x 10us x 4096B, no trimming: BDP %" PRIu64 " B, MaxWnd %u B, target %u ns,"
	       " a %.3f, b %.3f, alpha %.4f B/ns (PI max %u B/wnd), fi %u B, eta %u B,"
	       " gamma %.2f, md_jump %.2f, fi_scale %.2f, qa_gate %u (QA below %u B),"
	       " qa_threshold %u ns, adjust %u B / %u ns, fast below %u ns, ECN gate %u%%\n",
		c.bdp_bytes, c.max_cwnd_bytes, c.target_qdelay_ns, c.scaling_a_pm / 1000.0,
		c.scaling_b_pm / 1000.0, c.alpha_q16 / 65536.0, c.pi_max_bytes, c.fi_bytes,
		c.eta_bytes, c.gamma_pm / 1000.0, c.max_md_jump_pm / 1000.0, c.fi_scale_pm / 1000.0,
		c.qa_gate, c.max_cwnd_bytes >> c.qa_gate, c.qa_threshold_ns,
		c.adjust_bytes_threshold, c.adjust_period_ns, c.fast_delay_ns,
		c.ecn_widespread_pct);
	MRC_T_U64_EQ(c.bdp_bytes, 125000);
	MRC_T_EQ(c.max_cwnd_bytes, 187500);  /* 1.5 x BDP */
	MRC_T_EQ(c.target_qdelay_ns, 10000); /* 1.0 x base_rtt */
	MRC_T_EQ(c.scaling_a_pm, 833);	     /* 125000 / 150000 */
	MRC_T_EQ(c.scaling_b_pm, 833);	     /* 10 us / 12 us */
	MRC_T_EQ(c.alpha_q16, 74565);	     /* 4 x a x b x MTU / target = 1.1378 B/ns */
	MRC_T_EQ(c.pi_max_bytes, 11377);     /* alpha x target */
	MRC_T_EQ(c.fi_bytes, 17066);	     /* 5 MTU x a */
	MRC_T_EQ(c.eta_bytes, 512);	     /* 0.15 MTU x a */
	MRC_T_EQ(c.gamma_pm, 800);
	MRC_T_EQ(c.max_md_jump_pm, 500);
	MRC_T_EQ(c.fi_scale_pm, 250);
	MRC_T_EQ(c.qa_gate, 3);
	MRC_T_EQ(c.max_cwnd_bytes >> c.qa_gate, 23437); /* MaxWnd / 2^3 */
	MRC_T_EQ(c.qa_threshold_ns, 40000);		/* 4 x target */
	MRC_T_EQ(c.adjust_bytes_threshold, 8 * MTU);
	MRC_T_EQ(c.adjust_period_ns, RTT_NS);
	MRC_T_EQ(c.fast_delay_ns, 1000);
	MRC_T_EQ(c.ecn_widespread_pct, 25);
	MRC_T_ASSERT(!c.disable_qa, "qa on by default");

	/* Trimming: target 0.75 x base_rtt, no delay trigger for quick adapt. */
	p = params(true);
	MRC_T_EQ(mrc_cc_nscc_derive(&p, &c), 0);
	printf("  ... with trimming: target %u ns, b %.3f, PI max %u B/wnd, qa_threshold %u\n",
		c.target_qdelay_ns, c.scaling_b_pm / 1000.0, c.pi_max_bytes, c.qa_threshold_ns);
	MRC_T_EQ(c.target_qdelay_ns, 7500);
	MRC_T_EQ(c.scaling_b_pm, 625);
	MRC_T_EQ(c.alpha_q16, 74565); /* target cancels out of alpha */
	MRC_T_EQ(c.pi_max_bytes, 8533);
	MRC_T_EQ(c.qa_threshold_ns, 0);
	MRC_T_EQ(c.max_cwnd_bytes, 187500);

	/* The initial window is MaxWnd. */
	MRC_T_EQ(mrc_cc_init(&cc, MRC_CC_NSCC, &p), 0);
	MRC_T_STREQ(mrc_cc_name(&cc), "uet-1.0-nscc");
	MRC_T_EQ(mrc_cc_cwnd(&cc), 187500);
	MRC_T_EQ(stats(&cc).base_rtt_ns, RTT_NS);

	/* Overrides win; 0 keeps the default. */
	p = params(true);
	p.max_cwnd_bytes = 100000;
	p.target_qdelay_ns = 5000;
	p.gamma_pm = 500;
	p.max_md_jump_pm = 700;
	p.fi_bytes = 1000;
	p.fi_scale_pm = 100;
	p.eta_bytes = 77;
	p.qa_gate = 2;
	p.qa_threshold_ns = 30000;
	p.adjust_bytes_threshold = 10000;
	p.adjust_period_ns = 20000;
	p.ecn_widespread_pct = 60;
	p.disable_qa = true;
	MRC_T_EQ(mrc_cc_nscc_derive(&p, &c), 0);
	MRC_T_EQ(c.max_cwnd_bytes, 100000);
	MRC_T_EQ(c.target_qdelay_ns, 5000);
	MRC_T_EQ(c.gamma_pm, 500);
	MRC_T_EQ(c.max_md_jump_pm, 700);
	MRC_T_EQ(c.fi_bytes, 1000);
	MRC_T_EQ(c.fi_scale_pm, 100);
	MRC_T_EQ(c.eta_bytes, 77);
	MRC_T_EQ(c.qa_gate, 2);
	MRC_T_EQ(c.qa_threshold_ns, 30000);
	MRC_T_EQ(c.adjust_bytes_threshold, 10000);
	MRC_T_EQ(c.adjust_period_ns, 20000);
	MRC_T_EQ(c.ecn_widespread_pct, 60);
	MRC_T_ASSERT(c.disable_qa, "disable_qa kept");
	MRC_T_EQ(c.fast_delay_ns, 1000);
	p.qa_threshold_ns = UINT32_MAX; /* explicit off */
	p.disable_ecn_gate = true;
	MRC_T_EQ(mrc_cc_nscc_derive(&p, &c), 0);
	MRC_T_EQ(c.qa_threshold_ns, 0);
	MRC_T_EQ(c.ecn_widespread_pct, 0);
	MRC_T_EQ(mrc_cc_init(&cc, MRC_CC_NSCC, &p), 0);
	MRC_T_EQ(mrc_cc_cwnd(&cc), 100000);

	/* A slow link: 1.5 x BDP below one MTU still leaves one MTU. */
	p = params(false);
	p.link_bps = UINT64_C(1000000000); /* 1 Gb/s x 10 us = 1250 B */
	MRC_T_EQ(mrc_cc_nscc_derive(&p, &c), 0);
	MRC_T_EQ(c.max_cwnd_bytes, MTU);
	return MRC_TEST_OK;
}

static int
test_params_invalid(void)
{
	struct mrc_cc_params p;
	struct mrc_cc_nscc_cfg c;
	struct mrc_cc cc;
	const char *why = NULL;

	p = params(false);
	MRC_T_EQ(mrc_cc_params_check(&p, &why), 0);
	MRC_T_ASSERT(why == NULL, "no message when valid");

#define BAD(field, value)                                                   \
	do {                                                                \
		p = params(false);                                          \
		p.field = value;                                            \
		MRC_T_EQ(mrc_cc_params_check(&p, &why), -EINVAL);           \
		MRC_T_ASSERT(why != NULL, #field);                          \
		MRC_T_EQ(mrc_cc_init(&cc, MRC_CC_NSCC, &p), -EINVAL);       \
		MRC_T_ASSERT(cc.ops == NULL, "no ops after a failed init"); \
		MRC_T_EQ(mrc_cc_init(&cc, MRC_CC_FIXED, &p), -EINVAL);      \
	} while (0)
	BAD(mtu_bytes, 0);
	BAD(mtu_bytes, 70000);
	BAD(base_rtt_ns, 0);
	BAD(link_bps, 0);
	BAD(tsc_hz, 0);
	BAD(tsc_hz, UINT64_C(20000000000));
	BAD(gamma_pm, 1001);
	BAD(max_md_jump_pm, 1001);
	BAD(fi_scale_pm, 1001);
	BAD(qa_gate, 32);
	BAD(ecn_widespread_pct, 101);
	BAD(max_cwnd_bytes, UINT32_C(1) << 31);
	BAD(fixed_cwnd_bytes, UINT32_C(1) << 31);
#undef BAD

	/* Valid fields whose product is too large: 100 Tb/s x 100 ms. */
	p = params(false);
	p.link_bps = UINT64_C(100000000000000);
	p.base_rtt_ns = 100 * 1000 * 1000;
	MRC_T_EQ(mrc_cc_nscc_derive(&p, &c), -ERANGE);
	MRC_T_EQ(mrc_cc_init(&cc, MRC_CC_NSCC, &p), -ERANGE);
	MRC_T_EQ(mrc_cc_init(&cc, MRC_CC_FIXED, &p), -ERANGE);

	p = params(false);
	MRC_T_EQ(mrc_cc_init(&cc, "no-such-cc", &p), -ENOENT);
	MRC_T_ASSERT(cc.ops == NULL, "no ops for an unknown name");
	MRC_T_EQ(mrc_cc_init_ops(&cc, NULL, &p), -EINVAL);
	return MRC_TEST_OK;
}

static int
test_sizes(void)
{
	const struct mrc_cc_ops *nscc = mrc_cc_find(MRC_CC_NSCC);

	printf("  sizeof(struct mrc_cc) %zu B; NSCC private %zu B; fixed private %zu B\n",
		sizeof(struct mrc_cc), nscc->priv_size, mrc_cc_find(MRC_CC_FIXED)->priv_size);
	MRC_T_EQ(sizeof(struct mrc_cc), 8 + MRC_CC_PRIV_MAX);
	MRC_T_ASSERT(nscc->priv_size <= MRC_CC_PRIV_MAX, "%zu", nscc->priv_size);
	MRC_T_EQ(sizeof(struct mrc_cc), 200);
	return MRC_TEST_OK;
}

/* ---- the four quadrants ---- */

/* No ECN, delay < target: grows by about alpha x (target - delay) per window. */
static int
test_quadrant_pi(void)
{
	const struct mrc_cc_params p = params_no_qa();
	struct mrc_cc near, far;
	uint64_t now = T0;
	struct mrc_cc_stats st;
	double expect;

	MRC_T_RUN(nscc_at(&near, &p, 87500));
	MRC_T_RUN(nscc_at(&far, &p, 87500));
	/* 30 full-packet acks, one per 1 us: three adjust periods. */
	for (int i = 0; i < 30; i++) {
		now += US;
		ack(&near, now, MTU, 2000, false); /* 8 us below target */
		ack(&far, now, MTU, 8000, false);  /* 2 us below target */
	}
	st = stats(&near);
	MRC_T_EQ(st.pi_events, 30);
	MRC_T_EQ(st.fast_events, 0);
	MRC_T_EQ(st.fi_events + st.md_events + st.hold_events + st.qa_events, 0);
	/*
	 * alpha x 8 us = 9102 B per window of acks; 30 x 4096 B is 1.4 windows,
	 * plus eta (512 B) per 10 us period.
	 */
	expect = 87500 + 9102.0 * 30 * MTU / 87500 + 3 * 512;
	printf("  PI: delay 2 us -> cwnd %u (expected about %.0f), delay 8 us -> %u\n",
		mrc_cc_cwnd(&near), expect, mrc_cc_cwnd(&far));
	MRC_T_ASSERT(mrc_cc_cwnd(&near) > 87500, "PI increases");
	MRC_T_ASSERT(abs_d(mrc_cc_cwnd(&near) - expect) < 0.1 * (expect - 87500), "%u",
		mrc_cc_cwnd(&near));
	/* Proportional: more headroom, more increase. */
	MRC_T_ASSERT(mrc_cc_cwnd(&far) > 87500 && mrc_cc_cwnd(&far) < mrc_cc_cwnd(&near),
		"far %u near %u", mrc_cc_cwnd(&far), mrc_cc_cwnd(&near));

	/* An empty queue for more than a window switches to fast increase (x1.25/RTT). */
	MRC_T_RUN(nscc_at(&near, &p, 40000));
	now = T0;
	for (int i = 0; i < 20; i++) {
		now += 300;
		ack(&near, now, MTU, 0, false);
	}
	st = stats(&near);
	printf("  fast increase: 20 acks at zero delay -> cwnd %u, %" PRIu64 " fast\n",
		mrc_cc_cwnd(&near), st.fast_events);
	MRC_T_ASSERT(st.fast_events > 0 && st.fast_events < 20, "%" PRIu64, st.fast_events);
	MRC_T_ASSERT(
		mrc_cc_cwnd(&near) >= 40000 + st.fast_events * MTU / 4, "%u", mrc_cc_cwnd(&near));
	return MRC_TEST_OK;
}

/* No ECN, delay >= target: fi (5 MTU x a) per window of acks. */
static int
test_quadrant_fi(void)
{
	const struct mrc_cc_params p = params_no_qa();
	struct mrc_cc cc;
	uint64_t now = T0;
	struct mrc_cc_stats st;
	double expect;

	MRC_T_RUN(nscc_at(&cc, &p, 87500));
	for (int i = 0; i < 30; i++) {
		now += US;
		ack(&cc, now, MTU, 15000, false);
	}
	st = stats(&cc);
	expect = 87500 + 17066.0 * 30 * MTU / 87500 + 3 * 512;
	printf("  FI: 30 acks at 1.5 x target -> cwnd %u (expected about %.0f)\n", mrc_cc_cwnd(&cc),
		expect);
	MRC_T_EQ(st.fi_events, 30);
	MRC_T_EQ(st.pi_events + st.md_events + st.hold_events, 0);
	MRC_T_ASSERT(mrc_cc_cwnd(&cc) > 87500, "FI increases");
	MRC_T_ASSERT(
		abs_d(mrc_cc_cwnd(&cc) - expect) < 0.1 * (expect - 87500), "%u", mrc_cc_cwnd(&cc));
	return MRC_TEST_OK;
}

/* ECN, delay < target: hold - the window does not move. */
static int
test_quadrant_hold(void)
{
	const struct mrc_cc_params p = params_no_qa();
	struct mrc_cc cc;
	uint64_t now = T0;
	struct mrc_cc_stats st;

	MRC_T_RUN(nscc_at(&cc, &p, 87500));
	/* Four marked zero-byte acks open the widespread gate (>= 4 acks). */
	for (int i = 0; i < 4; i++)
		ack(&cc, now, 0, 2000, true);
	st = stats(&cc);
	MRC_T_EQ(st.ecn_gated, 3);
	MRC_T_EQ(st.hold_events, 1);
	/* Now 40 marked full-packet acks with a short queue, within one period. */
	for (int i = 0; i < 40; i++) {
		now += 200;
		ack(&cc, now, MTU, 2000, true);
	}
	st = stats(&cc);
	MRC_T_EQ(st.hold_events, 41);
	MRC_T_EQ(st.md_events, 0);
	MRC_T_EQ(mrc_cc_cwnd(&cc), 87500);
	return MRC_TEST_OK;
}

/* ECN, delay >= target: multiplicative decrease, sized by avg_delay. */
static int
test_quadrant_md(void)
{
	const struct mrc_cc_params p = params_no_qa();
	struct mrc_cc cc;
	uint64_t now = T0;
	struct mrc_cc_stats st;
	uint32_t before;

	MRC_T_EQ(mrc_cc_init(&cc, MRC_CC_NSCC, &p), 0);
	before = mrc_cc_cwnd(&cc);
	/* Marked acks at 3 x target; the average needs a few samples to pass target. */
	for (int i = 0; i < 8; i++) {
		now += 100;
		ack(&cc, now, MTU, 30000, true);
	}
	st = stats(&cc);
	printf("  MD: cwnd %u -> %u, avg_delay %u ns\n", before, mrc_cc_cwnd(&cc), st.avg_delay_ns);
	MRC_T_EQ(st.md_events, 1);
	MRC_T_ASSERT(mrc_cc_cwnd(&cc) < before, "MD decreases");
	/* Never more than max_md_jump (halving) in one step. */
	MRC_T_ASSERT(mrc_cc_cwnd(&cc) >= before / 2, "%u", mrc_cc_cwnd(&cc));
	return MRC_TEST_OK;
}

/* A burst of marked acks: one MD per base RTT, however many acks. */
static int
test_md_once_per_rtt(void)
{
	const struct mrc_cc_params p = params_no_qa();
	struct mrc_cc cc;
	uint64_t now = T0;
	uint32_t after_first;

	MRC_T_EQ(mrc_cc_init(&cc, MRC_CC_NSCC, &p), 0);
	/* 90 marked acks over 9 us: all within one base RTT of the first MD. */
	for (int i = 0; i < 90; i++) {
		ack(&cc, now, MTU, 30000, true);
		now += 100;
	}
	MRC_T_EQ(stats(&cc).md_events, 1);
	after_first = mrc_cc_cwnd(&cc);
	/* 9.0 us after the first marked ack the MD (at the 4th ack) is not yet an RTT old. */
	ack(&cc, now, MTU, 30000, true);
	MRC_T_EQ(stats(&cc).md_events, 1);
	/* A base RTT after the first MD, the next one is allowed. */
	now = T0 + 300 + RTT_NS;
	ack(&cc, now, MTU, 30000, true);
	MRC_T_EQ(stats(&cc).md_events, 2);
	MRC_T_ASSERT(mrc_cc_cwnd(&cc) < after_first, "second MD");
	printf("  burst: 91 marked acks in 9 us -> 1 MD (cwnd %u), next RTT -> cwnd %u\n",
		after_first, mrc_cc_cwnd(&cc));
	return MRC_TEST_OK;
}

/* With a very large average delay the MD factor is capped at max_md_jump. */
static int
test_md_bounded(void)
{
	struct mrc_cc_params p = params_no_qa();
	struct mrc_cc cc;
	uint64_t now = T0;

	p.disable_ecn_gate = true; /* one marked ack is enough */
	for (int jump = 0; jump < 2; jump++) {
		p.max_md_jump_pm = jump == 0 ? 0 : 900; /* default 0.5, then 0.9 */
		MRC_T_EQ(mrc_cc_init(&cc, MRC_CC_NSCC, &p), 0);
		/* Zero-byte unmarked acks build avg_delay ~ 1 ms without moving cwnd. */
		for (int i = 0; i < 60; i++)
			ack(&cc, now, 0, 1000000, false);
		MRC_T_EQ(mrc_cc_cwnd(&cc), MAXWND);
		MRC_T_ASSERT(stats(&cc).avg_delay_ns > 900000, "%u", stats(&cc).avg_delay_ns);
		/* 1 - 0.8 x (1 ms - 10 us) / 1 ms = 0.21 < max_md_jump */
		ack(&cc, now, 0, 1000000, true);
		MRC_T_EQ(stats(&cc).md_events, 1);
		if (jump == 0)
			MRC_T_EQ(mrc_cc_cwnd(&cc), MAXWND / 2);
		else /* 0.9 in Q16 is a hair below 0.9 */
			MRC_T_ASSERT(
				MAXWND * 9 / 10 - mrc_cc_cwnd(&cc) <= 2, "%u", mrc_cc_cwnd(&cc));
	}
	return MRC_TEST_OK;
}

/*
 * MRC's gate: marks on a few acks are a load-balancing matter (the EV layer
 * moves off that EV); marks on more than 25% of them cut the rate.
 */
static int
test_ecn_widespread_gate(void)
{
	struct mrc_cc_params p = params_no_qa();
	struct mrc_cc few, many, ungated;
	uint64_t now = T0;
	struct mrc_cc_stats sf, sm, su;

	MRC_T_EQ(mrc_cc_init(&few, MRC_CC_NSCC, &p), 0);
	MRC_T_EQ(mrc_cc_init(&many, MRC_CC_NSCC, &p), 0);
	p.disable_ecn_gate = true;
	MRC_T_EQ(mrc_cc_init(&ungated, MRC_CC_NSCC, &p), 0);
	/* 10 base RTTs of acks at 3 x target; 1 in 10 marked vs 1 in 2 marked. */
	for (int i = 0; i < 300; i++) {
		now += 333;
		ack(&few, now, MTU, 30000, i % 10 == 0);
		ack(&ungated, now, MTU, 30000, i % 10 == 0);
		ack(&many, now, MTU, 30000, i % 2 == 0);
	}
	sf = stats(&few);
	sm = stats(&many);
	su = stats(&ungated);
	printf("  1/10 marked: %" PRIu64 " MD, cwnd %u; 1/2 marked: %" PRIu64
	       " MD, cwnd %u; 1/10 without the gate: %" PRIu64 " MD, cwnd %u\n",
		sf.md_events, mrc_cc_cwnd(&few), sm.md_events, mrc_cc_cwnd(&many), su.md_events,
		mrc_cc_cwnd(&ungated));
	MRC_T_EQ(sf.ecn_acks, 30);
	MRC_T_EQ(sf.ecn_gated, 30);
	MRC_T_EQ(sf.md_events, 0);
	MRC_T_EQ(mrc_cc_cwnd(&few), MAXWND); /* FI only, at the max */
	MRC_T_ASSERT(sm.md_events >= 5, "%" PRIu64, sm.md_events);
	MRC_T_ASSERT(mrc_cc_cwnd(&many) < MAXWND / 2, "%u", mrc_cc_cwnd(&many));
	MRC_T_EQ(su.ecn_gated, 0);
	MRC_T_ASSERT(su.md_events >= 5, "%" PRIu64, su.md_events);

	/* The threshold is a parameter: at 60%, half the acks marked is not widespread. */
	p = params_no_qa();
	p.ecn_widespread_pct = 60;
	MRC_T_EQ(mrc_cc_init(&many, MRC_CC_NSCC, &p), 0);
	for (int i = 0; i < 300; i++) {
		now += 333;
		ack(&many, now, MTU, 30000, i % 2 == 0);
	}
	MRC_T_EQ(stats(&many).md_events, 0);
	return MRC_TEST_OK;
}

/* ---- quick adapt ---- */

static int
test_quick_adapt_trim(void)
{
	const struct mrc_cc_params p = params(true);
	struct mrc_cc cc;
	uint64_t now = T0;
	struct mrc_cc_stats st;
	/* QA period: base_rtt + target = 17.5 us */
	const uint64_t period = RTT_NS + 7500;
	uint64_t qa1;
	uint32_t w;

	MRC_T_EQ(mrc_cc_init(&cc, MRC_CC_NSCC, &p), 0);
	/* Period 1: only two packets get through (an incast), then a trim. */
	ack_full(&cc, now, MTU, RTT_NS + 5000, false, 0, false, MAXWND);
	ack_full(&cc, now + 2 * US, MTU, RTT_NS + 5000, false, 0, false, MAXWND);
	mrc_cc_on_trim(&cc, MTU, false, now + 5 * US);
	MRC_T_EQ(mrc_cc_cwnd(&cc), MAXWND - MTU); /* mid-period: cwnd -= pkt */
	MRC_T_EQ(stats(&cc).qa_events, 0);
	/* First ack after the period: achieved 3 x 4096 < MaxWnd / 8 -> cwnd = achieved. */
	now += period + 100;
	ack_full(&cc, now, MTU, RTT_NS + 5000, false, 0, false, 2 * MTU);
	st = stats(&cc);
	printf("  QA: 3 packets acked in a 17.5 us period with a trim -> cwnd %u\n",
		mrc_cc_cwnd(&cc));
	MRC_T_EQ(st.qa_events, 1);
	MRC_T_EQ(mrc_cc_cwnd(&cc), 3 * MTU);
	MRC_T_EQ(st.trims, 1);

	/* Not again within the period that just started, trims or not. */
	qa1 = now;
	ack_full(&cc, qa1 + 1000, 2 * MTU, RTT_NS, false, 0, false, MTU); /* stale acks drain */
	w = mrc_cc_cwnd(&cc); /* PI grew it a little: 12288 + 8533 x 8192 / 12288 + eta */
	MRC_T_EQ(w, 3 * MTU + 5688 + 512);
	mrc_cc_on_trim(&cc, MTU, true, qa1 + 2000); /* LASTHOP counts too */
	MRC_T_EQ(mrc_cc_cwnd(&cc), w - MTU);
	ack_full(&cc, qa1 + RTT_NS, 0, RTT_NS, false, 0, false, MTU); /* a base RTT later */
	MRC_T_EQ(stats(&cc).qa_events, 1);
	/* After the period, with little achieved and the trim: again. */
	ack_full(&cc, qa1 + period + 100, 0, RTT_NS, false, 0, false, MTU);
	MRC_T_EQ(stats(&cc).qa_events, 2);
	MRC_T_EQ(mrc_cc_cwnd(&cc), 2 * MTU); /* achieved 2 x 4096 in that period */
	MRC_T_EQ(stats(&cc).trims, 2);
	return MRC_TEST_OK;
}

static int
test_quick_adapt_loss_and_conditions(void)
{
	struct mrc_cc_params p = params(true);
	struct mrc_cc cc;
	uint64_t now = T0;
	const uint64_t period = RTT_NS + 7500;

	/* A loss after the period fires at once, and replaces cwnd -= pkt. */
	MRC_T_EQ(mrc_cc_init(&cc, MRC_CC_NSCC, &p), 0);
	ack(&cc, now, 5000, 3000, false);
	mrc_cc_on_loss(&cc, MTU, now + period + 1);
	MRC_T_EQ(stats(&cc).qa_events, 1);
	MRC_T_EQ(stats(&cc).losses, 1);
	MRC_T_EQ(mrc_cc_cwnd(&cc), 5000);
	/* Trims from packets sent under the old window are stale: no further cut. */
	mrc_cc_on_trim(&cc, MTU, false, now + period + 2);
	MRC_T_EQ(mrc_cc_cwnd(&cc), 5000);

	/*
	 * Enough achieved bytes: no quick adapt. A trim takes its packet out
	 * of the window; a silent loss, where the network trims, does not: it
	 * is a corruption or a failed path, not congestion (random loss wore
	 * the window down: the daemon at 1% loss per link).
	 */
	MRC_T_EQ(mrc_cc_init(&cc, MRC_CC_NSCC, &p), 0);
	ack(&cc, now, 30000, 3000, false); /* >= MaxWnd / 8 = 23437 */
	mrc_cc_on_loss(&cc, MTU, now + period + 1);
	MRC_T_EQ(stats(&cc).qa_events, 0);
	MRC_T_EQ(mrc_cc_cwnd(&cc), MAXWND);
	mrc_cc_on_trim(&cc, MTU, false, now + period + 2);
	MRC_T_EQ(stats(&cc).qa_events, 0);
	MRC_T_EQ(mrc_cc_cwnd(&cc), MAXWND - MTU);
	/* Without trimming a loss is a queue's overflow: out of the window. */
	{
		const struct mrc_cc_params tail_drop = params(false);

		MRC_T_EQ(mrc_cc_init(&cc, MRC_CC_NSCC, &tail_drop), 0);
		ack(&cc, now, 30000, 3000, false);
		mrc_cc_on_loss(&cc, MTU, now + period + 1);
		MRC_T_EQ(stats(&cc).qa_events, 0);
		MRC_T_EQ(mrc_cc_cwnd(&cc), MAXWND - MTU);
	}

	/* No trim, no loss, no delay trigger (trimming): no quick adapt. */
	MRC_T_EQ(mrc_cc_init(&cc, MRC_CC_NSCC, &p), 0);
	ack(&cc, now, MTU, 60000, false);
	ack(&cc, now + period + 1, MTU, 60000, false);
	MRC_T_EQ(stats(&cc).qa_events, 0);

	/* Without trimming, a delay above 4 x target is a trigger by itself. */
	p = params(false);
	MRC_T_EQ(mrc_cc_init(&cc, MRC_CC_NSCC, &p), 0);
	ack(&cc, now, MTU, 30000, false);
	ack(&cc, now + RTT_NS + 10000 + 1, MTU, 45000, false); /* period: 20 us */
	MRC_T_EQ(stats(&cc).qa_events, 1);
	MRC_T_EQ(mrc_cc_cwnd(&cc), 2 * MTU);

	/* A timeout triggers it too, without taking anything out itself. */
	p = params(true);
	MRC_T_EQ(mrc_cc_init(&cc, MRC_CC_NSCC, &p), 0);
	ack(&cc, now, MTU, 0, false);
	mrc_cc_on_timeout(&cc, now + 1000);
	MRC_T_EQ(mrc_cc_cwnd(&cc), MAXWND);
	mrc_cc_on_timeout(&cc, now + period + 1);
	MRC_T_EQ(stats(&cc).qa_events, 1);
	MRC_T_EQ(stats(&cc).timeouts, 2);
	MRC_T_EQ(mrc_cc_cwnd(&cc), MTU);

	/* disable_qa: trims only take the packet out. */
	p.disable_qa = true;
	MRC_T_EQ(mrc_cc_init(&cc, MRC_CC_NSCC, &p), 0);
	ack(&cc, now, MTU, 0, false);
	mrc_cc_on_trim(&cc, MTU, false, now + period + 1);
	MRC_T_EQ(stats(&cc).qa_events, 0);
	MRC_T_EQ(mrc_cc_cwnd(&cc), MAXWND - MTU);
	return MRC_TEST_OK;
}

/*
 * A silent loss where the network trims arms quick adapt only if the window
 * was full at some ack of the period: a sender whose messages in flight are
 * all it may send (here 16 KB of a 187.5 KB window) acks few bytes whatever
 * the network does, and under random loss nearly every period has a loss
 * (bench_fabric_qps at 1% per link: 70 quick adapts per QP, the window down
 * to one packet). A full window with few bytes through is still cut.
 */
static int
test_quick_adapt_silent_loss_needs_full_window(void)
{
	const struct mrc_cc_params p = params(true);
	struct mrc_cc cc;
	const uint64_t period = RTT_NS + 7500;
	uint64_t now = T0;

	/* Not window-bound: 4 KB acked with 12 KB left in flight, a loss, the period ends. */
	MRC_T_EQ(mrc_cc_init(&cc, MRC_CC_NSCC, &p), 0);
	ack_full(&cc, now, MTU, RTT_NS + 3000, false, 0, false, 3 * MTU);
	mrc_cc_on_loss(&cc, MTU, now + 2 * US);
	ack_full(&cc, now + period + 1, MTU, RTT_NS + 3000, false, 0, false, 2 * MTU);
	mrc_cc_on_loss(&cc, MTU, now + period + 2);
	MRC_T_EQ(stats(&cc).losses, 2);
	MRC_T_EQ(stats(&cc).qa_events, 0);
	MRC_T_ASSERT(mrc_cc_cwnd(&cc) >= MAXWND, "cwnd %u: an idle window is no congestion",
		mrc_cc_cwnd(&cc));

	/* The loss first, then an ack that finds the window full: it fires at the period's end. */
	MRC_T_EQ(mrc_cc_init(&cc, MRC_CC_NSCC, &p), 0);
	mrc_cc_on_loss(&cc, MTU, now);
	ack_full(&cc, now + 2 * US, MTU, RTT_NS + 3000, false, 0, false, MAXWND - MTU);
	MRC_T_EQ(stats(&cc).qa_events, 0);
	ack_full(&cc, now + period + 1, MTU, RTT_NS + 3000, false, 0, false, MAXWND - MTU);
	MRC_T_EQ(stats(&cc).qa_events, 1);
	MRC_T_EQ(mrc_cc_cwnd(&cc), 2 * MTU);

	/* A trim needs no full window: it is congestion wherever it comes from. */
	MRC_T_EQ(mrc_cc_init(&cc, MRC_CC_NSCC, &p), 0);
	ack_full(&cc, now, MTU, RTT_NS + 3000, false, 0, false, 3 * MTU);
	mrc_cc_on_trim(&cc, MTU, false, now + period + 1);
	MRC_T_EQ(stats(&cc).qa_events, 1);
	MRC_T_EQ(mrc_cc_cwnd(&cc), MTU);
	return MRC_TEST_OK;
}

/* ---- receiver penalty ---- */

static int
test_receiver_penalty(void)
{
	const struct mrc_cc_params p = params_no_qa();
	struct mrc_cc cc;
	uint64_t now = T0;

	MRC_T_RUN(nscc_at(&cc, &p, 80000));
	/* 64 halves the window. */
	ack_full(&cc, now, MTU, RTT_NS + 2000, false, 64, false, 0);
	MRC_T_EQ(mrc_cc_cwnd(&cc), 40000);
	MRC_T_EQ(stats(&cc).penalties, 1);
	/* While it lasts, low-delay acks do not grow the window (nor the pre-penalty one). */
	for (int i = 0; i < 40; i++) {
		now += US;
		ack_full(&cc, now, MTU, RTT_NS + 2000, false, 64, false, 0);
	}
	MRC_T_EQ(mrc_cc_cwnd(&cc), 40000);
	/* 127: about one packet per RTT - the one-MTU floor. */
	ack_full(&cc, now, MTU, RTT_NS + 2000, false, 127, false, 0);
	MRC_T_EQ(mrc_cc_cwnd(&cc), MTU);
	MRC_T_EQ(stats(&cc).min_cwnd_bytes, MTU);
	MRC_T_EQ(stats(&cc).penalties, 1); /* the same episode */
	/* Cleared with R_C: the pre-penalty window comes back. */
	ack_full(&cc, now, MTU, RTT_NS + 2000, false, 0, true, 0);
	MRC_T_EQ(mrc_cc_cwnd(&cc), 80000);

	/* Cleared without R_C: the penalised window stays and grows from there. */
	ack_full(&cc, now, MTU, RTT_NS + 2000, false, 32, false, 0);
	MRC_T_EQ(mrc_cc_cwnd(&cc), 60000); /* 1 - 32/128 */
	MRC_T_EQ(stats(&cc).penalties, 2);
	ack_full(&cc, now, MTU, RTT_NS + 2000, false, 0, false, 0);
	MRC_T_EQ(mrc_cc_cwnd(&cc), 60000);

	/* R_C on the penalty SACKs is remembered until the penalty clears. */
	ack_full(&cc, now, MTU, RTT_NS + 2000, false, 64, true, 0);
	MRC_T_EQ(mrc_cc_cwnd(&cc), 30000);
	/* A loss during the penalty comes out of NSCC's window; usable shrinks in proportion. */
	mrc_cc_on_loss(&cc, 10000, now);
	MRC_T_EQ(mrc_cc_cwnd(&cc), 25000);
	ack_full(&cc, now, MTU, RTT_NS + 2000, false, 0, false, 0);
	MRC_T_EQ(mrc_cc_cwnd(&cc), 50000); /* restored, less the loss */

	/* Penalty values beyond 7 bits are clamped, not trusted. */
	ack_full(&cc, now, MTU, RTT_NS + 2000, false, 255, false, 0);
	MRC_T_EQ(mrc_cc_cwnd(&cc), MTU);
	return MRC_TEST_OK;
}

/* ---- bounds ---- */

static int
test_bounds(void)
{
	const struct mrc_cc_params p = params(true);
	struct mrc_cc cc;
	struct mrc_rand r;
	uint64_t now = T0;
	uint32_t lo = UINT32_MAX, hi = 0;

	/* Trims cannot take the window below one MTU. */
	MRC_T_EQ(mrc_cc_init(&cc, MRC_CC_NSCC, &p), 0);
	for (int i = 0; i < 100; i++)
		mrc_cc_on_trim(&cc, 50000, false, now);
	MRC_T_EQ(mrc_cc_cwnd(&cc), MTU);
	/* Increases cannot take it above MaxWnd. */
	for (int i = 0; i < 5000; i++) {
		now += 100;
		ack(&cc, now, MTU, i % 2 ? 0 : 5000, false);
	}
	MRC_T_EQ(mrc_cc_cwnd(&cc), MAXWND);

	/* Random events, including nonsense, never leave [MTU, MaxWnd]. */
	mrc_rand_seed(&r, 42);
	MRC_T_EQ(mrc_cc_init(&cc, MRC_CC_NSCC, &p), 0);
	for (int i = 0; i < 200000; i++) {
		const uint32_t x = mrc_rand_u32(&r);
		uint32_t w;

		now += mrc_rand_bounded(&r, 3000);
		switch (x % 16) {
		case 0:
			mrc_cc_on_trim(&cc, mrc_rand_u32(&r) % (2 * MTU), x & 16, now);
			break;
		case 1:
			mrc_cc_on_loss(&cc, x & 32 ? UINT32_MAX : MTU, now);
			break;
		case 2:
			if ((x >> 8) % 64 == 0)
				mrc_cc_on_timeout(&cc, now);
			break;
		default:
			ack_full(&cc, now, x & 64 ? mrc_rand_u32(&r) : MTU,
				(x & 128) ? 0 : (uint32_t)mrc_rand_bounded(&r, 200000),
				(x >> 8) % 3 == 0, (x >> 12) % 50 == 0 ? (uint8_t)(x >> 16) : 0,
				x & 256, mrc_rand_u32(&r) % MAXWND);
		}
		w = mrc_cc_cwnd(&cc);
		MRC_T_ASSERT(w >= MTU && w <= MAXWND, "event %d: cwnd %u", i, w);
		lo = RTE_MIN(lo, w);
		hi = RTE_MAX(hi, w);
	}
	printf("  200000 random events: cwnd stayed in [%u, %u]; base_rtt now %u ns\n", lo, hi,
		stats(&cc).base_rtt_ns);
	MRC_T_EQ(stats(&cc).min_cwnd_bytes, lo);
	MRC_T_ASSERT(stats(&cc).max_cwnd_bytes == MAXWND, "init window counts");
	return MRC_TEST_OK;
}

/* base_rtt follows smaller samples, to the nearest 128 ns; MaxWnd follows it. */
static int
test_base_rtt_tracking(void)
{
	struct mrc_cc_params p = params_no_qa();
	struct mrc_cc cc;

	MRC_T_EQ(mrc_cc_init(&cc, MRC_CC_NSCC, &p), 0);
	ack_full(&cc, T0, MTU, 12000, false, 0, false, 0); /* larger: ignored */
	MRC_T_EQ(stats(&cc).base_rtt_ns, RTT_NS);
	ack_full(&cc, T0, MTU, 8000, false, 0, false, 0); /* 62.5 x 128 -> 63 x 128 */
	MRC_T_EQ(stats(&cc).base_rtt_ns, 8064);
	MRC_T_EQ(mrc_cc_cwnd(&cc), (uint64_t)MAXWND * 8064 / RTT_NS); /* 151200 */
	ack_full(&cc, T0, MTU, 8100, false, 0, false, 0); /* rounds to 8064: no change */
	MRC_T_EQ(stats(&cc).base_rtt_ns, 8064);
	ack_full(&cc, T0, MTU, 8000, false, 0, false, 0); /* lowers the max again? no */
	MRC_T_EQ(mrc_cc_cwnd(&cc), 151200);

	/* A configured MaxWnd is a configuration: it stays. */
	p.max_cwnd_bytes = 150000;
	MRC_T_EQ(mrc_cc_init(&cc, MRC_CC_NSCC, &p), 0);
	ack_full(&cc, T0, MTU, 5000, false, 0, false, 0);
	MRC_T_EQ(stats(&cc).base_rtt_ns, 4992);
	MRC_T_EQ(mrc_cc_cwnd(&cc), 150000);
	return MRC_TEST_OK;
}

/* ---- registry and fixed ---- */

static int
dummy_init(void *priv, const struct mrc_cc_params *p)
{
	RTE_SET_USED(priv);
	RTE_SET_USED(p);
	return 0;
}

static void
dummy_on_ack(void *priv, const struct mrc_cc_ack *a, uint64_t now_tsc)
{
	RTE_SET_USED(priv);
	RTE_SET_USED(a);
	RTE_SET_USED(now_tsc);
}

static void
dummy_on_trim(void *priv, uint32_t bytes, bool lasthop, uint64_t now_tsc)
{
	RTE_SET_USED(priv);
	RTE_SET_USED(bytes);
	RTE_SET_USED(lasthop);
	RTE_SET_USED(now_tsc);
}

static void
dummy_on_loss(void *priv, uint32_t bytes, uint64_t now_tsc)
{
	RTE_SET_USED(priv);
	RTE_SET_USED(bytes);
	RTE_SET_USED(now_tsc);
}

static void
dummy_on_timeout(void *priv, uint64_t now_tsc)
{
	RTE_SET_USED(priv);
	RTE_SET_USED(now_tsc);
}

static uint32_t
dummy_cwnd(const void *priv)
{
	RTE_SET_USED(priv);
	return 12345;
}

static void
dummy_stats(const void *priv, struct mrc_cc_stats *out)
{
	RTE_SET_USED(priv);
	*out = (struct mrc_cc_stats){.cwnd_bytes = 12345};
}

#define DUMMY_OPS(n)                                                                      \
	{                                                                                 \
		.name = n, .priv_size = 8, .init = dummy_init, .on_ack = dummy_on_ack,    \
		.on_trim = dummy_on_trim, .on_loss = dummy_on_loss,                       \
		.on_timeout = dummy_on_timeout, .cwnd = dummy_cwnd, .stats = dummy_stats, \
	}

static int
test_registry(void)
{
	static const struct mrc_cc_ops dup_fixed = DUMMY_OPS("fixed");
	static const struct mrc_cc_ops mine = DUMMY_OPS("test-cc");
	static const struct mrc_cc_ops mine_again = DUMMY_OPS("test-cc");
	static char names[MRC_CC_REGISTRY_MAX + 1][16];
	static struct mrc_cc_ops fill[MRC_CC_REGISTRY_MAX + 1];
	struct mrc_cc_ops bad = DUMMY_OPS("bad");
	const struct mrc_cc_ops *list[2 + MRC_CC_REGISTRY_MAX];
	const struct mrc_cc_params p = params(false);
	struct mrc_cc cc;
	char longname[MRC_CC_NAME_MAX + 1];
	unsigned int i;

	/* Built-ins are there without anyone registering them. */
	MRC_T_ASSERT(mrc_cc_find("uet-1.0-nscc") != NULL, "NSCC built in");
	MRC_T_STREQ(mrc_cc_find("uet-1.0-nscc")->name, "uet-1.0-nscc");
	MRC_T_STREQ(mrc_cc_find("fixed")->name, "fixed");
	MRC_T_ASSERT(mrc_cc_find("nscc") == NULL, "exact names only");
	MRC_T_ASSERT(mrc_cc_find("") == NULL, "empty");
	MRC_T_ASSERT(mrc_cc_find(NULL) == NULL, "NULL");
	MRC_T_EQ(mrc_cc_list(list, 0), 2);

	MRC_T_EQ(mrc_cc_register(&dup_fixed), -EEXIST);
	MRC_T_EQ(mrc_cc_register(NULL), -EINVAL);
	bad.on_loss = NULL;
	MRC_T_EQ(mrc_cc_register(&bad), -EINVAL);
	bad = (struct mrc_cc_ops)DUMMY_OPS("bad");
	bad.priv_size = MRC_CC_PRIV_MAX + 1;
	MRC_T_EQ(mrc_cc_register(&bad), -EINVAL);
	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	bad = (struct mrc_cc_ops)DUMMY_OPS(longname);
	MRC_T_EQ(mrc_cc_register(&bad), -EINVAL);

	MRC_T_EQ(mrc_cc_register(&mine), 0);
	MRC_T_ASSERT(mrc_cc_find("test-cc") == &mine, "registered ops found");
	MRC_T_EQ(mrc_cc_register(&mine_again), -EEXIST);
	MRC_T_EQ(mrc_cc_register(&mine), -EEXIST);
	MRC_T_EQ(mrc_cc_init(&cc, "test-cc", &p), 0);
	MRC_T_EQ(mrc_cc_cwnd(&cc), 12345);

	/* The table is static: it fills up. */
	for (i = 0; i + 1 < MRC_CC_REGISTRY_MAX; i++) {
		snprintf(names[i], sizeof(names[i]), "fill-%u", i);
		fill[i] = (struct mrc_cc_ops)DUMMY_OPS(names[i]);
		MRC_T_EQ(mrc_cc_register(&fill[i]), 0);
	}
	snprintf(names[i], sizeof(names[i]), "fill-%u", i);
	fill[i] = (struct mrc_cc_ops)DUMMY_OPS(names[i]);
	MRC_T_EQ(mrc_cc_register(&fill[i]), -ENOSPC);
	MRC_T_EQ(mrc_cc_list(list, RTE_DIM(list)), 2 + MRC_CC_REGISTRY_MAX);
	MRC_T_ASSERT(list[0] == mrc_cc_find(MRC_CC_NSCC) && list[2] == &mine, "list order");
	MRC_T_ASSERT(mrc_cc_find("fill-0") == &fill[0], "fill-0");
	return MRC_TEST_OK;
}

static int
test_fixed(void)
{
	struct mrc_cc_params p = params(true);
	struct mrc_cc cc;
	struct mrc_cc_stats st;
	uint64_t now = T0;

	MRC_T_EQ(mrc_cc_init(&cc, MRC_CC_FIXED, &p), 0);
	MRC_T_STREQ(mrc_cc_name(&cc), "fixed");
	MRC_T_EQ(mrc_cc_cwnd(&cc), MAXWND); /* 1.5 x BDP */
	for (int i = 0; i < 1000; i++) {
		now += 500;
		ack_full(&cc, now, MTU, RTT_NS + (i % 7) * 10000, i % 3 == 0, i % 100 < 10 ? 64 : 0,
			i % 2, MTU);
		if (i % 50 == 0)
			mrc_cc_on_trim(&cc, MTU, i % 100 == 0, now);
		if (i % 200 == 0)
			mrc_cc_on_loss(&cc, MTU, now);
		if (i % 500 == 0)
			mrc_cc_on_timeout(&cc, now);
		MRC_T_EQ(mrc_cc_cwnd(&cc), MAXWND);
	}
	st = stats(&cc);
	MRC_T_EQ(st.acks, 1000);
	MRC_T_EQ(st.ecn_acks, 334);
	MRC_T_EQ(st.trims, 20);
	MRC_T_EQ(st.losses, 5);
	MRC_T_EQ(st.timeouts, 2);
	MRC_T_EQ(st.penalties, 10);
	MRC_T_EQ(st.md_events + st.qa_events + st.pi_events, 0);
	MRC_T_EQ(st.min_cwnd_bytes, MAXWND);
	MRC_T_EQ(st.max_cwnd_bytes, MAXWND);

	p.fixed_cwnd_bytes = 50000;
	MRC_T_EQ(mrc_cc_init(&cc, MRC_CC_FIXED, &p), 0);
	MRC_T_EQ(mrc_cc_cwnd(&cc), 50000);
	p.fixed_cwnd_bytes = 100; /* below one MTU */
	MRC_T_EQ(mrc_cc_init(&cc, MRC_CC_FIXED, &p), 0);
	MRC_T_EQ(mrc_cc_cwnd(&cc), MTU);
	return MRC_TEST_OK;
}

/* ---- MRC: a network slower than NSCC's 12 us reference ---- */

/*
 * The daemon's emulated fabric: 4 planes x 0.25 Gb/s, base RTT 577 us.
 * UEC's alpha (4 x a x b x MTU / target with b = target / 12 us) would let
 * one window of PI add 48 x more than on the reference network relative to
 * the BDP: 283 KB, four BDPs. With base_rtt in place of 12 us it is
 * 3 x a x MTU, as on a 12 us network with trimming.
 */
static int
test_pi_gain_long_rtt(void)
{
	const struct mrc_cc_params p = {
		.mtu_bytes = MTU,
		.base_rtt_ns = 576832,
		.link_bps = UINT64_C(1000000000),
		.tsc_hz = HZ,
		.trimming_enabled = true,
	};
	struct mrc_cc_nscc_cfg c;

	MRC_T_EQ(mrc_cc_nscc_derive(&p, &c), 0);
	printf("  1 Gb/s x 577 us: BDP %" PRIu64
	       " B, target %u ns, b %.3f, PI max %u B/wnd, fi %u B\n",
		c.bdp_bytes, c.target_qdelay_ns, c.scaling_b_pm / 1000.0, c.pi_max_bytes,
		c.fi_bytes);
	MRC_T_EQ(c.bdp_bytes, 72104);
	MRC_T_EQ(c.scaling_b_pm, 750); /* target / base_rtt, not target / 12 us (36.05) */
	/* 3 x a x MTU = 3 x 0.4807 x 4096 */
	MRC_T_ASSERT(c.pi_max_bytes >= 5900 && c.pi_max_bytes <= 5910, "PI max %u", c.pi_max_bytes);
	MRC_T_ASSERT(c.pi_max_bytes < c.bdp_bytes / 8, "PI max %u", c.pi_max_bytes);
	return MRC_TEST_OK;
}

/* ---- MRC: last-hop congestion (no ECN on the last hop) ---- */

/* Acks of `bytes` every `step` ns from `t` until `end`, delay `delay_ns`, never marked. */
static uint64_t
acks_unmarked(struct mrc_cc *cc, uint64_t t, uint64_t end, uint64_t step, uint32_t delay_ns)
{
	for (; t < end; t += step)
		ack(cc, t, MTU, delay_ns, false);
	return t;
}

/*
 * Delay above target without marks is the fair-increase quadrant. After a
 * TRIMMED_LASTHOP it is also a multiplicative decrease (at most one per
 * base RTT): the last hop has no ECN, its queue is the congestion.
 * A mid-fabric TRIMMED does not arm it (ECN covers those queues).
 */
static int
test_lasthop_delay_cuts(void)
{
	const struct mrc_cc_params p = params(true);
	struct mrc_cc plain, mid, last;
	const uint32_t high = 3 * RTT_NS; /* queueing delay far above target (7.5 us) */
	uint64_t t = T0;

	MRC_T_RUN(nscc_at(&plain, &p, 80000));
	MRC_T_RUN(nscc_at(&mid, &p, 80000));
	MRC_T_RUN(nscc_at(&last, &p, 80000));
	/* Fill the delay averages first (no trim yet: FI only, in all three). */
	acks_unmarked(&plain, t, t + 5 * US, 500, high);
	acks_unmarked(&mid, t, t + 5 * US, 500, high);
	t = acks_unmarked(&last, t, t + 5 * US, 500, high);
	MRC_T_EQ(stats(&last).md_events, 0);
	mrc_cc_on_trim(&mid, MTU, false, t);
	mrc_cc_on_trim(&last, MTU, true, t);
	/* The first trim of an episode is UEC's: the packet out of the window. */
	MRC_T_EQ(mrc_cc_cwnd(&last), mrc_cc_cwnd(&mid));
	acks_unmarked(&plain, t + 1, t + 20 * RTT_NS, 500, high);
	acks_unmarked(&mid, t + 1, t + 20 * RTT_NS, 500, high);
	acks_unmarked(&last, t + 1, t + 20 * RTT_NS, 500, high);
	printf("  20 base RTTs of unmarked acks 30 us above base: cwnd %u (no trim), %u "
	       "(mid-fabric "
	       "trim), %u (last-hop trim, %" PRIu64 " MDs)\n",
		mrc_cc_cwnd(&plain), mrc_cc_cwnd(&mid), mrc_cc_cwnd(&last), stats(&last).md_events);
	MRC_T_EQ(stats(&plain).md_events, 0);
	MRC_T_EQ(stats(&mid).md_events, 0);
	MRC_T_ASSERT(mrc_cc_cwnd(&plain) > 80000 && mrc_cc_cwnd(&mid) > 80000, "FI grew them");
	/* MD at most once per base RTT: 20 RTTs, at most 20 (and at least most of them). */
	MRC_T_ASSERT(stats(&last).md_events >= 15 && stats(&last).md_events <= 20, "%" PRIu64,
		stats(&last).md_events);
	MRC_T_ASSERT(mrc_cc_cwnd(&last) < 80000, "cwnd %u", mrc_cc_cwnd(&last));

	/* 64 base RTTs after the last trim the mode ends: FI only again. */
	{
		const uint64_t md = stats(&last).md_events;
		const uint64_t later = t + 64 * RTT_NS + 1;
		const uint32_t w0 = mrc_cc_cwnd(&last);

		acks_unmarked(&last, later, later + 20 * RTT_NS, 500, high);
		MRC_T_EQ(stats(&last).md_events, md);
		MRC_T_ASSERT(
			mrc_cc_cwnd(&last) > w0, "FI grew it: %u -> %u", w0, mrc_cc_cwnd(&last));
	}
	return MRC_TEST_OK;
}

/*
 * Once last-hop congestion is known, a trim is a mark: one MD per base RTT
 * however many trims, no cwnd -= pkt per trim, and no quick adapt.
 */
static int
test_lasthop_trims_are_marks(void)
{
	const struct mrc_cc_params p = params(true);
	struct mrc_cc cc;
	uint64_t t = T0;
	uint32_t w;

	MRC_T_EQ(mrc_cc_init(&cc, MRC_CC_NSCC, &p), 0);
	t = acks_unmarked(&cc, t, t + 4 * US, 1000, 3 * RTT_NS); /* 4 acks */
	mrc_cc_on_trim(&cc, MTU, true, t); /* arms it: MaxWnd - MTU, QA trigger */
	MRC_T_EQ(mrc_cc_cwnd(&cc), MAXWND - MTU);
	/* 10 more trims within a base RTT: exactly one MD, nothing taken per packet. */
	for (int i = 0; i < 10; i++)
		mrc_cc_on_trim(&cc, MTU, true, t + 100 + (uint64_t)i * 100);
	MRC_T_EQ(stats(&cc).md_events, 1);
	w = mrc_cc_cwnd(&cc);
	MRC_T_ASSERT(w < (MAXWND - MTU) * 7 / 8 && w >= (MAXWND - MTU) / 2, "cwnd %u", w);
	/*
	 * A QA period later (17.5 us) with 5 packets achieved: the arming
	 * trim's trigger fires QA once (UEC: incast onset) ...
	 */
	ack(&cc, t + 20 * US, MTU, 3 * RTT_NS, false);
	MRC_T_EQ(stats(&cc).qa_events, 1);
	MRC_T_EQ(mrc_cc_cwnd(&cc), 5 * MTU);
	/* ... but later trims, while the mode lasts, never arm it again. */
	for (uint64_t k = 1; k <= 4; k++) {
		const uint64_t at = t + 20 * US + k * 20 * US;

		mrc_cc_on_trim(&cc, MTU, true, at);
		ack(&cc, at + 19 * US, 1, 3 * RTT_NS, false);
	}
	MRC_T_EQ(stats(&cc).qa_events, 1);
	MRC_T_EQ(stats(&cc).trims, 15);
	return MRC_TEST_OK;
}

/* cwnd x UEC's MD factor for gain gamma_pm at avg_delay avg_ns, as NSCC computes it (Q16). */
static uint32_t
md_expect(uint32_t cwnd, uint32_t gamma_pm, uint32_t avg_ns, uint32_t target_ns)
{
	const uint64_t f_q16 = 65536 - ((uint64_t)gamma_pm << 16) * (avg_ns - target_ns) /
					       ((uint64_t)1000 * avg_ns);

	return (uint32_t)(((uint64_t)cwnd * f_q16) >> 16);
}

/*
 * The decreases last-hop mode adds (delay above target, a further trim) use
 * gamma 0.5; an MD on ECN keeps UEC's 0.8. With avg_delay at 10 us against a
 * 7.5 us target they cut to 0.875 x and 0.8 x.
 */
static int
test_lasthop_md_gain(void)
{
	struct mrc_cc_params p = params(true);
	struct mrc_cc_nscc_cfg c;
	struct mrc_cc cc;
	const uint32_t d = RTT_NS; /* = the delay a trim feeds in, so avg_delay stays put */
	uint64_t t = T0;
	uint32_t w, want;

	p.disable_qa = true;
	p.disable_ecn_gate = true;
	MRC_T_EQ(mrc_cc_nscc_derive(&p, &c), 0);
	MRC_T_EQ(c.target_qdelay_ns, 7500);
	MRC_T_EQ(mrc_cc_init(&cc, MRC_CC_NSCC, &p), 0);
	/* Marked acks settle avg_delay at d (ECN MDs on the way, no increase pending). */
	for (int i = 0; i < 120; i++, t += 80)
		ack(&cc, t, 1, d, true);
	MRC_T_EQ(stats(&cc).avg_delay_ns, d);
	t = T0 + 11 * US; /* a base RTT after the fill's last MD */
	w = mrc_cc_cwnd(&cc);
	mrc_cc_on_trim(&cc, MTU, true, t); /* arms the mode: the packet out of the window */
	MRC_T_EQ(mrc_cc_cwnd(&cc), w - MTU);
	w -= MTU;

	/* Delay above target, unmarked: 0.875 x (plus eta: an adjust period has passed). */
	ack(&cc, t + 1, 0, d, false);
	want = md_expect(w, 500, d, 7500) + c.eta_bytes;
	printf("  last-hop MD on delay: %u -> %u (gamma 0.5: %u, UEC's 0.8: %u)\n", w,
		mrc_cc_cwnd(&cc), want, md_expect(w, 800, d, 7500) + c.eta_bytes);
	MRC_T_EQ(mrc_cc_cwnd(&cc), want);
	w = want;

	/* A further last-hop trim is a mark: the same 0.875 x. */
	t += 11 * US;
	mrc_cc_on_trim(&cc, MTU, true, t);
	MRC_T_EQ(mrc_cc_cwnd(&cc), md_expect(w, 500, d, 7500));
	w = mrc_cc_cwnd(&cc);

	/* An ECN mark in the same episode is UEC's quadrant: 0.8 x. */
	t += 11 * US;
	ack(&cc, t, 0, d, true);
	MRC_T_EQ(mrc_cc_cwnd(&cc), md_expect(w, 800, d, 7500) + c.eta_bytes);
	MRC_T_EQ(stats(&cc).md_events, 4);
	return MRC_TEST_OK;
}

/* ---- convergence on a fluid bottleneck ---- */

/*
 * Two NSCC flows share one 100 Gb/s bottleneck with a 10 us base RTT. Every
 * dt (250 ns) each flow offers cwnd / (base_rtt + queueing delay) bytes per
 * ns; the link serves 12.5 B/ns, split in proportion to what was offered,
 * and the rest queues; delay = queue / capacity. ECN marks everything while
 * the queue is above Kmin = 0.2 x BDP (the UEC switch default, made
 * deterministic). With trimming, the queue is cut at the trim threshold,
 * 1 x BDP, and what overflows comes back as trims (one per MTU). Served
 * bytes come back as one ack per MTU carrying that moment's delay and mark.
 */
struct fluid_result {
	double share[2];   /* fraction of the capacity each flow got at the end */
	double util;	   /* of the link at the end */
	double max_queue;  /* bytes, at the end */
	double mean_queue; /* bytes, at the end */
	uint32_t cwnd[2];
	uint64_t md[2];
	uint64_t qa[2];
	uint64_t trims[2];
};

static int
fluid_run(struct fluid_result *res, bool trimming, uint32_t start_b, int verbose)
{
	const double cap = LINK / 8e9; /* bytes per ns */
	const double kmin = 0.2 * BDP, trim_at = 1.0 * BDP;
	const uint64_t dt = 250, end = 20 * 1000 * 1000; /* 20 ms = 2000 base RTTs */
	const uint64_t measure_from = 15 * 1000 * 1000;
	const struct mrc_cc_params p = params(trimming);
	struct mrc_cc f[2];
	double pending[2] = {0, 0}, trimmed[2] = {0, 0}, served_end[2] = {0, 0};
	double q = 0, qsum = 0;
	uint64_t nq = 0;

	memset(res, 0, sizeof(*res));
	MRC_T_EQ(mrc_cc_init(&f[0], MRC_CC_NSCC, &p), 0);
	MRC_T_EQ(mrc_cc_init(&f[1], MRC_CC_NSCC, &p), 0);
	/* Flow 1 starts from a smaller window: a loss takes it down. */
	if (start_b < MAXWND)
		mrc_cc_on_loss(&f[1], MAXWND - start_b, 0);
	for (uint64_t t = dt; t <= end; t += dt) {
		double rate[2], in, out, over = 0;

		for (int i = 0; i < 2; i++)
			rate[i] = mrc_cc_cwnd(&f[i]) / (RTT_NS + q / cap);
		in = (rate[0] + rate[1]) * dt;
		out = RTE_MIN(q + in, cap * dt);
		q = q + in - out;
		if (trimming && q > trim_at) {
			over = q - trim_at;
			q = trim_at;
		}
		for (int i = 0; i < 2; i++) {
			const double frac = rate[i] / (rate[0] + rate[1]);

			pending[i] += out * frac;
			trimmed[i] += over * frac;
			if (t > measure_from)
				served_end[i] += out * frac;
			while (trimmed[i] >= MTU) {
				trimmed[i] -= MTU;
				mrc_cc_on_trim(&f[i], MTU, false, t);
			}
			while (pending[i] >= MTU) {
				pending[i] -= MTU;
				ack_full(&f[i], t, MTU, RTT_NS + (uint32_t)(q / cap), q > kmin, 0,
					false, mrc_cc_cwnd(&f[i]));
			}
		}
		if (t > measure_from) {
			res->max_queue = RTE_MAX(res->max_queue, q);
			qsum += q;
			nq++;
		}
		if (verbose && t % (2 * 1000 * 1000) == 0)
			printf("  t %4.1f ms: cwnd %6u %6u, queue %6.0f B (%4.1f us)\n", t / 1e6,
				mrc_cc_cwnd(&f[0]), mrc_cc_cwnd(&f[1]), q, q / cap / 1e3);
	}
	for (int i = 0; i < 2; i++) {
		const struct mrc_cc_stats st = stats(&f[i]);

		res->share[i] = served_end[i] / (cap * (end - measure_from));
		res->cwnd[i] = mrc_cc_cwnd(&f[i]);
		res->md[i] = st.md_events;
		res->qa[i] = st.qa_events;
		res->trims[i] = st.trims;
	}
	res->util = res->share[0] + res->share[1];
	res->mean_queue = qsum / nq;
	if (verbose)
		printf("  last 5 ms: shares %.3f / %.3f (utilisation %.3f), queue mean %.0f max "
		       "%.0f B;"
		       " MD %" PRIu64 " / %" PRIu64 ", QA %" PRIu64 " / %" PRIu64 ", trims %" PRIu64
		       " / %" PRIu64 "\n",
			res->share[0], res->share[1], res->util, res->mean_queue, res->max_queue,
			res->md[0], res->md[1], res->qa[0], res->qa[1], res->trims[0],
			res->trims[1]);
	return MRC_TEST_OK;
}

static int
check_fair(const struct fluid_result *r, double target_queue)
{
	for (int i = 0; i < 2; i++)
		MRC_T_ASSERT(r->share[i] > 0.4 && r->share[i] < 0.6,
			"flow %d share %.3f not within 20%% of 0.5", i, r->share[i]);
	MRC_T_ASSERT(r->util > 0.95, "link utilisation %.3f", r->util);
	/* The queue settles at the delay target, not above it. */
	MRC_T_ASSERT(r->max_queue < 1.25 * target_queue, "queue %.0f", r->max_queue);
	MRC_T_ASSERT(r->md[0] > 0 && r->md[1] > 0, "both flows saw MDs");
	return MRC_TEST_OK;
}

static int
test_convergence_two_flows(void)
{
	struct fluid_result r, again;

	/* No trimming: target 10 us = a queue of 1 x BDP. Flow 1 starts at 4 packets. */
	printf("  no trimming, flows start at %u and %u B:\n", MAXWND, 4 * MTU);
	MRC_T_RUN(fluid_run(&r, false, 4 * MTU, 1));
	MRC_T_RUN(check_fair(&r, BDP));

	/* Deterministic: the same run gives the same numbers, bit for bit. */
	MRC_T_RUN(fluid_run(&again, false, 4 * MTU, 0));
	MRC_T_ASSERT(memcmp(&r, &again, sizeof(r)) == 0, "two runs differ");

	/* Trimming: target 7.5 us = a queue of 0.75 x BDP. */
	printf("  trimming, flows start at %u and %u B:\n", MAXWND, 4 * MTU);
	MRC_T_RUN(fluid_run(&r, true, 4 * MTU, 1));
	MRC_T_RUN(check_fair(&r, 0.75 * BDP));
	/* Both start full: 2 x MaxWnd overflows the 1 x BDP queue, so there are trims. */
	MRC_T_RUN(fluid_run(&r, true, MAXWND, 0));
	printf("  trimming, both start at %u B: shares %.3f / %.3f, trims %" PRIu64 " / %" PRIu64
	       ", queue max %.0f B\n",
		MAXWND, r.share[0], r.share[1], r.trims[0], r.trims[1], r.max_queue);
	MRC_T_RUN(check_fair(&r, 0.75 * BDP));
	MRC_T_ASSERT(r.trims[0] > 0 && r.trims[1] > 0, "the start overflowed the queue");
	return MRC_TEST_OK;
}

static const struct mrc_test_case cases[] = {
	MRC_TEST_CASE(test_defaults_derived),
	MRC_TEST_CASE(test_params_invalid),
	MRC_TEST_CASE(test_sizes),
	MRC_TEST_CASE(test_quadrant_pi),
	MRC_TEST_CASE(test_quadrant_fi),
	MRC_TEST_CASE(test_quadrant_hold),
	MRC_TEST_CASE(test_quadrant_md),
	MRC_TEST_CASE(test_md_once_per_rtt),
	MRC_TEST_CASE(test_md_bounded),
	MRC_TEST_CASE(test_ecn_widespread_gate),
	MRC_TEST_CASE(test_quick_adapt_trim),
	MRC_TEST_CASE(test_quick_adapt_loss_and_conditions),
	MRC_TEST_CASE(test_quick_adapt_silent_loss_needs_full_window),
	MRC_TEST_CASE(test_receiver_penalty),
	MRC_TEST_CASE(test_bounds),
	MRC_TEST_CASE(test_base_rtt_tracking),
	MRC_TEST_CASE(test_registry),
	MRC_TEST_CASE(test_fixed),
	MRC_TEST_CASE(test_convergence_two_flows),
	MRC_TEST_CASE(test_pi_gain_long_rtt),
	MRC_TEST_CASE(test_lasthop_delay_cuts),
	MRC_TEST_CASE(test_lasthop_trims_are_marks),
	MRC_TEST_CASE(test_lasthop_md_gain),
};

MRC_TEST_MAIN("cc_nscc", cases)
