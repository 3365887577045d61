/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: the control socket's thread (mrcd_ctl.c).
 *
 * What each command does (doc/control.md). A change goes to the owners of
 * the EVs it names as MRC_SHARD_EV_* requests on their shards' request
 * rings, and this thread waits for every answer (MRCD_CTL_WAIT_MS at
 * most). A deny of paths or planes asks every shard concerned first
 * (MRC_SHARD_EV_CHECK) and goes ahead only if none would leave a QP with
 * no EV, so a refused deny changes nothing anywhere. Commands come one at
 * a time (one thread), so nothing changes between the check and the deny
 * but the QPs the workers themselves add (a flow brought back after an
 * error), which get the table as they are added.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_ring_elem.h>

#include "mrc_ev.h"
#include "mrcd_control.h"
#include "mrcd_ctl.h"
#include "mrcd_log.h"
#include "mrcd_recover.h"

/*
 * Queue `op` on shard k of host h; false (and pending) if an earlier one is
 * still out. The selection is copied beside the request: one that times out
 * stays queued, and the next command's selection must not become its own.
 */
bool
mrcd_ctl_post(struct mrcd_ctl *ctl, unsigned int h, unsigned int k, enum mrc_shard_op op,
	const struct mrc_shard_ev_sel *sel, struct mrc_shard_ev_ref *list, uint32_t list_max)
{
	struct mrc_shard_req *r = &ctl->req[h][k];

	if (ctl->pending[h][k] && !mrc_shard_req_done(r))
		return false;
	memset(r, 0, sizeof(*r));
	r->op = op;
	if (sel != NULL) {
		ctl->req_sel[h][k] = *sel;
		r->sel = &ctl->req_sel[h][k];
	}
	r->list = list;
	r->list_max = list_max;
	if (mrc_shard_request(ctl->d->host[h].shard[k].rt, r) != 0)
		return false;
	ctl->pending[h][k] = true;
	return true;
}

static bool
post(struct mrcd_ctl *ctl, unsigned int h, unsigned int k, enum mrc_shard_op op,
	const struct mrc_shard_ev_sel *sel)
{
	return mrcd_ctl_post(ctl, h, k, op, sel, NULL, 0);
}

/* Wait until every posted request of the hosts in `hosts` is done; false on timeout. */
bool
mrcd_ctl_wait(struct mrcd_ctl *ctl, uint32_t hosts)
{
	const struct timespec nap = {.tv_nsec = 100 * 1000};
	/* A deadline in time: a nap lasts 100 us or what the scheduler makes it. */
	const uint64_t end_ns = mrcd_mono_ns() + (uint64_t)MRCD_CTL_WAIT_MS * 1000000u;

	for (;;) {
		bool all = true;

		for (unsigned int h = 0; h < ctl->d->n_hosts; h++)
			for (unsigned int k = 0; (hosts >> h & 1) && k < ctl->d->host[h].n_shards;
				k++)
				if (ctl->pending[h][k] && !mrc_shard_req_done(&ctl->req[h][k]))
					all = false;
		if (all) {
			for (unsigned int h = 0; h < ctl->d->n_hosts; h++)
				for (unsigned int k = 0; k < MRC_SHARD_MAX_SHARDS; k++)
					if (hosts >> h & 1)
						ctl->pending[h][k] = false;
			return true;
		}
		if (mrcd_mono_ns() >= end_ns)
			return false;
		nanosleep(&nap, NULL);
	}
}

/* Post op on every shard of the hosts in `hosts` and wait; 0, or an "ERR ..." in out. */
static int
round_trip(struct mrcd_ctl *ctl, uint32_t hosts, enum mrc_shard_op op,
	const struct mrc_shard_ev_sel *sel, char *out, size_t outlen)
{
	for (unsigned int h = 0; h < ctl->d->n_hosts; h++)
		for (unsigned int k = 0; (hosts >> h & 1) && k < ctl->d->host[h].n_shards; k++)
			if (!post(ctl, h, k, op, sel)) {
				snprintf(out, outlen,
					"ERR busy host %u shard %u has not answered an earlier "
					"request\n",
					h, k);
				return -EBUSY;
			}
	if (!mrcd_ctl_wait(ctl, hosts)) {
		snprintf(out, outlen,
			"ERR not-running the workers did not answer in %u ms (is mrcd stopping?)\n",
			MRCD_CTL_WAIT_MS);
		return -ETIMEDOUT;
	}
	return 0;
}

