/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: DPDK's telemetry threads (one per client); registered by the
 * main lcore at setup. Reads snapshots and what setup made, and asks
 * workers about single QPs (mrcd_query_ask.c); never live worker state.
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
 * Callbacks run on DPDK's telemetry threads (one per client). They read the
 * snapshots the workers publish, single counter words with atomic loads, or,
 * for one QP, an answer its owning worker copies out on request
 * (mrcd_query.c); never a worker's live structures.
 */

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_spinlock.h>
#include <rte_telemetry.h>

#include "mrc_time.h"
#include "mrcd_daemon.h"
#include "mrcd_recover.h"
#include "mrcd_stats.h"
#include "mrcd_telemetry_priv.h"

struct mrcd_daemon *mrcd_tel_daemon;
uint64_t mrcd_tel_start_tsc;

static const char *const phase_names[] = {"running", "draining", "stopping"};

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

/*
 * The QPs, 64 per reply to stay under 16 KB: "/mrc/qps" gives the first
 * page, "/mrc/qps,<n>" the page starting at the n-th QP; "next" is where the
 * following page starts, absent on the last one.
 */
#define QPS_PER_PAGE 64

int
mrcd_tel_cmd_qps(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct mrcd_daemon *m = mrcd_tel_daemon;
	unsigned int start = 0, i, listed = 0;
	char key[32], val[64];

	RTE_SET_USED(cmd);
	/* Index i walks our QPs: flow i / 2, sender end when even, receiver when odd. */
	const unsigned int n_flows = __atomic_load_n(&m->n_flows, __ATOMIC_ACQUIRE);

	if (params != NULL && params[0] != '\0' &&
		mrcd_tel_parse_index(params, 2 * n_flows, &start) != 0)
		return -1;
	/*
	 * The flows are fixed at setup; their QPs change only when a flow is
	 * brought back on a new pair (its worker publishes the pointer, and a
	 * QP swapped out is freed only a second later): the QPN is the one in use.
	 */
	rte_tel_data_start_dict(d);
	for (i = start; i < 2 * n_flows && listed < QPS_PER_PAGE; i++) {
		const struct mrcd_flow *f = &m->flows[i / 2];
		const bool sender = i % 2 == 0;
		const struct mrc_qp *qp;

		if ((sender ? f->src_local : f->dst_local) < 0 ||
			__atomic_load_n(&f->gone, __ATOMIC_RELAXED))
			continue; /* that end runs in another process, or a reload removed it */
		qp = __atomic_load_n(sender ? &f->qp : &m->peer_qp[i / 2], __ATOMIC_ACQUIRE);
		snprintf(key, sizeof(key), "0x%x",
			qp != NULL ? mrc_qp_qpn(qp) : f->qpn + (sender ? 0 : 1));
		snprintf(val, sizeof(val), "host %u %s host %u, %s", sender ? f->src : f->dst,
			sender ? "->" : "<-", sender ? f->dst : f->src,
			sender ? "sender" : "receiver");
		rte_tel_data_add_dict_string(d, key, val);
		listed++;
	}
	if (i < 2 * n_flows)
		rte_tel_data_add_dict_u64(d, "next", i);
	return 0;
}

/*
 * A QPN of one of our QPs: the sender of cluster flow g is BASE + 2g, its
 * receiver BASE + 2g + 1, and a recovered flow's pair is a spare pair past
 * the flows' (mrcd_recover.h); only the ends on our hosts exist here, and
 * only the pair each flow uses now. The QP pointers are read as their
 * worker left them: a QP it swapped out is freed only a second later.
 */
