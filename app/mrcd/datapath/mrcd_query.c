/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: the worker lcores, at each query tick (mrcd_worker.c). The asking
 * half runs on the stats thread, replying to /mrc/ (stats/mrcd_query_ask.c).
 *
 * Per-QP questions from telemetry, answered by the worker that
 * owns the QP. Copying every QP's counters and EV table into a snapshot each
 * millisecond would cost the data path for 64k QPs that nobody asks about;
 * instead the asker posts one request (a sequence number and a QP) in the
 * owner's own slot (struct mrcd_worker's query), and the owner copies that
 * QP alone at its next query tick (every millisecond, whatever [lcores]
 * stats_interval_ms says) into the same slot and publishes the sequence
 * number back. The worker never waits: it checks one integer per tick.
 *
 * A worker writes no slot but its own, so one that is late (descheduled in
 * mid-copy while its asker gave up) cannot tear the answer another worker
 * gives the next asker. Were that asker to ask the same worker, it waits for
 * its own number, which the worker publishes only after the older copy: it
 * answers one request at a time, in order.
 */

#include <string.h>

#include <rte_common.h>

#include "mrc_cc.h"
#include "mrc_rel_rx.h"
#include "mrc_rel_tx.h"
#include "mrcd_daemon.h"
#include "mrcd_datapath.h"

/*
 * The shard of `host` that owns `qp`, if worker w runs it; NULL otherwise.
 * (The shards' QPN rule is read-only.)
 */
static const struct mrc_shard *
worker_shard_of(const struct mrcd_daemon *d, const struct mrcd_worker *w, unsigned int host,
	const struct mrc_qp *qp)
{
	for (unsigned int k = 0; k < w->n_units; k++) {
		const struct mrc_shard *rt = d->host[host].shard[w->units[k].shard].rt;

		if (w->units[k].host == host && mrc_shard_owns(rt, mrc_qp_qpn(qp)))
			return rt;
	}
	return NULL;
}

bool
mrcd_query_take(struct mrcd_daemon *d, struct mrcd_worker *w, struct mrcd_query_job *j)
{
	struct mrcd_qp_query *q = &w->query;
	const uint32_t ask = __atomic_load_n(&q->ask, __ATOMIC_ACQUIRE);
	unsigned int host;
	const struct mrc_qp *qp;

	/* Nobody asks (done is this worker's own): the one compare a tick costs. */
	if (ask == q->done)
		return false;
	/* Odd: an asker is writing the request; the next tick takes it. */
	if ((ask & 1) != 0)
		return false;
	host = __atomic_load_n(&q->host, __ATOMIC_RELAXED);
	qp = __atomic_load_n(&q->qp, __ATOMIC_RELAXED);
	/* Another asker began a request meanwhile: host and qp may be half of each. */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (__atomic_load_n(&q->ask, __ATOMIC_RELAXED) != ask)
		return false;
	/*
	 * The asker chose this worker as the one that runs the QP's shard (setup's
	 * assignment, read-only), so the QP is ours; were it not, the asker times out.
	 */
	j->rt = host < MRCD_MAX_HOSTS ? worker_shard_of(d, w, host, qp) : NULL;
	if (j->rt == NULL)
		return false;
	j->ask = ask;
	j->qp = qp;
	j->out = q;
	return true;
}

void
mrcd_query_answer(const struct mrcd_query_job *j, uint64_t wall_tsc)
{
	struct mrcd_qp_query *q = j->out;
	const struct mrc_qp *qp = j->qp;
	const struct mrc_ev_pool *pool = mrc_qp_ev_pool(qp);

	q->state = mrc_qp_state(qp);
	q->error = mrc_qp_error(qp);
	q->mem_bytes = mrc_qp_mem_bytes(qp);
	q->counters = *mrc_qp_counters(qp);
	/* Enough of the sender and receiver to tell why a transfer stands still. */
	q->has_rel = mrc_qp_rel_tx(qp) != NULL && mrc_qp_rel_rx(qp) != NULL &&
		     mrc_qp_cc(qp) != NULL && mrc_qp_cc(qp)->ops != NULL;
	if (q->has_rel) {
		const struct mrc_rel_tx *t = mrc_qp_rel_tx(qp);
		const struct mrc_rel_rx *r = mrc_qp_rel_rx(qp);
		/*
		 * The sender's timestamps are on its shard's run clock (the
		 * wall clock less the lcore's stalls): ages are read on it too,
		 * or every stall so far is added to them.
		 */
		const uint64_t now = mrc_shard_run_clock(j->rt, wall_tsc);

		q->rel = (struct mrcd_query_rel){.snd_una = t->snd_una,
			.snd_nxt = t->snd_nxt,
			.n_inflight = t->n_inflight,
			.n_lost = t->n_lost,
			.cwnd_bytes = mrc_cc_cwnd(mrc_qp_cc(qp)),
			.rx_epsn = r->epsn,
			.rx_max_psn = r->max_psn,
			.rx_pending = r->pending,
			.error = t->error,
			.retries = t->retries,
			.can_send = mrc_rel_tx_can_send(t),
			.probe_wanted = t->probe_wanted,
			.probe_outstanding = t->probe_outstanding,
			.rto_fired = t->stats.rto_fired,
			.probes_asked = t->stats.probes_asked,
			.spurious = t->stats.spurious,
			.since_progress_tsc = now - RTE_MIN(now, t->progress_tsc),
			.since_ack_tsc = now - RTE_MIN(now, t->last_ack_tsc),
			.srtt_tsc = t->srtt_tsc};
		memcpy(q->rel.lost, t->stats.lost, sizeof(q->rel.lost));
	}
	q->n_ev = 0;
	if (pool != NULL) {
		const int n = mrc_ev_n_slots(pool);

		for (int s = 0; s < n && q->n_ev < MRCD_QUERY_MAX_EVS; s++) {
			struct mrcd_query_ev *e = &q->ev[q->n_ev++];

			e->ev = mrc_ev_value(pool, s);
			e->plane = (uint8_t)mrc_ev_plane(pool, s);
			e->state = (uint8_t)mrc_ev_state(pool, s);
			e->active = mrc_ev_slot_is_active(pool, s);
		}
	}
	/*
	 * An asker that posted a request since waits for its own number: this
	 * answer is nobody's, and the next tick answers the new request. So done
	 * only ever names the latest request, and never moves back.
	 */
	if (__atomic_load_n(&q->ask, __ATOMIC_ACQUIRE) != j->ask)
		return;
	__atomic_store_n(&q->done, j->ask, __ATOMIC_RELEASE);
}

void
mrcd_query_serve(struct mrcd_daemon *d, struct mrcd_worker *w, uint64_t wall_tsc)
{
	struct mrcd_query_job j;

	if (mrcd_query_take(d, w, &j))
		mrcd_query_answer(&j, wall_tsc);
}
