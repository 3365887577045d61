/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: the control thread (mrcd_apps.h). The application socket: it
 * accepts sessions, reads their requests and hands each to its handler
 * (regions: mrcd_apps_mr.c, CQs and channels: mrcd_apps_cq.c, QPs:
 * mrcd_apps_qp.c), replies, and ends a session with everything it made.
 * Owns the listening socket and the sessions' slots.
 *
 * A request is read whole (SOCK_SEQPACKET), copied and checked
 * (mrc_chan_req_check) before anything is looked at; every number in it
 * (CQ, QP, key) is looked up among the session's own objects, so an
 * application reaches nothing of another's. The workers are reached through
 * their shard's request ring only (mrcd_apps_call.c). Who the application
 * is (pid, uid) comes from the kernel (SO_PEERCRED) at accept, never from
 * what its HELLO says: logs and /mrc/apps name the process an operator may
 * act on.
 */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_ring.h>

#include "mrcd_apps.h"
#include "mrcd_apps_ctl.h"
#include "mrcd_apps_priv.h"
#include "mrcd_config.h"
#include "mrcd_log.h"
#include "mrcd_recover.h"

/* ---- replies ---- */

static void
reply(struct mrcd_app_session *s, struct mrc_chan_rep *rep, int fd)
{
	struct msghdr m = {0};
	struct iovec iov = {.iov_base = rep, .iov_len = sizeof(*rep)};
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;

	rep->magic = MRC_CHAN_MAGIC;
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	if (fd >= 0) {
		struct cmsghdr *cm;

		memset(&u, 0, sizeof(u));
		m.msg_control = u.buf;
		m.msg_controllen = sizeof(u.buf);
		cm = CMSG_FIRSTHDR(&m);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	}
	/* A full socket buffer means an application that does not read its replies: it loses. */
	if (sendmsg(s->fd, &m, MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
		s->closing = true;
}

int __rte_format_printf(3, 4)
	mrcd_apps_fail(struct mrc_chan_rep *rep, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rep->msg, sizeof(rep->msg), fmt, ap);
	va_end(ap);
	rep->rc = -err;
	return -err;
}

/* Shared memory mrcd makes for a CQ or QP: sealed, so the application cannot resize it. */
uint8_t *
mrcd_apps_make_shm(const char *name, size_t bytes, int *fd)
{
	uint8_t *p;

	*fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (*fd < 0)
		return NULL;
	if (ftruncate(*fd, (off_t)bytes) != 0 ||
		fcntl(*fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0)
		goto bad;
	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
	if (p == MAP_FAILED)
		goto bad;
	return p;
bad:
	close(*fd);
	*fd = -1;
	return NULL;
}

/* ---- requests ---- */

static int
do_hello(struct mrcd_apps *a, struct mrcd_app_session *s, const struct mrc_chan_req *r,
	struct mrc_chan_rep *rep)
{
	struct mrcd_daemon *d = a->d;
	const unsigned int c = r->u.hello.host, first = d->cfg.daemon.first_host;
	struct mrc_qp_addr addr;

	rep->u.hello.version = MRC_CHAN_VERSION;
	rep->u.hello.first_host = first;
	rep->u.hello.n_hosts = d->n_hosts;
	/*
	 * Once: the session's regions and QPs live in its host's tables, and
	 * letting them go looks them up there (mrcd_apps_release_mr).
	 */
	if (s->hello)
		return mrcd_apps_fail(rep, EPROTO,
			"a session attaches to one host: this one is on host %u", first + s->host);
	if (r->u.hello.version != MRC_CHAN_VERSION) {
		s->closing = true;
		return mrcd_apps_fail(rep, EPROTO,
			"mrcd speaks application channel version %u, this lib_mrc version %u: "
			"use the lib_mrc of this mrcd",
			MRC_CHAN_VERSION, r->u.hello.version);
	}
	if (c < first || c >= first + d->n_hosts)
		return mrcd_apps_fail(rep, ENODEV, "host %u is not one of this mrcd's (%u..%u)", c,
			first, first + d->n_hosts - 1);
	if (mrcd_config_qp_addr(&d->cfg, c, c == 0 ? 1 : 0, &addr) != 0)
		return mrcd_apps_fail(
			rep, ENODEV, "host %u has no address to a peer (one host only?)", c);
	s->host = c - first;
	s->hello = true;
	rep->u.hello.host = c;
	rep->u.hello.n_workers = d->n_workers;
	rep->u.hello.mtu = d->cfg.transport.mtu;
	memcpy(rep->u.hello.gid, addr.src_ip, 16);
	rep->u.hello.max_qps = MRCD_APPS_SESSION_QPS;
	rep->u.hello.max_mrs = MRCD_APPS_SESSION_MRS;
	rep->u.hello.max_mr_bytes = MRCD_APPS_SESSION_MR_BYTES;
	MRCD_LOG(ctrl, NOTICE, "application pid %d (uid %u) attached to host %u (session %u)",
		(int)s->pid, (unsigned int)s->uid, c, s->id);
	/* Another PID namespace numbers it otherwise; anything else is not the truth. */
	if (r->u.hello.pid != (uint32_t)s->pid)
		MRCD_LOG(ctrl, INFO,
			"application session %u says it is pid %u; the kernel says %d, "
			"which is the one shown (another PID namespace?)",
			s->id, r->u.hello.pid, (int)s->pid);
	return 0;
}

static int
serve(struct mrcd_apps *a, struct mrcd_app_session *s, const struct mrc_chan_req *r, int fd,
	struct mrc_chan_rep *rep, int *out_fd)
{
	if (!s->hello && r->op != MRC_CHAN_HELLO) {
		s->closing = true;
		return mrcd_apps_fail(rep, EPROTO, "the first request must be HELLO");
	}
	switch (r->op) {
	case MRC_CHAN_HELLO:
		return do_hello(a, s, r, rep);
	case MRC_CHAN_REG_MR:
		return mrcd_apps_reg_mr(a, s, r, fd, rep);
	case MRC_CHAN_DEREG_MR:
		return mrcd_apps_dereg_mr(a, s, r, rep);
	case MRC_CHAN_CREATE_CHANNEL:
		return mrcd_apps_create_channel(s, fd, rep, out_fd);
	case MRC_CHAN_DESTROY_CHANNEL:
		return mrcd_apps_destroy_channel(s, r, rep);
	case MRC_CHAN_CREATE_CQ:
		return mrcd_apps_create_cq(a, s, r, rep, out_fd);
	case MRC_CHAN_DESTROY_CQ:
		return mrcd_apps_destroy_cq(s, r, rep);
	case MRC_CHAN_CREATE_QP:
		return mrcd_apps_create_qp(a, s, r, rep, out_fd);
	case MRC_CHAN_MODIFY_QP:
		return mrcd_apps_modify_qp(a, s, r, rep);
	case MRC_CHAN_DESTROY_QP: {
		struct mrcd_app_qp *q = mrcd_apps_find_qp(s, r->u.destroy_qp.qpn);

		if (q == NULL)
			return mrcd_apps_fail(rep, EINVAL,
				"QP 0x%x is not one of this application's", r->u.destroy_qp.qpn);
		mrcd_apps_qp_free(a, q);
		return 0;
	}
	default:
		return mrcd_apps_fail(rep, EINVAL, "operation %u", r->op);
	}
}

/* One message from the session's socket; false when there is none (or it ended). */
static bool
read_one(struct mrcd_apps *a, struct mrcd_app_session *s)
{
	union {
		struct mrc_chan_req r;
		uint8_t b[sizeof(struct mrc_chan_req) + 64];
	} buf;
	union {
		char c[CMSG_SPACE(4 * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = {.iov_base = buf.b, .iov_len = sizeof(buf.b)};
	struct msghdr m = {.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = u.c,
		.msg_controllen = sizeof(u.c)};
	struct mrc_chan_rep rep;
	struct mrc_chan_req r;
	enum mrc_chan_refusal why;
	int fd = -1, out_fd = -1;
	ssize_t n;

	n = recvmsg(s->fd, &m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return false;
	if (n <= 0) {
		s->closing = true; /* the application's end: gone */
		return false;
	}
	/* Every fd that came is ours to close; only REG_MR's first is used. */
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(&m); cm != NULL; cm = CMSG_NXTHDR(&m, cm))
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS)
			for (size_t k = 0; k < (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int); k++) {
				int f;

				memcpy(&f, CMSG_DATA(cm) + k * sizeof(int), sizeof(int));
				if (fd < 0)
					fd = f;
				else
					close(f);
			}
	memset(&rep, 0, sizeof(rep));
	s->requests++;
	why = (m.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) ? MRC_CHAN_REF_msg_size
						       : mrc_chan_req_check(buf.b, (size_t)n, &r);
	if (why != MRC_CHAN_REF_NONE) {
		s->refused[why]++;
		mrcd_apps_fail(&rep, EINVAL, "request refused: %s", mrc_chan_refusal_name(why));
		rep.op = why == MRC_CHAN_REF_msg_size ? 0 : r.op;
		rep.seq = why == MRC_CHAN_REF_msg_size ? 0 : r.seq;
	} else {
		rep.op = r.op;
		rep.seq = r.seq;
		pthread_mutex_lock(&a->lock);
		serve(a, s, &r, fd, &rep, &out_fd);
		pthread_mutex_unlock(&a->lock);
	}
	if (fd >= 0)
		close(fd);			   /* a region keeps its mapping, not the fd */
	reply(s, &rep, rep.rc == 0 ? out_fd : -1); /* a refusal hands over nothing */
	if (out_fd >= 0)
		close(out_fd);
	return !s->closing;
}

/* The session's end: its QPs out (flushed), its CQs unmapped, its regions released. */
static void
end_session(struct mrcd_apps *a, struct mrcd_app_session *s)
{
	bool all = true;

	pthread_mutex_lock(&a->lock);
	if (s->fd >= 0) {
		close(s->fd);
		s->fd = -1;
		MRCD_LOG(ctrl, NOTICE,
			"application pid %d (session %u) gone: its QPs to ERROR, "
			"its regions released",
			(int)s->pid, s->id);
	}
	for (unsigned int k = 0; k < RTE_DIM(s->qp); k++)
		if (s->qp[k].qpn != 0)
			mrcd_apps_qp_free(a, &s->qp[k]);
	for (unsigned int k = 0; k < RTE_DIM(s->cq); k++)
		if (s->cq[k].id != 0) {
			munmap(s->cq[k].shm, s->cq[k].bytes);
			memset(&s->cq[k], 0, sizeof(s->cq[k]));
		}
	for (unsigned int k = 0; k < RTE_DIM(s->chan_fd); k++)
		if (s->chan_fd[k] >= 0) {
			close(s->chan_fd[k]);
			s->chan_fd[k] = -1;
		}
	for (unsigned int k = 0; k < RTE_DIM(s->mr); k++)
		if (s->mr[k].map != NULL && !mrcd_apps_release_mr(a, s, &s->mr[k]))
			all = false;
	if (all)
		s->used = false;
	pthread_mutex_unlock(&a->lock);
}

/* Take the connections waiting; true if there was any. */
static bool
accept_new(struct mrcd_apps *a, uint64_t now)
{
	for (bool any = false;; any = true) {
		const int fd = accept4(a->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct mrcd_app_session *s = NULL;
		struct ucred cred;
		socklen_t cred_len = sizeof(cred);

		if (fd < 0)
			return any;
		for (unsigned int k = 0; k < RTE_DIM(a->sess) && s == NULL; k++)
			if (!a->sess[k].used)
				s = &a->sess[k];
		/* no slot, or a peer nobody can name (as the control socket refuses it) */
		if (s == NULL || getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cred_len) != 0) {
			a->sessions_refused++;
			close(fd); /* the application sees its connection end before HELLO */
			continue;
		}
		pthread_mutex_lock(&a->lock);
		memset(s, 0, sizeof(*s));
		for (unsigned int k = 0; k < RTE_DIM(s->chan_fd); k++)
			s->chan_fd[k] = -1;
		s->used = true;
		s->fd = fd;
		s->pid = cred.pid;
		s->uid = cred.uid;
		s->id = ++a->next_id;
		s->hello_by_tsc = now + a->d->hz * MRCD_APPS_HELLO_MS / 1000;
		a->sessions_total++;
		pthread_mutex_unlock(&a->lock);
	}
}

bool
mrcd_apps_tick(struct mrcd_daemon *d, uint64_t now)
{
	struct mrcd_apps *a = d->apps;
	bool busy;

	if (a == NULL)
		return false;
	busy = mrcd_apps_wake_channels(a) > 0;
	busy |= accept_new(a, now);
	for (unsigned int k = 0; k < RTE_DIM(a->sess); k++) {
		struct mrcd_app_session *s = &a->sess[k];
		unsigned int n = 0;

		if (!s->used)
			continue;
		/* a few requests per session per tick: one application cannot starve the others */
		while (n < 16 && s->fd >= 0 && read_one(a, s))
			n++;
		if (!s->hello && !s->closing && now >= s->hello_by_tsc) {
			a->sessions_no_hello++;
			MRCD_LOG(ctrl, WARNING,
				"application session %u closed: no HELLO within %u ms", s->id,
				MRCD_APPS_HELLO_MS);
			s->closing = true;
		}
		busy |= n > 0 || s->closing;
		if (s->closing)
			end_session(a, s);
		else
			mrcd_apps_reap(a, s);
	}
	return busy;
}

unsigned int
mrcd_apps_pollfds(const struct mrcd_daemon *d, struct pollfd *p, unsigned int room)
{
	const struct mrcd_apps *a = d->apps;
	unsigned int n = 0;

	if (a == NULL || room == 0)
		return 0;
	p[n++] = (struct pollfd){.fd = a->lfd, .events = POLLIN};
	for (unsigned int k = 0; k < RTE_DIM(a->sess) && n < room; k++)
		if (a->sess[k].used && a->sess[k].fd >= 0)
			p[n++] = (struct pollfd){.fd = a->sess[k].fd, .events = POLLIN};
	return n;
}

int
mrcd_apps_open(struct mrcd_daemon *d)
{
	const char *path = d->cfg.daemon.apps_socket;
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct mrcd_apps *a;
	int fd;

	if (strcmp(path, "none") == 0 || path[0] == '\0')
		return 0;
	if (strlen(path) >= sizeof(sa.sun_path)) {
		MRCD_LOG(ctrl, ERR, "[daemon] apps_socket %s: longer than %zu bytes", path,
			sizeof(sa.sun_path) - 1);
		return -EINVAL;
	}
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* A socket another mrcd answers on is left to it; a stale one is replaced. */
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
		MRCD_LOG(ctrl, WARNING,
			"[daemon] apps_socket %s: another mrcd serves it; no applications here",
			path);
		close(fd);
		return 0;
	}
	close(fd);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	unlink(path);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 || listen(fd, 16) != 0) {
		MRCD_LOG(ctrl, WARNING, "[daemon] apps_socket %s: %s; no applications here", path,
			strerror(errno));
		if (fd >= 0)
			close(fd);
		return 0;
	}
	a = calloc(1, sizeof(*a));
	if (a == NULL) {
		close(fd);
		return -ENOMEM;
	}
	a->d = d;
	a->lfd = fd;
	snprintf(a->path, sizeof(a->path), "%s", path);
	pthread_mutex_init(&a->lock, NULL);
	a->qpn_first = MRCD_QPN_BASE + 2 * d->n_cluster_flows +
		       2 * mrcd_recover_spares(d->n_cluster_flows);
	mrc_rand_seed(&a->rand, d->cfg.daemon.seed * 7777u + 1);
	d->apps = a;
	a->wakes = rte_ring_create("mrcd_app_wakes", 4096, (int)rte_socket_id(), RING_F_SC_DEQ);
	if (a->wakes == NULL) {
		mrcd_apps_close(d);
		return -ENOMEM;
	}
	d->apps = a;
	/* The IOVA mode decides whether a NIC may send from application memory (mrcd_apps_dma.h).
	 */
	MRCD_LOG(ctrl, NOTICE, "applications: socket %s (channel version %u, IOVA as %s)", path,
		MRC_CHAN_VERSION, rte_eal_iova_mode() == RTE_IOVA_VA ? "VA" : "PA");
	return 0;
}

void
mrcd_apps_close(struct mrcd_daemon *d)
{
	struct mrcd_apps *a = d->apps;

	if (a == NULL)
		return;
	for (unsigned int k = 0; k < RTE_DIM(a->sess); k++)
		if (a->sess[k].used) {
			a->sess[k].closing = true;
			end_session(a, &a->sess[k]);
		}
	close(a->lfd);
	unlink(a->path);
	rte_ring_free(a->wakes);
	d->apps = NULL;
	pthread_mutex_destroy(&a->lock);
	free(a);
}
