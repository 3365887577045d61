/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * The timer wheel, on a fake clock: firing tick, order across and within
 * slots, cancel, re-arm, callbacks that arm and cancel, huge clock jumps,
 * timers armed in the past, and a randomized comparison against a simple
 * reference model (a list searched for the smallest (tick, arm order)).
 */

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include <rte_common.h>
#include <rte_errno.h>

#include "mrc_rand.h"
#include "mrc_test.h"
#include "mrc_timer_wheel.h"

/* ---- helpers ---- */

static struct mrc_timer_wheel *
wheel_new(uint32_t n_slots, uint64_t tick_tsc, uint64_t now_tsc)
{
	const size_t size = mrc_timer_wheel_memsize(n_slots);
	void *mem;

	if (size == 0)
		return NULL;
	mem = aligned_alloc(RTE_CACHE_LINE_SIZE, RTE_ALIGN_CEIL(size, RTE_CACHE_LINE_SIZE));
	if (mem == NULL)
		return NULL;
	if (mrc_timer_wheel_init(mem, n_slots, tick_tsc, now_tsc) != 0) {
		free(mem);
		return NULL;
	}
	return mem;
}

#define LOG_MAX 4096

/* What fired, in order: timer id, the tick being processed, now_tsc. */
static struct {
	unsigned int n;
	int id[LOG_MAX];
	uint64_t tick[LOG_MAX];
	uint64_t now[LOG_MAX];
} fired_log;

static void
log_reset(void)
{
	fired_log.n = 0;
}

/* A test timer: the wheel timer plus what its callback should do. */
struct ttimer {
	struct mrc_timer tm;
	int id;
	uint64_t period_tsc;	  /* re-arm at expiry + period when non-zero */
	bool rearm_now;		  /* re-arm at now_tsc (already processed) */
	struct ttimer *cancel[2]; /* timers to cancel when firing */
	bool free_self;		  /* free(self) from the callback */
};

static void
ttimer_cb(struct mrc_timer_wheel *w, struct mrc_timer *t, void *arg, uint64_t now_tsc)
{
	struct ttimer *tt = arg;

	if (fired_log.n < LOG_MAX) {
		fired_log.id[fired_log.n] = tt->id;
		fired_log.tick[fired_log.n] = mrc_timer_wheel_next_tick(w) - 1;
		fired_log.now[fired_log.n] = now_tsc;
		fired_log.n++;
	}
	for (int i = 0; i < 2; i++)
		if (tt->cancel[i] != NULL)
			mrc_timer_cancel(w, &tt->cancel[i]->tm);
	if (tt->period_tsc != 0)
		mrc_timer_arm(w, t,
			mrc_timer_expiry_tick(t) * mrc_timer_wheel_tick_tsc(w) + tt->period_tsc);
	if (tt->rearm_now)
		mrc_timer_arm(w, t, now_tsc);
	if (tt->free_self)
		free(tt);
}

static void
ttimer_init(struct ttimer *tt, int id)
{
	memset(tt, 0, sizeof(*tt));
	tt->id = id;
	mrc_timer_init(&tt->tm, ttimer_cb, tt);
}

/* The fired ids must be exactly want[0..n). */
static int
check_fired(const int *want, unsigned int n)
{
	if (fired_log.n != n) {
		fprintf(stderr, "  fired %u timers, want %u:", fired_log.n, n);
		for (unsigned int i = 0; i < fired_log.n; i++)
			fprintf(stderr, " %d", fired_log.id[i]);
		fputc('\n', stderr);
		return MRC_TEST_FAIL;
	}
	for (unsigned int i = 0; i < n; i++)
		if (fired_log.id[i] != want[i]) {
			fprintf(stderr, "  fired[%u] = %d, want %d\n", i, fired_log.id[i], want[i]);
			return MRC_TEST_FAIL;
		}
	return MRC_TEST_OK;
}

#define CHECK_FIRED(...)                                                                        \
	do {                                                                                    \
		static const int want_[] = {__VA_ARGS__};                                       \
		MRC_T_ASSERT(check_fired(want_, RTE_DIM(want_)) == MRC_TEST_OK, "fired order"); \
	} while (0)
#define CHECK_NONE_FIRED() MRC_T_EQ(fired_log.n, 0)

#define T 1000 /* tick length in the small deterministic tests, cycles */

/* ---- setup ---- */

