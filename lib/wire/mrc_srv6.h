/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRC_SRV6_H
#define MRC_SRV6_H

/**
 * @file
 * SRv6 micro-SID paths (RFC 9800 NEXT-C-SID, block 32 bits, node 16 bits;
 * doc/protocol.md, "SRv6 addressing plan").
 *
 * A path is a 32-bit block (locator) and a list of 16-bit uSIDs, one per
 * switch (and a last one for the destination NIC, if the deployment names
 * it). A 128-bit container holds the block and up to six uSIDs, zero-filled:
 *
 *   | block (32) | uSID 1 | uSID 2 | uSID 3 | uSID 4 | uSID 5 | uSID 6 |
 *
 * The uSID right after the block is the active one. A switch that owns
 * block + active uSID shifts the remaining uSIDs left by 16 bits, fills the
 * tail with zeros and looks the new address up again. When a container runs
 * out, an SRH (RFC 8754) supplies the next one: segments_left is
 * decremented and segment_list[segments_left] becomes the destination.
 * A uSID of 0 is the end-of-container marker, so real uSIDs are non-zero.
 */

#include <stdint.h>

#include "mrc_wire_pkt.h"

#define MRC_USID_BLOCK_BITS    32
#define MRC_USID_BITS	       16
#define MRC_USID_PER_CONTAINER 6
/** Longest path: a DA container plus the SRH's other containers. */
#define MRC_USID_MAX_PATH (MRC_USID_PER_CONTAINER * MRC_SRH_MAX_SEGS)

struct mrc_usid_path {
	uint32_t block;
	uint8_t n; /**< uSIDs in use */
	uint16_t usid[MRC_USID_MAX_PATH];
};

/** Containers needed for `n_usids` uSIDs. */
static inline unsigned int
mrc_usid_containers(unsigned int n_usids)
{
	return (n_usids + MRC_USID_PER_CONTAINER - 1) / MRC_USID_PER_CONTAINER;
}

/**
 * Encode `path` into containers, first hop first.
 * @return the number of containers (>= 1), or -EINVAL (empty path, a zero
 *   uSID, n above MRC_USID_MAX_PATH), -ENOSPC (more than `max` containers).
 */
int mrc_usid_encode(
	const struct mrc_usid_path *path, uint8_t (*c)[MRC_IPV6_ADDR_LEN], unsigned int max);

/**
 * Decode containers (first hop first) into `path`. Every container must
 * carry `block`, at least one uSID, and nothing but zeros after its first
 * zero uSID.
 * @return 0 or -EINVAL.
 */
int mrc_usid_decode(const uint8_t (*c)[MRC_IPV6_ADDR_LEN], unsigned int n, uint32_t block,
	struct mrc_usid_path *path);

/** The block (first 32 bits) of an address. */
uint32_t mrc_usid_block(const uint8_t addr[MRC_IPV6_ADDR_LEN]);

/** The active uSID (bits 32..47) of an address; 0 when the container is spent. */
uint16_t mrc_usid_active(const uint8_t addr[MRC_IPV6_ADDR_LEN]);

/**
 * NEXT-C-SID shift: move the uSIDs after the active one up by 16 bits and
 * zero the last 16 bits, as a switch does after matching block + active uSID.
 * @return the new active uSID (0 when the container is spent).
 */
uint16_t mrc_usid_shift(uint8_t addr[MRC_IPV6_ADDR_LEN]);

/**
 * Put `path` in `pkt`: the first container becomes the outer destination;
 * further containers go to an SRH holding the whole list (RFC 8754 order:
 * segs[0] is the last container, segments_left points at the first).
 * Sets MRC_PKT_F_SRV6 and, when needed, MRC_PKT_F_SRH.
 * @return 0, -EINVAL or -ENOSPC as mrc_usid_encode().
 */
int mrc_srv6_set_path(struct mrc_pkt *pkt, const struct mrc_usid_path *path);

/**
 * The path still ahead of a packet: the uSIDs left in its outer destination,
 * then those of the SRH segments not yet visited (segments_left - 1 down
 * to 0). The first container may be partly consumed; it must still match
 * `block`.
 * @return 0, -ENOENT (not SRv6 mode), -EINVAL (malformed containers).
 */
int mrc_srv6_get_path(const struct mrc_pkt *pkt, uint32_t block, struct mrc_usid_path *path);

#endif /* MRC_SRV6_H */
