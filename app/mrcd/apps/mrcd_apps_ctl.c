/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: the control thread (mrcd_apps.h). The application socket: sessions,
 * their requests (regions, CQs, QPs and their states) and their end.
 *
 * A request is read whole (SOCK_SEQPACKET), copied and checked
 * (mrc_chan_req_check) before anything is looked at; every number in it
 * (CQ, QP, key) is looked up among the session's own objects, so an
 * application reaches nothing of another's. The workers are reached through
 * their shard's request ring only (call_owner).
 */

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_pause.h>

#include "mrc_shard.h"
#include "mrcd_apps.h"
#include "mrcd_apps_ctl.h"
#include "mrcd_apps_priv.h"
#include "mrcd_config.h"
#include "mrcd_control.h"
#include "mrcd_log.h"
#include "mrcd_recover.h"

/* ---- the workers, through their shard's request ring ---- */

/* Run fn on the lcore of host h's shard k: through its request ring while the workers run. */
int
mrcd_apps_call_shard(struct mrcd_apps *a, unsigned int h, unsigned int k, mrc_shard_call_fn fn,
	struct mrcd_apps_call *c)
{
	struct mrcd_shardctx *sc = &a->d->host[h].shard[k];
	struct mrc_shard_req r = {.op = MRC_SHARD_CALL, .fn = fn, .arg = c};
	int rc;

	if (__atomic_load_n(&a->d->phase, __ATOMIC_ACQUIRE) == MRCD_EXIT)
		return fn(sc->rt, c); /* the workers are gone: this thread is the only one */
	rc = mrc_shard_request(sc->rt, &r);
	if (rc != 0)
		return rc;
	/* A worker serves its ring every pass (microseconds) and never waits on us. */
	while (!mrc_shard_req_done(&r))
		rte_pause();
	return r.rc;
}

/* On the shard that owns QP q (mrcd_apps_qpn_shard): it alone consumes its rings. */
int
mrcd_apps_call_owner(
	struct mrcd_apps *a, struct mrcd_app_qp *q, mrc_shard_call_fn fn, struct mrcd_apps_call *c)
{
	return mrcd_apps_call_shard(a, q->host, q->shard, fn, c);
}

static int
on_nothing(struct mrc_shard *s, void *arg)
{
	RTE_SET_USED(s);
	RTE_SET_USED(arg);
	return 0;
}

/*
 * Every shard of host h from `first` on has started a pass since this call
 * began: whatever it looked up in the region table before (a key, a region's
 * owner) it is done with. The host's region table is one table every shard
 * reads (mrcd_apps_priv.h), so this is the grace period between taking a
 * region out of it and unmapping its pages.
 */
void
mrcd_apps_host_barrier(struct mrcd_apps *a, unsigned int h, unsigned int first)
{
	struct mrcd_apps_call c = {.a = a};

	/* A full request ring is waited out: a pass skipped would be no grace period. */
	for (unsigned int k = first; k < a->d->host[h].n_shards; k++)
		while (mrcd_apps_call_shard(a, h, k, on_nothing, &c) == -ENOSPC)
			rte_pause();
}

static int
on_add(struct mrc_shard *s, void *arg)
{
	struct mrcd_apps_call *c = arg;
	struct mrcd_apps_worker *w = &c->a->w[c->q->worker];
	int rc;

	if (w->n == RTE_DIM(w->qp))
		return -ENOSPC;
	rc = mrc_shard_add_qp(s, c->q->qp, rte_rdtsc());
	if (rc == 0)
		w->qp[w->n++] = c->q;
	return rc;
}

static int
on_rts(struct mrc_shard *s, void *arg)
{
	struct mrcd_apps_call *c = arg;
	const char *why = NULL;

	return mrc_qp_modify(c->q->qp, MRC_QP_RTS, c->attr, mrc_shard_run_clock(s, rte_rdtsc()),
		&c->a->rand, &why);
}

static int
on_error(struct mrc_shard *s, void *arg)
{
	struct mrcd_apps_call *c = arg;

	mrcd_app_qp_to_error(c->q, MRC_CHAN_QPE_USER, mrc_shard_run_clock(s, rte_rdtsc()));
	return 0;
}

/* Off the worker's list and out of the shard: what it had posted completes flushed. */
static int
on_remove(struct mrc_shard *s, void *arg)
{
	struct mrcd_apps_call *c = arg;
	struct mrcd_apps_worker *w = &c->a->w[c->q->worker];

	for (unsigned int k = 0; k < w->n; k++)
		if (w->qp[k] == c->q) {
			w->qp[k] = w->qp[--w->n];
			break;
		}
	return mrc_shard_retire_qp(s, c->q->qp);
}

