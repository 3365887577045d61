/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * A hashed timer wheel (Varghese and Lauck, "Hashed and Hierarchical Timing
 * Wheels", 1987, scheme 6), with a bitmap to skip empty time.
 *
 * What it is for: each QP has a few timers (retransmit, probe, ack
 * coalescing, EV re-admission...) that are armed and cancelled far more
 * often than they fire - most retransmit timers are pushed forward by every
 * ack. So arm and cancel must be O(1), and the per-loop "what fired?" must
 * cost next to nothing when nothing did.
 *
 * Time is cut into ticks of tick_tsc cycles. The wheel is an array of
 * n_slots (a power of two) FIFO lists; a timer for tick T lives in slot
 * T mod n_slots. One rotation covers n_slots ticks; a timer further away
 * than one rotation shares its slot with nearer ones and simply waits there,
 * carrying its full 64-bit expiry tick so it can tell which rotation is its:
 *
 *   slot:      0     1     2     3    ...  n-1
 *            [T=0] [   ] [T=2] [   ]      [   ]     next_tick = 1
 *                          [T=2+n]                  (same slot, next rotation)
 *
 * Arm: compute the expiry tick, append to the slot's list (appending keeps
 * same-tick timers in arm order: FIFO), set the slot's bit in a bitmap of
 * non-empty slots. Cancel: unlink from the doubly linked list; clear the bit
 * if the slot became empty. Both O(1), no search.
 *
 * Advance to tick N: process ticks next_tick..N in order. Processing tick T
 * moves the timers of slot T mod n_slots whose expiry tick is exactly T onto
 * a private "firing" list (keeping their order) and then pops and fires them
 * one at a time. Because each callback only ever sees the list from the head,
 * it may arm or cancel anything - itself, the next timer due - without
 * invalidating an iterator. next_tick is moved past T *before* the callbacks
 * run, so a callback arming "now" lands on the due list (below) instead of
 * back into the tick being processed: a self-re-arming timer cannot spin.
 *
 * Skipping empty time, which matters because tests jump a fake clock by
 * seconds with a microsecond tick (17 s = 17 million ticks):
 * - no timer in any slot: jump straight to N;
 * - within a rotation, the bitmap gives the next non-empty slot at the cost
 *   of one word per 64 slots (ctz), so empty ticks cost ~nothing;
 * - when N is more than a rotation ahead, a rotation's walk could find
 *   nothing (all timers in later rotations) and repeat for every rotation.
 *   Instead, before each rotation's walk whose end is still short of N,
 *   compute the smallest pending expiry tick (one pass over the non-empty
 *   slots) and jump there. That pass always leads to at least one timer
 *   firing in the rotation that follows, or to the end of the advance.
 *
 * Timers armed for a tick that was already processed (in the past, or the
 * current tick after advance ran for it) go on a separate "due" FIFO that
 * the next advance fires first: they are overdue, so before anything still
 * in the wheel, and in arm order among themselves.
 *
 * Complexity, honestly:
 * - arm, cancel: O(1).
 * - advance over k ticks within one rotation: O(k/64 + timers in the
 *   non-empty slots visited), where slots may hold timers of later
 *   rotations that are looked at and left. So a timer pending for r
 *   rotations is looked at about r times in total: keep most timeouts
 *   within one rotation (n_slots * tick_tsc) for the best cost.
 * - advance over a jump of many rotations: O((n_slots/64 + armed) * R) where
 *   R is the number of rotations in which something fires (R <= fired + 1),
 *   independent of the number of empty ticks or empty rotations.
 * - memory: 16 bytes per slot + 1 bit per slot, plus the timers themselves
 *   (intrusive, in the caller's structs).
 *
 * The division by tick_tsc (arm, advance) is a 64-bit divide: a few tens of
 * cycles, cheaper than a cache miss; a reciprocal could replace it if
 * profiles ever say so.
 */

#include <errno.h>
#include <stdalign.h>
#include <stdint.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_malloc.h>

#include "mrc_timer_wheel.h"

struct mrc_timer_wheel {
	uint64_t tick_tsc;
	/* All ticks < next_tick are processed; wheel timers have expiry >= it. */
	uint64_t next_tick;
	uint32_t n_slots;
	uint32_t slot_mask;
	unsigned int n_armed;	 /* in slots + due (+ on a firing list) */
	unsigned int n_in_slots; /* in slots only: 0 lets advance skip to now */
	bool in_advance;
	struct mrc_timer_link due; /* armed for an already processed tick */
	uint64_t *bitmap;	   /* bit s set <=> slots[s] non-empty */
	struct mrc_timer_link slots[];
};

#define MRC_TW_WORD_BITS 64u

static inline uint32_t
tw_bitmap_words(uint32_t n_slots)
{
	return (n_slots + MRC_TW_WORD_BITS - 1) / MRC_TW_WORD_BITS;
}

/* ---- intrusive circular lists with a sentinel head ---- */

static inline void
tw_list_init(struct mrc_timer_link *head)
{
	head->next = head;
	head->prev = head;
}

static inline bool
tw_list_empty(const struct mrc_timer_link *head)
{
	return head->next == head;
}

static inline void
tw_list_append(struct mrc_timer_link *head, struct mrc_timer_link *l)
{
	l->prev = head->prev;
	l->next = head;
	head->prev->next = l;
	head->prev = l;
}

/* Unlink from whatever list l is on; the list head is not needed. */
static inline void
tw_list_unlink(struct mrc_timer_link *l)
{
	l->prev->next = l->next;
	l->next->prev = l->prev;
	l->next = NULL;
	l->prev = NULL;
}

/* Move all of src (in order) to the empty list dst; src becomes empty. */
static inline void
tw_list_move_all(struct mrc_timer_link *dst, struct mrc_timer_link *src)
{
	if (tw_list_empty(src)) {
		tw_list_init(dst);
		return;
	}
	dst->next = src->next;
	dst->prev = src->prev;
	dst->next->prev = dst;
	dst->prev->next = dst;
	tw_list_init(src);
}

static inline struct mrc_timer *
tw_timer_of(struct mrc_timer_link *l)
{
	return container_of(l, struct mrc_timer, link);
}

/* ---- slot bitmap ---- */

static inline void
tw_slot_mark(struct mrc_timer_wheel *w, uint32_t slot)
{
	w->bitmap[slot / MRC_TW_WORD_BITS] |= UINT64_C(1) << (slot % MRC_TW_WORD_BITS);
}

static inline void
tw_slot_clear_if_empty(struct mrc_timer_wheel *w, uint32_t slot)
{
	if (tw_list_empty(&w->slots[slot]))
		w->bitmap[slot / MRC_TW_WORD_BITS] &= ~(UINT64_C(1) << (slot % MRC_TW_WORD_BITS));
}

/*
 * Smallest tick in [from, limit] whose slot is non-empty; limit - from must
 * be less than n_slots so that no slot is seen twice. Scans whole bitmap
 * words; with fewer than 64 slots the one word wraps after n_slots bits.
 */
static bool
tw_next_busy_tick(const struct mrc_timer_wheel *w, uint64_t from, uint64_t limit, uint64_t *out)
{
	const uint32_t span = RTE_MIN(MRC_TW_WORD_BITS, w->n_slots);
	uint64_t tick = from;

	while (tick <= limit) {
		const uint32_t slot = (uint32_t)tick & w->slot_mask;
		const uint32_t bit = slot % MRC_TW_WORD_BITS;
		const uint64_t bits = w->bitmap[slot / MRC_TW_WORD_BITS] >> bit;

		if (bits != 0) {
			tick += (uint64_t)__builtin_ctzll(bits);
			if (tick > limit)
				return false;
			*out = tick;
			return true;
		}
		tick += span - bit;
	}
	return false;
}

/* Smallest expiry tick of the timers in slots; n_in_slots must be > 0. */
static uint64_t
tw_min_expiry_tick(const struct mrc_timer_wheel *w)
{
	const uint32_t n_words = tw_bitmap_words(w->n_slots);
	uint64_t min = UINT64_MAX;

	for (uint32_t i = 0; i < n_words; i++) {
		uint64_t bits = w->bitmap[i];

		while (bits != 0) {
			const uint32_t slot =
				i * MRC_TW_WORD_BITS + (uint32_t)__builtin_ctzll(bits);
			const struct mrc_timer_link *head = &w->slots[slot];

			bits &= bits - 1;
			for (const struct mrc_timer_link *l = head->next; l != head; l = l->next) {
				const struct mrc_timer *t =
					container_of(l, const struct mrc_timer, link);

				if (t->expiry_tick < min)
					min = t->expiry_tick;
			}
		}
	}
	return min;
}

/* ---- setup ---- */

size_t
mrc_timer_wheel_memsize(uint32_t n_slots)
{
	if (n_slots == 0 || n_slots > MRC_TIMER_WHEEL_MAX_SLOTS || !rte_is_power_of_2(n_slots))
		return 0;
	return sizeof(struct mrc_timer_wheel) + (size_t)n_slots * sizeof(struct mrc_timer_link) +
	       (size_t)tw_bitmap_words(n_slots) * sizeof(uint64_t);
}

int
mrc_timer_wheel_init(void *mem, uint32_t n_slots, uint64_t tick_tsc, uint64_t now_tsc)
{
	struct mrc_timer_wheel *w = mem;

	if (mem == NULL || tick_tsc == 0 || mrc_timer_wheel_memsize(n_slots) == 0 ||
		(uintptr_t)mem % alignof(struct mrc_timer_wheel) != 0)
		return -EINVAL;

	memset(w, 0, sizeof(*w));
	w->tick_tsc = tick_tsc;
	w->next_tick = now_tsc / tick_tsc;
	w->n_slots = n_slots;
	w->slot_mask = n_slots - 1;
	tw_list_init(&w->due);
	for (uint32_t i = 0; i < n_slots; i++)
		tw_list_init(&w->slots[i]);
	w->bitmap = (uint64_t *)(void *)&w->slots[n_slots];
	memset(w->bitmap, 0, (size_t)tw_bitmap_words(n_slots) * sizeof(uint64_t));
	return 0;
}

struct mrc_timer_wheel *
mrc_timer_wheel_create(uint32_t n_slots, uint64_t tick_tsc, uint64_t now_tsc, int socket_id)
{
	const size_t size = mrc_timer_wheel_memsize(n_slots);
	void *mem;
	int rc;

	if (size == 0 || tick_tsc == 0) {
		rte_errno = EINVAL;
		return NULL;
	}
	mem = rte_zmalloc_socket("mrc_timer_wheel", size, RTE_CACHE_LINE_SIZE, socket_id);
	if (mem == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	rc = mrc_timer_wheel_init(mem, n_slots, tick_tsc, now_tsc);
	if (rc != 0) {
		rte_free(mem);
		rte_errno = -rc;
		return NULL;
	}
	return mem;
}

void
mrc_timer_wheel_free(struct mrc_timer_wheel *w)
{
	rte_free(w);
}

/* ---- arm / cancel ---- */

/* Take an armed timer off its list, keeping slot bookkeeping right. */
static inline void
tw_detach(struct mrc_timer_wheel *w, struct mrc_timer *t)
{
	tw_list_unlink(&t->link);
	if (t->state == MRC_TIMER_WHEEL) {
		w->n_in_slots--;
		tw_slot_clear_if_empty(w, (uint32_t)t->expiry_tick & w->slot_mask);
	}
}

void
mrc_timer_arm(struct mrc_timer_wheel *w, struct mrc_timer *t, uint64_t expiry_tsc)
{
	/* Round up: firing early would be a spurious timeout. */
	const uint64_t tick = expiry_tsc / w->tick_tsc + (expiry_tsc % w->tick_tsc != 0);

	if (t->state != MRC_TIMER_IDLE)
		tw_detach(w, t);
	else
		w->n_armed++;

	t->expiry_tick = tick;
	if (tick < w->next_tick) {
		t->state = MRC_TIMER_DUE;
		tw_list_append(&w->due, &t->link);
		return;
	}
	const uint32_t slot = (uint32_t)tick & w->slot_mask;

	t->state = MRC_TIMER_WHEEL;
	tw_list_append(&w->slots[slot], &t->link);
	tw_slot_mark(w, slot);
	w->n_in_slots++;
}

void
mrc_timer_cancel(struct mrc_timer_wheel *w, struct mrc_timer *t)
{
	if (t->state == MRC_TIMER_IDLE)
		return;
	tw_detach(w, t);
	t->state = MRC_TIMER_IDLE;
	w->n_armed--;
}

/* ---- advance ---- */

/*
 * Pop and fire the timers of a private list until it is empty. Callbacks may
 * cancel entries still on it (they are DUE, so cancel just unlinks them) or
 * re-arm them elsewhere. The timer is not touched after its callback, which
 * may have freed it.
 */
static unsigned int
tw_fire_list(struct mrc_timer_wheel *w, struct mrc_timer_link *list, uint64_t now_tsc)
{
	unsigned int fired = 0;

	while (!tw_list_empty(list)) {
		struct mrc_timer *t = tw_timer_of(list->next);

		tw_list_unlink(&t->link);
		t->state = MRC_TIMER_IDLE;
		w->n_armed--;
		fired++;
		t->cb(w, t, t->arg, now_tsc);
	}
	return fired;
}

/* Fire the timers of slot (tick mod n_slots) whose expiry is exactly tick. */
static unsigned int
tw_fire_tick(struct mrc_timer_wheel *w, uint64_t tick, uint64_t now_tsc)
{
	const uint32_t slot = (uint32_t)tick & w->slot_mask;
	struct mrc_timer_link *head = &w->slots[slot];
	struct mrc_timer_link firing, *l, *next;

	tw_list_init(&firing);
	for (l = head->next; l != head; l = next) {
		struct mrc_timer *t = tw_timer_of(l);

		next = l->next;
		if (t->expiry_tick != tick)
			continue; /* a later rotation's */
		tw_list_unlink(l);
		tw_list_append(&firing, l);
		t->state = MRC_TIMER_DUE;
		w->n_in_slots--;
	}
	tw_slot_clear_if_empty(w, slot);
	return tw_fire_list(w, &firing, now_tsc);
}

/* Process ticks next_tick..now_tick (now_tick >= next_tick). */
static unsigned int
tw_run_ticks(struct mrc_timer_wheel *w, uint64_t now_tick, uint64_t now_tsc)
{
	unsigned int fired = 0;
	uint64_t rot_end = 0; /* last tick of the rotation being walked */
	bool in_rotation = false;

	while (w->next_tick <= now_tick) {
		uint64_t limit, tick;

		if (w->n_in_slots == 0) {
			w->next_tick = now_tick + 1;
			break;
		}
		if (!in_rotation || w->next_tick > rot_end) {
			if (now_tick - w->next_tick >= w->n_slots) {
				/* Far to go: skip the empty stretch, however long. */
				const uint64_t min = tw_min_expiry_tick(w);

				if (min > now_tick) {
					w->next_tick = now_tick + 1;
					break;
				}
				if (min > w->next_tick)
					w->next_tick = min;
			}
			rot_end = w->next_tick > UINT64_MAX - w->n_slots
					  ? UINT64_MAX
					  : w->next_tick + w->n_slots - 1;
			in_rotation = true;
		}
		limit = RTE_MIN(rot_end, now_tick);
		if (!tw_next_busy_tick(w, w->next_tick, limit, &tick)) {
			w->next_tick = limit + 1;
			continue;
		}
		/* Past this tick before the callbacks: re-arms "now" go to due. */
		w->next_tick = tick + 1;
		fired += tw_fire_tick(w, tick, now_tsc);
	}
	return fired;
}

unsigned int
mrc_timer_wheel_advance(struct mrc_timer_wheel *w, uint64_t now_tsc)
{
	const uint64_t now_tick = now_tsc / w->tick_tsc;
	struct mrc_timer_link due;
	unsigned int fired;

	if (w->in_advance)
		return 0;
	w->in_advance = true;

	/* Overdue first; what callbacks make due now waits for the next call. */
	tw_list_move_all(&due, &w->due);
	fired = tw_fire_list(w, &due, now_tsc);

	if (now_tick >= w->next_tick)
		fired += tw_run_ticks(w, now_tick, now_tsc);

	w->in_advance = false;
	return fired;
}

/* ---- introspection ---- */

unsigned int
mrc_timer_wheel_count(const struct mrc_timer_wheel *w)
{
	return w->n_armed;
}

uint64_t
mrc_timer_wheel_tick_tsc(const struct mrc_timer_wheel *w)
{
	return w->tick_tsc;
}

uint64_t
mrc_timer_wheel_next_tick(const struct mrc_timer_wheel *w)
{
	return w->next_tick;
}