static int
test_init_arguments(void)
{
	MRC_T_EQ(mrc_timer_wheel_memsize(0), 0);
	MRC_T_EQ(mrc_timer_wheel_memsize(3), 0);
	MRC_T_EQ(mrc_timer_wheel_memsize(4095), 0);
	MRC_T_EQ(mrc_timer_wheel_memsize(MRC_TIMER_WHEEL_MAX_SLOTS * 2), 0);
	MRC_T_ASSERT(mrc_timer_wheel_memsize(1) > 0, "1 slot");
	MRC_T_ASSERT(mrc_timer_wheel_memsize(4096) >= 4096 * 2 * sizeof(void *), "4096 slots");

	const size_t size = mrc_timer_wheel_memsize(64);
	char *mem = aligned_alloc(64, RTE_ALIGN_CEIL(size + 64, 64));

	MRC_T_ASSERT(mem != NULL, "alloc");
	MRC_T_EQ(mrc_timer_wheel_init(NULL, 64, T, 0), -EINVAL);
	MRC_T_EQ(mrc_timer_wheel_init(mem, 64, 0, 0), -EINVAL);
	MRC_T_EQ(mrc_timer_wheel_init(mem, 63, T, 0), -EINVAL);
	MRC_T_EQ(mrc_timer_wheel_init(mem + 1, 64, T, 0), -EINVAL);
	MRC_T_EQ(mrc_timer_wheel_init(mem, 64, T, 5 * T + 1), 0);

	struct mrc_timer_wheel *w = (struct mrc_timer_wheel *)(void *)mem;

	MRC_T_EQ(mrc_timer_wheel_count(w), 0);
	MRC_T_EQ(mrc_timer_wheel_tick_tsc(w), T);
	MRC_T_EQ(mrc_timer_wheel_next_tick(w), 5);
	MRC_T_EQ(mrc_timer_wheel_advance(w, 1000 * T), 0);
	MRC_T_EQ(mrc_timer_wheel_next_tick(w), 1001);
	free(mem);

	/* create() validates before touching the EAL allocator. */
	rte_errno = 0;
	MRC_T_ASSERT(mrc_timer_wheel_create(100, T, 0, 0) == NULL, "bad n_slots");
	MRC_T_EQ(rte_errno, EINVAL);
	rte_errno = 0;
	MRC_T_ASSERT(mrc_timer_wheel_create(64, 0, 0, 0) == NULL, "bad tick");
	MRC_T_EQ(rte_errno, EINVAL);
	mrc_timer_wheel_free(NULL);
	return MRC_TEST_OK;
}

/* ---- when a timer fires ---- */

/* Expiry ticks round up: never early, and fires in the first tick at or after. */
static int
test_fires_at_right_tick(void)
{
	struct mrc_timer_wheel *w = wheel_new(8, T, 0);
	struct ttimer a, b, c;

	MRC_T_ASSERT(w != NULL, "wheel");
	ttimer_init(&a, 1);
	ttimer_init(&b, 2);
	ttimer_init(&c, 3);
	log_reset();

	mrc_timer_arm(w, &a.tm, 5 * T);	    /* tick 5 */
	mrc_timer_arm(w, &b.tm, 5 * T + 1); /* tick 6, not 5: never early */
	mrc_timer_arm(w, &c.tm, 0);	    /* tick 0: the wheel's first tick */
	MRC_T_EQ(mrc_timer_expiry_tick(&a.tm), 5);
	MRC_T_EQ(mrc_timer_expiry_tick(&b.tm), 6);
	MRC_T_EQ(mrc_timer_wheel_count(w), 3);
	MRC_T_ASSERT(mrc_timer_is_armed(&a.tm) && mrc_timer_is_armed(&b.tm), "armed");

	MRC_T_EQ(mrc_timer_wheel_advance(w, 0), 1);
	CHECK_FIRED(3);
	log_reset();
	MRC_T_EQ(mrc_timer_wheel_advance(w, 5 * T - 1), 0);
	MRC_T_EQ(mrc_timer_wheel_advance(w, 5 * T), 1);
	CHECK_FIRED(1);
	MRC_T_EQ(fired_log.tick[0], 5);
	MRC_T_EQ(fired_log.now[0], 5 * T);
	MRC_T_ASSERT(!mrc_timer_is_armed(&a.tm), "a fired, so unarmed");
	log_reset();
	MRC_T_EQ(mrc_timer_wheel_advance(w, 6 * T - 1), 0);
	MRC_T_EQ(mrc_timer_wheel_advance(w, 6 * T + T / 2), 1);
	CHECK_FIRED(2);
	MRC_T_EQ(mrc_timer_wheel_count(w), 0);
	/* Nothing fires twice. */
	log_reset();
	MRC_T_EQ(mrc_timer_wheel_advance(w, 100 * T), 0);
	free(w);
	return MRC_TEST_OK;
}

/* Across slots: order of expiry tick, whatever the arm order. */
static int
test_order_across_slots(void)
{
	static const uint64_t ticks[] = {7, 3, 5, 1, 6, 2, 4};
	struct mrc_timer_wheel *w = wheel_new(8, T, 0);
	struct ttimer t[7];

	MRC_T_ASSERT(w != NULL, "wheel");
	for (int i = 0; i < 7; i++) {
		ttimer_init(&t[i], (int)ticks[i]);
		mrc_timer_arm(w, &t[i].tm, ticks[i] * T);
	}
	log_reset();
	MRC_T_EQ(mrc_timer_wheel_advance(w, 7 * T), 7);
	CHECK_FIRED(1, 2, 3, 4, 5, 6, 7);
	for (int i = 0; i < 7; i++)
		MRC_T_EQ(fired_log.tick[i], i + 1);
	free(w);
	return MRC_TEST_OK;
}

/* Within a tick: arm order (FIFO), not expiry_tsc order inside the tick. */
static int
test_fifo_within_tick(void)
{
	struct mrc_timer_wheel *w = wheel_new(8, T, 0);
	struct ttimer a, b, c, d;

	MRC_T_ASSERT(w != NULL, "wheel");
	ttimer_init(&a, 1);
	ttimer_init(&b, 2);
	ttimer_init(&c, 3);
	ttimer_init(&d, 4);
	/* All round up to tick 5; the later-armed have earlier cycles. */
	mrc_timer_arm(w, &a.tm, 5 * T);
	mrc_timer_arm(w, &b.tm, 4 * T + 900);
	mrc_timer_arm(w, &c.tm, 4 * T + 1);
	mrc_timer_arm(w, &d.tm, 4 * T + 500);
	/* Re-arming b for the same tick moves it to the back. */
	mrc_timer_arm(w, &b.tm, 5 * T);
	log_reset();
	MRC_T_EQ(mrc_timer_wheel_advance(w, 5 * T), 4);
	CHECK_FIRED(1, 3, 4, 2);
	free(w);
	return MRC_TEST_OK;
}

