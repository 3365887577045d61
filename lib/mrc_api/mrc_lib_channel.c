/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * lib_mrc: completion channels, a datagram socket mrcd sends a byte on when
 * an armed CQ gets an entry, and the calls that arm a CQ and take its events. Apart
 * from the CQs themselves (mrc_lib_cq.c) because a program that only polls
 * never touches any of it.
 */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "mrc_lib_priv.h"

/*
 * ---- completion channels: one end of an AF_UNIX SOCK_DGRAM socket pair,
 * mrcd holding the other and sending a byte on it (MSG_DONTWAIT) when an
 * armed CQ gets an entry ----
 */

int
mrc_create_comp_channel(struct mrc_context *c, struct mrc_comp_channel **channel)
{
	struct mrc_chan_req r = {.op = MRC_CHAN_CREATE_CHANNEL};
	struct mrc_chan_rep rep;
	struct mrc_comp_channel *ch;
	int sv[2];

	if (c == NULL || channel == NULL) {
		errno = EINVAL;
		return -1;
	}
	ch = calloc(1, sizeof(*ch));
	if (ch == NULL)
		return -1;
	ch->ctx = c;
	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv) != 0) {
		free(ch);
		return -1;
	}
	/* sv[1] goes to mrcd, sv[0] is the channel's fd */
	if (mrc_lib_rpc(c->dev, &r, sv[1], &rep, NULL) != 0) {
		const int err = errno;

		close(sv[0]);
		close(sv[1]);
		free(ch);
		errno = err;
		return -1;
	}
	close(sv[1]);
	ch->fd = sv[0];
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
	if (channel == NULL) {
		errno = EINVAL;
		return -1;
	}
	for (unsigned int k = 0; k < MRC_LIB_MAX_CQS; k++)
		if (channel->ctx->cqs[k] != NULL && channel->ctx->cqs[k]->channel == channel) {
			errno = EBUSY;
			return -1;
		}
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

/* Take every byte mrcd sent on the channel; how many. */
static unsigned int
drain(int fd)
{
	unsigned int n = 0;
	uint8_t b;

	while (recv(fd, &b, sizeof(b), MSG_DONTWAIT) >= 0)
		n++;
	return n;
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
		int ready = 0;

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
		if (drain(channel->fd) == 0 && (flags & O_NONBLOCK) != 0 &&
			(got = fired_cq(channel)) == NULL) {
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
