/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRCD_INI_H
#define MRCD_INI_H

/*
 * Strict, table-driven INI files on top of rte_cfgfile.
 *
 * A program describes its file once, as a table of keys (struct
 * mrcd_ini_key: section, key, type, range or names, where the value goes in
 * the program's struct, default, unit, help), and this module does the
 * rest: defaults, loading, errors, printing the effective values back as a
 * loadable file, and comparing two structs key by key. One table means the
 * documented default, the parsed range and the printed comment cannot
 * drift apart.
 *
 * Strict, because a typo in a config silently becomes the default: an
 * unknown section or key, a key or section given twice, a line that is not
 * `[section]` or `key = value`, an empty value and a value of the wrong type
 * or out of range are all errors, and every message names the place:
 *
 *   config/bad.ini:12: [transport] mtu = 70000: must be 256..9000 (bytes)
 *
 * rte_cfgfile reads the values but keeps no line numbers, and it quietly
 * skips lines without '=' and lets a key or a section repeat. So before it
 * runs, a light pre-scan walks the file once: it checks the line structure
 * (which rte_cfgfile is lax about) and records where each section and key
 * is, for the messages. Both split lines the same way: comments start at
 * the first ';' (anywhere on the line, so values cannot contain one), names
 * and values are trimmed, a key ends at the first '='.
 *
 * Indexed names. A '#' in a section or key name stands for a decimal index
 * (no sign, no leading zero): section "host.#" matches [host.0], [host.12];
 * key "mac.p#" matches mac.p3; key "h#.p#" matches h1.p7. At most two '#'
 * per key, counting its section's. Index i of a key selects the field at
 * offset + i0 * idx[0].stride + i1 * idx[1].stride. The bound checked here
 * is the storage bound (dims[].max); whether an index is meaningful for the
 * values loaded (host 5 of 2) is the owner's cross-check, which has
 * mrcd_ini_line() to name the line.
 *
 * Not thread-safe; control plane only. Nothing here calls exit().
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_common.h>

/* rte_cfgfile's limits (CFG_NAME_LEN, CFG_VALUE_LEN), including the NUL. */
#define MRCD_INI_NAME_MAX  64
#define MRCD_INI_VALUE_MAX 256
/* Longest line rte_cfgfile reads (its buffer is name + value + 4). */
#define MRCD_INI_LINE_MAX (MRCD_INI_NAME_MAX + MRCD_INI_VALUE_MAX + 2)
/* '#' indexes per key (its section's included). */
#define MRCD_INI_MAX_IDX 2

enum mrcd_ini_type {
	MRCD_INI_BOOL = 0, /* bool: true|false|yes|no|on|off|1|0, printed true|false */
	MRCD_INI_U8,	   /* uint8_t .. uint64_t: decimal, min..max */
	MRCD_INI_U16,
	MRCD_INI_U32,
	MRCD_INI_U64,
	MRCD_INI_DOUBLE,  /* double: decimal or exponent, dmin..dmax, no NaN/inf */
	MRCD_INI_ENUM,	  /* uint8_t: the index of the value in names[] */
	MRCD_INI_STRING,  /* char[size]: at most size - 1 characters */
	MRCD_INI_IPV6,	  /* uint8_t[16]: an IPv6 address (inet_pton) */
	MRCD_INI_MAC,	  /* struct rte_ether_addr: xx:xx:xx:xx:xx:xx */
	MRCD_INI_BLOCK32, /* uint32_t: an IPv6 /32 prefix like fcbb:0::, first 32 bits */
	MRCD_INI_TYPE_MAX,
};

/* Flags of a key. */
#define MRCD_INI_POW2	 (1u << 0) /* integers: also a power of two */
#define MRCD_INI_ZERO_OK (1u << 1) /* numbers: 0 ("auto", "off") allowed besides min..max */
/*
 * The default depends on other values (a host's address on its number): the
 * owner computes it after loading, for the fields the file did not set
 * (mrcd_ini_has()); `def` only describes it, and mrcd_ini_defaults() leaves
 * the field alone.
 */