/* One slot shared by three rotations: each fires in its own rotation. */
static int
test_same_slot_other_rotations(void)
{
	struct mrc_timer_wheel *w = wheel_new(8, T, 0);
	struct ttimer x, y, z;

	MRC_T_ASSERT(w != NULL, "wheel");
	ttimer_init(&x, 13);
	ttimer_init(&y, 5);
	ttimer_init(&z, 21);
	/* Slot 5 holds ticks 13, 5, 21 in that arm order. */
	mrc_timer_arm(w, &x.tm, 13 * T);
	mrc_timer_arm(w, &y.tm, 5 * T);
	mrc_timer_arm(w, &z.tm, 21 * T);
	log_reset();
	MRC_T_EQ(mrc_timer_wheel_advance(w, 12 * T), 1);
	CHECK_FIRED(5);
	log_reset();
	MRC_T_EQ(mrc_timer_wheel_advance(w, 13 * T), 1);
	CHECK_FIRED(13);
	log_reset();
	MRC_T_EQ(mrc_timer_wheel_advance(w, 20 * T), 0);
	MRC_T_EQ(mrc_timer_wheel_advance(w, 21 * T), 1);
	CHECK_FIRED(21);

	/* The same in a single advance that covers all three rotations. */
	mrc_timer_arm(w, &x.tm, (21 + 16) * T);
	mrc_timer_arm(w, &y.tm, (21 + 8) * T);
	mrc_timer_arm(w, &z.tm, (21 + 24) * T);
	log_reset();
	MRC_T_EQ(mrc_timer_wheel_advance(w, 100 * T), 3);
	CHECK_FIRED(5, 13, 21);
	MRC_T_EQ(fired_log.tick[0], 29);
	MRC_T_EQ(fired_log.tick[1], 37);
	MRC_T_EQ(fired_log.tick[2], 45);
	free(w);
	return MRC_TEST_OK;
}

/* ---- cancel and re-arm ---- */

static int
test_cancel(void)
{
	struct mrc_timer_wheel *w = wheel_new(8, T, 0);
	struct ttimer a, b, c;

	MRC_T_ASSERT(w != NULL, "wheel");
	ttimer_init(&a, 1);
	ttimer_init(&b, 2);
	ttimer_init(&c, 3);

	/* Cancel of a never-armed timer is a no-op. */
	mrc_timer_cancel(w, &c.tm);
	MRC_T_EQ(mrc_timer_wheel_count(w), 0);
	MRC_T_ASSERT(!mrc_timer_is_armed(&c.tm), "c unarmed");

	mrc_timer_arm(w, &a.tm, 3 * T);
	mrc_timer_arm(w, &b.tm, 3 * T);
	mrc_timer_arm(w, &c.tm, 11 * T); /* same slot as a and b, next rotation */
	MRC_T_EQ(mrc_timer_wheel_count(w), 3);
	mrc_timer_cancel(w, &a.tm);
	MRC_T_ASSERT(!mrc_timer_is_armed(&a.tm), "a cancelled");
	MRC_T_EQ(mrc_timer_wheel_count(w), 2);
	/* Idempotent. */
	mrc_timer_cancel(w, &a.tm);
	MRC_T_EQ(mrc_timer_wheel_count(w), 2);

	log_reset();
	MRC_T_EQ(mrc_timer_wheel_advance(w, 3 * T), 1);
	CHECK_FIRED(2);
	/* Cancel after firing is a no-op as well. */
	mrc_timer_cancel(w, &b.tm);
	MRC_T_EQ(mrc_timer_wheel_count(w), 1);

	/* Cancelling the last timer of a slot: the slot must read empty again. */
	mrc_timer_cancel(w, &c.tm);
	MRC_T_EQ(mrc_timer_wheel_count(w), 0);
	log_reset();
	MRC_T_EQ(mrc_timer_wheel_advance(w, 1000 * T), 0);

	/* A cancelled timer can be armed again. */
	mrc_timer_arm(w, &a.tm, 1001 * T);
	MRC_T_EQ(mrc_timer_wheel_advance(w, 1001 * T), 1);
	CHECK_FIRED(1);
	free(w);
	return MRC_TEST_OK;
}

/* A callback cancels timers due later in the same advance: they never fire. */
static int
test_cancel_from_callback(void)
{
	struct mrc_timer_wheel *w = wheel_new(8, T, 0);
	struct ttimer a, b, c, d;

	MRC_T_ASSERT(w != NULL, "wheel");
	ttimer_init(&a, 1);
	ttimer_init(&b, 2);
	ttimer_init(&c, 3);
	ttimer_init(&d, 4);
	a.cancel[0] = &b; /* same tick, behind a in the FIFO */
	a.cancel[1] = &c; /* a later tick in the same advance */
	mrc_timer_arm(w, &a.tm, 2 * T);
	mrc_timer_arm(w, &b.tm, 2 * T);
	mrc_timer_arm(w, &c.tm, 4 * T);
	mrc_timer_arm(w, &d.tm, 6 * T);
	log_reset();
	MRC_T_EQ(mrc_timer_wheel_advance(w, 10 * T), 2);
	CHECK_FIRED(1, 4);
	MRC_T_EQ(mrc_timer_wheel_count(w), 0);

	/* Cancel of timers that were due (armed in the past) from a callback. */
	a.cancel[0] = &c;
	a.cancel[1] = NULL;
	mrc_timer_arm(w, &a.tm, 0);
	mrc_timer_arm(w, &c.tm, 0);
	log_reset();
	MRC_T_EQ(mrc_timer_wheel_advance(w, 10 * T), 1);
	CHECK_FIRED(1);
	MRC_T_EQ(mrc_timer_wheel_count(w), 0);
	free(w);
	return MRC_TEST_OK;
}

