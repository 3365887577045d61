/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * A switch: a router with a static FIB, doing RFC 9800 NEXT-C-SID End for
 * its own uSID (LBL 32, LNFL 16: "F3216", doc/protocol.md "SRv6 addressing plan").
 *
 * The FIB lookup is on the active uSID, DA bits 32..47, after the block
 * has been checked: the uSID's plane nibble must be this switch's plane,
 * and (tier, index) selects the entry: a link, "local" (our own uSID) or
 * nothing. Every path MRC builds names each switch, so in normal operation
 * each switch finds its own uSID active and shifts:
 *
 *   at T0 src:  fcbb:0:3005:3101:3007:3e03::  ->  fcbb:0:3101:3007:3e03::  (up to T1 3101)
 *   at T1:      fcbb:0:3101:3007:3e03::       ->  fcbb:0:3007:3e03::       (down to T0 3007)
 *   at T0 dst:  fcbb:0:3007:3e03::            ->  fcbb:0:3e03::            (down to host 3)
 *
 * with the hop limit decremented once per End (RFC 9800 4.1.1 S07). When
 * the active uSID is our own and nothing follows it in the container, the
 * SRH (RFC 8754 / RFC 8986 End) supplies the next container: segments_left
 * is decremented and segment_list[segments_left] becomes the DA. A DA whose
 * active uSID is someone else's that we have a route for is forwarded as
 * plain IPv6 (hop limit decremented, no shift): that is what a real
 * switch's FIB does, and it never happens on paths MRC builds.
 *
 * Structured-EV packets carry no path; the destination host (resolved on
 * entry) and an ECMP hash of the EV pick the next hop, see route_plain().
 */

#include <string.h>

#include "fabric_priv.h"
#include "mrc_ev_path.h"
#include "mrc_srv6.h"

/* Lookups per packet at one switch: an End per uSID of every container, at most. */
#define MAX_LOOKUPS (MRC_USID_MAX_PATH + MRC_SRH_MAX_SEGS + 1)

#define IP_NEXT_HDR  6
#define IP_HOP_LIMIT 7
#define IP_DA	     24
#define IPV6_HDR_LEN 40u

/* Count a drop on the switch and the fabric (the fields share their names). */
#define SW_DROP(fab, sw, field) ((sw)->cnt.field++, (fab)->cnt.field++)

static inline uint8_t *
l3(const struct fab_item *it)
{
	return rte_pktmbuf_mtod_offset(it->m, uint8_t *, it->l3_off);
}

static inline uint32_t
da_block(const uint8_t *da)
{
	return (uint32_t)da[0] << 24 | (uint32_t)da[1] << 16 | (uint32_t)da[2] << 8 | da[3];
}

/* RFC 9800: the Argument is everything after the active uSID (DA bits 48..127). */
static inline bool
da_argument_nonzero(const uint8_t *da)
{
	uint16_t a;
	uint64_t b;

	memcpy(&a, da + 6, sizeof(a));
	memcpy(&b, da + 8, sizeof(b));
	return (a | b) != 0;
}

static inline uint32_t
fib_lookup(const struct mrc_fabric *fab, const struct fab_switch *sw, uint16_t usid)
{
	const unsigned int idx = usid & 0xff;

	if ((unsigned int)(usid >> 12) != sw->plane + 1u)
		return FIB_NONE;
	switch ((usid >> 8) & 0xf) {
	case MRC_USID_TIER_T0:
		return idx < fab->n_t0 ? fab->fib[sw->fib + idx] : FIB_NONE;
	case MRC_USID_TIER_T1:
		return idx < fab->n_t1 ? fab->fib[sw->fib + fab->n_t0 + idx] : FIB_NONE;
	case MRC_USID_TIER_HOST:
		return idx < fab->n_hosts ? fab->fib[sw->fib + fab->n_t0 + fab->n_t1 + idx]
					  : FIB_NONE;
	default:
		return FIB_NONE;
	}
}

/*
 * The container is spent at our uSID: take the next one from the SRH.
 * 0 and the DA rewritten, or -1 with the drop counted.
 */
static int
srh_advance(struct mrc_fabric *fab, struct fab_switch *sw, struct fab_item *it, uint8_t *ip)
{
	const uint32_t srh_off = it->l3_off + IPV6_HDR_LEN;
	uint8_t *srh, sl, last;
	uint32_t len;

	if (ip[IP_NEXT_HDR] != MRC_IPPROTO_ROUTING) {
		SW_DROP(fab, sw, drop_ends_here);
		return -1;
	}
	if (it->m->data_len < srh_off + 8) {
		SW_DROP(fab, sw, drop_bad_srh);
		return -1;
	}
	srh = ip + IPV6_HDR_LEN;
	len = 8u + 8u * srh[1];
	sl = srh[3];
	last = srh[4];
	/* RFC 8754 4.3.1: routing type 4, the list inside the header, SL <= last entry + 1. */
	if (srh[2] != MRC_SRH_ROUTING_TYPE || it->m->data_len < srh_off + len ||
		8u + 16u * (last + 1u) > len || sl > last + 1u) {
		SW_DROP(fab, sw, drop_bad_srh);
		return -1;
	}
	if (sl == 0) {
		SW_DROP(fab, sw, drop_ends_here);
		return -1;
	}
	if (ip[IP_HOP_LIMIT] <= 1) {
		SW_DROP(fab, sw, drop_hop_limit);
		return -1;
	}
	sl--;
	srh[3] = sl;
	memcpy(ip + IP_DA, srh + 8 + 16u * sl, MRC_IPV6_ADDR_LEN);
	ip[IP_HOP_LIMIT]--;
	sw->cnt.srh_advances++;
	if (da_block(ip + IP_DA) != fab->cfg.block) {
		SW_DROP(fab, sw, drop_wrong_block);
		return -1;
	}
	return 0;
}

