/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRC_REL_TX_PRIV_H
#define MRC_REL_TX_PRIV_H

/*
 * Inside the requester's reliability state, shared by the files that run
 * it (mrc_rel_tx_send.c, _sack.c, _nack.c, _timer.c, _lists.c) and
 * mrc_rel_tx_setup.c (configuration, init, lending the tracking memory).
 * Not for users of lib/rel.
 *
 * Tracking memory (tx->trk: after struct mrc_rel_tx, or lent, see the header):
 *   struct mrc_rel_tx_pkt ring[ring]       indexed by psn & mask
 *   uint64_t lost_bits[ring / 64]          PSNs waiting to be resent
 *   uint16_t ev_head[n_ev], ev_tail[n_ev]  per-EV send-order lists
 * where ring is the window rounded up to a power of two. The ring comes
 * first so that its entries sit at the same place whatever n_ev is: a
 * drained block (every entry PKT_FREE) can go to any QP as it is. Every live entry
 * is for a PSN in [snd_una, snd_nxt), so an index maps back to one PSN.
 * The send-order list is doubly linked through ring indexes (NACKs and the
 * retransmit timer remove packets from its middle); the per-EV lists are
 * singly linked, since they almost always lose their head.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mrc_rel_tx.h"
#include "mrc_seq.h"

enum {
	PKT_FREE = 0,
	PKT_INFLIGHT, /* sent, on both lists */
	PKT_LOST,     /* waiting to be resent, on neither list */
	PKT_ACKED,    /* delivered, waiting for snd_una to pass it */
};
/*
 * state byte: the state in the low bits, whether the entry is on its EV
 * list, and (PKT_LOST) why it was declared lost (enum mrc_rel_loss)
 */
#define STATE_MASK     0x07
#define ON_EV_LIST     0x08
#define LOST_WHY_SHIFT 4
#define LOST_WHY_MASK  0x70

/* Bytes of the ring: the window rounded up to a power of two (at least 64) entries. */
static inline size_t
ring_bytes(const struct mrc_rel_tx *tx)
{
	return (size_t)(tx->mask + 1) * sizeof(struct mrc_rel_tx_pkt);
}

static inline struct mrc_rel_tx_pkt *
ring(struct mrc_rel_tx *tx)
{
	return (struct mrc_rel_tx_pkt *)tx->trk;
}

static inline const struct mrc_rel_tx_pkt *
ring_c(const struct mrc_rel_tx *tx)
{
	return (const struct mrc_rel_tx_pkt *)tx->trk;
}

static inline uint64_t *
lost_bits(struct mrc_rel_tx *tx)
{
	return (uint64_t *)(tx->trk + ring_bytes(tx));
}

static inline const uint64_t *
lost_bits_c(const struct mrc_rel_tx *tx)
{
	return (const uint64_t *)(tx->trk + ring_bytes(tx));
}

/* Where the per-EV lists start in the tracking memory: after the ring and its lost bits. */
static inline size_t
ev_lists_off(const struct mrc_rel_tx *tx)
{
	return ring_bytes(tx) + (tx->mask + 1) / 8;
}

static inline uint16_t *
ev_heads(struct mrc_rel_tx *tx)
{
	return (uint16_t *)(tx->trk + ev_lists_off(tx));
}

static inline uint16_t *
ev_tails(struct mrc_rel_tx *tx)
{
	return ev_heads(tx) + tx->n_ev;
}

static inline const uint16_t *
ev_tails_c(const struct mrc_rel_tx *tx)
{
	return (const uint16_t *)(tx->trk + ev_lists_off(tx)) + tx->n_ev;
}

static inline uint32_t
psn_of(const struct mrc_rel_tx *tx, uint16_t idx)
{
	return mrc_psn_add(tx->snd_una, (idx - (tx->snd_una & tx->mask)) & tx->mask);
}

static inline uint8_t
pkt_state(const struct mrc_rel_tx_pkt *p)
{
	return p->state & STATE_MASK;
}

static inline void
set_state(struct mrc_rel_tx_pkt *p, uint8_t s)
{
	p->state = (uint8_t)((p->state & ~STATE_MASK) | s);
}

