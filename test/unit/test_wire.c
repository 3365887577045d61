/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * lib/wire: every header field by field, every reject reason, and
 * build -> parse -> build byte identity for every sample packet under every
 * way of cutting it into mbuf segments.
 */

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ip.h>
#include <rte_udp.h>
#include <rte_vect.h>

#include "mrc_icrc.h"
#include "mrc_srv6.h"
#include "mrc_test.h"
#include "mrc_test_mbuf.h"
#include "mrc_test_pkts.h"
#include "mrc_wire_pkt.h"

static struct mrc_wire_cfg cfg;

static void
init_cfg(void)
{
	mrc_wire_cfg_defaults(&cfg);
}

/* Parse flat bytes, cut into segments at `cuts`. */
static enum mrc_wire_rx
parse_bytes(
	const uint8_t *b, size_t len, const size_t *cuts, unsigned int n_cuts, struct mrc_pkt *v)
{
	struct rte_mbuf *m = mrc_test_mbuf_from(b, len, cuts, n_cuts, 0);
	enum mrc_wire_rx rc;

	if (m == NULL)
		return MRC_WIRE_REJECT_MAX;
	rc = mrc_pkt_parse(m, &cfg, v);
	mrc_test_mbuf_free(m);
	return rc;
}

/* Rebuild a parsed view with the payload taken from the parsed bytes. */
static size_t
rebuild(const struct mrc_pkt *v, const uint8_t *src, uint8_t *out, size_t cap)
{
	struct rte_mbuf *m = mrc_test_mbuf_alloc(MRC_TEST_HEADROOM, (uint16_t)(v->payload_len + 8));
	size_t len;

	if (m == NULL)
		return 0;
	if (v->payload_len > 0) {
		memcpy(rte_pktmbuf_append(m, (uint16_t)v->payload_len), src + v->payload_off,
			v->payload_len);
	}
	if (mrc_pkt_build(m, v, &cfg, NULL) != 0) {
		mrc_test_mbuf_free(m);
		return 0;
	}
	len = mrc_test_mbuf_flatten(m, out, cap);
	mrc_test_mbuf_free(m);
	return len;
}

static int
sample_bytes(unsigned int i, struct mrc_test_sample *s, uint8_t *b, size_t *len)
{
	MRC_T_EQ(mrc_test_sample_get(i, s), 0);
	*len = mrc_test_sample_bytes(s, &cfg, b, MRC_TEST_MAX_PKT + 1024);
	MRC_T_ASSERT(*len > 0, "sample %s does not build", s->name);
	return MRC_TEST_OK;
}

static int
test_header_layouts(void)
{
	/* Offsets doc/protocol.md gives; the static_asserts pin the sizes. */
	MRC_T_EQ(offsetof(struct mrc_seth, entropy), 4);
	MRC_T_EQ(offsetof(struct mrc_seth, cack_psn), 12);
	MRC_T_EQ(offsetof(struct mrc_seth, cc_type_flags), 16);
	MRC_T_EQ(offsetof(struct mrc_seth, mpr), 17);
	MRC_T_EQ(offsetof(struct mrc_seth, sack_offset), 18);
	MRC_T_EQ(offsetof(struct mrc_seth, sack_bitmap), 20);
	MRC_T_EQ(offsetof(struct mrc_neth, reason), 2);
	MRC_T_EQ(offsetof(struct mrc_neth, entropy), 4);
	MRC_T_EQ(offsetof(struct mrc_neth, nack_psn), 12);
	MRC_T_EQ(offsetof(struct mrc_neth, ts_echo), 18);
	MRC_T_EQ(offsetof(struct mrc_peth, probe_id), 4);
	MRC_T_EQ(offsetof(struct mrc_peth, ts), 12);
	MRC_T_EQ(offsetof(struct mrc_reth, dma_len), 12);
	MRC_T_EQ(offsetof(struct mrc_eeth, ts_echo), 12);
	MRC_T_EQ(mrc_transport_hdr_len(MRC_OP_WRITE_FIRST, false), 12 + 4 + 16);
	MRC_T_EQ(mrc_transport_hdr_len(MRC_OP_WRITE_ONLY_IMM, true), 12 + 4 + 4 + 16 + 4);
	MRC_T_EQ(mrc_transport_hdr_len(MRC_OP_SACK, false), 12 + 28 + 8);
	MRC_T_EQ(mrc_transport_hdr_len(MRC_OP_NACK, false), 12 + 20);
	MRC_T_EQ(mrc_transport_hdr_len(MRC_OP_PROBE, false), 12 + 16);
	MRC_T_EQ(mrc_transport_hdr_len(MRC_OP_ACK, false), 12 + 4);
	MRC_T_EQ(mrc_transport_hdr_len(MRC_OP_EP_REQUEST, false), 12 + 16);
	MRC_T_EQ(mrc_transport_hdr_len(MRC_OP_EP_RESPONSE, false), 12 + 36);
	MRC_T_EQ(mrc_transport_hdr_len(0x06, false), 0);
	MRC_T_EQ(mrc_transport_hdr_len(0xC0, false), 0);
	return MRC_TEST_OK;
}

/* The bytes of a plain WRITE_FIRST, checked against the wire layout by hand. */
static int
test_data_packet_bytes(void)
{
	struct mrc_test_sample s;
	uint8_t b[MRC_TEST_MAX_PKT + 1024];
	size_t len;

	MRC_T_RUN(sample_bytes(1, &s, b, &len)); /* write_middle_plain_tseth */
	const uint8_t *ip = b + 14, *udp = ip + 40, *bth = udp + 8;

	MRC_T_EQ(len, 14 + 40 + 8 + 12 + 4 + 4 + 16 + 1024 + 4);
	MRC_T_EQ((b[12] << 8) | b[13], 0x86dd);
	/* version 6, DSCP 4 (trimmable), ECN ECT(0), flow label = EV[31:16] */
	MRC_T_EQ(ip[0], 0x61);
	MRC_T_EQ(ip[1], 0x20);
	MRC_T_EQ(((ip[1] & 0xf) << 16) | (ip[2] << 8) | ip[3], 0x0003);
	MRC_T_EQ((ip[4] << 8) | ip[5], 8 + 12 + 4 + 4 + 16 + 1024 + 4);
	MRC_T_EQ(ip[6], 17);
	MRC_T_EQ(ip[7], 64);
	MRC_T_EQ((udp[0] << 8) | udp[1], 0xa5c1); /* EV[15:0] */
	MRC_T_EQ((udp[2] << 8) | udp[3], 4791);
	MRC_T_EQ((udp[4] << 8) | udp[5], (ip[4] << 8) | ip[5]);
	MRC_T_EQ((udp[6] << 8) | udp[7], 0);
	MRC_T_EQ(bth[0], MRC_OP_WRITE_MIDDLE);
	MRC_T_EQ(bth[1], 0x00); /* SE 0, M 0, pad 0, tver 0 */
	MRC_T_EQ((bth[2] << 8) | bth[3], 0xffff);
	MRC_T_EQ(bth[4], 0);
	MRC_T_EQ((bth[5] << 16) | (bth[6] << 8) | bth[7], 0x11);
	MRC_T_EQ(bth[8], 0x10); /* TS */
	MRC_T_EQ((bth[9] << 16) | (bth[10] << 8) | bth[11], 100);
	const uint8_t *meth = bth + 12, *tseth = meth + 4, *reth = tseth + 4;

	MRC_T_EQ((meth[0] << 8) | meth[1], 3);
	MRC_T_EQ((meth[2] << 8) | meth[3], 7);
	MRC_T_EQ((tseth[0] << 8) | tseth[1], 0xbeef);
	MRC_T_EQ(tseth[2], 0x80); /* TSR */
	MRC_T_EQ(tseth[3], 0x01); /* FTYPE */
	uint64_t va = 0;

	for (int i = 0; i < 8; i++)
		va = (va << 8) | reth[i];
	MRC_T_U64_EQ(va, 0x00007f0012340000ull + 1024);
	MRC_T_EQ(((uint32_t)reth[8] << 24) | (reth[9] << 16) | (reth[10] << 8) | reth[11],
		0x1234abcd);
	MRC_T_EQ(((uint32_t)reth[12] << 24) | (reth[13] << 16) | (reth[14] << 8) | reth[15], 8192);
	MRC_T_EQ(reth[16], mrc_test_payload_byte(100, 0));
	return MRC_TEST_OK;
}

