/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRCD_HOST_H
#define MRCD_HOST_H

/*
 * One host's dataplane: its NIC ports (one per plane), registered memory,
 * completion queue and QPs, and the loop a worker lcore runs for it.
 *
 * One iteration (doc/architecture.md, "A worker's loop"):
 *   rx burst on every plane port -> parse (drops counted by reason)
 *   -> QP input, SACKs and NACKs before data, so windows open before the
 *      new data they admit is accounted
 *   -> timers: the QPs whose deadline is due (a hashed timer wheel)
 *   -> QP output (each QP sends control answers, resends, probes, then new
 *      data) -> tx burst per plane port.
 * What a port does not take stays staged for the next iteration, and that
 * plane is offered no new packets meanwhile: a full NIC queue is "no room"
 * in the EV pool's eyes, exactly like a port that is down.
 *
 * Ownership: everything here belongs to the worker lcore that iterates the
 * host, except the port mask, which the control thread publishes (it reads
 * link status; a worker never makes that call).
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_mempool.h>

#include "mrc_counters.h"
#include "mrc_qp.h"
#include "mrc_rand.h"
#include "mrc_timer_wheel.h"
#include "mrc_wire_pkt.h"

#define MRCD_MAX_PLANES 8
#define MRCD_BURST	32

#define MRCD_HOST_COUNTERS(X)                                                              \
	X(iterations, "loops", "worker loop iterations over this host")                    \
	X(rx_pkts, "pkts", "packets received on the host's ports")                         \
	X(rx_unknown_qpn, "pkts", "valid MRC packets for a QP this host does not have")    \
	X(rx_ep_ops, "pkts", "endpoint operations (QPN 2) received: not handled here yet") \
	X(tx_pkts, "pkts", "packets the ports accepted")                                   \
	X(tx_staged, "pkts", "packets a port could not take at once (sent later)")         \
	X(tx_dropped, "pkts", "packets dropped because a plane's staging area was full")   \
	X(timer_fires, "events", "QP timers that fired")                                   \
	X(trk_parked, "events", "QPs set aside until an in-flight ring is free (none was)")

MRC_COUNTER_BLOCK_DECLARE(mrcd_host_counters, MRCD_HOST_COUNTERS);

struct mrcd_host_cfg {
	uint8_t id;
	uint8_t n_planes;
	uint16_t port_id[MRCD_MAX_PLANES]; /* the ethdev port of each plane */
	uint32_t max_qps;		   /* QP table size */
	uint32_t trk_blocks;	/* in-flight rings lent to the QPs (0: none, each owns one) */
	size_t trk_block_bytes; /* ... each this big (mrc_qp_trk_block_bytes) */
	uint32_t qpn_base;	/* QPNs are qpn_base .. qpn_base + max_qps - 1 */
	uint64_t tsc_hz;
	uint64_t timer_tick_tsc; /* timer wheel tick (default 1 us) */
	struct mrc_wire_cfg wire;
	int socket;
};

struct mrcd_host;

/* Create a host; NULL and *why on failure. */
struct mrcd_host *mrcd_host_create(
	const struct mrcd_host_cfg *cfg, uint64_t now_tsc, const char **why);
void mrcd_host_free(struct mrcd_host *h);

/* Register a QP (created with this host's regions and CQ); 0, -EINVAL (QPN out of range), -EEXIST.
 */
int mrcd_host_add_qp(struct mrcd_host *h, struct mrc_qp *qp, uint64_t now_tsc);

/* The pool QPs of this host borrow in-flight rings from (NULL if trk_blocks was 0). */
struct mrc_trk_pool *mrcd_host_trk_pool(const struct mrcd_host *h);

struct mrc_fabric;

/*
 * The emulated fabric this host's ports lead into, polled on the same
 * lcore (so its queues can be read without a lock), and the host's number
 * in it: from then on a plane takes packets only while its NIC port holds
 * at most `room_bytes` not yet on the wire, as a NIC picks a plane whose
 * port has room (GetSendParams(free_ports)). NULL: ports limited only by
 * their staging rings.
 */
void mrcd_host_set_fabric(struct mrcd_host *h, const struct mrc_fabric *fab, unsigned int fab_host,
	uint64_t room_bytes);

/* Remove a QP (its timer is cancelled); 0 or -ENOENT. */
int mrcd_host_del_qp(struct mrcd_host *h, struct mrc_qp *qp);

/* One loop iteration; returns the packets received plus sent. */
unsigned int mrcd_host_iterate(struct mrcd_host *h, uint64_t now_tsc, struct mrc_rand *rand);

/* Control thread: planes whose local port is up (bit p = plane p). */
void mrcd_host_set_port_mask(struct mrcd_host *h, uint32_t mask);
uint32_t mrcd_host_port_mask(const struct mrcd_host *h);

/* Control thread: read link status of every plane port and publish the mask. */
uint32_t mrcd_host_refresh_links(struct mrcd_host *h);

/* Packets staged but not yet accepted by the ports. */
unsigned int mrcd_host_staged(const struct mrcd_host *h);

/* Free everything staged (at shutdown). */
void mrcd_host_drop_staged(struct mrcd_host *h);

/* Per-plane traffic the ports accepted / delivered (for throughput per plane). */
struct mrcd_plane_counters {
	uint64_t tx_pkts, tx_bytes, rx_pkts, rx_bytes;
};

const struct mrcd_plane_counters *mrcd_host_plane_counters(
	const struct mrcd_host *h, unsigned int plane);

const struct mrcd_host_counters *mrcd_host_counters(const struct mrcd_host *h);
const struct mrc_wire_rx_stats *mrcd_host_rx_verdicts(const struct mrcd_host *h);

#endif /* MRCD_HOST_H */
