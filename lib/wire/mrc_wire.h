/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRC_WIRE_H
#define MRC_WIRE_H

/**
 * @file
 * Every header MRC puts on the wire, as packed big-endian structs.
 *
 * A data packet in SRv6 mode (doc/protocol.md, "Stacks"):
 *
 *   Eth [VLAN] | outer IPv6 (DA = uSID container) [| SRH type 4]
 *     | inner IPv6 (DA = destination NIC) | UDP (dport 4791, sport = EV bits)
 *     | BTH | METH | [TSETH] | RETH | [ImmDt] | payload | pad | ICRC
 *
 * In structured-EV ("plain") mode the outer IPv6 and SRH are absent.
 * Control packets carry BTH plus one of AETH, SETH+CC_STATE, NETH, PETH,
 * ERTH or EETH, then the ICRC.
 *
 * Byte layouts of the MRC-specific headers follow the public descriptions of
 * MRC (doc/protocol.md, "Packets"); where they leave a choice to us (the EV
 * split, SACK bitmap bit order, ERTH/EETH details) the choice is written next
 * to the field and, where it matters for interop, is a knob in struct
 * mrc_wire_cfg. Multi-byte fields are big-endian (network order); only
 * lib/wire converts them.
 */

#include <assert.h>
#include <stdint.h>

#include <rte_byteorder.h>
#include <rte_common.h>

#define MRC_ROCEV2_UDP_PORT 4791
#define MRC_ICRC_LEN	    4
/** Reserved QPN of the endpoint (node-scope) operations, doc/protocol.md "ERTH and EETH". */
#define MRC_EP_QPN 0x000002u

/** IPv6 next-header values used by MRC. */
#define MRC_IPPROTO_UDP	    17
#define MRC_IPPROTO_IPV6    41
#define MRC_IPPROTO_ROUTING 43
/** RFC 8754 routing type of the Segment Routing Header. */
#define MRC_SRH_ROUTING_TYPE 4

/*
 * BTH, 12 bytes (IBTA; MRC flags in byte 8, doc/protocol.md "BTH, 12 bytes"):
 *
 *  0               1               2               3
 *  0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7
 * +---------------+-+-+---+-------+-------------------------------+
 * |    OpCode     |S|M|Pad| TVer  |            P_Key              |
 * +---------------+-+-+---+-------+-------------------------------+
 * |F|B| reserved  |             Destination QP (24)               |
 * +-+-+-+-+-------+-----------------------------------------------+
 * |A|r|R|T| rsvd  |                 PSN (24)                      |
 * +-+-+-+-+-------+-----------------------------------------------+
 *   A = AckReq, R = RTX (retransmission), T = TS (a TSETH follows)
 */
struct mrc_bth {
	uint8_t opcode;
	uint8_t flags; /**< SE | MigReq | PadCnt | TVer */
	rte_be16_t pkey;
	rte_be32_t fb_dqpn;   /**< FECN | BECN | rsvd(6) | DestQP(24) */
	rte_be32_t flags_psn; /**< AckReq | rsvd | RTX | TS | rsvd(4) | PSN(24) */
} __rte_packed;
static_assert(sizeof(struct mrc_bth) == 12, "BTH is 12 bytes");

#define MRC_BTH_SE	     0x80
#define MRC_BTH_MIGREQ	     0x40
#define MRC_BTH_PAD_SHIFT    4
#define MRC_BTH_PAD_MASK     0x30
#define MRC_BTH_TVER_MASK    0x0f
#define MRC_BTH_FECN	     0x80000000u
#define MRC_BTH_BECN	     0x40000000u
#define MRC_BTH_QPN_MASK     0x00ffffffu
#define MRC_BTH_ACKREQ	     0x80000000u
#define MRC_BTH_RTX	     0x20000000u
#define MRC_BTH_TS	     0x10000000u
#define MRC_BTH_PSN_MASK     0x00ffffffu
#define MRC_BTH_DEFAULT_PKEY 0xffff

/** MRC opcodes (doc/protocol.md, "Opcodes"): RC opcodes moved into the 0xC0 range. */
enum mrc_opcode {
	MRC_OP_WRITE_FIRST = 0xC6,
	MRC_OP_WRITE_MIDDLE = 0xC7,
	MRC_OP_WRITE_LAST = 0xC8,
	MRC_OP_WRITE_LAST_IMM = 0xC9,
	MRC_OP_WRITE_ONLY = 0xCA,
	MRC_OP_WRITE_ONLY_IMM = 0xCB,
	MRC_OP_ACK = 0xD1,
	MRC_OP_EP_REQUEST = 0xD8,
	MRC_OP_EP_RESPONSE = 0xD9,
	MRC_OP_SACK = 0xDC,
	MRC_OP_NACK = 0xDD,
	MRC_OP_PROBE = 0xDE,
};

