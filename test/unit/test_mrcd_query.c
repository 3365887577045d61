/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * The worker's answer to a /mrc/qp query (app/mrcd/datapath/mrcd_query.c):
 * the ages it reports (since_progress, since_ack) are read on the clock the
 * QP's timestamps are on, its shard's run clock, so an lcore's earlier
 * stalls do not show up as a QP standing still.
 */

#include <stdlib.h>

#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_ring.h>

#include "mrc_rel_tx.h"
#include "mrc_shard.h"
#include "mrc_test.h"
#include "mrc_test_qp.h"
#include "mrcd_daemon.h"
#include "mrcd_datapath.h"

#define US 1000ull

/*
 * A shard alone on a looped net_ring port owns host 0's QP. The lcore is
 * away for a second (a stall: the run clock leaves it out), then the QP
 * starts sending, and 7 us later the query is served: the QP last made
 * progress 7 us ago, not a second and 7 us.
 */
static int
test_ages_are_on_the_run_clock(void)
{
	static struct mrc_test_pair p;
	struct mrc_test_pair_cfg pc;
	struct mrcd_daemon *d = calloc(1, sizeof(*d));
	struct mrcd_worker w = {.n_hosts = 1, .hosts = {0}};
	struct rte_ring *wire;
	struct rte_mbuf *m = NULL;
	const struct rte_eth_conf conf = {0};
	const char *why = NULL;
	struct mrc_shard *s;
	uint64_t sent_at;
	int port;
	int rc = mrc_test_eal_init("test_mrcd_query");

	if (rc != 0)
		return rc;
	MRC_T_ASSERT(d != NULL, "daemon");
	mrc_test_pair_cfg_defaults(&pc);
	pc.n_planes = 1;
	MRC_T_EQ(mrc_test_pair_create(&p, &pc), 0);
	wire = rte_ring_create("mqw", 256, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	MRC_T_ASSERT(wire != NULL, "ring");
	port = rte_eth_from_ring(wire);
	MRC_T_ASSERT(port >= 0, "net_ring port");
	MRC_T_EQ(rte_eth_dev_configure((uint16_t)port, 1, 1, &conf), 0);
	MRC_T_EQ(rte_eth_rx_queue_setup((uint16_t)port, 0, 64, SOCKET_ID_ANY, NULL, p.pool), 0);
	MRC_T_EQ(rte_eth_tx_queue_setup((uint16_t)port, 0, 64, SOCKET_ID_ANY, NULL), 0);
	MRC_T_EQ(rte_eth_dev_start((uint16_t)port), 0);

	struct mrc_shard_cfg c = {.n_planes = 1,
		.port_id = {(uint16_t)port},
		.qpn_base = 0x100,
		.max_qps = 4,
		.tsc_hz = MRC_TEST_HZ,
		.wire = p.wire,
		.socket = SOCKET_ID_ANY};

	s = mrc_shard_create(&c, p.now, &why);
	MRC_T_ASSERT(s != NULL, "shard: %s", why);
	MRC_T_EQ(mrc_shard_add_qp(s, p.h[0].qp, p.now), 0);
	for (int k = 0; k < 100; k++) {
		p.now += US;
		mrc_shard_iterate(s, p.now, &p.rand);
	}
	p.now += 1000000 * US; /* the stall */
	mrc_shard_iterate(s, p.now, &p.rand);
	MRC_T_EQ(mrc_shard_counters(s)->stalls, 1);
	mrc_test_fill(&p.h[0], 0, 4096, 3);
	MRC_T_EQ(mrc_qp_post_write(p.h[0].qp, 1, p.h[0].mem, 4096, p.h[0].key,
			 (uint64_t)(uintptr_t)p.h[1].mem, p.h[1].key, false, 0),
		0);
	p.now += US;
	sent_at = p.now;
	mrc_shard_iterate(s, p.now, &p.rand);
	MRC_T_ASSERT(mrc_rel_tx_inflight(mrc_qp_rel_tx(p.h[0].qp)) > 0, "it sent");
	p.now += 7 * US;

	d->host[0].rt = s;
	d->query.host = 0;
	d->query.qp = p.h[0].qp;
	d->query.req = 1;
	mrcd_query_serve(d, &w, p.now);
	MRC_T_EQ(d->query.done, 1);
	MRC_T_ASSERT(d->query.has_rel, "the sender's state is in the answer");
	MRC_T_U64_EQ(d->query.rel.since_progress_tsc, p.now - sent_at);

	MRC_T_EQ(mrc_shard_del_qp(s, p.h[0].qp), 0);
	mrc_shard_free(s);
	while (rte_ring_dequeue(wire, (void **)&m) == 0)
		rte_pktmbuf_free(m);
	mrc_test_pair_destroy(&p);
	free(d);
	return MRC_TEST_OK;
}

static const struct mrc_test_case cases[] = {
	MRC_TEST_CASE(test_ages_are_on_the_run_clock),
};

MRC_TEST_MAIN("mrcd_query", cases)
