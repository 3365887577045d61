/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * The QP's output: what leaves on the next burst, in this order.
 *  1. Control answers (SACK, NACK) queued by the input path: they unblock
 *     the peer, and are tiny.
 *  2. Resends of lost packets, oldest first, each on an EV other than the
 *     one it was lost on, flagged RTX and in the retransmit DSCP.
 *  3. A reliability probe when rel asks for one (tail loss, timer), and
 *     probes of retired EVs when the pool says they are due.
 *  4. New data while rel's window (the peer's MPR) and CC's window allow.
 * Every packet is a header mbuf, the payload attached as external memory
 * of its registered region (no copy) and a trailer for pad + ICRC; its
 * plane (output port) is the EV's and goes in mbuf->port.
 */

#include <string.h>

#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>

#include "mrc_qp_priv.h"
#include "mrc_seq.h"

/* The code packs a NACK's reason in 7 bits (struct qp_ctrl). */
#define CTRL_REASON_FITS_(name, code, help) _Static_assert((code) < CTRL_WHAT_SACK, #name);
MRC_NACK_REASONS(CTRL_REASON_FITS_)
#undef CTRL_REASON_FITS_

void
mrc_qp_queue_ctrl(struct mrc_qp *qp, uint8_t kind, uint8_t m_or_reason, bool pr, uint32_t psn,
	uint32_t ev, uint16_t ts)
{
	const uint8_t what = ctrl_what(kind, m_or_reason, pr);
	struct qp_ctrl *c;

	/*
	 * A SACK is built from the responder's state when it is sent, so one
	 * waiting plain SACK covers any later one (and those its bitmap misses
	 * follow it: mrc_rel_rx_sack_more): just move its trigger. Not that of
	 * one whose run of SACKs has begun: the run reports arrivals before it.
	 */
	if (what == CTRL_WHAT_SACK && qp->ctrl_tail != qp->ctrl_head &&
		!(qp->ctrl_tail - qp->ctrl_head == 1 && qp->sack_run)) {
		c = &qp->ctrl->e[(qp->ctrl_tail - 1) % CTRL_Q];
		if (c->what == CTRL_WHAT_SACK) {
			c->psn = psn & MRC_PSN_MASK;
			c->ev = ev;
			qp->ctrl->ts[(qp->ctrl_tail - 1) % CTRL_Q] = ts;
			return;
		}
	}
	if (qp->ctrl_tail - qp->ctrl_head >= CTRL_Q ||
		(unlikely(qp->ctrl == NULL) && !mrc_qp_ctrl_get(qp))) {
		qp->cnt.tx_ctrl_dropped++;
		return;
	}
	c = &qp->ctrl->e[qp->ctrl_tail % CTRL_Q];
	*c = (struct qp_ctrl){.psn = psn & MRC_PSN_MASK, .what = what, .ev = ev};
	qp->ctrl->ts[qp->ctrl_tail % CTRL_Q] = ts;
	qp->ctrl_tail++;
}

static inline uint8_t
ev_plane(const struct mrc_qp *qp, uint32_t ev)
{
	return (uint8_t)mrc_ev_layout_plane(&qp->layout, ev);
}

/*
 * The fields every packet we send shares, built from the addresses each
 * time rather than kept as a template: a template is a whole struct mrc_pkt
 * (360 bytes) in every QP, and filling it costs what copying it did.
 */
static inline void
pkt_base(const struct mrc_qp *qp, struct mrc_pkt *p)
{
	memset(p, 0, sizeof(*p));
	memcpy(p->ip.src, qp->hdr->src_ip, 16);
	memcpy(p->ip.dst, qp->hdr->dst_ip, 16);
	p->ip.hop_limit = qp->hdr->hop_limit ? qp->hdr->hop_limit : 64;
	p->ip.ecn = MRC_ECN_ECT0;
	if (qp->hdr->srv6) {
		p->flags = MRC_PKT_F_SRV6;
		p->outer = p->ip;
		memcpy(p->outer.src, qp->hdr->src_loc, 16);
	}
	p->bth.pkey = MRC_BTH_DEFAULT_PKEY;
}

/* Header mbuf (all room as headroom) and trailer; NULL if the pool is dry. */
static struct rte_mbuf *
alloc_hdr(struct mrc_qp *qp, struct rte_mbuf **trailer)
{
	struct rte_mbuf *m[2];

	if (rte_pktmbuf_alloc_bulk(qp->pool, m, 2) != 0) {
		qp->cnt.tx_no_mbuf++;
		return NULL;
	}
	m[0]->data_off = m[0]->buf_len;
	*trailer = m[1];
	return m[0];
}

