/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRCD_RECOVER_H
#define MRCD_RECOVER_H

/*
 * Bringing a generator flow back after one of its QPs went to ERROR.
 *
 * When both ends of the flow are hosts of this process, the control thread
 * (control/mrcd_recover.c) walks the flow through these steps, one tick at
 * a time, never writing worker state itself:
 *
 *   1. retire both old QPs: a MRC_SHARD_RETIRE_QP request to the shard of
 *      each end; the owner flushes what the sender had posted (each message
 *      completes FLUSHED and is counted failed) and gives the QP's lent
 *      memory back; the message slots stay registered;
 *   2. hold: wait MRCD_RECOVER_HOLD_MS, doubled for each earlier failure
 *      of the flow in the window, so a path that is still broken is not
 *      tried again at once;
 *   3. make a fresh pair on a spare pair of QP numbers (below), connected
 *      to each other, and add each to its end's shard (MRC_SHARD_ADD_QP);
 *   4. ask the sender's worker for the next message number S (MRCD_GEN_SEQ:
 *      its generator has stopped posting, the old QP being out of RTS);
 *   5. the receiver's worker takes the new QP and expects message S next
 *      (MRCD_GEN_RESUME_RECV);
 *   6. the sender's worker takes the new QP and posts from message S on
 *      (MRCD_GEN_RESUME_SEND): the verifier expects exactly what the new
 *      sender sends. The flow is counted recovered on its sending host.
 *
 * Across processes (control/mrcd_recover_xp.c): each process does the
 * steps for its own end, and the two agree by flow-recovery endpoint
 * requests (doc/protocol.md, "Flow recovery"; mrcd_epreq.h). The sender's
 * process leads: it numbers the flow's pairs (life), keeps the limits
 * below, picks the spare and says the message number S; the receiver's
 * process tells it of a failure of its end (FAILED), and makes its end of
 * the spare pair asked for (MAKE), has its worker expect S, then says yes;
 * only then does the sender make its QP and resume. The requests name the
 * flow by the number both processes give it: its place in the cluster's
 * list, or for a flow a reload added, the one the reload gave it alike in
 * both (mrcd_flow_of_cluster_id). Without endpoint operations the flow
 * stays failed (other_process).
 *
 * A flow that fails more than MRCD_RECOVER_TRIES times within
 * MRCD_RECOVER_WINDOW_S stays down, logged and counted. Each reason a flow
 * is not brought back has a counter (enum mrcd_recover_why).
 *
 * Why new QP numbers rather than the old ones with a new incarnation: a
 * packet of the old pair still in the network (a resend, a late SACK)
 * carries the old QPN; with the numbers reused it would be taken by the new
 * QP, whose PSNs start afresh, and could be placed as data of a message the
 * new sender never sent. With new numbers it finds no QP and is counted
 * (rx_unknown_qpn). The spare range follows the flows' own: spare pair s is
 * QPNs MRCD_QPN_BASE + 2 x (n_cluster_flows + s) (sender) and + 1
 * (receiver). A pair given up rests MRCD_RECOVER_QUIET_MS before it is
 * used again, far longer than any packet lives in a network.
 */

#include <stdint.h>

#include <rte_common.h>
#include <rte_ring.h>

#include "mrc_qp.h"
#include "mrc_rand.h"
#include "mrcd_daemon.h"

/*
 * Spare QP pairs: two per flow, at least MIN, at most MAX. Each failure
 * takes a pair for the flow's next life, and a pair given up rests before
 * it is used again, so one flow may hold two for a while.
 */
#define MRCD_RECOVER_SPARES_MIN 64
#define MRCD_RECOVER_SPARES_MAX 4096
#define MRCD_RECOVER_TRIES	3    /* recoveries of one flow within the window */
#define MRCD_RECOVER_WINDOW_S	10   /* ... this long: one more failure and it stays down */
#define MRCD_RECOVER_HOLD_MS	100  /* wait before the first new pair; doubles per failure */
#define MRCD_RECOVER_QUIET_MS	1000 /* a spare pair rests, a retired QP waits to be freed */
/* Across processes: a request is sent again after 2, 4, 8 ... ms, this many times in all
 * (1 s, far more than a peer needs to make its end), and a sender tries this many spare
 * pairs the receiver's process says are not free before it gives up (no_spare). */
