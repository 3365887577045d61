/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * What the daemon tells people: snapshots the workers publish (so the
 * control thread never reads live worker state), the console line every
 * second, the JSON-lines time series and the Prometheus text file, and the
 * summary at exit (plus --json).
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>

#include "mrc_rel_tx.h"
#include "mrcd_daemon.h"

/* ---- snapshots ---- */

/* Add the QPs' own counters of sending flows send_flows[from, to) of host h. */
static void
sum_qps(const struct mrcd_daemon *d, const struct mrcd_hostctx *hc, uint32_t from, uint32_t to,
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
		for (unsigned int p = 0; pool != NULL && p < d->cfg.daemon.planes; p++) {
			struct mrc_ev_counts ec;

			if (mrc_ev_plane_counts(pool, p, &ec) != 0)
				continue;
			s->ev_good += ec.active[MRC_EV_GOOD];
			s->ev_skip += ec.active[MRC_EV_SKIP];
			s->ev_bad += ec.active[MRC_EV_ASSUMED_BAD] + ec.backup[MRC_EV_ASSUMED_BAD];
			s->ev_denied += ec.active[MRC_EV_DENIED] + ec.backup[MRC_EV_DENIED];
		}
	}
}

void
mrcd_snapshot_publish(struct mrcd_daemon *d, unsigned int h, uint64_t now_tsc, bool full)
{
	struct mrcd_snapshot *s = &d->snap[h], n;
	struct mrcd_hostctx *hc = &d->host[h];
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
	/*
	 * The QPs' own counters take a walk over the flows: a slice per tick, so
	 * a tick costs the same at 65,536 flows as at 64; the figures are those
	 * of the last full pass (up to a second old at 65,536 flows: 64 per ms).
	 */
	if (full) {
		memset(&hc->sums, 0, sizeof(hc->sums));
		sum_qps(d, hc, 0, hc->n_send, &hc->sums);
		memset(&hc->sums_part, 0, sizeof(hc->sums_part));
		hc->sweep_pos = 0;
	} else {
		const uint32_t to = RTE_MIN(hc->n_send, hc->sweep_pos + MRCD_SWEEP_SLICE);

		sum_qps(d, hc, hc->sweep_pos, to, &hc->sums_part);
		hc->sweep_pos = to;
		if (to == hc->n_send) {
			hc->sums = hc->sums_part;
			memset(&hc->sums_part, 0, sizeof(hc->sums_part));
			hc->sweep_pos = 0;
		}
	}
	n.retx = hc->sums.retx;
	n.data_pkts = hc->sums.data_pkts;
	n.spurious = hc->sums.spurious;
	n.nacks = hc->sums.nacks;
	n.ecn_echoes = hc->sums.ecn_echoes;
	n.ev_losses = hc->sums.ev_losses;
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

void
mrcd_fabric_snapshot_read(const struct mrcd_daemon *d, struct mrc_fabric_counters *out)
{
	uint32_t a, b;

	do {
		a = __atomic_load_n(&d->fab_seq, __ATOMIC_ACQUIRE);
		*out = d->fab_snap;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		b = __atomic_load_n(&d->fab_seq, __ATOMIC_ACQUIRE);
	} while ((a & 1) || a != b);
}

void
mrcd_snapshot_read(const struct mrcd_daemon *d, unsigned int h, struct mrcd_snapshot *out)
{
	const struct mrcd_snapshot *s = &d->snap[h];
	uint32_t a, b;

	do {
		a = __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE);
		memcpy(out, s, sizeof(*out));
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		b = __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE);
	} while ((a & 1) || a != b);
}