/* Address the packet for `ev`: its plane's MACs and, in SRv6 mode, its path. */
static int
address(struct mrc_qp *qp, struct mrc_pkt *p, uint32_t ev)
{
	const uint8_t plane = ev_plane(qp, ev);

	if (plane >= MRC_EV_MAX_PLANES) /* an echoed EV is the peer's word, not ours */
		return -1;
	p->ev = ev;
	p->eth_src = qp->hdr->src_mac[plane];
	p->eth_dst = qp->hdr->dst_mac[plane];
	if (qp->hdr->next_hop_mac != NULL) {
		const uint64_t w = __atomic_load_n(&qp->hdr->next_hop_mac[plane], __ATOMIC_RELAXED);

		memcpy(&p->eth_dst, &w, sizeof(p->eth_dst));
	}
	if (qp->hdr->srv6) {
		struct mrc_usid_path up;

		if (mrc_ev_path(&qp->path, &qp->layout, ev, &up) != 0 ||
			mrc_srv6_set_path(p, &up) != 0)
			return -1;
	}
	return 0;
}

/*
 * Whether the NIC adds this packet's outer header (doc/offload.md): the
 * flow-label half's bit in the plane's rule bitmap, one load. True and the
 * key, or false, counted: the header is built in software.
 */
static inline bool
encap_key(const struct mrc_qp *qp, struct mrc_qp_encap *e, uint32_t ev, unsigned int cls,
	uint32_t *key)
{
	/* control swaps it while neighbour discovery remakes a port's rules */
	const uint64_t *bits = __atomic_load_n(&e->fl_bits[ev_plane(qp, ev)], __ATOMIC_ACQUIRE);
	const uint16_t fl = mrc_ev_flow_bits(ev, qp->wire.ev_split);

	if (bits == NULL) {
		e->cnt.sw_no_port++;
		return false;
	}
	if (!((__atomic_load_n(&bits[fl >> 6], __ATOMIC_RELAXED) >> (fl & 63)) & 1)) {
		e->cnt.sw_no_rule++; /* answers on a peer's EV, a full rule table */
		return false;
	}
	*key = mrc_qp_encap_key(e->key_base, fl, cls);
	return true;
}

static struct rte_mbuf *
finish(struct mrc_qp *qp, struct rte_mbuf *hdr, struct rte_mbuf *trailer, struct mrc_pkt *p,
	unsigned int cls)
{
	struct mrc_qp_encap *e = qp->encap;
	uint32_t key = 0;
	bool nic = false;

	if (e != NULL && (nic = encap_key(qp, e, p->ev, cls, &key)))
		p->flags |= MRC_PKT_F_NIC_ENCAP;
	if (mrc_pkt_build(hdr, p, &qp->wire, trailer) != 0) {
		rte_pktmbuf_free(hdr);
		rte_pktmbuf_free(trailer);
		return NULL;
	}
	if (rte_pktmbuf_lastseg(hdr) != trailer)
		rte_pktmbuf_free(trailer);
	hdr->port = ev_plane(qp, p->ev);
	if (nic) {
		/* rte_flow's tx metadata: what the port's egress rule matches */
		*RTE_MBUF_DYNFIELD(hdr, e->meta_off, uint32_t *) = key;
		hdr->ol_flags |= e->meta_flag;
		e->cnt.nic++;
	}
	return hdr;
}

static uint8_t
data_opcode(const struct qp_wqe *w, uint32_t k)
{
	const bool last = k + 1 == w->n_pkts;

	if (w->n_pkts == 1)
		return w->with_imm ? MRC_OP_WRITE_ONLY_IMM : MRC_OP_WRITE_ONLY;
	if (k == 0)
		return MRC_OP_WRITE_FIRST;
	if (!last)
		return MRC_OP_WRITE_MIDDLE;
	return w->with_imm ? MRC_OP_WRITE_LAST_IMM : MRC_OP_WRITE_LAST;
}

