/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRC_TEST_PKTS_H
#define MRC_TEST_PKTS_H

/*
 * A catalogue of sample packets, one or more of every MRC packet type and
 * encapsulation (SRv6 with and without SRH, plain, VLAN, TSETH, RTX,
 * trimmed), shared by the unit tests, the golden generator, the fuzz seed
 * corpus and the benchmarks so they all exercise the same set.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "mrc_wire_pkt.h"

#define MRC_TEST_HEADROOM 512
#define MRC_TEST_MAX_PKT  9216

struct mrc_test_sample {
	const char *name;
	struct mrc_pkt pkt; /* the build input */
	uint32_t payload_len;
	bool trim; /* after building, cut like a switch does */
	bool trim_lasthop;
};

/* Number of samples in the catalogue. */
unsigned int mrc_test_sample_count(void);

/* Fill `s` with sample `i` (0 <= i < count); returns 0 or -1. */
int mrc_test_sample_get(unsigned int i, struct mrc_test_sample *s);

/* The deterministic payload byte at `off` of sample `seed`. */
static inline uint8_t
mrc_test_payload_byte(unsigned int seed, uint32_t off)
{
	return (uint8_t)(off * 7u + seed * 13u + 1u);
}

/*
 * Build sample `s` into a new test mbuf (see mrc_test_mbuf.h): an empty
 * header segment, then the payload cut into segments at `cuts` (offsets
 * within the payload), then a trailer for pad + ICRC. The trim flags are not
 * applied here (see mrc_test_sample_bytes). Returns NULL on failure (and
 * says why on stderr).
 */
struct rte_mbuf *mrc_test_sample_build(const struct mrc_test_sample *s,
	const struct mrc_wire_cfg *cfg, const size_t *cuts, unsigned int n_cuts);

/* Build sample `s` into flat bytes, trimmed if it says so; returns the length or 0. */
size_t mrc_test_sample_bytes(
	const struct mrc_test_sample *s, const struct mrc_wire_cfg *cfg, uint8_t *out, size_t cap);

/* Cut a built packet after its transport headers and mark it trimmed. */
int mrc_test_trim(uint8_t *pkt, size_t *len, const struct mrc_wire_cfg *cfg, bool lasthop);

#endif /* MRC_TEST_PKTS_H */
