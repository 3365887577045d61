/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * The metrics endpoint: its request parser (app/mrcd/stats/mrcd_http_parse.c)
 * on good and hostile heads, and its server (mrcd_http.c) over loopback
 * sockets, driven by hand from this one thread: every answer's status and
 * body, a request split over several sends, a head too large, more clients
 * than it keeps, and a bad listen address refused by name.
 */

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "mrc_test.h"
#include "mrcd_http.h"
#include "mrcd_http_parse.h"

static enum mrcd_http_verdict
parse(const char *s, struct mrcd_http_req *r)
{
	return mrcd_http_parse(s, strlen(s), r);
}

static int
test_parse_good(void)
{
	struct mrcd_http_req r;
	const char *req = "GET /metrics?x=1 HTTP/1.1\r\nHost: a:9\r\nAccept: */*\r\n\r\nBODY";

	MRC_T_EQ(parse(req, &r), MRCD_HTTP_DONE);
	MRC_T_STREQ(r.method, "GET");
	MRC_T_STREQ(r.path, "/metrics");
	MRC_T_EQ(r.minor, 1);
	MRC_T_EQ(r.head_len, strlen(req) - 4);
	/* bare LFs, HTTP/1.0, no headers */
	MRC_T_EQ(parse("HEAD / HTTP/1.0\n\n", &r), MRCD_HTTP_DONE);
	MRC_T_STREQ(r.method, "HEAD");
	MRC_T_STREQ(r.path, "/");
	MRC_T_EQ(r.minor, 0);
	/* every prefix of a good head wants more, and never reads past what it has */
	for (size_t n = 0; n < strlen(req) - 4; n++) {
		char *p = malloc(n ? n : 1);

		memcpy(p, req, n);
		MRC_T_EQ(mrcd_http_parse(p, n, &r), MRCD_HTTP_MORE);
		free(p);
	}
	return MRC_TEST_OK;
}

static int
test_parse_bad(void)
{
	static const struct {
		const char *req;
		unsigned int status;
		const char *why; /* a word of the reason */
	} bad[] = {
		{"\r\n\r\n", 400, "empty"},
		{"get /metrics HTTP/1.1\r\n\r\n", 400, "method"},
		{"GETTINGS /metrics HTTP/1.1\r\n\r\n", 400, "7 letters"},
		{"GET metrics HTTP/1.1\r\n\r\n", 400, "'/'"},
		{"GET /met\x01rics HTTP/1.1\r\n\r\n", 400, "visible"},
		{"GET /metrics HTTP/2.0\r\n\r\n", 400, "version"},
		{"GET /metrics HTTP/1.1 x\r\n\r\n", 400, "version"},
		{"GET  /metrics HTTP/1.1\r\n\r\n", 400, "'/'"},
		{"GET /metrics HTTP/1.1\r\nno colon\r\n\r\n", 400, "name: value"},
		{"GET /metrics HTTP/1.1\r\n: empty name\r\n\r\n", 400, "name: value"},
		{"GET /metrics HTTP/1.1\r\nA: b\r\n folded\r\n\r\n", 400, "folded"},
		{"GET /metrics HTTP/1.1\r\nA: b\x7f\r\n\r\n", 400, "control"},
	};
	struct mrcd_http_req r;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		MRC_T_EQ(parse(bad[i].req, &r), MRCD_HTTP_BAD);
		MRC_T_EQ(r.status, bad[i].status);
		MRC_T_ASSERT(strstr(r.why, bad[i].why) != NULL, "case %zu: '%s' lacks '%s'", i,
			r.why, bad[i].why);
	}
	return MRC_TEST_OK;
}

static int
test_parse_limits(void)
{
	static char big[MRCD_HTTP_HEAD_MAX + 100];
	struct mrcd_http_req r;
	size_t n;

	/* a target of 255 characters fits, 256 does not */
	n = (size_t)snprintf(big, sizeof(big), "GET /");
	memset(big + n, 'a', MRCD_HTTP_TARGET_MAX - 2);
	n += MRCD_HTTP_TARGET_MAX - 2;
	strcpy(big + n, " HTTP/1.1\r\n\r\n");
	MRC_T_EQ(parse(big, &r), MRCD_HTTP_DONE);
	MRC_T_EQ(strlen(r.path), MRCD_HTTP_TARGET_MAX - 1);
	memmove(big + 5, big + 4, strlen(big + 4) + 1);
	MRC_T_EQ(parse(big, &r), MRCD_HTTP_BAD);
	MRC_T_EQ(r.status, 414);
	/* a head that never ends: more until the cap, refused at it */
	n = (size_t)snprintf(big, sizeof(big), "GET / HTTP/1.1\r\nX: ");
	memset(big + n, 'b', sizeof(big) - n);
	MRC_T_EQ(mrcd_http_parse(big, MRCD_HTTP_HEAD_MAX - 1, &r), MRCD_HTTP_MORE);
	MRC_T_EQ(mrcd_http_parse(big, MRCD_HTTP_HEAD_MAX, &r), MRCD_HTTP_BAD);
	MRC_T_EQ(r.status, 431);
	MRC_T_EQ(mrcd_http_parse(big, sizeof(big), &r), MRCD_HTTP_BAD);
	return MRC_TEST_OK;
}

