/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * lib_mrc's request to mrcd (mrc_lib_rpc) against a stand-in for mrcd on the
 * other end of a socket pair: a refusal that comes with an fd must leave
 * none open in the program, whoever asked for one.
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "mrc_chan.h"
#include "mrc_lib_priv.h"
#include "mrc_test.h"

/* The program's open fds. */
static int
open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	if (d == NULL)
		return -1;
	while (readdir(d) != NULL)
		n++;
	closedir(d);
	return n;
}

struct standin {
	int fd;
	int32_t rc; /* the answer */
};

/* Take one request; answer it with rc and an fd (of /dev/null) attached. */
static void *
standin_run(void *arg)
{
	struct standin *st = arg;
	struct mrc_chan_req r;
	struct mrc_chan_rep rep;
	union {
		char b[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = {.iov_base = &rep, .iov_len = sizeof(rep)};
	struct msghdr m = {.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = u.b,
		.msg_controllen = sizeof(u.b)};
	struct cmsghdr *cm;
	int fd;

	if (recv(st->fd, &r, sizeof(r), 0) != (ssize_t)sizeof(r))
		return NULL;
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	memset(&rep, 0, sizeof(rep));
	rep.magic = MRC_CHAN_MAGIC;
	rep.seq = r.seq;
	rep.rc = st->rc;
	memset(&u, 0, sizeof(u));
	cm = CMSG_FIRSTHDR(&m);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	sendmsg(st->fd, &m, MSG_NOSIGNAL);
	close(fd);
	return NULL;
}

/* One request answered rc with an fd: the call's result, errno and fd. */
static int
ask(int32_t rc, bool want_fd, int *ret, int *err, int *got_fd)
{
	static struct mrc_lib_dev dev;
	struct mrc_chan_req r = {.op = MRC_CHAN_CREATE_QP};
	struct mrc_chan_rep rep;
	struct standin st = {.rc = rc};
	pthread_t th;
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
		return -1;
	memset(&dev, 0, sizeof(dev));
	dev.fd = sv[0];
	pthread_mutex_init(&dev.lock, NULL);
	st.fd = sv[1];
	if (pthread_create(&th, NULL, standin_run, &st) != 0)
		return -1;
	*got_fd = -1;
	errno = 0;
	*ret = mrc_lib_rpc(&dev, &r, -1, &rep, want_fd ? got_fd : NULL);
	*err = errno;
	pthread_join(th, NULL);
	close(sv[0]);
	close(sv[1]);
	pthread_mutex_destroy(&dev.lock);
	return 0;
}

static int
test_refusal_with_an_fd_leaves_none(void)
{
	const int before = open_fds();
	int ret, err, fd;

	MRC_T_EQ(ask(-EINVAL, true, &ret, &err, &fd), 0);
	MRC_T_EQ(ret, -1);
	MRC_T_EQ(err, EINVAL);
	MRC_T_EQ(fd, -1);
	MRC_T_EQ(open_fds(), before);
	MRC_T_EQ(ask(-ENOMEM, false, &ret, &err, &fd), 0);
	MRC_T_EQ(ret, -1);
	MRC_T_EQ(err, ENOMEM);
	MRC_T_EQ(open_fds(), before);
	return MRC_TEST_OK;
}

static int
test_yes_with_an_fd_hands_it_over(void)
{
	const int before = open_fds();
	int ret, err, fd;

	MRC_T_EQ(ask(0, true, &ret, &err, &fd), 0);
	MRC_T_EQ(ret, 0);
	MRC_T_ASSERT(fd >= 0, "the reply's fd is the caller's");
	MRC_T_EQ(open_fds(), before + 1);
	close(fd);
	MRC_T_EQ(ask(0, false, &ret, &err, &fd), 0); /* not asked for: closed */
	MRC_T_EQ(ret, 0);
	MRC_T_EQ(open_fds(), before);
	return MRC_TEST_OK;
}

static const struct mrc_test_case cases[] = {
	MRC_TEST_CASE(test_refusal_with_an_fd_leaves_none),
	MRC_TEST_CASE(test_yes_with_an_fd_hands_it_over),
};

MRC_TEST_MAIN("mrc_lib_rpc", cases)
