/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: DPDK's telemetry thread. /mrc/apps: the application sessions, each
 * with its QPs, CQs, regions and counters. Sessions are read under the lock
 * the control thread changes them under; the QPs' counters are their
 * workers', read as they are (each a word the worker alone writes).
 */

#include <string.h>

#include <rte_telemetry.h>

#include "mrcd_apps.h"
#include "mrcd_apps_priv.h"

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

static int
cmd_apps(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct mrcd_apps *a = apps_daemon != NULL ? apps_daemon->apps : NULL;
	unsigned int n = 0;

	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
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
	for (unsigned int k = 0; k < RTE_DIM(a->sess); k++) {
		const struct mrcd_app_session *s = &a->sess[k];
		struct rte_tel_data *t, *qps;
		unsigned int n_qp = 0, n_cq = 0, n_mr = 0;
		char name[32];

		if (!s->used)
			continue;
		t = rte_tel_data_alloc();
		qps = rte_tel_data_alloc();
		if (t == NULL || qps == NULL) {
			rte_tel_data_free(t);
			rte_tel_data_free(qps);
			break;
		}
		rte_tel_data_start_dict(t);
		rte_tel_data_add_dict_u64(t, "session", s->id);
		rte_tel_data_add_dict_u64(t, "pid", (uint64_t)s->pid);
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
		for (unsigned int j = 0; j < RTE_DIM(s->mr); j++)
			n_mr += s->mr[j].key != 0;
		rte_tel_data_add_dict_u64(t, "cqs", n_cq);
		rte_tel_data_add_dict_u64(t, "regions", n_mr);
		rte_tel_data_add_dict_u64(t, "region_bytes", s->mr_bytes);
		rte_tel_data_start_array(qps, RTE_TEL_CONTAINER);
		for (unsigned int j = 0; j < RTE_DIM(s->qp); j++) {
			struct rte_tel_data *qd;

			if (s->qp[j].qpn == 0 || (qd = rte_tel_data_alloc()) == NULL)
				continue;
			qp_dict(qd, &s->qp[j]);
			if (rte_tel_data_add_array_container(qps, qd, 0) != 0)
				rte_tel_data_free(qd);
			n_qp++;
		}
		rte_tel_data_add_dict_u64(t, "n_qps", n_qp);
		rte_tel_data_add_dict_container(t, "qps", qps, 0);
		snprintf(name, sizeof(name), "session_%u", s->id);
		rte_tel_data_add_dict_container(d, name, t, 0);
		n++;
	}
	pthread_mutex_unlock(&a->lock);
	rte_tel_data_add_dict_u64(d, "sessions", n);
	return 0;
}

int
mrcd_apps_telemetry_register(struct mrcd_daemon *d)
{
	apps_daemon = d;
	return rte_telemetry_register_cmd("/mrc/apps", cmd_apps,
		"Application sessions (lib_mrc): each with its host, QPs and their counters, CQs "
		"and regions. No parameters");
}
