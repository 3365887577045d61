/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: the stats thread, for DPDK's telemetry threads (mrcd_telemetry_priv.h).
 *
 * /mrc/info, /mrc/config, /mrc/hosts, /mrc/host,<n> and /mrc/planes: the
 * daemon and its hosts. Reads the configuration, the workers' published
 * snapshots and single counters with atomic loads; owns nothing.
 */

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_mempool.h>
#include <rte_telemetry.h>

#include "mrc_time.h"
#include "mrcd_daemon.h"
#include "mrcd_recover.h"
#include "mrcd_stats.h"
#include "mrcd_telemetry_priv.h"

static const char *const phase_names[] = {"running", "draining", "stopping"};

/*
 * Who makes the replies, for tests and for an operator wondering why one is
 * slow: the thread formatting this one (the stats thread, by design), the
 * stats thread's id, and the replies it made before this one.
 */
static void
info_replier(const struct mrcd_daemon *m, struct rte_tel_data *d)
{
	const struct mrcd_stats *st = __atomic_load_n(&m->stats, __ATOMIC_ACQUIRE);
	char name[16] = "";
	uint64_t served, timed_out;

	pthread_getname_np(pthread_self(), name, sizeof(name));
	rte_tel_data_add_dict_string(d, "reply_thread", name);
	rte_tel_data_add_dict_u64(d, "reply_tid", (uint64_t)gettid());
	rte_tel_data_add_dict_u64(d, "stats_tid",
		st != NULL ? (uint64_t)__atomic_load_n(&st->tid, __ATOMIC_ACQUIRE) : 0);
	mrcd_telemetry_replies(&served, &timed_out);
	rte_tel_data_add_dict_u64(d, "replies_served", served);
	rte_tel_data_add_dict_u64(d, "replies_timed_out", timed_out);
	rte_tel_data_add_dict_u64(
		d, "stats_passes", st != NULL ? __atomic_load_n(&st->passes, __ATOMIC_RELAXED) : 0);
}

int
mrcd_tel_cmd_info(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct mrcd_daemon *m = mrcd_tel_daemon;

	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "version", MRCD_VERSION);
	rte_tel_data_add_dict_u64(d, "hosts", m->n_hosts);
	rte_tel_data_add_dict_u64(d, "planes", m->cfg.daemon.planes);
	const unsigned int n_flows = __atomic_load_n(&m->n_flows, __ATOMIC_ACQUIRE);
	uint64_t live = 0;

	/* a reload's removed flows stay in the table, marked gone (mrcd_reload.h) */
	for (unsigned int i = 0; i < n_flows; i++)
		live += !__atomic_load_n(&m->flows[i].gone, __ATOMIC_RELAXED);
	rte_tel_data_add_dict_u64(d, "flows", live);
	rte_tel_data_add_dict_u64(d, "qps", 2 * live);
	rte_tel_data_add_dict_u64(d, "workers", m->n_workers);
	rte_tel_data_add_dict_string(
		d, "phase", phase_names[__atomic_load_n(&m->phase, __ATOMIC_ACQUIRE) % 3]);
	rte_tel_data_add_dict_u64(
		d, "uptime_ms", (rte_rdtsc() - mrcd_tel_start_tsc) * 1000 / m->hz);
	rte_tel_data_add_dict_string(d, "profile_pattern", mrcd_pattern_name(m->prof.pattern));
	rte_tel_data_add_dict_u64(d, "msg_kb", m->prof.msg_kb);
	rte_tel_data_add_dict_u64(
		d, "reloads_ok", __atomic_load_n(&m->svc.reloads_ok, __ATOMIC_RELAXED));
	rte_tel_data_add_dict_u64(
		d, "reloads_refused", __atomic_load_n(&m->svc.reloads_refused, __ATOMIC_RELAXED));
	info_replier(m, d);
	return 0;
}

int
mrcd_tel_cmd_config(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct mrcd_config *c = &mrcd_tel_daemon->cfg;

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
	rte_tel_data_add_dict_string(d, "paths", c->transport.paths ? "ecmp" : "spray");
	rte_tel_data_add_dict_string(d, "reliability", c->transport.reliability ? "gbn" : "sack");
	rte_tel_data_add_dict_string(d, "cc", c->cc.algorithm);
	rte_tel_data_add_dict_u64(d, "fabric_t1s", c->fabric.t1s);
	rte_tel_data_add_dict_u64(d, "fabric_link_mbps", (uint64_t)(c->fabric.link_gbps * 1000));
	rte_tel_data_add_dict_u64(d, "fabric_queue_kb", c->fabric.queue_kb);
	rte_tel_data_add_dict_u64(d, "fabric_trim_kb", c->fabric.trim_kb);
	return 0;
}

