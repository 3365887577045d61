/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRC_TEST_H
#define MRC_TEST_H

/*
 * A deliberately small test harness in the spirit of DPDK's app/test/test.h:
 * a test binary is a table of cases; a case returns MRC_TEST_OK, or fails
 * through one of the MRC_T_* macros, which print where and what differed.
 * The runner prints one line per case and ends with "N passed, N failed"
 * (plus ", N skipped") so humans and CI read the same summary.
 * Exit status: 0 all passed, 1 any failed, 77 (meson's skip) when every case
 * skipped.
 */

#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define MRC_TEST_OK   0
#define MRC_TEST_FAIL -1
#define MRC_TEST_SKIP 77

#define MRC_T_FAIL(...)                                                \
	do {                                                           \
		fprintf(stderr, "  FAIL %s:%d: ", __FILE__, __LINE__); \
		fprintf(stderr, __VA_ARGS__);                          \
		fputc('\n', stderr);                                   \
		return MRC_TEST_FAIL;                                  \
	} while (0)

#define MRC_T_ASSERT(cond, ...)                                                               \
	do {                                                                                  \
		if (!(cond)) {                                                                \
			fprintf(stderr, "  FAIL %s:%d: assertion '%s': ", __FILE__, __LINE__, \
				#cond);                                                       \
			fprintf(stderr, __VA_ARGS__);                                         \
			fputc('\n', stderr);                                                  \
			return MRC_TEST_FAIL;                                                 \
		}                                                                             \
	} while (0)

/* Integer equality; both sides are widened so signed/unsigned mixes print right. */
#define MRC_T_EQ(a, b)                                                                      \
	do {                                                                                \
		const long long mrc_t_a_ = (long long)(a);                                  \
		const long long mrc_t_b_ = (long long)(b);                                  \
		if (mrc_t_a_ != mrc_t_b_) {                                                 \
			fprintf(stderr,                                                     \
				"  FAIL %s:%d: %s == %s: %lld (0x%llx) != %lld (0x%llx)\n", \
				__FILE__, __LINE__, #a, #b, mrc_t_a_,                       \
				(unsigned long long)mrc_t_a_, mrc_t_b_,                     \
				(unsigned long long)mrc_t_b_);                              \
			return MRC_TEST_FAIL;                                               \
		}                                                                           \
	} while (0)

#define MRC_T_U64_EQ(a, b)                                                                  \
	do {                                                                                \
		const unsigned long long mrc_t_a_ = (unsigned long long)(a);                \
		const unsigned long long mrc_t_b_ = (unsigned long long)(b);                \
		if (mrc_t_a_ != mrc_t_b_) {                                                 \
			fprintf(stderr,                                                     \
				"  FAIL %s:%d: %s == %s: %llu (0x%llx) != %llu (0x%llx)\n", \
				__FILE__, __LINE__, #a, #b, mrc_t_a_, mrc_t_a_, mrc_t_b_,   \
				mrc_t_b_);                                                  \
			return MRC_TEST_FAIL;                                               \
		}                                                                           \
	} while (0)

#define MRC_T_STREQ(a, b)                                                                    \
	do {                                                                                 \
		const char *mrc_t_a_ = (a), *mrc_t_b_ = (b);                                 \
		if (strcmp(mrc_t_a_, mrc_t_b_) != 0) {                                       \
			fprintf(stderr,                                                      \
				"  FAIL %s:%d: %s == %s:\n    got:  '%s'\n    want: '%s'\n", \
				__FILE__, __LINE__, #a, #b, mrc_t_a_, mrc_t_b_);             \
			return MRC_TEST_FAIL;                                                \
		}                                                                            \
	} while (0)

#define MRC_T_MEMEQ(a, b, n)                                                                   \
	do {                                                                                   \
		const size_t mrc_t_off_ = mrc_test_memdiff((a), (b), (n));                     \
		if (mrc_t_off_ != (size_t)-1) {                                                \
			fprintf(stderr, "  FAIL %s:%d: %s and %s differ at byte %zu of %zu\n", \
				__FILE__, __LINE__, #a, #b, mrc_t_off_, (size_t)(n));          \
			return MRC_TEST_FAIL;                                                  \
		}                                                                              \
	} while (0)

/* Run a sub-check that returns MRC_TEST_*, propagating its failure. */
#define MRC_T_RUN(expr)                       \
	do {                                  \
		int mrc_t_rc_ = (expr);       \
		if (mrc_t_rc_ != MRC_TEST_OK) \
			return mrc_t_rc_;     \
	} while (0)

struct mrc_test_case {
	const char *name;
	int (*fn)(void);
};

#define MRC_TEST_CASE(f) \
	{                \
#f, f    \
	}

/* Offset of the first differing byte, or (size_t)-1 when equal. */
size_t mrc_test_memdiff(const void *a, const void *b, size_t n);

/* Hex dump for failure diagnostics. */
void mrc_test_hexdump(FILE *f, const char *title, const void *buf, size_t len);

/*
 * Run the cases whose name contains argv[1] (all when absent). Returns the
 * process exit status.
 */
int mrc_test_main(const char *suite, const struct mrc_test_case *cases, size_t n_cases, int argc,
	char **argv);

#define MRC_TEST_MAIN(suite, cases)                                                               \
	int main(int argc, char **argv)                                                           \
	{                                                                                         \
		return mrc_test_main(suite, cases, sizeof(cases) / sizeof(cases[0]), argc, argv); \
	}

#endif /* MRC_TEST_H */
