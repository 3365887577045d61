/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * The generator's posts and receives over a real QP pair (app/mrcd/gen):
 *   - a flow made ready at setup is wanted from its first post, not from
 *     setup. Setup runs before the fabric and the workers start; a
 *     completion time counted from it carried that start-up (0.35 ms idle,
 *     0.8 ms loaded, in the incast benchmark) on every flow's first
 *     messages;
 *   - a flow with more message buffers than messages in flight ([profile]
 *     buffers) writes, places and checks message n in slot n % buffers at
 *     both ends.
 */

#include <stdlib.h>

#include "mrc_test.h"
#include "mrc_test_qp.h"
#include "mrcd_daemon.h"
#include "mrcd_sched.h"

#define MS 1000000ull /* MRC_TEST_HZ ticks */

/* The EAL and a connected QP pair on one plane: host 0 writes to host 1. */
static int
pair_up(struct mrc_test_pair *p)
{
	struct mrc_test_pair_cfg pc;
	const int rc = mrc_test_eal_init("test_mrcd_sched");

	if (rc != 0)
		return rc;
	mrc_test_pair_cfg_defaults(&pc);
	pc.n_planes = 1;
	MRC_T_EQ(mrc_test_pair_create(p, &pc), 0);
	return MRC_TEST_OK;
}

static int
test_first_post_stamped_at_post(void)
{
	static struct mrc_test_pair p;
	static struct mrcd_gen_params g;
	static struct mrcd_flow f;
	static uint64_t post_tsc[2];
	static uint32_t send_flows[1];
	struct mrcd_daemon *d = calloc(1, sizeof(*d));
	const uint64_t setup = 1 * MS, first_pass = 6 * MS;
	const int rc = pair_up(&p);

	if (rc != MRC_TEST_OK) {
		free(d);
		return rc;
	}
	MRC_T_ASSERT(d != NULL, "daemon");

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

static int
test_messages_cycle_through_buffers(void)
{
	static struct mrc_test_pair p;
	static struct mrcd_gen_params g;
	static struct mrcd_flow f;
	static uint64_t post_tsc[2];
	static struct mrcd_hist hist;
	struct mrc_cqe e[8];
	const uint32_t len = 4096, rounds = 4;
	const int rc = pair_up(&p);

	if (rc != MRC_TEST_OK)
		return rc;

	/* Two 4 KiB writes in flight, five slots at each end, every byte checked. */
	mrcd_profile_defaults(&g.p);
	g.p.msg_kb = 4;
	g.p.outstanding = 2;
	g.p.buffers = 5;
	g.p.verify = true;
	mrcd_profile_derive(&g.p);
	MRC_T_EQ(mrcd_flow_buffers(&g.p), 5u);
	MRC_T_EQ(mrcd_flow_slot_bytes(&g.p), 5u * len);
	f.id = 7;
	f.rx_id = 7;
	f.rx_src_local = 0;
	f.qp = p.h[0].qp;
	f.src_buf = p.h[0].mem;
	f.src_key = p.h[0].key;
	f.dst_off = (uint64_t)(uintptr_t)p.h[1].mem;
	f.dst_key = p.h[1].key;
	f.dst_buf = p.h[1].mem;
	f.post_tsc = post_tsc;

	for (uint32_t r = 0; r < rounds; r++) {
		const uint64_t first = f.posted;

		MRC_T_EQ(mrcd_gen_post(&g.p, &f, p.now, MRC_TEST_HZ, false), 2);
		/* Written where its number says: slot n % 5, not n % 2. */
		for (uint64_t n = first; n < f.posted; n++)
			MRC_T_ASSERT(mrcd_gen_check(f.src_buf + (n % 5) * len, len, f.id, n),
				"message %" PRIu64 " not in source slot %" PRIu64, n, n % 5);
		mrc_test_pairs_run(&p, 1, 100000);
		const unsigned int sent = mrc_cq_poll(p.h[0].cq, e, RTE_DIM(e));

		MRC_T_EQ(sent, 2u);
		for (unsigned int k = 0; k < sent; k++)
			mrcd_gen_sent(&g, &f, &e[k], p.now, MRC_TEST_HZ, &hist);
		const unsigned int got = mrc_cq_poll(p.h[1].cq, e, RTE_DIM(e));

		MRC_T_EQ(got, 2u);
		for (unsigned int k = 0; k < got; k++)
			mrcd_gen_received(&g, &f, &e[k]);
	}
	/* Eight messages over five slots: placed where the receiver looks, every one checked. */
	MRC_T_U64_EQ(f.verified_msgs, 2ull * rounds);
	MRC_T_U64_EQ(f.verify_errors, 0);
	for (uint64_t n = 3; n < 2ull * rounds; n++)
		MRC_T_ASSERT(mrcd_gen_check(p.h[1].mem + (n % 5) * len, len, f.id, n),
			"message %" PRIu64 " not in destination slot %" PRIu64, n, n % 5);

	mrc_test_pair_destroy(&p);
	return MRC_TEST_OK;
}

static const struct mrc_test_case cases[] = {
	MRC_TEST_CASE(test_first_post_stamped_at_post),
	MRC_TEST_CASE(test_messages_cycle_through_buffers),
};

MRC_TEST_MAIN("mrcd_sched", cases)
