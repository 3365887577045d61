/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#include <string.h>

#include <rte_byteorder.h>

#include "mrc_wire_priv.h"

size_t
mrc_transport_hdr_len(uint8_t opcode, bool ts)
{
	const size_t bth = sizeof(struct mrc_bth);

	switch (opcode) {
	case MRC_OP_WRITE_FIRST:
	case MRC_OP_WRITE_MIDDLE:
	case MRC_OP_WRITE_LAST:
	case MRC_OP_WRITE_ONLY:
		return MRC_DATA_HDR_LEN + (ts ? sizeof(struct mrc_tseth) : 0);
	case MRC_OP_WRITE_LAST_IMM:
	case MRC_OP_WRITE_ONLY_IMM:
		return MRC_DATA_HDR_LEN + sizeof(struct mrc_immdt) +
		       (ts ? sizeof(struct mrc_tseth) : 0);
	case MRC_OP_ACK:
		return bth + sizeof(struct mrc_aeth);
	case MRC_OP_EP_REQUEST:
		return bth + sizeof(struct mrc_erth);
	case MRC_OP_EP_RESPONSE:
		return bth + sizeof(struct mrc_eeth);
	case MRC_OP_SACK:
		return bth + sizeof(struct mrc_seth) + sizeof(struct mrc_cc_state);
	case MRC_OP_NACK:
		return bth + sizeof(struct mrc_neth);
	case MRC_OP_PROBE:
		return bth + sizeof(struct mrc_peth);
	default:
		return 0;
	}
}

size_t
mrc_pkt_transport_len(const struct mrc_pkt *pkt)
{
	const size_t thl = mrc_transport_hdr_len(pkt->bth.opcode, pkt->bth.ts);
	const bool ep =
		pkt->bth.opcode == MRC_OP_EP_REQUEST || pkt->bth.opcode == MRC_OP_EP_RESPONSE;

	return thl != 0 && ep && pkt->ep.op == MRC_EP_OP_FLOW_RECOVER
		       ? thl + sizeof(struct mrc_efrh)
		       : thl;
}

void
mrc_bth_decode(const struct mrc_bth *b, struct mrc_bth_view *v)
{
	uint32_t w1 = rte_be_to_cpu_32(b->fb_dqpn);
	uint32_t w2 = rte_be_to_cpu_32(b->flags_psn);

	v->opcode = b->opcode;
	v->se = (b->flags & MRC_BTH_SE) != 0;
	v->migreq = (b->flags & MRC_BTH_MIGREQ) != 0;
	v->pad = (b->flags & MRC_BTH_PAD_MASK) >> MRC_BTH_PAD_SHIFT;
	v->tver = b->flags & MRC_BTH_TVER_MASK;
	v->pkey = rte_be_to_cpu_16(b->pkey);
	v->fecn = (w1 & MRC_BTH_FECN) != 0;
	v->becn = (w1 & MRC_BTH_BECN) != 0;
	v->dqpn = w1 & MRC_BTH_QPN_MASK;
	v->ackreq = (w2 & MRC_BTH_ACKREQ) != 0;
	v->rtx = (w2 & MRC_BTH_RTX) != 0;
	v->ts = (w2 & MRC_BTH_TS) != 0;
	v->psn = w2 & MRC_BTH_PSN_MASK;
}

static void
pds_decode(rte_be16_t hdr, struct mrc_pds_view *v)
{
	uint16_t h = rte_be_to_cpu_16(hdr);

	v->type = (h & MRC_PDS_TYPE_MASK) >> MRC_PDS_TYPE_SHIFT;
	v->next_hdr = (h & MRC_PDS_NH_MASK) >> MRC_PDS_NH_SHIFT;
}

static uint16_t
pds_encode(const struct mrc_pds_view *v)
{
	return (uint16_t)(((v->type << MRC_PDS_TYPE_SHIFT) & MRC_PDS_TYPE_MASK) |
			  ((v->next_hdr << MRC_PDS_NH_SHIFT) & MRC_PDS_NH_MASK));
}

