/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: the main lcore, at setup and every control tick.
 *
 * IPv6 neighbour discovery on every plane port of a host ([ports] mode =
 * ethdev, neighbour_discovery = true; on loop pairs when a host names a
 * next hop). A DPDK port answers nothing by
 * itself, so without this a T0 switch cannot resolve the host's plane
 * address and no switch reaches the host unless every one is configured
 * by hand. The state lives here, on the control side; the workers only hand
 * over the frames that are not MRC (the shards' exception ring) and send
 * what this side gives them (shard 0's control tx ring), and the QPs read
 * each plane's next-hop MAC from a table published word by word
 * (hc->next_hop_mac).
 *
 * Per plane port:
 *   - answer a Neighbor Solicitation for any of the host's addresses on the
 *     plane (its link-local fe80::EUI-64 of the port's MAC; in SRv6 mode the
 *     host's plane address <block>:<host uSID>:: and, with several workers,
 *     each worker's; in plain mode the NIC address) with a solicited NA;
 *   - announce those addresses with unsolicited NAs when the link comes up
 *     (the first tick counts: at start);
 *   - resolve next_hop.p<p> when set (mrc_nd.h: multicast NS until it
 *     answers, reachable for 30 s, then unicast probes, failed after three
 *     unanswered ones and resolved again), and keep the plane out of the
 *     port mask while its next hop is not known: the EV pool then treats it
 *     as a port that is down; the port's SRv6 encap rules follow its MAC
 *     (mrcd_encap_nd_tick);
 *   - count every other frame that is not MRC by kind, and give it to the
 *     port's kernel tap ([ports] tap, mrcd_tap.c), or drop it (counted);
 *     what the kernel writes to the tap goes out the port.
 */

#include <arpa/inet.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "mrc_ev_path.h"
#include "mrcd_control.h"
#include "mrcd_daemon.h"
#include "mrcd_log.h"

/* Frames that are not MRC the control thread takes per host and tick at most. */
#define MRCD_ND_PER_TICK 256

static const uint8_t all_nodes[MRC_ND_ADDR_LEN] = {0xff, 0x02, [15] = 1};
static const struct rte_ether_addr all_nodes_mac = {{0x33, 0x33, 0, 0, 0, 1}};

static bool
is_zero(const uint8_t *ip)
{
	static const uint8_t none[MRC_ND_ADDR_LEN];

	return memcmp(ip, none, sizeof(none)) == 0;
}

static void
add_addr(struct mrcd_nd_port *np, const uint8_t *ip)
{
	for (unsigned int i = 0; i < np->n_addr; i++)
		if (memcmp(np->addr[i], ip, MRC_ND_ADDR_LEN) == 0)
			return;
	if (np->n_addr < MRCD_ND_MAX_ADDRS)
		memcpy(np->addr[np->n_addr++], ip, MRC_ND_ADDR_LEN);
}

static bool
owns(const struct mrcd_nd_port *np, const uint8_t *ip)
{
	for (unsigned int i = 0; i < np->n_addr; i++)
		if (memcmp(np->addr[i], ip, MRC_ND_ADDR_LEN) == 0)
			return true;
	return false;
}

static inline void
count(uint64_t *c)
{
	__atomic_store_n(c, *c + 1, __ATOMIC_RELAXED); /* one writer: this thread */
}

/*
 * Loop pairs are back to back: the next hop is the other host. Neighbour
 * discovery runs on them (every host of the process, so the other one
 * answers) only when a host names a next hop: what tests a port whose next
 * hop is resolved without a NIC (doc/offload.md); other loop runs send no
 * frame of it.
 */
static bool
loop_names_next_hop(const struct mrcd_daemon *d)
{
	for (unsigned int j = 0; j < d->n_hosts; j++)
		for (unsigned int p = 0; p < d->cfg.daemon.planes && p < MRC_EV_MAX_PLANES; p++)
			if (!is_zero(d->cfg.host[d->cfg.daemon.first_host + j].next_hop[p]))
				return true;
	return false;
}

int
mrcd_nd_setup(struct mrcd_daemon *d, unsigned int h)
{
	struct mrcd_hostctx *hc = &d->host[h];
	const unsigned int c = d->cfg.daemon.first_host + h;
	const struct mrcd_config_host *ch = &d->cfg.host[c];
	const bool srv6 = d->cfg.transport.encap == MRCD_ENCAP_SRV6;
	char name[RTE_RING_NAMESIZE];

	for (unsigned int p = 0; p < MRC_SHARD_MAX_PLANES; p++)
		hc->next_hop_mac[p] = mrc_qp_mac_word(&ch->peer_mac[p % MRC_EV_MAX_PLANES]);
	hc->nd_on = d->cfg.ports.neighbour_discovery &&
		    (d->cfg.ports.mode == MRCD_PORTS_ETHDEV ||
			    (d->cfg.ports.mode == MRCD_PORTS_LOOP && loop_names_next_hop(d)));
	if (!hc->nd_on)
		return 0;
	snprintf(name, sizeof(name), "mrcd_exc%u", h);
	hc->exception = rte_ring_create(name, 1024, (int)rte_socket_id(),
		(hc->n_shards > 1 ? 0 : RING_F_SP_ENQ) | RING_F_SC_DEQ);
	snprintf(name, sizeof(name), "mrcd_ctx%u", h);
	/* one ring for everything the control thread sends (endpoint operations too) */
	if (hc->ctl_tx == NULL)
		hc->ctl_tx = rte_ring_create(
			name, 256, (int)rte_socket_id(), RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (hc->exception == NULL || hc->ctl_tx == NULL) {
		MRCD_LOG(ctrl, ERR, "host %u: cannot make its exception and control tx rings: %s",
			c, rte_strerror(rte_errno));
		return -rte_errno;
	}
	for (unsigned int p = 0; p < d->cfg.daemon.planes; p++) {
		struct mrcd_nd_port *np = &hc->nd[p];
		uint8_t ip[MRC_ND_ADDR_LEN];
		char nh[INET6_ADDRSTRLEN];

		memset(np, 0, sizeof(*np));
		np->on = true;
		np->mac = ch->mac[p];
		mrc_nd_link_local(&np->mac, ip);
		add_addr(np, ip);
		if (srv6) {
			const uint16_t usid = mrc_ev_usid(p, MRC_USID_TIER_HOST, (uint8_t)c);
			const uint32_t block = d->cfg.fabric.block;

			memset(ip, 0, sizeof(ip));
			ip[0] = (uint8_t)(block >> 24);
			ip[1] = (uint8_t)(block >> 16);
			ip[2] = (uint8_t)(block >> 8);
			ip[3] = (uint8_t)block;
			ip[4] = (uint8_t)(usid >> 8);
			ip[5] = (uint8_t)usid;
			add_addr(np, ip);
			for (unsigned int k = 0; k < hc->n_shards && hc->n_shards > 1; k++)
				if (mrc_ev_worker_addr(block, p, (uint8_t)c, (uint8_t)k, ip) == 0)
					add_addr(np, ip);
		} else {
			add_addr(np, ch->nic_addr);
		}
		np->tap_fd = -1;
		np->resolve = !is_zero(ch->next_hop[p]);
		if (np->resolve)
			mrc_nd_neigh_start(&np->nh, ch->next_hop[p], 0);
		if (d->cfg.ports.tap) {
			const int rc = mrcd_tap_open(d, h, p);

			if (rc != 0)
				return rc;
		}
		inet_ntop(AF_INET6, ch->next_hop[p], nh, sizeof(nh));
		MRCD_LOG(ctrl, NOTICE,
			"host %u plane %u: neighbour discovery answers for %u addresses; next hop "
			"%s",
			c, p, np->n_addr, np->resolve ? nh : "from peer_mac (static)");
	}
	return 0;
}

/*
 * A copy of f (len bytes) in a chain of tx mbufs (they hold headers, a few
 * hundred bytes each: the kernel's frames may be longer); NULL without mbufs.
 */
static struct rte_mbuf *
frame_mbuf(struct rte_mempool *pool, const uint8_t *f, uint32_t len)
{
	struct rte_mbuf *head = NULL;

	for (uint32_t o = 0; o < len;) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
		uint32_t n;

		if (m == NULL) {
			rte_pktmbuf_free(head);
			return NULL;
		}
		n = RTE_MIN(len - o, (uint32_t)rte_pktmbuf_tailroom(m));
		memcpy(rte_pktmbuf_append(m, (uint16_t)n), f + o, n);
		o += n;
		if (head == NULL) {
			head = m;
		} else if (rte_pktmbuf_chain(head, m) != 0) {
			rte_pktmbuf_free(m);
			rte_pktmbuf_free(head);
			return NULL;
		}
	}
	return head;
}

/* A frame of len bytes to send on plane p, through shard 0. */
static void
send_frame(struct mrcd_hostctx *hc, unsigned int p, const uint8_t *f, uint32_t len)
{
	struct rte_mbuf *m = len != 0 ? frame_mbuf(hc->tx_pool, f, len) : NULL;

	if (m == NULL) {
		count(&hc->nd[p].cnt[MRCD_ND_tx_failed]);
		return;
	}
	m->port = (uint16_t)p; /* the plane: shard 0 stages it for that port */
	if (rte_ring_sp_enqueue(hc->ctl_tx, m) != 0) {
		rte_pktmbuf_free(m);
		count(&hc->nd[p].cnt[MRCD_ND_tx_failed]);
	}
}

/* Unsolicited NAs for every address of the plane, to all nodes. */
static void
announce(struct mrcd_hostctx *hc, unsigned int p)
{
	struct mrcd_nd_port *np = &hc->nd[p];
	uint8_t f[MRC_ND_FRAME_LEN];

	for (unsigned int i = 0; i < np->n_addr; i++) {
		send_frame(hc, p, f,
			mrc_nd_build_na(
				f, sizeof(f), &np->mac, &all_nodes_mac, np->addr[i], all_nodes, 0));
		count(&np->cnt[MRCD_ND_na_announced]);
	}
}

/*
 * A checked NS or NA on plane p: answer it, learn from it. True when the
 * kernel should see it too (a tap): advertisements, and solicitations that
 * are not for our addresses.
 */
static bool
nd_input(struct mrcd_hostctx *hc, unsigned int p, const struct mrc_nd_msg *msg,
	const struct mrc_nd_timing *t, uint64_t now)
{
	struct mrcd_nd_port *np = &hc->nd[p];
	uint8_t f[MRC_ND_FRAME_LEN];

	bool to_kernel = true;

	if (msg->type == MRC_ND_TYPE_NS) {
		to_kernel = !owns(np, msg->target);
		if (to_kernel) {
			count(&np->cnt[MRCD_ND_ns_ignored]);
		} else if (is_zero(msg->src_ip)) {
			/* someone tests our address for duplicates: it is taken (RFC 4862 5.4.3) */
			send_frame(hc, p, f,
				mrc_nd_build_na(f, sizeof(f), &np->mac, &all_nodes_mac, msg->target,
					all_nodes, 0));
			count(&np->cnt[MRCD_ND_na_sent]);
			count(&np->cnt[MRCD_ND_ns_answered]);
		} else {
			send_frame(hc, p, f,
				mrc_nd_build_na(f, sizeof(f), &np->mac,
					msg->has_lladdr ? &msg->lladdr : &msg->eth_src, msg->target,
					msg->src_ip, MRC_ND_NA_SOLICITED));
			count(&np->cnt[MRCD_ND_na_sent]);
			count(&np->cnt[MRCD_ND_ns_answered]);
		}
	} else {
		count(&np->cnt[MRCD_ND_na_received]);
	}
	if (np->resolve)
		(void)mrc_nd_neigh_learn(&np->nh, msg, t, now);
	return to_kernel;
}

/* The plane whose port `port` is, or -1. */
static int
plane_of(const struct mrcd_daemon *d, const struct mrcd_hostctx *hc, uint16_t port)
{
	for (unsigned int p = 0; p < d->cfg.daemon.planes; p++)
		if (hc->port[p] == port)
			return (int)p;
	return -1;
}

/*
 * What the shards handed over: ND answered and learnt; the rest, counted by
 * kind, to the port's tap, or dropped (counted) without one.
 */
static void
take_exceptions(
	struct mrcd_daemon *d, struct mrcd_hostctx *hc, const struct mrc_nd_timing *t, uint64_t now)
{
	struct rte_mbuf *m[32];
	unsigned int n, taken = 0;

	/*
	 * A bounded share per tick: a flood of frames that are not MRC fills the
	 * ring, and the shards count what it cannot take (rx_exception_drops),
	 * instead of the control thread spending its time on them.
	 */
	while (taken < MRCD_ND_PER_TICK &&
		(n = rte_ring_sc_dequeue_burst(hc->exception, (void **)m, RTE_DIM(m), NULL)) > 0) {
		for (unsigned int k = 0; k < n; k++) {
			static uint8_t buf[16384]; /* the control thread's alone */
			const uint32_t len =
				RTE_MIN(rte_pktmbuf_pkt_len(m[k]), (uint32_t)sizeof(buf));
			const uint8_t *f = rte_pktmbuf_read(m[k], 0, len, buf);
			const int p = plane_of(d, hc, m[k]->port);
			struct mrc_nd_msg msg;
			enum mrc_nd_kind kind;

			if (p < 0 || f == NULL)
				continue;
			kind = mrc_nd_classify(f, len, &msg);
			count(&hc->nd[p].kind[kind]);
			if (kind == MRC_ND_KIND_NS || kind == MRC_ND_KIND_NA) {
				/* handled here; the kernel sees it too when it has a tap */
				if (nd_input(hc, (unsigned int)p, &msg, t, now))
					(void)mrcd_tap_write(&hc->nd[p], f, len);
				continue;
			}
			if (kind == MRC_ND_KIND_ND_BAD || !mrcd_tap_write(&hc->nd[p], f, len))
				count(&hc->nd[p].cnt[MRCD_ND_not_mrc_dropped]);
		}
		taken += n;
		rte_pktmbuf_free_bulk(m, n);
	}
}

/* Solicit the next hop when its state asks; publish its MAC; is it usable? */
static bool
resolve(struct mrcd_daemon *d, unsigned int h, unsigned int p, const struct mrc_nd_timing *t,
	uint64_t now)
{
	struct mrcd_hostctx *hc = &d->host[h];
	struct mrcd_nd_port *np = &hc->nd[p];
	const bool was = mrc_nd_neigh_usable(&np->nh);
	const enum mrc_nd_action a = mrc_nd_neigh_tick(&np->nh, t, now);
	uint8_t f[MRC_ND_FRAME_LEN];
	char ip[INET6_ADDRSTRLEN], mac[RTE_ETHER_ADDR_FMT_SIZE];

	if (a != MRC_ND_SEND_NOTHING) {
		send_frame(hc, p, f,
			mrc_nd_build_ns(f, sizeof(f), &np->mac,
				a == MRC_ND_SEND_UNICAST ? &np->nh.mac : NULL, np->addr[0],
				np->nh.ip));
		count(&np->cnt[MRCD_ND_ns_sent]);
	}
	if (!mrc_nd_neigh_usable(&np->nh)) {
		if (was)
			MRCD_LOG(ctrl, WARNING,
				"host %u plane %u: next hop %s stopped answering: the plane is out "
				"of rotation until it does",
				d->cfg.daemon.first_host + h, p,
				inet_ntop(AF_INET6, np->nh.ip, ip, sizeof(ip)));
		return false;
	}
	if (!was || __atomic_load_n(&hc->next_hop_mac[p], __ATOMIC_RELAXED) !=
			    mrc_qp_mac_word(&np->nh.mac)) {
		__atomic_store_n(
			&hc->next_hop_mac[p], mrc_qp_mac_word(&np->nh.mac), __ATOMIC_RELAXED);
		rte_ether_format_addr(mac, sizeof(mac), &np->nh.mac);
		MRCD_LOG(ctrl, NOTICE, "host %u plane %u: next hop %s is at %s",
			d->cfg.daemon.first_host + h, p,
			inet_ntop(AF_INET6, np->nh.ip, ip, sizeof(ip)), mac);
	}
	return true;
}

/* What the kernel wrote to plane p's tap, out the port (a few dozen frames a tick at most). */
static void
from_tap(struct mrcd_hostctx *hc, unsigned int p)
{
	static uint8_t buf[16384];
	int n;

	for (unsigned int k = 0; k < 64 && (n = mrcd_tap_read(&hc->nd[p], buf, sizeof(buf))) > 0;
		k++) {
		send_frame(hc, p, buf, (uint32_t)n);
		count(&hc->nd[p].cnt[MRCD_ND_from_tap]);
	}
}

uint32_t
mrcd_nd_tick(struct mrcd_daemon *d, unsigned int h, uint64_t now)
{
	struct mrcd_hostctx *hc = &d->host[h];
	/* ports set down by hand (node controller, drill): their encap rules go too */
	const uint32_t down = mrcd_ports_admin_down(d, h, now - d->start_tsc);
	struct mrc_nd_timing t;
	uint32_t mask = 0;

	mrc_nd_timing_defaults(&t, d->hz);
	take_exceptions(d, hc, &t, now);
	for (unsigned int p = 0; p < d->cfg.daemon.planes; p++) {
		struct mrcd_nd_port *np = &hc->nd[p];
		struct rte_eth_link l;
		const bool up = rte_eth_link_get_nowait(hc->port[p], &l) == 0 &&
				l.link_status == RTE_ETH_LINK_UP;

		if (up && !np->link_up) {
			announce(hc, p);
			if (np->resolve && !mrc_nd_neigh_usable(&np->nh))
				np->nh.next_tsc = now; /* ask again at once */
		}
		np->link_up = up;
		from_tap(hc, p);
		if (!up) {
			mrcd_encap_nd_tick(d, h, p, NULL); /* its rules go: the MAC may change */
			continue;
		}
		if (!np->resolve || resolve(d, h, p, &t, now))
			mask |= 1u << p;
		/* the encap rules of the port follow the next hop's MAC */
		if (np->resolve)
			mrcd_encap_nd_tick(d, h, p,
				mrc_nd_neigh_usable(&np->nh) && !(down >> p & 1) ? &np->nh.mac
										 : NULL);
	}
	return mask;
}

void
mrcd_nd_free(struct mrcd_hostctx *hc)
{
	struct rte_ring *rings[2] = {hc->exception, hc->ctl_tx};
	struct rte_mbuf *m[32];
	unsigned int n;

	for (unsigned int p = 0; p < MRC_SHARD_MAX_PLANES; p++)
		if (hc->nd[p].on)
			mrcd_tap_close(&hc->nd[p]);
	for (unsigned int i = 0; i < RTE_DIM(rings); i++) {
		while (rings[i] != NULL &&
			(n = rte_ring_dequeue_burst(rings[i], (void **)m, RTE_DIM(m), NULL)) > 0)
			rte_pktmbuf_free_bulk(m, n);
		rte_ring_free(rings[i]);
	}
	hc->exception = hc->ctl_tx = NULL;
}
