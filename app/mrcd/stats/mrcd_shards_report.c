/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: the main lcore, for the summary, once the workers have stopped
 * (it reads the shards' live counters then).
 *
 * Several workers per host: who ran which shard, how each port steers
 * packets to their owner and why, what the shards passed on to each other,
 * and where a worker's cycles went (the engine's per-step cycle counters),
 * so the cost of software dispatch can be read off a run.
 */

#include <inttypes.h>
#include <stdio.h>

#include "mrc_qp.h"
#include "mrcd_control.h"
#include "mrc_nic_loop.h"
#include "mrcd_daemon.h"
#include "mrcd_stats.h"

const char *
mrcd_steer_name(uint8_t mode)
{
	return mode == MRCD_STEER_FLOW ? "flow" : "software";
}

/* The per-step cycle counters of one shard, as shares of its iterations' cycles. */
static void
print_cycles(FILE *f, const struct mrc_shard_counters *c, bool json)
{
	const double t = c->cyc_total ? (double)c->cyc_total : 1.0;

	if (json)
		fprintf(f,
			", \"cycles\": %" PRIu64 ", \"share\": {\"rx\": %.4f, \"dispatch\": %.4f, "
			"\"qp_input\": %.4f, \"timers\": %.4f, \"output\": %.4f, \"tx\": %.4f}"
			", \"iterations\": %" PRIu64 ", \"timer_fires\": %" PRIu64
			", \"timer_early\": %" PRIu64 ", \"own_addr_qps\": %" PRIu64,
			c->cyc_total, c->cyc_rx / t, c->cyc_dispatch / t, c->cyc_qp_input / t,
			c->cyc_timers / t, c->cyc_output / t, c->cyc_tx / t, c->iterations,
			c->timer_fires, c->timer_early, c->own_addr_qps);
	else
		fprintf(f,
			"; cycles: rx %.1f%%, dispatch %.1f%%, QP input %.1f%%, timers %.1f%%, "
			"output %.1f%%, tx %.1f%%",
			100 * c->cyc_rx / t, 100 * c->cyc_dispatch / t, 100 * c->cyc_qp_input / t,
			100 * c->cyc_timers / t, 100 * c->cyc_output / t, 100 * c->cyc_tx / t);
}

/*
 * The peers' mask generation the shard took last, when (CLOCK_MONOTONIC, as the
 * log lines stamp it) and what it sent on each plane before and after.
 */
static void
print_peer_gen(const struct mrcd_daemon *d, const struct mrcd_shardctx *sc, FILE *f, bool json)
{
	const uint64_t ns =
		sc->peer_gen == 0
			? 0
			: d->start_mono_ns + (uint64_t)((double)(sc->peer_gen_tsc - d->start_tsc) *
							1e9 / (double)d->hz);

	if (!json) {
		if (sc->peer_gen != 0)
			fprintf(f, "; took peer mask generation %u at monotonic %" PRIu64 " ns",
				sc->peer_gen, ns);
		return;
	}
	fprintf(f, ", \"peer_gen\": %u, \"peer_gen_mono_ns\": %" PRIu64 ", \"plane_tx_pkts\": [",
		sc->peer_gen, ns);
	for (unsigned int p = 0; p < d->cfg.daemon.planes; p++)
		fprintf(f, "%s%" PRIu64, p ? ", " : "",
			mrc_shard_plane_counters(sc->rt, p)->tx_pkts);
	fprintf(f, "], \"plane_tx_pkts_at_peer_gen\": [");
	for (unsigned int p = 0; p < d->cfg.daemon.planes; p++)
		fprintf(f, "%s%" PRIu64, p ? ", " : "", sc->peer_gen_plane_tx[p]);
	/* the last few generations taken, oldest first: what it sent between two changes */
	fprintf(f, "], \"peer_gens\": [");
	const uint32_t from =
		sc->peer_gen_n > MRCD_PEER_GEN_HIST ? sc->peer_gen_n - MRCD_PEER_GEN_HIST : 0;

	for (uint32_t n = from; n < sc->peer_gen_n; n++) {
		const struct mrcd_peer_gen_rec *r = &sc->peer_gen_hist[n % MRCD_PEER_GEN_HIST];

		fprintf(f, "%s{\"gen\": %u, \"mono_ns\": %" PRIu64 ", \"plane_tx_pkts_at\": [",
			n == from ? "" : ", ", r->gen,
			d->start_mono_ns +
				(uint64_t)((double)(r->tsc - d->start_tsc) * 1e9 / (double)d->hz));
		for (unsigned int p = 0; p < d->cfg.daemon.planes; p++)
			fprintf(f, "%s%" PRIu64, p ? ", " : "", r->plane_tx[p]);
		fprintf(f, "], \"plane_qp_tx_pkts_at\": [");
		for (unsigned int p = 0; p < d->cfg.daemon.planes; p++)
			fprintf(f, "%s%" PRIu64, p ? ", " : "", r->plane_qp_tx[p]);
		fprintf(f, "]}");
	}
	/* the QPs' own packets per plane now (the workers stopped): the end of the last interval */
	fprintf(f, "], \"plane_qp_tx_pkts\": [");
	for (unsigned int p = 0; p < d->cfg.daemon.planes; p++)
		fprintf(f, "%s%" PRIu64, p ? ", " : "", mrc_shard_plane_qp_tx(sc->rt, p));
	fprintf(f, "]");
}

