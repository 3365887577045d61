/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: the stats thread, for DPDK's telemetry threads (mrcd_telemetry_priv.h).
 *
 * /mrc/paths,<n>[,<i>] and /mrc/path,<p>,<t1>: the per-path (plane, T1)
 * counters the stats thread publishes, and the paths the node controller
 * denied. Owns nothing.
 */

#include <stdio.h>
#include <string.h>

#include <rte_spinlock.h>
#include <rte_telemetry.h>

#include "mrcd_daemon.h"
#include "mrcd_stats.h"
#include "mrcd_telemetry_priv.h"

/*
 * Per-path counters (lib/qp/mrc_path_stats.h), a host's shards summed by the
 * stats thread (mrcd_stats_thread.c) every [lcores] stats_interval_ms. One
 * array per path, in the order "fields" names; the RTT histogram's bucket b
 * is "rtt_lt_<2^b>us" (b = 0: below 1 us), the last one unbounded.
 */
static const char *const path_fields[] = {"tx_data_pkts", "tx_data_bytes", "tx_retx_pkts",
	"tx_retx_bytes", "tx_probes", "lost_by_ev_order", "lost_by_time", "lost_by_pkt_timeout",
	"lost_by_rto", "lost_by_nack", "lost_by_rewind", "ecn_echoes", "trims", "rtt_samples",
	"rtt_sum_ns"};

static void
path_field_names(struct rte_tel_data *a)
{
	char name[32];

	rte_tel_data_start_array(a, RTE_TEL_STRING_VAL);
	for (size_t i = 0; i < RTE_DIM(path_fields); i++)
		rte_tel_data_add_array_string(a, path_fields[i]);
	for (unsigned int b = 0; b < MRC_PATH_RTT_BUCKETS; b++) {
		if (b + 1 < MRC_PATH_RTT_BUCKETS)
			snprintf(name, sizeof(name), "rtt_lt_%uus", 1u << b);
		else
			snprintf(name, sizeof(name), "rtt_ge_%uus", 1u << (b - 1));
		rte_tel_data_add_array_string(a, name);
	}
}

static void
path_values(struct rte_tel_data *a, const struct mrc_path_counters *c)
{
	const uint64_t v[] = {c->tx_data_pkts, c->tx_data_bytes, c->tx_retx_pkts, c->tx_retx_bytes,
		c->tx_probes, c->lost[MRC_REL_LOSS_EV_ORDER], c->lost[MRC_REL_LOSS_TIME],
		c->lost[MRC_REL_LOSS_PKT_TIMEOUT], c->lost[MRC_REL_LOSS_RTO],
		c->lost[MRC_REL_LOSS_NACK], c->lost[MRC_REL_LOSS_REWIND], c->ecn_echoes, c->trims,
		c->rtt_samples, c->rtt_sum_ns};

	RTE_BUILD_BUG_ON(RTE_DIM(v) != RTE_DIM(path_fields));
	rte_tel_data_start_array(a, RTE_TEL_U64_VAL);
	for (size_t i = 0; i < RTE_DIM(v); i++)
		rte_tel_data_add_array_u64(a, v[i]);
	for (unsigned int b = 0; b < MRC_PATH_RTT_BUCKETS; b++)
		rte_tel_data_add_array_u64(a, c->rtt_hist[b]);
}

/* Every shard of a host has the same geometry (one config): n_planes x (n_t1 + 1). */
#define PATHS_MAX (MRC_SHARD_MAX_PLANES * (MRC_PATH_MAX_T1 + 1))

/* Host h's paths as the stats thread last summed them over its shards: how many. */
static unsigned int
host_paths(const struct mrcd_daemon *m, unsigned int h, struct mrc_path_counters *sum,
	unsigned int *n_planes, unsigned int *n_t1)
{
	return mrcd_stats_paths_read(m, h, sum, PATHS_MAX, n_planes, n_t1);
}

static void
path_name(char *buf, size_t len, unsigned int plane, unsigned int t1, unsigned int n_t1)
{
	if (t1 == n_t1)
		snprintf(buf, len, "p%u_direct", plane);
	else
		snprintf(buf, len, "p%u_t%u", plane, t1);
}

/*
 * "denied": the host's planes ("p<plane>") and paths ("p<plane>_t<t1>")
 * the node controller has denied (control/mrcd_ctl.h publishes them).
 */
static void
add_denied(struct rte_tel_data *d, const struct mrcd_hostctx *hc, unsigned int n_planes)
{
	struct rte_tel_data *a = rte_tel_data_alloc();
	const uint8_t planes = __atomic_load_n(&hc->denied_planes, __ATOMIC_ACQUIRE);
	char name[32];

	if (a == NULL)
		return;
	rte_tel_data_start_array(a, RTE_TEL_STRING_VAL);
	for (unsigned int p = 0; p < n_planes && p < MRC_SHARD_MAX_PLANES; p++) {
		const uint64_t t1 = __atomic_load_n(&hc->denied_t1[p], __ATOMIC_ACQUIRE);

		if ((planes >> p) & 1) {
			snprintf(name, sizeof(name), "p%u", p);
			rte_tel_data_add_array_string(a, name);
		}
		for (unsigned int t = 0; t < 64; t++)
			if ((t1 >> t) & 1) {
				snprintf(name, sizeof(name), "p%u_t%u", p, t);
				rte_tel_data_add_array_string(a, name);
			}
	}
	rte_tel_data_add_dict_container(d, "denied", a, 0);
}

