/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * The protocol parts a QP pair produces beyond plain SACKs and NACKs
 * (doc/protocol.md): TSETH stamps and their echoes, dynamic MPR and the
 * NO_BITMAP refusal, ALWAYS_SKIP from a path that keeps marking,
 * NO_PKT_BUFFER when an immediate has no completion to go to, the window
 * penalty that follows refusals, and transport ACKs (AETH) accepted.
 */

#include <string.h>

#include <rte_mbuf.h>

#include "mrc_qp.h"
#include "mrc_rel_rx.h"
#include "mrc_rel_tx.h"
#include "mrc_test.h"
#include "mrc_test_qp.h"

#define US 1000ull

/* What the wire saw, and what it does to packets on the way. */
struct wire {
	uint64_t latency_ns;
	/* Called for each packet (parsed) before delivery: may change the view; true drops it. */
	bool (*hook)(struct wire *w, struct mrc_pkt *v, uint8_t to);
	uint32_t mark_plane; /* hook_mark: CE on data of this plane */
	uint32_t drop_psn;   /* hook_drop_once: the first copy of this PSN is lost */
	bool dropped;
	struct {
		struct rte_mbuf *m;
		uint64_t at;
		uint8_t to;
	} q[4096];
	unsigned int head, tail;
	/* Seen on the way (before the hook). */
	uint64_t data_pkts, data_ts, data_ts_bad, sacks, sack_mpr_nonzero, sack_echo, nacks;
	uint8_t last_sack_mpr, max_pen;
	uint64_t nack_by_reason[256];
	uint64_t always_skips;
};

static void
wire_send(struct wire *w, struct mrc_test_pair *p, uint8_t to, struct rte_mbuf **pk, uint16_t n)
{
	for (uint16_t k = 0; k < n; k++) {
		if (w->tail - w->head >= RTE_DIM(w->q)) {
			rte_pktmbuf_free(pk[k]);
			continue;
		}
		w->q[w->tail % RTE_DIM(w->q)].m = pk[k];
		w->q[w->tail % RTE_DIM(w->q)].at = p->now + w->latency_ns;
		w->q[w->tail % RTE_DIM(w->q)].to = to;
		w->tail++;
	}
}

static void
observe(struct wire *w, const struct mrc_pkt *v)
{
	const uint8_t op = v->bth.opcode;

	if (mrc_opcode_is_data(op)) {
		w->data_pkts++;
		w->data_ts += v->bth.ts;
		w->data_ts_bad += v->bth.ts && v->tseth.ts == 0;
	} else if (op == MRC_OP_SACK) {
		w->sacks++;
		w->sack_mpr_nonzero += v->sack.mpr != 0;
		w->last_sack_mpr = v->sack.mpr;
		w->sack_echo += v->sack.ts_echo != 0;
		w->always_skips += v->sack.m == MRC_SACK_M_ALWAYS_SKIP;
		if (v->sack.cwnd_pen > w->max_pen)
			w->max_pen = v->sack.cwnd_pen;
	} else if (op == MRC_OP_NACK) {
		w->nacks++;
		w->nack_by_reason[v->nack.reason]++;
	}
}

static void
wire_deliver(struct wire *w, struct mrc_test_pair *p)
{
	while (w->head != w->tail && w->q[w->head % RTE_DIM(w->q)].at <= p->now) {
		struct rte_mbuf *m = w->q[w->head % RTE_DIM(w->q)].m;
		const uint8_t to = w->q[w->head % RTE_DIM(w->q)].to;
		struct mrc_pkt v;

		w->head++;
		if (mrc_pkt_parse(m, &p->wire, &v) != MRC_WIRE_OK) {
			rte_pktmbuf_free(m);
			continue;
		}
		observe(w, &v);
		if (w->hook != NULL && w->hook(w, &v, to)) {
			rte_pktmbuf_free(m);
			continue;
		}
		mrc_qp_rx(p->h[to].qp, m, &v, p->now);
	}
}

