/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRC_SHARD_H
#define MRC_SHARD_H

/*
 * The engine: one shard is one worker's part of one host. A host is a NIC
 * with one port per plane; a shard owns an (rx, tx) queue on each of those
 * ports, the QPs given to it, its timer wheel and its counter block. The
 * daemon, the fake-clock benchmarks and the tests all run this code, so a
 * figure measured on a bench is a figure of the code users run.
 *
 * One iteration (mrc_shard_iterate):
 *   requests (QP add/remove/retire from other threads, through a ring)
 *   -> rx bursts on every plane port until its queue is empty (at most
 *      MRC_SHARD_RX_BURSTS) -> packets for another shard of the host, by
 *      the QPN their BTH names, to that shard's inbound ring unparsed
 *      (software dispatch) -> parse (drops counted by reason); endpoint
 *      requests (QPN 2) to the hand-off ring
 *   -> this shard's own inbound ring, read like one more rx queue
 *   -> QP input, SACKs and NACKs before data, so windows open before the
 *      new data they admit is accounted
 *   -> timers: the QPs whose deadline is due (a hashed timer wheel); losses
 *      are judged at the shard's input horizon (below)
 *   -> QP output, busy QPs only, round robin (each sends control answers,
 *      resends, probes, then new data) until no plane has room; the next
 *      iteration goes on from the first QP not served -> tx burst per plane
 *      port.
 * What a port does not take stays staged for the next iteration, and that
 * plane is offered no new packets meanwhile. With a tx backlog source, a
 * plane also takes packets only while its NIC queue holds at most
 * `tx_room_bytes` not yet on the wire, as a NIC picks a plane whose port has
 * room (GetSendParams(free_ports)): packets are then not built, stamped and
 * queued behind a deep NIC queue that their RTT samples would count as
 * path delay. A full queue is "no room" to the EV pool, exactly like a port
 * that is down. Under that rule a QP is asked for a few packets at a time (up
 * to a burst per visit), the room re-read in between, so that few packets
 * take a plane already full.
 *
 * The run clock. The shard runs its QPs on the caller's clock less the
 * time its lcore was away: a gap between two iterations longer than four
 * typical passes (and than min_stall) is a stall, and what exceeds that
 * bound is not counted. Packets are stamped, RTTs sampled and timers run
 * on it, so an lcore that was descheduled for 20 ms (a core shared with
 * other work) neither sees a 20 ms round trip nor times out what it
 * simply did not read: to the transport, its host's time away is not the
 * network's. On a loaded lcore the timers slow with it.
 *
 * The input horizon. A timer that declares a packet lost must not fire
 * while the answer that would clear it waits in this host's own queues:
 * then it measures the host's delay, not the network's, and on a slow or
 * busy core the resends it makes add load that delays answers further.
 * So the timers that declare losses judge at the start time of the
 * previous iteration (the responders' SACK timers run at the clock, so
 * answers are not held back), provided this
 * one emptied every rx queue and its inbound ring, and no later than the
 * same point of each other shard of the host (mrc_shard_join: an answer for
 * this shard may wait in another's rx queue, on another lcore): by then everything that arrived
 * before it has been read, and every other shard polled on the same lcore (the peer of a loop or
 * emulated-fabric host) has had a whole pass too. While the queues cannot be emptied, the horizon
 * stays where it was, for at most max_judge_lag of iterations in a row (a shard that can never keep
 * up still detects losses). A stall between two iterations (the lcore was descheduled) moves it
 * only once the queues are read again. Packets are stamped, and RTT sampled, at the real time.
 *
 * Ownership (who writes, who reads):
 *   - everything in a shard belongs to the lcore that iterates it (the
 *     owner); other threads reach it only through the request ring, the
 *     published port mask and the published snapshot;
 *   - the port mask: written by the control thread (it reads link status or
 *     hears of a peer's), read by the owner each iteration;
 *   - the snapshot: written by the owner (mrc_shard_publish), read by anyone
 *     (mrc_shard_snapshot), consistent through a sequence counter;
 *   - round-trip state is shared by the shard's QPs to one destination
 *     (per (worker, destination), so never between lcores);
 *   - a QP that goes to ERROR is reported once on the event ring (single
 *     producer: the owner), for the control thread to report and act on;
 *   - completions leave through each QP's own CQ (the per-QP sink, given
 *     when the QP is created), endpoint requests through the hand-off ring
 *     (single producer: the owner);
 *   - frames that are not MRC leave through the exception ring, and frames the
 *     control thread sends (neighbour discovery, the kernel's) come in through
 *     ctl_tx and are staged with the QPs' packets (cfg.exception, cfg.ctl_tx);
 *   - several shards of one host: a QPN has exactly one owner (qpn_map, or
 *     the QPN modulo n_shards). A packet read by another shard of the host
 *     (a port that cannot steer it to the owner's queue) is only looked at
 *     there, for the QPN in its BTH (mrc_pkt_peek_dqpn), and put as it came
 *     on the owner's inbound ring (cfg.dispatch: multi producer, the host's
 *     shards; single consumer, the owner), which the owner drains as one
 *     more rx source: the owner parses it, checks its ICRC and counts its
 *     verdict. Nothing else crosses between the shards of a host.
 * Time and randomness are passed in, so tests and benches drive a fake clock.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>
#include <rte_ring.h>

#include "mrc_counters.h"
#include "mrc_path_stats.h"
#include "mrc_qp.h"
#include "mrc_rand.h"
#include "mrc_wire_pkt.h"

#define MRC_SHARD_MAX_PLANES 8
/* Shards of one host at most (the dispatch table's size). */
#define MRC_SHARD_MAX_SHARDS 8
/* cfg.rx_queue of a shard that reads no port queue. */
#define MRC_SHARD_NO_RX_QUEUE 0xffff
#define MRC_SHARD_BURST	      32
/* rx bursts per plane per iteration at most: the queue is read until empty or this. */
#define MRC_SHARD_RX_BURSTS 8

