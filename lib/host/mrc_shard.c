/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/* A shard's setup, its QP table, requests from other threads and snapshots. */

#include <errno.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_malloc.h>

#include "mrc_shard_priv.h"

/* Each shard of a host attaches payloads on a lane of its own (mrc_mr.h). */
_Static_assert(MRC_SHARD_MAX_SHARDS <= MRC_MR_LANES, "a region lane per shard");

MRC_COUNTER_BLOCK_DEFINE(mrc_shard_counters, MRC_SHARD_COUNTERS);

/* mrc_qp_set_wake: something was posted from outside the loop. */
static void
qp_wake(void *arg)
{
	struct mrc_shard_slot *sl = arg;
	const bool was_listed = sl->listed;

	mrc_shard_mark_busy(sl->shard, sl);
	if (!was_listed && sl->listed) {
		sl->by_post = true;
		sl->shard->posts_waiting++;
	}
}

static void
qp_timer_cb(struct mrc_timer_wheel *w, struct mrc_timer *t, void *arg, uint64_t now_tsc)
{
	struct mrc_shard_slot *sl = arg;
	uint64_t next;

	/*
	 * Armed for a deadline the QP has since moved later (its packets were
	 * acknowledged, its SACK went out): most fires at many QPs. Nothing is
	 * due, and its cold lines stay where they are.
	 */
	if (sl->due_tsc > now_tsc) {
		sl->shard->cnt.timer_early++;
		sl->armed_tsc = sl->due_tsc;
		if (sl->due_tsc != UINT64_MAX)
			mrc_timer_arm(w, t, sl->due_tsc);
		return;
	}
	next = mrc_shard_poll_qp(sl->shard, sl->qp, now_tsc);
	mrc_shard_check_error(sl->shard, sl);
	sl->shard->cnt.timer_fires++;
	sl->armed_tsc = sl->due_tsc = next;
	if (next != UINT64_MAX)
		mrc_timer_arm(w, t, next);
	mrc_shard_mark_busy(sl->shard, sl); /* a timeout may have marked packets for resending */
}

/* The hand-off's arrival stamp (mrc_shard_rx_tsc): one mbuf dynamic field per process. */
static const struct rte_mbuf_dynfield rx_tsc_field = {
	.name = "mrc_dynfield_rx_tsc",
	.size = sizeof(uint64_t),
	.align = __alignof__(uint64_t),
};

int
mrc_shard_rx_tsc_offset(void)
{
	return rte_mbuf_dynfield_lookup(rx_tsc_field.name, NULL);
}

