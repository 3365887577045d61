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
#include <poll.h>
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
#include "mrcd_reload.h"
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

/*
 * The loop's cadence. A pass that finds work (a packet or event a worker
 * handed over, an application's request or wake-up, a port-status update
 * sent, a recovery, reload or probe under way, the drain) brings the next
 * one MRCD_CTL_TICK_US later, as the loop always did: the steps of an
 * exchange keep their pace. After MRCD_CTL_IDLE_PASSES passes in a row that
 * found none, the loop sleeps until its next deadline: the link read every
 * millisecond (which also bounds how long a hand-off waits: a worker makes
 * no system call to wake it), a port-status resend, the end of the run;
 * never longer than MRCD_CTL_MAX_SLEEP_US. Each wake-up costs the CPU a
 * worker shares about 18 us on a VM: 5,000 a second took 9% of it for
 * nothing. An application's socket wakes the loop at once (ppoll), and a
 * signal delivered to this thread cuts the sleep short (one delivered to
 * another waits for the next deadline).
 */
#define MRCD_CTL_TICK_US      200
#define MRCD_CTL_IDLE_PASSES  16
#define MRCD_CTL_MAX_SLEEP_US 1000

/*
 * Sleep until TSC `until`, or (with `fds`) until an application's socket has
 * input. True when a socket ended the sleep.
 */
static bool
ctl_sleep(struct mrcd_daemon *d, uint64_t until, bool fds)
{
	struct pollfd p[32];
	const unsigned int n = fds ? mrcd_apps_pollfds(d, p, RTE_DIM(p)) : 0;
	const uint64_t now = rte_rdtsc();
	const uint64_t ns = until > now ? (until - now) * 1000000000u / d->hz : 0;
	const struct timespec ts = {
		.tv_sec = (time_t)(ns / 1000000000u), .tv_nsec = (long)(ns % 1000000000u)};

	/* EINTR (a signal) ends it early: wanted */
	return ns > 0 && ppoll(p, n, &ts, NULL) > 0;
}

/* Work the next pass must not wait for: what the ticks cannot say themselves. */
static bool
ctl_busy(const struct mrcd_daemon *d)
{
	return d->phase != MRCD_RUN || mrcd_reload_busy(d) || d->gen_old != NULL ||
	       __atomic_load_n(&d->svc.ask, __ATOMIC_ACQUIRE) != d->svc.done ||
	       (d->svc.notify.fd >= 0 && !d->svc.ready_sent);
}

static void
control_loop(struct mrcd_daemon *d, uint64_t start)
{
	const uint64_t end = d->cfg.daemon.duration_s
				     ? start + (uint64_t)d->cfg.daemon.duration_s * d->hz
				     : UINT64_MAX;
	const uint64_t tick = (uint64_t)MRCD_CTL_TICK_US * d->hz / 1000000u;
	const uint64_t max_sleep = (uint64_t)MRCD_CTL_MAX_SLEEP_US * d->hz / 1000000u;
	uint64_t next_link = start, drain_end = 0;
	unsigned int idle = 0;
	bool by_fd = false;

	for (;;) {
		const uint64_t now = rte_rdtsc();
		uint64_t next;
		bool busy;

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
			if (d->fab != NULL)
				mrc_fabric_log_applied(d->fab); /* the faults a worker applied */
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
		busy = mrcd_handoff_drain(d) > 0;
		next = mrcd_ep_tick(d, now);
		busy |= next <= now;
		busy |= mrcd_recover_tick(d, now);
		busy |= mrcd_apps_tick(d, now);
		mrcd_service_tick(d, now);
		busy |= ctl_busy(d);
		__atomic_store_n(&d->ctl_passes, d->ctl_passes + 1, __ATOMIC_RELAXED);
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
		idle = busy ? 0 : idle + 1;
		/* A socket that woke the loop for nothing the pass could take (a connection
		 * accept() refuses, say) would wake it again at once: not polled this time. */
		const bool fds = !(by_fd && !busy);

		if (idle < MRCD_CTL_IDLE_PASSES) {
			by_fd = ctl_sleep(d, rte_rdtsc() + tick, fds);
			continue;
		}
		next = RTE_MIN(next, next_link);
		next = RTE_MIN(next, end);
		by_fd = ctl_sleep(d, RTE_MIN(next, now + max_sleep), fds);
	}
	stop_workers(d);
	mrcd_handoff_drain(d);
	if (d->fab != NULL)
		mrc_fabric_log_applied(d->fab);
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
