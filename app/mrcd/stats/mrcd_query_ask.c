/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: the stats thread, answering /mrc/qp, /mrc/evs (mrcd_telemetry_qp.c)
 * and /mrc/apps for DPDK's telemetry threads.
 *
 * The asking half of a per-QP question (the owner answers it in
 * datapath/mrcd_query.c): post one request in the slot of the worker that
 * runs the QP's shard, wait up to 100 ms for that worker's answer there.
 * Askers are serialized among themselves by a mutex that the data path never
 * sees. Each worker answers in its own slot, so a worker still copying an
 * answer for an asker that gave up writes over nothing a later asker reads:
 * that asker reads another worker's slot, or this one's once its own number
 * is published there, after the older copy.
 */

#include <pthread.h>

#include <rte_cycles.h>

#include "mrcd_daemon.h"
#include "mrcd_stats.h"

static pthread_mutex_t askers = PTHREAD_MUTEX_INITIALIZER;

/* The worker that runs the shard of `host` owning `qp`, or NULL (setup's assignment). */
static struct mrcd_worker *
owner_of(struct mrcd_daemon *d, unsigned int host, const struct mrc_qp *qp)
{
	if (host >= MRCD_MAX_HOSTS)
		return NULL;
	for (unsigned int k = 0; k < d->host[host].n_shards; k++) {
		const struct mrcd_shardctx *sc = &d->host[host].shard[k];

		if (sc->rt != NULL && sc->worker < d->n_workers &&
			mrc_shard_owns(sc->rt, mrc_qp_qpn(qp)))
			return &d->workers[sc->worker];
	}
	return NULL;
}

const struct mrcd_qp_query *
mrcd_query_qp(struct mrcd_daemon *d, unsigned int host, const struct mrc_qp *qp)
{
	struct mrcd_worker *w = owner_of(d, host, qp);
	/* Workers tick every millisecond; 100 ms covers a descheduled VM. */
	const uint64_t deadline = rte_rdtsc() + d->hz / 10;
	struct mrcd_qp_query *q;
	uint32_t ask;

	if (w == NULL)
		return NULL;
	q = &w->query;
	pthread_mutex_lock(&askers);
	/*
	 * The request, under its sequence lock (struct mrcd_qp_query): odd while
	 * host and qp change, so the worker never takes half of two requests.
	 * Only askers write ask, and they hold the mutex.
	 */
	ask = __atomic_load_n(&q->ask, __ATOMIC_RELAXED);
	__atomic_store_n(&q->ask, ask + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	__atomic_store_n(&q->host, host, __ATOMIC_RELAXED);
	__atomic_store_n(&q->qp, qp, __ATOMIC_RELAXED);
	ask += 2;
	__atomic_store_n(&q->ask, ask, __ATOMIC_RELEASE);
	while (__atomic_load_n(&d->phase, __ATOMIC_ACQUIRE) != MRCD_EXIT &&
		rte_rdtsc() < deadline) {
		/* Answered: it stays as it is until the next asker, who waits for us. */
		if (__atomic_load_n(&q->done, __ATOMIC_ACQUIRE) == ask)
			return q;
		rte_delay_us_sleep(200);
	}
	pthread_mutex_unlock(&askers);
	return NULL;
}

void
mrcd_query_release(void)
{
	pthread_mutex_unlock(&askers);
}
