/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRCD_PROFILE_TABLE_H
#define MRCD_PROFILE_TABLE_H

/*
 * The daemon's EV and CC profiles (mrcd_profile.h has the model and the
 * lifecycle): every profile of both kinds and how many QPs were made with
 * each and are still there.
 *
 * Who writes, who reads: the control socket's thread changes profiles
 * (mrcd_profile_table_do); the threads that make QPs (the application
 * channel's thread, the main lcore at start) take a copy of the profiles a
 * QP names and count the QP (mrcd_profile_table_hold), and uncount it when
 * it is destroyed (_release). Each under the table's mutex: no worker ever
 * reads the table, since a QP carries the values it was made with (struct
 * mrc_qp_attr), so no lock is near a packet.
 */

#include <pthread.h>
#include <stdint.h>

#include "mrc_qp.h"
#include "mrcd_config.h"
#include "mrcd_ctl_proto.h"
#include "mrcd_profile.h"

struct mrcd_profile_table {
	pthread_mutex_t lock;
	const struct mrcd_config *cfg; /* for the defaults and the checks; outlives the table */
	struct mrcd_qp_profile p[MRCD_PROFILE_KINDS][MRCD_PROFILE_MAX];
	uint32_t qps[MRCD_PROFILE_KINDS][MRCD_PROFILE_MAX]; /* QPs made with it, still there */
};

/*
 * Profile 0 of each kind made from the configuration ([transport], [cc]) and
 * the profiles its [ev_profile.<n>] and [cc_profile.<n>] define, all ONLINE.
 */
void mrcd_profile_table_init(struct mrcd_profile_table *t, const struct mrcd_config *cfg);
void mrcd_profile_table_fini(struct mrcd_profile_table *t);

/*
 * The configuration's default profile of `kind` (id 0, ONLINE): [transport]
 * ev_active, ev_backup, ev_min_active, skip_rotations, probe_good,
 * probe_interval_us, or [cc] algorithm and its knobs.
 */
void mrcd_profile_from_config(
	const struct mrcd_config *cfg, unsigned int kind, struct mrcd_qp_profile *p);

/*
 * Overlay profile `p` on QP attributes made by mrcd_config_qp_attr: the EV
 * pool's shape and probing, or the CC algorithm and its knobs (0 in a knob:
 * the algorithm's default, as in [cc]).
 */
void mrcd_profile_apply(const struct mrcd_qp_profile *p, uint64_t tsc_hz, struct mrc_qp_attr *a);

/*
 * Is `p` complete and sound for this configuration: EV counts that are
 * multiples of the planes and fit a pool, an algorithm the CC registry
 * knows, parameters its check takes. 0 or -EINVAL with `err`.
 */
int mrcd_profile_check(
	const struct mrcd_config *cfg, const struct mrcd_qp_profile *p, char *err, size_t errlen);

/*
 * A QP is being made with EV profile `ev` and CC profile `cc`: both must be
 * ONLINE. Copies them to *ev_out and *cc_out and counts the QP on each. 0,
 * or -EINVAL with `err` naming the id refused (nothing counted).
 */
int mrcd_profile_table_hold(struct mrcd_profile_table *t, unsigned int ev, unsigned int cc,
	struct mrcd_qp_profile *ev_out, struct mrcd_qp_profile *cc_out, char *err, size_t errlen);
/* That QP is gone. */
void mrcd_profile_table_release(struct mrcd_profile_table *t, unsigned int ev, unsigned int cc);

/* Are EV profile `ev` and CC profile `cc` both ONLINE? 0, or -EINVAL as _hold says. */
int mrcd_profile_table_check_online(
	struct mrcd_profile_table *t, unsigned int ev, unsigned int cc, char *err, size_t errlen);

/*
 * The attributes of a QP made with EV profile `ev` and CC profile `cc`: the
 * configuration's (mrcd_config_qp_attr) with both profiles over them, the
 * QP counted on each (_release when it is gone). 0, or -EINVAL with `err`
 * (a profile not ONLINE, nothing counted).
 */
int mrcd_profile_qp_attr(struct mrcd_profile_table *t, unsigned int ev, unsigned int cc,
	uint64_t tsc_hz, struct mrc_qp_attr *a, char *err, size_t errlen);

/*
 * A profile request of the control protocol (MRCD_CTL_PROFILE_*): carry
 * it out and answer it into `out`, "OK <json>\n" or "ERR <code> <message>\n"
 * (codes: no-such-profile, exists, bad-value, bad-state, in-use). A
 * refused request changes nothing.
 */
void mrcd_profile_table_do(
	struct mrcd_profile_table *t, const struct mrcd_ctl_req *rq, char *out, size_t outlen);

#endif /* MRCD_PROFILE_TABLE_H */
