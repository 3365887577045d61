/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRCD_DAEMON_H
#define MRCD_DAEMON_H

/*
 * The daemon's shared state. Who runs what:
 *
 *   control   the main lcore: main.c and control/ (setup before the
 *             workers start, the run loop, teardown after they stop)
 *   worker    the worker lcores: datapath/ and the generator (gen/)
 *   stats     whatever reads snapshots: stats/, on the stats thread (a
 *             control thread, no polling CPU) for the console, files and
 *             metrics endpoint and the replies to /mrc/ (which DPDK's
 *             telemetry threads hand it), on the main lcore for the
 *             summary after the stop
 *
 * Beside each field: who writes it and who reads it ("setup" means the
 * control side before the workers are launched, after which the field does
 * not change; "after" means once the workers have stopped). A host and its
 * flows belong to the worker that iterates it; everyone else reads what
 * workers publish (snapshots under a sequence lock, QP query answers) until
 * the workers have stopped. Functions are declared by side in
 * control/mrcd_control.h, datapath/mrcd_datapath.h and stats/mrcd_stats.h.
 */

#include <stdio.h>

#include <rte_mempool.h>
#include <rte_ring.h>

#include "mrc_fabric.h"
#include "mrc_flow.h"
#include "mrc_nd.h"
#include "mrc_nic_loop.h"
#include "mrc_rel_tx.h"
#include "mrcd_cli.h"
#include "mrcd_config.h"
#include "mrcd_gaps.h"
#include "mrcd_epreq.h"
#include "mrcd_gen.h"
#include "mrcd_notify.h"
#include "mrcd_profile_table.h"
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
/* Flows a snapshot walks for the QPs' own counters per millisecond since the last one
 * (a full pass spans several snapshots at many flows). */
#define MRCD_SWEEP_PER_MS 64

/* Written by control (the run loop), read by everyone: the workers stop posting at
 * MRCD_DRAIN and leave their loop at MRCD_EXIT. */
enum mrcd_phase { MRCD_RUN = 0, MRCD_DRAIN, MRCD_EXIT };

/* Sums over a host's sending QPs of what only the QPs count (mrcd_snapshot_publish). */
struct mrcd_qp_sums {
	uint64_t retx, nacks, ecn_echoes, ev_losses;
	uint64_t data_pkts, spurious; /* first transmissions; losses later acknowledged */
	uint64_t ev_good, ev_skip, ev_bad, ev_denied;
};

/* Generations of the peers' port masks a shard remembers taking (mrcd_shardctx.peer_gen_hist). */
#define MRCD_PEER_GEN_HIST 4

/*
 * One shard of a host: the part of it one worker runs (its QPs, by QP
 * number, and the generator's state for the flows whose QP it owns). Made
 * at setup; from launch to stop its live fields belong to that worker
 * (mrcd_worker.units), and everyone else reads what it publishes.
 */
