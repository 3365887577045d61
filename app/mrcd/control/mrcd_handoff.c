/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: the main lcore, every control tick and at teardown.
 *
 * Control side of the shards' hand-off rings: what a shard receives but does
 * not own. With one shard per host that is only endpoint requests (QPN 2),
 * which are counted and freed here until the control thread acts on them.
 */

#include <rte_mbuf.h>

#include "mrcd_daemon.h"
#include "mrcd_control.h"

void
mrcd_handoff_drain(struct mrcd_daemon *d)
{
	for (unsigned int h = 0; h < d->n_hosts; h++) {
		struct mrcd_hostctx *hc = &d->host[h];
		struct rte_mbuf *m[MRC_SHARD_BURST];
		unsigned int n;

		if (hc->handoff == NULL)
			continue;
		while ((n = rte_ring_sc_dequeue_burst(hc->handoff, (void **)m, RTE_DIM(m), NULL)) >
			0) {
			__atomic_store_n(&hc->ep_ops, hc->ep_ops + n, __ATOMIC_RELAXED);
			rte_pktmbuf_free_bulk(m, n);
		}
	}
}
