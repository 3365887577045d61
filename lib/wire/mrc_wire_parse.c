/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * The receive side of the codec. Every read goes through rte_pktmbuf_read(),
 * which returns a pointer into the mbuf when the bytes are contiguous and
 * copies them into a stack buffer when they straddle segments, so a header
 * split across a chain parses the same as a flat one and nothing is read
 * past pkt_len. Lengths declared by the packet are checked against each
 * other and against the frame before anything after them is believed.
 *
 * Trimmed packets (a switch cut the payload and rewrote the DSCP) are the
 * one place where declared lengths legitimately exceed the frame: for them
 * only the headers through RETH must be present, and there is no ICRC.
 */

#include <string.h>

#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_udp.h>

#include "mrc_icrc.h"
#include "mrc_wire_priv.h"

/* Largest transport header block: BTH + EETH + EFRH. */
#define MAX_TRANSPORT_HDR \
	(sizeof(struct mrc_bth) + sizeof(struct mrc_eeth) + sizeof(struct mrc_efrh))

static enum mrc_wire_rx
read_ip6(const struct rte_mbuf *m, uint32_t off, struct mrc_ip6_view *v, uint8_t *next_hdr)
{
	struct rte_ipv6_hdr tmp;
	const struct rte_ipv6_hdr *h = rte_pktmbuf_read(m, off, sizeof(tmp), &tmp);
	uint32_t vtc;

	if (h == NULL)
		return MRC_WIRE_TRUNCATED;
	vtc = rte_be_to_cpu_32(h->vtc_flow);
	if ((vtc >> 28) != 6)
		return MRC_WIRE_BAD_IP_VERSION;
	v->dscp = (vtc >> 22) & 0x3f;
	v->ecn = (vtc >> 20) & 0x3;
	v->flow_label = vtc & 0xfffff;
	v->payload_len = rte_be_to_cpu_16(h->payload_len);
	v->hop_limit = h->hop_limits;
	memcpy(v->src, h->src_addr, MRC_IPV6_ADDR_LEN);
	memcpy(v->dst, h->dst_addr, MRC_IPV6_ADDR_LEN);
	*next_hdr = h->proto;
	return MRC_WIRE_OK;
}

/* Parse the SRH at `off`; on success *len is its full length in bytes. */
static enum mrc_wire_rx
read_srh(const struct rte_mbuf *m, uint32_t off, struct mrc_srh_view *v, uint32_t *len)
{
	struct mrc_srh tmp;
	const struct mrc_srh *s = rte_pktmbuf_read(m, off, sizeof(tmp), &tmp);
	uint32_t list_len;

	if (s == NULL)
		return MRC_WIRE_TRUNCATED;
	if (s->routing_type != MRC_SRH_ROUTING_TYPE)
		return MRC_WIRE_BAD_ROUTING_TYPE;
	if (s->next_hdr != MRC_IPPROTO_IPV6)
		return MRC_WIRE_BAD_NEXT_HEADER;
	*len = sizeof(*s) + 8u * s->hdr_ext_len;
	list_len = ((uint32_t)s->last_entry + 1) * MRC_IPV6_ADDR_LEN;
	/* The list must fit the declared length, and DA = list[segments_left]. */
	if (list_len > 8u * s->hdr_ext_len || s->segments_left > s->last_entry ||
		s->last_entry >= MRC_SRH_MAX_SEGS)
		return MRC_WIRE_MALFORMED_SRH;
	v->n_segs = s->last_entry + 1;
	v->segments_left = s->segments_left;
	v->flags = s->flags;
	v->tag = rte_be_to_cpu_16(s->tag);
	v->tlv_len = (uint16_t)(8u * s->hdr_ext_len - list_len);
	if (off + *len > rte_pktmbuf_pkt_len(m))
		return MRC_WIRE_TRUNCATED;
	const void *segs = rte_pktmbuf_read(m, off + sizeof(*s), list_len, v->segs);
	if (segs == NULL)
		return MRC_WIRE_TRUNCATED;
	if (segs != v->segs)
		memcpy(v->segs, segs, list_len);
	return MRC_WIRE_OK;
}

static bool
dscp_is_trimmed(uint8_t dscp, const struct mrc_wire_cfg *cfg, uint32_t *flags)
{
	if (dscp == cfg->dscp.trimmed) {
		*flags |= MRC_PKT_F_TRIMMED;
		return true;
	}
	if (dscp == cfg->dscp.trimmed_lasthop) {
		*flags |= MRC_PKT_F_TRIMMED | MRC_PKT_F_TRIMMED_LASTHOP;
		return true;
	}
	return false;
}

