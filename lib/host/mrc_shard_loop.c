/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * A shard's iteration: input, timers, output (mrc_shard.h says in what
 * order and why). No allocation, lock, syscall or log in here: drops are
 * counted by reason.
 */

#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_prefetch.h>

#include "mrc_shard_priv.h"

/*
 * Packets a QP is asked for at a time under a NIC tx room rule, the room
 * re-read in between (up to MRC_SHARD_BURST per visit). On the fake clock
 * (bench_fabric_qps, 8 QPs at 100 Gb/s, 1% loss per link) bursts of 32
 * kept 0.92 of the lossless goodput, 8 kept 0.955 (0.944 since retired EVs
 * are probed back at line rate: mrc_qp_tx_burst_room). One at a time kept
 * 0.96 but made the RTT so steady (no queue past the room) that rttvar
 * fell to nothing, and rel's probe for an overdue packet (srtt + 4 rttvar)
 * went off over a thousand times in 5 ms without a single loss.
 */
#define MRC_SHARD_ROOM_BURST 8

/*
 * Hand a packet to the hand-off ring, stamped with its burst's arrival t0
 * (mrc_shard_rx_tsc); false: dropped (counted). The ring's own producer
 * mode is used: a host's shards share it (multi-producer when there are
 * several, which mrc_shard_create checks).
 */
static inline bool
hand_off(struct mrc_shard *s, struct rte_mbuf *m, uint64_t t0)
{
	*RTE_MBUF_DYNFIELD(m, s->rx_tsc_off, uint64_t *) = t0;
	if (s->cfg.handoff != NULL && rte_ring_enqueue(s->cfg.handoff, m) == 0) {
		s->cnt.rx_handoff++;
		return true;
	}
	s->cnt.rx_handoff_drops++;
	return false;
}

/*
 * A frame that is no MRC packet at all, as opposed to a damaged one: another
 * EtherType, another IPv6 payload (ICMPv6, TCP), UDP to another port.
 */
static inline bool
not_mrc(enum mrc_wire_rx r)
{
	return r == MRC_WIRE_BAD_ETHERTYPE || r == MRC_WIRE_BAD_NEXT_HEADER ||
	       r == MRC_WIRE_NOT_ROCE;
}

/*
 * Frames the control thread sends through this shard (m->port: the plane):
 * staged like the QPs' packets, a burst at most per iteration.
 */
static void
take_control_tx(struct mrc_shard *s)
{
	struct rte_mbuf *m[8];
	const unsigned int n =
		rte_ring_sc_dequeue_burst(s->cfg.ctl_tx, (void **)m, RTE_DIM(m), NULL);

	for (unsigned int j = 0; j < n; j++) {
		const uint16_t p = m[j]->port;
		struct mrc_shard_stage *st = &s->stage[p % MRC_SHARD_MAX_PLANES];

		if (p >= s->cfg.n_planes || st->n == MRC_SHARD_STAGE) {
			s->cnt.tx_control_drops++;
			rte_pktmbuf_free(m[j]);
			continue;
		}
		st->m[st->n++] = m[j];
		s->cnt.tx_control++;
	}
}

/* A parsed packet's owner among the host's shards: this one, another, or nobody here. */
#define OWNER_ME   0xffff
#define OWNER_NONE 0xfffe

static inline uint16_t
owner_of(const struct mrc_shard *s, uint32_t qpn)
{
	uint32_t owner, slot;

	if (s->n_shards == 1 || !mrc_shard_locate(s, qpn, &owner, &slot) || owner >= s->n_shards)
		return OWNER_NONE; /* a QP of ours or unknown: the slot lookup says which */
	return owner == s->cfg.shard_index ? OWNER_ME : (uint16_t)owner;
}

/*
 * Ask for a QP's lines ahead of handling it: once more QPs are in flight
 * than the core's caches hold, every packet's QP is cold, and the misses of
 * a burst's QPs overlap when asked for together (mrc_qp_prefetch()).
 */
