/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * EV and CC profiles, the model (mrcd_profile.h): the field table and the
 * rules on one profile. The ranges are the configuration keys' of the same
 * name (app/common/mrcd_config_schema.c); what a range cannot say (an EV
 * count that is not a multiple of the planes, an algorithm nobody knows) is
 * checked by the daemon against the transport library.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "mrcd_profile.h"

/*
 * Online: what only tunes a QP made afterwards. Not online: the pool's
 * shape (an application sized its work for the EVs it was told of) and the
 * algorithm (another window rule entirely): take the profile OFFLINE first.
 */
const struct mrcd_profile_field_info mrcd_profile_fields[MRCD_PF_COUNT] = {
	[MRCD_PF_EV_ACTIVE] = {"ev_active", MRCD_PROFILE_EV, 1, 4096, false},
	[MRCD_PF_EV_BACKUP] = {"ev_backup", MRCD_PROFILE_EV, 0, 4096, false},
	[MRCD_PF_EV_MIN_ACTIVE] = {"ev_min_active", MRCD_PROFILE_EV, 0, 4096, false},
	/* MRC_EV_MAX_SKIP_ROTATIONS, MRC_EV_MAX_PROBE_GOOD */
	[MRCD_PF_SKIP_ROTATIONS] = {"skip_rotations", MRCD_PROFILE_EV, 1, 3, true},
	[MRCD_PF_PROBE_GOOD] = {"probe_good", MRCD_PROFILE_EV, 1, 15, true},
	[MRCD_PF_PROBE_INTERVAL_US] = {"probe_interval_us", MRCD_PROFILE_EV, 1, 10000000, true},
	[MRCD_PF_FIXED_CWND_KB] = {"fixed_cwnd_kb", MRCD_PROFILE_CC, 0, 1073741, true},
	[MRCD_PF_MAX_CWND_KB] = {"max_cwnd_kb", MRCD_PROFILE_CC, 0, 1073741, true},
	[MRCD_PF_TARGET_QDELAY_US] = {"target_qdelay_us", MRCD_PROFILE_CC, 0, 1000000, true},
	[MRCD_PF_ADJUST_PERIOD_US] = {"adjust_period_us", MRCD_PROFILE_CC, 0, 1000000, true},
	[MRCD_PF_GAMMA_PM] = {"gamma_pm", MRCD_PROFILE_CC, 0, 1000, true},
	[MRCD_PF_MAX_MD_JUMP_PM] = {"max_md_jump_pm", MRCD_PROFILE_CC, 0, 1000, true},
	[MRCD_PF_FI_SCALE_PM] = {"fi_scale_pm", MRCD_PROFILE_CC, 0, 1000, true},
	[MRCD_PF_ECN_WIDESPREAD_PCT] = {"ecn_widespread_pct", MRCD_PROFILE_CC, 0, 100, true},
};

const char *
mrcd_profile_kind_name(unsigned int kind)
{
	return kind == MRCD_PROFILE_EV ? "ev" : kind == MRCD_PROFILE_CC ? "cc" : "?";
}

const char *
mrcd_profile_state_name(unsigned int state)
{
	static const char *const names[] = {"none", "init", "offline", "online"};

	return state < sizeof(names) / sizeof(names[0]) ? names[state] : "?";
}

int
mrcd_profile_field_find(const char *name, size_t n)
{
	for (int f = 0; f < MRCD_PF_COUNT; f++)
		if (strlen(mrcd_profile_fields[f].name) == n &&
			memcmp(mrcd_profile_fields[f].name, name, n) == 0)
			return f;
	return -1;
}

int
mrcd_profile_edit(
	struct mrcd_qp_profile *p, const struct mrcd_profile_change *ch, char *err, size_t errlen)
{
	struct mrcd_qp_profile q = *p;
	const bool online = p->state == MRCD_PROFILE_ONLINE;

	if (ch->has_algorithm) {
		if (p->kind != MRCD_PROFILE_CC) {
			snprintf(err, errlen, "algorithm= is a CC profile's, not an EV profile's");
			return -EINVAL;
		}
		if (online) {
			snprintf(err, errlen,
				"cc profile %u is online: algorithm changes only offline", p->id);
			return -EINVAL;
		}
		if (ch->algorithm[0] == '\0' ||
			strnlen(ch->algorithm, sizeof(ch->algorithm)) >= sizeof(q.algorithm)) {
			snprintf(err, errlen, "algorithm '%.40s' is not a name", ch->algorithm);
			return -EINVAL;
		}
		snprintf(q.algorithm, sizeof(q.algorithm), "%s", ch->algorithm);
	}
	for (unsigned int i = 0; i < ch->n && i < MRCD_PROFILE_MAX_CHANGES; i++) {
		const unsigned int f = ch->field[i];
		const struct mrcd_profile_field_info *fi;

		if (f >= MRCD_PF_COUNT) {
			snprintf(err, errlen, "field %u does not exist", f);
			return -EINVAL;
		}
		fi = &mrcd_profile_fields[f];
		if (fi->kind != p->kind) {
			snprintf(err, errlen, "%s is a field of %s profiles, not of %s profiles",
				fi->name, mrcd_profile_kind_name(fi->kind),
				mrcd_profile_kind_name(p->kind));
			return -EINVAL;
		}
		if (ch->value[i] < fi->min || ch->value[i] > fi->max) {
			snprintf(err, errlen,
				"%s=%" PRIu32 " is out of range %" PRIu32 "..%" PRIu32, fi->name,
				ch->value[i], fi->min, fi->max);
			return -EINVAL;
		}
		if (online && !fi->online) {
			snprintf(err, errlen, "%s profile %u is online: %s changes only offline",
				mrcd_profile_kind_name(p->kind), p->id, fi->name);
			return -EINVAL;
		}
		q.v[f] = ch->value[i];
	}
	*p = q;
	return 0;
}

