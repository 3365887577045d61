/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * The QP's control path: create, the state transitions and the attributes
 * each sets (doc/protocol.md, "Queue pairs"), posting, completions, timers.
 * Memory for each part is allocated at the transition that configures it,
 * from the QP's NUMA socket; nothing here runs per packet except the
 * completion helpers.
 */

#include <assert.h>
#include <errno.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "mrc_qp_priv.h"
#include "mrc_seq.h"
#include "mrc_time.h"

MRC_COUNTER_BLOCK_DEFINE(mrc_qp_counters, MRC_QP_COUNTERS);
/* A message's sender and receiver each write one line of counters (mrc_qp.h). */
_Static_assert(offsetof(struct mrc_qp_counters, imm_delivered) + sizeof(uint64_t) <= 64,
	"the per-message counters leave the first line");

static const char *const state_names[] = {"RESET", "INIT", "RTR", "RTS", "ERROR"};
static const char *const error_names[] = {"none", "retry count exceeded",
	"remote operational error", "local error", "moved to ERROR by the user"};

const char *
mrc_qp_state_name(enum mrc_qp_state s)
{
	return (unsigned int)s < RTE_DIM(state_names) ? state_names[s] : "?";
}

const char *
mrc_qp_error_name(enum mrc_qp_error e)
{
	return (unsigned int)e < RTE_DIM(error_names) ? error_names[e] : "?";
}

/* ---- completion queue ---- */

size_t
mrc_cq_memsize(uint32_t n_entries)
{
	return sizeof(struct mrc_cq) + (size_t)n_entries * sizeof(struct mrc_cqe);
}

int
mrc_cq_init(struct mrc_cq *cq, uint32_t n_entries)
{
	if (n_entries == 0 || !rte_is_power_of_2(n_entries))
		return -EINVAL;
	memset(cq, 0, mrc_cq_memsize(n_entries));
	cq->mask = n_entries - 1;
	return 0;
}

unsigned int
mrc_cq_poll(struct mrc_cq *cq, struct mrc_cqe *out, unsigned int max)
{
	unsigned int n = 0;

	while (n < max && cq->head != cq->tail) {
		out[n++] = cq->e[cq->head & cq->mask];
		cq->head++;
	}
	if (cq->head == cq->tail)
		cq->head = cq->tail = 0;
	return n;
}

bool
mrc_qp_cqe_push(struct mrc_qp *qp, const struct mrc_cqe *e)
{
	struct mrc_cq *cq = qp->cq;

	if (cq->tail - cq->head > cq->mask) {
		/* As in verbs, an overrun CQ is fatal for the QP. */
		cq->overflows++;
		return false;
	}
	cq->e[cq->tail & cq->mask] = *e;
	cq->tail++;
	return true;
}

/* ---- errors and completions ---- */

void
mrc_qp_fail(struct mrc_qp *qp, enum mrc_qp_error why)
{
	if (qp->state == MRC_QP_ERROR)
		return;
	qp->state = MRC_QP_ERROR;
	qp->error = (uint8_t)why;
	/* Flush: every message not yet complete completes with an error status. */
	for (; qp->sq_head != qp->sq_tail; qp->sq_head++) {
		const struct qp_wqe *w = &qp->sq[qp->sq_head & qp->sq_mask];
		struct mrc_cqe e = {.wr_id = w->wr_id,
			.qpn = qp->qpn,
			.byte_len = w->len,
			.opcode = w->with_imm ? MRC_CQE_WRITE_IMM : MRC_CQE_WRITE,
			.status = MRC_CQE_FLUSHED};

		mrc_qp_cqe_push(qp, &e);
	}
	qp->sq_send = qp->sq_head;
}

/* ---- tracking memory on loan (mrc_trk_pool.h) ---- */

bool
mrc_qp_trk_get_slow(struct mrc_qp *qp)
{
	uint64_t clean;
	void *blk = mrc_trk_pool_get_tag(qp->trk_pool, &clean);

	if (blk == NULL)
		return false; /* counted by the pool; the data waits, the QP retries on its next
				 turn */
	mrc_rel_tx_attach(qp->rtx, blk, clean);
	return true;
}

static void
trk_put(struct mrc_qp *qp)
{
	uint64_t clean = 0;
	void *blk = qp->rtx != NULL ? mrc_rel_tx_detach(qp->rtx, &clean) : NULL;

	if (blk == NULL)
		return;
	/* The stamp rides with the block: the next borrower skips resetting its lists. */
	mrc_trk_pool_put_tag(qp->trk_pool, blk, clean);
}

