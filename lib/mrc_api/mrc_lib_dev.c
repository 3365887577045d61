/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * lib_mrc: the device (the connection to mrcd), its protection domains and
 * memory registered in place, contexts and versions. doc/applications.md.
 */

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "mrc_lib_priv.h"

#define PAGE 4096ull

struct mrc_lib_dev *
mrc_lib_dev_of(struct ibv_context *c)
{
	struct mrc_lib_dev *d;

	if (c == NULL)
		return NULL;
	d = (struct mrc_lib_dev *)((char *)c - offsetof(struct mrc_lib_dev, vctx.context));
	return d->magic == MRC_LIB_DEV_MAGIC ? d : NULL;
}

int
mrc_lib_rpc(struct mrc_lib_dev *dev, struct mrc_chan_req *r, int send_fd, struct mrc_chan_rep *rep,
	int *recv_fd)
{
	union {
		char b[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = {.iov_base = r, .iov_len = sizeof(*r)};
	struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};
	ssize_t n;

	if (recv_fd != NULL)
		*recv_fd = -1;
	if (dev->dead) {
		errno = ENODEV;
		return -1;
	}
	pthread_mutex_lock(&dev->lock);
	r->magic = MRC_CHAN_MAGIC;
	r->seq = ++dev->seq;
	if (send_fd >= 0) {
		struct cmsghdr *cm;

		memset(&u, 0, sizeof(u));
		m.msg_control = u.b;
		m.msg_controllen = sizeof(u.b);
		cm = CMSG_FIRSTHDR(&m);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &send_fd, sizeof(int));
	}
	if (sendmsg(dev->fd, &m, MSG_NOSIGNAL) != (ssize_t)sizeof(*r))
		goto dead;
	memset(&m, 0, sizeof(m));
	iov = (struct iovec){.iov_base = rep, .iov_len = sizeof(*rep)};
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	m.msg_control = u.b;
	m.msg_controllen = sizeof(u.b);
	do
		n = recvmsg(dev->fd, &m, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(*rep) || rep->magic != MRC_CHAN_MAGIC || rep->seq != r->seq)
		goto dead;
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(&m); cm != NULL; cm = CMSG_NXTHDR(&m, cm))
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS) {
			int fd;

			memcpy(&fd, CMSG_DATA(cm), sizeof(int));
			if (recv_fd != NULL && *recv_fd < 0)
				*recv_fd = fd;
			else
				close(fd);
		}
	pthread_mutex_unlock(&dev->lock);
	rep->msg[sizeof(rep->msg) - 1] = '\0';
	if (rep->rc != 0) {
		/* A refusal hands over nothing: an fd that came with it is not the caller's. */
		if (recv_fd != NULL && *recv_fd >= 0) {
			close(*recv_fd);
			*recv_fd = -1;
		}
		if (getenv("MRC_DEBUG") != NULL)
			fprintf(stderr, "lib_mrc: mrcd refused: %s\n", rep->msg);
		errno = -rep->rc;
		return -1;
	}
	return 0;
dead:
	pthread_mutex_unlock(&dev->lock);
	mrc_lib_dev_died(dev);
	errno = ENODEV;
	return -1;
}

bool
mrc_lib_region_ok(
	const struct mrc_lib_dev *dev, uint32_t pd, uint32_t lkey, uint64_t addr, uint64_t len)
{
	if (lkey == 0)
		return false;
	for (unsigned int k = 0; k < MRC_LIB_MAX_MRS; k++) {
		const struct mrc_lib_region *r = &dev->regions[k];

		if (__atomic_load_n(&r->key, __ATOMIC_ACQUIRE) == lkey)
			return r->pd == pd && addr >= r->addr && addr - r->addr <= r->len &&
			       len <= r->len - (addr - r->addr);
	}
	return false;
}

