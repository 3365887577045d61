/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRC_FABRIC_H
#define MRC_FABRIC_H

/**
 * @file
 * The emulated multi-plane fabric (doc/architecture.md, "The emulated
 * fabric"; doc/protocol.md, "Traffic classes, DSCP and trimming" and "SRv6
 * addressing plan"): a two-tier Clos per plane, behind ordinary ethdev ports.
 *
 * Hosts see NICs. Every (host, plane) attachment is a net_ring ethdev port
 * made with rte_eth_from_rings() over two rings the fabric owns: the port's
 * tx queue is the host -> fabric ring and its rx queue the fabric -> host
 * ring. A host only ever calls rte_eth_tx_burst()/rte_eth_rx_burst() on
 * mrc_fabric_port(fab, host, plane), exactly as on a real NIC port, and
 * reads the port's link status. Received mbufs have `port` set to the port
 * they arrived on.
 *
 * Topology, per plane (every plane an identical, independent copy; no link
 * between planes):
 *
 *     host h --HOST_UP--> T0 t --T0_T1--> T1 u --T1_T0--> T0 t' --HOST_DOWN--> host d
 *
 *   T0 of host h = h / hosts_per_t0; n_t0 = ceil(n_hosts / hosts_per_t0);
 *   every T0 has a link to every T1 of its plane (full mesh) and back.
 *   Links are one-way; a cable is a pair.
 *
 * Addressing (lib/ev/mrc_ev_path.h, the plan QPs build paths with):
 *   uSID = (plane + 1) << 12 | tier << 8 | index, tier 0 = T0, 1 = T1,
 *   0xE = host; block cfg.block (fcbb:0000::/32). A host's index is its host
 *   number (the same in every plane). A path across T1s is
 *   [T0 src, T1, T0 dst, host dst]; within one T0, [T0, host dst].
 *
 * Forwarding. A switch is an IPv6 router with a static FIB built at create
 * time: its own uSID is a local SID (RFC 9800 NEXT-C-SID End, LBL 32, LNFL
 * 16), and it has a /48 route per next uSID it can reach in one hop: a T0
 * to every T1 of its plane (its uplinks) and to its own hosts (downlinks),
 * a T1 to every T0 of its plane. Other destinations have no route. For an
 * SRv6 packet (outer IPv6 followed by IPv6 or an SRH) arriving at a switch:
 *
 *   1. outer DA outside block -> drop (wrong_block);
 *   2. look up the active uSID (DA bits 32..47):
 *      - local (own uSID), argument (the bits after it) != 0: hop limit <= 1 ->
 *        drop (hop_limit); else shift the uSIDs left by 16 bits, zero-fill,
 *        decrement the hop limit, look up again (2.);
 *      - local, argument 0, SRH with segments_left > 0: hop limit <= 1 ->
 *        drop; else segments_left -= 1, DA = segment_list[segments_left],
 *        decrement the hop limit, check the block, look up again (2.);
 *      - local, nothing left -> drop (ends_here: the path ends at a switch);
 *      - a route and this switch did no End processing: plain IPv6
 *        transit (hop limit <= 1 -> drop, else decrement), forward;
 *      - a route after End processing: forward (End already decremented);
 *      - no route -> drop (no_route).
 *   The outer DA, hop limit and SRH segments_left are rewritten in the
 *   packet, so the receiving host sees DA = block:<host uSID>:: and a hop
 *   limit lowered by the number of switches crossed (3 across a T1, 1
 *   within a T0).
 *
 * Structured-EV packets (one IPv6 header, no IPv6 or SRH after it) are routed by
 * destination: the inner DA is looked up among the hosts' NIC addresses
 * (cfg.nic_addr) once on entry; a T0 sends them down when the destination
 * hangs off it, else up to T1 number hash(UDP sport, flow label) mod n_t1
 * (ECMP on the EV); a T1 sends them down to the destination's T0. Hop
 * limit as plain IPv6. An unknown destination is dropped (no_route).
 *
 * Links. Every link has rate cfg.link_gbps, propagation delay
 * cfg.link_delay_ns, and at its near end an egress queue, which is one
 * number, the time its transmitter is busy until (FIFO, work conserving,
 * store and forward; time is kept in picoseconds so serialisation is exact
 * at any rate):
 *
 *   W       = pkt_len + frame_overhead_bytes        (preamble, FCS, gap)
 *   ser(W)  = ceil(W * 8e6 / rate_mbps) ps          (100 Gb/s: 80 ps per byte)
 *   backlog = (busy - t) * rate_mbps / 8e6 bytes    (not yet serialised, 0 when idle)
 *
 * A packet reaching a link at t, in order:
 *   1. Faults: the plane and the link; DOWN drops (down), BLACKHOLE drops
 *      silently (blackhole). (Switch states are checked on arrival at the
 *      switch, before routing.)
 *   2. Queue. Priority class = outermost DSCP trimmed or trimmed_lasthop
 *      (or control, with cfg.control_priority): a strict-priority queue that
 *      is never trimmed, marked or dropped for congestion; its serialisation
 *      is charged to the data queue too, so headers steal real bandwidth.
 *      Data class, with B = backlog and W the frame:
 *      - trim when trimming is on (trim_threshold_bytes != 0), the outermost
 *        DSCP is trimmable or trimmable_retx, the packet parses as an MRC
 *        WRITE, and B > trim_threshold or B + W > queue_limit: cut after the
 *        transport headers (everything through RETH/ImmDt stays; payload,
 *        pad and ICRC go), outermost DSCP := trimmed (trimmed_lasthop on a
 *        HOST_DOWN link), outermost IPv6 payload length fixed, inner
 *        lengths left as sent (how the receiver's parser recognises a trim);
 *        then it takes the priority queue;
 *      - else drop if B + W > queue_limit (queue);
 *      - else mark CE with probability (B - Kmin) / (Kmax - Kmin), 1 from
 *        Kmax on, when ECN is on (ecn_kmax_bytes != 0), the outermost ECN is
 *        ECT(0)/ECT(1), B > Kmin, and the link is not a HOST_DOWN link
 *        (unless cfg.ecn_last_hop: MRC turns ECN off on the last hop); the
 *        mark goes in the outermost IPv6 header only; then enqueue.
 *      HOST_UP links are the NIC's transmit queue: tail drop at the limit,
 *      never trim or mark (a NIC is not a switch).
 *      Forced marking (mrc_fabric_set_mark, a fault): a data-class ECT
 *      packet on a switch's egress link is marked CE with the link's mark
 *      probability whatever its queue, as behind traffic the fabric does
 *      not carry; counted as an ECN mark.
 *   3. Loss on the wire after serialisation (the lost frame used the link):
 *      probability = the link's loss (loss).
 *   4. The packet reaches the far end at done + delay (+ jitter): a switch
 *      (routing, above) or the host, whose rx ring gets it (full ring:
 *      host_rx_full). With cfg.link_jitter_ns, each packet's propagation
 *      on each link gets U[0, jitter] ns more, but never reaches the far
 *      end before the packet of its class (data or priority) that left the
 *      link before it: a link, and so a path, does not reorder, while
 *      packets on different paths overtake each other.
 *
 * Events. Each hop is an entry in one binary heap keyed by (time, sequence),
 * so ties resolve in creation order and each queue sees packets in time
 * order. mrc_fabric_poll(now) processes every hop and scheduled fault due at
 * or before now (a fault at T applies before packets reaching an element at
 * T), then takes what the hosts transmitted since the last poll (stamped
 * now), then hands delivered packets to the hosts' rx rings in bursts.
 * Time is the caller's TSC (cfg.tsc_hz), zero at the fabric's start (first
 * poll, or mrc_fabric_start()). With a fake clock and a seed everything is
 * deterministic: the PRNG is split into a loss stream and an ECN stream.
 * The fabric holds at most cfg.max_in_flight packets; beyond that it leaves
 * them in the hosts' tx rings, which fill, and rte_eth_tx_burst() returns
 * short, as on a NIC whose descriptors are all in use.
 *
 * Faults. Planes, switches and links are UP, DOWN or BLACKHOLE (up, link
 * lights on, forwarding nothing). A host port shows link DOWN (through
 * rte_eth_dev_set_link_down) when its plane, its T0 or either direction of
 * its cable is DOWN; a black hole keeps it up. Loss is per link; a target
 * wider than a link sets every link it covers. Scenario files
 * (config/scenarios/<name>.ini) schedule such changes; every applied change is
 * logged once at NOTICE ("mrc.fabric") and kept in an event log.
 *
 * Packets are modified in place, as a switch changes its own copy: the
 * outermost IPv6 header (DA, hop limit, traffic class, payload length), the
 * SRH's segments_left, and on trimming the chain (segments after the cut
 * are freed). So the header segment (holding Ethernet, the outer IPv6
 * header and any SRH) must be direct with refcnt 1; others are dropped
 * (shared_header). Ethernet headers are left as the sender wrote them
 * (ring ports are promiscuous and have no MAC of their own).
 *
 * Threading: one lcore polls; fault setters, scenario loading and stats
 * getters are for that lcore, or for before it starts (the daemon routes
 * console commands to it through a ring). A fault timeline may be replaced
 * from another thread while it polls (mrc_fabric_timeline_offer: one
 * published pointer). The poll path allocates nothing, takes no lock,
 * makes no syscall and logs only fault changes.
 *
 * Not modelled: PFC, shared switch buffers, control-plane routing (there is
 * none: tables are static, as in MRC), corruption, duplication, reordering
 * within a link, ICMP.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_mempool.h>

#include "mrc_counters.h"
#include "mrc_wire_pkt.h"

#define MRC_FABRIC_MAX_HOSTS  64
#define MRC_FABRIC_MAX_PLANES 8
#define MRC_FABRIC_MAX_T1     64
/** Scheduled events (flaps count one per transition) plus recorded setter calls. */
#define MRC_FABRIC_MAX_EVENTS 4096