static int
test_bth_flags_and_limits(void)
{
	struct mrc_test_sample s;
	uint8_t b[MRC_TEST_MAX_PKT + 1024];
	struct mrc_pkt v;
	size_t len;

	MRC_T_EQ(mrc_test_sample_get(5, &s), 0); /* write_only_imm_plain, 2-byte payload */
	s.pkt.bth.se = s.pkt.bth.migreq = s.pkt.bth.fecn = s.pkt.bth.becn = true;
	s.pkt.bth.ackreq = s.pkt.bth.rtx = true;
	s.pkt.bth.dqpn = 0xffffff;
	s.pkt.bth.psn = 0xffffff;
	s.pkt.bth.pkey = 0x8001;
	len = mrc_test_sample_bytes(&s, &cfg, b, sizeof(b));
	MRC_T_ASSERT(len > 0, "build");
	const uint8_t *bth = b + 14 + 40 + 8;

	MRC_T_EQ(bth[1], 0x80 | 0x40 | (2 << 4)); /* SE, M, pad 2 (2-byte payload) */
	MRC_T_EQ(bth[4], 0xc0);
	MRC_T_EQ(bth[5] & bth[6] & bth[7], 0xff);
	MRC_T_EQ(bth[8], 0x80 | 0x20);
	MRC_T_EQ(parse_bytes(b, len, NULL, 0, &v), MRC_WIRE_OK);
	MRC_T_ASSERT(v.bth.se && v.bth.migreq && v.bth.fecn && v.bth.becn && v.bth.ackreq &&
			     v.bth.rtx && !v.bth.ts,
		"flags lost");
	MRC_T_EQ(v.bth.dqpn, 0xffffff);
	MRC_T_EQ(v.bth.psn, 0xffffff);
	MRC_T_EQ(v.bth.pkey, 0x8001);
	MRC_T_EQ(v.bth.pad, 2);
	MRC_T_EQ(v.payload_len, 2);
	MRC_T_EQ(v.data.imm, 0x01020304);
	/* Values wider than their field are cut to the field, never spill over. */
	s.pkt.bth.dqpn = 0x1abcdef;
	s.pkt.bth.psn = 0x1000005;
	len = mrc_test_sample_bytes(&s, &cfg, b, sizeof(b));
	MRC_T_EQ(parse_bytes(b, len, NULL, 0, &v), MRC_WIRE_OK);
	MRC_T_EQ(v.bth.dqpn, 0xabcdef);
	MRC_T_EQ(v.bth.psn, 5);
	MRC_T_ASSERT(v.bth.fecn && v.bth.becn && v.bth.ackreq && v.bth.rtx, "flags clobbered");
	return MRC_TEST_OK;
}

static int
test_ev_split(void)
{
	struct mrc_test_sample s;
	uint8_t b[MRC_TEST_MAX_PKT + 1024];
	struct mrc_pkt v;
	size_t len;

	MRC_T_EQ(mrc_test_sample_get(0, &s), 0); /* SRv6 */
	s.pkt.ev = 0x89abcdef;
	s.pkt.outer.flow_label = 0xf0000; /* top 4 bits are not EV: kept */
	s.pkt.ip.flow_label = 0x12345;	  /* inner: written as given */
	len = mrc_test_sample_bytes(&s, &cfg, b, sizeof(b));
	const uint8_t *outer = b + 14, *inner = outer + 40, *udp = inner + 40;

	MRC_T_EQ(((outer[1] & 0xf) << 16) | (outer[2] << 8) | outer[3], 0xf89ab);
	MRC_T_EQ(((inner[1] & 0xf) << 16) | (inner[2] << 8) | inner[3], 0x12345);
	MRC_T_EQ((udp[0] << 8) | udp[1], 0xcdef);
	MRC_T_EQ(parse_bytes(b, len, NULL, 0, &v), MRC_WIRE_OK);
	MRC_T_U64_EQ(v.ev, 0x89abcdef);

	cfg.ev_split = MRC_EV_SPLIT_SPORT_HIGH;
	len = mrc_test_sample_bytes(&s, &cfg, b, sizeof(b));
	MRC_T_EQ(((outer[1] & 0xf) << 16) | (outer[2] << 8) | outer[3], 0xfcdef);
	MRC_T_EQ((udp[0] << 8) | udp[1], 0x89ab);
	MRC_T_EQ(parse_bytes(b, len, NULL, 0, &v), MRC_WIRE_OK);
	MRC_T_U64_EQ(v.ev, 0x89abcdef);
	init_cfg();

	/* Plain mode: the only IPv6 header carries the EV bits. */
	MRC_T_EQ(mrc_test_sample_get(5, &s), 0);
	s.pkt.ev = 0x00010002;
	len = mrc_test_sample_bytes(&s, &cfg, b, sizeof(b));
	MRC_T_EQ(((b[15] & 0xf) << 16) | (b[16] << 8) | b[17], 0x00001);
	MRC_T_EQ(parse_bytes(b, len, NULL, 0, &v), MRC_WIRE_OK);
	MRC_T_U64_EQ(v.ev, 0x00010002);
	return MRC_TEST_OK;
}

static int
test_sack_fields(void)
{
	struct mrc_test_sample s;
	uint8_t b[MRC_TEST_MAX_PKT + 1024];
	struct mrc_pkt v;
	size_t len;

	MRC_T_RUN(sample_bytes(8, &s, b, &len)); /* sack_srv6 */
	const uint8_t *seth = b + 14 + 40 + 40 + 8 + 12, *cc = seth + 28;

	MRC_T_EQ(seth[0], 0);
	MRC_T_EQ(seth[1], (MRC_SACK_M_SKIP_ONCE << 5) | 0x02);
	MRC_T_EQ((seth[2] << 8) | seth[3], 7);
	MRC_T_EQ(
		((uint32_t)seth[4] << 24) | (seth[5] << 16) | (seth[6] << 8) | seth[7], 0x0003a5c1);
	MRC_T_EQ((seth[13] << 16) | (seth[14] << 8) | seth[15], 4);
	MRC_T_EQ(seth[16], 0x21);
	MRC_T_EQ(seth[17], 8);
	MRC_T_EQ((seth[18] << 8) | seth[19], 1);
	MRC_T_EQ(seth[27], 0x76); /* LSB0: PSN base+0 is the last byte's low bit */
	MRC_T_EQ(seth[20], 0);
	MRC_T_EQ((cc[0] << 8) | cc[1], 0x1234);
	MRC_T_EQ((cc[2] << 8) | cc[3], 5);
	MRC_T_EQ(cc[4], 0x80 | 64);
	MRC_T_EQ((cc[5] << 16) | (cc[6] << 8) | cc[7], 0xabcdef);
	MRC_T_EQ(parse_bytes(b, len, NULL, 0, &v), MRC_WIRE_OK);
	MRC_T_EQ(v.sack.m, MRC_SACK_M_SKIP_ONCE);
	MRC_T_ASSERT(v.sack.pr && v.sack.rc, "PR/RC lost");
	MRC_T_EQ(v.sack.cack_psn, 4);
	MRC_T_EQ(v.sack.sack_offset, 1);
	MRC_T_U64_EQ(v.sack.sack_bitmap, 0x76);
	MRC_T_EQ(v.sack.cwnd_pen, 64);
	MRC_T_EQ(v.sack.rcvd_bytes, 0xabcdef);
	MRC_T_EQ(v.sack.ooo_count, 5);

	/* Negative offsets, and the MSB0 bit order knob. */
	MRC_T_RUN(sample_bytes(9, &s, b, &len));
	MRC_T_EQ(parse_bytes(b, len, NULL, 0, &v), MRC_WIRE_OK);
	MRC_T_EQ(v.sack.ack_psn_offset, -3);
	MRC_T_EQ(v.sack.sack_offset, -2);
	MRC_T_EQ(v.sack.cack_psn, 0xfffffe);
	cfg.sack_bit_order = MRC_SACK_BIT_MSB0;
	MRC_T_EQ(mrc_test_sample_get(8, &s), 0);
	len = mrc_test_sample_bytes(&s, &cfg, b, sizeof(b));
	MRC_T_EQ(seth[20], 0x6e); /* 0x76 reversed into the top byte */
	MRC_T_EQ(seth[27], 0);
	MRC_T_EQ(parse_bytes(b, len, NULL, 0, &v), MRC_WIRE_OK);
	MRC_T_U64_EQ(v.sack.sack_bitmap, 0x76);
	init_cfg();
	return MRC_TEST_OK;
}

