/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRC_REL_RX_H
#define MRC_REL_RX_H

/**
 * @file
 * Responder-side reliability (doc/protocol.md, "Receiver", and the SETH and
 * NETH layouts there): which PSNs have arrived, what to acknowledge, and
 * when.
 *
 * The responder tracks PSNs in a sliding window of `mpr x 128` PSNs that
 * starts at the expected PSN (epsn = cumulative ACK + 1). Each PSN is one
 * bit of a circular bitmap indexed by (psn & mask); bits below epsn are
 * always clear, so the circular index is never ambiguous. A PSN below epsn
 * or already marked is a duplicate; one at or beyond epsn + window is out
 * of range and NACKed (PSN_OOR_WINDOW); a trimmed packet is never marked
 * received and is NACKed (TRIMMED / TRIMMED_LASTHOP) so the requester
 * resends it at once.
 *
 * Go-back-N (cfg.in_order_only, the plain RoCEv2 RC reference of
 * mrc_qp.h): only the expected PSN is accepted. Anything beyond it is
 * dropped unplaced (OOS) and answered with one NACK PSN_SEQ_ERR naming
 * epsn per gap, as an IB responder NAKs a sequence error once and then
 * stays silent until the expected PSN arrives; the requester's rewind or
 * its timer closes the gap. The bitmap then never holds anything beyond
 * epsn, so SACKs are plain cumulative ACKs.
 *
 * SACKs are coalesced: one per `ack_every` new packets or when the oldest
 * unacknowledged arrival has waited `ack_delay_tsc`, whichever first, and
 * immediately when a gap opens (a PSN beyond the highest seen + 1), when a
 * packet carries an ECN CE mark (its EV is echoed with SKIP_ONCE so the
 * requester moves off that path), for duplicates (the requester may have
 * lost SACKs), for AckReq, and for reliability probes (PR set).
 *
 * Each SACK carries the cumulative ACK, a 64-PSN bitmap, the EV of the packet
 * that triggered it and CC_STATE (echoed timestamp, out-of-order count since
 * the previous SACK, received bytes, cwnd penalty).
 *
 * MPR: SETH's MPR field is 0 unless dynamic MPR is on (cfg.dyn_mpr, which
 * the QP sets only when both ends enabled it); then every SACK carries the
 * responder's current window, which mrc_rel_rx_set_mpr() may lower below
 * the negotiated one (the bitmap stays sized for the negotiated window). A
 * new PSN between the current and the negotiated window finds no tracking
 * resource: NACK NO_BITMAP. One beyond the negotiated window broke the
 * agreement: NACK PSN_OOR_WINDOW.
 *
 * Path verdicts (mrc_rel_rx_path_verdict): an ECN-marked packet gets
 * SKIP_ONCE for its EV; `always_skip_marks` marked packets in a row on one
 * EV, with no unmarked one between, get ALWAYS_SKIP instead: the path keeps
 * marking whatever the requester's skips do, so it should leave the active
 * set. A few EVs are followed at once (MRC_REL_RX_MARK_SLOTS, by hash);
 * nothing is looked up for unmarked packets while none is followed.
 *
 * The receiver's window penalty (CC_STATE rcv_cwnd_pen) comes from its own
 * state: every packet it refuses for lack of a resource (mrc_rel_rx_refused:
 * bitmap, packet buffer, Write-IMM table) makes the next SACK raise the
 * penalty (32, then doubling to 127); each SACK with no refusal since the
 * previous one halves it. R_C is set throughout such an episode: the
 * shortage was the host's, so the window from before it is right again. The bitmap starts at epsn
 * (sack_offset = 1), as in the worked example of doc/protocol.md, "SETH and
 * CC_STATE", unless the triggering PSN lies beyond it; then it ends at that
 * PSN, so the requester always learns about the packet that was just echoed.
 *
 * Every arrival is reported. While a gap holds the cumulative ACK back,
 * the out-of-order arrivals since the last SACK may span more than one
 * bitmap (sprayed packets reorder by more than 64 PSNs behind a deep
 * queue, and coalescing answers many arrivals with one SACK): those the
 * trigger's bitmap misses follow in further SACKs, 64 PSNs each, from the
 * lowest one up (mrc_rel_rx_sack_more). Left out, an arrival would time
 * out at the requester, be resent though it arrived, and count against a
 * path that works.
 *
 * Nothing here allocates, locks or logs: the caller provides the memory
 * (mrc_rel_rx_memsize()) and the time.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_prefetch.h>

#include "mrc_wire_pkt.h"

/** Largest MPR the 8-bit SETH field can advertise (units of 128 PSNs). */
#define MRC_REL_MPR_MAX 255

