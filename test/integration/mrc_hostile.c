/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Turn a capture of what a peer legitimately sent into a capture of hostile
 * traffic for the pcap replay test. Starting from real packets (so every
 * field the attack does not touch is right), each variant breaks one thing
 * and, where the attack is meant to get past the parser, recomputes the
 * ICRC so only the intended check can refuse it:
 *
 *   valid        the first 4 data packets to the receiver QP, untouched
 *   truncated    a data packet cut inside the outer headers, and inside BTH
 *   bad_icrc     a payload byte flipped, ICRC left as it was
 *   unknown_qpn  destination QP 0x0001ff (no such QP)
 *   psn_oor      PSN moved 2^20 ahead: outside any receive window
 *   va_oob       RETH VA far beyond the receiver's region
 *   bad_rkey     RETH R_Key of another region slot
 *   sack_unsent  a SACK to the sender QP acknowledging PSNs never sent
 *
 * Usage: mrc-hostile IN.pcap OUT.pcap DATA_QPN SACK_QPN
 * Prints, one per line, "<variant> <count>" for what it wrote.
 */

#include <errno.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>

#include "mrc_icrc.h"
#include "mrc_test_mbuf.h"
#include "mrc_wire.h"
#include "mrc_wire_pkt.h"

#define MAX_FRAME 9216
#define N_VALID	  4

struct frame {
	uint8_t b[MAX_FRAME];
	uint32_t len;
	struct mrc_pkt v;
};

static struct mrc_wire_cfg wcfg;

static int
parse(struct frame *f)
{
	memset(&f->v, 0, sizeof(f->v));
	return mrc_pkt_parse_buf(f->b, (uint16_t)f->len, &wcfg, &f->v) == MRC_WIRE_OK ? 0 : -1;
}

/* Recompute the ICRC after an edit, exactly as the builder computes it. */
static void
fix_icrc(struct frame *f)
{
	struct rte_mbuf *m = mrc_test_mbuf_from(f->b, f->len, NULL, 0, 128);
	uint32_t icrc;

	if (m == NULL) {
		fprintf(stderr, "mrc-hostile: out of memory\n");
		exit(2);
	}
	icrc = mrc_icrc_calc(m, f->v.inner_off, f->len - MRC_ICRC_LEN - f->v.inner_off);
	mrc_test_mbuf_free(m);
	for (int i = 0; i < 4; i++)
		f->b[f->len - MRC_ICRC_LEN + i] = (uint8_t)(icrc >> (8 * i));
}

static struct mrc_bth *
bth(struct frame *f)
{
	return (struct mrc_bth *)(f->b + f->v.bth_off);
}

/* BTH | METH | [TSETH] | RETH: the RETH of a data packet. */
static struct mrc_reth *
reth(struct frame *f)
{
	return (struct mrc_reth *)(f->b + f->v.bth_off + sizeof(struct mrc_bth) +
				   sizeof(struct mrc_meth) +
				   (f->v.bth.ts ? sizeof(struct mrc_tseth) : 0));
}

static void
emit(pcap_dumper_t *out, const struct frame *f, uint32_t caplen)
{
	static long usec;
	struct pcap_pkthdr h = {
		.ts = {.tv_sec = 1, .tv_usec = ++usec}, .caplen = caplen, .len = caplen};

	pcap_dump((u_char *)out, &h, f->b);
}

