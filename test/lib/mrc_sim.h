/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRC_SIM_H
#define MRC_SIM_H

/*
 * mrc_sim: a deterministic multipath channel for the transport tests.
 *
 * A discrete-event model of the network between H hosts (2..8) over P planes
 * (1..8) of a two-tier Clos (doc/architecture.md, "The emulated fabric"),
 * carrying real packets (rte_mbuf chains built by lib/wire) without knowing
 * anything about transport state. No wall clock, no threads, no EAL: the
 * caller passes the time (ns) into every call and the randomness comes from a
 * seeded PRNG, so the same calls with the same seed give the same deliveries,
 * bit for bit.
 *
 * Topology, per plane (every plane is an identical, independent copy):
 *
 *     host h --HOST_UP--> T0(h) --T0_T1--> T1 u --T1_T0--> T0(d) --HOST_DOWN--> host d
 *
 *   T0(h) = h / hosts_per_t0 (default 1: every host on its own T0, so every
 *   path crosses a T1). Hosts on the same T0 skip the T1: HOST_UP, HOST_DOWN.
 *   The plane is the EV's plane field and the T1 is (EV uplink field) mod
 *   n_uplinks, both read through cfg.layout (mrc_ev.h); the destination host
 *   is an argument of mrc_sim_send() (the caller knows it). Every link is
 *   one-way; a cable is two links (MRC_SIM_LINK_HOST / _FABRIC set both).
 *
 * Each link is an output queue: FIFO, rate link_gbps, propagation delay
 * link_delay_ns, store and forward. Time is kept in picoseconds inside so
 * that serialisation is exact at any rate; arrivals are handed out at the
 * first whole nanosecond at or after them.
 *
 *   wire bytes  W = pkt_len + frame_overhead_bytes (default 24: preamble and
 *                   SFD 8, FCS 4, inter-frame gap 12; pkt_len has no FCS)
 *   ser_ps(W)     = ceil(W * 8 * 10^6 / rate_mbps), rate_mbps = round(gbps * 1000)
 *                   (100 Gb/s: exactly 80 ps per byte)
 *   a packet reaching a link at t: start = max(t, busy), busy = start + ser_ps,
 *                   it reaches the next link (or the host) at busy + delay_ps
 *   backlog(t)    = bytes not yet serialised = (busy - t) * rate (wire bytes,
 *                   including the packet in transmission), 0 when idle
 *
 *   Unloaded one-way delay over n hops (4 across a T1, 2 within a T0):
 *   n * (ser_ps(W) + link_delay_ns * 1000) ps, see mrc_sim_base_delay_ps().
 *
 * What a link does to a packet reaching it at t, in this order:
 *
 *   1. Faults. The plane, the switch that owns the queue (T0 of the source
 *      for T0_T1, the T1 for T1_T0, T0 of the destination for HOST_DOWN;
 *      HOST_UP is the NIC's own queue) and the link itself: the first of
 *      them that is not UP decides: DOWN drops (drops[DOWN]), BLACKHOLE
 *      drops silently (drops[BLACKHOLE], so tests can tell them apart). A
 *      (plane, uplink) path black hole is checked where the packet enters
 *      the fabric (its first switch), whatever T0s the hosts hang off.
 *   2. Queue, for a packet of the priority class (outermost DSCP trimmed or
 *      trimmed_lasthop, and control when cfg.control_priority): a separate
 *      strict-priority queue that bypasses the data backlog, is never
 *      trimmed, marked or dropped for congestion; its serialisation time is
 *      charged to the data queue too (later data waits for it), so headers
 *      steal real bandwidth. Every other packet, control included (SACK,
 *      NACK, ACK, probes: small; the control class of doc/protocol.md is
 *      what control_priority models), uses the data queue. With
 *      B = backlog(t) and W the packet's wire bytes:
 *      - trim if trimming is on (trim_threshold_bytes != 0), the packet is
 *        trimmable (outermost DSCP trimmable or trimmable_retx and a WRITE
 *        opcode) and B > trim_threshold or B + W > queue_limit: the frame is
 *        cut at the payload (every header through RETH/ImmDt stays, the
 *        payload, pad and ICRC go), the outermost IPv6 DSCP becomes trimmed
 *        (trimmed_lasthop on HOST_DOWN) and its payload length is fixed;
 *        the inner IPv6 and UDP lengths stay as sent, which is how the parser
 *        recognises a trimmed packet. It then goes to the priority queue.
 *      - else drop if B + W > queue_limit (drops[QUEUE]; 0 = no limit).
 *      - else enqueue; first, if ECN is on (ecn_kmax_bytes != 0), the link
 *        is not the last hop (HOST_DOWN: MRC turns ECN off there,
 *        doc/protocol.md), the outermost ECN is ECT(0) or ECT(1) and
 *        B > Kmin: mark CE with probability (B - Kmin) / (Kmax - Kmin),
 *        1 from Kmax on. The mark is written in the outermost IPv6 header
 *        only (the ICRC masks the traffic class; an SRv6 outer header is
 *        not covered at all), and counted once per packet.
 *      With cfg.nic_queue_plain the HOST_UP queue is the NIC's transmit queue
 *      instead: FIFO with tail drop at queue_limit, never trims or marks.
 *   3. Loss on the wire, after serialisation (a lost frame used the link):
 *      the global loss_prob is drawn once per packet, on its HOST_UP link,
 *      so it is the end-to-end loss rate; per-link (mrc_sim_set_link_loss)
 *      and per-path (mrc_sim_set_path_loss, on entering the fabric)
 *      probabilities are further independent chances. drops[LOSS].
 *   4. Delivery. Past HOST_DOWN the packet arrives at the host at
 *      t_n = busy + delay_ps. With jitter, it arrives at
 *      max(previous arrival on the same path, t_n + U[0, jitter]), path =
 *      (src, dst, plane, T1; the T1 is 0 within a T0), so jitter never
 *      reorders a path; packets of different paths may overtake each other.
 *      Without jitter the arrival is exactly t_n. A trimmed header that
 *      overtook data in a priority queue is not held back for it.
 *
 * Packets are modified in place, as a switch does its own copy: the outermost
 * IPv6 header (ECN, DSCP, payload length) and, when trimming, the chain
 * (segments after the cut go to the free function). So the mbufs handed to
 * mrc_sim_send() must be private: a direct header segment and segment
 * structs with refcnt 1. A shared one is still written but counted in
 * stats.shared_writes (and reported once on stderr), because it corrupts the
 * sender's retransmission copy.
 *
 * Events. Every hop after the first is an event in a binary heap keyed by
 * (time, sequence number), so ties resolve in the order they were created.
 * Events are processed lazily, when a call brings a time: mrc_sim_send(),
 * mrc_sim_recv() and mrc_sim_advance() first process every event at or
 * before `now` (all hosts). A packet that has left its last link waits in
 * its host's arrival heap for mrc_sim_recv(). Time never goes backwards: a
 * `now` below the largest seen so far is taken as that largest value.
 * Fault and loss settings carry no time: they apply to packets that reach an
 * element after the latest `now` passed in (packets already serialised onto
 * a link are not recalled). To change state at time T, call
 * mrc_sim_advance(T) first.
 *
 * Not modelled (on purpose): PFC, control-plane routing, switch buffers
 * shared between ports, corruption other than loss, duplication, and the
 * wait of a priority frame behind the data frame already in transmission
 * (it starts at once; the data behind pays for it instead).
 *
 * Usage:
 *
 *   struct mrc_sim_cfg cfg;
 *   mrc_sim_cfg_defaults(&cfg); cfg.n_hosts = 2; cfg.seed = 7; ...
 *   struct mrc_sim *sim = mrc_sim_create(&cfg);
 *   mrc_sim_set_free_fn(sim, mrc_test_mbuf_free);  (or rte_pktmbuf_free, the default)
 *   mrc_sim_send(sim, 0, 1, m, now);               (takes m)
 *   while ((t = mrc_sim_next_event_ns(sim)) <= deadline)
 *           for (h = 0; h < cfg.n_hosts; h++)     (every host: see below)
 *                   while ((n = mrc_sim_recv(sim, h, pkts, 32, t)) > 0)
 *                           ...pkts[i]->port is the plane...
 *   mrc_sim_free(sim);
 *
 *   A packet that has arrived stays pending until its host receives it, so
 *   a loop that jumps to the next event and receives at some hosts only
 *   sees the same time again and again.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "mrc_ev.h"
#include "mrc_wire_pkt.h"

#define MRC_SIM_MAX_HOSTS   8
#define MRC_SIM_MAX_PLANES  8
#define MRC_SIM_MAX_UPLINKS 16
/** Wildcard for the plane and link ends of mrc_sim_set_link() and mrc_sim_set_link_loss(). */
#define MRC_SIM_ANY 0xff