/* The table host h has now: published for telemetry after a change. */
static void
publish(struct mrcd_ctl *ctl, unsigned int h)
{
	struct mrcd_hostctx *hc = &ctl->d->host[h];
	struct mrc_shard_ev_sel t;

	/* The shards of a host hold the same table: it only changes through here. */
	mrc_shard_ev_denied(hc->shard[0].rt, &t);
	__atomic_store_n(&hc->denied_planes, t.planes, __ATOMIC_RELEASE);
	for (unsigned int p = 0; p < MRC_SHARD_MAX_PLANES; p++)
		__atomic_store_n(&hc->denied_t1[p], t.t1[p], __ATOMIC_RELEASE);
}

static const char *
what(const struct mrcd_ctl_req *rq, char *buf, size_t len)
{
	if (rq->has_qp)
		snprintf(buf, len, "\"qpn\":\"0x%" PRIx32 "\",\"ev\":\"0x%08" PRIx32 "\"", rq->qpn,
			rq->ev);
	else if (rq->has_t1)
		snprintf(buf, len, "\"plane\":%u,\"t1\":%u", rq->plane, rq->t1);
	else
		snprintf(buf, len, "\"plane\":%u", rq->plane);
	return buf;
}

/* deny or allow one EV of a QP on host rq->host. */
static void
one_ev(struct mrcd_ctl *ctl, const struct mrcd_ctl_req *rq, char *out, size_t outlen)
{
	const unsigned int h = (unsigned int)rq->host;
	const bool deny = rq->cmd == MRCD_CTL_DENY;
	struct mrcd_hostctx *hc = &ctl->d->host[h];
	struct mrc_shard_req *r;
	unsigned int k;

	for (k = 0; k < hc->n_shards; k++)
		if (mrc_shard_owns(hc->shard[k].rt, rq->qpn))
			break;
	if (k == hc->n_shards) {
		snprintf(out, outlen, "ERR no-such-qp QP 0x%" PRIx32 " is not one of host %u's\n",
			rq->qpn, h);
		return;
	}
	memset(&ctl->sel, 0, sizeof(ctl->sel));
	ctl->sel.one_ev = true;
	ctl->sel.qpn = rq->qpn;
	ctl->sel.ev = rq->ev;
	if (!post(ctl, h, k, deny ? MRC_SHARD_EV_DENY : MRC_SHARD_EV_ALLOW, &ctl->sel)) {
		snprintf(out, outlen,
			"ERR busy host %u shard %u has not answered an earlier request\n", h, k);
		return;
	}
	if (!mrcd_ctl_wait(ctl, 1u << h)) {
		snprintf(out, outlen, "ERR not-running the workers did not answer in %u ms\n",
			MRCD_CTL_WAIT_MS);
		return;
	}
	r = &ctl->req[h][k];
	switch (r->rc) {
	case 0:
		snprintf(out, outlen,
			"OK {\"host\":%u,\"qpn\":\"0x%" PRIx32 "\",\"ev\":\"0x%08" PRIx32
			"\",\"%s\":%" PRIu32 "}\n",
			h, rq->qpn, rq->ev, deny ? "denied_evs" : "allowed_evs", r->n_evs);
		break;
	case -ENOENT:
		snprintf(out, outlen,
			"ERR no-such-ev EV 0x%08" PRIx32 " is not one of QP 0x%" PRIx32
			"'s (or the QP is gone)\n",
			rq->ev, rq->qpn);
		break;
	case -EDEADLK:
		snprintf(out, outlen,
			"ERR would-strand EV 0x%08" PRIx32 " is QP 0x%" PRIx32
			"'s last EV that is not denied: nothing changed\n",
			rq->ev, rq->qpn);
		break;
	case -EACCES:
		snprintf(out, outlen,
			"ERR path-denied EV 0x%08" PRIx32
			" is on a denied path or plane: allow that instead\n",
			rq->ev);
		break;
	default:
		snprintf(out, outlen, "ERR internal the shard answered %d\n", r->rc);
		break;
	}
}

