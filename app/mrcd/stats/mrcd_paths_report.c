/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: the main lcore, for the --json summary, once the workers have
 * stopped (their last per-path snapshot is then final).
 *
 * The per-path counters (plane, T1) of each host of this process, its
 * shards summed, as the --json member "path_counters": one row per path
 * that carried anything, named by the cluster host number, so that
 * mrc-report can add the rows of every process of a cluster and rank the
 * paths ([telemetry.md](../../doc/telemetry.md), "Per-path counters").
 */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "mrc_path_stats.h"
#include "mrcd_daemon.h"
#include "mrcd_stats.h"

#define PATHS_MAX (MRC_SHARD_MAX_PLANES * (MRC_PATH_MAX_T1 + 1))

static const char *const loss_names[MRC_REL_LOSS_MAX] = {
	[MRC_REL_LOSS_EV_ORDER] = "ev_order",
	[MRC_REL_LOSS_TIME] = "time",
	[MRC_REL_LOSS_PKT_TIMEOUT] = "pkt_timeout",
	[MRC_REL_LOSS_RTO] = "rto",
	[MRC_REL_LOSS_NACK] = "nack",
	[MRC_REL_LOSS_REWIND] = "rewind",
};

/* Host h's paths, its shards summed into sum[]: how many (n_planes x (n_t1 + 1)). */
static unsigned int
host_paths(const struct mrcd_daemon *d, unsigned int h, struct mrc_path_counters *sum,
	struct mrc_path_counters *tmp, unsigned int *n_t1)
{
	unsigned int n = 0, n_planes = 0;

	memset(sum, 0, PATHS_MAX * sizeof(*sum));
	for (unsigned int k = 0; k < d->host[h].n_shards; k++) {
		n = mrc_shard_paths_snapshot(
			d->host[h].shard[k].rt, tmp, PATHS_MAX, &n_planes, n_t1);
		for (unsigned int i = 0; i < n && i < PATHS_MAX; i++) {
			struct mrc_path_counters *s = &sum[i];

			s->tx_data_pkts += tmp[i].tx_data_pkts;
			s->tx_data_bytes += tmp[i].tx_data_bytes;
			s->tx_retx_pkts += tmp[i].tx_retx_pkts;
			s->tx_probes += tmp[i].tx_probes;
			for (unsigned int r = 0; r < MRC_REL_LOSS_MAX; r++)
				s->lost[r] += tmp[i].lost[r];
			s->ecn_echoes += tmp[i].ecn_echoes;
			s->trims += tmp[i].trims;
			s->rtt_samples += tmp[i].rtt_samples;
		}
	}
	return n < PATHS_MAX ? n : PATHS_MAX;
}

void
mrcd_summary_paths(const struct mrcd_daemon *d, FILE *f)
{
	static struct mrc_path_counters sum[PATHS_MAX], tmp[PATHS_MAX]; /* main lcore only */
	bool first = true;

	fprintf(f, " \"first_host\": %u, \"cluster_hosts\": %u, \"path_counters\": [",
		d->cfg.daemon.first_host, mrcd_config_cluster_hosts(&d->cfg));
	for (unsigned int h = 0; h < d->n_hosts; h++) {
		unsigned int n_t1 = 0;
		const unsigned int n = host_paths(d, h, sum, tmp, &n_t1);

		for (unsigned int i = 0; i < n; i++) {
			const struct mrc_path_counters *c = &sum[i];
			const unsigned int plane = i / (n_t1 + 1), t1 = i % (n_t1 + 1);
			uint64_t lost = 0;

			for (unsigned int r = 0; r < MRC_REL_LOSS_MAX; r++)
				lost += c->lost[r];
			if (c->tx_data_pkts + c->tx_retx_pkts + c->tx_probes + lost == 0)
				continue;
			fprintf(f, "%s\n  {\"host\": %u, \"plane\": %u, ", first ? "" : ",",
				d->cfg.daemon.first_host + h, plane);
			if (t1 == n_t1)
				fprintf(f, "\"t1\": \"direct\", ");
			else
				fprintf(f, "\"t1\": %u, ", t1);
			fprintf(f,
				"\"tx_data_pkts\": %" PRIu64 ", \"tx_data_bytes\": %" PRIu64
				", \"tx_retx_pkts\": %" PRIu64 ", \"tx_probes\": %" PRIu64
				", \"lost\": %" PRIu64 ", \"lost_by\": {",
				c->tx_data_pkts, c->tx_data_bytes, c->tx_retx_pkts, c->tx_probes,
				lost);
			for (unsigned int r = 0; r < MRC_REL_LOSS_MAX; r++)
				fprintf(f, "%s\"%s\": %" PRIu64, r ? ", " : "", loss_names[r],
					c->lost[r]);
			fprintf(f,
				"}, \"ecn_echoes\": %" PRIu64 ", \"trims\": %" PRIu64
				", \"rtt_samples\": %" PRIu64 "}",
				c->ecn_echoes, c->trims, c->rtt_samples);
			first = false;
		}
	}
	fprintf(f, "],\n");
}
