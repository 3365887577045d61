/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

#include <rte_common.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "bench_pump.h"
#include "mrc_wire_pkt.h"

static inline unsigned int
host_of(const struct bench_pump *b, unsigned int q, unsigned int side)
{
	return b->hosts != NULL ? b->hosts[q][side] : side;
}

/* Planes of a host whose NIC port still has tx room: `queued` bytes at most `room`. */
static uint32_t
room_mask(const struct bench_pump *b, const uint64_t *queued, uint64_t room)
{
	uint32_t m = 0;

	for (unsigned int pl = 0; pl < b->n_planes; pl++)
		if (queued[pl] <= room)
			m |= UINT32_C(1) << pl;
	return m;
}

/* Hand packets to the host's ports; what a port refuses is freed (its ring is deep). */
static void
transmit(
	struct bench_pump *b, unsigned int host, struct rte_mbuf **pk, uint16_t n, uint64_t *queued)
{
	for (uint16_t k = 0; k < n; k++) {
		const uint16_t pl = pk[k]->port;
		const uint32_t len = pk[k]->pkt_len;

		if (rte_eth_tx_burst(mrc_fabric_port(b->f, host, pl), 0, &pk[k], 1) == 1)
			queued[pl] += len;
		else
			rte_pktmbuf_free(pk[k]);
	}
}

void
bench_pump_step(struct bench_pump *b, uint64_t now)
{
	/*
	 * Each host's NIC queues: the fabric's backlog, unchanged until its
	 * next poll at the end of the step, plus what the step hands over.
	 */
	static uint64_t queued[MRC_FABRIC_MAX_HOSTS][MRC_FABRIC_MAX_PLANES];
	const uint64_t room = (uint64_t)(b->nic_room_ns * b->link_gbps / 8);
	struct rte_mbuf *pk[64];

	for (unsigned int h = 0; h < b->n_hosts; h++)
		for (unsigned int pl = 0; pl < b->n_planes; pl++)
			queued[h][pl] = b->nic_room_ns ? mrc_fabric_tx_backlog(b->f, h, pl) : 0;

	/*
	 * With tx room the QPs share their ports: the NIC serves them round
	 * robin, so the first to ask in a step changes every step.
	 */
	b->first = b->first + 1 < b->n_pairs ? b->first + 1 : 0;
	for (unsigned int j = 0; j < b->n_pairs; j++)
		for (unsigned int i = 0; i < 2; i++) {
			const unsigned int q = j + b->first < b->n_pairs
						       ? j + b->first
						       : j + b->first - b->n_pairs;
			struct mrc_test_pair *p = &b->pairs[q];
			const unsigned int host = host_of(b, q, i);
			uint32_t planes = 0xff; /* every plane (up to 8) */
			uint16_t n;

			if (b->host_planes != NULL) {
				planes = b->host_planes[host];
				mrc_qp_set_peer_planes(
					p->h[i].qp, b->host_planes[host_of(b, q, 1 - i)]);
			}
			if (b->nic_room_ns == 0) {
				n = mrc_qp_tx_burst(
					p->h[i].qp, now, planes, &p->rand, pk, RTE_DIM(pk));
				transmit(b, host, pk, n, queued[host]);
			} else {
				/*
				 * Small bursts, the room asked again before each: a
				 * burst may overfill a port by what it puts there.
				 */
				uint32_t ok;

				while ((ok = planes & room_mask(b, queued[host], room)) != 0 &&
					(n = mrc_qp_tx_burst(
						 p->h[i].qp, now, ok, &p->rand, pk, 4)) > 0)
					transmit(b, host, pk, n, queued[host]);
			}
			mrc_qp_poll(p->h[i].qp, now);
		}
	mrc_fabric_poll(b->f, now);
	for (unsigned int h = 0; h < b->n_hosts; h++)
		for (unsigned int pl = 0; pl < b->n_planes; pl++) {
			const uint16_t n =
				rte_eth_rx_burst(mrc_fabric_port(b->f, h, pl), 0, pk, RTE_DIM(pk));

			for (uint16_t k = 0; k < n; k++) {
				struct mrc_pkt v;
				uint32_t x;

				if (mrc_pkt_parse(pk[k], &b->pairs[0].wire, &v) != MRC_WIRE_OK ||
					(x = v.bth.dqpn - b->qpn_base) >= 2 * b->n_pairs) {
					b->errors++;
					rte_pktmbuf_free(pk[k]);
					continue;
				}
				mrc_qp_rx(b->pairs[x / 2].h[x % 2].qp, pk[k], &v, now);
			}
		}
}
