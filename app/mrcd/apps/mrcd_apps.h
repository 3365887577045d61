/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRCD_APPS_H
#define MRCD_APPS_H

/*
 * Applications on mrcd (doc/applications.md): the daemon's end of the channel
 * lib_mrc speaks (lib/mrc_api/mrc_chan.h).
 *
 * Run by: the control thread (the socket, sessions, QP and region set-up;
 * mrcd_apps_open / _tick / _close), the workers (each the QPs it owns:
 * mrcd_apps_worker_poll), telemetry (/mrc/apps). The control thread reaches a
 * worker only through its shard's request ring (MRC_SHARD_CALL): it adds and
 * removes QPs there, moves them to RTS and ERROR, and changes the host's
 * region table there, so all of those are written on the lcore that reads
 * them.
 */

#include <stdint.h>

#include "mrcd_daemon.h"

struct mrcd_daemon;

/* QPNs per host kept for applications, after the generator's and their spares. */
#define MRCD_APPS_QPNS 256
/* Region slots per host kept for applications, after the generator's. */
#define MRCD_APPS_MR_SLOTS 256

/*
 * The shard of its host that owns application QPN `qpn` when the host runs
 * `n_shards` (the host's QPN map says the same, mrcd_setup.c). A function of
 * the number alone, so a peer in any process of the cluster addresses a
 * QP's owning worker knowing only the QPN and [lcores] workers_per_host.
 */
static inline unsigned int
mrcd_apps_qpn_shard(uint32_t qpn, unsigned int n_shards)
{
	return n_shards > 1 ? (qpn - MRCD_QPN_BASE) % n_shards : 0;
}

/* Control, after the lcores are assigned: open the socket ([daemon] apps_socket). */
int mrcd_apps_open(struct mrcd_daemon *d);
/* Control, each pass of its loop: accept, serve requests, notice applications gone,
 * wake the channels of CQs the workers completed on. True if it found any of these. */
bool mrcd_apps_tick(struct mrcd_daemon *d, uint64_t now);
/*
 * Control, before its loop sleeps: the sockets whose input should wake it (the
 * listening socket, every session's), at most `room` of them into p; how many.
 * An application's request then waits for no tick.
 */
struct pollfd;
unsigned int mrcd_apps_pollfds(const struct mrcd_daemon *d, struct pollfd *p, unsigned int room);
/* Control, once the workers have stopped: end every session and close the socket. */
void mrcd_apps_close(struct mrcd_daemon *d);
/* Worker `w`, each pass: its applications' QPs (send queues, completions). */
void mrcd_apps_worker_poll(struct mrcd_daemon *d, unsigned int w);
/* Register /mrc/apps. */
int mrcd_apps_telemetry_register(struct mrcd_daemon *d);

#endif /* MRCD_APPS_H */
