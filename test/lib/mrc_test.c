/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#include <stdio.h>
#include <string.h>

#include "mrc_test.h"

size_t
mrc_test_memdiff(const void *a, const void *b, size_t n)
{
	const unsigned char *pa = a, *pb = b;

	for (size_t i = 0; i < n; i++)
		if (pa[i] != pb[i])
			return i;
	return (size_t)-1;
}

void
mrc_test_hexdump(FILE *f, const char *title, const void *buf, size_t len)
{
	const unsigned char *p = buf;

	fprintf(f, "  %s (%zu bytes):", title, len);
	for (size_t i = 0; i < len; i++)
		fprintf(f, "%s%02x", (i % 16) ? " " : "\n    ", p[i]);
	fputc('\n', f);
}

int
mrc_test_main(
	const char *suite, const struct mrc_test_case *cases, size_t n_cases, int argc, char **argv)
{
	const char *filter = argc > 1 ? argv[1] : NULL;
	unsigned int passed = 0, failed = 0, skipped = 0;

	printf("suite %s: %zu cases\n", suite, n_cases);
	for (size_t i = 0; i < n_cases; i++) {
		if (filter != NULL && strstr(cases[i].name, filter) == NULL)
			continue;
		fflush(stdout);
		int rc = cases[i].fn();
		fflush(stderr);
		if (rc == MRC_TEST_OK) {
			passed++;
			printf("  ok   %s\n", cases[i].name);
		} else if (rc == MRC_TEST_SKIP) {
			skipped++;
			printf("  skip %s\n", cases[i].name);
		} else {
			failed++;
			printf("  FAIL %s\n", cases[i].name);
		}
	}
	printf("%s: %u passed, %u failed, %u skipped\n", suite, passed, failed, skipped);
	if (failed > 0)
		return 1;
	if (passed == 0 && skipped > 0)
		return MRC_TEST_SKIP;
	return 0;
}
