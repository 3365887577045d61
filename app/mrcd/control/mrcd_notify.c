/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: the main lcore (service start, the control loop, reload, drain).
 *
 * sd_notify(3)'s wire format, written by hand: mrcd takes no libsystemd
 * dependency for one sendto(). The datagram is sent without blocking: a
 * service manager that is slow to read must not stall the control loop.
 */

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mrcd_log.h"
#include "mrcd_notify.h"

int
mrcd_notify_addr(const char *value, struct sockaddr_un *addr, socklen_t *len)
{
	const size_t n = value != NULL ? strlen(value) : 0;

	memset(addr, 0, sizeof(*addr));
	addr->sun_family = AF_UNIX;
	if (n < 2 || (value[0] != '/' && value[0] != '@'))
		return -EINVAL;
	/* A path needs its terminating NUL inside sun_path; an abstract name does not. */
	if (n > sizeof(addr->sun_path) - (value[0] == '/' ? 1 : 0))
		return -ENAMETOOLONG;
	memcpy(addr->sun_path, value, n);
	if (value[0] == '@')
		addr->sun_path[0] = '\0';
	*len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + (value[0] == '/' ? 1 : 0));
	return 0;
}

int
mrcd_notify_open(struct mrcd_notify *n)
{
	const char *v = getenv("NOTIFY_SOCKET");
	int rc;

	memset(n, 0, sizeof(*n));
	n->fd = -1;
	if (v == NULL || v[0] == '\0')
		return 0;
	rc = mrcd_notify_addr(v, &n->addr, &n->addr_len);
	if (rc != 0) {
		MRCD_LOG(ctrl, WARNING,
			"NOTIFY_SOCKET=%s: not a socket path nor an abstract name (@...): %s; "
			"systemd is not told of readiness",
			v, strerror(-rc));
		return rc;
	}
	n->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (n->fd < 0) {
		rc = -errno;
		MRCD_LOG(ctrl, WARNING, "NOTIFY_SOCKET=%s: socket: %s", v, strerror(errno));
		return rc;
	}
	return 0;
}

int
mrcd_notify_send(struct mrcd_notify *n, const char *msg)
{
	if (n->fd < 0)
		return 0;
	if (sendto(n->fd, msg, strlen(msg), MSG_DONTWAIT | MSG_NOSIGNAL,
		    (const struct sockaddr *)&n->addr, n->addr_len) < 0) {
		const int rc = -errno;

		/* The first failure is said; the rest only counted. */
		if (n->failed++ == 0)
			MRCD_LOG(ctrl, WARNING, "NOTIFY_SOCKET: cannot send '%.40s': %s", msg,
				strerror(-rc));
		return rc;
	}
	n->sent++;
	return 0;
}

uint64_t
mrcd_notify_monotonic_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

void
mrcd_notify_close(struct mrcd_notify *n)
{
	if (n->fd >= 0)
		close(n->fd);
	n->fd = -1;
}
