/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: the main lcore of mrc-fabric, every pass of its 10 ms loop.
 *
 * Each memif port's link as the fabric sees it: a host's mrcd connecting
 * (the memif handshake done on the fabric's side) or going away. Counted
 * per attachment and logged with the fabric's time, so that a host that
 * says its links are up while the fabric never saw it connect (or saw it
 * late) shows in the fabric's log and summary. A connection shorter than
 * one pass (10 ms) between two looks is not seen.
 */

#include <stdio.h>

#include <rte_ethdev.h>

#include "fabricd.h"

static bool
link_up(uint16_t port)
{
	struct rte_eth_link l;

	return rte_eth_link_get_nowait(port, &l) == 0 && l.link_status == RTE_ETH_LINK_UP;
}

void
fabricd_links_watch(struct fabricd *fd, uint64_t now)
{
	for (unsigned int i = 0; i < fd->n_attach; i++) {
		const bool up = link_up(fd->memif_port[i]);
		struct fabricd_link_watch *w = &fd->link[i];

		if (up == w->up)
			continue;
		w->up = up;
		if (up)
			w->connects++;
		else
			w->disconnects++;
		printf("mrc-fabric: t=%.3f s: host %u plane %u: memif %s (connect %u, "
		       "disconnect %u)\n",
			fd->start_tsc ? (double)(now - fd->start_tsc) / fd->hz : 0.0,
			i / fd->n_planes, i % fd->n_planes, up ? "connected" : "gone", w->connects,
			w->disconnects);
	}
}
