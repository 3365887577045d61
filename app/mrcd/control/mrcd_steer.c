/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: the main lcore, at setup as each port is opened, and at teardown.
 *
 * How packets reach the shard that owns their QP, port by port ([ports]
 * steering; doc/steering.md). Each port has one tx queue per shard of its
 * host and, where it can, one rx queue per shard.
 *
 * Flow steering: one rte_flow rule per worker on the port sends packets
 * whose outer destination is that worker's address (the worker micro-SID
 * the peers put after the host's, SRv6 only) to its queue. A port is
 * probed by creating and destroying the rule (mrc_steer_probe); NICs go
 * through rte_flow itself, the emulated fabric's ports through the
 * recording backend, whose rules the fabric applies as it delivers.
 *
 * Software steering: a packet lands on whatever rx queue the port picks
 * (the emulated fabric's and loop ports: the queue their RSS hash picks
 * when no rule matches; a NIC: the queue its RSS picks, mrcd_ports.c; a
 * port with fewer rx queues than shards: those it has), and the shard
 * that reads it passes it on to the owner through the owner's inbound
 * ring (lib/host/mrc_shard.h).
 *
 * auto takes flow where the probe succeeds and software elsewhere, saying
 * why; flow refuses to start where the probe fails.
 */

#include <errno.h>
#include <stdio.h>

#include <rte_errno.h>

#include "mrc_ev_path.h"
#include "mrc_steer.h"
#include "mrcd_control.h"
#include "mrcd_daemon.h"
#include "mrcd_log.h"
#include "mrcd_stats.h"

/* Why flow steering cannot be had on this port, before any probe; NULL: probe it. */
static const char *
flow_impossible(const struct mrcd_daemon *d, const struct mrc_flow_ops *ops, uint16_t rx_queues,
	char *buf, size_t len)
{
	const unsigned int n = d->cfg.lcores.workers_per_host;

	if (d->cfg.transport.encap != MRCD_ENCAP_SRV6)
		return "[transport] encap = plain: the workers of a host share one address";
	if (ops == NULL)
		return "the port takes no flow rules";
	if (rx_queues < n) {
		snprintf(buf, len, "the port has %u rx queues for %u workers", rx_queues, n);
		return buf;
	}
	return NULL;
}

static int
steer_choose(struct mrcd_daemon *d, unsigned int h, unsigned int p, const char *driver,
	uint16_t rx_queues, const struct mrc_flow_ops *ops)
{
	struct mrcd_hostctx *hc = &d->host[h];
	const unsigned int n = d->cfg.lcores.workers_per_host ? d->cfg.lcores.workers_per_host : 1;
	const unsigned int ch = d->cfg.daemon.first_host + h;
	const uint32_t block = d->cfg.fabric.block;
	struct mrc_flow_err err = {0};
	char buf[sizeof(hc->steer_why[0]) - 8];
	const char *no = NULL;
	int rc = 0;

	hc->rx_queues[p] = rx_queues;
	hc->steer[p] = MRCD_STEER_SOFTWARE;
	if (n == 1) {
		snprintf(hc->steer_why[p], sizeof(hc->steer_why[p]),
			"one worker per host: nothing to steer");
		return 0;
	}
	if (d->cfg.ports.steering == MRCD_STEERING_SOFTWARE) {
		snprintf(hc->steer_why[p], sizeof(hc->steer_why[p]), "[ports] steering = software");
		goto say;
	}
	no = flow_impossible(d, ops, rx_queues, buf, sizeof(buf));
	if (no == NULL) {
		uint8_t addr[16];

		/* The probe: worker 1's rule made and taken down again. */
		rc = mrc_ev_worker_addr(block, p, (uint8_t)ch, 1, addr);
		if (rc == 0)
			rc = mrc_steer_probe(ops, hc->port[p], addr, 1, &err);
		if (rc == 0)
			rc = mrc_steer_workers(
				ops, hc->port[p], block, p, (uint8_t)ch, n, hc->flows[p], &err);
		if (rc == 0) {
			hc->flow_ops[p] = ops;
			hc->steer[p] = MRCD_STEER_FLOW;
			snprintf(hc->steer_why[p], sizeof(hc->steer_why[p]),
				"%s rules probed and installed, one per worker", ops->name);
			goto say;
		}
		/* the driver's words, cut to what the port's record holds */
		snprintf(buf, sizeof(buf), "%s probe: %.*s", ops->name, (int)(sizeof(buf) - 32),
			err.msg[0] ? err.msg : rte_strerror(-rc));
		no = buf;
	}
	if (d->cfg.ports.steering == MRCD_STEERING_FLOW) {
		MRCD_LOG(ctrl, ERR,
			"host %u plane %u: port %u (%s): [ports] steering = flow, but %s: use "
			"steering = software or auto",
			ch, p, hc->port[p], driver, no);
		return -ENOTSUP;
	}
	snprintf(hc->steer_why[p], sizeof(hc->steer_why[p]), "auto: %s", no);
say:
	MRCD_LOG(ctrl, NOTICE,
		"host %u plane %u: port %u (%s): %u rx and %u tx queues for %u workers; %s "
		"steering (%s)",
		ch, p, hc->port[p], driver, rx_queues, n, n, mrcd_steer_name(hc->steer[p]),
		hc->steer_why[p]);
	return 0;
}

int
mrcd_steer_choose(struct mrcd_daemon *d, unsigned int h, unsigned int p, const char *driver,
	uint16_t rx_queues, const struct mrc_flow_ops *ops)
{
	const int rc = steer_choose(d, h, p, driver, rx_queues, ops);

	/* Every port whose steering is decided has its rules backend: probe encap too. */
	return rc != 0 ? rc : mrcd_encap_choose(d, h, p, driver, ops);
}

void
mrcd_steer_remove(struct mrcd_daemon *d)
{
	for (unsigned int h = 0; h < d->n_hosts; h++)
		for (unsigned int p = 0; p < MRC_SHARD_MAX_PLANES; p++) {
			struct mrcd_hostctx *hc = &d->host[h];

			for (unsigned int k = 0; k < MRC_SHARD_MAX_SHARDS; k++) {
				struct mrc_flow_err err;

				if (hc->flow_ops[p] != NULL && hc->flows[p][k] != NULL &&
					hc->flow_ops[p]->destroy(
						hc->port[p], hc->flows[p][k], &err) != 0)
					MRCD_LOG(ctrl, WARNING,
						"host %u plane %u: steering rule %u not removed: "
						"%s",
						d->cfg.daemon.first_host + h, p, k, err.msg);
				hc->flows[p][k] = NULL;
			}
			hc->flow_ops[p] = NULL;
		}
}
