/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Recovery's pure half (app/mrcd/mrcd_recover.h, control/mrcd_recover.c):
 * where each flow's ends and each spare pair's QPs live with several
 * workers per host, and which spare a failed flow moves to. A flow's new
 * pair must have its sending QP on the shard of the flow's sending end and
 * its receiving QP on that of its receiving end, whatever [lcores]
 * peer_shard puts them on. And what a sender that gives a cross-process
 * flow up lets go of (control/mrcd_recover_xp.c).
 */

#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>

#include "mrc_test.h"
#include "mrcd_daemon.h"
#include "mrcd_recover.h"
#include "mrcd_recover_priv.h"
#include "mrcd_recover_xp.h"

static const unsigned int modes[] = {MRCD_PEER_SAME, MRCD_PEER_OTHER, MRCD_PEER_HALF};

/* The placement rule [lcores] peer_shard documents, for a few flows. */
static int
test_flow_shards(void)
{
	uint8_t s, r;

	for (uint32_t g = 0; g < 64; g++) {
		mrcd_flow_shards(g, 1, MRCD_PEER_OTHER, &s, &r);
		MRC_T_ASSERT(s == 0 && r == 0, "g %u, one shard: %u -> %u", g, s, r);
		mrcd_flow_shards(g, 4, MRCD_PEER_SAME, &s, &r);
		MRC_T_ASSERT(s == g % 4 && r == s, "g %u same: %u -> %u", g, s, r);
		mrcd_flow_shards(g, 4, MRCD_PEER_OTHER, &s, &r);
		MRC_T_ASSERT(s == g % 4 && r == (g + 1) % 4, "g %u other: %u -> %u", g, s, r);
		mrcd_flow_shards(g, 4, MRCD_PEER_HALF, &s, &r);
		/* flows 0-3 on one index, 4-7 on two, 8-11 on one ... */
		MRC_T_ASSERT(s == g % 4 && r == (g / 4 % 2 ? (g + 1) % 4 : g % 4),
			"g %u half: %u -> %u", g, s, r);
	}
	return MRC_TEST_OK;
}

/*
 * For every shard count and mode, each (sending, receiving) shard pair a
 * flow uses has spare pairs placed there: at least one, and at least as
 * many as the flows there while the spares are not capped. With every
 * spare on one index at both ends (as before), a flow of peer_shard =
 * other had none.
 */
static int
cover(unsigned int mode, unsigned int n, uint32_t nf)
{
	uint32_t flows[MRC_SHARD_MAX_SHARDS][MRC_SHARD_MAX_SHARDS] = {{0}};
	uint32_t spares[MRC_SHARD_MAX_SHARDS][MRC_SHARD_MAX_SHARDS] = {{0}};
	const uint32_t ns = mrcd_recover_spares(nf);
	uint8_t s, r;

	for (uint32_t g = 0; g < nf; g++) {
		mrcd_flow_shards(g, n, mode, &s, &r);
		flows[s][r]++;
	}
	for (uint32_t p = 0; p < ns; p++) {
		mrcd_spare_shards(p, n, mode, &s, &r);
		MRC_T_ASSERT(s < n && r < n, "spare %u on %u -> %u of %u", p, s, r, n);
		spares[s][r]++;
	}
	for (s = 0; s < n; s++)
		for (r = 0; r < n; r++) {
			/* capped at MRCD_RECOVER_SPARES_MAX: at least one */
			const uint32_t want =
				2 * nf <= MRCD_RECOVER_SPARES_MAX ? RTE_MAX(flows[s][r], 1u) : 1;

			MRC_T_ASSERT(flows[s][r] == 0 || spares[s][r] >= want,
				"mode %u, %u shards, %u flows: %u flows on %u -> %u, %u spares "
				"there",
				mode, n, nf, flows[s][r], s, r, spares[s][r]);
		}
	return MRC_TEST_OK;
}

static int
test_spares_cover_flows(void)
{
	static const uint32_t n_flows[] = {1, 2, 3, 17, 64, 1000, 2048, 10000, 65536};

	for (unsigned int m = 0; m < RTE_DIM(modes); m++)
		for (unsigned int n = 1; n <= MRC_SHARD_MAX_SHARDS; n++)
			for (unsigned int i = 0; i < RTE_DIM(n_flows); i++)
				MRC_T_RUN(cover(modes[m], n, n_flows[i]));
	return MRC_TEST_OK;
}

