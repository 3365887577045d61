/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: the main lcore for mrcd_sched_init/free (setup, teardown); the
 * worker lcores for mrcd_sched_post/wake, on the shards each runs. See
 * mrcd_sched.h.
 */
#include <errno.h>

#include <rte_malloc.h>
#include <rte_prefetch.h>

#include "mrcd_daemon.h"
#include "mrcd_sched.h"

int
mrcd_sched_init(struct mrcd_daemon *d, unsigned int host, unsigned int shard, uint64_t now_tsc)
{
	struct mrcd_shardctx *hc = &d->host[host].shard[shard];
	/* a flow is on at most one queue: its shard's flows, and those a reload may add */
	const uint32_t cap = hc->n_send + (d->flow_cap - d->n_flows) + 1;

	hc->ready.slot = rte_malloc("mrcd_ready", cap * sizeof(uint32_t), 64);
	hc->wait.slot = rte_malloc("mrcd_wait", cap * sizeof(uint32_t), 64);
	hc->turns.slot = rte_malloc("mrcd_turns", cap * sizeof(uint32_t), 64);
	if (hc->ready.slot == NULL || hc->wait.slot == NULL || hc->turns.slot == NULL)
		return -ENOMEM;
	hc->ready.cap = hc->wait.cap = hc->turns.cap = cap;
	hc->pass_tsc = now_tsc; /* until the worker's first pass */
	hc->gen = hc->gen_taken = d->gen_pub;
	/* [profile] active_flows is per host: its shards share it out */
	const uint32_t n_shards = d->host[host].n_shards ? d->host[host].n_shards : 1;

	hc->active_max = d->prof.active_flows > 0 ? (d->prof.active_flows + n_shards - 1) / n_shards
						  : UINT32_MAX;
	hc->active = 0;
	/*
	 * Paced flows start spread over one message's gap, in order, on the wait
	 * queue: all starting at once, 10,000 flows put 40,000 packets in
	 * flight in the first microseconds, more than one worker sends before
	 * their timers fire, and the resends never caught up.
	 */
	const uint64_t gap = d->prof.rate_gbps > 0
				     ? (uint64_t)((double)d->prof.max_kb * 8192.0 /
						  (d->prof.rate_gbps * 1e9) * (double)d->hz)
				     : 0;

	for (uint32_t k = 0; k < hc->n_send; k++) {
		struct mrcd_flow *f = &d->flows[hc->send_flows[k]];

		if (gap > 0) {
			f->next_post_tsc = now_tsc + (uint64_t)((double)gap * k / hc->n_send);
			f->queued = MRCD_FLOW_WAIT;
			mrcd_flowq_push(&hc->wait, hc->send_flows[k]);
		} else if (hc->active < hc->active_max) {
			hc->active++;
			f->queued = MRCD_FLOW_READY;
			/*
			 * Wanted from the worker's first pass, which stamps it with its
			 * own time (mrcd_gen_post takes the earlier of the two): not
			 * from setup, before the fabric and the workers start, whose
			 * 0.35 ms (idle) to 0.8 ms (loaded) the first messages'
			 * completion times carried.
			 */
			f->ready_tsc = MRCD_READY_AT_POST;
			mrcd_flowq_push(&hc->ready, hc->send_flows[k]);
		} else {
			f->queued = MRCD_FLOW_TURN;
			mrcd_flowq_push(&hc->turns, hc->send_flows[k]);
		}
	}
	return 0;
}

void
mrcd_sched_free(struct mrcd_daemon *d, unsigned int host, unsigned int shard)
{
	struct mrcd_shardctx *hc = &d->host[host].shard[shard];

	rte_free(hc->ready.slot);
	rte_free(hc->wait.slot);
	rte_free(hc->turns.slot);
	hc->ready.slot = hc->wait.slot = hc->turns.slot = NULL;
}

/* Hand free turns to the flows at the head of the turn queue. */
static void
grant(struct mrcd_daemon *d, struct mrcd_shardctx *hc)
{
	while (hc->active < hc->active_max && hc->turns.n > 0) {
		const uint32_t fi = mrcd_flowq_pop(&hc->turns);

		hc->active++;
		d->flows[fi].queued = MRCD_FLOW_READY;
		d->flows[fi].ready_tsc = hc->pass_tsc;
		mrcd_flowq_push(&hc->ready, fi);
		mrcd_flow_prefetch_post(&d->flows[fi]); /* it posts in the next pass */
	}
}

static bool
done(const struct mrcd_profile *p, const struct mrcd_flow *f, bool stopping)
{
	/* Not RTS: in ERROR, or retired while the flow is brought back (mrcd_recover.h). */
	return stopping || f->removed || (p->messages != 0 && f->posted >= p->messages) ||
	       mrc_qp_state(f->qp) != MRC_QP_RTS;
}

