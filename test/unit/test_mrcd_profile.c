/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * EV and CC profiles (app/common/mrcd_profile*.c): the defaults are the
 * configuration's; the controller's requests, parsed as mrcctl sends them,
 * walk the lifecycle and refuse what it forbids, changing nothing when they
 * do; a QP made with a profile gets its values (a real QP of the engine,
 * its EV pool and its window).
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mrc_cc.h"
#include "mrc_ev.h"
#include "mrc_test.h"
#include "mrc_test_qp.h"
#include "mrcd_config.h"
#include "mrcd_ctl_proto.h"
#include "mrcd_profile_table.h"

static const struct mrcd_ctl_limits lim = {.n_hosts = 2, .n_planes = 8, .n_t1 = 4};

/* Run request `s` on the table; the answer in out. */
static int
run(struct mrcd_profile_table *t, const char *s, char *out, size_t outlen)
{
	struct mrcd_ctl_req rq;
	char err[256] = "";

	if (mrcd_ctl_parse(s, strlen(s), &lim, &rq, err, sizeof(err)) != 0) {
		snprintf(out, outlen, "ERR %s\n", err);
		return -1;
	}
	mrcd_profile_table_do(t, &rq, out, outlen);
	return strncmp(out, "OK ", 3) == 0 ? 0 : -1;
}

/* `s` answers OK, and the answer contains `has`. */
#define OK_HAS(t, s, has)                                                                    \
	do {                                                                                 \
		char o_[4096];                                                               \
		MRC_T_ASSERT(run(t, s, o_, sizeof(o_)) == 0, "'%s' answered %s", s, o_);     \
		MRC_T_ASSERT(strstr(o_, has) != NULL, "'%s': '%s' has no '%s'", s, o_, has); \
	} while (0)
/* `s` is refused with `code`, and the message contains `has`. */
#define REFUSED(t, s, code, has)                                                             \
	do {                                                                                 \
		char o_[4096];                                                               \
		MRC_T_ASSERT(run(t, s, o_, sizeof(o_)) != 0, "'%s' was taken: %s", s, o_);   \
		MRC_T_ASSERT(strncmp(o_, "ERR " code " ", 4 + strlen(code) + 1) == 0,        \
			"'%s': '%s', want %s", s, o_, code);                                 \
		MRC_T_ASSERT(strstr(o_, has) != NULL, "'%s': '%s' has no '%s'", s, o_, has); \
	} while (0)

static int
test_defaults(void)
{
	struct mrcd_config cfg;
	struct mrcd_profile_table t;
	struct mrc_qp_attr a, b;

	mrcd_config_defaults(&cfg);
	cfg.transport.ev_active = 64;
	cfg.cc.max_cwnd_kb = 77;
	mrcd_profile_table_init(&t, &cfg);
	OK_HAS(&t, "profile list", "{\"kind\":\"ev\",\"id\":0,\"state\":\"online\",\"qps\":0}");
	OK_HAS(&t, "profile list",
		"{\"kind\":\"cc\",\"id\":0,\"state\":\"online\",\"algorithm\":\"uet-1.0-nscc\"");
	OK_HAS(&t, "profile show kind=ev id=0", "\"ev_active\":64,");
	OK_HAS(&t, "profile show kind=cc id=0", "\"max_cwnd_kb\":77,");
	REFUSED(&t, "profile show kind=cc id=1", "no-such-profile", "cc profile 1 is not defined");
	/* The defaults applied change nothing: they are the configuration's attributes. */
	MRC_T_EQ(mrcd_config_qp_attr(&cfg, MRC_TEST_HZ, &a), 0);
	b = a;
	mrcd_profile_apply(&t.p[MRCD_PROFILE_EV][0], MRC_TEST_HZ, &b);
	mrcd_profile_apply(&t.p[MRCD_PROFILE_CC][0], MRC_TEST_HZ, &b);
	MRC_T_MEMEQ(&a.ev, &b.ev, sizeof(a.ev));
	MRC_T_MEMEQ(&a.cc, &b.cc, sizeof(a.cc));
	MRC_T_STREQ(a.cc_name, b.cc_name);
	/* The defaults stay online and cannot be removed. */
	REFUSED(&t, "profile state kind=cc id=0 state=offline", "bad-state", "is the default");
	REFUSED(&t, "profile del kind=ev id=0", "bad-state", "is the default");
	/* ... but take what may change online, for QPs made afterwards. */
	OK_HAS(&t, "profile set kind=cc id=0 max_cwnd_kb=50", "\"max_cwnd_kb\":50,");
	REFUSED(&t, "profile set kind=ev id=0 ev_active=16", "bad-value",
		"ev profile 0 is online: ev_active changes only offline");
	mrcd_profile_table_fini(&t);
	return MRC_TEST_OK;
}