/** The fabric's configuration; mrc_fabric_cfg_defaults() documents each default. */
struct mrc_fabric_cfg {
	char name[12];		       /**< prefix of ring and port names; "" = "fab<n>" */
	uint16_t n_hosts;	       /**< 1..MRC_FABRIC_MAX_HOSTS (default 2) */
	uint8_t n_planes;	       /**< 1..8 (8) */
	uint8_t hosts_per_t0;	       /**< 1..n_hosts (1: a T0 per host) */
	uint8_t n_t1;		       /**< T1 switches per plane, 1..MRC_FABRIC_MAX_T1 (4) */
	uint32_t block;		       /**< SRv6 block, the first 32 bits (0xfcbb0000) */
	double link_gbps;	       /**< every link, 0.001..10000 (100) */
	uint32_t link_delay_ns;	       /**< propagation per hop, <= 1 s (1000 = 1 us) */
	uint32_t link_jitter_ns;       /**< extra propagation per packet and hop, <= 1 s (0) */
	uint32_t frame_overhead_bytes; /**< added to pkt_len per frame, <= 1024 (24) */
	uint32_t queue_limit_bytes;    /**< per egress data queue, 1..2^30 (1 MB) */
	uint32_t ecn_kmin_bytes;       /**< (25 KB) */
	uint32_t ecn_kmax_bytes;       /**< 0 = no marking; else >= kmin (100 KB) */
	bool ecn_last_hop;	       /**< mark on T0 -> host links too (false) */
	uint32_t trim_threshold_bytes; /**< 0 = the fabric does not trim (200 KB) */
	bool control_priority;	       /**< control DSCP rides the priority queue (false) */
	double loss_prob;	       /**< initial loss probability of every link, 0..1 (0) */
	uint32_t ring_size;	       /**< entries per host ring, power of 2, 64..65536 (1024) */
	/**
	 * rx and tx queues of each host port, 1..MRC_NIC_MAX_QUEUES (1): one
	 * per worker of the host. With more than one, delivery plays the NIC:
	 * each packet goes to the rx queue a rule recorded for the port
	 * (mrc_flow_ops_rec, drivers/nic) names, else the queue its RSS
	 * hash picks (mrc_nic_emu_rss_hash()); ingress takes from every tx
	 * queue. doc/steering.md.
	 */
	uint16_t host_queues;
	uint32_t max_in_flight;	  /**< packets inside the fabric, 64..2^24 (65536) */
	uint64_t tsc_hz;	  /**< the clock now_tsc counts in (required, no default) */
	uint64_t seed;		  /**< PRNG seed (1) */
	int socket_id;		  /**< memory and rings (SOCKET_ID_ANY) */
	struct mrc_wire_cfg wire; /**< the DSCP code points (mrc_wire_cfg_defaults) */
	/** Hosts' NIC addresses, for structured-EV packets (default fd00::<h+1>). */
	uint8_t nic_addr[MRC_FABRIC_MAX_HOSTS][MRC_IPV6_ADDR_LEN];
};

