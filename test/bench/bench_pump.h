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
	uint32_t qpn_base;    /* pair q's QPs: qpn_base + 2q (side 0), + 1 (side 1) */
	unsigned int n_hosts; /* fabric hosts to read */
	unsigned int n_planes;
	const uint8_t (*hosts)[2];   /* fabric host of each pair's sides; NULL: {0, 1} */
	const uint32_t *host_planes; /* per fabric host: planes its ports show up;
				      * NULL: all, and peers are not told */
	/*
	 * Tx room per NIC port: a QP may send on a plane only while its host's
	 * port there holds less than nic_room_ns of line rate (link_gbps) not
	 * yet on the wire (mrc_fabric_tx_backlog, plus what this step has
	 * sent), as a NIC picks a plane whose port has room
	 * (doc/protocol.md, "Picking"). Packets are then not
	 * built, stamped and queued behind a deep NIC queue that they would
	 * measure as path delay. 0: no limit (every plane always has room).
	 */
	uint32_t nic_room_ns;
	double link_gbps;
	unsigned int first; /* the pair served first in the last step */
	uint64_t errors;    /* packets refused by the parser or for no QP of ours */
};

/* The tx room the benches give a NIC port by default: 2.56 us (32 KB at 100 Gb/s). */
#define BENCH_PUMP_NIC_ROOM_NS 2560u

void bench_pump_step(struct bench_pump *b, uint64_t now);

#endif /* BENCH_PUMP_H */
