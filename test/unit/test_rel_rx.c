/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Responder reliability: PSN tracking in the MPR window, duplicates,
 * out-of-window and trimmed packets, SACK contents and coalescing, PSN wrap.
 */

#include <stdlib.h>
#include <string.h>

#include "mrc_rel_rx.h"
#include "mrc_seq.h"
#include "mrc_test.h"

#define NOW 1000

static struct mrc_rel_rx *
new_rx(uint8_t mpr, uint16_t ack_every, uint32_t start)
{
	struct mrc_rel_rx_cfg cfg;
	struct mrc_rel_rx *rx;

	mrc_rel_rx_cfg_defaults(&cfg);
	cfg.mpr = mpr;
	cfg.ack_every = ack_every;
	cfg.ack_delay_tsc = 500;
	rx = calloc(1, mrc_rel_rx_memsize(&cfg));
	if (rx != NULL && mrc_rel_rx_init(rx, &cfg, start) != 0) {
		free(rx);
		return NULL;
	}
	return rx;
}

static int
test_in_order_and_coalescing(void)
{
	struct mrc_rel_rx *rx = new_rx(8, 4, 0);
	struct mrc_rel_rx_verdict v;
	struct mrc_sack_view s;

	MRC_T_ASSERT(rx != NULL, "init");
	MRC_T_EQ(mrc_rel_rx_cack(rx), 0xffffff); /* nothing yet: cack = start - 1 */
	for (uint32_t psn = 0; psn < 3; psn++) {
		v = mrc_rel_rx_data(rx, psn, 100, 0, NOW + psn);
		MRC_T_EQ(v.kind, MRC_REL_RX_NEW);
		MRC_T_ASSERT(v.in_order && !v.sack_now && !v.nack_now, "psn %u: no SACK yet", psn);
	}
	MRC_T_ASSERT(!mrc_rel_rx_sack_due(rx, NOW + 499), "not due before the delay");
	MRC_T_ASSERT(mrc_rel_rx_sack_due(rx, NOW + 500), "due after the delay from the first");
	MRC_T_EQ(mrc_rel_rx_sack_deadline(rx), NOW + 500);
	v = mrc_rel_rx_data(rx, 3, 100, 0, NOW + 3);
	MRC_T_ASSERT(v.sack_now, "the 4th packet triggers a SACK");
	mrc_rel_rx_fill_sack(rx, 3, 0xabcd, MRC_SACK_M_NONE, false, 77, &s);
	MRC_T_EQ(s.cack_psn, 3);
	MRC_T_EQ(s.ack_psn_offset, 0);
	MRC_T_EQ(s.sack_offset, 1);
	MRC_T_U64_EQ(s.sack_bitmap, 0);
	MRC_T_EQ(s.entropy, 0xabcd);
	MRC_T_EQ(s.ts_echo, 77);
	MRC_T_EQ(s.mpr, 0); /* no dynamic MPR: the field is 0 */
	MRC_T_EQ(s.rcvd_bytes, 400 / MRC_CC_RCVD_BYTES_UNIT);
	MRC_T_ASSERT(!mrc_rel_rx_sack_due(rx, NOW + 10000), "nothing pending after a SACK");
	MRC_T_EQ(rx->stats.new_pkts, 4);
	free(rx);
	return MRC_TEST_OK;
}

/* doc/protocol.md, SETH: PSNs 0-11 sent, 5 and 8 lost -> cack 4, offset 1, bitmap 0,1,1,0,1,1,1. */
static int
test_worked_example(void)
{
	struct mrc_rel_rx *rx = new_rx(8, 64, 0);
	struct mrc_sack_view s;

	for (uint32_t psn = 0; psn < 12; psn++)
		if (psn != 5 && psn != 8)
			mrc_rel_rx_data(rx, psn, 1, 0, NOW);
	mrc_rel_rx_fill_sack(rx, 11, 1, MRC_SACK_M_NONE, false, 0, &s);
	MRC_T_EQ(s.cack_psn, 4);
	MRC_T_EQ(s.sack_offset, 1);
	MRC_T_U64_EQ(s.sack_bitmap, 0x76);
	MRC_T_EQ(s.ack_psn_offset, 7);
	MRC_T_EQ(s.ooo_count, 5); /* 6, 7, 9, 10, 11 arrived with 5 missing */
	MRC_T_ASSERT(mrc_rel_rx_has(rx, 4) && !mrc_rel_rx_has(rx, 5) && mrc_rel_rx_has(rx, 6),
		"has() follows the bitmap");
	/* The retransmitted 5 fills the hole: cack jumps to 7 and a SACK goes at once. */
	struct mrc_rel_rx_verdict v = mrc_rel_rx_data(rx, 5, 1, 0, NOW);

	MRC_T_ASSERT(v.in_order && v.sack_now, "filled hole is news");
	MRC_T_EQ(mrc_rel_rx_cack(rx), 7);
	v = mrc_rel_rx_data(rx, 8, 1, 0, NOW);
	MRC_T_EQ(mrc_rel_rx_cack(rx), 11);
	free(rx);
	return MRC_TEST_OK;
}