/**
 * Defaults: 2 hosts, 8 planes, one host per T0, 4 T1 per plane, block
 * fcbb:0000::/32, 100 Gb/s, 1 us per hop, no jitter, 24 bytes of frame overhead, queue
 * 1 MB, ECN 25 KB..100 KB (not on the last hop), trim above 200 KB, control
 * in the data class, no loss, rings of 1024, 65536 packets in flight, seed
 * 1, wire defaults, NIC addresses fd00::1, fd00::2, ... (KB = 1000 bytes).
 * tsc_hz is left 0: the caller must set it.
 */
void mrc_fabric_cfg_defaults(struct mrc_fabric_cfg *cfg);

/** 0, or -EINVAL with *why (when why != NULL) naming the field and its range. */
int mrc_fabric_cfg_check(const struct mrc_fabric_cfg *cfg, const char **why);

struct mrc_fabric;
struct mrc_nic_capture;

/**
 * Build the topology, its tables, the rings and the ports (not started: see
 * mrc_fabric_start_ports()). Needs the EAL. n_hosts * n_planes ports must
 * be free (Debian's DPDK allows RTE_MAX_ETHPORTS = 32 per process).
 * @return the fabric, or NULL with rte_errno set and *why (static text).
 */
struct mrc_fabric *mrc_fabric_create(const struct mrc_fabric_cfg *cfg, const char **why);

