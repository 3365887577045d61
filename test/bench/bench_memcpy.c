/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * bench_memcpy: the reference for the datapath byte rate
 * (scripts/bench/bench-rate.sh). One core copies `--bytes` in `--chunk`-byte
 * pieces (the MRC payload per packet) from one `--region`-byte buffer to
 * another, walking both as a receiver places packets into a message
 * buffer. The rate divides by the thread's CPU time, as mrcd's per-core
 * figures do, so a shared machine's preemption is not counted.
 *
 *   bench_memcpy [--bytes N] [--chunk B] [--region B]    prints one JSON line
 */

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double
cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int
parse_u64(const char *opt, const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 0);

	if (*s == '\0' || *end != '\0' || v < min || v > max) {
		fprintf(stderr, "bench_memcpy: %s %s: must be %llu..%llu\n", opt, s,
			(unsigned long long)min, (unsigned long long)max);
		return -1;
	}
	*out = v;
	return 0;
}

int
main(int argc, char **argv)
{
	static const struct option lo[] = {{"bytes", 1, NULL, 'b'}, {"chunk", 1, NULL, 'c'},
		{"region", 1, NULL, 'r'}, {"help", 0, NULL, 'h'}, {NULL, 0, NULL, 0}};
	uint64_t bytes = 8ull << 30, chunk = 4096, region = 8u << 20;
	int c;

	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		int rc = 0;

		switch (c) {
		case 'b':
			rc = parse_u64("--bytes", optarg, 1, 1ull << 40, &bytes);
			break;
		case 'c':
			rc = parse_u64("--chunk", optarg, 1, 1u << 20, &chunk);
			break;
		case 'r':
			rc = parse_u64("--region", optarg, 1, 1ull << 32, &region);
			break;
		default:
			printf("usage: %s [--bytes N] [--chunk B] [--region B]\n", argv[0]);
			return c == 'h' ? 0 : 2;
		}
		if (rc != 0)
			return 2;
	}
	if (region < chunk) {
		fprintf(stderr, "bench_memcpy: --region %llu must hold one --chunk (%llu)\n",
			(unsigned long long)region, (unsigned long long)chunk);
		return 2;
	}
	uint8_t *src = aligned_alloc(64, (region + 63) / 64 * 64);
	uint8_t *dst = aligned_alloc(64, (region + 63) / 64 * 64);

	if (src == NULL || dst == NULL) {
		fprintf(stderr, "bench_memcpy: out of memory for 2 x %llu bytes\n",
			(unsigned long long)region);
		return 1;
	}
	memset(src, 0x5a, region);
	memset(dst, 0, region); /* fault every page in before timing */
	const uint64_t per = region / chunk;
	uint64_t done = 0, i = 0;
	double t0 = cpu_s();

	while (done < bytes) {
		const uint64_t off = (i++ % per) * chunk;

		memcpy(dst + off, src + off, chunk);
		/* Keep the copy: the compiler may not drop what a later read depends on. */
		__asm__ volatile("" : : "r"(dst) : "memory");
		done += chunk;
	}
	double dt = cpu_s() - t0;

	printf("{\"bench\": \"memcpy\", \"bytes\": %llu, \"chunk\": %llu, \"region\": %llu, "
	       "\"cpu_s\": %.6f, \"gbps\": %.3f}\n",
		(unsigned long long)done, (unsigned long long)chunk, (unsigned long long)region, dt,
		done * 8 / dt / 1e9);
	free(src);
	free(dst);
	return 0;
}
