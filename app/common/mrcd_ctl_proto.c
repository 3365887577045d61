/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * The control protocol's parser (mrcd_ctl_proto.h). A request is split
 * into words at single or repeated spaces; the first is the command, the
 * rest key=value pairs, each key at most once. Numbers are decimal or
 * 0x-hex, at most 32 bits, nothing after them. Every refusal names the
 * word it refused, cut to a printable excerpt.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mrcd_ctl_proto.h"

/* Longest word (command, key or value) we take. */
#define WORD_MAX 64

struct word {
	const char *p;
	size_t n;
};

static int
fail(char *err, size_t errlen, const char *fmt, const char *what, size_t n)
{
	char w[WORD_MAX + 1];
	size_t k = 0;

	/* Only printable bytes of what was refused go back (it may be anything). */
	for (size_t i = 0; i < n && k < WORD_MAX; i++)
		w[k++] = what[i] >= 0x20 && what[i] < 0x7f ? what[i] : '?';
	w[k] = '\0';
	if (err != NULL && errlen > 0) {
		/* fmt holds at most one %s, where the excerpt goes */
		const char *at = strstr(fmt, "%s");
		const int pre = at != NULL ? (int)(at - fmt) : (int)strlen(fmt);

		snprintf(err, errlen, "%.*s%s%s", pre, fmt, at != NULL ? w : "",
			at != NULL ? at + 2 : "");
	}
	return -EINVAL;
}

static bool
word_is(const struct word *w, const char *s)
{
	return strlen(s) == w->n && memcmp(w->p, s, w->n) == 0;
}

/* Split at spaces; -1 on a byte that is not printable ASCII or too many words. */
static int
split(const char *line, size_t len, struct word *out, unsigned int max, unsigned int *n, char *err,
	size_t errlen)
{
	*n = 0;
	for (size_t i = 0; i < len;) {
		if (line[i] == ' ') {
			i++;
			continue;
		}
		size_t j = i;

		while (j < len && line[j] != ' ') {
			if ((unsigned char)line[j] < 0x21 || (unsigned char)line[j] > 0x7e)
				return fail(err, errlen, "syntax byte not printable ASCII in '%s'",
					line + i, j - i + 1);
			j++;
		}
		if (*n == max)
			return fail(
				err, errlen, "syntax too many words, from '%s'", line + i, j - i);
		out[(*n)++] = (struct word){line + i, j - i};
		i = j;
	}
	return 0;
}

/* A number: decimal or 0x-hex, at most 32 bits. */
static bool
number(const struct word *w, uint32_t *out)
{
	uint64_t v = 0;
	size_t i = 0;
	unsigned int base = 10;

	if (w->n >= 2 && w->p[0] == '0' && (w->p[1] == 'x' || w->p[1] == 'X')) {
		base = 16;
		i = 2;
	}
	if (i == w->n || w->n - i > 10)
		return false;
	for (; i < w->n; i++) {
		const char c = w->p[i];
		unsigned int d;

		if (c >= '0' && c <= '9')
			d = (unsigned int)(c - '0');
		else if (base == 16 && c >= 'a' && c <= 'f')
			d = (unsigned int)(c - 'a' + 10);
		else if (base == 16 && c >= 'A' && c <= 'F')
			d = (unsigned int)(c - 'A' + 10);
		else
			return false;
		v = v * base + d;
	}
	if (v > UINT32_MAX)
		return false;
	*out = (uint32_t)v;
	return true;
}

bool
mrcd_ctl_changes(enum mrcd_ctl_cmd cmd)
{
	return cmd == MRCD_CTL_DENY || cmd == MRCD_CTL_ALLOW || cmd == MRCD_CTL_PORT ||
	       cmd == MRCD_CTL_PROFILE_ADD || cmd == MRCD_CTL_PROFILE_SET ||
	       cmd == MRCD_CTL_PROFILE_STATE || cmd == MRCD_CTL_PROFILE_DEL ||
	       cmd == MRCD_CTL_RELOAD || cmd == MRCD_CTL_FAIL;
}

