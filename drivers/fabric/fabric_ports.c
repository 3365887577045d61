/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Where hosts meet the fabric: one net_ring ethdev port per (host, plane).
 *
 * Each port is two single-producer single-consumer rings the fabric owns,
 * handed to rte_eth_from_rings(): the host's tx queue is the host -> fabric
 * ring, its rx queue the fabric -> host ring. Single producer and consumer
 * because a port queue, like a NIC queue, is used by one lcore at a time;
 * the fabric's poll is the other end of both.
 *
 * Ingress takes packets from the host -> fabric rings in bursts, stamps
 * them with the poll's time, looks at the outermost IPv6 header once to
 * class them (SRv6 or structured-EV, priority, trimmable, ECN-capable) and
 * puts them on their HOST_UP link. Delivery stages packets per port and
 * enqueues them in bursts at the end of the poll (or when 32 are staged); a
 * full ring drops the rest (host_rx_full), as a NIC without rx descriptors
 * would.
 *
 * The port's link status follows the fabric's state (fab_carrier_apply):
 * the ring PMD implements set_link_up/down as a field write, so a host that
 * watches rte_eth_link_get_nowait() sees its port go down with its plane,
 * its T0 or its cable, like loss of signal on a real NIC.
 */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <rte_bus_vdev.h>
#include <rte_errno.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>

#include "fabric_priv.h"
#include "mrc_flow.h"

#define INGRESS_BURST 64u

static struct rte_ring *
ring_make(const struct mrc_fabric *fab, const char *name)
{
	/* RING_F_EXACT_SZ: room for exactly ring_size packets (a plain ring holds one less). */
	const ssize_t sz = rte_ring_get_memsize(rte_align32pow2(fab->cfg.ring_size + 1));
	struct rte_ring *r;

	if (sz < 0)
		return NULL;
	/* rte_ring_init over our own memory: no memzone, no global name to collide on. */
	r = rte_zmalloc_socket(name, (size_t)sz, RTE_CACHE_LINE_SIZE, fab->cfg.socket_id);
	if (r == NULL)
		return NULL;
	if (rte_ring_init(r, name, fab->cfg.ring_size,
		    RING_F_SP_ENQ | RING_F_SC_DEQ | RING_F_EXACT_SZ) != 0) {
		rte_free(r);
		return NULL;
	}
	return r;
}

static void
ring_drain_free(struct rte_ring *r)
{
	void *objs[64];
	unsigned int n;

	if (r == NULL)
		return;
	while ((n = rte_ring_dequeue_burst(r, objs, RTE_DIM(objs), NULL)) > 0)
		for (unsigned int i = 0; i < n; i++)
			rte_pktmbuf_free(objs[i]);
}

/* snprintf that says whether the name fit (ring and port names are short). */
static int name_fmt(char *buf, size_t size, const char *fmt, ...) __rte_format_printf(3, 4);

static int
name_fmt(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n >= 0 && (size_t)n < size ? 0 : -1;
}

int
fab_ports_create(struct mrc_fabric *fab, const char **why)
{
	char name[RTE_RING_NAMESIZE];

	for (unsigned int h = 0; h < fab->n_hosts; h++)
		for (unsigned int pl = 0; pl < fab->n_planes; pl++) {
			struct fab_port *p = &fab->ports[h * fab->n_planes + pl];
			int id;

			p->host = (uint8_t)h;
			p->plane = (uint8_t)pl;
			p->up_link = fab_link_host_up(fab, pl, h);
			p->down_link = fab_link_host_down(fab, pl, h);
			p->carrier = true;
			for (unsigned int q = 0; q < fab->cfg.host_queues; q++) {
				if (name_fmt(name, sizeof(name), "%s_h%up%uq%u_rx", fab->name, h,
					    pl, q) == 0)
					p->to_host_q[q] = ring_make(fab, name);
				if (name_fmt(name, sizeof(name), "%s_h%up%uq%u_tx", fab->name, h,
					    pl, q) == 0)
					p->from_host_q[q] = ring_make(fab, name);
				if (p->to_host_q[q] == NULL || p->from_host_q[q] == NULL) {
					*why = "out of memory for the host rings";
					rte_errno = ENOMEM;
					return -ENOMEM;
				}
			}
			if (name_fmt(name, sizeof(name), "%s_h%up%u", fab->name, h, pl) != 0 ||
				name_fmt(p->vdev, sizeof(p->vdev), "net_ring_%s", name) != 0) {
				*why = "ring or port name too long";
				rte_errno = ENAMETOOLONG;
				return -ENAMETOOLONG;
			}
			p->to_host = p->to_host_q[0];
			p->from_host = p->from_host_q[0];
			id = rte_eth_from_rings(name, p->to_host_q, fab->cfg.host_queues,
				p->from_host_q, fab->cfg.host_queues,
				(unsigned int)fab->cfg.socket_id);
			if (id < 0) {
				*why = "rte_eth_from_rings failed (no free ethdev port, or the "
				       "name is taken)";
				if (rte_errno == 0)
					rte_errno = ENODEV;
				return -ENODEV;
			}
			p->port_id = (uint16_t)id;
			p->have_port = true;
		}
	return 0;
}

