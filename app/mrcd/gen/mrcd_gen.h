/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRCD_GEN_H
#define MRCD_GEN_H

/*
 * The traffic generator: which hosts write to which (a pattern), how big,
 * how many at once or how fast, and whether every byte is checked on
 * arrival. It posts RDMA WRITE-with-immediate through the same QP API an
 * application uses. Each flow is one QP from a source host to a
 * destination host with a slot for each of its message buffers
 * (`buffers`, at least `outstanding`); message n takes slot n % buffers,
 * so a slot is rewritten only after its previous message completed.
 * Payload words are a function of (flow, message number, word), so the
 * receiver checks a message without seeing the sender's memory; immediate
 * data carries the message number, and immediates arrive in order per QP,
 * which tells the receiver which message (and slot) just completed.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_common.h>
#include <rte_prefetch.h>

#include "mrc_qp.h"

enum mrcd_pattern {
	MRCD_PAT_PAIRS = 0, /* 2k <-> 2k+1, both ways */
	MRCD_PAT_ALL_TO_ALL,
	MRCD_PAT_INCAST,      /* every host -> incast_target */
	MRCD_PAT_RING,	      /* h -> h+1 */
	MRCD_PAT_PERMUTATION, /* h -> perm(h), a seeded derangement */
};

#define MRCD_MIX_MAX 8

enum mrcd_opcode { MRCD_OP_WRITE_IMM = 0, MRCD_OP_WRITE = 1 };

struct mrcd_profile {
	char path[256];
	uint8_t pattern;
	uint16_t incast_target;
	uint32_t msg_kb;
	uint16_t qps_per_peer;
	uint16_t outstanding;  /* messages in flight per QP (closed loop) */
	uint16_t buffers;      /* message slots per flow at each end; 0 = outstanding */
	double rate_gbps;      /* per flow; 0 = closed loop, as fast as completions allow */
	uint64_t messages;     /* per flow; 0 = until the run ends */
	uint32_t active_flows; /* per host, flows with messages in flight at once; 0 = all */
	bool verify;
	uint8_t opcode;	    /* enum mrcd_opcode */
	char size_mix[128]; /* "KiB:weight, ..." as written; "" = every message msg_kb */
	/* The EV and CC profiles the flows' QPs are made with (0: [transport], [cc]) */
	uint8_t ev_profile, cc_profile;
	/* derived from size_mix by mrcd_profile_load() */
	unsigned int n_mix;
	uint32_t mix_kb[MRCD_MIX_MAX], mix_cum[MRCD_MIX_MAX]; /* cumulative weights */
	uint32_t max_kb; /* the largest message: a slot's size */
};

/*
 * The generator's parameters as a worker reads them: one block per reload
 * that changed a key that applies live (doc/service.md, "Reload"), built
 * by control, published through one pointer (d->gen_pub) and taken by each
 * shard's worker at its next pass (mrcd_sched_take); never written after
 * it is published. `p` is the profile in force, its max_kb the slot size
 * made at start (a message of the new sizes fits one: checked before).
 * A message keeps the shape (sizes, verify) it was posted with: each
 * sending flow notes the number of its first message of the current shape
 * (mrcd_flow shape_from, shape_gen), and the shape before the last change
 * is kept here for the messages posted before it.
 */
struct mrcd_gen_params {
	struct mrcd_profile p;
	struct mrcd_profile before; /* sizes and verify before the last shape change */
	uint32_t shape_gen;	    /* shape changes so far */
};

/* Message size of message `seq` of `flow`: the same at both ends, no state. */
uint32_t mrcd_msg_len(const struct mrcd_profile *p, uint32_t flow, uint64_t seq);
/* Bytes of one flow's slots at each end: its buffers x the largest message. */
size_t mrcd_flow_slot_bytes(const struct mrcd_profile *p);

/* A flow's message slots at each end: `buffers`, or `outstanding` when that is 0. */
static inline uint32_t
mrcd_flow_buffers(const struct mrcd_profile *p)
{
	return p->buffers != 0 ? p->buffers : p->outstanding;
}

/* The slot message `seq` of a flow is written from and placed in. */
static inline uint32_t
mrcd_flow_buffer_of(const struct mrcd_profile *p, uint64_t seq)
{
	return (uint32_t)(seq % mrcd_flow_buffers(p));
}

