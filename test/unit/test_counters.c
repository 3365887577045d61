/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/* X-macro counter blocks: layout, descriptors, access by index, summing. */

#include <stdalign.h>
#include <stdint.h>

#include <rte_common.h>

#include "mrc_counters.h"
#include "mrc_test.h"

#define TEST_RX_COUNTERS(X)                                      \
	X(rx_pkts, "pkts", "packets received")                   \
	X(rx_bytes, "bytes", "bytes received, headers included") \
	X(drop_short, "pkts", "packets shorter than their headers")

MRC_COUNTER_BLOCK_DECLARE(test_rx_counters, TEST_RX_COUNTERS);
MRC_COUNTER_BLOCK_DEFINE(test_rx_counters, TEST_RX_COUNTERS);

/* Exactly one cache line of counters, and one more than that. */
#define TEST_EIGHT(X)       \
	X(c0, "pkts", "h0") \
	X(c1, "pkts", "h1") \
	X(c2, "pkts", "h2") \
	X(c3, "pkts", "h3") \
	X(c4, "pkts", "h4") \
	X(c5, "pkts", "h5") \
	X(c6, "pkts", "h6") \
	X(c7, "pkts", "h7")
#define TEST_NINE(X) TEST_EIGHT(X) X(c8, "events", "h8")

MRC_COUNTER_BLOCK_DECLARE(test_eight, TEST_EIGHT);
MRC_COUNTER_BLOCK_DEFINE(test_eight, TEST_EIGHT);
MRC_COUNTER_BLOCK_DECLARE(test_nine, TEST_NINE);
MRC_COUNTER_BLOCK_DEFINE(test_nine, TEST_NINE);

static int
test_layout(void)
{
	MRC_T_EQ(test_rx_counters_count, 3);
	MRC_T_EQ(test_eight_count, 8);
	MRC_T_EQ(test_nine_count, 9);
	MRC_T_EQ(sizeof(struct test_rx_counters), RTE_CACHE_LINE_SIZE);
	MRC_T_EQ(sizeof(struct test_eight), RTE_CACHE_LINE_SIZE);
	MRC_T_EQ(sizeof(struct test_nine), 2 * RTE_CACHE_LINE_SIZE);
	MRC_T_EQ(alignof(struct test_rx_counters), RTE_CACHE_LINE_SIZE);

	/* Per-lcore blocks in an array never share a cache line. */
	static struct test_rx_counters per_lcore[4];

	for (int i = 0; i < 4; i++)
		MRC_T_EQ((uintptr_t)&per_lcore[i] % RTE_CACHE_LINE_SIZE, 0);
	MRC_T_EQ((uintptr_t)&per_lcore[1] - (uintptr_t)&per_lcore[0], RTE_CACHE_LINE_SIZE);

	/* Fields in list order, so index i is field i. */
	MRC_T_EQ(MRC_COUNTER_INDEX(test_rx_counters, rx_pkts), 0);
	MRC_T_EQ(MRC_COUNTER_INDEX(test_rx_counters, rx_bytes), 1);
	MRC_T_EQ(MRC_COUNTER_INDEX(test_rx_counters, drop_short), 2);
	MRC_T_EQ(MRC_COUNTER_INDEX(test_nine, c8), 8);
	return MRC_TEST_OK;
}

static int
test_descriptors(void)
{
	MRC_T_EQ(RTE_DIM(test_rx_counters_desc), test_rx_counters_count);
	MRC_T_STREQ(test_rx_counters_desc[0].name, "rx_pkts");
	MRC_T_STREQ(test_rx_counters_desc[0].unit, "pkts");
	MRC_T_STREQ(test_rx_counters_desc[0].help, "packets received");
	MRC_T_STREQ(test_rx_counters_desc[1].name, "rx_bytes");
	MRC_T_STREQ(test_rx_counters_desc[1].unit, "bytes");
	MRC_T_STREQ(test_rx_counters_desc[1].help, "bytes received, headers included");
	MRC_T_STREQ(test_rx_counters_desc[2].name, "drop_short");
	MRC_T_STREQ(test_rx_counters_desc[2].unit, "pkts");
	MRC_T_STREQ(test_rx_counters_desc[2].help, "packets shorter than their headers");
	MRC_T_STREQ(test_rx_counters_desc[MRC_COUNTER_INDEX(test_rx_counters, drop_short)].name,
		"drop_short");
	MRC_T_EQ(RTE_DIM(test_nine_desc), 9);
	MRC_T_STREQ(test_nine_desc[8].name, "c8");
	MRC_T_STREQ(test_nine_desc[8].unit, "events");
	MRC_T_STREQ(test_nine_desc[7].help, "h7");
	return MRC_TEST_OK;
}

