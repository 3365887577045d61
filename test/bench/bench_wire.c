/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * bench_wire: what the codec costs per packet. A measurement, not a test:
 * it prints numbers and never fails on them.
 *
 *   bench_wire [--iters N] [--runs R] [--json FILE]   the table (median of R runs)
 *   bench_wire --op NAME --iters N                     one operation, quietly,
 *                                                      for callgrind (scripts/bench/bench-wire.sh)
 *
 * Packets are built the way a QP sends them: an empty header mbuf, the
 * payload attached as external memory (a registered region), and a trailer
 * for pad + ICRC. The ICRC dominates large packets, so a memcpy of the same
 * payload is timed in the same run as the reference.
 */

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_vect.h>

#include "mrc_icrc.h"
#include "mrc_test_mbuf.h"
#include "mrc_test_pkts.h"
#include "mrc_wire_pkt.h"

struct pkt_bufs {
	struct rte_mbuf *hdr, *pl, *trailer;
	struct rte_mbuf_ext_shared_info shinfo;
	uint8_t *region;
	uint32_t payload_len;
	struct mrc_test_sample s;
};

static void
ext_free(void *addr, void *opaque)
{
	(void)addr;
	(void)opaque;
}

static int
bufs_init(struct pkt_bufs *b, unsigned int sample, uint32_t payload_len)
{
	memset(b, 0, sizeof(*b));
	if (mrc_test_sample_get(sample, &b->s) != 0)
		return -1;
	b->payload_len = payload_len;
	b->region = aligned_alloc(64, RTE_ALIGN_CEIL(payload_len + 64, 64));
	for (uint32_t i = 0; i < payload_len; i++)
		b->region[i] = (uint8_t)i;
	b->hdr = mrc_test_mbuf_alloc(MRC_TEST_HEADROOM, 0);
	b->pl = mrc_test_mbuf_alloc(0, 0);
	b->trailer = mrc_test_mbuf_alloc(0, 16);
	rte_mbuf_ext_refcnt_set(&b->shinfo, 1);
	b->shinfo.free_cb = ext_free;
	rte_pktmbuf_attach_extbuf(b->pl, b->region, 0, (uint16_t)(payload_len + 64), &b->shinfo);
	return b->hdr && b->pl && b->trailer ? 0 : -1;
}

/* Undo the previous build: what a tx path gets back from a fresh mbuf. */
static inline void
bufs_reset(struct pkt_bufs *b)
{
	b->hdr->data_off = MRC_TEST_HEADROOM;
	b->hdr->data_len = 0;
	b->hdr->nb_segs = 1;
	b->hdr->next = NULL;
	b->hdr->pkt_len = 0;
	b->trailer->data_len = 0;
	b->trailer->pkt_len = 0;
	b->trailer->next = NULL;
	if (b->payload_len > 0) {
		b->pl->data_off = 0;
		b->pl->data_len = (uint16_t)b->payload_len;
		b->pl->pkt_len = b->payload_len;
		b->pl->nb_segs = 1;
		b->pl->next = NULL;
		b->hdr->next = b->pl;
		b->hdr->nb_segs = 2;
		b->hdr->pkt_len = b->payload_len;
	}
}

static volatile uint64_t sink;

struct op {
	const char *name;
	const char *what;
	unsigned int sample;
	uint32_t payload_len;
	int kind; /* 0 build, 1 parse, 2 parse w/o ICRC, 3 memcpy, 4 ICRC, 5 ICRC via table,
		   * 6 ICRC via 128-bit PCLMULQDQ, 7 build leaving the outer header to the NIC */
};

