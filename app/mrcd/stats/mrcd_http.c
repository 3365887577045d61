/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: the stats thread (mrcd_stats_thread.c) only.
 *
 * The metrics endpoint's server (mrcd_http.h). Each connection goes
 * READING (bytes into a fixed head buffer until the parser has a whole
 * head) -> WRITING (one prepared answer, sent as the socket takes it) ->
 * closed. The stats thread never blocks on a client: every socket is
 * non-blocking, and poll() is the thread's only wait.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "mrcd_http.h"
#include "mrcd_http_parse.h"

struct http_client {
	int fd; /* -1: the slot is free */
	bool writing;
	size_t in_len;
	char in[MRCD_HTTP_HEAD_MAX];
	char *out; /* the answer (malloc'd), sent from out_off */
	size_t out_len, out_off;
	uint64_t since_ms; /* when it connected */
};

struct mrcd_http {
	int fd;
	char where[64];
	struct mrcd_http_counters cnt;
	struct http_client c[MRCD_HTTP_CLIENTS];
};

static uint64_t
mono_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

/* "ADDR:PORT" into a socket address: 0, or -EINVAL with why. */
static int
parse_listen(const char *s, struct sockaddr_storage *ss, socklen_t *sl, char *why, size_t wl)
{
	const char *colon = strrchr(s, ':');
	char host[INET6_ADDRSTRLEN + 2];
	size_t hl;
	char *end;
	unsigned long port;

	if (colon == NULL || colon == s || colon[1] == '\0') {
		snprintf(why, wl, "metrics_listen '%s': want ADDR:PORT", s);
		return -EINVAL;
	}
	errno = 0;
	port = strtoul(colon + 1, &end, 10);
	if (*end != '\0' || errno != 0 || port > 65535 || colon[1] < '0' || colon[1] > '9') {
		snprintf(why, wl, "metrics_listen '%s': port '%s' is not 0..65535", s, colon + 1);
		return -EINVAL;
	}
	hl = (size_t)(colon - s);
	if (hl >= sizeof(host)) {
		snprintf(why, wl, "metrics_listen '%s': address too long", s);
		return -EINVAL;
	}
	memcpy(host, s, hl);
	host[hl] = '\0';
	memset(ss, 0, sizeof(*ss));
	if (host[0] == '[' && hl > 2 && host[hl - 1] == ']') {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;

		host[hl - 1] = '\0';
		if (inet_pton(AF_INET6, host + 1, &a->sin6_addr) != 1)
			goto bad_addr;
		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)port);
		*sl = sizeof(*a);
		return 0;
	}
	struct sockaddr_in *a = (struct sockaddr_in *)ss;

	if (inet_pton(AF_INET, host, &a->sin_addr) != 1)
		goto bad_addr;
	a->sin_family = AF_INET;
	a->sin_port = htons((uint16_t)port);
	*sl = sizeof(*a);
	return 0;
bad_addr:
	snprintf(why, wl,
		"metrics_listen '%s': '%.*s' is not an IPv4 address or an IPv6 one in brackets", s,
		(int)hl, s);
	return -EINVAL;
}

static void
describe(struct mrcd_http *h)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char a[INET6_ADDRSTRLEN];

	if (getsockname(h->fd, (struct sockaddr *)&ss, &sl) != 0) {
		snprintf(h->where, sizeof(h->where), "?");
		return;
	}
	if (ss.ss_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)&ss;

		inet_ntop(AF_INET6, &s6->sin6_addr, a, sizeof(a));
		snprintf(h->where, sizeof(h->where), "[%s]:%u", a, ntohs(s6->sin6_port));
	} else {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)&ss;

		inet_ntop(AF_INET, &s4->sin_addr, a, sizeof(a));
		snprintf(h->where, sizeof(h->where), "%s:%u", a, ntohs(s4->sin_port));
	}
}

