/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Fuzz the exception path's classifier and the neighbour discovery parser
 * (drivers/nic/mrc_nd.h): any frame at all. Oracles: an NS or NA it accepts
 * has hop limit 255 and a target that is not multicast; rebuilt from what
 * was read (mrc_nd_build_*), it is accepted again with the same target and
 * link-layer address; and a neighbour fed it learns exactly that address.
 */

#include <string.h>

#include "fuzz.h"
#include "mrc_nd.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t f[1 << 16];
	uint8_t b[MRC_ND_FRAME_LEN];
	struct mrc_nd_msg m, m2;
	struct rte_ether_addr dst;
	enum mrc_nd_kind k;
	uint32_t n;

	if (size > sizeof(f))
		return 0;
	memcpy(f, data, size); /* exactly size bytes: ASan sees a read past them */
	k = mrc_nd_classify(f, (uint32_t)size, &m);
	FUZZ_CHECK((unsigned int)k < MRC_ND_KIND_MAX, "kind %d", k);
	if (k != MRC_ND_KIND_NS && k != MRC_ND_KIND_NA)
		return 0;
	FUZZ_CHECK(size >= MRC_ND_FRAME_LEN - 8 && f[21] == 255, "hop limit %u", f[21]);
	FUZZ_CHECK(m.target[0] != 0xff, "a multicast target accepted");
	if (!m.has_lladdr)
		return 0;
	memcpy(&dst, f, sizeof(dst));
	if (k == MRC_ND_KIND_NA)
		n = mrc_nd_build_na(b, sizeof(b), &m.lladdr, &dst, m.target, m.dst_ip,
			m.flags & MRC_ND_NA_SOLICITED);
	else
		n = mrc_nd_build_ns(b, sizeof(b), &m.lladdr, &dst, m.src_ip, m.target);
	FUZZ_CHECK(n == MRC_ND_FRAME_LEN, "built %u bytes", n);
	FUZZ_CHECK(mrc_nd_classify(b, n, &m2) == k, "the rebuilt message is refused");
	FUZZ_CHECK(memcmp(m2.target, m.target, sizeof(m.target)) == 0, "target changed");
	FUZZ_CHECK(m2.has_lladdr && rte_is_same_ether_addr(&m2.lladdr, &m.lladdr), "lladdr");

	/* a neighbour it speaks for learns its address, and nothing else */
	struct mrc_nd_neigh nb;
	struct mrc_nd_timing t;

	mrc_nd_timing_defaults(&t, 1000);
	mrc_nd_neigh_start(&nb, k == MRC_ND_KIND_NA ? m.target : m.src_ip, 0);
	FUZZ_CHECK(mrc_nd_neigh_learn(&nb, &m, &t, 1), "not learnt");
	FUZZ_CHECK(mrc_nd_neigh_usable(&nb) && rte_is_same_ether_addr(&nb.mac, &m.lladdr),
		"learnt another MAC");
	return 0;
}