/* deny or allow paths (a plane, or a plane's T1) on one host or all. */
static void
paths(struct mrcd_ctl *ctl, struct mrcd_ctl_client *c, const struct mrcd_ctl_req *rq, char *out,
	size_t outlen)
{
	const bool deny = rq->cmd == MRCD_CTL_DENY;
	const uint32_t hosts = rq->host == MRCD_CTL_ALL_HOSTS
				       ? (uint32_t)((1ull << ctl->d->n_hosts) - 1)
				       : 1u << rq->host;
	uint64_t n = 0;
	char w[96], line[256], hs[16];

	memset(&ctl->sel, 0, sizeof(ctl->sel));
	if (rq->has_t1)
		ctl->sel.t1[rq->plane] = 1ull << rq->t1;
	else
		ctl->sel.planes = (uint8_t)(1u << rq->plane);
	if (deny) {
		if (round_trip(ctl, hosts, MRC_SHARD_EV_CHECK, &ctl->sel, out, outlen) != 0)
			return;
		for (unsigned int h = 0; h < ctl->d->n_hosts; h++)
			for (unsigned int k = 0; (hosts >> h & 1) && k < ctl->d->host[h].n_shards;
				k++)
				if (ctl->req[h][k].rc == -EDEADLK) {
					snprintf(out, outlen,
						"ERR would-strand QP 0x%" PRIx32
						" of host %u would "
						"have no EV left: nothing changed\n",
						ctl->req[h][k].qpn_out, h);
					return;
				}
	}
	if (round_trip(ctl, hosts, deny ? MRC_SHARD_EV_DENY : MRC_SHARD_EV_ALLOW, &ctl->sel, out,
		    outlen) != 0)
		return;
	for (unsigned int h = 0; h < ctl->d->n_hosts; h++) {
		if (!(hosts >> h & 1))
			continue;
		for (unsigned int k = 0; k < ctl->d->host[h].n_shards; k++)
			n += ctl->req[h][k].n_evs;
		publish(ctl, h);
	}
	what(rq, w, sizeof(w));
	if (rq->host < 0)
		snprintf(hs, sizeof(hs), "\"all\"");
	else
		snprintf(hs, sizeof(hs), "%d", rq->host);
	snprintf(out, outlen, "OK {\"host\":%s,%s,\"%s\":%" PRIu64 "}\n", hs, w,
		deny ? "denied_evs" : "allowed_evs", n);
	/* What the operator did goes to the log and to everyone watching events. */
	MRCD_LOG(ctrl, NOTICE, "control: uid %u %s EVs on host %s, %s: %" PRIu64,
		(unsigned int)c->uid, deny ? "denies" : "re-admits", hs, w, n);
	snprintf(line, sizeof(line),
		"EVENT {\"op\":\"%s\",\"host\":%s,%s,\"evs\":%" PRIu64 ",\"uid\":%u}\n",
		deny ? "deny" : "allow", hs, w, n, (unsigned int)c->uid);
	mrcd_ctl_broadcast(ctl, line);
}

/*
 * port: a plane's port of one host or all administratively down or up. The
 * run loop masks admin-down planes out of the link status it publishes to
 * the shards, so everything that follows a link going down (the local QPs,
 * the peers told of the host's planes) follows this too. Taking down a
 * host's last plane that is not already down is refused: its QPs would
 * have nowhere to send.
 */
