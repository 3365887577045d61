/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#include <stdio.h>
#include <string.h>

#include <rte_ether.h>
#include <rte_ip.h>

#include "mrc_srv6.h"
#include "mrc_test_mbuf.h"
#include "mrc_test_pkts.h"

/* Block fcbb::/32, a uSID per switch (sample values; the plan: doc/protocol.md). */
#define BLOCK 0xfcbb0000u

static const uint8_t nic_a[16] = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xa0, 0x01};
static const uint8_t nic_b[16] = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xb0, 0x02};
static const uint8_t loc_a[16] = {0xfc, 0xbb, 0, 0, 0xe0, 0x01};

static void
base(struct mrc_pkt *p, uint8_t opcode, bool srv6, const struct mrc_wire_cfg *cfg)
{
	memset(p, 0, sizeof(*p));
	p->eth_dst = (struct rte_ether_addr){{0x02, 0, 0, 0, 0, 0x02}};
	p->eth_src = (struct rte_ether_addr){{0x02, 0, 0, 0, 0, 0x01}};
	memcpy(p->ip.src, nic_a, 16);
	memcpy(p->ip.dst, nic_b, 16);
	p->ip.hop_limit = 64;
	p->ip.ecn = MRC_ECN_ECT0;
	p->ip.dscp = mrc_opcode_is_data(opcode) || opcode == MRC_OP_PROBE ? cfg->dscp.trimmable
									  : cfg->dscp.control;
	if (srv6) {
		p->flags |= MRC_PKT_F_SRV6;
		p->outer = p->ip;
		memcpy(p->outer.src, loc_a, 16);
	}
	p->ev = 0x0003a5c1;
	p->bth.opcode = opcode;
	p->bth.pkey = MRC_BTH_DEFAULT_PKEY;
	p->bth.dqpn = 0x000011;
	p->bth.psn = 100;
}

static void
path(struct mrc_pkt *p, unsigned int n)
{
	struct mrc_usid_path up = {.block = BLOCK, .n = (uint8_t)n};

	/* plane 1: T0 0x0110, T1 0x0120, T0 0x0111, then host and further hops */
	for (unsigned int i = 0; i < n; i++)
		up.usid[i] = (uint16_t)(0x0110 + 0x10 * (i % 3) + i);
	if (mrc_srv6_set_path(p, &up) != 0)
		fprintf(stderr, "sample path of %u uSIDs refused\n", n);
}

static void
data(struct mrc_pkt *p, uint32_t len)
{
	p->data.rqmsn = 3;
	p->data.msn = 7;
	p->data.va = 0x00007f0012340000ull;
	p->data.rkey = 0x1234abcd;
	p->data.dma_len = len;
}

