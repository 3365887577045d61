/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRC_CC_H
#define MRC_CC_H

/*
 * Congestion control behind an ops table (the shape of VPP's tcp_cc.h).
 *
 * One QP (or one congestion context shared by the QPs to one destination)
 * owns one `struct mrc_cc`: a pointer to the algorithm's ops and a small
 * fixed-size private area the algorithm keeps its state in. The QP layer
 * turns what arrives from the wire into calls:
 *
 *   SACK (with its CC_STATE)       -> mrc_cc_on_ack(cc, &ack, now_tsc)
 *   NACK TRIMMED / TRIMMED_LASTHOP -> mrc_cc_on_trim(cc, pkt_bytes, lasthop, now_tsc)
 *   a packet rel declared lost     -> mrc_cc_on_loss(cc, pkt_bytes, now_tsc)
 *     (bitmap gap past the reorder allowance, per-packet timer)
 *   the QP retransmit timer fired  -> mrc_cc_on_timeout(cc, now_tsc)
 *
 * and asks `mrc_cc_cwnd(cc)` how many bytes it may have in flight before it
 * sends the next packet. rel never includes this header: qp hands rel's
 * ack/loss events to cc and asks rel to send within cc's window.
 *
 * Algorithms (one small file each):
 *   "uet-1.0-nscc"  NSCC, the MRC default (mrc_cc_nscc.c; the algorithm is
 *                   explained at the top of that file)
 *   "fixed"         a constant window for bring-up and tests (mrc_cc_fixed.c)
 * They are found by name (the controller API's algorithm string). Both are
 * built in: mrc_cc_find() knows them without registration, so a program that
 * links only this static library still finds them. Other algorithms can be
 * added with mrc_cc_register().
 *
 * Fast-path rules for every algorithm: the event callbacks and cwnd() never
 * allocate, lock, log or make system calls, and never read a clock: time
 * comes in as `now_tsc` and the TSC frequency in the params at init. Only
 * init() may do expensive arithmetic (128-bit divisions); the per-event paths
 * use multiplies, shifts and at most a few 64-bit divisions.
 *
 * Per-QP memory: sizeof(struct mrc_cc) = 8 + MRC_CC_PRIV_MAX = 200 bytes.
 * NSCC uses 184 private bytes (MRC_CC_PRIV_LINES): 128 bytes of control
 * state (its ack count among them) and 56 bytes of per-instance event
 * counters; "fixed" uses 36.
 */

#include <stdalign.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Largest private area an algorithm may ask for (ops->priv_size). */
#define MRC_CC_PRIV_MAX 192
/*
 * A private area of at most this many bytes and the ops pointer before it
 * fill three cache lines when struct mrc_cc starts a line: an algorithm
 * that keeps within it costs a cold QP three misses an event, not four.
 */
#define MRC_CC_PRIV_LINES (3 * 64 - 8)
/* Longest algorithm name, including the terminating NUL. */
#define MRC_CC_NAME_MAX 32
/* Algorithms mrc_cc_register() can add besides the built-in ones. */
#define MRC_CC_REGISTRY_MAX 8

/* Built-in algorithm names. */
#define MRC_CC_NSCC  "uet-1.0-nscc"
#define MRC_CC_FIXED "fixed"

/*
 * What an algorithm is configured with; given once at init. The first five
 * fields describe the network and are required (non-zero, except the bool);
 * every other field is an override where 0 means "the UEC 1.0.3 default"
 * (UEC 1.0.3 Table 3-82; doc/protocol.md, "Congestion control"), derived
 * from the first five.
 *
 * Fixed-point ratios are per-mille (_pm): 800 means 0.8.
 */
struct mrc_cc_params {
	uint32_t mtu_bytes;    /* payload bytes of a full packet: the window's unit */
	uint32_t base_rtt_ns;  /* unloaded network RTT (configured; NSCC lowers it) */
	uint64_t link_bps;     /* slowest link speed on the path, bits/s: BDP's rate */
	uint64_t tsc_hz;       /* frequency of the now_tsc handed to the callbacks */
	bool trimming_enabled; /* switches trim: target 0.75 x base_rtt, no qa_threshold */

