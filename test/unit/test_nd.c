/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * drivers/nic/mrc_nd.h: neighbour discovery without a port. The messages
 * built read back field by field and pass DPDK's own checksum check (an
 * oracle that is not ours); every check of RFC 4861 7.1 refuses a frame
 * that breaks it; frames that are not ND are told apart by kind; a
 * neighbour's life on a fake clock (resolve, age, probe, fail, come back).
 */

#include <string.h>

#include <rte_ip.h>

#include "mrc_nd.h"
#include "mrc_test.h"

static const struct rte_ether_addr our_mac = {{0x02, 0x6d, 0x72, 0x00, 0x00, 0x01}};
static const struct rte_ether_addr nh_mac = {{0x02, 0x6d, 0x72, 0xff, 0x00, 0x01}};
/* fcbb:0:2e00:: (plane 1's host 0 address) and fd11:1::1 (a next hop) */
static const uint8_t our_ip[16] = {0xfc, 0xbb, 0, 0, 0x2e, 0x00};
static const uint8_t nh_ip[16] = {0xfd, 0x11, 0, 1, [15] = 1};

#define HZ 1000000000ull

/* DPDK's checksum check over the built frame: 0 when right. */
static int
dpdk_cksum_ok(uint8_t *f)
{
	return rte_ipv6_udptcp_cksum_verify((const struct rte_ipv6_hdr *)(f + 14), f + 54) == 0;
}

static int
test_link_local_and_group(void)
{
	uint8_t ll[16], g[16];
	static const uint8_t want_ll[16] = {
		0xfe, 0x80, [8] = 0x00, 0x6d, 0x72, 0xff, 0xfe, 0x00, 0x00, 0x01};
	static const uint8_t want_g[16] = {0xff, 0x02, [11] = 0x01, 0xff, 0x00, 0x00, 0x01};
	struct rte_ether_addr gm;

	mrc_nd_link_local(&our_mac, ll);
	MRC_T_MEMEQ(ll, want_ll, 16); /* fe80::6d:72ff:fe00:1, the U/L bit flipped */
	mrc_nd_solicited_node(nh_ip, g, &gm);
	MRC_T_MEMEQ(g, want_g, 16); /* ff02::1:ff00:1 */
	MRC_T_EQ(gm.addr_bytes[0], 0x33);
	MRC_T_EQ(gm.addr_bytes[2], 0xff);
	MRC_T_EQ(gm.addr_bytes[5], 0x01);
	return MRC_TEST_OK;
}

static int
test_ns_round_trip(void)
{
	uint8_t f[128], ll[16], g[16];
	struct rte_ether_addr gm;
	struct mrc_nd_msg m;
	uint32_t n;

	mrc_nd_link_local(&our_mac, ll);
	n = mrc_nd_build_ns(f, sizeof(f), &our_mac, NULL, ll, nh_ip);
	MRC_T_EQ(n, MRC_ND_FRAME_LEN);
	MRC_T_ASSERT(dpdk_cksum_ok(f), "DPDK refuses the NS's checksum");
	MRC_T_EQ(mrc_nd_classify(f, n, &m), MRC_ND_KIND_NS);
	mrc_nd_solicited_node(nh_ip, g, &gm);
	MRC_T_MEMEQ(f, gm.addr_bytes, 6);
	MRC_T_MEMEQ(m.dst_ip, g, 16);
	MRC_T_MEMEQ(m.src_ip, ll, 16);
	MRC_T_MEMEQ(m.target, nh_ip, 16);
	MRC_T_ASSERT(m.has_lladdr && rte_is_same_ether_addr(&m.lladdr, &our_mac), "no SLLA");
	MRC_T_ASSERT(rte_is_same_ether_addr(&m.eth_src, &our_mac), "Ethernet source");
	/* unicast probe: to the MAC given, the target as destination */
	n = mrc_nd_build_ns(f, sizeof(f), &our_mac, &nh_mac, ll, nh_ip);
	MRC_T_EQ(mrc_nd_classify(f, n, &m), MRC_ND_KIND_NS);
	MRC_T_MEMEQ(f, nh_mac.addr_bytes, 6);
	MRC_T_MEMEQ(m.dst_ip, nh_ip, 16);
	MRC_T_EQ(mrc_nd_build_ns(f, MRC_ND_FRAME_LEN - 1, &our_mac, NULL, ll, nh_ip), 0);
	return MRC_TEST_OK;
}