static int
on_reg(struct mrc_shard *s, void *arg)
{
	struct mrcd_apps_call *c = arg;
	uint32_t key;

	RTE_SET_USED(s);
	key = mrc_mr_register_va(
		c->mrs, c->mr->map + (c->mr->addr & 4095), c->mr->addr, c->mr->len, 0, c->access);
	return key != 0 ? (int)(key & 0x7fffffff) : -rte_errno;
}

/* The key stops matching on the lcore that checks it, once no packet holds the memory. */
static int
on_dereg(struct mrc_shard *s, void *arg)
{
	struct mrcd_apps_call *c = arg;

	RTE_SET_USED(s);
	return mrc_mr_deregister(c->mrs, c->mr->key);
}

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
	s->pid = (pid_t)r->u.hello.pid;
	s->hello = true;
	rep->u.hello.host = c;
	rep->u.hello.n_workers = d->n_workers;
	rep->u.hello.mtu = d->cfg.transport.mtu;
	memcpy(rep->u.hello.gid, addr.src_ip, 16);
	rep->u.hello.max_qps = MRCD_APPS_SESSION_QPS;
	rep->u.hello.max_mrs = MRCD_APPS_SESSION_MRS;
	rep->u.hello.max_mr_bytes = MRCD_APPS_SESSION_MR_BYTES;
	MRCD_LOG(ctrl, NOTICE, "application pid %d attached to host %u (session %u)", (int)s->pid,
		c, s->id);
	return 0;
}

/* A region: the application's memfd, sealed and big enough, mapped here and registered. */
int
mrcd_apps_reg_mr(struct mrcd_apps *a, struct mrcd_app_session *s, const struct mrc_chan_req *r,
	int fd, struct mrc_chan_rep *rep)
{
	const uint64_t off = r->u.reg_mr.fd_off, len = r->u.reg_mr.len, addr = r->u.reg_mr.addr;
	const uint64_t map_off = off & ~4095ull;
	const uint64_t map_len = ((off - map_off) + len + 4095) & ~4095ull;
	struct mrcd_app_mr *mr = NULL;
	struct stat st;
	struct mrcd_apps_call c;
	int seals, rc;

	if (fd < 0)
		return mrcd_apps_fail(
			rep, EINVAL, "a region comes with its memfd (SCM_RIGHTS); none came");
	if ((addr & 4095) != (off & 4095))
		return mrcd_apps_fail(rep, EINVAL,
			"address 0x%lx and memfd offset 0x%lx differ within a page",
			(unsigned long)addr, (unsigned long)off);
	seals = fcntl(fd, F_GET_SEALS);
	if (seals < 0 || (seals & (F_SEAL_SHRINK | F_SEAL_GROW)) != (F_SEAL_SHRINK | F_SEAL_GROW))
		return mrcd_apps_fail(rep, EPERM,
			"the region's fd is not a memfd sealed against shrinking and growing "
			"(seals 0x%x)",
			seals);
	if (fstat(fd, &st) != 0 || (uint64_t)st.st_size < map_off + map_len)
		return mrcd_apps_fail(rep, EINVAL,
			"the memfd holds %lld bytes, the region needs %lu", (long long)st.st_size,
			(unsigned long)(map_off + map_len));
	if (s->mr_bytes + len > MRCD_APPS_SESSION_MR_BYTES)
		return mrcd_apps_fail(rep, ENOMEM,
			"%lu more registered bytes pass this application's %llu",
			(unsigned long)len, MRCD_APPS_SESSION_MR_BYTES);
	for (unsigned int k = 0; k < RTE_DIM(s->mr) && mr == NULL; k++)
		if (s->mr[k].key == 0 && s->mr[k].map == NULL)
			mr = &s->mr[k];
	if (mr == NULL)
		return mrcd_apps_fail(rep, ENOMEM, "this application has its %u regions already",
			MRCD_APPS_SESSION_MRS);
	mr->map = mmap(NULL, map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)map_off);
	if (mr->map == MAP_FAILED) {
		mr->map = NULL;
		return mrcd_apps_fail(rep, errno, "cannot map the region: %s", strerror(errno));
	}
	mr->map_len = map_len;
	mr->addr = addr;
	mr->len = len;
	c = (struct mrcd_apps_call){.a = a,
		.mrs = a->d->host[s->host].mrs,
		.mr = mr,
		.access =
			MRC_MR_ACCESS_LOCAL_READ | ((r->u.reg_mr.access & MRC_CHAN_ACC_REMOTE_WRITE)
								   ? MRC_MR_ACCESS_REMOTE_WRITE
								   : 0)};
	rc = mrcd_apps_call_shard(a, s->host, 0, on_reg, &c); /* shard 0 writes the host's table */
	if (rc < 0) {
		munmap(mr->map, map_len);
		mr->map = NULL;
		return mrcd_apps_fail(
			rep, -rc, "the host's region table refused it: %s", strerror(-rc));
	}
	mr->key = (uint32_t)rc;
	/* The owner mark before the application learns the key: its posts are checked by it. */
	__atomic_store_n(&a->mr_owner[s->host][mr->key >> 8], s->id, __ATOMIC_RELEASE);
	s->mr_bytes += len;
	rep->u.reg_mr.key = mr->key;
	return 0;
}

