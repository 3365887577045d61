/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#include <errno.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_malloc.h>

#include "mrc_trk_pool.h"

struct mrc_trk_pool *
mrc_trk_pool_create(uint32_t n_blocks, size_t block_bytes, int socket)
{
	struct mrc_trk_pool *p;

	if (n_blocks == 0 || block_bytes == 0) {
		rte_errno = EINVAL;
		return NULL;
	}
	block_bytes = RTE_ALIGN_CEIL(block_bytes, RTE_CACHE_LINE_SIZE);
	p = rte_zmalloc_socket("mrc_trk_pool",
		sizeof(*p) + (size_t)n_blocks * sizeof(p->free_stack[0]), RTE_CACHE_LINE_SIZE,
		socket);
	if (p == NULL)
		goto nomem;
	p->blocks = rte_zmalloc_socket(
		"mrc_trk_blocks", (size_t)n_blocks * block_bytes, RTE_CACHE_LINE_SIZE, socket);
	if (p->blocks == NULL)
		goto nomem;
	p->n_blocks = p->n_free = n_blocks;
	p->block_bytes = block_bytes;
	/* Lent from the top of the stack: the first block is lent first. */
	for (uint32_t i = 0; i < n_blocks; i++)
		p->free_stack[i].blk = p->blocks + (size_t)(n_blocks - 1 - i) * block_bytes;
	return p;
nomem:
	rte_free(p);
	rte_errno = ENOMEM;
	return NULL;
}

int
mrc_trk_pool_free(struct mrc_trk_pool *p)
{
	if (p == NULL)
		return 0;
	if (p->n_free != p->n_blocks)
		return -EBUSY;
	rte_free(p->blocks);
	rte_free(p);
	return 0;
}

size_t
mrc_trk_pool_mem_bytes(const struct mrc_trk_pool *p)
{
	return sizeof(*p) + (size_t)p->n_blocks * (sizeof(p->free_stack[0]) + p->block_bytes);
}
