/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRC_EV_H
#define MRC_EV_H

/**
 * @file
 * The per-QP entropy-value (EV) pool: which path the next packet takes
 * (doc/protocol.md, "EV lifecycle" and "Where the EV travels").
 *
 * What an EV is. A 32-bit value a requester stamps on each packet (UDP
 * source port + flow label, lib/wire). In SRv6 mode it also names the path:
 * some of its bits are the plane (which NIC port / network plane) and the
 * T0 uplink (which T1 switch), see struct mrc_ev_layout and mrc_ev_path.h;
 * the remaining bits are random so that two QPs rarely share values. The
 * responder echoes the EV in every SACK and NACK, so feedback names the path
 * that carried the packet.
 *
 * The pool. At QP start we generate n_active + n_backup EVs, the same number
 * on every plane, and keep them in slots:
 *
 *   slot 0 .. n_active-1                      the ACTIVE set: what we spray on.
 *                                             Grouped by plane: plane p owns
 *                                             slots p*A .. p*A+A-1 (A = n_active
 *                                             / n_planes), forever.
 *   slot n_active .. n_active+n_backup-1      the BACKUP set, grouped the same
 *                                             way (B = n_backup / n_planes per
 *                                             plane). Also where retired EVs
 *                                             wait while they are probed.
 *
 * A slot is a position, not an EV: when an active EV fails, it trades slots
 * with a GOOD backup EV of the same plane, so each plane keeps exactly A
 * active slots and plane loading stays equal (doc/protocol.md, "The pool": an
 * unequal split looks like incast to the destinations). Hold EV values, not
 * slots, across time (the QP records the EV it sent each packet on, it is on
 * the wire anyway) and turn an echoed EV back into its current slot with
 * mrc_ev_find() when feedback arrives.
 *
 * Per-EV state and the lifecycle (doc/protocol.md, "States"):
 *
 *                    SACK M=SKIP_ONCE (ECN), NACK TRIMMED
 *          +------+ -------------------------------------> +------+
 *          | GOOD |                                        | SKIP |
 *          +------+ <------------------------------------- +------+
 *           |    ^     rotation end (skip_rotations of them)  |    ^
 *   loss,   |    |                                            |    |
 *   SACK M= |    | probe_good_needed probe        loss, SACK  |    | probe answer
 *   ALWAYS_ |    | answers in a row, M=NONE     M=ALWAYS_SKIP |    | M=SKIP_ONCE
 *   SKIP    v    |                                            v    |
 *          +-------------+ <----------------------------------+    |
 *          | ASSUMED_BAD | ----------------------------------------+
 *          +-------------+
 *
 *   Entering ASSUMED_BAD, an active EV trades slots at once with a GOOD
 *   backup of its plane (retire and replace).
 *
 *        any --- controller deny ---> DENIED --- controller allow ---> GOOD
 *
 * - GOOD: sendable. SKIP: usable but not sent on until its rotation ends
 *   (mild congestion moves traffic to another path; doc/protocol.md,
 *   "Congestion control").
 * - ASSUMED_BAD: out of rotation; probed in the background (mrc_ev_probe_due)
 *   and re-admitted after probe_good_needed good answers in a row.
 * - DENIED: set by the control plane; never recovers by itself.
 * - NACK TRIMMED_LASTHOP changes nothing: the last hop is the destination's
 *   own link (incast), not a property of the path. Other NACKs only count.
 *
 * Dead planes. A plane whose EVs fail one after another with no sign of
 * life in between has failed as a whole (the host did not see it: a black
 * hole, a memif port, a T0 with every uplink gone), and every EV of it
 * would otherwise have to lose a packet of its own, backups included, and
 * then be probed every interval forever. So the pool declares a plane DEAD
 * when
 *   - more than half of its active EVs' worth (active_per_plane / 2 + 1)
 *     of its EVs have gone ASSUMED_BAD by silent loss (or ALWAYS_SKIP) in a
 *     row, with no SACK on a usable EV of the plane in between: the rest of
 *     its usable EVs, active and backup, go ASSUMED_BAD at once (counted in
 *     plane_outs; not done if it would leave fewer than ev_min_active usable
 *     active EVs: then they keep being retired one by one); or
 *   - its last usable EV, active or backup, goes ASSUMED_BAD.
 * A fault that kills only some paths of a plane (a T0-T1 link, a T1 when the
 * plane has several) leaves SACKs arriving on the plane's other EVs, which
 * restart the count, so only those EVs are retired, one by one, as before.
 * New data is never sent on a dead plane (it has no GOOD EV): its share goes
 * to the live planes. Its EVs are no longer probed one by one each round:
 * mrc_ev_probe_due() returns one EV of each dead plane (in turn) per dead
 * plane round, and the rounds back off exponentially, probe_interval x 2^k,
 * k up to MRC_EV_PROBE_MAX_SHIFT; a newly dead plane restarts them at
 * k = 0. A good probe answer (M = NONE or SKIP_ONCE) on any EV of a dead
 * plane revives the plane: it is probed EV by EV again and its EVs are
 * re-admitted as usual.
 *
 * Floor (ev_min_active, doc/protocol.md "Retiring, replacing, probing", Linux
 * MPTCP's "mark a path failed only while another usable one exists"): a loss
 * or ALWAYS_SKIP that would leave fewer than ev_min_active usable (GOOD or
 * SKIP) active EVs is counted in floor_holds and ignored. Losses that a
 * backup absorbs never hit the floor, since the usable count does not change.
 * The controller (deny) is not subject to the floor.
 *
 * Picking (mrc_ev_pick): a permutation of the active slots is walked by a
 * cursor; each call returns the next GOOD slot whose plane bit is set in the
 * caller's plane_ok_mask (local port up, peer port up, tx queue has room).
 * Entries that are not eligible when the cursor passes them lose their turn
 * in this rotation. When the cursor reaches the end, the rotation ends:
 * SKIP EVs whose time is up become GOOD again and, if cfg.reshuffle, the
 * permutation is shuffled again (Fisher-Yates with the caller's PRNG), so
 * QPs do not synchronise and the order does not alias with port
 * availability. When every EV is usable and every plane allowed, a rotation
 * uses each active EV exactly once.
 *
 * Cost: the pool keeps per-plane counts of GOOD and usable active EVs, so a
 * pick that cannot succeed (all allowed planes empty) returns -1 in O(planes)
 * without moving the cursor. Otherwise a call examines at most 2 * n_active
 * permutation entries and ends at most one rotation (O(n_active) reshuffle
 * plus an O(n_total) SKIP walk only when SKIP EVs exist); amortised over a
 * rotation this is O(n_active / eligible) per pick, i.e. O(1) when most EVs
 * are eligible. Feedback is O(1) except replacement, which scans the B
 * backup slots (or A active slots) of one plane.
 *
 * Nothing here allocates, locks, logs or reads a clock: the caller passes
 * memory, the PRNG and now_tsc. One pool belongs to one lcore.
 *
 * Usage (the QP layer):
 *
 *   setup:    mrc_ev_cfg_default(&cfg, n_planes, rte_get_tsc_hz()); ...adjust...
 *             mem = <mrc_ev_pool_memsize(&cfg) bytes, 8-byte aligned>;
 *             mrc_ev_pool_init(mem, &cfg, &lcore_rand, stats_or_NULL);
 *   send:     slot = mrc_ev_pick(pool, local_up & peer_up & txq_room, &lcore_rand);
 *             if (slot < 0) -> nothing to send on now
 *             ev = mrc_ev_value(pool, slot);  (record ev with the packet)
 *             mrc_ev_on_tx(pool, slot, len);
 *   SACK:     slot = mrc_ev_find(pool, sack.ev); if (slot >= 0) mrc_ev_on_sack(...);
 *   NACK:     slot = mrc_ev_find(pool, nack.ev); if (slot >= 0) mrc_ev_on_nack(...);
 *   timeout:  slot = mrc_ev_find(pool, pkt.ev); if (slot >= 0) mrc_ev_on_loss(...);
 *   each loop: while ((slot = mrc_ev_probe_due(pool, now_tsc)) >= 0)
 *                     send a reliability probe on mrc_ev_value(pool, slot);
 *             answer -> mrc_ev_on_probe_answer(), no answer -> mrc_ev_on_probe_timeout()
 *             (both after mrc_ev_find() of the probe's EV).
 *
 * EV values. A pool stores no EV values: it makes them, the same every
 * time, from (plane, k), k = 0 .. per_plane-1 numbering the EVs of a plane
 * (the k-th starts in the plane's k-th slot, active slots first, and moves
 * with trades). Plane field: the plane. Uplink field: (start[plane] + k)
 * mod 2^uplink_bits, with start[] drawn per pool, so a plane's EVs use
 * consecutive uplinks (uplink % n_t1 spreads them evenly over the T1s of
 * any fabric) and two QPs use different ones. The remaining (random) bits,
 * wherever the two fields leave them (up to 3 runs), carry
 *   (k >> uplink_bits) x mul + mix(seed ^ (plane << 16 | k & uplink_mask))
 *   mod 2^random_bits,
 * where seed and the odd mul are drawn per pool and mix is a 32-bit
 * bijective hash: random-looking across QPs and EVs, and distinct for EVs
 * that share plane and uplink (the share mrc_ev_cfg_check() bounds is at
 * most 2^random_bits). Decoding runs it backwards: the fields give the
 * plane and k's low part, multiplying by mul's inverse gives k's high part,
 * and since every bit is in a field or a random run, an EV whose (plane, k)
 * is in range is exactly one this pool made (mrc_ev_find: no table search;
 * a table gives the slot k of a plane sits in). Making a value costs a few
 * multiplies and shifts per packet instead of a load.
 *
 * Memory (see mrc_ev_pool_memsize()): a 320-byte header (x86-64; 104 of it
 * the event counters, 36 the dead-plane state, 54 how values are made),
 * then per slot 2 bytes of state (plane; state, SKIP rotations left, probe
 * answer count) and 2 bytes naming its EV (k), 2 bytes per active slot for
 * the permutation, and 2 bytes per EV for where it sits. 128 active + 32
 * backup: 320 + 320 + 320 + 256 + 320 = 1536 bytes (test_ev asserts
 * <= 1.5 KiB: a field more in the header must make room; 256 + 64 EVs
 * take 2752). Stored values and a hash table to find them took 1968 and
 * 3696. Per-EV statistics
 * (struct mrc_ev_stats, 152 bytes each, 24 KiB for 160 EVs) are kept only
 * when the caller passes an array for them, so an idle QP need not pay for
 * them.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_prefetch.h>

#include "mrc_counters.h"
#include "mrc_rand.h"
#include "mrc_wire.h"

/**
 * Planes a pool may span (NIC ports: 4 or 8 in deployed clusters; the
 * addressing plan of doc/protocol.md encodes up to 8).
 */
