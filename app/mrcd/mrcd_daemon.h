/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRCD_DAEMON_H
#define MRCD_DAEMON_H

/*
 * The daemon's state, shared by main.c (control loop), mrcd_setup.c
 * (setup), mrcd_worker.c (the workers' loop) and mrcd_report.c (console,
 * files, summary). Ownership: a host and its flows
 * belong to the worker that iterates it; the control thread reads only the
 * snapshots the workers publish (a sequence counter makes each read
 * consistent) until the workers have stopped.
 */

#include <stdio.h>

#include <rte_mempool.h>
#include <rte_ring.h>

#include "mrc_fabric.h"
#include "mrcd_cli.h"
#include "mrcd_config.h"
#include "mrcd_gaps.h"
#include "mrcd_gen.h"
#include "mrc_shard.h"
#include "mrcd_sched.h"

#define MRCD_MAX_HOSTS 16
/*
 * Flows in the cluster at most (each a QP pair): what the daemon is tested
 * with (65,536 on one worker, test/integration/scale.sh). Per-flow state is
 * allocated for the flows the profile makes, not for this many.
 */
#define MRCD_MAX_FLOWS	    65536
#define MRCD_MAX_WORKERS    16
#define MRCD_QPN_BASE	    0x100
#define MRCD_TRK_BLOCKS_MAX 4096 /* in-flight rings per host (32 KiB each at MPR 8) */
/* Flows a snapshot walks per tick for the QPs' own counters (a full pass spans several). */
#define MRCD_SWEEP_SLICE 64

enum mrcd_phase { MRCD_RUN = 0, MRCD_DRAIN, MRCD_EXIT };

/* Sums over a host's sending QPs of what only the QPs count (mrcd_snapshot_publish). */
struct mrcd_qp_sums {
	uint64_t retx, nacks, ecn_echoes, ev_losses;
	uint64_t data_pkts, spurious; /* first transmissions; losses later acknowledged */
	uint64_t ev_good, ev_skip, ev_bad, ev_denied;
};

struct mrcd_hostctx {
	struct rte_mempool *rx_pool, *tx_pool;
	struct mrc_mr_table *mrs;
	struct mrc_cq *cq;
	uint8_t *mem;
	size_t mem_len, region_bytes; /* region: the host's slots in the cluster layout */
	uint32_t key;
	struct mrc_shard *rt; /* the engine: one shard (one worker) per host */
	/* packets the shard hands off (endpoint requests, QPN 2): the shard
	 * writes, the control thread reads and counts them in ep_ops */
	struct rte_ring *handoff;
	uint64_t ep_ops;	       /* written by the control thread, read by telemetry */
	struct mrc_trk_pool *imm_pool; /* Write-IMM tables lent to the host's responders */
	struct mrc_rand rand;
	struct mrcd_hist hist; /* completion times of this host's messages */
	struct mrcd_gaps gaps; /* the longest waits between messages received here */
	uint64_t failed_msgs;
	uint16_t port[MRC_SHARD_MAX_PLANES]; /* the ethdev port of each plane */
	uint32_t port_started;		     /* ethdev mode: planes whose port we started */
	/* the flows this host sends and receives (indexes into flows) */
	uint32_t *send_flows, *recv_flows;
	uint32_t n_send, n_recv;
	struct mrcd_flowq ready, wait, turns; /* mrcd_sched.h */
	uint32_t active, active_max;	      /* flows holding a turn, and at most */
	/* the generator's totals, kept as they change (a snapshot walks no flow for them) */
	uint64_t posted, completed, sent_bytes, verified_bytes, verify_errors;
	/* the QPs' own counters, summed a slice per snapshot: `sums` is the last full pass */
	struct mrcd_qp_sums sums, sums_part;
	uint32_t sweep_pos;
};

/* What the ports themselves dropped (ethdev mode), summed over all ports. */
struct mrcd_port_drops {
	uint64_t imissed, ierrors, oerrors, rx_nombuf;
};