#define MRC_SHARD_COUNTERS(X)                                                                      \
	X(iterations, "loops", "iterations of the shard's loop")                                   \
	X(rx_pkts, "pkts", "packets received on the shard's queues")                               \
	X(rx_unknown_qpn, "pkts", "valid MRC packets for a QP of this shard that does not exist")  \
	X(rx_pending_qpn, "pkts",                                                                  \
		"valid MRC packets for a QPN of the pending range (cfg pending_qpn) with no QP: "  \
		"one its peer made first, not made here yet (or no longer here)")                  \
	X(rx_handoff, "pkts",                                                                      \
		"packets handed off: endpoint requests (QPN 2), other shards' QPs without a "      \
		"dispatch ring")                                                                   \
	X(rx_handoff_drops, "pkts",                                                                \
		"packets to hand off dropped: no hand-off ring, or it was full")                   \
	X(rx_exception, "pkts",                                                                    \
		"frames that are not MRC (neighbour discovery, ICMPv6, LLDP, ...) put on the "     \
		"exception ring")                                                                  \
	X(rx_exception_drops, "pkts",                                                              \
		"frames that are not MRC dropped: the exception ring was full")                    \
	X(rx_dispatched_out, "pkts", "packets put on another shard's inbound ring (its QPs)")      \
	X(rx_dispatch_full, "pkts",                                                                \
		"packets for another shard dropped: its inbound ring was full")                    \
	X(rx_dispatched_in, "pkts", "packets taken from this shard's inbound ring")                \
	X(rx_misdispatched, "pkts",                                                                \
		"packets on the inbound ring for a QP this shard does not own")                    \
	X(tx_pkts, "pkts", "packets the ports accepted")                                           \
	X(tx_staged, "pkts", "packets a port could not take at once (sent later)")                 \
	X(tx_nic_full, "loops",                                                                    \
		"plane x iteration pairs without room: the port's tx descriptors were taken")      \
	X(tx_dropped, "pkts", "packets dropped because a plane's staging area was full")           \
	X(tx_control, "pkts",                                                                      \
		"frames the control thread gave the shard to send (neighbour discovery, the "      \
		"kernel's)")                                                                       \
	X(tx_control_drops, "pkts",                                                                \
		"frames from the control thread dropped: a plane that does not exist or a full "   \
		"staging area")                                                                    \
	X(timer_fires, "events", "QP timers that fired")                                           \
	X(timer_early, "events",                                                                   \
		"QP timers that came before their QP's deadline, which had moved later: re-armed " \
		"without a poll")                                                                  \
	X(trk_parked, "events", "QPs set aside until an in-flight ring is free (none was)")        \
	X(requests, "reqs", "requests taken from the request ring")                                \
	X(stalls, "events",                                                                        \
		"iterations that came late (the lcore was away): the delay not counted")           \
	X(horizon_held, "loops", "iterations that left packets in an rx queue (timers held back)") \
	X(qp_errors, "qps", "QPs that went to ERROR (each reported once on the event ring)")       \
	X(events_dropped, "events", "events not reported: no event ring, or it was full")          \
	X(ev_events, "events", "EV state changes reported on the EV event ring")                   \
	X(ev_events_dropped, "events",                                                             \
		"EV state changes not reported: the EV event ring was full")                       \
	X(ev_denied, "evs", "EVs denied by the controller (requests and QPs added since)")         \
	X(ev_allowed, "evs", "EVs re-admitted by the controller")                                  \
	X(dests_full, "qps",                                                                       \
		"QPs that got no shared round-trip state: the destination table was full")         \
	X(own_addr_qps, "qps",                                                                     \
		"QPs that build packets from their own addresses: not those of their "             \
		"destination's first QP")                                                          \
	X(cyc_total, "cycles", "TSC cycles inside mrc_shard_iterate")                              \
	X(cyc_rx, "cycles",                                                                        \
		"... reading non-empty rx bursts from the ports, and parsing its packets (those "  \
		"from its inbound ring too)")                                                      \
	X(cyc_dispatch, "cycles",                                                                  \
		"... finding other shards' packets in its bursts, putting them on their inbound "  \
		"rings, and taking its own from its ring")                                         \
	X(cyc_qp_input, "cycles", "... handing received packets to their QPs")                     \
	X(cyc_timers, "cycles", "... running the QPs' timers")                                     \
	X(cyc_output, "cycles", "... asking busy QPs for packets")                                 \
	X(cyc_tx, "cycles", "... tx bursts to the ports")

