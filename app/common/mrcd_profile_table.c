/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * The daemon's EV and CC profiles (mrcd_profile_table.h): the defaults from
 * the configuration, what a profile does to a QP's attributes, and the
 * controller's requests on the table. Runs on the control socket's thread
 * and on the threads that make QPs, never on a worker.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>

#include "mrc_cc.h"
#include "mrc_ev.h"
#include "mrc_time.h"
#include "mrcd_profile_table.h"

void
mrcd_profile_from_config(
	const struct mrcd_config *cfg, unsigned int kind, struct mrcd_qp_profile *p)
{
	const struct mrcd_cfg_transport *t = &cfg->transport;
	const struct mrcd_cfg_cc *c = &cfg->cc;

	memset(p, 0, sizeof(*p));
	p->kind = (uint8_t)kind;
	p->id = MRCD_PROFILE_DEFAULT;
	p->state = MRCD_PROFILE_ONLINE;
	if (kind == MRCD_PROFILE_EV) {
		p->v[MRCD_PF_EV_ACTIVE] = t->ev_active;
		p->v[MRCD_PF_EV_BACKUP] = t->ev_backup;
		p->v[MRCD_PF_EV_MIN_ACTIVE] = t->ev_min_active;
		p->v[MRCD_PF_SKIP_ROTATIONS] = t->skip_rotations;
		p->v[MRCD_PF_PROBE_GOOD] = t->probe_good;
		p->v[MRCD_PF_PROBE_INTERVAL_US] = t->probe_interval_us;
		return;
	}
	snprintf(p->algorithm, sizeof(p->algorithm), "%s", c->algorithm);
	p->v[MRCD_PF_FIXED_CWND_KB] = c->fixed_cwnd_kb;
	p->v[MRCD_PF_MAX_CWND_KB] = c->max_cwnd_kb;
	p->v[MRCD_PF_TARGET_QDELAY_US] = c->target_qdelay_us;
	p->v[MRCD_PF_ADJUST_PERIOD_US] = c->adjust_period_us;
	p->v[MRCD_PF_GAMMA_PM] = c->gamma_pm;
	p->v[MRCD_PF_MAX_MD_JUMP_PM] = c->max_md_jump_pm;
	p->v[MRCD_PF_FI_SCALE_PM] = c->fi_scale_pm;
	p->v[MRCD_PF_ECN_WIDESPREAD_PCT] = c->ecn_widespread_pct;
}

/* The same conversions as mrcd_config_qp_attr's from [transport] and [cc]. */
void
mrcd_profile_apply(const struct mrcd_qp_profile *p, uint64_t tsc_hz, struct mrc_qp_attr *a)
{
	const uint32_t *v = p->v;

	if (p->kind == MRCD_PROFILE_EV) {
		a->ev.n_active = (uint16_t)v[MRCD_PF_EV_ACTIVE];
		a->ev.n_backup = (uint16_t)v[MRCD_PF_EV_BACKUP];
		a->ev.ev_min_active = v[MRCD_PF_EV_MIN_ACTIVE] != 0
					      ? (uint16_t)v[MRCD_PF_EV_MIN_ACTIVE]
					      : (uint16_t)RTE_MAX(v[MRCD_PF_EV_ACTIVE] / 4, 1u);
		a->ev.skip_rotations = (uint8_t)v[MRCD_PF_SKIP_ROTATIONS];
		a->ev.probe_good_needed = (uint8_t)v[MRCD_PF_PROBE_GOOD];
		a->ev.probe_interval_tsc =
			mrc_us_to_tsc_round_up(v[MRCD_PF_PROBE_INTERVAL_US], tsc_hz);
		return;
	}
	snprintf(a->cc_name, sizeof(a->cc_name), "%s", p->algorithm);
	a->cc.fixed_cwnd_bytes = v[MRCD_PF_FIXED_CWND_KB] * 1000u;
	a->cc.max_cwnd_bytes = v[MRCD_PF_MAX_CWND_KB] * 1000u;
	a->cc.target_qdelay_ns = v[MRCD_PF_TARGET_QDELAY_US] * 1000u;
	a->cc.adjust_period_ns = v[MRCD_PF_ADJUST_PERIOD_US] * 1000u;
	a->cc.gamma_pm = (uint16_t)v[MRCD_PF_GAMMA_PM];
	a->cc.max_md_jump_pm = (uint16_t)v[MRCD_PF_MAX_MD_JUMP_PM];
	a->cc.fi_scale_pm = (uint16_t)v[MRCD_PF_FI_SCALE_PM];
	a->cc.ecn_widespread_pct = (uint8_t)v[MRCD_PF_ECN_WIDESPREAD_PCT];
}