int
mrcd_profile_may_move(
	const struct mrcd_qp_profile *p, unsigned int to, uint32_t qps, char *err, size_t errlen)
{
	const char *k = mrcd_profile_kind_name(p->kind);
	const unsigned int from = p->state;
	const bool step = (from == MRCD_PROFILE_INIT && to == MRCD_PROFILE_OFFLINE) ||
			  (from == MRCD_PROFILE_OFFLINE &&
				  (to == MRCD_PROFILE_ONLINE || to == MRCD_PROFILE_INIT)) ||
			  (from == MRCD_PROFILE_ONLINE && to == MRCD_PROFILE_OFFLINE);

	if (from == MRCD_PROFILE_NONE) {
		snprintf(err, errlen, "%s profile %u does not exist", k, p->id);
		return -EINVAL;
	}
	if (to == from)
		return 0;
	if (p->id == MRCD_PROFILE_DEFAULT) {
		snprintf(err, errlen,
			"%s profile %u is the default (QPs that name none get it): it stays online",
			k, p->id);
		return -EINVAL;
	}
	if (!step) {
		snprintf(err, errlen,
			"%s profile %u is %s: it goes to %s, not %s (init -> offline -> online, "
			"one "
			"step at a time)",
			k, p->id, mrcd_profile_state_name(from),
			from == MRCD_PROFILE_INIT ? "offline" : "offline or init",
			mrcd_profile_state_name(to));
		return -EINVAL;
	}
	/* Back to INIT undoes the checks; QPs made with it keep their values either way. */
	if (to == MRCD_PROFILE_INIT && qps > 0) {
		snprintf(err, errlen, "%s profile %u is in use by %" PRIu32 " QPs", k, p->id, qps);
		return -EBUSY;
	}
	return 0;
}

int
mrcd_profile_may_remove(const struct mrcd_qp_profile *p, uint32_t qps, char *err, size_t errlen)
{
	const char *k = mrcd_profile_kind_name(p->kind);

	if (p->state == MRCD_PROFILE_NONE) {
		snprintf(err, errlen, "%s profile %u does not exist", k, p->id);
		return -EINVAL;
	}
	if (p->id == MRCD_PROFILE_DEFAULT) {
		snprintf(err, errlen, "%s profile %u is the default: it cannot be removed", k,
			p->id);
		return -EINVAL;
	}
	if (qps > 0) {
		snprintf(err, errlen, "%s profile %u is in use by %" PRIu32 " QPs", k, p->id, qps);
		return -EBUSY;
	}
	if (p->state == MRCD_PROFILE_ONLINE) {
		snprintf(err, errlen, "%s profile %u is online: take it offline first", k, p->id);
		return -EINVAL;
	}
	return 0;
}

int
mrcd_profile_json(const struct mrcd_qp_profile *p, uint32_t qps, char *out, size_t outlen)
{
	size_t o = 0;
	int w;

#define PUT(...)                                                                 \
	do {                                                                     \
		w = snprintf(out + o, o < outlen ? outlen - o : 0, __VA_ARGS__); \
		if (w < 0)                                                       \
			return w;                                                \
		o += (size_t)w;                                                  \
	} while (0)
	PUT("{\"kind\":\"%s\",\"id\":%u,\"state\":\"%s\"", mrcd_profile_kind_name(p->kind), p->id,
		mrcd_profile_state_name(p->state));
	if (p->kind == MRCD_PROFILE_CC)
		PUT(",\"algorithm\":\"%s\"", p->algorithm);
	for (unsigned int f = 0; f < MRCD_PF_COUNT; f++)
		if (mrcd_profile_fields[f].kind == p->kind)
			PUT(",\"%s\":%" PRIu32, mrcd_profile_fields[f].name, p->v[f]);
	PUT(",\"qps\":%" PRIu32 "}", qps);
#undef PUT
	return (int)o;
}