/* Run until both QPs are idle and the wire empty, or `limit_ns` passes. */
static void
run(struct mrc_test_pair *p, struct wire *w, uint64_t limit_ns)
{
	const uint64_t end = p->now + limit_ns;
	struct rte_mbuf *pk[64];

	while (p->now < end) {
		for (uint8_t i = 0; i < 2; i++) {
			const uint16_t n =
				mrc_qp_tx_burst(p->h[i].qp, p->now, 0xff, &p->rand, pk, 64);

			wire_send(w, p, (uint8_t)(1 - i), pk, n);
			mrc_qp_poll(p->h[i].qp, p->now);
		}
		wire_deliver(w, p);
		if (w->head == w->tail && mrc_qp_idle(p->h[0].qp) && mrc_qp_idle(p->h[1].qp))
			break;
		p->now += 100;
	}
}

static int
setup(struct mrc_test_pair *p, struct mrc_test_pair_cfg *cfg)
{
	const int rc = mrc_test_eal_init("test_qp_proto");

	if (rc != 0)
		return rc;
	MRC_T_EQ(mrc_test_pair_create(p, cfg), 0);
	return MRC_TEST_OK;
}

/* Host 0 writes `len` bytes to host 1 (with an immediate when imm != 0). */
static int
post(struct mrc_test_pair *p, uint64_t id, size_t off, uint32_t len, uint32_t imm)
{
	return mrc_qp_post_write(p->h[0].qp, id, p->h[0].mem + off, len, p->h[0].key,
		(uint64_t)(uintptr_t)p->h[1].mem + off, p->h[1].key, imm != 0, imm);
}

static bool
hook_drop_once(struct wire *w, struct mrc_pkt *v, uint8_t to)
{
	(void)to;
	if (!w->dropped && mrc_opcode_is_data(v->bth.opcode) && v->bth.psn == w->drop_psn) {
		w->dropped = true;
		return true;
	}
	return false;
}

/*
 * TSETH: every data packet carries a stamp and the responder echoes it; a
 * lost packet's resend then gives an RTT sample (its echo names the copy).
 * Off: no TSETH and no echo.
 */
static int
test_tseth_stamped_and_echoed(void)
{
	static struct wire w;
	struct mrc_test_pair_cfg cfg;
	struct mrc_test_pair p;
	struct mrc_cqe e[4];

	for (int on = 0; on < 2; on++) {
		mrc_test_pair_cfg_defaults(&cfg);
		cfg.attr.tseth = on;
		MRC_T_RUN(setup(&p, &cfg));
		memset(&w, 0, sizeof(w));
		w.latency_ns = 3 * US;
		w.hook = hook_drop_once;
		w.drop_psn = 0; /* resent; its own SACK then names it */
		mrc_test_fill(&p.h[0], 0, 65536, 9);
		MRC_T_EQ(post(&p, 1, 0, 65536, 0), 0);
		run(&p, &w, 20000 * US);
		MRC_T_EQ(mrc_cq_poll(p.h[0].cq, e, 4), 1);
		MRC_T_EQ(e[0].status, MRC_CQE_OK);
		MRC_T_MEMEQ(p.h[1].mem, p.h[0].mem, 65536);
		MRC_T_ASSERT(w.dropped, "the first copy was lost");
		const struct mrc_rel_tx *rtx = mrc_qp_rel_tx(p.h[0].qp);

		MRC_T_ASSERT(rtx->stats.retx_pkts >= 1, "resent");
		if (on) {
			MRC_T_EQ(w.data_ts, w.data_pkts);
			MRC_T_EQ(w.data_ts_bad, 0);
			MRC_T_ASSERT(w.sack_echo > 0, "SACKs echo stamps");
			MRC_T_ASSERT(rtx->stats.ts_rtt_samples >= 1,
				"the resend gave a sample (%" PRIu64 ")",
				rtx->stats.ts_rtt_samples);
		} else {
			MRC_T_EQ(w.data_ts, 0);
			MRC_T_EQ(w.sack_echo, 0);
			MRC_T_EQ(rtx->stats.ts_rtt_samples, 0);
		}
		mrc_test_pair_destroy(&p);
	}
	return MRC_TEST_OK;
}

