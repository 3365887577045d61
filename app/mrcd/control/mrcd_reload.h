/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRCD_RELOAD_H
#define MRCD_RELOAD_H

/*
 * A reload's changes to the generator's flows (SIGHUP in service mode,
 * doc/service.md "Reload").
 *
 * A flow is named by (source host, destination host, q): the q-th of the
 * qps_per_peer QPs of that pair. A new profile that changes only which
 * flows exist (pattern, incast_target, qps_per_peer) is applied: flows in
 * both keep their QPs and counters, flows only in the old one stop
 * posting, drain and have their QPs destroyed, flows only in the new one
 * get a new QP pair on spare QP numbers (mrcd_recover.h), connected to
 * each other by the control thread, so both ends agree by construction.
 * The keys that apply live (msg_kb and size_mix within the slot size made
 * at start, verify, rate_gbps, messages, active_flows from one count to
 * another) go to the workers as a new parameter block (mrcd_gen_params,
 * taken at each shard's next pass; mrcd_reload_params_*): messages posted
 * before keep their sizes. The rest (outstanding, buffers, opcode, the QP profiles,
 * a larger message, active_flows to or from 0) shape the flows' buffers,
 * QPs or schedule at start: such a change is refused, naming the key and
 * why.
 *
 * Limits (each refusal names it): a flow with an end in another process
 * may go (each process removes its end: a sending end drains, a receiving
 * end waits for the other process's sender to drain first) and come
 * (below); and room: the flow table and each host's registered region are
 * made at twice what the start needed in service mode, and an added flow
 * takes a freed slot or one of that reserve. With several workers per
 * host a new flow's QPs go to the shards its spare pair's QPNs belong to
 * (mrcd_spare_shards(): placed by [lcores] peer_shard as the start's flows
 * are), each end's generator requests to that shard's ring, and a removed
 * flow's to the shards that list it.
 *
 * Across processes (the cluster's hosts spread over several mrcd, each
 * reloaded at its own moment), the two ends of an added flow agree on its
 * QPNs and receive slot with no exchange: every process keeps the
 * cluster's flow list in force and numbers the flows each reload adds in
 * the new list's order (mrcd_reload_number): the k-th added over the run
 * takes QPN pair k of a range after the applications' QPNs (d->added_qpn,
 * mrcd_reload_added_pairs() of them, placed on the shards as spare pair k
 * is), and each end the next slot of its host's reserve, which follows the
 * host's layout at start (mrcd_make_flows); every process computes every
 * host's. Neither is given back in a run: a remove and an add again take
 * new ones, so a late packet of the old flow never lands in the new. A
 * process whose peer made its end first gets packets for a QP it has not
 * made yet: counted (rx_pending_qpn), and the sender resends them once it
 * has. Every process must take the same reloads in the same order (a
 * reload one refuses and another takes leaves their lists apart).
 *
 * mrcd_reload_profile_check() and mrcd_reload_diff() are pure (unit
 * tested); the rest runs on the main lcore and asks the workers through
 * the generator rings, as recovery does.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mrcd_gen.h"

struct mrcd_daemon;

/* A flow's name in a reload: (src, dst, q). */
struct mrcd_flow_key {
	uint16_t src, dst, q;
};

/*
 * 0 when every key in which `next` differs from `now` can change at run
 * time (the flows' keys and the live ones); else 1 with the first that
 * cannot, as "key = old -> new: why", in `what`. now->max_kb is the run's
 * slot size.
 */
int mrcd_reload_profile_check(
	const struct mrcd_profile *now, const struct mrcd_profile *next, char *what, size_t len);

/*
 * How many of the keys that apply live differ, said as "key old -> new, ..."
 * in `what`; *shape: one of them shapes messages (msg_kb, size_mix, verify).
 */
unsigned int mrcd_reload_profile_live(const struct mrcd_profile *now,
	const struct mrcd_profile *next, bool *shape, char *what, size_t len);

/* Whether the keys that choose the flows differ (pattern, incast_target, qps_per_peer). */
bool mrcd_reload_profile_flows(const struct mrcd_profile *now, const struct mrcd_profile *next);

/* Setup: the generator's first parameter block (d->gen_pub) from d->prof; 0 or -ENOMEM. */
int mrcd_reload_params_init(struct mrcd_daemon *d);
/* Teardown, the workers stopped: every block. */
void mrcd_reload_params_free(struct mrcd_daemon *d);

/*
 * Control, on a reload whose live keys differ: check that `next` can be
 * given to the workers now, and build its block in *out (freed by the
 * caller if not published). 0, or <0 refused, nothing changed, the reason
 * in `what`: the workers have not all taken the last block, a reload's
 * flows are still changing, a message shape change while messages of the
 * shape before the last are still on their way (flows with both ends in
 * this process; a receiver elsewhere takes each message's length from its
 * write), or a change of verify with a flow's other end in another process.
 */
