/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * A fault timeline replaced while the fabric runs (mrc_fabric_timeline_*):
 * the faults in force are cleared at the poll that takes it (logged once),
 * the old timeline's pending changes never happen, the new one's count
 * from that poll, the log keeps what happened before; a second offer waits
 * for the first; a withdrawn offer is never taken; a broken file builds
 * nothing and leaves the fabric as it was.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mrc_test.h"
#include "test_fabric.h"

int
test_timeline_replace(void)
{
	const uint64_t s = 1000000000ull, ms = 1000000ull;
	struct mrc_fabric_timeline *tl, *tl2;
	const struct mrc_fabric_event *ev;
	struct mrc_fabric_cfg c;
	struct mrc_fabric *f;
	const char *why = NULL;
	char path[64], err[320], text[96];
	uint64_t t_ns = 0;
	int rc = setup();

	if (rc != MRC_TEST_OK)
		return rc;
	mrc_fabric_cfg_defaults(&c);
	f = mkfab(&c);
	MRC_T_ASSERT(f != NULL, "fabric");
	/* plane 3 down at 2 s, up at 4 s; a link's loss set too, to see it cleared */
	rc = mrc_fabric_load_scenario(f, SCEN_DIR "plane3-fail.ini", &why);
	MRC_T_ASSERT(rc == 2, "loaded: %d %s", rc, why);
	mrc_fabric_start(f, 0);
	mrc_fabric_poll(f, 3 * s);
	MRC_T_ASSERT(!mrc_fabric_port_up(f, 0, 3), "plane 3 down at 3 s");
	const struct mrc_fabric_target t1 = {.elem = MRC_FABRIC_ELEM_T1, .plane = 2, .a = 1};

	MRC_T_EQ(mrc_fabric_set_loss(f, &t1, 0.5), 0);
	MRC_T_EQ(mrc_fabric_event_log(f, &ev), 2);

	snprintf(path, sizeof(path), "/tmp/test_timeline_%d.ini", (int)getpid());
	MRC_T_EQ(write_file(path,
			 "[event.p1]\nat = 100ms\nelement = plane\nplane = 1\naction = down\n"),
		0);
	tl = mrc_fabric_timeline_load(f, path, err, sizeof(err));
	MRC_T_ASSERT(tl != NULL, "%s", err);
	MRC_T_EQ(mrc_fabric_timeline_events(tl), 1);
	MRC_T_EQ(mrc_fabric_timeline_offer(f, tl), 0);
	/* one offer at a time */
	tl2 = mrc_fabric_timeline_load(f, NULL, err, sizeof(err));
	MRC_T_ASSERT(tl2 != NULL, "%s", err);
	MRC_T_EQ(mrc_fabric_timeline_offer(f, tl2), -EBUSY);
	MRC_T_ASSERT(!mrc_fabric_timeline_taken(tl, NULL), "not before a poll");
	MRC_T_ASSERT(!mrc_fabric_port_up(f, 0, 3), "nothing changes before a poll");

	mrc_fabric_poll(f, 3 * s + 7);
	MRC_T_ASSERT(mrc_fabric_timeline_taken(tl, &t_ns), "taken by the poll");
	MRC_T_U64_EQ(t_ns, 3 * s + 7); /* the poll's time, on the fabric's clock */
	MRC_T_ASSERT(mrc_fabric_port_up(f, 0, 3) && mrc_fabric_port_up(f, 1, 3), "plane 3 cleared");
	MRC_T_ASSERT(mrc_fabric_port_up(f, 0, 1), "plane 1 not yet down");
	MRC_T_EQ(mrc_fabric_event_log(f, &ev), 3);
	MRC_T_EQ(ev[0].action, MRC_FABRIC_ACT_DOWN); /* the log before the reload stays */
	MRC_T_EQ(ev[2].action, MRC_FABRIC_ACT_CLEAR);
	MRC_T_ASSERT(strncmp(ev[2].source, "reload:test_timeline_", 21) == 0, "%s", ev[2].source);
	mrc_fabric_event_format(text, sizeof(text), &ev[2]);
	MRC_T_STREQ(text, "fabric: every fault cleared");
	MRC_T_EQ(mrc_fabric_events_pending(f), 1); /* plane 3's up at 4 s is gone */
	mrc_fabric_timeline_free(tl);		   /* the fabric's old log came back in it */

	/* the new timeline's t = 0 is the take: plane 1 goes down 100 ms later */
	MRC_T_U64_EQ(mrc_fabric_next_event_tsc(f), 3 * s + 7 + 100 * ms);
	mrc_fabric_poll(f, 3 * s + 7 + 100 * ms - 1);
	MRC_T_ASSERT(mrc_fabric_port_up(f, 0, 1), "plane 1 up before +100 ms");
	mrc_fabric_poll(f, 3 * s + 7 + 100 * ms);
	MRC_T_ASSERT(!mrc_fabric_port_up(f, 0, 1), "plane 1 down at +100 ms");
	mrc_fabric_poll(f, 5 * s);
	MRC_T_EQ(mrc_fabric_event_log(f, &ev), 4);
	MRC_T_EQ(ev[3].target.plane, 1);
	MRC_T_ASSERT(mrc_fabric_port_up(f, 0, 3), "the old timeline's 4 s never came");

	/* no scenario: the next take clears plane 1 and schedules nothing */
	MRC_T_EQ(mrc_fabric_timeline_offer(f, tl2), 0);
	MRC_T_EQ(mrc_fabric_timeline_offer(f, tl2), -EINVAL); /* once */
	mrc_fabric_poll(f, 6 * s);
	MRC_T_ASSERT(mrc_fabric_timeline_taken(tl2, NULL), "taken");
	MRC_T_ASSERT(mrc_fabric_port_up(f, 0, 1), "plane 1 cleared");
	MRC_T_EQ(mrc_fabric_event_log(f, &ev), 5);
	MRC_T_STREQ(ev[4].source, "reload:none");
	MRC_T_EQ(mrc_fabric_events_pending(f), 0);
	mrc_fabric_timeline_free(tl2);

	/* nothing in force: no clear event; a withdrawn offer is never taken */
	tl = mrc_fabric_timeline_load(f, NULL, err, sizeof(err));
	MRC_T_ASSERT(tl != NULL, "%s", err);
	MRC_T_EQ(mrc_fabric_timeline_offer(f, tl), 0);
	MRC_T_ASSERT(mrc_fabric_timeline_withdraw(f, tl), "withdrawn");
	MRC_T_ASSERT(!mrc_fabric_timeline_withdraw(f, tl), "once");
	mrc_fabric_poll(f, 7 * s);
	MRC_T_ASSERT(!mrc_fabric_timeline_taken(tl, NULL), "not taken");
	mrc_fabric_timeline_free(tl);
	tl = mrc_fabric_timeline_load(f, NULL, err, sizeof(err));
	MRC_T_ASSERT(tl != NULL, "%s", err);
	MRC_T_EQ(mrc_fabric_timeline_offer(f, tl), 0);
	mrc_fabric_poll(f, 8 * s);
	MRC_T_ASSERT(mrc_fabric_timeline_taken(tl, NULL), "taken");
	MRC_T_EQ(mrc_fabric_event_log(f, &ev), 5);
	mrc_fabric_timeline_free(tl);
	unlink(path);
	mrc_fabric_free(f);
	return check_no_leak();
}

