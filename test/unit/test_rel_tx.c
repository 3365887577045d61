/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Requester reliability: SACK validation, per-EV order and time-based loss
 * detection (and that reordering alone is never a loss), oldest-first
 * retransmission, NACKs, the linear-then-exponential timer, the retry
 * budget, tail-loss probes, PSN wrap, and a randomized run against a
 * truthful responder in which every packet is delivered exactly once.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mrc_rel_rx.h"
#include "mrc_rel_tx.h"
#include "mrc_seq.h"
#include "mrc_test.h"

#define HZ 1000000000ull /* 1 tsc = 1 ns */
#define US 1000ull

struct events {
	uint32_t acked[4096], n_acked;
	uint32_t lost[4096], n_lost;
	enum mrc_rel_loss why[4096];
	uint32_t lost_ev[4096];
};

/* Tests send from slot s with EV value EVV(s). */
#define EVV(s) (0xe0000000u | (uint32_t)(s))

static void
on_acked(void *ctx, uint32_t psn, uint32_t ev, uint32_t cookie, uint16_t len, uint8_t tx_count)
{
	struct events *e = ctx;

	(void)ev;
	(void)cookie;
	(void)len;
	(void)tx_count;
	if (e->n_acked < RTE_DIM(e->acked))
		e->acked[e->n_acked++] = psn;
}

static void
on_lost(void *ctx, uint32_t psn, uint32_t ev, uint32_t cookie, uint16_t len, enum mrc_rel_loss why)
{
	(void)cookie;
	(void)len;
	struct events *e = ctx;

	if (e->n_lost < RTE_DIM(e->lost)) {
		e->why[e->n_lost] = why;
		e->lost_ev[e->n_lost] = ev;
		e->lost[e->n_lost++] = psn;
	}
}

static const struct mrc_rel_tx_ops ops = {.acked = on_acked, .lost = on_lost};

static struct mrc_rel_tx *
new_tx(struct mrc_rel_tx_cfg *cfg, uint32_t start)
{
	struct mrc_rel_tx *tx = calloc(1, mrc_rel_tx_memsize(cfg));

	if (tx != NULL && mrc_rel_tx_init(tx, cfg, start, 0) != 0) {
		free(tx);
		return NULL;
	}
	return tx;
}

static struct mrc_rel_tx *
default_tx(uint32_t start)
{
	struct mrc_rel_tx_cfg cfg;

	mrc_rel_tx_cfg_defaults(&cfg, HZ);
	cfg.n_ev_slots = 8;
	return new_tx(&cfg, start);
}

static struct mrc_sack_view
sack(uint32_t cack, int16_t off, uint64_t bitmap, int16_t ack_off)
{
	struct mrc_sack_view s;

	memset(&s, 0, sizeof(s));
	s.cack_psn = cack & 0xffffff;
	s.sack_offset = off;
	s.sack_bitmap = bitmap;
	s.ack_psn_offset = ack_off;
	return s;
}

static int
test_cumulative_ack_and_rtt(void)
{
	struct mrc_rel_tx *tx = default_tx(0);
	struct mrc_rel_ack_info info;
	struct events e = {0};

	for (uint16_t k = 0; k < 10; k++)
		MRC_T_EQ(mrc_rel_tx_sent_new(tx, k % 4, EVV(k % 4), 1000, 100 + k, k * US), k);
	MRC_T_EQ(mrc_rel_tx_inflight(tx), 10);
	struct mrc_sack_view s = sack(9, 1, 0, 0); /* triggered by PSN 9 */

	MRC_T_EQ(mrc_rel_tx_on_sack(tx, &s, 30 * US, &ops, &e, &info), 0);
	MRC_T_EQ(info.acked_pkts, 10);
	MRC_T_EQ(info.acked_bytes, 10000);
	MRC_T_EQ(info.lost_pkts, 0);
	MRC_T_ASSERT(info.progress, "snd_una moved");
	MRC_T_U64_EQ(info.rtt_tsc, 21 * US); /* PSN 9 sent at 9 us */
	MRC_T_EQ(e.n_acked, 10);
	for (uint32_t k = 0; k < 10; k++)
		MRC_T_EQ(e.acked[k], k); /* in PSN order */
	MRC_T_EQ(tx->snd_una, 10);
	MRC_T_EQ(mrc_rel_tx_inflight(tx), 0);
	/* The same SACK again acknowledges nothing twice. */
	MRC_T_EQ(mrc_rel_tx_on_sack(tx, &s, 31 * US, &ops, &e, &info), 0);
	MRC_T_EQ(info.acked_pkts, 0);
	MRC_T_EQ(e.n_acked, 10);
	free(tx);
	return MRC_TEST_OK;
}

static int
test_refuse_acks_for_unsent(void)
{
	struct mrc_rel_tx *tx = default_tx(500);
	struct mrc_rel_ack_info info;
	struct events e = {0};

	for (uint16_t k = 0; k < 4; k++)
		mrc_rel_tx_sent_new(tx, 0, EVV(0), 100, 0, 0); /* PSNs 500..503 */
	struct mrc_sack_view s = sack(504, 1, 0, 0);

	MRC_T_EQ(mrc_rel_tx_on_sack(tx, &s, US, &ops, &e, &info), -EINVAL);
	s = sack(499, 1, UINT64_C(1) << 4, 0); /* bit for 504 */
	MRC_T_EQ(mrc_rel_tx_on_sack(tx, &s, US, &ops, &e, &info), -EINVAL);
	s = sack(501, 1, 0x1 | (UINT64_C(1) << 40), 0); /* 502 ok but 542 never sent */
	MRC_T_EQ(mrc_rel_tx_on_sack(tx, &s, US, &ops, &e, &info), -EINVAL);
	MRC_T_EQ(e.n_acked, 0);
	MRC_T_EQ(tx->snd_una, 500);
	MRC_T_EQ(mrc_rel_tx_inflight(tx), 4);
	MRC_T_EQ(tx->stats.sacks_refused, 3);
	free(tx);
	return MRC_TEST_OK;
}

/* Spraying: PSN 1 delivered before 0 on another EV is reordering, not loss. */
static int
test_reordering_is_not_loss(void)
{
	struct mrc_rel_tx *tx = default_tx(0);
	struct mrc_rel_ack_info info;
	struct events e = {0};

	mrc_rel_tx_sent_new(tx, 0, EVV(0), 100, 0, 0);
	mrc_rel_tx_sent_new(tx, 1, EVV(1), 100, 0, 100);    /* 0.1 us later, other EV */
	struct mrc_sack_view s = sack(0xffffff, 1, 0x2, 2); /* only PSN 1 */

	MRC_T_EQ(mrc_rel_tx_on_sack(tx, &s, 10 * US, &ops, &e, &info), 0);
	MRC_T_EQ(info.acked_pkts, 1);
	MRC_T_EQ(e.n_lost, 0);
	MRC_T_EQ(tx->snd_una, 0);
	s = sack(1, 1, 0, 0);
	MRC_T_EQ(mrc_rel_tx_on_sack(tx, &s, 11 * US, &ops, &e, &info), 0);
	MRC_T_EQ(tx->snd_una, 2);
	MRC_T_EQ(e.n_lost, 0);
	free(tx);
	return MRC_TEST_OK;
}

static int
test_per_ev_order_loss(void)
{
	struct mrc_rel_tx *tx = default_tx(0);
	struct mrc_rel_ack_info info;
	struct events e = {0};

	mrc_rel_tx_sent_new(tx, 3, EVV(3), 100, 0, 0);	/* 0 on EV 3: lost */
	mrc_rel_tx_sent_new(tx, 5, EVV(5), 100, 0, 10); /* 1 on EV 5: slow path */
	mrc_rel_tx_sent_new(tx, 3, EVV(3), 100, 0, 20); /* 2 on EV 3: delivered */
	struct mrc_sack_view s = sack(0xffffff, 1, 0x4, 3);

	MRC_T_EQ(mrc_rel_tx_on_sack(tx, &s, 10 * US, &ops, &e, &info), 0);
	MRC_T_EQ(info.lost_pkts, 1);
	MRC_T_EQ(e.n_lost, 1);
	MRC_T_EQ(e.lost[0], 0);
	MRC_T_EQ(e.why[0], MRC_REL_LOSS_EV_ORDER);
	MRC_T_EQ(e.lost_ev[0], EVV(3));
	MRC_T_EQ(tx->n_lost, 1);

	/* Resend 0 on another EV; the oldest loss comes first. */
	uint32_t psn, cookie;
	uint32_t old_ev;
	uint16_t len;

	MRC_T_EQ(mrc_rel_tx_next_retx(tx, &psn, &old_ev, &cookie, &len), 0);
	MRC_T_EQ(psn, 0);
	MRC_T_EQ(old_ev, EVV(3));
	mrc_rel_tx_sent_retx(tx, 0, 6, EVV(6), 11 * US);
	MRC_T_EQ(mrc_rel_tx_next_retx(tx, &psn, &old_ev, &cookie, &len), -ENOENT);
	MRC_T_EQ(tx->stats.retx_pkts, 1);
	/* Both delivered; the resent one gives no RTT sample (Karn). */
	s = sack(2, 1, 0, -2);
	MRC_T_EQ(mrc_rel_tx_on_sack(tx, &s, 30 * US, &ops, &e, &info), 0);
	MRC_T_EQ(info.acked_pkts, 2);
	MRC_T_U64_EQ(info.rtt_tsc, 0);
	MRC_T_EQ(tx->snd_una, 3);
	MRC_T_EQ(e.n_lost, 1);
	free(tx);
	return MRC_TEST_OK;
}