static int
test_control_fields(void)
{
	struct mrc_test_sample s;
	uint8_t b[MRC_TEST_MAX_PKT + 1024];
	struct mrc_pkt v;
	size_t len;

	MRC_T_RUN(sample_bytes(10, &s, b, &len)); /* nack_trimmed_srv6 */
	MRC_T_EQ(parse_bytes(b, len, NULL, 0, &v), MRC_WIRE_OK);
	MRC_T_EQ(v.nack.reason, MRC_NACK_TRIMMED);
	MRC_T_EQ(v.nack.nack_psn, 123456);
	MRC_T_EQ(v.nack.entropy, 0x0003a5c1);
	MRC_T_EQ(v.nack.cc_type, 2);
	MRC_T_EQ(v.nack.ts_echo, 0x4321);
	MRC_T_EQ(v.ip.dscp, cfg.dscp.control);
	MRC_T_STREQ(mrc_nack_reason_name(v.nack.reason), "TRIMMED");

	MRC_T_RUN(sample_bytes(7, &s, b, &len)); /* ack */
	MRC_T_EQ(parse_bytes(b, len, NULL, 0, &v), MRC_WIRE_OK);
	MRC_T_EQ(v.aeth.syndrome, 0x1f);
	MRC_T_EQ(v.aeth.msn, 0x123456);

	MRC_T_RUN(sample_bytes(12, &s, b, &len)); /* probe */
	MRC_T_EQ(parse_bytes(b, len, NULL, 0, &v), MRC_WIRE_OK);
	MRC_T_EQ(v.probe.probe_id, 0x0bad);
	MRC_T_EQ(v.probe.ts, 0x1111);
	MRC_T_EQ(v.probe.ftype, 1);

	MRC_T_RUN(sample_bytes(13, &s, b, &len)); /* ep request */
	MRC_T_EQ(parse_bytes(b, len, NULL, 0, &v), MRC_WIRE_OK);
	MRC_T_EQ(v.bth.dqpn, MRC_EP_QPN);
	MRC_T_EQ(v.ep.op, MRC_EP_OP_PORT_STATUS);
	MRC_T_EQ(v.ep.port_status_mask, 0xf7);
	MRC_T_EQ(v.ep.req_id, 42);
	MRC_T_EQ(v.ep.epoch, 0x5eed0001);
	MRC_T_EQ(b[14 + 40 + 8 + 12], 0x00);
	/* the epoch is bytes 8-11 of the ERTH, big-endian */
	MRC_T_EQ(b[14 + 40 + 8 + 12 + 8], 0x5e);
	MRC_T_EQ(b[14 + 40 + 8 + 12 + 11], 0x01);

	MRC_T_RUN(sample_bytes(14, &s, b, &len)); /* ep response */
	MRC_T_EQ(parse_bytes(b, len, NULL, 0, &v), MRC_WIRE_OK);
	MRC_T_EQ(v.ep.op, MRC_EP_OP_EV_PROBE);
	MRC_T_ASSERT(v.ep.svc_valid, "svc flag");
	MRC_T_EQ(v.ep.svc_time_ns, 850);
	MRC_T_EQ(v.ep.ts, 0x3333);
	MRC_T_EQ(b[14 + 40 + 40 + 8 + 12], 0x40 | 0x02);

	MRC_T_RUN(sample_bytes(25, &s, b, &len)); /* flow recovery: make, after an SRH */
	MRC_T_EQ(parse_bytes(b, len, NULL, 0, &v), MRC_WIRE_OK);
	MRC_T_EQ(v.ep.op, MRC_EP_OP_FLOW_RECOVER);
	MRC_T_EQ(v.ep.req_id, 3);
	MRC_T_EQ(v.ep.epoch, 0x5eed0002);
	MRC_T_EQ(v.ep.rec.kind, MRC_EP_REC_MAKE);
	MRC_T_EQ(v.ep.rec.life, 2);
	MRC_T_EQ(v.ep.rec.flow, 0x01020304);
	MRC_T_EQ(v.ep.rec.spare, 9);
	MRC_T_EQ(v.ep.rec.seq, 0x1122334455667788ull);
	MRC_T_EQ(v.payload_len, 0);
	/* the EFRH is the 24 bytes after the ERTH, then the ICRC */
	MRC_T_EQ(v.payload_off + 4, len);
	MRC_T_EQ(b[v.payload_off - 24], MRC_EP_REC_MAKE);
	MRC_T_EQ(b[v.payload_off - 8], 0x11);
	MRC_T_EQ(b[v.payload_off - 1], 0x88);

	MRC_T_RUN(sample_bytes(26, &s, b, &len)); /* flow recovery: an answer, plain */
	MRC_T_EQ(parse_bytes(b, len, NULL, 0, &v), MRC_WIRE_OK);
	MRC_T_EQ(v.ep.op, MRC_EP_OP_FLOW_RECOVER);
	MRC_T_EQ(v.ep.rec.kind, MRC_EP_REC_FAILED);
	MRC_T_EQ(v.ep.rec.status, 3);
	MRC_T_EQ(v.ep.rec.life, 1);
	MRC_T_EQ(v.ep.rec.flow, 7);
	MRC_T_EQ(len, 14 + 40 + 8 + 12 + 36 + 24 + 4);

	MRC_T_RUN(sample_bytes(27, &s, b, &len)); /* flow recovery: a give-up, plain */
	MRC_T_EQ(parse_bytes(b, len, NULL, 0, &v), MRC_WIRE_OK);
	MRC_T_EQ(v.ep.op, MRC_EP_OP_FLOW_RECOVER);
	MRC_T_EQ(v.ep.rec.kind, MRC_EP_REC_GIVE_UP);
	MRC_T_EQ(v.ep.rec.status, 7);
	MRC_T_EQ(v.ep.rec.life, 4);
	MRC_T_EQ(v.ep.rec.flow, 11);
	MRC_T_EQ(len, 14 + 40 + 8 + 12 + 16 + 24 + 4);
	return MRC_TEST_OK;
}

