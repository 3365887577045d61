/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRC_TIMER_WHEEL_H
#define MRC_TIMER_WHEEL_H

/*
 * A hashed timer wheel for one lcore: O(1) arm and cancel, advance driven by
 * the caller's now_tsc. See mrc_timer_wheel.c for the algorithm.
 *
 * Usage:
 *
 *   struct qp { ...; struct mrc_timer rto; ... };
 *
 *   mrc_timer_init(&qp->rto, qp_rto_fired, qp);
 *   mrc_timer_arm(w, &qp->rto, now_tsc + rto_tsc);    // (re)start
 *   mrc_timer_cancel(w, &qp->rto);                     // stop, if running
 *   ...
 *   n = mrc_timer_wheel_advance(w, now_tsc);           // once per loop
 *
 * Semantics (what tests and callers may rely on):
 * - Time is cut into ticks of tick_tsc cycles; tick(x) = floor(x / tick_tsc).
 *   A timer armed for expiry_tsc gets expiry tick ceil(expiry_tsc / tick_tsc)
 *   and fires in the first advance(now_tsc) with tick(now_tsc) >= that tick.
 *   So a timer never fires before its expiry_tsc, and at most one tick (plus
 *   however late the caller calls advance) after it.
 * - Order: within one advance, timers fire in order of expiry tick; timers
 *   with the same expiry tick fire in the order they were (last) armed.
 *   This holds however far now_tsc jumps.
 * - A timer whose expiry tick was already processed when it is armed (an
 *   expiry in the past, or "now" after advance already ran for this tick)
 *   fires at the next advance call, before any timer still in the wheel;
 *   several such timers fire in arm order.
 * - Callbacks run inside advance and may arm, re-arm or cancel any timer,
 *   including the one that is firing (periodic timers re-arm themselves) and
 *   others due in the same advance (a cancelled one then does not fire).
 *   A timer armed from a callback fires in the same advance if its expiry
 *   tick is after the tick being processed and not after tick(now_tsc);
 *   at or before the tick being processed, it waits for the next advance
 *   (so a callback re-arming itself "now" cannot loop forever).
 *   A callback may free the memory of its own timer (if it did not re-arm
 *   it); another timer's memory may be freed only after cancelling it.
 *   Calling advance from a callback does nothing and returns 0.
 * - A timer is on at most one wheel at a time. Nothing here locks: a wheel
 *   and its timers belong to one lcore.
 * - arm, cancel and advance never allocate, lock, make syscalls or log.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct mrc_timer_wheel;
struct mrc_timer;

/*
 * Called from mrc_timer_wheel_advance() when the timer expires; `now_tsc` is
 * the value passed to advance. The timer is no longer armed when called.
 */
typedef void (*mrc_timer_cb_t)(
	struct mrc_timer_wheel *w, struct mrc_timer *t, void *arg, uint64_t now_tsc);

/* Intrusive list link; internal. */
struct mrc_timer_link {
	struct mrc_timer_link *next;
	struct mrc_timer_link *prev;
};

enum mrc_timer_state {
	MRC_TIMER_IDLE = 0, /* not armed */
	MRC_TIMER_WHEEL,    /* armed, in a wheel slot */
	MRC_TIMER_DUE,	    /* armed, due at the next advance (or firing in this one) */
};

/* Embed in the owning struct; fields are private to the wheel. */
struct mrc_timer {
	struct mrc_timer_link link;
	uint64_t expiry_tick; /* ceil(expiry_tsc / tick_tsc) as last armed */
	mrc_timer_cb_t cb;
	void *arg;
	enum mrc_timer_state state;
};

/* Prepare a timer (unarmed). Must not be called on an armed timer. */
static inline void
mrc_timer_init(struct mrc_timer *t, mrc_timer_cb_t cb, void *arg)
{
	t->link.next = NULL;
	t->link.prev = NULL;
	t->expiry_tick = 0;
	t->cb = cb;
	t->arg = arg;
	t->state = MRC_TIMER_IDLE;
}

static inline bool
mrc_timer_is_armed(const struct mrc_timer *t)
{
	return t->state != MRC_TIMER_IDLE;
}

/* The expiry tick the timer was last armed for (meaningful while armed). */
static inline uint64_t
mrc_timer_expiry_tick(const struct mrc_timer *t)
{
	return t->expiry_tick;
}

/* Largest wheel accepted, to keep memsize sane (2^20 slots = 16 MiB). */
#define MRC_TIMER_WHEEL_MAX_SLOTS (UINT32_C(1) << 20)

/*
 * Bytes needed for a wheel of n_slots slots (a power of two, 1 to
 * MRC_TIMER_WHEEL_MAX_SLOTS); 0 if n_slots is invalid. Align the memory to
 * at least 8 bytes (any malloc does), a cache line is better.
 */
size_t mrc_timer_wheel_memsize(uint32_t n_slots);

/*
 * Set up a wheel in caller-provided memory of mrc_timer_wheel_memsize()
 * bytes. Ticks last tick_tsc (> 0) cycles; the wheel starts at now_tsc: a
 * timer armed for tick(now_tsc) or later goes into the wheel. The wheel
 * covers n_slots * tick_tsc per rotation; longer timeouts work (they cost
 * a little more, see mrc_timer_wheel.c).
 * Returns 0, or -EINVAL for bad arguments or misaligned memory.
 */
int mrc_timer_wheel_init(void *mem, uint32_t n_slots, uint64_t tick_tsc, uint64_t now_tsc);

/*
 * Allocate (rte_zmalloc_socket, needs the EAL) and init a wheel. Returns
 * NULL with rte_errno set (EINVAL, ENOMEM) on failure. Free with
 * mrc_timer_wheel_free().
 */
struct mrc_timer_wheel *mrc_timer_wheel_create(
	uint32_t n_slots, uint64_t tick_tsc, uint64_t now_tsc, int socket_id);

/* Free a wheel from mrc_timer_wheel_create(); NULL is fine. Armed timers are dropped. */
void mrc_timer_wheel_free(struct mrc_timer_wheel *w);

/*
 * Arm t to fire at expiry_tsc (see the semantics above). Re-arming an armed
 * timer moves it (it counts as a new arm for FIFO order).
 */
void mrc_timer_arm(struct mrc_timer_wheel *w, struct mrc_timer *t, uint64_t expiry_tsc);

/* Stop t if armed; a no-op otherwise. */
void mrc_timer_cancel(struct mrc_timer_wheel *w, struct mrc_timer *t);

/*
 * Fire every armed timer whose expiry tick <= tick(now_tsc), in order.
 * Returns the number of callbacks run. If now_tsc went backwards, only the
 * timers that were due already fire and the wheel's notion of time stays.
 */
unsigned int mrc_timer_wheel_advance(struct mrc_timer_wheel *w, uint64_t now_tsc);

/* Number of armed timers. */
unsigned int mrc_timer_wheel_count(const struct mrc_timer_wheel *w);

/* Tick length in cycles. */
uint64_t mrc_timer_wheel_tick_tsc(const struct mrc_timer_wheel *w);

/*
 * First tick not yet processed: timers armed for an earlier tick are due at
 * the next advance. Starts at tick(now_tsc) of init; after advance(now_tsc)
 * it is tick(now_tsc) + 1.
 */
uint64_t mrc_timer_wheel_next_tick(const struct mrc_timer_wheel *w);

#endif /* MRC_TIMER_WHEEL_H */
