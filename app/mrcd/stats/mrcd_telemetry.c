/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: DPDK's telemetry threads (one per client), which hand every
 * command to the stats thread and wait for its reply; the stats thread,
 * which formats the replies (mrcd_telemetry_serve); registered by the main
 * lcore at setup. The replies read snapshots and what setup made, and ask
 * workers about single QPs (mrcd_query_ask.c); never live worker state.
 * This file registers the commands, hands them over (mrcd_tel_mailbox.h)
 * and guards them against teardown; each family is answered in a file of
 * its own (mrcd_telemetry_priv.h).
 *
 * DPDK telemetry commands under /mrc/, for dpdk-telemetry.py and anything
 * that speaks its socket (the path is printed at start):
 *
 *   /mrc/info          version, hosts, planes, flows, workers, phase, uptime
 *   /mrc/config        the main configuration values
 *   /mrc/hosts         host numbers
 *   /mrc/host,<n>      one host: messages, bytes, resends, NACKs, ECN echoes,
 *                      EV states, verified bytes, parser rejects, per-plane bytes,
 *                      and when its worker took that snapshot
 *   /mrc/planes        bytes sent per plane, all hosts
 *   /mrc/qps[,<i>]     the QPs: number, host, peer, role; 64 a page from the i-th
 *   /mrc/qp,<qpn>      one QP: state, error, memory, every counter
 *   /mrc/evs,<qpn>     one QP's EVs: per plane per state, retired EVs by value
 *   /mrc/ports,<n>     one host's ports (one per plane): id, name, link, pkts, bytes
 *   /mrc/drops,<n>     one host's parser rejects by reason, unknown QPNs, tx drops
 *   /mrc/fabric        the emulated fabric's counters by name
 *   /mrc/links[,<i>]   its links: state and counters, 32 a page from the i-th
 *   /mrc/paths,<n>[,<i>]  one host's per-path (plane, T1) counters, 32 a page
 *   /mrc/path,<p>,<t1>    one path's counters on every host (t1: a T1 or "direct")
 *
 * Replies are capped at 16 KB in DPDK 22.11, so tables that grow with the
 * deployment are lists of ids plus one command per item (hosts, qps).
 * DPDK calls the callbacks on its telemetry threads (one per client); each
 * posts its command to the stats thread and waits up to
 * MRCD_TEL_REPLY_TIMEOUT_MS for it to be taken. The stats thread formats the
 * reply from the snapshots the workers publish, its own per-path sums,
 * single counter words read with atomic loads, or, for one QP, an answer
 * the owning worker copies out on request (mrcd_query.c); never a worker's
 * live structures.
 */

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_telemetry.h>

#include "mrcd_daemon.h"
#include "mrcd_stats.h"
#include "mrcd_tel_mailbox.h"
#include "mrcd_telemetry_priv.h"

struct mrcd_daemon *mrcd_tel_daemon;
uint64_t mrcd_tel_start_tsc;

int
mrcd_tel_parse_index(const char *params, unsigned int max, unsigned int *out)
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

/* A host's engine counters: the sum of its shards' published snapshots. */
void
mrcd_tel_host_snapshot(const struct mrcd_daemon *m, unsigned int h, struct mrc_shard_snapshot *out)
{
	memset(out, 0, sizeof(*out));
	for (unsigned int k = 0; k < m->host[h].n_shards; k++) {
		struct mrc_shard_snapshot ss;

		mrc_shard_snapshot(m->host[h].shard[k].rt, &ss);
		out->tsc = RTE_MAX(out->tsc, ss.tsc);
		mrc_shard_counters_add(&out->cnt, &ss.cnt);
		for (unsigned int p = 0; p < MRC_SHARD_MAX_PLANES; p++) {
			out->plane[p].tx_pkts += ss.plane[p].tx_pkts;
			out->plane[p].tx_bytes += ss.plane[p].tx_bytes;
			out->plane[p].rx_pkts += ss.plane[p].rx_pkts;
			out->plane[p].rx_bytes += ss.plane[p].rx_bytes;
		}
		mrc_wire_rx_stats_add(&out->verdicts, &ss.verdicts);
		out->n_qps += ss.n_qps;
	}
}