/** Remove the ports, free every packet inside and the fabric. NULL is fine. */
void mrc_fabric_free(struct mrc_fabric *fab);

/** The ethdev port of `host` on `plane`; RTE_MAX_ETHPORTS when out of range. */
uint16_t mrc_fabric_port(const struct mrc_fabric *fab, unsigned int host, unsigned int plane);

/**
 * Configure (one rx and one tx queue; `pool` only satisfies rx queue setup,
 * the ring PMD never allocates) and start every port, then show each
 * port's link as the fabric's state says. A caller that sets ports up
 * itself, like any NIC, skips this. 0 or a negative ethdev error.
 */
int mrc_fabric_start_ports(struct mrc_fabric *fab, struct rte_mempool *pool);

/** What the host sees of its port: false when its plane, T0 or cable is DOWN. */
bool mrc_fabric_port_up(const struct mrc_fabric *fab, unsigned int host, unsigned int plane);

/**
 * Make `now_tsc` the fabric's time zero (else the first poll's now is; only
 * the first call, or a call before the first poll, sets it), and set every
 * port's link status from the fabric's state (a port the caller configured
 * and started itself comes up UP, whatever the fabric says).
 */
void mrc_fabric_start(struct mrc_fabric *fab, uint64_t now_tsc);

/**
 * Run the fabric up to `now_tsc`: due hops and scheduled faults, then the
 * hosts' transmissions, then deliveries (see the file comment). A `now`
 * below one seen before counts as that one.
 * @return packets taken from the hosts plus hops completed (arrivals at a
 *   switch or a host): 0 means there was nothing to do.
 */
unsigned int mrc_fabric_poll(struct mrc_fabric *fab, uint64_t now_tsc);

/**
 * The earliest TSC at which a poll has work: a packet reaching its next
 * element or a scheduled fault (rounded up, so polling then processes it),
 * or the last poll's time when a host ring holds packets not taken yet.
 * UINT64_MAX when nothing is pending.
 */
uint64_t mrc_fabric_next_event_tsc(const struct mrc_fabric *fab);

/** Packets inside the fabric (between host tx rings and host rx rings). */
unsigned int mrc_fabric_in_flight(const struct mrc_fabric *fab);

/**
 * Bytes `host`'s NIC port on `plane` has yet to serialise (its HOST_UP link's
 * data backlog) at the fabric's latest time, not counting packets still in
 * the port's tx ring: what a NIC knows of its own tx queue, so a sender can
 * pick only planes whose port has tx room (doc/protocol.md, "Picking";
 * doc/architecture.md, "NIC transmit room"). 0 for a host or plane out of
 * range.
 */
uint64_t mrc_fabric_tx_backlog(const struct mrc_fabric *fab, unsigned int host, unsigned int plane);
/* The same with the fabric as `const void *`: the engine's tx backlog source
 * (mrc_shard_cfg.tx_backlog, with tx_backlog_ctx the fabric). */
uint64_t mrc_fabric_tx_backlog_cb(const void *fab, unsigned int host, unsigned int plane);

/** The fabric's clock: ns since its start (0 before it started). */
uint64_t mrc_fabric_now_ns(const struct mrc_fabric *fab);

/* ---- faults ---- */

