/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRCD_TELEMETRY_PRIV_H
#define MRCD_TELEMETRY_PRIV_H

/*
 * The /mrc/ telemetry commands, one file per family: the daemon and its
 * hosts (mrcd_telemetry_host.c), QPs (mrcd_telemetry_qp.c), ports, drops and
 * the emulated fabric (mrcd_telemetry_port.c), paths (mrcd_telemetry_path.c).
 * mrcd_telemetry.c registers them behind one teardown guard and keeps what
 * they share. All run on the stats thread, which DPDK's telemetry threads
 * hand each command (mrcd_telemetry.c).
 */

#include <stdint.h>

#include <rte_common.h>

#include "mrc_shard.h"
#include "mrcd_daemon.h"

struct rte_tel_data;

/* Set once by mrcd_telemetry_register on the main lcore, before any command can run. */
extern struct mrcd_daemon *mrcd_tel_daemon;
extern uint64_t mrcd_tel_start_tsc;

/* params as a number below max into *out: 0, or -1 if it is empty or not one. */
int mrcd_tel_parse_index(const char *params, unsigned int max, unsigned int *out);
/* A host's engine counters: the sum of its shards' published snapshots. */
void mrcd_tel_host_snapshot(
	const struct mrcd_daemon *m, unsigned int h, struct mrc_shard_snapshot *out);
/* A reply that names what was wrong with the parameters: {"error": "..."}; returns 0. */
int __rte_format_printf(2, 3) mrcd_tel_error(struct rte_tel_data *d, const char *fmt, ...);

/* The commands (telemetry_cb), by the name they are registered under in mrcd_telemetry.c. */
int mrcd_tel_cmd_info(const char *cmd, const char *params, struct rte_tel_data *d);
int mrcd_tel_cmd_config(const char *cmd, const char *params, struct rte_tel_data *d);
int mrcd_tel_cmd_hosts(const char *cmd, const char *params, struct rte_tel_data *d);
int mrcd_tel_cmd_host(const char *cmd, const char *params, struct rte_tel_data *d);
int mrcd_tel_cmd_planes(const char *cmd, const char *params, struct rte_tel_data *d);
int mrcd_tel_cmd_qps(const char *cmd, const char *params, struct rte_tel_data *d);
int mrcd_tel_cmd_qp(const char *cmd, const char *params, struct rte_tel_data *d);
int mrcd_tel_cmd_evs(const char *cmd, const char *params, struct rte_tel_data *d);
int mrcd_tel_cmd_ports(const char *cmd, const char *params, struct rte_tel_data *d);
int mrcd_tel_cmd_drops(const char *cmd, const char *params, struct rte_tel_data *d);
int mrcd_tel_cmd_links(const char *cmd, const char *params, struct rte_tel_data *d);
int mrcd_tel_cmd_fabric(const char *cmd, const char *params, struct rte_tel_data *d);
int mrcd_tel_cmd_paths(const char *cmd, const char *params, struct rte_tel_data *d);
int mrcd_tel_cmd_path(const char *cmd, const char *params, struct rte_tel_data *d);

#endif
