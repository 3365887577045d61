/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#include <errno.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>

#include "mrc_rel_rx.h"
#include "mrc_seq.h"

/* A data packet and the SACK that answers it count in one line of stats (mrc_rel_rx.h). */
_Static_assert(offsetof(struct mrc_rel_rx, stats.sacks) / 64 ==
		       offsetof(struct mrc_rel_rx, stats.new_pkts) / 64,
	"the per-message stats span two lines");

/* The bitmap never has fewer than 128 bits, so a 64-bit SACK window never wraps onto itself. */
#define MIN_BITMAP_BITS 128

void
mrc_rel_rx_cfg_defaults(struct mrc_rel_rx_cfg *cfg)
{
	*cfg = (struct mrc_rel_rx_cfg){
		.mpr = 8, /* 1024 PSNs, the OCP API example */
		.ack_every = 4,
		.ack_delay_tsc = 0,
		.sack_on_gap = true,
		.trim_nack = true,
		.in_order_only = false,
		.cwnd_pen = 0,
		.dyn_mpr = false,
		.always_skip_marks = 8,
	};
}

static uint32_t
bitmap_bits(uint8_t mpr)
{
	uint32_t bits = rte_align32pow2((uint32_t)mpr * MRC_MPR_UNIT_PSNS);

	return RTE_MAX(bits, (uint32_t)MIN_BITMAP_BITS);
}

size_t
mrc_rel_rx_memsize(const struct mrc_rel_rx_cfg *cfg)
{
	return sizeof(struct mrc_rel_rx) + bitmap_bits(cfg->mpr) / 8;
}

int
mrc_rel_rx_init(struct mrc_rel_rx *rx, const struct mrc_rel_rx_cfg *cfg, uint32_t start_psn)
{
	uint32_t bits;

	if (cfg->mpr == 0 || cfg->ack_every == 0 || cfg->cwnd_pen > 127)
		return -EINVAL;
	bits = bitmap_bits(cfg->mpr);
	memset(rx, 0, sizeof(*rx) + bits / 8);
	rx->epsn = start_psn & MRC_PSN_MASK;
	rx->window = (uint32_t)cfg->mpr * MRC_MPR_UNIT_PSNS;
	rx->window_max = rx->window;
	rx->mask = bits - 1;
	rx->mpr = cfg->mpr;
	rx->mpr_max = cfg->mpr;
	rx->dyn_mpr = cfg->dyn_mpr;
	rx->always_skip_marks = cfg->always_skip_marks;
	rx->ack_every = cfg->ack_every;
	rx->ack_delay_tsc = cfg->ack_delay_tsc;
	rx->sack_on_gap = cfg->sack_on_gap;
	rx->trim_nack = cfg->trim_nack;
	rx->in_order_only = cfg->in_order_only;
	rx->cwnd_pen = cfg->cwnd_pen;
	return 0;
}

static inline bool
bit_test(const struct mrc_rel_rx *rx, uint32_t psn)
{
	uint32_t i = psn & rx->mask;

	return (rx->bitmap[i >> 6] >> (i & 63)) & 1;
}

static inline void
bit_set(struct mrc_rel_rx *rx, uint32_t psn)
{
	uint32_t i = psn & rx->mask;

	rx->bitmap[i >> 6] |= UINT64_C(1) << (i & 63);
}

static inline void
bit_clear(struct mrc_rel_rx *rx, uint32_t psn)
{
	uint32_t i = psn & rx->mask;

	rx->bitmap[i >> 6] &= ~(UINT64_C(1) << (i & 63));
}

bool
mrc_rel_rx_has(const struct mrc_rel_rx *rx, uint32_t psn)
{
	int32_t d = mrc_psn_diff(psn, rx->epsn);

	if (d < 0)
		return true;
	if ((uint32_t)d >= rx->window_max)
		return false;
	return bit_test(rx, psn);
}

int
mrc_rel_rx_set_mpr(struct mrc_rel_rx *rx, uint8_t mpr)
{
	if (mpr == 0 || mpr > rx->mpr_max)
		return -EINVAL;
	rx->mpr = mpr;
	rx->window = (uint32_t)mpr * MRC_MPR_UNIT_PSNS;
	return 0;
}

/*
 * A PSN at or beyond the current window. Beyond the negotiated one the
 * requester broke the agreement (PSN_OOR_WINDOW); between the two, the
 * window was lowered after the requester sent it: a PSN that arrived
 * before is a duplicate as ever, a new one finds no bitmap (NO_BITMAP).
 */