/* Packet k of message w as PSN `psn` on `ev`. */
static struct rte_mbuf *
build_data(
	struct mrc_qp *qp, const struct qp_wqe *w, uint32_t k, uint32_t psn, uint32_t ev, bool rtx)
{
	const uint32_t off = k * qp->mtu;
	const uint32_t rest = off < w->len ? w->len - off : 0;
	const uint32_t plen = rest < qp->mtu ? rest : qp->mtu;
	struct rte_mbuf *hdr, *trailer, *pl = NULL;
	struct mrc_pkt p;

	pkt_base(qp, &p);
	if (plen == 0) {
		hdr = alloc_hdr(qp, &trailer);
		if (hdr == NULL)
			return NULL;
	} else {
		/* the key was checked at the post: its slot is in the table */
		struct mrc_mr *mr = &qp->mrs->mr[w->lkey >> 8];
		struct rte_mbuf_ext_shared_info *sh;
		const uint8_t *src = w->laddr + off;
		struct rte_mbuf *m3[3];

		/*
		 * Let go since the post: the memory may be unmapped. Whoever lets a
		 * region go retires its key first and waits for every shard's next
		 * pass before the memory goes (mrc_mr.h), so a key still found here
		 * holds it for this pass.
		 */
		if (unlikely(__atomic_load_n(&mr->key, __ATOMIC_ACQUIRE) != w->lkey)) {
			qp->region_gone = true;
			return NULL;
		}
		sh = mrc_mr_shinfo(qp->mrs, mr, qp->mr_lane);

		/* Header, trailer and payload segment from one pool access. */
		if (rte_pktmbuf_alloc_bulk(qp->pool, m3, 3) != 0) {
			qp->cnt.tx_no_mbuf++;
			return NULL;
		}
		hdr = m3[0];
		hdr->data_off = hdr->buf_len;
		trailer = m3[1];
		pl = m3[2];
		/* The payload stays where the application put it; counted on our lane (mrc_mr.h).
		 */
		rte_mbuf_ext_refcnt_update(sh, 1);
		rte_pktmbuf_attach_extbuf(pl, (void *)(uintptr_t)src,
			mr->iova + (rte_iova_t)(src - mr->addr), (uint16_t)plen, sh);
		pl->data_len = (uint16_t)plen;
		pl->pkt_len = plen;
		hdr->next = pl;
		hdr->nb_segs = 2;
		hdr->pkt_len = plen;
	}
	p.bth.opcode = data_opcode(w, k);
	p.bth.dqpn = qp->dest_qpn;
	p.bth.psn = psn;
	p.bth.rtx = rtx;
	/* Ask for an immediate SACK on a message's last packet: it completes the message. */
	p.bth.ackreq = k + 1 == w->n_pkts;
	p.data.rqmsn = w->rqmsn;
	p.data.msn = w->msn;
	p.data.va = w->raddr + off;
	p.data.rkey = w->rkey;
	p.data.dma_len = w->len;
	p.data.imm = w->imm;
	if (qp->tseth) {
		/* rel records the same qp->now_tsc as the send time, so the echo names this copy.
		 */
		p.bth.ts = true;
		p.tseth.ts = mrc_rel_tx_ts_stamp(qp->rtx, qp->now_tsc);
		p.tseth.ftype = MRC_FTYPE_DEFAULT;
	}
	p.ip.dscp = qp->data_dscp[rtx];
	p.outer.dscp = p.ip.dscp;
	if (address(qp, &p, ev) != 0) {
		rte_pktmbuf_free(hdr);
		rte_pktmbuf_free(trailer);
		return NULL;
	}
	return finish(qp, hdr, trailer, &p, rtx ? MRC_QP_ENCAP_RTX : MRC_QP_ENCAP_DATA);
}

/* A SACK, NACK or probe: BTH and one extension header, control DSCP (probes: data class). */
static struct rte_mbuf *
build_ctrl(struct mrc_qp *qp, const struct mrc_pkt *ext, uint32_t ev)
{
	struct rte_mbuf *hdr, *trailer;
	struct mrc_pkt p;

	hdr = alloc_hdr(qp, &trailer);
	if (hdr == NULL)
		return NULL;
	pkt_base(qp, &p);
	p.bth = ext->bth;
	p.bth.pkey = MRC_BTH_DEFAULT_PKEY;
	p.bth.dqpn = qp->dest_qpn;
	if (ext->bth.opcode == MRC_OP_SACK)
		p.sack = ext->sack;
	else if (ext->bth.opcode == MRC_OP_NACK)
		p.nack = ext->nack;
	else
		p.probe = ext->probe;
	p.ip.dscp =
		ext->bth.opcode == MRC_OP_PROBE ? qp->wire.dscp.trimmable : qp->wire.dscp.control;
	p.outer.dscp = p.ip.dscp;
	if (address(qp, &p, ev) != 0) {
		rte_pktmbuf_free(hdr);
		rte_pktmbuf_free(trailer);
		return NULL;
	}
	return finish(qp, hdr, trailer, &p,
		ext->bth.opcode == MRC_OP_PROBE ? MRC_QP_ENCAP_PROBE : MRC_QP_ENCAP_CTRL);
}