/* Build, parse (under many segmentations), rebuild: bytes must be identical. */
static int
roundtrip_one(unsigned int i)
{
	static uint8_t b[MRC_TEST_MAX_PKT + 1024], b2[MRC_TEST_MAX_PKT + 1024];
	struct mrc_test_sample s;
	struct mrc_pkt v;
	size_t len, len2;
	unsigned int seed = 12345 + i;

	MRC_T_RUN(sample_bytes(i, &s, b, &len));
	for (int variant = 0; variant < 40; variant++) {
		size_t cuts[8];
		unsigned int n = 0;

		if (variant == 1) {
			cuts[n++] = 1; /* a one-byte first segment */
		} else if (variant > 1 && len > 2) {
			n = (unsigned int)(rand_r(&seed) % 8) + 1;
			for (unsigned int k = 0; k < n; k++)
				cuts[k] = 1 + (size_t)rand_r(&seed) % (len - 1);
			/* ascending, distinct */
			for (unsigned int a = 0; a < n; a++)
				for (unsigned int c = a + 1; c < n; c++)
					if (cuts[c] < cuts[a]) {
						size_t t = cuts[a];
						cuts[a] = cuts[c];
						cuts[c] = t;
					}
			unsigned int w = 0;
			for (unsigned int k = 0; k < n; k++)
				if (w == 0 || cuts[k] != cuts[w - 1])
					cuts[w++] = cuts[k];
			n = w;
		}
		enum mrc_wire_rx rc = parse_bytes(b, len, cuts, n, &v);

		MRC_T_ASSERT(rc == MRC_WIRE_OK, "%s variant %d: %s", s.name, variant,
			mrc_wire_reject_name(rc));
		MRC_T_EQ(v.bth.opcode, s.pkt.bth.opcode);
		MRC_T_EQ(v.bth.psn, s.pkt.bth.psn & 0xffffff);
		MRC_T_EQ(v.bth.dqpn, s.pkt.bth.dqpn);
		MRC_T_U64_EQ(v.ev, s.pkt.ev);
		MRC_T_EQ(v.flags & (MRC_PKT_F_VLAN | MRC_PKT_F_SRV6 | MRC_PKT_F_SRH),
			s.pkt.flags & (MRC_PKT_F_VLAN | MRC_PKT_F_SRV6 | MRC_PKT_F_SRH));
		MRC_T_EQ(!!(v.flags & MRC_PKT_F_TRIMMED), s.trim);
		if (!s.trim) {
			MRC_T_EQ(v.payload_len, s.payload_len);
			for (uint32_t k = 0; k < v.payload_len; k++)
				MRC_T_EQ(b[v.payload_off + k],
					mrc_test_payload_byte(s.pkt.bth.psn, k));
		}
		len2 = rebuild(&v, b, b2, sizeof(b2));
		if (s.trim) {
			/* A trimmed packet rebuilds whole; its header bytes match. */
			MRC_T_ASSERT(len2 >= len, "%s: rebuilt shorter", s.name);
			MRC_T_MEMEQ(b + 14, b2 + 14, 4); /* version, DSCP, flow label */
			MRC_T_MEMEQ(b + v.inner_off, b2 + v.inner_off, 4);
			MRC_T_MEMEQ(b + v.bth_off, b2 + v.bth_off, len - v.bth_off);
			continue;
		}
		MRC_T_EQ(len2, len);
		if (mrc_test_memdiff(b, b2, len) != (size_t)-1) {
			mrc_test_hexdump(stderr, "built", b, len);
			mrc_test_hexdump(stderr, "rebuilt", b2, len2);
		}
		MRC_T_MEMEQ(b, b2, len);
	}
	return MRC_TEST_OK;
}

static int
test_roundtrip_every_sample(void)
{
	for (unsigned int i = 0; i < mrc_test_sample_count(); i++)
		MRC_T_RUN(roundtrip_one(i));
	/* The same with the other knob settings. */
	cfg.ev_split = MRC_EV_SPLIT_SPORT_HIGH;
	cfg.sack_bit_order = MRC_SACK_BIT_MSB0;
	cfg.udp_checksum = true;
	for (unsigned int i = 0; i < mrc_test_sample_count(); i++)
		MRC_T_RUN(roundtrip_one(i));
	init_cfg();
	return MRC_TEST_OK;
}

/*
 * mrc_icrc_calc() copies the masked headers, and what follows them in the
 * same segment (to 128 bytes), into one buffer, and gathers across segments
 * only when the masked headers are cut: every two-segment cut of every
 * sample must check out, and a flipped covered byte must still be caught
 * (trimmed samples carry no ICRC).
 */
static int
test_icrc_every_two_segment_cut(void)
{
	static uint8_t b[MRC_TEST_MAX_PKT + 1024];
	struct mrc_test_sample s;
	struct mrc_pkt v;
	size_t len;

	for (unsigned int i = 0; i < mrc_test_sample_count(); i++) {
		MRC_T_RUN(sample_bytes(i, &s, b, &len));
		for (size_t cut = 1; cut < len; cut++) {
			enum mrc_wire_rx rc = parse_bytes(b, len, &cut, 1, &v);

			MRC_T_ASSERT(rc == MRC_WIRE_OK, "%s cut at %zu: %s", s.name, cut,
				mrc_wire_reject_name(rc));
			if (v.flags & MRC_PKT_F_TRIMMED)
				continue;   /* headers only, no ICRC */
			b[len - 5] ^= 0x40; /* the last byte before the ICRC */
			rc = parse_bytes(b, len, &cut, 1, &v);
			b[len - 5] ^= 0x40;
			MRC_T_ASSERT(rc != MRC_WIRE_OK, "%s cut at %zu: a flipped byte passed",
				s.name, cut);
		}
	}
	return MRC_TEST_OK;
}

static int
test_every_prefix_is_truncated(void)
{
	uint8_t b[MRC_TEST_MAX_PKT + 1024];
	struct mrc_test_sample s;
	struct mrc_pkt v;
	size_t len;

	for (unsigned int i = 0; i < mrc_test_sample_count(); i++) {
		MRC_T_RUN(sample_bytes(i, &s, b, &len));
		for (size_t cut = 0; cut < len; cut++) {
			enum mrc_wire_rx rc = parse_bytes(b, cut, NULL, 0, &v);

			if (s.trim && cut >= v.payload_off && rc == MRC_WIRE_OK)
				continue;
			MRC_T_ASSERT(rc == MRC_WIRE_TRUNCATED, "%s cut at %zu of %zu: %s", s.name,
				cut, len, mrc_wire_reject_name(rc));
		}
	}
	return MRC_TEST_OK;
}

/* Re-seal the ICRC after editing a field it covers, so the edit is what is judged. */
static void
reseal(uint8_t *b, size_t len, size_t inner_off)
{
	struct rte_mbuf *m = mrc_test_mbuf_from(b, len, NULL, 0, 0);
	uint32_t icrc = mrc_icrc_calc(m, (uint32_t)inner_off, (uint32_t)(len - 4 - inner_off));

	mrc_test_mbuf_free(m);
	b[len - 4] = (uint8_t)icrc;
	b[len - 3] = (uint8_t)(icrc >> 8);
	b[len - 2] = (uint8_t)(icrc >> 16);
	b[len - 1] = (uint8_t)(icrc >> 24);
}

struct edit_case {
	const char *what;
	unsigned int sample;
	size_t off;   /* byte to change, from the start of the frame */
	uint8_t mask; /* bits to replace */
	uint8_t val;
	bool reseal;
	enum mrc_wire_rx want;
};

/* Offsets in sample 0 (SRv6, no SRH), 2 (SRH, 2 segs), 5 (plain), 8 (SACK SRv6). */
#define E  14	     /* outer IPv6 */
#define I  (14 + 40) /* inner IPv6 in SRv6 mode */
#define PU (14 + 40) /* UDP in plain mode */
#define PB (14 + 48) /* BTH in plain mode */
#define SB (14 + 88) /* BTH in SRv6 mode without SRH */

