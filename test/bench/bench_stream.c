/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * bench_stream: the Linux MPTCP reference of scripts/bench/bench-veth-*.sh. A
 * plain TCP sender and receiver of fixed-size messages; run under
 * `mptcpize run` at both ends, the kernel makes their sockets MPTCP. The
 * receiver checks every byte (each 8-byte word carries its own index in
 * the stream) and stamps each completed message with CLOCK_MONOTONIC, the
 * clock the benchmark script stamps its faults with, so both stacks'
 * receiver stalls are measured the same way.
 *
 *   bench_stream recv --port P --out FILE [--msg-bytes B] [--timeout S]
 *       accepts one connection, reads to EOF, writes FILE: a header line,
 *       then one completion time (ns) per message; prints one JSON line
 *   bench_stream send --addr A --port P [--msg-bytes B] [--seconds S] [--cc NAME]
 *       writes messages for S seconds, then closes; prints one JSON line;
 *       --cc sets the TCP congestion control (under MPTCP, of every subflow)
 */

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define MAX_MSGS (1u << 21)

static uint64_t
mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static const char *
proto_name(int fd)
{
	int proto = 0;
	socklen_t len = sizeof(proto);

	if (getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &proto, &len) != 0)
		return "?";
	return proto == IPPROTO_TCP ? "tcp" : proto == 262 /* IPPROTO_MPTCP */ ? "mptcp" : "other";
}

static int
do_recv(int port, const char *out, size_t msg, int timeout_s)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	struct timeval tv = {.tv_sec = timeout_s};
	uint64_t *t = calloc(MAX_MSGS, sizeof(*t));
	uint8_t *buf = malloc(1 << 20);
	uint64_t bytes = 0, words_bad = 0, n = 0, word_idx = 0;
	uint8_t partial[8];
	unsigned int npartial = 0;
	const char *proto;
	int one = 1, ls, fd;

	if (t == NULL || buf == NULL)
		return 1;
	ls = socket(AF_INET, SOCK_STREAM, 0);
	if (ls < 0 || setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
		bind(ls, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(ls, 1) != 0) {
		fprintf(stderr, "bench_stream: listen on %d: %s\n", port, strerror(errno));
		return 1;
	}
	/* The script waits for this line before it starts the sender. */
	printf("listening\n");
	fflush(stdout);
	setsockopt(ls, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	fd = accept(ls, NULL, NULL);
	if (fd < 0) {
		fprintf(stderr, "bench_stream: accept: %s\n", strerror(errno));
		return 1;
	}
	proto = proto_name(fd);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	for (;;) {
		ssize_t r = read(fd, buf, 1 << 20);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		const uint64_t now = mono_ns();

		/* Every 8-byte word of the stream holds its own index. */
		for (ssize_t i = 0; i < r; i++) {
			partial[npartial++] = buf[i];
			if (npartial == 8) {
				uint64_t w;

				memcpy(&w, partial, 8);
				words_bad += w != word_idx++;
				npartial = 0;
			}
		}
		const uint64_t done = (bytes + (uint64_t)r) / msg - bytes / msg;

		for (uint64_t k = 0; k < done && n < MAX_MSGS; k++)
			t[n++] = now;
		bytes += (uint64_t)r;
	}
	close(fd);
	close(ls);
	FILE *f = fopen(out, "w");

	if (f == NULL) {
		fprintf(stderr, "bench_stream: %s: %s\n", out, strerror(errno));
		return 1;
	}
	fprintf(f, "# msg_bytes %zu proto %s\n", msg, proto);
	for (uint64_t k = 0; k < n; k++)
		fprintf(f, "%llu\n", (unsigned long long)t[k]);
	fclose(f);
	printf("{\"proto\": \"%s\", \"bytes\": %llu, \"msgs\": %llu, \"bad_words\": %llu}\n", proto,
		(unsigned long long)bytes, (unsigned long long)n, (unsigned long long)words_bad);
	free(t);
	free(buf);
	return words_bad != 0;
}

static int
do_send(const char *addr, int port, size_t msg, double seconds, const char *cc)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	uint64_t *buf = malloc(msg), word = 0, msgs = 0;
	const char *proto;
	int fd;

	if (buf == NULL || inet_pton(AF_INET, addr, &a.sin_addr) != 1) {
		fprintf(stderr, "bench_stream: bad address '%s'\n", addr);
		return 1;
	}
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd >= 0 && cc != NULL &&
		setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, cc, (socklen_t)strlen(cc)) != 0) {
		fprintf(stderr, "bench_stream: congestion control '%s': %s\n", cc, strerror(errno));
		return 1;
	}
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
		fprintf(stderr, "bench_stream: connect %s:%d: %s\n", addr, port, strerror(errno));
		return 1;
	}
	proto = proto_name(fd);
	const uint64_t end = mono_ns() + (uint64_t)(seconds * 1e9);

	while (mono_ns() < end) {
		for (size_t i = 0; i < msg / 8; i++)
			buf[i] = word++;
		for (size_t off = 0; off < msg;) {
			ssize_t w = write(fd, (uint8_t *)buf + off, msg - off);

			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				fprintf(stderr, "bench_stream: write: %s\n", strerror(errno));
				return 1;
			}
			off += (size_t)w;
		}
		msgs++;
	}
	shutdown(fd, SHUT_WR);
	/* Wait for the receiver's close, so every byte is in before we report. */
	char c;

	while (read(fd, &c, 1) > 0)
		;
	close(fd);
	printf("{\"proto\": \"%s\", \"msgs\": %llu}\n", proto, (unsigned long long)msgs);
	free(buf);
	return 0;
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {{"port", required_argument, NULL, 'p'},
		{"out", required_argument, NULL, 'o'}, {"addr", required_argument, NULL, 'a'},
		{"msg-bytes", required_argument, NULL, 'm'},
		{"seconds", required_argument, NULL, 's'},
		{"timeout", required_argument, NULL, 't'}, {"cc", required_argument, NULL, 'c'},
		{NULL, 0, NULL, 0}};
	const char *out = NULL, *addr = NULL, *cc = NULL;
	size_t msg = 65536;
	double seconds = 3;
	int port = 5201, timeout_s = 30, c;

	if (argc < 2) {
		fprintf(stderr, "usage: bench_stream recv|send [options] (see the source)\n");
		return 2;
	}
	while ((c = getopt_long(argc - 1, argv + 1, "", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			port = atoi(optarg);
			break;
		case 'o':
			out = optarg;
			break;
		case 'a':
			addr = optarg;
			break;
		case 'm':
			msg = strtoul(optarg, NULL, 0);
			break;
		case 's':
			seconds = atof(optarg);
			break;
		case 't':
			timeout_s = atoi(optarg);
			break;
		case 'c':
			cc = optarg;
			break;
		default:
			return 2;
		}
	}
	if (msg < 8 || msg % 8 != 0 || port <= 0 || port > 65535) {
		fprintf(stderr, "bench_stream: --msg-bytes a multiple of 8, --port 1..65535\n");
		return 2;
	}
	if (strcmp(argv[1], "recv") == 0 && out != NULL)
		return do_recv(port, out, msg, timeout_s);
	if (strcmp(argv[1], "send") == 0 && addr != NULL)
		return do_send(addr, port, msg, seconds, cc);
	fprintf(stderr, "bench_stream: recv needs --out, send needs --addr\n");
	return 2;
}
