/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * lib_mrc: what a program polls for. CQs (creating, destroying, polling
 * the per-worker rings into verbs completions) and asynchronous events;
 * and mrcd's end, which a poll of either notices (every outstanding
 * request then completes IBV_WC_WR_FLUSH_ERR, IBV_EVENT_DEVICE_FATAL is
 * reported). Together because both polls share that check, which an empty
 * CQ poll runs every time.
 */

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "mrc_lib_priv.h"

/* How often an empty poll looks at the socket for mrcd's end (a system call). */
#define DEATH_CHECK_POLLS 4096

/* ---- CQs ---- */

/* A CQ's memory: one ring per worker (at most 64), each of the entries mrcd granted. */
static size_t
cq_reply_bytes(const struct mrc_chan_rep *rep)
{
	const uint32_t n_rings = rep->u.create_cq.n_rings;

	if (n_rings == 0 || n_rings > 64 ||
		rep->u.create_cq.bytes != mrc_chan_cq_bytes(rep->u.create_cq.entries, n_rings))
		return 0;
	return rep->u.create_cq.bytes;
}

struct mrc_cq *
mrc_create_cq(struct mrc_context *c, int cqe, void *cq_context, struct mrc_comp_channel *channel,
	int comp_vector)
{
	struct mrc_chan_req r = {.op = MRC_CHAN_CREATE_CQ};
	struct mrc_chan_rep rep;
	unsigned int slot;
	struct mrc_cq *cq;
	uint8_t *shm;

	(void)comp_vector;
	if (c == NULL || cqe <= 0 || (uint32_t)cqe > MRC_CHAN_MAX_CQ) {
		errno = EINVAL;
		return NULL;
	}
	if (channel != NULL && channel->ctx != c) {
		errno = EINVAL;
		return NULL;
	}
	for (slot = 0; slot < MRC_LIB_MAX_CQS && c->cqs[slot] != NULL; slot++)
		;
	if (slot == MRC_LIB_MAX_CQS) {
		errno = ENOMEM;
		return NULL;
	}
	r.u.create_cq.entries = (uint32_t)cqe;
	r.u.create_cq.channel = channel != NULL ? channel->id : 0;
	shm = mrc_lib_create_mapped(c, &r, &rep, cq_reply_bytes);
	if (shm == NULL)
		return NULL;
	cq = calloc(1, sizeof(*cq));
	if (cq == NULL) {
		munmap(shm, rep.u.create_cq.bytes);
		return NULL;
	}
	cq->ctx = c;
	cq->id = rep.u.create_cq.cq;
	cq->entries = rep.u.create_cq.entries;
	cq->n_rings = rep.u.create_cq.n_rings;
	cq->bytes = rep.u.create_cq.bytes;
	cq->cq_context = cq_context;
	cq->channel = channel;
	cq->shm = shm;
	c->cqs[slot] = cq;
	return cq;
}

int
mrc_destroy_cq(struct mrc_cq *cq)
{
	struct mrc_chan_req r = {.op = MRC_CHAN_DESTROY_CQ};
	struct mrc_chan_rep rep;

	if (cq == NULL) {
		errno = EINVAL;
		return -1;
	}
	if (cq->events_got != cq->events_acked) {
		errno = EBUSY; /* events got must be acknowledged first */
		return -1;
	}
	r.u.destroy_cq.cq = cq->id;
	if (mrc_lib_rpc(cq->ctx->dev, &r, -1, &rep, NULL) != 0 && !cq->ctx->dev->dead)
		return -1;
	for (unsigned int k = 0; k < MRC_LIB_MAX_CQS; k++)
		if (cq->ctx->cqs[k] == cq)
			cq->ctx->cqs[k] = NULL;
	munmap(cq->shm, cq->bytes);
	free(cq->flush);
	free(cq);
	return 0;
}

static struct mrc_qp *
qp_of(struct mrc_context *c, uint32_t qpn)
{
	for (unsigned int k = 0; k < MRC_LIB_MAX_QPS; k++)
		if (c->qps[k] != NULL && c->qps[k]->qpn == qpn)
			return c->qps[k];
	return NULL;
}