struct mrc_rel_rx_cfg {
	uint8_t mpr;		/**< window = mpr x 128 PSNs (1..255; default 8) */
	uint16_t ack_every;	/**< SACK after this many new packets (default 4) */
	uint64_t ack_delay_tsc; /**< ... or after the oldest waited this long */
	bool sack_on_gap;	/**< SACK at once when a gap opens (default true) */
	bool trim_nack;		/**< NACK trimmed packets (the TRIM_NACK capability) */
	bool in_order_only;	/**< go-back-N: drop every PSN but epsn (default false) */
	uint8_t cwnd_pen;	/**< least receiver cwnd penalty to advertise (0..127; default 0) */
	bool dyn_mpr;		/**< advertise the current window in SETH's MPR (else 0) */
	/** Marked packets in a row on one EV that earn ALWAYS_SKIP (0: never; default 8). */
	uint8_t always_skip_marks;
};

/** EVs whose marks in a row the responder follows at once (a power of two). */
#define MRC_REL_RX_MARK_SLOTS 8
/** The penalty the first refusal of an episode sets (doubling from there, to 127). */
#define MRC_REL_RX_PEN_START 32

/** Fill `cfg` with the defaults (ack_delay_tsc is 0: the caller sets it). */
void mrc_rel_rx_cfg_defaults(struct mrc_rel_rx_cfg *cfg);

/** What happened to one arriving data packet. */
enum mrc_rel_rx_kind {
	MRC_REL_RX_NEW = 0,   /**< first copy: place the payload */
	MRC_REL_RX_DUP,	      /**< already received: drop the payload, SACK */
	MRC_REL_RX_OOR,	      /**< beyond the window: drop, NACK PSN_OOR_WINDOW */
	MRC_REL_RX_TRIMMED,   /**< payload cut by a switch: NACK so it is resent */
	MRC_REL_RX_OOS,	      /**< go-back-N: beyond epsn; drop, NACK PSN_SEQ_ERR once per gap */
	MRC_REL_RX_NO_BITMAP, /**< beyond the current (lowered) window: drop, NACK NO_BITMAP */
};

struct mrc_rel_rx_verdict {
	uint8_t kind;	     /**< enum mrc_rel_rx_kind */
	bool sack_now;	     /**< send a SACK for this packet now */
	bool nack_now;	     /**< send a NACK for this packet now */
	uint8_t nack_reason; /**< enum mrc_nack_reason when nack_now */
	uint32_t nack_psn;   /**< the PSN the NACK names: the packet's, or epsn for OOS */
	bool in_order;	     /**< NEW and it advanced the cumulative ACK */
};

/** Flags describing an arriving data packet. */
#define MRC_REL_RX_F_CE	     (1u << 0) /**< IP ECN field says CE */
#define MRC_REL_RX_F_ACKREQ  (1u << 1) /**< BTH AckReq */
#define MRC_REL_RX_F_TRIMMED (1u << 2) /**< DSCP says trimmed */
#define MRC_REL_RX_F_LASTHOP (1u << 3) /**< ... at the last hop */

/** Responder counters (per QP; the worker sums them per lcore). */
struct mrc_rel_rx_stats {
	/* what every message counts, in the line of the state a packet reads */
	uint64_t new_pkts;
	uint64_t new_bytes;
	uint64_t sacks;
	uint64_t dup_pkts;
	uint64_t oor_pkts;
	uint64_t trimmed_pkts;
	uint64_t ooo_pkts; /**< new packets that arrived out of order */
	uint64_t oos_pkts; /**< go-back-N: packets beyond epsn, dropped */
	uint64_t nacks;
	uint64_t probes;
	uint64_t no_bitmap_pkts; /**< refused: beyond the current window, inside the negotiated */
	uint64_t refused;	 /**< refusals for lack of a resource (mrc_rel_rx_refused) */
	uint64_t always_skips;	 /**< ALWAYS_SKIP verdicts given */
};

