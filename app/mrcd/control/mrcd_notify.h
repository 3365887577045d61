/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRCD_NOTIFY_H
#define MRCD_NOTIFY_H

/*
 * systemd's readiness protocol (sd_notify(3)), spoken without libsystemd:
 * one datagram of "KEY=VALUE" lines to the unix socket $NOTIFY_SOCKET
 * names, a path or, starting with '@', an abstract name. mrcd sends
 * READY=1 once its workers poll, RELOADING=1 (with MONOTONIC_USEC) and
 * READY=1 around a reload, STOPPING=1 as the drain starts, and STATUS=
 * lines with a short live summary (doc/service.md, "Readiness").
 *
 * Control only (the main lcore). Without $NOTIFY_SOCKET every call is a
 * no-op. A send that fails is counted, never retried nor fatal: the
 * service manager is told, not obeyed.
 */

#include <stdint.h>
#include <sys/socket.h>
#include <sys/un.h>

struct mrcd_notify {
	int fd; /* -1: no $NOTIFY_SOCKET, or it could not be used */
	struct sockaddr_un addr;
	socklen_t addr_len;
	uint64_t sent, failed; /* datagrams */
};

/*
 * $NOTIFY_SOCKET's value as an address: "/path" or "@name" (abstract: the
 * '@' becomes the leading NUL byte, and the length counts the name alone,
 * no terminator). 0, or -EINVAL (empty, relative) or -ENAMETOOLONG.
 */
int mrcd_notify_addr(const char *value, struct sockaddr_un *addr, socklen_t *len);

/* Read $NOTIFY_SOCKET and make the socket; 0 when unset too (fd -1). */
int mrcd_notify_open(struct mrcd_notify *n);

/* One datagram of newline-separated assignments; 0, or -errno (counted in failed). */
int mrcd_notify_send(struct mrcd_notify *n, const char *msg);

/* CLOCK_MONOTONIC in microseconds, as MONOTONIC_USEC wants it. */
uint64_t mrcd_notify_monotonic_usec(void);

void mrcd_notify_close(struct mrcd_notify *n);

#endif /* MRCD_NOTIFY_H */