/*
 * METH, 4 bytes, in every request (data) packet:
 * +-------------------------------+-------------------------------+
 * |           RQMSN (16)          |            MSN (16)           |
 * +-------------------------------+-------------------------------+
 */
struct mrc_meth {
	rte_be16_t rqmsn; /**< receive-queue MSN: counts Write-with-IMM messages */
	rte_be16_t msn;	  /**< message sequence number */
} __rte_packed;
static_assert(sizeof(struct mrc_meth) == 4, "METH is 4 bytes");

/*
 * TSETH, 4 bytes, present iff BTH.TS:
 * +-------------------------------+-+-------------+-------+-------+
 * |       tx timestamp (16)       |R|       reserved      | FTYPE |
 * +-------------------------------+-+-------------+-------+-------+
 *   R = TSR (timestamp resolution flag, implementation defined)
 */
struct mrc_tseth {
	rte_be16_t ts;
	rte_be16_t tsr_ftype; /**< TSR(1) | rsvd(11) | FTYPE(4) */
} __rte_packed;
static_assert(sizeof(struct mrc_tseth) == 4, "TSETH is 4 bytes");

#define MRC_TSR_FLAG	  0x8000
#define MRC_FTYPE_MASK	  0x000f
#define MRC_FTYPE_DEFAULT 1

/* RETH, 16 bytes, in every MRC data packet: VA(64) | R_Key(32) | DMA length(32). */
struct mrc_reth {
	rte_be64_t va;
	rte_be32_t rkey;
	rte_be32_t dma_len;
} __rte_packed;
static_assert(sizeof(struct mrc_reth) == 16, "RETH is 16 bytes");

/* ImmDt, 4 bytes, only in the *_IMM opcodes. */
struct mrc_immdt {
	rte_be32_t imm;
} __rte_packed;
static_assert(sizeof(struct mrc_immdt) == 4, "ImmDt is 4 bytes");

/* AETH, 4 bytes: syndrome(8) | MSN(24) (IBTA). */
struct mrc_aeth {
	rte_be32_t syn_msn;
} __rte_packed;
static_assert(sizeof(struct mrc_aeth) == 4, "AETH is 4 bytes");

#define MRC_AETH_MSN_MASK 0x00ffffffu

/* AETH syndrome (IBTA): type in the top 3 bits, a credit count, RNR timer or NAK code below. */
#define MRC_AETH_TYPE_MASK	   0xe0u
#define MRC_AETH_CODE_MASK	   0x1fu
#define MRC_AETH_ACK		   0x00u /* ACK (low 5 bits: credits, 0x1f = unlimited) */
#define MRC_AETH_RNR_NAK	   0x20u /* receiver not ready: MRC has no RNR */
#define MRC_AETH_NAK		   0x60u /* NAK, code in the low 5 bits: */
#define MRC_AETH_NAK_PSN_SEQ	   0x00u /*   PSN sequence error */
#define MRC_AETH_NAK_INVALID_REQ   0x01u /*   invalid request */
#define MRC_AETH_NAK_REMOTE_ACCESS 0x02u /*   remote access error */
#define MRC_AETH_NAK_REMOTE_OP	   0x03u /*   remote operational error */

/*
 * The first two bytes of SETH, NETH and PETH (inherited from UET's PDS
 * prologue): type(4) | next header(5) | rest. Carried and echoed, unused by
 * MRC today.
 *
 * SETH (reliability SACK), 28 bytes, followed by CC_STATE:
 *  0               1               2               3
 * +-------+-------+-+---+-----+-+-+-------------------------------+
 * | type  | nh4..1|n| M | rsvd|P|r|      ack_psn_offset (s16)     |
 * +-------+-------+-+---+-----+-+-+-------------------------------+
 * |                      entropy (EV, 32)                         |
 * +-------------------------------+-------------------------------+
 * |            SPDCID             |            DPDCID             |
 * +---------------+---------------+-------------------------------+
 * |   reserved    |                 cack_psn (24)                 |
 * +-------+-------+---------------+-------------------------------+
 * |cc_type|ccflags|     MPR       |       sack_offset (s16)       |
 * +-------+-------+---------------+-------------------------------+
 * |                      sack_bitmap (64)                         |
 * +                                                               +
 * |                                                               |
 * +---------------------------------------------------------------+
 *   M = multipath verdict (NONE, SKIP_ONCE, ALWAYS_SKIP); P = PR, this SACK
 *   answers a reliability probe. The PSN that triggered the SACK is
 *   cack_psn + ack_psn_offset; bitmap bit i is PSN cack_psn + sack_offset + i,
 *   with "bit i" numbered per mrc_wire_cfg.sack_bit_order (mrc_wire_pkt.h).
 */