/* The EV an answer travels back on: the one it echoes if that plane is up, else any. */
static bool
answer_ev(struct mrc_qp *qp, uint32_t usable, struct mrc_rand *rand, uint32_t *ev)
{
	int slot;

	if ((usable >> ev_plane(qp, *ev)) & 1)
		return true;
	if (qp->ev == NULL)
		return false;
	slot = mrc_ev_pick(qp->ev, usable, rand);
	if (slot < 0)
		return false;
	*ev = mrc_ev_value(qp->ev, slot);
	return true;
}

static uint16_t
tx_ctrl(struct mrc_qp *qp, uint32_t usable, struct mrc_rand *rand, struct rte_mbuf **pkts,
	uint16_t max)
{
	uint16_t n = 0;

	while (n < max && qp->ctrl_head != qp->ctrl_tail) {
		const struct qp_ctrl *c = &qp->ctrl->e[qp->ctrl_head % CTRL_Q];
		const uint16_t ts = qp->ctrl->ts[qp->ctrl_head % CTRL_Q];
		struct mrc_pkt ext;
		uint32_t route = c->ev;
		struct rte_mbuf *m;

		if (!answer_ev(qp, usable, rand, &route))
			break;
		memset(&ext, 0, sizeof(ext));
		if (c->what & CTRL_WHAT_SACK) {
			ext.bth.opcode = MRC_OP_SACK;
			if (qp->sack_run)
				mrc_rel_rx_fill_sack_more(qp->rrx, c->psn, c->ev, ts, &ext.sack);
			else
				mrc_rel_rx_fill_sack(qp->rrx, c->psn, c->ev, c->what & 3u,
					(c->what & CTRL_WHAT_PR) != 0, ts, &ext.sack);
			ext.sack.spdcid = (uint16_t)qp->qpn;
			ext.sack.dpdcid = (uint16_t)qp->dest_qpn;
			ext.bth.psn = mrc_rel_rx_cack(qp->rrx);
		} else {
			ext.bth.opcode = MRC_OP_NACK;
			mrc_rel_rx_fill_nack(qp->rrx, c->psn, c->what, c->ev, ts, &ext.nack);
			ext.nack.spdcid = (uint16_t)qp->qpn;
			ext.nack.dpdcid = (uint16_t)qp->dest_qpn;
			ext.bth.psn = c->psn;
		}
		m = build_ctrl(qp, &ext, route);
		if (m == NULL)
			break;
		pkts[n++] = m;
		if (c->what & CTRL_WHAT_SACK)
			qp->cnt.tx_sacks++;
		else
			qp->cnt.tx_nacks++;
		/* Arrivals that SACK's bitmap left out: the same entry again, for the run. */
		qp->sack_run = (c->what & CTRL_WHAT_SACK) && mrc_rel_rx_sack_more(qp->rrx);
		if (!qp->sack_run)
			qp->ctrl_head++;
	}
	if (qp->ctrl_head == qp->ctrl_tail && qp->ctrl_pool != NULL && qp->ctrl != NULL)
		mrc_qp_ctrl_put(qp); /* none waits: the ring goes back */
	return n;
}

/* Per-path counters of what goes out (mrc_path_stats.h). */
static inline void
path_retx(const struct mrc_qp *qp, uint32_t ev, uint16_t len)
{
	struct mrc_path_counters *pc = mrc_qp_path(qp, ev);

	if (pc != NULL) {
		pc->tx_retx_pkts++;
		pc->tx_retx_bytes += len;
	}
}

static inline void
path_probe(const struct mrc_qp *qp, uint32_t ev)
{
	struct mrc_path_counters *pc = mrc_qp_path(qp, ev);

	if (pc != NULL)
		pc->tx_probes++;
}

