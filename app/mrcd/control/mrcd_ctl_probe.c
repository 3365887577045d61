/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: the control socket's thread (mrcd_ctl.c).
 *
 * probe (doc/control.md): one EV of a QP, or the EVs of a path on one
 * host, each probed by the QP's owner (MRC_SHARD_EV_PROBE: the worker
 * sends the probe with the QP's next burst and times its answer on its own
 * clock) and then asked for its result (MRC_SHARD_EV_PROBE_RESULT) every
 * 100 us or so until it answers, times out in the QP, or
 * MRCD_CTL_PROBE_WAIT_MS pass. The round trip is the QP's, from the
 * probe's send to its SACK: this thread's polling adds nothing to it. The
 * EVs of a path are probed one after the other, so a dead path costs
 * MRCD_CTL_PROBE_WAIT_MS per EV at most and the command MRCD_CTL_WAIT_MS
 * in all (the EVs beyond are "not probed").
 *
 * A QP's probe is answered by a SACK, which has no field for the
 * responder's service time; the receiving worker answers it from its own
 * pass. peer= probes a path with an endpoint EV probe instead (QPN 2,
 * mrcd_epreq.h): sent and timed by the main lcore, answered by the peer's
 * control thread, which says its service time; the reply gives the round
 * trip with it taken out, the raw one, and the service time.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "mrc_ev.h"
#include "mrcd_control.h"
#include "mrcd_ctl.h"
#include "mrcd_epreq.h"

/* The shard of host h that owns QP qpn, or -1. */
static int
owner(const struct mrcd_ctl *ctl, unsigned int h, uint32_t qpn)
{
	const struct mrcd_hostctx *hc = &ctl->d->host[h];

	for (unsigned int k = 0; k < hc->n_shards; k++)
		if (mrc_shard_owns(hc->shard[k].rt, qpn))
			return (int)k;
	return -1;
}

/*
 * Probe EV ev of QP qpn (shard k of host h), waiting until `deadline_ns`
 * at most: 1 and *rtt_ns (answered), -ETIMEDOUT (no answer), -ENETDOWN,
 * -ENOENT, -EACCES, -EPERM (as mrc_qp_op_probe), -EBUSY (the shard has an
 * earlier request out), -ESHUTDOWN (the worker does not answer).
 */
static int
probe_ev(struct mrcd_ctl *ctl, unsigned int h, unsigned int k, uint32_t qpn, uint32_t ev,
	uint64_t deadline_ns, uint64_t *rtt_ns)
{
	const struct timespec nap = {.tv_nsec = 100 * 1000};
	enum mrc_shard_op op = MRC_SHARD_EV_PROBE;

	memset(&ctl->sel, 0, sizeof(ctl->sel));
	ctl->sel.one_ev = true;
	ctl->sel.qpn = qpn;
	ctl->sel.ev = ev;
	for (;;) {
		int rc;

		if (!mrcd_ctl_post(ctl, h, k, op, &ctl->sel, NULL, 0))
			return -EBUSY;
		if (!mrcd_ctl_wait(ctl, 1u << h))
			return -ESHUTDOWN;
		rc = ctl->req[h][k].rc;
		if (rc == 1)
			*rtt_ns = ctl->req[h][k].rtt_ns;
		if (rc != 0 || (op == MRC_SHARD_EV_PROBE_RESULT && mrcd_mono_ns() >= deadline_ns))
			return rc == 0 ? -ETIMEDOUT : rc;
		op = MRC_SHARD_EV_PROBE_RESULT;
		nanosleep(&nap, NULL);
	}
}

/* One probe's outcome as JSON members (no braces). */
static int
outcome(char *buf, size_t len, int rc, uint64_t rtt_ns)
{
	const char *why;

	switch (rc) {
	case 1:
		return snprintf(buf, len, "\"rtt_ns\":%" PRIu64, rtt_ns);
	case -ETIMEDOUT:
		why = "no answer";
		break;
	case -ENETDOWN:
		why = "plane down";
		break;
	case -EACCES:
		why = "denied";
		break;
	case -ENOENT:
		why = "gone";
		break;
	case -EPERM:
		why = "not sending";
		break;
	case -ECANCELED:
		why = "not probed";
		break;
	default:
		why = "workers busy";
		break;
	}
	return snprintf(buf, len, "\"rtt_ns\":null,\"result\":\"%s\"", why);
}