static int
test_gap_ce_ackreq_trigger_sack(void)
{
	struct mrc_rel_rx *rx = new_rx(8, 64, 100);
	struct mrc_rel_rx_verdict v;

	v = mrc_rel_rx_data(rx, 100, 1, 0, NOW);
	MRC_T_ASSERT(!v.sack_now, "in order, coalesced");
	v = mrc_rel_rx_data(rx, 101, 1, 0, NOW);
	MRC_T_ASSERT(!v.sack_now, "in order, coalesced");
	v = mrc_rel_rx_data(rx, 104, 1, 0, NOW);
	MRC_T_ASSERT(v.sack_now, "a gap opens");
	v = mrc_rel_rx_data(rx, 103, 1, 0, NOW);
	MRC_T_ASSERT(!v.sack_now, "filling inside the gap is not a new gap");
	v = mrc_rel_rx_data(rx, 105, 1, MRC_REL_RX_F_CE, NOW);
	MRC_T_ASSERT(v.sack_now, "CE is echoed at once");
	v = mrc_rel_rx_data(rx, 106, 1, MRC_REL_RX_F_ACKREQ, NOW);
	MRC_T_ASSERT(v.sack_now, "AckReq");
	free(rx);
	return MRC_TEST_OK;
}

static int
test_duplicates_and_window(void)
{
	struct mrc_rel_rx *rx = new_rx(1, 64, 0); /* window 128 */
	struct mrc_rel_rx_verdict v;

	mrc_rel_rx_data(rx, 0, 1, 0, NOW);
	mrc_rel_rx_data(rx, 5, 1, 0, NOW);
	v = mrc_rel_rx_data(rx, 0, 1, 0, NOW);
	MRC_T_ASSERT(v.kind == MRC_REL_RX_DUP && v.sack_now, "dup below cack");
	v = mrc_rel_rx_data(rx, 5, 1, 0, NOW);
	MRC_T_ASSERT(v.kind == MRC_REL_RX_DUP && v.sack_now, "dup in the bitmap");
	v = mrc_rel_rx_data(rx, 1 + 128, 1, 0, NOW);
	MRC_T_ASSERT(v.kind == MRC_REL_RX_OOR && v.nack_now, "epsn + window is out");
	MRC_T_EQ(v.nack_reason, MRC_NACK_PSN_OOR_WINDOW);
	v = mrc_rel_rx_data(rx, 1 + 127, 1, 0, NOW);
	MRC_T_EQ(v.kind, MRC_REL_RX_NEW); /* the last PSN inside */
	v = mrc_rel_rx_data(rx, 0xfff000, 1, 0, NOW);
	MRC_T_EQ(v.kind, MRC_REL_RX_DUP); /* far behind: an old duplicate, never placed */
	MRC_T_EQ(rx->stats.dup_pkts, 3);
	MRC_T_EQ(rx->stats.oor_pkts, 1);
	MRC_T_EQ(rx->stats.new_pkts, 3);
	free(rx);
	return MRC_TEST_OK;
}