/* What a worker publishes about one host (and the flows it sends). */
struct mrcd_snapshot {
	uint32_t seq; /* odd while being written */
	uint64_t tsc;
	uint64_t tx_bytes[MRC_SHARD_MAX_PLANES], rx_bytes[MRC_SHARD_MAX_PLANES];
	uint64_t posted, completed, failed;
	uint64_t sent_bytes, verified_bytes, verify_errors;
	uint64_t retx, nacks, ecn_echoes, ev_losses;
	uint64_t data_pkts, spurious;
	uint64_t ev_good, ev_skip, ev_bad, ev_denied;
	uint64_t rejects; /* packets the parser refused */
	bool stopping;	  /* the worker had seen the drain begin: it posts no more */
};

/* One EV of a queried QP. */
struct mrcd_query_ev {
	uint32_t ev;
	uint8_t plane, state; /* state: enum mrc_ev_state */
	bool active;	      /* false: a backup slot */
};

#define MRCD_QUERY_MAX_EVS 1024

/* A queried QP's reliability and window state: why it sends or does not. */
struct mrcd_query_rel {
	uint32_t snd_una, snd_nxt, n_inflight, n_lost, cwnd_bytes;
	uint32_t rx_epsn, rx_max_psn, rx_pending;
	uint8_t error, retries;
	bool can_send, probe_wanted, probe_outstanding;
	uint64_t rto_fired, probes_asked, spurious;
	/* ages at the copy, in TSC ticks */
	uint64_t since_progress_tsc, since_ack_tsc, srtt_tsc;
};

/* A telemetry question about one QP and its owner's answer (mrcd_query.c). */
struct mrcd_qp_query {
	uint32_t req;  /* bumped by the asker */
	uint32_t done; /* set to req by the owning worker once the answer is in */
	unsigned int host;
	const struct mrc_qp *qp;
	/* the answer */
	enum mrc_qp_state state;
	enum mrc_qp_error error;
	size_t mem_bytes;
	struct mrc_qp_counters counters;
	bool has_rel; /* the sender/receiver state below is valid (past INIT) */
	struct mrcd_query_rel rel;
	unsigned int n_ev;
	struct mrcd_query_ev ev[MRCD_QUERY_MAX_EVS];
};

struct mrcd_daemon;

struct mrcd_worker {
	struct mrcd_daemon *d;
	unsigned int lcore;
	bool runs_fabric;
	unsigned int n_hosts;
	unsigned int hosts[MRCD_MAX_HOSTS];
	uint64_t cpu_ns; /* CPU time of this worker's thread over its whole loop */
};

struct mrcd_daemon {
	struct mrcd_cli cli;
	struct mrcd_config cfg;
	struct mrcd_profile prof;
	uint64_t hz;
	unsigned int n_hosts, n_flows, n_workers; /* n_hosts: this process's */
	unsigned int n_cluster_flows;		  /* flows in the whole cluster */
	int32_t *flow_of; /* n_cluster_flows: cluster flow -> index in flows, or -1 */
	struct mrcd_hostctx host[MRCD_MAX_HOSTS];
	struct mrcd_flow *flows; /* n_flows, allocated at setup */
	struct mrc_qp **peer_qp; /* n_flows: the receiving end of each flow */
	/* what setup allocated, for the summary's bytes per QP */
	size_t msg_buf_bytes, qp_bytes, trk_bytes, heap_bytes;
	struct mrc_fabric *fab;
	struct mrcd_worker workers[MRCD_MAX_WORKERS];
	int phase; /* enum mrcd_phase */
	uint64_t run_tsc, drain_tsc;
	uint64_t start_tsc, start_mono_ns; /* the run's t = 0, also as CLOCK_MONOTONIC */
	struct mrcd_snapshot snap[MRCD_MAX_HOSTS];
	/* the fabric's counters, published by the worker that polls it */
	uint32_t fab_seq;
	struct mrc_fabric_counters fab_snap;
	struct mrcd_qp_query query;
	/* [ports] mode = loop: the link from host h to its peer on plane p (mrcd_loop.c) */
	struct rte_ring *loop_ring[MRCD_MAX_HOSTS][MRC_SHARD_MAX_PLANES];
	bool loop_vdev[MRCD_MAX_HOSTS][MRC_SHARD_MAX_PLANES];
};