int
main(int argc, char **argv)
{
	static struct frame data[N_VALID + 1], sack, t;
	char err[PCAP_ERRBUF_SIZE];
	unsigned int n_data = 0, have_sack = 0;
	struct pcap_pkthdr *h;
	const u_char *bytes;
	pcap_t *in, *dead;
	pcap_dumper_t *out;
	unsigned long data_qpn, sack_qpn;

	if (argc != 5) {
		fprintf(stderr, "usage: %s IN.pcap OUT.pcap DATA_QPN SACK_QPN\n", argv[0]);
		return 2;
	}
	data_qpn = strtoul(argv[3], NULL, 0);
	sack_qpn = strtoul(argv[4], NULL, 0);
	mrc_wire_cfg_defaults(&wcfg);
	in = pcap_open_offline(argv[1], err);
	if (in == NULL) {
		fprintf(stderr, "mrc-hostile: %s: %s\n", argv[1], err);
		return 2;
	}
	while (pcap_next_ex(in, &h, &bytes) == 1) {
		struct frame *f = n_data <= N_VALID ? &data[n_data] : &t;

		if (h->caplen != h->len || h->caplen > MAX_FRAME)
			continue;
		memcpy(f->b, bytes, h->caplen);
		f->len = h->caplen;
		if (parse(f) != 0)
			continue;
		if (mrc_opcode_is_data(f->v.bth.opcode) && f->v.bth.dqpn == data_qpn &&
			!f->v.bth.rtx && n_data <= N_VALID && f->v.payload_len > 0)
			n_data++;
		else if (f->v.bth.opcode == MRC_OP_SACK && f->v.bth.dqpn == sack_qpn &&
			 !have_sack) {
			sack = *f;
			have_sack = 1;
		}
	}
	pcap_close(in);
	if (n_data <= N_VALID || !have_sack) {
		fprintf(stderr,
			"mrc-hostile: %s: need %d data packets to QP 0x%lx and a SACK to "
			"QP 0x%lx; found %u and %u\n",
			argv[1], N_VALID + 1, data_qpn, sack_qpn, n_data, have_sack);
		return 1;
	}
	dead = pcap_open_dead(DLT_EN10MB, MAX_FRAME);
	out = pcap_dump_open(dead, argv[2]);
	if (out == NULL) {
		fprintf(stderr, "mrc-hostile: %s: %s\n", argv[2], pcap_geterr(dead));
		return 2;
	}

	for (int i = 0; i < N_VALID; i++)
		emit(out, &data[i], data[i].len);
	printf("valid %d\n", N_VALID);

	t = data[N_VALID];
	emit(out, &t, 30);
	emit(out, &t, t.v.bth_off + 6);
	printf("truncated 2\n");

	t = data[N_VALID];
	t.b[t.v.payload_off + 7] ^= 0x5a;
	emit(out, &t, t.len);
	printf("bad_icrc 1\n");

	t = data[N_VALID];
	bth(&t)->fb_dqpn = rte_cpu_to_be_32(
		(rte_be_to_cpu_32(bth(&t)->fb_dqpn) & ~MRC_BTH_QPN_MASK) | 0x0001ff);
	fix_icrc(&t);
	emit(out, &t, t.len);
	printf("unknown_qpn 1\n");

	t = data[N_VALID];
	{
		uint32_t fp = rte_be_to_cpu_32(bth(&t)->flags_psn);
		uint32_t psn = ((fp & MRC_BTH_PSN_MASK) + (1u << 20)) & MRC_BTH_PSN_MASK;

		bth(&t)->flags_psn = rte_cpu_to_be_32((fp & ~MRC_BTH_PSN_MASK) | psn);
	}
	fix_icrc(&t);
	emit(out, &t, t.len);
	printf("psn_oor 1\n");

	t = data[N_VALID];
	reth(&t)->va = rte_cpu_to_be_64(1ull << 40);
	fix_icrc(&t);
	emit(out, &t, t.len);
	printf("va_oob 1\n");

	t = data[N_VALID];
	reth(&t)->rkey = rte_cpu_to_be_32(rte_be_to_cpu_32(reth(&t)->rkey) ^ 0x100);
	fix_icrc(&t);
	emit(out, &t, t.len);
	printf("bad_rkey 1\n");

	t = sack;
	{
		/* SETH right after the BTH; cack_psn is its 13th..16th bytes. */
		struct mrc_seth *s =
			(struct mrc_seth *)(t.b + t.v.bth_off + sizeof(struct mrc_bth));
		uint32_t c = rte_be_to_cpu_32(s->cack_psn);

		s->cack_psn = rte_cpu_to_be_32((c & ~0xffffffu) | ((c + (1u << 20)) & 0xffffffu));
	}
	fix_icrc(&t);
	emit(out, &t, t.len);
	printf("sack_unsent 1\n");

	pcap_dump_close(out);
	pcap_close(dead);
	return 0;
}