static const struct op ops[] = {
	{"build-data-64", "build WRITE_FIRST, SRv6, 64 B payload", 0, 64, 0},
	{"parse-data-64", "parse + ICRC check, same packet", 0, 64, 1},
	{"build-data-4k", "build WRITE_FIRST, SRv6, 4096 B payload", 0, 4096, 0},
	{"parse-data-4k", "parse + ICRC check, same packet", 0, 4096, 1},
	{"parse-data-4k-noicrc", "parse, ICRC left to the NIC", 0, 4096, 2},
	{"build-data-64-nicenc", "the same, outer IPv6 left to the NIC (doc/offload.md)", 0, 64, 7},
	{"build-sack", "build SACK, SRv6", 8, 0, 0},
	{"build-sack-nicenc", "the same, outer IPv6 left to the NIC", 8, 0, 7},
	{"parse-sack", "parse + ICRC check, SACK", 8, 0, 1},
	{"icrc-4k", "ICRC alone over a 4096 B data packet", 0, 4096, 4},
	{"icrc-4k-clmul128", "the same, forcing 128-bit PCLMULQDQ (no AVX-512)", 0, 4096, 6},
	{"icrc-4k-table", "the same, forcing the portable slice-by-8 path", 0, 4096, 5},
	{"memcpy-4k", "reference: memcpy of 4096 B", 0, 4096, 3},
};

static void
run_op(const struct op *o, struct pkt_bufs *b, const struct mrc_wire_cfg *cfg,
	const struct mrc_wire_cfg *cfg_noicrc, uint64_t iters, uint8_t *dst)
{
	struct mrc_pkt v;

	switch (o->kind) {
	case 0:
	case 7:
		for (uint64_t i = 0; i < iters; i++) {
			bufs_reset(b);
			b->s.pkt.bth.psn = (uint32_t)i;
			sink += (uint64_t)mrc_pkt_build(b->hdr, &b->s.pkt, cfg, b->trailer);
		}
		break;
	case 1:
	case 2:
		for (uint64_t i = 0; i < iters; i++)
			sink += mrc_pkt_parse(b->hdr, o->kind == 1 ? cfg : cfg_noicrc, &v) +
				v.bth.psn;
		break;
	case 3:
		for (uint64_t i = 0; i < iters; i++) {
			memcpy(dst, b->region, b->payload_len);
			sink += dst[i & 1023];
		}
		break;
	case 4:
	case 5:
	case 6:
		/* A forced path the CPU lacks leaves AUTO in place; the name printed says which
		 * ran. */
		mrc_crc32_set_impl(o->kind == 5	  ? MRC_CRC32_TABLE
				   : o->kind == 6 ? MRC_CRC32_CLMUL
						  : MRC_CRC32_AUTO);
		for (uint64_t i = 0; i < iters; i++)
			sink += mrc_icrc_calc(
				b->hdr, 14 + 40, rte_pktmbuf_pkt_len(b->hdr) - 4 - 54);
		mrc_crc32_set_impl(MRC_CRC32_AUTO);
		break;
	}
}

/* Look results up by name: the summary must not depend on the order of ops[]. */
static double
result_of(const double *results, const char *name)
{
	for (size_t i = 0; i < RTE_DIM(ops); i++)
		if (strcmp(ops[i].name, name) == 0)
			return results[i];
	return 0;
}