void
fab_ports_destroy(struct mrc_fabric *fab)
{
	for (unsigned int i = 0; i < fab->n_ports; i++) {
		struct fab_port *p = &fab->ports[i];

		if (p->have_port) {
			int rc = rte_eth_dev_stop(p->port_id);

			if (rc == 0)
				rc = rte_eth_dev_close(p->port_id);
			/* Removes the vdev; its remove callback is a no-op once the port is closed.
			 */
			if (rte_vdev_uninit(p->vdev) != 0 || rc != 0)
				MRC_LOG(fabric, WARNING, "%s: port %u did not close cleanly (%d)",
					fab->name, p->port_id, rc);
			p->have_port = false;
		}
		for (unsigned int k = 0; k < p->n_stage; k++)
			rte_pktmbuf_free(p->stage[k]);
		p->n_stage = 0;
		for (unsigned int q = 0; q < MRC_NIC_MAX_QUEUES; q++) {
			ring_drain_free(p->to_host_q[q]);
			ring_drain_free(p->from_host_q[q]);
			rte_free(p->to_host_q[q]);
			rte_free(p->from_host_q[q]);
			p->to_host_q[q] = p->from_host_q[q] = NULL;
		}
		p->to_host = p->from_host = NULL;
	}
}

int
mrc_fabric_start_ports(struct mrc_fabric *fab, struct rte_mempool *pool)
{
	fab->pool = pool;
	const struct rte_eth_conf conf = {0};

	for (unsigned int i = 0; i < fab->n_ports; i++) {
		struct fab_port *p = &fab->ports[i];
		const int sock = rte_eth_dev_socket_id(p->port_id);
		int rc;

		rc = rte_eth_dev_configure(
			p->port_id, fab->cfg.host_queues, fab->cfg.host_queues, &conf);
		for (uint16_t q = 0; rc == 0 && q < fab->cfg.host_queues; q++) {
			rc = rte_eth_rx_queue_setup(p->port_id, q, 0, (unsigned int)sock, NULL,
				pool); /* 0 descriptors: the default; the ring PMD ignores it */
			if (rc == 0)
				rc = rte_eth_tx_queue_setup(
					p->port_id, q, 0, (unsigned int)sock, NULL);
		}
		if (rc == 0)
			rc = rte_eth_dev_start(p->port_id);
		/* dev_start brings a ring port's link up; show the fabric's state instead. */
		if (rc == 0 && !p->carrier)
			rc = rte_eth_dev_set_link_down(p->port_id);
		if (rc != 0) {
			MRC_LOG(fabric, ERR, "%s: port %u (host %u plane %u) did not start: %s",
				fab->name, p->port_id, p->host, p->plane, rte_strerror(-rc));
			return rc;
		}
	}
	return 0;
}

bool
mrc_fabric_port_up(const struct mrc_fabric *fab, unsigned int host, unsigned int plane)
{
	if (host >= fab->n_hosts || plane >= fab->n_planes)
		return false;
	return fab->ports[host * fab->n_planes + plane].carrier;
}

