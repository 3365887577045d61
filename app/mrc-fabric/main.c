/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * mrc-fabric: the emulated fabric as a process of its own (fabricd.h).
 *
 *   parse the command line and the cluster's config; derive and write each
 *   host's config (<dir>/host<N>.ini)
 *   start the EAL: a memif server port per host x plane, one polling lcore
 *   mbuf pools (one per host), the fabric, its fault scenario
 *   wait until every host has connected every plane; that is time zero of
 *   the scenario
 *   the bridge lcore polls; the main lcore prints a line a second and waits
 *   for the duration or a signal (SIGHUP: the scenario file read again and
 *   run from then on, mrc_fabric_timeline_offer)
 *   summary; unwind in reverse, checking every pool is full again
 *
 * This is the only file that exits.
 */

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "fabricd.h"
#include "mrcd_cli.h"
#include "mrcd_cpus.h"

static volatile sig_atomic_t signalled, hangup;

static void
on_signal(int sig)
{
	signalled = sig;
}

static void
on_hangup(int sig)
{
	hangup = sig;
}

/* SIGHUP's timeline, offered to the bridge's fabric until it takes it. */
static struct mrc_fabric_timeline *reload_tl;

/*
 * SIGHUP: the scenario file named at start, read again and handed whole to
 * the bridge lcore, which runs it from its next poll (its faults in force
 * cleared first); a file that does not load changes nothing.
 */
static void
reload_scenario(struct fabricd *fd, const char *scenario)
{
	char why[512];
	struct mrc_fabric_timeline *tl;

	if (reload_tl != NULL) {
		printf("mrc-fabric: SIGHUP: refused: the previous reload's timeline is not taken "
		       "yet; try again in a moment\n");
		return;
	}
	tl = mrc_fabric_timeline_load(fd->fab, scenario, why, sizeof(why));
	if (tl == NULL) {
		printf("mrc-fabric: SIGHUP: refused: scenario: %s; the running timeline stays\n",
			why);
		return;
	}
	if (mrc_fabric_timeline_offer(fd->fab, tl) != 0) {
		mrc_fabric_timeline_free(tl); /* only this thread offers: cannot happen */
		return;
	}
	reload_tl = tl;
	printf("mrc-fabric: SIGHUP: scenario %s: %u changes, from the fabric's next poll\n",
		scenario[0] ? scenario : "none", mrc_fabric_timeline_events(tl));
}

/* The reload's timeline, once taken (or, with the bridge stopped, withdrawn): freed. */
static void
reload_done(struct fabricd *fd, bool stopped)
{
	uint64_t t_ns;

	if (reload_tl == NULL)
		return;
	if (mrc_fabric_timeline_taken(reload_tl, &t_ns))
		printf("mrc-fabric: the fabric runs the reloaded scenario from its t=%.3f s\n",
			(double)t_ns / 1e9);
	else if (!stopped || !mrc_fabric_timeline_withdraw(fd->fab, reload_tl))
		return;
	mrc_fabric_timeline_free(reload_tl);
	reload_tl = NULL;
}

static int
load(struct fabricd *fd, char *scenario, size_t len)
{
	char err[1024];
	int rc;

	if (mrcd_config_load(&fd->cfg, fd->cli.config, err, sizeof(err)) != 0) {
		fprintf(stderr, "mrc-fabric: %s\n", err);
		return -1;
	}
	fd->n_hosts = mrcd_config_cluster_hosts(&fd->cfg);
	fd->n_planes = fd->cfg.daemon.planes;
	fd->n_attach = fd->n_hosts * fd->n_planes;
	fd->n_queues = fd->cfg.lcores.workers_per_host > 1 ? fd->cfg.lcores.workers_per_host : 1;
	if (fd->n_attach > FABRICD_MAX_ATTACH) {
		fprintf(stderr,
			"mrc-fabric: %s: %u hosts x %u planes = %u attachments; at most %u "
			"(each is a memif port and a fabric port, and DPDK 22.11 allows 32 "
			"ports per process)\n",
			fd->cli.config, fd->n_hosts, fd->n_planes, fd->n_attach,
			FABRICD_MAX_ATTACH);
		return -1;
	}
	if (strcmp(fd->cli.scenario, "none") == 0 ||
		(fd->cli.scenario[0] == '\0' && strcmp(fd->cfg.daemon.scenario, "none") == 0)) {
		scenario[0] = '\0';
		return 0;
	}
	if (fd->cli.scenario[0] != '\0') {
		snprintf(scenario, len, "%s", fd->cli.scenario);
		return 0;
	}
	rc = mrcd_config_resolve(&fd->cfg, fd->cfg.daemon.scenario, scenario, len);
	if (rc < 0 || (size_t)rc >= len) {
		fprintf(stderr, "mrc-fabric: scenario path too long\n");
		return -1;
	}
	return 0;
}

