/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: the main lcore for the profile (loading, printing, the flows'
 * pattern and sizes, before the workers start); the worker lcores for
 * posting and completions (mrcd_gen_post, mrcd_gen_sent, mrcd_gen_received,
 * the histogram), each on the flows of the hosts it owns. See mrcd_gen.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "mrc_rand.h"
#include "mrcd_gen.h"
#include "mrcd_ini.h"

static const char *const pattern_names[] = {
	"pairs", "all-to-all", "incast", "ring", "permutation", NULL};

const char *
mrcd_pattern_name(uint8_t pattern)
{
	return pattern < RTE_DIM(pattern_names) - 1 ? pattern_names[pattern] : "?";
}

#define OFF(f) offsetof(struct mrcd_profile, f)
#define SZ(f)  sizeof(((struct mrcd_profile *)0)->f)
#define KEY(name_, type_, field_, ...)                                                             \
	{                                                                                          \
		.section = "profile", .name = name_, .type = MRCD_INI_##type_, .size = SZ(field_), \
		.offset = OFF(field_), __VA_ARGS__                                                 \
	}

static const char *const opcode_names[] = {"write_imm", "write", NULL};

/* Parse "KiB:weight, ..." into `p`; 0, or -EINVAL with why. */
static int
parse_mix(const char *s, struct mrcd_profile *p, char *why, size_t whylen)
{
	uint32_t cum = 0;

	p->n_mix = 0;
	while (*s != '\0') {
		char *end;
		unsigned long kb, w;

		while (*s == ' ' || *s == ',')
			s++;
		if (*s == '\0')
			break;
		kb = strtoul(s, &end, 10);
		if (end == s || *end != ':' || kb < 1 || kb > 1048576) {
			snprintf(why, whylen, "'%.20s': want KiB:weight, KiB 1..1048576", s);
			return -EINVAL;
		}
		s = end + 1;
		w = strtoul(s, &end, 10);
		if (end == s || w < 1 || w > 1000000 ||
			(*end != '\0' && *end != ',' && *end != ' ')) {
			snprintf(why, whylen, "weight after %lu: want 1..1000000", kb);
			return -EINVAL;
		}
		if (p->n_mix == MRCD_MIX_MAX) {
			snprintf(why, whylen, "at most %d sizes", MRCD_MIX_MAX);
			return -EINVAL;
		}
		cum += (uint32_t)w;
		p->mix_kb[p->n_mix] = (uint32_t)kb;
		p->mix_cum[p->n_mix++] = cum;
		s = end;
	}
	return 0;
}

static int
check_mix(const void *field, char *why, size_t whylen)
{
	struct mrcd_profile tmp;

	return parse_mix(field, &tmp, why, whylen);
}

