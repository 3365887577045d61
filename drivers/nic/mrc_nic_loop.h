/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRC_NIC_LOOP_H
#define MRC_NIC_LOOP_H

/**
 * @file
 * Two net_ring ports joined back to back (loop mode), with N rx and N tx
 * queues each, steered by the emulated NIC (doc/steering.md).
 *
 * With one queue a side is exactly what loop mode always was: each
 * direction one single-producer single-consumer ring that is the sender's
 * tx queue and the receiver's rx queue; nothing is looked at.
 *
 * With n_queues > 1 nothing polls the cable, so the sender's tx burst plays
 * the receiving NIC: an ethdev tx callback on each tx queue classifies every
 * packet by the rules recorded for the peer port (mrc_flow_ops_rec) and
 * enqueues it on the peer's rx ring of the queue the rule names, or the
 * one its RSS hash picks if none (rx rings are multi-producer, one
 * consumer). Before that it plays the switches the cable stands in for
 * (mrc_nic_emu_consume_switch_usids()), so the outer destination arrives
 * as over the fabric. Packets a full rx
 * ring refuses are returned unsent, at the end of the caller's array, as a
 * full ring port returns them. The ring PMD then only sees the delivered
 * packets' pointers, which it puts in a private sink ring the callback
 * empties next time (the callback cannot tell tx_burst it sent them
 * itself). Per packet: one classification (mrc_nic_emu.h) and its share of
 * one ring enqueue per queue per burst.
 *
 * Threads: create/start/free on the control thread; tx queue q is used by
 * one lcore at a time (as on a NIC), rx queue q likewise.
 */

#include <stdint.h>

#include <rte_mempool.h>

#include "mrc_nic_capture.h"
#include "mrc_nic_emu.h"

struct mrc_nic_loop_cfg {
	const char *name;   /**< ports "<name>a" and "<name>b" (vdevs net_ring_<name>a/b) */
	uint16_t n_queues;  /**< rx and tx queues per side, 1..MRC_NIC_MAX_QUEUES */
	uint32_t ring_size; /**< packets per rx queue ring (rounded up to a power of 2) */
	int socket;	    /**< where rings live (SOCKET_ID_ANY) */
	/** n_queues > 1: what both sides send, after their encap rules; NULL: none */
	struct mrc_nic_capture *capture;
};

struct mrc_nic_loop;

/** Create the two ports (not configured). NULL with rte_errno and *why. */
struct mrc_nic_loop *mrc_nic_loop_create(const struct mrc_nic_loop_cfg *cfg, const char **why);

/** The ethdev port of side 0 or 1. */
uint16_t mrc_nic_loop_port(const struct mrc_nic_loop *l, unsigned int side);

/**
 * Configure both ports with n_queues rx and tx queues (rx queue setup takes
 * `pool[side]`, which the ring PMD only records), start them, and with
 * n_queues > 1 install the classifying tx callbacks. 0 or -errno (*why).
 */
int mrc_nic_loop_start(struct mrc_nic_loop *l, struct rte_mempool *pool[2], const char **why);

/**
 * Emulated-NIC counters of the packets that arrived at `side` (summed over
 * the peer's tx queues; all zero with one queue, where nothing classifies).
 */
void mrc_nic_loop_counters(
	const struct mrc_nic_loop *l, unsigned int side, struct mrc_nic_emu_counters *out);

/**
 * Stop and close both ports, remove the vdevs, free what the rings still
 * hold back to its pools, free the loop. NULL is a no-op.
 */
void mrc_nic_loop_free(struct mrc_nic_loop *l);

#endif /* MRC_NIC_LOOP_H */