static void
totals(const struct mrcd_daemon *d, struct mrcd_snapshot *t)
{
	memset(t, 0, sizeof(*t));
	for (unsigned int h = 0; h < d->n_hosts; h++) {
		struct mrcd_snapshot s;

		mrcd_snapshot_read(d, h, &s);
		for (unsigned int p = 0; p < MRC_SHARD_MAX_PLANES; p++) {
			t->tx_bytes[p] += s.tx_bytes[p];
			t->rx_bytes[p] += s.rx_bytes[p];
		}
		t->posted += s.posted;
		t->completed += s.completed;
		t->failed += s.failed;
		t->sent_bytes += s.sent_bytes;
		t->verified_bytes += s.verified_bytes;
		t->verify_errors += s.verify_errors;
		t->retx += s.retx;
		t->data_pkts += s.data_pkts;
		t->spurious += s.spurious;
		t->nacks += s.nacks;
		t->ecn_echoes += s.ecn_echoes;
		t->ev_losses += s.ev_losses;
		t->ev_good += s.ev_good;
		t->ev_skip += s.ev_skip;
		t->ev_bad += s.ev_bad;
		t->ev_denied += s.ev_denied;
		t->rejects += s.rejects;
		t->tsc = RTE_MAX(t->tsc, s.tsc);
	}
}

static double
gbps(uint64_t bytes, uint64_t tsc, uint64_t hz)
{
	return tsc == 0 ? 0 : (double)bytes * 8 / ((double)tsc / (double)hz) / 1e9;
}

/* ---- console ---- */

void
mrcd_banner(const struct mrcd_daemon *d, const char *profile, const char *scenario)
{
	if (d->fab != NULL)
		printf("mrcd: %u hosts x %u planes on the emulated fabric (%u T1s per plane, %.3g "
		       "Gb/s links), %u workers\n",
			d->n_hosts, d->cfg.daemon.planes, d->cfg.fabric.t1s,
			d->cfg.fabric.link_gbps, d->n_workers);
	else
		printf("mrcd: %u hosts x %u planes on ethdev ports, %u workers\n", d->n_hosts,
			d->cfg.daemon.planes, d->n_workers);
	char sizes[160];

	if (d->prof.n_mix > 0)
		snprintf(sizes, sizeof(sizes), "sizes %s KiB:weight", d->prof.size_mix);
	else
		snprintf(sizes, sizeof(sizes), "%u KiB messages", d->prof.msg_kb);
	printf("mrcd: traffic %s: %s, %s, %s, %u QP(s) per peer, %u in flight each, %u flows, "
	       "verify %s\n",
		profile[0] ? profile : "(built-in)", mrcd_pattern_name(d->prof.pattern), sizes,
		d->prof.opcode == MRCD_OP_WRITE ? "WRITE" : "WRITE with immediate",
		d->prof.qps_per_peer, d->prof.outstanding, d->n_flows,
		d->prof.verify ? "on" : "off");
	if (d->cfg.transport.paths != MRC_QP_PATHS_SPRAY ||
		d->cfg.transport.reliability != MRC_QP_REL_SACK)
		printf("mrcd: reference modes: paths %s, reliability %s\n",
			d->cfg.transport.paths ? "ecmp" : "spray",
			d->cfg.transport.reliability ? "gbn" : "sack");
	printf("mrcd: faults %s; running %u s (Ctrl-C stops early)\n",
		scenario[0] ? scenario : "none", d->cfg.daemon.duration_s);
	fflush(stdout);
}

void
mrcd_console_line(struct mrcd_daemon *d, uint64_t now_tsc, uint64_t start_tsc)
{
	static struct mrcd_snapshot prev;
	static uint64_t prev_tsc;
	struct mrcd_snapshot t;
	const uint64_t dt = now_tsc - (prev_tsc ? prev_tsc : start_tsc);
	double total = 0;

	totals(d, &t);
	printf("%6.1fs  Gb/s", (double)(now_tsc - start_tsc) / (double)d->hz);
	for (unsigned int p = 0; p < d->cfg.daemon.planes; p++) {
		double g = gbps(t.tx_bytes[p] - prev.tx_bytes[p], dt, d->hz);

		total += g;
		printf(" p%u %5.2f", p, g);
	}
	printf(" | total %6.2f | retx %" PRIu64 " | EV good %" PRIu64 " skip %" PRIu64
	       " bad %" PRIu64 " | msgs %" PRIu64 "\n",
		total, t.retx - prev.retx, t.ev_good, t.ev_skip, t.ev_bad, t.completed);
	fflush(stdout);
	prev = t;
	prev_tsc = now_tsc;
}