void
fab_carrier_apply(struct mrc_fabric *fab, bool force)
{
	for (unsigned int i = 0; i < fab->n_ports; i++) {
		struct fab_port *p = &fab->ports[i];
		const struct fab_switch *t0 =
			&fab->sw[fab_sw_t0(fab, p->plane, fab_t0_of(fab, p->host))];
		const bool up = fab->plane_state[p->plane] != MRC_FABRIC_DOWN &&
				t0->state != MRC_FABRIC_DOWN &&
				fab->links[p->up_link].state != MRC_FABRIC_DOWN &&
				fab->links[p->down_link].state != MRC_FABRIC_DOWN;
		int rc;

		if (up == p->carrier && !force)
			continue;
		p->carrier = up;
		rc = up ? rte_eth_dev_set_link_up(p->port_id)
			: rte_eth_dev_set_link_down(p->port_id);
		if (rc != 0)
			MRC_LOG(fabric, WARNING, "%s: port %u: link %s failed: %s", fab->name,
				p->port_id, up ? "up" : "down", rte_strerror(-rc));
	}
}

bool
fab_ports_pending(const struct mrc_fabric *fab)
{
	for (unsigned int i = 0; i < fab->n_ports; i++)
		for (unsigned int q = 0; q < fab->cfg.host_queues; q++)
			if (!rte_ring_empty(fab->ports[i].from_host_q[q]))
				return true;
	return false;
}

/* ---- ingress ---- */

/* Structured-EV packets: the host whose NIC address is `da`, or NO_HOST. */
static uint8_t
host_of_addr(const struct mrc_fabric *fab, const uint8_t *da)
{
	for (unsigned int h = 0; h < fab->n_hosts; h++)
		if (memcmp(fab->cfg.nic_addr[h], da, MRC_IPV6_ADDR_LEN) == 0)
			return (uint8_t)h;
	return NO_HOST;
}

/*
 * Find the outermost IPv6 header and class the packet. Only the first
 * segment is looked at: that is where a switch's parser looks too, and
 * where the fabric will write.
 */
/*
 * The BTH opcode of the packet whose outer IPv6 header is at `off` (0 when
 * it has none): found past an optional SRH and inner IPv6 header and the
 * UDP header, in the first segment (where a sender builds its headers). A
 * few loads, no full parse: this runs for every packet entering the fabric.
 */
static uint8_t
bth_opcode(const uint8_t *b, uint32_t len, uint32_t off, uint8_t nh)
{
	off += 40;
	if (nh == MRC_IPPROTO_ROUTING) {
		if (len < off + 8)
			return 0;
		nh = b[off];
		off += ((uint32_t)b[off + 1] + 1) * 8;
	}
	if (nh == MRC_IPPROTO_IPV6) {
		if (len < off + 40)
			return 0;
		nh = b[off + 6];
		off += 40;
	}
	if (nh != MRC_IPPROTO_UDP || len < off + 8 + 1)
		return 0;
	return b[off + 8];
}

static uint64_t *
classify(struct mrc_fabric *fab, struct fab_item *it)
{
	const struct rte_mbuf *m = it->m;
	const uint8_t *b = rte_pktmbuf_mtod(m, const uint8_t *);
	const struct mrc_dscp_map *d = &fab->cfg.wire.dscp;
	uint32_t off = RTE_ETHER_HDR_LEN, vtc;
	uint16_t type;
	uint8_t dscp, ecn, nh, op;

	if (!RTE_MBUF_DIRECT(m) || rte_mbuf_refcnt_read(m) != 1)
		return &fab->cnt.drop_shared_header;
	if (m->data_len < RTE_ETHER_HDR_LEN + 4)
		return &fab->cnt.drop_unparseable;
	type = (uint16_t)(b[12] << 8 | b[13]);
	if (type == RTE_ETHER_TYPE_VLAN) {
		type = (uint16_t)(b[16] << 8 | b[17]);
		off += 4;
	}
	if (type != RTE_ETHER_TYPE_IPV6 || m->data_len < off + 40 || (b[off] >> 4) != 6)
		return &fab->cnt.drop_unparseable;
	it->l3_off = (uint8_t)off;
	vtc = (uint32_t)b[off] << 24 | (uint32_t)b[off + 1] << 16 | (uint32_t)b[off + 2] << 8 |
	      b[off + 3];
	dscp = (vtc >> 22) & 0x3f;
	ecn = (vtc >> 20) & 0x3;
	nh = b[off + 6];
	it->cls = 0;
	it->dst_host = NO_HOST;
	if (nh == MRC_IPPROTO_IPV6 || nh == MRC_IPPROTO_ROUTING)
		it->cls |= CLS_SRV6;
	else
		it->dst_host = host_of_addr(fab, b + off + 24);
	if (dscp == d->trimmable || dscp == d->trimmable_retx)
		it->cls |= CLS_TRIMMABLE;
	if (dscp == d->trimmed || dscp == d->trimmed_lasthop ||
		(fab->cfg.control_priority && dscp == d->control))
		it->cls |= CLS_PRIO;
	if (ecn == MRC_ECN_ECT0 || ecn == MRC_ECN_ECT1)
		it->cls |= CLS_ECT;
	op = bth_opcode(b, m->data_len, off, nh);
	if (mrc_opcode_is_data(op))
		it->cls |= CLS_DATA;
	else if (op == MRC_OP_EP_REQUEST)
		it->cls |= CLS_EP_REQUEST;
	return NULL;
}

