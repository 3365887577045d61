/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRC_TIME_H
#define MRC_TIME_H

/*
 * TSC <-> wall-clock unit conversions.
 *
 * The datapath keeps time in TSC cycles: it reads the counter once per loop
 * iteration (rte_rdtsc()) and hands that `now_tsc` to everything below it.
 * Configuration and reports speak nanoseconds and microseconds. These helpers
 * convert between the two for a TSC frequency `hz` that the caller passes in
 * (normally rte_get_tsc_hz(), a fixed made-up value in tests). There is
 * deliberately no global clock or cached frequency here: a test drives time
 * by choosing both `now_tsc` and `hz`.
 *
 * Arithmetic: x * mul / div with a 128-bit intermediate product, so nothing
 * overflows before the division (10 years of nanoseconds is ~3.2e17 and a
 * 3 GHz TSC multiplies that by 3, past 2^64 only in the product). A quotient
 * that does not fit in 64 bits saturates to UINT64_MAX ("never") instead of
 * wrapping to a small value that would fire a timer immediately.
 *
 * Rounding: the plain functions round down (truncate), which is what you want
 * when reporting elapsed time. Converting a timeout *into* cycles should round
 * up, so that a timer armed at now_tsc + timeout never fires before the
 * timeout has passed: use the _round_up variants there.
 *
 * Cost: one 128-bit multiply and one 128-by-64 division (a libgcc call,
 * tens of cycles). Fine for arming timers and reporting; a per-packet path
 * should convert its constants once at setup and stay in cycles.
 *
 * Precondition for all: hz != 0 (rte_get_tsc_hz() is non-zero once the EAL
 * is up; it refuses to start if it cannot calibrate the TSC).
 */

#include <stdint.h>

#define MRC_NS_PER_S UINT64_C(1000000000)
#define MRC_US_PER_S UINT64_C(1000000)
#define MRC_MS_PER_S UINT64_C(1000)

/* x * mul / div, rounded down, saturated to UINT64_MAX. */
static inline uint64_t
mrc_muldiv_u64(uint64_t x, uint64_t mul, uint64_t div)
{
	unsigned __int128 q = (unsigned __int128)x * mul / div;

	return q > UINT64_MAX ? UINT64_MAX : (uint64_t)q;
}

/* x * mul / div, rounded up, saturated to UINT64_MAX. */
static inline uint64_t
mrc_muldiv_u64_round_up(uint64_t x, uint64_t mul, uint64_t div)
{
	unsigned __int128 p = (unsigned __int128)x * mul;
	unsigned __int128 q = p / div + (p % div != 0);

	return q > UINT64_MAX ? UINT64_MAX : (uint64_t)q;
}

/* Cycles -> nanoseconds, rounded down. */
static inline uint64_t
mrc_tsc_to_ns(uint64_t tsc, uint64_t hz)
{
	return mrc_muldiv_u64(tsc, MRC_NS_PER_S, hz);
}

/* Nanoseconds -> cycles, rounded down. */
static inline uint64_t
mrc_ns_to_tsc(uint64_t ns, uint64_t hz)
{
	return mrc_muldiv_u64(ns, hz, MRC_NS_PER_S);
}

/* Nanoseconds -> cycles, rounded up: for deadlines that must not come early. */
static inline uint64_t
mrc_ns_to_tsc_round_up(uint64_t ns, uint64_t hz)
{
	return mrc_muldiv_u64_round_up(ns, hz, MRC_NS_PER_S);
}

/* Cycles -> microseconds, rounded down. */
static inline uint64_t
mrc_tsc_to_us(uint64_t tsc, uint64_t hz)
{
	return mrc_muldiv_u64(tsc, MRC_US_PER_S, hz);
}

/* Microseconds -> cycles, rounded down. */
static inline uint64_t
mrc_us_to_tsc(uint64_t us, uint64_t hz)
{
	return mrc_muldiv_u64(us, hz, MRC_US_PER_S);
}

/* Microseconds -> cycles, rounded up: for deadlines that must not come early. */
static inline uint64_t
mrc_us_to_tsc_round_up(uint64_t us, uint64_t hz)
{
	return mrc_muldiv_u64_round_up(us, hz, MRC_US_PER_S);
}

#endif /* MRC_TIME_H */