struct mrcd_shardctx {
	/* setup; the engine. The worker iterates it; control refreshes its links */
	struct mrc_shard *rt;
	struct mrc_cq *cq; /* setup; the shard's QPs write, the worker polls */
	/* setup: Write-IMM tables lent to the shard's responders (on the worker) */
	struct mrc_trk_pool *imm_pool;
	/* setup: control answer rings lent to the shard's QPs while an answer waits */
	struct mrc_trk_pool *ctrl_pool;
	/* setup: requests to the shard (struct mrc_shard_req *): control enqueues
	 * (mrcd_recover.c), the shard's owner dequeues */
	struct rte_ring *requests;
	/* setup: the shard's EVs going out of use and back (struct mrc_shard_ev_event): the
	 * worker enqueues, the control socket's thread dequeues (control/mrcd_ctl.h) */
	struct rte_ring *ev_events;
	/* setup: packets the host's other shards read for this shard's QPs (multi producer,
	 * single consumer: this shard; lib/host/mrc_shard.h) */
	struct rte_ring *inbound;
	unsigned int worker;  /* setup: the worker that runs it; read-only */
	struct mrc_rand rand; /* setup seeds; the worker's own PRNG */
	/* completion times of its messages: the worker writes, the summary reads after */
	struct mrcd_hist hist;
	/* the longest waits between messages received here: likewise */
	struct mrcd_gaps gaps;
	uint64_t failed_msgs; /* worker writes; the snapshot copies */
	/* setup: the flows whose sending / receiving QP it owns (indexes into flows) */
	uint32_t *send_flows, *recv_flows;
	uint32_t n_send, n_recv;
	/* worker only (after setup fills them): the generator's queues, mrcd_sched.h */
	struct mrcd_flowq ready, wait, turns;
	uint32_t active, active_max; /* worker: flows holding a turn; setup: at most */
	uint64_t pass_tsc; /* worker only: its pass's time, stamped on a flow made ready */
	/* worker only: the generator's parameters it posts and checks with (mrcd_gen.h) */
	const struct mrcd_gen_params *gen;
	/* the worker writes (release) once it took a block, control reads: which it took */
	const struct mrcd_gen_params *gen_taken;
	/* worker writes, the snapshot copies: the generator's totals, kept as they change
	 * (a snapshot walks no flow for them) */
	uint64_t posted, completed, sent_bytes, verified_bytes, verify_errors;
	uint64_t verified_msgs; /* messages whose every byte was checked here */
	/* worker only (the snapshot writer): the QPs' own counters, summed a slice per
	 * snapshot; `sums` is the last full pass */
	struct mrcd_qp_sums sums, sums_part;
	uint32_t sweep_pos;
	/*
	 * Evidence that this shard took the peers' latest masks (ep_peer_gen): the
	 * generation its QPs were last told, when (TSC), and each plane's tx_pkts
	 * then, so a reader sees what the shard sent on a plane after the change.
	 * The worker writes (rarely: when the generation moves); the summary reads
	 * after the workers stopped.
	 */
	uint32_t peer_gen; /* the worker writes (release) once its QPs were told; control reads */
	uint64_t peer_gen_tsc;
	uint64_t peer_gen_plane_tx[MRC_SHARD_MAX_PLANES];
	/*
	 * The same for the last MRCD_PEER_GEN_HIST generations taken (entry n %
	 * MRCD_PEER_GEN_HIST is the n-th, counting from 0; peer_gen_n taken in all):
	 * what the shard sent on each plane between two changes. Worker writes, the
	 * summary reads after the workers stopped.
	 */
	struct mrcd_peer_gen_rec {
		uint32_t gen;
		uint64_t tsc;
		uint64_t plane_tx[MRC_SHARD_MAX_PLANES];
		uint64_t plane_qp_tx[MRC_SHARD_MAX_PLANES]; /* the QPs' own (mrc_shard_plane_qp_tx)
							     */
	} peer_gen_hist[MRCD_PEER_GEN_HIST];
	uint32_t peer_gen_n;
};

/* Addresses a plane port answers for: link-local, the host's, its workers' (SRv6). */
#define MRCD_ND_MAX_ADDRS (2 + MRC_SHARD_MAX_SHARDS)

/* Neighbour discovery's counters per plane port (control/mrcd_nd.c). */
#define MRCD_ND_COUNTERS(X)                                                                   \
	X(ns_answered, "Neighbor Solicitations for the host's addresses, answered")           \
	X(ns_ignored, "Neighbor Solicitations for other addresses")                           \
	X(na_received, "Neighbor Advertisements received")                                    \
	X(ns_sent, "Neighbor Solicitations sent, resolving or probing the next hop")          \
	X(na_sent, "Neighbor Advertisements sent in answer")                                  \
	X(na_announced, "unsolicited Neighbor Advertisements sent (at start and at link-up)") \
	X(tx_failed, "frames not sent: no mbuf, or the control tx ring was full")             \
	X(not_mrc_dropped, "frames that are not MRC dropped: no tap ([ports] tap = false)")   \
	X(to_tap, "frames written to the port's tap")                                         \
	X(tap_drops, "frames the tap did not take (the kernel's queue full)")                 \
	X(from_tap, "frames the kernel wrote to the tap, sent out the port")

enum mrcd_nd_counter {
#define MRCD_ND_CNT_ENUM(name, help) MRCD_ND_##name,
	MRCD_ND_COUNTERS(MRCD_ND_CNT_ENUM)
#undef MRCD_ND_CNT_ENUM
		MRCD_ND_CNT_MAX,
};

/*
 * Neighbour discovery on one plane port ([ports] neighbour_discovery). Setup
 * writes the addresses and what to resolve; after, the control thread alone
 * writes the rest, and telemetry reads it (atomic loads: counters, the state,
 * and the MAC as published in next_hop_mac).
 */