static const enum ibv_wc_status wc_status[] = {
	[MRC_CHAN_WC_OK] = IBV_WC_SUCCESS,
	[MRC_CHAN_WC_FLUSH] = IBV_WC_WR_FLUSH_ERR,
	[MRC_CHAN_WC_LOC_PROT] = IBV_WC_LOC_PROT_ERR,
	[MRC_CHAN_WC_LOC_QP_OP] = IBV_WC_LOC_QP_OP_ERR,
	[MRC_CHAN_WC_REM_ACCESS] = IBV_WC_REM_ACCESS_ERR,
	[MRC_CHAN_WC_RETRY_EXC] = IBV_WC_RETRY_EXC_ERR,
};

static void
to_wc(struct mrc_cq *cq, const struct mrc_chan_cqe *e, struct ibv_wc *wc)
{
	struct mrc_qp *qp = qp_of(cq->ctx, e->qpn);

	memset(wc, 0, sizeof(*wc));
	wc->wr_id = e->wr_id;
	wc->status = e->status < sizeof(wc_status) / sizeof(wc_status[0]) ? wc_status[e->status]
									  : IBV_WC_GENERAL_ERR;
	wc->qp_num = e->qpn;
	wc->byte_len = e->byte_len;
	if (e->opcode == MRC_CHAN_WC_RECV_IMM) {
		wc->opcode = IBV_WC_RECV_RDMA_WITH_IMM;
		wc->imm_data = e->imm;
		wc->wc_flags = IBV_WC_WITH_IMM;
		if (qp != NULL)
			qp->rq_done++;
	} else {
		wc->opcode = IBV_WC_RDMA_WRITE;
		/* in order: every earlier request of the QP is done too */
		if (qp != NULL && e->sq_index - qp->sq_done < qp->sq_size)
			qp->sq_done = e->sq_index + 1;
	}
}

static bool
dev_gone(struct mrc_lib_dev *dev)
{
	struct pollfd p = {.fd = dev->fd, .events = POLLIN};

	if (dev->dead)
		return true;
	if (++dev->empty_polls < DEATH_CHECK_POLLS)
		return false;
	dev->empty_polls = 0;
	if (poll(&p, 1, 0) == 1 && (p.revents & (POLLHUP | POLLERR | POLLIN)) != 0) {
		char b;

		/* mrcd never speaks unasked: readable means its end */
		if (recv(dev->fd, &b, 1, MSG_DONTWAIT | MSG_PEEK) <= 0 ||
			(p.revents & POLLHUP) != 0) {
			mrc_lib_dev_died(dev);
			return true;
		}
	}
	return false;
}

int
mrc_poll_cq(struct mrc_cq *cq, int num_entries, struct ibv_wc *wc)
{
	int n = 0;

	if (cq == NULL || num_entries < 0 || (num_entries > 0 && wc == NULL)) {
		errno = EINVAL;
		return -1;
	}
	for (uint32_t looked = 0; n < num_entries && looked < cq->n_rings;) {
		const uint32_t ri = cq->next_ring;
		struct mrc_chan_ring *r =
			(struct mrc_chan_ring *)(cq->shm + mrc_chan_cq_ring_off(cq->entries, ri));
		const struct mrc_chan_cqe *e = (const struct mrc_chan_cqe *)(r + 1);
		const uint32_t head = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);

		if (head == cq->tail[ri]) {
			cq->next_ring = (ri + 1) % cq->n_rings;
			looked++;
			continue;
		}
		/* Per QP in order: each QP's completions come from one worker's ring. */
		to_wc(cq, &e[cq->tail[ri] & (cq->entries - 1)], &wc[n++]);
		cq->tail[ri]++;
		__atomic_store_n(&r->tail, cq->tail[ri], __ATOMIC_RELEASE);
		/* One ring after the other, an entry each: a worker that keeps its ring busy
		 * does not starve another's, whose ring would fill and overrun (QP to ERROR). */
		cq->next_ring = (ri + 1) % cq->n_rings;
		looked = 0;
	}
	if (n == 0 && dev_gone(cq->ctx->dev))
		while (n < num_entries && cq->flush_pos < cq->n_flush)
			wc[n++] = cq->flush[cq->flush_pos++];
	return n;
}

