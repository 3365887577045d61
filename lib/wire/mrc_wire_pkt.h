/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRC_WIRE_PKT_H
#define MRC_WIRE_PKT_H

/**
 * @file
 * The packet codec: a host-order view of every MRC header (struct mrc_pkt),
 * a parser that fills it from an mbuf chain or names why it refused, a
 * builder that writes headers in place in front of a payload that is
 * already in the mbuf (never copying it), and a one-line formatter.
 *
 * The same struct is the parser's output and the builder's input, so
 * build -> parse -> build reproduces the bytes exactly; reserved bits are
 * written as zero and ignored on receive, as IBTA asks.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_ether.h>
#include <rte_mbuf.h>

#include "mrc_wire.h"

#define MRC_IPV6_ADDR_LEN 16
/** Most SRH segments (uSID containers) we build or accept. */
#define MRC_SRH_MAX_SEGS 8

/**
 * Where the 32-bit EV travels. Public sources disagree, so it is a knob
 * (doc/protocol.md, "Where the EV travels"). Either way the other 16 bits
 * ride in the low 16 bits of the outermost IPv6 flow label; its top 4 bits
 * are not EV.
 */
enum mrc_ev_split {
	/** Default: EV[15:0] in the UDP source port, EV[31:16] in the flow label. */
	MRC_EV_SPLIT_SPORT_LOW = 0,
	/** EV[31:16] in the UDP source port, EV[15:0] in the flow label. */
	MRC_EV_SPLIT_SPORT_HIGH = 1,
};

/** How SACK bitmap "bit i" maps onto the 64-bit big-endian field (doc/protocol.md, SETH). */
enum mrc_sack_bit_order {
	/** Default: bit i is the i-th least significant bit (PSN base + 0 is the LSB). */
	MRC_SACK_BIT_LSB0 = 0,
	/** Bit i is the i-th most significant bit (PSN base + 0 is the MSB). */
	MRC_SACK_BIT_MSB0 = 1,
};

/**
 * DSCP code points; operators choose them (doc/protocol.md, "Traffic classes,
 * DSCP and trimming"). Defaults are the values one public emulator uses:
 * no_trim 0, trimmable 4, trimmable_retx 8, trimmed 12, trimmed_lasthop 16,
 * control 46 (EF).
 */
struct mrc_dscp_map {
	uint8_t no_trim;	 /**< data when the fabric cannot trim */
	uint8_t trimmable;	 /**< data and reliability probes */
	uint8_t trimmable_retx;	 /**< retransmitted data */
	uint8_t trimmed;	 /**< set by a switch that cut the payload */
	uint8_t trimmed_lasthop; /**< set by the last-hop switch that cut the payload */
	uint8_t control;	 /**< SACK, NACK, ACK, endpoint operations */
};

struct mrc_wire_cfg {
	struct mrc_dscp_map dscp;
	enum mrc_ev_split ev_split;
	enum mrc_sack_bit_order sack_bit_order;
	/** Verify the ICRC of received packets (a NIC that checks it may turn this off). */
	bool verify_icrc;
	/**
	 * Compute the UDP checksum on build. Off by default: RoCEv2 NICs send 0 and
	 * rely on the ICRC, which covers more; RFC 6936 permits it for tunnels.
	 */
	bool udp_checksum;
};

/** Fill `cfg` with the documented defaults. */
void mrc_wire_cfg_defaults(struct mrc_wire_cfg *cfg);

/** Validate a configuration: DSCPs 0..63 and distinct where they must be. 0 or -EINVAL. */
int mrc_wire_cfg_check(const struct mrc_wire_cfg *cfg, const char **why);

/**
 * Why the parser refused a packet. Callers count these by reason; nothing
 * from the wire is ever trusted past a reject.
 */
