/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: the stats thread, answering /mrc/qp, /mrc/evs (mrcd_telemetry_qp.c)
 * and /mrc/apps for DPDK's telemetry threads.
 *
 * The asking half of a per-QP question (the owner answers it in
 * datapath/mrcd_query.c): post one request, wait up to 100 ms for the
 * owner's answer. Askers are serialized among themselves by a mutex that the
 * data path never sees.
 */

#include <pthread.h>

#include <rte_cycles.h>

#include "mrcd_daemon.h"
#include "mrcd_stats.h"

static pthread_mutex_t askers = PTHREAD_MUTEX_INITIALIZER;

const struct mrcd_qp_query *
mrcd_query_qp(struct mrcd_daemon *d, unsigned int host, const struct mrc_qp *qp)
{
	struct mrcd_qp_query *q = &d->query;
	/* Workers tick every millisecond; 100 ms covers a descheduled VM. */
	const uint64_t deadline = rte_rdtsc() + d->hz / 10;

	pthread_mutex_lock(&askers);
	/* The previous asker may have timed out: its answer is stale now. */
	q->done = __atomic_load_n(&q->req, __ATOMIC_ACQUIRE);
	q->host = host;
	q->qp = qp;
	const uint32_t req = q->done + 1;

	__atomic_store_n(&q->req, req, __ATOMIC_RELEASE);
	while (__atomic_load_n(&d->phase, __ATOMIC_ACQUIRE) != MRCD_EXIT &&
		rte_rdtsc() < deadline) {
		/* Answered: it stays as it is until the next asker, who waits for us. */
		if (__atomic_load_n(&q->done, __ATOMIC_ACQUIRE) == req)
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
