/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Scenario files: faults on a timeline, as INI (rte_cfgfile, ';' comments).
 *
 *   [scenario]                   optional: name = ..., description = ...
 *
 *   [event.<name>]               one fault change (or one flapping element)
 *   at        = 2s               when, from the fabric's start: an integer
 *                                with unit ns, us, ms or s; at most 1 day
 *   element   = plane            fabric | plane | t0 | t1 | link | host_link
 *   plane     = 3                0..n_planes-1 (every element but fabric)
 *   t0        = 1                element t0 or link: 0..n_t0-1
 *   t1        = 2                element t1 or link: 0..n_t1-1
 *   host      = 0                element host_link: 0..n_hosts-1
 *   direction = both             link, host_link: both | up | down (both);
 *                                up = toward T1 / host -> T0
 *   action    = down             up | down | blackhole | loss | mark | flap |
 *                                drop_request
 *   loss      = 0.01             action loss: probability 0..1
 *   mark      = 1                action mark: forced ECN probability 0..1
 *   count     = 1                action drop_request: the next 1..1000
 *                                endpoint requests (0xD8) on each link the
 *                                element covers are lost
 *   period    = 200ms            action flap: one down + up cycle, >= 2 ns
 *   until     = 3s               action flap: when it stops (> at), left up
 *
 * A flap is expanded at load into its transitions: down at at + k * period,
 * up half a period later (or at `until`), for every k with at + k * period
 * < until. Events at the same time apply in file order.
 *
 * Strict, because a typo in a fault drill silently turns it into no drill:
 * an unknown section or key, a key that does not apply to the element, a
 * missing key, a number out of range or a section twice fails the whole
 * file (nothing is scheduled), and the message names the file, the line,
 * the section, the key and what is allowed. rte_cfgfile does not keep line
 * numbers, so the line is found by scanning the file again for the section
 * and key; that only happens on the error path.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cfgfile.h>

#include "fabric_priv.h"

#define MAX_KEYS     16
#define DAY_NS	     (86400ull * 1000000000ull)
#define EVENT_PREFIX "event."
/* The index of "flap" in event_section's names: never an event's action (expanded into DOWN
 * and UP events), so it may equal an action the files cannot name (MRC_FABRIC_ACT_CLEAR). */
#define ACT_FLAP (MRC_FABRIC_ACT_DROP_REQUEST + 1)
#define EVENT_KEYS \
	"at, element, plane, t0, t1, host, direction, action, loss, mark, count, period, until"

struct ctx {
	const struct mrc_fabric *fab; /* its sizes only: read-only after create */
	char *why;		      /* the error message goes here */
	size_t why_len;
	const char *path;
	const char *section;
	struct rte_cfgfile_entry *kv;
	int n_kv;
};

/* ---- messages ---- */

/* The line of `key` in [section] (or of the section header when key is NULL); 0 if unknown. */
static unsigned int
find_line(const char *path, const char *section, const char *key)
{
	char buf[512];
	unsigned int line = 0, sec_line = 0;
	bool in = false;
	FILE *f = fopen(path, "r");

	if (f == NULL)
		return 0;
	while (fgets(buf, sizeof(buf), f) != NULL) {
		char *p = buf, *e;

		line++;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '[') {
			e = strchr(p, ']');
			if (e == NULL)
				continue;
			/* rte_cfgfile strips blanks around a section name: so do we. */
			while (e > p + 1 && (e[-1] == ' ' || e[-1] == '\t'))
				e--;
			*e = '\0';
			for (p++; *p == ' ' || *p == '\t'; p++)
				;
			in = strcmp(p, section) == 0;
			if (in && sec_line == 0)
				sec_line = line;
			if (in && key == NULL)
				break;
			continue;
		}
		if (in && key != NULL) {
			const size_t kl = strlen(key);

			if (strncmp(p, key, kl) == 0 &&
				(p[kl] == ' ' || p[kl] == '\t' || p[kl] == '=')) {
				fclose(f);
				return line;
			}
		}
	}
	fclose(f);
	return sec_line;
}

/* Format the error into c->why: "<file>:<line>: [<section>] <key>: <msg>"; returns rc. */
static int fail(struct ctx *c, int rc, const char *key, const char *fmt, ...)
	__rte_format_printf(4, 5);

