/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * The controller's hold on a shard's EVs (struct mrc_shard_ev_sel in
 * mrc_shard.h): deny and re-admit on the owner lcore, from the request
 * ring, and the EV event ring that reports EVs going out of use and back.
 *
 * Denying an active EV trades it with a backup of its plane (lib/ev), so
 * the slot it was in holds another EV afterwards, which may be on the same
 * path: every slot is looked at again until its EV is not one to change.
 * Each deny or allow changes one EV for good, so the walk ends.
 */

#include <errno.h>
#include <string.h>

#include <rte_ring_elem.h>

#include "mrc_ev.h"
#include "mrc_shard_priv.h"

/* Is the EV in `slot` of `qp` on a path or plane `sel` names? */
static bool
on_sel(const struct mrc_shard_ev_sel *sel, const struct mrc_qp *qp, const struct mrc_ev_pool *pool,
	int slot)
{
	const unsigned int plane = mrc_ev_plane(pool, slot);
	int t1;

	if (plane >= MRC_SHARD_MAX_PLANES)
		return false;
	if ((sel->planes >> plane) & 1)
		return true;
	if (sel->t1[plane] == 0)
		return false;
	t1 = mrc_qp_ev_t1(qp, mrc_ev_value(pool, slot));
	return t1 >= 0 && t1 < 64 && ((sel->t1[plane] >> t1) & 1);
}

static bool
sel_empty(const struct mrc_shard_ev_sel *sel)
{
	if (sel->planes != 0)
		return false;
	for (unsigned int p = 0; p < MRC_SHARD_MAX_PLANES; p++)
		if (sel->t1[p] != 0)
			return false;
	return true;
}

/* `sel`'s paths added to (add) or taken from (!add) the table `t`. */
static void
sel_merge(struct mrc_shard_ev_sel *t, const struct mrc_shard_ev_sel *sel, bool add)
{
	t->planes = add ? (uint8_t)(t->planes | sel->planes) : (uint8_t)(t->planes & ~sel->planes);
	for (unsigned int p = 0; p < MRC_SHARD_MAX_PLANES; p++)
		t->t1[p] = add ? t->t1[p] | sel->t1[p] : t->t1[p] & ~sel->t1[p];
}

/* Deny every EV of `qp` that `sel` names; how many went DENIED. */
static uint32_t
deny_on(const struct mrc_shard_ev_sel *sel, struct mrc_qp *qp)
{
	struct mrc_ev_pool *pool = mrc_qp_ev_pool_owner(qp);
	uint32_t n = 0;

	if (pool == NULL)
		return 0;
	for (int i = 0; i < mrc_ev_n_slots(pool); i++)
		while (mrc_ev_state(pool, i) != MRC_EV_DENIED && on_sel(sel, qp, pool, i)) {
			mrc_ev_deny(pool, i);
			n++;
		}
	return n;
}

/* Re-admit the EVs of `qp` that `sel` names and the table `still` does not; how many. */
static uint32_t
allow_on(
	const struct mrc_shard_ev_sel *sel, const struct mrc_shard_ev_sel *still, struct mrc_qp *qp)
{
	struct mrc_ev_pool *pool = mrc_qp_ev_pool_owner(qp);
	uint32_t n = 0;

	if (pool == NULL)
		return 0;
	for (int i = 0; i < mrc_ev_n_slots(pool); i++)
		while (mrc_ev_state(pool, i) == MRC_EV_DENIED && on_sel(sel, qp, pool, i) &&
			!on_sel(still, qp, pool, i)) {
			mrc_ev_allow(pool, i);
			n++;
		}
	return n;
}

/*
 * Would `qp` keep an EV that is not DENIED if the table `t` were denied and,
 * with one_ev, also the EV `ev`?
 */
static bool
keeps_one(const struct mrc_shard_ev_sel *t, const struct mrc_qp *qp, bool one_ev, uint32_t ev)
{
	const struct mrc_ev_pool *pool = mrc_qp_ev_pool(qp);

	if (pool == NULL)
		return true;
	for (int i = 0; i < mrc_ev_n_slots(pool); i++)
		if (mrc_ev_state(pool, i) != MRC_EV_DENIED && !on_sel(t, qp, pool, i) &&
			!(one_ev && mrc_ev_value(pool, i) == ev))
			return true;
	return false;
}