/* ---- files ---- */

void
mrcd_output_open(struct mrcd_daemon *d, struct mrcd_output *o)
{
	memset(o, 0, sizeof(*o));
	if (strcmp(d->cfg.telemetry.timeseries, "none") != 0) {
		o->ts = fopen(d->cfg.telemetry.timeseries, "w");
		if (o->ts == NULL)
			fprintf(stderr, "mrcd: time series %s: %s (continuing without)\n",
				d->cfg.telemetry.timeseries, strerror(errno));
	}
}

static void
write_prometheus(const struct mrcd_daemon *d, const struct mrcd_snapshot *t)
{
	char tmp[MRCD_CONFIG_PATH_MAX + 8];
	FILE *f;

	if (strcmp(d->cfg.telemetry.prometheus, "none") == 0)
		return;
	/* Written aside and renamed: a scraper never reads half a file. */
	snprintf(tmp, sizeof(tmp), "%s.tmp", d->cfg.telemetry.prometheus);
	f = fopen(tmp, "w");
	if (f == NULL)
		return;
	fprintf(f, "# HELP mrcd_plane_tx_bytes_total Bytes sent on each plane (all hosts).\n"
		   "# TYPE mrcd_plane_tx_bytes_total counter\n");
	for (unsigned int p = 0; p < d->cfg.daemon.planes; p++)
		fprintf(f, "mrcd_plane_tx_bytes_total{plane=\"%u\"} %" PRIu64 "\n", p,
			t->tx_bytes[p]);
	fprintf(f,
		"# HELP mrcd_messages_completed_total Messages sent and fully acknowledged.\n"
		"# TYPE mrcd_messages_completed_total counter\n"
		"mrcd_messages_completed_total %" PRIu64 "\n"
		"# HELP mrcd_retransmits_total Data packets resent.\n"
		"# TYPE mrcd_retransmits_total counter\nmrcd_retransmits_total %" PRIu64 "\n"
		"# HELP mrcd_nacks_total NACKs received.\n"
		"# TYPE mrcd_nacks_total counter\nmrcd_nacks_total %" PRIu64 "\n"
		"# HELP mrcd_ecn_echoes_total SACKs echoing an ECN mark.\n"
		"# TYPE mrcd_ecn_echoes_total counter\nmrcd_ecn_echoes_total %" PRIu64 "\n"
		"# HELP mrcd_evs EVs by state (active set; bad and denied include backups).\n"
		"# TYPE mrcd_evs gauge\n"
		"mrcd_evs{state=\"good\"} %" PRIu64 "\nmrcd_evs{state=\"skip\"} %" PRIu64 "\n"
		"mrcd_evs{state=\"assumed_bad\"} %" PRIu64 "\nmrcd_evs{state=\"denied\"} %" PRIu64
		"\n"
		"# HELP mrcd_verified_bytes_total Bytes checked at the receivers.\n"
		"# TYPE mrcd_verified_bytes_total counter\nmrcd_verified_bytes_total %" PRIu64 "\n",
		t->completed, t->retx, t->nacks, t->ecn_echoes, t->ev_good, t->ev_skip, t->ev_bad,
		t->ev_denied, t->verified_bytes);
	fclose(f);
	rename(tmp, d->cfg.telemetry.prometheus);
}

/*
 * The time series is capped: once it holds [telemetry] timeseries_max_kb,
 * it becomes FILE.1 (replacing an older one) and a new FILE starts, so a
 * long run keeps at most twice the cap on disk, the newest samples last.
 */
