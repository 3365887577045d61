/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef BENCH_PUMP_H
#define BENCH_PUMP_H

/*
 * One step of the loop every fake-clock fabric benchmark runs: each QP of
 * each pair sends its burst (one tx call per packet, since packets of one
 * burst may take any plane) and runs its timers, the fabric moves packets,
 * and every fabric host's ports are read, each packet handed to the QP its
 * destination QPN names. The benches differ only in what they do around it
 * (post, verify, measure, inject faults).
 */

#include <stdint.h>

#include "mrc_fabric.h"
#include "mrc_test_qp.h"

struct bench_pump {
	struct mrc_fabric *f;
	struct mrc_test_pair *pairs;
	unsigned int n_pairs;
	uint32_t qpn_base;           /* pair q's QPs: qpn_base + 2q (side 0), + 1 (side 1) */
	unsigned int n_hosts;        /* fabric hosts to read */
	unsigned int n_planes;
	const uint8_t (*hosts)[2];   /* fabric host of each pair's sides; NULL: {0, 1} */
	const uint32_t *host_planes; /* per fabric host: planes its ports show up;
				      * NULL: all, and peers are not told */
	uint64_t errors;             /* packets refused by the parser or for no QP of ours */
};

void bench_pump_step(struct bench_pump *b, uint64_t now);

#endif /* BENCH_PUMP_H */
