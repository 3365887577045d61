/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Requester-side reliability, the setup half: defaults, sizes, checking a
 * configuration, init, and attaching or giving back the tracking memory a
 * QP borrows while it has packets in flight (mrc_rel_tx.h).
 */

#include <errno.h>
#include <string.h>

#include <rte_common.h>
#include <rte_debug.h>

#include "mrc_rel_tx.h"
#include "mrc_rel_tx_priv.h"
#include "mrc_seq.h"

static uint32_t
ring_size(uint8_t mpr)
{
	return RTE_MAX(rte_align32pow2((uint32_t)mpr * MRC_MPR_UNIT_PSNS), 64u);
}

void
mrc_rel_tx_cfg_defaults(struct mrc_rel_tx_cfg *cfg, uint64_t tsc_hz)
{
	*cfg = (struct mrc_rel_tx_cfg){
		.mpr = 8,
		.n_ev_slots = 160,
		.timeout = 8, /* 262 us, the OCP API example */
		.retry_linear = 7,
		.retry_exp = MRC_REL_RETRY_EXP_INFINITE,
		.tsc_hz = tsc_hz,
		.initial_rtt_tsc = tsc_hz / 100000,    /* 10 us */
		.min_reo_tsc = tsc_hz / 1000000,       /* 1 us */
		.min_pkt_timeout_tsc = tsc_hz / 50000, /* 20 us */
	};
}

size_t
mrc_rel_tx_trk_memsize(const struct mrc_rel_tx_cfg *cfg)
{
	uint32_t n = ring_size(cfg->mpr);

	return (size_t)n * sizeof(struct mrc_rel_tx_pkt) + n / 8 +
	       RTE_ALIGN_CEIL((size_t)cfg->n_ev_slots * 2 * sizeof(uint16_t), 8);
}

size_t
mrc_rel_tx_memsize(const struct mrc_rel_tx_cfg *cfg)
{
	return sizeof(struct mrc_rel_tx) + mrc_rel_tx_trk_memsize(cfg);
}

static int
init_hdr(struct mrc_rel_tx *tx, const struct mrc_rel_tx_cfg *cfg, uint32_t start_psn,
	uint64_t now_tsc)
{
	uint32_t n;

	if (cfg->mpr == 0 || cfg->n_ev_slots == 0 || cfg->n_ev_slots == MRC_REL_NIL ||
		cfg->timeout > 24 || cfg->retry_linear > 7 ||
		cfg->retry_exp > MRC_REL_RETRY_EXP_INFINITE || cfg->tsc_hz == 0 ||
		cfg->ts_shift > 48)
		return -EINVAL;
	if (cfg->path_n_t1 != 0 &&
		(cfg->path_plane_bits > 8 || cfg->path_uplink_bits > 16 ||
			(cfg->path_plane_bits != 0 &&
				cfg->path_plane_shift + cfg->path_plane_bits > 32) ||
			(cfg->path_uplink_bits != 0 &&
				cfg->path_uplink_shift + cfg->path_uplink_bits > 32) ||
			(UINT32_C(1) << cfg->path_plane_bits) * cfg->path_n_t1 > cfg->n_ev_slots))
		return -EINVAL;
	n = ring_size(cfg->mpr);
	if (n > 32768) /* ring indexes are 16 bits with MRC_REL_NIL reserved */
		return -EINVAL;
	memset(tx, 0, sizeof(*tx));
	tx->snd_una = tx->snd_nxt = start_psn & MRC_PSN_MASK;
	tx->window = (uint32_t)cfg->mpr * MRC_MPR_UNIT_PSNS;
	tx->window_max = tx->window;
	tx->dyn_mpr = cfg->dyn_mpr;
	tx->ts_shift = cfg->ts_shift;
	tx->mask = n - 1;
	tx->n_ev = cfg->n_ev_slots;
	tx->t_head = tx->t_tail = MRC_REL_NIL;
	tx->probe_slot = MRC_REL_NIL;
	tx->retry_linear = cfg->retry_linear;
	tx->retry_exp = cfg->retry_exp;
	tx->gbn = cfg->gbn;
	tx->path_n_t1 = cfg->path_n_t1;
	tx->path_plane_shift = cfg->path_plane_shift;
	tx->path_plane_bits = cfg->path_plane_bits;
	tx->path_uplink_shift = cfg->path_uplink_shift;
	tx->path_uplink_bits = cfg->path_uplink_bits;
	/* 1.024 us x 2^timeout */
	tx->base_rto_tsc = (uint64_t)(((unsigned __int128)cfg->tsc_hz * (1024ull << cfg->timeout)) /
				      1000000000ull);
	tx->min_reo_tsc = cfg->min_reo_tsc;
	tx->min_pkt_timeout_tsc = cfg->min_pkt_timeout_tsc;
	tx->srtt_tsc = cfg->initial_rtt_tsc;
	tx->rttvar_tsc = cfg->initial_rtt_tsc / 2;
	tx->min_rtt_tsc = UINT64_MAX;
	tx->progress_tsc = tx->last_ack_tsc = now_tsc;
	return 0;
}

