/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: the main lcore, loading the configuration (mrcd, mrcd --check).
 *
 * The EV and CC profiles a file defines, [ev_profile.<n>] and
 * [cc_profile.<n>] (n 1..15). A section defines the profile; a key it does
 * not set takes profile 0's value, [transport]'s or [cc]'s, as mrcctl's
 * "profile add" starts from the default. Each profile is checked whole by
 * mrcd_profile_check, the check mrcctl's "profile state ... offline" runs,
 * so a profile the file defines is one the controller could have made.
 */

#include <stdio.h>
#include <string.h>

#include "mrcd_config_priv.h"
#include "mrcd_profile_table.h"

static void
section_name(unsigned int kind, unsigned int n, char *sec, size_t len)
{
	snprintf(sec, len, "%s_profile.%u", mrcd_profile_kind_name(kind), n);
}

/*
 * The key to name in an error about a whole profile: of the section's keys
 * the file sets, the one the message names first (the check names the
 * fields it refuses, the culprit first); NULL, naming the section, when none.
 */
static const char *
blamed_key(const struct mrcd_ini *ini, const char *sec, unsigned int kind, const char *why)
{
	const char *best = NULL, *at = NULL;

	if (kind == MRCD_PROFILE_CC && mrcd_ini_has(ini, sec, "algorithm")) {
		at = strstr(why, "algorithm");
		best = at != NULL ? "algorithm" : NULL;
	}
	for (unsigned int f = 0; f < MRCD_PF_COUNT; f++) {
		const char *name = mrcd_profile_fields[f].name;
		const char *w = strstr(why, name);

		if (mrcd_profile_fields[f].kind == kind && w != NULL && (at == NULL || w < at) &&
			mrcd_ini_has(ini, sec, name)) {
			at = w;
			best = name;
		}
	}
	return best;
}

void
mrcd_config_profiles_derive(struct mrcd_config *cfg, const struct mrcd_ini *ini)
{
	for (unsigned int k = 0; k < MRCD_PROFILE_KINDS; k++) {
		struct mrcd_qp_profile def;

		mrcd_profile_from_config(cfg, k, &def);
		for (unsigned int n = 1; n < MRCD_PROFILE_MAX; n++) {
			struct mrcd_cfg_profile *p = &cfg->profile[k][n];
			char sec[32];

			section_name(k, n, sec, sizeof(sec));
			p->defined = mrcd_ini_has(ini, sec, NULL);
			/* An absent one holds zeros, so that comparing configurations skips it. */
			if (!p->defined) {
				memset(p, 0, sizeof(*p));
				continue;
			}
			if (k == MRCD_PROFILE_CC && !mrcd_ini_has(ini, sec, "algorithm"))
				memcpy(p->algorithm, def.algorithm, sizeof(p->algorithm));
			for (unsigned int f = 0; f < MRCD_PF_COUNT; f++)
				if (mrcd_profile_fields[f].kind == k &&
					!mrcd_ini_has(ini, sec, mrcd_profile_fields[f].name))
					p->v[f] = def.v[f];
		}
	}
}

bool
mrcd_config_profile_present(const void *base, unsigned int dim, unsigned int n)
{
	const struct mrcd_config *cfg = base;

	if (dim != MRCD_DIM_EV_PROFILE && dim != MRCD_DIM_CC_PROFILE)
		return true; /* the other indexed sections: every index in range */
	return n < MRCD_PROFILE_MAX &&
	       cfg->profile[dim == MRCD_DIM_EV_PROFILE ? MRCD_PROFILE_EV : MRCD_PROFILE_CC][n]
		       .defined;
}

int
mrcd_config_profiles_check(const struct mrcd_config *cfg, const struct mrcd_ini *ini,
	const char *origin, char *err, size_t errlen)
{
	for (unsigned int k = 0; k < MRCD_PROFILE_KINDS; k++) {
		char sec[32], why[256];

		section_name(k, 0, sec, sizeof(sec));
		if (mrcd_ini_has(ini, sec, NULL))
			return mrcd_ini_error(ini, origin, &mrcd_config_schema, cfg, sec, NULL, err,
				errlen,
				"%s profile 0 is the default, made from %s: number the file's "
				"profiles 1..%d",
				mrcd_profile_kind_name(k),
				k == MRCD_PROFILE_EV ? "[transport]" : "[cc]",
				MRCD_PROFILE_MAX - 1);
		for (unsigned int n = 1; n < MRCD_PROFILE_MAX; n++) {
			const struct mrcd_cfg_profile *c = &cfg->profile[k][n];
			struct mrcd_qp_profile q = {.kind = (uint8_t)k,
				.id = (uint8_t)n,
				.state = MRCD_PROFILE_OFFLINE};

			if (!c->defined)
				continue;
			memcpy(q.algorithm, c->algorithm, sizeof(q.algorithm));
			for (unsigned int f = 0; f < MRCD_PF_COUNT; f++)
				if (mrcd_profile_fields[f].kind == k)
					q.v[f] = c->v[f];
			if (mrcd_profile_check(cfg, &q, why, sizeof(why)) != 0) {
				section_name(k, n, sec, sizeof(sec));
				return mrcd_ini_error(ini, origin, &mrcd_config_schema, cfg, sec,
					blamed_key(ini, sec, k, why), err, errlen, "%s", why);
			}
		}
	}
	return 0;
}