/* The spare chosen fits both ends, is free and has rested; -1 where none does. */
static int
test_pick(void)
{
	int32_t used[16];
	uint64_t rest[16] = {0};
	uint8_t s, r;

	for (unsigned int k = 0; k < RTE_DIM(used); k++)
		used[k] = -1;
	/* two shards, peer_shard = other: even spares 0 -> 1, odd ones 1 -> 0 */
	MRC_T_EQ(mrcd_recover_pick_spare(used, rest, 16, 2, MRCD_PEER_OTHER, 0, 1, 10), 0);
	MRC_T_EQ(mrcd_recover_pick_spare(used, rest, 16, 2, MRCD_PEER_OTHER, 1, 0, 10), 1);
	/* no flow of that mode sits on one index, nor does any spare */
	MRC_T_EQ(mrcd_recover_pick_spare(used, rest, 16, 2, MRCD_PEER_OTHER, 0, 0, 10), -1);
	used[0] = 7;  /* in use by flow 7 */
	rest[2] = 11; /* given up, resting until 11 */
	MRC_T_EQ(mrcd_recover_pick_spare(used, rest, 16, 2, MRCD_PEER_OTHER, 0, 1, 10), 4);
	MRC_T_EQ(mrcd_recover_pick_spare(used, rest, 16, 2, MRCD_PEER_OTHER, 0, 1, 11), 2);
	/* a reload takes any free one */
	MRC_T_EQ(mrcd_recover_pick_spare(used, rest, 16, 2, MRCD_PEER_OTHER, -1, -1, 10), 1);
	/* all of one placement taken: none, the others still there */
	for (unsigned int k = 0; k < RTE_DIM(used); k += 2)
		used[k] = (int32_t)k;
	MRC_T_EQ(mrcd_recover_pick_spare(used, rest, 16, 2, MRCD_PEER_OTHER, 0, 1, 99), -1);
	MRC_T_EQ(mrcd_recover_pick_spare(used, rest, 16, 2, MRCD_PEER_OTHER, 1, 0, 99), 1);
	/* half, four shards: the first spare placed 2 -> 3 is spare 6 (as flow 6 is) */
	for (unsigned int k = 0; k < RTE_DIM(used); k++)
		used[k] = -1;
	MRC_T_EQ(mrcd_recover_pick_spare(used, rest, 16, 4, MRCD_PEER_HALF, 2, 3, 99), 6);
	mrcd_spare_shards(6, 4, MRCD_PEER_HALF, &s, &r);
	MRC_T_ASSERT(s == 2 && r == 3, "spare 6: %u -> %u", s, r);
	MRC_T_EQ(mrcd_recover_pick_spare(used, rest, 16, 4, MRCD_PEER_HALF, 2, 2, 99), 2);
	return MRC_TEST_OK;
}

/* Across processes a sender searches from its flow's own number, round the end. */
static int
test_pick_from(void)
{
	int32_t used[16];
	uint64_t rest[16] = {0};

	for (unsigned int k = 0; k < RTE_DIM(used); k++)
		used[k] = -1;
	/* flow 5, one shard: spare 5 first */
	MRC_T_EQ(mrcd_recover_pick_spare_from(used, rest, 16, 1, MRCD_PEER_SAME, 0, 0, 10, 5), 5);
	used[5] = 3;
	MRC_T_EQ(mrcd_recover_pick_spare_from(used, rest, 16, 1, MRCD_PEER_SAME, 0, 0, 10, 5), 6);
	/* from past the end: round to the start; a number past n_spares wraps */
	MRC_T_EQ(mrcd_recover_pick_spare_from(used, rest, 16, 1, MRCD_PEER_SAME, 0, 0, 10, 16), 0);
	MRC_T_EQ(mrcd_recover_pick_spare_from(used, rest, 16, 1, MRCD_PEER_SAME, 0, 0, 10, 37), 6);
	/* two shards, other: flow 3 (1 -> 0) from 3 on, then round to 1 */
	for (unsigned int k = 3; k < 16; k++)
		used[k] = (int32_t)k;
	MRC_T_EQ(mrcd_recover_pick_spare_from(used, rest, 16, 2, MRCD_PEER_OTHER, 1, 0, 10, 3), 1);
	used[1] = 1;
	MRC_T_EQ(mrcd_recover_pick_spare_from(used, rest, 16, 2, MRCD_PEER_OTHER, 1, 0, 10, 3), -1);
	/* from 0 it is the plain pick */
	for (unsigned int k = 0; k < RTE_DIM(used); k++)
		used[k] = k % 3 ? -1 : 0;
	for (int send = 0; send < 2; send++)
		MRC_T_EQ(mrcd_recover_pick_spare_from(
				 used, rest, 16, 2, MRCD_PEER_OTHER, send, !send, 10, 0),
			mrcd_recover_pick_spare(
				used, rest, 16, 2, MRCD_PEER_OTHER, send, !send, 10));
	return MRC_TEST_OK;
}