int
mrcd_ctl_parse_hello(const char *line, size_t len, unsigned int *version, char *err, size_t errlen)
{
	struct word w[3];
	unsigned int n;
	uint32_t v;

	if (split(line, len, w, 3, &n, err, errlen) != 0)
		return -EINVAL;
	if (n != 2 || !word_is(&w[0], "MRCCTL"))
		return fail(err, errlen, "syntax the first line is MRCCTL <version>, not '%s'",
			line, len);
	if (!number(&w[1], &v))
		return fail(err, errlen, "syntax version '%s' is not a number", w[1].p, w[1].n);
	if (v != MRCD_CTL_VERSION) {
		if (err != NULL && errlen > 0)
			snprintf(err, errlen, "version %u not spoken: this mrcd speaks %u",
				(unsigned int)v, MRCD_CTL_VERSION);
		return -EPROTONOSUPPORT;
	}
	*version = v;
	return 0;
}

static const struct {
	const char *name;
	enum mrcd_ctl_cmd cmd;
} commands[] = {
	{"status", MRCD_CTL_STATUS},
	{"events", MRCD_CTL_EVENTS},
	{"deny", MRCD_CTL_DENY},
	{"allow", MRCD_CTL_ALLOW},
	{"port", MRCD_CTL_PORT},
	{"probe", MRCD_CTL_PROBE},
	{"profile", MRCD_CTL_PROFILE_LIST}, /* the second word says which */
	{"reload", MRCD_CTL_RELOAD},
	{"fail", MRCD_CTL_FAIL},
};

static const struct {
	const char *name;
	enum mrcd_ctl_cmd cmd;
} profile_subs[] = {
	{"list", MRCD_CTL_PROFILE_LIST},
	{"show", MRCD_CTL_PROFILE_SHOW},
	{"add", MRCD_CTL_PROFILE_ADD},
	{"set", MRCD_CTL_PROFILE_SET},
	{"state", MRCD_CTL_PROFILE_STATE},
	{"del", MRCD_CTL_PROFILE_DEL},
};

/* An algorithm name: lower-case letters, digits, '.', '-', '_' (the CC registry's names). */
static bool
alg_name(const struct word *w)
{
	if (w->n == 0 || w->n >= MRCD_PROFILE_ALG_MAX)
		return false;
	for (size_t i = 0; i < w->n; i++) {
		const char c = w->p[i];

		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '-' ||
			    c == '_'))
			return false;
	}
	return true;
}

/*
 * "profile <sub> [key=value ...]" (doc/control.md, "Profiles"): list takes
 * nothing; the others kind= and id=; state state=; add and set the fields
 * (and algorithm=) to change, set at least one.
 */