static int
test_trimmed(void)
{
	struct mrc_rel_rx *rx = new_rx(8, 64, 0);
	struct mrc_rel_rx_verdict v;
	struct mrc_nack_view n;

	v = mrc_rel_rx_data(rx, 0, 4096, MRC_REL_RX_F_TRIMMED, NOW);
	MRC_T_ASSERT(v.kind == MRC_REL_RX_TRIMMED && v.nack_now, "trimmed -> NACK");
	MRC_T_EQ(v.nack_reason, MRC_NACK_TRIMMED);
	MRC_T_ASSERT(!mrc_rel_rx_has(rx, 0), "a trimmed packet is not received");
	v = mrc_rel_rx_data(rx, 1, 4096, MRC_REL_RX_F_TRIMMED | MRC_REL_RX_F_LASTHOP, NOW);
	MRC_T_EQ(v.nack_reason, MRC_NACK_TRIMMED_LASTHOP);
	mrc_rel_rx_fill_nack(rx, 1, v.nack_reason, 0x55, 9, &n);
	MRC_T_EQ(n.nack_psn, 1);
	MRC_T_EQ(n.entropy, 0x55);
	MRC_T_EQ(n.reason, MRC_NACK_TRIMMED_LASTHOP);
	/* The resent packet arrives whole; a late trimmed copy of it is a duplicate. */
	v = mrc_rel_rx_data(rx, 0, 4096, 0, NOW);
	MRC_T_EQ(v.kind, MRC_REL_RX_NEW);
	v = mrc_rel_rx_data(rx, 0, 4096, MRC_REL_RX_F_TRIMMED, NOW);
	MRC_T_ASSERT(v.kind == MRC_REL_RX_DUP && v.sack_now && !v.nack_now, "trimmed dup");
	MRC_T_EQ(rx->stats.new_bytes, 4096);
	free(rx);

	/* Without the TRIM_NACK capability nothing is sent; the requester times out. */
	struct mrc_rel_rx_cfg cfg;

	mrc_rel_rx_cfg_defaults(&cfg);
	cfg.trim_nack = false;
	rx = calloc(1, mrc_rel_rx_memsize(&cfg));
	MRC_T_EQ(mrc_rel_rx_init(rx, &cfg, 0), 0);
	v = mrc_rel_rx_data(rx, 0, 1, MRC_REL_RX_F_TRIMMED, NOW);
	MRC_T_ASSERT(v.kind == MRC_REL_RX_TRIMMED && !v.nack_now, "no NACK without the capability");
	free(rx);
	return MRC_TEST_OK;
}

static int
test_bitmap_follows_far_trigger(void)
{
	struct mrc_rel_rx *rx = new_rx(8, 64, 0);
	struct mrc_sack_view s;

	/* 0 missing; 200 arrives: the bitmap must show 200, ending on it. */
	mrc_rel_rx_data(rx, 150, 1, 0, NOW);
	mrc_rel_rx_data(rx, 200, 1, 0, NOW);
	mrc_rel_rx_fill_sack(rx, 200, 1, MRC_SACK_M_NONE, false, 0, &s);
	MRC_T_EQ(s.cack_psn, 0xffffff);
	MRC_T_EQ(s.ack_psn_offset, 201);
	MRC_T_EQ(s.sack_offset, 201 - 63);
	MRC_T_U64_EQ(s.sack_bitmap, (UINT64_C(1) << 63) | (UINT64_C(1) << (150 - 137)));
	free(rx);
	return MRC_TEST_OK;
}

static int
test_psn_wrap(void)
{
	struct mrc_rel_rx *rx = new_rx(8, 64, 0xfffff0);
	struct mrc_sack_view s;

	for (uint32_t k = 0; k < 40; k++)
		if (k != 20)
			mrc_rel_rx_data(rx, mrc_psn_add(0xfffff0, k), 1, 0, NOW);
	MRC_T_EQ(mrc_rel_rx_cack(rx), 0x000003); /* 0xfffff0 + 19 */
	mrc_rel_rx_fill_sack(rx, 0x000010, 1, MRC_SACK_M_NONE, false, 0, &s);
	MRC_T_EQ(s.cack_psn, 3);
	MRC_T_EQ(s.sack_offset, 1);
	MRC_T_U64_EQ(s.sack_bitmap, ((UINT64_C(1) << 19) - 1) << 1); /* 5..23 present, 4 missing */
	mrc_rel_rx_data(rx, 4, 1, 0, NOW);
	MRC_T_EQ(mrc_rel_rx_cack(rx), 0x000017);
	free(rx);
	return MRC_TEST_OK;
}

