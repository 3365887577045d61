/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * The EV pool: generation, the pick rotation, feedback, retire-and-replace
 * and dead planes (probing and re-admission: mrc_ev_probe.c). The lifecycle, the slot layout and
 * the costs are explained at the top of mrc_ev.h; this file adds how the bookkeeping works.
 *
 * Bookkeeping. Every state change goes through mrc_ev_set_state_() and every slot
 * trade through swap_slots(); both keep these derived counts exact:
 *   n_skip, n_bad                  over all slots (rotation walk, probing)
 *   good_active[p], usable_active[p], n_usable_active
 *                                  over the active slots (pick, floor,
 *                                  "is plane p short?")
 *   good_plane_mask, usable_plane_mask
 *                                  planes whose count above is non-zero, so
 *                                  mrc_ev_pick() knows in O(1) whether a scan
 *                                  can succeed.
 * Because a plane's active slots never change plane (swaps stay within a
 * plane), A = n_active / n_planes active slots per plane is an invariant,
 * not something to maintain.
 *
 * Per-EV state is two bytes (struct mrc_ev_meta): the plane, and a byte
 * holding the state (bits 1:0), the SKIP rotation ends left (bits 3:2) and
 * the consecutive good probe answers (bits 7:4). Changing the state clears
 * the other two fields.
 *
 * EV values are not stored: a slot keeps which EV of its plane it holds
 * (k, in evk[]), and the value is made from (plane, k) when asked for
 * (mrc_ev_make_(), "EV values" in mrc_ev.h). mrc_ev_find() runs it
 * backwards: the plane and uplink fields give the plane and k's low part,
 * the random bits k's high part, and slot_of[] the slot. A trade between
 * two slots rewrites their two slot_of[] entries.
 */

#include <errno.h>
#include <stdalign.h>
#include <string.h>

#include <rte_common.h>

#include "mrc_ev.h"
#include "mrc_ev_priv.h"
#include "mrc_time.h"

const struct mrc_counter_desc mrc_ev_pool_counters_desc[mrc_ev_pool_counters_count] = {
#define MRC_EV_CNT_DESC_(name, unit, help) {#name, unit, help},
	MRC_EV_POOL_COUNTERS(MRC_EV_CNT_DESC_)
#undef MRC_EV_CNT_DESC_
};

/* Array layout, state bits and shared internals: mrc_ev_priv.h. */

/* ---- configuration ---- */

static uint32_t
field_mask(uint8_t shift, uint8_t bits)
{
	if (bits == 0)
		return 0;
	return (uint32_t)(((UINT64_C(1) << bits) - 1) << shift);
}

static int
fail(const char **why, const char *reason)
{
	if (why != NULL)
		*why = reason;
	return -EINVAL;
}

int
mrc_ev_layout_check(const struct mrc_ev_layout *l, const char **why)
{
	if (l == NULL)
		return fail(why, "no layout");
	if (l->plane_bits > 8)
		return fail(why, "layout.plane_bits must be 0..8");
	if (l->uplink_bits > 16)
		return fail(why, "layout.uplink_bits must be 0..16");
	if (l->plane_bits > 0 && l->plane_shift + l->plane_bits > 32)
		return fail(why, "layout: plane field goes past bit 31");
	if (l->uplink_bits > 0 && l->uplink_shift + l->uplink_bits > 32)
		return fail(why, "layout: uplink field goes past bit 31");
	if ((field_mask(l->plane_shift, l->plane_bits) &
		    field_mask(l->uplink_shift, l->uplink_bits)) != 0)
		return fail(why, "layout: plane and uplink fields overlap");
	return 0;
}

void
mrc_ev_cfg_default(struct mrc_ev_cfg *cfg, uint8_t n_planes, uint64_t tsc_hz)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->n_planes = n_planes;
	cfg->n_active = MRC_EV_DEF_N_ACTIVE;
	cfg->n_backup = MRC_EV_DEF_N_BACKUP;
	cfg->ev_min_active = RTE_MAX(MRC_EV_DEF_N_ACTIVE / 4, 1);
	cfg->skip_rotations = MRC_EV_DEF_SKIP_ROTATIONS;
	cfg->probe_good_needed = MRC_EV_DEF_PROBE_GOOD_NEEDED;
	cfg->reshuffle = true;
	/* A minimum spacing: round up. tsc_hz 0 (unknown) leaves 0, probe rounds back to back. */
	cfg->probe_interval_tsc =
		tsc_hz == 0 ? 0 : mrc_us_to_tsc_round_up(MRC_EV_DEF_PROBE_INTERVAL_US, tsc_hz);
	cfg->layout = MRC_EV_LAYOUT_DEFAULT;
}

