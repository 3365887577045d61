/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * lib_mrc: CQs, QPs, posting and polling through the shared rings, and what
 * happens when mrcd goes away (every outstanding request completes
 * IBV_WC_WR_FLUSH_ERR, IBV_EVENT_DEVICE_FATAL is reported).
 */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "mrc_lib_priv.h"

/* How often an empty poll looks at the socket for mrcd's end (a system call). */
#define DEATH_CHECK_POLLS 4096

uint8_t *
mrc_lib_create_mapped(struct mrc_context *c, struct mrc_chan_req *r, struct mrc_chan_rep *rep,
	shm_bytes_fn bytes_of)
{
	size_t bytes;
	void *p;
	int fd;

	if (mrc_lib_rpc(c->dev, r, -1, rep, &fd) != 0)
		return NULL;
	bytes = fd >= 0 ? bytes_of(rep) : 0;
	if (bytes == 0) {
		if (fd >= 0)
			close(fd);
		errno = EPROTO;
		return NULL;
	}
	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	return p == MAP_FAILED ? NULL : p;
}

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

/* ---- QPs ---- */

/* A QP's memory: its status, then the send and receive rings of the sizes mrcd granted. */
static size_t
qp_reply_bytes(const struct mrc_chan_rep *rep)
{
	if (rep->u.create_qp.bytes !=
		mrc_chan_qp_bytes(rep->u.create_qp.sq_entries, rep->u.create_qp.rq_entries))
		return 0;
	return rep->u.create_qp.bytes;
}

struct mrc_qp *
mrc_create_qp(struct mrc_context *c, struct mrc_qp_init_attr *attr)
{
	struct mrc_chan_req r = {.op = MRC_CHAN_CREATE_QP};
	struct mrc_chan_rep rep;
	struct mrc_qp *qp;
	unsigned int slot = MRC_LIB_MAX_QPS;
	uint8_t *shm;

	if (c == NULL || attr == NULL || attr->send_cq == NULL || attr->recv_cq == NULL ||
		attr->send_cq->ctx != c || attr->recv_cq->ctx != c || attr->pd == NULL ||
		attr->cap.max_send_wr == 0 || attr->cap.max_send_wr > MRC_CHAN_MAX_SQ ||
		attr->cap.max_recv_wr > MRC_CHAN_MAX_RQ ||
		attr->cap.max_send_sge > MRC_SW_MAX_SGE ||
		attr->cap.max_recv_sge > MRC_SW_MAX_SGE) {
		errno = EINVAL;
		return NULL;
	}
	for (unsigned int k = 0; k < MRC_LIB_MAX_QPS && slot == MRC_LIB_MAX_QPS; k++)
		if (c->qps[k] == NULL)
			slot = k;
	if (slot == MRC_LIB_MAX_QPS) {
		errno = ENOMEM;
		return NULL;
	}
	r.u.create_qp.send_cq = attr->send_cq->id;
	r.u.create_qp.recv_cq = attr->recv_cq->id;
	r.u.create_qp.max_send_wr = attr->cap.max_send_wr;
	r.u.create_qp.max_recv_wr = attr->cap.max_recv_wr;
	r.u.create_qp.sq_sig_all = attr->sq_sig_all != 0;
	r.u.create_qp.pd = attr->pd->handle;
	shm = mrc_lib_create_mapped(c, &r, &rep, qp_reply_bytes);
	if (shm == NULL)
		return NULL;
	qp = calloc(1, sizeof(*qp));
	if (qp != NULL)
		qp->rq_wr = calloc(rep.u.create_qp.rq_entries, sizeof(uint64_t));
	if (qp == NULL || qp->rq_wr == NULL) {
		munmap(shm, rep.u.create_qp.bytes);
		free(qp);
		errno = ENOMEM;
		return NULL;
	}
	qp->ctx = c;
	qp->qpn = rep.u.create_qp.qpn;
	qp->sq_size = rep.u.create_qp.sq_entries;
	qp->rq_size = rep.u.create_qp.rq_entries;
	qp->bytes = rep.u.create_qp.bytes;
	qp->shm = shm;
	qp->st = (struct mrc_chan_qp_status *)qp->shm;
	qp->sq = (struct mrc_chan_ring *)(qp->shm + mrc_chan_qp_sq_off());
	qp->sqe = (struct mrc_chan_swqe *)(qp->sq + 1);
	qp->rq = (struct mrc_chan_ring *)(qp->shm + mrc_chan_qp_rq_off(qp->sq_size));
	qp->rqe = (struct mrc_chan_rwqe *)(qp->rq + 1);
	qp->init = *attr;
	qp->init.cap.max_send_wr = qp->sq_size;
	qp->init.cap.max_recv_wr = qp->rq_size;
	c->qps[slot] = qp;
	return qp;
}