/* After posting: where the flow goes until it can post again. */
static void
requeue(struct mrcd_daemon *d, struct mrcd_shardctx *hc, struct mrcd_flow *f, uint32_t fi,
	uint64_t now_tsc, bool stopping)
{
	const struct mrcd_profile *p = &hc->gen->p;
	const bool in_flight = mrcd_gen_in_flight(f) != 0;

	if (p->active_flows > 0) {
		/* A turn lasts until what the flow posted has completed (mrcd_sched_wake). */
		if (in_flight) {
			f->queued = MRCD_FLOW_IDLE;
		} else if (done(p, f, stopping)) {
			f->queued = MRCD_FLOW_IDLE; /* never posts again: its turn goes on */
			hc->active--;
			grant(d, hc);
		} else {
			mrcd_flowq_push(&hc->ready, fi); /* the QP refused: try next time */
		}
		return;
	}
	if (done(p, f, stopping) || mrcd_gen_in_flight(f) >= p->outstanding) {
		/* Full (a completion wakes it), done, or broken: nothing to do until then. */
		f->queued = MRCD_FLOW_IDLE;
	} else if (now_tsc < f->next_post_tsc) {
		f->queued = MRCD_FLOW_WAIT;
		mrcd_flowq_push(&hc->wait, fi);
	} else {
		/* The QP refused a post it had room for (its send queue): try next time. */
		mrcd_flowq_push(&hc->ready, fi);
	}
}

/*
 * Lookahead over the ready queue. With more flows taking turns than the
 * caches hold, a flow's record, QP, send queue entry and payload slot are
 * all cold when its turn comes, and posting to one flow after another
 * takes those misses one at a time. The ready queue says which flows post
 * next, so their lines are asked for ahead, in stages as each stage's
 * pointers arrive: the record POST_AHEAD x 2 flows ahead, the QP's own
 * lines and the payload slot POST_AHEAD ahead (through the record), the
 * send queue entry and the shard's record of the QP POST_AHEAD / 2 ahead
 * (through the QP's first line). Eight keeps about as many misses in
 * flight as a core tracks at once.
 */
#define POST_AHEAD 8u
/*
 * Posts that may wait for the output round at once: about what one round
 * sends on two planes (mrc_shard.h, a burst of 32 each). Fewer let the
 * round run short; many more put the wait back between post and send.
 */
#define POST_BACKLOG 64u
/*
 * A slot's first lines; the hardware prefetcher follows the fill through
 * the rest (asking for all 16 of a 1 KiB slot would take the fill buffers
 * the QPs' own lines wait for).
 */
#define POST_PAYLOAD_LINES 4u

static inline uint32_t
ready_at(const struct mrcd_flowq *q, uint32_t j)
{
	uint32_t i = q->head + j;

	if (i >= q->cap)
		i -= q->cap;
	return q->slot[i];
}

/* Stage 2: the flow's record has arrived; its QP and the slot its next message fills
 * (p: the parameters this worker took, never d->prof, which a reload rewrites). */
static inline void
prefetch_post_lines(const struct mrcd_daemon *d, const struct mrcd_profile *p, uint32_t fi)
{
	const struct mrcd_flow *f = &d->flows[fi];

	if (f->qp == NULL)
		return;
	mrc_qp_prefetch(f->qp);
	if (p->verify && f->src_buf != NULL) {
		const size_t stride = (size_t)p->max_kb * 1024u;
		const uint8_t *src =
			f->src_buf + (size_t)mrcd_flow_buffer_of(p, f->posted) * stride;
		const size_t len = RTE_MIN(stride, (size_t)POST_PAYLOAD_LINES * 64u);

		for (size_t o = 0; o < len; o += 64)
			rte_prefetch0_write(src + o);
	}
	if (f->posted % p->outstanding != 0) /* slot 0's is in the record's line 0 */
		rte_prefetch0_write(&f->post_tsc[f->posted % p->outstanding]);
}

/* Stage 3: the QP's first line has arrived; what the post writes through it. */
static inline void
prefetch_post_queue(const struct mrcd_daemon *d, uint32_t fi)
{
	const struct mrcd_flow *f = &d->flows[fi];

	if (f->qp != NULL)
		mrc_qp_prefetch_post(f->qp);
}

