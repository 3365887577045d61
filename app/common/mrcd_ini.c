/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: the main thread, as a config or profile loads (mrcd, mrc-fabric).
 *
 * The file side of mrcd_ini: the pre-scan (structure and line numbers),
 * loading with rte_cfgfile, matching sections and keys against the table,
 * and error messages. Values are parsed and printed in mrcd_ini_value.c.
 */

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cfgfile.h>

#include "mrcd_ini.h"

_Static_assert(MRCD_INI_NAME_MAX == CFG_NAME_LEN, "rte_cfgfile name length");
_Static_assert(MRCD_INI_VALUE_MAX == CFG_VALUE_LEN, "rte_cfgfile value length");

/*
 * One line the pre-scan found: a section header (key "") or a key; or a
 * value given on the command line (mrcd_ini_set(): `set`, line 0).
 */
struct ini_line {
	char section[MRCD_INI_NAME_MAX];
	char key[MRCD_INI_NAME_MAX];
	unsigned int line;
	bool set;
};

struct mrcd_ini {
	char *path;
	struct rte_cfgfile *cf;
	struct ini_line *lines;
	unsigned int n_lines, cap_lines;
};

/* ---- messages ---- */

static int __rte_format_printf(3, 4) say(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL || errlen == 0)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* ---- pre-scan ---- */

static const struct ini_line *
find_line(const struct mrcd_ini *ini, const char *section, const char *key)
{
	if (ini == NULL || section == NULL)
		return NULL;
	for (unsigned int i = 0; i < ini->n_lines; i++)
		if (strcmp(ini->lines[i].section, section) == 0 &&
			strcmp(ini->lines[i].key, key != NULL ? key : "") == 0)
			return &ini->lines[i];
	return NULL;
}

static int
add_line(struct mrcd_ini *ini, const char *section, const char *key, unsigned int line)
{
	struct ini_line *l;

	if (ini->n_lines == ini->cap_lines) {
		unsigned int cap = ini->cap_lines ? ini->cap_lines * 2 : 64;

		l = realloc(ini->lines, cap * sizeof(*l));
		if (l == NULL)
			return -ENOMEM;
		ini->lines = l;
		ini->cap_lines = cap;
	}
	l = &ini->lines[ini->n_lines++];
	snprintf(l->section, sizeof(l->section), "%s", section);
	snprintf(l->key, sizeof(l->key), "%s", key);
	l->line = line;
	l->set = false;
	return 0;
}

/* Trim blanks (isspace, as rte_cfgfile does) from both ends, in place. */
static char *
trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		e--;
	*e = '\0';
	return s;
}

/*
 * Walk the file once: every non-blank line, comments cut, must be
 * "[section]" or "key = value" with a non-empty value inside a section,
 * within rte_cfgfile's lengths; no section or key twice. Record lines.
 */
