/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * mrc_write_lat: RDMA WRITE latency over an MRC device, in the manner of
 * perftest's ib_write_lat, written against mrc.h and <infiniband/verbs.h>
 * only. Ping-pong: the client writes a message into the server's buffer
 * and spins on the last byte of its own; the server, spinning on the last
 * byte of its buffer, writes the same size back as soon as it changes.
 * Each iteration's last byte is new (1..255 in turn), so a spin sees this
 * iteration's write, not an older one. A latency is half the round trip,
 * as perftest reports it.
 *
 * With MRC a message's packets may be placed in any order, so the last
 * byte can land before the others: the timing is perftest's, but the bytes
 * are checked only after the last writes completed (completions mean
 * placed), both buffers whole.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* be64toh, getaddrinfo */
#endif
#include <arpa/inet.h>
#include <endian.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf_common.h"

#define USAGE                                                                               \
	"usage: mrc_write_lat [-d DEV] [-p PORT] [-x GID_INDEX] [-s SIZE | -a] [-n ITERS] " \
	"[--json] "                                                                         \
	"[SERVER_HOST]"

#define KEY_CLIENT 1
#define KEY_SERVER 2

struct size_req {
	uint64_t size, iters;
};

struct result {
	uint64_t size, iters, bad;
	double min, p50, p99, max, avg, cpu_s;
};

static void
help(void)
{
	printf("%s\n\n"
	       "RDMA WRITE latency (ping-pong of writes, each side spinning on the last byte\n"
	       "of its buffer) between two processes over MRC devices (on mrcd: two hosts of\n"
	       "the daemons, doc/perftest.md). Start the server first (no SERVER_HOST), then\n"
	       "the client with the server's host name; the client picks sizes and counts.\n\n"
	       "  -d, --ib-dev DEV     device to use (default: the first listed)\n"
	       "  -p, --port PORT      TCP port of the set-up connection (default %d)\n"
	       "  -x, --gid-index N    GID table index of this side's address (default 3)\n"
	       "  -s, --size SIZE      message size, 1 .. 64M, K/M/G suffixes (default 2)\n"
	       "  -a, --all            sweep sizes: every power of 2 from --min-size (1) to -s\n"
	       "                       (64M when -s is not given)\n"
	       "      --step F         sweep factor, a power of 2 (default 2)\n"
	       "      --min-size SIZE  smallest size of a sweep (default 1)\n"
	       "  -n, --iters N        round trips per size (default min(1000, max(2, 16M / "
	       "size)))\n"
	       "  -t, --tx-depth N     send queue depth (default 128)\n"
	       "      --yield          give the CPU up (sched_yield) while spinning: for\n"
	       "                       both sides and mrcd sharing few CPUs\n"
	       "      --json           print the results as one JSON object (client)\n"
	       "  -h, --help           this text\n\n"
	       "Times are one-way, half of each round trip, in microseconds.\n"
	       "Exit: 0 all sizes done and every byte right, 1 a call or completion failed,\n"
	       "2 bad command line, 3 wrong bytes were found.\n",
		USAGE, PERF_DEFAULT_PORT);
}

static uint64_t
default_iters(uint64_t size)
{
	uint64_t n = (16ull << 20) / size;

	return n < 2 ? 2 : n > 1000 ? 1000 : n;
}

static inline uint8_t
mark(uint64_t i)
{
	return (uint8_t)(i % 255 + 1);
}

/* Spin until the last byte of the receive area reads v. */
static void
spin_for(struct perf_ctx *c, uint64_t size, uint8_t v, uint64_t i, bool yield)
{
	const volatile uint8_t *last = c->buf + size - 1;
	double end = 0;
	unsigned spins = 0;

	while (*last != v) {
		if (yield)
			sched_yield(); /* the peer (or mrcd) may be waiting for this CPU */
		if (++spins % (1u << 16) != 0)
			continue;
		if (end == 0) {
			end = perf_now() + 20;
		} else if (perf_now() > end) {
			fprintf(stderr,
				"mrc_write_lat: size %" PRIu64 ": iteration %" PRIu64
				" got no answer in 20 s\n",
				size, i);
			exit(PERF_EXIT_FAIL);
		}
	}
}

/* Take the send completions that came; wait for one when `block`. */
static void
reap(struct perf_ctx *c, uint64_t *pending, bool block)
{
	struct ibv_wc wc[16];
	int n;

	if (*pending == 0)
		return;
	if (block) {
		perf_wait_wc(c, c->scq, false);
		(*pending)--;
		return;
	}
	n = mrc_poll_cq(c->scq, 16, wc);
	for (int i = 0; i < n; i++) {
		if (wc[i].status != IBV_WC_SUCCESS) {
			fprintf(stderr, "mrc_write_lat: a write completed %s\n",
				ibv_wc_status_str(wc[i].status));
			exit(PERF_EXIT_FAIL);
		}
		(*pending)--;
	}
}

