/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Requester-side reliability, the clock's half: the reorder window, the
 * per-packet and retransmit timeouts, and the poll that applies them
 * (loss by timeout, the QP retransmit timer, when to ask for a reliability
 * probe). Separate from the SACK and NACK handling because it runs on time,
 * not on feedback: what it decides from is the RTT estimate those keep.
 */

#include <errno.h>

#include <rte_common.h>

#include "mrc_rel_tx.h"
#include "mrc_rel_tx_priv.h"
#include "mrc_seq.h"

/* RTT samples needed before the reorder window trusts the measured spread. */
#define REO_MIN_SAMPLES 8

uint64_t
mrc_rel_tx_reo_wnd(const struct mrc_rel_tx *tx)
{
	/*
	 * Reordering between paths is at most the spread of their RTTs: the
	 * largest recent RTT less the smallest recent one (rtt_sample()), plus
	 * a quarter of srtt of slack.
	 * Until a few samples have shown the spread, a whole srtt: this rule is
	 * the backstop, and a false loss costs a resend and a needless EV retire.
	 */
	uint64_t spread = tx->stats.rtt_samples >= REO_MIN_SAMPLES
				  ? tx->max_rtt_tsc - tx->min_rtt_tsc
				  : tx->srtt_tsc;

	return RTE_MAX(tx->min_reo_tsc, spread + tx->srtt_tsc / 4);
}

/*
 * The round trip the timers wait for: the sender's own estimate, or the one
 * its worker's senders to the same destination share if that is longer.
 */
static inline uint64_t
timer_srtt(const struct mrc_rel_tx *tx)
{
	return tx->share != NULL && tx->share->samples > 0
		       ? RTE_MAX(tx->srtt_tsc, tx->share->srtt_tsc)
		       : tx->srtt_tsc;
}

static inline uint64_t
timer_rttvar(const struct mrc_rel_tx *tx)
{
	return tx->share != NULL && tx->share->samples > 0
		       ? RTE_MAX(tx->rttvar_tsc, tx->share->rttvar_tsc)
		       : tx->rttvar_tsc;
}

void
mrc_rel_tx_set_share(struct mrc_rel_tx *tx, struct mrc_rel_rtt_share *share)
{
	tx->share = share;
}

uint64_t
mrc_rel_tx_pkt_timeout(const struct mrc_rel_tx *tx)
{
	/*
	 * Before any round trip has been measured (by this sender or the
	 * senders it shares with), the initial guess is no basis for calling a
	 * packet lost: a guess shorter than the real round trip condemns
	 * everything in flight, each resend makes its answer useless as a
	 * sample (Karn), and the guess then never gets replaced. Wait for the
	 * QP timer's base instead (RFC 6298 2.1: a conservative RTO until the
	 * first measurement).
	 */
	if (tx->stats.rtt_samples == 0 && (tx->share == NULL || tx->share->samples == 0))
		return RTE_MAX(tx->min_pkt_timeout_tsc, tx->base_rto_tsc);
	return RTE_MAX(tx->min_pkt_timeout_tsc,
		2 * timer_srtt(tx) + 4 * timer_rttvar(tx) + mrc_rel_tx_reo_wnd(tx));
}

uint64_t
mrc_rel_tx_rto(const struct mrc_rel_tx *tx, unsigned int k)
{
	const unsigned int lin = tx->retry_linear;
	/*
	 * The configured timeout, but never shorter than a packet's own
	 * timeout: where the round trip is longer than the verbs timeout (a
	 * slow or busy host queues packets for longer than the network
	 * does), a fixed timer fires before any answer can come, resends
	 * what is only waiting and adds load that lengthens the round trip
	 * further (doc/protocol.md, "Sender: the retransmit timer").
	 */
	const uint64_t base = RTE_MAX(tx->base_rto_tsc, mrc_rel_tx_pkt_timeout(tx));

	if (k < lin)
		return base * (k + 1);
	unsigned int sh = RTE_MIN(k - lin + (lin ? 1 : 0), 24u);

	return base * RTE_MAX(lin, 1u) << sh;
}

/*
 * The packet a reliability probe should chase: the oldest PSN when it is in
 * flight (it holds up snd_una, and every SACK shows it missing), else the
 * oldest transmission in flight.
 */
static uint16_t
probe_target_idx(const struct mrc_rel_tx *tx)
{
	const uint16_t una = (uint16_t)(tx->snd_una & tx->mask);

	if (tx->snd_una != tx->snd_nxt && pkt_state(&ring_c(tx)[una]) == PKT_INFLIGHT)
		return una;
	return tx->t_head;
}

int
mrc_rel_tx_probe_target(const struct mrc_rel_tx *tx, uint16_t *slot, uint32_t *ev)
{
	const uint16_t i = probe_target_idx(tx);
	const struct mrc_rel_tx_pkt *p;

	if (i == MRC_REL_NIL)
		return -ENOENT;
	p = &ring_c(tx)[i];
	*slot = p->ev;
	*ev = p->ev_val;
	return 0;
}

