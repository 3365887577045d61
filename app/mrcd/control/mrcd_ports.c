/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: the main lcore, at setup and teardown; mrcd_ports_drops() for
 * the summary, after the workers stopped.
 *
 * [ports] mode = ethdev: one DPDK port per host per plane, found by the
 * name the config gives it (a PCI address or a --vdev name), probed for
 * what it offers, configured with a tx queue per worker of its host and as
 * many rx queues (fewer if the port has fewer), started, and
 * stopped and closed at exit so every mbuf its rings hold goes back to the
 * host's pools before the leak check.
 *
 * What we need from a port, and why:
 *   - tx MULTI_SEGS: a data packet leaves as a header mbuf, the payload
 *     attached from registered memory (never copied) and an ICRC trailer.
 *     Without it the PMD would send only the first segment; we refuse.
 *   - rx SCATTER when a frame (MTU payload + headers) exceeds one rx mbuf;
 *     otherwise such frames would be dropped by the port, which we refuse
 *     to start with rather than lose data silently.
 * Checksums: the UDP checksum over IPv6 is computed in software by the
 * codec today; a port's IPv6 UDP checksum offload is reported, so the
 * choice is visible, and left for the offload path to use.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>

#include "mrcd_daemon.h"
#include "mrcd_log.h"
#include "mrcd_control.h"
#include "mrcd_ports_close.h"

/* Ethernet + outer IPv6 + SRH (2 containers) + inner IPv6 + UDP + BTH and
 * the largest MRC extension headers + ICRC: comfortably above the real sum. */
#define MRCD_FRAME_OVERHEAD 256

static void
list_ports(char *out, size_t len)
{
	uint16_t pid;
	size_t o = 0;

	out[0] = '\0';
	RTE_ETH_FOREACH_DEV (pid) {
		char name[RTE_ETH_NAME_MAX_LEN];

		if (rte_eth_dev_get_name_by_port(pid, name) != 0 || o >= len)
			continue;
		o += (size_t)snprintf(out + o, len - o, "%s%s", o ? ", " : "", name);
	}
	if (o == 0)
		snprintf(
			out, len, "none: name them with --vdev or [ports] vdev.<n>, or bind a NIC");
}

#define RSS_UDP (RTE_ETH_RSS_NONFRAG_IPV6_UDP | RTE_ETH_RSS_IPV6_UDP_EX)

/*
 * Packets that no flow rule steers (software steering, and the packets to
 * QPN 2 under flow steering) should spread over a port's rx queues, so that
 * every worker reads and checks a share and passes on only what another
 * owns. RSS spreads them by host pair: the IPv6 addresses and the UDP
 * destination port, never the source port, which carries the EV: spread by
 * EV, a QP's packets would reach its owner by two routes (its own queue,
 * and another worker's dispatch) and arrive reordered, which the sender's
 * time-based loss rule takes for losses. A port that can only hash UDP
 * with both ports gets no RSS. At the innermost level where the port
 * offers it, to look past the SRv6 outer header (whose addresses are the
 * same for every packet of a host pair). Returns what the start-up line
 * says (doc/steering.md, "Default queue: RSS").
 */
static const char *
rss_setup(struct rte_eth_conf *conf, const struct rte_eth_dev_info *info, uint16_t n_rxq)
{
	const uint64_t offers = info->flow_type_rss_offloads;
	uint64_t hf = 0;

	if (n_rxq < 2)
		return "RSS off (one rx queue)";
	if ((offers & RSS_UDP) != 0 && (offers & RTE_ETH_RSS_L4_DST_ONLY) != 0)
		hf = (offers & (RSS_UDP | RTE_ETH_RSS_IPV6)) | RTE_ETH_RSS_L4_DST_ONLY;
	else if ((offers & RTE_ETH_RSS_IPV6) != 0 && (offers & RSS_UDP) == 0)
		hf = RTE_ETH_RSS_IPV6;
	if (hf == 0)
		return (offers & RSS_UDP) != 0
			       ? "RSS off (the port hashes UDP only with its source port, the EV, "
				 "which would reorder a QP's packets)"
			       : "RSS off (the port hashes no IPv6: packets land where the driver "
				 "puts them)";
	conf->rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
	conf->rx_adv_conf.rss_conf.rss_key = NULL; /* the driver's default key */
	conf->rx_adv_conf.rss_conf.rss_hf = hf;
	if ((offers & RTE_ETH_RSS_LEVEL_MASK) >= RTE_ETH_RSS_LEVEL_INNERMOST) {
		conf->rx_adv_conf.rss_conf.rss_hf |= RTE_ETH_RSS_LEVEL_INNERMOST;
		return "RSS on (innermost IPv6 addresses, UDP destination port)";
	}
	return "RSS on (outer IPv6 addresses, UDP destination port: in SRv6 mode one queue per "
	       "host pair and plane)";
}