/* A retransmission is newer on its EV than new data sent earlier there. */
static int
test_ev_order_with_retransmissions(void)
{
	struct mrc_rel_tx *tx = default_tx(0);
	struct mrc_rel_ack_info info;
	struct events e = {0};

	mrc_rel_tx_sent_new(tx, 0, EVV(0), 100, 0, 0);	/* 0 on EV 0, will be NACKed */
	mrc_rel_tx_sent_new(tx, 1, EVV(1), 100, 0, 10); /* 1 on EV 1 */
	struct mrc_nack_view n = {.reason = MRC_NACK_TRIMMED, .nack_psn = 0};

	MRC_T_EQ(mrc_rel_tx_on_nack(tx, &n, 20, &ops, &e), 0);
	MRC_T_EQ(e.why[0], MRC_REL_LOSS_NACK);
	mrc_rel_tx_sent_retx(tx, 0, 1, EVV(1), 30); /* 0 again, now after 1 on EV 1 */
	/* One SACK delivers both: 1 (sent earlier on EV 1) must not be called lost. */
	struct mrc_sack_view s = sack(1, 1, 0, 0);

	MRC_T_EQ(mrc_rel_tx_on_sack(tx, &s, 40, &ops, &e, &info), 0);
	MRC_T_EQ(info.acked_pkts, 2);
	MRC_T_EQ(e.n_lost, 1);
	MRC_T_EQ(tx->stats.spurious, 0);
	free(tx);
	return MRC_TEST_OK;
}

/*
 * The QP resends a packet of its oldest message twice only when rule 1
 * proved it lost: rel says why each packet waiting to be resent was lost.
 */
static int
test_lost_why(void)
{
	struct mrc_rel_tx *tx = default_tx(0);
	struct mrc_nack_view n = {.reason = MRC_NACK_TRIMMED, .nack_psn = 0};
	struct events e = {0};

	mrc_rel_tx_sent_new(tx, 0, EVV(0), 100, 0, 0);
	mrc_rel_tx_sent_new(tx, 1, EVV(1), 100, 0, 0);
	MRC_T_EQ(mrc_rel_tx_lost_why(tx, 0), -ENOENT); /* in flight */
	MRC_T_EQ(mrc_rel_tx_on_nack(tx, &n, 10, &ops, &e), 0);
	MRC_T_EQ(mrc_rel_tx_lost_why(tx, 0), MRC_REL_LOSS_NACK);
	mrc_rel_tx_poll(tx, mrc_rel_tx_pkt_timeout(tx) + 1, &ops, &e);
	MRC_T_EQ(mrc_rel_tx_lost_why(tx, 1), MRC_REL_LOSS_PKT_TIMEOUT);
	MRC_T_EQ(mrc_rel_tx_lost_why(tx, 2), -ENOENT); /* never sent */
	mrc_rel_tx_sent_retx(tx, 0, 2, EVV(2), 20);
	MRC_T_EQ(mrc_rel_tx_lost_why(tx, 0), -ENOENT); /* resent: in flight again */
	/* Rule 1: 2 and 3 on EV 3; 3 arrives, so 2 was lost. */
	mrc_rel_tx_sent_new(tx, 3, EVV(3), 100, 0, 30);
	mrc_rel_tx_sent_new(tx, 3, EVV(3), 100, 0, 31);
	struct mrc_rel_ack_info info;
	struct mrc_sack_view s = sack(0xffffff, 1, 0x8, 4); /* base 0: only 3 arrived */

	MRC_T_EQ(mrc_rel_tx_on_sack(tx, &s, 40, &ops, &e, &info), 0);
	MRC_T_EQ(mrc_rel_tx_lost_why(tx, 2), MRC_REL_LOSS_EV_ORDER);
	free(tx);
	return MRC_TEST_OK;
}

/* A slot whose EV was replaced: the new EV's deliveries say nothing of the old one's. */
static int
test_ev_order_per_tenure(void)
{
	struct mrc_rel_tx *tx = default_tx(0);
	struct mrc_rel_ack_info info;
	struct events e = {0};

	mrc_rel_tx_sent_new(tx, 0, 0xaaaa0000, 100, 0, 0);  /* 0: slot 0, old EV */
	mrc_rel_tx_sent_new(tx, 0, 0xbbbb0000, 100, 0, 10); /* 1: slot 0, its replacement */
	mrc_rel_tx_sent_new(tx, 0, 0xbbbb0000, 100, 0, 20); /* 2: same new EV */
	struct mrc_sack_view s = sack(0xffffff, 1, 0x4, 0); /* only 2 arrived */

	MRC_T_EQ(mrc_rel_tx_on_sack(tx, &s, 30, &ops, &e, &info), 0);
	MRC_T_EQ(e.n_lost, 1); /* 1, same EV, sent before 2 */
	MRC_T_EQ(e.lost[0], 1);
	MRC_T_EQ(e.lost_ev[0], 0xbbbb0000);
	MRC_T_EQ(e.why[0], MRC_REL_LOSS_EV_ORDER);
	MRC_T_EQ(mrc_rel_tx_inflight(tx), 1); /* 0 still in flight, judged later */
	free(tx);
	return MRC_TEST_OK;
}

/* EV = plane << 28 | uplink << 20 | random, as in MRC_EV_LAYOUT_DEFAULT. */
#define PEV(plane, uplink, rnd) ((uint32_t)(plane) << 28 | (uint32_t)(uplink) << 20 | (rnd))

static struct mrc_rel_tx *
path_tx(uint8_t n_t1)
{
	struct mrc_rel_tx_cfg cfg;

	mrc_rel_tx_cfg_defaults(&cfg, HZ);
	cfg.path_n_t1 = n_t1;
	cfg.path_plane_shift = 28;
	cfg.path_plane_bits = 4;
	cfg.path_uplink_shift = 20;
	cfg.path_uplink_bits = 8;
	return new_tx(&cfg, 0);
}

/*
 * Per-path order: different EVs on the same plane and T1 (uplink mod n_t1)
 * cross the same FIFO links, so a later packet on another EV of the path
 * proves the loss. Per EV slot (path_n_t1 = 0) it proves nothing.
 */
static int
test_per_path_order_loss(void)
{
	struct mrc_rel_ack_info info;

	for (uint8_t n_t1 = 0; n_t1 <= 4; n_t1 += 4) {
		struct mrc_rel_tx *tx = path_tx(n_t1);
		struct events e = {0};

		MRC_T_ASSERT(tx != NULL, "path_n_t1 %u rejected", n_t1);
		mrc_rel_tx_sent_new(tx, 3, PEV(2, 1, 0x111), 100, 0, 0);  /* 0: lost */
		mrc_rel_tx_sent_new(tx, 7, PEV(2, 2, 0x333), 100, 0, 10); /* 1: T1 2, slow */
		mrc_rel_tx_sent_new(tx, 8, PEV(3, 1, 0x444), 100, 0, 15); /* 2: plane 3, slow */
		mrc_rel_tx_sent_new(tx, 9, PEV(2, 5, 0x222), 100, 0, 20); /* 3: T1 5 % 4 = 1 */
		struct mrc_sack_view s = sack(0xffffff, 1, 0x8, 4);	  /* only 3 arrived */

		MRC_T_EQ(mrc_rel_tx_on_sack(tx, &s, 10 * US, &ops, &e, &info), 0);
		if (n_t1 == 0) {
			MRC_T_EQ(e.n_lost, 0); /* no EV saw a later delivery */
			MRC_T_EQ(mrc_rel_tx_inflight(tx), 3);
		} else {
			MRC_T_EQ(e.n_lost, 1);
			MRC_T_EQ(e.lost[0], 0);
			MRC_T_EQ(e.why[0], MRC_REL_LOSS_EV_ORDER);
			MRC_T_EQ(e.lost_ev[0], PEV(2, 1, 0x111));
			MRC_T_EQ(mrc_rel_tx_inflight(tx), 2); /* 1 and 2: other paths */
			/* A probe on another EV of 1's path proves 1 lost. */
			mrc_rel_tx_probe_sent_on(tx, 11, PEV(2, 6, 0x555), 11 * US);
			s = sack(0xffffff, 1, 0x8, 4);
			s.pr = true;
			MRC_T_EQ(mrc_rel_tx_on_sack(tx, &s, 12 * US, &ops, &e, &info), 0);
			MRC_T_EQ(e.n_lost, 2);
			MRC_T_EQ(e.lost[1], 1);
			MRC_T_EQ(e.why[1], MRC_REL_LOSS_EV_ORDER);
			MRC_T_EQ(mrc_rel_tx_inflight(tx), 1); /* 2 stays: plane 3 */
		}
		free(tx);
	}
	return MRC_TEST_OK;
}

