/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Requester-side reliability, the in-flight table's per-EV (or per-path)
 * lists: removing an entry, and the move of an entry to PKT_LOST that
 * takes it off both its lists. The SACK's loss rules, NACKs and the timers
 * all do these, so they live apart from each; adding is sending's alone
 * (mrc_rel_tx_send.c), and the layout they walk is in mrc_rel_tx_priv.h.
 */

#include "mrc_rel_tx.h"
#include "mrc_rel_tx_priv.h"
#include "mrc_seq.h"

static uint16_t ev_prev_of(struct mrc_rel_tx *tx, uint16_t i);

/*
 * Remove `i` from its EV list. Lists are short (packets in flight on one
 * path) and removals are almost always at the head, so the predecessor is
 * found by walking from the head rather than paying 2 more bytes per entry.
 */
void
mrc_rel_tx_ev_unlink(struct mrc_rel_tx *tx, uint16_t i)
{
	struct mrc_rel_tx_pkt *r = ring(tx);
	uint16_t ev = list_of(tx, &r[i]), prev = ev_prev_of(tx, i);

	if (prev == MRC_REL_NIL)
		ev_heads(tx)[ev] = r[i].ev_next;
	else
		r[prev].ev_next = r[i].ev_next;
	if (ev_tails(tx)[ev] == i)
		ev_tails(tx)[ev] = prev;
	r[i].state &= ~ON_EV_LIST;
}

static uint16_t
ev_prev_of(struct mrc_rel_tx *tx, uint16_t i)
{
	const struct mrc_rel_tx_pkt *r = ring(tx);
	uint16_t c = ev_heads(tx)[list_of(tx, &r[i])], prev = MRC_REL_NIL;

	while (c != i && c != MRC_REL_NIL) {
		prev = c;
		c = r[c].ev_next;
	}
	return prev;
}

void
mrc_rel_tx_mark_lost(struct mrc_rel_tx *tx, uint16_t i, enum mrc_rel_loss why,
	const struct mrc_rel_tx_ops *ops, void *ctx)
{
	struct mrc_rel_tx_pkt *p = &ring(tx)[i];

	if (p->state & ON_EV_LIST)
		mrc_rel_tx_ev_unlink(tx, i);
	t_unlink(tx, i);
	set_state(p, PKT_LOST);
	p->state = (uint8_t)((p->state & ~LOST_WHY_MASK) | (why << LOST_WHY_SHIFT));
	lost_bits(tx)[i >> 6] |= UINT64_C(1) << (i & 63);
	tx->n_inflight--;
	tx->inflight_bytes -= p->len;
	tx->n_lost++;
	tx->stats.lost[why]++;
	if (ops != NULL && ops->lost != NULL)
		ops->lost(ctx, psn_of(tx, i), p->ev_val, p->cookie, p->len, why);
}

/* Go-back-N: every packet in flight from `from` on goes again, in PSN order. */
void
mrc_rel_tx_rewind_from(
	struct mrc_rel_tx *tx, uint32_t from, const struct mrc_rel_tx_ops *ops, void *ctx)
{
	const uint32_t n = (uint32_t)mrc_psn_diff(tx->snd_nxt, from);

	for (uint32_t k = 0; k < n; k++) {
		const uint16_t i = (uint16_t)(mrc_psn_add(from, k) & tx->mask);

		if (pkt_state(&ring(tx)[i]) == PKT_INFLIGHT)
			mrc_rel_tx_mark_lost(tx, i, MRC_REL_LOSS_REWIND, ops, ctx);
	}
}
