/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * mrc-nic-probe: what the ports offer mrcd, as an offload matrix
 * (doc/offload.md, "What your ports offer").
 *
 *   mrc-nic-probe [EAL options] [-- --json FILE]
 *
 * Every port the EAL finds is configured with two rx and tx queues (one
 * where it has one), started, and asked, by creating each rule and
 * destroying it again: the steering rule (doc/steering.md) and the egress
 * encap rule (doc/offload.md). It also says what the port declares: UDP
 * checksum on tx, tx descriptor status, RSS on what mrcd hashes. Nothing is
 * sent. Exit 0 when every port was asked, 1 when a port could not be set up
 * or there is none, 2 on bad options.
 */

#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "mrc_encap.h"
#include "mrc_ev_path.h"
#include "mrc_flow.h"
#include "mrc_steer.h"
#include "mrc_wire.h"

/* The addressing plan's example block (lib/ev/mrc_ev_path.h): only the rule's bytes. */
#define PROBE_BLOCK 0xfcbb0000u

struct verdict {
	bool ok;
	char why[256];
};

struct port_probe {
	uint16_t port;
	char name[RTE_ETH_NAME_MAX_LEN];
	char driver[64];
	uint16_t queues;
	struct verdict steer, encap;
	bool encap_unverified; /* the driver documents it; nobody has run it on the NIC */
	bool udp_cksum_tx, outer_udp_cksum_tx, tx_desc_status;
	uint64_t rss;
};

static void
say(struct verdict *v, int rc, const char *msg)
{
	v->ok = rc == 0;
	snprintf(v->why, sizeof(v->why), "%s", rc == 0 ? "" : msg);
}

/* The encap header of a packet from plane 0 to host 1, worker 1 (any will do). */
static size_t
sample_encap(uint8_t *hdr, size_t size)
{
	struct mrc_wire_cfg w;
	struct mrc_pkt p;

	mrc_wire_cfg_defaults(&w);
	memset(&p, 0, sizeof(p));
	p.flags = MRC_PKT_F_SRV6;
	p.ip.hop_limit = 64;
	p.ip.src[0] = 0xfd;
	p.ip.dst[0] = 0xfd;
	p.outer = p.ip;
	if (mrc_ev_worker_addr(PROBE_BLOCK, 0, 1, 1, p.outer.dst) != 0)
		return 0;
	p.outer.dscp = w.dscp.trimmable;
	return mrc_pkt_encap_hdr(&p, &w, hdr, size);
}

static int
probe_port(uint16_t port, struct rte_mempool *pool, struct port_probe *pp)
{
	struct rte_eth_conf conf;
	struct rte_eth_dev_info info;
	struct mrc_flow_err err;
	uint8_t addr[16], hdr[MRC_ENCAP_MAX_LEN];
	size_t hdr_len;
	int rc;

	memset(pp, 0, sizeof(*pp));
	memset(&conf, 0, sizeof(conf));
	pp->port = port;
	rc = rte_eth_dev_info_get(port, &info);
	if (rc != 0)
		return rc;
	(void)rte_eth_dev_get_name_by_port(port, pp->name);
	snprintf(pp->driver, sizeof(pp->driver), "%s", info.driver_name);
	pp->queues = RTE_MIN(info.max_rx_queues, info.max_tx_queues);
	if (pp->queues > 2)
		pp->queues = 2;
	if (pp->queues == 0)
		return -ENOTSUP;
	rc = rte_eth_dev_configure(port, pp->queues, pp->queues, &conf);
	for (uint16_t q = 0; rc == 0 && q < pp->queues; q++) {
		rc = rte_eth_rx_queue_setup(port, q, 0, rte_eth_dev_socket_id(port), NULL, pool);
		if (rc == 0)
			rc = rte_eth_tx_queue_setup(port, q, 0, rte_eth_dev_socket_id(port), NULL);
	}
	if (rc == 0)
		rc = rte_eth_dev_start(port);
	if (rc != 0) {
		fprintf(stderr, "mrc-nic-probe: port %u %s (%s): not set up: %s\n", port, pp->name,
			pp->driver, rte_strerror(-rc));
		return rc;
	}
	pp->udp_cksum_tx = (info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_UDP_CKSUM) != 0;
	pp->outer_udp_cksum_tx = (info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_OUTER_UDP_CKSUM) != 0;
	pp->tx_desc_status = rte_eth_tx_descriptor_status(port, 0, 0) >= 0;
	pp->rss = info.flow_type_rss_offloads;

	(void)mrc_ev_worker_addr(PROBE_BLOCK, 0, 1, (uint8_t)(pp->queues - 1), addr);
	rc = mrc_steer_probe(&mrc_flow_ops_real, port, addr, (uint16_t)(pp->queues - 1), &err);
	say(&pp->steer, rc, err.msg);
	hdr_len = sample_encap(hdr, sizeof(hdr));
	rc = mrc_encap_probe(&mrc_flow_ops_real, port, 1, hdr, hdr_len, &err);
	say(&pp->encap, rc, err.msg);
	/* DPDK 22.11 documents egress META + RAW_ENCAP for mlx5 only; unproven here. */
	pp->encap_unverified = strstr(pp->driver, "mlx5") != NULL;

	(void)rte_eth_dev_stop(port);
	return 0;
}

