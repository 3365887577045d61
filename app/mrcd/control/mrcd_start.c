/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: the main lcore, before the workers are launched.
 *
 * The daemon's start, in the order main.c calls it: the config, profile and
 * scenario (and --check); the EAL on CPUs no other instance polls on; the
 * network the hosts' ports are on (the emulated fabric and its scenario,
 * ethdev ports or loop links); and the heap accounting around the flows.
 * Each function returns 0, or a negative errno after logging what is wrong;
 * what it made before failing is undone by the teardown (mrcd_teardown.c).
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "mrc_fabric.h"
#include "mrcd_cli.h"
#include "mrcd_config.h"
#include "mrcd_control.h"
#include "mrcd_cpus.h"
#include "mrcd_daemon.h"
#include "mrcd_log.h"
#include "mrcd_reload.h"
#include "mrcd_gen.h"
#include "mrcd_launch.h"

MRCD_LOG_TYPE_DEFINE(ctrl);

int
mrcd_load_inputs(struct mrcd_daemon *d)
{
	static char err[1024];
	int rc;

	struct mrcd_launch launch;

	rc = mrcd_launch_from_env(&launch, err, sizeof(err));
	if (rc != 0) {
		MRCD_LOG(ctrl, ERR, "cluster launch: %s", err);
		return rc;
	}
	rc = mrcd_config_load_launch(
		&d->cfg, d->cli.config, d->cli.sets, d->cli.n_sets, &launch, err, sizeof(err));
	if (rc == 0)
		rc = mrcd_cli_apply(&d->cli, &d->cfg, err, sizeof(err));
	if (rc != 0) {
		MRCD_LOG(ctrl, ERR, "%s", err);
		return rc;
	}
	if (launch.valid)
		MRCD_LOG(ctrl, NOTICE, "%s: this process runs hosts %u..%u of a cluster of %u",
			launch.who, d->cfg.daemon.first_host,
			d->cfg.daemon.first_host + d->cfg.daemon.hosts - 1u,
			mrcd_config_cluster_hosts(&d->cfg));
	d->no_traffic = mrcd_cli_no_traffic(&d->cli, &d->cfg);
	/* These return the path's length, like snprintf. */
	rc = mrcd_cli_profile(&d->cli, &d->cfg, d->profile_path, sizeof(d->profile_path));
	if (rc < 0 || (size_t)rc >= sizeof(d->profile_path)) {
		MRCD_LOG(ctrl, ERR, "profile: path too long");
		return -ENAMETOOLONG;
	}
	rc = mrcd_profile_load_set(&d->prof, d->profile_path, d->cli.profile_sets,
		d->cli.n_profile_sets, err, sizeof(err));
	if (rc != 0) {
		MRCD_LOG(ctrl, ERR, "profile: %s", err);
		return rc;
	}
	rc = mrcd_cli_scenario(&d->cli, &d->cfg, d->scenario_path, sizeof(d->scenario_path));
	if (rc < 0 || (size_t)rc >= sizeof(d->scenario_path)) {
		MRCD_LOG(ctrl, ERR, "scenario path too long");
		return -ENAMETOOLONG;
	}
	if (d->cfg.ports.mode != MRCD_PORTS_FABRIC && d->scenario_path[0] != '\0') {
		/* Faults are the emulated fabric's; real ports fail on their own. */
		MRCD_LOG(ctrl, WARNING,
			"[ports] mode = %s: scenario %s ignored (it drives the emulated "
			"fabric only)",
			d->cfg.ports.mode == MRCD_PORTS_LOOP ? "loop" : "ethdev", d->scenario_path);
		d->scenario_path[0] = '\0';
	}
	d->n_hosts = d->cfg.daemon.hosts;
	return 0;
}

int
mrcd_gen_profiles_check(struct mrcd_daemon *d)
{
	char err[256];

	if (d->no_traffic || mrcd_profile_table_check_online(&d->profiles, d->prof.ev_profile,
				     d->prof.cc_profile, err, sizeof(err)) == 0)
		return 0;
	MRCD_LOG(ctrl, ERR,
		"profile %s: [profile] ev_profile = %u, cc_profile = %u: %s in %s (define it "
		"there as [ev_profile.<n>] or [cc_profile.<n>])",
		d->profile_path[0] ? d->profile_path : "(built-in)", d->prof.ev_profile,
		d->prof.cc_profile, err, d->cfg.path[0] ? d->cfg.path : "the built-in config");
	return -EINVAL;
}