/* ---- the Write-IMM table on loan (mrc_qp_init.imm_pool) ---- */

bool
mrc_qp_imm_get(struct mrc_qp *qp)
{
	if (qp->imm != NULL)
		return true;
	qp->imm = mrc_trk_pool_get(qp->imm_pool);
	if (qp->imm == NULL)
		return false; /* counted by the pool and by the caller */
	return true;
}

/* No immediate waits any more: the table (all entries clear) goes back. */
void
mrc_qp_imm_put(struct mrc_qp *qp)
{
	if (qp->imm == NULL || qp->imm_pool == NULL)
		return;
	if (qp->imm_pending != 0) /* a QP torn down with immediates waiting */
		memset(qp->imm, 0, qp->imm_pool->block_bytes);
	qp->imm_pending = 0;
	mrc_trk_pool_put(qp->imm_pool, qp->imm);
	qp->imm = NULL;
}

/* ---- the control answer ring on loan (mrc_qp_init.ctrl_pool) ---- */

size_t
mrc_qp_ctrl_block_bytes(void)
{
	return sizeof(struct qp_ctrl_ring);
}

bool
mrc_qp_ctrl_get(struct mrc_qp *qp)
{
	if (qp->ctrl != NULL)
		return true;
	if (qp->ctrl_pool == NULL)
		return false;
	qp->ctrl = mrc_trk_pool_get(qp->ctrl_pool);
	if (qp->ctrl == NULL)
		return false; /* counted by the pool and by the caller */
	return true;
}

/* No answer waits (or the QP is reset): a lent ring goes back; one of its own stays. */
void
mrc_qp_ctrl_put(struct mrc_qp *qp)
{
	if (qp->ctrl == NULL || qp->ctrl_pool == NULL)
		return;
	mrc_trk_pool_put(qp->ctrl_pool, qp->ctrl);
	qp->ctrl = NULL;
}

/* Everything sent is accounted for: the ring goes back for another QP. */
static inline void
trk_put_if_drained(struct mrc_qp *qp)
{
	if (qp->rtx != NULL && mrc_rel_tx_has_trk(qp->rtx) && mrc_rel_tx_drained(qp->rtx))
		trk_put(qp);
}

/* Messages whose every packet is acknowledged complete, in order. */
void
mrc_qp_complete_sends(struct mrc_qp *qp)
{
	while (qp->sq_head != qp->sq_send) {
		const struct qp_wqe *w = &qp->sq[qp->sq_head & qp->sq_mask];
		uint32_t last = mrc_psn_add(w->first_psn, w->n_pkts - 1);
		struct mrc_cqe e;

		if (w->next_pkt != w->n_pkts || !mrc_psn_lt(last, qp->rtx->snd_una))
			break;
		e = (struct mrc_cqe){.wr_id = w->wr_id,
			.qpn = qp->qpn,
			.byte_len = w->len,
			.opcode = w->with_imm ? MRC_CQE_WRITE_IMM : MRC_CQE_WRITE,
			.status = MRC_CQE_OK};
		if (!mrc_qp_cqe_push(qp, &e)) {
			mrc_qp_fail(qp, MRC_QP_ERR_LOCAL);
			return;
		}
		qp->cnt.msgs_done++;
		qp->sq_head++;
	}
	trk_put_if_drained(qp);
}

/* ---- rel callbacks: what deliveries and losses mean to EV and CC ---- */

/* A silent loss: the path is assumed bad and replaced at once (not when pinned). */
static void
retire_ev(struct mrc_qp *qp, uint32_t ev, uint16_t len, uint64_t now)
{
	const int slot = qp->pin_slot < 0 ? mrc_ev_find(qp->ev, ev) : -1;

	if (slot >= 0)
		mrc_ev_on_loss(qp->ev, slot);
	qp->cnt.ev_losses++;
	mrc_cc_on_loss(&qp->cc, len, now);
}

