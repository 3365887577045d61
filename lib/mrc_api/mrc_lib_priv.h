/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRC_LIB_PRIV_H
#define MRC_LIB_PRIV_H

/* lib_mrc's objects. One thread per QP posts and one per CQ polls, as in verbs. */

#include <pthread.h>
#include <stdbool.h>

#include "mrc.h"
#include "mrc_chan.h"

#define MRC_LIB_DEV_MAGIC 0x6d726364u
#define MRC_LIB_MAX_QPS	  MRC_SW_MAX_QPS
#define MRC_LIB_MAX_MRS	  MRC_SW_MAX_MRS
#define MRC_LIB_MAX_CQS	  MRC_SW_MAX_CQS

/* What mrc.h tells programs is what mrcd enforces. */
_Static_assert(MRC_SW_MAX_QPS == MRC_CHAN_SESSION_QPS, "mrc.h's QP limit is not mrcd's");
_Static_assert(MRC_SW_MAX_CQS == MRC_CHAN_SESSION_CQS, "mrc.h's CQ limit is not mrcd's");
_Static_assert(MRC_SW_MAX_MRS == MRC_CHAN_SESSION_MRS, "mrc.h's region limit is not mrcd's");
_Static_assert(MRC_SW_MAX_MR_BYTES == MRC_CHAN_SESSION_MR_BYTES,
	"mrc.h's registered-bytes limit is not mrcd's");

/*
 * A device: the connection to mrcd as one of its hosts. vctx first: its
 * `context` is the struct ibv_context programs hold, and being a verbs_context
 * (marked extended) lets verbs.h's inlines (ibv_query_port) reach the ops the
 * verbs front sets in it.
 */
struct mrc_lib_dev {
	struct verbs_context vctx;
	struct ibv_device dev;
	uint32_t magic;
	int fd;
	unsigned int host, n_workers, mtu;
	uint32_t max_qps, max_mrs; /* mrcd's limits per application */
	uint64_t max_mr_bytes;
	uint8_t gid[16];
	uint64_t seq;
	bool dead;	      /* mrcd went away: everything completes flushed */
	bool fatal_told;      /* IBV_EVENT_DEVICE_FATAL given */
	pthread_mutex_t lock; /* one request on the socket at a time */
	struct mrc_context *mctx;
	uint32_t empty_polls;
	/* the device's regions, so a post naming memory that is not one fails at once
	 * (EINVAL) instead of taking the QP to ERROR; key 0: a free entry */
	struct mrc_lib_region {
		uint32_t key;
		uint32_t pd; /* its protection domain's handle */
		uint64_t addr, len;
	} regions[MRC_LIB_MAX_MRS];
};

/* Is [addr, addr + len) inside the device's region `lkey`, of protection domain `pd`? */
bool mrc_lib_region_ok(
	const struct mrc_lib_dev *dev, uint32_t pd, uint32_t lkey, uint64_t addr, uint64_t len);

struct mrc_context {
	struct mrc_lib_dev *dev;
	struct mrc_qp *qps[MRC_LIB_MAX_QPS];
	struct mrc_cq *cqs[MRC_LIB_MAX_CQS]; /* for the channels' events */
};

struct mrc_comp_channel {
	struct mrc_context *ctx;
	int fd; /* the read end of the pipe mrcd writes a byte on */
	uint32_t id;
};

struct mrc_cq {
	struct mrc_context *ctx;
	uint32_t id, entries, n_rings, next_ring;
	uint8_t *shm;
	size_t bytes;
	void *cq_context;
	struct mrc_comp_channel *channel;
	unsigned int events_got, events_acked;
	uint32_t tail[64]; /* per ring: ours, copied to the shared tail */
	/* completions made here when mrcd is gone (flushes) */
	struct ibv_wc *flush;
	uint32_t n_flush, flush_pos;
};

struct mrc_qp_hint {
	struct mrc_context *ctx;
	struct mrc_qp_hint_attr attr;
	int users;
};

struct mrc_qp {
	struct mrc_context *ctx;
	uint32_t qpn;
	uint8_t *shm;
	size_t bytes;
	struct mrc_chan_qp_status *st;
	struct mrc_chan_ring *sq, *rq;
	struct mrc_chan_swqe *sqe;
	struct mrc_chan_rwqe *rqe;
	uint32_t sq_size, rq_size;
	uint32_t sq_head, rq_head; /* ours: posted */
	uint32_t sq_done, rq_done; /* completed (in order), for flushing what is left */
	uint64_t *rq_wr;	   /* wr_ids posted, by ring index */
	struct mrc_qp_init_attr init;
	struct ibv_qp_attr vattr; /* what was set */
	struct mrc_qp_attr mattr;
	uint32_t events_seen;
};

int mrc_lib_rpc(struct mrc_lib_dev *dev, struct mrc_chan_req *r, int send_fd,
	struct mrc_chan_rep *rep, int *recv_fd);
struct mrc_lib_dev *mrc_lib_dev_of(struct ibv_context *c);
/* The size of shared memory a sound CREATE_CQ or CREATE_QP reply announces; 0: unsound. */
typedef size_t (*shm_bytes_fn)(const struct mrc_chan_rep *rep);

/*
 * Ask mrcd for a CQ or QP (r) and map the shared memory whose fd comes with
 * its reply (rep). The mapping, or NULL with errno set: the request's, EPROTO
 * when the fd is missing or `bytes_of` finds the reply unsound, or mmap's.
 * The fd is closed either way: the mapping keeps the memory.
 */
uint8_t *mrc_lib_create_mapped(struct mrc_context *c, struct mrc_chan_req *r,
	struct mrc_chan_rep *rep, shm_bytes_fn bytes_of);

/* mrcd is gone: flush every QP's outstanding work into its CQs. */
void mrc_lib_dev_died(struct mrc_lib_dev *dev);

#endif /* MRC_LIB_PRIV_H */