static int
test_na_round_trip(void)
{
	static const uint8_t all_nodes[16] = {0xff, 0x02, [15] = 1};
	static const struct rte_ether_addr all_mac = {{0x33, 0x33, 0, 0, 0, 1}};
	uint8_t f[128];
	struct mrc_nd_msg m;
	uint32_t n;

	n = mrc_nd_build_na(f, sizeof(f), &our_mac, &nh_mac, our_ip, nh_ip, MRC_ND_NA_SOLICITED);
	MRC_T_ASSERT(dpdk_cksum_ok(f), "DPDK refuses the NA's checksum");
	MRC_T_EQ(mrc_nd_classify(f, n, &m), MRC_ND_KIND_NA);
	MRC_T_EQ(m.flags, MRC_ND_NA_SOLICITED | MRC_ND_NA_OVERRIDE);
	MRC_T_MEMEQ(m.src_ip, our_ip, 16);
	MRC_T_MEMEQ(m.target, our_ip, 16);
	MRC_T_MEMEQ(m.dst_ip, nh_ip, 16);
	MRC_T_ASSERT(m.has_lladdr && rte_is_same_ether_addr(&m.lladdr, &our_mac), "no TLLA");
	/* unsolicited, to all nodes */
	n = mrc_nd_build_na(f, sizeof(f), &our_mac, &all_mac, our_ip, all_nodes, 0);
	MRC_T_EQ(mrc_nd_classify(f, n, &m), MRC_ND_KIND_NA);
	MRC_T_EQ(m.flags, MRC_ND_NA_OVERRIDE);
	/* solicited to a multicast address: refused */
	n = mrc_nd_build_na(
		f, sizeof(f), &our_mac, &all_mac, our_ip, all_nodes, MRC_ND_NA_SOLICITED);
	MRC_T_EQ(mrc_nd_classify(f, n, &m), MRC_ND_KIND_ND_BAD);
	return MRC_TEST_OK;
}

/* Fix the checksum after a change (so that only the change is refused). */
static void
reseal(uint8_t *f)
{
	struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(f + 14);

	f[56] = f[57] = 0;
	*(uint16_t *)(f + 56) = rte_ipv6_udptcp_cksum(ip, f + 54);
}

static int
test_refusals(void)
{
	uint8_t base[128], f[128];
	uint32_t n;

	n = mrc_nd_build_na(base, sizeof(base), &our_mac, &nh_mac, our_ip, nh_ip, 0);
	/* each line breaks one rule of RFC 4861 7.1.2, the checksum kept right */
	memcpy(f, base, n);
	MRC_T_EQ(mrc_nd_classify(f, n, NULL), MRC_ND_KIND_NA);
	f[14 + 7] = 254; /* hop limit: a router may have forwarded it */
	reseal(f);
	MRC_T_EQ(mrc_nd_classify(f, n, NULL), MRC_ND_KIND_ND_BAD);
	memcpy(f, base, n);
	f[55] = 1; /* code */
	reseal(f);
	MRC_T_EQ(mrc_nd_classify(f, n, NULL), MRC_ND_KIND_ND_BAD);
	memcpy(f, base, n);
	f[57] ^= 1; /* checksum */
	MRC_T_EQ(mrc_nd_classify(f, n, NULL), MRC_ND_KIND_ND_BAD);
	memcpy(f, base, n);
	f[54 + 8] = 0xff; /* a multicast target */
	reseal(f);
	MRC_T_EQ(mrc_nd_classify(f, n, NULL), MRC_ND_KIND_ND_BAD);
	memcpy(f, base, n);
	f[54 + 25] = 0; /* an option of length 0 */
	reseal(f);
	MRC_T_EQ(mrc_nd_classify(f, n, NULL), MRC_ND_KIND_ND_BAD);
	memcpy(f, base, n);
	f[54 + 25] = 2; /* an option past the message */
	reseal(f);
	MRC_T_EQ(mrc_nd_classify(f, n, NULL), MRC_ND_KIND_ND_BAD);
	memcpy(f, base, n);
	f[14 + 5] = 20; /* shorter than an NA */
	reseal(f);
	MRC_T_EQ(mrc_nd_classify(f, n, NULL), MRC_ND_KIND_ND_BAD);
	/* the IPv6 payload length says more than the frame has */
	MRC_T_EQ(mrc_nd_classify(base, n - 1, NULL), MRC_ND_KIND_ND_BAD);
	/* duplicate address detection: from ::, to the group, no option */
	{
		static const uint8_t unspec[16];
		struct mrc_nd_msg m;

		n = mrc_nd_build_ns(f, sizeof(f), &our_mac, NULL, unspec, our_ip);
		MRC_T_EQ(mrc_nd_classify(f, n, NULL), MRC_ND_KIND_ND_BAD); /* it has an SLLA */
		f[14 + 5] = 24;						   /* drop the option */
		reseal(f);
		MRC_T_EQ(mrc_nd_classify(f, n - 8, &m), MRC_ND_KIND_NS);
		MRC_T_ASSERT(!m.has_lladdr, "an option that is not there");
		n = mrc_nd_build_ns(f, sizeof(f), &our_mac, &nh_mac, unspec, our_ip);
		f[14 + 5] = 24;
		reseal(f);
		MRC_T_EQ(mrc_nd_classify(f, n - 8, NULL), MRC_ND_KIND_ND_BAD); /* to a unicast */
	}
	return MRC_TEST_OK;
}

