/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#include <errno.h>
#include <string.h>

#include <rte_errno.h>

#include "mrc_mr.h"

#define MAX_SLOTS (1u << 24)

/* Where the lanes start, and the bytes of each: cache lines of their own. */
static size_t
lanes_off(uint32_t n_slots)
{
	return RTE_ALIGN_CEIL(sizeof(struct mrc_mr_table) + (size_t)n_slots * sizeof(struct mrc_mr),
		RTE_CACHE_LINE_SIZE);
}

static size_t
lane_bytes(uint32_t n_slots)
{
	return RTE_ALIGN_CEIL(
		(size_t)n_slots * sizeof(struct rte_mbuf_ext_shared_info), RTE_CACHE_LINE_SIZE);
}

size_t
mrc_mr_table_memsize(uint32_t n_slots)
{
	return lanes_off(n_slots) + MRC_MR_LANES * lane_bytes(n_slots);
}

int
mrc_mr_table_init(struct mrc_mr_table *t, uint32_t n_slots)
{
	if (n_slots == 0 || n_slots > MAX_SLOTS)
		return -EINVAL;
	memset(t, 0, mrc_mr_table_memsize(n_slots));
	t->n_slots = n_slots;
	t->lane_off = (uint32_t)lanes_off(n_slots);
	t->lane_stride = (uint32_t)lane_bytes(n_slots);
	t->gen = 1;
	return 0;
}

/* Packets attached to a region hold a reference; the region's own is the last. */
static void
mr_ext_free(void *addr, void *opaque)
{
	RTE_SET_USED(addr);
	RTE_SET_USED(opaque);
}

uint32_t
mrc_mr_register(struct mrc_mr_table *t, void *addr, uint64_t len, rte_iova_t iova, uint32_t access)
{
	const uint64_t va = (access & MRC_MR_ZERO_BASED) ? 0 : (uint64_t)(uintptr_t)addr;

	return mrc_mr_register_va(t, 0, addr, va, len, iova, access);
}

uint32_t
mrc_mr_register_va(struct mrc_mr_table *t, uint64_t pd, void *addr, uint64_t va, uint64_t len,
	rte_iova_t iova, uint32_t access)
{
	uintptr_t a = (uintptr_t)addr;

	if (addr == NULL || len == 0 || a + len < a || va + len < va ||
		(access & ~MRC_MR_ZERO_BASED) == 0 ||
		(access & ~(MRC_MR_ACCESS_LOCAL_READ | MRC_MR_ACCESS_REMOTE_WRITE |
				  MRC_MR_ZERO_BASED)) != 0) {
		rte_errno = EINVAL;
		return 0;
	}
	for (uint32_t s = 0; s < t->n_slots; s++) {
		struct mrc_mr *mr = &t->mr[s];

		if (mr->key != 0 || (mr->access & MRC_MR_RETIRED_))
			continue; /* a retired slot's lanes still count packets in flight */
		memset(mr, 0, sizeof(*mr));
		mr->addr = addr;
		mr->va = va;
		mr->len = len;
		mr->iova = iova;
		mr->access = access;
		mr->pd = pd;
		for (unsigned int k = 0; k < MRC_MR_LANES; k++) {
			struct rte_mbuf_ext_shared_info *sh = mrc_mr_shinfo(t, mr, k);

			sh->free_cb = mr_ext_free;
			sh->fcb_opaque = mr;
			rte_mbuf_ext_refcnt_set(sh, 1);
		}
		/* The key last, stored with release: a reader on another lcore that finds it
		 * finds the fields it guards (a region registered while workers run). */
		__atomic_store_n(&mr->key, (s << 8) | t->gen, __ATOMIC_RELEASE);
		/* Generations 1..255: a reused slot gets a different key. */
		t->gen = (uint8_t)(t->gen == 255 ? 1 : t->gen + 1);
		t->used++;
		return mr->key;
	}
	rte_errno = ENOSPC;
	return 0;
}

int
mrc_mr_deregister(struct mrc_mr_table *t, uint32_t key)
{
	uint32_t slot = key >> 8;

	if (key == 0 || slot >= t->n_slots || t->mr[slot].key != key)
		return -ENOENT;
	if (mrc_mr_attached(t, key) != 0)
		return -EBUSY;
	/* atomic: a send building a posted message's packet reads it (mrc_qp_tx.c) */
	__atomic_store_n(&t->mr[slot].key, 0, __ATOMIC_RELEASE);
	t->used--;
	return 0;
}

static uint32_t
slot_attached(struct mrc_mr_table *t, uint32_t slot)
{
	uint32_t n = 0;

	for (unsigned int k = 0; k < MRC_MR_LANES; k++)
		n += (uint16_t)(rte_mbuf_ext_refcnt_read(mrc_mr_shinfo(t, &t->mr[slot], k)) - 1);
	return n;
}

uint32_t
mrc_mr_attached(struct mrc_mr_table *t, uint32_t key)
{
	const uint32_t slot = key >> 8;

	if (key == 0 || slot >= t->n_slots || t->mr[slot].key != key)
		return 0;
	return slot_attached(t, slot);
}

uint32_t
mrc_mr_slot_attached(struct mrc_mr_table *t, uint32_t key)
{
	return key != 0 && (key >> 8) < t->n_slots ? slot_attached(t, key >> 8) : 0;
}

int
mrc_mr_retire(struct mrc_mr_table *t, uint32_t key)
{
	const uint32_t slot = key >> 8;
	struct mrc_mr *mr;

	if (key == 0 || slot >= t->n_slots || t->mr[slot].key != key)
		return -ENOENT;
	mr = &t->mr[slot];
	if (slot_attached(t, slot) == 0) {
		__atomic_store_n(&mr->key, 0, __ATOMIC_RELEASE);
		t->used--;
		return 0;
	}
	/* Packets on the wire keep their lanes' counts: the slot waits for them. The
	 * generation already moved on, so a later region here gets another key. */
	mr->access |= MRC_MR_RETIRED_;
	__atomic_store_n(&mr->key, 0, __ATOMIC_RELEASE);
	return 1;
}

int
mrc_mr_reap(struct mrc_mr_table *t, uint32_t key)
{
	const uint32_t slot = key >> 8;
	struct mrc_mr *mr;

	if (key == 0 || slot >= t->n_slots)
		return -ENOENT;
	mr = &t->mr[slot];
	/* a retired slot is taken by nothing else until reaped: the slot names it */
	if (mr->key != 0 || !(mr->access & MRC_MR_RETIRED_))
		return -ENOENT;
	if (slot_attached(t, slot) != 0)
		return -EBUSY;
	mr->access = 0;
	t->used--;
	return 0;
}