/*
 * Dynamic MPR: SACKs carry MPR only from a responder that enabled it, and
 * the requester follows them only when both ends did. A responder that
 * lowers its window NACKs NO_BITMAP what lies beyond it when the requester
 * does not follow; nothing is lost either way.
 */
static int
test_dyn_mpr_negotiated(void)
{
	static struct wire w;
	struct mrc_test_pair_cfg cfg;
	struct mrc_test_pair p;
	struct mrc_cqe e[4];
	/* {our dyn_mpr (both QPs), peer_dyn_mpr (both QPs)} */
	static const bool sides[3][2] = {{false, false}, {true, false}, {true, true}};

	for (int k = 0; k < 3; k++) {
		mrc_test_pair_cfg_defaults(&cfg);
		cfg.mtu = 1024;
		/* A window of 1.5 x 1 MB, well above the 128 KiB the responder will accept. */
		cfg.attr.cc.link_bps = 800000000000ull;
		cfg.attr.cc.mtu_bytes = 1024;
		cfg.attr.dyn_mpr = sides[k][0];
		cfg.attr.peer_dyn_mpr = sides[k][1];
		MRC_T_RUN(setup(&p, &cfg));
		MRC_T_EQ(mrc_qp_set_rx_mpr(p.h[1].qp, 0), -EINVAL);
		MRC_T_EQ(mrc_qp_set_rx_mpr(p.h[1].qp, 9), -EINVAL);
		MRC_T_EQ(mrc_qp_set_rx_mpr(p.h[1].qp, 1), 0); /* 128 PSNs of the 1024 agreed */
		memset(&w, 0, sizeof(w));
		w.latency_ns = 3 * US;
		/* A first message: its SACKs carry the lowered window, if anything does. */
		MRC_T_EQ(post(&p, 1, 0, 1024, 0), 0);
		run(&p, &w, 1000 * US);
		/* A hole at PSN 1 then holds the window's start until the resend fills it. */
		w.hook = hook_drop_once;
		w.drop_psn = 1;
		mrc_test_fill(&p.h[0], 0, 1 << 20, 3);
		MRC_T_EQ(post(&p, 2, 0, 1 << 20, 0), 0); /* 1024 packets */
		run(&p, &w, 200000 * US);
		MRC_T_EQ(mrc_cq_poll(p.h[0].cq, e, 4), 2);
		MRC_T_EQ(e[0].status, MRC_CQE_OK);
		MRC_T_EQ(e[1].status, MRC_CQE_OK);
		MRC_T_MEMEQ(p.h[1].mem, p.h[0].mem, 1 << 20);
		const struct mrc_rel_tx *rtx = mrc_qp_rel_tx(p.h[0].qp);
		const uint64_t no_bitmap = mrc_qp_counters(p.h[1].qp)->rx_no_bitmap;

		if (!sides[k][0]) {
			MRC_T_EQ(w.sack_mpr_nonzero, 0);
		} else {
			MRC_T_EQ(w.sack_mpr_nonzero, w.sacks);
			MRC_T_EQ(w.last_sack_mpr, 1);
		}
		if (sides[k][0] && sides[k][1]) {
			MRC_T_EQ(rtx->window, 128);
			MRC_T_EQ(no_bitmap, 0); /* the requester kept within it */
		} else {
			MRC_T_EQ(rtx->window, 1024);
			MRC_T_ASSERT(no_bitmap > 0, "the requester overshot the lowered window");
			MRC_T_EQ(w.nack_by_reason[MRC_NACK_NO_BITMAP], no_bitmap);
			MRC_T_ASSERT(w.max_pen > 0, "refusals raised the penalty");
		}
		MRC_T_EQ(w.nack_by_reason[MRC_NACK_PSN_OOR_WINDOW], 0);
		mrc_test_pair_destroy(&p);
	}
	return MRC_TEST_OK;
}

