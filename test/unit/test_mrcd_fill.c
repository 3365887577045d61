/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * The generator's message contents (app/mrcd/gen/mrcd_fill.c): each path
 * (one word, four with AVX2, eight with AVX-512) writes the words as the
 * generator defines them, for every length and alignment, and its check
 * finds any byte out of place, in the vector part or the tail. A path this
 * CPU lacks is skipped (the test says so); the knob refuses it.
 */

#include <stdio.h>
#include <stdlib.h>

#include "mrc_test.h"
#include "mrcd_gen.h"

#define MAXLEN 2048u

static uint8_t buf[MAXLEN + 64], ref[MAXLEN + 64];

/* The word as the generator defined it before it was split in base and mix. */
static uint64_t
word_as_defined(uint32_t flow, uint64_t seq, uint64_t j)
{
	uint64_t x = ((uint64_t)flow << 48) ^ (seq << 24) ^ j ^
		     ((uint64_t)(flow >> 16) * 0xd6e8feb86659fd93ull);

	x ^= x >> 31;
	x *= 0x9e3779b97f4a7c15ull;
	return x ^ (x >> 29);
}

/* Message bytes as one word after another, the last one cut at len. */
static void
fill_ref(uint8_t *p, uint32_t len, uint32_t flow, uint64_t seq)
{
	for (uint32_t j = 0; j < len; j += 8) {
		const uint64_t w = word_as_defined(flow, seq, j / 8);

		memcpy(p + j, &w, RTE_MIN(8u, len - j));
	}
}

static int
test_word_unchanged(void)
{
	static const uint32_t flows[] = {0, 1, 65535, 65536, 0xfffffffful};

	for (size_t f = 0; f < RTE_DIM(flows); f++)
		for (uint64_t seq = 0; seq < 1u << 20; seq = seq * 3 + 1)
			for (uint64_t j = 0; j < 4096; j += 511)
				MRC_T_U64_EQ(mrcd_gen_word(flows[f], seq, j),
					word_as_defined(flows[f], seq, j));
	return MRC_TEST_OK;
}

/* One path: every length to 2 KiB at 8 alignments, and a byte changed anywhere. */
static int
one_path(int wide)
{
	for (uint32_t off = 0; off < 8; off++)
		for (uint32_t len = 0; len <= MAXLEN; len += (len < 200 ? 1 : 61)) {
			const uint32_t flow = 70000 + len, seq = 5 + off;

			memset(buf, 0xa5, sizeof(buf));
			memset(ref, 0xa5, sizeof(ref));
			fill_ref(ref + off, len, flow, seq);
			mrcd_gen_fill(buf + off, len, flow, seq);
			if (memcmp(buf, ref, sizeof(buf)) != 0)
				MRC_T_FAIL("wide %d len %u off %u: fill differs", wide, len, off);
			MRC_T_ASSERT(mrcd_gen_check(buf + off, len, flow, seq), "wide %d len %u",
				wide, len);
			if (len == 0)
				continue;
			MRC_T_ASSERT(!mrcd_gen_check(buf + off, len, flow, seq + 1) || len < 4,
				"wide %d len %u: another message passes", wide, len);
			for (uint32_t b = 0; b < len; b += (len < 130 ? 1 : 37)) {
				buf[off + b] ^= 0x10;
				MRC_T_ASSERT(!mrcd_gen_check(buf + off, len, flow, seq),
					"wide %d len %u: byte %u changed, check passed", wide, len,
					b);
				buf[off + b] ^= 0x10;
			}
			/* the last byte: in the tail, or a vector's last word */
			buf[off + len - 1] ^= 1;
			MRC_T_ASSERT(!mrcd_gen_check(buf + off, len, flow, seq), "wide %d len %u",
				wide, len);
		}
	return MRC_TEST_OK;
}

/* Force `path`; skip when this CPU lacks it. */
static int
test_path(int path, const char *name)
{
	int rc;

	if (mrcd_gen_fill_set_path(path) != 0) {
		printf("  %s: this CPU (or OS) lacks it, skipped\n", name);
		return MRC_TEST_SKIP;
	}
	rc = one_path(path);
	mrcd_gen_fill_set_path(MRCD_FILL_AUTO);
	return rc;
}

static int
test_one_word(void)
{
	return test_path(MRCD_FILL_SCALAR, "one word");
}

static int
test_four_words(void)
{
	return test_path(MRCD_FILL_AVX2, "AVX2");
}

static int
test_eight_words(void)
{
	return test_path(MRCD_FILL_AVX512, "AVX-512");
}

/* A value that names no path is refused and leaves the choice as it was. */
static int
test_knob_refuses(void)
{
	static const int bad[] = {-2, 3, 4, 8, 0x7fffffff};

	MRC_T_EQ(mrcd_gen_fill_set_path(MRCD_FILL_SCALAR), 0);
	for (size_t i = 0; i < RTE_DIM(bad); i++)
		MRC_T_EQ(mrcd_gen_fill_set_path(bad[i]), -1);
	fill_ref(ref, 100, 3, 4);
	mrcd_gen_fill(buf, 100, 3, 4);
	MRC_T_ASSERT(memcmp(buf, ref, 100) == 0, "fill after a refused path");
	MRC_T_EQ(mrcd_gen_fill_set_path(MRCD_FILL_AUTO), 0);
	return MRC_TEST_OK;
}

static const struct mrc_test_case cases[] = {
	MRC_TEST_CASE(test_word_unchanged),
	MRC_TEST_CASE(test_one_word),
	MRC_TEST_CASE(test_four_words),
	MRC_TEST_CASE(test_eight_words),
	MRC_TEST_CASE(test_knob_refuses),
};

MRC_TEST_MAIN("mrcd_fill", cases)