/* Ethernet and an optional 802.1Q tag; returns the L3 offset or 0 on reject. */
static uint32_t
read_l2(const struct rte_mbuf *m, struct mrc_pkt *pkt, enum mrc_wire_rx *rc)
{
	struct rte_ether_hdr tmp;
	struct rte_vlan_hdr vtmp;
	const struct rte_ether_hdr *eh = rte_pktmbuf_read(m, 0, sizeof(tmp), &tmp);
	uint16_t type;
	uint32_t off = sizeof(*eh);

	if (eh == NULL) {
		*rc = MRC_WIRE_TRUNCATED;
		return 0;
	}
	rte_ether_addr_copy(&eh->dst_addr, &pkt->eth_dst);
	rte_ether_addr_copy(&eh->src_addr, &pkt->eth_src);
	type = rte_be_to_cpu_16(eh->ether_type);
	pkt->vlan_tci = 0;
	if (type == RTE_ETHER_TYPE_VLAN) {
		const struct rte_vlan_hdr *vh = rte_pktmbuf_read(m, off, sizeof(vtmp), &vtmp);

		if (vh == NULL) {
			*rc = MRC_WIRE_TRUNCATED;
			return 0;
		}
		pkt->flags |= MRC_PKT_F_VLAN;
		pkt->vlan_tci = rte_be_to_cpu_16(vh->vlan_tci);
		type = rte_be_to_cpu_16(vh->eth_proto);
		off += sizeof(*vh);
	}
	if (type != RTE_ETHER_TYPE_IPV6) {
		*rc = MRC_WIRE_BAD_ETHERTYPE;
		return 0;
	}
	return off;
}

/*
 * Check a declared length against what the frame holds after `off`: equal,
 * or (trimmed packets only) at least as large.
 */
static enum mrc_wire_rx
check_len(uint32_t declared, uint32_t avail, bool trimmed)
{
	if (declared == avail || (trimmed && declared > avail))
		return MRC_WIRE_OK;
	return declared > avail ? MRC_WIRE_TRUNCATED : MRC_WIRE_LENGTH_MISMATCH;
}

