/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * lib_mrc: posting work requests, the program's fast path. A send or
 * receive request is checked and written into the QP's shared ring, whose
 * head the worker that owns the QP reads; no system call. Apart from the
 * QP's setup and state changes (mrc_lib_qp.c), which go through mrcd.
 */

#include <errno.h>
#include <string.h>

#include "mrc_lib_priv.h"

/* A work queue is full while mrcd has not taken what was posted (its tail)
 * or the program has not yet polled what completed: either would let a new
 * entry overwrite one still in use. */
static bool
queue_full(const struct mrc_chan_ring *ring, uint32_t head, uint32_t done, uint32_t size)
{
	return head - __atomic_load_n(&ring->tail, __ATOMIC_ACQUIRE) >= size || head - done >= size;
}

/* Publish one more entry to the worker that owns the QP. */
static void
queue_publish(struct mrc_chan_ring *ring, uint32_t *head)
{
	(*head)++;
	__atomic_store_n(&ring->head, *head, __ATOMIC_RELEASE);
}

/* verbs' contract for a refused request: errno and the return value say
 * why; the caller learns which request through its bad_wr. */
static int
post_refused(int err)
{
	if (err != 0)
		errno = err;
	return err;
}

int
mrc_post_send(struct mrc_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr)
{
	int err = 0;

	if (qp == NULL)
		return post_refused(EINVAL);
	for (; wr != NULL; wr = wr->next) {
		const uint32_t st = __atomic_load_n(&qp->st->state, __ATOMIC_ACQUIRE);
		struct mrc_chan_swqe *e;

		if (qp->ctx->dev->dead) {
			err = EIO; /* mrcd is gone */
			break;
		}
		/* In ERROR a request is taken and completes flushed, as verbs has it. */
		if ((st != MRC_CHAN_QPS_RTS && st != MRC_CHAN_QPS_ERR) ||
			(wr->opcode != IBV_WR_RDMA_WRITE &&
				wr->opcode != IBV_WR_RDMA_WRITE_WITH_IMM) ||
			wr->num_sge < 0 || wr->num_sge > MRC_SW_MAX_SGE ||
			(wr->num_sge == 1 && wr->sg_list == NULL) ||
			(wr->num_sge == 1 && !mrc_lib_region_ok(qp->ctx->dev, qp->init.pd->handle,
						     wr->sg_list[0].lkey, wr->sg_list[0].addr,
						     wr->sg_list[0].length))) {
			err = EINVAL;
			break;
		}
		if (queue_full(qp->sq, qp->sq_head, qp->sq_done, qp->sq_size)) {
			err = ENOMEM;
			break;
		}
		e = &qp->sqe[qp->sq_head & (qp->sq_size - 1)];
		memset(e, 0, sizeof(*e));
		e->wr_id = wr->wr_id;
		e->opcode =
			wr->opcode == IBV_WR_RDMA_WRITE ? MRC_CHAN_WR_WRITE : MRC_CHAN_WR_WRITE_IMM;
		e->flags = (wr->send_flags & IBV_SEND_SIGNALED) ? MRC_CHAN_WR_SIGNALED : 0;
		if (wr->num_sge == 1) {
			e->laddr = wr->sg_list[0].addr;
			e->len = wr->sg_list[0].length;
			e->lkey = wr->sg_list[0].lkey;
		}
		/* else no data (a Write-with-immediate as a signal): no region, lkey 0 */
		e->raddr = wr->wr.rdma.remote_addr;
		e->rkey = wr->wr.rdma.rkey;
		e->imm = wr->imm_data;
		queue_publish(qp->sq, &qp->sq_head);
	}
	if (err != 0 && bad_wr != NULL)
		*bad_wr = wr;
	return post_refused(err);
}

int
mrc_post_recv(struct mrc_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr)
{
	int err = 0;

	if (qp == NULL)
		return post_refused(EINVAL);
	for (; wr != NULL; wr = wr->next) {
		const uint32_t st = __atomic_load_n(&qp->st->state, __ATOMIC_ACQUIRE);

		if (qp->ctx->dev->dead || st == MRC_CHAN_QPS_RESET) {
			err = qp->ctx->dev->dead ? EIO : EINVAL;
			break;
		}
		if (wr->num_sge < 0 || wr->num_sge > 1) {
			err = EINVAL;
			break;
		}
		if (queue_full(qp->rq, qp->rq_head, qp->rq_done, qp->rq_size)) {
			err = ENOMEM;
			break;
		}
		qp->rq_wr[qp->rq_head & (qp->rq_size - 1)] = wr->wr_id;
		qp->rqe[qp->rq_head & (qp->rq_size - 1)].wr_id = wr->wr_id;
		queue_publish(qp->rq, &qp->rq_head);
	}
	if (err != 0 && bad_wr != NULL)
		*bad_wr = wr;
	return post_refused(err);
}