void
mrcd_summary_shards(const struct mrcd_daemon *d, FILE *f, bool json)
{
	bool many = false, first = true;

	for (unsigned int h = 0; h < d->n_hosts; h++)
		many |= d->host[h].n_shards > 1;
	if (json) {
		fprintf(f, " \"tsc_hz\": %" PRIu64 ", \"worker_cpu_s_each\": [", d->hz);
		for (unsigned int w = 0; w < d->n_workers; w++)
			fprintf(f, "%s%.6f", w ? ", " : "", d->workers[w].cpu_ns / 1e9);
		fprintf(f, "],\n \"workers_per_host\": %u, \"ports\": [",
			d->n_hosts > 0 ? d->host[0].n_shards : 1);
		for (unsigned int h = 0; h < d->n_hosts; h++)
			for (unsigned int p = 0; p < d->cfg.daemon.planes; p++) {
				const struct mrcd_hostctx *hc = &d->host[h];

				fprintf(f,
					"%s{\"host\": %u, \"plane\": %u, \"port\": %u, "
					"\"rx_queues\": "
					"%u, \"steering\": \"%s\", \"why\": \"%s\", "
					"\"encap_offload\": \"%s\", "
					"\"encap_rule_accepted\": %s, \"encap_why\": \"%s\", "
					"\"encap_rules\": %u, \"encap_rule_fails\": %u, "
					"\"encap_remakes\": %u}",
					first ? "" : ", ", d->cfg.daemon.first_host + h, p,
					hc->port[p], hc->rx_queues[p],
					mrcd_steer_name(hc->steer[p]), hc->steer_why[p],
					mrcd_encap_port_mode(d, h, p),
					hc->encap_ok[p] ? "true" : "false", hc->encap_why[p],
					hc->encap_rules[p], hc->encap_fails[p],
					hc->encap_remakes[p]);
				first = false;
			}
		fprintf(f, "],\n \"encap_pkts\": [");
		for (unsigned int h = 0; h < d->n_hosts; h++) {
			struct mrc_qp_encap_counters ec;
			uint64_t no_table, epreq;

			mrcd_encap_counts(d, h, &ec);
			mrcd_encap_fallback(d, h, &no_table, &epreq);
			fprintf(f,
				"%s{\"host\": %u, \"nic\": %" PRIu64 ", \"sw_no_port\": %" PRIu64
				", \"sw_no_rule\": %" PRIu64 ", \"sw_no_table\": %" PRIu64
				", \"sw_epreq\": %" PRIu64 "}",
				h ? ", " : "", d->cfg.daemon.first_host + h, ec.nic, ec.sw_no_port,
				ec.sw_no_rule, no_table, epreq);
		}
		if (d->fab != NULL) {
			const struct mrc_nic_emu_counters *nc = mrc_fabric_nic_counters(d->fab);

			/* what the emulated NIC did with the keys (its host ports' tx) */
			fprintf(f,
				"],\n \"fabric_nic\": {\"encap_pkts\": %" PRIu64
				", \"encap_nomatch_pkts\": %" PRIu64
				", \"encap_noroom_pkts\": %" PRIu64 "}",
				nc->encap_pkts, nc->encap_nomatch_pkts, nc->encap_noroom_pkts);
		} else if (d->nic_loop[0][0] != NULL) {
			struct mrc_nic_emu_counters sum = {0};

			/* the loop pairs' emulated NICs (several workers a host), both ways */
			for (unsigned int k = 0; k < MRCD_MAX_HOSTS / 2; k++)
				for (unsigned int p = 0; p < MRC_SHARD_MAX_PLANES; p++)
					for (unsigned int side = 0;
						d->nic_loop[k][p] != NULL && side < 2; side++) {
						struct mrc_nic_emu_counters c;

						mrc_nic_loop_counters(d->nic_loop[k][p], side, &c);
						sum.encap_pkts += c.encap_pkts;
						sum.encap_nomatch_pkts += c.encap_nomatch_pkts;
						sum.encap_noroom_pkts += c.encap_noroom_pkts;
					}
			fprintf(f,
				"],\n \"loop_nic\": {\"encap_pkts\": %" PRIu64
				", \"encap_nomatch_pkts\": %" PRIu64
				", \"encap_noroom_pkts\": %" PRIu64 "}",
				sum.encap_pkts, sum.encap_nomatch_pkts, sum.encap_noroom_pkts);
		} else {
			fprintf(f, "]");
		}
		fprintf(f, ",\n \"shards\": [");
	} else if (!many) {
		return;
	}
	first = true;
	for (unsigned int h = 0; h < d->n_hosts; h++)
		for (unsigned int k = 0; k < d->host[h].n_shards; k++) {
			const struct mrcd_shardctx *sc = &d->host[h].shard[k];
			const struct mrc_shard_counters *c = mrc_shard_counters(sc->rt);
			const unsigned int ch = d->cfg.daemon.first_host + h;

			if (json)
				fprintf(f,
					"%s{\"host\": %u, \"shard\": %u, \"worker\": %u, "
					"\"lcore\": "
					"%u, \"qps\": %u, \"rx_pkts\": %" PRIu64
					", \"rx_dispatched_out\": %" PRIu64
					", \"rx_dispatched_in\": %" PRIu64
					", \"rx_dispatch_full\": %" PRIu64
					", \"rx_misdispatched\": %" PRIu64
					", \"rx_unknown_qpn\": %" PRIu64,
					first ? "" : ", ", ch, k, sc->worker,
					d->workers[sc->worker].lcore, mrc_shard_n_qps(sc->rt),
					c->rx_pkts, c->rx_dispatched_out, c->rx_dispatched_in,
					c->rx_dispatch_full, c->rx_misdispatched,
					c->rx_unknown_qpn);
			else
				fprintf(f,
					"  host %u shard %u on worker %u (lcore %u): %u QPs, "
					"%" PRIu64 " packets read, %" PRIu64 " passed on, %" PRIu64
					" taken from others, %" PRIu64 " dropped (inbound full)",
					ch, k, sc->worker, d->workers[sc->worker].lcore,
					mrc_shard_n_qps(sc->rt), c->rx_pkts, c->rx_dispatched_out,
					c->rx_dispatched_in, c->rx_dispatch_full);
			if (json)
				fprintf(f,
					", \"cyc_dispatch\": %" PRIu64 ", \"rx_handoff\": %" PRIu64,
					c->cyc_dispatch, c->rx_handoff);
			print_cycles(f, c, json);
			print_peer_gen(d, sc, f, json);
			fprintf(f, json ? "}" : "\n");
			first = false;
		}
	if (json)
		fprintf(f, "],\n");
}
