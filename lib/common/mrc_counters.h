/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRC_COUNTERS_H
#define MRC_COUNTERS_H

/*
 * Per-lcore counter blocks, declared once.
 *
 * Every drop and every interesting event has a named counter. A module lists
 * its counters once, as an X-macro of (name, unit, help):
 *
 *   #define MRC_WIRE_RX_COUNTERS(X)                                       \
 *           X(truncated, "pkts", "packets shorter than their headers")    \
 *           X(bad_icrc,  "pkts", "packets whose ICRC did not match")
 *
 * and from that one list generates both the storage and the description:
 *
 *   header:  MRC_COUNTER_BLOCK_DECLARE(mrc_wire_rx_counters, MRC_WIRE_RX_COUNTERS);
 *   one .c:  MRC_COUNTER_BLOCK_DEFINE(mrc_wire_rx_counters, MRC_WIRE_RX_COUNTERS);
 *
 * DECLARE generates
 *
 *   struct mrc_wire_rx_counters { uint64_t truncated; uint64_t bad_icrc; }
 *           __rte_cache_aligned;
 *   enum { mrc_wire_rx_counters_count = 2 };
 *   extern const struct mrc_counter_desc mrc_wire_rx_counters_desc[2];
 *   static inline helpers mrc_wire_rx_counters_{get,add,sum}()
 *
 * and DEFINE the descriptor table { "truncated", "pkts", "..." }, ... in
 * list order. Adding a counter is one line; the struct, the names exported to
 * telemetry and the count can never disagree.
 *
 * Ownership (why blocks and not one shared struct): each worker lcore owns
 * one block and increments it with plain, non-atomic `blk->truncated++`.
 * Blocks are cache-line aligned and padded, so two lcores never write the
 * same line (no false sharing, no atomics, no locks). Readers - the control
 * thread's snapshot or telemetry - sum the blocks of all lcores. A reader may
 * see a counter a few increments old but never a torn value: every field is
 * an aligned uint64_t, read once with a relaxed atomic load.
 *
 * Access by index: the struct is nothing but uint64_t fields in list order,
 * so field i is ((const uint64_t *)blk)[i], which is how generic code
 * (telemetry, summaries) walks a block next to its descriptor table. The
 * static_assert in DECLARE proves there is no hidden field or padding
 * besides the tail padding up to the cache line. The typed wrappers take
 * `struct T *`, so passing the wrong kind of block is a compile error; only
 * the untyped core below sees `uint64_t *`.
 *
 * A list must have at least one counter (C has no empty structs).
 */

#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <rte_common.h>

/* What one counter means; `name` is a C identifier, `unit` e.g. "pkts". */
struct mrc_counter_desc {
	const char *name;
	const char *unit;
	const char *help;
};

/* ---- untyped core (what the generated helpers call) ---- */

/* Value of counter i of a block of n uint64_t counters; 0 when i >= n. */
static inline uint64_t
mrc_counters_get(const uint64_t *blk, unsigned int n, unsigned int i)
{
	if (i >= n)
		return 0;
	return __atomic_load_n(&blk[i], __ATOMIC_RELAXED);
}

/* acc[i] += blk[i] for the n counters; acc is the reader's private copy. */
static inline void
mrc_counters_add(uint64_t *acc, const uint64_t *blk, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		acc[i] += __atomic_load_n(&blk[i], __ATOMIC_RELAXED);
}

/* ---- generation ---- */

#define MRC_COUNTER_FIELD_(name, unit, help) uint64_t name;
#define MRC_COUNTER_ONE_(name, unit, help)   +1
#define MRC_COUNTER_DESC_(name, unit, help)  {#name, unit, help},

/* Index of `field` in `struct type`, for mrc_counters_get() and the desc table. */
#define MRC_COUNTER_INDEX(type, field) (offsetof(struct type, field) / sizeof(uint64_t))

#define MRC_COUNTER_BLOCK_DECLARE(type, LIST)                                                  \
	struct type {                                                                          \
		LIST(MRC_COUNTER_FIELD_)                                                       \
	} __rte_cache_aligned;                                                                 \
	enum { type##_count = 0 LIST(MRC_COUNTER_ONE_) };                                      \
	static_assert(sizeof(struct type) == RTE_ALIGN_CEIL(type##_count * sizeof(uint64_t),   \
						     RTE_CACHE_LINE_SIZE),                     \
		#type ": counters must be exactly count uint64_t plus cache-line padding");    \
	extern const struct mrc_counter_desc type##_desc[type##_count];                        \
	/* Counter i (descriptor order) of one block; 0 when out of range. */                  \
	static inline uint64_t __rte_unused type##_get(const struct type *blk, unsigned int i) \
	{                                                                                      \
		return mrc_counters_get((const uint64_t *)blk, type##_count, i);               \
	}                                                                                      \
	/* acc += blk, counter by counter. */                                                  \
	static inline void __rte_unused type##_add(struct type *acc, const struct type *blk)   \
	{                                                                                      \
		mrc_counters_add((uint64_t *)acc, (const uint64_t *)blk, type##_count);        \
	}                                                                                      \
	/* out = sum of n blocks; NULL entries (idle lcores) are skipped. */                   \
	static inline void __rte_unused type##_sum(                                            \
		struct type *out, const struct type *const *blks, unsigned int n)              \
	{                                                                                      \
		memset(out, 0, sizeof(*out));                                                  \
		for (unsigned int b_ = 0; b_ < n; b_++)                                        \
			if (blks[b_] != NULL)                                                  \
				type##_add(out, blks[b_]);                                     \
	}                                                                                      \
	static_assert(1, "swallow the caller's semicolon")

#define MRC_COUNTER_BLOCK_DEFINE(type, LIST) \
	const struct mrc_counter_desc type##_desc[type##_count] = {LIST(MRC_COUNTER_DESC_)}

#endif /* MRC_COUNTERS_H */
