/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef PERF_COMMON_H
#define PERF_COMMON_H

/*
 * What mrc_write_bw and mrc_write_lat share: options, the device, the TCP
 * connection that carries the set-up and the per-size hand-shakes, the QP
 * brought to RTS, the byte pattern and the clock. Written against mrc.h and
 * <infiniband/verbs.h> only, as any MRC program is.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <mrc.h>

#define PERF_MAX_SIZE	  (64ull << 20)
#define PERF_DEFAULT_PORT 18515

/* Exit codes, the same in both tools. */
enum {
	PERF_EXIT_OK = 0,
	PERF_EXIT_FAIL = 1,  /* a verbs/MRC call failed, or a completion was in error */
	PERF_EXIT_USAGE = 2, /* bad command line */
	PERF_EXIT_DATA = 3,  /* bytes were wrong at the receiver */
};

struct perf_opts {
	const char *tool; /* "mrc_write_bw" or "mrc_write_lat" */
	const char *dev_name;
	const char *server; /* NULL: this is the server */
	int port;
	int gid_index;
	uint64_t size; /* one size, or the largest of a sweep */
	uint64_t min_size;
	bool all;	 /* -a: sweep min_size..size */
	unsigned step;	 /* sweep factor (2: every power of 2) */
	uint64_t iters;	 /* 0: a default by size */
	double duration; /* -D: seconds per size instead of a count */
	unsigned tx_depth;
	uint64_t buf; /* bw: bytes of slots a size cycles through */
	bool json;
	bool use_event; /* wait for completions on a channel instead of spinning */
	bool yield;	/* lat: sched_yield() while spinning (processes sharing a CPU) */
};

/* What each side tells the other at the start (network byte order on the wire). */
struct perf_peer {
	uint32_t magic;
	uint32_t qpn;
	uint32_t psn;
	uint32_t rkey;
	uint64_t addr;
	uint64_t len; /* bytes the sender wants the other side to register, or did */
	uint8_t gid[16];
};

/* Everything one side has open. */
struct perf_ctx {
	struct ibv_context *dev;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	struct mrc_context *mctx;
	struct mrc_comp_channel *chan;
	struct mrc_cq *scq, *rcq;
	struct mrc_qp *qp;
	uint8_t *buf;
	uint64_t buf_len;
	enum ibv_mtu mtu;
	int tcp;
	struct perf_peer me, peer;
};

/* Command line: common options; the tool's own defaults are set before the call. */
int perf_parse(struct perf_opts *o, int argc, char **argv, const char *usage);

/* Open the device, connect over TCP, allocate and register `len` bytes (the client's
 * need: the server takes the larger of its own and the client's), make the QP and
 * bring it to RTS. Exits with a message naming the failing call or value. */
void perf_setup(struct perf_ctx *c, const struct perf_opts *o, uint64_t len);
void perf_teardown(struct perf_ctx *c);

/* Fixed-size messages on the TCP connection, both directions; exit on a short read. */
void perf_send(struct perf_ctx *c, const void *m, size_t n);
void perf_recv(struct perf_ctx *c, void *m, size_t n);

/* Post one send WR; ENOMEM (ring full) is returned, anything else exits. */
int perf_post_write(struct perf_ctx *c, uint64_t wr_id, uint64_t laddr, uint32_t len,
	uint64_t raddr, bool signalled, bool with_imm, uint32_t imm);
/* Wait for one completion on cq (spinning, or on the channel with use_event);
 * a completion in error exits with its status. */
struct ibv_wc perf_wait_wc(struct perf_ctx *c, struct mrc_cq *cq, bool use_event);

/* The byte at `off` of a message of `size` bytes cut with `key` (slot or side). */
static inline uint8_t
perf_pattern(uint64_t off, uint64_t size, uint64_t key)
{
	return (uint8_t)(off + (off >> 8) * 3 + (off >> 16) * 5 + key * 29 +
			 (uint64_t)__builtin_ctzll(size | (1ull << 63)) * 11 + 1);
}
void perf_fill(uint8_t *p, uint64_t size, uint64_t key);
/* Bytes of p[0..size) that differ from the pattern. */
uint64_t perf_check(const uint8_t *p, uint64_t size, uint64_t key);

/* The head of a results table, as perftest prints it: a rule, " " and the title, a rule. */
void perf_banner(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

double perf_now(void);
/* CPU seconds (user + system) this process used so far. */
double perf_cpu_s(void);
/* The sizes of a sweep: next size after s, 0 when done. */
uint64_t perf_next_size(const struct perf_opts *o, uint64_t s);

#endif /* PERF_COMMON_H */