/* Mark in `seen` every PSN a SACK reports: cumulatively or in its bitmap. */
static void
reported(const struct mrc_sack_view *s, bool *seen, uint32_t n)
{
	const uint32_t base = mrc_psn_add(s->cack_psn, (uint32_t)(int32_t)s->sack_offset);

	for (uint32_t p = 0; p < n && mrc_psn_le(p, s->cack_psn) && s->cack_psn != 0xffffff; p++)
		seen[p] = true;
	for (unsigned int b = 0; b < 64; b++)
		if ((s->sack_bitmap >> b) & 1) {
			const uint32_t p = mrc_psn_add(base, b);

			if (p < n)
				seen[p] = true;
		}
}

/*
 * PSN 0 lost; 10, 90, 170, 250 and 330 arrive, then one SACK answers them
 * all (coalescing), triggered by 330. Its bitmap ends at 330; the run of
 * SACKs that follows reports the rest, lowest first, 64 PSNs each, and
 * then says it is done. A caller that stops early loses nothing: its next
 * SACK's run reports what the first had left.
 */
static int
test_sack_run_reports_every_arrival(void)
{
	static const uint32_t arr[] = {10, 90, 170, 250, 330};
	struct mrc_sack_view s;
	bool seen[400];
	unsigned int sacks = 1;

	for (int stop_early = 0; stop_early <= 1; stop_early++) {
		struct mrc_rel_rx *rx = new_rx(8, 64, 0);

		memset(seen, 0, sizeof(seen));
		for (unsigned int i = 0; i < RTE_DIM(arr); i++)
			mrc_rel_rx_data(rx, arr[i], 1, 0, NOW);
		mrc_rel_rx_fill_sack(rx, 330, 7, MRC_SACK_M_SKIP_ONCE, true, 0, &s);
		MRC_T_EQ(s.sack_offset, 331 - 63); /* the trigger's bitmap, as always */
		MRC_T_EQ(s.m, MRC_SACK_M_SKIP_ONCE);
		MRC_T_ASSERT(s.pr, "PR");
		MRC_T_EQ(s.ack_psn_offset, 331);
		reported(&s, seen, RTE_DIM(seen));
		MRC_T_ASSERT(mrc_rel_rx_sack_more(rx), "10..250 left out");
		if (stop_early) {
			/* A new arrival and a new SACK: its run still reports 10..250. */
			mrc_rel_rx_data(rx, 340, 1, 0, NOW);
			mrc_rel_rx_fill_sack(rx, 340, 7, MRC_SACK_M_NONE, false, 0, &s);
			reported(&s, seen, RTE_DIM(seen));
		}
		for (sacks = 1; mrc_rel_rx_sack_more(rx) && sacks < 10; sacks++) {
			mrc_rel_rx_fill_sack_more(rx, 330, 7, 0, &s);
			MRC_T_EQ(s.ack_psn_offset, 331); /* the run answers the same trigger */
			MRC_T_EQ(s.entropy, 7);
			MRC_T_EQ(s.m, MRC_SACK_M_NONE); /* a verdict counts once: the first's */
			MRC_T_ASSERT(!s.pr, "a probe is answered once");
			reported(&s, seen, RTE_DIM(seen));
		}
		for (unsigned int i = 0; i < RTE_DIM(arr); i++)
			MRC_T_ASSERT(
				seen[arr[i]], "%u reported (stop early %d)", arr[i], stop_early);
		MRC_T_ASSERT(!seen[0], "0 never arrived");
		/* 10..73, 90..153, 170..233, 250..313: four more, not one per arrival. */
		MRC_T_EQ(sacks, 5);
		/* Arrivals within one bitmap need no run. */
		mrc_rel_rx_data(rx, 350, 1, 0, NOW);
		mrc_rel_rx_data(rx, 360, 1, 0, NOW);
		mrc_rel_rx_fill_sack(rx, 360, 7, MRC_SACK_M_NONE, false, 0, &s);
		MRC_T_ASSERT(!mrc_rel_rx_sack_more(rx), "one bitmap holds 350 and 360");
		/* Nor arrivals the cumulative ACK has passed since. */
		mrc_rel_rx_data(rx, 500, 1, 0, NOW);
		for (uint32_t p = 0; p < 500; p++)
			mrc_rel_rx_data(rx, p, 1, 0, NOW);
		mrc_rel_rx_fill_sack(rx, 499, 7, MRC_SACK_M_NONE, false, 0, &s);
		MRC_T_EQ(s.cack_psn, 500);
		MRC_T_ASSERT(!mrc_rel_rx_sack_more(rx), "all below the cumulative ACK");
		free(rx);
	}
	return MRC_TEST_OK;
}

