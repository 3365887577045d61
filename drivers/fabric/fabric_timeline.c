/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * A fault timeline replaced while the fabric runs (mrc_fabric.h, "A fault
 * timeline replaced"). Two sides:
 *
 *   offerer (control)  parses the file into a timeline, allocates the
 *                      event log the fabric will use from then on (full
 *                      size, so the poll never allocates), and publishes
 *                      the timeline in fab->offer (release);
 *   poller             takes it with one exchange (so an offer is taken
 *                      once, or withdrawn, never both), builds the new log
 *                      in the offered array, swaps it with its own, and
 *                      hands its old array back inside the timeline
 *                      before saying `taken` (release).
 *
 * The copy of the applied log is the one cost on the poller's side, once
 * per reload (at most MRC_FABRIC_MAX_EVENTS entries).
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric_priv.h"

struct mrc_fabric_timeline {
	struct mrc_fabric_event *log; /* MRC_FABRIC_MAX_EVENTS; after the take: the old log */
	struct mrc_fabric_event *add; /* the new changes, times from its t = 0 */
	unsigned int n_add;
	char source[40];     /* the clear event's source: "reload:<file>" */
	uint64_t taken_ns;   /* the poller writes before `taken` */
	unsigned int taken;  /* 0, then 1 (release) once the poller is done with it */
	unsigned int offers; /* offered (the offerer's own count: at most one) */
};

struct mrc_fabric_timeline *
mrc_fabric_timeline_load(const struct mrc_fabric *fab, const char *path, char *why, size_t len)
{
	struct mrc_fabric_timeline *tl = calloc(1, sizeof(*tl));
	const bool none = path == NULL || path[0] == '\0';
	const char *tag;
	int rc;

	if (tl != NULL) {
		tl->log = calloc(MRC_FABRIC_MAX_EVENTS, sizeof(*tl->log));
		tl->add = calloc(MRC_FABRIC_MAX_EVENTS, sizeof(*tl->add));
	}
	if (tl == NULL || tl->log == NULL || tl->add == NULL) {
		snprintf(why, len, "%s: out of memory", none ? "(no scenario)" : path);
		mrc_fabric_timeline_free(tl);
		return NULL;
	}
	/* One entry stays free for the clear event: the log must hold it and every new one. */
	rc = none ? 0
		  : fab_scenario_parse(
			    fab, path, tl->add, &tl->n_add, MRC_FABRIC_MAX_EVENTS - 1, why, len);
	if (rc != 0) {
		mrc_fabric_timeline_free(tl);
		return NULL;
	}
	tag = none ? "none" : strrchr(path, '/') != NULL ? strrchr(path, '/') + 1 : path;
	snprintf(tl->source, sizeof(tl->source), "reload:%s", tag);
	return tl;
}

unsigned int
mrc_fabric_timeline_events(const struct mrc_fabric_timeline *tl)
{
	return tl->n_add;
}

int
mrc_fabric_timeline_offer(struct mrc_fabric *fab, struct mrc_fabric_timeline *tl)
{
	struct mrc_fabric_timeline *none = NULL;

	if (tl->offers != 0)
		return -EINVAL; /* a timeline is taken once */
	if (!__atomic_compare_exchange_n(
		    &fab->offer, &none, tl, false, __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		return -EBUSY;
	tl->offers++;
	return 0;
}

bool
mrc_fabric_timeline_taken(const struct mrc_fabric_timeline *tl, uint64_t *t_ns)
{
	if (__atomic_load_n(&tl->taken, __ATOMIC_ACQUIRE) == 0)
		return false;
	if (t_ns != NULL)
		*t_ns = tl->taken_ns;
	return true;
}

bool
mrc_fabric_timeline_withdraw(struct mrc_fabric *fab, struct mrc_fabric_timeline *tl)
{
	struct mrc_fabric_timeline *expect = tl;

	return __atomic_compare_exchange_n(
		&fab->offer, &expect, NULL, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

void
mrc_fabric_timeline_free(struct mrc_fabric_timeline *tl)
{
	if (tl == NULL)
		return;
	free(tl->log);
	free(tl->add);
	free(tl);
}

static void
note_log(const struct mrc_fabric *fab, uint64_t now_ns, const char *source, unsigned int n_add,
	unsigned int pending, unsigned int dropped)
{
	MRC_LOG(fabric, NOTICE,
		"%s: t=%" PRIu64 ".%09" PRIu64 " s: fault timeline replaced (%s): %u changes "
		"scheduled from now, %u of the old one's dropped before their time; %u oldest "
		"log entries dropped for room",
		fab->name, now_ns / 1000000000u, now_ns % 1000000000u, source, n_add, pending,
		dropped);
}

void
fab_timeline_note_log(struct mrc_fabric *fab, unsigned int at)
{
	struct fab_timeline_note *nt = &fab->tl_note;

	if (!__atomic_load_n(&nt->ready, __ATOMIC_ACQUIRE) || nt->at != at)
		return;
	note_log(fab, nt->t_ns, nt->source, nt->n_add, nt->pending, nt->dropped);
	__atomic_store_n(&nt->ready, 0, __ATOMIC_RELEASE);
}

void
fab_timeline_take(struct mrc_fabric *fab)
{
	struct mrc_fabric_timeline *tl = __atomic_exchange_n(&fab->offer, NULL, __ATOMIC_ACQUIRE);
	const uint64_t now_ns = fab->now_ps / PS_PER_NS;
	const unsigned int pending = fab->n_ev - fab->n_applied;
	struct mrc_fabric_event *old;
	unsigned int keep, n_clear, n, dropped;

	if (tl == NULL)
		return;
	n_clear = fab_faults_active(fab) ? 1 : 0;
	/* The newest applied changes that fit beside the clear and the new ones. */
	keep = RTE_MIN(fab->n_applied, MRC_FABRIC_MAX_EVENTS - n_clear - tl->n_add);
	dropped = fab->n_applied - keep;
	if (keep != 0) /* a fabric that never had an event has no log array */
		memcpy(tl->log, fab->ev + dropped, (size_t)keep * sizeof(*tl->log));
	n = keep;
	if (n_clear != 0) {
		struct mrc_fabric_event *c = &tl->log[n++];

		memset(c, 0, sizeof(*c));
		c->t_ns = now_ns;
		c->target.elem = MRC_FABRIC_ELEM_FABRIC;
		c->action = MRC_FABRIC_ACT_CLEAR;
		snprintf(c->source, sizeof(c->source), "%s", tl->source);
		fab_apply_event(fab, c);
		fab_event_notice(fab, c);
	}
	/* In time order already (parsed sorted): the poll applies them from here on. */
	for (unsigned int k = 0; k < tl->n_add; k++) {
		tl->log[n] = tl->add[k];
		tl->log[n].t_ns += now_ns;
		n++;
	}
	old = fab->ev;
	fab->ev = tl->log;
	fab->cap_ev = MRC_FABRIC_MAX_EVENTS;
	fab->n_applied = keep + n_clear;
	fab->n_ev = n;
	if (!fab->log_deferred) {
		note_log(fab, now_ns, tl->source, tl->n_add, pending, dropped);
	} else if (__atomic_load_n(&fab->tl_note.ready, __ATOMIC_ACQUIRE)) {
		fab->cnt.events_unlogged++; /* the last take's line is still unsaid */
	} else {
		struct fab_timeline_note *nt = &fab->tl_note;

		nt->at = fab->notice_head;
		nt->t_ns = now_ns;
		snprintf(nt->source, sizeof(nt->source), "%s", tl->source);
		nt->n_add = tl->n_add;
		nt->pending = pending;
		nt->dropped = dropped;
		__atomic_store_n(&nt->ready, 1, __ATOMIC_RELEASE);
	}
	tl->log = old;
	tl->taken_ns = now_ns;
	__atomic_store_n(&tl->taken, 1, __ATOMIC_RELEASE);
}
