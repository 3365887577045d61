/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/* Back-to-back ring ports with steered rx queues (mrc_nic_loop.h). */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_bus_vdev.h>
#include <rte_errno.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_cycles.h>
#include <rte_malloc.h>
#include <rte_ring.h>

#include "mrc_nic_loop.h"

/* Packets one tx callback handles per call; the rest are returned unsent. */
#define LOOP_TX_MAX 128u

/* What a tx queue's callback needs; its counters are its lcore's alone. */
struct loop_txq {
	struct mrc_nic_emu_counters cnt;
	struct rte_ring *sink;
	struct rte_ring *const *peer_rx;
	struct mrc_nic_capture *cap; /* NULL: none */
	const struct rte_eth_rxtx_callback *cb;
	uint16_t peer_port;
	uint16_t n_queues;
} __rte_cache_aligned;

struct mrc_nic_loop {
	struct mrc_nic_loop_cfg cfg;
	uint16_t port[2];
	bool have_port[2], started[2];
	char vdev[2][RTE_ETH_NAME_MAX_LEN];
	struct rte_ring *rx[2][MRC_NIC_MAX_QUEUES];   /* side s's rx queue rings */
	struct rte_ring *sink[2][MRC_NIC_MAX_QUEUES]; /* side s's tx queue rings (n > 1) */
	struct loop_txq txq[2][MRC_NIC_MAX_QUEUES];
};

static struct rte_ring *
ring_make(const char *name, uint32_t size, int socket, unsigned int flags)
{
	const ssize_t sz = rte_ring_get_memsize(rte_align32pow2(size + 1));
	struct rte_ring *r;

	if (sz < 0)
		return NULL;
	/* Our own memory: no memzone, no global name to collide on. */
	r = rte_zmalloc_socket(name, (size_t)sz, RTE_CACHE_LINE_SIZE, socket);
	if (r != NULL && rte_ring_init(r, name, size, flags | RING_F_EXACT_SZ) != 0) {
		rte_free(r);
		r = NULL;
	}
	return r;
}

static void
ring_free(struct rte_ring *r, bool free_mbufs)
{
	void *objs[64];
	unsigned int n;

	if (r == NULL)
		return;
	while ((n = rte_ring_dequeue_burst(r, objs, RTE_DIM(objs), NULL)) > 0)
		if (free_mbufs)
			rte_pktmbuf_free_bulk((struct rte_mbuf **)objs, n);
	rte_free(r);
}

/*
 * The receiving NIC, run by the sender's tx burst on tx queue `q`: put each
 * packet on the peer's rx ring its rule names, or its RSS hash picks. Returns how many were
 * delivered, those first in `pkts`; the ring PMD then puts their pointers
 * in the sink.
 */