/** One EV whose marks in a row are being counted. */
struct mrc_rel_rx_mark {
	uint32_t ev;
	uint8_t run; /**< marked packets in a row; 0: slot free */
};

struct mrc_rel_rx {
	uint32_t epsn;	     /**< expected PSN: every PSN before it has arrived */
	uint32_t max_psn;    /**< highest PSN seen (valid when any_seen) */
	uint32_t window;     /**< PSNs accepted from epsn on now (mpr x 128) */
	uint32_t mask;	     /**< bitmap bits - 1 (power of two >= window_max) */
	uint32_t window_max; /**< the negotiated window, which the bitmap covers */
	uint16_t ack_every;
	uint16_t pending;   /**< new packets not yet covered by a SACK */
	uint16_t ooo_since; /**< out-of-order arrivals since the last SACK */
	uint8_t mpr;	    /**< the current window, x 128 */
	uint8_t mpr_max;    /**< the negotiated window, x 128 */
	uint8_t cwnd_pen;   /**< the configured floor of the penalty */
	uint8_t pen;	    /**< the penalty from refusals (0..127) */
	uint16_t refusals;  /**< refusals since the last SACK */
	bool dyn_mpr;
	uint8_t always_skip_marks;
	uint8_t marks_live; /**< marks[] slots in use */
	bool any_seen;
	bool sack_on_gap;
	bool trim_nack;
	bool in_order_only;
	bool nak_sent; /**< go-back-N: this gap (at epsn) was NACKed already */
	uint64_t ack_delay_tsc;
	uint64_t first_pending_tsc;
	uint64_t rcvd_bytes; /**< all new payload bytes, reported mod 2^24 units */
	/* Out-of-order arrivals since the last SACK span rep_lo..rep_hi (when rep_any). */
	uint32_t rep_lo, rep_hi;
	/* Arrivals still to report (when more): from more_lo to more_hi, but for the
	 * 64 PSNs from done_base, which the first SACK of the run reported. */
	uint32_t more_lo, more_hi, done_base;
	bool rep_any;
	bool more;
	struct mrc_rel_rx_stats stats;
	struct mrc_rel_rx_mark marks[MRC_REL_RX_MARK_SLOTS];
	uint64_t bitmap[]; /**< (mask + 1) / 64 words */
};

/** Bytes an mrc_rel_rx needs for `cfg`. */
size_t mrc_rel_rx_memsize(const struct mrc_rel_rx_cfg *cfg);

/**
 * Initialise `rx` (mrc_rel_rx_memsize() bytes) to expect `start_psn` first.
 * @return 0 or -EINVAL (mpr 0, ack_every 0, penalty > 127).
 */
int mrc_rel_rx_init(struct mrc_rel_rx *rx, const struct mrc_rel_rx_cfg *cfg, uint32_t start_psn);

/** Account for an arriving data packet `psn` carrying `bytes` of payload; the verdict in `v`. */
void mrc_rel_rx_judge(struct mrc_rel_rx *rx, uint32_t psn, uint32_t bytes, unsigned int flags,
	uint64_t now_tsc, struct mrc_rel_rx_verdict *v);

/*
 * The same, returning the verdict. Inline on purpose: a 12-byte struct
 * returned from another unit came back through the stack, its fields
 * written a byte at a time and read back 8 bytes at a time, and the failed
 * store forwarding was half of the function's time.
 */
static inline struct mrc_rel_rx_verdict
mrc_rel_rx_data(
	struct mrc_rel_rx *rx, uint32_t psn, uint32_t bytes, unsigned int flags, uint64_t now_tsc)
{
	struct mrc_rel_rx_verdict v;

	mrc_rel_rx_judge(rx, psn, bytes, flags, now_tsc, &v);
	return v;
}

/**
 * Set the current window to `mpr` x 128 PSNs (1 .. the negotiated mpr): a
 * responder short of memory lowers it, and with dynamic MPR the requester
 * hears of it in the next SACK. 0, or -EINVAL out of range.
 */
int mrc_rel_rx_set_mpr(struct mrc_rel_rx *rx, uint8_t mpr);

/**
 * A packet was refused for lack of a resource (NACK NO_BITMAP,
 * NO_PKT_BUFFER, NO_RESOURCE): the next SACK raises the window penalty.
 * mrc_rel_rx_judge() counts its own NO_BITMAP refusals.
 */