int
mrc_ev_cfg_check(const struct mrc_ev_cfg *cfg, const char **why)
{
	int rc;

	if (cfg == NULL)
		return fail(why, "no configuration");
	if (cfg->n_planes < 1 || cfg->n_planes > MRC_EV_MAX_PLANES)
		return fail(why, "n_planes must be 1..8");
	if (cfg->n_active < cfg->n_planes || cfg->n_active % cfg->n_planes != 0)
		return fail(why, "n_active must be a non-zero multiple of n_planes");
	if (cfg->n_backup % cfg->n_planes != 0)
		return fail(why, "n_backup must be a multiple of n_planes");
	if ((uint32_t)cfg->n_active + cfg->n_backup > MRC_EV_MAX_EVS)
		return fail(why, "n_active + n_backup must be <= 4096");
	if (cfg->ev_min_active < 1 || cfg->ev_min_active > cfg->n_active)
		return fail(why, "ev_min_active must be 1..n_active");
	if (cfg->skip_rotations < 1 || cfg->skip_rotations > MRC_EV_MAX_SKIP_ROTATIONS)
		return fail(why, "skip_rotations must be 1..3");
	if (cfg->probe_good_needed < 1 || cfg->probe_good_needed > MRC_EV_MAX_PROBE_GOOD)
		return fail(why, "probe_good_needed must be 1..15");
	rc = mrc_ev_layout_check(&cfg->layout, why);
	if (rc != 0)
		return rc;
	if (cfg->n_planes > (UINT32_C(1) << cfg->layout.plane_bits))
		return fail(why, "layout.plane_bits too narrow for n_planes");

	/*
	 * Uniqueness: a plane's EVs take consecutive uplink numbers, so one
	 * uplink value is shared by at most ceil(per_plane / 2^uplink_bits)
	 * EVs, which the random bits must tell apart.
	 */
	const uint32_t per_plane = ((uint32_t)cfg->n_active + cfg->n_backup) / cfg->n_planes;
	const uint64_t n_uplinks = UINT64_C(1) << cfg->layout.uplink_bits;
	const uint64_t share = (per_plane + n_uplinks - 1) / n_uplinks;
	const unsigned int random_bits = 32u - cfg->layout.plane_bits - cfg->layout.uplink_bits;

	if (share > (UINT64_C(1) << random_bits))
		return fail(why, "layout leaves too few random bits for distinct EVs");
	return 0;
}

size_t
mrc_ev_pool_memsize(const struct mrc_ev_cfg *cfg)
{
	size_t n_total, size;

	if (mrc_ev_cfg_check(cfg, NULL) != 0)
		return 0;
	n_total = (size_t)cfg->n_active + cfg->n_backup;
	size = sizeof(struct mrc_ev_pool) + n_total * sizeof(struct mrc_ev_meta) +
	       n_total * sizeof(uint16_t) * 2 + cfg->n_active * sizeof(uint16_t);
	return RTE_ALIGN_CEIL(size, sizeof(uint64_t));
}

unsigned int
mrc_ev_pool_n_slots(const struct mrc_ev_cfg *cfg)
{
	if (mrc_ev_cfg_check(cfg, NULL) != 0)
		return 0;
	return (unsigned int)cfg->n_active + cfg->n_backup;
}

const char *
mrc_ev_state_name(enum mrc_ev_state st)
{
	switch (st) {
	case MRC_EV_GOOD:
		return "GOOD";
	case MRC_EV_SKIP:
		return "SKIP";
	case MRC_EV_ASSUMED_BAD:
		return "ASSUMED_BAD";
	case MRC_EV_DENIED:
		return "DENIED";
	}
	return "?";
}

unsigned int
mrc_ev_nack_idx(uint8_t reason)
{
	/* clang-format off */
	switch (reason) {
#define MRC_EV_NACK_CASE_(name, code, help) case code: return MRC_EV_NACK_IDX_##name;
	MRC_NACK_REASONS(MRC_EV_NACK_CASE_)
#undef MRC_EV_NACK_CASE_
	/* clang-format on */
	default:
		return MRC_EV_NACK_IDX_OTHER;
	}
}

/* ---- bookkeeping ---- */

