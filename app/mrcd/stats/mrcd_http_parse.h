/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRCD_HTTP_PARSE_H
#define MRCD_HTTP_PARSE_H

/*
 * The request parser of the metrics endpoint (mrcd_http.c): what a scraper
 * sends, read strictly. It depends on nothing but libc, so its fuzz target
 * (test/fuzz/fuzz_http.c) and unit test take it alone.
 *
 * Accepted: a request line `METHOD SP TARGET SP HTTP/1.0|HTTP/1.1`, header
 * lines `name: value`, an empty line; lines end in CRLF or a bare LF. The
 * method is 1 to 7 upper-case letters; the target starts with '/' and is at
 * most MRCD_HTTP_TARGET_MAX - 1 visible ASCII characters. Anything else is
 * refused with a reason. A body is never read: the server answers and
 * closes.
 */

#include <stddef.h>
#include <stdint.h>

/* The whole head a client may send: more, and the request is refused (431). */
#define MRCD_HTTP_HEAD_MAX   4096
#define MRCD_HTTP_TARGET_MAX 256
#define MRCD_HTTP_METHOD_MAX 8

enum mrcd_http_verdict {
	MRCD_HTTP_MORE = 0, /* no complete head yet: read more */
	MRCD_HTTP_DONE = 1, /* a complete, well-formed head */
	MRCD_HTTP_BAD = -1, /* malformed: answer 400 (status says which) and close */
};

struct mrcd_http_req {
	char method[MRCD_HTTP_METHOD_MAX]; /* NUL-terminated */
	char path[MRCD_HTTP_TARGET_MAX];   /* the target without its query, NUL-terminated */
	uint8_t minor;			   /* HTTP/1.<minor> */
	size_t head_len;		   /* bytes of the head, its empty line included */
	unsigned int status;		   /* on BAD: the status to answer (400, 414, 431) */
	const char *why;		   /* on BAD: what was wrong */
};

/* Parse buf[0, len) as a request head; the verdict, and *r filled on DONE (why on BAD). */
enum mrcd_http_verdict mrcd_http_parse(const char *buf, size_t len, struct mrcd_http_req *r);

#endif /* MRCD_HTTP_PARSE_H */
