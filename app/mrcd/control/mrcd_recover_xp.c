/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: the main lcore (every control tick, and the endpoint packets its
 * tick takes in).
 *
 * Bringing back a generator flow whose other end is in another process
 * (mrcd_recover.h, "Across processes"): this process holds one end, and
 * agrees on the next pair with the other end's process by flow-recovery
 * endpoint requests (doc/protocol.md, "Flow recovery"). The sender's
 * process leads: it numbers the flow's pairs (life), keeps the failure
 * limits and picks the spare pair; the receiver's process makes its end of
 * the pair it is asked for, or says why not. As within one process,
 * control never touches a QP a shard owns nor the generator's state: it
 * asks, and reads the answers once their `done` flags are set.
 */

#include <inttypes.h>
#include <string.h>

#include <rte_cycles.h>

#include "mrc_wire_pkt.h"
#include "mrcd_control.h"
#include "mrcd_epreq.h"
#include "mrcd_log.h"
#include "mrcd_recover.h"
#include "mrcd_recover_priv.h"
#include "mrcd_recover_xp.h"

#define BUMP(hc, n) __atomic_store_n(&(hc)->ep.n, (hc)->ep.n + 1, __ATOMIC_RELAXED)

static uint32_t
qpn_of(const struct mrc_qp *qp)
{
	return qp != NULL ? mrc_qp_qpn(qp) : 0;
}

static uint64_t
ms_tsc(const struct mrcd_daemon *d, uint64_t ms)
{
	return ms * d->hz / 1000;
}

enum mrcd_xrec_verdict
mrcd_xrec_judge_make(const struct mrcd_xrec_view *x, uint16_t life, uint32_t spare)
{
	/* ours answered already: the same answer again (its answer was lost) */
	if (x->mk_done && life == x->mk_life && spare == x->mk_spare)
		return MRCD_XREC_AGAIN;
	/* being made: answered once it is */
	if (x->mk_pending && life == x->mk_life && spare == x->mk_spare)
		return MRCD_XREC_BUSY;
	/* a pair no newer than the one we run, or than one under way: late, ignored */
	if ((int16_t)(uint16_t)(life - x->life) <= 0 ||
		(x->mk_pending && (int16_t)(uint16_t)(life - x->mk_life) <= 0))
		return MRCD_XREC_STALE;
	return MRCD_XREC_NEW;
}

enum mrcd_xrec_verdict
mrcd_xrec_judge_failed(uint16_t cur_life, bool up, uint16_t life)
{
	if (life != cur_life)
		return MRCD_XREC_STALE; /* an older pair's (or, garbled, a newer one's) */
	return up ? MRCD_XREC_NEW : MRCD_XREC_AGAIN; /* a recovery of it is under way */
}

enum mrcd_xrec_verdict
mrcd_xrec_judge_give_up(uint16_t cur_life, bool down, bool busy, uint16_t life)
{
	const uint16_t ahead = (uint16_t)(life - cur_life);

	if (ahead > 1)
		return MRCD_XREC_STALE; /* older than ours, or garbled */
	if (down)
		return MRCD_XREC_AGAIN;
	return busy ? MRCD_XREC_BUSY : MRCD_XREC_NEW;
}

enum mrcd_xrec_timer
mrcd_xrec_timer(uint64_t now, uint64_t next_tsc, uint8_t tries)
{
	if (now < next_tsc)
		return MRCD_XREC_WAIT;
	return tries < MRCD_RECOVER_X_TRIES ? MRCD_XREC_RESEND : MRCD_XREC_EXPIRE;
}

uint64_t
mrcd_xrec_next_tsc(uint64_t now, uint64_t retry_tsc, uint8_t tries)
{
	return now + (retry_tsc << tries);
}