enum mrc_fabric_state {
	MRC_FABRIC_UP = 0,
	MRC_FABRIC_DOWN = 1,	  /**< forwards nothing; ports show link down */
	MRC_FABRIC_BLACKHOLE = 2, /**< forwards nothing; looks up */
};

/** What a fault names. */
enum mrc_fabric_elem {
	MRC_FABRIC_ELEM_FABRIC = 0, /**< every plane */
	MRC_FABRIC_ELEM_PLANE,	    /**< plane */
	MRC_FABRIC_ELEM_T0,	    /**< plane, a = T0 */
	MRC_FABRIC_ELEM_T1,	    /**< plane, a = T1 */
	MRC_FABRIC_ELEM_LINK,	    /**< plane, the cable T0 a <-> T1 b (dir picks a side) */
	MRC_FABRIC_ELEM_HOST_LINK,  /**< plane, the cable host a <-> its T0 */
	MRC_FABRIC_ELEM_MAX,
};

/** Which one-way links of a cable: UP is toward T1 (and host -> T0). */
enum mrc_fabric_dir {
	MRC_FABRIC_DIR_BOTH = 0,
	MRC_FABRIC_DIR_UP,
	MRC_FABRIC_DIR_DOWN,
};

struct mrc_fabric_target {
	uint8_t elem;  /**< enum mrc_fabric_elem */
	uint8_t dir;   /**< enum mrc_fabric_dir (links only) */
	uint8_t plane; /**< all but FABRIC */
	uint16_t a, b; /**< see enum mrc_fabric_elem */
};

enum mrc_fabric_action {
	MRC_FABRIC_ACT_UP = 0,
	MRC_FABRIC_ACT_DOWN,
	MRC_FABRIC_ACT_BLACKHOLE,
	MRC_FABRIC_ACT_LOSS, /**< set the loss probability of every link the target covers */
	MRC_FABRIC_ACT_MARK, /**< set the forced ECN mark probability of those links */
	/** drop the next `count` endpoint requests (0xD8) each link the target covers carries */
	MRC_FABRIC_ACT_DROP_REQUEST,
	/**
	 * every plane, switch and link UP, loss back to cfg.loss_prob, no forced
	 * marks or request drops: what a replaced timeline leaves (target: fabric)
	 */
	MRC_FABRIC_ACT_CLEAR,
};

/** One fault change: scheduled (scenario) or applied (setter, or scenario when due). */
struct mrc_fabric_event {
	uint64_t t_ns;	/**< fabric time it takes effect (setters: when called) */
	uint64_t t_tsc; /**< the same on the caller's clock (set when applied) */
	struct mrc_fabric_target target;
	uint8_t action;	 /**< enum mrc_fabric_action */
	double loss;	 /**< MRC_FABRIC_ACT_LOSS */
	double mark;	 /**< MRC_FABRIC_ACT_MARK */
	uint32_t count;	 /**< MRC_FABRIC_ACT_DROP_REQUEST */
	char source[40]; /**< "<file>:<section>" for scenario events, "api" for setters */
};

/**
 * Set the state of what `t` names, now. Recorded in the event log and
 * logged at NOTICE. 0, or -EINVAL (index out of range, bad element or state).
 */
int mrc_fabric_set_state(
	struct mrc_fabric *fab, const struct mrc_fabric_target *t, enum mrc_fabric_state st);

/** Set the loss probability (0..1) of every link `t` covers. 0 or -EINVAL. */
int mrc_fabric_set_loss(struct mrc_fabric *fab, const struct mrc_fabric_target *t, double p);

/**
 * Set the forced ECN mark probability (0..1) of every switch egress link
 * `t` covers (the loss rule: a switch covers its egress links; a NIC's own
 * queue, a HOST_UP link, is never marked). 0 or -EINVAL.
 */
int mrc_fabric_set_mark(struct mrc_fabric *fab, const struct mrc_fabric_target *t, double p);

/** Shorthand: mrc_fabric_set_state() of a whole plane. */
int mrc_fabric_set_plane(struct mrc_fabric *fab, unsigned int plane, enum mrc_fabric_state st);

/**
 * Read a scenario file (format in config/scenarios/README.md and the
 * shipped examples) and schedule its events, times counted from the
 * fabric's start; events already due fire at the next poll. Strict: an
 * unknown section or key, a missing key, a value out of range makes it fail
 * as a whole (nothing scheduled) with *why = "<file>:<line>: [<section>]
 * <key>: <problem> (allowed ...)", valid until the next call.
 * @return the number of events scheduled, or -EINVAL / -ENOENT / -ENOSPC.
 */