#define MRC_WIRE_REJECTS(X)                                                                     \
	X(TRUNCATED, truncated, "frame ends inside a header or before the length it declares")  \
	X(BAD_ETHERTYPE, bad_ethertype, "EtherType (after an optional VLAN tag) is not IPv6")   \
	X(BAD_IP_VERSION, bad_ip_version, "IP version field is not 6")                          \
	X(BAD_NEXT_HEADER, bad_next_header,                                                     \
		"IPv6 next header is not IPv6, SRH or UDP where needed")                        \
	X(BAD_ROUTING_TYPE, bad_routing_type, "routing header is not a Segment Routing Header") \
	X(MALFORMED_SRH, malformed_srh, "SRH length, last entry or segments left inconsistent") \
	X(NOT_ROCE, not_roce, "UDP destination port is not 4791")                               \
	X(LENGTH_MISMATCH, length_mismatch, "IPv6, UDP and frame lengths disagree")             \
	X(BAD_TVER, bad_tver, "BTH transport version is not 0")                                 \
	X(UNKNOWN_OPCODE, unknown_opcode, "BTH opcode is not an MRC opcode")                    \
	X(BAD_PAD, bad_pad, "BTH pad count exceeds the payload or is set on a control packet")  \
	X(BAD_SACK_VERDICT, bad_sack_verdict,                                                   \
		"SETH multipath verdict M uses the reserved value 3")                           \
	X(UNKNOWN_NACK_REASON, unknown_nack_reason, "NETH reason code is not one MRC defines")  \
	X(BAD_EP_OP, bad_ep_op, "endpoint operation code is reserved")                          \
	X(BAD_EP_QPN, bad_ep_qpn, "endpoint operation not addressed to QPN 2")                  \
	X(BAD_ICRC, bad_icrc, "invariant CRC does not match the packet")

enum mrc_wire_rx {
	MRC_WIRE_OK = 0,
#define MRC_WIRE_REJECT_ENUM(up, low, help) MRC_WIRE_##up,
	MRC_WIRE_REJECTS(MRC_WIRE_REJECT_ENUM)
#undef MRC_WIRE_REJECT_ENUM
		MRC_WIRE_REJECT_MAX,
};

/**
 * Parse verdicts counted per lcore: the receive loop does
 * `stats->pkts[mrc_pkt_parse(...)]++`, one branchless increment whatever the
 * verdict; readers sum the blocks of all lcores and name entries with
 * mrc_wire_reject_name()/mrc_wire_reject_help(). Cache-line aligned so two
 * lcores' blocks never share a line.
 */
struct mrc_wire_rx_stats {
	uint64_t pkts[MRC_WIRE_REJECT_MAX]; /**< index: enum mrc_wire_rx */
} __rte_cache_aligned;

/** acc += blk, verdict by verdict. */
static inline void
mrc_wire_rx_stats_add(struct mrc_wire_rx_stats *acc, const struct mrc_wire_rx_stats *blk)
{
	for (int i = 0; i < MRC_WIRE_REJECT_MAX; i++)
		acc->pkts[i] += __atomic_load_n(&blk->pkts[i], __ATOMIC_RELAXED);
}

/** Short name ("truncated", ...) of a reject reason; "ok" for MRC_WIRE_OK. */
const char *mrc_wire_reject_name(enum mrc_wire_rx reason);
/** One-sentence explanation of a reject reason. */
const char *mrc_wire_reject_help(enum mrc_wire_rx reason);

/** IPv6 header, host order. */
struct mrc_ip6_view {
	uint8_t src[MRC_IPV6_ADDR_LEN];
	uint8_t dst[MRC_IPV6_ADDR_LEN];
	uint32_t flow_label;  /**< 20 bits as on the wire (EV bits included) */
	uint16_t payload_len; /**< parse only: the build computes it */
	uint8_t dscp;
	uint8_t ecn;
	uint8_t hop_limit;
};

/** ECN code points (RFC 3168). */
enum mrc_ecn {
	MRC_ECN_NOT_ECT = 0,
	MRC_ECN_ECT1 = 1,
	MRC_ECN_ECT0 = 2,
	MRC_ECN_CE = 3,
};

/** RFC 8754 SRH, host order; segs[] in wire order (segs[0] is the last segment). */
struct mrc_srh_view {
	uint8_t n_segs; /**< last_entry + 1 */
	uint8_t segments_left;
	uint8_t flags;
	uint16_t tag;
	uint16_t tlv_len; /**< parse only: bytes of TLVs after the list (skipped, not rebuilt) */
	uint8_t segs[MRC_SRH_MAX_SEGS][MRC_IPV6_ADDR_LEN];
};

