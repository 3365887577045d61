/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Neighbour discovery without a port (mrc_nd.h): classify, check, build,
 * and one neighbour's state. Input is from the wire: every length is
 * checked before it is read, nothing is asserted.
 */

#include <string.h>

#include <rte_common.h>
#include <rte_ip.h>

#include "mrc_nd.h"

#define ETH_LEN	 14
#define IP6_LEN	 40
#define ND_LEN	 24 /* type, code, checksum, flags/reserved, target */
#define OPT_SLLA 1
#define OPT_TLLA 2

static const char *const kind_names[] = {
#define MRC_ND_KIND_NAME(up, low, help) #low,
	MRC_ND_KINDS(MRC_ND_KIND_NAME)
#undef MRC_ND_KIND_NAME
};
static const char *const kind_helps[] = {
#define MRC_ND_KIND_HELP(up, low, help) help,
	MRC_ND_KINDS(MRC_ND_KIND_HELP)
#undef MRC_ND_KIND_HELP
};

const char *
mrc_nd_kind_name(enum mrc_nd_kind k)
{
	return (unsigned int)k < MRC_ND_KIND_MAX ? kind_names[k] : "?";
}

const char *
mrc_nd_kind_help(enum mrc_nd_kind k)
{
	return (unsigned int)k < MRC_ND_KIND_MAX ? kind_helps[k] : "?";
}

const char *
mrc_nd_state_name(enum mrc_nd_state s)
{
	static const char *const names[] = {"static", "incomplete", "reachable", "probe", "failed"};

	return (unsigned int)s < RTE_DIM(names) ? names[s] : "?";
}

static inline uint16_t
be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static bool
is_zero(const uint8_t *ip)
{
	for (unsigned int i = 0; i < MRC_ND_ADDR_LEN; i++)
		if (ip[i] != 0)
			return false;
	return true;
}

static bool
is_solicited_node(const uint8_t *ip)
{
	static const uint8_t pfx[13] = {0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01, 0xff};

	return memcmp(ip, pfx, sizeof(pfx)) == 0;
}

/* The ICMPv6 checksum over the pseudo-header and `len` bytes of message (RFC 8200 8.1). */
static uint16_t
icmp6_cksum(const uint8_t *src, const uint8_t *dst, const uint8_t *msg, uint32_t len)
{
	const uint8_t tail[8] = {(uint8_t)(len >> 24), (uint8_t)(len >> 16), (uint8_t)(len >> 8),
		(uint8_t)len, 0, 0, 0, MRC_ND_ICMP6};
	uint32_t sum = rte_raw_cksum(src, MRC_ND_ADDR_LEN);

	sum += rte_raw_cksum(dst, MRC_ND_ADDR_LEN);
	sum += rte_raw_cksum(tail, sizeof(tail));
	sum += rte_raw_cksum(msg, len);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum; /* 0xffff over a message whose checksum field is right */
}

/* Check an NS or NA (RFC 4861, 7.1.1 and 7.1.2) and read it; false: refused. */
static bool
nd_check(const uint8_t *ip, const uint8_t *icmp, uint32_t plen, struct mrc_nd_msg *msg)
{
	const uint8_t type = icmp[0];
	const uint8_t want_opt = type == MRC_ND_TYPE_NS ? OPT_SLLA : OPT_TLLA;
	struct mrc_nd_msg m;

	if (ip[7] != 255 || icmp[1] != 0 || plen < ND_LEN)
		return false;
	if (icmp6_cksum(ip + 8, ip + 24, icmp, plen) != 0xffff)
		return false;
	memset(&m, 0, sizeof(m));
	m.type = type;
	m.flags = type == MRC_ND_TYPE_NA ? icmp[4] & 0xe0 : 0;
	memcpy(m.src_ip, ip + 8, MRC_ND_ADDR_LEN);
	memcpy(m.dst_ip, ip + 24, MRC_ND_ADDR_LEN);
	memcpy(m.target, icmp + 8, MRC_ND_ADDR_LEN);
	if (m.target[0] == 0xff)
		return false; /* a multicast target */
	for (uint32_t o = ND_LEN; o < plen;) {
		const uint32_t olen = plen - o >= 2 ? 8u * icmp[o + 1] : 0;

		if (olen == 0 || olen > plen - o)
			return false; /* a zero length, or past the message */
		if (icmp[o] == want_opt && olen == 8 && !m.has_lladdr) {
			m.has_lladdr = true;
			memcpy(&m.lladdr, icmp + o + 2, RTE_ETHER_ADDR_LEN);
		}
		o += olen;
	}
	if (type == MRC_ND_TYPE_NS && is_zero(m.src_ip) &&
		(!is_solicited_node(m.dst_ip) || m.has_lladdr))
		return false; /* duplicate address detection is from :: to the group, no option */
	if (type == MRC_ND_TYPE_NA && m.dst_ip[0] == 0xff && (m.flags & MRC_ND_NA_SOLICITED))
		return false;
	if (msg != NULL)
		*msg = m;
	return true;
}