static int
prescan(struct mrcd_ini *ini, FILE *f, char *err, size_t errlen)
{
	const char *path = ini->path;
	char buf[1024], section[MRCD_INI_NAME_MAX] = "";
	unsigned int line = 0;

	errno = 0;
	while (fgets(buf, sizeof(buf), f) != NULL) {
		const struct ini_line *prev;
		size_t len = strlen(buf);
		char *p, *eq, *key, *val;

		line++;
		if (len > 0 && buf[len - 1] == '\n')
			buf[--len] = '\0';
		else if (!feof(f))
			len = sizeof(buf); /* longer than the buffer: report below */
		if (len > MRCD_INI_LINE_MAX - 2)
			return say(err, errlen, "%s:%u: line longer than %d characters", path, line,
				MRCD_INI_LINE_MAX - 2);
		p = strchr(buf, ';');
		if (p != NULL)
			*p = '\0';
		p = trim(buf);
		if (*p == '\0')
			continue;
		if (*p == '#')
			return say(err, errlen,
				"%s:%u: comments start with ';' ('#' is not a comment here)", path,
				line);
		if (*p == '[') {
			char *end = strchr(p, ']');

			if (end == NULL || end[1] != '\0')
				return say(err, errlen,
					"%s:%u: a section header is '[name]' alone on its line",
					path, line);
			*end = '\0';
			p = trim(p + 1);
			if (*p == '\0' || strlen(p) >= MRCD_INI_NAME_MAX)
				return say(err, errlen,
					"%s:%u: [%s]: section names are 1..%d characters", path,
					line, p, MRCD_INI_NAME_MAX - 1);
			prev = find_line(ini, p, NULL);
			if (prev != NULL)
				return say(err, errlen,
					"%s:%u: [%s]: section given twice (first at line %u)", path,
					line, p, prev->line);
			snprintf(section, sizeof(section), "%s", p);
			if (add_line(ini, section, "", line) != 0)
				return -ENOMEM;
			continue;
		}
		eq = strchr(p, '=');
		if (eq == NULL)
			return say(err, errlen,
				"%s:%u: '%.64s' is neither a [section] nor a key = value line",
				path, line, p);
		*eq = '\0';
		key = trim(p);
		val = trim(eq + 1);
		if (section[0] == '\0')
			return say(err, errlen, "%s:%u: %.64s: key outside any [section]", path,
				line, key);
		if (*key == '\0' || strlen(key) >= MRCD_INI_NAME_MAX)
			return say(err, errlen, "%s:%u: [%s] keys are 1..%d characters", path, line,
				section, MRCD_INI_NAME_MAX - 1);
		if (*val == '\0')
			return say(err, errlen, "%s:%u: [%s] %s: empty value", path, line, section,
				key);
		if (strlen(val) >= MRCD_INI_VALUE_MAX)
			return say(err, errlen, "%s:%u: [%s] %s: value longer than %d characters",
				path, line, section, key, MRCD_INI_VALUE_MAX - 1);
		prev = find_line(ini, section, key);
		if (prev != NULL)
			return say(err, errlen,
				"%s:%u: [%s] %s: key given twice (first at line %u)", path, line,
				section, key, prev->line);
		if (add_line(ini, section, key, line) != 0)
			return -ENOMEM;
	}
	if (ferror(f)) {
		const int e = errno != 0 ? errno : EIO;

		say(err, errlen, "%s: cannot read: %s", path, strerror(e));
		return -e;
	}
	return 0;
}

