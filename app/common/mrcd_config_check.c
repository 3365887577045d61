/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: the main thread of mrcd and of mrc-fabric, as the config loads.
 *
 * Cross-checks: rules that involve more than one key, run after every key
 * parsed on its own. Each names the key to change and its line. The rules
 * the libraries know (mrc_ev_cfg_check, mrc_wire_cfg_check,
 * mrc_cc_params_check, mrc_fabric_cfg_check) are restated here where a
 * precise message helps, and the library checks then run as a backstop
 * whose reason is reported prefixed with the section.
 */

#include <errno.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "mrcd_config_priv.h"

struct xc {
	const struct mrcd_config *cfg;
	const struct mrcd_ini *ini;
	const char *origin;
	char *err;
	size_t errlen;
};

#define BAD(x, section, key, ...)                                                          \
	mrcd_ini_error((x)->ini, (x)->origin, &mrcd_config_schema, (x)->cfg, section, key, \
		(x)->err, (x)->errlen, __VA_ARGS__)

/* Mbufs one data packet takes from the tx pool: header, attached payload, trailer. */
#define MBUFS_PER_TX_PKT 3
/* Bytes of headers a tx mbuf must hold (mrc_qp_create() asks for 256). */
#define TX_HDR_ROOM 256

static int
check_daemon(const struct xc *x)
{
	const struct mrcd_config *c = x->cfg;
	const unsigned int ports = (unsigned int)c->daemon.hosts * c->daemon.planes;

	if ((unsigned int)c->daemon.first_host + c->daemon.hosts > MRCD_CONFIG_MAX_HOSTS)
		return BAD(x, "daemon", "first_host", "first_host + hosts (%u) must be at most %d",
			c->daemon.first_host + c->daemon.hosts, MRCD_CONFIG_MAX_HOSTS);
	if (c->daemon.cluster_hosts != 0 &&
		c->daemon.cluster_hosts < c->daemon.first_host + c->daemon.hosts)
		return BAD(x, "daemon", "cluster_hosts",
			"must be at least first_host + hosts = %u (or 0)",
			c->daemon.first_host + c->daemon.hosts);
	if (ports > RTE_MAX_ETHPORTS)
		return BAD(x, "daemon", "hosts",
			"hosts x planes = %u x %u = %u ports: one process has at most %d ethdev "
			"ports (RTE_MAX_ETHPORTS of this DPDK)",
			c->daemon.hosts, c->daemon.planes, ports, RTE_MAX_ETHPORTS);
	if (c->ports.mode == MRCD_PORTS_LOOP) {
		/* Both ends of every link are in this process: it holds whole pairs. */
		if (c->daemon.first_host != 0 || mrcd_config_cluster_hosts(c) != c->daemon.hosts)
			return BAD(x, "daemon", "first_host",
				"must be 0, and cluster_hosts 0 or hosts, with [ports] mode = "
				"loop: "
				"both ends of every link are in this process");
		if (c->daemon.hosts % 2 != 0)
			return BAD(x, "daemon", "hosts",
				"%u: mode = loop joins hosts in pairs (2k <-> 2k+1): an even "
				"number",
				c->daemon.hosts);
		/* With several workers per host the link is an emulated NIC pair, which
		 * shifts the micro-SIDs the switches would (drivers/nic/mrc_nic_loop.h). */
		if (c->transport.encap != MRCD_ENCAP_PLAIN && c->lcores.workers_per_host < 2)
			return BAD(x, "transport", "encap",
				"must be plain with [ports] mode = loop and one worker per host: "
				"no switch shifts SRv6 micro-SIDs between two hosts joined back to "
				"back");
		return 0;
	}
	if (c->ports.mode != MRCD_PORTS_FABRIC)
		return 0;
	if (c->daemon.first_host != 0)
		return BAD(x, "daemon", "first_host",
			"must be 0 with [ports] mode = fabric: the emulated fabric holds the whole "
			"cluster");
	if (mrcd_config_cluster_hosts(c) != c->daemon.hosts)
		return BAD(x, "daemon", "cluster_hosts",
			"must be 0 or hosts (%u) with [ports] mode = fabric: the emulated fabric "
			"holds the whole cluster",
			c->daemon.hosts);
	return 0;
}