/* Each entry fills a sample; the table order is the golden file order. */
static int
sample(unsigned int i, struct mrc_test_sample *s, const struct mrc_wire_cfg *cfg)
{
	struct mrc_pkt *p = &s->pkt;

	memset(s, 0, sizeof(*s));
	switch (i) {
	case 0:
		s->name = "write_first_srv6";
		base(p, MRC_OP_WRITE_FIRST, true, cfg);
		path(p, 4);
		s->payload_len = 1024;
		data(p, 8192);
		break;
	case 1:
		s->name = "write_middle_plain_tseth";
		base(p, MRC_OP_WRITE_MIDDLE, false, cfg);
		p->bth.ts = true;
		p->tseth.ts = 0xbeef;
		p->tseth.tsr = true;
		p->tseth.ftype = MRC_FTYPE_DEFAULT;
		s->payload_len = 1024;
		data(p, 8192);
		p->data.va += 1024;
		break;
	case 2:
		s->name = "write_last_srv6_srh2";
		base(p, MRC_OP_WRITE_LAST, true, cfg);
		path(p, 8);	      /* two containers: DA + SRH with 2 segments */
		s->payload_len = 301; /* pad 3 */
		data(p, 8192);
		break;
	case 3:
		s->name = "write_last_imm_vlan_srv6";
		base(p, MRC_OP_WRITE_LAST_IMM, true, cfg);
		p->flags |= MRC_PKT_F_VLAN;
		p->vlan_tci = 100;
		path(p, 3);
		s->payload_len = 13;
		data(p, 13);
		p->data.imm = 0xcafef00d;
		break;
	case 4:
		s->name = "write_only_srv6_srh3";
		base(p, MRC_OP_WRITE_ONLY, true, cfg);
		path(p, 15); /* three containers */
		s->payload_len = 4096;
		data(p, 4096);
		break;
	case 5:
		s->name = "write_only_imm_plain";
		base(p, MRC_OP_WRITE_ONLY_IMM, false, cfg);
		s->payload_len = 2;
		data(p, 2);
		p->data.imm = 0x01020304;
		break;
	case 6:
		s->name = "write_first_rtx_srv6";
		base(p, MRC_OP_WRITE_FIRST, true, cfg);
		path(p, 3);
		p->ip.dscp = p->outer.dscp = cfg->dscp.trimmable_retx;
		p->bth.rtx = true;
		p->bth.ackreq = true;
		p->bth.psn = 0xffffff; /* the last PSN before the wrap */
		p->ev = 0xfffe0001;
		s->payload_len = 64;
		data(p, 64);
		break;
	case 7:
		s->name = "ack_plain";
		base(p, MRC_OP_ACK, false, cfg);
		p->aeth.syndrome = 0x1f;
		p->aeth.msn = 0x123456;
		break;
	case 8:
		s->name = "sack_srv6";
		base(p, MRC_OP_SACK, true, cfg);
		path(p, 3);
		p->sack.m = MRC_SACK_M_SKIP_ONCE;
		p->sack.pr = true;
		p->sack.ack_psn_offset = 7;
		p->sack.entropy = 0x0003a5c1;
		p->sack.spdcid = 0x11;
		p->sack.dpdcid = 0x22;
		p->sack.cack_psn = 4;
		p->sack.cc_type = 2;
		p->sack.cc_flags = 0x1;
		p->sack.mpr = 8;
		p->sack.sack_offset = 1;
		p->sack.sack_bitmap = 0x76; /* doc/protocol.md, SETH: 5..11 as 0,1,1,0,1,1,1 */
		p->sack.ts_echo = 0x1234;
		p->sack.ooo_count = 5;
		p->sack.rc = true;
		p->sack.cwnd_pen = 64;
		p->sack.rcvd_bytes = 0xabcdef;
		break;
	case 9:
		s->name = "sack_always_skip_plain";
		base(p, MRC_OP_SACK, false, cfg);
		p->sack.m = MRC_SACK_M_ALWAYS_SKIP;
		p->sack.ack_psn_offset = -3;
		p->sack.cack_psn = 0xfffffe;
		p->sack.sack_offset = -2;
		p->sack.sack_bitmap = 0x8000000000000001ull;
		break;
	case 10:
		s->name = "nack_trimmed_srv6";
		base(p, MRC_OP_NACK, true, cfg);
		path(p, 3);
		p->nack.reason = MRC_NACK_TRIMMED;
		p->nack.entropy = 0x0003a5c1;
		p->nack.nack_psn = 123456;
		p->nack.cc_type = 2;
		p->nack.ts_echo = 0x4321;
		break;
	case 11:
		s->name = "nack_psn_oor_plain";
		base(p, MRC_OP_NACK, false, cfg);
		p->nack.reason = MRC_NACK_PSN_OOR_WINDOW;
		p->nack.vendor = 0x5a;
		p->nack.nack_psn = 0xfff000;
		break;
	case 12:
		s->name = "probe_srv6";
		base(p, MRC_OP_PROBE, true, cfg);
		path(p, 3);
		p->probe.probe_id = 0x0bad;
		p->probe.ts = 0x1111;
		p->probe.ftype = MRC_FTYPE_DEFAULT;
		break;
	case 13:
		s->name = "ep_request_port_status";
		base(p, MRC_OP_EP_REQUEST, false, cfg);
		p->bth.dqpn = MRC_EP_QPN;
		p->ep.op = MRC_EP_OP_PORT_STATUS;
		p->ep.req_id = 42;
		p->ep.port_status_mask = 0x000000f7; /* port 4 of 8 down */
		p->ep.epoch = 0x5eed0001;
		p->ep.ts = 0x2222;
		p->ep.ftype = MRC_FTYPE_DEFAULT;
		break;
	case 14:
		s->name = "ep_response_ev_probe_srv6";
		base(p, MRC_OP_EP_RESPONSE, true, cfg);
		path(p, 3);
		p->bth.dqpn = MRC_EP_QPN;
		p->ep.op = MRC_EP_OP_EV_PROBE;
		p->ep.req_id = 43;
		p->ep.port_status_mask = 0xff;
		p->ep.ts = 0x3333;
		p->ep.ftype = MRC_FTYPE_DEFAULT;
		p->ep.svc_valid = true;
		p->ep.svc_time_ns = 850;
		break;
	case 15:
		s->name = "write_middle_trimmed_srv6";
		base(p, MRC_OP_WRITE_MIDDLE, true, cfg);
		path(p, 3);
		s->payload_len = 4096;
		data(p, 65536);
		s->trim = true;
		break;
	case 16:
		s->name = "write_only_trimmed_lasthop_plain";
		base(p, MRC_OP_WRITE_ONLY, false, cfg);
		s->payload_len = 2048;
		data(p, 2048);
		s->trim = true;
		s->trim_lasthop = true;
		break;
	case 17:
		s->name = "write_only_zero_len_plain";
		base(p, MRC_OP_WRITE_ONLY, false, cfg);
		p->ip.ecn = MRC_ECN_CE;
		s->payload_len = 0;
		data(p, 0);
		break;
	case 18:
		/* A responder whose window was lowered under the requester (dynamic MPR). */
		s->name = "nack_no_bitmap_srv6";
		base(p, MRC_OP_NACK, true, cfg);
		path(p, 3);
		p->nack.reason = MRC_NACK_NO_BITMAP;
		p->nack.entropy = 0x2007b00d;
		p->nack.spdcid = 0x101;
		p->nack.dpdcid = 0x100;
		p->nack.nack_psn = 0x000181;
		p->nack.ts_echo = 0x5a5a; /* the refused packet's TSETH stamp */
		break;
	case 19:
		/* An immediate with no completion or Write-IMM table to go to. */
		s->name = "nack_no_pkt_buffer_plain";
		base(p, MRC_OP_NACK, false, cfg);
		p->nack.reason = MRC_NACK_NO_PKT_BUFFER;
		p->nack.entropy = 0x1003c0de;
		p->nack.nack_psn = 0x00002a;
		break;
	case 20:
		/* What a responder short of resources answers: MPR 0 (no dynamic MPR), a
		 * penalty with R_C, the echoed stamp. */
		s->name = "sack_penalty_echo_plain";
		base(p, MRC_OP_SACK, false, cfg);
		p->sack.ack_psn_offset = 0;
		p->sack.entropy = 0x1003c0de;
		p->sack.spdcid = 0x101;
		p->sack.dpdcid = 0x100;
		p->sack.cack_psn = 0x00002a;
		p->sack.sack_offset = 1;
		p->sack.ts_echo = 0x0102;
		p->sack.ooo_count = 3;
		p->sack.rc = true;
		p->sack.cwnd_pen = 32;
		p->sack.rcvd_bytes = 0x000400;
		break;
	case 21:
		/* Dynamic MPR: the responder's current window, 1 x 128 PSNs. */
		s->name = "sack_dyn_mpr_srv6";
		base(p, MRC_OP_SACK, true, cfg);
		path(p, 3);
		p->sack.entropy = 0x2007b00d;
		p->sack.cack_psn = 0x000180;
		p->sack.mpr = 1;
		p->sack.sack_offset = 1;
		p->sack.sack_bitmap = 0x5;
		p->sack.ack_psn_offset = 3;
		break;
	case 22:
		/* A transport NAK: remote access error (the QP goes to error). */
		s->name = "ack_nak_remote_access_plain";
		base(p, MRC_OP_ACK, false, cfg);
		p->bth.psn = 0x000010;
		p->aeth.syndrome = MRC_AETH_NAK | MRC_AETH_NAK_REMOTE_ACCESS;
		p->aeth.msn = 2;
		break;
	case 23:
		/* what mrcd answers a port-status update with: its own mask, the id echoed */
		s->name = "ep_response_port_status_plain";
		base(p, MRC_OP_EP_RESPONSE, false, cfg);
		p->bth.dqpn = MRC_EP_QPN;
		p->ep.op = MRC_EP_OP_PORT_STATUS;
		p->ep.req_id = 42;
		p->ep.port_status_mask = 0xff;
		p->ep.ts = 0x2222;
		p->ep.ftype = MRC_FTYPE_DEFAULT;
		break;
	case 24:
		s->name = "ep_request_ev_probe_srv6";
		base(p, MRC_OP_EP_REQUEST, true, cfg);
		path(p, 3);
		p->bth.dqpn = MRC_EP_QPN;
		p->ep.op = MRC_EP_OP_EV_PROBE;
		p->ep.req_id = 7;
		p->ep.epoch = 0x5eed0001;
		p->ep.ts = 0x4444;
		p->ep.ftype = MRC_FTYPE_DEFAULT;
		break;
	case 25:
		/* a flow's sending process asks the receiving one for its end of spare pair 9 */
		s->name = "ep_request_flow_recover_make_srv6";
		base(p, MRC_OP_EP_REQUEST, true, cfg);
		path(p, 2);
		p->bth.dqpn = MRC_EP_QPN;
		p->ep.op = MRC_EP_OP_FLOW_RECOVER;
		p->ep.req_id = 3;
		p->ep.epoch = 0x5eed0002;
		p->ep.ts = 0x5555;
		p->ep.ftype = MRC_FTYPE_DEFAULT;
		p->ep.rec.kind = MRC_EP_REC_MAKE;
		p->ep.rec.life = 2;
		p->ep.rec.flow = 0x01020304;
		p->ep.rec.spare = 9;
		p->ep.rec.seq = 0x1122334455667788ull;
		break;
	case 26:
		/* ... and the answer to a receiver's "my QP failed" */
		s->name = "ep_response_flow_recover_failed_plain";
		base(p, MRC_OP_EP_RESPONSE, false, cfg);
		p->bth.dqpn = MRC_EP_QPN;
		p->ep.op = MRC_EP_OP_FLOW_RECOVER;
		p->ep.req_id = 4;
		p->ep.ts = 0x6666;
		p->ep.ftype = MRC_FTYPE_DEFAULT;
		p->ep.rec.kind = MRC_EP_REC_FAILED;
		p->ep.rec.status = 3;
		p->ep.rec.life = 1;
		p->ep.rec.flow = 7;
		break;
	case 27:
		/* a flow's sending process tells the receiving one it gave the flow up (no_answer)
		 */
		s->name = "ep_request_flow_recover_give_up_plain";
		base(p, MRC_OP_EP_REQUEST, false, cfg);
		p->bth.dqpn = MRC_EP_QPN;
		p->ep.op = MRC_EP_OP_FLOW_RECOVER;
		p->ep.req_id = 5;
		p->ep.epoch = 0x5eed0003;
		p->ep.ts = 0x7777;
		p->ep.ftype = MRC_FTYPE_DEFAULT;
		p->ep.rec.kind = MRC_EP_REC_GIVE_UP;
		p->ep.rec.status = 7;
		p->ep.rec.life = 4;
		p->ep.rec.flow = 11;
		break;
	default:
		return -1;
	}
	return 0;
}