static int
test_rearm_moves(void)
{
	struct mrc_timer_wheel *w = wheel_new(8, T, 0);
	struct ttimer a;

	MRC_T_ASSERT(w != NULL, "wheel");
	ttimer_init(&a, 1);

	/* Later. */
	mrc_timer_arm(w, &a.tm, 3 * T);
	mrc_timer_arm(w, &a.tm, 9 * T);
	MRC_T_EQ(mrc_timer_wheel_count(w), 1);
	log_reset();
	MRC_T_EQ(mrc_timer_wheel_advance(w, 5 * T), 0);
	MRC_T_EQ(mrc_timer_wheel_advance(w, 9 * T), 1);
	CHECK_FIRED(1);

	/* Earlier: fires once, at the earlier time only. */
	mrc_timer_arm(w, &a.tm, 30 * T);
	mrc_timer_arm(w, &a.tm, 12 * T);
	log_reset();
	MRC_T_EQ(mrc_timer_wheel_advance(w, 12 * T), 1);
	MRC_T_EQ(mrc_timer_wheel_advance(w, 40 * T), 0);
	CHECK_FIRED(1);

	/* Pushed forward over and over, as an ack pushes a retransmit timer. */
	for (uint64_t now = 41 * T; now < 2000 * T; now += T) {
		mrc_timer_arm(w, &a.tm, now + 5 * T);
		MRC_T_EQ(mrc_timer_wheel_advance(w, now), 0);
	}
	MRC_T_EQ(mrc_timer_wheel_count(w), 1);
	MRC_T_EQ(mrc_timer_wheel_advance(w, 2004 * T), 1);
	free(w);
	return MRC_TEST_OK;
}

/* ---- callbacks that re-arm ---- */

/* Periodic timer re-arming at expiry + period: catches up after a jump. */
static int
test_periodic_rearm_self(void)
{
	struct mrc_timer_wheel *w = wheel_new(16, T, 0);
	struct ttimer p;

	MRC_T_ASSERT(w != NULL, "wheel");
	ttimer_init(&p, 7);
	p.period_tsc = 10 * T;
	mrc_timer_arm(w, &p.tm, 10 * T);
	log_reset();
	for (uint64_t now = 0; now <= 100 * T; now += T)
		mrc_timer_wheel_advance(w, now);
	MRC_T_EQ(fired_log.n, 10);
	for (unsigned int i = 0; i < 10; i++)
		MRC_T_EQ(fired_log.tick[i], 10 * (i + 1));
	MRC_T_ASSERT(mrc_timer_is_armed(&p.tm), "still periodic");
	MRC_T_EQ(mrc_timer_expiry_tick(&p.tm), 110);

	/* A jump of 55 ticks (several rotations) fires each period in order. */
	log_reset();
	MRC_T_EQ(mrc_timer_wheel_advance(w, 155 * T), 5);
	for (unsigned int i = 0; i < 5; i++)
		MRC_T_EQ(fired_log.tick[i], 110 + 10 * i);
	mrc_timer_cancel(w, &p.tm);
	MRC_T_EQ(mrc_timer_wheel_count(w), 0);
	free(w);
	return MRC_TEST_OK;
}

/*
 * Re-arming "now" from a callback cannot spin: at or before the tick being
 * processed it waits for the next advance; after it (but not after now) it
 * fires in this advance, behind the timers already armed for that tick.
 */
static int
test_rearm_now_from_callback(void)
{
	struct mrc_timer_wheel *w = wheel_new(8, T, 0);
	struct ttimer a, b;

	MRC_T_ASSERT(w != NULL, "wheel");
	ttimer_init(&a, 1);
	ttimer_init(&b, 2);
	a.rearm_now = true;
	mrc_timer_arm(w, &a.tm, 3 * T);
	mrc_timer_arm(w, &b.tm, 5 * T);
	log_reset();
	/* a at tick 3 re-arms for tick 5 (after b), fires there and re-arms for 5 again. */
	MRC_T_EQ(mrc_timer_wheel_advance(w, 5 * T), 3);
	CHECK_FIRED(1, 2, 1);
	MRC_T_EQ(fired_log.tick[0], 3);
	MRC_T_EQ(fired_log.tick[2], 5);
	MRC_T_ASSERT(mrc_timer_is_armed(&a.tm), "a due again");
	/* Now it is due once per call, never more. */
	log_reset();
	MRC_T_EQ(mrc_timer_wheel_advance(w, 5 * T), 1);
	MRC_T_EQ(mrc_timer_wheel_advance(w, 5 * T), 1);
	CHECK_FIRED(1, 1);
	a.rearm_now = false;
	MRC_T_EQ(mrc_timer_wheel_advance(w, 6 * T), 1);
	MRC_T_EQ(mrc_timer_wheel_count(w), 0);
	free(w);
	return MRC_TEST_OK;
}

/* A callback arming another timer within the advance's range: it fires in it, in order. */
static void
arm_later_cb(struct mrc_timer_wheel *w, struct mrc_timer *t, void *arg, uint64_t now_tsc)
{
	struct ttimer *other = arg;

	RTE_SET_USED(t);
	fired_log.id[fired_log.n] = 100;
	fired_log.tick[fired_log.n] = mrc_timer_wheel_next_tick(w) - 1;
	fired_log.now[fired_log.n] = now_tsc;
	fired_log.n++;
	mrc_timer_arm(w, &other->tm, 6 * T);
}

