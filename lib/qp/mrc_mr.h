/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRC_MR_H
#define MRC_MR_H

/**
 * @file
 * Memory regions: the only memory a peer may write, and the only memory we
 * send from. As in verbs, a region is registered with its virtual address
 * as the remote address space (va = host pointer), or zero-based
 * (MRC_MR_ZERO_BASED: va = offset into the region, so a peer in another
 * process can compute addresses from a layout both sides know, without an
 * address exchange and without learning our pointers), gets an rkey (what peers
 * put in RETH) and an lkey (what local posts name), and is checked by key,
 * bounds and access before a single byte is written or sent. The rkey
 * carries a generation in its low byte, so a key of a deregistered region
 * never matches a new region in the same slot.
 *
 * A region also belongs to a protection domain, as in verbs: only a QP of
 * the same domain may send from it or have it written (mrc_qp_init.pd).
 * Keys are small numbers anyone can guess; the domain is what keeps one
 * application's peers out of another's memory, and every application out
 * of the daemon's own (domain 0).
 *
 * Each region also owns the rte_mbuf_ext_shared_info its payload segments
 * attach to (senders never copy), counting the attachments in flight; a
 * region with packets in flight cannot be deregistered. It has one per
 * lane (MRC_MR_LANES): a host's workers share its table, and each sends
 * from its own lane (mrc_qp_set_mr_lane(), the engine gives a QP its
 * shard's). DPDK's count takes a plain store when it reads 1, so two
 * lcores attaching to one shared info at once could both store 2 and lose
 * an attachment; and every attachment and free is a write to it, which on
 * one line for all workers moved that line between cores per packet, with
 * the keys and bounds every lookup reads on it too. The lanes sit on cache
 * lines of their own, away from the slots.
 *
 * Lookups are O(1) (slot from the key) and never allocate or lock.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_mbuf.h>

#define MRC_MR_ACCESS_LOCAL_READ   (1u << 0)  /**< we may send from it */
#define MRC_MR_ACCESS_REMOTE_WRITE (1u << 1)  /**< peers may write into it */
#define MRC_MR_ZERO_BASED	   (1u << 2)  /**< peers address it from 0, not from addr */
#define MRC_MR_RETIRED_		   (1u << 31) /**< internal: key gone, packets still attached */

/** Shared-info lanes per region: at least as many as a host has workers. */
#define MRC_MR_LANES 8

struct mrc_mr {
	uint8_t *addr;
	uint64_t va; /**< where it starts in the peers' address space: addr, or 0 */
	uint64_t len;
	rte_iova_t iova;
	uint32_t key; /**< rkey == lkey; 0 means the slot is free */
	uint32_t access;
	uint64_t pd; /**< protection domain: only QPs of it reach the region (0: the daemon's) */
};

/*
 * Refusals by reason. The table is shared by the host's shards, each on its
 * own worker: a refusal adds with an atomic add (refusals are rare, so the
 * shared line costs nothing while traffic is good).
 */
struct mrc_mr_stats {
	uint64_t bad_key; /**< key unknown, stale or of a free slot */
	uint64_t out_of_bounds;
	uint64_t no_access;
	uint64_t other_pd; /**< the key of a region in another protection domain */
};

struct mrc_mr_table {
	uint32_t n_slots;
	uint32_t used;
	uint8_t gen;
	struct mrc_mr_stats stats;
	/*
	 * The lanes' shared infos, after the slots: lane k's of slot i at byte
	 * lane_off + k * lane_stride + i * sizeof(shared info); each lane starts
	 * on a cache line. refcnt - 1 = that lane's attachments in flight.
	 */
	uint32_t lane_off, lane_stride;
	struct mrc_mr mr[];
};

/** Bytes of a table of `n_slots` regions (at most 2^24). */
size_t mrc_mr_table_memsize(uint32_t n_slots);

/** Initialise a table in `mem` (mrc_mr_table_memsize bytes). 0 or -EINVAL. */
int mrc_mr_table_init(struct mrc_mr_table *t, uint32_t n_slots);

/**
 * Register [addr, addr + len) with `access`, in protection domain 0 (the
 * daemon's own); IOVA of addr is `iova` (0 for virtual devices). Returns
 * the key (never 0), or 0 with rte_errno set: EINVAL (empty or wrapping
 * range, no access), ENOSPC (table full).
 */
uint32_t mrc_mr_register(
	struct mrc_mr_table *t, void *addr, uint64_t len, rte_iova_t iova, uint32_t access);

/**
 * As mrc_mr_register(), in protection domain `pd`, with peers addressing the
 * region from `va` (another process's pointer to the same memory, mapped at
 * `addr` here). `access` without MRC_MR_ZERO_BASED (va says where it starts).
 */
uint32_t mrc_mr_register_va(struct mrc_mr_table *t, uint64_t pd, void *addr, uint64_t va,
	uint64_t len, rte_iova_t iova, uint32_t access);

