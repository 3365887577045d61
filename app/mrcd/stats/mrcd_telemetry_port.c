/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: the stats thread, for DPDK's telemetry threads (mrcd_telemetry_priv.h).
 *
 * /mrc/ports,<n>, /mrc/drops,<n>, /mrc/links[,<i>] and /mrc/fabric: one
 * host's ports and what it refused or dropped, and the emulated fabric's
 * links and counters. Snapshots and atomic loads only; owns nothing.
 */

#include <stdio.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_telemetry.h>

#include "mrc_qp.h"
#include "mrcd_control.h"
#include "mrcd_daemon.h"
#include "mrcd_stats.h"
#include "mrcd_telemetry_priv.h"

/* A counter another thread bumps (the control thread's ep_ops), read with a
 * relaxed atomic load; the shard's own counters come from its snapshot. */
static uint64_t
peek(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

int
mrcd_tel_cmd_ports(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct mrcd_daemon *m = mrcd_tel_daemon;
	const unsigned int n_planes = m->cfg.daemon.planes;
	unsigned int h;

	RTE_SET_USED(cmd);
	if (mrcd_tel_parse_index(params, m->n_hosts, &h) != 0)
		return -1;
	const uint32_t up = mrc_shard_port_mask(m->host[h].shard[0].rt);
	struct mrc_shard_snapshot ss;
	struct mrc_qp_encap_counters ec;
	struct rte_tel_data *a[15];
	static const char *const names[15] = {"port_id", "name", "link_up", "tx_pkts", "tx_bytes",
		"rx_pkts", "rx_bytes", "rx_queues", "steering", "steering_why", "encap_offload",
		"encap_offload_why", "encap_rules", "encap_rule_fails", "encap_remakes"};

	for (unsigned int i = 0; i < RTE_DIM(a); i++) {
		a[i] = rte_tel_data_alloc();
		if (a[i] == NULL) {
			while (i-- > 0)
				rte_tel_data_free(a[i]);
			return -1;
		}
		rte_tel_data_start_array(
			a[i], i == 1 || (i >= 8 && i <= 11) ? RTE_TEL_STRING_VAL : RTE_TEL_U64_VAL);
	}
	mrcd_tel_host_snapshot(m, h, &ss);
	for (unsigned int p = 0; p < n_planes; p++) {
		const struct mrc_shard_plane_counters *pc = &ss.plane[p];
		const uint16_t port = m->host[h].port[p];
		char name[RTE_ETH_NAME_MAX_LEN];

		if (rte_eth_dev_get_name_by_port(port, name) != 0)
			snprintf(name, sizeof(name), "?");
		rte_tel_data_add_array_u64(a[0], port);
		rte_tel_data_add_array_string(a[1], name);
		rte_tel_data_add_array_u64(a[2], (up >> p) & 1);
		rte_tel_data_add_array_u64(a[3], pc->tx_pkts);
		rte_tel_data_add_array_u64(a[4], pc->tx_bytes);
		rte_tel_data_add_array_u64(a[5], pc->rx_pkts);
		rte_tel_data_add_array_u64(a[6], pc->rx_bytes);
		rte_tel_data_add_array_u64(a[7], m->host[h].rx_queues[p]);
		rte_tel_data_add_array_string(a[8], mrcd_steer_name(m->host[h].steer[p]));
		rte_tel_data_add_array_string(a[9], m->host[h].steer_why[p]);
		/* nic: the port holds rules and refused none; the why says what it answered */
		rte_tel_data_add_array_string(a[10], mrcd_encap_port_mode(m, h, p));
		rte_tel_data_add_array_string(a[11], m->host[h].encap_why[p]);
		rte_tel_data_add_array_u64(a[12], m->host[h].encap_rules[p]);
		rte_tel_data_add_array_u64(a[13], m->host[h].encap_fails[p]);
		/* a port whose next hop is resolved: its rules made again for a new MAC */
		rte_tel_data_add_array_u64(
			a[14], __atomic_load_n(&m->host[h].encap_remakes[p], __ATOMIC_RELAXED));
	}
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "host", h);
	rte_tel_data_add_dict_u64(d, "workers_per_host", m->host[h].n_shards);
	/* planes set down by the node controller (bit p): link_up reads 0 for them */
	rte_tel_data_add_dict_u64(
		d, "admin_down", __atomic_load_n(&m->host[h].admin_down, __ATOMIC_ACQUIRE));
	/* the host's packets by who made their outer header (doc/offload.md) */
	mrcd_encap_counts(m, h, &ec);
	rte_tel_data_add_dict_u64(d, "encap_nic_pkts", ec.nic);
	rte_tel_data_add_dict_u64(d, "encap_sw_no_port_pkts", ec.sw_no_port);
	rte_tel_data_add_dict_u64(d, "encap_sw_no_rule_pkts", ec.sw_no_rule);
	{
		uint64_t no_table, epreq;

		mrcd_encap_fallback(m, h, &no_table, &epreq);
		rte_tel_data_add_dict_u64(d, "encap_sw_no_table_pkts", no_table);
		rte_tel_data_add_dict_u64(d, "encap_sw_epreq_pkts", epreq);
	}
	for (unsigned int i = 0; i < RTE_DIM(a); i++)
		rte_tel_data_add_dict_container(d, names[i], a[i], 0);
	return 0;
}