/* The first QP of the shard that would be left no EV, or NULL. */
static struct mrc_shard_slot *
stranded(struct mrc_shard *s, const struct mrc_shard_ev_sel *sel)
{
	struct mrc_shard_ev_sel t = s->deny;

	if (sel->one_ev) {
		struct mrc_shard_slot *sl = mrc_shard_slot_of(s, sel->qpn);

		return keeps_one(&t, sl->qp, true, sel->ev) ? NULL : sl;
	}
	sel_merge(&t, sel, true);
	for (uint32_t k = 0; k < s->cfg.max_qps; k++) {
		struct mrc_shard_slot *sl = &s->qps[k];

		if (sl->qp != NULL && !keeps_one(&t, sl->qp, false, 0))
			return sl;
	}
	return NULL;
}

/* one_ev: the QP's slot and the EV's slot, or -ENOENT. */
static int
find_one(struct mrc_shard *s, const struct mrc_shard_ev_sel *sel, struct mrc_shard_slot **slp)
{
	struct mrc_shard_slot *sl = mrc_shard_slot_of(s, sel->qpn);
	int slot;

	if (sl == NULL || sl->qp == NULL || mrc_qp_ev_pool(sl->qp) == NULL)
		return -ENOENT;
	slot = mrc_ev_find(mrc_qp_ev_pool(sl->qp), sel->ev);
	if (slot < 0)
		return -ENOENT;
	*slp = sl;
	return slot;
}

/* MRC_SHARD_EV_LIST: the EVs of the shard's QPs on sel's paths. */
static int
list_on(struct mrc_shard *s, struct mrc_shard_req *r)
{
	for (uint32_t k = 0; k < s->cfg.max_qps; k++) {
		const struct mrc_qp *qp = s->qps[k].qp;
		const struct mrc_ev_pool *pool = qp != NULL ? mrc_qp_ev_pool(qp) : NULL;

		for (int i = 0; pool != NULL && i < mrc_ev_n_slots(pool); i++) {
			if (!on_sel(r->sel, qp, pool, i))
				continue;
			if (r->n_evs < r->list_max)
				r->list[r->n_evs] = (struct mrc_shard_ev_ref){
					.qpn = mrc_qp_qpn(qp),
					.ev = mrc_ev_value(pool, i),
					.state = (uint8_t)mrc_ev_state(pool, i),
				};
			r->n_evs++;
		}
	}
	return 0;
}

/* MRC_SHARD_EV_PROBE and _RESULT: the operator's probe of one EV of a QP. */
static int
probe_one(struct mrc_shard *s, struct mrc_shard_req *r)
{
	struct mrc_shard_slot *sl = mrc_shard_slot_of(s, r->sel->qpn);
	int rc;

	if (sl == NULL || sl->qp == NULL)
		return -ENOENT;
	if (r->op == MRC_SHARD_EV_PROBE_RESULT)
		return mrc_qp_op_probe_result(sl->qp, r->sel->ev, &r->rtt_ns);
	rc = mrc_qp_op_probe(sl->qp, r->sel->ev, s->now_tsc);
	if (rc == 0)
		mrc_shard_mark_busy(s, sl); /* so its next tx burst sends the probe */
	return rc;
}