/* Our request (FAILED or MAKE) of flow fi, try x->tries, to the other end's host. */
static void
send_req(struct mrcd_daemon *d, uint32_t fi, struct mrcd_flow_rec *x, uint64_t now)
{
	const struct mrcd_flow *f = &d->flows[fi];
	const bool leader = f->src_local >= 0;
	const struct mrc_ep_rec rec = {
		.kind = x->bye	 ? MRC_EP_REC_GIVE_UP
			: leader ? MRC_EP_REC_MAKE
				 : MRC_EP_REC_FAILED,
		.status = x->bye ? (uint8_t)(x->why + 1) : 0,
		.life = x->bye	 ? x->bye_life
			: leader ? (uint16_t)(x->life + 1)
				 : x->life,
		.flow = f->id,
		.spare = leader && !x->bye ? (uint32_t)x->next_spare : 0,
		.seq = leader && !x->bye ? x->seq : 0,
	};

	(void)mrcd_ep_send_rec(d, (unsigned int)(leader ? f->src_local : f->dst_local),
		leader ? f->dst : f->src, false, x->req_id, 0, &rec, x->tries);
	x->next_tsc = mrcd_xrec_next_tsc(now, ms_tsc(d, MRCD_RECOVER_X_RETRY_MS), x->tries);
	x->tries++;
}

/* Start a new request: the next id, sent now. */
static void
new_req(struct mrcd_daemon *d, uint32_t fi, struct mrcd_flow_rec *x, uint8_t state, uint64_t now)
{
	x->state = state;
	x->req_id++;
	x->tries = 0;
	send_req(d, fi, x, now);
}

/* Our request unanswered: send it again, or after the last try the flow stays down. */
static void
timed_out(struct mrcd_daemon *d, uint32_t fi, struct mrcd_flow_rec *x, unsigned int h, uint64_t now)
{
	switch (mrcd_xrec_timer(now, x->next_tsc, x->tries)) {
	case MRCD_XREC_WAIT:
		return;
	case MRCD_XREC_RESEND:
		send_req(d, fi, x, now);
		return;
	case MRCD_XREC_EXPIRE:
		break;
	}
	if (x->bye) {
		/* counted here already; the receiver's process may never hear it */
		MRCD_LOG(ctrl, WARNING,
			"flow %u: host %u did not answer %u requests saying the flow was given up",
			d->flows[fi].id, d->flows[fi].dst, x->tries);
		x->bye = false;
		return;
	}
	MRCD_LOG(ctrl, WARNING, "flow %u: host %u did not answer %u flow-recovery requests",
		d->flows[fi].id, x->state == REC_X_ASK ? d->flows[fi].dst : d->flows[fi].src,
		x->tries);
	mrcd_rec_give_up(d, h, fi, x, MRCD_RECOVER_no_answer);
}

/* Answer the MAKE carried out (or refused): x->mk_status. */
static void
answer_make(struct mrcd_daemon *d, uint32_t fi, struct mrcd_flow_rec *x)
{
	const struct mrcd_flow *f = &d->flows[fi];
	const struct mrc_ep_rec rec = {.kind = MRC_EP_REC_MAKE,
		.status = x->mk_status,
		.life = x->mk_life,
		.flow = f->id,
		.spare = x->mk_spare};

	(void)mrcd_ep_send_rec(
		d, (unsigned int)f->dst_local, f->src, true, x->mk_req_id, x->mk_ts, &rec, 0);
}

/* Receiver: the MAKE is settled; `why` (0: made) goes back, and again to its repeats. */
static void
settle_make(struct mrcd_daemon *d, uint32_t fi, struct mrcd_flow_rec *x, uint8_t status)
{
	x->mk_pending = false;
	x->mk_done = true;
	x->mk_status = status;
	answer_make(d, fi, x);
}

/* Receiver: the spare pair the MAKE named, which we took for it, is free again (resting). */
static void
unclaim(struct mrcd_daemon *d, struct mrcd_flow_rec *x, uint64_t now)
{
	mrcd_rec_rest_spare(d, x->mk_spare, now);
}

/* Receiver: refuse the MAKE taken; the caller says where the flow's steps go. */
static void
refuse_make(struct mrcd_daemon *d, uint32_t fi, struct mrcd_flow_rec *x, enum mrcd_recover_why why)
{
	MRCD_LOG(ctrl, WARNING, "flow %u (host %u -> %u): cannot make our end of spare pair %u: %s",
		d->flows[fi].id, d->flows[fi].src, d->flows[fi].dst, x->mk_spare,
		mrcd_recover_why_text(why));
	settle_make(d, fi, x, (uint8_t)(why + 1));
}

/*
 * One end of a spare pair on local host h, ready to run: made in RTS, its
 * encap rules attached, and the peer's planes as its port-status requests
 * said (the worker keeps them up to date from then on). NULL: no QP.
 */
