/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * SRv6 micro-SIDs: container encode/decode, the NEXT-C-SID shift, and a
 * packet walked hop by hop through its containers and SRH exactly as
 * RFC 9800 / RFC 8754 switches process it. Byte-level SRH order (segment
 * list stored last segment first) is where SRv6 code most often goes wrong.
 */

#include <errno.h>
#include <string.h>

#include "mrc_srv6.h"
#include "mrc_test.h"
#include "mrc_test_mbuf.h"
#include "mrc_wire_pkt.h"

#define BLOCK 0xfcbb0000u

static void
make_path(struct mrc_usid_path *p, unsigned int n)
{
	p->block = BLOCK;
	p->n = (uint8_t)n;
	for (unsigned int i = 0; i < n; i++)
		p->usid[i] = (uint16_t)(0x1000 + i * 0x101);
}

static int
test_container_bytes(void)
{
	struct mrc_usid_path p;
	uint8_t c[2][16];
	static const uint8_t want[16] = {
		0xfc, 0xbb, 0, 0, 0x10, 0x00, 0x11, 0x01, 0x12, 0x02, 0, 0, 0, 0, 0, 0};

	make_path(&p, 3);
	MRC_T_EQ(mrc_usid_encode(&p, c, 2), 1);
	MRC_T_MEMEQ(c[0], want, 16);
	MRC_T_EQ(mrc_usid_block(c[0]), BLOCK);
	MRC_T_EQ(mrc_usid_active(c[0]), 0x1000);
	return MRC_TEST_OK;
}

static int
test_encode_decode_all_lengths(void)
{
	uint8_t c[MRC_SRH_MAX_SEGS][16];
	struct mrc_usid_path p, q;

	for (unsigned int n = 1; n <= MRC_USID_MAX_PATH; n++) {
		make_path(&p, n);
		int nc = mrc_usid_encode(&p, c, MRC_SRH_MAX_SEGS);

		MRC_T_EQ(nc, (int)((n + 5) / 6));
		MRC_T_EQ(mrc_usid_decode((const uint8_t(*)[16])c, (unsigned int)nc, BLOCK, &q), 0);
		MRC_T_EQ(q.n, n);
		MRC_T_MEMEQ(q.usid, p.usid, n * sizeof(uint16_t));
		/* A full container has no zero tail; a partial one ends in zeros. */
		unsigned int last = n - 6 * (unsigned int)(nc - 1);

		for (unsigned int k = last; k < 6; k++)
			MRC_T_EQ(c[nc - 1][4 + 2 * k] | c[nc - 1][5 + 2 * k], 0);
	}
	return MRC_TEST_OK;
}

static int
test_encode_rejects(void)
{
	uint8_t c[MRC_SRH_MAX_SEGS][16];
	struct mrc_usid_path p;

	make_path(&p, 0);
	MRC_T_EQ(mrc_usid_encode(&p, c, MRC_SRH_MAX_SEGS), -EINVAL);
	make_path(&p, 4);
	p.usid[2] = 0; /* 0 ends a container: cannot be a hop */
	MRC_T_EQ(mrc_usid_encode(&p, c, MRC_SRH_MAX_SEGS), -EINVAL);
	make_path(&p, 13);
	MRC_T_EQ(mrc_usid_encode(&p, c, 2), -ENOSPC);
	make_path(&p, MRC_USID_MAX_PATH);
	p.n = MRC_USID_MAX_PATH + 1;
	MRC_T_EQ(mrc_usid_encode(&p, c, MRC_SRH_MAX_SEGS), -EINVAL);
	return MRC_TEST_OK;
}

static int
test_decode_rejects(void)
{
	uint8_t c[2][16];
	struct mrc_usid_path p, q;

	make_path(&p, 8);
	MRC_T_EQ(mrc_usid_encode(&p, c, 2), 2);
	MRC_T_EQ(mrc_usid_decode((const uint8_t(*)[16])c, 2, BLOCK + 1, &q), -EINVAL);
	MRC_T_EQ(mrc_usid_decode((const uint8_t(*)[16])c, 0, BLOCK, &q), -EINVAL);
	c[1][6] = 0; /* a hole: uSID 2 of the second container zero, 3 not */
	c[1][7] = 0;
	c[1][8] = 0x12;
	MRC_T_EQ(mrc_usid_decode((const uint8_t(*)[16])c, 2, BLOCK, &q), -EINVAL);
	memset(c[1] + 4, 0, 12); /* an empty container */
	MRC_T_EQ(mrc_usid_decode((const uint8_t(*)[16])c, 2, BLOCK, &q), -EINVAL);
	return MRC_TEST_OK;
}

static int
test_shift(void)
{
	struct mrc_usid_path p;
	uint8_t c[1][16], spent[16] = {0xfc, 0xbb, 0, 0};

	make_path(&p, 6);
	MRC_T_EQ(mrc_usid_encode(&p, c, 1), 1);
	for (unsigned int i = 0; i < 6; i++) {
		MRC_T_EQ(mrc_usid_active(c[0]), p.usid[i]);
		MRC_T_EQ(mrc_usid_shift(c[0]), i + 1 < 6 ? p.usid[i + 1] : 0);
		MRC_T_EQ(mrc_usid_block(c[0]), BLOCK); /* the block never moves */
		MRC_T_EQ(c[0][14] | c[0][15], 0);      /* zero-filled from the right */
	}
	MRC_T_MEMEQ(c[0], spent, 16);
	MRC_T_EQ(mrc_usid_shift(c[0]), 0);
	return MRC_TEST_OK;
}