struct mrc_sim_cfg {
	uint8_t n_hosts;	       /**< 2..MRC_SIM_MAX_HOSTS */
	uint8_t n_planes;	       /**< 1..MRC_SIM_MAX_PLANES */
	uint8_t n_uplinks;	       /**< T1 switches per plane, 1..MRC_SIM_MAX_UPLINKS */
	uint8_t hosts_per_t0;	       /**< hosts sharing a T0, 1..n_hosts; default 1 */
	double link_gbps;	       /**< every link; 0.001..100000 */
	uint64_t link_delay_ns;	       /**< propagation per hop, <= 1 s */
	uint64_t jitter_ns;	       /**< max extra delay per packet, uniform, <= 1 s */
	uint32_t frame_overhead_bytes; /**< added to pkt_len on every link (default 24) */
	uint32_t queue_limit_bytes;    /**< per data queue; 0 = unlimited */
	uint32_t ecn_kmin_bytes;
	uint32_t ecn_kmax_bytes;       /**< 0 = no ECN marking; else >= ecn_kmin_bytes */
	uint32_t trim_threshold_bytes; /**< 0 = the fabric does not trim */
	double loss_prob;	       /**< per packet, end to end, 0..1 */
	bool control_priority;	       /**< control DSCP joins the priority queue too */
	bool nic_queue_plain;	       /**< HOST_UP: tail-drop FIFO, no trim, no ECN */
	uint64_t seed;
	struct mrc_wire_cfg wire;    /**< DSCP map and EV split for parsing */
	struct mrc_ev_layout layout; /**< where plane and uplink sit in the EV */
};