static void
beyond_window(struct mrc_rel_rx *rx, uint32_t psn, uint32_t d, struct mrc_rel_rx_verdict *v)
{
	if (d >= rx->window_max) {
		rx->stats.oor_pkts++;
		v->kind = MRC_REL_RX_OOR;
		v->nack_now = true;
		v->nack_reason = MRC_NACK_PSN_OOR_WINDOW;
	} else if (bit_test(rx, psn)) {
		rx->stats.dup_pkts++;
		v->kind = MRC_REL_RX_DUP;
		v->sack_now = true;
	} else {
		rx->stats.no_bitmap_pkts++;
		mrc_rel_rx_refused(rx);
		v->kind = MRC_REL_RX_NO_BITMAP;
		v->nack_now = true;
		v->nack_reason = MRC_NACK_NO_BITMAP;
	}
}

uint8_t
mrc_rel_rx_path_mark(struct mrc_rel_rx *rx, uint32_t ev, bool ce)
{
	/* Fibonacci hashing: the EV's random low bits and its plane bits both count. */
	struct mrc_rel_rx_mark *e =
		&rx->marks[(ev * UINT32_C(0x9e3779b1)) >> (32 - 3) & (MRC_REL_RX_MARK_SLOTS - 1)];

	RTE_BUILD_BUG_ON(MRC_REL_RX_MARK_SLOTS != 8);
	if (!ce) {
		/* An unmarked packet ends the EV's row of marks. */
		if (e->run != 0 && e->ev == ev) {
			e->run = 0;
			rx->marks_live--;
		}
		return MRC_SACK_M_NONE;
	}
	if (rx->always_skip_marks == 0)
		return MRC_SACK_M_SKIP_ONCE;
	if (e->run == 0) {
		rx->marks_live++;
		e->ev = ev;
		e->run = 1;
	} else if (e->ev != ev) {
		/* Another EV held the slot: the newest row wins. */
		e->ev = ev;
		e->run = 1;
	} else {
		e->run++;
	}
	if (e->run < rx->always_skip_marks)
		return MRC_SACK_M_SKIP_ONCE;
	e->run = 0;
	rx->marks_live--;
	rx->stats.always_skips++;
	return MRC_SACK_M_ALWAYS_SKIP;
}

/* Move epsn over every consecutive PSN that has arrived; returns how far. */
static uint32_t
advance(struct mrc_rel_rx *rx)
{
	uint32_t n = 0;

	while (bit_test(rx, rx->epsn)) {
		bit_clear(rx, rx->epsn);
		rx->epsn = mrc_psn_add(rx->epsn, 1);
		n++;
	}
	if (n > 0)
		rx->nak_sent = false; /* a new gap, if one opens, deserves its NACK */
	return n;
}

static void
note_pending(struct mrc_rel_rx *rx, uint64_t now_tsc)
{
	if (rx->pending == 0)
		rx->first_pending_tsc = now_tsc;
	if (rx->pending < UINT16_MAX)
		rx->pending++;
}