/* The length of a --vdev argument's device name (up to the first ','). */
static size_t
vdev_name_len(const char *arg)
{
	return strcspn(arg, ",");
}

static int
check_port_names(const struct xc *x)
{
	const struct mrcd_config *c = x->cfg;
	const bool ethdev = c->ports.mode == MRCD_PORTS_ETHDEV;
	const unsigned int lo = c->daemon.first_host, hi = lo + c->daemon.hosts;
	char key[24], other[24];

	for (unsigned int h = 0; h < MRCD_CONFIG_MAX_HOSTS; h++)
		for (unsigned int p = 0; p < MRC_EV_MAX_PLANES; p++) {
			const char *name = c->ports.name[h][p];
			const bool local = h >= lo && h < hi && p < c->daemon.planes;

			snprintf(key, sizeof(key), "h%u.p%u", h, p);
			if (ethdev && local && name[0] == '\0')
				return BAD(x, "ports", NULL,
					"%s: missing: mode = ethdev needs a port for every host x "
					"plane of this process (h%u.p0 .. h%u.p%u)",
					key, lo, hi - 1, c->daemon.planes - 1u);
			if (name[0] == '\0')
				continue;
			if (!ethdev)
				return BAD(x, "ports", key, "only with mode = ethdev");
			if (h >= mrcd_config_cluster_hosts(c))
				return BAD(x, "ports", key,
					"host %u is not in the cluster (hosts 0..%u)", h,
					mrcd_config_cluster_hosts(c) - 1);
			/* Another process's port: one file may name the whole cluster's. */
			if (h < lo || h >= hi)
				continue;
			if (!local)
				return BAD(x, "ports", key, "plane %u: planes are 0..%u", p,
					c->daemon.planes - 1u);
			for (unsigned int g = lo; g <= h; g++)
				for (unsigned int q = 0; q < (g < h ? c->daemon.planes : p); q++)
					if (strcmp(c->ports.name[g][q], name) == 0) {
						snprintf(other, sizeof(other), "h%u.p%u", g, q);
						return BAD(x, "ports", key,
							"the same port as %s (line %u): "
							"every host x plane needs a port "
							"of its own",
							other,
							mrcd_ini_line(x->ini, "ports", other));
					}
		}
	for (unsigned int i = 0; i < MRCD_CONFIG_MAX_VDEVS; i++) {
		const char *v = c->ports.vdev[i];

		snprintf(key, sizeof(key), "vdev.%u", i);
		if (v[0] == '\0')
			continue;
		if (!ethdev)
			return BAD(x, "ports", key, "only with mode = ethdev");
		if (v[0] == '-' || vdev_name_len(v) == 0)
			return BAD(x, "ports", key, "must start with a device name (net_null0)");
		for (unsigned int j = 0; j < i; j++)
			if (vdev_name_len(c->ports.vdev[j]) == vdev_name_len(v) &&
				strncmp(c->ports.vdev[j], v, vdev_name_len(v)) == 0)
				return BAD(x, "ports", key, "device %.*s is created by vdev.%u too",
					(int)vdev_name_len(v), v, j);
	}
	return 0;
}