MRC_COUNTER_BLOCK_DECLARE(mrc_shard_counters, MRC_SHARD_COUNTERS);

/*
 * How full a host's NIC queue on a plane is, in bytes not yet on the wire.
 * Called by the owner once per plane per iteration; `ctx` and `host` are
 * the cfg's. The emulated fabric gives mrc_fabric_tx_backlog_cb.
 */
typedef uint64_t (*mrc_shard_backlog_fn)(const void *ctx, unsigned int host, unsigned int plane);

struct mrc_shard_cfg {
	uint8_t host_id;
	uint8_t n_planes;
	uint16_t port_id[MRC_SHARD_MAX_PLANES]; /* the ethdev port of each plane */
	/* this shard's queue on every port; rx_queue MRC_SHARD_NO_RX_QUEUE: it reads no port
	 * (ports with fewer rx queues than shards), only its inbound ring */
	uint16_t rx_queue, tx_queue;
	/*
	 * QPNs: the host's QPs are qpn_base + k; this shard owns those with
	 * k % n_shards == shard_index (n_shards 0 means 1), at most max_qps.
	 */
	uint32_t qpn_base;
	uint32_t max_qps;
	uint16_t n_shards, shard_index;
	/*
	 * Who owns which QPN, when not the rule above: qpn_map[k] for QPN
	 * qpn_base + k (k < qpn_map_len) is mrc_shard_map_entry(owner, slot),
	 * slot < max_qps and unique per owner. One read-only table for every
	 * shard of the host, kept by the caller until they are freed. A QPN past
	 * it is nobody's.
	 */
	const uint32_t *qpn_map;
	uint32_t qpn_map_len;
	/*
	 * QPNs [pending_qpn, pending_qpn + n_pending_qpns) may get a QP at run
	 * time after a peer in another process made its end and sent: a valid
	 * packet to one with no QP is counted rx_pending_qpn, not rx_unknown_qpn
	 * (the sender resends it). 0: none.
	 */
	uint32_t pending_qpn, n_pending_qpns;
	uint32_t trk_blocks;	/* in-flight rings lent to the QPs (0: none, each owns one) */
	size_t trk_block_bytes; /* ... each this big (mrc_qp_trk_block_bytes) */
	uint64_t tsc_hz;
	uint64_t timer_tick_tsc; /* timer wheel tick (0: 1 us) */
	/*
	 * a gap between iterations beyond 4 typical passes and this is a stall
	 * (0: 1 ms). Not less: a busy pass (a worker that also polls the
	 * emulated fabric) takes hundreds of us, and that is work, not absence;
	 * at 100 us the demo's goodput halved on a shared core.
	 */
	uint64_t min_stall_tsc;
	/* how long the input horizon may be held by queues never emptied (0: 10 ms) */
	uint64_t max_judge_lag_tsc;
	/* destinations whose QPs share round-trip state (0: 64; beyond, a QP keeps its own) */
	uint32_t max_dests;
	struct mrc_wire_cfg wire;
	int socket;
	/*
	 * Packets for QPN 2, and for other shards' QPs when dispatch has no ring
	 * for their owner, go here; NULL: dropped, counted. The host's shards
	 * share it, so with n_shards > 1 it must be multi-producer
	 * (mrc_shard_create refuses a single-producer one). Each packet handed
	 * off carries the TSC (rte_rdtsc) of its burst's arrival in the shard,
	 * read with mrc_shard_rx_tsc(): a responder's service time starts there.
	 */
	struct rte_ring *handoff;
	/*
	 * Software dispatch between the shards of a host: dispatch[j] is shard
	 * j's inbound ring (multi producer: the host's other shards; single
	 * consumer: shard j). Entry shard_index is this shard's own, drained each
	 * iteration; give every shard of the host the same table.
	 */
	struct rte_ring *dispatch[MRC_SHARD_MAX_SHARDS];
	/*
	 * The exception path. Frames from the ports that are not MRC (the parser's
	 * bad_ethertype, bad_next_header and not_roce: neighbour discovery, ICMPv6,
	 * LLDP, ARP, ...) go to `exception` (producers: the host's shards; consumer:
	 * the control thread), counted rx_exception and not among the parser's
	 * verdicts (those the ring cannot take are); NULL: refused like any other
	 * frame the parser does not take, counted among the verdicts. Frames
	 * on `ctl_tx` (producer: the control thread; consumer: this shard), each with
	 * m->port set to its plane, are staged and sent with the shard's own; NULL:
	 * none.
	 */
	struct rte_ring *exception;
	struct rte_ring *ctl_tx;
	/* Requests from other threads (struct mrc_shard_req *; multi producer); NULL: none. */
	struct rte_ring *requests;
	/*
	 * QPs that went to ERROR, one event each (MRC_SHARD_EVENT_*; producers:
	 * the host's shards, so multi-producer when n_shards > 1, which create
	 * checks; consumer: the control thread); NULL: counted only.
	 */
	struct rte_ring *events;
	/*
	 * EVs of the shard's QPs going out of use and back (struct
	 * mrc_shard_ev_event each, an element ring of that size; single
	 * producer: the owner); NULL: not reported.
	 */
	struct rte_ring *ev_events;
	/*
	 * NIC tx room from the NIC itself: a plane whose port reports the status
	 * of its tx descriptors (rte_eth_tx_descriptor_status; asked once at
	 * create) takes packets only while fewer than tx_room_desc[plane] of its
	 * tx_ring_desc[plane] descriptors wait to be sent, as a NIC picks a port
	 * with room. A port that does not answer is limited by its staging only.
	 * tx_room_desc 0: not asked. Unused when tx_backlog is set.
	 */
	uint16_t tx_ring_desc[MRC_SHARD_MAX_PLANES];
	uint16_t tx_room_desc[MRC_SHARD_MAX_PLANES];
	/* NIC tx room (see above); tx_backlog NULL: ports limited only by their staging. */
	mrc_shard_backlog_fn tx_backlog;
	const void *tx_backlog_ctx;
	unsigned int tx_backlog_host;
	uint64_t tx_room_bytes;
	/*
	 * T1 switches per plane, for the per-path counters (mrc_path_stats.h):
	 * the shard keeps n_planes x (path_t1s + 1) entries, the last column
	 * "direct" (same-T0 and plain paths). At most MRC_PATH_MAX_T1; 0: only
	 * the direct column.
	 */
	uint8_t path_t1s;
};