int
mrc_destroy_qp(struct mrc_qp *qp)
{
	struct mrc_chan_req r = {.op = MRC_CHAN_DESTROY_QP};
	struct mrc_chan_rep rep;

	if (qp == NULL) {
		errno = EINVAL;
		return -1;
	}
	r.u.destroy_qp.qpn = qp->qpn;
	if (mrc_lib_rpc(qp->ctx->dev, &r, -1, &rep, NULL) != 0 && !qp->ctx->dev->dead)
		return -1;
	for (unsigned int k = 0; k < MRC_LIB_MAX_QPS; k++)
		if (qp->ctx->qps[k] == qp)
			qp->ctx->qps[k] = NULL;
	munmap(qp->shm, qp->bytes);
	free(qp->rq_wr);
	free(qp);
	return 0;
}

int
mrc_get_qpn(struct mrc_qp *qp, uint32_t *qpn)
{
	if (qp == NULL || qpn == NULL) {
		errno = EINVAL;
		return -1;
	}
	*qpn = qp->qpn;
	return 0;
}

static uint32_t
mtu_bytes(enum ibv_mtu m)
{
	return m >= IBV_MTU_256 && m <= IBV_MTU_4096 ? 128u << m : 0;
}

int
mrc_modify_qp(struct mrc_qp *qp, struct ibv_qp_attr *vattr, int vattr_mask,
	struct mrc_qp_attr *mrc_attr, int mrc_attr_mask)
{
	struct mrc_chan_req r = {.op = MRC_CHAN_MODIFY_QP};
	struct mrc_chan_rep rep;
	uint32_t m = 0;