static int
test_lifecycle(void)
{
	struct mrcd_config cfg;
	struct mrcd_profile_table t;
	struct mrcd_qp_profile ev, cc;
	char err[256];

	mrcd_config_defaults(&cfg);
	mrcd_profile_table_init(&t, &cfg);
	OK_HAS(&t, "profile add kind=cc id=3 algorithm=fixed fixed_cwnd_kb=20",
		"{\"kind\":\"cc\",\"id\":3,\"state\":\"init\",\"algorithm\":\"fixed\"");
	REFUSED(&t, "profile add kind=cc id=3", "exists", "already defined (init)");
	/* Not online: no QP may pick it, and nothing is counted. */
	MRC_T_EQ(mrcd_profile_table_hold(&t, 0, 3, &ev, &cc, err, sizeof(err)), -EINVAL);
	MRC_T_ASSERT(strstr(err, "cc profile 3 is not online") != NULL, "%s", err);
	MRC_T_EQ(mrcd_profile_table_hold(&t, 0, 9, &ev, &cc, err, sizeof(err)), -EINVAL);
	MRC_T_ASSERT(strstr(err, "cc profile 9 is not defined") != NULL, "%s", err);
	MRC_T_EQ(t.qps[MRCD_PROFILE_EV][0], 0);
	/* One step at a time. */
	REFUSED(&t, "profile state kind=cc id=3 state=online", "bad-state",
		"is init: it goes to offline");
	OK_HAS(&t, "profile state kind=cc id=3 state=offline", "\"state\":\"offline\"");
	OK_HAS(&t, "profile state kind=cc id=3 state=online", "\"state\":\"online\"");
	MRC_T_EQ(mrcd_profile_table_hold(&t, 0, 3, &ev, &cc, err, sizeof(err)), 0);
	MRC_T_STREQ(cc.algorithm, "fixed");
	MRC_T_EQ(cc.v[MRCD_PF_FIXED_CWND_KB], 20);
	OK_HAS(&t, "profile show kind=cc id=3", "\"qps\":1}");
	OK_HAS(&t, "profile list", "{\"kind\":\"ev\",\"id\":0,\"state\":\"online\",\"qps\":1}");
	/* Online: the window may change (for later QPs), the algorithm not. */
	REFUSED(&t, "profile set kind=cc id=3 algorithm=uet-1.0-nscc", "bad-value",
		"algorithm changes only offline");
	OK_HAS(&t, "profile set kind=cc id=3 fixed_cwnd_kb=30", "\"fixed_cwnd_kb\":30,");
	MRC_T_EQ(cc.v[MRCD_PF_FIXED_CWND_KB], 20); /* the QP's copy keeps its values */
	/* In use: it cannot be removed, nor sent back to INIT. */
	REFUSED(&t, "profile del kind=cc id=3", "in-use", "in use by 1 QPs");
	OK_HAS(&t, "profile state kind=cc id=3 state=offline", "\"state\":\"offline\"");
	REFUSED(&t, "profile state kind=cc id=3 state=init", "in-use", "in use by 1 QPs");
	REFUSED(&t, "profile del kind=cc id=3", "in-use", "in use by 1 QPs");
	mrcd_profile_table_release(&t, 0, 3);
	OK_HAS(&t, "profile del kind=cc id=3", "\"removed\":true");
	REFUSED(&t, "profile show kind=cc id=3", "no-such-profile", "not defined");
	MRC_T_EQ(t.qps[MRCD_PROFILE_EV][0], 0);
	mrcd_profile_table_fini(&t);
	return MRC_TEST_OK;
}