static struct rte_mbuf *
build_probe(struct mrc_qp *qp, uint32_t ev)
{
	struct mrc_pkt ext;

	memset(&ext, 0, sizeof(ext));
	ext.bth.opcode = MRC_OP_PROBE;
	ext.bth.psn = qp->rtx->snd_nxt; /* consumes no PSN */
	ext.probe.probe_id = qp->probe_id++;
	ext.probe.spdcid = (uint16_t)qp->qpn;
	ext.probe.dpdcid = (uint16_t)qp->dest_qpn;
	ext.probe.ftype = MRC_FTYPE_DEFAULT;
	return build_ctrl(qp, &ext, ev);
}

/*
 * The operator's probe (mrc_qp_op_probe) on a free EV probe slot: not sent
 * on a plane that is down here or at the peer (it would prove nothing);
 * waits for room on its plane a quarter of the probe interval at most, as
 * a retired EV's probe does. Packets produced: 0 or 1.
 */
static unsigned int
op_probe_tx(struct mrc_qp *qp, uint64_t now, uint32_t up, uint32_t usable, struct rte_mbuf **pkts)
{
	const uint32_t ev = qp->op_probe_ev;
	const uint32_t bit = UINT32_C(1) << ev_plane(qp, ev);
	struct rte_mbuf *m;

	if (!(up & bit)) {
		qp->op_probe_state = OP_PROBE_DOWN;
		return 0;
	}
	if (!(usable & bit) && now - qp->op_probe_asked_tsc < qp->ev->probe_interval_tsc / 4)
		return 0;
	/* The reliability probe's answer on the same EV would be taken for ours. */
	if (qp->rtx->probe_outstanding && qp->probe_ev == ev)
		return 0;
	for (unsigned int i = 0; i < EV_PROBES; i++) {
		struct qp_ev_probe *pr = &qp->ev_probe[i];

		if (pr->busy)
			continue;
		m = build_probe(qp, ev);
		if (m == NULL)
			return 0;
		*pr = (struct qp_ev_probe){.ev = ev, .sent_tsc = now, .busy = true, .op = true};
		qp->ev_probe_busy |= (uint8_t)(1u << i);
		qp->op_probe_state = OP_PROBE_OUT;
		qp->cnt.tx_op_probes++;
		path_probe(qp, ev);
		pkts[0] = m;
		return 1;
	}
	return 0; /* every slot busy: the next burst */
}

/* A pinned (ECMP) QP has one path, up or not. */
static int
pick_pinned(struct mrc_qp *qp, uint32_t usable, uint32_t *ev)
{
	if (!((usable >> qp->pin_plane) & 1)) {
		qp->cnt.tx_no_ev++;
		return -1;
	}
	*ev = qp->pin_ev;
	return qp->pin_slot;
}

/* Pick an EV, avoiding `avoid` when another choice exists. */
static int
pick(struct mrc_qp *qp, uint32_t usable, struct mrc_rand *rand, uint32_t avoid, uint32_t *ev)
{
	if (unlikely(qp->pin_slot >= 0))
		return pick_pinned(qp, usable, ev);

	int slot = mrc_ev_pick(qp->ev, usable, rand);

	if (slot >= 0 && mrc_ev_value(qp->ev, slot) == avoid) {
		int again = mrc_ev_pick(qp->ev, usable, rand);

		if (again >= 0)
			slot = again;
	}
	if (slot < 0) {
		qp->cnt.tx_no_ev++;
		return -1;
	}
	*ev = mrc_ev_value(qp->ev, slot);
	return slot;
}

/* The reliability probe may take `ev`: its plane is usable and no EV probe is out on it. */
static bool
probe_ev_free(const struct mrc_qp *qp, uint32_t usable, uint32_t ev)
{
	if (!((usable >> ev_plane(qp, ev)) & 1))
		return false;
	for (unsigned int i = 0; i < EV_PROBES; i++)
		if (qp->ev_probe[i].busy && qp->ev_probe[i].ev == ev)
			return false;
	return true;
}

/*
 * A second copy of a resent packet of the oldest message, on another plane
 * (`planes`), untracked by rel: the oldest message holds every later
 * completion (RC order), and the resend lost again would cost another loss
 * detection and round trip, about 35 us at 100 Gb/s, in which the QP
 * idles once its later messages are out. Only for a loss proven by a later
 * packet on its path (rel's rule 1: a real loss on a path that works, not
 * a late packet taken for lost), and not when it may be congestion, which
 * a second copy would feed: never for a trim NACK, nor with the round trip
 * at twice its minimum or more (a standing queue; without trimming,
 * congestion drops silently). Whichever copy arrives acknowledges the PSN;
 * the other is a counted duplicate at the responder. Returns the packets
 * added (0 or 1).
 */