static void
ts_rotate_if_full(struct mrcd_daemon *d, struct mrcd_output *o)
{
	const char *path = d->cfg.telemetry.timeseries;
	char old[MRCD_CONFIG_PATH_MAX + 2];
	long size = ftell(o->ts);

	if (size < 0 || (uint64_t)size < (uint64_t)d->cfg.telemetry.timeseries_max_kb * 1024)
		return;
	fclose(o->ts);
	snprintf(old, sizeof(old), "%s.1", path);
	if (rename(path, old) != 0)
		fprintf(stderr, "mrcd: time series %s: cannot rename to %s: %s (starting over)\n",
			path, old, strerror(errno));
	o->ts = fopen(path, "w");
	if (o->ts == NULL)
		fprintf(stderr, "mrcd: time series %s: %s (continuing without)\n", path,
			strerror(errno));
	o->ts_rotations++;
}

static void
write_ts_line(struct mrcd_daemon *d, struct mrcd_output *o, uint64_t now_tsc, uint64_t start_tsc)
{
	struct mrcd_snapshot t, *l = &o->last[0];
	const uint64_t dt = now_tsc - (o->last_tsc ? o->last_tsc : start_tsc);

	totals(d, &t);
	fprintf(o->ts, "{\"t\": %.3f, \"plane_gbps\": [",
		(double)(now_tsc - start_tsc) / (double)d->hz);
	for (unsigned int p = 0; p < d->cfg.daemon.planes; p++)
		fprintf(o->ts, "%s%.4f", p ? ", " : "",
			gbps(t.tx_bytes[p] - l->tx_bytes[p], dt, d->hz));
	fprintf(o->ts,
		"], \"retx\": %" PRIu64 ", \"nacks\": %" PRIu64 ", \"ecn_echoes\": %" PRIu64
		", \"ev\": {\"good\": %" PRIu64 ", \"skip\": %" PRIu64 ", \"bad\": %" PRIu64
		", \"denied\": %" PRIu64 "}, \"msgs\": %" PRIu64 ", \"verified_bytes\": %" PRIu64
		"}\n",
		t.retx - l->retx, t.nacks - l->nacks, t.ecn_echoes - l->ecn_echoes, t.ev_good,
		t.ev_skip, t.ev_bad, t.ev_denied, t.completed, t.verified_bytes);
	*l = t;
	o->last_tsc = now_tsc;
	ts_rotate_if_full(d, o);
}

void
mrcd_output_tick(struct mrcd_daemon *d, struct mrcd_output *o, uint64_t now_tsc, uint64_t start_tsc)
{
	if (o->next_ts == 0) {
		/* The first sample covers a whole interval: a rate over microseconds means nothing.
		 */
		o->last_tsc = start_tsc;
		o->next_ts = start_tsc +
			     (uint64_t)d->cfg.telemetry.timeseries_interval_ms * d->hz / 1000;
	}
	if (o->ts != NULL && now_tsc >= o->next_ts) {
		write_ts_line(d, o, now_tsc, start_tsc);
		o->next_ts =
			now_tsc + (uint64_t)d->cfg.telemetry.timeseries_interval_ms * d->hz / 1000;
	}
	if (now_tsc >= o->next_prom) {
		struct mrcd_snapshot t;

		totals(d, &t);
		write_prometheus(d, &t);
		o->next_prom =
			now_tsc + (uint64_t)d->cfg.telemetry.prometheus_interval_ms * d->hz / 1000;
	}
}

void
mrcd_output_close(
	struct mrcd_daemon *d, struct mrcd_output *o, uint64_t now_tsc, uint64_t start_tsc)
{
	struct mrcd_snapshot t;

	totals(d, &t);
	write_prometheus(d, &t);
	if (o->ts == NULL)
		return;
	write_ts_line(d, o, now_tsc, start_tsc);
	if (o->ts == NULL) /* it reached its cap and could not start again */
		return;
	/* The fault timeline, read now that the fabric's worker has stopped. */
	const struct mrc_fabric_event *ev = NULL;
	unsigned int n = d->fab != NULL ? mrc_fabric_event_log(d->fab, &ev) : 0;

