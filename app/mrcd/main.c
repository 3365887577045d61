/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * mrcd: the MRC dataplane daemon.
 *
 *   parse the command line and the config (strict: errors name file:line)
 *   start the EAL (unique file prefix, explicit lcores, --no-huge if need be)
 *   per host: mbuf pools (rx, and a separate tx/retransmit pool), regions,
 *             a completion queue, the dataplane loop (the engine, lib/host)
 *   the emulated fabric and its fault scenario
 *   the traffic generator's flows: one QP pair per (source, destination, k)
 *   workers: fabric poll + for each host: post, iterate, completions
 *   main lcore: link status, console line, time series, Prometheus file,
 *               duration and signals, drain, summary
 *   unwind in reverse, checking every mempool is full again
 *
 * Setup is in mrcd_setup.c, the workers' loop in mrcd_worker.c.
 * This is the only file that exits.
 */

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "mrc_fabric.h"
#include "mrcd_cli.h"
#include "mrcd_config.h"
#include "mrcd_cpus.h"
#include "mrcd_daemon.h"
#include "mrcd_gen.h"
#include "mrc_shard.h"

static volatile sig_atomic_t signalled, ignored;

/* SIGINT, SIGTERM, SIGQUIT: drain and stop. */
static void
on_signal(int sig)
{
	signalled = sig;
}

/* Signals whose default would kill mrcd uncleanly but that mean nothing to
 * it yet (SIGHUP will mean reload): noted, said by the control loop, ignored. */
static void
on_ignored(int sig)
{
	ignored = sig;
}

/* Install the handlers; SIGPIPE (a telemetry client gone) is ignored outright. */
static int
catch_signals(void)
{
	static const int stop[] = {SIGINT, SIGTERM, SIGQUIT};
	static const int noted[] = {SIGHUP, SIGUSR1, SIGUSR2};
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_signal;
	for (unsigned int i = 0; i < RTE_DIM(stop); i++)
		if (sigaction(stop[i], &sa, NULL) != 0)
			return -errno;
	sa.sa_handler = on_ignored;
	for (unsigned int i = 0; i < RTE_DIM(noted); i++)
		if (sigaction(noted[i], &sa, NULL) != 0)
			return -errno;
	sa.sa_handler = SIG_IGN;
	return sigaction(SIGPIPE, &sa, NULL) == 0 ? 0 : -errno;
}

static bool
drained(struct mrcd_daemon *d)
{
	for (unsigned int h = 0; h < d->n_hosts; h++) {
		struct mrcd_snapshot s;

		/* A snapshot from before the worker saw the drain may miss its last posts. */
		mrcd_snapshot_read(d, h, &s);
		if (!s.stopping || s.posted != s.completed + s.failed)
			return false;
	}
	return true;
}

static void
run(struct mrcd_daemon *d)
{
	const uint64_t start = rte_rdtsc();
	struct timespec mono;
	const uint64_t end = d->cfg.daemon.duration_s
				     ? start + (uint64_t)d->cfg.daemon.duration_s * d->hz
				     : UINT64_MAX;
	uint64_t next_link = start, next_console = start + d->hz, drain_end = 0;
	struct mrcd_output out;

	/* Benchmarks stamp their faults with CLOCK_MONOTONIC: say where t = 0 is on it. */
	clock_gettime(CLOCK_MONOTONIC, &mono);
	d->start_tsc = start;
	d->start_mono_ns = (uint64_t)mono.tv_sec * 1000000000u + (uint64_t)mono.tv_nsec;
	mrcd_output_open(d, &out);
	for (;;) {
		const uint64_t now = rte_rdtsc();

		if (now >= next_link) {
			for (unsigned int h = 0; h < d->n_hosts; h++)
				mrc_shard_refresh_links(d->host[h].rt);
			next_link = now + d->hz / 1000;
		}
		if (ignored) {
			printf("mrcd: %s: %s; ignored\n", strsignal(ignored),
				ignored == SIGHUP
					? "reloading the configuration is not supported yet"
					: "mrcd has no use for this signal");
			ignored = 0;
		}
		mrcd_handoff_drain(d);
		mrcd_output_tick(d, &out, now, start);
		if (d->cfg.telemetry.console && now >= next_console) {
			mrcd_console_line(d, now, start);
			next_console += d->hz;
		}
		if (d->phase == MRCD_RUN && (now >= end || signalled)) {
			if (signalled)
				printf("mrcd: %s: stopping, draining messages in flight (up to %u "
				       "ms)\n",
					strsignal(signalled), d->cfg.daemon.drain_ms);
			__atomic_store_n(&d->phase, MRCD_DRAIN, __ATOMIC_RELEASE);
			d->run_tsc = now - start;
			drain_end = now + (uint64_t)d->cfg.daemon.drain_ms * d->hz / 1000;
		}
		if (d->phase == MRCD_DRAIN && (drained(d) || now >= drain_end)) {
			d->drain_tsc = now - start - d->run_tsc;
			break;
		}
		rte_delay_us_sleep(200);
	}
	__atomic_store_n(&d->phase, MRCD_EXIT, __ATOMIC_RELEASE);
	rte_eal_mp_wait_lcore();
	mrcd_handoff_drain(d);
	/* Final numbers, read after the workers stopped. */
	for (unsigned int h = 0; h < d->n_hosts; h++) {
		mrc_shard_publish(d->host[h].rt, rte_rdtsc());
		mrcd_snapshot_publish(d, h, rte_rdtsc(), true);
	}
	mrcd_output_close(d, &out, rte_rdtsc(), start);
}

