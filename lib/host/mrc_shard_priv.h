/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRC_SHARD_PRIV_H
#define MRC_SHARD_PRIV_H

/* The shard's state, shared by mrc_shard.c (setup, QPs, requests, snapshots)
 * and mrc_shard_loop.c (the iteration). Everything belongs to the owner lcore
 * except where a field says otherwise. */

#include <rte_mbuf.h>

#include "mrc_rel_tx.h"
#include "mrc_shard.h"
#include "mrc_timer_wheel.h"
#include "mrc_trk_pool.h"

/* A plane's packets waiting for its port: up to two bursts. */
#define MRC_SHARD_STAGE (2 * MRC_SHARD_BURST)

/*
 * Two cache lines: what a packet, a wake or the output round reads (the
 * QP, its deadlines, the list flags) in the first, the timer the wheel
 * walks in the second. At 104 bytes, unaligned, most slots straddled
 * lines, and each of those events, far apart in time, read two.
 */
struct mrc_shard_slot {
	struct mrc_qp *qp;
	/*
	 * The QP's own next deadline as its latest poll gave it (UINT64_MAX:
	 * none). Every event that can bring a deadline forward (tx, rx, a
	 * timer) polls the QP and sets it, so a timer firing before it has
	 * nothing to do and re-arms from here without touching the QP.
	 */
	uint64_t due_tsc;
	uint64_t armed_tsc; /* the timer's deadline; UINT64_MAX when not armed */
	struct mrc_shard *shard;
	bool listed;		     /* on the busy list */
	bool by_post;		     /* listed there by a post, not visited since */
	bool parked;		     /* on the ring waiters' list */
	bool failed;		     /* its QP's ERROR was reported */
	struct mrc_ev_notify notify; /* the QP's EV pool tells the shard (mrc_shard_ev.c) */
	struct mrc_timer timer __rte_cache_aligned;
} __rte_cache_aligned;

/* One destination (peer NIC address) of the shard's QPs, and what they share. */
struct mrc_shard_dest {
	uint8_t ip[16];
	bool used;
	bool has_addr; /* addr holds the first QP's addresses */
	struct mrc_rel_rtt_share rtt;
	/* what its QPs build packets from (mrc_qp_share_addr), those whose addresses match */
	struct mrc_qp_addr addr;
};

struct mrc_shard_stage {
	struct rte_mbuf *m[MRC_SHARD_STAGE];
	uint16_t n;
};