static int
test_arm_other_from_callback(void)
{
	struct mrc_timer_wheel *w = wheel_new(8, T, 0);
	struct mrc_timer starter;
	struct ttimer other, mid;

	MRC_T_ASSERT(w != NULL, "wheel");
	ttimer_init(&other, 6);
	ttimer_init(&mid, 5);
	mrc_timer_init(&starter, arm_later_cb, &other);
	mrc_timer_arm(w, &starter, 2 * T);
	mrc_timer_arm(w, &mid.tm, 5 * T);
	log_reset();
	MRC_T_EQ(mrc_timer_wheel_advance(w, 8 * T), 3);
	CHECK_FIRED(100, 5, 6);
	MRC_T_EQ(fired_log.tick[0], 2);
	MRC_T_EQ(fired_log.tick[2], 6);
	free(w);
	return MRC_TEST_OK;
}

static unsigned int nested_result = 12345;

static void
nested_advance_cb(struct mrc_timer_wheel *w, struct mrc_timer *t, void *arg, uint64_t now_tsc)
{
	RTE_SET_USED(t);
	RTE_SET_USED(arg);
	nested_result = mrc_timer_wheel_advance(w, now_tsc + 100 * T);
}

static int
test_nested_advance_is_noop(void)
{
	struct mrc_timer_wheel *w = wheel_new(8, T, 0);
	struct mrc_timer n;
	struct ttimer a;

	MRC_T_ASSERT(w != NULL, "wheel");
	mrc_timer_init(&n, nested_advance_cb, NULL);
	ttimer_init(&a, 1);
	mrc_timer_arm(w, &n, T);
	mrc_timer_arm(w, &a.tm, 50 * T);
	MRC_T_EQ(mrc_timer_wheel_advance(w, 2 * T), 1);
	MRC_T_EQ(nested_result, 0);
	MRC_T_ASSERT(mrc_timer_is_armed(&a.tm), "nested advance fired nothing");
	MRC_T_EQ(mrc_timer_wheel_next_tick(w), 3);
	free(w);
	return MRC_TEST_OK;
}

/* The callback frees its own timer; ASan would flag any later touch. */
static int
test_callback_frees_own_timer(void)
{
	struct mrc_timer_wheel *w = wheel_new(8, T, 0);

	MRC_T_ASSERT(w != NULL, "wheel");
	log_reset();
	for (int i = 0; i < 10; i++) {
		struct ttimer *tt = malloc(sizeof(*tt));

		MRC_T_ASSERT(tt != NULL, "alloc");
		ttimer_init(tt, i);
		tt->free_self = true;
		mrc_timer_arm(w, &tt->tm, (uint64_t)(i % 3) * T);
	}
	MRC_T_EQ(mrc_timer_wheel_advance(w, 3 * T), 10);
	CHECK_FIRED(0, 3, 6, 9, 1, 4, 7, 2, 5, 8);
	MRC_T_EQ(mrc_timer_wheel_count(w), 0);
	free(w);
	return MRC_TEST_OK;
}

/* ---- time far away ---- */

/*
 * A fake clock jumps 17 s with a 1 us tick at 3 GHz and 4096 slots (4.1 ms
 * per rotation, so ~4150 rotations): every timer fires at exactly its tick,
 * in order, and those beyond now do not.
 */
static int
test_huge_jump(void)
{
	const uint64_t hz = UINT64_C(3000000000), tick = hz / 1000000;
	const uint64_t s = hz; /* one second of cycles */
	struct mrc_timer_wheel *w = wheel_new(4096, tick, 0);
	struct {
		int id;
		uint64_t expiry_tsc;
	} arms[] = {
		{9, 17 * s},	  /* exactly now: fires */
		{10, 17 * s + 1}, /* one cycle later: tick after now */
		{3, 5 * s},
		{1, 1 * s},
		{5, 9 * s}, /* three at the same tick, FIFO: 5 6 7 */
		{4, 5 * s + tick},
		{6, 9 * s - tick + 1}, /* rounds up to 9 s */
		{11, 30 * s},
		{8, 17 * s - 1},	  /* rounds up to the 17 s tick, after 9 (FIFO) */
		{2, 1 * s + 4096 * tick}, /* same slot as 1, next rotation */
		{7, 9 * s},
	};
	struct ttimer t[RTE_DIM(arms)];

	MRC_T_ASSERT(w != NULL, "wheel");
	for (size_t i = 0; i < RTE_DIM(arms); i++) {
		ttimer_init(&t[i], arms[i].id);
		mrc_timer_arm(w, &t[i].tm, arms[i].expiry_tsc);
	}
	log_reset();
	MRC_T_EQ(mrc_timer_wheel_advance(w, 17 * s), 9);
	CHECK_FIRED(1, 2, 3, 4, 5, 6, 7, 9, 8);
	MRC_T_EQ(fired_log.tick[0], 1000000);
	MRC_T_EQ(fired_log.tick[1], 1000000 + 4096);
	MRC_T_EQ(fired_log.tick[2], 5000000);
	MRC_T_EQ(fired_log.tick[3], 5000001);
	MRC_T_EQ(fired_log.tick[4], 9000000);
	MRC_T_EQ(fired_log.tick[6], 9000000);
	MRC_T_EQ(fired_log.tick[7], 17000000);
	MRC_T_EQ(fired_log.tick[8], 17000000);
	for (unsigned int i = 0; i < fired_log.n; i++)
		MRC_T_EQ(fired_log.now[i], 17 * s);
	MRC_T_EQ(mrc_timer_wheel_count(w), 2);

	log_reset();
	MRC_T_EQ(mrc_timer_wheel_advance(w, 17 * s + tick - 1), 0);
	MRC_T_EQ(mrc_timer_wheel_advance(w, 17 * s + tick), 1);
	CHECK_FIRED(10);
	log_reset();
	MRC_T_EQ(mrc_timer_wheel_advance(w, 29 * s + 999999 * tick), 0);
	MRC_T_EQ(mrc_timer_wheel_advance(w, 30 * s), 1);
	CHECK_FIRED(11);
	free(w);
	return MRC_TEST_OK;
}

