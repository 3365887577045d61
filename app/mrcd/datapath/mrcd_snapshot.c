/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: the worker lcores, at every snapshot tick (mrcd_worker.c); by the
 * main lcore only once the workers have stopped, for the final figures.
 *
 * The snapshot writer: what the control and stats side may know about a
 * shard of a host, copied out of the worker's live state (its shard's counters, the
 * generator's totals, the QPs' own counters) under a sequence lock, so that
 * no other thread ever reads a worker's live structures. The readers are
 * in stats/mrcd_report.c.
 */

#include <string.h>

#include <rte_common.h>

#include "mrc_rel_tx.h"
#include "mrcd_daemon.h"
#include "mrcd_datapath.h"
#include "mrcd_recover.h"

/* Add the QPs' own counters of sending flows send_flows[from, to) of a shard. */
static void
sum_qps(const struct mrcd_daemon *d, const struct mrcd_shardctx *hc, uint32_t from, uint32_t to,
	struct mrcd_qp_sums *s)
{
	for (uint32_t k = from; k < to; k++) {
		const struct mrcd_flow *f = &d->flows[hc->send_flows[k]];

		if (f->qp == NULL)
			continue;
		const struct mrc_qp_counters *c = mrc_qp_counters(f->qp);
		const struct mrc_ev_pool *pool = mrc_qp_ev_pool(f->qp);

		s->retx += c->tx_retx_pkts;
		s->data_pkts += c->tx_data_pkts;
		if (mrc_qp_rel_tx(f->qp) != NULL)
			s->spurious += mrc_qp_rel_tx(f->qp)->stats.spurious;
		s->nacks += c->rx_nacks;
		s->ecn_echoes += c->ecn_echoes;
		s->ev_losses += c->ev_losses;
		/*
		 * From the pool's own counts: counting every slot read ten cold
		 * lines per flow, 4% of a worker at 1,024 flows and up.
		 */
		if (pool != NULL) {
			struct mrc_ev_totals et;

			mrc_ev_pool_totals(pool, &et);
			s->ev_good += et.active_good;
			s->ev_skip += et.active_skip;
			s->ev_bad += et.bad;
			s->ev_denied += et.denied;
		}
	}
}

void
mrcd_snapshot_publish(
	struct mrcd_daemon *d, unsigned int h, unsigned int k, uint64_t now_tsc, bool full)
{
	struct mrcd_snapshot *s = &d->snap[h][k], n;
	struct mrcd_shardctx *hc = &d->host[h].shard[k];
	const struct mrc_wire_rx_stats *v = mrc_shard_rx_verdicts(hc->rt);

	memset(&n, 0, sizeof(n));
	n.tsc = now_tsc;
	/*
	 * Read before the totals: every post this worker makes after it sees
	 * the drain begin is none, so a snapshot marked stopping counts all.
	 */
	n.stopping = __atomic_load_n(&d->phase, __ATOMIC_ACQUIRE) != MRCD_RUN;
	for (unsigned int p = 0; p < d->cfg.daemon.planes; p++) {
		const struct mrc_shard_plane_counters *pc = mrc_shard_plane_counters(hc->rt, p);

		n.tx_bytes[p] = pc->tx_bytes;
		n.rx_bytes[p] = pc->rx_bytes;
	}
	for (unsigned int r = 1; r < MRC_WIRE_REJECT_MAX; r++)
		n.rejects += v->pkts[r];
	n.failed = hc->failed_msgs;
	n.posted = hc->posted;
	n.completed = hc->completed;
	n.sent_bytes = hc->sent_bytes;
	n.verified_bytes = hc->verified_bytes;
	n.verify_errors = hc->verify_errors;
	n.verified_msgs = hc->verified_msgs;
	/*
	 * The QPs' own counters take a walk over the flows: a slice per
	 * snapshot, MRCD_SWEEP_PER_MS flows per millisecond since the last one,
	 * so the walk costs a worker the same per millisecond at 65,536 flows as
	 * at 64, whatever [lcores] stats_interval_ms is; the figures are those
	 * of the last full pass (up to a second old at 65,536 flows).
	 */
	const uint64_t since_ms = s->tsc != 0 && now_tsc > s->tsc && d->hz != 0
					  ? (now_tsc - s->tsc) * 1000 / d->hz
					  : 1;
	const uint64_t slice = MRCD_SWEEP_PER_MS * RTE_MAX(since_ms, (uint64_t)1);

	if (full) {
		memset(&hc->sums, 0, sizeof(hc->sums));
		sum_qps(d, hc, 0, hc->n_send, &hc->sums);
		memset(&hc->sums_part, 0, sizeof(hc->sums_part));
		hc->sweep_pos = 0;
	} else {
		const uint32_t to = (uint32_t)RTE_MIN((uint64_t)hc->n_send, hc->sweep_pos + slice);

		sum_qps(d, hc, hc->sweep_pos, to, &hc->sums_part);
		hc->sweep_pos = to;
		if (to == hc->n_send) {
			hc->sums = hc->sums_part;
			memset(&hc->sums_part, 0, sizeof(hc->sums_part));
			hc->sweep_pos = 0;
		}
	}
	/*
	 * With the counters of QPs that recovered flows left behind. A flow that
	 * moved to a new QP during a sweep may count twice until the next full
	 * pass: the totals never go back meanwhile (the console's rates are
	 * differences), and a full snapshot, the summary's, is exact.
	 */
	static const struct mrcd_qp_carry none;
	const struct mrcd_qp_carry *c = d->recover != NULL ? &d->recover->carry[h][k] : &none;

#define CARRY(field) \
	(full ? 0 : s->field) > hc->sums.field + c->field ? s->field : hc->sums.field + c->field
	n.retx = CARRY(retx);
	n.data_pkts = CARRY(data_pkts);
	n.spurious = CARRY(spurious);
	n.nacks = CARRY(nacks);
	n.ecn_echoes = CARRY(ecn_echoes);
	n.ev_losses = CARRY(ev_losses);
#undef CARRY
	n.ev_good = hc->sums.ev_good;
	n.ev_skip = hc->sums.ev_skip;
	n.ev_bad = hc->sums.ev_bad;
	n.ev_denied = hc->sums.ev_denied;
	/* Sequence lock: odd while writing, so a reader retries a torn copy. */
	__atomic_store_n(&s->seq, s->seq + 1, __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	n.seq = s->seq;
	memcpy((char *)s + sizeof(s->seq), (const char *)&n + sizeof(n.seq),
		sizeof(n) - sizeof(n.seq));
	__atomic_store_n(&s->seq, s->seq + 1, __ATOMIC_RELEASE);
}

void
mrcd_fabric_snapshot_publish(struct mrcd_daemon *d)
{
	__atomic_store_n(&d->fab_seq, d->fab_seq + 1, __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	d->fab_snap = *mrc_fabric_counters(d->fab);
	__atomic_store_n(&d->fab_seq, d->fab_seq + 1, __ATOMIC_RELEASE);
}
