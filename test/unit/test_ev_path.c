/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * EV -> SRv6 uSID path: hand-written expected uSID lists for the addressing
 * plan in mrc_ev_path.h, the same-T0 shortcut, errors, other layouts, the
 * container bytes mrc_srv6_set_path() puts in the outer destination, and a
 * whole generated pool mapped onto a fabric (every T1 equally used).
 */

#include <errno.h>
#include <string.h>

#include "mrc_ev.h"
#include "mrc_ev_path.h"
#include "mrc_rand.h"
#include "mrc_srv6.h"
#include "mrc_test.h"
#include "mrc_wire_pkt.h"

#define BLOCK 0xfcbb0000u

static const struct mrc_ev_path_tmpl tmpl_far = {
	.block = BLOCK, .src_t0 = 5, .dst_t0 = 7, .dst_host = 3, .n_t1 = 4};

/* EV with plane and uplink under the default layout, random bits `rnd20`. */
static uint32_t
ev_of(uint32_t plane, uint32_t uplink, uint32_t rnd20)
{
	return plane << 28 | uplink << 20 | (rnd20 & 0xfffff);
}

static int
expect_path(const struct mrc_ev_path_tmpl *t, const struct mrc_ev_layout *l, uint32_t ev,
	const uint16_t *want, unsigned int n)
{
	struct mrc_usid_path p;

	memset(&p, 0xee, sizeof(p));
	MRC_T_EQ(mrc_ev_path(t, l, ev, &p), 0);
	MRC_T_EQ(p.block, t->block);
	MRC_T_EQ(p.n, n);
	for (unsigned int i = 0; i < n; i++)
		MRC_T_ASSERT(p.usid[i] == want[i], "EV %08x hop %u: %04x, want %04x", ev, i,
			p.usid[i], want[i]);
	return MRC_TEST_OK;
}

static int
test_usid_plan(void)
{
	MRC_T_EQ(mrc_ev_usid(0, MRC_USID_TIER_T0, 0), 0x1000);
	MRC_T_EQ(mrc_ev_usid(2, MRC_USID_TIER_T1, 0x11), 0x3111);
	MRC_T_EQ(mrc_ev_usid(7, MRC_USID_TIER_HOST, 0xff), 0x8eff);
	return MRC_TEST_OK;
}

static int
test_paths_by_hand(void)
{
	const struct mrc_ev_layout l = MRC_EV_LAYOUT_DEFAULT;
	const struct mrc_ev_path_tmpl near = {
		.block = BLOCK, .src_t0 = 5, .dst_t0 = 5, .dst_host = 200, .n_t1 = 4};
	const struct mrc_ev_path_tmpl wide = {
		.block = BLOCK, .src_t0 = 0, .dst_t0 = 255, .dst_host = 0, .n_t1 = 16};

	/* The header's example: plane 2, uplink 9 -> T1 9 % 4 = 1. */
	MRC_T_RUN(expect_path(&tmpl_far, &l, ev_of(2, 9, 0x12345),
		(const uint16_t[]){0x3005, 0x3101, 0x3007, 0x3e03}, 4));
	/* The random bits do not matter. */
	MRC_T_RUN(expect_path(&tmpl_far, &l, ev_of(2, 9, 0xfffff),
		(const uint16_t[]){0x3005, 0x3101, 0x3007, 0x3e03}, 4));
	MRC_T_RUN(expect_path(&tmpl_far, &l, ev_of(0, 0, 0),
		(const uint16_t[]){0x1005, 0x1100, 0x1007, 0x1e03}, 4));
	MRC_T_RUN(expect_path(&tmpl_far, &l, ev_of(7, 255, 1),
		(const uint16_t[]){0x8005, 0x8103, 0x8007, 0x8e03}, 4));
	MRC_T_RUN(expect_path(&wide, &l, ev_of(0, 255, 7),
		(const uint16_t[]){0x1000, 0x110f, 0x10ff, 0x1e00}, 4));
	MRC_T_RUN(expect_path(&wide, &l, ev_of(4, 0x42, 7),
		(const uint16_t[]){0x5000, 0x5102, 0x50ff, 0x5e00}, 4));
	/* Same T0: no T1, whatever the uplink. */
	MRC_T_RUN(expect_path(&near, &l, ev_of(1, 9, 3), (const uint16_t[]){0x2005, 0x2ec8}, 2));
	MRC_T_RUN(expect_path(&near, &l, ev_of(1, 10, 3), (const uint16_t[]){0x2005, 0x2ec8}, 2));
	return MRC_TEST_OK;
}

