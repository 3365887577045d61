/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef FABRIC_PRIV_H
#define FABRIC_PRIV_H

/*
 * The fabric's insides, shared by its files:
 *
 *   fabric_topo.c      configuration, topology, static FIBs, create/free, getters
 *   fabric_ports.c     rings and net_ring ports, host ingress, delivery to hosts
 *   fabric_switch.c    a switch: state, NEXT-C-SID / SRH processing, ECMP
 *   fabric_link.c      a link: queue, trim, ECN, loss
 *   fabric_poll.c      the event heap and the poll loop
 *   fabric_fault.c     states, loss, the event log, carriers
 *   fabric_scenario.c  scenario files
 *
 * Numbering. Per plane p (all planes the same shape):
 *   switches: T0 t at p * (n_t0 + n_t1) + t, T1 u at ... + n_t0 + u;
 *   links:    HOST_UP h, HOST_DOWN h, T0_T1 t*n_t1+u, T1_T0 u*n_t0+t, in
 *             that order from p * links_per_plane;
 *   ports:    host h, plane p at h * n_planes + p.
 * FIB of a switch: fib[sw->fib + k], k = T0 index, n_t0 + T1 index or
 * n_t0 + n_t1 + host: a link id, FIB_NONE or FIB_LOCAL.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_ether.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "mrc_fabric.h"
#include "mrc_log.h"
#include "mrc_nic_capture.h"
#include "mrc_nic_emu.h"
#include "mrc_rand.h"

MRC_LOG_TYPE_DECLARE(fabric);

#define FIB_NONE  UINT32_MAX
#define FIB_LOCAL (UINT32_MAX - 1)
#define NO_HOST	  0xff
#define NO_SWITCH 0xffff
#define PS_PER_NS 1000u
#define STAGE	  32u /* deliveries staged per port before a burst enqueue */

/* Per-packet class bits, decided on entry, kept current on trim and mark. */
#define CLS_SRV6       0x01 /* outer IPv6 then IPv6 or SRH: route by uSID */
#define CLS_TRIMMABLE  0x02 /* outermost DSCP trimmable or trimmable_retx */
#define CLS_PRIO       0x04 /* priority queue: trimmed (or control when asked) */
#define CLS_ECT	       0x08 /* outermost ECN is ECT(0) or ECT(1) */
#define CLS_DATA       0x10 /* an MRC data packet (BTH opcode a SEND/WRITE): counted apart */
#define CLS_EP_REQUEST 0x20 /* an endpoint request (0xD8): a drop_request fault may take it */

/* Link flags. */
#define LINK_F_TO_HOST 0x01 /* far end is a host port (HOST_DOWN): the last hop */
#define LINK_F_NIC     0x02 /* near end is a NIC (HOST_UP): tail drop only */

/* A packet between two elements; copied by value through the heap. */
struct fab_item {
	uint64_t t_ps; /* when it reaches the far end of `link` */
	uint64_t seq;  /* tie-break: creation order */
	struct rte_mbuf *m;
	uint32_t link;
	uint8_t l3_off; /* outermost IPv6 header */
	uint8_t cls;
	uint8_t dst_host; /* structured-EV packets: destination (NO_HOST unknown) */
	uint8_t pad_;
};

struct fab_heap {
	struct fab_item *a;
	uint32_t n, cap;
	uint64_t seq;
};

struct fab_link {
	uint64_t busy_ps;	 /* data transmitter busy until */
	uint64_t prio_busy_ps;	 /* priority transmitter busy until */
	uint64_t loss_thresh;	 /* a frame is lost when a 64-bit draw is below this */
	double loss;		 /* the probability as set */
	uint64_t mark_thresh;	 /* forced ECN: a data ECT frame is marked when a draw is below */
	double mark;		 /* the probability as set */
	uint32_t drop_requests;	 /* endpoint requests still to drop here (a drop_request fault) */
	uint64_t arrive_ps;	 /* jitter: latest arrival at the far end, data class */
	uint64_t prio_arrive_ps; /* ... priority class */
	uint32_t to;		 /* far end: switch index, or port index (LINK_F_TO_HOST) */
	uint16_t owner;		 /* switch owning the queue, NO_SWITCH for a NIC */
	uint16_t a, b;		 /* as in struct mrc_fabric_link_id */
	uint8_t kind;
	uint8_t plane;
	uint8_t state;
	uint8_t flags;
	struct mrc_fabric_link_counters cnt;
};

