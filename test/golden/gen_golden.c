/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * The golden generator. Every sample packet of the catalogue is built by our
 * codec and written as its own pcap, with a manifest (what we meant to put
 * on the wire, for the independent tshark/zlib checker) and a capture of
 * malformed packets the parser must refuse by name.
 *
 *   gen_golden --write DIR   regenerate the checked-in files
 *   gen_golden --check DIR   build everything again in memory and compare
 *                            byte for byte with DIR (the golden test)
 *
 * The pcap files are written by hand (classic format, microsecond
 * timestamps fixed at packet index seconds) so they do not depend on the
 * libpcap version that writes them.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mrc_icrc.h"
#include "mrc_test.h"
#include "mrc_test_mbuf.h"
#include "mrc_test_pkts.h"

#define MAX_FILE (64 * 1024)

struct blob {
	uint8_t b[MAX_FILE];
	size_t len;
};

static void
put_le32(struct blob *f, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		f->b[f->len++] = (uint8_t)(v >> (8 * i));
}

static void
put_le16(struct blob *f, uint16_t v)
{
	f->b[f->len++] = (uint8_t)v;
	f->b[f->len++] = (uint8_t)(v >> 8);
}

static void
pcap_begin(struct blob *f)
{
	f->len = 0;
	put_le32(f, 0xa1b2c3d4); /* microsecond timestamps, little-endian file */
	put_le16(f, 2);
	put_le16(f, 4);
	put_le32(f, 0);	    /* thiszone */
	put_le32(f, 0);	    /* sigfigs */
	put_le32(f, 65535); /* snaplen */
	put_le32(f, 1);	    /* LINKTYPE_ETHERNET */
}

static int
pcap_add(struct blob *f, uint32_t ts_sec, const uint8_t *pkt, size_t len)
{
	if (f->len + 16 + len > sizeof(f->b))
		return -ENOSPC;
	put_le32(f, ts_sec);
	put_le32(f, 0);
	put_le32(f, (uint32_t)len);
	put_le32(f, (uint32_t)len);
	memcpy(f->b + f->len, pkt, len);
	f->len += len;
	return 0;
}

/* Write (or compare with) DIR/name. Returns 0 when equal or written. */
static int
emit(const char *dir, const char *name, const void *data, size_t len, bool check)
{
	char path[4096];
	static uint8_t disk[MAX_FILE * 4];
	FILE *fp;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (!check) {
		fp = fopen(path, "wb");
		if (fp == NULL || fwrite(data, 1, len, fp) != len) {
			fprintf(stderr, "gen_golden: cannot write %s: %s\n", path, strerror(errno));
			if (fp != NULL)
				fclose(fp);
			return -1;
		}
		fclose(fp);
		return 0;
	}
	fp = fopen(path, "rb");
	if (fp == NULL) {
		fprintf(stderr, "  FAIL %s: missing (%s)\n", path, strerror(errno));
		return -1;
	}
	n = fread(disk, 1, sizeof(disk), fp);
	fclose(fp);
	if (n != len || memcmp(disk, data, len) != 0) {
		size_t at = mrc_test_memdiff(disk, data, n < len ? n : len);

		fprintf(stderr,
			"  FAIL %s: %zu bytes on disk, %zu built; first difference at %zu\n", path,
			n, len, at == (size_t)-1 ? (n < len ? n : len) : at);
		fprintf(stderr,
			"  (if the change is intended: gen_golden --write %s, and say why "
			"in the commit)\n",
			dir);
		return -1;
	}
	return 0;
}

static void
json_addr(FILE *j, const char *key, const uint8_t a[16])
{
	char s[INET6_ADDRSTRLEN];

	inet_ntop(AF_INET6, a, s, sizeof(s));
	fprintf(j, "\"%s\": \"%s\", ", key, s);
}

