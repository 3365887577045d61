/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: the main thread, as a config or profile loads or prints (mrcd,
 * mrc-fabric).
 *
 * The value side of mrcd_ini: parsing and formatting each type, defaults,
 * printing a struct back as a file, comparing two structs, and the schema
 * self-check.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ether.h>

#include "mrcd_ini.h"

unsigned int mrcd_ini_count_idx_(const char *s);
bool mrcd_ini_match_(const char *pattern, const char *name, unsigned int *idx, unsigned int *n);

static int __rte_format_printf(3, 4) why_(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* " (unit)" or "". */
static const char *
unit_of(const struct mrcd_ini_key *k, char *buf, size_t len)
{
	if (k->unit == NULL)
		return "";
	snprintf(buf, len, " (%s)", k->unit);
	return buf;
}

/* Decimal, no sign, no blanks, fits 64 bits. */
static int
parse_u64(const char *s, uint64_t *out)
{
	uint64_t v = 0;

	if (*s < '0' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (v > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	if (*s != '\0')
		return -1;
	*out = v;
	return 0;
}

static int
int_range_msg(const struct mrcd_ini_key *k, char *why, size_t len)
{
	char u[48];

	return why_(why, len, "must be %s%s%" PRIu64 "..%" PRIu64 "%s",
		(k->flags & MRCD_INI_ZERO_OK) ? "0 or " : "",
		(k->flags & MRCD_INI_POW2) ? "a power of two in " : "", k->min, k->max,
		unit_of(k, u, sizeof(u)));
}

static int
parse_int(const struct mrcd_ini_key *k, const char *text, void *field, char *why, size_t len)
{
	uint64_t v;

	if (parse_u64(text, &v) != 0)
		return int_range_msg(k, why, len);
	if (!(v == 0 && (k->flags & MRCD_INI_ZERO_OK))) {
		if (v < k->min || v > k->max)
			return int_range_msg(k, why, len);
		if ((k->flags & MRCD_INI_POW2) && (v & (v - 1)) != 0)
			return int_range_msg(k, why, len);
	}
	switch (k->type) {
	case MRCD_INI_U8:
		*(uint8_t *)field = (uint8_t)v;
		break;
	case MRCD_INI_U16:
		*(uint16_t *)field = (uint16_t)v;
		break;
	case MRCD_INI_U32:
		*(uint32_t *)field = (uint32_t)v;
		break;
	default:
		*(uint64_t *)field = v;
		break;
	}
	return 0;
}

static int
parse_double(const struct mrcd_ini_key *k, const char *text, void *field, char *why, size_t len)
{
	char u[48], *end;
	double v;

	errno = 0;
	v = strtod(text, &end);
	/* Written so that NaN fails; strtod also takes "inf", "0x1p3": refuse. */
	if (errno != 0 || end == text || *end != '\0' || !isfinite(v) ||
		strpbrk(text, "xXnNiI") != NULL ||
		!((v == 0.0 && (k->flags & MRCD_INI_ZERO_OK)) || (v >= k->dmin && v <= k->dmax)))
		return why_(why, len, "must be %sa number %g..%g%s",
			(k->flags & MRCD_INI_ZERO_OK) ? "0 or " : "", k->dmin, k->dmax,
			unit_of(k, u, sizeof(u)));
	*(double *)field = v;
	return 0;
}

static int
names_msg(const struct mrcd_ini_key *k, char *why, size_t len)
{
	size_t o = (size_t)snprintf(why, len, "must be one of:");

	for (unsigned int i = 0; k->names[i] != NULL && o < len; i++)
		o += (size_t)snprintf(why + o, len - o, "%s %s", i ? "," : "", k->names[i]);
	return -EINVAL;
}

int
mrcd_ini_parse(
	const struct mrcd_ini_key *k, const char *text, void *field, char *why, size_t whylen)
{
	static const char *const yes[] = {"true", "yes", "on", "1"};
	static const char *const no[] = {"false", "no", "off", "0"};
	int rc = 0;

	switch (k->type) {
	case MRCD_INI_BOOL:
		for (unsigned int i = 0; i < RTE_DIM(yes); i++) {
			if (strcmp(text, yes[i]) == 0) {
				*(bool *)field = true;
				goto checked;
			}
			if (strcmp(text, no[i]) == 0) {
				*(bool *)field = false;
				goto checked;
			}
		}
		return why_(why, whylen, "must be true or false (or yes/no, on/off, 1/0)");
	case MRCD_INI_U8:
	case MRCD_INI_U16:
	case MRCD_INI_U32:
	case MRCD_INI_U64:
		rc = parse_int(k, text, field, why, whylen);
		break;
	case MRCD_INI_DOUBLE:
		rc = parse_double(k, text, field, why, whylen);
		break;
	case MRCD_INI_ENUM:
		for (unsigned int i = 0; k->names[i] != NULL; i++)
			if (strcmp(text, k->names[i]) == 0) {
				*(uint8_t *)field = (uint8_t)i;
				goto checked;
			}
		return names_msg(k, why, whylen);
	case MRCD_INI_STRING:
		if (strlen(text) >= k->size)
			return why_(why, whylen, "longer than %u characters", k->size - 1u);
		snprintf(field, k->size, "%s", text);
		break;
	case MRCD_INI_IPV6:
		if (inet_pton(AF_INET6, text, field) != 1)
			return why_(why, whylen, "not an IPv6 address (like fd00::1)");
		break;
	case MRCD_INI_MAC:
		/* The parser also takes 3 groups of 4 hex digits; print the usual 6 x 2. */
		if (rte_ether_unformat_addr(text, field) != 0)
			return why_(why, whylen, "not a MAC address (like 02:00:00:00:00:01)");
		break;
	case MRCD_INI_BLOCK32: {
		uint8_t a[16];
		bool low = false;

		if (inet_pton(AF_INET6, text, a) == 1)
			for (unsigned int i = 4; i < 16; i++)
				low |= a[i] != 0;
		else
			low = true;
		if (low)
			return why_(why, whylen,
				"not an IPv6 /32 block (like fcbb:0::; only the first 32 "
				"bits may be set)");
		*(uint32_t *)field =
			(uint32_t)a[0] << 24 | (uint32_t)a[1] << 16 | (uint32_t)a[2] << 8 | a[3];
		break;
	}
	default:
		return why_(why, whylen, "unknown value type %u", k->type);
	}
	if (rc != 0)
		return rc;
checked:
	if (k->check != NULL)
		return k->check(field, why, whylen);
	return 0;
}

int
mrcd_ini_format(const struct mrcd_ini_key *k, const void *field, char *buf, size_t len)
{
	switch (k->type) {
	case MRCD_INI_BOOL:
		return snprintf(buf, len, "%s", *(const bool *)field ? "true" : "false");
	case MRCD_INI_U8:
		return snprintf(buf, len, "%u", *(const uint8_t *)field);
	case MRCD_INI_U16:
		return snprintf(buf, len, "%u", *(const uint16_t *)field);
	case MRCD_INI_U32:
		return snprintf(buf, len, "%" PRIu32, *(const uint32_t *)field);
	case MRCD_INI_U64:
		return snprintf(buf, len, "%" PRIu64, *(const uint64_t *)field);
	case MRCD_INI_DOUBLE: {
		const double v = *(const double *)field;
		int n = snprintf(buf, len, "%.15g", v);

		/* The shortest form that reads back as the same double. */
		if (len > 0 && strtod(buf, NULL) != v)
			n = snprintf(buf, len, "%.17g", v);
		return n;
	}
	case MRCD_INI_ENUM: {
		const uint8_t v = *(const uint8_t *)field;

		for (unsigned int i = 0; k->names[i] != NULL; i++)
			if (i == v)
				return snprintf(buf, len, "%s", k->names[i]);
		return snprintf(buf, len, "?%u", v);
	}
	case MRCD_INI_STRING:
		return snprintf(buf, len, "%s", (const char *)field);
	case MRCD_INI_IPV6: {
		char a[INET6_ADDRSTRLEN];

		if (inet_ntop(AF_INET6, field, a, sizeof(a)) == NULL)
			snprintf(a, sizeof(a), "?");
		return snprintf(buf, len, "%s", a);
	}
	case MRCD_INI_MAC: {
		char a[RTE_ETHER_ADDR_FMT_SIZE];

		rte_ether_format_addr(a, sizeof(a), field);
		return snprintf(buf, len, "%s", a);
	}
	case MRCD_INI_BLOCK32: {
		const uint32_t b = *(const uint32_t *)field;

		return snprintf(buf, len, "%x:%x::", b >> 16, b & 0xffff);
	}
	default:
		return snprintf(buf, len, "?");
	}
}

void
mrcd_ini_defaults(const struct mrcd_ini_schema *s, void *base)
{
	char why[200];

	for (unsigned int i = 0; i < s->n_keys; i++) {
		const struct mrcd_ini_key *k = &s->keys[i];
		const unsigned int n_idx =
			mrcd_ini_count_idx_(k->section) + mrcd_ini_count_idx_(k->name);
		unsigned int hi[MRCD_INI_MAX_IDX] = {1, 1}, idx[MRCD_INI_MAX_IDX];

		if (k->flags & MRCD_INI_DERIVED)
			continue;
		/* Every stored index gets the default, not only index 0. */
		for (unsigned int d = 0; d < n_idx; d++)
			hi[d] = s->dims[k->idx[d].dim].max;
		for (idx[0] = 0; idx[0] < hi[0]; idx[0]++)
			for (idx[1] = 0; idx[1] < hi[1]; idx[1]++) {
				void *f = mrcd_ini_field(k, base, idx);

				if (k->type == MRCD_INI_STRING && k->def[0] == '\0')
					memset(f, 0, k->size);
				else
					mrcd_ini_parse(k, k->def, f, why, sizeof(why));
			}
	}
}

/* ---- printing ---- */

/* `pattern` with each '#' replaced by the next index (or by "<dim>" when idx is NULL). */
static void
instantiate(const struct mrcd_ini_schema *s, const struct mrcd_ini_key *k, const char *pattern,
	unsigned int first, const unsigned int *idx, char *buf, size_t len)
{
	size_t o = 0;
	unsigned int d = first;

	for (; *pattern != '\0' && o + 1 < len; pattern++) {
		int w;

		if (*pattern != '#') {
			buf[o++] = *pattern;
			continue;
		}
		if (idx != NULL)
			w = snprintf(buf + o, len - o, "%u", idx[d]);
		else
			w = snprintf(buf + o, len - o, "<%s>", s->dims[k->idx[d].dim].label);
		d++;
		if (w < 0 || (size_t)w >= len - o)
			break;
		o += (size_t)w;
	}
	buf[RTE_MIN(o, len - 1)] = '\0';
}

/* A comment, wrapped at 96 columns (rte_cfgfile reads lines of 320 at most). */
static void
comment(FILE *f, const char *text)
{
	const size_t width = 96;

	while (*text != '\0') {
		size_t n = strlen(text);

		if (n > width) {
			n = width;
			while (n > 0 && text[n] != ' ')
				n--;
			if (n == 0)
				n = width;
		}
		fprintf(f, "; %.*s\n", (int)n, text);
		text += n;
		while (*text == ' ')
			text++;
	}
}

/* "; [name ]default X (unit | a | b): help", wrapped. */
static void
print_key_doc(FILE *f, const struct mrcd_ini_schema *s, const struct mrcd_ini_key *k)
{
	char text[1024], name[MRCD_INI_NAME_MAX + 32] = "", paren[256] = "";
	const unsigned int first = mrcd_ini_count_idx_(k->section);
	size_t o = 0;

	if (k->unit != NULL)
		o += (size_t)snprintf(paren, sizeof(paren), " (%s", k->unit);
	for (unsigned int i = 0;
		k->type == MRCD_INI_ENUM && k->names[i] != NULL && o < sizeof(paren); i++)
		o += (size_t)snprintf(paren + o, sizeof(paren) - o, "%s%s",
			i ? " | " : (o ? ", one of " : " ("), k->names[i]);
	if (o > 0 && o < sizeof(paren) - 1)
		snprintf(paren + o, sizeof(paren) - o, ")");
	/* Indexed keys print several instances under one comment: name the pattern. */
	if (strchr(k->name, '#') != NULL) {
		instantiate(s, k, k->name, first, NULL, name, sizeof(name) - 1);
		strcat(name, " ");
	}
	snprintf(text, sizeof(text), "%sdefault %s%s: %s", name,
		k->def[0] != '\0' ? k->def : "(none)", paren, k->help);
	comment(f, text);
}

/* Print every instance of key k that has a value; idx[0..first) are the section's indexes. */
static void
print_key(FILE *f, const struct mrcd_ini_schema *s, const struct mrcd_ini_key *k, const void *base,
	const unsigned int *sidx, unsigned int first)
{
	const unsigned int n_idx = first + mrcd_ini_count_idx_(k->name);
	unsigned int lo[MRCD_INI_MAX_IDX] = {0, 0}, hi[MRCD_INI_MAX_IDX] = {1, 1};
	unsigned int idx[MRCD_INI_MAX_IDX];
	char name[MRCD_INI_NAME_MAX + 32], val[MRCD_INI_VALUE_MAX];

	print_key_doc(f, s, k);
	for (unsigned int d = 0; d < n_idx; d++) {
		if (d < first) {
			lo[d] = sidx[d];
			hi[d] = sidx[d] + 1;
		} else {
			s->range(base, k->idx[d].dim, &lo[d], &hi[d]);
		}
	}
	for (idx[0] = lo[0]; idx[0] < hi[0]; idx[0]++)
		for (idx[1] = lo[1]; idx[1] < hi[1]; idx[1]++) {
			const void *fld = mrcd_ini_field(k, (void *)(uintptr_t)base, idx);

			if (k->type == MRCD_INI_STRING && ((const char *)fld)[0] == '\0')
				continue;
			mrcd_ini_format(k, fld, val, sizeof(val));
			instantiate(s, k, k->name, first, idx, name, sizeof(name));
			fprintf(f, "%s = %s\n", name, val);
		}
}

void
mrcd_ini_print(FILE *f, const struct mrcd_ini_schema *s, const void *base)
{
	for (unsigned int i = 0; i < s->n_sections; i++) {
		const struct mrcd_ini_section *sec = &s->sections[i];
		const bool indexed = strchr(sec->name, '#') != NULL;
		unsigned int lo = 0, hi = 1;

		if (indexed)
			s->range(base, sec->dim, &lo, &hi);
		for (unsigned int n = lo; n < hi; n++) {
			unsigned int idx[MRCD_INI_MAX_IDX] = {n, 0};
			char name[MRCD_INI_NAME_MAX + 16];

			if (indexed && s->present != NULL && !s->present(base, sec->dim, n))
				continue;
			instantiate(s, &s->keys[0], sec->name, 0, idx, name, sizeof(name));
			fprintf(f, "\n");
			comment(f, sec->help);
			fprintf(f, "[%s]\n", name);
			for (unsigned int j = 0; j < s->n_keys; j++)
				if (strcmp(s->keys[j].section, sec->name) == 0)
					print_key(f, s, &s->keys[j], base, idx, indexed ? 1 : 0);
		}
	}
}

/* ---- comparing ---- */

static bool
field_equal(const struct mrcd_ini_key *k, const void *a, const void *b)
{
	switch (k->type) {
	case MRCD_INI_STRING:
		return strncmp(a, b, k->size) == 0;
	case MRCD_INI_DOUBLE:
		return *(const double *)a == *(const double *)b;
	case MRCD_INI_BOOL:
		return *(const bool *)a == *(const bool *)b;
	default:
		return memcmp(a, b, k->size) == 0;
	}
}

int
mrcd_ini_diff(
	const struct mrcd_ini_schema *s, const void *a, const void *b, char *diff, size_t difflen)
{
	for (unsigned int i = 0; i < s->n_keys; i++) {
		const struct mrcd_ini_key *k = &s->keys[i];
		const unsigned int n_idx =
			mrcd_ini_count_idx_(k->section) + mrcd_ini_count_idx_(k->name);
		unsigned int lo[MRCD_INI_MAX_IDX] = {0, 0}, hi[MRCD_INI_MAX_IDX] = {1, 1};
		unsigned int idx[MRCD_INI_MAX_IDX];

		for (unsigned int d = 0; d < n_idx; d++)
			s->range(a, k->idx[d].dim, &lo[d], &hi[d]);
		for (idx[0] = lo[0]; idx[0] < hi[0]; idx[0]++)
			for (idx[1] = lo[1]; idx[1] < hi[1]; idx[1]++) {
				const void *fa = mrcd_ini_field(k, (void *)(uintptr_t)a, idx);
				const void *fb = mrcd_ini_field(k, (void *)(uintptr_t)b, idx);
				char va[MRCD_INI_VALUE_MAX], vb[MRCD_INI_VALUE_MAX];
				char sec[MRCD_INI_NAME_MAX + 16], key[MRCD_INI_NAME_MAX + 16];

				if (field_equal(k, fa, fb))
					continue;
				mrcd_ini_format(k, fa, va, sizeof(va));
				mrcd_ini_format(k, fb, vb, sizeof(vb));
				instantiate(s, k, k->section, 0, idx, sec, sizeof(sec));
				instantiate(s, k, k->name, mrcd_ini_count_idx_(k->section), idx,
					key, sizeof(key));
				snprintf(diff, difflen, "[%s] %s: %s != %s", sec, key, va, vb);
				return 1;
			}
	}
	return 0;
}

/* ---- schema self-check ---- */

static size_t
type_size(uint8_t type)
{
	static const size_t sizes[MRCD_INI_TYPE_MAX] = {
		[MRCD_INI_BOOL] = sizeof(bool),
		[MRCD_INI_U8] = 1,
		[MRCD_INI_U16] = 2,
		[MRCD_INI_U32] = 4,
		[MRCD_INI_U64] = 8,
		[MRCD_INI_DOUBLE] = sizeof(double),
		[MRCD_INI_ENUM] = 1,
		[MRCD_INI_STRING] = 0,
		[MRCD_INI_IPV6] = 16,
		[MRCD_INI_MAC] = RTE_ETHER_ADDR_LEN,
		[MRCD_INI_BLOCK32] = 4,
	};

	return type < MRCD_INI_TYPE_MAX ? sizes[type] : SIZE_MAX;
}

static int
check_key(const struct mrcd_ini_schema *s, const struct mrcd_ini_key *k, char *why, size_t len)
{
	const unsigned int n_idx = mrcd_ini_count_idx_(k->section) + mrcd_ini_count_idx_(k->name);
	const struct mrcd_ini_section *sec = NULL;
	uint8_t scratch[MRCD_INI_VALUE_MAX];
	char w[200];

	for (unsigned int i = 0; i < s->n_sections; i++)
		if (strcmp(s->sections[i].name, k->section) == 0)
			sec = &s->sections[i];
	if (sec == NULL)
		return why_(why, len, "no section [%s] in the schema", k->section);
	if (k->help == NULL || k->def == NULL || strchr(k->help, '\n') != NULL)
		return why_(why, len, "needs a one-line help and a default");
	if (k->type >= MRCD_INI_TYPE_MAX ||
		(k->type == MRCD_INI_STRING ? k->size < 2 || k->size > MRCD_INI_VALUE_MAX
					    : k->size != type_size(k->type)))
		return why_(why, len, "field size %u does not match its type", k->size);
	if (k->type == MRCD_INI_ENUM && (k->names == NULL || k->names[0] == NULL))
		return why_(why, len, "an enum needs names");
	if (n_idx > MRCD_INI_MAX_IDX)
		return why_(why, len, "more than %d indexes", MRCD_INI_MAX_IDX);
	for (unsigned int d = 0; d < n_idx; d++)
		if (k->idx[d].dim >= s->n_dims || k->idx[d].stride == 0 ||
			(d == 0 && strchr(k->section, '#') != NULL && k->idx[0].dim != sec->dim))
			return why_(why, len, "index %u has no dimension or stride", d);
	if (!(k->flags & MRCD_INI_DERIVED) && !(k->type == MRCD_INI_STRING && k->def[0] == '\0') &&
		mrcd_ini_parse(k, k->def, scratch, w, sizeof(w)) != 0)
		return why_(why, len, "default '%s' %s", k->def, w);
	if ((k->type >= MRCD_INI_U8 && k->type <= MRCD_INI_U64 && k->min > k->max) ||
		(k->type == MRCD_INI_DOUBLE && !(k->dmin <= k->dmax)))
		return why_(why, len, "empty range");
	return 0;
}

int
mrcd_ini_schema_check(const struct mrcd_ini_schema *s, char *why, size_t whylen)
{
	char w[200];

	for (unsigned int d = 0; d < s->n_dims; d++)
		if (s->dims[d].name == NULL || s->dims[d].label == NULL || s->dims[d].max == 0)
			return why_(
				why, whylen, "dimension %u needs a name, a label and a size", d);
	if (s->n_dims > 0 && s->range == NULL)
		return why_(why, whylen, "indexed keys need a range callback");
	for (unsigned int i = 0; i < s->n_keys; i++) {
		const struct mrcd_ini_key *k = &s->keys[i];

		if (check_key(s, k, w, sizeof(w)) != 0)
			return why_(why, whylen, "[%s] %s: %s", k->section, k->name, w);
		for (unsigned int j = 0; j < i; j++)
			if (strcmp(s->keys[j].section, k->section) == 0 &&
				strcmp(s->keys[j].name, k->name) == 0)
				return why_(
					why, whylen, "[%s] %s: listed twice", k->section, k->name);
	}
	return 0;
}