struct mrc_seth {
	rte_be16_t hdr;		   /**< type(4) | nh(5) | M(2) | rsvd(3) | PR(1) | rsvd(1) */
	rte_be16_t ack_psn_offset; /**< signed */
	rte_be32_t entropy;
	rte_be16_t spdcid;
	rte_be16_t dpdcid;
	rte_be32_t cack_psn; /**< rsvd(8) | cack_psn(24) */
	uint8_t cc_type_flags;
	uint8_t mpr;		/**< responder max PSN range, units of 128 PSNs */
	rte_be16_t sack_offset; /**< signed */
	rte_be64_t sack_bitmap;
} __rte_packed;
static_assert(sizeof(struct mrc_seth) == 28, "SETH is 28 bytes");

#define MRC_PDS_TYPE_SHIFT 12
#define MRC_PDS_TYPE_MASK  0xf000
#define MRC_PDS_NH_SHIFT   7
#define MRC_PDS_NH_MASK	   0x0f80
#define MRC_SETH_M_SHIFT   5
#define MRC_SETH_M_MASK	   0x0060
#define MRC_SETH_PR	   0x0002
#define MRC_MPR_UNIT_PSNS  128

/** SACK multipath verdict (SETH.M). */
enum mrc_sack_m {
	MRC_SACK_M_NONE = 0,
	MRC_SACK_M_SKIP_ONCE = 1,
	MRC_SACK_M_ALWAYS_SKIP = 2,
	/* 3 is reserved and rejected. */
};

/*
 * CC_STATE, 8 bytes, after SETH:
 * +-------------------------------+-+-----------------------------+
 * |   echoed tx timestamp (16)    |r|   out-of-order count (15)   |
 * +-+-------------+---------------+-+-----------------------------+
 * |C| cwnd pen (7)|          received bytes (24)                  |
 * +-+-------------+-----------------------------------------------+
 *   C = R_C (restore cwnd after the penalty); received bytes count in
 *   units of MRC_CC_RCVD_BYTES_UNIT (our choice: doc/protocol.md, "Choices
 *   left open").
 */
struct mrc_cc_state {
	rte_be16_t ts_echo;
	rte_be16_t ooo_count; /**< rsvd(1) | count(15) */
	rte_be32_t pen_rcvd;  /**< R_C(1) | rcv_cwnd_pen(7) | rcvd_bytes(24) */
} __rte_packed;
static_assert(sizeof(struct mrc_cc_state) == 8, "CC_STATE is 8 bytes");

#define MRC_CC_OOO_MASK	       0x7fff
#define MRC_CC_RC	       0x80000000u
#define MRC_CC_PEN_SHIFT       24
#define MRC_CC_PEN_MASK	       0x7f
#define MRC_CC_RCVD_MASK       0x00ffffffu
#define MRC_CC_RCVD_BYTES_UNIT 256

/*
 * NETH (reliability NACK), 20 bytes:
 * +-------------------------------+---------------+---------------+
 * |type(4)|nh(5)|  rsvd(7)      |  nack_reason  |  vendor info  |
 * +-------------------------------+---------------+---------------+
 * |                      entropy (EV, 32)                         |
 * +-------------------------------+-------------------------------+
 * |            SPDCID             |            DPDCID             |
 * +---------------+---------------+-------------------------------+
 * |   reserved    |                 nack_psn (24)                 |
 * +-------+-------+---------------+-------------------------------+
 * |cc_type|ccflags|   reserved    |     echoed tx timestamp       |
 * +-------+-------+---------------+-------------------------------+
 */
struct mrc_neth {
	rte_be16_t hdr; /**< type(4) | nh(5) | rsvd(7) */
	uint8_t reason;
	uint8_t vendor;
	rte_be32_t entropy;
	rte_be16_t spdcid;
	rte_be16_t dpdcid;
	rte_be32_t nack_psn; /**< rsvd(8) | psn(24) */
	uint8_t cc_type_flags;
	uint8_t rsvd;
	rte_be16_t ts_echo;
} __rte_packed;
static_assert(sizeof(struct mrc_neth) == 20, "NETH is 20 bytes");

