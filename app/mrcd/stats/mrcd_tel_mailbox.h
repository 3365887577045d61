/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRCD_TEL_MAILBOX_H
#define MRCD_TEL_MAILBOX_H

/*
 * How a /mrc/ command reaches the stats thread, which answers it. DPDK's
 * telemetry threads (one per client) post a request and wait; the stats
 * thread, between its ticks, takes the oldest request, formats the reply
 * into the caller's rte_tel_data and wakes the caller. An eventfd is
 * readable exactly while a request waits, so the stats thread can poll it
 * with its other files and answer at once instead of at its next tick.
 *
 * A caller waits at most its timeout for the server to TAKE the request;
 * after that it takes the request back and answers an error itself. Once
 * taken, it waits for the reply whatever the time: the server is writing
 * into the caller's rte_tel_data, and answering over it would mix two
 * replies. A reply's formatting is bounded (the longest, /mrc/qp, gives up
 * on its worker after 100 ms).
 *
 * No DPDK calls here, so a unit test drives it with threads of its own.
 */

#include <pthread.h>
#include <stdint.h>

struct rte_tel_data;

/* A command's formatter, with the signature of DPDK's telemetry_cb. */
typedef int (*mrcd_tel_fn)(const char *cmd, const char *params, struct rte_tel_data *d);

/* One request, on the asking thread's stack. */
struct mrcd_tel_req {
	const char *cmd, *params;
	struct rte_tel_data *d;
	mrcd_tel_fn fn;
	int rc;	   /* the formatter's return, once done */
	int state; /* enum in mrcd_tel_mailbox.c: queued, taken, done */
	struct mrcd_tel_req *next;
};

/* Counted under the lock; read with mrcd_tel_mailbox_counters. */
struct mrcd_tel_mailbox_counters {
	uint64_t served;    /* replies the server formatted */
	uint64_t timed_out; /* requests taken back by their caller, never served */
};

struct mrcd_tel_mailbox {
	pthread_mutex_t lock;
	pthread_cond_t done; /* on CLOCK_MONOTONIC: the server finished a request */
	struct mrcd_tel_req *head, *tail;
	int efd; /* readable while head != NULL */
	struct mrcd_tel_mailbox_counters cnt;
};

/* 0, or -errno of eventfd() or the condition variable's set-up. */
int mrcd_tel_mailbox_init(struct mrcd_tel_mailbox *mb);
void mrcd_tel_mailbox_fini(struct mrcd_tel_mailbox *mb);

/*
 * A telemetry thread: post r (cmd, params, d and fn set) and wait for it.
 * 0 when the server answered (r->rc is the formatter's return), -ETIMEDOUT
 * when no server took it within timeout_ms (nothing was written to r->d).
 */
int mrcd_tel_mailbox_ask(
	struct mrcd_tel_mailbox *mb, struct mrcd_tel_req *r, unsigned int timeout_ms);

/* The server: format the oldest waiting request's reply. 1 if one was served, 0 if none waited. */
int mrcd_tel_mailbox_serve_one(struct mrcd_tel_mailbox *mb);

/* The fd to poll for POLLIN: readable while a request waits. */
static inline int
mrcd_tel_mailbox_fd(const struct mrcd_tel_mailbox *mb)
{
	return mb->efd;
}

void mrcd_tel_mailbox_counters(struct mrcd_tel_mailbox *mb, struct mrcd_tel_mailbox_counters *out);

#endif /* MRCD_TEL_MAILBOX_H */