/* ---- the server over loopback ---- */

static void
body(void *arg, FILE *f)
{
	(*(int *)arg)++;
	fputs("# TYPE x counter\nx_total 7\n", f);
}

static int
dial(const char *where)
{
	const char *colon = strrchr(where, ':');
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(atoi(colon + 1))};
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* Serve until the client's answer is complete (the server closes): what it read. */
static size_t
answer(struct mrcd_http *h, int fd, int *calls, char *buf, size_t len)
{
	size_t got = 0;

	for (int i = 0; i < 200 && got < len - 1; i++) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		ssize_t n;

		mrcd_http_poll(h, 5, body, calls);
		if (poll(&p, 1, 0) <= 0)
			continue;
		n = recv(fd, buf + got, len - 1 - got, 0);
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	buf[got] = '\0';
	return got;
}

static int
ask(struct mrcd_http *h, const char *req, int *calls, char *buf, size_t len)
{
	const int fd = dial(mrcd_http_where(h));

	if (fd < 0)
		return -1;
	if (send(fd, req, strlen(req), 0) != (ssize_t)strlen(req)) {
		close(fd);
		return -1;
	}
	answer(h, fd, calls, buf, len);
	close(fd);
	return 0;
}

static int
test_server(void)
{
	char why[256], buf[8192];
	struct mrcd_http *h = mrcd_http_open("127.0.0.1:0", why, sizeof(why));
	int calls = 0;

	MRC_T_ASSERT(h != NULL, "open: %s", why);
	MRC_T_ASSERT(strncmp(mrcd_http_where(h), "127.0.0.1:", 10) == 0 &&
			     strcmp(mrcd_http_where(h), "127.0.0.1:0") != 0,
		"bound to %s", mrcd_http_where(h));

	MRC_T_EQ(ask(h, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", &calls, buf, sizeof(buf)), 0);
	MRC_T_ASSERT(strncmp(buf, "HTTP/1.1 200 OK\r\n", 17) == 0, "%s", buf);
	MRC_T_ASSERT(strstr(buf, "Content-Type: text/plain; version=0.0.4") != NULL, "%s", buf);
	MRC_T_ASSERT(strstr(buf, "Content-Length: 27\r\n") != NULL, "%s", buf);
	MRC_T_ASSERT(strstr(buf, "\r\n\r\n# TYPE x counter\nx_total 7\n") != NULL, "%s", buf);
	MRC_T_EQ(calls, 1);

	MRC_T_EQ(ask(h, "HEAD /metrics HTTP/1.1\r\n\r\n", &calls, buf, sizeof(buf)), 0);
	MRC_T_ASSERT(
		strstr(buf, "Content-Length: 27\r\n") != NULL && strstr(buf, "x_total") == NULL,
		"HEAD: %s", buf);

	MRC_T_EQ(ask(h, "GET / HTTP/1.1\r\n\r\n", &calls, buf, sizeof(buf)), 0);
	MRC_T_ASSERT(strncmp(buf, "HTTP/1.1 404 ", 13) == 0, "%s", buf);
	MRC_T_EQ(ask(h, "POST /metrics HTTP/1.1\r\n\r\n", &calls, buf, sizeof(buf)), 0);
	MRC_T_ASSERT(strncmp(buf, "HTTP/1.1 405 ", 13) == 0 && strstr(buf, "Allow: GET, HEAD\r\n"),
		"%s", buf);
	MRC_T_EQ(ask(h, "GET /metrics SPDY/3\r\n\r\n", &calls, buf, sizeof(buf)), 0);
	MRC_T_ASSERT(strncmp(buf, "HTTP/1.1 400 ", 13) == 0 && strstr(buf, "version"), "%s", buf);
	MRC_T_EQ(calls, 2);

	/* a request in pieces, the server polled between them */
	int fd = dial(mrcd_http_where(h));
	static const char *const piece[] = {"GE", "T /metr", "ics HTTP/1.1\r", "\n\r\n"};

	MRC_T_ASSERT(fd >= 0, "dial");
	for (size_t i = 0; i < 4; i++) {
		MRC_T_EQ(send(fd, piece[i], strlen(piece[i]), 0), (ssize_t)strlen(piece[i]));
		mrcd_http_poll(h, 5, body, &calls);
		mrcd_http_poll(h, 5, body, &calls);
	}
	answer(h, fd, &calls, buf, sizeof(buf));
	close(fd);
	MRC_T_ASSERT(strncmp(buf, "HTTP/1.1 200 OK\r\n", 17) == 0, "pieces: %s", buf);

	/* a head past the cap: 431, and the server reads no more of it */
	static char big[MRCD_HTTP_HEAD_MAX + 512];
	size_t n = (size_t)snprintf(big, sizeof(big), "GET /metrics HTTP/1.1\r\nX: ");

	memset(big + n, 'z', sizeof(big) - n - 1);
	MRC_T_EQ(ask(h, big, &calls, buf, sizeof(buf)), 0);
	MRC_T_ASSERT(strncmp(buf, "HTTP/1.1 431 ", 13) == 0, "big: %s", buf);

	/* more clients than it keeps: the extra ones are closed at once, the others served */
	int fds[MRCD_HTTP_CLIENTS + 2];

	for (int i = 0; i < MRCD_HTTP_CLIENTS + 2; i++) {
		fds[i] = dial(mrcd_http_where(h));
		MRC_T_ASSERT(fds[i] >= 0, "dial %d", i);
	}
	for (int i = 0; i < 5; i++)
		mrcd_http_poll(h, 5, body, &calls);
	MRC_T_U64_EQ(mrcd_http_counters(h)->busy, 2);
	for (int i = 0; i < MRCD_HTTP_CLIENTS; i++) {
		MRC_T_EQ(send(fds[i], "GET /metrics HTTP/1.1\r\n\r\n", 25, 0), 25);
		answer(h, fds[i], &calls, buf, sizeof(buf));
		MRC_T_ASSERT(strncmp(buf, "HTTP/1.1 200 OK\r\n", 17) == 0, "client %d: %s", i, buf);
	}
	for (int i = 0; i < MRCD_HTTP_CLIENTS + 2; i++)
		close(fds[i]);

	const struct mrcd_http_counters *c = mrcd_http_counters(h);

	MRC_T_U64_EQ(c->ok, 3 + MRCD_HTTP_CLIENTS); /* GET, HEAD, the pieces, the clients */
	MRC_T_U64_EQ(c->not_found, 1);
	MRC_T_U64_EQ(c->bad_method, 1);
	MRC_T_U64_EQ(c->bad_request, 2);
	mrcd_http_close(h);
	return MRC_TEST_OK;
}

static int
test_listen_refused(void)
{
	static const struct {
		const char *listen, *want;
	} bad[] = {
		{"9464", "want ADDR:PORT"},
		{"127.0.0.1:", "want ADDR:PORT"},
		{"127.0.0.1:70000", "port '70000'"},
		{"127.0.0.1:-1", "port '-1'"},
		{"localhost:9464", "'localhost'"},
		{"::1:9464", "'::1'"},
		{"[::1:9464", "'[::1'"},
	};
	char why[256];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		MRC_T_ASSERT(mrcd_http_open(bad[i].listen, why, sizeof(why)) == NULL, "%s opened",
			bad[i].listen);
		MRC_T_ASSERT(strstr(why, bad[i].want) != NULL, "'%s': '%s' lacks '%s'",
			bad[i].listen, why, bad[i].want);
	}
	struct mrcd_http *h = mrcd_http_open("[::1]:0", why, sizeof(why));

	/* a machine without IPv6 refuses by the kernel's word, not ours */
	if (h != NULL) {
		MRC_T_ASSERT(
			strncmp(mrcd_http_where(h), "[::1]:", 6) == 0, "%s", mrcd_http_where(h));
		mrcd_http_close(h);
	} else {
		MRC_T_ASSERT(strstr(why, "[::1]:0") != NULL, "%s", why);
	}
	return MRC_TEST_OK;
}

static const struct mrc_test_case cases[] = {
	MRC_TEST_CASE(test_parse_good),
	MRC_TEST_CASE(test_parse_bad),
	MRC_TEST_CASE(test_parse_limits),
	MRC_TEST_CASE(test_server),
	MRC_TEST_CASE(test_listen_refused),
};

MRC_TEST_MAIN("mrcd_http", cases)
