/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef BENCH_HOSTS_H
#define BENCH_HOSTS_H

/*
 * The fake-clock benchmarks' hosts: the engine (lib/host), one shard per
 * fabric host holding every QP of the bench's pairs placed on that host,
 * over the emulated fabric's ethdev ports, as the daemon runs it. A step is
 * what the daemon's worker does each loop on a fake clock: the fabric moves
 * packets, then each host's shard iterates (rx, timers, tx under the NIC
 * tx room rule of the engine). The benches differ only in what they do
 * around it (post, verify, measure, inject faults); completions come from
 * each QP's CQ.
 */

#include <stdint.h>

#include "mrc_fabric.h"
#include "mrc_rand.h"
#include "mrc_shard.h"
#include "mrc_test_qp.h"

/* The tx room the benches give a NIC port by default: 2.56 us (32 KB at 100 Gb/s). */
#define BENCH_NIC_ROOM_NS 2560u

struct bench_hosts {
	struct mrc_fabric *f;
	unsigned int n_hosts;
	struct mrc_shard *shard[MRC_FABRIC_MAX_HOSTS];
	struct mrc_rand rand[MRC_FABRIC_MAX_HOSTS]; /* each host's, as each worker has its own */
	struct mrc_test_pair *pairs;
	unsigned int n_pairs;
	const uint8_t (*hosts)[2];
};

struct bench_hosts_cfg {
	struct mrc_test_pair *pairs;
	unsigned int n_pairs;
	uint32_t qpn_base;	   /* pair q's QPs: qpn_base + 2q (side 0), + 1 (side 1) */
	const uint8_t (*hosts)[2]; /* fabric host of each pair's sides; NULL: {0, 1} */
	unsigned int n_hosts;	   /* fabric hosts (a shard each) */
	unsigned int n_planes;
	/*
	 * The engine's NIC tx room (mrc_shard.h): a host sends on a plane only
	 * while its port there holds at most nic_room_ns of line rate
	 * (link_gbps) not yet on the wire. 0: no limit.
	 */
	uint32_t nic_room_ns;
	double link_gbps;
	uint64_t seed;
};

/* 0, or -1 (and says why on stderr). */
int bench_hosts_create(struct bench_hosts *b, struct mrc_fabric *f,
	const struct bench_hosts_cfg *cfg, uint64_t now);
void bench_hosts_step(struct bench_hosts *b, uint64_t now);
/* Packets the hosts refused: parser verdicts other than OK, or for no QP of theirs. */
uint64_t bench_hosts_errors(const struct bench_hosts *b);
/* Remove the QPs from the shards and free them (the pairs stay). */
void bench_hosts_free(struct bench_hosts *b);

#endif /* BENCH_HOSTS_H */
