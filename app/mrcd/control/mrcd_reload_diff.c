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
	/* Every key but pattern, incast_target and qps_per_peer: they shape each flow. */
	if (now->msg_kb != next->msg_kb)
		snprintf(what, len, "msg_kb = %u -> %u", now->msg_kb, next->msg_kb);
	else if (now->outstanding != next->outstanding)
		snprintf(what, len, "outstanding = %u -> %u", now->outstanding, next->outstanding);
	else if (now->rate_gbps != next->rate_gbps)
		snprintf(what, len, "rate_gbps = %g -> %g", now->rate_gbps, next->rate_gbps);
	else if (now->messages != next->messages)
		snprintf(what, len, "messages = %llu -> %llu", (unsigned long long)now->messages,
			(unsigned long long)next->messages);
	else if (now->active_flows != next->active_flows)
		snprintf(what, len, "active_flows = %u -> %u", now->active_flows,
			next->active_flows);
	else if (now->verify != next->verify)
		snprintf(what, len, "verify = %s -> %s", now->verify ? "true" : "false",
			next->verify ? "true" : "false");
	else if (now->opcode != next->opcode)
		snprintf(what, len, "opcode = %s -> %s",
			now->opcode == MRCD_OP_WRITE ? "write" : "write_imm",
			next->opcode == MRCD_OP_WRITE ? "write" : "write_imm");
	else if (strcmp(now->size_mix, next->size_mix) != 0)
		snprintf(what, len, "size_mix = '%s' -> '%s'", now->size_mix, next->size_mix);
	/* Flows made and destroyed on a reload count on the profiles the run started with. */
	else if (now->ev_profile != next->ev_profile || now->cc_profile != next->cc_profile)
		snprintf(what, len, "ev_profile, cc_profile = %u, %u -> %u, %u", now->ev_profile,
			now->cc_profile, next->ev_profile, next->cc_profile);
	else
		return 0;
	return 1;
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