/* The receiver's process, a MAKE (flow's pair `life`, spare s), resent and late. */
static int
test_judge_make(void)
{
	struct mrcd_xrec_view x = {.life = 0};

	/* running pair 0: pair 1 is news, pair 0 (or older) is late */
	MRC_T_EQ(mrcd_xrec_judge_make(&x, 1, 9), MRCD_XREC_NEW);
	MRC_T_EQ(mrcd_xrec_judge_make(&x, 0, 9), MRCD_XREC_STALE);
	MRC_T_EQ(mrcd_xrec_judge_make(&x, 0xffff, 9), MRCD_XREC_STALE);
	/* pair 1 on spare 9 being made: its resend waits for the answer */
	x.mk_pending = true;
	x.mk_life = 1;
	x.mk_spare = 9;
	MRC_T_EQ(mrcd_xrec_judge_make(&x, 1, 9), MRCD_XREC_BUSY);
	MRC_T_EQ(mrcd_xrec_judge_make(&x, 1, 10), MRCD_XREC_STALE);
	/* made and answered: the resend gets the same answer, nothing more is made */
	x.mk_pending = false;
	x.mk_done = true;
	x.life = 1;
	MRC_T_EQ(mrcd_xrec_judge_make(&x, 1, 9), MRCD_XREC_AGAIN);
	MRC_T_EQ(mrcd_xrec_judge_make(&x, 1, 10), MRCD_XREC_STALE);
	MRC_T_EQ(mrcd_xrec_judge_make(&x, 2, 9), MRCD_XREC_NEW);
	/* refused (pair 2 on spare 4 not free here): the sender asks for pair 2 on another */
	x.mk_life = 2;
	x.mk_spare = 4;
	MRC_T_EQ(mrcd_xrec_judge_make(&x, 2, 4), MRCD_XREC_AGAIN);
	MRC_T_EQ(mrcd_xrec_judge_make(&x, 2, 5), MRCD_XREC_NEW);
	/* lives wrap in 16 bits */
	x = (struct mrcd_xrec_view){.life = 0xffff};
	MRC_T_EQ(mrcd_xrec_judge_make(&x, 0, 1), MRCD_XREC_NEW);
	MRC_T_EQ(mrcd_xrec_judge_make(&x, 0xfffe, 1), MRCD_XREC_STALE);
	return MRC_TEST_OK;
}

/* The sender's process, a FAILED of pair `life`. */
static int
test_judge_failed(void)
{
	MRC_T_EQ(mrcd_xrec_judge_failed(3, true, 3), MRCD_XREC_NEW);
	/* a resend while the recovery it started is under way: answered, nothing more */
	MRC_T_EQ(mrcd_xrec_judge_failed(3, false, 3), MRCD_XREC_AGAIN);
	/* about a pair already replaced */
	MRC_T_EQ(mrcd_xrec_judge_failed(4, true, 3), MRCD_XREC_STALE);
	MRC_T_EQ(mrcd_xrec_judge_failed(4, true, 5), MRCD_XREC_STALE);
	return MRC_TEST_OK;
}