/* Outputs the control loop keeps open. */
struct mrcd_output {
	FILE *ts;
	unsigned int ts_rotations; /* times the time series reached its cap */
	uint64_t next_ts, next_prom;
	struct mrcd_snapshot last[MRCD_MAX_HOSTS];
	uint64_t last_tsc;
};

/* `full`: walk every flow for the QPs' counters now (after the workers stopped). */
void mrcd_snapshot_publish(struct mrcd_daemon *d, unsigned int host, uint64_t now_tsc, bool full);
void mrcd_snapshot_read(const struct mrcd_daemon *d, unsigned int host, struct mrcd_snapshot *out);

void mrcd_banner(const struct mrcd_daemon *d, const char *profile, const char *scenario);
void mrcd_console_line(struct mrcd_daemon *d, uint64_t now_tsc, uint64_t start_tsc);
void mrcd_output_open(struct mrcd_daemon *d, struct mrcd_output *o);
void mrcd_output_tick(
	struct mrcd_daemon *d, struct mrcd_output *o, uint64_t now_tsc, uint64_t start_tsc);
void mrcd_output_close(
	struct mrcd_daemon *d, struct mrcd_output *o, uint64_t now_tsc, uint64_t start_tsc);

/* Print the summary (and write --json); 0 when nothing was lost or corrupted. */
int mrcd_summary(const struct mrcd_daemon *d);

/* The fabric's counters: published by its worker, read by anyone. */
void mrcd_fabric_snapshot_publish(struct mrcd_daemon *d);
void mrcd_fabric_snapshot_read(const struct mrcd_daemon *d, struct mrc_fabric_counters *out);

/* Register the /mrc/ telemetry commands (0, or -1 if the EAL refused one). */
int mrcd_telemetry_register(struct mrcd_daemon *d);

/* Worker side: answer a pending QP query if this worker owns the QP. */
void mrcd_query_serve(struct mrcd_daemon *d, const struct mrcd_worker *w);
/*
 * Telemetry side: ask the owner of `qp` (on `host`). The answer, or NULL
 * when nobody answered within 100 ms (the daemon is stopping). An answer
 * stays valid, and other askers wait, until mrcd_query_release().
 */
const struct mrcd_qp_query *mrcd_query_qp(
	struct mrcd_daemon *d, unsigned int host, const struct mrc_qp *qp);
void mrcd_query_release(void);

/* 0 if both of the host's pools hold every mbuf again; says which did not. */
int mrcd_pools_full(const struct mrcd_hostctx *hc);

/* [ports] mode = ethdev (mrcd_ports.c): find, probe, configure and start
 * every host x plane port; -1 after printing what is wrong. */
int mrcd_ports_open(struct mrcd_daemon *d);
void mrcd_ports_close(struct mrcd_daemon *d);
void mrcd_ports_drops(const struct mrcd_daemon *d, struct mrcd_port_drops *out);

/* [ports] mode = loop (mrcd_loop.c): host pairs joined back to back by rings;
 * -1 after printing what is wrong. Close after mrcd_ports_close. */
int mrcd_loop_open(struct mrcd_daemon *d);
void mrcd_loop_close(struct mrcd_daemon *d);

/*
 * Setup (mrcd_setup.c); each returns 0, or -1 after printing what is wrong.
 * mrcd_make_flows(d, false) only counts the flows (before the EAL starts,
 * for mrcd_size_memory); with true it allocates and fills them.
 */
int mrcd_make_flows(struct mrcd_daemon *d, bool fill);
int mrcd_size_memory(struct mrcd_daemon *d);
int mrcd_make_pools(struct mrcd_daemon *d, unsigned int h);
int mrcd_make_host(struct mrcd_daemon *d, unsigned int h, uint64_t now);
int mrcd_connect_flows(struct mrcd_daemon *d, uint64_t now);
int mrcd_assign_lcores(struct mrcd_daemon *d);

/* Control thread: take what the hosts' shards handed off (endpoint requests are
 * counted and freed: nothing acts on them yet). */
void mrcd_handoff_drain(struct mrcd_daemon *d);

/* A worker lcore's loop (mrcd_worker.c), until the phase is MRCD_EXIT; arg: its mrcd_worker. */
int mrcd_worker_main(void *arg);

#endif /* MRCD_DAEMON_H */
