/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#include <errno.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_malloc.h>

#include "mrc_fabric.h"
#include "mrcd_host.h"

MRC_COUNTER_BLOCK_DEFINE(mrcd_host_counters, MRCD_HOST_COUNTERS);

/* A plane's packets waiting for its port: up to two bursts. */
#define STAGE (2 * MRCD_BURST)

struct qp_slot {
	struct mrc_qp *qp;
	struct mrc_timer timer;
	uint64_t armed_tsc; /* the timer's deadline; UINT64_MAX when not armed */
	struct mrcd_host *host;
	bool listed; /* on the busy list */
	bool parked; /* on the ring waiters' list */
};

struct plane_stage {
	struct rte_mbuf *m[STAGE];
	uint16_t n;
};

struct mrcd_host {
	struct mrcd_host_cfg cfg;
	uint32_t port_mask; /* written by the control thread, read by the worker */
	struct mrc_timer_wheel *wheel;
	struct qp_slot *qps;
	uint32_t n_qps;
	/*
	 * The busy list: slots whose QP may have something to send (anything
	 * posted, in flight, or to answer), in turn order. Output visits only
	 * these, so a worker's cost follows its busy QPs, not its QP count.
	 * A ring of max_qps slot numbers; a slot is on it at most once.
	 */
	uint32_t *busy;
	uint32_t busy_head, busy_n;
	/*
	 * QPs with new data and no in-flight ring, the pool being empty: they
	 * leave the busy list (visiting them would only be refused again) and
	 * come back, first in first out, as rings are given back. Without this
	 * 32,768 such QPs were visited in vain every iteration.
	 */
	uint32_t *parked;
	uint32_t parked_head, parked_n;
	struct mrc_trk_pool *trk;
	const struct mrc_fabric *fab; /* mrcd_host_set_fabric(), or NULL */
	unsigned int fab_host;
	uint64_t nic_room;
	uint64_t now_tsc; /* of the current iteration, for timer callbacks */
	struct plane_stage stage[MRCD_MAX_PLANES];
	struct mrcd_plane_counters plane[MRCD_MAX_PLANES];
	struct mrcd_host_counters cnt;
	struct mrc_wire_rx_stats verdicts;
};

/* Put a QP with work on the busy list (if it is not there yet). */
static inline void
mark_busy(struct mrcd_host *h, struct qp_slot *s)
{
	uint32_t tail;

	if (s->listed || mrc_qp_idle(s->qp))
		return;
	tail = h->busy_head + h->busy_n;
	if (tail >= h->cfg.max_qps)
		tail -= h->cfg.max_qps;
	h->busy[tail] = (uint32_t)(s - h->qps);
	h->busy_n++;
	s->listed = true;
}

/* mrc_qp_set_wake: something was posted from outside the loop. */
static void
qp_wake(void *arg)
{
	struct qp_slot *s = arg;

	mark_busy(s->host, s);
}

static void
qp_timer_cb(struct mrc_timer_wheel *w, struct mrc_timer *t, void *arg, uint64_t now_tsc)
{
	struct qp_slot *s = arg;
	uint64_t next = mrc_qp_poll(s->qp, now_tsc);

	s->host->cnt.timer_fires++;
	s->armed_tsc = next;
	if (next != UINT64_MAX)
		mrc_timer_arm(w, t, next);
	mark_busy(s->host, s); /* a timeout may have marked packets for resending */
}

/*
 * After any activity a QP's next deadline may have moved. Only an earlier
 * one moves the timer: a later one waits until the timer fires at the old
 * deadline, finds nothing due in mrc_qp_poll() and is armed then for the
 * new one. Moving the timer on every packet (the deadline of a busy QP goes
 * later with every acknowledgement) took a cold wheel slot each time, a
 * cache miss per packet; the lazy way costs a spurious fire per deadline.
 */
static inline void
rearm(struct mrcd_host *h, struct qp_slot *s)
{
	uint64_t next = mrc_qp_poll(s->qp, h->now_tsc);

	if (next < s->armed_tsc) {
		mrc_timer_arm(h->wheel, &s->timer, next);
		s->armed_tsc = next;
	}
}