static void
tsr_ftype_decode(rte_be16_t f, bool *tsr, uint8_t *ftype)
{
	uint16_t h = rte_be_to_cpu_16(f);

	*tsr = (h & MRC_TSR_FLAG) != 0;
	*ftype = h & MRC_FTYPE_MASK;
}

static rte_be16_t
tsr_ftype_encode(bool tsr, uint8_t ftype)
{
	return rte_cpu_to_be_16((uint16_t)((tsr ? MRC_TSR_FLAG : 0) | (ftype & MRC_FTYPE_MASK)));
}

static bool
nack_reason_known(uint8_t reason)
{
	switch (reason) {
#define MRC_NACK_CASE(name, code, help) case code:
		MRC_NACK_REASONS(MRC_NACK_CASE)
#undef MRC_NACK_CASE
		return true;
	default:
		return false;
	}
}

static enum mrc_wire_rx
decode_data(const uint8_t *p, struct mrc_pkt *pkt)
{
	const struct mrc_meth *meth = (const struct mrc_meth *)p;
	const struct mrc_reth *reth;

	pkt->data.rqmsn = rte_be_to_cpu_16(meth->rqmsn);
	pkt->data.msn = rte_be_to_cpu_16(meth->msn);
	p += sizeof(*meth);
	if (pkt->bth.ts) {
		const struct mrc_tseth *t = (const struct mrc_tseth *)p;

		pkt->tseth.ts = rte_be_to_cpu_16(t->ts);
		tsr_ftype_decode(t->tsr_ftype, &pkt->tseth.tsr, &pkt->tseth.ftype);
		p += sizeof(*t);
	}
	reth = (const struct mrc_reth *)p;
	pkt->data.va = rte_be_to_cpu_64(reth->va);
	pkt->data.rkey = rte_be_to_cpu_32(reth->rkey);
	pkt->data.dma_len = rte_be_to_cpu_32(reth->dma_len);
	p += sizeof(*reth);
	pkt->data.imm = 0;
	if (mrc_opcode_has_imm(pkt->bth.opcode))
		pkt->data.imm = rte_be_to_cpu_32(((const struct mrc_immdt *)p)->imm);
	return MRC_WIRE_OK;
}

static enum mrc_wire_rx
decode_sack(const uint8_t *p, const struct mrc_wire_cfg *cfg, struct mrc_sack_view *v)
{
	const struct mrc_seth *s = (const struct mrc_seth *)p;
	const struct mrc_cc_state *cc = (const struct mrc_cc_state *)(s + 1);
	uint16_t h = rte_be_to_cpu_16(s->hdr);
	uint32_t pr = rte_be_to_cpu_32(cc->pen_rcvd);

	pds_decode(s->hdr, &v->pds);
	v->m = (h & MRC_SETH_M_MASK) >> MRC_SETH_M_SHIFT;
	if (v->m > MRC_SACK_M_ALWAYS_SKIP)
		return MRC_WIRE_BAD_SACK_VERDICT;
	v->pr = (h & MRC_SETH_PR) != 0;
	v->ack_psn_offset = (int16_t)rte_be_to_cpu_16(s->ack_psn_offset);
	v->entropy = rte_be_to_cpu_32(s->entropy);
	v->spdcid = rte_be_to_cpu_16(s->spdcid);
	v->dpdcid = rte_be_to_cpu_16(s->dpdcid);
	v->cack_psn = rte_be_to_cpu_32(s->cack_psn) & MRC_BTH_PSN_MASK;
	v->cc_type = s->cc_type_flags >> 4;
	v->cc_flags = s->cc_type_flags & 0x0f;
	v->mpr = s->mpr;
	v->sack_offset = (int16_t)rte_be_to_cpu_16(s->sack_offset);
	v->sack_bitmap =
		mrc_sack_bitmap_wire(rte_be_to_cpu_64(s->sack_bitmap), cfg->sack_bit_order);
	v->ts_echo = rte_be_to_cpu_16(cc->ts_echo);
	v->ooo_count = rte_be_to_cpu_16(cc->ooo_count) & MRC_CC_OOO_MASK;
	v->rc = (pr & MRC_CC_RC) != 0;
	v->cwnd_pen = (pr >> MRC_CC_PEN_SHIFT) & MRC_CC_PEN_MASK;
	v->rcvd_bytes = pr & MRC_CC_RCVD_MASK;
	return MRC_WIRE_OK;
}

