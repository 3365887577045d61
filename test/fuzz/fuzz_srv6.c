/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Fuzz the uSID container / SRH decoder. Input: a 4-byte block, a count of
 * containers, then the containers. Oracles: a decoded path re-encodes to the
 * same bytes; put in a packet (DA + SRH) it reads back unchanged; and a
 * packet walked hop by hop (shift, then next SRH segment) visits exactly the
 * decoded uSIDs in order and stops.
 */

#include <stdbool.h>
#include <string.h>

#include "fuzz.h"
#include "mrc_srv6.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t c[MRC_SRH_MAX_SEGS][MRC_IPV6_ADDR_LEN], e[MRC_SRH_MAX_SEGS][MRC_IPV6_ADDR_LEN];
	struct mrc_usid_path p, q;
	struct mrc_pkt pkt;
	unsigned int n;
	uint32_t block;

	if (size < 5)
		return 0;
	block = ((uint32_t)data[0] << 24) | ((uint32_t)data[1] << 16) | ((uint32_t)data[2] << 8) |
		data[3];
	n = data[4] % (MRC_SRH_MAX_SEGS + 1);
	memset(c, 0, sizeof(c));
	memcpy(c, data + 5, RTE_MIN(size - 5, sizeof(c)));

	/* The shift always terminates and keeps the block. */
	uint8_t da[MRC_IPV6_ADDR_LEN];

	memcpy(da, c[0], sizeof(da));
	for (int i = 0; i < MRC_USID_PER_CONTAINER; i++)
		mrc_usid_shift(da);
	FUZZ_CHECK(mrc_usid_active(da) == 0, "six shifts empty a container");
	FUZZ_CHECK(mrc_usid_block(da) == mrc_usid_block(c[0]), "block moved");

	if (mrc_usid_decode((const uint8_t(*)[MRC_IPV6_ADDR_LEN])c, n, block, &p) != 0)
		return 0;
	FUZZ_CHECK(p.n >= n && p.n <= n * MRC_USID_PER_CONTAINER, "%u uSIDs from %u containers",
		p.n, n);
	for (unsigned int i = 0; i < p.n; i++)
		FUZZ_CHECK(p.usid[i] != 0, "zero uSID decoded");

	/*
	 * Re-encoding packs uSIDs densely (six per container), so it reproduces
	 * the input exactly when every container but the last was full; a path
	 * packed 4+6+4 comes back as 6+6+2 and must still decode the same.
	 */
	int ne = mrc_usid_encode(&p, e, MRC_SRH_MAX_SEGS);
	bool dense = true;

	FUZZ_CHECK(ne == (int)mrc_usid_containers(p.n), "encode gave %d", ne);
	for (unsigned int i = 0; i + 1 < n; i++) /* full: its sixth uSID is set */
		dense = dense && (c[i][MRC_IPV6_ADDR_LEN - 2] | c[i][MRC_IPV6_ADDR_LEN - 1]) != 0;
	if (dense)
		FUZZ_CHECK(ne == (int)n && memcmp(c, e, n * MRC_IPV6_ADDR_LEN) == 0,
			"re-encode of a dense path differs");
	FUZZ_CHECK(mrc_usid_decode((const uint8_t(*)[MRC_IPV6_ADDR_LEN])e, (unsigned int)ne, block,
			   &q) == 0 &&
			   q.n == p.n && memcmp(q.usid, p.usid, p.n * sizeof(uint16_t)) == 0,
		"re-encoded path decodes differently");

	memset(&pkt, 0, sizeof(pkt));
	FUZZ_CHECK(mrc_srv6_set_path(&pkt, &p) == 0, "set_path");
	FUZZ_CHECK(mrc_srv6_get_path(&pkt, block, &q) == 0 && q.n == p.n &&
			   memcmp(q.usid, p.usid, p.n * sizeof(uint16_t)) == 0,
		"path does not read back");

	unsigned int hop = 0;

	for (unsigned int guard = 0; guard < 2 * MRC_USID_MAX_PATH; guard++) {
		uint16_t a = mrc_usid_active(pkt.outer.dst);

		if (a == 0) {
			if (!(pkt.flags & MRC_PKT_F_SRH) || pkt.srh.segments_left == 0)
				break;
			pkt.srh.segments_left--;
			memcpy(pkt.outer.dst, pkt.srh.segs[pkt.srh.segments_left],
				MRC_IPV6_ADDR_LEN);
			continue;
		}
		FUZZ_CHECK(hop < p.n && a == p.usid[hop], "hop %u visits 0x%04x", hop, a);
		mrc_usid_shift(pkt.outer.dst);
		hop++;
	}
	FUZZ_CHECK(hop == p.n, "walk visited %u of %u", hop, p.n);
	return 0;
}