static const struct mrcd_ini_key keys[] = {
	KEY("pattern", ENUM, pattern, .names = pattern_names, .def = "pairs",
		.help = "who writes to whom: pairs (2k <-> 2k+1), all-to-all, incast (every host "
			"-> "
			"incast_target), ring (h -> h+1), permutation (a seeded derangement)"),
	KEY("incast_target", U16, incast_target, .min = 0, .max = 63, .def = "0", .unit = "host",
		.help = "the receiver of the incast pattern"),
	KEY("msg_kb", U32, msg_kb, .min = 1, .max = 1048576, .def = "1024", .unit = "KiB",
		.help = "size of every message"),
	KEY("qps_per_peer", U16, qps_per_peer, .min = 1, .max = 65535, .def = "1", .unit = "QPs",
		.help = "QPs from a host to each peer it writes to (flows: the pattern's pairs x "
			"this, at most 65536 in the cluster)"),
	KEY("outstanding", U16, outstanding, .min = 1, .max = 64, .def = "4", .unit = "messages",
		.help = "messages in flight per QP at most"),
	KEY("buffers", U16, buffers, .min = 0, .max = 4096, .def = "0", .unit = "messages",
		.help = "message slots per flow at each end, each message taking the next in turn "
			"(at least outstanding; 0 = outstanding): more keeps a flow's buffers out "
			"of the caches, as an application's data that the CPU did not just touch"),
	KEY("rate_gbps", DOUBLE, rate_gbps, .dmin = 0, .dmax = 10000, .def = "0", .unit = "Gb/s",
		.help = "offered rate per QP; 0 = closed loop (post when a slot frees)"),
	KEY("messages", U64, messages, .min = 0, .max = UINT64_MAX / 2, .def = "0",
		.unit = "messages", .help = "per QP, then stop; 0 = until the run ends"),
	KEY("active_flows", U32, active_flows, .min = 0, .max = 65536, .def = "0", .unit = "flows",
		.help = "per host, flows with messages in flight at once, taking turns: a flow "
			"whose "
			"messages have all completed hands its turn to the next (closed loop "
			"only); "
			"0 = every flow at once"),
	KEY("verify", BOOL, verify, .def = "true",
		.help = "check every byte of every message at the receiver (needs opcode = "
			"write_imm)"),
	KEY("opcode", ENUM, opcode, .names = opcode_names, .def = "write_imm",
		.help = "write_imm: RDMA WRITE with immediate, completed at both ends; write: "
			"plain "
			"WRITE, the receiver sees no completion (bandwidth tests, verify = false)"),
	KEY("size_mix", STRING, size_mix, .check = check_mix, .def = "", .unit = "KiB:weight, ...",
		.help = "message sizes drawn per message by weight, e.g. 4:60, 64:30, 1024:10 "
			"(at most 8); empty = every message msg_kb"),
	KEY("ev_profile", U8, ev_profile, .min = 0, .max = 15, .def = "0", .unit = "id",
		.help = "the EV profile of every flow's QPs (the configuration's [ev_profile.<n>], "
			"online at start; 0 = [transport]'s)"),
	KEY("cc_profile", U8, cc_profile, .min = 0, .max = 15, .def = "0", .unit = "id",
		.help = "the CC profile of every flow's QPs (the configuration's [cc_profile.<n>], "
			"online at start; 0 = [cc]'s)"),
};

static const struct mrcd_ini_section sections[] = {
	{"profile", "What the traffic generator sends.", 0},
};

static const struct mrcd_ini_schema schema = {
	.sections = sections,
	.n_sections = RTE_DIM(sections),
	.keys = keys,
	.n_keys = RTE_DIM(keys),
};

void
mrcd_profile_print(FILE *f, const struct mrcd_profile *p, const char *prefix)
{
	char *text = NULL, *line, *save = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	if (m == NULL)
		return;
	mrcd_ini_print(m, &schema, p);
	fclose(m);
	for (line = strtok_r(text, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save))
		fprintf(f, "%s%s\n", prefix, line);
	free(text);
}

void
mrcd_profile_defaults(struct mrcd_profile *p)
{
	memset(p, 0, sizeof(*p));
	mrcd_ini_defaults(&schema, p);
	mrcd_profile_derive(p);
}

int
mrcd_profile_load(struct mrcd_profile *p, const char *path, char *err, size_t errlen)
{
	return mrcd_profile_load_set(p, path, NULL, 0, err, errlen);
}

int
mrcd_profile_load_set(struct mrcd_profile *p, const char *path, const char *const *sets,
	unsigned int n_sets, char *err, size_t errlen)
{
	struct mrcd_ini *ini;
	int rc;

	mrcd_profile_defaults(p);
	if ((path == NULL || path[0] == '\0') && n_sets == 0)
		return 0;
	if (path == NULL || path[0] == '\0')
		rc = mrcd_ini_new("the built-in profile", &ini, err, errlen);
	else
		rc = mrcd_ini_open(path, &ini, err, errlen);
	if (rc != 0)
		return rc;
	for (unsigned int i = 0; i < n_sets && rc == 0; i++)
		rc = mrcd_ini_set(ini, &schema, sets[i], err, errlen);
	if (rc == 0)
		rc = mrcd_ini_apply(ini, &schema, p, err, errlen);
	/* Keys that disagree: named where they were given (a line or --set), with their values. */
	if (rc == 0 && p->verify && p->opcode == MRCD_OP_WRITE)
		rc = mrcd_ini_error(ini, path, &schema, p, "profile",
			mrcd_ini_has(ini, "profile", "verify") ? "verify" : "opcode", err, errlen,
			"verify = true needs opcode = write_imm: a plain WRITE gives the "
			"receiver no completion to check");
	if (rc == 0 && p->buffers != 0 && p->buffers < p->outstanding)
		rc = mrcd_ini_error(ini, path, &schema, p, "profile", "buffers", err, errlen,
			"fewer than outstanding = %u: a message's slot would be rewritten while "
			"it is in flight",
			p->outstanding);
	if (rc == 0 && p->active_flows > 0 && p->rate_gbps > 0)
		rc = mrcd_ini_error(ini, path, &schema, p, "profile", "active_flows", err, errlen,
			"needs rate_gbps = 0: turns are handed on completions, a paced flow "
			"posts on time");
	mrcd_ini_close(ini);
	snprintf(p->path, sizeof(p->path), "%s", path != NULL ? path : "");
	if (rc == 0)
		mrcd_profile_derive(p);
	return rc;
}