int
mrcd_tel_cmd_hosts(const char *cmd, const char *params, struct rte_tel_data *d)
{
	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	rte_tel_data_start_array(d, RTE_TEL_U64_VAL);
	for (unsigned int h = 0; h < mrcd_tel_daemon->n_hosts; h++)
		rte_tel_data_add_array_u64(d, h);
	return 0;
}

int
mrcd_tel_cmd_host(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct mrcd_daemon *m = mrcd_tel_daemon;
	struct mrcd_snapshot s;
	struct rte_tel_data *planes;
	unsigned int h;

	RTE_SET_USED(cmd);
	if (mrcd_tel_parse_index(params, m->n_hosts, &h) != 0)
		return -1; /* telemetry answers "null": the host does not exist */
	mrcd_snapshot_read(m, h, &s);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "host", h);
	/* When the worker took it, since the telemetry started: [lcores] stats_interval_ms apart.
	 */
	rte_tel_data_add_dict_u64(d, "snapshot_ms",
		s.tsc > mrcd_tel_start_tsc ? (s.tsc - mrcd_tel_start_tsc) * 1000 / m->hz : 0);
	rte_tel_data_add_dict_u64(d, "msgs_posted", s.posted);
	rte_tel_data_add_dict_u64(d, "msgs_completed", s.completed);
	rte_tel_data_add_dict_u64(d, "msgs_failed", s.failed);
	rte_tel_data_add_dict_u64(
		d, "qps_in_error", __atomic_load_n(&m->host[h].qps_in_error, __ATOMIC_RELAXED));
	/* flows this host sends brought back on a new QP pair, and those left failed */
	rte_tel_data_add_dict_u64(d, "flows_recovered", mrcd_recover_count(m, h));
	rte_tel_data_add_dict_u64(d, "recover_failed", mrcd_recover_failed(m, h));
	/* mbufs out of the host's pools now: a leak shows as a count that only grows */
	rte_tel_data_add_dict_u64(
		d, "rx_pool_in_use", rte_mempool_in_use_count(m->host[h].rx_pool));
	rte_tel_data_add_dict_u64(
		d, "tx_pool_in_use", rte_mempool_in_use_count(m->host[h].tx_pool));
	rte_tel_data_add_dict_u64(d, "bytes_sent", s.sent_bytes);
	rte_tel_data_add_dict_u64(d, "bytes_verified", s.verified_bytes);
	rte_tel_data_add_dict_u64(d, "msgs_verified", s.verified_msgs);
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
	{
		struct mrc_shard_snapshot ss;

		mrcd_tel_host_snapshot(m, h, &ss);
		rte_tel_data_add_dict_u64(d, "shards", m->host[h].n_shards);
		rte_tel_data_add_dict_u64(d, "qps", ss.n_qps);
		rte_tel_data_add_dict_u64(d, "rx_dispatched", ss.cnt.rx_dispatched_out);
		rte_tel_data_add_dict_u64(d, "cycles", ss.cnt.cyc_total);
		rte_tel_data_add_dict_u64(d, "cycles_dispatch", ss.cnt.cyc_dispatch);
	}
	planes = rte_tel_data_alloc();
	if (planes != NULL) {
		rte_tel_data_start_array(planes, RTE_TEL_U64_VAL);
		for (unsigned int p = 0; p < m->cfg.daemon.planes; p++)
			rte_tel_data_add_array_u64(planes, s.tx_bytes[p]);
		rte_tel_data_add_dict_container(d, "plane_tx_bytes", planes, 0);
	}
	return 0;
}

int
mrcd_tel_cmd_planes(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct mrcd_daemon *m = mrcd_tel_daemon;
	uint64_t tx[MRC_SHARD_MAX_PLANES] = {0};

	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	for (unsigned int h = 0; h < m->n_hosts; h++) {
		struct mrcd_snapshot s;

		mrcd_snapshot_read(m, h, &s);
		for (unsigned int p = 0; p < MRC_SHARD_MAX_PLANES; p++)
			tx[p] += s.tx_bytes[p];
	}
	rte_tel_data_start_array(d, RTE_TEL_U64_VAL);
	for (unsigned int p = 0; p < m->cfg.daemon.planes; p++)
		rte_tel_data_add_array_u64(d, tx[p]);
	return 0;
}