static int
test_kinds(void)
{
	uint8_t f[128];
	uint32_t n = mrc_nd_build_na(f, sizeof(f), &our_mac, &nh_mac, our_ip, nh_ip, 0);

	MRC_T_EQ(mrc_nd_classify(f, 13, NULL), MRC_ND_KIND_OTHER);
	f[12] = 0x88, f[13] = 0xcc;
	MRC_T_EQ(mrc_nd_classify(f, n, NULL), MRC_ND_KIND_LLDP);
	f[12] = 0x08, f[13] = 0x06;
	MRC_T_EQ(mrc_nd_classify(f, n, NULL), MRC_ND_KIND_ARP);
	f[12] = 0x08, f[13] = 0x00;
	MRC_T_EQ(mrc_nd_classify(f, n, NULL), MRC_ND_KIND_IPV4);
	f[12] = 0x81, f[13] = 0x00;
	MRC_T_EQ(mrc_nd_classify(f, n, NULL), MRC_ND_KIND_OTHER);
	f[12] = 0x86, f[13] = 0xdd;
	MRC_T_EQ(mrc_nd_classify(f, 54, NULL), MRC_ND_KIND_IPV6); /* no ICMPv6 type */
	f[54] = 128;						  /* echo request */
	MRC_T_EQ(mrc_nd_classify(f, n, NULL), MRC_ND_KIND_ICMP6);
	f[14 + 6] = 17; /* UDP */
	MRC_T_EQ(mrc_nd_classify(f, n, NULL), MRC_ND_KIND_IPV6);
	for (int k = 0; k < MRC_ND_KIND_MAX; k++)
		MRC_T_ASSERT(strcmp(mrc_nd_kind_name(k), "?") != 0, "kind %d has no name", k);
	return MRC_TEST_OK;
}

/* An NA from the next hop, solicited or not. */
static void
na_from_nh(struct mrc_nd_msg *m, const struct rte_ether_addr *mac, bool solicited)
{
	memset(m, 0, sizeof(*m));
	m->type = MRC_ND_TYPE_NA;
	m->flags = MRC_ND_NA_OVERRIDE | (solicited ? MRC_ND_NA_SOLICITED : 0);
	memcpy(m->target, nh_ip, 16);
	memcpy(m->src_ip, nh_ip, 16);
	m->has_lladdr = true;
	m->lladdr = *mac;
}