static int
test_other_layout(void)
{
	/* Plane in EV[3:0], uplink in EV[11:4], random above. */
	const struct mrc_ev_layout l = {
		.plane_shift = 0, .plane_bits = 4, .uplink_shift = 4, .uplink_bits = 8};
	const struct mrc_ev_layout no_uplink = {
		.plane_shift = 29, .plane_bits = 3, .uplink_shift = 0, .uplink_bits = 0};

	MRC_T_RUN(expect_path(&tmpl_far, &l, 0xabcd0000u | 0x0736u /* uplink 0x73, plane 6 */,
		(const uint16_t[]){0x7005, 0x7103, 0x7007, 0x7e03}, 4));
	MRC_T_RUN(expect_path(&tmpl_far, &no_uplink, 5u << 29 | 0x1fffffffu,
		(const uint16_t[]){0x6005, 0x6100, 0x6007, 0x6e03}, 4));
	return MRC_TEST_OK;
}

static int
test_errors(void)
{
	const struct mrc_ev_layout l = MRC_EV_LAYOUT_DEFAULT;
	struct mrc_ev_layout bad = l;
	struct mrc_ev_path_tmpl no_t1 = tmpl_far;
	struct mrc_ev_path_tmpl near_no_t1 = tmpl_far;
	struct mrc_usid_path p;

	/* Planes 8..15 fit the 4-bit field but not the addressing plan. */
	for (uint32_t plane = 8; plane < 16; plane++)
		MRC_T_EQ(mrc_ev_path(&tmpl_far, &l, ev_of(plane, 1, 1), &p), -EINVAL);
	MRC_T_EQ(mrc_ev_path(&tmpl_far, &l, ev_of(7, 1, 1), &p), 0);
	no_t1.n_t1 = 0;
	MRC_T_EQ(mrc_ev_path(&no_t1, &l, ev_of(1, 1, 1), &p), -EINVAL);
	near_no_t1.n_t1 = 0;
	near_no_t1.dst_t0 = near_no_t1.src_t0;
	MRC_T_EQ(mrc_ev_path(&near_no_t1, &l, ev_of(1, 1, 1), &p), 0);
	bad.uplink_shift = 26; /* overlaps the plane */
	MRC_T_EQ(mrc_ev_path(&tmpl_far, &bad, ev_of(1, 1, 1), &p), -EINVAL);
	MRC_T_EQ(mrc_ev_path(NULL, &l, 0, &p), -EINVAL);
	MRC_T_EQ(mrc_ev_path(&tmpl_far, NULL, 0, &p), -EINVAL);
	MRC_T_EQ(mrc_ev_path(&tmpl_far, &l, 0, NULL), -EINVAL);
	return MRC_TEST_OK;
}

/* The path goes into a packet: one container, bytes as the switches will read them. */
static int
test_set_path_accepts(void)
{
	const struct mrc_ev_layout l = MRC_EV_LAYOUT_DEFAULT;
	static const uint8_t want_da[16] = {
		0xfc, 0xbb, 0x00, 0x00, 0x30, 0x05, 0x31, 0x01, 0x30, 0x07, 0x3e, 0x03, 0, 0, 0, 0};
	struct mrc_usid_path p, back;
	struct mrc_pkt pkt;

	MRC_T_EQ(mrc_ev_path(&tmpl_far, &l, ev_of(2, 9, 0x12345), &p), 0);
	memset(&pkt, 0, sizeof(pkt));
	MRC_T_EQ(mrc_srv6_set_path(&pkt, &p), 0);
	MRC_T_ASSERT(pkt.flags & MRC_PKT_F_SRV6, "SRv6 flag");
	MRC_T_ASSERT(!(pkt.flags & MRC_PKT_F_SRH), "4 uSIDs need no SRH");
	MRC_T_MEMEQ(pkt.outer.dst, want_da, 16);
	MRC_T_EQ(mrc_srv6_get_path(&pkt, BLOCK, &back), 0);
	MRC_T_EQ(back.n, 4);
	MRC_T_MEMEQ(back.usid, p.usid, 4 * sizeof(uint16_t));
	/* Hop by hop: each switch sees its own uSID active. */
	MRC_T_EQ(mrc_usid_active(pkt.outer.dst), 0x3005);
	MRC_T_EQ(mrc_usid_shift(pkt.outer.dst), 0x3101);
	MRC_T_EQ(mrc_usid_shift(pkt.outer.dst), 0x3007);
	MRC_T_EQ(mrc_usid_shift(pkt.outer.dst), 0x3e03);
	MRC_T_EQ(mrc_usid_shift(pkt.outer.dst), 0);
	return MRC_TEST_OK;
}

/*
 * Several workers at the destination: the worker uSID ends the path (far and
 * near), and after the last T0's shift the outer destination is exactly
 * mrc_ev_worker_addr(), the address a steering rule matches. One worker (0
 * or 1) adds nothing; a worker index beyond the count is refused.
 */