/* The MRC fields the Lua dissector must show, per packet type. */
static void
json_mrc_fields(FILE *j, const struct mrc_pkt *p)
{
	const uint8_t op = p->bth.opcode;

	fprintf(j, "\"mrc\": {\"mrc.bth.rtx\": %d, \"mrc.bth.ts\": %d", p->bth.rtx, p->bth.ts);
	if (mrc_opcode_is_data(op)) {
		fprintf(j, ", \"mrc.meth.rqmsn\": %u, \"mrc.meth.msn\": %u", p->data.rqmsn,
			p->data.msn);
		fprintf(j,
			", \"mrc.reth.va\": %" PRIu64 ", \"mrc.reth.rkey\": %" PRIu32
			", \"mrc.reth.dma_len\": %" PRIu32,
			p->data.va, p->data.rkey, p->data.dma_len);
		if (p->bth.ts)
			fprintf(j,
				", \"mrc.tseth.ts\": %u, \"mrc.tseth.tsr\": %d, "
				"\"mrc.tseth.ftype\": %u",
				p->tseth.ts, p->tseth.tsr, p->tseth.ftype);
		if (mrc_opcode_has_imm(op))
			fprintf(j, ", \"mrc.immdt\": %" PRIu32, p->data.imm);
	}
	switch (op) {
	case MRC_OP_ACK:
		fprintf(j, ", \"mrc.aeth.syndrome\": %u, \"mrc.aeth.msn\": %" PRIu32,
			p->aeth.syndrome, p->aeth.msn);
		break;
	case MRC_OP_SACK: {
		const struct mrc_sack_view *s = &p->sack;

		fprintf(j,
			", \"mrc.seth.m\": %u, \"mrc.seth.pr\": %d, \"mrc.seth.ack_psn_offset\": %d"
			", \"mrc.seth.entropy\": %" PRIu32 ", \"mrc.seth.spdcid\": %u"
			", \"mrc.seth.dpdcid\": %u, \"mrc.seth.cack_psn\": %" PRIu32
			", \"mrc.seth.cc_type\": %u, \"mrc.seth.cc_flags\": %u, \"mrc.seth.mpr\": "
			"%u"
			", \"mrc.seth.sack_offset\": %d, \"mrc.seth.sack_bitmap\": %" PRIu64
			", \"mrc.cc.ts_echo\": %u, \"mrc.cc.ooo_count\": %u, \"mrc.cc.rc\": %d"
			", \"mrc.cc.cwnd_pen\": %u, \"mrc.cc.rcvd_bytes\": %" PRIu32,
			s->m, s->pr, s->ack_psn_offset, s->entropy, s->spdcid, s->dpdcid,
			s->cack_psn, s->cc_type, s->cc_flags, s->mpr, s->sack_offset,
			s->sack_bitmap, s->ts_echo, s->ooo_count, s->rc, s->cwnd_pen,
			s->rcvd_bytes);
		break;
	}
	case MRC_OP_NACK:
		fprintf(j,
			", \"mrc.neth.reason\": %u, \"mrc.neth.vendor\": %u"
			", \"mrc.neth.entropy\": %" PRIu32 ", \"mrc.neth.nack_psn\": %" PRIu32
			", \"mrc.neth.ts_echo\": %u",
			p->nack.reason, p->nack.vendor, p->nack.entropy, p->nack.nack_psn,
			p->nack.ts_echo);
		break;
	case MRC_OP_PROBE:
		fprintf(j, ", \"mrc.peth.probe_id\": %u, \"mrc.peth.ts\": %u", p->probe.probe_id,
			p->probe.ts);
		break;
	case MRC_OP_EP_REQUEST:
		fprintf(j,
			", \"mrc.erth.op\": %u, \"mrc.erth.req_id\": %u"
			", \"mrc.erth.port_status_mask\": %" PRIu32 ", \"mrc.erth.epoch\": %" PRIu32
			", \"mrc.erth.ts\": %u",
			p->ep.op, p->ep.req_id, p->ep.port_status_mask, p->ep.epoch, p->ep.ts);
		break;
	case MRC_OP_EP_RESPONSE:
		fprintf(j,
			", \"mrc.eeth.op\": %u, \"mrc.eeth.req_id\": %u"
			", \"mrc.eeth.port_status_mask\": %" PRIu32
			", \"mrc.eeth.svc_valid\": %u, \"mrc.eeth.svc_time_ns\": %" PRIu32
			", \"mrc.eeth.ts_echo\": %u",
			p->ep.op, p->ep.req_id, p->ep.port_status_mask, p->ep.svc_valid ? 1u : 0u,
			p->ep.svc_time_ns, p->ep.ts);
		break;
	default:
		break;
	}
	fprintf(j, "}");
}

static void
json_packet(FILE *j, const struct mrc_test_sample *s, const struct mrc_wire_cfg *cfg, bool last)
{
	const struct mrc_pkt *p = &s->pkt;
	const bool srv6 = (p->flags & MRC_PKT_F_SRV6) != 0;
	const struct mrc_ip6_view *outermost = srv6 ? &p->outer : &p->ip;

	fprintf(j, "  {\"pcap\": \"%s.pcap\", \"index\": 0, \"name\": \"%s\", \"encap\": \"%s\", ",
		s->name, s->name, srv6 ? "srv6" : "plain");
	if (p->flags & MRC_PKT_F_VLAN)
		fprintf(j, "\"vlan\": %u, ", p->vlan_tci & 0xfff);
	else
		fprintf(j, "\"vlan\": null, ");
	fprintf(j, "\"srh_segments\": %u, ", (p->flags & MRC_PKT_F_SRH) ? p->srh.n_segs : 0);
	if (srv6)
		json_addr(j, "outer_dst", p->outer.dst);
	else
		fprintf(j, "\"outer_dst\": null, ");
	json_addr(j, "inner_dst", p->ip.dst);
	json_addr(j, "inner_src", p->ip.src);
	fprintf(j,
		"\"udp_sport\": %u, \"ev\": %" PRIu32 ", \"flow_label\": %" PRIu32
		", \"dscp\": %u, \"ecn\": %u, ",
		mrc_ev_sport(p->ev, cfg->ev_split), p->ev,
		(outermost->flow_label & 0xf0000) | mrc_ev_flow_bits(p->ev, cfg->ev_split),
		s->trim ? (s->trim_lasthop ? cfg->dscp.trimmed_lasthop : cfg->dscp.trimmed)
			: outermost->dscp,
		outermost->ecn);
	fprintf(j,
		"\"opcode\": %u, \"dqpn\": %" PRIu32 ", \"psn\": %" PRIu32
		", \"rtx\": %s, \"ts\": %s, \"ackreq\": %s, \"trimmed\": %s, ",
		p->bth.opcode, p->bth.dqpn, p->bth.psn, p->bth.rtx ? "true" : "false",
		p->bth.ts ? "true" : "false", p->bth.ackreq ? "true" : "false",
		s->trim ? "true" : "false");
	if (mrc_opcode_is_data(p->bth.opcode))
		fprintf(j,
			"\"reth\": {\"va\": %" PRIu64 ", \"rkey\": %" PRIu32
			", \"dma_len\": %" PRIu32 "}, ",
			p->data.va, p->data.rkey, p->data.dma_len);
	else
		fprintf(j, "\"reth\": null, ");
	if (mrc_opcode_has_imm(p->bth.opcode))
		fprintf(j, "\"imm\": %" PRIu32 ", ", p->data.imm);
	else
		fprintf(j, "\"imm\": null, ");
	fprintf(j, "\"payload_len\": %" PRIu32 ", ", s->trim ? 0 : s->payload_len);
	json_mrc_fields(j, p);
	fprintf(j, "}%s\n", last ? "" : ",");
}