static enum mrc_wire_rx
decode_nack(const uint8_t *p, struct mrc_nack_view *v)
{
	const struct mrc_neth *n = (const struct mrc_neth *)p;

	pds_decode(n->hdr, &v->pds);
	v->reason = n->reason;
	if (!nack_reason_known(v->reason))
		return MRC_WIRE_UNKNOWN_NACK_REASON;
	v->vendor = n->vendor;
	v->entropy = rte_be_to_cpu_32(n->entropy);
	v->spdcid = rte_be_to_cpu_16(n->spdcid);
	v->dpdcid = rte_be_to_cpu_16(n->dpdcid);
	v->nack_psn = rte_be_to_cpu_32(n->nack_psn) & MRC_BTH_PSN_MASK;
	v->cc_type = n->cc_type_flags >> 4;
	v->cc_flags = n->cc_type_flags & 0x0f;
	v->ts_echo = rte_be_to_cpu_16(n->ts_echo);
	return MRC_WIRE_OK;
}

static void
decode_probe(const uint8_t *p, struct mrc_probe_view *v)
{
	const struct mrc_peth *pe = (const struct mrc_peth *)p;

	pds_decode(pe->hdr, &v->pds);
	v->vendor = pe->vendor;
	v->probe_id = rte_be_to_cpu_16(pe->probe_id);
	v->spdcid = rte_be_to_cpu_16(pe->spdcid);
	v->dpdcid = rte_be_to_cpu_16(pe->dpdcid);
	v->ts = rte_be_to_cpu_16(pe->ts);
	tsr_ftype_decode(pe->tsr_ftype, &v->tsr, &v->ftype);
}

static enum mrc_wire_rx
decode_ep(const uint8_t *p, bool response, struct mrc_ep_view *v)
{
	memset(v, 0, sizeof(*v));
	if (!response) {
		const struct mrc_erth *e = (const struct mrc_erth *)p;

		v->op = e->op >> MRC_EP_OP_SHIFT;
		v->vendor = e->vendor;
		v->req_id = rte_be_to_cpu_16(e->req_id);
		v->port_status_mask = rte_be_to_cpu_32(e->port_status_mask);
		v->epoch = rte_be_to_cpu_32(e->epoch);
		v->ts = rte_be_to_cpu_16(e->ts);
		tsr_ftype_decode(e->tsr_ftype, &v->tsr, &v->ftype);
	} else {
		const struct mrc_eeth *e = (const struct mrc_eeth *)p;

		v->op = e->op >> MRC_EP_OP_SHIFT;
		v->svc_valid = (e->op & MRC_EETH_SVC_VALID) != 0;
		v->vendor = e->vendor;
		v->req_id = rte_be_to_cpu_16(e->req_id);
		v->port_status_mask = rte_be_to_cpu_32(e->port_status_mask);
		v->svc_time_ns = rte_be_to_cpu_32(e->svc_time_ns);
		v->ts = rte_be_to_cpu_16(e->ts_echo);
		tsr_ftype_decode(e->tsr_ftype, &v->tsr, &v->ftype);
	}
	if (v->op > MRC_EP_OP_FLOW_RECOVER)
		return MRC_WIRE_BAD_EP_OP;
	return MRC_WIRE_OK;
}

