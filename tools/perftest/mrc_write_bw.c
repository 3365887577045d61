/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * mrc_write_bw: RDMA WRITE bandwidth over an MRC device, in the manner of
 * perftest's ib_write_bw, written against mrc.h and <infiniband/verbs.h>
 * only. The client writes bursts into the server's buffer (at most -t in
 * flight, every 64th signalled), the last write of each size a
 * WRITE_WITH_IMM that the server takes on a posted receive; the server
 * then checks every byte it was sent and says how many were wrong.
 *
 * Where the bytes go: each size cycles through the slots of a --buf byte
 * area (at least one slot of the size), iteration i using slot i mod
 * slots on both sides. Slot k is filled with the pattern of (size, k)
 * before the timed loop, so iterations that have slots of their own (all
 * of them when iterations * size <= --buf) carry bytes of their own, and
 * the server's check of each slot catches a write placed at the wrong
 * offset, of the wrong size or left from another size.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* be64toh, getaddrinfo */
#endif
#include <arpa/inet.h>
#include <endian.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perf_common.h"

#define USAGE                                                                                  \
	"usage: mrc_write_bw [-d DEV] [-p PORT] [-x GID_INDEX] [-s SIZE | -a] [-n ITERS | -D " \
	"SEC] "                                                                                \
	"[-t DEPTH] [--json] [SERVER_HOST]"

#define PEAK_WINDOW   4		     /* signalled completions the peak rate is taken over */
#define MAX_IN_FLIGHT (256ull << 20) /* bytes of writes in flight at most */

struct size_req {
	uint64_t size, slots;
};

struct size_rep {
	uint64_t bad, checked, iters;
	double server_cpu_s;
};

struct result {
	uint64_t size, iters, bad;
	double secs, peak_gbps, avg_gbps, mpps, cpu_s;
};

static void
help(void)
{
	printf("%s\n\n"
	       "RDMA WRITE bandwidth between two processes over MRC devices (on mrcd: two\n"
	       "hosts of the daemons, doc/perftest.md). Start the server first (no SERVER_HOST),\n"
	       "then the client with the server's host name; the client picks sizes and counts.\n\n"
	       "  -d, --ib-dev DEV     device to use (default: the first listed)\n"
	       "  -p, --port PORT      TCP port of the set-up connection (default %d)\n"
	       "  -x, --gid-index N    GID table index of this side's address (default 3)\n"
	       "  -s, --size SIZE      message size, 1 .. 64M, K/M/G suffixes (default 65536)\n"
	       "  -a, --all            sweep sizes: every power of 2 from --min-size (1) to -s\n"
	       "                       (64M when -s is not given)\n"
	       "      --step F         sweep factor, a power of 2 (default 2; 4 = powers of 4)\n"
	       "      --min-size SIZE  smallest size of a sweep (default 1)\n"
	       "  -n, --iters N        writes per size (default min(1000, max(2, 64M / size)))\n"
	       "  -D, --duration SEC   write for SEC seconds per size instead of -n\n"
	       "  -t, --tx-depth N     writes in flight at most (default 128, and never more\n"
	       "                       than 256M bytes); every 64th is signalled (every\n"
	       "                       depth-th when the depth is below 64)\n"
	       "      --buf SIZE       bytes of slots a size cycles through (default 1M)\n"
	       "  -e, --events         wait for completions on a completion channel\n"
	       "      --json           print the results as one JSON object (client)\n"
	       "  -h, --help           this text\n\n"
	       "Exit: 0 all sizes done and every byte right, 1 a call or completion failed,\n"
	       "2 bad command line, 3 the server found wrong bytes.\n",
		USAGE, PERF_DEFAULT_PORT);
}

static uint64_t
default_iters(uint64_t size)
{
	uint64_t n = PERF_MAX_SIZE / size;

	return n < 2 ? 2 : n > 1000 ? 1000 : n;
}

static uint64_t
slots_of(const struct perf_opts *o, uint64_t size)
{
	return o->buf / size > 0 ? o->buf / size : 1;
}

/* Writes in flight for a size: -t, fewer when they would hold more than MAX_IN_FLIGHT
 * bytes (a duration's end then comes soon after it is seen, even on a slow link). */
static uint64_t
depth_of(const struct perf_opts *o, uint64_t size)
{
	const uint64_t d = MAX_IN_FLIGHT / size;

	return d < 1 ? 1 : d < o->tx_depth ? d : o->tx_depth;
}

/* The server: for each size the client announces, a receive for its last write, then
 * the check of every slot it wrote. */