void
mrc_rel_rx_judge(struct mrc_rel_rx *rx, uint32_t psn, uint32_t bytes, unsigned int flags,
	uint64_t now_tsc, struct mrc_rel_rx_verdict *v)
{
	*v = (struct mrc_rel_rx_verdict){.kind = MRC_REL_RX_NEW};
	int32_t d;
	bool gap;

	psn &= MRC_PSN_MASK;
	v->nack_psn = psn;
	d = mrc_psn_diff(psn, rx->epsn);
	if (unlikely(d >= 0 && (uint32_t)d >= rx->window)) {
		beyond_window(rx, psn, (uint32_t)d, v);
		return;
	}
	if (d < 0 || bit_test(rx, psn)) {
		/* Already here (a retransmission raced the original, or our SACK
		 * was lost): tell the requester again, whatever its DSCP says. */
		rx->stats.dup_pkts++;
		v->kind = MRC_REL_RX_DUP;
		v->sack_now = true;
		return;
	}
	if (unlikely(rx->in_order_only) && d > 0) {
		/* Go-back-N: everything from epsn on will be resent in order anyway. */
		rx->stats.oos_pkts++;
		v->kind = MRC_REL_RX_OOS;
		v->nack_now = !rx->nak_sent;
		v->nack_reason = MRC_NACK_PSN_SEQ_ERR;
		v->nack_psn = rx->epsn;
		rx->nak_sent = true;
		return;
	}
	if (flags & MRC_REL_RX_F_TRIMMED) {
		rx->stats.trimmed_pkts++;
		v->kind = MRC_REL_RX_TRIMMED;
		v->nack_now = rx->trim_nack;
		v->nack_reason = (flags & MRC_REL_RX_F_LASTHOP) ? MRC_NACK_TRIMMED_LASTHOP
								: MRC_NACK_TRIMMED;
		return;
	}

	bit_set(rx, psn);
	rx->stats.new_pkts++;
	rx->stats.new_bytes += bytes;
	rx->rcvd_bytes += bytes;
	gap = rx->any_seen ? mrc_psn_diff(psn, rx->max_psn) > 1 : d > 0;
	if (!rx->any_seen || mrc_psn_gt(psn, rx->max_psn))
		rx->max_psn = psn;
	rx->any_seen = true;
	if (d > 0) {
		rx->stats.ooo_pkts++;
		if (rx->ooo_since < 0x7fff)
			rx->ooo_since++;
		if (!rx->rep_any) {
			rx->rep_lo = rx->rep_hi = psn;
			rx->rep_any = true;
		} else if (mrc_psn_lt(psn, rx->rep_lo)) {
			rx->rep_lo = psn;
		} else if (mrc_psn_gt(psn, rx->rep_hi)) {
			rx->rep_hi = psn;
		}
	}
	note_pending(rx, now_tsc);
	if (d == 0) {
		/* A filled hole (the cumulative ACK jumps) is news worth sending now. */
		v->in_order = true;
		if (advance(rx) > 1)
			v->sack_now = true;
	}
	if (rx->pending >= rx->ack_every || (gap && rx->sack_on_gap) ||
		(flags & (MRC_REL_RX_F_CE | MRC_REL_RX_F_ACKREQ)))
		v->sack_now = true;
}

void
mrc_rel_rx_probe(struct mrc_rel_rx *rx)
{
	rx->stats.probes++;
}

/* The 64 bitmap bits for PSNs base .. base + 63 (all within the bitmap, see MIN_BITMAP_BITS). */
static uint64_t
extract64(const struct mrc_rel_rx *rx, uint32_t base)
{
	const uint32_t words = (rx->mask + 1) / 64;
	const uint32_t i = base & rx->mask, w = i >> 6, off = i & 63;
	uint64_t v = rx->bitmap[w] >> off;

	if (off != 0)
		v |= rx->bitmap[(w + 1) % words] << (64 - off);
	return v;
}

static int16_t
clamp16(int32_t v)
{
	if (v > INT16_MAX)
		return INT16_MAX;
	return (int16_t)(v < INT16_MIN ? INT16_MIN : v);
}

/*
 * The first PSN from `from` to `to` (both at or after epsn) that has
 * arrived and lies outside the 64 PSNs from rx->done_base; false if none.
 */
static bool
next_unreported(const struct mrc_rel_rx *rx, uint32_t from, uint32_t to, uint32_t *out)
{
	for (uint32_t p = from; mrc_psn_le(p, to); p = mrc_psn_add(p, 1)) {
		const int32_t in_done = mrc_psn_diff(p, rx->done_base);

		if (in_done >= 0 && in_done < 64) {
			p = mrc_psn_add(rx->done_base, 63);
			continue;
		}
		if (bit_test(rx, p)) {
			*out = p;
			return true;
		}
	}
	return false;
}

/*
 * After a SACK's bitmap from `base`: are out-of-order arrivals since the
 * previous SACK left out? Then set up the run of SACKs that reports them.
 */
static void
plan_more(struct mrc_rel_rx *rx, uint32_t base)
{
	uint32_t lo, first;

	rx->more = false;
	if (!rx->rep_any)
		return;
	rx->rep_any = false;
	if (mrc_psn_lt(rx->rep_hi, rx->epsn))
		return; /* all below the cumulative ACK now */
	lo = mrc_psn_lt(rx->rep_lo, rx->epsn) ? rx->epsn : rx->rep_lo;
	rx->done_base = base;
	if (next_unreported(rx, lo, rx->rep_hi, &first)) {
		rx->more = true;
		rx->more_lo = first;
		rx->more_hi = rx->rep_hi;
	}
}

/* The penalty this SACK carries: up after refusals, halved after none. */
static void
penalty_step(struct mrc_rel_rx *rx)
{
	if (rx->refusals != 0) {
		rx->pen =
			rx->pen == 0 ? MRC_REL_RX_PEN_START : (uint8_t)RTE_MIN(2u * rx->pen, 127u);
		rx->refusals = 0;
	} else {
		rx->pen >>= 1;
	}
}