int
test_timeline_errors(void)
{
	struct mrc_fabric_timeline *tl;
	struct mrc_fabric_cfg c;
	struct mrc_fabric *f;
	const char *why = NULL;
	char path[64], err[320];
	int rc = setup();

	if (rc != MRC_TEST_OK)
		return rc;
	mrc_fabric_cfg_defaults(&c);
	f = mkfab(&c);
	MRC_T_ASSERT(f != NULL, "fabric");
	/* A fabric that never had an event (no log array yet) takes one: nothing to clear. */
	mrc_fabric_start(f, 0);
	tl = mrc_fabric_timeline_load(f, NULL, err, sizeof(err));
	MRC_T_ASSERT(tl != NULL, "%s", err);
	MRC_T_EQ(mrc_fabric_timeline_offer(f, tl), 0);
	mrc_fabric_poll(f, 1);
	MRC_T_ASSERT(mrc_fabric_timeline_taken(tl, NULL), "taken");
	MRC_T_EQ(mrc_fabric_event_log(f, NULL), 0);
	mrc_fabric_timeline_free(tl);
	rc = mrc_fabric_load_scenario(f, SCEN_DIR "plane3-fail.ini", &why);
	MRC_T_ASSERT(rc == 2, "loaded: %d %s", rc, why);
	snprintf(path, sizeof(path), "/tmp/test_timeline_bad_%d.ini", (int)getpid());
	MRC_T_EQ(
		write_file(path, "[event.a]\nat = 1s\nelement = plane\nplane = 9\naction = down\n"),
		0);
	tl = mrc_fabric_timeline_load(f, path, err, sizeof(err));
	MRC_T_ASSERT(tl == NULL, "a plane out of range accepted");
	MRC_T_ASSERT(
		strstr(err, path) == err &&
			strstr(err, ":4: [event.a] plane: '9' is out of range (allowed 0..7)") !=
				NULL,
		"%s", err);
	unlink(path);
	tl = mrc_fabric_timeline_load(f, "/nonexistent/x.ini", err, sizeof(err));
	MRC_T_ASSERT(
		tl == NULL && strstr(err, "/nonexistent/x.ini: cannot open") != NULL, "%s", err);
	/* the running timeline untouched */
	MRC_T_EQ(mrc_fabric_events_pending(f), 2);
	mrc_fabric_poll(f, 2000000000ull);
	MRC_T_ASSERT(!mrc_fabric_port_up(f, 0, 3), "plane 3 still fails at 2 s");
	mrc_fabric_free(f);
	return check_no_leak();
}
