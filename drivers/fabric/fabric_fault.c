/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Faults: the states of planes, switches and links, loss and forced-mark
 * probabilities, and the log of every change.
 *
 * States are kept where they apply: a plane's in fab->plane_state (so
 * bringing a plane back restores each switch and link to its own state), a
 * switch's in the switch (checked when a packet arrives at it), a link's in
 * the link (checked when a packet is queued on it). The first check that
 * fails drops the packet there and counts it there, so counters say where
 * traffic died.
 *
 * The event log is one array: [0, n_applied) changes already made, in the
 * order they took effect; [n_applied, n_ev) scheduled ones, in time order,
 * which the poll applies when their time comes. A setter's change is made
 * at once and slotted in at the boundary. Only the control path (setters,
 * scenario loading) grows the array; the poll only advances n_applied.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric_priv.h"

int
fab_target_check(const struct mrc_fabric *fab, const struct mrc_fabric_target *t)
{
	if (t == NULL || t->dir > MRC_FABRIC_DIR_DOWN)
		return -EINVAL;
	if (t->elem != MRC_FABRIC_ELEM_FABRIC && t->plane >= fab->n_planes)
		return -EINVAL;
	switch (t->elem) {
	case MRC_FABRIC_ELEM_FABRIC:
	case MRC_FABRIC_ELEM_PLANE:
		return 0;
	case MRC_FABRIC_ELEM_T0:
		return t->a < fab->n_t0 ? 0 : -EINVAL;
	case MRC_FABRIC_ELEM_T1:
		return t->a < fab->n_t1 ? 0 : -EINVAL;
	case MRC_FABRIC_ELEM_LINK:
		return t->a < fab->n_t0 && t->b < fab->n_t1 ? 0 : -EINVAL;
	case MRC_FABRIC_ELEM_HOST_LINK:
		return t->a < fab->n_hosts ? 0 : -EINVAL;
	default:
		return -EINVAL;
	}
}

/* Call fn on every link `t` covers (for loss: a switch covers its egress links). */
static void
for_links(struct mrc_fabric *fab, const struct mrc_fabric_target *t,
	void (*fn)(struct fab_link *, const void *), const void *arg)
{
	const bool up = t->dir != MRC_FABRIC_DIR_DOWN, down = t->dir != MRC_FABRIC_DIR_UP;

	switch (t->elem) {
	case MRC_FABRIC_ELEM_FABRIC:
		for (unsigned int i = 0; i < fab->n_links; i++)
			fn(&fab->links[i], arg);
		break;
	case MRC_FABRIC_ELEM_PLANE:
		for (unsigned int i = 0; i < fab->links_per_plane; i++)
			fn(&fab->links[t->plane * fab->links_per_plane + i], arg);
		break;
	case MRC_FABRIC_ELEM_T0:
		for (unsigned int u = 0; u < fab->n_t1; u++)
			fn(&fab->links[fab_link_t0_t1(fab, t->plane, t->a, u)], arg);
		for (unsigned int h = 0; h < fab->n_hosts; h++)
			if (fab_t0_of(fab, h) == t->a)
				fn(&fab->links[fab_link_host_down(fab, t->plane, h)], arg);
		break;
	case MRC_FABRIC_ELEM_T1:
		for (unsigned int t0 = 0; t0 < fab->n_t0; t0++)
			fn(&fab->links[fab_link_t1_t0(fab, t->plane, t->a, t0)], arg);
		break;
	case MRC_FABRIC_ELEM_LINK:
		if (up)
			fn(&fab->links[fab_link_t0_t1(fab, t->plane, t->a, t->b)], arg);
		if (down)
			fn(&fab->links[fab_link_t1_t0(fab, t->plane, t->b, t->a)], arg);
		break;
	case MRC_FABRIC_ELEM_HOST_LINK:
		if (up)
			fn(&fab->links[fab_link_host_up(fab, t->plane, t->a)], arg);
		if (down)
			fn(&fab->links[fab_link_host_down(fab, t->plane, t->a)], arg);
		break;
	default:
		break;
	}
}

static void
link_state(struct fab_link *l, const void *arg)
{
	l->state = *(const uint8_t *)arg;
}

static void
link_loss(struct fab_link *l, const void *arg)
{
	fab_link_set_loss(l, *(const double *)arg);
}