struct mrcd_nd_port {
	bool on;		   /* setup: the port answers and announces */
	bool resolve;		   /* setup: the next hop is resolved (next_hop.p<p> set) */
	bool link_up;		   /* control: the link as last seen (an up edge announces) */
	struct rte_ether_addr mac; /* setup: ours on this plane */
	uint8_t addr[MRCD_ND_MAX_ADDRS][MRC_ND_ADDR_LEN]; /* setup: addr[0] is link-local */
	unsigned int n_addr;
	struct mrc_nd_neigh nh; /* control: the next hop */
	uint64_t cnt[MRCD_ND_CNT_MAX];
	uint64_t kind[MRC_ND_KIND_MAX]; /* frames that are not MRC, by kind */
	int tap_fd;	   /* setup: the port's tap ([ports] tap), -1: none; control only */
	char tap_name[16]; /* setup */
};

/* How packets reach their owner shard on one port ([ports] steering). */
enum mrcd_steer { MRCD_STEER_SOFTWARE = 0, MRCD_STEER_FLOW = 1 };

/*
 * One host of this process: its NIC (one port per plane), memory and pools,
 * and its shards ([lcores] workers_per_host). Made at setup; read-only
 * after, but for the fields that say otherwise.
 */
struct mrcd_hostctx {
	struct rte_mempool *rx_pool, *tx_pool; /* setup; the workers and ports allocate */
	struct mrc_mr_table *mrs;	       /* setup; the workers read (shards) */
	/* setup: the registered region; the workers' QPs send from it and place into it */
	uint8_t *mem;
	size_t mem_len, region_bytes; /* setup: region, the host's slots in the layout */
	uint32_t key;		      /* setup: the region's key, copied into the flows */
	unsigned int n_shards;	      /* setup: [lcores] workers_per_host */
	struct mrcd_shardctx shard[MRC_SHARD_MAX_SHARDS];
	/* setup: QPN -> (shard, slot) for the host's QPNs (mrc_shard_cfg.qpn_map), read by
	 * every shard of the host */
	uint32_t *qpn_map;
	/* packets the shards hand off (endpoint requests, QPN 2): the workers enqueue
	 * (multi producer), control dequeues (mrcd_handoff_drain) */
	struct rte_ring *handoff;
	uint64_t ep_ops;	    /* control writes (atomic), telemetry reads */
	struct mrcd_ep_counters ep; /* control writes (atomic), telemetry reads */
	/* QPs of this host that went to ERROR, one event each: the shards enqueue
	 * (multi producer), control dequeues (mrcd_handoff_drain) and counts them in
	 * qps_in_error (control writes (atomic); telemetry, console, summary read) */
	struct rte_ring *events;
	uint64_t qps_in_error;
	/* the paths and planes denied on this host: the control socket's thread writes
	 * (atomic) after the shards applied them, telemetry reads */
	uint8_t denied_planes;
	uint64_t denied_t1[MRC_SHARD_MAX_PLANES];
	/* planes whose port the node controller set administratively down: the control
	 * socket's thread writes (atomic), the run loop reads and masks them out of the
	 * link status it publishes (as if their links were down), telemetry reads */
	uint32_t admin_down;
	/*
	 * Neighbour discovery and frames that are not MRC (control/mrcd_nd.c), on
	 * ethdev ports with [ports] neighbour_discovery. exception: the shards
	 * enqueue, control dequeues; ctl_tx (every host: setup makes it, endpoint
	 * operations use it too): control enqueues, shard 0 sends.
	 * next_hop_mac: per plane, the MAC the QPs send to (mrc_qp_mac_word):
	 * control writes (atomic), the QPs read. nd_ready: control only.
	 */
	bool nd_on; /* setup */
	struct rte_ring *exception, *ctl_tx;
	uint64_t next_hop_mac[MRC_SHARD_MAX_PLANES] __rte_cache_aligned; /* a line of its own */
	struct mrcd_nd_port nd[MRC_SHARD_MAX_PLANES] __rte_cache_aligned;
	uint16_t port[MRC_SHARD_MAX_PLANES]; /* setup: the ethdev port of each plane; read-only */
	/* setup (ethdev): each plane port's tx ring, and the NIC tx room in descriptors
	 * (mrc_shard_cfg.tx_room_desc; 0: none asked) */
	uint16_t tx_desc[MRC_SHARD_MAX_PLANES], tx_room_desc[MRC_SHARD_MAX_PLANES];
	uint32_t port_started; /* control (ports, loop): planes whose port we started */
	/* setup: how each plane's port steers (enum mrcd_steer), its rx queues, and why */
	uint8_t steer[MRC_SHARD_MAX_PLANES];
	uint16_t rx_queues[MRC_SHARD_MAX_PLANES];
	char steer_why[MRC_SHARD_MAX_PLANES][128];
	/* setup: whether each plane's port accepted the egress encap rule ([ports]
	 * encap_offload, mrcd_encap.c), and why it encapsulates in software */
	bool encap_ok[MRC_SHARD_MAX_PLANES];
	char encap_why[MRC_SHARD_MAX_PLANES][160];
	/* the rules made as QPs appear (mrcd_encap_rules.c): encap_ops, setup: the backend of
	 * a port that took the probe rule (NULL: software); encap: control's (rules, the QPs'
	 * tables); encap_rules, encap_fails: control writes at setup (and, relaxed, as
	 * neighbour discovery makes a port's rules), reports read */
	const struct mrc_flow_ops *encap_ops[MRC_SHARD_MAX_PLANES];
	struct mrcd_encap_host *encap;
	uint32_t encap_rules[MRC_SHARD_MAX_PLANES], encap_fails[MRC_SHARD_MAX_PLANES];
	/* a port whose next hop is resolved: times its rules were made again (control
	 * writes as it runs, reports read) */
	uint32_t encap_remakes[MRC_SHARD_MAX_PLANES];
	/* endpoint requests and answers (QPN 2) built in software on a plane whose port
	 * offloads: control writes (relaxed), stats read */
	uint64_t encap_sw_epreq;
	/* setup: the rules steering each port's packets to the workers (flow steering),
	 * and the backend that made them; control removes them at teardown */
	const struct mrc_flow_ops *flow_ops[MRC_SHARD_MAX_PLANES];
	struct mrc_flow *flows[MRC_SHARD_MAX_PLANES][MRC_SHARD_MAX_SHARDS];
	/* setup: the flows this host sends and receives (indexes into flows); read-only */
	uint32_t *send_flows, *recv_flows;
	uint32_t n_send, n_recv;
};

