/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRC_REL_TX_H
#define MRC_REL_TX_H

/**
 * @file
 * Requester-side reliability (doc/protocol.md, "Reliability"): what is in
 * flight, what was lost, what to resend, and when to give up.
 *
 * Every packet sent gets the next PSN and an entry in a ring indexed by
 * PSN (the responder's MPR bounds how far ahead of the oldest unacknowledged
 * PSN we may send). The entry records the EV slot, the send time and the
 * caller's cookie (which message and offset the packet carries).
 *
 * Loss detection must not be fooled by spraying, where reordering is the
 * normal case, so a hole in the SACK bitmap is never by itself a loss. And
 * a SACK knows only part of the picture (the cumulative ACK and 64 PSNs),
 * so rules 1 and 2 condemn only PSNs the SACK shows missing (cack + 1, or a
 * clear bit of its window); the others wait for a SACK that covers them:
 *  1. Per-EV order. Packets sent on one EV follow one path and stay in
 *     order, so when a SACK shows PSN q delivered, every packet sent
 *     earlier on q's EV and not yet delivered was lost. Each EV slot keeps
 *     its in-flight packets in send order; deliveries pop the list head,
 *     so this costs O(1) per packet. When the EV names its path (SRv6,
 *     cfg.path_n_t1), the lists are per path instead: every EV on the same
 *     plane and T1 crosses the same FIFO links, so a loss is proven by the
 *     next packet on its path (a few packets later) rather than the next
 *     on its EV (with 128 EVs, most of a window later: the time rule or
 *     the packet timeout got there first). This assumes each hop of a
 *     path is one FIFO queue, as in drivers/fabric (data never overtakes
 *     data; only trimmed headers jump ahead, and they are not deliveries);
 *     a hop that hashed flows over parallel links (a LAG) would break it.
 *  2. Time (RACK-like). All in-flight packets are also kept in send order.
 *     A packet is lost when one sent more than a reorder window after it
 *     has been delivered; the window is the spread of recent path RTTs
 *     (largest recent RTT - smallest recent RTT, + srtt/4, at least
 *     min_reo; a whole srtt until 8 samples exist), which is what path
 *     delay differences look like from here. Both extremes fade towards
 *     srtt: queueing that builds up over time is shared by the paths and
 *     is not reordering, so the unloaded RTT of the first packets must not
 *     widen the window for good. A probe answer
 *     moves the same mark.
 *  Both rules learn only from packets sent once: when a resent packet is
 *  reported, which copy arrived is unknown (Karn's ambiguity).
 *  3. Per-packet timeout: a packet unacknowledged pkt_timeout after it was
 *     sent is lost, whatever else happens.
 *  4. NACK: a TRIMMED / TRIMMED_LASTHOP NACK marks its PSN for resending at
 *     once; resource NACKs do too, and cost retry budget.
 * Lost packets are resent oldest PSN first. A packet marked lost that is
 * later SACKed was a spurious loss; it is counted and simply completes.
 *
 * The QP timer: with packets in flight and no progress (the oldest
 * unacknowledged PSN does not move), the retransmit timeout fires after base
 * x (k + 1) for the first `retry_linear` expiries k, then doubles, base =
 * 1.024 us x 2^timeout (doc/protocol.md, "Sender: the retransmit timer"; base
 * x linear x 2^(k - linear + 1) in the exponential phase). Each expiry
 * resends the oldest unacknowledged packet, asks for a reliability probe and
 * spends one retry; recoverable resource NACKs spend one too. Progress
 * refunds the budget. retry_linear + retry_exp expiries in a row put the
 * sender in error (retry_exp == 25 means never). The base is never shorter
 * than the per-packet timeout: a round trip longer than the verbs timeout
 * (a slow or busy host) must not make the timer resend what only waits.
 *
 * Senders of one worker to one destination may share their round trip
 * (struct mrc_rel_rtt_share, mrc_rel_tx_set_share): every sample feeds it
 * and the timers wait for the larger of it and the sender's own.
 *
 * Overdue packets and tail loss: when the packet holding up snd_una (else
 * the oldest in flight) has not been reported srtt + 4 rttvar after it left,
 * or nothing at all has been acknowledged for srtt + reorder window, the
 * sender asks for a reliability probe (no PSN), sent on the overdue
 * packet's EV (mrc_rel_tx_probe_target). Its PR answer reflects the
 * responder's state after everything sent before the probe: it moves the
 * time mark to the probe's send time (rule 2), and since the probe
 * followed the overdue packet down the same path, rule 1 applies too:
 * every packet sent before the probe on that EV and shown missing was
 * lost, with no reorder window to wait for. When little is in flight, no
 * later packet on the same EV would ever reveal the loss; the probe is
 * that later packet. (The per-packet timeout is 2 srtt + 4 rttvar +
 * reorder window.)
 *
 * Go-back-N (cfg.gbn, the plain RoCEv2 RC reference of mrc_qp.h): the
 * responder accepts only the expected PSN, so nothing after a hole can be
 * delivered and everything from the hole on must go again. A NACK for a
 * PSN in flight (PSN_SEQ_ERR names the responder's expected PSN) rewinds:
 * that packet and every later one in flight are marked lost and resent
 * in PSN order. The retransmit timer rewinds from the oldest
 * unacknowledged PSN. Rules 1-3 and the tail-loss probe are MRC's and
 * stay off; a sequence-error NACK spends no retry (the responder is
 * alive and the rewind is progress).
 *
 * SACKs are validated before anything is applied: one that acknowledges a
 * PSN never sent is refused whole and counted.
 *
 * Dynamic MPR (cfg.dyn_mpr, on when both ends enabled it): the window is
 * the MPR the latest SACK advertised (a SACK with MPR 0 leaves it), never
 * more than the negotiated one the ring is sized for. Without it SETH's MPR
 * field is ignored.
 *
 * Timestamps (cfg.ts_shift, when the packets carry a TSETH): the stamp of
 * a transmission is its send time >> ts_shift, 16 bits, never 0 (0 is what
 * a responder that echoes nothing sends). When the SACK's echo equals the
 * stamp of the triggering packet's last transmission, that copy is the one
 * that arrived, so even a resent packet gives an RTT sample (Karn's rule
 * keeps a packet sent twice from giving one otherwise).
 *
 * Nothing here allocates, locks, logs or reads a clock.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mrc_wire_pkt.h"

#define MRC_REL_NIL UINT16_MAX
/** retry_exp value meaning "retry forever" (doc/protocol.md, "Reliability"). */
#define MRC_REL_RETRY_EXP_INFINITE 25