/*
 * /mrc/paths,<host>[,<i>]: one host's paths, 32 a page from the i-th
 * (plane-major: p0_t0 .. p0_t<T1s-1>, p0_direct, p1_t0 ...); "next" starts
 * the following page.
 */
#define PATHS_PER_PAGE 32

int
mrcd_tel_cmd_paths(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct mrcd_daemon *m = mrcd_tel_daemon;
	static struct mrc_path_counters sum[PATHS_MAX]; /* telemetry: one at once */
	static rte_spinlock_t lock = RTE_SPINLOCK_INITIALIZER;
	char arg[64], *comma, name[32];
	unsigned int h, start = 0, n, n_planes, n_t1, i;
	struct rte_tel_data *fields;

	RTE_SET_USED(cmd);
	snprintf(arg, sizeof(arg), "%s", params != NULL ? params : "");
	comma = strchr(arg, ',');
	if (comma != NULL)
		*comma++ = '\0';
	if (mrcd_tel_parse_index(arg, m->n_hosts, &h) != 0)
		return mrcd_tel_error(
			d, "host '%s' is not one of ours (0..%u)", arg, m->n_hosts - 1);
	fields = rte_tel_data_alloc();
	if (fields == NULL)
		return -1;
	rte_spinlock_lock(&lock);
	n = host_paths(m, h, sum, &n_planes, &n_t1);
	if (n == 0) {
		rte_spinlock_unlock(&lock);
		rte_tel_data_free(fields);
		return mrcd_tel_error(
			d, "no path counters yet: the stats thread starts with the run");
	}
	if (comma != NULL && mrcd_tel_parse_index(comma, n, &start) != 0) {
		rte_spinlock_unlock(&lock);
		rte_tel_data_free(fields);
		return mrcd_tel_error(d, "start '%s' is not a path index (0..%u)", comma, n - 1);
	}
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "host", h);
	rte_tel_data_add_dict_u64(d, "t1s", n_t1);
	path_field_names(fields);
	rte_tel_data_add_dict_container(d, "fields", fields, 0);
	for (i = start; i < n && i < start + PATHS_PER_PAGE; i++) {
		struct rte_tel_data *a = rte_tel_data_alloc();

		if (a == NULL)
			break;
		path_values(a, &sum[i]);
		path_name(name, sizeof(name), i / (n_t1 + 1), i % (n_t1 + 1), n_t1);
		rte_tel_data_add_dict_container(d, name, a, 0);
	}
	rte_spinlock_unlock(&lock);
	add_denied(d, &m->host[h], n_planes);
	if (i < n)
		rte_tel_data_add_dict_u64(d, "next", i);
	return 0;
}

/* /mrc/path,<plane>,<t1>: one path (t1 a number or "direct"), per host ("host<h>"). */
int
mrcd_tel_cmd_path(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct mrcd_daemon *m = mrcd_tel_daemon;
	static struct mrc_path_counters sum[PATHS_MAX];
	static rte_spinlock_t lock = RTE_SPINLOCK_INITIALIZER;
	const unsigned int t1s = m->cfg.fabric.t1s;
	char arg[64], *t1_arg, name[32];
	unsigned int plane, t1;
	struct rte_tel_data *fields;

	RTE_SET_USED(cmd);
	snprintf(arg, sizeof(arg), "%s", params != NULL ? params : "");
	t1_arg = strchr(arg, ',');
	if (t1_arg == NULL)
		return mrcd_tel_error(
			d, "'%s': give <plane>,<t1> (t1 0..%u or direct)", arg, t1s - 1);
	*t1_arg++ = '\0';
	if (mrcd_tel_parse_index(arg, m->cfg.daemon.planes, &plane) != 0)
		return mrcd_tel_error(
			d, "plane '%s' is out of range (0..%u)", arg, m->cfg.daemon.planes - 1u);
	if (strcmp(t1_arg, "direct") == 0)
		t1 = t1s;
	else if (mrcd_tel_parse_index(t1_arg, t1s, &t1) != 0)
		return mrcd_tel_error(
			d, "t1 '%s' is out of range (0..%u, or direct)", t1_arg, t1s - 1);
	fields = rte_tel_data_alloc();
	if (fields == NULL)
		return -1;
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "plane", plane);
	path_name(name, sizeof(name), plane, t1, t1s);
	rte_tel_data_add_dict_string(d, "path", name);
	path_field_names(fields);
	rte_tel_data_add_dict_container(d, "fields", fields, 0);
	rte_spinlock_lock(&lock);
	for (unsigned int h = 0; h < m->n_hosts; h++) {
		unsigned int n_planes, n_t1, n = host_paths(m, h, sum, &n_planes, &n_t1);
		const unsigned int i = plane * (n_t1 + 1) + RTE_MIN(t1, n_t1);
		struct rte_tel_data *a;

		if (i >= n || (a = rte_tel_data_alloc()) == NULL)
			continue;
		path_values(a, &sum[i]);
		snprintf(name, sizeof(name), "host%u", h);
		rte_tel_data_add_dict_container(d, name, a, 0);
	}
	rte_spinlock_unlock(&lock);
	return 0;
}
