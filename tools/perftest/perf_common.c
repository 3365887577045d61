/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * The parts of mrc_write_bw and mrc_write_lat that are the same: an MRC
 * program's set-up as the OCP API's users write it (verbs for the device,
 * PD and memory; mrc_* for the context, CQs and QP; an ordinary TCP
 * connection for the peer's QPN, rkey, address, GID and PSN).
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* be64toh, getaddrinfo */
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "perf_common.h"

#define PERF_MAGIC 0x4d524350u /* "MRCP" */

static const char *tool = "mrc_perf";

static _Noreturn void
fail_errno(const char *what, int err)
{
	fprintf(stderr, "%s: %s: %s\n", tool, what, strerror(err));
	exit(PERF_EXIT_FAIL);
}

static _Noreturn void usage_error(const char *usage, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static _Noreturn void
usage_error(const char *usage, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", tool);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n%s (--help for more)\n", usage);
	exit(PERF_EXIT_USAGE);
}

/* A size: digits with an optional K, M or G (binary multiples). */
static bool
parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0)
		return false;
	switch (*end) {
	case 'k':
	case 'K':
		v <<= 10, end++;
		break;
	case 'm':
	case 'M':
		v <<= 20, end++;
		break;
	case 'g':
	case 'G':
		v <<= 30, end++;
		break;
	default:
		break;
	}
	if (*end == 'B' || *end == 'b')
		end++;
	*out = v;
	return *end == '\0';
}

static bool
parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < min || v > max)
		return false;
	*out = v;
	return true;
}

