/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * The generator's schedule (app/mrcd/gen/mrcd_sched.c): a flow made ready
 * at setup is wanted from its first post, not from setup. Setup runs
 * before the fabric and the workers start; a completion time counted from
 * it carried that start-up (0.35 ms idle, 0.8 ms loaded, in the incast
 * benchmark) on every flow's first messages.
 */

#include <stdlib.h>

#include "mrc_test.h"
#include "mrc_test_qp.h"
#include "mrcd_daemon.h"
#include "mrcd_sched.h"

#define MS 1000000ull /* MRC_TEST_HZ ticks */

static int
test_first_post_stamped_at_post(void)
{
	static struct mrc_test_pair p;
	static struct mrcd_gen_params g;
	static struct mrcd_flow f;
	static uint64_t post_tsc[2];
	static uint32_t send_flows[1];
	struct mrc_test_pair_cfg pc;
	struct mrcd_daemon *d = calloc(1, sizeof(*d));
	const uint64_t setup = 1 * MS, first_pass = 6 * MS;
	int rc = mrc_test_eal_init("test_mrcd_sched");

	if (rc != 0)
		return rc;
	MRC_T_ASSERT(d != NULL, "daemon");
	mrc_test_pair_cfg_defaults(&pc);
	pc.n_planes = 1;
	MRC_T_EQ(mrc_test_pair_create(&p, &pc), 0);

	/* One unpaced flow of two 4 KiB writes in flight, host 0 to host 1. */
	mrcd_profile_defaults(&g.p);
	g.p.msg_kb = 4;
	g.p.outstanding = 2;
	g.p.verify = false;
	mrcd_profile_derive(&g.p);
	d->prof = g.p;
	d->gen_pub = &g;
	d->hz = MRC_TEST_HZ;
	d->n_flows = d->flow_cap = 1;
	d->flows = &f;
	d->host[0].n_shards = 1;
	d->host[0].shard[0].n_send = 1;
	d->host[0].shard[0].send_flows = send_flows;
	f.qp = p.h[0].qp;
	f.src_buf = p.h[0].mem;
	f.src_key = p.h[0].key;
	f.dst_off = (uint64_t)(uintptr_t)p.h[1].mem;
	f.dst_key = p.h[1].key;
	f.post_tsc = post_tsc;

	MRC_T_EQ(mrcd_sched_init(d, 0, 0, setup), 0);
	MRC_T_EQ(f.queued, MRCD_FLOW_READY);
	/* The worker's first pass, 5 ms after setup: both messages are posted now. */
	MRC_T_EQ(mrcd_gen_post(&g.p, &f, first_pass, MRC_TEST_HZ, false), 2);
	MRC_T_U64_EQ(*mrcd_flow_post_tsc(&f, 0), first_pass);
	MRC_T_U64_EQ(*mrcd_flow_post_tsc(&f, 1), first_pass);

	mrcd_sched_free(d, 0, 0);
	mrc_test_pair_destroy(&p);
	free(d);
	return MRC_TEST_OK;
}

static const struct mrc_test_case cases[] = {
	MRC_TEST_CASE(test_first_post_stamped_at_post),
};

MRC_TEST_MAIN("mrcd_sched", cases)