#define MRC_EV_MAX_PLANES 8
/** Most EVs (active + backup) in one pool. */
#define MRC_EV_MAX_EVS 4096

/* Defaults (mrc_ev_cfg_default). */
#define MRC_EV_DEF_N_ACTIVE	     128
#define MRC_EV_DEF_N_BACKUP	     32
#define MRC_EV_DEF_SKIP_ROTATIONS    1
#define MRC_EV_DEF_PROBE_GOOD_NEEDED 3
#define MRC_EV_DEF_PROBE_INTERVAL_US 1000
/** Largest skip_rotations (2 bits of per-EV state). */
#define MRC_EV_MAX_SKIP_ROTATIONS 3
/** Largest probe_good_needed (4 bits of per-EV state). */
#define MRC_EV_MAX_PROBE_GOOD 15
/**
 * Probe rounds nobody answers back off: probe interval x 2^k, k = 0, 1, ...
 * up to this (1 ms -> 32 ms at the default interval).
 */
#define MRC_EV_PROBE_MAX_SHIFT 5

/**
 * Where the plane and the T0 uplink live inside a 32-bit EV. Every bit not in
 * one of the two fields is random (drawn per EV at init). Default:
 *
 *    31    28 27           20 19                                   0
 *   +--------+---------------+--------------------------------------+
 *   | plane  |  T0 uplink    |               random                 |
 *   +--------+---------------+--------------------------------------+
 *
 * plane_shift 28, plane_bits 4, uplink_shift 20, uplink_bits 8. A field of
 * width 0 reads as 0. The fabric (drivers/fabric) and mrc_ev_path() decode
 * the same layout.
 */
