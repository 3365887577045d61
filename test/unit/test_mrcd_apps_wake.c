/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * An application's armed CQ that gets an entry wakes its completion channel
 * (app/mrcd/apps): the worker spends the arming and hands a token to the
 * control thread on one ring all applications share, and the control
 * thread sends a byte on the channel, one end of a datagram socket pair the
 * application made. When that ring is full (other applications' wake-ups),
 * the wake-up must still come: the arming is spent, so nothing else would
 * wake the application, which would wait in mrc_get_cq_event for good.
 *
 * The control thread is every tenant's control plane: no application may
 * make it wait. The channel's socket is shared with the application, which
 * can clear O_NONBLOCK on it and leave its queue full; a wake-up must still
 * return at once. A channel mrcd could be made to block on (an eventfd) is
 * refused.
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rte_ring.h>

#include "mrc_test.h"
#include "mrc_test_qp.h"
#include "mrcd_apps.h"
#include "mrcd_apps_ctl.h"
#include "mrcd_apps_priv.h"

#define N_CQS 3

/* Bytes waiting on the application's end of a channel, taken. */
static unsigned int
take(int fd)
{
	unsigned int n = 0;
	uint8_t b;

	while (recv(fd, &b, sizeof(b), MSG_DONTWAIT) == 1)
		n++;
	return n;
}

/* A channel as lib_mrc makes it: mrcd keeps its end, *mine is the application's. */
static int
make_channel(struct mrcd_app_session *s, int *mine, int *theirs)
{
	struct mrc_chan_rep rep = {0};
	int sv[2];

	*mine = *theirs = -1;
	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv) != 0)
		return -errno;
	*mine = sv[0];
	*theirs = sv[1];
	if (mrcd_apps_create_channel(s, sv[1], &rep) != 0) {
		fprintf(stderr, "  the channel refused: %s\n", rep.msg);
		return rep.rc;
	}
	return (int)rep.u.create_channel.channel;
}

static int
test_wake_up_owed_when_the_ring_is_full(void)
{
	static struct mrc_chan_cq_status st[N_CQS];
	struct mrcd_apps *a;
	struct mrcd_app_session *s;
	int mine[N_CQS], theirs;

	MRC_T_EQ(mrc_test_eal_init("test_mrcd_apps_wake"), 0);
	a = calloc(1, sizeof(*a));
	MRC_T_ASSERT(a != NULL, "calloc");
	/* a ring of 2 holds one wake-up: the others find it full */
	a->wakes = rte_ring_create("apw_wakes", 2, SOCKET_ID_ANY, RING_F_SC_DEQ);
	MRC_T_ASSERT(a->wakes != NULL, "ring");
	s = &a->sess[0];
	s->used = true;
	for (unsigned int i = 0; i < MRCD_APPS_SESSION_CHANNELS; i++)
		s->chan_fd[i] = -1;
	for (unsigned int i = 0; i < N_CQS; i++) {
		struct mrcd_app_cq *cq = &s->cq[i];

		MRC_T_EQ(make_channel(s, &mine[i], &theirs), i + 1);
		close(theirs);
		cq->id = i + 1;
		cq->channel = i + 1;
		cq->shm = (uint8_t *)&st[i];
		cq->wakes = a->wakes;
		cq->token = (void *)((uintptr_t)i + 1); /* session 0, CQ i */
		cq->owed = &a->wakes_owed;
		st[i].armed = 1;
	}
	for (unsigned int i = 0; i < N_CQS; i++)
		mrcd_apps_cq_notify(&s->cq[i]);
	MRC_T_EQ(s->cq[1].wakes_dropped + s->cq[2].wakes_dropped, 2);
	MRC_T_EQ(mrcd_apps_wake_channels(a), N_CQS);
	for (unsigned int i = 0; i < N_CQS; i++) {
		MRC_T_ASSERT(take(mine[i]) == 1, "channel %u not woken once", i + 1);
		MRC_T_EQ(st[i].fired, 1);
		MRC_T_EQ(st[i].armed, 0);
	}
	/* Once: nothing is owed any more. */
	MRC_T_EQ(mrcd_apps_wake_channels(a), 0);
	for (unsigned int i = 0; i < N_CQS; i++) {
		MRC_T_ASSERT(take(mine[i]) == 0, "channel %u woken twice", i + 1);
		close(mine[i]);
		close(s->chan_fd[i]);
	}
	rte_ring_free(a->wakes);
	free(a);
	return MRC_TEST_OK;
}

static void
wake_blocked(int sig)
{
	static const char m[] = "  FAIL: a wake-up blocked the control thread for 10 s\n";

	(void)sig;
	if (write(STDERR_FILENO, m, sizeof(m) - 1) < 0)
		_exit(1);
	_exit(1);
}

/*
 * A hostile application: its channel's socket in blocking mode (both ends:
 * it kept a copy of the one it handed over, which shares mrcd's open file
 * description) and its queue full, for it never takes a byte. Every
 * wake-up must still return at once (a watchdog fails the test rather than
 * hang it), the ones the full queue cannot take counted; once it takes its
 * bytes, the next wake-up comes.
 */
