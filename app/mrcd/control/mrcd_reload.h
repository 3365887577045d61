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
 * Any other profile key (message size, slots, pacing, opcode, checks)
 * shapes every flow's buffers and schedule at start: such a change is
 * refused, naming the key.
 *
 * Limits (each refusal names it): both ends of every flow added or removed
 * are hosts of this process (a peer elsewhere would have to agree on the
 * wire), and room: the flow table and
 * each host's registered region are made at twice what the start needed
 * in service mode, and an added flow takes a freed slot or one of that
 * reserve. With several workers per host a new flow's QPs go to the
 * shards its spare pair's QPNs belong to (mrcd_spare_shard()), each end's
 * generator requests to that shard's ring, and a removed flow's to the
 * shards that list it.
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
 * 0 when `next` differs from `now` at most in the keys that choose the
 * flows (pattern, incast_target, qps_per_peer); else 1 with the first
 * other key that differs, as "key = old -> new", in `what`.
 */
int mrcd_reload_profile_check(
	const struct mrcd_profile *now, const struct mrcd_profile *next, char *what, size_t len);

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
 * room for: n, at least `min`, at most MRCD_RECOVER_SPARES_MAX (new flows
 * take spare QP numbers), in service mode with a profile and every host
 * of the cluster in this process; 0 otherwise.
 */
unsigned int mrcd_reload_room(const struct mrcd_daemon *d, unsigned int n, unsigned int min);

/*
 * Control, at setup in service mode: the reload's state (slot allocators).
 * 0 or -ENOMEM; without it (not a service, no profile) every
 * change to the flows is refused.
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
