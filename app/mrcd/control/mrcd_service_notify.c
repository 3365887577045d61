/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: the main lcore (the control loop, the drain, a reload).
 *
 * What mrcd tells systemd (Type=notify, doc/service.md "Readiness"):
 *
 *   READY=1      once every worker has published a snapshot, so every
 *                shard has been iterated: its ports are up and polled
 *   STATUS=      a short live summary: at READY, then every
 *                MRCD_STATUS_EVERY_S seconds (systemctl status shows it)
 *   STOPPING=1   as the drain starts
 *
 * and around a reload (mrcd_service.c) RELOADING=1 with MONOTONIC_USEC,
 * then READY=1 with the reload's outcome. A STATUS= line is a syscall
 * every few seconds on the main lcore: nothing on the workers' path.
 */

#include <inttypes.h>
#include <stdio.h>

#include "mrcd_control.h"
#include "mrcd_daemon.h"
#include "mrcd_reload.h"
#include "mrcd_stats.h"

#define MRCD_STATUS_EVERY_S 5

/* Every shard has published at least once: its worker polls. */
static bool
workers_polling(const struct mrcd_daemon *d)
{
	for (unsigned int h = 0; h < d->n_hosts; h++)
		for (unsigned int k = 0; k < d->host[h].n_shards; k++)
			if (__atomic_load_n(&d->snap[h][k].seq, __ATOMIC_ACQUIRE) == 0)
				return false;
	return true;
}

void
mrcd_service_status(const struct mrcd_daemon *d, char *buf, size_t len)
{
	uint64_t posted = 0, completed = 0, failed = 0, in_error = 0;
	unsigned int flows = 0;

	for (unsigned int h = 0; h < d->n_hosts; h++) {
		struct mrcd_snapshot s;

		mrcd_snapshot_read(d, h, &s);
		posted += s.posted;
		completed += s.completed;
		failed += s.failed;
		in_error += __atomic_load_n(&d->host[h].qps_in_error, __ATOMIC_RELAXED);
	}
	for (unsigned int i = 0; i < d->n_flows; i++)
		flows += !d->flows[i].gone; /* a reload's removed flows stay in the table */
	snprintf(buf, len,
		"%u hosts, %u flows; messages %" PRIu64 " posted, %" PRIu64 " completed, %" PRIu64
		" failed; QPs in error %" PRIu64 "; reloads %" PRIu64 " taken, %" PRIu64 " refused",
		d->n_hosts, flows, posted, completed, failed, in_error, d->svc.reloads_ok,
		d->svc.reloads_refused);
}

void
mrcd_service_tick(struct mrcd_daemon *d, uint64_t now)
{
	char msg[512];
	int n;

	mrcd_reload_tick(d, now); /* a reload's flow changes, step by step */
	mrcd_reload_params_tick(d);
	mrcd_service_reload_tick(d);
	if (d->svc.notify.fd < 0 || d->phase != MRCD_RUN)
		return;
	if (!d->svc.ready_sent) {
		if (!workers_polling(d))
			return;
		d->svc.ready_sent = true;
		n = snprintf(msg, sizeof(msg), "READY=1\nSTATUS=");
	} else if (now >= d->svc.next_status_tsc) {
		n = snprintf(msg, sizeof(msg), "STATUS=");
	} else {
		return;
	}
	mrcd_service_status(d, msg + n, sizeof(msg) - (size_t)n);
	mrcd_notify_send(&d->svc.notify, msg);
	d->svc.next_status_tsc = now + MRCD_STATUS_EVERY_S * d->hz;
}

void
mrcd_service_stopping(struct mrcd_daemon *d)
{
	char msg[512];
	const int n = snprintf(msg, sizeof(msg), "STOPPING=1\nSTATUS=draining: ");

	mrcd_service_status(d, msg + n, sizeof(msg) - (size_t)n);
	mrcd_notify_send(&d->svc.notify, msg);
}