static void
link_mark(struct fab_link *l, const void *arg)
{
	fab_link_set_mark(l, *(const double *)arg);
}

static void
link_drop_requests(struct fab_link *l, const void *arg)
{
	l->drop_requests = *(const uint32_t *)arg;
}

bool
fab_faults_active(const struct mrc_fabric *fab)
{
	for (unsigned int p = 0; p < fab->n_planes; p++)
		if (fab->plane_state[p] != MRC_FABRIC_UP)
			return true;
	for (unsigned int i = 0; i < fab->n_switches; i++)
		if (fab->sw[i].state != MRC_FABRIC_UP)
			return true;
	for (unsigned int i = 0; i < fab->n_links; i++) {
		const struct fab_link *l = &fab->links[i];

		if (l->state != MRC_FABRIC_UP || l->loss != fab->cfg.loss_prob || l->mark != 0.0 ||
			l->drop_requests != 0)
			return true;
	}
	return false;
}

/* Everything as the fabric was made: the end of every fault. */
static void
clear_faults(struct mrc_fabric *fab)
{
	for (unsigned int p = 0; p < fab->n_planes; p++)
		fab->plane_state[p] = MRC_FABRIC_UP;
	for (unsigned int i = 0; i < fab->n_switches; i++)
		fab->sw[i].state = MRC_FABRIC_UP;
	for (unsigned int i = 0; i < fab->n_links; i++) {
		struct fab_link *l = &fab->links[i];

		l->state = MRC_FABRIC_UP;
		fab_link_set_loss(l, fab->cfg.loss_prob);
		fab_link_set_mark(l, 0.0);
		l->drop_requests = 0;
	}
	fab_carrier_apply(fab, false);
}

static void
set_state(struct mrc_fabric *fab, const struct mrc_fabric_target *t, uint8_t st)
{
	switch (t->elem) {
	case MRC_FABRIC_ELEM_FABRIC:
		for (unsigned int p = 0; p < fab->n_planes; p++)
			fab->plane_state[p] = st;
		break;
	case MRC_FABRIC_ELEM_PLANE:
		fab->plane_state[t->plane] = st;
		break;
	case MRC_FABRIC_ELEM_T0:
		fab->sw[fab_sw_t0(fab, t->plane, t->a)].state = st;
		break;
	case MRC_FABRIC_ELEM_T1:
		fab->sw[fab_sw_t1(fab, t->plane, t->a)].state = st;
		break;
	default:
		for_links(fab, t, link_state, &st);
		break;
	}
	fab_carrier_apply(fab, false);
}

int
mrc_fabric_event_format(char *buf, size_t size, const struct mrc_fabric_event *ev)
{
	static const char *const act[] = {
		"up", "down", "blackhole", "loss", "mark", "drop_request", "cleared"};
	static const char *const dir[] = {"", " (up side)", " (down side)"};
	const struct mrc_fabric_target *t = &ev->target;
	const char *a = ev->action < RTE_DIM(act) ? act[ev->action] : "?";
	const char *d = t->dir < RTE_DIM(dir) ? dir[t->dir] : "";
	char what[64];

	switch (t->elem) {
	case MRC_FABRIC_ELEM_FABRIC:
		snprintf(what, sizeof(what), "fabric");
		break;
	case MRC_FABRIC_ELEM_PLANE:
		snprintf(what, sizeof(what), "plane %u", t->plane);
		break;
	case MRC_FABRIC_ELEM_T0:
		snprintf(what, sizeof(what), "plane %u t0 %u", t->plane, t->a);
		break;
	case MRC_FABRIC_ELEM_T1:
		snprintf(what, sizeof(what), "plane %u t1 %u", t->plane, t->a);
		break;
	case MRC_FABRIC_ELEM_LINK:
		snprintf(what, sizeof(what), "plane %u link t0 %u - t1 %u%s", t->plane, t->a, t->b,
			d);
		break;
	case MRC_FABRIC_ELEM_HOST_LINK:
		snprintf(what, sizeof(what), "plane %u host %u link%s", t->plane, t->a, d);
		break;
	default:
		snprintf(what, sizeof(what), "?");
		break;
	}
	if (ev->action == MRC_FABRIC_ACT_LOSS)
		return snprintf(buf, size, "%s loss %g", what, ev->loss);
	if (ev->action == MRC_FABRIC_ACT_MARK)
		return snprintf(buf, size, "%s mark %g", what, ev->mark);
	if (ev->action == MRC_FABRIC_ACT_CLEAR)
		return snprintf(buf, size, "fabric: every fault cleared");
	if (ev->action == MRC_FABRIC_ACT_DROP_REQUEST)
		return snprintf(
			buf, size, "%s drops the next %u endpoint requests", what, ev->count);
	return snprintf(buf, size, "%s %s", what, a);
}

