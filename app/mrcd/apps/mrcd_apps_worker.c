/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: the worker lcores, each for the application QPs on its shards
 * (mrcd_apps.h). Per QP and pass: the send ring's new requests, each copied
 * out of shared memory, checked and posted to the engine's QP; then the
 * engine's completions, turned into the application's (only the signalled
 * sends, every error, a posted receive per Write-with-immediate) on the
 * completion ring this worker owns in each CQ. Nothing here waits on the
 * application: a full CQ is an overrun that puts the QP in ERROR, a missing
 * receive too; each is counted.
 */

#include <string.h>

#include <rte_cycles.h>

#include "mrc_mr.h"
#include "mrcd_apps.h"
#include "mrcd_apps_priv.h"

void
mrcd_app_qp_to_error(struct mrcd_app_qp *q, uint32_t why, uint64_t now)
{
	if (q->qp != NULL && mrc_qp_state(q->qp) != MRC_QP_ERROR)
		(void)mrc_qp_modify(q->qp, MRC_QP_ERROR, NULL, now, NULL, NULL);
	if (!q->error_told) {
		q->error_told = true;
		__atomic_store_n(&q->st->error, why, __ATOMIC_RELAXED);
		__atomic_store_n(&q->st->state, MRC_CHAN_QPS_ERR, __ATOMIC_RELAXED);
		__atomic_fetch_add(&q->st->events, 1, __ATOMIC_RELEASE);
	}
}

/* One completion on this worker's ring of `cq`; false when it is full (an overrun). */
void
mrcd_apps_cq_notify(struct mrcd_app_cq *cq)
{
	struct mrc_chan_cq_status *st = (struct mrc_chan_cq_status *)cq->shm;

	/* Armed: one wake-up, through the control thread (it writes a byte on the channel). */
	if (__atomic_exchange_n(&st->armed, 0, __ATOMIC_ACQ_REL) == 0)
		return;
	__atomic_store_n(&st->fired, 1, __ATOMIC_RELEASE);
	if (rte_ring_mp_enqueue(cq->wakes, cq->token) == 0)
		return;
	/* The ring is full (other applications' wake-ups): owed, control finds it. */
	__atomic_fetch_add(&cq->wakes_dropped, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&cq->wake_owed, 1, __ATOMIC_RELEASE);
	__atomic_fetch_add(cq->owed, 1, __ATOMIC_RELEASE);
}

static bool
push(struct mrcd_app_cq *cq, unsigned int w, const struct mrc_chan_cqe *e)
{
	struct mrc_chan_ring *r =
		(struct mrc_chan_ring *)(cq->shm + mrc_chan_cq_ring_off(cq->entries, w));
	struct mrc_chan_cqe *ring = (struct mrc_chan_cqe *)(r + 1);
	/* the consumer's tail is the application's: only ever compared, never trusted */
	const uint32_t tail = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
	const uint32_t head = cq->head[w];

	if (head - tail >= cq->entries) {
		__atomic_fetch_add(&cq->overruns, 1, __ATOMIC_RELAXED);
		return false;
	}
	memcpy(&ring[head & (cq->entries - 1)], e, sizeof(*e));
	cq->head[w] = head + 1;
	__atomic_store_n(&r->head, head + 1, __ATOMIC_RELEASE);
	if (cq->channel != 0)
		mrcd_apps_cq_notify(cq);
	return true;
}

static void
complete(struct mrcd_app_qp *q, struct mrcd_app_cq *cq, const struct mrc_chan_cqe *e, uint64_t now)
{
	if (!push(cq, q->worker, e)) {
		q->cnt.cq_overruns++;
		mrcd_app_qp_to_error(q, MRC_CHAN_QPE_CQ_OVERRUN, now);
	}
}

static void
send_done(struct mrcd_app_qp *q, uint64_t wr_id, uint32_t sq_index, uint8_t status, uint64_t now)
{
	const struct mrc_chan_cqe e = {.wr_id = wr_id,
		.qpn = q->qpn,
		.sq_index = sq_index,
		.opcode = MRC_CHAN_WC_WRITE,
		.status = status};

	complete(q, q->scq, &e, now);
}

