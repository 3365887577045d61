/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: the main lcore, at setup, as each port is opened.
 *
 * How packets reach the shard that owns their QP, port by port ([ports]
 * steering). Each port has one tx queue per shard of its host and, where
 * it can, one rx queue per shard. In software steering a packet lands on
 * whatever rx queue the port picks (on loop ports: the queue of the index
 * that sent it; on a port with fewer rx queues than shards, queue 0), and
 * the shard that reads it passes it on to the owner through the owner's
 * inbound ring (lib/host/mrc_shard.h). Flow steering (rte_flow rules that
 * put each packet on its owner's queue) is not built in yet: auto gives
 * software everywhere, and flow is refused with the reason.
 */

#include <errno.h>
#include <stdio.h>

#include "mrcd_control.h"
#include "mrcd_daemon.h"
#include "mrcd_log.h"
#include "mrcd_stats.h"

int
mrcd_steer_choose(struct mrcd_daemon *d, unsigned int h, unsigned int p, const char *driver,
	uint16_t rx_queues)
{
	struct mrcd_hostctx *hc = &d->host[h];
	const unsigned int n = d->cfg.lcores.workers_per_host ? d->cfg.lcores.workers_per_host : 1;
	const unsigned int ch = d->cfg.daemon.first_host + h;

	hc->rx_queues[p] = rx_queues;
	hc->steer[p] = MRCD_STEER_SOFTWARE;
	if (n == 1) {
		snprintf(hc->steer_why[p], sizeof(hc->steer_why[p]),
			"one worker per host: nothing to steer");
		return 0;
	}
	switch (d->cfg.ports.steering) {
	case MRCD_STEERING_FLOW:
		MRCD_LOG(ctrl, ERR,
			"host %u plane %u: port %u (%s): [ports] steering = flow, but this mrcd "
			"installs no rte_flow rules yet: use steering = software or auto",
			ch, p, hc->port[p], driver);
		return -ENOTSUP;
	case MRCD_STEERING_SOFTWARE:
		snprintf(hc->steer_why[p], sizeof(hc->steer_why[p]), "[ports] steering = software");
		break;
	default:
		snprintf(hc->steer_why[p], sizeof(hc->steer_why[p]),
			"auto: no rte_flow rules are installed yet");
		break;
	}
	MRCD_LOG(ctrl, NOTICE,
		"host %u plane %u: port %u (%s): %u rx and %u tx queues for %u workers; %s "
		"steering (%s)",
		ch, p, hc->port[p], driver, rx_queues, n, n, mrcd_steer_name(hc->steer[p]),
		hc->steer_why[p]);
	return 0;
}
