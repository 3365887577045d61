/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * The verbs front's protection domains and memory: lib_mrc's, registered in
 * place (doc/applications.md, "Memory"). GPU memory cannot be shared with
 * mrcd that way and is refused.
 */

#include <stdint.h>
#include <sys/mman.h>

#include "mrc.h"
#include "vf_priv.h"

struct ibv_pd *
vf_ibv_alloc_pd(struct ibv_context *context)
{
	return mrc_sw_alloc_pd(context);
}
VF_DEFAULT(ibv_alloc_pd)

int
vf_ibv_dealloc_pd(struct ibv_pd *pd)
{
	return mrc_sw_dealloc_pd(pd) == 0 ? 0 : errno;
}
VF_DEFAULT(ibv_dealloc_pd)

/* Access bits mrcd cannot honour: zero-based addresses and on-demand paging. */
#define VF_ACCESS_REFUSED (IBV_ACCESS_ZERO_BASED | IBV_ACCESS_ON_DEMAND)

static struct ibv_mr *
reg(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova, unsigned int access)
{
	/* Optional bits (relaxed ordering) may be ignored by any provider: they are. */
	access &= ~(unsigned int)IBV_ACCESS_OPTIONAL_RANGE;
	/* Peers write at the program's own addresses: another iova cannot be given. */
	if ((access & VF_ACCESS_REFUSED) != 0 || iova != (uintptr_t)addr) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	return mrc_sw_reg_mr(pd, addr, length, (int)access);
}

struct ibv_mr *
vf_ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access)
{
	return reg(pd, addr, length, (uintptr_t)addr, (unsigned int)access);
}
VF_DEFAULT(ibv_reg_mr)

struct ibv_mr *
ibv_reg_mr_iova(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova, int access)
{
	return reg(pd, addr, length, iova, (unsigned int)access);
}

struct ibv_mr *
ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova, unsigned int access)
{
	return reg(pd, addr, length, iova, access);
}

/* GPU (dma-buf) memory: mrcd cannot map it, so it cannot send from it or place into it. */
struct ibv_mr *
ibv_reg_dmabuf_mr(
	struct ibv_pd *pd, uint64_t offset, size_t length, uint64_t iova, int fd, int access)
{
	(void)pd, (void)offset, (void)length, (void)iova, (void)fd, (void)access;
	errno = EOPNOTSUPP;
	return NULL;
}

int
vf_ibv_dereg_mr(struct ibv_mr *mr)
{
	return mrc_sw_dereg_mr(mr) == 0 ? 0 : errno;
}
VF_DEFAULT(ibv_dereg_mr)

int
ibv_rereg_mr(struct ibv_mr *mr, int flags, struct ibv_pd *pd, void *addr, size_t length, int access)
{
	(void)mr, (void)flags, (void)pd, (void)addr, (void)length, (void)access;
	errno = ENOSYS;
	return IBV_REREG_MR_ERR_INPUT; /* the old region stays as it was */
}

/* Registered pages are kept from children already (MADV_DONTFORK): fork support is on. */
static int fork_initialized;

int
ibv_fork_init(void)
{
	__atomic_store_n(&fork_initialized, 1, __ATOMIC_RELAXED);
	return 0;
}

enum ibv_fork_status
ibv_is_fork_initialized(void)
{
	return __atomic_load_n(&fork_initialized, __ATOMIC_RELAXED) ? IBV_FORK_ENABLED
								    : IBV_FORK_DISABLED;
}

/* madvise over the whole pages under [base, base + size). */
static int
fork_range(void *base, size_t size, int advice)
{
	const uintptr_t b = (uintptr_t)base & ~(uintptr_t)4095;
	const uintptr_t e = ((uintptr_t)base + size + 4095) & ~(uintptr_t)4095;

	return madvise((void *)b, e - b, advice) == 0 ? 0 : errno;
}

int
ibv_dontfork_range(void *base, size_t size)
{
	return fork_range(base, size, MADV_DONTFORK);
}

int
ibv_dofork_range(void *base, size_t size)
{
	return fork_range(base, size, MADV_DOFORK);
}