/**
 * NACK reasons (NETH.nack_reason), same numbers as UET (doc/protocol.md, "NETH").
 * PSN_SEQ_ERR is mrcd's own, for the go-back-N reference mode (plain
 * RoCEv2 RC behaviour, mrc_qp.h): not an MRC code, so it borrows the IB
 * AETH syndrome of a PSN sequence error NAK, far from UET's numbers.
 */
#define MRC_NACK_REASONS(X)                                                           \
	X(TRIMMED, 0x01, "payload trimmed by a switch; path blamed (EV -> SKIP)")     \
	X(TRIMMED_LASTHOP, 0x02, "trimmed at the last hop (incast); path not blamed") \
	X(NO_BITMAP, 0x06, "responder has no PSN-tracking resource")                  \
	X(NO_PKT_BUFFER, 0x07, "responder has no packet buffer")                      \
	X(NO_RESOURCE, 0x0A, "responder out of resources")                            \
	X(PSN_OOR_WINDOW, 0x0B, "PSN outside the responder's MPR window")             \
	X(UNEXP_EVENT, 0x19, "unexpected event: QP goes to error")                    \
	X(PSN_SEQ_ERR, 0x60, "go-back-N: PSN out of sequence; resend from nack_psn")

enum mrc_nack_reason {
#define MRC_NACK_ENUM(name, code, help) MRC_NACK_##name = code,
	MRC_NACK_REASONS(MRC_NACK_ENUM)
#undef MRC_NACK_ENUM
};

/*
 * PETH (reliability probe request), 16 bytes; consumes no PSN:
 * +-------------------------------+---------------+---------------+
 * |type(4)|nh(5)|  rsvd(7)      |   reserved    |  vendor info  |
 * +-------------------------------+---------------+---------------+
 * |           probe_id            |           reserved            |
 * +-------------------------------+-------------------------------+
 * |            SPDCID             |            DPDCID             |
 * +-------------------------------+-+---------------------+-------+
 * |        tx timestamp           |R|     reserved        | FTYPE |
 * +-------------------------------+-+---------------------+-------+
 */
struct mrc_peth {
	rte_be16_t hdr;
	uint8_t rsvd0;
	uint8_t vendor;
	rte_be16_t probe_id;
	rte_be16_t rsvd1;
	rte_be16_t spdcid;
	rte_be16_t dpdcid;
	rte_be16_t ts;
	rte_be16_t tsr_ftype;
} __rte_packed;
static_assert(sizeof(struct mrc_peth) == 16, "PETH is 16 bytes");

/*
 * ERTH (endpoint request, to QPN 2), 16 bytes. Public descriptions name the
 * fields (2-bit op, vendor byte, 32-bit port status mask, request id,
 * timestamp + TSR/FTYPE) but not their offsets; this layout is ours:
 * +---+-----------+---------------+-------------------------------+
 * |op | reserved  |  vendor info  |        request id (16)        |
 * +---+-----------+---------------+-------------------------------+
 * |                  port_status_mask (32)                        |
 * +---------------------------------------------------------------+
 * |                   sender epoch (32)                           |
 * +-------------------------------+-+---------------------+-------+
 * |        tx timestamp           |R|     reserved        | FTYPE |
 * +-------------------------------+-+---------------------+-------+
 *   port_status_mask: bit (p - 1) set = local port p is up (ports 1-based).
 *   sender epoch (our choice, reserved in the public descriptions): drawn
 *   once when the sender starts, so that a receiver tells a restarted peer,
 *   whose request ids begin again, from an old request arriving late.
 */
struct mrc_erth {
	uint8_t op; /**< op(2) in bits 7..6 | rsvd(6) */
	uint8_t vendor;
	rte_be16_t req_id;
	rte_be32_t port_status_mask;
	rte_be32_t epoch;
	rte_be16_t ts;
	rte_be16_t tsr_ftype;
} __rte_packed;
static_assert(sizeof(struct mrc_erth) == 16, "ERTH is 16 bytes");

#define MRC_EP_OP_SHIFT 6

/** Endpoint operations (ERTH/EETH op). */
enum mrc_ep_op {
	MRC_EP_OP_PORT_STATUS = 0,
	MRC_EP_OP_EV_PROBE = 1,
	/* ours: an EFRH follows the ERTH or EETH; 3 is reserved and rejected */
	MRC_EP_OP_FLOW_RECOVER = 2,
};