/* What the ports themselves dropped (ethdev mode), summed over all ports. */
struct mrcd_port_drops {
	uint64_t imissed, ierrors, oerrors, rx_nombuf;
};

/*
 * What a worker publishes about one shard of a host (and the flows whose QPs
 * it owns), every
 * [lcores] stats_interval_ms. Every field: the worker writes
 * (mrcd_snapshot_publish, under `seq`), stats and control read
 * (mrcd_snapshot_read: the console, files, telemetry, the drain check).
 */
struct mrcd_snapshot {
	uint32_t seq; /* odd while being written */
	uint64_t tsc; /* when it was taken */
	uint64_t tx_bytes[MRC_SHARD_MAX_PLANES], rx_bytes[MRC_SHARD_MAX_PLANES];
	uint64_t posted, completed, failed;
	uint64_t sent_bytes, verified_bytes, verify_errors;
	uint64_t verified_msgs;
	uint64_t retx, nacks, ecn_echoes, ev_losses;
	uint64_t data_pkts, spurious;
	uint64_t ev_good, ev_skip, ev_bad, ev_denied;
	uint64_t rejects; /* packets the parser refused */
	bool stopping;	  /* the worker had seen the drain begin: it posts no more */
};

/* One EV of a queried QP (written by the owning worker, read by the asker). */
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
	uint64_t lost[MRC_REL_LOSS_MAX]; /* packets found lost, by rel's rule */
	/* ages at the copy, in TSC ticks */
	uint64_t since_progress_tsc, since_ack_tsc, srtt_tsc;
};

/*
 * A telemetry question about one QP and its owner's answer, one per worker
 * (struct mrcd_worker's query). The asker is the stats thread replying to
 * /mrc/ (stats/mrcd_query_ask.c, one at a time under a mutex); it asks in
 * the slot of the worker that runs the QP's shard and reads that slot
 * alone. The owner, that worker (datapath/mrcd_query.c), writes its own slot
 * alone: a worker that answers late, its asker gone, writes over no answer
 * another worker gave a later asker.
 */
struct mrcd_qp_query {
	/*
	 * The request, under a sequence lock: the asker makes ask odd, writes host
	 * and qp, then makes ask even (release), the request's number; the owner
	 * reads ask (acquire), host and qp, then ask again, and takes the request
	 * if it was even and did not move. The asker alone writes; the owner reads.
	 */
	uint32_t ask;
	/* the owner sets it to the ask it answered once the answer is in (release), and
	 * reads it; the asker reads (acquire) */
	uint32_t done;
	unsigned int host;	 /* the asker writes while ask is odd; the owner reads */
	const struct mrc_qp *qp; /* likewise */
	/* the answer: the owner writes before setting done; the asker reads after */
	enum mrc_qp_state state;
	enum mrc_qp_error error;
	size_t mem_bytes;
	struct mrc_qp_counters counters;
	bool has_rel; /* the sender/receiver state below is valid (past INIT) */
	struct mrcd_query_rel rel;
	unsigned int n_ev;
	struct mrcd_query_ev ev[MRCD_QUERY_MAX_EVS];
} __rte_cache_aligned; /* lines of its own: the stats thread writes the first */

