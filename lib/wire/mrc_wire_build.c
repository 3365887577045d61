/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * The transmit side of the codec. The payload is already in the mbuf chain
 * (usually external memory attached to a segment after a small header
 * mbuf); the builder prepends every header into the first segment's
 * headroom in one step, appends pad + ICRC to a writable tail, and computes
 * the ICRC last because it covers the UDP source port, i.e. the EV: a
 * retransmission on another EV is rebuilt, never patched.
 */

#include <errno.h>
#include <string.h>

#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_udp.h>

#include "mrc_icrc.h"
#include "mrc_wire_priv.h"

size_t
mrc_pkt_outer_hdr_len(const struct mrc_pkt *pkt)
{
	size_t len = sizeof(struct rte_ether_hdr) + sizeof(struct rte_ipv6_hdr) +
		     sizeof(struct rte_udp_hdr);

	if (pkt->flags & MRC_PKT_F_VLAN)
		len += sizeof(struct rte_vlan_hdr);
	if (pkt->flags & MRC_PKT_F_NIC_ENCAP)
		return len; /* the outer IPv6 and SRH are the NIC's to add */
	if (pkt->flags & MRC_PKT_F_SRV6)
		len += sizeof(struct rte_ipv6_hdr);
	if (pkt->flags & MRC_PKT_F_SRH)
		len += sizeof(struct mrc_srh) + (size_t)pkt->srh.n_segs * MRC_IPV6_ADDR_LEN;
	return len;
}

size_t
mrc_pkt_hdr_len(const struct mrc_pkt *pkt)
{
	size_t thl = mrc_pkt_transport_len(pkt);

	return thl == 0 ? 0 : mrc_pkt_outer_hdr_len(pkt) + thl;
}

static uint8_t *
write_ip6(uint8_t *p, const struct mrc_ip6_view *v, uint32_t flow_label, uint16_t payload_len,
	uint8_t next_hdr)
{
	struct rte_ipv6_hdr *h = (struct rte_ipv6_hdr *)p;
	uint32_t tc = ((uint32_t)(v->dscp & 0x3f) << 2) | (v->ecn & 3);

	h->vtc_flow = rte_cpu_to_be_32((6u << 28) | (tc << 20) | (flow_label & 0xfffff));
	h->payload_len = rte_cpu_to_be_16(payload_len);
	h->proto = next_hdr;
	h->hop_limits = v->hop_limit;
	memcpy(h->src_addr, v->src, MRC_IPV6_ADDR_LEN);
	memcpy(h->dst_addr, v->dst, MRC_IPV6_ADDR_LEN);
	return p + sizeof(*h);
}

static uint8_t *
write_l2(uint8_t *p, const struct mrc_pkt *pkt)
{
	struct rte_ether_hdr *eh = (struct rte_ether_hdr *)p;

	rte_ether_addr_copy(&pkt->eth_dst, &eh->dst_addr);
	rte_ether_addr_copy(&pkt->eth_src, &eh->src_addr);
	p += sizeof(*eh);
	if (pkt->flags & MRC_PKT_F_VLAN) {
		struct rte_vlan_hdr *vh = (struct rte_vlan_hdr *)p;

		eh->ether_type = RTE_BE16(RTE_ETHER_TYPE_VLAN);
		vh->vlan_tci = rte_cpu_to_be_16(pkt->vlan_tci);
		vh->eth_proto = RTE_BE16(RTE_ETHER_TYPE_IPV6);
		p += sizeof(*vh);
	} else {
		eh->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV6);
	}
	return p;
}

static size_t
srh_bytes(const struct mrc_pkt *pkt)
{
	return (pkt->flags & MRC_PKT_F_SRH)
		       ? sizeof(struct mrc_srh) + (size_t)pkt->srh.n_segs * MRC_IPV6_ADDR_LEN
		       : 0;
}

