/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: DPDK's telemetry threads (mrcd_tel_mailbox_ask) and the stats
 * thread (mrcd_tel_mailbox_serve_one); see mrcd_tel_mailbox.h.
 *
 * A FIFO of requests that live on their callers' stacks, under one mutex
 * that neither the workers nor any packet ever see. The server holds the
 * lock only to unlink a request and to mark it done, never while it
 * formats, so a caller that gives up is never kept waiting by a reply in
 * progress for somebody else.
 */

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "mrcd_tel_mailbox.h"

enum { REQ_QUEUED, REQ_TAKEN, REQ_DONE };

int
mrcd_tel_mailbox_init(struct mrcd_tel_mailbox *mb)
{
	pthread_condattr_t ca;
	int rc;

	memset(mb, 0, sizeof(*mb));
	mb->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (mb->efd < 0)
		return -errno;
	/* Timeouts on the monotonic clock: a wall-clock step must not end or stretch a wait. */
	rc = pthread_condattr_init(&ca);
	if (rc == 0)
		rc = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	if (rc == 0)
		rc = pthread_cond_init(&mb->done, &ca);
	pthread_condattr_destroy(&ca);
	if (rc == 0)
		rc = pthread_mutex_init(&mb->lock, NULL);
	if (rc != 0) {
		close(mb->efd);
		mb->efd = -1;
		return -rc;
	}
	return 0;
}

void
mrcd_tel_mailbox_fini(struct mrcd_tel_mailbox *mb)
{
	if (mb->efd < 0)
		return;
	close(mb->efd);
	mb->efd = -1;
	pthread_cond_destroy(&mb->done);
	pthread_mutex_destroy(&mb->lock);
}

/* Under the lock: the eventfd follows the queue, readable while it holds anything. */
static void
efd_raise(struct mrcd_tel_mailbox *mb)
{
	const uint64_t one = 1;

	/* Cannot block (EFD_NONBLOCK) nor overflow (it never counts past 1). */
	if (write(mb->efd, &one, sizeof(one)) != sizeof(one))
		return;
}

static void
efd_clear(struct mrcd_tel_mailbox *mb)
{
	uint64_t v;

	if (read(mb->efd, &v, sizeof(v)) != sizeof(v))
		return; /* EAGAIN: it was clear */
}

static void
unlink_req(struct mrcd_tel_mailbox *mb, struct mrcd_tel_req *r)
{
	struct mrcd_tel_req **pp = &mb->head, *prev = NULL;

	while (*pp != NULL && *pp != r) {
		prev = *pp;
		pp = &(*pp)->next;
	}
	if (*pp == NULL)
		return;
	*pp = r->next;
	if (mb->tail == r)
		mb->tail = prev;
	if (mb->head == NULL)
		efd_clear(mb);
}

int
mrcd_tel_mailbox_ask(struct mrcd_tel_mailbox *mb, struct mrcd_tel_req *r, unsigned int timeout_ms)
{
	struct timespec until;

	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += timeout_ms / 1000;
	until.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	r->state = REQ_QUEUED;
	r->next = NULL;
	r->rc = -1;
	pthread_mutex_lock(&mb->lock);
	if (mb->head == NULL) {
		mb->head = r;
		efd_raise(mb);
	} else {
		mb->tail->next = r;
	}
	mb->tail = r;
	while (r->state != REQ_DONE) {
		if (r->state == REQ_TAKEN) {
			/* The server writes into r->d now: only its reply may go out. */
			pthread_cond_wait(&mb->done, &mb->lock);
			continue;
		}
		if (pthread_cond_timedwait(&mb->done, &mb->lock, &until) == ETIMEDOUT &&
			r->state == REQ_QUEUED) {
			unlink_req(mb, r);
			mb->cnt.timed_out++;
			pthread_mutex_unlock(&mb->lock);
			return -ETIMEDOUT;
		}
	}
	pthread_mutex_unlock(&mb->lock);
	return 0;
}

int
mrcd_tel_mailbox_serve_one(struct mrcd_tel_mailbox *mb)
{
	struct mrcd_tel_req *r;
	int rc;

	pthread_mutex_lock(&mb->lock);
	r = mb->head;
	if (r == NULL) {
		efd_clear(mb);
		pthread_mutex_unlock(&mb->lock);
		return 0;
	}
	unlink_req(mb, r);
	r->state = REQ_TAKEN;
	pthread_mutex_unlock(&mb->lock);

	rc = r->fn(r->cmd, r->params, r->d);

	pthread_mutex_lock(&mb->lock);
	r->rc = rc;
	r->state = REQ_DONE; /* r may be gone from its caller's stack once we unlock */
	mb->cnt.served++;
	pthread_cond_broadcast(&mb->done);
	pthread_mutex_unlock(&mb->lock);
	return 1;
}

void
mrcd_tel_mailbox_counters(struct mrcd_tel_mailbox *mb, struct mrcd_tel_mailbox_counters *out)
{
	pthread_mutex_lock(&mb->lock);
	*out = mb->cnt;
	pthread_mutex_unlock(&mb->lock);
}
