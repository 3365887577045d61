/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * NSCC, "uet-1.0-nscc": UET 1.0's Network Signal-based Congestion Control,
 * MRC's default algorithm (doc/protocol.md, "Congestion control"; defaults
 * from UEC 1.0.3 Table 3-82).
 *
 * What it controls
 * ----------------
 * A byte-granular congestion window: the QP may have cwnd bytes in flight.
 * The window moves only on SACKs (it is ack-clocked), on trim NACKs, on
 * losses rel reports and on retransmit timeouts. It lives in [1 MTU, MaxWnd].
 *
 * The numbers it starts from (MaxWnd, target delay, gains) are derived from
 * the link speed and base RTT in mrc_cc_nscc_derive.c.
 *
 * The signals
 * -----------
 * Every SACK gives an RTT sample (echoed timestamp) and an ECN verdict (the
 * SACK's M field). queueing delay = RTT - base_rtt, where base_rtt is the
 * configured value until a smaller RTT is seen, then the minimum observed,
 * kept to the nearest 128 ns (the UEC granularity). A smoothed delay
 * avg_delay (EWMA, gain 1/8 per sample) sizes multiplicative decreases.
 *
 * The four quadrants (one per SACK, on its own delay sample)
 * ----------------------------------------------------------
 *                    delay < target               delay >= target
 *   no ECN   proportional increase (PI)      fair increase (FI)
 *   ECN      hold: no change (the path is    multiplicative decrease (MD)
 *            marked but the queue is short:
 *            a load-balancing problem; the
 *            QP has already moved off that EV)
 *
 * PI:  the window grows in proportion to the headroom left below the target:
 *      each acked byte adds alpha x (target - delay) to a pending-increase
 *      accumulator. FI: each acked byte adds fi (the queue is at target, so
 *      grow slowly and by the same amount for every flow, which is what
 *      makes flows converge to a fair share). The accumulator is in bytes^2
 *      and is divided by cwnd when applied: one window of acks - one RTT -
 *      adds alpha x (target - delay) or fi bytes, whatever the window size.
 *      Fast increase (fi_scale): while the queue is empty (delay < 1 us, or
 *      target/2 when that is smaller) for more than a window of acked bytes,
 *      the window instead grows by fi_scale x acked bytes at once (x1.25 per
 *      RTT), to find newly free capacity quickly.
 * MD:  cwnd *= max(1 - gamma x (avg_delay - target) / avg_delay, max_md_jump)
 *      when avg_delay > target (a single high sample with a low average is
 *      not yet a standing queue: nothing happens), at most once per base_rtt
 *      however many marked acks arrive: the acks of one RTT all describe the
 *      same queue.
 *
 * The adjust period: pending increases are applied when adjust_bytes_threshold
 * bytes were acked or adjust_period passed since the last adjustment; once
 * per adjust period, eta is also added - a small additive probe that keeps
 * flows moving towards fairness even in the hold quadrant.
 *
 * Trims, losses, timeouts and quick adapt
 * ---------------------------------------
 * A trimmed packet (NACK TRIMMED) takes its bytes out of the window
 * (UET: cwnd -= pkt). TRIMMED_LASTHOP does the same: UET exempts last-hop
 * trims only when its receiver-credit CC (RCCC) handles incast, and MRC runs
 * without RCCC. A trim also feeds one base_rtt into avg_delay: trimming
 * starts at a queue of 1 x BDP, i.e. about one base RTT of queueing.
 * A loss reported by rel does the same as a trim, minus the delay sample,
 * only where the network does not trim. Where it trims, congestion shows as
 * trims, marks and delay first, and a silent loss is corruption or a dead
 * path (the EV layer's business): it only arms quick adapt (nscc_on_loss),
 * and only if an ack of the period found the window full: a sender with
 * less to send than its window acks little whatever the network does.
 *
 * Quick adapt handles the cases where the window is far too big (incast, a
 * dead plane): NSCC counts the bytes actually acked in each period of
 * base_rtt + target_qdelay. At the end of a period in which there was a
 * trim, loss or timeout - or, without trimming, a delay sample above
 * qa_threshold - and in which fewer than MaxWnd >> qa_gate bytes were acked,
 * the window is set to what was achieved (at least one MTU; never up). Then the
 * signals from the packets already in flight (sent under the old window) are
 * stale: for the next in-flight bytes of acks, marked acks and trims do not
 * move the window again. By construction quick adapt fires at most once per
 * period, so at most once per base RTT.
 *
 * The receiver's penalty
 * ----------------------
 * A responder short of host resources sets rcv_cwnd_pen p (0..127) in its
 * SACKs: the window the sender may use becomes cwnd x (1 - p/128), at least
 * one MTU: 64 halves it, 127 leaves about one packet per RTT. The window
 * NSCC holds is kept as it was (the "pre-penalty window"); while a penalty
 * is on, increases (PI, FI, fast, eta) are frozen - the acks now pace the
 * receiver, not the network, so they show no network headroom - while
 * decreases still apply to it: MD and trims as usual (the usable window
 * shrinks in proportion), quick adapt so that the usable window becomes the
 * achieved bytes. When SACKs come back with p = 0, R_C decides:
 * set (on the clearing SACK or on any SACK of the episode) restores the
 * pre-penalty window; clear keeps the penalised window and lets NSCC grow it.
 *
 * MRC: mild congestion is the EV layer's job
 * ------------------------------------------
 * In MRC, ECN first moves traffic to another EV (the SACK says SKIP for that
 * EV; the QP layer does it); only widespread congestion should cut the rate
 * (doc/protocol.md, "Congestion control"). So NSCC counts acks and marked acks over the current
 * and the previous adjust period (a period with fewer than 8 acks is merged
 * into the next one), and a marked ack counts as marked for the quadrant
 * decision only when more than ecn_widespread_pct (default 25%) of those
 * acks were marked, out of at least 4. A few marks - one EV on a hot link
 * among many good ones - leave the rate alone (PI/FI as if unmarked); marks
 * on more than a quarter of the acks mean congestion on many paths at once,
 * which moving traffic cannot fix, and the rate must come down.
 * disable_ecn_gate gives plain UEC behaviour.
 *
 * MRC: last-hop incast (no ECN on the last hop, no RCCC)
 * ------------------------------------------------------
 * The last hop marks nothing (doc/protocol.md, "Traffic classes, DSCP and
 * trimming"), so in an incast plain NSCC
 * sees only delay above target (fair increase, 5 MTU x a per flow per RTT:
 * with 7 flows about a BDP per RTT), trims (cwnd -= pkt: an additive
 * decrease, which keeps flows as unequal as they are) and quick adapt,
 * which cuts whichever flow got fewest bytes through in one period. The
 * queue then sits at the trim threshold, resends are trimmed again and
 * again, and some flows starve for tens of RTTs. So a TRIMMED_LASTHOP NACK
 * arms a last-hop mode for NSCC_LASTHOP_RTTS base RTTs (re-armed by every
 * last-hop trim): an unmarked ack with delay >= target then also does a
 * multiplicative decrease (at most once per base RTT, the usual factor),
 * and a further trim is one more mark (an MD if due; no cwnd -= pkt, no
 * quick-adapt trigger). Additive fair increase plus multiplicative
 * decrease converges to equal windows with the queue near the target. The
 * first trim of an episode is handled as UEC says (incast onset: QA may
 * fire); mid-fabric TRIMMED leaves the mode alone (ECN covers those queues).
 *
 * The decreases the mode adds use gamma 0.5 (NSCC_LASTHOP_GAMMA_PM), not
 * UEC's 0.8; MD on ECN keeps UEC's. UEC's MD follows marks; here delay is
 * above target on nearly every ack, so a cut comes every base RTT, and at
 * that pace the size of a cut is set mostly by the fair increase it has to
 * undo (fi x MD interval / (cwnd x RTT): 0.2-0.3 at 7:1 on the daemon's
 * network), whatever gamma is. Gamma decides how far above target the queue
 * settles for gamma x (avg - target) / avg to come out at that size, and
 * how much a flow's own error in avg_delay moves its cut: (gamma - cut) x
 * the relative error. Each flow's average is off by about 9% (its 5 or 6
 * packets per RTT cross 4 last-hop queues at different moments); with 0.8
 * half of that reaches the cut, the 7 windows scatter by 15% and one
 * message in 100 takes 1.12 x its fair share or more. With 0.5 about a
 * quarter does: windows scatter by 11%, the tail is 1.09 x, for a queue at
 * 1.8 instead of 1.6 x the target and 17% instead of 9% of the packets
 * trimmed (a trim costs the bottleneck only a header). A slower avg_delay
 * (1/64 per ack; the UEC reference simulator's is 0.0125) with gamma 0.8
 * got 1.11: it also slows the loop that holds the shared queue. This needs
 * room between the target and the trim threshold (there: 1.8 BDP of
 * queue); with trimming at 0.9 BDP, cuts on delay cannot grow large enough
 * before the queue trims, and 0.5 makes that tail worse (1.23 -> 1.29).
 *
 * MRC: networks slower than NSCC's 12 us reference
 * ------------------------------------------------
 * alpha = 4 x a x b x MTU / target with b = target / 12 us lets one window
 * of PI add 4 x a x b MTU: on the daemon's emulated fabric (577 us base
 * RTT, b = 36) 283 KB, four BDPs, and windows jump from 1 MTU to MaxWnd in
 * one step. For base_rtt > 12 us, b = target / base_rtt instead (0.75 with
 * trimming), the same relative gain as on a 12 us network.
 *
 * Choices where the sources are vague (see also the header's field docs)
 * ----------------------------------------------------------------------
 * - Gains are integers: per-mille ratios, bytes, ns; alpha is Q16.16 bytes
 *   per ns and the MD factor is computed in Q16 (per-mille would round the
 *   fraction-of-a-percent cuts near the target down to nothing). All
 *   arithmetic is integer, so runs are bit-for-bit repeatable.
 * - avg_delay is an EWMA with gain 1/8 per RTT sample (the UEC filter
 *   constant is not in our notes; the UEC reference simulator smooths much
 *   more slowly, which delays the first MD by many RTTs at startup).
 * - An ack without an RTT sample (rtt_ns = 0) uses avg_delay as its delay.
 * - fi_scale is applied as given (0.25), not multiplied by scaling_a.
 * - MaxWnd follows a lower base_rtt (scaled by new/old base) when it was
 *   derived, not configured; target_qdelay, the gains and the adjust period
 *   are network constants and stay as configured.
 * - Achieved bytes come from newly_acked_bytes (rel's exact, wrap-free SACK
 *   accounting), not from the CC_STATE received-bytes counter, which is 24
 *   bits of unverified 256-byte units on the wire.
 * - Quick adapt never raises the window (achieved >= cwnd: nothing to do).
 * - The quick-adapt trigger is consumed at the end of its period even when
 *   enough bytes were achieved (a trim long ago does not arm quick adapt for
 *   an unrelated slowdown later). After quick adapt the stale-signal window
 *   is the ack's inflight_bytes, or the pre-adapt window for a trim, loss
 *   or timeout.
 * - A retransmit timeout only triggers quick adapt; it does not collapse the
 *   window: in MRC a timeout usually means a dead path, which the EV layer
 *   retires, and quick adapt already shrinks the window when the whole
 *   connection stopped delivering.
 *
 * Cost: on_ack is a few dozen integer operations, one 64-bit division when
 * pending increases are applied (once per adjust period) and one more per MD.
 */

#include <assert.h>
#include <errno.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>

#include "mrc_cc_priv.h"
#include "mrc_time.h"

/* Acks in the ECN window before its fraction means anything. */
#define NSCC_ECN_MIN_ACKS 4
/* Acks an adjust period needs before it becomes the ECN window's "previous". */
#define NSCC_ECN_ROLL_ACKS 8
/* Queueing delay samples are capped here: 268 ms, so the EWMA (x8) fits 32 bits. */
#define NSCC_DELAY_CAP_NS (UINT32_C(1) << 28)
/* Bytes one SACK can report for the gain products (16 MiB). */
#define NSCC_ACKED_CAP (UINT32_C(1) << 24)
/* How long a last-hop trim keeps queueing delay a rate signal, in base RTTs. */
#define NSCC_LASTHOP_RTTS 64
/* MD gain of last-hop mode's own decreases, per mille (UEC's gamma: 800). */
#define NSCC_LASTHOP_GAMMA_PM 500
/* base_rtt granularity (UEC: nearest 128 ns). */
#define NSCC_RTT_GRAIN_SHIFT 7

enum {
	NSCC_F_STARTED = 1 << 0,     /* deadlines set from the first event's time */
	NSCC_F_QA_TRIGGER = 1 << 1,  /* a trim/loss/timeout happened this QA period */
	NSCC_F_FAST = 1 << 2,	     /* in fast increase */
	NSCC_F_PEN_RESTORE = 1 << 3, /* R_C seen during this penalty episode */
	NSCC_F_NO_QA = 1 << 4,	     /* quick adapt disabled */
	NSCC_F_MAX_DERIVED = 1 << 5, /* MaxWnd derived from base_rtt: follows it */
	NSCC_F_TRIMMING = 1 << 6,    /* the network trims: a silent loss is no congestion sign */
	NSCC_F_QA_SILENT = 1 << 7,   /* a silent loss (the network trims) this QA period */
	NSCC_F_WND_FULL = 1 << 8,    /* an ack this QA period found the window full */
	NSCC_F_ALL = (1 << 9) - 1,   /* nscc_state.flags holds 9 bits */
};

/*
 * Control state: what on_ack needs. Ordered by size; 128 bytes (two cache
 * lines). Times are absolute TSC deadlines or ns durations; ns -> tsc is a
 * multiply by tsc_per_ns_q16 and a shift. With the counters, 184 bytes: the
 * ops pointer and all of it fill three lines when struct mrc_cc starts a
 * line (the QP's does), so an ack touches three lines, not four; hence the
 * MTU's 16 bits (mrc_cc_params_check: <= 65535), the penalty's 7 bits
 * beside the flags, and the ack count (a counter) in the state's last word.
 */
struct nscc_state {
	uint64_t adjust_due_tsc;    /* next time-based adjustment (and eta) */
	uint64_t md_ok_tsc;	    /* earliest time of the next MD */
	uint64_t qa_due_tsc;	    /* end of the current quick-adapt period */
	uint64_t inc_acc;	    /* pending increase, bytes^2 (divided by cwnd) */
	uint64_t lasthop_until_tsc; /* last-hop congestion seen (a trim) until then */
	uint32_t cwnd_bytes;	    /* NSCC's window, before any receiver penalty */
	uint32_t max_cwnd_bytes;
	uint32_t base_rtt_ns;
	uint32_t target_qdelay_ns;
	uint32_t avg_delay_x8;	  /* EWMA of queueing delay, ns x 8 */
	uint32_t qa_threshold_ns; /* 0: delay trigger off */
	uint32_t adjust_period_ns;
	uint32_t tsc_per_ns_q16;
	uint32_t adjust_bytes_threshold;
	uint32_t adjust_acc_bytes; /* acked since the last adjustment */
	uint32_t achieved_bytes;   /* acked in the current quick-adapt period */
	uint32_t stale_bytes;	   /* acks still to ignore after a quick adapt */
	uint32_t fast_acc_bytes;   /* acked while the queue stayed empty */
	uint32_t alpha_q16;	   /* PI gain, bytes per ns of headroom, Q16.16 */
	uint32_t fi_bytes;
	uint32_t eta_bytes;
	uint16_t gamma_pm;
	uint16_t max_md_jump_pm;
	uint16_t fi_scale_pm;
	uint16_t ecn_cur_acks; /* ECN gate window: this adjust period ... */
	uint16_t ecn_cur_marked;
	uint16_t ecn_prev_acks; /* ... and the previous one */
	uint16_t ecn_prev_marked;
	uint16_t mtu_bytes;
	uint8_t qa_gate;
	uint8_t ecn_pct;    /* 0: gate off, every mark counts */
	uint16_t flags : 9; /* NSCC_F_* */
	uint16_t pen : 7;   /* receiver penalty in force, 0..127 */
	uint32_t acks;	    /* acks taken (a counter: struct mrc_cc_stats) */
};

static_assert(sizeof(struct nscc_state) == 128, "NSCC control state is two cache lines");

/* Per-instance event counts (wrap at 2^32; see struct mrc_cc_stats). */
struct nscc_counters {
	uint32_t ecn_acks;
	uint32_t ecn_gated;
	uint32_t pi;
	uint32_t fast;
	uint32_t fi;
	uint32_t md;
	uint32_t hold;
	uint32_t qa;
	uint32_t trims;
	uint32_t losses;
	uint32_t timeouts;
	uint32_t penalties;
	uint32_t min_cwnd_bytes;
	uint32_t max_cwnd_bytes;
};

struct nscc {
	struct nscc_state s;
	struct nscc_counters c;
};

static_assert(sizeof(struct nscc) <= MRC_CC_PRIV_MAX, "NSCC fits struct mrc_cc");
static_assert(sizeof(struct nscc) <= MRC_CC_PRIV_LINES, "NSCC and ops fill three lines");

static int
nscc_init(void *priv, const struct mrc_cc_params *p)
{
	struct nscc *n = priv;
	struct nscc_state *s = &n->s;
	struct mrc_cc_nscc_cfg c;
	int rc;

	rc = mrc_cc_nscc_derive(p, &c);
	if (rc != 0)
		return rc;
	memset(n, 0, sizeof(*n));
	s->cwnd_bytes = c.max_cwnd_bytes; /* start "full": MaxWnd is the initial window */
	s->max_cwnd_bytes = c.max_cwnd_bytes;
	s->mtu_bytes = c.mtu_bytes;
	s->base_rtt_ns = c.base_rtt_ns;
	s->target_qdelay_ns = c.target_qdelay_ns;
	s->qa_threshold_ns = c.qa_threshold_ns;
	s->adjust_period_ns = c.adjust_period_ns;
	s->tsc_per_ns_q16 = (uint32_t)mrc_muldiv_u64(p->tsc_hz, 65536, MRC_NS_PER_S);
	s->adjust_bytes_threshold = c.adjust_bytes_threshold;
	s->alpha_q16 = c.alpha_q16;
	s->fi_bytes = c.fi_bytes;
	s->eta_bytes = c.eta_bytes;
	s->gamma_pm = c.gamma_pm;
	s->max_md_jump_pm = c.max_md_jump_pm;
	s->fi_scale_pm = c.fi_scale_pm;
	s->qa_gate = c.qa_gate;
	s->ecn_pct = c.ecn_widespread_pct;
	s->flags = (c.disable_qa ? NSCC_F_NO_QA : 0) |
		   (p->max_cwnd_bytes == 0 ? NSCC_F_MAX_DERIVED : 0) |
		   (p->trimming_enabled ? NSCC_F_TRIMMING : 0);
	n->c.min_cwnd_bytes = s->cwnd_bytes;
	n->c.max_cwnd_bytes = s->cwnd_bytes;
	return 0;
}

/* ---- helpers ---- */

static inline uint64_t
ns_to_tsc(const struct nscc_state *s, uint64_t ns)
{
	return (ns * s->tsc_per_ns_q16) >> 16;
}

static inline uint32_t
avg_delay_ns(const struct nscc_state *s)
{
	return s->avg_delay_x8 >> 3;
}

static inline void
avg_delay_add(struct nscc_state *s, uint32_t delay_ns)
{
	s->avg_delay_x8 = s->avg_delay_x8 - (s->avg_delay_x8 >> 3) + delay_ns;
}

/* Pending increase += x (at most 2^54 per call), saturating. */
static inline void
inc_add(struct nscc_state *s, uint64_t x)
{
	s->inc_acc = s->inc_acc > UINT64_MAX - x ? UINT64_MAX : s->inc_acc + x;
}

static inline void
clamp_cwnd(struct nscc_state *s)
{
	s->cwnd_bytes = mrc_cc_clamp32(s->cwnd_bytes, s->mtu_bytes, s->max_cwnd_bytes);
}

/* The window the QP may use: NSCC's window scaled by the receiver penalty. */
static inline uint32_t
usable_cwnd(const struct nscc_state *s)
{
	uint32_t w;

	if (likely(s->pen == 0))
		return s->cwnd_bytes;
	w = (uint32_t)(((uint64_t)s->cwnd_bytes * (128u - s->pen)) >> 7);
	return RTE_MAX(w, s->mtu_bytes);
}

/* Make the usable window `bytes` (clamped), undoing the penalty's scaling. */
static void
set_usable_cwnd(struct nscc_state *s, uint64_t bytes)
{
	if (s->pen != 0)
		bytes = bytes * 128 / (128u - s->pen);
	s->cwnd_bytes = mrc_cc_clamp32(bytes, s->mtu_bytes, s->max_cwnd_bytes);
}

static inline void
note_cwnd(struct nscc *n)
{
	const uint32_t w = usable_cwnd(&n->s);

	if (w < n->c.min_cwnd_bytes)
		n->c.min_cwnd_bytes = w;
	if (w > n->c.max_cwnd_bytes)
		n->c.max_cwnd_bytes = w;
}

/* The first event fixes the origin of the periods (init has no clock). */
static inline void
start(struct nscc_state *s, uint64_t now_tsc)
{
	if (likely(s->flags & NSCC_F_STARTED))
		return;
	s->flags |= NSCC_F_STARTED;
	s->adjust_due_tsc = now_tsc + ns_to_tsc(s, s->adjust_period_ns);
	s->qa_due_tsc = now_tsc + ns_to_tsc(s, (uint64_t)s->base_rtt_ns + s->target_qdelay_ns);
	s->md_ok_tsc = now_tsc;
}

/* A smaller RTT than base_rtt: the path is shorter than configured. */
static void
lower_base_rtt(struct nscc_state *s, uint32_t rtt_ns)
{
	const uint32_t grain = 1u << NSCC_RTT_GRAIN_SHIFT;
	uint32_t base = ((rtt_ns + grain / 2) >> NSCC_RTT_GRAIN_SHIFT) << NSCC_RTT_GRAIN_SHIFT;

	if (base == 0)
		base = grain;
	if (base >= s->base_rtt_ns)
		return;
	if (s->flags & NSCC_F_MAX_DERIVED) {
		/* MaxWnd = 1.5 x BDP and BDP is proportional to base_rtt. */
		uint64_t max = (uint64_t)s->max_cwnd_bytes * base / s->base_rtt_ns;

		s->max_cwnd_bytes = (uint32_t)RTE_MAX(max, (uint64_t)s->mtu_bytes);
		clamp_cwnd(s);
	}
	s->base_rtt_ns = base;
}

/* Queueing delay of this ack; updates base_rtt and avg_delay. */
static inline uint32_t
delay_sample(struct nscc_state *s, uint32_t rtt_ns)
{
	uint32_t d;

	if (rtt_ns == 0)
		return avg_delay_ns(s);
	if (unlikely(rtt_ns < s->base_rtt_ns))
		lower_base_rtt(s, rtt_ns);
	d = rtt_ns > s->base_rtt_ns ? rtt_ns - s->base_rtt_ns : 0;
	d = RTE_MIN(d, NSCC_DELAY_CAP_NS);
	avg_delay_add(s, d);
	return d;
}

/*
 * The MRC widespread-congestion gate: count this ack, and say whether its
 * mark (if any) is a rate signal.
 */
static inline bool
ecn_gate(struct nscc *n, bool ecn)
{
	struct nscc_state *s = &n->s;
	uint32_t acks, marked;

	if (unlikely(s->ecn_cur_acks == UINT16_MAX)) {
		/* A very long period: halve, keeping the fraction. */
		s->ecn_cur_acks >>= 1;
		s->ecn_cur_marked >>= 1;
	}
	s->ecn_cur_acks++;
	if (!ecn)
		return false;
	n->c.ecn_acks++;
	s->ecn_cur_marked++;
	if (s->ecn_pct == 0)
		return true;
	acks = (uint32_t)s->ecn_cur_acks + s->ecn_prev_acks;
	marked = (uint32_t)s->ecn_cur_marked + s->ecn_prev_marked;
	if (acks >= NSCC_ECN_MIN_ACKS && marked * 100 > (uint32_t)s->ecn_pct * acks)
		return true;
	n->c.ecn_gated++;
	return false;
}

/* Apply pending increases; once per adjust period also eta. */
static void
adjust(struct nscc_state *s, uint64_t now_tsc)
{
	if (s->inc_acc != 0) {
		s->cwnd_bytes = mrc_cc_add_sat32(s->cwnd_bytes, s->inc_acc / s->cwnd_bytes);
		s->inc_acc = 0;
	}
	if (now_tsc >= s->adjust_due_tsc) {
		if (s->pen == 0)
			s->cwnd_bytes = mrc_cc_add_sat32(s->cwnd_bytes, s->eta_bytes);
		s->adjust_due_tsc = now_tsc + ns_to_tsc(s, s->adjust_period_ns);
	}
	s->adjust_acc_bytes = 0;
	/*
	 * The ECN window moves on with the adjust periods, but a period with
	 * fewer than NSCC_ECN_ROLL_ACKS acks (a time-based adjustment just after
	 * a byte-based one) is merged into the next: a fraction of 1 or 2 acks
	 * says nothing about how widespread the marks are.
	 */
	if (s->ecn_cur_acks >= NSCC_ECN_ROLL_ACKS) {
		s->ecn_prev_acks = s->ecn_cur_acks;
		s->ecn_prev_marked = s->ecn_cur_marked;
		s->ecn_cur_acks = 0;
		s->ecn_cur_marked = 0;
	}
	clamp_cwnd(s);
}

/*
 * Quick adapt. Returns true when this event must not move the window any
 * further: quick adapt just fired, or the event is a stale congestion signal
 * (`congested`: a marked ack or a trim) from packets sent under the window
 * quick adapt replaced. `loss`: the caller is a trim, loss or timeout.
 * `stale_bytes`: what to ignore after firing (bytes in flight).
 */
static bool
quick_adapt(struct nscc *n, uint64_t now_tsc, bool loss, bool congested, uint32_t delay_ns,
	uint32_t stale_bytes)
{
	struct nscc_state *s = &n->s;
	bool fired = false;

	if (s->flags & NSCC_F_NO_QA)
		return false;
	if (congested && s->stale_bytes != 0)
		return true;
	if (now_tsc < s->qa_due_tsc)
		return false;
	/*
	 * A silent loss where the network trims (corruption, or a failed
	 * path) counts only if the window was full at some point of the
	 * period: then few bytes acked means few got through. A sender that
	 * had less to send than its window (its messages in flight are all
	 * it may have) acks few bytes whatever the network does, and with
	 * random loss in nearly every period the window fell to a packet
	 * (bench_fabric_qps at 1% loss: 70 quick adapts per QP, to 4 KB).
	 */
	const bool silent = (s->flags & (NSCC_F_QA_SILENT | NSCC_F_WND_FULL)) ==
			    (NSCC_F_QA_SILENT | NSCC_F_WND_FULL);

	if (((s->flags & NSCC_F_QA_TRIGGER) || loss || silent ||
		    (s->qa_threshold_ns != 0 && delay_ns > s->qa_threshold_ns)) &&
		s->achieved_bytes < (s->max_cwnd_bytes >> s->qa_gate) &&
		s->achieved_bytes < usable_cwnd(s)) {
		set_usable_cwnd(s, s->achieved_bytes);
		s->stale_bytes = stale_bytes;
		s->inc_acc = 0;
		s->adjust_acc_bytes = 0;
		s->flags &= ~NSCC_F_FAST;
		s->fast_acc_bytes = 0;
		n->c.qa++;
		fired = true;
	}
	s->flags &= (uint16_t) ~(NSCC_F_QA_TRIGGER | NSCC_F_QA_SILENT | NSCC_F_WND_FULL);
	s->achieved_bytes = 0;
	s->qa_due_tsc = now_tsc + ns_to_tsc(s, (uint64_t)s->base_rtt_ns + s->target_qdelay_ns);
	return fired;
}

static void
penalty(struct nscc *n, const struct mrc_cc_ack *a)
{
	struct nscc_state *s = &n->s;
	const uint8_t p = RTE_MIN(a->rcv_cwnd_pen, 127);

	if (p != 0) {
		if (s->pen == 0) {
			n->c.penalties++;
			s->flags &= ~NSCC_F_PEN_RESTORE;
		}
		if (a->restore_cwnd)
			s->flags |= NSCC_F_PEN_RESTORE;
		s->pen = p;
	} else if (unlikely(s->pen != 0)) {
		if (!a->restore_cwnd && !(s->flags & NSCC_F_PEN_RESTORE))
			s->cwnd_bytes = usable_cwnd(s); /* keep the penalised window */
		s->pen = 0;
		s->flags &= ~NSCC_F_PEN_RESTORE;
	}
}

/* The MD gain of the decreases last-hop mode adds (see the top of the file). */
static inline uint16_t
lasthop_gamma_pm(const struct nscc_state *s)
{
	return RTE_MIN(s->gamma_pm, (uint16_t)NSCC_LASTHOP_GAMMA_PM);
}

static void
multiplicative_decrease(struct nscc *n, uint64_t now_tsc, uint16_t gamma_pm)
{
	struct nscc_state *s = &n->s;
	const uint32_t avg = avg_delay_ns(s);
	uint64_t f_q16, floor_q16;

	s->flags &= ~NSCC_F_FAST;
	s->fast_acc_bytes = 0;
	if (now_tsc < s->md_ok_tsc || avg <= s->target_qdelay_ns)
		return;
	/*
	 * The factor in Q16 rather than per-mille: near the target the cut is a
	 * fraction of a percent, and per-mille rounding would bias it to zero.
	 */
	f_q16 = 65536 -
		((uint64_t)gamma_pm << 16) * (avg - s->target_qdelay_ns) / ((uint64_t)1000 * avg);
	floor_q16 = ((uint64_t)s->max_md_jump_pm << 16) / 1000;
	f_q16 = RTE_MAX(f_q16, floor_q16);
	s->cwnd_bytes = (uint32_t)(((uint64_t)s->cwnd_bytes * f_q16) >> 16);
	clamp_cwnd(s);
	s->md_ok_tsc = now_tsc + ns_to_tsc(s, s->base_rtt_ns);
	n->c.md++;
}

static void
proportional_increase(struct nscc *n, uint32_t acked, uint32_t delay_ns)
{
	struct nscc_state *s = &n->s;
	uint64_t step;

	n->c.pi++;
	if (delay_ns < RTE_MIN((uint32_t)MRC_NSCC_FAST_DELAY_NS, s->target_qdelay_ns / 2)) {
		s->fast_acc_bytes = mrc_cc_add_sat32(s->fast_acc_bytes, acked);
		if ((s->flags & NSCC_F_FAST) || s->fast_acc_bytes > s->cwnd_bytes) {
			s->flags |= NSCC_F_FAST;
			if (s->pen == 0) {
				s->cwnd_bytes = mrc_cc_add_sat32(
					s->cwnd_bytes, (uint64_t)acked * s->fi_scale_pm / 1000);
				clamp_cwnd(s);
			}
			n->c.fast++;
			return;
		}
	} else {
		s->flags &= ~NSCC_F_FAST;
		s->fast_acc_bytes = 0;
	}
	if (s->pen != 0)
		return;
	/* bytes per acked byte: alpha x (target - delay) */
	step = ((uint64_t)s->alpha_q16 * (s->target_qdelay_ns - delay_ns)) >> 16;
	inc_add(s, (uint64_t)acked * RTE_MIN(step, (uint64_t)MRC_CC_CWND_LIMIT_BYTES));
}

/* ---- ops ---- */

static void
nscc_on_ack(void *priv, const struct mrc_cc_ack *a, uint64_t now_tsc)
{
	struct nscc *n = priv;
	struct nscc_state *s = &n->s;
	const uint32_t acked = RTE_MIN(a->newly_acked_bytes, NSCC_ACKED_CAP);
	uint32_t delay;
	bool marked;

	n->s.acks++;
	start(s, now_tsc);
	delay = delay_sample(s, a->rtt_ns);
	s->achieved_bytes = mrc_cc_add_sat32(s->achieved_bytes, acked);
	s->adjust_acc_bytes = mrc_cc_add_sat32(s->adjust_acc_bytes, acked);
	s->stale_bytes = mrc_cc_sub_sat32(s->stale_bytes, acked);
	/* In flight before this ack, within a packet of the window: window-bound. */
	if ((uint64_t)a->inflight_bytes + acked + s->mtu_bytes > usable_cwnd(s))
		s->flags |= NSCC_F_WND_FULL;
	if (unlikely(a->rcv_cwnd_pen != 0 || s->pen != 0))
		penalty(n, a);
	marked = ecn_gate(n, a->ecn);

	if (quick_adapt(n, now_tsc, false, marked, delay, a->inflight_bytes))
		goto out;

	if (!marked) {
		if (delay < s->target_qdelay_ns) {
			proportional_increase(n, acked, delay);
		} else {
			n->c.fi++;
			s->flags &= ~NSCC_F_FAST;
			s->fast_acc_bytes = 0;
			if (s->pen == 0)
				inc_add(s, (uint64_t)acked * s->fi_bytes);
			/*
			 * The last hop marks nothing: after a last-hop trim, delay
			 * above target is that queue, and cuts like a mark (AIMD,
			 * so flows sharing it converge to equal windows).
			 */
			if (now_tsc < s->lasthop_until_tsc)
				multiplicative_decrease(n, now_tsc, lasthop_gamma_pm(s));
		}
	} else if (delay >= s->target_qdelay_ns) {
		multiplicative_decrease(n, now_tsc, s->gamma_pm);
	} else {
		n->c.hold++;
	}

	if (s->adjust_acc_bytes > s->adjust_bytes_threshold || now_tsc >= s->adjust_due_tsc)
		adjust(s, now_tsc);
out:
	note_cwnd(n);
}

/*
 * Trims and losses: take the packet out of the window unless quick adapt
 * acted. `shrink` false: quick adapt only (a silent loss where the network
 * trims, nscc_on_loss).
 */
static void
packet_lost(struct nscc *n, uint32_t bytes, uint64_t now_tsc, bool shrink)
{
	struct nscc_state *s = &n->s;
	const uint32_t w = usable_cwnd(s);

	s->stale_bytes = mrc_cc_sub_sat32(s->stale_bytes, bytes);
	s->flags |= shrink ? NSCC_F_QA_TRIGGER : NSCC_F_QA_SILENT;
	if (!quick_adapt(n, now_tsc, shrink, true, 0, w) && shrink) {
		/* NSCC's own window: under a penalty the usable one shrinks in proportion. */
		s->cwnd_bytes = mrc_cc_sub_sat32(s->cwnd_bytes, bytes);
		clamp_cwnd(s);
	}
	note_cwnd(n);
}

static void
nscc_on_trim(void *priv, uint32_t bytes, bool lasthop, uint64_t now_tsc)
{
	struct nscc *n = priv;
	struct nscc_state *s = &n->s;
	const bool known = now_tsc < s->lasthop_until_tsc;

	/* TRIMMED_LASTHOP counts like TRIMMED: no RCCC in MRC (UET 2.1) ... */
	n->c.trims++;
	start(s, now_tsc);
	/* The queue reached the trim threshold, 1 x BDP: one base RTT of delay. */
	avg_delay_add(s, RTE_MIN(s->base_rtt_ns, NSCC_DELAY_CAP_NS));
	if (lasthop)
		s->lasthop_until_tsc =
			now_tsc + ns_to_tsc(s, (uint64_t)s->base_rtt_ns * NSCC_LASTHOP_RTTS);
	if (!known) {
		packet_lost(n, bytes, now_tsc, true);
		return;
	}
	/*
	 * ... except that once last-hop congestion is known, a trim is one
	 * more mark: at most one MD per base RTT, and no quick adapt, which
	 * would cut whichever flow happened to get the fewest bytes through
	 * in one period to what it got, and so keep the flows unequal.
	 */
	s->stale_bytes = mrc_cc_sub_sat32(s->stale_bytes, bytes);
	if (s->stale_bytes == 0)
		multiplicative_decrease(n, now_tsc, lasthop_gamma_pm(s));
	note_cwnd(n);
}

static void
nscc_on_loss(void *priv, uint32_t bytes, uint64_t now_tsc)
{
	struct nscc *n = priv;

	n->c.losses++;
	start(&n->s, now_tsc);
	/*
	 * Where the network trims, congestion shows as trims, marks and delay
	 * long before a queue overflows: a packet lost without a trim was
	 * corrupted or its path failed, which the EV layer answers (and quick
	 * adapt, when a full window gets little through). Taking each such loss out of the
	 * window too let random loss wear the window down with nothing to
	 * grow it back while the delay sat near the target: the daemon's QPs
	 * at 1% loss per link ran at 0.72-0.85 of their lossless window and
	 * goodput (config/bench/loss.ini; a fixed window kept 0.93). Without
	 * trimming a loss is the overflow of a queue: it still shrinks.
	 */
	packet_lost(n, bytes, now_tsc, !(n->s.flags & NSCC_F_TRIMMING));
}

static void
nscc_on_timeout(void *priv, uint64_t now_tsc)
{
	struct nscc *n = priv;
	struct nscc_state *s = &n->s;

	n->c.timeouts++;
	start(s, now_tsc);
	s->flags |= NSCC_F_QA_TRIGGER;
	quick_adapt(n, now_tsc, true, true, 0, usable_cwnd(s));
	note_cwnd(n);
}

static uint32_t
nscc_cwnd(const void *priv)
{
	const struct nscc *n = priv;

	return usable_cwnd(&n->s);
}

static void
nscc_stats(const void *priv, struct mrc_cc_stats *out)
{
	const struct nscc *n = priv;

	*out = (struct mrc_cc_stats){
		.acks = n->s.acks,
		.ecn_acks = n->c.ecn_acks,
		.ecn_gated = n->c.ecn_gated,
		.pi_events = n->c.pi,
		.fast_events = n->c.fast,
		.fi_events = n->c.fi,
		.md_events = n->c.md,
		.hold_events = n->c.hold,
		.qa_events = n->c.qa,
		.trims = n->c.trims,
		.losses = n->c.losses,
		.timeouts = n->c.timeouts,
		.penalties = n->c.penalties,
		.cwnd_bytes = usable_cwnd(&n->s),
		.min_cwnd_bytes = n->c.min_cwnd_bytes,
		.max_cwnd_bytes = n->c.max_cwnd_bytes,
		.base_rtt_ns = n->s.base_rtt_ns,
		.avg_delay_ns = avg_delay_ns(&n->s),
	};
}

const struct mrc_cc_ops mrc_cc_nscc_ops = {
	.name = MRC_CC_NSCC,
	.priv_size = sizeof(struct nscc),
	.init = nscc_init,
	.on_ack = nscc_on_ack,
	.on_trim = nscc_on_trim,
	.on_loss = nscc_on_loss,
	.on_timeout = nscc_on_timeout,
	.cwnd = nscc_cwnd,
	.stats = nscc_stats,
};