struct mrc_rel_tx_cfg {
	uint8_t mpr;	      /**< responder's MPR: window = mpr x 128 PSNs */
	uint16_t n_ev_slots;  /**< EV slots of the QP's pool */
	uint8_t timeout;      /**< base RTO = 1.024 us x 2^timeout (0..24) */
	uint8_t retry_linear; /**< linear-phase expiries (0..7) */
	uint8_t retry_exp;    /**< exponential-phase expiries (0..25, 25 = forever) */
	uint64_t tsc_hz;
	uint64_t initial_rtt_tsc;     /**< RTT assumed before the first sample */
	uint64_t min_reo_tsc;	      /**< floor of the reorder window */
	uint64_t min_pkt_timeout_tsc; /**< floor of the per-packet timeout */
	bool gbn;		      /**< go-back-N instead of selective repeat */
	/**
	 * Per-path order (rule 1 across EVs), when the EV names its path: the
	 * path is (plane, uplink % path_n_t1), read from the EV's fields as in
	 * struct mrc_ev_layout. 0 keeps rule 1 per EV slot (plain ECMP mode,
	 * where the network hashes the EV). Needs 2^plane_bits x n_t1 <= n_ev_slots.
	 */
	uint8_t path_n_t1;
	uint8_t path_plane_shift, path_plane_bits;
	uint8_t path_uplink_shift, path_uplink_bits;
	bool dyn_mpr;	  /**< honour the MPR of SACKs (both ends enabled dynamic MPR) */
	uint8_t ts_shift; /**< packets carry TSETH stamped send_tsc >> ts_shift; 0: no TSETH */
};