/*
 * NIC tx room ([architecture.md], "NIC transmit room"): a plane takes packets
 * while its port's tx ring holds less than 2.56 us of the port's speed (its
 * fastest in speed_capa; 100 Gb/s when it names none), at least two frames,
 * as on the emulated fabric; three descriptors a frame (header, payload,
 * ICRC trailer). Asked of the NIC where it reports its descriptors
 * (lib/host/mrc_shard.h); elsewhere the staging bound alone applies.
 */
static uint16_t
tx_room_desc(const struct rte_eth_dev_info *info, uint32_t frame_bytes, uint16_t ring)
{
	static const struct {
		uint32_t capa, gbps;
	} speeds[] = {{RTE_ETH_LINK_SPEED_200G, 200}, {RTE_ETH_LINK_SPEED_100G, 100},
		{RTE_ETH_LINK_SPEED_56G, 56}, {RTE_ETH_LINK_SPEED_50G, 50},
		{RTE_ETH_LINK_SPEED_40G, 40}, {RTE_ETH_LINK_SPEED_25G, 25},
		{RTE_ETH_LINK_SPEED_20G, 20}, {RTE_ETH_LINK_SPEED_10G, 10}};
	uint32_t gbps = 100, frames;

	for (unsigned int i = 0; i < RTE_DIM(speeds); i++)
		if (info->speed_capa & speeds[i].capa) {
			gbps = speeds[i].gbps;
			break;
		}
	frames = RTE_MAX(2560u * gbps / 8 / frame_bytes, 2u);
	return (uint16_t)RTE_MIN(3 * frames, ring / 2u);
}