/* The outer IPv6 header (the EV's flow-label half rides here) and the SRH. */
static uint8_t *
write_outer(uint8_t *p, const struct mrc_pkt *pkt, const struct mrc_wire_cfg *cfg,
	uint16_t outer_len, size_t srh_len)
{
	const uint32_t ev_fl = mrc_ev_flow_bits(pkt->ev, cfg->ev_split);

	p = write_ip6(p, &pkt->outer, (pkt->outer.flow_label & 0xf0000) | ev_fl, outer_len,
		srh_len ? MRC_IPPROTO_ROUTING : MRC_IPPROTO_IPV6);
	if (srh_len) {
		struct mrc_srh *s = (struct mrc_srh *)p;

		s->next_hdr = MRC_IPPROTO_IPV6;
		s->hdr_ext_len = (uint8_t)((srh_len - sizeof(*s)) / 8);
		s->routing_type = MRC_SRH_ROUTING_TYPE;
		s->segments_left = pkt->srh.segments_left;
		s->last_entry = (uint8_t)(pkt->srh.n_segs - 1);
		s->flags = pkt->srh.flags;
		s->tag = rte_cpu_to_be_16(pkt->srh.tag);
		memcpy(s + 1, pkt->srh.segs, (size_t)pkt->srh.n_segs * MRC_IPV6_ADDR_LEN);
		p += srh_len;
	}
	return p;
}

size_t
mrc_pkt_encap_hdr(
	const struct mrc_pkt *pkt, const struct mrc_wire_cfg *cfg, uint8_t *buf, size_t size)
{
	const size_t srh_len = srh_bytes(pkt);
	size_t len = sizeof(struct rte_ether_hdr) + sizeof(struct rte_ipv6_hdr) + srh_len;
	uint8_t *p;

	if (pkt->flags & MRC_PKT_F_VLAN)
		len += sizeof(struct rte_vlan_hdr);
	if (!(pkt->flags & MRC_PKT_F_SRV6) || len > size)
		return 0;
	if ((pkt->flags & MRC_PKT_F_SRH) &&
		(pkt->srh.n_segs == 0 || pkt->srh.n_segs > MRC_SRH_MAX_SEGS))
		return 0;
	p = write_l2(buf, pkt);
	write_outer(p, pkt, cfg, 0, srh_len);
	return len;
}

/* thl: mrc_pkt_transport_len(pkt), 0 for an unknown opcode */
static int
check_spec(const struct mrc_pkt *pkt, uint32_t payload_len, size_t thl)
{
	if (thl == 0)
		return -EINVAL;
	if (!mrc_opcode_is_data(pkt->bth.opcode) && payload_len != 0)
		return -EINVAL;
	if ((pkt->flags & MRC_PKT_F_NIC_ENCAP) && !(pkt->flags & MRC_PKT_F_SRV6))
		return -EINVAL; /* no outer header for a NIC to add */
	if (pkt->flags & MRC_PKT_F_SRH) {
		if (!(pkt->flags & MRC_PKT_F_SRV6) || pkt->srh.n_segs == 0 ||
			pkt->srh.n_segs > MRC_SRH_MAX_SEGS ||
			pkt->srh.segments_left >= pkt->srh.n_segs)
			return -EINVAL;
	}
	return 0;
}

/* Where pad + ICRC go: the last segment if we may write it, else `trailer`. */
static uint8_t *
append_tail(struct rte_mbuf *m, struct rte_mbuf *trailer, uint16_t len)
{
	struct rte_mbuf *last = rte_pktmbuf_lastseg(m);
	uint8_t *t;

	if (RTE_MBUF_DIRECT(last) && rte_mbuf_refcnt_read(last) == 1 &&
		rte_pktmbuf_tailroom(last) >= len)
		return (uint8_t *)rte_pktmbuf_append(m, len);
	if (trailer == NULL || !RTE_MBUF_DIRECT(trailer) || trailer->pkt_len != 0 ||
		rte_pktmbuf_tailroom(trailer) < len)
		return NULL;
	t = (uint8_t *)rte_pktmbuf_append(trailer, len);
	if (rte_pktmbuf_chain(m, trailer) != 0) {
		rte_pktmbuf_trim(trailer, len);
		return NULL;
	}
	return t;
}

