/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * The destination QP of a received packet, read in place, for a caller that
 * only has to decide where the packet goes (the software dispatch between a
 * host's workers): the packet's parse and ICRC check are then done once, by
 * the worker that owns the QP, instead of twice or by the worker that
 * happened to read it. The walk is mrc_pkt_parse()'s, over the first
 * segment only, and takes the same turns (the same EtherTypes, next headers
 * and routing header type), so a frame it accepts is never one that parse
 * would call "not MRC" (mrc_pkt_parse's BAD_ETHERTYPE, BAD_NEXT_HEADER,
 * NOT_ROCE): those stay with the reader, for the exception path. Lengths are
 * checked only against the segment; the owner's parse checks the rest.
 */

#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_udp.h>

#include "mrc_wire_priv.h"

bool
mrc_pkt_peek_dqpn(const struct rte_mbuf *m, uint32_t *dqpn)
{
	const uint8_t *b = rte_pktmbuf_mtod(m, const uint8_t *);
	const uint32_t len = m->data_len;
	uint32_t off = sizeof(struct rte_ether_hdr);
	rte_be16_t type;
	rte_be32_t w;
	uint8_t nh;

	if (len < off)
		return false;
	memcpy(&type, b + off - sizeof(type), sizeof(type));
	if (type == RTE_BE16(RTE_ETHER_TYPE_VLAN)) {
		off += sizeof(struct rte_vlan_hdr);
		if (len < off)
			return false;
		memcpy(&type, b + off - sizeof(type), sizeof(type));
	}
	if (type != RTE_BE16(RTE_ETHER_TYPE_IPV6) || len < off + sizeof(struct rte_ipv6_hdr) ||
		(b[off] >> 4) != 6)
		return false;
	nh = b[off + offsetof(struct rte_ipv6_hdr, proto)];
	off += sizeof(struct rte_ipv6_hdr);
	if (nh == MRC_IPPROTO_ROUTING) {
		/* An SRH, then the tunnelled packet: nothing else (parse's rule). */
		if (len < off + sizeof(struct mrc_srh) ||
			b[off + offsetof(struct mrc_srh, routing_type)] != MRC_SRH_ROUTING_TYPE ||
			b[off + offsetof(struct mrc_srh, next_hdr)] != MRC_IPPROTO_IPV6)
			return false;
		off += sizeof(struct mrc_srh) + 8u * b[off + offsetof(struct mrc_srh, hdr_ext_len)];
		nh = MRC_IPPROTO_IPV6;
	}
	if (nh == MRC_IPPROTO_IPV6) {
		if (len < off + sizeof(struct rte_ipv6_hdr) || (b[off] >> 4) != 6)
			return false;
		nh = b[off + offsetof(struct rte_ipv6_hdr, proto)];
		off += sizeof(struct rte_ipv6_hdr);
	}
	if (nh != MRC_IPPROTO_UDP ||
		len < off + sizeof(struct rte_udp_hdr) + sizeof(struct mrc_bth))
		return false;
	memcpy(&type, b + off + offsetof(struct rte_udp_hdr, dst_port), sizeof(type));
	if (type != RTE_BE16(MRC_ROCEV2_UDP_PORT))
		return false;
	off += sizeof(struct rte_udp_hdr);
	memcpy(&w, b + off + offsetof(struct mrc_bth, fb_dqpn), sizeof(w));
	*dqpn = rte_be_to_cpu_32(w) & MRC_BTH_QPN_MASK;
	return true;
}