#define MRCD_RECOVER_X_TRIES	9
#define MRCD_RECOVER_X_RETRY_MS 2
#define MRCD_RECOVER_X_PICKS	8

/* Why a flow was not brought back (counted per host, logged per flow). */
#define MRCD_RECOVER_WHY(X)                                                                       \
	X(other_process, "its other end is in another process, which it cannot ask (no "          \
			 "endpoint operations)")                                                  \
	X(too_often, "it failed more than " RTE_STR(MRCD_RECOVER_TRIES) " times within " RTE_STR( \
			     MRCD_RECOVER_WINDOW_S) " s")                                         \
	X(no_spare, "no spare QP numbers were free")                                              \
	X(no_qp, "a new QP could not be made")                                                    \
	X(refused, "a shard refused a request")                                                   \
	X(ending, "the run was ending")                                                           \
	X(no_answer, "the other end's process did not answer (" RTE_STR(                          \
			     MRCD_RECOVER_X_TRIES) " requests)")                                  \
	X(peer_refused, "the other end's process could not make its end")

enum mrcd_recover_why {
#define MRCD_RECOVER_WHY_ENUM(name, text) MRCD_RECOVER_##name,
	MRCD_RECOVER_WHY(MRCD_RECOVER_WHY_ENUM)
#undef MRCD_RECOVER_WHY_ENUM
		MRCD_RECOVER_N_WHY
};

const char *mrcd_recover_why_name(enum mrcd_recover_why why);
const char *mrcd_recover_why_text(enum mrcd_recover_why why);

/* What the control thread asks of a flow's generator (steps 4-6 above). */
enum mrcd_gen_op {
	MRCD_GEN_SEQ,
	MRCD_GEN_RESUME_RECV,
	MRCD_GEN_RESUME_SEND,
	/* a reload (mrcd_reload.h): stop posting, answer in seq what is still in flight or
	 * queued; take a flow out of / into its shard's lists (its QPs stay the caller's) */
	MRCD_GEN_STOP,
	MRCD_GEN_DETACH_SEND,
	MRCD_GEN_DETACH_RECV,
	MRCD_GEN_ATTACH_RECV,
	MRCD_GEN_ATTACH_SEND,
};

/*
 * One request on a host's generator ring: control fills it and enqueues it,
 * the worker that runs the host carries it out at its next pass, writes the
 * answer, then sets `done` (release); control reads after (acquire).
 */
struct mrcd_gen_req {
	uint8_t op;	   /* enum mrcd_gen_op */
	uint32_t flow;	   /* index in d->flows */
	struct mrc_qp *qp; /* RESUME_*: the flow's new QP at this end */
	uint64_t seq;	   /* SEQ: the answer; RESUME_RECV: the message expected next */
	int done;
};

/* The QPs' own monotonic counters of QPs swapped out, so the totals never go back. */
struct mrcd_qp_carry {
	uint64_t retx, nacks, ecn_echoes, ev_losses, data_pkts, spurious;
	uint64_t rx_data_pkts, rx_data_bytes;
} __rte_cache_aligned;

struct mrcd_flow_rec;

struct mrcd_recover {
	uint32_t n_spares;
	/*
	 * spare pair -> flow index, -1 when free: control writes (release)
	 * before the pair's QPs go to a shard; workers (completions), control
	 * and telemetry read (mrcd_flow_of_qpn)
	 */
	int32_t *spare_flow;
	uint64_t *spare_free_tsc;   /* control only: a freed pair rests until then */
	struct mrcd_flow_rec **rec; /* control only: per flow, made at its first failure */
	uint32_t *active, n_active; /* control only: flows with a recovery step pending */
	struct mrc_rand rand;	    /* control only: the new QPs' EV pools */
	/*
	 * per host and shard: control enqueues (struct mrcd_gen_req *), the
	 * worker that runs that shard dequeues (the flows it lists are its own)
	 */
	struct rte_ring *gen_req[MRCD_MAX_HOSTS][MRC_SHARD_MAX_SHARDS];
	/* per host: control writes (atomic), telemetry and the summary read */
	uint64_t recovered[MRCD_MAX_HOSTS];
	uint64_t not_recovered[MRCD_MAX_HOSTS][MRCD_RECOVER_N_WHY];
	/* per host and shard: its worker writes, its snapshot and the summary (after) read */
	struct mrcd_qp_carry carry[MRCD_MAX_HOSTS][MRC_SHARD_MAX_SHARDS];
};

