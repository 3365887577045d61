/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: the stats thread (mrcd_stats_thread.c), which also answers the
 * /mrc/ commands with the readers (mrcd_telemetry.c); the readers also by
 * the main lcore (the drain check, the banner, the summary).
 *
 * What the daemon tells people while it runs, from the snapshots the
 * workers publish (datapath/mrcd_snapshot.c) and never from live worker
 * state: the readers, the banner, the console line every second, the
 * JSON-lines time series (per-path counters included) and the Prometheus
 * text file (mrcd_metrics.c writes its text). The summary at exit is
 * mrcd_summary.c.
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
	t->verified_msgs += s->verified_msgs;
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

int
mrcd_output_open(struct mrcd_stats *st)
{
	struct mrcd_daemon *d = st->d;
	struct mrcd_output *o = &st->out;

	if (strcmp(d->cfg.telemetry.timeseries, "none") != 0) {
		o->ts = fopen(d->cfg.telemetry.timeseries, "w");
		if (o->ts == NULL)
			MRCD_LOG(stats, WARNING, "time series %s: %s (continuing without)",
				d->cfg.telemetry.timeseries, strerror(errno));
	}
	return 0;
}

/* The Prometheus file (mrcd_metrics.c's text), written aside and renamed: a scraper never
 * reads half a file. */