/*
 * Try to let a region go: its key stops matching, then its pages are
 * unmapped. Every shard of the host reads the region table, so each step
 * waits for all of them to pass (host_barrier): first no post of the
 * application's may find the region any more (the owner mark), so no packet
 * attaches to it after the reference count is read; then the key goes, and
 * no peer's write being placed under it on another shard is left when the
 * pages are unmapped.
 */
bool
mrcd_apps_release_mr(struct mrcd_apps *a, struct mrcd_app_session *s, struct mrcd_app_mr *mr)
{
	struct mrcd_apps_call c = {.a = a, .mrs = a->d->host[s->host].mrs, .mr = mr};

	mr->dying = true;
	if (mr->key != 0) {
		const uint32_t slot = mr->key >> 8;

		__atomic_store_n(&a->mr_owner[s->host][slot], 0, __ATOMIC_RELEASE);
		mrcd_apps_host_barrier(a, s->host, 0);
		if (mrcd_apps_call_shard(a, s->host, 0, on_dereg, &c) == -EBUSY) {
			/* packets still hold it: a session's end tries again next tick; an
			 * application's deregistration fails and changes nothing */
			if (!s->closing) {
				__atomic_store_n(
					&a->mr_owner[s->host][slot], s->id, __ATOMIC_RELEASE);
				mr->dying = false;
			}
			return false;
		}
		s->mr_bytes -= mr->len;
		mr->key = 0;
		mrcd_apps_host_barrier(a, s->host, 1); /* shard 0 cleared the key in its own pass */
	}
	munmap(mr->map, mr->map_len);
	memset(mr, 0, sizeof(*mr));
	return true;
}

int
mrcd_apps_dereg_mr(struct mrcd_apps *a, struct mrcd_app_session *s, const struct mrc_chan_req *r,
	struct mrc_chan_rep *rep)
{
	for (unsigned int k = 0; k < RTE_DIM(s->mr); k++)
		if (s->mr[k].key != 0 && s->mr[k].key == r->u.dereg_mr.key) {
			if (!mrcd_apps_release_mr(a, s, &s->mr[k]))
				return mrcd_apps_fail(rep, EBUSY,
					"region 0x%x: packets in flight still use it",
					r->u.dereg_mr.key);
			return 0;
		}
	return mrcd_apps_fail(
		rep, EINVAL, "key 0x%x is not a region of this application", r->u.dereg_mr.key);
}

struct mrcd_app_cq *
mrcd_apps_find_cq(struct mrcd_app_session *s, uint32_t id)
{
	for (unsigned int k = 0; k < RTE_DIM(s->cq); k++)
		if (s->cq[k].id != 0 && s->cq[k].id == id)
			return &s->cq[k];
	return NULL;
}