void
mrcd_profile_derive(struct mrcd_profile *p)
{
	char why[128];

	if (parse_mix(p->size_mix, p, why, sizeof(why)) != 0)
		p->n_mix = 0; /* checked at load; a caller's own struct falls back to msg_kb */
	p->max_kb = p->msg_kb;
	if (p->n_mix > 0) {
		p->max_kb = 0;
		for (unsigned int i = 0; i < p->n_mix; i++)
			p->max_kb = RTE_MAX(p->max_kb, p->mix_kb[i]);
	}
}

size_t
mrcd_flow_slot_bytes(const struct mrcd_profile *p)
{
	return (size_t)mrcd_flow_buffers(p) * (p->max_kb ? p->max_kb : p->msg_kb) * 1024u;
}

unsigned int
mrcd_pattern_pairs(const struct mrcd_profile *p, unsigned int n, uint64_t seed, uint16_t (*out)[2],
	unsigned int max)
{
	unsigned int k = 0;

#define ADD(a, b)                                  \
	do {                                       \
		if (k < max) {                     \
			out[k][0] = (uint16_t)(a); \
			out[k][1] = (uint16_t)(b); \
			k++;                       \
		}                                  \
	} while (0)
	switch (p->pattern) {
	case MRCD_PAT_PAIRS:
		for (unsigned int h = 0; h + 1 < n; h += 2) {
			ADD(h, h + 1);
			ADD(h + 1, h);
		}
		break;
	case MRCD_PAT_ALL_TO_ALL:
		for (unsigned int a = 0; a < n; a++)
			for (unsigned int b = 0; b < n; b++)
				if (a != b)
					ADD(a, b);
		break;
	case MRCD_PAT_INCAST:
		for (unsigned int h = 0; h < n; h++)
			if (h != p->incast_target)
				ADD(h, p->incast_target);
		break;
	case MRCD_PAT_RING:
		for (unsigned int h = 0; h < n && n > 1; h++)
			ADD(h, (h + 1) % n);
		break;
	default: { /* a derangement: shuffle until no host writes to itself */
		unsigned int perm[64];
		struct mrc_rand r;

		mrc_rand_seed(&r, seed);
		for (unsigned int tries = 0; tries < 1000 && n > 1; tries++) {
			bool ok = true;

			for (unsigned int h = 0; h < n; h++)
				perm[h] = h;
			for (unsigned int h = n - 1; h > 0; h--) {
				unsigned int j = (unsigned int)mrc_rand_bounded(&r, h + 1),
					     t = perm[h];

				perm[h] = perm[j];
				perm[j] = t;
			}
			for (unsigned int h = 0; h < n; h++)
				ok = ok && perm[h] != h;
			if (ok) {
				for (unsigned int h = 0; h < n; h++)
					ADD(h, perm[h]);
				break;
			}
		}
		break;
	}
	}
#undef ADD
	return k;
}

uint32_t
mrcd_msg_len(const struct mrcd_profile *p, uint32_t flow, uint64_t seq)
{
	if (p->n_mix == 0)
		return p->msg_kb * 1024u;
	/* A hash of (flow, seq), not a PRNG stream: the receiver needs no state to agree. */
	const uint32_t r =
		(uint32_t)(mrcd_gen_word(flow ^ 0x5a5a, seq, ~0ull) % p->mix_cum[p->n_mix - 1]);
	unsigned int i = 0;

	while (r >= p->mix_cum[i])
		i++;
	return p->mix_kb[i] * 1024u;
}