static int
make_dir(const char *dir)
{
	struct stat st;

	if (mkdir(dir, 0755) == 0 ||
		(errno == EEXIST && stat(dir, &st) == 0 && S_ISDIR(st.st_mode)))
		return 0;
	fprintf(stderr, "mrc-fabric: --dir %s: cannot create it: %s\n", dir, strerror(errno));
	return -1;
}

/*
 * A socket file left by an instance that did not exit cleanly makes memif
 * fail with "Address already in use". Remove it when nobody answers on it;
 * a live fabric on the same directory answers, and is left alone (its
 * ports then fail to start, naming the socket).
 */
static void
remove_stale_sockets(const struct fabricd *fd)
{
	for (unsigned int h = 0; h < fd->n_hosts; h++) {
		struct sockaddr_un sa = {.sun_family = AF_UNIX};
		int s;

		if (snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/h%u.sock", fd->cli.dir, h) >=
				(int)sizeof(sa.sun_path) ||
			access(sa.sun_path, F_OK) != 0)
			continue;
		s = socket(AF_UNIX, SOCK_SEQPACKET, 0);
		if (s < 0)
			continue;
		if (connect(s, (struct sockaddr *)&sa, sizeof(sa)) != 0 && errno == ECONNREFUSED) {
			printf("mrc-fabric: removing stale socket %s\n", sa.sun_path);
			unlink(sa.sun_path);
		}
		close(s);
	}
}

/*
 * The EAL line: mrcd's builder (file prefix, lcores on CPUs no other mrcd
 * polls, hugepages or --no-huge with -m sized from the pools), given a config
 * that describes this process: the hosts' pools, one poller, and the memif
 * servers as vdevs.
 */
static int
eal_args(struct fabricd *fd, char **argv, int max, char *buf, size_t buflen)
{
	static struct mrcd_config ec;
	static char *user[128];
	struct mrcd_cli cli = {.prog = fd->cli.prog};
	bool names_devices = false;
	char err[512];
	int n = 0, rc;

	ec = fd->cfg;
	ec.daemon.hosts = (uint16_t)fd->n_hosts;
	ec.ports.mode = MRCD_PORTS_ETHDEV;
	ec.ports.rx_pool_mbufs = fd->cli.mbufs;
	ec.ports.rx_mbuf_data_room = RTE_MBUF_DEFAULT_BUF_SIZE;
	ec.ports.tx_pool_mbufs = 0;
	ec.lcores.workers = 1;
	ec.lcores.fabric = MRCD_FABRIC_ON_WORKER;
	memset(ec.ports.vdev, 0, sizeof(ec.ports.vdev));
	for (unsigned int i = 0; i < fd->n_attach; i++)
		if (snprintf(ec.ports.vdev[i], sizeof(ec.ports.vdev[i]),
			    "net_memif_h%up%u,role=server,socket=%s/h%u.sock,id=%u,bsize=%u",
			    i / fd->n_planes, i % fd->n_planes, fd->cli.dir, i / fd->n_planes,
			    i % fd->n_planes, fd->cli.bsize) >= (int)sizeof(ec.ports.vdev[i])) {
			fprintf(stderr, "mrc-fabric: --dir %s: too long for a memif socket path\n",
				fd->cli.dir);
			return -1;
		}
	for (int i = 0; i < fd->cli.eal_argc && n < (int)RTE_DIM(user) - 1; i++) {
		const char *a = fd->cli.eal_argv[i];

		names_devices |= strcmp(a, "--no-pci") == 0 || strncmp(a, "-a", 2) == 0 ||
				 strncmp(a, "--allow", 7) == 0 || strncmp(a, "-b", 2) == 0 ||
				 strncmp(a, "--block", 7) == 0;
		user[n++] = fd->cli.eal_argv[i];
	}
	if (!names_devices) /* no NIC is needed: skip the PCI scan */
		user[n++] = (char *)(uintptr_t) "--no-pci";
	cli.eal_argc = n;
	cli.eal_argv = user;
	cli.busy_cpus = mrcd_cpus_busy();
	fd->user_lcores = mrcd_cli_user_lcores(&cli);
	rc = mrcd_cli_eal_argv(&cli, &ec, argv, max, buf, buflen, err, sizeof(err));
	if (rc < 0)
		fprintf(stderr, "mrc-fabric: EAL arguments: %s\n", err);
	return rc;
}