int
mrcd_profile_check(
	const struct mrcd_config *cfg, const struct mrcd_qp_profile *p, char *err, size_t errlen)
{
	const unsigned int planes = cfg->daemon.planes;
	const uint32_t *v = p->v;
	const char *why = NULL;
	struct mrc_qp_attr a;

	if (mrcd_config_qp_attr(cfg, 1000000000ull, &a) != 0) {
		snprintf(err, errlen, "the configuration does not convert to QP attributes");
		return -EINVAL;
	}
	mrcd_profile_apply(p, 1000000000ull, &a);
	if (p->kind == MRCD_PROFILE_EV) {
		if (v[MRCD_PF_EV_ACTIVE] % planes != 0 || v[MRCD_PF_EV_BACKUP] % planes != 0) {
			snprintf(err, errlen,
				"ev_active=%" PRIu32 " and ev_backup=%" PRIu32
				" must be multiples of the planes (%u)",
				v[MRCD_PF_EV_ACTIVE], v[MRCD_PF_EV_BACKUP], planes);
			return -EINVAL;
		}
		if (v[MRCD_PF_EV_ACTIVE] + v[MRCD_PF_EV_BACKUP] > MRC_EV_MAX_EVS) {
			snprintf(err, errlen, "ev_active + ev_backup = %" PRIu32 ": at most %d",
				v[MRCD_PF_EV_ACTIVE] + v[MRCD_PF_EV_BACKUP], MRC_EV_MAX_EVS);
			return -EINVAL;
		}
		if (v[MRCD_PF_EV_MIN_ACTIVE] > v[MRCD_PF_EV_ACTIVE]) {
			snprintf(err, errlen,
				"ev_min_active=%" PRIu32 " is more than ev_active=%" PRIu32
				" (0: ev_active / 4)",
				v[MRCD_PF_EV_MIN_ACTIVE], v[MRCD_PF_EV_ACTIVE]);
			return -EINVAL;
		}
		if (mrc_ev_cfg_check(&a.ev, &why) != 0) {
			snprintf(err, errlen, "the EV pool refuses it: %s", why);
			return -EINVAL;
		}
		return 0;
	}
	if (mrc_cc_find(p->algorithm) == NULL) {
		snprintf(err, errlen, "algorithm '%s' is not one the CC registry knows (%s, %s)",
			p->algorithm, MRC_CC_NSCC, MRC_CC_FIXED);
		return -EINVAL;
	}
	if (mrc_cc_params_check(&a.cc, &why) != 0) {
		snprintf(err, errlen, "the CC refuses it: %s", why);
		return -EINVAL;
	}
	return 0;
}

void
mrcd_profile_table_init(struct mrcd_profile_table *t, const struct mrcd_config *cfg)
{
	memset(t, 0, sizeof(*t));
	pthread_mutex_init(&t->lock, NULL);
	t->cfg = cfg;
	for (unsigned int k = 0; k < MRCD_PROFILE_KINDS; k++)
		for (unsigned int i = 0; i < MRCD_PROFILE_MAX; i++) {
			t->p[k][i].kind = (uint8_t)k;
			t->p[k][i].id = (uint8_t)i;
		}
	mrcd_profile_from_config(cfg, MRCD_PROFILE_EV, &t->p[MRCD_PROFILE_EV][0]);
	mrcd_profile_from_config(cfg, MRCD_PROFILE_CC, &t->p[MRCD_PROFILE_CC][0]);
	/* [ev_profile.<n>], [cc_profile.<n>]: checked with the configuration, online now */
	for (unsigned int k = 0; k < MRCD_PROFILE_KINDS; k++)
		for (unsigned int i = 1; i < MRCD_PROFILE_MAX; i++) {
			const struct mrcd_cfg_profile *c = &cfg->profile[k][i];
			struct mrcd_qp_profile *p = &t->p[k][i];

			if (!c->defined)
				continue;
			p->state = MRCD_PROFILE_ONLINE;
			if (k == MRCD_PROFILE_CC)
				memcpy(p->algorithm, c->algorithm, sizeof(p->algorithm));
			for (unsigned int f = 0; f < MRCD_PF_COUNT; f++)
				if (mrcd_profile_fields[f].kind == k)
					p->v[f] = c->v[f];
		}
}