/* Against a set-based model over random arrivals, duplicates and wrap. */
static int
test_random_against_model(void)
{
	enum { N = 3000 };
	static bool got[N];
	struct mrc_rel_rx *rx = new_rx(2, 8, 0xffff00); /* window 256, wraps at 256 */
	unsigned int seed = 4242;
	uint32_t expect = 0; /* model epsn as an offset from the start */

	memset(got, 0, sizeof(got));
	for (int step = 0; step < 20000; step++) {
		/* Mostly near the front of the window, sometimes old, sometimes beyond. */
		int32_t off = (int32_t)expect + (int32_t)(rand_r(&seed) % 300) - 20;

		if (off < 0 || off >= N)
			continue;
		uint32_t psn = mrc_psn_add(0xffff00, (uint32_t)off);
		struct mrc_rel_rx_verdict v = mrc_rel_rx_data(rx, psn, 1, 0, NOW);
		int kind;

		if ((uint32_t)off < expect || got[off])
			kind = MRC_REL_RX_DUP;
		else if ((uint32_t)off >= expect + 256)
			kind = MRC_REL_RX_OOR;
		else
			kind = MRC_REL_RX_NEW;
		MRC_T_ASSERT(
			v.kind == kind, "step %d off %d: got %u want %d", step, off, v.kind, kind);
		if (kind == MRC_REL_RX_NEW) {
			got[off] = true;
			while (expect < N && got[expect])
				expect++;
		}
		MRC_T_EQ(mrc_rel_rx_cack(rx), mrc_psn_sub(mrc_psn_add(0xffff00, expect), 1));
		if (v.sack_now) {
			struct mrc_sack_view s;

			mrc_rel_rx_fill_sack(rx, psn, 0, 0, false, 0, &s);
			/* Every bit matches the model. */
			for (int i = 0; i < 64; i++) {
				uint32_t o = expect - 1 + (uint32_t)s.sack_offset + (uint32_t)i;

				MRC_T_EQ((s.sack_bitmap >> i) & 1,
					o < N && o < expect + 256 && got[o]);
			}
		}
	}
	MRC_T_ASSERT(expect > 1000, "the stream progressed (%u)", expect);
	free(rx);
	return MRC_TEST_OK;
}

/*
 * Dynamic MPR: SACKs carry the current window; lowered, a new PSN beyond it
 * but inside the negotiated one is refused NO_BITMAP (and raises the
 * penalty), one that arrived before is still a duplicate, and beyond the
 * negotiated window it is PSN_OOR_WINDOW as ever.
 */
static int
test_dyn_mpr_and_no_bitmap(void)
{
	struct mrc_rel_rx_cfg cfg;
	struct mrc_rel_rx *rx;
	struct mrc_rel_rx_verdict v;
	struct mrc_sack_view s;

	mrc_rel_rx_cfg_defaults(&cfg);
	cfg.mpr = 4; /* 512 PSNs */
	cfg.dyn_mpr = true;
	rx = calloc(1, mrc_rel_rx_memsize(&cfg));
	MRC_T_ASSERT(rx != NULL && mrc_rel_rx_init(rx, &cfg, 0) == 0, "init");
	mrc_rel_rx_data(rx, 0, 1, 0, NOW);
	v = mrc_rel_rx_data(rx, 300, 1, 0, NOW); /* arrives before the window is lowered */
	MRC_T_EQ(v.kind, MRC_REL_RX_NEW);
	mrc_rel_rx_fill_sack(rx, 300, 1, MRC_SACK_M_NONE, false, 0, &s);
	MRC_T_EQ(s.mpr, 4);
	MRC_T_EQ(s.cwnd_pen, 0);
	MRC_T_EQ(mrc_rel_rx_set_mpr(rx, 0), -EINVAL);
	MRC_T_EQ(mrc_rel_rx_set_mpr(rx, 5), -EINVAL); /* above the negotiated window */
	MRC_T_EQ(mrc_rel_rx_set_mpr(rx, 2), 0);	      /* 256 PSNs from epsn 1 */
	v = mrc_rel_rx_data(rx, 256, 1, 0, NOW);
	MRC_T_EQ(v.kind, MRC_REL_RX_NEW); /* 1 + 255: the last PSN of the window */
	v = mrc_rel_rx_data(rx, 257, 1, 0, NOW);
	MRC_T_EQ(v.kind, MRC_REL_RX_NO_BITMAP);
	MRC_T_ASSERT(v.nack_now && !v.sack_now, "NACKed");
	MRC_T_EQ(v.nack_reason, MRC_NACK_NO_BITMAP);
	MRC_T_ASSERT(!mrc_rel_rx_has(rx, 257), "not marked");
	v = mrc_rel_rx_data(rx, 300, 1, 0, NOW);
	MRC_T_EQ(v.kind, MRC_REL_RX_DUP); /* tracked before the window shrank */
	v = mrc_rel_rx_data(rx, 513, 1, 0, NOW);
	MRC_T_EQ(v.kind, MRC_REL_RX_OOR);
	MRC_T_EQ(v.nack_reason, MRC_NACK_PSN_OOR_WINDOW);
	MRC_T_EQ(rx->stats.no_bitmap_pkts, 1);
	mrc_rel_rx_fill_sack(rx, 256, 1, MRC_SACK_M_NONE, false, 0, &s);
	MRC_T_EQ(s.mpr, 2);
	MRC_T_EQ(s.cwnd_pen, MRC_REL_RX_PEN_START); /* the refusal shows in the penalty */
	MRC_T_ASSERT(s.rc, "R_C: the shortage was the host's");
	/* The bitmap still reports the arrival beyond the lowered window. */
	MRC_T_ASSERT(s.sack_offset + (int32_t)s.cack_psn <= 300, "bitmap from %d",
		s.sack_offset + (int32_t)s.cack_psn);
	free(rx);
	return MRC_TEST_OK;
}