static void
rel_lost(void *ctx, uint32_t psn, uint32_t ev, uint32_t cookie, uint16_t len, enum mrc_rel_loss why)
{
	struct mrc_qp *qp = ctx;
	const uint64_t now = qp->now_tsc;

	struct mrc_path_counters *pc = mrc_qp_path(qp, ev);

	RTE_SET_USED(psn);
	RTE_SET_USED(cookie);
	if (pc != NULL)
		pc->lost[why]++;
	switch (why) {
	case MRC_REL_LOSS_NACK:
		/* The NACK's reason already told the EV what happened (a trim is not a dead path).
		 */
		if (qp->nack_reason == MRC_NACK_TRIMMED ||
			qp->nack_reason == MRC_NACK_TRIMMED_LASTHOP)
			mrc_cc_on_trim(
				&qp->cc, len, qp->nack_reason == MRC_NACK_TRIMMED_LASTHOP, now);
		else if (qp->nack_reason == MRC_NACK_PSN_SEQ_ERR)
			mrc_cc_on_loss(&qp->cc, len, now); /* go-back-N's only loss signal */
		break;
	case MRC_REL_LOSS_RTO:
		mrc_cc_on_timeout(&qp->cc, now);
		break;
	case MRC_REL_LOSS_REWIND:
		break; /* go-back-N collateral: the loss that caused it was reported first */
	case MRC_REL_LOSS_EV_ORDER:
		/*
		 * Proven by a later packet, or a probe, that arrived on the
		 * same path (rel's rule 1): the path delivers, so this was a
		 * random loss, not a failed path. MRC retires the EV of any
		 * silent loss (doc/protocol.md, "EV lifecycle"); we keep it
		 * in service when the path has just shown it works: under
		 * random loss on every link, retiring spent the backups and
		 * left a third of the pool in rotation, unevenly over the
		 * planes (doc/protocol.md, "Where mrcd departs from MRC"; the
		 * goodput under loss is in doc/performance.md). A path that
		 * loses everything never proves a loss this way: its losses
		 * are found by the timers and retire its EVs as before.
		 * order_loss_retires restores MRC's rule.
		 */
		if (!qp->order_loss_retires) {
			mrc_cc_on_loss(&qp->cc, len, now);
			break;
		}
		retire_ev(qp, ev, len, now);
		break;
	default:
		retire_ev(qp, ev, len, now);
		break;
	}
}

/* Deliveries need nothing here: rel counts the bytes in flight, and completions read snd_una. */
const struct mrc_rel_tx_ops mrc_qp_rel_ops = {.lost = rel_lost};

/* ---- create, destroy, transitions ---- */

_Static_assert(MRC_QP_DEF_RETRY_EXP == MRC_REL_RETRY_EXP_INFINITE, "retry forever by default");

void
mrc_qp_attr_defaults(struct mrc_qp_attr *a, uint8_t n_planes, uint64_t tsc_hz)
{
	memset(a, 0, sizeof(*a));
	mrc_ev_cfg_default(&a->ev, n_planes, tsc_hz);
	/* mrc_qp_defaults.h says why each differs from its module's own default. */
	a->ev.n_active = MRC_QP_DEF_EV_ACTIVE;
	a->ev.n_backup = MRC_QP_DEF_EV_BACKUP;
	a->ev.probe_good_needed = MRC_QP_DEF_PROBE_GOOD;
	a->ev.reshuffle = MRC_QP_DEF_EV_RESHUFFLE;
	a->ev.skip_rotations = MRC_QP_DEF_SKIP_ROTATIONS;
	a->ev.probe_interval_tsc = mrc_us_to_tsc_round_up(MRC_QP_DEF_PROBE_INTERVAL_US, tsc_hz);
	snprintf(a->cc_name, sizeof(a->cc_name), "uet-1.0-nscc");
	a->cc.mtu_bytes = MRC_QP_DEF_MTU;
	a->cc.base_rtt_ns = 10000;
	a->cc.link_bps = 100000000000ull;
	a->cc.tsc_hz = tsc_hz;
	a->cc.trimming_enabled = true;
	a->mpr = MRC_QP_DEF_MPR;
	a->wimm = MRC_QP_DEF_WIMM;
	a->ack_delay_tsc = mrc_us_to_tsc(MRC_QP_DEF_ACK_DELAY_US, tsc_hz);
	a->ack_every = MRC_QP_DEF_ACK_EVERY;
	a->trim_nack = MRC_QP_DEF_TRIM_NACK;
	a->dyn_mpr = MRC_QP_DEF_DYN_MPR;
	a->always_skip_marks = MRC_QP_DEF_ALWAYS_SKIP_MARKS;
	a->peer_dyn_mpr = MRC_QP_DEF_DYN_MPR;
	a->tseth = MRC_QP_DEF_TSETH;
	a->path_order = MRC_QP_DEF_PATH_ORDER;
	a->order_loss_retires = MRC_QP_DEF_ORDER_LOSS_RETIRES;
	a->peer_mpr = MRC_QP_DEF_MPR;
	a->peer_wimm = MRC_QP_DEF_WIMM;
	a->timeout = MRC_QP_DEF_TIMEOUT;
	a->retry_linear = MRC_QP_DEF_RETRY_LINEAR;
	a->retry_exp = MRC_QP_DEF_RETRY_EXP;
	a->initial_rtt_tsc = tsc_hz / 100000;	 /* 10 us */
	a->min_pkt_timeout_tsc = tsc_hz / 50000; /* 20 us */
}