/*
 * Jumps no tick-by-tick walk could finish: 2^50 ticks (tick = 1 cycle).
 * If the wheel walked empty time, this test would not end.
 */
static int
test_astronomical_jump(void)
{
	struct mrc_timer_wheel *w = wheel_new(4096, 1, 0);
	struct ttimer a, b, c;

	MRC_T_ASSERT(w != NULL, "wheel");
	ttimer_init(&a, 1);
	ttimer_init(&b, 2);
	ttimer_init(&c, 3);
	mrc_timer_arm(w, &c.tm, UINT64_C(1) << 50);
	mrc_timer_arm(w, &a.tm, UINT64_C(1) << 40);
	mrc_timer_arm(w, &b.tm, (UINT64_C(1) << 49) + 12345);
	log_reset();
	MRC_T_EQ(mrc_timer_wheel_advance(w, UINT64_C(1) << 50), 3);
	CHECK_FIRED(1, 2, 3);
	MRC_T_EQ(fired_log.tick[1], (UINT64_C(1) << 49) + 12345);
	/* An empty wheel jumps straight to now. */
	MRC_T_EQ(mrc_timer_wheel_advance(w, UINT64_C(1) << 60), 0);
	MRC_T_EQ(mrc_timer_wheel_next_tick(w), (UINT64_C(1) << 60) + 1);
	free(w);
	return MRC_TEST_OK;
}

/* ---- the past ---- */

static int
test_armed_in_past(void)
{
	struct mrc_timer_wheel *w = wheel_new(8, T, 10 * T);
	struct ttimer a, b, c, d, e;

	MRC_T_ASSERT(w != NULL, "wheel");
	ttimer_init(&a, 1);
	ttimer_init(&b, 2);
	ttimer_init(&c, 3);
	ttimer_init(&d, 4);
	ttimer_init(&e, 5);

	/* Before the wheel's start time: due at the first advance. */
	mrc_timer_arm(w, &d.tm, 11 * T); /* in the wheel, armed first */
	mrc_timer_arm(w, &a.tm, 3 * T);
	mrc_timer_arm(w, &b.tm, 0);
	log_reset();
	/* Same tick as init: no tick processed, the due ones still fire. */
	MRC_T_EQ(mrc_timer_wheel_advance(w, 10 * T), 2);
	CHECK_FIRED(1, 2);

	/* After advance processed tick 10, "now" is the past too. */
	mrc_timer_arm(w, &c.tm, 10 * T);
	mrc_timer_arm(w, &a.tm, 9 * T + 1);
	mrc_timer_arm(w, &b.tm, 5 * T); /* later in arm order, earlier tick: still FIFO */
	MRC_T_EQ(mrc_timer_wheel_count(w), 4);
	log_reset();
	/* Overdue fire first, then the wheel's: d was armed first but is due later. */
	MRC_T_EQ(mrc_timer_wheel_advance(w, 11 * T), 4);
	CHECK_FIRED(3, 1, 2, 4);

	/* The clock going backwards fires only what is overdue. */
	mrc_timer_arm(w, &e.tm, 20 * T);
	mrc_timer_arm(w, &a.tm, 0);
	log_reset();
	MRC_T_EQ(mrc_timer_wheel_advance(w, 5 * T), 1);
	CHECK_FIRED(1);
	MRC_T_EQ(mrc_timer_wheel_next_tick(w), 12);
	MRC_T_EQ(mrc_timer_wheel_advance(w, 19 * T), 0);
	MRC_T_EQ(mrc_timer_wheel_advance(w, 20 * T), 1);
	free(w);
	return MRC_TEST_OK;
}

/* ---- randomized comparison against a reference model ---- */

/*
 * The model: per timer, NONE / WHEEL (tick, seq) / DUE (seq) / BATCH (seq:
 * due when the current advance started). seq is the global arm order. It
 * encodes the documented semantics directly:
 * - arm: tick = ceil(expiry / tick_tsc); DUE if tick < next_tick, else WHEEL;
 * - advance: first every BATCH timer in seq order, then repeatedly the WHEEL
 *   timer with the smallest (tick, seq) among tick <= tick(now); next_tick
 *   moves to tick + 1 before its callback runs; at the end next_tick is
 *   tick(now) + 1 unless the clock went backwards.
 * The real wheel fires; each callback asks the model what should fire next
 * and compares, then does random arms and cancels on both.
 */

#define RM_TIMERS 48

enum rm_state { RM_NONE, RM_WHEEL, RM_DUE, RM_BATCH };

struct rm_timer {
	struct mrc_timer tm;
	int id;
	enum rm_state state;
	uint64_t tick;
	uint64_t seq;
};

struct rm {
	struct mrc_timer_wheel *w;
	struct mrc_rand rand;
	uint32_t n_slots;
	uint64_t tick_tsc;
	uint64_t next_tick;
	uint64_t seq;
	uint64_t now_tsc;  /* the fake clock */
	uint64_t adv_tick; /* tick(now) of the advance running */
	bool callbacks_act;
	unsigned int fired;
	unsigned int failures;
	char failure[256];
	struct rm_timer t[RM_TIMERS];
};

