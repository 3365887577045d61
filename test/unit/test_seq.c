/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/* 24-bit PSN and 16-bit sequence arithmetic across the wrap. */

#include "mrc_rand.h"
#include "mrc_seq.h"
#include "mrc_test.h"

static int
test_psn_add_sub_wrap(void)
{
	MRC_T_EQ(MRC_PSN_MASK, 0xffffff);
	MRC_T_EQ(mrc_psn_add(0xffffff, 1), 0);
	MRC_T_EQ(mrc_psn_add(0xfffffe, 5), 3);
	MRC_T_EQ(mrc_psn_add(0, 0xffffff), 0xffffff);
	MRC_T_EQ(mrc_psn_add(0x123456, 1u << 24), 0x123456);
	MRC_T_EQ(mrc_psn_add(0x123456, 0), 0x123456);
	MRC_T_EQ(mrc_psn_sub(0, 1), 0xffffff);
	MRC_T_EQ(mrc_psn_sub(3, 5), 0xfffffe);
	MRC_T_EQ(mrc_psn_sub(0x123456, 0x123456), 0);
	/* Bits above 24 are noise and never leak into the result. */
	MRC_T_EQ(mrc_psn_add(0x1ffffff, 1), 0);
	MRC_T_EQ(mrc_psn_add(0xab000001, 1), 2);
	MRC_T_EQ(mrc_psn_add(0xffffffff, 0xffffffff), 0xfffffe);
	return MRC_TEST_OK;
}

static int
test_psn_diff_extremes(void)
{
	MRC_T_EQ(mrc_psn_diff(5, 5), 0);
	MRC_T_EQ(mrc_psn_diff(0, 0xffffff), 1);
	MRC_T_EQ(mrc_psn_diff(0xffffff, 0), -1);
	MRC_T_EQ(mrc_psn_diff(2, 0xfffffe), 4);
	MRC_T_EQ(mrc_psn_diff(0xfffffe, 2), -4);
	/* Largest positive distance: 2^23 - 1. */
	MRC_T_EQ(mrc_psn_diff(0x7fffff, 0), 0x7fffff);
	MRC_T_EQ(mrc_psn_diff(0x7ffffe, 0xffffff), 0x7fffff);
	MRC_T_EQ(mrc_psn_diff(0, 0x800001), 0x7fffff);
	/* Most negative: -(2^23 - 1) and, at exactly half, -2^23 both ways. */
	MRC_T_EQ(mrc_psn_diff(0, 0x7fffff), -0x7fffff);
	MRC_T_EQ(mrc_psn_diff(0x800000, 0), -0x800000);
	MRC_T_EQ(mrc_psn_diff(0, 0x800000), -0x800000);
	MRC_T_EQ(mrc_psn_diff(0xffffff, 0x7fffff), -0x800000);
	/* Garbage above bit 23 does not change the distance. */
	MRC_T_EQ(mrc_psn_diff(0xff000003, 0x00ffffff), 4);
	return MRC_TEST_OK;
}

/* add and diff are inverse for every distance in [-2^23, 2^23). */
static int
test_psn_diff_add_inverse(void)
{
	struct mrc_rand r;

	mrc_rand_seed(&r, 24);
	for (int i = 0; i < 200000; i++) {
		const uint32_t a = mrc_rand_u32(&r) & MRC_PSN_MASK;
		const int32_t n = (int32_t)mrc_rand_bounded(&r, 1u << 24) - (1 << 23);
		const uint32_t b = mrc_psn_add(a, (uint32_t)n);

		MRC_T_ASSERT(mrc_psn_diff(b, a) == n, "a %#x n %d b %#x diff %d", a, n, b,
			mrc_psn_diff(b, a));
		MRC_T_ASSERT(
			mrc_psn_add(a, (uint32_t)mrc_psn_diff(b, a)) == b, "a %#x b %#x", a, b);
		MRC_T_ASSERT(mrc_psn_sub(b, (uint32_t)n) == a, "a %#x n %d", a, n);
	}
	return MRC_TEST_OK;
}

