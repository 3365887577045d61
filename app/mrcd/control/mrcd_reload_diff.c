/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: the main lcore, on SIGHUP (and the unit tests).
 *
 * The pure half of a reload (mrcd_reload.h): which profile keys may change
 * at run time, and which flows stay, go and come. No daemon state.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mrcd_reload.h"

int
mrcd_reload_profile_check(
	const struct mrcd_profile *now, const struct mrcd_profile *next, char *what, size_t len)
{
	/* now->max_kb is the slot size the run made at start (a reload keeps it). */
	if (next->max_kb > now->max_kb && next->n_mix > 0)
		snprintf(what, len,
			"size_mix = '%s' -> '%s': its largest message (%u KiB) would not fit a "
			"message slot, %u KiB, made at start",
			now->size_mix, next->size_mix, next->max_kb, now->max_kb);
	else if (next->max_kb > now->max_kb)
		snprintf(what, len,
			"msg_kb = %u -> %u: its largest message (%u KiB) would not fit a message "
			"slot, %u KiB, made at start",
			now->msg_kb, next->msg_kb, next->max_kb, now->max_kb);
	else if (now->outstanding != next->outstanding)
		snprintf(what, len,
			"outstanding = %u -> %u: each flow's message slots, and which one a "
			"message takes (its number mod outstanding), are laid out at start at "
			"both ends",
			now->outstanding, next->outstanding);
	else if (mrcd_flow_buffers(now) != mrcd_flow_buffers(next))
		snprintf(what, len,
			"buffers = %u -> %u: each flow's message slots, and which one a message "
			"takes (its number mod buffers), are laid out at start at both ends",
			mrcd_flow_buffers(now), mrcd_flow_buffers(next));
	else if (now->opcode != next->opcode)
		snprintf(what, len,
			"opcode = %s -> %s: the receivers count and place messages by their "
			"immediates, which a plain WRITE does not carry",
			now->opcode == MRCD_OP_WRITE ? "write" : "write_imm",
			next->opcode == MRCD_OP_WRITE ? "write" : "write_imm");
	else if ((now->active_flows == 0) != (next->active_flows == 0))
		snprintf(what, len,
			"active_flows = %u -> %u: turns are counted only in a run that starts "
			"with active_flows > 0 (from one count to another is applied)",
			now->active_flows, next->active_flows);
	/* Flows made and destroyed on a reload count on the profiles the run started with. */
	else if (now->ev_profile != next->ev_profile || now->cc_profile != next->cc_profile)
		snprintf(what, len,
			"ev_profile, cc_profile = %u, %u -> %u, %u: the flows' QPs are made "
			"with them, and kept",
			now->ev_profile, now->cc_profile, next->ev_profile, next->cc_profile);
	else
		return 0;
	return 1;
}

/* Append ", key old -> new" to what (at w). */
#define SAY(...)                                                                         \
	do {                                                                             \
		if (w < len)                                                             \
			w += (size_t)snprintf(what + w, len - w, "%s", n++ ? ", " : ""); \
		if (w < len)                                                             \
			w += (size_t)snprintf(what + w, len - w, __VA_ARGS__);           \
	} while (0)

unsigned int
mrcd_reload_profile_live(const struct mrcd_profile *now, const struct mrcd_profile *next,
	bool *shape, char *what, size_t len)
{
	unsigned int n = 0;
	size_t w = 0;

	if (len > 0)
		what[0] = '\0';
	if (now->msg_kb != next->msg_kb)
		SAY("msg_kb %u -> %u", now->msg_kb, next->msg_kb);
	if (strcmp(now->size_mix, next->size_mix) != 0)
		SAY("size_mix '%s' -> '%s'", now->size_mix, next->size_mix);
	if (now->verify != next->verify)
		SAY("verify %s -> %s", now->verify ? "true" : "false",
			next->verify ? "true" : "false");
	*shape = n > 0;
	if (now->rate_gbps != next->rate_gbps)
		SAY("rate_gbps %g -> %g", now->rate_gbps, next->rate_gbps);
	if (now->messages != next->messages)
		SAY("messages %llu -> %llu", (unsigned long long)now->messages,
			(unsigned long long)next->messages);
	if (now->active_flows != next->active_flows)
		SAY("active_flows %u -> %u", now->active_flows, next->active_flows);
	return n;
}