int
perf_parse(struct perf_opts *o, int argc, char **argv, const char *usage)
{
	enum { OPT_JSON = 256, OPT_STEP, OPT_MIN, OPT_BUF, OPT_YIELD };
	static const struct option longs[] = {
		{"ib-dev", required_argument, NULL, 'd'},
		{"port", required_argument, NULL, 'p'},
		{"gid-index", required_argument, NULL, 'x'},
		{"size", required_argument, NULL, 's'},
		{"all", no_argument, NULL, 'a'},
		{"iters", required_argument, NULL, 'n'},
		{"duration", required_argument, NULL, 'D'},
		{"tx-depth", required_argument, NULL, 't'},
		{"events", no_argument, NULL, 'e'},
		{"json", no_argument, NULL, OPT_JSON},
		{"step", required_argument, NULL, OPT_STEP},
		{"min-size", required_argument, NULL, OPT_MIN},
		{"buf", required_argument, NULL, OPT_BUF},
		{"yield", no_argument, NULL, OPT_YIELD},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	uint64_t v;
	int c;

	tool = o->tool;
	while ((c = getopt_long(argc, argv, "d:p:x:s:an:D:t:eh", longs, NULL)) != -1) {
		switch (c) {
		case 'd':
			o->dev_name = optarg;
			break;
		case 'p':
			if (!parse_uint(optarg, 1, 65535, &v))
				usage_error(usage, "-p '%s': not a TCP port (1..65535)", optarg);
			o->port = (int)v;
			break;
		case 'x':
			if (!parse_uint(optarg, 0, 255, &v))
				usage_error(usage, "-x '%s': not a GID index (0..255)", optarg);
			o->gid_index = (int)v;
			break;
		case 's':
			if (!parse_size(optarg, &v) || v == 0 || v > PERF_MAX_SIZE)
				usage_error(usage, "-s '%s': not a size from 1 to 64M", optarg);
			o->size = v;
			break;
		case 'a':
			o->all = true;
			break;
		case 'n':
			if (!parse_uint(optarg, 1, UINT32_MAX, &v))
				usage_error(usage, "-n '%s': not an iteration count (1..2^32-1)",
					optarg);
			o->iters = v;
			break;
		case 'D': {
			char *end;

			o->duration = strtod(optarg, &end);
			if (*end != '\0' || !(o->duration > 0 && o->duration <= 3600))
				usage_error(usage, "-D '%s': not a duration in seconds (0..3600]",
					optarg);
			break;
		}
		case 't':
			if (!parse_uint(optarg, 1, 8192, &v))
				usage_error(usage, "-t '%s': not a TX depth (1..8192)", optarg);
			o->tx_depth = (unsigned)v;
			break;
		case 'e':
			o->use_event = true;
			break;
		case OPT_JSON:
			o->json = true;
			break;
		case OPT_YIELD:
			o->yield = true;
			break;
		case OPT_STEP:
			if (!parse_uint(optarg, 2, 1024, &v) || (v & (v - 1)) != 0)
				usage_error(usage, "--step '%s': not a power of 2 from 2 to 1024",
					optarg);
			o->step = (unsigned)v;
			break;
		case OPT_MIN:
			if (!parse_size(optarg, &v) || v == 0 || v > PERF_MAX_SIZE)
				usage_error(
					usage, "--min-size '%s': not a size from 1 to 64M", optarg);
			o->min_size = v;
			break;
		case OPT_BUF:
			if (!parse_size(optarg, &v) || v == 0 || v > PERF_MAX_SIZE)
				usage_error(usage, "--buf '%s': not a size from 1 to 64M", optarg);
			o->buf = v;
			break;
		case 'h':
			return 1;
		default:
			usage_error(usage, "%s", "unknown option");
		}
	}
	if (optind < argc)
		o->server = argv[optind++];
	if (optind < argc)
		usage_error(usage, "'%s': one server host at most", argv[optind]);
	if (o->all) {
		o->size = o->size != 0 ? o->size : PERF_MAX_SIZE;
		if (o->min_size > o->size)
			usage_error(usage, "--min-size is above the sweep's top (-s)%s", "");
	}
	if (o->duration > 0 && o->iters != 0)
		usage_error(usage, "-n and -D: give one of them%s", "");
	return 0;
}

uint64_t
perf_next_size(const struct perf_opts *o, uint64_t s)
{
	if (!o->all || s >= o->size)
		return 0;
	s *= o->step;
	return s > o->size ? 0 : s;
}

double
perf_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

double
perf_cpu_s(void)
{
	struct rusage r;

	getrusage(RUSAGE_SELF, &r);
	return (double)r.ru_utime.tv_sec + (double)r.ru_utime.tv_usec * 1e-6 +
	       (double)r.ru_stime.tv_sec + (double)r.ru_stime.tv_usec * 1e-6;
}

void
perf_fill(uint8_t *p, uint64_t size, uint64_t key)
{
	for (uint64_t i = 0; i < size; i++)
		p[i] = perf_pattern(i, size, key);
}

uint64_t
perf_check(const uint8_t *p, uint64_t size, uint64_t key)
{
	uint64_t bad = 0;

	for (uint64_t i = 0; i < size; i++)
		bad += p[i] != perf_pattern(i, size, key);
	return bad;
}

void
perf_send(struct perf_ctx *c, const void *m, size_t n)
{
	const uint8_t *p = m;

	while (n > 0) {
		ssize_t k = send(c->tcp, p, n, MSG_NOSIGNAL);

		if (k <= 0)
			fail_errno("send to the peer over TCP", k < 0 ? errno : EPIPE);
		p += k, n -= (size_t)k;
	}
}

void
perf_recv(struct perf_ctx *c, void *m, size_t n)
{
	uint8_t *p = m;

	while (n > 0) {
		ssize_t k = recv(c->tcp, p, n, 0);

		if (k <= 0) {
			fprintf(stderr, "%s: the peer closed the TCP connection%s%s\n", tool,
				k < 0 ? ": " : "", k < 0 ? strerror(errno) : "");
			exit(PERF_EXIT_FAIL);
		}
		p += k, n -= (size_t)k;
	}
}

void
perf_banner(const char *fmt, ...)
{
	static const char rule[] = "----------------------------------------"
				   "----------------------------------------";
	va_list ap;

	puts(rule);
	putchar(' ');
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	puts(rule);
}

/* The server listens on any address; the client retries for 10 s (the server may be late). */
static int
tcp_connect(const struct perf_opts *o)
{
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res, *ai;
	char port[8];
	int fd = -1, one = 1, rc;

	snprintf(port, sizeof(port), "%d", o->port);
	if (o->server == NULL) {
		hints.ai_family = AF_INET6;
		hints.ai_flags = AI_PASSIVE;
		if ((rc = getaddrinfo(NULL, port, &hints, &res)) != 0) {
			hints.ai_family = AF_INET;
			rc = getaddrinfo(NULL, port, &hints, &res);
		}
	} else {
		hints.ai_family = AF_UNSPEC;
		rc = getaddrinfo(o->server, port, &hints, &res);
	}
	if (rc != 0) {
		fprintf(stderr, "%s: server host '%s': %s\n", tool, o->server ? o->server : "*",
			gai_strerror(rc));
		exit(PERF_EXIT_USAGE);
	}
	if (o->server == NULL) {
		int l = socket(res->ai_family, SOCK_STREAM, 0), zero = 0;

		if (l < 0)
			fail_errno("socket", errno);
		setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (res->ai_family == AF_INET6)
			setsockopt(l, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
		if (bind(l, res->ai_addr, res->ai_addrlen) != 0 || listen(l, 1) != 0) {
			fprintf(stderr, "%s: listen on TCP port %d: %s\n", tool, o->port,
				strerror(errno));
			exit(PERF_EXIT_FAIL);
		}
		fd = accept(l, NULL, NULL);
		if (fd < 0)
			fail_errno("accept", errno);
		close(l);
	} else {
		const double end = perf_now() + 10;

		for (;;) {
			for (ai = res; ai != NULL; ai = ai->ai_next) {
				fd = socket(ai->ai_family, SOCK_STREAM, 0);
				if (fd >= 0 && connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
					break;
				if (fd >= 0)
					close(fd);
				fd = -1;
			}
			if (fd >= 0)
				break;
			if (perf_now() > end) {
				fprintf(stderr, "%s: connect to %s port %d: %s\n", tool, o->server,
					o->port, strerror(errno));
				exit(PERF_EXIT_FAIL);
			}
			usleep(50000);
		}
	}
	freeaddrinfo(res);
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

static struct ibv_context *
open_device(const struct perf_opts *o)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	int n = 0;

	list = ibv_get_device_list(&n);
	if (list == NULL || n == 0) {
		fprintf(stderr,
			"%s: no RDMA device found (on mrcd, start the program under mrc-run: "
			"doc/sdk.md)\n",
			tool);
		exit(PERF_EXIT_FAIL);
	}
	for (int i = 0; i < n; i++) {
		if (o->dev_name != NULL && strcmp(ibv_get_device_name(list[i]), o->dev_name) != 0)
			continue;
		ctx = ibv_open_device(list[i]);
		if (ctx == NULL)
			fail_errno(ibv_get_device_name(list[i]), errno);
		break;
	}
	if (ctx == NULL) {
		fprintf(stderr, "%s: -d '%s': no such device; there are:", tool, o->dev_name);
		for (int i = 0; i < n; i++)
			fprintf(stderr, " %s", ibv_get_device_name(list[i]));
		fprintf(stderr, "\n");
		exit(PERF_EXIT_USAGE);
	}
	ibv_free_device_list(list);
	return ctx;
}

/*
 * The exchange message between host and network order, either way: a byte
 * swap is its own inverse, so one function serves sending and receiving.
 */
static void
peer_swap_order(struct perf_peer *out, const struct perf_peer *in)
{
	*out = *in;
	out->magic = ntohl(in->magic);
	out->qpn = ntohl(in->qpn);
	out->psn = ntohl(in->psn);
	out->rkey = ntohl(in->rkey);
	out->addr = be64toh(in->addr);
	out->len = be64toh(in->len);
}

static void
modify(struct perf_ctx *c, struct ibv_qp_attr *a, int mask, const char *what)
{
	if (mrc_modify_qp(c->qp, a, mask, NULL, 0) != 0)
		fail_errno(what, errno);
}

/* RESET -> INIT -> RTR -> RTS with the attributes common RC programs pass. */
static void
connect_qp(struct perf_ctx *c, const struct perf_opts *o)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
	modify(c, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS,
		"mrc_modify_qp to INIT");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = c->mtu;
	a.dest_qp_num = c->peer.qpn;
	a.rq_psn = c->peer.psn;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.hop_limit = 1;
	a.ah_attr.grh.sgid_index = (uint8_t)o->gid_index;
	memcpy(a.ah_attr.grh.dgid.raw, c->peer.gid, 16);
	modify(c, &a,
		IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER,
		"mrc_modify_qp to RTR");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = c->me.psn;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	modify(c, &a,
		IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC,
		"mrc_modify_qp to RTS");
}

void
perf_setup(struct perf_ctx *c, const struct perf_opts *o, uint64_t len)
{
	struct mrc_device_attr da;
	struct mrc_qp_init_attr qa;
	struct ibv_port_attr pa;
	union ibv_gid gid;
	struct perf_peer w;
	uint64_t want;
	int supported = 0, rc;

	memset(c, 0, sizeof(*c));
	c->dev = open_device(o);
	if ((rc = ibv_query_port(c->dev, 1, &pa)) != 0)
		fail_errno("ibv_query_port", rc);
	if (pa.state != IBV_PORT_ACTIVE) {
		fprintf(stderr, "%s: %s port 1 is not active (state %d)\n", tool,
			ibv_get_device_name(c->dev->device), pa.state);
		exit(PERF_EXIT_FAIL);
	}
	c->mtu = pa.active_mtu;
	if (ibv_query_gid(c->dev, 1, o->gid_index, &gid) != 0) {
		fprintf(stderr, "%s: -x %d: ibv_query_gid: %s\n", tool, o->gid_index,
			strerror(errno));
		exit(PERF_EXIT_USAGE);
	}
	c->mctx = mrc_create_context(c->dev, NULL);
	if (c->mctx == NULL)
		fail_errno("mrc_create_context", errno);
	if (mrc_query_device_ex(c->dev, c->mctx, &da, &supported) != 0)
		fail_errno("mrc_query_device_ex", errno);
	if (!supported) {
		fprintf(stderr, "%s: %s cannot do MRC\n", tool,
			ibv_get_device_name(c->dev->device));
		exit(PERF_EXIT_FAIL);
	}
	c->pd = ibv_alloc_pd(c->dev);
	if (c->pd == NULL)
		fail_errno("ibv_alloc_pd", errno);

	/* The client says how much it needs; the server registers as much. */
	c->tcp = tcp_connect(o);
	want = htobe64(len);
	if (o->server != NULL) {
		perf_send(c, &want, sizeof(want));
	} else {
		perf_recv(c, &want, sizeof(want));
		if (be64toh(want) > PERF_MAX_SIZE * 2 + 4096) {
			fprintf(stderr, "%s: the client asks for %" PRIu64 " bytes\n", tool,
				(uint64_t)be64toh(want));
			exit(PERF_EXIT_FAIL);
		}
		len = be64toh(want) > len ? be64toh(want) : len;
	}
	c->buf_len = len;
	/* Ordinary heap memory, as MRC programs register. */
	c->buf = aligned_alloc(4096, (len + 4095) & ~(uint64_t)4095);
	if (c->buf == NULL)
		fail_errno("aligned_alloc", ENOMEM);
	memset(c->buf, 0, len);
	c->mr = ibv_reg_mr(c->pd, c->buf, len, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (c->mr == NULL)
		fail_errno("ibv_reg_mr", errno);
	/* The server sleeps on a channel between sizes; the client with -e. */
	if ((o->use_event || o->server == NULL) && mrc_create_comp_channel(c->mctx, &c->chan) != 0)
		fail_errno("mrc_create_comp_channel", errno);
	c->scq = mrc_create_cq(c->mctx, (int)o->tx_depth + 16, NULL, c->chan, 0);
	c->rcq = mrc_create_cq(c->mctx, 64, NULL, c->chan, 0);
	if (c->scq == NULL || c->rcq == NULL)
		fail_errno("mrc_create_cq", errno);
	memset(&qa, 0, sizeof(qa));
	qa.send_cq = c->scq;
	qa.recv_cq = c->rcq;
	qa.pd = c->pd;
	qa.cap.max_send_wr = o->tx_depth;
	qa.cap.max_recv_wr = 16;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	c->qp = mrc_create_qp(c->mctx, &qa);
	if (c->qp == NULL)
		fail_errno("mrc_create_qp", errno);

	c->me.magic = PERF_MAGIC;
	if (mrc_get_qpn(c->qp, &c->me.qpn) != 0)
		fail_errno("mrc_get_qpn", errno);
	srand48((long)(getpid() ^ (long)(perf_now() * 1e6)));
	c->me.psn = (uint32_t)lrand48() & 0xffffff;
	c->me.rkey = c->mr->rkey;
	c->me.addr = (uint64_t)(uintptr_t)c->buf;
	c->me.len = len;
	memcpy(c->me.gid, gid.raw, 16);
	peer_swap_order(&w, &c->me);
	perf_send(c, &w, sizeof(w));
	perf_recv(c, &w, sizeof(w));
	peer_swap_order(&c->peer, &w);
	if (c->peer.magic != PERF_MAGIC) {
		fprintf(stderr, "%s: the peer is not %s (magic 0x%08x)\n", tool, tool,
			c->peer.magic);
		exit(PERF_EXIT_FAIL);
	}
	connect_qp(c, o);
}

void
perf_teardown(struct perf_ctx *c)
{
	if (mrc_destroy_qp(c->qp) != 0 || mrc_destroy_cq(c->scq) != 0 ||
		mrc_destroy_cq(c->rcq) != 0 ||
		(c->chan != NULL && mrc_destroy_comp_channel(c->chan) != 0))
		fail_errno("tearing the QP and CQs down", errno);
	if (mrc_destroy_context(c->mctx) != 0)
		fail_errno("mrc_destroy_context", errno);
	if (ibv_dereg_mr(c->mr) != 0)
		fail_errno("ibv_dereg_mr", errno);
	if (ibv_dealloc_pd(c->pd) != 0)
		fail_errno("ibv_dealloc_pd", errno);
	if (ibv_close_device(c->dev) != 0)
		fail_errno("ibv_close_device", errno);
	close(c->tcp);
	free(c->buf);
}

int
perf_post_write(struct perf_ctx *c, uint64_t wr_id, uint64_t laddr, uint32_t len, uint64_t raddr,
	bool signalled, bool with_imm, uint32_t imm)
{
	struct ibv_sge sge = {.addr = laddr, .length = len, .lkey = c->mr->lkey};
	struct ibv_send_wr wr, *bad = NULL;
	int rc;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = with_imm ? IBV_WR_RDMA_WRITE_WITH_IMM : IBV_WR_RDMA_WRITE;
	wr.send_flags = signalled ? IBV_SEND_SIGNALED : 0;
	wr.imm_data = htonl(imm);
	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = c->peer.rkey;
	rc = mrc_post_send(c->qp, &wr, &bad);
	if (rc != 0 && rc != ENOMEM)
		fail_errno("mrc_post_send", rc);
	return rc;
}

/*
 * Sleep until the completion channel has an event. The TCP connection is
 * watched too: a peer that died (or gave up) closes it, and a waiter that
 * only slept on the channel would wait for ever.
 */
static void
peer_or_event(struct perf_ctx *c, double end)
{
	struct pollfd p[2] = {{.events = POLLIN}, {.fd = c->tcp, .events = POLLIN}};

	if (mrc_get_comp_channel_fd(c->chan, &p[0].fd) != 0)
		fail_errno("mrc_get_comp_channel_fd", errno);
	for (;;) {
		int n = poll(p, 2, 1000);

		if (n < 0 && errno != EINTR)
			fail_errno("poll", errno);
		if (n > 0 && p[0].revents != 0)
			return;
		if (n > 0 && p[1].revents != 0) {
			char b;

			if (recv(c->tcp, &b, 1, MSG_PEEK | MSG_DONTWAIT) <= 0) {
				fprintf(stderr, "%s: the peer closed the TCP connection\n", tool);
				exit(PERF_EXIT_FAIL);
			}
			p[1].events = 0; /* a message ahead of the completion: read later */
		}
		if (perf_now() > end) {
			fprintf(stderr, "%s: no completion in 60 s\n", tool);
			exit(PERF_EXIT_FAIL);
		}
	}
}

struct ibv_wc
perf_wait_wc(struct perf_ctx *c, struct mrc_cq *cq, bool use_event)
{
	const double end = perf_now() + 60;
	struct ibv_wc wc;
	bool armed = false;
	unsigned spins = 0;
	int n;

	while ((n = mrc_poll_cq(cq, 1, &wc)) == 0) {
		if (use_event && c->chan != NULL) {
			struct mrc_cq *ev_cq;
			void *ev_ctx;

			if (!armed) {
				if (mrc_req_notify_cq(cq, 0) != 0)
					fail_errno("mrc_req_notify_cq", errno);
				armed = true;
				continue; /* poll once more: it may have come meanwhile */
			}
			peer_or_event(c, end);
			if (mrc_get_cq_event(c->chan, &ev_cq, &ev_ctx) != 0)
				fail_errno("mrc_get_cq_event", errno);
			mrc_ack_cq_events(ev_cq, 1);
			armed = false;
		} else if (++spins % 4096 == 0 && perf_now() > end) {
			fprintf(stderr, "%s: no completion in 60 s\n", tool);
			exit(PERF_EXIT_FAIL);
		}
	}
	if (n < 0)
		fail_errno("mrc_poll_cq", errno);
	if (wc.status != IBV_WC_SUCCESS) {
		fprintf(stderr, "%s: a completion in error: %s (wr_id %" PRIu64 ")\n", tool,
			ibv_wc_status_str(wc.status), wc.wr_id);
		exit(PERF_EXIT_FAIL);
	}
	return wc;
}
