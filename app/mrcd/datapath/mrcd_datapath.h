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
void mrcd_query_serve(struct mrcd_daemon *d, const struct mrcd_worker *w, uint64_t wall_tsc);

#endif /* MRCD_DATAPATH_H */