/* Spare pairs for a cluster of n flows. */
static inline uint32_t
mrcd_recover_spares(uint32_t n_cluster_flows)
{
	const uint64_t n = 2ull * n_cluster_flows;

	return n < MRCD_RECOVER_SPARES_MIN   ? MRCD_RECOVER_SPARES_MIN
	       : n > MRCD_RECOVER_SPARES_MAX ? MRCD_RECOVER_SPARES_MAX
					     : (uint32_t)n;
}

/*
 * The shards of a host with n that own cluster flow g's ends ([lcores]
 * peer_shard, enum mrcd_peer_shard): the sending end on g mod n, the
 * receiving end on the same index, the next one, or each for half the
 * flows. A pure function of g, n and the mode, so every process places
 * every flow's ends alike.
 */
static inline void
mrcd_flow_shards(uint32_t g, unsigned int n_shards, unsigned int mode, uint8_t *send, uint8_t *recv)
{
	const uint32_t n = n_shards ? n_shards : 1;

	*send = (uint8_t)(g % n);
	*recv = mode == MRCD_PEER_OTHER	 ? (uint8_t)((g + 1) % n)
		: mode == MRCD_PEER_HALF ? (uint8_t)((g + (g / n) % 2) % n)
					 : *send;
}

/*
 * The shards that own spare pair s's QPs: its sending QP (QPN + 0) on the
 * sending host's, its receiving QP (+ 1) on the receiving host's, placed
 * as cluster flow s is. So the spares cover every (sending, receiving)
 * shard pair the flows use, each about as often as the flows do (a flow
 * moves to a spare placed as itself); fixed at start (each host's QPN map
 * has them, mrcd_setup.c), so a peer addresses the owner's worker and
 * software steering finds it with no change at run time.
 */
static inline void
mrcd_spare_shards(
	uint32_t s, unsigned int n_shards, unsigned int mode, uint8_t *send, uint8_t *recv)
{
	mrcd_flow_shards(s, n_shards, mode, send, recv);
}

/*
 * A spare pair for a flow whose ends are on shards send and recv (-1: any
 * placement), free now: not in use (spare_flow[s] < 0) and rested
 * (free_tsc[s] <= now). The lowest such s, -1 for none. Pure: the
 * recovery and a reload take their spares by it.
 */
int32_t mrcd_recover_pick_spare(const int32_t *spare_flow, const uint64_t *free_tsc,
	uint32_t n_spares, unsigned int n_shards, unsigned int mode, int send, int recv,
	uint64_t now);
/*
 * The same, searching from spare `from` up and round (from mod n_spares).
 * A flow whose other end is in another process searches from its own
 * cluster number: the two processes pick from the same numbers, each in
 * its own view, and flows that start apart seldom ask for the same pair.
 */
int32_t mrcd_recover_pick_spare_from(const int32_t *spare_flow, const uint64_t *free_tsc,
	uint32_t n_spares, unsigned int n_shards, unsigned int mode, int send, int recv,
	uint64_t now, uint32_t from);

/*
 * QPN -> flow index (the sender's QPN or the receiver's), -1 for none: the
 * flows' own QPNs, MRCD_QPN_BASE + 2 x cluster flow (+ 1), then the spares,
 * and the pairs reloads add across processes (d->added_qpn, mrcd_reload.h).
 */