static int
parse_profile(
	const struct word *w, unsigned int n, struct mrcd_ctl_req *out, char *err, size_t errlen)
{
	enum { K_KIND = 1, K_ID = 2, K_STATE = 4 };
	unsigned int seen = 0, s;
	uint64_t fields_seen = 0;

	if (n < 2)
		return fail(err, errlen, "bad-arg profile list|show|add|set|state|del%s", "", 0);
	for (s = 0; s < sizeof(profile_subs) / sizeof(profile_subs[0]); s++)
		if (word_is(&w[1], profile_subs[s].name))
			break;
	if (s == sizeof(profile_subs) / sizeof(profile_subs[0]))
		return fail(err, errlen,
			"unknown-command 'profile %s': list, show, add, set, state or del", w[1].p,
			w[1].n);
	out->cmd = profile_subs[s].cmd;
	if (out->cmd == MRCD_CTL_PROFILE_LIST) {
		if (n > 2)
			return fail(err, errlen, "bad-arg profile list takes no argument: '%s'",
				w[2].p, w[2].n);
		return 0;
	}
	for (unsigned int i = 2; i < n; i++) {
		const char *eq = memchr(w[i].p, '=', w[i].n);
		struct word key, val;
		uint32_t v;
		int f;

		if (eq == NULL || eq == w[i].p || eq == w[i].p + w[i].n - 1)
			return fail(err, errlen, "syntax '%s' is not key=value", w[i].p, w[i].n);
		key = (struct word){w[i].p, (size_t)(eq - w[i].p)};
		val = (struct word){eq + 1, w[i].n - key.n - 1};
		if (word_is(&key, "kind")) {
			if (seen & K_KIND)
				return fail(err, errlen, "bad-arg key '%s' given twice", "kind", 4);
			seen |= K_KIND;
			if (word_is(&val, "ev"))
				out->kind = MRCD_PROFILE_EV;
			else if (word_is(&val, "cc"))
				out->kind = MRCD_PROFILE_CC;
			else
				return fail(
					err, errlen, "bad-arg kind '%s': ev or cc", val.p, val.n);
			continue;
		}
		if (word_is(&key, "id")) {
			if (seen & K_ID)
				return fail(err, errlen, "bad-arg key '%s' given twice", "id", 2);
			seen |= K_ID;
			if (!number(&val, &v))
				return fail(err, errlen,
					"bad-arg '%s': not a number (decimal or 0x-hex, 32 bits)",
					key.p, w[i].n);
			if (v >= MRCD_PROFILE_MAX)
				return fail(err, errlen,
					"no-such-profile id '%s': profile ids are 0..15", val.p,
					val.n);
			out->id = (uint8_t)v;
			continue;
		}
		if (word_is(&key, "state") && out->cmd == MRCD_CTL_PROFILE_STATE) {
			if (seen & K_STATE)
				return fail(
					err, errlen, "bad-arg key '%s' given twice", "state", 5);
			seen |= K_STATE;
			if (word_is(&val, "init"))
				out->pstate = MRCD_PROFILE_INIT;
			else if (word_is(&val, "offline"))
				out->pstate = MRCD_PROFILE_OFFLINE;
			else if (word_is(&val, "online"))
				out->pstate = MRCD_PROFILE_ONLINE;
			else
				return fail(err, errlen,
					"bad-arg state '%s': init, offline or online", val.p,
					val.n);
			continue;
		}
		if (out->cmd != MRCD_CTL_PROFILE_ADD && out->cmd != MRCD_CTL_PROFILE_SET)
			return fail(err, errlen, "bad-arg unknown key '%s'", key.p, key.n);
		if (word_is(&key, "algorithm")) {
			if (out->change.has_algorithm)
				return fail(
					err, errlen, "bad-arg key '%s' given twice", key.p, key.n);
			if (!alg_name(&val))
				return fail(err, errlen, "bad-arg algorithm '%s' is not a name",
					val.p, val.n);
			out->change.has_algorithm = true;
			memcpy(out->change.algorithm, val.p, val.n);
			out->change.algorithm[val.n] = '\0';
			continue;
		}
		f = mrcd_profile_field_find(key.p, key.n);
		if (f < 0)
			return fail(err, errlen, "bad-arg unknown key '%s'", key.p, key.n);
		if (fields_seen & (1ull << f))
			return fail(err, errlen, "bad-arg key '%s' given twice", key.p, key.n);
		fields_seen |= 1ull << f;
		if (!number(&val, &v))
			return fail(err, errlen,
				"bad-arg '%s': not a number (decimal or 0x-hex, 32 bits)", key.p,
				w[i].n);
		/* n is at most MRCD_CTL_MAX_ARGS + 1 words, so the changes fit */
		out->change.field[out->change.n] = (uint8_t)f;
		out->change.value[out->change.n++] = v;
	}
	if ((seen & (K_KIND | K_ID)) != (K_KIND | K_ID))
		return fail(err, errlen, "bad-arg profile %s needs kind=ev|cc and id=N", w[1].p,
			w[1].n);
	if (out->cmd == MRCD_CTL_PROFILE_STATE && !(seen & K_STATE))
		return fail(err, errlen, "bad-arg profile state needs state=init|offline|online%s",
			"", 0);
	if (out->cmd == MRCD_CTL_PROFILE_SET && out->change.n == 0 && !out->change.has_algorithm)
		return fail(err, errlen, "bad-arg profile set needs a field to change%s", "", 0);
	return 0;
}

/* Keys of deny, allow, probe, port and fail; bit i of `seen` for keys[i]. */
static const char *const keys[] = {"host", "plane", "t1", "qpn", "ev", "state", "peer"};

