/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * The worker's answer to a /mrc/qp query (app/mrcd/datapath/mrcd_query.c):
 * the ages it reports (since_progress, since_ack) are read on the clock the
 * QP's timestamps are on, its shard's run clock, so an lcore's earlier
 * stalls do not show up as a QP standing still. A worker that answers late,
 * after its asker gave up, leaves the answer another worker gave the next
 * asker as it was, and gives none to a next asker of its own.
 */

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_pause.h>

#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_ring.h>

#include "mrc_rel_tx.h"
#include "mrc_shard.h"
#include "mrc_test.h"
#include "mrc_test_qp.h"
#include "mrcd_daemon.h"
#include "mrcd_datapath.h"
#include "mrcd_stats.h"

#define US 1000ull

/*
 * A shard alone on a looped net_ring port owns host 0's QP. The lcore is
 * away for a second (a stall: the run clock leaves it out), then the QP
 * starts sending, and 7 us later the query is served: the QP last made
 * progress 7 us ago, not a second and 7 us.
 */
static int
test_ages_are_on_the_run_clock(void)
{
	static struct mrc_test_pair p;
	struct mrc_test_pair_cfg pc;
	struct mrcd_daemon *d = calloc(1, sizeof(*d));
	struct mrcd_worker w = {.n_units = 1, .units = {{.host = 0, .shard = 0}}};
	struct rte_ring *wire;
	struct rte_mbuf *m = NULL;
	const struct rte_eth_conf conf = {0};
	const char *why = NULL;
	struct mrc_shard *s;
	uint64_t sent_at;
	int port;
	int rc = mrc_test_eal_init("test_mrcd_query");

	if (rc != 0)
		return rc;
	MRC_T_ASSERT(d != NULL, "daemon");
	mrc_test_pair_cfg_defaults(&pc);
	pc.n_planes = 1;
	MRC_T_EQ(mrc_test_pair_create(&p, &pc), 0);
	wire = rte_ring_create("mqw", 256, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	MRC_T_ASSERT(wire != NULL, "ring");
	port = rte_eth_from_ring(wire);
	MRC_T_ASSERT(port >= 0, "net_ring port");
	MRC_T_EQ(rte_eth_dev_configure((uint16_t)port, 1, 1, &conf), 0);
	MRC_T_EQ(rte_eth_rx_queue_setup((uint16_t)port, 0, 64, SOCKET_ID_ANY, NULL, p.pool), 0);
	MRC_T_EQ(rte_eth_tx_queue_setup((uint16_t)port, 0, 64, SOCKET_ID_ANY, NULL), 0);
	MRC_T_EQ(rte_eth_dev_start((uint16_t)port), 0);

	struct mrc_shard_cfg c = {.n_planes = 1,
		.port_id = {(uint16_t)port},
		.qpn_base = 0x100,
		.max_qps = 4,
		.tsc_hz = MRC_TEST_HZ,
		.wire = p.wire,
		.socket = SOCKET_ID_ANY};

	s = mrc_shard_create(&c, p.now, &why);
	MRC_T_ASSERT(s != NULL, "shard: %s", why);
	MRC_T_EQ(mrc_shard_add_qp(s, p.h[0].qp, p.now), 0);
	for (int k = 0; k < 100; k++) {
		p.now += US;
		mrc_shard_iterate(s, p.now, &p.rand);
	}
	p.now += 1000000 * US; /* the stall */
	mrc_shard_iterate(s, p.now, &p.rand);
	MRC_T_EQ(mrc_shard_counters(s)->stalls, 1);
	mrc_test_fill(&p.h[0], 0, 4096, 3);
	MRC_T_EQ(mrc_qp_post_write(p.h[0].qp, 1, p.h[0].mem, 4096, p.h[0].key,
			 (uint64_t)(uintptr_t)p.h[1].mem, p.h[1].key, false, 0),
		0);
	p.now += US;
	sent_at = p.now;
	mrc_shard_iterate(s, p.now, &p.rand);
	MRC_T_ASSERT(mrc_rel_tx_inflight(mrc_qp_rel_tx(p.h[0].qp)) > 0, "it sent");
	p.now += 7 * US;

	d->host[0].n_shards = 1;
	d->host[0].shard[0].rt = s;
	w.query.host = 0;
	w.query.qp = p.h[0].qp;
	w.query.ask = 2; /* a request's number is even */
	mrcd_query_serve(d, &w, p.now);
	MRC_T_EQ(w.query.done, 2);
	MRC_T_ASSERT(w.query.has_rel, "the sender's state is in the answer");
	MRC_T_U64_EQ(w.query.rel.since_progress_tsc, p.now - sent_at);

	MRC_T_EQ(mrc_shard_del_qp(s, p.h[0].qp), 0);
	mrc_shard_free(s);
	while (rte_ring_dequeue(wire, (void **)&m) == 0)
		rte_pktmbuf_free(m);
	mrc_test_pair_destroy(&p);
	free(d);
	return MRC_TEST_OK;
}

/*
 * Two hosts with a shard each on one looped net_ring port, each shard with
 * one QP: host 0's QP has sent, host 1's has not, so their counters differ.
 * Worker 0 runs host 0's shard; host 1's is worker 1's, or worker 0's too.
 */
struct two_hosts {
	struct mrc_test_pair p;
	struct mrcd_daemon *d;
	struct rte_ring *wire;
	struct mrc_shard *s[2];
};

static int
two_hosts_create(struct two_hosts *t, const char *ring, bool one_worker)
{
	struct mrc_test_pair_cfg pc;
	const struct rte_eth_conf conf = {0};
	const char *why = NULL;
	int port;
	int rc = mrc_test_eal_init("test_mrcd_query");

	if (rc != 0)
		return rc;
	memset(t, 0, sizeof(*t));
	t->d = calloc(1, sizeof(*t->d));
	MRC_T_ASSERT(t->d != NULL, "daemon");
	mrc_test_pair_cfg_defaults(&pc);
	pc.n_planes = 1;
	MRC_T_EQ(mrc_test_pair_create(&t->p, &pc), 0);
	t->wire = rte_ring_create(ring, 256, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	MRC_T_ASSERT(t->wire != NULL, "ring");
	port = rte_eth_from_ring(t->wire);
	MRC_T_ASSERT(port >= 0, "net_ring port");
	MRC_T_EQ(rte_eth_dev_configure((uint16_t)port, 1, 1, &conf), 0);
	MRC_T_EQ(rte_eth_rx_queue_setup((uint16_t)port, 0, 64, SOCKET_ID_ANY, NULL, t->p.pool), 0);
	MRC_T_EQ(rte_eth_tx_queue_setup((uint16_t)port, 0, 64, SOCKET_ID_ANY, NULL), 0);
	MRC_T_EQ(rte_eth_dev_start((uint16_t)port), 0);

	const struct mrc_shard_cfg c = {.n_planes = 1,
		.port_id = {(uint16_t)port},
		.qpn_base = 0x100,
		.max_qps = 4,
		.tsc_hz = MRC_TEST_HZ,
		.wire = t->p.wire,
		.socket = SOCKET_ID_ANY};
	struct mrcd_daemon *d = t->d;

	d->n_hosts = 2;
	d->n_workers = one_worker ? 1 : 2;
	d->hz = rte_get_tsc_hz();
	for (unsigned int h = 0; h < 2; h++) {
		struct mrcd_worker *w = &d->workers[one_worker ? 0 : h];

		t->s[h] = mrc_shard_create(&c, t->p.now, &why);
		MRC_T_ASSERT(t->s[h] != NULL, "shard: %s", why);
		MRC_T_EQ(mrc_shard_add_qp(t->s[h], t->p.h[h].qp, t->p.now), 0);
		d->host[h].n_shards = 1;
		d->host[h].shard[0].rt = t->s[h];
		d->host[h].shard[0].worker = (unsigned int)(w - d->workers);
		w->d = d;
		w->units[w->n_units++] = (struct mrcd_unit){.host = (uint16_t)h, .shard = 0};
	}
	mrc_test_fill(&t->p.h[0], 0, 4096, 3);
	MRC_T_EQ(mrc_qp_post_write(t->p.h[0].qp, 1, t->p.h[0].mem, 4096, t->p.h[0].key,
			 (uint64_t)(uintptr_t)t->p.h[1].mem, t->p.h[1].key, false, 0),
		0);
	for (int k = 0; k < 10; k++) {
		t->p.now += US;
		mrc_shard_iterate(t->s[0], t->p.now, &t->p.rand);
	}
	MRC_T_ASSERT(mrc_qp_counters(t->p.h[0].qp)->tx_data_pkts > 0, "host 0's QP sent");
	MRC_T_U64_EQ(mrc_qp_counters(t->p.h[1].qp)->tx_data_pkts, 0);
	return MRC_TEST_OK;
}

static void
two_hosts_free(struct two_hosts *t)
{
	struct rte_mbuf *m = NULL;

	for (unsigned int h = 0; h < 2; h++) {
		mrc_shard_del_qp(t->s[h], t->p.h[h].qp);
		mrc_shard_free(t->s[h]);
	}
	while (rte_ring_dequeue(t->wire, (void **)&m) == 0)
		rte_pktmbuf_free(m);
	mrc_test_pair_destroy(&t->p);
	free(t->d);
}

/* A worker answering queries on a thread of its own, until told to stop. */
struct serve_loop {
	struct mrcd_daemon *d;
	struct mrcd_worker *w;
	int stop;
};

static void *
serve_loop(void *arg)
{
	struct serve_loop *l = arg;

	while (!__atomic_load_n(&l->stop, __ATOMIC_ACQUIRE)) {
		mrcd_query_serve(l->d, l->w, rte_rdtsc());
		rte_pause();
	}
	return NULL;
}

/*
 * An asker asks about host 0's QP; its worker takes the request and is
 * descheduled before it answers, and the asker gives up after 100 ms. The
 * next asker asks about host 1's QP and gets its worker's answer. Then the
 * first worker wakes and answers the request it took: the answer the second
 * asker holds is still host 1's QP's, and still says it answers the second
 * asker's request.
 */
static int
test_late_answer_leaves_another_alone(void)
{
	static struct two_hosts t;
	struct serve_loop loop;
	const struct mrcd_qp_query *q;
	struct mrcd_query_job late;
	struct mrcd_daemon *d;
	pthread_t th;
	uint32_t done;

	MRC_T_RUN(two_hosts_create(&t, "mqw2", false));
	d = t.d;
	/* The first asker gives up; host 0's worker took its request meanwhile. */
	MRC_T_ASSERT(mrcd_query_qp(d, 0, t.p.h[0].qp) == NULL, "nobody answered");
	MRC_T_ASSERT(mrcd_query_take(d, &d->workers[0], &late), "host 0's worker took it");
	/* The second asker, answered by host 1's worker. */
	loop = (struct serve_loop){.d = d, .w = &d->workers[1], .stop = 0};
	MRC_T_EQ(pthread_create(&th, NULL, serve_loop, &loop), 0);
	q = mrcd_query_qp(d, 1, t.p.h[1].qp);
	__atomic_store_n(&loop.stop, 1, __ATOMIC_RELEASE);
	MRC_T_EQ(pthread_join(th, NULL), 0);
	MRC_T_ASSERT(q != NULL, "host 1's worker answered");
	done = __atomic_load_n(&q->done, __ATOMIC_ACQUIRE);
	MRC_T_U64_EQ(q->counters.tx_data_pkts, 0);
	MRC_T_MEMEQ(&q->counters, mrc_qp_counters(t.p.h[1].qp), sizeof(q->counters));
	/* Host 0's worker wakes and answers the request it took. */
	mrcd_query_answer(&late, t.p.now);
	MRC_T_U64_EQ(q->counters.tx_data_pkts, 0);
	MRC_T_MEMEQ(&q->counters, mrc_qp_counters(t.p.h[1].qp), sizeof(q->counters));
	MRC_T_EQ(__atomic_load_n(&q->done, __ATOMIC_ACQUIRE), done);
	mrcd_query_release();
	two_hosts_free(&t);
	return MRC_TEST_OK;
}

/* An asker on a thread of its own: what it asked, and the answer. */
struct asker {
	struct mrcd_daemon *d;
	unsigned int host;
	const struct mrc_qp *qp;
	const struct mrcd_qp_query *answer;
	struct mrc_qp_counters counters; /* the answer's, copied before its release */
};

static void *
ask(void *arg)
{
	struct asker *a = arg;

	a->answer = mrcd_query_qp(a->d, a->host, a->qp);
	if (a->answer != NULL) {
		a->counters = a->answer->counters;
		mrcd_query_release();
	}
	return NULL;
}

/*
 * One worker runs both hosts' shards. It takes a request about host 0's QP
 * and is descheduled; the asker gives up, and the next asks the same worker
 * about host 1's QP. The worker wakes and finishes the old copy: that is no
 * answer to the new request (done does not name it), and the worker's next
 * tick answers it with host 1's QP.
 */
static int
test_late_answer_is_not_the_next_askers(void)
{
	static struct two_hosts t;
	struct asker a;
	struct mrcd_query_job late;
	struct mrcd_daemon *d;
	struct mrcd_qp_query *slot;
	pthread_t th;
	uint32_t old_done;

	MRC_T_RUN(two_hosts_create(&t, "mqw3", true));
	d = t.d;
	slot = &d->workers[0].query;
	MRC_T_ASSERT(mrcd_query_qp(d, 0, t.p.h[0].qp) == NULL, "nobody answered");
	MRC_T_ASSERT(mrcd_query_take(d, &d->workers[0], &late), "the worker took it");
	old_done = __atomic_load_n(&slot->done, __ATOMIC_ACQUIRE);
	a = (struct asker){.d = d, .host = 1, .qp = t.p.h[1].qp};
	MRC_T_EQ(pthread_create(&th, NULL, ask, &a), 0);
	/* The second asker's request is in once ask moved past the late one's. */
	while (__atomic_load_n(&slot->ask, __ATOMIC_ACQUIRE) == late.ask ||
		(__atomic_load_n(&slot->ask, __ATOMIC_ACQUIRE) & 1) != 0)
		rte_pause();
	mrcd_query_answer(&late, t.p.now);
	MRC_T_EQ(__atomic_load_n(&slot->done, __ATOMIC_ACQUIRE), old_done);
	mrcd_query_serve(d, &d->workers[0], t.p.now);
	MRC_T_EQ(pthread_join(th, NULL), 0);
	MRC_T_ASSERT(a.answer == slot, "the worker answered in its slot");
	MRC_T_U64_EQ(a.counters.tx_data_pkts, 0);
	MRC_T_MEMEQ(&a.counters, mrc_qp_counters(t.p.h[1].qp), sizeof(a.counters));
	two_hosts_free(&t);
	return MRC_TEST_OK;
}

static const struct mrc_test_case cases[] = {
	MRC_TEST_CASE(test_ages_are_on_the_run_clock),
	MRC_TEST_CASE(test_late_answer_leaves_another_alone),
	MRC_TEST_CASE(test_late_answer_is_not_the_next_askers),
};

MRC_TEST_MAIN("mrcd_query", cases)
