/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: the main lcore, at setup and teardown (the workers then send and
 * receive on these ports with ordinary bursts).
 *
 * [ports] mode = loop: hosts 2k and 2k+1 joined back to back, plane by
 * plane. Each link is two single-producer single-consumer rte_rings, one
 * per direction, and each end is a net_ring port made by
 * rte_eth_from_rings(), so the hosts see ordinary ethdev ports (the same
 * rx/tx burst calls as on a NIC) and nothing sits between them: no switch,
 * no queue model, no loss. This is how the benchmarks measure what the
 * hosts themselves cost per packet (scripts/bench/bench-rate.sh).
 *
 * A ring port hands over mbuf pointers: a packet arrives as the chain the
 * sender built (header, attached payload, trailer) from the sender's tx
 * pool, and the receiver frees it there.
 *
 * With [lcores] workers_per_host = n > 1 each link is an emulated NIC pair
 * instead (drivers/nic/mrc_nic_loop.h): n queues each way, the sender's tx
 * burst putting each packet on the rx queue the receiver's recorded flow
 * rules name (without one, the queue its RSS hash picks) and shifting the
 * micro-SIDs the switches would. With flow steering every packet lands on
 * its owner's queue; with software steering RSS spreads host pairs over
 * the queues and each shard passes on what is not its own
 * (lib/host/mrc_shard.h).
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_bus_vdev.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_ring.h>

#include "mrc_nic_capture.h"
#include "mrcd_daemon.h"
#include "mrcd_log.h"
#include "mrcd_control.h"

static void
port_name(char *buf, size_t len, unsigned int h, unsigned int p)
{
	snprintf(buf, len, "mrcd_loop_h%up%u", h, p);
}

/* Several workers per host: each link an emulated NIC pair with a queue per worker. */
static int
nic_loops_open(struct mrcd_daemon *d, unsigned int nq)
{
	const unsigned int n_planes = d->cfg.daemon.planes;
	const char *why = NULL;
	char name[32];
	int rc;

	/* [fabric] capture: what the loop pairs' NICs send, after their encap rules */
	if (strcmp(d->cfg.fabric.capture, "none") != 0) {
		d->loop_capture = mrc_nic_capture_create(d->cfg.fabric.capture_pkts, 512, 0);
		if (d->loop_capture == NULL) {
			MRCD_LOG(ctrl, ERR, "[fabric] capture = %s, capture_pkts = %u: no memory",
				d->cfg.fabric.capture, d->cfg.fabric.capture_pkts);
			return -ENOMEM;
		}
	}
	for (unsigned int h = 0; h + 1 < d->n_hosts; h += 2)
		for (unsigned int p = 0; p < n_planes; p++) {
			struct rte_mempool *pools[2] = {d->host[h].rx_pool, d->host[h + 1].rx_pool};
			struct mrc_nic_loop_cfg lc = {.name = name,
				.n_queues = (uint16_t)nq,
				.ring_size = d->cfg.ports.rx_desc,
				.socket = (int)rte_socket_id(),
				.capture = d->loop_capture};
			struct mrc_nic_loop *l;

			snprintf(name, sizeof(name), "mrcd_nl%u_%u", h / 2, p);
			l = d->nic_loop[h / 2][p] = mrc_nic_loop_create(&lc, &why);
			rc = l == NULL ? -rte_errno : mrc_nic_loop_start(l, pools, &why);
			if (rc != 0) {
				MRCD_LOG(ctrl, ERR, "loop: hosts %u and %u plane %u: %s", h, h + 1,
					p, why);
				return rc;
			}
			for (unsigned int side = 0; side < 2; side++) {
				d->host[h + side].port[p] = mrc_nic_loop_port(l, side);
				/* the emulated NIC applies the rules recorded for its ports */
				rc = mrcd_steer_choose(d, h + side, p, "emulated NIC", (uint16_t)nq,
					&mrc_flow_ops_rec);
				if (rc != 0)
					return rc;
			}
		}
	MRCD_LOG(ctrl, NOTICE,
		"loop: %u host pairs joined back to back on %u planes, emulated NICs of %u queues",
		d->n_hosts / 2, n_planes, nq);
	return 0;
}

void
mrcd_capture_save(struct mrcd_daemon *d, const char *who, const struct mrc_nic_capture *c)
{
	uint32_t n = 0;
	uint64_t missed = 0;
	const int rc = mrc_nic_capture_write(c, d->cfg.fabric.capture, &n, &missed);

	if (rc != 0)
		MRCD_LOG(ctrl, ERR, "[fabric] capture = %s: cannot write it: %s",
			d->cfg.fabric.capture, strerror(-rc));
	else
		MRCD_LOG(ctrl, NOTICE,
			"%s: %u packets the hosts sent captured in %s (%" PRIu64
			" more not kept: [fabric] capture_pkts)",
			who, n, d->cfg.fabric.capture, missed);
}