/** Fault states of links, switches, planes. */
enum mrc_sim_state {
	MRC_SIM_UP = 0,
	MRC_SIM_DOWN = 1,      /**< drops everything; visible (mrc_sim_port_up) */
	MRC_SIM_BLACKHOLE = 2, /**< drops everything; looks up */
};

/** One-way links (the first four) and cables (both directions, set calls only). */
enum mrc_sim_link {
	MRC_SIM_LINK_HOST_UP = 0,   /**< host a -> its T0 (b unused) */
	MRC_SIM_LINK_HOST_DOWN = 1, /**< T0 -> host a (b unused): the last hop */
	MRC_SIM_LINK_T0_T1 = 2,	    /**< T0 a -> T1 b */
	MRC_SIM_LINK_T1_T0 = 3,	    /**< T1 a -> T0 b */
	MRC_SIM_LINK_HOST = 4,	    /**< HOST_UP and HOST_DOWN of host a */
	MRC_SIM_LINK_FABRIC = 5,    /**< T0 a -> T1 b and T1 b -> T0 a */
};

/* Why a packet was dropped: X(ENUM, name, help). */
#define MRC_SIM_DROPS(X)                                                                      \
	X(LOSS, loss, "random loss: global, per link or per path")                            \
	X(QUEUE, queue, "queue limit exceeded by a packet that could not be trimmed")         \
	X(DOWN, down, "the plane, a switch or a link on the path is DOWN")                    \
	X(BLACKHOLE, blackhole, "a black-holed element or (plane, uplink) path")              \
	X(UNPARSEABLE, unparseable, "mrc_pkt_parse() refused the packet")                     \
	X(NO_ROUTE, no_route, "the EV's plane >= n_planes, or a host number is out of range") \
	X(NOMEM, nomem, "the simulator could not grow its event heap")

/* clang-format off */
enum mrc_sim_drop {
#define MRC_SIM_DROP_ENUM_(up, low, help) MRC_SIM_DROP_##up,
	MRC_SIM_DROPS(MRC_SIM_DROP_ENUM_)
#undef MRC_SIM_DROP_ENUM_
	MRC_SIM_DROP_MAX,
};
/* clang-format on */

/** "loss", "queue", ...; "?" when out of range. */
const char *mrc_sim_drop_name(enum mrc_sim_drop d);