struct mrc_ev_layout {
	uint8_t plane_shift;
	uint8_t plane_bits; /**< 0..8; must hold n_planes - 1 */
	uint8_t uplink_shift;
	uint8_t uplink_bits; /**< 0..16 */
};

#define MRC_EV_LAYOUT_DEFAULT    \
	((struct mrc_ev_layout){ \
		.plane_shift = 28, .plane_bits = 4, .uplink_shift = 20, .uplink_bits = 8})

/** The value of a field of `ev`; 0 for a field of width 0. */
static inline uint32_t
mrc_ev_field_(uint32_t ev, uint8_t shift, uint8_t bits)
{
	if (bits == 0)
		return 0;
	return (ev >> shift) & (uint32_t)((UINT64_C(1) << bits) - 1);
}

/** Plane number carried in `ev`. */
static inline uint32_t
mrc_ev_layout_plane(const struct mrc_ev_layout *l, uint32_t ev)
{
	return mrc_ev_field_(ev, l->plane_shift, l->plane_bits);
}

/** T0 uplink number carried in `ev`. */
static inline uint32_t
mrc_ev_layout_uplink(const struct mrc_ev_layout *l, uint32_t ev)
{
	return mrc_ev_field_(ev, l->uplink_shift, l->uplink_bits);
}

/**
 * Validate a layout: widths in range, fields inside 32 bits, not overlapping.
 * @return 0, or -EINVAL with *why (if why != NULL) set to a static reason.
 */
int mrc_ev_layout_check(const struct mrc_ev_layout *l, const char **why);

/** Pool configuration. Fill with mrc_ev_cfg_default(), then adjust. */
struct mrc_ev_cfg {
	uint8_t n_planes;	     /**< 1..MRC_EV_MAX_PLANES */
	uint16_t n_active;	     /**< multiple of n_planes, >= n_planes */
	uint16_t n_backup;	     /**< multiple of n_planes (0 allowed) */
	uint16_t ev_min_active;	     /**< floor of usable active EVs, 1..n_active */
	uint8_t skip_rotations;	     /**< rotation ends a SKIP lasts, 1..3 */
	uint8_t probe_good_needed;   /**< consecutive good probe answers to re-admit, 1..15 */
	bool reshuffle;		     /**< new random order at every rotation end */
	uint64_t probe_interval_tsc; /**< min time between two probe rounds */
	struct mrc_ev_layout layout;
	/**
	 * EVs whose uplink numbers are equal modulo this share their first
	 * switch after the T0 (a T1: mrc_ev_path() routes by uplink % n_t1).
	 * A lost EV is then replaced, when it can be, by a backup of another
	 * group: the failure that took it (a T0-T1 link, a T1) would take a
	 * backup of its own group too. 0 or 1: not known (the first usable
	 * backup, as ever).
	 */
	uint8_t uplink_groups;
};