static void
write_prometheus(struct mrcd_stats *st)
{
	const char *path = st->d->cfg.telemetry.prometheus;
	char tmp[MRCD_CONFIG_PATH_MAX + 8];
	FILE *f;

	if (strcmp(path, "none") == 0)
		return;
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (f == NULL)
		return;
	mrcd_metrics_write(st, f);
	if (fclose(f) == 0)
		rename(tmp, path);
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

/* What one path did over the interval, from its sums now (c) and at the last line (l). */
enum ts_path_field { TS_SENT, TS_RETX, TS_LOST, TS_ECN, TS_TRIMS, TS_RTT, TS_FIELDS };
static const char *const ts_path_names[TS_FIELDS] = {
	"sent", "retx", "lost", "ecn", "trims", "rtt_us"};

static void
ts_path_value(FILE *f, enum ts_path_field k, const struct mrc_path_counters *c,
	const struct mrc_path_counters *l)
{
	uint64_t lost = 0, samples;

	switch (k) {
	case TS_SENT:
		fprintf(f, "%" PRIu64, c->tx_data_pkts - l->tx_data_pkts);
		return;
	case TS_RETX:
		fprintf(f, "%" PRIu64, c->tx_retx_pkts - l->tx_retx_pkts);
		return;
	case TS_LOST:
		for (unsigned int i = 0; i < MRC_REL_LOSS_MAX; i++)
			lost += c->lost[i] - l->lost[i];
		fprintf(f, "%" PRIu64, lost);
		return;
	case TS_ECN:
		fprintf(f, "%" PRIu64, c->ecn_echoes - l->ecn_echoes);
		return;
	case TS_TRIMS:
		fprintf(f, "%" PRIu64, c->trims - l->trims);
		return;
	case TS_RTT:
		samples = c->rtt_samples - l->rtt_samples;
		if (samples == 0)
			fputs("null", f);
		else
			fprintf(f, "%.1f",
				(double)(c->rtt_sum_ns - l->rtt_sum_ns) / (double)samples / 1e3);
		return;
	case TS_FIELDS:
		break;
	}
}

/*
 * "paths": each host's paths over the interval, one planes x (T1s + 1)
 * matrix per field (the last column: direct), keyed by the host's cluster
 * number; rtt_us is the interval's mean, null without a sample.
 */
static void
ts_paths(struct mrcd_stats *st, FILE *f)
{
	const struct mrcd_daemon *d = st->d;
	const unsigned int cols = st->n_t1 + 1;

	fprintf(f, ", \"paths\": {\"t1s\": %u, \"hosts\": {", st->n_t1);
	for (unsigned int h = 0; h < d->n_hosts; h++) {
		const struct mrc_path_counters *c = st->paths[h], *l = st->out.last_paths[h];

		fprintf(f, "%s\"%u\": {", h ? ", " : "", d->cfg.daemon.first_host + h);
		for (unsigned int k = 0; k < TS_FIELDS; k++) {
			fprintf(f, "%s\"%s\": [", k ? ", " : "", ts_path_names[k]);
			for (unsigned int p = 0; p < st->n_planes; p++) {
				fputs(p ? ", [" : "[", f);
				for (unsigned int t = 0; t < cols; t++) {
					if (t)
						fputs(", ", f);
					ts_path_value(f, k, &c[p * cols + t], &l[p * cols + t]);
				}
				fputc(']', f);
			}
			fputc(']', f);
		}
		fputc('}', f);
		memcpy(st->out.last_paths[h], c, st->n_paths * sizeof(*c));
	}
	fputs("}}", f);
}

static void
write_ts_line(struct mrcd_stats *st, uint64_t now_tsc)
{
	struct mrcd_daemon *d = st->d;
	struct mrcd_output *o = &st->out;
	const uint64_t start_tsc = st->start_tsc;
	struct mrcd_snapshot t, *l = &o->last[0];
	const uint64_t dt = now_tsc - (o->last_tsc ? o->last_tsc : start_tsc);

	mrcd_snapshot_totals(d, &t);
	mrcd_stats_paths_refresh(st, now_tsc);
	fprintf(o->ts, "{\"t\": %.3f, \"plane_gbps\": [",
		(double)(now_tsc - start_tsc) / (double)d->hz);
	for (unsigned int p = 0; p < d->cfg.daemon.planes; p++)
		fprintf(o->ts, "%s%.4f", p ? ", " : "",
			mrcd_gbps(t.tx_bytes[p] - l->tx_bytes[p], dt, d->hz));
	fprintf(o->ts,
		"], \"retx\": %" PRIu64 ", \"nacks\": %" PRIu64 ", \"ecn_echoes\": %" PRIu64
		", \"ev\": {\"good\": %" PRIu64 ", \"skip\": %" PRIu64 ", \"bad\": %" PRIu64
		", \"denied\": %" PRIu64 "}, \"msgs\": %" PRIu64 ", \"verified_bytes\": %" PRIu64,
		t.retx - l->retx, t.nacks - l->nacks, t.ecn_echoes - l->ecn_echoes, t.ev_good,
		t.ev_skip, t.ev_bad, t.ev_denied, t.completed, t.verified_bytes);
	ts_paths(st, o->ts);
	fputs("}\n", o->ts);
	*l = t;
	o->last_tsc = now_tsc;
	ts_rotate_if_full(d, o);
}

uint64_t
mrcd_output_tick(struct mrcd_stats *st, uint64_t now_tsc)
{
	struct mrcd_daemon *d = st->d;
	struct mrcd_output *o = &st->out;

	if (o->next_ts == 0) {
		/* The first sample covers a whole interval: a rate over microseconds means nothing.
		 */
		o->last_tsc = st->start_tsc;
		o->next_ts = st->start_tsc +
			     (uint64_t)d->cfg.telemetry.timeseries_interval_ms * d->hz / 1000;
	}
	if (o->ts != NULL && now_tsc >= o->next_ts) {
		write_ts_line(st, now_tsc);
		o->next_ts =
			now_tsc + (uint64_t)d->cfg.telemetry.timeseries_interval_ms * d->hz / 1000;
	}
	if (now_tsc >= o->next_prom) {
		mrcd_stats_paths_refresh(st, now_tsc);
		write_prometheus(st);
		o->next_prom =
			now_tsc + (uint64_t)d->cfg.telemetry.prometheus_interval_ms * d->hz / 1000;
	}
	return o->ts != NULL ? RTE_MIN(o->next_ts, o->next_prom) : o->next_prom;
}

void
mrcd_output_close(struct mrcd_stats *st, uint64_t now_tsc)
{
	struct mrcd_daemon *d = st->d;
	struct mrcd_output *o = &st->out;

	write_prometheus(st);
	if (o->ts == NULL)
		return;
	write_ts_line(st, now_tsc);
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
