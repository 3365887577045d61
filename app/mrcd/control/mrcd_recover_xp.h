/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRCD_RECOVER_XP_H
#define MRCD_RECOVER_XP_H

/*
 * The pure decisions of a recovery across processes (mrcd_recover_xp.c):
 * what a process does with a flow-recovery request or answer, given what it
 * knows of the flow. Requests are resent until answered, and a resend may
 * arrive after the answer to it, or after a newer request: each is judged
 * by the pair it is about (its life, in 16-bit serial order) and its spare.
 */

#include <stdbool.h>
#include <stdint.h>

enum mrcd_xrec_verdict {
	MRCD_XREC_NEW,	 /* act on it */
	MRCD_XREC_AGAIN, /* settled before: answer as then, change nothing */
	MRCD_XREC_BUSY,	 /* under way: the answer goes once it is settled */
	MRCD_XREC_STALE, /* about an older pair: ignored, counted */
};

/* What the receiving end's process knows of a flow, for a MAKE. */
struct mrcd_xrec_view {
	uint16_t life;	 /* the pair in use */
	bool mk_pending; /* a MAKE of (mk_life, mk_spare) is being carried out */
	bool mk_done;	 /* ... or was settled (answered) */
	uint16_t mk_life;
	uint32_t mk_spare;
};

/* The receiver, a MAKE of pair `life` on spare pair `spare`. */
enum mrcd_xrec_verdict mrcd_xrec_judge_make(
	const struct mrcd_xrec_view *x, uint16_t life, uint32_t spare);

/* The sender, a FAILED of pair `life` while it runs pair cur_life (up: no recovery under
 * way): NEW starts one, AGAIN (one under way) and STALE are answered, nothing more. */
enum mrcd_xrec_verdict mrcd_xrec_judge_failed(uint16_t cur_life, bool up, uint16_t life);

/*
 * The receiver, a GIVE_UP naming pair `life` (the newest the sender ran or
 * asked for) while it runs pair cur_life: the sender's pair is ours or the
 * one after (a MAKE of it may not have come, or been made), any other is
 * STALE. down: we gave the flow up already (AGAIN); busy: a step of ours
 * is under way (BUSY: unanswered, the sender asks again).
 */
enum mrcd_xrec_verdict mrcd_xrec_judge_give_up(
	uint16_t cur_life, bool down, bool busy, uint16_t life);

/* What to do with our request out, sent `tries` times, due again at next_tsc. */
enum mrcd_xrec_timer {
	MRCD_XREC_WAIT,	  /* not due yet */
	MRCD_XREC_RESEND, /* due: send it again */
	MRCD_XREC_EXPIRE, /* due after the last of MRCD_RECOVER_X_TRIES: no answer */
};
enum mrcd_xrec_timer mrcd_xrec_timer(uint64_t now, uint64_t next_tsc, uint8_t tries);
/* When a request sent now for the (tries + 1)th time is due again: MRCD_RECOVER_X_RETRY_MS
 * (retry_tsc in cycles) after the first send, doubling with each try after it. */
uint64_t mrcd_xrec_next_tsc(uint64_t now, uint64_t retry_tsc, uint8_t tries);

#endif /* MRCD_RECOVER_XP_H */