/**
 * Defaults: n_active 128, n_backup 32, ev_min_active n_active/4 = 32,
 * skip_rotations 1, probe_good_needed 3, reshuffle on, probe interval 1 ms
 * at `tsc_hz` (rounded up; 0 when tsc_hz is 0), default layout. Changing
 * n_active afterwards? Set ev_min_active too.
 */
void mrc_ev_cfg_default(struct mrc_ev_cfg *cfg, uint8_t n_planes, uint64_t tsc_hz);

/**
 * Validate a configuration.
 * @return 0, or -EINVAL with *why (if why != NULL) set to a static string
 *   naming the problem ("n_active must be a multiple of n_planes", ...).
 */
int mrc_ev_cfg_check(const struct mrc_ev_cfg *cfg, const char **why);

/** EV states (doc/protocol.md, "States"). Values fit in 2 bits. */
enum mrc_ev_state {
	MRC_EV_GOOD = 0,	/**< in rotation */
	MRC_EV_SKIP = 1,	/**< usable, sits out until its rotation ends */
	MRC_EV_ASSUMED_BAD = 2, /**< retired; probed in the background */
	MRC_EV_DENIED = 3,	/**< retired by the control plane */
};
#define MRC_EV_N_STATES 4

/** "GOOD", "SKIP", "ASSUMED_BAD", "DENIED"; "?" for anything else. */
const char *mrc_ev_state_name(enum mrc_ev_state st);

/** Per-EV NACK counters: one per MRC NACK reason, then one for unknown codes. */
/* clang-format off */
enum mrc_ev_nack_idx {
#define MRC_EV_NACK_IDX_(name, code, help) MRC_EV_NACK_IDX_##name,
	MRC_NACK_REASONS(MRC_EV_NACK_IDX_)
#undef MRC_EV_NACK_IDX_
	MRC_EV_NACK_IDX_OTHER,
	MRC_EV_NACK_IDX_COUNT,
};
/* clang-format on */

/** Index into mrc_ev_stats.nacks[] for NETH reason code `reason`. */
unsigned int mrc_ev_nack_idx(uint8_t reason);

/**
 * Optional per-EV statistics, one entry per slot; an entry follows its EV
 * when EVs trade slots. Written by the owning lcore only.
 */
struct mrc_ev_stats {
	uint64_t tx_pkts; /**< mrc_ev_on_tx() calls */
	uint64_t tx_bytes;
	uint64_t acks;			       /**< SACKs attributed to this EV */
	uint64_t ecn_echoes;		       /**< SACKs with M = SKIP_ONCE */
	uint64_t always_skips;		       /**< SACKs with M = ALWAYS_SKIP */
	uint64_t nacks[MRC_EV_NACK_IDX_COUNT]; /**< by reason */
	uint64_t losses;		       /**< silent losses (per-packet timeouts) */
	uint64_t state_changes;		       /**< transitions of enum mrc_ev_state */
	uint64_t probes;		       /**< times mrc_ev_probe_due() chose it */
	uint64_t probe_timeouts;
	uint32_t last_rtt_ns; /**< 0 = no sample yet */
	uint32_t min_rtt_ns;  /**< 0 = no sample yet */
};

/** Per-pool event counters: X(name, unit, help). */
#define MRC_EV_POOL_COUNTERS(X)                                                                  \
	X(rotations, "rotations", "ends of a rotation through the active set")                   \
	X(pick_none, "calls", "picks that found no GOOD EV on an allowed plane")                 \
	X(skips, "evs", "EVs put in SKIP (ECN echo, trimmed NACK, SKIP_ONCE probe answer)")      \
	X(retired, "evs", "active EVs replaced at once by a backup of their plane")              \
	X(no_backup, "evs", "active EVs lost with no GOOD backup left on their plane")           \
	X(floor_holds, "events", "losses/ALWAYS_SKIPs ignored to keep ev_min_active usable EVs") \
	X(readmitted, "evs", "ASSUMED_BAD -> GOOD after enough good probe answers")              \
	X(promoted, "evs", "GOOD backups moved into a plane's short active set")                 \
	X(probes, "probes", "probes requested by mrc_ev_probe_due()")                            \
	X(denied, "evs", "EVs denied by the control plane")                                      \
	X(stall_readmitted, "evs",                                                               \
		"ASSUMED_BAD -> GOOD at once: the QP stood still (readmit_all)")                 \
	X(plane_outs, "planes", "planes taken out whole after a run of silent losses")           \
	X(dead_planes, "planes", "planes found dead (taken out, or their last usable EV lost)")  \
	X(revived_planes, "planes", "dead planes that answered a probe")

struct mrc_ev_pool_counters {
#define MRC_EV_CNT_FIELD_(name, unit, help) uint64_t name;
	MRC_EV_POOL_COUNTERS(MRC_EV_CNT_FIELD_)
#undef MRC_EV_CNT_FIELD_
};

enum {
#define MRC_EV_CNT_ONE_(name, unit, help) +1
	mrc_ev_pool_counters_count = 0 MRC_EV_POOL_COUNTERS(MRC_EV_CNT_ONE_)
#undef MRC_EV_CNT_ONE_
};

/** Names, units and help of struct mrc_ev_pool_counters, in field order. */
extern const struct mrc_counter_desc mrc_ev_pool_counters_desc[mrc_ev_pool_counters_count];

