/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRC_CHAN_H
#define MRC_CHAN_H

/*
 * The channel between lib_mrc (in an application) and mrcd: what both sides
 * agree on, and the checks mrcd makes on everything that comes from the
 * application side. doc/applications.md draws it.
 *
 * Setup goes over a unix SOCK_SEQPACKET socket, one request and one reply
 * per message (struct mrc_chan_req / mrc_chan_rep), file descriptors with
 * SCM_RIGHTS: the application's memfds with its registered memory, and the
 * shared memory mrcd makes for each CQ and QP. The first request is HELLO;
 * a different channel version gets -EPROTO and a message saying both.
 *
 * Work goes through shared memory, in single-producer single-consumer rings
 * (struct mrc_chan_ring: a head the producer writes, a tail the consumer
 * writes, on lines of their own). Per QP a send queue (the application
 * produces, the QP's worker consumes) and a receive queue (likewise); per
 * (CQ, worker) a completion ring (that worker produces, mrc_poll_cq
 * consumes). The sizes are mrcd's, given in the replies; mrcd keeps its own
 * copy of them and of every index it owns and never trusts the shared copy:
 * each entry it takes is copied out, then checked (mrc_chan_swqe_check).
 *
 * No DPDK here: lib_mrc, the daemon and the fuzz target all build it.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MRC_CHAN_MAGIC	 0x4d524343u /* "MRCC" */
#define MRC_CHAN_VERSION 3u /* bumped on any change to this file's layouts or to the fds sent */

/* Sizes mrcd accepts (entries, powers of two after rounding up). */
#define MRC_CHAN_MAX_SQ	 4096u
#define MRC_CHAN_MAX_RQ	 4096u
#define MRC_CHAN_MAX_CQ	 65536u
#define MRC_CHAN_MAX_MSG (1u << 31) /* bytes of one write */
/* Per application (session): mrcd refuses more (ENOMEM); mrc.h publishes them as
 * MRC_SW_MAX_* (lib_mrc checks that they agree when it is built). */
#define MRC_CHAN_SESSION_QPS	  64u
#define MRC_CHAN_SESSION_CQS	  32u
#define MRC_CHAN_SESSION_MRS	  64u
#define MRC_CHAN_SESSION_MR_BYTES (4ull << 30)
#define MRC_CHAN_MSG_BYTES	  128 /* an error message in a reply */

enum mrc_chan_op {
	MRC_CHAN_HELLO = 1,
	MRC_CHAN_REG_MR, /* + the memfd */
	MRC_CHAN_DEREG_MR,
	MRC_CHAN_CREATE_CQ, /* reply + the CQ's shared memory */
	MRC_CHAN_DESTROY_CQ,
	MRC_CHAN_CREATE_QP, /* reply + the QP's shared memory */
	MRC_CHAN_MODIFY_QP,
	MRC_CHAN_DESTROY_QP,
	/* no fd; reply + the read end of a pipe mrcd makes and writes a byte on
	 * (its write end non-blocking, mrcd's alone) when an armed CQ gets an entry */
	MRC_CHAN_CREATE_CHANNEL,
	MRC_CHAN_DESTROY_CHANNEL, /* mrcd closes its write end; EBUSY while a CQ uses it */
	MRC_CHAN_OP_END,
};

/* QP states on the channel: verbs' numbering (IBV_QPS_RESET ... IBV_QPS_ERR). */
enum mrc_chan_qp_state {
	MRC_CHAN_QPS_RESET = 0,
	MRC_CHAN_QPS_INIT = 1,
	MRC_CHAN_QPS_RTR = 2,
	MRC_CHAN_QPS_RTS = 3,
	MRC_CHAN_QPS_ERR = 6,
};

/* Which fields of a MODIFY_QP request are given. */
#define MRC_CHAN_MOD_AV	      (1u << 0) /* dgid */
#define MRC_CHAN_MOD_DEST_QPN (1u << 1)
#define MRC_CHAN_MOD_RQ_PSN   (1u << 2)
#define MRC_CHAN_MOD_SQ_PSN   (1u << 3)
#define MRC_CHAN_MOD_MTU      (1u << 4)
#define MRC_CHAN_MOD_ACCESS   (1u << 5)
#define MRC_CHAN_MOD_TIMEOUT  (1u << 6)
#define MRC_CHAN_MOD_RETRY    (1u << 7)
#define MRC_CHAN_MOD_MPR      (1u << 8)
#define MRC_CHAN_MOD_MPR_DEST (1u << 9)
#define MRC_CHAN_MOD_CUR      (1u << 10) /* cur_state is asserted */
/* RESET -> INIT only: the daemon's EV and CC profiles by id (doc/control.md, "Profiles") */
#define MRC_CHAN_MOD_EV_PROFILE (1u << 11)
#define MRC_CHAN_MOD_CC_PROFILE (1u << 12)
#define MRC_CHAN_MOD_ALL	((1u << 13) - 1)

