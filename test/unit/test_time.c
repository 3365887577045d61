/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/* TSC <-> ns/us conversions: exact values, rounding, no overflow, saturation. */

#include <rte_common.h>

#include "mrc_rand.h"
#include "mrc_test.h"
#include "mrc_time.h"

#define HZ_3G	UINT64_C(3000000000)
#define HZ_2G5	UINT64_C(2500000000)
#define HZ_ODD	UINT64_C(2399999989) /* prime-ish: nothing divides evenly */
#define YEAR_NS (UINT64_C(365) * 86400 * MRC_NS_PER_S)

static int
test_exact_values(void)
{
	MRC_T_U64_EQ(mrc_tsc_to_ns(HZ_3G, HZ_3G), MRC_NS_PER_S);
	MRC_T_U64_EQ(mrc_tsc_to_us(HZ_3G, HZ_3G), MRC_US_PER_S);
	MRC_T_U64_EQ(mrc_ns_to_tsc(MRC_NS_PER_S, HZ_3G), HZ_3G);
	MRC_T_U64_EQ(mrc_us_to_tsc(MRC_US_PER_S, HZ_3G), HZ_3G);
	MRC_T_U64_EQ(mrc_ns_to_tsc(1, HZ_3G), 3);
	MRC_T_U64_EQ(mrc_us_to_tsc(1, HZ_3G), 3000);
	MRC_T_U64_EQ(mrc_tsc_to_ns(3000, HZ_3G), 1000);
	MRC_T_U64_EQ(mrc_tsc_to_us(3000, HZ_3G), 1);
	MRC_T_U64_EQ(mrc_tsc_to_ns(0, HZ_3G), 0);
	MRC_T_U64_EQ(mrc_ns_to_tsc(0, HZ_3G), 0);
	MRC_T_U64_EQ(mrc_ns_to_tsc_round_up(0, HZ_3G), 0);
	return MRC_TEST_OK;
}

static int
test_rounding(void)
{
	/* 1 cycle at 3 GHz is 0.33 ns: down to 0. */
	MRC_T_U64_EQ(mrc_tsc_to_ns(1, HZ_3G), 0);
	MRC_T_U64_EQ(mrc_tsc_to_ns(2, HZ_3G), 0);
	MRC_T_U64_EQ(mrc_tsc_to_ns(3, HZ_3G), 1);
	MRC_T_U64_EQ(mrc_tsc_to_us(2999, HZ_3G), 0);
	/* 1 ns at 2.5 GHz is 2.5 cycles: down 2, up 3. */
	MRC_T_U64_EQ(mrc_ns_to_tsc(1, HZ_2G5), 2);
	MRC_T_U64_EQ(mrc_ns_to_tsc_round_up(1, HZ_2G5), 3);
	/* Exact results are not rounded up. */
	MRC_T_U64_EQ(mrc_ns_to_tsc_round_up(2, HZ_2G5), 5);
	MRC_T_U64_EQ(mrc_us_to_tsc_round_up(7, HZ_3G), 21000);
	/* 1 us at 2399999989 Hz is 2399.999989 cycles. */
	MRC_T_U64_EQ(mrc_us_to_tsc(1, HZ_ODD), 2399);
	MRC_T_U64_EQ(mrc_us_to_tsc_round_up(1, HZ_ODD), 2400);
	return MRC_TEST_OK;
}

/* Ten years at 3 GHz: the products overflow 64 bits, the results do not. */
static int
test_large_values_no_overflow(void)
{
	const uint64_t ns = 10 * YEAR_NS; /* 3.15e17 */
	const uint64_t tsc = ns * 3;	  /* 9.46e17 < 2^64 */
	const uint64_t us = ns / 1000;

	/* Check the test itself: the naive product does not fit. */
	MRC_T_ASSERT(tsc > UINT64_MAX / MRC_NS_PER_S, "test values too small");
	MRC_T_ASSERT(ns > UINT64_MAX / HZ_3G, "test values too small");

	MRC_T_U64_EQ(mrc_tsc_to_ns(tsc, HZ_3G), ns);
	MRC_T_U64_EQ(mrc_ns_to_tsc(ns, HZ_3G), tsc);
	MRC_T_U64_EQ(mrc_ns_to_tsc_round_up(ns, HZ_3G), tsc);
	MRC_T_U64_EQ(mrc_tsc_to_us(tsc, HZ_3G), us);
	MRC_T_U64_EQ(mrc_us_to_tsc(us, HZ_3G), tsc);
	MRC_T_U64_EQ(mrc_us_to_tsc_round_up(us, HZ_3G), tsc);

	/* One cycle less rounds down across the whole value. */
	MRC_T_U64_EQ(mrc_tsc_to_ns(tsc - 1, HZ_3G), ns - 1);
	MRC_T_U64_EQ(mrc_tsc_to_us(tsc - 1, HZ_3G), us - 1);

	/* The largest TSC value converts without wrapping (hz = 1 GHz is 1:1). */
	MRC_T_U64_EQ(mrc_tsc_to_ns(UINT64_MAX, MRC_NS_PER_S), UINT64_MAX);
	MRC_T_U64_EQ(mrc_ns_to_tsc(UINT64_MAX, MRC_NS_PER_S), UINT64_MAX);
	MRC_T_U64_EQ(mrc_tsc_to_ns(UINT64_MAX, HZ_3G), UINT64_MAX / 3);
	return MRC_TEST_OK;
}