/* Everything a host refused or dropped, by reason: parser verdicts, then the host's own. */
int
mrcd_tel_cmd_drops(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct mrcd_daemon *m = mrcd_tel_daemon;
	struct mrc_wire_rx_stats v;
	unsigned int h;

	RTE_SET_USED(cmd);
	if (mrcd_tel_parse_index(params, m->n_hosts, &h) != 0)
		return -1;
	memset(&v, 0, sizeof(v));

	struct mrc_shard_snapshot ss;

	mrcd_tel_host_snapshot(m, h, &ss);
	mrc_wire_rx_stats_add(&v, &ss.verdicts);

	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "host", h);
	rte_tel_data_add_dict_u64(d, "rx_parsed_ok", v.pkts[MRC_WIRE_OK]);
	for (int r = 1; r < MRC_WIRE_REJECT_MAX; r++) {
		char key[64];

		snprintf(key, sizeof(key), "rx_%s", mrc_wire_reject_name((enum mrc_wire_rx)r));
		rte_tel_data_add_dict_u64(d, key, v.pkts[r]);
	}
	rte_tel_data_add_dict_u64(d, "rx_unknown_qpn", ss.cnt.rx_unknown_qpn);
	rte_tel_data_add_dict_u64(d, "rx_pending_qpn", ss.cnt.rx_pending_qpn);
	rte_tel_data_add_dict_u64(d, "rx_ep_ops", peek(&m->host[h].ep_ops));
	rte_tel_data_add_dict_u64(d, "rx_handoff_drops", ss.cnt.rx_handoff_drops);
	rte_tel_data_add_dict_u64(d, "rx_dispatch_full", ss.cnt.rx_dispatch_full);
	rte_tel_data_add_dict_u64(d, "rx_misdispatched", ss.cnt.rx_misdispatched);
	rte_tel_data_add_dict_u64(d, "tx_dropped", ss.cnt.tx_dropped);
	return 0;
}

/*
 * The emulated fabric's links, 32 a page: "fields" names the counters, then
 * one array per link ("p<plane>_<kind>_<a>_<b>", from a to b: state, then the counters
 * in that order; key names allow only [A-Za-z0-9_]); "next" starts the following
 * page. Counter words are read
 * as they stand (the fabric's worker bumps them), like ethdev stats.
 */
#define LINKS_PER_PAGE 32

int
mrcd_tel_cmd_links(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct mrc_fabric *fab = mrcd_tel_daemon->fab;
	unsigned int start = 0, i, n;
	struct rte_tel_data *fields;

	RTE_SET_USED(cmd);
	if (fab == NULL)
		return -1; /* ethdev mode: there is no emulated fabric */
	n = mrc_fabric_n_links(fab);
	if (params != NULL && params[0] != '\0' && mrcd_tel_parse_index(params, n, &start) != 0)
		return -1;
	fields = rte_tel_data_alloc();
	if (fields == NULL)
		return -1;
	rte_tel_data_start_dict(d);
	rte_tel_data_start_array(fields, RTE_TEL_STRING_VAL);
	rte_tel_data_add_array_string(fields, "state");
	for (unsigned int c = 0; c < mrc_fabric_link_counters_count; c++)
		rte_tel_data_add_array_string(fields, mrc_fabric_link_counters_desc[c].name);
	rte_tel_data_add_dict_container(d, "fields", fields, 0);
	for (i = start; i < n && i < start + LINKS_PER_PAGE; i++) {
		struct mrc_fabric_link_id id;
		struct mrc_fabric_link_counters cnt;
		enum mrc_fabric_state st;
		struct rte_tel_data *a;
		char name[64];

		if (mrc_fabric_link_info(fab, i, &id, &st, NULL, &cnt) != 0)
			continue;
		a = rte_tel_data_alloc();
		if (a == NULL)
			break;
		rte_tel_data_start_array(a, RTE_TEL_U64_VAL);
		rte_tel_data_add_array_u64(a, (uint64_t)st);
		for (unsigned int c = 0; c < mrc_fabric_link_counters_count; c++)
			rte_tel_data_add_array_u64(a, mrc_fabric_link_counters_get(&cnt, c));
		snprintf(name, sizeof(name), "p%u_%s_%u_%u", id.plane,
			mrc_fabric_link_kind_name(id.kind), id.a, id.b);
		rte_tel_data_add_dict_container(d, name, a, 0);
	}
	if (i < n)
		rte_tel_data_add_dict_u64(d, "next", i);
	return 0;
}

int
mrcd_tel_cmd_fabric(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct mrc_fabric_counters c;

	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	if (mrcd_tel_daemon->fab == NULL)
		return -1; /* ethdev mode: there is no emulated fabric */
	mrcd_fabric_snapshot_read(mrcd_tel_daemon, &c);
	rte_tel_data_start_dict(d);
	for (unsigned int i = 0; i < mrc_fabric_counters_count; i++)
		rte_tel_data_add_dict_u64(
			d, mrc_fabric_counters_desc[i].name, mrc_fabric_counters_get(&c, i));
	return 0;
}
