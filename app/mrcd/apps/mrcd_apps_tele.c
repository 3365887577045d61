/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: the stats thread, for DPDK's telemetry threads. /mrc/apps: the application sessions, each
 * with its QPs, CQs, regions and counters. Sessions are read under the lock
 * the control thread changes them under; the QPs' counters are their
 * workers', read as they are (each a word the worker alone writes).
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_telemetry.h>

#include "mrcd_apps.h"
#include "mrcd_apps_priv.h"
#include "mrcd_stats.h"

static struct mrcd_daemon *apps_daemon;

static void
qp_dict(struct rte_tel_data *t, const struct mrcd_app_qp *q)
{
	static const char *const states[] = {"RESET", "INIT", "RTR", "RTS", "?", "?", "ERROR"};
	const uint32_t st = __atomic_load_n(&q->st->state, __ATOMIC_RELAXED);

	rte_tel_data_start_dict(t);
	rte_tel_data_add_dict_u64(t, "qpn", q->qpn);
	rte_tel_data_add_dict_string(t, "state", st < RTE_DIM(states) ? states[st] : "?");
	rte_tel_data_add_dict_u64(t, "worker", q->worker);
	if (q->profiles_held) { /* from RESET -> INIT on */
		rte_tel_data_add_dict_u64(t, "ev_profile", q->ev_profile);
		rte_tel_data_add_dict_u64(t, "cc_profile", q->cc_profile);
	}
	rte_tel_data_add_dict_u64(t, "posted", __atomic_load_n(&q->cnt.posted, __ATOMIC_RELAXED));
	rte_tel_data_add_dict_u64(
		t, "sends_done", __atomic_load_n(&q->cnt.sends_done, __ATOMIC_RELAXED));
	rte_tel_data_add_dict_u64(
		t, "recvs_done", __atomic_load_n(&q->cnt.recvs_done, __ATOMIC_RELAXED));
	rte_tel_data_add_dict_u64(t, "flushed", __atomic_load_n(&q->cnt.flushed, __ATOMIC_RELAXED));
	rte_tel_data_add_dict_u64(
		t, "cq_overruns", __atomic_load_n(&q->cnt.cq_overruns, __ATOMIC_RELAXED));
	rte_tel_data_add_dict_u64(t, "rnr", __atomic_load_n(&q->cnt.rnr, __ATOMIC_RELAXED));
	for (unsigned int r = 0; r < MRC_CHAN_REF_END; r++) {
		char name[64];

		snprintf(name, sizeof(name), "refused_%s", mrc_chan_refusal_name(r));
		rte_tel_data_add_dict_u64(
			t, name, __atomic_load_n(&q->cnt.refused[r], __ATOMIC_RELAXED));
	}
}

static int cmd_app(const char *cmd, const char *params, struct rte_tel_data *d);