static int
one_arg(const struct word *key, const struct word *val, unsigned int k,
	const struct mrcd_ctl_limits *lim, struct mrcd_ctl_req *out, char *err, size_t errlen)
{
	uint32_t v = 0;

	if (k == 0 && word_is(val, "all")) {
		out->host = MRCD_CTL_ALL_HOSTS;
		return 0;
	}
	if (k == 5) {
		if (!word_is(val, "up") && !word_is(val, "down"))
			return fail(err, errlen, "bad-arg state '%s': up or down", val->p, val->n);
		out->down = word_is(val, "down");
		return 0;
	}
	if (!number(val, &v))
		return fail(err, errlen, "bad-arg '%s': not a number (decimal or 0x-hex, 32 bits)",
			key->p, key->n + 1 + val->n);
	switch (k) {
	case 0:
		if (v >= lim->n_hosts)
			return fail(err, errlen, "no-such-host host '%s' is not one of this mrcd's",
				val->p, val->n);
		out->host = (int)v;
		break;
	case 1:
		if (v >= lim->n_planes)
			return fail(err, errlen, "no-such-plane plane '%s' does not exist", val->p,
				val->n);
		out->plane = (uint8_t)v;
		out->has_plane = true;
		break;
	case 2:
		if (v >= lim->n_t1)
			return fail(
				err, errlen, "no-such-path t1 '%s' does not exist", val->p, val->n);
		out->t1 = (uint8_t)v;
		out->has_t1 = true;
		break;
	case 3:
		out->qpn = v;
		out->has_qp = true;
		break;
	case 6:
		/* a cluster-wide host number; whether it is one elsewhere, mrcd says */
		if (v > 255)
			return fail(err, errlen, "no-such-host peer '%s' is no host of the cluster",
				val->p, val->n);
		out->peer = (uint8_t)v;
		out->has_peer = true;
		break;
	default:
		out->ev = v;
		break;
	}
	return 0;
}

int
mrcd_ctl_parse(const char *line, size_t len, const struct mrcd_ctl_limits *lim,
	struct mrcd_ctl_req *out, char *err, size_t errlen)
{
	struct word w[MRCD_CTL_MAX_ARGS + 1];
	unsigned int n, seen = 0, c;

	memset(out, 0, sizeof(*out));
	if (len >= MRCD_CTL_MAX_LINE)
		return fail(err, errlen, "syntax line longer than 511 bytes: '%s'", line, 16);
	if (split(line, len, w, sizeof(w) / sizeof(w[0]), &n, err, errlen) != 0)
		return -EINVAL;
	if (n == 0)
		return fail(err, errlen, "syntax empty request%s", "", 0);
	for (c = 0; c < sizeof(commands) / sizeof(commands[0]); c++)
		if (word_is(&w[0], commands[c].name))
			break;
	if (c == sizeof(commands) / sizeof(commands[0]))
		return fail(err, errlen, "unknown-command '%s'", w[0].p, w[0].n);
	out->cmd = commands[c].cmd;
	if (out->cmd == MRCD_CTL_PROFILE_LIST)
		return parse_profile(w, n, out, err, errlen);
	if (out->cmd == MRCD_CTL_STATUS || out->cmd == MRCD_CTL_EVENTS ||
		out->cmd == MRCD_CTL_RELOAD) {
		if (n > 1)
			return fail(err, errlen, "bad-arg this command takes no argument: '%s'",
				w[1].p, w[1].n);
		return 0;
	}
	for (unsigned int i = 1; i < n; i++) {
		const char *eq = memchr(w[i].p, '=', w[i].n);
		struct word key, val;
		unsigned int k;

		if (eq == NULL || eq == w[i].p || eq == w[i].p + w[i].n - 1)
			return fail(err, errlen, "syntax '%s' is not key=value", w[i].p, w[i].n);
		key = (struct word){w[i].p, (size_t)(eq - w[i].p)};
		val = (struct word){eq + 1, w[i].n - key.n - 1};
		for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
			if (word_is(&key, keys[k]))
				break;
		if (k == sizeof(keys) / sizeof(keys[0]))
			return fail(err, errlen, "bad-arg unknown key '%s'", key.p, key.n);
		if (seen & (1u << k))
			return fail(err, errlen, "bad-arg key '%s' given twice", key.p, key.n);
		seen |= 1u << k;
		if (one_arg(&key, &val, k, lim, out, err, errlen) != 0)
			return -EINVAL;
	}
	/* What the arguments name: exactly one thing. */
	if (!(seen & 1))
		return fail(err, errlen, "bad-arg host=<n>|all is required%s", "", 0);
	if (out->cmd == MRCD_CTL_PORT) {
		if (seen != (1u | 2u | 32u))
			return fail(err, errlen,
				"bad-arg port takes host=, plane= and state=up|down%s", "", 0);
		return 0;
	}
	if (out->cmd == MRCD_CTL_FAIL) {
		if (seen != (1u | 8u) || out->host == MRCD_CTL_ALL_HOSTS)
			return fail(
				err, errlen, "bad-arg fail takes one host= and a qpn=%s", "", 0);
		return 0;
	}
	if (seen & 32u)
		return fail(err, errlen, "bad-arg state= goes with port, not '%s'", w[0].p, w[0].n);
	if (out->has_peer) {
		/* probe host=N peer=C ev=E: an endpoint EV probe to a host of another process */
		if (out->cmd != MRCD_CTL_PROBE)
			return fail(err, errlen, "bad-arg peer= goes with probe, not '%s'", w[0].p,
				w[0].n);
		if (seen != (1u | 16u | 64u))
			return fail(err, errlen, "bad-arg probe peer= takes host=, peer= and ev=%s",
				"", 0);
		if (out->host == MRCD_CTL_ALL_HOSTS)
			return fail(
				err, errlen, "bad-arg probe needs one host, not '%s'", "all", 3);
		return 0;
	}
	if (out->has_qp != ((seen >> 4) & 1))
		return fail(err, errlen, "bad-arg qpn= and ev= go together%s", "", 0);
	if (out->has_qp && (out->has_plane || out->has_t1))
		return fail(err, errlen,
			"bad-arg name an EV (qpn= ev=) or a path (plane= [t1=]), not both%s", "",
			0);
	if (out->has_qp && out->host == MRCD_CTL_ALL_HOSTS)
		return fail(
			err, errlen, "bad-arg an EV of a QP needs its host, not '%s'", "all", 3);
	if (!out->has_qp && !out->has_plane)
		return fail(
			err, errlen, "bad-arg name a plane= (and t1=) or a qpn= and ev=%s", "", 0);
	if (out->cmd == MRCD_CTL_PROBE && out->host == MRCD_CTL_ALL_HOSTS)
		return fail(err, errlen, "bad-arg probe needs one host, not '%s'", "all", 3);
	return 0;
}

