/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: the stats thread, for DPDK's telemetry threads. /mrc/profiles: the daemon's EV and CC
 * profiles (doc/control.md, "Profiles"), each with its fields, state and
 * the QPs made with it, read under the table's mutex (never a worker's).
 */

#include <stdio.h>

#include <rte_common.h>
#include <rte_telemetry.h>

#include "mrcd_ctl.h"
#include "mrcd_daemon.h"
#include "mrcd_stats.h"

static struct mrcd_daemon *prof_daemon;

static int
cmd_profiles(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct mrcd_profile_table *t = &prof_daemon->profiles;

	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	rte_tel_data_start_dict(d);
	pthread_mutex_lock(&t->lock);
	for (unsigned int k = 0; k < MRCD_PROFILE_KINDS; k++)
		for (unsigned int i = 0; i < MRCD_PROFILE_MAX; i++) {
			const struct mrcd_qp_profile *p = &t->p[k][i];
			struct rte_tel_data *pd;
			char name[16];

			if (p->state == MRCD_PROFILE_NONE || (pd = rte_tel_data_alloc()) == NULL)
				continue;
			rte_tel_data_start_dict(pd);
			rte_tel_data_add_dict_string(
				pd, "state", mrcd_profile_state_name(p->state));
			if (k == MRCD_PROFILE_CC)
				rte_tel_data_add_dict_string(pd, "algorithm", p->algorithm);
			for (unsigned int f = 0; f < MRCD_PF_COUNT; f++)
				if (mrcd_profile_fields[f].kind == k)
					rte_tel_data_add_dict_u64(
						pd, mrcd_profile_fields[f].name, p->v[f]);
			rte_tel_data_add_dict_u64(pd, "qps", t->qps[k][i]);
			snprintf(name, sizeof(name), "%s_%u", mrcd_profile_kind_name(k), i);
			if (rte_tel_data_add_dict_container(d, name, pd, 0) != 0)
				rte_tel_data_free(pd);
		}
	pthread_mutex_unlock(&t->lock);
	return 0;
}

int
mrcd_profiles_telemetry_register(struct mrcd_daemon *d)
{
	prof_daemon = d;
	return mrcd_telemetry_add("/mrc/profiles", cmd_profiles,
		"EV and CC profiles: fields, state, QPs made with each (ev_<id>, cc_<id>)");
}
