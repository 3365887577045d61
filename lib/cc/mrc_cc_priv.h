/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRC_CC_PRIV_H
#define MRC_CC_PRIV_H

/* Shared by the algorithm files and the registry; not installed. */

#include <stdint.h>

#include "mrc_cc.h"

/*
 * The built-in algorithms. mrc_cc.c lists them in a table, so any program
 * that calls mrc_cc_find() pulls their object files out of the static
 * library: no constructor, nothing the linker could drop.
 */
extern const struct mrc_cc_ops mrc_cc_nscc_ops;
extern const struct mrc_cc_ops mrc_cc_fixed_ops;

/* Saturating u32 add: byte counters stop at the top instead of wrapping to 0. */
static inline uint32_t
mrc_cc_add_sat32(uint32_t a, uint64_t b)
{
	const uint64_t s = (uint64_t)a + b;

	return s > UINT32_MAX ? UINT32_MAX : (uint32_t)s;
}

/* Saturating u32 subtract: a - b, or 0 when b is larger. */
static inline uint32_t
mrc_cc_sub_sat32(uint32_t a, uint32_t b)
{
	return a > b ? a - b : 0;
}

/* x clamped to [lo, hi]; lo <= hi. */
static inline uint32_t
mrc_cc_clamp32(uint64_t x, uint32_t lo, uint32_t hi)
{
	return x < lo ? lo : x > hi ? hi : (uint32_t)x;
}

/* Window bound the algorithms accept (keeps every product in 64 bits). */
#define MRC_CC_CWND_LIMIT_BYTES (UINT32_C(1) << 30)

/* NSCC: "queue empty" for fast increase, in ns (capped at target / 2). */
#define MRC_NSCC_FAST_DELAY_NS 1000

#endif /* MRC_CC_PRIV_H */
