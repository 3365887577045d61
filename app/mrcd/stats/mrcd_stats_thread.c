/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: the stats thread, which this file starts (control calls
 * mrcd_stats_start and mrcd_stats_stop, teardown mrcd_stats_end);
 * mrcd_stats_paths_read by any thread.
 *
 * The stats thread is a DPDK control thread: it runs on the CPUs the EAL
 * keeps for such threads, never on a polling lcore, and sleeps in poll()
 * between its ticks. It reads only what the workers publish (their
 * snapshots) and owns every output while they run: the console line each
 * second, the time series, the Prometheus file, the metrics endpoint,
 * each host's per-path sums, which it publishes under a sequence counter,
 * and the replies to /mrc/ telemetry commands. The telemetry threads hand
 * it those and wait; an eventfd in its poll() wakes it for one, and it
 * answers one per pass, so a burst of commands delays its ticks by one
 * reply's formatting at a time. After the run it closes its outputs and
 * answers commands alone until teardown closes them. The main lcore keeps
 * what is control's: link status, signals, the drain, the summary.
 */

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_pause.h>

#include "mrc_shard.h"
#include "mrcd_daemon.h"
#include "mrcd_http.h"
#include "mrcd_log.h"
#include "mrcd_stats.h"

MRCD_LOG_TYPE_DECLARE(stats);

void
mrcd_path_add(struct mrc_path_counters *to, const struct mrc_path_counters *c)
{
	to->tx_data_pkts += c->tx_data_pkts;
	to->tx_data_bytes += c->tx_data_bytes;
	to->tx_retx_pkts += c->tx_retx_pkts;
	to->tx_retx_bytes += c->tx_retx_bytes;
	to->tx_probes += c->tx_probes;
	for (unsigned int i = 0; i < MRC_REL_LOSS_MAX; i++)
		to->lost[i] += c->lost[i];
	to->ecn_echoes += c->ecn_echoes;
	to->trims += c->trims;
	to->rtt_samples += c->rtt_samples;
	to->rtt_sum_ns += c->rtt_sum_ns;
	for (unsigned int b = 0; b < MRC_PATH_RTT_BUCKETS; b++)
		to->rtt_hist[b] += c->rtt_hist[b];
}