/*
 * A NIC reads a packet's bytes when it sends it; an mbuf whose payload is
 * attached from the sender's memory (the zero-copy transmit path) would
 * keep reading that memory for its whole trip through the fabric, and an
 * application may legally rewrite it as soon as its message completes,
 * while a stale duplicate is still in flight. Capture such payloads at
 * ingress, as the NIC's DMA would. Returns the packet to carry, or NULL.
 */
static struct rte_mbuf *
wire_capture(struct mrc_fabric *fab, struct rte_mbuf *m)
{
	struct rte_mbuf *c;
	bool external = false;

	for (const struct rte_mbuf *s = m; s != NULL; s = s->next)
		external |= !RTE_MBUF_DIRECT(s);
	if (likely(!external))
		return m;
	c = fab->pool != NULL ? rte_pktmbuf_copy(m, fab->pool, 0, UINT32_MAX) : NULL;
	rte_pktmbuf_free(m);
	if (c == NULL) {
		fab->cnt.drop_no_mbuf++;
		return NULL;
	}
	fab->cnt.wire_copies++;
	return c;
}

/* Take what one tx queue of a host port holds (at most a ring's worth). */
static inline unsigned int
ingress_queue(struct mrc_fabric *fab, struct fab_port *p, struct rte_ring *from_host,
	struct rte_mbuf **burst)
{
	unsigned int taken = 0, n;

	/*
	 * At most a ring's worth per poll, so a busy host cannot starve the
	 * rest, and no more than the heap has room for: beyond that the
	 * packets wait in the host's ring, like frames behind a NIC's full
	 * descriptor ring.
	 */
	while (taken < fab->cfg.ring_size) {
		const unsigned int room = fab->cfg.max_in_flight - fab->in_flight;

		n = rte_ring_dequeue_burst(
			from_host, (void **)burst, RTE_MIN(INGRESS_BURST, room), NULL);
		if (n == 0)
			break;
		taken += n;
		/* The host's NIC: egress encap rules recorded for the port (doc/offload.md). */
		mrc_nic_emu_encap_port(p->port_id, burst, (uint16_t)n, &fab->nic_cnt);
		if (unlikely(fab->cap != NULL))
			fab_capture_burst(fab, burst, n);
		for (unsigned int k = 0; k < n; k++) {
			struct fab_item it = {.t_ps = fab->now_ps, .m = burst[k]};
			uint64_t *why;

			fab->cnt.host_tx_pkts++;
			fab->cnt.host_tx_bytes += burst[k]->pkt_len;
			it.m = wire_capture(fab, burst[k]);
			if (it.m == NULL)
				continue;
			fab->in_flight++;
			why = classify(fab, &it);
			if (unlikely(why != NULL)) {
				(*why)++;
				fab_drop(fab, &it);
				continue;
			}
			fab_link_enqueue(fab, p->up_link, &it);
		}
	}
	return taken;
}