static int
test_psn_compare_across_wrap(void)
{
	MRC_T_ASSERT(mrc_psn_lt(0xffffff, 0), "0xffffff < 0");
	MRC_T_ASSERT(mrc_psn_le(0xffffff, 0), "0xffffff <= 0");
	MRC_T_ASSERT(!mrc_psn_gt(0xffffff, 0), "!(0xffffff > 0)");
	MRC_T_ASSERT(!mrc_psn_ge(0xffffff, 0), "!(0xffffff >= 0)");
	MRC_T_ASSERT(mrc_psn_gt(0, 0xffffff), "0 > 0xffffff");
	MRC_T_ASSERT(mrc_psn_ge(0, 0xffffff), "0 >= 0xffffff");
	MRC_T_ASSERT(!mrc_psn_lt(0, 0xffffff), "!(0 < 0xffffff)");
	MRC_T_ASSERT(mrc_psn_lt(0xfffff0, 0x10), "0xfffff0 < 0x10");
	MRC_T_ASSERT(mrc_psn_gt(0x10, 0xfffff0), "0x10 > 0xfffff0");
	/* Without a wrap, plain order. */
	MRC_T_ASSERT(mrc_psn_lt(1, 2) && !mrc_psn_lt(2, 1), "1 < 2");
	/* Reflexive cases. */
	MRC_T_ASSERT(!mrc_psn_lt(7, 7) && !mrc_psn_gt(7, 7), "7 vs 7");
	MRC_T_ASSERT(mrc_psn_le(7, 7) && mrc_psn_ge(7, 7), "7 vs 7");
	/* Just inside half the space the answer is still a direction. */
	MRC_T_ASSERT(mrc_psn_lt(0, 0x7fffff) && mrc_psn_gt(0x7fffff, 0), "2^23-1 apart");
	MRC_T_ASSERT(mrc_psn_lt(0x800001, 0) && mrc_psn_gt(0, 0x800001), "2^23+1 apart");
	return MRC_TEST_OK;
}

/* The documented ambiguity at exactly 2^23 apart: each is "before" the other. */
static int
test_psn_half_space_ambiguity(void)
{
	static const uint32_t bases[] = {0, 1, 0x7fffff, 0x800000, 0xffffff};

	for (size_t i = 0; i < sizeof(bases) / sizeof(bases[0]); i++) {
		const uint32_t a = bases[i], b = mrc_psn_add(bases[i], 0x800000);

		MRC_T_ASSERT(mrc_psn_lt(a, b) && mrc_psn_lt(b, a), "a %#x b %#x", a, b);
		MRC_T_ASSERT(!mrc_psn_gt(a, b) && !mrc_psn_gt(b, a), "a %#x b %#x", a, b);
		MRC_T_EQ(mrc_psn_diff(a, b), -0x800000);
		MRC_T_EQ(mrc_psn_diff(b, a), -0x800000);
	}
	return MRC_TEST_OK;
}

/* Away from the half-space point, lt/gt are antisymmetric and agree with diff. */
static int
test_psn_compare_consistency(void)
{
	struct mrc_rand r;

	mrc_rand_seed(&r, 1982);
	for (int i = 0; i < 200000; i++) {
		const uint32_t a = mrc_rand_u32(&r) & MRC_PSN_MASK;
		const uint32_t b =
			(i & 1) ? mrc_rand_u32(&r) & MRC_PSN_MASK
				: mrc_psn_add(a, (uint32_t)mrc_rand_bounded(&r, 64) - 32);
		const int32_t d = mrc_psn_diff(a, b);

		if (d == -0x800000)
			continue;
		MRC_T_ASSERT(mrc_psn_lt(a, b) == mrc_psn_gt(b, a), "a %#x b %#x", a, b);
		MRC_T_ASSERT(mrc_psn_le(a, b) == mrc_psn_ge(b, a), "a %#x b %#x", a, b);
		MRC_T_ASSERT(mrc_psn_lt(a, b) == (d < 0), "a %#x b %#x", a, b);
		MRC_T_ASSERT(mrc_psn_le(a, b) == !mrc_psn_gt(a, b), "a %#x b %#x", a, b);
		MRC_T_ASSERT(mrc_psn_diff(b, a) == -d, "a %#x b %#x", a, b);
	}
	return MRC_TEST_OK;
}

static int
test_psn_window(void)
{
	/* [0xfffffe, 0xfffffe + 4) = {0xfffffe, 0xffffff, 0, 1} */
	MRC_T_ASSERT(mrc_psn_in_window(0xfffffe, 0xfffffe, 4), "base is in");
	MRC_T_ASSERT(mrc_psn_in_window(0xffffff, 0xfffffe, 4), "0xffffff in");
	MRC_T_ASSERT(mrc_psn_in_window(0, 0xfffffe, 4), "0 in");
	MRC_T_ASSERT(mrc_psn_in_window(1, 0xfffffe, 4), "last in");
	MRC_T_ASSERT(!mrc_psn_in_window(2, 0xfffffe, 4), "end is out");
	MRC_T_ASSERT(!mrc_psn_in_window(0xfffffd, 0xfffffe, 4), "before base is out");
	MRC_T_ASSERT(!mrc_psn_in_window(0x7fffff, 0xfffffe, 4), "far is out");
	/* Empty and full windows. */
	MRC_T_ASSERT(!mrc_psn_in_window(5, 5, 0), "empty window");
	MRC_T_ASSERT(mrc_psn_in_window(4, 5, 1u << 24), "full window");
	MRC_T_ASSERT(mrc_psn_in_window(5, 5, 1u << 24), "full window");
	MRC_T_ASSERT(!mrc_psn_in_window(4, 5, (1u << 24) - 1), "all but base - 1");
	/* A window longer than half the space still works (no ambiguity here). */
	MRC_T_ASSERT(mrc_psn_in_window(0x900000, 0, 0xa00000), "long window");
	MRC_T_ASSERT(!mrc_psn_in_window(0xa00000, 0, 0xa00000), "long window end");
	/* Input noise above bit 23. */
	MRC_T_ASSERT(mrc_psn_in_window(0x5000000, 0xffffff, 2), "noise");

	/* Against the obvious definition, for random windows. */
	struct mrc_rand r;

	mrc_rand_seed(&r, 7);
	for (int i = 0; i < 100000; i++) {
		const uint32_t base = mrc_rand_u32(&r) & MRC_PSN_MASK;
		const uint32_t count = (uint32_t)mrc_rand_bounded(&r, 300);
		const uint32_t off = (uint32_t)mrc_rand_bounded(&r, 600) - 150;
		const uint32_t psn = mrc_psn_add(base, off);
		const bool want = off < count; /* off wraps huge when negative */

		MRC_T_ASSERT(mrc_psn_in_window(psn, base, count) == want,
			"psn %#x base %#x count %u", psn, base, count);
	}
	return MRC_TEST_OK;
}