int mrcd_reload_params_check(struct mrcd_daemon *d, const struct mrcd_profile *next, bool shape,
	struct mrcd_gen_params **out, char *what, size_t len);

/*
 * Control: publish `g` (from mrcd_reload_params_check) to the workers, and
 * write its keys into d->prof. Flows from index first_new on (made by this
 * reload, not yet handed to any worker) start in its shape.
 */
void mrcd_reload_params_publish(
	struct mrcd_daemon *d, struct mrcd_gen_params *g, unsigned int first_new);

/* Control, every loop pass: free the block before once every shard took the new one. */
void mrcd_reload_params_tick(struct mrcd_daemon *d);

/*
 * Which flows stay: keep[i] = 1 when live[i] is in `want`, add[j] = 1 when
 * want[j] is not in `live`. Keys are unique in each list. Returns the
 * number of flows removed plus added (0: the same set), or -ENOMEM.
 */
int mrcd_reload_diff(const struct mrcd_flow_key *live, uint32_t n_live,
	const struct mrcd_flow_key *want, uint32_t n_want, uint8_t *keep, uint8_t *add);

/*
 * The cluster's flows a profile makes (the same list mrcd_make_flows()
 * builds): *out, allocated here (free()), and how many; -ENOMEM or -E2BIG.
 */
int mrcd_reload_want(const struct mrcd_daemon *d, const struct mrcd_profile *p,
	struct mrcd_flow_key **out, uint32_t *n);

/*
 * Setup: how many more than `n` (flows, or slots of a host's region) to make
 * room for: mrcd_reload_reserve(n, min) in service mode with a profile; 0
 * otherwise.
 */
unsigned int mrcd_reload_room(const struct mrcd_daemon *d, unsigned int n, unsigned int min);

/* n, at least `min`, at most MRCD_RECOVER_SPARES_MAX (new flows take spare QP numbers). */
unsigned int mrcd_reload_reserve(unsigned int n, unsigned int min);

/*
 * Setup: QPN pairs reloads may add flows on across processes over a run:
 * in service mode with a profile and the cluster's hosts spread over
 * processes, as many as the cluster's spare pairs (mrcd_recover_spares of
 * its flows at start, the same in every process); 0 otherwise.
 */
uint32_t mrcd_reload_added_pairs(const struct mrcd_daemon *d);

/* Cluster hosts at most (MRCD_CONFIG_MAX_HOSTS). */
#define MRCD_RELOAD_MAX_HOSTS 64

/*
 * Across processes: what every process counts alike from the same
 * profiles, over the run (never given back): added QPN pairs handed out,
 * and per cluster host the slots of its reserve.
 */
struct mrcd_reload_count {
	uint32_t pairs;
	uint32_t slots[MRCD_RELOAD_MAX_HOSTS];
};

/* Where a flow added across processes goes: its QPN pair, each end's reserve slot. */
struct mrcd_reload_place {
	uint32_t pair, src_slot, dst_slot;
};

/*
 * Number the flows a reload adds: want[] the cluster's new flow list in the
 * profile's order, add[j] = 1 for those not in force before
 * (mrcd_reload_diff). Each in turn takes the next pair (at most max_pairs
 * over the run) and the next slot of each end's reserve (reserve[host]
 * slots), written to place[j]. Returns how many, c advanced; or -ENOSPC, c
 * unchanged, with what ran out in `what`; -EINVAL for a host number past
 * MRCD_RELOAD_MAX_HOSTS.
 */
int mrcd_reload_number(struct mrcd_reload_count *c, const struct mrcd_flow_key *want,
	uint32_t n_want, const uint8_t *add, uint32_t max_pairs, const uint32_t *reserve,
	struct mrcd_reload_place *place, char *what, size_t len);

/*
 * Control, at setup in service mode: the reload's state (slot allocators;
 * across processes the cluster's numbering). 0, -ENOMEM, or -EINVAL when a
 * host's region is not the layout the numbering computes (logged); without
 * it (not a service, no profile) every change to the flows is refused.
 */
int mrcd_reload_init(struct mrcd_daemon *d);
void mrcd_reload_free(struct mrcd_daemon *d);

/*
 * Control, on SIGHUP: apply `next` (checked by mrcd_reload_profile_check)
 * to the flows. 0: nothing to change; 1: started (steps go on in
 * mrcd_reload_tick); <0: refused, nothing changed, the reason in `what`.
 */
int mrcd_reload_flows(struct mrcd_daemon *d, const struct mrcd_profile *next, uint64_t now,
	char *what, size_t len);

/* Control, every loop pass: move the pending flow changes on. */
void mrcd_reload_tick(struct mrcd_daemon *d, uint64_t now);

/* Control: a reload's flow changes are still being applied. */
bool mrcd_reload_busy(const struct mrcd_daemon *d);

#endif /* MRCD_RELOAD_H */