/*
 * The reorder window follows the RTTs of now, not of the first packets:
 * once the queues have filled (every path 40-44 us against 10 us unloaded),
 * the window is that 4 us of spread plus srtt/4, not the whole queueing
 * delay, and a packet 20 us older than a delivered one is lost.
 */
static int
test_reo_wnd_recent_rtts(void)
{
	struct mrc_rel_tx *tx = default_tx(0);
	struct mrc_rel_ack_info info;
	struct events e = {0};
	uint32_t psn = 0;
	uint64_t t = 0, reo;

	/* One packet at a time, each acknowledged by its own SACK after `rtt`. */
	for (unsigned int k = 0; k < 1000; k++, psn++, t += 50 * US) {
		const uint64_t rtt = k < 10 ? 10 * US : (k % 2 ? 44 * US : 40 * US);
		struct mrc_sack_view s = sack(psn, 1, 0, 0);

		MRC_T_EQ(mrc_rel_tx_sent_new(tx, k % 8, EVV(k % 8), 100, 0, t), psn);
		MRC_T_EQ(mrc_rel_tx_on_sack(tx, &s, t + rtt, &ops, &e, &info), 0);
		MRC_T_U64_EQ(info.rtt_tsc, rtt);
	}
	MRC_T_EQ(e.n_lost, 0);
	reo = mrc_rel_tx_reo_wnd(tx);
	/* Before: 44 - 10 (the unloaded RTT, kept for good) + srtt / 4 = 44.5 us. */
	MRC_T_ASSERT(reo < 20 * US, "reorder window %llu ns", (unsigned long long)reo);
	MRC_T_ASSERT(reo >= 4 * US + tx->srtt_tsc / 4 - US / 2,
		"the paths' spread stays in: %llu ns", (unsigned long long)reo);
	/* A at t, B 20 us later on another EV; only B arrives. */
	mrc_rel_tx_sent_new(tx, 0, EVV(0), 100, 0, t);
	mrc_rel_tx_sent_new(tx, 1, EVV(1), 100, 0, t + 20 * US);
	struct mrc_sack_view s = sack(psn - 1, 1, 0x2, 2);

	MRC_T_EQ(mrc_rel_tx_on_sack(tx, &s, t + 62 * US, &ops, &e, &info), 0);
	MRC_T_EQ(e.n_lost, 1);
	MRC_T_EQ(e.lost[0], psn);
	MRC_T_EQ(e.why[0], MRC_REL_LOSS_TIME);
	free(tx);
	return MRC_TEST_OK;
}

static int
test_time_rule(void)
{
	struct mrc_rel_tx *tx = default_tx(0);
	struct mrc_rel_ack_info info;
	struct events e = {0};
	uint64_t reo = mrc_rel_tx_reo_wnd(tx);

	MRC_T_ASSERT(reo >= 1 * US, "reorder window has its floor");
	mrc_rel_tx_sent_new(tx, 0, EVV(0), 100, 0, 0);
	mrc_rel_tx_sent_new(tx, 1, EVV(1), 100, 0, reo / 2); /* within the window */
	mrc_rel_tx_sent_new(tx, 2, EVV(2), 100, 0, reo + 1); /* beyond it */
	/* Triggers point at undelivered PSN 0, so no RTT sample moves the window. */
	struct mrc_sack_view s = sack(0xffffff, 1, 0x2, 1); /* only 1 */

	MRC_T_EQ(mrc_rel_tx_on_sack(tx, &s, 3 * reo, &ops, &e, &info), 0);
	MRC_T_EQ(e.n_lost, 0);
	MRC_T_U64_EQ(mrc_rel_tx_reo_wnd(tx), reo);
	s = sack(0xffffff, 1, 0x4, 1); /* 2, sent more than reo after 0 */
	MRC_T_EQ(mrc_rel_tx_on_sack(tx, &s, 3 * reo, &ops, &e, &info), 0);
	MRC_T_EQ(e.n_lost, 1);
	MRC_T_EQ(e.lost[0], 0);
	MRC_T_EQ(e.why[0], MRC_REL_LOSS_TIME);
	free(tx);
	return MRC_TEST_OK;
}

static int
test_spurious_loss(void)
{
	struct mrc_rel_tx *tx = default_tx(0);
	struct mrc_rel_ack_info info;
	struct events e = {0};
	struct mrc_nack_view n = {.reason = MRC_NACK_TRIMMED, .nack_psn = 0};

	mrc_rel_tx_sent_new(tx, 0, EVV(0), 100, 0, 0);
	MRC_T_EQ(mrc_rel_tx_on_nack(tx, &n, 1, &ops, &e), 0);
	MRC_T_EQ(tx->n_lost, 1);
	/* Delivered before we resent it (say, a second copy made it). */
	struct mrc_sack_view s = sack(0, 1, 0, 0);

	MRC_T_EQ(mrc_rel_tx_on_sack(tx, &s, 5, &ops, &e, &info), 0);
	MRC_T_EQ(tx->stats.spurious, 1);
	MRC_T_EQ(tx->n_lost, 0);
	uint32_t psn, cookie;
	uint32_t ev;
	uint16_t len;

	MRC_T_EQ(mrc_rel_tx_next_retx(tx, &psn, &ev, &cookie, &len), -ENOENT);
	MRC_T_EQ(e.n_acked, 1);
	free(tx);
	return MRC_TEST_OK;
}

static int
test_nack_reasons_and_budget(void)
{
	struct mrc_rel_tx_cfg cfg;
	struct mrc_rel_tx *tx;
	struct events e = {0};

	mrc_rel_tx_cfg_defaults(&cfg, HZ);
	cfg.n_ev_slots = 4;
	cfg.retry_linear = 1;
	cfg.retry_exp = 1; /* two retries, the third is one too many */
	tx = new_tx(&cfg, 0);
	for (int k = 0; k < 4; k++)
		mrc_rel_tx_sent_new(tx, 0, EVV(0), 100, 0, 0);
	struct mrc_nack_view n = {.reason = MRC_NACK_NO_RESOURCE, .nack_psn = 0};

	MRC_T_EQ(mrc_rel_tx_on_nack(tx, &n, 1, &ops, &e), 0);
	n.nack_psn = 1;
	n.reason = MRC_NACK_PSN_OOR_WINDOW;
	MRC_T_EQ(mrc_rel_tx_on_nack(tx, &n, 2, &ops, &e), 0);
	MRC_T_EQ(tx->retries, 2);
	n.nack_psn = 2;
	n.reason = MRC_NACK_TRIMMED; /* free */
	MRC_T_EQ(mrc_rel_tx_on_nack(tx, &n, 3, &ops, &e), 0);
	MRC_T_EQ(tx->retries, 2);
	n.nack_psn = 77; /* never sent */
	MRC_T_EQ(mrc_rel_tx_on_nack(tx, &n, 3, &ops, &e), 0);
	MRC_T_EQ(tx->stats.nacks_ignored, 1);
	n.nack_psn = 3;
	n.reason = MRC_NACK_NO_BITMAP;
	MRC_T_EQ(mrc_rel_tx_on_nack(tx, &n, 4, &ops, &e), -MRC_REL_ERR_RETRY_EXCEEDED);
	MRC_T_EQ(tx->error, MRC_REL_ERR_RETRY_EXCEEDED);
	MRC_T_ASSERT(!mrc_rel_tx_can_send(tx), "an errored sender sends nothing");
	free(tx);

	tx = new_tx(&cfg, 0);
	mrc_rel_tx_sent_new(tx, 0, EVV(0), 100, 0, 0);
	n.reason = MRC_NACK_UNEXP_EVENT;
	n.nack_psn = 0;
	MRC_T_EQ(mrc_rel_tx_on_nack(tx, &n, 1, &ops, &e), -MRC_REL_ERR_REMOTE_OP);
	MRC_T_EQ(tx->error, MRC_REL_ERR_REMOTE_OP);
	free(tx);
	return MRC_TEST_OK;
}