/** Deregister `key`: 0, -ENOENT (unknown key), -EBUSY (packets still attached). */
int mrc_mr_deregister(struct mrc_mr_table *t, uint32_t key);

/**
 * Deregister `key` whatever is in flight, as verbs does: the key stops
 * matching now (lookups count it bad_key), and the slot stays taken, its
 * lanes counting, until no packet is attached. 0: the slot is free (nothing
 * was attached); 1: retired, free it with mrc_mr_reap(); -ENOENT (unknown
 * key).
 */
int mrc_mr_retire(struct mrc_mr_table *t, uint32_t key);

/**
 * Free the slot of retired key `key` once no packet is attached: 0 (free),
 * -EBUSY (packets still attached), -ENOENT (its slot is not a retired one).
 */
int mrc_mr_reap(struct mrc_mr_table *t, uint32_t key);

/* Count a refusal (`count`: a check that acts on its answer, not a look ahead). */
static inline void
mrc_mr_refused_(uint64_t *counter, bool count)
{
	if (count)
		__atomic_fetch_add(counter, 1, __ATOMIC_RELAXED);
}

/* The check behind the lookups; `local` picks the address space. */
static inline struct mrc_mr *
mrc_mr_check_(struct mrc_mr_table *t, uint64_t pd, uint32_t key, uint64_t va, uint64_t len,
	uint32_t access, bool local, bool count)
{
	uint32_t slot = key >> 8;
	struct mrc_mr *mr;
	uint64_t base;

	if (slot >= t->n_slots || t->mr[slot].key != key || key == 0) {
		mrc_mr_refused_(&t->stats.bad_key, count);
		return NULL;
	}
	mr = &t->mr[slot];
	/* Before the bounds: a key of another domain tells its owner nothing more. */
	if (mr->pd != pd) {
		mrc_mr_refused_(&t->stats.other_pd, count);
		return NULL;
	}
	base = local ? (uint64_t)(uintptr_t)mr->addr : mr->va;
	/* va - base cannot wrap below base; len is bounded before it is added. */
	if (va < base || va - base > mr->len || len > mr->len - (va - base)) {
		mrc_mr_refused_(&t->stats.out_of_bounds, count);
		return NULL;
	}
	if ((mr->access & access) != access) {
		mrc_mr_refused_(&t->stats.no_access, count);
		return NULL;
	}
	return mr;
}

/**
 * The region for `key` if it is in protection domain `pd` (the QP's), [va,
 * va + len), in the peers' address space (a pointer, or an offset for a
 * zero-based region), lies inside it and `access` is granted, else NULL
 * (and the reason is counted). len 0 checks va only. The bytes are at
 * mrc_mr_ptr(mr, va).
 */
static inline struct mrc_mr *
mrc_mr_check(struct mrc_mr_table *t, uint64_t pd, uint32_t key, uint64_t va, uint64_t len,
	uint32_t access)
{
	return mrc_mr_check_(t, pd, key, va, len, access, false, true);
}

/**
 * As mrc_mr_check(), counting nothing: for a look ahead (a prefetch) at a
 * packet that mrc_mr_check() will judge, and count, when it is handled.
 */
static inline const struct mrc_mr *
mrc_mr_peek(struct mrc_mr_table *t, uint64_t pd, uint32_t key, uint64_t va, uint64_t len,
	uint32_t access)
{
	return mrc_mr_check_(t, pd, key, va, len, access, false, false);
}

/** As mrc_mr_check() for our own posts: [ptr, ptr + len) is a local pointer range. */
static inline struct mrc_mr *
mrc_mr_check_local(struct mrc_mr_table *t, uint64_t pd, uint32_t key, const void *ptr, uint64_t len,
	uint32_t access)
{
	return mrc_mr_check_(t, pd, key, (uint64_t)(uintptr_t)ptr, len, access, true, true);
}

/** Where peers' address `va` (checked) is in our memory. */
/** The shared info that `lane`'s payload segments of region `mr` (of table `t`) attach to. */
static inline struct rte_mbuf_ext_shared_info *
mrc_mr_shinfo(struct mrc_mr_table *t, const struct mrc_mr *mr, unsigned int lane)
{
	uint8_t *base = (uint8_t *)t + t->lane_off + (size_t)(lane % MRC_MR_LANES) * t->lane_stride;

	return (struct rte_mbuf_ext_shared_info *)(void *)base + (mr - t->mr);
}

/** Payload segments of region `key` attached now, over every lane; 0 for an unknown key. */
uint32_t mrc_mr_attached(struct mrc_mr_table *t, uint32_t key);

/** As mrc_mr_attached() for the slot of `key`, live or retired: reads only, from any thread. */
uint32_t mrc_mr_slot_attached(struct mrc_mr_table *t, uint32_t key);

static inline uint8_t *
mrc_mr_ptr(const struct mrc_mr *mr, uint64_t va)
{
	return mr->addr + (va - mr->va);
}

#endif /* MRC_MR_H */