struct mrcd_host *
mrcd_host_create(const struct mrcd_host_cfg *cfg, uint64_t now_tsc, const char **why)
{
	struct mrcd_host *h;
	uint64_t tick = cfg->timer_tick_tsc ? cfg->timer_tick_tsc : cfg->tsc_hz / 1000000;

	if (cfg->n_planes == 0 || cfg->n_planes > MRCD_MAX_PLANES || cfg->max_qps == 0 ||
		cfg->tsc_hz == 0 || tick == 0) {
		*why = "n_planes 1..8, max_qps >= 1 and tsc_hz are required";
		return NULL;
	}
	h = rte_zmalloc_socket("mrcd_host", sizeof(*h), RTE_CACHE_LINE_SIZE, cfg->socket);
	if (h == NULL)
		goto nomem;
	h->cfg = *cfg;
	h->qps = rte_zmalloc_socket("mrcd_qps", (size_t)cfg->max_qps * sizeof(*h->qps),
		RTE_CACHE_LINE_SIZE, cfg->socket);
	h->busy = rte_zmalloc_socket("mrcd_busy", (size_t)cfg->max_qps * sizeof(*h->busy),
		RTE_CACHE_LINE_SIZE, cfg->socket);
	h->parked = rte_zmalloc_socket("mrcd_parked", (size_t)cfg->max_qps * sizeof(*h->parked),
		RTE_CACHE_LINE_SIZE, cfg->socket);
	/* 4096 ticks of 1 us: a rotation covers the packet timeouts; longer timers wrap. */
	h->wheel = mrc_timer_wheel_create(4096, tick, now_tsc, cfg->socket);
	if (h->qps == NULL || h->busy == NULL || h->parked == NULL || h->wheel == NULL)
		goto nomem;
	if (cfg->trk_blocks > 0) {
		h->trk = mrc_trk_pool_create(cfg->trk_blocks, cfg->trk_block_bytes, cfg->socket);
		if (h->trk == NULL)
			goto nomem;
	}
	h->port_mask = (1u << cfg->n_planes) - 1;
	h->now_tsc = now_tsc;
	return h;
nomem:
	if (h != NULL) {
		rte_free(h->qps);
		rte_free(h->busy);
		rte_free(h->parked);
		mrc_timer_wheel_free(h->wheel);
	}
	rte_free(h);
	*why = "out of memory";
	return NULL;
}

void
mrcd_host_free(struct mrcd_host *h)
{
	if (h == NULL)
		return;
	mrcd_host_drop_staged(h);
	mrc_timer_wheel_free(h->wheel);
	/* Every QP was destroyed first, so every ring is back (-EBUSY would leak, not crash). */
	(void)mrc_trk_pool_free(h->trk);
	rte_free(h->qps);
	rte_free(h->busy);
	rte_free(h->parked);
	rte_free(h);
}

struct mrc_trk_pool *
mrcd_host_trk_pool(const struct mrcd_host *h)
{
	return h->trk;
}

void
mrcd_host_set_fabric(struct mrcd_host *h, const struct mrc_fabric *fab, unsigned int fab_host,
	uint64_t room_bytes)
{
	h->fab = fab;
	h->fab_host = fab_host;
	h->nic_room = room_bytes;
}

int
mrcd_host_add_qp(struct mrcd_host *h, struct mrc_qp *qp, uint64_t now_tsc)
{
	uint32_t i = mrc_qp_qpn(qp) - h->cfg.qpn_base;
	struct qp_slot *s;

	if (mrc_qp_qpn(qp) < h->cfg.qpn_base || i >= h->cfg.max_qps)
		return -EINVAL;
	s = &h->qps[i];
	if (s->qp != NULL)
		return -EEXIST;
	s->qp = qp;
	s->host = h;
	mrc_timer_init(&s->timer, qp_timer_cb, s);
	s->armed_tsc = UINT64_MAX;
	mrc_qp_set_wake(qp, qp_wake, s);
	h->now_tsc = now_tsc;
	rearm(h, s);
	mark_busy(h, s);
	h->n_qps++;
	return 0;
}

int
mrcd_host_del_qp(struct mrcd_host *h, struct mrc_qp *qp)
{
	uint32_t i = mrc_qp_qpn(qp) - h->cfg.qpn_base;

	if (i >= h->cfg.max_qps || h->qps[i].qp != qp)
		return -ENOENT;
	mrc_timer_cancel(h->wheel, &h->qps[i].timer);
	mrc_qp_set_wake(qp, NULL, NULL);
	h->qps[i].qp = NULL; /* a busy-list entry for the slot is skipped when it comes up */
	h->n_qps--;
	return 0;
}

void
mrcd_host_set_port_mask(struct mrcd_host *h, uint32_t mask)
{
	__atomic_store_n(&h->port_mask, mask, __ATOMIC_RELEASE);
}

