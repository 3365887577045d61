/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * The controller's requests to a shard (lib/host/mrc_shard_ev.c): two
 * hosts on different T0s of the emulated fabric (8 planes, 4 T1s), one QP
 * pair. A path (plane 2, T1 1) denied before the QPs exist is denied on
 * them as they are added, and no data crosses it; re-admitted, it carries
 * data again; every change is on the EV event ring with its path. A deny
 * that would leave a QP no EV is refused and changes nothing; one EV of a
 * QP is denied and re-admitted alone; bad requests get their error.
 */

#include <errno.h>
#include <string.h>

#include <rte_mbuf.h>
#include <rte_ring.h>
#include <rte_ring_elem.h>

#include "mrc_ev.h"
#include "mrc_fabric.h"
#include "mrc_shard.h"
#include "mrc_test.h"
#include "mrc_test_qp.h"

#define MSG (256u * 1024)

struct net {
	struct mrc_test_pair p;
	struct mrc_fabric *fab;
	struct mrc_shard *sh[2];
	struct rte_ring *req[2], *evr[2];
	unsigned int posted, done[2];
};

/* Ask shard i and run the network until it has answered. */
static int
ask(struct net *n, unsigned int i, enum mrc_shard_op op, const struct mrc_shard_ev_sel *sel,
	struct mrc_shard_req *r)
{
	memset(r, 0, sizeof(*r));
	r->op = op;
	r->sel = sel;
	MRC_T_EQ(mrc_shard_request(n->sh[i], r), 0);
	MRC_T_ASSERT(!mrc_shard_req_done(r), "nothing happens before the owner iterates");
	mrc_shard_iterate(n->sh[i], n->p.now, &n->p.rand);
	MRC_T_ASSERT(mrc_shard_req_done(r), "done after one iteration");
	return MRC_TEST_OK;
}

/* `k` messages each way, run to completion. */
static int
traffic(struct net *n, unsigned int k)
{
	for (uint32_t m = 0; m < k; m++, n->posted++)
		for (int i = 0; i < 2; i++) {
			struct mrc_test_host *s = &n->p.h[i], *r = &n->p.h[1 - i];
			size_t off = (size_t)i * (4u << 20) + (m % 8) * MSG;

			mrc_test_fill(s, off, MSG, m + 100u * (uint32_t)i);
			MRC_T_EQ(mrc_qp_post_write(s->qp, n->posted, s->mem + off, MSG, s->key,
					 (uint64_t)(uintptr_t)r->mem + off, r->key, false, 0),
				0);
		}
	for (int step = 0; step < 2000000 && (n->done[0] < n->posted || n->done[1] < n->posted);
		step++) {
		struct mrc_cqe e[32];

		n->p.now += 100;
		mrc_fabric_poll(n->fab, n->p.now);
		for (int i = 0; i < 2; i++) {
			unsigned int c;

			mrc_shard_iterate(n->sh[i], n->p.now, &n->p.rand);
			while ((c = mrc_cq_poll(n->p.h[i].cq, e, 32)) > 0)
				for (unsigned int j = 0; j < c; j++) {
					MRC_T_EQ(e[j].status, MRC_CQE_OK);
					n->done[i]++;
				}
		}
	}
	MRC_T_EQ(n->done[0], n->posted);
	MRC_T_EQ(n->done[1], n->posted);
	return MRC_TEST_OK;
}

/* Data packets shard i sent on path (plane, t1), from its published counters. */
static uint64_t
path_data(struct net *n, unsigned int i, unsigned int plane, unsigned int t1)
{
	static struct mrc_path_counters pc[MRC_SHARD_MAX_PLANES * (MRC_PATH_MAX_T1 + 1)];
	unsigned int n_planes, n_t1;

	mrc_shard_publish(n->sh[i], n->p.now);
	mrc_shard_paths_snapshot(n->sh[i], pc, RTE_DIM(pc), &n_planes, &n_t1);
	return pc[plane * (n_t1 + 1) + t1].tx_data_pkts + pc[plane * (n_t1 + 1) + t1].tx_retx_pkts;
}

