/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: the main lcore (setup, SIGHUP, every control tick, teardown).
 *
 * A reload's change to the profile keys that apply live (mrcd_reload.h):
 * control builds a new parameter block (mrcd_gen_params) and publishes it
 * through one pointer, d->gen_pub; each shard's worker takes it at its
 * next pass (mrcd_sched_take) and says so in its gen_taken; control frees
 * the block before once every shard has. No lock, and nothing allocated or
 * freed on a worker. A message keeps the shape it was posted with: the
 * block carries the shape before the last change, and each flow the
 * number of its first message of the new one, so a second change of the
 * shape waits until every message of the first's old shape has arrived.
 *
 * Across processes (one mrcd per host), each takes the same SIGHUP at its
 * own moment, so a receiver cannot know which message is the first of a
 * sender's new sizes: it takes the length from the write itself (any
 * whole KiB up to a slot) and checks every byte of it, which needs no
 * agreement and no waiting; only a change of `verify` is refused there.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "mrcd_daemon.h"
#include "mrcd_log.h"
#include "mrcd_reload.h"

int
mrcd_reload_params_init(struct mrcd_daemon *d)
{
	struct mrcd_gen_params *g = calloc(1, sizeof(*g));

	if (g == NULL)
		return -ENOMEM;
	g->p = d->prof;
	g->before = d->prof;
	d->gen_pub = g;
	return 0;
}

void
mrcd_reload_params_free(struct mrcd_daemon *d)
{
	free(d->gen_old);
	free(d->gen_pub);
	d->gen_old = d->gen_pub = NULL;
}

/* Has every shard taken the published block? */
static bool
all_taken(const struct mrcd_daemon *d)
{
	for (unsigned int h = 0; h < d->n_hosts; h++)
		for (unsigned int k = 0; k < d->host[h].n_shards; k++)
			if (__atomic_load_n(&d->host[h].shard[k].gen_taken, __ATOMIC_ACQUIRE) !=
				d->gen_pub)
				return false;
	return true;
}

int
mrcd_reload_params_check(struct mrcd_daemon *d, const struct mrcd_profile *next, bool shape,
	struct mrcd_gen_params **out, char *what, size_t len)
{
	const struct mrcd_gen_params *cur = d->gen_pub;
	struct mrcd_gen_params *g;

	*out = NULL;
	if (__atomic_load_n(&d->phase, __ATOMIC_ACQUIRE) != MRCD_RUN) {
		snprintf(what, len, "the run is ending: its flows are draining");
		return -ECANCELED;
	}
	if (d->gen_old != NULL) {
		snprintf(what, len,
			"the workers have not all taken the previous reload's parameters yet; try "
			"again in a moment");
		return -EBUSY;
	}
	if (mrcd_reload_busy(d)) {
		/* a flow being added takes the shape in force when its sender lists it */
		snprintf(what, len,
			"the previous reload's flows are still being changed; try again in a "
			"moment");
		return -EBUSY;
	}
	for (uint32_t i = 0; shape && i < d->n_flows; i++) {
		const struct mrcd_flow *f = &d->flows[i];
		uint64_t from, in;

		if (f->gone)
			continue;
		if (f->src_local < 0 || f->dst_local < 0) {
			/*
			 * The sizes need no agreement across processes (a receiver takes
			 * a message's length from its write, mrcd_gen_received) but the
			 * check does: a sender that stops filling before its receiver
			 * stops checking would fail every message in between.
			 */
			if (next->verify != cur->p.verify) {
				snprintf(what, len,
					"flow host %u -> %u (q %u) has its other end in another "
					"process, whose receivers check by the verify in force "
					"there, taken at its own moment",
					f->src, f->dst, f->q);
				return -EXDEV;
			}
			/* No older shape to wait for: the sender's completions count what they
			 * carried. */
			continue;
		}
		/* Taken by every shard (above): shape_from is this block's. */
		from = __atomic_load_n(&f->shape_from, __ATOMIC_RELAXED);
		in = __atomic_load_n(&f->recv_seq, __ATOMIC_RELAXED);
		if (in < from) {
			snprintf(what, len,
				"flow host %u -> %u (q %u) still has %" PRIu64
				" messages of the sizes before the last reload on their way; try "
				"again in a moment",
				f->src, f->dst, f->q, from - in);
			return -EBUSY;
		}
	}
	g = calloc(1, sizeof(*g));
	if (g == NULL) {
		snprintf(what, len, "out of memory");
		return -ENOMEM;
	}
	/* What the workers read of it: the live keys; a slot stays the start's size. */
	g->p = d->prof;
	g->p.msg_kb = next->msg_kb;
	memcpy(g->p.size_mix, next->size_mix, sizeof(g->p.size_mix));
	g->p.n_mix = next->n_mix;
	memcpy(g->p.mix_kb, next->mix_kb, sizeof(g->p.mix_kb));
	memcpy(g->p.mix_cum, next->mix_cum, sizeof(g->p.mix_cum));
	g->p.verify = next->verify;
	g->p.rate_gbps = next->rate_gbps;
	g->p.messages = next->messages;
	g->p.active_flows = next->active_flows;
	g->before = shape ? cur->p : cur->before;
	g->shape_gen = cur->shape_gen + (shape ? 1 : 0);
	*out = g;
	return 0;
}

void
mrcd_reload_params_publish(struct mrcd_daemon *d, struct mrcd_gen_params *g, unsigned int first_new)
{
	/* Not in any shard's list yet: their senders list them after taking g. */
	for (unsigned int i = first_new; i < d->n_flows; i++)
		d->flows[i].shape_gen = g->shape_gen;
	d->gen_old = d->gen_pub;
	__atomic_store_n(&d->gen_pub, g, __ATOMIC_RELEASE);
	/* Control's copy, which the summary and telemetry show (max_kb: the slot). */
	d->prof.msg_kb = g->p.msg_kb;
	memcpy(d->prof.size_mix, g->p.size_mix, sizeof(d->prof.size_mix));
	d->prof.n_mix = g->p.n_mix;
	memcpy(d->prof.mix_kb, g->p.mix_kb, sizeof(d->prof.mix_kb));
	memcpy(d->prof.mix_cum, g->p.mix_cum, sizeof(d->prof.mix_cum));
	d->prof.verify = g->p.verify;
	d->prof.rate_gbps = g->p.rate_gbps;
	d->prof.messages = g->p.messages;
	d->prof.active_flows = g->p.active_flows;
}

void
mrcd_reload_params_tick(struct mrcd_daemon *d)
{
	if (d->gen_old == NULL || !all_taken(d))
		return;
	free(d->gen_old);
	d->gen_old = NULL;
	MRCD_LOG(ctrl, NOTICE, "reload: every worker took the generator's new parameters");
}