/* One change's log line. */
static void
notice_log(const struct mrc_fabric *fab, const struct mrc_fabric_event *ev)
{
	char text[128];

	mrc_fabric_event_format(text, sizeof(text), ev);
	MRC_LOG(fabric, NOTICE, "%s: t=%" PRIu64 ".%09" PRIu64 " s: %s (%s)", fab->name,
		ev->t_ns / 1000000000u, ev->t_ns % 1000000000u, text, ev->source);
}

void
fab_event_notice(struct mrc_fabric *fab, const struct mrc_fabric_event *ev)
{
	const unsigned int head = fab->notice_head;

	if (!fab->log_deferred) {
		notice_log(fab, ev);
		return;
	}
	if (head - __atomic_load_n(&fab->notice_tail, __ATOMIC_ACQUIRE) >= FAB_NOTICES) {
		fab->cnt.events_unlogged++;
		return;
	}
	fab->notice[head & (FAB_NOTICES - 1)] = *ev;
	__atomic_store_n(&fab->notice_head, head + 1, __ATOMIC_RELEASE);
}

void
mrc_fabric_defer_log(struct mrc_fabric *fab, bool on)
{
	fab->log_deferred = on;
}

unsigned int
mrc_fabric_log_applied(struct mrc_fabric *fab)
{
	const unsigned int head = __atomic_load_n(&fab->notice_head, __ATOMIC_ACQUIRE);
	unsigned int tail = fab->notice_tail, n = 0;

	for (; tail != head; tail++, n++) {
		fab_timeline_note_log(fab, tail);
		notice_log(fab, &fab->notice[tail & (FAB_NOTICES - 1)]);
		/* the slot goes back only once read */
		__atomic_store_n(&fab->notice_tail, tail + 1, __ATOMIC_RELEASE);
	}
	fab_timeline_note_log(fab, tail);
	return n;
}

void
fab_apply_event(struct mrc_fabric *fab, struct mrc_fabric_event *ev)
{
	switch (ev->action) {
	case MRC_FABRIC_ACT_UP:
		set_state(fab, &ev->target, MRC_FABRIC_UP);
		break;
	case MRC_FABRIC_ACT_DOWN:
		set_state(fab, &ev->target, MRC_FABRIC_DOWN);
		break;
	case MRC_FABRIC_ACT_BLACKHOLE:
		set_state(fab, &ev->target, MRC_FABRIC_BLACKHOLE);
		break;
	case MRC_FABRIC_ACT_LOSS:
		for_links(fab, &ev->target, link_loss, &ev->loss);
		break;
	case MRC_FABRIC_ACT_MARK:
		for_links(fab, &ev->target, link_mark, &ev->mark);
		break;
	case MRC_FABRIC_ACT_DROP_REQUEST:
		for_links(fab, &ev->target, link_drop_requests, &ev->count);
		break;
	case MRC_FABRIC_ACT_CLEAR:
		clear_faults(fab);
		break;
	default:
		break;
	}
	ev->t_tsc = fab_ps_to_tsc(fab, ev->t_ns * PS_PER_NS);
	fab->cnt.events_applied++;
}

/* Room for `n` more events; 0 or -ENOSPC. */
static int
ev_reserve(struct mrc_fabric *fab, unsigned int n)
{
	unsigned int cap;
	struct mrc_fabric_event *a;

	if (fab->n_ev + n > MRC_FABRIC_MAX_EVENTS)
		return -ENOSPC;
	if (fab->n_ev + n <= fab->cap_ev)
		return 0;
	cap = RTE_MAX(fab->cap_ev * 2, fab->n_ev + n);
	cap = RTE_MAX(cap, 64u);
	cap = RTE_MIN(cap, (unsigned int)MRC_FABRIC_MAX_EVENTS);
	a = realloc(fab->ev, (size_t)cap * sizeof(*a));
	if (a == NULL)
		return -ENOSPC;
	fab->ev = a;
	fab->cap_ev = cap;
	return 0;
}