void *
mrc_qp_zalloc(struct mrc_qp *qp, size_t size)
{
	void *p = rte_zmalloc_socket("mrc_qp", size, RTE_CACHE_LINE_SIZE, qp->socket);

	if (p != NULL)
		qp->mem_bytes += size;
	return p;
}

struct mrc_qp *
mrc_qp_create(const struct mrc_qp_init *init, const char **why)
{
	const char *msg = NULL;
	struct mrc_qp *qp;

	if (init->qpn <= MRC_EP_QPN || init->qpn > MRC_BTH_QPN_MASK)
		msg = "qpn must be 3..0xffffff (0-2 are reserved)";
	else if (init->sq_size == 0 || !rte_is_power_of_2(init->sq_size) || init->sq_size > MAX_SQ)
		msg = "sq_size must be a power of two up to 4096";
	else if (init->mtu < 256 || init->mtu > 9000)
		msg = "mtu must be 256..9000 bytes of payload";
	else if (init->mrs == NULL || init->cq == NULL || init->hdr_pool == NULL)
		msg = "mrs, cq and hdr_pool are required";
	else if (init->tsc_hz == 0)
		msg = "tsc_hz must be set";
	else if (mrc_wire_cfg_check(&init->wire, &msg) != 0)
		; /* msg set */
	else if (rte_pktmbuf_data_room_size(init->hdr_pool) < 256)
		msg = "hdr_pool mbufs need at least 256 bytes of room for headers";
	else if (init->ctrl_pool != NULL &&
		 init->ctrl_pool->block_bytes < mrc_qp_ctrl_block_bytes())
		msg = "ctrl_pool blocks are smaller than mrc_qp_ctrl_block_bytes()";
	if (msg != NULL) {
		if (why != NULL)
			*why = msg;
		rte_errno = EINVAL;
		return NULL;
	}
	qp = rte_zmalloc_socket("mrc_qp", sizeof(*qp), RTE_CACHE_LINE_SIZE, init->socket);
	if (qp == NULL)
		goto nomem;
	qp->socket = init->socket;
	qp->mem_bytes = sizeof(*qp);
	qp->sq = mrc_qp_zalloc(qp, (size_t)init->sq_size * sizeof(*qp->sq));
	if (qp->sq == NULL)
		goto nomem;
	qp->ctrl_pool = init->ctrl_pool;
	if (qp->ctrl_pool == NULL) {
		qp->ctrl = mrc_qp_zalloc(qp, sizeof(*qp->ctrl));
		if (qp->ctrl == NULL)
			goto nomem;
	}
	qp->qpn = init->qpn;
	qp->sq_mask = init->sq_size - 1u;
	qp->mtu = init->mtu & ~3u; /* whole words: only the last packet carries pad */
	qp->tsc_hz = init->tsc_hz;
	qp->mrs = init->mrs;
	qp->pd = init->pd;
	qp->cq = init->cq;
	qp->pool = init->hdr_pool;
	qp->wire = init->wire;
	qp->addr = init->addr;
	qp->hdr = &qp->addr;
	/* the path is the QP's alone and changes at RTR: one copy, in the hot lines */
	qp->path = init->addr.path;
	memset(&qp->addr.path, 0, sizeof(qp->addr.path));
	qp->peer_planes = UINT16_MAX; /* every plane */
	qp->want_ev_stats = init->ev_stats;
	qp->shared_pool = init->trk_pool;
	qp->imm_pool = init->imm_pool;
	qp->state = MRC_QP_RESET;
	qp->pin_slot = -1;
	return qp;
nomem:
	if (qp != NULL) {
		rte_free(qp->sq);
		if (qp->ctrl_pool == NULL)
			rte_free(qp->ctrl);
	}
	rte_free(qp);
	if (why != NULL)
		*why = "out of memory";
	rte_errno = ENOMEM;
	return NULL;
}