static int
open_port(struct mrcd_daemon *d, unsigned int h, unsigned int p, const char *name)
{
	const struct mrcd_cfg_ports *cp = &d->cfg.ports;
	struct mrcd_hostctx *hc = &d->host[h];
	struct rte_eth_conf conf;
	struct rte_eth_dev_info info;
	uint16_t pid, nb_rx = cp->rx_desc, nb_tx = cp->tx_desc;
	const uint32_t frame = d->cfg.transport.mtu + MRCD_FRAME_OVERHEAD;
	const uint32_t rx_room = cp->rx_mbuf_data_room - RTE_PKTMBUF_HEADROOM;
	char avail[512];
	int rc;

	if (rte_eth_dev_get_port_by_name(name, &pid) != 0) {
		list_ports(avail, sizeof(avail));
		MRCD_LOG(ctrl, ERR, "[ports] h%u.p%u = %s: no such port (ports: %s)",
			d->cfg.daemon.first_host + h, p, name, avail);
		return -ENODEV;
	}
	rc = rte_eth_dev_info_get(pid, &info);
	if (rc != 0) {
		MRCD_LOG(ctrl, ERR, "port %s: no device info: %s", name, rte_strerror(-rc));
		return rc;
	}
	memset(&conf, 0, sizeof(conf));
	/*
	 * Two drivers take chains without saying so: net_null frees them whole,
	 * and net_pcap gathers a chain into a bounce buffer before writing it
	 * (test/integration/pcap.sh checks the frames arrive whole).
	 */
	const bool chains_ok = (info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS) ||
			       strcmp(info.driver_name, "net_null") == 0 ||
			       strcmp(info.driver_name, "net_pcap") == 0;

	if (!chains_ok) {
		MRCD_LOG(ctrl, ERR,
			"port %s (%s): cannot send multi-segment packets; mrcd "
			"attaches payloads without copying and needs it",
			name, info.driver_name);
		return -ENOTSUP;
	}
	conf.txmode.offloads |= info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
	if (frame > rx_room) {
		if (!(info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_SCATTER)) {
			MRCD_LOG(ctrl, ERR,
				"port %s (%s): frames up to %u bytes do not fit an rx "
				"mbuf (%u bytes) and the port cannot scatter them: raise "
				"[ports] rx_mbuf_data_room or lower [transport] mtu",
				name, info.driver_name, frame, rx_room);
			return -ENOTSUP;
		}
		conf.rxmode.offloads |= RTE_ETH_RX_OFFLOAD_SCATTER;
	}
	/*
	 * Virtual ports often report a nominal limit (memif says 1518 and
	 * carries 64 KiB); a NIC's is real. Either way a frame the port refuses
	 * shows in its error counters, which the summary prints: warn, go on.
	 */
	if (info.max_rx_pktlen != 0 && frame > info.max_rx_pktlen)
		MRCD_LOG(ctrl, WARNING,
			"port %s (%s): frames up to %u bytes, the port reports at "
			"most %u; refused frames will show as port rx errors",
			name, info.driver_name, frame, info.max_rx_pktlen);
	/*
	 * A tx queue per shard of the host (each worker sends alone), and an rx
	 * queue per shard where the port has them; with fewer, the shards past
	 * them read none and get their packets from the others (mrcd_steer.c).
	 */
	const uint16_t n_shards =
		d->cfg.lcores.workers_per_host ? d->cfg.lcores.workers_per_host : 1;
	const uint16_t max_rxq = info.max_rx_queues > 0 ? info.max_rx_queues : 1;
	const uint16_t n_rxq = RTE_MIN(n_shards, max_rxq);

	if (info.max_tx_queues < n_shards) {
		MRCD_LOG(ctrl, ERR,
			"port %s (%s): has %u tx queues, [lcores] workers_per_host = %u needs one "
			"per worker",
			name, info.driver_name, info.max_tx_queues, n_shards);
		return -ENOTSUP;
	}
	const char *rss = rss_setup(&conf, &info, n_rxq);
	rc = rte_eth_dev_configure(pid, n_rxq, n_shards, &conf);
	if (rc == 0)
		rc = rte_eth_dev_adjust_nb_rx_tx_desc(pid, &nb_rx, &nb_tx);
	for (uint16_t q = 0; q < n_rxq && rc == 0; q++)
		rc = rte_eth_rx_queue_setup(
			pid, q, nb_rx, rte_eth_dev_socket_id(pid), NULL, hc->rx_pool);
	for (uint16_t q = 0; q < n_shards && rc == 0; q++)
		rc = rte_eth_tx_queue_setup(pid, q, nb_tx, rte_eth_dev_socket_id(pid), NULL);
	if (rc != 0) {
		MRCD_LOG(ctrl, ERR, "port %s (%s): setup failed: %s", name, info.driver_name,
			rte_strerror(-rc));
		return rc;
	}
	/* The MTU only matters to NICs that filter by it; virtual ports accept anything. */
	const uint32_t max_mtu = info.max_mtu ? info.max_mtu : UINT16_MAX;

	(void)rte_eth_dev_set_mtu(pid, (uint16_t)RTE_MIN(frame - RTE_ETHER_HDR_LEN, max_mtu));
	rc = rte_eth_dev_start(pid);
	if (rc != 0) {
		MRCD_LOG(ctrl, ERR, "port %s (%s): does not start: %s", name, info.driver_name,
			rte_strerror(-rc));
		return rc;
	}
	(void)rte_eth_promiscuous_enable(pid); /* addresses are SRv6's business, not the MAC's */
	hc->port[p] = pid;
	hc->port_started |= 1u << p;
	hc->tx_desc[p] = nb_tx;
	hc->tx_room_desc[p] = tx_room_desc(&info, frame, nb_tx);
	rc = mrcd_steer_choose(d, h, p, info.driver_name, n_rxq, &mrc_flow_ops_real);
	if (rc != 0)
		return rc;
	const bool desc_status = rte_eth_tx_descriptor_status(pid, 0, 0) >= 0;
	char room[96];

	if (desc_status)
		snprintf(room, sizeof(room), "tx room %u descriptors (the NIC's status)",
			hc->tx_room_desc[p]);
	else
		snprintf(room, sizeof(room),
			"tx room: mrcd's staging only (the port reports no descriptor status)");
	MRCD_LOG(ctrl, NOTICE,
		"host %u plane %u: port %u %s (%s), %u/%u descriptors, %u rx queues, %s, %s; "
		"offers%s%s%s%s",
		d->cfg.daemon.first_host + h, p, pid, name, info.driver_name, nb_rx, nb_tx, n_rxq,
		rss, room,
		(conf.txmode.offloads & RTE_ETH_TX_OFFLOAD_MULTI_SEGS)
			? " multi-seg tx"
			: " chains gathered by the driver",
		(conf.rxmode.offloads & RTE_ETH_RX_OFFLOAD_SCATTER) ? ", scattered rx" : "",
		(info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_UDP_CKSUM) ? ", UDP checksum tx" : "",
		(info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_UDP_CKSUM) ? ", UDP checksum rx" : "");
	return 0;
}