static const struct edit_case edits[] = {
	{"ethertype IPv4", 5, 12, 0xff, 0x08, false, MRC_WIRE_BAD_ETHERTYPE},
	{"outer version 4", 0, E, 0xf0, 0x40, false, MRC_WIRE_BAD_IP_VERSION},
	{"inner version 4", 0, I, 0xf0, 0x40, true, MRC_WIRE_BAD_IP_VERSION},
	{"outer next header TCP", 0, E + 6, 0xff, 6, false, MRC_WIRE_BAD_NEXT_HEADER},
	{"inner next header TCP", 0, I + 6, 0xff, 6, true, MRC_WIRE_BAD_NEXT_HEADER},
	{"plain next header hop-by-hop", 5, E + 6, 0xff, 0, false, MRC_WIRE_BAD_NEXT_HEADER},
	{"routing type 3", 2, E + 40 + 2, 0xff, 3, false, MRC_WIRE_BAD_ROUTING_TYPE},
	{"SRH next header UDP", 2, E + 40, 0xff, 17, false, MRC_WIRE_BAD_NEXT_HEADER},
	{"SRH segments left > last entry", 2, E + 40 + 3, 0xff, 2, false, MRC_WIRE_MALFORMED_SRH},
	{"SRH last entry beyond its length", 2, E + 40 + 4, 0xff, 2, false, MRC_WIRE_MALFORMED_SRH},
	{"SRH shorter than its list", 2, E + 40 + 1, 0xff, 2, false, MRC_WIRE_MALFORMED_SRH},
	{"UDP port 4792", 5, PU + 3, 0xff, 0xb8, false, MRC_WIRE_NOT_ROCE},
	{"UDP length one short", 5, PU + 5, 0xff, 0, false, MRC_WIRE_LENGTH_MISMATCH},
	{"outer payload length past the frame", 0, E + 4, 0xff, 0x7f, false, MRC_WIRE_TRUNCATED},
	{"inner payload length one long", 0, I + 5, 0x01, 0x01, false, MRC_WIRE_LENGTH_MISMATCH},
	{"BTH tver 1", 5, PB + 1, 0x0f, 0x01, true, MRC_WIRE_BAD_TVER},
	{"RC opcode 0x06", 5, PB, 0xff, 0x06, true, MRC_WIRE_UNKNOWN_OPCODE},
	{"opcode 0xC0", 5, PB, 0xff, 0xc0, true, MRC_WIRE_UNKNOWN_OPCODE},
	{"opcode 0xFF", 5, PB, 0xff, 0xff, true, MRC_WIRE_UNKNOWN_OPCODE},
	{"pad count on a SACK", 8, SB + 1, 0x30, 0x10, true, MRC_WIRE_BAD_PAD},
	{"SACK verdict 3", 8, SB + 12 + 1, 0x60, 0x60, true, MRC_WIRE_BAD_SACK_VERDICT},
	{"NACK reason 0x03", 11, PB + 12 + 2, 0xff, 0x03, true, MRC_WIRE_UNKNOWN_NACK_REASON},
	{"NACK reason 0x00", 11, PB + 12 + 2, 0xff, 0x00, true, MRC_WIRE_UNKNOWN_NACK_REASON},
	{"endpoint op 3", 13, PB + 12, 0xc0, 0xc0, true, MRC_WIRE_BAD_EP_OP},
	/* op 2 with no EFRH after the ERTH: 24 bytes short */
	{"endpoint op 2 without its EFRH", 13, PB + 12, 0xc0, 0x80, true, MRC_WIRE_TRUNCATED},
	{"flow recovery kind 2 (give up)", 26, PB + 12 + 36, 0xff, 0x02, true, MRC_WIRE_OK},
	{"flow recovery kind 3", 26, PB + 12 + 36, 0xff, 0x03, true, MRC_WIRE_BAD_EP_OP},
	{"endpoint request to QPN 3", 13, PB + 7, 0xff, 0x03, true, MRC_WIRE_BAD_EP_QPN},
	{"payload bit flip", 5, PB + 12 + 4 + 4 + 16, 0x01, 0x00, false, MRC_WIRE_BAD_ICRC},
	{"PSN changed", 5, PB + 11, 0xff, 0x65, false, MRC_WIRE_BAD_ICRC},
	{"EV (UDP source port) changed", 5, PU + 1, 0xff, 0x00, false, MRC_WIRE_BAD_ICRC},
	{"inner source address changed", 0, I + 8, 0xff, 0xee, false, MRC_WIRE_BAD_ICRC},
	/* Variant fields are masked: changing them keeps the ICRC valid. */
	{"hop limit changed", 5, E + 7, 0xff, 1, false, MRC_WIRE_OK},
	{"DSCP/ECN changed", 5, E + 1, 0xf0, 0xb0, false, MRC_WIRE_OK},
	{"flow label changed", 5, E + 3, 0xff, 0x77, false, MRC_WIRE_OK},
	{"UDP checksum set", 5, PU + 7, 0xff, 0x42, false, MRC_WIRE_OK},
	{"FECN/BECN set", 5, PB + 4, 0xc0, 0xc0, false, MRC_WIRE_OK},
	{"outer destination shifted", 0, E + 24, 0xff, 0x99, false, MRC_WIRE_OK},
};

/* mrc_pkt_peek_dqpn() on bytes: the dqpn, or -1 when it finds none. */
static int64_t
peek_bytes(const uint8_t *b, size_t len)
{
	struct rte_mbuf *m = mrc_test_mbuf_from(b, len, NULL, 0, 0);
	uint32_t q = 0;
	bool found;

	if (m == NULL)
		return -2;
	found = mrc_pkt_peek_dqpn(m, &q);
	mrc_test_mbuf_free(m);
	return found ? (int64_t)q : -1;
}

/*
 * The software dispatch places a packet by mrc_pkt_peek_dqpn() before any
 * parse: it must find the QPN the parse finds in every sample, in every
 * prefix find that one or none (it reads nothing past the segment), and
 * never claim a frame that the parse calls "not MRC" (such frames are the
 * exception path's, on the shard that read them).
 */
static int
test_peek_agrees_with_parse(void)
{
	uint8_t b[MRC_TEST_MAX_PKT + 1024];
	struct mrc_test_sample s;
	struct mrc_pkt v;
	size_t len;

	for (unsigned int i = 0; i < mrc_test_sample_count(); i++) {
		MRC_T_RUN(sample_bytes(i, &s, b, &len));
		MRC_T_EQ(parse_bytes(b, len, NULL, 0, &v), MRC_WIRE_OK);
		MRC_T_ASSERT(peek_bytes(b, len) == (int64_t)v.bth.dqpn,
			"%s: peek found %lld, not 0x%x", s.name, (long long)peek_bytes(b, len),
			v.bth.dqpn);
		for (size_t cut = 0; cut < len; cut++) {
			const int64_t q = peek_bytes(b, cut);

			MRC_T_ASSERT(q == -1 || q == (int64_t)v.bth.dqpn, "%s cut at %zu: %lld",
				s.name, cut, (long long)q);
		}
	}
	for (size_t i = 0; i < RTE_DIM(edits); i++) {
		const struct edit_case *e = &edits[i];
		enum mrc_wire_rx rc;

		MRC_T_RUN(sample_bytes(e->sample, &s, b, &len));
		b[e->off] = (uint8_t)((b[e->off] & ~e->mask) | (e->val & e->mask));
		rc = parse_bytes(b, len, NULL, 0, &v);
		if (rc == MRC_WIRE_BAD_ETHERTYPE || rc == MRC_WIRE_BAD_NEXT_HEADER ||
			rc == MRC_WIRE_NOT_ROCE || rc == MRC_WIRE_BAD_ROUTING_TYPE)
			MRC_T_ASSERT(peek_bytes(b, len) == -1,
				"%s: peek took a frame parse calls %s", e->what,
				mrc_wire_reject_name(rc));
	}
	return MRC_TEST_OK;
}