struct mrc_shard *
mrc_shard_create(const struct mrc_shard_cfg *cfg, uint64_t now_tsc, const char **why)
{
	struct mrc_shard *s;
	const uint64_t tick = cfg->timer_tick_tsc ? cfg->timer_tick_tsc : cfg->tsc_hz / 1000000;
	const uint32_t n_shards = cfg->n_shards ? cfg->n_shards : 1;

	if (cfg->n_planes == 0 || cfg->n_planes > MRC_SHARD_MAX_PLANES || cfg->max_qps == 0 ||
		cfg->tsc_hz == 0 || tick == 0) {
		*why = "n_planes 1..8, max_qps >= 1 and tsc_hz are required";
		return NULL;
	}
	if (cfg->shard_index >= n_shards) {
		*why = "shard_index must be below n_shards";
		return NULL;
	}
	if (n_shards > MRC_SHARD_MAX_SHARDS && cfg->dispatch[0] != NULL) {
		*why = "software dispatch takes at most MRC_SHARD_MAX_SHARDS (8) shards per host";
		return NULL;
	}
	/* Every shard of a host hands off into the one ring: with several, they enqueue at once. */
	if (n_shards > 1 && cfg->handoff != NULL &&
		rte_ring_get_prod_sync_type(cfg->handoff) == RTE_RING_SYNC_ST) {
		*why = "the hand-off ring is single-producer, but n_shards shards share it";
		return NULL;
	}
	/* ... and so they do into the one event ring. */
	if (n_shards > 1 && cfg->events != NULL &&
		rte_ring_get_prod_sync_type(cfg->events) == RTE_RING_SYNC_ST) {
		*why = "the event ring is single-producer, but n_shards shards share it";
		return NULL;
	}
	if (cfg->path_t1s > MRC_PATH_MAX_T1) {
		*why = "path_t1s (T1s per plane) is above MRC_PATH_MAX_T1 (64)";
		return NULL;
	}
	/* the same field again for every shard: registering it twice gives its offset */
	const int rx_tsc_off = rte_mbuf_dynfield_register(&rx_tsc_field);

	if (rx_tsc_off < 0) {
		*why = "no room left in the mbuf for the hand-off's arrival stamp (dynfield)";
		return NULL;
	}
	s = rte_zmalloc_socket("mrc_shard", sizeof(*s), RTE_CACHE_LINE_SIZE, cfg->socket);
	if (s == NULL)
		goto nomem;
	s->cfg = *cfg;
	s->rx_tsc_off = rx_tsc_off;
	s->n_shards = n_shards;
	s->qps = rte_zmalloc_socket("mrc_shard_qps", (size_t)cfg->max_qps * sizeof(*s->qps),
		RTE_CACHE_LINE_SIZE, cfg->socket);
	s->busy = rte_zmalloc_socket("mrc_shard_busy", (size_t)cfg->max_qps * sizeof(*s->busy),
		RTE_CACHE_LINE_SIZE, cfg->socket);
	s->parked = rte_zmalloc_socket("mrc_shard_parked",
		(size_t)cfg->max_qps * sizeof(*s->parked), RTE_CACHE_LINE_SIZE, cfg->socket);
	/* 4096 ticks of 1 us: a rotation covers the packet timeouts; longer timers wrap. */
	s->wheel = mrc_timer_wheel_create(4096, tick, now_tsc, cfg->socket);
	s->max_dests = cfg->max_dests ? cfg->max_dests : 64;
	s->dests = rte_zmalloc_socket("mrc_shard_dests", (size_t)s->max_dests * sizeof(*s->dests),
		RTE_CACHE_LINE_SIZE, cfg->socket);
	s->paths.n_planes = cfg->n_planes;
	s->paths.n_t1 = cfg->path_t1s;
	s->n_paths = (unsigned int)cfg->n_planes * mrc_path_cols(&s->paths);
	s->paths.c = rte_zmalloc_socket("mrc_shard_paths", s->n_paths * sizeof(*s->paths.c),
		RTE_CACHE_LINE_SIZE, cfg->socket);
	s->paths_snap = rte_zmalloc_socket("mrc_shard_paths_snap",
		s->n_paths * sizeof(*s->paths_snap), RTE_CACHE_LINE_SIZE, cfg->socket);
	if (s->qps == NULL || s->busy == NULL || s->parked == NULL || s->wheel == NULL ||
		s->dests == NULL || s->paths.c == NULL || s->paths_snap == NULL)
		goto nomem;
	if (cfg->trk_blocks > 0) {
		s->trk = mrc_trk_pool_create(cfg->trk_blocks, cfg->trk_block_bytes, cfg->socket);
		if (s->trk == NULL)
			goto nomem;
	}
	s->port_mask = (1u << cfg->n_planes) - 1;
	/*
	 * Tx room from the NIC: descriptors wait in order behind the ring's tail
	 * and the oldest still waiting is the one just ahead of it, so fewer
	 * than `room` wait when the one `ring - room` ahead is not full. A port
	 * that does not answer (-ENOTSUP: virtual ports) keeps the staging bound.
	 */
	for (unsigned int p = 0; p < cfg->n_planes; p++) {
		const uint16_t ring = cfg->tx_ring_desc[p], room = cfg->tx_room_desc[p];

		if (room > 0 && ring > room &&
			rte_eth_tx_descriptor_status(cfg->port_id[p], cfg->tx_queue, 0) >= 0)
			s->desc_room_off[p] = (uint16_t)(ring - room);
	}
	s->now_tsc = s->judge_tsc = s->last_iter_tsc = now_tsc;
	s->max_judge_lag_tsc = cfg->max_judge_lag_tsc ? cfg->max_judge_lag_tsc : cfg->tsc_hz / 100;
	s->min_stall_tsc = cfg->min_stall_tsc ? cfg->min_stall_tsc : cfg->tsc_hz / 1000;
	return s;
nomem:
	if (s != NULL) {
		rte_free(s->qps);
		rte_free(s->busy);
		rte_free(s->parked);
		rte_free(s->dests);
		rte_free(s->paths.c);
		rte_free(s->paths_snap);
		mrc_timer_wheel_free(s->wheel);
	}
	rte_free(s);
	*why = "out of memory";
	return NULL;
}

void
mrc_shard_free(struct mrc_shard *s)
{
	if (s == NULL)
		return;
	mrc_shard_drop_staged(s);
	mrc_timer_wheel_free(s->wheel);
	/* Every QP was removed first, so every ring is back (-EBUSY would leak, not crash). */
	(void)mrc_trk_pool_free(s->trk);
	rte_free(s->qps);
	rte_free(s->busy);
	rte_free(s->parked);
	rte_free(s->dests);
	rte_free(s->paths.c);
	rte_free(s->paths_snap);
	rte_free(s);
}