/* The SACK whose bitmap holds the 64 PSNs from `base`. */
static void
fill_at(struct mrc_rel_rx *rx, uint32_t base, uint32_t trigger_psn, uint32_t ev, uint8_t m, bool pr,
	uint16_t ts_echo, struct mrc_sack_view *out)
{
	const uint32_t cack = mrc_rel_rx_cack(rx);
	uint64_t bits = extract64(rx, base);
	/* Bits past the window would be another lap of the circle: never set, but mask them. */
	int32_t room = (int32_t)rx->window_max - mrc_psn_diff(base, rx->epsn);

	if (room < 64)
		bits &= (UINT64_C(1) << room) - 1;

	memset(out, 0, sizeof(*out));
	out->m = m;
	out->pr = pr;
	out->ack_psn_offset = clamp16(mrc_psn_diff(trigger_psn & MRC_PSN_MASK, cack));
	out->entropy = ev;
	out->cack_psn = cack;
	out->mpr = rx->dyn_mpr ? rx->mpr : 0;
	out->sack_offset = (int16_t)mrc_psn_diff(base, cack);
	out->sack_bitmap = bits;
	out->ts_echo = ts_echo;
	out->ooo_count = rx->ooo_since;
	if (unlikely(rx->refusals != 0 || rx->pen != 0))
		penalty_step(rx);
	out->cwnd_pen = RTE_MAX(rx->pen, rx->cwnd_pen);
	out->rc = rx->pen != 0;
	out->rcvd_bytes = (uint32_t)(rx->rcvd_bytes / MRC_CC_RCVD_BYTES_UNIT) & MRC_CC_RCVD_MASK;
	rx->pending = 0;
	rx->ooo_since = 0;
	rx->stats.sacks++;
}

void
mrc_rel_rx_fill_sack(struct mrc_rel_rx *rx, uint32_t trigger_psn, uint32_t ev, uint8_t m, bool pr,
	uint16_t ts_echo, struct mrc_sack_view *out)
{
	uint32_t base = rx->epsn;

	trigger_psn &= MRC_PSN_MASK;
	/* Keep the echoed packet inside the bitmap when it lies beyond 64 PSNs. */
	if (mrc_psn_diff(trigger_psn, rx->epsn) >= 64 &&
		(uint32_t)mrc_psn_diff(trigger_psn, rx->epsn) < rx->window_max)
		base = mrc_psn_sub(trigger_psn, 63);
	if (rx->more) {
		/* A run left unfinished: what it had still to report is still to report. */
		if (!rx->rep_any || mrc_psn_lt(rx->more_lo, rx->rep_lo))
			rx->rep_lo = rx->more_lo;
		if (!rx->rep_any || mrc_psn_gt(rx->more_hi, rx->rep_hi))
			rx->rep_hi = rx->more_hi;
		rx->rep_any = true;
	}
	plan_more(rx, base);
	fill_at(rx, base, trigger_psn, ev, m, pr, ts_echo, out);
}

void
mrc_rel_rx_fill_sack_more(struct mrc_rel_rx *rx, uint32_t trigger_psn, uint32_t ev,
	uint16_t ts_echo, struct mrc_sack_view *out)
{
	/*
	 * The next 64 PSNs from the lowest arrival not yet reported; no verdict
	 * and no probe answer (the run's first SACK gave them, once), so an
	 * ECN echo or a probe counts once however long the run.
	 */
	const uint32_t base =
		rx->more && mrc_psn_ge(rx->more_lo, rx->epsn) ? rx->more_lo : rx->epsn;
	uint32_t next = base;

	rx->more = rx->more && next_unreported(rx, mrc_psn_add(base, 64), rx->more_hi, &next);
	rx->more_lo = next;
	fill_at(rx, base, trigger_psn, ev, MRC_SACK_M_NONE, false, ts_echo, out);
}

void
mrc_rel_rx_fill_nack(struct mrc_rel_rx *rx, uint32_t psn, uint8_t reason, uint32_t ev,
	uint16_t ts_echo, struct mrc_nack_view *out)
{
	memset(out, 0, sizeof(*out));
	out->reason = reason;
	out->entropy = ev;
	out->nack_psn = psn & MRC_PSN_MASK;
	out->ts_echo = ts_echo;
	rx->stats.nacks++;
}