static int
resolve_qpn(const char *params, unsigned int *host, struct mrc_qp **qp, const char **role)
{
	const struct mrcd_daemon *m = mrcd_tel_daemon;
	const uint32_t spares = m->recover != NULL ? m->recover->n_spares : 0;
	unsigned int qpn;

	if (mrcd_tel_parse_index(params, MRCD_QPN_BASE + 2 * (m->n_cluster_flows + spares), &qpn) !=
			0 ||
		qpn < MRCD_QPN_BASE)
		return -1;
	const int32_t fi = mrcd_flow_of_qpn(m, qpn);
	const bool sender = (qpn - MRCD_QPN_BASE) % 2 == 0;

	if (fi < 0)
		return -1;
	const struct mrcd_flow *f = &m->flows[fi];
	const int local = sender ? f->src_local : f->dst_local;

	if (local < 0)
		return -1;
	*host = (unsigned int)local;
	*qp = __atomic_load_n(sender ? &f->qp : &m->peer_qp[fi], __ATOMIC_ACQUIRE);
	*role = sender ? "sender" : "receiver";
	return *qp != NULL && mrc_qp_qpn(*qp) == qpn ? 0 : -1;
}

/* The sender's and receiver's state: PSNs, window, retries, ages in us. */
static void
add_rel(struct rte_tel_data *d, const struct mrcd_query_rel *r, uint64_t hz)
{
	rte_tel_data_add_dict_u64(d, "snd_una", r->snd_una);
	rte_tel_data_add_dict_u64(d, "snd_nxt", r->snd_nxt);
	rte_tel_data_add_dict_u64(d, "inflight_pkts", r->n_inflight);
	rte_tel_data_add_dict_u64(d, "lost_unsent_pkts", r->n_lost);
	rte_tel_data_add_dict_u64(d, "cwnd_bytes", r->cwnd_bytes);
	rte_tel_data_add_dict_u64(d, "can_send_new", r->can_send);
	rte_tel_data_add_dict_u64(d, "rel_error", r->error);
	rte_tel_data_add_dict_u64(d, "retries", r->retries);
	rte_tel_data_add_dict_u64(d, "probe_wanted", r->probe_wanted);
	rte_tel_data_add_dict_u64(d, "probe_outstanding", r->probe_outstanding);
	rte_tel_data_add_dict_u64(d, "rto_fired", r->rto_fired);
	rte_tel_data_add_dict_u64(d, "probes_asked", r->probes_asked);
	rte_tel_data_add_dict_u64(d, "spurious_losses", r->spurious);
	/* How the losses were found (mrc_rel_tx.h, rules 1-4 and the timer). */
	rte_tel_data_add_dict_u64(d, "lost_by_ev_order", r->lost[MRC_REL_LOSS_EV_ORDER]);
	rte_tel_data_add_dict_u64(d, "lost_by_time", r->lost[MRC_REL_LOSS_TIME]);
	rte_tel_data_add_dict_u64(d, "lost_by_pkt_timeout", r->lost[MRC_REL_LOSS_PKT_TIMEOUT]);
	rte_tel_data_add_dict_u64(d, "lost_by_rto", r->lost[MRC_REL_LOSS_RTO]);
	rte_tel_data_add_dict_u64(d, "lost_by_nack", r->lost[MRC_REL_LOSS_NACK]);
	rte_tel_data_add_dict_u64(d, "lost_by_rewind", r->lost[MRC_REL_LOSS_REWIND]);
	rte_tel_data_add_dict_u64(d, "since_progress_us", mrc_tsc_to_us(r->since_progress_tsc, hz));
	rte_tel_data_add_dict_u64(d, "since_ack_us", mrc_tsc_to_us(r->since_ack_tsc, hz));
	rte_tel_data_add_dict_u64(d, "srtt_us", mrc_tsc_to_us(r->srtt_tsc, hz));
	rte_tel_data_add_dict_u64(d, "rx_epsn", r->rx_epsn);
	rte_tel_data_add_dict_u64(d, "rx_max_psn", r->rx_max_psn);
	rte_tel_data_add_dict_u64(d, "rx_pending", r->rx_pending);
}