/** Per-EV state byte pair (internal). */
struct mrc_ev_meta {
	uint8_t plane;
	uint8_t bits; /**< state (1:0) | SKIP rotations left (3:2) | probe answers (7:4) */
};

/**
 * Who hears of an EV's changes between usable and not (mrc_ev_set_notify()):
 * `fn` is called on the pool's lcore with `ctx`, the EV's value and plane,
 * and its state before and after, whenever an EV goes from GOOD or SKIP to
 * ASSUMED_BAD or DENIED, back, or between those two. GOOD <-> SKIP (ECN,
 * trims) is not reported: it comes and goes with congestion, many times a
 * second. Called at the change, before the EV trades slots.
 */
struct mrc_ev_notify {
	void (*fn)(void *ctx, uint32_t ev, uint8_t plane, uint8_t from, uint8_t to);
	void *ctx;
};

/** Most runs of random bits in an EV: the two fields split 32 bits into at most 3. */
#define MRC_EV_RAND_RUNS 3

/**
 * One QP's EV pool, in caller-provided memory of mrc_ev_pool_memsize()
 * bytes, 8-byte aligned. Fields are private: use the functions below.
 * The arrays follow the header: struct mrc_ev_meta meta[n_total],
 * uint16_t evk[n_total] (which EV of its plane a slot holds),
 * uint16_t perm[n_active], uint16_t slot_of[n_total] (where the k-th EV
 * of plane p is: index p x per_plane + k).
 */
struct mrc_ev_pool {
	/* Fixed at init. */
	uint16_t n_active;
	uint16_t n_total;
	uint16_t active_per_plane;
	uint16_t backup_per_plane;
	uint16_t ev_min_active;
	uint16_t per_plane; /**< active_per_plane + backup_per_plane */
	uint8_t n_planes;
	uint8_t skip_rotations;
	uint8_t probe_good_needed;
	bool reshuffle;
	uint8_t uplink_groups;
	struct mrc_ev_layout layout;
	/* How EV values are made from (plane, k): mrc_ev_make_(). */
	uint32_t ev_seed;
	uint32_t ev_mul;      /**< odd */
	uint32_t ev_mul_inv;  /**< ev_mul x ev_mul_inv = 1 mod 2^32 */
	uint32_t uplink_mask; /**< 2^uplink_bits - 1 */
	uint32_t rand_mask;   /**< 2^(random bits) - 1 */
	uint16_t uplink_start[MRC_EV_MAX_PLANES];
	/*
	 * Random run i: bits off[i] .. of the random part go to the EV bits in
	 * mask[i], from shift[i] up. A run not there has mask 0 (and shifts 0).
	 */
	uint32_t run_mask[MRC_EV_RAND_RUNS];
	uint8_t run_shift[MRC_EV_RAND_RUNS];
	uint8_t run_off[MRC_EV_RAND_RUNS];
	uint64_t probe_interval_tsc;
	struct mrc_ev_stats *stats;	    /**< n_total entries, or NULL */
	const struct mrc_ev_notify *notify; /**< NULL: nobody listens */

	/* Changing. */
	uint16_t cursor;	   /**< next permutation index */
	uint16_t peek;		   /**< perm[cursor] after the last pick: a prefetch hint */
	uint16_t probe_cursor;	   /**< next slot the probe round looks at; 0 = between rounds */
	uint16_t n_usable_active;  /**< GOOD or SKIP active EVs */
	uint16_t n_skip;	   /**< SKIP EVs, all slots */
	uint16_t n_bad;		   /**< ASSUMED_BAD EVs, all slots */
	uint16_t n_denied;	   /**< DENIED EVs, all slots */
	uint8_t good_plane_mask;   /**< planes with a GOOD active EV */
	uint8_t usable_plane_mask; /**< planes with a GOOD or SKIP active EV */
	uint16_t good_active[MRC_EV_MAX_PLANES];
	uint16_t usable_active[MRC_EV_MAX_PLANES];
	uint64_t probe_end_tsc; /**< end of the last probe round (0: none yet) */
	/* Dead planes (see the file comment). */
	uint8_t probe_shift;			   /**< backoff of the per-EV probe rounds */
	uint8_t dead_plane_mask;		   /**< planes declared dead */
	uint8_t dead_probe_shift;		   /**< backoff of the dead-plane probe rounds */
	uint8_t dead_probe_pending;		   /**< dead planes yet to probe in this pass */
	uint8_t loss_run[MRC_EV_MAX_PLANES];	   /**< EVs lost in a row, no SACK since */
	uint16_t dead_probe_at[MRC_EV_MAX_PLANES]; /**< the plane's next EV to probe */
	uint64_t dead_probe_end_tsc;		   /**< end of the last dead-plane round */
	struct mrc_ev_pool_counters cnt;
	/*
	 * Written only when an EV turns bad or back: after the counters, so
	 * that the fields every packet touches keep their lines.
	 */
	bool *bad_flag;	 /**< kept = (n_bad != 0), or NULL */
	uint64_t data[]; /**< the arrays */
};

/** Bytes for a pool of this configuration; 0 if mrc_ev_cfg_check() fails. */
size_t mrc_ev_pool_memsize(const struct mrc_ev_cfg *cfg);