enum mrc_wire_rx
mrc_pkt_parse(const struct rte_mbuf *m, const struct mrc_wire_cfg *cfg, struct mrc_pkt *pkt)
{
	const uint32_t pkt_len = rte_pktmbuf_pkt_len(m);
	enum mrc_wire_rx rc = MRC_WIRE_OK;
	uint8_t nh, tbuf[MAX_TRANSPORT_HDR];
	struct rte_udp_hdr utmp;
	const struct rte_udp_hdr *uh;
	const struct mrc_bth *bth;
	const uint8_t *th;
	uint32_t off, tail, thl;
	bool trimmed;

	pkt->flags = 0;
	off = read_l2(m, pkt, &rc);
	if (off == 0)
		return rc;
	pkt->l3_off = (uint16_t)off;

	/* Outermost IPv6: the uSID container in SRv6 mode, the only header otherwise. */
	rc = read_ip6(m, off, &pkt->ip, &nh);
	if (rc != MRC_WIRE_OK)
		return rc;
	trimmed = dscp_is_trimmed(pkt->ip.dscp, cfg, &pkt->flags);
	rc = check_len(pkt->ip.payload_len, pkt_len - off - sizeof(struct rte_ipv6_hdr), trimmed);
	if (rc != MRC_WIRE_OK)
		return rc;
	off += sizeof(struct rte_ipv6_hdr);

	if (nh == MRC_IPPROTO_ROUTING || nh == MRC_IPPROTO_IPV6) {
		uint32_t srh_len = 0;

		pkt->flags |= MRC_PKT_F_SRV6;
		pkt->outer = pkt->ip;
		if (nh == MRC_IPPROTO_ROUTING) {
			rc = read_srh(m, off, &pkt->srh, &srh_len);
			if (rc != MRC_WIRE_OK)
				return rc;
			pkt->flags |= MRC_PKT_F_SRH;
			off += srh_len;
		}
		if (pkt->outer.payload_len < srh_len + sizeof(struct rte_ipv6_hdr))
			return MRC_WIRE_LENGTH_MISMATCH;
		rc = read_ip6(m, off, &pkt->ip, &nh);
		if (rc != MRC_WIRE_OK)
			return rc;
		rc = check_len(pkt->ip.payload_len,
			pkt->outer.payload_len - srh_len - sizeof(struct rte_ipv6_hdr), trimmed);
		if (rc != MRC_WIRE_OK)
			return MRC_WIRE_LENGTH_MISMATCH;
		off += sizeof(struct rte_ipv6_hdr);
	}
	if (nh != MRC_IPPROTO_UDP)
		return MRC_WIRE_BAD_NEXT_HEADER;
	pkt->inner_off = (uint16_t)(off - sizeof(struct rte_ipv6_hdr));

	uh = rte_pktmbuf_read(m, off, sizeof(utmp), &utmp);
	if (uh == NULL)
		return MRC_WIRE_TRUNCATED;
	if (uh->dst_port != RTE_BE16(MRC_ROCEV2_UDP_PORT))
		return MRC_WIRE_NOT_ROCE;
	pkt->udp_sport = rte_be_to_cpu_16(uh->src_port);
	pkt->udp_len = rte_be_to_cpu_16(uh->dgram_len);
	pkt->udp_csum = rte_be_to_cpu_16(uh->dgram_cksum);
	if (check_len(pkt->udp_len, pkt->ip.payload_len, trimmed) != MRC_WIRE_OK)
		return MRC_WIRE_LENGTH_MISMATCH;
	pkt->ev = mrc_ev_from_fields(pkt->udp_sport,
		(pkt->flags & MRC_PKT_F_SRV6) ? pkt->outer.flow_label : pkt->ip.flow_label,
		cfg->ev_split);
	off += sizeof(struct rte_udp_hdr);

	/* BTH and the headers its opcode implies. */
	pkt->bth_off = (uint16_t)off;
	bth = rte_pktmbuf_read(m, off, sizeof(struct mrc_bth), tbuf);
	if (bth == NULL)
		return MRC_WIRE_TRUNCATED;
	mrc_bth_decode(bth, &pkt->bth);
	if (pkt->bth.tver != 0)
		return MRC_WIRE_BAD_TVER;
	thl = (uint32_t)mrc_transport_hdr_len(pkt->bth.opcode, pkt->bth.ts);
	if (thl == 0)
		return MRC_WIRE_UNKNOWN_OPCODE;
	/* Bytes the UDP length leaves after the transport headers: payload, pad, ICRC. */
	if (!trimmed && pkt->udp_len < sizeof(struct rte_udp_hdr) + thl + MRC_ICRC_LEN)
		return MRC_WIRE_TRUNCATED;
	th = rte_pktmbuf_read(m, off, thl, tbuf);
	if (th == NULL)
		return MRC_WIRE_TRUNCATED;
	rc = mrc_transport_decode(th, cfg, pkt);
	if (rc != MRC_WIRE_OK)
		return rc;
	/* An endpoint flow recovery: its EFRH follows, inside the UDP length. */
	if ((pkt->bth.opcode == MRC_OP_EP_REQUEST || pkt->bth.opcode == MRC_OP_EP_RESPONSE) &&
		pkt->ep.op == MRC_EP_OP_FLOW_RECOVER) {
		const uint8_t *e;

		if (trimmed || pkt->udp_len < sizeof(struct rte_udp_hdr) + thl +
						      sizeof(struct mrc_efrh) + MRC_ICRC_LEN)
			return MRC_WIRE_TRUNCATED;
		e = rte_pktmbuf_read(m, off + thl, sizeof(struct mrc_efrh), tbuf);
		if (e == NULL)
			return MRC_WIRE_TRUNCATED;
		rc = mrc_efrh_decode(e, &pkt->ep.rec);
		if (rc != MRC_WIRE_OK)
			return rc;
		thl += (uint32_t)sizeof(struct mrc_efrh);
	}
	pkt->payload_off = off + thl;

	if (trimmed) {
		pkt->payload_len = 0;
		pkt->icrc = 0;
		return MRC_WIRE_OK;
	}
	tail = pkt->udp_len - sizeof(struct rte_udp_hdr) - thl - MRC_ICRC_LEN;
	if (mrc_opcode_is_data(pkt->bth.opcode)) {
		if (pkt->bth.pad > tail)
			return MRC_WIRE_BAD_PAD;
		pkt->payload_len = tail - pkt->bth.pad;
	} else {
		if (pkt->bth.pad != 0)
			return MRC_WIRE_BAD_PAD;
		if (tail != 0)
			return MRC_WIRE_LENGTH_MISMATCH;
		pkt->payload_len = 0;
	}

	/* The ICRC is sent least significant byte first (like the FCS). */
	uint8_t ibuf[MRC_ICRC_LEN];
	const uint8_t *ic = rte_pktmbuf_read(m, pkt->payload_off + tail, MRC_ICRC_LEN, ibuf);

	if (ic == NULL)
		return MRC_WIRE_TRUNCATED;
	pkt->icrc = (uint32_t)ic[0] | ((uint32_t)ic[1] << 8) | ((uint32_t)ic[2] << 16) |
		    ((uint32_t)ic[3] << 24);
	if (cfg->verify_icrc && mrc_icrc_calc(m, pkt->inner_off,
					pkt->payload_off + tail - pkt->inner_off) != pkt->icrc)
		return MRC_WIRE_BAD_ICRC;
	return MRC_WIRE_OK;
}

enum mrc_wire_rx
mrc_pkt_parse_buf(
	const void *buf, uint16_t len, const struct mrc_wire_cfg *cfg, struct mrc_pkt *pkt)
{
	/* A one-segment mbuf header over the caller's bytes; nothing is copied. */
	struct rte_mbuf m;

	memset(&m, 0, sizeof(m));
	m.buf_addr = (void *)(uintptr_t)buf;
	m.buf_len = len;
	m.data_off = 0;
	m.data_len = len;
	m.pkt_len = len;
	m.nb_segs = 1;
	rte_mbuf_refcnt_set(&m, 1);
	return mrc_pkt_parse(&m, cfg, pkt);
}