static int
serve(struct perf_ctx *c)
{
	for (;;) {
		struct ibv_recv_wr rw = {.wr_id = 1}, *bad_r;
		struct size_req rq;
		struct size_rep rp = {0};
		struct ibv_wc wc;
		uint64_t size, slots, used;
		uint32_t ready = htonl(1);
		double cpu0;

		perf_recv(c, &rq, sizeof(rq));
		size = be64toh(rq.size);
		slots = be64toh(rq.slots);
		if (size == 0)
			break;
		if (size > PERF_MAX_SIZE || slots == 0 || slots * size > c->buf_len) {
			fprintf(stderr,
				"mrc_write_bw: the client asks for %" PRIu64 " slots of %" PRIu64
				" bytes, the buffer holds %" PRIu64 "\n",
				slots, size, c->buf_len);
			return PERF_EXIT_FAIL;
		}
		cpu0 = perf_cpu_s();
		if (mrc_post_recv(c->qp, &rw, &bad_r) != 0) {
			perror("mrc_write_bw: mrc_post_recv");
			return PERF_EXIT_FAIL;
		}
		perf_send(c, &ready, sizeof(ready));
		/* Sleep on the channel: a spinning server would take the CPU it measures. */
		wc = perf_wait_wc(c, c->rcq, true);
		if (wc.opcode != IBV_WC_RECV_RDMA_WITH_IMM || wc.byte_len != size) {
			fprintf(stderr,
				"mrc_write_bw: size %" PRIu64 ": the receive completed opcode %d, "
				"%u bytes\n",
				size, wc.opcode, wc.byte_len);
			return PERF_EXIT_FAIL;
		}
		rp.iters = ntohl(wc.imm_data);
		used = rp.iters < slots ? rp.iters : slots;
		for (uint64_t k = 0; k < used; k++)
			rp.bad += perf_check(c->buf + k * size, size, k);
		rp.checked = used * size;
		rp.server_cpu_s = perf_cpu_s() - cpu0;
		printf("server: %" PRIu64 " bytes x %" PRIu64 " writes: %" PRIu64
		       " bytes checked, %" PRIu64 " wrong\n",
			size, rp.iters, rp.checked, rp.bad);
		fflush(stdout);
		rp.bad = htobe64(rp.bad);
		rp.checked = htobe64(rp.checked);
		rp.iters = htobe64(rp.iters);
		perf_send(c, &rp, sizeof(rp));
	}
	return PERF_EXIT_OK;
}

/* One size, timed from the first post to the last completion. */
static struct result
run_size(struct perf_ctx *c, const struct perf_opts *o, uint64_t size)
{
	const uint64_t slots = slots_of(o, size);
	const uint64_t depth = depth_of(o, size);
	const uint64_t sig = depth < 64 ? depth : 64;
	uint64_t n = o->duration > 0 ? UINT64_MAX : o->iters ? o->iters : default_iters(size);
	uint64_t posted = 0, completed = 0;
	double win_t[PEAK_WINDOW + 1];
	uint64_t win_c[PEAK_WINDOW + 1];
	unsigned nwin = 0;
	struct size_req rq = {htobe64(size), htobe64(slots)};
	struct size_rep rp;
	struct result r = {.size = size};
	double t0, t1, cpu0, last_progress;
	uint32_t ready;

	for (uint64_t k = 0; k < slots; k++)
		perf_fill(c->buf + k * size, size, k);
	perf_send(c, &rq, sizeof(rq));
	perf_recv(c, &ready, sizeof(ready));
	cpu0 = perf_cpu_s();
	t0 = perf_now();
	last_progress = t0;
	win_t[0] = t0, win_c[0] = 0, nwin = 1;
	while (completed < n) {
		struct ibv_wc wc[16];
		int got;

		while (posted < n && posted - completed < depth) {
			const uint64_t off = (posted % slots) * size;
			bool last, s;

			if (o->duration > 0 && perf_now() - t0 >= o->duration)
				n = posted + 1; /* time is up: this one ends the size */
			last = posted + 1 == n;
			s = last || (posted + 1) % sig == 0;
			if (perf_post_write(c, posted, (uint64_t)(uintptr_t)(c->buf + off),
				    (uint32_t)size, c->peer.addr + off, s, last,
				    (uint32_t)(last ? n : 0)) != 0)
				break; /* the send ring is full: take completions */
			posted++;
		}
		got = mrc_poll_cq(c->scq, 16, wc);
		if (got < 0) {
			perror("mrc_write_bw: mrc_poll_cq");
			exit(PERF_EXIT_FAIL);
		}
		if (got == 0 && o->use_event && posted - completed >= depth) {
			wc[0] = perf_wait_wc(c, c->scq, true);
			got = 1;
		}
		for (int i = 0; i < got; i++) {
			const double t = perf_now();

			if (wc[i].status != IBV_WC_SUCCESS) {
				fprintf(stderr,
					"mrc_write_bw: size %" PRIu64 ": write %" PRIu64
					" completed %s\n",
					size, wc[i].wr_id, ibv_wc_status_str(wc[i].status));
				exit(PERF_EXIT_FAIL);
			}
			completed = wc[i].wr_id + 1;
			last_progress = t;
			if (nwin == PEAK_WINDOW + 1) {
				memmove(win_t, win_t + 1, sizeof(win_t[0]) * PEAK_WINDOW);
				memmove(win_c, win_c + 1, sizeof(win_c[0]) * PEAK_WINDOW);
				nwin--;
			}
			win_t[nwin] = t, win_c[nwin] = completed, nwin++;
			if (nwin == PEAK_WINDOW + 1 && t > win_t[0]) {
				const double g = (double)(completed - win_c[0]) * (double)size * 8 /
						 (t - win_t[0]) / 1e9;

				if (g > r.peak_gbps)
					r.peak_gbps = g;
			}
		}
		if (got == 0 && perf_now() - last_progress > 60) {
			fprintf(stderr,
				"mrc_write_bw: size %" PRIu64 ": no completion in 60 s (%" PRIu64
				" posted, %" PRIu64 " done)\n",
				size, posted, completed);
			exit(PERF_EXIT_FAIL);
		}
	}
	t1 = perf_now();
	r.cpu_s = perf_cpu_s() - cpu0;
	r.iters = n;
	r.secs = t1 - t0;
	r.avg_gbps = (double)n * (double)size * 8 / r.secs / 1e9;
	r.mpps = (double)n / r.secs / 1e6;
	if (r.peak_gbps < r.avg_gbps)
		r.peak_gbps = r.avg_gbps; /* too few completions for a window */
	perf_recv(c, &rp, sizeof(rp));
	r.bad = be64toh(rp.bad);
	if (be64toh(rp.iters) != n) {
		fprintf(stderr,
			"mrc_write_bw: the server counted %" PRIu64 " writes, not %" PRIu64 "\n",
			(uint64_t)be64toh(rp.iters), n);
		exit(PERF_EXIT_FAIL);
	}
	return r;
}