#undef SAY

bool
mrcd_reload_profile_flows(const struct mrcd_profile *now, const struct mrcd_profile *next)
{
	return now->pattern != next->pattern || now->incast_target != next->incast_target ||
	       now->qps_per_peer != next->qps_per_peer;
}

static uint64_t
key_word(const struct mrcd_flow_key *k)
{
	return (uint64_t)k->src << 32 | (uint64_t)k->dst << 16 | k->q;
}

struct ranked {
	uint64_t key;
	uint32_t idx;
};

static int
by_key(const void *a, const void *b)
{
	const uint64_t x = ((const struct ranked *)a)->key, y = ((const struct ranked *)b)->key;

	return x < y ? -1 : x > y;
}

static struct ranked *
sorted(const struct mrcd_flow_key *k, uint32_t n)
{
	struct ranked *r = malloc(((size_t)n + 1) * sizeof(*r));

	if (r == NULL)
		return NULL;
	for (uint32_t i = 0; i < n; i++)
		r[i] = (struct ranked){key_word(&k[i]), i};
	qsort(r, n, sizeof(*r), by_key);
	return r;
}

int
mrcd_reload_diff(const struct mrcd_flow_key *live, uint32_t n_live,
	const struct mrcd_flow_key *want, uint32_t n_want, uint8_t *keep, uint8_t *add)
{
	struct ranked *a = sorted(live, n_live), *b = sorted(want, n_want);
	uint32_t i = 0, j = 0;
	int changes = 0;

	if (a == NULL || b == NULL) {
		free(a);
		free(b);
		return -ENOMEM;
	}
	memset(keep, 0, n_live);
	memset(add, 0, n_want);
	/* A merge of the two sorted lists: equal keys stay, the rest go or come. */
	while (i < n_live || j < n_want) {
		if (j == n_want || (i < n_live && a[i].key < b[j].key)) {
			changes++; /* removed: keep stays 0 */
			i++;
		} else if (i == n_live || b[j].key < a[i].key) {
			add[b[j++].idx] = 1;
			changes++;
		} else {
			keep[a[i++].idx] = 1;
			j++;
		}
	}
	free(a);
	free(b);
	return changes;
}

int
mrcd_reload_number(struct mrcd_reload_count *c, const struct mrcd_flow_key *want, uint32_t n_want,
	const uint8_t *add, uint32_t max_pairs, const uint32_t *reserve,
	struct mrcd_reload_place *place, char *what, size_t len)
{
	struct mrcd_reload_count n = *c;
	int added = 0;

	/* In the list's order, so every process hands out the same numbers. */
	for (uint32_t j = 0; j < n_want; j++) {
		const struct mrcd_flow_key *k = &want[j];

		if (!add[j])
			continue;
		if (k->src >= MRCD_RELOAD_MAX_HOSTS || k->dst >= MRCD_RELOAD_MAX_HOSTS) {
			snprintf(what, len, "flow host %u -> %u: a host number past %u", k->src,
				k->dst, MRCD_RELOAD_MAX_HOSTS - 1);
			return -EINVAL;
		}
		if (n.pairs >= max_pairs) {
			snprintf(what, len,
				"flow host %u -> %u (q %u) would come across processes, and the "
				"%u QPN pairs for such flows are all taken in this run (never "
				"reused: restart to add more)",
				k->src, k->dst, k->q, max_pairs);
			return -ENOSPC;
		}
		for (int e = 0; e < 2; e++) {
			const unsigned int h = e == 0 ? k->src : k->dst;

			if (n.slots[h] >= reserve[h]) {
				snprintf(what, len,
					"flow host %u -> %u (q %u) would come across processes, "
					"and "
					"host %u's %u reserve message slots for such flows are all "
					"taken in this run (never reused: restart to add more)",
					k->src, k->dst, k->q, h, reserve[h]);
				return -ENOSPC;
			}
		}
		place[j] = (struct mrcd_reload_place){.pair = n.pairs++,
			.src_slot = n.slots[k->src]++,
			.dst_slot = n.slots[k->dst]++};
		added++;
	}
	*c = n;
	return added;
}