/** Defaults: timeout 8 (262 us), linear 7, exp 25, 10 us initial RTT, 1 us min reorder. */
void mrc_rel_tx_cfg_defaults(struct mrc_rel_tx_cfg *cfg, uint64_t tsc_hz);

/** Why a packet was declared lost. */
enum mrc_rel_loss {
	MRC_REL_LOSS_EV_ORDER = 0, /**< a later packet on the same EV arrived */
	MRC_REL_LOSS_TIME,	   /**< a packet sent a reorder window later arrived */
	MRC_REL_LOSS_PKT_TIMEOUT,  /**< unacknowledged for the per-packet timeout */
	MRC_REL_LOSS_RTO,	   /**< the QP retransmit timer fired */
	MRC_REL_LOSS_NACK,	   /**< the responder NACKed it */
	MRC_REL_LOSS_REWIND,	   /**< go-back-N: resent because an earlier PSN was lost */
	MRC_REL_LOSS_MAX,
};

/** Why the sender stopped. */
enum mrc_rel_error {
	MRC_REL_OK = 0,
	MRC_REL_ERR_RETRY_EXCEEDED, /**< retry budget spent without progress */
	MRC_REL_ERR_REMOTE_OP,	    /**< responder NACKed UNEXP_EVENT */
};

/**
 * Events the sender reports while it processes feedback; called
 * synchronously, in PSN order for acknowledgements.
 */
struct mrc_rel_tx_ops {
	/** `psn` was delivered (first time): its cookie and length, the EV value it last went on.
	 */
	void (*acked)(void *ctx, uint32_t psn, uint32_t ev, uint32_t cookie, uint16_t len,
		uint8_t tx_count);
	/** `psn` (cookie, len), last sent on EV value `ev`, was declared lost for `why`. */
	void (*lost)(void *ctx, uint32_t psn, uint32_t ev, uint32_t cookie, uint16_t len,
		enum mrc_rel_loss why);
};

struct mrc_rel_tx_stats {
	/* first the four every message counts: one cache line with the fields before them */
	uint64_t sent_pkts;
	uint64_t acked_pkts;
	uint64_t sacks;
	uint64_t rtt_samples;
	uint64_t retx_pkts;
	uint64_t lost[MRC_REL_LOSS_MAX];
	uint64_t spurious;	/**< declared lost, then delivered anyway */
	uint64_t sacks_refused; /**< acknowledged PSNs never sent: ignored whole */
	uint64_t stale_sacks;	/**< cumulative ACK behind ours (reordered SACKs) */
	uint64_t nacks;
	uint64_t nacks_ignored; /**< for PSNs not in flight */
	uint64_t rto_fired;
	uint64_t probes_asked;
	uint64_t ts_rtt_samples; /**< of rtt_samples, from resends whose echo named the copy */
	uint64_t mpr_changes;	 /**< SACKs that changed the window (dynamic MPR) */
};

/** One in-flight packet (32 bytes). */
struct mrc_rel_tx_pkt {
	uint64_t sent_tsc; /**< last transmission */
	uint32_t cookie;
	uint32_t ev_val; /**< EV value of the last transmission */
	uint16_t len;
	uint16_t ev;	  /**< EV slot of the last transmission (which list it is on) */
	uint16_t ev_next; /**< next in-flight packet sent on the same EV */
	uint16_t t_prev;  /**< send-order list */
	uint16_t t_next;
	uint8_t state; /**< enum in mrc_rel_tx_priv.h */
	uint8_t tx_count;
};

/**
 * Round-trip state shared by the senders of one worker to one destination
 * (per (worker, destination), never between lcores: the owner's alone).
 * A sender that has sent little, or not lately (a QP that just became
 * active), knows nothing of the round trip its host's other QPs to the
 * same peer see right now; MRC shares congestion state per destination for
 * that reason. Every RTT sample of every sharing sender feeds it, and the
 * timers wait for the larger of the sender's own estimate and this one.
 */
struct mrc_rel_rtt_share {
	uint64_t srtt_tsc;
	uint64_t rttvar_tsc;
	uint64_t samples;
};