static int
test_neighbour_life(void)
{
	struct mrc_nd_timing t;
	struct mrc_nd_neigh n;
	struct mrc_nd_msg m;
	uint64_t now = 1000;
	static const struct rte_ether_addr other = {{0x02, 0, 0, 0, 0, 9}};

	mrc_nd_timing_defaults(&t, HZ);
	memset(&n, 0, sizeof(n));
	MRC_T_EQ(mrc_nd_neigh_tick(&n, &t, now), MRC_ND_SEND_NOTHING); /* static: never asks */
	mrc_nd_neigh_start(&n, nh_ip, now);
	MRC_T_ASSERT(!mrc_nd_neigh_usable(&n), "usable before any answer");
	MRC_T_EQ(mrc_nd_neigh_tick(&n, &t, now), MRC_ND_SEND_MULTICAST);
	MRC_T_EQ(mrc_nd_neigh_tick(&n, &t, now + HZ / 2), MRC_ND_SEND_NOTHING);
	MRC_T_EQ(mrc_nd_neigh_tick(&n, &t, now + HZ), MRC_ND_SEND_MULTICAST); /* retrans */
	/* an NA for another target teaches nothing */
	na_from_nh(&m, &nh_mac, true);
	m.target[15] = 2;
	MRC_T_ASSERT(!mrc_nd_neigh_learn(&n, &m, &t, now), "learnt another target's MAC");
	na_from_nh(&m, &nh_mac, true);
	now += HZ + 5;
	MRC_T_ASSERT(mrc_nd_neigh_learn(&n, &m, &t, now), "did not learn");
	MRC_T_EQ(n.state, MRC_ND_REACHABLE);
	MRC_T_ASSERT(mrc_nd_neigh_usable(&n) && rte_is_same_ether_addr(&n.mac, &nh_mac), "mac");
	MRC_T_U64_EQ(n.resolved, 1);
	/* quiet for the reachable time, then unicast probes, the MAC still used */
	MRC_T_EQ(mrc_nd_neigh_tick(&n, &t, now + 29 * HZ), MRC_ND_SEND_NOTHING);
	now += 30 * HZ;
	MRC_T_EQ(mrc_nd_neigh_tick(&n, &t, now), MRC_ND_SEND_UNICAST);
	MRC_T_EQ(n.state, MRC_ND_PROBE);
	MRC_T_ASSERT(mrc_nd_neigh_usable(&n), "a neighbour being confirmed is still used");
	/* an answer confirms it */
	MRC_T_ASSERT(mrc_nd_neigh_learn(&n, &m, &t, now + 10), "no confirmation");
	MRC_T_EQ(n.state, MRC_ND_REACHABLE);
	MRC_T_U64_EQ(n.resolved, 1); /* it never stopped being usable */
	/* silence: three probes a second apart, then FAILED and multicast for ever */
	now += 30 * HZ + 10;
	for (int k = 0; k < 3; k++)
		MRC_T_EQ(mrc_nd_neigh_tick(&n, &t, now + (uint64_t)k * HZ), MRC_ND_SEND_UNICAST);
	MRC_T_EQ(mrc_nd_neigh_tick(&n, &t, now + 3 * HZ), MRC_ND_SEND_MULTICAST);
	MRC_T_EQ(n.state, MRC_ND_FAILED);
	MRC_T_ASSERT(!mrc_nd_neigh_usable(&n), "a failed neighbour is not used");
	MRC_T_U64_EQ(n.failed, 1);
	MRC_T_EQ(mrc_nd_neigh_tick(&n, &t, now + 4 * HZ), MRC_ND_SEND_MULTICAST);
	/* it comes back with a new MAC, unsolicited: used, and confirmed at once */
	na_from_nh(&m, &other, false);
	now += 5 * HZ;
	MRC_T_ASSERT(mrc_nd_neigh_learn(&n, &m, &t, now), "unsolicited NA ignored");
	MRC_T_EQ(n.state, MRC_ND_PROBE);
	MRC_T_ASSERT(rte_is_same_ether_addr(&n.mac, &other), "the new MAC");
	MRC_T_U64_EQ(n.resolved, 2);
	MRC_T_EQ(mrc_nd_neigh_tick(&n, &t, now), MRC_ND_SEND_UNICAST);
	/* the same unsolicited NA again changes nothing */
	MRC_T_ASSERT(!mrc_nd_neigh_learn(&n, &m, &t, now), "repeated NA changed the entry");
	/* an NS from the neighbour with its address is heard too */
	memset(&m, 0, sizeof(m));
	m.type = MRC_ND_TYPE_NS;
	memcpy(m.src_ip, nh_ip, 16);
	memcpy(m.target, our_ip, 16);
	m.has_lladdr = true;
	m.lladdr = nh_mac;
	MRC_T_ASSERT(mrc_nd_neigh_learn(&n, &m, &t, now + 1), "NS's SLLA ignored");
	MRC_T_ASSERT(rte_is_same_ether_addr(&n.mac, &nh_mac), "the NS's MAC");
	return MRC_TEST_OK;
}

static const struct mrc_test_case cases[] = {
	MRC_TEST_CASE(test_link_local_and_group),
	MRC_TEST_CASE(test_ns_round_trip),
	MRC_TEST_CASE(test_na_round_trip),
	MRC_TEST_CASE(test_refusals),
	MRC_TEST_CASE(test_kinds),
	MRC_TEST_CASE(test_neighbour_life),
};

MRC_TEST_MAIN("nic_nd", cases)
