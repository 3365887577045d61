/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * What mrc-fabric prints: a console line a second while it runs, and at the
 * end a summary (per host what crossed the bridge, the fabric's counters,
 * the fault timeline, every link that dropped or trimmed), as text and
 * optionally as JSON. Read from the bridge's published snapshot while it
 * runs, and from the stopped fabric at the end.
 */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "fabricd.h"

void
fabricd_console_line(const struct fabricd *fd, uint64_t now)
{
	static struct fabricd_attach_stats as[FABRICD_MAX_ATTACH];
	static uint64_t last_bytes, last_tsc;
	struct mrc_fabric_counters fc;
	uint64_t drops = 0, bridge = 0;

	fabricd_snapshot_read(fd, &fc, as);
	for (unsigned int i = 0; i < mrc_fabric_counters_count; i++)
		if (strncmp(mrc_fabric_counters_desc[i].name, "drop", 4) == 0)
			drops += mrc_fabric_counters_get(&fc, i);
	for (unsigned int i = 0; i < fd->n_attach; i++)
		bridge += as[i].to_fabric_full + as[i].to_host_dropped;
	const double dt = last_tsc ? (double)(now - last_tsc) / fd->hz : 0;
	printf("mrc-fabric: %5.1f s  delivered %8.3f Gb/s  %10" PRIu64 " pkts  trims %" PRIu64
	       "  fabric drops %" PRIu64 " (down %" PRIu64 ", black hole %" PRIu64 ", loss %" PRIu64
	       ", queue %" PRIu64 ")  bridge drops %" PRIu64 "\n",
		(double)(now - fd->start_tsc) / fd->hz,
		dt > 0 ? (double)(fc.delivered_bytes - last_bytes) * 8 / dt / 1e9 : 0.0,
		fc.delivered_pkts, fc.trims, drops, fc.drop_down, fc.drop_blackhole, fc.drop_loss,
		fc.drop_queue, bridge);
	last_bytes = fc.delivered_bytes;
	last_tsc = now;
}

static void
links_with_news(const struct fabricd *fd, FILE *j)
{
	const unsigned int n = mrc_fabric_n_links(fd->fab);
	bool first = true;

	for (unsigned int i = 0; i < n; i++) {
		struct mrc_fabric_link_id id;
		struct mrc_fabric_link_counters c;
		enum mrc_fabric_state st;
		double loss;

		if (mrc_fabric_link_info(fd->fab, i, &id, &st, &loss, &c) != 0)
			continue;
		const uint64_t drops = c.drop_down + c.drop_blackhole + c.drop_queue + c.drop_loss +
				       c.drop_host_rx_full;

		if (drops == 0 && c.trims == 0 && st == MRC_FABRIC_UP)
			continue;
		if (j == NULL) {
			printf("  plane %u %-9s %3u -> %-3u %-9s tx %10" PRIu64 "  trims %8" PRIu64
			       "  drops: down %" PRIu64 ", black hole %" PRIu64 ", queue %" PRIu64
			       ", loss %" PRIu64 ", host rx full %" PRIu64 "\n",
				id.plane, mrc_fabric_link_kind_name(id.kind), id.a, id.b,
				st == MRC_FABRIC_UP	? "up"
				: st == MRC_FABRIC_DOWN ? "DOWN"
							: "BLACKHOLE",
				c.tx_pkts, c.trims, c.drop_down, c.drop_blackhole, c.drop_queue,
				c.drop_loss, c.drop_host_rx_full);
			continue;
		}
		fprintf(j,
			"%s\n    {\"plane\": %u, \"kind\": \"%s\", \"a\": %u, \"b\": %u, "
			"\"state\": %d, \"tx_pkts\": %" PRIu64 ", \"trims\": %" PRIu64
			", \"drop_down\": %" PRIu64 ", \"drop_blackhole\": %" PRIu64
			", \"drop_queue\": %" PRIu64 ", \"drop_loss\": %" PRIu64 "}",
			first ? "" : ",", id.plane, mrc_fabric_link_kind_name(id.kind), id.a, id.b,
			(int)st, c.tx_pkts, c.trims, c.drop_down, c.drop_blackhole, c.drop_queue,
			c.drop_loss);
		first = false;
	}
}