int
mrc_pkt_build(struct rte_mbuf *m, const struct mrc_pkt *pkt, const struct mrc_wire_cfg *cfg,
	struct rte_mbuf *trailer)
{
	const uint32_t payload_len = rte_pktmbuf_pkt_len(m);
	const bool srv6 = (pkt->flags & MRC_PKT_F_SRV6) != 0;
	const size_t srh_len = srh_bytes(pkt);
	size_t thl, hdr_len;
	uint32_t udp_len, outer_len;
	uint8_t pad = 0, *p, *t;
	uint16_t inner_off;
	int rc;

	thl = mrc_pkt_transport_len(pkt);
	rc = check_spec(pkt, payload_len, thl);
	if (rc != 0)
		return rc;
	hdr_len = mrc_pkt_outer_hdr_len(pkt) + thl;
	if (mrc_opcode_is_data(pkt->bth.opcode))
		pad = (uint8_t)((4 - (payload_len & 3)) & 3);
	udp_len = (uint32_t)(sizeof(struct rte_udp_hdr) + thl) + payload_len + pad + MRC_ICRC_LEN;
	outer_len = udp_len + (srv6 ? (uint32_t)(srh_len + sizeof(struct rte_ipv6_hdr)) : 0);
	if (outer_len > UINT16_MAX)
		return -EINVAL;
	if (!RTE_MBUF_DIRECT(m) || rte_mbuf_refcnt_read(m) != 1 ||
		rte_pktmbuf_headroom(m) < hdr_len)
		return -ENOSPC;

	t = append_tail(m, trailer, (uint16_t)(pad + MRC_ICRC_LEN));
	if (t == NULL)
		return -ENOSPC;
	p = (uint8_t *)rte_pktmbuf_prepend(m, (uint16_t)hdr_len);

	p = write_l2(p, pkt);
	if (srv6 && !(pkt->flags & MRC_PKT_F_NIC_ENCAP))
		p = write_outer(p, pkt, cfg, (uint16_t)outer_len, srh_len);
	inner_off = (uint16_t)(p - rte_pktmbuf_mtod(m, uint8_t *));
	/* L3: the EV's flow-label half goes in the outermost header only. */
	if (srv6)
		p = write_ip6(p, &pkt->ip, pkt->ip.flow_label, (uint16_t)udp_len, MRC_IPPROTO_UDP);
	else
		p = write_ip6(p, &pkt->ip,
			(pkt->ip.flow_label & 0xf0000) | mrc_ev_flow_bits(pkt->ev, cfg->ev_split),
			(uint16_t)udp_len, MRC_IPPROTO_UDP);

	/* L4 */
	struct rte_udp_hdr *uh = (struct rte_udp_hdr *)p;

	uh->src_port = rte_cpu_to_be_16(mrc_ev_sport(pkt->ev, cfg->ev_split));
	uh->dst_port = RTE_BE16(MRC_ROCEV2_UDP_PORT);
	uh->dgram_len = rte_cpu_to_be_16((uint16_t)udp_len);
	uh->dgram_cksum = 0;
	p += sizeof(*uh);

	mrc_transport_encode(p, pkt, cfg, pad);

	/* Pad, then the ICRC over everything from the inner IPv6 header to the pad. */
	memset(t, 0, pad);
	uint32_t icrc =
		mrc_icrc_calc(m, inner_off, rte_pktmbuf_pkt_len(m) - MRC_ICRC_LEN - inner_off);

	t[pad + 0] = (uint8_t)icrc;
	t[pad + 1] = (uint8_t)(icrc >> 8);
	t[pad + 2] = (uint8_t)(icrc >> 16);
	t[pad + 3] = (uint8_t)(icrc >> 24);

	/* The UDP checksum is masked out of the ICRC, so it can come last. */
	if (cfg->udp_checksum) {
		struct rte_ipv6_hdr *ih =
			rte_pktmbuf_mtod_offset(m, struct rte_ipv6_hdr *, inner_off);
		uint16_t ck = rte_ipv6_udptcp_cksum_mbuf(
			m, ih, (uint16_t)(inner_off + sizeof(struct rte_ipv6_hdr)));

		uh->dgram_cksum = ck == 0 ? 0xffff : ck;
	}
	return 0;
}