static inline void
prefetch_qp(struct mrc_shard *s, uint32_t qpn)
{
	const struct mrc_shard_slot *sl = mrc_shard_slot_of(s, qpn);

	if (sl == NULL || sl->qp == NULL)
		return;
	mrc_qp_prefetch(sl->qp);
	rte_prefetch0(&sl->timer); /* the re-arm after its packets */
}

/*
 * A packet's slot record, which names its QP: the first of the lines its
 * handling reads, asked for as the burst is parsed, RX_QP_BEHIND packets
 * before its QP's own lines are (prefetch_qp reads the record).
 */
#define RX_QP_BEHIND 2u

static inline void
prefetch_slot(struct mrc_shard *s, uint32_t qpn)
{
	const struct mrc_shard_slot *sl = mrc_shard_slot_of(s, qpn); /* reads no line */

	if (sl != NULL)
		rte_prefetch0(sl);
}

/*
 * How far ahead of the QP it serves the output round asks for lines, in
 * stages, each through pointers the one before brought in: the shard's
 * slot record (which names the QP), then the QP's own lines, then its
 * parts, then what its turn reads last (prefetch_busy). A QP's turn is
 * shorter than a miss, so the stages are more than a QP apart, except the
 * last: lines a turn reads last, asked for 4 QPs ahead, gain nothing
 * measurable; 1 ahead they do.
 */
#define BUSY_SLOT_AHEAD	 8u
#define BUSY_QP_AHEAD	 4u
#define BUSY_PARTS_AHEAD 2u
#define BUSY_TURN_AHEAD	 1u

/* What prefetch_busy asks for: each stage reads what the one before brought. */
enum busy_stage {
	BUSY_QP,    /* the QP's own lines */
	BUSY_PARTS, /* its parts' first lines */
	BUSY_TURN,  /* what its turn reads last: MACs, EV pick, send record */
};

/* The slot record of the busy list's entry `ahead` places after the head. */
static inline void
prefetch_busy_slot(const struct mrc_shard *s, uint32_t ahead)
{
	uint32_t i = s->busy_head + ahead;

	if (ahead >= s->busy_n)
		return;
	if (i >= s->cfg.max_qps)
		i -= s->cfg.max_qps;
	rte_prefetch0(&s->qps[s->busy[i]]);
	rte_prefetch0(&s->qps[s->busy[i]].timer); /* the re-arm after its turn */
}

/* The busy list's entry `ahead` places after the head, if there is one. */
static inline void
prefetch_busy(struct mrc_shard *s, uint32_t ahead, enum busy_stage stage)
{
	uint32_t i = s->busy_head + ahead;
	const struct mrc_shard_slot *sl;

	if (ahead >= s->busy_n)
		return;
	if (i >= s->cfg.max_qps)
		i -= s->cfg.max_qps;
	sl = &s->qps[s->busy[i]];
	if (sl->qp == NULL)
		return;
	if (stage == BUSY_TURN)
		mrc_qp_prefetch_turn(sl->qp);
	else if (stage == BUSY_PARTS)
		mrc_qp_prefetch_parts(sl->qp);
	else
		mrc_qp_prefetch(sl->qp);
}

/*
 * Put the packets of a burst that belong to other shards (to[k] their
 * owner) on those shards' inbound rings, a burst per ring; what a ring does
 * not take is dropped (counted). Sent ones become NULL in m[].
 */
static void
dispatch(struct mrc_shard *s, struct rte_mbuf **m, const uint16_t *to, uint16_t n,
	unsigned int n_out)
{
	for (unsigned int j = 0; j < s->n_shards && n_out > 0; j++) {
		struct rte_mbuf *out[MRC_SHARD_BURST];
		uint16_t idx[MRC_SHARD_BURST], c = 0;
		unsigned int sent;

		if (j == s->cfg.shard_index)
			continue;
		for (uint16_t k = 0; k < n; k++)
			if (to[k] == j && m[k] != NULL) {
				idx[c] = k;
				out[c++] = m[k];
			}
		if (c == 0)
			continue;
		n_out -= c;
		sent = rte_ring_enqueue_burst(s->cfg.dispatch[j], (void **)out, c, NULL);
		for (unsigned int i = 0; i < sent; i++)
			m[idx[i]] = NULL; /* the owner frees it */
		s->cnt.rx_dispatched_out += sent;
		s->cnt.rx_dispatch_full += c - sent;
	}
}

