/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * bench_fill: the generator's fill and check of one message
 * (app/mrcd/gen/mrcd_fill.c, the code the daemon runs) on each path this
 * CPU has: one word at a time, four (AVX2), eight (AVX-512). The paths take
 * turns round after round so a shared machine's load falls on all of them
 * alike; each figure is the median round, per message, in thread CPU time.
 *
 *   bench_fill [--len B] [--rounds N]    prints one JSON line
 */

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mrcd_gen.h"

#define MSGS	   64 /* messages a round, per path and operation */
#define MAX_ROUNDS 1000

static const struct {
	int path;
	const char *name;
} paths[] = {
	{MRCD_FILL_SCALAR, "scalar"},
	{MRCD_FILL_AVX2, "avx2"},
	{MRCD_FILL_AVX512, "avx512"},
};

static double
cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int
cmp_double(const void *a, const void *b)
{
	const double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double
median(double *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int
parse_u32(const char *opt, const char *s, uint32_t min, uint32_t max, uint32_t *out)
{
	char *end;
	unsigned long v = strtoul(s, &end, 0);

	if (*s == '\0' || *end != '\0' || v < min || v > max) {
		fprintf(stderr, "bench_fill: %s %s: must be %u..%u\n", opt, s, min, max);
		return -1;
	}
	*out = (uint32_t)v;
	return 0;
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"len", required_argument, NULL, 'l'},
		{"rounds", required_argument, NULL, 'r'},
		{NULL, 0, NULL, 0},
	};
	static double fill_ns[RTE_DIM(paths)][MAX_ROUNDS], check_ns[RTE_DIM(paths)][MAX_ROUNDS];
	uint32_t len = 256 * 1024, rounds = 31;
	bool have[RTE_DIM(paths)];
	double fill_med[RTE_DIM(paths)], check_med[RTE_DIM(paths)];
	unsigned int bad = 0;
	uint8_t *buf;
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 'l' && parse_u32("--len", optarg, 1, 1u << 30, &len) == 0)
			continue;
		if (c == 'r' && parse_u32("--rounds", optarg, 1, MAX_ROUNDS, &rounds) == 0)
			continue;
		fprintf(stderr, "usage: bench_fill [--len B] [--rounds N]\n");
		return 2;
	}
	buf = aligned_alloc(64, (len + 63) / 64 * 64);
	if (buf == NULL) {
		fprintf(stderr, "bench_fill: no memory for %u B\n", len);
		return 1;
	}
	for (size_t p = 0; p < RTE_DIM(paths); p++)
		have[p] = mrcd_gen_fill_set_path(paths[p].path) == 0;
	for (uint32_t r = 0; r < rounds; r++)
		for (size_t p = 0; p < RTE_DIM(paths); p++) {
			double t0, t1, t2;

			if (!have[p])
				continue;
			mrcd_gen_fill_set_path(paths[p].path);
			t0 = cpu_ns();
			for (uint32_t m = 0; m < MSGS; m++)
				mrcd_gen_fill(buf, len, 7, r * MSGS + m);
			t1 = cpu_ns();
			for (uint32_t m = 0; m < MSGS; m++)
				bad += !mrcd_gen_check(buf, len, 7, r * MSGS + MSGS - 1);
			t2 = cpu_ns();
			fill_ns[p][r] = (t1 - t0) / MSGS;
			check_ns[p][r] = (t2 - t1) / MSGS;
		}
	printf("{\"len\": %u, \"rounds\": %u, \"msgs_per_round\": %u, \"check_failures\": %u", len,
		rounds, MSGS, bad);
	for (size_t p = 0; p < RTE_DIM(paths); p++) {
		if (!have[p]) {
			printf(", \"%s\": null", paths[p].name);
			continue;
		}
		fill_med[p] = median(fill_ns[p], rounds);
		check_med[p] = median(check_ns[p], rounds);
		printf(", \"%s\": {\"fill_ns\": %.0f, \"check_ns\": %.0f, \"fill_x_scalar\": %.2f, "
		       "\"check_x_scalar\": %.2f}",
			paths[p].name, fill_med[p], check_med[p], fill_med[0] / fill_med[p],
			check_med[0] / check_med[p]);
	}
	printf("}\n");
	free(buf);
	return bad != 0;
}