int
main(int argc, char **argv)
{
	struct perf_opts o = {.tool = "mrc_write_bw",
		.port = PERF_DEFAULT_PORT,
		.gid_index = 3,
		.min_size = 1,
		.step = 2,
		.tx_depth = 128,
		.buf = 1u << 20};
	struct perf_ctx c;
	struct result *res;
	size_t nres = 0, cap = 64;
	uint64_t bad = 0;

	if (perf_parse(&o, argc, argv, USAGE) != 0) {
		help();
		return PERF_EXIT_OK;
	}
	if (o.size == 0)
		o.size = o.all ? PERF_MAX_SIZE : 65536;
	if (o.buf < o.size)
		o.buf = o.size; /* one slot of the largest size at least */
	perf_setup(&c, &o, o.buf);
	if (o.server == NULL) {
		int rc = serve(&c);

		perf_teardown(&c);
		return rc;
	}
	res = calloc(cap, sizeof(*res));
	if (!o.json) {
		perf_banner("RDMA WRITE bandwidth over MRC, device %s, GID index %d, TX depth %u",
			ibv_get_device_name(c.dev->device), o.gid_index, o.tx_depth);
		printf(" %-10s %-12s %-16s %-16s %-12s %s\n", "#bytes", "#iterations",
			"BW peak[Gb/s]", "BW average[Gb/s]", "MsgRate[Mpps]", "wrong bytes");
	}
	for (uint64_t s = o.all ? o.min_size : o.size; s != 0; s = perf_next_size(&o, s)) {
		struct result r = run_size(&c, &o, s);

		if (nres == cap)
			res = realloc(res, (cap *= 2) * sizeof(*res));
		res[nres++] = r;
		bad += r.bad;
		if (!o.json) {
			printf(" %-10" PRIu64 " %-12" PRIu64 " %-16.3f %-16.3f %-12.4f %" PRIu64
			       "\n",
				r.size, r.iters, r.peak_gbps, r.avg_gbps, r.mpps, r.bad);
			fflush(stdout);
		}
	}
	{
		struct size_req done = {0, 0};

		perf_send(&c, &done, sizeof(done));
	}
	if (o.json) {
		printf("{\"tool\": \"mrc_write_bw\", \"device\": \"%s\", \"tx_depth\": %u, "
		       "\"results\": [",
			ibv_get_device_name(c.dev->device), o.tx_depth);
		for (size_t i = 0; i < nres; i++)
			printf("%s{\"bytes\": %" PRIu64 ", \"iterations\": %" PRIu64
			       ", \"seconds\": %.6f, \"bw_peak_gbps\": %.4f, \"bw_avg_gbps\": "
			       "%.4f, \"msg_rate_mpps\": %.6f, \"cpu_s\": %.6f, \"wrong_bytes\": "
			       "%" PRIu64 "}",
				i ? ", " : "", res[i].size, res[i].iters, res[i].secs,
				res[i].peak_gbps, res[i].avg_gbps, res[i].mpps, res[i].cpu_s,
				res[i].bad);
		printf("]}\n");
	}
	free(res);
	perf_teardown(&c);
	if (bad != 0) {
		fprintf(stderr, "mrc_write_bw: the server found %" PRIu64 " wrong bytes\n", bad);
		return PERF_EXIT_DATA;
	}
	return PERF_EXIT_OK;
}
