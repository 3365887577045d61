/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef TEST_FABRIC_H
#define TEST_FABRIC_H

/*
 * What the three files of the fabric tests share: a packet pool, the wire
 * configuration, packets described by a struct spec and built with
 * lib/wire, and ways to drive a fabric on a fake clock through its ports.
 *
 *   test_fabric.c             helpers, forwarding, drops, black holes, the case table
 *   test_fabric_congestion.c  queues, ECN, trimming, tail drop, host rings, loss
 *   test_fabric_faults.c      scenario files, and a QP pair through a failing plane
 *   test_fabric_timeline.c    a fault timeline replaced while the fabric runs
 *   test_fabric_model.c       jitter, forced ECN marks, the configuration check, the
 *                             NIC's plain queue, untrimmable data, timing details,
 *                             faults in time, chains cut anywhere, random operations
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "mrc_ev.h"
#include "mrc_fabric.h"
#include "mrc_srv6.h"

#define HZ	 1000000000ull /* 1 tick = 1 ns */
#define US	 1000ull
#define HL	 64
#define SCEN_DIR MRC_SOURCE_ROOT "/config/scenarios/"

/* Set up once by setup(), read by every case (no case changes them). */
extern struct rte_mempool *t_pool;
extern struct mrc_wire_cfg t_wire;

/* What to send. */
struct spec {
	unsigned int src, dst, plane, uplink;
	bool plain;			  /* structured EV: no outer header */
	uint32_t payload, psn, ev;	  /* ev 0: derived from plane, uplink, psn */
	uint8_t dscp;			  /* 0: trimmable (DSCP 0 is no_trim: see below) */
	bool no_trim;			  /* DSCP no_trim: the fabric may not trim it */
	uint8_t ecn, hl;		  /* hl 0: HL */
	const struct mrc_usid_path *path; /* NULL: mrc_ev_path() */
	bool chain;			  /* as a QP sends: headers | indirect payload | ICRC */
	uint32_t block;			  /* 0: cfg's */
	uint16_t dst_workers;		  /* > 1: the path ends with dst_worker's uSID */
	uint8_t dst_worker;
	bool ep_request; /* an endpoint request (0xD8, QPN 2, no payload) instead of a write */
};

/* EAL (or MRC_TEST_SKIP), t_pool, t_wire (the wire defaults). */
int setup(void);
/* A fabric on the fake clock (c->tsc_hz set here), ports started; NULL says why. */
struct mrc_fabric *mkfab(struct mrc_fabric_cfg *c);
/* The EV of `s`: plane and uplink in the default layout, the PSN in the random bits. */
uint32_t spec_ev(const struct spec *s);
/* Build `s` into an mbuf of t_pool; NULL on failure. */
struct rte_mbuf *mk(const struct mrc_fabric_cfg *c, const struct spec *s);
/* Build `s` and transmit it on its source host's port. */
int send_spec(struct mrc_fabric *f, const struct mrc_fabric_cfg *c, const struct spec *s);
/* Poll at every event until nothing is left; *now ends at the last one. */
void run_idle(struct mrc_fabric *f, uint64_t *now);
/* Everything waiting on every port (host and plane of each when asked); the count. */
unsigned int rx_all(struct mrc_fabric *f, const struct mrc_fabric_cfg *c, struct rte_mbuf **out,
	unsigned int max, unsigned int *host, unsigned int *plane);
void free_all(struct rte_mbuf **m, unsigned int n);
/* Every mbuf of t_pool is back. */
int check_no_leak(void);
/* `text` as the whole of the file at `path` (a scenario); 0 or -1. */
int write_file(const char *path, const char *text);

/* The cases of the other two files. */
int test_overload_mid_fabric(void);
int test_overload_last_hop(void);
int test_queue_limit_and_host_ring(void);
int test_control_priority(void);
int test_random_loss(void);
int test_free_in_flight(void);
int test_scenario_plane3(void);
int test_scenario_log_deferred(void);
int test_scenario_examples(void);
int test_scenario_errors(void);
int test_drop_request(void);
int test_qp_pair_plane_down(void);
int test_jitter_keeps_paths_in_order(void);
int test_forced_mark(void);
int test_cfg_check(void);
int test_nic_queue_plain(void);
int test_untrimmable_dropped_trimmable_trimmed(void);
int test_poll_at_the_end_of_time(void);
int test_back_to_back_timing(void);
int test_faults_in_time(void);
int test_trim_any_chain(void);
int test_random_ops(void);
int test_timeline_replace(void);
int test_timeline_errors(void);

#endif /* TEST_FABRIC_H */