static int
test_get_by_index(void)
{
	struct test_rx_counters c = {.rx_pkts = 11, .rx_bytes = 22000, .drop_short = 3};
	struct test_nine n = {.c0 = 1, .c7 = 77, .c8 = 88};

	MRC_T_U64_EQ(test_rx_counters_get(&c, 0), 11);
	MRC_T_U64_EQ(test_rx_counters_get(&c, 1), 22000);
	MRC_T_U64_EQ(test_rx_counters_get(&c, 2), 3);
	/* Out of range reads nothing (the padding stays unread). */
	MRC_T_U64_EQ(test_rx_counters_get(&c, 3), 0);
	MRC_T_U64_EQ(test_rx_counters_get(&c, UINT32_MAX), 0);
	MRC_T_U64_EQ(test_nine_get(&n, 7), 77);
	MRC_T_U64_EQ(test_nine_get(&n, 8), 88);
	MRC_T_U64_EQ(test_nine_get(&n, 9), 0);

	/* The same through the untyped core, as telemetry walks a block. */
	MRC_T_U64_EQ(mrc_counters_get((const uint64_t *)&c, test_rx_counters_count,
			     MRC_COUNTER_INDEX(test_rx_counters, rx_bytes)),
		22000);
	return MRC_TEST_OK;
}

/* Readers sum every lcore's block; idle lcores (NULL) are skipped. */
static int
test_sum_across_blocks(void)
{
	static struct test_rx_counters per_lcore[4];
	const struct test_rx_counters *blks[5];
	struct test_rx_counters total;

	/* Writers: each lcore increments only its own block. */
	for (unsigned int l = 0; l < 4; l++) {
		for (unsigned int k = 0; k <= l; k++) {
			per_lcore[l].rx_pkts++;
			per_lcore[l].rx_bytes += 1000 + l;
		}
		per_lcore[l].drop_short = l * 10;
	}
	blks[0] = &per_lcore[0];
	blks[1] = NULL; /* an lcore without a block */
	blks[2] = &per_lcore[1];
	blks[3] = &per_lcore[2];
	blks[4] = &per_lcore[3];

	/* The sum starts from zero whatever was in the output before. */
	memset(&total, 0xa5, sizeof(total));
	test_rx_counters_sum(&total, blks, 5);
	MRC_T_U64_EQ(total.rx_pkts, 1 + 2 + 3 + 4);
	MRC_T_U64_EQ(total.rx_bytes, 1000 * 1 + 1001 * 2 + 1002 * 3 + 1003 * 4);
	MRC_T_U64_EQ(total.drop_short, 0 + 10 + 20 + 30);

	/* Summing a prefix only. */
	test_rx_counters_sum(&total, blks, 3);
	MRC_T_U64_EQ(total.rx_pkts, 1 + 2);
	MRC_T_U64_EQ(total.drop_short, 10);

	/* No blocks: all zero. */
	test_rx_counters_sum(&total, blks, 0);
	for (unsigned int i = 0; i < test_rx_counters_count; i++)
		MRC_T_U64_EQ(test_rx_counters_get(&total, i), 0);

	/* add() accumulates, and does not touch the source. */
	test_rx_counters_sum(&total, blks, 1);
	test_rx_counters_add(&total, &per_lcore[3]);
	MRC_T_U64_EQ(total.rx_pkts, 1 + 4);
	MRC_T_U64_EQ(per_lcore[3].rx_pkts, 4);

	/* Large values do not get truncated anywhere. */
	struct test_nine a = {.c8 = UINT64_C(1) << 62}, b = {.c8 = UINT64_C(1) << 62};
	const struct test_nine *nb[] = {&a, &b};
	struct test_nine s;

	test_nine_sum(&s, nb, 2);
	MRC_T_U64_EQ(s.c8, UINT64_C(1) << 63);
	MRC_T_U64_EQ(s.c0, 0);
	return MRC_TEST_OK;
}

static const struct mrc_test_case cases[] = {
	MRC_TEST_CASE(test_layout),
	MRC_TEST_CASE(test_descriptors),
	MRC_TEST_CASE(test_get_by_index),
	MRC_TEST_CASE(test_sum_across_blocks),
};

MRC_TEST_MAIN("common_counters", cases)