int mrc_fabric_load_scenario(struct mrc_fabric *fab, const char *path, const char **why);

/*
 * A fault timeline replaced while the fabric runs (a daemon's reload,
 * doc/service.md). The thread that wants it (control) parses the file
 * into a timeline and offers it; the thread that polls takes it at its
 * next poll, through one published pointer (no lock, no allocation on its
 * side): it undoes every fault then in force (one MRC_FABRIC_ACT_CLEAR
 * event in the log, only when something was not as configured), drops the
 * old timeline's changes still pending, and schedules the new one's with
 * its t = 0 at that poll's time. The event log keeps what was applied
 * before (its oldest entries dropped if the log would pass
 * MRC_FABRIC_MAX_EVENTS). The log's old array goes back inside the
 * timeline, which the offerer frees once taken (or withdrawn): the poller
 * is the only reader of the log while it runs, so nobody holds the old
 * array by then.
 */
struct mrc_fabric_timeline;

/**
 * Parse `path` (the scenario format; NULL or "" = no faults) against the
 * fabric's sizes, which are fixed at create, so any thread may call it
 * while another polls. Nothing changes in the fabric.
 * @return the timeline, or NULL with `why` naming the file, line, section
 *   and key, as mrc_fabric_load_scenario() does.
 */
struct mrc_fabric_timeline *mrc_fabric_timeline_load(
	const struct mrc_fabric *fab, const char *path, char *why, size_t len);

/** The changes the timeline schedules (a flap counts each transition). */
unsigned int mrc_fabric_timeline_events(const struct mrc_fabric_timeline *tl);

/**
 * Offer `tl` to the polling thread (any thread, one offerer at a time).
 * 0, or -EBUSY while an earlier offer is not taken yet.
 */
int mrc_fabric_timeline_offer(struct mrc_fabric *fab, struct mrc_fabric_timeline *tl);

/** True once the poller took `tl`; *t_ns (may be NULL): the fabric time it did. */
bool mrc_fabric_timeline_taken(const struct mrc_fabric_timeline *tl, uint64_t *t_ns);

/**
 * Take back an offer not taken yet (say, the poller has stopped). True: it
 * was not taken and will not be; false: it was (or is being: wait for
 * mrc_fabric_timeline_taken() before freeing).
 */
bool mrc_fabric_timeline_withdraw(struct mrc_fabric *fab, struct mrc_fabric_timeline *tl);

/** Free a timeline never offered, taken, or withdrawn. NULL is fine. */
void mrc_fabric_timeline_free(struct mrc_fabric_timeline *tl);

/**
 * Changes the poll may apply between two mrc_fabric_log_applied() calls
 * and still have logged (a power of two): mrcd calls it each millisecond,
 * mrc-fabric every 10 ms, so changes closer together than 40 us there (4
 * us in mrcd) outrun it, and those beyond are counted, not logged.
 */
#define MRC_FABRIC_LOG_QUEUE 256

/**
 * Where a change the poll applies is logged (at NOTICE, one line each).
 * Off (the default): at once, by the thread that applies it. On: the poll
 * queues a copy and mrc_fabric_log_applied() logs it, so a poller that
 * runs a data path (a worker lcore) never formats or writes a log line; a
 * change the full queue cannot take is counted (events_unlogged), not
 * logged. Call it before the poll starts. Setters log at once either way.
 */
void mrc_fabric_defer_log(struct mrc_fabric *fab, bool on);

/**
 * Log the changes the poll queued since the last call (mrc_fabric_defer_log),
 * in the order they took effect. One thread calls it, any thread but the
 * poller's may. @return how many it logged.
 */
unsigned int mrc_fabric_log_applied(struct mrc_fabric *fab);

/**
 * The changes applied so far, in the order they took effect.
 * @return how many; *events points at them (valid until the next setter
 *   or scenario load).
 */
unsigned int mrc_fabric_event_log(
	const struct mrc_fabric *fab, const struct mrc_fabric_event **events);

/** Scheduled changes not yet applied. */
unsigned int mrc_fabric_events_pending(const struct mrc_fabric *fab);

/** "plane 3 down", "plane 1 link t0 0 - t1 2 (up side) loss 0.01", ...; snprintf semantics. */
int mrc_fabric_event_format(char *buf, size_t size, const struct mrc_fabric_event *ev);

