/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRCD_RECOVER_PRIV_H
#define MRCD_RECOVER_PRIV_H

/*
 * Internal to the recovery's control side: a flow's recovery state, shared
 * by the steps of a flow with both ends here (mrcd_recover.c) and those of
 * one whose other end is in another process (mrcd_recover_xp.c). Control
 * only, like everything here.
 */

#include <stdbool.h>
#include <stdint.h>

#include "mrc_shard.h"
#include "mrcd_recover.h"

enum rec_state {
	REC_UP = 0,   /* running (or never failed) */
	REC_RETIRING, /* both old QPs asked to retire */
	REC_HOLD,     /* both retired: waiting before a new pair */
	REC_ADDING,   /* the new pair asked into the shards */
	REC_SEQ,      /* the sender's worker asked for the next message number */
	REC_RECV,     /* the receiver's worker taking its new QP */
	REC_SEND,     /* the sender's worker taking its new QP */
	REC_DOWN,     /* given up: stays failed */
	/* the other end in another process (mrcd_recover_xp.c): this end's steps */
	REC_X_RETIRING, /* this end's QP asked to retire */
	REC_X_HOLD,	/* sender: retired, waiting before a new pair */
	REC_X_SEQ,	/* sender: its worker asked for the next message number */
	REC_X_ASK,	/* sender: the receiver's process asked to make its end of a spare */
	REC_X_ADDING,	/* sender: it said yes; our new QP asked into the shard */
	REC_X_SEND,	/* sender: its worker taking the new QP */
	REC_X_TELL,	/* receiver: its QP retired; telling the sender's process */
	REC_X_WAIT,	/* receiver: told; waiting for the sender's process to ask */
	REC_X_RADDING,	/* receiver: asked; our new QP asked into the shard */
	REC_X_RECV,	/* receiver: its worker taking the new QP */
};

/* One flow's recovery; control only. */
struct mrcd_flow_rec {
	uint8_t state; /* enum rec_state */
	uint8_t fails; /* failures in the window that began at window_tsc */
	bool listed;   /* on the active list */
	bool sent[2];  /* the current step's request to each end is on its ring */
	int32_t spare; /* the spare pair the flow's QPs use, -1: the flow's own QPNs */
	int32_t next_spare;
	uint64_t window_tsc, at_tsc, free_tsc;
	struct mrc_qp *cur_send, *cur_recv; /* the pair now in use (or retired) */
	struct mrc_qp *new_send, *new_recv; /* made, not yet taken by the workers */
	struct mrc_qp *old_send, *old_recv; /* taken out, destroyed at free_tsc */
	struct mrc_shard_req sreq[2];	    /* [0] the sender's end, [1] the receiver's */
	struct mrcd_gen_req greq;
	uint64_t seq;
	/*
	 * The other end in another process: only this end's QP is ours (in
	 * sreq[0], whichever end it is), and the two processes agree on the
	 * next pair by endpoint requests (mrcd_recover.h).
	 */
	bool xp;
	uint16_t life;	   /* the pair in use: 0 the flow's first, one more for each after */
	uint8_t tries;	   /* our request out (FAILED or MAKE): sent so many times */
	uint8_t refusals;  /* sender: spares the receiver's process said were not free */
	uint64_t next_tsc; /* when to send it again */
	uint16_t req_id;   /* its request id (each new request takes the next) */
	/* receiver: the MAKE being carried out (mk_pending) or last carried out (mk_done) */
	bool mk_pending, mk_done;
	uint8_t mk_status; /* its answer: 0 yes, else enum mrcd_recover_why + 1 */
	uint16_t mk_life, mk_req_id, mk_ts;
	uint32_t mk_spare;
	uint8_t why; /* given up (REC_DOWN): enum mrcd_recover_why */
	/* sender, given up: telling the receiver's process (a GIVE_UP of pair bye_life out) */
	bool bye;
	uint16_t bye_life;
};

/* The shard of local host h that owns `qp` (by the host's QPN map with several). */
struct mrc_shard *mrcd_rec_shard_of(
	const struct mrcd_daemon *d, unsigned int h, const struct mrc_qp *qp);
/* Put flow fi on the active list (once). */
void mrcd_rec_list(struct mrcd_recover *r, struct mrcd_flow_rec *x, uint32_t fi);
/*
 * Spare pair s is no flow's any more: free in this process's view once it
 * has rested MRCD_RECOVER_QUIET_MS from `now` (its packets still on the way
 * drain before another flow takes its numbers).
 */
void mrcd_rec_rest_spare(struct mrcd_daemon *d, uint32_t s, uint64_t now);
/* The flow stays failed: say why, count it on local host h (the end that saw it). */
void mrcd_rec_give_up(struct mrcd_daemon *d, unsigned int h, uint32_t fi, struct mrcd_flow_rec *x,
	enum mrcd_recover_why why);
/* Ask the worker of host h's shard k, which lists the flow's end (once); true when it
 * has answered. */
bool mrcd_rec_gen_done(
	struct mrcd_daemon *d, unsigned int h, unsigned int k, struct mrcd_flow_rec *x);
void mrcd_rec_ask_gen(
	struct mrcd_flow_rec *x, uint8_t op, uint32_t fi, struct mrc_qp *qp, uint64_t seq);
/* A flow's record, made at its first failure (NULL: out of memory). */
struct mrcd_flow_rec *mrcd_rec_of(struct mrcd_daemon *d, uint32_t fi);

/* mrcd_recover_xp.c: this end of a cross-process flow failed (QPN qpn); one step. */
void mrcd_rec_xp_failed(struct mrcd_daemon *d, uint32_t fi, uint32_t qpn, uint64_t now);
/* The sender of cross-process flow fi gives it up (x still in the step it gave up in):
 * the receiver's process is told, from the next step on. */
void mrcd_rec_xp_gave_up(struct mrcd_daemon *d, uint32_t fi, struct mrcd_flow_rec *x);
void mrcd_rec_xp_step(struct mrcd_daemon *d, uint32_t fi, struct mrcd_flow_rec *x, uint64_t now);

#endif /* MRCD_RECOVER_PRIV_H */
