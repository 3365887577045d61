/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * bench_memlat: how long one core waits for a load from a region of each
 * size, the machine fact behind the scale figures (doc/architecture.md,
 * "Many flows on one worker"). A pointer chase through every cache line
 * of the region in a random order: each load's address is the one before's
 * value, so nothing overlaps and the time per load is the latency of
 * wherever the line is (L1, L2, the last-level cache, memory). On 2 MiB
 * hugepages when some are free (--no-huge: 4 KiB pages), as mrcd's state
 * is. A figure, not a test: where the latency jumps is the caches' size
 * one core gets on this machine, whatever lscpu says.
 *
 *   bench_memlat [--mb LIST] [--loads N] [--no-huge]   prints one JSON line
 *     LIST: region sizes in MiB, comma-separated (default 1,2,4,8,16,32,64,128,256)
 */

#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define MAX_SIZES 32
#define LINE	  64u

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* xorshift64*: the order only needs to defeat the hardware prefetchers. */
static uint64_t
next_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ull;
}

/* ns per dependent load through `bytes` of memory, or < 0 if it cannot be mapped. */
static double
chase(size_t bytes, uint64_t loads, bool huge, bool *got_huge)
{
	const size_t lines = bytes / LINE;
	uint32_t *order;
	char *mem = MAP_FAILED;
	uint64_t seed = 0x9e3779b97f4a7c15ull;

	if (huge)
		mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	*got_huge = mem != MAP_FAILED;
	if (mem == MAP_FAILED)
		mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return -1;
	order = malloc(lines * sizeof(*order));
	if (order == NULL) {
		munmap(mem, bytes);
		return -1;
	}
	for (size_t i = 0; i < lines; i++)
		order[i] = (uint32_t)i;
	for (size_t i = lines - 1; i > 0; i--) { /* Fisher-Yates */
		const size_t j = next_rand(&seed) % (i + 1);
		const uint32_t t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	/* One cycle through every line: line order[i] holds the address of order[i + 1]. */
	for (size_t i = 0; i < lines; i++)
		*(char **)(mem + (size_t)order[i] * LINE) =
			mem + (size_t)order[(i + 1) % lines] * LINE;
	free(order);

	char *p = mem;

	for (size_t i = 0; i < lines; i++) /* warm: every page mapped, caches as in use */
		p = *(char **)p;

	const double t0 = now_s();

	for (uint64_t i = 0; i < loads; i++)
		p = *(char **)p;

	const double ns = (now_s() - t0) * 1e9 / (double)loads;

	/* Keep the chase: the compiler may not drop loads whose result is used. */
	if (p == NULL)
		fprintf(stderr, "bench_memlat: impossible\n");
	munmap(mem, bytes);
	return ns;
}

static int
parse_sizes(const char *s, unsigned int *mb, unsigned int *n)
{
	char *copy = strdup(s), *save = NULL;

	*n = 0;
	if (copy == NULL)
		return -ENOMEM;
	for (char *tok = strtok_r(copy, ",", &save); tok != NULL;
		tok = strtok_r(NULL, ",", &save)) {
		char *end;
		const unsigned long v = strtoul(tok, &end, 10);

		if (*tok == '\0' || *end != '\0' || v == 0 || v > 65536 || *n == MAX_SIZES) {
			fprintf(stderr,
				"bench_memlat: --mb %s: sizes are 1..65536 MiB, at most %u\n", s,
				MAX_SIZES);
			free(copy);
			return -EINVAL;
		}
		mb[(*n)++] = (unsigned int)v;
	}
	free(copy);
	return *n > 0 ? 0 : -EINVAL;
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {{"mb", required_argument, NULL, 'm'},
		{"loads", required_argument, NULL, 'l'}, {"no-huge", no_argument, NULL, 'n'},
		{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
	unsigned int mb[MAX_SIZES], n_mb = 0;
	uint64_t loads = 20000000;
	bool huge = true;
	int c;

	if (parse_sizes("1,2,4,8,16,32,64,128,256", mb, &n_mb) != 0)
		return 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'm':
			if (parse_sizes(optarg, mb, &n_mb) != 0)
				return 2;
			break;
		case 'l': {
			char *end;

			loads = strtoull(optarg, &end, 10);
			if (*optarg == '\0' || *end != '\0' || loads < 1000 ||
				loads > 1000000000ull) {
				fprintf(stderr,
					"bench_memlat: --loads %s: must be 1000..1000000000\n",
					optarg);
				return 2;
			}
			break;
		}
		case 'n':
			huge = false;
			break;
		case 'h':
			printf("usage: bench_memlat [--mb LIST] [--loads N] [--no-huge]\n"
			       "  load latency (ns) of a random pointer chase through regions of\n"
			       "  LIST MiB (default 1,2,4,8,16,32,64,128,256); one JSON line\n");
			return 0;
		default:
			return 2;
		}
	}
	printf("{\"bench\": \"memlat\", \"loads\": %llu, \"regions\": [",
		(unsigned long long)loads);
	for (unsigned int i = 0; i < n_mb; i++) {
		bool got_huge;
		const double ns = chase((size_t)mb[i] << 20, loads, huge, &got_huge);

		if (ns < 0) {
			fprintf(stderr, "bench_memlat: %u MiB: cannot map it\n", mb[i]);
			return 1;
		}
		printf("%s{\"mib\": %u, \"ns_per_load\": %.1f, \"hugepages\": %s}", i ? ", " : "",
			mb[i], ns, got_huge ? "true" : "false");
		fflush(stdout);
	}
	printf("]}\n");
	return 0;
}