/* A channel: the application's eventfd (checked to be one), written when an armed CQ fires. */
int
mrcd_apps_create_channel(struct mrcd_app_session *s, int fd, struct mrc_chan_rep *rep)
{
	static const char eventfd_link[] = "anon_inode:[eventfd]";
	char path[64], what[64];
	ssize_t n;

	if (fd < 0)
		return mrcd_apps_fail(
			rep, EINVAL, "a channel comes with its eventfd (SCM_RIGHTS); none came");
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, what, sizeof(what) - 1);
	if (n != (ssize_t)strlen(eventfd_link) || memcmp(what, eventfd_link, (size_t)n) != 0)
		return mrcd_apps_fail(rep, EINVAL, "a channel's fd must be an eventfd");
	for (unsigned int k = 0; k < RTE_DIM(s->chan_fd); k++)
		if (s->chan_fd[k] < 0) {
			s->chan_fd[k] = fcntl(fd, F_DUPFD_CLOEXEC, 0);
			if (s->chan_fd[k] < 0)
				return mrcd_apps_fail(
					rep, errno, "cannot keep the eventfd: %s", strerror(errno));
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

struct mrcd_app_qp *
mrcd_apps_find_qp(struct mrcd_app_session *s, uint32_t qpn)
{
	for (unsigned int k = 0; k < RTE_DIM(s->qp); k++)
		if (s->qp[k].qpn != 0 && s->qp[k].qpn == qpn)
			return &s->qp[k];
	return NULL;
}

int
mrcd_apps_create_qp(struct mrcd_apps *a, struct mrcd_app_session *s, const struct mrc_chan_req *r,
	struct mrc_chan_rep *rep, int *fd)
{
	struct mrcd_app_cq *scq = mrcd_apps_find_cq(s, r->u.create_qp.send_cq),
			   *rcq = mrcd_apps_find_cq(s, r->u.create_qp.recv_cq);
	const unsigned int h = s->host;
	struct mrcd_app_qp *q = NULL;
	uint32_t slot = MRCD_APPS_QPNS, icq_n;

	if (scq == NULL || rcq == NULL)
		return mrcd_apps_fail(rep, EINVAL, "CQ %u or %u is not one of this application's",
			r->u.create_qp.send_cq, r->u.create_qp.recv_cq);
	for (unsigned int k = 0; k < RTE_DIM(s->qp) && q == NULL; k++)
		if (s->qp[k].qpn == 0)
			q = &s->qp[k];
	/* QPNs round the host's range, so a number comes back as late as it can. */
	for (unsigned int k = 0; k < MRCD_APPS_QPNS && slot == MRCD_APPS_QPNS; k++) {
		const uint32_t t = (a->qpn_next[h] + k) % MRCD_APPS_QPNS;

		if (!a->qpn_used[h][t])
			slot = t;
	}
	if (q == NULL || slot == MRCD_APPS_QPNS)
		return mrcd_apps_fail(rep, ENOMEM, "no QP left: %u per application, %u per host",
			MRCD_APPS_SESSION_QPS, MRCD_APPS_QPNS);
	memset(q, 0, sizeof(*q));
	q->sq_size = RTE_MAX(mrc_chan_pow2(r->u.create_qp.max_send_wr), 16u);
	q->rq_size = RTE_MAX(mrc_chan_pow2(r->u.create_qp.max_recv_wr), 16u);
	q->bytes = mrc_chan_qp_bytes(q->sq_size, q->rq_size);
	q->shadow = rte_zmalloc("mrcd_app_wr", q->sq_size * sizeof(*q->shadow), 64);
	/* the engine's completions: every send the ring holds, and the immediates that may
	 * arrive meanwhile (the worker empties it each pass) */
	icq_n = mrc_chan_pow2(2 * q->sq_size + 1024);
	q->icq = rte_zmalloc("mrcd_app_icq", mrc_cq_memsize(icq_n), 64);
	q->shm = mrcd_apps_make_shm("mrcd-qp", q->bytes, fd);
	if (q->shadow == NULL || q->icq == NULL || q->shm == NULL) {
		rte_free(q->shadow);
		rte_free(q->icq);
		if (q->shm != NULL)
			munmap(q->shm, q->bytes);
		return mrcd_apps_fail(rep, ENOMEM, "no memory for a QP of %u sends", q->sq_size);
	}
	mrc_cq_init(q->icq, icq_n);
	q->st = (struct mrc_chan_qp_status *)q->shm;
	q->sq = (struct mrc_chan_ring *)(q->shm + mrc_chan_qp_sq_off());
	q->sqe = (struct mrc_chan_swqe *)(q->sq + 1);
	q->rq = (struct mrc_chan_ring *)(q->shm + mrc_chan_qp_rq_off(q->sq_size));
	q->rqe = (struct mrc_chan_rwqe *)(q->rq + 1);
	q->s = s;
	q->host = h;
	q->qpn = a->qpn_first + slot;
	q->shard = mrcd_apps_qpn_shard(q->qpn, a->d->host[h].n_shards);
	q->worker = a->d->host[h].shard[q->shard].worker;
	q->scq = scq;
	q->rcq = rcq;
	q->sig_all = r->u.create_qp.sq_sig_all != 0;
	q->mtu = a->d->cfg.transport.mtu;
	a->qpn_used[h][slot] = true;
	a->qpn_next[h] = (slot + 1) % MRCD_APPS_QPNS;
	q->state = MRC_CHAN_QPS_RESET;
	rep->u.create_qp.qpn = q->qpn;
	rep->u.create_qp.sq_entries = q->sq_size;
	rep->u.create_qp.rq_entries = q->rq_size;
	rep->u.create_qp.bytes = q->bytes;
	return 0;
}

/* Out of the shard (flushing what it had), the engine's QP freed: back to RESET. */
static void
qp_unplug(struct mrcd_apps *a, struct mrcd_app_qp *q)
{
	struct mrcd_apps_call c = {.a = a, .q = q};

	if (q->added)
		(void)mrcd_apps_call_owner(a, q, on_remove, &c);
	q->added = false;
	if (q->qp != NULL)
		mrc_qp_destroy(q->qp);
	q->qp = NULL;
	if (q->profiles_held)
		mrcd_profile_table_release(&a->d->profiles, q->ev_profile, q->cc_profile);
	q->profiles_held = false;
}

/* The attributes of q's engine QP: the configuration's, with the profiles q was made with. */
static int
qp_attr(struct mrcd_apps *a, const struct mrcd_app_qp *q, struct mrc_qp_attr *at)
{
	if (mrcd_config_qp_attr(&a->d->cfg, a->d->hz, at) != 0)
		return -EINVAL;
	mrcd_profile_apply(&q->evp, a->d->hz, at);
	mrcd_profile_apply(&q->ccp, a->d->hz, at);
	return 0;
}

/*
 * RESET -> INIT: take the profiles the application names (the defaults where it names
 * none), if they are online; a QP already holding some (INIT again) keeps them.
 */
static int
qp_take_profiles(struct mrcd_apps *a, struct mrcd_app_qp *q, const struct mrc_chan_req *r,
	struct mrc_chan_rep *rep)
{
	const uint32_t m = r->u.modify_qp.mask;
	const unsigned int ev =
		(m & MRC_CHAN_MOD_EV_PROFILE) ? r->u.modify_qp.ev_profile : MRCD_PROFILE_DEFAULT;
	const unsigned int cc =
		(m & MRC_CHAN_MOD_CC_PROFILE) ? r->u.modify_qp.cc_profile : MRCD_PROFILE_DEFAULT;
	char err[160];

	if (mrcd_profile_table_hold(&a->d->profiles, ev, cc, &q->evp, &q->ccp, err, sizeof(err)) !=
		0)
		return mrcd_apps_fail(rep, EINVAL, "QP 0x%x: %s", q->qpn, err);
	q->ev_profile = (uint8_t)ev;
	q->cc_profile = (uint8_t)cc;
	q->profiles_held = true;
	return 0;
}

void
mrcd_apps_qp_free(struct mrcd_apps *a, struct mrcd_app_qp *q)
{
	qp_unplug(a, q);
	a->qpn_used[q->host][q->qpn - a->qpn_first] = false;
	munmap(q->shm, q->bytes);
	rte_free(q->shadow);
	rte_free(q->icq);
	memset(q, 0, sizeof(*q));
}

/* INIT -> RTR: the engine's QP is made now, when its peer is known, and given to the shard. */
static int
qp_to_rtr(struct mrcd_apps *a, struct mrcd_app_qp *q, struct mrc_chan_rep *rep)
{
	struct mrcd_daemon *d = a->d;
	struct mrcd_hostctx *hc = &d->host[q->host];
	struct mrcd_shardctx *sc = &hc->shard[q->shard]; /* its pools are the owner's */
	const unsigned int local = d->cfg.daemon.first_host + q->host;
	const unsigned int n = mrcd_config_cluster_hosts(&d->cfg);
	struct mrc_qp_init in = {.qpn = q->qpn,
		.sq_size = (uint16_t)q->sq_size,
		.mtu = (uint16_t)RTE_MIN(q->mtu, d->cfg.transport.mtu),
		.tsc_hz = d->hz,
		.mrs = hc->mrs,
		.cq = q->icq,
		.hdr_pool = hc->tx_pool,
		.socket = (int)rte_socket_id(),
		.trk_pool = mrc_shard_trk_pool(sc->rt),
		.imm_pool = sc->imm_pool};
	struct mrcd_apps_call c = {.a = a, .q = q};
	const char *why = NULL;
	struct mrc_qp_attr at;
	unsigned int peer = n;
	int rc;

	const uint32_t need = MRC_CHAN_MOD_AV | MRC_CHAN_MOD_DEST_QPN | MRC_CHAN_MOD_RQ_PSN;
	if ((q->mod_mask & need) != need)
		return mrcd_apps_fail(rep, EINVAL,
			"INIT -> RTR needs the address vector, the destination QPN "
			"and the receive PSN");
	for (unsigned int p = 0; p < n && peer == n; p++)
		if (p != local && mrcd_config_qp_addr(&d->cfg, local, p, &in.addr) == 0 &&
			memcmp(in.addr.dst_ip, q->dgid, 16) == 0)
			peer = p;
	if (peer == n)
		return mrcd_apps_fail(
			rep, EINVAL, "the destination GID is no host of this cluster's");
	mrcd_config_wire(&d->cfg, &in.wire);
	if (qp_attr(a, q, &at) != 0)
		return mrcd_apps_fail(rep, EINVAL, "[transport] does not convert to QP attributes");
	at.dest_qpn = q->dest_qpn;
	at.start_psn_rx = q->rq_psn;
	if (q->mod_mask & MRC_CHAN_MOD_MPR_DEST)
		at.mpr = q->mpr_dest;
	/* A peer host of several workers is addressed at the one that owns dest_qpn: every
	 * host of the cluster runs [lcores] workers_per_host, and the rule is the QPN's. */
	if (d->cfg.lcores.workers_per_host > 1) {
		at.dest_workers = (uint16_t)d->cfg.lcores.workers_per_host;
		at.dest_worker =
			(uint8_t)mrcd_apps_qpn_shard(q->dest_qpn, d->cfg.lcores.workers_per_host);
	}
	q->qp = mrc_qp_create(&in, &why);
	if (q->qp == NULL)
		return mrcd_apps_fail(rep, ENOMEM, "QP 0x%x: %s", q->qpn, why);
	for (int to = MRC_QP_INIT; to <= MRC_QP_RTR; to++)
		if (mrc_qp_modify(q->qp, (enum mrc_qp_state)to, &at, rte_rdtsc(), &a->rand, &why) !=
			0) {
			mrc_qp_destroy(q->qp);
			q->qp = NULL;
			return mrcd_apps_fail(rep, EINVAL, "QP 0x%x -> %s: %s", q->qpn,
				mrc_qp_state_name((enum mrc_qp_state)to), why);
		}
	rc = mrcd_apps_call_owner(a, q, on_add, &c);
	if (rc != 0) {
		mrc_qp_destroy(q->qp);
		q->qp = NULL;
		return mrcd_apps_fail(
			rep, -rc, "the host's shard refused QP 0x%x: %s", q->qpn, strerror(-rc));
	}
	q->added = true;
	return 0;
}

static int
qp_to_rts(struct mrcd_apps *a, struct mrcd_app_qp *q, struct mrc_chan_rep *rep)
{
	struct mrc_qp_attr at;
	struct mrcd_apps_call c = {.a = a, .q = q, .attr = &at};
	int rc;

	if (!(q->mod_mask & MRC_CHAN_MOD_SQ_PSN))
		return mrcd_apps_fail(rep, EINVAL, "RTR -> RTS needs the send PSN");
	if (qp_attr(a, q, &at) != 0)
		return mrcd_apps_fail(rep, EINVAL, "[transport] does not convert to QP attributes");
	at.dest_qpn = q->dest_qpn;
	at.start_psn_rx = q->rq_psn;
	at.start_psn_tx = q->sq_psn;
	if (q->mod_mask & MRC_CHAN_MOD_TIMEOUT)
		at.timeout = q->timeout;
	if (q->mod_mask & MRC_CHAN_MOD_RETRY) {
		at.retry_linear = q->retry_linear;
		at.retry_exp = q->retry_exp;
	}
	if (q->mod_mask & MRC_CHAN_MOD_MPR)
		at.peer_mpr = q->mpr;
	rc = mrcd_apps_call_owner(a, q, on_rts, &c);
	return rc == 0 ? 0
		       : mrcd_apps_fail(
				 rep, EINVAL, "QP 0x%x refused RTS: %s", q->qpn, strerror(-rc));
}

int
mrcd_apps_modify_qp(struct mrcd_apps *a, struct mrcd_app_session *s, const struct mrc_chan_req *r,
	struct mrc_chan_rep *rep)
{
	struct mrcd_app_qp *q = mrcd_apps_find_qp(s, r->u.modify_qp.qpn);
	const uint32_t m = r->u.modify_qp.mask, to = r->u.modify_qp.state;
	uint32_t cur;
	int rc = 0;

	if (q == NULL)
		return mrcd_apps_fail(rep, EINVAL, "QP 0x%x is not one of this application's",
			r->u.modify_qp.qpn);
	cur = __atomic_load_n(&q->st->state, __ATOMIC_RELAXED) == MRC_CHAN_QPS_ERR
		      ? MRC_CHAN_QPS_ERR
		      : q->state;
	if ((m & MRC_CHAN_MOD_CUR) && r->u.modify_qp.cur_state != cur)
		return mrcd_apps_fail(rep, EINVAL, "QP 0x%x is in state %u, not %u", q->qpn, cur,
			r->u.modify_qp.cur_state);
	if (!(to == MRC_CHAN_QPS_ERR || to == MRC_CHAN_QPS_RESET || to == cur ||
		    (cur == MRC_CHAN_QPS_RESET && to == MRC_CHAN_QPS_INIT) ||
		    (cur == MRC_CHAN_QPS_INIT && to == MRC_CHAN_QPS_RTR) ||
		    (cur == MRC_CHAN_QPS_RTR && to == MRC_CHAN_QPS_RTS)))
		return mrcd_apps_fail(
			rep, EINVAL, "QP 0x%x: no transition from state %u to %u", q->qpn, cur, to);
	/* Profiles are picked when the QP is made ready, RESET -> INIT, as on an MRC NIC. */
	if ((m & (MRC_CHAN_MOD_EV_PROFILE | MRC_CHAN_MOD_CC_PROFILE)) &&
		!(cur == MRC_CHAN_QPS_RESET && to == MRC_CHAN_QPS_INIT))
		return mrcd_apps_fail(
			rep, EINVAL, "QP 0x%x: profile ids are set at RESET -> INIT only", q->qpn);
	if (cur == MRC_CHAN_QPS_RESET && to == MRC_CHAN_QPS_INIT && !q->profiles_held) {
		rc = qp_take_profiles(a, q, r, rep);
		if (rc != 0)
			return rc;
	}
	if (m & MRC_CHAN_MOD_AV)
		memcpy(q->dgid, r->u.modify_qp.dgid, 16);
	if (m & MRC_CHAN_MOD_DEST_QPN)
		q->dest_qpn = r->u.modify_qp.dest_qpn;
	if (m & MRC_CHAN_MOD_RQ_PSN)
		q->rq_psn = r->u.modify_qp.rq_psn;
	if (m & MRC_CHAN_MOD_SQ_PSN)
		q->sq_psn = r->u.modify_qp.sq_psn;
	if (m & MRC_CHAN_MOD_MTU)
		q->mtu = r->u.modify_qp.mtu;
	if (m & MRC_CHAN_MOD_ACCESS)
		q->access = r->u.modify_qp.access;
	if (m & MRC_CHAN_MOD_TIMEOUT)
		q->timeout = r->u.modify_qp.timeout;
	if (m & MRC_CHAN_MOD_RETRY) {
		q->retry_linear = r->u.modify_qp.retry_linear;
		q->retry_exp = r->u.modify_qp.retry_exp;
	}
	if (m & MRC_CHAN_MOD_MPR)
		q->mpr = r->u.modify_qp.mpr;
	if (m & MRC_CHAN_MOD_MPR_DEST)
		q->mpr_dest = r->u.modify_qp.mpr_dest;
	q->mod_mask |= m;
	if (to == cur && to != MRC_CHAN_QPS_RESET)
		return 0;
	if (to == MRC_CHAN_QPS_RTR)
		rc = qp_to_rtr(a, q, rep);
	else if (to == MRC_CHAN_QPS_RTS)
		rc = qp_to_rts(a, q, rep);
	else if (to == MRC_CHAN_QPS_ERR) {
		struct mrcd_apps_call c = {.a = a, .q = q};

		if (q->added)
			rc = mrcd_apps_call_owner(a, q, on_error, &c);
		else
			__atomic_store_n(&q->st->state, MRC_CHAN_QPS_ERR, __ATOMIC_RELAXED);
	} else if (to == MRC_CHAN_QPS_RESET) {
		qp_unplug(a, q);
		q->mod_mask = 0;
		q->error_told = false;
		/* What the application had posted is dropped with the old QP. */
		q->sq_tail = __atomic_load_n(&q->sq->head, __ATOMIC_ACQUIRE);
		q->rq_tail = __atomic_load_n(&q->rq->head, __ATOMIC_ACQUIRE);
		__atomic_store_n(&q->sq->tail, q->sq_tail, __ATOMIC_RELEASE);
		__atomic_store_n(&q->rq->tail, q->rq_tail, __ATOMIC_RELEASE);
		__atomic_store_n(&q->st->error, 0, __ATOMIC_RELAXED);
		/* The old QP's flushed completions stay behind: the next one starts empty. */
		mrc_cq_init(q->icq, q->icq->mask + 1);
	}
	if (rc == 0) {
		uint32_t seen = __atomic_load_n(&q->st->state, __ATOMIC_ACQUIRE);

		q->state = to;
		/* A worker that put the QP in ERROR meanwhile wins, but over RESET. */
		while ((seen != MRC_CHAN_QPS_ERR || to == MRC_CHAN_QPS_RESET) &&
			!__atomic_compare_exchange_n(&q->st->state, &seen, to, false,
				__ATOMIC_RELEASE, __ATOMIC_ACQUIRE))
			;
	}
	return rc;
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
		return mrcd_apps_create_channel(s, fd, rep);
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
		close(fd); /* a region keeps its mapping, not the fd */
	reply(s, &rep, out_fd);
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

static void
accept_new(struct mrcd_apps *a)
{
	for (;;) {
		const int fd = accept4(a->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct mrcd_app_session *s = NULL;

		if (fd < 0)
			return;
		for (unsigned int k = 0; k < RTE_DIM(a->sess) && s == NULL; k++)
			if (!a->sess[k].used)
				s = &a->sess[k];
		if (s == NULL) {
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
		s->id = ++a->next_id;
		a->sessions_total++;
		pthread_mutex_unlock(&a->lock);
	}
}

/* The workers' wake-ups: each armed CQ that got an entry, its channel's eventfd written. */
void
mrcd_apps_wake_channels(struct mrcd_apps *a)
{
	void *tok[64];
	unsigned int n;

	while ((n = rte_ring_sc_dequeue_burst(a->wakes, tok, RTE_DIM(tok), NULL)) > 0)
		for (unsigned int k = 0; k < n; k++) {
			const uintptr_t t = (uintptr_t)tok[k] - 1;
			struct mrcd_app_session *s = &a->sess[(t >> 8) % MRCD_APPS_SESSIONS];
			const struct mrcd_app_cq *cq = &s->cq[(t & 0xff) % MRCD_APPS_SESSION_CQS];
			const uint64_t one = 1;

			/* A CQ or session gone since: nothing to wake (a spare wake-up is
			 * harmless). */
			if (!s->used || cq->id == 0 || cq->channel == 0 ||
				s->chan_fd[cq->channel - 1] < 0)
				continue;
			if (write(s->chan_fd[cq->channel - 1], &one, sizeof(one)) == sizeof(one))
				a->wakes_sent++;
		}
}

void
mrcd_apps_tick(struct mrcd_daemon *d, uint64_t now)
{
	struct mrcd_apps *a = d->apps;

	RTE_SET_USED(now);
	if (a == NULL)
		return;
	mrcd_apps_wake_channels(a);
	accept_new(a);
	for (unsigned int k = 0; k < RTE_DIM(a->sess); k++) {
		struct mrcd_app_session *s = &a->sess[k];

		if (!s->used)
			continue;
		/* a few requests per session per tick: one application cannot starve the others */
		for (unsigned int n = 0; n < 16 && s->fd >= 0 && read_one(a, s); n++)
			;
		if (s->closing)
			end_session(a, s);
	}
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
	a->mr_slots = d->host[0].mrs->n_slots;
	a->qpn_first = MRCD_QPN_BASE + 2 * d->n_cluster_flows +
		       2 * mrcd_recover_spares(d->n_cluster_flows);
	mrc_rand_seed(&a->rand, d->cfg.daemon.seed * 7777u + 1);
	d->apps = a;
	a->wakes = rte_ring_create("mrcd_app_wakes", 4096, (int)rte_socket_id(), RING_F_SC_DEQ);
	if (a->wakes == NULL) {
		mrcd_apps_close(d);
		return -ENOMEM;
	}
	for (unsigned int h = 0; h < d->n_hosts; h++) {
		a->mr_owner[h] = calloc(a->mr_slots, sizeof(uint32_t));
		if (a->mr_owner[h] == NULL) {
			mrcd_apps_close(d);
			return -ENOMEM;
		}
	}
	d->apps = a;
	MRCD_LOG(ctrl, NOTICE, "applications: socket %s (channel version %u)", path,
		MRC_CHAN_VERSION);
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
	for (unsigned int h = 0; h < MRCD_MAX_HOSTS; h++)
		free(a->mr_owner[h]);
	pthread_mutex_destroy(&a->lock);
	free(a);
}