enum mrc_wire_rx
mrc_efrh_decode(const uint8_t *p, struct mrc_ep_rec *r)
{
	const struct mrc_efrh *e = (const struct mrc_efrh *)p;

	r->kind = e->kind;
	r->status = e->status;
	r->life = rte_be_to_cpu_16(e->life);
	r->flow = rte_be_to_cpu_32(e->flow);
	r->spare = rte_be_to_cpu_32(e->spare);
	r->seq = rte_be_to_cpu_64(e->seq);
	/* an unknown kind is an operation we do not have */
	return r->kind > MRC_EP_REC_GIVE_UP ? MRC_WIRE_BAD_EP_OP : MRC_WIRE_OK;
}

static void
encode_efrh(uint8_t *p, const struct mrc_ep_rec *r)
{
	struct mrc_efrh *e = (struct mrc_efrh *)p;

	memset(e, 0, sizeof(*e));
	e->kind = r->kind;
	e->status = r->status;
	e->life = rte_cpu_to_be_16(r->life);
	e->flow = rte_cpu_to_be_32(r->flow);
	e->spare = rte_cpu_to_be_32(r->spare);
	e->seq = rte_cpu_to_be_64(r->seq);
}

enum mrc_wire_rx
mrc_transport_decode(const uint8_t *p, const struct mrc_wire_cfg *cfg, struct mrc_pkt *pkt)
{
	const uint8_t *ext = p + sizeof(struct mrc_bth);
	uint8_t op = pkt->bth.opcode;

	if (mrc_opcode_is_data(op))
		return decode_data(ext, pkt);
	switch (op) {
	case MRC_OP_ACK: {
		uint32_t a = rte_be_to_cpu_32(((const struct mrc_aeth *)ext)->syn_msn);

		pkt->aeth.syndrome = (uint8_t)(a >> 24);
		pkt->aeth.msn = a & MRC_AETH_MSN_MASK;
		return MRC_WIRE_OK;
	}
	case MRC_OP_SACK:
		return decode_sack(ext, cfg, &pkt->sack);
	case MRC_OP_NACK:
		return decode_nack(ext, &pkt->nack);
	case MRC_OP_PROBE:
		decode_probe(ext, &pkt->probe);
		return MRC_WIRE_OK;
	case MRC_OP_EP_REQUEST:
	case MRC_OP_EP_RESPONSE:
		if (pkt->bth.dqpn != MRC_EP_QPN)
			return MRC_WIRE_BAD_EP_QPN;
		return decode_ep(ext, op == MRC_OP_EP_RESPONSE, &pkt->ep);
	default:
		return MRC_WIRE_UNKNOWN_OPCODE;
	}
}

static void
encode_bth(uint8_t *p, const struct mrc_bth_view *v, uint8_t pad)
{
	struct mrc_bth *b = (struct mrc_bth *)p;
	uint32_t w1 = v->dqpn & MRC_BTH_QPN_MASK;
	uint32_t w2 = v->psn & MRC_BTH_PSN_MASK;

	b->opcode = v->opcode;
	b->flags = (uint8_t)((v->se ? MRC_BTH_SE : 0) | (v->migreq ? MRC_BTH_MIGREQ : 0) |
			     ((pad << MRC_BTH_PAD_SHIFT) & MRC_BTH_PAD_MASK));
	b->pkey = rte_cpu_to_be_16(v->pkey);
	w1 |= (v->fecn ? MRC_BTH_FECN : 0) | (v->becn ? MRC_BTH_BECN : 0);
	w2 |= (v->ackreq ? MRC_BTH_ACKREQ : 0) | (v->rtx ? MRC_BTH_RTX : 0) |
	      (v->ts ? MRC_BTH_TS : 0);
	b->fb_dqpn = rte_cpu_to_be_32(w1);
	b->flags_psn = rte_cpu_to_be_32(w2);
}

