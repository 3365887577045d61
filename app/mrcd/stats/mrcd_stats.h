/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRCD_STATS_H
#define MRCD_STATS_H

/*
 * The stats side: readers of what the workers publish, and what the daemon
 * tells people from it. Runs on the main lcore (console, files, summary)
 * and on DPDK's telemetry threads (/mrc/ commands); never reads a worker's
 * live state while the workers run.
 */

#include <stdint.h>
#include <stdio.h>

#include "mrcd_daemon.h"

/* Outputs the control loop keeps open (mrcd_report.c): written by the main lcore only. */
struct mrcd_output {
	FILE *ts;
	unsigned int ts_rotations; /* times the time series reached its cap */
	uint64_t next_ts, next_prom;
	struct mrcd_snapshot last[MRCD_MAX_HOSTS];
	uint64_t last_tsc;
};

/* Host h's latest snapshot, a consistent copy (retries a torn one). */
void mrcd_snapshot_read(const struct mrcd_daemon *d, unsigned int host, struct mrcd_snapshot *out);
/* The sum of every host's latest snapshot; t->tsc is the newest of them. */
void mrcd_snapshot_totals(const struct mrcd_daemon *d, struct mrcd_snapshot *t);
/* The fabric's counters as its worker last published them. */
void mrcd_fabric_snapshot_read(const struct mrcd_daemon *d, struct mrc_fabric_counters *out);
/* bytes over tsc ticks, in Gb/s (0 over no time). */
double mrcd_gbps(uint64_t bytes, uint64_t tsc, uint64_t hz);

void mrcd_banner(const struct mrcd_daemon *d, const char *profile, const char *scenario);
void mrcd_console_line(struct mrcd_daemon *d, uint64_t now_tsc, uint64_t start_tsc);
void mrcd_output_open(struct mrcd_daemon *d, struct mrcd_output *o);
void mrcd_output_tick(
	struct mrcd_daemon *d, struct mrcd_output *o, uint64_t now_tsc, uint64_t start_tsc);
void mrcd_output_close(
	struct mrcd_daemon *d, struct mrcd_output *o, uint64_t now_tsc, uint64_t start_tsc);

/* Print the summary (and write --json); 0 when nothing was lost or corrupted (mrcd_summary.c). */
int mrcd_summary(const struct mrcd_daemon *d);

/*
 * Several workers per host (mrcd_shards_report.c): each port's steering and
 * each shard's worker, dispatch counters and cycle shares; as JSON members
 * of the summary (always), or as text lines (only with several shards).
 * Once the workers have stopped.
 */
void mrcd_summary_shards(const struct mrcd_daemon *d, FILE *f, bool json);
/*
 * The --json members "first_host", "cluster_hosts" and "path_counters": each
 * host's per-path rows that carried anything (mrcd_paths_report.c), for
 * mrc-report. Once the workers have stopped.
 */
void mrcd_summary_paths(const struct mrcd_daemon *d, FILE *f);
/* "flow" or "software" (enum mrcd_steer). */
const char *mrcd_steer_name(uint8_t mode);

/* Register the /mrc/ telemetry commands: 0, or the EAL's -errno for the first it refused. */
int mrcd_telemetry_register(struct mrcd_daemon *d);

/*
 * Ask the owner of `qp` (on `host`) about it (mrcd_query_ask.c). The
 * answer, or NULL when nobody answered within 100 ms (the daemon is
 * stopping). An answer stays valid, and other askers wait, until
 * mrcd_query_release().
 */
const struct mrcd_qp_query *mrcd_query_qp(
	struct mrcd_daemon *d, unsigned int host, const struct mrc_qp *qp);
void mrcd_query_release(void);

#endif /* MRCD_STATS_H */
