/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: the main lcore, once, after the workers have stopped (so it may
 * read the hosts' histograms, gap trackers and QPs directly).
 *
 * The summary at exit, on stdout and as --json: rates per plane, message
 * counts, completion times, verification, transport and EV figures, the
 * workers' CPU, scale and drops.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>

#include "mrcd_control.h"
#include "mrcd_daemon.h"
#include "mrcd_log.h"
#include "mrcd_recover.h"
#include "mrcd_stats.h"

/* The receivers' longest waits between messages (mrcd_gaps.h), longest first. */
static void
print_gaps(FILE *f, const struct mrcd_daemon *d, bool json)
{
	bool any = false;

	if (json)
		fprintf(f, " \"start_monotonic_s\": %.9f, \"recv_gaps\": [",
			(double)d->start_mono_ns / 1e9);
	/* Per shard: each receives the messages of the QPs it owns. */
	for (unsigned int h = 0; h < d->n_hosts; h++)
		for (unsigned int k = 0; k < d->host[h].n_shards; k++) {
			const struct mrcd_gaps *g = &d->host[h].shard[k].gaps;
			char who[48];

			if (d->host[h].n_shards > 1)
				snprintf(who, sizeof(who), "host %u shard %u",
					d->cfg.daemon.first_host + h, k);
			else
				snprintf(who, sizeof(who), "host %u", d->cfg.daemon.first_host + h);
			for (unsigned int i = 0; i < g->n && (json || i == 0); i++) {
				const double ms = (double)g->len_tsc[i] * 1e3 / (double)d->hz;
				const double end_s =
					(double)(g->end_tsc[i] - d->start_tsc) / (double)d->hz;

				if (json)
					fprintf(f,
						"%s{\"host\": %u, \"shard\": %u, \"ms\": %.4f, "
						"\"end_s\": %.6f}",
						any ? ", " : "", d->cfg.daemon.first_host + h, k,
						ms, end_s);
				else
					printf("  %s received: longest wait between messages %.3f "
					       "ms, ending at %.3f s\n",
						who, ms, end_s);
				any = true;
			}
		}
	if (json)
		fprintf(f, "],\n");
}

/*
 * Frames that were not MRC, taken by the exception path and given to no tap,
 * all hosts and planes (those its ring could not take are the parser's).
 */
static uint64_t
not_mrc_dropped(const struct mrcd_daemon *d)
{
	uint64_t n = 0;

	for (unsigned int h = 0; h < d->n_hosts; h++)
		for (unsigned int p = 0; p < MRC_SHARD_MAX_PLANES; p++)
			n += d->host[h].nd[p].cnt[MRCD_ND_not_mrc_dropped];
	return n;
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
	uint64_t lost, qps_in_error = 0, recovered = 0, not_recovered = 0;
	uint64_t why[MRCD_RECOVER_N_WHY] = {0};

	mrcd_snapshot_totals(d, &t);
	/* What the worker cores did, for per-core rates (bench-rate.sh). */
	uint64_t cpu_ns = 0, rx_pkts = 0, rx_bytes = 0;

	for (unsigned int i = 0; i < d->n_workers; i++)
		cpu_ns += d->workers[i].cpu_ns;
	for (unsigned int i = 0; i < d->n_flows; i++)
		if (d->peer_qp[i] != NULL && !d->flows[i].gone) { /* a flow gone: carried */
			rx_pkts += mrc_qp_counters(d->peer_qp[i])->rx_data_pkts;
			rx_bytes += mrc_qp_counters(d->peer_qp[i])->rx_data_bytes;
		}
	for (unsigned int h = 0; h < d->n_hosts && d->recover != NULL; h++) {
		/* what the receiving QPs of recovered flows placed before they were replaced */
		for (unsigned int k = 0; k < MRC_SHARD_MAX_SHARDS; k++) {
			rx_pkts += d->recover->carry[h][k].rx_data_pkts;
			rx_bytes += d->recover->carry[h][k].rx_data_bytes;
		}
		recovered += mrcd_recover_count(d, h);
		not_recovered += mrcd_recover_failed(d, h);
		for (unsigned int w = 0; w < MRCD_RECOVER_N_WHY; w++)
			why[w] += d->recover->not_recovered[h][w];
	}
	const double wall_ns = (double)(run + d->drain_tsc) * 1e9 / (double)d->hz;
	const double cpu_share = (double)cpu_ns / (wall_ns * RTE_MAX(d->n_workers, 1u));

	memset(&hist, 0, sizeof(hist));
	for (unsigned int h = 0; h < d->n_hosts; h++)
		for (unsigned int k = 0; k < d->host[h].n_shards; k++)
			mrcd_hist_merge(&hist, &d->host[h].shard[k].hist);
	lost = t.posted - t.completed - t.failed;
	for (unsigned int h = 0; h < d->n_hosts; h++)
		qps_in_error += __atomic_load_n(&d->host[h].qps_in_error, __ATOMIC_RELAXED);

	printf("\nmrcd summary: %.2f s of traffic, %.3f s of drain\n", (double)run / (double)d->hz,
		(double)d->drain_tsc / (double)d->hz);
	printf("  per plane (Gb/s, all hosts):");
	for (unsigned int p = 0; p < d->cfg.daemon.planes; p++)
		printf(" p%u %.3f", p, mrcd_gbps(t.tx_bytes[p], run, d->hz));
	printf("\n  messages: %" PRIu64 " posted, %" PRIu64 " completed, %" PRIu64
	       " failed, %" PRIu64 " lost; goodput %.3f Gb/s\n",
		t.posted, t.completed, t.failed, lost, mrcd_gbps(t.sent_bytes, run, d->hz));
	if (qps_in_error > 0) {
		printf("  QPs in error: %" PRIu64
		       " (their messages in flight failed; the log names each); flows recovered "
		       "on a new QP pair: %" PRIu64 ", not recovered: %" PRIu64,
			qps_in_error, recovered, not_recovered);
		for (unsigned int w = 0; w < MRCD_RECOVER_N_WHY; w++)
			if (why[w] > 0)
				printf(" (%s %" PRIu64 ")",
					mrcd_recover_why_name((enum mrcd_recover_why)w), why[w]);
		printf("\n");
	}
	if (d->svc.reloads > 0)
		printf("  reloads (SIGHUP): %" PRIu64 " taken, %" PRIu64 " refused\n",
			d->svc.reloads_ok, d->svc.reloads_refused);
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
		n_qps += d->host[h].n_send + d->host[h].n_recv;
		for (unsigned int k = 0; k < d->host[h].n_shards; k++) {
			const struct mrc_trk_pool *tp = mrc_shard_trk_pool(d->host[h].shard[k].rt);

			if (tp != NULL) {
				trk_waits += tp->stats.waits;
				trk_max = RTE_MAX(trk_max, tp->stats.max_in_use);
			}
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
			for (unsigned int k = 0; k < d->host[h].n_shards; k++)
				v += mrc_shard_rx_verdicts(d->host[h].shard[k].rt)->pkts[r];
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
	if (not_mrc_dropped(d) != 0)
		printf(", not MRC %" PRIu64 " (no tap: /mrc/nd by kind)", not_mrc_dropped(d));
	printf("\n");
	mrcd_summary_shards(d, stdout, false);

	if (d->cli.json[0] != '\0') {
		FILE *j = fopen(d->cli.json, "w");

		if (j == NULL) {
			MRCD_LOG(stats, ERR, "--json %s: %s", d->cli.json, strerror(errno));
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
					mrcd_gbps(t.tx_bytes[p], run, d->hz));
			fprintf(j,
				"],\n \"messages\": {\"posted\": %" PRIu64
				", \"completed\": %" PRIu64 ", \"failed\": %" PRIu64
				", \"lost\": %" PRIu64 "},\n \"qps_in_error\": %" PRIu64 ",\n",
				t.posted, t.completed, t.failed, lost, qps_in_error);
			mrcd_ep_json(d, j);
			fprintf(j, " \"flows_recovered\": %" PRIu64 ", \"recover_failed\": {",
				recovered);
			for (unsigned int w = 0; w < MRCD_RECOVER_N_WHY; w++)
				fprintf(j, "%s\"%s\": %" PRIu64, w ? ", " : "",
					mrcd_recover_why_name((enum mrcd_recover_why)w), why[w]);
			fprintf(j, "},\n");
			fprintf(j,
				" \"reloads\": {\"ok\": %" PRIu64 ", \"refused\": %" PRIu64 "},\n",
				d->svc.reloads_ok, d->svc.reloads_refused);
			fprintf(j,
				" \"goodput_gbps\": %.4f,\n \"completion_us\": {\"p50\": %.2f, "
				"\"p99\": %.2f, \"p99_9\": %.2f, \"max\": %.2f},\n",
				mrcd_gbps(t.sent_bytes, run, d->hz), mrcd_hist_pct(&hist, 50) / 1e3,
				mrcd_hist_pct(&hist, 99) / 1e3, mrcd_hist_pct(&hist, 99.9) / 1e3,
				hist.max_ns / 1e3);
			fprintf(j,
				" \"bytes_verified\": %" PRIu64 ", \"verify_errors\": %" PRIu64
				",\n",
				t.verified_bytes, t.verify_errors);
			print_gaps(j, d, true);
			mrcd_summary_shards(d, j, true);
			mrcd_summary_paths(d, j);
			fprintf(j,
				" \"workers\": %u, \"worker_cpu_s\": %.6f, \"worker_cpu_share\": "
				"%.4f, \"process_cpu_s\": %.6f, "
				"\"data_pkts_placed\": %" PRIu64 ", \"data_bytes_placed\": %" PRIu64
				",\n",
				d->n_workers, cpu_ns / 1e9, cpu_share, d->run_cpu_ns / 1e9, rx_pkts,
				rx_bytes);
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
			fprintf(j, " \"drops\": {\"parser\": %" PRIu64 ", \"not_mrc\": %" PRIu64,
				t.rejects, not_mrc_dropped(d));
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