#define MRCD_INI_DERIVED (1u << 2)

/* An index dimension: a name for messages and the storage bound. */
struct mrcd_ini_dim {
	const char *name;  /* in messages: "host", "plane" */
	const char *label; /* in printed patterns: "plane" gives "mac.p<plane>" */
	uint16_t max;	   /* indexes 0..max-1 can be stored */
};

struct mrcd_ini_key {
	const char *section; /* "transport", or with an index: "host.#" */
	const char *name;    /* "mtu", or with indexes: "mac.p#", "h#.p#" */
	uint8_t type;	     /* enum mrcd_ini_type */
	uint8_t flags;	     /* MRCD_INI_* */
	uint16_t size;	     /* sizeof the field (strings: capacity with the NUL) */
	size_t offset;	     /* of the field (index 0) in the owner's struct */
	struct {
		uint8_t dim;	  /* into the schema's dims[] */
		uint32_t stride;  /* bytes between consecutive indexes */
	} idx[MRCD_INI_MAX_IDX];  /* one per '#', the section's first */
	uint64_t min, max;	  /* integers */
	double dmin, dmax;	  /* doubles */
	const char *const *names; /* ENUM: the values, NULL-terminated */
	/*
	 * Optional extra check of a parsed value (`field` already holds it):
	 * 0, or -EINVAL with `why` filled ("must be one of: ...").
	 */
	int (*check)(const void *field, char *why, size_t whylen);
	const char *def;  /* the default as written in a file (DERIVED: a description) */
	const char *unit; /* "bytes", "us", ...; NULL when the value has none */
	const char *help; /* one line: what it does; no ';' needed, no newline */
};

struct mrcd_ini_section {
	const char *name; /* as in the keys: "transport", "host.#" */
	const char *help; /* printed above the section */
	uint8_t dim;	  /* "name.#": the dimension of its index (printed over range) */
};

struct mrcd_ini_schema {
	const struct mrcd_ini_section *sections;
	unsigned int n_sections;
	const struct mrcd_ini_key *keys; /* grouped by section, in print order */
	unsigned int n_keys;
	const struct mrcd_ini_dim *dims;
	unsigned int n_dims;
	/*
	 * Which indexes of `dim` to print for the values in `base`: [*lo, *hi).
	 * Strings left empty are never printed (a file cannot hold an empty
	 * value), so optional arrays of names can print their whole range.
	 */
	void (*range)(const void *base, unsigned int dim, unsigned int *lo, unsigned int *hi);
	/*
	 * Optional: is index `i` of the indexed section of `dim` there to print
	 * (sections a file may leave out, each meaning something when there)?
	 * NULL: every index in range is.
	 */
	bool (*present)(const void *base, unsigned int dim, unsigned int i);
};

/* An open file: the pre-scan's index and rte_cfgfile's values. */
struct mrcd_ini;

/*
 * Pre-scan and load `path`. 0, or -ENOENT/-EACCES/... (cannot open: the
 * message names errno's reason), -EINVAL (a structural error, with its
 * line), -ENOMEM; `err` gets the message.
 */
int mrcd_ini_open(const char *path, struct mrcd_ini **out, char *err, size_t errlen);
void mrcd_ini_close(struct mrcd_ini *ini);
const char *mrcd_ini_path(const struct mrcd_ini *ini);

/* Set every non-DERIVED field of `base` to its default. */
void mrcd_ini_defaults(const struct mrcd_ini_schema *s, void *base);

/*
 * Store every value of the file into `base` (which holds the defaults):
 * an unknown section or key or a bad value fails with the first error's
 * message and -EINVAL. Fields before the failing one may have been written.
 */
