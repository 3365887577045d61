/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: the worker lcores (a receiver's completions); the summary reads
 * the result after they stopped. See mrcd_gaps.h.
 */

#include "mrcd_gaps.h"

void
mrcd_gaps_add(struct mrcd_gaps *g, uint64_t now_tsc)
{
	const uint64_t last = g->last_tsc;
	uint64_t len;
	unsigned int i;

	g->last_tsc = now_tsc;
	if (last == 0 || now_tsc <= last)
		return;
	len = now_tsc - last;
	/* Nearly every message ends here: the gap is no longer than the shortest kept. */
	if (g->n == MRCD_GAPS && len <= g->len_tsc[MRCD_GAPS - 1])
		return;
	i = g->n < MRCD_GAPS ? g->n++ : MRCD_GAPS - 1;
	for (; i > 0 && g->len_tsc[i - 1] < len; i--) {
		g->len_tsc[i] = g->len_tsc[i - 1];
		g->end_tsc[i] = g->end_tsc[i - 1];
	}
	g->len_tsc[i] = len;
	g->end_tsc[i] = now_tsc;
}