uint16_t
mrc_shard_tx_room_offset(const struct mrc_shard *s, unsigned int plane)
{
	return plane < MRC_SHARD_MAX_PLANES ? s->desc_room_off[plane] : 0;
}

void
mrc_shard_set_tx_backlog(struct mrc_shard *s, mrc_shard_backlog_fn fn, const void *ctx,
	unsigned int host, uint64_t room_bytes)
{
	s->cfg.tx_backlog = fn;
	s->cfg.tx_backlog_ctx = ctx;
	s->cfg.tx_backlog_host = host;
	s->cfg.tx_room_bytes = room_bytes;
}

void
mrc_shard_set_before_output(struct mrc_shard *s, mrc_shard_pass_fn fn, void *ctx)
{
	s->before_output = fn;
	s->before_output_ctx = ctx;
}

int
mrc_shard_join(struct mrc_shard *const *shards, unsigned int n)
{
	if (n > MRC_SHARD_MAX_SHARDS)
		return -EINVAL;
	for (unsigned int i = 0; i < n; i++) {
		struct mrc_shard *s = shards[i];

		s->n_peers = 0;
		for (unsigned int j = 0; j < n; j++)
			if (j != i)
				s->peer[s->n_peers++] = shards[j];
	}
	return 0;
}

uint32_t
mrc_shard_n_qps(const struct mrc_shard *s)
{
	return s->n_qps;
}

bool
mrc_shard_owns(const struct mrc_shard *s, uint32_t qpn)
{
	return mrc_shard_slot_of((struct mrc_shard *)(uintptr_t)s, qpn) != NULL;
}

/* The destination slot of `ip`: its own, a free one (insert), or NULL (absent, or full). */
static struct mrc_shard_dest *
dest_find(const struct mrc_shard *s, const uint8_t *ip, bool insert)
{
	uint32_t h = 2166136261u; /* FNV-1a over the address */

	for (unsigned int k = 0; k < 16; k++)
		h = (h ^ ip[k]) * 16777619u;
	for (uint32_t n = 0; n < s->max_dests; n++) {
		struct mrc_shard_dest *d = &s->dests[(h + n) % s->max_dests];

		if (d->used && memcmp(d->ip, ip, 16) == 0)
			return d;
		if (!d->used) {
			if (!insert)
				return NULL;
			memcpy(d->ip, ip, 16);
			d->used = true;
			return d;
		}
	}
	return NULL;
}

int
mrc_shard_dest_rtt(
	const struct mrc_shard *s, const uint8_t *ip, uint64_t *srtt_tsc, uint64_t *samples)
{
	const struct mrc_shard_dest *d = dest_find(s, ip, false);

	if (d == NULL)
		return -ENOENT;
	*srtt_tsc = d->rtt.srtt_tsc;
	*samples = d->rtt.samples;
	return 0;
}

int
mrc_shard_add_qp(struct mrc_shard *s, struct mrc_qp *qp, uint64_t now_tsc)
{
	struct mrc_shard_dest *d;
	struct mrc_shard_slot *sl = mrc_shard_slot_of(s, mrc_qp_qpn(qp));

	if (sl == NULL)
		return -EINVAL;
	if (sl->qp != NULL)
		return -EEXIST;
	sl->qp = qp;
	sl->shard = s;
	sl->failed = false;
	mrc_timer_init(&sl->timer, qp_timer_cb, sl);
	sl->armed_tsc = UINT64_MAX;
	sl->due_tsc = 0; /* unknown until polled: a fire polls */
	mrc_qp_set_wake(qp, qp_wake, sl);
	d = dest_find(s, mrc_qp_peer_ip(qp), true);
	if (d == NULL)
		s->cnt.dests_full++;
	mrc_qp_set_rtt_share(qp, d != NULL ? &d->rtt : NULL);
	if (d != NULL && !d->has_addr) {
		d->addr = *mrc_qp_addr(qp);
		d->has_addr = true;
	}
	if (d != NULL && !mrc_qp_share_addr(qp, &d->addr))
		s->cnt.own_addr_qps++;
	mrc_qp_set_path_counters(qp, &s->paths);
	/* The host's shards share its regions: each attaches payloads on its own lane. */
	mrc_qp_set_mr_lane(qp, s->cfg.shard_index);
	mrc_shard_ev_attach(s, sl);
	/*
	 * Before the first iteration the caller's clock is the shard's; once it
	 * runs, its run clock (mrc_shard.h) differs by the stalls so far, so a
	 * QP added then (through a request) takes the shard's own time.
	 */
	if (s->last_wall_tsc == 0 && now_tsc > s->now_tsc)
		s->now_tsc = s->judge_tsc = s->last_iter_tsc = now_tsc;
	mrc_shard_rearm(s, sl);
	mrc_shard_mark_busy(s, sl);
	s->n_qps++;
	return 0;
}

