/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: the main thread of mrcd and of mrc-fabric, before the EAL starts
 * (and by the unit tests).
 *
 * Loading the configuration: defaults from the key table, the file over
 * them (mrcd_ini), the command line's --set values over the file's, the
 * [host.<n>] values derived from the host number where neither sets them,
 * then the cross-checks (mrcd_config_check.c). Work is
 * done on a heap copy so a failed load leaves the caller's struct alone.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>

#include "mrcd_config_priv.h"
#include "mrcd_launch.h"

unsigned int
mrcd_config_cluster_hosts(const struct mrcd_config *cfg)
{
	if (cfg->daemon.cluster_hosts != 0)
		return cfg->daemon.cluster_hosts;
	return RTE_MIN((unsigned int)cfg->daemon.first_host + cfg->daemon.hosts,
		(unsigned int)MRCD_CONFIG_MAX_HOSTS);
}

unsigned int
mrcd_config_n_t0(const struct mrcd_config *cfg)
{
	const unsigned int per = RTE_MAX(cfg->fabric.hosts_per_t0, 1);

	return (mrcd_config_cluster_hosts(cfg) + per - 1) / per;
}

/*
 * Defaults that depend on the host number (and on hosts_per_t0 and the
 * block, so they are computed after the file is read):
 *   nic_addr      fd00::<n+1>            (what the fabric library assumes)
 *   locator       <block>:<0xe000 + n+1>:: (host 0: fcbb:0:e001::)
 *   t0            n / hosts_per_t0        (how the fabric wires hosts)
 *   mac.p<p>      02:6d:72:00:<n>:<p>     (locally administered; "mr")
 *   peer_mac.p<p> 02:6d:72:ff:<t0>:<p>    (a stand-in for the T0 switch port)
 */
void
mrcd_config_derive(struct mrcd_config *cfg, const struct mrcd_ini *ini)
{
	const unsigned int per = RTE_MAX(cfg->fabric.hosts_per_t0, 1);

	for (unsigned int n = 0; n < MRCD_CONFIG_MAX_HOSTS; n++) {
		struct mrcd_config_host *h = &cfg->host[n];
		const unsigned int id = n + 1;
		char sec[16], key[16];

		snprintf(sec, sizeof(sec), "host.%u", n);
		if (!mrcd_ini_has(ini, sec, "nic_addr")) {
			memset(h->nic_addr, 0, sizeof(h->nic_addr));
			h->nic_addr[0] = 0xfd;
			h->nic_addr[14] = (uint8_t)(id >> 8);
			h->nic_addr[15] = (uint8_t)id;
		}
		if (!mrcd_ini_has(ini, sec, "locator")) {
			memset(h->locator, 0, sizeof(h->locator));
			h->locator[0] = (uint8_t)(cfg->fabric.block >> 24);
			h->locator[1] = (uint8_t)(cfg->fabric.block >> 16);
			h->locator[2] = (uint8_t)(cfg->fabric.block >> 8);
			h->locator[3] = (uint8_t)cfg->fabric.block;
			h->locator[4] = (uint8_t)((0xe000 + id) >> 8);
			h->locator[5] = (uint8_t)(0xe000 + id);
		}
		if (!mrcd_ini_has(ini, sec, "t0"))
			h->t0 = (uint16_t)(n / per);
		for (unsigned int p = 0; p < MRC_EV_MAX_PLANES; p++) {
			snprintf(key, sizeof(key), "mac.p%u", p);
			if (!mrcd_ini_has(ini, sec, key))
				h->mac[p] = (struct rte_ether_addr){
					{0x02, 0x6d, 0x72, 0x00, (uint8_t)n, (uint8_t)p}};
			snprintf(key, sizeof(key), "peer_mac.p%u", p);
			if (!mrcd_ini_has(ini, sec, key))
				h->peer_mac[p] = (struct rte_ether_addr){
					{0x02, 0x6d, 0x72, 0xff, (uint8_t)h->t0, (uint8_t)p}};
		}
	}
	mrcd_config_profiles_derive(cfg, ini);
}