static int
test_a_full_blocking_channel_does_not_block_control(void)
{
	static struct mrc_chan_cq_status st;
	const unsigned int tries = 5000; /* more than any queue limit holds */
	struct mrcd_apps *a;
	struct mrcd_app_session *s;
	struct mrcd_app_cq *cq;
	struct pollfd p;
	int mine, theirs;

	MRC_T_EQ(mrc_test_eal_init("test_mrcd_apps_wake"), 0);
	a = calloc(1, sizeof(*a));
	MRC_T_ASSERT(a != NULL, "calloc");
	a->wakes = rte_ring_create("apw_wakes_full", 64, SOCKET_ID_ANY, RING_F_SC_DEQ);
	MRC_T_ASSERT(a->wakes != NULL, "ring");
	s = &a->sess[0];
	s->used = true;
	for (unsigned int i = 0; i < MRCD_APPS_SESSION_CHANNELS; i++)
		s->chan_fd[i] = -1;
	MRC_T_EQ(make_channel(s, &mine, &theirs), 1);
	MRC_T_EQ(fcntl(theirs, F_SETFL, fcntl(theirs, F_GETFL) & ~O_NONBLOCK), 0);
	MRC_T_EQ(fcntl(mine, F_SETFL, fcntl(mine, F_GETFL) & ~O_NONBLOCK), 0);
	MRC_T_EQ(fcntl(s->chan_fd[0], F_GETFL) & O_NONBLOCK, 0);
	cq = &s->cq[0];
	cq->id = 1;
	cq->channel = 1;
	cq->shm = (uint8_t *)&st;
	cq->wakes = a->wakes;
	cq->token = (void *)(uintptr_t)1; /* session 0, CQ 0 */
	cq->owed = &a->wakes_owed;

	signal(SIGALRM, wake_blocked);
	alarm(10);
	for (unsigned int i = 0; i < tries; i++) {
		st.armed = 1;
		mrcd_apps_cq_notify(cq);
		MRC_T_EQ(mrcd_apps_wake_channels(a), 1);
	}
	alarm(0);
	signal(SIGALRM, SIG_DFL);
	MRC_T_ASSERT(
		a->wakes_pending > 0, "the queue never filled (%" PRIu64 " sent)", a->wakes_sent);
	MRC_T_U64_EQ(a->wakes_sent + a->wakes_pending, tries);
	printf("  %" PRIu64 " wake-ups queued, %" PRIu64 " found the queue full\n", a->wakes_sent,
		a->wakes_pending);

	/* The application takes its bytes: the next wake-up reaches it. */
	p = (struct pollfd){.fd = mine, .events = POLLIN};
	MRC_T_EQ(poll(&p, 1, 0), 1);
	MRC_T_U64_EQ(take(mine), a->wakes_sent);
	st.armed = 1;
	mrcd_apps_cq_notify(cq);
	MRC_T_EQ(mrcd_apps_wake_channels(a), 1);
	MRC_T_EQ(take(mine), 1);

	/* mrcd's end is shut for reading: the application cannot fill it. */
	MRC_T_ASSERT(send(mine, "x", 1, MSG_DONTWAIT | MSG_NOSIGNAL) < 0 && errno == EPIPE,
		"the application sent into mrcd's end");
	close(mine);
	close(theirs);
	close(s->chan_fd[0]);
	rte_ring_free(a->wakes);
	free(a);
	return MRC_TEST_OK;
}

/* Anything but an AF_UNIX SOCK_DGRAM socket is refused with EINVAL, and kept nowhere. */
static int
test_a_channel_must_be_a_datagram_socket(void)
{
	struct mrcd_app_session *s;
	struct {
		const char *what;
		int fd, other;
	} bad[4];
	int sv[2], pv[2];

	s = calloc(1, sizeof(*s));
	MRC_T_ASSERT(s != NULL, "calloc");
	for (unsigned int i = 0; i < MRCD_APPS_SESSION_CHANNELS; i++)
		s->chan_fd[i] = -1;
	bad[0].what = "an eventfd";
	bad[0].fd = eventfd(0, EFD_CLOEXEC);
	bad[0].other = -1;
	MRC_T_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	bad[1].what = "a stream socket";
	bad[1].fd = sv[0];
	bad[1].other = sv[1];
	MRC_T_EQ(pipe2(pv, O_CLOEXEC), 0);
	bad[2].what = "a pipe";
	bad[2].fd = pv[1];
	bad[2].other = pv[0];
	bad[3].what = "no fd";
	bad[3].fd = -1;
	bad[3].other = -1;
	MRC_T_ASSERT(bad[0].fd >= 0, "eventfd");
	for (unsigned int i = 0; i < RTE_DIM(bad); i++) {
		struct mrc_chan_rep rep = {0};

		MRC_T_ASSERT(mrcd_apps_create_channel(s, bad[i].fd, &rep) == -EINVAL &&
				     rep.rc == -EINVAL,
			"%s taken for a channel", bad[i].what);
		MRC_T_ASSERT(strstr(rep.msg, "AF_UNIX SOCK_DGRAM") != NULL, "%s: \"%s\"",
			bad[i].what, rep.msg);
		if (bad[i].fd >= 0)
			close(bad[i].fd);
		if (bad[i].other >= 0)
			close(bad[i].other);
	}
	for (unsigned int i = 0; i < MRCD_APPS_SESSION_CHANNELS; i++)
		MRC_T_EQ(s->chan_fd[i], -1);
	free(s);
	return MRC_TEST_OK;
}

static const struct mrc_test_case cases[] = {
	MRC_TEST_CASE(test_wake_up_owed_when_the_ring_is_full),
	MRC_TEST_CASE(test_a_full_blocking_channel_does_not_block_control),
	MRC_TEST_CASE(test_a_channel_must_be_a_datagram_socket),
};

MRC_TEST_MAIN("mrcd_apps_wake", cases)