	for (unsigned int i = 0; i < n; i++) {
		char what[256];

		mrc_fabric_event_format(what, sizeof(what), &ev[i]);
		fprintf(o->ts, "{\"t\": %.3f, \"event\": \"%s\"}\n", (double)ev[i].t_ns / 1e9,
			what);
	}
	fclose(o->ts);
	o->ts = NULL;
}

/* ---- summary ---- */

int
mrcd_pools_full(const struct mrcd_hostctx *hc)
{
	int rc = 0;

	if (hc->rx_pool != NULL && rte_mempool_avail_count(hc->rx_pool) != hc->rx_pool->size) {
		fprintf(stderr, "mrcd: %s: %u of %u mbufs not returned\n", hc->rx_pool->name,
			hc->rx_pool->size - rte_mempool_avail_count(hc->rx_pool),
			hc->rx_pool->size);
		rc = -1;
	}
	if (hc->tx_pool != NULL && rte_mempool_avail_count(hc->tx_pool) != hc->tx_pool->size) {
		fprintf(stderr, "mrcd: %s: %u of %u mbufs not returned\n", hc->tx_pool->name,
			hc->tx_pool->size - rte_mempool_avail_count(hc->tx_pool),
			hc->tx_pool->size);
		rc = -1;
	}
	return rc;
}

/* The receivers' longest waits between messages (mrcd_gaps.h), longest first. */
static void
print_gaps(FILE *f, const struct mrcd_daemon *d, bool json)
{
	bool any = false;

	if (json)
		fprintf(f, " \"start_monotonic_s\": %.9f, \"recv_gaps\": [",
			(double)d->start_mono_ns / 1e9);
	for (unsigned int h = 0; h < d->n_hosts; h++) {
		const struct mrcd_gaps *g = &d->host[h].gaps;

		for (unsigned int i = 0; i < g->n && (json || i == 0); i++) {
			const double ms = (double)g->len_tsc[i] * 1e3 / (double)d->hz;
			const double end_s = (double)(g->end_tsc[i] - d->start_tsc) / (double)d->hz;

			if (json)
				fprintf(f, "%s{\"host\": %u, \"ms\": %.4f, \"end_s\": %.6f}",
					any ? ", " : "", d->cfg.daemon.first_host + h, ms, end_s);
			else
				printf("  host %u received: longest wait between messages %.3f ms, "
				       "ending at %.3f s\n",
					d->cfg.daemon.first_host + h, ms, end_s);
			any = true;
		}
	}
	if (json)
		fprintf(f, "],\n");
}

