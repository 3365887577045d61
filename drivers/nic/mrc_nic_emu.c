/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/* The emulated NIC's classifier (mrc_nic_emu.h). */

#include <string.h>

#include <rte_ether.h>

#include "mrc_ev_path.h"
#include "mrc_nic_emu.h"
#include "mrc_srv6.h"

MRC_COUNTER_BLOCK_DEFINE(mrc_nic_emu_counters, MRC_NIC_EMU_COUNTERS);

#define IP6_OFF RTE_ETHER_HDR_LEN
#define DA_OFF	(IP6_OFF + 24)
#define NH_OFF	(IP6_OFF + 6)
#define HL_OFF	(IP6_OFF + 7)
#define MIN_LEN (DA_OFF + 16)
#define IP6_LEN 40
#define UDP_LEN 8

/* The outer destination of `m`, or NULL when the frame is not IPv6 or too short. */
static inline const uint8_t *
outer_da(const struct rte_mbuf *m)
{
	const uint8_t *b = rte_pktmbuf_mtod(m, const uint8_t *);

	if (unlikely(m->data_len < MIN_LEN || b[12] != 0x86 || b[13] != 0xdd ||
		     (b[IP6_OFF] >> 4) != 6))
		return NULL;
	return b + DA_OFF;
}

static inline bool
addr_eq(const uint8_t *a, const uint8_t *b)
{
	uint64_t a0, a1, b0, b1;

	memcpy(&a0, a, 8);
	memcpy(&a1, a + 8, 8);
	memcpy(&b0, b, 8);
	memcpy(&b1, b + 8, 8);
	return ((a0 ^ b0) | (a1 ^ b1)) == 0;
}

static inline uint64_t
load64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

bool
mrc_nic_emu_rss_hash(const struct rte_mbuf *m, uint32_t *hash)
{
	const uint8_t *b = rte_pktmbuf_mtod(m, const uint8_t *);
	const unsigned int len = m->data_len;
	unsigned int l3 = IP6_OFF, off = IP6_OFF + IP6_LEN;
	uint8_t nh;
	uint64_t h;

	if (unlikely(outer_da(m) == NULL))
		return false;
	nh = b[NH_OFF];
	/* An SRH (routing header), then the tunnelled packet, as the NIC's parser walks them. */
	if (nh == MRC_IPPROTO_ROUTING && off + 8 <= len) {
		nh = b[off];
		off += 8 + 8u * b[off + 1];
	}
	if (nh == MRC_IPPROTO_IPV6 && off + IP6_LEN <= len && (b[off] >> 4) == 6) {
		l3 = off;
		nh = b[off + 6];
		off += IP6_LEN;
	}
	/* Source and destination address: 32 bytes from l3 + 8. */
	h = load64(b + l3 + 8) * 0x9e3779b97f4a7c15ull;
	h ^= load64(b + l3 + 16);
	h = (h ^ (h >> 29)) * 0xbf58476d1ce4e5b9ull;
	h ^= load64(b + l3 + 24);
	h = (h ^ (h >> 29)) * 0xbf58476d1ce4e5b9ull;
	h ^= load64(b + l3 + 32);
	/* The destination port only: the source port is the EV (mrc_nic_emu.h). */
	if (nh == MRC_IPPROTO_UDP && off + UDP_LEN <= len) {
		uint16_t dport;

		memcpy(&dport, b + off + 2, 2);
		h = (h ^ (h >> 29)) * 0xbf58476d1ce4e5b9ull;
		h ^= dport;
	}
	h = (h ^ (h >> 32)) * 0x94d049bb133111ebull;
	*hash = (uint32_t)(h >> 32);
	return true;
}

void
mrc_nic_emu_classify(const struct mrc_flow_rec_rules *rules, struct rte_mbuf *const *pkts,
	uint16_t n, uint16_t n_queues, uint16_t *queue, struct mrc_nic_emu_counters *c)
{
	const unsigned int n_rules = rules != NULL ? rules->n : 0;

	for (uint16_t i = 0; i < n; i++) {
		const uint8_t *da = outer_da(pkts[i]);
		unsigned int r = 0;
		uint32_t h;

		queue[i] = 0;
		if (unlikely(da == NULL)) {
			c->unparsed_pkts++;
			continue;
		}
		while (r < n_rules && !addr_eq(da, rules->dst[r]))
			r++;
		if (r < n_rules && rules->queue[r] < n_queues) {
			queue[i] = rules->queue[r];
			c->steered_pkts++;
			continue;
		}
		/* No rule: RSS. (outer_da() passed, so the hash does.) */
		(void)mrc_nic_emu_rss_hash(pkts[i], &h);
		queue[i] = n_queues > 1 ? (uint16_t)(h % n_queues) : 0;
		c->rss_pkts++;
	}
}

void
mrc_nic_emu_consume_switch_usids(struct rte_mbuf *m)
{
	uint8_t *b = rte_pktmbuf_mtod(m, uint8_t *);
	uint8_t *da;

	/* SRv6 only (next header IPv6 or SRH): a plain packet's DA is a NIC address. */
	if (!RTE_MBUF_DIRECT(m) || rte_mbuf_refcnt_read(m) != 1 || outer_da(m) == NULL ||
		(b[NH_OFF] != MRC_IPPROTO_IPV6 && b[NH_OFF] != MRC_IPPROTO_ROUTING))
		return;
	da = b + DA_OFF;
	for (;;) {
		const uint16_t active = mrc_usid_active(da);
		const unsigned int tier = (active >> 8) & 0xf;

		if (active == 0 || (tier != MRC_USID_TIER_T0 && tier != MRC_USID_TIER_T1))
			return;
		if (da[6] == 0 && da[7] == 0) /* nothing after it: the path ended at a switch */
			return;
		(void)mrc_usid_shift(da);
		if (b[HL_OFF] > 1)
			b[HL_OFF]--;
	}
}