static void
one(struct mrcd_ctl *ctl, const struct mrcd_ctl_req *rq, char *out, size_t outlen)
{
	const unsigned int h = (unsigned int)rq->host;
	const int k = owner(ctl, h, rq->qpn);
	uint64_t rtt = 0;
	char res[96];
	int rc;

	if (k < 0) {
		snprintf(out, outlen, "ERR no-such-qp QP 0x%" PRIx32 " is not one of host %u's\n",
			rq->qpn, h);
		return;
	}
	rc = probe_ev(ctl, h, (unsigned int)k, rq->qpn, rq->ev,
		mrcd_mono_ns() + MRCD_CTL_PROBE_WAIT_MS * 1000000ull, &rtt);
	switch (rc) {
	case -ENOENT:
		snprintf(out, outlen,
			"ERR no-such-ev EV 0x%08" PRIx32 " is not one of QP 0x%" PRIx32
			"'s (or the QP is gone)\n",
			rq->ev, rq->qpn);
		return;
	case -EACCES:
		snprintf(out, outlen,
			"ERR path-denied EV 0x%08" PRIx32 " is DENIED: nothing is sent on it\n",
			rq->ev);
		return;
	case -EPERM:
		snprintf(out, outlen,
			"ERR no-such-qp QP 0x%" PRIx32 " is not sending (not RTS, or pinned)\n",
			rq->qpn);
		return;
	case -EBUSY:
		snprintf(out, outlen,
			"ERR busy host %u shard %d has not answered an earlier request\n", h, k);
		return;
	case -ESHUTDOWN:
		snprintf(out, outlen, "ERR not-running the workers did not answer in %u ms\n",
			MRCD_CTL_WAIT_MS);
		return;
	default:
		break;
	}
	outcome(res, sizeof(res), rc, rtt);
	snprintf(out, outlen,
		"OK {\"host\":%u,\"qpn\":\"0x%" PRIx32 "\",\"ev\":\"0x%08" PRIx32 "\",%s}\n", h,
		rq->qpn, rq->ev, res);
}

/* The EVs of a path (or plane) on one host: each shard lists, then each EV in turn. */
static void
path(struct mrcd_ctl *ctl, const struct mrcd_ctl_req *rq, char *out, size_t outlen)
{
	const unsigned int h = (unsigned int)rq->host;
	const unsigned int n_shards = ctl->d->host[h].n_shards;
	const uint64_t end = mrcd_mono_ns() + MRCD_CTL_WAIT_MS * 1000000ull;
	uint64_t total = 0;
	unsigned int probed = 0, answered = 0;
	size_t o;

	memset(&ctl->sel, 0, sizeof(ctl->sel));
	if (rq->has_t1)
		ctl->sel.t1[rq->plane] = 1ull << rq->t1;
	else
		ctl->sel.planes = (uint8_t)(1u << rq->plane);
	for (unsigned int k = 0; k < n_shards; k++)
		if (!mrcd_ctl_post(ctl, h, k, MRC_SHARD_EV_LIST, &ctl->sel, ctl->probe_list[h][k],
			    MRCD_CTL_PROBE_MAX)) {
			snprintf(out, outlen,
				"ERR busy host %u shard %u has not answered an earlier request\n",
				h, k);
			return;
		}
	if (!mrcd_ctl_wait(ctl, 1u << h)) {
		snprintf(out, outlen, "ERR not-running the workers did not answer in %u ms\n",
			MRCD_CTL_WAIT_MS);
		return;
	}
	uint32_t listed[MRC_SHARD_MAX_SHARDS];

	for (unsigned int k = 0; k < n_shards; k++) {
		total += ctl->req[h][k].n_evs;
		listed[k] = RTE_MIN(ctl->req[h][k].n_evs, (uint32_t)MRCD_CTL_PROBE_MAX);
	}
	o = (size_t)snprintf(out, outlen, "OK {\"host\":%u,\"plane\":%u,", h, rq->plane);
	if (rq->has_t1)
		o += (size_t)snprintf(out + o, outlen - o, "\"t1\":%u,", rq->t1);
	o += (size_t)snprintf(out + o, outlen - o, "\"probes\":[");
	for (unsigned int k = 0; k < n_shards; k++)
		for (uint32_t i = 0; i < listed[k] && probed < MRCD_CTL_PROBE_MAX; i++) {
			const struct mrc_shard_ev_ref e = ctl->probe_list[h][k][i];
			uint64_t rtt = 0, now = mrcd_mono_ns();
			char res[96];
			int rc;

			if (e.state == MRC_EV_DENIED)
				rc = -EACCES;
			else if (now >= end)
				rc = -ECANCELED;
			else
				rc = probe_ev(ctl, h, k, e.qpn, e.ev,
					RTE_MIN(end, now + MRCD_CTL_PROBE_WAIT_MS * 1000000ull),
					&rtt);
			if (rc == -ESHUTDOWN) {
				snprintf(out, outlen,
					"ERR not-running the workers did not answer in %u ms\n",
					MRCD_CTL_WAIT_MS);
				return;
			}
			answered += rc == 1;
			outcome(res, sizeof(res), rc, rtt);
			o += (size_t)snprintf(out + o, outlen - o,
				"%s{\"qpn\":\"0x%" PRIx32 "\",\"ev\":\"0x%08" PRIx32 "\",%s}",
				probed ? "," : "", e.qpn, e.ev, res);
			probed++;
			if (o >= outlen)
				break;
		}
	if (o < outlen)
		snprintf(out + o, outlen - o,
			"],\"evs\":%" PRIu64 ",\"probed\":%u,\"answered\":%u}\n", total, probed,
			answered);
	if (o >= outlen - 1 || out[strlen(out) - 1] != '\n') /* cut: still one line */
		out[outlen - 2] = '\n';
}