unsigned int
mrc_test_sample_count(void)
{
	return 28;
}

int
mrc_test_sample_get(unsigned int i, struct mrc_test_sample *s)
{
	struct mrc_wire_cfg cfg;

	mrc_wire_cfg_defaults(&cfg);
	return sample(i, s, &cfg);
}

int
mrc_test_trim(uint8_t *pkt, size_t *len, const struct mrc_wire_cfg *cfg, bool lasthop)
{
	struct rte_mbuf *m = mrc_test_mbuf_from(pkt, *len, NULL, 0, 0);
	struct mrc_pkt v;
	enum mrc_wire_rx rc;

	if (m == NULL)
		return -1;
	rc = mrc_pkt_parse(m, cfg, &v);
	mrc_test_mbuf_free(m);
	if (rc != MRC_WIRE_OK || !mrc_opcode_is_data(v.bth.opcode))
		return -1;
	/*
	 * A switch cuts what follows the headers, rewrites the outermost DSCP and
	 * fixes the length of the header it routes on (the outermost IPv6); the
	 * inner IPv6 and UDP lengths still describe the packet as it was sent.
	 */
	*len = v.payload_off;
	uint8_t *tc = pkt + v.l3_off;
	uint16_t plen = (uint16_t)(*len - v.l3_off - 40);

	tc[4] = (uint8_t)(plen >> 8);
	tc[5] = (uint8_t)plen;
	uint8_t dscp = lasthop ? cfg->dscp.trimmed_lasthop : cfg->dscp.trimmed;
	uint32_t vtc =
		((uint32_t)tc[0] << 24) | ((uint32_t)tc[1] << 16) | ((uint32_t)tc[2] << 8) | tc[3];

	vtc = (vtc & ~(0x3fu << 22)) | ((uint32_t)dscp << 22);
	tc[0] = (uint8_t)(vtc >> 24);
	tc[1] = (uint8_t)(vtc >> 16);
	tc[2] = (uint8_t)(vtc >> 8);
	tc[3] = (uint8_t)vtc;
	return 0;
}