int
main(int argc, char **argv)
{
	static struct mrcd_daemon d;
	static char err[1024], eal_buf[8192];
	char *eal_argv[96], profile[PATH_MAX], scenario[PATH_MAX];
	const char *why = NULL;
	int rc, eal_argc, status = 1;
	unsigned int step = 0; /* how far setup got: undone in reverse */

	/* Progress and errors stay in order when both go to one file or pipe. */
	setvbuf(stdout, NULL, _IOLBF, 0);

	/* 1. Command line and files: nothing is started before they all check out. */
	rc = mrcd_cli_parse(argc, argv, &d.cli, err, sizeof(err));
	if (rc != 0) {
		if (rc < 0)
			fprintf(stderr, "mrcd: %s\n(see mrcd --help)\n", err);
		return rc > 0 ? 0 : 2;
	}
	if (mrcd_config_load_set(
		    &d.cfg, d.cli.config, d.cli.sets, d.cli.n_sets, err, sizeof(err)) != 0 ||
		mrcd_cli_apply(&d.cli, &d.cfg, err, sizeof(err)) != 0) {
		fprintf(stderr, "mrcd: %s\n", err);
		return 1;
	}
	/* These return the path's length, like snprintf. */
	rc = mrcd_cli_profile(&d.cli, &d.cfg, profile, sizeof(profile));
	if (rc < 0 || (size_t)rc >= sizeof(profile) ||
		mrcd_profile_load_set(&d.prof, profile, d.cli.profile_sets, d.cli.n_profile_sets,
			err, sizeof(err)) != 0) {
		fprintf(stderr, "mrcd: profile: %s\n", err[0] ? err : "path too long");
		return 1;
	}
	rc = mrcd_cli_scenario(&d.cli, &d.cfg, scenario, sizeof(scenario));
	if (rc < 0 || (size_t)rc >= sizeof(scenario)) {
		fprintf(stderr, "mrcd: scenario path too long\n");
		return 1;
	}
	if (d.cfg.ports.mode != MRCD_PORTS_FABRIC && scenario[0] != '\0') {
		/* Faults are the emulated fabric's; real ports fail on their own. */
		printf("mrcd: [ports] mode = %s: scenario %s ignored (it drives the emulated "
		       "fabric only)\n",
			d.cfg.ports.mode == MRCD_PORTS_LOOP ? "loop" : "ethdev", scenario);
		scenario[0] = '\0';
	}
	d.n_hosts = d.cfg.daemon.hosts;
	if (d.cli.check) {
		mrcd_config_print(stdout, &d.cfg);
		for (unsigned int i = 0; i < d.cli.n_sets; i++)
			printf("; --set %s (in the values above)\n", d.cli.sets[i]);
		printf("; profile %s: pattern %s, ", profile[0] ? profile : "(built-in)",
			mrcd_pattern_name(d.prof.pattern));
		if (d.prof.n_mix > 0)
			printf("sizes %s KiB:weight", d.prof.size_mix);
		else
			printf("%u KiB messages", d.prof.msg_kb);
		printf(", %s, %u QP(s) per peer, %u in flight, %s\n",
			d.prof.opcode == MRCD_OP_WRITE ? "WRITE" : "WRITE with immediate",
			d.prof.qps_per_peer, d.prof.outstanding,
			d.prof.rate_gbps > 0 ? "paced" : "closed loop");
		printf("; scenario %s (checked when the fabric starts)\n",
			scenario[0] ? scenario : "none");
		printf(";\n; the profile, key by key (a profile file is this [profile] "
		       "section):\n");
		mrcd_profile_print(stdout, &d.prof, "; ");
		return 0;
	}

	/* The flows' count and memory, refused here when they cannot fit. */
	if (mrcd_size_memory(&d) != 0)
		return 1;

	/* 2. EAL, on CPUs no other instance polls on. */
	d.cli.busy_cpus = mrcd_cpus_busy();
	eal_argc = mrcd_cli_eal_argv(&d.cli, &d.cfg, eal_argv, RTE_DIM(eal_argv), eal_buf,
		sizeof(eal_buf), err, sizeof(err));
	if (eal_argc < 0) {
		fprintf(stderr, "mrcd: EAL arguments: %s\n", err);
		return 1;
	}
	mrcd_cli_format_argv(eal_argc, eal_argv, err, sizeof(err));
	printf("mrcd: EAL %s\n", err);
	if (rte_eal_init(eal_argc, eal_argv) < 0) {
		fprintf(stderr, "mrcd: EAL did not start: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	step = 1;
	{
		unsigned int taken;

		if (mrcd_cpus_claim_pollers(mrcd_cli_user_lcores(&d.cli), &taken) != 0) {
			fprintf(stderr,
				"mrcd: CPU %u was claimed by another mrcd while this one "
				"started: run again to pick another\n",
				taken);
			goto out;
		}
	}
	d.hz = rte_get_tsc_hz();
	printf("mrcd: runtime dir %s, telemetry socket %s/dpdk_telemetry.v2\n",
		rte_eal_get_runtime_dir(), rte_eal_get_runtime_dir());
	if (catch_signals() != 0) {
		fprintf(stderr, "mrcd: cannot install signal handlers: %s\n", strerror(errno));
		goto out;
	}

	/* 3. Pools, fabric, hosts, flows. */
	for (unsigned int h = 0; h < d.n_hosts; h++)
		if (mrcd_make_pools(&d, h) != 0)
			goto out;
	step = 3; /* both undo steps below cope with what was not made */
	if (d.cfg.ports.mode == MRCD_PORTS_ETHDEV) {
		if (mrcd_ports_open(&d) != 0)
			goto out;
	} else if (d.cfg.ports.mode == MRCD_PORTS_LOOP) {
		if (mrcd_loop_open(&d) != 0)
			goto out;
	} else {
		struct mrc_fabric_cfg fc;

		if (mrcd_config_fabric(&d.cfg, d.hz, &fc) != 0) {
			fprintf(stderr,
				"mrcd: [fabric] does not convert to a fabric configuration\n");
			goto out;
		}
		d.fab = mrc_fabric_create(&fc, &why);
		if (d.fab == NULL || mrc_fabric_start_ports(d.fab, d.host[0].rx_pool) != 0) {
			fprintf(stderr, "mrcd: fabric: %s\n", why ? why : "ports did not start");
			goto out;
		}
		for (unsigned int h = 0; h < d.n_hosts; h++)
			for (unsigned int p = 0; p < d.cfg.daemon.planes; p++)
				d.host[h].port[p] = mrc_fabric_port(d.fab, h, p);
	}
	/* Returns how many events it scheduled. */
	if (scenario[0] != '\0' && mrc_fabric_load_scenario(d.fab, scenario, &why) < 0) {
		fprintf(stderr, "mrcd: scenario: %s\n", why);
		goto out;
	}
	{
		struct rte_malloc_socket_stats ms;

		if (rte_malloc_get_socket_stats((int)rte_socket_id(), &ms) == 0)
			d.heap_bytes =
				ms.heap_allocsz_bytes; /* before the flows: subtracted below */
	}
	if (mrcd_make_flows(&d, true) != 0)
		goto out;

	const uint64_t t0 = rte_rdtsc();

	for (unsigned int h = 0; h < d.n_hosts; h++)
		if (mrcd_make_host(&d, h, t0) != 0)
			goto out;
	step = 4;
	if (mrcd_connect_flows(&d, t0) != 0 || mrcd_assign_lcores(&d) != 0)
		goto out;
	for (unsigned int h = 0; h < d.n_hosts; h++)
		if (mrcd_sched_init(&d, h, rte_rdtsc()) != 0) {
			fprintf(stderr, "mrcd: host %u: out of memory for its flow queues\n", h);
			goto out;
		}
	{
		struct rte_malloc_socket_stats ms;

		for (unsigned int h = 0; h < d.n_hosts; h++) {
			d.msg_buf_bytes += d.host[h].mem_len;
			d.trk_bytes += mrc_trk_pool_mem_bytes(mrc_shard_trk_pool(d.host[h].rt)) +
				       mrc_trk_pool_mem_bytes(d.host[h].imm_pool);
		}
		/* What the flows, hosts and QPs took from the heap (mbuf pools excluded). */
		if (rte_malloc_get_socket_stats((int)rte_socket_id(), &ms) == 0)
			d.heap_bytes = ms.heap_allocsz_bytes - d.heap_bytes;
	}
	mrcd_banner(&d, profile, scenario);
	if (mrcd_telemetry_register(&d) != 0)
		fprintf(stderr, "mrcd: telemetry commands not registered (continuing without)\n");

	/* 4. Run. */
	if (d.fab != NULL)
		mrc_fabric_start(d.fab, rte_rdtsc());
	for (unsigned int i = 0; i < d.n_workers; i++)
		rte_eal_remote_launch(mrcd_worker_main, &d.workers[i], d.workers[i].lcore);
	run(&d);
	status = mrcd_summary(&d) == 0 ? 0 : 1;

out:
	/* 5. Unwind in reverse. */
	if (step >= 4) {
		for (unsigned int i = 0; i < d.n_flows && d.flows != NULL; i++) {
			if (d.flows[i].qp != NULL)
				mrc_shard_del_qp(d.host[d.flows[i].src_local].rt, d.flows[i].qp);
			if (d.peer_qp[i] != NULL)
				mrc_shard_del_qp(d.host[d.flows[i].dst_local].rt, d.peer_qp[i]);
			mrc_qp_destroy(d.flows[i].qp);
			mrc_qp_destroy(d.peer_qp[i]);
			rte_free(d.flows[i].post_tsc);
		}
		for (unsigned int h = 0; h < d.n_hosts; h++) {
			mrcd_sched_free(&d, h);
			mrc_shard_free(d.host[h].rt);
		}
	}
	if (step >= 3) {
		/* Every QP is gone, so every table is back (-EBUSY would leak, not crash). */
		for (unsigned int h = 0; h < d.n_hosts; h++)
			(void)mrc_trk_pool_free(d.host[h].imm_pool);
		mrcd_ports_close(&d); /* their rings give back the mbufs they hold */
		mrcd_loop_close(&d);
		mrc_fabric_free(d.fab); /* returns every packet still inside */
	}
	if (step >= 2) {
		mrcd_handoff_drain(&d); /* its mbufs go back before the pools are counted */
		for (unsigned int h = 0; h < d.n_hosts; h++) {
			struct mrcd_hostctx *hc = &d.host[h];

			rte_ring_free(hc->handoff);
			if (mrcd_pools_full(hc) != 0)
				status = 1;
			rte_mempool_free(hc->rx_pool);
			rte_mempool_free(hc->tx_pool);
			rte_free(hc->mem);
			rte_free(hc->mrs);
			rte_free(hc->cq);
			rte_free(hc->send_flows);
			rte_free(hc->recv_flows);
		}
		rte_free(d.flows);
		rte_free(d.peer_qp);
		rte_free(d.flow_of);
	}
	if (step >= 1) {
		mrcd_eal_cleanup();
		mrcd_cpus_release();
	}
	return status;
}
