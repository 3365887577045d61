/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRCD_STATS_H
#define MRCD_STATS_H

/*
 * The stats side: readers of what the workers publish, and what the daemon
 * tells people from it. While the workers run, the stats thread
 * (mrcd_stats_thread.c, a control thread of DPDK's, on no polling CPU)
 * owns every output: the console line, the time series, the Prometheus
 * file and the metrics endpoint, the per-path sums, and the replies to the
 * /mrc/ telemetry commands, which DPDK's telemetry threads hand it
 * (mrcd_tel_mailbox.h); it goes on answering those after the run until
 * teardown closes them. The main lcore prints the banner and, after the
 * stop, the summary. None of them reads a worker's live state while the
 * workers run.
 */

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include "mrc_path_stats.h"
#include "mrcd_daemon.h"

struct mrcd_http;

/* Outputs the stats thread keeps open (mrcd_report.c): written by the stats thread only. */
struct mrcd_output {
	FILE *ts;
	unsigned int ts_rotations; /* times the time series reached its cap */
	uint64_t next_ts, next_prom;
	struct mrcd_snapshot last[MRCD_MAX_HOSTS];
	uint64_t last_tsc;
	/* each host's path sums at the last time-series line (n_paths each) */
	struct mrc_path_counters *last_paths[MRCD_MAX_HOSTS];
};

/*
 * The stats thread and what it owns. Made by control (mrcd_stats_start)
 * before the workers launch; freed by main.c at exit.
 */
struct mrcd_stats {
	struct mrcd_daemon *d; /* control writes before the thread starts; read-only after */
	pthread_t thread;      /* control: creates, joins */
	uint64_t start_tsc;    /* control, before the thread starts: the run's t = 0 */
	/* control writes (release) once the workers stopped and their final snapshots are
	 * out; the stats thread reads (acquire), writes its last lines and sets outputs_done */
	int stop;
	/* the stats thread writes (release) once its outputs are closed; from then on it
	 * only answers telemetry commands, until `quit` (mrcd_stats_end) */
	int outputs_done;
	int quit;
	/* the stats thread's kernel thread id, written by it at its start (0 before) */
	int tid;
	/* the stats thread's loop passes (each a wake-up), written by it (relaxed), read
	 * by /mrc/info: says the thread sleeps between its deadlines */
	uint64_t passes;
	/* control, before the thread starts: every host's path geometry (one config) */
	unsigned int n_planes, n_t1, n_paths;
	/*
	 * Each host's per-path counters summed over its shards, refreshed every
	 * [lcores] stats_interval_ms: the stats thread writes under seq (odd while
	 * it writes); its own /mrc/ replies read them, as may any thread (mrcd_stats_paths_read).
	 */
	uint32_t seq;
	uint64_t paths_tsc;
	struct mrc_path_counters *paths[MRCD_MAX_HOSTS];
	/* the stats thread only, from here on */
	struct mrc_path_counters *tmp; /* one shard's copy */
	struct mrcd_output out;
	struct mrcd_http *http; /* the metrics endpoint; NULL when off */
};

/*
 * Control: open the metrics endpoint and start the stats thread, which
 * writes every output from now on (0, or -errno, said in the log). The run's
 * t = 0 is start_tsc.
 */
int mrcd_stats_start(struct mrcd_daemon *d, uint64_t start_tsc);
/* Control, once the workers stopped and their final snapshots are published:
 * returns once the thread wrote its last lines and closed its outputs. The
 * thread goes on answering telemetry commands. */
void mrcd_stats_stop(struct mrcd_daemon *d);
/* Once the telemetry commands are closed (mrcd_telemetry_close calls it): the
 * stats thread ends and is joined. Idempotent; mrcd_stats_free calls it too. */
void mrcd_stats_end(struct mrcd_daemon *d);
/* main.c at exit: what mrcd_stats_start allocated. */
void mrcd_stats_free(struct mrcd_daemon *d);
/*
 * Any thread: host h's per-path counters as the stats thread last summed
 * them, a consistent copy into out[n] (n >= n_paths). How many paths, with
 * the geometry; 0 before the stats thread starts.
 */
unsigned int mrcd_stats_paths_read(const struct mrcd_daemon *d, unsigned int h,
	struct mrc_path_counters *out, unsigned int n, unsigned int *n_planes, unsigned int *n_t1);
/* Add one path's counters to another. */
void mrcd_path_add(struct mrc_path_counters *to, const struct mrc_path_counters *c);
/* The stats thread: the Prometheus text (text format 0.0.4) of everything, to f. */
void mrcd_metrics_write(struct mrcd_stats *st, FILE *f);

/* Host h's latest snapshot, a consistent copy (retries a torn one). */
void mrcd_snapshot_read(const struct mrcd_daemon *d, unsigned int host, struct mrcd_snapshot *out);
/* The sum of every host's latest snapshot; t->tsc is the newest of them. */
void mrcd_snapshot_totals(const struct mrcd_daemon *d, struct mrcd_snapshot *t);
/* The fabric's counters as its worker last published them. */
void mrcd_fabric_snapshot_read(const struct mrcd_daemon *d, struct mrc_fabric_counters *out);
/* bytes over tsc ticks, in Gb/s (0 over no time). */
double mrcd_gbps(uint64_t bytes, uint64_t tsc, uint64_t hz);

void mrcd_banner(const struct mrcd_daemon *d, const char *profile, const char *scenario);
/* The stats thread's outputs (mrcd_report.c). */
void mrcd_console_line(struct mrcd_daemon *d, uint64_t now_tsc, uint64_t start_tsc);
int mrcd_output_open(struct mrcd_stats *st);
/* Writes the outputs that are due; returns the TSC at which the next one is. */
uint64_t mrcd_output_tick(struct mrcd_stats *st, uint64_t now_tsc);
void mrcd_output_close(struct mrcd_stats *st, uint64_t now_tsc);
/* The stats thread: refresh st->paths from the shards' snapshots. */
void mrcd_stats_paths_refresh(struct mrcd_stats *st, uint64_t now_tsc);

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
 * Register a /mrc/ command kept in another file, behind the same guard as
 * the others (so teardown waits for it and it answers "stopping" after):
 * 0, or -ENOSPC / the EAL's -errno. Main lcore, before the run.
 */
struct rte_tel_data;
int mrcd_telemetry_add(const char *cmd,
	int (*fn)(const char *cmd, const char *params, struct rte_tel_data *d), const char *help);
/* /mrc/nd (mrcd_telemetry_nd.c), registered by mrcd_telemetry_register(). */
int mrcd_telemetry_nd_register(const struct mrcd_daemon *d);
/* Main lcore, before teardown frees what they read: wait for the commands being answered,
 * and answer every later one with an error (mrcd is stopping); then end the stats thread. */
void mrcd_telemetry_close(void);

/*
 * How long a /mrc/ command waits for the stats thread to take it before it
 * answers an error naming the wait: the thread wakes for a command at once
 * and formats one between its ticks, so only a stuck or absent thread
 * misses this.
 */
#define MRCD_TEL_REPLY_TIMEOUT_MS 1000
/* The stats thread: answer the oldest waiting /mrc/ command; 1 if one was answered. */
int mrcd_telemetry_serve(void);
/* The fd the stats thread polls: readable while a command waits (-1 before registration). */
int mrcd_telemetry_wake_fd(void);
/* Any thread: replies the stats thread made, and commands that were never taken. */
void mrcd_telemetry_replies(uint64_t *served, uint64_t *timed_out);

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
