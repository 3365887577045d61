/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: the worker lcores, launched by control/mrcd_run.c, until the
 * phase is MRCD_EXIT.
 *
 * The worker lcores' loop: poll the fabric, and for each of the worker's
 * shards (a host's part: mrcd_shardctx) post what the generator lets, run
 * the dataplane, take completions;
 * publish snapshots every [lcores] stats_interval_ms (every millisecond
 * during the drain, which waits on them) and answer telemetry queries every
 * millisecond.
 */

#include <stdio.h>
#include <string.h>
#include <time.h>

#include <rte_branch_prediction.h>
#include <rte_cycles.h>
#include <rte_lcore.h>

#include "mrc_fabric.h"
#include "mrcd_apps.h"
#include "mrcd_daemon.h"
#include "mrcd_datapath.h"
#include "mrcd_gen.h"
#include "mrcd_recover.h"
#include "mrc_shard.h"
#include "mrcd_sched.h"

/* How many completions ahead a flow's record is asked for. */
#define COMPL_AHEAD 8u

static void
completions(struct mrcd_daemon *d, struct mrcd_shardctx *hc, uint64_t now)
{
	struct mrc_cqe e[64];
	unsigned int n;

	while ((n = mrc_cq_poll(hc->cq, e, RTE_DIM(e))) > 0)
		for (unsigned int k = 0; k < n; k++) {
			const int32_t fi = mrcd_flow_of_qpn(d, e[k].qpn);
			struct mrcd_flow *f = &d->flows[fi < 0 ? 0 : fi];

			/*
			 * With many flows taking turns each completion's flow record
			 * is cold: ask for those COMPL_AHEAD completions on first.
			 */
			for (unsigned int j = k == 0 ? 1 : k + COMPL_AHEAD;
				j <= k + COMPL_AHEAD && j < n; j++) {
				const int32_t fj = mrcd_flow_of_qpn(d, e[j].qpn);

				if (fj < 0)
					continue;
				if (e[j].opcode == MRC_CQE_RECV_IMM)
					mrcd_flow_prefetch_recv(&d->flows[fj]);
				else
					mrcd_flow_prefetch_sent(&d->flows[fj]);
			}
			if (fi < 0)
				continue;
			if (e[k].status != MRC_CQE_OK) {
				hc->failed_msgs++;
				if (e[k].opcode != MRC_CQE_RECV_IMM) {
					/* Its slot is free: the flow's turn goes on (mrcd_sched.h).
					 */
					f->failed++;
					mrcd_sched_wake(d, f, (uint32_t)fi);
				}
			} else if (e[k].opcode == MRC_CQE_RECV_IMM) {
				const uint64_t vb = f->verified_bytes, ve = f->verify_errors,
					       vm = f->verified_msgs;

				/*
				 * Its sender, in this process, took newer parameters than this
				 * shard has: take them (one elsewhere: mrcd_gen_received).
				 */
				if (unlikely(__atomic_load_n(&f->shape_gen, __ATOMIC_RELAXED) !=
						     hc->gen->shape_gen &&
					     f->rx_src_local >= 0))
					mrcd_sched_take(
						d, (unsigned int)f->dst_local, f->dst_shard);
				mrcd_gen_received(hc->gen, f, &e[k]);
				hc->verified_bytes += f->verified_bytes - vb;
				hc->verified_msgs += f->verified_msgs - vm;
				hc->verify_errors += f->verify_errors - ve;
				mrcd_gaps_add(&hc->gaps, now);
			} else {
				const uint64_t sb = f->completed_bytes;

				mrcd_gen_sent(hc->gen, f, &e[k], now, d->hz, &hc->hist);
				hc->completed++;
				hc->sent_bytes += f->completed_bytes - sb;
				mrcd_sched_wake(d, f, (uint32_t)fi);
			}
		}
}

/*
 * Inside the shard's pass, between its input and its output round
 * (mrc_shard_set_before_output): the completions the input made, then the
 * posts they and the generator allow, so that a message is filled, posted
 * and sent with its payload and QP still in the cache, and a flow whose
 * message just completed posts its next in the same pass.
 */
struct pass_ctx {
	struct mrcd_daemon *d;
	struct mrcd_shardctx *sc;
	bool stopping;
};

static void
take_and_post(void *arg, uint64_t now)
{
	const struct pass_ctx *pc = arg;

	pc->sc->pass_tsc = now;
	completions(pc->d, pc->sc, now);
	mrcd_sched_post(pc->d, pc->sc, now, pc->stopping);
}

/*
 * A peer's planes: for a host of this process, its port mask (control
 * publishes the same to each of its shards: shard 0's); for one elsewhere,
 * what its port-status requests said (mrcd_epreq.h; all up until told).
 */
static uint32_t
peer_planes(const struct mrcd_daemon *d, int local, unsigned int cluster_host)
{
	return local >= 0 ? mrc_shard_port_mask(d->host[local].shard[0].rt)
			  : __atomic_load_n(&d->ep_peer_mask[cluster_host], __ATOMIC_ACQUIRE);
}

/*
 * Port status: a peer's planes are usable only where its port is up. Told
 * to the worker's QPs when a mask changes, not every iteration: that would
 * walk every QP.
 */
static void
tell_peer_planes(struct mrcd_daemon *d, const struct mrcd_worker *w)
{
	for (unsigned int k = 0; k < w->n_units; k++) {
		const struct mrcd_shardctx *hc =
			&d->host[w->units[k].host].shard[w->units[k].shard];

		for (uint32_t j = 0; j < hc->n_send; j++) {
			const struct mrcd_flow *f = &d->flows[hc->send_flows[j]];

			mrc_qp_set_peer_planes(f->qp, peer_planes(d, f->dst_local, f->dst));
		}
		for (uint32_t j = 0; j < hc->n_recv; j++) {
			const uint32_t i = hc->recv_flows[j];

			mrc_qp_set_peer_planes(d->peer_qp[i],
				peer_planes(d, d->flows[i].src_local, d->flows[i].src));
		}
	}
}

/*
 * Record, per shard, that its QPs are about to be told the peers' masks of
 * generation gen: the proof that every worker of a host took a change
 * (doc/telemetry.md, "shards" in --json). Rare: only when the generation moves.
 */
static void
note_peer_gen(struct mrcd_daemon *d, const struct mrcd_worker *w, uint32_t gen, uint64_t now)
{
	for (unsigned int k = 0; k < w->n_units; k++) {
		struct mrcd_shardctx *sc = &d->host[w->units[k].host].shard[w->units[k].shard];
		struct mrcd_peer_gen_rec *r =
			&sc->peer_gen_hist[sc->peer_gen_n % MRCD_PEER_GEN_HIST];

		for (unsigned int p = 0; p < d->cfg.daemon.planes; p++) {
			sc->peer_gen_plane_tx[p] = mrc_shard_plane_counters(sc->rt, p)->tx_pkts;
			r->plane_qp_tx[p] = mrc_shard_plane_qp_tx(sc->rt, p);
		}
		sc->peer_gen_tsc = now;
		r->gen = gen;
		r->tsc = now;
		memcpy(r->plane_tx, sc->peer_gen_plane_tx, sizeof(r->plane_tx));
		sc->peer_gen_n++;
	}
}

/*
 * Say that this worker's QPs were told generation gen: control answers a
 * port-status request only once every shard says so (mrcd_epreq.h), so an
 * answer that left means no QP of ours still picks the planes it took away.
 */
static void
published_peer_gen(struct mrcd_daemon *d, const struct mrcd_worker *w, uint32_t gen)
{
	for (unsigned int k = 0; k < w->n_units; k++)
		__atomic_store_n(&d->host[w->units[k].host].shard[w->units[k].shard].peer_gen, gen,
			__ATOMIC_RELEASE);
}

int
mrcd_worker_main(void *arg)
{
	struct mrcd_worker *w = arg;
	struct mrcd_daemon *d = w->d;
	const uint64_t snap_gap = (uint64_t)d->cfg.lcores.stats_interval_ms * d->hz / 1000;
	const uint64_t tick_gap = d->hz / 1000;
	uint64_t next_snap = 0, next_tick = 0;
	uint32_t seen_mask[MRCD_MAX_HOSTS], seen_gen = 0;
	struct timespec cpu0, cpu1;

	memset(seen_mask, 0xff, sizeof(seen_mask)); /* no mask is all ones: told at once */
	/* Per-core rates divide by the CPU this thread got, not by wall time:
	 * on a shared machine the two differ. Two calls per run, none per packet. */
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu0);
	while (__atomic_load_n(&d->phase, __ATOMIC_ACQUIRE) != MRCD_EXIT) {
		const uint64_t now = rte_rdtsc();
		const bool stopping = __atomic_load_n(&d->phase, __ATOMIC_ACQUIRE) != MRCD_RUN;
		const uint32_t gen = __atomic_load_n(&d->ep_peer_gen, __ATOMIC_ACQUIRE);
		bool changed = gen != seen_gen;

		for (unsigned int h = 0; h < d->n_hosts; h++) {
			const uint32_t m = mrc_shard_port_mask(d->host[h].shard[0].rt);

			changed |= m != seen_mask[h];
			seen_mask[h] = m;
		}
		/* Stamped after the generation was read, not with the pass's now: a
		 * worker preempted between the two would date the take before
		 * control published it (seen under ASan: 2.4 ms early). */
		if (gen != seen_gen)
			note_peer_gen(d, w, gen, rte_rdtsc());
		if (changed)
			tell_peer_planes(d, w);
		if (gen != seen_gen)
			published_peer_gen(d, w, gen);
		seen_gen = gen;
		if (w->runs_fabric)
			mrc_fabric_poll(d->fab, now);
		for (unsigned int k = 0; k < w->n_units; k++) {
			struct mrcd_shardctx *sc =
				&d->host[w->units[k].host].shard[w->units[k].shard];

			/* A reload's parameters, when published; then only flows that may post
			 * are visited (mrcd_sched.h). */
			mrcd_sched_take(d, w->units[k].host, w->units[k].shard);
			struct pass_ctx pc = {.d = d, .sc = sc, .stopping = stopping};

			mrc_shard_set_before_output(sc->rt, take_and_post, &pc);
			mrc_shard_iterate(sc->rt, now, &sc->rand);
			mrc_shard_set_before_output(sc->rt, NULL, NULL);
			/* what the output round completed (a QP it failed flushes its queue) */
			completions(d, sc, now);
		}
		mrcd_apps_worker_poll(d, (unsigned int)(w - d->workers));
		/* [lcores] pass_delay_us: a slower or busier core, for tests and benchmarks. */
		if (d->cfg.lcores.pass_delay_us != 0)
			rte_delay_us_block(d->cfg.lcores.pass_delay_us);
		if (now < next_tick)
			continue;
		next_tick = now + tick_gap;
		/* The drain ends when the snapshots say every message is done: no waiting. */
		if (now >= next_snap || stopping) {
			for (unsigned int k = 0; k < w->n_units; k++) {
				const struct mrcd_unit u = w->units[k];

				mrc_shard_publish(d->host[u.host].shard[u.shard].rt, now);
				mrcd_snapshot_publish(d, u.host, u.shard, now, false);
			}
			if (w->runs_fabric)
				mrcd_fabric_snapshot_publish(d);
			next_snap = now + snap_gap;
		}
		mrcd_query_serve(d, w, now);
		/* Recovered flows' and a reload's requests (mrcd_recover.h): once a ms. */
		for (unsigned int k = 0; k < w->n_units; k++)
			mrcd_recover_worker_step(d, w->units[k].host, w->units[k].shard);
	}
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu1);
	w->cpu_ns = (uint64_t)((cpu1.tv_sec - cpu0.tv_sec) * 1000000000ll +
			       (cpu1.tv_nsec - cpu0.tv_nsec));
	return 0;
}
