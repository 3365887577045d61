/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRCD_EPREQ_H
#define MRCD_EPREQ_H

/*
 * Endpoint operations between hosts (doc/protocol.md, "ERTH and EETH"),
 * run by the control thread (mrcd_epreq.c):
 *
 *   - port status: when the port mask of one of our hosts changes (a link
 *     went down or up), the host sends a port-status request to every host
 *     in another process it has QPs with, and again after MRCD_EP_RETRY_US,
 *     twice that, four times ... until that peer answers, MRCD_EP_TRIES
 *     times at most (510 ms in all: then the update timed out, counted; a
 *     peer that starts later hears from us when it tells us its own).
 *     Each try goes on another plane that is up at both ends. Each request says
 *     the whole mask, under a request id that grows, and the sender's
 *     epoch (drawn at start): a receiver takes a request whose epoch is new
 *     to it, or whose id is newer than the last it took, publishes the mask
 *     for the workers (mrcd_daemon.ep_peer_mask, then ep_peer_gen), and
 *     answers every request, old or new, once every worker of this process
 *     told its QPs the masks (mrcd_shardctx.peer_gen). A peer seen with a new epoch has
 *     (re)started: it is told our masks again.
 *   - EV probe: a request is answered with the echoed timestamp, request
 *     id and EV, and the responder's service time (mrcd_ep_svc_ns: from
 *     the request's arrival in the worker, stamped at its hand-off, to the
 *     answer built here); the requester times the probe from its build to
 *     the answer's arrival in its own worker and takes the service time
 *     out (mrcd_ep_probe_rtt). mrcd_ep_probe() sends one on the main
 *     lcore; the control socket's thread asks for one through
 *     mrcd_ep_probe_ask() (mrcctl probe peer=).
 *
 *   - flow recovery (mrcd_recover.h): the two processes of a generator
 *     flow's ends agree on its next QP pair. mrcd_ep_send_rec() sends a
 *     request or an answer; what comes in goes to mrcd_recover_ep_request()
 *     and mrcd_recover_ep_answer(), which keep their own resend timers.
 *
 * Hosts of this process read each other's port mask directly; nothing is
 * sent between them.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_mbuf.h>

#include "mrc_wire_pkt.h"

struct mrcd_daemon;

/* What a host's endpoint operations did (mrcd_hostctx.ep: control writes, telemetry reads). */
#define MRCD_EP_COUNTERS(X)                                                                    \
	X(req_tx, "requests sent (port status and EV probes, retries included)")               \
	X(req_rx, "requests received")                                                         \
	X(rsp_tx, "responses sent")                                                            \
	X(rsp_rx, "responses received")                                                        \
	X(retries, "port-status requests sent again: no answer within the retry time")         \
	X(timeouts, "port-status updates given up: no answer to any of their requests")        \
	X(stale, "port-status requests older than one already taken (ignored)")                \
	X(repeated, "requests taken before, sent again; answers to a request answered before") \
	X(unknown_peer, "endpoint packets from an address that is no host of the cluster")     \
	X(refused, "endpoint packets the parser refused on a second look")                     \
	X(peer_updates, "port masks of peers that changed")                                    \
	X(held, "port-status answers that waited for every worker to take the mask")           \
	X(held_full, "port-status answers sent without that wait: 16 were waiting")            \
	X(tx_failed, "endpoint packets not sent: no mbuf, no path, or the ring to the worker " \
		     "full")                                                                   \
	X(rec_retries, "flow-recovery requests sent again: no answer within the retry time")   \
	X(rec_stale, "flow-recovery requests and answers about an older pair (ignored)")       \
	X(rec_bad, "flow-recovery requests naming no flow of ours with its other end there")

struct mrcd_ep_counters {
#define MRCD_EP_FIELD(n, h) uint64_t n;
	MRCD_EP_COUNTERS(MRCD_EP_FIELD)
#undef MRCD_EP_FIELD
};

/* Wait for an answer before the first retry (doubled for each next), and tries at most. */
#define MRCD_EP_RETRY_US 2000
#define MRCD_EP_TRIES	 8

/* A receiver's record of one peer's requests: the last epoch and request id it took. */
struct mrcd_ep_seen {
	bool any;
	uint32_t epoch;
	uint16_t id;
};

enum mrcd_ep_verdict {
	MRCD_EP_NEW,  /* taken: a new epoch, or a newer id */
	MRCD_EP_SAME, /* the id last taken again: a retry whose first got through */
	MRCD_EP_OLD,  /* older than the one taken: arrived late, ignored */
};

