/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * The control protocol's parser (app/common/mrcd_ctl_proto.c): the version
 * line, every command and selector it takes, and each refusal with the
 * code and the value it names. Hostile bytes (NUL, controls, 8-bit, a
 * line past the limit, numbers past 32 bits) are refused, never read past.
 */

#include <errno.h>
#include <string.h>

#include "mrc_test.h"
#include "mrcd_ctl_proto.h"

static const struct mrcd_ctl_limits lim = {.n_hosts = 2, .n_planes = 4, .n_t1 = 3};

static int
parse(const char *s, struct mrcd_ctl_req *rq, char *err)
{
	return mrcd_ctl_parse(s, strlen(s), &lim, rq, err, 256);
}

/* `s` is refused and the error starts with `code` and contains `names`. */
static int
refused(const char *s, const char *code, const char *names)
{
	struct mrcd_ctl_req rq;
	char err[256] = "";

	MRC_T_EQ(parse(s, &rq, err), -EINVAL);
	MRC_T_ASSERT(strncmp(err, code, strlen(code)) == 0, "'%s': error '%s', want code %s", s,
		err, code);
	MRC_T_ASSERT(
		strstr(err, names) != NULL, "'%s': error '%s' does not name '%s'", s, err, names);
	return MRC_TEST_OK;
}

static int
test_hello(void)
{
	unsigned int v = 0;
	char err[256];

	MRC_T_EQ(mrcd_ctl_parse_hello("MRCCTL 1", 8, &v, err, sizeof(err)), 0);
	MRC_T_EQ(v, 1);
	MRC_T_EQ(mrcd_ctl_parse_hello("MRCCTL 2", 8, &v, err, sizeof(err)), -EPROTONOSUPPORT);
	MRC_T_ASSERT(
		strstr(err, "version 2") != NULL && strstr(err, "speaks 1") != NULL, "%s", err);
	MRC_T_EQ(mrcd_ctl_parse_hello("HELLO 1", 7, &v, err, sizeof(err)), -EINVAL);
	MRC_T_ASSERT(strstr(err, "HELLO 1") != NULL, "%s", err);
	MRC_T_EQ(mrcd_ctl_parse_hello("MRCCTL x", 8, &v, err, sizeof(err)), -EINVAL);
	MRC_T_EQ(mrcd_ctl_parse_hello("MRCCTL", 6, &v, err, sizeof(err)), -EINVAL);
	/* Only `len` bytes count: what follows is not read. */
	MRC_T_EQ(mrcd_ctl_parse_hello("MRCCTL 1 junk", 8, &v, err, sizeof(err)), 0);
	return MRC_TEST_OK;
}