int
mrcd_tel_cmd_qp(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct mrcd_qp_query *q;
	unsigned int host;
	struct mrc_qp *qp;
	const char *role;

	RTE_SET_USED(cmd);
	if (resolve_qpn(params, &host, &qp, &role) != 0)
		return -1;
	q = mrcd_query_qp(mrcd_tel_daemon, host, qp);
	if (q == NULL)
		return -1;
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "qpn", mrc_qp_qpn(qp));
	rte_tel_data_add_dict_u64(d, "host", host);
	rte_tel_data_add_dict_string(d, "role", role);
	rte_tel_data_add_dict_string(d, "state", mrc_qp_state_name(q->state));
	rte_tel_data_add_dict_string(d, "error", mrc_qp_error_name(q->error));
	rte_tel_data_add_dict_u64(d, "mem_bytes", q->mem_bytes);
	for (unsigned int i = 0; i < mrc_qp_counters_count; i++)
		rte_tel_data_add_dict_u64(
			d, mrc_qp_counters_desc[i].name, mrc_qp_counters_get(&q->counters, i));
	if (q->has_rel)
		add_rel(d, &q->rel, mrcd_tel_daemon->hz);
	{
		/* Its EVs by state (denied ones: the node controller's, doc/control.md). */
		uint64_t by[MRC_EV_N_STATES] = {0};
		char name[32];

		for (unsigned int i = 0; i < q->n_ev; i++)
			if (q->ev[i].state < MRC_EV_N_STATES)
				by[q->ev[i].state]++;
		for (unsigned int st = 0; st < MRC_EV_N_STATES; st++) {
			snprintf(name, sizeof(name), "evs_%s", mrc_ev_state_name(st));
			for (char *c = name; *c != '\0'; c++)
				*c = (char)(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c);
			rte_tel_data_add_dict_u64(d, name, by[st]);
		}
	}
	mrcd_query_release();
	return 0;
}

/*
 * One QP's EVs: counts per plane for each state (active and backup slots
 * together), and the EVs that are out of rotation, by value, so an operator
 * can match them against switch counters. The list is capped so the reply
 * stays under 16 KB; "retired_listed" < "retired" says it was cut.
 */
#define EVS_MAX_LISTED 200

