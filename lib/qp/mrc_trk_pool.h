/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRC_TRK_POOL_H
#define MRC_TRK_POOL_H

/**
 * @file
 * Per-worker pool of fixed-size blocks a QP borrows only while it needs
 * them, so an idle QP keeps just its sequence state. Two uses:
 *  - in-flight tracking (the requester's PSN ring, see mrc_rel_tx.h
 *    "Storage on loan"), held while packets are in flight. When every
 *    block is out, the QP asking waits (it sends no new data; nothing
 *    fails or is dropped) and the wait is counted.
 *  - Write-with-immediate tables (the responder's, mrc_qp_init.imm_pool),
 *    held while an immediate that arrived ahead of the rest of its
 *    message waits. When every block is out, its packet is refused with a
 *    NACK the sender resends on (counted by the pool as a wait and by the
 *    QP in rx_imm_no_table).
 * Blocks are made once, at worker setup; lending and returning are a
 * pointer pop and push, for the fast path: no allocation, no lock (one
 * lcore owns a pool).
 *
 * Each block on hand carries a tag its last user left with it (0 for a
 * fresh block and for mrc_trk_pool_put()): the in-flight ring's user
 * records there that the block's lists are already reset
 * (mrc_rel_tx_detach), so the next borrower skips rewriting them. The tag
 * sits beside the block's pointer: reading it costs no cache line more.
 */

#include <stddef.h>
#include <stdint.h>

struct mrc_trk_pool_stats {
	uint64_t lent;	     /**< blocks handed out */
	uint64_t returned;   /**< blocks given back */
	uint64_t waits;	     /**< asks refused because every block was out */
	uint32_t max_in_use; /**< most blocks out at once */
};

/** A block on hand and the tag its last user gave it back with. */
struct mrc_trk_pool_slot {
	void *blk;
	uint64_t tag;
};

struct mrc_trk_pool {
	uint32_t n_blocks;
	uint32_t n_free;
	size_t block_bytes;
	struct mrc_trk_pool_stats stats;
	uint8_t *blocks;		       /**< n_blocks x block_bytes, zeroed at creation */
	struct mrc_trk_pool_slot free_stack[]; /**< the n_free blocks on hand */
};

/**
 * A pool of `n_blocks` blocks of `block_bytes` (rounded up to a cache
 * line), on NUMA `socket`. NULL with rte_errno set (EINVAL, ENOMEM).
 */
struct mrc_trk_pool *mrc_trk_pool_create(uint32_t n_blocks, size_t block_bytes, int socket);

/** Free the pool; every block must have been given back (-EBUSY otherwise, nothing freed). */
int mrc_trk_pool_free(struct mrc_trk_pool *p);

/** Bytes the pool occupies. */
size_t mrc_trk_pool_mem_bytes(const struct mrc_trk_pool *p);

/**
 * A block, or NULL (counted as a wait) when all are out; `*tag` (if not
 * NULL) is the tag it was given back with.
 */
static inline void *
mrc_trk_pool_get_tag(struct mrc_trk_pool *p, uint64_t *tag)
{
	uint32_t in_use;

	if (p->n_free == 0) {
		p->stats.waits++;
		return NULL;
	}
	p->stats.lent++;
	in_use = p->n_blocks - --p->n_free;
	if (in_use > p->stats.max_in_use)
		p->stats.max_in_use = in_use;
	if (tag != NULL)
		*tag = p->free_stack[p->n_free].tag;
	return p->free_stack[p->n_free].blk;
}

/** A block, or NULL (counted as a wait) when all are out. */
static inline void *
mrc_trk_pool_get(struct mrc_trk_pool *p)
{
	return mrc_trk_pool_get_tag(p, NULL);
}

/** Give back a block from this pool with a tag for its next borrower. */
static inline void
mrc_trk_pool_put_tag(struct mrc_trk_pool *p, void *blk, uint64_t tag)
{
	p->stats.returned++;
	p->free_stack[p->n_free++] = (struct mrc_trk_pool_slot){.blk = blk, .tag = tag};
}

/** Give back a block from this pool (its ring clear: see mrc_rel_tx_detach), tag 0. */
static inline void
mrc_trk_pool_put(struct mrc_trk_pool *p, void *blk)
{
	mrc_trk_pool_put_tag(p, blk, 0);
}

/** Blocks out on loan. */
static inline uint32_t
mrc_trk_pool_in_use(const struct mrc_trk_pool *p)
{
	return p->n_blocks - p->n_free;
}

#endif /* MRC_TRK_POOL_H */