static int
test_commands(void)
{
	struct mrcd_ctl_req rq;
	char err[256];

	MRC_T_EQ(parse("status", &rq, err), 0);
	MRC_T_EQ(rq.cmd, MRCD_CTL_STATUS);
	MRC_T_ASSERT(!mrcd_ctl_changes(rq.cmd), "status reads");
	MRC_T_EQ(parse("  events ", &rq, err), 0);
	MRC_T_EQ(rq.cmd, MRCD_CTL_EVENTS);
	MRC_T_EQ(parse("reload", &rq, err), 0);
	MRC_T_EQ(rq.cmd, MRCD_CTL_RELOAD);
	MRC_T_ASSERT(mrcd_ctl_changes(rq.cmd), "reload changes: an admin's");
	MRC_T_EQ(parse("reload now", &rq, err), -EINVAL);
	MRC_T_ASSERT(
		strstr(err, "bad-arg this command takes no argument: 'now'") != NULL, "%s", err);
	/* a fault drill: one QP of one host */
	MRC_T_EQ(parse("fail host=1 qpn=0x101", &rq, err), 0);
	MRC_T_EQ(rq.cmd, MRCD_CTL_FAIL);
	MRC_T_ASSERT(rq.host == 1 && rq.has_qp && rq.qpn == 0x101, "fail: host %d qpn 0x%x",
		rq.host, rq.qpn);
	MRC_T_ASSERT(mrcd_ctl_changes(rq.cmd), "fail changes: an admin's");
	MRC_T_EQ(parse("fail host=all qpn=0x101", &rq, err), -EINVAL);
	MRC_T_ASSERT(strstr(err, "bad-arg fail takes one host= and a qpn=") != NULL, "%s", err);
	MRC_T_EQ(parse("fail host=0 qpn=0x101 ev=3", &rq, err), -EINVAL);
	MRC_T_EQ(parse("fail host=0 plane=1", &rq, err), -EINVAL);
	MRC_T_EQ(parse("fail host=0", &rq, err), -EINVAL);
	MRC_T_EQ(parse("deny host=1 plane=2 t1=0", &rq, err), 0);
	MRC_T_EQ(rq.cmd, MRCD_CTL_DENY);
	MRC_T_ASSERT(mrcd_ctl_changes(rq.cmd), "deny changes");
	MRC_T_EQ(rq.host, 1);
	MRC_T_ASSERT(rq.has_plane && rq.has_t1 && !rq.has_qp, "a path");
	MRC_T_EQ(rq.plane, 2);
	MRC_T_EQ(rq.t1, 0);
	MRC_T_EQ(parse("allow plane=3 host=all", &rq, err), 0);
	MRC_T_EQ(rq.cmd, MRCD_CTL_ALLOW);
	MRC_T_EQ(rq.host, MRCD_CTL_ALL_HOSTS);
	MRC_T_ASSERT(rq.has_plane && !rq.has_t1, "a plane");
	MRC_T_EQ(parse("deny host=0 qpn=0x101 ev=0xDEADbeef", &rq, err), 0);
	MRC_T_ASSERT(rq.has_qp && !rq.has_plane, "an EV");
	MRC_T_EQ(rq.qpn, 0x101);
	MRC_T_EQ(rq.ev, 0xdeadbeef);
	MRC_T_EQ(parse("port host=all plane=1 state=down", &rq, err), 0);
	MRC_T_EQ(rq.cmd, MRCD_CTL_PORT);
	MRC_T_ASSERT(mrcd_ctl_changes(rq.cmd), "port changes");
	MRC_T_ASSERT(rq.down && rq.has_plane && rq.plane == 1, "plane 1 down");
	MRC_T_EQ(parse("port state=up plane=0 host=1", &rq, err), 0);
	MRC_T_ASSERT(!rq.down && rq.host == 1, "host 1's plane 0 up");
	MRC_T_EQ(parse("deny host=0 qpn=257 ev=4294967295", &rq, err), 0);
	MRC_T_EQ(rq.qpn, 257);
	MRC_T_EQ(rq.ev, UINT32_MAX);
	MRC_T_EQ(parse("probe host=1 qpn=0x100 ev=0x1525f47c", &rq, err), 0);
	MRC_T_EQ(rq.cmd, MRCD_CTL_PROBE);
	MRC_T_ASSERT(!mrcd_ctl_changes(rq.cmd), "probe reads");
	MRC_T_ASSERT(rq.has_qp && rq.host == 1 && rq.qpn == 0x100 && rq.ev == 0x1525f47c, "an EV");
	MRC_T_EQ(parse("probe host=0 plane=1 t1=2", &rq, err), 0);
	MRC_T_ASSERT(rq.has_plane && rq.has_t1 && rq.plane == 1 && rq.t1 == 2, "a path");
	MRC_T_EQ(parse("probe plane=3 host=0", &rq, err), 0);
	MRC_T_ASSERT(rq.has_plane && !rq.has_t1 && rq.plane == 3, "a plane");
	/* an endpoint EV probe toward a host of another process */
	MRC_T_EQ(parse("probe host=1 peer=7 ev=0x10002", &rq, err), 0);
	MRC_T_EQ(rq.cmd, MRCD_CTL_PROBE);
	MRC_T_ASSERT(rq.has_peer && !rq.has_qp && !rq.has_plane, "a peer, not a QP or a path");
	MRC_T_EQ(rq.host, 1);
	MRC_T_EQ(rq.peer, 7);
	MRC_T_EQ(rq.ev, 0x10002);
	return MRC_TEST_OK;
}