/* A request that cannot be posted: completed in error, and the QP to ERROR (as verbs). */
static void
refuse(struct mrcd_app_qp *q, const struct mrc_chan_swqe *w, uint32_t idx,
	enum mrc_chan_refusal why, uint64_t now)
{
	q->cnt.refused[why]++;
	send_done(q, w->wr_id, idx,
		why == MRC_CHAN_REF_wqe_key ? MRC_CHAN_WC_LOC_PROT : MRC_CHAN_WC_LOC_QP_OP, now);
	mrcd_app_qp_to_error(q, MRC_CHAN_QPE_LOCAL, now);
}

static void
take_sends(struct mrcd_daemon *d, struct mrcd_app_qp *q, uint64_t now)
{
	const uint32_t head = __atomic_load_n(&q->sq->head, __ATOMIC_ACQUIRE);
	const bool flush = mrc_qp_state(q->qp) == MRC_QP_ERROR;
	uint32_t n;

	if (mrc_chan_ring_count(head, q->sq_tail, q->sq_size, &n) != MRC_CHAN_REF_NONE) {
		q->cnt.refused[MRC_CHAN_REF_ring_index]++;
		mrcd_app_qp_to_error(q, MRC_CHAN_QPE_LOCAL, now);
		q->sq_tail = head; /* nothing of a scribbled ring is taken */
		__atomic_store_n(&q->sq->tail, q->sq_tail, __ATOMIC_RELEASE);
		return;
	}
	for (uint32_t k = 0; k < n; k++) {
		const uint32_t idx = q->sq_tail;
		struct mrc_chan_swqe w;
		enum mrc_chan_refusal why;
		struct mrc_mr *mr;
		int rc;

		/* Copied once: what is checked is what is used, whatever the application does. */
		memcpy(&w, &q->sqe[idx & (q->sq_size - 1)], sizeof(w));
		if (flush || mrc_qp_state(q->qp) == MRC_QP_ERROR) {
			q->cnt.flushed++;
			send_done(q, w.wr_id, idx, MRC_CHAN_WC_FLUSH, now);
			q->sq_tail++;
			continue;
		}
		why = mrc_chan_swqe_check(&w);
		if (why != MRC_CHAN_REF_NONE) {
			refuse(q, &w, idx, why, now);
			q->sq_tail++;
			continue;
		}
		/*
		 * A region of the QP's domain, which is this session's (mrcd_apps_pd); a
		 * message of no bytes names none.
		 */
		mr = NULL;
		if (w.len != 0 && (mr = mrc_mr_check(d->host[q->host].mrs, q->pd, w.lkey, w.laddr,
					   w.len, MRC_MR_ACCESS_LOCAL_READ)) == NULL) {
			refuse(q, &w, idx, MRC_CHAN_REF_wqe_key, now);
			q->sq_tail++;
			continue;
		}
		rc = mrc_qp_post_write(q->qp, q->next_id,
			mr != NULL ? mrc_mr_ptr(mr, w.laddr) : NULL, w.len, w.lkey, w.raddr, w.rkey,
			w.opcode == MRC_CHAN_WR_WRITE_IMM, w.imm);
		if (rc == -ENOSPC || rc == -EPERM)
			break; /* the engine's queue is full, or not yet RTS: next pass */
		if (rc != 0) {
			refuse(q, &w, idx, MRC_CHAN_REF_wqe_len, now);
			q->sq_tail++;
			continue;
		}
		q->shadow[q->next_id & (q->sq_size - 1)] =
			(struct mrcd_app_wr){.wr_id = w.wr_id, .sq_index = idx, .flags = w.flags};
		q->next_id++;
		q->sq_tail++;
		q->cnt.posted++;
	}
	__atomic_store_n(&q->sq->tail, q->sq_tail, __ATOMIC_RELEASE);
}