static int
test_every_reject_reason(void)
{
	uint8_t b[MRC_TEST_MAX_PKT + 1024];
	struct mrc_test_sample s;
	struct mrc_pkt v;
	size_t len;
	bool seen[MRC_WIRE_REJECT_MAX] = {false};

	for (size_t i = 0; i < RTE_DIM(edits); i++) {
		const struct edit_case *e = &edits[i];
		enum mrc_wire_rx rc;

		MRC_T_RUN(sample_bytes(e->sample, &s, b, &len));
		MRC_T_EQ(parse_bytes(b, len, NULL, 0, &v), MRC_WIRE_OK);
		uint8_t old = b[e->off];

		b[e->off] = (uint8_t)((b[e->off] & ~e->mask) | (e->val & e->mask));
		MRC_T_ASSERT(b[e->off] != old, "%s: the edit changes nothing", e->what);
		if (e->reseal)
			reseal(b, len, v.inner_off);
		rc = parse_bytes(b, len, NULL, 0, &v);
		MRC_T_ASSERT(rc == e->want, "%s: got %s, want %s", e->what,
			mrc_wire_reject_name(rc), mrc_wire_reject_name(e->want));
		seen[rc] = true;
	}

	/* Frame longer than the IPv6 length says. */
	MRC_T_RUN(sample_bytes(5, &s, b, &len));
	MRC_T_EQ(parse_bytes(b, len + 1, NULL, 0, &v), MRC_WIRE_LENGTH_MISMATCH);
	/* A control packet whose UDP length leaves room for a payload it may not have. */
	MRC_T_RUN(sample_bytes(7, &s, b, &len));
	b[len] = b[len - 1];
	b[len - 1] = b[len - 2];
	b[len - 2] = b[len - 3];
	b[len - 3] = b[len - 4];
	b[len - 4] = 0;
	b[14 + 5]++;
	b[14 + 40 + 5]++;
	MRC_T_EQ(parse_bytes(b, len + 1, NULL, 0, &v), MRC_WIRE_LENGTH_MISMATCH);
	/* A data packet whose pad count exceeds its (empty) payload. */
	MRC_T_RUN(sample_bytes(17, &s, b, &len));
	b[PB + 1] |= 0x30;
	reseal(b, len, 14);
	MRC_T_EQ(parse_bytes(b, len, NULL, 0, &v), MRC_WIRE_BAD_PAD);
	seen[MRC_WIRE_BAD_PAD] = seen[MRC_WIRE_LENGTH_MISMATCH] = true;
	seen[MRC_WIRE_TRUNCATED] = true; /* test_every_prefix_is_truncated */

	for (int r = 1; r < MRC_WIRE_REJECT_MAX; r++)
		MRC_T_ASSERT(seen[r], "no case produces reject reason %s",
			mrc_wire_reject_name((enum mrc_wire_rx)r));

	/* Verdicts are counted by index; blocks add up. */
	struct mrc_wire_rx_stats a = {0}, b3 = {0};

	a.pkts[MRC_WIRE_BAD_ICRC] = 2;
	b3.pkts[MRC_WIRE_BAD_ICRC] = 3;
	b3.pkts[MRC_WIRE_OK] = 7;
	mrc_wire_rx_stats_add(&a, &b3);
	MRC_T_EQ(a.pkts[MRC_WIRE_BAD_ICRC], 5);
	MRC_T_EQ(a.pkts[MRC_WIRE_OK], 7);
	MRC_T_EQ(sizeof(a) % RTE_CACHE_LINE_SIZE, 0);
	return MRC_TEST_OK;
}

static int
test_trimmed(void)
{
	uint8_t b[MRC_TEST_MAX_PKT + 1024];
	struct mrc_test_sample s;
	struct mrc_pkt v;
	size_t len;

	MRC_T_RUN(sample_bytes(15, &s, b, &len));
	MRC_T_EQ(len, 14 + 40 + 40 + 8 + 12 + 4 + 16);
	MRC_T_EQ(parse_bytes(b, len, NULL, 0, &v), MRC_WIRE_OK);
	MRC_T_EQ(v.flags & (MRC_PKT_F_TRIMMED | MRC_PKT_F_TRIMMED_LASTHOP), MRC_PKT_F_TRIMMED);
	MRC_T_EQ(v.payload_len, 0);
	MRC_T_EQ(v.bth.psn, 100);
	MRC_T_EQ(v.data.dma_len, 65536);
	MRC_T_EQ(v.outer.dscp, cfg.dscp.trimmed);

	MRC_T_RUN(sample_bytes(16, &s, b, &len));
	MRC_T_EQ(parse_bytes(b, len, NULL, 0, &v), MRC_WIRE_OK);
	MRC_T_EQ(v.flags & (MRC_PKT_F_TRIMMED | MRC_PKT_F_TRIMMED_LASTHOP),
		MRC_PKT_F_TRIMMED | MRC_PKT_F_TRIMMED_LASTHOP);
	/* Cut inside RETH: the PSN is there but not where to put it. */
	MRC_T_EQ(parse_bytes(b, len - 1, NULL, 0, &v), MRC_WIRE_TRUNCATED);
	/* A trimmed packet may keep part of its payload. */
	MRC_T_RUN(sample_bytes(16, &s, b, &len));
	s.trim = false;
	len = mrc_test_sample_bytes(&s, &cfg, b, sizeof(b));
	b[15] = (uint8_t)((b[15] & 0x3f) | ((cfg.dscp.trimmed & 3) << 6));
	b[14] = (uint8_t)((b[14] & 0xf0) | (cfg.dscp.trimmed >> 2));
	MRC_T_EQ(parse_bytes(b, 200, NULL, 0, &v), MRC_WIRE_OK);
	MRC_T_ASSERT(v.flags & MRC_PKT_F_TRIMMED, "trim flag");
	/* ...but never more than it claims. */
	MRC_T_EQ(parse_bytes(b, len + 8, NULL, 0, &v), MRC_WIRE_LENGTH_MISMATCH);
	return MRC_TEST_OK;
}

static int
test_build_errors(void)
{
	struct mrc_test_sample s;
	struct rte_mbuf *m, *t;
	uint8_t before[64];

	MRC_T_EQ(mrc_test_sample_get(0, &s), 0);
	/* Not enough headroom: -ENOSPC, mbuf untouched. */
	m = mrc_test_mbuf_alloc(64, 256);
	memset(rte_pktmbuf_append(m, 32), 0xab, 32);
	memcpy(before, rte_pktmbuf_mtod(m, void *), 32);
	MRC_T_EQ(mrc_pkt_build(m, &s.pkt, &cfg, NULL), -ENOSPC);
	MRC_T_EQ(rte_pktmbuf_pkt_len(m), 32);
	MRC_T_EQ(rte_pktmbuf_headroom(m), 64);
	MRC_T_MEMEQ(before, rte_pktmbuf_mtod(m, void *), 32);
	mrc_test_mbuf_free(m);

	/* No tailroom for the ICRC and no trailer: -ENOSPC. */
	m = mrc_test_mbuf_alloc(MRC_TEST_HEADROOM, 32);
	rte_pktmbuf_append(m, 32);
	MRC_T_EQ(mrc_pkt_build(m, &s.pkt, &cfg, NULL), -ENOSPC);
	MRC_T_EQ(rte_pktmbuf_pkt_len(m), 32);
	/* A trailer that is not empty is refused too. */
	t = mrc_test_mbuf_alloc(0, 16);
	rte_pktmbuf_append(t, 1);
	MRC_T_EQ(mrc_pkt_build(m, &s.pkt, &cfg, t), -ENOSPC);
	mrc_test_mbuf_free(t);
	mrc_test_mbuf_free(m);

	/* Payload on a control packet, unknown opcode, SRH without SRv6, bad SRH. */
	m = mrc_test_mbuf_alloc(MRC_TEST_HEADROOM, 64);
	rte_pktmbuf_append(m, 4);
	MRC_T_EQ(mrc_test_sample_get(8, &s), 0);
	MRC_T_EQ(mrc_pkt_build(m, &s.pkt, &cfg, NULL), -EINVAL);
	MRC_T_EQ(mrc_test_sample_get(0, &s), 0);
	s.pkt.bth.opcode = 0x0a;
	MRC_T_EQ(mrc_pkt_build(m, &s.pkt, &cfg, NULL), -EINVAL);
	MRC_T_EQ(mrc_test_sample_get(2, &s), 0);
	s.pkt.flags &= ~MRC_PKT_F_SRV6;
	MRC_T_EQ(mrc_pkt_build(m, &s.pkt, &cfg, NULL), -EINVAL);
	MRC_T_EQ(mrc_test_sample_get(2, &s), 0);
	s.pkt.srh.segments_left = s.pkt.srh.n_segs;
	MRC_T_EQ(mrc_pkt_build(m, &s.pkt, &cfg, NULL), -EINVAL);
	s.pkt.srh.segments_left = 0;
	s.pkt.srh.n_segs = MRC_SRH_MAX_SEGS + 1;
	MRC_T_EQ(mrc_pkt_build(m, &s.pkt, &cfg, NULL), -EINVAL);
	MRC_T_EQ(rte_pktmbuf_pkt_len(m), 4);
	mrc_test_mbuf_free(m);

	/* More than 64 KiB cannot be described by the IPv6 payload length. */
	MRC_T_EQ(mrc_test_sample_get(0, &s), 0);
	m = mrc_test_mbuf_alloc(MRC_TEST_HEADROOM, 8);
	for (int k = 0; k < 5; k++) {
		struct rte_mbuf *seg = mrc_test_mbuf_alloc(0, 16000);

		rte_pktmbuf_append(seg, 16000);
		mrc_test_mbuf_chain(m, seg);
	}
	MRC_T_EQ(mrc_pkt_build(m, &s.pkt, &cfg, NULL), -EINVAL);
	mrc_test_mbuf_free(m);
	return MRC_TEST_OK;
}