static struct mrc_qp *
make_end(struct mrcd_daemon *d, unsigned int h, unsigned int shard, unsigned int peer,
	unsigned int peer_shard, uint32_t qpn, uint32_t dqpn, uint64_t now)
{
	struct mrc_qp *qp =
		mrcd_make_qp_rts(d, h, shard, peer, peer_shard, qpn, dqpn, now, &d->recover->rand);

	if (qp == NULL)
		return NULL;
	mrcd_encap_attach_late(d, h, shard, peer, peer_shard, qp);
	mrc_qp_set_peer_planes(qp, __atomic_load_n(&d->ep_peer_mask[peer], __ATOMIC_ACQUIRE));
	return qp;
}

/* Receiver: make our end of the spare pair asked for, and ask it into the shard. */
static void
make_recv(struct mrcd_daemon *d, uint32_t fi, struct mrcd_flow_rec *x, uint64_t now)
{
	const struct mrcd_flow *f = &d->flows[fi];
	const uint32_t sq = MRCD_QPN_BASE + 2 * (d->n_cluster_flows + x->mk_spare);

	x->new_recv = make_end(
		d, (unsigned int)f->dst_local, f->dst_shard, f->src, f->src_shard, sq + 1, sq, now);
	if (x->new_recv == NULL) {
		unclaim(d, x, now);
		refuse_make(d, fi, x, MRCD_RECOVER_no_qp);
		x->state = REC_X_WAIT; /* ours is out: the sender's process may ask again */
		return;
	}
	x->sreq[0] = (struct mrc_shard_req){.op = MRC_SHARD_ADD_QP, .qp = x->new_recv};
	x->sent[0] = false;
	x->state = REC_X_RADDING;
}

/* Sender: the receiver's end is made: make ours and ask it into the shard. */
static void
make_send(struct mrcd_daemon *d, uint32_t fi, struct mrcd_flow_rec *x, uint64_t now)
{
	const struct mrcd_flow *f = &d->flows[fi];
	const unsigned int src = (unsigned int)f->src_local;
	const uint32_t sq = MRCD_QPN_BASE + 2 * (d->n_cluster_flows + (uint32_t)x->next_spare);

	x->new_send = make_end(d, src, f->src_shard, f->dst, f->dst_shard, sq, sq + 1, now);
	if (x->new_send == NULL) {
		mrcd_rec_give_up(d, src, fi, x, MRCD_RECOVER_no_qp);
		return;
	}
	x->sreq[0] = (struct mrc_shard_req){.op = MRC_SHARD_ADD_QP, .qp = x->new_send};
	x->sent[0] = false;
	x->state = REC_X_ADDING;
}

/* Sender: a spare pair free in our view, from the last one tried on; false: none. */
static bool
pick(struct mrcd_daemon *d, uint32_t fi, struct mrcd_flow_rec *x, uint32_t from, uint64_t now)
{
	struct mrcd_recover *r = d->recover;
	const struct mrcd_flow *f = &d->flows[fi];
	const int32_t s = mrcd_recover_pick_spare_from(r->spare_flow, r->spare_free_tsc,
		r->n_spares, d->host[f->src_local].n_shards, d->cfg.lcores.peer_shard, f->src_shard,
		f->dst_shard, now, from);

	if (s < 0)
		return false;
	/* ours while we ask: no other flow of this process takes it meanwhile */
	__atomic_store_n(&r->spare_flow[s], (int32_t)fi, __ATOMIC_RELEASE);
	x->next_spare = s;
	return true;
}

