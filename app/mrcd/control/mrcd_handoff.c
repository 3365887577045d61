/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: the main lcore, every control tick and at teardown.
 *
 * Control side of what the shards hand over: packets a shard receives but
 * does not own (with one shard per host, only endpoint operations, QPN 2,
 * acted on by mrcd_epreq.c), and the
 * QPs that went to ERROR (logged with their flow, counted per host, and
 * their flow brought back on a new QP pair when it can be: mrcd_recover.h).
 */

#include <rte_cycles.h>
#include <rte_mbuf.h>

#include "mrcd_daemon.h"
#include "mrcd_control.h"
#include "mrcd_log.h"
#include "mrcd_recover.h"

/* A QP of host h went to ERROR: say which flow and end, and count it. */
static void
qp_failed(struct mrcd_daemon *d, unsigned int h, const void *ev)
{
	struct mrcd_hostctx *hc = &d->host[h];
	const uint32_t qpn = mrc_shard_event_qpn(ev);
	const int32_t fi = mrcd_flow_of_qpn(d, qpn);

	__atomic_store_n(&hc->qps_in_error, hc->qps_in_error + 1, __ATOMIC_RELAXED);
	if (fi < 0) {
		MRCD_LOG(ctrl, WARNING, "host %u: QP 0x%x went to ERROR (%s)",
			d->cfg.daemon.first_host + h, qpn,
			mrc_qp_error_name((enum mrc_qp_error)mrc_shard_event_why(ev)));
		return;
	}
	MRCD_LOG(ctrl, WARNING,
		"host %u: QP 0x%x went to ERROR (%s): the %s end of flow %u (host %u -> %u); "
		"its messages in flight fail",
		d->cfg.daemon.first_host + h, qpn,
		mrc_qp_error_name((enum mrc_qp_error)mrc_shard_event_why(ev)),
		(qpn - MRCD_QPN_BASE) % 2 == 0 ? "sending" : "receiving", d->flows[fi].id,
		d->flows[fi].src, d->flows[fi].dst);
	mrcd_recover_qp_failed(d, h, qpn, rte_rdtsc());
}

unsigned int
mrcd_handoff_drain(struct mrcd_daemon *d)
{
	unsigned int got = 0;

	for (unsigned int h = 0; h < d->n_hosts; h++) {
		struct mrcd_hostctx *hc = &d->host[h];
		struct rte_mbuf *m[MRC_SHARD_BURST];
		unsigned int n;

		void *ev[64];

		while (hc->events != NULL &&
			(n = rte_ring_sc_dequeue_burst(hc->events, ev, RTE_DIM(ev), NULL)) > 0)
			for (unsigned int k = 0; k < n; k++, got++)
				qp_failed(d, h, ev[k]);
		if (hc->handoff == NULL)
			continue;
		while ((n = rte_ring_sc_dequeue_burst(hc->handoff, (void **)m, RTE_DIM(m), NULL)) >
			0) {
			__atomic_store_n(&hc->ep_ops, hc->ep_ops + n, __ATOMIC_RELAXED);
			mrcd_ep_input(d, h, m, n); /* frees them */
			got += n;
		}
	}
	return got;
}