static void
ext_free_cb(void *addr, void *opaque)
{
	(void)addr;
	(void)opaque;
}

/* The payload lives in external memory (a registered region): never written. */
static int
test_zero_copy_external_payload(void)
{
	static uint8_t region[4096];
	struct rte_mbuf_ext_shared_info shinfo = {.free_cb = ext_free_cb};
	struct mrc_test_sample s;
	struct rte_mbuf *hdr, *pl, *t;
	uint8_t flat[MRC_TEST_MAX_PKT], expect[MRC_TEST_MAX_PKT];
	struct mrc_pkt v;
	size_t len;

	for (size_t i = 0; i < sizeof(region); i++)
		region[i] = mrc_test_payload_byte(100, (uint32_t)i);
	rte_mbuf_ext_refcnt_set(&shinfo, 1);
	MRC_T_EQ(mrc_test_sample_get(4, &s), 0); /* write_only_srv6_srh3, 4096 bytes */
	hdr = mrc_test_mbuf_alloc(MRC_TEST_HEADROOM, 0);
	pl = mrc_test_mbuf_alloc(0, 0);
	rte_pktmbuf_attach_extbuf(pl, region, 0, sizeof(region), &shinfo);
	rte_pktmbuf_append(pl, sizeof(region));
	mrc_test_mbuf_chain(hdr, pl);
	t = mrc_test_mbuf_alloc(0, 8);

	MRC_T_EQ(mrc_pkt_build(hdr, &s.pkt, &cfg, t), 0);
	MRC_T_ASSERT(hdr->next == pl && pl->next == t, "chain is hdr -> payload -> trailer");
	MRC_T_ASSERT(rte_pktmbuf_mtod(pl, uint8_t *) == region, "payload moved");
	MRC_T_EQ(pl->data_len, sizeof(region));
	for (size_t i = 0; i < sizeof(region); i++)
		MRC_T_EQ(region[i], mrc_test_payload_byte(100, (uint32_t)i));
	MRC_T_EQ(mrc_pkt_parse(hdr, &cfg, &v), MRC_WIRE_OK);
	MRC_T_EQ(v.payload_len, 4096);
	/* Same bytes as the sample built from heap segments. */
	len = mrc_test_mbuf_flatten(hdr, flat, sizeof(flat));
	MRC_T_EQ(len, mrc_test_sample_bytes(&s, &cfg, expect, sizeof(expect)));
	MRC_T_MEMEQ(flat, expect, len);
	/* The header segment holds exactly the headers. */
	MRC_T_EQ(hdr->data_len, mrc_pkt_hdr_len(&s.pkt));
	mrc_test_mbuf_free(hdr);
	return MRC_TEST_OK;
}

static int
test_format(void)
{
	uint8_t b[MRC_TEST_MAX_PKT + 1024];
	struct mrc_test_sample s;
	struct mrc_pkt v;
	char line[1024], small[16];
	size_t len;
	int n;

	MRC_T_RUN(sample_bytes(5, &s, b, &len));
	MRC_T_EQ(parse_bytes(b, len, NULL, 0, &v), MRC_WIRE_OK);
	n = mrc_pkt_format(line, sizeof(line), &v);
	MRC_T_EQ(n, (int)strlen(line));
	MRC_T_STREQ(line,
		"ip6 fd00::a001 > fd00::b002 dscp=4 ecn=ect0 hl=64 fl=0x00003 | ev=0x0003a5c1 | "
		"WRITE_ONLY_IMM qp=0x000011 psn=100 | meth rqmsn=3 msn=7 | "
		"reth va=0x7f0012340000 rkey=0x1234abcd len=2 | imm=0x01020304 | payload=2 "
		"icrc=0xbe77376a");
	/* Truncation behaves like snprintf. */
	MRC_T_EQ(mrc_pkt_format(small, sizeof(small), &v), n);
	MRC_T_EQ(strlen(small), sizeof(small) - 1);
	MRC_T_EQ(mrc_pkt_format(NULL, 0, &v), n);

	MRC_T_RUN(sample_bytes(15, &s, b, &len));
	MRC_T_EQ(parse_bytes(b, len, NULL, 0, &v), MRC_WIRE_OK);
	mrc_pkt_format(line, sizeof(line), &v);
	static const char want[] = "TRIMMED srv6 fcbb:0:e001:: > fcbb:0:110:121:132:: dscp=12";

	MRC_T_ASSERT(strncmp(line, want, strlen(want)) == 0, "got '%s'", line);
	MRC_T_ASSERT(strstr(line, "payload=0") != NULL && strstr(line, "icrc") == NULL,
		"trimmed packets have no payload and no ICRC: '%s'", line);
	return MRC_TEST_OK;
}

static int
test_crc32(void)
{
	static const char check[] = "123456789";
	uint8_t buf[1000];
	unsigned int seed = 7;

	/* The CRC-32 check value (IEEE 802.3). */
	MRC_T_U64_EQ(~mrc_crc32_update(0xffffffff, check, 9), 0xcbf43926u);
	MRC_T_U64_EQ(
		mrc_crc32_update(0xffffffff, "\xff\xff\xff\xff\xff\xff\xff\xff", 8), MRC_ICRC_SEED);
	/* Slicing, alignment and segment boundaries do not change the result. */
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)rand_r(&seed);
	for (int trial = 0; trial < 200; trial++) {
		size_t off = (size_t)rand_r(&seed) % 16, n = (size_t)rand_r(&seed) % 900;
		size_t split = n ? (size_t)rand_r(&seed) % n : 0;
		uint32_t ref = 0xffffffff;

		for (size_t k = 0; k < n; k++) { /* bitwise reference */
			ref ^= buf[off + k];
			for (int j = 0; j < 8; j++)
				ref = (ref >> 1) ^ (0xedb88320u & (0u - (ref & 1)));
		}
		MRC_T_U64_EQ(mrc_crc32_update(0xffffffff, buf + off, n), ref);
		MRC_T_U64_EQ(mrc_crc32_update(mrc_crc32_update(0xffffffff, buf + off, split),
				     buf + off + split, n - split),
			ref);
		size_t cuts[1] = {split};
		struct rte_mbuf *m = mrc_test_mbuf_from(buf, off + n, cuts, split > 0 ? 1 : 0, 0);

		MRC_T_U64_EQ(mrc_crc32_mbuf(0xffffffff, m, (uint32_t)off, (uint32_t)n), ref);
		mrc_test_mbuf_free(m);
	}
	return MRC_TEST_OK;
}