/* The receiver's process, a GIVE_UP of pair `life` from the sender's. */
static int
test_judge_give_up(void)
{
	/* gave up on the pair we run (too_often, no_spare), or on the next one it asked us
	 * for (no_answer, no_qp after our yes): counted down here */
	MRC_T_EQ(mrcd_xrec_judge_give_up(3, false, false, 3), MRCD_XREC_NEW);
	MRC_T_EQ(mrcd_xrec_judge_give_up(3, false, false, 4), MRCD_XREC_NEW);
	/* a resend after we counted it: answered again, counted once */
	MRC_T_EQ(mrcd_xrec_judge_give_up(3, true, false, 3), MRCD_XREC_AGAIN);
	MRC_T_EQ(mrcd_xrec_judge_give_up(4, true, false, 4), MRCD_XREC_AGAIN);
	/* a step of ours under way (a MAKE being made): not yet, the sender asks again */
	MRC_T_EQ(mrcd_xrec_judge_give_up(3, false, true, 4), MRCD_XREC_BUSY);
	/* about a pair older than ours, or two ahead (garbled): ignored, counted */
	MRC_T_EQ(mrcd_xrec_judge_give_up(4, false, false, 3), MRCD_XREC_STALE);
	MRC_T_EQ(mrcd_xrec_judge_give_up(4, true, false, 3), MRCD_XREC_STALE);
	MRC_T_EQ(mrcd_xrec_judge_give_up(3, false, false, 5), MRCD_XREC_STALE);
	/* in 16-bit serial order across the wrap */
	MRC_T_EQ(mrcd_xrec_judge_give_up(0xffff, false, false, 0), MRCD_XREC_NEW);
	MRC_T_EQ(mrcd_xrec_judge_give_up(0, false, false, 0xffff), MRCD_XREC_STALE);
	return MRC_TEST_OK;
}

/*
 * A request the other end's process never answers (no_answer): run the
 * timer as the control tick does, once a millisecond (1 cycle = 1 us), and
 * check it is sent MRCD_RECOVER_X_TRIES times, the first at once and each
 * after it MRCD_RECOVER_X_RETRY_MS, then twice, four times ... that after
 * the first, then expires after the last wait, once.
 */
static int
test_retry_schedule(void)
{
	const uint64_t ms = 1000, retry = MRCD_RECOVER_X_RETRY_MS * ms;
	uint64_t sent_at[MRCD_RECOVER_X_TRIES + 1], next_tsc, expired_at = 0, want;
	uint8_t tries = 0;
	unsigned int expiries = 0;

	/* the first send, at 0 */
	sent_at[tries] = 0;
	next_tsc = mrcd_xrec_next_tsc(0, retry, tries++);
	for (uint64_t now = 1; now < 10000 * ms; now += ms) {
		switch (mrcd_xrec_timer(now, next_tsc, tries)) {
		case MRCD_XREC_WAIT:
			break;
		case MRCD_XREC_RESEND:
			MRC_T_ASSERT(tries < MRCD_RECOVER_X_TRIES, "a try past the last");
			sent_at[tries] = now;
			next_tsc = mrcd_xrec_next_tsc(now, retry, tries++);
			break;
		case MRCD_XREC_EXPIRE:
			if (expiries++ == 0)
				expired_at = now;
			now = UINT64_MAX - ms; /* the flow is down: its timer stops */
			break;
		}
	}
	MRC_T_EQ(tries, MRCD_RECOVER_X_TRIES);
	MRC_T_EQ(expiries, 1);
	want = 0;
	for (unsigned int k = 1; k < MRCD_RECOVER_X_TRIES; k++) {
		want += retry << (k - 1); /* 2, 4, 8 ... ms after the one before */
		MRC_T_ASSERT(sent_at[k] == want + 1, "try %u at %" PRIu64 " us, want %" PRIu64, k,
			sent_at[k], want + 1);
	}
	/* expired one doubled wait after the last try: 2 * (2^9 - 1) ms after the first */
	want += retry << (MRCD_RECOVER_X_TRIES - 1);
	MRC_T_ASSERT(expired_at == want + 1, "expired at %" PRIu64 " us, want %" PRIu64, expired_at,
		want + 1);
	MRC_T_EQ(want, (uint64_t)MRCD_RECOVER_X_RETRY_MS * ms * ((1u << MRCD_RECOVER_X_TRIES) - 1));
	return MRC_TEST_OK;
}

/*
 * A daemon with one cross-process flow, made in the test: flow 0's sending
 * end is here (host 0), its receiving end on cluster host 1 in another
 * process; 4 spare pairs, spare 2 claimed by flow 0. Only what recovery's
 * control side reads of it.
 */