int
mrcd_ini_open(const char *path, struct mrcd_ini **out, char *err, size_t errlen)
{
	const struct rte_cfgfile_parameters params = {.comment_character = ';'};
	struct mrcd_ini *ini;
	FILE *f;
	int rc;

	*out = NULL;
	if (path == NULL || path[0] == '\0')
		return say(err, errlen, "no file name");
	f = fopen(path, "r");
	if (f == NULL) {
		rc = -errno;
		say(err, errlen, "%s: cannot open: %s", path, strerror(errno));
		return rc;
	}
	ini = calloc(1, sizeof(*ini));
	if (ini == NULL || (ini->path = strdup(path)) == NULL) {
		fclose(f);
		free(ini);
		say(err, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	rc = prescan(ini, f, err, errlen);
	fclose(f);
	if (rc == -ENOMEM)
		say(err, errlen, "%s: out of memory", path);
	if (rc != 0)
		goto fail;
	/* The pre-scan accepted it, so rte_cfgfile should too; still, check. */
	ini->cf = rte_cfgfile_load_with_params(path, 0, &params);
	if (ini->cf == NULL) {
		rc = say(err, errlen, "%s: rte_cfgfile could not read it", path);
		goto fail;
	}
	*out = ini;
	return 0;
fail:
	mrcd_ini_close(ini);
	return rc;
}

void
mrcd_ini_close(struct mrcd_ini *ini)
{
	if (ini == NULL)
		return;
	if (ini->cf != NULL)
		rte_cfgfile_close(ini->cf);
	free(ini->lines);
	free(ini->path);
	free(ini);
}

const char *
mrcd_ini_path(const struct mrcd_ini *ini)
{
	return ini != NULL ? ini->path : "";
}

unsigned int
mrcd_ini_line(const struct mrcd_ini *ini, const char *section, const char *key)
{
	const struct ini_line *l = find_line(ini, section, key);

	return l != NULL ? l->line : 0;
}

bool
mrcd_ini_has(const struct mrcd_ini *ini, const char *section, const char *key)
{
	return find_line(ini, section, key) != NULL;
}

/* ---- names ---- */

/*
 * Match `name` against `pattern`, where '#' is a decimal index without a
 * leading zero; append the indexes to idx[*n]. True on a match.
 */
static bool
match(const char *pattern, const char *name, unsigned int *idx, unsigned int *n)
{
	unsigned int got = *n;

	for (; *pattern != '\0'; pattern++) {
		unsigned long v = 0;
		const char *start = name;

		if (*pattern != '#') {
			if (*name++ != *pattern)
				return false;
			continue;
		}
		while (*name >= '0' && *name <= '9' && name - start < 6)
			v = v * 10 + (unsigned long)(*name++ - '0');
		if (name == start || (*start == '0' && name - start > 1) ||
			(*name >= '0' && *name <= '9') || got >= MRCD_INI_MAX_IDX)
			return false;
		idx[got++] = (unsigned int)v;
	}
	if (*name != '\0')
		return false;
	*n = got;
	return true;
}

static unsigned int
count_idx(const char *s)
{
	unsigned int n = 0;

	for (; *s != '\0'; s++)
		n += *s == '#';
	return n;
}

const struct mrcd_ini_key *
mrcd_ini_find(const struct mrcd_ini_schema *s, const char *section, const char *name,
	unsigned int idx[MRCD_INI_MAX_IDX])
{
	for (unsigned int i = 0; i < s->n_keys; i++) {
		const struct mrcd_ini_key *k = &s->keys[i];
		unsigned int n = 0;

		if (match(k->section, section, idx, &n) && match(k->name, name, idx, &n))
			return k;
	}
	return NULL;
}

void *
mrcd_ini_field(const struct mrcd_ini_key *k, void *base, const unsigned int *idx)
{
	uint8_t *p = (uint8_t *)base + k->offset;

	if (idx != NULL)
		for (unsigned int i = 0; i < MRCD_INI_MAX_IDX; i++)
			p += (size_t)idx[i] * k->idx[i].stride;
	return p;
}

/* Levenshtein distance, capped: enough to suggest "did you mean". */
static unsigned int
distance(const char *a, const char *b)
{
	unsigned int row[MRCD_INI_NAME_MAX + 1];
	size_t la = strlen(a), lb = strlen(b);

	if (la >= MRCD_INI_NAME_MAX || lb >= MRCD_INI_NAME_MAX)
		return UINT32_MAX;
	for (size_t j = 0; j <= lb; j++)
		row[j] = (unsigned int)j;
	for (size_t i = 1; i <= la; i++) {
		unsigned int diag = row[0];

		row[0] = (unsigned int)i;
		for (size_t j = 1; j <= lb; j++) {
			unsigned int up = row[j];
			unsigned int v = diag + (a[i - 1] != b[j - 1]);

			v = RTE_MIN(v, up + 1);
			v = RTE_MIN(v, row[j - 1] + 1);
			row[j] = v;
			diag = up;
		}
	}
	return row[lb];
}

/*
 * What is allowed instead of `got`, for "unknown" messages: the whole list
 * when it is short, else the closest name. Names with '#' print as "<dim>".
 */
static void
allowed(const struct mrcd_ini_schema *s, const char *section_pattern, const char *got, char *buf,
	size_t len)
{
	char list[240] = "", best[MRCD_INI_NAME_MAX + 16] = "";
	unsigned int best_d = 4; /* suggest only close names */
	size_t used = 0;
	bool fits = true;

	for (unsigned int i = 0; i < (section_pattern ? s->n_keys : s->n_sections); i++) {
		const char *name = section_pattern ? s->keys[i].name : s->sections[i].name;
		char shown[MRCD_INI_NAME_MAX + 16];
		size_t o = 0;
		unsigned int d;

		if (section_pattern != NULL && strcmp(s->keys[i].section, section_pattern) != 0)
			continue;
		for (const char *c = name; *c != '\0' && o + 8 < sizeof(shown); c++) {
			if (*c == '#')
				o += (size_t)snprintf(shown + o, sizeof(shown) - o, "<n>");
			else
				shown[o++] = *c;
		}
		shown[o] = '\0';
		d = distance(got, shown);
		if (d < best_d) {
			best_d = d;
			snprintf(best, sizeof(best), "%s", shown);
		}
		if (fits) {
			int w = snprintf(list + used, sizeof(list) - used, "%s%s%s%s",
				used ? ", " : "", section_pattern ? "" : "[", shown,
				section_pattern ? "" : "]");

			if (w < 0 || (size_t)w >= sizeof(list) - used)
				fits = false;
			else
				used += (size_t)w;
		}
	}
	if (fits)
		snprintf(buf, len, "allowed: %s", list);
	else if (best[0] != '\0')
		snprintf(buf, len, "did you mean %s%s%s? mrcd --check prints every key",
			section_pattern ? "" : "[", best, section_pattern ? "" : "]");
	else
		snprintf(buf, len, "mrcd --check prints every key");
}

/* ---- apply ---- */

static const struct mrcd_ini_section *
find_section(const struct mrcd_ini_schema *s, const char *name, unsigned int *idx, unsigned int *n)
{
	for (unsigned int i = 0; i < s->n_sections; i++) {
		*n = 0;
		if (match(s->sections[i].name, name, idx, n))
			return &s->sections[i];
	}
	return NULL;
}

/*
 * Where a section (key NULL) or key came from, for messages: "<file>:<line>",
 * "--set" for a value given on the command line, "<file>" when unknown.
 */
static const char *
where(const struct mrcd_ini *ini, const char *section, const char *key, char *buf, size_t len)
{
	const struct ini_line *l = find_line(ini, section, key);

	if (l != NULL && l->set)
		snprintf(buf, len, "--set");
	else if (l != NULL && l->line != 0)
		snprintf(buf, len, "%s:%u", ini->path, l->line);
	else
		snprintf(buf, len, "%s", ini != NULL ? ini->path : "");
	return buf;
}

static int
apply_entry(struct mrcd_ini *ini, const struct mrcd_ini_schema *s, void *base,
	const struct mrcd_ini_section *sec, const char *secname, const unsigned int *sidx,
	unsigned int sn, const struct rte_cfgfile_entry *e, char *err, size_t errlen)
{
	unsigned int idx[MRCD_INI_MAX_IDX] = {0};
	char why[200], at[PATH_MAX + 16];

	where(ini, secname, e->name, at, sizeof(at));

	for (unsigned int i = 0; i < s->n_keys; i++) {
		const struct mrcd_ini_key *k = &s->keys[i];
		unsigned int n = sn;

		if (strcmp(k->section, sec->name) != 0)
			continue;
		memcpy(idx, sidx, sizeof(idx));
		if (!match(k->name, e->name, idx, &n))
			continue;
		for (unsigned int d = sn; d < n; d++) {
			const struct mrcd_ini_dim *dim = &s->dims[k->idx[d].dim];

			if (idx[d] >= dim->max)
				return say(err, errlen, "%s: [%s] %s: %s %u: must be 0..%u", at,
					secname, e->name, dim->name, idx[d], dim->max - 1u);
		}
		if (mrcd_ini_parse(k, e->value, mrcd_ini_field(k, base, idx), why, sizeof(why)) !=
			0)
			return say(err, errlen, "%s: [%s] %s = %s: %s", at, secname, e->name,
				e->value, why);
		return 0;
	}
	allowed(s, sec->name, e->name, why, sizeof(why));
	return say(err, errlen, "%s: [%s] %s: unknown key (%s)", at, secname, e->name, why);
}

int
mrcd_ini_apply(
	struct mrcd_ini *ini, const struct mrcd_ini_schema *s, void *base, char *err, size_t errlen)
{
	const int n_sec = rte_cfgfile_num_sections(ini->cf, NULL, 0);
	struct rte_cfgfile_entry *e = NULL;
	int rc = 0;

	if (n_sec < 0)
		return say(err, errlen, "%s: rte_cfgfile cannot list its sections", ini->path);
	for (int i = 0; i < n_sec && rc == 0; i++) {
		char name[MRCD_INI_NAME_MAX], why[200], at[PATH_MAX + 16];
		unsigned int sidx[MRCD_INI_MAX_IDX] = {0}, sn = 0;
		const struct mrcd_ini_section *sec;
		int n;

		n = rte_cfgfile_section_entries_by_index(ini->cf, i, name, NULL, 0);
		if (n < 0) {
			rc = say(err, errlen, "%s: rte_cfgfile cannot read section %d", ini->path,
				i);
			break;
		}
		sec = find_section(s, name, sidx, &sn);
		if (sec == NULL) {
			allowed(s, NULL, name, why, sizeof(why));
			rc = say(err, errlen, "%s: [%s]: unknown section (%s)",
				where(ini, name, NULL, at, sizeof(at)), name, why);
			break;
		}
		if (sn > 0 && sidx[0] >= s->dims[sec->dim].max) {
			rc = say(err, errlen, "%s: [%s]: %s %u: must be 0..%u",
				where(ini, name, NULL, at, sizeof(at)), name,
				s->dims[sec->dim].name, sidx[0], s->dims[sec->dim].max - 1u);
			break;
		}
		n = rte_cfgfile_section_num_entries_by_index(ini->cf, name, i);
		free(e);
		e = calloc((size_t)RTE_MAX(n, 1), sizeof(*e));
		if (n < 0 || e == NULL) {
			rc = say(err, errlen, "%s: [%s]: cannot read its keys", ini->path, name);
			break;
		}
		n = rte_cfgfile_section_entries_by_index(ini->cf, i, name, e, n);
		for (int j = 0; j < n && rc == 0; j++)
			rc = apply_entry(ini, s, base, sec, name, sidx, sn, &e[j], err, errlen);
	}
	free(e);
	return rc;
}

/* ---- values from the command line ---- */

int
mrcd_ini_new(const char *origin, struct mrcd_ini **out, char *err, size_t errlen)
{
	struct mrcd_ini *ini = calloc(1, sizeof(*ini));

	*out = NULL;
	if (ini == NULL || (ini->path = strdup(origin != NULL ? origin : "")) == NULL ||
		(ini->cf = rte_cfgfile_create(0)) == NULL) {
		mrcd_ini_close(ini);
		say(err, errlen, "%s: out of memory", origin != NULL ? origin : "");
		return -ENOMEM;
	}
	*out = ini;
	return 0;
}

/*
 * Split "<section>.<key>" where both may hold dots ("host.0.mac.p3"): the
 * first split whose section and key are both in the table; else the first
 * whose section is (*sec set, key unknown); else none (*sec NULL).
 */
static bool
split_name(const struct mrcd_ini_schema *s, const char *name, char *section, char *key,
	const struct mrcd_ini_section **sec)
{
	char first_sec[MRCD_INI_NAME_MAX] = "", first_key[MRCD_INI_NAME_MAX] = "";

	*sec = NULL;
	for (const char *dot = strchr(name, '.'); dot != NULL; dot = strchr(dot + 1, '.')) {
		const size_t n = (size_t)(dot - name);
		unsigned int idx[MRCD_INI_MAX_IDX], k = 0;
		const struct mrcd_ini_section *found;

		if (n == 0 || n >= MRCD_INI_NAME_MAX || strlen(dot + 1) >= MRCD_INI_NAME_MAX)
			continue;
		snprintf(section, MRCD_INI_NAME_MAX, "%.*s", (int)n, name);
		snprintf(key, MRCD_INI_NAME_MAX, "%s", dot + 1);
		found = find_section(s, section, idx, &k);
		if (found == NULL)
			continue;
		if (mrcd_ini_find(s, section, key, idx) != NULL) {
			*sec = found;
			return true;
		}
		if (*sec == NULL) {
			*sec = found;
			snprintf(first_sec, sizeof(first_sec), "%s", section);
			snprintf(first_key, sizeof(first_key), "%s", key);
		}
	}
	snprintf(section, MRCD_INI_NAME_MAX, "%s", first_sec);
	snprintf(key, MRCD_INI_NAME_MAX, "%s", first_key);
	return false;
}

int
mrcd_ini_set(struct mrcd_ini *ini, const struct mrcd_ini_schema *s, const char *assignment,
	char *err, size_t errlen)
{
	char name[2 * MRCD_INI_NAME_MAX], section[MRCD_INI_NAME_MAX], key[MRCD_INI_NAME_MAX];
	char why[200];
	const struct mrcd_ini_section *sec;
	const char *eq = strchr(assignment, '='), *value;
	struct ini_line *l;
	int rc;

	if (eq == NULL || eq == assignment || (size_t)(eq - assignment) >= sizeof(name))
		return say(err, errlen, "--set %s: not section.key=value", assignment);
	snprintf(name, sizeof(name), "%.*s", (int)(eq - assignment), assignment);
	value = eq + 1;
	if (*value == '\0')
		return say(err, errlen, "--set %s: empty value", assignment);
	if (strlen(value) >= MRCD_INI_VALUE_MAX)
		return say(err, errlen, "--set %s: value longer than %d characters", name,
			MRCD_INI_VALUE_MAX - 1);
	/* A file cannot hold them either: the effective config must load again. */
	if (strchr(value, ';') != NULL || strchr(value, '\n') != NULL ||
		isspace((unsigned char)value[0]) ||
		isspace((unsigned char)value[strlen(value) - 1]))
		return say(err, errlen,
			"--set %s: a value holds no ';', no newline and no blank at either end",
			assignment);
	if (!split_name(s, name, section, key, &sec)) {
		if (sec == NULL) {
			const char *dot = strchr(name, '.');

			if (dot == NULL)
				return say(
					err, errlen, "--set %s: not section.key=value", assignment);
			snprintf(section, sizeof(section), "%.*s", (int)(dot - name), name);
			allowed(s, NULL, section, why, sizeof(why));
			return say(err, errlen, "--set %s: unknown section [%s] (%s)", assignment,
				section, why);
		}
		allowed(s, sec->name, key, why, sizeof(why));
		return say(err, errlen, "--set %s: [%s] %s: unknown key (%s)", assignment, section,
			key, why);
	}
	if (!rte_cfgfile_has_section(ini->cf, section)) {
		if (rte_cfgfile_add_section(ini->cf, section) != 0 ||
			add_line(ini, section, "", 0) != 0)
			return say(err, errlen, "--set %s: out of memory", assignment);
		ini->lines[ini->n_lines - 1].set = true;
	}
	if (rte_cfgfile_has_entry(ini->cf, section, key))
		rc = rte_cfgfile_set_entry(ini->cf, section, key, value);
	else
		rc = rte_cfgfile_add_entry(ini->cf, section, key, value);
	if (rc != 0)
		return say(err, errlen, "--set %s: rte_cfgfile refused it (%d)", assignment, rc);
	l = (struct ini_line *)(uintptr_t)find_line(ini, section, key);
	if (l == NULL) {
		if (add_line(ini, section, key, 0) != 0)
			return say(err, errlen, "--set %s: out of memory", assignment);
		l = &ini->lines[ini->n_lines - 1];
	}
	l->set = true;
	return 0;
}

/* ---- errors for cross-checks ---- */

int
mrcd_ini_error(const struct mrcd_ini *ini, const char *origin, const struct mrcd_ini_schema *s,
	const void *base, const char *section, const char *key, char *err, size_t errlen,
	const char *fmt, ...)
{
	char msg[240], where[MRCD_INI_VALUE_MAX + 40] = "", val[MRCD_INI_VALUE_MAX + 16] = "";
	const char *path = ini != NULL ? ini->path : origin;
	unsigned int line = 0;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (key != NULL) {
		const char *v = NULL;

		if (ini != NULL && mrcd_ini_has(ini, section, key))
			v = rte_cfgfile_get_entry(ini->cf, section, key);
		line = mrcd_ini_line(ini, section, key);
		if (v != NULL) {
			snprintf(val, sizeof(val), " = %s", v);
		} else {
			unsigned int idx[MRCD_INI_MAX_IDX] = {0};
			const struct mrcd_ini_key *k = mrcd_ini_find(s, section, key, idx);
			char text[MRCD_INI_VALUE_MAX];

			if (k != NULL) {
				mrcd_ini_format(k, mrcd_ini_field(k, (void *)(uintptr_t)base, idx),
					text, sizeof(text));
				snprintf(val, sizeof(val), " = %s (%s)", text[0] ? text : "\"\"",
					ini != NULL ? "default" : "value");
			}
		}
	}
	if (line == 0)
		line = mrcd_ini_line(ini, section, NULL);
	{
		const struct ini_line *l = find_line(ini, section, key != NULL ? key : "");

		if (l != NULL && l->set) {
			path = "--set";
			line = 0;
		}
	}
	if (line != 0)
		snprintf(where, sizeof(where), ":%u", line);
	if (key != NULL)
		return say(err, errlen, "%s%s: [%s] %s%s: %s", path, where, section, key, val, msg);
	return say(err, errlen, "%s%s: [%s]: %s", path, where, section, msg);
}

/* Exported for mrcd_ini_value.c's schema check. */
unsigned int mrcd_ini_count_idx_(const char *s);
bool mrcd_ini_match_(const char *pattern, const char *name, unsigned int *idx, unsigned int *n);

unsigned int
mrcd_ini_count_idx_(const char *s)
{
	return count_idx(s);
}

bool
mrcd_ini_match_(const char *pattern, const char *name, unsigned int *idx, unsigned int *n)
{
	return match(pattern, name, idx, n);
}