int
mrc_shard_del_qp(struct mrc_shard *s, struct mrc_qp *qp)
{
	struct mrc_shard_slot *sl = mrc_shard_slot_of(s, mrc_qp_qpn(qp));

	if (sl == NULL || sl->qp != qp)
		return -ENOENT;
	mrc_timer_cancel(s->wheel, &sl->timer);
	mrc_qp_set_wake(qp, NULL, NULL);
	mrc_qp_set_rtt_share(qp, NULL); /* it may outlive the shard */
	mrc_qp_share_addr(qp, NULL);
	mrc_qp_set_path_counters(qp, NULL);
	mrc_shard_ev_detach(sl);
	/* A busy- or parked-list entry for the slot is skipped when it comes up. */
	sl->qp = NULL;
	s->n_qps--;
	return 0;
}

int
mrc_shard_retire_qp(struct mrc_shard *s, struct mrc_qp *qp)
{
	struct mrc_shard_slot *sl = mrc_shard_slot_of(s, mrc_qp_qpn(qp));

	if (sl == NULL || sl->qp != qp)
		return -ENOENT;
	/* Flushed before removal: the completions go to the QP's CQ from the owner lcore. */
	(void)mrc_qp_modify(qp, MRC_QP_ERROR, NULL, s->now_tsc, NULL, NULL);
	(void)mrc_shard_del_qp(s, qp);
	/* ERROR -> RESET gives back what the QP borrowed from this lcore's pools. */
	(void)mrc_qp_modify(qp, MRC_QP_RESET, NULL, s->now_tsc, NULL, NULL);
	return 0;
}

int
mrc_shard_fail_qp(struct mrc_shard *s, struct mrc_qp *qp)
{
	struct mrc_shard_slot *sl = mrc_shard_slot_of(s, mrc_qp_qpn(qp));

	if (sl == NULL || sl->qp != qp)
		return -ENOENT;
	if (mrc_qp_state(qp) == MRC_QP_ERROR)
		return -EALREADY;
	(void)mrc_qp_modify(qp, MRC_QP_ERROR, NULL, s->now_tsc, NULL, NULL);
	/* reported now: an idle QP may not be looked at again for long */
	mrc_shard_check_error(s, sl);
	return 0;
}

int
mrc_shard_request(struct mrc_shard *s, struct mrc_shard_req *r)
{
	if (s->cfg.requests == NULL)
		return -ENOTSUP;
	__atomic_store_n(&r->done, 0, __ATOMIC_RELAXED);
	return rte_ring_enqueue(s->cfg.requests, r) == 0 ? 0 : -ENOSPC;
}

void
mrc_shard_take_requests(struct mrc_shard *s)
{
	void *rq[MRC_SHARD_BURST];
	unsigned int n;

	if (s->cfg.requests == NULL)
		return;
	n = rte_ring_dequeue_burst(s->cfg.requests, rq, RTE_DIM(rq), NULL);
	for (unsigned int k = 0; k < n; k++) {
		struct mrc_shard_req *r = rq[k];

		switch (r->op) {
		case MRC_SHARD_ADD_QP:
			r->rc = mrc_shard_add_qp(s, r->qp, s->now_tsc);
			break;
		case MRC_SHARD_DEL_QP:
			r->rc = mrc_shard_del_qp(s, r->qp);
			break;
		case MRC_SHARD_RETIRE_QP:
			r->rc = mrc_shard_retire_qp(s, r->qp);
			break;
		case MRC_SHARD_EV_CHECK:
		case MRC_SHARD_EV_DENY:
		case MRC_SHARD_EV_ALLOW:
		case MRC_SHARD_EV_PROBE:
		case MRC_SHARD_EV_PROBE_RESULT:
		case MRC_SHARD_EV_LIST:
			mrc_shard_ev_request(s, r);
			break;
		case MRC_SHARD_CALL:
			r->rc = r->fn != NULL ? r->fn(s, r->arg) : -EINVAL;
			break;
		default:
			r->rc = -EINVAL;
			break;
		}
		__atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
	}
	s->cnt.requests += n;
}

void
mrc_shard_set_port_mask(struct mrc_shard *s, uint32_t mask)
{
	__atomic_store_n(&s->port_mask, mask, __ATOMIC_RELEASE);
}