static int
make_fabric(struct fabricd *fd, const char *scenario)
{
	struct mrcd_config fcfg = fd->cfg;
	struct mrc_fabric_cfg fc;
	const char *why = NULL;
	int rc;

	fcfg.daemon.hosts = (uint16_t)fd->n_hosts;
	fcfg.daemon.first_host = 0;
	for (unsigned int h = 0; h < fd->n_hosts; h++) {
		char name[RTE_MEMPOOL_NAMESIZE];

		snprintf(name, sizeof(name), "fab_h%u", h);
		fd->pool[h] = rte_pktmbuf_pool_create(name, fd->cli.mbufs, 256, 0,
			RTE_MBUF_DEFAULT_BUF_SIZE, (int)rte_socket_id());
		if (fd->pool[h] == NULL) {
			fprintf(stderr, "mrc-fabric: host %u: cannot create %u mbufs: %s\n", h,
				fd->cli.mbufs, rte_strerror(rte_errno));
			return -1;
		}
	}
	if (mrcd_config_fabric(&fcfg, fd->hz, &fc) != 0) {
		fprintf(stderr,
			"mrc-fabric: [fabric] does not convert to a fabric configuration\n");
		return -1;
	}
	fd->fab = mrc_fabric_create(&fc, &why);
	if (fd->fab == NULL || mrc_fabric_start_ports(fd->fab, fd->pool[0]) != 0) {
		fprintf(stderr, "mrc-fabric: fabric: %s\n", why ? why : "ports did not start");
		return -1;
	}
	if (scenario[0] != '\0') {
		rc = mrc_fabric_load_scenario(fd->fab, scenario, &why);
		if (rc < 0) {
			fprintf(stderr, "mrc-fabric: scenario: %s\n", why);
			return -1;
		}
		printf("mrc-fabric: scenario %s: %d events, timed from when every host is "
		       "connected\n",
			scenario, rc);
	}
	return 0;
}

/* Until every host has every plane connected, or a signal. */
static bool
wait_hosts(struct fabricd *fd)
{
	char missing[512];
	uint64_t next_say = rte_rdtsc();

	for (;;) {
		fabricd_links_watch(fd, rte_rdtsc());
		if (fabricd_hosts_connected(fd, missing, sizeof(missing)))
			return true;
		if (signalled)
			return false;
		if (rte_rdtsc() >= next_say) {
			printf("mrc-fabric: waiting for hosts: %s\n", missing);
			next_say = rte_rdtsc() + 5 * fd->hz;
		}
		rte_delay_us_sleep(10000);
	}
}

static void
run(struct fabricd *fd, const char *scenario)
{
	const uint64_t end = fd->cli.duration_s
				     ? fd->start_tsc + (uint64_t)fd->cli.duration_s * fd->hz
				     : UINT64_MAX;
	uint64_t next_console = fd->start_tsc + fd->hz;

	for (;;) {
		const uint64_t now = rte_rdtsc();

		if (now >= next_console) {
			fabricd_console_line(fd, now);
			next_console += fd->hz;
		}
		if (now >= end || signalled)
			break;
		if (hangup) {
			hangup = 0;
			reload_scenario(fd, scenario);
		}
		reload_done(fd, false);
		fabricd_links_watch(fd, now);
		mrc_fabric_log_applied(fd->fab); /* what the bridge lcore applied */
		rte_delay_us_sleep(10000);
	}
	if (signalled)
		printf("mrc-fabric: %s: stopping\n", strsignal(signalled));
	__atomic_store_n(&fd->phase, FABRICD_EXIT, __ATOMIC_RELEASE);
	rte_eal_mp_wait_lcore();
	mrc_fabric_log_applied(fd->fab);
	reload_done(fd, true);
	fd->end_tsc = rte_rdtsc();
}

