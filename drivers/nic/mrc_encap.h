/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRC_ENCAP_H
#define MRC_ENCAP_H

/**
 * @file
 * SRv6 encapsulation by the NIC (doc/offload.md).
 *
 * In offload mode the worker builds a packet without its outer IPv6 header
 * and SRH (MRC_PKT_F_NIC_ENCAP, lib/wire): Ethernet straight over the
 * RoCEv2 IPv6 header. It puts a 32-bit key in the mbuf's rte_flow tx
 * metadata, and one egress rule per key swaps the L2 header for L2 + outer
 * IPv6 [+ SRH]:
 *
 *   egress  pattern META data is <key> (mask: all 32 bits) / END
 *           actions RAW_DECAP size <L2 length> /
 *                   RAW_ENCAP data <L2 + outer IPv6 [+ SRH]> / END
 *
 * (RAW_DECAP then RAW_ENCAP is rte_flow's "L3 encapsulation": the L2 header
 * goes, a new one comes with the tunnel header after it.) The rule bytes are
 * what mrc_pkt_encap_hdr() writes for one packet of the key, outer payload
 * length 0: the NIC sets it per packet.
 *
 * Every call goes through a struct mrc_flow_ops (mrc_flow.h); the recording
 * backend keeps the rules for the emulated NIC, which applies them on the
 * ports the emulation owns (mrc_nic_emu_encap()).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_flow.h>
#include <rte_mbuf.h>

#include "mrc_flow.h"

/** Most bytes a rule adds: L2 with VLAN, outer IPv6, an SRH of 8 segments. */
#define MRC_ENCAP_MAX_LEN 256

/** An encap rule in rte_flow form; mrc_encap_rule_build() fills it. */
struct mrc_encap_rule {
	struct rte_flow_attr attr;
	struct rte_flow_item pattern[2];   /**< META, END */
	struct rte_flow_action actions[3]; /**< RAW_DECAP, RAW_ENCAP, END */
	struct rte_flow_item_meta meta_spec, meta_mask;
	struct rte_flow_action_raw_decap decap;
	struct rte_flow_action_raw_encap encap;
	uint8_t bytes[MRC_ENCAP_MAX_LEN];
};

/**
 * The L2 length of encap header bytes `hdr` (`len` long): 14, or 18 with a
 * VLAN tag; 0 when they are not Ethernet [802.1Q] then IPv6.
 */
size_t mrc_encap_l2_len(const uint8_t *hdr, size_t len);

/**
 * Fill `r` to give packets with tx metadata `key` the header `hdr` (`len`
 * bytes: L2, outer IPv6, SRH; from mrc_pkt_encap_hdr()) in place of their
 * L2 header. @return 0, or -EINVAL: `hdr` is not L2 + IPv6 or too long.
 */
int mrc_encap_rule_build(struct mrc_encap_rule *r, uint32_t key, const uint8_t *hdr, size_t len);

/** Create the rule on `port` through `ops`: the rule, or NULL and *err. */
struct mrc_flow *mrc_encap_install(const struct mrc_flow_ops *ops, uint16_t port, uint32_t key,
	const uint8_t *hdr, size_t len, struct mrc_flow_err *err);

/**
 * Can `port` encapsulate on egress? Registers the tx metadata field
 * (mrc_encap_meta_register()), creates a rule for `key` and `hdr` and
 * destroys it again. @return 0: it can; -errno with err->msg saying why
 * (the driver's words, or the metadata registration's). A rule created
 * but not destroyable is -EIO.
 */
int mrc_encap_probe(const struct mrc_flow_ops *ops, uint16_t port, uint32_t key, const uint8_t *hdr,
	size_t len, struct mrc_flow_err *err);

/** Register rte_flow's metadata mbuf field and flag (once per process). 0 or -errno. */
int mrc_encap_meta_register(void);

/** Mark `m` for the encap rule of `key` (the metadata field is registered). */
static inline void
mrc_encap_set_key(struct rte_mbuf *m, uint32_t key)
{
	*RTE_FLOW_DYNF_METADATA(m) = key;
	m->ol_flags |= RTE_MBUF_DYNFLAG_TX_METADATA;
}

/** The key `m` carries: true and *key, or false (no tx metadata). */
static inline bool
mrc_encap_get_key(const struct rte_mbuf *m, uint32_t *key)
{
	if (rte_flow_dynf_metadata_mask == 0 || !(m->ol_flags & RTE_MBUF_DYNFLAG_TX_METADATA))
		return false;
	*key = *RTE_MBUF_DYNFIELD(m, rte_flow_dynf_metadata_offs, const uint32_t *);
	return true;
}

#endif /* MRC_ENCAP_H */
