/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Requester-side reliability, sending: whether the window lets a new PSN
 * go, recording a new send, and choosing and recording a resend (oldest
 * lost first). The algorithm is described in mrc_rel_tx.h; this is the
 * only part the QP calls per packet it builds, so it stays apart from the
 * feedback (mrc_rel_tx_sack.c, mrc_rel_tx_nack.c), the clock
 * (mrc_rel_tx_timer.c), the lists (mrc_rel_tx_lists.c) and the setup
 * (mrc_rel_tx_setup.c).
 */

#include <errno.h>

#include <rte_prefetch.h>

#include "mrc_rel_tx.h"
#include "mrc_rel_tx_priv.h"
#include "mrc_seq.h"

bool
mrc_rel_tx_can_send(const struct mrc_rel_tx *tx)
{
	return tx->error == MRC_REL_OK &&
	       (uint32_t)mrc_psn_diff(tx->snd_nxt, tx->snd_una) < tx->window;
}

/* Put ring entry `i` at the tail of its EV's (or path's) list: only sending adds. */
static void
ev_append(struct mrc_rel_tx *tx, uint16_t i)
{
	struct mrc_rel_tx_pkt *r = ring(tx);
	uint16_t ev = list_of(tx, &r[i]), tail = ev_tails(tx)[ev];

	r[i].ev_next = MRC_REL_NIL;
	if (tail != MRC_REL_NIL)
		r[tail].ev_next = i;
	else
		ev_heads(tx)[ev] = i;
	ev_tails(tx)[ev] = i;
	r[i].state |= ON_EV_LIST;
}

static void
note_sending(struct mrc_rel_tx *tx, uint64_t now_tsc)
{
	/* The retransmit timer measures lack of progress from the first packet after idle. */
	if (tx->n_inflight == 0 && tx->n_lost == 0)
		tx->progress_tsc = now_tsc;
}

void
mrc_rel_tx_prefetch_send(const struct mrc_rel_tx *tx, uint16_t slot)
{
	if (tx->trk == NULL)
		return;
	rte_prefetch0_write(&ring_c(tx)[tx->snd_nxt & tx->mask]);
	if (slot < tx->n_ev)
		rte_prefetch0_write(&ev_tails_c(tx)[slot]);
}

uint32_t
mrc_rel_tx_sent_new(struct mrc_rel_tx *tx, uint16_t slot, uint32_t ev, uint16_t len,
	uint32_t cookie, uint64_t now_tsc)
{
	const uint32_t psn = tx->snd_nxt;
	const uint16_t i = (uint16_t)(psn & tx->mask);
	struct mrc_rel_tx_pkt *p = &ring(tx)[i];

	note_sending(tx, now_tsc);
	p->sent_tsc = now_tsc;
	p->cookie = cookie;
	p->len = len;
	p->ev = slot < tx->n_ev ? slot : 0;
	p->ev_val = ev;
	p->state = PKT_INFLIGHT;
	p->tx_count = 1;
	ev_append(tx, i);
	t_append(tx, i);
	tx->n_inflight++;
	tx->inflight_bytes += len;
	tx->snd_nxt = mrc_psn_add(psn, 1);
	tx->stats.sent_pkts++;
	return psn;
}

int
mrc_rel_tx_next_retx(const struct mrc_rel_tx *tx, uint32_t *psn, uint32_t *old_ev, uint32_t *cookie,
	uint16_t *len)
{
	const uint32_t words = (tx->mask + 1) / 64, start = tx->snd_una & tx->mask;
	const uint64_t *lb;

	/* Nothing lost: the tracking block may be back in its pool (trk NULL). */
	if (tx->n_lost == 0)
		return -ENOENT;
	lb = lost_bits_c(tx);
	/* Oldest first: scan from snd_una around the ring. */
	for (uint32_t k = 0; k <= words; k++) {
		uint32_t w = ((start >> 6) + k) % words;
		uint64_t bits = lb[w];

		if (k == 0)
			bits &= ~UINT64_C(0) << (start & 63);
		else if (k == words)
			bits &= (start & 63) ? (UINT64_C(1) << (start & 63)) - 1 : 0;
		if (bits != 0) {
			uint16_t i = (uint16_t)(w * 64 + (uint32_t)__builtin_ctzll(bits));
			const struct mrc_rel_tx_pkt *p = &ring_c(tx)[i];

			*psn = psn_of(tx, i);
			*old_ev = p->ev_val;
			*cookie = p->cookie;
			*len = p->len;
			return 0;
		}
	}
	return -ENOENT;
}

int
mrc_rel_tx_lost_why(const struct mrc_rel_tx *tx, uint32_t psn)
{
	const struct mrc_rel_tx_pkt *p;

	/* Nothing lost: the tracking block may be back in its pool (trk NULL). */
	if (tx->n_lost == 0 || !outstanding(tx, psn))
		return -ENOENT;
	p = &ring_c(tx)[psn & tx->mask];
	if (pkt_state(p) != PKT_LOST)
		return -ENOENT;
	return (p->state & LOST_WHY_MASK) >> LOST_WHY_SHIFT;
}

void
mrc_rel_tx_sent_retx(
	struct mrc_rel_tx *tx, uint32_t psn, uint16_t slot, uint32_t ev, uint64_t now_tsc)
{
	const uint16_t i = (uint16_t)(psn & tx->mask);
	struct mrc_rel_tx_pkt *p = &ring(tx)[i];

	if (!outstanding(tx, psn) || pkt_state(p) != PKT_LOST)
		return;
	lost_bits(tx)[i >> 6] &= ~(UINT64_C(1) << (i & 63));
	tx->n_lost--;
	note_sending(tx, now_tsc);
	p->sent_tsc = now_tsc;
	p->ev = slot < tx->n_ev ? slot : 0;
	p->ev_val = ev;
	p->state = PKT_INFLIGHT;
	if (p->tx_count < UINT8_MAX)
		p->tx_count++;
	ev_append(tx, i);
	t_append(tx, i);
	tx->n_inflight++;
	tx->inflight_bytes += p->len;
	tx->stats.retx_pkts++;
}