/*
 * Malformed packets for the rejects capture: each is a sample with one
 * thing broken, and the reason the parser must give (listed in
 * expected.txt by mrc-dump).
 */
static size_t
make_reject(unsigned int k, uint8_t *b, const struct mrc_wire_cfg *cfg)
{
	struct mrc_test_sample s;
	size_t len;

	mrc_test_sample_get(k < 4 ? 0 : 5, &s);
	len = mrc_test_sample_bytes(&s, cfg, b, MRC_TEST_MAX_PKT + 1024);
	switch (k) {
	case 0: /* truncated inside the inner IPv6 header */
		return 60;
	case 1: /* bad ICRC: one payload bit */
		b[len - 10] ^= 0x40;
		return len;
	case 2: /* SRH claimed by next header but absent */
		b[14 + 6] = MRC_IPPROTO_ROUTING;
		return len;
	case 3: /* not RoCE: UDP 4792 */
		b[14 + 80 + 3] = 0xb8;
		return len;
	case 4: /* unknown opcode (plain RC WRITE_ONLY) */
		b[14 + 48] = 0x0a;
		return len;
	case 5: /* frame longer than IPv6 says */
		b[len] = 0;
		return len + 1;
	default:
		return 0;
	}
}

#define N_REJECTS 6

int
main(int argc, char **argv)
{
	static struct blob f;
	static uint8_t pkt[MRC_TEST_MAX_PKT + 1024];
	struct mrc_wire_cfg cfg;
	char name[256], *manifest = NULL;
	size_t manifest_len = 0;
	unsigned int failed = 0, passed = 0;
	bool check;
	FILE *j;

	if (argc != 3 || (strcmp(argv[1], "--write") != 0 && strcmp(argv[1], "--check") != 0)) {
		fprintf(stderr, "usage: %s --write|--check DIR\n", argv[0]);
		return 2;
	}
	check = strcmp(argv[1], "--check") == 0;
	mrc_wire_cfg_defaults(&cfg);
	j = open_memstream(&manifest, &manifest_len);
	if (j == NULL)
		return 2;
	fprintf(j, "{\"packets\": [\n");
	for (unsigned int i = 0; i < mrc_test_sample_count(); i++) {
		struct mrc_test_sample s;
		size_t len;

		if (mrc_test_sample_get(i, &s) != 0)
			return 2;
		len = mrc_test_sample_bytes(&s, &cfg, pkt, sizeof(pkt));
		if (len == 0) {
			fprintf(stderr, "  FAIL %s: does not build\n", s.name);
			failed++;
			continue;
		}
		pcap_begin(&f);
		pcap_add(&f, i, pkt, len);
		snprintf(name, sizeof(name), "%s.pcap", s.name);
		if (emit(argv[2], name, f.b, f.len, check) == 0) {
			passed++;
			if (check)
				printf("  ok   %s (%zu bytes)\n", name, len);
		} else {
			failed++;
		}
		json_packet(j, &s, &cfg, i + 1 == mrc_test_sample_count());
	}
	fprintf(j, "]}\n");
	fclose(j);
	if (emit(argv[2], "manifest.json", manifest, manifest_len, check) == 0)
		passed++;
	else
		failed++;
	free(manifest);

	pcap_begin(&f);
	for (unsigned int k = 0; k < N_REJECTS; k++) {
		size_t len = make_reject(k, pkt, &cfg);

		pcap_add(&f, k, pkt, len);
	}
	if (emit(argv[2], "rejects.pcap", f.b, f.len, check) == 0)
		passed++;
	else
		failed++;

	if (check)
		printf("golden: %u passed, %u failed\n", passed, failed);
	else
		printf("gen_golden: wrote %u files to %s\n", passed, argv[2]);
	return failed ? 1 : 0;
}