/* ---- counters ---- */

/* Whole fabric. Every drop reason is a drop_* counter here. */
#define MRC_FABRIC_COUNTERS(X)                                                                     \
	X(host_tx_pkts, "pkts", "packets taken from the hosts' transmit rings")                    \
	X(host_tx_bytes, "bytes", "their pkt_len")                                                 \
	X(delivered_pkts, "pkts", "packets put on the hosts' receive rings")                       \
	X(delivered_bytes, "bytes", "their pkt_len (after any trim)")                              \
	X(trims, "pkts", "packets trimmed to their headers")                                       \
	X(trims_lasthop, "pkts", "of which on a T0 -> host link")                                  \
	X(ecn_marks, "pkts", "ECT -> CE marks")                                                    \
	X(events_applied, "events", "fault changes applied (scenario and setters)")                \
	X(events_unlogged, "events",                                                               \
		"changes (and replaced timelines) applied but not logged: the deferred log's "     \
		"queue was full")                                                                  \
	X(drop_unparseable, "pkts", "not IPv6, or the outer IPv6 header not in the first segment") \
	X(drop_shared_header, "pkts", "header segment shared or indirect: cannot rewrite it")      \
	X(drop_down, "pkts", "a DOWN plane, switch or link")                                       \
	X(drop_blackhole, "pkts", "a black-holed plane, switch or link")                           \
	X(drop_wrong_block, "pkts", "outer destination outside the fabric's SRv6 block")           \
	X(drop_no_route, "pkts", "no route for the active uSID or destination address")            \
	X(drop_hop_limit, "pkts", "hop limit exhausted (RFC 9800: ICMP time exceeded)")            \
	X(drop_bad_srh, "pkts", "SRH malformed or outside the first segment when needed")          \
	X(drop_ends_here, "pkts", "path ends at a switch: no uSID and no segment left")            \
	X(drop_queue, "pkts", "queue limit exceeded by a packet that could not be trimmed")        \
	X(drop_loss, "pkts", "random loss on a link")                                              \
	X(drop_request, "pkts", "endpoint requests a drop_request fault took")                     \
	X(drop_host_rx_full, "pkts", "the destination host's receive ring was full")               \
	X(drop_no_mbuf, "pkts", "no mbuf to capture a zero-copy payload at ingress")               \
	X(wire_copies, "pkts", "packets whose payload was copied at ingress (the NIC's DMA)")      \
	X(drop_no_room, "pkts", "the fabric held max_in_flight packets already")

/* One one-way link (its egress queue and wire). */
#define MRC_FABRIC_LINK_COUNTERS(X)                                                               \
	X(tx_pkts, "pkts", "packets serialised onto the link (lost ones included)")               \
	X(tx_bytes, "bytes", "their pkt_len")                                                     \
	X(prio_pkts, "pkts", "of which through the priority queue")                               \
	X(trims, "pkts", "packets trimmed at this queue")                                         \
	X(ecn_marks, "pkts", "ECT -> CE marks at this queue")                                     \
	X(queue_peak_bytes, "bytes", "deepest data backlog at an enqueue, the packet included")   \
	X(drop_down, "pkts", "dropped: link or plane DOWN")                                       \
	X(drop_blackhole, "pkts", "dropped: link or plane BLACKHOLE")                             \
	X(drop_queue, "pkts", "dropped: queue limit, not trimmable")                              \
	X(drop_loss, "pkts", "lost on the wire")                                                  \
	X(drop_request, "pkts", "an endpoint request a drop_request fault took")                  \
	X(drop_host_rx_full, "pkts", "last hop: the host's receive ring was full")                \
	X(offered_data_pkts, "pkts",                                                              \
		"MRC data packets (BTH opcode SEND/WRITE) handed to the link, before any fault, " \
		"queue or loss: what the sender put on this hop")                                 \
	X(offered_ctrl_pkts, "pkts", "every other packet handed to the link (control, probes)")