/* This end runs on its new QP: the old pair's numbers rest, its QP waits to be freed. */
static void
x_recovered(struct mrcd_daemon *d, uint32_t fi, struct mrcd_flow_rec *x, int32_t s, uint16_t life,
	uint64_t now)
{
	struct mrcd_recover *r = d->recover;
	const struct mrcd_flow *f = &d->flows[fi];
	const unsigned int h = (unsigned int)(f->src_local >= 0 ? f->src_local : f->dst_local);
	uint64_t *c = &r->recovered[h];

	if (x->spare >= 0 && x->spare != s)
		mrcd_rec_rest_spare(d, (uint32_t)x->spare, now);
	x->spare = s;
	x->life = life;
	x->free_tsc = now + ms_tsc(d, MRCD_RECOVER_QUIET_MS);
	x->state = REC_UP;
	__atomic_store_n(c, *c + 1, __ATOMIC_RELAXED);
	MRCD_LOG(ctrl, NOTICE,
		"flow %u (host %u -> %u) recovered on QPs 0x%x -> 0x%x, from message %" PRIu64
		" (its %s end; the other in another process)",
		f->id, f->src, f->dst, MRCD_QPN_BASE + 2 * (d->n_cluster_flows + (uint32_t)s),
		MRCD_QPN_BASE + 2 * (d->n_cluster_flows + (uint32_t)s) + 1, x->seq,
		f->src_local >= 0 ? "sending" : "receiving");
}

/* Retire our end's QP in use: the first step at either end. */
static void
retire_ours(struct mrcd_daemon *d, uint32_t fi, struct mrcd_flow_rec *x)
{
	x->sreq[0] = (struct mrc_shard_req){.op = MRC_SHARD_RETIRE_QP,
		.qp = d->flows[fi].src_local >= 0 ? x->cur_send : x->cur_recv};
	x->sent[0] = false;
	x->state = REC_X_RETIRING;
	mrcd_rec_list(d->recover, x, fi);
}

/* Sender: a failure of the pair in use (ours, or the receiver's as its process says). */
static void
lead(struct mrcd_daemon *d, uint32_t fi, struct mrcd_flow_rec *x, uint64_t now)
{
	const struct mrcd_flow *f = &d->flows[fi];

	if (x->fails == 0 || now - x->window_tsc > (uint64_t)MRCD_RECOVER_WINDOW_S * d->hz) {
		x->window_tsc = now;
		x->fails = 0;
	}
	if (++x->fails > MRCD_RECOVER_TRIES) {
		mrcd_rec_give_up(d, (unsigned int)f->src_local, fi, x, MRCD_RECOVER_too_often);
		return;
	}
	x->at_tsc = now + ms_tsc(d, (uint64_t)MRCD_RECOVER_HOLD_MS << (x->fails - 1));
	x->refusals = 0;
	retire_ours(d, fi, x);
	MRCD_LOG(ctrl, NOTICE,
		"flow %u (host %u -> %u): retiring QP 0x%x (pair %u), a new pair agreed with host "
		"%u's process in %" PRIu64 " ms (failure %u of at most %u in %u s)",
		f->id, f->src, f->dst, qpn_of(x->cur_send), x->life, f->dst,
		(x->at_tsc - now) * 1000 / d->hz, x->fails, MRCD_RECOVER_TRIES,
		MRCD_RECOVER_WINDOW_S);
}

void
mrcd_rec_xp_failed(struct mrcd_daemon *d, uint32_t fi, uint32_t qpn, uint64_t now)
{
	const struct mrcd_flow *f = &d->flows[fi];
	struct mrcd_flow_rec *x = mrcd_rec_of(d, fi);

	if (x == NULL) {
		mrcd_rec_give_up(d, (unsigned int)(f->src_local >= 0 ? f->src_local : f->dst_local),
			fi, NULL, MRCD_RECOVER_no_qp);
		return;
	}
	/* Only our end of the pair in use, running: a stale QPN is no news. */
	if (x->state != REC_UP || qpn != qpn_of(f->src_local >= 0 ? x->cur_send : x->cur_recv))
		return;
	if (f->src_local >= 0) {
		lead(d, fi, x, now);
		return;
	}
	x->mk_pending = false;
	retire_ours(d, fi, x);
	MRCD_LOG(ctrl, NOTICE,
		"flow %u (host %u -> %u): retiring QP 0x%x (pair %u), telling host %u's process",
		f->id, f->src, f->dst, qpn, x->life, f->src);
}

/* Sender: tell the receiver's process that the flow is given up (pair x->bye_life),
 * a fresh run of tries from the next step on. */
static void
start_bye(struct mrcd_daemon *d, uint32_t fi, struct mrcd_flow_rec *x)
{
	x->bye = true;
	x->req_id++;
	x->tries = 0;
	x->next_tsc = 0; /* sent at the next step */
	mrcd_rec_list(d->recover, x, fi);
}

