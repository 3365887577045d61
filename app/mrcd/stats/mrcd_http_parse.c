/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: the stats thread (mrcd_http.c), on whatever a client sent.
 *
 * A request head, line by line (RFC 9112, sections 3 and 5, reduced to what
 * a scraper sends). The input is hostile: every byte is checked, nothing is
 * written past the fields' sizes, and the buffer is never assumed to be
 * NUL-terminated.
 */

#include <stdbool.h>
#include <string.h>

#include "mrcd_http_parse.h"

static enum mrcd_http_verdict
bad(struct mrcd_http_req *r, unsigned int status, const char *why)
{
	r->status = status;
	r->why = why;
	return MRCD_HTTP_BAD;
}

/* The end of the line starting at `at` (the index of its LF), or -1 when it has none yet. */
static long
line_end(const char *buf, size_t len, size_t at)
{
	const char *lf = memchr(buf + at, '\n', len - at);

	return lf == NULL ? -1 : (long)(lf - buf);
}

/* Line [at, lf) without its CR: its length. */
static size_t
line_len(const char *buf, size_t at, size_t lf)
{
	return lf > at && buf[lf - 1] == '\r' ? lf - 1 - at : lf - at;
}

static int
is_tchar(char c)
{
	/* RFC 9110's token characters */
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c != '\0' && strchr("!#$%&'*+-.^_`|~", c) != NULL);
}

static enum mrcd_http_verdict
request_line(const char *s, size_t n, struct mrcd_http_req *r)
{
	size_t i = 0, m = 0, t = 0;

	while (i < n && s[i] >= 'A' && s[i] <= 'Z') {
		if (m + 1 >= MRCD_HTTP_METHOD_MAX)
			return bad(r, 400, "method longer than 7 letters");
		r->method[m++] = s[i++];
	}
	r->method[m] = '\0';
	if (m == 0 || i >= n || s[i] != ' ')
		return bad(r, 400, "request line does not start with a method and a space");
	i++;
	if (i >= n || s[i] != '/')
		return bad(r, 400, "target does not start with '/'");
	for (; i < n && s[i] != ' '; i++) {
		if (s[i] < 0x21 || s[i] > 0x7e)
			return bad(r, 400, "target holds a byte that is not visible ASCII");
		if (t + 1 >= MRCD_HTTP_TARGET_MAX)
			return bad(r, 414, "target too long");
		r->path[t++] = s[i];
	}
	r->path[t] = '\0';
	/* the path is what comes before any query */
	char *q = strchr(r->path, '?');

	if (q != NULL)
		*q = '\0';
	if (i >= n || n - i != 9 || memcmp(s + i, " HTTP/1.", 8) != 0 ||
		(s[i + 8] != '0' && s[i + 8] != '1'))
		return bad(r, 400, "version is not HTTP/1.0 or HTTP/1.1");
	r->minor = (uint8_t)(s[i + 8] - '0');
	return MRCD_HTTP_DONE;
}

static enum mrcd_http_verdict
header_line(const char *s, size_t n, struct mrcd_http_req *r)
{
	size_t i = 0;

	if (s[0] == ' ' || s[0] == '\t')
		return bad(r, 400, "folded header line");
	while (i < n && is_tchar(s[i]))
		i++;
	if (i == 0 || i >= n || s[i] != ':')
		return bad(r, 400, "header line is not 'name: value'");
	for (i++; i < n; i++)
		if (s[i] != '\t' && (s[i] < 0x20 || s[i] == 0x7f))
			return bad(r, 400, "header value holds a control byte");
	return MRCD_HTTP_DONE;
}

enum mrcd_http_verdict
mrcd_http_parse(const char *buf, size_t len, struct mrcd_http_req *r)
{
	size_t at = 0;
	long lf;
	bool first = true;

	memset(r, 0, sizeof(*r));
	if (len > MRCD_HTTP_HEAD_MAX)
		len = MRCD_HTTP_HEAD_MAX; /* what is past the cap is never looked at */
	while ((lf = line_end(buf, len, at)) >= 0) {
		const size_t n = line_len(buf, at, (size_t)lf);
		enum mrcd_http_verdict v;

		if (n == 0) {
			if (first)
				return bad(r, 400, "empty request line");
			r->head_len = (size_t)lf + 1;
			return MRCD_HTTP_DONE;
		}
		v = first ? request_line(buf + at, n, r) : header_line(buf + at, n, r);
		if (v != MRCD_HTTP_DONE)
			return v;
		first = false;
		at = (size_t)lf + 1;
	}
	if (len >= MRCD_HTTP_HEAD_MAX)
		return bad(r, 431, "request head larger than 4096 bytes");
	return MRCD_HTTP_MORE;
}