static int
check_ports(const struct xc *x)
{
	const struct mrcd_config *c = x->cfg;
	/* A NIC fills every rx queue's descriptors; ring ports (fabric, loop) hold none. */
	const unsigned int rx_queues =
		c->ports.mode == MRCD_PORTS_ETHDEV ? c->lcores.workers_per_host : 1;
	const uint64_t rx_min =
		(uint64_t)c->daemon.planes * rx_queues * (c->ports.rx_desc + c->ports.burst);
	const uint64_t tx_min =
		(uint64_t)c->daemon.planes * (c->ports.tx_desc + c->ports.burst) * MBUFS_PER_TX_PKT;
	int rc = check_port_names(x);

	if (rc != 0)
		return rc;
	if (c->ports.rx_pool_mbufs < rx_min)
		return BAD(x, "ports", "rx_pool_mbufs",
			"must be at least planes x rx queues x (rx_desc + burst) = %u x %u x "
			"(%u + %u) = %" PRIu64 ", or rx descriptors stay empty",
			c->daemon.planes, rx_queues, c->ports.rx_desc, c->ports.burst, rx_min);
	if (c->ports.tx_pool_mbufs < tx_min)
		return BAD(x, "ports", "tx_pool_mbufs",
			"must be at least planes x (tx_desc + burst) x %d = %u x (%u + %u) x %d = "
			"%" PRIu64 ", or full tx rings exhaust it",
			MBUFS_PER_TX_PKT, c->daemon.planes, c->ports.tx_desc, c->ports.burst,
			MBUFS_PER_TX_PKT, tx_min);
	if (c->ports.rx_mbuf_data_room < RTE_PKTMBUF_HEADROOM + TX_HDR_ROOM)
		return BAD(x, "ports", "rx_mbuf_data_room",
			"must be at least headroom + headers = %d + %d", RTE_PKTMBUF_HEADROOM,
			TX_HDR_ROOM);
	if (c->ports.tx_mbuf_data_room < RTE_PKTMBUF_HEADROOM + TX_HDR_ROOM)
		return BAD(x, "ports", "tx_mbuf_data_room",
			"must be at least headroom + headers = %d + %d", RTE_PKTMBUF_HEADROOM,
			TX_HDR_ROOM);
	return 0;
}

static int
check_hosts(const struct xc *x)
{
	const struct mrcd_config *c = x->cfg;
	const unsigned int cluster = mrcd_config_cluster_hosts(c);
	const unsigned int per = RTE_MAX(c->fabric.hosts_per_t0, 1);
	char sec[16], key[24];

	if (c->ports.tap && (c->ports.mode != MRCD_PORTS_ETHDEV || !c->ports.neighbour_discovery))
		return BAD(x, "ports", "tap",
			"a tap needs [ports] mode = ethdev and neighbour_discovery = true");
	for (unsigned int n = 0; n < MRCD_CONFIG_MAX_HOSTS; n++) {
		const struct mrcd_config_host *h = &c->host[n];

		snprintf(sec, sizeof(sec), "host.%u", n);
		if (n >= cluster) {
			if (mrcd_ini_has(x->ini, sec, NULL))
				return BAD(x, sec, NULL,
					"no such host: the cluster has %u (hosts 0..%u)", cluster,
					cluster - 1);
			continue;
		}
		for (unsigned int p = c->daemon.planes; p < MRC_EV_MAX_PLANES; p++) {
			snprintf(key, sizeof(key), "mac.p%u", p);
			if (!mrcd_ini_has(x->ini, sec, key))
				snprintf(key, sizeof(key), "peer_mac.p%u", p);
			if (!mrcd_ini_has(x->ini, sec, key))
				snprintf(key, sizeof(key), "next_hop.p%u", p);
			if (mrcd_ini_has(x->ini, sec, key))
				return BAD(x, sec, key, "plane %u: planes are 0..%u", p,
					c->daemon.planes - 1u);
		}
		for (unsigned int p = 0; p < c->daemon.planes; p++) {
			static const uint8_t none[16];

			if (memcmp(h->next_hop[p], none, sizeof(none)) == 0)
				continue;
			snprintf(key, sizeof(key), "next_hop.p%u", p);
			if (c->ports.mode == MRCD_PORTS_FABRIC)
				return BAD(x, sec, key,
					"a next hop is resolved on ethdev and loop ports only "
					"([ports] mode = ethdev or loop)");
			if (!c->ports.neighbour_discovery)
				return BAD(x, sec, key,
					"resolving it needs [ports] neighbour_discovery = true");
			if (h->next_hop[p][0] == 0xff)
				return BAD(x, sec, key, "a multicast address");
		}
		if (c->ports.mode == MRCD_PORTS_FABRIC && h->t0 != n / per)
			return BAD(x, sec, "t0",
				"the emulated fabric attaches host %u to T0 %u (n / hosts_per_t0)",
				n, n / per);
		for (unsigned int m = 0; m < n; m++) {
			if (memcmp(c->host[m].nic_addr, h->nic_addr, sizeof(h->nic_addr)) == 0)
				return BAD(x, sec, "nic_addr", "the same as host %u's", m);
			if (memcmp(c->host[m].locator, h->locator, sizeof(h->locator)) == 0)
				return BAD(x, sec, "locator", "the same as host %u's", m);
		}
	}
	return 0;
}