void
mrcd_rec_xp_gave_up(struct mrcd_daemon *d, uint32_t fi, struct mrcd_flow_rec *x)
{
	/* the newest pair we ran or asked for: the receiver runs it or the one before */
	const bool asked =
		x->state == REC_X_ASK || x->state == REC_X_ADDING || x->state == REC_X_SEND;

	/*
	 * Still asking: no QP of ours has the spare's numbers, so our claim goes
	 * (resting, as any freed pair: the receiver's process may have made its
	 * end before its answer was lost, and the GIVE_UP tells it to let go).
	 * From ADDING on our new QP holds them until teardown: the claim stays.
	 */
	if (x->state == REC_X_ASK && x->next_spare >= 0)
		mrcd_rec_rest_spare(d, (uint32_t)x->next_spare, rte_rdtsc());
	x->bye_life = asked ? (uint16_t)(x->life + 1) : x->life;
	start_bye(d, fi, x);
}

/* This end's shard request on its ring (again, if the ring was full); true once done. */
static bool
end_req_done(struct mrcd_daemon *d, unsigned int h, struct mrcd_flow_rec *x)
{
	if (!x->sent[0])
		x->sent[0] =
			mrc_shard_request(mrcd_rec_shard_of(d, h, x->sreq[0].qp), &x->sreq[0]) == 0;
	return x->sent[0] && mrc_shard_req_done(&x->sreq[0]);
}

void
mrcd_rec_xp_step(struct mrcd_daemon *d, uint32_t fi, struct mrcd_flow_rec *x, uint64_t now)
{
	const struct mrcd_flow *f = &d->flows[fi];
	const bool leader = f->src_local >= 0;
	const unsigned int h = (unsigned int)(leader ? f->src_local : f->dst_local);
	const uint8_t k = leader ? f->src_shard : f->dst_shard;

	switch (x->state) {
	case REC_X_RETIRING:
		if (!end_req_done(d, h, x))
			break;
		if (x->sreq[0].rc != 0) {
			mrcd_rec_give_up(d, h, fi, x, MRCD_RECOVER_refused);
			break;
		}
		if (leader) {
			x->state = REC_X_HOLD;
		} else if (x->mk_pending) {
			make_recv(d, fi, x, now); /* the sender's process asked first */
			break;
		} else {
			new_req(d, fi, x, REC_X_TELL, now);
			break;
		}
		/* fall through */
	case REC_X_HOLD:
		if (now < x->at_tsc)
			break;
		mrcd_rec_ask_gen(x, MRCD_GEN_SEQ, fi, NULL, 0);
		x->state = REC_X_SEQ;
		/* fall through */
	case REC_X_SEQ:
		if (!mrcd_rec_gen_done(d, h, k, x))
			break;
		x->seq = x->greq.seq;
		if (!pick(d, fi, x, f->id, now)) {
			mrcd_rec_give_up(d, h, fi, x, MRCD_RECOVER_no_spare);
			break;
		}
		new_req(d, fi, x, REC_X_ASK, now);
		break;
	case REC_X_ASK:
	case REC_X_TELL:
		(void)timed_out(d, fi, x, h, now);
		break;
	case REC_DOWN:
		if (x->bye)
			(void)timed_out(d, fi, x, h, now);
		break;
	case REC_X_ADDING:
	case REC_X_RADDING:
		if (!end_req_done(d, h, x))
			break;
		if (x->sreq[0].rc != 0) {
			if (!leader)
				refuse_make(d, fi, x, MRCD_RECOVER_refused);
			mrcd_rec_give_up(d, h, fi, x, MRCD_RECOVER_refused);
			break;
		}
		if (leader) {
			mrcd_rec_ask_gen(x, MRCD_GEN_RESUME_SEND, fi, x->new_send, 0);
			x->state = REC_X_SEND;
		} else {
			mrcd_rec_ask_gen(x, MRCD_GEN_RESUME_RECV, fi, x->new_recv, x->seq);
			x->state = REC_X_RECV;
		}
		/* fall through */
	case REC_X_SEND:
	case REC_X_RECV:
		if (!mrcd_rec_gen_done(d, h, k, x))
			break;
		if (leader) {
			mrcd_gen_qp_destroy(d, x->old_send);
			x->old_send = x->cur_send;
			x->cur_send = x->new_send;
			x->new_send = NULL;
			x_recovered(d, fi, x, x->next_spare, (uint16_t)(x->life + 1), now);
		} else {
			mrcd_gen_qp_destroy(d, x->old_recv);
			x->old_recv = x->cur_recv;
			x->cur_recv = x->new_recv;
			x->new_recv = NULL;
			x_recovered(d, fi, x, (int32_t)x->mk_spare, x->mk_life, now);
			settle_make(d, fi, x, 0);
		}
		break;
	default:
		break;
	}
}

