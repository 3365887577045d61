/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * An application's armed CQ that gets an entry wakes its completion channel
 * (app/mrcd/apps): the worker spends the arming and hands a token to the
 * control thread on one ring all applications share, and the control
 * thread writes a byte on the channel, a pipe whose write end mrcd keeps
 * and whose read end the application got. When that ring is full (other
 * applications' wake-ups), the wake-up must still come: the arming is
 * spent, so nothing else would wake the application, which would wait in
 * mrc_get_cq_event for good.
 *
 * The control thread is every tenant's control plane: no application may
 * make it wait, nor use it to write anywhere but its own channel. The
 * application holds the read end only: it can set it blocking and never
 * read, or close it, and a wake-up must still return at once; it can
 * neither write the pipe nor point mrcd's writes elsewhere.
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
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <rte_ring.h>

#include "mrc_test.h"
#include "mrc_test_qp.h"
#include "mrcd_apps.h"
#include "mrcd_apps_ctl.h"
#include "mrcd_apps_priv.h"

#define N_CQS 3

/* Bytes waiting in the application's end of a channel, taken (never waiting on a blocking one). */
static unsigned int
take(int fd)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	unsigned int n = 0;
	uint8_t b[256];
	ssize_t got;

	while (poll(&p, 1, 0) == 1 && (p.revents & POLLIN) != 0 &&
		(got = read(fd, b, sizeof(b))) > 0)
		n += (unsigned int)got;
	return n;
}

/*
 * A channel as mrcd makes it: it keeps the write end, *mine is the read end
 * its reply carries (mrcd closes its copy once sent; here the one fd is the
 * application's).
 */
static int
make_channel(struct mrcd_app_session *s, int *mine)
{
	struct mrc_chan_rep rep = {0};

	if (mrcd_apps_create_channel(s, -1, &rep, mine) != 0) {
		fprintf(stderr, "  the channel refused: %s\n", rep.msg);
		return rep.rc;
	}
	if (*mine < 0)
		return -EPROTO;
	return (int)rep.u.create_channel.channel;
}

static int
test_wake_up_owed_when_the_ring_is_full(void)
{
	static struct mrc_chan_cq_status st[N_CQS];
	struct mrcd_apps *a;
	struct mrcd_app_session *s;
	int mine[N_CQS];

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

		MRC_T_EQ(make_channel(s, &mine[i]), i + 1);
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
 * A hostile application: it sets its read end of the channel blocking and
 * never reads, so the pipe fills. Every wake-up must still return at once
 * (a watchdog fails the test rather than hang it), the ones the full pipe
 * cannot take counted; once it reads its bytes, the next wake-up comes; once
 * it closes its read end, a wake-up fails with EPIPE, counted, and the
 * process lives on (mrcd ignores SIGPIPE: mrcd_signals_catch; so does this
 * test).
 */
static int
test_a_full_blocking_channel_does_not_block_control(void)
{
	static struct mrc_chan_cq_status st;
	const unsigned int tries = 5000; /* more than the channel's pipe holds */
	struct mrcd_apps *a;
	struct mrcd_app_session *s;
	struct mrcd_app_cq *cq;
	struct pollfd p;
	int mine;

	MRC_T_EQ(mrc_test_eal_init("test_mrcd_apps_wake"), 0);
	MRC_T_ASSERT(signal(SIGPIPE, SIG_IGN) != SIG_ERR, "SIGPIPE");
	a = calloc(1, sizeof(*a));
	MRC_T_ASSERT(a != NULL, "calloc");
	a->wakes = rte_ring_create("apw_wakes_full", 64, SOCKET_ID_ANY, RING_F_SC_DEQ);
	MRC_T_ASSERT(a->wakes != NULL, "ring");
	s = &a->sess[0];
	s->used = true;
	for (unsigned int i = 0; i < MRCD_APPS_SESSION_CHANNELS; i++)
		s->chan_fd[i] = -1;
	MRC_T_EQ(make_channel(s, &mine), 1);
	MRC_T_EQ(fcntl(mine, F_SETFL, fcntl(mine, F_GETFL) & ~O_NONBLOCK), 0);
	MRC_T_EQ(fcntl(mine, F_GETFL) & O_NONBLOCK, 0);
	/* mrcd's end: a file description of its own, untouched by the application's flags */
	MRC_T_EQ(fcntl(s->chan_fd[0], F_GETFL) & O_NONBLOCK, O_NONBLOCK);
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
		a->wakes_pending > 0, "the pipe never filled (%" PRIu64 " written)", a->wakes_sent);
	MRC_T_U64_EQ(a->wakes_sent + a->wakes_pending, tries);
	MRC_T_U64_EQ(a->wakes_failed, 0);
	printf("  %" PRIu64 " wake-ups written, %" PRIu64 " found the pipe full\n", a->wakes_sent,
		a->wakes_pending);

	/* The application reads its bytes: the next wake-up reaches it. */
	p = (struct pollfd){.fd = mine, .events = POLLIN};
	MRC_T_EQ(poll(&p, 1, 0), 1);
	MRC_T_U64_EQ(take(mine), a->wakes_sent);
	st.armed = 1;
	mrcd_apps_cq_notify(cq);
	MRC_T_EQ(mrcd_apps_wake_channels(a), 1);
	MRC_T_EQ(take(mine), 1);

	/* The application closes its read end: the wake-up returns, EPIPE counted. */
	close(mine);
	st.armed = 1;
	mrcd_apps_cq_notify(cq);
	alarm(10);
	MRC_T_EQ(mrcd_apps_wake_channels(a), 1);
	alarm(0);
	MRC_T_U64_EQ(a->wakes_failed, 1);
	close(s->chan_fd[0]);
	rte_ring_free(a->wakes);
	free(a);
	return MRC_TEST_OK;
}