	if (qp == NULL || vattr == NULL || (mrc_attr_mask != 0 && mrc_attr == NULL)) {
		errno = EINVAL;
		return EINVAL;
	}
	r.u.modify_qp.qpn = qp->qpn;
	r.u.modify_qp.state = (vattr_mask & IBV_QP_STATE)
				      ? (uint32_t)vattr->qp_state
				      : __atomic_load_n(&qp->st->state, __ATOMIC_ACQUIRE);
	if (vattr_mask & IBV_QP_CUR_STATE) {
		m |= MRC_CHAN_MOD_CUR;
		r.u.modify_qp.cur_state = vattr->cur_qp_state;
	}
	if (vattr_mask & IBV_QP_AV) {
		m |= MRC_CHAN_MOD_AV;
		memcpy(r.u.modify_qp.dgid, vattr->ah_attr.grh.dgid.raw, 16);
	}
	if (vattr_mask & IBV_QP_DEST_QPN) {
		m |= MRC_CHAN_MOD_DEST_QPN;
		r.u.modify_qp.dest_qpn = vattr->dest_qp_num;
	}
	if (vattr_mask & IBV_QP_RQ_PSN) {
		m |= MRC_CHAN_MOD_RQ_PSN;
		r.u.modify_qp.rq_psn = vattr->rq_psn;
	}
	if (vattr_mask & IBV_QP_SQ_PSN) {
		m |= MRC_CHAN_MOD_SQ_PSN;
		r.u.modify_qp.sq_psn = vattr->sq_psn;
	}
	if (vattr_mask & IBV_QP_PATH_MTU) {
		m |= MRC_CHAN_MOD_MTU;
		r.u.modify_qp.mtu = mtu_bytes(vattr->path_mtu);
	}
	if (vattr_mask & IBV_QP_ACCESS_FLAGS) {
		m |= MRC_CHAN_MOD_ACCESS;
		r.u.modify_qp.access = vattr->qp_access_flags;
	}
	/* Verbs' own timeout and retry count map onto MRC's when MRC's are not given. */
	if (mrc_attr_mask & MRC_QP_TIMEOUT) {
		m |= MRC_CHAN_MOD_TIMEOUT;
		r.u.modify_qp.timeout = mrc_attr->timeout;
	} else if (vattr_mask & IBV_QP_TIMEOUT) {
		m |= MRC_CHAN_MOD_TIMEOUT;
		r.u.modify_qp.timeout = vattr->timeout > 24 ? 24 : vattr->timeout;
	}
	if (mrc_attr_mask & MRC_QP_RETRY_CNT) {
		m |= MRC_CHAN_MOD_RETRY;
		r.u.modify_qp.retry_linear = mrc_attr->retry.linear_cnt;
		r.u.modify_qp.retry_exp = mrc_attr->retry.exp_cnt;
	} else if (vattr_mask & IBV_QP_RETRY_CNT) {
		m |= MRC_CHAN_MOD_RETRY;
		r.u.modify_qp.retry_linear = vattr->retry_cnt > 7 ? 7 : vattr->retry_cnt;
		r.u.modify_qp.retry_exp = 25;
	}
	if (mrc_attr_mask & MRC_QP_MPR) {
		m |= MRC_CHAN_MOD_MPR;
		r.u.modify_qp.mpr = mrc_attr->mpr.mpr;
	}
	if (mrc_attr_mask & MRC_QP_MPR_DEST) {
		m |= MRC_CHAN_MOD_MPR_DEST;
		r.u.modify_qp.mpr_dest = mrc_attr->mpr.mpr_dest;
	}
	/* The daemon's profile ids (0 .. 15 today): it refuses one it does not have. */
	if (mrc_attr_mask & (MRC_QP_EV_PROFILE_ID | MRC_QP_CC_PROFILE_ID)) {
		if (((mrc_attr_mask & MRC_QP_EV_PROFILE_ID) &&
			    mrc_attr->profile.ev_profile_id > UINT8_MAX) ||
			((mrc_attr_mask & MRC_QP_CC_PROFILE_ID) &&
				mrc_attr->profile.cc_profile_id > UINT8_MAX)) {
			errno = EINVAL;
			return EINVAL;
		}
		if (mrc_attr_mask & MRC_QP_EV_PROFILE_ID) {
			m |= MRC_CHAN_MOD_EV_PROFILE;
			r.u.modify_qp.ev_profile = (uint8_t)mrc_attr->profile.ev_profile_id;
		}
		if (mrc_attr_mask & MRC_QP_CC_PROFILE_ID) {
			m |= MRC_CHAN_MOD_CC_PROFILE;
			r.u.modify_qp.cc_profile = (uint8_t)mrc_attr->profile.cc_profile_id;
		}
	}
	if ((m & MRC_CHAN_MOD_MTU) && r.u.modify_qp.mtu == 0) {
		errno = EINVAL;
		return EINVAL;
	}
	r.u.modify_qp.mask = m;
	if (mrc_lib_rpc(qp->ctx->dev, &r, -1, &rep, NULL) != 0)
		return errno;
	/* IBV_QP_PORT, RNR, atomics, alternate paths: nothing for MRC; accepted, ignored. */
	if (vattr_mask & IBV_QP_STATE)
		qp->vattr.qp_state = vattr->qp_state;
	if (mrc_attr_mask != 0)
		qp->mattr = *mrc_attr;
	if (vattr_mask & IBV_QP_DEST_QPN)
		qp->vattr.dest_qp_num = vattr->dest_qp_num;
	if (vattr_mask & IBV_QP_PATH_MTU)
		qp->vattr.path_mtu = vattr->path_mtu;
	if (vattr_mask & IBV_QP_ACCESS_FLAGS)
		qp->vattr.qp_access_flags = vattr->qp_access_flags;
	return 0;
}

int
mrc_query_qp(struct mrc_qp *qp, struct ibv_qp_attr *vattr, int vattr_mask,
	struct mrc_qp_attr *mrc_attr, int mrc_attr_mask, struct mrc_qp_init_attr *init_attr)
{
	(void)vattr_mask;
	(void)mrc_attr_mask;
	if (qp == NULL) {
		errno = EINVAL;
		return EINVAL;
	}
	if (vattr != NULL) {
		*vattr = qp->vattr;
		vattr->qp_state =
			(enum ibv_qp_state)__atomic_load_n(&qp->st->state, __ATOMIC_ACQUIRE);
		vattr->cur_qp_state = vattr->qp_state;
		vattr->cap = qp->init.cap;
	}
	if (mrc_attr != NULL)
		*mrc_attr = qp->mattr;
	if (init_attr != NULL)
		*init_attr = qp->init;
	return 0;
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
