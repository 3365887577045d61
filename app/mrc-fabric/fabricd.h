/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef FABRICD_H
#define FABRICD_H

/*
 * mrc-fabric: the emulated multi-plane fabric (drivers/fabric) as a process
 * of its own, so that each host can be a separate mrcd, as on a real
 * cluster. Every (host, plane) attachment is a net_memif server port; the
 * host's mrcd is its client (one socket per host, the plane as the memif
 * id). A bridge lcore moves packets between each memif port and the
 * fabric's net_ring port for the same attachment, and polls the fabric:
 *
 *   mrcd host h --memif h.sock id p--> [memif port] -> [fabric port h,p]
 *        --T0--T1--T0--> [fabric port d,p] -> [memif port] --> mrcd host d
 *
 * The bridge is the host side of the fabric's ports, so the fabric sees what
 * it sees in mrcd: packets a host transmitted, stamped when taken. The
 * memif copy stands in for the NIC's DMA.
 */

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_mempool.h>

#include "mrc_fabric.h"
#include "mrcd_config.h"

#define FABRICD_MAX_ATTACH 16 /* hosts x planes: each needs 2 of DPDK's 32 ports */
#define FABRICD_BURST	   32

/* The command line (fabricd_cli.c). */
struct fabricd_cli {
	const char *prog;
	int eal_argc; /* the user's EAL arguments, before "--" */
	char **eal_argv;
	char config[PATH_MAX];
	char scenario[PATH_MAX]; /* "" = the config's; "none" = none */
	char dir[PATH_MAX];	 /* memif sockets and host configs */
	char json[PATH_MAX];	 /* "" = no JSON summary */
	uint32_t duration_s;	 /* 0 = until a signal */
	uint32_t bsize;		 /* memif buffer size, bytes */
	uint32_t mbufs;		 /* per host pool */
	uint32_t close_delay_ms;
	uint32_t idle_sleep_us; /* 0 = poll without pause */
	bool check;
};

/* What the bridge counts per attachment; written by the bridge lcore only. */
struct fabricd_attach_stats {
	uint64_t from_host_pkts;  /* received from the host's memif port */
	uint64_t to_fabric_full;  /* dropped: the fabric's port ring was full */
	uint64_t to_host_pkts;	  /* sent to the host's memif port */
	uint64_t to_host_dropped; /* dropped: memif ring full or host not connected */
};

/* A memif port's link as the main lcore last saw it (fabricd_links.c). */
struct fabricd_link_watch {
	bool up;
	uint32_t connects;    /* down -> up: a host's mrcd connected */
	uint32_t disconnects; /* up -> down: it went away */
};

enum fabricd_phase { FABRICD_RUN = 0, FABRICD_EXIT = 1 };

struct fabricd {
	struct fabricd_cli cli;
	struct mrcd_config cfg; /* the cluster's config, as loaded */
	uint64_t hz;
	unsigned int n_hosts, n_planes,
		n_attach; /* attachment i = host i / planes, plane i % planes */
	struct mrc_fabric *fab;
	struct rte_mempool *pool[MRC_FABRIC_MAX_HOSTS];
	uint16_t memif_port[FABRICD_MAX_ATTACH];
	uint16_t fab_port[FABRICD_MAX_ATTACH];
	uint32_t memif_started; /* bit i: memif_port[i] started */
	/* queue pairs per memif port: the hosts' workers ([lcores] workers_per_host); the
	 * fabric sends to a host on queue 0, whose worker passes on what another owns */
	uint16_t n_queues;
	unsigned int bridge_lcore;
	bool user_lcores;   /* the EAL line's lcores are the user's: sharing a CPU is fine */
	volatile int phase; /* enum fabricd_phase; the main lcore writes it */
	uint64_t start_tsc, end_tsc;

	/* Published by the bridge every millisecond under a sequence count. */
	uint32_t seq;
	struct mrc_fabric_counters snap;
	struct fabricd_attach_stats snap_attach[FABRICD_MAX_ATTACH];
	struct fabricd_attach_stats live[FABRICD_MAX_ATTACH]; /* the bridge's own */
	uint64_t idle_sleeps;
	struct fabricd_link_watch link[FABRICD_MAX_ATTACH]; /* the main lcore's own */
};

/* fabricd_cli.c: 0; 1 after --help/--version (exit 0); -EINVAL with err. */
int fabricd_cli_parse(int argc, char **argv, struct fabricd_cli *cli, char *err, size_t errlen);

/* fabricd_hosts.c: write <dir>/host<N>.ini for every host; 0 or -1 (printed). */
int fabricd_write_host_configs(const struct fabricd *fd);

/* fabricd_bridge.c */
int fabricd_ports_open(struct fabricd *fd);
bool fabricd_hosts_connected(const struct fabricd *fd, char *missing, size_t len);
int fabricd_bridge_main(void *arg);
void fabricd_ports_close(struct fabricd *fd);

/* fabricd_links.c: count and log each memif port's connects and disconnects. */
void fabricd_links_watch(struct fabricd *fd, uint64_t now);
void fabricd_snapshot_read(
	const struct fabricd *fd, struct mrc_fabric_counters *fc, struct fabricd_attach_stats *as);

/* fabricd_report.c */
void fabricd_console_line(const struct fabricd *fd, uint64_t now);
int fabricd_summary(const struct fabricd *fd);

#endif /* FABRICD_H */