/* Add d (+1/-1) to the derived counts for a slot in state st. */
static void
account(struct mrc_ev_pool *p, unsigned int slot, unsigned int st, int d)
{
	if (st == MRC_EV_SKIP)
		p->n_skip = (uint16_t)(p->n_skip + d);
	else if (st == MRC_EV_ASSUMED_BAD)
		p->n_bad = (uint16_t)(p->n_bad + d);
	else if (st == MRC_EV_DENIED)
		p->n_denied = (uint16_t)(p->n_denied + d);
	if (slot >= p->n_active)
		return;

	const unsigned int plane = meta_arr(p)[slot].plane;

	if (st == MRC_EV_GOOD)
		p->good_active[plane] = (uint16_t)(p->good_active[plane] + d);
	if (state_usable(st)) {
		p->usable_active[plane] = (uint16_t)(p->usable_active[plane] + d);
		p->n_usable_active = (uint16_t)(p->n_usable_active + d);
	}
}

static void
plane_masks_update(struct mrc_ev_pool *p, unsigned int plane)
{
	const uint8_t bit = (uint8_t)(1u << plane);

	if (p->good_active[plane] != 0)
		p->good_plane_mask |= bit;
	else
		p->good_plane_mask &= (uint8_t)~bit;
	if (p->usable_active[plane] != 0)
		p->usable_plane_mask |= bit;
	else
		p->usable_plane_mask &= (uint8_t)~bit;
}

/* Change the state of a slot; clears its SKIP and probe counters. */
void
mrc_ev_set_state_(struct mrc_ev_pool *p, unsigned int slot, unsigned int st)
{
	struct mrc_ev_meta *m = &meta_arr(p)[slot];
	const unsigned int old = meta_state(m);

	if (old == st)
		return;
	account(p, slot, old, -1);
	m->bits = (uint8_t)st;
	account(p, slot, st, +1);
	if (old == MRC_EV_ASSUMED_BAD || st == MRC_EV_ASSUMED_BAD) {
		/*
		 * The last bad EV back ends the probe round here, not at the next
		 * mrc_ev_probe_due(), which an owner that reads bad_flag may not
		 * call until an EV is bad again.
		 */
		if (p->n_bad == 0)
			p->probe_cursor = 0;
		if (p->bad_flag != NULL)
			*p->bad_flag = p->n_bad != 0;
	}
	if (slot < p->n_active)
		plane_masks_update(p, m->plane);
	if (state_usable(st) && (p->dead_plane_mask >> m->plane) & 1)
		mrc_ev_revive_(p, m->plane);
	if (p->stats != NULL)
		p->stats[slot].state_changes++;
	/* Out of use, back, or from one reason for it to the other: the listener's business. */
	if (unlikely(p->notify != NULL) && (state_usable(old) != state_usable(st) ||
						   old == MRC_EV_DENIED || st == MRC_EV_DENIED))
		p->notify->fn(p->notify->ctx, mrc_ev_value(p, (int)slot), m->plane, (uint8_t)old,
			(uint8_t)st);
}

/* Trade the EVs (value, state, statistics) of slots a and b, same plane. */
static void
swap_slots(struct mrc_ev_pool *p, unsigned int a, unsigned int b)
{
	uint16_t *evk = evk_arr(p);
	struct mrc_ev_meta *meta = meta_arr(p);
	uint16_t *slot_of = slot_of_arr(p);
	const unsigned int sa = meta_state(&meta[a]);
	const unsigned int sb = meta_state(&meta[b]);

	slot_of[ev_id(p, a)] = (uint16_t)b;
	slot_of[ev_id(p, b)] = (uint16_t)a;
	account(p, a, sa, -1);
	account(p, b, sb, -1);
	RTE_SWAP(evk[a], evk[b]);
	RTE_SWAP(meta[a], meta[b]);
	if (p->stats != NULL)
		RTE_SWAP(p->stats[a], p->stats[b]);
	account(p, a, sb, +1);
	account(p, b, sa, +1);
	plane_masks_update(p, meta[a].plane);
}

/* First backup slot of `plane` in state st, or -1. */
static int
backup_in_state(struct mrc_ev_pool *p, unsigned int plane, unsigned int st)
{
	const struct mrc_ev_meta *meta = meta_arr(p);
	const unsigned int first = p->n_active + plane * p->backup_per_plane;

	for (unsigned int s = first; s < first + p->backup_per_plane; s++)
		if (meta_state(&meta[s]) == st)
			return (int)s;
	return -1;
}