/* A directory we may put the socket in: made if `make`, else only if it exists. */
static bool
usable_dir(const char *dir, mode_t mode, bool make)
{
	struct stat st;

	if (make && mkdir(dir, mode) == 0)
		return true;
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
		return false;
	return !make || access(dir, W_OK) == 0;
}

int
mrcd_ctl_default_path(char *out, size_t outlen, bool make, int host)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	char dirs[3][256], name[32];
	unsigned int n = 0;
	int w;

	if (host >= 0)
		snprintf(name, sizeof(name), "control-h%d.sock", host);
	else
		snprintf(name, sizeof(name), "control.sock");
	snprintf(dirs[n++], sizeof(dirs[0]), "/run/mrcd");
	if (xdg != NULL && xdg[0] == '/' && strlen(xdg) < 200)
		snprintf(dirs[n++], sizeof(dirs[0]), "%s/mrcd", xdg);
	snprintf(dirs[n++], sizeof(dirs[0]), "/tmp/mrcd-%ld", (long)getuid());
	for (unsigned int i = 0; i < n; i++) {
		struct stat st;

		if (make ? !usable_dir(dirs[i], i == 0 ? 0755 : 0700, true) : false)
			continue;
		if (!make) {
			/* The client: the first place a daemon's socket is. */
			char p[sizeof(dirs[0]) + sizeof(name) + 1];

			snprintf(p, sizeof(p), "%.255s/%s", dirs[i], name);
			if (stat(p, &st) != 0 || !S_ISSOCK(st.st_mode))
				continue;
		}
		w = snprintf(out, outlen, "%s/%s", dirs[i], name);
		return w < 0 || (size_t)w >= outlen ? -ENAMETOOLONG : 0;
	}
	if (make)
		return -EACCES;
	/* No daemon anywhere: name the first place, so the error says where we looked. */
	w = snprintf(out, outlen, "%s/%s", dirs[0], name);
	return w < 0 || (size_t)w >= outlen ? -ENAMETOOLONG : 0;
}
