/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRCD_APPS_PRIV_H
#define MRCD_APPS_PRIV_H

/* The applications' sessions, QPs, CQs and regions, and who writes what (mrcd_apps.h). */

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "mrc_chan.h"
#include "mrc_qp.h"
#include "mrcd_apps_dma.h"
#include "mrcd_daemon.h"

/* Per application (session) at most: a QP or region beyond is refused with ENOMEM. The
 * limits are the channel's, which mrc.h publishes (MRC_SW_MAX_*). */
#define MRCD_APPS_SESSIONS	   16
#define MRCD_APPS_SESSION_QPS	   MRC_CHAN_SESSION_QPS
#define MRCD_APPS_SESSION_CQS	   MRC_CHAN_SESSION_CQS
#define MRCD_APPS_SESSION_MRS	   MRC_CHAN_SESSION_MRS
#define MRCD_APPS_SESSION_MR_BYTES MRC_CHAN_SESSION_MR_BYTES
#define MRCD_APPS_SESSION_CHANNELS 8
/*
 * A connection has this long to say HELLO: sessions are few (16), and one
 * that says nothing would hold its slot for good.
 */
#define MRCD_APPS_HELLO_MS 5000
/* QPs a worker serves for applications at most. */
#define MRCD_APPS_WORKER_QPS (MRCD_APPS_SESSIONS * MRCD_APPS_SESSION_QPS)

/* Counters of one QP: its worker writes, telemetry reads (relaxed). */
struct mrcd_app_qp_cnt {
	uint64_t posted, sends_done, recvs_done, flushed, cq_overruns, rnr;
	uint64_t refused[MRC_CHAN_REF_END];
};

struct mrcd_app_cq {
	uint32_t id; /* 0: free slot */
	uint32_t entries, n_rings;
	uint8_t *shm; /* mrcd's mapping */
	size_t bytes;
	/* each ring's producer index: that ring's worker alone writes it */
	uint32_t head[MRCD_MAX_WORKERS];
	uint64_t overruns; /* any worker (atomic) */
	/* notification: the channel (1.., 0: none), where wake-ups go, and this CQ's token */
	uint32_t channel;
	struct rte_ring *wakes;
	void *token;
	uint64_t wakes_dropped; /* the wake-up ring was full: any worker (atomic) */
	/*
	 * A wake-up the ring could not take, owed: a worker sets it (atomic) and
	 * bumps *owed, the applications' count; control wakes the channel and
	 * clears it (mrcd_apps_wake_channels). The armed flag is spent by then,
	 * so nothing else would wake the application.
	 */
	uint32_t wake_owed;
	uint64_t *owed;
};

/*
 * A CQ got an entry: if the application armed it, spend the arming and wake
 * its channel through control (the wake-up ring, or owed when that is full).
 * Run by the worker that wrote the entry.
 */
void mrcd_apps_cq_notify(struct mrcd_app_cq *cq);

struct mrcd_app_session;

struct mrcd_app_qp {
	/* control writes; the worker reads what it needs after the QP was added */
	struct mrcd_app_session *s;
	uint32_t qpn;			  /* 0: free slot */
	unsigned int host, shard, worker; /* its owner: mrcd_apps_qpn_shard, that shard's lcore */
	uint32_t state; /* enum mrc_chan_qp_state: the application's view, control's copy */
	bool added;	/* on its shard (from RTR until destroyed) */
	bool sig_all;
	uint32_t access, mtu, dest_qpn, rq_psn, sq_psn;
	uint64_t pd; /* its protection domain in the engine (mrcd_apps_pd) */
	uint8_t timeout, retry_linear, retry_exp, mpr, mpr_dest;
	uint32_t mod_mask; /* MRC_CHAN_MOD_* given so far */
	uint8_t dgid[16];
	/*
	 * The EV and CC profiles named at RESET -> INIT (0: the defaults), copied then and
	 * counted on the daemon's table until RESET or destroy (held); the engine's QP is
	 * made from these copies, so a later change to a profile does not reach it
	 */
	bool profiles_held;
	uint8_t ev_profile, cc_profile;
	struct mrcd_qp_profile evp, ccp;
	struct mrcd_app_cq *scq, *rcq;
	struct mrc_qp *qp;
	struct mrc_cq *icq; /* the engine's completions for this QP, in mrcd's memory */
	uint8_t *shm;
	size_t bytes;
	struct mrc_chan_qp_status *st;
	struct mrc_chan_ring *sq, *rq;
	struct mrc_chan_swqe *sqe;
	struct mrc_chan_rwqe *rqe;
	uint32_t sq_size, rq_size; /* mrcd's own copy: the shared memory's is not read */
	/* the worker's alone */
	uint32_t sq_tail, rq_tail;
	uint64_t next_id; /* the engine's wr_id of the next message */
	struct mrcd_app_wr {
		uint64_t wr_id;
		uint32_t sq_index;
		uint8_t flags;
	} * shadow; /* sq_size entries, by the engine's wr_id */
	bool error_told;
	struct mrcd_app_qp_cnt cnt;
};