/* Region access bits on the channel (verbs': local write, remote write). */
#define MRC_CHAN_ACC_LOCAL_WRITE  (1u << 0)
#define MRC_CHAN_ACC_REMOTE_WRITE (1u << 1)

struct mrc_chan_req {
	uint32_t magic;
	uint16_t op; /* enum mrc_chan_op */
	uint16_t reserved;
	uint64_t seq; /* echoed in the reply */
	union {
		struct {
			uint32_t version; /* MRC_CHAN_VERSION */
			uint32_t api_version;
			uint32_t host; /* the cluster host to attach to */
			uint32_t pid;  /* for mrcd's log: it shows the kernel's (SO_PEERCRED) */
		} hello;
		struct {
			uint64_t addr;	 /* the application's address of the region */
			uint64_t len;	 /* its bytes */
			uint64_t fd_off; /* where addr is in the memfd */
			uint32_t access; /* MRC_CHAN_ACC_* */
			uint32_t pd;	 /* the application's protection domain number */
		} reg_mr;
		struct {
			uint32_t key;
		} dereg_mr;
		struct {
			uint32_t entries;
			uint32_t channel; /* 0: none */
		} create_cq;
		struct {
			uint32_t cq;
		} destroy_cq;
		struct {
			uint32_t channel;
		} destroy_channel;
		struct {
			uint32_t send_cq, recv_cq;
			uint32_t max_send_wr, max_recv_wr;
			uint32_t sq_sig_all;
			uint32_t pd;
		} create_qp;
		struct {
			uint32_t qpn;
			uint32_t state;	    /* enum mrc_chan_qp_state */
			uint32_t cur_state; /* with MRC_CHAN_MOD_CUR */
			uint32_t mask;	    /* MRC_CHAN_MOD_* */
			uint8_t dgid[16];
			uint32_t dest_qpn, rq_psn, sq_psn;
			uint32_t mtu; /* bytes, 256 .. 4096 */
			uint32_t access;
			uint8_t timeout, retry_linear, retry_exp, mpr, mpr_dest;
			uint8_t ev_profile, cc_profile; /* with MRC_CHAN_MOD_*_PROFILE */
			uint8_t reserved[1];
		} modify_qp;
		struct {
			uint32_t qpn;
		} destroy_qp;
	} u;
};

struct mrc_chan_rep {
	uint32_t magic;
	uint16_t op;
	uint16_t reserved;
	int32_t rc; /* 0 or -errno */
	uint32_t reserved2;
	uint64_t seq;
	union {
		struct {
			uint32_t version; /* mrcd's channel version */
			uint32_t host;
			uint32_t n_workers; /* completion rings per CQ */
			uint32_t mtu;
			uint8_t gid[16]; /* the host's address */
			uint32_t max_qps, max_mrs;
			uint64_t max_mr_bytes;
			/* mrcd's hosts, given even when `host` is not one of them (ENODEV):
			 * how the verbs front lists its devices */
			uint32_t first_host, n_hosts;
		} hello;
		struct {
			uint32_t key; /* lkey == rkey */
		} reg_mr;
		struct {
			uint32_t channel;
		} create_channel;
		struct {
			uint32_t cq;
			uint32_t n_rings, entries; /* rings of `entries` each */
			uint64_t bytes;		   /* of the shared memory */
		} create_cq;
		struct {
			uint32_t qpn;
			uint32_t sq_entries, rq_entries;
			uint64_t bytes;
		} create_qp;
	} u;
	char msg[MRC_CHAN_MSG_BYTES]; /* why, when rc != 0 */
};

/* One ring's indexes, each on its own cache line. Entries follow the header. */
struct mrc_chan_ring {
	uint32_t head; /* the producer's: entries written, free running */
	uint8_t pad0[60];
	uint32_t tail; /* the consumer's: entries taken, free running */
	uint8_t pad1[60];
};

/*
 * A CQ's first line: its notification state. The application sets `armed`
 * (mrc_req_notify_cq); the worker that next completes into the CQ takes it
 * back to 0, sets `fired` and has the control thread write a byte on the
 * channel's pipe; mrc_get_cq_event takes `fired` back.
 */
struct mrc_chan_cq_status {
	uint32_t armed;
	uint32_t fired;
	uint8_t pad[56];
};

/* The status mrcd keeps for a QP (mrcd writes, the application reads). */
struct mrc_chan_qp_status {
	uint32_t state;	 /* enum mrc_chan_qp_state */
	uint32_t error;	 /* why it went to ERROR (enum mrc_chan_qp_error), once */
	uint32_t events; /* bumped per async event the QP has for the application */
	uint8_t pad[52];
};

enum mrc_chan_qp_error {
	MRC_CHAN_QPE_NONE = 0,
	MRC_CHAN_QPE_RETRY,	 /* retries spent */
	MRC_CHAN_QPE_REMOTE,	 /* the peer refused a write */
	MRC_CHAN_QPE_LOCAL,	 /* a local fault: a bad work request */
	MRC_CHAN_QPE_CQ_OVERRUN, /* a completion found its CQ full */
	MRC_CHAN_QPE_RNR,	 /* a Write-with-immediate found no receive posted */
	MRC_CHAN_QPE_USER,	 /* the application moved it to ERROR */
};

