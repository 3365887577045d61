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
 * With --chains, K chases run side by side from K points of the same cycle:
 * their loads are independent, so the core overlaps them, and the time per
 * load falls until the misses one core can have in flight are all in use.
 * Latency over that floor is how many misses the core overlaps (Little's
 * law): the most any prefetching can get from it, and so the least time a
 * message that needs M lines from memory can take (M x floor).
 *
 *   bench_memlat [--mb LIST] [--chains LIST] [--loads N] [--no-huge]
 *     prints one JSON line
 *     --mb: region sizes in MiB, comma-separated (default 1,2,4,8,16,32,64,128,256)
 *     --chains: chases side by side, comma-separated, each 1..32 (default 1)
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

#define MAX_SIZES  32
#define MAX_CHAINS 32
#define LINE	   64u

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

/*
 * ns per load through `bytes` of memory, `chains` chases side by side
 * (each load depends on the one before in its own chase), each ns[] entry
 * for chains[] at the same index; false if the region cannot be mapped.
 */
static bool
chase(size_t bytes, uint64_t loads, bool huge, const unsigned int *chains, unsigned int n_chains,
	double *ns, bool *got_huge)
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
		return false;
	order = malloc(lines * sizeof(*order));
	if (order == NULL) {
		munmap(mem, bytes);
		return false;
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
	char *p[MAX_CHAINS];

	p[0] = mem + (size_t)order[0] * LINE;
	for (size_t i = 0; i < lines; i++) /* warm: every page mapped, caches as in use */
		p[0] = *(char **)p[0];
	for (unsigned int c = 0; c < n_chains; c++) {
		const unsigned int k = chains[c];
		const uint64_t rounds = loads / k;

		/* Chase j starts j/k of the way round the cycle: no two meet. */
		for (unsigned int j = 0; j < k; j++)
			p[j] = mem + (size_t)order[(size_t)j * lines / k] * LINE;

		const double t0 = now_s();

		for (uint64_t i = 0; i < rounds; i++)
			for (unsigned int j = 0; j < k; j++)
				p[j] = *(char **)p[j];
		ns[c] = (now_s() - t0) * 1e9 / (double)(rounds * k);
		/* Keep the chases: the compiler may not drop loads whose result is used. */
		for (unsigned int j = 0; j < k; j++)
			if (p[j] == NULL)
				fprintf(stderr, "bench_memlat: impossible\n");
	}
	free(order);
	munmap(mem, bytes);
	return true;
}

/* A comma-separated list of 1..max, at most `most` of them; the option names it in errors. */
static int
parse_list(const char *opt, const char *s, unsigned long max, unsigned int most, unsigned int *v,
	unsigned int *n)
{
	char *copy = strdup(s), *save = NULL;

	*n = 0;
	if (copy == NULL)
		return -ENOMEM;
	for (char *tok = strtok_r(copy, ",", &save); tok != NULL;
		tok = strtok_r(NULL, ",", &save)) {
		char *end;
		const unsigned long x = strtoul(tok, &end, 10);

		if (*tok == '\0' || *end != '\0' || x == 0 || x > max || *n == most) {
			fprintf(stderr,
				"bench_memlat: %s %s: values are 1..%lu, at most %u of them\n", opt,
				s, max, most);
			free(copy);
			return -EINVAL;
		}
		v[(*n)++] = (unsigned int)x;
	}
	free(copy);
	if (*n == 0)
		fprintf(stderr, "bench_memlat: %s '%s': no value\n", opt, s);
	return *n > 0 ? 0 : -EINVAL;
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {{"mb", required_argument, NULL, 'm'},
		{"chains", required_argument, NULL, 'c'}, {"loads", required_argument, NULL, 'l'},
		{"no-huge", no_argument, NULL, 'n'}, {"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0}};
	unsigned int mb[MAX_SIZES], n_mb = 0, chains[MAX_CHAINS] = {1}, n_chains = 1;
	double ns[MAX_CHAINS];
	uint64_t loads = 20000000;
	bool huge = true;
	int c;

	if (parse_list("--mb", "1,2,4,8,16,32,64,128,256", 65536, MAX_SIZES, mb, &n_mb) != 0)
		return 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'm':
			if (parse_list("--mb", optarg, 65536, MAX_SIZES, mb, &n_mb) != 0)
				return 2;
			break;
		case 'c':
			if (parse_list("--chains", optarg, MAX_CHAINS, MAX_CHAINS, chains,
				    &n_chains) != 0)
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
			printf("usage: bench_memlat [--mb LIST] [--chains LIST] [--loads N] "
			       "[--no-huge]\n"
			       "  ns per load of a random pointer chase through regions of LIST "
			       "MiB\n"
			       "  (default 1,2,4,8,16,32,64,128,256), with --chains K chases side "
			       "by\n"
			       "  side (1..%u each, default 1): one JSON line\n",
				MAX_CHAINS);
			return 0;
		default:
			return 2;
		}
	}
	printf("{\"bench\": \"memlat\", \"loads\": %llu, \"regions\": [",
		(unsigned long long)loads);
	for (unsigned int i = 0; i < n_mb; i++) {
		bool got_huge;

		if (!chase((size_t)mb[i] << 20, loads, huge, chains, n_chains, ns, &got_huge)) {
			fprintf(stderr, "bench_memlat: %u MiB: cannot map it\n", mb[i]);
			return 1;
		}
		printf("%s{\"mib\": %u, \"hugepages\": %s, ", i ? ", " : "", mb[i],
			got_huge ? "true" : "false");
		if (n_chains == 1 && chains[0] == 1) {
			printf("\"ns_per_load\": %.1f}", ns[0]);
		} else {
			/* overlap: the latency (1 chain) over this time per load */
			printf("\"chains\": [");
			for (unsigned int k = 0; k < n_chains; k++)
				printf("%s{\"chains\": %u, \"ns_per_load\": %.2f}", k ? ", " : "",
					chains[k], ns[k]);
			printf("]}");
		}
		fflush(stdout);
	}
	printf("]}\n");
	return 0;
}
