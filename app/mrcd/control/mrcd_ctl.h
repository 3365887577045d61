/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRCD_CTL_H
#define MRCD_CTL_H

/*
 * The node controller's side of mrcd: the control socket ([control]
 * socket, doc/control.md) and the thread that serves it. The thread is
 * neither a worker nor the main lcore: it accepts clients, reads their
 * requests (app/common/mrcd_ctl_proto.h parses them), and carries out a
 * change by putting requests on the shards' request rings and waiting for
 * their owners' answers (lib/host/mrc_shard.h, MRC_SHARD_EV_*), so the
 * main loop never waits for it and no worker's state is written from
 * outside. It also drains the shards' EV event rings and streams what
 * they say to the clients that asked ("events").
 *
 * Who writes what: the thread owns everything in struct mrcd_ctl; the
 * deny table it last applied to each host is published in the host's
 * context (mrcd_hostctx.denied_*, atomics) for telemetry.
 */

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "mrcd_ctl_proto.h"
#include "mrcd_daemon.h"

/* Clients served at once; one more is told so and closed. */
#define MRCD_CTL_MAX_CLIENTS 16
/*
 * Events queued for a streaming client that has not read them yet; beyond,
 * they are counted lost for it and it is told how many once it catches up.
 */
#define MRCD_CTL_EVENT_BUF (1u << 20)
/* How long a change waits for the workers to carry it out. */
#define MRCD_CTL_WAIT_MS 2000
/* How long reload waits for the control loop (it reads and parses the files). */
#define MRCD_CTL_RELOAD_WAIT_MS 5000
/*
 * probe: how long one probe's answer is waited for ("no answer" after), and
 * how many EVs of a path one command probes at most (one after the other).
 */
#define MRCD_CTL_PROBE_WAIT_MS 100
#define MRCD_CTL_PROBE_MAX     32

struct mrcd_ctl_client {
	int fd; /* -1: free */
	uid_t uid;
	pid_t pid;
	bool admin;    /* may change things (decided at accept) */
	bool hello;    /* the version line was accepted */
	bool events;   /* streams EV events */
	char why[160]; /* how admin was decided, for status */
	char *out;     /* streaming: events not yet sent (MRCD_CTL_EVENT_BUF bytes) */
	size_t out_n;
	uint64_t lost; /* events that found out full, not yet told */
	size_t in_n;
	char in[MRCD_CTL_MAX_LINE];
};

/* What a fault drill (mrcctl fail) asks of the worker that owns the QP. */
struct mrcd_ctl_fail_ask {
	struct mrcd_daemon *d;
	uint32_t fi, qpn;
	bool sender;
};

struct mrcd_ctl {
	struct mrcd_daemon *d;
	int lfd;     /* the listening socket; -1: none */
	int wake[2]; /* a byte on wake[1] stops the thread */
	pthread_t thread;
	bool started;
	char path[108];
	bool admin_gid_set;
	gid_t admin_gid;
	struct mrcd_ctl_limits lim;
	struct mrcd_ctl_client cl[MRCD_CTL_MAX_CLIENTS];
	/* Requests to the shards: kept here until their owner is done with them (a
	 * change that timed out leaves them pending; the next change waits for them). */
	struct mrc_shard_req req[MRCD_MAX_HOSTS][MRC_SHARD_MAX_SHARDS];
	bool pending[MRCD_MAX_HOSTS][MRC_SHARD_MAX_SHARDS];
	/* the selection each request in req[][] reads, as long as it is queued */
	struct mrc_shard_ev_sel req_sel[MRCD_MAX_HOSTS][MRC_SHARD_MAX_SHARDS];
	/* the arguments of the fault drills in req[][]: they live as long as the request */
	struct mrcd_ctl_fail_ask fail_ask[MRCD_MAX_HOSTS][MRC_SHARD_MAX_SHARDS];
	struct mrc_shard_ev_sel sel;
	/*
	 * probe of a path: the EVs each shard of each host listed (MRC_SHARD_EV_LIST),
	 * one list per request in req[][]: one that timed out may still write its own
	 */
	struct mrc_shard_ev_ref probe_list[MRCD_MAX_HOSTS][MRC_SHARD_MAX_SHARDS]
					  [MRCD_CTL_PROBE_MAX];
	/* EV events taken off the shards' rings; sent to at least one client */
	uint64_t events_in, events_out;
};

/*
 * mrcd_ctl_open(), before the EAL: take the control socket's path
 * ([control]) and listen on it; nothing with socket = none. 0, or -errno
 * after logging what is wrong (a live socket at the path, a group that
 * does not exist, ...). mrcd_ctl_start(), once the hosts are made: serve
 * it from its thread (clients that came before wait in the backlog).
 */
int mrcd_ctl_open(struct mrcd_daemon *d);
int mrcd_ctl_start(struct mrcd_daemon *d);
/* Stop the thread, close every client, remove the socket. Safe when not started. */
void mrcd_ctl_stop(struct mrcd_daemon *d);

/* mrcd_ctl_ops.c, on the control socket's thread. */
/* Answer a parsed request from client `c` into out ("OK ..." or "ERR ..."). */
void mrcd_ctl_answer(struct mrcd_ctl *ctl, struct mrcd_ctl_client *c, const struct mrcd_ctl_req *rq,
	char *out, size_t outlen);
/* Take what the shards' EV event rings hold and send it to the clients that stream. */
void mrcd_ctl_pump_events(struct mrcd_ctl *ctl);
/* Send one line (with its '\n') to every streaming client. */
void mrcd_ctl_broadcast(struct mrcd_ctl *ctl, const char *line);
/*
 * Queue `op` (with `sel`, and for MRC_SHARD_EV_LIST the array `list` of
 * list_max) on shard k of host h: false if its earlier request is still
 * out or the ring is full. mrcd_ctl_wait(): until every request posted to
 * the hosts in the mask `hosts` is done, MRCD_CTL_WAIT_MS at most (false).
 */
bool mrcd_ctl_post(struct mrcd_ctl *ctl, unsigned int h, unsigned int k, enum mrc_shard_op op,
	const struct mrc_shard_ev_sel *sel, struct mrc_shard_ev_ref *list, uint32_t list_max);
bool mrcd_ctl_wait(struct mrcd_ctl *ctl, uint32_t hosts);

/* mrcd_profiles_tele.c: /mrc/profiles, the EV and CC profiles (doc/control.md). */
int mrcd_profiles_telemetry_register(struct mrcd_daemon *d);

/* mrcd_ctl_probe.c: the probe command (doc/control.md). */
void mrcd_ctl_probe(struct mrcd_ctl *ctl, const struct mrcd_ctl_req *rq, char *out, size_t outlen);

#endif /* MRCD_CTL_H */
