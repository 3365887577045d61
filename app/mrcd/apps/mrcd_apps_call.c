/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: the control thread (mrcd_apps_ctl.h). Runs a function on a
 * worker's lcore through its shard's request ring and waits for it, and
 * gives the grace period of a host's region table (mrcd_apps_host_barrier).
 * Owns nothing: each function it runs lives with what that function changes.
 */

#include <errno.h>
#include <sched.h>

#include <rte_pause.h>

#include "mrc_shard.h"
#include "mrcd_apps.h"
#include "mrcd_apps_ctl.h"
#include "mrcd_apps_priv.h"

/* Give the CPU up after a few looks: the worker may share this thread's CPU. */
static inline void
wait_a_little(unsigned int spins)
{
	if (spins < 64)
		rte_pause();
	else
		sched_yield();
}

/*
 * Run fn on the lcore of host h's shard k: through its request ring while the
 * workers run. A full ring (other threads ask the shard too) is waited out,
 * never given up: what the callers run must run before they go on (a QP out
 * of the shard before its memory is freed, a key retired before its pages are
 * unmapped), and the worker empties the ring every pass.
 */
int
mrcd_apps_call_shard(struct mrcd_apps *a, unsigned int h, unsigned int k, mrc_shard_call_fn fn,
	struct mrcd_apps_call *c)
{
	struct mrcd_shardctx *sc = &a->d->host[h].shard[k];
	struct mrc_shard_req r = {.op = MRC_SHARD_CALL, .fn = fn, .arg = c};
	int rc;

	if (__atomic_load_n(&a->d->phase, __ATOMIC_ACQUIRE) == MRCD_EXIT)
		return fn(sc->rt, c); /* the workers are gone: this thread is the only one */
	for (unsigned int spins = 0; (rc = mrc_shard_request(sc->rt, &r)) == -ENOSPC; spins++)
		wait_a_little(spins);
	if (rc != 0)
		return rc;
	/*
	 * A worker serves its ring every pass (microseconds) and never waits on us.
	 * Spin briefly, then give the CPU up between looks: the worker may share
	 * this thread's CPU (the main lcore and worker 0 on one core, as tests and
	 * small machines run), and spinning would keep it off until the scheduler
	 * preempts us, milliseconds per call.
	 */
	for (unsigned int spins = 0; !mrc_shard_req_done(&r); spins++)
		wait_a_little(spins);
	return r.rc;
}

/* On the shard that owns QP q (mrcd_apps_qpn_shard): it alone consumes its rings. */
int
mrcd_apps_call_owner(
	struct mrcd_apps *a, struct mrcd_app_qp *q, mrc_shard_call_fn fn, struct mrcd_apps_call *c)
{
	return mrcd_apps_call_shard(a, q->host, q->shard, fn, c);
}

static int
on_nothing(struct mrc_shard *s, void *arg)
{
	RTE_SET_USED(s);
	RTE_SET_USED(arg);
	return 0;
}

/*
 * Every shard of host h from `first` on has started a pass since this call
 * began: whatever it looked up in the region table before (a key and the
 * region it names) it is done with. The host's region table is one table every shard
 * reads (mrcd_apps_priv.h), so this is the grace period between taking a
 * region out of it and unmapping its pages.
 */
void
mrcd_apps_host_barrier(struct mrcd_apps *a, unsigned int h, unsigned int first)
{
	struct mrcd_apps_call c = {.a = a};

	/* each call waits out a full request ring: no shard's pass is skipped */
	for (unsigned int k = first; k < a->d->host[h].n_shards; k++)
		(void)mrcd_apps_call_shard(a, h, k, on_nothing, &c);
}