/** Counters of one scope (all, a plane, a (plane, uplink) path). */
struct mrc_sim_counts {
	uint64_t sent_pkts;	  /**< handed to mrc_sim_send() (routed ones, below totals) */
	uint64_t delivered_pkts;  /**< returned by mrc_sim_recv() */
	uint64_t delivered_bytes; /**< their pkt_len (after any trim) */
	uint64_t drops[MRC_SIM_DROP_MAX];
	uint64_t trims;		  /**< all trims, last-hop ones included */
	uint64_t trims_lasthop;	  /**< trims on HOST_DOWN */
	uint64_t ecn_marks;	  /**< ECT -> CE transitions */
	uint32_t max_queue_bytes; /**< deepest data backlog, this packet included, at enqueue */
};

/**
 * Totals; per plane; per (plane, EV uplink mod n_uplinks), which is the T1
 * for paths across T1s and just the EV's field within a T0. Drops of
 * packets that could not be routed (unparseable, no route) are in the
 * totals only. Invariant: total.sent_pkts = total.delivered_pkts +
 * sum(total.drops) + mrc_sim_in_flight().
 */
struct mrc_sim_stats {
	struct mrc_sim_counts total;
	struct mrc_sim_counts plane[MRC_SIM_MAX_PLANES];
	struct mrc_sim_counts path[MRC_SIM_MAX_PLANES][MRC_SIM_MAX_UPLINKS];
	uint64_t shared_writes; /**< in-place writes into shared mbufs (see the file comment) */
};

/** Counters of one one-way link. */
struct mrc_sim_link_stats {
	uint64_t tx_pkts;  /**< serialised onto the link (including ones then lost) */
	uint64_t tx_bytes; /**< their pkt_len */
	uint64_t drops;	   /**< all reasons, at this link */
	uint64_t trims;
	uint64_t ecn_marks;
	uint32_t max_queue_bytes;
};

struct mrc_sim;

/**
 * Defaults: 2 hosts, 1 plane, 1 uplink, hosts_per_t0 1, 100 Gb/s, 1 us per
 * hop, no jitter, 24 bytes of frame overhead, queue 1 MB, Kmin 25 KB, Kmax
 * 100 KB, trim above 200 KB, no loss, control shares the data queues, the
 * NIC queue behaves like a switch queue, seed 1, wire and layout defaults
 * (KB = 1000 bytes).
 */
void mrc_sim_cfg_defaults(struct mrc_sim_cfg *cfg);

/** 0, or -EINVAL with *why (when why != NULL) naming the problem. */
int mrc_sim_cfg_check(const struct mrc_sim_cfg *cfg, const char **why);

/** A new simulator, or NULL with rte_errno set (EINVAL: see mrc_sim_cfg_check; ENOMEM). */
struct mrc_sim *mrc_sim_create(const struct mrc_sim_cfg *cfg);

/** Free the simulator and, through the free function, every packet still inside. NULL ok. */
void mrc_sim_free(struct mrc_sim *sim);

/**
 * How packets (and segments cut off by trimming) are freed. Default
 * rte_pktmbuf_free; test mbufs (mrc_test_mbuf.h) need mrc_test_mbuf_free.
 * The function must free the whole chain it is given.
 */
void mrc_sim_set_free_fn(struct mrc_sim *sim, void (*fn)(struct rte_mbuf *));

/**
 * Put packet `m` on the wire of host `src_host` toward `dst_host` at
 * `now_ns`. Takes ownership in every case; a dropped packet is freed at
 * once. Processes due events first (see the file comment).
 */
void mrc_sim_send(struct mrc_sim *sim, uint8_t src_host, uint8_t dst_host, struct rte_mbuf *m,
	uint64_t now_ns);

/**
 * Up to `max` packets that have arrived at `host` by `now_ns`, in arrival
 * order (ties: the order they left the last link). out[i]->port is the
 * plane they came on. The caller owns them. Returns the count.
 */
unsigned int mrc_sim_recv(struct mrc_sim *sim, uint8_t host, struct rte_mbuf **out,
	unsigned int max, uint64_t now_ns);

/** Process every event at or before `now_ns` without receiving. */
void mrc_sim_advance(struct mrc_sim *sim, uint64_t now_ns);