/* CE on every data packet of one plane. */
static bool
hook_mark(struct wire *w, struct mrc_pkt *v, uint8_t to)
{
	if (to == 1 && mrc_opcode_is_data(v->bth.opcode) && (v->ev >> 28) == w->mark_plane) {
		v->ip.ecn = MRC_ECN_CE;
		v->outer.ecn = MRC_ECN_CE;
	}
	return false;
}

/*
 * A path that keeps marking: the responder's verdict turns from SKIP_ONCE
 * to ALWAYS_SKIP after always_skip_marks marks in a row, and the requester
 * retires those EVs. With the verdict off, only SKIP_ONCE.
 */
static int
test_always_skip_from_marks(void)
{
	static struct wire w;
	struct mrc_test_pair_cfg cfg;
	struct mrc_test_pair p;
	struct mrc_cqe e[8];

	for (int on = 0; on < 2; on++) {
		mrc_test_pair_cfg_defaults(&cfg);
		cfg.mtu = 1024;
		cfg.attr.always_skip_marks = on ? 2 : 0;
		MRC_T_RUN(setup(&p, &cfg));
		memset(&w, 0, sizeof(w));
		w.latency_ns = 3 * US;
		w.hook = hook_mark;
		w.mark_plane = 2;
		for (int k = 0; k < 4; k++)
			MRC_T_EQ(post(&p, (uint64_t)k, (size_t)k << 20, 1 << 20, 0), 0);
		run(&p, &w, 400000 * US);
		MRC_T_EQ(mrc_cq_poll(p.h[0].cq, e, 8), 4);
		const struct mrc_ev_pool_counters *ec = mrc_ev_counters(mrc_qp_ev_pool(p.h[0].qp));

		if (on) {
			MRC_T_ASSERT(w.always_skips > 0, "ALWAYS_SKIP sent");
			MRC_T_EQ(mrc_qp_rel_rx(p.h[1].qp)->stats.always_skips, w.always_skips);
			MRC_T_ASSERT(ec->retired + ec->no_backup + ec->floor_holds > 0,
				"the requester acted on it");
		} else {
			MRC_T_EQ(w.always_skips, 0);
			MRC_T_EQ(ec->retired, 0);
		}
		MRC_T_ASSERT(mrc_qp_counters(p.h[0].qp)->ecn_echoes > 0, "marks echoed");
		mrc_test_pair_destroy(&p);
	}
	return MRC_TEST_OK;
}

/*
 * An immediate whose completion would overrun the responder's CQ is
 * refused NACK NO_PKT_BUFFER (the QP used to fail); once the application
 * polls, the resend completes. The refusals raise the window penalty,
 * which the requester's CC sees.
 */
static int
test_imm_cq_full_refused(void)
{
	static struct wire w;
	struct mrc_test_pair_cfg cfg;
	struct mrc_test_pair p;
	struct mrc_cqe e[4];
	struct mrc_cc_stats cs;

	mrc_test_pair_cfg_defaults(&cfg);
	MRC_T_RUN(setup(&p, &cfg));
	memset(&w, 0, sizeof(w));
	w.latency_ns = 3 * US;
	/* The application has not polled: the CQ is full. */
	p.h[1].cq->tail = p.h[1].cq->head + p.h[1].cq->mask + 1;
	mrc_test_fill(&p.h[0], 0, 8192, 4);
	MRC_T_EQ(post(&p, 1, 0, 8192, 0x77), 0);
	run(&p, &w, 300 * US);
	MRC_T_EQ(mrc_qp_state(p.h[1].qp), MRC_QP_RTS);
	MRC_T_EQ(mrc_qp_state(p.h[0].qp), MRC_QP_RTS);
	MRC_T_ASSERT(mrc_qp_counters(p.h[1].qp)->rx_imm_no_cqe > 0, "refused");
	MRC_T_ASSERT(w.nack_by_reason[MRC_NACK_NO_PKT_BUFFER] > 0, "NACK NO_PKT_BUFFER");
	MRC_T_EQ(w.nack_by_reason[MRC_NACK_NO_RESOURCE], 0);
	MRC_T_ASSERT(w.max_pen >= MRC_REL_RX_PEN_START, "penalty %u", w.max_pen);
	mrc_cc_stats(mrc_qp_cc(p.h[0].qp), &cs);
	MRC_T_ASSERT(cs.penalties >= 1, "CC saw the penalty");
	p.h[1].cq->head = p.h[1].cq->tail; /* polled */
	run(&p, &w, 100000 * US);
	MRC_T_EQ(mrc_cq_poll(p.h[1].cq, e, 4), 1);
	MRC_T_EQ(e[0].opcode, MRC_CQE_RECV_IMM);
	MRC_T_EQ(e[0].imm, 0x77);
	MRC_T_MEMEQ(p.h[1].mem, p.h[0].mem, 8192);
	MRC_T_EQ(mrc_cq_poll(p.h[0].cq, e, 4), 1);
	MRC_T_EQ(e[0].status, MRC_CQE_OK);
	mrc_test_pair_destroy(&p);
	return MRC_TEST_OK;
}