void
mrc_qp_free_parts(struct mrc_qp *qp)
{
	trk_put(qp);
	if (qp->trk_own) {
		(void)mrc_trk_pool_free(qp->trk_pool);
		qp->trk_own = false;
	}
	qp->trk_pool = NULL;
	if (qp->imm_pool != NULL)
		mrc_qp_imm_put(qp);
	else
		rte_free(qp->imm);
	qp->imm_pending = 0;
	rte_free(qp->ev);
	rte_free(qp->ev_stats);
	qp->ev_stats = NULL;
	rte_free(qp->rrx);
	rte_free(qp->rtx);
	qp->ev = NULL;
	qp->pin_slot = -1;
	qp->rrx = NULL;
	qp->rtx = NULL;
	qp->imm = NULL;
	qp->cc_ready = false;
	mrc_qp_ctrl_put(qp); /* lent: whatever waited is dropped with the QP's state */
	qp->mem_bytes = sizeof(*qp) + (size_t)(qp->sq_mask + 1) * sizeof(*qp->sq) +
			(qp->ctrl_pool == NULL ? sizeof(*qp->ctrl) : 0);
}

void
mrc_qp_destroy(struct mrc_qp *qp)
{
	if (qp == NULL)
		return;
	mrc_qp_free_parts(qp);
	if (qp->ctrl_pool == NULL)
		rte_free(qp->ctrl);
	rte_free(qp->sq);
	rte_free(qp);
}

enum mrc_qp_state
mrc_qp_state(const struct mrc_qp *qp)
{
	return (enum mrc_qp_state)qp->state;
}

enum mrc_qp_error
mrc_qp_error(const struct mrc_qp *qp)
{
	return (enum mrc_qp_error)qp->error;
}

uint32_t
mrc_qp_qpn(const struct mrc_qp *qp)
{
	return qp->qpn;
}

const uint8_t *
mrc_qp_peer_ip(const struct mrc_qp *qp)
{
	return qp->hdr->dst_ip;
}

/* Whether a and b address packets alike (their paths aside), field by field: padding differs. */
static bool
addr_same(const struct mrc_qp_addr *a, const struct mrc_qp_addr *b)
{
	return a->srv6 == b->srv6 && a->hop_limit == b->hop_limit &&
	       a->next_hop_mac == b->next_hop_mac && memcmp(a->src_ip, b->src_ip, 16) == 0 &&
	       memcmp(a->dst_ip, b->dst_ip, 16) == 0 &&
	       memcmp(a->src_mac, b->src_mac, sizeof(a->src_mac)) == 0 &&
	       memcmp(a->dst_mac, b->dst_mac, sizeof(a->dst_mac)) == 0 &&
	       memcmp(a->src_loc, b->src_loc, 16) == 0;
}

bool
mrc_qp_share_addr(struct mrc_qp *qp, const struct mrc_qp_addr *shared)
{
	qp->hdr = shared != NULL && addr_same(shared, &qp->addr) ? shared : &qp->addr;
	return qp->hdr != &qp->addr;
}

const struct mrc_qp_addr *
mrc_qp_addr(const struct mrc_qp *qp)
{
	return &qp->addr;
}

void
mrc_qp_set_rtt_share(struct mrc_qp *qp, struct mrc_rel_rtt_share *share)
{
	qp->rtt_share = share;
	if (qp->rtx != NULL)
		mrc_rel_tx_set_share(qp->rtx, share);
}

void
mrc_qp_set_path_counters(struct mrc_qp *qp, struct mrc_path_block *blk)
{
	const struct mrc_ev_path_tmpl *t = &qp->path;

	qp->path_cnt = blk != NULL ? blk->c : NULL;
	if (blk == NULL)
		return;
	qp->path_planes = blk->n_planes;
	qp->path_direct = blk->n_t1;
	qp->path_n_t1 = qp->hdr->srv6 && t->src_t0 != t->dst_t0 ? t->n_t1 : 0;
	qp->path_t1_mul = qp->path_n_t1 != 0 ? UINT64_MAX / qp->path_n_t1 + 1 : 0;
}

int
mrc_qp_set_rx_mpr(struct mrc_qp *qp, uint8_t mpr)
{
	if (qp->rrx == NULL)
		return -EPERM;
	return mrc_rel_rx_set_mpr(qp->rrx, mpr);
}

void
mrc_qp_set_peer_planes(struct mrc_qp *qp, uint32_t mask)
{
	qp->peer_planes = (uint16_t)mask; /* planes are fewer than 16 */
}