static int
test_refusals(void)
{
	char longline[600];

	MRC_T_RUN(refused("", "syntax", "empty"));
	MRC_T_RUN(refused("stats", "unknown-command", "'stats'"));
	MRC_T_RUN(refused("status now", "bad-arg", "'now'"));
	MRC_T_RUN(refused("deny plane=1", "bad-arg", "host="));
	MRC_T_RUN(refused("deny host=0", "bad-arg", "plane="));
	MRC_T_RUN(refused("deny host=2 plane=0", "no-such-host", "'2'"));
	MRC_T_RUN(refused("deny host=0 plane=4", "no-such-plane", "'4'"));
	MRC_T_RUN(refused("deny host=0 plane=0 t1=3", "no-such-path", "'3'"));
	MRC_T_RUN(refused("deny host=0 plane=x", "bad-arg", "'plane=x'"));
	MRC_T_RUN(refused("deny host=0 plane=-1", "bad-arg", "'plane=-1'"));
	MRC_T_RUN(refused("deny host=0 plane=0x", "bad-arg", "'plane=0x'"));
	MRC_T_RUN(refused("deny host=0 qpn=0x1 ev=0x100000000", "bad-arg", "ev=0x100000000"));
	MRC_T_RUN(refused("deny host=0 qpn=1 ev=4294967296", "bad-arg", "ev=4294967296"));
	MRC_T_RUN(refused("deny host=0 plane=1 plane=1", "bad-arg", "'plane' given twice"));
	MRC_T_RUN(refused("deny host=0 lane=1", "bad-arg", "'lane'"));
	MRC_T_RUN(refused("probe host=all plane=1", "bad-arg", "'all'"));
	MRC_T_RUN(refused("probe host=0", "bad-arg", "plane="));
	MRC_T_RUN(refused("probe host=0 qpn=0x100", "bad-arg", "go together"));
	MRC_T_RUN(refused("probe host=0 plane=1 state=up", "bad-arg", "state="));
	MRC_T_RUN(refused("probe host=0 plane=0 t1=3", "no-such-path", "'3'"));
	MRC_T_RUN(refused("probe host=0 qpn=1 ev=2 plane=0", "bad-arg", "not both"));
	MRC_T_RUN(refused("probe host=0 peer=1", "bad-arg", "peer= and ev="));
	MRC_T_RUN(refused("probe host=0 peer=1 ev=2 plane=0", "bad-arg", "peer= and ev="));
	MRC_T_RUN(refused("probe host=0 peer=1 ev=2 qpn=3", "bad-arg", "peer= and ev="));
	MRC_T_RUN(refused("probe host=all peer=1 ev=2", "bad-arg", "'all'"));
	MRC_T_RUN(refused("probe host=0 peer=256 ev=2", "no-such-host", "'256'"));
	MRC_T_RUN(refused("deny host=0 peer=1 ev=2", "bad-arg", "'deny'"));
	MRC_T_RUN(refused("deny host=0 plane", "syntax", "'plane'"));
	MRC_T_RUN(refused("deny host=0 plane=", "syntax", "'plane='"));
	MRC_T_RUN(refused("deny host=0 =1", "syntax", "'=1'"));
	MRC_T_RUN(refused("deny host=0 qpn=1", "bad-arg", "together"));
	MRC_T_RUN(refused("deny host=0 ev=1", "bad-arg", "together"));
	MRC_T_RUN(refused("deny host=0 qpn=1 ev=2 plane=0", "bad-arg", "not both"));
	MRC_T_RUN(refused("deny host=all qpn=1 ev=2", "bad-arg", "its host"));
	MRC_T_RUN(refused("deny host=all plane=all", "bad-arg", "'plane=all'"));
	MRC_T_RUN(refused("port host=0 plane=1", "bad-arg", "state=up|down"));
	MRC_T_RUN(refused("port host=0 plane=1 t1=0 state=up", "bad-arg", "state=up|down"));
	MRC_T_RUN(refused("port host=0 plane=1 state=off", "bad-arg", "state 'off'"));
	MRC_T_RUN(refused("deny host=0 plane=1 state=up", "bad-arg", "goes with port"));
	MRC_T_RUN(refused("deny\thost=0 plane=1", "syntax", "printable"));
	MRC_T_RUN(refused("deny host=0 plane=1 \x80", "syntax", "'?'"));
	MRC_T_RUN(refused("a b c d e f g h i j", "syntax", "too many words"));
	memset(longline, 'a', sizeof(longline) - 1);
	longline[sizeof(longline) - 1] = '\0';
	MRC_T_RUN(refused(longline, "syntax", "longer than 511"));
	{
		/* A NUL inside the line is a byte like any other: refused, not an end. */
		static const char nul[] = "status\0deny";
		struct mrcd_ctl_req rq;
		char err[256];

		MRC_T_EQ(
			mrcd_ctl_parse(nul, sizeof(nul) - 1, &lim, &rq, err, sizeof(err)), -EINVAL);
	}
	return MRC_TEST_OK;
}

