/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * A link: the egress queue at its near end and the wire to its far end.
 * The model (mrc_fabric.h) in the order it is applied: faults, queue
 * (priority class; trim, tail drop or ECN for the data class), loss on the
 * wire, then the arrival at the far end (plus any jitter) is scheduled in
 * the event heap.
 *
 * Why a queue is one number. A FIFO, work-conserving transmitter serving
 * packets that arrive in time order is fully described by when it will be
 * idle: a packet arriving at t starts at max(t, busy), leaves at start +
 * ser, and the backlog at t is what the transmitter still has to send,
 * (busy - t) at line rate. The heap hands each link its packets in time
 * order, so this is exact, and costs a compare and a multiply per packet
 * instead of a queue of mbufs.
 *
 * Strict priority. Trimmed headers (and control, if configured) have their
 * own transmitter timeline that never waits for data; their serialisation
 * is added to the data timeline, so data behind them waits as it would
 * behind a higher-priority frame. The data frame already on the wire is not
 * preempted in reality; here the header starts at once and the data pays
 * (see mrc_fabric.h "Not modelled").
 *
 * Trimming (doc/protocol.md, "Traffic classes, DSCP and trimming"): the parse
 * (without ICRC check: switches do not check it) finds where the payload
 * starts; everything from there is cut, the outermost IPv6 payload length is
 * set to what is left and its DSCP to trimmed or trimmed_lasthop. The inner
 * IPv6 and UDP lengths keep describing the packet as sent, which is how
 * lib/wire's parser knows a trimmed packet from a truncated one
 * (mrc_wire_parse.c check_len).
 */

#include <rte_mbuf.h>

#include "fabric_priv.h"
#include "mrc_time.h"

#define IPV6_HDR_LEN 40u

static inline uint8_t *
l3(const struct fab_item *it)
{
	return rte_pktmbuf_mtod_offset(it->m, uint8_t *, it->l3_off);
}

/* Bytes a link at `rate_mbps` sends in `ps`. */
static inline uint64_t
ps_to_bytes(uint64_t ps, uint64_t rate_mbps)
{
	if (likely(ps <= UINT64_MAX / rate_mbps))
		return ps * rate_mbps / 8000000u;
	return mrc_muldiv_u64(ps, rate_mbps, 8000000u);
}

uint64_t
mrc_fabric_tx_backlog(const struct mrc_fabric *fab, unsigned int host, unsigned int plane)
{
	const struct fab_link *l;

	if (host >= fab->n_hosts || plane >= fab->n_planes)
		return 0;
	l = &fab->links[fab_link_host_up(fab, plane, host)];
	return l->busy_ps > fab->now_ps ? ps_to_bytes(l->busy_ps - fab->now_ps, fab->rate_mbps) : 0;
}

uint64_t
mrc_fabric_tx_backlog_cb(const void *fab, unsigned int host, unsigned int plane)
{
	return mrc_fabric_tx_backlog(fab, host, plane);
}

/* Serialisation time of `wire` bytes, rounded up; a multiply at the usual whole rates. */
static inline uint64_t
ser_ps(const struct mrc_fabric *fab, uint64_t wire)
{
	if (likely(fab->ps_per_byte != 0))
		return wire * fab->ps_per_byte;
	return (wire * 8000000u + fab->rate_mbps - 1) / fab->rate_mbps;
}

static void
set_dscp(uint8_t *ip, uint8_t dscp)
{
	/* DSCP is bits 27..22 of the first word: 4 in byte 0, 2 at the top of byte 1. */
	ip[0] = (uint8_t)((ip[0] & 0xf0) | (dscp >> 2));
	ip[1] = (uint8_t)((ip[1] & 0x3f) | ((dscp & 0x3) << 6));
}

/* The segment of `m` holding byte `off`, and `off` within it. */
static struct rte_mbuf *
seg_at(struct rte_mbuf *m, uint32_t off, uint32_t *seg_off, uint16_t *nb)
{
	*nb = 1;
	for (; m != NULL; m = m->next, (*nb)++) {
		if (off <= m->data_len) {
			*seg_off = off;
			return m;
		}
		off -= m->data_len;
	}
	return NULL;
}