static void
rm_fail(struct rm *m, const char *what, int id)
{
	if (m->failures++ == 0)
		snprintf(m->failure, sizeof(m->failure), "%s (timer %d, op seq %" PRIu64 ")", what,
			id, m->seq);
}

static unsigned int
rm_armed(const struct rm *m)
{
	unsigned int n = 0;

	for (int i = 0; i < RM_TIMERS; i++)
		n += m->t[i].state != RM_NONE;
	return n;
}

/* A random expiry around now: near, within a rotation, far, or past. */
static uint64_t
rm_random_expiry(struct rm *m, uint64_t now)
{
	const uint64_t rot = m->n_slots * m->tick_tsc;
	const uint64_t p = mrc_rand_bounded(&m->rand, 100);

	if (p < 35)
		return now + mrc_rand_bounded(&m->rand, 4 * m->tick_tsc);
	if (p < 55)
		return now + mrc_rand_bounded(&m->rand, rot + 1);
	if (p < 70)
		return now + mrc_rand_bounded(&m->rand, 5 * rot + 1);
	if (p < 75)
		return now + mrc_rand_bounded(&m->rand, 100 * rot + 1);
	if (p < 88) {
		const uint64_t back = mrc_rand_bounded(&m->rand, 4 * m->tick_tsc);

		return now > back ? now - back : 0;
	}
	/* A tick boundary near now. */
	return (now / m->tick_tsc + mrc_rand_bounded(&m->rand, 4)) * m->tick_tsc;
}

static void
rm_arm(struct rm *m, int i, uint64_t expiry)
{
	struct rm_timer *t = &m->t[i];

	t->tick = (expiry + m->tick_tsc - 1) / m->tick_tsc;
	t->seq = ++m->seq;
	t->state = t->tick < m->next_tick ? RM_DUE : RM_WHEEL;
	mrc_timer_arm(m->w, &t->tm, expiry);
}

static void
rm_cancel(struct rm *m, int i)
{
	m->t[i].state = RM_NONE;
	mrc_timer_cancel(m->w, &m->t[i].tm);
}

/* What the model says fires next in this advance, or NULL. */
static struct rm_timer *
rm_expected_next(struct rm *m)
{
	struct rm_timer *best = NULL;

	for (int i = 0; i < RM_TIMERS; i++) {
		struct rm_timer *t = &m->t[i];

		if (t->state == RM_BATCH && (best == NULL || t->seq < best->seq))
			best = t;
	}
	if (best != NULL)
		return best;
	for (int i = 0; i < RM_TIMERS; i++) {
		struct rm_timer *t = &m->t[i];

		if (t->state != RM_WHEEL || t->tick > m->adv_tick)
			continue;
		if (best == NULL || t->tick < best->tick ||
			(t->tick == best->tick && t->seq < best->seq))
			best = t;
	}
	return best;
}

static void
rm_cb(struct mrc_timer_wheel *w, struct mrc_timer *tm, void *arg, uint64_t now_tsc)
{
	struct rm *m = arg;
	struct rm_timer *t = container_of(tm, struct rm_timer, tm);
	struct rm_timer *want = rm_expected_next(m);

	m->fired++;
	if (now_tsc != m->now_tsc)
		rm_fail(m, "callback got the wrong now_tsc", t->id);
	if (want != t) {
		rm_fail(m, want == NULL ? "fired but nothing is due" : "fired out of order", t->id);
		return;
	}
	if (t->state == RM_WHEEL) {
		/* Fired at exactly its tick, and the wheel moved past it. */
		m->next_tick = t->tick + 1;
		if (mrc_timer_wheel_next_tick(w) != m->next_tick)
			rm_fail(m, "wheel processing the wrong tick", t->id);
	}
	t->state = RM_NONE;
	if (mrc_timer_is_armed(tm))
		rm_fail(m, "armed inside its own callback", t->id);

	if (!m->callbacks_act)
		return;
	/* Random work from inside the callback, on both sides. */
	const uint64_t p = mrc_rand_bounded(&m->rand, 100);

	if (p < 15) {
		rm_arm(m, t->id, rm_random_expiry(m, now_tsc)); /* itself */
	} else if (p < 30) {
		rm_arm(m, (int)mrc_rand_bounded(&m->rand, RM_TIMERS), rm_random_expiry(m, now_tsc));
	} else if (p < 40) {
		/* Arm into the rest of this advance: (this tick, tick(now)]. */
		const uint64_t from = m->next_tick * m->tick_tsc;

		if (from <= now_tsc)
			rm_arm(m, (int)mrc_rand_bounded(&m->rand, RM_TIMERS),
				from + mrc_rand_bounded(&m->rand, now_tsc - from + 1));
	} else if (p < 55) {
		rm_cancel(m, (int)mrc_rand_bounded(&m->rand, RM_TIMERS));
	}
}

static void
rm_advance(struct rm *m, uint64_t now)
{
	unsigned int n;

	m->now_tsc = now;
	m->adv_tick = now / m->tick_tsc;
	m->fired = 0;
	for (int i = 0; i < RM_TIMERS; i++)
		if (m->t[i].state == RM_DUE)
			m->t[i].state = RM_BATCH;
	n = mrc_timer_wheel_advance(m->w, now);
	if (n != m->fired)
		rm_fail(m, "advance return value != callbacks run", -1);
	if (rm_expected_next(m) != NULL)
		rm_fail(m, "a due timer did not fire", rm_expected_next(m)->id);
	if (m->adv_tick >= m->next_tick)
		m->next_tick = m->adv_tick + 1;
	if (mrc_timer_wheel_next_tick(m->w) != m->next_tick)
		rm_fail(m, "next_tick differs after advance", -1);
}

