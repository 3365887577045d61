/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRCD_GAPS_H
#define MRCD_GAPS_H

/*
 * A receiver's stalls: the largest gaps between successive messages
 * completed at one host, each with the time it ended. A failover benchmark
 * (scripts/bench/bench-veth-failover.sh) takes the largest gap that ended after
 * its fault; the 100 ms time series is too coarse for that. Kept by the
 * host's worker (one compare per received message, no syscall), read by the
 * summary once the workers have stopped.
 *
 * Why the top MRCD_GAPS and not only the largest: a gap before the fault
 * (start-up, a preempted worker) must not hide the stall after it. If any
 * kept gap ended after time T, the largest of those is the largest gap
 * after T exactly; if none did, every gap after T was shorter than the
 * shortest one kept.
 */

#include <stdint.h>

#define MRCD_GAPS 16

struct mrcd_gaps {
	uint64_t last_tsc;	     /* the previous completion; 0: none yet */
	unsigned int n;		     /* gaps kept */
	uint64_t len_tsc[MRCD_GAPS]; /* longest first */
	uint64_t end_tsc[MRCD_GAPS]; /* when each ended (the later completion) */
};

/* A message completed at now_tsc (not before the previous one). */
void mrcd_gaps_add(struct mrcd_gaps *g, uint64_t now_tsc);

#endif /* MRCD_GAPS_H */