struct fab_switch {
	uint32_t fib; /* first entry of its table in fab->fib */
	uint16_t usid;
	uint8_t tier; /* MRC_USID_TIER_T0 or _T1 */
	uint8_t plane;
	uint8_t index;
	uint8_t state;
	struct mrc_fabric_switch_counters cnt;
};

struct fab_port {
	struct rte_ring *to_host;   /* the port's rx queue 0 (to_host_q[0]) */
	struct rte_ring *from_host; /* the port's tx queue 0 (from_host_q[0]) */
	uint32_t up_link, down_link;
	uint16_t port_id;
	uint8_t host, plane;
	bool carrier;	/* link status the port shows */
	bool have_port; /* the ethdev exists (for teardown) */
	bool dirty;	/* in fab->dirty[] */
	uint16_t n_stage;
	struct rte_mbuf *stage[STAGE];
	char vdev[48]; /* "net_ring_<name>" for rte_vdev_uninit */
	/* Every queue (host_queues of them); kept last, out of the one-queue path's lines. */
	struct rte_ring *to_host_q[MRC_NIC_MAX_QUEUES];
	struct rte_ring *from_host_q[MRC_NIC_MAX_QUEUES];
};

#define FAB_NOTICES MRC_FABRIC_LOG_QUEUE

struct mrc_fabric {
	struct mrc_fabric_cfg cfg;
	struct rte_mempool *pool; /* from start_ports: copies of zero-copy payloads */
	struct mrc_wire_cfg wire; /* for trimming's parse: no ICRC check (switches do not) */
	char name[16];

	/* shape */
	unsigned int n_hosts, n_planes, n_t0, n_t1;
	unsigned int n_links, n_switches, n_ports;
	unsigned int links_per_plane, switches_per_plane, fib_stride;

	/* link model, converted once */
	uint64_t rate_mbps;
	uint64_t ps_per_byte; /* 8e6 / rate_mbps when exact (100 Gb/s: 80), else 0 */
	uint64_t delay_ps;
	uint64_t jitter_ps;
	uint64_t limit_bytes, kmin_bytes, kmax_bytes, trim_bytes;

	/* time */
	uint64_t hz;
	uint64_t ps_per_tick; /* 10^12 / hz when exact (1 GHz: 1000), else 0 */
	uint64_t epoch_tsc;
	uint64_t now_ps; /* latest time seen */
	uint64_t last_tsc;
	bool started;

	struct mrc_rand r_loss, r_ecn, r_jitter;
	uint8_t plane_state[MRC_FABRIC_MAX_PLANES];

	struct fab_heap heap;
	struct fab_link *links;
	struct fab_switch *sw;
	struct fab_port *ports;
	uint32_t *fib;
	uint32_t *dirty; /* ports with staged deliveries */
	unsigned int n_dirty;
	unsigned int in_flight;
	unsigned int ingress_first; /* port ingress starts with, rotating */

	/* fault events: [0, n_applied) applied, [n_applied, n_ev) pending in time order */
	struct mrc_fabric_event *ev;
	unsigned int n_ev, n_applied, cap_ev;
	/* a timeline offered to replace the pending events: the offerer writes (release),
	 * the poll takes it (exchange) */
	struct mrc_fabric_timeline *offer;
	/*
	 * mrc_fabric_defer_log(): the changes applied, waiting for
	 * mrc_fabric_log_applied(). The applier (the poll) writes notice[] and
	 * then notice_head (release); the logger reads them (acquire) and
	 * writes notice_tail (release). log_deferred is set before the poll.
	 */
	bool log_deferred;
	unsigned int notice_head, notice_tail;
	struct mrc_fabric_event notice[FAB_NOTICES];
	/* A timeline's take, said by the logger once it reaches notice `at`: the
	 * poll writes it, then `ready` (release); the logger clears `ready`. */
	struct fab_timeline_note {
		unsigned int ready, at;
		uint64_t t_ns;
		char source[40];
		unsigned int n_add, pending, dropped;
	} tl_note;

	char why[320];
	struct mrc_fabric_counters cnt;
	struct mrc_nic_emu_counters nic_cnt; /* host ports with several queues */
	struct mrc_nic_capture *cap;	     /* NULL: no capture (fabric_capture.c) */
};

/* ---- capture (fabric_capture.c) ---- */

void fab_capture_burst(struct mrc_fabric *fab, struct rte_mbuf **pkts, unsigned int n);
void fab_capture_free(struct mrc_fabric *fab);

/* ---- numbering (fabric_topo.c) ---- */

static inline unsigned int
fab_t0_of(const struct mrc_fabric *fab, unsigned int host)
{
	return host / fab->cfg.hosts_per_t0;
}

