/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: the main lcore, from the workers' launch to their stop.
 *
 * The run: start the fabric and the stats thread (stats/, which writes
 * every output from here on), launch the workers, then the control loop
 * until the duration ends or a signal comes: refresh the links every
 * millisecond, drain the hand-off rings, then ask the workers to drain and
 * wait until every message posted has completed or failed (or [daemon]
 * drain_ms passed), stop them, publish the final snapshots from here, the
 * workers being gone, and let the stats thread write its last lines.
 */

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_launch.h>

#include "mrc_fabric.h"
#include "mrc_shard.h"
#include "mrcd_apps.h"
#include "mrcd_control.h"
#include "mrcd_daemon.h"
#include "mrcd_log.h"
#include "mrcd_datapath.h"
#include "mrcd_recover.h"
#include "mrcd_stats.h"

static volatile sig_atomic_t signalled, ignored;

/* SIGINT, SIGTERM, SIGQUIT: drain and stop. */
static void
on_signal(int sig)
{
	signalled = sig;
}

/* Signals whose default would kill mrcd uncleanly: noted, and said by the
 * control loop (SIGHUP reloads a service, the rest are ignored). */
static void
on_ignored(int sig)
{
	ignored = sig;
}

int
mrcd_signals_catch(void)
{
	static const int stop[] = {SIGINT, SIGTERM, SIGQUIT};
	static const int noted[] = {SIGHUP, SIGUSR1, SIGUSR2};
	struct sigaction sa;
	int rc = 0;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_signal;
	for (unsigned int i = 0; i < RTE_DIM(stop) && rc == 0; i++)
		rc = sigaction(stop[i], &sa, NULL) == 0 ? 0 : -errno;
	sa.sa_handler = on_ignored;
	for (unsigned int i = 0; i < RTE_DIM(noted) && rc == 0; i++)
		rc = sigaction(noted[i], &sa, NULL) == 0 ? 0 : -errno;
	/* SIGPIPE (a telemetry client gone) is ignored outright. */
	sa.sa_handler = SIG_IGN;
	if (rc == 0)
		rc = sigaction(SIGPIPE, &sa, NULL) == 0 ? 0 : -errno;
	if (rc != 0)
		MRCD_LOG(ctrl, ERR, "cannot install signal handlers: %s", strerror(-rc));
	return rc;
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

/* CPU time of the whole process so far (every thread): two calls per run. */
static uint64_t
process_cpu_ns(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) != 0)
		return 0;
	return (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000u +
	       (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000u;
}

/* Stop the workers and wait for them. */
static void
stop_workers(struct mrcd_daemon *d)
{
	__atomic_store_n(&d->phase, MRCD_EXIT, __ATOMIC_RELEASE);
	rte_eal_mp_wait_lcore();
	d->run_cpu_ns = process_cpu_ns() - d->run_cpu_ns;
}

static void
control_loop(struct mrcd_daemon *d, uint64_t start)
{
	const uint64_t end = d->cfg.daemon.duration_s
				     ? start + (uint64_t)d->cfg.daemon.duration_s * d->hz
				     : UINT64_MAX;
	uint64_t next_link = start, drain_end = 0;

	for (;;) {
		const uint64_t now = rte_rdtsc();

		if (now >= next_link) {
			/*
			 * One read of the host's ports, published to every shard of it; a port
			 * the node controller or the [ports] admin_down_* drill set down reads
			 * as down (doc/control.md).
			 */
			for (unsigned int h = 0; h < d->n_hosts; h++) {
				/* with neighbour discovery, up means a known next hop too; less the
				 * ports taken down by hand */
				const bool nd = d->host[h].nd_on;
				const uint32_t down = mrcd_ports_admin_down(d, h, now - start);
				const uint32_t m =
					(nd ? mrcd_nd_tick(d, h, now)
					    : mrc_shard_read_links(d->host[h].shard[0].rt)) &
					~down;

				for (unsigned int k = 0; k < d->host[h].n_shards; k++)
					mrc_shard_set_port_mask(d->host[h].shard[k].rt, m);
			}
			next_link = now + d->hz / 1000;
		}
		if (ignored == SIGHUP && d->cli.service) {
			ignored = 0;
			mrcd_service_reload(d, "SIGHUP");
		} else if (ignored) {
			MRCD_LOG(ctrl, WARNING, "%s: %s; ignored", strsignal(ignored),
				ignored == SIGHUP ? "mrcd reloads only as a service (--service)"
						  : "mrcd has no use for this signal");
			ignored = 0;
		}
		mrcd_handoff_drain(d);
		mrcd_ep_tick(d, now);
		mrcd_recover_tick(d, now);
		mrcd_apps_tick(d, now);
		mrcd_service_tick(d, now);
		if (d->phase == MRCD_RUN && (now >= end || signalled)) {
			if (signalled)
				MRCD_LOG(ctrl, NOTICE,
					"%s: stopping, draining messages in flight (up to %u "
					"ms)",
					strsignal(signalled), d->cfg.daemon.drain_ms);
			mrcd_service_stopping(d);
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
	stop_workers(d);
	mrcd_handoff_drain(d);
	/* Final numbers, read after the workers stopped. */
	for (unsigned int h = 0; h < d->n_hosts; h++)
		for (unsigned int k = 0; k < d->host[h].n_shards; k++) {
			mrc_shard_publish(d->host[h].shard[k].rt, rte_rdtsc());
			mrcd_snapshot_publish(d, h, k, rte_rdtsc(), true);
		}
	mrcd_stats_stop(d);
}

int
mrcd_run(struct mrcd_daemon *d)
{
	struct timespec mono;
	uint64_t start;
	int rc;

	if (d->fab != NULL)
		mrc_fabric_start(d->fab, rte_rdtsc());
	start = rte_rdtsc();
	/* Benchmarks stamp their faults with CLOCK_MONOTONIC: say where t = 0 is on it. */
	clock_gettime(CLOCK_MONOTONIC, &mono);
	d->start_tsc = start;
	d->start_mono_ns = (uint64_t)mono.tv_sec * 1000000000u + (uint64_t)mono.tv_nsec;
	rc = mrcd_stats_start(d, start);
	if (rc != 0)
		return rc;
	d->run_cpu_ns = process_cpu_ns(); /* stop_workers() takes the difference */
	for (unsigned int i = 0; i < d->n_workers; i++) {
		rc = rte_eal_remote_launch(mrcd_worker_main, &d->workers[i], d->workers[i].lcore);
		if (rc != 0) {
			MRCD_LOG(ctrl, ERR, "worker %u (lcore %u) did not launch: %s", i,
				d->workers[i].lcore, strerror(-rc));
			stop_workers(d);
			mrcd_stats_stop(d);
			return rc;
		}
	}
	control_loop(d, start);
	return 0;
}
