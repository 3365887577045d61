/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRCD_CONFIG_PRIV_H
#define MRCD_CONFIG_PRIV_H

/* Shared by the mrcd_config*.c files only. */

#include "mrcd_config.h"
#include "mrcd_ini.h"

/* Index dimensions of the key table. */
enum mrcd_config_dim {
	MRCD_DIM_HOST = 0,   /* [host.<n>]: the cluster's hosts */
	MRCD_DIM_LOCAL_HOST, /* [ports] h<n>.p<p>: this process's hosts (ethdev mode) */
	MRCD_DIM_PLANE,
	MRCD_DIM_VDEV,
	MRCD_DIM_EV_PROFILE, /* [ev_profile.<n>] */
	MRCD_DIM_CC_PROFILE, /* [cc_profile.<n>] */
	MRCD_DIM_MAX,
};

extern const struct mrcd_ini_schema mrcd_config_schema;

/* The nominal TSC rate the load-time checks convert times with. */
#define MRCD_CONFIG_CHECK_TSC_HZ UINT64_C(2000000000)

/* Fill the [host.<n>] values the file did not set (ini NULL: all of them). */
void mrcd_config_derive(struct mrcd_config *cfg, const struct mrcd_ini *ini);

/*
 * mrcd_config_profiles.c: mark the [ev_profile.<n>] and [cc_profile.<n>]
 * sections the file has and give their unset keys profile 0's values (the
 * others all zeros); is section n of `dim` there to print (true for dims
 * other than the profiles'); check each as mrcctl's
 * "profile state ... offline" does.
 */
void mrcd_config_profiles_derive(struct mrcd_config *cfg, const struct mrcd_ini *ini);
bool mrcd_config_profile_present(const void *cfg, unsigned int dim, unsigned int n);
int mrcd_config_profiles_check(const struct mrcd_config *cfg, const struct mrcd_ini *ini,
	const char *origin, char *err, size_t errlen);

/* The cross-checks, naming lines of `ini` when there is one. */
int mrcd_config_cross_check(
	const struct mrcd_config *cfg, const struct mrcd_ini *ini, char *err, size_t errlen);

#endif /* MRCD_CONFIG_PRIV_H */