enum mrc_nd_kind
mrc_nd_classify(const uint8_t *f, uint32_t len, struct mrc_nd_msg *msg)
{
	const uint8_t *ip = f + ETH_LEN, *icmp = ip + IP6_LEN;
	uint32_t plen;

	if (len < ETH_LEN)
		return MRC_ND_KIND_OTHER;
	switch (be16(f + 12)) {
	case RTE_ETHER_TYPE_IPV6:
		break;
	case RTE_ETHER_TYPE_LLDP:
		return MRC_ND_KIND_LLDP;
	case RTE_ETHER_TYPE_ARP:
		return MRC_ND_KIND_ARP;
	case RTE_ETHER_TYPE_IPV4:
		return MRC_ND_KIND_IPV4;
	default:
		return MRC_ND_KIND_OTHER;
	}
	if (len < ETH_LEN + IP6_LEN + 1 || (ip[0] >> 4) != 6 || ip[6] != MRC_ND_ICMP6)
		return MRC_ND_KIND_IPV6;
	if (icmp[0] != MRC_ND_TYPE_NS && icmp[0] != MRC_ND_TYPE_NA)
		return MRC_ND_KIND_ICMP6;
	plen = be16(ip + 4);
	if (plen > len - ETH_LEN - IP6_LEN || !nd_check(ip, icmp, plen, msg))
		return MRC_ND_KIND_ND_BAD;
	if (msg != NULL)
		memcpy(&msg->eth_src, f + 6, RTE_ETHER_ADDR_LEN);
	return icmp[0] == MRC_ND_TYPE_NS ? MRC_ND_KIND_NS : MRC_ND_KIND_NA;
}

void
mrc_nd_link_local(const struct rte_ether_addr *mac, uint8_t ip[MRC_ND_ADDR_LEN])
{
	const uint8_t *a = mac->addr_bytes;

	memset(ip, 0, MRC_ND_ADDR_LEN);
	ip[0] = 0xfe;
	ip[1] = 0x80;
	ip[8] = a[0] ^ 0x02;
	ip[9] = a[1];
	ip[10] = a[2];
	ip[11] = 0xff;
	ip[12] = 0xfe;
	ip[13] = a[3];
	ip[14] = a[4];
	ip[15] = a[5];
}

void
mrc_nd_solicited_node(const uint8_t ip[MRC_ND_ADDR_LEN], uint8_t group[MRC_ND_ADDR_LEN],
	struct rte_ether_addr *mac)
{
	static const uint8_t pfx[13] = {0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01, 0xff};

	memcpy(group, pfx, sizeof(pfx));
	memcpy(group + 13, ip + 13, 3);
	*mac = (struct rte_ether_addr){{0x33, 0x33, 0xff, ip[13], ip[14], ip[15]}};
}

/* Ethernet, IPv6 and an NS/NA with one link-layer option; fills the checksum. */
static uint32_t
build(uint8_t *buf, uint32_t room, const struct rte_ether_addr *eth_dst,
	const struct rte_ether_addr *our_mac, const uint8_t *src_ip, const uint8_t *dst_ip,
	uint8_t type, uint8_t flags, const uint8_t *target)
{
	uint8_t *ip = buf + ETH_LEN, *icmp = ip + IP6_LEN;
	const uint32_t plen = ND_LEN + 8;
	uint16_t ck;

	if (room < MRC_ND_FRAME_LEN)
		return 0;
	memset(buf, 0, MRC_ND_FRAME_LEN);
	memcpy(buf, eth_dst, RTE_ETHER_ADDR_LEN);
	memcpy(buf + 6, our_mac, RTE_ETHER_ADDR_LEN);
	buf[12] = RTE_ETHER_TYPE_IPV6 >> 8;
	buf[13] = RTE_ETHER_TYPE_IPV6 & 0xff;
	ip[0] = 0x60;
	ip[4] = 0;
	ip[5] = (uint8_t)plen;
	ip[6] = MRC_ND_ICMP6;
	ip[7] = 255;
	memcpy(ip + 8, src_ip, MRC_ND_ADDR_LEN);
	memcpy(ip + 24, dst_ip, MRC_ND_ADDR_LEN);
	icmp[0] = type;
	icmp[4] = flags;
	memcpy(icmp + 8, target, MRC_ND_ADDR_LEN);
	icmp[ND_LEN] = type == MRC_ND_TYPE_NS ? OPT_SLLA : OPT_TLLA;
	icmp[ND_LEN + 1] = 1;
	memcpy(icmp + ND_LEN + 2, our_mac, RTE_ETHER_ADDR_LEN);
	/* summed in memory order (rte_raw_cksum), so stored in memory order */
	ck = (uint16_t)~icmp6_cksum(src_ip, dst_ip, icmp, plen);
	memcpy(icmp + 2, &ck, sizeof(ck));
	return MRC_ND_FRAME_LEN;
}

