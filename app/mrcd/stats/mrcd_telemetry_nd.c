/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: the stats thread, for DPDK's telemetry threads.
 *
 * /mrc/nd,<host>: neighbour discovery on each plane port of one host, and the
 * frames that were not MRC, by kind (control/mrcd_nd.c writes them). One
 * array per field, indexed by plane, as /mrc/ports has them. Only atomic
 * loads of what the control thread writes: counters, the state, and the
 * next hop's MAC as published to the QPs.
 */

#include <arpa/inet.h>
#include <stdlib.h>

#include <rte_telemetry.h>

#include "mrcd_daemon.h"
#include "mrcd_stats.h"

static const struct mrcd_daemon *nd_daemon;

static const char *const cnt_names[] = {
#define MRCD_ND_CNT_NAME(name, help) #name,
	MRCD_ND_COUNTERS(MRCD_ND_CNT_NAME)
#undef MRCD_ND_CNT_NAME
};

/* Arrays: on, next_hop, state, next_hop_mac, addresses, the counters, then the kinds. */
#define N_FIXED	 5
#define N_ARRAYS (N_FIXED + MRCD_ND_CNT_MAX + MRC_ND_KIND_MAX)

static int
cmd_nd(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct mrcd_daemon *m = nd_daemon;
	struct rte_tel_data *a[N_ARRAYS];
	char *end;
	unsigned long h;

	RTE_SET_USED(cmd);
	if (m == NULL || params == NULL || params[0] == '\0')
		return -1;
	h = strtoul(params, &end, 0);
	if (*end != '\0' || h >= m->n_hosts)
		return -1; /* telemetry answers "null": the host does not exist */
	for (unsigned int i = 0; i < N_ARRAYS; i++) {
		a[i] = rte_tel_data_alloc();
		if (a[i] == NULL) {
			while (i-- > 0)
				rte_tel_data_free(a[i]);
			return -1;
		}
		rte_tel_data_start_array(
			a[i], i >= 1 && i <= 3 ? RTE_TEL_STRING_VAL : RTE_TEL_U64_VAL);
	}
	const struct mrcd_hostctx *hc = &m->host[h];

	for (unsigned int p = 0; p < m->cfg.daemon.planes; p++) {
		const struct mrcd_nd_port *np = &hc->nd[p];
		const int st = __atomic_load_n((const int *)&np->nh.state, __ATOMIC_RELAXED);
		const uint64_t w = __atomic_load_n(&hc->next_hop_mac[p], __ATOMIC_RELAXED);
		char ip[INET6_ADDRSTRLEN] = "", mac[RTE_ETHER_ADDR_FMT_SIZE];
		struct rte_ether_addr e;

		memcpy(&e, &w, sizeof(e));
		rte_ether_format_addr(mac, sizeof(mac), &e);
		if (np->resolve)
			inet_ntop(AF_INET6, np->nh.ip, ip, sizeof(ip));
		rte_tel_data_add_array_u64(a[0], np->on);
		rte_tel_data_add_array_string(a[1], np->resolve ? ip : "static");
		rte_tel_data_add_array_string(
			a[2], np->resolve ? mrc_nd_state_name((enum mrc_nd_state)st) : "static");
		rte_tel_data_add_array_string(a[3], mac);
		rte_tel_data_add_array_u64(a[4], np->n_addr);
		for (unsigned int i = 0; i < MRCD_ND_CNT_MAX; i++)
			rte_tel_data_add_array_u64(
				a[N_FIXED + i], __atomic_load_n(&np->cnt[i], __ATOMIC_RELAXED));
		for (unsigned int i = 0; i < MRC_ND_KIND_MAX; i++)
			rte_tel_data_add_array_u64(a[N_FIXED + MRCD_ND_CNT_MAX + i],
				__atomic_load_n(&np->kind[i], __ATOMIC_RELAXED));
	}
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "host", h);
	rte_tel_data_add_dict_u64(d, "neighbour_discovery", hc->nd_on);
	{
		static const char *const fixed[N_FIXED] = {
			"on", "next_hop", "state", "next_hop_mac", "addresses"};
		char name[64];

		for (unsigned int i = 0; i < N_ARRAYS; i++) {
			if (i < N_FIXED)
				snprintf(name, sizeof(name), "%s", fixed[i]);
			else if (i < N_FIXED + MRCD_ND_CNT_MAX)
				snprintf(name, sizeof(name), "%s", cnt_names[i - N_FIXED]);
			else
				snprintf(name, sizeof(name), "not_mrc_%s",
					mrc_nd_kind_name(
						(enum mrc_nd_kind)(i - N_FIXED - MRCD_ND_CNT_MAX)));
			rte_tel_data_add_dict_container(d, name, a[i], 0);
		}
	}
	return 0;
}

int
mrcd_telemetry_nd_register(const struct mrcd_daemon *d)
{
	nd_daemon = d;
	return mrcd_telemetry_add("/mrc/nd", cmd_nd,
		"mrcd: one host's neighbour discovery per plane port, and the frames that were "
		"not MRC by kind. Parameter: host");
}