static int
test_rto_schedule_and_budget(void)
{
	struct mrc_rel_tx_cfg cfg;
	struct mrc_rel_tx *tx;
	struct events e = {0};
	const uint64_t base = 262144; /* 1.024 us x 2^8, in ns */

	mrc_rel_tx_cfg_defaults(&cfg, HZ);
	cfg.n_ev_slots = 4;
	cfg.retry_linear = 3;
	cfg.retry_exp = 2;
	tx = new_tx(&cfg, 0);
	MRC_T_U64_EQ(mrc_rel_tx_rto(tx, 0), base);
	MRC_T_U64_EQ(mrc_rel_tx_rto(tx, 1), 2 * base);
	MRC_T_U64_EQ(mrc_rel_tx_rto(tx, 2), 3 * base);
	MRC_T_U64_EQ(mrc_rel_tx_rto(tx, 3), 3 * base * 2);
	MRC_T_U64_EQ(mrc_rel_tx_rto(tx, 4), 3 * base * 4);

	/* Packets that are never answered: expiries follow the schedule, then error. */
	mrc_rel_tx_sent_new(tx, 0, EVV(0), 100, 0, 0);
	uint64_t now = 0, expected = 0;

	for (unsigned int k = 0; k <= 6; k++) {
		uint64_t next = mrc_rel_tx_poll(tx, now, &ops, &e);

		if (k > 0)
			MRC_T_EQ(tx->stats.rto_fired, k);
		if (tx->error != MRC_REL_OK) {
			MRC_T_EQ(k, 6); /* 3 linear + 2 exponential retries, the 6th expiry fails */
			break;
		}
		/* Resend whatever is lost so the timer keeps measuring no progress. */
		uint32_t psn, cookie;
		uint32_t ev;
		uint16_t len;

		while (mrc_rel_tx_next_retx(tx, &psn, &ev, &cookie, &len) == 0)
			mrc_rel_tx_sent_retx(tx, psn, 1, EVV(1), now);
		expected = now + mrc_rel_tx_rto(tx, tx->retries);
		MRC_T_ASSERT(next <= expected, "poll asks to be called by the RTO");
		now = expected;
	}
	MRC_T_EQ(tx->error, MRC_REL_ERR_RETRY_EXCEEDED);
	free(tx);

	/* retry_exp 25 means forever. */
	mrc_rel_tx_cfg_defaults(&cfg, HZ);
	cfg.n_ev_slots = 4;
	cfg.timeout = 0;
	tx = new_tx(&cfg, 0);
	mrc_rel_tx_sent_new(tx, 0, EVV(0), 100, 0, 0);
	now = 0;
	for (int k = 0; k < 200; k++) {
		now += mrc_rel_tx_rto(tx, tx->retries) + 1;
		mrc_rel_tx_poll(tx, now, &ops, &e);
	}
	MRC_T_EQ(tx->error, MRC_REL_OK);
	MRC_T_ASSERT(tx->stats.rto_fired >= 100, "kept retrying (%llu)",
		(unsigned long long)tx->stats.rto_fired);
	free(tx);
	return MRC_TEST_OK;
}

/*
 * A round trip longer than the configured timeout (a slow or busy host):
 * the retransmit timer waits at least a packet timeout, so a packet that
 * is only waiting is not resent. With the fixed 262 us timer and 1 ms
 * round trips, every message was resent once before its answer came.
 */
static int
test_rto_never_below_rtt(void)
{
	struct mrc_rel_tx *tx = default_tx(0);
	struct mrc_rel_ack_info info;
	struct events e = {0};
	const uint64_t rtt = 1000 * US;
	uint64_t now = 0;

	/* Round trips of 1 ms, one packet at a time. */
	for (uint32_t k = 0; k < 16; k++, now += rtt) {
		struct mrc_sack_view s = sack(k, 1, 0, 0);

		mrc_rel_tx_sent_new(tx, k % 8, EVV(k % 8), 100, k, now);
		MRC_T_EQ(mrc_rel_tx_on_sack(tx, &s, now + rtt, &ops, &e, &info), 0);
	}
	MRC_T_ASSERT(mrc_rel_tx_rto(tx, 0) >= 2 * rtt, "rto %llu ns",
		(unsigned long long)mrc_rel_tx_rto(tx, 0));
	MRC_T_U64_EQ(mrc_rel_tx_rto(tx, 1), 2 * mrc_rel_tx_rto(tx, 0));
	mrc_rel_tx_sent_new(tx, 0, EVV(0), 100, 99, now);
	for (uint64_t t = now; t <= now + rtt + rtt / 2; t += 10 * US)
		mrc_rel_tx_poll(tx, t, &ops, &e);
	MRC_T_EQ(tx->stats.rto_fired, 0);
	MRC_T_EQ(tx->stats.lost[MRC_REL_LOSS_PKT_TIMEOUT], 0);
	struct mrc_sack_view s = sack(16, 1, 0, 0);

	MRC_T_EQ(mrc_rel_tx_on_sack(tx, &s, now + rtt + rtt / 2, &ops, &e, &info), 0);
	MRC_T_EQ(info.acked_pkts, 1);
	MRC_T_EQ(tx->stats.spurious, 0);
	free(tx);
	return MRC_TEST_OK;
}

/*
 * A sender with no samples of its own (a QP that just became active) waits
 * for the round trip its worker's other senders to the same destination
 * see, not for its 10 us initial guess; and its samples feed the share.
 */
static int
test_shared_rtt_for_cold_sender(void)
{
	struct mrc_rel_rtt_share share = {0};
	struct mrc_rel_tx *warm = default_tx(0), *cold = default_tx(0), *alone = default_tx(0);
	struct mrc_rel_ack_info info;
	struct events e = {0};
	const uint64_t rtt = 1000 * US;
	uint64_t now = 0;

	mrc_rel_tx_set_share(warm, &share);
	for (uint32_t k = 0; k < 16; k++, now += rtt) {
		struct mrc_sack_view s = sack(k, 1, 0, 0);

		mrc_rel_tx_sent_new(warm, k % 8, EVV(k % 8), 100, k, now);
		MRC_T_EQ(mrc_rel_tx_on_sack(warm, &s, now + rtt, &ops, &e, &info), 0);
	}
	MRC_T_U64_EQ(share.samples, 16);
	MRC_T_U64_EQ(share.srtt_tsc, warm->srtt_tsc);
	mrc_rel_tx_set_share(cold, &share);
	MRC_T_ASSERT(mrc_rel_tx_pkt_timeout(cold) >= 2 * rtt, "cold sender waits for the share");
	MRC_T_ASSERT(mrc_rel_tx_pkt_timeout(alone) < rtt / 2, "alone it waits %llu ns",
		(unsigned long long)mrc_rel_tx_pkt_timeout(alone));
	/* Both send at `now`; at now + rtt + rtt / 2, only the one that shares has not given up. */
	mrc_rel_tx_sent_new(cold, 0, EVV(0), 100, 0, now);
	mrc_rel_tx_sent_new(alone, 0, EVV(0), 100, 0, now);
	for (uint64_t t = now; t <= now + rtt + rtt / 2; t += 10 * US) {
		mrc_rel_tx_poll(cold, t, &ops, &e);
		mrc_rel_tx_poll(alone, t, &ops, &e);
	}
	MRC_T_EQ(cold->stats.rto_fired, 0);
	MRC_T_EQ(cold->stats.lost[MRC_REL_LOSS_PKT_TIMEOUT], 0);
	MRC_T_ASSERT(alone->stats.rto_fired > 0, "the lone sender resent what was only waiting");
	/* The cold sender's own sample feeds the share. */
	struct mrc_sack_view s = sack(0, 1, 0, 0);

	MRC_T_EQ(mrc_rel_tx_on_sack(cold, &s, now + rtt + rtt / 2, &ops, &e, &info), 0);
	MRC_T_U64_EQ(share.samples, 17);
	free(warm);
	free(cold);
	free(alone);
	return MRC_TEST_OK;
}

/*
 * Before its first RTT sample a sender must not judge by its 10 us guess.
 * The field failure (cluster_mpirun, a peer slower than 52 us): a probe's
 * answer shows the peer alive, the guess condemns the whole window at
 * 2 x 10 + 4 x 5 + 12 us, every packet is resent, and their SACKs, all for
 * resent packets, give no sample (Karn): the guess stays, and so does the
 * resending. Until a sample, the per-packet timeout is the QP timer's base.
 */