static int
test_bad_values(void)
{
	struct mrcd_config cfg;
	struct mrcd_profile_table t;

	mrcd_config_defaults(&cfg); /* 8 planes */
	mrcd_profile_table_init(&t, &cfg);
	/* Ranges are checked as the fields are given. */
	REFUSED(&t, "profile add kind=ev id=1 skip_rotations=4", "bad-value",
		"skip_rotations=4 is out of range 1..3");
	REFUSED(&t, "profile show kind=ev id=1", "no-such-profile", "not defined");
	REFUSED(&t, "profile add kind=ev id=1 fixed_cwnd_kb=4", "bad-value",
		"fixed_cwnd_kb is a field of cc profiles, not of ev profiles");
	REFUSED(&t, "profile add kind=ev id=1 algorithm=fixed", "bad-value", "algorithm= is a CC");
	/* The whole is checked entering OFFLINE: INIT holds what was given. */
	OK_HAS(&t, "profile add kind=ev id=1 ev_active=12", "\"ev_active\":12,");
	REFUSED(&t, "profile state kind=ev id=1 state=offline", "bad-value",
		"must be multiples of the planes (8)");
	OK_HAS(&t, "profile show kind=ev id=1", "\"state\":\"init\"");
	OK_HAS(&t, "profile set kind=ev id=1 ev_active=16 ev_backup=8 ev_min_active=4",
		"\"ev_min_active\":4,");
	OK_HAS(&t, "profile state kind=ev id=1 state=offline", "\"state\":\"offline\"");
	/* Offline, a change that breaks the whole is refused and changes nothing. */
	REFUSED(&t, "profile set kind=ev id=1 ev_min_active=17", "bad-value",
		"ev_min_active=17 is more than ev_active=16");
	OK_HAS(&t, "profile show kind=ev id=1", "\"ev_min_active\":4,");
	/* An algorithm nobody knows never leaves INIT. */
	OK_HAS(&t, "profile add kind=cc id=2 algorithm=cubic", "\"algorithm\":\"cubic\"");
	REFUSED(&t, "profile state kind=cc id=2 state=offline", "bad-value",
		"algorithm 'cubic' is not one the CC registry knows");
	REFUSED(&t, "profile del kind=cc id=0", "bad-state", "default");
	OK_HAS(&t, "profile del kind=cc id=2", "\"removed\":true");
	mrcd_profile_table_fini(&t);
	return MRC_TEST_OK;
}

/* A QP of the engine made with profiles 1 has their pool and window, not the defaults'. */
static int
test_qp_gets_values(void)
{
	struct mrcd_config cfg;
	struct mrcd_profile_table t;
	struct mrcd_qp_profile ev, cc;
	struct mrc_test_pair_cfg pc;
	struct mrc_test_pair p;
	char err[256];
	int rc;

	rc = mrc_test_eal_init("test_mrcd_profile");
	if (rc != 0)
		return rc;
	mrcd_config_defaults(&cfg);
	mrcd_profile_table_init(&t, &cfg);
	OK_HAS(&t, "profile add kind=ev id=1 ev_active=16 ev_backup=8", "\"state\":\"init\"");
	OK_HAS(&t, "profile add kind=cc id=1 algorithm=fixed fixed_cwnd_kb=20",
		"\"state\":\"init\"");
	for (unsigned int k = 0; k < 2; k++) {
		char s[96];

		for (unsigned int st = 0; st < 2; st++) {
			snprintf(s, sizeof(s), "profile state kind=%s id=1 state=%s",
				k ? "cc" : "ev", st ? "online" : "offline");
			OK_HAS(&t, s, "\"id\":1");
		}
	}
	MRC_T_EQ(mrcd_profile_table_hold(&t, 1, 1, &ev, &cc, err, sizeof(err)), 0);
	mrc_test_pair_cfg_defaults(&pc);
	pc.n_planes = cfg.daemon.planes;
	MRC_T_EQ(mrcd_config_qp_attr(&cfg, MRC_TEST_HZ, &pc.attr), 0);
	mrcd_profile_apply(&ev, MRC_TEST_HZ, &pc.attr);
	mrcd_profile_apply(&cc, MRC_TEST_HZ, &pc.attr);
	MRC_T_EQ(mrc_test_pair_create(&p, &pc), 0);
	MRC_T_EQ(mrc_ev_n_slots(mrc_qp_ev_pool(p.h[0].qp)), 24);
	MRC_T_EQ(mrc_qp_ev_pool(p.h[0].qp)->ev_min_active, 4); /* 0: ev_active / 4 */
	MRC_T_EQ(mrc_cc_cwnd(mrc_qp_cc(p.h[0].qp)), 20000);
	mrc_test_pair_destroy(&p);
	mrcd_profile_table_release(&t, 1, 1);
	OK_HAS(&t, "profile show kind=cc id=1", "\"qps\":0}");
	mrcd_profile_table_fini(&t);
	return MRC_TEST_OK;
}