static void
port(struct mrcd_ctl *ctl, struct mrcd_ctl_client *c, const struct mrcd_ctl_req *rq, char *out,
	size_t outlen)
{
	struct mrcd_daemon *d = ctl->d;
	const uint32_t bit = 1u << rq->plane, all = (1u << d->cfg.daemon.planes) - 1;
	char hs[16], line[256];

	for (unsigned int h = 0; h < d->n_hosts && rq->down; h++)
		if ((rq->host < 0 || (unsigned int)rq->host == h) &&
			((__atomic_load_n(&d->host[h].admin_down, __ATOMIC_ACQUIRE) | bit) & all) ==
				all) {
			snprintf(out, outlen,
				"ERR would-strand plane %u is host %u's last port not set down: "
				"nothing changed\n",
				rq->plane, h);
			return;
		}
	for (unsigned int h = 0; h < d->n_hosts; h++)
		if (rq->host < 0 || (unsigned int)rq->host == h) {
			if (rq->down)
				__atomic_fetch_or(&d->host[h].admin_down, bit, __ATOMIC_ACQ_REL);
			else
				__atomic_fetch_and(&d->host[h].admin_down, ~bit, __ATOMIC_ACQ_REL);
		}
	if (rq->host < 0)
		snprintf(hs, sizeof(hs), "\"all\"");
	else
		snprintf(hs, sizeof(hs), "%d", rq->host);
	snprintf(out, outlen, "OK {\"host\":%s,\"plane\":%u,\"state\":\"%s\"}\n", hs, rq->plane,
		rq->down ? "down" : "up");
	MRCD_LOG(ctrl, NOTICE, "control: uid %u sets plane %u's port of host %s %s",
		(unsigned int)c->uid, rq->plane, hs, rq->down ? "down" : "up");
	snprintf(line, sizeof(line),
		"EVENT {\"op\":\"port\",\"host\":%s,\"plane\":%u,\"state\":\"%s\",\"uid\":%u}\n",
		hs, rq->plane, rq->down ? "down" : "up", (unsigned int)c->uid);
	mrcd_ctl_broadcast(ctl, line);
}

/* fail: on the worker that owns the QP, which alone may change it. */
static int
fail_on_owner(struct mrc_shard *s, void *arg)
{
	const struct mrcd_ctl_fail_ask *a = arg;
	/* the QP the flow's end uses now: its worker alone swaps it, and that is us */
	struct mrc_qp *qp = a->sender ? a->d->flows[a->fi].qp : a->d->peer_qp[a->fi];

	if (qp == NULL || mrc_qp_qpn(qp) != a->qpn)
		return -ENOENT;
	/* reported like any failure (MRC_QP_ERR_USER) */
	return mrc_shard_fail_qp(s, qp);
}

/*
 * fail host=N qpn=Q: a fault drill. QP Q of host N goes to ERROR as if it
 * had failed, so an operator (or a test) sees what a failure does: it is
 * logged and counted, and its generator flow brought back (mrcd_recover.h).
 */