static bool
hook_no_sacks(struct wire *w, struct mrc_pkt *v, uint8_t to)
{
	(void)w;
	(void)to;
	return v->bth.opcode == MRC_OP_SACK;
}

/* Hand host 0 a transport ACK or NAK for `psn`. */
static void
give_aeth(struct mrc_test_pair *p, uint8_t syndrome, uint32_t psn)
{
	struct mrc_pkt v;

	memset(&v, 0, sizeof(v));
	v.bth.opcode = MRC_OP_ACK;
	v.bth.psn = psn;
	v.aeth.syndrome = syndrome;
	mrc_qp_rx_keep(p->h[0].qp, NULL, &v, p->now);
}

/*
 * A transport ACK (0xD1) acknowledges every PSN up to its BTH PSN, as a
 * SACK with no bitmap would; an RNR NAK is counted and ignored; a remote
 * access NAK fails the QP as NACK UNEXP_EVENT does.
 */
static int
test_transport_ack_accepted(void)
{
	static struct wire w;
	struct mrc_test_pair_cfg cfg;
	struct mrc_test_pair p;
	struct mrc_cqe e[4];

	mrc_test_pair_cfg_defaults(&cfg);
	MRC_T_RUN(setup(&p, &cfg));
	memset(&w, 0, sizeof(w));
	w.latency_ns = 3 * US;
	w.hook = hook_no_sacks;
	MRC_T_EQ(post(&p, 1, 0, 4 * 4096, 0), 0); /* PSNs 0..3 */
	run(&p, &w, 8 * US);
	MRC_T_EQ(mrc_qp_rel_tx(p.h[0].qp)->snd_nxt, 4);
	MRC_T_EQ(mrc_cq_poll(p.h[0].cq, e, 4), 0);
	give_aeth(&p, MRC_AETH_ACK | 0x1f, 1);
	MRC_T_EQ(mrc_qp_rel_tx(p.h[0].qp)->snd_una, 2);
	give_aeth(&p, MRC_AETH_RNR_NAK | 3, 2);
	MRC_T_EQ(mrc_qp_counters(p.h[0].qp)->rx_unexpected, 1);
	give_aeth(&p, MRC_AETH_ACK | 0x1f, 3);
	MRC_T_EQ(mrc_cq_poll(p.h[0].cq, e, 4), 1);
	MRC_T_EQ(e[0].status, MRC_CQE_OK);
	MRC_T_EQ(mrc_qp_counters(p.h[0].qp)->rx_acks, 2);
	give_aeth(&p, MRC_AETH_ACK | 0x1f, 9); /* never sent: refused whole */
	MRC_T_EQ(mrc_qp_counters(p.h[0].qp)->rx_sacks_refused, 1);
	MRC_T_EQ(mrc_qp_state(p.h[0].qp), MRC_QP_RTS);
	MRC_T_EQ(post(&p, 2, 0, 4096, 0), 0);
	run(&p, &w, 8 * US);
	give_aeth(&p, MRC_AETH_NAK | MRC_AETH_NAK_REMOTE_ACCESS, 4);
	MRC_T_EQ(mrc_qp_counters(p.h[0].qp)->rx_naks, 1);
	MRC_T_EQ(mrc_qp_state(p.h[0].qp), MRC_QP_ERROR);
	MRC_T_EQ(mrc_qp_error(p.h[0].qp), MRC_QP_ERR_REMOTE_OP);
	while (w.head != w.tail)
		rte_pktmbuf_free(w.q[w.head++ % RTE_DIM(w.q)].m);
	mrc_test_pair_destroy(&p);
	return MRC_TEST_OK;
}