static inline uint32_t
fab_link_host_up(const struct mrc_fabric *fab, unsigned int plane, unsigned int host)
{
	return plane * fab->links_per_plane + host;
}

static inline uint32_t
fab_link_host_down(const struct mrc_fabric *fab, unsigned int plane, unsigned int host)
{
	return plane * fab->links_per_plane + fab->n_hosts + host;
}

static inline uint32_t
fab_link_t0_t1(const struct mrc_fabric *fab, unsigned int plane, unsigned int t0, unsigned int t1)
{
	return plane * fab->links_per_plane + 2 * fab->n_hosts + t0 * fab->n_t1 + t1;
}

static inline uint32_t
fab_link_t1_t0(const struct mrc_fabric *fab, unsigned int plane, unsigned int t1, unsigned int t0)
{
	return plane * fab->links_per_plane + 2 * fab->n_hosts + fab->n_t0 * fab->n_t1 +
	       t1 * fab->n_t0 + t0;
}

static inline unsigned int
fab_sw_t0(const struct mrc_fabric *fab, unsigned int plane, unsigned int t0)
{
	return plane * fab->switches_per_plane + t0;
}

static inline unsigned int
fab_sw_t1(const struct mrc_fabric *fab, unsigned int plane, unsigned int t1)
{
	return plane * fab->switches_per_plane + fab->n_t0 + t1;
}

/* ---- the datapath ---- */

/* Free a packet that left the fabric's custody by being dropped. */
static inline void
fab_drop(struct mrc_fabric *fab, struct fab_item *it)
{
	rte_pktmbuf_free(it->m);
	it->m = NULL;
	fab->in_flight--;
}

/* fabric_topo.c: a link's loss probability and the threshold it implies. */
void fab_link_set_loss(struct fab_link *l, double p);
/* fabric_topo.c: a link's forced ECN mark probability (NIC links keep 0). */
void fab_link_set_mark(struct fab_link *l, double p);

/* fabric_poll.c: schedule `it` (t_ps and link set); drops it when the heap is full. */
void fab_heap_push(struct mrc_fabric *fab, struct fab_item *it);

/* fabric_link.c: `it` reaches link `link`'s queue at it->t_ps. */
void fab_link_enqueue(struct mrc_fabric *fab, uint32_t link, struct fab_item *it);

/* fabric_switch.c: `it` reaches switch `sw` at it->t_ps. */
void fab_switch_input(struct mrc_fabric *fab, struct fab_switch *sw, struct fab_item *it);

/* fabric_ports.c */
unsigned int fab_ingress(struct mrc_fabric *fab);
void fab_deliver(struct mrc_fabric *fab, struct fab_port *p, struct fab_item *it);
void fab_flush(struct mrc_fabric *fab);
int fab_ports_create(struct mrc_fabric *fab, const char **why);
void fab_ports_destroy(struct mrc_fabric *fab);
bool fab_ports_pending(const struct mrc_fabric *fab);
/* Show each port's link as the fabric's state says: on changes, or every port (force). */
void fab_carrier_apply(struct mrc_fabric *fab, bool force);

/* fabric_fault.c */
void fab_apply_event(struct mrc_fabric *fab, struct mrc_fabric_event *ev);
/* The poll's change applied: logged now, or queued (mrc_fabric_defer_log). */
void fab_event_notice(struct mrc_fabric *fab, const struct mrc_fabric_event *ev);
/* The timeline's own line, when the deferred log reaches notice `at` (fabric_timeline.c). */
void fab_timeline_note_log(struct mrc_fabric *fab, unsigned int at);
int fab_target_check(const struct mrc_fabric *fab, const struct mrc_fabric_target *t);
int fab_event_insert(struct mrc_fabric *fab, const struct mrc_fabric_event *evs, unsigned int n);
/* Does any plane, switch or link differ from how the fabric was made? */
bool fab_faults_active(const struct mrc_fabric *fab);

/* fabric_scenario.c: parse a scenario file into evs (room of them), sorted by time;
 * 0 or -errno with the message in why. Reads only the fabric's sizes. */
int fab_scenario_parse(const struct mrc_fabric *fab, const char *path, struct mrc_fabric_event *evs,
	unsigned int *n, unsigned int room, char *why, size_t why_len);

/* fabric_timeline.c: the poll takes an offered timeline (mrc_fabric_timeline_offer). */
void fab_timeline_take(struct mrc_fabric *fab);

/* fabric_poll.c */
uint64_t fab_ps_to_tsc(const struct mrc_fabric *fab, uint64_t ps);

#endif /* FABRIC_PRIV_H */