int mrcd_ini_apply(struct mrcd_ini *ini, const struct mrcd_ini_schema *s, void *base, char *err,
	size_t errlen);

/*
 * An empty file named `origin` in messages, for values that come only from
 * mrcd_ini_set(). 0 or -ENOMEM.
 */
int mrcd_ini_new(const char *origin, struct mrcd_ini **out, char *err, size_t errlen);

/*
 * A value from the command line, "<section>.<key>=<value>" (section and key
 * as a file writes them: "transport.mtu=2048", "host.1.mac.p3=..."), over
 * what the file says; mrcd_ini_apply() then checks and stores it like a
 * line of the file, and messages about it say "--set" instead of a line.
 * The last of several for one key wins. 0, or -EINVAL naming it: not
 * section.key=value, an unknown section or key, an empty value or one a
 * file could not hold (';', blanks at either end).
 */
int mrcd_ini_set(struct mrcd_ini *ini, const struct mrcd_ini_schema *s, const char *assignment,
	char *err, size_t errlen);

/* Line of [section] (key NULL) or of its key; 0 when the file has no such thing. */
unsigned int mrcd_ini_line(const struct mrcd_ini *ini, const char *section, const char *key);

/* The file sets that key ([section] exists, when key is NULL). ini may be NULL: false. */
bool mrcd_ini_has(const struct mrcd_ini *ini, const char *section, const char *key);

/*
 * Format an error about a key for the owner's cross-checks:
 *   "<file>:<line>: [<section>] <key> = <value>: <message>"
 * where the value is the file's text, or, when the file does not set the key,
 * the struct's value followed by " (default)" and the line is the section's
 * (or left out). key NULL: "<file>:<line>: [<section>]: <message>". ini may be
 * NULL (checking values that came from no file): "<origin>: ...". Returns
 * -EINVAL.
 */
int mrcd_ini_error(const struct mrcd_ini *ini, const char *origin, const struct mrcd_ini_schema *s,
	const void *base, const char *section, const char *key, char *err, size_t errlen,
	const char *fmt, ...) __rte_format_printf(9, 10);

/* The key `name` of `section` (indexed names as written, "mac.p3"), or NULL. */
const struct mrcd_ini_key *mrcd_ini_find(const struct mrcd_ini_schema *s, const char *section,
	const char *name, unsigned int idx[MRCD_INI_MAX_IDX]);

/* Address of the field of key `k` at indexes idx (NULL: all 0). */
void *mrcd_ini_field(const struct mrcd_ini_key *k, void *base, const unsigned int *idx);

/* Parse `text` into `field` as `k` says. 0, or -EINVAL with why ("must be 1..8 (planes)"). */
int mrcd_ini_parse(
	const struct mrcd_ini_key *k, const char *text, void *field, char *why, size_t whylen);

/* The value of `field` as a file would hold it; snprintf semantics. */
int mrcd_ini_format(const struct mrcd_ini_key *k, const void *field, char *buf, size_t len);

/*
 * Write `base` as a file: every section and key in table order (indexed ones
 * over schema->range), each key preceded by a comment with its default, unit
 * and help. What this prints, mrcd_ini_apply() loads back to the same values.
 */
void mrcd_ini_print(FILE *f, const struct mrcd_ini_schema *s, const void *base);

/*
 * Compare two structs key by key over the printed ranges of `a`. 0 when
 * equal; else 1 and `diff` names the first difference ("[transport] mtu:
 * 4096 != 2048").
 */
int mrcd_ini_diff(
	const struct mrcd_ini_schema *s, const void *a, const void *b, char *diff, size_t difflen);

/*
 * Self-check of a schema (for the unit test and debug builds): field sizes
 * match the types, defaults parse and lie in range, names and indexes are
 * well formed. 0, or -EINVAL with why naming the key.
 */
int mrcd_ini_schema_check(const struct mrcd_ini_schema *s, char *why, size_t whylen);

#endif /* MRCD_INI_H */