struct mrcd_http *
mrcd_http_open(const char *listen_on, char *why, size_t why_len)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	struct mrcd_http *h;
	const int one = 1;

	if (parse_listen(listen_on, &ss, &sl, why, why_len) != 0)
		return NULL;
	h = calloc(1, sizeof(*h));
	if (h == NULL) {
		snprintf(why, why_len, "metrics endpoint: out of memory");
		return NULL;
	}
	for (unsigned int i = 0; i < MRCD_HTTP_CLIENTS; i++)
		h->c[i].fd = -1;
	h->fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (h->fd < 0 || setsockopt(h->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
		bind(h->fd, (struct sockaddr *)&ss, sl) != 0 || listen(h->fd, 16) != 0) {
		snprintf(why, why_len, "metrics_listen '%s': %s", listen_on, strerror(errno));
		if (h->fd >= 0)
			close(h->fd);
		free(h);
		return NULL;
	}
	describe(h);
	return h;
}

const char *
mrcd_http_where(const struct mrcd_http *h)
{
	return h->where;
}

const struct mrcd_http_counters *
mrcd_http_counters(const struct mrcd_http *h)
{
	return &h->cnt;
}

static void
drop(struct http_client *c)
{
	close(c->fd);
	free(c->out);
	c->fd = -1;
	c->out = NULL;
	c->writing = false;
	c->in_len = c->out_len = c->out_off = 0;
}

/* Prepare the answer: a status line, headers and (unless HEAD) the body. */
static void
answer(struct http_client *c, unsigned int status, const char *reason, const char *extra,
	const char *body, size_t body_len, bool head_only)
{
	char hdr[256];
	int n = snprintf(hdr, sizeof(hdr),
		"HTTP/1.1 %u %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%sConnection: "
		"close\r\n\r\n",
		status, reason,
		status == 200 ? "text/plain; version=0.0.4; charset=utf-8"
			      : "text/plain; charset=utf-8",
		body_len, extra);
	const size_t send_body = head_only ? 0 : body_len;

	c->out = malloc((size_t)n + send_body);
	c->writing = true;
	c->out_off = 0;
	if (c->out == NULL) {
		c->out_len = 0;
		return;
	}
	memcpy(c->out, hdr, (size_t)n);
	if (send_body)
		memcpy(c->out + n, body, send_body);
	c->out_len = (size_t)n + send_body;
}

static void
error_answer(struct http_client *c, unsigned int status, const char *reason, const char *extra,
	const char *why, bool head_only)
{
	char body[160];
	int n = snprintf(body, sizeof(body), "%u %s: %s\n", status, reason, why);

	answer(c, status, reason, extra, body,
		(size_t)n < sizeof(body) ? (size_t)n : sizeof(body) - 1, head_only);
}

static void
serve(struct mrcd_http *h, struct http_client *c, const struct mrcd_http_req *r,
	mrcd_http_body_fn body, void *arg)
{
	const bool head = strcmp(r->method, "HEAD") == 0;

	if (strcmp(r->method, "GET") != 0 && !head) {
		h->cnt.bad_method++;
		error_answer(c, 405, "Method Not Allowed", "Allow: GET, HEAD\r\n",
			"only GET and HEAD are served", false);
		return;
	}
	if (strcmp(r->path, "/metrics") != 0) {
		h->cnt.not_found++;
		error_answer(c, 404, "Not Found", "", "the only page is /metrics", head);
		return;
	}
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (f == NULL) {
		error_answer(c, 500, "Internal Server Error", "", "out of memory", head);
		return;
	}
	body(arg, f);
	fclose(f);
	h->cnt.ok++;
	answer(c, 200, "OK", "", text, len, head);
	free(text);
}