/*
 * Cut `it` after its transport headers. false (packet untouched) when it
 * is not an MRC WRITE or the segment to cut is shared.
 */
static bool
trim(struct mrc_fabric *fab, struct fab_item *it, bool lasthop)
{
	struct rte_mbuf *m = it->m, *seg, *rest;
	struct mrc_pkt v;
	uint32_t cut, seg_off;
	uint16_t nb, plen;
	uint8_t *ip;

	if (mrc_pkt_parse(m, &fab->wire, &v) != MRC_WIRE_OK || !mrc_opcode_is_data(v.bth.opcode) ||
		v.l3_off != it->l3_off)
		return false;
	cut = v.payload_off;
	seg = seg_at(m, cut, &seg_off, &nb);
	if (seg == NULL || rte_mbuf_refcnt_read(seg) != 1)
		return false;
	ip = l3(it);
	plen = (uint16_t)(cut - it->l3_off - IPV6_HDR_LEN);
	ip[4] = (uint8_t)(plen >> 8);
	ip[5] = (uint8_t)plen;
	set_dscp(ip, lasthop ? fab->wire.dscp.trimmed_lasthop : fab->wire.dscp.trimmed);
	rest = seg->next;
	if (rest != NULL) {
		/* Freed as a packet of its own: give its first segment a true header. */
		rest->nb_segs = (uint16_t)(m->nb_segs - nb);
		rest->pkt_len = m->pkt_len - (cut - seg_off + seg->data_len);
		rte_pktmbuf_free(rest);
	}
	seg->data_len = (uint16_t)seg_off;
	seg->next = NULL;
	m->nb_segs = nb;
	m->pkt_len = cut;
	return true;
}

/* Mark CE with probability (B - Kmin) / (Kmax - Kmin), certainly from Kmax on. */
static inline bool
ecn_mark(struct mrc_fabric *fab, uint64_t backlog)
{
	return backlog >= fab->kmax_bytes ||
	       mrc_rand_bounded(&fab->r_ecn, fab->kmax_bytes - fab->kmin_bytes) <
		       backlog - fab->kmin_bytes;
}

/* Forced marking (a fault), whatever the queue: with the link's mark probability. */
static inline bool
forced_mark(struct mrc_fabric *fab, const struct fab_link *l)
{
	return l->mark_thresh != 0 &&
	       (l->mark_thresh == UINT64_MAX || mrc_rand_u64(&fab->r_ecn) < l->mark_thresh);
}

