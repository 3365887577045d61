/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/* The seeded PRNG: reference vectors, determinism, bounded and unit ranges. */

#include "mrc_rand.h"
#include "mrc_test.h"

/*
 * SplitMix64's published first outputs for seed 1234567; our seeding is
 * exactly four of them.
 */
static int
test_seed_splitmix64_reference(void)
{
	struct mrc_rand r;

	mrc_rand_seed(&r, 1234567);
	MRC_T_U64_EQ(r.s[0], UINT64_C(6457827717110365317));
	MRC_T_U64_EQ(r.s[1], UINT64_C(3203168211198807973));
	MRC_T_U64_EQ(r.s[2], UINT64_C(9817491932198370423));
	MRC_T_U64_EQ(r.s[3], UINT64_C(4593380528125082431));
	return MRC_TEST_OK;
}

/* xoshiro256** reference outputs for the state {1, 2, 3, 4}. */
static int
test_xoshiro256ss_reference(void)
{
	static const uint64_t want[] = {
		UINT64_C(11520),
		UINT64_C(0),
		UINT64_C(1509978240),
		UINT64_C(1215971899390074240),
		UINT64_C(1216172134540287360),
		UINT64_C(607988272756665600),
		UINT64_C(16172922978634559625),
		UINT64_C(8476171486693032832),
		UINT64_C(10595114339597558777),
		UINT64_C(2904607092377533576),
	};
	struct mrc_rand r = {.s = {1, 2, 3, 4}};

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		MRC_T_U64_EQ(mrc_rand_u64(&r), want[i]);
	return MRC_TEST_OK;
}

static int
test_determinism(void)
{
	struct mrc_rand a, b, c, z;

	mrc_rand_seed(&a, 42);
	mrc_rand_seed(&b, 42);
	mrc_rand_seed(&c, 43);
	int same_as_c = 0;

	for (int i = 0; i < 1000; i++) {
		const uint64_t x = mrc_rand_u64(&a);

		MRC_T_U64_EQ(x, mrc_rand_u64(&b));
		same_as_c += x == mrc_rand_u64(&c);
	}
	MRC_T_EQ(same_as_c, 0);

	/* Seed 0 is fine: the state is never all zero and the output moves. */
	mrc_rand_seed(&z, 0);
	MRC_T_ASSERT((z.s[0] | z.s[1] | z.s[2] | z.s[3]) != 0, "all-zero state");
	MRC_T_ASSERT(mrc_rand_u64(&z) != mrc_rand_u64(&z), "stuck output");
	return MRC_TEST_OK;
}

static int
test_u32_is_upper_half(void)
{
	struct mrc_rand a, b;

	mrc_rand_seed(&a, 5);
	b = a;
	for (int i = 0; i < 100; i++)
		MRC_T_EQ(mrc_rand_u32(&a), (uint32_t)(mrc_rand_u64(&b) >> 32));
	return MRC_TEST_OK;
}

static int
test_bounded_range_and_coverage(void)
{
	struct mrc_rand r;
	unsigned int seen[10] = {0};

	mrc_rand_seed(&r, 99);
	MRC_T_U64_EQ(mrc_rand_bounded(&r, 0), 0);
	for (int i = 0; i < 100; i++)
		MRC_T_U64_EQ(mrc_rand_bounded(&r, 1), 0);
	for (int i = 0; i < 1000; i++) {
		const uint64_t x = mrc_rand_bounded(&r, 10);

		MRC_T_ASSERT(x < 10, "x %" PRIu64, x);
		seen[x]++;
	}
	for (int v = 0; v < 10; v++)
		MRC_T_ASSERT(seen[v] > 0, "value %d never drawn", v);
	for (int i = 0; i < 1000; i++) {
		MRC_T_ASSERT(mrc_rand_bounded(&r, UINT64_MAX) < UINT64_MAX, "n = max");
		const uint64_t n = (mrc_rand_u64(&r) >> (i % 64)) + 1;

		MRC_T_ASSERT(mrc_rand_bounded(&r, n) < n, "n %" PRIu64, n);
	}
	return MRC_TEST_OK;
}

/* Small n: counts stay close to uniform (fixed seed: deterministic). */
static int
test_bounded_uniform_small(void)
{
	struct mrc_rand r;
	unsigned int count[6] = {0};
	const int draws = 60000;
	double chi2 = 0;

	mrc_rand_seed(&r, 6);
	for (int i = 0; i < draws; i++)
		count[mrc_rand_bounded(&r, 6)]++;
	for (int v = 0; v < 6; v++) {
		const double d = count[v] - draws / 6.0;

		chi2 += d * d / (draws / 6.0);
	}
	/* 5 degrees of freedom: p = 0.001 at 20.5. */
	MRC_T_ASSERT(chi2 < 20.5, "chi2 %.2f", chi2);
	return MRC_TEST_OK;
}

/*
 * Large n exposes modulo bias: with n = ~2/3 * 2^64, "x % n" returns a value
 * below n/2 two times in three. Lemire's rejection keeps it at one in two.
 */
static int
test_bounded_unbiased_large(void)
{
	const uint64_t n = UINT64_MAX / 3 * 2 + 1;
	struct mrc_rand r;
	int low = 0;
	const int draws = 40000;

	mrc_rand_seed(&r, 2019);
	for (int i = 0; i < draws; i++) {
		const uint64_t x = mrc_rand_bounded(&r, n);

		MRC_T_ASSERT(x < n, "x %" PRIu64, x);
		low += x < n / 2;
	}
	/* Expected 20000, sd 100; a biased generator gives ~26667. */
	MRC_T_ASSERT(low > 19400 && low < 20600, "low %d of %d", low, draws);
	return MRC_TEST_OK;
}

static int
test_unit_interval(void)
{
	struct mrc_rand r;
	double sum = 0, min = 1, max = 0;
	const int draws = 100000;

	MRC_T_ASSERT(mrc_rand_u64_to_unit(0) == 0.0, "0 -> 0");
	MRC_T_ASSERT(mrc_rand_u64_to_unit(UINT64_MAX) < 1.0, "max -> below 1");
	MRC_T_ASSERT(mrc_rand_u64_to_unit(UINT64_MAX) == 1.0 - 0x1.0p-53, "max -> 1 - 2^-53");
	MRC_T_ASSERT(mrc_rand_u64_to_unit(UINT64_C(1) << 63) == 0.5, "half");

	mrc_rand_seed(&r, 1);
	for (int i = 0; i < draws; i++) {
		const double u = mrc_rand_unit(&r);

		MRC_T_ASSERT(u >= 0.0 && u < 1.0, "u %g", u);
		sum += u;
		min = u < min ? u : min;
		max = u > max ? u : max;
	}
	/* Mean 0.5, sd of the mean ~0.0009. */
	MRC_T_ASSERT(sum / draws > 0.495 && sum / draws < 0.505, "mean %f", sum / draws);
	MRC_T_ASSERT(min < 0.001 && max > 0.999, "min %g max %g", min, max);
	return MRC_TEST_OK;
}

static const struct mrc_test_case cases[] = {
	MRC_TEST_CASE(test_seed_splitmix64_reference),
	MRC_TEST_CASE(test_xoshiro256ss_reference),
	MRC_TEST_CASE(test_determinism),
	MRC_TEST_CASE(test_u32_is_upper_half),
	MRC_TEST_CASE(test_bounded_range_and_coverage),
	MRC_TEST_CASE(test_bounded_uniform_small),
	MRC_TEST_CASE(test_bounded_unbiased_large),
	MRC_TEST_CASE(test_unit_interval),
};

MRC_TEST_MAIN("common_rand", cases)