/* The penalty rises with each SACK that follows refusals and halves on each that does not. */
static int
test_penalty_from_refusals(void)
{
	struct mrc_rel_rx_cfg cfg;
	struct mrc_rel_rx *rx;
	struct mrc_sack_view s;
	const uint8_t want[] = {32, 64, 127, 127, 63, 31, 15, 7, 3, 1, 0, 0};

	mrc_rel_rx_cfg_defaults(&cfg);
	cfg.cwnd_pen = 2; /* the configured floor still holds */
	rx = calloc(1, mrc_rel_rx_memsize(&cfg));
	MRC_T_ASSERT(rx != NULL && mrc_rel_rx_init(rx, &cfg, 0) == 0, "init");
	mrc_rel_rx_fill_sack(rx, 0, 1, MRC_SACK_M_NONE, false, 0, &s);
	MRC_T_EQ(s.cwnd_pen, 2);
	MRC_T_ASSERT(!s.rc, "no episode");
	for (unsigned int i = 0; i < RTE_DIM(want); i++) {
		if (i < 4)
			mrc_rel_rx_refused(rx);
		mrc_rel_rx_fill_sack(rx, 0, 1, MRC_SACK_M_NONE, false, 0, &s);
		MRC_T_EQ(s.cwnd_pen, RTE_MAX(want[i], 2));
		MRC_T_EQ(s.rc, want[i] != 0);
	}
	MRC_T_EQ(rx->stats.refused, 4);
	free(rx);
	return MRC_TEST_OK;
}

/*
 * ALWAYS_SKIP: the always_skip_marks-th mark in a row on one EV. An
 * unmarked packet on the EV starts the row over; marks on another EV do
 * not touch it (unless they share its slot); 0 turns it off.
 */