struct mrc_bth_view {
	uint8_t opcode;
	uint8_t pad;  /**< PadCnt: parse only, the build derives it from the payload */
	uint8_t tver; /**< parse only: always 0 when accepted */
	bool se;
	bool migreq;
	bool fecn;
	bool becn;
	bool ackreq;
	bool rtx; /**< MRC: this packet is a retransmission */
	bool ts;  /**< MRC: a TSETH follows */
	uint16_t pkey;
	uint32_t dqpn; /**< 24 bits */
	uint32_t psn;  /**< 24 bits */
};

struct mrc_tseth_view {
	uint16_t ts;
	bool tsr;
	uint8_t ftype;
};

/** Data packets: METH, optional TSETH, RETH, optional ImmDt. */
struct mrc_data_view {
	uint16_t rqmsn;
	uint16_t msn;
	uint64_t va;
	uint32_t rkey;
	uint32_t dma_len;
	uint32_t imm; /**< valid for *_IMM opcodes */
};

struct mrc_aeth_view {
	uint8_t syndrome;
	uint32_t msn; /**< 24 bits */
};

/** The first two bytes of SETH/NETH/PETH: UET PDS prologue, echoed. */
struct mrc_pds_view {
	uint8_t type;	  /**< 4 bits */
	uint8_t next_hdr; /**< 5 bits */
};

struct mrc_sack_view {
	struct mrc_pds_view pds;
	uint8_t m; /**< enum mrc_sack_m */
	bool pr;   /**< answers a reliability probe */
	int16_t ack_psn_offset;
	uint32_t entropy;
	uint16_t spdcid;
	uint16_t dpdcid;
	uint32_t cack_psn; /**< 24 bits */
	uint8_t cc_type;   /**< 4 bits */
	uint8_t cc_flags;  /**< 4 bits */
	uint8_t mpr;
	int16_t sack_offset;
	/** Bit i (LSB = 0) is PSN cack_psn + sack_offset + i, whatever the wire order. */
	uint64_t sack_bitmap;
	/* CC_STATE */
	uint16_t ts_echo;
	uint16_t ooo_count; /**< 15 bits */
	bool rc;
	uint8_t cwnd_pen;    /**< 7 bits */
	uint32_t rcvd_bytes; /**< 24 bits, units of MRC_CC_RCVD_BYTES_UNIT */
};

struct mrc_nack_view {
	struct mrc_pds_view pds;
	uint8_t reason; /**< enum mrc_nack_reason */
	uint8_t vendor;
	uint32_t entropy;
	uint16_t spdcid;
	uint16_t dpdcid;
	uint32_t nack_psn; /**< 24 bits */
	uint8_t cc_type;
	uint8_t cc_flags;
	uint16_t ts_echo;
};

struct mrc_probe_view {
	struct mrc_pds_view pds;
	uint8_t vendor;
	uint16_t probe_id;
	uint16_t spdcid;
	uint16_t dpdcid;
	uint16_t ts;
	bool tsr;
	uint8_t ftype;
};

/** ERTH (request) and EETH (response) share this view. */
struct mrc_ep_view {
	uint8_t op; /**< enum mrc_ep_op */
	uint8_t vendor;
	uint16_t req_id;
	uint32_t port_status_mask;
	uint32_t epoch; /**< request only: the sender's epoch (our choice, doc/protocol.md) */
	uint16_t ts;	/**< request: tx timestamp; response: echoed */
	bool tsr;
	uint8_t ftype;
	/* response only */
	bool svc_valid;
	uint32_t svc_time_ns;
	/* op MRC_EP_OP_FLOW_RECOVER only: its EFRH */
	struct mrc_ep_rec {
		uint8_t kind;	/**< enum mrc_ep_rec_kind */
		uint8_t status; /**< 0, or the answerer's why not */
		uint16_t life;
		uint32_t flow;
		uint32_t spare;
		uint64_t seq;
	} rec;
};

