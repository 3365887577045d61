/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * The daemon's per-host dataplane loop (app/mrcd/mrcd_host) over the
 * emulated fabric's ethdev ports, on a fake clock: two hosts, 8 planes,
 * traffic both ways, and plane 3 dying mid-run, seen only through the
 * ports' link status as a daemon's control thread sees it.
 */

#include <string.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "mrc_fabric.h"
#include "mrc_test.h"
#include "mrc_test_qp.h"
#include "mrcd_host.h"

#define US  1000ull
#define MSG (256u * 1024)

static int
run_pair(bool kill_plane)
{
	static struct mrc_test_pair p;
	struct mrc_test_pair_cfg pc;
	struct mrc_fabric_cfg fc;
	struct mrc_fabric *fab;
	struct mrcd_host *hosts[2];
	const char *why = NULL;
	unsigned int done[2] = {0, 0}, posted = 0;
	uint32_t masks_seen = 0xff;
	int rc = mrc_test_eal_init("test_mrcd_host");

	if (rc != 0)
		return rc;
	mrc_test_pair_cfg_defaults(&pc);
	pc.mem_len = 8u << 20;
	MRC_T_EQ(mrc_test_pair_create(&p, &pc), 0);
	mrc_fabric_cfg_defaults(&fc);
	fc.tsc_hz = MRC_TEST_HZ;
	fab = mrc_fabric_create(&fc, &why);
	MRC_T_ASSERT(fab != NULL, "fabric: %s", why);
	MRC_T_EQ(mrc_fabric_start_ports(fab, p.pool), 0);
	for (int i = 0; i < 2; i++) {
		struct mrcd_host_cfg hc = {.id = (uint8_t)i,
			.n_planes = 8,
			.max_qps = 4,
			.qpn_base = 0x100,
			.tsc_hz = MRC_TEST_HZ,
			.wire = p.wire,
			.socket = SOCKET_ID_ANY};

		for (unsigned int pl = 0; pl < 8; pl++)
			hc.port_id[pl] = mrc_fabric_port(fab, (unsigned int)i, pl);
		hosts[i] = mrcd_host_create(&hc, p.now, &why);
		MRC_T_ASSERT(hosts[i] != NULL, "host: %s", why);
		MRC_T_EQ(mrcd_host_add_qp(hosts[i], p.h[i].qp, p.now), 0);
		MRC_T_EQ(mrcd_host_add_qp(hosts[i], p.h[i].qp, p.now), -EEXIST);
		MRC_T_EQ(mrcd_host_refresh_links(hosts[i]), 0xff);
	}
	/* 8 messages each way, in separate halves of each host's memory. */
	for (uint32_t k = 0; k < 8; k++, posted++)
		for (int i = 0; i < 2; i++) {
			struct mrc_test_host *s = &p.h[i], *r = &p.h[1 - i];
			size_t off = (size_t)i * (4u << 20) + k * MSG;

			mrc_test_fill(s, off, MSG, k + 100u * (uint32_t)i);
			MRC_T_EQ(mrc_qp_post_write(s->qp, k, s->mem + off, MSG, s->key,
					 (uint64_t)(uintptr_t)r->mem + off, r->key, k & 1, k),
				0);
		}
	uint64_t plane3_pkts_at_death = 0;

	for (int step = 0; step < 2000000 && (done[0] < posted || done[1] < posted); step++) {
		struct mrc_cqe e[32];

		p.now += 100;
		mrc_fabric_poll(fab, p.now);
		for (int i = 0; i < 2; i++)
			mrcd_host_iterate(hosts[i], p.now, &p.rand);
		if (step % 10 == 0) /* the control thread reads link status every microsecond */
			for (int i = 0; i < 2; i++) {
				uint32_t m = mrcd_host_refresh_links(hosts[i]);

				masks_seen &= m;
				/* Port status to the peer: its QP stops using our dead plane too.
				 */
				mrc_qp_set_peer_planes(p.h[1 - i].qp, m);
			}
		if (kill_plane && p.now == 20 * US) {
			MRC_T_EQ(mrc_fabric_set_plane(fab, 3, MRC_FABRIC_DOWN), 0);
			plane3_pkts_at_death = mrcd_host_counters(hosts[0])->tx_pkts +
					       mrcd_host_counters(hosts[1])->tx_pkts;
		}
		for (int i = 0; i < 2; i++) {
			unsigned int n;

			while ((n = mrc_cq_poll(p.h[i].cq, e, 32)) > 0)
				for (unsigned int k = 0; k < n; k++) {
					MRC_T_EQ(e[k].status, MRC_CQE_OK);
					if (e[k].opcode != MRC_CQE_RECV_IMM)
						done[i]++;
				}
		}
	}
	MRC_T_EQ(done[0], posted);
	MRC_T_EQ(done[1], posted);
	for (int i = 0; i < 2; i++) {
		size_t off = (size_t)i * (4u << 20);

		MRC_T_MEMEQ(p.h[1 - i].mem + off, p.h[i].mem + off, 8 * MSG);
		MRC_T_EQ(mrcd_host_counters(hosts[i])->rx_unknown_qpn, 0);
		MRC_T_EQ(mrcd_host_counters(hosts[i])->tx_dropped, 0);
		const struct mrc_wire_rx_stats *vs = mrcd_host_rx_verdicts(hosts[i]);

		for (int r = 1; r < MRC_WIRE_REJECT_MAX; r++)
			MRC_T_EQ(vs->pkts[r], 0);
		MRC_T_EQ(mrc_qp_state(p.h[i].qp), MRC_QP_RTS);
	}
	if (kill_plane) {
		MRC_T_EQ(masks_seen, 0xff & ~(1u << 3)); /* the runtime saw plane 3 go */
		MRC_T_ASSERT(plane3_pkts_at_death > 0, "traffic was flowing when it died");
	}
	printf("  %s: 2 x 2 MiB done at %.1f us; host 0 sent %llu, staged %llu, resent %llu\n",
		kill_plane ? "plane 3 dies at 20 us" : "all planes up", p.now / 1e3,
		(unsigned long long)mrcd_host_counters(hosts[0])->tx_pkts,
		(unsigned long long)mrcd_host_counters(hosts[0])->tx_staged,
		(unsigned long long)mrc_qp_counters(p.h[0].qp)->tx_retx_pkts);

	/* Let the last SACKs land, then everything must be back in the pool. */
	for (int step = 0; step < 2000; step++) {
		p.now += 100;
		mrc_fabric_poll(fab, p.now);
		for (int i = 0; i < 2; i++)
			mrcd_host_iterate(hosts[i], p.now, &p.rand);
	}
	for (int i = 0; i < 2; i++) {
		MRC_T_EQ(mrcd_host_del_qp(hosts[i], p.h[i].qp), 0);
		MRC_T_EQ(mrcd_host_del_qp(hosts[i], p.h[i].qp), -ENOENT);
		mrcd_host_free(hosts[i]);
	}
	mrc_fabric_free(fab);
	MRC_T_EQ(rte_mempool_avail_count(p.pool), p.pool->size);
	mrc_test_pair_destroy(&p);
	return MRC_TEST_OK;
}

static int
test_two_hosts_over_fabric(void)
{
	return run_pair(false);
}

static int
test_plane_dies_seen_through_link_status(void)
{
	return run_pair(true);
}

static const struct mrc_test_case cases[] = {
	MRC_TEST_CASE(test_two_hosts_over_fabric),
	MRC_TEST_CASE(test_plane_dies_seen_through_link_status),
};

MRC_TEST_MAIN("mrcd_host", cases)