static int
test_no_loss_by_initial_guess(void)
{
	struct mrc_rel_tx *tx = default_tx(0);
	struct mrc_rel_ack_info info;
	struct events e = {0};
	const uint64_t rtt = 200 * US; /* longer than the guess allows, shorter than the RTO base */

	MRC_T_ASSERT(rtt < mrc_rel_tx_rto(tx, 0), "rto base %llu ns",
		(unsigned long long)mrc_rel_tx_rto(tx, 0));
	for (uint16_t k = 0; k < 8; k++)
		mrc_rel_tx_sent_new(tx, k, EVV(k), 1000, k, 0);
	mrc_rel_tx_probe_sent(tx, 0);
	/* The probe's answer (nothing delivered yet): the peer is not silent. */
	struct mrc_sack_view pr = sack(0xffffff, 1, 0, 0);

	pr.pr = 1;
	MRC_T_EQ(mrc_rel_tx_on_sack(tx, &pr, 10 * US, &ops, &e, &info), 0);
	for (uint64_t t = 10 * US; t < rtt; t += 10 * US)
		mrc_rel_tx_poll(tx, t, &ops, &e);
	MRC_T_EQ(e.n_lost, 0);
	MRC_T_EQ(tx->stats.lost[MRC_REL_LOSS_PKT_TIMEOUT], 0);
	/* The window's SACK comes after one round trip: delivered, and measured. */
	struct mrc_sack_view s = sack(7, 1, 0, 0);

	MRC_T_EQ(mrc_rel_tx_on_sack(tx, &s, rtt, &ops, &e, &info), 0);
	MRC_T_EQ(info.acked_pkts, 8);
	MRC_T_EQ(tx->stats.spurious, 0);
	MRC_T_U64_EQ(tx->stats.rtt_samples, 1);
	MRC_T_U64_EQ(tx->srtt_tsc, rtt);
	/* Measured now: the timeout follows the round trip, no longer the QP timer's base. */
	MRC_T_ASSERT(mrc_rel_tx_pkt_timeout(tx) >= 2 * rtt, "pkt timeout %llu ns",
		(unsigned long long)mrc_rel_tx_pkt_timeout(tx));
	free(tx);
	return MRC_TEST_OK;
}

static int
test_progress_refunds_budget(void)
{
	struct mrc_rel_tx *tx = default_tx(0);
	struct mrc_rel_ack_info info;
	struct events e = {0};

	mrc_rel_tx_sent_new(tx, 0, EVV(0), 100, 0, 0);
	mrc_rel_tx_sent_new(tx, 1, EVV(1), 100, 0, 0);
	mrc_rel_tx_poll(tx, mrc_rel_tx_rto(tx, 0), &ops, &e);
	MRC_T_EQ(tx->retries, 1);
	struct mrc_sack_view s = sack(1, 1, 0, 0);

	MRC_T_EQ(mrc_rel_tx_on_sack(tx, &s, mrc_rel_tx_rto(tx, 0) + 5, &ops, &e, &info), 0);
	MRC_T_EQ(tx->retries, 0);
	free(tx);
	return MRC_TEST_OK;
}

static int
test_per_packet_timeout(void)
{
	struct mrc_rel_tx *tx = default_tx(0);
	struct events e = {0};
	uint64_t to = mrc_rel_tx_pkt_timeout(tx);

	mrc_rel_tx_sent_new(tx, 2, EVV(2), 100, 0, 0);
	mrc_rel_tx_sent_new(tx, 3, EVV(3), 100, 0, 5 * US);
	uint64_t next = mrc_rel_tx_poll(tx, to - 1, &ops, &e);

	MRC_T_EQ(e.n_lost, 0);
	MRC_T_ASSERT(next <= to, "next poll by the first packet's timeout");
	mrc_rel_tx_poll(tx, to, &ops, &e);
	MRC_T_EQ(e.n_lost, 1);
	MRC_T_EQ(e.lost[0], 0);
	MRC_T_EQ(e.why[0], MRC_REL_LOSS_PKT_TIMEOUT);
	MRC_T_EQ(e.lost_ev[0], EVV(2));
	free(tx);
	return MRC_TEST_OK;
}

/*
 * A peer that answers nothing: the sender resends what times out, as the
 * QP does. Without backoff every packet would be resent every packet
 * timeout (at least 20 us) forever; with it, the resend rate must fall
 * as the QP timer's expiries pile up.
 */
static int
test_dead_peer_backs_off(void)
{
	struct mrc_rel_tx_cfg cfg;
	struct mrc_rel_tx *tx;
	struct events e = {0};
	uint64_t now = 0, early = 0, late = 0;
	uint32_t psn, ev, cookie;
	uint16_t len;

	mrc_rel_tx_cfg_defaults(&cfg, HZ);
	cfg.n_ev_slots = 8;
	cfg.timeout = 8; /* QP timer base 262 us */
	tx = new_tx(&cfg, 0);
	MRC_T_ASSERT(tx != NULL, "tx");
	for (int i = 0; i < 64; i++)
		mrc_rel_tx_sent_new(tx, (uint16_t)(i % 8), EVV(i % 8), 1000, 0, 0);
	while (now < 2 * HZ) {
		uint64_t next = mrc_rel_tx_poll(tx, now, &ops, &e);

		MRC_T_EQ(tx->error, MRC_REL_OK); /* retry_exp 25: retry forever */
		while (mrc_rel_tx_next_retx(tx, &psn, &ev, &cookie, &len) == 0) {
			mrc_rel_tx_sent_retx(tx, psn, 1, EVV(1), now);
			if (now < HZ / 10)
				early++;
			else if (now >= 3 * HZ / 2)
				late++;
		}
		MRC_T_ASSERT(next > now, "poll asks to be called again later");
		now = RTE_MIN(next, now + 10 * US);
	}
	/* 0.1 s at the start against the last 0.5 s: five times longer. */
	MRC_T_ASSERT(early > 0, "resends at first");
	MRC_T_ASSERT(late * 10 < early,
		"resends did not back off: %llu in the first 0.1 s, "
		"%llu in the last 0.5 s",
		(unsigned long long)early, (unsigned long long)late);
	MRC_T_ASSERT(tx->stats.retx_pkts < 64 * 200, "%llu resends in 2 s",
		(unsigned long long)tx->stats.retx_pkts);
	free(tx);
	return MRC_TEST_OK;
}

/* The last packets of a message vanish: a probe finds them, not a long timeout. */
static int
test_tail_loss_probe(void)
{
	struct mrc_rel_tx *tx = default_tx(0);
	struct mrc_rel_ack_info info;
	struct events e = {0};

	for (uint16_t k = 0; k < 4; k++)
		mrc_rel_tx_sent_new(tx, k, EVV(k), 100, 0, 0);
	/* 0 and 1 delivered at 10 us; 2 and 3 lost; nothing else will be sent. */
	struct mrc_sack_view s = sack(1, 1, 0, 0);

	MRC_T_EQ(mrc_rel_tx_on_sack(tx, &s, 10 * US, &ops, &e, &info), 0);
	/* 2 is overdue srtt + 4 rttvar after it left, or all is quiet for srtt + reo. */
	const uint64_t quiet = 10 * US + tx->srtt_tsc + mrc_rel_tx_reo_wnd(tx);
	const uint64_t t_probe = RTE_MIN(tx->srtt_tsc + 4 * tx->rttvar_tsc, quiet);

	mrc_rel_tx_poll(tx, t_probe - 1, &ops, &e);
	MRC_T_ASSERT(!mrc_rel_tx_probe_wanted(tx), "not yet");
	mrc_rel_tx_poll(tx, t_probe, &ops, &e);
	MRC_T_ASSERT(mrc_rel_tx_probe_wanted(tx), "tail loss probe wanted");
	MRC_T_ASSERT(t_probe + tx->srtt_tsc < mrc_rel_tx_pkt_timeout(tx),
		"the probe is answered before the packets time out");

	mrc_rel_tx_probe_sent(tx, t_probe);
	MRC_T_ASSERT(!mrc_rel_tx_probe_wanted(tx), "one probe at a time");
	s = sack(1, 1, 0, 0);
	s.pr = true;
	MRC_T_EQ(mrc_rel_tx_on_sack(tx, &s, t_probe + 10 * US, &ops, &e, &info), 0);
	MRC_T_EQ(info.lost_pkts, 2);
	MRC_T_EQ(e.n_lost, 2);
	MRC_T_EQ(e.lost[0], 2);
	MRC_T_EQ(e.lost[1], 3);
	MRC_T_EQ(e.why[0], MRC_REL_LOSS_TIME);
	free(tx);
	return MRC_TEST_OK;
}

/*
 * The probe chases the overdue packet down its EV: the answer proves the
 * packet lost (rule 1, as a later packet on the same EV would), with no
 * reorder window to wait out; a packet missing on another EV may still be
 * on its way and is left alone. The reorder window is made wide here, so
 * only rule 1 can decide.
 */