static int
rm_run(uint32_t n_slots, uint64_t tick_tsc, uint64_t start_tsc, uint64_t seed, int n_ops)
{
	struct rm *m = calloc(1, sizeof(*m));

	MRC_T_ASSERT(m != NULL, "alloc");
	m->w = wheel_new(n_slots, tick_tsc, start_tsc);
	MRC_T_ASSERT(m->w != NULL, "wheel");
	m->n_slots = n_slots;
	m->tick_tsc = tick_tsc;
	m->now_tsc = start_tsc;
	m->next_tick = start_tsc / tick_tsc;
	m->callbacks_act = true;
	mrc_rand_seed(&m->rand, seed);
	for (int i = 0; i < RM_TIMERS; i++) {
		m->t[i].id = i;
		mrc_timer_init(&m->t[i].tm, rm_cb, m);
	}

	const uint64_t rot = n_slots * tick_tsc;
	unsigned int total_fired = 0;

	for (int op = 0; op < n_ops && m->failures == 0; op++) {
		const uint64_t p = mrc_rand_bounded(&m->rand, 100);
		const int i = (int)mrc_rand_bounded(&m->rand, RM_TIMERS);

		if (p < 45) {
			rm_arm(m, i, rm_random_expiry(m, m->now_tsc));
		} else if (p < 60) {
			rm_cancel(m, i);
		} else {
			const uint64_t q = mrc_rand_bounded(&m->rand, 100);
			uint64_t step;

			if (q < 50)
				step = mrc_rand_bounded(&m->rand, 2 * tick_tsc + 1);
			else if (q < 80)
				step = mrc_rand_bounded(&m->rand, rot + 1);
			else if (q < 95)
				step = mrc_rand_bounded(&m->rand, 10 * rot + 1);
			else
				step = mrc_rand_bounded(&m->rand, 1000 * rot + 1);
			/* Now and then the clock steps back a little. */
			if (q == 7 && m->now_tsc > 3 * tick_tsc)
				rm_advance(m, m->now_tsc - 3 * tick_tsc);
			else
				rm_advance(m, m->now_tsc + step);
			total_fired += m->fired;
		}
		if (mrc_timer_wheel_count(m->w) != rm_armed(m))
			rm_fail(m, "armed count differs", -1);
		for (int k = 0; k < RM_TIMERS; k++)
			if (mrc_timer_is_armed(&m->t[k].tm) != (m->t[k].state != RM_NONE))
				rm_fail(m, "armed state differs", k);
	}

	/* Drain: with callbacks quiet, everything fires by the farthest expiry. */
	m->callbacks_act = false;
	if (m->failures == 0)
		rm_advance(m, m->now_tsc + 1000 * rot + 1000 * tick_tsc);
	if (m->failures == 0 && (mrc_timer_wheel_count(m->w) != 0 || rm_armed(m) != 0))
		rm_fail(m, "timers left after drain", -1);

	const unsigned int failures = m->failures;

	if (failures != 0)
		fprintf(stderr, "  slots %u tick %" PRIu64 " seed %" PRIu64 ": %s\n", n_slots,
			tick_tsc, seed, m->failure);
	free(m->w);
	free(m);
	MRC_T_EQ(failures, 0);
	/* The test exercised something. */
	MRC_T_ASSERT(total_fired > (unsigned int)n_ops / 10, "only %u fired", total_fired);
	return MRC_TEST_OK;
}

static int
test_random_vs_model(void)
{
	/* A single slot, tiny wheels, the default shape, odd ticks, a late start. */
	MRC_T_RUN(rm_run(1, 7, 0, 1, 20000));
	MRC_T_RUN(rm_run(2, 1, 0, 2, 20000));
	MRC_T_RUN(rm_run(8, 1000, 0, 3, 20000));
	MRC_T_RUN(rm_run(64, 3, 12345, 4, 20000));
	MRC_T_RUN(rm_run(128, 1000, 0, 5, 20000));
	MRC_T_RUN(rm_run(4096, 3000, UINT64_C(1) << 40, 6, 20000));
	return MRC_TEST_OK;
}

static const struct mrc_test_case cases[] = {
	MRC_TEST_CASE(test_init_arguments),
	MRC_TEST_CASE(test_fires_at_right_tick),
	MRC_TEST_CASE(test_order_across_slots),
	MRC_TEST_CASE(test_fifo_within_tick),
	MRC_TEST_CASE(test_same_slot_other_rotations),
	MRC_TEST_CASE(test_cancel),
	MRC_TEST_CASE(test_cancel_from_callback),
	MRC_TEST_CASE(test_rearm_moves),
	MRC_TEST_CASE(test_periodic_rearm_self),
	MRC_TEST_CASE(test_rearm_now_from_callback),
	MRC_TEST_CASE(test_arm_other_from_callback),
	MRC_TEST_CASE(test_nested_advance_is_noop),
	MRC_TEST_CASE(test_callback_frees_own_timer),
	MRC_TEST_CASE(test_huge_jump),
	MRC_TEST_CASE(test_astronomical_jump),
	MRC_TEST_CASE(test_armed_in_past),
	MRC_TEST_CASE(test_random_vs_model),
};

MRC_TEST_MAIN("common_timer_wheel", cases)
