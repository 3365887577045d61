/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * The bridge: memif ports in, the fabric's ports out and back, and the
 * fabric's poll, all on one lcore. Per loop iteration:
 *
 *   every attachment: memif rx burst -> fabric port tx burst
 *   mrc_fabric_poll(now)
 *   every attachment: fabric port rx burst -> memif tx burst
 *
 * What cannot be handed on is freed and counted (the fabric's host ring
 * full: the NIC's descriptors all in use; the memif ring full or the host
 * gone: the host's NIC dropping). Nothing here allocates but the memif rx
 * refill, locks, logs or makes a syscall, except the opt-in idle sleep.
 */

#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "fabricd.h"
#include "mrcd_ports_close.h"

static int
open_memif(struct fabricd *fd, unsigned int i)
{
	const unsigned int h = i / fd->n_planes, p = i % fd->n_planes;
	struct rte_eth_conf conf;
	struct rte_eth_dev_info info;
	char name[64];
	uint16_t pid, nb_rx = 1024, nb_tx = 1024;
	int rc;

	snprintf(name, sizeof(name), "net_memif_h%up%u", h, p);
	if (rte_eth_dev_get_port_by_name(name, &pid) != 0) {
		fprintf(stderr, "mrc-fabric: port %s was not created (see the EAL's messages)\n",
			name);
		return -1;
	}
	rc = rte_eth_dev_info_get(pid, &info);
	if (rc != 0)
		return rc;
	memset(&conf, 0, sizeof(conf));
	/* Frames above one mbuf arrive chained, and leave chained. */
	conf.rxmode.offloads = info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_SCATTER;
	conf.txmode.offloads = info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
	/* As many queue pairs as the host's workers open: memif wants both ends alike. */
	rc = rte_eth_dev_configure(pid, fd->n_queues, fd->n_queues, &conf);
	if (rc == 0)
		rc = rte_eth_dev_adjust_nb_rx_tx_desc(pid, &nb_rx, &nb_tx);
	for (uint16_t q = 0; rc == 0 && q < fd->n_queues; q++) {
		rc = rte_eth_rx_queue_setup(
			pid, q, nb_rx, rte_eth_dev_socket_id(pid), NULL, fd->pool[h]);
		if (rc == 0)
			rc = rte_eth_tx_queue_setup(
				pid, q, nb_tx, rte_eth_dev_socket_id(pid), NULL);
	}
	if (rc == 0)
		rc = rte_eth_dev_start(pid);
	if (rc != 0) {
		fprintf(stderr, "mrc-fabric: port %s: setup failed: %s\n", name, rte_strerror(-rc));
		return -1;
	}
	fd->memif_port[i] = pid;
	fd->memif_started |= 1u << i;
	return 0;
}

int
fabricd_ports_open(struct fabricd *fd)
{
	for (unsigned int i = 0; i < fd->n_attach; i++) {
		if (open_memif(fd, i) != 0)
			return -1;
		fd->fab_port[i] = mrc_fabric_port(fd->fab, i / fd->n_planes, i % fd->n_planes);
	}
	return 0;
}

static bool
link_up(uint16_t port)
{
	struct rte_eth_link l;

	return rte_eth_link_get_nowait(port, &l) == 0 && l.link_status == RTE_ETH_LINK_UP;
}

bool
fabricd_hosts_connected(const struct fabricd *fd, char *missing, size_t len)
{
	size_t o = 0;
	bool all = true;

	if (len > 0)
		missing[0] = '\0';
	for (unsigned int h = 0; h < fd->n_hosts; h++) {
		unsigned int down = 0;

		for (unsigned int p = 0; p < fd->n_planes; p++)
			down += !link_up(fd->memif_port[h * fd->n_planes + p]);
		if (down == 0)
			continue;
		all = false;
		if (o < len)
			o += (size_t)snprintf(missing + o, len - o, "%shost %u (%u of %u planes)",
				o ? ", " : "", h, fd->n_planes - down, fd->n_planes);
	}
	return all;
}

static void
publish(struct fabricd *fd)
{
	__atomic_store_n(&fd->seq, fd->seq + 1, __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	fd->snap = *mrc_fabric_counters(fd->fab);
	memcpy(fd->snap_attach, fd->live, sizeof(fd->snap_attach));
	__atomic_store_n(&fd->seq, fd->seq + 1, __ATOMIC_RELEASE);
}

void
fabricd_snapshot_read(
	const struct fabricd *fd, struct mrc_fabric_counters *fc, struct fabricd_attach_stats *as)
{
	uint32_t a, b;

	do {
		a = __atomic_load_n(&fd->seq, __ATOMIC_ACQUIRE);
		*fc = fd->snap;
		memcpy(as, fd->snap_attach, sizeof(fd->snap_attach));
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		b = __atomic_load_n(&fd->seq, __ATOMIC_ACQUIRE);
	} while ((a & 1) || a != b);
}

static unsigned int
to_fabric(struct fabricd *fd, unsigned int i)
{
	struct rte_mbuf *pkts[FABRICD_BURST];
	struct fabricd_attach_stats *s = &fd->live[i];
	uint16_t n = 0, sent;

	/* Every worker of the host sends on its own queue. */
	for (uint16_t q = 0; q < fd->n_queues && n < FABRICD_BURST; q++)
		n = (uint16_t)(n + rte_eth_rx_burst(fd->memif_port[i], q, pkts + n,
					   (uint16_t)(FABRICD_BURST - n)));
	if (n == 0)
		return 0;
	sent = rte_eth_tx_burst(fd->fab_port[i], 0, pkts, n);
	s->from_host_pkts += n;
	if (sent < n) {
		rte_pktmbuf_free_bulk(pkts + sent, n - sent);
		s->to_fabric_full += n - sent;
	}
	return n;
}

static unsigned int
to_host(struct fabricd *fd, unsigned int i)
{
	struct rte_mbuf *pkts[FABRICD_BURST];
	struct fabricd_attach_stats *s = &fd->live[i];
	const uint16_t n = rte_eth_rx_burst(fd->fab_port[i], 0, pkts, FABRICD_BURST);
	uint16_t sent;

	if (n == 0)
		return 0;
	sent = rte_eth_tx_burst(fd->memif_port[i], 0, pkts, n);
	s->to_host_pkts += sent;
	if (sent < n) {
		rte_pktmbuf_free_bulk(pkts + sent, n - sent);
		s->to_host_dropped += n - sent;
	}
	return n;
}

int
fabricd_bridge_main(void *arg)
{
	struct fabricd *fd = arg;
	const uint64_t snap_gap = fd->hz / 1000,
		       idle_tsc = fd->hz / 1000000 * fd->cli.idle_sleep_us;
	uint64_t next_snap = 0;

	while (__atomic_load_n(&fd->phase, __ATOMIC_ACQUIRE) == FABRICD_RUN) {
		uint64_t now = rte_rdtsc();
		unsigned int work = 0;

		for (unsigned int i = 0; i < fd->n_attach; i++)
			work += to_fabric(fd, i);
		work += mrc_fabric_poll(fd->fab, now);
		for (unsigned int i = 0; i < fd->n_attach; i++)
			work += to_host(fd, i);
		if (now >= next_snap) {
			publish(fd);
			next_snap = now + snap_gap;
		}
		/*
		 * Opt-in: give the CPU back when idle and the fabric has nothing due
		 * within the sleep, so pollers sharing a core are not starved.
		 */
		if (work == 0 && idle_tsc != 0 &&
			mrc_fabric_next_event_tsc(fd->fab) > now + idle_tsc) {
			fd->idle_sleeps++;
			rte_delay_us_sleep(fd->cli.idle_sleep_us);
		}
	}
	publish(fd);
	return 0;
}

void
fabricd_ports_close(struct fabricd *fd)
{
	uint16_t ports[FABRICD_MAX_ATTACH];
	unsigned int n = 0;

	for (unsigned int i = 0; i < FABRICD_MAX_ATTACH; i++)
		if (fd->memif_started & (1u << i))
			ports[n++] = fd->memif_port[i];
	/* On the EAL interrupt thread: a host's disconnect may be handled there now. */
	mrcd_ports_close_all(ports, n);
	fd->memif_started = 0;
}