void mrcd_profile_defaults(struct mrcd_profile *p);
/* Fill the derived fields (size mix, largest message) from the keys. */
void mrcd_profile_derive(struct mrcd_profile *p);
/* Load a profile file ([profile] section); 0, or -EINVAL with err (file:line: ...). */
int mrcd_profile_load(struct mrcd_profile *p, const char *path, char *err, size_t errlen);
/*
 * The same with "profile.<key>=<value>" values over the file's (mrcd --set),
 * checked like its lines; path "" = the built-in profile with them.
 */
int mrcd_profile_load_set(struct mrcd_profile *p, const char *path, const char *const *sets,
	unsigned int n_sets, char *err, size_t errlen);
const char *mrcd_pattern_name(uint8_t pattern);
/* Print the profile's keys (default, unit, what each does, value), each line after `prefix`. */
void mrcd_profile_print(FILE *f, const struct mrcd_profile *p, const char *prefix);

/*
 * One direction of traffic between two cluster hosts. Every process derives
 * the same cluster-wide list of flows from the profile, so a flow's QPNs and
 * its buffers' offsets are known at both ends without an exchange; a
 * process keeps the flows with at least one end among its hosts.
 *
 * Who writes and reads: the daemon's setup (main lcore) fills the identity
 * and buffers, read-only afterwards (telemetry lists them). The sending
 * half belongs to the worker that runs the shard of src's host owning the
 * sending QP, the receiving half to the one that runs the receiving QP's
 * (they may differ); the summary reads both
 * after the workers stopped.
 */
struct mrcd_flow {
	/*
	 * Line 0: what the sender's post and its send completion both touch
	 * (the completion wakes the flow: mrcd_sched_wake), so a completion
	 * reads one line of the record. Sizes are asserted below.
	 */
	struct mrc_qp *qp;	    /* on src, when src is local (the src worker drives it) */
	uint64_t posted, completed; /* the src worker's */
	uint64_t failed; /* the src worker's: completed with an error (QP in ERROR or retired) */
	uint64_t completed_bytes; /* the src worker's */
	/*
	 * Per slot: when its message was wanted (the flow's ready_tsc, or its
	 * pace's due time), not when it was posted, so a completion time counts
	 * the wait in the ready queue too (mrcd_sched.c holds posts back while
	 * the output round is behind); the src worker writes. Slot 0's is here,
	 * in the line the completion reads anyway (one in flight per flow
	 * touches no other); the other slots' in post_tsc[1..], which setup
	 * allocates (mrcd_flow_post_tsc()).
	 */
	uint64_t post_tsc0;
	uint64_t *post_tsc;
	int16_t src_local, dst_local; /* setup: this process's host index, or -1: elsewhere */
	/* setup: the shard of its host that owns each end's QP ([lcores] peer_shard) */
	uint8_t src_shard, dst_shard;
	uint8_t queued; /* the src worker's: on its host's ready or wait queue (mrcd_sched.h) */
	bool removed;	/* the src worker's: a reload stopped it, it posts no more */

	/* Line 1: the rest a post reads (the src worker's; setup seeds them). */
	uint64_t next_post_tsc __rte_cache_aligned; /* pacing */
	/* when it last joined its shard's ready queue; MRCD_READY_AT_POST: from its post */
	uint64_t ready_tsc;
	uint8_t *src_buf; /* setup: outstanding x msg bytes in src's region (local src) */
	uint64_t dst_off; /* setup: the same in dst's region, as dst's zero-based region sees it */
	uint32_t dst_key; /* setup */
	uint32_t src_key; /* setup; read-only after */
	uint32_t id;	  /* setup; read-only after: cluster-wide flow number */
	/* setup; read-only after: rarely read (telemetry, reload) */
	uint32_t qpn;	   /* the sender's QPN; the receiver's is qpn + 1 */
	uint64_t src_off;  /* src_buf as an offset in src's region */
	uint16_t src, dst; /* cluster host numbers */
	uint16_t q;	   /* which of its pair's qps_per_peer flows (a reload's name for it) */
	bool gone;	   /* control: a reload removed it (or is removing it) */