static void
fail_qp(struct mrcd_ctl *ctl, struct mrcd_ctl_client *c, const struct mrcd_ctl_req *rq, char *out,
	size_t outlen)
{
	struct mrcd_daemon *d = ctl->d;
	const int32_t fi = rq->qpn >= MRCD_QPN_BASE ? mrcd_flow_of_qpn(d, rq->qpn) : -1;
	const bool sender = fi >= 0 && (rq->qpn - MRCD_QPN_BASE) % 2 == 0;
	const struct mrcd_flow *f = fi >= 0 ? &d->flows[fi] : NULL;
	struct mrc_shard_req *r;
	unsigned int k;

	if (f == NULL || (sender ? f->src_local : f->dst_local) != rq->host) {
		snprintf(out, outlen, "ERR no-such-qp host %d has no QP 0x%x of a flow\n", rq->host,
			rq->qpn);
		return;
	}
	k = sender ? f->src_shard : f->dst_shard;
	if (ctl->pending[rq->host][k] && !mrc_shard_req_done(&ctl->req[rq->host][k])) {
		snprintf(out, outlen, "ERR busy host %d shard %u has a request out\n", rq->host, k);
		return;
	}
	r = &ctl->req[rq->host][k];
	/* in ctl, not on this stack: a request that times out may still run */
	ctl->fail_ask[rq->host][k] = (struct mrcd_ctl_fail_ask){
		.d = d, .fi = (uint32_t)fi, .qpn = rq->qpn, .sender = sender};
	*r = (struct mrc_shard_req){
		.op = MRC_SHARD_CALL, .fn = fail_on_owner, .arg = &ctl->fail_ask[rq->host][k]};
	if (mrc_shard_request(d->host[rq->host].shard[k].rt, r) != 0) {
		snprintf(out, outlen, "ERR busy host %d shard %u: its request ring is full\n",
			rq->host, k);
		return;
	}
	ctl->pending[rq->host][k] = true;
	/*
	 * Not waited for without end: once the workers have stopped (mrcd is
	 * exiting) nobody would run it, and this thread, which the exit joins,
	 * would never return. Left pending, the shard's next change waits for it.
	 */
	if (!mrcd_ctl_wait(ctl, 1u << rq->host)) {
		snprintf(out, outlen,
			"ERR busy host %d shard %u did not answer within %u ms: QP 0x%x goes to "
			"ERROR when it does\n",
			rq->host, k, MRCD_CTL_WAIT_MS, rq->qpn);
		return;
	}
	if (r->rc != 0) {
		snprintf(out, outlen, "ERR no-such-qp QP 0x%x of host %d: %s\n", rq->qpn, rq->host,
			r->rc == -EALREADY ? "already in ERROR" : "not in use (replaced?)");
		return;
	}
	snprintf(out, outlen, "OK {\"host\":%d,\"qpn\":\"0x%x\",\"state\":\"error\"}\n", rq->host,
		rq->qpn);
	MRCD_LOG(ctrl, NOTICE, "control: uid %u puts QP 0x%x of host %d in ERROR (a drill)",
		(unsigned int)c->uid, rq->qpn, rq->host);
}

/* status: who we are, what there is, what is denied. */
static void
status(struct mrcd_ctl *ctl, struct mrcd_ctl_client *c, char *out, size_t outlen)
{
	const struct mrcd_daemon *d = ctl->d;
	size_t o = 0;

#define PUT(...)                                                     \
	do {                                                         \
		int w_ = snprintf(out + o, outlen - o, __VA_ARGS__); \
		if (w_ > 0)                                          \
			o = RTE_MIN(o + (size_t)w_, outlen - 1);     \
	} while (0)
	PUT("OK {\"protocol\":%u,\"hosts\":%u,\"first_host\":%u,\"planes\":%u,\"t1s\":%u,"
	    "\"uid\":%u,\"admin\":%s,\"why\":\"%s\",\"phase\":%d,\"denied\":[",
		MRCD_CTL_VERSION, d->n_hosts, d->cfg.daemon.first_host, d->cfg.daemon.planes,
		d->cfg.fabric.t1s, (unsigned int)c->uid, c->admin ? "true" : "false", c->why,
		__atomic_load_n(&d->phase, __ATOMIC_ACQUIRE));
	for (unsigned int h = 0; h < d->n_hosts; h++) {
		const struct mrcd_hostctx *hc = &d->host[h];
		const uint8_t planes = __atomic_load_n(&hc->denied_planes, __ATOMIC_ACQUIRE);
		bool first = true;

		PUT("%s{\"host\":%u,\"admin_down\":%u,\"paths\":[", h ? "," : "", h,
			__atomic_load_n(&hc->admin_down, __ATOMIC_ACQUIRE));
		for (unsigned int p = 0; p < d->cfg.daemon.planes; p++) {
			const uint64_t t1 = __atomic_load_n(&hc->denied_t1[p], __ATOMIC_ACQUIRE);

			if ((planes >> p) & 1) {
				PUT("%s\"p%u\"", first ? "" : ",", p);
				first = false;
			}
			for (unsigned int t = 0; t < 64; t++)
				if ((t1 >> t) & 1) {
					PUT("%s\"p%u_t%u\"", first ? "" : ",", p, t);
					first = false;
				}
		}
		PUT("]}");
	}
	PUT("]}\n");
#undef PUT
	if (o >= outlen - 1) /* cut: still one line */
		out[outlen - 2] = '\n';
}