void
mrcd_profile_table_fini(struct mrcd_profile_table *t)
{
	pthread_mutex_destroy(&t->lock);
}

int
mrcd_profile_table_hold(struct mrcd_profile_table *t, unsigned int ev, unsigned int cc,
	struct mrcd_qp_profile *ev_out, struct mrcd_qp_profile *cc_out, char *err, size_t errlen)
{
	const unsigned int id[MRCD_PROFILE_KINDS] = {ev, cc};
	int rc = 0;

	pthread_mutex_lock(&t->lock);
	for (unsigned int k = 0; k < MRCD_PROFILE_KINDS && rc == 0; k++)
		if (id[k] >= MRCD_PROFILE_MAX || t->p[k][id[k]].state != MRCD_PROFILE_ONLINE) {
			snprintf(err, errlen, "%s profile %u is %s", mrcd_profile_kind_name(k),
				id[k],
				id[k] >= MRCD_PROFILE_MAX		    ? "not an id (0..15)"
				: t->p[k][id[k]].state == MRCD_PROFILE_NONE ? "not defined"
									    : "not online");
			rc = -EINVAL;
		}
	if (rc == 0) {
		*ev_out = t->p[MRCD_PROFILE_EV][ev];
		*cc_out = t->p[MRCD_PROFILE_CC][cc];
		t->qps[MRCD_PROFILE_EV][ev]++;
		t->qps[MRCD_PROFILE_CC][cc]++;
	}
	pthread_mutex_unlock(&t->lock);
	return rc;
}

void
mrcd_profile_table_release(struct mrcd_profile_table *t, unsigned int ev, unsigned int cc)
{
	pthread_mutex_lock(&t->lock);
	if (ev < MRCD_PROFILE_MAX && t->qps[MRCD_PROFILE_EV][ev] > 0)
		t->qps[MRCD_PROFILE_EV][ev]--;
	if (cc < MRCD_PROFILE_MAX && t->qps[MRCD_PROFILE_CC][cc] > 0)
		t->qps[MRCD_PROFILE_CC][cc]--;
	pthread_mutex_unlock(&t->lock);
}

int
mrcd_profile_table_check_online(
	struct mrcd_profile_table *t, unsigned int ev, unsigned int cc, char *err, size_t errlen)
{
	struct mrcd_qp_profile e, c;
	const int rc = mrcd_profile_table_hold(t, ev, cc, &e, &c, err, errlen);

	if (rc == 0)
		mrcd_profile_table_release(t, ev, cc);
	return rc;
}

int
mrcd_profile_qp_attr(struct mrcd_profile_table *t, unsigned int ev, unsigned int cc,
	uint64_t tsc_hz, struct mrc_qp_attr *a, char *err, size_t errlen)
{
	struct mrcd_qp_profile e, c;
	int rc;

	if (mrcd_config_qp_attr(t->cfg, tsc_hz, a) != 0) {
		snprintf(err, errlen, "[transport] does not convert to QP attributes");
		return -EINVAL;
	}
	rc = mrcd_profile_table_hold(t, ev, cc, &e, &c, err, errlen);
	if (rc != 0)
		return rc;
	mrcd_profile_apply(&e, tsc_hz, a);
	mrcd_profile_apply(&c, tsc_hz, a);
	return 0;
}

/* Every profile, short: kind, id, state, algorithm, QPs. */
static void
list(const struct mrcd_profile_table *t, char *out, size_t outlen)
{
	size_t o = 0;

	o += (size_t)snprintf(out, outlen, "OK {\"profiles\":[");
	for (unsigned int k = 0; k < MRCD_PROFILE_KINDS; k++)
		for (unsigned int i = 0; i < MRCD_PROFILE_MAX && o < outlen; i++) {
			const struct mrcd_qp_profile *p = &t->p[k][i];

			if (p->state == MRCD_PROFILE_NONE)
				continue;
			o += (size_t)snprintf(out + o, outlen - o,
				"%s{\"kind\":\"%s\",\"id\":%u,\"state\":\"%s\"%s%s%s,\"qps\":"
				"%" PRIu32 "}",
				out[o - 1] == '[' ? "" : ",", mrcd_profile_kind_name(k), i,
				mrcd_profile_state_name(p->state),
				k == MRCD_PROFILE_CC ? ",\"algorithm\":\"" : "",
				k == MRCD_PROFILE_CC ? p->algorithm : "",
				k == MRCD_PROFILE_CC ? "\"" : "", t->qps[k][i]);
		}
	if (o < outlen)
		snprintf(out + o, outlen - o, "]}\n");
}

