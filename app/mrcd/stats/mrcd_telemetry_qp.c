/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: the stats thread, for DPDK's telemetry threads (mrcd_telemetry_priv.h).
 *
 * /mrc/qps[,<i>], /mrc/qp,<qpn> and /mrc/evs,<qpn>: the QPs. One QP's
 * state is the copy its owning worker makes on request (mrcd_query_ask.c),
 * never its live structures; owns nothing.
 */

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_telemetry.h>

#include "mrc_time.h"
#include "mrcd_daemon.h"
#include "mrcd_recover.h"
#include "mrcd_stats.h"
#include "mrcd_telemetry_priv.h"

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

	/* the flows', their spares', and the pairs reloads add across processes */
	const uint32_t end = m->n_added_pairs > 0
				     ? m->added_qpn + 2 * m->n_added_pairs
				     : MRCD_QPN_BASE + 2 * (m->n_cluster_flows + spares);

	if (mrcd_tel_parse_index(params, end, &qpn) != 0 || qpn < MRCD_QPN_BASE)
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