/* A profile changed: to the log and to everyone watching events. */
static void
profile_changed(struct mrcd_ctl *ctl, const struct mrcd_ctl_client *c,
	const struct mrcd_ctl_req *rq, const char *answer)
{
	static const char *const what[] = {[MRCD_CTL_PROFILE_ADD] = "add",
		[MRCD_CTL_PROFILE_SET] = "set",
		[MRCD_CTL_PROFILE_STATE] = "state",
		[MRCD_CTL_PROFILE_DEL] = "del"};
	/* This thread is the table's only writer: its own reads need no lock. */
	const struct mrcd_qp_profile *p = &ctl->d->profiles.p[rq->kind][rq->id];
	char line[160];

	MRCD_LOG(ctrl, NOTICE, "control: uid %u profile %s: %.*s", (unsigned int)c->uid,
		what[rq->cmd], (int)strcspn(answer + 3, "\n"), answer + 3);
	snprintf(line, sizeof(line),
		"EVENT {\"op\":\"profile\",\"do\":\"%s\",\"kind\":\"%s\",\"id\":%u,"
		"\"state\":\"%s\",\"uid\":%u}\n",
		what[rq->cmd], mrcd_profile_kind_name(rq->kind), rq->id,
		mrcd_profile_state_name(p->state), (unsigned int)c->uid);
	mrcd_ctl_broadcast(ctl, line);
}

/* `s` as the inside of a JSON string, on one line. */
static void
json_text(char *out, size_t len, const char *s)
{
	size_t o = 0;

	for (; *s != '\0' && o + 7 < len; s++) {
		const unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			o += (size_t)snprintf(out + o, len - o, "\\%c", c);
		else if (c < 0x20)
			o += (size_t)snprintf(out + o, len - o, "\\u%04x", c);
		else
			out[o++] = (char)c;
	}
	out[o] = '\0';
}

/*
 * reload: the control loop does what SIGHUP does (mrcd_service_reload) and
 * this thread waits for its answer: OK with what was applied, or ERR
 * refused / bad-file with the reason, as the log line says it.
 */
static void
reload(struct mrcd_ctl *ctl, char *out, size_t outlen)
{
	struct mrcd_daemon *d = ctl->d;
	const struct timespec nap = {.tv_nsec = 1000 * 1000};
	char text[1200], line[1536];
	uint32_t seq;

	if (!d->cli.service) {
		snprintf(out, outlen,
			"ERR not-service mrcd reloads only as a service (--service)\n");
		return;
	}
	seq = __atomic_add_fetch(&d->svc.ask, 1, __ATOMIC_RELEASE);
	for (unsigned int t = 0; t < MRCD_CTL_RELOAD_WAIT_MS; t++) {
		if ((int32_t)(__atomic_load_n(&d->svc.done, __ATOMIC_ACQUIRE) - seq) >= 0) {
			const int rc = d->svc.answer_rc;

			snprintf(line, sizeof(line), "%s", d->svc.answer);
			if (rc == 0 || rc == 2) {
				json_text(text, sizeof(text), line);
				snprintf(out, outlen, "OK {\"reload\":\"%s\",\"what\":\"%s\"}\n",
					rc == 0 ? "unchanged" : "applied", text);
			} else {
				line[strcspn(line, "\n")] = '\0';
				snprintf(out, outlen, "ERR %s %.1400s; running as before\n",
					rc > 0 ? "refused" : "bad-file", line);
			}
			return;
		}
		nanosleep(&nap, NULL);
	}
	snprintf(out, outlen,
		"ERR timeout the control loop did not answer in %u ms (is mrcd stopping?)\n",
		MRCD_CTL_RELOAD_WAIT_MS);
}

