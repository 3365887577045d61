/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRC_SEQ_H
#define MRC_SEQ_H

/*
 * Sequence-number arithmetic with wrap-around (serial-number arithmetic,
 * RFC 1982).
 *
 * The BTH carries a 24-bit PSN; MSN-like counters are 16 bits. Both wrap, so
 * "a < b" cannot be a plain integer compare: after 0xFFFFFF comes 0. Instead
 * we look at the distance a - b taken modulo 2^N and read it as a signed
 * N-bit number: a is "before" b when that distance is negative, i.e. when
 * going forward from a reaches b in fewer than 2^(N-1) steps.
 *
 *   psn space (24 bits) drawn as a circle; b = 0xFFFFFE
 *
 *          0xFFFFFE (b)  0xFFFFFF   0x000000   0x000001 (a)
 *       ... ----+-----------+----------+----------+---- ...
 *   diff(a, b) = (0x000001 - 0xFFFFFE) mod 2^24 = 3  -> a is after b
 *
 * This only means something while the values compared are less than half
 * the space apart: the transport keeps every window (in flight, reorder
 * tolerance, SACK scoreboard) far below 2^23 packets, and that is what makes
 * the comparisons below total orders over the live window.
 *
 * The ambiguity: when a and b are exactly 2^(N-1) apart, "a before b" and
 * "b before a" are equally true. RFC 1982 leaves it undefined; here the
 * distance is taken as the most negative value (diff = -2^(N-1) in both
 * directions), so lt(a, b) and lt(b, a) are BOTH true, gt() both false.
 * Callers never get there because their windows are smaller; tests pin the
 * behaviour so it cannot change silently.
 *
 * Inputs may carry garbage above bit N-1 (e.g. a raw 32-bit word): every
 * function reduces modulo 2^N, and results are always in range.
 */

#include <stdbool.h>
#include <stdint.h>

/* ---- 24-bit PSN ---- */

#define MRC_PSN_BITS 24
#define MRC_PSN_MASK ((UINT32_C(1) << MRC_PSN_BITS) - 1)
/* Half the PSN space: the largest distance that still has a direction. */
#define MRC_PSN_HALF (UINT32_C(1) << (MRC_PSN_BITS - 1))

/* psn + n modulo 2^24. */
static inline uint32_t
mrc_psn_add(uint32_t psn, uint32_t n)
{
	return (psn + n) & MRC_PSN_MASK;
}

/* psn - n modulo 2^24. */
static inline uint32_t
mrc_psn_sub(uint32_t psn, uint32_t n)
{
	return (psn - n) & MRC_PSN_MASK;
}

/*
 * Signed distance a - b in [-2^23, 2^23): positive when a is after b.
 * mrc_psn_add(b, diff(a, b)) == a for every a, b (in range).
 */
static inline int32_t
mrc_psn_diff(uint32_t a, uint32_t b)
{
	uint32_t d = (a - b) & MRC_PSN_MASK;

	/* Sign-extend 24 -> 32 bits without implementation-defined casts. */
	return (int32_t)(d ^ MRC_PSN_HALF) - (int32_t)MRC_PSN_HALF;
}

static inline bool
mrc_psn_lt(uint32_t a, uint32_t b)
{
	return mrc_psn_diff(a, b) < 0;
}

static inline bool
mrc_psn_le(uint32_t a, uint32_t b)
{
	return mrc_psn_diff(a, b) <= 0;
}

static inline bool
mrc_psn_gt(uint32_t a, uint32_t b)
{
	return mrc_psn_diff(a, b) > 0;
}

static inline bool
mrc_psn_ge(uint32_t a, uint32_t b)
{
	return mrc_psn_diff(a, b) >= 0;
}

/*
 * psn in [base, base + count) modulo 2^24. count may be 0 (empty window) up
 * to 2^24 (every PSN). Unlike lt/gt this has no half-space ambiguity: it
 * only asks how far psn is past base.
 */
static inline bool
mrc_psn_in_window(uint32_t psn, uint32_t base, uint32_t count)
{
	return ((psn - base) & MRC_PSN_MASK) < count;
}

/* ---- 16-bit sequence numbers (MSN, RQ MSN) ---- */

#define MRC_SEQ16_BITS 16
#define MRC_SEQ16_MASK UINT32_C(0xffff)
#define MRC_SEQ16_HALF UINT32_C(0x8000)

static inline uint16_t
mrc_seq16_add(uint16_t seq, uint32_t n)
{
	return (uint16_t)((seq + n) & MRC_SEQ16_MASK);
}

static inline uint16_t
mrc_seq16_sub(uint16_t seq, uint32_t n)
{
	return (uint16_t)(((uint32_t)seq - n) & MRC_SEQ16_MASK);
}

/* Signed distance a - b in [-2^15, 2^15). */
static inline int32_t
mrc_seq16_diff(uint16_t a, uint16_t b)
{
	uint32_t d = ((uint32_t)a - b) & MRC_SEQ16_MASK;

	return (int32_t)(d ^ MRC_SEQ16_HALF) - (int32_t)MRC_SEQ16_HALF;
}

static inline bool
mrc_seq16_lt(uint16_t a, uint16_t b)
{
	return mrc_seq16_diff(a, b) < 0;
}

static inline bool
mrc_seq16_le(uint16_t a, uint16_t b)
{
	return mrc_seq16_diff(a, b) <= 0;
}

static inline bool
mrc_seq16_gt(uint16_t a, uint16_t b)
{
	return mrc_seq16_diff(a, b) > 0;
}

static inline bool
mrc_seq16_ge(uint16_t a, uint16_t b)
{
	return mrc_seq16_diff(a, b) >= 0;
}

/* seq in [base, base + count) modulo 2^16; count up to 2^16. */
static inline bool
mrc_seq16_in_window(uint16_t seq, uint16_t base, uint32_t count)
{
	return (((uint32_t)seq - base) & MRC_SEQ16_MASK) < count;
}

#endif /* MRC_SEQ_H */