int
mrcd_tel_cmd_evs(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct mrcd_qp_query *q;
	const unsigned int n_planes = mrcd_tel_daemon->cfg.daemon.planes;
	uint64_t per[MRC_EV_N_STATES][MRC_SHARD_MAX_PLANES];
	unsigned int host, retired = 0, listed = 0;
	struct mrc_qp *qp;
	const char *role;
	char buf[48];

	RTE_SET_USED(cmd);
	if (resolve_qpn(params, &host, &qp, &role) != 0)
		return -1;
	q = mrcd_query_qp(mrcd_tel_daemon, host, qp);
	if (q == NULL)
		return -1;
	memset(per, 0, sizeof(per));
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "qpn", mrc_qp_qpn(qp));
	rte_tel_data_add_dict_u64(d, "slots", q->n_ev);

	struct rte_tel_data *bad = rte_tel_data_alloc();

	if (bad != NULL)
		rte_tel_data_start_array(bad, RTE_TEL_STRING_VAL);
	for (unsigned int i = 0; i < q->n_ev; i++) {
		const struct mrcd_query_ev *e = &q->ev[i];

		if (e->plane < MRC_SHARD_MAX_PLANES && e->state < MRC_EV_N_STATES)
			per[e->state][e->plane]++;
		if (e->state != MRC_EV_ASSUMED_BAD && e->state != MRC_EV_DENIED)
			continue;
		retired++;
		if (bad != NULL && listed < EVS_MAX_LISTED) {
			snprintf(buf, sizeof(buf), "0x%08x plane %u %s%s", e->ev, e->plane,
				mrc_ev_state_name(e->state), e->active ? "" : " (backup)");
			rte_tel_data_add_array_string(bad, buf);
			listed++;
		}
	}
	for (unsigned int st = 0; st < MRC_EV_N_STATES; st++) {
		struct rte_tel_data *a = rte_tel_data_alloc();

		if (a == NULL)
			continue;
		rte_tel_data_start_array(a, RTE_TEL_U64_VAL);
		for (unsigned int p = 0; p < n_planes; p++)
			rte_tel_data_add_array_u64(a, per[st][p]);
		snprintf(buf, sizeof(buf), "per_plane_%s", mrc_ev_state_name(st));
		for (char *c = buf; *c; c++)
			*c = (char)tolower((unsigned char)*c);
		rte_tel_data_add_dict_container(d, buf, a, 0);
	}
	rte_tel_data_add_dict_u64(d, "retired", retired);
	rte_tel_data_add_dict_u64(d, "retired_listed", listed);
	if (bad != NULL)
		rte_tel_data_add_dict_container(d, "retired_evs", bad, 0);
	mrcd_query_release();
	return 0;
}

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
	struct rte_tel_data *a[10];
	static const char *const names[10] = {"port_id", "name", "link_up", "tx_pkts", "tx_bytes",
		"rx_pkts", "rx_bytes", "rx_queues", "steering", "steering_why"};

	for (unsigned int i = 0; i < RTE_DIM(a); i++) {
		a[i] = rte_tel_data_alloc();
		if (a[i] == NULL) {
			while (i-- > 0)
				rte_tel_data_free(a[i]);
			return -1;
		}
		rte_tel_data_start_array(
			a[i], i == 1 || i >= 8 ? RTE_TEL_STRING_VAL : RTE_TEL_U64_VAL);
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
	}
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "host", h);
	rte_tel_data_add_dict_u64(d, "workers_per_host", m->host[h].n_shards);
	/* planes set down by the node controller (bit p): link_up reads 0 for them */
	rte_tel_data_add_dict_u64(
		d, "admin_down", __atomic_load_n(&m->host[h].admin_down, __ATOMIC_ACQUIRE));
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
 * `in_use` before the closer looks. Written by the telemetry threads
 * (in_use) and the main lcore (closed).
 */
static int in_use, closed;

/* Commands other files add through mrcd_telemetry_add, before the run starts. */
static struct {
	const char *cmd;
	telemetry_cb fn;
} extra[4];
static unsigned int n_extra;

static int
guarded(const char *cmd, const char *params, struct rte_tel_data *d)
{
	int rc = -1;

	__atomic_add_fetch(&in_use, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&closed, __ATOMIC_SEQ_CST)) {
		rc = mrcd_tel_error(d, "mrcd is stopping: %s is no longer answered", cmd);
	} else {
		for (size_t i = 0; i < RTE_DIM(cmds); i++)
			if (strcmp(cmds[i].cmd, cmd) == 0) {
				rc = cmds[i].fn(cmd, params, d);
				break;
			}
		for (unsigned int i = 0; i < n_extra; i++)
			if (strcmp(extra[i].cmd, cmd) == 0) {
				rc = extra[i].fn(cmd, params, d);
				break;
			}
	}
	__atomic_sub_fetch(&in_use, 1, __ATOMIC_SEQ_CST);
	return rc;
}

void
mrcd_telemetry_close(void)
{
	__atomic_store_n(&closed, 1, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&in_use, __ATOMIC_SEQ_CST) != 0)
		rte_delay_us_sleep(100);
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

	mrcd_tel_daemon = d;
	mrcd_tel_start_tsc = rte_rdtsc();
	if (mrcd_telemetry_nd_register(d) != 0)
		return -EINVAL;
	for (size_t i = 0; i < RTE_DIM(cmds); i++) {
		const int rc = rte_telemetry_register_cmd(cmds[i].cmd, guarded, cmds[i].help);

		if (rc != 0)
			return rc;
	}
	return 0;
}