unsigned int
fab_ingress(struct mrc_fabric *fab)
{
	struct rte_mbuf *burst[INGRESS_BURST];
	unsigned int total = 0;

	/* A different port first each poll: none is favoured when room runs out. */
	fab->ingress_first = fab->ingress_first + 1 < fab->n_ports ? fab->ingress_first + 1 : 0;
	for (unsigned int i = 0, j = fab->ingress_first; i < fab->n_ports;
		i++, j = j + 1 < fab->n_ports ? j + 1 : 0) {
		struct fab_port *p = &fab->ports[j];

		total += ingress_queue(fab, p, p->from_host, burst);
		for (unsigned int q = 1; q < fab->cfg.host_queues; q++)
			total += ingress_queue(fab, p, p->from_host_q[q], burst);
	}
	return total;
}

/* ---- delivery ---- */

/*
 * A port with several rx queues: the emulated NIC puts each packet on the
 * queue the port's recorded rules name (drivers/nic), in one enqueue per
 * queue; a full queue drops the rest of its share, as a NIC does.
 */
static void
flush_port_steered(struct mrc_fabric *fab, struct fab_port *p)
{
	const unsigned int n = p->n_stage, nq = fab->cfg.host_queues;
	struct rte_mbuf *by_q[MRC_NIC_MAX_QUEUES][STAGE];
	uint16_t queue[STAGE], nb[MRC_NIC_MAX_QUEUES] = {0};

	mrc_nic_emu_classify(mrc_flow_rec_table(p->port_id), p->stage, (uint16_t)n, (uint16_t)nq,
		queue, &fab->nic_cnt);
	for (unsigned int k = 0; k < n; k++)
		by_q[queue[k]][nb[queue[k]]++] = p->stage[k];
	for (unsigned int q = 0; q < nq; q++) {
		unsigned int sent;

		if (nb[q] == 0)
			continue;
		sent = rte_ring_enqueue_burst(p->to_host_q[q], (void **)by_q[q], nb[q], NULL);
		for (unsigned int k = 0; k < sent; k++)
			fab->cnt.delivered_bytes += by_q[q][k]->pkt_len;
		fab->cnt.delivered_pkts += sent;
		if (unlikely(sent < nb[q])) {
			fab->links[p->down_link].cnt.drop_host_rx_full += nb[q] - sent;
			fab->cnt.drop_host_rx_full += nb[q] - sent;
			fab->nic_cnt.rx_full_pkts += nb[q] - sent;
			rte_pktmbuf_free_bulk(by_q[q] + sent, nb[q] - sent);
		}
	}
	fab->in_flight -= n;
	p->n_stage = 0;
}

static void
flush_port(struct mrc_fabric *fab, struct fab_port *p)
{
	const unsigned int n = p->n_stage;
	unsigned int sent;

	if (n == 0)
		return;
	if (fab->cfg.host_queues > 1) {
		flush_port_steered(fab, p);
		return;
	}
	sent = rte_ring_enqueue_burst(p->to_host, (void **)p->stage, n, NULL);
	for (unsigned int k = 0; k < sent; k++)
		fab->cnt.delivered_bytes += p->stage[k]->pkt_len;
	fab->cnt.delivered_pkts += sent;
	if (unlikely(sent < n)) {
		fab->links[p->down_link].cnt.drop_host_rx_full += n - sent;
		fab->cnt.drop_host_rx_full += n - sent;
		rte_pktmbuf_free_bulk(p->stage + sent, n - sent);
	}
	fab->in_flight -= n;
	p->n_stage = 0;
}

void
fab_deliver(struct mrc_fabric *fab, struct fab_port *p, struct fab_item *it)
{
	it->m->port = p->port_id;
	p->stage[p->n_stage++] = it->m;
	if (p->n_stage == STAGE) {
		flush_port(fab, p);
		return;
	}
	if (!p->dirty) {
		p->dirty = true;
		fab->dirty[fab->n_dirty++] = (uint32_t)(p - fab->ports);
	}
}

void
fab_flush(struct mrc_fabric *fab)
{
	for (unsigned int i = 0; i < fab->n_dirty; i++) {
		struct fab_port *p = &fab->ports[fab->dirty[i]];

		flush_port(fab, p);
		p->dirty = false;
	}
	fab->n_dirty = 0;
}