void
mrc_rel_tx_probe_sent_on(struct mrc_rel_tx *tx, uint16_t slot, uint32_t ev, uint64_t now_tsc)
{
	mrc_rel_tx_probe_sent(tx, now_tsc);
	tx->probe_slot = slot < tx->n_ev ? order_list(tx, slot, ev) : MRC_REL_NIL;
	tx->probe_ev_val = ev;
}

void
mrc_rel_tx_probe_sent(struct mrc_rel_tx *tx, uint64_t now_tsc)
{
	tx->probe_slot = MRC_REL_NIL;
	tx->probe_wanted = false;
	tx->probe_outstanding = true;
	tx->probe_sent_tsc = now_tsc;
	tx->stats.probes_asked++;
}

uint64_t
mrc_rel_tx_poll(
	struct mrc_rel_tx *tx, uint64_t now_tsc, const struct mrc_rel_tx_ops *ops, void *ctx)
{
	struct mrc_rel_tx_pkt *r = ring(tx);
	/* When the oldest packet's SACK is overdue: well before its timeout. */
	const uint64_t pto_tsc = timer_srtt(tx) + mrc_rel_tx_reo_wnd(tx);
	/*
	 * While nothing progresses at all (the QP timer has fired `retries`
	 * times), the per-packet timeout backs off with it: otherwise a dead or
	 * unreachable peer gets the whole window resent every pkt_timeout,
	 * forever, at line rate. Any progress resets retries, so a partial
	 * failure (one plane down) keeps the fast timeout.
	 */
	const uint64_t pkt_to = mrc_rel_tx_pkt_timeout(tx) << RTE_MIN(tx->retries, 16u);
	uint64_t next = UINT64_MAX;

	if (tx->error != MRC_REL_OK)
		return UINT64_MAX;

	/*
	 * Rule 3: per-packet timeout, oldest transmission first. If the peer
	 * has said nothing at all since the packet left, its silence is not
	 * this packet's loss: it waits for the QP timer's schedule instead, or
	 * a silent peer would get the window resent every (microseconds-short)
	 * packet timeout before the QP timer first fires.
	 */
	const uint64_t silent_to = mrc_rel_tx_rto(tx, tx->retries);

	while (!tx->gbn && tx->t_head != MRC_REL_NIL) {
		const uint64_t sent = r[tx->t_head].sent_tsc;

		if (sent + pkt_to > now_tsc ||
			(tx->last_ack_tsc < sent && sent + silent_to > now_tsc))
			break;
		mrc_rel_tx_mark_lost(tx, tx->t_head, MRC_REL_LOSS_PKT_TIMEOUT, ops, ctx);
	}
	if (tx->n_inflight == 0 && tx->n_lost == 0) {
		tx->probe_wanted = false;
		tx->probe_outstanding = false;
		return UINT64_MAX;
	}

	/* The QP retransmit timer: no progress for rto(retries). */
	uint64_t rto_at = tx->progress_tsc + mrc_rel_tx_rto(tx, tx->retries);

	if (now_tsc >= rto_at) {
		const uint16_t i = (uint16_t)(tx->snd_una & tx->mask);

		tx->stats.rto_fired++;
		tx->rto_count++;
		if (!spend_retry(tx))
			return UINT64_MAX;
		if (pkt_state(&r[i]) == PKT_INFLIGHT)
			mrc_rel_tx_mark_lost(tx, i, MRC_REL_LOSS_RTO, ops, ctx);
		if (tx->gbn)
			mrc_rel_tx_rewind_from(tx, mrc_psn_add(tx->snd_una, 1), ops, ctx);
		tx->probe_wanted = !tx->gbn;
		tx->probe_outstanding = false;
		tx->progress_tsc = now_tsc;
		rto_at = now_tsc + mrc_rel_tx_rto(tx, tx->retries);
	}
	next = RTE_MIN(next, rto_at);
	if (tx->gbn)
		return next; /* RC knows only its timer: no per-packet timeout, no probes */

	if (tx->t_head != MRC_REL_NIL) {
		/*
		 * Probe when the packet holding up snd_una (else the oldest in
		 * flight) is overdue: its report should have come srtt + 4 rttvar
		 * after it left. Or on tail loss: nothing at all heard for a probe
		 * timeout.
		 */
		const uint64_t overdue =
			r[probe_target_idx(tx)].sent_tsc + timer_srtt(tx) + 4 * timer_rttvar(tx);
		const uint64_t quiet = RTE_MAX(tx->last_ack_tsc, r[tx->t_head].sent_tsc) + pto_tsc;
		const uint64_t ref = RTE_MIN(overdue, quiet);

		if (!tx->probe_outstanding) {
			if (now_tsc >= ref)
				tx->probe_wanted = true;
			else
				next = RTE_MIN(next, ref);
		}
		const uint64_t sent = r[tx->t_head].sent_tsc;
		const uint64_t wait =
			tx->last_ack_tsc < sent && silent_to > pkt_to ? silent_to : pkt_to;

		next = RTE_MIN(next, sent + wait);
	}
	if (tx->probe_outstanding) {
		/* A probe unanswered for a packet timeout is itself lost: allow another. */
		if (now_tsc >= tx->probe_sent_tsc + pkt_to)
			tx->probe_outstanding = false;
		else
			next = RTE_MIN(next, tx->probe_sent_tsc + pkt_to);
	}
	return next;
}
