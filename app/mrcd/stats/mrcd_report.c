/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: the main lcore (the control loop in control/mrcd_run.c); the
 * readers also by DPDK's telemetry threads (mrcd_telemetry.c).
 *
 * What the daemon tells people while it runs, from the snapshots the
 * workers publish (datapath/mrcd_snapshot.c) and never from live worker
 * state: the readers, the banner, the console line every second, the
 * JSON-lines time series and the Prometheus text file. The summary at exit
 * is mrcd_summary.c.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>

#include "mrcd_daemon.h"
#include "mrcd_log.h"
#include "mrcd_stats.h"

MRCD_LOG_TYPE_DEFINE(stats);

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

/* One shard's snapshot, consistent (the sequence lock). */
static void
read_one(const struct mrcd_snapshot *s, struct mrcd_snapshot *out)
{
	uint32_t a, b;

	do {
		a = __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE);
		memcpy(out, s, sizeof(*out));
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		b = __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE);
	} while ((a & 1) || a != b);
}

/* Add one snapshot's counters to a sum (tsc and stopping are the caller's). */
static void
add_snapshot(struct mrcd_snapshot *t, const struct mrcd_snapshot *s)
{
	for (unsigned int p = 0; p < MRC_SHARD_MAX_PLANES; p++) {
		t->tx_bytes[p] += s->tx_bytes[p];
		t->rx_bytes[p] += s->rx_bytes[p];
	}
	t->posted += s->posted;
	t->completed += s->completed;
	t->failed += s->failed;
	t->sent_bytes += s->sent_bytes;
	t->verified_bytes += s->verified_bytes;
	t->verify_errors += s->verify_errors;
	t->retx += s->retx;
	t->data_pkts += s->data_pkts;
	t->spurious += s->spurious;
	t->nacks += s->nacks;
	t->ecn_echoes += s->ecn_echoes;
	t->ev_losses += s->ev_losses;
	t->ev_good += s->ev_good;
	t->ev_skip += s->ev_skip;
	t->ev_bad += s->ev_bad;
	t->ev_denied += s->ev_denied;
	t->rejects += s->rejects;
}

/*
 * A host's snapshot: the sum of its shards' (each consistent on its own),
 * stopping once every shard had seen the drain, taken when the latest was.
 */
void
mrcd_snapshot_read(const struct mrcd_daemon *d, unsigned int h, struct mrcd_snapshot *out)
{
	const unsigned int n = d->host[h].n_shards ? d->host[h].n_shards : 1;

	read_one(&d->snap[h][0], out);
	for (unsigned int k = 1; k < n; k++) {
		struct mrcd_snapshot s;

		read_one(&d->snap[h][k], &s);
		add_snapshot(out, &s);
		out->stopping = out->stopping && s.stopping;
		out->tsc = RTE_MAX(out->tsc, s.tsc);
	}
}

void
mrcd_snapshot_totals(const struct mrcd_daemon *d, struct mrcd_snapshot *t)
{
	memset(t, 0, sizeof(*t));
	for (unsigned int h = 0; h < d->n_hosts; h++) {
		struct mrcd_snapshot s;

		mrcd_snapshot_read(d, h, &s);
		add_snapshot(t, &s);
		t->tsc = RTE_MAX(t->tsc, s.tsc);
	}
}

double
mrcd_gbps(uint64_t bytes, uint64_t tsc, uint64_t hz)
{
	return tsc == 0 ? 0 : (double)bytes * 8 / ((double)tsc / (double)hz) / 1e9;
}

/* ---- console ---- */

/* The banner is output, like the console line: what this run is, on stdout. */
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
	if (d->no_traffic)
		printf("mrcd: traffic none (profile none): no flows of its own\n");
	else
		printf("mrcd: traffic %s: %s, %s, %s, %u QP(s) per peer, %u in flight each, %u "
		       "flows, verify %s\n",
			profile[0] ? profile : "(built-in)", mrcd_pattern_name(d->prof.pattern),
			sizes, d->prof.opcode == MRCD_OP_WRITE ? "WRITE" : "WRITE with immediate",
			d->prof.qps_per_peer, d->prof.outstanding, d->n_flows,
			d->prof.verify ? "on" : "off");
	if (d->cfg.transport.paths != MRC_QP_PATHS_SPRAY ||
		d->cfg.transport.reliability != MRC_QP_REL_SACK)
		printf("mrcd: reference modes: paths %s, reliability %s\n",
			d->cfg.transport.paths ? "ecmp" : "spray",
			d->cfg.transport.reliability ? "gbn" : "sack");
	if (d->cfg.daemon.duration_s == 0)
		printf("mrcd: faults %s; running until stopped (SIGTERM or SIGINT)\n",
			scenario[0] ? scenario : "none");
	else
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

	mrcd_snapshot_totals(d, &t);
	printf("%6.1fs  Gb/s", (double)(now_tsc - start_tsc) / (double)d->hz);
	for (unsigned int p = 0; p < d->cfg.daemon.planes; p++) {
		double g = mrcd_gbps(t.tx_bytes[p] - prev.tx_bytes[p], dt, d->hz);

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
			MRCD_LOG(stats, WARNING, "time series %s: %s (continuing without)",
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
		MRCD_LOG(stats, WARNING, "time series %s: cannot rename to %s: %s (starting over)",
			path, old, strerror(errno));
	o->ts = fopen(path, "w");
	if (o->ts == NULL)
		MRCD_LOG(stats, WARNING, "time series %s: %s (continuing without)", path,
			strerror(errno));
	o->ts_rotations++;
}

static void
write_ts_line(struct mrcd_daemon *d, struct mrcd_output *o, uint64_t now_tsc, uint64_t start_tsc)
{
	struct mrcd_snapshot t, *l = &o->last[0];
	const uint64_t dt = now_tsc - (o->last_tsc ? o->last_tsc : start_tsc);

	mrcd_snapshot_totals(d, &t);
	fprintf(o->ts, "{\"t\": %.3f, \"plane_gbps\": [",
		(double)(now_tsc - start_tsc) / (double)d->hz);
	for (unsigned int p = 0; p < d->cfg.daemon.planes; p++)
		fprintf(o->ts, "%s%.4f", p ? ", " : "",
			mrcd_gbps(t.tx_bytes[p] - l->tx_bytes[p], dt, d->hz));
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

		mrcd_snapshot_totals(d, &t);
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

	mrcd_snapshot_totals(d, &t);
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
