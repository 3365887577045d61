/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * One line per packet, for logs, `mrc-dump` and golden files. The layout is
 * stable (golden files diff against it): layers left to right separated by
 * " | ", key=value fields, flags as bare words, numbers in the base people
 * read them in (QPN, keys and CRCs in hex; PSN and lengths in decimal).
 */

#include <arpa/inet.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

#include "mrc_wire_pkt.h"

struct line {
	char *buf;
	size_t size;
	size_t len; /* what the whole line needs, even past size */
};

static void __rte_format_printf(2, 3) put(struct line *l, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(l->len < l->size ? l->buf + l->len : NULL,
		l->len < l->size ? l->size - l->len : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		l->len += (size_t)n;
}

static void
put_addr(struct line *l, const uint8_t a[MRC_IPV6_ADDR_LEN])
{
	char s[INET6_ADDRSTRLEN];

	if (inet_ntop(AF_INET6, a, s, sizeof(s)) == NULL)
		put(l, "?");
	else
		put(l, "%s", s);
}

static const char *const ecn_names[4] = {"not-ect", "ect1", "ect0", "ce"};

static void
put_ip6(struct line *l, const char *tag, const struct mrc_ip6_view *v)
{
	put(l, "%s ", tag);
	put_addr(l, v->src);
	put(l, " > ");
	put_addr(l, v->dst);
	put(l, " dscp=%u ecn=%s hl=%u fl=0x%05" PRIx32, v->dscp, ecn_names[v->ecn & 3],
		v->hop_limit, v->flow_label);
}

static void
put_bth(struct line *l, const struct mrc_bth_view *b)
{
	const char *name = mrc_opcode_name(b->opcode);

	if (name != NULL)
		put(l, "%s", name);
	else
		put(l, "op=0x%02x", b->opcode);
	put(l, " qp=0x%06" PRIx32 " psn=%" PRIu32, b->dqpn, b->psn);
	if (b->pkey != MRC_BTH_DEFAULT_PKEY)
		put(l, " pkey=0x%04x", b->pkey);
	if (b->ackreq)
		put(l, " ackreq");
	if (b->rtx)
		put(l, " rtx");
	if (b->ts)
		put(l, " ts");
	if (b->se)
		put(l, " se");
	if (b->migreq)
		put(l, " mig");
	if (b->fecn)
		put(l, " fecn");
	if (b->becn)
		put(l, " becn");
}

static void
put_ext(struct line *l, const struct mrc_pkt *p)
{
	const uint8_t op = p->bth.opcode;

	if (mrc_opcode_is_data(op)) {
		put(l, " | meth rqmsn=%u msn=%u", p->data.rqmsn, p->data.msn);
		if (p->bth.ts)
			put(l, " | tseth ts=%u%s ftype=%u", p->tseth.ts, p->tseth.tsr ? " tsr" : "",
				p->tseth.ftype);
		put(l, " | reth va=0x%" PRIx64 " rkey=0x%08" PRIx32 " len=%" PRIu32, p->data.va,
			p->data.rkey, p->data.dma_len);
		if (mrc_opcode_has_imm(op))
			put(l, " | imm=0x%08" PRIx32, p->data.imm);
		return;
	}
	switch (op) {
	case MRC_OP_ACK:
		put(l, " | aeth syn=0x%02x msn=%" PRIu32, p->aeth.syndrome, p->aeth.msn);
		break;
	case MRC_OP_SACK: {
		static const char *const m_names[4] = {"none", "skip-once", "always-skip", "rsvd"};
		const struct mrc_sack_view *s = &p->sack;

		put(l,
			" | seth cack=%" PRIu32 " ack_off=%d m=%s%s ev=0x%08" PRIx32
			" sack_off=%d bitmap=0x%016" PRIx64 " mpr=%u cc=%u/0x%x",
			s->cack_psn, s->ack_psn_offset, m_names[s->m & 3], s->pr ? " pr" : "",
			s->entropy, s->sack_offset, s->sack_bitmap, s->mpr, s->cc_type,
			s->cc_flags);
		if (s->spdcid || s->dpdcid)
			put(l, " pdc=%u/%u", s->spdcid, s->dpdcid);
		put(l, " | cc ts=%u ooo=%u pen=%u%s rcvd=%" PRIu32, s->ts_echo, s->ooo_count,
			s->cwnd_pen, s->rc ? " rc" : "", s->rcvd_bytes);
		break;
	}
	case MRC_OP_NACK: {
		const struct mrc_nack_view *n = &p->nack;
		const char *r = mrc_nack_reason_name(n->reason);

		if (r != NULL)
			put(l, " | neth %s", r);
		else
			put(l, " | neth reason=0x%02x", n->reason);
		put(l, " psn=%" PRIu32 " ev=0x%08" PRIx32 " ts=%u cc=%u/0x%x", n->nack_psn,
			n->entropy, n->ts_echo, n->cc_type, n->cc_flags);
		if (n->vendor)
			put(l, " vendor=0x%02x", n->vendor);
		break;
	}
	case MRC_OP_PROBE:
		put(l, " | peth id=%u ts=%u%s ftype=%u", p->probe.probe_id, p->probe.ts,
			p->probe.tsr ? " tsr" : "", p->probe.ftype);
		break;
	case MRC_OP_EP_REQUEST:
	case MRC_OP_EP_RESPONSE:
		put(l, " | %s %s id=%u ports=0x%08" PRIx32 " ts=%u",
			op == MRC_OP_EP_REQUEST ? "erth" : "eeth",
			p->ep.op == MRC_EP_OP_PORT_STATUS ? "port-status"
			: p->ep.op == MRC_EP_OP_EV_PROBE  ? "ev-probe"
							  : "flow-recover",
			p->ep.req_id, p->ep.port_status_mask, p->ep.ts);
		if (p->ep.epoch != 0)
			put(l, " epoch=0x%08" PRIx32, p->ep.epoch);
		if (p->ep.svc_valid)
			put(l, " svc=%" PRIu32 "ns", p->ep.svc_time_ns);
		if (p->ep.op == MRC_EP_OP_FLOW_RECOVER)
			put(l,
				" | efrh %s flow=%" PRIu32 " life=%u spare=%" PRIu32 " seq=%" PRIu64
				" status=%u",
				p->ep.rec.kind == MRC_EP_REC_FAILED ? "failed"
				: p->ep.rec.kind == MRC_EP_REC_MAKE ? "make"
								    : "give-up",
				p->ep.rec.flow, p->ep.rec.life, p->ep.rec.spare, p->ep.rec.seq,
				p->ep.rec.status);
		break;
	default:
		break;
	}
}

int
mrc_pkt_format(char *buf, size_t size, const struct mrc_pkt *p)
{
	struct line l = {.buf = buf, .size = size, .len = 0};

	if (size > 0)
		buf[0] = '\0';
	if (p->flags & MRC_PKT_F_TRIMMED)
		put(&l, "%s ",
			(p->flags & MRC_PKT_F_TRIMMED_LASTHOP) ? "TRIMMED_LASTHOP" : "TRIMMED");
	if (p->flags & MRC_PKT_F_VLAN)
		put(&l, "vlan=%u ", p->vlan_tci);
	if (p->flags & MRC_PKT_F_SRV6) {
		put_ip6(&l, "srv6", &p->outer);
		if (p->flags & MRC_PKT_F_SRH) {
			put(&l, " | srh sl=%u segs=", p->srh.segments_left);
			for (unsigned int i = 0; i < p->srh.n_segs && i < MRC_SRH_MAX_SEGS; i++) {
				if (i > 0)
					put(&l, ",");
				put_addr(&l, p->srh.segs[i]);
			}
		}
		put(&l, " | ");
	}
	put_ip6(&l, "ip6", &p->ip);
	put(&l, " | ev=0x%08" PRIx32 " | ", p->ev);
	put_bth(&l, &p->bth);
	put_ext(&l, p);
	if (mrc_opcode_is_data(p->bth.opcode))
		put(&l, " | payload=%" PRIu32, p->payload_len);
	if (!(p->flags & MRC_PKT_F_TRIMMED))
		put(&l, " icrc=0x%08" PRIx32, p->icrc);
	return (int)l.len;
}
