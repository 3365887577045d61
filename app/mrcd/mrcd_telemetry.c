/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * DPDK telemetry commands under /mrc/, for dpdk-telemetry.py and anything
 * that speaks its socket (the path is printed at start):
 *
 *   /mrc/info          version, hosts, planes, flows, workers, phase, uptime
 *   /mrc/config        the main configuration values
 *   /mrc/hosts         host numbers
 *   /mrc/host,<n>      one host: messages, bytes, resends, NACKs, ECN echoes,
 *                      EV states, verified bytes, parser rejects, per-plane bytes
 *   /mrc/planes        bytes sent per plane, all hosts
 *   /mrc/qps           the QPs: number, host, peer, role
 *   /mrc/fabric        the emulated fabric's counters by name
 *
 * Replies are capped at 16 KB in DPDK 22.11, so tables that grow with the
 * deployment are lists of ids plus one command per item (hosts, qps).
 * Callbacks run on DPDK's telemetry thread: they read only the snapshots the
 * workers publish, never live worker state.
 */

#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_telemetry.h>

#include "mrcd_daemon.h"

static struct mrcd_daemon *daemon_ref;
static uint64_t start_tsc;

static const char *const phase_names[] = {"running", "draining", "stopping"};

static int
cmd_info(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct mrcd_daemon *m = daemon_ref;

	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "version", MRCD_VERSION);
	rte_tel_data_add_dict_u64(d, "hosts", m->n_hosts);
	rte_tel_data_add_dict_u64(d, "planes", m->cfg.daemon.planes);
	rte_tel_data_add_dict_u64(d, "flows", m->n_flows);
	rte_tel_data_add_dict_u64(d, "qps", 2ull * m->n_flows);
	rte_tel_data_add_dict_u64(d, "workers", m->n_workers);
	rte_tel_data_add_dict_string(d, "phase",
		phase_names[__atomic_load_n(&m->phase, __ATOMIC_ACQUIRE) % 3]);
	rte_tel_data_add_dict_u64(d, "uptime_ms", (rte_rdtsc() - start_tsc) * 1000 / m->hz);
	rte_tel_data_add_dict_string(d, "profile_pattern", mrcd_pattern_name(m->prof.pattern));
	rte_tel_data_add_dict_u64(d, "msg_kb", m->prof.msg_kb);
	return 0;
}

static int
cmd_config(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct mrcd_config *c = &daemon_ref->cfg;

	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "file", c->path[0] ? c->path : "(built-in defaults)");
	rte_tel_data_add_dict_u64(d, "hosts", c->daemon.hosts);
	rte_tel_data_add_dict_u64(d, "planes", c->daemon.planes);
	rte_tel_data_add_dict_u64(d, "duration_s", c->daemon.duration_s);
	rte_tel_data_add_dict_u64(d, "mtu", c->transport.mtu);
	rte_tel_data_add_dict_string(d, "encap", c->transport.encap ? "plain" : "srv6");
	rte_tel_data_add_dict_u64(d, "ev_active", c->transport.ev_active);
	rte_tel_data_add_dict_u64(d, "ev_backup", c->transport.ev_backup);
	rte_tel_data_add_dict_u64(d, "mpr", c->transport.mpr);
	rte_tel_data_add_dict_u64(d, "timeout", c->transport.timeout);
	rte_tel_data_add_dict_string(d, "cc", c->cc.algorithm);
	rte_tel_data_add_dict_u64(d, "fabric_t1s", c->fabric.t1s);
	rte_tel_data_add_dict_u64(d, "fabric_link_mbps", (uint64_t)(c->fabric.link_gbps * 1000));
	rte_tel_data_add_dict_u64(d, "fabric_queue_kb", c->fabric.queue_kb);
	rte_tel_data_add_dict_u64(d, "fabric_trim_kb", c->fabric.trim_kb);
	return 0;
}

static int
cmd_hosts(const char *cmd, const char *params, struct rte_tel_data *d)
{
	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	rte_tel_data_start_array(d, RTE_TEL_U64_VAL);
	for (unsigned int h = 0; h < daemon_ref->n_hosts; h++)
		rte_tel_data_add_array_u64(d, h);
	return 0;
}

static int
parse_index(const char *params, unsigned int max, unsigned int *out)
{
	char *end;
	unsigned long v;

	if (params == NULL || params[0] == '\0')
		return -1;
	v = strtoul(params, &end, 0);
	if (*end != '\0' || v >= max)
		return -1;
	*out = (unsigned int)v;
	return 0;
}