void
mrcd_print_check(const struct mrcd_daemon *d)
{
	const struct mrcd_profile *p = &d->prof;

	mrcd_config_print(stdout, &d->cfg);
	for (unsigned int i = 0; i < d->cli.n_sets; i++)
		printf("; --set %s (in the values above)\n", d->cli.sets[i]);
	printf("; profile %s: pattern %s, ", d->profile_path[0] ? d->profile_path : "(built-in)",
		mrcd_pattern_name(p->pattern));
	if (p->n_mix > 0)
		printf("sizes %s KiB:weight", p->size_mix);
	else
		printf("%u KiB messages", p->msg_kb);
	printf(", %s, %u QP(s) per peer, %u in flight, %s\n",
		p->opcode == MRCD_OP_WRITE ? "WRITE" : "WRITE with immediate", p->qps_per_peer,
		p->outstanding, p->rate_gbps > 0 ? "paced" : "closed loop");
	printf("; scenario %s (checked when the fabric starts)\n",
		d->scenario_path[0] ? d->scenario_path : "none");
	printf(";\n; the profile, key by key (a profile file is this [profile] section):\n");
	mrcd_profile_print(stdout, p, "; ");
}

int
mrcd_eal_start(struct mrcd_daemon *d)
{
	static char err[1024], eal_buf[8192];
	char *eal_argv[96];
	int eal_argc;

	d->cli.busy_cpus = mrcd_cpus_busy();
	eal_argc = mrcd_cli_eal_argv(&d->cli, &d->cfg, eal_argv, RTE_DIM(eal_argv), eal_buf,
		sizeof(eal_buf), err, sizeof(err));
	if (eal_argc < 0) {
		MRCD_LOG(ctrl, ERR, "EAL arguments: %s", err);
		return eal_argc;
	}
	mrcd_cli_format_argv(eal_argc, eal_argv, err, sizeof(err));
	MRCD_LOG(ctrl, NOTICE, "EAL %s", err);
	if (rte_eal_init(eal_argc, eal_argv) < 0) {
		MRCD_LOG(ctrl, ERR, "EAL did not start: %s", rte_strerror(rte_errno));
		return -rte_errno;
	}
	d->hz = rte_get_tsc_hz();
	MRCD_LOG(ctrl, NOTICE, "runtime dir %s, telemetry socket %s/dpdk_telemetry.v2",
		rte_eal_get_runtime_dir(), rte_eal_get_runtime_dir());
	return 0;
}

int
mrcd_claim_pollers(const struct mrcd_daemon *d)
{
	unsigned int taken;
	const int rc = mrcd_cpus_claim_pollers(mrcd_cli_user_lcores(&d->cli), &taken);

	if (rc != 0) {
		MRCD_LOG(ctrl, ERR,
			"CPU %u was claimed by another mrcd while this one started: run "
			"again to pick another",
			taken);
		return rc;
	}
	return 0;
}

int
mrcd_make_all_pools(struct mrcd_daemon *d)
{
	for (unsigned int h = 0; h < d->n_hosts; h++) {
		const int rc = mrcd_make_pools(d, h);

		if (rc != 0)
			return rc;
	}
	return 0;
}