/*
 * Software dispatch, before any parse: the packets of a port's burst whose
 * BTH names a QP of another shard of the host go to that shard's inbound
 * ring as they came (mrc_pkt_peek_dqpn), a burst per ring, and their parse
 * and ICRC check are the owner's. A worker that reads a port for all of its
 * host's shards (a port that cannot steer, an RSS hash that put every host
 * pair on its queue) then spends on each other shard's packet one look at
 * its headers and its share of an enqueue, not a parse and a CRC of the
 * whole packet. What a ring does not take is dropped (counted); the rest
 * (this shard's, endpoint requests, whatever the look does not place) are
 * moved to the front of m[], and their count returned.
 */
static uint16_t
pass_on(struct mrc_shard *s, struct rte_mbuf **m, uint16_t n)
{
	uint16_t to[MRC_SHARD_BURST], kept = 0;
	unsigned int n_out = 0;

	for (uint16_t k = 0; k < n; k++) {
		uint32_t qpn;

		to[k] = OWNER_ME;
		if (!mrc_pkt_peek_dqpn(m[k], &qpn) || qpn == MRC_EP_QPN)
			continue;
		to[k] = owner_of(s, qpn);
		if (to[k] < OWNER_NONE && s->cfg.dispatch[to[k]] != NULL)
			n_out++;
		else
			to[k] = OWNER_ME; /* parsed here: its own, unknown, or no ring */
	}
	if (n_out == 0)
		return n;
	dispatch(s, m, to, n, n_out);
	for (uint16_t k = 0; k < n; k++) {
		if (to[k] == OWNER_ME)
			m[kept++] = m[k];
		else if (m[k] != NULL)
			rte_pktmbuf_free(m[k]); /* its ring was full: counted in dispatch() */
	}
	return kept;
}

/*
 * Parse a burst (from a port's plane, or from the inbound ring when plane
 * is MRC_SHARD_MAX_PLANES); hand SACKs and NACKs to their QPs first, then
 * data and probes. Packets of other shards (only those pass_on() could not
 * place) go to their inbound rings, endpoint requests to the hand-off ring.
 * Each packet's parse verdict is counted once, by the shard that parses it
 * for its QP. The burst is freed together at the end (see mrc_qp_rx_keep),
 * but for the packets passed on, and a QP's timer is re-armed once per run
 * of its packets, not per packet. t0: when the burst was in hand.
 */