static double
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int
main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{"iters", required_argument, NULL, 'n'},
		{"runs", required_argument, NULL, 'r'},
		{"op", required_argument, NULL, 'o'},
		{"json", required_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	uint64_t iters = 200000;
	unsigned int runs = 5;
	const char *only = NULL, *json = NULL;
	struct mrc_wire_cfg cfg, cfg_noicrc;
	static uint8_t dst[8192];
	double results[RTE_DIM(ops)];
	int c;

	/* As mrcd runs (--force-max-simd-bitwidth=512): no EAL here to be told. */
	rte_vect_set_max_simd_bitwidth(RTE_VECT_SIMD_512);
	while ((c = getopt_long(argc, argv, "h", lopts, NULL)) != -1) {
		switch (c) {
		case 'n':
			iters = strtoull(optarg, NULL, 0);
			break;
		case 'r':
			runs = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 'o':
			only = optarg;
			break;
		case 'j':
			json = optarg;
			break;
		default:
			printf("usage: %s [--iters N] [--runs R] [--json FILE] [--op NAME]\nops:",
				argv[0]);
			for (size_t i = 0; i < RTE_DIM(ops); i++)
				printf(" %s", ops[i].name);
			printf("\n");
			return c == 'h' ? 0 : 2;
		}
	}
	if (iters == 0 || runs == 0 || runs > 99) {
		fprintf(stderr, "bench_wire: --iters must be > 0 and --runs 1..99\n");
		return 2;
	}
	mrc_wire_cfg_defaults(&cfg);
	cfg_noicrc = cfg;
	cfg_noicrc.verify_icrc = false;

	for (size_t i = 0; i < RTE_DIM(ops); i++) {
		const struct op *o = &ops[i];
		struct pkt_bufs b;
		double t[99];

		if (only != NULL && strcmp(only, o->name) != 0)
			continue;
		if (bufs_init(&b, o->sample, o->payload_len) != 0) {
			fprintf(stderr, "bench_wire: cannot set up %s\n", o->name);
			return 1;
		}
		b.s.payload_len = o->payload_len;
		if (o->kind == 7)
			b.s.pkt.flags |= MRC_PKT_F_NIC_ENCAP;
		bufs_reset(&b);
		if (mrc_pkt_build(b.hdr, &b.s.pkt, &cfg, b.trailer) != 0) {
			fprintf(stderr, "bench_wire: %s does not build\n", o->name);
			return 1;
		}
		if (only != NULL) { /* callgrind mode: just the work */
			run_op(o, &b, &cfg, &cfg_noicrc, iters, dst);
			return 0;
		}
		run_op(o, &b, &cfg, &cfg_noicrc, iters / 10 + 1, dst); /* warm up */
		for (unsigned int r = 0; r < runs; r++) {
			double t0 = now_ns();

			run_op(o, &b, &cfg, &cfg_noicrc, iters, dst);
			t[r] = (now_ns() - t0) / (double)iters;
		}
		qsort(t, runs, sizeof(t[0]), cmp_double);
		results[i] = t[runs / 2];
	}
	if (only != NULL) {
		fprintf(stderr, "bench_wire: no op named %s\n", only);
		return 2;
	}

	printf("bench_wire: median of %u runs x %llu iterations, one core\n", runs,
		(unsigned long long)iters);
	printf("%-22s %10s  %s\n", "op", "ns/pkt", "what");
	for (size_t i = 0; i < RTE_DIM(ops); i++)
		printf("%-22s %10.1f  %s\n", ops[i].name, results[i], ops[i].what);
	double icrc = result_of(results, "icrc-4k"), table = result_of(results, "icrc-4k-table");
	double mc = result_of(results, "memcpy-4k");

	printf("outer header left to the NIC: build %.2fx the software encap's time (64 B data), "
	       "%.2fx (SACK)\n",
		result_of(results, "build-data-64-nicenc") / result_of(results, "build-data-64"),
		result_of(results, "build-sack-nicenc") / result_of(results, "build-sack"));
	printf("CRC implementation: %s\n", mrc_crc32_impl_name());
	printf("ICRC over 4 KiB: %.2f GB/s (table path %.2f GB/s, %.1fx slower); "
	       "memcpy of 4 KiB: %.2f GB/s; ICRC/memcpy time ratio %.2f\n",
		4096 / icrc, 4096 / table, table / icrc, 4096 / mc, icrc / mc);
	if (json != NULL) {
		FILE *f = fopen(json, "w");

		if (f == NULL) {
			perror(json);
			return 1;
		}
		fprintf(f, "{\"bench\": \"wire\", \"runs\": %u, \"iters\": %llu, \"ns_per_pkt\": {",
			runs, (unsigned long long)iters);
		for (size_t i = 0; i < RTE_DIM(ops); i++)
			fprintf(f, "%s\"%s\": %.2f", i ? ", " : "", ops[i].name, results[i]);
		fprintf(f, "}, \"crc_impl\": \"%s\", \"icrc_over_memcpy\": %.2f}\n",
			mrc_crc32_impl_name(), icrc / mc);
		fclose(f);
	}
	return 0;
}