/* One size: n round trips. The client times them into lat (seconds, one way). */
static void
ping_pong(struct perf_ctx *c, const struct perf_opts *o, uint64_t size, uint64_t n, double *lat)
{
	const bool client = o->server != NULL;
	const unsigned sig = o->tx_depth < 64 ? o->tx_depth : 64;
	uint8_t *send_area = c->buf + c->buf_len / 2;
	uint64_t pending = 0;

	for (uint64_t i = 0; i < n; i++) {
		const uint8_t v = mark(i);
		const bool s = i + 1 == n || (i + 1) % sig == 0;
		double t0 = 0;

		if (!client)
			spin_for(c, size, v, i, o->yield);
		send_area[size - 1] = v;
		if (client)
			t0 = perf_now();
		while (perf_post_write(c, i, (uint64_t)(uintptr_t)send_area, (uint32_t)size,
			       c->peer.addr, s, false, 0) != 0)
			reap(c, &pending, true);
		pending += s;
		if (client) {
			spin_for(c, size, v, i, o->yield);
			lat[i] = (perf_now() - t0) / 2;
		}
		reap(c, &pending, false);
	}
	while (pending > 0) /* the last write is placed once it completes */
		reap(c, &pending, true);
}

/* After a size: the receive area holds the peer's pattern with the last mark. */
static uint64_t
check_area(struct perf_ctx *c, uint64_t size, uint64_t n, uint64_t key)
{
	uint64_t bad = 0;

	for (uint64_t i = 0; i + 1 < size; i++)
		bad += c->buf[i] != perf_pattern(i, size, key);
	return bad + (c->buf[size - 1] != mark(n - 1));
}

static void
prepare(struct perf_ctx *c, uint64_t size, uint64_t key)
{
	c->buf[size - 1] = 0; /* no mark: a stale byte of another size cannot end a spin */
	perf_fill(c->buf + c->buf_len / 2, size, key);
}

static int
serve(struct perf_ctx *c, const struct perf_opts *o)
{
	for (;;) {
		struct size_req rq;
		uint64_t size, n, bad;
		uint32_t ready = htonl(1);

		perf_recv(c, &rq, sizeof(rq));
		size = be64toh(rq.size);
		n = be64toh(rq.iters);
		if (size == 0)
			break;
		if (size > c->buf_len / 2 || n == 0) {
			fprintf(stderr,
				"mrc_write_lat: the client asks for %" PRIu64 " x %" PRIu64
				" bytes, the buffer holds %" PRIu64 "\n",
				n, size, c->buf_len / 2);
			return PERF_EXIT_FAIL;
		}
		prepare(c, size, KEY_SERVER);
		perf_send(c, &ready, sizeof(ready));
		ping_pong(c, o, size, n, NULL);
		perf_recv(c, &ready, sizeof(ready)); /* the client's last write completed */
		bad = check_area(c, size, n, KEY_CLIENT);
		printf("server: %" PRIu64 " bytes x %" PRIu64 " round trips: %" PRIu64
		       " wrong bytes\n",
			size, n, bad);
		fflush(stdout);
		bad = htobe64(bad);
		perf_send(c, &bad, sizeof(bad));
	}
	return PERF_EXIT_OK;
}