struct mrc_shard {
	struct mrc_shard_cfg cfg;
	uint32_t n_shards; /* cfg.n_shards, 0 read as 1 */
	int rx_tsc_off;	   /* the hand-off's arrival stamp (mrc_shard_rx_tsc_offset) */
	struct mrc_timer_wheel *wheel;
	struct mrc_shard_slot *qps; /* by slot (mrc_shard_locate) */
	uint32_t n_qps;
	/*
	 * The busy list: slots whose QP may have something to send now
	 * (mrc_qp_tx_pending: posted and not sent, resends, answers, probes),
	 * in turn order. Output visits only
	 * these, so a worker's cost follows its busy QPs, not its QP count.
	 * A ring of max_qps slot numbers; a slot is on it at most once.
	 */
	uint32_t *busy;
	uint32_t busy_head, busy_n;
	uint32_t posts_waiting; /* busy entries listed by a post, not yet visited */
	/*
	 * QPs with new data and no in-flight ring, the pool being empty: they
	 * leave the busy list (visiting them would only be refused again) and
	 * come back, first in first out, as rings are given back.
	 */
	uint32_t *parked;
	uint32_t parked_head, parked_n;
	struct mrc_trk_pool *trk;
	struct mrc_shard_dest *dests; /* open addressing by address hash, max_dests slots */
	uint32_t max_dests;
	uint64_t now_tsc;	    /* of the current iteration, on the run clock */
	uint64_t last_wall_tsc;	    /* the caller's clock at the previous iteration */
	uint64_t pass_tsc;	    /* typical gap between iterations (EWMA, stalls left out) */
	uint64_t away_tsc;	    /* stalls so far: the run clock is the caller's less this */
	uint64_t min_stall_tsc;	    /* cfg's, 0 replaced */
	uint64_t judge_tsc;	    /* the input horizon: when timers run (mrc_shard.h) */
	uint64_t last_iter_tsc;	    /* start of the previous iteration */
	uint64_t held_since_tsc;    /* first of the iterations in a row that left input, or 0 */
	uint64_t max_judge_lag_tsc; /* cfg's, 0 replaced */
	mrc_shard_pass_fn before_output; /* mrc_shard_set_before_output(), or NULL */
	void *before_output_ctx;
	struct mrc_shard_stage stage[MRC_SHARD_MAX_PLANES];
	/* per plane: the tx descriptor whose status tells "no room", 0: not asked */
	uint16_t desc_room_off[MRC_SHARD_MAX_PLANES];
	struct mrc_shard_plane_counters plane[MRC_SHARD_MAX_PLANES];
	struct mrc_shard_counters cnt;
	struct mrc_wire_rx_stats verdicts;
	/*
	 * The other shards of the host (mrc_shard_join), and when this one last
	 * read all its inputs: the caller's clock at the start of the iteration
	 * before one that emptied every rx queue and its inbound ring. Written by
	 * the owner (release), read by the host's other shards (acquire) for
	 * their input horizon; a cache line of its own.
	 */
	struct mrc_shard *peer[MRC_SHARD_MAX_SHARDS];
	uint32_t n_peers;
	/*
	 * The port mask: written by the control thread, read by the owner each
	 * iteration and by every worker of the process each pass (its QPs'
	 * peers' planes: mrc_shard_port_mask). A line of its own: next to the
	 * owner's busy-list indexes every such read was a miss.
	 */
	uint32_t port_mask __rte_cache_aligned;
	uint64_t drained_wall_tsc __rte_cache_aligned;
	/* written by the owner in mrc_shard_publish, read by anyone; odd seq while written */
	uint32_t snap_seq;
	struct mrc_shard_snapshot snap;
	/* per-path counters: live (the owner's QPs write them) and published with snap */
	struct mrc_path_block paths;
	struct mrc_path_counters *paths_snap;
	unsigned int n_paths;
	/* the controller's deny table (mrc_shard_ev.c): paths and planes denied */
	struct mrc_shard_ev_sel deny;
};

/*
 * Which shard of the host owns `qpn`, and in which slot: false for a QPN
 * that is none of the host's (below qpn_base, past the map).
 */
static inline bool
mrc_shard_locate(const struct mrc_shard *s, uint32_t qpn, uint32_t *owner, uint32_t *slot)
{
	const uint32_t k = qpn - s->cfg.qpn_base;

	if (qpn < s->cfg.qpn_base)
		return false;
	if (s->cfg.qpn_map != NULL) {
		if (k >= s->cfg.qpn_map_len)
			return false;
		*owner = s->cfg.qpn_map[k] >> 24;
		*slot = s->cfg.qpn_map[k] & 0xffffff;
		return true;
	}
	if (s->n_shards == 1) {
		*owner = 0;
		*slot = k;
		return true;
	}
	*owner = k % s->n_shards;
	*slot = k / s->n_shards;
	return true;
}

/* The slot of a QPN this shard owns, or NULL. */
static inline struct mrc_shard_slot *
mrc_shard_slot_of(struct mrc_shard *s, uint32_t qpn)
{
	uint32_t owner, i;

	if (!mrc_shard_locate(s, qpn, &owner, &i) || owner != s->cfg.shard_index)
		return NULL;
	return i < s->cfg.max_qps ? &s->qps[i] : NULL;
}

/*
 * Put a QP with something to send on the busy list (if it is not there
 * yet). One that only waits for acknowledgements stays off: visiting each
 * of the hundreds in flight every pass read their cold lines for nothing;
 * the rx, timer or post that gives it work lists it again.
 */