/* A reply that names what was wrong with the parameters: {"error": "..."}. */
int __rte_format_printf(2, 3) mrcd_tel_error(struct rte_tel_data *d, const char *fmt, ...)
{
	char msg[RTE_TEL_MAX_STRING_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "error", msg);
	return 0;
}

static const struct {
	const char *cmd;
	telemetry_cb fn;
	const char *help;
} cmds[] = {
	{"/mrc/info", mrcd_tel_cmd_info, "mrcd: version, hosts, planes, flows, phase, uptime"},
	{"/mrc/config", mrcd_tel_cmd_config, "mrcd: main configuration values"},
	{"/mrc/hosts", mrcd_tel_cmd_hosts, "mrcd: host numbers (see /mrc/host,<n>)"},
	{"/mrc/host", mrcd_tel_cmd_host, "mrcd: one host's counters. Parameter: host number"},
	{"/mrc/planes", mrcd_tel_cmd_planes, "mrcd: bytes sent per plane, all hosts"},
	{"/mrc/qps", mrcd_tel_cmd_qps,
		"mrcd: our QPs' numbers, hosts and role, 64 a page. Parameter: the page's "
		"start (\"next\")"},
	{"/mrc/qp", mrcd_tel_cmd_qp, "mrcd: one QP's state and counters. Parameter: QPN"},
	{"/mrc/evs", mrcd_tel_cmd_evs,
		"mrcd: one QP's EVs by plane and state, retired ones listed. Parameter: "
		"QPN"},
	{"/mrc/ports", mrcd_tel_cmd_ports,
		"mrcd: one host's port per plane: link, packets, bytes. Parameter: host"},
	{"/mrc/links", mrcd_tel_cmd_links,
		"mrcd: the emulated fabric's links and their counters, 32 a page. "
		"Parameter: the page's start (\"next\")"},
	{"/mrc/drops", mrcd_tel_cmd_drops,
		"mrcd: what one host refused or dropped, by reason. Parameter: host"},
	{"/mrc/fabric", mrcd_tel_cmd_fabric, "mrcd: the emulated fabric's counters"},
	{"/mrc/paths", mrcd_tel_cmd_paths,
		"mrcd: one host's per-path (plane, T1) counters, 32 paths a page. "
		"Parameters: host[,start]"},
	{"/mrc/path", mrcd_tel_cmd_path,
		"mrcd: one path's counters on every host. Parameters: plane,t1 (a T1 or "
		"direct)"},
};

/*
 * Teardown frees what the commands read (shards, pools), while DPDK's
 * telemetry threads, which cannot be stopped or unregistered, may still be
 * answering. Every command therefore runs between enter and leave; once
 * mrcd_telemetry_close has set `closed` and waited for `in_use` to fall to
 * zero, commands answer that mrcd is stopping. Both sides use sequentially
 * consistent operations: a command that missed `closed` is counted in
 * `in_use` before the closer looks. The stats thread answers until then
 * (its outputs closed earlier), and the closer ends it afterwards. Written
 * by the telemetry threads (in_use) and the main lcore (closed).
 */
static int in_use, closed;

/* Commands other files add through mrcd_telemetry_add, before the run starts. */
static struct {
	const char *cmd;
	telemetry_cb fn;
} extra[4];
static unsigned int n_extra;

/*
 * The commands' way to the stats thread. Made by mrcd_telemetry_register
 * before any command is registered (ready set after), never torn down: a
 * telemetry thread may still be inside mrcd_tel_mailbox_ask's unlock when
 * the daemon exits.
 */