static int
test_always_skip_after_marks(void)
{
	struct mrc_rel_rx_cfg cfg;
	struct mrc_rel_rx *rx;
	const uint32_t ev = 0x30a5c1, other = 0x50b7d3;

	mrc_rel_rx_cfg_defaults(&cfg);
	MRC_T_EQ(cfg.always_skip_marks, 8);
	cfg.always_skip_marks = 3;
	rx = calloc(1, mrc_rel_rx_memsize(&cfg));
	MRC_T_ASSERT(rx != NULL && mrc_rel_rx_init(rx, &cfg, 0) == 0, "init");
	MRC_T_EQ(mrc_rel_rx_path_verdict(rx, ev, false), MRC_SACK_M_NONE);
	MRC_T_EQ(mrc_rel_rx_path_verdict(rx, ev, true), MRC_SACK_M_SKIP_ONCE);
	MRC_T_EQ(mrc_rel_rx_path_verdict(rx, ev, true), MRC_SACK_M_SKIP_ONCE);
	MRC_T_EQ(rx->marks_live, 1);
	MRC_T_EQ(mrc_rel_rx_path_verdict(rx, ev, false), MRC_SACK_M_NONE); /* the row breaks */
	MRC_T_EQ(rx->marks_live, 0);
	MRC_T_EQ(mrc_rel_rx_path_verdict(rx, ev, true), MRC_SACK_M_SKIP_ONCE);
	MRC_T_EQ(mrc_rel_rx_path_verdict(rx, ev, true), MRC_SACK_M_SKIP_ONCE);
	MRC_T_EQ(mrc_rel_rx_path_verdict(rx, other, true), MRC_SACK_M_SKIP_ONCE);
	MRC_T_EQ(mrc_rel_rx_path_verdict(rx, other, false), MRC_SACK_M_NONE);
	MRC_T_EQ(mrc_rel_rx_path_verdict(rx, ev, true), MRC_SACK_M_ALWAYS_SKIP);
	MRC_T_EQ(rx->stats.always_skips, 1);
	MRC_T_EQ(rx->marks_live, 0); /* the row starts over */
	MRC_T_EQ(mrc_rel_rx_path_verdict(rx, ev, true), MRC_SACK_M_SKIP_ONCE);
	free(rx);

	cfg.always_skip_marks = 0;
	rx = calloc(1, mrc_rel_rx_memsize(&cfg));
	MRC_T_ASSERT(rx != NULL && mrc_rel_rx_init(rx, &cfg, 0) == 0, "init");
	for (int i = 0; i < 300; i++)
		MRC_T_EQ(mrc_rel_rx_path_verdict(rx, ev, true), MRC_SACK_M_SKIP_ONCE);
	MRC_T_EQ(rx->marks_live, 0);
	free(rx);
	return MRC_TEST_OK;
}

static int
test_init_rejects(void)
{
	struct mrc_rel_rx_cfg cfg;
	uint8_t mem[4096];

	mrc_rel_rx_cfg_defaults(&cfg);
	cfg.mpr = 0;
	MRC_T_EQ(mrc_rel_rx_init((struct mrc_rel_rx *)mem, &cfg, 0), -EINVAL);
	mrc_rel_rx_cfg_defaults(&cfg);
	cfg.ack_every = 0;
	MRC_T_EQ(mrc_rel_rx_init((struct mrc_rel_rx *)mem, &cfg, 0), -EINVAL);
	mrc_rel_rx_cfg_defaults(&cfg);
	cfg.cwnd_pen = 128;
	MRC_T_EQ(mrc_rel_rx_init((struct mrc_rel_rx *)mem, &cfg, 0), -EINVAL);
	/* Memory: 8 x 128 PSNs is a 128-byte bitmap. */
	mrc_rel_rx_cfg_defaults(&cfg);
	MRC_T_EQ(mrc_rel_rx_init((struct mrc_rel_rx *)mem, &cfg, 0), 0);
	MRC_T_EQ(mrc_rel_rx_set_mpr((struct mrc_rel_rx *)mem, 9), -EINVAL);
	MRC_T_EQ(mrc_rel_rx_memsize(&cfg), sizeof(struct mrc_rel_rx) + 128);
	printf("  responder state per QP (MPR 8): %zu bytes\n", mrc_rel_rx_memsize(&cfg));
	return MRC_TEST_OK;
}

static const struct mrc_test_case cases[] = {
	MRC_TEST_CASE(test_in_order_and_coalescing),
	MRC_TEST_CASE(test_worked_example),
	MRC_TEST_CASE(test_gap_ce_ackreq_trigger_sack),
	MRC_TEST_CASE(test_duplicates_and_window),
	MRC_TEST_CASE(test_trimmed),
	MRC_TEST_CASE(test_bitmap_follows_far_trigger),
	MRC_TEST_CASE(test_psn_wrap),
	MRC_TEST_CASE(test_sack_run_reports_every_arrival),
	MRC_TEST_CASE(test_random_against_model),
	MRC_TEST_CASE(test_dyn_mpr_and_no_bitmap),
	MRC_TEST_CASE(test_penalty_from_refusals),
	MRC_TEST_CASE(test_always_skip_after_marks),
	MRC_TEST_CASE(test_init_rejects),
};

MRC_TEST_MAIN("rel_rx", cases)