void
mrcd_ctl_answer(struct mrcd_ctl *ctl, struct mrcd_ctl_client *c, const struct mrcd_ctl_req *rq,
	char *out, size_t outlen)
{
	switch (rq->cmd) {
	case MRCD_CTL_STATUS:
		status(ctl, c, out, outlen);
		break;
	case MRCD_CTL_EVENTS:
		c->out = malloc(MRCD_CTL_EVENT_BUF);
		if (c->out == NULL) {
			snprintf(out, outlen, "ERR busy no memory for an event queue\n");
			break;
		}
		c->events = true;
		snprintf(out, outlen, "OK {\"events\":true}\n");
		break;
	case MRCD_CTL_DENY:
	case MRCD_CTL_ALLOW:
		if (rq->has_qp)
			one_ev(ctl, rq, out, outlen);
		else
			paths(ctl, c, rq, out, outlen);
		break;
	case MRCD_CTL_PORT:
		port(ctl, c, rq, out, outlen);
		break;
	case MRCD_CTL_PROFILE_LIST:
	case MRCD_CTL_PROFILE_SHOW:
	case MRCD_CTL_PROFILE_ADD:
	case MRCD_CTL_PROFILE_SET:
	case MRCD_CTL_PROFILE_STATE:
	case MRCD_CTL_PROFILE_DEL:
		mrcd_profile_table_do(&ctl->d->profiles, rq, out, outlen);
		if (mrcd_ctl_changes(rq->cmd) && strncmp(out, "OK ", 3) == 0)
			profile_changed(ctl, c, rq, out);
		break;
	case MRCD_CTL_PROBE:
		mrcd_ctl_probe(ctl, rq, out, outlen);
		break;
	case MRCD_CTL_RELOAD:
		reload(ctl, out, outlen);
		break;
	case MRCD_CTL_FAIL:
		fail_qp(ctl, c, rq, out, outlen);
		break;
	}
}

void
mrcd_ctl_pump_events(struct mrcd_ctl *ctl)
{
	const struct mrcd_daemon *d = ctl->d;
	bool anyone = false;

	for (unsigned int i = 0; i < MRCD_CTL_MAX_CLIENTS; i++)
		anyone |= ctl->cl[i].fd >= 0 && ctl->cl[i].events;
	for (unsigned int h = 0; h < d->n_hosts; h++)
		for (unsigned int k = 0; k < d->host[h].n_shards; k++) {
			struct rte_ring *r = d->host[h].shard[k].ev_events;
			struct mrc_shard_ev_event e[32];
			unsigned int n;

			if (r == NULL)
				continue;
			while ((n = rte_ring_sc_dequeue_burst_elem(
					r, e, sizeof(e[0]), RTE_DIM(e), NULL)) > 0) {
				ctl->events_in += n;
				for (unsigned int j = 0; j < n && anyone; j++) {
					char line[384], t1[8];

					if (e[j].t1 == 0xff)
						snprintf(t1, sizeof(t1), "null");
					else
						snprintf(t1, sizeof(t1), "%u", e[j].t1);
					snprintf(line, sizeof(line),
						"EVENT "
						"{\"host\":%u,\"shard\":%u,\"qpn\":\"0x%" PRIx32
						"\",\"ev\":\"0x%08" PRIx32
						"\",\"plane\":%u,\"t1\":%s,\"from\":\"%s\",\"to\":"
						"\"%s\","
						"\"path_lost\":%" PRIu32 ",\"path_trims\":%" PRIu32
						",\"path_ecn\":%" PRIu32 "}\n",
						h, k, e[j].qpn, e[j].ev, e[j].plane, t1,
						mrc_ev_state_name((enum mrc_ev_state)e[j].from),
						mrc_ev_state_name((enum mrc_ev_state)e[j].to),
						e[j].path_lost, e[j].path_trims, e[j].path_ecn);
					mrcd_ctl_broadcast(ctl, line);
					ctl->events_out++;
				}
			}
		}
}