	/* NSCC overrides (names follow the OCP controller API knobs). */
	uint32_t max_cwnd_bytes;   /* MaxWnd, also the initial cwnd: 1.5 x BDP */
	uint32_t target_qdelay_ns; /* 0.75 x base_rtt (trimming) or 1.0 x base_rtt */
	uint16_t gamma_pm;	   /* MD gain: 800 */
	uint16_t max_md_jump_pm;   /* floor of one MD's factor: 500 (halve at most) */
	uint32_t fi_bytes;	   /* fair increase per window of acks: 5 MTU x a */
	uint16_t fi_scale_pm;	   /* fast increase per acked byte: 250 */
	uint32_t eta_bytes;	   /* additive increase per adjust period: 0.15 MTU x a */
	uint8_t qa_gate;	   /* quick adapt only if achieved < MaxWnd >> qa_gate: 3 */
	/*
	 * Queueing delay that arms quick adapt by itself. 0: the default, off
	 * when trimming_enabled (trims are the trigger), else 4 x target_qdelay.
	 * UINT32_MAX: off.
	 */
	uint32_t qa_threshold_ns;
	uint32_t adjust_bytes_threshold; /* acked bytes that close an adjust period: 8 MTU */
	uint32_t adjust_period_ns;	 /* time that closes an adjust period: base_rtt */
	bool disable_qa;		 /* no quick adapt at all */
	/*
	 * MRC: ECN first moves traffic to another EV (the QP layer does that);
	 * NSCC treats marks as a rate signal only when more than this percentage
	 * of the acks in the current and previous adjust period were marked.
	 * 0 means 25; 100 means marks never cut the rate.
	 */
	uint8_t ecn_widespread_pct;
	bool disable_ecn_gate; /* plain UEC NSCC: every marked ack is a rate signal */

	/* "fixed": the constant window. 0 means 1.5 x BDP. */
	uint32_t fixed_cwnd_bytes;
};

/*
 * What one SACK tells the sender, already decoded and converted by the QP
 * layer (wire units and byte order stay in lib/wire).
 */
struct mrc_cc_ack {
	/* Bytes this SACK newly acknowledged (cumulative + bitmap), from rel. */
	uint32_t newly_acked_bytes;
	/*
	 * RTT of the packet that triggered the SACK: now minus the send time
	 * found through the echoed timestamp, minus the responder's service time
	 * when it reports one. 0 when there is no trustworthy sample (e.g. the
	 * packet was retransmitted and the echo is ambiguous); NSCC then uses its
	 * average queueing delay. The algorithm subtracts its own base RTT.
	 */
	uint32_t rtt_ns;
	/*
	 * Bytes in flight after rel has processed this SACK. NSCC: after a quick
	 * adapt, congestion signals for that many bytes are stale (sent under
	 * the old window) and do not move the window again.
	 */
	uint32_t inflight_bytes;
	/*
	 * Receiver's received-bytes counter, unwrapped and scaled to bytes by the
	 * QP layer; 0 when unknown. NSCC does not use it (see mrc_cc_nscc.c).
	 */
	uint64_t rcvd_bytes;
	/* CC_STATE out-of-order count. NSCC ignores it: inferring loss from
	 * reordering is rel's job, and rel reports losses through on_loss. */
	uint16_t ooo_count;
	/* CC_STATE receiver cwnd penalty, 0 (none) .. 127; larger is clamped. */
	uint8_t rcv_cwnd_pen;
	/* CC_STATE R_C: restore the pre-penalty window when the penalty ends. */
	bool restore_cwnd;
	/*
	 * The acked packet carried an ECN echo: SACK M == SKIP_ONCE. The QP sets
	 * it for ALWAYS_SKIP too (the responder's "persistently bad path"
	 * verdict, reached through marks as far as public descriptions tell); what
	 * to do with the EV is the EV layer's business either way.
	 */
	bool ecn;
};