unsigned int
mrcd_gen_post(const struct mrcd_profile *p, struct mrcd_flow *f, uint64_t now_tsc, uint64_t tsc_hz,
	bool stopping)
{
	const size_t stride = (size_t)p->max_kb * 1024u; /* a slot fits the largest message */
	unsigned int n = 0;

	while (!stopping && mrcd_gen_in_flight(f) < p->outstanding &&
		(p->messages == 0 || f->posted < p->messages) && now_tsc >= f->next_post_tsc) {
		const uint32_t slot = (uint32_t)(f->posted % p->outstanding);
		/* the same slot unless the profile has more buffers: one division, not two */
		const uint32_t buf = p->buffers != 0 ? mrcd_flow_buffer_of(p, f->posted) : slot;
		const uint32_t len = mrcd_msg_len(p, f->id, f->posted);
		uint8_t *src = f->src_buf + (size_t)buf * stride;

		if (p->verify)
			mrcd_gen_fill(src, len, f->id, f->posted);
		if (mrc_qp_post_write(f->qp, f->posted, src, len, f->src_key,
			    f->dst_off + (uint64_t)buf * stride, f->dst_key,
			    p->opcode == MRCD_OP_WRITE_IMM, (uint32_t)f->posted) != 0)
			break;
		/* Wanted since it joined the ready queue, or since its pace made it due. */
		const uint64_t wanted = RTE_MAX(f->ready_tsc, f->next_post_tsc);

		*mrcd_flow_post_tsc(f, slot) = RTE_MIN(now_tsc, wanted);
		f->posted++;
		n++;
		if (p->rate_gbps > 0) {
			/* Pace from the schedule, not from now, so a late poll catches up. */
			uint64_t gap =
				(uint64_t)((double)len * 8 / (p->rate_gbps * 1e9) * (double)tsc_hz);

			uint64_t floor = now_tsc > gap ? now_tsc - gap : 0;

			f->next_post_tsc =
				(f->next_post_tsc > floor ? f->next_post_tsc : floor) + gap;
		}
	}
	return n;
}

void
mrcd_gen_sent(const struct mrcd_gen_params *g, struct mrcd_flow *f, const struct mrc_cqe *e,
	uint64_t now_tsc, uint64_t tsc_hz, struct mrcd_hist *hist)
{
	const uint32_t slot = (uint32_t)(e->wr_id % g->p.outstanding);

	f->completed++;
	/* The length it was posted with, whatever the sizes in force now. */
	f->completed_bytes += e->byte_len;
	mrcd_hist_add(hist, (uint64_t)((double)(now_tsc - *mrcd_flow_post_tsc(f, slot)) * 1e9 /
				       (double)tsc_hz));
}

/*
 * Whether `len`, the length a write says it has, can be message `seq` of f:
 * exactly the length of the shape it was posted with when f's sender is in
 * this process; when it is in another, which takes a reload's new sizes at
 * its own moment (doc/service.md, "Reload"), any whole KiB that fits a
 * slot: that process's sizes are not known here, and every byte of it is
 * checked all the same.
 */
static inline bool
recv_len_ok(const struct mrcd_gen_params *g, const struct mrcd_flow *f,
	const struct mrcd_profile *p, uint64_t seq, uint32_t len)
{
	if (f->rx_src_local >= 0)
		return len == mrcd_msg_len(p, f->rx_id, seq);
	return len >= 1024u && len <= g->p.max_kb * 1024u && len % 1024u == 0;
}

