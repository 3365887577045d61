/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * The receiver-stall tracker (app/mrcd/gen/mrcd_gaps.c): the kept gaps are the
 * longest ones, longest first, each with the time it ended, so "the longest
 * gap after T" is exact whenever a kept gap ended after T.
 */

#include <stdlib.h>

#include "mrc_test.h"
#include "mrcd_gaps.h"

static int
test_first_completion_is_no_gap(void)
{
	struct mrcd_gaps g = {0};

	mrcd_gaps_add(&g, 1000);
	MRC_T_EQ(g.n, 0);
	mrcd_gaps_add(&g, 1000); /* same poll: no wait */
	MRC_T_EQ(g.n, 0);
	mrcd_gaps_add(&g, 1500);
	MRC_T_EQ(g.n, 1);
	MRC_T_U64_EQ(g.len_tsc[0], 500);
	MRC_T_U64_EQ(g.end_tsc[0], 1500);
	return MRC_TEST_OK;
}

/* Against a brute force over a random sequence: the top MRCD_GAPS, in order. */
static int
test_keeps_the_longest(void)
{
	enum { N = 5000 };
	static uint64_t len[N], end[N];
	struct mrcd_gaps g = {0};
	uint64_t t = 1, x = 88172645463325252ull;

	mrcd_gaps_add(&g, t);
	for (int i = 0; i < N; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		len[i] = 1 + x % 100000;
		t += len[i];
		end[i] = t;
		mrcd_gaps_add(&g, t);
	}
	MRC_T_EQ(g.n, MRCD_GAPS);
	for (unsigned int k = 0; k < MRCD_GAPS; k++) {
		uint64_t best = 0;
		int at = -1;

		for (int i = 0; i < N; i++)
			if (len[i] > best) {
				best = len[i];
				at = i;
			}
		MRC_T_U64_EQ(g.len_tsc[k], best);
		MRC_T_U64_EQ(g.end_tsc[k], end[at]);
		len[at] = 0;
	}
	return MRC_TEST_OK;
}

/* A stall after many small gaps and a few earlier long ones is kept. */
static int
test_late_stall_survives_early_noise(void)
{
	struct mrcd_gaps g = {0};
	uint64_t t = 1;

	mrcd_gaps_add(&g, t);
	for (int i = 0; i < MRCD_GAPS - 1; i++)
		mrcd_gaps_add(&g, t += 9000); /* early long gaps */
	for (int i = 0; i < 10000; i++)
		mrcd_gaps_add(&g, t += 100);
	mrcd_gaps_add(&g, t += 5000); /* the stall: shorter than the early ones */
	for (int i = 0; i < 1000; i++)
		mrcd_gaps_add(&g, t += 100);
	MRC_T_EQ(g.n, MRCD_GAPS);
	MRC_T_U64_EQ(g.len_tsc[MRCD_GAPS - 1], 5000);
	MRC_T_U64_EQ(g.end_tsc[MRCD_GAPS - 1], t - 1000 * 100);
	return MRC_TEST_OK;
}

static const struct mrc_test_case cases[] = {
	MRC_TEST_CASE(test_first_completion_is_no_gap),
	MRC_TEST_CASE(test_keeps_the_longest),
	MRC_TEST_CASE(test_late_stall_survives_early_noise),
};

MRC_TEST_MAIN("mrcd_gaps", cases)
