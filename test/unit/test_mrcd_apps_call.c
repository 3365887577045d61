/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * mrcd_apps_call_shard (app/mrcd/apps/mrcd_apps_call.c): the control
 * thread runs a function on a shard's worker through the shard's request
 * ring, which other threads fill too (the control socket's, recovery's).
 * What it runs must run: taking a QP out of the shard before its memory is
 * freed, retiring a region's key before its pages are unmapped. So a call
 * made while the ring is full waits for room, and is never given up.
 */

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include <rte_pause.h>
#include <rte_ring.h>

#include "mrc_shard.h"
#include "mrc_shard_priv.h" /* mrc_shard_take_requests: the worker's side */
#include "mrc_test.h"
#include "mrc_test_qp.h"
#include "mrcd_apps.h"
#include "mrcd_apps_ctl.h"
#include "mrcd_apps_priv.h"
#include "mrcd_daemon.h"

#define RING_ROOM 3u /* a ring of 4 holds 3 */

static int calls_run;

static int
the_call(struct mrc_shard *s, void *arg)
{
	RTE_SET_USED(s);
	RTE_SET_USED(arg);
	calls_run++;
	return 7;
}

static int
filler(struct mrc_shard *s, void *arg)
{
	RTE_SET_USED(s);
	RTE_SET_USED(arg);
	return 0;
}

/* The shard's worker, late: it starts serving the ring once the call has found it full. */
struct late_worker {
	struct mrc_shard *s;
	volatile bool stop;
};

static void *
late_worker_run(void *arg)
{
	struct late_worker *w = arg;

	usleep(20000);
	while (!w->stop)
		mrc_shard_take_requests(w->s);
	return NULL;
}

static int
test_call_waits_for_room_in_a_full_ring(void)
{
	static struct mrc_test_pair p;
	static struct mrcd_daemon d;
	struct mrc_test_pair_cfg pc;
	struct mrc_shard_req fill[RING_ROOM], extra = {.op = MRC_SHARD_CALL, .fn = filler};
	struct late_worker w = {0};
	struct mrcd_apps *a;
	struct rte_ring *requests;
	const char *why = NULL;
	pthread_t th;
	int rc;

	MRC_T_EQ(mrc_test_eal_init("test_mrcd_apps_call"), 0);
	mrc_test_pair_cfg_defaults(&pc);
	pc.n_planes = 1;
	MRC_T_EQ(mrc_test_pair_create(&p, &pc), 0);
	requests = rte_ring_create("apc_req", RING_ROOM + 1, SOCKET_ID_ANY, RING_F_SC_DEQ);
	MRC_T_ASSERT(requests != NULL, "request ring");
	struct mrc_shard_cfg c = {.n_planes = 1,
		.port_id = {0},
		.qpn_base = 0x100,
		.max_qps = 8,
		.tsc_hz = MRC_TEST_HZ,
		.wire = p.wire,
		.socket = SOCKET_ID_ANY,
		.requests = requests};

	w.s = mrc_shard_create(&c, p.now, &why);
	MRC_T_ASSERT(w.s != NULL, "shard: %s", why);
	/* Other threads' requests fill the ring. */
	for (unsigned int i = 0; i < RING_ROOM; i++) {
		fill[i] = (struct mrc_shard_req){.op = MRC_SHARD_CALL, .fn = filler};
		MRC_T_EQ(mrc_shard_request(w.s, &fill[i]), 0);
	}
	MRC_T_EQ(mrc_shard_request(w.s, &extra), -ENOSPC);

	d.phase = MRCD_RUN;
	d.host[0].n_shards = 1;
	d.host[0].shard[0].rt = w.s;
	a = calloc(1, sizeof(*a));
	MRC_T_ASSERT(a != NULL, "calloc");
	a->d = &d;
	struct mrcd_apps_call call = {.a = a};

	MRC_T_EQ(pthread_create(&th, NULL, late_worker_run, &w), 0);
	rc = mrcd_apps_call_shard(a, 0, 0, the_call, &call);
	w.stop = true;
	MRC_T_EQ(pthread_join(th, NULL), 0);
	MRC_T_EQ(rc, 7);
	MRC_T_EQ(calls_run, 1);
	for (unsigned int i = 0; i < RING_ROOM; i++)
		MRC_T_ASSERT(mrc_shard_req_done(&fill[i]), "request %u served", i);

	free(a);
	mrc_shard_free(w.s);
	rte_ring_free(requests);
	mrc_test_pair_destroy(&p);
	return MRC_TEST_OK;
}

static const struct mrc_test_case cases[] = {
	MRC_TEST_CASE(test_call_waits_for_room_in_a_full_ring),
};

MRC_TEST_MAIN("mrcd_apps_call", cases)