int
mrcd_summary(const struct mrcd_daemon *d)
{
	struct mrcd_snapshot t;
	struct mrcd_hist hist;
	const uint64_t run = d->run_tsc ? d->run_tsc : 1;
	/* Only the emulated fabric has fabric counters; ethdev and loop modes have ports. */
	const struct mrc_fabric_counters *fc = d->fab != NULL ? mrc_fabric_counters(d->fab) : NULL;
	struct mrcd_port_drops pd;
	uint64_t lost;

	totals(d, &t);
	/* What the worker cores did, for per-core rates (bench-rate.sh). */
	uint64_t cpu_ns = 0, rx_pkts = 0, rx_bytes = 0;

	for (unsigned int i = 0; i < d->n_workers; i++)
		cpu_ns += d->workers[i].cpu_ns;
	for (unsigned int i = 0; i < d->n_flows; i++)
		if (d->peer_qp[i] != NULL) {
			rx_pkts += mrc_qp_counters(d->peer_qp[i])->rx_data_pkts;
			rx_bytes += mrc_qp_counters(d->peer_qp[i])->rx_data_bytes;
		}
	const double wall_ns = (double)(run + d->drain_tsc) * 1e9 / (double)d->hz;
	const double cpu_share = (double)cpu_ns / (wall_ns * RTE_MAX(d->n_workers, 1u));

	memset(&hist, 0, sizeof(hist));
	for (unsigned int h = 0; h < d->n_hosts; h++)
		mrcd_hist_merge(&hist, &d->host[h].hist);
	lost = t.posted - t.completed - t.failed;

	printf("\nmrcd summary: %.2f s of traffic, %.3f s of drain\n", (double)run / (double)d->hz,
		(double)d->drain_tsc / (double)d->hz);
	printf("  per plane (Gb/s, all hosts):");
	for (unsigned int p = 0; p < d->cfg.daemon.planes; p++)
		printf(" p%u %.3f", p, gbps(t.tx_bytes[p], run, d->hz));
	printf("\n  messages: %" PRIu64 " posted, %" PRIu64 " completed, %" PRIu64
	       " failed, %" PRIu64 " lost; goodput %.3f Gb/s\n",
		t.posted, t.completed, t.failed, lost, gbps(t.sent_bytes, run, d->hz));
	printf("  completion time: p50 %.1f us, p99 %.1f us, p99.9 %.1f us, max %.1f us (%" PRIu64
	       " messages)\n",
		mrcd_hist_pct(&hist, 50) / 1e3, mrcd_hist_pct(&hist, 99) / 1e3,
		mrcd_hist_pct(&hist, 99.9) / 1e3, hist.max_ns / 1e3, hist.n);
	printf("  data: %" PRIu64 " bytes verified at the receivers, %" PRIu64 " errors\n",
		t.verified_bytes, t.verify_errors);
	print_gaps(stdout, d, false);
	printf("  transport: %" PRIu64 " resent (%.3f%% of %" PRIu64 " data packets; %" PRIu64
	       " of them lost, then acknowledged after all), %" PRIu64 " NACKs, %" PRIu64
	       " ECN echoes, %" PRIu64 " packets lost on a path; EVs now good %" PRIu64
	       ", skip %" PRIu64 ", bad %" PRIu64 ", denied %" PRIu64 "\n",
		t.retx, t.data_pkts ? 100.0 * (double)t.retx / (double)t.data_pkts : 0.0,
		t.data_pkts, t.spurious, t.nacks, t.ecn_echoes, t.ev_losses, t.ev_good, t.ev_skip,
		t.ev_bad, t.ev_denied);
	printf("  workers: %u, %.3f s of CPU (%.0f%% of the run's wall time each); %" PRIu64
	       " data packets (%" PRIu64 " payload bytes) placed at the receivers here\n",
		d->n_workers, cpu_ns / 1e9, 100 * cpu_share, rx_pkts, rx_bytes);
	/* Workers poll without pause: far below 100% means the machine took their CPU. */
	if (cpu_share < 0.1)
		printf("  warning: the workers were starved of CPU: completion times, goodput and "
		       "whether the drain sufficed measure this machine's load, not the "
		       "transport\n");
	/* Scale: rates over the run, and what a QP costs (setup's heap use, less buffers). */
	uint64_t n_qps = 0, rss_kb = 0, idle_flows = 0, trk_waits = 0;
	uint32_t trk_max = 0;

	for (unsigned int h = 0; h < d->n_hosts; h++) {
		const struct mrc_trk_pool *tp = mrc_shard_trk_pool(d->host[h].rt);

		n_qps += d->host[h].n_send + d->host[h].n_recv;
		if (tp != NULL) {
			trk_waits += tp->stats.waits;
			trk_max = RTE_MAX(trk_max, tp->stats.max_in_use);
		}
	}
	/* Flows of ours that sent and never saw a completion: traffic not spread over all. */
	for (unsigned int i = 0; i < d->n_flows; i++)
		idle_flows += d->flows[i].src_local >= 0 && d->flows[i].completed == 0;
	{
		FILE *st = fopen("/proc/self/status", "r");
		char line[128];

		while (st != NULL && fgets(line, sizeof(line), st) != NULL)
			if (sscanf(line, "VmHWM: %" SCNu64 " kB", &rss_kb) == 1)
				break;
		if (st != NULL)
			fclose(st);
	}
	const double run_s = (double)run / (double)d->hz;
	const uint64_t heap_qp =
		d->heap_bytes > d->msg_buf_bytes
			? (d->heap_bytes - d->msg_buf_bytes) / RTE_MAX(n_qps, (uint64_t)1)
			: 0;

	printf("  scale: %" PRIu64 " QPs, %.0f messages/s, %.0f data packets/s; per QP %" PRIu64
	       " B of heap (%" PRIu64 " B its own state, %" PRIu64 " B in-flight ring share), "
	       "%zu MiB of message buffers, peak RSS %" PRIu64 " MiB\n",
		n_qps, (double)t.completed / run_s, (double)rx_pkts / run_s, heap_qp,
		d->qp_bytes / RTE_MAX(n_qps, (uint64_t)1),
		d->trk_bytes / RTE_MAX(n_qps, (uint64_t)1), d->msg_buf_bytes >> 20, rss_kb >> 10);
	printf("  flows: %u here, %" PRIu64
	       " of them sent nothing that completed; in-flight rings: "
	       "at most %u of a host's out at once, %" PRIu64 " times a QP waited for one\n",
		d->n_flows, idle_flows, trk_max, trk_waits);
	printf("  drops: %" PRIu64 " refused by the parser", t.rejects);
	for (int r = 1; r < MRC_WIRE_REJECT_MAX; r++) {
		uint64_t v = 0;

		for (unsigned int h = 0; h < d->n_hosts; h++)
			v += mrc_shard_rx_verdicts(d->host[h].rt)->pkts[r];
		if (v != 0)
			printf(" (%s %" PRIu64 ")", mrc_wire_reject_name((enum mrc_wire_rx)r), v);
	}
	for (unsigned int i = 0; fc != NULL && i < mrc_fabric_counters_count; i++) {
		uint64_t v = mrc_fabric_counters_get(fc, i);

		if (v != 0 && strncmp(mrc_fabric_counters_desc[i].name, "drop", 4) == 0)
			printf(", fabric %s %" PRIu64, mrc_fabric_counters_desc[i].name, v);
	}
	mrcd_ports_drops(d, &pd);
	if (d->fab == NULL)
		printf(", ports: missed %" PRIu64 ", rx errors %" PRIu64 ", tx errors %" PRIu64
		       ", no rx mbuf %" PRIu64,
			pd.imissed, pd.ierrors, pd.oerrors, pd.rx_nombuf);
	printf("\n");

	if (d->cli.json[0] != '\0') {
		FILE *j = fopen(d->cli.json, "w");

		if (j == NULL) {
			fprintf(stderr, "mrcd: --json %s: %s\n", d->cli.json, strerror(errno));
		} else {
			fprintf(j,
				"{\"duration_s\": %.3f, \"drain_s\": %.4f, \"hosts\": %u, "
				"\"planes\": %u, \"flows\": %u,\n",
				(double)run / (double)d->hz, (double)d->drain_tsc / (double)d->hz,
				d->n_hosts, d->cfg.daemon.planes, d->n_flows);
			fprintf(j, " \"paths\": \"%s\", \"reliability\": \"%s\",\n",
				d->cfg.transport.paths ? "ecmp" : "spray",
				d->cfg.transport.reliability ? "gbn" : "sack");
			fprintf(j, " \"plane_gbps\": [");
			for (unsigned int p = 0; p < d->cfg.daemon.planes; p++)
				fprintf(j, "%s%.4f", p ? ", " : "",
					gbps(t.tx_bytes[p], run, d->hz));
			fprintf(j,
				"],\n \"messages\": {\"posted\": %" PRIu64
				", \"completed\": %" PRIu64 ", \"failed\": %" PRIu64
				", \"lost\": %" PRIu64 "},\n",
				t.posted, t.completed, t.failed, lost);
			fprintf(j,
				" \"goodput_gbps\": %.4f,\n \"completion_us\": {\"p50\": %.2f, "
				"\"p99\": %.2f, \"p99_9\": %.2f, \"max\": %.2f},\n",
				gbps(t.sent_bytes, run, d->hz), mrcd_hist_pct(&hist, 50) / 1e3,
				mrcd_hist_pct(&hist, 99) / 1e3, mrcd_hist_pct(&hist, 99.9) / 1e3,
				hist.max_ns / 1e3);
			fprintf(j,
				" \"bytes_verified\": %" PRIu64 ", \"verify_errors\": %" PRIu64
				",\n",
				t.verified_bytes, t.verify_errors);
			print_gaps(j, d, true);
			fprintf(j,
				" \"workers\": %u, \"worker_cpu_s\": %.6f, \"worker_cpu_share\": "
				"%.4f, "
				"\"data_pkts_placed\": %" PRIu64 ", \"data_bytes_placed\": %" PRIu64
				",\n",
				d->n_workers, cpu_ns / 1e9, cpu_share, rx_pkts, rx_bytes);
			fprintf(j,
				" \"qps\": %" PRIu64
				", \"msgs_per_s\": %.1f, \"pkts_per_s\": %.1f, "
				"\"heap_bytes_per_qp\": %" PRIu64
				", \"qp_state_bytes_per_qp\": %" PRIu64
				", \"trk_bytes_per_qp\": %" PRIu64 ", \"msg_buf_bytes\": %zu, "
				"\"peak_rss_bytes\": %" PRIu64 ",\n",
				n_qps, (double)t.completed / run_s, (double)rx_pkts / run_s,
				heap_qp, d->qp_bytes / RTE_MAX(n_qps, (uint64_t)1),
				d->trk_bytes / RTE_MAX(n_qps, (uint64_t)1), d->msg_buf_bytes,
				rss_kb << 10);
			fprintf(j,
				" \"flows_without_completion\": %" PRIu64
				", \"trk_max_in_use\": %u, "
				"\"trk_waits\": %" PRIu64 ",\n",
				idle_flows, trk_max, trk_waits);
			fprintf(j,
				" \"retransmits\": %" PRIu64 ", \"data_pkts_sent\": %" PRIu64
				", \"spurious_losses\": %" PRIu64 ", \"nacks\": %" PRIu64
				", \"ecn_echoes\": %" PRIu64 ", \"ev_losses\": %" PRIu64 ",\n",
				t.retx, t.data_pkts, t.spurious, t.nacks, t.ecn_echoes,
				t.ev_losses);
			fprintf(j,
				" \"ev_states\": {\"good\": %" PRIu64 ", \"skip\": %" PRIu64
				", \"assumed_bad\": %" PRIu64 ", \"denied\": %" PRIu64 "},\n",
				t.ev_good, t.ev_skip, t.ev_bad, t.ev_denied);
			fprintf(j, " \"drops\": {\"parser\": %" PRIu64, t.rejects);
			for (unsigned int i = 0; fc != NULL && i < mrc_fabric_counters_count; i++)
				if (strncmp(mrc_fabric_counters_desc[i].name, "drop", 4) == 0)
					fprintf(j, ", \"fabric_%s\": %" PRIu64,
						mrc_fabric_counters_desc[i].name,
						mrc_fabric_counters_get(fc, i));
			if (fc == NULL)
				fprintf(j,
					", \"port_imissed\": %" PRIu64
					", \"port_ierrors\": %" PRIu64
					", \"port_oerrors\": %" PRIu64
					", \"port_rx_nombuf\": %" PRIu64,
					pd.imissed, pd.ierrors, pd.oerrors, pd.rx_nombuf);
			fprintf(j, "}}\n");
			fclose(j);
		}
	}
	return lost == 0 && t.verify_errors == 0 && t.failed == 0 ? 0 : -1;
}
