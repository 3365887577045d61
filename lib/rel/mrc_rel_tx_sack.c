/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Requester-side reliability, SACKs: checking one, marking what it
 * delivers, sampling the round trip, moving snd_una, and the loss rules a
 * SACK drives (per-EV order, the probe's answer, the reorder window). It
 * is the hot half of the feedback path, kept in one file so the helpers
 * each SACK runs stay inlined into mrc_rel_tx_on_sack.
 */

#include <errno.h>
#include <string.h>

#include <rte_common.h>

#include "mrc_rel_tx.h"
#include "mrc_rel_tx_priv.h"
#include "mrc_seq.h"

/* RFC 6298: srtt and rttvar after sample r (`first`: r replaces them). */
static inline void
smooth(uint64_t *srtt, uint64_t *rttvar, bool first, uint64_t r)
{
	if (first) {
		*srtt = r;
		*rttvar = r / 2;
	} else {
		const uint64_t d = *srtt > r ? *srtt - r : r - *srtt;

		*rttvar = (3 * *rttvar + d) / 4;
		*srtt = (7 * *srtt + r) / 8;
	}
}

static void
rtt_sample(struct mrc_rel_tx *tx, uint64_t r)
{
	/* RFC 6298 smoothing; the first sample replaces the initial guess. */
	smooth(&tx->srtt_tsc, &tx->rttvar_tsc, tx->stats.rtt_samples == 0, r);
	if (tx->share != NULL) {
		smooth(&tx->share->srtt_tsc, &tx->share->rttvar_tsc, tx->share->samples == 0, r);
		tx->share->samples++;
	}
	/*
	 * The largest and the smallest recent RTT, each fading slowly towards
	 * srtt so an old extreme goes while every path (sampled about once per
	 * n_paths SACKs) keeps them apart. The smallest must fade too: with an
	 * all-time minimum the unloaded RTT of the first packets stays in the
	 * spread for good, and once the queues fill (the host's own NIC queue
	 * at line rate: 41 us against 9.6 us unloaded in bench_failover) the
	 * window is the whole queueing delay although the paths differ by a
	 * few us, which delays every loss found by time by that much. (A
	 * faster fade of the largest, 1/64, forgets slow paths between their
	 * samples: spurious resends after a T1 fault in bench_failover.)
	 */
	if (r <= tx->min_rtt_tsc)
		tx->min_rtt_tsc = r;
	else if (tx->min_rtt_tsc < tx->srtt_tsc)
		tx->min_rtt_tsc += (tx->srtt_tsc - tx->min_rtt_tsc) / 256;
	if (r >= tx->max_rtt_tsc)
		tx->max_rtt_tsc = r;
	else if (tx->max_rtt_tsc > tx->srtt_tsc)
		tx->max_rtt_tsc -= (tx->max_rtt_tsc - tx->srtt_tsc) / 256;
	tx->stats.rtt_samples++;
}

/*
 * What one SACK knows. A SACK reports the cumulative ACK and 64 PSNs from
 * `base`: a PSN is known to be missing only if it is cack + 1 or a clear
 * bit of that window. Anything else may well have arrived without being
 * reported (coalescing, a bitmap placed elsewhere), so the loss rules may
 * condemn only known-missing PSNs.
 */
struct sack_scope {
	uint32_t cack;
	uint32_t base;
	uint64_t bitmap;
};

static inline bool
known_missing(const struct sack_scope *sc, uint32_t psn)
{
	uint32_t d = (uint32_t)mrc_psn_diff(psn, sc->base);

	if (psn == mrc_psn_add(sc->cack, 1))
		return true;
	return d < 64 && !((sc->bitmap >> d) & 1);
}

/*
 * A resent packet's RTT may be sampled when the SACK's timestamp echo names
 * its last transmission (`echo` 0: none); Karn's rule refuses it otherwise.
 */
static bool
echo_names_last_copy(struct mrc_rel_tx *tx, const struct mrc_rel_tx_pkt *p, uint16_t echo)
{
	if (echo == 0 || tx->ts_shift == 0 || echo != mrc_rel_tx_ts_stamp(tx, p->sent_tsc))
		return false;
	tx->stats.ts_rtt_samples++;
	return true;
}

/* Pass 1 for one delivered PSN: mark it, count it, report it. */
static void
deliver(struct mrc_rel_tx *tx, uint32_t psn, uint32_t trigger, uint16_t echo, uint64_t now_tsc,
	const struct mrc_rel_tx_ops *ops, void *ctx, struct mrc_rel_ack_info *info)
{
	const uint16_t i = (uint16_t)(psn & tx->mask);
	struct mrc_rel_tx_pkt *p = &ring(tx)[i];
	const uint8_t st = pkt_state(p);

	if (st == PKT_INFLIGHT) {
		t_unlink(tx, i);
		tx->n_inflight--;
		tx->inflight_bytes -= p->len;
		/* Which copy of a resent packet arrived is unknown: only first sends date the mark.
		 */
		if (p->tx_count == 1)
			tx->rack_tsc = RTE_MAX(tx->rack_tsc, p->sent_tsc);
		/* Karn: only a packet sent once gives an unambiguous RTT, or an echo that names
		 * the copy. */
		if (psn == trigger &&
			(p->tx_count == 1 || unlikely(echo_names_last_copy(tx, p, echo))) &&
			now_tsc > p->sent_tsc) {
			info->rtt_tsc = now_tsc - p->sent_tsc;
			rtt_sample(tx, info->rtt_tsc);
		}
	} else if (st == PKT_LOST) {
		lost_bits(tx)[i >> 6] &= ~(UINT64_C(1) << (i & 63));
		tx->n_lost--;
		tx->stats.spurious++;
	} else {
		return; /* already delivered */
	}
	set_state(p, PKT_ACKED);
	tx->stats.acked_pkts++;
	info->acked_pkts++;
	info->acked_bytes += p->len;
	if (ops != NULL && ops->acked != NULL)
		ops->acked(ctx, psn, p->ev_val, p->cookie, p->len, p->tx_count);
}

/*
 * Pass 2 for one delivered PSN still on its EV list: everything sent before
 * it on the same EV that this SACK knows is missing was lost on the path.
 * Entries the SACK says nothing about stay, to be judged later.
 */
static void
ev_order(struct mrc_rel_tx *tx, uint32_t psn, const struct sack_scope *sc,
	const struct mrc_rel_tx_ops *ops, void *ctx, struct mrc_rel_ack_info *info)
{
	const uint16_t i = (uint16_t)(psn & tx->mask);
	struct mrc_rel_tx_pkt *r = ring(tx);
	uint16_t c;

	if (!(r[i].state & ON_EV_LIST) || pkt_state(&r[i]) != PKT_ACKED)
		return;
	if (r[i].tx_count != 1) {
		/* The copy that arrived may have come another way: no inference. */
		mrc_rel_tx_ev_unlink(tx, i);
		return;
	}
	c = ev_heads(tx)[list_of(tx, &r[i])];
	while (c != i && c != MRC_REL_NIL) {
		uint16_t next = r[c].ev_next;

		if (pkt_state(&r[c]) == PKT_ACKED || !same_path(tx, r[c].ev_val, r[i].ev_val)) {
			/* Delivered, or sent by the slot's previous EV: no order to infer. */
			mrc_rel_tx_ev_unlink(tx, c);
		} else if (known_missing(sc, psn_of(tx, c))) {
			mrc_rel_tx_mark_lost(tx, c, MRC_REL_LOSS_EV_ORDER, ops, ctx);
			info->lost_pkts++;
		}
		c = next;
	}
	mrc_rel_tx_ev_unlink(tx, i);
}

/*
 * Rule 1 for a probe's answer: the probe followed everything sent before it
 * on its EV down the same path, so those of them the answer shows missing
 * were lost. Strictly before: the QP sends the probe ahead of the new
 * packets of the same burst, which share its timestamp and are behind it.
 */
static void
probe_ev_order(struct mrc_rel_tx *tx, const struct sack_scope *sc, const struct mrc_rel_tx_ops *ops,
	void *ctx, uint32_t *lost)
{
	struct mrc_rel_tx_pkt *r = ring(tx);
	uint16_t c = ev_heads(tx)[tx->probe_slot];

	while (c != MRC_REL_NIL) {
		const uint16_t next = r[c].ev_next;

		if (pkt_state(&r[c]) == PKT_INFLIGHT &&
			same_path(tx, r[c].ev_val, tx->probe_ev_val) &&
			r[c].sent_tsc < tx->probe_sent_tsc && known_missing(sc, psn_of(tx, c))) {
			mrc_rel_tx_mark_lost(tx, c, MRC_REL_LOSS_EV_ORDER, ops, ctx);
			(*lost)++;
		}
		c = next;
	}
}

/* Rule 2: known-missing packets sent more than a reorder window before a delivered one. */
static void
time_rule(struct mrc_rel_tx *tx, const struct sack_scope *sc, const struct mrc_rel_tx_ops *ops,
	void *ctx, uint32_t *lost)
{
	const uint64_t reo = mrc_rel_tx_reo_wnd(tx);
	struct mrc_rel_tx_pkt *r = ring(tx);
	uint16_t c = tx->t_head;

	while (c != MRC_REL_NIL && r[c].sent_tsc + reo < tx->rack_tsc) {
		uint16_t next = r[c].t_next;

		if (known_missing(sc, psn_of(tx, c))) {
			mrc_rel_tx_mark_lost(tx, c, MRC_REL_LOSS_TIME, ops, ctx);
			(*lost)++;
		}
		c = next;
	}
}

static void
advance_una(struct mrc_rel_tx *tx, uint64_t now_tsc, struct mrc_rel_ack_info *info)
{
	struct mrc_rel_tx_pkt *r = ring(tx);
	bool moved = false;

	while (tx->snd_una != tx->snd_nxt) {
		struct mrc_rel_tx_pkt *p = &r[tx->snd_una & tx->mask];

		if (pkt_state(p) != PKT_ACKED)
			break;
		if (p->state & ON_EV_LIST)
			mrc_rel_tx_ev_unlink(tx, (uint16_t)(tx->snd_una & tx->mask));
		p->state = PKT_FREE;
		tx->snd_una = mrc_psn_add(tx->snd_una, 1);
		moved = true;
	}
	if (moved) {
		tx->retries = 0;
		tx->progress_tsc = now_tsc;
		info->progress = true;
	}
}

/* Dynamic MPR: the responder's current window, within the negotiated one. */
static void
peer_window(struct mrc_rel_tx *tx, uint8_t mpr)
{
	const uint32_t w = RTE_MIN((uint32_t)mpr * MRC_MPR_UNIT_PSNS, tx->window_max);

	if (w != tx->window) {
		tx->window = w;
		tx->stats.mpr_changes++;
	}
}

int
mrc_rel_tx_on_sack(struct mrc_rel_tx *tx, const struct mrc_sack_view *s, uint64_t now_tsc,
	const struct mrc_rel_tx_ops *ops, void *ctx, struct mrc_rel_ack_info *info)
{
	const uint32_t last_sent = mrc_psn_sub(tx->snd_nxt, 1);
	const uint32_t cack = s->cack_psn & MRC_PSN_MASK;
	const uint32_t base = mrc_psn_add(cack, (uint32_t)(int32_t)s->sack_offset);
	const uint32_t trigger = mrc_psn_add(cack, (uint32_t)(int32_t)s->ack_psn_offset);
	const int32_t advance = mrc_psn_diff(cack, mrc_psn_sub(tx->snd_una, 1));
	uint32_t span;

	memset(info, 0, sizeof(*info));
	/* Validate first: acknowledging what was never sent changes nothing. */
	if (mrc_psn_diff(cack, last_sent) > 0) {
		tx->stats.sacks_refused++;
		return -EINVAL;
	}
	for (uint64_t b = s->sack_bitmap; b != 0; b &= b - 1) {
		uint32_t psn = mrc_psn_add(base, (uint32_t)__builtin_ctzll(b));

		if (mrc_psn_diff(psn, last_sent) > 0) {
			tx->stats.sacks_refused++;
			return -EINVAL;
		}
	}
	const struct sack_scope sc = {.cack = cack, .base = base, .bitmap = s->sack_bitmap};

	tx->stats.sacks++;
	if (advance < 0)
		tx->stats.stale_sacks++;
	if (unlikely(tx->dyn_mpr) && s->mpr != 0)
		peer_window(tx, s->mpr);
	span = advance > 0 ? (uint32_t)advance : 0;

	/* Pass 1: mark everything delivered, in PSN order. */
	for (uint32_t k = 0; k < span; k++)
		deliver(tx, mrc_psn_add(tx->snd_una, k), trigger, s->ts_echo, now_tsc, ops, ctx,
			info);
	for (uint64_t b = s->sack_bitmap; b != 0; b &= b - 1) {
		uint32_t psn = mrc_psn_add(base, (uint32_t)__builtin_ctzll(b));

		if (outstanding(tx, psn))
			deliver(tx, psn, trigger, s->ts_echo, now_tsc, ops, ctx, info);
	}
	/* Pass 2: per-EV order, now that all of this SACK's deliveries are known. */
	for (uint32_t k = 0; k < span; k++)
		ev_order(tx, mrc_psn_add(tx->snd_una, k), &sc, ops, ctx, info);
	for (uint64_t b = s->sack_bitmap; b != 0; b &= b - 1) {
		uint32_t psn = mrc_psn_add(base, (uint32_t)__builtin_ctzll(b));

		if (outstanding(tx, psn))
			ev_order(tx, psn, &sc, ops, ctx, info);
	}
	advance_una(tx, now_tsc, info);

	if (s->pr && tx->probe_outstanding) {
		/* The answer reflects everything sent before the probe. */
		tx->probe_outstanding = false;
		tx->rack_tsc = RTE_MAX(tx->rack_tsc, tx->probe_sent_tsc);
		/* Without a ring (drained, given back) nothing is in flight to condemn. */
		if (tx->probe_slot != MRC_REL_NIL && mrc_rel_tx_has_trk(tx))
			probe_ev_order(tx, &sc, ops, ctx, &info->lost_pkts);
	}
	time_rule(tx, &sc, ops, ctx, &info->lost_pkts);
	if (info->acked_pkts > 0 || s->pr) {
		tx->last_ack_tsc = now_tsc;
		tx->probe_wanted = false;
	}
	return 0;
}