static inline int32_t
mrcd_flow_of_qpn(const struct mrcd_daemon *d, uint32_t qpn)
{
	const uint32_t g = (qpn - MRCD_QPN_BASE) / 2;

	if (qpn < MRCD_QPN_BASE)
		return -1;
	if (g < d->n_cluster_flows)
		return d->flow_of[g];
	if (qpn - d->added_qpn < 2 * d->n_added_pairs) /* a reload's, across processes */
		return __atomic_load_n(&d->added_of[(qpn - d->added_qpn) / 2], __ATOMIC_ACQUIRE);
	if (d->recover == NULL || g - d->n_cluster_flows >= d->recover->n_spares)
		return -1;
	return __atomic_load_n(&d->recover->spare_flow[g - d->n_cluster_flows], __ATOMIC_ACQUIRE);
}

/*
 * A flow's cluster number (the name both processes give it in flow-recovery
 * requests) -> flow index here, -1 for none: the cluster's flows, then past
 * the spares those a reload added across processes, pair k numbered
 * n_cluster_flows + n_spares + k alike in every process (mrcd_reload.h).
 */
static inline int32_t
mrcd_flow_of_cluster_id(const struct mrcd_daemon *d, uint32_t id)
{
	uint32_t k;

	if (id < d->n_cluster_flows)
		return __atomic_load_n(&d->flow_of[id], __ATOMIC_ACQUIRE);
	if (d->recover == NULL || d->added_of == NULL)
		return -1;
	k = id - d->n_cluster_flows;
	if (k < d->recover->n_spares || k - d->recover->n_spares >= d->n_added_pairs)
		return -1;
	return __atomic_load_n(&d->added_of[k - d->recover->n_spares], __ATOMIC_ACQUIRE);
}

/* Control, setup: the state and the generator rings (after the hosts); 0 or -ENOMEM. */
int mrcd_recover_init(struct mrcd_daemon *d);
/* Control, teardown (workers stopped, before the shards go): QPs it still holds. */
void mrcd_recover_free(struct mrcd_daemon *d);
/* Control: QP `qpn` of host h went to ERROR (after it was logged and counted). */
void mrcd_recover_qp_failed(struct mrcd_daemon *d, unsigned int h, uint32_t qpn, uint64_t now);
/* Control, every tick: move each pending recovery on by what is done. True while one
 * is between its steps (waiting on a worker or its retry), so the loop keeps its short
 * tick; false when none is, or all that are only wait to free their old QPs. */
bool mrcd_recover_tick(struct mrcd_daemon *d, uint64_t now);
/*
 * Control, a reload (mrcd_reload.h): flow fi, new, runs on spare pair s (its
 * QPs are f->qp and d->peer_qp[fi]); 0 or -ENOMEM. Flow fi goes: its spare
 * pair rests and is free again after MRCD_RECOVER_QUIET_MS, a failure of it is
 * no longer news. A spare pair free now (-1: none). Whether a recovery of fi
 * is under way (its QPs are being replaced).
 */
int mrcd_recover_adopt(struct mrcd_daemon *d, uint32_t fi, int32_t s);
void mrcd_recover_forget(struct mrcd_daemon *d, uint32_t fi, uint64_t now);
int32_t mrcd_recover_take_spare(struct mrcd_daemon *d, uint64_t now);
bool mrcd_recover_busy(const struct mrcd_daemon *d, uint32_t fi);

/*
 * Control, endpoint requests (mrcd_epreq.c): a flow-recovery request from
 * cluster host c to local host h (answered now, or once our end is made),
 * and an answer to one of ours.
 */
struct mrc_ep_view;
void mrcd_recover_ep_request(struct mrcd_daemon *d, unsigned int h, unsigned int c,
	const struct mrc_ep_view *v, uint64_t now);
void mrcd_recover_ep_answer(struct mrcd_daemon *d, unsigned int h, unsigned int c,
	const struct mrc_ep_view *v, uint64_t now);

/* Stats: flows host h brought back, and those it could not (all reasons). */
uint64_t mrcd_recover_count(const struct mrcd_daemon *d, unsigned int h);
uint64_t mrcd_recover_failed(const struct mrcd_daemon *d, unsigned int h);

/* Worker: carry out the generator requests waiting for host h's shard k. */
void mrcd_recover_worker_step(struct mrcd_daemon *d, unsigned int h, unsigned int k);

#endif /* MRCD_RECOVER_H */