static inline void
mrc_shard_mark_busy(struct mrc_shard *s, struct mrc_shard_slot *sl)
{
	uint32_t tail;

	if (sl->listed || !mrc_qp_tx_pending(sl->qp))
		return;
	tail = s->busy_head + s->busy_n;
	if (tail >= s->cfg.max_qps)
		tail -= s->cfg.max_qps;
	s->busy[tail] = (uint32_t)(sl - s->qps);
	s->busy_n++;
	sl->listed = true;
}

/*
 * After any activity a QP's next deadline may have moved. Only an earlier
 * one moves the timer: a later one waits until the timer fires at the old
 * deadline, finds nothing due in mrc_qp_poll() and is armed then for the
 * new one. Moving the timer on every packet (the deadline of a busy QP goes
 * later with every acknowledgement) took a cold wheel slot each time, a
 * cache miss per packet; the lazy way costs a spurious fire per deadline.
 */
/*
 * A QP's timers: losses judged at the input horizon, answers at the clock
 * (mrc_qp_poll_judged). A deadline the horizon has not reached yet, though
 * the clock has, is due when the horizon gets there: about as far ahead as
 * the horizon lags now.
 */
static inline uint64_t
mrc_shard_poll_qp(struct mrc_shard *s, struct mrc_qp *qp, uint64_t now_tsc)
{
	uint64_t next = mrc_qp_poll_judged(qp, now_tsc, s->judge_tsc);

	if (next <= now_tsc)
		next += RTE_MAX(now_tsc - s->judge_tsc, (uint64_t)1);
	return next;
}

/* Report a QP that went to ERROR, once: on the event ring, else counted as dropped. */
static inline void
mrc_shard_check_error(struct mrc_shard *s, struct mrc_shard_slot *sl)
{
	if (likely(mrc_qp_state(sl->qp) != MRC_QP_ERROR) || sl->failed)
		return;
	sl->failed = true;
	s->cnt.qp_errors++;
	/* in the ring's own mode: the shards of a host share it (mrc_shard_cfg.events) */
	if (s->cfg.events == NULL ||
		rte_ring_enqueue(s->cfg.events, mrc_shard_event_qp_error(mrc_qp_qpn(sl->qp),
							(uint8_t)mrc_qp_error(sl->qp))) != 0)
		s->cnt.events_dropped++;
}

static inline void
mrc_shard_rearm(struct mrc_shard *s, struct mrc_shard_slot *sl)
{
	uint64_t next = mrc_shard_poll_qp(s, sl->qp, s->now_tsc);

	mrc_shard_check_error(s, sl);
	sl->due_tsc = next;
	if (next < sl->armed_tsc) {
		mrc_timer_arm(s->wheel, &sl->timer, next);
		sl->armed_tsc = next;
	} else if (next == UINT64_MAX && sl->armed_tsc != UINT64_MAX) {
		/*
		 * Nothing left to wait for: off the wheel now, while the timer's
		 * line is at hand, rather than read back cold when it fires for
		 * nothing (a wheel slot's timers are a chain of misses).
		 */
		mrc_timer_cancel(s->wheel, &sl->timer);
		sl->armed_tsc = UINT64_MAX;
	}
}

/*
 * mrc_shard_ev.c: a QP joins (its EVs on denied paths are denied, its pool
 * reports to cfg.ev_events) or leaves; carry out an MRC_SHARD_EV_* request.
 */
void mrc_shard_ev_attach(struct mrc_shard *s, struct mrc_shard_slot *sl);
void mrc_shard_ev_detach(struct mrc_shard_slot *sl);
void mrc_shard_ev_request(struct mrc_shard *s, struct mrc_shard_req *r);

/* mrc_shard_loop.c: carry out the requests waiting on the ring. */
void mrc_shard_take_requests(struct mrc_shard *s);

#endif /* MRC_SHARD_PRIV_H */