int
fab_event_insert(struct mrc_fabric *fab, const struct mrc_fabric_event *evs, unsigned int n)
{
	int rc = ev_reserve(fab, n);

	if (rc != 0)
		return rc;
	/*
	 * Insertion in time order; equal times keep their order (old first,
	 * then new). An event whose time has passed takes effect now, and the
	 * log says so: it stays in the order things happened.
	 */
	for (unsigned int k = 0; k < n; k++) {
		struct mrc_fabric_event e = evs[k];
		unsigned int i = fab->n_ev;

		e.t_ns = RTE_MAX(e.t_ns, fab->now_ps / PS_PER_NS);
		while (i > fab->n_applied && fab->ev[i - 1].t_ns > e.t_ns) {
			fab->ev[i] = fab->ev[i - 1];
			i--;
		}
		fab->ev[i] = e;
		fab->n_ev++;
	}
	return 0;
}

/* A setter's change: made now, recorded as applied. */
static int
apply_now(struct mrc_fabric *fab, const struct mrc_fabric_target *t, uint8_t action, double p)
{
	struct mrc_fabric_event ev;

	if (fab_target_check(fab, t) != 0)
		return -EINVAL;
	memset(&ev, 0, sizeof(ev));
	ev.t_ns = fab->now_ps / PS_PER_NS;
	ev.target = *t;
	ev.action = action;
	if (action == MRC_FABRIC_ACT_LOSS)
		ev.loss = p;
	else if (action == MRC_FABRIC_ACT_MARK)
		ev.mark = p;
	snprintf(ev.source, sizeof(ev.source), "api");
	if (ev_reserve(fab, 1) == 0) {
		memmove(&fab->ev[fab->n_applied + 1], &fab->ev[fab->n_applied],
			(size_t)(fab->n_ev - fab->n_applied) * sizeof(ev));
		fab->ev[fab->n_applied] = ev;
		fab->n_ev++;
		fab_apply_event(fab, &fab->ev[fab->n_applied]);
		notice_log(fab, &fab->ev[fab->n_applied]);
		fab->n_applied++;
	} else {
		fab_apply_event(fab, &ev); /* the log is full: apply, unrecorded */
		notice_log(fab, &ev);
	}
	return 0;
}

int
mrc_fabric_set_state(
	struct mrc_fabric *fab, const struct mrc_fabric_target *t, enum mrc_fabric_state st)
{
	static const uint8_t act[] = {
		MRC_FABRIC_ACT_UP, MRC_FABRIC_ACT_DOWN, MRC_FABRIC_ACT_BLACKHOLE};

	if ((unsigned int)st >= RTE_DIM(act))
		return -EINVAL;
	return apply_now(fab, t, act[st], 0.0);
}

int
mrc_fabric_set_loss(struct mrc_fabric *fab, const struct mrc_fabric_target *t, double p)
{
	if (!(p >= 0.0 && p <= 1.0))
		return -EINVAL;
	return apply_now(fab, t, MRC_FABRIC_ACT_LOSS, p);
}

int
mrc_fabric_set_mark(struct mrc_fabric *fab, const struct mrc_fabric_target *t, double p)
{
	if (!(p >= 0.0 && p <= 1.0))
		return -EINVAL;
	return apply_now(fab, t, MRC_FABRIC_ACT_MARK, p);
}

int
mrc_fabric_set_plane(struct mrc_fabric *fab, unsigned int plane, enum mrc_fabric_state st)
{
	const struct mrc_fabric_target t = {
		.elem = MRC_FABRIC_ELEM_PLANE, .plane = (uint8_t)RTE_MIN(plane, 0xffu)};

	return mrc_fabric_set_state(fab, &t, st);
}

unsigned int
mrc_fabric_event_log(const struct mrc_fabric *fab, const struct mrc_fabric_event **events)
{
	if (events != NULL)
		*events = fab->ev;
	return fab->n_applied;
}

unsigned int
mrc_fabric_events_pending(const struct mrc_fabric *fab)
{
	return fab->n_ev - fab->n_applied;
}