static int
test_worker_usid(void)
{
	const struct mrc_ev_layout l = MRC_EV_LAYOUT_DEFAULT;
	struct mrc_ev_path_tmpl t = tmpl_far, near = tmpl_far;
	uint8_t want[16];
	struct mrc_usid_path p;
	struct mrc_pkt pkt;

	MRC_T_EQ(mrc_ev_usid(2, MRC_USID_TIER_WORKER, 1), 0x3f01);
	t.dst_workers = 1;
	t.dst_worker = 0;
	MRC_T_RUN(expect_path(
		&t, &l, ev_of(2, 9, 7), (const uint16_t[]){0x3005, 0x3101, 0x3007, 0x3e03}, 4));
	t.dst_workers = 2;
	t.dst_worker = 1;
	MRC_T_RUN(expect_path(&t, &l, ev_of(2, 9, 7),
		(const uint16_t[]){0x3005, 0x3101, 0x3007, 0x3e03, 0x3f01}, 5));
	near.dst_t0 = near.src_t0;
	near.dst_workers = 4;
	near.dst_worker = 3;
	MRC_T_RUN(expect_path(
		&near, &l, ev_of(0, 1, 1), (const uint16_t[]){0x1005, 0x1e03, 0x1f03}, 3));
	/* Still one container; after the three switches' shifts, the worker's address. */
	MRC_T_EQ(mrc_ev_path(&t, &l, ev_of(2, 9, 7), &p), 0);
	memset(&pkt, 0, sizeof(pkt));
	MRC_T_EQ(mrc_srv6_set_path(&pkt, &p), 0);
	MRC_T_ASSERT(!(pkt.flags & MRC_PKT_F_SRH), "5 uSIDs need no SRH");
	for (int i = 0; i < 3; i++)
		(void)mrc_usid_shift(pkt.outer.dst);
	MRC_T_EQ(mrc_ev_worker_addr(BLOCK, 2, 3, 1, want), 0);
	MRC_T_MEMEQ(pkt.outer.dst, want, 16);
	static const uint8_t bytes[16] = {
		0xfc, 0xbb, 0x00, 0x00, 0x3e, 0x03, 0x3f, 0x01, 0, 0, 0, 0, 0, 0, 0, 0};
	MRC_T_MEMEQ(want, bytes, 16);
	/* Errors. */
	t.dst_worker = 2;
	MRC_T_EQ(mrc_ev_path(&t, &l, ev_of(2, 9, 7), &p), -EINVAL);
	MRC_T_EQ(mrc_ev_worker_addr(BLOCK, MRC_EV_MAX_PLANES, 3, 1, want), -EINVAL);
	return MRC_TEST_OK;
}

/* A whole pool onto a 4-T1 fabric: valid paths, plane nibble = plane + 1, T1s evenly used. */
static int
test_pool_paths(void)
{
	static uint64_t mem[1024];
	struct mrc_ev_pool *pool = (struct mrc_ev_pool *)mem;
	struct mrc_ev_cfg cfg;
	struct mrc_rand r;
	unsigned int per_t1[8][4] = {{0}};

	mrc_ev_cfg_default(&cfg, 8, 1000000000);
	MRC_T_ASSERT(mrc_ev_pool_memsize(&cfg) <= sizeof(mem), "pool fits");
	mrc_rand_seed(&r, 31);
	MRC_T_EQ(mrc_ev_pool_init(pool, &cfg, &r, NULL), 0);
	for (int s = 0; s < mrc_ev_n_slots(pool); s++) {
		struct mrc_usid_path p;
		struct mrc_pkt pkt;
		const unsigned int plane = mrc_ev_plane(pool, s);

		MRC_T_EQ(mrc_ev_path(&tmpl_far, &cfg.layout, mrc_ev_value(pool, s), &p), 0);
		MRC_T_EQ(p.n, 4);
		for (unsigned int i = 0; i < 4; i++)
			MRC_T_EQ(p.usid[i] >> 12, plane + 1);
		MRC_T_EQ(p.usid[1] & 0xff00, 0x0100 | (plane + 1) << 12);
		if (mrc_ev_slot_is_active(pool, s))
			per_t1[plane][p.usid[1] & 0xff]++;
		memset(&pkt, 0, sizeof(pkt));
		MRC_T_EQ(mrc_srv6_set_path(&pkt, &p), 0);
	}
	for (unsigned int plane = 0; plane < 8; plane++)
		for (unsigned int t1 = 0; t1 < 4; t1++)
			MRC_T_EQ(per_t1[plane][t1], 4);
	return MRC_TEST_OK;
}

static const struct mrc_test_case cases[] = {
	MRC_TEST_CASE(test_usid_plan),
	MRC_TEST_CASE(test_paths_by_hand),
	MRC_TEST_CASE(test_other_layout),
	MRC_TEST_CASE(test_errors),
	MRC_TEST_CASE(test_set_path_accepts),
	MRC_TEST_CASE(test_pool_paths),
	MRC_TEST_CASE(test_worker_usid),
};

MRC_TEST_MAIN("ev_path", cases)