static int
test_probe_on_overdue_ev(void)
{
	struct mrc_rel_tx_cfg cfg;
	struct mrc_rel_ack_info info;
	struct events e = {0};
	uint16_t slot;
	uint32_t ev;

	mrc_rel_tx_cfg_defaults(&cfg, HZ);
	cfg.n_ev_slots = 8;
	cfg.min_reo_tsc = 100 * US;
	struct mrc_rel_tx *tx = new_tx(&cfg, 0);

	for (uint16_t k = 0; k < 4; k++)
		mrc_rel_tx_sent_new(tx, k, EVV(k), 100, 0, 0);
	struct mrc_sack_view s = sack(3, 1, 0, 0);

	MRC_T_EQ(mrc_rel_tx_on_sack(tx, &s, 10 * US, &ops, &e, &info), 0);
	/* 4 on slot 2 vanishes, 5 (slot 3) arrives, 6 (slot 5) is slow. */
	mrc_rel_tx_sent_new(tx, 2, EVV(2), 100, 0, 20 * US);
	mrc_rel_tx_sent_new(tx, 3, EVV(3), 100, 0, 20 * US);
	mrc_rel_tx_sent_new(tx, 5, EVV(5), 100, 0, 21 * US);
	s = sack(3, 1, 0x2, 2); /* base 4: 5 delivered, 4 and 6 missing */
	MRC_T_EQ(mrc_rel_tx_on_sack(tx, &s, 30 * US, &ops, &e, &info), 0);
	MRC_T_EQ(e.n_lost, 0);
	/* 4's report is overdue srtt + 4 rttvar after it left. */
	const uint64_t due = 20 * US + tx->srtt_tsc + 4 * tx->rttvar_tsc;

	MRC_T_ASSERT(due < 30 * US + tx->srtt_tsc + mrc_rel_tx_reo_wnd(tx), "before the tail rule");
	mrc_rel_tx_poll(tx, due - 1, &ops, &e);
	MRC_T_ASSERT(!mrc_rel_tx_probe_wanted(tx), "not overdue yet");
	mrc_rel_tx_poll(tx, due, &ops, &e);
	MRC_T_ASSERT(mrc_rel_tx_probe_wanted(tx), "probe for the overdue packet");
	MRC_T_EQ(mrc_rel_tx_probe_target(tx, &slot, &ev), 0);
	MRC_T_EQ(slot, 2);
	MRC_T_EQ(ev, EVV(2));
	mrc_rel_tx_probe_sent_on(tx, slot, ev, due);
	s.pr = true;
	MRC_T_EQ(mrc_rel_tx_on_sack(tx, &s, due + 10 * US, &ops, &e, &info), 0);
	MRC_T_EQ(info.lost_pkts, 1);
	MRC_T_EQ(e.n_lost, 1);
	MRC_T_EQ(e.lost[0], 4);
	MRC_T_EQ(e.why[0], MRC_REL_LOSS_EV_ORDER);
	MRC_T_EQ(mrc_rel_tx_inflight(tx), 1); /* 6, on another path, still in flight */
	MRC_T_EQ(mrc_rel_tx_inflight_bytes(tx), 100);
	free(tx);
	return MRC_TEST_OK;
}

/*
 * The QP sends in bursts that share one timestamp: resends, the probe, then
 * new packets. A new packet that left on the probe's EV right after it, in
 * the same burst, is behind the probe on the path: the answer saying it is
 * missing (a later PSN on another path got there first) proves nothing.
 */
static int
test_probe_ignores_packets_sent_after_it(void)
{
	struct mrc_rel_tx_cfg cfg;
	struct mrc_rel_ack_info info;
	struct events e = {0};
	uint16_t slot;
	uint32_t ev;

	mrc_rel_tx_cfg_defaults(&cfg, HZ);
	cfg.n_ev_slots = 8;
	cfg.min_reo_tsc = 100 * US;
	struct mrc_rel_tx *tx = new_tx(&cfg, 0);

	for (uint16_t k = 0; k < 4; k++)
		mrc_rel_tx_sent_new(tx, k, EVV(k), 100, 0, 0);
	struct mrc_sack_view s = sack(3, 1, 0, 0);

	MRC_T_EQ(mrc_rel_tx_on_sack(tx, &s, 10 * US, &ops, &e, &info), 0);
	mrc_rel_tx_sent_new(tx, 2, EVV(2), 100, 0, 20 * US); /* 4: vanishes */
	const uint64_t due = 20 * US + tx->srtt_tsc + 4 * tx->rttvar_tsc;

	mrc_rel_tx_poll(tx, due, &ops, &e);
	MRC_T_ASSERT(mrc_rel_tx_probe_wanted(tx), "probe for the overdue packet");
	MRC_T_EQ(mrc_rel_tx_probe_target(tx, &slot, &ev), 0);
	MRC_T_EQ(slot, 2);
	mrc_rel_tx_probe_sent_on(tx, slot, ev, due);
	/* The same burst: 5 behind the probe on slot 2, 6 on slot 3 (gets there first). */
	mrc_rel_tx_sent_new(tx, 2, EVV(2), 100, 0, due);
	mrc_rel_tx_sent_new(tx, 3, EVV(3), 100, 0, due);
	s = sack(3, 1, 0x4, 3); /* base 4: 6 delivered, 4 and 5 missing */
	s.pr = true;
	MRC_T_EQ(mrc_rel_tx_on_sack(tx, &s, due + 10 * US, &ops, &e, &info), 0);
	MRC_T_EQ(e.n_lost, 1);
	MRC_T_EQ(e.lost[0], 4);
	MRC_T_EQ(e.why[0], MRC_REL_LOSS_EV_ORDER);
	MRC_T_EQ(mrc_rel_tx_inflight(tx), 1); /* 5, still on its way behind the probe */
	MRC_T_EQ(tx->stats.spurious, 0);
	free(tx);
	return MRC_TEST_OK;
}

/* Bytes in flight: a packet leaves the count once, lost first or delivered first. */
static int
test_inflight_bytes_once(void)
{
	struct mrc_rel_tx *tx = default_tx(0);
	struct mrc_rel_ack_info info;
	struct events e = {0};
	struct mrc_nack_view n = {.reason = MRC_NACK_TRIMMED, .nack_psn = 1};
	uint32_t psn, ev, cookie;
	uint16_t len;

	for (uint16_t k = 0; k < 3; k++)
		mrc_rel_tx_sent_new(tx, k, EVV(k), (uint16_t)(1000 + k), 0, 0);
	MRC_T_EQ(mrc_rel_tx_inflight_bytes(tx), 3003);
	MRC_T_EQ(mrc_rel_tx_on_nack(tx, &n, US, &ops, &e), 0);
	MRC_T_EQ(mrc_rel_tx_inflight_bytes(tx), 2002);
	/* 1 was only late: delivered before its resend. */
	struct mrc_sack_view s = sack(1, 1, 0, 0);

	MRC_T_EQ(mrc_rel_tx_on_sack(tx, &s, 10 * US, &ops, &e, &info), 0);
	MRC_T_EQ(tx->stats.spurious, 1);
	MRC_T_EQ(mrc_rel_tx_inflight_bytes(tx), 1002);
	MRC_T_EQ(mrc_rel_tx_next_retx(tx, &psn, &ev, &cookie, &len), -ENOENT);
	/* Lost, resent, delivered: counted out, in again, out again. */
	n.nack_psn = 2;
	MRC_T_EQ(mrc_rel_tx_on_nack(tx, &n, 11 * US, &ops, &e), 0);
	MRC_T_EQ(mrc_rel_tx_inflight_bytes(tx), 0);
	MRC_T_EQ(mrc_rel_tx_next_retx(tx, &psn, &ev, &cookie, &len), 0);
	mrc_rel_tx_sent_retx(tx, psn, 4, EVV(4), 12 * US);
	MRC_T_EQ(mrc_rel_tx_inflight_bytes(tx), 1002);
	s = sack(2, 1, 0, 0);
	MRC_T_EQ(mrc_rel_tx_on_sack(tx, &s, 20 * US, &ops, &e, &info), 0);
	MRC_T_EQ(mrc_rel_tx_inflight_bytes(tx), 0);
	MRC_T_EQ(mrc_rel_tx_inflight(tx), 0);
	free(tx);
	return MRC_TEST_OK;
}