/** Packet flags. */
#define MRC_PKT_F_VLAN		  (1u << 0) /**< an 802.1Q tag follows the MACs */
#define MRC_PKT_F_SRV6		  (1u << 1) /**< outer IPv6 (uSID DA) over the inner IPv6 */
#define MRC_PKT_F_SRH		  (1u << 2) /**< an SRH follows the outer IPv6 (needs SRV6) */
#define MRC_PKT_F_TRIMMED	  (1u << 3) /**< parse: DSCP says a switch cut the payload */
#define MRC_PKT_F_TRIMMED_LASTHOP (1u << 4) /**< parse: ... and it was the last hop */
/**
 * build, with SRV6: the NIC adds the outer IPv6 header (and SRH) by an
 * egress encap rule (doc/offload.md): the builder writes the L2 header
 * straight over the inner IPv6 and leaves the outer ones out. The inner
 * packet and its ICRC are those of the software build.
 */
#define MRC_PKT_F_NIC_ENCAP (1u << 5)

/** Host-order view of one MRC packet. */
struct mrc_pkt {
	uint32_t flags; /**< MRC_PKT_F_* */
	uint32_t ev;	/**< entropy value, from (or written to) UDP sport + flow label */

	struct rte_ether_addr eth_dst;
	struct rte_ether_addr eth_src;
	uint16_t vlan_tci;

	struct mrc_ip6_view outer; /**< valid with MRC_PKT_F_SRV6 */
	struct mrc_srh_view srh;   /**< valid with MRC_PKT_F_SRH */
	struct mrc_ip6_view ip;	   /**< the inner (or only) IPv6 header */

	uint16_t udp_sport; /**< parse only: the build derives it from ev */
	uint16_t udp_len;   /**< parse only */
	uint16_t udp_csum;  /**< parse only */

	struct mrc_bth_view bth;
	struct mrc_tseth_view tseth; /**< valid when bth.ts (data packets) */
	union {
		struct mrc_data_view data;
		struct mrc_aeth_view aeth;
		struct mrc_sack_view sack;
		struct mrc_nack_view nack;
		struct mrc_probe_view probe;
		struct mrc_ep_view ep;
	};

	/* parse only */
	uint16_t l3_off;      /**< offset of the outermost IPv6 header */
	uint16_t inner_off;   /**< offset of the inner (ICRC-covered) IPv6 header */
	uint16_t bth_off;     /**< offset of the BTH */
	uint32_t payload_off; /**< offset of the payload (data packets) */
	uint32_t payload_len; /**< payload bytes (0 for control and trimmed packets) */
	uint32_t icrc;	      /**< the ICRC as received (CRC value, host order) */
};

/** True for the six RDMA WRITE opcodes. */
static inline bool
mrc_opcode_is_data(uint8_t op)
{
	return op >= MRC_OP_WRITE_FIRST && op <= MRC_OP_WRITE_ONLY_IMM;
}

/** True for WRITE_LAST_IMM and WRITE_ONLY_IMM. */
static inline bool
mrc_opcode_has_imm(uint8_t op)
{
	return op == MRC_OP_WRITE_LAST_IMM || op == MRC_OP_WRITE_ONLY_IMM;
}

/** Name of an opcode ("WRITE_FIRST", ...) or NULL when it is not MRC's. */
const char *mrc_opcode_name(uint8_t op);

/** Name of a NACK reason ("TRIMMED", ...) or NULL when unknown. */
const char *mrc_nack_reason_name(uint8_t reason);

/**
 * Bytes of transport headers from the BTH through the last extension header
 * (not the payload, pad or ICRC) for `opcode`; 0 when the opcode is unknown.
 */
size_t mrc_transport_hdr_len(uint8_t opcode, bool ts);

/** The same for a packet to build: an endpoint flow recovery adds its EFRH. */
size_t mrc_pkt_transport_len(const struct mrc_pkt *pkt);

/** Bytes in front of the BTH that mrc_pkt_build() writes for `pkt` (L2 + IPv6 [+ SRH] + UDP). */
size_t mrc_pkt_outer_hdr_len(const struct mrc_pkt *pkt);

/** Total header bytes mrc_pkt_build() prepends for `pkt`. */
size_t mrc_pkt_hdr_len(const struct mrc_pkt *pkt);

/**
 * The bytes an egress encap rule adds for `pkt` (SRv6 mode): its L2 header
 * (with VLAN), outer IPv6 header and SRH exactly as mrc_pkt_build() writes
 * them, except the outer payload length, which is 0 (the NIC sets it per
 * packet). The EV's flow-label half is in the outer flow label, so the
 * bytes are those of one (path, EV flow-label half, traffic class):
 * doc/offload.md, "Which rule a packet takes".
 * @return the length written (L2 + outer), or 0: not SRv6, or `size` too small.
 */