/* The uplink group of the EV in `slot` (cfg.uplink_groups). */
static unsigned int
uplink_group(struct mrc_ev_pool *p, unsigned int slot)
{
	return mrc_ev_layout_uplink(&p->layout, mrc_ev_value(p, (int)slot)) % p->uplink_groups;
}

/*
 * A usable backup to replace the active EV in `slot`: GOOD first, else SKIP,
 * of its plane. When the uplink groups are known: of another group if one
 * has a GOOD backup; and none of its own group when another active EV of
 * that group is ASSUMED_BAD already (the group's T1 looks gone: its backup
 * would only lose a packet more). -1 if none.
 */
static int
replacement(struct mrc_ev_pool *p, unsigned int slot)
{
	const struct mrc_ev_meta *meta = meta_arr(p);
	const unsigned int plane = meta[slot].plane;
	int s;

	if (p->uplink_groups > 1) {
		const unsigned int first = p->n_active + plane * p->backup_per_plane;
		const unsigned int n = p->active_per_plane + p->backup_per_plane;
		const unsigned int g = uplink_group(p, slot);

		for (unsigned int b = first; b < first + p->backup_per_plane; b++)
			if (meta_state(&meta[b]) == MRC_EV_GOOD && uplink_group(p, b) != g)
				return (int)b;
		/* Retired EVs wait in backup slots: look at all of the plane's. */
		for (unsigned int i = 0; i < n; i++) {
			const unsigned int k = plane_slot(p, plane, i);

			if (k != slot && meta_state(&meta[k]) == MRC_EV_ASSUMED_BAD &&
				uplink_group(p, k) == g)
				return -1;
		}
	}
	s = backup_in_state(p, plane, MRC_EV_GOOD);
	return s >= 0 ? s : backup_in_state(p, plane, MRC_EV_SKIP);
}

/*
 * A backup slot just became GOOD: if its plane has an active slot held by a
 * retired EV, trade places so the plane is back to full strength.
 */
void
mrc_ev_promote_(struct mrc_ev_pool *p, unsigned int slot)
{
	const struct mrc_ev_meta *meta = meta_arr(p);
	const unsigned int plane = meta[slot].plane;
	const unsigned int first = plane * p->active_per_plane;

	if (slot < p->n_active || p->usable_active[plane] >= p->active_per_plane)
		return;
	for (unsigned int a = first; a < first + p->active_per_plane; a++) {
		if (!state_usable(meta_state(&meta[a]))) {
			swap_slots(p, a, slot);
			p->cnt.promoted++;
			return;
		}
	}
}

/* ---- dead planes (mrc_ev.h, "Dead planes") ---- */

static bool
plane_has_usable(struct mrc_ev_pool *p, unsigned int plane)
{
	const struct mrc_ev_meta *meta = meta_arr(p);
	const unsigned int n = p->active_per_plane + p->backup_per_plane;

	for (unsigned int i = 0; i < n; i++)
		if (state_usable(meta_state(&meta[plane_slot(p, plane, i)])))
			return true;
	return false;
}

static void
mark_dead(struct mrc_ev_pool *p, unsigned int plane)
{
	const uint8_t bit = (uint8_t)(1u << plane);

	p->loss_run[plane] = 0;
	if (p->dead_plane_mask & bit)
		return;
	p->dead_plane_mask |= bit;
	p->cnt.dead_planes++;
	/* A new death restarts the backoff; the next probe_due() call arms it. */
	p->dead_probe_shift = 0;
	p->dead_probe_pending = 0;
	p->dead_probe_end_tsc = UINT64_MAX;
}

void
mrc_ev_revive_(struct mrc_ev_pool *p, unsigned int plane)
{
	const uint8_t bit = (uint8_t)(1u << plane);

	p->loss_run[plane] = 0;
	if (!(p->dead_plane_mask & bit))
		return;
	p->dead_plane_mask &= (uint8_t)~bit;
	p->dead_probe_pending &= (uint8_t)~bit;
	p->dead_probe_shift = 0;
	p->probe_shift = 0; /* its EVs are back in the per-EV rounds: probe them soon */
	p->cnt.revived_planes++;
}

/*
 * Every usable EV of `plane`, active and backup, -> ASSUMED_BAD, unless that
 * would leave fewer than ev_min_active usable active EVs.
 */