/**
 * The earliest time (ns, rounded up) at which anything is pending: an
 * arrival at a host (including one that arrived earlier and has not been
 * received) or a packet reaching its next link. Never later than the next
 * arrival, so a loop "t = next; recv(t) at every host" sees every packet,
 * but a recv at that time may return none. UINT64_MAX when the network is
 * empty.
 */
uint64_t mrc_sim_next_event_ns(const struct mrc_sim *sim);

/** Packets inside: on links, in queues, or arrived and not yet received. */
unsigned int mrc_sim_in_flight(const struct mrc_sim *sim);

/**
 * Set a link's state. `plane`, `a` and `b` may be MRC_SIM_ANY (every plane,
 * every link end); `b` is ignored for the host kinds.
 * @return 0, or -EINVAL (index out of range, bad kind or state).
 */
int mrc_sim_set_link(struct mrc_sim *sim, enum mrc_sim_link kind, uint8_t plane, uint8_t a,
	uint8_t b, enum mrc_sim_state st);

/** Loss probability (0..1) of a link or links, as mrc_sim_set_link() selects them. */
int mrc_sim_set_link_loss(
	struct mrc_sim *sim, enum mrc_sim_link kind, uint8_t plane, uint8_t a, uint8_t b, double p);

/** State of T0 switch `t0` (host h hangs off T0 h / hosts_per_t0) of a plane. 0 or -EINVAL. */
int mrc_sim_set_t0(struct mrc_sim *sim, uint8_t plane, uint8_t t0, enum mrc_sim_state st);

/** State of T1 switch `t1` (0..n_uplinks-1) of a plane. 0 or -EINVAL. */
int mrc_sim_set_t1(struct mrc_sim *sim, uint8_t plane, uint8_t t1, enum mrc_sim_state st);

/** State of a whole plane. 0 or -EINVAL. */
int mrc_sim_set_plane(struct mrc_sim *sim, uint8_t plane, enum mrc_sim_state st);

/** Black-hole every packet whose EV says (plane, uplink mod n_uplinks). 0 or -EINVAL. */
int mrc_sim_set_path_blackhole(struct mrc_sim *sim, uint8_t plane, uint8_t uplink, bool on);

/** Loss probability of the (plane, uplink mod n_uplinks) path. 0 or -EINVAL. */
int mrc_sim_set_path_loss(struct mrc_sim *sim, uint8_t plane, uint8_t uplink, double p);

/** The global, per-packet loss probability (clamped to 0..1). */
void mrc_sim_set_loss(struct mrc_sim *sim, double p);

/**
 * What host `host` sees of its port on `plane`: false when the plane or
 * either direction of its cable is DOWN (a black hole looks up).
 */
bool mrc_sim_port_up(const struct mrc_sim *sim, uint8_t host, uint8_t plane);

const struct mrc_sim_stats *mrc_sim_stats(const struct mrc_sim *sim);

/** Counters of one one-way link (not the cable kinds). 0 or -EINVAL. */
int mrc_sim_link_stats(const struct mrc_sim *sim, enum mrc_sim_link kind, uint8_t plane, uint8_t a,
	uint8_t b, struct mrc_sim_link_stats *out);

/**
 * Unloaded one-way delay, in picoseconds, of a packet of `pkt_len` bytes
 * from `src` to `dst` (without jitter): hops * (ser_ps + delay_ps). The
 * packet is received at the first whole ns at or after send + this.
 * 0 for hosts out of range.
 */
uint64_t mrc_sim_base_delay_ps(
	const struct mrc_sim *sim, uint8_t src, uint8_t dst, uint32_t pkt_len);

/** `ev` with its plane and uplink fields (per `l`) replaced; extra high bits are cut. */
static inline uint32_t
mrc_sim_ev_with(const struct mrc_ev_layout *l, uint32_t ev, uint32_t plane, uint32_t uplink)
{
	if (l->plane_bits != 0) {
		const uint32_t mask = (uint32_t)((UINT64_C(1) << l->plane_bits) - 1);

		ev = (ev & ~(mask << l->plane_shift)) | ((plane & mask) << l->plane_shift);
	}
	if (l->uplink_bits != 0) {
		const uint32_t mask = (uint32_t)((UINT64_C(1) << l->uplink_bits) - 1);

		ev = (ev & ~(mask << l->uplink_shift)) | ((uplink & mask) << l->uplink_shift);
	}
	return ev;
}

#endif /* MRC_SIM_H */