struct mrcd_daemon;
struct mrcd_recover;
struct mrcd_reload;
struct mrcd_ctl;
struct mrcd_stats;

/* A shard a worker runs: host h's shard k. */
struct mrcd_unit {
	uint16_t host, shard;
};

/* One worker lcore. Setup writes all but cpu_ns and query; the worker reads its own. */
struct mrcd_worker {
	struct mrcd_daemon *d;
	unsigned int lcore;
	bool runs_fabric; /* polls the emulated fabric and publishes its counters */
	unsigned int n_units;
	/* the shards (and the flows whose QPs they own) it runs */
	struct mrcd_unit units[MRCD_MAX_HOSTS * MRC_SHARD_MAX_SHARDS];
	uint64_t cpu_ns; /* the worker writes as it leaves its loop; the summary reads after */
	struct mrcd_qp_query query; /* questions about its QPs: see struct mrcd_qp_query */
};

/* Service mode (control/mrcd_service.c): control writes and reads, but for the reload
 * counts, which telemetry reads too (atomic). */
struct mrcd_service {
	char state_dir[PATH_MAX], runtime_dir[PATH_MAX], pid_file[PATH_MAX];
	int pid_fd;		/* the pid file, locked while we run; -1: none */
	uint64_t scenario_hash; /* the scenario file's bytes at start, for SIGHUP */
	uint64_t reloads;	/* SIGHUPs handled */
	/* of those: taken (nothing to change, or applied), refused (running set kept) */
	uint64_t reloads_ok, reloads_refused;
	struct mrcd_notify notify; /* systemd's $NOTIFY_SOCKET (mrcd_notify.h) */
	bool ready_sent;	   /* READY=1 went out (the workers poll) */
	uint64_t next_status_tsc;  /* the next STATUS= line */
	/* a reload's fault timeline, offered to the fabric, until its poller takes it */
	struct mrc_fabric_timeline *timeline;
	/* mrcctl reload: the control socket's thread bumps ask (release); the control loop
	 * reloads, writes answer_rc and answer, then sets done = the ask it served (release) */
	uint32_t ask, done;
	int answer_rc; /* 0 unchanged, 2 applied, 1 refused, < 0 a file that does not check out */
	char answer[1536];
};