/*
 * Whether a port-status request (epoch, id) is newer than what `seen`
 * holds, and if so record it. A new epoch is a peer that (re)started: its
 * first request is taken whatever its id; within an epoch ids compare in
 * 16-bit serial arithmetic (an older request resent on a slower plane
 * arrives after a newer one and must not undo it).
 */
enum mrcd_ep_verdict mrcd_ep_take(
	struct mrcd_ep_seen *seen, uint32_t epoch, uint16_t id, bool *restarted);

/* Set up (after the flows' QPs exist); free at teardown (after the workers stopped). */
int mrcd_ep_init(struct mrcd_daemon *d);
void mrcd_ep_free(struct mrcd_daemon *d);

/* Control tick: send the answers the workers caught up with, announce changed port masks,
 * resend what is unanswered. Returns the TSC of the next resend due (UINT64_MAX: none), or
 * `now` when it sent anything or still holds an answer (its workers are awaited). */
uint64_t mrcd_ep_tick(struct mrcd_daemon *d, uint64_t now);

/* Endpoint packets host h's shards handed off (QPN 2): act on them and free them. */
void mrcd_ep_input(struct mrcd_daemon *d, unsigned int h, struct rte_mbuf **m, unsigned int n);

/* The summary's "endpoint" object (--json): counters summed over the hosts, and per peer. */
void mrcd_ep_json(const struct mrcd_daemon *d, FILE *j);

/*
 * A flow-recovery request (answer false: id req_id, stamped now) or answer
 * (answer true: echoing the request's req_id and ts) with EFRH `rec`, from
 * local host h to cluster host c of another process, on a plane up at both
 * ends, another for each try. 0 or -errno (-EINVAL: c is no such host).
 */
int mrcd_ep_send_rec(struct mrcd_daemon *d, unsigned int h, unsigned int c, bool answer,
	uint16_t req_id, uint16_t ts, const struct mrc_ep_rec *rec, unsigned int try_no);

/* Send an EV probe from local host h to cluster host `peer` on `ev`. 0 or -errno. */
int mrcd_ep_probe(struct mrcd_daemon *d, unsigned int h, unsigned int peer, uint32_t ev);

/*
 * A responder's service time for a request its worker had in hand at
 * rx_tsc, answered at now_tsc (TSC of hz): true and *svc_ns (saturated at
 * UINT32_MAX, the field's range), or false when there is no stamp (0) or it
 * is later than now: the answer then says its service time is not valid.
 */
bool mrcd_ep_svc_ns(uint64_t rx_tsc, uint64_t now_tsc, uint64_t hz, uint32_t *svc_ns);

/* An EV probe's outcome as the requester reports it (doc/protocol.md, "ERTH and EETH"). */
struct mrcd_ep_probe_rtt {
	uint64_t rtt_ns;     /* the path's: raw_ns less svc_ns when svc_subtracted, else raw_ns */
	uint64_t raw_ns;     /* from the request's build to the answer's arrival in the worker */
	uint32_t svc_ns;     /* the responder's service time, as it said (0: it said none) */
	bool svc_valid;	     /* the answer's S flag */
	bool svc_subtracted; /* svc_ns was taken out of rtt_ns */
};

/*
 * The round trip of a probe answered by `answer` after raw_ns. A valid
 * service time is subtracted when it fits in the round trip; one longer
 * than the whole round trip cannot be the responder's share of it (a
 * broken peer clock): it is reported, not subtracted.
 */
void mrcd_ep_probe_rtt(
	uint64_t raw_ns, const struct mrc_ep_view *answer, struct mrcd_ep_probe_rtt *out);

/*
 * From the control socket's thread (one ask at a time): have the main lcore
 * send an EV probe from local host h to cluster host peer on ev, then wait
 * for its answer until wait_ms pass. 1 and *out (answered), -ETIMEDOUT (no
 * answer), -EINVAL (peer is no host of another process, or no endpoint
 * operations), -ENOBUFS (not sent: no mbuf, no path, ring full), -ESHUTDOWN
 * (the main lcore did not take the ask).
 */
int mrcd_ep_probe_ask(struct mrcd_daemon *d, unsigned int h, unsigned int peer, uint32_t ev,
	unsigned int wait_ms, struct mrcd_ep_probe_rtt *out);

#endif /* MRCD_EPREQ_H */