void
mrc_qp_set_mr_lane(struct mrc_qp *qp, unsigned int lane)
{
	qp->mr_lane = (uint8_t)(lane % MRC_MR_LANES);
}

/*
 * What it owns, and the parts it holds on loan now: these are added here
 * rather than at each borrow, which would write a line of the QP that the
 * borrower's turn does not otherwise read (a ring is borrowed per message).
 */
size_t
mrc_qp_mem_bytes(const struct mrc_qp *qp)
{
	size_t n = qp->mem_bytes;

	if (qp->ctrl != NULL && qp->ctrl_pool != NULL)
		n += qp->ctrl_pool->block_bytes;
	if (qp->imm != NULL && qp->imm_pool != NULL)
		n += qp->imm_pool->block_bytes;
	if (!qp->trk_own && mrc_qp_trk_held(qp))
		n += qp->trk_pool->block_bytes;
	return n;
}

bool
mrc_qp_trk_held(const struct mrc_qp *qp)
{
	return qp->rtx != NULL && mrc_rel_tx_has_trk(qp->rtx);
}

size_t
mrc_qp_trk_block_bytes(const struct mrc_qp_attr *a)
{
	struct mrc_rel_tx_cfg tc;

	mrc_rel_tx_cfg_defaults(&tc, 1);
	tc.mpr = a->peer_mpr;
	tc.n_ev_slots = (uint16_t)mrc_ev_pool_n_slots(&a->ev);
	return mrc_rel_tx_trk_memsize(&tc);
}

const struct mrc_qp_counters *
mrc_qp_counters(const struct mrc_qp *qp)
{
	return &qp->cnt;
}

const struct mrc_ev_pool *
mrc_qp_ev_pool(const struct mrc_qp *qp)
{
	return qp->ev;
}

struct mrc_ev_pool *
mrc_qp_ev_pool_owner(struct mrc_qp *qp)
{
	return qp->ev;
}

int
mrc_qp_ev_t1(const struct mrc_qp *qp, uint32_t ev)
{
	const struct mrc_ev_path_tmpl *t = &qp->path;

	/* The same rule as the fabric and mrc_ev_path(): the T0 uplink mod the plane's T1s. */
	if (!qp->hdr->srv6 || t->src_t0 == t->dst_t0 || t->n_t1 == 0)
		return -1;
	return (int)(mrc_ev_layout_uplink(&qp->layout, ev) % t->n_t1);
}

const struct mrc_cc *
mrc_qp_cc(const struct mrc_qp *qp)
{
	return qp->cc_ready ? &qp->cc : NULL;
}

size_t
mrc_qp_imm_block_bytes(const struct mrc_qp_attr *a)
{
	return (size_t)a->wimm * sizeof(struct qp_imm);
}

bool
mrc_qp_imm_held(const struct mrc_qp *qp)
{
	return qp->imm != NULL;
}

/*
 * The parts of an idle QP (RTS, nothing in flight, rings and tables lent)
 * whose size the code fixes, against the goal of 4096 bytes an idle QP
 * (doc/performance.md, "QPs per worker and memory per QP"): the QP, its
 * requester and its responder without their bitmap. With the EV pool
 * (1,536 bytes at 160 EVs), a send queue of 4 and the responder's 1024-PSN
 * bitmap, that is 3,784 bytes; a field that pushes one of these over its
 * bound must make room elsewhere or move out of line.
 */
static_assert(sizeof(struct mrc_qp) <= 1280, "struct mrc_qp grew past 20 cache lines");
static_assert(sizeof(struct qp_ctrl_ring) == 640, "a control answer ring is 64 x 10 bytes");
static_assert(sizeof(struct qp_wqe) <= 64, "a send queue entry grew past a cache line");
static_assert(sizeof(struct mrc_rel_tx) <= 328, "struct mrc_rel_tx grew past 328 bytes");
static_assert(sizeof(struct mrc_rel_rx) <= 256, "struct mrc_rel_rx grew past 256 bytes");