static void
encode_data(uint8_t *p, const struct mrc_pkt *pkt)
{
	struct mrc_meth *meth = (struct mrc_meth *)p;
	struct mrc_reth *reth;

	meth->rqmsn = rte_cpu_to_be_16(pkt->data.rqmsn);
	meth->msn = rte_cpu_to_be_16(pkt->data.msn);
	p += sizeof(*meth);
	if (pkt->bth.ts) {
		struct mrc_tseth *t = (struct mrc_tseth *)p;

		t->ts = rte_cpu_to_be_16(pkt->tseth.ts);
		t->tsr_ftype = tsr_ftype_encode(pkt->tseth.tsr, pkt->tseth.ftype);
		p += sizeof(*t);
	}
	reth = (struct mrc_reth *)p;
	reth->va = rte_cpu_to_be_64(pkt->data.va);
	reth->rkey = rte_cpu_to_be_32(pkt->data.rkey);
	reth->dma_len = rte_cpu_to_be_32(pkt->data.dma_len);
	p += sizeof(*reth);
	if (mrc_opcode_has_imm(pkt->bth.opcode))
		((struct mrc_immdt *)p)->imm = rte_cpu_to_be_32(pkt->data.imm);
}

static void
encode_sack(uint8_t *p, const struct mrc_sack_view *v, const struct mrc_wire_cfg *cfg)
{
	struct mrc_seth *s = (struct mrc_seth *)p;
	struct mrc_cc_state *cc = (struct mrc_cc_state *)(s + 1);
	uint16_t h = pds_encode(&v->pds);

	h |= (uint16_t)((v->m << MRC_SETH_M_SHIFT) & MRC_SETH_M_MASK);
	h |= v->pr ? MRC_SETH_PR : 0;
	s->hdr = rte_cpu_to_be_16(h);
	s->ack_psn_offset = rte_cpu_to_be_16((uint16_t)v->ack_psn_offset);
	s->entropy = rte_cpu_to_be_32(v->entropy);
	s->spdcid = rte_cpu_to_be_16(v->spdcid);
	s->dpdcid = rte_cpu_to_be_16(v->dpdcid);
	s->cack_psn = rte_cpu_to_be_32(v->cack_psn & MRC_BTH_PSN_MASK);
	s->cc_type_flags = (uint8_t)((v->cc_type << 4) | (v->cc_flags & 0x0f));
	s->mpr = v->mpr;
	s->sack_offset = rte_cpu_to_be_16((uint16_t)v->sack_offset);
	s->sack_bitmap =
		rte_cpu_to_be_64(mrc_sack_bitmap_wire(v->sack_bitmap, cfg->sack_bit_order));
	cc->ts_echo = rte_cpu_to_be_16(v->ts_echo);
	cc->ooo_count = rte_cpu_to_be_16(v->ooo_count & MRC_CC_OOO_MASK);
	cc->pen_rcvd =
		rte_cpu_to_be_32((v->rc ? MRC_CC_RC : 0) |
				 ((uint32_t)(v->cwnd_pen & MRC_CC_PEN_MASK) << MRC_CC_PEN_SHIFT) |
				 (v->rcvd_bytes & MRC_CC_RCVD_MASK));
}

static void
encode_nack(uint8_t *p, const struct mrc_nack_view *v)
{
	struct mrc_neth *n = (struct mrc_neth *)p;

	n->hdr = rte_cpu_to_be_16(pds_encode(&v->pds));
	n->reason = v->reason;
	n->vendor = v->vendor;
	n->entropy = rte_cpu_to_be_32(v->entropy);
	n->spdcid = rte_cpu_to_be_16(v->spdcid);
	n->dpdcid = rte_cpu_to_be_16(v->dpdcid);
	n->nack_psn = rte_cpu_to_be_32(v->nack_psn & MRC_BTH_PSN_MASK);
	n->cc_type_flags = (uint8_t)((v->cc_type << 4) | (v->cc_flags & 0x0f));
	n->rsvd = 0;
	n->ts_echo = rte_cpu_to_be_16(v->ts_echo);
}