void
mrcd_config_defaults(struct mrcd_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	mrcd_ini_defaults(&mrcd_config_schema, cfg);
	mrcd_config_derive(cfg, NULL);
}

int
mrcd_config_check(const struct mrcd_config *cfg, char *err, size_t errlen)
{
	return mrcd_config_cross_check(cfg, NULL, err, errlen);
}

int
mrcd_config_load(struct mrcd_config *cfg, const char *path, char *err, size_t errlen)
{
	return mrcd_config_load_set(cfg, path, NULL, 0, err, errlen);
}

int
mrcd_config_load_set(struct mrcd_config *cfg, const char *path, const char *const *sets,
	unsigned int n_sets, char *err, size_t errlen)
{
	return mrcd_config_load_launch(cfg, path, sets, n_sets, NULL, err, errlen);
}

/*
 * A launcher's node index and count, for the keys the file and --set leave
 * out: one host per node unless `hosts` is named, node i runs hosts i x
 * hosts .. and the cluster is count x hosts.
 */
static int
apply_launch(struct mrcd_config *c, const struct mrcd_ini *ini, const struct mrcd_launch *l,
	char *err, size_t errlen)
{
	const bool first = mrcd_ini_has(ini, "daemon", "first_host");
	const bool cluster = mrcd_ini_has(ini, "daemon", "cluster_hosts");

	if (first && cluster)
		return 0; /* the config names both: it wins */
	if (!mrcd_ini_has(ini, "daemon", "hosts"))
		c->daemon.hosts = 1;
	if ((uint64_t)l->count * c->daemon.hosts > MRCD_CONFIG_MAX_HOSTS) {
		snprintf(err, errlen,
			"%s: %u nodes x [daemon] hosts = %u makes more than %u hosts in the "
			"cluster",
			l->who, l->count, c->daemon.hosts, (unsigned int)MRCD_CONFIG_MAX_HOSTS);
		return -EINVAL;
	}
	if (!first)
		c->daemon.first_host = (uint16_t)(l->index * c->daemon.hosts);
	if (!cluster)
		c->daemon.cluster_hosts = (uint16_t)(l->count * c->daemon.hosts);
	return 0;
}