/* The 512-bit, 128-bit carry-less and table paths agree on every length and alignment. */
static int
test_crc32_implementations_agree(void)
{
	static uint8_t buf[9300];
	unsigned int seed = 99;
	bool have_clmul = mrc_crc32_set_impl(MRC_CRC32_CLMUL) == 0;
	bool have_vclmul = mrc_crc32_set_impl(MRC_CRC32_VCLMUL) == 0;

	mrc_crc32_set_impl(MRC_CRC32_AUTO);
	if (!have_clmul) {
		printf("  (no PCLMULQDQ on this CPU: only the table path runs)\n");
		return MRC_TEST_SKIP;
	}
	if (!have_vclmul)
		printf("  (no VPCLMULQDQ/AVX-512 on this CPU: the 512-bit path is not checked)\n");
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)rand_r(&seed);
	/* Every length to 600 (where the 16-, 64-, 256-byte and reduction paths meet). */
	for (size_t len = 0; len < 9216; len += len < 600 ? 1 : 1 + len / 8) {
		for (size_t off = 0; off < 16; off += 5) {
			uint32_t init = (uint32_t)rand_r(&seed) * 2654435761u;
			uint32_t a, b2, c = 0;

			mrc_crc32_set_impl(MRC_CRC32_TABLE);
			a = mrc_crc32_update(init, buf + off, len);
			mrc_crc32_set_impl(MRC_CRC32_CLMUL);
			b2 = mrc_crc32_update(init, buf + off, len);
			MRC_T_ASSERT(a == b2, "len %zu off %zu: table 0x%08x, clmul 0x%08x", len,
				off, a, b2);
			if (have_vclmul) {
				mrc_crc32_set_impl(MRC_CRC32_VCLMUL);
				c = mrc_crc32_update(init, buf + off, len);
				MRC_T_ASSERT(a == c, "len %zu off %zu: table 0x%08x, vclmul 0x%08x",
					len, off, a, c);
			}
		}
	}
	/* AUTO goes wide only when the EAL's SIMD width allows 512 bits. */
	mrc_crc32_set_impl(MRC_CRC32_AUTO);
	MRC_T_EQ(rte_vect_set_max_simd_bitwidth(RTE_VECT_SIMD_256), 0);
	MRC_T_STREQ(mrc_crc32_impl_name(), "pclmulqdq");
	MRC_T_EQ(rte_vect_set_max_simd_bitwidth(RTE_VECT_SIMD_512), 0);
	MRC_T_STREQ(mrc_crc32_impl_name(), have_vclmul ? "vpclmulqdq" : "pclmulqdq");
	return MRC_TEST_OK;
}

/*
 * mrc_icrc_calc() folds the masked header copy and every segment after it
 * as one run, reducing once at the end (a segment cut mid-block reduces
 * there): over chains cut anywhere, with and without a cut inside the
 * masked headers, every implementation gives the table loop's ICRC.
 */
static int
test_icrc_fold_across_segments(void)
{
	static uint8_t buf[4600];
	unsigned int seed = 5;
	bool have_clmul = mrc_crc32_set_impl(MRC_CRC32_CLMUL) == 0;
	bool have_vclmul = mrc_crc32_set_impl(MRC_CRC32_VCLMUL) == 0;
	const enum mrc_crc32_impl impls[] = {MRC_CRC32_CLMUL, MRC_CRC32_VCLMUL};

	mrc_crc32_set_impl(MRC_CRC32_AUTO);
	if (!have_clmul)
		return MRC_TEST_SKIP;
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)rand_r(&seed);
	for (int trial = 0; trial < 3000; trial++) {
		/* From a header-only packet to a 4 KiB payload. */
		size_t len = 64 + (size_t)rand_r(&seed) % (trial % 2 ? 4400 : 500);
		uint32_t ip_off = (uint32_t)rand_r(&seed) % 40;
		uint32_t covered = (uint32_t)(len - ip_off - 4);
		size_t cuts[3];
		unsigned int n_cuts = (unsigned int)rand_r(&seed) % 4;
		uint32_t ref;

		for (unsigned int c = 0; c < n_cuts; c++) /* sorted, may repeat */
			cuts[c] = (c ? cuts[c - 1] : 0) +
				  (size_t)rand_r(&seed) % ((len - (c ? cuts[c - 1] : 0)) / 2 + 1);
		struct rte_mbuf *m = mrc_test_mbuf_from(buf, len, cuts, n_cuts, 0);

		MRC_T_ASSERT(m != NULL, "chain of %zu bytes", len);
		mrc_crc32_set_impl(MRC_CRC32_TABLE);
		ref = mrc_icrc_calc(m, ip_off, covered);
		for (size_t k = 0; k < RTE_DIM(impls); k++) {
			uint32_t got;

			if (impls[k] == MRC_CRC32_VCLMUL && !have_vclmul)
				continue;
			mrc_crc32_set_impl(impls[k]);
			got = mrc_icrc_calc(m, ip_off, covered);
			MRC_T_ASSERT(got == ref,
				"len %zu ip_off %u cuts %u (%zu): impl %d 0x%08x, "
				"table 0x%08x",
				len, ip_off, n_cuts, n_cuts ? cuts[0] : 0, (int)impls[k], got, ref);
		}
		mrc_test_mbuf_free(m);
	}
	mrc_crc32_set_impl(MRC_CRC32_AUTO);
	return MRC_TEST_OK;
}

static int
test_cfg_and_names(void)
{
	struct mrc_wire_cfg c;
	const char *why = NULL;

	mrc_wire_cfg_defaults(&c);
	MRC_T_EQ(mrc_wire_cfg_check(&c, &why), 0);
	MRC_T_ASSERT(why == NULL, "no reason expected");
	c.dscp.trimmed = c.dscp.trimmable;
	MRC_T_EQ(mrc_wire_cfg_check(&c, &why), -EINVAL);
	MRC_T_ASSERT(why != NULL && strstr(why, "trimmed") != NULL, "reason names trimmed");
	mrc_wire_cfg_defaults(&c);
	c.dscp.control = 64;
	MRC_T_EQ(mrc_wire_cfg_check(&c, &why), -EINVAL);
	mrc_wire_cfg_defaults(&c);
	c.dscp.trimmed_lasthop = c.dscp.trimmed;
	MRC_T_EQ(mrc_wire_cfg_check(&c, &why), -EINVAL);

	for (int a = 0; a < MRC_WIRE_REJECT_MAX; a++) {
		MRC_T_ASSERT(strlen(mrc_wire_reject_name((enum mrc_wire_rx)a)) > 0, "name %d", a);
		MRC_T_ASSERT(strlen(mrc_wire_reject_help((enum mrc_wire_rx)a)) > 10, "help %d", a);
		for (int b2 = a + 1; b2 < MRC_WIRE_REJECT_MAX; b2++)
			MRC_T_ASSERT(strcmp(mrc_wire_reject_name((enum mrc_wire_rx)a),
					     mrc_wire_reject_name((enum mrc_wire_rx)b2)) != 0,
				"duplicate name");
	}
	MRC_T_STREQ(mrc_wire_reject_name(MRC_WIRE_REJECT_MAX), "invalid");
	MRC_T_STREQ(mrc_opcode_name(MRC_OP_SACK), "SACK");
	MRC_T_ASSERT(mrc_opcode_name(0x06) == NULL, "RC opcode is not MRC's");
	MRC_T_STREQ(mrc_nack_reason_name(0x19), "UNEXP_EVENT");
	MRC_T_ASSERT(mrc_nack_reason_name(0x03) == NULL, "0x03 unknown");
	return MRC_TEST_OK;
}

static const struct mrc_test_case cases[] = {
	MRC_TEST_CASE(test_header_layouts),
	MRC_TEST_CASE(test_data_packet_bytes),
	MRC_TEST_CASE(test_bth_flags_and_limits),
	MRC_TEST_CASE(test_ev_split),
	MRC_TEST_CASE(test_sack_fields),
	MRC_TEST_CASE(test_control_fields),
	MRC_TEST_CASE(test_roundtrip_every_sample),
	MRC_TEST_CASE(test_every_prefix_is_truncated),
	MRC_TEST_CASE(test_every_reject_reason),
	MRC_TEST_CASE(test_peek_agrees_with_parse),
	MRC_TEST_CASE(test_trimmed),
	MRC_TEST_CASE(test_build_errors),
	MRC_TEST_CASE(test_zero_copy_external_payload),
	MRC_TEST_CASE(test_format),
	MRC_TEST_CASE(test_crc32),
	MRC_TEST_CASE(test_crc32_implementations_agree),
	MRC_TEST_CASE(test_icrc_every_two_segment_cut),
	MRC_TEST_CASE(test_icrc_fold_across_segments),
	MRC_TEST_CASE(test_cfg_and_names),
};

int
main(int argc, char **argv)
{
	init_cfg();
	return mrc_test_main("wire", cases, RTE_DIM(cases), argc, argv);
}