struct mrc_rel_tx {
	uint32_t snd_una; /**< oldest PSN not yet delivered */
	uint32_t snd_nxt; /**< next new PSN */
	uint32_t window;  /**< mpr x 128: the negotiated one, or the peer's latest (dynamic MPR) */
	uint32_t mask;	  /**< ring size - 1 */
	uint16_t n_ev;
	uint16_t t_head, t_tail; /**< in-flight packets in send order */
	uint16_t probe_slot;	 /**< EV slot the outstanding probe went on, or MRC_REL_NIL */
	uint32_t n_inflight;
	uint32_t n_lost;	 /**< marked lost, not yet resent */
	uint32_t inflight_bytes; /**< payload of the packets counted in n_inflight */
	uint32_t probe_ev_val;	 /**< EV value the outstanding probe went on */
	uint8_t error;		 /**< enum mrc_rel_error */
	uint8_t retry_linear, retry_exp;
	uint8_t retries; /**< consecutive expiries / budget NACKs without progress */
	bool probe_wanted;
	bool probe_outstanding;
	bool gbn;
	uint8_t path_n_t1; /**< 0: order lists per EV slot, else per path (cfg) */
	uint8_t path_plane_shift, path_plane_bits, path_uplink_shift, path_uplink_bits;
	bool dyn_mpr;	  /**< cfg.dyn_mpr (in what was padding before base_rto_tsc) */
	uint8_t ts_shift; /**< cfg.ts_shift */
	/** stats.rto_fired's low 16 bits, in the line every poll reads (mrc_qp's check) */
	uint16_t rto_count;
	/**
	 * Tracking memory (the ring, lost bits and per-EV lists; layout in
	 * mrc_rel_tx_priv.h): `mem` below, or a block lent while packets are in
	 * flight (mrc_rel_tx_attach); NULL while none is held. In the first
	 * line, with the counts: a poll of a sender with nothing in flight
	 * reads that line only.
	 */
	uint8_t *trk;
	uint64_t min_reo_tsc, min_pkt_timeout_tsc;
	uint64_t srtt_tsc, rttvar_tsc, min_rtt_tsc, max_rtt_tsc;
	uint64_t rack_tsc;     /**< latest send time among delivered packets */
	uint64_t progress_tsc; /**< when snd_una last moved, or sending resumed */
	uint64_t last_ack_tsc;
	struct mrc_rel_rtt_share *share; /**< mrc_rel_tx_set_share(), or NULL */
	uint64_t base_rto_tsc;
	uint32_t window_max; /**< the negotiated mpr x 128 (read by SACKs with dynamic MPR) */
	struct mrc_rel_tx_stats stats;
	uint64_t probe_sent_tsc;	/* after the stats: read only while a probe is out */
	uint8_t mem[] __rte_aligned(8); /**< own tracking memory (mrc_rel_tx_init only) */
};

/** Bytes of tracking memory a sender with `cfg` needs (what is lent). */
size_t mrc_rel_tx_trk_memsize(const struct mrc_rel_tx_cfg *cfg);

/** Bytes for mrc_rel_tx_init: the sender with its own tracking memory after it. */
size_t mrc_rel_tx_memsize(const struct mrc_rel_tx_cfg *cfg);

/** 0, or -EINVAL naming nothing (check the ranges in struct mrc_rel_tx_cfg). */
int mrc_rel_tx_init(struct mrc_rel_tx *tx, const struct mrc_rel_tx_cfg *cfg, uint32_t start_psn,
	uint64_t now_tsc);

/**
 * Storage on loan. A sender that has nothing in flight needs only struct
 * mrc_rel_tx (sequence state, RTT estimates, timers, counters): the ring
 * that tracks packets in flight can then go back to a shared pool and be
 * lent again when the sender next has something to send.
 *
 * mrc_rel_tx_init_lent() sets up `tx` (sizeof(struct mrc_rel_tx) bytes)
 * without tracking memory. Before mrc_rel_tx_sent_new(), attach a block of
 * mrc_rel_tx_trk_memsize() bytes whose ring is clear: freshly zeroed, or
 * one a drained sender gave back. Once mrc_rel_tx_drained() holds, detach
 * it. Every other call works without tracking memory while drained (there
 * is nothing to look up). Detaching with packets in flight forgets them
 * (for a QP being reset or destroyed) and clears the block.
 *
 * Attaching resets the block's lost bits and per-EV lists (n_ev x 4 bytes,
 * about ten cache lines) unless `clean` says they already are: a drained
 * sender leaves them reset, and its detach returns in `*clean` a nonzero
 * stamp naming the shape (ring size, EV slots) they are reset for. Keep
 * the stamp with the block and give it to the next attach; 0 (a fresh
 * block, or one whose stamp was lost) means reset. A stamp for another
 * shape is not trusted.
 */