static int
test_window_and_wrap(void)
{
	struct mrc_rel_tx_cfg cfg;
	struct mrc_rel_tx *tx;
	struct mrc_rel_ack_info info;
	struct events e = {0};

	mrc_rel_tx_cfg_defaults(&cfg, HZ);
	cfg.mpr = 1; /* 128 PSNs */
	cfg.n_ev_slots = 16;
	tx = new_tx(&cfg, 0xffffc0);
	for (int k = 0; k < 128; k++) {
		MRC_T_ASSERT(mrc_rel_tx_can_send(tx), "room for %d", k);
		mrc_rel_tx_sent_new(tx, (uint16_t)(k % 16), EVV((uint16_t)(k % 16)), 100,
			(uint32_t)k, (uint64_t)k);
	}
	MRC_T_ASSERT(!mrc_rel_tx_can_send(tx), "window full at 128");
	MRC_T_EQ(tx->snd_nxt, 0x40); /* wrapped */
	struct mrc_sack_view s = sack(0x000010, 1, 0, 0);

	MRC_T_EQ(mrc_rel_tx_on_sack(tx, &s, 50 * US, &ops, &e, &info), 0);
	MRC_T_EQ(info.acked_pkts, 0x40 + 0x11);
	MRC_T_EQ(tx->snd_una, 0x11);
	MRC_T_ASSERT(mrc_rel_tx_can_send(tx), "room again");
	MRC_T_EQ(e.acked[0], 0xffffc0);
	MRC_T_EQ(e.acked[0x3f], 0xffffff);
	MRC_T_EQ(e.acked[0x40], 0);
	free(tx);
	return MRC_TEST_OK;
}

static int
test_init_rejects(void)
{
	struct mrc_rel_tx_cfg cfg;
	uint8_t mem[8192];

	mrc_rel_tx_cfg_defaults(&cfg, HZ);
	cfg.timeout = 25;
	MRC_T_EQ(mrc_rel_tx_init((struct mrc_rel_tx *)mem, &cfg, 0, 0), -EINVAL);
	mrc_rel_tx_cfg_defaults(&cfg, HZ);
	cfg.retry_linear = 8;
	MRC_T_EQ(mrc_rel_tx_init((struct mrc_rel_tx *)mem, &cfg, 0, 0), -EINVAL);
	mrc_rel_tx_cfg_defaults(&cfg, HZ);
	cfg.retry_exp = 26;
	MRC_T_EQ(mrc_rel_tx_init((struct mrc_rel_tx *)mem, &cfg, 0, 0), -EINVAL);
	mrc_rel_tx_cfg_defaults(&cfg, HZ);
	cfg.mpr = 0;
	MRC_T_EQ(mrc_rel_tx_init((struct mrc_rel_tx *)mem, &cfg, 0, 0), -EINVAL);
	mrc_rel_tx_cfg_defaults(&cfg, HZ);
	cfg.path_n_t1 = 11; /* 16 planes x 11 T1s: more paths than order lists */
	cfg.path_plane_bits = 4;
	MRC_T_EQ(mrc_rel_tx_init((struct mrc_rel_tx *)mem, &cfg, 0, 0), -EINVAL);
	mrc_rel_tx_cfg_defaults(&cfg, HZ);
	printf("  requester state per QP (MPR 8, 160 EV slots): %zu bytes, %zu per PSN\n",
		mrc_rel_tx_memsize(&cfg), sizeof(struct mrc_rel_tx_pkt));
	return MRC_TEST_OK;
}

/*
 * A sender and a truthful responder over 8 EVs whose paths drop packets at
 * random and reorder across EVs (each EV keeps its own order). Whatever is
 * lost is resent; every PSN must be acknowledged exactly once, nothing
 * unsent ever acknowledged, and the transfer must finish.
 */
static int
test_random_lossy_paths(void)
{
	enum { TOTAL = 3000, NEV = 8 };
	struct mrc_rel_tx_cfg cfg;
	struct mrc_rel_rx_cfg rcfg;
	struct mrc_rel_tx *tx;
	struct mrc_rel_rx *rx;
	static struct events e;
	static uint8_t acked_count[TOTAL];
	/* in flight on each EV: (psn, arrival time), FIFO */
	static struct {
		uint32_t psn[4096];
		uint64_t at[4096];
		unsigned int head, tail;
	} path[NEV];
	unsigned int seed = 2026;
	uint64_t now = 0;
	uint32_t sent_new = 0, drops = 0;

	memset(&e, 0, sizeof(e));
	memset(acked_count, 0, sizeof(acked_count));
	memset(path, 0, sizeof(path));
	mrc_rel_tx_cfg_defaults(&cfg, HZ);
	cfg.n_ev_slots = NEV;
	cfg.mpr = 2;
	tx = new_tx(&cfg, 0);
	mrc_rel_rx_cfg_defaults(&rcfg);
	rcfg.mpr = 2;
	rcfg.ack_every = 2;
	rcfg.ack_delay_tsc = 2 * US;
	rx = calloc(1, mrc_rel_rx_memsize(&rcfg));
	MRC_T_EQ(mrc_rel_rx_init(rx, &rcfg, 0), 0);

	for (int step = 0; step < 2000000 && tx->snd_una != TOTAL; step++) {
		now += 100; /* 0.1 us per step */
		/* Send: retransmissions first, then new data within the window. */
		uint32_t psn, cookie;
		uint32_t old_ev;
		uint16_t len;
		int ev = -1;

		if (mrc_rel_tx_next_retx(tx, &psn, &old_ev, &cookie, &len) == 0) {
			ev = (int)(((old_ev & 0xffff) + 1 + rand_r(&seed) % (NEV - 1)) % NEV);
			mrc_rel_tx_sent_retx(tx, psn, (uint16_t)ev, EVV((uint16_t)ev), now);
		} else if (sent_new < TOTAL && mrc_rel_tx_can_send(tx)) {
			ev = (int)(rand_r(&seed) % NEV);
			psn = mrc_rel_tx_sent_new(
				tx, (uint16_t)ev, EVV((uint16_t)ev), 100, sent_new, now);
			sent_new++;
		}
		/* 3% loss; path delay 5..12 us depending on the EV, FIFO per EV. */
		if (ev >= 0 && rand_r(&seed) % 100 < 3)
			drops++;
		else if (ev >= 0) {
			uint64_t at = now + (5 + (uint64_t)ev) * US;

			path[ev].psn[path[ev].tail % 4096] = psn;
			path[ev].at[path[ev].tail % 4096] = at;
			path[ev].tail++;
		}
		for (unsigned int p = 0; p < NEV; p++) {
			while (path[p].head != path[p].tail &&
				path[p].at[path[p].head % 4096] <= now) {
				uint32_t q = path[p].psn[path[p].head % 4096];
				struct mrc_rel_rx_verdict v;

				path[p].head++;
				v = mrc_rel_rx_data(rx, q, 100, 0, now);
				if (v.sack_now || mrc_rel_rx_sack_due(rx, now)) {
					struct mrc_sack_view s;
					struct mrc_rel_ack_info info;

					mrc_rel_rx_fill_sack(rx, q, p, 0, false, 0, &s);
					/* SACKs come back instantly here: delay is on the forward
					 * path. */
					MRC_T_EQ(mrc_rel_tx_on_sack(tx, &s, now, &ops, &e, &info),
						0);
				}
			}
		}
		if (mrc_rel_rx_sack_due(rx, now)) {
			struct mrc_sack_view s;
			struct mrc_rel_ack_info info;

			mrc_rel_rx_fill_sack(rx, mrc_rel_rx_cack(rx), 0, 0, false, 0, &s);
			MRC_T_EQ(mrc_rel_tx_on_sack(tx, &s, now, &ops, &e, &info), 0);
		}
		mrc_rel_tx_poll(tx, now, &ops, &e);
		if (mrc_rel_tx_probe_wanted(tx)) {
			struct mrc_sack_view s;
			struct mrc_rel_ack_info info;

			mrc_rel_tx_probe_sent(tx, now);
			mrc_rel_rx_probe(rx);
			mrc_rel_rx_fill_sack(rx, mrc_rel_rx_cack(rx), 0, 0, true, 0, &s);
			MRC_T_EQ(mrc_rel_tx_on_sack(tx, &s, now + 5 * US, &ops, &e, &info), 0);
		}
		MRC_T_EQ(tx->error, MRC_REL_OK);
		MRC_T_ASSERT(mrc_rel_tx_inflight(tx) + tx->n_lost <= 256, "within the window");
	}
	MRC_T_EQ(tx->snd_una, TOTAL);
	MRC_T_EQ(e.n_acked, TOTAL);
	for (uint32_t k = 0; k < e.n_acked; k++) {
		MRC_T_ASSERT(e.acked[k] < TOTAL, "acked %u never sent", e.acked[k]);
		acked_count[e.acked[k]]++;
	}
	for (uint32_t k = 0; k < TOTAL; k++)
		MRC_T_ASSERT(acked_count[k] == 1, "PSN %u acked %u times", k, acked_count[k]);
	printf("  %u packets over 8 lossy paths: %u dropped, %llu resent, %llu spurious, losses by "
	       "rule ev-order %llu time %llu timeout %llu rto %llu, %.2f ms simulated\n",
		TOTAL, drops, (unsigned long long)tx->stats.retx_pkts,
		(unsigned long long)tx->stats.spurious,
		(unsigned long long)tx->stats.lost[MRC_REL_LOSS_EV_ORDER],
		(unsigned long long)tx->stats.lost[MRC_REL_LOSS_TIME],
		(unsigned long long)tx->stats.lost[MRC_REL_LOSS_PKT_TIMEOUT],
		(unsigned long long)tx->stats.lost[MRC_REL_LOSS_RTO], now / 1e6);
	/* Reordering across paths must not pass for loss: resends track real drops. */
	MRC_T_ASSERT(tx->stats.retx_pkts >= drops, "every drop was resent");
	MRC_T_ASSERT(tx->stats.retx_pkts <= drops + drops / 10 + 2,
		"%llu resends for %u drops: reordering taken for loss",
		(unsigned long long)tx->stats.retx_pkts, drops);
	/* Paths keep their own order, so that rule finds most losses within an RTT. */
	MRC_T_ASSERT(tx->stats.lost[MRC_REL_LOSS_EV_ORDER] * 10 >= drops * 8, "per-EV order");
	free(tx);
	free(rx);
	return MRC_TEST_OK;
}

