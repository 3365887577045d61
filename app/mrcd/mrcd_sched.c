/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#include <errno.h>

#include <rte_malloc.h>

#include "mrcd_daemon.h"
#include "mrcd_sched.h"

int
mrcd_sched_init(struct mrcd_daemon *d, unsigned int host)
{
	struct mrcd_hostctx *hc = &d->host[host];
	const uint32_t cap = hc->n_send > 0 ? hc->n_send : 1;

	hc->ready.slot = rte_malloc("mrcd_ready", cap * sizeof(uint32_t), 64);
	hc->wait.slot = rte_malloc("mrcd_wait", cap * sizeof(uint32_t), 64);
	if (hc->ready.slot == NULL || hc->wait.slot == NULL)
		return -ENOMEM;
	hc->ready.cap = hc->wait.cap = cap;
	for (uint32_t k = 0; k < hc->n_send; k++) {
		d->flows[hc->send_flows[k]].queued = MRCD_FLOW_READY;
		mrcd_flowq_push(&hc->ready, hc->send_flows[k]);
	}
	return 0;
}

void
mrcd_sched_free(struct mrcd_daemon *d, unsigned int host)
{
	rte_free(d->host[host].ready.slot);
	rte_free(d->host[host].wait.slot);
	d->host[host].ready.slot = d->host[host].wait.slot = NULL;
}

/* After posting: where the flow goes until it can post again. */
static void
requeue(struct mrcd_hostctx *hc, const struct mrcd_profile *p, struct mrcd_flow *f, uint32_t fi,
	uint64_t now_tsc, bool stopping)
{
	if (stopping || f->posted - f->completed >= p->outstanding ||
		(p->messages != 0 && f->posted >= p->messages) ||
		mrc_qp_state(f->qp) == MRC_QP_ERROR) {
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

unsigned int
mrcd_sched_post(struct mrcd_daemon *d, unsigned int host, uint64_t now_tsc, bool stopping)
{
	struct mrcd_hostctx *hc = &d->host[host];
	unsigned int posted = 0;

	/* Paced flows now due rejoin the ready queue (the wait queue is in time order). */
	while (hc->wait.n > 0 && d->flows[mrcd_flowq_peek(&hc->wait)].next_post_tsc <= now_tsc) {
		const uint32_t fi = mrcd_flowq_pop(&hc->wait);

		d->flows[fi].queued = MRCD_FLOW_READY;
		mrcd_flowq_push(&hc->ready, fi);
	}
	/* One turn each for the flows ready now; a flow put back waits for the next pass. */
	for (uint32_t n = hc->ready.n; n > 0; n--) {
		const uint32_t fi = mrcd_flowq_pop(&hc->ready);
		struct mrcd_flow *f = &d->flows[fi];

		posted += mrcd_gen_post(&d->prof, f, now_tsc, d->hz, stopping);
		requeue(hc, &d->prof, f, fi, now_tsc, stopping);
	}
	hc->posted += posted;
	return posted;
}

void
mrcd_sched_wake(struct mrcd_daemon *d, struct mrcd_flow *f, uint32_t fi)
{
	if (f->queued != MRCD_FLOW_IDLE || f->src_local < 0)
		return;
	f->queued = MRCD_FLOW_READY;
	mrcd_flowq_push(&d->host[f->src_local].ready, fi);
}