static uint32_t
denied_evs(struct net *n, unsigned int i)
{
	struct mrc_ev_totals t;

	mrc_ev_pool_totals(mrc_qp_ev_pool(n->p.h[i].qp), &t);
	return t.denied;
}

/* Take the events off shard i's ring: how many, and that each is (plane, t1) going `to`. */
static int
drain_events(struct net *n, unsigned int i, unsigned int plane, unsigned int t1, uint8_t to,
	unsigned int *count)
{
	struct mrc_shard_ev_event e;

	*count = 0;
	while (rte_ring_sc_dequeue_elem(n->evr[i], &e, sizeof(e)) == 0) {
		MRC_T_EQ(e.host, i);
		MRC_T_EQ(e.qpn, mrc_qp_qpn(n->p.h[i].qp));
		MRC_T_EQ(e.plane, plane);
		MRC_T_EQ(e.t1, t1);
		MRC_T_EQ(e.to, to);
		MRC_T_EQ(mrc_ev_find(mrc_qp_ev_pool(n->p.h[i].qp), e.ev) >= 0, true);
		(*count)++;
	}
	return MRC_TEST_OK;
}

/* Probe `one` on shard 0 and run the network until it is settled: its result's rc. */
static int
probe_settled(struct net *n, const struct mrc_shard_ev_sel *one, uint64_t *rtt_ns, int *out)
{
	struct mrc_shard_req r;

	MRC_T_RUN(ask(n, 0, MRC_SHARD_EV_PROBE, one, &r));
	MRC_T_EQ(r.rc, 0);
	MRC_T_RUN(ask(n, 0, MRC_SHARD_EV_PROBE_RESULT, one, &r));
	/* Not answered before the fabric has carried it (a plane down: never sent). */
	MRC_T_ASSERT(r.rc == 0 || r.rc == -ENETDOWN, "rc %d", r.rc);
	for (int step = 0; step < 200000 && r.rc == 0; step++) {
		n->p.now += 100;
		mrc_fabric_poll(n->fab, n->p.now);
		mrc_shard_iterate(n->sh[1], n->p.now, &n->p.rand);
		MRC_T_RUN(ask(n, 0, MRC_SHARD_EV_PROBE_RESULT, one, &r));
	}
	*rtt_ns = r.rtt_ns;
	*out = r.rc;
	return MRC_TEST_OK;
}

/*
 * The operator's probe (mrcctl probe): the EVs of a path listed, one of
 * them probed and timed; the same EV on a plane that black-holes gets no
 * answer, on a plane whose port is down none is sent; unknown EVs refused.
 */