static void
plane_out(struct mrc_ev_pool *p, unsigned int plane)
{
	const unsigned int n = p->active_per_plane + p->backup_per_plane;

	/* The floor: the plane's EVs stay, to be retired one by one as they fail. */
	if (p->n_usable_active - p->usable_active[plane] < p->ev_min_active)
		return;
	for (unsigned int i = 0; i < n; i++) {
		const unsigned int s = plane_slot(p, plane, i);

		if (state_usable(meta_state(&meta_arr(p)[s])))
			mrc_ev_set_state_(p, s, MRC_EV_ASSUMED_BAD);
	}
	p->cnt.plane_outs++;
	mark_dead(p, plane);
}

/* A usable EV of `plane` just went ASSUMED_BAD by silent loss or ALWAYS_SKIP. */
static void
plane_lost_one(struct mrc_ev_pool *p, unsigned int plane)
{
	if (p->loss_run[plane] < UINT8_MAX)
		p->loss_run[plane]++;
	if (p->loss_run[plane] > p->active_per_plane / 2u)
		plane_out(p, plane);
	else if (!plane_has_usable(p, plane))
		mark_dead(p, plane);
}

/*
 * Take a usable EV out of rotation (-> ASSUMED_BAD or DENIED). An active one
 * trades slots with a usable backup of its plane. `floor`: refuse (and count)
 * when no backup is left and the usable active EVs would drop below
 * ev_min_active. True when the EV was taken out.
 */
static bool
retire(struct mrc_ev_pool *p, unsigned int slot, unsigned int st, bool floor)
{
	const unsigned int old = meta_state(&meta_arr(p)[slot]);
	int b;

	if (!state_usable(old)) {
		if (st == MRC_EV_DENIED)
			mrc_ev_set_state_(p, slot, st);
		return false;
	}
	if (slot >= p->n_active) {
		mrc_ev_set_state_(p, slot, st);
	} else {
		b = replacement(p, slot);
		if (b < 0 && floor && p->n_usable_active <= p->ev_min_active) {
			p->cnt.floor_holds++;
			return false;
		}
		mrc_ev_set_state_(p, slot, st);
		if (b >= 0) {
			swap_slots(p, slot, (unsigned int)b);
			p->cnt.retired++;
		} else {
			p->cnt.no_backup++;
		}
	}
	return true;
}

/* GOOD or SKIP -> SKIP for skip_rotations rotation ends (refreshed if already SKIP). */
static void
mark_skip(struct mrc_ev_pool *p, unsigned int slot)
{
	struct mrc_ev_meta *m = &meta_arr(p)[slot];

	if (!state_usable(meta_state(m)))
		return;
	if (meta_state(m) == MRC_EV_GOOD) {
		mrc_ev_set_state_(p, slot, MRC_EV_SKIP);
		p->cnt.skips++;
	}
	meta_set_skip_left(m, p->skip_rotations);
}

/* ---- generation ---- */

/* The runs of random bits (those in neither field), low to high: at most 3. */
static void
find_runs(struct mrc_ev_pool *p, uint32_t rand_mask)
{
	unsigned int b = 0, n = 0, off = 0;

	while (b < 32) {
		unsigned int len = 0;

		if (!((rand_mask >> b) & 1)) {
			b++;
			continue;
		}
		while (b + len < 32 && ((rand_mask >> (b + len)) & 1))
			len++;
		p->run_mask[n] = (uint32_t)(((UINT64_C(1) << len) - 1) << b);
		p->run_shift[n] = (uint8_t)b;
		p->run_off[n] = (uint8_t)off;
		off += len;
		n++;
		b += len;
	}
	p->rand_mask = (uint32_t)((UINT64_C(1) << off) - 1);
}

/* The inverse of an odd number mod 2^32 (Newton: each step doubles the correct low bits). */
static uint32_t
inverse_odd(uint32_t a)
{
	uint32_t x = a; /* right in the low 3 bits */

	for (int i = 0; i < 4; i++)
		x *= 2 - a * x;
	return x;
}

static void
shuffle(struct mrc_ev_pool *p, struct mrc_rand *rand)
{
	uint16_t *perm = perm_arr(p);

	for (unsigned int i = p->n_active - 1; i > 0; i--) {
		const unsigned int j = (unsigned int)mrc_rand_bounded(rand, i + 1);

		RTE_SWAP(perm[i], perm[j]);
	}
}