static void
input_pkts(struct mrc_shard *s, struct rte_mbuf **m, uint16_t n, unsigned int plane, uint64_t t0)
{
	struct mrc_pkt v[MRC_SHARD_BURST];
	bool ok[MRC_SHARD_BURST];
	uint16_t to[MRC_SHARD_BURST];
	const bool inbound = plane == MRC_SHARD_MAX_PLANES;
	struct mrc_shard_slot *last = NULL;
	unsigned int n_out = 0;
	uint64_t t1, t2, t3;

	for (uint16_t k = 0; k < n; k++) {
		enum mrc_wire_rx r;

		/* the slot record asked for RX_QP_BEHIND packets ago names the QP */
		if (k >= RX_QP_BEHIND && ok[k - RX_QP_BEHIND])
			prefetch_qp(s, v[k - RX_QP_BEHIND].bth.dqpn);
		r = mrc_pkt_parse(m[k], &s->cfg.wire, &v[k]);
		ok[k] = r == MRC_WIRE_OK;
		to[k] = OWNER_NONE;
		if (!ok[k] && !inbound && s->cfg.exception != NULL && not_mrc(r)) {
			/* not refused: another path's, counted there by kind. The port it
			 * came in on, by which control finds the plane: a ring port (loop
			 * pairs) leaves the sender's value there. */
			m[k]->port = s->cfg.port_id[plane];
			if (rte_ring_enqueue(s->cfg.exception, m[k]) == 0) {
				m[k] = NULL; /* the control thread frees it */
				s->cnt.rx_exception++;
				continue;
			}
			s->cnt.rx_exception_drops++;
		}
		if (!ok[k]) {
			s->verdicts.pkts[r]++;
			continue;
		}
		if (v[k].bth.dqpn == MRC_EP_QPN) {
			s->verdicts.pkts[r]++;
			ok[k] = false;
			if (hand_off(s, m[k], t0))
				m[k] = NULL; /* the ring's reader frees it */
			continue;
		}
		to[k] = owner_of(s, v[k].bth.dqpn);
		if (to[k] < OWNER_NONE && !inbound) {
			ok[k] = false;
			if (s->cfg.dispatch[to[k]] != NULL) {
				n_out++; /* its owner parses it again and counts it */
				continue;
			}
			to[k] = OWNER_NONE;
			if (hand_off(s, m[k], t0))
				m[k] = NULL;
		} else {
			to[k] = OWNER_NONE;
		}
		s->verdicts.pkts[r]++;
		if (ok[k])
			prefetch_slot(s, v[k].bth.dqpn);
	}
	for (uint16_t k = n > RX_QP_BEHIND ? n - RX_QP_BEHIND : 0; k < n; k++)
		if (ok[k])
			prefetch_qp(s, v[k].bth.dqpn);
	t1 = rte_rdtsc();
	s->cnt.cyc_rx += t1 - t0;
	if (n_out > 0)
		dispatch(s, m, to, n, n_out);
	t2 = rte_rdtsc();
	s->cnt.cyc_dispatch += t2 - t1;
	/*
	 * The QPs' own lines were asked for above; now, through those lines,
	 * what each packet's handling reads in their parts: a SACK's or NACK's
	 * requester state (mrc_qp_prefetch_ack), a data packet's responder
	 * state and where its payload goes (mrc_qp_prefetch_rx).
	 */
	for (uint16_t k = 0; k < n; k++) {
		const struct mrc_shard_slot *sl;

		if (!ok[k])
			continue;
		sl = mrc_shard_slot_of(s, v[k].bth.dqpn);
		if (sl == NULL || sl->qp == NULL)
			continue;
		if (v[k].bth.opcode == MRC_OP_SACK || v[k].bth.opcode == MRC_OP_NACK)
			mrc_qp_prefetch_ack(sl->qp);
		else if (mrc_opcode_is_data(v[k].bth.opcode))
			mrc_qp_prefetch_rx(sl->qp, &v[k]);
		else
			mrc_qp_prefetch_parts(sl->qp);
	}
	/* Then what each verdict reads through the parts' first lines. */
	for (uint16_t k = 0; k < n; k++) {
		const struct mrc_shard_slot *sl;

		if (!ok[k])
			continue;
		sl = mrc_shard_slot_of(s, v[k].bth.dqpn);
		if (sl != NULL && sl->qp != NULL)
			mrc_qp_prefetch_judge(sl->qp, &v[k]);
	}
	for (int pass = 0; pass < 2; pass++) {
		for (uint16_t k = 0; k < n; k++) {
			const uint8_t op = v[k].bth.opcode;
			const bool feedback = op == MRC_OP_SACK || op == MRC_OP_NACK;
			struct mrc_shard_slot *sl;

			if (!ok[k] || feedback != (pass == 0))
				continue;
			sl = mrc_shard_slot_of(s, v[k].bth.dqpn);
			if (sl == NULL || sl->qp == NULL) {
				if (inbound && sl == NULL)
					s->cnt.rx_misdispatched++;
				else if (v[k].bth.dqpn - s->cfg.pending_qpn < s->cfg.n_pending_qpns)
					s->cnt.rx_pending_qpn++;
				else
					s->cnt.rx_unknown_qpn++;
				continue;
			}
			if (sl != last && last != NULL) {
				mrc_shard_rearm(s, last);
				mrc_shard_mark_busy(s, last);
			}
			last = sl;
			mrc_qp_rx_keep(sl->qp, m[k], &v[k], s->now_tsc);
		}
	}
	if (last != NULL) {
		mrc_shard_rearm(s, last);
		mrc_shard_mark_busy(s, last);
	}
	rte_pktmbuf_free_bulk(m, n); /* NULL entries (passed on) are skipped */
	t3 = rte_rdtsc();
	s->cnt.cyc_qp_input += t3 - t2;
}