int
mrcd_config_load_launch(struct mrcd_config *cfg, const char *path, const char *const *sets,
	unsigned int n_sets, const struct mrcd_launch *launch, char *err, size_t errlen)
{
	struct mrcd_config *tmp;
	struct mrcd_ini *ini = NULL;
	char why[200];
	int rc;

	/* A broken table is a bug, but say so rather than misparse. */
	if (mrcd_ini_schema_check(&mrcd_config_schema, why, sizeof(why)) != 0) {
		snprintf(err, errlen, "internal: mrcd's key table: %s", why);
		return -EINVAL;
	}
	if (path == NULL || path[0] == '\0') {
		snprintf(err, errlen, "no configuration file named");
		return -EINVAL;
	}
	if (strlen(path) >= sizeof(cfg->path)) {
		snprintf(err, errlen, "%.64s...: path longer than %zu characters", path,
			sizeof(cfg->path) - 1);
		return -EINVAL;
	}
	tmp = malloc(sizeof(*tmp));
	if (tmp == NULL) {
		snprintf(err, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	rc = mrcd_ini_open(path, &ini, err, errlen);
	if (rc != 0)
		goto out;
	/* Over the file's values, before anything is derived or checked. */
	for (unsigned int i = 0; i < n_sets && rc == 0; i++)
		rc = mrcd_ini_set(ini, &mrcd_config_schema, sets[i], err, errlen);
	if (rc != 0)
		goto out;
	memset(tmp, 0, sizeof(*tmp));
	mrcd_ini_defaults(&mrcd_config_schema, tmp);
	snprintf(tmp->path, sizeof(tmp->path), "%s", path);
	rc = mrcd_ini_apply(ini, &mrcd_config_schema, tmp, err, errlen);
	if (rc == 0 && launch != NULL && launch->valid)
		rc = apply_launch(tmp, ini, launch, err, errlen);
	if (rc != 0)
		goto out;
	mrcd_config_derive(tmp, ini);
	rc = mrcd_config_cross_check(tmp, ini, err, errlen);
	if (rc == 0)
		memcpy(cfg, tmp, sizeof(*cfg));
out:
	mrcd_ini_close(ini);
	free(tmp);
	return rc;
}

void
mrcd_config_print(FILE *f, const struct mrcd_config *cfg)
{
	fprintf(f, "; mrcd effective configuration (mrcd --check prints it; it loads as it is)\n");
	fprintf(f, "; from: %s\n", cfg->path[0] != '\0' ? cfg->path : "the built-in defaults");
	fprintf(f, "; Comments start with ';'. Each key: default, unit, what it does.\n");
	mrcd_ini_print(f, &mrcd_config_schema, cfg);
}

int
mrcd_config_diff(
	const struct mrcd_config *a, const struct mrcd_config *b, char *diff, size_t difflen)
{
	/* A profile section the one file has and the other not differs even at equal values. */
	for (unsigned int k = 0; k < MRCD_PROFILE_KINDS; k++)
		for (unsigned int n = 1; n < MRCD_PROFILE_MAX; n++)
			if (a->profile[k][n].defined != b->profile[k][n].defined) {
				snprintf(diff, difflen, "[%s_profile.%u]: %s != %s",
					mrcd_profile_kind_name(k), n,
					a->profile[k][n].defined ? "defined" : "absent",
					b->profile[k][n].defined ? "defined" : "absent");
				return 1;
			}
	return mrcd_ini_diff(&mrcd_config_schema, a, b, diff, difflen);
}

int
mrcd_config_resolve(const struct mrcd_config *cfg, const char *rel, char *buf, size_t len)
{
	const char *slash = strrchr(cfg->path, '/');

	if (strcmp(rel, "none") == 0)
		return snprintf(buf, len, "%s", "");
	if (rel[0] == '/' || slash == NULL)
		return snprintf(buf, len, "%s", rel);
	return snprintf(buf, len, "%.*s/%s", (int)(slash - cfg->path), cfg->path, rel);
}

/*
 * Pools dominate: each mbuf costs its data room plus the mbuf header and the
 * mempool's object header (about 192 bytes); queue memory, QPs, the fabric's
 * event heap and the generator's buffers are covered by a fixed margin.
 */
unsigned int
mrcd_config_memory_mb(const struct mrcd_config *cfg)
{
	const uint64_t per_mbuf = sizeof(struct rte_mbuf) + 64;
	const struct mrcd_config *c = cfg;
	uint64_t bytes = 0;

	bytes += (uint64_t)c->ports.rx_pool_mbufs * (c->ports.rx_mbuf_data_room + per_mbuf);
	bytes += (uint64_t)c->ports.tx_pool_mbufs * (c->ports.tx_mbuf_data_room + per_mbuf);
	bytes *= c->daemon.hosts;
	if (c->ports.mode == MRCD_PORTS_LOOP)
		bytes += (uint64_t)c->daemon.hosts * c->daemon.planes * c->ports.rx_desc * 8;
	if (c->ports.mode == MRCD_PORTS_FABRIC)
		bytes += (uint64_t)c->fabric.max_in_flight * 64 +
			 (uint64_t)c->daemon.hosts * c->daemon.planes * c->fabric.ring_size * 16;
	bytes += UINT64_C(256) << 20;
	/* Whole 64 MiB steps. */
	return (unsigned int)(((bytes >> 20) + 63) / 64 * 64);
}