/*
 * A region. The host's region table (mrcd_hostctx.mrs) is one table that
 * every shard of the host reads, not a copy per worker: one key space and one
 * reference count of the packets attached to the region across all of them
 * (what says its pages may go), and one request to register. Shard 0's lcore
 * alone writes it (MRC_SHARD_CALL); the others see a region once its key is
 * published (release order, mrc_mr.h), and its pages are unmapped only after
 * every shard has passed since the key went (release_mr).
 */
struct mrcd_app_mr {
	uint32_t key; /* 0: free slot */
	uint8_t *map; /* mrcd's mapping of the memfd pages */
	size_t map_len;
	uint64_t addr, len;
	uint64_t pd;		  /* its protection domain in the engine (mrcd_apps_pd) */
	struct mrcd_apps_dma dma; /* the mapping's standing with DPDK and the ports' devices */
	bool dying; /* deregistered by the application or its end: freed when no packet holds it */
	bool retired; /* its key is gone, its slot waits for the packets that hold it */
};

struct mrcd_app_session {
	bool used;
	int fd;
	uint32_t id;	   /* 1.. : the high half of its protection domains (mrcd_apps_pd) */
	pid_t pid;	   /* the kernel's (SO_PEERCRED at accept), not the HELLO's */
	uid_t uid;	   /* the same */
	unsigned int host; /* local index */
	bool hello, closing;
	uint64_t hello_by_tsc; /* a connection that has not said HELLO by then is closed */
	struct mrcd_app_qp qp[MRCD_APPS_SESSION_QPS];
	struct mrcd_app_cq cq[MRCD_APPS_SESSION_CQS];
	struct mrcd_app_mr mr[MRCD_APPS_SESSION_MRS];
	uint64_t mr_bytes;
	/* the channels: the write ends, non-blocking and mrcd's alone, of pipes whose
	 * read ends the application got; a byte written per wake-up (-1: none) */
	int chan_fd[MRCD_APPS_SESSION_CHANNELS];
	uint64_t requests;
	uint64_t refused[MRC_CHAN_REF_END]; /* socket messages; its QPs count their own */
};

struct mrcd_apps_worker {
	struct mrcd_app_qp *qp[MRCD_APPS_WORKER_QPS];
	unsigned int n;
};

struct mrcd_apps {
	struct mrcd_daemon *d;
	int lfd;
	char path[108];
	uint32_t next_id;
	/* control writes the sessions under the lock; telemetry reads under it */
	pthread_mutex_t lock;
	struct mrcd_app_session sess[MRCD_APPS_SESSIONS];
	/* the worker's lists, changed by MRC_SHARD_CALL on that worker only */
	struct mrcd_apps_worker w[MRCD_MAX_WORKERS];
	/* per host: the first application QPN, and which are taken (control) */
	uint32_t qpn_first;
	uint32_t qpn_next[MRCD_MAX_HOSTS];
	bool qpn_used[MRCD_MAX_HOSTS][MRCD_APPS_QPNS];
	struct mrc_rand rand; /* control's, for the QPs' INIT */
	uint64_t sessions_total, sessions_refused;
	uint64_t sessions_no_hello;   /* closed: no HELLO within MRCD_APPS_HELLO_MS */
	uint64_t regions_dma_refused; /* control: a port's device could not read a region */
	/* armed CQs that got an entry: workers enqueue a CQ's token, control writes a
	 * byte on the channel (a worker makes no system call) */
	struct rte_ring *wakes;
	uint64_t wakes_sent;	  /* control */
	uint64_t wakes_pending;	  /* control: not written, the channel's pipe full */
	uint64_t wakes_failed;	  /* control: not written, else (EPIPE: its read end closed) */
	uint64_t wakes_owed;	  /* any worker bumps (atomic) as it owes a CQ a wake-up */
	uint64_t wakes_owed_seen; /* control: the count its last look went through */
};

/* mrcd_apps_worker.c, on the worker: the QP's status once it went to ERROR. */
void mrcd_app_qp_to_error(struct mrcd_app_qp *q, uint32_t why, uint64_t now);

#endif /* MRCD_APPS_PRIV_H */