void
fab_link_enqueue(struct mrc_fabric *fab, uint32_t id, struct fab_item *it)
{
	struct fab_link *l = &fab->links[id];
	struct fab_switch *own = l->owner != NO_SWITCH ? &fab->sw[l->owner] : NULL;
	const uint8_t ps = fab->plane_state[l->plane];
	const uint64_t t = it->t_ps;
	uint64_t backlog, wire, ser, done;

	/* 0. What the sender's side handed this hop, by class (the per-path check's count). */
	l->cnt.offered_data_pkts += (it->cls & CLS_DATA) != 0;
	l->cnt.offered_ctrl_pkts += (it->cls & CLS_DATA) == 0;

	/* 1. Faults: DOWN wins over BLACKHOLE. */
	if (unlikely(ps != MRC_FABRIC_UP || l->state != MRC_FABRIC_UP)) {
		if (ps == MRC_FABRIC_DOWN || l->state == MRC_FABRIC_DOWN) {
			l->cnt.drop_down++;
			fab->cnt.drop_down++;
		} else {
			l->cnt.drop_blackhole++;
			fab->cnt.drop_blackhole++;
		}
		fab_drop(fab, it);
		return;
	}

	/* 2. Queue. */
	backlog = l->busy_ps > t ? ps_to_bytes(l->busy_ps - t, fab->rate_mbps) : 0;
	wire = (uint64_t)it->m->pkt_len + fab->cfg.frame_overhead_bytes;
	if ((it->cls & (CLS_TRIMMABLE | CLS_PRIO)) == CLS_TRIMMABLE && fab->trim_bytes != 0 &&
		!(l->flags & LINK_F_NIC) &&
		(backlog > fab->trim_bytes || backlog + wire > fab->limit_bytes)) {
		const bool last = l->flags & LINK_F_TO_HOST;

		if (trim(fab, it, last)) {
			it->cls = (uint8_t)((it->cls & ~(CLS_TRIMMABLE | CLS_ECT)) | CLS_PRIO);
			l->cnt.trims++;
			fab->cnt.trims++;
			fab->cnt.trims_lasthop += last;
			if (own != NULL)
				own->cnt.trims++;
			wire = (uint64_t)it->m->pkt_len + fab->cfg.frame_overhead_bytes;
		} else {
			it->cls &= (uint8_t)~CLS_TRIMMABLE; /* not a WRITE: never try again */
		}
	}
	ser = ser_ps(fab, wire);
	if (it->cls & CLS_PRIO) {
		done = RTE_MAX(t, l->prio_busy_ps) + ser;
		l->prio_busy_ps = done;
		l->busy_ps = l->busy_ps > t ? l->busy_ps + ser : RTE_MAX(l->busy_ps, done);
		l->cnt.prio_pkts++;
	} else {
		if (unlikely(backlog + wire > fab->limit_bytes)) {
			l->cnt.drop_queue++;
			fab->cnt.drop_queue++;
			fab_drop(fab, it);
			return;
		}
		if ((it->cls & CLS_ECT) &&
			((fab->kmax_bytes != 0 && backlog > fab->kmin_bytes &&
				 !(l->flags & LINK_F_NIC) &&
				 (!(l->flags & LINK_F_TO_HOST) || fab->cfg.ecn_last_hop) &&
				 ecn_mark(fab, backlog)) ||
				forced_mark(fab, l))) {
			l3(it)[1] |= MRC_ECN_CE << 4; /* ECN: bits 21..20 of the first word */
			it->cls &= (uint8_t)~CLS_ECT;
			l->cnt.ecn_marks++;
			fab->cnt.ecn_marks++;
			if (own != NULL)
				own->cnt.ecn_marks++;
		}
		done = RTE_MAX(t, l->busy_ps) + ser;
		l->busy_ps = done;
		if (backlog + wire > l->cnt.queue_peak_bytes) {
			l->cnt.queue_peak_bytes = backlog + wire;
			if (own != NULL && backlog + wire > own->cnt.queue_peak_bytes)
				own->cnt.queue_peak_bytes = backlog + wire;
		}
	}
	l->cnt.tx_pkts++;
	l->cnt.tx_bytes += it->m->pkt_len;

	/* 3. Loss on the wire: the frame used the link. */
	if (unlikely(l->loss_thresh != 0) &&
		(l->loss_thresh == UINT64_MAX || mrc_rand_u64(&fab->r_loss) < l->loss_thresh)) {
		l->cnt.drop_loss++;
		fab->cnt.drop_loss++;
		fab_drop(fab, it);
		return;
	}

	/* A drop_request fault: the next endpoint requests through here are lost. */
	if (unlikely(l->drop_requests != 0) && (it->cls & CLS_EP_REQUEST)) {
		l->drop_requests--;
		l->cnt.drop_request++;
		fab->cnt.drop_request++;
		fab_drop(fab, it);
		return;
	}

	/* 4. To the far end; with jitter, never before the last of its class. */
	it->t_ps = done + fab->delay_ps;
	if (fab->jitter_ps != 0) {
		uint64_t *last = (it->cls & CLS_PRIO) ? &l->prio_arrive_ps : &l->arrive_ps;

		it->t_ps += mrc_rand_bounded(&fab->r_jitter, fab->jitter_ps + 1);
		it->t_ps = RTE_MAX(it->t_ps, *last);
		*last = it->t_ps;
	}
	it->link = id;
	fab_heap_push(fab, it);
}
