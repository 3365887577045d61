/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

#include <stdio.h>
#include <string.h>

#include "bench_hosts.h"

static inline unsigned int
host_of(const uint8_t (*hosts)[2], unsigned int q, unsigned int side)
{
	return hosts != NULL ? hosts[q][side] : side;
}

int
bench_hosts_create(struct bench_hosts *b, struct mrc_fabric *f, const struct bench_hosts_cfg *cfg,
	uint64_t now)
{
	memset(b, 0, sizeof(*b));
	b->f = f;
	b->n_hosts = cfg->n_hosts;
	b->pairs = cfg->pairs;
	b->n_pairs = cfg->n_pairs;
	b->hosts = cfg->hosts;
	if (cfg->n_hosts == 0 || cfg->n_hosts > MRC_FABRIC_MAX_HOSTS || cfg->n_pairs == 0) {
		fprintf(stderr, "bench hosts: 1..%d hosts and a pair at least\n",
			MRC_FABRIC_MAX_HOSTS);
		return -1;
	}
	for (unsigned int h = 0; h < cfg->n_hosts; h++) {
		/* One shard owns all of the host's QPs: slot k is QPN qpn_base + k. */
		struct mrc_shard_cfg sc = {.host_id = (uint8_t)h,
			.n_planes = (uint8_t)cfg->n_planes,
			.qpn_base = cfg->qpn_base,
			.max_qps = 2 * cfg->n_pairs,
			.tsc_hz = MRC_TEST_HZ,
			.wire = cfg->pairs[0].wire,
			.socket = SOCKET_ID_ANY};
		const char *why = NULL;

		for (unsigned int pl = 0; pl < cfg->n_planes; pl++)
			sc.port_id[pl] = mrc_fabric_port(f, h, pl);
		if (cfg->nic_room_ns != 0) {
			sc.tx_backlog = mrc_fabric_tx_backlog_cb;
			sc.tx_backlog_ctx = f;
			sc.tx_backlog_host = h;
			sc.tx_room_bytes = (uint64_t)(cfg->nic_room_ns * cfg->link_gbps / 8);
		}
		b->shard[h] = mrc_shard_create(&sc, now, &why);
		if (b->shard[h] == NULL) {
			fprintf(stderr, "bench hosts: host %u: %s\n", h, why);
			return -1;
		}
		mrc_rand_seed(&b->rand[h], cfg->seed * 1000003u + h);
	}
	for (unsigned int q = 0; q < cfg->n_pairs; q++)
		for (unsigned int i = 0; i < 2; i++) {
			const unsigned int h = host_of(cfg->hosts, q, i);

			if (h >= cfg->n_hosts ||
				mrc_shard_add_qp(b->shard[h], cfg->pairs[q].h[i].qp, now) != 0) {
				fprintf(stderr,
					"bench hosts: pair %u side %u not placed on host %u\n", q,
					i, h);
				return -1;
			}
		}
	return 0;
}

void
bench_hosts_step(struct bench_hosts *b, uint64_t now)
{
	mrc_fabric_poll(b->f, now);
	for (unsigned int h = 0; h < b->n_hosts; h++)
		mrc_shard_iterate(b->shard[h], now, &b->rand[h]);
}

uint64_t
bench_hosts_errors(const struct bench_hosts *b)
{
	uint64_t n = 0;

	for (unsigned int h = 0; h < b->n_hosts; h++) {
		const struct mrc_wire_rx_stats *v = mrc_shard_rx_verdicts(b->shard[h]);

		for (int r = 0; r < MRC_WIRE_REJECT_MAX; r++)
			n += r != MRC_WIRE_OK ? v->pkts[r] : 0;
		n += mrc_shard_counters(b->shard[h])->rx_unknown_qpn;
	}
	return n;
}

void
bench_hosts_free(struct bench_hosts *b)
{
	for (unsigned int q = 0; q < b->n_pairs; q++)
		for (unsigned int i = 0; i < 2; i++) {
			const unsigned int h = host_of(b->hosts, q, i);

			if (h < b->n_hosts && b->shard[h] != NULL)
				(void)mrc_shard_del_qp(b->shard[h], b->pairs[q].h[i].qp);
		}
	for (unsigned int h = 0; h < b->n_hosts; h++) {
		mrc_shard_free(b->shard[h]);
		b->shard[h] = NULL;
	}
}
