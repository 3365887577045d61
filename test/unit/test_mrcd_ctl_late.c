/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * The control socket's changes (app/mrcd/control/mrcd_ctl_ops.c) run on
 * the worker that owns what they change, through the shard's request ring,
 * and answer after MRCD_CTL_WAIT_MS (2 s) when the worker has not: such a
 * request stays queued and may run later. So:
 *  - a worker that never answers (stopped: mrcd is exiting) must not hold
 *    the control socket's thread, which mrcd's exit joins: the fault drill
 *    (mrcctl fail) answers `busy`, and its request holds nothing of that
 *    thread's;
 *  - a deny left queued denies what its own command named, not what the
 *    next command names, and a path probe left queued lists its EVs where
 *    no other host's probe reads.
 */

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
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
	double took_s; /* the answer's wait */
	volatile bool done;
};

static double
now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void *
drill_run(void *arg)
{
	struct drill *dr = arg;
	struct mrcd_ctl_client c = {.fd = -1, .admin = true, .hello = true};
	const double t0 = now_s();

	mrcd_ctl_answer(dr->ctl, &c, &dr->rq, dr->out, sizeof(dr->out));
	dr->took_s = now_s() - t0;
	dr->done = true;
	return NULL;
}

/*
 * Two hosts of one shard each, whose workers have stopped, and one flow
 * sending from host 0.
 */
struct late {
	struct mrc_test_pair p;
	struct mrcd_daemon d;
	struct mrcd_ctl ctl;
	struct mrcd_flow flows[1];
	int32_t flow_of[1];
	struct rte_ring *requests[2];
	struct mrc_shard *s[2];
};

static int
late_setup(struct late *l, const char *ring_name)
{
	struct mrc_test_pair_cfg pc;
	const char *why = NULL;

	memset(l, 0, sizeof(*l));
	MRC_T_EQ(mrc_test_eal_init("test_mrcd_ctl_late"), 0);
	mrc_test_pair_cfg_defaults(&pc);
	pc.n_planes = 1;
	MRC_T_EQ(mrc_test_pair_create(&l->p, &pc), 0);
	for (unsigned int h = 0; h < 2; h++) {
		char name[32];

		snprintf(name, sizeof(name), "%s%u", ring_name, h);
		l->requests[h] = rte_ring_create(name, 16, SOCKET_ID_ANY, RING_F_SC_DEQ);
		MRC_T_ASSERT(l->requests[h] != NULL, "request ring");
		struct mrc_shard_cfg c = {.host_id = (uint8_t)h,
			.n_planes = 1,
			.port_id = {0},
			.qpn_base = 0x100,
			.max_qps = 8,
			.tsc_hz = MRC_TEST_HZ,
			.wire = l->p.wire,
			.socket = SOCKET_ID_ANY,
			.requests = l->requests[h]};

		l->s[h] = mrc_shard_create(&c, l->p.now, &why);
		MRC_T_ASSERT(l->s[h] != NULL, "shard: %s", why);
		l->d.host[h].n_shards = 1;
		l->d.host[h].shard[0].rt = l->s[h];
	}
	l->d.n_hosts = 2;
	l->d.n_cluster_flows = 1;
	l->d.flow_of = l->flow_of;
	l->d.flows = l->flows;
	l->flows[0].src_local = 0;
	l->flows[0].dst_local = -1;
	l->flows[0].src_shard = 0;
	l->flows[0].qp = l->p.h[0].qp;
	l->ctl.d = &l->d;
	return MRC_TEST_OK;
}

static void
late_free(struct late *l)
{
	for (unsigned int h = 0; h < 2; h++) {
		mrc_shard_take_requests(l->s[h]); /* what was left queued */
		mrc_shard_free(l->s[h]);
		rte_ring_free(l->requests[h]);
	}
	mrc_test_pair_destroy(&l->p);
}

/* Answer rq on a thread of its own; true once answered, within 10 s. */
static bool
answered(struct drill *dr, struct mrcd_ctl *ctl, const struct mrcd_ctl_req *rq)
{
	pthread_t th;

	*dr = (struct drill){.ctl = ctl, .rq = *rq};
	if (pthread_create(&th, NULL, drill_run, dr) != 0)
		return false;
	for (int i = 0; i < 100 && !dr->done; i++) {
		const struct timespec nap = {.tv_nsec = 100 * 1000 * 1000};

		nanosleep(&nap, NULL);
	}
	if (!dr->done)
		return false; /* the thread is left spinning: the test fails anyway */
	pthread_join(th, NULL);
	return true;
}

