/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * mrcd: the MRC dataplane daemon. This file is its table of contents; it
 * is the only one that exits. Who runs what:
 *
 *   control/   the main lcore: start, the control loop, teardown
 *   datapath/  the worker lcores: the loop around each host's shard
 *              (lib/host), snapshots, answers to QP queries
 *   gen/       the traffic generator, a client of the engine (the worker
 *              posts and completes; the main lcore loads the profile)
 *   stats/     readers of the workers' snapshots: the stats thread
 *              (console, time series, Prometheus file and endpoint),
 *              telemetry, the summary
 *
 * The state they share, and who writes and reads each field, is
 * mrcd_daemon.h. The config, command line and CPU claims are app/common's.
 */

#include <stdio.h>

#include <rte_cycles.h>

#include "mrcd_cli.h"
#include "mrcd_control.h"
#include "mrcd_ctl.h"
#include "mrcd_cpus.h"
#include "mrcd_daemon.h"
#include "mrcd_log.h"
#include "mrcd_apps.h"
#include "mrcd_recover.h"
#include "mrcd_reload.h"
#include "mrcd_stats.h"

int
main(int argc, char **argv)
{
	static struct mrcd_daemon d;
	static char err[1024];
	uint64_t t0;
	int rc, status = 1;

	/* Progress and errors stay in order when both go to one file or pipe. */
	setvbuf(stdout, NULL, _IOLBF, 0);

	/* 1. Command line, config, profile, scenario: nothing starts before they check out. */
	rc = mrcd_cli_parse(argc, argv, &d.cli, err, sizeof(err));
	if (rc != 0) {
		if (rc < 0)
			MRCD_LOG(ctrl, ERR, "%s (see mrcd --help)", err);
		return rc > 0 ? 0 : 2;
	}
	if (mrcd_load_inputs(&d) != 0)
		return 1;
	/* The default EV and CC profiles are the configuration's. */
	mrcd_profile_table_init(&d.profiles, &d.cfg);
	if (mrcd_gen_profiles_check(&d) != 0)
		return 1;
	if (d.cli.check) {
		mrcd_print_check(&d);
		return 0;
	}
	/* --service: its directories, pid file and log levels (nothing otherwise). */
	if (mrcd_service_start(&d) != 0)
		goto stop_service;
	/* The flows' count and memory, refused here when they cannot fit. */
	if (mrcd_size_memory(&d) != 0)
		goto stop_service;
	/* The control socket's path is ours, or another mrcd runs on it: said before anything. */
	if (mrcd_ctl_open(&d) != 0)
		goto stop_service;

	/* 2. The EAL, on CPUs no other instance polls on. */
	if (mrcd_eal_start(&d) != 0)
		goto stop_service;
	if (mrcd_claim_pollers(&d) != 0 || mrcd_signals_catch() != 0)
		goto stop_eal;

	/* 3. Each host's mbuf pools; the network its ports are on, and its faults. */
	if (mrcd_make_all_pools(&d) != 0)
		goto free_hosts;
	if (mrcd_network_open(&d) != 0)
		goto close_network;

	/* 4. The generator's flows, each host's engine and QPs, who runs what. */
	mrcd_heap_mark(&d);
	if (mrcd_make_flows(&d, true) != 0)
		goto close_network;
	t0 = rte_rdtsc();
	if (mrcd_make_hosts(&d, t0) != 0 || mrcd_connect_flows(&d, t0) != 0 ||
		mrcd_assign_lcores(&d) != 0 || mrcd_sched_init_all(&d) != 0 ||
		mrcd_recover_init(&d) != 0 || mrcd_reload_init(&d) != 0 || mrcd_ep_init(&d) != 0 ||
		mrcd_apps_open(&d) != 0)
		goto free_qps;
	mrcd_heap_account(&d);
	mrcd_banner(&d, d.profile_path, d.scenario_path);
	if (mrcd_telemetry_register(&d) != 0)
		MRCD_LOG(ctrl, WARNING, "telemetry commands not registered (continuing without)");
	else if (mrcd_apps_telemetry_register(&d) != 0)
		MRCD_LOG(ctrl, WARNING, "/mrc/apps not registered (continuing without)");
	else if (mrcd_profiles_telemetry_register(&d) != 0)
		MRCD_LOG(ctrl, WARNING, "/mrc/profiles not registered (continuing without)");
	/* The node controller's socket (mrcctl), served by a thread of its own. */
	if (mrcd_ctl_start(&d) != 0)
		goto free_qps;

	/* 5. Run until the duration ends or a signal comes, drain, stop; the summary. */
	if (mrcd_run(&d) == 0)
		status = mrcd_summary(&d) == 0 ? 0 : 1;

	/* 6. Unwind in reverse, checking every mempool is full again. */
free_qps:
	mrcd_ctl_stop(&d);
	mrcd_telemetry_close();
	mrcd_apps_close(&d); /* the workers have stopped: their QPs and regions first */
	mrcd_free_qps(&d);
close_network:
	mrcd_network_close(&d);
free_hosts:
	if (mrcd_free_hosts(&d) != 0)
		status = 1;
stop_eal:
	mrcd_eal_cleanup();
	mrcd_stats_free(&d);
	mrcd_cpus_release();
stop_service:
	mrcd_ctl_stop(&d); /* its socket, when the EAL or anything after it failed to start */
	mrcd_service_stop(&d);
	mrcd_profile_table_fini(&d.profiles);
	return status;
}
