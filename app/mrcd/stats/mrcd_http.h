/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRCD_HTTP_H
#define MRCD_HTTP_H

/*
 * The metrics endpoint: a small HTTP/1.1 server for `GET /metrics`
 * ([telemetry] metrics_listen), run by the stats thread alone. Non-blocking
 * sockets under one poll(); at most MRCD_HTTP_CLIENTS connections, each with
 * a request head of at most MRCD_HTTP_HEAD_MAX bytes (mrcd_http_parse.h);
 * one request per connection, answered and closed. GET and HEAD of
 * /metrics get 200 with the text the caller writes; another path gets 404,
 * another method 405, a malformed head 400 (414 for a long target, 431 for
 * a long head).
 */

#include <stdint.h>
#include <stdio.h>

#define MRCD_HTTP_CLIENTS 8
/* A connection that sends no complete request within this long is closed. */
#define MRCD_HTTP_IDLE_MS 5000

/* What the server did, counted by the stats thread (mrcd_http_counters reads them). */
struct mrcd_http_counters {
	uint64_t accepted;
	uint64_t ok;	      /* 200 */
	uint64_t not_found;   /* 404 */
	uint64_t bad_method;  /* 405 */
	uint64_t bad_request; /* 400, 414, 431 */
	uint64_t busy;	      /* connections closed at once: MRCD_HTTP_CLIENTS were open */
	uint64_t timed_out;   /* closed after MRCD_HTTP_IDLE_MS without a request */
	uint64_t send_failed; /* closed before the whole answer was sent */
};

struct mrcd_http;

/* Writes the body of a 200 answer to `f`. */
typedef void (*mrcd_http_body_fn)(void *arg, FILE *f);

/*
 * Listen on `listen`: "ADDR:PORT", ADDR an IPv4 address or an IPv6 one in
 * brackets, PORT 0 for any free one. NULL on failure, with why naming the
 * bad value or the refused call.
 */
struct mrcd_http *mrcd_http_open(const char *listen, char *why, size_t why_len);
/* "ADDR:PORT" as bound (the port the kernel picked for 0). */
const char *mrcd_http_where(const struct mrcd_http *h);
/* Serve what is ready, waiting at most timeout_ms for something to happen. */
void mrcd_http_poll(struct mrcd_http *h, int timeout_ms, mrcd_http_body_fn body, void *arg);
/* The same, returning early too when wake_fd (-1: none) becomes readable; the caller reads it. */
void mrcd_http_poll_fd(
	struct mrcd_http *h, int timeout_ms, mrcd_http_body_fn body, void *arg, int wake_fd);
const struct mrcd_http_counters *mrcd_http_counters(const struct mrcd_http *h);
void mrcd_http_close(struct mrcd_http *h);

#endif /* MRCD_HTTP_H */