uint32_t
mrc_shard_port_mask(const struct mrc_shard *s)
{
	return __atomic_load_n(&s->port_mask, __ATOMIC_ACQUIRE);
}

uint32_t
mrc_shard_posts_waiting(const struct mrc_shard *s)
{
	return s->posts_waiting;
}

uint32_t
mrc_shard_read_links(const struct mrc_shard *s)
{
	uint32_t mask = 0;

	for (unsigned int p = 0; p < s->cfg.n_planes; p++) {
		struct rte_eth_link link;

		if (rte_eth_link_get_nowait(s->cfg.port_id[p], &link) == 0 &&
			link.link_status == RTE_ETH_LINK_UP)
			mask |= 1u << p;
	}
	return mask;
}

uint32_t
mrc_shard_refresh_links(struct mrc_shard *s)
{
	const uint32_t mask = mrc_shard_read_links(s);

	mrc_shard_set_port_mask(s, mask);
	return mask;
}

unsigned int
mrc_shard_staged(const struct mrc_shard *s)
{
	unsigned int n = 0;

	for (unsigned int p = 0; p < MRC_SHARD_MAX_PLANES; p++)
		n += s->stage[p].n;
	return n;
}

void
mrc_shard_drop_staged(struct mrc_shard *s)
{
	for (unsigned int p = 0; p < MRC_SHARD_MAX_PLANES; p++) {
		rte_pktmbuf_free_bulk(s->stage[p].m, s->stage[p].n);
		s->stage[p].n = 0;
	}
}

void
mrc_shard_publish(struct mrc_shard *s, uint64_t now_tsc)
{
	__atomic_store_n(&s->snap_seq, s->snap_seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	s->snap.tsc = now_tsc;
	s->snap.cnt = s->cnt;
	memcpy(s->snap.plane, s->plane, sizeof(s->snap.plane));
	s->snap.verdicts = s->verdicts;
	s->snap.n_qps = s->n_qps;
	memcpy(s->paths_snap, s->paths.c, s->n_paths * sizeof(*s->paths_snap));
	__atomic_store_n(&s->snap_seq, s->snap_seq + 1, __ATOMIC_RELEASE);
}

void
mrc_shard_snapshot(const struct mrc_shard *s, struct mrc_shard_snapshot *out)
{
	uint32_t seq;

	do {
		while ((seq = __atomic_load_n(&s->snap_seq, __ATOMIC_ACQUIRE)) & 1)
			rte_pause();
		memcpy(out, &s->snap, sizeof(*out));
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
	} while (__atomic_load_n(&s->snap_seq, __ATOMIC_RELAXED) != seq);
}

unsigned int
mrc_shard_paths_snapshot(const struct mrc_shard *s, struct mrc_path_counters *out, unsigned int n,
	unsigned int *n_planes, unsigned int *n_t1)
{
	uint32_t seq;

	*n_planes = s->paths.n_planes;
	*n_t1 = s->paths.n_t1;
	if (n < s->n_paths)
		return s->n_paths;
	do {
		while ((seq = __atomic_load_n(&s->snap_seq, __ATOMIC_ACQUIRE)) & 1)
			rte_pause();
		memcpy(out, s->paths_snap, s->n_paths * sizeof(*out));
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
	} while (__atomic_load_n(&s->snap_seq, __ATOMIC_RELAXED) != seq);
	return s->n_paths;
}

uint64_t
mrc_shard_plane_qp_tx(const struct mrc_shard *s, unsigned int plane)
{
	const unsigned int cols = mrc_path_cols(&s->paths);
	uint64_t n = 0;

	if (s->paths.c == NULL || plane >= s->paths.n_planes)
		return 0;
	for (unsigned int t = 0; t < cols; t++) {
		const struct mrc_path_counters *c = &s->paths.c[plane * cols + t];

		n += c->tx_data_pkts + c->tx_retx_pkts + c->tx_probes;
	}
	return n;
}

struct mrc_trk_pool *
mrc_shard_trk_pool(const struct mrc_shard *s)
{
	return s->trk;
}

const struct mrc_shard_counters *
mrc_shard_counters(const struct mrc_shard *s)
{
	return &s->cnt;
}

const struct mrc_shard_plane_counters *
mrc_shard_plane_counters(const struct mrc_shard *s, unsigned int plane)
{
	return &s->plane[plane % MRC_SHARD_MAX_PLANES];
}

const struct mrc_wire_rx_stats *
mrc_shard_rx_verdicts(const struct mrc_shard *s)
{
	return &s->verdicts;
}