struct xp_fixture {
	struct mrcd_daemon d;
	struct mrcd_recover r;
	struct mrcd_flow f;
	struct mrcd_flow_rec x;
	int32_t spare_flow[4];
	uint64_t spare_free_tsc[4];
	struct mrcd_flow_rec *rec[1];
	uint32_t active[2];
	int32_t flow_of[1];
};

static struct xp_fixture *
xp_fixture_make(uint8_t state)
{
	struct xp_fixture *t = calloc(1, sizeof(*t));

	if (t == NULL)
		return NULL;
	t->d.hz = rte_get_tsc_hz() != 0 ? rte_get_tsc_hz() : 1000000000ull;
	t->d.n_flows = t->d.flow_cap = t->d.n_cluster_flows = 1;
	t->d.flows = &t->f;
	t->d.flow_of = t->flow_of;
	t->d.recover = &t->r;
	t->f.src_local = 0;
	t->f.dst_local = -1;
	t->f.src = 0;
	t->f.dst = 1;
	t->r.n_spares = 4;
	t->r.spare_flow = t->spare_flow;
	t->r.spare_free_tsc = t->spare_free_tsc;
	t->r.rec = t->rec;
	t->r.active = t->active;
	t->rec[0] = &t->x;
	for (unsigned int s = 0; s < 4; s++)
		t->spare_flow[s] = s == 2 ? 0 : -1;
	t->x.xp = true;
	t->x.spare = -1;
	t->x.state = state;
	t->x.next_spare = 2;
	return t;
}

/*
 * The sender has claimed spare pair 2 and asks the receiver's process to
 * make its end of it; then it gives the flow up (no answer). No QP of ours
 * has the spare's numbers, so the claim must go, resting like any freed
 * pair: kept, each such give-up would cost the process one of its spares
 * for good. Once our new QP exists (ADDING), the claim stays: that QP
 * holds them.
 */
static int
test_give_up_frees_asked_spare(void)
{
	static const uint8_t states[] = {REC_X_ASK, REC_X_ADDING};

	for (unsigned int i = 0; i < RTE_DIM(states); i++) {
		struct xp_fixture *t = xp_fixture_make(states[i]);
		uint64_t before;

		MRC_T_ASSERT(t != NULL, "memory");
		before = rte_rdtsc();
		mrcd_rec_give_up(&t->d, 0, 0, &t->x, MRCD_RECOVER_no_answer);
		MRC_T_EQ(t->x.state, REC_DOWN);
		MRC_T_ASSERT(t->x.bye, "the receiver's process is told (state %u)", states[i]);
		MRC_T_EQ(t->r.not_recovered[0][MRCD_RECOVER_no_answer], 1);
		if (states[i] == REC_X_ASK) {
			MRC_T_ASSERT(t->spare_flow[2] == -1,
				"asking: spare 2 still claimed by flow %d", t->spare_flow[2]);
			MRC_T_ASSERT(t->spare_free_tsc[2] > before,
				"asking: spare 2 free at once, not resting");
		} else {
			MRC_T_ASSERT(t->spare_flow[2] == 0,
				"adding: spare 2 let go (%d) while our QP has it",
				t->spare_flow[2]);
		}
		/* the other spares untouched */
		MRC_T_ASSERT(
			t->spare_flow[0] == -1 && t->spare_flow[1] == -1 && t->spare_flow[3] == -1,
			"another spare changed");
		free(t);
	}
	return MRC_TEST_OK;
}

/*
 * The sender gave flow 0 up while asking for pair 1 (no answer), and its
 * GIVE_UP's tries ran out too: the receiver's process was stopped, then
 * busy making its end for the MAKE it found queued, and a GIVE_UP that
 * comes during a step of its own is left unanswered. Its yes to that MAKE
 * then comes. The sender must tell it again, with fresh tries: told
 * nothing, the receiver would keep that end, counted recovered, for a flow
 * nobody sends on. A refusal, or a yes to an older pair, changes nothing.
 */
