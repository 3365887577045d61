/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRCD_CTL_PROTO_H
#define MRCD_CTL_PROTO_H

/*
 * The control protocol (doc/control.md): what mrcctl and mrcd say to each
 * other over the control socket, and the parser the daemon runs on what a
 * client sends. Lines of printable ASCII, each at most MRCD_CTL_MAX_LINE
 * bytes with its '\n'. The client opens with "MRCCTL <version>"; then
 * each request is one line, "<command> [key=value ...]", and each answer
 * one line, "OK <json>" or "ERR <code> <message>"; after "events" the
 * server sends "EVENT <json>" lines until the client goes.
 *
 * Everything a client sends is hostile: the parser takes a line as bytes
 * with its length, never reads past it, accepts only what this file
 * names, and says what it refused (an error code word and a message that
 * names the bad value). No allocation; it has a fuzz target (fuzz_ctl).
 * Shared by mrcd and mrcctl, with no DPDK in it.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mrcd_profile.h"

/* The protocol version this build speaks (the only one, so far). */
#define MRCD_CTL_VERSION 1
/* Longest line either side sends, '\n' included. */
#define MRCD_CTL_MAX_LINE 512
/* Arguments a request may carry at most. */
#define MRCD_CTL_MAX_ARGS 8

enum mrcd_ctl_cmd {
	MRCD_CTL_STATUS, /* read: version, hosts, planes, T1s, what is denied, who you are */
	MRCD_CTL_EVENTS, /* read: stream EV events until the client goes */
	MRCD_CTL_DENY,	 /* change: deny EVs */
	MRCD_CTL_ALLOW,	 /* change: re-admit EVs */
	MRCD_CTL_PORT,	 /* change: a plane's port administratively down or up */
	MRCD_CTL_PROBE,	 /* read: probe one EV of a QP, or the EVs of a path, and time them */
	/* "profile <sub> ...": EV and CC profiles (mrcd_profile.h) */
	MRCD_CTL_PROFILE_LIST,	/* read: every profile */
	MRCD_CTL_PROFILE_SHOW,	/* read: one profile */
	MRCD_CTL_PROFILE_ADD,	/* change: a new profile, in INIT */
	MRCD_CTL_PROFILE_SET,	/* change: some fields of a profile */
	MRCD_CTL_PROFILE_STATE, /* change: one lifecycle step */
	MRCD_CTL_PROFILE_DEL,	/* change: remove a profile */
	MRCD_CTL_RELOAD,	/* change: what SIGHUP does (config, profile, scenario) */
	MRCD_CTL_FAIL,		/* change: a fault drill, one QP of a host put in ERROR */
};

/* What a client may name, checked by the parser: the daemon's sizes. */
struct mrcd_ctl_limits {
	unsigned int n_hosts; /* this process's hosts: 0 .. n_hosts - 1 */
	unsigned int n_planes;
	unsigned int n_t1; /* T1s per plane */
};

/* host = all */
#define MRCD_CTL_ALL_HOSTS (-1)

/*
 * A parsed request. deny/allow name exactly one of: a plane; a path
 * (plane, T1); an EV of a QP. probe names the same, on one host, or an
 * EV toward a host of another process (peer=, an endpoint EV probe). port
 * names a plane and state=up|down. fail names one QP (host= qpn=).
 */
struct mrcd_ctl_req {
	enum mrcd_ctl_cmd cmd;
	int host; /* MRCD_CTL_ALL_HOSTS or a host */
	bool has_plane, has_t1, has_qp, has_peer;
	uint8_t plane, t1, peer;
	uint32_t qpn, ev;
	bool down; /* port: state=down */
	/* profile: which (kind=ev|cc id=N), the state asked (state=init|offline|online), the fields
	 */
	uint8_t kind, id, pstate;
	struct mrcd_profile_change change;
};

/* True for the commands that change something (they need an admin caller). */
bool mrcd_ctl_changes(enum mrcd_ctl_cmd cmd);

/*
 * The client's first line, "MRCCTL <version>" (`len` bytes, no '\n'). 0 and
 * *version; else -EINVAL (`err`: "syntax ...") or -EPROTONOSUPPORT ("version
 * ...": a version this build does not speak).
 */
int mrcd_ctl_parse_hello(
	const char *line, size_t len, unsigned int *version, char *err, size_t errlen);

/*
 * One request line (`len` bytes, no '\n'). 0, or -EINVAL with `err` set to
 * "<code> <message>", code one of syntax, unknown-command, bad-arg,
 * no-such-host, no-such-plane, no-such-path, no-such-profile (an id past
 * MRCD_PROFILE_MAX).
 */
int mrcd_ctl_parse(const char *line, size_t len, const struct mrcd_ctl_limits *lim,
	struct mrcd_ctl_req *out, char *err, size_t errlen);

/*
 * The control socket's path for [control] socket = auto (mrcd and mrcctl
 * agree): control.sock in /run/mrcd when that directory exists or can be
 * made and written, else in $XDG_RUNTIME_DIR/mrcd, else /tmp/mrcd-<uid>.
 * `host` >= 0: control-h<host>.sock instead, the socket of a process that
 * runs part of a cluster from host `host` on (its processes may share a
 * machine). `make`: create the directory (the daemon); without, only look.
 * 0 or -ENAMETOOLONG/-EACCES.
 */
int mrcd_ctl_default_path(char *out, size_t outlen, bool make, int host);

#endif /* MRCD_CTL_PROTO_H */
