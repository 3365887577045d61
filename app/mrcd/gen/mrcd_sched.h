/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRCD_SCHED_H
#define MRCD_SCHED_H

/*
 * Which of a host shard's sending flows the worker visits: only those that may
 * post now. A flow is on its shard's ready queue from setup and again after
 * each of its send completions (a slot freed); a paced flow that must wait
 * for its next post time sits on the wait queue, in the order it got there;
 * a flow with every slot in flight, or done, is on neither. So an iteration
 * costs what the busy flows cost, not the flow count: 65,536 idle flows
 * cost nothing per iteration.
 *
 * With [profile] active_flows = N, at most N of a shard's flows hold a turn
 * (may have messages in flight); the others wait on the turn queue. A flow
 * with a turn posts up to `outstanding` messages, and when all of them have
 * completed hands the turn to the flow at the head of the queue and goes to
 * its tail. So every flow sends, N at a time, and the QPs with packets in
 * flight stay within the shard's pool of in-flight rings (a QP that finds
 * the pool empty waits for one; with many more such QPs than rings each
 * iteration would visit every one of them in vain).
 *
 * The wait queue is first in, first out, and is looked at only up to its
 * first flow not yet due. With one message size every flow waits the same
 * gap, so that order is the time order; with a size mix a flow can wait
 * behind one with a longer gap by at most the difference of the two, and
 * the generator's schedule catches up on the next post (mrcd_gen_post).
 */

#include <stdbool.h>
#include <stdint.h>

enum { MRCD_FLOW_IDLE = 0, MRCD_FLOW_READY, MRCD_FLOW_WAIT, MRCD_FLOW_TURN };

/* A ring of flow indexes; a flow is on at most one queue, so n_send slots suffice. */
struct mrcd_flowq {
	uint32_t *slot;
	uint32_t cap, head, n;
};

static inline void
mrcd_flowq_push(struct mrcd_flowq *q, uint32_t flow)
{
	uint32_t tail = q->head + q->n;

	if (tail >= q->cap)
		tail -= q->cap;
	q->slot[tail] = flow;
	q->n++;
}

static inline uint32_t
mrcd_flowq_pop(struct mrcd_flowq *q)
{
	const uint32_t flow = q->slot[q->head];

	if (++q->head == q->cap)
		q->head = 0;
	q->n--;
	return flow;
}

static inline uint32_t
mrcd_flowq_peek(const struct mrcd_flowq *q)
{
	return q->slot[q->head];
}

struct mrcd_daemon;
struct mrcd_flow;
struct mrcd_shardctx;

/*
 * Setup: a host shard's queues, every flow it sends on the ready queue (or the
 * turn queue past active_flows; paced, on the wait queue, their first
 * posts spread over one gap from now_tsc); 0 or -ENOMEM.
 */
int mrcd_sched_init(struct mrcd_daemon *d, unsigned int host, unsigned int shard, uint64_t now_tsc);
void mrcd_sched_free(struct mrcd_daemon *d, unsigned int host, unsigned int shard);

/*
 * Worker: post on the flows of shard `sc` that may, while fewer than
 * POST_BACKLOG posts wait for the shard's output round (the rest stay
 * ready for the next pass); returns the messages posted.
 */
unsigned int mrcd_sched_post(
	struct mrcd_daemon *d, struct mrcd_shardctx *sc, uint64_t now_tsc, bool stopping);

/* Worker: a send of flow `f` (index `fi`) completed, or failed: a slot is free again. */
void mrcd_sched_wake(struct mrcd_daemon *d, struct mrcd_flow *f, uint32_t fi);

/*
 * Worker: flow `f`'s sending QP was replaced (mrcd_recover.h) and every
 * message on the old one has completed or failed: queue the flow again if
 * it had stopped (it then holds no turn).
 */
void mrcd_sched_resume(struct mrcd_daemon *d, struct mrcd_flow *f, uint32_t fi);

/*
 * Worker, at the start of each pass over a host's shard (and before checking a
 * message whose flow's sender took a newer one): take the generator's
 * parameters control published last (d->gen_pub), when they are new. Each
 * flow it sends on notes its next message as the first of a new shape,
 * flows stopped by `messages` that may post again are queued, the turns
 * follow active_flows; then gen_taken tells control. Costs one load when
 * nothing changed.
 */
void mrcd_sched_take(struct mrcd_daemon *d, unsigned int host, unsigned int shard);

#endif /* MRCD_SCHED_H */