static int
test_made_after_give_up_is_told_again(void)
{
	static const struct {
		uint8_t status;
		uint16_t life;
		bool told;
	} answers[] = {{0, 1, true}, {MRCD_RECOVER_no_spare + 1, 1, false}, {0, 0, false}};

	for (unsigned int i = 0; i < RTE_DIM(answers); i++) {
		struct xp_fixture *t = xp_fixture_make(REC_X_ASK);
		struct mrc_ep_view v = {.op = MRC_EP_OP_FLOW_RECOVER};
		uint16_t req;

		MRC_T_ASSERT(t != NULL, "memory");
		mrcd_rec_give_up(&t->d, 0, 0, &t->x, MRCD_RECOVER_no_answer);
		MRC_T_EQ(t->x.bye_life, 1);
		t->x.bye = false; /* its tries ran out */
		req = t->x.req_id;
		v.rec = (struct mrc_ep_rec){.kind = MRC_EP_REC_MAKE,
			.status = answers[i].status,
			.life = answers[i].life,
			.flow = 0,
			.spare = 2};
		mrcd_recover_ep_answer(&t->d, 0, 1, &v, rte_rdtsc());
		MRC_T_ASSERT(t->x.bye == answers[i].told,
			"answer %u (status %u, pair %u): GIVE_UP %s", i, answers[i].status,
			answers[i].life, t->x.bye ? "sent again" : "not sent again");
		if (answers[i].told) {
			MRC_T_EQ(t->x.tries, 0);
			MRC_T_EQ(t->x.req_id, (uint16_t)(req + 1));
			MRC_T_ASSERT(t->x.listed, "not on the active list: nothing would send it");
		}
		MRC_T_EQ(t->x.state, REC_DOWN);
		MRC_T_EQ(t->r.not_recovered[0][MRCD_RECOVER_no_answer], 1); /* counted once */
		free(t);
	}
	return MRC_TEST_OK;
}

/*
 * The number flow-recovery requests name a flow by, back to the flow here:
 * the cluster's flows (8 here), then, past the spares (16), the pairs
 * reloads added (4). A number in the spare range, past the added pairs, or
 * of an added pair not in use names no flow.
 */
static int
test_cluster_id(void)
{
	struct mrcd_daemon d;
	struct mrcd_recover r;
	int32_t flow_of[8], added_of[4];

	memset(&d, 0, sizeof(d));
	memset(&r, 0, sizeof(r));
	for (unsigned int g = 0; g < 8; g++)
		flow_of[g] = g == 3 ? -1 : (int32_t)(100 + g);
	for (unsigned int k = 0; k < 4; k++)
		added_of[k] = k == 1 ? -1 : (int32_t)(200 + k);
	d.n_cluster_flows = 8;
	d.flow_of = flow_of;
	MRC_T_ASSERT(mrcd_flow_of_cluster_id(&d, 5) == 105, "cluster flow 5, no recovery state");
	MRC_T_ASSERT(mrcd_flow_of_cluster_id(&d, 8 + 16) == -1, "an added one, no recovery state");
	d.recover = &r;
	r.n_spares = 16;
	d.added_of = added_of;
	d.n_added_pairs = 4;
	for (uint32_t id = 0; id < 8 + 16 + 4 + 2; id++) {
		const int32_t want = id < 8	       ? flow_of[id]
				     : id < 8 + 16     ? -1
				     : id < 8 + 16 + 4 ? added_of[id - 8 - 16]
						       : -1;
		const int32_t got = mrcd_flow_of_cluster_id(&d, id);

		MRC_T_ASSERT(got == want, "number %u: flow %d, want %d", id, got, want);
	}
	MRC_T_ASSERT(mrcd_flow_of_cluster_id(&d, UINT32_MAX) == -1, "the last number");
	return MRC_TEST_OK;
}

static const struct mrc_test_case cases[] = {
	MRC_TEST_CASE(test_cluster_id),
	MRC_TEST_CASE(test_give_up_frees_asked_spare),
	MRC_TEST_CASE(test_made_after_give_up_is_told_again),
	MRC_TEST_CASE(test_judge_give_up),
	MRC_TEST_CASE(test_retry_schedule),
	MRC_TEST_CASE(test_pick_from),
	MRC_TEST_CASE(test_judge_make),
	MRC_TEST_CASE(test_judge_failed),
	MRC_TEST_CASE(test_flow_shards),
	MRC_TEST_CASE(test_spares_cover_flows),
	MRC_TEST_CASE(test_pick),
};

MRC_TEST_MAIN("mrcd_recover", cases)