static void
show(const struct mrcd_profile_table *t, const struct mrcd_qp_profile *p, char *out, size_t outlen)
{
	const int w = snprintf(out, outlen, "OK ");

	mrcd_profile_json(p, t->qps[p->kind][p->id], out + w, outlen - (size_t)w - 1);
	strncat(out, "\n", outlen - strlen(out) - 1);
}

void
mrcd_profile_table_do(
	struct mrcd_profile_table *t, const struct mrcd_ctl_req *rq, char *out, size_t outlen)
{
	char err[256];
	struct mrcd_qp_profile *p, q;
	const char *kn = mrcd_profile_kind_name(rq->kind);
	int rc;

	pthread_mutex_lock(&t->lock);
	if (rq->cmd == MRCD_CTL_PROFILE_LIST) {
		list(t, out, outlen);
		goto done;
	}
	if (rq->kind >= MRCD_PROFILE_KINDS || rq->id >= MRCD_PROFILE_MAX) {
		snprintf(out, outlen, "ERR no-such-profile %s profile %u\n", kn, rq->id);
		goto done;
	}
	p = &t->p[rq->kind][rq->id];
	if (rq->cmd == MRCD_CTL_PROFILE_ADD) {
		if (p->state != MRCD_PROFILE_NONE) {
			snprintf(out, outlen, "ERR exists %s profile %u is already defined (%s)\n",
				kn, rq->id, mrcd_profile_state_name(p->state));
			goto done;
		}
		/* A new profile starts as a copy of the default, in INIT. */
		q = t->p[rq->kind][MRCD_PROFILE_DEFAULT];
		q.id = rq->id;
		q.state = MRCD_PROFILE_INIT;
		if (mrcd_profile_edit(&q, &rq->change, err, sizeof(err)) != 0) {
			snprintf(out, outlen, "ERR bad-value %s\n", err);
			goto done;
		}
		*p = q;
		show(t, p, out, outlen);
		goto done;
	}
	if (p->state == MRCD_PROFILE_NONE) {
		snprintf(out, outlen, "ERR no-such-profile %s profile %u is not defined\n", kn,
			rq->id);
		goto done;
	}
	switch (rq->cmd) {
	case MRCD_CTL_PROFILE_SHOW:
		show(t, p, out, outlen);
		break;
	case MRCD_CTL_PROFILE_SET:
		q = *p;
		rc = mrcd_profile_edit(&q, &rq->change, err, sizeof(err));
		/* Past INIT a profile stays whole: every change is checked as entering OFFLINE. */
		if (rc == 0 && q.state != MRCD_PROFILE_INIT)
			rc = mrcd_profile_check(t->cfg, &q, err, sizeof(err));
		if (rc != 0) {
			snprintf(out, outlen, "ERR bad-value %s\n", err);
			break;
		}
		*p = q;
		show(t, p, out, outlen);
		break;
	case MRCD_CTL_PROFILE_STATE:
		rc = mrcd_profile_may_move(
			p, rq->pstate, t->qps[rq->kind][rq->id], err, sizeof(err));
		if (rc == 0 && p->state == MRCD_PROFILE_INIT && rq->pstate == MRCD_PROFILE_OFFLINE)
			rc = mrcd_profile_check(t->cfg, p, err, sizeof(err)) == 0 ? 0 : -EDOM;
		if (rc != 0) {
			snprintf(out, outlen, "ERR %s %s\n",
				rc == -EBUSY  ? "in-use"
				: rc == -EDOM ? "bad-value"
					      : "bad-state",
				err);
			break;
		}
		p->state = rq->pstate;
		show(t, p, out, outlen);
		break;
	case MRCD_CTL_PROFILE_DEL:
		rc = mrcd_profile_may_remove(p, t->qps[rq->kind][rq->id], err, sizeof(err));
		if (rc != 0) {
			snprintf(out, outlen, "ERR %s %s\n", rc == -EBUSY ? "in-use" : "bad-state",
				err);
			break;
		}
		memset(p, 0, sizeof(*p));
		p->kind = rq->kind;
		p->id = rq->id;
		snprintf(out, outlen, "OK {\"kind\":\"%s\",\"id\":%u,\"removed\":true}\n", kn,
			rq->id);
		break;
	default:
		snprintf(out, outlen, "ERR internal not a profile request\n");
		break;
	}
done:
	pthread_mutex_unlock(&t->lock);
}