/* The receiver's process: a MAKE, answered now (refused, or again) or once made. */
static void
take_make(struct mrcd_daemon *d, unsigned int h, uint32_t fi, const struct mrc_ep_view *v,
	uint64_t now)
{
	struct mrcd_recover *r = d->recover;
	const struct mrcd_flow *f = &d->flows[fi];
	struct mrcd_flow_rec *x = mrcd_rec_of(d, fi);
	const struct mrc_ep_rec *q = &v->rec;
	struct mrcd_xrec_view xv;
	uint8_t ss, rs;

	if (x == NULL)
		return; /* out of memory: unanswered, the sender gives up */
	xv = (struct mrcd_xrec_view){.life = x->life,
		.mk_pending = x->mk_pending,
		.mk_done = x->mk_done,
		.mk_life = x->mk_life,
		.mk_spare = x->mk_spare};
	switch (mrcd_xrec_judge_make(&xv, q->life, q->spare)) {
	case MRCD_XREC_AGAIN:
		BUMP(&d->host[h], repeated);
		x->mk_req_id = v->req_id;
		x->mk_ts = v->ts;
		answer_make(d, fi, x);
		return;
	case MRCD_XREC_BUSY:
		BUMP(&d->host[h], repeated);
		x->mk_req_id = v->req_id; /* the answer echoes the latest */
		x->mk_ts = v->ts;
		return;
	case MRCD_XREC_STALE:
		BUMP(&d->host[h], rec_stale);
		return;
	case MRCD_XREC_NEW:
		break;
	}
	x->mk_pending = true;
	x->mk_done = false;
	x->mk_life = q->life;
	x->mk_spare = q->spare;
	x->mk_req_id = v->req_id;
	x->mk_ts = v->ts;
	x->seq = q->seq;
	if (__atomic_load_n(&d->phase, __ATOMIC_ACQUIRE) != MRCD_RUN) {
		refuse_make(d, fi, x, MRCD_RECOVER_ending);
		return;
	}
	/* the pair must be free in our view, and placed as the flow's ends are */
	if (q->spare < r->n_spares)
		mrcd_spare_shards(
			q->spare, d->host[h].n_shards, d->cfg.lcores.peer_shard, &ss, &rs);
	if (q->spare >= r->n_spares || ss != f->src_shard || rs != f->dst_shard ||
		r->spare_flow[q->spare] >= 0 || r->spare_free_tsc[q->spare] > now) {
		refuse_make(d, fi, x, MRCD_RECOVER_no_spare);
		return;
	}
	__atomic_store_n(&r->spare_flow[q->spare], (int32_t)fi, __ATOMIC_RELEASE);
	switch (x->state) {
	case REC_UP: /* the sender's end failed: ours runs still, and goes first */
		retire_ours(d, fi, x);
		MRCD_LOG(ctrl, NOTICE,
			"flow %u (host %u -> %u): host %u's process asks for pair %u on spare %u; "
			"retiring QP 0x%x",
			f->id, f->src, f->dst, f->src, q->life, q->spare, qpn_of(x->cur_recv));
		break;
	case REC_X_RETIRING: /* ours failed too: made once it is out */
		break;
	case REC_X_TELL: /* ours is out: the ask answers our FAILED too */
	case REC_X_WAIT:
		mrcd_rec_list(r, x, fi);
		make_recv(d, fi, x, now);
		break;
	default: /* given up, or a step of ours under way */
		unclaim(d, x, now);
		refuse_make(d, fi, x, MRCD_RECOVER_refused);
		break;
	}
}