static uint16_t
loop_tx_cb(uint16_t port, uint16_t q, struct rte_mbuf **pkts, uint16_t n, void *arg)
{
	struct loop_txq *t = arg;
	struct rte_mbuf *by_q[MRC_NIC_MAX_QUEUES][LOOP_TX_MAX];
	struct rte_mbuf *unsent[LOOP_TX_MAX];
	uint16_t queue[LOOP_TX_MAX], nb[MRC_NIC_MAX_QUEUES] = {0};
	const struct mrc_flow_rec_rules *rules = mrc_flow_rec_table(t->peer_port);
	void *gone[64];
	unsigned int n_sent = 0, n_unsent = 0;

	RTE_SET_USED(q);
	/* Pointers of packets delivered last time: already the peer's. */
	while (rte_ring_dequeue_burst(t->sink, gone, RTE_DIM(gone), NULL) == RTE_DIM(gone))
		;
	if (n > LOOP_TX_MAX)
		n = LOOP_TX_MAX; /* the rest stay the caller's, unsent */
	/* The sending NIC first: encap rules recorded for this port (doc/offload.md). */
	mrc_nic_emu_encap_port(port, pkts, n, &t->cnt);
	/* on the wire as the switch takes it: after the encap, before it shifts uSIDs */
	if (unlikely(t->cap != NULL))
		mrc_nic_capture_burst(t->cap, pkts, n, rte_rdtsc());
	for (uint16_t i = 0; i < n; i++)
		mrc_nic_emu_consume_switch_usids(pkts[i]);
	mrc_nic_emu_classify(rules, pkts, n, t->n_queues, queue, &t->cnt);
	for (uint16_t i = 0; i < n; i++)
		by_q[queue[i]][nb[queue[i]]++] = pkts[i];
	for (uint16_t k = 0; k < t->n_queues; k++) {
		unsigned int ok;

		if (nb[k] == 0)
			continue;
		ok = rte_ring_enqueue_burst(t->peer_rx[k], (void **)by_q[k], nb[k], NULL);
		/* Delivered ones to the front (their order no longer matters). */
		memcpy(pkts + n_sent, by_q[k], ok * sizeof(pkts[0]));
		n_sent += ok;
		memcpy(unsent + n_unsent, by_q[k] + ok, (nb[k] - ok) * sizeof(pkts[0]));
		n_unsent += nb[k] - ok;
	}
	if (unlikely(n_unsent > 0)) {
		t->cnt.rx_full_pkts += n_unsent;
		memcpy(pkts + n_sent, unsent, n_unsent * sizeof(pkts[0]));
	}
	return (uint16_t)n_sent;
}

static int
fail(const char **why, const char *msg, int code)
{
	if (why != NULL)
		*why = msg;
	rte_errno = code;
	return -code;
}

struct mrc_nic_loop *
mrc_nic_loop_create(const struct mrc_nic_loop_cfg *cfg, const char **why)
{
	const uint16_t nq = cfg->n_queues;
	/* One queue: the sender's enqueue and the receiver's dequeue, one lcore each. */
	const unsigned int rx_flags = nq == 1 ? RING_F_SP_ENQ | RING_F_SC_DEQ : RING_F_SC_DEQ;
	struct mrc_nic_loop *l;
	char name[RTE_RING_NAMESIZE];

	if (nq == 0 || nq > MRC_NIC_MAX_QUEUES || cfg->ring_size == 0 || cfg->name == NULL) {
		fail(why, "n_queues must be 1..16, ring_size > 0, a name", EINVAL);
		return NULL;
	}
	l = rte_zmalloc_socket("mrc_nic_loop", sizeof(*l), RTE_CACHE_LINE_SIZE, cfg->socket);
	if (l == NULL) {
		fail(why, "out of memory", ENOMEM);
		return NULL;
	}
	l->cfg = *cfg;
	for (unsigned int s = 0; s < 2; s++)
		for (uint16_t q = 0; q < nq; q++) {
			snprintf(name, sizeof(name), "nl%.16s%u_%u", cfg->name, s, q);
			l->rx[s][q] = ring_make(name, cfg->ring_size, cfg->socket, rx_flags);
			if (l->rx[s][q] == NULL)
				goto nomem;
			if (nq == 1)
				continue;
			snprintf(name, sizeof(name), "ns%.16s%u_%u", cfg->name, s, q);
			l->sink[s][q] = ring_make(
				name, 2 * LOOP_TX_MAX, cfg->socket, RING_F_SP_ENQ | RING_F_SC_DEQ);
			if (l->sink[s][q] == NULL)
				goto nomem;
		}
	for (unsigned int s = 0; s < 2; s++) {
		struct rte_ring **tx = nq == 1 ? &l->rx[s ^ 1][0] : l->sink[s];
		char pname[RTE_ETH_NAME_MAX_LEN];
		int id;

		if (snprintf(pname, sizeof(pname), "%s%c", cfg->name, 'a' + s) >=
				(int)sizeof(pname) - 10 ||
			snprintf(l->vdev[s], sizeof(l->vdev[s]), "net_ring_%s", pname) >=
				(int)sizeof(l->vdev[s])) {
			fail(why, "name too long", ENAMETOOLONG);
			goto out;
		}
		id = rte_eth_from_rings(pname, l->rx[s], nq, tx, nq, (unsigned int)cfg->socket);
		if (id < 0) {
			fail(why, "rte_eth_from_rings failed (no free port, or the name is taken)",
				rte_errno != 0 ? rte_errno : ENODEV);
			goto out;
		}
		l->port[s] = (uint16_t)id;
		l->have_port[s] = true;
	}
	return l;
nomem:
	fail(why, "out of memory for the rings", ENOMEM);
out : {
	const int e = rte_errno;

	mrc_nic_loop_free(l);
	rte_errno = e;
}
	return NULL;
}