static int
cmd_apps(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct mrcd_apps *a = apps_daemon != NULL ? apps_daemon->apps : NULL;
	unsigned int n = 0;

	if (params != NULL && params[0] != '\0')
		return cmd_app(cmd, params, d);
	rte_tel_data_start_dict(d);
	if (a == NULL) {
		rte_tel_data_add_dict_string(d, "socket", "none");
		return 0;
	}
	rte_tel_data_add_dict_string(d, "socket", a->path);
	rte_tel_data_add_dict_u64(d, "channel_version", MRC_CHAN_VERSION);
	pthread_mutex_lock(&a->lock);
	rte_tel_data_add_dict_u64(d, "sessions_total", a->sessions_total);
	rte_tel_data_add_dict_u64(d, "sessions_refused", a->sessions_refused);
	rte_tel_data_add_dict_u64(d, "sessions_no_hello", a->sessions_no_hello);
	rte_tel_data_add_dict_u64(d, "regions_dma_refused", a->regions_dma_refused);
	/* the control thread's counts, written outside the lock: whole words */
	rte_tel_data_add_dict_u64(
		d, "channel_wakes", __atomic_load_n(&a->wakes_sent, __ATOMIC_RELAXED));
	rte_tel_data_add_dict_u64(
		d, "channel_wakes_pending", __atomic_load_n(&a->wakes_pending, __ATOMIC_RELAXED));
	rte_tel_data_add_dict_u64(
		d, "channel_wakes_failed", __atomic_load_n(&a->wakes_failed, __ATOMIC_RELAXED));
	for (unsigned int k = 0; k < RTE_DIM(a->sess); k++) {
		const struct mrcd_app_session *s = &a->sess[k];
		struct rte_tel_data *t;
		unsigned int n_qp = 0, n_cq = 0, n_mr = 0, n_dying = 0;
		char name[32];

		if (!s->used)
			continue;
		t = rte_tel_data_alloc();
		if (t == NULL)
			break;
		rte_tel_data_start_dict(t);
		rte_tel_data_add_dict_u64(t, "session", s->id);
		rte_tel_data_add_dict_u64(t, "pid", (uint64_t)s->pid);
		rte_tel_data_add_dict_u64(t, "uid", (uint64_t)s->uid);
		rte_tel_data_add_dict_u64(t, "host", apps_daemon->cfg.daemon.first_host + s->host);
		rte_tel_data_add_dict_string(t, "state", s->fd < 0 ? "releasing" : "attached");
		rte_tel_data_add_dict_u64(t, "requests", s->requests);
		for (unsigned int r = 0; r < MRC_CHAN_REF_END; r++)
			if (s->refused[r] != 0) {
				char rn[64];

				snprintf(rn, sizeof(rn), "refused_%s", mrc_chan_refusal_name(r));
				rte_tel_data_add_dict_u64(t, rn, s->refused[r]);
			}
		for (unsigned int j = 0; j < RTE_DIM(s->cq); j++)
			n_cq += s->cq[j].id != 0;
		for (unsigned int j = 0; j < RTE_DIM(s->mr); j++) {
			n_mr += s->mr[j].key != 0 && !s->mr[j].dying;
			n_dying += s->mr[j].dying && s->mr[j].map != NULL;
		}
		rte_tel_data_add_dict_u64(t, "cqs", n_cq);
		rte_tel_data_add_dict_u64(t, "regions", n_mr);
		rte_tel_data_add_dict_u64(t, "regions_releasing", n_dying);
		rte_tel_data_add_dict_u64(t, "region_bytes", s->mr_bytes);
		for (unsigned int j = 0; j < RTE_DIM(s->qp); j++)
			n_qp += s->qp[j].qpn != 0;
		rte_tel_data_add_dict_u64(t, "n_qps", n_qp);
		snprintf(name, sizeof(name), "session_%u", s->id);
		rte_tel_data_add_dict_container(d, name, t, 0);
		n++;
	}
	/* Which worker owns each application QP (its QPN's shard of its host). */
	for (unsigned int w = 0; w < apps_daemon->n_workers && w < MRCD_MAX_WORKERS; w++) {
		unsigned int owned = 0;
		char name[32];

		for (unsigned int k = 0; k < RTE_DIM(a->sess); k++)
			for (unsigned int j = 0; a->sess[k].used && j < RTE_DIM(a->sess[k].qp); j++)
				owned += a->sess[k].qp[j].qpn != 0 && a->sess[k].qp[j].worker == w;
		snprintf(name, sizeof(name), "worker_%u_qps", w);
		rte_tel_data_add_dict_u64(d, name, owned);
	}
	pthread_mutex_unlock(&a->lock);
	rte_tel_data_add_dict_u64(d, "sessions", n);
	return 0;
}

