/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Probing retired EVs and bringing them back (mrc_ev.h, "Probing" and
 * "Dead planes"): per-EV probe rounds that back off while nobody answers,
 * one probe per round for a plane found dead, the answers, and the fresh
 * start of a QP that stands still.
 */

#include <errno.h>

#include "mrc_ev.h"
#include "mrc_ev_priv.h"

static int
probe_chosen(struct mrc_ev_pool *p, unsigned int s)
{
	p->cnt.probes++;
	if (p->stats != NULL)
		p->stats[s].probes++;
	return (int)s;
}

/*
 * The dead-plane round: one ASSUMED_BAD EV of each dead plane, the plane's
 * EVs in turn from round to round; rounds back off exponentially.
 */
static int
dead_plane_probe(struct mrc_ev_pool *p, uint64_t now_tsc)
{
	const struct mrc_ev_meta *meta = meta_arr(p);
	const unsigned int per_plane = p->active_per_plane + p->backup_per_plane;

	if (p->dead_probe_pending == 0) {
		if (p->dead_probe_end_tsc == UINT64_MAX) {
			/* Just died: everything on it was lost a moment ago. */
			p->dead_probe_end_tsc = now_tsc;
			return -1;
		}
		if (now_tsc - p->dead_probe_end_tsc <
			(p->probe_interval_tsc << p->dead_probe_shift))
			return -1;
		p->dead_probe_pending = p->dead_plane_mask;
		p->dead_probe_end_tsc = now_tsc;
		if (p->dead_probe_shift < MRC_EV_PROBE_MAX_SHIFT)
			p->dead_probe_shift++;
	}
	while (p->dead_probe_pending != 0) {
		const unsigned int plane = (unsigned int)__builtin_ctz(p->dead_probe_pending);

		p->dead_probe_pending &= (uint8_t)(p->dead_probe_pending - 1);
		for (unsigned int n = 0; n < per_plane; n++) {
			const unsigned int i = p->dead_probe_at[plane];
			const unsigned int s = plane_slot(p, plane, i);

			p->dead_probe_at[plane] = (uint16_t)(i + 1 < per_plane ? i + 1 : 0);
			if (meta_state(&meta[s]) == MRC_EV_ASSUMED_BAD)
				return probe_chosen(p, s);
		}
	}
	return -1;
}

int
mrc_ev_probe_due(struct mrc_ev_pool *pool, uint64_t now_tsc)
{
	const struct mrc_ev_meta *meta = meta_arr(pool);
	int s;

	if (pool->n_bad == 0)
		return -1; /* and the round is over: mrc_ev_set_state_ reset the cursor */
	if (pool->dead_plane_mask != 0 && (s = dead_plane_probe(pool, now_tsc)) >= 0)
		return s;
	if (pool->probe_cursor == 0 && pool->probe_end_tsc != 0 &&
		now_tsc - pool->probe_end_tsc < (pool->probe_interval_tsc << pool->probe_shift))
		return -1;
	while (pool->probe_cursor < pool->n_total) {
		const unsigned int k = pool->probe_cursor++;

		/* A dead plane's EVs are left to its own, slower, round. */
		if (meta_state(&meta[k]) == MRC_EV_ASSUMED_BAD &&
			!((pool->dead_plane_mask >> meta[k].plane) & 1))
			return probe_chosen(pool, k);
	}
	/*
	 * Round over. The next waits twice as long as this one did, unless an
	 * answer or a new loss comes first (probe_shift = 0 at once).
	 */
	pool->probe_cursor = 0;
	pool->probe_end_tsc = now_tsc;
	if (pool->probe_shift < MRC_EV_PROBE_MAX_SHIFT)
		pool->probe_shift++;
	return -1;
}

int
mrc_ev_on_probe_answer(struct mrc_ev_pool *pool, int slot, enum mrc_sack_m m)
{
	struct mrc_ev_meta *meta;
	unsigned int good;

	if (!slot_ok(pool, slot))
		return -EINVAL;
	meta = &meta_arr(pool)[slot];
	if (meta_state(meta) != MRC_EV_ASSUMED_BAD)
		return 0;
	/* Any answer but ALWAYS_SKIP: the plane forwards again (or never died). */
	if (m != MRC_SACK_M_ALWAYS_SKIP) {
		mrc_ev_revive_(pool, meta->plane);
		pool->probe_shift = 0;
	}
	switch (m) {
	case MRC_SACK_M_NONE:
		good = meta_probe_good(meta) + 1;
		if (good < pool->probe_good_needed) {
			meta_set_probe_good(meta, good);
			break;
		}
		mrc_ev_set_state_(pool, (unsigned int)slot, MRC_EV_GOOD);
		pool->cnt.readmitted++;
		mrc_ev_promote_(pool, (unsigned int)slot);
		break;
	case MRC_SACK_M_SKIP_ONCE:
		/* The path forwards but is congested: usable, GOOD after its rotation. */
		mrc_ev_set_state_(pool, (unsigned int)slot, MRC_EV_SKIP);
		meta_set_skip_left(meta, pool->skip_rotations);
		pool->cnt.skips++;
		break;
	default:
		meta_set_probe_good(meta, 0);
		break;
	}
	return 0;
}

int
mrc_ev_on_probe_timeout(struct mrc_ev_pool *pool, int slot)
{
	struct mrc_ev_meta *meta;

	if (!slot_ok(pool, slot))
		return -EINVAL;
	if (pool->stats != NULL)
		pool->stats[slot].probe_timeouts++;
	meta = &meta_arr(pool)[slot];
	if (meta_state(meta) == MRC_EV_ASSUMED_BAD)
		meta_set_probe_good(meta, 0);
	return 0;
}

int
mrc_ev_readmit_all(struct mrc_ev_pool *pool)
{
	const struct mrc_ev_meta *meta = meta_arr(pool);
	int n = 0;

	if (pool->n_bad == 0)
		return 0;
	/* Backups after actives, so mrc_ev_promote_() finds the active slots to fill already GOOD.
	 */
	for (unsigned int s = 0; s < pool->n_total; s++) {
		if (meta_state(&meta[s]) != MRC_EV_ASSUMED_BAD)
			continue;
		mrc_ev_set_state_(pool, s, MRC_EV_GOOD);
		mrc_ev_promote_(pool, s);
		n++;
	}
	pool->cnt.stall_readmitted += (uint64_t)n;
	return n;
}
