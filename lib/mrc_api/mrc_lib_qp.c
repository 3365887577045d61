/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * lib_mrc: QPs, the calls that ask mrcd: creating one (and mapping the
 * shared memory of its rings, as CQs do too), destroying it, and taking it
 * through its states with verbs and MRC attributes. Posting to the rings
 * is in mrc_lib_post.c, CQs and polling in mrc_lib_cq.c, completion
 * channels in mrc_lib_channel.c, QP hints in mrc_lib_hint.c.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mrc_lib_priv.h"

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