/* One switch (its routing, plus the sums of the queues it owns). */
#define MRC_FABRIC_SWITCH_COUNTERS(X)                                                      \
	X(rx_pkts, "pkts", "packets taken in (switch and plane not faulty)")               \
	X(rx_bytes, "bytes", "their pkt_len")                                              \
	X(usid_shifts, "events", "NEXT-C-SID shifts (own uSID active, argument non-zero)") \
	X(srh_advances, "events", "SRH segments consumed (container spent)")               \
	X(transit_pkts, "pkts", "forwarded on a route without End processing")             \
	X(ecmp_pkts, "pkts", "structured-EV packets sent up by hashing the EV")            \
	X(trims, "pkts", "packets trimmed at its egress queues")                           \
	X(ecn_marks, "pkts", "ECT -> CE marks at its egress queues")                       \
	X(queue_peak_bytes, "bytes", "deepest data backlog of its egress queues")          \
	X(drop_down, "pkts", "dropped: switch or plane DOWN")                              \
	X(drop_blackhole, "pkts", "dropped: switch or plane BLACKHOLE")                    \
	X(drop_wrong_block, "pkts", "dropped: DA outside the block")                       \
	X(drop_no_route, "pkts", "dropped: no route for the active uSID or destination")   \
	X(drop_hop_limit, "pkts", "dropped: hop limit exhausted")                          \
	X(drop_bad_srh, "pkts", "dropped: SRH malformed")                                  \
	X(drop_ends_here, "pkts", "dropped: path ends at this switch")

MRC_COUNTER_BLOCK_DECLARE(mrc_fabric_counters, MRC_FABRIC_COUNTERS);
MRC_COUNTER_BLOCK_DECLARE(mrc_fabric_link_counters, MRC_FABRIC_LINK_COUNTERS);
MRC_COUNTER_BLOCK_DECLARE(mrc_fabric_switch_counters, MRC_FABRIC_SWITCH_COUNTERS);

/** The one-way link kinds. */
enum mrc_fabric_link_kind {
	MRC_FABRIC_LINK_HOST_UP = 0, /**< host a -> its T0 (the NIC's queue) */
	MRC_FABRIC_LINK_HOST_DOWN,   /**< T0 -> host a: the last hop */
	MRC_FABRIC_LINK_T0_T1,	     /**< T0 a -> T1 b */
	MRC_FABRIC_LINK_T1_T0,	     /**< T1 a -> T0 b */
};

struct mrc_fabric_link_id {
	uint8_t kind; /**< enum mrc_fabric_link_kind */
	uint8_t plane;
	uint16_t a, b;
};

/** Whole-fabric counters (live; the polling lcore writes them). */
const struct mrc_fabric_counters *mrc_fabric_counters(const struct mrc_fabric *fab);

struct mrc_nic_emu_counters;
/**
 * The emulated NIC's counters over all host ports (steered, default queue,
 * unparsed, rx queue full); all zero with host_queues 1.
 */
const struct mrc_nic_emu_counters *mrc_fabric_nic_counters(const struct mrc_fabric *fab);

/**
 * Capture the first `max_pkts` packets the hosts send, as their NICs put
 * them on the wire (after the ports' egress encap rules), `snaplen` bytes
 * of each (64..65535), into memory taken now. Call before the first poll.
 * 0, -EINVAL (bad size, or a capture already), -ENOMEM.
 */
int mrc_fabric_capture_start(struct mrc_fabric *fab, uint32_t max_pkts, uint32_t snaplen);
/**
 * What was captured (NULL: no capture), in the emulated NIC's capture,
 * stamped in fabric time: write it with mrc_nic_capture_write().
 */
const struct mrc_nic_capture *mrc_fabric_capture(const struct mrc_fabric *fab);

/** Links, for walking them all: ids 0..n-1. */
unsigned int mrc_fabric_n_links(const struct mrc_fabric *fab);

/** Name, state, loss and counters of link `i`. 0 or -EINVAL. */
int mrc_fabric_link_info(const struct mrc_fabric *fab, unsigned int i,
	struct mrc_fabric_link_id *id, enum mrc_fabric_state *st, double *loss,
	struct mrc_fabric_link_counters *cnt);

/** Counters of one link by name. 0 or -EINVAL. */
int mrc_fabric_link_stats(const struct mrc_fabric *fab, const struct mrc_fabric_link_id *id,
	struct mrc_fabric_link_counters *out);

/** Counters of T0 (tier 0) or T1 (tier 1) `index` of `plane`. 0 or -EINVAL. */
int mrc_fabric_switch_stats(const struct mrc_fabric *fab, unsigned int tier, unsigned int plane,
	unsigned int index, struct mrc_fabric_switch_counters *out);

/** "host_up", "host_down", "t0_t1", "t1_t0"; "?" when out of range. */
const char *mrc_fabric_link_kind_name(unsigned int kind);

#endif /* MRC_FABRIC_H */