int
mrc_ev_pool_init(struct mrc_ev_pool *pool, const struct mrc_ev_cfg *cfg, struct mrc_rand *rand,
	struct mrc_ev_stats *stats)
{
	const size_t size = mrc_ev_pool_memsize(cfg);

	if (size == 0 || pool == NULL || rand == NULL ||
		((uintptr_t)pool & (alignof(struct mrc_ev_pool) - 1)) != 0)
		return -EINVAL;
	memset(pool, 0, size);

	const struct mrc_ev_layout *l = &cfg->layout;
	const uint32_t n_total = (uint32_t)cfg->n_active + cfg->n_backup;
	const uint32_t rand_mask = ~(field_mask(l->plane_shift, l->plane_bits) |
				     field_mask(l->uplink_shift, l->uplink_bits));
	const uint32_t uplink_mask = (uint32_t)((UINT64_C(1) << l->uplink_bits) - 1);

	pool->n_active = cfg->n_active;
	pool->n_total = (uint16_t)n_total;
	pool->active_per_plane = (uint16_t)(cfg->n_active / cfg->n_planes);
	pool->backup_per_plane = (uint16_t)(cfg->n_backup / cfg->n_planes);
	pool->per_plane = (uint16_t)(pool->active_per_plane + pool->backup_per_plane);
	pool->ev_min_active = cfg->ev_min_active;
	pool->n_planes = cfg->n_planes;
	pool->skip_rotations = cfg->skip_rotations;
	pool->probe_good_needed = cfg->probe_good_needed;
	pool->reshuffle = cfg->reshuffle;
	pool->uplink_groups = cfg->uplink_groups;
	pool->layout = *l;
	/* A field of width 0 reads as 0 whatever its shift: make the shift 0, mrc_ev_make_() shifts
	 * by it. */
	if (l->plane_bits == 0)
		pool->layout.plane_shift = 0;
	if (l->uplink_bits == 0)
		pool->layout.uplink_shift = 0;
	pool->uplink_mask = uplink_mask;
	find_runs(pool, rand_mask);
	pool->probe_interval_tsc = cfg->probe_interval_tsc;
	pool->stats = stats;
	pool->notify = NULL;
	pool->bad_flag = NULL;
	if (stats != NULL)
		memset(stats, 0, n_total * sizeof(*stats));

	/*
	 * Each plane's EVs take consecutive uplink numbers from a random
	 * start; the random bits come from a per-pool seed and multiplier, so
	 * two QPs share no pattern (mrc_ev_make_()).
	 */
	for (unsigned int plane = 0; plane < cfg->n_planes; plane++)
		pool->uplink_start[plane] =
			(uint16_t)mrc_rand_bounded(rand, (uint64_t)uplink_mask + 1);
	pool->ev_seed = mrc_rand_u32(rand);
	pool->ev_mul = mrc_rand_u32(rand) | 1u;
	pool->ev_mul_inv = inverse_odd(pool->ev_mul);

	struct mrc_ev_meta *meta = meta_arr(pool);
	uint16_t *evk = evk_arr(pool);
	uint16_t *slot_of = slot_of_arr(pool);

	for (unsigned int plane = 0; plane < cfg->n_planes; plane++) {
		for (unsigned int k = 0; k < pool->per_plane; k++) {
			const unsigned int slot = plane_slot(pool, plane, k);

			evk[slot] = (uint16_t)k;
			slot_of[plane * pool->per_plane + k] = (uint16_t)slot;
			meta[slot].plane = (uint8_t)plane;
			meta[slot].bits = MRC_EV_GOOD;
			account(pool, slot, MRC_EV_GOOD, +1);
		}
		plane_masks_update(pool, plane);
	}

	uint16_t *perm = perm_arr(pool);

	for (unsigned int i = 0; i < cfg->n_active; i++)
		perm[i] = (uint16_t)i;
	shuffle(pool, rand);
	pool->peek = perm[0];
	return 0;
}

/* ---- pick ---- */

/* The cursor passed the last entry: expire SKIPs, reshuffle, restart. */
static void
end_rotation(struct mrc_ev_pool *p, struct mrc_rand *rand)
{
	struct mrc_ev_meta *meta = meta_arr(p);

	p->cnt.rotations++;
	p->cursor = 0;
	for (unsigned int s = 0; p->n_skip != 0 && s < p->n_total; s++) {
		struct mrc_ev_meta *m = &meta[s];
		const unsigned int left = meta_skip_left(m);

		if (meta_state(m) != MRC_EV_SKIP)
			continue;
		if (left > 1) {
			meta_set_skip_left(m, left - 1);
			continue;
		}
		mrc_ev_set_state_(p, s, MRC_EV_GOOD);
		mrc_ev_promote_(p, s);
	}
	if (p->reshuffle && rand != NULL)
		shuffle(p, rand);
}

