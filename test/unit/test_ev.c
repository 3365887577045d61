/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * The EV pool on a seeded PRNG and a fake clock: generation (equal split
 * per plane, distinct values, uplinks spread), the pick rotation (each
 * active EV once per rotation, new order per rotation, plane mask), the
 * lifecycle transitions (SKIP, ASSUMED_BAD, retire and replace on the same
 * plane, the floor, probing and re-admission, deny/allow), mrc_ev_find, the
 * optional statistics, memory size, and a randomized run checking the
 * pool's bookkeeping against a recount after every operation.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "mrc_ev.h"
#include "mrc_rand.h"
#include "mrc_test.h"

#define HZ	   UINT64_C(1000000000) /* fake TSC: 1 cycle = 1 ns */
#define ALL_PLANES 0xffu

static uint64_t pool_mem[8192];
static struct mrc_ev_stats stats_mem[MRC_EV_MAX_EVS];
static struct mrc_rand rnd;

/* A pool in pool_mem; NULL when cfg does not fit or init fails. */
static struct mrc_ev_pool *
pool_new(const struct mrc_ev_cfg *cfg, uint64_t seed, bool with_stats)
{
	struct mrc_ev_pool *p = (struct mrc_ev_pool *)pool_mem;
	const size_t size = mrc_ev_pool_memsize(cfg);

	if (size == 0 || size > sizeof(pool_mem))
		return NULL;
	mrc_rand_seed(&rnd, seed);
	if (mrc_ev_pool_init(p, cfg, &rnd, with_stats ? stats_mem : NULL) != 0)
		return NULL;
	return p;
}

static void
cfg_small(struct mrc_ev_cfg *cfg, uint8_t n_planes, uint16_t n_active, uint16_t n_backup,
	uint16_t min_active)
{
	mrc_ev_cfg_default(cfg, n_planes, HZ);
	cfg->n_active = n_active;
	cfg->n_backup = n_backup;
	cfg->ev_min_active = min_active;
}

