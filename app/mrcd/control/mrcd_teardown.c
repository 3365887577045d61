/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: the main lcore, after the workers have stopped (or were never
 * launched).
 *
 * The teardown, in the reverse order of the start; main.c enters it at the
 * label that matches how far the start got. Each step copes with what was
 * not made, so a start that failed halfway through a step is undone by the
 * same step.
 */

#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "mrc_fabric.h"
#include "mrc_shard.h"
#include "mrcd_control.h"
#include "mrcd_daemon.h"
#include "mrcd_log.h"
#include "mrcd_recover.h"
#include "mrcd_reload.h"
#include "mrcd_sched.h"

void
mrcd_free_qps(struct mrcd_daemon *d)
{
	mrcd_recover_free(d); /* the QPs of recoveries, before the shards go */
	mrcd_reload_free(d);
	mrcd_reload_params_free(d); /* the workers have stopped */
	for (unsigned int i = 0; i < d->n_flows && d->flows != NULL; i++) {
		const struct mrcd_flow *f = &d->flows[i];

		if (f->qp != NULL)
			mrc_shard_del_qp(d->host[f->src_local].shard[f->src_shard].rt, f->qp);
		if (d->peer_qp[i] != NULL)
			mrc_shard_del_qp(
				d->host[f->dst_local].shard[f->dst_shard].rt, d->peer_qp[i]);
		mrcd_gen_qp_destroy(d, d->flows[i].qp);
		mrcd_gen_qp_destroy(d, d->peer_qp[i]);
		rte_free(d->flows[i].post_tsc);
	}
	for (unsigned int h = 0; h < d->n_hosts; h++)
		for (unsigned int k = 0; k < d->host[h].n_shards; k++) {
			struct mrcd_shardctx *sc = &d->host[h].shard[k];

			mrcd_sched_free(d, h, k);
			mrc_shard_free(sc->rt);
			sc->rt = NULL;
			/* Every QP is gone, so every table is back (-EBUSY would leak, not crash).
			 */
			(void)mrc_trk_pool_free(sc->imm_pool);
			sc->imm_pool = NULL;
			(void)mrc_trk_pool_free(sc->ctrl_pool);
			sc->ctrl_pool = NULL;
		}
}

void
mrcd_network_close(struct mrcd_daemon *d)
{
	mrcd_encap_remove(d); /* the QPs are gone; the rules go before their ports */
	mrcd_steer_remove(d); /* the rules go before their ports */
	mrcd_ports_close(d);  /* their rings give back the mbufs they hold */
	mrcd_loop_close(d);
	mrcd_service_timeline_drop(d); /* a reload's timeline the fabric never took */
	if (d->fab != NULL && strcmp(d->cfg.fabric.capture, "none") != 0)
		mrcd_capture_save(d, "fabric", mrc_fabric_capture(d->fab));
	mrc_fabric_free(d->fab); /* returns every packet still inside */
}

int
mrcd_free_hosts(struct mrcd_daemon *d)
{
	int rc = 0;

	mrcd_ep_free(d);       /* what it built and no shard sent goes back */
	mrcd_handoff_drain(d); /* its mbufs go back before the pools are counted */
	for (unsigned int h = 0; h < d->n_hosts; h++) {
		struct mrcd_hostctx *hc = &d->host[h];

		rte_ring_free(hc->handoff);
		rte_ring_free(hc->events);
		for (unsigned int k = 0; k < hc->n_shards; k++) {
			struct mrcd_shardctx *sc = &hc->shard[k];
			struct rte_mbuf *m[64];
			unsigned int n;

			/* What a shard passed on and its owner never read goes back first. */
			while (sc->inbound != NULL && (n = rte_ring_dequeue_burst(sc->inbound,
							       (void **)m, RTE_DIM(m), NULL)) > 0)
				rte_pktmbuf_free_bulk(m, n);
			rte_ring_free(sc->inbound);
			rte_ring_free(sc->requests);
			rte_ring_free(sc->ev_events);
			rte_free(sc->cq);
			rte_free(sc->send_flows);
			rte_free(sc->recv_flows);
		}
		rte_free(hc->qpn_map);
		mrcd_nd_free(hc); /* frames neither side took go back before the count */
		if (mrcd_pools_full(hc) != 0)
			rc = -EBUSY;
		rte_mempool_free(hc->rx_pool);
		rte_mempool_free(hc->tx_pool);
		rte_free(hc->mem);
		rte_free(hc->mrs);
		rte_free(hc->send_flows);
		rte_free(hc->recv_flows);
	}
	rte_free(d->flows);
	rte_free(d->peer_qp);
	rte_free(d->flow_of);
	rte_free(d->added_of);
	return rc;
}