/* SRv6: the egress link, or FIB_NONE with the drop counted. */
static uint32_t
route_srv6(struct mrc_fabric *fab, struct fab_switch *sw, struct fab_item *it)
{
	uint8_t *ip = l3(it), *da = ip + IP_DA;
	bool did_end = false;

	if (unlikely(da_block(da) != fab->cfg.block)) {
		SW_DROP(fab, sw, drop_wrong_block);
		return FIB_NONE;
	}
	for (unsigned int n = 0; n < MAX_LOOKUPS; n++) {
		const uint32_t r = fib_lookup(fab, sw, (uint16_t)(da[4] << 8 | da[5]));

		if (r == FIB_LOCAL) {
			did_end = true;
			if (da_argument_nonzero(da)) {
				/* RFC 9800 4.1.1 S03-S07. */
				if (ip[IP_HOP_LIMIT] <= 1) {
					SW_DROP(fab, sw, drop_hop_limit);
					return FIB_NONE;
				}
				mrc_usid_shift(da);
				ip[IP_HOP_LIMIT]--;
				sw->cnt.usid_shifts++;
				continue;
			}
			if (srh_advance(fab, sw, it, ip) != 0)
				return FIB_NONE;
			continue;
		}
		if (unlikely(r == FIB_NONE)) {
			SW_DROP(fab, sw, drop_no_route);
			return FIB_NONE;
		}
		if (!did_end) {
			/* Plain IPv6 transit. */
			if (ip[IP_HOP_LIMIT] <= 1) {
				SW_DROP(fab, sw, drop_hop_limit);
				return FIB_NONE;
			}
			ip[IP_HOP_LIMIT]--;
			sw->cnt.transit_pkts++;
		}
		return r;
	}
	SW_DROP(fab, sw, drop_no_route); /* a path naming us over and over */
	return FIB_NONE;
}

/*
 * ECMP on the EV: hash the UDP source port and the flow label (the two fields
 * the EV is striped across, doc/protocol.md "Where the EV travels") into one
 * of n T1s.
 */
static inline unsigned int
ecmp_pick(const struct fab_item *it, const uint8_t *ip, unsigned int n)
{
	const uint32_t fl = ((uint32_t)ip[1] << 16 | (uint32_t)ip[2] << 8 | ip[3]) & 0xfffff;
	uint32_t sport = 0;
	uint64_t h;

	if (ip[IP_NEXT_HDR] == MRC_IPPROTO_UDP && it->m->data_len >= it->l3_off + IPV6_HDR_LEN + 2u)
		sport = (uint32_t)ip[IPV6_HDR_LEN] << 8 | ip[IPV6_HDR_LEN + 1];
	h = ((uint64_t)sport << 20 | fl) * UINT64_C(0x9e3779b97f4a7c15);
	return (unsigned int)(((h >> 32) * n) >> 32);
}

/* Structured EV: by destination host, ECMP up. FIB_NONE with the drop counted. */
static uint32_t
route_plain(struct mrc_fabric *fab, struct fab_switch *sw, struct fab_item *it)
{
	uint8_t *ip = l3(it);
	unsigned int dst_t0;
	uint32_t r;

	if (it->dst_host == NO_HOST) {
		SW_DROP(fab, sw, drop_no_route);
		return FIB_NONE;
	}
	dst_t0 = fab_t0_of(fab, it->dst_host);
	if (sw->tier == MRC_USID_TIER_T1) {
		r = fab->fib[sw->fib + dst_t0];
	} else if (dst_t0 == sw->index) {
		r = fab->fib[sw->fib + fab->n_t0 + fab->n_t1 + it->dst_host];
	} else {
		r = fab->fib[sw->fib + fab->n_t0 + ecmp_pick(it, ip, fab->n_t1)];
		sw->cnt.ecmp_pkts++;
	}
	if (ip[IP_HOP_LIMIT] <= 1) {
		SW_DROP(fab, sw, drop_hop_limit);
		return FIB_NONE;
	}
	ip[IP_HOP_LIMIT]--;
	return r;
}

void
fab_switch_input(struct mrc_fabric *fab, struct fab_switch *sw, struct fab_item *it)
{
	const uint8_t ps = fab->plane_state[sw->plane];
	uint32_t out;

	if (unlikely(ps != MRC_FABRIC_UP || sw->state != MRC_FABRIC_UP)) {
		if (ps == MRC_FABRIC_DOWN || sw->state == MRC_FABRIC_DOWN)
			SW_DROP(fab, sw, drop_down);
		else
			SW_DROP(fab, sw, drop_blackhole);
		fab_drop(fab, it);
		return;
	}
	sw->cnt.rx_pkts++;
	sw->cnt.rx_bytes += it->m->pkt_len;
	out = (it->cls & CLS_SRV6) ? route_srv6(fab, sw, it) : route_plain(fab, sw, it);
	if (unlikely(out >= FIB_LOCAL)) {
		fab_drop(fab, it);
		return;
	}
	fab_link_enqueue(fab, out, it);
}