/** Entries the optional statistics array needs: n_active + n_backup; 0 if invalid. */
unsigned int mrc_ev_pool_n_slots(const struct mrc_ev_cfg *cfg);

/**
 * Generate the EVs and set up `pool` (mrc_ev_pool_memsize(cfg) bytes, 8-byte
 * aligned, contents ignored). For each plane the EVs carry consecutive
 * uplink numbers from a random start (active slots first, then backups), so
 * uplink % n_t1 spreads them evenly over the T1s of any fabric size and two
 * QPs use different uplinks; the random bits are made from a seed and a
 * multiplier drawn from `rand` ("EV values" above); no two EVs of the pool
 * are equal. The first permutation is shuffled with `rand`.
 * `stats` is NULL or an array of mrc_ev_pool_n_slots(cfg) entries, zeroed here.
 * @return 0, or -EINVAL (bad cfg: see mrc_ev_cfg_check(); NULL or misaligned
 *   pool).
 */
int mrc_ev_pool_init(struct mrc_ev_pool *pool, const struct mrc_ev_cfg *cfg, struct mrc_rand *rand,
	struct mrc_ev_stats *stats);

/* ---- per packet ---- */

/**
 * Next GOOD active slot on a plane allowed by `plane_ok_mask` (bit p =
 * plane p may be used now), or -1 when there is none. See the file comment
 * for the order and the cost. `rand` reshuffles at rotation ends (NULL: the
 * order is kept).
 * If the allowed planes hold usable EVs but all of them are SKIP, the
 * current rotation is ended early (so SKIPs can expire) and the pick retried.
 */
int mrc_ev_pick(struct mrc_ev_pool *pool, uint32_t plane_ok_mask, struct mrc_rand *rand);

static inline const struct mrc_ev_meta *
mrc_ev_metas_(const struct mrc_ev_pool *pool)
{
	return (const struct mrc_ev_meta *)pool->data;
}

static inline const uint16_t *
mrc_ev_evks_(const struct mrc_ev_pool *pool)
{
	return (const uint16_t *)(mrc_ev_metas_(pool) + pool->n_total);
}

/**
 * Ask for the lines the next mrc_ev_pick() and mrc_ev_value() read beyond
 * the pool's first two: the permutation entry at the cursor, and the state
 * and the number of the slot it most likely names (the peek hint). Reads
 * the pool's second line; a hint only, it changes nothing. Once a worker's
 * QPs outgrow its caches, these loads, each waiting on the one before, are
 * most of a pick's time.
 */
static inline void
mrc_ev_prefetch_pick(const struct mrc_ev_pool *pool)
{
	const uint16_t *perm = mrc_ev_evks_(pool) + pool->n_total;

	rte_prefetch0(&perm[pool->cursor < pool->n_active ? pool->cursor : 0]);
	if (pool->peek < pool->n_total) {
		rte_prefetch0(&mrc_ev_metas_(pool)[pool->peek]);
		rte_prefetch0(&mrc_ev_evks_(pool)[pool->peek]);
	}
}

/*
 * A bijection of 32-bit values, cheap enough for every packet: a
 * multiplicative (Fibonacci) hash, whose well-mixed high half is folded
 * onto the low bits, where the random bits of the default layout are.
 */
static inline uint32_t
mrc_ev_mix_(uint32_t x)
{
	x *= UINT32_C(0x9e3779b1);
	return x ^ x >> 16;
}

/*
 * The random part of the k-th EV of `plane`, before it is spread over the
 * random bits: a hash of (plane, k's uplink part) plus k's remaining part
 * times an odd number, mod 2^(random bits). Invertible given the plane and the
 * uplink (mrc_ev_find), and distinct for EVs that share plane and uplink.
 */
static inline uint32_t
mrc_ev_rand_part_(const struct mrc_ev_pool *pool, uint32_t plane, uint32_t k_lo)
{
	return mrc_ev_mix_(pool->ev_seed ^ (plane << 16 | k_lo));
}

/** The value of the k-th EV of `plane` (k < per_plane): see "EV values" above. */
static inline uint32_t
mrc_ev_make_(const struct mrc_ev_pool *pool, uint32_t plane, uint32_t k)
{
	/* No branches: a field of width 0 has plane 0 (one plane) or mask 0 (uplink). */
	const struct mrc_ev_layout *l = &pool->layout;
	const uint32_t k_lo = k & pool->uplink_mask;
	const uint32_t r =
		(k >> l->uplink_bits) * pool->ev_mul + mrc_ev_rand_part_(pool, plane, k_lo);

	uint32_t v = plane << l->plane_shift |
		     ((pool->uplink_start[plane] + k_lo) & pool->uplink_mask) << l->uplink_shift |
		     ((r << pool->run_shift[0]) & pool->run_mask[0]);

	/* Random bits in more than one run: only layouts with a field in the middle. */
	if (unlikely(pool->run_mask[1] != 0))
		v |= (((r >> pool->run_off[1]) << pool->run_shift[1]) & pool->run_mask[1]) |
		     (((r >> pool->run_off[2]) << pool->run_shift[2]) & pool->run_mask[2]);
	return v;
}