/* The order list an EV's packets go on: its path (cfg.path_n_t1), else `slot`. */
static inline uint16_t
order_list(const struct mrc_rel_tx *tx, uint16_t slot, uint32_t ev)
{
	uint32_t plane, uplink;

	if (tx->path_n_t1 == 0)
		return slot;
	plane = tx->path_plane_bits == 0
			? 0
			: (ev >> tx->path_plane_shift) & ((UINT32_C(1) << tx->path_plane_bits) - 1);
	uplink = tx->path_uplink_bits == 0
			 ? 0
			 : (ev >> tx->path_uplink_shift) &
				   (uint32_t)((UINT64_C(1) << tx->path_uplink_bits) - 1);
	return (uint16_t)(plane * tx->path_n_t1 + uplink % tx->path_n_t1);
}

static inline uint16_t
list_of(const struct mrc_rel_tx *tx, const struct mrc_rel_tx_pkt *p)
{
	return order_list(tx, p->ev, p->ev_val);
}

/*
 * Whether packet a's and b's transmissions (on one list) took the same path:
 * per path, always; per slot, only if the slot held the same EV for both.
 */
static inline bool
same_path(const struct mrc_rel_tx *tx, uint32_t ev_a, uint32_t ev_b)
{
	return tx->path_n_t1 != 0 || ev_a == ev_b;
}

/* True if `psn` has been sent: in [snd_una, snd_nxt). */
static inline bool
outstanding(const struct mrc_rel_tx *tx, uint32_t psn)
{
	return (uint32_t)mrc_psn_diff(psn, tx->snd_una) <
	       (uint32_t)mrc_psn_diff(tx->snd_nxt, tx->snd_una);
}

static inline void
t_append(struct mrc_rel_tx *tx, uint16_t i)
{
	struct mrc_rel_tx_pkt *r = ring(tx);

	r[i].t_next = MRC_REL_NIL;
	r[i].t_prev = tx->t_tail;
	if (tx->t_tail != MRC_REL_NIL)
		r[tx->t_tail].t_next = i;
	else
		tx->t_head = i;
	tx->t_tail = i;
}

static inline bool
spend_retry(struct mrc_rel_tx *tx)
{
	tx->retries++;
	if (tx->retry_exp != MRC_REL_RETRY_EXP_INFINITE &&
		tx->retries > (unsigned int)tx->retry_linear + tx->retry_exp) {
		tx->error = MRC_REL_ERR_RETRY_EXCEEDED;
		return false;
	}
	return true;
}

/*
 * Take ring entry `i` off the send-order list. Inline: every delivery
 * runs it, and a call from another file costs more than its body.
 */
static inline void
t_unlink(struct mrc_rel_tx *tx, uint16_t i)
{
	struct mrc_rel_tx_pkt *r = ring(tx);

	if (r[i].t_prev != MRC_REL_NIL)
		r[r[i].t_prev].t_next = r[i].t_next;
	else
		tx->t_head = r[i].t_next;
	if (r[i].t_next != MRC_REL_NIL)
		r[r[i].t_next].t_prev = r[i].t_prev;
	else
		tx->t_tail = r[i].t_prev;
}

/*
 * Removal from the per-EV lists and the move to PKT_LOST, called by the
 * feedback and the timers alike (mrc_rel_tx_lists.c): out of line, as the
 * compiler chose when all of them were in one file.
 */
/* Take ring entry `i` off its EV's (or path's) list. */
void mrc_rel_tx_ev_unlink(struct mrc_rel_tx *tx, uint16_t i);
/* Entry `i`, in flight, is lost for `why`: off both lists, into the lost bits, reported. */
void mrc_rel_tx_mark_lost(struct mrc_rel_tx *tx, uint16_t i, enum mrc_rel_loss why,
	const struct mrc_rel_tx_ops *ops, void *ctx);
/* Go-back-N: every packet in flight from `from` on goes again, in PSN order. */
void mrc_rel_tx_rewind_from(
	struct mrc_rel_tx *tx, uint32_t from, const struct mrc_rel_tx_ops *ops, void *ctx);

/* True if the lost bits are zero and every per-EV list is empty (checks, tests). */
bool mrc_rel_tx_trk_reset(const struct mrc_rel_tx *tx);

#endif /* MRC_REL_TX_PRIV_H */
