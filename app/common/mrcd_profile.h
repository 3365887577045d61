/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRCD_PROFILE_H
#define MRCD_PROFILE_H

/*
 * EV and CC profiles (doc/control.md, "Profiles"): named sets of QP
 * attributes a QP picks by id when it is made. An EV profile is the shape
 * of a QP's EV pool and how it treats retired EVs; a CC profile is the
 * congestion control algorithm and its knobs. Profile 0 of each kind is the
 * default, made from the configuration ([transport] and [cc]); the
 * controller adds more (mrcctl profile add).
 *
 * Lifecycle, as the OCP controller API's: INIT -> OFFLINE -> ONLINE ->
 * OFFLINE -> INIT, one step at a time. INIT: being written, any field may
 * change, fields are checked only for range. OFFLINE: complete and checked
 * as a whole; any field may change (checked again). ONLINE: new QPs may
 * pick it; only the fields marked online may change. A change reaches the
 * QPs made afterwards; a QP keeps the values it was made with. A profile
 * is removed only in INIT or OFFLINE and with no QP made with it left; the
 * defaults stay ONLINE.
 *
 * This file is the model alone: the field table, range and lifecycle rules
 * on one profile. Plain C, no DPDK: the control protocol's parser (mrcctl,
 * fuzz_ctl) uses the field table. The daemon's table, its lock and the
 * checks that need the transport library are in mrcd_profile_attr.c and
 * app/mrcd/control/mrcd_profiles.c.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Profiles of each kind: ids 0 .. MRCD_PROFILE_MAX - 1. */
#define MRCD_PROFILE_MAX 16
/* The id of each kind's default profile (a QP that names none gets it). */
#define MRCD_PROFILE_DEFAULT 0
/* Longest CC algorithm name, '\0' included (MRC_CC_NAME_MAX). */
#define MRCD_PROFILE_ALG_MAX 32

enum mrcd_profile_kind {
	MRCD_PROFILE_EV = 0,
	MRCD_PROFILE_CC = 1,
	MRCD_PROFILE_KINDS,
};

enum mrcd_profile_state {
	MRCD_PROFILE_NONE = 0, /* the id is free */
	MRCD_PROFILE_INIT,
	MRCD_PROFILE_OFFLINE,
	MRCD_PROFILE_ONLINE,
};

/* A profile's fields; each belongs to one kind. Names are the config's keys. */
enum mrcd_profile_field {
	/* EV ([transport]) */
	MRCD_PF_EV_ACTIVE,
	MRCD_PF_EV_BACKUP,
	MRCD_PF_EV_MIN_ACTIVE,
	MRCD_PF_SKIP_ROTATIONS,
	MRCD_PF_PROBE_GOOD,
	MRCD_PF_PROBE_INTERVAL_US,
	/* CC ([cc]); the algorithm is a name, not a field */
	MRCD_PF_FIXED_CWND_KB,
	MRCD_PF_MAX_CWND_KB,
	MRCD_PF_TARGET_QDELAY_US,
	MRCD_PF_ADJUST_PERIOD_US,
	MRCD_PF_GAMMA_PM,
	MRCD_PF_MAX_MD_JUMP_PM,
	MRCD_PF_FI_SCALE_PM,
	MRCD_PF_ECN_WIDESPREAD_PCT,
	MRCD_PF_COUNT,
};

struct mrcd_profile_field_info {
	const char *name;
	uint8_t kind; /* enum mrcd_profile_kind */
	uint32_t min, max;
	bool online; /* may change while the profile is ONLINE */
};

extern const struct mrcd_profile_field_info mrcd_profile_fields[MRCD_PF_COUNT];

struct mrcd_qp_profile {
	uint8_t kind;			      /* enum mrcd_profile_kind */
	uint8_t id;			      /* < MRCD_PROFILE_MAX */
	uint8_t state;			      /* enum mrcd_profile_state */
	char algorithm[MRCD_PROFILE_ALG_MAX]; /* CC: "uet-1.0-nscc" or "fixed"; EV: "" */
	uint32_t v[MRCD_PF_COUNT];	      /* the fields of its kind; the others 0 */
};

/* A change to a profile's fields, as a request names it. */
#define MRCD_PROFILE_MAX_CHANGES 8
struct mrcd_profile_change {
	bool has_algorithm;
	char algorithm[MRCD_PROFILE_ALG_MAX];
	uint8_t n;
	uint8_t field[MRCD_PROFILE_MAX_CHANGES]; /* enum mrcd_profile_field */
	uint32_t value[MRCD_PROFILE_MAX_CHANGES];
};

/* "ev", "cc"; "init", "offline", "online" ("none" for a free id). */
const char *mrcd_profile_kind_name(unsigned int kind);
const char *mrcd_profile_state_name(unsigned int state);

/* The field named by `n` bytes at `name`, or -1. */
int mrcd_profile_field_find(const char *name, size_t n);

/*
 * Apply `ch` to `p`: each field must be of p's kind and within its range,
 * and, with p ONLINE, allowed online (the algorithm never is). 0, or -EINVAL
 * with `err` naming the field and value; p is unchanged on failure.
 */
int mrcd_profile_edit(
	struct mrcd_qp_profile *p, const struct mrcd_profile_change *ch, char *err, size_t errlen);

/*
 * May `p` move to state `to` with `qps` QPs made with it still there? One
 * step of INIT -> OFFLINE -> ONLINE -> OFFLINE -> INIT; the default stays
 * ONLINE. 0, or -EINVAL / -EBUSY (in use) with `err`. It does not check
 * the profile's values (the daemon does, entering OFFLINE).
 */
int mrcd_profile_may_move(
	const struct mrcd_qp_profile *p, unsigned int to, uint32_t qps, char *err, size_t errlen);

/* May `p` be removed with `qps` QPs made with it? 0, -EINVAL or -EBUSY with `err`. */
int mrcd_profile_may_remove(
	const struct mrcd_qp_profile *p, uint32_t qps, char *err, size_t errlen);

/*
 * The profile as JSON (no newline): {"kind","id","state"[,"algorithm"],
 * <field>:<value>...}, plus "qps":qps. The length snprintf gives.
 */
int mrcd_profile_json(const struct mrcd_qp_profile *p, uint32_t qps, char *out, size_t outlen);

#endif /* MRCD_PROFILE_H */