/** EV value in `slot` (0 <= slot < mrc_ev_n_slots()). */
static inline uint32_t
mrc_ev_value(const struct mrc_ev_pool *pool, int slot)
{
	return mrc_ev_make_(pool, mrc_ev_metas_(pool)[slot].plane, mrc_ev_evks_(pool)[slot]);
}

/** Plane of `slot`. */
static inline uint8_t
mrc_ev_plane(const struct mrc_ev_pool *pool, int slot)
{
	return mrc_ev_metas_(pool)[slot].plane;
}

/** State of the EV in `slot`. */
static inline enum mrc_ev_state
mrc_ev_state(const struct mrc_ev_pool *pool, int slot)
{
	return (enum mrc_ev_state)(mrc_ev_metas_(pool)[slot].bits & 3);
}

/** Slots in the pool (n_active + n_backup). */
static inline int
mrc_ev_n_slots(const struct mrc_ev_pool *pool)
{
	return pool->n_total;
}

/** True when `slot` is in the active set. */
static inline bool
mrc_ev_slot_is_active(const struct mrc_ev_pool *pool, int slot)
{
	return slot >= 0 && slot < pool->n_active;
}

/**
 * Slot currently holding EV value `ev`, or -1 when the pool does not know
 * it. O(1): the value is decoded back to (plane, k) (see "EV values") and
 * a table gives k's slot; no search. Retired EVs stay in the pool (in
 * backup slots), so late echoes still resolve.
 */
int mrc_ev_find(const struct mrc_ev_pool *pool, uint32_t ev);

/**
 * Ask for the line mrc_ev_find(pool, ev) reads beyond the pool's first two
 * (which it reads): a hint for a worker about to handle a burst of
 * acknowledgements, each echoing an EV. Changes nothing.
 */
void mrc_ev_prefetch_find(const struct mrc_ev_pool *pool, uint32_t ev);

/** Count a packet of `len_bytes` sent on `slot` (statistics only; no-op without them). */
void mrc_ev_on_tx(struct mrc_ev_pool *pool, int slot, uint32_t len_bytes);

/* ---- feedback; each returns 0, or -EINVAL for a slot out of range ---- */

/**
 * A SACK echoed the EV in `slot`. M = NONE: counted; SKIP_ONCE (ECN on the
 * forward path): GOOD/SKIP -> SKIP for skip_rotations rotation ends;
 * ALWAYS_SKIP: -> ASSUMED_BAD and replaced like a loss (floor applies).
 * `rtt_ns` > 0 updates last/min RTT. Feedback on ASSUMED_BAD or DENIED EVs
 * (late echoes) is counted only.
 */
int mrc_ev_on_sack(struct mrc_ev_pool *pool, int slot, enum mrc_sack_m m, uint32_t rtt_ns);

/**
 * A NACK echoed the EV in `slot`. TRIMMED: GOOD/SKIP -> SKIP;
 * TRIMMED_LASTHOP and the others: counted only.
 */
int mrc_ev_on_nack(struct mrc_ev_pool *pool, int slot, uint8_t reason);

/**
 * A packet sent on `slot` was lost silently (per-packet timeout, no SACK, no
 * trim notice). A GOOD/SKIP EV becomes ASSUMED_BAD; if active, a GOOD backup
 * of the same plane (a SKIP one if no GOOD one is left; of
 * another uplink group first, cfg.uplink_groups) takes its slot at
 * once; with none left the slot stays ASSUMED_BAD, out of rotation. Ignored (floor_holds) when it
 * would leave fewer than ev_min_active usable active EVs. An EV taken out
 * counts toward its plane's run of losses, which may take the plane out
 * (file comment, "Dead planes"); SACKs and NACKs on its usable EVs end the run.
 */
int mrc_ev_on_loss(struct mrc_ev_pool *pool, int slot);

/* ---- background probing of ASSUMED_BAD EVs ---- */

/**
 * Slot of an ASSUMED_BAD EV to probe now, or -1. Probing runs in rounds: a
 * round visits the slots in order and returns each ASSUMED_BAD EV once (one
 * per call); when a round is over the next starts no earlier than
 * probe_interval_tsc x 2^k after its end, where k (0 .. MRC_EV_PROBE_MAX_SHIFT)
 * grows by one at each round end and is 0 again at once after any probe
 * answer (but ALWAYS_SKIP) or a new silent loss. So each retired EV is
 * probed about once per interval while anything answers or fails, never
 * twice in one round, and a fault that stays costs a probe per EV per 32
 * intervals. EVs of dead planes are left out of these rounds: their own
 * round probes one EV per dead plane (file comment, "Dead planes"). An EV
 * that changes slot during a round may be missed or seen twice in that
 * round. Call until -1 each loop (a round's scan costs O(n_total) in total).
 */
int mrc_ev_probe_due(struct mrc_ev_pool *pool, uint64_t now_tsc);

/**
 * A probe sent on `slot` was answered. M = NONE counts a good answer; after
 * probe_good_needed in a row the EV is re-admitted GOOD: as a backup of its
 * plane, or straight into the active set when the plane has an active slot
 * held by a retired EV. SKIP_ONCE: -> SKIP (usable; GOOD after its rotation).
 * ALWAYS_SKIP: the count starts over. Only ASSUMED_BAD EVs are affected.
 */
