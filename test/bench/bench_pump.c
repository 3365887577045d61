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

void
bench_pump_step(struct bench_pump *b, uint64_t now)
{
	struct rte_mbuf *pk[64];

	for (unsigned int q = 0; q < b->n_pairs; q++)
		for (unsigned int i = 0; i < 2; i++) {
			struct mrc_test_pair *p = &b->pairs[q];
			const unsigned int host = host_of(b, q, i);
			uint32_t planes = 0xff; /* every plane (up to 8) */
			uint16_t n, sent = 0;

			if (b->host_planes != NULL) {
				planes = b->host_planes[host];
				mrc_qp_set_peer_planes(p->h[i].qp,
					b->host_planes[host_of(b, q, 1 - i)]);
			}
			n = mrc_qp_tx_burst(p->h[i].qp, now, planes, &p->rand, pk, RTE_DIM(pk));
			for (uint16_t k = 0; k < n; k++)
				sent += rte_eth_tx_burst(mrc_fabric_port(b->f, host, pk[k]->port), 0,
					&pk[k], 1);
			for (uint16_t k = sent; k < n; k++)
				rte_pktmbuf_free(pk[k]); /* never seen: the rings are deep */
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
