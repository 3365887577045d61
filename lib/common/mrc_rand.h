/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRC_RAND_H
#define MRC_RAND_H

/*
 * A small, fast, seeded PRNG with explicit state.
 *
 * Why not rand()/rte_rand(): both hide their state in a global, so a test
 * cannot replay the exact choices a QP made (which EV to pick, which packet
 * the emulated fabric drops), and lcores would share it. Here every owner
 * (a worker lcore, a fabric link, a test) holds its own `struct mrc_rand`,
 * seeds it explicitly and passes it down to the hot path by pointer. Same
 * seed, same sequence, on every machine.
 *
 * Generator: xoshiro256** (Blackman and Vigna, 2018). 256 bits of state,
 * period 2^256 - 1, passes BigCrush and PractRand, a handful of shifts,
 * xors and two multiplies per output. Not cryptographic, and not meant to be.
 * Output: scramble s[1] (multiply by 5, rotate left 7, multiply by 9), then
 * advance the linear engine:
 *
 *   t = s1 << 17; s2 ^= s0; s3 ^= s1; s1 ^= s2; s0 ^= s3; s2 ^= t; s3 = rotl(s3, 45)
 *
 * Seeding: xoshiro's state must not be all zero and should not be "nearly
 * zero" (few set bits take a while to mix). We fill it with four successive
 * outputs of SplitMix64 (Steele, Lea, Flood: a Weyl sequence step of the
 * golden-ratio increment, then two xor-shift-multiply mixing rounds), the
 * seeding method the xoshiro authors recommend. SplitMix64's output function
 * is a bijection of its 64-bit counter and the four counters differ, so at
 * most one of the four words can be zero: the state is never all zero, for
 * any seed including 0.
 *
 * Derived values:
 * - u32: the upper 32 bits (all bits of xoshiro256** are good, upper by
 *   convention).
 * - bounded(n): uniform in [0, n) without modulo bias, by Lemire's method
 *   ("Fast random integer generation in an interval", 2019): the high 64
 *   bits of the 128-bit product x * n are a value in [0, n). Most of the
 *   2^64 values of x map evenly; the low half of the product tells us when x
 *   fell in the (2^64 mod n) leftover values that would bias the result, and
 *   only then do we pay for the division computing 2^64 mod n and draw again.
 *   Expected draws < 2, usually exactly 1 with no division at all.
 * - unit(): 53 random bits scaled by 2^-53, so every value is an exact
 *   double in [0, 1) spaced 2^-53 apart (1.0 is impossible).
 */

#include <stdint.h>

struct mrc_rand {
	uint64_t s[4];
};

static inline uint64_t
mrc_rand_rotl_(uint64_t x, unsigned int k)
{
	return (x << k) | (x >> (64 - k));
}

/* One SplitMix64 step: advance *state, return its mixed output. */
static inline uint64_t
mrc_rand_splitmix64(uint64_t *state)
{
	uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* Seed r from a 64-bit seed; any seed, including 0, is fine. */
static inline void
mrc_rand_seed(struct mrc_rand *r, uint64_t seed)
{
	uint64_t sm = seed;

	for (unsigned int i = 0; i < 4; i++)
		r->s[i] = mrc_rand_splitmix64(&sm);
}

/* Next 64 random bits. */
static inline uint64_t
mrc_rand_u64(struct mrc_rand *r)
{
	uint64_t *s = r->s;
	const uint64_t out = mrc_rand_rotl_(s[1] * 5, 7) * 9;
	const uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = mrc_rand_rotl_(s[3], 45);
	return out;
}

static inline uint32_t
mrc_rand_u32(struct mrc_rand *r)
{
	return (uint32_t)(mrc_rand_u64(r) >> 32);
}

/* Uniform in [0, n), unbiased; returns 0 when n is 0 or 1. */
static inline uint64_t
mrc_rand_bounded(struct mrc_rand *r, uint64_t n)
{
	unsigned __int128 m = (unsigned __int128)mrc_rand_u64(r) * n;
	uint64_t low = (uint64_t)m;

	if (low < n) {
		/* threshold = 2^64 mod n, computed in 64 bits as (-n) mod n. */
		const uint64_t threshold = (0 - n) % n;

		while (low < threshold) {
			m = (unsigned __int128)mrc_rand_u64(r) * n;
			low = (uint64_t)m;
		}
	}
	return (uint64_t)(m >> 64);
}

/* Map 64 random bits to a double in [0, 1): the top 53 bits times 2^-53. */
static inline double
mrc_rand_u64_to_unit(uint64_t x)
{
	return (double)(x >> 11) * 0x1.0p-53;
}

/* Uniform double in [0, 1). */
static inline double
mrc_rand_unit(struct mrc_rand *r)
{
	return mrc_rand_u64_to_unit(mrc_rand_u64(r));
}

#endif /* MRC_RAND_H */