void
mrcd_stats_paths_refresh(struct mrcd_stats *st, uint64_t now_tsc)
{
	const struct mrcd_daemon *d = st->d;
	const size_t bytes = st->n_paths * sizeof(*st->tmp);

	__atomic_store_n(&st->seq, st->seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	for (unsigned int h = 0; h < d->n_hosts; h++) {
		unsigned int np, nt;

		memset(st->paths[h], 0, bytes);
		for (unsigned int k = 0; k < d->host[h].n_shards; k++) {
			const unsigned int n = mrc_shard_paths_snapshot(
				d->host[h].shard[k].rt, st->tmp, st->n_paths, &np, &nt);

			for (unsigned int i = 0; i < n && i < st->n_paths; i++)
				mrcd_path_add(&st->paths[h][i], &st->tmp[i]);
		}
	}
	st->paths_tsc = now_tsc;
	__atomic_store_n(&st->seq, st->seq + 1, __ATOMIC_RELEASE);
}

unsigned int
mrcd_stats_paths_read(const struct mrcd_daemon *d, unsigned int h, struct mrc_path_counters *out,
	unsigned int n, unsigned int *n_planes, unsigned int *n_t1)
{
	const struct mrcd_stats *st = __atomic_load_n(&d->stats, __ATOMIC_ACQUIRE);
	uint32_t seq;

	*n_planes = *n_t1 = 0;
	if (st == NULL || h >= d->n_hosts || n < st->n_paths)
		return 0;
	*n_planes = st->n_planes;
	*n_t1 = st->n_t1;
	do {
		while ((seq = __atomic_load_n(&st->seq, __ATOMIC_ACQUIRE)) & 1)
			rte_pause();
		memcpy(out, st->paths[h], st->n_paths * sizeof(*out));
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
	} while (__atomic_load_n(&st->seq, __ATOMIC_RELAXED) != seq);
	return st->n_paths;
}

/* The metrics endpoint's answer: the newest path sums, then the text. */
static void
metrics_body(void *arg, FILE *f)
{
	struct mrcd_stats *st = arg;

	mrcd_stats_paths_refresh(st, rte_rdtsc());
	mrcd_metrics_write(st, f);
}

/* The thread's one wait: timeout_ms at most, or until a scraper or a telemetry command needs it. */
static void
wait_for_work(struct mrcd_stats *st, int timeout_ms)
{
	struct pollfd p = {.fd = mrcd_telemetry_wake_fd(), .events = POLLIN};

	if (st->http != NULL)
		mrcd_http_poll_fd(st->http, timeout_ms, metrics_body, st, p.fd);
	else
		(void)poll(&p, 1, timeout_ms); /* a negative fd is skipped: a plain sleep */
}

/*
 * The longest the thread sleeps with nothing due: how late it sees `stop`.
 * Between deadlines it sleeps (a scrape or a command wakes it at once):
 * each wake-up costs a shared CPU about 18 us on a VM, so waking every ms
 * took 2% of a worker's CPU for nothing.
 */
#define MRCD_STATS_MAX_SLEEP_MS 20

/* ms from now to the deadline, rounded up so the deadline has passed on waking. */
static int
sleep_ms(uint64_t now, uint64_t deadline, uint64_t hz)
{
	uint64_t ms;

	if (deadline <= now)
		return 0;
	ms = (deadline - now) * 1000 / hz + 1;
	return ms < MRCD_STATS_MAX_SLEEP_MS ? (int)ms : MRCD_STATS_MAX_SLEEP_MS;
}

static void *
stats_main(void *arg)
{
	struct mrcd_stats *st = arg;
	struct mrcd_daemon *d = st->d;
	const uint64_t every = (uint64_t)d->cfg.lcores.stats_interval_ms * d->hz / 1000;
	uint64_t next_paths = 0, next_console = st->start_tsc + d->hz;

	__atomic_store_n(&st->tid, (int)gettid(), __ATOMIC_RELEASE);
	while (!__atomic_load_n(&st->stop, __ATOMIC_ACQUIRE)) {
		const uint64_t now = rte_rdtsc();
		uint64_t next;

		if (now >= next_paths) {
			mrcd_stats_paths_refresh(st, now);
			next_paths = now + every;
		}
		next = RTE_MIN(next_paths, mrcd_output_tick(st, now));
		if (d->cfg.telemetry.console) {
			if (now >= next_console) {
				mrcd_console_line(d, now, st->start_tsc);
				next_console += d->hz;
			}
			next = RTE_MIN(next, next_console);
		}
		__atomic_store_n(&st->passes, st->passes + 1, __ATOMIC_RELAXED);
		/* one command per pass: the ticks above never wait for more than one reply,
		 * and a command still waiting means no sleep */
		if (mrcd_telemetry_serve() != 0)
			continue;
		wait_for_work(st, sleep_ms(rte_rdtsc(), next, d->hz));
	}
	/* The workers are gone and their last snapshots out: the final figures. */
	mrcd_stats_paths_refresh(st, rte_rdtsc());
	mrcd_output_close(st, rte_rdtsc());
	__atomic_store_n(&st->outputs_done, 1, __ATOMIC_RELEASE);
	/* The summary and teardown follow: commands are still answered, until closed. */
	while (!__atomic_load_n(&st->quit, __ATOMIC_ACQUIRE)) {
		struct pollfd p = {.fd = mrcd_telemetry_wake_fd(), .events = POLLIN};

		if (mrcd_telemetry_serve() == 0)
			(void)poll(&p, 1, 10);
	}
	return NULL;
}

static void
stats_free(struct mrcd_stats *st)
{
	for (unsigned int h = 0; h < MRCD_MAX_HOSTS; h++) {
		free(st->paths[h]);
		free(st->out.last_paths[h]);
	}
	free(st->tmp);
	free(st);
}

static int
paths_alloc(struct mrcd_stats *st)
{
	const struct mrcd_daemon *d = st->d;
	unsigned int np, nt;

	/* every shard has the geometry of one config: ask the first how large it is */
	st->n_paths = mrc_shard_paths_snapshot(d->host[0].shard[0].rt, NULL, 0, &np, &nt);
	st->n_planes = np;
	st->n_t1 = nt;
	st->tmp = calloc(st->n_paths, sizeof(*st->tmp));
	if (st->tmp == NULL)
		return -ENOMEM;
	for (unsigned int h = 0; h < d->n_hosts; h++) {
		st->paths[h] = calloc(st->n_paths, sizeof(*st->paths[h]));
		st->out.last_paths[h] = calloc(st->n_paths, sizeof(*st->paths[h]));
		if (st->paths[h] == NULL || st->out.last_paths[h] == NULL)
			return -ENOMEM;
	}
	return 0;
}

int
mrcd_stats_start(struct mrcd_daemon *d, uint64_t start_tsc)
{
	struct mrcd_stats *st = calloc(1, sizeof(*st));
	const char *listen_on = d->cfg.telemetry.metrics_listen;
	char why[256];
	int rc;

	if (st == NULL)
		return -ENOMEM;
	st->d = d;
	st->start_tsc = start_tsc;
	rc = paths_alloc(st);
	if (rc != 0) {
		MRCD_LOG(stats, ERR, "stats thread: no memory for %u paths per host", st->n_paths);
		stats_free(st);
		return rc;
	}
	if (strcmp(listen_on, "none") != 0) {
		st->http = mrcd_http_open(listen_on, why, sizeof(why));
		if (st->http == NULL) {
			MRCD_LOG(stats, ERR, "%s", why);
			stats_free(st);
			return -EINVAL;
		}
		printf("mrcd: metrics on http://%s/metrics\n", mrcd_http_where(st->http));
		fflush(stdout);
	}
	rc = mrcd_output_open(st);
	if (rc == 0) {
		/* the first path sums exist before anyone can read them */
		mrcd_stats_paths_refresh(st, start_tsc);
		/* published first: the thread's first replies (/mrc/info, /mrc/paths) read it */
		__atomic_store_n(&d->stats, st, __ATOMIC_RELEASE);
		rc = rte_ctrl_thread_create(&st->thread, "mrcd-stats", NULL, stats_main, st);
		if (rc != 0)
			MRCD_LOG(stats, ERR, "stats thread: not created: %s", strerror(rc));
		rc = -rc;
	}
	if (rc != 0) {
		/* no thread: nobody replies, so nobody reads it */
		__atomic_store_n(&d->stats, NULL, __ATOMIC_RELEASE);
		mrcd_http_close(st->http);
		if (st->out.ts != NULL)
			fclose(st->out.ts);
		stats_free(st);
		return rc;
	}
	return 0;
}

void
mrcd_stats_stop(struct mrcd_daemon *d)
{
	struct mrcd_stats *st = d->stats;

	if (st == NULL || st->thread == 0)
		return; /* a second call finds outputs_done set and the endpoint closed */
	__atomic_store_n(&st->stop, 1, __ATOMIC_RELEASE);
	/* it looks at stop each millisecond; the last lines take what they take */
	while (!__atomic_load_n(&st->outputs_done, __ATOMIC_ACQUIRE))
		rte_delay_us_sleep(200);
	mrcd_http_close(st->http); /* the thread no longer polls it */
	st->http = NULL;
}

void
mrcd_stats_end(struct mrcd_daemon *d)
{
	struct mrcd_stats *st = d->stats;

	if (st == NULL || st->thread == 0)
		return;
	mrcd_stats_stop(d); /* when the run never stopped it: its outputs first */
	__atomic_store_n(&st->quit, 1, __ATOMIC_RELEASE);
	pthread_join(st->thread, NULL);
	st->thread = 0;
}

void
mrcd_stats_free(struct mrcd_daemon *d)
{
	struct mrcd_stats *st = d->stats;

	if (st == NULL)
		return;
	mrcd_stats_end(d);
	__atomic_store_n(&d->stats, NULL, __ATOMIC_RELEASE);
	stats_free(st);
}
