/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRC_EV_PATH_H
#define MRC_EV_PATH_H

/**
 * @file
 * EV -> SRv6 uSID path (doc/protocol.md, "SRv6 addressing plan").
 *
 * MRC keeps no per-path addresses: at QP start the destination selects a
 * row template (which T0 we hang off, which T0 and host port the destination
 * hangs off, how many T1s a plane has), and per packet the EV supplies the
 * plane (copied into every uSID) and the T0 uplink (which picks the T1).
 *
 * Addressing plan (mrcd's; drivers/fabric installs the same static tables):
 *
 *   uSID (16 bits) = (plane + 1) << 12 | tier << 8 | index
 *
 *     15     12 11      8 7                0
 *    +---------+---------+------------------+
 *    | plane+1 |  tier   |      index       |
 *    +---------+---------+------------------+
 *
 *   tier 0x0 = T0 switch, 0x1 = T1 switch, 0xE = host (a NIC port, the
 *   destination's downlink on its T0), 0xF = worker function (which of the
 *   destination host's workers, doc/steering.md); index = switch, host or
 *   worker number within the plane (the same numbering in every plane). plane + 1 >= 1, so a uSID
 *   is never 0 (0 ends a container). Planes 0..7 (MRC_EV_MAX_PLANES) use
 *   leading nibbles 1..8.
 *
 * Paths, in order (one uSID per switch plus the destination port):
 *
 *   src_t0 != dst_t0:  [T0 src_t0, T1 (uplink % n_t1), T0 dst_t0, host dst_host]
 *   src_t0 == dst_t0:  [T0 src_t0, host dst_host]           (no T1 needed)
 *
 * Example (block fcbb:0000::/32, plane 2, uplink 9, n_t1 4, T0 5 -> T0 7,
 * host 3): uSIDs 3005 3101 3007 3e03, so the outer destination is
 * fcbb:0:3005:3101:3007:3e03:: and fits one 128-bit container.
 */

#include <stdint.h>

#include "mrc_ev.h"
#include "mrc_srv6.h"

#define MRC_USID_TIER_T0     0x0
#define MRC_USID_TIER_T1     0x1
#define MRC_USID_TIER_HOST   0xE
#define MRC_USID_TIER_WORKER 0xF
/** Workers a host can address (the uSID's 8-bit index). */
#define MRC_EV_MAX_WORKERS 256

/** The uSID of switch/host `index` of `tier` on `plane` (plane < MRC_EV_MAX_PLANES). */
static inline uint16_t
mrc_ev_usid(unsigned int plane, unsigned int tier, uint8_t index)
{
	return (uint16_t)(((plane + 1) & 0xf) << 12 | (tier & 0xf) << 8 | index);
}

/** Per-destination path template: indexes within a plane, the same in every plane. */
struct mrc_ev_path_tmpl {
	uint32_t block; /**< the 32-bit SRv6 block (locator) of the fabric */
	uint8_t src_t0; /**< T0 our NIC ports attach to */
	uint8_t dst_t0; /**< T0 the destination's ports attach to */
	/**
	 * The destination host's number in the fabric (the index of its host
	 * uSID), not its downlink position on dst_t0: with several hosts per T0
	 * the two differ, and the fabric names NIC ports by host number.
	 */
	uint8_t dst_host;
	uint8_t n_t1; /**< T1 switches per plane (>= 1 when src_t0 != dst_t0) */
	/**
	 * Workers of the destination host (0 or 1: one, no worker uSID). With
	 * more, the path ends with the worker uSID of dst_worker, the worker
	 * that owns the destination QP (doc/steering.md).
	 */
	uint16_t dst_workers;
	uint8_t dst_worker; /**< < dst_workers when dst_workers > 1 */
};

/**
 * The uSID path packet with EV `ev` takes under `layout`.
 * @return 0, or -EINVAL: bad layout, the EV's plane >= MRC_EV_MAX_PLANES
 *   (beyond what the addressing plan encodes), or n_t1 == 0 on a path that
 *   needs a T1.
 */
int mrc_ev_path(const struct mrc_ev_path_tmpl *tmpl, const struct mrc_ev_layout *layout,
	uint32_t ev, struct mrc_usid_path *out);

/**
 * The outer destination address of packets for `worker` of `host` on
 * `plane` as they reach the host (after the last switch's shift): the
 * address an rx steering rule matches, <block>:<host uSID>:<worker uSID>::.
 * @return 0, or -EINVAL (plane >= MRC_EV_MAX_PLANES).
 */
int mrc_ev_worker_addr(uint32_t block, unsigned int plane, uint8_t host, uint8_t worker,
	uint8_t addr[MRC_IPV6_ADDR_LEN]);

#endif /* MRC_EV_PATH_H */