/* The sender's process: a FAILED, answered at once. */
static void
take_failed(struct mrcd_daemon *d, unsigned int h, uint32_t fi, const struct mrc_ep_view *v,
	uint64_t now)
{
	const struct mrcd_flow *f = &d->flows[fi];
	struct mrcd_flow_rec *x = mrcd_rec_of(d, fi);
	struct mrc_ep_rec a = v->rec;

	if (x == NULL)
		return;
	switch (mrcd_xrec_judge_failed(x->life, x->state == REC_UP, v->rec.life)) {
	case MRCD_XREC_NEW:
		if (__atomic_load_n(&d->phase, __ATOMIC_ACQUIRE) != MRCD_RUN) {
			mrcd_rec_give_up(d, h, fi, x, MRCD_RECOVER_ending);
			break;
		}
		MRCD_LOG(ctrl, NOTICE, "flow %u (host %u -> %u): host %u's QP of pair %u failed",
			f->id, f->src, f->dst, f->dst, v->rec.life);
		lead(d, fi, x, now);
		break;
	case MRCD_XREC_STALE:
		BUMP(&d->host[h], rec_stale);
		return; /* not answered: its sender moved on, or will hear of a newer pair */
	default:
		BUMP(&d->host[h], repeated);
		break;
	}
	/* yes: heard (a flow given up says why, once) */
	a.status = x->state == REC_DOWN ? (uint8_t)(x->why + 1) : 0;
	(void)mrcd_ep_send_rec(d, h, f->dst, true, v->req_id, v->ts, &a, 0);
}

/* The receiver's process: a GIVE_UP, answered once the flow is counted down here. */
static void
take_give_up(struct mrcd_daemon *d, unsigned int h, uint32_t fi, const struct mrc_ep_view *v)
{
	const struct mrcd_flow *f = &d->flows[fi];
	struct mrcd_flow_rec *x = mrcd_rec_of(d, fi);
	const uint8_t st = v->rec.status;
	/* a step of ours under way (retiring our QP, making our end): its answer first */
	bool busy;

	if (x == NULL)
		return; /* out of memory: unanswered */
	busy = x->state != REC_UP && x->state != REC_DOWN && x->state != REC_X_TELL &&
	       x->state != REC_X_WAIT;
	switch (mrcd_xrec_judge_give_up(x->life, x->state == REC_DOWN, busy, v->rec.life)) {
	case MRCD_XREC_STALE:
		BUMP(&d->host[h], rec_stale);
		return;
	case MRCD_XREC_BUSY:
		BUMP(&d->host[h], repeated); /* ours settles in a few ticks; asked again then */
		return;
	case MRCD_XREC_AGAIN:
		BUMP(&d->host[h], repeated);
		break;
	case MRCD_XREC_NEW:
		MRCD_LOG(ctrl, NOTICE, "flow %u (host %u -> %u): host %u's process gave it up",
			f->id, f->src, f->dst, f->src);
		/* counted here for its reason, as if ours */
		mrcd_rec_give_up(d, h, fi, x,
			st >= 1 && st <= MRCD_RECOVER_N_WHY ? (enum mrcd_recover_why)(st - 1)
							    : MRCD_RECOVER_peer_refused);
		break;
	}
	(void)mrcd_ep_send_rec(d, h, f->src, true, v->req_id, v->ts, &v->rec, 0);
}

/* The flow `id` names with its ends at local host h and cluster host c, as `sender`
 * says which; -1 (counted) if this process has no such flow. */
static int32_t
flow_between(struct mrcd_daemon *d, unsigned int h, unsigned int c, uint32_t id, bool we_send)
{
	const int32_t fi = d->recover != NULL ? mrcd_flow_of_cluster_id(d, id) : -1;
	const struct mrcd_flow *f = fi >= 0 ? &d->flows[fi] : NULL;

	if (f == NULL || f->gone ||
		(we_send ? f->src_local != (int)h || f->dst != c || f->dst_local >= 0
			 : f->dst_local != (int)h || f->src != c || f->src_local >= 0)) {
		BUMP(&d->host[h], rec_bad);
		return -1;
	}
	return fi;
}

