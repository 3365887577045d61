/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRCD_DATAPATH_H
#define MRCD_DATAPATH_H

/*
 * The worker side: what runs on the worker lcores, glue around the engine
 * (lib/host) and the generator (gen/). Nothing here locks, allocates,
 * makes a syscall or logs per packet.
 */

#include <stdbool.h>
#include <stdint.h>

#include "mrcd_daemon.h"

/* A worker lcore's loop (mrcd_worker.c), until the phase is MRCD_EXIT; arg: its mrcd_worker. */
int mrcd_worker_main(void *arg);

/*
 * Publish host h's shard k's snapshot (mrcd_snapshot.c). `full`: walk every
 * flow for the QPs' counters now (the main lcore, once the workers have
 * stopped); otherwise one slice of them.
 */
void mrcd_snapshot_publish(
	struct mrcd_daemon *d, unsigned int host, unsigned int shard, uint64_t now_tsc, bool full);

/* The fabric's counters, published by the worker that polls it. */
void mrcd_fabric_snapshot_publish(struct mrcd_daemon *d);

/* Answer a pending QP query if this worker owns the QP (mrcd_query.c). */
void mrcd_query_serve(struct mrcd_daemon *d, struct mrcd_worker *w, uint64_t wall_tsc);

/* A QP query a worker took (mrcd_query_take), until it answers it. */
struct mrcd_query_job {
	uint32_t ask;		    /* the request's sequence number */
	const struct mrc_qp *qp;    /* the QP asked about */
	const struct mrc_shard *rt; /* its shard, run by this worker */
	struct mrcd_qp_query *out;  /* where the answer goes: the worker's own slot */
};

/*
 * mrcd_query_serve's two halves, apart so a test can hold a worker between
 * them (a worker descheduled in mid-answer): take the pending request if
 * this worker owns its QP (true), then copy the QP's state out and publish
 * the answer.
 */
bool mrcd_query_take(struct mrcd_daemon *d, struct mrcd_worker *w, struct mrcd_query_job *j);
void mrcd_query_answer(const struct mrcd_query_job *j, uint64_t wall_tsc);

#endif /* MRCD_DATAPATH_H */