static struct mrcd_tel_mailbox mailbox;
static int mailbox_ready;

static telemetry_cb
lookup(const char *cmd)
{
	for (size_t i = 0; i < RTE_DIM(cmds); i++)
		if (strcmp(cmds[i].cmd, cmd) == 0)
			return cmds[i].fn;
	for (unsigned int i = 0; i < n_extra; i++)
		if (strcmp(extra[i].cmd, cmd) == 0)
			return extra[i].fn;
	return NULL;
}

static int
guarded(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const telemetry_cb fn = lookup(cmd);
	struct mrcd_tel_req r = {.cmd = cmd, .params = params, .d = d, .fn = fn};
	int rc = -1;

	__atomic_add_fetch(&in_use, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&closed, __ATOMIC_SEQ_CST)) {
		rc = mrcd_tel_error(d, "mrcd is stopping: %s is no longer answered", cmd);
	} else if (fn != NULL) {
		/* Before the run the stats thread is not there yet: the request waits for it. */
		if (mrcd_tel_mailbox_ask(&mailbox, &r, MRCD_TEL_REPLY_TIMEOUT_MS) == 0)
			rc = r.rc;
		else
			rc = mrcd_tel_error(d,
				"mrcd: the stats thread did not take %s within %u ms (stuck, or "
				"not running)",
				cmd, MRCD_TEL_REPLY_TIMEOUT_MS);
	}
	__atomic_sub_fetch(&in_use, 1, __ATOMIC_SEQ_CST);
	return rc;
}

int
mrcd_telemetry_serve(void)
{
	if (!__atomic_load_n(&mailbox_ready, __ATOMIC_ACQUIRE))
		return 0;
	return mrcd_tel_mailbox_serve_one(&mailbox);
}

int
mrcd_telemetry_wake_fd(void)
{
	if (!__atomic_load_n(&mailbox_ready, __ATOMIC_ACQUIRE))
		return -1;
	return mrcd_tel_mailbox_fd(&mailbox);
}

void
mrcd_telemetry_replies(uint64_t *served, uint64_t *timed_out)
{
	struct mrcd_tel_mailbox_counters c = {0};

	if (__atomic_load_n(&mailbox_ready, __ATOMIC_ACQUIRE))
		mrcd_tel_mailbox_counters(&mailbox, &c);
	*served = c.served;
	*timed_out = c.timed_out;
}

void
mrcd_telemetry_close(void)
{
	__atomic_store_n(&closed, 1, __ATOMIC_SEQ_CST);
	/* The stats thread still answers: commands already posted get their replies. */
	while (__atomic_load_n(&in_use, __ATOMIC_SEQ_CST) != 0)
		rte_delay_us_sleep(100);
	if (mrcd_tel_daemon != NULL)
		mrcd_stats_end(mrcd_tel_daemon);
}

int
mrcd_telemetry_add(const char *cmd, telemetry_cb fn, const char *help)
{
	if (n_extra == RTE_DIM(extra))
		return -ENOSPC;
	extra[n_extra].cmd = cmd;
	extra[n_extra].fn = fn;
	n_extra++;
	return rte_telemetry_register_cmd(cmd, guarded, help);
}

int
mrcd_telemetry_register(struct mrcd_daemon *d)
{
	int rc;

	mrcd_tel_daemon = d;
	mrcd_tel_start_tsc = rte_rdtsc();
	rc = mrcd_tel_mailbox_init(&mailbox);
	if (rc != 0)
		return rc;
	__atomic_store_n(&mailbox_ready, 1, __ATOMIC_RELEASE);
	if (mrcd_telemetry_nd_register(d) != 0)
		return -EINVAL;
	for (size_t i = 0; i < RTE_DIM(cmds); i++) {
		rc = rte_telemetry_register_cmd(cmds[i].cmd, guarded, cmds[i].help);
		if (rc != 0)
			return rc;
	}
	return 0;
}
