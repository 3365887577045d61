/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRC_EV_PRIV_H
#define MRC_EV_PRIV_H

/*
 * Inside the EV pool: the layout of the arrays after the header, the
 * per-EV state bits, and the bookkeeping functions mrc_ev.c and
 * mrc_ev_probe.c share (mrc_ev.c explains the bookkeeping). Not for users
 * of the pool.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>

#include "mrc_ev.h"

#define META_STATE_MASK 0x03u
#define META_SKIP_SHIFT 2
#define META_SKIP_MASK	0x0cu
#define META_GOOD_SHIFT 4
#define META_GOOD_MASK	0xf0u

/* ---- layout of the arrays after the header ---- */

static inline struct mrc_ev_meta *
meta_arr(struct mrc_ev_pool *p)
{
	return (struct mrc_ev_meta *)p->data;
}

static inline uint16_t *
evk_arr(struct mrc_ev_pool *p)
{
	return (uint16_t *)(meta_arr(p) + p->n_total);
}

static inline uint16_t *
perm_arr(struct mrc_ev_pool *p)
{
	return evk_arr(p) + p->n_total;
}

static inline uint16_t *
slot_of_arr(struct mrc_ev_pool *p)
{
	return perm_arr(p) + p->n_active;
}

static inline const uint16_t *
slot_of_arr_c(const struct mrc_ev_pool *p)
{
	return mrc_ev_evks_(p) + p->n_total + p->n_active;
}

/* Index of the EV in `slot` in slot_of[]: plane x per_plane + k. */
static inline unsigned int
ev_id(struct mrc_ev_pool *p, unsigned int slot)
{
	return meta_arr(p)[slot].plane * p->per_plane + evk_arr(p)[slot];
}

/* ---- per-EV state bits ---- */

static inline unsigned int
meta_state(const struct mrc_ev_meta *m)
{
	return m->bits & META_STATE_MASK;
}

static inline unsigned int
meta_skip_left(const struct mrc_ev_meta *m)
{
	return (m->bits & META_SKIP_MASK) >> META_SKIP_SHIFT;
}

static inline void
meta_set_skip_left(struct mrc_ev_meta *m, unsigned int n)
{
	m->bits =
		(uint8_t)((m->bits & ~META_SKIP_MASK) | ((n << META_SKIP_SHIFT) & META_SKIP_MASK));
}

static inline unsigned int
meta_probe_good(const struct mrc_ev_meta *m)
{
	return (m->bits & META_GOOD_MASK) >> META_GOOD_SHIFT;
}

static inline void
meta_set_probe_good(struct mrc_ev_meta *m, unsigned int n)
{
	m->bits =
		(uint8_t)((m->bits & ~META_GOOD_MASK) | ((n << META_GOOD_SHIFT) & META_GOOD_MASK));
}

static inline bool
state_usable(unsigned int st)
{
	return st == MRC_EV_GOOD || st == MRC_EV_SKIP;
}

static inline bool
slot_ok(const struct mrc_ev_pool *p, int slot)
{
	return slot >= 0 && slot < p->n_total;
}

/* Slot of the i-th EV of `plane`, 0 <= i < active_per_plane + backup_per_plane. */
static inline unsigned int
plane_slot(const struct mrc_ev_pool *p, unsigned int plane, unsigned int i)
{
	if (i < p->active_per_plane)
		return plane * p->active_per_plane + i;
	return p->n_active + plane * p->backup_per_plane + (i - p->active_per_plane);
}

/* Every state change goes through here: it keeps the derived counts exact. */
void mrc_ev_set_state_(struct mrc_ev_pool *p, unsigned int slot, unsigned int st);
/* A backup slot just became GOOD: fill a retired active slot of its plane. */
void mrc_ev_promote_(struct mrc_ev_pool *p, unsigned int slot);
/* A dead plane answered: back in the per-EV rounds. */
void mrc_ev_revive_(struct mrc_ev_pool *p, unsigned int plane);

#endif /* MRC_EV_PRIV_H */