	/*
	 * Line 2: the dst worker's, all a receive completion reads: the sender's
	 * lines are written by another worker (or, on this one, evicted since
	 * the post), so what it needs of them is copied here when dst_buf is set.
	 */
	uint64_t recv_seq __rte_cache_aligned; /* next message number the receiver expects */
	uint64_t verified_msgs, verified_bytes, verify_errors;
	uint8_t *dst_buf; /* setup: outstanding x msg bytes, in dst's region (local dst) */
	/*
	 * The src worker writes (shape_gen with release, after shape_from), the
	 * dst worker and control read: message shape_from is the first posted
	 * with the sizes of shape generation shape_gen (mrcd_gen_params).
	 */
	uint64_t shape_from;
	uint32_t shape_gen;
	uint32_t rx_id;	      /* setup: id, for the payload's check */
	int16_t rx_src_local; /* setup: src_local, for the check's sizes */
} __rte_cache_aligned;

/* A flow's ready_tsc before its first pass: the post that takes it stamps its own time. */
#define MRCD_READY_AT_POST UINT64_MAX

/* The layout above, kept: a send completion reads line 0 only, a post lines 0 and 1,
 * a receive completion line 2 only. */
_Static_assert(offsetof(struct mrcd_flow, removed) < 64, "mrcd_flow: line 0 overflows");
_Static_assert(offsetof(struct mrcd_flow, gone) < 128, "mrcd_flow: line 1 overflows");
_Static_assert(sizeof(struct mrcd_flow) == 192, "mrcd_flow: not three lines");

/* Where slot `slot`'s post time is kept (see post_tsc0). */
static inline uint64_t *
mrcd_flow_post_tsc(struct mrcd_flow *f, uint32_t slot)
{
	return slot == 0 ? &f->post_tsc0 : &f->post_tsc[slot];
}

/* What the receiving end reads of the sending end's fields: dst_buf's setter calls it. */
static inline void
mrcd_flow_copy_rx(struct mrcd_flow *f)
{
	f->rx_id = f->id;
	f->rx_src_local = f->src_local;
}

/*
 * Completion-time histogram: log2 buckets, MRCD_HIST_SUB linear steps each
 * (exact below MRCD_HIST_SUB ns). mrcd_hist_pct() interpolates within the
 * bucket that holds the percentile, its samples taken as evenly spread (up
 * to max_ns in the top bucket): unbiased, exact for evenly spread samples,
 * and never more than a bucket width (1/MRCD_HIST_SUB of the value) off,
 * nor above max_ns. 128 steps, not 16: a tail that falls steeply across a
 * bucket (the incast benchmark's p99, just past 2^25 ns) bunches its
 * samples at the bucket's low end, and a 1/16 bucket read it up to 6% high
 * (2% in that benchmark); 1/128 bounds that at 0.8%. 58 KiB per shard, read
 * only by the summary.
 */
#define MRCD_HIST_SUB_BITS 7
#define MRCD_HIST_SUB	   (1u << MRCD_HIST_SUB_BITS)
/* below MRCD_HIST_SUB one bucket per ns, then octaves 2^SUB_BITS .. 2^63 */
#define MRCD_HIST_BUCKETS ((64 - MRCD_HIST_SUB_BITS + 1) * MRCD_HIST_SUB)
struct mrcd_hist {
	uint64_t n, max_ns;
	uint64_t b[MRCD_HIST_BUCKETS];
};

void mrcd_hist_add(struct mrcd_hist *h, uint64_t ns);
void mrcd_hist_merge(struct mrcd_hist *to, const struct mrcd_hist *from);
uint64_t mrcd_hist_pct(const struct mrcd_hist *h, double pct);

/* (src, dst) pairs for a pattern over n hosts; returns how many (at most max). */
unsigned int mrcd_pattern_pairs(const struct mrcd_profile *p, unsigned int n_hosts, uint64_t seed,
	uint16_t (*out)[2], unsigned int max);

/*
 * Word j of message `seq` of `flow`: distinct for every (flow, seq, j). The
 * message's base with j folded in, then mixed; mrcd_fill.c computes four
 * or eight at once from the same two parts.
 */
static inline uint64_t
mrcd_gen_word_base(uint32_t flow, uint64_t seq)
{
	/* Flows past 65,535 fold their high bits in apart: the low 16 keep their old words. */
	return ((uint64_t)flow << 48) ^ (seq << 24) ^
	       ((uint64_t)(flow >> 16) * 0xd6e8feb86659fd93ull);
}