static int
fail(struct ctx *c, int rc, const char *key, const char *fmt, ...)
{
	char msg[200];
	char where[16] = "";
	unsigned int line = c->section != NULL ? find_line(c->path, c->section, key) : 0;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (line != 0)
		snprintf(where, sizeof(where), "%u:", line);
	if (c->section == NULL)
		snprintf(c->why, c->why_len, "%s: %s", c->path, msg);
	else if (key == NULL)
		snprintf(c->why, c->why_len, "%s:%s [%s] %s", c->path, where, c->section, msg);
	else
		snprintf(c->why, c->why_len, "%s:%s [%s] %s: %s", c->path, where, c->section, key,
			msg);
	return rc;
}

/* ---- values ---- */

static const char *
get(const struct ctx *c, const char *key)
{
	for (int i = 0; i < c->n_kv; i++)
		if (strcmp(c->kv[i].name, key) == 0)
			return c->kv[i].value;
	return NULL;
}

/* A decimal integer 0..max, nothing else. 0 or -1. */
static int
parse_uint(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (*s == '\0')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (v > (UINT64_MAX - 9) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	if (*s != '\0' || v > max)
		return -1;
	*out = v;
	return 0;
}

/* "<integer><ns|us|ms|s>" -> ns, at most 1 day. 0 or -1. */
static int
parse_time(const char *s, uint64_t *ns)
{
	static const struct {
		const char *unit;
		uint64_t mul;
	} units[] = {{"ns", 1}, {"us", 1000}, {"ms", 1000000}, {"s", 1000000000}};
	char num[32];
	size_t n = 0;
	uint64_t v;

	while (s[n] >= '0' && s[n] <= '9')
		n++;
	if (n == 0 || n >= sizeof(num))
		return -1;
	memcpy(num, s, n);
	num[n] = '\0';
	for (unsigned int i = 0; i < RTE_DIM(units); i++) {
		if (strcmp(s + n, units[i].unit) != 0)
			continue;
		if (parse_uint(num, DAY_NS / units[i].mul, &v) != 0)
			return -1;
		*ns = v * units[i].mul;
		return 0;
	}
	return -1;
}

/* Index of `s` in `names`, or -1. */
static int
lookup(const char *s, const char *const *names, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		if (strcmp(s, names[i]) == 0)
			return (int)i;
	return -1;
}

/* An index key that must be present (need) or absent (!need). */
static int
index_key(
	struct ctx *c, const char *key, bool need, unsigned int n, const char *elem, uint16_t *out)
{
	const char *v = get(c, key);
	uint64_t x;

	if (v == NULL && need)
		return fail(c, -EINVAL, NULL, "%s: missing (element %s needs it: 0..%u)", key, elem,
			n - 1);
	if (v == NULL)
		return 0;
	if (!need)
		return fail(c, -EINVAL, key, "does not apply to element %s", elem);
	if (parse_uint(v, n - 1, &x) != 0)
		return fail(c, -EINVAL, key, "'%s' is out of range (allowed 0..%u)", v, n - 1);
	*out = (uint16_t)x;
	return 0;
}

/* ---- sections ---- */

static int
check_keys(struct ctx *c, const char *const *allowed, unsigned int n, const char *list)
{
	for (int i = 0; i < c->n_kv; i++)
		if (lookup(c->kv[i].name, allowed, n) < 0)
			return fail(c, -EINVAL, c->kv[i].name, "unknown key (allowed: %s)", list);
	return 0;
}

static int
scenario_section(struct ctx *c)
{
	static const char *const keys[] = {"name", "description"};

	return check_keys(c, keys, RTE_DIM(keys), "name, description");
}

/* element, its indexes and direction -> ev->target. 0 or the failure. */
static int
parse_target(struct ctx *c, struct mrc_fabric_target *t)
{
	static const char *const elems[] = {"fabric", "plane", "t0", "t1", "link", "host_link"};
	static const char *const dirs[] = {"both", "up", "down"};
	const struct mrc_fabric *fab = c->fab;
	uint16_t plane = 0, unused = 0, *t0 = NULL, *t1 = NULL, *host = NULL;
	const char *v = get(c, "element"), *en;
	int e, d, rc;

	if (v == NULL)
		return fail(c, -EINVAL, NULL,
			"element: missing (fabric, plane, t0, t1, link, host_link)");
	e = lookup(v, elems, RTE_DIM(elems));
	if (e < 0)
		return fail(c, -EINVAL, "element",
			"'%s' unknown (allowed: fabric, plane, t0, t1, link, host_link)", v);
	en = elems[e];
	t->elem = (uint8_t)e;
	/* Which index keys the element takes, and where each goes. */
	switch (e) {
	case MRC_FABRIC_ELEM_T0:
		t0 = &t->a;
		break;
	case MRC_FABRIC_ELEM_T1:
		t1 = &t->a;
		break;
	case MRC_FABRIC_ELEM_LINK:
		t0 = &t->a;
		t1 = &t->b;
		break;
	case MRC_FABRIC_ELEM_HOST_LINK:
		host = &t->a;
		break;
	default:
		break;
	}
	rc = index_key(c, "plane", e != MRC_FABRIC_ELEM_FABRIC, fab->n_planes, en, &plane);
	if (rc == 0)
		rc = index_key(c, "t0", t0 != NULL, fab->n_t0, en, t0 ? t0 : &unused);
	if (rc == 0)
		rc = index_key(c, "t1", t1 != NULL, fab->n_t1, en, t1 ? t1 : &unused);
	if (rc == 0)
		rc = index_key(c, "host", host != NULL, fab->n_hosts, en, host ? host : &unused);
	if (rc != 0)
		return rc;
	t->plane = (uint8_t)plane;
	v = get(c, "direction");
	if (v == NULL)
		return 0;
	if (e != MRC_FABRIC_ELEM_LINK && e != MRC_FABRIC_ELEM_HOST_LINK)
		return fail(c, -EINVAL, "direction",
			"does not apply to element %s (only link, host_link)", en);
	d = lookup(v, dirs, RTE_DIM(dirs));
	if (d < 0)
		return fail(c, -EINVAL, "direction", "'%s' unknown (allowed: both, up, down)", v);
	t->dir = (uint8_t)d;
	return 0;
}

/* The probability under `key`: required by its action (`wanted`), refused by others. */
static int
probability(struct ctx *c, const char *key, bool wanted, double *out)
{
	const char *v = get(c, key);
	char *end;

	if (wanted && v == NULL)
		return fail(c, -EINVAL, NULL, "%s: missing (action %s needs a probability 0..1)",
			key, key);
	if (!wanted && v != NULL)
		return fail(c, -EINVAL, key, "applies to action %s only", key);
	if (v == NULL)
		return 0;
	errno = 0;
	*out = strtod(v, &end);
	if (errno != 0 || end == v || *end != '\0' || !(*out >= 0.0 && *out <= 1.0))
		return fail(c, -EINVAL, key, "'%s' is not a probability (allowed 0..1)", v);
	return 0;
}

/* Append events for one [event.*] section to out[*n] (room for `room` in all). */
static int
event_section(struct ctx *c, const char *tag, struct mrc_fabric_event *out, unsigned int *n,
	unsigned int room)
{
	static const char *const keys[] = {"at", "element", "plane", "t0", "t1", "host",
		"direction", "action", "loss", "mark", "count", "period", "until"};
	static const char *const acts[] = {
		"up", "down", "blackhole", "loss", "mark", "drop_request", "flap"};
	struct mrc_fabric_event ev;
	uint64_t at, period = 0, until = 0, x;
	const char *v;
	int a, rc;

	rc = check_keys(c, keys, RTE_DIM(keys), EVENT_KEYS);
	if (rc != 0)
		return rc;
	memset(&ev, 0, sizeof(ev));
	snprintf(ev.source, sizeof(ev.source), "%s:%s", tag, c->section);

	v = get(c, "at");
	if (v == NULL)
		return fail(c, -EINVAL, NULL, "at: missing (a time like 2s, 1500ms, 250us)");
	if (parse_time(v, &at) != 0)
		return fail(c, -EINVAL, "at",
			"'%s' is not a time (allowed: an integer with unit ns, us, ms or s, "
			"0..1 day)",
			v);
	rc = parse_target(c, &ev.target);
	if (rc != 0)
		return rc;

	v = get(c, "action");
	if (v == NULL)
		return fail(c, -EINVAL, NULL,
			"action: missing (up, down, blackhole, loss, mark, drop_request, flap)");
	a = lookup(v, acts, RTE_DIM(acts));
	if (a < 0)
		return fail(c, -EINVAL, "action",
			"'%s' unknown (allowed: up, down, blackhole, loss, mark, drop_request, "
			"flap)",
			v);
	rc = probability(c, "loss", a == MRC_FABRIC_ACT_LOSS, &ev.loss);
	if (rc == 0)
		rc = probability(c, "mark", a == MRC_FABRIC_ACT_MARK, &ev.mark);
	if (rc != 0)
		return rc;
	v = get(c, "count");
	if (a == MRC_FABRIC_ACT_DROP_REQUEST) {
		char *end;
		unsigned long k;

		if (v == NULL)
			return fail(c, -EINVAL, NULL,
				"count: missing (action drop_request: how many, 1..1000)");
		errno = 0;
		k = strtoul(v, &end, 10);
		if (errno != 0 || end == v || *end != '\0' || k < 1 || k > 1000)
			return fail(
				c, -EINVAL, "count", "'%s' is not a count (allowed 1..1000)", v);
		ev.count = (uint32_t)k;
	} else if (v != NULL) {
		return fail(c, -EINVAL, "count", "applies to action drop_request only");
	}
	if (a != ACT_FLAP) {
		if (get(c, "period") != NULL)
			return fail(c, -EINVAL, "period", "applies to action flap only");
		if (get(c, "until") != NULL)
			return fail(c, -EINVAL, "until", "applies to action flap only");
		if (*n >= room)
			return fail(c, -ENOSPC, NULL, "too many events (at most %u in a fabric)",
				MRC_FABRIC_MAX_EVENTS);
		ev.t_ns = at;
		ev.action = (uint8_t)a;
		out[(*n)++] = ev;
		return 0;
	}

	/* flap */
	v = get(c, "period");
	if (v == NULL)
		return fail(c, -EINVAL, NULL, "period: missing (action flap: a time like 200ms)");
	if (parse_time(v, &period) != 0 || period < 2)
		return fail(c, -EINVAL, "period",
			"'%s' is not a period (allowed: an integer with unit ns, us, ms or s, "
			"2ns..1 day)",
			v);
	v = get(c, "until");
	if (v == NULL)
		return fail(c, -EINVAL, NULL, "until: missing (action flap: when it stops)");
	if (parse_time(v, &until) != 0 || until <= at)
		return fail(c, -EINVAL, "until",
			"'%s' is not a time after at (allowed: an integer with unit ns, us, ms "
			"or s, up to 1 day)",
			v);
	x = 2 * ((until - at + period - 1) / period);
	if (*n + x > room)
		return fail(c, -ENOSPC, "period",
			"the flap makes %" PRIu64 " transitions; %u more fit (raise the period or "
			"shorten it)",
			x, room - *n);
	for (uint64_t t = at; t < until; t += period) {
		ev.t_ns = t;
		ev.action = MRC_FABRIC_ACT_DOWN;
		out[(*n)++] = ev;
		ev.t_ns = RTE_MIN(t + period / 2, until);
		ev.action = MRC_FABRIC_ACT_UP;
		out[(*n)++] = ev;
	}
	return 0;
}

/* Stable by time: an insertion sort (files are short; flaps come already sorted). */
static void
sort_events(struct mrc_fabric_event *a, unsigned int n)
{
	for (unsigned int i = 1; i < n; i++) {
		struct mrc_fabric_event x = a[i];
		unsigned int j = i;

		while (j > 0 && a[j - 1].t_ns > x.t_ns) {
			a[j] = a[j - 1];
			j--;
		}
		a[j] = x;
	}
}

static int
parse_file(struct ctx *c, struct rte_cfgfile *cf, const char *tag, struct mrc_fabric_event *evs,
	unsigned int *n, unsigned int room)
{
	char(*names)[CFG_NAME_LEN];
	const int n_sec = rte_cfgfile_num_sections(cf, NULL, 0);
	int rc = 0;

	if (n_sec < 0)
		return fail(c, -EINVAL, NULL, "cannot list its sections");
	names = calloc((size_t)n_sec + 1, sizeof(*names));
	c->kv = calloc(MAX_KEYS, sizeof(*c->kv));
	if (names == NULL || c->kv == NULL) {
		rc = fail(c, -ENOMEM, NULL, "out of memory");
		goto out;
	}
	for (int s = 0; s < n_sec && rc == 0; s++) {
		c->section = NULL;
		c->n_kv = rte_cfgfile_section_entries_by_index(cf, s, names[s], c->kv, MAX_KEYS);
		c->section = names[s];
		if (c->n_kv < 0) {
			rc = fail(c, -EINVAL, NULL, "cannot be read");
			break;
		}
		if (rte_cfgfile_section_num_entries_by_index(cf, names[s], s) > MAX_KEYS) {
			rc = fail(c, -EINVAL, NULL, "more than %d keys", MAX_KEYS);
			break;
		}
		for (int p = 0; p < s; p++)
			if (strcmp(names[p], names[s]) == 0)
				rc = fail(c, -EINVAL, NULL,
					"appears twice (section names are unique)");
		if (rc != 0)
			break;
		if (strcmp(names[s], "scenario") == 0)
			rc = scenario_section(c);
		else if (strncmp(names[s], EVENT_PREFIX, strlen(EVENT_PREFIX)) == 0 &&
			 names[s][strlen(EVENT_PREFIX)] != '\0')
			rc = event_section(c, tag, evs, n, room);
		else
			rc = fail(c, -EINVAL, NULL,
				"unknown section (allowed: [scenario], [event.<name>])");
	}
out:
	free(c->kv);
	c->kv = NULL;
	c->section = NULL;
	free(names);
	return rc;
}

int
fab_scenario_parse(const struct mrc_fabric *fab, const char *path, struct mrc_fabric_event *evs,
	unsigned int *n, unsigned int room, char *why, size_t why_len)
{
	const struct rte_cfgfile_parameters params = {.comment_character = ';'};
	struct ctx c = {.fab = fab,
		.why = why,
		.why_len = why_len,
		.path = path != NULL ? path : "(no file)"};
	struct rte_cfgfile *cf;
	const char *tag;
	FILE *f;
	int rc;

	*n = 0;
	why[0] = '\0';
	if (path == NULL)
		return fail(&c, -EINVAL, NULL, "no file");
	f = fopen(path, "r");
	if (f == NULL)
		return fail(&c, -ENOENT, NULL, "cannot open: %s", strerror(errno));
	fclose(f);
	cf = rte_cfgfile_load_with_params(path, 0, &params);
	if (cf == NULL)
		return fail(&c, -EINVAL, NULL,
			"not a valid INI file (a line outside a [section], an unclosed "
			"[section, a line without '=', an empty value or a key twice in a "
			"section)");
	tag = strrchr(path, '/') != NULL ? strrchr(path, '/') + 1 : path;
	rc = parse_file(&c, cf, tag, evs, n, room);
	if (rc == 0)
		sort_events(evs, *n);
	else
		*n = 0;
	if (rte_cfgfile_close(cf) != 0)
		MRC_LOG(fabric, WARNING, "%s: rte_cfgfile_close failed", path);
	return rc;
}

int
mrc_fabric_load_scenario(struct mrc_fabric *fab, const char *path, const char **why)
{
	const unsigned int room = MRC_FABRIC_MAX_EVENTS - fab->n_ev;
	struct mrc_fabric_event *evs = calloc(RTE_MAX(room, 1u), sizeof(*evs));
	unsigned int n = 0;
	int rc;

	fab->why[0] = '\0';
	if (why != NULL)
		*why = fab->why;
	if (evs == NULL) {
		snprintf(fab->why, sizeof(fab->why), "%s: out of memory",
			path != NULL ? path : "(no file)");
		return -ENOMEM;
	}
	rc = fab_scenario_parse(fab, path, evs, &n, room, fab->why, sizeof(fab->why));
	if (rc == 0) {
		rc = fab_event_insert(fab, evs, n);
		if (rc != 0)
			snprintf(fab->why, sizeof(fab->why), "%s: no room for %u more events", path,
				n);
	}
	if (rc == 0) {
		MRC_LOG(fabric, INFO, "%s: %s: %u events scheduled", fab->name, path, n);
		rc = (int)n;
	}
	free(evs);
	return rc;
}
