/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Fuzz the control protocol's parser (app/common/mrcd_ctl_proto.c), as the
 * daemon runs it on what a client sends: the input cut at '\n' into lines,
 * the first read as the version line, the others as requests. Oracles:
 * each answer is 0 or a named refusal whose message is printable and
 * starts with one of the documented codes; an accepted request names
 * things that exist and exactly one selector; written back as a line, it
 * parses to the same request.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fuzz.h"
#include "mrcd_ctl_proto.h"

static const struct mrcd_ctl_limits lim = {.n_hosts = 3, .n_planes = 8, .n_t1 = 4};

static const char *const codes[] = {"syntax ", "unknown-command ", "bad-arg ", "no-such-host ",
	"no-such-plane ", "no-such-path ", "no-such-profile "};

static void
check_err(const char *err)
{
	bool known = false;

	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
		known |= strncmp(err, codes[i], strlen(codes[i])) == 0;
	FUZZ_CHECK(known, "unknown error code in '%s'", err);
	for (const char *p = err; *p != '\0'; p++)
		FUZZ_CHECK(*p >= 0x20 && *p < 0x7f, "unprintable byte %d in an error", *p);
}

static bool
is_profile(enum mrcd_ctl_cmd c)
{
	return c >= MRCD_CTL_PROFILE_LIST && c <= MRCD_CTL_PROFILE_DEL;
}

/* A profile request written back. */
static int
unparse_profile(const struct mrcd_ctl_req *rq, char *out, size_t len)
{
	static const char *const subs[] = {"list", "show", "add", "set", "state", "del"};
	static const char *const states[] = {"none", "init", "offline", "online"};
	int o = snprintf(out, len, "profile %s", subs[rq->cmd - MRCD_CTL_PROFILE_LIST]);

	if (rq->cmd == MRCD_CTL_PROFILE_LIST)
		return o;
	o += snprintf(out + o, len - (size_t)o, " kind=%s id=%u",
		rq->kind == MRCD_PROFILE_EV ? "ev" : "cc", rq->id);
	if (rq->cmd == MRCD_CTL_PROFILE_STATE)
		o += snprintf(out + o, len - (size_t)o, " state=%s", states[rq->pstate & 3]);
	if (rq->change.has_algorithm)
		o += snprintf(out + o, len - (size_t)o, " algorithm=%s", rq->change.algorithm);
	for (unsigned int i = 0; i < rq->change.n; i++)
		o += snprintf(out + o, len - (size_t)o, " %s=%u",
			mrcd_profile_fields[rq->change.field[i]].name, rq->change.value[i]);
	return o;
}

/* The request written back as a client would send it. */
static int
unparse(const struct mrcd_ctl_req *rq, char *out, size_t len)
{
	static const char *const names[] = {"status", "events", "deny", "allow", "port", "probe"};
	int o;

	if (is_profile(rq->cmd))
		return unparse_profile(rq, out, len);
	if (rq->cmd == MRCD_CTL_RELOAD)
		return snprintf(out, len, "reload");
	if (rq->cmd == MRCD_CTL_FAIL)
		return snprintf(out, len, "fail host=%d qpn=0x%x", rq->host, rq->qpn);
	o = snprintf(out, len, "%s", names[rq->cmd]);

	if (rq->cmd == MRCD_CTL_STATUS || rq->cmd == MRCD_CTL_EVENTS)
		return o;
	if (rq->host == MRCD_CTL_ALL_HOSTS)
		o += snprintf(out + o, len - (size_t)o, " host=all");
	else
		o += snprintf(out + o, len - (size_t)o, " host=%d", rq->host);
	if (rq->has_qp)
		o += snprintf(out + o, len - (size_t)o, " qpn=0x%x ev=%u", rq->qpn, rq->ev);
	if (rq->has_peer)
		o += snprintf(out + o, len - (size_t)o, " peer=%u ev=%u", rq->peer, rq->ev);
	if (rq->has_plane)
		o += snprintf(out + o, len - (size_t)o, " plane=%u", rq->plane);
	if (rq->has_t1)
		o += snprintf(out + o, len - (size_t)o, " t1=%u", rq->t1);
	if (rq->cmd == MRCD_CTL_PORT)
		o += snprintf(out + o, len - (size_t)o, " state=%s", rq->down ? "down" : "up");
	return o;
}