static int
cmp_u32(const void *a, const void *b)
{
	const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Recount every derived figure from the slots and compare with the pool's. */
static int
check_invariants(const struct mrc_ev_pool *p)
{
	uint16_t good[MRC_EV_MAX_PLANES] = {0}, usable[MRC_EV_MAX_PLANES] = {0};
	unsigned int n_skip = 0, n_bad = 0, n_usable = 0, n_denied = 0, active_skip = 0;
	struct mrc_ev_totals tot;
	uint8_t gmask = 0, umask = 0;
	const unsigned int app = p->n_active / p->n_planes;
	const unsigned int bpp = (p->n_total - p->n_active) / p->n_planes;

	for (int s = 0; s < mrc_ev_n_slots(p); s++) {
		const enum mrc_ev_state st = mrc_ev_state(p, s);
		const unsigned int pl = mrc_ev_plane(p, s);

		MRC_T_ASSERT(pl < p->n_planes && pl < MRC_EV_MAX_PLANES, "slot %d plane %u", s, pl);
		/* Slots never change plane. */
		if (s < p->n_active)
			MRC_T_EQ(pl, (unsigned int)s / app);
		else
			MRC_T_EQ(pl, (unsigned int)(s - p->n_active) / bpp);
		MRC_T_EQ(mrc_ev_layout_plane(&p->layout, mrc_ev_value(p, s)), pl);
		MRC_T_EQ(mrc_ev_find(p, mrc_ev_value(p, s)), s);
		n_skip += st == MRC_EV_SKIP;
		n_bad += st == MRC_EV_ASSUMED_BAD;
		n_denied += st == MRC_EV_DENIED;
		if (s < p->n_active) {
			active_skip += st == MRC_EV_SKIP;
			good[pl] += st == MRC_EV_GOOD;
			if (st == MRC_EV_GOOD || st == MRC_EV_SKIP) {
				usable[pl]++;
				n_usable++;
			}
		}
	}
	for (unsigned int pl = 0; pl < p->n_planes && pl < MRC_EV_MAX_PLANES; pl++) {
		MRC_T_EQ(p->good_active[pl], good[pl]);
		MRC_T_EQ(p->usable_active[pl], usable[pl]);
		if (good[pl])
			gmask |= (uint8_t)(1u << pl);
		if (usable[pl])
			umask |= (uint8_t)(1u << pl);
	}
	MRC_T_EQ(p->good_plane_mask, gmask);
	MRC_T_EQ(p->usable_plane_mask, umask);
	MRC_T_EQ(p->n_skip, n_skip);
	MRC_T_EQ(p->n_bad, n_bad);
	MRC_T_EQ(p->n_usable_active, n_usable);
	MRC_T_EQ(p->n_denied, n_denied);
	/* The summary's totals, kept by the pool, agree with the slots. */
	mrc_ev_pool_totals(p, &tot);
	MRC_T_EQ(tot.active_skip, active_skip);
	MRC_T_EQ(tot.bad, n_bad);
	MRC_T_EQ(tot.denied, n_denied);
	MRC_T_EQ(tot.active_good + tot.active_skip, n_usable);
	return MRC_TEST_OK;
}

/* Picks until a rotation ends; returns how many picks belonged to the old one. */
static int
finish_rotation(struct mrc_ev_pool *p, uint32_t mask, int *seen, int *first_of_next)
{
	const uint64_t r0 = mrc_ev_counters(p)->rotations;
	int n = 0;

	for (;;) {
		const int s = mrc_ev_pick(p, mask, &rnd);

		if (mrc_ev_counters(p)->rotations != r0) {
			*first_of_next = s;
			return n;
		}
		if (s < 0)
			return -1;
		if (seen != NULL)
			seen[s]++;
		n++;
	}
}

/* ---- configuration ---- */

static int
expect_bad_cfg(const struct mrc_ev_cfg *cfg, const char *needle)
{
	const char *why = NULL;

	MRC_T_EQ(mrc_ev_cfg_check(cfg, &why), -EINVAL);
	MRC_T_ASSERT(why != NULL && strstr(why, needle) != NULL, "reason '%s' lacks '%s'",
		why ? why : "(null)", needle);
	MRC_T_EQ(mrc_ev_pool_memsize(cfg), 0);
	MRC_T_EQ(mrc_ev_pool_n_slots(cfg), 0);
	mrc_rand_seed(&rnd, 1);
	MRC_T_EQ(mrc_ev_pool_init((struct mrc_ev_pool *)pool_mem, cfg, &rnd, NULL), -EINVAL);
	return MRC_TEST_OK;
}

static int
test_cfg_check(void)
{
	struct mrc_ev_cfg def, c;
	const char *why = "untouched";

	mrc_ev_cfg_default(&def, 8, HZ);
	MRC_T_EQ(def.n_active, 128);
	MRC_T_EQ(def.n_backup, 32);
	MRC_T_EQ(def.ev_min_active, 32);
	MRC_T_EQ(def.skip_rotations, 1);
	MRC_T_EQ(def.probe_good_needed, 3);
	MRC_T_ASSERT(def.reshuffle, "reshuffle on by default");
	MRC_T_U64_EQ(def.probe_interval_tsc, HZ / 1000);
	MRC_T_EQ(def.layout.plane_shift, 28);
	MRC_T_EQ(def.layout.plane_bits, 4);
	MRC_T_EQ(def.layout.uplink_shift, 20);
	MRC_T_EQ(def.layout.uplink_bits, 8);
	MRC_T_EQ(mrc_ev_cfg_check(&def, &why), 0);
	MRC_T_STREQ(why, "untouched");
	MRC_T_EQ(mrc_ev_pool_n_slots(&def), 160);

	c = def, c.n_planes = 0;
	MRC_T_RUN(expect_bad_cfg(&c, "n_planes"));
	c = def, c.n_planes = 9;
	MRC_T_RUN(expect_bad_cfg(&c, "n_planes"));
	c = def, c.n_active = 100; /* not a multiple of 8 */
	MRC_T_RUN(expect_bad_cfg(&c, "n_active"));
	c = def, c.n_active = 0;
	MRC_T_RUN(expect_bad_cfg(&c, "n_active"));
	c = def, c.n_backup = 30;
	MRC_T_RUN(expect_bad_cfg(&c, "n_backup"));
	c = def, c.n_active = 4096, c.ev_min_active = 1;
	MRC_T_RUN(expect_bad_cfg(&c, "4096"));
	c = def, c.ev_min_active = 0;
	MRC_T_RUN(expect_bad_cfg(&c, "ev_min_active"));
	c = def, c.ev_min_active = 129;
	MRC_T_RUN(expect_bad_cfg(&c, "ev_min_active"));
	c = def, c.skip_rotations = 0;
	MRC_T_RUN(expect_bad_cfg(&c, "skip_rotations"));
	c = def, c.skip_rotations = 4;
	MRC_T_RUN(expect_bad_cfg(&c, "skip_rotations"));
	c = def, c.probe_good_needed = 0;
	MRC_T_RUN(expect_bad_cfg(&c, "probe_good_needed"));
	c = def, c.probe_good_needed = 16;
	MRC_T_RUN(expect_bad_cfg(&c, "probe_good_needed"));
	c = def, c.layout.plane_bits = 2; /* 4 planes at most */
	MRC_T_RUN(expect_bad_cfg(&c, "plane_bits"));
	c = def, c.layout.plane_bits = 9;
	MRC_T_RUN(expect_bad_cfg(&c, "plane_bits"));
	c = def, c.layout.uplink_bits = 17;
	MRC_T_RUN(expect_bad_cfg(&c, "uplink_bits"));
	c = def, c.layout.uplink_shift = 24; /* 24..31 overlaps the plane at 28..31 */
	MRC_T_RUN(expect_bad_cfg(&c, "overlap"));
	c = def, c.layout.plane_shift = 30;
	MRC_T_RUN(expect_bad_cfg(&c, "past bit 31"));

	/* Edge values that are fine. */
	c = def, c.n_backup = 0, c.ev_min_active = 128;
	MRC_T_EQ(mrc_ev_cfg_check(&c, NULL), 0);
	c = def, c.n_planes = 3, c.n_active = 3, c.n_backup = 0, c.ev_min_active = 1;
	MRC_T_EQ(mrc_ev_cfg_check(&c, NULL), 0);

	/* Init refuses NULL and misaligned memory. */
	mrc_rand_seed(&rnd, 1);
	MRC_T_EQ(mrc_ev_pool_init(NULL, &def, &rnd, NULL), -EINVAL);
	MRC_T_EQ(mrc_ev_pool_init((struct mrc_ev_pool *)((char *)pool_mem + 4), &def, &rnd, NULL),
		-EINVAL);
	MRC_T_EQ(mrc_ev_pool_init((struct mrc_ev_pool *)pool_mem, &def, NULL, NULL), -EINVAL);
	MRC_T_EQ(mrc_ev_pool_init((struct mrc_ev_pool *)pool_mem, NULL, &rnd, NULL), -EINVAL);
	MRC_T_STREQ(mrc_ev_state_name(MRC_EV_ASSUMED_BAD), "ASSUMED_BAD");
	MRC_T_STREQ(mrc_ev_state_name((enum mrc_ev_state)7), "?");
	return MRC_TEST_OK;
}

static int
test_memsize(void)
{
	struct mrc_ev_cfg cfg;
	size_t size;

	mrc_ev_cfg_default(&cfg, 8, HZ);
	size = mrc_ev_pool_memsize(&cfg);
	printf("  pool for 128 active + 32 backup EVs: %zu bytes (header %zu), "
	       "+ %zu bytes of optional per-EV stats (%zu each)\n",
		size, sizeof(struct mrc_ev_pool), 160 * sizeof(struct mrc_ev_stats),
		sizeof(struct mrc_ev_stats));
	MRC_T_ASSERT(size <= 1536, "pool is %zu bytes, budget 1.5 KiB", size);
	MRC_T_EQ(size % 8, 0);
	cfg.n_active = 256, cfg.n_backup = 64;
	printf("  pool for 256 active + 64 backup EVs: %zu bytes\n", mrc_ev_pool_memsize(&cfg));
	cfg.n_active = 4088, cfg.n_backup = 8;
	MRC_T_ASSERT(mrc_ev_pool_memsize(&cfg) <= sizeof(pool_mem), "largest pool fits the test");
	MRC_T_ASSERT(pool_new(&cfg, 3, true) != NULL, "largest pool inits");
	MRC_T_RUN(check_invariants((struct mrc_ev_pool *)pool_mem));
	return MRC_TEST_OK;
}

/* ---- generation ---- */

static int
test_init_split_unique_uplinks(void)
{
	struct mrc_ev_cfg cfg;
	struct mrc_ev_pool *p;
	uint32_t vals[160], start0[2];

	mrc_ev_cfg_default(&cfg, 8, HZ);
	for (int run = 0; run < 2; run++) {
		p = pool_new(&cfg, 100 + (uint64_t)run, false);
		MRC_T_ASSERT(p != NULL, "init");
		MRC_T_EQ(mrc_ev_n_slots(p), 160);
		MRC_T_RUN(check_invariants(p));
		for (unsigned int pl = 0; pl < 8; pl++) {
			struct mrc_ev_counts c;
			uint32_t up[20];

			MRC_T_EQ(mrc_ev_plane_counts(p, pl, &c), 0);
			MRC_T_EQ(c.active[MRC_EV_GOOD], 16);
			MRC_T_EQ(c.backup[MRC_EV_GOOD], 4);
			MRC_T_EQ(c.active[MRC_EV_SKIP] + c.active[MRC_EV_ASSUMED_BAD] +
					 c.active[MRC_EV_DENIED],
				0);
			/* Active slots first then backups: consecutive uplinks mod 256. */
			for (int k = 0; k < 20; k++) {
				const int s =
					k < 16 ? (int)pl * 16 + k : 128 + (int)pl * 4 + (k - 16);

				up[k] = mrc_ev_layout_uplink(&cfg.layout, mrc_ev_value(p, s));
				MRC_T_EQ(up[k], (up[0] + (uint32_t)k) & 0xff);
			}
			if (pl == 0)
				start0[run] = up[0];
			/* Any T1 count gets a near-equal share of the active EVs. */
			for (unsigned int n_t1 = 1; n_t1 <= 16; n_t1++) {
				unsigned int per_t1[16] = {0}, lo = 99, hi = 0;

				for (int k = 0; k < 16; k++)
					per_t1[up[k] % n_t1]++;
				for (unsigned int t = 0; t < n_t1; t++) {
					lo = RTE_MIN(lo, per_t1[t]);
					hi = RTE_MAX(hi, per_t1[t]);
				}
				MRC_T_ASSERT(
					hi - lo <= 2, "n_t1 %u: %u..%u EVs per T1", n_t1, lo, hi);
				if (256 % n_t1 == 0)
					MRC_T_ASSERT(hi - lo <= 1, "n_t1 %u: %u..%u", n_t1, lo, hi);
			}
		}
		for (int s = 0; s < 160; s++)
			vals[s] = mrc_ev_value(p, s);
		qsort(vals, 160, sizeof(vals[0]), cmp_u32);
		for (int s = 1; s < 160; s++)
			MRC_T_ASSERT(vals[s] != vals[s - 1], "duplicate EV %08x", vals[s]);
		/* The random bits are random: not all the same. */
		unsigned int same_low = 0;

		for (int s = 1; s < 160; s++)
			same_low +=
				(mrc_ev_value(p, s) & 0xfffff) == (mrc_ev_value(p, 0) & 0xfffff);
		MRC_T_ASSERT(same_low < 3, "%u EVs share EV 0's random bits", same_low);
	}
	/* Two QPs (seeds) choose different uplink subsets. */
	MRC_T_ASSERT(start0[0] != start0[1], "both seeds start plane 0 at uplink %u", start0[0]);

	/* Same seed, same pool. */
	p = pool_new(&cfg, 100, false);
	for (int s = 0; s < 160; s++)
		vals[s] = mrc_ev_value(p, s);
	p = pool_new(&cfg, 100, false);
	for (int s = 0; s < 160; s++)
		MRC_T_EQ(mrc_ev_value(p, s), vals[s]);
	return MRC_TEST_OK;
}

/* Narrow layouts: one plane with no plane bits, no uplink bits; uniqueness from random bits. */
static int
test_init_narrow_layouts(void)
{
	struct mrc_ev_cfg cfg;
	struct mrc_ev_pool *p;

	cfg_small(&cfg, 1, 64, 16, 8);
	cfg.layout = (struct mrc_ev_layout){0, 0, 0, 0};
	p = pool_new(&cfg, 5, false);
	MRC_T_ASSERT(p != NULL, "init");
	MRC_T_RUN(check_invariants(p));

	/* 16 uplink values for 80 EVs per plane: every uplink used 5 times, random bits differ. */
	cfg_small(&cfg, 2, 128, 32, 8);
	cfg.layout = (struct mrc_ev_layout){
		.plane_shift = 0, .plane_bits = 1, .uplink_shift = 1, .uplink_bits = 4};
	p = pool_new(&cfg, 6, false);
	MRC_T_ASSERT(p != NULL, "init");
	MRC_T_RUN(check_invariants(p));
	for (unsigned int pl = 0; pl < 2; pl++) {
		unsigned int per_uplink[16] = {0};

		for (int s = 0; s < 160; s++)
			if (mrc_ev_plane(p, s) == pl)
				per_uplink[mrc_ev_layout_uplink(&cfg.layout, mrc_ev_value(p, s))]++;
		for (int u = 0; u < 16; u++)
			MRC_T_EQ(per_uplink[u], 5);
	}

	/* Three planes (not a power of two). */
	cfg_small(&cfg, 3, 24, 6, 2);
	p = pool_new(&cfg, 7, false);
	MRC_T_ASSERT(p != NULL, "init");
	MRC_T_RUN(check_invariants(p));
	MRC_T_EQ(mrc_ev_plane(p, 8), 1);
	MRC_T_EQ(mrc_ev_plane(p, 26), 1);
	MRC_T_EQ(mrc_ev_plane(p, 28), 2);
	return MRC_TEST_OK;
}

/* EVs per plane to try: every count to 48, then doubling, then the largest. */
static unsigned int
next_size(unsigned int pp, unsigned int max)
{
	if (pp < 48)
		return pp + 1;
	if (pp == max)
		return max + 1;
	return pp * 2 < max ? pp * 2 : max;
}

/*
 * EV values are made from (plane, k), not stored: for every layout shape
 * and a sweep of pool sizes up to the largest the configuration allows,
 * every value is distinct, carries its plane, and mrc_ev_find() turns it
 * back into its slot; a value the pool did not make is never taken for one
 * it did.
 */
static int
test_values_derived_invertible(void)
{
	static const struct mrc_ev_layout layouts[] = {
		MRC_EV_LAYOUT_DEFAULT,
		{.plane_shift = 0, .plane_bits = 3, .uplink_shift = 3, .uplink_bits = 4},
		/* random bits in three runs: 0-7, 11-19, 24-31 */
		{.plane_shift = 8, .plane_bits = 3, .uplink_shift = 20, .uplink_bits = 4},
		{.plane_shift = 29, .plane_bits = 3, .uplink_shift = 13, .uplink_bits = 16},
		{.plane_shift = 28, .plane_bits = 4, .uplink_shift = 0, .uplink_bits = 0},
		/* the fewest random bits a layout can leave: 8 */
		{.plane_shift = 0, .plane_bits = 8, .uplink_shift = 8, .uplink_bits = 16},
	};
	static uint32_t vals[MRC_EV_MAX_EVS];
	unsigned int pools = 0;

	for (unsigned int li = 0; li < RTE_DIM(layouts); li++) {
		for (uint8_t np = 1; np <= MRC_EV_MAX_PLANES; np++) {
			const unsigned int max = MRC_EV_MAX_EVS / np;

			for (unsigned int pp = 1; pp <= max; pp = next_size(pp, max)) {
				const unsigned int apl = pp - pp / 4;
				struct mrc_ev_cfg cfg;
				struct mrc_ev_pool *p;

				cfg_small(&cfg, np, (uint16_t)(np * apl),
					(uint16_t)(np * (pp - apl)), 1);
				cfg.layout = layouts[li];
				if (mrc_ev_cfg_check(&cfg, NULL) != 0)
					continue;
				p = pool_new(&cfg, 1000 + pp * 8 + np, false);
				MRC_T_ASSERT(
					p != NULL, "layout %u, %u planes x %u EVs", li, np, pp);
				pools++;
				for (int s = 0; s < mrc_ev_n_slots(p); s++) {
					vals[s] = mrc_ev_value(p, s);
					MRC_T_EQ(mrc_ev_layout_plane(&cfg.layout, vals[s]),
						mrc_ev_plane(p, s));
					MRC_T_ASSERT(mrc_ev_find(p, vals[s]) == s,
						"layout %u, %u planes x %u: slot %d (%08x) found "
						"as %d",
						li, np, pp, s, vals[s], mrc_ev_find(p, vals[s]));
				}
				qsort(vals, (size_t)mrc_ev_n_slots(p), sizeof(vals[0]), cmp_u32);
				for (int s = 1; s < mrc_ev_n_slots(p); s++)
					MRC_T_ASSERT(vals[s] != vals[s - 1],
						"layout %u, %u x %u: %08x twice", li, np, pp,
						vals[s]);
				/* Strangers: a neighbour of each value, and random values. */
				for (int s = 0; s < mrc_ev_n_slots(p); s++) {
					const uint32_t v = vals[s] ^ (1u << (s % 32));
					const int f = mrc_ev_find(p, v);

					MRC_T_ASSERT(f < 0 || mrc_ev_value(p, f) == v,
						"%08x found as %d", v, f);
				}
				for (int i = 0; i < 64; i++) {
					const uint32_t v = mrc_rand_u32(&rnd);
					const int f = mrc_ev_find(p, v);

					mrc_ev_prefetch_find(
						p, v); /* a stranger's: no line asked for */

					MRC_T_ASSERT(f < 0 || mrc_ev_value(p, f) == v,
						"%08x found as %d", v, f);
				}
			}
		}
	}
	printf("  %u pool shapes: every EV distinct and found back\n", pools);
	MRC_T_ASSERT(pools > 1000, "only %u shapes tried", pools);
	return MRC_TEST_OK;
}

/* ---- picking ---- */

static int
test_pick_rotation_each_once(void)
{
	struct mrc_ev_cfg cfg;
	struct mrc_ev_pool *p;
	int order[2][128], total[128] = {0};
	unsigned int n_changed = 0;

	mrc_ev_cfg_default(&cfg, 8, HZ);
	p = pool_new(&cfg, 11, false);
	MRC_T_ASSERT(p != NULL, "init");
	for (int r = 0; r < 50; r++) {
		int seen[128] = {0};
		int *cur = order[r & 1], *prev = order[(r + 1) & 1];

		for (int i = 0; i < 128; i++) {
			const int s = mrc_ev_pick(p, ALL_PLANES, &rnd);

			MRC_T_ASSERT(mrc_ev_slot_is_active(p, s), "pick %d: slot %d", i, s);
			seen[s]++;
			total[s]++;
			cur[i] = s;
		}
		for (int s = 0; s < 128; s++)
			MRC_T_EQ(seen[s], 1);
		/* Lazily: a rotation ends at the pick after its last one. */
		MRC_T_EQ(mrc_ev_counters(p)->rotations, (uint64_t)r);
		if (r > 0 && memcmp(cur, prev, sizeof(order[0])) != 0)
			n_changed++;
	}
	MRC_T_EQ(n_changed, 49);
	for (int s = 0; s < 128; s++)
		MRC_T_EQ(total[s], 50);
	/* Consecutive picks are spread: the first 16 of a rotation are not one plane. */
	MRC_T_EQ(mrc_ev_counters(p)->pick_none, 0);

	/* Without reshuffle the (initially shuffled) order repeats. */
	cfg.reshuffle = false;
	p = pool_new(&cfg, 11, false);
	for (int r = 0; r < 3; r++) {
		int *cur = order[r & 1];

		for (int i = 0; i < 128; i++)
			cur[i] = mrc_ev_pick(p, ALL_PLANES, &rnd);
		if (r > 0)
			MRC_T_MEMEQ(order[0], order[1], sizeof(order[0]));
	}
	bool identity = true;

	for (int i = 0; i < 128; i++)
		identity &= order[0][i] == i;
	MRC_T_ASSERT(!identity, "the first order is shuffled too");
	return MRC_TEST_OK;
}

/*
 * The peek hint (mrc_ev_prefetch_pick) names the slot the next pick
 * returns whenever nothing changed in between, and stays a valid slot
 * whatever did change: a worker prefetches through it.
 */
static int
test_pick_peek(void)
{
	struct mrc_ev_cfg cfg;
	struct mrc_ev_pool *p;
	unsigned int hits = 0;

	mrc_ev_cfg_default(&cfg, 8, HZ);
	cfg.reshuffle = false; /* the order repeats: the peek holds across rotation ends too */
	p = pool_new(&cfg, 17, false);
	MRC_T_ASSERT(p != NULL, "init");
	for (int i = 0; i < 3 * 128; i++) {
		const unsigned int peek = p->peek;

		MRC_T_EQ(mrc_ev_pick(p, ALL_PLANES, &rnd), (int)peek);
	}
	cfg.reshuffle = true;
	p = pool_new(&cfg, 17, false);
	for (int i = 0; i < 3 * 128; i++) {
		const unsigned int peek = p->peek;
		const int s = mrc_ev_pick(p, ALL_PLANES, &rnd);

		/* within a rotation: its end reshuffles after the peek was taken */
		if (i % 128 != 0)
			MRC_T_ASSERT(s == (int)peek, "pick %d: %d, peek %u", i, s, peek);
	}
	/*
	 * Losses retire EVs (passed over by the pick) and bring backups into
	 * the order: the peek goes stale now and then, but stays a slot.
	 */
	for (int i = 0; i < 4 * 128; i++) {
		const unsigned int peek = p->peek;
		const int s = mrc_ev_pick(p, ALL_PLANES, &rnd);

		MRC_T_ASSERT(s >= 0, "pick %d", i);
		if (i % 5 == 0)
			MRC_T_EQ(mrc_ev_on_loss(p, s), 0);
		MRC_T_ASSERT(p->peek < p->n_total, "peek %u", p->peek);
		hits += s == (int)peek;
	}
	MRC_T_ASSERT(hits > 256, "the peek named the next pick %u times of 512", hits);
	return MRC_TEST_OK;
}

static int
test_pick_plane_mask(void)
{
	struct mrc_ev_cfg cfg;
	struct mrc_ev_pool *p;
	int seen[128] = {0}, first = -1;
	const uint32_t no3 = ALL_PLANES & ~(1u << 3);

	mrc_ev_cfg_default(&cfg, 8, HZ);
	p = pool_new(&cfg, 12, false);
	/* Mid-rotation, plane 3 goes away: not one more pick lands on it. */
	for (int i = 0; i < 5; i++)
		MRC_T_ASSERT(mrc_ev_pick(p, ALL_PLANES, &rnd) >= 0, "pick");
	finish_rotation(p, no3, NULL, &first);
	MRC_T_ASSERT(first >= 0 && mrc_ev_plane(p, first) != 3, "first of rotation 2: %d", first);
	seen[first]++;
	/* 10 whole rotations without plane 3: 112 picks each, every other EV once per rotation. */
	for (int i = 0; i < 10 * 112 - 1; i++) {
		const int s = mrc_ev_pick(p, no3, &rnd);

		MRC_T_ASSERT(s >= 0 && mrc_ev_plane(p, s) != 3, "pick %d: slot %d", i, s);
		seen[s]++;
	}
	MRC_T_EQ(mrc_ev_counters(p)->rotations, 10);
	for (int s = 0; s < 128; s++)
		MRC_T_EQ(seen[s], s / 16 == 3 ? 0 : 10);
	/* Plane 3 back: it is used again within the next rotation. */
	bool plane3 = false;

	for (int i = 0; i < 2 * 128 && !plane3; i++)
		plane3 = mrc_ev_plane(p, mrc_ev_pick(p, ALL_PLANES, &rnd)) == 3;
	MRC_T_ASSERT(plane3, "plane 3 used again");

	/* Nothing allowed: -1 at once, counted, cursor untouched. */
	const uint16_t cursor = p->cursor;

	MRC_T_EQ(mrc_ev_pick(p, 0, &rnd), -1);
	MRC_T_EQ(mrc_ev_pick(p, 0xff00, &rnd), -1); /* planes the pool does not have */
	MRC_T_EQ(mrc_ev_counters(p)->pick_none, 2);
	MRC_T_EQ(p->cursor, cursor);
	/* Only plane 5: every pick is plane 5. */
	for (int i = 0; i < 300; i++)
		MRC_T_EQ(mrc_ev_plane(p, mrc_ev_pick(p, 1u << 5, &rnd)), 5);
	return MRC_TEST_OK;
}

static int
test_skip_once_and_trimmed(void)
{
	struct mrc_ev_cfg cfg;
	struct mrc_ev_pool *p;
	int seen[128] = {0}, first = -1, t = -1, n;

	mrc_ev_cfg_default(&cfg, 8, HZ);
	p = pool_new(&cfg, 13, true);
	const int s1 = mrc_ev_pick(p, ALL_PLANES, &rnd);

	seen[s1]++;
	MRC_T_EQ(mrc_ev_on_sack(p, s1, MRC_SACK_M_SKIP_ONCE, 0), 0);
	MRC_T_EQ(mrc_ev_state(p, s1), MRC_EV_SKIP);
	MRC_T_EQ(mrc_ev_slot_stats(p, s1)->ecn_echoes, 1);
	/* An EV not yet used in this rotation gets a trimmed NACK: it sits this rotation out. */
	for (int s = 0; s < 128 && t < 0; s++)
		if (s != s1)
			t = s;
	MRC_T_EQ(mrc_ev_on_nack(p, t, MRC_NACK_TRIMMED), 0);
	MRC_T_EQ(mrc_ev_state(p, t), MRC_EV_SKIP);
	MRC_T_EQ(mrc_ev_slot_stats(p, t)->nacks[MRC_EV_NACK_IDX_TRIMMED], 1);
	MRC_T_EQ(mrc_ev_counters(p)->skips, 2);
	MRC_T_EQ(mrc_ev_n_usable_active(p), 128); /* SKIP is usable */
	MRC_T_RUN(check_invariants(p));
	n = finish_rotation(p, ALL_PLANES, seen, &first);
	MRC_T_EQ(n, 126);
	MRC_T_EQ(seen[s1], 1);
	MRC_T_EQ(seen[t], 0);
	/* Rotation over: both GOOD, and the next rotation uses them. */
	MRC_T_EQ(mrc_ev_state(p, s1), MRC_EV_GOOD);
	MRC_T_EQ(mrc_ev_state(p, t), MRC_EV_GOOD);
	memset(seen, 0, sizeof(seen));
	seen[first]++;
	MRC_T_EQ(finish_rotation(p, ALL_PLANES, seen, &first), 127);
	MRC_T_EQ(seen[s1], 1);
	MRC_T_EQ(seen[t], 1);

	/* TRIMMED_LASTHOP blames the destination, not the path; other NACKs only count. */
	MRC_T_EQ(mrc_ev_on_nack(p, 7, MRC_NACK_TRIMMED_LASTHOP), 0);
	MRC_T_EQ(mrc_ev_on_nack(p, 7, MRC_NACK_NO_BITMAP), 0);
	MRC_T_EQ(mrc_ev_on_nack(p, 7, MRC_NACK_PSN_OOR_WINDOW), 0);
	MRC_T_EQ(mrc_ev_on_nack(p, 7, 0x55), 0);
	MRC_T_EQ(mrc_ev_on_sack(p, 7, MRC_SACK_M_NONE, 0), 0);
	MRC_T_EQ(mrc_ev_state(p, 7), MRC_EV_GOOD);
	const struct mrc_ev_stats *st = mrc_ev_slot_stats(p, 7);

	MRC_T_EQ(st->nacks[MRC_EV_NACK_IDX_TRIMMED_LASTHOP], 1);
	MRC_T_EQ(st->nacks[MRC_EV_NACK_IDX_NO_BITMAP], 1);
	MRC_T_EQ(st->nacks[MRC_EV_NACK_IDX_PSN_OOR_WINDOW], 1);
	MRC_T_EQ(st->nacks[MRC_EV_NACK_IDX_OTHER], 1);
	MRC_T_EQ(st->acks, 1);
	MRC_T_EQ(mrc_ev_nack_idx(MRC_NACK_UNEXP_EVENT), MRC_EV_NACK_IDX_UNEXP_EVENT);

	/* skip_rotations = 2: a SKIP survives one rotation end, not two. */
	cfg.skip_rotations = 2;
	p = pool_new(&cfg, 14, false);
	MRC_T_EQ(mrc_ev_on_sack(p, 9, MRC_SACK_M_SKIP_ONCE, 0), 0);
	finish_rotation(p, ALL_PLANES, NULL, &first);
	MRC_T_EQ(mrc_ev_state(p, 9), MRC_EV_SKIP);
	finish_rotation(p, ALL_PLANES, NULL, &first);
	MRC_T_EQ(mrc_ev_state(p, 9), MRC_EV_GOOD);
	return MRC_TEST_OK;
}

/* Every allowed EV is SKIP: the rotation ends early instead of stalling forever. */
static int
test_only_skips_end_rotation(void)
{
	struct mrc_ev_cfg cfg;
	struct mrc_ev_pool *p;

	cfg_small(&cfg, 2, 4, 0, 1);
	p = pool_new(&cfg, 15, false);
	for (int s = 0; s < 4; s++)
		mrc_ev_on_sack(p, s, MRC_SACK_M_SKIP_ONCE, 0);
	MRC_T_ASSERT(mrc_ev_pick(p, ALL_PLANES, &rnd) >= 0, "pick after forced rotation end");
	MRC_T_EQ(mrc_ev_counters(p)->rotations, 1);
	MRC_T_RUN(check_invariants(p));

	cfg.skip_rotations = 2;
	p = pool_new(&cfg, 15, false);
	for (int s = 0; s < 4; s++)
		mrc_ev_on_sack(p, s, MRC_SACK_M_SKIP_ONCE, 0);
	MRC_T_EQ(mrc_ev_pick(p, ALL_PLANES, &rnd), -1);
	MRC_T_ASSERT(mrc_ev_pick(p, ALL_PLANES, &rnd) >= 0, "pick after two rotation ends");
	MRC_T_EQ(mrc_ev_counters(p)->rotations, 2);
	/* Only plane 1 allowed, plane 1 all SKIP, plane 0 GOOD: still ends early for plane 1. */
	p = pool_new(&cfg, 15, false);
	mrc_ev_on_sack(p, 2, MRC_SACK_M_SKIP_ONCE, 0);
	mrc_ev_on_sack(p, 3, MRC_SACK_M_SKIP_ONCE, 0);
	MRC_T_EQ(mrc_ev_pick(p, 1u << 1, &rnd), -1);
	MRC_T_EQ(mrc_ev_plane(p, mrc_ev_pick(p, 1u << 1, &rnd)), 1);
	return MRC_TEST_OK;
}

/* ---- loss, replacement, floor ---- */

static int
test_loss_replaced_same_plane(void)
{
	struct mrc_ev_cfg cfg;
	struct mrc_ev_pool *p;
	struct mrc_ev_counts c;

	mrc_ev_cfg_default(&cfg, 8, HZ);
	p = pool_new(&cfg, 16, true);
	const int s = mrc_ev_pick(p, ALL_PLANES, &rnd);
	const unsigned int pl = mrc_ev_plane(p, s);
	const uint32_t lost = mrc_ev_value(p, s);
	const uint32_t first_backup = mrc_ev_value(p, 128 + (int)pl * 4);

	mrc_ev_on_tx(p, s, 4096);
	MRC_T_EQ(mrc_ev_on_loss(p, s), 0);
	/* At once: the slot holds a GOOD EV of the same plane, the first backup. */
	MRC_T_EQ(mrc_ev_state(p, s), MRC_EV_GOOD);
	MRC_T_EQ(mrc_ev_plane(p, s), pl);
	MRC_T_EQ(mrc_ev_value(p, s), first_backup);
	/* The lost EV waits in that backup slot, ASSUMED_BAD, still findable; stats followed it. */
	const int b = mrc_ev_find(p, lost);

	MRC_T_EQ(b, 128 + (int)pl * 4);
	MRC_T_EQ(mrc_ev_state(p, b), MRC_EV_ASSUMED_BAD);
	MRC_T_EQ(mrc_ev_slot_stats(p, b)->losses, 1);
	MRC_T_EQ(mrc_ev_slot_stats(p, b)->tx_bytes, 4096);
	MRC_T_EQ(mrc_ev_slot_stats(p, b)->state_changes, 1);
	MRC_T_EQ(mrc_ev_slot_stats(p, s)->losses, 0);
	MRC_T_EQ(mrc_ev_counters(p)->retired, 1);
	for (unsigned int q = 0; q < 8; q++) {
		MRC_T_EQ(mrc_ev_plane_counts(p, q, &c), 0);
		MRC_T_EQ(c.active[MRC_EV_GOOD], 16);
		MRC_T_EQ(c.backup[MRC_EV_GOOD], q == pl ? 3 : 4);
		MRC_T_EQ(c.backup[MRC_EV_ASSUMED_BAD], q == pl ? 1 : 0);
	}
	MRC_T_EQ(mrc_ev_plane_counts(p, 8, &c), -EINVAL);
	MRC_T_RUN(check_invariants(p));
	/* Late feedback for the lost EV only counts. */
	MRC_T_EQ(mrc_ev_on_sack(p, b, MRC_SACK_M_SKIP_ONCE, 0), 0);
	MRC_T_EQ(mrc_ev_on_loss(p, b), 0);
	MRC_T_EQ(mrc_ev_state(p, b), MRC_EV_ASSUMED_BAD);
	MRC_T_EQ(mrc_ev_counters(p)->retired, 1);

	/* ALWAYS_SKIP retires the same way. */
	const uint32_t v2 = mrc_ev_value(p, 100);

	MRC_T_EQ(mrc_ev_on_sack(p, 100, MRC_SACK_M_ALWAYS_SKIP, 0), 0);
	MRC_T_EQ(mrc_ev_state(p, mrc_ev_find(p, v2)), MRC_EV_ASSUMED_BAD);
	MRC_T_ASSERT(mrc_ev_find(p, v2) >= 128, "retired EV in a backup slot");
	MRC_T_EQ(mrc_ev_state(p, 100), MRC_EV_GOOD);
	MRC_T_EQ(mrc_ev_slot_stats(p, mrc_ev_find(p, v2))->always_skips, 1);
	MRC_T_EQ(mrc_ev_counters(p)->retired, 2);
	/* A SKIP EV lost is retired too. */
	mrc_ev_on_nack(p, 40, MRC_NACK_TRIMMED);
	MRC_T_EQ(mrc_ev_on_loss(p, 40), 0);
	MRC_T_EQ(mrc_ev_state(p, 40), MRC_EV_GOOD);
	MRC_T_EQ(mrc_ev_counters(p)->retired, 3);
	MRC_T_RUN(check_invariants(p));
	return MRC_TEST_OK;
}

static int
test_backups_exhausted(void)
{
	struct mrc_ev_cfg cfg;
	struct mrc_ev_pool *p;
	struct mrc_ev_counts c;
	int seen[128] = {0}, first = -1;

	mrc_ev_cfg_default(&cfg, 8, HZ);
	p = pool_new(&cfg, 17, false);
	for (int s = 0; s < 4; s++)
		MRC_T_EQ(mrc_ev_on_loss(p, s), 0);
	MRC_T_EQ(mrc_ev_counters(p)->retired, 4);
	MRC_T_EQ(mrc_ev_plane_counts(p, 0, &c), 0);
	MRC_T_EQ(c.active[MRC_EV_GOOD], 16);
	MRC_T_EQ(c.backup[MRC_EV_ASSUMED_BAD], 4);
	/* Plane 0 has no backup left: slot 4 stays ASSUMED_BAD, out of rotation. */
	MRC_T_EQ(mrc_ev_on_loss(p, 4), 0);
	MRC_T_EQ(mrc_ev_state(p, 4), MRC_EV_ASSUMED_BAD);
	MRC_T_EQ(mrc_ev_counters(p)->no_backup, 1);
	MRC_T_EQ(mrc_ev_n_usable_active(p), 127);
	MRC_T_EQ(mrc_ev_plane_counts(p, 0, &c), 0);
	MRC_T_EQ(c.active[MRC_EV_GOOD], 15);
	MRC_T_EQ(c.active[MRC_EV_ASSUMED_BAD], 1);
	finish_rotation(p, ALL_PLANES, NULL, &first);
	seen[first]++;
	MRC_T_EQ(finish_rotation(p, ALL_PLANES, seen, &first), 126);
	MRC_T_EQ(seen[4], 0);
	MRC_T_RUN(check_invariants(p));
	return MRC_TEST_OK;
}

static int
test_floor(void)
{
	struct mrc_ev_cfg cfg;
	struct mrc_ev_pool *p;

	cfg_small(&cfg, 2, 8, 0, 3);
	p = pool_new(&cfg, 18, false);
	for (int s = 0; s < 5; s++)
		MRC_T_EQ(mrc_ev_on_loss(p, s), 0);
	MRC_T_EQ(mrc_ev_n_usable_active(p), 3);
	MRC_T_EQ(mrc_ev_counters(p)->floor_holds, 0);
	/* A sixth loss would leave 2 < 3: held, the EV stays in use. */
	MRC_T_EQ(mrc_ev_on_loss(p, 5), 0);
	MRC_T_EQ(mrc_ev_state(p, 5), MRC_EV_GOOD);
	MRC_T_EQ(mrc_ev_counters(p)->floor_holds, 1);
	/* ALWAYS_SKIP and a loss on a SKIP EV are held too; the SKIP stays SKIP. */
	MRC_T_EQ(mrc_ev_on_sack(p, 6, MRC_SACK_M_ALWAYS_SKIP, 0), 0);
	MRC_T_EQ(mrc_ev_state(p, 6), MRC_EV_GOOD);
	mrc_ev_on_nack(p, 7, MRC_NACK_TRIMMED);
	MRC_T_EQ(mrc_ev_on_loss(p, 7), 0);
	MRC_T_EQ(mrc_ev_state(p, 7), MRC_EV_SKIP);
	MRC_T_EQ(mrc_ev_counters(p)->floor_holds, 3);
	MRC_T_EQ(mrc_ev_n_usable_active(p), 3);
	/* The operator is not bound by the floor. */
	MRC_T_EQ(mrc_ev_deny(p, 5), 0);
	MRC_T_EQ(mrc_ev_state(p, 5), MRC_EV_DENIED);
	MRC_T_EQ(mrc_ev_n_usable_active(p), 2);
	MRC_T_RUN(check_invariants(p));

	/* With backups, losses past the floor are fine: the usable count does not drop. */
	cfg_small(&cfg, 2, 8, 8, 8);
	p = pool_new(&cfg, 19, false);
	for (int s = 0; s < 8; s++)
		MRC_T_EQ(mrc_ev_on_loss(p, s), 0);
	MRC_T_EQ(mrc_ev_counters(p)->retired, 8);
	MRC_T_EQ(mrc_ev_counters(p)->floor_holds, 0);
	MRC_T_EQ(mrc_ev_n_usable_active(p), 8);
	MRC_T_EQ(mrc_ev_on_loss(p, 0), 0); /* no backup left: now the floor holds */
	MRC_T_EQ(mrc_ev_counters(p)->floor_holds, 1);
	return MRC_TEST_OK;
}

/* ---- probing and re-admission ---- */

/*
 * readmit_all: every ASSUMED_BAD EV, active or backup, is GOOD again at once
 * (a backup moves into its plane's short active set); DENIED stays out.
 */
static int
test_readmit_all(void)
{
	struct mrc_ev_cfg cfg;
	struct mrc_ev_pool *p;
	struct mrc_ev_counts c;

	/* 2 planes x 4 active + 2 backups each, floor 2. */
	cfg_small(&cfg, 2, 8, 4, 2);
	p = pool_new(&cfg, 23, false);
	MRC_T_EQ(mrc_ev_readmit_all(p), 0);
	/* Plane 0 loses everything: 2 retirements into its backups, then 4 without backup. */
	for (int round = 0; round < 2; round++)
		for (int s = 0; s < 4; s++)
			MRC_T_EQ(mrc_ev_on_loss(p, s), 0);
	MRC_T_EQ(mrc_ev_plane_counts(p, 0, &c), 0);
	MRC_T_EQ(c.active[MRC_EV_ASSUMED_BAD], 4);
	MRC_T_EQ(c.backup[MRC_EV_ASSUMED_BAD], 2);
	/* Plane 1 down to the floor: two retired, then held. */
	for (int round = 0; round < 2; round++)
		for (int s = 4; s < 8; s++)
			MRC_T_EQ(mrc_ev_on_loss(p, s), 0);
	MRC_T_EQ(mrc_ev_n_usable_active(p), 2);
	MRC_T_ASSERT(mrc_ev_counters(p)->floor_holds > 0, "the floor held");
	MRC_T_EQ(mrc_ev_deny(p, 4 + 4 + 2), 0); /* a backup of plane 1 (slot 10): the operator's */
	const int bad = (int)p->n_bad;

	MRC_T_EQ(mrc_ev_readmit_all(p), bad);
	MRC_T_EQ(mrc_ev_counters(p)->stall_readmitted, (uint64_t)bad);
	MRC_T_EQ(mrc_ev_n_usable_active(p), 8);
	for (unsigned int pl = 0; pl < 2; pl++) {
		MRC_T_EQ(mrc_ev_plane_counts(p, pl, &c), 0);
		MRC_T_EQ(c.active[MRC_EV_GOOD], 4);
		MRC_T_EQ(c.active[MRC_EV_ASSUMED_BAD] + c.backup[MRC_EV_ASSUMED_BAD], 0);
	}
	MRC_T_EQ(mrc_ev_plane_counts(p, 1, &c), 0);
	MRC_T_EQ(c.backup[MRC_EV_DENIED], 1);
	MRC_T_EQ(mrc_ev_readmit_all(p), 0);
	MRC_T_RUN(check_invariants(p));
	return MRC_TEST_OK;
}

static int
test_probe_round_robin(void)
{
	struct mrc_ev_cfg cfg;
	struct mrc_ev_pool *p;
	const int lost_slots[3] = {60, 20, 40};
	uint32_t lost[3];
	int want[3];
	const uint64_t t0 = 5000, iv = HZ / 1000;

	mrc_ev_cfg_default(&cfg, 8, HZ);
	p = pool_new(&cfg, 20, true);
	MRC_T_EQ(mrc_ev_probe_due(p, t0), -1); /* nothing to probe */
	for (int i = 0; i < 3; i++) {
		lost[i] = mrc_ev_value(p, lost_slots[i]);
		mrc_ev_on_loss(p, lost_slots[i]);
	}
	/* Round-robin = slot order: planes 1, 2, 3 -> backup slots 132, 136, 140. */
	want[0] = mrc_ev_find(p, lost[1]);
	want[1] = mrc_ev_find(p, lost[2]);
	want[2] = mrc_ev_find(p, lost[0]);
	MRC_T_EQ(want[0], 132);
	MRC_T_EQ(want[1], 136);
	MRC_T_EQ(want[2], 140);
	/* Nobody answers: each round waits twice as long as the one before (2, 4, 8 ms). */
	uint64_t now = t0;

	for (int round = 0; round < 3; round++) {
		const uint64_t wait = iv << (round + 1);

		for (int i = 0; i < 3; i++)
			MRC_T_EQ(mrc_ev_probe_due(p, now), want[i]);
		MRC_T_EQ(mrc_ev_probe_due(p, now), -1);		   /* round over */
		MRC_T_EQ(mrc_ev_probe_due(p, now + wait - 1), -1); /* too early */
		for (int i = 0; i < 3; i++)
			mrc_ev_on_probe_timeout(p, want[i]);
		now += wait + 7;
	}
	MRC_T_EQ(mrc_ev_counters(p)->probes, 9);
	MRC_T_EQ(mrc_ev_slot_stats(p, 136)->probes, 3);
	MRC_T_EQ(mrc_ev_slot_stats(p, 136)->probe_timeouts, 3);
	/* DENIED EVs are never probed. */
	mrc_ev_deny(p, 132);
	mrc_ev_deny(p, 136);
	mrc_ev_deny(p, 140);
	MRC_T_EQ(mrc_ev_probe_due(p, t0 + 100 * iv), -1);
	return MRC_TEST_OK;
}

/*
 * The owner's flag says whether any EV is ASSUMED_BAD, through losses and
 * readmissions; the last bad EV back ends the probe round, so the next EV
 * lost starts a fresh one at the first slot even if the owner, told by the
 * flag there was nothing to probe, never asked in between.
 */
static int
test_bad_flag(void)
{
	struct mrc_ev_cfg cfg;
	struct mrc_ev_pool *p;
	const uint64_t t0 = 5000;
	bool bad = true;

	mrc_ev_cfg_default(&cfg, 8, HZ);
	p = pool_new(&cfg, 23, true);
	mrc_ev_set_bad_flag(p, &bad);
	MRC_T_ASSERT(!bad, "set at once: nothing bad");
	mrc_ev_on_loss(p, 20); /* plane 1: to backup slot 132 */
	MRC_T_ASSERT(bad, "one bad");
	MRC_T_EQ(mrc_ev_probe_due(p, t0), 132); /* the round goes on past 132 */
	for (int i = 0; i < 3; i++)
		MRC_T_EQ(mrc_ev_on_probe_answer(p, 132, MRC_SACK_M_NONE), 0);
	MRC_T_EQ(mrc_ev_state(p, 132), MRC_EV_GOOD);
	MRC_T_ASSERT(!bad, "none bad");
	mrc_ev_on_loss(p, 0); /* plane 0: to backup slot 128, before where the round was */
	MRC_T_ASSERT(bad, "bad again");
	MRC_T_EQ(mrc_ev_probe_due(p, t0), 128);
	mrc_ev_set_bad_flag(p, NULL);
	for (int i = 0; i < 3; i++)
		MRC_T_EQ(mrc_ev_on_probe_answer(p, 128, MRC_SACK_M_NONE), 0);
	MRC_T_ASSERT(bad, "forgotten: no longer written");
	return MRC_TEST_OK;
}

static int
test_probe_readmit(void)
{
	struct mrc_ev_cfg cfg;
	struct mrc_ev_pool *p;
	struct mrc_ev_counts c;
	int first = -1;

	mrc_ev_cfg_default(&cfg, 8, HZ);
	p = pool_new(&cfg, 21, false);
	const uint32_t v = mrc_ev_value(p, 33); /* plane 2 */

	mrc_ev_on_loss(p, 33);
	const int b = mrc_ev_find(p, v);

	MRC_T_EQ(b, 136);
	MRC_T_EQ(mrc_ev_on_probe_answer(p, b, MRC_SACK_M_NONE), 0);
	MRC_T_EQ(mrc_ev_on_probe_answer(p, b, MRC_SACK_M_NONE), 0);
	MRC_T_EQ(mrc_ev_state(p, b), MRC_EV_ASSUMED_BAD);
	MRC_T_EQ(mrc_ev_on_probe_timeout(p, b), 0); /* starts over */
	MRC_T_EQ(mrc_ev_on_probe_answer(p, b, MRC_SACK_M_NONE), 0);
	MRC_T_EQ(mrc_ev_on_probe_answer(p, b, MRC_SACK_M_NONE), 0);
	MRC_T_EQ(mrc_ev_state(p, b), MRC_EV_ASSUMED_BAD);
	MRC_T_EQ(mrc_ev_on_probe_answer(p, b, MRC_SACK_M_ALWAYS_SKIP), 0); /* starts over */
	MRC_T_EQ(mrc_ev_on_probe_answer(p, b, MRC_SACK_M_NONE), 0);
	MRC_T_EQ(mrc_ev_on_probe_answer(p, b, MRC_SACK_M_NONE), 0);
	MRC_T_EQ(mrc_ev_state(p, b), MRC_EV_ASSUMED_BAD);
	MRC_T_EQ(mrc_ev_on_probe_answer(p, b, MRC_SACK_M_NONE), 0);
	/* Third in a row: GOOD again, as a backup (plane 2's active set is full). */
	MRC_T_EQ(mrc_ev_state(p, b), MRC_EV_GOOD);
	MRC_T_EQ(mrc_ev_find(p, v), b);
	MRC_T_EQ(mrc_ev_counters(p)->readmitted, 1);
	MRC_T_EQ(mrc_ev_counters(p)->promoted, 0);
	MRC_T_EQ(mrc_ev_plane_counts(p, 2, &c), 0);
	MRC_T_EQ(c.backup[MRC_EV_GOOD], 4);
	/* Answers for EVs that are not ASSUMED_BAD change nothing. */
	MRC_T_EQ(mrc_ev_on_probe_answer(p, 5, MRC_SACK_M_SKIP_ONCE), 0);
	MRC_T_EQ(mrc_ev_state(p, 5), MRC_EV_GOOD);

	/* A SKIP_ONCE answer: SKIP at once, GOOD after the rotation. */
	const uint32_t w = mrc_ev_value(p, 70);

	mrc_ev_on_loss(p, 70);
	const int bw = mrc_ev_find(p, w);

	MRC_T_EQ(mrc_ev_on_probe_answer(p, bw, MRC_SACK_M_SKIP_ONCE), 0);
	MRC_T_EQ(mrc_ev_state(p, bw), MRC_EV_SKIP);
	finish_rotation(p, ALL_PLANES, NULL, &first);
	MRC_T_EQ(mrc_ev_state(p, bw), MRC_EV_GOOD);
	MRC_T_EQ(mrc_ev_find(p, w), bw); /* a backup again */
	MRC_T_RUN(check_invariants(p));

	/* probe_good_needed = 1: one answer is enough. */
	cfg.probe_good_needed = 1;
	p = pool_new(&cfg, 22, false);
	mrc_ev_on_loss(p, 0);
	MRC_T_EQ(mrc_ev_on_probe_answer(p, 128, MRC_SACK_M_NONE), 0);
	MRC_T_EQ(mrc_ev_state(p, 128), MRC_EV_GOOD);
	return MRC_TEST_OK;
}

/* Re-admission fills a plane whose active set was short, and a stuck active EV recovers in place.
 */
static int
test_readmit_into_short_plane(void)
{
	struct mrc_ev_cfg cfg;
	struct mrc_ev_pool *p;
	struct mrc_ev_counts c;
	uint32_t retired[4];

	mrc_ev_cfg_default(&cfg, 8, HZ);
	cfg.probe_good_needed = 2;
	p = pool_new(&cfg, 23, false);
	for (int s = 16; s < 20; s++) { /* plane 1 */
		retired[s - 16] = mrc_ev_value(p, s);
		mrc_ev_on_loss(p, s);
	}
	const uint32_t stuck = mrc_ev_value(p, 25);

	mrc_ev_on_loss(p, 25);
	MRC_T_EQ(mrc_ev_state(p, 25), MRC_EV_ASSUMED_BAD);
	MRC_T_EQ(mrc_ev_n_usable_active(p), 127);
	/* A retired backup recovers: it takes slot 25, the stuck EV goes to its backup slot. */
	const int b = mrc_ev_find(p, retired[2]);

	mrc_ev_on_probe_answer(p, b, MRC_SACK_M_NONE);
	mrc_ev_on_probe_answer(p, b, MRC_SACK_M_NONE);
	MRC_T_EQ(mrc_ev_find(p, retired[2]), 25);
	MRC_T_EQ(mrc_ev_state(p, 25), MRC_EV_GOOD);
	MRC_T_EQ(mrc_ev_find(p, stuck), b);
	MRC_T_EQ(mrc_ev_state(p, b), MRC_EV_ASSUMED_BAD);
	MRC_T_EQ(mrc_ev_counters(p)->promoted, 1);
	MRC_T_EQ(mrc_ev_n_usable_active(p), 128);
	MRC_T_EQ(mrc_ev_plane_counts(p, 1, &c), 0);
	MRC_T_EQ(c.active[MRC_EV_GOOD], 16);
	MRC_T_EQ(c.backup[MRC_EV_ASSUMED_BAD], 4);
	MRC_T_RUN(check_invariants(p));

	/* Stuck in an active slot (no backups at all) and recovered there. */
	cfg_small(&cfg, 2, 8, 0, 1);
	cfg.probe_good_needed = 2;
	p = pool_new(&cfg, 24, false);
	mrc_ev_on_loss(p, 6);
	MRC_T_EQ(mrc_ev_state(p, 6), MRC_EV_ASSUMED_BAD);
	MRC_T_EQ(mrc_ev_probe_due(p, 0), 6);
	mrc_ev_on_probe_answer(p, 6, MRC_SACK_M_NONE);
	mrc_ev_on_probe_answer(p, 6, MRC_SACK_M_NONE);
	MRC_T_EQ(mrc_ev_state(p, 6), MRC_EV_GOOD);
	MRC_T_EQ(mrc_ev_n_usable_active(p), 8);
	bool used = false;

	for (int i = 0; i < 16; i++)
		used |= mrc_ev_pick(p, ALL_PLANES, &rnd) == 6;
	MRC_T_ASSERT(used, "slot 6 back in rotation");
	MRC_T_RUN(check_invariants(p));
	return MRC_TEST_OK;
}

/* ---- control plane ---- */

static int
test_deny_allow(void)
{
	struct mrc_ev_cfg cfg;
	struct mrc_ev_pool *p;
	struct mrc_ev_counts c;

	mrc_ev_cfg_default(&cfg, 8, HZ);
	p = pool_new(&cfg, 25, false);
	const uint32_t v = mrc_ev_value(p, 50); /* plane 3 */

	MRC_T_EQ(mrc_ev_deny(p, 50), 0);
	MRC_T_EQ(mrc_ev_state(p, 50), MRC_EV_GOOD); /* replaced */
	const int d = mrc_ev_find(p, v);

	MRC_T_EQ(d, 140);
	MRC_T_EQ(mrc_ev_state(p, d), MRC_EV_DENIED);
	MRC_T_EQ(mrc_ev_counters(p)->denied, 1);
	MRC_T_EQ(mrc_ev_deny(p, d), 0); /* idempotent */
	MRC_T_EQ(mrc_ev_counters(p)->denied, 1);
	/* Never recovers by itself: not probed, feedback ignored. */
	MRC_T_EQ(mrc_ev_probe_due(p, 0), -1);
	mrc_ev_on_probe_answer(p, d, MRC_SACK_M_NONE);
	mrc_ev_on_probe_answer(p, d, MRC_SACK_M_NONE);
	mrc_ev_on_probe_answer(p, d, MRC_SACK_M_NONE);
	mrc_ev_on_sack(p, d, MRC_SACK_M_SKIP_ONCE, 0);
	mrc_ev_on_nack(p, d, MRC_NACK_TRIMMED);
	mrc_ev_on_loss(p, d);
	MRC_T_EQ(mrc_ev_state(p, d), MRC_EV_DENIED);
	int first = -1;

	finish_rotation(p, ALL_PLANES, NULL, &first);
	MRC_T_EQ(mrc_ev_state(p, d), MRC_EV_DENIED);
	/* Allowed: a GOOD backup again. */
	MRC_T_EQ(mrc_ev_allow(p, d), 0);
	MRC_T_EQ(mrc_ev_state(p, d), MRC_EV_GOOD);
	MRC_T_EQ(mrc_ev_find(p, v), d);
	MRC_T_EQ(mrc_ev_plane_counts(p, 3, &c), 0);
	MRC_T_EQ(c.backup[MRC_EV_GOOD], 4);
	MRC_T_EQ(mrc_ev_allow(p, d), 0); /* GOOD stays GOOD */

	/* Deny a backup; deny an ASSUMED_BAD EV (no longer probed). */
	MRC_T_EQ(mrc_ev_deny(p, 129), 0);
	MRC_T_EQ(mrc_ev_state(p, 129), MRC_EV_DENIED);
	const uint32_t bad = mrc_ev_value(p, 0);

	mrc_ev_on_loss(p, 0);
	MRC_T_EQ(mrc_ev_state(p, mrc_ev_find(p, bad)), MRC_EV_ASSUMED_BAD);
	MRC_T_EQ(mrc_ev_deny(p, mrc_ev_find(p, bad)), 0);
	MRC_T_EQ(mrc_ev_state(p, mrc_ev_find(p, bad)), MRC_EV_DENIED);
	MRC_T_EQ(mrc_ev_probe_due(p, 0), -1);
	MRC_T_RUN(check_invariants(p));

	/* No backups: a denied active EV leaves its slot empty; allowed, it is back in rotation. */
	cfg_small(&cfg, 2, 4, 0, 4);
	p = pool_new(&cfg, 26, false);
	MRC_T_EQ(mrc_ev_deny(p, 1), 0);
	MRC_T_EQ(mrc_ev_state(p, 1), MRC_EV_DENIED);
	MRC_T_EQ(mrc_ev_n_usable_active(p), 3);
	for (int i = 0; i < 12; i++)
		MRC_T_ASSERT(mrc_ev_pick(p, ALL_PLANES, &rnd) != 1, "denied slot picked");
	MRC_T_EQ(mrc_ev_allow(p, 1), 0);
	MRC_T_EQ(mrc_ev_n_usable_active(p), 4);
	bool used = false;

	for (int i = 0; i < 8; i++)
		used |= mrc_ev_pick(p, ALL_PLANES, &rnd) == 1;
	MRC_T_ASSERT(used, "allowed slot picked again");
	/* Whole plane 0 denied: its bit in the pick mask no longer matters. */
	mrc_ev_deny(p, 0);
	mrc_ev_deny(p, 1);
	MRC_T_EQ(mrc_ev_pick(p, 1u << 0, &rnd), -1);
	MRC_T_EQ(mrc_ev_plane(p, mrc_ev_pick(p, ALL_PLANES, &rnd)), 1);
	MRC_T_RUN(check_invariants(p));
	return MRC_TEST_OK;
}

/* ---- find, stats, arguments ---- */

static int
test_find(void)
{
	struct mrc_ev_cfg cfg;
	struct mrc_ev_pool *p;
	struct mrc_rand r;
	unsigned int unknown = 0;

	mrc_ev_cfg_default(&cfg, 8, HZ);
	p = pool_new(&cfg, 27, false);
	MRC_T_EQ(mrc_ev_find(p, mrc_ev_value(p, 0)), 0);     /* active */
	MRC_T_EQ(mrc_ev_find(p, mrc_ev_value(p, 127)), 127); /* active */
	MRC_T_EQ(mrc_ev_find(p, mrc_ev_value(p, 128)), 128); /* backup */
	MRC_T_EQ(mrc_ev_find(p, mrc_ev_value(p, 159)), 159); /* backup */
	/* Unknown values: every one that is not in the pool is -1. */
	mrc_rand_seed(&r, 99);
	for (int i = 0; i < 20000; i++) {
		uint32_t v =
			i < 10000 ? mrc_rand_u32(&r) : mrc_ev_value(p, i % 160) ^ (1u << (i % 20));
		bool in_pool = false;

		for (int s = 0; s < 160; s++)
			in_pool |= mrc_ev_value(p, s) == v;
		if (in_pool)
			continue;
		MRC_T_EQ(mrc_ev_find(p, v), -1);
		unknown++;
	}
	MRC_T_ASSERT(unknown > 19000, "%u unknown values tried", unknown);
	return MRC_TEST_OK;
}

static int
test_stats_optional(void)
{
	struct mrc_ev_cfg cfg;
	struct mrc_ev_pool *p;

	mrc_ev_cfg_default(&cfg, 4, HZ);
	cfg.n_active = 16, cfg.n_backup = 4, cfg.ev_min_active = 4;
	/* Without statistics everything works and nothing is kept. */
	p = pool_new(&cfg, 28, false);
	MRC_T_ASSERT(mrc_ev_slot_stats(p, 0) == NULL, "no stats");
	mrc_ev_on_tx(p, 0, 100);
	MRC_T_EQ(mrc_ev_on_sack(p, 0, MRC_SACK_M_NONE, 1500), 0);
	MRC_T_EQ(mrc_ev_on_sack(p, 1, MRC_SACK_M_SKIP_ONCE, 1500), 0);
	MRC_T_EQ(mrc_ev_on_nack(p, 2, MRC_NACK_TRIMMED), 0);
	MRC_T_EQ(mrc_ev_on_loss(p, 3), 0);
	MRC_T_EQ(mrc_ev_probe_due(p, 0), 16);
	MRC_T_EQ(mrc_ev_on_probe_timeout(p, 16), 0);
	MRC_T_EQ(mrc_ev_deny(p, 4), 0);
	MRC_T_RUN(check_invariants(p));

	/* With statistics. */
	memset(stats_mem, 0xa5, sizeof(stats_mem[0]) * 20);
	p = pool_new(&cfg, 28, true);
	MRC_T_EQ(mrc_ev_slot_stats(p, 19)->tx_pkts, 0); /* zeroed by init */
	mrc_ev_on_tx(p, 0, 100);
	mrc_ev_on_tx(p, 0, 200);
	mrc_ev_on_sack(p, 0, MRC_SACK_M_NONE, 3000);
	mrc_ev_on_sack(p, 0, MRC_SACK_M_NONE, 2000);
	mrc_ev_on_sack(p, 0, MRC_SACK_M_NONE, 0); /* no sample */
	mrc_ev_on_sack(p, 0, MRC_SACK_M_NONE, 2500);
	const struct mrc_ev_stats *st = mrc_ev_slot_stats(p, 0);

	MRC_T_EQ(st->tx_pkts, 2);
	MRC_T_EQ(st->tx_bytes, 300);
	MRC_T_EQ(st->acks, 4);
	MRC_T_EQ(st->last_rtt_ns, 2500);
	MRC_T_EQ(st->min_rtt_ns, 2000);
	mrc_ev_on_sack(p, 0, MRC_SACK_M_SKIP_ONCE, 0);
	MRC_T_EQ(st->state_changes, 1);
	MRC_T_EQ(st->ecn_echoes, 1);
	return MRC_TEST_OK;
}

static int
test_bad_slots(void)
{
	struct mrc_ev_cfg cfg;
	struct mrc_ev_pool *p;

	cfg_small(&cfg, 2, 4, 2, 1);
	p = pool_new(&cfg, 29, true);
	const int bad[2] = {-1, 6};

	for (int i = 0; i < 2; i++) {
		MRC_T_EQ(mrc_ev_on_sack(p, bad[i], MRC_SACK_M_NONE, 1), -EINVAL);
		MRC_T_EQ(mrc_ev_on_nack(p, bad[i], MRC_NACK_TRIMMED), -EINVAL);
		MRC_T_EQ(mrc_ev_on_loss(p, bad[i]), -EINVAL);
		MRC_T_EQ(mrc_ev_on_probe_answer(p, bad[i], MRC_SACK_M_NONE), -EINVAL);
		MRC_T_EQ(mrc_ev_on_probe_timeout(p, bad[i]), -EINVAL);
		MRC_T_EQ(mrc_ev_deny(p, bad[i]), -EINVAL);
		MRC_T_EQ(mrc_ev_allow(p, bad[i]), -EINVAL);
		mrc_ev_on_tx(p, bad[i], 1); /* ignored */
		MRC_T_ASSERT(!mrc_ev_slot_is_active(p, bad[i]), "not active");
	}
	MRC_T_ASSERT(mrc_ev_slot_is_active(p, 3) && !mrc_ev_slot_is_active(p, 4), "active range");
	MRC_T_RUN(check_invariants(p));
	return MRC_TEST_OK;
}

/*
 * Random operations on small and default pools: after each one the
 * bookkeeping matches a recount, picks obey state and mask, the set of EV
 * values never changes, and losses never push usable EVs below the floor.
 */
static int
test_random_ops(void)
{
	static const struct {
		uint8_t planes;
		uint16_t active, backup, min;
		uint8_t skip_rot;
	} shapes[] = {{8, 128, 32, 32, 1}, {2, 8, 4, 2, 2}, {3, 12, 0, 3, 1}, {4, 16, 8, 1, 3}};
	static uint32_t before[MRC_EV_MAX_EVS], after[MRC_EV_MAX_EVS];

	for (unsigned int sh = 0; sh < RTE_DIM(shapes); sh++) {
		struct mrc_ev_cfg cfg;
		struct mrc_ev_pool *p;
		struct mrc_rand r;
		uint64_t now = 0;
		bool denied_any = false;

		cfg_small(&cfg, shapes[sh].planes, shapes[sh].active, shapes[sh].backup,
			shapes[sh].min);
		cfg.skip_rotations = shapes[sh].skip_rot;
		cfg.probe_interval_tsc = 50;
		p = pool_new(&cfg, 1000 + sh, sh & 1);
		MRC_T_ASSERT(p != NULL, "init shape %u", sh);
		const int n = mrc_ev_n_slots(p);
		bool bad;

		mrc_ev_set_bad_flag(p, &bad);

		for (int s = 0; s < n; s++)
			before[s] = mrc_ev_value(p, s);
		qsort(before, (size_t)n, sizeof(before[0]), cmp_u32);
		mrc_rand_seed(&r, 77 + sh);
		for (int step = 0; step < 30000; step++) {
			const uint32_t op = (uint32_t)mrc_rand_bounded(&r, 100);
			const int s = (int)mrc_rand_bounded(&r, (uint64_t)n);
			const uint32_t mask =
				(uint32_t)mrc_rand_bounded(&r, 256) | (op < 30 ? 0xff : 0);
			int got;

			now += mrc_rand_bounded(&r, 10);
			if (op < 50) {
				got = mrc_ev_pick(p, mask, &rnd);
				if (got >= 0) {
					MRC_T_ASSERT(mrc_ev_slot_is_active(p, got), "pick %d", got);
					MRC_T_EQ(mrc_ev_state(p, got), MRC_EV_GOOD);
					MRC_T_ASSERT(
						mask >> mrc_ev_plane(p, got) & 1, "plane masked");
				}
				/* -1 only when no GOOD active EV is on an allowed plane. */
				for (int a = 0; got < 0 && a < cfg.n_active; a++)
					MRC_T_ASSERT(mrc_ev_state(p, a) != MRC_EV_GOOD ||
							     !(mask >> mrc_ev_plane(p, a) & 1),
						"pick -1 but slot %d is GOOD on an allowed plane",
						a);
			} else if (op < 58) {
				mrc_ev_on_sack(p, s, (enum mrc_sack_m)mrc_rand_bounded(&r, 3), 100);
			} else if (op < 64) {
				mrc_ev_on_nack(p, s, (uint8_t)mrc_rand_bounded(&r, 3));
			} else if (op < 72) {
				mrc_ev_on_loss(p, s);
			} else if (op < 82) {
				got = mrc_ev_probe_due(p, now);
				if (got >= 0)
					MRC_T_EQ(mrc_ev_state(p, got), MRC_EV_ASSUMED_BAD);
			} else if (op < 92) {
				mrc_ev_on_probe_answer(
					p, s, (enum mrc_sack_m)mrc_rand_bounded(&r, 3));
			} else if (op < 95) {
				mrc_ev_on_probe_timeout(p, s);
			} else if (op < 97) {
				mrc_ev_deny(p, s);
				denied_any = true;
			} else {
				mrc_ev_allow(p, s);
			}
			MRC_T_RUN(check_invariants(p));
			bool any_bad = false;

			for (int k = 0; k < n; k++)
				any_bad |= mrc_ev_state(p, k) == MRC_EV_ASSUMED_BAD;
			MRC_T_EQ(bad, any_bad);
			if (!denied_any)
				MRC_T_ASSERT(mrc_ev_n_usable_active(p) >= cfg.ev_min_active,
					"floor broken at step %d", step);
		}
		for (int s = 0; s < n; s++)
			after[s] = mrc_ev_value(p, s);
		qsort(after, (size_t)n, sizeof(after[0]), cmp_u32);
		MRC_T_MEMEQ(before, after, (size_t)n * sizeof(before[0]));
		printf("  shape %u: rotations %" PRIu64 ", retired %" PRIu64 ", no_backup %" PRIu64
		       ", floor_holds %" PRIu64 ", readmitted %" PRIu64 ", promoted %" PRIu64 "\n",
			sh, p->cnt.rotations, p->cnt.retired, p->cnt.no_backup, p->cnt.floor_holds,
			p->cnt.readmitted, p->cnt.promoted);
	}
	return MRC_TEST_OK;
}

/* ---- dead planes ---- */

/*
 * A tiny transport: `n` picks on every plane; a pick whose EV `dead()` says
 * cannot get through is lost (reported at once), any other is SACKed.
 * Returns the losses: each is a packet resent.
 */
typedef bool (*ev_dead_fn)(const struct mrc_ev_pool *p, uint32_t ev);

static unsigned int
spray(struct mrc_ev_pool *p, int n, ev_dead_fn dead, unsigned int *picks_per_plane)
{
	unsigned int losses = 0;

	for (int i = 0; i < n; i++) {
		const int s = mrc_ev_pick(p, ALL_PLANES, &rnd);

		if (s < 0)
			break;
		if (picks_per_plane != NULL)
			picks_per_plane[mrc_ev_plane(p, s)]++;
		if (dead(p, mrc_ev_value(p, s))) {
			mrc_ev_on_loss(p, s);
			losses++;
		} else {
			mrc_ev_on_sack(p, s, MRC_SACK_M_NONE, 0);
		}
	}
	return losses;
}

static bool
plane3_dead(const struct mrc_ev_pool *p, uint32_t ev)
{
	return mrc_ev_layout_plane(&p->layout, ev) == 3;
}

/* Plane 3's T1 1 of 4 (a T0-T1 link, or a black-holed T1): a quarter of its paths. */
static bool
plane3_t1_dead(const struct mrc_ev_pool *p, uint32_t ev)
{
	return mrc_ev_layout_plane(&p->layout, ev) == 3 &&
	       mrc_ev_layout_uplink(&p->layout, ev) % 4 == 1;
}

static int
test_dead_plane_taken_out(void)
{
	struct mrc_ev_cfg cfg;
	struct mrc_ev_pool *p;
	struct mrc_ev_counts c;
	unsigned int per_plane[MRC_EV_MAX_PLANES] = {0}, losses;

	mrc_ev_cfg_default(&cfg, 8, HZ); /* 16 active + 4 backup EVs per plane */
	p = pool_new(&cfg, 40, false);
	/*
	 * A plane the host cannot see fail. Rather than each of its 20 EVs
	 * losing a packet of its own (20 resends), the 9th loss in a row with
	 * no SACK from the plane takes the rest out.
	 */
	losses = spray(p, 4000, plane3_dead, NULL);
	MRC_T_EQ(losses, 16 / 2 + 1);
	MRC_T_EQ(mrc_ev_dead_planes(p), 1u << 3);
	MRC_T_EQ(mrc_ev_counters(p)->plane_outs, 1);
	MRC_T_EQ(mrc_ev_counters(p)->dead_planes, 1);
	MRC_T_EQ(mrc_ev_plane_counts(p, 3, &c), 0);
	MRC_T_EQ(c.active[MRC_EV_ASSUMED_BAD], 16);
	MRC_T_EQ(c.backup[MRC_EV_ASSUMED_BAD], 4);
	/*
	 * Its share goes to the other seven, evenly: ten whole rotations (16
	 * live EVs on each of 7 planes) from the start of one, so that where
	 * the first spray stopped (which the seed decides) does not matter.
	 */
	for (uint64_t r0 = p->cnt.rotations; p->cnt.rotations == r0;) {
		unsigned int one[MRC_EV_MAX_PLANES] = {0};

		MRC_T_EQ(spray(p, 1, plane3_dead, one), 0);
		if (p->cnt.rotations != r0) /* that pick opened the new rotation */
			for (unsigned int pl = 0; pl < 8; pl++)
				per_plane[pl] += one[pl];
	}
	MRC_T_EQ(spray(p, 7 * 16 * 10 - 1, plane3_dead, per_plane), 0);
	for (unsigned int pl = 0; pl < 8; pl++)
		MRC_T_ASSERT(pl == 3 ? per_plane[pl] == 0
				     : per_plane[pl] + 2 >= 160 && per_plane[pl] <= 162,
			"plane %u: %u picks", pl, per_plane[pl]);
	MRC_T_RUN(check_invariants(p));

	/* The floor still rules: with ev_min_active = 120 of 128 the plane is not taken whole. */
	cfg.ev_min_active = 120;
	p = pool_new(&cfg, 41, false);
	spray(p, 4000, plane3_dead, NULL);
	MRC_T_EQ(mrc_ev_counters(p)->plane_outs, 0);
	MRC_T_ASSERT(
		mrc_ev_n_usable_active(p) >= 120, "floor broken: %u", mrc_ev_n_usable_active(p));
	MRC_T_RUN(check_invariants(p));
	return MRC_TEST_OK;
}

static int
test_partial_plane_stays(void)
{
	struct mrc_ev_cfg cfg;
	struct mrc_ev_pool *p;
	struct mrc_ev_counts c;
	unsigned int per_plane[MRC_EV_MAX_PLANES] = {0}, losses;

	mrc_ev_cfg_default(&cfg, 8, HZ);
	p = pool_new(&cfg, 42, false);
	/* A quarter of plane 3's paths die: those EVs go, one loss each; the plane stays. */
	losses = spray(p, 4000, plane3_t1_dead, NULL);
	MRC_T_EQ(losses, 5); /* 4 active + 1 backup on T1 1 */
	MRC_T_EQ(mrc_ev_dead_planes(p), 0);
	MRC_T_EQ(mrc_ev_counters(p)->plane_outs, 0);
	MRC_T_EQ(mrc_ev_plane_counts(p, 3, &c), 0);
	MRC_T_EQ(c.active[MRC_EV_GOOD], 15);
	MRC_T_EQ(spray(p, 1270, plane3_t1_dead, per_plane), 0);
	/* 15 of its 16 active EVs GOOD, of 127: 150 of 1270 picks. */
	MRC_T_ASSERT(per_plane[3] >= 148 && per_plane[3] <= 152, "plane 3: %u picks", per_plane[3]);

	/*
	 * Told which uplinks share a T1 (4 groups), the pool replaces the lost
	 * EVs with backups of the other T1s first and never sends on the dead
	 * T1's backup once EVs of that T1 are bad: 4 losses, not 5.
	 */
	cfg.uplink_groups = 4;
	p = pool_new(&cfg, 42, false);
	MRC_T_EQ(spray(p, 4000, plane3_t1_dead, NULL), 4);
	MRC_T_EQ(mrc_ev_counters(p)->retired, 3);
	MRC_T_EQ(mrc_ev_counters(p)->no_backup, 1);
	MRC_T_EQ(mrc_ev_plane_counts(p, 3, &c), 0);
	MRC_T_EQ(c.active[MRC_EV_GOOD], 15);
	MRC_T_EQ(c.backup[MRC_EV_GOOD], 1); /* the dead T1's, kept out */
	MRC_T_EQ(mrc_ev_dead_planes(p), 0);
	MRC_T_RUN(check_invariants(p));
	return MRC_TEST_OK;
}

/* Probes per second into a dead plane nobody answers, and how it comes back. */
static int
test_dead_plane_probe_backoff(void)
{
	struct mrc_ev_cfg cfg;
	struct mrc_ev_pool *p;
	const uint64_t iv = HZ / 1000,
		       step = HZ / 100000; /* probe interval 1 ms, look every 10 us */
	bool seen[MRC_EV_MAX_EVS] = {false};
	unsigned int probes = 0, distinct = 0, late = 0;
	uint64_t t;
	int s, last = -1;

	mrc_ev_cfg_default(&cfg, 8, HZ);
	p = pool_new(&cfg, 43, false);
	spray(p, 4000, plane3_dead, NULL);
	MRC_T_EQ(mrc_ev_dead_planes(p), 1u << 3);
	/*
	 * One second of nobody answering. Probing every EV every interval (the
	 * old way) sends 20 x 1000 probes; the dead-plane round sends one per
	 * round, the rounds 1, 2, 4 ... 32 ms apart: 6 + (1000 - 63) / 32 of them.
	 */
	for (t = 0; t < HZ; t += step) {
		while ((s = mrc_ev_probe_due(p, t)) >= 0) {
			MRC_T_EQ(mrc_ev_plane(p, s), 3);
			MRC_T_EQ(mrc_ev_state(p, s), MRC_EV_ASSUMED_BAD);
			distinct += !seen[s];
			seen[s] = true;
			probes++;
			late += t >= HZ / 2;
			last = s;
			mrc_ev_on_probe_timeout(p, s);
		}
	}
	printf("  dead plane: %u probes in 1 s (%u in the second half), %u EVs\n", probes, late,
		distinct);
	MRC_T_ASSERT(probes >= 30 && probes <= 40, "%u probes in 1 s", probes);
	MRC_T_ASSERT(late >= 15 && late <= 16, "%u probes in the second half", late);
	MRC_T_EQ(distinct, 20); /* every EV of the plane had its turn */
	MRC_T_EQ(mrc_ev_counters(p)->probes, probes);

	/* The plane answers: revived, and its EVs are probed one by one again at once. */
	MRC_T_EQ(mrc_ev_on_probe_answer(p, last, MRC_SACK_M_NONE), 0);
	MRC_T_EQ(mrc_ev_dead_planes(p), 0);
	MRC_T_EQ(mrc_ev_counters(p)->revived_planes, 1);
	/*
	 * Its EVs are probed one by one again at once, a round per interval
	 * while they answer (answers come back after the round), and
	 * probe_good_needed (3) answered rounds re-admit them all.
	 */
	struct mrc_ev_counts c;
	int batch[MRC_EV_MAX_EVS];
	unsigned int n, rounds = 0;

	probes = 0;
	for (t = HZ; t < HZ + 3 * iv; t += step) {
		n = 0;
		while ((s = mrc_ev_probe_due(p, t)) >= 0)
			batch[n++] = s;
		for (unsigned int i = 0; i < n; i++)
			mrc_ev_on_probe_answer(p, batch[i], MRC_SACK_M_NONE);
		probes += n;
		rounds += n > 0;
	}
	MRC_T_EQ(rounds, 3);
	MRC_T_EQ(probes, 20 + 20 + 19); /* `last` needed only two more */

	MRC_T_EQ(mrc_ev_plane_counts(p, 3, &c), 0);
	MRC_T_EQ(c.active[MRC_EV_GOOD], 16);
	MRC_T_EQ(c.backup[MRC_EV_GOOD], 4);
	MRC_T_RUN(check_invariants(p));
	return MRC_TEST_OK;
}

/* Partly dead plane: its retired EVs are probed each interval at first, then less. */
static int
test_probe_rounds_back_off(void)
{
	struct mrc_ev_cfg cfg;
	struct mrc_ev_pool *p;
	const uint64_t step = HZ / 100000;
	unsigned int probes = 0;
	int s;

	mrc_ev_cfg_default(&cfg, 8, HZ);
	p = pool_new(&cfg, 44, false);
	MRC_T_EQ(spray(p, 4000, plane3_t1_dead, NULL), 5);
	/* Old: 5 EVs x 1000 rounds = 5000 probes a second. Now rounds 2, 4 ... 32 ms apart. */
	for (uint64_t t = 0; t < HZ; t += step)
		while ((s = mrc_ev_probe_due(p, t)) >= 0) {
			probes++;
			mrc_ev_on_probe_timeout(p, s);
		}
	printf("  5 retired EVs, nobody answering: %u probes in 1 s\n", probes);
	MRC_T_ASSERT(probes <= 5 * 40, "%u probes in 1 s", probes);
	/* A new loss elsewhere: rounds come every interval again. */
	const uint64_t t1 = HZ;
	const int victim = mrc_ev_pick(p, 1u << 5, &rnd);

	MRC_T_ASSERT(victim >= 0, "no EV on plane 5");
	mrc_ev_on_loss(p, victim);
	probes = 0;
	for (uint64_t t = t1; t < t1 + HZ / 1000 * 40; t += step)
		while ((s = mrc_ev_probe_due(p, t)) >= 0)
			probes++;
	MRC_T_ASSERT(probes >= 6, "%u probes within 40 ms of a new loss", probes);
	return MRC_TEST_OK;
}

static const struct mrc_test_case cases[] = {
	MRC_TEST_CASE(test_cfg_check),
	MRC_TEST_CASE(test_memsize),
	MRC_TEST_CASE(test_init_split_unique_uplinks),
	MRC_TEST_CASE(test_init_narrow_layouts),
	MRC_TEST_CASE(test_values_derived_invertible),
	MRC_TEST_CASE(test_pick_rotation_each_once),
	MRC_TEST_CASE(test_pick_peek),
	MRC_TEST_CASE(test_pick_plane_mask),
	MRC_TEST_CASE(test_skip_once_and_trimmed),
	MRC_TEST_CASE(test_only_skips_end_rotation),
	MRC_TEST_CASE(test_loss_replaced_same_plane),
	MRC_TEST_CASE(test_backups_exhausted),
	MRC_TEST_CASE(test_floor),
	MRC_TEST_CASE(test_probe_round_robin),
	MRC_TEST_CASE(test_probe_readmit),
	MRC_TEST_CASE(test_readmit_all),
	MRC_TEST_CASE(test_readmit_into_short_plane),
	MRC_TEST_CASE(test_deny_allow),
	MRC_TEST_CASE(test_find),
	MRC_TEST_CASE(test_stats_optional),
	MRC_TEST_CASE(test_bad_slots),
	MRC_TEST_CASE(test_random_ops),
	MRC_TEST_CASE(test_dead_plane_taken_out),
	MRC_TEST_CASE(test_partial_plane_stays),
	MRC_TEST_CASE(test_dead_plane_probe_backoff),
	MRC_TEST_CASE(test_probe_rounds_back_off),
	MRC_TEST_CASE(test_bad_flag),
};

MRC_TEST_MAIN("ev_pool", cases)