/* What the engine's QP says of itself, asked of its worker (mrcd_query_qp). */
static void
engine_state(struct rte_tel_data *t, const struct mrcd_app_qp *q)
{
	const struct mrcd_qp_query *a;

	if (q->qp == NULL || !q->added)
		return;
	a = mrcd_query_qp(apps_daemon, q->host, q->qp);
	if (a == NULL)
		return;
	rte_tel_data_add_dict_string(t, "engine_state", mrc_qp_state_name(a->state));
	rte_tel_data_add_dict_string(t, "engine_error", mrc_qp_error_name(a->error));
	rte_tel_data_add_dict_u64(t, "tx_data_pkts", a->counters.tx_data_pkts);
	rte_tel_data_add_dict_u64(t, "tx_retx_pkts", a->counters.tx_retx_pkts);
	rte_tel_data_add_dict_u64(t, "rx_data_pkts", a->counters.rx_data_pkts);
	rte_tel_data_add_dict_u64(t, "rx_bad_rkey", a->counters.rx_bad_rkey);
	rte_tel_data_add_dict_u64(t, "msgs_done", a->counters.msgs_done);
	rte_tel_data_add_dict_u64(t, "imm_delivered", a->counters.imm_delivered);
	if (a->has_rel) /* the window its CC profile gives */
		rte_tel_data_add_dict_u64(t, "cwnd_bytes", a->rel.cwnd_bytes);
	mrcd_query_release();
}

static int
cmd_app(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct mrcd_apps *a = apps_daemon != NULL ? apps_daemon->apps : NULL;
	const unsigned long id = params != NULL ? strtoul(params, NULL, 0) : 0;

	RTE_SET_USED(cmd);
	if (a == NULL || id == 0)
		return -EINVAL;
	rte_tel_data_start_dict(d);
	pthread_mutex_lock(&a->lock);
	for (unsigned int k = 0; k < RTE_DIM(a->sess); k++) {
		const struct mrcd_app_session *s = &a->sess[k];

		if (!s->used || s->id != id)
			continue;
		rte_tel_data_add_dict_u64(d, "session", s->id);
		rte_tel_data_add_dict_u64(d, "pid", (uint64_t)s->pid);
		rte_tel_data_add_dict_u64(d, "uid", (uint64_t)s->uid);
		for (unsigned int j = 0; j < RTE_DIM(s->qp); j++) {
			struct rte_tel_data *qd;
			char name[32];

			if (s->qp[j].qpn == 0 || (qd = rte_tel_data_alloc()) == NULL)
				continue;
			qp_dict(qd, &s->qp[j]);
			engine_state(qd, &s->qp[j]);
			snprintf(name, sizeof(name), "qp_0x%x", s->qp[j].qpn);
			if (rte_tel_data_add_dict_container(d, name, qd, 0) != 0)
				rte_tel_data_free(qd);
		}
		for (unsigned int j = 0; j < RTE_DIM(s->mr); j++) {
			char name[32];

			if (s->mr[j].key == 0 || s->mr[j].dying)
				continue; /* deregistered: its pages wait for packets in flight */
			snprintf(name, sizeof(name), "region_0x%x_bytes", s->mr[j].key);
			rte_tel_data_add_dict_u64(d, name, s->mr[j].len);
			/* what a NIC is told the region's first byte is, and which map it */
			snprintf(name, sizeof(name), "region_0x%x_iova", s->mr[j].key);
			rte_tel_data_add_dict_u64(d, name,
				s->mr[j].dma.iova != 0 ? s->mr[j].dma.iova + (s->mr[j].addr & 4095)
						       : 0);
			snprintf(name, sizeof(name), "region_0x%x_dma_devices", s->mr[j].key);
			rte_tel_data_add_dict_u64(d, name, s->mr[j].dma.n_mapped);
		}
	}
	pthread_mutex_unlock(&a->lock);
	return 0;
}

int
mrcd_apps_telemetry_register(struct mrcd_daemon *d)
{
	apps_daemon = d;
	return mrcd_telemetry_add("/mrc/apps", cmd_apps,
		"Application sessions; with a session number, its QPs and regions");
}