struct mrc_shard;

/* Create a shard; NULL and *why on failure. */
struct mrc_shard *mrc_shard_create(
	const struct mrc_shard_cfg *cfg, uint64_t now_tsc, const char **why);
/* Free a shard whose QPs were all removed; staged packets are freed. */
void mrc_shard_free(struct mrc_shard *s);

/*
 * Before the owner runs: set (or, with fn NULL, clear) the tx backlog
 * source, as the cfg's tx_backlog fields would, for a NIC known only after
 * the shard was made.
 */
void mrc_shard_set_tx_backlog(struct mrc_shard *s, mrc_shard_backlog_fn fn, const void *ctx,
	unsigned int host, uint64_t room_bytes);

/*
 * What the owner runs inside each mrc_shard_iterate(), after the input and
 * the timers and just before the output round (fn NULL: nothing), given
 * the caller's clock. An application that takes its completions and posts
 * its next messages here has them sent in the same pass while what the
 * post wrote (the payload, the send queue entry, the QP's lines) is still
 * in the cache: posted before the iteration, the pass's input (every
 * packet received, placed and answered) came between the two, and with
 * many flows evicted it. Its cycles are not the shard's (cyc_total).
 */
typedef void (*mrc_shard_pass_fn)(void *ctx, uint64_t wall_tsc);
void mrc_shard_set_before_output(struct mrc_shard *s, mrc_shard_pass_fn fn, void *ctx);