/*
 * Counters and state for reports (telemetry, summaries); not for the hot
 * path. Event counts are per instance and wrap at 2^32 (the per-lcore
 * counter blocks of the QP layer hold the long-running totals). An algorithm
 * leaves the fields it has no notion of at 0.
 */
struct mrc_cc_stats {
	uint64_t acks;		 /* on_ack calls */
	uint64_t ecn_acks;	 /* acks with ecn set */
	uint64_t ecn_gated;	 /* ... of which treated as unmarked: not widespread */
	uint64_t pi_events;	 /* acks in the proportional-increase quadrant */
	uint64_t fast_events;	 /* ... of which applied as fast increase */
	uint64_t fi_events;	 /* acks in the fair-increase quadrant */
	uint64_t md_events;	 /* multiplicative decreases applied */
	uint64_t hold_events;	 /* acks in the hold quadrant (ECN, low delay) */
	uint64_t qa_events;	 /* quick adapts applied */
	uint64_t trims;		 /* on_trim calls */
	uint64_t losses;	 /* on_loss calls */
	uint64_t timeouts;	 /* on_timeout calls */
	uint64_t penalties;	 /* receiver penalty episodes started */
	uint32_t cwnd_bytes;	 /* current window (what cwnd() returns) */
	uint32_t min_cwnd_bytes; /* smallest / largest window seen since init */
	uint32_t max_cwnd_bytes;
	uint32_t base_rtt_ns;  /* current base RTT */
	uint32_t avg_delay_ns; /* smoothed queueing delay */
};

/* One congestion-control algorithm. All callbacks are required. */
struct mrc_cc_ops {
	const char *name; /* unique, < MRC_CC_NAME_MAX bytes */
	size_t priv_size; /* <= MRC_CC_PRIV_MAX */
	/* Set up priv from params: 0, or -EINVAL / -ERANGE for bad params. */
	int (*init)(void *priv, const struct mrc_cc_params *p);
	void (*on_ack)(void *priv, const struct mrc_cc_ack *a, uint64_t now_tsc);
	/*
	 * A NACK TRIMMED (lasthop: TRIMMED_LASTHOP) for a packet that carried
	 * `bytes` of payload as sent (rel knows it), not the trimmed remainder.
	 */
	void (*on_trim)(void *priv, uint32_t bytes, bool lasthop, uint64_t now_tsc);
	/* rel declared a packet of `bytes` payload lost (not trimmed). */
	void (*on_loss)(void *priv, uint32_t bytes, uint64_t now_tsc);
	/* The QP's retransmit timer fired. */
	void (*on_timeout)(void *priv, uint64_t now_tsc);
	uint32_t (*cwnd)(const void *priv);
	void (*stats)(const void *priv, struct mrc_cc_stats *out);
};

/* ---- registry (control plane: call before workers start) ---- */

/*
 * Add an algorithm. The ops must outlive every instance (normally static
 * const). 0, -EINVAL (bad ops), -EEXIST (name taken, built-ins included),
 * -ENOSPC (MRC_CC_REGISTRY_MAX already registered). Not thread-safe.
 */
int mrc_cc_register(const struct mrc_cc_ops *ops);

/* The algorithm called `name`, built-in or registered; NULL if none. */
const struct mrc_cc_ops *mrc_cc_find(const char *name);

/*
 * Fill out[0..n) with the known algorithms, built-ins first; returns how many
 * there are in total (may exceed n).
 */
unsigned int mrc_cc_list(const struct mrc_cc_ops **out, unsigned int n);

/*
 * Check the network fields every algorithm needs and the ranges of the
 * overrides. 0 or -EINVAL; *why (when why != NULL) gets a static message or
 * NULL. The config layer calls it to report errors; init() calls it too.
 */
int mrc_cc_params_check(const struct mrc_cc_params *p, const char **why);

