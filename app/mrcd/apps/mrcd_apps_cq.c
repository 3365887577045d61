/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: the control thread (mrcd_apps_ctl.h). Owns the sessions' CQs (the
 * shared memory mrcd makes for each, one ring per worker) and their
 * completion channels (pipes mrcd makes, keeping the write end and giving
 * the application the read end), and writes a byte on a channel when a
 * worker reports that an armed CQ got an entry.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_ring.h>

#include "mrcd_apps.h"
#include "mrcd_apps_ctl.h"
#include "mrcd_apps_priv.h"

struct mrcd_app_cq *
mrcd_apps_find_cq(struct mrcd_app_session *s, uint32_t id)
{
	for (unsigned int k = 0; k < RTE_DIM(s->cq); k++)
		if (s->cq[k].id != 0 && s->cq[k].id == id)
			return &s->cq[k];
	return NULL;
}

/*
 * A channel: a pipe mrcd makes. mrcd keeps the write end, whose open file
 * description no one else ever holds, so its O_NONBLOCK is mrcd's alone and
 * a wake-up's write() never waits; the read end goes to the application in
 * the reply (*fd) and is closed here once sent. The application can read,
 * poll and set its own end's flags, and reach nothing else: no write end to
 * fill or block, no socket to connect elsewhere. A page of buffer is plenty:
 * one byte waiting wakes the application. The request carries no fd; one
 * that comes with an fd is refused (EINVAL), as a lib_mrc that hands mrcd
 * its own end would wait on it for wake-ups that never come.
 */
int
mrcd_apps_create_channel(struct mrcd_app_session *s, int req_fd, struct mrc_chan_rep *rep, int *fd)
{
	int p[2];

	*fd = -1;
	if (req_fd >= 0)
		return mrcd_apps_fail(
			rep, EINVAL, "a channel's request carries no fd: mrcd makes the pipe");
	for (unsigned int k = 0; k < RTE_DIM(s->chan_fd); k++) {
		if (s->chan_fd[k] >= 0)
			continue;
		if (pipe2(p, O_NONBLOCK | O_CLOEXEC) != 0)
			return mrcd_apps_fail(
				rep, errno, "cannot make the channel's pipe: %s", strerror(errno));
		if (fcntl(p[1], F_SETPIPE_SZ, 4096) < 0) {
			const int err = errno;

			close(p[0]);
			close(p[1]);
			return mrcd_apps_fail(
				rep, err, "cannot size the channel's pipe: %s", strerror(err));
		}
		s->chan_fd[k] = p[1];
		*fd = p[0]; /* the caller sends it with the reply and closes it */
		rep->u.create_channel.channel = k + 1;
		return 0;
	}
	return mrcd_apps_fail(rep, ENOMEM, "this application has its %u channels already",
		MRCD_APPS_SESSION_CHANNELS);
}

int
mrcd_apps_create_cq(struct mrcd_apps *a, struct mrcd_app_session *s, const struct mrc_chan_req *r,
	struct mrc_chan_rep *rep, int *fd)
{
	struct mrcd_app_cq *cq = NULL;
	const uint32_t ch = r->u.create_cq.channel;

	if (ch > MRCD_APPS_SESSION_CHANNELS || (ch != 0 && s->chan_fd[ch - 1] < 0))
		return mrcd_apps_fail(
			rep, EINVAL, "channel %u is not one of this application's", ch);

	for (unsigned int k = 0; k < RTE_DIM(s->cq) && cq == NULL; k++)
		if (s->cq[k].id == 0)
			cq = &s->cq[k];
	if (cq == NULL)
		return mrcd_apps_fail(rep, ENOMEM, "this application has its %u CQs already",
			MRCD_APPS_SESSION_CQS);
	memset(cq, 0, sizeof(*cq));
	cq->entries = mrc_chan_pow2(r->u.create_cq.entries);
	cq->n_rings = a->d->n_workers;
	cq->bytes = mrc_chan_cq_bytes(cq->entries, cq->n_rings);
	cq->shm = mrcd_apps_make_shm("mrcd-cq", cq->bytes, fd);
	if (cq->shm == NULL)
		return mrcd_apps_fail(rep, ENOMEM, "no shared memory for a CQ of %u entries: %s",
			cq->entries, strerror(errno));
	cq->id = (uint32_t)(cq - s->cq) + 1;
	cq->channel = ch;
	cq->wakes = a->wakes;
	cq->owed = &a->wakes_owed;
	cq->token = (void *)(((uintptr_t)(s - a->sess) << 8 | (uintptr_t)(cq - s->cq)) + 1);
	rep->u.create_cq.cq = cq->id;
	rep->u.create_cq.n_rings = cq->n_rings;
	rep->u.create_cq.entries = cq->entries;
	rep->u.create_cq.bytes = cq->bytes;
	return 0;
}