struct rte_mbuf *
mrc_test_sample_build(const struct mrc_test_sample *s, const struct mrc_wire_cfg *cfg,
	const size_t *cuts, unsigned int n_cuts)
{
	uint8_t payload[MRC_TEST_MAX_PKT];
	struct rte_mbuf *m, *trailer;
	int rc;

	if (s->payload_len > sizeof(payload))
		return NULL;
	for (uint32_t i = 0; i < s->payload_len; i++)
		payload[i] = mrc_test_payload_byte(s->pkt.bth.psn, i);
	/* An empty header segment first, the payload after it: how a QP sends. */
	m = mrc_test_mbuf_alloc(MRC_TEST_HEADROOM, 64);
	if (m == NULL)
		return NULL;
	if (s->payload_len > 0) {
		struct rte_mbuf *pl = mrc_test_mbuf_from(payload, s->payload_len, cuts, n_cuts, 0);

		if (pl == NULL) {
			mrc_test_mbuf_free(m);
			return NULL;
		}
		mrc_test_mbuf_chain(m, pl);
	}
	trailer = mrc_test_mbuf_alloc(0, 16);
	rc = mrc_pkt_build(m, &s->pkt, cfg, trailer);
	if (rc != 0) {
		fprintf(stderr, "sample %s: build failed: %d\n", s->name, rc);
		mrc_test_mbuf_free(m);
		mrc_test_mbuf_free(trailer);
		return NULL;
	}
	/* The trailer was used only if the last payload segment had no room. */
	if (rte_pktmbuf_lastseg(m) != trailer)
		mrc_test_mbuf_free(trailer);
	return m;
}

size_t
mrc_test_sample_bytes(
	const struct mrc_test_sample *s, const struct mrc_wire_cfg *cfg, uint8_t *out, size_t cap)
{
	struct rte_mbuf *m = mrc_test_sample_build(s, cfg, NULL, 0);
	size_t len;

	if (m == NULL)
		return 0;
	len = mrc_test_mbuf_flatten(m, out, cap);
	mrc_test_mbuf_free(m);
	if (len > cap)
		return 0;
	if (s->trim && mrc_test_trim(out, &len, cfg, s->trim_lasthop) != 0)
		return 0;
	return len;
}