static int
test_default_path(void)
{
	char p[256];

	/* The client names a place even when no daemon runs. */
	MRC_T_EQ(mrcd_ctl_default_path(p, sizeof(p), false, -1), 0);
	MRC_T_ASSERT(strstr(p, "/control.sock") != NULL, "%s", p);
	/* A process running part of a cluster: a socket of its own. */
	MRC_T_EQ(mrcd_ctl_default_path(p, sizeof(p), false, 3), 0);
	MRC_T_ASSERT(strstr(p, "/control-h3.sock") != NULL, "%s", p);
	MRC_T_EQ(mrcd_ctl_default_path(p, 8, false, -1), -ENAMETOOLONG);
	return MRC_TEST_OK;
}

/* profile <sub>: what each takes, and each refusal naming its value. */
static int
test_profile(void)
{
	struct mrcd_ctl_req rq;
	char err[256];

	MRC_T_EQ(parse("profile list", &rq, err), 0);
	MRC_T_EQ(rq.cmd, MRCD_CTL_PROFILE_LIST);
	MRC_T_ASSERT(!mrcd_ctl_changes(rq.cmd), "list changes nothing");
	MRC_T_EQ(parse("profile show kind=cc id=0x3", &rq, err), 0);
	MRC_T_EQ(rq.cmd, MRCD_CTL_PROFILE_SHOW);
	MRC_T_EQ(rq.kind, MRCD_PROFILE_CC);
	MRC_T_EQ(rq.id, 3);
	MRC_T_ASSERT(!mrcd_ctl_changes(rq.cmd), "show changes nothing");
	MRC_T_EQ(parse("profile add kind=cc id=2 algorithm=fixed fixed_cwnd_kb=20 gamma_pm=700",
			 &rq, err),
		0);
	MRC_T_EQ(rq.cmd, MRCD_CTL_PROFILE_ADD);
	MRC_T_ASSERT(mrcd_ctl_changes(rq.cmd), "add changes");
	MRC_T_ASSERT(rq.change.has_algorithm, "algorithm");
	MRC_T_STREQ(rq.change.algorithm, "fixed");
	MRC_T_EQ(rq.change.n, 2);
	MRC_T_EQ(rq.change.field[0], MRCD_PF_FIXED_CWND_KB);
	MRC_T_EQ(rq.change.value[0], 20);
	MRC_T_EQ(rq.change.field[1], MRCD_PF_GAMMA_PM);
	MRC_T_EQ(rq.change.value[1], 700);
	MRC_T_EQ(parse("profile set kind=ev id=1 ev_active=16", &rq, err), 0);
	MRC_T_EQ(rq.cmd, MRCD_CTL_PROFILE_SET);
	MRC_T_EQ(rq.kind, MRCD_PROFILE_EV);
	MRC_T_EQ(parse("profile state kind=ev id=1 state=online", &rq, err), 0);
	MRC_T_EQ(rq.cmd, MRCD_CTL_PROFILE_STATE);
	MRC_T_EQ(rq.pstate, MRCD_PROFILE_ONLINE);
	MRC_T_ASSERT(mrcd_ctl_changes(rq.cmd), "state changes");
	MRC_T_EQ(parse("profile del kind=ev id=15", &rq, err), 0);
	MRC_T_EQ(rq.cmd, MRCD_CTL_PROFILE_DEL);
	MRC_T_ASSERT(mrcd_ctl_changes(rq.cmd), "del changes");

	MRC_T_RUN(refused("profile", "bad-arg", "list|show|add|set|state|del"));
	MRC_T_RUN(refused("profile drop kind=cc id=1", "unknown-command", "profile drop"));
	MRC_T_RUN(refused("profile list kind=cc", "bad-arg", "kind=cc"));
	MRC_T_RUN(refused("profile show kind=cc", "bad-arg", "needs kind=ev|cc and id=N"));
	MRC_T_RUN(refused("profile show id=1", "bad-arg", "needs kind=ev|cc and id=N"));
	MRC_T_RUN(refused("profile show kind=tcp id=1", "bad-arg", "kind 'tcp'"));
	MRC_T_RUN(refused("profile show kind=cc id=16", "no-such-profile", "'16'"));
	MRC_T_RUN(refused("profile show kind=cc id=x", "bad-arg", "id=x"));
	MRC_T_RUN(refused("profile show kind=cc id=1 id=2", "bad-arg", "'id' given twice"));
	MRC_T_RUN(refused("profile show kind=cc id=1 fixed_cwnd_kb=3", "bad-arg", "fixed_cwnd_kb"));
	MRC_T_RUN(refused("profile add kind=cc id=1 window=3", "bad-arg", "unknown key 'window'"));
	MRC_T_RUN(refused("profile add kind=cc id=1 fixed_cwnd_kb=3 fixed_cwnd_kb=4", "bad-arg",
		"given twice"));
	MRC_T_RUN(refused(
		"profile add kind=cc id=1 fixed_cwnd_kb=-3", "bad-arg", "fixed_cwnd_kb=-3"));
	MRC_T_RUN(refused("profile add kind=cc id=1 algorithm=Bad!", "bad-arg", "'Bad!'"));
	MRC_T_RUN(refused("profile add kind=cc id=1 algorithm=a23456789012345678901234567890123",
		"bad-arg", "is not a name"));
	MRC_T_RUN(refused("profile set kind=cc id=1", "bad-arg", "needs a field"));
	MRC_T_RUN(refused("profile state kind=cc id=1", "bad-arg", "state=init|offline|online"));
	MRC_T_RUN(refused("profile state kind=cc id=1 state=down", "bad-arg", "state 'down'"));
	MRC_T_RUN(
		refused("profile add kind=cc id=1 state=online", "bad-arg", "unknown key 'state'"));
	MRC_T_RUN(refused("profile add kind=cc id=1 =3", "syntax", "'=3'"));
	return MRC_TEST_OK;
}

static const struct mrc_test_case cases[] = {
	MRC_TEST_CASE(test_hello),
	MRC_TEST_CASE(test_commands),
	MRC_TEST_CASE(test_refusals),
	MRC_TEST_CASE(test_default_path),
	MRC_TEST_CASE(test_profile),
};

MRC_TEST_MAIN("mrcd_ctl", cases)