/* BDP in bytes: link_bps x base_rtt_ns / 8e9, rounded down. */
uint64_t mrc_cc_bdp_bytes(uint64_t link_bps, uint32_t base_rtt_ns);

/* ---- NSCC: the resolved configuration (for tests, telemetry, reports) ---- */

/* NSCC's reference network for the scaling factors: 100 Gb/s x 12 us. */
#define MRC_NSCC_REF_BDP_BYTES UINT64_C(150000)
#define MRC_NSCC_REF_RTT_NS    12000

struct mrc_cc_nscc_cfg {
	uint64_t bdp_bytes; /* link x base_rtt */
	uint32_t mtu_bytes;
	uint32_t base_rtt_ns;
	uint32_t max_cwnd_bytes; /* MaxWnd = initial cwnd */
	uint32_t target_qdelay_ns;
	uint32_t scaling_a_pm; /* BDP / 150000 B, for display */
	uint32_t scaling_b_pm; /* target_qdelay / max(12 us, base_rtt), for display */
	uint32_t alpha_q16;    /* PI gain: bytes per ns below target, Q16.16 */
	uint32_t pi_max_bytes; /* alpha x target_qdelay: PI at zero delay */
	uint32_t fi_bytes;
	uint32_t eta_bytes;
	uint32_t qa_threshold_ns; /* 0: delay trigger off */
	uint32_t adjust_bytes_threshold;
	uint32_t adjust_period_ns;
	uint32_t fast_delay_ns; /* "queue empty" for fast increase */
	uint16_t gamma_pm;
	uint16_t max_md_jump_pm;
	uint16_t fi_scale_pm;
	uint8_t qa_gate;
	uint8_t ecn_widespread_pct; /* 0 when the gate is disabled */
	bool disable_qa;
};

/* Resolve params and UEC defaults exactly as NSCC's init does. 0/-EINVAL/-ERANGE. */
int mrc_cc_nscc_derive(const struct mrc_cc_params *p, struct mrc_cc_nscc_cfg *out);

/* ---- an instance ---- */

struct mrc_cc {
	const struct mrc_cc_ops *ops;
	alignas(8) uint8_t priv[MRC_CC_PRIV_MAX];
};

/*
 * Set up `cc` to run `ops` (or the algorithm called `name`) with params.
 * 0, -ENOENT (unknown name), or init's error; on error cc->ops is NULL.
 */
int mrc_cc_init_ops(struct mrc_cc *cc, const struct mrc_cc_ops *ops, const struct mrc_cc_params *p);
int mrc_cc_init(struct mrc_cc *cc, const char *name, const struct mrc_cc_params *p);

static inline void
mrc_cc_on_ack(struct mrc_cc *cc, const struct mrc_cc_ack *a, uint64_t now_tsc)
{
	cc->ops->on_ack(cc->priv, a, now_tsc);
}

static inline void
mrc_cc_on_trim(struct mrc_cc *cc, uint32_t bytes, bool lasthop, uint64_t now_tsc)
{
	cc->ops->on_trim(cc->priv, bytes, lasthop, now_tsc);
}

static inline void
mrc_cc_on_loss(struct mrc_cc *cc, uint32_t bytes, uint64_t now_tsc)
{
	cc->ops->on_loss(cc->priv, bytes, now_tsc);
}

static inline void
mrc_cc_on_timeout(struct mrc_cc *cc, uint64_t now_tsc)
{
	cc->ops->on_timeout(cc->priv, now_tsc);
}

/* Bytes the QP may have in flight; always >= one MTU. */
static inline uint32_t
mrc_cc_cwnd(const struct mrc_cc *cc)
{
	return cc->ops->cwnd(cc->priv);
}

static inline void
mrc_cc_stats(const struct mrc_cc *cc, struct mrc_cc_stats *out)
{
	cc->ops->stats(cc->priv, out);
}

static inline const char *
mrc_cc_name(const struct mrc_cc *cc)
{
	return cc->ops->name;
}

#endif /* MRC_CC_H */