/*
 * How plane p's tx room is known: the descriptor offset whose status says
 * "full" (mrc_shard_cfg.tx_room_desc), or 0 when the port does not report
 * its descriptors and only the staging bound applies.
 */
uint16_t mrc_shard_tx_room_offset(const struct mrc_shard *s, unsigned int plane);

/*
 * Owner (or once it has stopped): the round trip the shard's QPs to the
 * peer at `ip` (16 bytes) see, shared per (shard, destination) and fed by
 * every RTT sample of those QPs; -ENOENT for a destination with no QP here.
 */
int mrc_shard_dest_rtt(
	const struct mrc_shard *s, const uint8_t *ip, uint64_t *srtt_tsc, uint64_t *samples);

/*
 * Before any of them runs: tell the n shards of one host of each other, so
 * that each moves its input horizon only once the others have read what
 * their queues held for it (a packet for this shard waiting in another
 * shard's rx queue is an answer still in this host). 0, or -EINVAL (n above
 * MRC_SHARD_MAX_SHARDS).
 */
int mrc_shard_join(struct mrc_shard *const *shards, unsigned int n);

/*
 * The arrival stamp of a packet a shard handed off (mrc_shard_cfg.handoff):
 * the TSC (rte_rdtsc, not the shard's run clock: the reader is another
 * thread on the same machine) at which the worker had its rx burst in hand.
 * It lives in an mbuf dynamic field that mrc_shard_create registers; ask
 * for its offset once, after a shard exists (-1 before: no stamp), and read
 * it only from packets that went through the hand-off ring.
 */
int mrc_shard_rx_tsc_offset(void);
static inline uint64_t
mrc_shard_rx_tsc(const struct rte_mbuf *m, int offset)
{
	return offset < 0 ? 0 : *RTE_MBUF_DYNFIELD(m, offset, const uint64_t *);
}

