/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: the worker lcore of each host's shard, once a millisecond, after
 * its passes over its shards (so after the completions of every earlier
 * pass). Each shard has its own ring: a flow's requests go to the shard
 * that lists its end (f->src_shard, f->dst_shard), whose worker alone
 * writes that end's state.
 *
 * The worker's side of a flow's recovery (mrcd_recover.h, steps 4-6): the
 * control thread asks, through the host's generator ring, for the next
 * message number of a flow whose sending QP was retired, then hands each
 * end its new QP. Only this worker writes the flow's generator state and
 * its QP pointers (f->qp, d->peer_qp); the old QPs are out of the shards by
 * then and their flushed messages already counted failed (they completed
 * in an earlier pass), so nothing of the old pair can reach the new one.
 */

#include <rte_branch_prediction.h>

#include "mrc_rel_tx.h"
#include "mrcd_datapath.h"
#include "mrcd_recover.h"
#include "mrcd_sched.h"

/* The old QP's monotonic counters stay in the host's totals. */
static void
carry_send(struct mrcd_qp_carry *c, const struct mrc_qp *qp)
{
	const struct mrc_qp_counters *q = mrc_qp_counters(qp);

	c->retx += q->tx_retx_pkts;
	c->data_pkts += q->tx_data_pkts;
	c->nacks += q->rx_nacks;
	c->ecn_echoes += q->ecn_echoes;
	c->ev_losses += q->ev_losses;
	/* the requester's own statistics went with its reset; spurious resends are lost */
}

static void
carry_recv(struct mrcd_qp_carry *c, const struct mrc_qp *qp)
{
	c->rx_data_pkts += mrc_qp_counters(qp)->rx_data_pkts;
	c->rx_data_bytes += mrc_qp_counters(qp)->rx_data_bytes;
}

/* Take flow fi out of a shard's list (the order does not matter to anyone). */
static void
unlist(uint32_t *list, uint32_t *n, uint32_t fi)
{
	for (uint32_t k = 0; k < *n; k++)
		if (list[k] == fi) {
			list[k] = list[--*n];
			return;
		}
}

void
mrcd_recover_worker_step(struct mrcd_daemon *d, unsigned int h, unsigned int k)
{
	struct rte_ring *r = d->recover != NULL ? d->recover->gen_req[h][k] : NULL;
	struct mrcd_qp_carry *carry = d->recover != NULL ? &d->recover->carry[h][k] : NULL;
	struct mrcd_shardctx *sc = &d->host[h].shard[k];
	void *q[8];
	unsigned int n;

	if (likely(r == NULL || rte_ring_empty(r)))
		return;
	n = rte_ring_sc_dequeue_burst(r, q, RTE_DIM(q), NULL);
	for (unsigned int i = 0; i < n; i++) {
		struct mrcd_gen_req *g = q[i];
		struct mrcd_flow *f = &d->flows[g->flow];

		switch (g->op) {
		case MRCD_GEN_SEQ:
			/* Its QP is out of RTS: the generator posts no more on it. */
			g->seq = f->posted;
			break;
		case MRCD_GEN_RESUME_RECV:
			carry_recv(carry, d->peer_qp[g->flow]);
			/* telemetry reads the pointer (resolve_qpn): published whole */
			__atomic_store_n(&d->peer_qp[g->flow], g->qp, __ATOMIC_RELEASE);
			/* control reads it (mrcd_reload_params.c) */
			__atomic_store_n(&f->recv_seq, g->seq, __ATOMIC_RELAXED);
			break;
		case MRCD_GEN_RESUME_SEND:
			carry_send(carry, f->qp);
			__atomic_store_n(&f->qp, g->qp, __ATOMIC_RELEASE);
			mrcd_sched_resume(d, f, g->flow);
			break;
		case MRCD_GEN_STOP:
			/* Posts no more (mrcd_sched.c); answers what is not done yet. */
			f->removed = true;
			g->seq = mrcd_gen_in_flight(f) + (f->queued != MRCD_FLOW_IDLE);
			break;
		case MRCD_GEN_DETACH_SEND:
			carry_send(carry, f->qp);
			unlist(sc->send_flows, &sc->n_send, g->flow);
			break;
		case MRCD_GEN_DETACH_RECV:
			carry_recv(carry, d->peer_qp[g->flow]);
			unlist(sc->recv_flows, &sc->n_recv, g->flow);
			break;
		case MRCD_GEN_ATTACH_RECV:
			sc->recv_flows[sc->n_recv++] = g->flow;
			break;
		case MRCD_GEN_ATTACH_SEND:
			sc->send_flows[sc->n_send++] = g->flow;
			mrcd_sched_resume(d, f, g->flow); /* idle: queued to post */
			break;
		default:
			break;
		}
		__atomic_store_n(&g->done, 1, __ATOMIC_RELEASE);
	}
}
