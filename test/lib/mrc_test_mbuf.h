/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRC_TEST_MBUF_H
#define MRC_TEST_MBUF_H

/*
 * rte_mbuf chains over plain heap memory, with no EAL and no mempool, so that
 * wire tests and fuzz replays can cut a packet into segments at any byte and
 * parse it. Only the fields the packet helpers read are set up; such mbufs
 * must be released with mrc_test_mbuf_free(), never rte_pktmbuf_free().
 */

#include <stddef.h>
#include <stdint.h>

#include <rte_mbuf.h>

/* One empty segment with `headroom` bytes before the data and `room` after. */
struct rte_mbuf *mrc_test_mbuf_alloc(uint16_t headroom, uint16_t room);

/*
 * A chain holding `len` bytes of `data`, cut before each offset in `cuts`
 * (ascending, each in 1..len-1). Each segment keeps `headroom` bytes free.
 */
struct rte_mbuf *mrc_test_mbuf_from(
	const void *data, size_t len, const size_t *cuts, unsigned int n_cuts, uint16_t headroom);

/* Append a segment to the end of the chain (takes ownership). */
void mrc_test_mbuf_chain(struct rte_mbuf *head, struct rte_mbuf *tail);

/* Copy the whole packet into `out` (up to `cap` bytes); returns pkt_len. */
size_t mrc_test_mbuf_flatten(const struct rte_mbuf *m, void *out, size_t cap);

void mrc_test_mbuf_free(struct rte_mbuf *m);

#endif /* MRC_TEST_MBUF_H */