int mrc_rel_tx_init_lent(struct mrc_rel_tx *tx, const struct mrc_rel_tx_cfg *cfg,
	uint32_t start_psn, uint64_t now_tsc);
void mrc_rel_tx_attach(struct mrc_rel_tx *tx, void *trk, uint64_t clean);
/** Returns the block (NULL if none was attached); `clean` (may be NULL) gets its stamp. */
void *mrc_rel_tx_detach(struct mrc_rel_tx *tx, uint64_t *clean);

/** True if tracking memory is attached. */
static inline bool
mrc_rel_tx_has_trk(const struct mrc_rel_tx *tx)
{
	return tx->trk != NULL;
}

/**
 * Nothing for the timers: mrc_rel_tx_poll() would only return UINT64_MAX
 * (nothing in flight or lost, no probe wanted or out). Reads the first line only.
 */
static inline bool
mrc_rel_tx_timers_idle(const struct mrc_rel_tx *tx)
{
	return tx->n_inflight == 0 && tx->n_lost == 0 && tx->t_head == MRC_REL_NIL &&
	       !tx->probe_wanted && !tx->probe_outstanding && tx->error == MRC_REL_OK;
}

/** Nothing sent is unaccounted for: every PSN delivered, nothing in flight or waiting. */
static inline bool
mrc_rel_tx_drained(const struct mrc_rel_tx *tx)
{
	return tx->snd_una == tx->snd_nxt && tx->n_inflight == 0 && tx->n_lost == 0;
}

/** Packets in flight (sent, neither delivered nor waiting to be resent). */
static inline uint32_t
mrc_rel_tx_inflight(const struct mrc_rel_tx *tx)
{
	return tx->n_inflight;
}

/**
 * Payload bytes of the packets in flight: what a congestion window bounds.
 * A packet stops counting once, whether it is delivered or declared lost
 * first (and counts again when it is resent).
 */
static inline uint32_t
mrc_rel_tx_inflight_bytes(const struct mrc_rel_tx *tx)
{
	return tx->inflight_bytes;
}

/** True when a new PSN may be sent: inside the responder's window, no error. */
bool mrc_rel_tx_can_send(const struct mrc_rel_tx *tx);

/**
 * Record a new packet sent from EV pool slot `slot` carrying EV value `ev`;
 * returns its PSN (call only if can_send). A slot may change occupant (an
 * EV retired for a backup): per-EV order is inferred only between packets
 * that carried the same value from the same slot.
 */
uint32_t mrc_rel_tx_sent_new(struct mrc_rel_tx *tx, uint16_t slot, uint32_t ev, uint16_t len,
	uint32_t cookie, uint64_t now_tsc);

/**
 * Ask for the lines the next mrc_rel_tx_sent_new() from `slot` writes
 * beyond the state's first three: its ring entry and the slot's list tail.
 * Reads those first lines; a hint for a worker about to send on many QPs
 * in turn, it changes nothing (nothing at all without tracking memory).
 */
void mrc_rel_tx_prefetch_send(const struct mrc_rel_tx *tx, uint16_t slot);

/**
 * The oldest packet waiting to be resent: its PSN, the EV value it was lost
 * on (so the caller picks another), its cookie and length. -ENOENT if none.
 */
int mrc_rel_tx_next_retx(const struct mrc_rel_tx *tx, uint32_t *psn, uint32_t *old_ev,
	uint32_t *cookie, uint16_t *len);