static void
one_request(const char *line, size_t len)
{
	struct mrcd_ctl_req rq, again;
	char err[256], back[MRCD_CTL_MAX_LINE];
	int rc, n;

	memset(err, 0x55, sizeof(err));
	rc = mrcd_ctl_parse(line, len, &lim, &rq, err, sizeof(err));
	if (rc != 0) {
		FUZZ_CHECK(rc == -EINVAL, "parse returned %d", rc);
		FUZZ_CHECK(memchr(err, '\0', sizeof(err)) != NULL, "error not terminated");
		check_err(err);
		return;
	}
	FUZZ_CHECK(rq.cmd <= MRCD_CTL_FAIL, "command %d", (int)rq.cmd);
	FUZZ_CHECK(rq.cmd != MRCD_CTL_FAIL || (rq.host >= 0 && rq.has_qp), "fail: one QP");
	FUZZ_CHECK(rq.cmd != MRCD_CTL_PROBE || rq.host >= 0, "probe: one host");
	if (is_profile(rq.cmd)) {
		FUZZ_CHECK(rq.id < MRCD_PROFILE_MAX && rq.kind < MRCD_PROFILE_KINDS,
			"profile %u of kind %u", rq.id, rq.kind);
		FUZZ_CHECK(rq.change.n <= MRCD_PROFILE_MAX_CHANGES, "%u changes", rq.change.n);
		for (unsigned int i = 0; i < rq.change.n; i++)
			FUZZ_CHECK(
				rq.change.field[i] < MRCD_PF_COUNT, "field %u", rq.change.field[i]);
		FUZZ_CHECK(rq.cmd != MRCD_CTL_PROFILE_STATE ||
				   (rq.pstate >= MRCD_PROFILE_INIT &&
					   rq.pstate <= MRCD_PROFILE_ONLINE),
			"state %u", rq.pstate);
	} else if (rq.cmd != MRCD_CTL_STATUS && rq.cmd != MRCD_CTL_EVENTS &&
		   rq.cmd != MRCD_CTL_RELOAD) {
		FUZZ_CHECK(rq.host == MRCD_CTL_ALL_HOSTS || (rq.host >= 0 && rq.host < 3),
			"host %d", rq.host);
		FUZZ_CHECK(
			(int)rq.has_qp + (int)rq.has_plane + (int)rq.has_peer == 1, "one selector");
		FUZZ_CHECK(!rq.has_peer || (rq.cmd == MRCD_CTL_PROBE && rq.host >= 0),
			"peer=: a probe from one host");
		FUZZ_CHECK(
			rq.cmd != MRCD_CTL_PORT || (rq.has_plane && !rq.has_t1), "port: a plane");
		FUZZ_CHECK(rq.cmd == MRCD_CTL_PORT || !rq.down, "state= outside port");
		FUZZ_CHECK(!rq.has_t1 || rq.has_plane, "a T1 needs its plane");
		FUZZ_CHECK(!rq.has_plane || rq.plane < 8, "plane %u", rq.plane);
		FUZZ_CHECK(!rq.has_t1 || rq.t1 < 4, "t1 %u", rq.t1);
		FUZZ_CHECK(!rq.has_qp || rq.host >= 0, "an EV of a QP on every host");
	}
	n = unparse(&rq, back, sizeof(back));
	FUZZ_CHECK(n > 0 && (size_t)n < sizeof(back), "written back: %d bytes", n);
	FUZZ_CHECK(mrcd_ctl_parse(back, (size_t)n, &lim, &again, err, sizeof(err)) == 0,
		"'%s' does not parse again: %s", back, err);
	FUZZ_CHECK(memcmp(&rq, &again, sizeof(rq)) == 0, "'%s' parses to another request", back);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size;
	bool first = true;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const size_t len = (size_t)((nl != NULL ? nl : end) - p);

		if (first) {
			unsigned int v = 0;
			char err[256];
			const int rc = mrcd_ctl_parse_hello(p, len, &v, err, sizeof(err));

			FUZZ_CHECK(
				rc == 0 || rc == -EINVAL || rc == -EPROTONOSUPPORT, "hello %d", rc);
			FUZZ_CHECK(rc != 0 || v == MRCD_CTL_VERSION, "version %u", v);
			first = false;
		} else {
			one_request(p, len);
		}
		p += len + 1;
	}
	return 0;
}