/*
 * Traffic sent before a link is up is lost and retires EVs for nothing, so
 * wait (boundedly) for every link; a port still down after that is just a
 * plane out of rotation, as when it fails later, and is named.
 */
#define LINK_WAIT_MS 3000

static bool
link_up(uint16_t port)
{
	struct rte_eth_link l;

	return rte_eth_link_get_nowait(port, &l) == 0 && l.link_status == RTE_ETH_LINK_UP;
}

static void
wait_links(struct mrcd_daemon *d)
{
	const unsigned int n_planes = d->cfg.daemon.planes;
	unsigned int waited = 0, down;

	for (;;) {
		down = 0;
		for (unsigned int h = 0; h < d->n_hosts; h++)
			for (unsigned int p = 0; p < n_planes; p++)
				down += !link_up(d->host[h].port[p]);
		if (down == 0 || waited >= LINK_WAIT_MS)
			break;
		rte_delay_ms(10);
		waited += 10;
	}
	if (down == 0) {
		MRCD_LOG(
			ctrl, NOTICE, "all %u links up after %u ms", d->n_hosts * n_planes, waited);
		return;
	}
	for (unsigned int h = 0; h < d->n_hosts; h++)
		for (unsigned int p = 0; p < n_planes; p++)
			if (!link_up(d->host[h].port[p]))
				MRCD_LOG(ctrl, WARNING,
					"host %u plane %u: link still down after %u ms: the "
					"plane stays out of rotation until it comes up",
					d->cfg.daemon.first_host + h, p, waited);
}

int
mrcd_ports_open(struct mrcd_daemon *d)
{
	const struct mrcd_config *c = &d->cfg;
	int rc;

	for (unsigned int h = 0; h < d->n_hosts; h++)
		for (unsigned int p = 0; p < c->daemon.planes; p++) {
			rc = open_port(d, h, p, c->ports.name[c->daemon.first_host + h][p]);
			if (rc != 0)
				return rc;
		}
	wait_links(d);
	return 0;
}

void
mrcd_ports_close(struct mrcd_daemon *d)
{
	/*
	 * Our workers have stopped; a peer's may not have. Closing a memif port
	 * makes the peer unmap the shared rings, under its poller if it still
	 * polls: give peers stopped at the same time room to stop first.
	 */
	if (d->cfg.ports.close_delay_ms > 0 && d->fab == NULL)
		rte_delay_us_sleep(d->cfg.ports.close_delay_ms * 1000u);
	for (unsigned int h = 0; h < d->n_hosts; h++) {
		struct mrcd_hostctx *hc = &d->host[h];
		uint16_t ports[MRC_SHARD_MAX_PLANES];
		unsigned int n = 0;

		for (unsigned int p = 0; p < MRC_SHARD_MAX_PLANES; p++)
			if (hc->port_started & (1u << p))
				ports[n++] = hc->port[p];
		/* memif's on the EAL interrupt thread, where the peer's disconnect is handled */
		mrcd_ports_close_all(ports, n);
		hc->port_started = 0;
	}
}

void
mrcd_ports_drops(const struct mrcd_daemon *d, struct mrcd_port_drops *out)
{
	memset(out, 0, sizeof(*out));
	for (unsigned int h = 0; h < d->n_hosts; h++)
		for (unsigned int p = 0; p < MRC_SHARD_MAX_PLANES; p++) {
			struct rte_eth_stats s;

			if (!(d->host[h].port_started & (1u << p)) ||
				rte_eth_stats_get(d->host[h].port[p], &s) != 0)
				continue;
			out->imissed += s.imissed;
			out->ierrors += s.ierrors;
			out->oerrors += s.oerrors;
			out->rx_nombuf += s.rx_nombuf;
		}
}

uint32_t
mrcd_ports_admin_down(const struct mrcd_daemon *d, unsigned int h, uint64_t since_start)
{
	const struct mrcd_cfg_ports *c = &d->cfg.ports;
	const uint64_t ms = since_start * 1000 / d->hz;
	uint32_t down = __atomic_load_n(&d->host[h].admin_down, __ATOMIC_ACQUIRE);

	if (c->admin_down_planes != 0 && ms >= c->admin_down_at_ms &&
		(c->admin_down_ms == 0 || ms < (uint64_t)c->admin_down_at_ms + c->admin_down_ms))
		down |= c->admin_down_planes;
	return down;
}