void
mrcd_recover_ep_request(struct mrcd_daemon *d, unsigned int h, unsigned int c,
	const struct mrc_ep_view *v, uint64_t now)
{
	/* a MAKE or GIVE_UP comes to the receiving end, a FAILED to the sending one */
	const bool make = v->rec.kind == MRC_EP_REC_MAKE;
	const bool bye = v->rec.kind == MRC_EP_REC_GIVE_UP;
	const int32_t fi = flow_between(d, h, c, v->rec.flow, !make && !bye);

	if (fi < 0) {
		struct mrc_ep_rec no = v->rec;

		no.status = (uint8_t)(MRCD_RECOVER_refused + 1);
		(void)mrcd_ep_send_rec(d, h, c, true, v->req_id, v->ts, &no, 0);
		return;
	}
	if (make)
		take_make(d, h, (uint32_t)fi, v, now);
	else if (bye)
		take_give_up(d, h, (uint32_t)fi, v);
	else
		take_failed(d, h, (uint32_t)fi, v, now);
}

void
mrcd_recover_ep_answer(struct mrcd_daemon *d, unsigned int h, unsigned int c,
	const struct mrc_ep_view *v, uint64_t now)
{
	const struct mrc_ep_rec *a = &v->rec;
	/* an answer to our MAKE or GIVE_UP comes to the sending end, to our FAILED to the
	 * receiving one */
	const bool make = a->kind == MRC_EP_REC_MAKE;
	const bool bye = a->kind == MRC_EP_REC_GIVE_UP;
	const int32_t fi = flow_between(d, h, c, a->flow, make || bye);
	struct mrcd_flow_rec *x = fi >= 0 ? d->recover->rec[fi] : NULL;
	const struct mrcd_flow *f;

	if (x == NULL)
		return;
	f = &d->flows[fi];
	if (bye && x->bye && a->life == x->bye_life) {
		x->bye = false; /* heard: the receiver's process counts the flow down too */
		return;
	}
	/*
	 * A yes to the MAKE of a flow we gave up while asking: the receiver's
	 * process made its end after all. It was away, or busy with that very
	 * MAKE, while our GIVE_UP went unanswered; told nothing more, it would
	 * keep that end, counted recovered, for a flow nobody sends on. Tell it
	 * again, with a fresh run of tries.
	 */
	if (make && x->state == REC_DOWN && a->status == 0 && a->life == x->bye_life) {
		start_bye(d, (uint32_t)fi, x);
		MRCD_LOG(ctrl, NOTICE,
			"flow %u (host %u -> %u): host %u's process made its end of pair %u after "
			"we gave the flow up: telling it again",
			f->id, f->src, f->dst, f->dst, a->life);
		return;
	}
	if (make && x->state == REC_X_ASK && a->life == (uint16_t)(x->life + 1) &&
		a->spare == (uint32_t)x->next_spare) {
		if (a->status == 0) {
			make_send(d, (uint32_t)fi, x, now);
			return;
		}
		/* not that pair: it rests in our view too; the next one, a few times */
		mrcd_rec_rest_spare(d, (uint32_t)x->next_spare, now);
		MRCD_LOG(ctrl, NOTICE,
			"flow %u (host %u -> %u): host %u cannot take spare pair %u: %s", f->id,
			f->src, f->dst, f->dst, a->spare,
			mrcd_recover_why_text((enum mrcd_recover_why)(a->status - 1)));
		if (a->status != MRCD_RECOVER_no_spare + 1) {
			mrcd_rec_give_up(d, h, (uint32_t)fi, x, MRCD_RECOVER_peer_refused);
			return;
		}
		if (++x->refusals >= MRCD_RECOVER_X_PICKS ||
			!pick(d, (uint32_t)fi, x, (uint32_t)x->next_spare + 1, now)) {
			mrcd_rec_give_up(d, h, (uint32_t)fi, x, MRCD_RECOVER_no_spare);
			return;
		}
		new_req(d, (uint32_t)fi, x, REC_X_ASK, now);
		return;
	}
	if (a->kind == MRC_EP_REC_FAILED && x->state == REC_X_TELL && a->life == x->life) {
		if (a->status != 0) {
			/* the sender's process gave the flow up: counted here for its reason */
			mrcd_rec_give_up(d, h, (uint32_t)fi, x,
				a->status <= MRCD_RECOVER_N_WHY
					? (enum mrcd_recover_why)(a->status - 1)
					: MRCD_RECOVER_peer_refused);
			return;
		}
		x->state = REC_X_WAIT; /* the sender's process asks for the next pair */
		return;
	}
	BUMP(&d->host[h], rec_stale); /* an answer to a request we no longer wait on */
}