static int
cmp_double(const void *a, const void *b)
{
	const double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static struct result
run_size(struct perf_ctx *c, const struct perf_opts *o, uint64_t size, double *lat)
{
	const uint64_t n = o->iters ? o->iters : default_iters(size);
	struct size_req rq = {htobe64(size), htobe64(n)};
	struct result r = {.size = size, .iters = n};
	uint32_t ready = htonl(1);
	uint64_t bad;
	double sum = 0, cpu0;

	prepare(c, size, KEY_CLIENT);
	perf_send(c, &rq, sizeof(rq));
	perf_recv(c, &ready, sizeof(ready));
	cpu0 = perf_cpu_s();
	ping_pong(c, o, size, n, lat);
	r.cpu_s = perf_cpu_s() - cpu0;
	perf_send(c, &ready, sizeof(ready));
	perf_recv(c, &bad, sizeof(bad)); /* sent after the server's last write completed */
	r.bad = be64toh(bad) + check_area(c, size, n, KEY_SERVER);
	for (uint64_t i = 0; i < n; i++)
		sum += lat[i];
	qsort(lat, n, sizeof(*lat), cmp_double);
	r.min = lat[0] * 1e6;
	r.max = lat[n - 1] * 1e6;
	r.p50 = lat[n / 2] * 1e6;
	r.p99 = lat[n * 99 / 100 < n ? n * 99 / 100 : n - 1] * 1e6;
	r.avg = sum / (double)n * 1e6;
	return r;
}

int
main(int argc, char **argv)
{
	struct perf_opts o = {.tool = "mrc_write_lat",
		.port = PERF_DEFAULT_PORT,
		.gid_index = 3,
		.min_size = 1,
		.step = 2,
		.tx_depth = 128};
	struct perf_ctx c;
	struct result *res;
	size_t nres = 0, cap = 64;
	uint64_t bad = 0, most = 0;
	double *lat;

	if (perf_parse(&o, argc, argv, USAGE) != 0) {
		help();
		return PERF_EXIT_OK;
	}
	if (o.duration > 0) {
		fprintf(stderr, "mrc_write_lat: -D: give a count of round trips (-n) instead\n%s\n",
			USAGE);
		return PERF_EXIT_USAGE;
	}
	if (o.size == 0)
		o.size = 2;
	/* [0, size): what the peer writes; [size, 2 size): what this side sends from */
	perf_setup(&c, &o, 2 * o.size);
	if (o.server == NULL) {
		int rc = serve(&c, &o);

		perf_teardown(&c);
		return rc;
	}
	if (c.peer.len / 2 < o.size) {
		fprintf(stderr, "mrc_write_lat: the server's buffer is %" PRIu64 " bytes\n",
			c.peer.len);
		return PERF_EXIT_FAIL;
	}
	for (uint64_t s = o.all ? o.min_size : o.size; s != 0; s = perf_next_size(&o, s)) {
		const uint64_t n = o.iters ? o.iters : default_iters(s);

		most = n > most ? n : most;
	}
	lat = calloc(most, sizeof(*lat));
	res = calloc(cap, sizeof(*res));
	if (lat == NULL || res == NULL) {
		fprintf(stderr, "mrc_write_lat: no memory for %" PRIu64 " samples\n", most);
		return PERF_EXIT_FAIL;
	}
	if (!o.json) {
		perf_banner("RDMA WRITE latency over MRC, device %s, GID index %d (one way, usec)",
			ibv_get_device_name(c.dev->device), o.gid_index);
		printf(" %-10s %-12s %-10s %-10s %-10s %-10s %-10s %s\n", "#bytes", "#iterations",
			"t_min", "t_p50", "t_p99", "t_max", "t_avg", "wrong bytes");
	}
	for (uint64_t s = o.all ? o.min_size : o.size; s != 0; s = perf_next_size(&o, s)) {
		struct result r = run_size(&c, &o, s, lat);

		if (nres == cap)
			res = realloc(res, (cap *= 2) * sizeof(*res));
		res[nres++] = r;
		bad += r.bad;
		if (!o.json) {
			printf(" %-10" PRIu64 " %-12" PRIu64
			       " %-10.2f %-10.2f %-10.2f %-10.2f %-10.2f %" PRIu64 "\n",
				r.size, r.iters, r.min, r.p50, r.p99, r.max, r.avg, r.bad);
			fflush(stdout);
		}
	}
	{
		struct size_req done = {0, 0};

		perf_send(&c, &done, sizeof(done));
	}
	if (o.json) {
		printf("{\"tool\": \"mrc_write_lat\", \"device\": \"%s\", \"results\": [",
			ibv_get_device_name(c.dev->device));
		for (size_t i = 0; i < nres; i++)
			printf("%s{\"bytes\": %" PRIu64 ", \"iterations\": %" PRIu64
			       ", \"t_min_us\": %.3f, \"t_p50_us\": %.3f, \"t_p99_us\": %.3f, "
			       "\"t_max_us\": %.3f, \"t_avg_us\": %.3f, \"cpu_s\": %.6f, "
			       "\"wrong_bytes\": %" PRIu64 "}",
				i ? ", " : "", res[i].size, res[i].iters, res[i].min, res[i].p50,
				res[i].p99, res[i].max, res[i].avg, res[i].cpu_s, res[i].bad);
		printf("]}\n");
	}
	free(lat);
	free(res);
	perf_teardown(&c);
	if (bad != 0) {
		fprintf(stderr, "mrc_write_lat: %" PRIu64 " wrong bytes\n", bad);
		return PERF_EXIT_DATA;
	}
	return PERF_EXIT_OK;
}
