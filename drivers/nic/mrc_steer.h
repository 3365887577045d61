/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRC_STEER_H
#define MRC_STEER_H

/**
 * @file
 * Steering a host's packets to the rx queue of the worker that owns their
 * QP (doc/steering.md).
 *
 * Each worker k of a host with several workers has its own outer IPv6
 * destination on each plane, <block>:<host uSID>:<worker uSID k>::
 * (mrc_ev_worker_addr(), lib/ev/mrc_ev_path.h), which peers put in the
 * paths of packets for QPs that worker owns. One ingress rule per worker
 * and port sends it to queue k:
 *
 *   ingress  pattern ETH / IPV6 dst is <address> (mask: all 128 bits) / END
 *            actions QUEUE index k / END
 *
 * No UDP item: in SRv6 mode the outer header's next header is an SRH or
 * IPv6, never UDP (the RoCEv2 UDP header is inside), and the address is
 * the worker's alone, so a UDP match would only make the rule fail to
 * match. ETH / IPV6 dst is the match the most NICs offer in hardware.
 *
 * Every call goes through a struct mrc_flow_ops (mrc_flow.h): the real
 * backend on a NIC, the recording backend where the emulated NIC plays it.
 */

#include <stdint.h>

#include <rte_flow.h>

#include "mrc_flow.h"

/** A steering rule in rte_flow form; mrc_steer_rule_build() fills it. */
struct mrc_steer_rule {
	struct rte_flow_attr attr;
	struct rte_flow_item pattern[3];   /**< ETH, IPV6, END */
	struct rte_flow_action actions[2]; /**< QUEUE, END */
	struct rte_flow_item_ipv6 ip_spec, ip_mask;
	struct rte_flow_action_queue queue;
};

/** Fill `r` to send packets whose outer IPv6 destination is `dst` to rx `queue`. */
void mrc_steer_rule_build(struct mrc_steer_rule *r, const uint8_t dst[16], uint16_t queue);

/** Create the steering rule on `port` through `ops`: the rule, or NULL and *err. */
struct mrc_flow *mrc_steer_install(const struct mrc_flow_ops *ops, uint16_t port,
	const uint8_t dst[16], uint16_t queue, struct mrc_flow_err *err);

/**
 * Can `port` steer? Creates the rule for (`dst`, `queue`) and destroys it
 * again (never validation alone: drivers validate rules they then fail to
 * create). The port must be configured with more than `queue` rx queues
 * (most NICs also want it started).
 * @return 0: supported; -errno: not, with err->msg saying why (the
 *   driver's words). A rule created but not destroyable is -EIO.
 */
int mrc_steer_probe(const struct mrc_flow_ops *ops, uint16_t port, const uint8_t dst[16],
	uint16_t queue, struct mrc_flow_err *err);

/**
 * Install one rule per worker of `host` on its `plane` port `port`: worker
 * k's address (mrc_ev_worker_addr(block, plane, host, k)) -> queue k, for
 * k < n_workers. `flows` (n_workers entries) receives the handles, for
 * destroy at stop. On failure the rules made so far are destroyed again.
 * @return 0, or -errno with *err.
 */
int mrc_steer_workers(const struct mrc_flow_ops *ops, uint16_t port, uint32_t block,
	unsigned int plane, uint8_t host, unsigned int n_workers, struct mrc_flow **flows,
	struct mrc_flow_err *err);

#endif /* MRC_STEER_H */