static int
ev_request(struct mrc_shard *s, struct mrc_shard_req *r)
{
	const struct mrc_shard_ev_sel *sel = r->sel;
	struct mrc_shard_slot *sl = NULL, *bad;
	int slot = -1;

	r->n_evs = 0;
	if (sel == NULL)
		return -EINVAL;
	if (r->op == MRC_SHARD_EV_LIST)
		return sel->one_ev || r->list == NULL ? -EINVAL : list_on(s, r);
	if (r->op == MRC_SHARD_EV_PROBE || r->op == MRC_SHARD_EV_PROBE_RESULT)
		return sel->one_ev ? probe_one(s, r) : -EINVAL;
	if (sel->one_ev) {
		slot = find_one(s, sel, &sl);
		if (slot < 0)
			return slot;
	}
	if (r->op != MRC_SHARD_EV_ALLOW) {
		bad = stranded(s, sel);
		if (bad != NULL) {
			r->qpn_out = mrc_qp_qpn(bad->qp);
			return -EDEADLK;
		}
		if (r->op == MRC_SHARD_EV_CHECK)
			return 0;
	}
	if (sel->one_ev) {
		struct mrc_ev_pool *pool = mrc_qp_ev_pool_owner(sl->qp);
		const bool denied = mrc_ev_state(pool, slot) == MRC_EV_DENIED;

		if (r->op == MRC_SHARD_EV_DENY) {
			mrc_ev_deny(pool, slot);
			r->n_evs = denied ? 0 : 1;
			s->cnt.ev_denied += r->n_evs;
			return 0;
		}
		if (on_sel(&s->deny, sl->qp, pool, slot))
			return -EACCES;
		mrc_ev_allow(pool, slot);
		r->n_evs = denied ? 1 : 0;
		s->cnt.ev_allowed += r->n_evs;
		return 0;
	}
	if (sel_empty(sel))
		return 0;
	sel_merge(&s->deny, sel, r->op == MRC_SHARD_EV_DENY);
	for (uint32_t k = 0; k < s->cfg.max_qps; k++) {
		struct mrc_shard_slot *q = &s->qps[k];

		if (q->qp == NULL)
			continue;
		if (r->op == MRC_SHARD_EV_DENY)
			r->n_evs += deny_on(sel, q->qp);
		else
			r->n_evs += allow_on(sel, &s->deny, q->qp);
		/* A QP with nothing on the busy list may now have resends to place elsewhere. */
		mrc_shard_mark_busy(s, q);
	}
	if (r->op == MRC_SHARD_EV_DENY)
		s->cnt.ev_denied += r->n_evs;
	else
		s->cnt.ev_allowed += r->n_evs;
	return 0;
}

void
mrc_shard_ev_request(struct mrc_shard *s, struct mrc_shard_req *r)
{
	r->rc = ev_request(s, r);
}

void
mrc_shard_ev_denied(const struct mrc_shard *s, struct mrc_shard_ev_sel *out)
{
	*out = s->deny;
}

/* struct mrc_ev_notify's fn: an EV of the slot's QP went out of use or back. */
static void
ev_changed(void *ctx, uint32_t ev, uint8_t plane, uint8_t from, uint8_t to)
{
	struct mrc_shard_slot *sl = ctx;
	struct mrc_shard *s = sl->shard;
	const int t1 = mrc_qp_ev_t1(sl->qp, ev);
	struct mrc_shard_ev_event e = {
		.tsc = s->now_tsc,
		.qpn = mrc_qp_qpn(sl->qp),
		.ev = ev,
		.host = s->cfg.host_id,
		.shard = (uint8_t)s->cfg.shard_index,
		.plane = plane,
		.t1 = t1 < 0 ? 0xff : (uint8_t)t1,
		.from = from,
		.to = to,
	};

	if (plane < s->paths.n_planes) {
		const unsigned int col =
			t1 >= 0 && t1 < s->paths.n_t1 ? (unsigned int)t1 : s->paths.n_t1;
		const struct mrc_path_counters *c =
			&s->paths.c[plane * mrc_path_cols(&s->paths) + col];
		uint64_t lost = 0;

		for (unsigned int k = 0; k < MRC_REL_LOSS_MAX; k++)
			lost += c->lost[k];
		e.path_lost = (uint32_t)lost;
		e.path_trims = (uint32_t)c->trims;
		e.path_ecn = (uint32_t)c->ecn_echoes;
	}
	if (rte_ring_sp_enqueue_elem(s->cfg.ev_events, &e, sizeof(e)) == 0)
		s->cnt.ev_events++;
	else
		s->cnt.ev_events_dropped++;
}

void
mrc_shard_ev_attach(struct mrc_shard *s, struct mrc_shard_slot *sl)
{
	struct mrc_ev_pool *pool = mrc_qp_ev_pool_owner(sl->qp);

	if (pool == NULL)
		return;
	sl->notify.fn = ev_changed;
	sl->notify.ctx = sl;
	mrc_ev_set_notify(pool, s->cfg.ev_events != NULL ? &sl->notify : NULL);
	if (!sel_empty(&s->deny))
		s->cnt.ev_denied += deny_on(&s->deny, sl->qp);
}

void
mrc_shard_ev_detach(struct mrc_shard_slot *sl)
{
	struct mrc_ev_pool *pool = mrc_qp_ev_pool_owner(sl->qp);

	if (pool != NULL)
		mrc_ev_set_notify(pool, NULL);
}