/* One rx burst from a plane's port; the packets received. */
static unsigned int
input_burst(struct mrc_shard *s, unsigned int plane)
{
	struct rte_mbuf *m[MRC_SHARD_BURST];
	const uint64_t t0 = rte_rdtsc();
	const uint16_t n =
		rte_eth_rx_burst(s->cfg.port_id[plane], s->cfg.rx_queue, m, MRC_SHARD_BURST);
	uint16_t mine = n;
	uint64_t t1;

	if (n == 0)
		return 0; /* an empty poll is not counted as rx: cyc_total has it */
	s->plane[plane].rx_pkts += n;
	s->cnt.rx_pkts += n;
	for (uint16_t k = 0; k < n; k++)
		s->plane[plane].rx_bytes += rte_pktmbuf_pkt_len(m[k]);
	t1 = rte_rdtsc();
	s->cnt.cyc_rx += t1 - t0;
	if (s->n_shards > 1) {
		const uint64_t t2 = t1;

		mine = pass_on(s, m, n);
		t1 = rte_rdtsc();
		s->cnt.cyc_dispatch += t1 - t2;
	}
	if (mine > 0)
		input_pkts(s, m, mine, plane, t1);
	return n;
}

/* Read a plane's rx queue until it is empty, or MRC_SHARD_RX_BURSTS; *drained: it was emptied. */
static unsigned int
input(struct mrc_shard *s, unsigned int plane, bool *drained)
{
	unsigned int total = 0;

	for (unsigned int b = 0; b < MRC_SHARD_RX_BURSTS; b++) {
		const unsigned int n = input_burst(s, plane);

		total += n;
		if (n < MRC_SHARD_BURST)
			return total;
	}
	*drained = false;
	return total;
}

/*
 * The inbound ring: what the host's other shards read for this shard's
 * QPs. An rx source like a port's queue, read until empty or
 * MRC_SHARD_RX_BURSTS bursts (then *drained is false: the input horizon
 * holds).
 */
static unsigned int
input_inbound(struct mrc_shard *s, bool *drained)
{
	struct rte_ring *r = s->n_shards > 1 ? s->cfg.dispatch[s->cfg.shard_index] : NULL;
	unsigned int total = 0;

	if (r == NULL)
		return 0;
	for (unsigned int b = 0; b < MRC_SHARD_RX_BURSTS; b++) {
		struct rte_mbuf *m[MRC_SHARD_BURST];
		const uint64_t t0 = rte_rdtsc();
		const uint16_t n =
			(uint16_t)rte_ring_sc_dequeue_burst(r, (void **)m, MRC_SHARD_BURST, NULL);
		uint64_t t1;

		if (n == 0)
			return total;
		t1 = rte_rdtsc();
		s->cnt.cyc_dispatch += t1 - t0; /* the parse is the packet's only one: rx */
		s->cnt.rx_dispatched_in += n;
		input_pkts(s, m, n, MRC_SHARD_MAX_PLANES, t1);
		total += n;
		if (n < MRC_SHARD_BURST)
			return total;
	}
	*drained = false;
	return total;
}

/* Offer staged packets to their ports; keep what they do not take. */
static unsigned int
flush(struct mrc_shard *s)
{
	unsigned int sent = 0;

	for (unsigned int p = 0; p < s->cfg.n_planes; p++) {
		struct mrc_shard_stage *st = &s->stage[p];
		uint64_t bytes[MRC_SHARD_STAGE];
		uint16_t k;

		if (st->n == 0)
			continue;
		/* Lengths first: the port owns the mbufs once it has taken them. */
		for (uint16_t j = 0; j < st->n; j++)
			bytes[j] = rte_pktmbuf_pkt_len(st->m[j]);
		k = rte_eth_tx_burst(s->cfg.port_id[p], s->cfg.tx_queue, st->m, st->n);
		sent += k;
		s->plane[p].tx_pkts += k;
		for (uint16_t j = 0; j < k; j++)
			s->plane[p].tx_bytes += bytes[j];
		if (k < st->n) {
			s->cnt.tx_staged += st->n - k;
			memmove(st->m, st->m + k, (size_t)(st->n - k) * sizeof(st->m[0]));
		}
		st->n = (uint16_t)(st->n - k);
	}
	s->cnt.tx_pkts += sent;
	return sent;
}