struct mrcd_daemon {
	struct mrcd_cli cli;	  /* control (main.c) writes before setup; read-only after */
	struct mrcd_service svc;  /* control only */
	struct mrcd_config cfg;	  /* likewise: everyone reads */
	struct mrcd_profile prof; /* likewise; a reload writes the keys it applies */
	/*
	 * The generator's parameters (mrcd_gen_params): control builds and publishes
	 * (release), each shard's worker takes it (hc->gen); gen_old is the block
	 * before, control's, freed once every shard took gen_pub.
	 */
	struct mrcd_gen_params *gen_pub, *gen_old;
	uint64_t hz; /* control, before setup; read-only after */
	/* control, before setup: the profile and scenario files ("" = built-in, none) */
	char profile_path[PATH_MAX], scenario_path[PATH_MAX];
	bool no_traffic; /* control, before setup: profile none, no flows; read-only after */
	/* setup writes; read-only after (n_hosts: this process's hosts) */
	unsigned int n_hosts, n_flows, n_workers;
	unsigned int n_cluster_flows; /* setup: flows in the whole cluster; read-only after */
	/*
	 * setup: room in flows and peer_qp (and each shard's flow lists and queues) for
	 * flows a reload adds (mrcd_reload.h): n_flows at start, twice that in service
	 * mode. A reload (control) fills flows[n_flows] then publishes n_flows (release).
	 */
	unsigned int flow_cap;
	struct mrcd_reload *reload; /* setup (service mode); control only */
	int32_t *flow_of; /* setup: cluster flow -> index in flows, or -1; read-only after */
	/*
	 * A cluster spread over processes, in service mode (mrcd_reload.h): the
	 * QPN pairs reloads add flows on, from added_qpn (setup); pair k ->
	 * index in flows or -1 (control writes with release before the pair's
	 * QPs go to a shard; workers, control and telemetry read).
	 */
	uint32_t added_qpn, n_added_pairs;
	int32_t *added_of;
	struct mrcd_hostctx host[MRCD_MAX_HOSTS];
	/* setup: n_flows; a flow's identity (ends, QPNs, buffers) is read-only after
	 * setup, its counters and pacing belong to the worker of its local end */
	struct mrcd_flow *flows;
	struct mrc_qp **peer_qp; /* setup: n_flows, the receiving end of each flow */
	/* setup writes, the summary reads: what setup allocated, for the bytes per QP */
	size_t msg_buf_bytes, qp_bytes, trk_bytes, heap_bytes;
	/* setup: the emulated fabric (NULL on ports); the worker with runs_fabric polls it,
	 * control reads its event log and counters after */
	struct mrc_fabric *fab;
	struct mrcd_worker workers[MRCD_MAX_WORKERS];
	int phase;		     /* enum mrcd_phase: control writes (release), all read */
	uint64_t run_tsc, drain_tsc; /* control writes at the drain's start and end */
	/* control writes as the run starts, the summary reads after: the run's t = 0,
	 * also as CLOCK_MONOTONIC (the outputs get it as an argument) */
	uint64_t start_tsc, start_mono_ns;
	/* control: the process's CPU time (every thread) from the workers' launch to their
	 * stop; less the workers' own, what the main, stats and other threads took */
	uint64_t run_cpu_ns;
	/* the control loop's passes (each a wake-up of the main lcore): control writes
	 * (relaxed), /mrc/info reads; says the loop sleeps when it has nothing to do */
	uint64_t ctl_passes;
	/* the shards' snapshots: their worker writes, stats and control read (summed per
	 * host by mrcd_snapshot_read) */
	struct mrcd_snapshot snap[MRCD_MAX_HOSTS][MRC_SHARD_MAX_SHARDS];
	/* the fabric's counters: the worker with runs_fabric writes under fab_seq,
	 * telemetry reads (mrcd_fabric_snapshot_read) */
	uint32_t fab_seq;
	struct mrc_fabric_counters fab_snap;
	/* control (mrcd_loop.c) writes at setup and teardown: [ports] mode = loop, the
	 * link from host h to its peer on plane p; the net_ring ports read and write the
	 * rings (the workers' rx and tx bursts) */
	struct rte_ring *loop_ring[MRCD_MAX_HOSTS][MRC_SHARD_MAX_PLANES];
	bool loop_vdev[MRCD_MAX_HOSTS][MRC_SHARD_MAX_PLANES];
	/* likewise, with several workers per host: host pair k's link on plane p, two
	 * ports whose tx bursts play the receiving NIC (drivers/nic/mrc_nic_loop.h) */
	struct mrc_nic_loop *nic_loop[MRCD_MAX_HOSTS / 2][MRC_SHARD_MAX_PLANES];
	/* [fabric] capture on loop pairs (several workers a host): their NICs' tx */
	struct mrc_nic_capture *loop_capture;
	/* setup (mrcd_recover_init): flows brought back after a QP error; see mrcd_recover.h
	 * for who writes and reads each part */
	struct mrcd_recover *recover;
	/* control (main.c) starts and stops it: the control socket and its thread
	 * (control/mrcd_ctl.h); NULL when there is none */
	struct mrcd_ctl *ctl;
	/*
	 * Port masks of the hosts in other processes, as their port-status requests say
	 * (bit p set: its plane p is up; all planes until told): control writes each
	 * (release), then bumps ep_peer_gen (release); the workers read the generation
	 * every pass and the masks when it moved (mrcd_epreq.h)
	 */
	uint32_t ep_peer_mask[MRCD_CONFIG_MAX_HOSTS];
	uint32_t ep_peer_gen;
	struct mrcd_ep *ep; /* setup (mrcd_ep_init); control only */
	/* control writes (release) as the run starts (mrcd_stats_start), telemetry reads
	 * (acquire): the stats thread and what it publishes; see stats/mrcd_stats.h */
	struct mrcd_stats *stats;
	/* control (mrcd_apps_open, _close): the application channel (apps/mrcd_apps.h); NULL:
	 * none */
	struct mrcd_apps *apps;
	/* EV and CC profiles (mrcd_profile_table.h: under its mutex; control changes them,
	 * the threads that make QPs copy them; no worker reads it) */
	struct mrcd_profile_table profiles;
};

#endif /* MRCD_DAEMON_H */