int
mrc_rel_tx_init(struct mrc_rel_tx *tx, const struct mrc_rel_tx_cfg *cfg, uint32_t start_psn,
	uint64_t now_tsc)
{
	int rc = init_hdr(tx, cfg, start_psn, now_tsc);

	if (rc != 0)
		return rc;
	memset(tx->mem, 0, mrc_rel_tx_trk_memsize(cfg));
	mrc_rel_tx_attach(tx, tx->mem, 0);
	return 0;
}

int
mrc_rel_tx_init_lent(struct mrc_rel_tx *tx, const struct mrc_rel_tx_cfg *cfg, uint32_t start_psn,
	uint64_t now_tsc)
{
	return init_hdr(tx, cfg, start_psn, now_tsc);
}

/*
 * The stamp of a block whose lost bits (for this ring) are zero and whose
 * first 2 x n_ev list words are MRC_REL_NIL: a sender with the same ring
 * and at most as many EV slots finds its lists reset (its heads and tails
 * both lie in that prefix). Never 0: the ring has at least 64 entries.
 */
static uint64_t
clean_stamp(const struct mrc_rel_tx *tx)
{
	return (uint64_t)(tx->mask + 1) << 32 | tx->n_ev;
}

static bool
stamp_fits(const struct mrc_rel_tx *tx, uint64_t clean)
{
	return clean >> 32 == (uint64_t)tx->mask + 1 && (uint32_t)clean >= tx->n_ev;
}

bool
mrc_rel_tx_trk_reset(const struct mrc_rel_tx *tx)
{
	const uint64_t *lb = lost_bits_c(tx);
	const uint16_t *lists = (const uint16_t *)(lb + (tx->mask + 1) / 64);

	for (uint32_t i = 0; i < (tx->mask + 1) / 64; i++)
		if (lb[i] != 0)
			return false;
	for (uint32_t i = 0; i < 2u * tx->n_ev; i++)
		if (lists[i] != MRC_REL_NIL)
			return false;
	return true;
}

void
mrc_rel_tx_attach(struct mrc_rel_tx *tx, void *trk, uint64_t clean)
{
	/* The ring is PKT_FREE throughout (a fresh or drained block); the rest is set here. */
	tx->trk = trk;
	if (stamp_fits(tx, clean))
		return; /* the drained sender's detach checked them (RTE_ASSERT builds) */
	memset(lost_bits(tx), 0, (tx->mask + 1) / 8);
	for (uint16_t i = 0; i < tx->n_ev; i++)
		ev_heads(tx)[i] = ev_tails(tx)[i] = MRC_REL_NIL;
}

void *
mrc_rel_tx_detach(struct mrc_rel_tx *tx, uint64_t *clean)
{
	void *trk = tx->trk;
	uint64_t stamp = 0;

	if (trk == NULL)
		goto out;
	if (!mrc_rel_tx_drained(tx)) {
		/* Given back with packets in flight (reset, destroy): the sender is done. */
		memset(trk, 0, ring_bytes(tx));
		tx->t_head = tx->t_tail = MRC_REL_NIL;
		tx->snd_una = tx->snd_nxt;
		tx->n_inflight = tx->n_lost = 0;
	} else {
		/*
		 * Drained: every packet sent was freed when snd_una passed it, which
		 * took it off its EV list (each list back to NIL, head and tail) and,
		 * with n_lost 0, no lost bit is left set.
		 */
		RTE_ASSERT(mrc_rel_tx_trk_reset(tx));
		stamp = clean_stamp(tx);
	}
	tx->trk = NULL;
out:
	if (clean != NULL)
		*clean = stamp;
	return trk;
}