uint32_t
mrcd_host_port_mask(const struct mrcd_host *h)
{
	return __atomic_load_n(&h->port_mask, __ATOMIC_ACQUIRE);
}

uint32_t
mrcd_host_refresh_links(struct mrcd_host *h)
{
	uint32_t mask = 0;

	for (unsigned int p = 0; p < h->cfg.n_planes; p++) {
		struct rte_eth_link link;

		if (rte_eth_link_get_nowait(h->cfg.port_id[p], &link) == 0 &&
			link.link_status == RTE_ETH_LINK_UP)
			mask |= 1u << p;
	}
	mrcd_host_set_port_mask(h, mask);
	return mask;
}

static inline struct qp_slot *
lookup(struct mrcd_host *h, uint32_t qpn)
{
	uint32_t i = qpn - h->cfg.qpn_base;

	return i < h->cfg.max_qps && h->qps[i].qp != NULL ? &h->qps[i] : NULL;
}

/*
 * Parse a burst; hand SACKs and NACKs to their QPs first, then data and
 * probes. The burst is freed together at the end (see mrc_qp_rx_keep), and
 * a QP's timer is re-armed once per run of its packets, not per packet.
 */
static unsigned int
input(struct mrcd_host *h, unsigned int plane)
{
	struct rte_mbuf *m[MRCD_BURST];
	struct mrc_pkt v[MRCD_BURST];
	bool ok[MRCD_BURST];
	uint16_t n = rte_eth_rx_burst(h->cfg.port_id[plane], 0, m, MRCD_BURST);
	struct qp_slot *last = NULL;

	if (n == 0)
		return 0;
	h->plane[plane].rx_pkts += n;
	for (uint16_t k = 0; k < n; k++) {
		enum mrc_wire_rx r;

		h->plane[plane].rx_bytes += rte_pktmbuf_pkt_len(m[k]);
		r = mrc_pkt_parse(m[k], &h->cfg.wire, &v[k]);

		h->verdicts.pkts[r]++;
		ok[k] = r == MRC_WIRE_OK;
	}
	for (int pass = 0; pass < 2; pass++) {
		for (uint16_t k = 0; k < n; k++) {
			const uint8_t op = v[k].bth.opcode;
			const bool feedback = op == MRC_OP_SACK || op == MRC_OP_NACK;
			struct qp_slot *s;

			if (!ok[k] || feedback != (pass == 0))
				continue;
			if (v[k].bth.dqpn == MRC_EP_QPN) {
				h->cnt.rx_ep_ops++;
				continue;
			}
			s = lookup(h, v[k].bth.dqpn);
			if (s == NULL) {
				h->cnt.rx_unknown_qpn++;
				continue;
			}
			if (s != last && last != NULL) {
				rearm(h, last);
				mark_busy(h, last);
			}
			last = s;
			mrc_qp_rx_keep(s->qp, m[k], &v[k], h->now_tsc);
		}
	}
	if (last != NULL) {
		rearm(h, last);
		mark_busy(h, last);
	}
	rte_pktmbuf_free_bulk(m, n);
	h->cnt.rx_pkts += n;
	return n;
}

/* Offer staged packets to their ports; keep what they do not take. */
static unsigned int
flush(struct mrcd_host *h)
{
	unsigned int sent = 0;

	for (unsigned int p = 0; p < h->cfg.n_planes; p++) {
		struct plane_stage *st = &h->stage[p];
		uint16_t k;

		if (st->n == 0)
			continue;
		/* Lengths first: the port owns the mbufs once it has taken them. */
		uint64_t bytes[STAGE];

		for (uint16_t j = 0; j < st->n; j++)
			bytes[j] = rte_pktmbuf_pkt_len(st->m[j]);
		k = rte_eth_tx_burst(h->cfg.port_id[p], 0, st->m, st->n);
		sent += k;
		h->plane[p].tx_pkts += k;
		for (uint16_t j = 0; j < k; j++)
			h->plane[p].tx_bytes += bytes[j];
		if (k < st->n) {
			h->cnt.tx_staged += st->n - k;
			memmove(st->m, st->m + k, (size_t)(st->n - k) * sizeof(st->m[0]));
		}
		st->n = (uint16_t)(st->n - k);
	}
	h->cnt.tx_pkts += sent;
	return sent;
}