/*
 * EFRH (endpoint flow recovery), 24 bytes; ours (doc/protocol.md, "Flow
 * recovery"). It follows the ERTH or EETH of an op-2 packet, and only there:
 * the two processes of a flow's ends agree on its next QP pair with it.
 * +---------------+---------------+-------------------------------+
 * |     kind      |    status     |        life (16)              |
 * +---------------+---------------+-------------------------------+
 * |                    cluster flow (32)                          |
 * +---------------------------------------------------------------+
 * |                    spare pair (32)                            |
 * +---------------------------------------------------------------+
 * |                    reserved (32)                              |
 * +---------------------------------------------------------------+
 * |                next message number (64)                       |
 * +---------------------------------------------------------------+
 *   kind: enum mrc_ep_rec_kind. status: 0 in a request and in a "yes";
 *   else why not (the answerer's reason, 1-based). life: the flow's pair,
 *   0 for the one it started on, one more for each pair after.
 */
struct mrc_efrh {
	uint8_t kind;
	uint8_t status;
	rte_be16_t life;
	rte_be32_t flow;
	rte_be32_t spare;
	rte_be32_t rsvd;
	rte_be64_t seq;
} __rte_packed;
static_assert(sizeof(struct mrc_efrh) == 24, "EFRH is 24 bytes");

/** What an EFRH asks, or answers. */
enum mrc_ep_rec_kind {
	MRC_EP_REC_FAILED = 0,	/**< receiver -> sender: my QP of this life failed */
	MRC_EP_REC_MAKE = 1,	/**< sender -> receiver: make your end of spare pair s, life l */
	MRC_EP_REC_GIVE_UP = 2, /**< sender -> receiver: the flow stays down, status says why */
				/* others are rejected */
};

/*
 * EETH (endpoint response), 36 bytes; our layout (public descriptions say
 * only that it echoes the op and the timestamp; doc/protocol.md "ERTH and EETH"):
 * +---+-------+-+-+---------------+-------------------------------+
 * |op |  rsvd |S| |  vendor info  |     echoed request id (16)    |
 * +---+-------+-+-+---------------+-------------------------------+
 * |          responder port_status_mask (32)                      |
 * +---------------------------------------------------------------+
 * |          responder service time, ns (32)                      |
 * +-------------------------------+-------------------------------+
 * |     echoed tx timestamp       |  echoed TSR | FTYPE           |
 * +-------------------------------+-------------------------------+
 * |                    reserved (20 bytes)                        |
 * +---------------------------------------------------------------+
 *   S = service time valid (the requester may subtract it from the RTT).
 */
struct mrc_eeth {
	uint8_t op; /**< op(2) | rsvd(4) | S(1) | rsvd(1) */
	uint8_t vendor;
	rte_be16_t req_id;
	rte_be32_t port_status_mask;
	rte_be32_t svc_time_ns;
	rte_be16_t ts_echo;
	rte_be16_t tsr_ftype;
	uint8_t rsvd[20];
} __rte_packed;
static_assert(sizeof(struct mrc_eeth) == 36, "EETH is 36 bytes");

#define MRC_EETH_SVC_VALID 0x02

/*
 * IPv6 Segment Routing Header (RFC 8754), 8 bytes + 16 per segment:
 * +---------------+---------------+---------------+---------------+
 * | Next Header   |  Hdr Ext Len  | Routing Type=4| Segments Left |
 * +---------------+---------------+---------------+---------------+
 * |  Last Entry   |     Flags     |              Tag              |
 * +---------------+---------------+---------------+---------------+
 * |            Segment List[0] (128 bits): the LAST segment       |
 * ...
 * |            Segment List[n]: the FIRST segment                 |
 * +---------------------------------------------------------------+
 */
struct mrc_srh {
	uint8_t next_hdr;
	uint8_t hdr_ext_len; /**< 8-octet units, not counting the first 8 */
	uint8_t routing_type;
	uint8_t segments_left;
	uint8_t last_entry;
	uint8_t flags;
	rte_be16_t tag;
	/* uint8_t segments[last_entry + 1][16]; then optional TLVs */
} __rte_packed;
static_assert(sizeof(struct mrc_srh) == 8, "SRH fixed part is 8 bytes");

/* Bytes of MRC transport headers (BTH onward) for each opcode, fixed part. */
#define MRC_DATA_HDR_LEN \
	(sizeof(struct mrc_bth) + sizeof(struct mrc_meth) + sizeof(struct mrc_reth))

#endif /* MRC_WIRE_H */
