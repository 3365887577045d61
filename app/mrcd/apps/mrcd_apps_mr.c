/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: the control thread (mrcd_apps_ctl.h), and on shard 0's lcore the
 * two calls that change the host's region table. Owns the sessions'
 * regions: the application's memfd mapped here, its key in the host's
 * region table, and its release once no packet holds its pages.
 */

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_errno.h>

#include "mrcd_apps.h"
#include "mrcd_apps_ctl.h"
#include "mrcd_apps_priv.h"
#include "mrcd_log.h"

static int
on_reg(struct mrc_shard *s, void *arg)
{
	struct mrcd_apps_call *c = arg;
	uint32_t key;

	RTE_SET_USED(s);
	key = mrc_mr_register_va(c->mrs, c->mr->pd, c->mr->map + (c->mr->addr & 4095), c->mr->addr,
		c->mr->len, c->mr->dma.iova != 0 ? c->mr->dma.iova + (c->mr->addr & 4095) : 0,
		c->access);
	return key != 0 ? (int)(key & 0x7fffffff) : -rte_errno;
}

/* The key stops matching on the lcore that checks it, whatever packets still hold the memory. */
static int
on_retire(struct mrc_shard *s, void *arg)
{
	struct mrcd_apps_call *c = arg;

	RTE_SET_USED(s);
	return mrc_mr_retire(c->mrs, c->mr->key);
}

/* A retired region's slot goes once no packet holds it. */
static int
on_reap(struct mrc_shard *s, void *arg)
{
	struct mrcd_apps_call *c = arg;

	RTE_SET_USED(s);
	return mrc_mr_reap(c->mrs, c->mr->key);
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
	char dma_err[256];
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
	/* Before its key exists: no packet may point a NIC at pages it cannot read. */
	rc = mrcd_apps_dma_register(
		&mr->dma, mr->map, map_len, rte_eal_iova_mode(), dma_err, sizeof(dma_err));
	if (rc < 0) {
		munmap(mr->map, map_len);
		mr->map = NULL;
		a->regions_dma_refused++;
		MRCD_LOG(ctrl, WARNING, "application pid %d: region of %lu bytes refused: %s",
			(int)s->pid, (unsigned long)len, dma_err);
		return mrcd_apps_fail(rep, -rc, "%s", dma_err);
	}
	mr->map_len = map_len;
	mr->addr = addr;
	mr->len = len;
	mr->pd = mrcd_apps_pd(s, r->u.reg_mr.pd); /* only its QPs of that domain reach it */
	c = (struct mrcd_apps_call){.a = a,
		.mrs = a->d->host[s->host].mrs,
		.mr = mr,
		.access =
			MRC_MR_ACCESS_LOCAL_READ | ((r->u.reg_mr.access & MRC_CHAN_ACC_REMOTE_WRITE)
								   ? MRC_MR_ACCESS_REMOTE_WRITE
								   : 0)};
	rc = mrcd_apps_call_shard(a, s->host, 0, on_reg, &c); /* shard 0 writes the host's table */
	if (rc < 0) {
		mrcd_apps_dma_unregister(&mr->dma, mr->map, map_len);
		munmap(mr->map, map_len);
		mr->map = NULL;
		return mrcd_apps_fail(
			rep, -rc, "the host's region table refused it: %s", strerror(-rc));
	}
	mr->key = (uint32_t)rc;
	s->mr_bytes += len;
	rep->u.reg_mr.key = mr->key;
	return 0;
}

/*
 * Let a region go: its key stops matching at once, its pages are unmapped
 * once no packet holds them. Every shard of the host reads the region
 * table, so each step waits for all of them to pass
 * (mrcd_apps_host_barrier): the key goes (retired: its slot keeps counting
 * the packets in flight), and after the next pass no post finds the region,
 * no peer's write being placed under it is left, nor a packet being built
 * from it: a message still posted from it finds its key gone at its next
 * packet and fails its QP (mrc_qp_tx.c). Packets still on their way (a shard's
 * staging, a port's tx queue, a NIC's descriptors not yet reclaimed) hold
 * the pages: then this returns false and the control thread tries again
 * every tick (mrcd_apps_reap) until they are gone. True once the pages are
 * unmapped.
 */
bool
mrcd_apps_release_mr(struct mrcd_apps *a, struct mrcd_app_session *s, struct mrcd_app_mr *mr)
{
	struct mrcd_apps_call c = {.a = a, .mrs = a->d->host[s->host].mrs, .mr = mr};

	if (!mr->dying) {
		int rc;

		mr->dying = true;
		if (mr->key != 0) {
			rc = mrcd_apps_call_shard(a, s->host, 0, on_retire, &c);
			s->mr_bytes -= mr->len; /* the application's no longer */
			mr->retired = rc == 1;
			/* shard 0 retired it in its own pass */
			mrcd_apps_host_barrier(a, s->host, 1);
		}
	}
	if (mr->retired) {
		/* read here first: no round trip to shard 0 each tick while packets hold it */
		if (mrc_mr_slot_attached(c.mrs, mr->key) != 0 ||
			mrcd_apps_call_shard(a, s->host, 0, on_reap, &c) == -EBUSY)
			return false;
		mr->retired = false;
	}
	/* no packet holds the pages and no shard can find them: the NICs may let go */
	mrcd_apps_dma_unregister(&mr->dma, mr->map, mr->map_len);
	munmap(mr->map, mr->map_len);
	memset(mr, 0, sizeof(*mr));
	return true;
}

/* Regions deregistered while packets held them: let each go once they are gone. */
void
mrcd_apps_reap(struct mrcd_apps *a, struct mrcd_app_session *s)
{
	for (unsigned int k = 0; k < RTE_DIM(s->mr); k++)
		if (s->mr[k].dying && s->mr[k].map != NULL) {
			pthread_mutex_lock(&a->lock); /* telemetry reads the sessions under it */
			(void)mrcd_apps_release_mr(a, s, &s->mr[k]);
			pthread_mutex_unlock(&a->lock);
		}
}

int
mrcd_apps_dereg_mr(struct mrcd_apps *a, struct mrcd_app_session *s, const struct mrc_chan_req *r,
	struct mrc_chan_rep *rep)
{
	for (unsigned int k = 0; k < RTE_DIM(s->mr); k++)
		if (s->mr[k].key != 0 && !s->mr[k].dying && s->mr[k].key == r->u.dereg_mr.key) {
			/* As verbs: done once the key stops matching; the pages go when the
			 * packets still carrying them have (mrcd_apps_reap). */
			(void)mrcd_apps_release_mr(a, s, &s->mr[k]);
			return 0;
		}
	return mrcd_apps_fail(
		rep, EINVAL, "key 0x%x is not a region of this application", r->u.dereg_mr.key);
}
