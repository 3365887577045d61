/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRCD_CONTROL_H
#define MRCD_CONTROL_H

/*
 * The control side: what the main lcore runs. Setup before the workers
 * start, the run loop while they run, teardown after they stop. Each
 * function returning int returns 0, or -1 after printing what is wrong.
 */

#include <stdbool.h>
#include <stdint.h>

#include "mrcd_daemon.h"

/*
 * Setup (mrcd_setup.c). mrcd_make_flows(d, false) only counts the flows
 * (before the EAL starts, for mrcd_size_memory); with true it allocates and
 * fills them.
 */
int mrcd_make_flows(struct mrcd_daemon *d, bool fill);
int mrcd_size_memory(struct mrcd_daemon *d);
int mrcd_make_pools(struct mrcd_daemon *d, unsigned int h);
int mrcd_make_host(struct mrcd_daemon *d, unsigned int h, uint64_t now);
int mrcd_connect_flows(struct mrcd_daemon *d, uint64_t now);
int mrcd_assign_lcores(struct mrcd_daemon *d);

/* 0 if both of the host's pools hold every mbuf again; says which did not. */
int mrcd_pools_full(const struct mrcd_hostctx *hc);

/* [ports] mode = ethdev (mrcd_ports.c): find, probe, configure and start
 * every host x plane port. */
int mrcd_ports_open(struct mrcd_daemon *d);
void mrcd_ports_close(struct mrcd_daemon *d);
void mrcd_ports_drops(const struct mrcd_daemon *d, struct mrcd_port_drops *out);

/* [ports] mode = loop (mrcd_loop.c): host pairs joined back to back by rings.
 * Close after mrcd_ports_close. */
int mrcd_loop_open(struct mrcd_daemon *d);
void mrcd_loop_close(struct mrcd_daemon *d);

/* Take what the hosts' shards handed off (endpoint requests are counted and
 * freed: nothing acts on them yet). */
void mrcd_handoff_drain(struct mrcd_daemon *d);

#endif /* MRCD_CONTROL_H */
