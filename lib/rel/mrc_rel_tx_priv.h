/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRC_REL_TX_PRIV_H
#define MRC_REL_TX_PRIV_H

/*
 * Inside the requester's reliability state, shared by mrc_rel_tx.c (the
 * running state machine) and mrc_rel_tx_setup.c (configuration, init,
 * lending the tracking memory). Not for users of lib/rel.
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

static inline uint16_t *
ev_heads(struct mrc_rel_tx *tx)
{
	return (uint16_t *)(tx->trk + ring_bytes(tx) + (tx->mask + 1) / 8);
}

static inline uint16_t *
ev_tails(struct mrc_rel_tx *tx)
{
	return ev_heads(tx) + tx->n_ev;
}

/*
 * The lists and the move to PKT_LOST, called by sending, feedback and the
 * timers alike: out of line, as they were when all of them were in one file.
 */
/* Take ring entry `i` off the send-order list. */
void mrc_rel_tx_t_unlink(struct mrc_rel_tx *tx, uint16_t i);
/* Put ring entry `i` at the tail of its EV's (or path's) list. */
void mrc_rel_tx_ev_append(struct mrc_rel_tx *tx, uint16_t i);
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