uint16_t
mrc_nic_loop_port(const struct mrc_nic_loop *l, unsigned int side)
{
	return l->port[side & 1];
}

int
mrc_nic_loop_start(struct mrc_nic_loop *l, struct rte_mempool *pool[2], const char **why)
{
	const uint16_t nq = l->cfg.n_queues;
	const struct rte_eth_conf conf = {0};

	for (unsigned int s = 0; s < 2; s++) {
		const uint16_t pid = l->port[s];
		int rc = rte_eth_dev_configure(pid, nq, nq, &conf);

		for (uint16_t q = 0; rc == 0 && q < nq; q++) {
			rc = rte_eth_rx_queue_setup(
				pid, q, 0, (unsigned int)rte_eth_dev_socket_id(pid), NULL, pool[s]);
			if (rc == 0)
				rc = rte_eth_tx_queue_setup(
					pid, q, 0, (unsigned int)rte_eth_dev_socket_id(pid), NULL);
		}
		if (rc == 0)
			rc = rte_eth_dev_start(pid);
		if (rc != 0)
			return fail(why, "port configure, queue setup or start failed", -rc);
		l->started[s] = true;
	}
	if (nq == 1)
		return 0;
	for (unsigned int s = 0; s < 2; s++)
		for (uint16_t q = 0; q < nq; q++) {
			struct loop_txq *t = &l->txq[s][q];

			t->sink = l->sink[s][q];
			t->peer_rx = l->rx[s ^ 1];
			t->peer_port = l->port[s ^ 1];
			t->n_queues = nq;
			t->cap = l->cfg.capture;
			t->cb = rte_eth_add_tx_callback(l->port[s], q, loop_tx_cb, t);
			if (t->cb == NULL)
				return fail(why, "rte_eth_add_tx_callback failed", rte_errno);
		}
	return 0;
}

void
mrc_nic_loop_counters(
	const struct mrc_nic_loop *l, unsigned int side, struct mrc_nic_emu_counters *out)
{
	memset(out, 0, sizeof(*out));
	for (uint16_t q = 0; q < l->cfg.n_queues; q++)
		mrc_nic_emu_counters_add(out, &l->txq[(side & 1) ^ 1][q].cnt);
}

void
mrc_nic_loop_free(struct mrc_nic_loop *l)
{
	if (l == NULL)
		return;
	for (unsigned int s = 0; s < 2; s++) {
		for (uint16_t q = 0; q < MRC_NIC_MAX_QUEUES; q++) {
			struct loop_txq *t = &l->txq[s][q];

			/* The workers have stopped: nobody runs the callback any more. */
			if (t->cb != NULL && rte_eth_remove_tx_callback(l->port[s], q, t->cb) == 0)
				rte_free((void *)(uintptr_t)t->cb);
			t->cb = NULL;
		}
		if (l->have_port[s]) {
			if (l->started[s])
				(void)rte_eth_dev_stop(l->port[s]);
			(void)rte_eth_dev_close(l->port[s]);
			(void)rte_vdev_uninit(l->vdev[s]);
		}
	}
	for (unsigned int s = 0; s < 2; s++)
		for (uint16_t q = 0; q < MRC_NIC_MAX_QUEUES; q++) {
			ring_free(l->rx[s][q], true);
			ring_free(l->sink[s][q], false); /* pointers of delivered packets */
		}
	rte_free(l);
}