uint32_t
mrc_nd_build_na(uint8_t *buf, uint32_t room, const struct rte_ether_addr *our_mac,
	const struct rte_ether_addr *dst_mac, const uint8_t target[MRC_ND_ADDR_LEN],
	const uint8_t dst_ip[MRC_ND_ADDR_LEN], uint8_t flags)
{
	return build(buf, room, dst_mac, our_mac, target, dst_ip, MRC_ND_TYPE_NA,
		(uint8_t)(flags | MRC_ND_NA_OVERRIDE), target);
}

uint32_t
mrc_nd_build_ns(uint8_t *buf, uint32_t room, const struct rte_ether_addr *our_mac,
	const struct rte_ether_addr *dst_mac, const uint8_t src_ip[MRC_ND_ADDR_LEN],
	const uint8_t target[MRC_ND_ADDR_LEN])
{
	uint8_t group[MRC_ND_ADDR_LEN];
	struct rte_ether_addr gmac;

	if (dst_mac != NULL)
		return build(
			buf, room, dst_mac, our_mac, src_ip, target, MRC_ND_TYPE_NS, 0, target);
	mrc_nd_solicited_node(target, group, &gmac);
	return build(buf, room, &gmac, our_mac, src_ip, group, MRC_ND_TYPE_NS, 0, target);
}

void
mrc_nd_timing_defaults(struct mrc_nd_timing *t, uint64_t hz)
{
	t->reachable_tsc = 30 * hz;
	t->retrans_tsc = hz;
	t->max_probes = 3;
}

void
mrc_nd_neigh_start(struct mrc_nd_neigh *n, const uint8_t ip[MRC_ND_ADDR_LEN], uint64_t now)
{
	memset(n, 0, sizeof(*n));
	memcpy(n->ip, ip, MRC_ND_ADDR_LEN);
	n->state = MRC_ND_INCOMPLETE;
	n->next_tsc = now;
}

enum mrc_nd_action
mrc_nd_neigh_tick(struct mrc_nd_neigh *n, const struct mrc_nd_timing *t, uint64_t now)
{
	if (n->state == MRC_ND_NONE || now < n->next_tsc)
		return MRC_ND_SEND_NOTHING;
	switch (n->state) {
	case MRC_ND_REACHABLE:
		n->state = MRC_ND_PROBE;
		n->probes = 0;
		/* the first probe now */
		__attribute__((fallthrough));
	case MRC_ND_PROBE:
		if (n->probes >= t->max_probes) {
			n->state = MRC_ND_FAILED;
			n->failed++;
			n->next_tsc = now + t->retrans_tsc;
			return MRC_ND_SEND_MULTICAST;
		}
		n->probes++;
		n->next_tsc = now + t->retrans_tsc;
		return MRC_ND_SEND_UNICAST;
	default: /* INCOMPLETE, FAILED: ask the whole link, each retrans */
		n->next_tsc = now + t->retrans_tsc;
		return MRC_ND_SEND_MULTICAST;
	}
}

bool
mrc_nd_neigh_learn(struct mrc_nd_neigh *n, const struct mrc_nd_msg *msg,
	const struct mrc_nd_timing *t, uint64_t now)
{
	const bool was_usable = mrc_nd_neigh_usable(n);
	bool same_mac;

	if (n->state == MRC_ND_NONE || !msg->has_lladdr)
		return false;
	if (msg->type == MRC_ND_TYPE_NA ? memcmp(msg->target, n->ip, MRC_ND_ADDR_LEN) != 0
					: memcmp(msg->src_ip, n->ip, MRC_ND_ADDR_LEN) != 0)
		return false;
	same_mac = was_usable && rte_is_same_ether_addr(&n->mac, &msg->lladdr);
	if (msg->type == MRC_ND_TYPE_NA && (msg->flags & MRC_ND_NA_SOLICITED)) {
		n->state = MRC_ND_REACHABLE;
		n->next_tsc = now + t->reachable_tsc;
	} else if (!same_mac) {
		n->state = MRC_ND_PROBE; /* a MAC heard but not confirmed: confirm it now */
		n->probes = 0;
		n->next_tsc = now;
	} else {
		return false; /* nothing new */
	}
	n->mac = msg->lladdr;
	if (!was_usable)
		n->resolved++;
	return true;
}