/*
 * Dynamic MPR: with it, the window is what the latest SACK advertised
 * (never above the negotiated one; MPR 0 leaves it); without it SETH's MPR
 * is ignored.
 */
static int
test_dyn_mpr_window(void)
{
	struct mrc_rel_tx_cfg cfg;
	struct mrc_rel_tx *tx;
	struct mrc_rel_ack_info info;
	struct mrc_sack_view s;
	struct events e = {0};
	uint32_t sent = 0;

	mrc_rel_tx_cfg_defaults(&cfg, HZ);
	cfg.n_ev_slots = 8;
	cfg.mpr = 2; /* 256 PSNs */
	cfg.dyn_mpr = true;
	tx = new_tx(&cfg, 0);
	MRC_T_ASSERT(tx != NULL, "init");
	mrc_rel_tx_sent_new(tx, 0, EVV(0), 100, 0, 0);
	sent = 1;
	s = sack(0, 1, 0, 0);
	s.mpr = 1; /* the responder lowered its window to 128 PSNs */
	MRC_T_EQ(mrc_rel_tx_on_sack(tx, &s, 10 * US, &ops, &e, &info), 0);
	MRC_T_EQ(tx->window, 128);
	while (mrc_rel_tx_can_send(tx))
		mrc_rel_tx_sent_new(tx, 0, EVV(0), 100, 0, 10 * US + sent++);
	MRC_T_EQ(sent, 1 + 128);
	s = sack(0, 1, 0, 0); /* MPR 0: no news, the window stays */
	MRC_T_EQ(mrc_rel_tx_on_sack(tx, &s, 11 * US, &ops, &e, &info), 0);
	MRC_T_EQ(tx->window, 128);
	s.mpr = 200; /* more than was negotiated: the ring's size holds */
	MRC_T_EQ(mrc_rel_tx_on_sack(tx, &s, 12 * US, &ops, &e, &info), 0);
	MRC_T_EQ(tx->window, 256);
	MRC_T_ASSERT(mrc_rel_tx_can_send(tx), "room again");
	MRC_T_EQ(tx->stats.mpr_changes, 2);
	free(tx);

	cfg.dyn_mpr = false;
	tx = new_tx(&cfg, 0);
	MRC_T_ASSERT(tx != NULL, "init");
	mrc_rel_tx_sent_new(tx, 0, EVV(0), 100, 0, 0);
	s = sack(0, 1, 0, 0);
	s.mpr = 1;
	MRC_T_EQ(mrc_rel_tx_on_sack(tx, &s, 10 * US, &ops, &e, &info), 0);
	MRC_T_EQ(tx->window, 256);
	free(tx);
	return MRC_TEST_OK;
}

/*
 * TSETH echo: a resent packet gives no RTT sample (Karn) unless the echo
 * equals the stamp of its last transmission; an echo of the first copy's
 * stamp (that copy arrived late) gives none either.
 */
static int
test_ts_echo_rtt_for_resends(void)
{
	struct mrc_rel_tx_cfg cfg;
	struct mrc_rel_tx *tx;
	struct mrc_rel_ack_info info;
	struct mrc_sack_view s;
	struct events e = {0};
	uint32_t psn, old_ev, cookie;
	uint16_t len;

	for (int echo_last = 0; echo_last < 3; echo_last++) {
		mrc_rel_tx_cfg_defaults(&cfg, HZ);
		cfg.n_ev_slots = 8;
		cfg.ts_shift = 7; /* 128 ns */
		tx = new_tx(&cfg, 0);
		MRC_T_ASSERT(tx != NULL, "init");
		const uint16_t first = mrc_rel_tx_ts_stamp(tx, 1 * US);
		const uint16_t last = mrc_rel_tx_ts_stamp(tx, 50 * US);

		MRC_T_ASSERT(first != last && first != 0 && last != 0, "distinct stamps");
		mrc_rel_tx_sent_new(tx, 0, EVV(0), 100, 0, 1 * US);
		/* NACKed, so resent at 50 us on another EV */
		const struct mrc_nack_view n = {.reason = MRC_NACK_TRIMMED, .nack_psn = 0};

		MRC_T_EQ(mrc_rel_tx_on_nack(tx, &n, 20 * US, &ops, &e), 0);
		MRC_T_EQ(mrc_rel_tx_next_retx(tx, &psn, &old_ev, &cookie, &len), 0);
		mrc_rel_tx_sent_retx(tx, 0, 1, EVV(1), 50 * US);
		s = sack(0, 1, 0, 0);
		s.ts_echo = echo_last == 1 ? last : echo_last == 2 ? first : 0;
		MRC_T_EQ(mrc_rel_tx_on_sack(tx, &s, 62 * US, &ops, &e, &info), 0);
		MRC_T_EQ(info.acked_pkts, 1);
		if (echo_last == 1) {
			MRC_T_U64_EQ(info.rtt_tsc, 12 * US);
			MRC_T_EQ(tx->stats.ts_rtt_samples, 1);
		} else {
			MRC_T_U64_EQ(info.rtt_tsc, 0);
			MRC_T_EQ(tx->stats.rtt_samples, 0);
		}
		free(tx);
	}
	/* Stamps are 16 bits of send_tsc >> ts_shift, never 0. */
	mrc_rel_tx_cfg_defaults(&cfg, HZ);
	cfg.ts_shift = 7;
	tx = new_tx(&cfg, 0);
	MRC_T_ASSERT(tx != NULL, "init");
	MRC_T_EQ(mrc_rel_tx_ts_stamp(tx, 0), 1);
	MRC_T_EQ(mrc_rel_tx_ts_stamp(tx, (uint64_t)65536 << 7), 1);
	MRC_T_EQ(mrc_rel_tx_ts_stamp(tx, 300 << 7), 300);
	free(tx);
	cfg.ts_shift = 49;
	MRC_T_ASSERT(new_tx(&cfg, 0) == NULL, "ts_shift out of range refused");
	return MRC_TEST_OK;
}

static const struct mrc_test_case cases[] = {
	MRC_TEST_CASE(test_cumulative_ack_and_rtt),
	MRC_TEST_CASE(test_refuse_acks_for_unsent),
	MRC_TEST_CASE(test_reordering_is_not_loss),
	MRC_TEST_CASE(test_per_ev_order_loss),
	MRC_TEST_CASE(test_per_path_order_loss),
	MRC_TEST_CASE(test_ev_order_with_retransmissions),
	MRC_TEST_CASE(test_ev_order_per_tenure),
	MRC_TEST_CASE(test_lost_why),
	MRC_TEST_CASE(test_time_rule),
	MRC_TEST_CASE(test_reo_wnd_recent_rtts),
	MRC_TEST_CASE(test_spurious_loss),
	MRC_TEST_CASE(test_nack_reasons_and_budget),
	MRC_TEST_CASE(test_rto_schedule_and_budget),
	MRC_TEST_CASE(test_rto_never_below_rtt),
	MRC_TEST_CASE(test_shared_rtt_for_cold_sender),
	MRC_TEST_CASE(test_no_loss_by_initial_guess),
	MRC_TEST_CASE(test_progress_refunds_budget),
	MRC_TEST_CASE(test_per_packet_timeout),
	MRC_TEST_CASE(test_dead_peer_backs_off),
	MRC_TEST_CASE(test_tail_loss_probe),
	MRC_TEST_CASE(test_probe_on_overdue_ev),
	MRC_TEST_CASE(test_probe_ignores_packets_sent_after_it),
	MRC_TEST_CASE(test_inflight_bytes_once),
	MRC_TEST_CASE(test_window_and_wrap),
	MRC_TEST_CASE(test_init_rejects),
	MRC_TEST_CASE(test_dyn_mpr_window),
	MRC_TEST_CASE(test_ts_echo_rtt_for_resends),
	MRC_TEST_CASE(test_random_lossy_paths),
};

MRC_TEST_MAIN("rel_tx", cases)
