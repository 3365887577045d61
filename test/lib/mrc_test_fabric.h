/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRC_TEST_FABRIC_H
#define MRC_TEST_FABRIC_H

/*
 * The engine over the emulated fabric on a fake clock, for tests: one
 * drivers/fabric fabric, one shard (lib/host) per host on that host's
 * fabric ports, and QP pairs (mrc_test_qp.h) whose QPs are given to the
 * shards of their hosts. Only glue: the fabric models the network, the
 * shards do every rx, tx and tx-room decision, as in the daemon.
 *
 * One step (mrc_test_net_step) is what a daemon's loop does, on a fake
 * clock: advance time, poll the fabric, iterate every shard; every
 * microsecond, the control side reads each host's port link status,
 * publishes it to the host's shard and tells the peers of its QPs
 * (mrc_qp_set_peer_planes), as the endpoint protocol would.
 */

#include <stdbool.h>
#include <stdint.h>

#include "mrc_fabric.h"
#include "mrc_rand.h"
#include "mrc_shard.h"
#include "mrc_test_qp.h"

#define MRC_TEST_NET_MAX_HOSTS 8
#define MRC_TEST_NET_MAX_PAIRS 8
#define MRC_TEST_NET_QPN_BASE  0x100 /* pair k's QPNs: base + 2k (its h[0]), + 2k + 1 */

struct mrc_test_net_cfg {
	struct mrc_fabric_cfg fabric; /* tsc_hz is set to MRC_TEST_HZ by the fixture */
	bool nic_room;		      /* the NIC tx room rule (mrc_shard.h) */
	uint64_t tx_room_ns; /* ... the queue it allows in line time (0: 2560; >= 2 frames) */
	uint64_t seed;	     /* the shards' randomness */
	uint64_t step_ns;    /* the loop's time step (0: 100) */
};

struct mrc_test_net {
	struct rte_mempool *pool; /* the fabric's: its ports' rx queues, its payload copies */
	struct mrc_fabric *fab;
	struct mrc_fabric_cfg fcfg;
	struct mrc_shard *shard[MRC_TEST_NET_MAX_HOSTS];
	unsigned int n_hosts;
	struct mrc_test_pair *pair[MRC_TEST_NET_MAX_PAIRS];
	uint8_t pair_host[MRC_TEST_NET_MAX_PAIRS][2];
	unsigned int n_pairs;
	uint32_t port_mask[MRC_TEST_NET_MAX_HOSTS]; /* last published, per host */
	struct mrc_rand rand;
	uint64_t now;
	uint64_t step_ns;
	uint64_t next_links; /* when the control side reads link status next */
};

/* cfg->fabric from mrc_fabric_cfg_defaults(), the NIC tx room rule on, seed 1. */
void mrc_test_net_cfg_defaults(struct mrc_test_net_cfg *cfg);

/*
 * The fabric (its own mbuf pool, ports started) and a shard per host. The
 * EAL must be up (mrc_test_eal_init). 0, or -1 and why on stderr.
 */
int mrc_test_net_create(struct mrc_test_net *net, const struct mrc_test_net_cfg *cfg);

/*
 * Pair config for pair number `index` between fabric hosts `a` (h[0]) and
 * `b` (h[1]): QPNs and host numbers set, the rest mrc_test_pair_cfg_defaults()
 * with the fabric's plane count.
 */
void mrc_test_net_pair_cfg(const struct mrc_test_net *net, unsigned int index, uint8_t a, uint8_t b,
	struct mrc_test_pair_cfg *pc);

/* Give a pair created with `pc` (from mrc_test_net_pair_cfg) to its hosts' shards. 0 or -1. */
int mrc_test_net_add_pair(
	struct mrc_test_net *net, struct mrc_test_pair *p, const struct mrc_test_pair_cfg *pc);

/* One step: now += step, the fabric polled, every shard iterated, links read when due. */
void mrc_test_net_step(struct mrc_test_net *net);

/* Read every host's port link status, publish it, tell the peers of changes. */
void mrc_test_net_links(struct mrc_test_net *net);

/* Every QP idle, nothing in the fabric, nothing staged in a shard. */
bool mrc_test_net_idle(const struct mrc_test_net *net);

/*
 * Remove the QPs from the shards, free the shards, the fabric and its pool
 * (not the pairs); false if the pool was not full first (an mbuf leaked).
 */
bool mrc_test_net_free(struct mrc_test_net *net);

#endif /* MRC_TEST_FABRIC_H */