/* Does this shard own `qpn`? */
bool mrc_shard_owns(const struct mrc_shard *s, uint32_t qpn);

/* A qpn_map entry: QPN owned by shard `owner`, in its slot `slot` (< 2^24). */
static inline uint32_t
mrc_shard_map_entry(unsigned int owner, uint32_t slot)
{
	return (uint32_t)owner << 24 | (slot & 0xffffff);
}

/* The QPs the shard serves now. */
uint32_t mrc_shard_n_qps(const struct mrc_shard *s);

/*
 * Owner (or before the owner runs): add a QP created with this host's
 * regions and CQ; 0, -EINVAL (QPN not this shard's), -EEXIST. now_tsc is
 * the caller's clock, used only before the shard's first iteration.
 */
int mrc_shard_add_qp(struct mrc_shard *s, struct mrc_qp *qp, uint64_t now_tsc);
/* Owner: remove a QP (its timer is cancelled); 0 or -ENOENT. */
int mrc_shard_del_qp(struct mrc_shard *s, struct mrc_qp *qp);
/*
 * Owner: take a QP out for good, to be replaced. It is moved to ERROR, so
 * every message not yet complete completes FLUSHED on its CQ (counted as
 * failed by whoever polls it, never silently lost), removed, and reset, so
 * its lent in-flight ring and Write-IMM table go back to the shard's pools
 * on the owner lcore. No event is reported for it: this is not a failure.
 * Afterwards any thread may destroy it. 0 or -ENOENT.
 */
int mrc_shard_retire_qp(struct mrc_shard *s, struct mrc_qp *qp);

/*
 * Owner lcore only: put `qp` in ERROR (MRC_QP_ERR_USER), as a failure would,
 * and report it at once (cfg.events), idle or not. A fault drill's (mrcctl
 * fail). 0, -ENOENT (not this shard's), -EALREADY (in ERROR already).
 */
int mrc_shard_fail_qp(struct mrc_shard *s, struct mrc_qp *qp);

/*
 * A request from another thread: enqueued on cfg.requests, carried out by
 * the owner at its next iteration, which then stores the result in `rc`
 * and sets `done` (release order): the asker polls mrc_shard_req_done().
 * The request must live until then.
 */
enum mrc_shard_op {
	MRC_SHARD_ADD_QP,
	MRC_SHARD_DEL_QP,
	MRC_SHARD_RETIRE_QP,
	/* the controller's, on req.sel (see struct mrc_shard_ev_sel) */
	MRC_SHARD_EV_CHECK, /* would denying sel leave a QP no EV? -EDEADLK and qpn if so */
	MRC_SHARD_EV_DENY,  /* deny sel: n_evs EVs went DENIED */
	MRC_SHARD_EV_ALLOW, /* re-admit sel: n_evs EVs left DENIED */
	/* the operator's probe (mrc_qp_op_probe): sel names one EV of a QP */
	MRC_SHARD_EV_PROBE,	   /* send it: rc as mrc_qp_op_probe's */
	MRC_SHARD_EV_PROBE_RESULT, /* rc as mrc_qp_op_probe_result's, rtt_ns */
	MRC_SHARD_EV_LIST,	   /* sel's paths: n_evs EVs on them, the first list_max in list */
	MRC_SHARD_CALL,
};

/*
 * What a controller request names (doc/control.md): either one EV of one
 * QP (one_ev), or paths: every EV of the planes in `planes` and of the
 * T1s in t1[plane] (bit t = T1 t; an EV whose packets cross no T1 is on no
 * T1's path, only on its plane's). Paths denied are the shard's deny table:
 * QPs added later get their EVs on them denied as they are added, and
 * re-admitting a path re-admits every denied EV on it that no other denied
 * path or plane still covers. An EV of one QP is denied alone, not
 * remembered; it cannot be re-admitted while its path is denied (-EACCES).
 *
 * A deny never leaves a QP with every EV DENIED: the owner refuses the
 * whole request with -EDEADLK (and that QP's number in qpn_out), changing
 * nothing. The same test is MRC_SHARD_EV_CHECK's, which changes nothing in
 * any case: ask every shard first to refuse a deny across several as one.
 * Cost: a walk over every EV of every QP of the shard, on its lcore.
 */
