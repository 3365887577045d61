/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#include <stdlib.h>
#include <string.h>

#include "mrc_test_mbuf.h"

struct rte_mbuf *
mrc_test_mbuf_alloc(uint16_t headroom, uint16_t room)
{
	/* rte_mbuf is cache-line aligned: keep it so under UBSan. */
	size_t buf_len = (size_t)headroom + room;
	size_t total = RTE_ALIGN_CEIL(sizeof(struct rte_mbuf) + buf_len, RTE_CACHE_LINE_SIZE);
	struct rte_mbuf *m = aligned_alloc(RTE_CACHE_LINE_SIZE, total);

	if (m == NULL)
		return NULL;
	memset(m, 0, sizeof(*m));
	m->buf_addr = (char *)(m + 1);
	m->buf_len = (uint16_t)buf_len;
	m->data_off = headroom;
	m->nb_segs = 1;
	m->next = NULL;
	m->pool = NULL;
	rte_mbuf_refcnt_set(m, 1);
	return m;
}

void
mrc_test_mbuf_chain(struct rte_mbuf *head, struct rte_mbuf *tail)
{
	struct rte_mbuf *last = rte_pktmbuf_lastseg(head);

	last->next = tail;
	head->nb_segs += tail->nb_segs;
	head->pkt_len += tail->pkt_len;
}

struct rte_mbuf *
mrc_test_mbuf_from(
	const void *data, size_t len, const size_t *cuts, unsigned int n_cuts, uint16_t headroom)
{
	const uint8_t *p = data;
	struct rte_mbuf *head = NULL;
	size_t start = 0;

	for (unsigned int i = 0; i <= n_cuts; i++) {
		size_t end = i < n_cuts ? cuts[i] : len;

		if (end < start || end > len || end - start > (size_t)(UINT16_MAX - headroom))
			goto fail;
		struct rte_mbuf *seg = mrc_test_mbuf_alloc(headroom, (uint16_t)(end - start));
		if (seg == NULL)
			goto fail;
		memcpy(rte_pktmbuf_mtod(seg, uint8_t *), p + start, end - start);
		seg->data_len = (uint16_t)(end - start);
		seg->pkt_len = seg->data_len;
		if (head == NULL)
			head = seg;
		else
			mrc_test_mbuf_chain(head, seg);
		start = end;
	}
	return head;
fail:
	mrc_test_mbuf_free(head);
	return NULL;
}

size_t
mrc_test_mbuf_flatten(const struct rte_mbuf *m, void *out, size_t cap)
{
	size_t off = 0;
	uint8_t *o = out;

	for (const struct rte_mbuf *s = m; s != NULL; s = s->next) {
		size_t n = s->data_len;

		if (off + n > cap)
			n = off < cap ? cap - off : 0;
		memcpy(o + off, rte_pktmbuf_mtod(s, const uint8_t *), n);
		off += s->data_len;
	}
	return m->pkt_len;
}

void
mrc_test_mbuf_free(struct rte_mbuf *m)
{
	while (m != NULL) {
		struct rte_mbuf *next = m->next;

		free(m);
		m = next;
	}
}