static int
write_json(const struct fabricd *fd, const struct mrc_fabric_counters *fc,
	const struct fabricd_attach_stats *as, const struct mrc_fabric_event *ev, unsigned int n_ev)
{
	FILE *j = fopen(fd->cli.json, "w");
	char what[160];

	if (j == NULL) {
		perror(fd->cli.json);
		return -1;
	}
	fprintf(j, "{\n  \"hosts\": %u, \"planes\": %u, \"run_s\": %.3f,\n  \"attachments\": [",
		fd->n_hosts, fd->n_planes, (double)(fd->end_tsc - fd->start_tsc) / fd->hz);
	for (unsigned int i = 0; i < fd->n_attach; i++)
		fprintf(j,
			"%s\n    {\"host\": %u, \"plane\": %u, \"from_host_pkts\": %" PRIu64
			", \"to_fabric_full\": %" PRIu64 ", \"to_host_pkts\": %" PRIu64
			", \"to_host_dropped\": %" PRIu64
			", \"connects\": %u, \"disconnects\": %u}",
			i ? "," : "", i / fd->n_planes, i % fd->n_planes, as[i].from_host_pkts,
			as[i].to_fabric_full, as[i].to_host_pkts, as[i].to_host_dropped,
			fd->link[i].connects, fd->link[i].disconnects);
	fprintf(j, "\n  ],\n  \"fabric\": {");
	for (unsigned int i = 0; i < mrc_fabric_counters_count; i++)
		fprintf(j, "%s\"%s\": %" PRIu64, i ? ", " : "", mrc_fabric_counters_desc[i].name,
			mrc_fabric_counters_get(fc, i));
	fprintf(j, "},\n  \"events\": [");
	for (unsigned int i = 0; i < n_ev; i++) {
		mrc_fabric_event_format(what, sizeof(what), &ev[i]);
		fprintf(j, "%s\n    {\"t_s\": %.6f, \"what\": \"%s\", \"source\": \"%s\"}",
			i ? "," : "", ev[i].t_ns / 1e9, what, ev[i].source);
	}
	fprintf(j, "\n  ],\n  \"links\": [");
	links_with_news(fd, j);
	fprintf(j, "\n  ]\n}\n");
	return fclose(j) == 0 ? 0 : -1;
}

int
fabricd_summary(const struct fabricd *fd)
{
	static struct fabricd_attach_stats as[FABRICD_MAX_ATTACH];
	struct mrc_fabric_counters fc;
	const struct mrc_fabric_event *ev = NULL;
	const unsigned int n_ev = mrc_fabric_event_log(fd->fab, &ev);
	char what[160];

	fabricd_snapshot_read(fd, &fc, as);
	printf("\nmrc-fabric: summary, %.3f s with every host connected\n",
		(double)(fd->end_tsc - fd->start_tsc) / fd->hz);
	for (unsigned int h = 0; h < fd->n_hosts; h++) {
		struct fabricd_attach_stats t = {0};

		for (unsigned int p = 0; p < fd->n_planes; p++) {
			const struct fabricd_attach_stats *s = &as[h * fd->n_planes + p];

			t.from_host_pkts += s->from_host_pkts;
			t.to_fabric_full += s->to_fabric_full;
			t.to_host_pkts += s->to_host_pkts;
			t.to_host_dropped += s->to_host_dropped;
		}
		printf("  host %u: from it %" PRIu64 " pkts (%" PRIu64 " dropped, fabric port "
		       "full), to it %" PRIu64 " pkts (%" PRIu64 " dropped, memif full or host "
		       "gone)\n",
			h, t.from_host_pkts, t.to_fabric_full, t.to_host_pkts, t.to_host_dropped);
		/* per plane: a host that restarted, or one plane that never connected, shows */
		for (unsigned int p = 0; p < fd->n_planes; p++) {
			const unsigned int i = h * fd->n_planes + p;

			printf("    plane %u: memif connects %u, disconnects %u; from it %" PRIu64
			       ", to it %" PRIu64 " (%" PRIu64 " dropped)\n",
				p, fd->link[i].connects, fd->link[i].disconnects,
				as[i].from_host_pkts, as[i].to_host_pkts, as[i].to_host_dropped);
		}
	}
	printf("  fabric:");
	for (unsigned int i = 0; i < mrc_fabric_counters_count; i++) {
		const uint64_t v = mrc_fabric_counters_get(&fc, i);

		if (v != 0)
			printf(" %s %" PRIu64, mrc_fabric_counters_desc[i].name, v);
	}
	printf("\n  faults applied: %u\n", n_ev);
	for (unsigned int i = 0; i < n_ev; i++) {
		mrc_fabric_event_format(what, sizeof(what), &ev[i]);
		printf("    %9.6f s  %s  (%s)\n", ev[i].t_ns / 1e9, what, ev[i].source);
	}
	printf("  links that dropped, trimmed or are not up:\n");
	links_with_news(fd, NULL);
	if (fd->cli.idle_sleep_us)
		printf("  idle sleeps: %" PRIu64 "\n", fd->idle_sleeps);
	if (fd->cli.json[0] != '\0' && write_json(fd, &fc, as, ev, n_ev) != 0)
		return -1;
	return 0;
}