static bool
cq_in_use(struct mrcd_app_session *s, const struct mrcd_app_cq *cq)
{
	for (unsigned int k = 0; k < RTE_DIM(s->qp); k++)
		if (s->qp[k].qpn != 0 && (s->qp[k].scq == cq || s->qp[k].rcq == cq))
			return true;
	return false;
}

int
mrcd_apps_destroy_channel(
	struct mrcd_app_session *s, const struct mrc_chan_req *r, struct mrc_chan_rep *rep)
{
	const uint32_t ch = r->u.destroy_channel.channel;

	if (ch == 0 || ch > RTE_DIM(s->chan_fd) || s->chan_fd[ch - 1] < 0)
		return mrcd_apps_fail(
			rep, EINVAL, "channel %u is not one of this application's", ch);
	for (unsigned int k = 0; k < RTE_DIM(s->cq); k++)
		if (s->cq[k].id != 0 && s->cq[k].channel == ch)
			return mrcd_apps_fail(
				rep, EBUSY, "channel %u still has CQ %u", ch, s->cq[k].id);
	close(s->chan_fd[ch - 1]);
	s->chan_fd[ch - 1] = -1;
	return 0;
}

int
mrcd_apps_destroy_cq(
	struct mrcd_app_session *s, const struct mrc_chan_req *r, struct mrc_chan_rep *rep)
{
	struct mrcd_app_cq *cq = mrcd_apps_find_cq(s, r->u.destroy_cq.cq);

	if (cq == NULL)
		return mrcd_apps_fail(
			rep, EINVAL, "CQ %u is not one of this application's", r->u.destroy_cq.cq);
	if (cq_in_use(s, cq))
		return mrcd_apps_fail(rep, EBUSY, "CQ %u still has QPs", cq->id);
	munmap(cq->shm, cq->bytes);
	memset(cq, 0, sizeof(*cq));
	return 0;
}

/*
 * A byte written on cq's channel, never waiting (the write end is mrcd's and
 * non-blocking): a full pipe (EAGAIN) holds bytes the application has not
 * read yet, which wake it anyway; EPIPE, its read end closed, is counted and
 * nothing more (mrcd ignores SIGPIPE: mrcd_signals_catch, before any session).
 */
static void
wake(struct mrcd_apps *a, const struct mrcd_app_session *s, const struct mrcd_app_cq *cq)
{
	const uint8_t one = 1;

	/* A CQ or session gone since: nothing to wake (a spare wake-up is harmless). */
	if (!s->used || cq->id == 0 || cq->channel == 0 || s->chan_fd[cq->channel - 1] < 0)
		return;
	if (write(s->chan_fd[cq->channel - 1], &one, sizeof(one)) == sizeof(one))
		__atomic_fetch_add(&a->wakes_sent, 1, __ATOMIC_RELAXED);
	else if (errno == EAGAIN || errno == EWOULDBLOCK)
		__atomic_fetch_add(&a->wakes_pending, 1, __ATOMIC_RELAXED);
	else
		__atomic_fetch_add(&a->wakes_failed, 1, __ATOMIC_RELAXED);
}

/*
 * The workers' wake-ups: each armed CQ that got an entry, a byte written on
 * its channel; those the ring could not take too, found by their owed mark.
 */
unsigned int
mrcd_apps_wake_channels(struct mrcd_apps *a)
{
	const uint64_t owed = __atomic_load_n(&a->wakes_owed, __ATOMIC_ACQUIRE);
	void *tok[64];
	unsigned int n, got = 0;

	while ((n = rte_ring_sc_dequeue_burst(a->wakes, tok, RTE_DIM(tok), NULL)) > 0)
		for (unsigned int k = 0; k < n; k++, got++) {
			const uintptr_t t = (uintptr_t)tok[k] - 1;
			const struct mrcd_app_session *s = &a->sess[(t >> 8) % MRCD_APPS_SESSIONS];

			wake(a, s, &s->cq[(t & 0xff) % MRCD_APPS_SESSION_CQS]);
		}
	if (owed == a->wakes_owed_seen)
		return got;
	a->wakes_owed_seen = owed;
	for (unsigned int i = 0; i < MRCD_APPS_SESSIONS; i++)
		for (unsigned int k = 0; k < MRCD_APPS_SESSION_CQS; k++) {
			struct mrcd_app_cq *cq = &a->sess[i].cq[k];

			if (__atomic_load_n(&cq->wake_owed, __ATOMIC_ACQUIRE) != 0 &&
				__atomic_exchange_n(&cq->wake_owed, 0, __ATOMIC_ACQ_REL) != 0) {
				wake(a, &a->sess[i], cq);
				got++;
			}
		}
	return got;
}