unsigned int
mrcd_sched_post(struct mrcd_daemon *d, struct mrcd_shardctx *hc, uint64_t now_tsc, bool stopping)
{
	unsigned int posted = 0;

	/* Paced flows now due rejoin the ready queue (the wait queue is in time order). */
	while (hc->wait.n > 0 && d->flows[mrcd_flowq_peek(&hc->wait)].next_post_tsc <= now_tsc) {
		const uint32_t fi = mrcd_flowq_pop(&hc->wait);

		d->flows[fi].queued = MRCD_FLOW_READY;
		d->flows[fi].ready_tsc = d->flows[fi].next_post_tsc; /* due since */
		mrcd_flowq_push(&hc->ready, fi);
	}
	/*
	 * One turn each for the flows ready now; a flow put back waits for the
	 * next pass. Not more than the output round takes soon: a message posted
	 * behind many others waits passes for its send while the rest of the
	 * traffic evicts its payload and QP lines, and is read back cold.
	 */
	const uint32_t waiting = mrc_shard_posts_waiting(hc->rt);
	const uint32_t n_ready =
		RTE_MIN(hc->ready.n, waiting >= POST_BACKLOG ? 0 : POST_BACKLOG - waiting);

	for (uint32_t j = 0; j < RTE_MIN(n_ready, 2 * POST_AHEAD); j++)
		mrcd_flow_prefetch_post(&d->flows[ready_at(&hc->ready, j)]);
	for (uint32_t j = 0; j < RTE_MIN(n_ready, POST_AHEAD); j++)
		prefetch_post_lines(d, &hc->gen->p, ready_at(&hc->ready, j));
	for (uint32_t j = 0; j < RTE_MIN(n_ready, POST_AHEAD / 2); j++)
		prefetch_post_queue(d, ready_at(&hc->ready, j));
	for (uint32_t n = n_ready; n > 0; n--) {
		/* Entries still ahead in this pass; the queue's head is the flow posted now. */
		if (n > 2 * POST_AHEAD)
			mrcd_flow_prefetch_post(&d->flows[ready_at(&hc->ready, 2 * POST_AHEAD)]);
		if (n > POST_AHEAD)
			prefetch_post_lines(d, &hc->gen->p, ready_at(&hc->ready, POST_AHEAD));
		if (n > POST_AHEAD / 2)
			prefetch_post_queue(d, ready_at(&hc->ready, POST_AHEAD / 2));
		const uint32_t fi = mrcd_flowq_pop(&hc->ready);
		struct mrcd_flow *f = &d->flows[fi];

		posted += mrcd_gen_post(&hc->gen->p, f, now_tsc, d->hz, stopping || f->removed);
		requeue(d, hc, f, fi, now_tsc, stopping);
	}
	hc->posted += posted;
	return posted;
}

/*
 * A flow holding no turn that has work: with active_flows it queues for a
 * turn (granted at once if one is free), else it is ready to post.
 */
static void
enqueue_idle(struct mrcd_daemon *d, struct mrcd_shardctx *hc, struct mrcd_flow *f, uint32_t fi)
{
	if (hc->gen->p.active_flows > 0) {
		f->queued = MRCD_FLOW_TURN;
		mrcd_flowq_push(&hc->turns, fi);
		grant(d, hc);
		return;
	}
	f->queued = MRCD_FLOW_READY;
	f->ready_tsc = hc->pass_tsc;
	mrcd_flowq_push(&hc->ready, fi);
}

void
mrcd_sched_wake(struct mrcd_daemon *d, struct mrcd_flow *f, uint32_t fi)
{
	struct mrcd_shardctx *hc;

	if (f->queued != MRCD_FLOW_IDLE || f->src_local < 0)
		return;
	hc = &d->host[f->src_local].shard[f->src_shard];
	if (hc->gen->p.active_flows > 0) {
		if (mrcd_gen_in_flight(f) != 0)
			return; /* its turn lasts until the rest completes */
		/* Hand the turn on; the flow queues for another (drain: the phase stops it). */
		hc->active--;
	}
	enqueue_idle(d, hc, f, fi);
}

void
mrcd_sched_resume(struct mrcd_daemon *d, struct mrcd_flow *f, uint32_t fi)
{
	struct mrcd_shardctx *hc = &d->host[f->src_local].shard[f->src_shard];

	/* Queued, it posts on its new QP when its turn comes; idle, it holds no turn. */
	if (f->queued != MRCD_FLOW_IDLE)
		return;
	enqueue_idle(d, hc, f, fi);
}

void
mrcd_sched_take(struct mrcd_daemon *d, unsigned int host, unsigned int shard)
{
	struct mrcd_shardctx *hc = &d->host[host].shard[shard];
	const struct mrcd_gen_params *g = __atomic_load_n(&d->gen_pub, __ATOMIC_ACQUIRE);
	const struct mrcd_profile *p = &g->p;
	const uint32_t n_shards = RTE_MAX(d->host[host].n_shards, 1u);
	bool shape;

	if (g == hc->gen)
		return;
	shape = g->shape_gen != hc->gen->shape_gen;
	hc->gen = g;
	/* Turns are counted only in a run that started with active_flows (a reload keeps it so). */
	if (p->active_flows > 0)
		hc->active_max = (p->active_flows + n_shards - 1) / n_shards;
	for (uint32_t k = 0; k < hc->n_send; k++) {
		const uint32_t fi = hc->send_flows[k];
		struct mrcd_flow *f = &d->flows[fi];

		if (shape) {
			/* Its next message is the first of the new shape; those before keep theirs.
			 */
			__atomic_store_n(&f->shape_from, f->posted, __ATOMIC_RELAXED);
			__atomic_store_n(&f->shape_gen, g->shape_gen, __ATOMIC_RELEASE);
		}
		/*
		 * A flow that stopped because it had posted `messages`, may post again
		 * under a larger count: queued as a completion would. An idle flow with
		 * messages in flight (a completion wakes it) or done is left alone.
		 */
		if (f->queued == MRCD_FLOW_IDLE && mrcd_gen_in_flight(f) == 0 && !done(p, f, false))
			enqueue_idle(d, hc, f, fi);
	}
	if (p->active_flows > 0)
		grant(d, hc);
	__atomic_store_n(&hc->gen_taken, g, __ATOMIC_RELEASE);
}