static uint16_t
resend_copy(struct mrc_qp *qp, const struct qp_wqe *w, uint32_t cookie, uint32_t psn, uint16_t len,
	uint32_t planes, struct mrc_rand *rand, struct rte_mbuf **out)
{
	uint32_t ev;
	int slot;

	if ((mrc_ev_good_planes(qp->ev) & planes) == 0 ||
		(slot = pick(qp, planes, rand, 0, &ev)) < 0)
		return 0;
	*out = build_data(qp, w, cookie & COOKIE_PKT_MASK, psn, ev, true);
	if (*out == NULL)
		return 0;
	mrc_ev_on_tx(qp->ev, slot, len);
	qp->cnt.tx_retx_pkts++;
	path_retx(qp, ev, len);
	return 1;
}

/* `up`: planes whose port is up; `usable`: those of them with tx room now. */
static uint16_t
tx_requester(struct mrc_qp *qp, uint64_t now, uint32_t up, uint32_t usable, struct mrc_rand *rand,
	struct rte_mbuf **pkts, uint16_t max)
{
	struct mrc_rel_tx *rtx = qp->rtx;
	uint16_t n = 0;
	uint32_t psn, cookie, old_ev, ev;
	uint16_t len;
	int slot;

	/*
	 * Nothing to send, resend or probe: the QP of a responder, whose turns
	 * are its answers. Its first line says so; rtx's and the EV pool's
	 * lines, which nothing else of such a turn reads, stay where they are.
	 */
	if (qp->rtx_quiet && qp->sq_send == qp->sq_tail && !qp->ev_bad && !qp->ev_probe_held &&
		qp->op_probe_state != OP_PROBE_WANT)
		return 0;
	qp_rtx_busy(qp); /* what follows may send, resend or probe: the next poll looks */

	/*
	 * Resends first, oldest first, never on the EV that lost them if
	 * avoidable, and on another plane when one has a GOOD EV: what killed
	 * the path may have killed its plane (unseen by the port), whose other
	 * EVs are not all retired yet, and a resend lost again costs another
	 * loss detection.
	 */
	while (n < max && mrc_rel_tx_next_retx(rtx, &psn, &old_ev, &cookie, &len) == 0) {
		const struct qp_wqe *w = &qp->sq[(cookie >> COOKIE_PKT_BITS) & qp->sq_mask];
		const uint32_t other = usable & ~(UINT32_C(1) << ev_plane(qp, old_ev));
		struct rte_mbuf *m;

		slot = -1;
		if (qp->pin_slot < 0 && (mrc_ev_good_planes(qp->ev) & other) != 0)
			slot = pick(qp, other, rand, old_ev, &ev);
		if (slot < 0)
			slot = pick(qp, usable, rand, old_ev, &ev);
		if (slot < 0)
			return n;
		m = build_data(qp, w, cookie & COOKIE_PKT_MASK, psn, ev, true);
		if (m == NULL)
			return n;
		/* Asked before sent_retx, which forgets why it was lost. */
		const bool twice = qp->pin_slot < 0 && n + 1 < max &&
				   ((cookie >> COOKIE_PKT_BITS) & qp->sq_mask) ==
					   (qp->sq_head & qp->sq_mask) &&
				   mrc_rel_tx_lost_why(rtx, psn) == MRC_REL_LOSS_EV_ORDER &&
				   rtx->srtt_tsc / 2 < rtx->min_rtt_tsc;

		mrc_rel_tx_sent_retx(rtx, psn, (uint16_t)slot, ev, now);
		mrc_ev_on_tx(qp->ev, slot, len);
		qp->cnt.tx_retx_pkts++;
		path_retx(qp, ev, len);
		pkts[n++] = m;
		if (twice)
			n += resend_copy(qp, w, cookie, psn, len,
				usable & ~(UINT32_C(1) << ev_plane(qp, ev)) &
					~(UINT32_C(1) << ev_plane(qp, old_ev)),
				rand, pkts + n);
	}