int
mrc_ev_pick(struct mrc_ev_pool *pool, uint32_t plane_ok_mask, struct mrc_rand *rand)
{
	const uint32_t ok = plane_ok_mask & ((UINT32_C(1) << pool->n_planes) - 1);
	const struct mrc_ev_meta *meta = meta_arr(pool);
	const uint16_t *perm = perm_arr(pool);

	if ((pool->good_plane_mask & ok) == 0) {
		if ((pool->usable_plane_mask & ok) == 0)
			goto none;
		/* Only SKIP EVs left on the allowed planes: this rotation is over. */
		end_rotation(pool, rand);
		if ((pool->good_plane_mask & ok) == 0)
			goto none;
	}
	/*
	 * A GOOD active EV on an allowed plane exists, so it is in the
	 * permutation: found before the end of this rotation or within the
	 * whole of the next one (rotation ends only add GOOD EVs).
	 */
	for (unsigned int n = 0; n < 2u * pool->n_active; n++) {
		if (pool->cursor >= pool->n_active)
			end_rotation(pool, rand);

		const unsigned int slot = perm[pool->cursor++];
		const struct mrc_ev_meta *m = &meta[slot];

		if (meta_state(m) == MRC_EV_GOOD && (ok >> m->plane) & 1) {
			/* from the line just read, most times */
			pool->peek = perm[pool->cursor < pool->n_active ? pool->cursor : 0];
			return (int)slot;
		}
	}
none:
	pool->cnt.pick_none++;
	return -1;
}

/*
 * Where `ev` would be in slot_of[] (plane x per_plane + k), or -1 when it
 * cannot be this pool's: the arithmetic of mrc_ev_find(), which reads the
 * pool's first two lines and nothing else.
 */
static inline int
find_index(const struct mrc_ev_pool *pool, uint32_t ev)
{
	const struct mrc_ev_layout *l = &pool->layout;
	const uint32_t plane = mrc_ev_layout_plane(l, ev);
	uint32_t k_lo, k_hi, r;

	if (plane >= pool->n_planes)
		return -1;
	k_lo = (mrc_ev_layout_uplink(l, ev) - pool->uplink_start[plane]) & pool->uplink_mask;
	r = (ev & pool->run_mask[0]) >> pool->run_shift[0] |
	    ((ev & pool->run_mask[1]) >> pool->run_shift[1]) << pool->run_off[1] |
	    ((ev & pool->run_mask[2]) >> pool->run_shift[2]) << pool->run_off[2];
	k_hi = ((r - mrc_ev_rand_part_(pool, plane, k_lo)) * pool->ev_mul_inv) & pool->rand_mask;
	/* Every bit of ev is in a field or a run: (plane, k) in range is this pool's EV. */
	if (k_hi > (uint32_t)(pool->per_plane - 1) >> l->uplink_bits)
		return -1;
	const uint32_t k = k_hi << l->uplink_bits | k_lo;

	if (k >= pool->per_plane)
		return -1;
	return (int)(plane * pool->per_plane + k);
}

int
mrc_ev_find(const struct mrc_ev_pool *pool, uint32_t ev)
{
	const int i = find_index(pool, ev);

	return i < 0 ? -1 : slot_of_arr_c(pool)[i];
}

void
mrc_ev_prefetch_find(const struct mrc_ev_pool *pool, uint32_t ev)
{
	const int i = find_index(pool, ev);

	if (i >= 0)
		rte_prefetch0(&slot_of_arr_c(pool)[i]);
}

void
mrc_ev_on_tx(struct mrc_ev_pool *pool, int slot, uint32_t len_bytes)
{
	if (pool->stats == NULL || !slot_ok(pool, slot))
		return;
	pool->stats[slot].tx_pkts++;
	pool->stats[slot].tx_bytes += len_bytes;
}

/* ---- feedback ---- */

