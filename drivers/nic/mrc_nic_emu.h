/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRC_NIC_EMU_H
#define MRC_NIC_EMU_H

/**
 * @file
 * The emulated NIC's classifier (doc/steering.md, "The emulated NIC").
 *
 * No virtual port takes rte_flow rules, so the ports the emulation owns -
 * the fabric's host ports (drivers/fabric) and the loop mode's back-to-back
 * pairs (mrc_nic_loop.h) - play the NIC: each packet goes to the rx queue
 * that a rule recorded for the receiving port (mrc_flow_ops_rec) names,
 * matching the outer IPv6 destination exactly as the NIC would. A packet no
 * rule matches is spread over the port's rx queues as a NIC's default RSS
 * does (mrc_nic_emu_rss_hash()), and counted.
 *
 * Cost per packet: a read of the first segment's headers (up to the inner
 * UDP ports), up to n 16-byte compares against the port's rules (n is the
 * port's worker count, a handful) and, unmatched, one hash of 34 bytes; no
 * allocation, no lock.
 */

#include <stdint.h>

#include <rte_mbuf.h>

#include "mrc_counters.h"
#include "mrc_flow.h"

/** Queues per port the emulation supports. */
#define MRC_NIC_MAX_QUEUES 16

/* clang-format off */
#define MRC_NIC_EMU_COUNTERS(X)                                                              \
	X(steered_pkts, "pkts", "packets a recorded rule put on the queue it names")           \
	X(rss_pkts, "pkts", "packets no rule matched: to the queue their RSS hash picks")      \
	X(unparsed_pkts, "pkts", "packets too short or not IPv6 to match or hash: to queue 0") \
	X(rx_full_pkts, "pkts", "packets whose rx queue was full (dropped, or left unsent)")    \
	X(encap_pkts, "pkts", "tx packets a recorded egress rule gave their outer header")     \
	X(encap_nomatch_pkts, "pkts", "tx packets whose encap key no rule has: sent as built") \
	X(encap_noroom_pkts, "pkts", "tx packets without headroom for their rule: sent as built")
/* clang-format on */
MRC_COUNTER_BLOCK_DECLARE(mrc_nic_emu_counters, MRC_NIC_EMU_COUNTERS);

/**
 * The RSS hash the emulated NIC spreads unmatched packets by, as a NIC with
 * RSS on IPv6/UDP, destination port only (RTE_ETH_RSS_L4_DST_ONLY), at the
 * innermost level computes it (doc/steering.md, "Default queue: RSS"):
 * over the IPv6 source and destination and the UDP destination port of the
 * innermost IPv6 header - the RoCEv2 one, past an SRv6 outer header
 * (IPv6-in-IPv6, with or without an SRH) - or of the only one in plain
 * mode. Not the source port: it carries the packet's entropy value, and
 * spreading one QP's packets over the queues reorders those its owner
 * reads against those another worker passes on, which the sender's
 * time-based loss rule takes for losses. So host pairs spread over the
 * queues, and each QP's packets stay on one. Without a UDP header the
 * addresses alone are hashed. Not the Toeplitz hash (nothing needs to
 * match a real NIC's queue choice): a multiply-xor fold, a few ns. false
 * when the frame is too short or not IPv6.
 */
bool mrc_nic_emu_rss_hash(const struct rte_mbuf *m, uint32_t *hash);

/**
 * The rx queue of each of `n` packets by `rules` (the receiving port's,
 * mrc_flow_rec_table(); NULL is none); a packet no rule matches (a rule
 * naming a queue >= n_queues counts as no match) goes to queue
 * hash % n_queues (mrc_nic_emu_rss_hash()), one not IPv6 to queue 0.
 * Counts into `c`.
 */
void mrc_nic_emu_classify(const struct mrc_flow_rec_rules *rules, struct rte_mbuf *const *pkts,
	uint16_t n, uint16_t n_queues, uint16_t *queue, struct mrc_nic_emu_counters *c);

/**
 * What the switches a back-to-back cable stands in for would do to the
 * outer destination: while the active uSID is a switch's (T0 or T1 tier)
 * and more follow, shift it away (RFC 9800) and decrement the hop limit,
 * so the packet reaches the peer with <block>:<host uSID>[:<worker uSID>]::
 * as over the fabric. Only a direct, unshared first segment is rewritten.
 */
void mrc_nic_emu_consume_switch_usids(struct rte_mbuf *m);

/**
 * The emulated NIC's tx side (doc/offload.md): each of the `n` packets
 * that carries an encap key in its tx metadata (mrc_encap_set_key()) loses
 * its L2 header and gains the header the rule of that key in `t` records
 * (the sending port's, mrc_flow_rec_encap_table(); NULL is none), with the
 * outer payload length set, as a NIC's RAW_DECAP + RAW_ENCAP does. The
 * metadata flag is cleared. A key no rule has, or a packet with too little
 * headroom in an unshared direct first segment, goes as built, counted.
 * Per packet: a flag test, a binary search over the port's rules, one
 * prepend and a copy of the header (54 bytes without VLAN or SRH);
 * nothing at all in a process that never registered the tx metadata.
 */
void mrc_nic_emu_encap(const struct mrc_flow_rec_encap *t, struct rte_mbuf *const *pkts, uint16_t n,
	struct mrc_nic_emu_counters *c);

/**
 * mrc_nic_emu_encap() with the rules recorded for `port` now, the table held
 * for the burst (mrc_flow_rec_encap_hold(): rules may change as it runs).
 */
void mrc_nic_emu_encap_port(
	uint16_t port, struct rte_mbuf *const *pkts, uint16_t n, struct mrc_nic_emu_counters *c);

#endif /* MRC_NIC_EMU_H */