/* Hand host 1 a zero-length WRITE_ONLY for `psn` on `ev`, ECN-marked. */
static void
give_marked(struct mrc_test_pair *p, uint32_t psn, uint32_t ev)
{
	struct mrc_pkt v;

	memset(&v, 0, sizeof(v));
	v.bth.opcode = MRC_OP_WRITE_ONLY;
	v.bth.psn = psn;
	v.ev = ev;
	v.ip.ecn = MRC_ECN_CE;
	v.outer.ecn = MRC_ECN_CE;
	v.flags = MRC_PKT_F_SRV6;
	v.data.va = (uint64_t)(uintptr_t)p->h[1].mem;
	v.data.rkey = p->h[1].key;
	mrc_qp_rx_keep(p->h[1].qp, NULL, &v, p->now);
}

/* The M of every SACK host 1 sends now, in order, into m[] (returns how many). */
static unsigned int
sack_verdicts(struct mrc_test_pair *p, uint8_t *m, unsigned int max)
{
	struct rte_mbuf *pk[16];
	const uint16_t n = mrc_qp_tx_burst(p->h[1].qp, p->now, 0xff, &p->rand, pk, 16);
	unsigned int k = 0;

	for (uint16_t i = 0; i < n; i++) {
		struct mrc_pkt v;

		if (mrc_pkt_parse(pk[i], &p->wire, &v) == MRC_WIRE_OK &&
			v.bth.opcode == MRC_OP_SACK && k < max)
			m[k++] = v.sack.m;
		rte_pktmbuf_free(pk[i]);
	}
	return k;
}

/*
 * A marked packet refused (beyond the window) gets no SACK, so it neither
 * counts toward ALWAYS_SKIP nor breaks the row: the next marked packet on
 * the EV earns the verdict, in a SACK.
 */
static int
test_refused_mark_not_counted(void)
{
	struct mrc_test_pair_cfg cfg;
	struct mrc_test_pair p;
	uint8_t m[8];

	mrc_test_pair_cfg_defaults(&cfg);
	cfg.attr.always_skip_marks = 2;
	MRC_T_RUN(setup(&p, &cfg));
	const uint32_t x = 0x1234567;

	give_marked(&p, 0, x);
	MRC_T_EQ(sack_verdicts(&p, m, 8), 1);
	MRC_T_EQ(m[0], MRC_SACK_M_SKIP_ONCE);
	give_marked(&p, 5000, x); /* beyond the 1024-PSN window: NACKed, no SACK */
	MRC_T_EQ(sack_verdicts(&p, m, 8), 0);
	give_marked(&p, 1, x);
	MRC_T_EQ(sack_verdicts(&p, m, 8), 1);
	MRC_T_EQ(m[0], MRC_SACK_M_ALWAYS_SKIP);
	MRC_T_EQ(mrc_qp_counters(p.h[1].qp)->rx_oor_pkts, 1);
	mrc_test_pair_destroy(&p);
	return MRC_TEST_OK;
}

static const struct mrc_test_case cases[] = {
	MRC_TEST_CASE(test_tseth_stamped_and_echoed),
	MRC_TEST_CASE(test_dyn_mpr_negotiated),
	MRC_TEST_CASE(test_always_skip_from_marks),
	MRC_TEST_CASE(test_imm_cq_full_refused),
	MRC_TEST_CASE(test_transport_ack_accepted),
	MRC_TEST_CASE(test_refused_mark_not_counted),
};

MRC_TEST_MAIN("qp_proto", cases)