	/*
	 * Probes: the reliability probe rel wants (after the overdue packet,
	 * on its EV, when that plane is up and no EV probe holds the EV), then
	 * retired EVs that are due.
	 */
	uint16_t probe_slot = MRC_REL_NIL;
	bool probe = n < max && mrc_rel_tx_probe_wanted(rtx);

	if (probe && (mrc_rel_tx_probe_target(rtx, &probe_slot, &ev) != 0 ||
			     !probe_ev_free(qp, usable, ev))) {
		probe_slot = MRC_REL_NIL;
		probe = pick(qp, usable, rand, 0, &ev) >= 0;
	}
	if (probe) {
		struct rte_mbuf *m = build_probe(qp, ev);

		if (m != NULL) {
			mrc_rel_tx_probe_sent_on(rtx, probe_slot, ev, now);
			qp->probe_ev = ev;
			qp->cnt.tx_probes++;
			path_probe(qp, ev);
			pkts[n++] = m;
		}
	}
	if (unlikely(qp->op_probe_state == OP_PROBE_WANT) && n < max)
		n += op_probe_tx(qp, now, up, usable, pkts + n);
	/*
	 * Retired EVs are probed only while the peer answers something: once the
	 * QP timer has expired without any progress (rel's retries), the
	 * reliability probe is the one question worth asking, and probing every
	 * retired path of a silent peer would flood the void.
	 */
	for (unsigned int i = 0; i < EV_PROBES && n < max && rtx->retries == 0; i++) {
		struct qp_ev_probe *pr = &qp->ev_probe[i];
		struct rte_mbuf *m;
		bool past_room = false;

		/* The mask, not pr->busy: every burst comes here, the array is a line away */
		if ((qp->ev_probe_busy >> i) & 1)
			continue;
		if (qp->ev_probe_held) {
			slot = qp->ev_probe_held_slot;
		} else {
			slot = qp->ev_bad ? mrc_ev_probe_due(qp->ev, now) : -1;
			if (slot < 0)
				break;
		}
		ev = mrc_ev_value(qp->ev, slot);
		if (!((up >> ev_plane(qp, ev)) & 1) ||
			mrc_ev_state(qp->ev, slot) != MRC_EV_ASSUMED_BAD) {
			/* Its port is down here (a probe would prove nothing), or it is back. */
			qp->ev_probe_held = false;
			continue;
		}
		if (!((usable >> ev_plane(qp, ev)) & 1)) {
			/*
			 * No room on its plane now: it waits, for a bounded time
			 * (mrc_qp_tx_burst_room). Dropping it instead ended the
			 * round as if it had been sent and unanswered, and backed
			 * the rounds off; at line rate no probe went at all. The
			 * rounds stand still meanwhile.
			 */
			if (!qp->ev_probe_held) {
				qp->ev_probe_held = true;
				qp->ev_probe_held_slot = (uint16_t)slot;
				qp->ev_probe_held_tsc = now;
			}
			if (now - qp->ev_probe_held_tsc < qp->ev->probe_interval_tsc / 4)
				break;
			past_room = true;
		}
		m = build_probe(qp, ev);
		if (m == NULL)
			break;
		qp->ev_probe_held = false;
		*pr = (struct qp_ev_probe){.ev = ev, .sent_tsc = now, .busy = true};
		qp->ev_probe_busy |= (uint8_t)(1u << i);
		qp->cnt.tx_ev_probes++;
		qp->cnt.tx_ev_probes_past_room += past_room;
		path_probe(qp, ev);
		pkts[n++] = m;
	}

	/*
	 * New data within both windows: the peer's MPR (rel) and CC's cwnd in
	 * bytes. With nothing in flight one packet always goes, so a window
	 * below one MTU (a receiver penalty) cannot stall the QP. CC's state is
	 * read only when there is new data: a QP waiting for its acknowledgements
	 * leaves those lines alone.
	 */
	const uint32_t cwnd = qp->sq_send != qp->sq_tail ? mrc_cc_cwnd(&qp->cc) : 0;