int
mrc_ev_on_sack(struct mrc_ev_pool *pool, int slot, enum mrc_sack_m m, uint32_t rtt_ns)
{
	if (!slot_ok(pool, slot))
		return -EINVAL;
	if (pool->stats != NULL) {
		struct mrc_ev_stats *st = &pool->stats[slot];

		st->acks++;
		if (m == MRC_SACK_M_SKIP_ONCE)
			st->ecn_echoes++;
		else if (m == MRC_SACK_M_ALWAYS_SKIP)
			st->always_skips++;
		if (rtt_ns != 0) {
			st->last_rtt_ns = rtt_ns;
			if (st->min_rtt_ns == 0 || rtt_ns < st->min_rtt_ns)
				st->min_rtt_ns = rtt_ns;
		}
	}
	/* A packet got through a usable EV of this plane: the plane lives. */
	if (state_usable(mrc_ev_state(pool, slot)))
		pool->loss_run[mrc_ev_plane(pool, slot)] = 0;
	if (m == MRC_SACK_M_SKIP_ONCE)
		mark_skip(pool, (unsigned int)slot);
	else if (m == MRC_SACK_M_ALWAYS_SKIP)
		retire(pool, (unsigned int)slot, MRC_EV_ASSUMED_BAD, true);
	return 0;
}

int
mrc_ev_on_nack(struct mrc_ev_pool *pool, int slot, uint8_t reason)
{
	if (!slot_ok(pool, slot))
		return -EINVAL;
	if (pool->stats != NULL)
		pool->stats[slot].nacks[mrc_ev_nack_idx(reason)]++;
	/* A NACK echoing this EV means its packet (or its trimmed header) got through. */
	if (state_usable(mrc_ev_state(pool, slot)))
		pool->loss_run[mrc_ev_plane(pool, slot)] = 0;
	/* TRIMMED_LASTHOP: incast at the destination's own link; the path is fine. */
	if (reason == MRC_NACK_TRIMMED)
		mark_skip(pool, (unsigned int)slot);
	return 0;
}

int
mrc_ev_on_loss(struct mrc_ev_pool *pool, int slot)
{
	if (!slot_ok(pool, slot))
		return -EINVAL;
	if (pool->stats != NULL)
		pool->stats[slot].losses++;
	/* Only silent losses count toward a dead plane: an ALWAYS_SKIP came back. */
	if (retire(pool, (unsigned int)slot, MRC_EV_ASSUMED_BAD, true)) {
		pool->probe_shift = 0; /* a new failure: look at it soon */
		plane_lost_one(pool, mrc_ev_plane(pool, slot));
	}
	return 0;
}

/* ---- control plane ---- */

int
mrc_ev_deny(struct mrc_ev_pool *pool, int slot)
{
	if (!slot_ok(pool, slot))
		return -EINVAL;
	if (mrc_ev_state(pool, slot) == MRC_EV_DENIED)
		return 0;
	pool->cnt.denied++;
	retire(pool, (unsigned int)slot, MRC_EV_DENIED, false);
	return 0;
}

int
mrc_ev_allow(struct mrc_ev_pool *pool, int slot)
{
	if (!slot_ok(pool, slot))
		return -EINVAL;
	if (mrc_ev_state(pool, slot) == MRC_EV_GOOD)
		return 0;
	mrc_ev_set_state_(pool, (unsigned int)slot, MRC_EV_GOOD);
	mrc_ev_promote_(pool, (unsigned int)slot);
	return 0;
}

/* ---- telemetry ---- */

void
mrc_ev_pool_totals(const struct mrc_ev_pool *pool, struct mrc_ev_totals *out)
{
	uint32_t good = 0, usable = 0;

	for (unsigned int p = 0; p < pool->n_planes && p < MRC_EV_MAX_PLANES; p++) {
		good += pool->good_active[p];
		usable += pool->usable_active[p];
	}
	*out = (struct mrc_ev_totals){
		.active_good = good,
		.active_skip = usable - good,
		.bad = pool->n_bad,
		.denied = pool->n_denied,
	};
}

int
mrc_ev_plane_counts(const struct mrc_ev_pool *pool, unsigned int plane, struct mrc_ev_counts *out)
{
	const struct mrc_ev_meta *meta = mrc_ev_metas_(pool);
	unsigned int first;

	if (plane >= pool->n_planes || out == NULL)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	first = plane * pool->active_per_plane;
	for (unsigned int s = first; s < first + pool->active_per_plane; s++)
		out->active[meta_state(&meta[s])]++;
	first = pool->n_active + plane * pool->backup_per_plane;
	for (unsigned int s = first; s < first + pool->backup_per_plane; s++)
		out->backup[meta_state(&meta[s])]++;
	return 0;
}