/** Why `psn`, waiting to be resent, was declared lost (enum mrc_rel_loss); -ENOENT if it is not. */
int mrc_rel_tx_lost_why(const struct mrc_rel_tx *tx, uint32_t psn);

/** Record that `psn` (from next_retx) was resent from `slot` with EV value `ev`. */
void mrc_rel_tx_sent_retx(
	struct mrc_rel_tx *tx, uint32_t psn, uint16_t slot, uint32_t ev, uint64_t now_tsc);

/** What one SACK changed. */
struct mrc_rel_ack_info {
	uint32_t acked_pkts;
	uint32_t acked_bytes;
	uint32_t lost_pkts;
	uint64_t rtt_tsc; /**< a fresh RTT sample, or 0 */
	bool progress;	  /**< snd_una moved */
};

/**
 * Apply a SACK. Returns 0, or -EINVAL when it acknowledges a PSN never sent
 * (nothing is changed then).
 */
int mrc_rel_tx_on_sack(struct mrc_rel_tx *tx, const struct mrc_sack_view *s, uint64_t now_tsc,
	const struct mrc_rel_tx_ops *ops, void *ctx, struct mrc_rel_ack_info *info);

/**
 * Apply a NACK. Returns 0 (the PSN is marked for resending, or was not in
 * flight), or the error it put the sender in (retry budget, remote error).
 */
int mrc_rel_tx_on_nack(struct mrc_rel_tx *tx, const struct mrc_nack_view *n, uint64_t now_tsc,
	const struct mrc_rel_tx_ops *ops, void *ctx);

/**
 * Run the time-driven rules: per-packet timeouts, the retransmit timer and
 * the tail-loss probe decision. Returns the next time it needs to run
 * (UINT64_MAX when nothing is in flight).
 */
uint64_t mrc_rel_tx_poll(
	struct mrc_rel_tx *tx, uint64_t now_tsc, const struct mrc_rel_tx_ops *ops, void *ctx);

/** A reliability probe is wanted (tail loss or timer): send one and call probe_sent. */
static inline bool
mrc_rel_tx_probe_wanted(const struct mrc_rel_tx *tx)
{
	return tx->probe_wanted && !tx->probe_outstanding && tx->error == MRC_REL_OK;
}

/**
 * Where the reliability probe should go: the EV slot and value of the
 * overdue packet (the oldest PSN if in flight, else the oldest
 * transmission in flight). 0, or -ENOENT when nothing is in flight.
 */
int mrc_rel_tx_probe_target(const struct mrc_rel_tx *tx, uint16_t *slot, uint32_t *ev);

/** The reliability probe left, on no particular EV. */
void mrc_rel_tx_probe_sent(struct mrc_rel_tx *tx, uint64_t now_tsc);

/**
 * The reliability probe left from EV pool slot `slot` with EV value `ev`
 * (normally mrc_rel_tx_probe_target()'s): its answer then also applies
 * rule 1 to that EV, as a packet sent on it would.
 */
void mrc_rel_tx_probe_sent_on(struct mrc_rel_tx *tx, uint16_t slot, uint32_t ev, uint64_t now_tsc);

/** The TSETH stamp of a transmission at `tsc` (16 bits, never 0; needs cfg.ts_shift). */
static inline uint16_t
mrc_rel_tx_ts_stamp(const struct mrc_rel_tx *tx, uint64_t tsc)
{
	const uint16_t v = (uint16_t)(tsc >> tx->ts_shift);

	return v != 0 ? v : 1;
}

/** Share round-trip state with the other senders to the same destination (NULL: none). */
void mrc_rel_tx_set_share(struct mrc_rel_tx *tx, struct mrc_rel_rtt_share *share);

/** The current reorder window and per-packet timeout (for tests and telemetry). */
uint64_t mrc_rel_tx_reo_wnd(const struct mrc_rel_tx *tx);
uint64_t mrc_rel_tx_pkt_timeout(const struct mrc_rel_tx *tx);
/** The retransmit timeout for the k-th consecutive expiry (k from 0). */
uint64_t mrc_rel_tx_rto(const struct mrc_rel_tx *tx, unsigned int k);

#endif /* MRC_REL_TX_H */