	while (n < max && qp->sq_send != qp->sq_tail && mrc_rel_tx_can_send(rtx) &&
		(mrc_rel_tx_inflight_bytes(rtx) == 0 ||
			mrc_rel_tx_inflight_bytes(rtx) + qp->mtu <= cwnd) &&
		mrc_qp_trk_ready(qp)) {
		const uint32_t idx = qp->sq_send & qp->sq_mask;
		struct qp_wqe *w = &qp->sq[idx];
		const uint32_t k = w->next_pkt;
		const uint32_t plen =
			w->len == 0 ? 0 : RTE_MIN((uint32_t)qp->mtu, w->len - k * qp->mtu);
		struct rte_mbuf *m;

		/*
		 * The responder tracks at most peer_wimm Write-IMM messages at
		 * once (counted from the next it will deliver, which is no older
		 * than the oldest message not yet complete here) and NACKs one
		 * beyond: such a message waits to start until one completes.
		 */
		if (k == 0 && w->with_imm &&
			(uint16_t)(w->rqmsn - qp->sq[qp->sq_head & qp->sq_mask].rqmsn) >=
				qp->peer_wimm) {
			qp->cnt.tx_wimm_waits++;
			break;
		}
		slot = pick(qp, usable, rand, 0, &ev);
		if (slot < 0)
			break;
		m = build_data(qp, w, k, rtx->snd_nxt, ev, false);
		if (m == NULL)
			break;
		psn = mrc_rel_tx_sent_new(
			rtx, (uint16_t)slot, ev, (uint16_t)plen, (idx << COOKIE_PKT_BITS) | k, now);
		if (k == 0)
			w->first_psn = psn;
		mrc_ev_on_tx(qp->ev, slot, plen);
		qp->cnt.tx_data_pkts++;
		qp->cnt.tx_data_bytes += plen;
		{
			struct mrc_path_counters *pc = mrc_qp_path(qp, ev);

			if (pc != NULL) {
				pc->tx_data_pkts++;
				pc->tx_data_bytes += plen;
			}
		}
		pkts[n++] = m;
		if (++w->next_pkt == w->n_pkts)
			qp->sq_send++;
	}
	return n;
}

uint16_t
mrc_qp_tx_burst_room(struct mrc_qp *qp, uint64_t now_tsc, uint32_t port_up_mask, uint32_t room_mask,
	struct mrc_rand *rand, struct rte_mbuf **pkts, uint16_t max)
{
	const uint32_t up = port_up_mask & qp->peer_planes & qp->plane_mask;
	const uint32_t usable = up & room_mask;
	uint16_t n = 0;

	qp->now_tsc = now_tsc;
	if (qp->state >= MRC_QP_RTR && qp->state != MRC_QP_ERROR)
		n = tx_ctrl(qp, usable, rand, pkts, max);
	if (qp->state == MRC_QP_RTS && n < max)
		n += tx_requester(qp, now_tsc, up, usable, rand, pkts + n, (uint16_t)(max - n));
	if (unlikely(qp->region_gone)) {
		/* as a NIC finding a deregistered region: the QP fails, its messages flushed */
		qp->region_gone = false;
		mrc_qp_fail(qp, MRC_QP_ERR_LOCAL);
	}
	return n;
}

uint16_t
mrc_qp_tx_burst(struct mrc_qp *qp, uint64_t now_tsc, uint32_t plane_ok_mask, struct mrc_rand *rand,
	struct rte_mbuf **pkts, uint16_t max)
{
	return mrc_qp_tx_burst_room(qp, now_tsc, plane_ok_mask, plane_ok_mask, rand, pkts, max);
}

void
mrc_qp_set_encap(struct mrc_qp *qp, struct mrc_qp_encap *e)
{
	qp->encap = qp->hdr->srv6 ? e : NULL;
}

size_t
mrc_qp_encap_hdr(const struct mrc_qp *qp, uint32_t ev, enum mrc_qp_encap_class cls, uint8_t *buf,
	size_t size)
{
	/* the classes' traffic classes, as build_data() and build_ctrl() set them */
	const uint8_t dscp[MRC_QP_ENCAP_CLASSES] = {
		qp->data_dscp[0], qp->data_dscp[1], qp->wire.dscp.control, qp->wire.dscp.trimmable};
	struct mrc_pkt p;

	if (!qp->hdr->srv6 || (unsigned int)cls >= MRC_QP_ENCAP_CLASSES)
		return 0;
	pkt_base(qp, &p);
	p.ip.dscp = dscp[cls];
	p.outer.dscp = p.ip.dscp;
	/* address() only reads the QP */
	if (address((struct mrc_qp *)(uintptr_t)qp, &p, ev) != 0)
		return 0;
	return mrc_pkt_encap_hdr(&p, &qp->wire, buf, size);
}