struct mrc_shard_ev_sel {
	bool one_ev;
	uint32_t qpn; /* one_ev: the QP ... */
	uint32_t ev;  /* ... and the EV's value */
	uint8_t planes;
	uint64_t t1[MRC_SHARD_MAX_PLANES];
};

/*
 * MRC_SHARD_CALL: the owner runs fn(s, arg) and stores its return in rc, for
 * work on state only the owner may touch that is not the engine's (a client's
 * QP list, a region table shared by the host's shards). fn must not block.
 */
typedef int (*mrc_shard_call_fn)(struct mrc_shard *s, void *arg);

/* An EV of a QP, as MRC_SHARD_EV_LIST names it. */
struct mrc_shard_ev_ref {
	uint32_t qpn;
	uint32_t ev;
	uint8_t state; /* enum mrc_ev_state when listed */
};

struct mrc_shard_req {
	enum mrc_shard_op op;
	struct mrc_qp *qp;
	mrc_shard_call_fn fn; /* MRC_SHARD_CALL only */
	void *arg;	      /* ... its argument */
	int rc;		      /* written by the owner before done */
	int done;	      /* 0 until the owner is done with the request */
	/* MRC_SHARD_EV_*: the asker's selection; the owner's answer (before done) */
	const struct mrc_shard_ev_sel *sel;
	uint32_t n_evs;
	uint32_t qpn_out;
	uint64_t rtt_ns;	       /* MRC_SHARD_EV_PROBE_RESULT: the round trip */
	struct mrc_shard_ev_ref *list; /* MRC_SHARD_EV_LIST: the asker's array ... */
	uint32_t list_max;	       /* ... of this many */
};

/*
 * One EV of a QP going out of use or back (struct mrc_ev_notify), as the
 * owner puts it on cfg.ev_events, with what the shard had counted on the
 * EV's path by then: the drops behind the change.
 */
struct mrc_shard_ev_event {
	uint64_t tsc; /* the owner's run clock */
	uint32_t qpn;
	uint32_t ev;
	uint8_t host, shard, plane;
	uint8_t t1;	  /* 0xff: the EV crosses no T1 */
	uint8_t from, to; /* enum mrc_ev_state */
	uint16_t reserved;
	uint32_t path_lost;  /* packets on the EV's path (plane, T1) found lost, all rules */
	uint32_t path_trims; /* NACKs of trimmed packets on the path */
	uint32_t path_ecn;   /* SACKs with an ECN echo on the path */
	uint32_t reserved2;
};

/* The shard's deny table now (owner, or once it has stopped). */
void mrc_shard_ev_denied(const struct mrc_shard *s, struct mrc_shard_ev_sel *out);

/* Any thread: queue a request; 0 or -ENOSPC (ring full) / -ENOTSUP (no request ring). */
int mrc_shard_request(struct mrc_shard *s, struct mrc_shard_req *r);
static inline bool
mrc_shard_req_done(const struct mrc_shard_req *r)
{
	return __atomic_load_n(&r->done, __ATOMIC_ACQUIRE) != 0;
}

/*
 * Events on cfg.events are pointer-sized words: the QPN in the upper bits, the
 * error (enum mrc_qp_error) in the low byte. Decode with these.
 */
static inline void *
mrc_shard_event_qp_error(uint32_t qpn, uint8_t why)
{
	return (void *)(uintptr_t)(((uintptr_t)qpn << 8) | why);
}

static inline uint32_t
mrc_shard_event_qpn(const void *ev)
{
	return (uint32_t)((uintptr_t)ev >> 8);
}

static inline uint8_t
mrc_shard_event_why(const void *ev)
{
	return (uint8_t)((uintptr_t)ev & 0xff);
}