static void
encode_probe(uint8_t *p, const struct mrc_probe_view *v)
{
	struct mrc_peth *pe = (struct mrc_peth *)p;

	memset(pe, 0, sizeof(*pe));
	pe->hdr = rte_cpu_to_be_16(pds_encode(&v->pds));
	pe->vendor = v->vendor;
	pe->probe_id = rte_cpu_to_be_16(v->probe_id);
	pe->spdcid = rte_cpu_to_be_16(v->spdcid);
	pe->dpdcid = rte_cpu_to_be_16(v->dpdcid);
	pe->ts = rte_cpu_to_be_16(v->ts);
	pe->tsr_ftype = tsr_ftype_encode(v->tsr, v->ftype);
}

static void
encode_ep(uint8_t *p, bool response, const struct mrc_ep_view *v)
{
	if (!response) {
		struct mrc_erth *e = (struct mrc_erth *)p;

		memset(e, 0, sizeof(*e));
		e->op = (uint8_t)((v->op & 3) << MRC_EP_OP_SHIFT);
		e->vendor = v->vendor;
		e->req_id = rte_cpu_to_be_16(v->req_id);
		e->port_status_mask = rte_cpu_to_be_32(v->port_status_mask);
		e->epoch = rte_cpu_to_be_32(v->epoch);
		e->ts = rte_cpu_to_be_16(v->ts);
		e->tsr_ftype = tsr_ftype_encode(v->tsr, v->ftype);
	} else {
		struct mrc_eeth *e = (struct mrc_eeth *)p;

		memset(e, 0, sizeof(*e));
		e->op = (uint8_t)(((v->op & 3) << MRC_EP_OP_SHIFT) |
				  (v->svc_valid ? MRC_EETH_SVC_VALID : 0));
		e->vendor = v->vendor;
		e->req_id = rte_cpu_to_be_16(v->req_id);
		e->port_status_mask = rte_cpu_to_be_32(v->port_status_mask);
		e->svc_time_ns = rte_cpu_to_be_32(v->svc_time_ns);
		e->ts_echo = rte_cpu_to_be_16(v->ts);
		e->tsr_ftype = tsr_ftype_encode(v->tsr, v->ftype);
	}
}

void
mrc_transport_encode(
	uint8_t *p, const struct mrc_pkt *pkt, const struct mrc_wire_cfg *cfg, uint8_t pad)
{
	uint8_t *ext = p + sizeof(struct mrc_bth);
	uint8_t op = pkt->bth.opcode;

	encode_bth(p, &pkt->bth, pad);
	if (mrc_opcode_is_data(op)) {
		encode_data(ext, pkt);
		return;
	}
	switch (op) {
	case MRC_OP_ACK:
		((struct mrc_aeth *)ext)->syn_msn = rte_cpu_to_be_32(
			((uint32_t)pkt->aeth.syndrome << 24) | (pkt->aeth.msn & MRC_AETH_MSN_MASK));
		break;
	case MRC_OP_SACK:
		encode_sack(ext, &pkt->sack, cfg);
		break;
	case MRC_OP_NACK:
		encode_nack(ext, &pkt->nack);
		break;
	case MRC_OP_PROBE:
		encode_probe(ext, &pkt->probe);
		break;
	case MRC_OP_EP_REQUEST:
	case MRC_OP_EP_RESPONSE:
		encode_ep(ext, op == MRC_OP_EP_RESPONSE, &pkt->ep);
		if (pkt->ep.op == MRC_EP_OP_FLOW_RECOVER)
			encode_efrh(ext + (op == MRC_OP_EP_RESPONSE ? sizeof(struct mrc_eeth)
								    : sizeof(struct mrc_erth)),
				&pkt->ep.rec);
		break;
	default:
		break; /* mrc_pkt_build() refused unknown opcodes already */
	}
}