void
mrc_qp_mem_parts(const struct mrc_qp *qp, struct mrc_qp_mem *out)
{
	memset(out, 0, sizeof(*out));
	out->qp = sizeof(*qp);
	out->sq = (size_t)(qp->sq_mask + 1) * sizeof(*qp->sq);
	if (qp->ctrl != NULL)
		out->ctrl = qp->ctrl_pool != NULL ? qp->ctrl_pool->block_bytes : sizeof(*qp->ctrl);
	if (qp->ev != NULL)
		out->ev_pool = mrc_ev_pool_memsize(&qp->ev_cfg);
	if (qp->ev_stats != NULL)
		out->ev_stats = (size_t)mrc_ev_pool_n_slots(&qp->ev_cfg) * sizeof(*qp->ev_stats);
	if (qp->imm != NULL)
		out->imm = qp->imm_pool != NULL ? qp->imm_pool->block_bytes
						: (size_t)qp->wimm * sizeof(*qp->imm);
	if (qp->rtx != NULL)
		out->requester = sizeof(*qp->rtx);
	if (qp->trk_pool != NULL)
		out->trk = qp->trk_own		 ? mrc_trk_pool_mem_bytes(qp->trk_pool)
			   : mrc_qp_trk_held(qp) ? qp->trk_pool->block_bytes
						 : 0;
	/* The responder's tracking is sized by its window: what the rest leaves. */
	if (qp->rrx != NULL)
		out->responder = mrc_qp_mem_bytes(qp) - out->qp - out->sq - out->ctrl -
				 out->ev_pool - out->ev_stats - out->imm - out->requester -
				 out->trk;
}

const struct mrc_rel_tx *
mrc_qp_rel_tx(const struct mrc_qp *qp)
{
	return qp->rtx;
}

const struct mrc_rel_rx *
mrc_qp_rel_rx(const struct mrc_qp *qp)
{
	return qp->rrx;
}

bool
mrc_qp_idle(const struct mrc_qp *qp)
{
	return qp->sq_head == qp->sq_tail && qp->ctrl_head == qp->ctrl_tail &&
	       (qp->rtx == NULL || qp->rtx_quiet ||
		       (qp->rtx->n_inflight == 0 && qp->rtx->n_lost == 0)) &&
	       (qp->rrx == NULL || qp->rrx->pending == 0) && qp->op_probe_state != OP_PROBE_WANT;
}

bool
mrc_qp_answers_queued(const struct mrc_qp *qp)
{
	return qp->ctrl_head != qp->ctrl_tail;
}

bool
mrc_qp_tx_pending(const struct mrc_qp *qp)
{
	const struct mrc_rel_tx *rtx = qp->rtx;

	if (qp->ctrl_head != qp->ctrl_tail || qp->sq_send != qp->sq_tail || qp->ev_probe_held ||
		qp->op_probe_state == OP_PROBE_WANT)
		return true;
	if (qp->state != MRC_QP_RTS || rtx == NULL)
		return !mrc_qp_idle(qp);
	if (qp->rtx_quiet)
		return false; /* nothing lost, in flight or to probe for rel (mrc_qp_poll_judged) */
	/* Retired EVs are probed from tx bursts, as long as packets are in flight. */
	return rtx->n_lost != 0 || mrc_rel_tx_probe_wanted(rtx) ||
	       (rtx->n_inflight != 0 && qp->ev_bad);
}

int
mrc_qp_post_write(struct mrc_qp *qp, uint64_t wr_id, const void *laddr, uint32_t len, uint32_t lkey,
	uint64_t raddr, uint32_t rkey, bool with_imm, uint32_t imm)
{
	struct qp_wqe *w;
	uint32_t n_pkts;

	if (qp->state != MRC_QP_RTS)
		return -EPERM;
	if (qp->sq_tail - qp->sq_head > qp->sq_mask)
		return -ENOSPC;
	if (len > (1u << 31))
		return -EINVAL;
	n_pkts = len == 0 ? 1 : (len + qp->mtu - 1) / qp->mtu;
	if (n_pkts > MAX_MSG_PKTS)
		return -EINVAL;
	/* A message of no bytes reads no memory: it names no region (lkey ignored). */
	if (len != 0 && mrc_mr_check_local(qp->mrs, qp->pd, lkey, laddr, len,
				MRC_MR_ACCESS_LOCAL_READ) == NULL)
		return -EINVAL;
	w = &qp->sq[qp->sq_tail & qp->sq_mask];
	*w = (struct qp_wqe){
		.wr_id = wr_id,
		.lkey = lkey,
		.laddr = laddr,
		.raddr = raddr,
		.rkey = rkey,
		.len = len,
		.imm = imm,
		.n_pkts = n_pkts,
		.msn = qp->next_msn++,
		.rqmsn = qp->next_rqmsn,
		.with_imm = with_imm,
	};
	/* RQMSN counts Write-IMM messages: the next one gets the next number. */
	if (with_imm)
		qp->next_rqmsn++;
	qp->sq_tail++;
	if (qp->wake != NULL)
		qp->wake(qp->wake_ctx);
	return 0;
}

