/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: the main thread at exit, after the pollers stopped.
 *
 * Why net_memif ports are closed on the interrupt thread (DPDK 22.11):
 * net_memif handles its control channel (the peer's messages, and the
 * socket's end of file when the peer exits) in memif_intr_handler on the
 * EAL interrupt thread, and a DISCONNECT or end of file there runs
 * memif_disconnect() on the port: it closes the queues' event fds, unmaps
 * and frees the shared regions and resets the port's run state.
 * rte_eth_dev_stop() runs the same memif_disconnect() on the caller's
 * thread, and only the pointer to the control channel is under a lock
 * (cc_lock): the rest of the two disconnects run at once on one port. When
 * the handler is in flight, the stop's rte_intr_callback_unregister()
 * returns -EAGAIN, memif hands the channel to
 * rte_intr_callback_unregister_pending() and returns without waiting for
 * the handler, and rte_eth_dev_close() then frees the queues, the
 * process-private regions and the port's private data that the handler is
 * still using. Peers stopped together (all SIGTERMed at once) disconnect
 * at the same moment as the closing side, so this is a use after free on
 * the interrupt thread after the summary (SIGSEGV, or an ASan report in
 * librte_net_memif), seen in the fabric_process and daemon_two_process tests.
 *
 * Every interrupt callback runs on that one thread, and so do EAL alarms.
 * An alarm that stops and closes the memif ports therefore runs between
 * memif's handlers, never during one: a disconnect already received has
 * finished, one that comes later finds the channel unregistered. The main
 * thread waits for the alarm to have run.
 */

#include <rte_alarm.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "mrcd_ports_close.h"

struct close_job {
	const uint16_t *ports;
	unsigned int n;
	/* Which ports this pass closes: memif's or the others. */
	bool memif;
	/* By port id, read before any port closes. */
	bool is_memif[RTE_MAX_ETHPORTS];
	int done;
};

static bool
is_memif(uint16_t port)
{
	struct rte_eth_dev_info info;

	return rte_eth_dev_info_get(port, &info) == 0 && info.driver_name != NULL &&
	       strcmp(info.driver_name, "net_memif") == 0;
}

static void
close_some(struct close_job *job)
{
	for (unsigned int i = 0; i < job->n; i++) {
		if (job->ports[i] >= RTE_MAX_ETHPORTS || job->is_memif[job->ports[i]] != job->memif)
			continue;
		/* Stop, then close: close frees what the rx ring still holds. */
		(void)rte_eth_dev_stop(job->ports[i]);
		(void)rte_eth_dev_close(job->ports[i]);
	}
}

static void
close_on_intr_thread(void *arg)
{
	struct close_job *job = arg;

	close_some(job);
	__atomic_store_n(&job->done, 1, __ATOMIC_RELEASE);
}

void
mrcd_ports_close_all(const uint16_t *ports, unsigned int n)
{
	struct close_job job = {.ports = ports, .n = n, .memif = false};
	const uint64_t hz = rte_get_timer_hz();
	uint64_t deadline;
	int rc;

	for (unsigned int i = 0; i < n; i++)
		if (ports[i] < RTE_MAX_ETHPORTS)
			job.is_memif[ports[i]] = is_memif(ports[i]);
	close_some(&job); /* the other ports: here */
	job.memif = true;
	rc = rte_eal_alarm_set(1, close_on_intr_thread, &job);
	if (rc != 0) {
		fprintf(stderr, "closing memif ports on this thread: no EAL alarm (%s)\n",
			strerror(-rc));
		close_some(&job);
		return;
	}
	deadline = rte_get_timer_cycles() + 10 * hz;
	while (!__atomic_load_n(&job.done, __ATOMIC_ACQUIRE) && rte_get_timer_cycles() < deadline)
		rte_delay_us_sleep(1000);
	/*
	 * 10 s without the alarm: the interrupt thread is stuck. If the alarm
	 * never started, cancel it and close here; otherwise the cancel waits
	 * for it to finish (job lives on this stack until then).
	 */
	if (!__atomic_load_n(&job.done, __ATOMIC_ACQUIRE) &&
		rte_eal_alarm_cancel(close_on_intr_thread, &job) > 0) {
		fprintf(stderr, "closing memif ports on this thread: the EAL interrupt "
				"thread did not run an alarm in 10 s\n");
		close_some(&job);
	}
}