static inline uint64_t
mrcd_gen_word_mix(uint64_t x)
{
	x ^= x >> 31;
	x *= 0x9e3779b97f4a7c15ull;
	return x ^ (x >> 29);
}

static inline uint64_t
mrcd_gen_word(uint32_t flow, uint64_t seq, uint64_t j)
{
	return mrcd_gen_word_mix(mrcd_gen_word_base(flow, seq) ^ j);
}

/* Fill / check message `seq` of a flow in `buf` (len bytes); mrcd_fill.c. */
void mrcd_gen_fill(uint8_t *buf, uint32_t len, uint32_t flow, uint64_t seq);
bool mrcd_gen_check(const uint8_t *buf, uint32_t len, uint32_t flow, uint64_t seq);
/* How mrcd_gen_fill() / mrcd_gen_check() compute the words (the bytes are the same). */
enum mrcd_gen_fill_path {
	MRCD_FILL_AUTO = -1,  /* the widest the CPU has and the EAL's SIMD width allows */
	MRCD_FILL_SCALAR = 0, /* one word at a time, any CPU */
	MRCD_FILL_AVX512 = 1, /* eight at a time: AVX512F and AVX512DQ */
	MRCD_FILL_AVX2 = 2,   /* four at a time: AVX2 */
};

/*
 * For tests and benchmarks: use `path` (enum mrcd_gen_fill_path) from now
 * on, whatever the EAL allows. -1 when this CPU (or OS) lacks it or the
 * value is none of them; the choice stays as it was.
 */
int mrcd_gen_fill_set_path(int path);

/* Messages of `f` posted and not yet completed, either way. */
static inline uint64_t
mrcd_gen_in_flight(const struct mrcd_flow *f)
{
	return f->posted - f->completed - f->failed;
}

/*
 * Start loading the lines of a flow's record that its next step reads (a
 * hint; it reads nothing): with many flows taking turns the record is cold
 * when the flow next posts or completes. The record and its array are
 * line-aligned (mrcd_setup.c). A post reads lines 0 and 1, a send
 * completion line 0, a receive completion line 2 only: asking for the
 * others would only evict lines that are wanted.
 */
static inline void
mrcd_flow_prefetch_post(const struct mrcd_flow *f)
{
	rte_prefetch0(f);
	rte_prefetch0(&f->next_post_tsc);
}

static inline void
mrcd_flow_prefetch_sent(const struct mrcd_flow *f)
{
	rte_prefetch0(f);
}

static inline void
mrcd_flow_prefetch_recv(const struct mrcd_flow *f)
{
	rte_prefetch0(&f->recv_seq);
}

/* Post what the profile allows now on `f`; returns messages posted. */
unsigned int mrcd_gen_post(const struct mrcd_profile *p, struct mrcd_flow *f, uint64_t now_tsc,
	uint64_t tsc_hz, bool stopping);

/*
 * The shape (sizes, verify) message `seq` of `f` was posted with: g's, or
 * the one before g's last shape change for messages posted before the
 * flow's sender took it. g must be at least the flow's shape generation.
 */
static inline const struct mrcd_profile *
mrcd_gen_shape(const struct mrcd_gen_params *g, const struct mrcd_flow *f, uint64_t seq)
{
	const uint32_t gen = __atomic_load_n(&f->shape_gen, __ATOMIC_ACQUIRE);

	return gen == g->shape_gen && seq >= __atomic_load_n(&f->shape_from, __ATOMIC_RELAXED)
		       ? &g->p
		       : &g->before;
}

/* A send completion on f's QP: record its completion time. */
void mrcd_gen_sent(const struct mrcd_gen_params *g, struct mrcd_flow *f, const struct mrc_cqe *e,
	uint64_t now_tsc, uint64_t tsc_hz, struct mrcd_hist *hist);

/*
 * An immediate arrived for flow f (on f->dst): verify the message, of the
 * length of the shape it was posted with when f's sender is in this
 * process, of the write's length (any whole KiB up to a slot) when it is
 * in another, which takes a reload at its own moment.
 */
void mrcd_gen_received(
	const struct mrcd_gen_params *g, struct mrcd_flow *f, const struct mrc_cqe *e);

#endif /* MRCD_GEN_H */