/* rq answered, within 10 s, with an answer that starts with `want`. */
static int
answer_starts(
	struct drill *dr, struct mrcd_ctl *ctl, const struct mrcd_ctl_req *rq, const char *want)
{
	MRC_T_ASSERT(answered(dr, ctl, rq), "no answer to command %d for host %d", (int)rq->cmd,
		rq->host);
	MRC_T_ASSERT(strncmp(dr->out, want, strlen(want)) == 0, "answer: %s", dr->out);
	return MRC_TEST_OK;
}

static int
test_drill_on_a_worker_that_does_not_answer(void)
{
	static struct late l;
	static struct drill dr;
	const struct mrcd_ctl_req rq = {
		.cmd = MRCD_CTL_FAIL, .host = 0, .has_qp = true, .qpn = MRCD_QPN_BASE};

	MRC_T_RUN(late_setup(&l, "ctll_fail"));
	/* the drill waits MRCD_CTL_WAIT_MS (2 s), then answers: not without end */
	MRC_T_RUN(answer_starts(&dr, &l.ctl, &rq, "ERR busy "));
	/* MRCD_CTL_WAIT_MS of time, not a count of naps, each of which lasts
	 * what the scheduler makes it */
	printf("  answered busy after %.3f s\n", dr.took_s);
	MRC_T_ASSERT(
		dr.took_s >= MRCD_CTL_WAIT_MS * 1e-3 && dr.took_s < MRCD_CTL_WAIT_MS * 1e-3 + 0.5,
		"busy after %.3f s, for a wait of %u ms", dr.took_s, MRCD_CTL_WAIT_MS);
	/* Served late, the request finds what it needs where it left it. */
	mrc_shard_take_requests(l.s[0]);
	MRC_T_ASSERT(mrc_shard_req_done(&l.ctl.req[0][0]), "served");
	late_free(&l);
	return MRC_TEST_OK;
}

static int
test_late_deny_keeps_its_selection(void)
{
	static struct late l;
	static struct drill dr;
	struct mrcd_ctl_req rq = {
		.cmd = MRCD_CTL_DENY, .host = 0, .has_qp = true, .qpn = MRCD_QPN_BASE, .ev = 0x11};

	MRC_T_RUN(late_setup(&l, "ctll_deny"));
	MRC_T_RUN(answer_starts(&dr, &l.ctl, &rq, "ERR not-running "));
	/* The next deny, another EV: refused while the first is queued... */
	rq.ev = 0x22;
	MRC_T_RUN(answer_starts(&dr, &l.ctl, &rq, "ERR busy "));
	/* ... and the first, still queued, names its own EV. */
	MRC_T_ASSERT(l.ctl.req[0][0].sel != NULL, "a selection");
	MRC_T_EQ(l.ctl.req[0][0].sel->ev, 0x11);
	late_free(&l);
	return MRC_TEST_OK;
}

/* Two hosts' path probes left queued: each shard writes the list of its own request. */
static int
test_late_probes_keep_their_lists(void)
{
	static struct late l;
	static struct drill dr;
	struct mrcd_ctl_req rq = {.cmd = MRCD_CTL_PROBE, .host = 0, .has_plane = true, .plane = 0};

	MRC_T_RUN(late_setup(&l, "ctll_probe"));
	MRC_T_RUN(answer_starts(&dr, &l.ctl, &rq, "ERR not-running "));
	rq.host = 1;
	MRC_T_RUN(answer_starts(&dr, &l.ctl, &rq, "ERR not-running "));
	MRC_T_ASSERT(l.ctl.req[0][0].list != NULL && l.ctl.req[1][0].list != NULL, "lists");
	MRC_T_ASSERT(l.ctl.req[0][0].list != l.ctl.req[1][0].list,
		"host 0's and host 1's queued probes write one list");
	late_free(&l);
	return MRC_TEST_OK;
}

static const struct mrc_test_case cases[] = {
	MRC_TEST_CASE(test_drill_on_a_worker_that_does_not_answer),
	MRC_TEST_CASE(test_late_deny_keeps_its_selection),
	MRC_TEST_CASE(test_late_probes_keep_their_lists),
};

MRC_TEST_MAIN("mrcd_ctl_late", cases)
