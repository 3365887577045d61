/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: the caller at setup (start) and teardown (write); the polling
 * lcore per ingress burst (fab_capture_burst).
 *
 * A capture of what the hosts' NICs put on the wire: the first packets the
 * fabric takes from the host ports, after the port's egress encap rules
 * were applied (doc/offload.md), so a run in the offload mode can be
 * compared with the software build packet by packet (mrc-encap-check).
 * The emulated NIC's capture (mrc_nic_capture.h) keeps them, stamped in
 * fabric time: memory set aside at start, no allocation or syscall while
 * the fabric runs, a pcap file at the end.
 */

#include <errno.h>

#include "fabric_priv.h"

#define PS_PER_S 1000000000000ull

int
mrc_fabric_capture_start(struct mrc_fabric *fab, uint32_t max_pkts, uint32_t snaplen)
{
	if (fab->cap != NULL || max_pkts == 0 || snaplen < 64 || snaplen > 65535)
		return -EINVAL;
	fab->cap = mrc_nic_capture_create(max_pkts, snaplen, PS_PER_S);
	return fab->cap != NULL ? 0 : -ENOMEM;
}

void
fab_capture_burst(struct mrc_fabric *fab, struct rte_mbuf **pkts, unsigned int n)
{
	mrc_nic_capture_burst(fab->cap, pkts, (uint16_t)n, fab->now_ps);
}

const struct mrc_nic_capture *
mrc_fabric_capture(const struct mrc_fabric *fab)
{
	return fab->cap;
}

void
fab_capture_free(struct mrc_fabric *fab)
{
	mrc_nic_capture_free(fab->cap);
	fab->cap = NULL;
}