/* Owner: one iteration; returns the packets received plus sent. */
unsigned int mrc_shard_iterate(struct mrc_shard *s, uint64_t now_tsc, struct mrc_rand *rand);
/*
 * Owner: the run clock at the caller's `wall_tsc` (the clock it gives
 * mrc_shard_iterate), with the stalls seen so far taken out. Its QPs'
 * timestamps (last progress, last answer, send times) are on this clock:
 * an age read from them must be measured against it, not the wall clock.
 */
uint64_t mrc_shard_run_clock(const struct mrc_shard *s, uint64_t wall_tsc);

/*
 * Owner: QPs a post put on the busy list that the output round has not
 * visited yet. A poster that holds its next messages back while this is
 * high keeps each message's payload and QP lines cached from its post to
 * its send (doc/architecture.md, "Many flows on one worker").
 */
uint32_t mrc_shard_posts_waiting(const struct mrc_shard *s);

/* Control thread: planes whose local port is up (bit p = plane p). */
void mrc_shard_set_port_mask(struct mrc_shard *s, uint32_t mask);
uint32_t mrc_shard_port_mask(const struct mrc_shard *s);
/* Control thread: read the link status of every plane port and publish the mask. */
uint32_t mrc_shard_refresh_links(struct mrc_shard *s);
/* Control thread: the same mask, read but not published (the caller may mask planes out). */
uint32_t mrc_shard_read_links(const struct mrc_shard *s);

/* Owner: packets staged but not yet accepted by the ports; free them (at shutdown). */
unsigned int mrc_shard_staged(const struct mrc_shard *s);
void mrc_shard_drop_staged(struct mrc_shard *s);

/* The pool the shard's QPs borrow in-flight rings from (NULL if trk_blocks was 0). */
struct mrc_trk_pool *mrc_shard_trk_pool(const struct mrc_shard *s);

/* Per-plane traffic the ports accepted / delivered. */
struct mrc_shard_plane_counters {
	uint64_t tx_pkts, tx_bytes, rx_pkts, rx_bytes;
};

/* What the owner publishes: its counters, per plane traffic and parser verdicts. */
struct mrc_shard_snapshot {
	uint64_t tsc; /* the owner's clock at publication */
	struct mrc_shard_counters cnt;
	struct mrc_shard_plane_counters plane[MRC_SHARD_MAX_PLANES];
	struct mrc_wire_rx_stats verdicts;
	uint32_t n_qps; /* QPs the shard serves */
};

/*
 * Owner: publish the snapshot (a few hundred bytes, plus 248 B per path: 9.9 KB for 8 planes
 * x 4 T1s; call it every ms or so).
 */
void mrc_shard_publish(struct mrc_shard *s, uint64_t now_tsc);
/* Any thread: a consistent copy of the last published snapshot. */
void mrc_shard_snapshot(const struct mrc_shard *s, struct mrc_shard_snapshot *out);

/*
 * Any thread: the per-path counters published with the last snapshot (the
 * same publication, under its sequence counter), n_planes x (path_t1s + 1)
 * entries, plane-major (mrc_path_stats.h), copied to `out` (room for `n`).
 * Returns the entries the shard has (copied only if n is enough); the
 * block's geometry in *n_planes and *n_t1.
 */
unsigned int mrc_shard_paths_snapshot(const struct mrc_shard *s, struct mrc_path_counters *out,
	unsigned int n, unsigned int *n_planes, unsigned int *n_t1);

/* Owner (or once the owner has stopped): the live counters. */
const struct mrc_shard_counters *mrc_shard_counters(const struct mrc_shard *s);
const struct mrc_shard_plane_counters *mrc_shard_plane_counters(
	const struct mrc_shard *s, unsigned int plane);
const struct mrc_wire_rx_stats *mrc_shard_rx_verdicts(const struct mrc_shard *s);
/*
 * Owner (or once the owner has stopped): the packets the shard's QPs sent on
 * `plane` (data, resends and probes: its per-path counters summed), live.
 * Unlike the plane's tx_pkts it leaves out the control thread's frames
 * (neighbour discovery, endpoint operations) sent through the shard.
 */
uint64_t mrc_shard_plane_qp_tx(const struct mrc_shard *s, unsigned int plane);

#endif /* MRC_SHARD_H */