/* ---- the end of mrcd ---- */

static void
add_flush(struct mrc_cq *cq, uint64_t wr_id, uint32_t qpn, enum ibv_wc_opcode op)
{
	struct ibv_wc *w;

	if (cq == NULL)
		return;
	w = realloc(cq->flush, (cq->n_flush + 1) * sizeof(*w));
	if (w == NULL)
		return;
	cq->flush = w;
	memset(&w[cq->n_flush], 0, sizeof(*w));
	w[cq->n_flush].wr_id = wr_id;
	w[cq->n_flush].status = IBV_WC_WR_FLUSH_ERR;
	w[cq->n_flush].opcode = op;
	w[cq->n_flush].qp_num = qpn;
	cq->n_flush++;
}

void
mrc_lib_dev_died(struct mrc_lib_dev *dev)
{
	struct mrc_context *c = dev->mctx;

	if (dev->dead)
		return;
	dev->dead = true;
	if (c == NULL)
		return;
	/* What mrcd had not completed, in order, after what it had. */
	for (unsigned int k = 0; k < MRC_LIB_MAX_QPS; k++) {
		struct mrc_qp *qp = c->qps[k];

		if (qp == NULL)
			continue;
		for (uint32_t i = qp->sq_done; i != qp->sq_head; i++)
			add_flush(qp->init.send_cq, qp->sqe[i & (qp->sq_size - 1)].wr_id, qp->qpn,
				IBV_WC_RDMA_WRITE);
		for (uint32_t i = qp->rq_done; i != qp->rq_head; i++)
			add_flush(qp->init.recv_cq, qp->rq_wr[i & (qp->rq_size - 1)], qp->qpn,
				IBV_WC_RECV_RDMA_WITH_IMM);
		qp->sq_done = qp->sq_head;
		qp->rq_done = qp->rq_head;
	}
}

/* ---- asynchronous events ---- */

int
mrc_get_async_event(struct mrc_context *c, struct mrc_async_event *event)
{
	if (c == NULL || event == NULL) {
		errno = EINVAL;
		return -1;
	}
	/* Blocks as ibv_get_async_event does, looking every millisecond. */
	for (;;) {
		if (c->dev->dead || dev_gone(c->dev)) {
			if (!c->dev->fatal_told) {
				c->dev->fatal_told = true;
				memset(event, 0, sizeof(*event));
				event->event_type = IBV_EVENT_DEVICE_FATAL;
				return 0;
			}
		}
		for (unsigned int k = 0; k < MRC_LIB_MAX_QPS; k++) {
			struct mrc_qp *qp = c->qps[k];
			uint32_t ev;

			if (qp == NULL)
				continue;
			ev = __atomic_load_n(&qp->st->events, __ATOMIC_ACQUIRE);
			if (ev != qp->events_seen) {
				const uint32_t why =
					__atomic_load_n(&qp->st->error, __ATOMIC_RELAXED);

				qp->events_seen = ev;
				memset(event, 0, sizeof(*event));
				if (why == MRC_CHAN_QPE_CQ_OVERRUN) {
					event->element.cq = qp->init.send_cq;
					event->event_type = IBV_EVENT_CQ_ERR;
				} else {
					event->element.qp = qp;
					event->event_type = IBV_EVENT_QP_FATAL;
				}
				return 0;
			}
		}
		if (c->dev->fatal_told) {
			errno = ENODEV;
			return -1;
		}
		c->dev->empty_polls = DEATH_CHECK_POLLS; /* look at the socket each round */
		usleep(1000);
	}
}

void
mrc_ack_async_event(struct mrc_async_event *event)
{
	(void)event;
}
