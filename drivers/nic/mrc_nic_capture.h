/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRC_NIC_CAPTURE_H
#define MRC_NIC_CAPTURE_H

/**
 * @file
 * A capture of what an emulated NIC puts on the wire, after its egress
 * encap rules (the loop pairs' tx side, and the fabric's host ports): the
 * first packets, copied into memory set aside at creation (no allocation or
 * syscall per packet) from any number of lcores at once (a slot is taken
 * with one atomic add), and written as a pcap file once they stopped. So a
 * run in the encap offload mode can be checked packet by packet
 * (mrc-encap-check, doc/offload.md).
 */

#include <stdint.h>

#include <rte_mbuf.h>

struct mrc_nic_capture;

/**
 * Room for `max_pkts` packets of `snaplen` bytes at most (64..65535), stamped
 * in units of which `stamp_hz` make a second (0: the TSC's); NULL: a size out
 * of range or no memory.
 */
struct mrc_nic_capture *mrc_nic_capture_create(
	uint32_t max_pkts, uint32_t snaplen, uint64_t stamp_hz);

/** Keep what fits of the burst, stamped `stamp`; the rest is counted as missed. Any lcore. */
void mrc_nic_capture_burst(
	struct mrc_nic_capture *c, struct rte_mbuf *const *pkts, uint16_t n, uint64_t stamp);

/**
 * Write the packets as a pcap file (Ethernet, microsecond stamps); once
 * nobody captures any more. 0 or -errno; how many were kept and missed.
 */
int mrc_nic_capture_write(
	const struct mrc_nic_capture *c, const char *path, uint32_t *n_pkts, uint64_t *missed);

void mrc_nic_capture_free(struct mrc_nic_capture *c);

#endif /* MRC_NIC_CAPTURE_H */