static int
cmd_host(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct mrcd_daemon *m = daemon_ref;
	struct mrcd_snapshot s;
	struct rte_tel_data *planes;
	unsigned int h;

	RTE_SET_USED(cmd);
	if (parse_index(params, m->n_hosts, &h) != 0)
		return -1; /* telemetry answers "null": the host does not exist */
	mrcd_snapshot_read(m, h, &s);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "host", h);
	rte_tel_data_add_dict_u64(d, "msgs_posted", s.posted);
	rte_tel_data_add_dict_u64(d, "msgs_completed", s.completed);
	rte_tel_data_add_dict_u64(d, "msgs_failed", s.failed);
	rte_tel_data_add_dict_u64(d, "bytes_sent", s.sent_bytes);
	rte_tel_data_add_dict_u64(d, "bytes_verified", s.verified_bytes);
	rte_tel_data_add_dict_u64(d, "verify_errors", s.verify_errors);
	rte_tel_data_add_dict_u64(d, "retransmits", s.retx);
	rte_tel_data_add_dict_u64(d, "nacks", s.nacks);
	rte_tel_data_add_dict_u64(d, "ecn_echoes", s.ecn_echoes);
	rte_tel_data_add_dict_u64(d, "ev_losses", s.ev_losses);
	rte_tel_data_add_dict_u64(d, "ev_good", s.ev_good);
	rte_tel_data_add_dict_u64(d, "ev_skip", s.ev_skip);
	rte_tel_data_add_dict_u64(d, "ev_assumed_bad", s.ev_bad);
	rte_tel_data_add_dict_u64(d, "ev_denied", s.ev_denied);
	rte_tel_data_add_dict_u64(d, "rx_rejected", s.rejects);
	planes = rte_tel_data_alloc();
	if (planes != NULL) {
		rte_tel_data_start_array(planes, RTE_TEL_U64_VAL);
		for (unsigned int p = 0; p < m->cfg.daemon.planes; p++)
			rte_tel_data_add_array_u64(planes, s.tx_bytes[p]);
		rte_tel_data_add_dict_container(d, "plane_tx_bytes", planes, 0);
	}
	return 0;
}

static int
cmd_planes(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct mrcd_daemon *m = daemon_ref;
	uint64_t tx[MRCD_MAX_PLANES] = {0};

	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	for (unsigned int h = 0; h < m->n_hosts; h++) {
		struct mrcd_snapshot s;

		mrcd_snapshot_read(m, h, &s);
		for (unsigned int p = 0; p < MRCD_MAX_PLANES; p++)
			tx[p] += s.tx_bytes[p];
	}
	rte_tel_data_start_array(d, RTE_TEL_U64_VAL);
	for (unsigned int p = 0; p < m->cfg.daemon.planes; p++)
		rte_tel_data_add_array_u64(d, tx[p]);
	return 0;
}

static int
cmd_qps(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct mrcd_daemon *m = daemon_ref;
	char key[32], val[64];

	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	/* Fixed at setup (not worker state); 64 per reply keeps it under 16 KB. */
	rte_tel_data_start_dict(d);
	for (unsigned int i = 0; i < m->n_flows && i < 32; i++) {
		const struct mrcd_flow *f = &m->flows[i];

		snprintf(key, sizeof(key), "0x%x", MRCD_QPN_BASE + 2 * i);
		snprintf(val, sizeof(val), "host %u -> host %u, sender", f->src, f->dst);
		rte_tel_data_add_dict_string(d, key, val);
		snprintf(key, sizeof(key), "0x%x", MRCD_QPN_BASE + 2 * i + 1);
		snprintf(val, sizeof(val), "host %u <- host %u, receiver", f->dst, f->src);
		rte_tel_data_add_dict_string(d, key, val);
	}
	return 0;
}

static int
cmd_fabric(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct mrc_fabric_counters c;

	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	mrcd_fabric_snapshot_read(daemon_ref, &c);
	rte_tel_data_start_dict(d);
	for (unsigned int i = 0; i < mrc_fabric_counters_count; i++)
		rte_tel_data_add_dict_u64(d, mrc_fabric_counters_desc[i].name,
			mrc_fabric_counters_get(&c, i));
	return 0;
}

int
mrcd_telemetry_register(struct mrcd_daemon *d)
{
	static const struct {
		const char *cmd;
		telemetry_cb fn;
		const char *help;
	} cmds[] = {
		{"/mrc/info", cmd_info, "mrcd: version, hosts, planes, flows, phase, uptime"},
		{"/mrc/config", cmd_config, "mrcd: main configuration values"},
		{"/mrc/hosts", cmd_hosts, "mrcd: host numbers (see /mrc/host,<n>)"},
		{"/mrc/host", cmd_host, "mrcd: one host's counters. Parameter: host number"},
		{"/mrc/planes", cmd_planes, "mrcd: bytes sent per plane, all hosts"},
		{"/mrc/qps", cmd_qps, "mrcd: QP numbers with their hosts and role"},
		{"/mrc/fabric", cmd_fabric, "mrcd: the emulated fabric's counters"},
	};

	daemon_ref = d;
	start_tsc = rte_rdtsc();
	for (size_t i = 0; i < RTE_DIM(cmds); i++)
		if (rte_telemetry_register_cmd(cmds[i].cmd, cmds[i].fn, cmds[i].help) != 0)
			return -1;
	return 0;
}