/*
 * A generator flow's QP with the configuration's EV and CC profiles 1: the
 * attributes mrcd_make_qp_rts takes (mrcd_profile_qp_attr) make an engine
 * QP with their pool and window, and count it on both profiles.
 */
static int
test_config_profiles_gen_qp(void)
{
	static struct mrcd_config cfg;
	struct mrcd_profile_table t;
	struct mrc_test_pair_cfg pc;
	struct mrc_test_pair p;
	char path[] = "/tmp/mrc_test_profile_XXXXXX";
	char err[256];
	FILE *f;
	int fd, rc;

	rc = mrc_test_eal_init("test_mrcd_profile");
	if (rc != 0)
		return rc;
	fd = mkstemp(path);
	MRC_T_ASSERT(fd >= 0, "mkstemp");
	f = fdopen(fd, "w");
	MRC_T_ASSERT(f != NULL, "fdopen");
	fputs("[ev_profile.1]\nev_active = 32\nev_backup = 16\nev_min_active = 8\n"
	      "[cc_profile.1]\nalgorithm = fixed\nfixed_cwnd_kb = 30\n",
		f);
	fclose(f);
	rc = mrcd_config_load(&cfg, path, err, sizeof(err));
	unlink(path);
	MRC_T_ASSERT(rc == 0, "%s", err);
	mrcd_profile_table_init(&t, &cfg);
	OK_HAS(&t, "profile show kind=ev id=1", "\"state\":\"online\",\"ev_active\":32,");
	OK_HAS(&t, "profile show kind=cc id=1", "\"algorithm\":\"fixed\",\"fixed_cwnd_kb\":30,");
	REFUSED(&t, "profile show kind=ev id=2", "no-such-profile", "not defined");
	MRC_T_EQ(mrcd_profile_table_check_online(&t, 1, 1, err, sizeof(err)), 0);
	MRC_T_EQ(mrcd_profile_table_check_online(&t, 1, 2, err, sizeof(err)), -EINVAL);
	MRC_T_ASSERT(strstr(err, "cc profile 2 is not defined") != NULL, "%s", err);
	OK_HAS(&t, "profile show kind=cc id=1", "\"qps\":0}"); /* the checks count nothing */

	mrc_test_pair_cfg_defaults(&pc);
	pc.n_planes = cfg.daemon.planes;
	MRC_T_EQ(mrcd_profile_qp_attr(&t, 1, 2, MRC_TEST_HZ, &pc.attr, err, sizeof(err)), -EINVAL);
	MRC_T_EQ(mrcd_profile_qp_attr(&t, 1, 1, MRC_TEST_HZ, &pc.attr, err, sizeof(err)), 0);
	OK_HAS(&t, "profile show kind=ev id=1", "\"qps\":1}");
	OK_HAS(&t, "profile show kind=cc id=1", "\"qps\":1}");
	MRC_T_EQ(mrc_test_pair_create(&p, &pc), 0);
	MRC_T_EQ(mrc_ev_n_slots(mrc_qp_ev_pool(p.h[0].qp)), 48);
	MRC_T_EQ(mrc_qp_ev_pool(p.h[0].qp)->ev_min_active, 8);
	MRC_T_EQ(mrc_cc_cwnd(mrc_qp_cc(p.h[0].qp)), 30000);
	mrc_test_pair_destroy(&p);
	/* In use by a QP: it cannot go back to INIT; gone, it can. */
	OK_HAS(&t, "profile state kind=cc id=1 state=offline", "\"state\":\"offline\"");
	REFUSED(&t, "profile state kind=cc id=1 state=init", "in-use", "in use by 1 QPs");
	mrcd_profile_table_release(&t, 1, 1);
	OK_HAS(&t, "profile show kind=cc id=1", "\"qps\":0}");
	OK_HAS(&t, "profile state kind=cc id=1 state=init", "\"state\":\"init\"");
	mrcd_profile_table_fini(&t);
	return MRC_TEST_OK;
}

static const struct mrc_test_case cases[] = {
	MRC_TEST_CASE(test_defaults),
	MRC_TEST_CASE(test_lifecycle),
	MRC_TEST_CASE(test_bad_values),
	MRC_TEST_CASE(test_qp_gets_values),
	MRC_TEST_CASE(test_config_profiles_gen_qp),
};

MRC_TEST_MAIN("mrcd_profile", cases)