enum mrc_chan_wr_opcode {
	MRC_CHAN_WR_WRITE = 0,
	MRC_CHAN_WR_WRITE_IMM = 1,
};
#define MRC_CHAN_WR_SIGNALED 0x1u

/* A send request: one SGE (lib_mrc refuses more for now). */
struct mrc_chan_swqe {
	uint64_t wr_id;
	uint64_t laddr; /* the application's address */
	uint64_t raddr; /* the peer's */
	uint32_t len;
	uint32_t lkey, rkey;
	uint32_t imm; /* network order, as verbs gives it */
	uint8_t opcode;
	uint8_t flags;
	uint8_t reserved[6];
};

/* A posted receive: a credit for one Write-with-immediate. */
struct mrc_chan_rwqe {
	uint64_t wr_id;
};

enum mrc_chan_wc_opcode {
	MRC_CHAN_WC_WRITE = 0,
	MRC_CHAN_WC_RECV_IMM = 1,
};

enum mrc_chan_wc_status {
	MRC_CHAN_WC_OK = 0,
	MRC_CHAN_WC_FLUSH,	/* the QP went to ERROR first */
	MRC_CHAN_WC_LOC_PROT,	/* the local buffer is not this application's region */
	MRC_CHAN_WC_LOC_QP_OP,	/* a malformed request */
	MRC_CHAN_WC_REM_ACCESS, /* the peer refused the write */
	MRC_CHAN_WC_RETRY_EXC,	/* retries spent */
};

struct mrc_chan_cqe {
	uint64_t wr_id;
	uint32_t byte_len;
	uint32_t imm;
	uint32_t qpn;
	uint32_t sq_index; /* send completions: the request's place in the send ring */
	uint8_t opcode;	   /* enum mrc_chan_wc_opcode */
	uint8_t status;	   /* enum mrc_chan_wc_status */
	uint16_t reserved;
	uint32_t reserved2;
};

/*
 * Layouts of the shared memory, offsets from its start. A CQ: a status line,
 * then n_rings rings. A QP: its status line, the send ring, the receive ring.
 */
size_t mrc_chan_cq_ring_off(uint32_t entries, uint32_t ring);
size_t mrc_chan_cq_bytes(uint32_t entries, uint32_t n_rings);
size_t mrc_chan_qp_sq_off(void);
size_t mrc_chan_qp_rq_off(uint32_t sq_entries);
size_t mrc_chan_qp_bytes(uint32_t sq_entries, uint32_t rq_entries);

/* Power of two at least n (and 1); 0 beyond 2^31. */
uint32_t mrc_chan_pow2(uint32_t n);

/* What mrcd refuses of what the application wrote, each counted per session. */
#define MRC_CHAN_REFUSALS(X)                                                               \
	X(msg_size, "a socket message of the wrong size")                                  \
	X(msg_magic, "a socket message without the channel's magic")                       \
	X(msg_op, "a socket message with an unknown operation")                            \
	X(msg_field, "a socket message with a field out of range")                         \
	X(ring_index, "a ring head more than its size ahead of the tail")                  \
	X(wqe_opcode, "a send request with an opcode other than WRITE and WRITE_WITH_IMM") \
	X(wqe_flags, "a send request with unknown flags")                                  \
	X(wqe_len, "a send request longer than 2 GiB or wrapping the address space")       \
	X(wqe_key, "a send request whose buffer is not in a region of this application")

enum mrc_chan_refusal {
#define MRC_CHAN_REFUSAL_ENUM(n, d) MRC_CHAN_REF_##n,
	MRC_CHAN_REFUSALS(MRC_CHAN_REFUSAL_ENUM)
#undef MRC_CHAN_REFUSAL_ENUM
		MRC_CHAN_REF_END,
	MRC_CHAN_REF_NONE = MRC_CHAN_REF_END, /* accepted */
};

const char *mrc_chan_refusal_name(enum mrc_chan_refusal r);

/*
 * Check a request read from the socket (`len` bytes at `buf`, any alignment):
 * copy it to *out and say what is wrong with it, MRC_CHAN_REF_NONE if nothing.
 */
enum mrc_chan_refusal mrc_chan_req_check(const void *buf, size_t len, struct mrc_chan_req *out);

/*
 * How many entries a ring holds, from a head read in shared memory and the
 * consumer's own tail and size: MRC_CHAN_REF_ring_index when the head is
 * more than `size` ahead (it was scribbled on).
 */
enum mrc_chan_refusal mrc_chan_ring_count(uint32_t head, uint32_t tail, uint32_t size, uint32_t *n);

/* Check a send request already copied out of shared memory. */
enum mrc_chan_refusal mrc_chan_swqe_check(const struct mrc_chan_swqe *w);

#endif /* MRC_CHAN_H */