/*
 * Walk a packet's path like the fabric will: at each hop the active uSID is
 * the switch; shift; when the container is spent and SRH segments remain,
 * decrement segments_left and load segment_list[segments_left].
 */
static int
walk(struct mrc_pkt *pkt, const struct mrc_usid_path *want)
{
	unsigned int hop = 0;

	for (;;) {
		uint16_t a = mrc_usid_active(pkt->outer.dst);

		if (a == 0) {
			if (!(pkt->flags & MRC_PKT_F_SRH) || pkt->srh.segments_left == 0)
				break;
			pkt->srh.segments_left--;
			memcpy(pkt->outer.dst, pkt->srh.segs[pkt->srh.segments_left], 16);
			continue;
		}
		MRC_T_ASSERT(hop < want->n, "path longer than encoded");
		MRC_T_EQ(a, want->usid[hop]);
		/* What remains ahead always decodes to the rest of the path. */
		struct mrc_usid_path rest;

		MRC_T_EQ(mrc_srv6_get_path(pkt, BLOCK, &rest), 0);
		MRC_T_EQ(rest.n, want->n - hop);
		MRC_T_MEMEQ(rest.usid, want->usid + hop, rest.n * sizeof(uint16_t));
		mrc_usid_shift(pkt->outer.dst);
		hop++;
	}
	MRC_T_EQ(hop, want->n);
	return MRC_TEST_OK;
}

static int
test_srh_walk(void)
{
	for (unsigned int n = 1; n <= MRC_USID_MAX_PATH; n++) {
		struct mrc_usid_path p;
		struct mrc_pkt pkt;

		memset(&pkt, 0, sizeof(pkt));
		make_path(&p, n);
		MRC_T_EQ(mrc_srv6_set_path(&pkt, &p), 0);
		MRC_T_ASSERT(pkt.flags & MRC_PKT_F_SRV6, "SRv6 flag");
		unsigned int nc = (n + 5) / 6;

		MRC_T_EQ(!!(pkt.flags & MRC_PKT_F_SRH), nc > 1);
		if (nc > 1) {
			/* RFC 8754: segs[0] is the LAST container; segments_left -> the first. */
			MRC_T_EQ(pkt.srh.n_segs, nc);
			MRC_T_EQ(pkt.srh.segments_left, nc - 1);
			MRC_T_MEMEQ(pkt.srh.segs[nc - 1], pkt.outer.dst, 16);
			MRC_T_EQ(mrc_usid_active(pkt.srh.segs[0]), p.usid[6 * (nc - 1)]);
		}
		MRC_T_RUN(walk(&pkt, &p));
	}
	return MRC_TEST_OK;
}

static int
test_get_path_errors(void)
{
	struct mrc_usid_path p, q;
	struct mrc_pkt pkt;

	memset(&pkt, 0, sizeof(pkt));
	MRC_T_EQ(mrc_srv6_get_path(&pkt, BLOCK, &q), -ENOENT);
	make_path(&p, 9);
	MRC_T_EQ(mrc_srv6_set_path(&pkt, &p), 0);
	MRC_T_EQ(mrc_srv6_get_path(&pkt, BLOCK ^ 1, &q), -EINVAL);
	pkt.srh.segments_left = pkt.srh.n_segs;
	MRC_T_EQ(mrc_srv6_get_path(&pkt, BLOCK, &q), -EINVAL);
	return MRC_TEST_OK;
}

/* Found by fuzz_srv6: a path packed 4+6+4 re-encodes densely as 6+6+2. */
static int
test_sparse_containers_repack(void)
{
	uint8_t c[3][16], e[MRC_SRH_MAX_SEGS][16];
	struct mrc_usid_path p, q, full;

	make_path(&full, 14);
	memset(c, 0, sizeof(c));
	for (int i = 0; i < 3; i++) {
		c[i][0] = 0xfc;
		c[i][1] = 0xbb;
	}
	for (unsigned int i = 0; i < 14; i++) {
		unsigned int ci = i < 4 ? 0 : (i < 10 ? 1 : 2),
			     k = i < 4 ? i : (i < 10 ? i - 4 : i - 10);

		c[ci][4 + 2 * k] = (uint8_t)(full.usid[i] >> 8);
		c[ci][5 + 2 * k] = (uint8_t)full.usid[i];
	}
	MRC_T_EQ(mrc_usid_decode((const uint8_t(*)[16])c, 3, BLOCK, &p), 0);
	MRC_T_EQ(p.n, 14);
	MRC_T_MEMEQ(p.usid, full.usid, 14 * sizeof(uint16_t));
	MRC_T_EQ(mrc_usid_encode(&p, e, MRC_SRH_MAX_SEGS), 3);
	MRC_T_EQ(mrc_usid_active(e[2]), full.usid[12]); /* 6 + 6 + 2 */
	MRC_T_ASSERT(memcmp(c, e, sizeof(c)) != 0, "the packing differs");
	MRC_T_EQ(mrc_usid_decode((const uint8_t(*)[16])e, 3, BLOCK, &q), 0);
	MRC_T_MEMEQ(q.usid, p.usid, 14 * sizeof(uint16_t));
	return MRC_TEST_OK;
}

static const struct mrc_test_case cases[] = {
	MRC_TEST_CASE(test_sparse_containers_repack),
	MRC_TEST_CASE(test_container_bytes),
	MRC_TEST_CASE(test_encode_decode_all_lengths),
	MRC_TEST_CASE(test_encode_rejects),
	MRC_TEST_CASE(test_decode_rejects),
	MRC_TEST_CASE(test_shift),
	MRC_TEST_CASE(test_srh_walk),
	MRC_TEST_CASE(test_get_path_errors),
};

MRC_TEST_MAIN("srv6", cases)