/*
 * What the application gets is the pipe's read end and nothing else: it
 * cannot write mrcd's pipe, and it is no socket it could connect elsewhere
 * (mrcd's writes go to the application's channel and nowhere else).
 */
static int
test_the_application_gets_the_read_end_only(void)
{
	const struct sockaddr_un log = {.sun_family = AF_UNIX, .sun_path = "/dev/log"};
	struct mrcd_app_session *s;
	struct stat st;
	int mine;

	s = calloc(1, sizeof(*s));
	MRC_T_ASSERT(s != NULL, "calloc");
	for (unsigned int i = 0; i < MRCD_APPS_SESSION_CHANNELS; i++)
		s->chan_fd[i] = -1;
	MRC_T_EQ(make_channel(s, &mine), 1);
	MRC_T_EQ(fcntl(mine, F_GETFL) & O_ACCMODE, O_RDONLY);
	MRC_T_EQ(fcntl(mine, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	MRC_T_EQ(fstat(mine, &st), 0);
	MRC_T_ASSERT(S_ISFIFO(st.st_mode), "the channel is no pipe (mode 0%o)", st.st_mode);
	MRC_T_ASSERT(write(mine, "x", 1) < 0 && errno == EBADF, "the application wrote the pipe");
	MRC_T_ASSERT(
		connect(mine, (const struct sockaddr *)&log, sizeof(log)) < 0 && errno == ENOTSOCK,
		"the channel connects elsewhere");
	MRC_T_EQ(fcntl(s->chan_fd[0], F_GETFL) & (O_ACCMODE | O_NONBLOCK), O_WRONLY | O_NONBLOCK);
	MRC_T_EQ(fcntl(s->chan_fd[0], F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	close(mine);
	close(s->chan_fd[0]);
	free(s);
	return MRC_TEST_OK;
}

/*
 * A channel's request carries no fd: one that comes with any (an old
 * lib_mrc's socket, an eventfd) is refused with EINVAL, no channel made and
 * no fd given back; the fd stays the caller's to close (read_one closes
 * every fd a request brings).
 */
static int
test_a_channel_request_with_an_fd_is_refused(void)
{
	struct mrcd_app_session *s;
	int fds[3], sv[2];

	s = calloc(1, sizeof(*s));
	MRC_T_ASSERT(s != NULL, "calloc");
	for (unsigned int i = 0; i < MRCD_APPS_SESSION_CHANNELS; i++)
		s->chan_fd[i] = -1;
	MRC_T_EQ(socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv), 0);
	fds[0] = sv[0];
	fds[1] = sv[1];
	fds[2] = eventfd(0, EFD_CLOEXEC);
	MRC_T_ASSERT(fds[2] >= 0, "eventfd");
	for (unsigned int i = 0; i < RTE_DIM(fds); i++) {
		struct mrc_chan_rep rep = {0};
		int out = 0;

		MRC_T_EQ(mrcd_apps_create_channel(s, fds[i], &rep, &out), -EINVAL);
		MRC_T_EQ(rep.rc, -EINVAL);
		MRC_T_EQ(out, -1);
		MRC_T_ASSERT(strstr(rep.msg, "carries no fd") != NULL, "\"%s\"", rep.msg);
		MRC_T_ASSERT(fcntl(fds[i], F_GETFD) >= 0, "fd %u closed by the handler", i);
		close(fds[i]);
	}
	for (unsigned int i = 0; i < MRCD_APPS_SESSION_CHANNELS; i++)
		MRC_T_EQ(s->chan_fd[i], -1);
	free(s);
	return MRC_TEST_OK;
}

static const struct mrc_test_case cases[] = {
	MRC_TEST_CASE(test_wake_up_owed_when_the_ring_is_full),
	MRC_TEST_CASE(test_a_full_blocking_channel_does_not_block_control),
	MRC_TEST_CASE(test_the_application_gets_the_read_end_only),
	MRC_TEST_CASE(test_a_channel_request_with_an_fd_is_refused),
};

MRC_TEST_MAIN("mrcd_apps_wake", cases)