/* The emulated fabric: every host x plane a net_ring port of it. */
static int
fabric_open(struct mrcd_daemon *d)
{
	struct mrc_fabric_cfg fc;
	const char *why = NULL;
	int rc;

	rc = mrcd_config_fabric(&d->cfg, d->hz, &fc);
	if (rc != 0) {
		MRCD_LOG(ctrl, ERR, "[fabric] does not convert to a fabric configuration");
		return rc;
	}
	d->fab = mrc_fabric_create(&fc, &why);
	if (d->fab == NULL) {
		MRCD_LOG(ctrl, ERR, "fabric: %s", why);
		return -rte_errno;
	}
	/* A worker polls it: the control loop logs the faults it applies. */
	mrc_fabric_defer_log(d->fab, true);
	/* [fabric] capture: what the hosts' NICs send, kept in memory, written at exit */
	if (strcmp(d->cfg.fabric.capture, "none") != 0) {
		rc = mrc_fabric_capture_start(d->fab, d->cfg.fabric.capture_pkts, 512);
		if (rc != 0) {
			MRCD_LOG(ctrl, ERR, "[fabric] capture = %s, capture_pkts = %u: %s",
				d->cfg.fabric.capture, d->cfg.fabric.capture_pkts,
				rte_strerror(-rc));
			return rc;
		}
	}
	rc = mrc_fabric_start_ports(d->fab, d->host[0].rx_pool);
	if (rc != 0) {
		MRCD_LOG(ctrl, ERR, "fabric: ports did not start: %s", rte_strerror(-rc));
		return rc;
	}
	for (unsigned int h = 0; h < d->n_hosts; h++)
		for (unsigned int p = 0; p < d->cfg.daemon.planes; p++) {
			d->host[h].port[p] = mrc_fabric_port(d->fab, h, p);
			/* the fabric plays the NIC: it applies the rules recorded for its ports */
			rc = mrcd_steer_choose(d, h, p, "emulated fabric",
				d->cfg.lcores.workers_per_host, &mrc_flow_ops_rec);
			if (rc != 0)
				return rc;
		}
	/* Returns how many events it scheduled. */
	rc = d->scenario_path[0] != '\0' ? mrc_fabric_load_scenario(d->fab, d->scenario_path, &why)
					 : 0;
	if (rc < 0) {
		MRCD_LOG(ctrl, ERR, "scenario: %s", why);
		return rc;
	}
	return 0;
}

int
mrcd_network_open(struct mrcd_daemon *d)
{
	switch (d->cfg.ports.mode) {
	case MRCD_PORTS_ETHDEV:
		return mrcd_ports_open(d);
	case MRCD_PORTS_LOOP:
		return mrcd_loop_open(d);
	default:
		return fabric_open(d);
	}
}

/* The heap in use now (mbuf pools are made before the mark, so excluded). */
static size_t
heap_in_use(void)
{
	struct rte_malloc_socket_stats ms;

	if (rte_malloc_get_socket_stats((int)rte_socket_id(), &ms) != 0)
		return 0;
	return ms.heap_allocsz_bytes;
}

void
mrcd_heap_mark(struct mrcd_daemon *d)
{
	d->heap_bytes = heap_in_use(); /* before the flows: subtracted by mrcd_heap_account */
}

void
mrcd_heap_account(struct mrcd_daemon *d)
{
	for (unsigned int h = 0; h < d->n_hosts; h++) {
		d->msg_buf_bytes += d->host[h].mem_len;
		for (unsigned int k = 0; k < d->host[h].n_shards; k++)
			d->trk_bytes +=
				mrc_trk_pool_mem_bytes(mrc_shard_trk_pool(d->host[h].shard[k].rt)) +
				mrc_trk_pool_mem_bytes(d->host[h].shard[k].imm_pool) +
				mrc_trk_pool_mem_bytes(d->host[h].shard[k].ctrl_pool);
	}
	/* What the flows, hosts and QPs took from the heap (mbuf pools excluded). */
	const size_t now = heap_in_use();

	d->heap_bytes = d->heap_bytes != 0 && now > d->heap_bytes ? now - d->heap_bytes : 0;
}

int
mrcd_make_hosts(struct mrcd_daemon *d, uint64_t now)
{
	for (unsigned int h = 0; h < d->n_hosts; h++) {
		const int rc = mrcd_make_host(d, h, now);

		if (rc != 0)
			return rc;
	}
	return 0;
}

int
mrcd_sched_init_all(struct mrcd_daemon *d)
{
	/* the generator's parameters, which each shard's queues start with */
	if (mrcd_reload_params_init(d) != 0) {
		MRCD_LOG(ctrl, ERR, "out of memory for the generator's parameters");
		return -ENOMEM;
	}
	for (unsigned int h = 0; h < d->n_hosts; h++)
		for (unsigned int k = 0; k < d->host[h].n_shards; k++) {
			const int rc = mrcd_sched_init(d, h, k, rte_rdtsc());

			if (rc != 0) {
				MRCD_LOG(
					ctrl, ERR, "host %u: out of memory for its flow queues", h);
				return rc;
			}
		}
	return 0;
}