int
main(int argc, char **argv)
{
	static struct fabricd fd;
	static char err[1024], eal_buf[8192];
	char *eal_argv[160], scenario[PATH_MAX];
	int rc, eal_argc, status = 1;
	bool eal_up = false;

	setvbuf(stdout, NULL, _IOLBF, 0);

	/* 1. Command line, config, the hosts' configs: nothing starts before they check out. */
	rc = fabricd_cli_parse(argc, argv, &fd.cli, err, sizeof(err));
	if (rc != 0) {
		if (rc < 0)
			fprintf(stderr, "mrc-fabric: %s\n(see mrc-fabric --help)\n", err);
		return rc > 0 ? 0 : 2;
	}
	if (load(&fd, scenario, sizeof(scenario)) != 0 || make_dir(fd.cli.dir) != 0 ||
		fabricd_write_host_configs(&fd) != 0)
		return 1;
	printf("mrc-fabric: %u hosts x %u planes (%u T1s per plane, %.3g Gb/s links) from %s; "
	       "hosts' configs in %s/host<N>.ini\n",
		fd.n_hosts, fd.n_planes, fd.cfg.fabric.t1s, fd.cfg.fabric.link_gbps, fd.cli.config,
		fd.cli.dir);
	if (fd.cli.check) {
		printf("mrc-fabric: configuration checks out; scenario %s (checked at start)\n",
			scenario[0] ? scenario : "none");
		return 0;
	}

	/* 2. EAL: the memif servers and one polling lcore. */
	remove_stale_sockets(&fd);
	eal_argc = eal_args(&fd, eal_argv, RTE_DIM(eal_argv), eal_buf, sizeof(eal_buf));
	if (eal_argc < 0)
		return 1;
	mrcd_cli_format_argv(eal_argc, eal_argv, err, sizeof(err));
	printf("mrc-fabric: EAL %s\n", err);
	if (rte_eal_init(eal_argc, eal_argv) < 0) {
		fprintf(stderr, "mrc-fabric: EAL did not start: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	eal_up = true;
	{
		unsigned int taken;

		if (mrcd_cpus_claim_pollers(fd.user_lcores, &taken) != 0) {
			fprintf(stderr,
				"mrc-fabric: CPU %u was claimed by another instance while "
				"this one started: run again\n",
				taken);
			goto out;
		}
	}
	fd.hz = rte_get_tsc_hz();
	fd.bridge_lcore = rte_get_next_lcore(-1, 1, 0);
	if (fd.bridge_lcore >= RTE_MAX_LCORE) {
		fprintf(stderr, "mrc-fabric: no worker lcore: give the EAL two (e.g. -l 0,1)\n");
		goto out;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_hangup);

	/* 3. Pools, the fabric and its scenario, the memif ports. */
	if (make_fabric(&fd, scenario) != 0 || fabricd_ports_open(&fd) != 0)
		goto out;
	printf("mrc-fabric: serving memif sockets %s/h0.sock .. h%u.sock; start each host with\n",
		fd.cli.dir, fd.n_hosts - 1);
	for (unsigned int h = 0; h < fd.n_hosts; h++)
		printf("  mrcd -- -f %s/host%u.ini\n", fd.cli.dir, h);

	/* 4. Run: time zero is when every host is there. */
	if (!wait_hosts(&fd)) {
		printf("mrc-fabric: %s before every host connected: stopping\n",
			strsignal(signalled));
		status = 0;
		goto out;
	}
	fd.start_tsc = rte_rdtsc();
	printf("mrc-fabric: all %u hosts connected on all %u planes; fabric time starts\n",
		fd.n_hosts, fd.n_planes);
	mrc_fabric_start(fd.fab, fd.start_tsc);
	/* the bridge lcore applies the faults; this thread logs them */
	mrc_fabric_defer_log(fd.fab, true);
	rte_eal_remote_launch(fabricd_bridge_main, &fd, fd.bridge_lcore);
	run(&fd, scenario);
	status = fabricd_summary(&fd) == 0 ? 0 : 1;

out:
	/* 5. Unwind in reverse. */
	if (fd.memif_started != 0 && fd.cli.close_delay_ms > 0 && fd.start_tsc != 0)
		rte_delay_us_sleep(fd.cli.close_delay_ms * 1000u);
	fabricd_ports_close(&fd);
	mrc_fabric_free(fd.fab); /* returns every packet still inside */
	for (unsigned int h = 0; h < fd.n_hosts; h++) {
		if (fd.pool[h] == NULL)
			continue;
		if (!rte_mempool_full(fd.pool[h])) {
			fprintf(stderr, "mrc-fabric: host %u's pool is missing %u mbufs at exit\n",
				h, fd.cli.mbufs - rte_mempool_avail_count(fd.pool[h]));
			status = 1;
		}
		rte_mempool_free(fd.pool[h]);
	}
	if (eal_up) {
		mrcd_eal_cleanup();
		mrcd_cpus_release();
	}
	return status;
}