static int
test_seq16(void)
{
	MRC_T_EQ(mrc_seq16_add(0xffff, 1), 0);
	MRC_T_EQ(mrc_seq16_add(0xfffe, 5), 3);
	MRC_T_EQ(mrc_seq16_add(7, 0x10000), 7);
	MRC_T_EQ(mrc_seq16_sub(0, 1), 0xffff);
	MRC_T_EQ(mrc_seq16_diff(0, 0xffff), 1);
	MRC_T_EQ(mrc_seq16_diff(0xffff, 0), -1);
	MRC_T_EQ(mrc_seq16_diff(0x7fff, 0), 0x7fff);
	MRC_T_EQ(mrc_seq16_diff(0, 0x7fff), -0x7fff);
	MRC_T_EQ(mrc_seq16_diff(0x8000, 0), -0x8000);
	MRC_T_EQ(mrc_seq16_diff(0, 0x8000), -0x8000);
	MRC_T_ASSERT(mrc_seq16_lt(0xffff, 0) && mrc_seq16_gt(0, 0xffff), "wrap compare");
	MRC_T_ASSERT(mrc_seq16_le(0xffff, 0) && mrc_seq16_ge(0, 0xffff), "wrap compare");
	MRC_T_ASSERT(!mrc_seq16_lt(3, 3) && mrc_seq16_le(3, 3) && mrc_seq16_ge(3, 3), "equal");
	MRC_T_ASSERT(mrc_seq16_lt(0, 0x8000) && mrc_seq16_lt(0x8000, 0), "half-space ambiguity");
	MRC_T_ASSERT(mrc_seq16_in_window(0, 0xffff, 2), "window across wrap");
	MRC_T_ASSERT(!mrc_seq16_in_window(1, 0xffff, 2), "window end");
	MRC_T_ASSERT(!mrc_seq16_in_window(0xfffe, 0xffff, 2), "before window");
	MRC_T_ASSERT(mrc_seq16_in_window(0xfffe, 0xffff, 0x10000), "full window");
	MRC_T_ASSERT(!mrc_seq16_in_window(0xffff, 0xffff, 0), "empty window");

	struct mrc_rand r;

	mrc_rand_seed(&r, 16);
	for (int i = 0; i < 100000; i++) {
		const uint16_t a = (uint16_t)mrc_rand_u32(&r);
		const int32_t n = (int32_t)mrc_rand_bounded(&r, 1u << 16) - (1 << 15);
		const uint16_t b = mrc_seq16_add(a, (uint32_t)n);

		MRC_T_ASSERT(mrc_seq16_diff(b, a) == n, "a %#x n %d", a, n);
		MRC_T_ASSERT(mrc_seq16_sub(b, (uint32_t)n) == a, "a %#x n %d", a, n);
		if (n != -0x8000)
			MRC_T_ASSERT(mrc_seq16_lt(a, b) == (n > 0), "a %#x n %d", a, n);
	}
	return MRC_TEST_OK;
}

static const struct mrc_test_case cases[] = {
	MRC_TEST_CASE(test_psn_add_sub_wrap),
	MRC_TEST_CASE(test_psn_diff_extremes),
	MRC_TEST_CASE(test_psn_diff_add_inverse),
	MRC_TEST_CASE(test_psn_compare_across_wrap),
	MRC_TEST_CASE(test_psn_half_space_ambiguity),
	MRC_TEST_CASE(test_psn_compare_consistency),
	MRC_TEST_CASE(test_psn_window),
	MRC_TEST_CASE(test_seq16),
};

MRC_TEST_MAIN("common_seq", cases)
