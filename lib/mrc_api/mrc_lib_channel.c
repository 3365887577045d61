/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * lib_mrc: completion channels, the read end of a pipe mrcd writes a byte on
 * when an armed CQ gets an entry, and the calls that arm a CQ and take its events. Apart
 * from the CQs themselves (mrc_lib_cq.c) because a program that only polls
 * never touches any of it.
 */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <unistd.h>

#include "mrc_lib_priv.h"

/*
 * ---- completion channels: a pipe mrcd makes, keeping the write end and
 * writing a byte on it when an armed CQ gets an entry; the read end, sent
 * with the reply, is the channel's fd ----
 */

int
mrc_create_comp_channel(struct mrc_context *c, struct mrc_comp_channel **channel)
{
	struct mrc_chan_req r = {.op = MRC_CHAN_CREATE_CHANNEL};
	struct mrc_chan_rep rep;
	struct mrc_comp_channel *ch;
	int fd = -1, flags, err = 0;

	if (c == NULL || channel == NULL) {
		errno = EINVAL;
		return -1;
	}
	ch = calloc(1, sizeof(*ch));
	if (ch == NULL)
		return -1;
	ch->ctx = c;
	/*
	 * The read end comes with the reply, close-on-exec (mrc_lib_rpc takes it
	 * with MSG_CMSG_CLOEXEC), and non-blocking as mrcd made the pipe: set
	 * blocking, as a verbs channel starts. A yes without it: EPROTO.
	 */
	if (mrc_lib_rpc(c->dev, &r, -1, &rep, &fd) != 0)
		err = errno;
	else if (fd < 0)
		err = EPROTO;
	else if ((flags = fcntl(fd, F_GETFL)) < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0)
		err = errno;
	if (err != 0) {
		if (fd >= 0)
			close(fd);
		free(ch);
		errno = err;
		return -1;
	}
	ch->fd = fd; /* its flags are the application's from here on */
	ch->id = rep.u.create_channel.channel;
	*channel = ch;
	return 0;
}

int
mrc_get_comp_channel_fd(struct mrc_comp_channel *channel, int *fd)
{
	if (channel == NULL || fd == NULL) {
		errno = EINVAL;
		return -1;
	}
	*fd = channel->fd;
	return 0;
}

int
mrc_destroy_comp_channel(struct mrc_comp_channel *channel)
{
	struct mrc_chan_req r = {.op = MRC_CHAN_DESTROY_CHANNEL};
	struct mrc_chan_rep rep;

	if (channel == NULL) {
		errno = EINVAL;
		return -1;
	}
	for (unsigned int k = 0; k < MRC_LIB_MAX_CQS; k++)
		if (channel->ctx->cqs[k] != NULL && channel->ctx->cqs[k]->channel == channel) {
			errno = EBUSY;
			return -1;
		}
	/* mrcd lets its write end and the session's slot go; with mrcd gone, nothing is held */
	r.u.destroy_channel.channel = channel->id;
	if (mrc_lib_rpc(channel->ctx->dev, &r, -1, &rep, NULL) != 0 && !channel->ctx->dev->dead)
		return -1;
	close(channel->fd);
	free(channel);
	return 0;
}

int
mrc_req_notify_cq(struct mrc_cq *cq, int solicited_only)
{
	(void)solicited_only; /* no solicited events in MRC: every completion counts */
	if (cq == NULL || cq->channel == NULL) {
		errno = EINVAL;
		return EINVAL;
	}
	__atomic_store_n(&((struct mrc_chan_cq_status *)cq->shm)->armed, 1, __ATOMIC_RELEASE);
	return 0;
}

/* The first CQ of the channel whose armed notification fired, taken back; NULL: none. */
static struct mrc_cq *
fired_cq(struct mrc_comp_channel *ch)
{
	for (unsigned int k = 0; k < MRC_LIB_MAX_CQS; k++) {
		struct mrc_cq *cq = ch->ctx->cqs[k];

		if (cq != NULL && cq->channel == ch &&
			__atomic_exchange_n(&((struct mrc_chan_cq_status *)cq->shm)->fired, 0,
				__ATOMIC_ACQ_REL) != 0)
			return cq;
	}
	return NULL;
}

/*
 * Take the bytes mrcd wrote on the channel: how many, or -1 when the pipe is
 * empty and its write end closed (mrcd ended the session or is gone). Reads
 * only what poll() says is there and stops at a short read, which emptied
 * the pipe, so a blocking read end never waits here.
 */
static int
drain(int fd)
{
	uint8_t b[64];
	int n = 0;

	for (;;) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		ssize_t got;

		if (poll(&p, 1, 0) != 1)
			return n;
		got = read(fd, b, sizeof(b));
		if (got == 0)
			return n > 0 ? n : -1;
		if (got < 0)
			return n;
		n += (int)got;
		if ((size_t)got < sizeof(b))
			return n;
	}
}

int
mrc_get_cq_event(struct mrc_comp_channel *channel, struct mrc_cq **cq, void **cq_context)
{
	struct mrc_cq *got = NULL;

	if (channel == NULL || cq == NULL || cq_context == NULL) {
		errno = EINVAL;
		return -1;
	}
	/* A CQ taken in the loop's last look is kept: its fired mark is spent. */
	while (got == NULL && (got = fired_cq(channel)) == NULL) {
		struct pollfd p[2] = {{.fd = channel->fd, .events = POLLIN},
			{.fd = channel->ctx->dev->fd, .events = POLLIN}};
		const int flags = fcntl(channel->fd, F_GETFL);
		int ready = 0, taken;

		if (channel->ctx->dev->dead) {
			errno = EIO;
			return -1;
		}
		if (flags < 0)
			return -1;
		/* A non-blocking fd: one look. Else wait for mrcd's byte, or its end. */
		if ((flags & O_NONBLOCK) == 0) {
			ready = poll(p, 2, -1);
			if (ready < 0 && errno != EINTR)
				return -1;
			if (ready > 0 && (p[1].revents & (POLLIN | POLLHUP | POLLERR)) != 0 &&
				(p[0].revents & POLLIN) == 0) {
				mrc_lib_dev_died(channel->ctx->dev);
				continue;
			}
		}
		taken = drain(channel->fd);
		if (taken < 0) {
			mrc_lib_dev_died(channel->ctx->dev);
			continue;
		}
		if (taken == 0 && (flags & O_NONBLOCK) != 0 && (got = fired_cq(channel)) == NULL) {
			/* Nothing yet; and if mrcd is gone, nothing ever. */
			if (poll(&p[1], 1, 0) == 1 && (p[1].revents & (POLLIN | POLLHUP)) != 0) {
				mrc_lib_dev_died(channel->ctx->dev);
				errno = EIO;
			} else {
				errno = EAGAIN;
			}
			return -1;
		}
	}
	got->events_got++;
	*cq = got;
	*cq_context = got->cq_context;
	return 0;
}

void
mrc_ack_cq_events(struct mrc_cq *cq, unsigned int nevents)
{
	if (cq != NULL)
		cq->events_acked += nevents;
}