static int
check_dscp(const struct xc *x, const struct mrc_wire_cfg *w)
{
	const struct mrc_dscp_map *d = &w->dscp;
	const struct {
		const char *key;
		uint8_t v;
	} senders[] = {
		{"dscp_no_trim", d->no_trim},
		{"dscp_trimmable", d->trimmable},
		{"dscp_trimmable_retx", d->trimmable_retx},
		{"dscp_control", d->control},
	};
	const char *why = NULL;

	if (d->trimmed == d->trimmed_lasthop)
		return BAD(x, "transport", "dscp_trimmed_lasthop", "must differ from dscp_trimmed");
	for (unsigned int i = 0; i < RTE_DIM(senders); i++) {
		if (senders[i].v == d->trimmed)
			return BAD(x, "transport", "dscp_trimmed",
				"must differ from %s (%u): receivers tell a trimmed packet by its "
				"DSCP alone",
				senders[i].key, senders[i].v);
		if (senders[i].v == d->trimmed_lasthop)
			return BAD(x, "transport", "dscp_trimmed_lasthop",
				"must differ from %s (%u): receivers tell a trimmed packet by its "
				"DSCP alone",
				senders[i].key, senders[i].v);
	}
	if (mrc_wire_cfg_check(w, &why) != 0)
		return BAD(x, "transport", NULL, "%s", why);
	return 0;
}

static int
check_transport(const struct xc *x)
{
	const struct mrcd_config *c = x->cfg;
	const unsigned int planes = c->daemon.planes;
	const uint16_t act = c->transport.ev_active, bak = c->transport.ev_backup;
	struct mrc_wire_cfg w;
	struct mrc_qp_attr a;
	const char *why = NULL;
	int rc;

	/* Blame the key the file set: a new planes with default EV counts is about planes. */
	if (act % planes != 0 && !mrcd_ini_has(x->ini, "transport", "ev_active") &&
		mrcd_ini_has(x->ini, "daemon", "planes"))
		return BAD(x, "daemon", "planes",
			"[transport] ev_active (%u, the default) must be a multiple of planes: "
			"every plane gets as many EVs",
			act);
	if (act % planes != 0)
		return BAD(x, "transport", "ev_active",
			"must be a multiple of [daemon] planes (%u): every plane gets as many",
			planes);
	if (bak % planes != 0 && !mrcd_ini_has(x->ini, "transport", "ev_backup") &&
		mrcd_ini_has(x->ini, "daemon", "planes"))
		return BAD(x, "daemon", "planes",
			"[transport] ev_backup (%u, the default) must be a multiple of planes: "
			"every plane gets as many EVs",
			bak);
	if (bak % planes != 0)
		return BAD(x, "transport", "ev_backup",
			"must be a multiple of [daemon] planes (%u): every plane gets as many",
			planes);
	if ((unsigned int)act + bak > MRC_EV_MAX_EVS)
		return BAD(x, "transport", "ev_backup",
			"ev_active + ev_backup (%u) must be at most %d", act + bak, MRC_EV_MAX_EVS);
	if (c->transport.ev_min_active > act)
		return BAD(x, "transport", "ev_min_active",
			"must be at most ev_active (%u), or 0 for ev_active / 4", act);
	if (c->transport.reliability == MRC_QP_REL_GBN && c->transport.paths != MRC_QP_PATHS_ECMP)
		return BAD(x, "transport", "reliability",
			"gbn needs paths = ecmp: go-back-N takes every packet a sprayed QP "
			"reorders for a loss");
	mrcd_config_wire(c, &w);
	rc = check_dscp(x, &w);
	if (rc != 0)
		return rc;
	/* The libraries' own rules, on what the daemon will hand them. */
	if (mrcd_config_qp_attr(c, MRCD_CONFIG_CHECK_TSC_HZ, &a) != 0) {
		if (mrc_ev_cfg_check(&a.ev, &why) != 0)
			return BAD(x, "transport", NULL, "EV pool: %s", why);
		if (mrc_cc_params_check(&a.cc, &why) != 0)
			return BAD(x, "cc", NULL, "%s", why);
		return BAD(x, "transport", NULL, "the QP library rejects these attributes");
	}
	return 0;
}