size_t mrc_pkt_encap_hdr(
	const struct mrc_pkt *pkt, const struct mrc_wire_cfg *cfg, uint8_t *buf, size_t size);

/**
 * Parse the packet in `m` (chained mbufs allowed) into `pkt`.
 * Every length is checked against the mbuf before it is used.
 * @return MRC_WIRE_OK, or the reason the packet was refused (`pkt` is then
 *   partly filled and must not be used).
 */
enum mrc_wire_rx mrc_pkt_parse(
	const struct rte_mbuf *m, const struct mrc_wire_cfg *cfg, struct mrc_pkt *pkt);

/**
 * Parse `len` bytes of a flat buffer (a pcap record, a fuzz input) as
 * mrc_pkt_parse() would parse an mbuf holding them. The offsets in `pkt`
 * are offsets into `buf`.
 */
enum mrc_wire_rx mrc_pkt_parse_buf(
	const void *buf, uint16_t len, const struct mrc_wire_cfg *cfg, struct mrc_pkt *pkt);

/**
 * The BTH's destination QP of the packet in `m`, read in place without a
 * parse (mrc_wire_peek.c): true when the first segment holds Ethernet
 * (one VLAN tag at most), IPv6 (an SRH and an inner IPv6 header, or the
 * inner IPv6 header alone, in SRv6 mode), UDP to port 4791 and a BTH.
 * Nothing else is checked: the packet may still be refused by
 * mrc_pkt_parse(), but never as one that is not MRC (BAD_ETHERTYPE,
 * BAD_NEXT_HEADER, NOT_ROCE). When mrc_pkt_parse() accepts a packet whose
 * headers are in its first segment, this finds the same dqpn.
 */
bool mrc_pkt_peek_dqpn(const struct rte_mbuf *m, uint32_t *dqpn);

/**
 * Build an MRC packet around the payload already in `m`.
 *
 * `m` holds exactly the payload (pkt_len bytes, possibly 0, possibly a chain
 * whose segments attach external memory). The headers described by `pkt`
 * are prepended into the first segment's headroom; the pad and the ICRC are
 * appended to the last segment when it is a direct, unshared mbuf with room,
 * otherwise to `trailer` (an empty mbuf the caller supplies), which is then
 * chained. The payload is never copied or written.
 *
 * @return 0; -EINVAL if `pkt` is inconsistent (unknown opcode, SRH without
 *   SRv6, too many segments, payload on a control packet, > 65535 bytes);
 *   -ENOSPC if the headroom is too small, or the trailer is needed but absent
 *   or full. On error `m` is unchanged.
 */
int mrc_pkt_build(struct rte_mbuf *m, const struct mrc_pkt *pkt, const struct mrc_wire_cfg *cfg,
	struct rte_mbuf *trailer);

/**
 * Format `pkt` as one line (no newline) into `buf`.
 * @return the length the full line needs, like snprintf.
 */
int mrc_pkt_format(char *buf, size_t size, const struct mrc_pkt *pkt);

/** The EV recovered from a UDP source port and a (20-bit) flow label. */
static inline uint32_t
mrc_ev_from_fields(uint16_t sport, uint32_t flow_label, enum mrc_ev_split split)
{
	uint32_t fl16 = flow_label & 0xffff;

	if (split == MRC_EV_SPLIT_SPORT_HIGH)
		return ((uint32_t)sport << 16) | fl16;
	return (fl16 << 16) | sport;
}

/** The UDP source port that carries `ev`. */
static inline uint16_t
mrc_ev_sport(uint32_t ev, enum mrc_ev_split split)
{
	return split == MRC_EV_SPLIT_SPORT_HIGH ? (uint16_t)(ev >> 16) : (uint16_t)ev;
}

/** The 16 EV bits that ride in the low bits of the flow label. */
static inline uint16_t
mrc_ev_flow_bits(uint32_t ev, enum mrc_ev_split split)
{
	return split == MRC_EV_SPLIT_SPORT_HIGH ? (uint16_t)ev : (uint16_t)(ev >> 16);
}

#endif /* MRC_WIRE_PKT_H */