/* A device connected to mrcd's socket (`socket_path`, else $MRC_SOCKET, else the default). */
static struct mrc_lib_dev *
dev_connect(const char *socket_path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct mrc_lib_dev *dev;
	const char *path = socket_path;
	int err;

	if (path == NULL)
		path = getenv("MRC_SOCKET");
	if (path == NULL)
		path = "/run/mrcd/apps.sock";
	if (strlen(path) >= sizeof(sa.sun_path)) {
		errno = EINVAL;
		return NULL;
	}
	strcpy(sa.sun_path, path);
	dev = calloc(1, sizeof(*dev));
	if (dev == NULL)
		return NULL;
	dev->magic = MRC_LIB_DEV_MAGIC;
	pthread_mutex_init(&dev->lock, NULL);
	dev->fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (dev->fd >= 0 && connect(dev->fd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
		return dev;
	err = errno;
	if (dev->fd >= 0)
		close(dev->fd);
	free(dev);
	errno = err;
	return NULL;
}

static void
dev_free(struct mrc_lib_dev *dev)
{
	close(dev->fd);
	dev->magic = 0;
	free(dev);
}

static void
hello_req(struct mrc_chan_req *r, unsigned int host)
{
	*r = (struct mrc_chan_req){.op = MRC_CHAN_HELLO};
	r->u.hello.version = MRC_CHAN_VERSION;
	r->u.hello.api_version = MRC_API_CURRENT_VERSION;
	r->u.hello.host = host;
	r->u.hello.pid = (uint32_t)getpid();
}

int
mrc_sw_list_hosts(const char *socket_path, unsigned int *first_host, unsigned int *n_hosts)
{
	struct mrc_lib_dev *dev;
	struct mrc_chan_req r;
	struct mrc_chan_rep rep;
	int rc = 0;

	if (first_host == NULL || n_hosts == NULL) {
		errno = EINVAL;
		return -1;
	}
	dev = dev_connect(socket_path);
	if (dev == NULL)
		return -1;
	/* No host has this number: mrcd refuses to attach but says which hosts it has. */
	hello_req(&r, UINT32_MAX);
	memset(&rep, 0, sizeof(rep));
	if (mrc_lib_rpc(dev, &r, -1, &rep, NULL) == 0 || errno != ENODEV ||
		rep.u.hello.n_hosts == 0) {
		rc = -1;
		errno = EPROTO;
	} else {
		*first_host = rep.u.hello.first_host;
		*n_hosts = rep.u.hello.n_hosts;
	}
	dev_free(dev);
	return rc;
}

struct ibv_context *
mrc_sw_open_device(const char *socket_path, unsigned int host)
{
	struct mrc_chan_req r;
	struct mrc_chan_rep rep;
	struct mrc_lib_dev *dev;
	int err;

	dev = dev_connect(socket_path);
	if (dev == NULL)
		return NULL;
	hello_req(&r, host);
	if (mrc_lib_rpc(dev, &r, -1, &rep, NULL) != 0) {
		if (rep.rc != 0 && rep.magic == MRC_CHAN_MAGIC)
			fprintf(stderr, "lib_mrc: %s\n", rep.msg);
		goto fail;
	}
	dev->host = rep.u.hello.host;
	dev->n_workers = rep.u.hello.n_workers;
	dev->mtu = rep.u.hello.mtu;
	memcpy(dev->gid, rep.u.hello.gid, 16);
	dev->max_qps = rep.u.hello.max_qps;
	dev->max_mrs = rep.u.hello.max_mrs;
	dev->max_mr_bytes = rep.u.hello.max_mr_bytes;
	if (dev->n_workers == 0 || dev->n_workers > 64) {
		errno = EPROTO;
		goto fail;
	}
	snprintf(dev->dev.name, sizeof(dev->dev.name), "mrc_%u", host);
	snprintf(dev->dev.dev_name, sizeof(dev->dev.dev_name), "mrc_%u", host);
	dev->dev.transport_type = IBV_TRANSPORT_UNSPECIFIED;
	dev->dev.node_type = IBV_NODE_UNSPECIFIED;
	/* Extended, with no op set: the verbs front fills the ops it implements. */
	dev->vctx.sz = sizeof(dev->vctx);
	dev->vctx.context.abi_compat = __VERBS_ABI_IS_EXTENDED;
	dev->vctx.context.device = &dev->dev;
	dev->vctx.context.cmd_fd = -1;
	dev->vctx.context.async_fd = -1;
	dev->vctx.context.num_comp_vectors = 1;
	pthread_mutex_init(&dev->vctx.context.mutex, NULL);
	return &dev->vctx.context;
fail:
	err = errno;
	dev_free(dev);
	errno = err;
	return NULL;
}

int
mrc_sw_close_device(struct ibv_context *c)
{
	struct mrc_lib_dev *dev = mrc_lib_dev_of(c);

	if (dev == NULL) {
		errno = EINVAL;
		return -1;
	}
	if (dev->mctx != NULL) {
		errno = EBUSY;
		return -1;
	}
	dev_free(dev);
	return 0;
}

int
mrc_sw_query_gid(struct ibv_context *c, union ibv_gid *gid)
{
	struct mrc_lib_dev *dev = mrc_lib_dev_of(c);

	if (dev == NULL || gid == NULL) {
		errno = EINVAL;
		return -1;
	}
	memcpy(gid->raw, dev->gid, 16);
	return 0;
}

struct ibv_pd *
mrc_sw_alloc_pd(struct ibv_context *c)
{
	static uint32_t next;
	struct ibv_pd *pd;

	if (mrc_lib_dev_of(c) == NULL) {
		errno = EINVAL;
		return NULL;
	}
	pd = calloc(1, sizeof(*pd));
	if (pd == NULL)
		return NULL;
	pd->context = c;
	pd->handle = __atomic_add_fetch(&next, 1, __ATOMIC_RELAXED);
	return pd;
}

int
mrc_sw_dealloc_pd(struct ibv_pd *pd)
{
	free(pd);
	return 0;
}

/*
 * Pages shared with mrcd: one memfd mapped over [base, base + len) of the
 * program's own address space. Registrations inside an existing range share
 * it (counted); ranges overlapping partly are refused.
 */
struct shared_range {
	struct shared_range *next;
	uintptr_t base;
	size_t len;
	uintptr_t a; /* the region that made the range */
	size_t alen;
	int fd;
	int users;
};

static struct shared_range *ranges;
static pthread_mutex_t ranges_lock = PTHREAD_MUTEX_INITIALIZER;

struct mrc_lib_mr {
	struct ibv_mr mr;
	struct shared_range *range;
};

/*
 * Bytes of the whole pages under a region that lie outside it belong to
 * whatever else the program keeps there: malloc's headers, and in a program
 * built with AddressSanitizer its redzones, which the sanitizer would report
 * read out of bounds. They are copied by this loop, built without the
 * sanitizer (its volatile reads keep the compiler from making it a memcpy
 * call, which the sanitizer checks).
 */
__attribute__((no_sanitize("address"))) static void
copy_unchecked(uint8_t *dst, const uint8_t *src, size_t n)
{
	const volatile uint8_t *s = src;

	for (size_t k = 0; k < n; k++)
		dst[k] = s[k];
}

/* Copy the pages [base, base + len) holding the region [a, a + alen) to dst. */
static void
copy_pages(uint8_t *dst, uintptr_t base, size_t len, uintptr_t a, size_t alen)
{
	const size_t head = a - base, tail = a + alen - base;

	copy_unchecked(dst, (const uint8_t *)base, head);
	memcpy(dst + head, (const void *)a, alen);
	copy_unchecked(dst + tail, (const uint8_t *)base + tail, len - tail);
}

/*
 * Turn the pages [base, base + len) under the region [a, a + alen) into
 * shared memory at the same address, keeping their bytes.
 */
static struct shared_range *
share_pages(uintptr_t base, size_t len, uintptr_t a, size_t alen)
{
	struct shared_range *r;
	void *tmp;
	int fd;

	fd = memfd_create("mrc-mr", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return NULL;
	if (ftruncate(fd, (off_t)len) != 0)
		goto fail;
	tmp = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (tmp == MAP_FAILED)
		goto fail;
	copy_pages(tmp, base, len, a, alen);
	munmap(tmp, len);
	/* Over the program's pages, at their address: from here on mrcd sees what it sees. */
	if (mmap((void *)base, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) ==
		MAP_FAILED)
		goto fail;
	(void)madvise((void *)base, len, MADV_DONTFORK); /* a child must not share mrcd's pages */
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW) != 0)
		goto fail;
	r = calloc(1, sizeof(*r));
	if (r == NULL)
		goto fail;
	*r = (struct shared_range){
		.base = base, .len = len, .a = a, .alen = alen, .fd = fd, .users = 0};
	return r;
fail : {
	const int err = errno;

	close(fd);
	errno = err;
	return NULL;
}
}

/*
 * Back to private memory with the same bytes (the last registration of the
 * range is gone): the bytes are copied into fresh private pages made
 * elsewhere, which are then moved over the range in one step. Nothing here
 * may come from malloc: the range's first and last pages are often heap
 * that malloc still uses (its top chunk), so a malloc'd copy could lie
 * partly inside the range and be wiped by the replacement; and no byte of
 * the range reads as zero at any moment.
 */
static void
unshare_pages(struct shared_range *r)
{
	const int fd = r->fd;
	void *copy;

	copy = mmap(NULL, r->len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (copy != MAP_FAILED) {
		const size_t len = r->len;

		copy_pages(copy, r->base, len, r->a, r->alen);
		if (mremap(copy, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, (void *)r->base) ==
			MAP_FAILED)
			munmap(copy,
				len); /* the shared pages stay: the memory is still the program's */
	}
	close(fd);
	free(r);
}

struct ibv_mr *
mrc_sw_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access)
{
	struct mrc_lib_dev *dev = pd != NULL ? mrc_lib_dev_of(pd->context) : NULL;
	const uintptr_t a = (uintptr_t)addr;
	const uintptr_t base = a & ~(uintptr_t)(PAGE - 1);
	const size_t len = ((a + length + PAGE - 1) & ~(uintptr_t)(PAGE - 1)) - base;
	struct mrc_chan_req r = {.op = MRC_CHAN_REG_MR};
	struct shared_range *sr = NULL;
	struct mrc_chan_rep rep;
	struct mrc_lib_mr *m;
	bool made = false;

	if (dev == NULL || addr == NULL || length == 0 || a + length < a) {
		errno = EINVAL;
		return NULL;
	}
	pthread_mutex_lock(&ranges_lock);
	for (struct shared_range *s = ranges; s != NULL && sr == NULL; s = s->next) {
		if (base >= s->base && base + len <= s->base + s->len)
			sr = s;
		else if (base < s->base + s->len && s->base < base + len) {
			pthread_mutex_unlock(&ranges_lock);
			errno = EINVAL; /* partly over pages already shared: not supported */
			return NULL;
		}
	}
	if (sr == NULL) {
		sr = share_pages(base, len, a, length);
		made = sr != NULL;
	}
	if (sr == NULL) {
		pthread_mutex_unlock(&ranges_lock);
		return NULL;
	}
	m = calloc(1, sizeof(*m));
	r.u.reg_mr.addr = a;
	r.u.reg_mr.len = length;
	r.u.reg_mr.fd_off = a - sr->base;
	r.u.reg_mr.pd = pd->handle;
	r.u.reg_mr.access = ((access & IBV_ACCESS_LOCAL_WRITE) ? MRC_CHAN_ACC_LOCAL_WRITE : 0) |
			    ((access & IBV_ACCESS_REMOTE_WRITE) ? MRC_CHAN_ACC_REMOTE_WRITE : 0);
	if (m == NULL || mrc_lib_rpc(dev, &r, sr->fd, &rep, NULL) != 0) {
		const int err = m == NULL ? ENOMEM : errno;

		if (made)
			unshare_pages(sr);
		pthread_mutex_unlock(&ranges_lock);
		free(m);
		errno = err;
		return NULL;
	}
	if (made) {
		sr->next = ranges;
		ranges = sr;
	}
	sr->users++;
	pthread_mutex_unlock(&ranges_lock);
	for (unsigned int k = 0; k < MRC_LIB_MAX_MRS; k++)
		if (dev->regions[k].key == 0) {
			dev->regions[k].addr = a;
			dev->regions[k].len = length;
			dev->regions[k].pd = pd->handle;
			__atomic_store_n(&dev->regions[k].key, rep.u.reg_mr.key, __ATOMIC_RELEASE);
			break;
		}
	m->range = sr;
	m->mr.context = pd->context;
	m->mr.pd = pd;
	m->mr.addr = addr;
	m->mr.length = length;
	m->mr.handle = rep.u.reg_mr.key;
	m->mr.lkey = rep.u.reg_mr.key;
	m->mr.rkey = rep.u.reg_mr.key;
	return &m->mr;
}

int
mrc_sw_dereg_mr(struct ibv_mr *mr)
{
	struct mrc_lib_mr *m = (struct mrc_lib_mr *)mr;
	struct mrc_lib_dev *dev = mr != NULL ? mrc_lib_dev_of(mr->context) : NULL;
	struct mrc_chan_req r = {.op = MRC_CHAN_DEREG_MR};
	struct mrc_chan_rep rep;

	if (dev == NULL) {
		errno = EINVAL;
		return -1;
	}
	r.u.dereg_mr.key = mr->lkey;
	/* With mrcd gone there is nobody to tell: the memory is ours again. */
	if (mrc_lib_rpc(dev, &r, -1, &rep, NULL) != 0 && !dev->dead)
		return -1;
	for (unsigned int k = 0; k < MRC_LIB_MAX_MRS; k++)
		if (dev->regions[k].key == mr->lkey)
			__atomic_store_n(&dev->regions[k].key, 0, __ATOMIC_RELEASE);
	pthread_mutex_lock(&ranges_lock);
	if (--m->range->users == 0) {
		for (struct shared_range **p = &ranges; *p != NULL; p = &(*p)->next)
			if (*p == m->range) {
				*p = m->range->next;
				break;
			}
		unshare_pages(m->range);
	}
	pthread_mutex_unlock(&ranges_lock);
	free(m);
	return 0;
}

void
mrc_query_version(uint32_t *current_version, uint32_t *last_supported_version,
	uint32_t *vendor_version, uint32_t *last_supported_vendor_version)
{
	if (current_version != NULL)
		*current_version = MRC_API_CURRENT_VERSION;
	if (last_supported_version != NULL)
		*last_supported_version = MRC_API_LAST_SUPPORTED_VERSION;
	if (vendor_version != NULL)
		*vendor_version = MRC_VENDOR_API_CURRENT_VERSION;
	if (last_supported_vendor_version != NULL)
		*last_supported_vendor_version = MRC_VENDOR_API_LAST_SUPPORTED_VERSION;
}

int
mrc_query_device(struct ibv_context *context, struct mrc_device_attr *attr, int *supported)
{
	if (attr == NULL || supported == NULL) {
		errno = EINVAL;
		return -1;
	}
	memset(attr, 0, sizeof(*attr));
	*supported = mrc_lib_dev_of(context) != NULL;
	if (!*supported)
		return 0;
	attr->mrc_protocol_version = MRC_PROTOCOL_VERSION_1;
	attr->wimm_attr.max_wimm = 1024;
	attr->wimm_attr.max_wimm_dest = 1024;
	attr->mpr_attr.max_mpr = 64;
	attr->mpr_attr.mpr_resolution = 1;
	attr->qp_attr.max_qp_hint = 64;
	attr->cap = MRC_DEVICE_CAP_TRIM_NACK;
	return 0;
}

int
mrc_query_device_ex(struct ibv_context *context, struct mrc_context *mcontext,
	struct mrc_device_attr *attr, int *supported)
{
	(void)mcontext;
	return mrc_query_device(context, attr, supported);
}

struct mrc_context *
mrc_create_context(struct ibv_context *vcontext, struct mrc_context_attr *context_attr)
{
	struct mrc_lib_dev *dev = mrc_lib_dev_of(vcontext);
	struct mrc_context *c;

	(void)context_attr; /* any version is accepted (some programs pass a protocol version) */
	if (dev == NULL) {
		errno = ENODEV;
		return NULL;
	}
	if (dev->mctx != NULL) {
		errno = EBUSY; /* one context per device connection for now */
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (c == NULL)
		return NULL;
	c->dev = dev;
	dev->mctx = c;
	return c;
}

int
mrc_destroy_context(struct mrc_context *c)
{
	if (c == NULL) {
		errno = EINVAL;
		return -1;
	}
	for (unsigned int k = 0; k < MRC_LIB_MAX_QPS; k++)
		if (c->qps[k] != NULL) {
			errno = EBUSY;
			return -1;
		}
	c->dev->mctx = NULL;
	free(c);
	return 0;
}