static int
check_fabric(const struct xc *x)
{
	const struct mrcd_config *c = x->cfg;
	struct mrc_fabric_cfg f;
	const char *why = NULL;

	if (c->fabric.ecn_kmax_kb != 0 && c->fabric.ecn_kmin_kb > c->fabric.ecn_kmax_kb)
		return BAD(x, "fabric", "ecn_kmin_kb", "must be at most ecn_kmax_kb (%u)",
			c->fabric.ecn_kmax_kb);
	if (c->ports.mode != MRCD_PORTS_FABRIC)
		return 0;
	if (c->fabric.hosts_per_t0 > c->daemon.hosts)
		return BAD(x, "fabric", "hosts_per_t0", "must be at most [daemon] hosts (%u)",
			c->daemon.hosts);
	if (mrcd_config_fabric(c, MRCD_CONFIG_CHECK_TSC_HZ, &f) != 0) {
		mrc_fabric_cfg_check(&f, &why);
		return BAD(x, "fabric", NULL, "%s", why);
	}
	return 0;
}

static int
check_interval(const struct xc *x, const char *key, uint32_t ms)
{
	const uint32_t snap = x->cfg->lcores.stats_interval_ms;

	if (ms >= snap)
		return 0;
	/* Blame the key the file set. */
	if (!mrcd_ini_has(x->ini, "telemetry", key) &&
		mrcd_ini_has(x->ini, "lcores", "stats_interval_ms"))
		return BAD(x, "lcores", "stats_interval_ms",
			"must be at most [telemetry] %s (%u): samples come from the workers' "
			"snapshots",
			key, ms);
	return BAD(x, "telemetry", key,
		"must be at least [lcores] stats_interval_ms (%u): samples come from the workers' "
		"snapshots",
		snap);
}

static int
check_telemetry(const struct xc *x)
{
	const struct mrcd_config *c = x->cfg;
	int rc = check_interval(x, "timeseries_interval_ms", c->telemetry.timeseries_interval_ms);

	/* The console prints a line a second, from the snapshots too. */
	if (rc == 0 && c->telemetry.console && c->lcores.stats_interval_ms > 1000)
		return BAD(x, "lcores", "stats_interval_ms",
			"must be at most 1000 with [telemetry] console = true: the console line "
			"comes from the workers' snapshots every second");
	if (rc == 0)
		rc = check_interval(
			x, "prometheus_interval_ms", c->telemetry.prometheus_interval_ms);
	return rc;
}

int
mrcd_config_cross_check(
	const struct mrcd_config *cfg, const struct mrcd_ini *ini, char *err, size_t errlen)
{
	const struct xc x = {
		.cfg = cfg,
		.ini = ini,
		.origin = cfg->path[0] != '\0' ? cfg->path : "(built-in defaults)",
		.err = err,
		.errlen = errlen,
	};
	int rc;

	rc = check_daemon(&x);
	if (rc == 0)
		rc = check_ports(&x);
	if (rc == 0)
		rc = check_hosts(&x);
	if (rc == 0)
		rc = check_transport(&x);
	if (rc == 0)
		rc = check_fabric(&x);
	if (rc == 0)
		rc = check_telemetry(&x);
	if (rc == 0)
		rc = mrcd_config_profiles_check(cfg, ini, x.origin, err, errlen);
	return rc;
}