/* As many ring waiters back on the busy list as there are rings free. */
static void
unpark(struct mrc_shard *s)
{
	for (uint32_t k = s->trk != NULL ? RTE_MIN(s->parked_n, s->trk->n_free) : 0; k > 0; k--) {
		struct mrc_shard_slot *sl = &s->qps[s->parked[s->parked_head]];

		if (++s->parked_head == s->cfg.max_qps)
			s->parked_head = 0;
		s->parked_n--;
		sl->parked = false;
		if (sl->qp != NULL)
			mrc_shard_mark_busy(s, sl);
	}
}

static void
park(struct mrc_shard *s, struct mrc_shard_slot *sl)
{
	uint32_t tail = s->parked_head + s->parked_n;

	if (sl->parked)
		return;
	if (tail >= s->cfg.max_qps)
		tail -= s->cfg.max_qps;
	s->parked[tail] = (uint32_t)(sl - s->qps);
	s->parked_n++;
	sl->parked = true;
	s->cnt.trk_parked++;
}

/*
 * The run clock (mrc_shard.h): the caller's clock less the time the lcore
 * was away. A gap between two iterations longer than four typical passes
 * (and than min_stall) is a stall: beyond that bound it is not counted.
 */
static uint64_t
run_clock(struct mrc_shard *s, uint64_t wall_tsc)
{
	if (s->last_wall_tsc != 0 && wall_tsc > s->last_wall_tsc) {
		const uint64_t gap = wall_tsc - s->last_wall_tsc;
		const uint64_t limit = RTE_MAX(s->min_stall_tsc, 4 * s->pass_tsc);

		if (gap > limit) {
			s->away_tsc += gap - limit;
			s->cnt.stalls++;
		} else {
			s->pass_tsc = (7 * s->pass_tsc + gap) / 8;
		}
	}
	s->last_wall_tsc = wall_tsc;
	return wall_tsc - s->away_tsc;
}

uint64_t
mrc_shard_run_clock(const struct mrc_shard *s, uint64_t wall_tsc)
{
	return wall_tsc > s->away_tsc ? wall_tsc - s->away_tsc : 0;
}