static int
probes(struct net *n)
{
	struct mrc_shard_ev_sel path = {.t1 = {[2] = 1u << 1}}, one;
	struct mrc_shard_ev_ref list[8];
	struct mrc_shard_req r;
	const uint64_t sent = mrc_qp_counters(n->p.h[0].qp)->tx_op_probes;
	uint64_t rtt = 0;
	int rc;

	memset(&r, 0, sizeof(r));
	r.op = MRC_SHARD_EV_LIST;
	r.sel = &path;
	r.list = list;
	r.list_max = 3;
	MRC_T_EQ(mrc_shard_request(n->sh[0], &r), 0);
	mrc_shard_iterate(n->sh[0], n->p.now, &n->p.rand);
	MRC_T_ASSERT(mrc_shard_req_done(&r), "listed");
	MRC_T_EQ(r.rc, 0);
	MRC_T_EQ(r.n_evs, 5); /* all of them counted, the first 3 listed */
	for (unsigned int i = 0; i < 3; i++) {
		MRC_T_EQ(list[i].qpn, mrc_qp_qpn(n->p.h[0].qp));
		MRC_T_EQ(mrc_qp_ev_t1(n->p.h[0].qp, list[i].ev), 1);
		MRC_T_EQ(list[i].ev >> 28, 2); /* plane 2 */
	}
	memset(&one, 0, sizeof(one));
	one.one_ev = true;
	one.qpn = list[0].qpn;
	one.ev = list[0].ev;
	MRC_T_RUN(probe_settled(n, &one, &rtt, &rc));
	MRC_T_EQ(rc, 1);
	/* The fabric's round trip: a few microseconds, not zero, not a timeout. */
	MRC_T_ASSERT(rtt > 0 && rtt < 1000000, "rtt %lu ns", (unsigned long)rtt);
	MRC_T_EQ(mrc_qp_counters(n->p.h[0].qp)->tx_op_probes, sent + 1);

	MRC_T_EQ(mrc_fabric_set_plane(n->fab, 2, MRC_FABRIC_BLACKHOLE), 0);
	MRC_T_RUN(probe_settled(n, &one, &rtt, &rc));
	MRC_T_EQ(rc, -ETIMEDOUT);
	MRC_T_EQ(mrc_fabric_set_plane(n->fab, 2, MRC_FABRIC_UP), 0);
	MRC_T_RUN(probe_settled(n, &one, &rtt, &rc));
	MRC_T_EQ(rc, 1);

	mrc_shard_set_port_mask(n->sh[0], 0xffu & ~(1u << 2));
	MRC_T_RUN(probe_settled(n, &one, &rtt, &rc));
	MRC_T_EQ(rc, -ENETDOWN);
	mrc_shard_set_port_mask(n->sh[0], 0xff);
	MRC_T_EQ(mrc_qp_counters(n->p.h[0].qp)->tx_op_probes, sent + 3);

	one.ev = (one.ev & 0x0fffffffu) | 9u << 28; /* plane 9: none of the pool's */
	MRC_T_RUN(ask(n, 0, MRC_SHARD_EV_PROBE, &one, &r));
	MRC_T_EQ(r.rc, -ENOENT);
	one.qpn = 0x999;
	MRC_T_RUN(ask(n, 0, MRC_SHARD_EV_PROBE, &one, &r));
	MRC_T_EQ(r.rc, -ENOENT);
	MRC_T_RUN(ask(n, 0, MRC_SHARD_EV_PROBE, &path, &r));
	MRC_T_EQ(r.rc, -EINVAL); /* a probe names one EV */
	return MRC_TEST_OK;
}