/* An endpoint EV probe from one of our hosts to a host of another process. */
static void
peer(struct mrcd_ctl *ctl, const struct mrcd_ctl_req *rq, char *out, size_t outlen)
{
	const unsigned int h = (unsigned int)rq->host;
	struct mrcd_ep_probe_rtt r;
	char res[96];
	int rc;

	rc = mrcd_ep_probe_ask(ctl->d, h, rq->peer, rq->ev, MRCD_CTL_PROBE_WAIT_MS, &r);
	switch (rc) {
	case 1:
		/* a peer that gives no service time: null, not 0 */
		if (r.svc_valid)
			snprintf(res, sizeof(res), "%" PRIu32, r.svc_ns);
		else
			snprintf(res, sizeof(res), "null");
		snprintf(out, outlen,
			"OK {\"host\":%u,\"peer\":%u,\"ev\":\"0x%08" PRIx32 "\",\"rtt_ns\":%" PRIu64
			",\"raw_rtt_ns\":%" PRIu64 ",\"svc_ns\":%s,\"svc_subtracted\":%s}\n",
			h, rq->peer, rq->ev, r.rtt_ns, r.raw_ns, res,
			r.svc_subtracted ? "true" : "false");
		return;
	case -EINVAL:
		snprintf(out, outlen,
			"ERR no-such-host peer %u is no host of another process that host %u "
			"knows\n",
			rq->peer, h);
		return;
	case -ESHUTDOWN:
		snprintf(out, outlen,
			"ERR not-running the main loop did not take the probe in %u ms\n",
			MRCD_CTL_PROBE_WAIT_MS);
		return;
	case -ENOBUFS:
		snprintf(res, sizeof(res), "\"rtt_ns\":null,\"result\":\"not sent\"");
		break;
	default:
		outcome(res, sizeof(res), rc, 0);
		break;
	}
	snprintf(out, outlen, "OK {\"host\":%u,\"peer\":%u,\"ev\":\"0x%08" PRIx32 "\",%s}\n", h,
		rq->peer, rq->ev, res);
}

void
mrcd_ctl_probe(struct mrcd_ctl *ctl, const struct mrcd_ctl_req *rq, char *out, size_t outlen)
{
	if (rq->has_peer)
		peer(ctl, rq, out, outlen);
	else if (rq->has_qp)
		one(ctl, rq, out, outlen);
	else
		path(ctl, rq, out, outlen);
}