/* The next posted receive's wr_id; false when none is posted (or the ring was scribbled). */
static bool
take_recv(struct mrcd_app_qp *q, uint64_t *wr_id)
{
	const uint32_t head = __atomic_load_n(&q->rq->head, __ATOMIC_ACQUIRE);
	uint32_t n;

	if (mrc_chan_ring_count(head, q->rq_tail, q->rq_size, &n) != MRC_CHAN_REF_NONE) {
		q->cnt.refused[MRC_CHAN_REF_ring_index]++;
		return false;
	}
	if (n == 0)
		return false;
	memcpy(wr_id, &q->rqe[q->rq_tail & (q->rq_size - 1)].wr_id, sizeof(*wr_id));
	q->rq_tail++;
	__atomic_store_n(&q->rq->tail, q->rq_tail, __ATOMIC_RELEASE);
	return true;
}

static void
take_completions(struct mrcd_app_qp *q, uint64_t now)
{
	struct mrc_cqe e[32];
	unsigned int n;

	while ((n = mrc_cq_poll(q->icq, e, RTE_DIM(e))) > 0)
		for (unsigned int k = 0; k < n; k++) {
			if (e[k].opcode == MRC_CQE_RECV_IMM) {
				struct mrc_chan_cqe c = {.qpn = q->qpn,
					.imm = e[k].imm,
					.byte_len = e[k].byte_len,
					.opcode = MRC_CHAN_WC_RECV_IMM};

				if (!take_recv(q, &c.wr_id)) {
					q->cnt.rnr++;
					mrcd_app_qp_to_error(q, MRC_CHAN_QPE_RNR, now);
					continue;
				}
				q->cnt.recvs_done++;
				complete(q, q->rcq, &c, now);
				continue;
			}
			const struct mrcd_app_wr *sw = &q->shadow[e[k].wr_id & (q->sq_size - 1)];
			uint8_t st = MRC_CHAN_WC_OK;

			if (e[k].status != MRC_CQE_OK) {
				const enum mrc_qp_error er = mrc_qp_error(q->qp);

				st = er == MRC_QP_ERR_RETRY_EXCEEDED ? MRC_CHAN_WC_RETRY_EXC
				     : er == MRC_QP_ERR_REMOTE_OP    ? MRC_CHAN_WC_REM_ACCESS
								     : MRC_CHAN_WC_FLUSH;
				q->cnt.flushed++;
			} else {
				q->cnt.sends_done++;
			}
			if (st != MRC_CHAN_WC_OK || q->sig_all ||
				(sw->flags & MRC_CHAN_WR_SIGNALED))
				send_done(q, sw->wr_id, sw->sq_index, st, now);
		}
}

static void
poll_qp(struct mrcd_daemon *d, struct mrcd_app_qp *q, uint64_t now)
{
	if (mrc_qp_state(q->qp) == MRC_QP_ERROR && !q->error_told) {
		const enum mrc_qp_error er = mrc_qp_error(q->qp);

		mrcd_app_qp_to_error(q,
			er == MRC_QP_ERR_RETRY_EXCEEDED ? MRC_CHAN_QPE_RETRY
			: er == MRC_QP_ERR_REMOTE_OP	? MRC_CHAN_QPE_REMOTE
							: MRC_CHAN_QPE_LOCAL,
			now);
	}
	take_sends(d, q, now);
	take_completions(q, now);
	/*
	 * In ERROR, posted receives complete flushed (as verbs): at most a ring's
	 * worth a pass, since take_recv reads the application's head afresh each
	 * time and an application that keeps moving it would keep the worker here.
	 */
	if (q->error_told) {
		struct mrc_chan_cqe c = {
			.qpn = q->qpn, .opcode = MRC_CHAN_WC_RECV_IMM, .status = MRC_CHAN_WC_FLUSH};

		for (uint32_t i = 0; i < q->rq_size && take_recv(q, &c.wr_id); i++) {
			q->cnt.flushed++;
			if (!push(q->rcq, q->worker, &c)) {
				q->cnt.cq_overruns++;
				break;
			}
		}
	}
}

void
mrcd_apps_worker_poll(struct mrcd_daemon *d, unsigned int w)
{
	struct mrcd_apps_worker *aw;
	uint64_t now;

	if (d->apps == NULL)
		return;
	aw = &d->apps->w[w];
	if (aw->n == 0)
		return;
	now = rte_rdtsc();
	for (unsigned int k = 0; k < aw->n; k++)
		poll_qp(d, aw->qp[k], now);
}