void
mrc_qp_set_wake(struct mrc_qp *qp, void (*fn)(void *ctx), void *ctx)
{
	qp->wake = fn;
	qp->wake_ctx = ctx;
}

uint64_t
mrc_qp_poll(struct mrc_qp *qp, uint64_t now_tsc)
{
	return mrc_qp_poll_judged(qp, now_tsc, now_tsc);
}

uint64_t
mrc_qp_poll_judged(struct mrc_qp *qp, uint64_t now_tsc, uint64_t judge_tsc)
{
	uint64_t next = UINT64_MAX;

	qp->now_tsc = now_tsc;
	/*
	 * A sender with nothing in flight (every responder: its QP sends only
	 * answers) has nothing for rel's timers: rtx's first line says so once,
	 * the QP's rtx_quiet from then on until something is sent or
	 * acknowledged, and the poll would read rtx's lines and the shared
	 * RTT's only to return.
	 */
	if (qp->state == MRC_QP_RTS && qp->rtx != NULL) {
		if (qp->rtx_quiet) {
			/* idle when last looked, and nothing given to it since */
		} else if (mrc_rel_tx_timers_idle(qp->rtx)) {
			qp->rtx_quiet = true;
		} else {
			next = mrc_rel_tx_poll(qp->rtx, judge_tsc, &mrc_qp_rel_ops, qp);
			trk_put_if_drained(qp);
			if (qp->rtx->error != MRC_REL_OK) {
				mrc_qp_fail(qp, qp->rtx->error == MRC_REL_ERR_REMOTE_OP
							? MRC_QP_ERR_REMOTE_OP
							: MRC_QP_ERR_RETRY_EXCEEDED);
				return UINT64_MAX;
			}
			/*
			 * The timer fired twice in a row without progress: the EVs in
			 * use may all be on planes that died unseen, kept in use by the
			 * floor, while the retired ones (never probed while the timer
			 * runs) are the way out. Start the pool afresh
			 * (mrc_ev_readmit_all()). It fires only in rel's poll, so an
			 * idle sender's count is the one seen last.
			 */
			if (qp->rtx->rto_count != qp->rto_seen) {
				qp->rto_seen = qp->rtx->rto_count;
				if (qp->rtx->retries >= 2 && qp->pin_slot < 0 && qp->ev != NULL)
					mrc_ev_readmit_all(qp->ev);
			}
		}
		/* EV probes nobody answered (the mask spares a busy QP's poll their lines). */
		for (unsigned int i = 0; i < EV_PROBES && qp->ev_probe_busy != 0; i++) {
			struct qp_ev_probe *p = &qp->ev_probe[i];

			if (!p->busy)
				continue;
			if (judge_tsc >= p->sent_tsc + qp->ev_probe_timeout_tsc) {
				int slot = mrc_ev_find(qp->ev, p->ev);

				if (slot >= 0)
					mrc_ev_on_probe_timeout(qp->ev, slot);
				if (p->op) {
					qp->op_probe_state = OP_PROBE_TIMEOUT;
					p->op = false;
				}
				p->busy = false;
				qp->ev_probe_busy &= (uint8_t) ~(1u << i);
			} else {
				next = RTE_MIN(next, p->sent_tsc + qp->ev_probe_timeout_tsc);
			}
		}
	}
	/* Only data since a look found none pending can owe a SACK: a requester's rrx stays cold.
	 */
	if (qp->rx_unacked && qp->rrx != NULL && qp->rrx->pending == 0)
		qp->rx_unacked = false;
	if (qp->rx_unacked) {
		if (mrc_rel_rx_sack_due(qp->rrx, now_tsc))
			mrc_qp_queue_ctrl(qp, CTRL_SACK, MRC_SACK_M_NONE, false,
				mrc_rel_rx_cack(qp->rrx), qp->last_rx_ev, 0);
		else if (!mrc_qp_answers_queued(qp))
			next = RTE_MIN(next, mrc_rel_rx_sack_deadline(qp->rrx));
		/*
		 * An answer already queued (a message's last packet asks for its
		 * SACK at once) goes with the next burst, which mrc_qp_tx_pending()
		 * calls for, and a poll after that burst finds whatever is still
		 * owed. A deadline here would only fire a timer, in a shard's
		 * wheel, for a SACK already on its way: one per message.
		 */
	}
	return next;
}