int mrc_ev_on_probe_answer(struct mrc_ev_pool *pool, int slot, enum mrc_sack_m m);

/** A probe sent on `slot` got no answer in time: the good-answer count starts over. */
int mrc_ev_on_probe_timeout(struct mrc_ev_pool *pool, int slot);

/**
 * The QP stands still (its retransmit timer fired again without progress):
 * what the pool believes is no longer worth more than a fresh start. Every
 * ASSUMED_BAD EV is re-admitted GOOD at once (DENIED ones stay out), as if
 * each had answered its probes. Without this, a QP whose usable EVs all sit
 * on planes that died unseen (a T0-T1 link down behind a live port) can
 * never move again: the floor, and losses that a silent peer cannot reveal,
 * keep those EVs in use, and the retired EVs on healthy planes wait for
 * probes that a QP whose timer has fired does not send. The dead EVs are
 * retired again by the losses that follow. O(n_total); returns how many
 * were re-admitted (also counted in stall_readmitted).
 */
int mrc_ev_readmit_all(struct mrc_ev_pool *pool);

/* ---- control plane (applied on the owning lcore, e.g. from a command ring) ---- */

/**
 * Deny `slot`: -> DENIED from any state, never recovers by itself; an active
 * usable EV is replaced by a backup like a loss (no floor: the operator
 * decides).
 */
int mrc_ev_deny(struct mrc_ev_pool *pool, int slot);

/**
 * Allow `slot`: DENIED, ASSUMED_BAD or SKIP -> GOOD. In a backup slot it is
 * a backup again (moved into the active set if its plane is short); in an
 * active slot it is back in rotation.
 */
int mrc_ev_allow(struct mrc_ev_pool *pool, int slot);

/**
 * Tell `n` (NULL: nobody) of the pool's EVs going out of use and back (see
 * struct mrc_ev_notify); `n` must outlive the pool or the next call. Owner
 * lcore only.
 */
static inline void
mrc_ev_set_notify(struct mrc_ev_pool *pool, const struct mrc_ev_notify *n)
{
	pool->notify = n;
}

/**
 * From now on keep `*flag` = "some EV is ASSUMED_BAD" (there is something to
 * probe), NULL: stop. For an owner whose every turn asks mrc_ev_probe_due():
 * a flag in a line it reads anyway answers "nothing to probe" without the
 * pool's lines, which a QP that only answers (a responder) never reads
 * otherwise. `flag` must outlive the pool or the next call; it is set at
 * once. mrc_ev_pool_init() forgets it. Owner lcore only.
 */
static inline void
mrc_ev_set_bad_flag(struct mrc_ev_pool *pool, bool *flag)
{
	pool->bad_flag = flag;
	if (flag != NULL)
		*flag = pool->n_bad != 0;
}

/* ---- telemetry ---- */

/** EVs of one plane per state (indexed by enum mrc_ev_state). */
struct mrc_ev_counts {
	uint16_t active[MRC_EV_N_STATES];
	uint16_t backup[MRC_EV_N_STATES];
};

/** Count the EVs of `plane` by state. @return 0 or -EINVAL (plane out of range). */
int mrc_ev_plane_counts(
	const struct mrc_ev_pool *pool, unsigned int plane, struct mrc_ev_counts *out);

/** The whole pool's EVs by what a summary reports (mrc_ev_pool_totals()). */
struct mrc_ev_totals {
	uint32_t active_good; /**< GOOD, in active slots */
	uint32_t active_skip; /**< SKIP, in active slots */
	uint32_t bad;	      /**< ASSUMED_BAD, every slot */
	uint32_t denied;      /**< DENIED, every slot */
};

/**
 * The same figures as mrc_ev_plane_counts() summed over the planes, from
 * the counts the pool keeps: a line or two of the pool's header, not every
 * slot's, so a walk over thousands of cold pools stays cheap.
 */
void mrc_ev_pool_totals(const struct mrc_ev_pool *pool, struct mrc_ev_totals *out);

/** The pool's event counters. */
static inline const struct mrc_ev_pool_counters *
mrc_ev_counters(const struct mrc_ev_pool *pool)
{
	return &pool->cnt;
}

/** Statistics of the EV in `slot` (a valid slot), or NULL when the pool keeps none. */
static inline const struct mrc_ev_stats *
mrc_ev_slot_stats(const struct mrc_ev_pool *pool, int slot)
{
	return pool->stats == NULL ? NULL : &pool->stats[slot];
}

/** Planes with a GOOD active EV (bit p = plane p): where mrc_ev_pick() can succeed. */
static inline uint32_t
mrc_ev_good_planes(const struct mrc_ev_pool *pool)
{
	return pool->good_plane_mask;
}

/** Planes declared dead (bit p = plane p); see "Dead planes" in the file comment. */
static inline uint32_t
mrc_ev_dead_planes(const struct mrc_ev_pool *pool)
{
	return pool->dead_plane_mask;
}

/** Usable (GOOD or SKIP) active EVs. */
static inline unsigned int
mrc_ev_n_usable_active(const struct mrc_ev_pool *pool)
{
	return pool->n_usable_active;
}

#endif /* MRC_EV_H */