/* Results beyond 64 bits saturate to "never" instead of wrapping small. */
static int
test_saturation(void)
{
	MRC_T_U64_EQ(mrc_ns_to_tsc(UINT64_MAX, HZ_3G), UINT64_MAX);
	MRC_T_U64_EQ(mrc_ns_to_tsc_round_up(UINT64_MAX, HZ_3G), UINT64_MAX);
	MRC_T_U64_EQ(mrc_us_to_tsc(UINT64_MAX / 1000, HZ_3G), UINT64_MAX);
	MRC_T_U64_EQ(mrc_us_to_tsc_round_up(UINT64_MAX, HZ_3G), UINT64_MAX);
	/* A 1 kHz "TSC": one cycle is a million ns. */
	MRC_T_U64_EQ(mrc_tsc_to_ns(UINT64_MAX, 1000), UINT64_MAX);
	MRC_T_U64_EQ(mrc_tsc_to_us(UINT64_MAX, 1000), UINT64_MAX);
	/* Just below the limit stays exact. */
	MRC_T_U64_EQ(mrc_ns_to_tsc(UINT64_MAX / 3, HZ_3G), UINT64_MAX / 3 * 3);
	return MRC_TEST_OK;
}

/*
 * Round trips lose at most one unit of the coarser side, in the direction
 * of the rounding, for values across the whole useful range.
 */
static int
test_round_trips(void)
{
	static const uint64_t hzs[] = {HZ_3G, HZ_2G5, HZ_ODD, UINT64_C(1000000000),
		UINT64_C(156250000), UINT64_C(4700000001)};
	struct mrc_rand r;

	mrc_rand_seed(&r, 1);
	for (size_t h = 0; h < RTE_DIM(hzs); h++) {
		const uint64_t hz = hzs[h];

		for (int i = 0; i < 20000; i++) {
			/* Up to ~100 years of ns, biased to small values by a random shift. */
			const uint64_t ns =
				(mrc_rand_u64(&r) % (100 * YEAR_NS)) >> mrc_rand_bounded(&r, 58);
			const uint64_t tsc = mrc_ns_to_tsc(ns, hz);
			const uint64_t tsc_up = mrc_ns_to_tsc_round_up(ns, hz);
			const uint64_t back = mrc_tsc_to_ns(tsc, hz);
			const uint64_t back_up = mrc_tsc_to_ns(tsc_up, hz);

			MRC_T_ASSERT(tsc_up == tsc || tsc_up == tsc + 1,
				"ns %" PRIu64 " hz %" PRIu64, ns, hz);
			/* Rounded down twice: not above, and within one ns per cycle. */
			MRC_T_ASSERT(back <= ns && ns - back <= MRC_NS_PER_S / hz + 1,
				"ns %" PRIu64 " -> %" PRIu64 " -> %" PRIu64 " hz %" PRIu64, ns, tsc,
				back, hz);
			/* A deadline rounded up never converts back to earlier. */
			MRC_T_ASSERT(back_up >= ns, "ns %" PRIu64 " -> %" PRIu64 " -> %" PRIu64, ns,
				tsc_up, back_up);

			const uint64_t us = ns / 1000;
			const uint64_t us_back = mrc_tsc_to_us(mrc_us_to_tsc(us, hz), hz);

			MRC_T_ASSERT(us_back <= us && us - us_back <= 1, "us %" PRIu64, us);
			MRC_T_ASSERT(mrc_tsc_to_us(mrc_us_to_tsc_round_up(us, hz), hz) >= us,
				"us %" PRIu64, us);

			/* Cycles (< 2^60, no saturation) -> ns -> cycles: < 1 ns of cycles lost. */
			const uint64_t c = mrc_rand_u64(&r) >> (4 + mrc_rand_bounded(&r, 60));
			const uint64_t c_back = mrc_ns_to_tsc(mrc_tsc_to_ns(c, hz), hz);

			MRC_T_ASSERT(c_back <= c && c - c_back <= hz / MRC_NS_PER_S + 1,
				"tsc %" PRIu64 " -> %" PRIu64 " hz %" PRIu64, c, c_back, hz);
		}
	}
	return MRC_TEST_OK;
}

static const struct mrc_test_case cases[] = {
	MRC_TEST_CASE(test_exact_values),
	MRC_TEST_CASE(test_rounding),
	MRC_TEST_CASE(test_large_values_no_overflow),
	MRC_TEST_CASE(test_saturation),
	MRC_TEST_CASE(test_round_trips),
};

MRC_TEST_MAIN("common_time", cases)