static void
on_readable(struct mrcd_http *h, struct http_client *c, mrcd_http_body_fn body, void *arg)
{
	struct mrcd_http_req r;
	ssize_t n;

	if (c->in_len == sizeof(c->in)) {
		/* a full buffer the parser found no end in: refused below, nothing more read */
		n = 0;
	} else {
		n = recv(c->fd, c->in + c->in_len, sizeof(c->in) - c->in_len, 0);
		if (n == 0 ||
			(n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
			drop(c); /* the client went away before it asked */
			return;
		}
		if (n < 0)
			return;
	}
	c->in_len += (size_t)n;
	switch (mrcd_http_parse(c->in, c->in_len, &r)) {
	case MRCD_HTTP_MORE:
		return;
	case MRCD_HTTP_BAD:
		h->cnt.bad_request++;
		error_answer(c, r.status,
			r.status == 414	  ? "URI Too Long"
			: r.status == 431 ? "Request Header Fields Too Large"
					  : "Bad Request",
			"", r.why, false);
		return;
	case MRCD_HTTP_DONE:
		serve(h, c, &r, body, arg);
		return;
	}
}

static void
on_writable(struct mrcd_http *h, struct http_client *c)
{
	while (c->out_off < c->out_len) {
		const ssize_t n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off,
			MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
			return;
		if (n <= 0) {
			h->cnt.send_failed++;
			drop(c);
			return;
		}
		c->out_off += (size_t)n;
	}
	if (c->out == NULL)
		h->cnt.send_failed++; /* the answer could not be made */
	shutdown(c->fd, SHUT_WR);
	drop(c);
}

static void
accept_all(struct mrcd_http *h, uint64_t now_ms)
{
	for (;;) {
		const int fd = accept4(h->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		unsigned int i;

		if (fd < 0)
			return; /* EAGAIN: none left; anything else: tried again at the next poll */
		h->cnt.accepted++;
		for (i = 0; i < MRCD_HTTP_CLIENTS && h->c[i].fd >= 0; i++)
			;
		if (i == MRCD_HTTP_CLIENTS) {
			h->cnt.busy++;
			close(fd);
			continue;
		}
		h->c[i].fd = fd;
		h->c[i].since_ms = now_ms;
	}
}

void
mrcd_http_poll(struct mrcd_http *h, int timeout_ms, mrcd_http_body_fn body, void *arg)
{
	mrcd_http_poll_fd(h, timeout_ms, body, arg, -1);
}

void
mrcd_http_poll_fd(
	struct mrcd_http *h, int timeout_ms, mrcd_http_body_fn body, void *arg, int wake_fd)
{
	/* the caller's wake_fd rides last, after the clients: poll() skips it when negative */
	struct pollfd p[MRCD_HTTP_CLIENTS + 2];
	unsigned int who[MRCD_HTTP_CLIENTS + 1], n = 1;
	uint64_t now;

	p[0] = (struct pollfd){.fd = h->fd, .events = POLLIN};
	for (unsigned int i = 0; i < MRCD_HTTP_CLIENTS; i++) {
		if (h->c[i].fd < 0)
			continue;
		p[n] = (struct pollfd){
			.fd = h->c[i].fd, .events = h->c[i].writing ? POLLOUT : POLLIN};
		who[n++] = i;
	}
	p[n] = (struct pollfd){.fd = wake_fd, .events = POLLIN};
	if (poll(p, n + 1, timeout_ms) < 0)
		return; /* EINTR: the caller comes back */
	now = mono_ms();
	for (unsigned int k = 1; k < n; k++) {
		struct http_client *c = &h->c[who[k]];

		if (p[k].revents & (POLLERR | POLLNVAL)) {
			if (c->writing)
				h->cnt.send_failed++;
			drop(c);
			continue;
		}
		if (!c->writing && (p[k].revents & (POLLIN | POLLHUP)))
			on_readable(h, c, body, arg);
		if (c->fd >= 0 && c->writing)
			on_writable(h, c);
		if (c->fd >= 0 && !c->writing && now - c->since_ms > MRCD_HTTP_IDLE_MS) {
			h->cnt.timed_out++;
			drop(c);
		}
	}
	if (p[0].revents & POLLIN)
		accept_all(h, now);
}

void
mrcd_http_close(struct mrcd_http *h)
{
	if (h == NULL)
		return;
	for (unsigned int i = 0; i < MRCD_HTTP_CLIENTS; i++)
		if (h->c[i].fd >= 0)
			drop(&h->c[i]);
	close(h->fd);
	free(h);
}