int
mrcd_loop_open(struct mrcd_daemon *d)
{
	const unsigned int n_planes = d->cfg.daemon.planes;
	const unsigned int size = d->cfg.ports.rx_desc;
	const unsigned int nq = d->cfg.lcores.workers_per_host ? d->cfg.lcores.workers_per_host : 1;
	char name[RTE_RING_NAMESIZE];

	if (nq > 1)
		return nic_loops_open(d, nq);
	if (strcmp(d->cfg.fabric.capture, "none") != 0)
		MRCD_LOG(ctrl, WARNING,
			"[fabric] capture = %s: loop pairs capture with [lcores] workers_per_host "
			">= "
			"2 only (plain rings have no tx side to capture on); nothing captured",
			d->cfg.fabric.capture);

	for (unsigned int h = 0; h < d->n_hosts; h++)
		for (unsigned int p = 0; p < n_planes; p++) {
			snprintf(name, sizeof(name), "mrcd_loop_%u_%u", h, p);
			d->loop_ring[h][p] = rte_ring_create(
				name, size, (int)rte_socket_id(), RING_F_SP_ENQ | RING_F_SC_DEQ);
			if (d->loop_ring[h][p] == NULL) {
				MRCD_LOG(ctrl, ERR, "loop: cannot create ring %s (%u slots): %s",
					name, size, rte_strerror(rte_errno));
				return -rte_errno;
			}
		}
	for (unsigned int h = 0; h < d->n_hosts; h++)
		for (unsigned int p = 0; p < n_planes; p++) {
			struct mrcd_hostctx *hc = &d->host[h];
			const struct rte_eth_conf conf = {0};
			const int sock = (int)rte_socket_id();
			int id, rc;

			port_name(name, sizeof(name), h, p);
			/* We send on our ring and receive on the peer's (2k <-> 2k+1). */
			id = rte_eth_from_rings(name, &d->loop_ring[h ^ 1][p], 1,
				&d->loop_ring[h][p], 1, (unsigned int)sock);
			if (id < 0) {
				MRCD_LOG(ctrl, ERR,
					"loop: host %u plane %u: rte_eth_from_rings "
					"failed: %s",
					h, p, rte_strerror(rte_errno));
				return -rte_errno;
			}
			d->loop_vdev[h][p] = true;
			rc = rte_eth_dev_configure((uint16_t)id, 1, 1, &conf);
			if (rc == 0)
				rc = rte_eth_rx_queue_setup(
					(uint16_t)id, 0, 0, (unsigned int)sock, NULL, hc->rx_pool);
			if (rc == 0)
				rc = rte_eth_tx_queue_setup(
					(uint16_t)id, 0, 0, (unsigned int)sock, NULL);
			if (rc == 0)
				rc = rte_eth_dev_start((uint16_t)id);
			if (rc != 0) {
				MRCD_LOG(ctrl, ERR,
					"loop: host %u plane %u: port %d did not "
					"start: %s",
					h, p, id, rte_strerror(-rc));
				return rc;
			}
			hc->port[p] = (uint16_t)id;
			hc->port_started |= 1u << p;
			/* plain rings: no NIC to classify (rte_flow on net_ring says ENOSYS) */
			rc = mrcd_steer_choose(
				d, h, p, "net_ring", (uint16_t)nq, &mrc_flow_ops_real);
			if (rc != 0)
				return rc;
		}
	MRCD_LOG(ctrl, NOTICE, "loop: %u host pairs joined back to back on %u planes (rings of %u)",
		d->n_hosts / 2, n_planes, size);
	return 0;
}

void
mrcd_loop_close(struct mrcd_daemon *d)
{
	char name[RTE_RING_NAMESIZE + 16];

	for (unsigned int k = 0; k < MRCD_MAX_HOSTS / 2; k++)
		for (unsigned int p = 0; p < MRC_SHARD_MAX_PLANES; p++) {
			/* stops and closes both ports, gives back what the rings hold */
			mrc_nic_loop_free(d->nic_loop[k][p]);
			d->nic_loop[k][p] = NULL;
		}

	for (unsigned int h = 0; h < MRCD_MAX_HOSTS; h++)
		for (unsigned int p = 0; p < MRC_SHARD_MAX_PLANES; p++) {
			struct rte_mbuf *m[64];
			unsigned int n;

			if (d->loop_vdev[h][p]) {
				/* mrcd_ports_close stopped and closed the port: remove the vdev. */
				snprintf(name, sizeof(name), "net_ring_");
				port_name(name + 9, sizeof(name) - 9, h, p);
				(void)rte_vdev_uninit(name);
				d->loop_vdev[h][p] = false;
			}
			if (d->loop_ring[h][p] == NULL)
				continue;
			/* What nobody received goes back to its pool before the leak check. */
			while ((n = rte_ring_dequeue_burst(
					d->loop_ring[h][p], (void **)m, RTE_DIM(m), NULL)) > 0)
				rte_pktmbuf_free_bulk(m, n);
			rte_ring_free(d->loop_ring[h][p]);
			d->loop_ring[h][p] = NULL;
		}
	if (d->loop_capture != NULL) {
		mrcd_capture_save(d, "loop", d->loop_capture);
		mrc_nic_capture_free(d->loop_capture);
		d->loop_capture = NULL;
	}
}