unsigned int
mrcd_host_iterate(struct mrcd_host *h, uint64_t now_tsc, struct mrc_rand *rand)
{
	unsigned int work = 0;
	uint64_t queued[MRCD_MAX_PLANES]; /* in the NIC queue and staged, with a fabric */
	uint32_t room;

	h->now_tsc = now_tsc;
	h->cnt.iterations++;
	for (unsigned int p = 0; p < h->cfg.n_planes; p++)
		work += input(h, p);
	mrc_timer_wheel_advance(h->wheel, now_tsc);

	/* Planes still holding staged packets get nothing new this time. */
	work += flush(h);
	room = mrcd_host_port_mask(h);
	for (unsigned int p = 0; p < h->cfg.n_planes; p++)
		if (h->stage[p].n > STAGE - MRCD_BURST)
			room &= ~(1u << p);
	if (h->fab != NULL)
		for (unsigned int p = 0; p < h->cfg.n_planes; p++) {
			queued[p] = mrc_fabric_tx_backlog(h->fab, h->fab_host, p);
			if (queued[p] > h->nic_room)
				room &= ~(1u << p);
		}

	/* As many ring waiters back on the busy list as there are rings free. */
	for (uint32_t k = h->trk != NULL ? RTE_MIN(h->parked_n, h->trk->n_free) : 0; k > 0; k--) {
		struct qp_slot *s = &h->qps[h->parked[h->parked_head]];

		if (++h->parked_head == h->cfg.max_qps)
			h->parked_head = 0;
		h->parked_n--;
		s->parked = false;
		if (s->qp != NULL)
			mark_busy(h, s);
	}

	/*
	 * Output: each busy QP once, in turn (round-robin, so none starves the
	 * others of the burst); one that still has work goes to the back, or
	 * aside when all it has is new data and no ring is free.
	 */
	for (uint32_t k = h->busy_n; k > 0; k--) {
		struct qp_slot *s = &h->qps[h->busy[h->busy_head]];
		struct rte_mbuf *out[MRCD_BURST];
		uint16_t n;

		if (++h->busy_head == h->cfg.max_qps)
			h->busy_head = 0;
		h->busy_n--;
		s->listed = false;
		if (s->qp == NULL)
			continue;
		n = mrc_qp_tx_burst(s->qp, now_tsc, room, rand, out, MRCD_BURST);
		for (uint16_t j = 0; j < n; j++) {
			struct plane_stage *st = &h->stage[out[j]->port % MRCD_MAX_PLANES];

			if (out[j]->port >= h->cfg.n_planes || st->n == STAGE) {
				h->cnt.tx_dropped++;
				rte_pktmbuf_free(out[j]);
				continue;
			}
			st->m[st->n++] = out[j];
			if (st->n > STAGE - MRCD_BURST)
				room &= ~(1u << out[j]->port);
			if (h->fab != NULL &&
				(queued[out[j]->port] += out[j]->pkt_len) > h->nic_room)
				room &= ~(1u << out[j]->port);
		}
		if (n > 0) {
			rearm(h, s);
		} else if (h->trk != NULL && h->trk->n_free == 0 && !mrc_qp_trk_held(s->qp) &&
			   !mrc_qp_idle(s->qp)) {
			if (!s->parked) {
				uint32_t tail = h->parked_head + h->parked_n;

				if (tail >= h->cfg.max_qps)
					tail -= h->cfg.max_qps;
				h->parked[tail] = (uint32_t)(s - h->qps);
				h->parked_n++;
				s->parked = true;
				h->cnt.trk_parked++;
			}
			continue;
		}
		mark_busy(h, s);
	}
	work += flush(h);
	return work;
}

unsigned int
mrcd_host_staged(const struct mrcd_host *h)
{
	unsigned int n = 0;

	for (unsigned int p = 0; p < MRCD_MAX_PLANES; p++)
		n += h->stage[p].n;
	return n;
}

void
mrcd_host_drop_staged(struct mrcd_host *h)
{
	for (unsigned int p = 0; p < MRCD_MAX_PLANES; p++) {
		rte_pktmbuf_free_bulk(h->stage[p].m, h->stage[p].n);
		h->stage[p].n = 0;
	}
}

const struct mrcd_plane_counters *
mrcd_host_plane_counters(const struct mrcd_host *h, unsigned int plane)
{
	return &h->plane[plane % MRCD_MAX_PLANES];
}

const struct mrcd_host_counters *
mrcd_host_counters(const struct mrcd_host *h)
{
	return &h->cnt;
}

const struct mrc_wire_rx_stats *
mrcd_host_rx_verdicts(const struct mrcd_host *h)
{
	return &h->verdicts;
}
