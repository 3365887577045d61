/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * The control socket's fault drill (mrcctl fail, app/mrcd/control/
 * mrcd_ctl_ops.c) runs on the worker that owns the QP, through the shard's
 * request ring. A worker that does not answer (stopped: mrcd is exiting)
 * must not hold the control socket's thread: mrcd's exit joins it. The
 * drill answers `busy` after its wait, and its request, left queued, holds
 * nothing of that thread's.
 */

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#include <rte_ring.h>

#include "mrc_shard.h"
#include "mrc_shard_priv.h" /* mrc_shard_take_requests: the worker's side */
#include "mrc_test.h"
#include "mrc_test_qp.h"
#include "mrcd_ctl.h"
#include "mrcd_daemon.h"

struct drill {
	struct mrcd_ctl *ctl;
	struct mrcd_ctl_req rq;
	char out[256];
	volatile bool done;
};

static void *
drill_run(void *arg)
{
	struct drill *dr = arg;
	struct mrcd_ctl_client c = {.fd = -1, .admin = true, .hello = true};

	mrcd_ctl_answer(dr->ctl, &c, &dr->rq, dr->out, sizeof(dr->out));
	dr->done = true;
	return NULL;
}

static int
test_drill_on_a_worker_that_does_not_answer(void)
{
	static struct mrc_test_pair p;
	static struct mrcd_daemon d;
	static struct mrcd_ctl ctl;
	static struct mrcd_flow flows[1];
	static int32_t flow_of[1];
	static struct drill dr;
	struct mrc_test_pair_cfg pc;
	struct rte_ring *requests;
	const char *why = NULL;
	pthread_t th;
	struct mrc_shard *s;

	MRC_T_EQ(mrc_test_eal_init("test_mrcd_ctl_fail"), 0);
	mrc_test_pair_cfg_defaults(&pc);
	pc.n_planes = 1;
	MRC_T_EQ(mrc_test_pair_create(&p, &pc), 0);
	requests = rte_ring_create("ctlf_req", 16, SOCKET_ID_ANY, RING_F_SC_DEQ);
	MRC_T_ASSERT(requests != NULL, "request ring");
	struct mrc_shard_cfg c = {.n_planes = 1,
		.port_id = {0},
		.qpn_base = 0x100,
		.max_qps = 8,
		.tsc_hz = MRC_TEST_HZ,
		.wire = p.wire,
		.socket = SOCKET_ID_ANY,
		.requests = requests};

	s = mrc_shard_create(&c, p.now, &why);
	MRC_T_ASSERT(s != NULL, "shard: %s", why);
	/* One flow, host 0's sending end on shard 0, whose worker has stopped. */
	d.n_hosts = 1;
	d.n_cluster_flows = 1;
	d.flow_of = flow_of;
	d.flows = flows;
	flows[0].src_local = 0;
	flows[0].dst_local = -1;
	flows[0].src_shard = 0;
	flows[0].qp = p.h[0].qp;
	d.host[0].n_shards = 1;
	d.host[0].shard[0].rt = s;
	ctl.d = &d;
	dr = (struct drill){.ctl = &ctl,
		.rq = {.cmd = MRCD_CTL_FAIL, .host = 0, .has_qp = true, .qpn = MRCD_QPN_BASE}};

	MRC_T_EQ(pthread_create(&th, NULL, drill_run, &dr), 0);
	/* the drill waits MRCD_CTL_WAIT_MS (2 s), then answers */
	for (int i = 0; i < 100 && !dr.done; i++) {
		const struct timespec nap = {.tv_nsec = 100 * 1000 * 1000};

		nanosleep(&nap, NULL);
	}
	MRC_T_ASSERT(dr.done, "the drill still waits for a worker that will never answer");
	MRC_T_EQ(pthread_join(th, NULL), 0);
	MRC_T_ASSERT(strncmp(dr.out, "ERR busy ", 9) == 0, "answer: %s", dr.out);
	/* Served late, the request finds what it needs where it left it. */
	mrc_shard_take_requests(s);
	MRC_T_ASSERT(mrc_shard_req_done(&ctl.req[0][0]), "served");

	mrc_shard_free(s);
	rte_ring_free(requests);
	mrc_test_pair_destroy(&p);
	return MRC_TEST_OK;
}

static const struct mrc_test_case cases[] = {
	MRC_TEST_CASE(test_drill_on_a_worker_that_does_not_answer),
};

MRC_TEST_MAIN("mrcd_ctl_fail", cases)
