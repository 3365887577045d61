/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRC_PATH_STATS_H
#define MRC_PATH_STATS_H

/*
 * Per-path counters: what a shard's QPs saw on each path of the fabric,
 * a path being (plane, T1) as the EV names it (doc/protocol.md, "SRv6
 * addressing plan": the plane field, and the T0 uplink mod the T1s of a
 * plane). They answer "which link is bad?" where per-EV statistics (off at
 * scale) and per-plane totals cannot.
 *
 * One block per shard, owned by the shard's lcore: its QPs bump the entry
 * of the packet's path where the event happens, one plain store per counter
 * per event (no atomics: one writer). Readers get the shard's published
 * copy (mrc_shard_paths_snapshot) and sum the host's shards.
 *
 * Columns: t1 = 0 .. n_t1 - 1 are the T1s of a plane; t1 = n_t1 is
 * "direct": packets to a destination on our own T0 (no T1 on the path),
 * and plain (non-SRv6) QPs, whose packets name no T1. A QP whose template
 * has more T1s than the block counts its surplus T1s under "direct" too
 * (mrc_qp_path(); the daemon sizes the block from the same [fabric] t1s, so
 * it never happens there).
 */

#include <stdint.h>

#include "mrc_rel_tx.h"

/* T1s per plane a block can have: 8 planes x 65 columns x 248 B = 126 KiB per shard at most. */
#define MRC_PATH_MAX_T1 64
/* RTT histogram buckets: bucket 0 is < 1 us, bucket b (1..14) is [2^(b-1), 2^b) us, 15 is more. */
#define MRC_PATH_RTT_BUCKETS 16

struct mrc_path_counters {
	uint64_t tx_data_pkts;	/* first transmissions of data packets */
	uint64_t tx_data_bytes; /* ... their payload bytes */
	uint64_t tx_retx_pkts;	/* resends of data packets (second copies included) */
	uint64_t tx_retx_bytes;
	uint64_t tx_probes;		 /* probes sent (reliability and EV probes) */
	uint64_t lost[MRC_REL_LOSS_MAX]; /* packets sent here declared lost, by rel's rule */
	uint64_t ecn_echoes;		 /* SACKs echoing this path's EV with M != NONE */
	uint64_t trims;			 /* NACKs TRIMMED / TRIMMED_LASTHOP of this path's EV */
	uint64_t rtt_samples;
	uint64_t rtt_sum_ns; /* the samples' sum: a mean per interval, Prometheus's _sum */
	uint64_t rtt_hist[MRC_PATH_RTT_BUCKETS];
};

/* A shard's block: n_planes x (n_t1 + 1) entries, plane-major. */
struct mrc_path_block {
	uint8_t n_planes;
	uint8_t n_t1;
	struct mrc_path_counters *c;
};

static inline unsigned int
mrc_path_cols(const struct mrc_path_block *b)
{
	return (unsigned int)b->n_t1 + 1;
}

/* The RTT histogram bucket of `rtt_ns`. */
static inline unsigned int
mrc_path_rtt_bucket(uint64_t rtt_ns)
{
	const uint64_t us = rtt_ns / 1000;
	unsigned int b;

	if (us == 0)
		return 0;
	b = 64 - (unsigned int)__builtin_clzll(us); /* [2^(b-1), 2^b) */
	return b < MRC_PATH_RTT_BUCKETS ? b : MRC_PATH_RTT_BUCKETS - 1;
}

#endif /* MRC_PATH_STATS_H */
