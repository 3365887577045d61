/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: the stats thread, for the Prometheus file and the metrics
 * endpoint (mrcd_report.c, mrcd_stats_thread.c).
 *
 * The Prometheus text, format 0.0.4: per host (label host, its cluster
 * number) what its snapshots say, and per path (labels host, plane, t1;
 * t1 "direct" for packets that cross no T1) the stats thread's sums of the
 * shards' per-path counters. Counters end in _total, units are in the
 * names, and the RTT is a histogram in seconds built from the per-path log2
 * buckets. doc/telemetry.md lists every metric.
 */

#include <inttypes.h>
#include <stdio.h>

#include <rte_common.h>

#include "mrcd_daemon.h"
#include "mrcd_http.h"
#include "mrcd_stats.h"

static void
family(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* A per-host family: one sample per host, from its snapshot's field at offset `off`. */
static void
host_counter(FILE *f, const struct mrcd_daemon *d, const struct mrcd_snapshot *s, const char *name,
	const char *help, size_t off)
{
	family(f, name, "counter", help);
	for (unsigned int h = 0; h < d->n_hosts; h++)
		fprintf(f, "%s{host=\"%u\"} %" PRIu64 "\n", name, d->cfg.daemon.first_host + h,
			*(const uint64_t *)((const char *)&s[h] + off));
}

static void
hosts(FILE *f, const struct mrcd_daemon *d)
{
	static const struct {
		const char *name, *help;
		size_t off;
	} counters[] = {
		{"mrcd_messages_posted_total", "Messages posted by the traffic generator.",
			offsetof(struct mrcd_snapshot, posted)},
		{"mrcd_messages_completed_total", "Messages sent and fully acknowledged.",
			offsetof(struct mrcd_snapshot, completed)},
		{"mrcd_messages_failed_total", "Messages completed in error.",
			offsetof(struct mrcd_snapshot, failed)},
		{"mrcd_data_packets_total", "Data packets sent for the first time.",
			offsetof(struct mrcd_snapshot, data_pkts)},
		{"mrcd_retransmitted_packets_total", "Data packets resent.",
			offsetof(struct mrcd_snapshot, retx)},
		{"mrcd_spurious_retransmitted_packets_total",
			"Packets declared lost that were acknowledged later.",
			offsetof(struct mrcd_snapshot, spurious)},
		{"mrcd_nack_packets_total", "NACKs received.",
			offsetof(struct mrcd_snapshot, nacks)},
		{"mrcd_ecn_echo_packets_total", "SACKs echoing an ECN mark.",
			offsetof(struct mrcd_snapshot, ecn_echoes)},
		{"mrcd_verified_bytes_total", "Bytes checked at the receivers.",
			offsetof(struct mrcd_snapshot, verified_bytes)},
		{"mrcd_rx_rejected_packets_total", "Packets the parser refused.",
			offsetof(struct mrcd_snapshot, rejects)},
	};
	struct mrcd_snapshot s[MRCD_MAX_HOSTS];

	for (unsigned int h = 0; h < d->n_hosts; h++)
		mrcd_snapshot_read(d, h, &s[h]);
	for (size_t i = 0; i < RTE_DIM(counters); i++)
		host_counter(f, d, s, counters[i].name, counters[i].help, counters[i].off);
	family(f, "mrcd_plane_tx_bytes_total", "counter", "Bytes sent on each plane.");
	for (unsigned int h = 0; h < d->n_hosts; h++)
		for (unsigned int p = 0; p < d->cfg.daemon.planes; p++)
			fprintf(f,
				"mrcd_plane_tx_bytes_total{host=\"%u\",plane=\"%u\"} %" PRIu64 "\n",
				d->cfg.daemon.first_host + h, p, s[h].tx_bytes[p]);
	family(f, "mrcd_plane_rx_bytes_total", "counter", "Bytes received on each plane.");
	for (unsigned int h = 0; h < d->n_hosts; h++)
		for (unsigned int p = 0; p < d->cfg.daemon.planes; p++)
			fprintf(f,
				"mrcd_plane_rx_bytes_total{host=\"%u\",plane=\"%u\"} %" PRIu64 "\n",
				d->cfg.daemon.first_host + h, p, s[h].rx_bytes[p]);
	family(f, "mrcd_evs", "gauge",
		"EVs by state (active set; assumed_bad and denied include backups).");
	for (unsigned int h = 0; h < d->n_hosts; h++) {
		const unsigned int c = d->cfg.daemon.first_host + h;

		fprintf(f,
			"mrcd_evs{host=\"%u\",state=\"good\"} %" PRIu64 "\n"
			"mrcd_evs{host=\"%u\",state=\"skip\"} %" PRIu64 "\n"
			"mrcd_evs{host=\"%u\",state=\"assumed_bad\"} %" PRIu64 "\n"
			"mrcd_evs{host=\"%u\",state=\"denied\"} %" PRIu64 "\n",
			c, s[h].ev_good, c, s[h].ev_skip, c, s[h].ev_bad, c, s[h].ev_denied);
	}
}

/* Labels of path i of host h: host, plane, t1 (a number or "direct"). */
static int
path_labels(char *buf, size_t len, const struct mrcd_stats *st, unsigned int h, unsigned int i)
{
	const unsigned int cols = st->n_t1 + 1, plane = i / cols, t1 = i % cols;
	const unsigned int c = st->d->cfg.daemon.first_host + h;

	if (t1 == st->n_t1)
		return snprintf(buf, len, "host=\"%u\",plane=\"%u\",t1=\"direct\"", c, plane);
	return snprintf(buf, len, "host=\"%u\",plane=\"%u\",t1=\"%u\"", c, plane, t1);
}

/* A per-path counter family from the field at offset `off` of struct mrc_path_counters. */
static void
path_counter(FILE *f, const struct mrcd_stats *st, const char *name, const char *help, size_t off)
{
	char l[96];

	family(f, name, "counter", help);
	for (unsigned int h = 0; h < st->d->n_hosts; h++)
		for (unsigned int i = 0; i < st->n_paths; i++) {
			path_labels(l, sizeof(l), st, h, i);
			fprintf(f, "%s{%s} %" PRIu64 "\n", name, l,
				*(const uint64_t *)((const char *)&st->paths[h][i] + off));
		}
}

/* rel's loss rules (enum mrc_rel_loss), as the cause label names them. */
static const char *const loss_causes[] = {
	"ev_order", "time", "pkt_timeout", "rto", "nack", "rewind"};

static void
paths(FILE *f, const struct mrcd_stats *st)
{
	static const struct {
		const char *name, *help;
		size_t off;
	} counters[] = {
		{"mrcd_path_tx_data_packets_total",
			"Data packets sent for the first time on the path.",
			offsetof(struct mrc_path_counters, tx_data_pkts)},
		{"mrcd_path_tx_data_bytes_total", "Their payload bytes.",
			offsetof(struct mrc_path_counters, tx_data_bytes)},
		{"mrcd_path_retransmitted_packets_total", "Data packets resent on the path.",
			offsetof(struct mrc_path_counters, tx_retx_pkts)},
		{"mrcd_path_retransmitted_bytes_total", "Their payload bytes.",
			offsetof(struct mrc_path_counters, tx_retx_bytes)},
		{"mrcd_path_probe_packets_total",
			"Probes sent on the path (reliability probes and probes of retired EVs).",
			offsetof(struct mrc_path_counters, tx_probes)},
		{"mrcd_path_ecn_echo_packets_total",
			"SACKs echoing the path's EV with an ECN mark.",
			offsetof(struct mrc_path_counters, ecn_echoes)},
		{"mrcd_path_trimmed_packets_total", "NACKs of packets trimmed on the path.",
			offsetof(struct mrc_path_counters, trims)},
	};
	char l[96];

	RTE_BUILD_BUG_ON(RTE_DIM(loss_causes) != MRC_REL_LOSS_MAX);
	for (size_t i = 0; i < RTE_DIM(counters); i++)
		path_counter(f, st, counters[i].name, counters[i].help, counters[i].off);
	family(f, "mrcd_path_lost_packets_total", "counter",
		"Packets sent on the path declared lost, by the rule that declared it.");
	for (unsigned int h = 0; h < st->d->n_hosts; h++)
		for (unsigned int i = 0; i < st->n_paths; i++) {
			path_labels(l, sizeof(l), st, h, i);
			for (unsigned int c = 0; c < MRC_REL_LOSS_MAX; c++)
				fprintf(f,
					"mrcd_path_lost_packets_total{%s,cause=\"%s\"} %" PRIu64
					"\n",
					l, loss_causes[c], st->paths[h][i].lost[c]);
		}
	/* Bucket b of the per-path histogram holds samples below 2^b us (the last: the rest). */
	family(f, "mrcd_path_rtt_seconds", "histogram",
		"Round trips measured from SACKs echoing the path's EV.");
	for (unsigned int h = 0; h < st->d->n_hosts; h++)
		for (unsigned int i = 0; i < st->n_paths; i++) {
			const struct mrc_path_counters *c = &st->paths[h][i];
			uint64_t cum = 0;

			path_labels(l, sizeof(l), st, h, i);
			for (unsigned int b = 0; b + 1 < MRC_PATH_RTT_BUCKETS; b++) {
				cum += c->rtt_hist[b];
				fprintf(f,
					"mrcd_path_rtt_seconds_bucket{%s,le=\"%g\"} %" PRIu64 "\n",
					l, (double)(1u << b) * 1e-6, cum);
			}
			cum += c->rtt_hist[MRC_PATH_RTT_BUCKETS - 1]; /* every sample: the count */
			fprintf(f,
				"mrcd_path_rtt_seconds_bucket{%s,le=\"+Inf\"} %" PRIu64 "\n"
				"mrcd_path_rtt_seconds_sum{%s} %.9f\n"
				"mrcd_path_rtt_seconds_count{%s} %" PRIu64 "\n",
				l, cum, l, (double)c->rtt_sum_ns * 1e-9, l, cum);
		}
}

/*
 * The metrics endpoint's own counters, so a scraper that sees gaps can tell
 * refused connections (busy, idle) from requests it got wrong. The answer
 * being written is not in them yet: it is counted once sent.
 */
static void
http_server(FILE *f, const struct mrcd_http *http)
{
	const struct mrcd_http_counters *c = mrcd_http_counters(http);
	const char *req = "mrcd_metrics_http_requests_total";
	const char *conn = "mrcd_metrics_http_connections_total";

	family(f, req, "counter", "Requests the metrics endpoint answered, by status.");
	fprintf(f, "%s{status=\"200\"} %" PRIu64 "\n", req, c->ok);
	fprintf(f, "%s{status=\"400\"} %" PRIu64 "\n", req, c->bad_request);
	fprintf(f, "%s{status=\"404\"} %" PRIu64 "\n", req, c->not_found);
	fprintf(f, "%s{status=\"405\"} %" PRIu64 "\n", req, c->bad_method);
	family(f, conn, "counter",
		"Connections to the metrics endpoint: accepted, and those closed unanswered by "
		"why.");
	fprintf(f, "%s{outcome=\"accepted\"} %" PRIu64 "\n", conn, c->accepted);
	fprintf(f, "%s{outcome=\"busy\"} %" PRIu64 "\n", conn, c->busy);
	fprintf(f, "%s{outcome=\"timed_out\"} %" PRIu64 "\n", conn, c->timed_out);
	fprintf(f, "%s{outcome=\"send_failed\"} %" PRIu64 "\n", conn, c->send_failed);
}

void
mrcd_metrics_write(struct mrcd_stats *st, FILE *f)
{
	hosts(f, st->d);
	paths(f, st);
	if (st->http != NULL)
		http_server(f, st->http);
}