unsigned int
mrc_shard_iterate(struct mrc_shard *s, uint64_t wall_tsc, struct mrc_rand *rand)
{
	const uint64_t t_start = rte_rdtsc();
	const uint64_t prev_wall = s->last_wall_tsc;
	const uint64_t now_tsc = run_clock(s, wall_tsc);
	unsigned int work = 0;
	uint64_t t0, t1, horizon, t_app = 0;
	uint64_t queued[MRC_SHARD_MAX_PLANES]; /* in the NIC queue and staged */
	const bool nic_room = s->cfg.tx_backlog != NULL;
	uint32_t up, room;

	bool drained = true;

	s->now_tsc = now_tsc;
	s->cnt.iterations++;
	mrc_shard_take_requests(s);
	/*
	 * The other shards of the host: what they had read by their last drained
	 * pass is on our inbound ring now (they put it there before saying so),
	 * and is read below; what came to them later may still wait there.
	 */
	horizon = s->last_iter_tsc;
	for (uint32_t j = 0; j < s->n_peers; j++) {
		const uint64_t w = __atomic_load_n(&s->peer[j]->drained_wall_tsc, __ATOMIC_ACQUIRE);
		const uint64_t r = w > s->away_tsc ? w - s->away_tsc : 0; /* on our run clock */

		horizon = RTE_MIN(horizon, r);
	}
	for (unsigned int p = 0; p < s->cfg.n_planes && s->cfg.rx_queue != MRC_SHARD_NO_RX_QUEUE;
		p++)
		work += input(s, p, &drained);
	/* After the ports: what the other shards passed on in this pass is read now. */
	work += input_inbound(s, &drained);
	/* The input horizon (mrc_shard.h): timers judge at most up to it. */
	if (drained) {
		if (s->n_peers > 0)
			__atomic_store_n(&s->drained_wall_tsc, prev_wall, __ATOMIC_RELEASE);
		s->judge_tsc = RTE_MAX(s->judge_tsc, horizon);
	}
	if (drained && horizon == s->last_iter_tsc) {
		s->held_since_tsc = 0;
	} else {
		/* Held, for max_judge_lag at most: a shard that never keeps up still sees losses.
		 */
		s->cnt.horizon_held++;
		if (s->held_since_tsc == 0)
			s->held_since_tsc = now_tsc;
		else if (now_tsc - s->held_since_tsc > s->max_judge_lag_tsc)
			s->judge_tsc = RTE_MAX(s->judge_tsc, now_tsc - s->max_judge_lag_tsc);
	}
	s->last_iter_tsc = now_tsc;
	t0 = rte_rdtsc();
	mrc_timer_wheel_advance(s->wheel, now_tsc);
	t1 = rte_rdtsc();
	s->cnt.cyc_timers += t1 - t0;

	if (s->cfg.ctl_tx != NULL)
		take_control_tx(s);
	/* Planes still holding staged packets get nothing new this time. */
	work += flush(s);
	t0 = rte_rdtsc();
	s->cnt.cyc_tx += t0 - t1;
	up = mrc_shard_port_mask(s);
	room = up;
	for (unsigned int p = 0; p < s->cfg.n_planes; p++) {
		if (s->stage[p].n > MRC_SHARD_STAGE - MRC_SHARD_BURST)
			room &= ~(1u << p);
		if (nic_room) {
			queued[p] =
				s->cfg.tx_backlog(s->cfg.tx_backlog_ctx, s->cfg.tx_backlog_host, p);
			if (queued[p] > s->cfg.tx_room_bytes)
				room &= ~(1u << p);
		} else if (s->desc_room_off[p] != 0 &&
			   rte_eth_tx_descriptor_status(s->cfg.port_id[p], s->cfg.tx_queue,
				   s->desc_room_off[p]) == RTE_ETH_TX_DESC_FULL) {
			room &= ~(1u << p); /* the NIC's ring holds tx_room_desc waiting */
			s->cnt.tx_nic_full++;
		}
	}
	unpark(s);
	if (s->before_output != NULL) {
		/* The caller's posts (mrc_shard_set_before_output): not our cycles. */
		t1 = rte_rdtsc();
		s->before_output(s->before_output_ctx, wall_tsc);
		t0 = rte_rdtsc();
		t_app += t0 - t1;
	}

	/*
	 * Output: each busy QP once, in turn (round-robin, so none starves the
	 * others of the burst); one that still has work goes to the back, or
	 * aside when all it has is new data and no ring is free. Once no plane
	 * has room the round stops: the QPs not yet visited keep their places
	 * at the head, and the next iteration starts with them, as a NIC serves
	 * its queues in turn. (Visiting them anyway sent each to the back
	 * empty-handed, so every iteration began with the same QPs, which took
	 * all the room.) With no room from the start (every port down) each is
	 * still visited: what it does without a plane is its business.
	 */
	const uint32_t room_at_start = room;
	uint32_t k;

	/* The round's first QPs: their slots, then their own lines (the loop keeps ahead). */
	for (k = 0; k < BUSY_SLOT_AHEAD; k++)
		prefetch_busy_slot(s, k);
	for (k = 0; k < BUSY_QP_AHEAD; k++)
		prefetch_busy(s, k, BUSY_QP);
	for (k = s->busy_n; k > 0 && (room != 0 || room_at_start == 0); k--) {
		struct mrc_shard_slot *sl = &s->qps[s->busy[s->busy_head]];
		uint16_t n = 0, got;

		prefetch_busy_slot(s, BUSY_SLOT_AHEAD);
		prefetch_busy(s, BUSY_QP_AHEAD, BUSY_QP);
		prefetch_busy(s, BUSY_PARTS_AHEAD, BUSY_PARTS);
		prefetch_busy(s, BUSY_TURN_AHEAD, BUSY_TURN);
		if (++s->busy_head == s->cfg.max_qps)
			s->busy_head = 0;
		s->busy_n--;
		sl->listed = false;
		if (sl->by_post) {
			sl->by_post = false;
			s->posts_waiting--;
		}
		if (sl->qp == NULL)
			continue;
		/*
		 * Under a NIC tx room rule a QP is asked for a few packets at a
		 * time (MRC_SHARD_ROOM_BURST), the room updated in between, as
		 * a NIC picks a port with room: a burst of 32 picked at once
		 * spreads over the planes with a stale mask and overfills them,
		 * and the packets queued past the room are measured as path
		 * delay.
		 */
		do {
			struct rte_mbuf *out[MRC_SHARD_BURST];

			got = mrc_qp_tx_burst_room(sl->qp, now_tsc, up, room, rand, out,
				nic_room ? RTE_MIN(MRC_SHARD_ROOM_BURST, MRC_SHARD_BURST - n)
					 : MRC_SHARD_BURST);
			for (uint16_t j = 0; j < got; j++) {
				const uint16_t p = out[j]->port;
				struct mrc_shard_stage *st = &s->stage[p % MRC_SHARD_MAX_PLANES];

				if (p >= s->cfg.n_planes || st->n == MRC_SHARD_STAGE) {
					s->cnt.tx_dropped++;
					rte_pktmbuf_free(out[j]);
					continue;
				}
				st->m[st->n++] = out[j];
				if (st->n > MRC_SHARD_STAGE - MRC_SHARD_BURST)
					room &= ~(1u << p);
				if (nic_room &&
					(queued[p] += out[j]->pkt_len) > s->cfg.tx_room_bytes)
					room &= ~(1u << p);
			}
			n += got;
		} while (nic_room && got > 0 && room != 0 && n < MRC_SHARD_BURST);
		mrc_shard_check_error(s, sl);
		if (n > 0) {
			mrc_shard_rearm(s, sl);
		} else if (!mrc_qp_tx_pending(sl->qp)) {
			continue; /* it waits: what ends the wait lists it again */
		} else if (s->trk != NULL && s->trk->n_free == 0 && !mrc_qp_trk_held(sl->qp) &&
			   !mrc_qp_idle(sl->qp) && !mrc_qp_answers_queued(sl->qp)) {
			/*
			 * Waits for an in-flight ring. Not one with answers queued: they
			 * need none, only room, and set aside they would wait for a ring
			 * to come back while their peer waits for them.
			 */
			park(s, sl);
			continue;
		}
		mrc_shard_mark_busy(s, sl);
	}
	/*
	 * A round that got through every busy QP leaves them in the order it
	 * found them, and the same QPs would be first at the room every time:
	 * a plane no QP can use (black-holed, all its EVs retired) always has
	 * room, so the round never stops for want of it, and in bench_failover
	 * the QPs at the back, served only what the first left, found no room
	 * on a usable plane for 262 us and had their retransmit timers fire.
	 * The next round starts one further on.
	 */
	if (k == 0 && s->busy_n > 1) {
		const uint32_t first = s->busy[s->busy_head];
		uint32_t tail;

		if (++s->busy_head == s->cfg.max_qps)
			s->busy_head = 0;
		tail = s->busy_head + s->busy_n - 1;
		if (tail >= s->cfg.max_qps)
			tail -= s->cfg.max_qps;
		s->busy[tail] = first;
	}
	t1 = rte_rdtsc();
	s->cnt.cyc_output += t1 - t0;
	work += flush(s);
	t0 = rte_rdtsc();
	s->cnt.cyc_tx += t0 - t1;
	s->cnt.cyc_total += t0 - t_start - t_app;
	return work;
}