void
mrcd_gen_received(const struct mrcd_gen_params *g, struct mrcd_flow *f, const struct mrc_cqe *e)
{
	const uint64_t seq = f->recv_seq;
	/*
	 * The sizes and check it was posted with; a slot is the start's (g->p.max_kb).
	 * A sender elsewhere: verify is the same in both processes (a reload that
	 * changes it is refused), its length the write's.
	 */
	const struct mrcd_profile *p = f->rx_src_local >= 0 ? mrcd_gen_shape(g, f, seq) : &g->p;
	const uint32_t len = e->byte_len;
	const uint8_t *dst =
		f->dst_buf + (size_t)mrcd_flow_buffer_of(&g->p, seq) * g->p.max_kb * 1024u;

	/* Control reads it to know when the messages of an older shape are all in. */
	__atomic_store_n(&f->recv_seq, seq + 1, __ATOMIC_RELAXED);
	/* Immediates arrive in order per QP: the expected number must be the one carried. */
	if (e->imm != (uint32_t)seq || !recv_len_ok(g, f, p, seq, len)) {
		f->verify_errors++;
		return;
	}
	if (!p->verify)
		return;
	if (mrcd_gen_check(dst, len, f->rx_id, seq)) {
		f->verified_msgs++;
		f->verified_bytes += len;
	} else {
		f->verify_errors++;
	}
}

/* ---- histogram ---- */

static unsigned int
bucket(uint64_t v)
{
	if (v < MRCD_HIST_SUB)
		return (unsigned int)v;
	unsigned int e = 63u - (unsigned int)__builtin_clzll(v); /* v in [2^e, 2^(e+1)) */

	return (e - MRCD_HIST_SUB_BITS + 1) * MRCD_HIST_SUB +
	       (unsigned int)((v >> (e - MRCD_HIST_SUB_BITS)) & (MRCD_HIST_SUB - 1));
}

/*
 * Bucket b holds [lower(b), lower(b) + width(b)): exact below MRCD_HIST_SUB,
 * then 1/MRCD_HIST_SUB of a power of two.
 */
static uint64_t
bucket_lower(unsigned int b)
{
	if (b < MRCD_HIST_SUB)
		return b;
	unsigned int e = b / MRCD_HIST_SUB + MRCD_HIST_SUB_BITS - 1, s = b % MRCD_HIST_SUB;

	return (uint64_t)(MRCD_HIST_SUB + s) << (e - MRCD_HIST_SUB_BITS);
}

static uint64_t
bucket_width(unsigned int b)
{
	return b < MRCD_HIST_SUB ? 1 : UINT64_C(1) << (b / MRCD_HIST_SUB - 1);
}

void
mrcd_hist_add(struct mrcd_hist *h, uint64_t ns)
{
	h->b[RTE_MIN(bucket(ns), (unsigned int)MRCD_HIST_BUCKETS - 1)]++;
	h->n++;
	h->max_ns = RTE_MAX(h->max_ns, ns);
}

void
mrcd_hist_merge(struct mrcd_hist *to, const struct mrcd_hist *from)
{
	for (unsigned int i = 0; i < MRCD_HIST_BUCKETS; i++)
		to->b[i] += from->b[i];
	to->n += from->n;
	to->max_ns = RTE_MAX(to->max_ns, from->max_ns);
}

uint64_t
mrcd_hist_pct(const struct mrcd_hist *h, double pct)
{
	uint64_t want = (uint64_t)((double)h->n * pct / 100.0 + 0.5), seen = 0;

	if (h->n == 0)
		return 0;
	want = RTE_MAX(want, (uint64_t)1);
	for (unsigned int i = 0; i < MRCD_HIST_BUCKETS; i++) {
		const uint64_t before = seen;

		seen += h->b[i];
		if (seen < want)
			continue;
		/*
		 * The samples of a bucket are taken as spread evenly over it (up to
		 * max_ns in the top one): the k-th of c reads lo + span x (k - 1/2)
		 * / c. A bucket's upper edge would read half a bucket high on
		 * average; this has no such bias and is exact for evenly spread
		 * samples. Samples bunched at one end of a bucket can still put it
		 * up to a bucket width (1/MRCD_HIST_SUB) off.
		 */
		const uint64_t lo = bucket_lower(i);
		const uint64_t top = lo < h->max_ns ? h->max_ns + 1 - lo : 1;
		const uint64_t span = RTE_MIN(bucket_width(i), top);
		const double at = ((double)(want - before) - 0.5) / (double)h->b[i];

		return RTE_MIN(lo + (uint64_t)(at * (double)span), h->max_ns);
	}
	return h->max_ns;
}