static const char *
yes(bool b)
{
	return b ? "yes" : "no";
}

static void
print_table(const struct port_probe *pp, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		const struct port_probe *p = &pp[i];

		printf("port %u %s (%s), %u queue%s\n", p->port, p->name, p->driver, p->queues,
			p->queues == 1 ? "" : "s");
		printf("  %-22s %-4s %s\n", "steering (rte_flow)", yes(p->steer.ok), p->steer.why);
		printf("  %-22s %-4s %s%s\n", "SRv6 encap (egress)", yes(p->encap.ok), p->encap.why,
			p->encap_unverified ? " (mlx5: unverified on hardware)" : "");
		printf("  %-22s %-4s %s\n", "UDP checksum tx", yes(p->udp_cksum_tx),
			p->outer_udp_cksum_tx ? "outer UDP checksum too" : "");
		printf("  %-22s %-4s %s\n", "tx descriptor status", yes(p->tx_desc_status),
			p->tx_desc_status ? "tx room from the NIC"
					  : "tx room from mrcd's staging only");
		printf("  %-22s %-4s ipv6 %s, ipv6-udp %s, udp dst only %s, innermost %s\n", "RSS",
			yes((p->rss & (RTE_ETH_RSS_IPV6 | RTE_ETH_RSS_NONFRAG_IPV6_UDP)) != 0),
			yes(p->rss & RTE_ETH_RSS_IPV6), yes(p->rss & RTE_ETH_RSS_NONFRAG_IPV6_UDP),
			yes(p->rss & RTE_ETH_RSS_L4_DST_ONLY),
			yes(p->rss & RTE_ETH_RSS_LEVEL_INNERMOST));
	}
}

static void
json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s != '\0'; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", (unsigned char)*s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static int
write_json(const char *path, const struct port_probe *pp, unsigned int n)
{
	FILE *f = fopen(path, "w");

	if (f == NULL) {
		fprintf(stderr, "mrc-nic-probe: %s: %s\n", path, strerror(errno));
		return -1;
	}
	fprintf(f, "{\"ports\": [");
	for (unsigned int i = 0; i < n; i++) {
		const struct port_probe *p = &pp[i];

		fprintf(f, "%s{\"port\": %u, \"name\": ", i ? ", " : "", p->port);
		json_str(f, p->name);
		fprintf(f, ", \"driver\": ");
		json_str(f, p->driver);
		fprintf(f, ", \"queues\": %u, \"steering\": %s, \"steering_why\": ", p->queues,
			p->steer.ok ? "true" : "false");
		json_str(f, p->steer.why);
		fprintf(f, ", \"encap\": %s, \"encap_why\": ", p->encap.ok ? "true" : "false");
		json_str(f, p->encap.why);
		fprintf(f,
			", \"encap_unverified\": %s, \"udp_cksum_tx\": %s, "
			"\"outer_udp_cksum_tx\": %s, \"tx_desc_status\": %s, \"rss_ipv6\": %s, "
			"\"rss_ipv6_udp\": %s, \"rss_l4_dst_only\": %s, \"rss_innermost\": %s}",
			p->encap_unverified ? "true" : "false", p->udp_cksum_tx ? "true" : "false",
			p->outer_udp_cksum_tx ? "true" : "false",
			p->tx_desc_status ? "true" : "false",
			(p->rss & RTE_ETH_RSS_IPV6) ? "true" : "false",
			(p->rss & RTE_ETH_RSS_NONFRAG_IPV6_UDP) ? "true" : "false",
			(p->rss & RTE_ETH_RSS_L4_DST_ONLY) ? "true" : "false",
			(p->rss & RTE_ETH_RSS_LEVEL_INNERMOST) ? "true" : "false");
	}
	fprintf(f, "]}\n");
	return fclose(f) == 0 ? 0 : -1;
}

int
main(int argc, char **argv)
{
	static struct port_probe pp[RTE_MAX_ETHPORTS];
	static const struct option opts[] = {{"json", required_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
	const char *json = NULL;
	struct rte_mempool *pool;
	unsigned int n = 0, failed = 0;
	uint16_t port;
	int rc, c;

	rc = rte_eal_init(argc, argv);
	if (rc < 0) {
		fprintf(stderr, "mrc-nic-probe: EAL: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	argc -= rc;
	argv += rc;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c == 'j') {
			json = optarg;
		} else {
			fprintf(stderr, "usage: mrc-nic-probe [EAL options] [-- --json FILE]\n");
			return c == 'h' ? 0 : 2;
		}
	}
	pool = rte_pktmbuf_pool_create(
		"nic_probe", 2047, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, (int)rte_socket_id());
	if (pool == NULL) {
		fprintf(stderr, "mrc-nic-probe: no mbuf pool: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	RTE_ETH_FOREACH_DEV (port) {
		if (probe_port(port, pool, &pp[n]) == 0)
			n++;
		else
			failed++;
		(void)rte_eth_dev_close(port);
	}
	if (n + failed == 0)
		fprintf(stderr, "mrc-nic-probe: no ports (allow a NIC with -a, or add a --vdev)\n");
	print_table(pp, n);
	if (json != NULL && write_json(json, pp, n) != 0)
		return 1;
	(void)rte_eal_cleanup();
	return n > 0 && failed == 0 ? 0 : 1;
}
