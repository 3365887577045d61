/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * The hosts' configs, derived from the cluster's: every value the hosts
 * must agree on (planes, cluster size, addresses, the SRv6 block and
 * topology their paths are built from, transport, profile) comes from the
 * one file the fabric reads, so a host cannot disagree with the fabric or
 * with its peers. Each host gets: one host of its own (first_host = N),
 * ethdev ports that are the memif clients of this fabric's sockets, the
 * congestion control's link rate and base RTT the fabric implies (an
 * ethdev-mode host would otherwise assume 100 Gb/s NIC ports), its own
 * time-series, Prometheus files and control socket, and no scenario
 * (faults are the fabric's).
 */

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fabricd.h"

/* Rx mbufs big enough that a 4 KiB-payload frame is one segment at the host. */
#define HOST_RX_ROOM 4736

static void
derive(const struct fabricd *fd, unsigned int h, const char *profile, struct mrcd_config *c)
{
	const struct mrcd_config *cl = &fd->cfg;

	*c = *cl;
	c->daemon.hosts = 1;
	c->daemon.first_host = (uint16_t)h;
	c->daemon.cluster_hosts = (uint16_t)fd->n_hosts;
	snprintf(c->daemon.profile, sizeof(c->daemon.profile), "%s", profile);
	snprintf(c->daemon.scenario, sizeof(c->daemon.scenario), "none");
	if (c->cc.link_gbps == 0.0)
		c->cc.link_gbps = cl->daemon.planes * cl->fabric.link_gbps;
	if (c->cc.base_rtt_us == 0)
		c->cc.base_rtt_us = (uint32_t)ceil(mrcd_config_base_rtt_ns(cl) / 1000.0);
	c->ports.mode = MRCD_PORTS_ETHDEV;
	if (c->ports.rx_mbuf_data_room < HOST_RX_ROOM)
		c->ports.rx_mbuf_data_room = HOST_RX_ROOM;
	if (c->ports.close_delay_ms == 0)
		c->ports.close_delay_ms = fd->cli.close_delay_ms;
	memset(c->ports.name, 0, sizeof(c->ports.name));
	memset(c->ports.vdev, 0, sizeof(c->ports.vdev));
	for (unsigned int p = 0; p < fd->n_planes; p++) {
		/* The server side already checked that the socket paths fit. */
		if (snprintf(c->ports.vdev[p], sizeof(c->ports.vdev[p]),
			    "net_memif%u,role=client,socket=%s/h%u.sock,id=%u,bsize=%u", p,
			    fd->cli.dir, h, p, fd->cli.bsize) >= (int)sizeof(c->ports.vdev[p]))
			c->ports.vdev[p][0] = '\0';
		snprintf(c->ports.name[h][p], sizeof(c->ports.name[h][p]), "net_memif%u", p);
	}
	/* Each host its own files, beside its config (--dir is at most 160 bytes). */
	if (strcmp(c->telemetry.timeseries, "none") != 0 &&
		snprintf(c->telemetry.timeseries, sizeof(c->telemetry.timeseries),
			"%.160s/host%u-timeseries.jsonl", fd->cli.dir, h) < 0)
		c->telemetry.timeseries[0] = '\0';
	if (strcmp(c->telemetry.prometheus, "none") != 0 &&
		snprintf(c->telemetry.prometheus, sizeof(c->telemetry.prometheus),
			"%.160s/host%u.prom", fd->cli.dir, h) < 0)
		c->telemetry.prometheus[0] = '\0';
	/*
	 * ... and its own control socket: the hosts of a cluster run side by side,
	 * and two mrcd cannot share one (doc/control.md). Where the path would not
	 * fit a unix socket address, the host keeps the cluster's setting.
	 */
	if (strcmp(c->control.socket, "auto") == 0 && strlen(fd->cli.dir) < 80)
		snprintf(c->control.socket, sizeof(c->control.socket), "%.80s/host%u-control.sock",
			fd->cli.dir, h);
}

int
fabricd_write_host_configs(const struct fabricd *fd)
{
	char profile[MRCD_CONFIG_PATH_MAX], path[PATH_MAX + 32], err[512];
	int rc = mrcd_config_resolve(&fd->cfg, fd->cfg.daemon.profile, profile, sizeof(profile));

	if (rc < 0 || (size_t)rc >= sizeof(profile)) {
		fprintf(stderr, "mrc-fabric: [daemon] profile %s: path too long\n",
			fd->cfg.daemon.profile);
		return -1;
	}
	for (unsigned int h = 0; h < fd->n_hosts; h++) {
		static struct mrcd_config c; /* large: not on the stack */
		FILE *f;

		derive(fd, h, profile, &c);
		if (mrcd_config_check(&c, err, sizeof(err)) != 0) {
			fprintf(stderr, "mrc-fabric: host %u's derived config does not check: %s\n",
				h, err);
			return -1;
		}
		snprintf(path, sizeof(path), "%s/host%u.ini", fd->cli.dir, h);
		f = fopen(path, "w");
		if (f == NULL) {
			fprintf(stderr, "mrc-fabric: cannot write %s: %s\n", path, strerror(errno));
			return -1;
		}
		fprintf(f,
			"; host %u of %u, derived by mrc-fabric from %s: start it with\n"
			";   mrcd -- -f %s\n; while mrc-fabric runs. Edit the cluster's config, "
			"not this file.\n",
			h, fd->n_hosts, fd->cli.config, path);
		mrcd_config_print(f, &c);
		if (fclose(f) != 0) {
			fprintf(stderr, "mrc-fabric: cannot write %s: %s\n", path, strerror(errno));
			return -1;
		}
	}
	return 0;
}