static int
test_denies_and_readmits_paths(void)
{
	static struct net n;
	struct mrc_test_pair_cfg pc;
	struct mrc_fabric_cfg fc;
	struct mrc_shard_req r;
	struct mrc_shard_ev_sel path = {.t1 = {[2] = 1u << 1}}, all = {.planes = 0xff}, one, got;
	const char *why = NULL;
	unsigned int ev_count;
	int rc = mrc_test_eal_init("test_shard_ev");

	if (rc != 0)
		return rc;
	memset(&n, 0, sizeof(n));
	mrc_test_pair_cfg_defaults(&pc);
	pc.mem_len = 8u << 20;
	MRC_T_EQ(mrc_test_pair_create(&n.p, &pc), 0);
	mrc_fabric_cfg_defaults(&fc);
	fc.tsc_hz = MRC_TEST_HZ;
	n.fab = mrc_fabric_create(&fc, &why);
	MRC_T_ASSERT(n.fab != NULL, "fabric: %s", why);
	MRC_T_EQ(mrc_fabric_start_ports(n.fab, n.p.pool), 0);
	for (unsigned int i = 0; i < 2; i++) {
		char name[32];
		struct mrc_shard_cfg hc = {.host_id = (uint8_t)i,
			.n_planes = 8,
			.max_qps = 4,
			.qpn_base = 0x100,
			.tsc_hz = MRC_TEST_HZ,
			.wire = n.p.wire,
			.socket = SOCKET_ID_ANY,
			.path_t1s = 4};

		snprintf(name, sizeof(name), "shev_req%u", i);
		n.req[i] = rte_ring_create(name, 64, SOCKET_ID_ANY, RING_F_SC_DEQ);
		snprintf(name, sizeof(name), "shev_ev%u", i);
		n.evr[i] = rte_ring_create_elem(name, sizeof(struct mrc_shard_ev_event), 1024,
			SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
		MRC_T_ASSERT(n.req[i] != NULL && n.evr[i] != NULL, "rings");
		hc.requests = n.req[i];
		hc.ev_events = n.evr[i];
		for (unsigned int pl = 0; pl < 8; pl++)
			hc.port_id[pl] = mrc_fabric_port(n.fab, i, pl);
		n.sh[i] = mrc_shard_create(&hc, n.p.now, &why);
		MRC_T_ASSERT(n.sh[i] != NULL, "host: %s", why);
		MRC_T_EQ(mrc_shard_refresh_links(n.sh[i]), 0xff);
		/* Denied before the QP is there: nothing to deny yet, but remembered. */
		MRC_T_RUN(ask(&n, i, MRC_SHARD_EV_DENY, &path, &r));
		MRC_T_EQ(r.rc, 0);
		MRC_T_EQ(r.n_evs, 0);
		mrc_shard_ev_denied(n.sh[i], &got);
		MRC_T_EQ(got.t1[2], 2);
		MRC_T_EQ(got.planes, 0);
	}
	for (unsigned int i = 0; i < 2; i++) {
		/* A QP added later: its EVs on (2, 1) are denied as it joins, 160 / 8 / 4 of them.
		 */
		MRC_T_EQ(mrc_shard_add_qp(n.sh[i], n.p.h[i].qp, n.p.now), 0);
		MRC_T_EQ(denied_evs(&n, i), 5);
		MRC_T_EQ(mrc_shard_counters(n.sh[i])->ev_denied, 5);
		MRC_T_RUN(drain_events(&n, i, 2, 1, MRC_EV_DENIED, &ev_count));
		MRC_T_EQ(ev_count, 5);
	}
	MRC_T_RUN(traffic(&n, 8));
	for (unsigned int i = 0; i < 2; i++) {
		MRC_T_EQ(path_data(&n, i, 2, 1), 0);
		MRC_T_ASSERT(path_data(&n, i, 2, 0) > 0, "its neighbour carries data");
	}

	/* Every plane denied would leave the QP nothing: refused, by check and by deny alike. */
	MRC_T_RUN(ask(&n, 0, MRC_SHARD_EV_CHECK, &all, &r));
	MRC_T_EQ(r.rc, -EDEADLK);
	MRC_T_EQ(r.qpn_out, mrc_qp_qpn(n.p.h[0].qp));
	MRC_T_RUN(ask(&n, 0, MRC_SHARD_EV_DENY, &all, &r));
	MRC_T_EQ(r.rc, -EDEADLK);
	MRC_T_EQ(denied_evs(&n, 0), 5);
	mrc_shard_ev_denied(n.sh[0], &got);
	MRC_T_EQ(got.planes, 0);
	MRC_T_EQ(rte_ring_count(n.evr[0]), 0);
	/* Seven planes are fine: the QP keeps plane 7. */
	all.planes = 0x7f;
	MRC_T_RUN(ask(&n, 0, MRC_SHARD_EV_CHECK, &all, &r));
	MRC_T_EQ(r.rc, 0);
	MRC_T_EQ(denied_evs(&n, 0), 5);

	/* One EV of the QP, alone: denied, re-admitted; unknown ones refused. */
	memset(&one, 0, sizeof(one));
	one.one_ev = true;
	one.qpn = mrc_qp_qpn(n.p.h[0].qp);
	one.ev = mrc_ev_value(mrc_qp_ev_pool(n.p.h[0].qp), 0);
	MRC_T_EQ(mrc_ev_plane(mrc_qp_ev_pool(n.p.h[0].qp), 0), 0);
	MRC_T_RUN(ask(&n, 0, MRC_SHARD_EV_DENY, &one, &r));
	MRC_T_EQ(r.rc, 0);
	MRC_T_EQ(r.n_evs, 1);
	MRC_T_EQ(denied_evs(&n, 0), 6);
	MRC_T_RUN(ask(&n, 0, MRC_SHARD_EV_ALLOW, &one, &r));
	MRC_T_EQ(r.rc, 0);
	MRC_T_EQ(r.n_evs, 1);
	MRC_T_EQ(denied_evs(&n, 0), 5);
	MRC_T_EQ(rte_ring_count(n.evr[0]), 2);	    /* out and back */
	one.ev = (one.ev & 0x0fffffffu) | 9u << 28; /* plane 9: none of the pool's */
	MRC_T_RUN(ask(&n, 0, MRC_SHARD_EV_DENY, &one, &r));
	MRC_T_EQ(r.rc, -ENOENT);
	one.qpn = 0x999;
	MRC_T_RUN(ask(&n, 0, MRC_SHARD_EV_DENY, &one, &r));
	MRC_T_EQ(r.rc, -ENOENT);
	/* An EV on the denied path cannot be let out on its own. */
	{
		const struct mrc_ev_pool *pool = mrc_qp_ev_pool(n.p.h[0].qp);

		for (int s = 0; s < mrc_ev_n_slots(pool); s++)
			if (mrc_ev_state(pool, s) == MRC_EV_DENIED) {
				one.qpn = mrc_qp_qpn(n.p.h[0].qp);
				one.ev = mrc_ev_value(pool, s);
				break;
			}
	}
	MRC_T_RUN(ask(&n, 0, MRC_SHARD_EV_ALLOW, &one, &r));
	MRC_T_EQ(r.rc, -EACCES);
	MRC_T_EQ(denied_evs(&n, 0), 5);
	/* Nor probed: nothing is sent on a DENIED EV. */
	MRC_T_RUN(ask(&n, 0, MRC_SHARD_EV_PROBE, &one, &r));
	MRC_T_EQ(r.rc, -EACCES);
	MRC_T_RUN(ask(&n, 0, MRC_SHARD_EV_ALLOW, NULL, &r));
	MRC_T_EQ(r.rc, -EINVAL);
	{
		struct rte_ring *tmp = n.evr[0];
		struct mrc_shard_ev_event e;

		while (rte_ring_sc_dequeue_elem(tmp, &e, sizeof(e)) == 0)
			;
	}

	/* Re-admitted: the path's EVs are GOOD again, reported, and carry data. */
	for (unsigned int i = 0; i < 2; i++) {
		const uint64_t before = path_data(&n, i, 2, 1);

		MRC_T_RUN(ask(&n, i, MRC_SHARD_EV_ALLOW, &path, &r));
		MRC_T_EQ(r.rc, 0);
		MRC_T_EQ(r.n_evs, 5);
		MRC_T_EQ(denied_evs(&n, i), 0);
		MRC_T_EQ(mrc_shard_counters(n.sh[i])->ev_allowed, i == 0 ? 6 : 5);
		MRC_T_RUN(drain_events(&n, i, 2, 1, MRC_EV_GOOD, &ev_count));
		MRC_T_EQ(ev_count, 5);
		mrc_shard_ev_denied(n.sh[i], &got);
		MRC_T_EQ(got.t1[2], 0);
		MRC_T_EQ(before, 0);
	}
	MRC_T_RUN(traffic(&n, 8));
	for (unsigned int i = 0; i < 2; i++)
		MRC_T_ASSERT(path_data(&n, i, 2, 1) > 0, "the re-admitted path carries data");
	MRC_T_RUN(probes(&n));

	for (int step = 0; step < 2000; step++) {
		n.p.now += 100;
		mrc_fabric_poll(n.fab, n.p.now);
		for (int i = 0; i < 2; i++)
			mrc_shard_iterate(n.sh[i], n.p.now, &n.p.rand);
	}
	for (unsigned int i = 0; i < 2; i++) {
		MRC_T_EQ(mrc_shard_del_qp(n.sh[i], n.p.h[i].qp), 0);
		mrc_shard_free(n.sh[i]);
		rte_ring_free(n.req[i]);
		rte_ring_free(n.evr[i]);
	}
	mrc_fabric_free(n.fab);
	MRC_T_EQ(rte_mempool_avail_count(n.p.pool), n.p.pool->size);
	mrc_test_pair_destroy(&n.p);
	return MRC_TEST_OK;
}

static const struct mrc_test_case cases[] = {
	MRC_TEST_CASE(test_denies_and_readmits_paths),
};

MRC_TEST_MAIN("host_shard_ev", cases)