static inline void
mrc_rel_rx_refused(struct mrc_rel_rx *rx)
{
	rx->stats.refused++;
	if (rx->refusals < UINT16_MAX)
		rx->refusals++;
}

uint8_t mrc_rel_rx_path_mark(struct mrc_rel_rx *rx, uint32_t ev, bool ce);

/**
 * The verdict on the path of a data packet that arrived on `ev`, ECN
 * CE-marked or not (enum mrc_sack_m): NONE, SKIP_ONCE for a mark, or
 * ALWAYS_SKIP for the always_skip_marks-th mark in a row on that EV.
 * Nothing is looked up for an unmarked packet while no EV is followed.
 */
static inline uint8_t
mrc_rel_rx_path_verdict(struct mrc_rel_rx *rx, uint32_t ev, bool ce)
{
	if (likely(!ce && rx->marks_live == 0))
		return MRC_SACK_M_NONE;
	return mrc_rel_rx_path_mark(rx, ev, ce);
}

/** A reliability probe arrived: the answer is a SACK with PR set, now. */
void mrc_rel_rx_probe(struct mrc_rel_rx *rx);

/** True when coalesced packets have waited long enough for a SACK. */
static inline bool
mrc_rel_rx_sack_due(const struct mrc_rel_rx *rx, uint64_t now_tsc)
{
	return rx->pending > 0 && now_tsc - rx->first_pending_tsc >= rx->ack_delay_tsc;
}

/** When the pending SACK falls due (valid when rx->pending > 0). */
static inline uint64_t
mrc_rel_rx_sack_deadline(const struct mrc_rel_rx *rx)
{
	return rx->first_pending_tsc + rx->ack_delay_tsc;
}

/** The cumulative ACK: every PSN up to and including it has arrived. */
static inline uint32_t
mrc_rel_rx_cack(const struct mrc_rel_rx *rx)
{
	return (rx->epsn - 1) & 0xffffffu;
}

/** True if `psn` has arrived (below epsn, or marked in the window). */
bool mrc_rel_rx_has(const struct mrc_rel_rx *rx, uint32_t psn);

/**
 * Fill the SETH + CC_STATE part of a SACK answering `trigger_psn` (the
 * packet, or probe, that caused it), echoing `ev`, with verdict `m` and
 * `ts_echo`; resets coalescing. When the arrivals since the last SACK do
 * not all fit its bitmap, mrc_rel_rx_sack_more() is then true: send the
 * rest with mrc_rel_rx_fill_sack_more() (same trigger and EV) until it is
 * false. A caller that does not reports them with its next SACK's run.
 */
void mrc_rel_rx_fill_sack(struct mrc_rel_rx *rx, uint32_t trigger_psn, uint32_t ev, uint8_t m,
	bool pr, uint16_t ts_echo, struct mrc_sack_view *out);

/**
 * The next SACK of a run (mrc_rel_rx_sack_more() true): 64 more PSNs of
 * arrivals, with no verdict (M = NONE) and PR clear: those were the first's.
 */
void mrc_rel_rx_fill_sack_more(struct mrc_rel_rx *rx, uint32_t trigger_psn, uint32_t ev,
	uint16_t ts_echo, struct mrc_sack_view *out);

/**
 * Ask for the bitmap word mrc_rel_rx_judge() reads for `psn` (through the
 * state's first line, which it reads): a hint for a worker about to handle
 * a burst of data packets. Changes nothing.
 */
static inline void
mrc_rel_rx_prefetch_judge(const struct mrc_rel_rx *rx, uint32_t psn)
{
	rte_prefetch0(&rx->bitmap[(psn & rx->mask) >> 6]);
}

/** True when the SACK just filled left arrivals out: another must follow. */
static inline bool
mrc_rel_rx_sack_more(const struct mrc_rel_rx *rx)
{
	return rx->more;
}

/** Fill a NETH for `psn` with `reason`, echoing `ev` and `ts_echo`. */
void mrc_rel_rx_fill_nack(struct mrc_rel_rx *rx, uint32_t psn, uint8_t reason, uint32_t ev,
	uint16_t ts_echo, struct mrc_nack_view *out);

#endif /* MRC_REL_RX_H */
