/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * The engine (lib/host): a shard per host over the emulated fabric's ethdev
 * ports on a fake clock (two hosts, 8 planes, traffic both ways, plane 3
 * dying mid-run, seen only through the ports' link status as a daemon's
 * control thread sees it; with and without the NIC tx room rule), and a
 * shard alone on a looped net_ring port for what it owns, hands off and
 * takes through its request ring.
 */

#include <inttypes.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "mrc_fabric.h"
#include "mrc_test.h"
#include "mrc_test_qp.h"
#include <rte_eth_ring.h>
#include <rte_ring.h>

#include "mrc_rel_tx.h"
#include "mrc_shard.h"
#include "mrc_shard_priv.h"
#include "mrc_trk_pool.h"
#include "mrc_test_pkts.h"

#define US  1000ull
#define MSG (256u * 1024)

/*
 * The per-path counters the shard publishes add up to the QP's own counts of
 * the same events (the shard's only QP): every data packet, resend and probe
 * is counted on exactly one path, and every RTT sample lands in one bucket.
 */
static int
check_paths(struct mrc_shard *s, struct mrc_qp *qp, uint64_t now)
{
	static struct mrc_path_counters pc[MRC_SHARD_MAX_PLANES * (MRC_PATH_MAX_T1 + 1)];
	const struct mrc_qp_counters *q = mrc_qp_counters(qp);
	uint64_t data = 0, bytes = 0, retx = 0, probes = 0, samples = 0, hist = 0;
	uint64_t sum_ns = 0, lo_ns = 0, hi_ns = 0; /* the RTT sum, and what the buckets bound */
	unsigned int n_planes, n_t1, n;

	MRC_T_EQ(mrc_shard_paths_snapshot(s, pc, 1, &n_planes, &n_t1), 8 * 5); /* too small */
	mrc_shard_publish(s, now);
	n = mrc_shard_paths_snapshot(s, pc, RTE_DIM(pc), &n_planes, &n_t1);
	MRC_T_EQ(n, 8 * 5);
	MRC_T_EQ(n_planes, 8);
	MRC_T_EQ(n_t1, 4);
	for (unsigned int i = 0; i < n; i++) {
		data += pc[i].tx_data_pkts;
		bytes += pc[i].tx_data_bytes;
		retx += pc[i].tx_retx_pkts;
		probes += pc[i].tx_probes;
		samples += pc[i].rtt_samples;
		sum_ns += pc[i].rtt_sum_ns;
		for (unsigned int b = 0; b < MRC_PATH_RTT_BUCKETS; b++) {
			hist += pc[i].rtt_hist[b];
			lo_ns += pc[i].rtt_hist[b] * (b == 0 ? 0 : 1000ull << (b - 1));
			hi_ns +=
				pc[i].rtt_hist[b] *
				(b + 1 < MRC_PATH_RTT_BUCKETS ? 1000ull << b : UINT64_MAX / 2 / 64);
		}
	}
	MRC_T_EQ(data, q->tx_data_pkts);
	MRC_T_EQ(bytes, q->tx_data_bytes);
	MRC_T_EQ(retx, q->tx_retx_pkts);
	MRC_T_EQ(probes, q->tx_probes + q->tx_ev_probes);
	MRC_T_ASSERT(samples > 0, "RTT samples on the paths");
	MRC_T_EQ(hist, samples);
	/* Every sample's nanoseconds are in the sum: it lies within what its buckets bound. */
	MRC_T_ASSERT(sum_ns >= lo_ns && sum_ns < hi_ns, "RTT sum %llu ns outside [%llu, %llu)",
		(unsigned long long)sum_ns, (unsigned long long)lo_ns, (unsigned long long)hi_ns);
	return MRC_TEST_OK;
}

static int
run_pair(bool kill_plane, bool nic_room)
{
	static struct mrc_test_pair p;
	struct mrc_test_pair_cfg pc;
	struct mrc_fabric_cfg fc;
	struct mrc_fabric *fab;
	struct mrc_shard *hosts[2];
	const char *why = NULL;
	unsigned int done[2] = {0, 0}, posted = 0;
	uint32_t masks_seen = 0xff;
	int rc = mrc_test_eal_init("test_shard");

	if (rc != 0)
		return rc;
	mrc_test_pair_cfg_defaults(&pc);
	pc.mem_len = 8u << 20;
	MRC_T_EQ(mrc_test_pair_create(&p, &pc), 0);
	mrc_fabric_cfg_defaults(&fc);
	fc.tsc_hz = MRC_TEST_HZ;
	fab = mrc_fabric_create(&fc, &why);
	MRC_T_ASSERT(fab != NULL, "fabric: %s", why);
	MRC_T_EQ(mrc_fabric_start_ports(fab, p.pool), 0);
	for (int i = 0; i < 2; i++) {
		struct mrc_shard_cfg hc = {.host_id = (uint8_t)i,
			.n_planes = 8,
			.max_qps = 4,
			.qpn_base = 0x100,
			.tsc_hz = MRC_TEST_HZ,
			.wire = p.wire,
			.socket = SOCKET_ID_ANY,
			.path_t1s = 4};

		for (unsigned int pl = 0; pl < 8; pl++)
			hc.port_id[pl] = mrc_fabric_port(fab, (unsigned int)i, pl);
		if (nic_room) /* 2.56 us at the fabric's default link rate */
			hc.tx_backlog = mrc_fabric_tx_backlog_cb, hc.tx_backlog_ctx = fab,
			hc.tx_backlog_host = (unsigned int)i,
			hc.tx_room_bytes = (uint64_t)(2560 * fc.link_gbps / 8);
		hosts[i] = mrc_shard_create(&hc, p.now, &why);
		MRC_T_ASSERT(hosts[i] != NULL, "host: %s", why);
		MRC_T_EQ(mrc_shard_add_qp(hosts[i], p.h[i].qp, p.now), 0);
		MRC_T_EQ(mrc_shard_add_qp(hosts[i], p.h[i].qp, p.now), -EEXIST);
		MRC_T_EQ(mrc_shard_refresh_links(hosts[i]), 0xff);
	}
	/* 8 messages each way, in separate halves of each host's memory. */
	for (uint32_t k = 0; k < 8; k++, posted++)
		for (int i = 0; i < 2; i++) {
			struct mrc_test_host *s = &p.h[i], *r = &p.h[1 - i];
			size_t off = (size_t)i * (4u << 20) + k * MSG;

			mrc_test_fill(s, off, MSG, k + 100u * (uint32_t)i);
			MRC_T_EQ(mrc_qp_post_write(s->qp, k, s->mem + off, MSG, s->key,
					 (uint64_t)(uintptr_t)r->mem + off, r->key, k & 1, k),
				0);
		}
	uint64_t plane3_pkts_at_death = 0;

	for (int step = 0; step < 2000000 && (done[0] < posted || done[1] < posted); step++) {
		struct mrc_cqe e[32];

		p.now += 100;
		mrc_fabric_poll(fab, p.now);
		for (int i = 0; i < 2; i++)
			mrc_shard_iterate(hosts[i], p.now, &p.rand);
		if (step % 10 == 0) /* the control thread reads link status every microsecond */
			for (int i = 0; i < 2; i++) {
				uint32_t m = mrc_shard_refresh_links(hosts[i]);

				masks_seen &= m;
				/* Port status to the peer: its QP stops using our dead plane too.
				 */
				mrc_qp_set_peer_planes(p.h[1 - i].qp, m);
			}
		if (kill_plane && p.now == 20 * US) {
			MRC_T_EQ(mrc_fabric_set_plane(fab, 3, MRC_FABRIC_DOWN), 0);
			plane3_pkts_at_death = mrc_shard_counters(hosts[0])->tx_pkts +
					       mrc_shard_counters(hosts[1])->tx_pkts;
		}
		for (int i = 0; i < 2; i++) {
			unsigned int n;

			while ((n = mrc_cq_poll(p.h[i].cq, e, 32)) > 0)
				for (unsigned int k = 0; k < n; k++) {
					MRC_T_EQ(e[k].status, MRC_CQE_OK);
					if (e[k].opcode != MRC_CQE_RECV_IMM)
						done[i]++;
				}
		}
	}
	MRC_T_EQ(done[0], posted);
	MRC_T_EQ(done[1], posted);
	uint64_t early_at_done[2];

	for (int i = 0; i < 2; i++)
		early_at_done[i] = mrc_shard_counters(hosts[i])->timer_early;
	for (int i = 0; i < 2; i++) {
		size_t off = (size_t)i * (4u << 20);

		MRC_T_MEMEQ(p.h[1 - i].mem + off, p.h[i].mem + off, 8 * MSG);
		MRC_T_EQ(mrc_shard_counters(hosts[i])->rx_unknown_qpn, 0);
		MRC_T_EQ(mrc_shard_counters(hosts[i])->tx_dropped, 0);
		const struct mrc_wire_rx_stats *vs = mrc_shard_rx_verdicts(hosts[i]);

		for (int r = 1; r < MRC_WIRE_REJECT_MAX; r++)
			MRC_T_EQ(vs->pkts[r], 0);
		MRC_T_EQ(mrc_qp_state(p.h[i].qp), MRC_QP_RTS);
	}
	if (kill_plane) {
		MRC_T_EQ(masks_seen, 0xff & ~(1u << 3)); /* the runtime saw plane 3 go */
		MRC_T_ASSERT(plane3_pkts_at_death > 0, "traffic was flowing when it died");
	}
	printf("  %s%s: 2 x 2 MiB done at %.1f us; host 0 sent %llu, staged %llu, resent %llu\n",
		kill_plane ? "plane 3 dies at 20 us" : "all planes up",
		nic_room ? ", NIC tx room" : "", p.now / 1e3,
		(unsigned long long)mrc_shard_counters(hosts[0])->tx_pkts,
		(unsigned long long)mrc_shard_counters(hosts[0])->tx_staged,
		(unsigned long long)mrc_qp_counters(p.h[0].qp)->tx_retx_pkts);

	/* Let the last SACKs land, then everything must be back in the pool. */
	for (int step = 0; step < 2000; step++) {
		p.now += 100;
		mrc_fabric_poll(fab, p.now);
		for (int i = 0; i < 2; i++)
			mrc_shard_iterate(hosts[i], p.now, &p.rand);
	}
	for (int i = 0; i < 2; i++)
		MRC_T_EQ(check_paths(hosts[i], p.h[i].qp, p.now), MRC_TEST_OK);
	/*
	 * The timer armed at a QP's first deadline fires after its packets were
	 * acknowledged: it re-arms from the slot (or stops) without a poll.
	 */
	for (int i = 0; i < 2; i++)
		MRC_T_ASSERT(mrc_shard_counters(hosts[i])->timer_early > 0, "host %d: %llu early",
			i, (unsigned long long)mrc_shard_counters(hosts[i])->timer_early);
	/*
	 * Once every message was acknowledged, nothing was left to wait for:
	 * the timer left the wheel then, and never fired for nothing since
	 * (read back cold, a wheel slot's timers are a chain of misses).
	 */
	for (int step = 0; step < 500; step++) {
		p.now += 100000;
		mrc_fabric_poll(fab, p.now);
		for (int i = 0; i < 2; i++)
			mrc_shard_iterate(hosts[i], p.now, &p.rand);
	}
	for (int i = 0; i < 2; i++)
		MRC_T_EQ(mrc_shard_counters(hosts[i])->timer_early, early_at_done[i]);
	for (int i = 0; i < 2; i++) {
		MRC_T_EQ(mrc_shard_del_qp(hosts[i], p.h[i].qp), 0);
		MRC_T_EQ(mrc_shard_del_qp(hosts[i], p.h[i].qp), -ENOENT);
		mrc_shard_free(hosts[i]);
	}
	mrc_fabric_free(fab);
	MRC_T_EQ(rte_mempool_avail_count(p.pool), p.pool->size);
	mrc_test_pair_destroy(&p);
	return MRC_TEST_OK;
}

/* RTT buckets: below 1 us, then one per power of two of microseconds, the last unbounded. */
static int
test_path_rtt_buckets(void)
{
	MRC_T_EQ(mrc_path_rtt_bucket(0), 0);
	MRC_T_EQ(mrc_path_rtt_bucket(999), 0);
	MRC_T_EQ(mrc_path_rtt_bucket(1000), 1);
	MRC_T_EQ(mrc_path_rtt_bucket(1999), 1);
	MRC_T_EQ(mrc_path_rtt_bucket(2000), 2);
	MRC_T_EQ(mrc_path_rtt_bucket(12000), 4); /* [8, 16) us */
	MRC_T_EQ(mrc_path_rtt_bucket(16383999), 14);
	MRC_T_EQ(mrc_path_rtt_bucket(16384000), 15);
	MRC_T_EQ(mrc_path_rtt_bucket(UINT64_MAX), 15);
	return MRC_TEST_OK;
}

static int
test_two_hosts_over_fabric(void)
{
	return run_pair(false, false);
}

static int
test_plane_dies_seen_through_link_status(void)
{
	return run_pair(true, false);
}

static int
test_two_hosts_with_nic_tx_room(void)
{
	return run_pair(false, true);
}

static int
test_plane_dies_with_nic_tx_room(void)
{
	return run_pair(true, true);
}

/*
 * A shard alone on a net_ring port whose ring loops tx to rx: packets put
 * on the ring are what the shard receives.
 */
struct lone {
	struct mrc_test_pair p;
	struct rte_ring *wire, *handoff, *requests;
	struct rte_ring *exception, *ctl_tx; /* set before lone_make to give them to the shard */
	/* set before lone_make: NIC tx room in descriptors (0: none), and a port that reports
	 * its descriptors through fake_desc_status */
	uint16_t tx_room_desc;
	bool desc_status;
	/* set before lone_make: QPNs whose QP may come at run time (cfg pending_qpn) */
	uint32_t pending_qpn, n_pending_qpns;
	/* set before lone_make: the shard's in-flight rings (0: none), and the pool
	 * the pair's QPs borrow theirs from (NULL: each owns one) */
	uint32_t trk_blocks;
	struct mrc_trk_pool *qp_trk;
	struct mrc_shard *s;
	struct mrc_wire_cfg wire_cfg;
	uint16_t port;
};

/*
 * What the fake NIC's tx ring holds: descriptors waiting to be sent. Its
 * descriptor status answers as a NIC does: the descriptor `offset` ahead of
 * the tail is still full when more than ring - offset wait.
 */
static uint16_t fake_waiting;

static int
fake_desc_status(void *txq, uint16_t offset)
{
	RTE_SET_USED(txq);
	return fake_waiting >= 64 - offset ? RTE_ETH_TX_DESC_FULL : RTE_ETH_TX_DESC_DONE;
}

static int
lone_make(struct lone *l, uint16_t n_shards, uint16_t index, bool handoff, bool requests)
{
	static unsigned int seq;
	struct mrc_test_pair_cfg pc;
	char name[32];
	const char *why = NULL;
	int port;
	int rc = mrc_test_eal_init("test_shard");

	if (rc != 0)
		return rc;
	mrc_test_pair_cfg_defaults(&pc);
	pc.n_planes = 1;
	pc.trk_pool = l->qp_trk;
	MRC_T_EQ(mrc_test_pair_create(&l->p, &pc), 0);
	seq++;
	snprintf(name, sizeof(name), "shw%u", seq);
	l->wire = rte_ring_create(name, 256, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	MRC_T_ASSERT(l->wire != NULL, "ring");
	port = rte_eth_from_ring(l->wire);
	MRC_T_ASSERT(port >= 0, "net_ring port");
	l->port = (uint16_t)port;
	{
		const struct rte_eth_conf conf = {0};

		MRC_T_EQ(rte_eth_dev_configure((uint16_t)port, 1, 1, &conf), 0);
		MRC_T_EQ(rte_eth_rx_queue_setup(
				 (uint16_t)port, 0, 64, SOCKET_ID_ANY, NULL, l->p.pool),
			0);
		MRC_T_EQ(rte_eth_tx_queue_setup((uint16_t)port, 0, 64, SOCKET_ID_ANY, NULL), 0);
		MRC_T_EQ(rte_eth_dev_start((uint16_t)port), 0);
		/* a NIC that reports its tx descriptors, as net_ring does not */
		if (l->desc_status)
			rte_eth_fp_ops[port].tx_descriptor_status = fake_desc_status;
	}
	snprintf(name, sizeof(name), "sho%u", seq);
	l->handoff = handoff ? rte_ring_create(name, 64, SOCKET_ID_ANY, 0) : NULL;
	snprintf(name, sizeof(name), "shr%u", seq);
	l->requests = requests ? rte_ring_create(name, 64, SOCKET_ID_ANY, 0) : NULL;

	struct mrc_shard_cfg c = {.n_planes = 1,
		.port_id = {(uint16_t)port},
		.qpn_base = 0x100,
		.max_qps = 8,
		.n_shards = n_shards,
		.shard_index = index,
		.tsc_hz = MRC_TEST_HZ,
		.wire = l->p.wire,
		.socket = SOCKET_ID_ANY,
		.handoff = l->handoff,
		.exception = l->exception,
		.ctl_tx = l->ctl_tx,
		.tx_ring_desc = {64},
		.tx_room_desc = {l->tx_room_desc},
		.pending_qpn = l->pending_qpn,
		.n_pending_qpns = l->n_pending_qpns,
		.trk_blocks = l->trk_blocks,
		.trk_block_bytes = l->trk_blocks > 0 ? mrc_qp_trk_block_bytes(&pc.attr) : 0,
		.requests = l->requests};

	l->wire_cfg = l->p.wire;
	l->s = mrc_shard_create(&c, l->p.now, &why);
	MRC_T_ASSERT(l->s != NULL, "shard: %s", why);
	return MRC_TEST_OK;
}

/* Free the shard and what its rings hold; every mbuf must then be back in the pool. */
static int
lone_free(struct lone *l)
{
	struct rte_mbuf *m = NULL;

	mrc_shard_free(l->s);
	while (l->handoff != NULL && rte_ring_dequeue(l->handoff, (void **)&m) == 0)
		rte_pktmbuf_free(m);
	while (rte_ring_dequeue(l->wire, (void **)&m) == 0)
		rte_pktmbuf_free(m);
	rte_ring_free(l->handoff);
	rte_ring_free(l->requests);
	MRC_T_EQ(rte_mempool_avail_count(l->p.pool), l->p.pool->size);
	mrc_test_pair_destroy(&l->p);
	return MRC_TEST_OK;
}

/* Put a sample of the catalogue, sent to `dqpn`, on `ring` (a port's rx ring). */
static int
put_sample(struct mrc_test_pair *p, struct rte_ring *ring, const char *sample, uint32_t dqpn)
{
	static uint8_t bytes[MRC_TEST_MAX_PKT];
	struct mrc_test_sample ts;
	struct rte_mbuf *m = NULL;
	size_t len = 0;
	char *dst;

	for (unsigned int i = 0; i < mrc_test_sample_count(); i++) {
		MRC_T_EQ(mrc_test_sample_get(i, &ts), 0);
		if (strcmp(ts.name, sample) == 0)
			break;
	}
	MRC_T_STREQ(ts.name, sample);
	ts.pkt.bth.dqpn = dqpn;
	len = mrc_test_sample_bytes(&ts, &p->wire, bytes, sizeof(bytes));
	MRC_T_ASSERT(len > 0, "sample %s built", sample);
	m = rte_pktmbuf_alloc(p->pool);
	MRC_T_ASSERT(m != NULL, "mbuf");
	dst = rte_pktmbuf_append(m, (uint16_t)len);
	MRC_T_ASSERT(dst != NULL, "room for %zu bytes", len);
	memcpy(dst, bytes, len);
	MRC_T_EQ(rte_ring_enqueue(ring, m), 0);
	return MRC_TEST_OK;
}

static int
lone_receive(struct lone *l, const char *sample, uint32_t dqpn)
{
	return put_sample(&l->p, l->wire, sample, dqpn);
}

static int
test_owns_only_its_share_of_qpns(void)
{
	static struct lone l;

	MRC_T_RUN(lone_make(&l, 2, 1, false, false));
	/* Shard 1 of 2 owns 0x101, 0x103, ...: h[0]'s QPN is 0x100, h[1]'s 0x101. */
	MRC_T_ASSERT(!mrc_shard_owns(l.s, 0x100), "0x100 is shard 0's");
	MRC_T_ASSERT(mrc_shard_owns(l.s, 0x101), "0x101 is shard 1's");
	MRC_T_ASSERT(mrc_shard_owns(l.s, 0x10f), "0x10f is shard 1's (slot 7)");
	MRC_T_ASSERT(!mrc_shard_owns(l.s, 0x111), "beyond max_qps");
	MRC_T_ASSERT(!mrc_shard_owns(l.s, 0xff), "below qpn_base");
	MRC_T_EQ(mrc_shard_add_qp(l.s, l.p.h[0].qp, l.p.now), -EINVAL);
	MRC_T_EQ(mrc_shard_add_qp(l.s, l.p.h[1].qp, l.p.now), 0);
	MRC_T_EQ(mrc_shard_del_qp(l.s, l.p.h[0].qp), -ENOENT);
	MRC_T_EQ(mrc_shard_del_qp(l.s, l.p.h[1].qp), 0);
	MRC_T_RUN(lone_free(&l));
	return MRC_TEST_OK;
}

/* The ring a host's shards share, as the hand-off or the event ring. */
enum shared_ring { HAND_OFF, EVENTS };

/*
 * A ring every shard of a host enqueues on at once: with several shards a
 * single-producer one is refused (`what` names it in the refusal); one
 * shard alone may have it.
 */
static int
single_producer_case(enum shared_ring which, const char *what)
{
	static struct mrc_test_pair p;
	struct mrc_test_pair_cfg pc;
	struct rte_ring *sp, *mp;
	struct mrc_shard *s;
	const char *why = NULL;

	MRC_T_EQ(mrc_test_eal_init("test_shard"), 0);
	mrc_test_pair_cfg_defaults(&pc);
	pc.n_planes = 1;
	MRC_T_EQ(mrc_test_pair_create(&p, &pc), 0);
	sp = rte_ring_create(which == HAND_OFF ? "sho_sp" : "shev_sp", 64, SOCKET_ID_ANY,
		RING_F_SP_ENQ | RING_F_SC_DEQ);
	mp = rte_ring_create(
		which == HAND_OFF ? "sho_mp" : "shev_mp", 64, SOCKET_ID_ANY, RING_F_SC_DEQ);
	MRC_T_ASSERT(sp != NULL && mp != NULL, "rings");
	struct mrc_shard_cfg c = {.n_planes = 1,
		.port_id = {0},
		.qpn_base = 0x100,
		.max_qps = 8,
		.n_shards = 2,
		.tsc_hz = MRC_TEST_HZ,
		.wire = p.wire,
		.socket = SOCKET_ID_ANY};
	struct rte_ring **ring = which == HAND_OFF ? &c.handoff : &c.events;

	*ring = sp;
	s = mrc_shard_create(&c, p.now, &why);
	MRC_T_ASSERT(s == NULL, "a single-producer %s shared by 2 shards", what);
	MRC_T_ASSERT(why != NULL && strstr(why, what) != NULL && strstr(why, "single-producer"),
		"why: %s", why);
	*ring = mp;
	s = mrc_shard_create(&c, p.now, &why);
	MRC_T_ASSERT(s != NULL, "a multi-producer one: %s", why);
	mrc_shard_free(s);
	c.n_shards = 1;
	*ring = sp;
	s = mrc_shard_create(&c, p.now, &why);
	MRC_T_ASSERT(s != NULL, "one shard: %s", why);
	mrc_shard_free(s);
	rte_ring_free(sp);
	rte_ring_free(mp);
	mrc_test_pair_destroy(&p);
	return MRC_TEST_OK;
}

/*
 * A host's shards share one hand-off ring and enqueue at once, as the engine
 * once did with rte_ring_sp_enqueue whatever the ring's mode.
 */
static int
test_refuses_single_producer_hand_off(void)
{
	return single_producer_case(HAND_OFF, "hand-off ring");
}

/* The same for the event ring the host's shards report QPs in ERROR on. */
static int
test_refuses_single_producer_event_ring(void)
{
	return single_producer_case(EVENTS, "event ring");
}

/*
 * Two shards of a host, on two threads, report QPs in ERROR on their one
 * event ring at once: every report arrives (the ring has room for all),
 * and none arrives damaged. The reports are the shards' own
 * (mrc_shard_check_error), each slot made to report again and again. This
 * is a race, so the test can only show it with both threads running at
 * once: on two CPUs, before the shards enqueued in the ring's own mode,
 * single-producer enqueues at once lost reports in every run.
 */
#define EVENT_RACE_REPORTS 200000u

struct event_racer {
	struct mrc_shard *s;
	struct mrc_shard_slot *sl;
	volatile bool *go;
	volatile bool done;
	int cpu; /* -1: where the scheduler puts it */
};

static void *
event_racer_run(void *arg)
{
	struct event_racer *r = arg;

	if (r->cpu >= 0) { /* each on a CPU of its own, so that the two run at once */
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(r->cpu, &set);
		(void)pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	}
	while (!*r->go)
		rte_pause();
	for (unsigned int i = 0; i < EVENT_RACE_REPORTS; i++) {
		r->sl->failed = false; /* report it again */
		mrc_shard_check_error(r->s, r->sl);
	}
	r->done = true;
	return NULL;
}

static int
test_shards_share_the_event_ring(void)
{
	static struct mrc_test_pair p;
	struct mrc_test_pair_cfg pc;
	struct event_racer racer[2];
	pthread_t th[2];
	volatile bool go = false;
	struct rte_ring *events;
	uint64_t got[2] = {0, 0}, bad = 0;
	const char *why = NULL;

	MRC_T_EQ(mrc_test_eal_init("test_shard"), 0);
	mrc_test_pair_cfg_defaults(&pc);
	pc.n_planes = 1;
	MRC_T_EQ(mrc_test_pair_create(&p, &pc), 0);
	/* room for every report: each enqueue writes, none stops at a full ring */
	events = rte_ring_create("shev_race", 2 * EVENT_RACE_REPORTS, SOCKET_ID_ANY,
		RING_F_SC_DEQ | RING_F_EXACT_SZ);
	MRC_T_ASSERT(events != NULL, "event ring");
	for (int i = 0; i < 2; i++) {
		struct mrc_shard_cfg c = {.host_id = 0,
			.n_planes = 1,
			.port_id = {0},
			.qpn_base = 0x100,
			.max_qps = 8,
			.n_shards = 2,
			.shard_index = (uint16_t)i,
			.tsc_hz = MRC_TEST_HZ,
			.wire = p.wire,
			.socket = SOCKET_ID_ANY,
			.events = events};

		racer[i].s = mrc_shard_create(&c, p.now, &why);
		MRC_T_ASSERT(racer[i].s != NULL, "shard %d: %s", i, why);
		MRC_T_EQ(mrc_shard_add_qp(racer[i].s, p.h[i].qp, p.now), 0);
		racer[i].sl = mrc_shard_slot_of(racer[i].s, mrc_qp_qpn(p.h[i].qp));
		MRC_T_ASSERT(racer[i].sl != NULL && racer[i].sl->qp == p.h[i].qp, "slot %d", i);
		(void)mrc_qp_modify(p.h[i].qp, MRC_QP_ERROR, NULL, p.now, NULL, NULL);
		racer[i].go = &go;
		racer[i].done = false;
		racer[i].cpu = sysconf(_SC_NPROCESSORS_ONLN) >= 2 ? i : -1;
	}
	for (int i = 0; i < 2; i++)
		MRC_T_EQ(pthread_create(&th[i], NULL, event_racer_run, &racer[i]), 0);
	go = true;
	for (;;) {
		const bool last = racer[0].done && racer[1].done;
		void *ev[64];
		unsigned int n;

		while ((n = rte_ring_sc_dequeue_burst(events, ev, RTE_DIM(ev), NULL)) > 0)
			for (unsigned int k = 0; k < n; k++) {
				const uint32_t qpn = mrc_shard_event_qpn(ev[k]);

				if (qpn == mrc_qp_qpn(p.h[0].qp))
					got[0]++;
				else if (qpn == mrc_qp_qpn(p.h[1].qp))
					got[1]++;
				else
					bad++;
			}
		if (last)
			break;
		usleep(100); /* leave the CPUs to the racers */
	}
	for (int i = 0; i < 2; i++)
		MRC_T_EQ(pthread_join(th[i], NULL), 0);
	MRC_T_EQ(bad, 0);
	for (int i = 0; i < 2; i++) {
		const struct mrc_shard_counters *cnt = mrc_shard_counters(racer[i].s);

		MRC_T_EQ(cnt->qp_errors, EVENT_RACE_REPORTS);
		MRC_T_ASSERT(got[i] + cnt->events_dropped == EVENT_RACE_REPORTS,
			"shard %d: %" PRIu64 " reports arrived and %" PRIu64
			" were counted dropped, of %u",
			i, got[i], (uint64_t)cnt->events_dropped, EVENT_RACE_REPORTS);
		MRC_T_EQ(mrc_shard_del_qp(racer[i].s, p.h[i].qp), 0);
		mrc_shard_free(racer[i].s);
	}
	rte_ring_free(events);
	mrc_test_pair_destroy(&p);
	return MRC_TEST_OK;
}

static int
hand_off_case(bool with_ring)
{
	static struct lone l;
	struct mrc_shard_snapshot ss;
	const struct mrc_shard_counters *c;
	struct rte_mbuf *m = NULL;

	MRC_T_RUN(lone_make(&l, 2, 1, with_ring, false));
	/* An endpoint request, a packet of shard 0's QP, one for a QP of ours that does not exist.
	 */
	MRC_T_RUN(lone_receive(&l, "ep_request_port_status", MRC_EP_QPN));
	MRC_T_RUN(lone_receive(&l, "probe_srv6", 0x100));
	MRC_T_RUN(lone_receive(&l, "probe_srv6", 0x103));
	l.p.now += 1000;
	/* the arrival stamp is the machine's TSC, whatever the shard's clock says */
	const uint64_t before = rte_rdtsc();

	mrc_shard_iterate(l.s, l.p.now, &l.p.rand);
	const uint64_t after = rte_rdtsc();
	const int stamp = mrc_shard_rx_tsc_offset();

	c = mrc_shard_counters(l.s);
	MRC_T_EQ(c->rx_pkts, 3);
	MRC_T_EQ(c->rx_unknown_qpn, 1);
	MRC_T_EQ(c->rx_handoff, with_ring ? 2 : 0);
	MRC_T_EQ(c->rx_handoff_drops, with_ring ? 0 : 2);
	if (with_ring) {
		struct mrc_pkt v;

		MRC_T_EQ(rte_ring_count(l.handoff), 2);
		MRC_T_EQ(rte_ring_dequeue(l.handoff, (void **)&m), 0);
		MRC_T_EQ(mrc_pkt_parse(m, &l.wire_cfg, &v), MRC_WIRE_OK);
		MRC_T_EQ(v.bth.dqpn, MRC_EP_QPN);
		/* stamped when the shard had it in hand: a responder's service time starts there */
		MRC_T_ASSERT(stamp >= 0, "the arrival stamp's field is registered");
		MRC_T_ASSERT(
			mrc_shard_rx_tsc(m, stamp) >= before && mrc_shard_rx_tsc(m, stamp) <= after,
			"arrival stamp %" PRIu64 " within the iteration [%" PRIu64 ", %" PRIu64 "]",
			mrc_shard_rx_tsc(m, stamp), before, after);
		rte_pktmbuf_free(m);
		MRC_T_EQ(rte_ring_dequeue(l.handoff, (void **)&m), 0);
		MRC_T_EQ(mrc_pkt_parse(m, &l.wire_cfg, &v), MRC_WIRE_OK);
		MRC_T_EQ(v.bth.dqpn, 0x100);
		MRC_T_ASSERT(
			mrc_shard_rx_tsc(m, stamp) >= before, "every packet handed off is stamped");
		rte_pktmbuf_free(m);
	}
	/* The snapshot holds what was published, not what came after. */
	mrc_shard_snapshot(l.s, &ss);
	MRC_T_EQ(ss.cnt.rx_pkts, 0);
	mrc_shard_publish(l.s, l.p.now);
	mrc_shard_snapshot(l.s, &ss);
	MRC_T_EQ(ss.tsc, l.p.now);
	MRC_T_EQ(ss.cnt.rx_pkts, 3);
	MRC_T_EQ(ss.cnt.rx_unknown_qpn, 1);
	MRC_T_EQ(ss.plane[0].rx_pkts, 3);
	MRC_T_EQ(ss.verdicts.pkts[MRC_WIRE_OK], 3);
	MRC_T_RUN(lone_free(&l));
	return MRC_TEST_OK;
}

static int
test_hands_off_what_it_does_not_own(void)
{
	return hand_off_case(true);
}

static int
test_counts_hand_offs_it_cannot_make(void)
{
	return hand_off_case(false);
}

/*
 * A packet for a QPN of the pending range with no QP (its peer in another
 * process made its end first) is counted rx_pending_qpn; one for any other
 * QPN with no QP, and one just past the range, rx_unknown_qpn.
 */
static int
test_counts_pending_qpns_apart(void)
{
	static struct lone l;
	const struct mrc_shard_counters *c;

	l.pending_qpn = 0x104;
	l.n_pending_qpns = 2;
	MRC_T_RUN(lone_make(&l, 1, 0, false, false));
	MRC_T_RUN(lone_receive(&l, "probe_srv6", 0x104));
	MRC_T_RUN(lone_receive(&l, "probe_srv6", 0x105));
	MRC_T_RUN(lone_receive(&l, "probe_srv6", 0x106));
	MRC_T_RUN(lone_receive(&l, "probe_srv6", 0x103));
	l.p.now += 1000;
	mrc_shard_iterate(l.s, l.p.now, &l.p.rand);
	c = mrc_shard_counters(l.s);
	MRC_T_EQ(c->rx_pkts, 4);
	MRC_T_EQ(c->rx_pending_qpn, 2);
	MRC_T_EQ(c->rx_unknown_qpn, 2);
	MRC_T_RUN(lone_free(&l));
	return MRC_TEST_OK;
}

/* A frame of `len` bytes, EtherType `et`, IPv6 next header `nh` when IPv6, on `ring`. */
static int
put_raw(struct rte_mempool *pool, struct rte_ring *ring, uint16_t et, uint8_t nh, uint16_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint8_t *f = m != NULL ? (uint8_t *)rte_pktmbuf_append(m, len) : NULL;

	MRC_T_ASSERT(f != NULL, "mbuf of %u bytes", len);
	memset(f, 0, len);
	f[12] = (uint8_t)(et >> 8);
	f[13] = (uint8_t)et;
	if (et == RTE_ETHER_TYPE_IPV6) {
		f[14] = 0x60;
		f[19] = (uint8_t)(len - 54); /* payload length */
		f[20] = nh;
		f[21] = 255;
	}
	MRC_T_EQ(rte_ring_enqueue(ring, m), 0);
	return MRC_TEST_OK;
}

/*
 * The exception path: frames that are not MRC go to the exception ring (what
 * it cannot take is counted), damaged or unknown MRC packets do not; frames
 * the control thread puts on ctl_tx leave by the plane their m->port names.
 */
static int
test_exception_path(void)
{
	static struct lone l;
	const struct mrc_shard_counters *c;
	struct rte_mbuf *m = NULL, *out[2];

	l.exception = rte_ring_create("shx", 2, SOCKET_ID_ANY, 0); /* room for one */
	l.ctl_tx = rte_ring_create("shc", 8, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	MRC_T_ASSERT(l.exception != NULL && l.ctl_tx != NULL, "rings");
	MRC_T_RUN(lone_make(&l, 1, 0, false, false));
	MRC_T_RUN(put_raw(l.p.pool, l.wire, RTE_ETHER_TYPE_IPV6, 58, 86)); /* ICMPv6 */
	MRC_T_RUN(put_raw(l.p.pool, l.wire, RTE_ETHER_TYPE_LLDP, 0, 60));
	MRC_T_RUN(lone_receive(&l, "probe_srv6", 0x105)); /* MRC, for no QP */
	l.p.now += 1000;
	mrc_shard_iterate(l.s, l.p.now, &l.p.rand);
	c = mrc_shard_counters(l.s);
	MRC_T_EQ(c->rx_pkts, 3);
	MRC_T_EQ(c->rx_exception, 1);
	MRC_T_EQ(c->rx_exception_drops, 1);
	MRC_T_EQ(c->rx_unknown_qpn, 1);
	/* the frame taken is not the parser's refusal; the one the ring could not take is */
	MRC_T_EQ(mrc_shard_rx_verdicts(l.s)->pkts[MRC_WIRE_BAD_NEXT_HEADER], 0);
	MRC_T_EQ(mrc_shard_rx_verdicts(l.s)->pkts[MRC_WIRE_BAD_ETHERTYPE], 1);
	MRC_T_EQ(rte_ring_dequeue(l.exception, (void **)&m), 0);
	MRC_T_EQ(rte_pktmbuf_mtod(m, uint8_t *)[20], 58); /* the ICMPv6 frame, whole */
	MRC_T_EQ(rte_pktmbuf_pkt_len(m), 86);
	rte_pktmbuf_free(m);
	/* control frames: one for plane 0, one for a plane the shard does not have */
	for (unsigned int k = 0; k < 2; k++) {
		out[k] = rte_pktmbuf_alloc(l.p.pool);
		MRC_T_ASSERT(out[k] != NULL && rte_pktmbuf_append(out[k], 64) != NULL, "mbuf");
		out[k]->port = (uint16_t)(k * 3);
		MRC_T_EQ(rte_ring_enqueue(l.ctl_tx, out[k]), 0);
	}
	l.p.now += 1000;
	mrc_shard_iterate(l.s, l.p.now, &l.p.rand);
	MRC_T_EQ(c->tx_control, 1);
	MRC_T_EQ(c->tx_control_drops, 1);
	MRC_T_EQ(rte_ring_count(l.ctl_tx), 0);
	MRC_T_EQ(rte_ring_dequeue(l.wire, (void **)&m), 0); /* the port's tx: our frame */
	MRC_T_ASSERT(m == out[0], "the frame sent is not the one given");
	rte_pktmbuf_free(m);
	MRC_T_RUN(lone_free(&l));
	rte_ring_free(l.exception);
	rte_ring_free(l.ctl_tx);
	return MRC_TEST_OK;
}

/*
 * NIC tx room: a port that reports its tx descriptors is offered packets only
 * while fewer than tx_room_desc wait; one that does not (net_ring) keeps the
 * staging bound alone, and sends.
 */
static int
nic_desc_room_case(bool reports)
{
	static struct lone l;
	const struct mrc_shard_counters *c;
	struct rte_mbuf *m[64];
	unsigned int n;

	memset(&l, 0, sizeof(l));
	l.tx_room_desc = 16;
	l.desc_status = reports;
	MRC_T_RUN(lone_make(&l, 1, 0, false, false));
	MRC_T_EQ(mrc_shard_tx_room_offset(l.s, 0), reports ? 64 - 16 : 0);
	MRC_T_EQ(mrc_shard_add_qp(l.s, l.p.h[0].qp, l.p.now), 0);
	MRC_T_EQ(mrc_qp_post_write(l.p.h[0].qp, 1, l.p.h[0].mem, 64 * 1024, l.p.h[0].key,
			 (uint64_t)(uintptr_t)l.p.h[1].mem, l.p.h[1].key, false, 0),
		0);
	c = mrc_shard_counters(l.s);
	fake_waiting = 16; /* as many as the room: full */
	l.p.now += 1000;
	mrc_shard_iterate(l.s, l.p.now, &l.p.rand);
	MRC_T_EQ(c->tx_pkts, reports ? 0 : rte_ring_count(l.wire));
	MRC_T_EQ(c->tx_nic_full, reports ? 1 : 0);
	if (reports) {
		fake_waiting = 15; /* one fewer: room */
		l.p.now += 1000;
		mrc_shard_iterate(l.s, l.p.now, &l.p.rand);
		MRC_T_ASSERT(c->tx_pkts > 0, "no packet sent with room on the NIC");
		MRC_T_EQ(c->tx_nic_full, 1);
	}
	MRC_T_ASSERT(c->tx_pkts > 0, "nothing sent");
	/* what went out is on the wire ring: give it back */
	while ((n = rte_ring_dequeue_burst(l.wire, (void **)m, RTE_DIM(m), NULL)) > 0)
		rte_pktmbuf_free_bulk(m, n);
	MRC_T_EQ(mrc_shard_del_qp(l.s, l.p.h[0].qp), 0);
	mrc_shard_drop_staged(l.s);
	if (reports)
		rte_eth_fp_ops[l.port].tx_descriptor_status = NULL;
	MRC_T_RUN(lone_free(&l));
	return MRC_TEST_OK;
}

/*
 * A responder whose SACK waits for tx room is not set aside for want of an
 * in-flight ring: answers need none. The shard's rings are all lent (the
 * test holds its only one), and the NIC's ring is full when the SACK is
 * queued, then has room again: the SACK goes in the next pass, and the
 * sender's packet is acknowledged. Set aside, the responder would wait for
 * a ring to come back (none does here), and its sender for a timeout.
 */
static int
test_answer_waiting_for_room_is_not_parked(void)
{
	static struct lone l;
	const struct mrc_shard_counters *c;
	const struct mrc_rel_tx *rtx;
	struct mrc_qp_attr a;
	struct rte_mbuf *m[64];
	void *ring;
	unsigned int n;
	int rc = mrc_test_eal_init("test_shard");

	if (rc != 0)
		return rc;
	memset(&l, 0, sizeof(l));
	mrc_qp_attr_defaults(&a, 1, MRC_TEST_HZ);
	l.qp_trk = mrc_trk_pool_create(2, mrc_qp_trk_block_bytes(&a), SOCKET_ID_ANY);
	MRC_T_ASSERT(l.qp_trk != NULL, "the QPs' ring pool");
	l.tx_room_desc = 16;
	l.desc_status = true;
	l.trk_blocks = 1;
	MRC_T_RUN(lone_make(&l, 1, 0, false, false));
	c = mrc_shard_counters(l.s);
	ring = mrc_trk_pool_get(mrc_shard_trk_pool(l.s));
	MRC_T_ASSERT(ring != NULL, "the shard's only ring");
	MRC_T_EQ(mrc_shard_add_qp(l.s, l.p.h[0].qp, l.p.now), 0);
	MRC_T_EQ(mrc_shard_add_qp(l.s, l.p.h[1].qp, l.p.now), 0);
	rtx = mrc_qp_rel_tx(l.p.h[0].qp);
	MRC_T_EQ(mrc_qp_post_write(l.p.h[0].qp, 1, l.p.h[0].mem, 1024, l.p.h[0].key,
			 (uint64_t)(uintptr_t)l.p.h[1].mem, l.p.h[1].key, false, 0),
		0);
	fake_waiting = 0;
	l.p.now += US;
	mrc_shard_iterate(l.s, l.p.now, &l.p.rand); /* the packet goes out */
	MRC_T_EQ(c->tx_pkts, 1);
	fake_waiting = 16; /* the NIC's ring full */
	l.p.now += US;
	mrc_shard_iterate(l.s, l.p.now, &l.p.rand); /* it comes back: its SACK waits */
	MRC_T_ASSERT(mrc_qp_answers_queued(l.p.h[1].qp), "no SACK queued for the packet");
	MRC_T_EQ(c->tx_pkts, 1);
	MRC_T_EQ(c->trk_parked, 0);
	fake_waiting = 0; /* room again */
	for (int k = 0; k < 4 && rtx->stats.acked_pkts == 0; k++) {
		l.p.now += US;
		mrc_shard_iterate(l.s, l.p.now, &l.p.rand);
	}
	MRC_T_EQ(rtx->stats.acked_pkts, 1);
	MRC_T_EQ(c->trk_parked, 0);
	MRC_T_EQ(mrc_qp_counters(l.p.h[0].qp)->tx_retx_pkts, 0);
	mrc_trk_pool_put(mrc_shard_trk_pool(l.s), ring);
	while ((n = rte_ring_dequeue_burst(l.wire, (void **)m, RTE_DIM(m), NULL)) > 0)
		rte_pktmbuf_free_bulk(m, n);
	for (int i = 0; i < 2; i++)
		MRC_T_EQ(mrc_shard_del_qp(l.s, l.p.h[i].qp), 0);
	mrc_shard_drop_staged(l.s);
	rte_eth_fp_ops[l.port].tx_descriptor_status = NULL;
	MRC_T_RUN(lone_free(&l));
	MRC_T_EQ(mrc_trk_pool_free(l.qp_trk), 0);
	return MRC_TEST_OK;
}

/*
 * QPs of a shard to one destination build their packets from one copy of
 * the addresses, the first QP's: one whose addresses differ (another hop
 * limit) keeps its own and is counted.
 */
static int
test_destination_addresses_shared(void)
{
	static struct lone l;
	struct mrc_qp *q[2];
	const char *why = NULL;

	memset(&l, 0, sizeof(l));
	MRC_T_RUN(lone_make(&l, 1, 0, false, false));
	MRC_T_EQ(mrc_shard_add_qp(l.s, l.p.h[0].qp, l.p.now), 0);
	for (unsigned int k = 0; k < 2; k++) {
		struct mrc_qp_init init = {.qpn = 0x102 + k,
			.sq_size = 4,
			.mtu = 1024,
			.tsc_hz = MRC_TEST_HZ,
			.mrs = l.p.h[0].mrs,
			.cq = l.p.h[0].cq,
			.hdr_pool = l.p.pool,
			.wire = l.p.wire,
			.socket = SOCKET_ID_ANY,
			.addr = *mrc_qp_addr(l.p.h[0].qp)};

		init.addr.hop_limit = k == 0 ? init.addr.hop_limit : 9;
		q[k] = mrc_qp_create(&init, &why);
		MRC_T_ASSERT(q[k] != NULL, "QP: %s", why);
		MRC_T_EQ(mrc_shard_add_qp(l.s, q[k], l.p.now), 0);
	}
	MRC_T_EQ(mrc_shard_counters(l.s)->own_addr_qps, 1); /* the hop limit 9 one */
	MRC_T_ASSERT(!mrc_qp_share_addr(q[1], mrc_qp_addr(q[0])), "9 is not the first's");
	for (unsigned int k = 0; k < 2; k++) {
		MRC_T_EQ(mrc_shard_del_qp(l.s, q[k]), 0);
		mrc_qp_destroy(q[k]);
	}
	MRC_T_EQ(mrc_shard_del_qp(l.s, l.p.h[0].qp), 0);
	MRC_T_RUN(lone_free(&l));
	return MRC_TEST_OK;
}

/*
 * A write the responder refuses (an unknown key) is counted once in its
 * host's region table, as once in its QP, though the shard looks at each
 * packet's region ahead of handling it (mrc_qp_prefetch_rx).
 */
static int
test_refusal_counted_once(void)
{
	static struct lone l;
	struct mrc_mr_table *t;
	uint64_t bad;

	memset(&l, 0, sizeof(l));
	MRC_T_RUN(lone_make(&l, 1, 0, false, false));
	t = l.p.h[1].mrs;
	bad = t->stats.bad_key;
	MRC_T_EQ(mrc_shard_add_qp(l.s, l.p.h[0].qp, l.p.now), 0);
	MRC_T_EQ(mrc_shard_add_qp(l.s, l.p.h[1].qp, l.p.now), 0);
	MRC_T_EQ(mrc_qp_post_write(l.p.h[0].qp, 1, l.p.h[0].mem, 4096, l.p.h[0].key,
			 (uint64_t)(uintptr_t)l.p.h[1].mem, l.p.h[1].key + 0x100, false, 0),
		0);
	for (int k = 0; k < 20; k++) {
		l.p.now += US;
		mrc_shard_iterate(l.s, l.p.now, &l.p.rand);
	}
	MRC_T_ASSERT(mrc_qp_counters(l.p.h[1].qp)->rx_bad_rkey >= 1, "refused");
	MRC_T_U64_EQ(t->stats.bad_key - bad, mrc_qp_counters(l.p.h[1].qp)->rx_bad_rkey);
	for (int i = 0; i < 2; i++)
		MRC_T_EQ(mrc_shard_del_qp(l.s, l.p.h[i].qp), 0);
	mrc_shard_drop_staged(l.s);
	MRC_T_RUN(lone_free(&l));
	return MRC_TEST_OK;
}

static int
test_nic_tx_room_from_descriptors(void)
{
	return nic_desc_room_case(true);
}

static int
test_nic_tx_room_staging_only(void)
{
	return nic_desc_room_case(false);
}

/* What the before-output call saw: how often it ran, its clock, and what had gone out. */
struct pass_seen {
	struct lone *l;
	unsigned int calls;
	uint64_t wall_tsc, tx_pkts;
};

static void
post_in_pass(void *ctx, uint64_t wall_tsc)
{
	struct pass_seen *ps = ctx;
	struct mrc_test_host *h = &ps->l->p.h[0];

	ps->calls++;
	ps->wall_tsc = wall_tsc;
	ps->tx_pkts = mrc_shard_counters(ps->l->s)->tx_pkts;
	mrc_qp_post_write(h->qp, ps->calls, h->mem, 1024, h->key,
		(uint64_t)(uintptr_t)ps->l->p.h[1].mem, ps->l->p.h[1].key, false, 0);
}

/*
 * mrc_shard_set_before_output(): called once a pass, with the caller's
 * clock, before the output round, so that what it posts leaves in the same
 * pass; cleared, it is not called.
 */
static int
test_posts_before_output_leave_in_the_same_pass(void)
{
	static struct lone l;
	struct pass_seen ps = {.l = &l};
	const struct mrc_shard_counters *c;
	struct rte_mbuf *m[64];
	unsigned int n;

	memset(&l, 0, sizeof(l));
	MRC_T_RUN(lone_make(&l, 1, 0, false, false));
	MRC_T_EQ(mrc_shard_add_qp(l.s, l.p.h[0].qp, l.p.now), 0);
	c = mrc_shard_counters(l.s);
	mrc_shard_set_before_output(l.s, post_in_pass, &ps);
	l.p.now += 1000;
	mrc_shard_iterate(l.s, l.p.now, &l.p.rand);
	MRC_T_EQ(ps.calls, 1);
	MRC_T_EQ(ps.wall_tsc, l.p.now);
	MRC_T_EQ(ps.tx_pkts, 0);
	MRC_T_EQ(c->tx_pkts, 1); /* the message posted in the pass went out in it */
	MRC_T_EQ(rte_ring_count(l.wire), 1);
	mrc_shard_set_before_output(l.s, NULL, NULL);
	l.p.now += 1000;
	mrc_shard_iterate(l.s, l.p.now, &l.p.rand);
	MRC_T_EQ(ps.calls, 1);
	while ((n = rte_ring_dequeue_burst(l.wire, (void **)m, RTE_DIM(m), NULL)) > 0)
		rte_pktmbuf_free_bulk(m, n);
	MRC_T_EQ(mrc_shard_del_qp(l.s, l.p.h[0].qp), 0);
	mrc_shard_drop_staged(l.s);
	MRC_T_RUN(lone_free(&l));
	return MRC_TEST_OK;
}

/*
 * mrc_shard_posts_waiting(): a post that puts its QP on the busy list
 * counts once (a second post to the listed QP adds nothing) until the
 * output round visits the QP, whether or not it sends.
 */
static int
test_counts_posts_waiting_for_the_output_round(void)
{
	static struct lone l;
	struct mrc_test_host *h;
	struct rte_mbuf *m[64];
	unsigned int n;

	memset(&l, 0, sizeof(l));
	MRC_T_RUN(lone_make(&l, 1, 0, false, false));
	h = &l.p.h[0];
	MRC_T_EQ(mrc_shard_add_qp(l.s, h->qp, l.p.now), 0);
	MRC_T_EQ(mrc_shard_posts_waiting(l.s), 0);
	for (unsigned int k = 0; k < 2; k++) {
		MRC_T_EQ(mrc_qp_post_write(h->qp, k, h->mem, 1024, h->key,
				 (uint64_t)(uintptr_t)l.p.h[1].mem, l.p.h[1].key, false, 0),
			0);
		MRC_T_EQ(mrc_shard_posts_waiting(l.s), 1);
	}
	l.p.now += 1000;
	mrc_shard_iterate(l.s, l.p.now, &l.p.rand);
	MRC_T_EQ(mrc_shard_posts_waiting(l.s), 0);
	MRC_T_EQ(mrc_shard_counters(l.s)->tx_pkts, 2);
	while ((n = rte_ring_dequeue_burst(l.wire, (void **)m, RTE_DIM(m), NULL)) > 0)
		rte_pktmbuf_free_bulk(m, n);
	MRC_T_EQ(mrc_shard_del_qp(l.s, h->qp), 0);
	mrc_shard_drop_staged(l.s);
	MRC_T_RUN(lone_free(&l));
	return MRC_TEST_OK;
}

static int
test_takes_qps_through_its_request_ring(void)
{
	static struct lone l;
	struct mrc_shard_req add = {.op = MRC_SHARD_ADD_QP}, again, del = {.op = MRC_SHARD_DEL_QP};
	static struct lone bare;

	MRC_T_RUN(lone_make(&l, 1, 0, false, true));
	add.qp = l.p.h[1].qp;
	again = add;
	del.qp = l.p.h[1].qp;
	MRC_T_EQ(mrc_shard_request(l.s, &add), 0);
	MRC_T_EQ(mrc_shard_request(l.s, &again), 0);
	MRC_T_ASSERT(!mrc_shard_req_done(&add), "nothing happens before the owner iterates");
	mrc_shard_iterate(l.s, l.p.now, &l.p.rand);
	MRC_T_ASSERT(mrc_shard_req_done(&add) && mrc_shard_req_done(&again), "both done");
	MRC_T_EQ(add.rc, 0);
	MRC_T_EQ(again.rc, -EEXIST);
	MRC_T_EQ(mrc_shard_request(l.s, &del), 0);
	mrc_shard_iterate(l.s, l.p.now, &l.p.rand);
	MRC_T_ASSERT(mrc_shard_req_done(&del), "del done");
	MRC_T_EQ(del.rc, 0);
	MRC_T_EQ(mrc_shard_counters(l.s)->requests, 3);
	MRC_T_EQ(mrc_shard_del_qp(l.s, l.p.h[1].qp), -ENOENT);
	MRC_T_RUN(lone_free(&l));

	/* A shard made without a request ring says so. */
	MRC_T_RUN(lone_make(&bare, 1, 0, false, false));
	MRC_T_EQ(mrc_shard_request(bare.s, &add), -ENOTSUP);
	MRC_T_RUN(lone_free(&bare));
	return MRC_TEST_OK;
}

static struct mrc_shard *called_on;

static int
record_call(struct mrc_shard *s, void *arg)
{
	called_on = s;
	return *(int *)arg;
}

static int
test_runs_calls_on_its_owner(void)
{
	static struct lone l;
	int answer = 42;
	struct mrc_shard_req call = {.op = MRC_SHARD_CALL, .fn = record_call, .arg = &answer};
	struct mrc_shard_req none = {.op = MRC_SHARD_CALL};

	MRC_T_RUN(lone_make(&l, 1, 0, false, true));
	called_on = NULL;
	MRC_T_EQ(mrc_shard_request(l.s, &call), 0);
	MRC_T_EQ(mrc_shard_request(l.s, &none), 0);
	MRC_T_ASSERT(called_on == NULL && !mrc_shard_req_done(&call),
		"nothing runs before the owner iterates");
	mrc_shard_iterate(l.s, l.p.now, &l.p.rand);
	MRC_T_ASSERT(mrc_shard_req_done(&call) && mrc_shard_req_done(&none), "both done");
	MRC_T_ASSERT(called_on == l.s, "the function got its shard");
	MRC_T_EQ(call.rc, 42);
	MRC_T_EQ(none.rc, -EINVAL);
	MRC_T_RUN(lone_free(&l));
	return MRC_TEST_OK;
}

/*
 * Two shards joined back to back by net_ring ports (one plane, no delay):
 * host 0's tx ring is host 1's rx ring and the other way round.
 */
static int
joined_shards(struct mrc_test_pair *p, struct mrc_shard *sh[2], struct rte_ring *wire[2],
	struct rte_ring *events0)
{
	static unsigned int seq;
	const struct rte_eth_conf conf = {0};
	const char *why = NULL;

	seq++;
	for (int i = 0; i < 2; i++) {
		char name[32];

		snprintf(name, sizeof(name), "shj%u_%d", seq, i);
		wire[i] = rte_ring_create(name, 1024, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
		MRC_T_ASSERT(wire[i] != NULL, "ring");
	}
	for (int i = 0; i < 2; i++) {
		char name[32];
		/* host i receives on wire[i] and sends on wire[1 - i] */
		struct rte_ring *rx[1] = {wire[i]}, *tx[1] = {wire[1 - i]};
		int port;

		snprintf(name, sizeof(name), "shjp%u_%d", seq, i);
		port = rte_eth_from_rings(name, rx, 1, tx, 1, SOCKET_ID_ANY);
		MRC_T_ASSERT(port >= 0, "net_ring port");
		MRC_T_EQ(rte_eth_dev_configure((uint16_t)port, 1, 1, &conf), 0);
		MRC_T_EQ(
			rte_eth_rx_queue_setup((uint16_t)port, 0, 64, SOCKET_ID_ANY, NULL, p->pool),
			0);
		MRC_T_EQ(rte_eth_tx_queue_setup((uint16_t)port, 0, 64, SOCKET_ID_ANY, NULL), 0);
		MRC_T_EQ(rte_eth_dev_start((uint16_t)port), 0);

		struct mrc_shard_cfg c = {.host_id = (uint8_t)i,
			.n_planes = 1,
			.port_id = {(uint16_t)port},
			.qpn_base = 0x100,
			.max_qps = 4,
			.tsc_hz = MRC_TEST_HZ,
			.wire = p->wire,
			.socket = SOCKET_ID_ANY,
			.events = i == 0 ? events0 : NULL};

		sh[i] = mrc_shard_create(&c, p->now, &why);
		MRC_T_ASSERT(sh[i] != NULL, "shard: %s", why);
		MRC_T_EQ(mrc_shard_add_qp(sh[i], p->h[i].qp, p->now), 0);
	}
	return MRC_TEST_OK;
}

/* Undo joined_shards(): remove the QPs, free the shards and what their rings hold. */
static int
joined_free(struct mrc_test_pair *p, struct mrc_shard *sh[2], struct rte_ring *wire[2])
{
	for (int i = 0; i < 2; i++) {
		struct rte_mbuf *m = NULL;

		MRC_T_EQ(mrc_shard_del_qp(sh[i], p->h[i].qp), 0);
		mrc_shard_free(sh[i]);
		while (rte_ring_dequeue(wire[i], (void **)&m) == 0)
			rte_pktmbuf_free(m);
	}
	return MRC_TEST_OK;
}

/*
 * Two hosts on one lcore, 64 messages from host 0 to host 1, and with
 * packets in flight one of two things the host, not the network, does:
 *  - STALL: the lcore is away for 50 ms, and host 1 then takes 3 more
 *    passes to answer (it has other work). Host 0's own time away is not
 *    a round trip (the run clock): without it, the RTT samples of the
 *    packets in flight were 50 ms, and every timer after stretched by it.
 *  - BACKLOG: 900 packets (here for a QP host 0 does not have) queue up in
 *    host 0's rx queue ahead of the answers, 4 passes of reading at 90 us
 *    a pass. The answers were there all along (the input horizon): without
 *    it, packets in flight timed out while host 0 was still reading.
 * Either way not one packet may be declared lost, and the QP's destination
 * shares its round trip (mrc_shard_dest_rtt).
 */
enum host_delay { STALL, BACKLOG };

static int
host_delay_is_not_loss(enum host_delay what)
{
	static struct mrc_test_pair p;
	struct mrc_test_pair_cfg pc;
	struct mrc_shard *sh[2];
	struct rte_ring *wire[2];
	struct mrc_cqe e[64];
	unsigned int done = 0, inflight_at_event = 0, host1_away = 0;
	const uint64_t pass = what == BACKLOG ? 90 * US : US;
	const unsigned int junk = what == BACKLOG ? 900 : 0;
	int rc = mrc_test_eal_init("test_shard");

	if (rc != 0)
		return rc;
	mrc_test_pair_cfg_defaults(&pc);
	pc.n_planes = 1;
	MRC_T_EQ(mrc_test_pair_create(&p, &pc), 0);
	MRC_T_RUN(joined_shards(&p, sh, wire, NULL));
	mrc_test_fill(&p.h[0], 0, 64 * 4096, 5);
	for (uint32_t k = 0; k < 64; k++)
		MRC_T_EQ(mrc_qp_post_write(p.h[0].qp, k, p.h[0].mem + k * 4096, 4096, p.h[0].key,
				 (uint64_t)(uintptr_t)p.h[1].mem + k * 4096, p.h[1].key, false, 0),
			0);
	for (int step = 0; step < 200000 && done < 64; step++) {
		unsigned int n;

		p.now += pass;
		mrc_shard_iterate(sh[0], p.now, &p.rand);
		if (inflight_at_event == 0 &&
			(inflight_at_event = mrc_rel_tx_inflight(mrc_qp_rel_tx(p.h[0].qp))) > 0) {
			for (unsigned int k = 0; k < junk; k++)
				MRC_T_RUN(put_sample(&p, wire[0], "probe_srv6", 0x103));
			if (what == STALL) {
				p.now += 50000 * US;
				host1_away = 3;
			}
		}
		if (host1_away > 0)
			host1_away--;
		else
			mrc_shard_iterate(sh[1], p.now, &p.rand);
		while ((n = mrc_cq_poll(p.h[0].cq, e, 64)) > 0)
			for (unsigned int k = 0; k < n; k++) {
				MRC_T_EQ(e[k].status, MRC_CQE_OK);
				done++;
			}
	}
	MRC_T_EQ(done, 64);
	MRC_T_ASSERT(inflight_at_event > 0, "it came with packets in flight");
	MRC_T_U64_EQ(mrc_qp_counters(p.h[0].qp)->tx_retx_pkts, 0);
	MRC_T_U64_EQ(mrc_qp_rel_tx(p.h[0].qp)->stats.lost[MRC_REL_LOSS_PKT_TIMEOUT], 0);
	MRC_T_U64_EQ(mrc_qp_rel_tx(p.h[0].qp)->stats.rto_fired, 0);
	MRC_T_U64_EQ(mrc_shard_counters(sh[0])->rx_unknown_qpn, junk);
	if (what == STALL) {
		MRC_T_ASSERT(mrc_qp_rel_tx(p.h[0].qp)->max_rtt_tsc < 1000 * US,
			"largest RTT sample %llu ns: the stall is not a round trip",
			(unsigned long long)mrc_qp_rel_tx(p.h[0].qp)->max_rtt_tsc);
		MRC_T_EQ(mrc_shard_counters(sh[0])->stalls, 1);
	} else {
		MRC_T_ASSERT(mrc_shard_counters(sh[0])->horizon_held > 0, "the backlog held it");
	}
	MRC_T_MEMEQ(p.h[1].mem, p.h[0].mem, 64 * 4096);

	/* Host 0's QP fed its destination's shared round trip with every sample. */
	uint64_t srtt = 0, samples = 0;
	uint8_t nobody[16] = {0xfd};

	MRC_T_EQ(mrc_shard_dest_rtt(sh[0], mrc_qp_peer_ip(p.h[0].qp), &srtt, &samples), 0);
	MRC_T_U64_EQ(samples, mrc_qp_rel_tx(p.h[0].qp)->stats.rtt_samples);
	MRC_T_ASSERT(samples > 0 && srtt > 0, "shared samples %llu", (unsigned long long)samples);
	MRC_T_EQ(mrc_shard_dest_rtt(sh[0], nobody, &srtt, &samples), -ENOENT);

	for (int step = 0; step < 1000; step++) { /* the last answers land */
		p.now += US;
		for (int i = 0; i < 2; i++)
			mrc_shard_iterate(sh[i], p.now, &p.rand);
	}
	MRC_T_RUN(joined_free(&p, sh, wire));
	MRC_T_EQ(rte_mempool_avail_count(p.pool), p.pool->size);
	mrc_test_pair_destroy(&p);
	return MRC_TEST_OK;
}

static int
test_stall_is_not_loss(void)
{
	return host_delay_is_not_loss(STALL);
}

static int
test_rx_backlog_is_not_loss(void)
{
	return host_delay_is_not_loss(BACKLOG);
}

/*
 * A QP that goes to ERROR is reported once on the event ring: a write with a
 * key the responder does not know is NACKed (UNEXP_EVENT), which is fatal.
 */
static int
test_reports_qp_errors(void)
{
	static struct mrc_test_pair p;
	struct mrc_test_pair_cfg pc;
	struct mrc_shard *sh[2];
	struct rte_ring *wire[2], *events;
	void *ev = NULL;
	int rc = mrc_test_eal_init("test_shard");

	if (rc != 0)
		return rc;
	mrc_test_pair_cfg_defaults(&pc);
	pc.n_planes = 1;
	MRC_T_EQ(mrc_test_pair_create(&p, &pc), 0);
	events = rte_ring_create("shard_events", 16, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	MRC_T_ASSERT(events != NULL, "event ring");
	MRC_T_RUN(joined_shards(&p, sh, wire, events));
	MRC_T_EQ(mrc_qp_post_write(p.h[0].qp, 1, p.h[0].mem, 512, p.h[0].key,
			 (uint64_t)(uintptr_t)p.h[1].mem, p.h[1].key + 1000, false, 0),
		0);
	for (int step = 0; step < 1000; step++) {
		p.now += US;
		for (int i = 0; i < 2; i++)
			mrc_shard_iterate(sh[i], p.now, &p.rand);
	}
	MRC_T_EQ(mrc_qp_state(p.h[0].qp), MRC_QP_ERROR);
	MRC_T_EQ(mrc_shard_counters(sh[0])->qp_errors, 1);
	MRC_T_EQ(mrc_shard_counters(sh[0])->events_dropped, 0);
	MRC_T_EQ(mrc_shard_counters(sh[1])->qp_errors, 0);
	MRC_T_EQ(rte_ring_count(events), 1);
	MRC_T_EQ(rte_ring_dequeue(events, &ev), 0);
	MRC_T_EQ(mrc_shard_event_qpn(ev), mrc_qp_qpn(p.h[0].qp));
	MRC_T_EQ(mrc_shard_event_why(ev), MRC_QP_ERR_REMOTE_OP);
	MRC_T_RUN(joined_free(&p, sh, wire));
	rte_ring_free(events);
	MRC_T_EQ(rte_mempool_avail_count(p.pool), p.pool->size);
	mrc_test_pair_destroy(&p);
	return MRC_TEST_OK;
}

/*
 * A fault drill (mrc_shard_fail_qp): an idle QP put in ERROR is reported at
 * once, as a failure is, once; a QP the shard does not own is not touched.
 */
static int
test_fail_qp_reports_at_once(void)
{
	static struct mrc_test_pair p;
	struct mrc_test_pair_cfg pc;
	struct mrc_shard *sh[2];
	struct rte_ring *wire[2], *events;
	void *ev = NULL;
	int rc = mrc_test_eal_init("test_shard");

	if (rc != 0)
		return rc;
	mrc_test_pair_cfg_defaults(&pc);
	pc.n_planes = 1;
	MRC_T_EQ(mrc_test_pair_create(&p, &pc), 0);
	events = rte_ring_create("shard_ev_fail", 16, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	MRC_T_ASSERT(events != NULL, "event ring");
	MRC_T_RUN(joined_shards(&p, sh, wire, events));
	MRC_T_EQ(mrc_shard_fail_qp(sh[0], p.h[1].qp), -ENOENT); /* the other shard's */
	MRC_T_EQ(mrc_qp_state(p.h[1].qp), MRC_QP_RTS);
	MRC_T_EQ(mrc_shard_fail_qp(sh[0], p.h[0].qp), 0);
	/* no iteration: nothing else would look at an idle QP */
	MRC_T_EQ(mrc_qp_state(p.h[0].qp), MRC_QP_ERROR);
	MRC_T_EQ(rte_ring_count(events), 1);
	MRC_T_EQ(rte_ring_dequeue(events, &ev), 0);
	MRC_T_EQ(mrc_shard_event_qpn(ev), mrc_qp_qpn(p.h[0].qp));
	MRC_T_EQ(mrc_shard_event_why(ev), MRC_QP_ERR_USER);
	MRC_T_EQ(mrc_shard_fail_qp(sh[0], p.h[0].qp), -EALREADY);
	for (int step = 0; step < 100; step++) {
		p.now += US;
		for (int i = 0; i < 2; i++)
			mrc_shard_iterate(sh[i], p.now, &p.rand);
	}
	MRC_T_EQ(mrc_shard_counters(sh[0])->qp_errors, 1);
	MRC_T_EQ(rte_ring_count(events), 0);
	MRC_T_RUN(joined_free(&p, sh, wire));
	rte_ring_free(events);
	MRC_T_EQ(rte_mempool_avail_count(p.pool), p.pool->size);
	mrc_test_pair_destroy(&p);
	return MRC_TEST_OK;
}

/*
 * Software dispatch: two hosts of two shards each, one plane, joined by a
 * net_ring port with two queues each way (host i's tx queue q is host
 * 1 - i's rx queue q, so a packet lands on the queue of the shard index
 * that sent it). Four QP pairs; pair j's end on host 0 is owned by shard
 * j % 2, its end on host 1 by shard (j / 2) % 2 (a qpn_map), so pairs 1 and
 * 2 have their peer's owner on the other index and every packet of theirs
 * is read by the wrong shard and dispatched. 64 KiB writes both ways; every
 * byte must arrive, every packet reach its owner, and each QP be served by
 * exactly one shard.
 */
#define DSP_PAIRS 4
#define DSP_MSGS  8
#define DSP_MSG	  (64u * 1024)

static int
dispatch_case(bool stall_peer)
{
	static struct mrc_test_pair p[DSP_PAIRS];
	static uint32_t map[2][2 * DSP_PAIRS];
	struct mrc_shard *sh[2][2];
	struct rte_ring *wire[2][2], *inbound[2][2];
	const struct rte_eth_conf conf = {0};
	const char *why = NULL;
	unsigned int done[DSP_PAIRS][2] = {{0}};
	int rc = mrc_test_eal_init("test_shard");

	if (rc != 0)
		return rc;
	for (int j = 0; j < DSP_PAIRS; j++) {
		struct mrc_test_pair_cfg pc;

		mrc_test_pair_cfg_defaults(&pc);
		pc.n_planes = 1;
		pc.mem_len = 2 * DSP_MSGS * DSP_MSG;
		pc.qpn_base = 0x100 + 2 * (uint32_t)j;
		pc.seed = 7 + (uint64_t)j;
		MRC_T_EQ(mrc_test_pair_create(&p[j], &pc), 0);
		/* host 0's QPN 0x100 + 2j, host 1's 0x101 + 2j: slot j / 2 of its owner */
		map[0][2 * j] = mrc_shard_map_entry((unsigned int)j % 2, (uint32_t)j / 2);
		map[1][2 * j + 1] = mrc_shard_map_entry((unsigned int)(j / 2) % 2, (uint32_t)j % 2);
	}
	for (int i = 0; i < 2; i++)
		for (int q = 0; q < 2; q++) {
			char name[32];

			snprintf(name, sizeof(name), "dspw%d%d%d", stall_peer, i, q);
			wire[i][q] = rte_ring_create(
				name, 1024, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
			snprintf(name, sizeof(name), "dspi%d%d%d", stall_peer, i, q);
			inbound[i][q] = rte_ring_create(name, 1024, SOCKET_ID_ANY, RING_F_SC_DEQ);
			MRC_T_ASSERT(wire[i][q] != NULL && inbound[i][q] != NULL, "rings");
		}
	for (int i = 0; i < 2; i++) {
		char name[32];
		struct rte_ring *rx[2] = {wire[i][0], wire[i][1]};
		struct rte_ring *tx[2] = {wire[1 - i][0], wire[1 - i][1]};
		int port;

		snprintf(name, sizeof(name), "dspp%d%d", stall_peer, i);
		port = rte_eth_from_rings(name, rx, 2, tx, 2, SOCKET_ID_ANY);
		MRC_T_ASSERT(port >= 0, "net_ring port");
		MRC_T_EQ(rte_eth_dev_configure((uint16_t)port, 2, 2, &conf), 0);
		for (uint16_t q = 0; q < 2; q++) {
			MRC_T_EQ(rte_eth_rx_queue_setup(
					 (uint16_t)port, q, 64, SOCKET_ID_ANY, NULL, p[0].pool),
				0);
			MRC_T_EQ(rte_eth_tx_queue_setup((uint16_t)port, q, 64, SOCKET_ID_ANY, NULL),
				0);
		}
		MRC_T_EQ(rte_eth_dev_start((uint16_t)port), 0);
		for (uint16_t q = 0; q < 2; q++) {
			struct mrc_shard_cfg c = {.host_id = (uint8_t)i,
				.n_planes = 1,
				.port_id = {(uint16_t)port},
				.rx_queue = q,
				.tx_queue = q,
				.qpn_base = 0x100,
				.max_qps = DSP_PAIRS / 2,
				.n_shards = 2,
				.shard_index = q,
				.qpn_map = map[i],
				.qpn_map_len = 2 * DSP_PAIRS,
				.tsc_hz = MRC_TEST_HZ,
				.wire = p[0].wire,
				.socket = SOCKET_ID_ANY,
				.dispatch = {inbound[i][0], inbound[i][1]}};

			sh[i][q] = mrc_shard_create(&c, p[0].now, &why);
			MRC_T_ASSERT(sh[i][q] != NULL, "shard: %s", why);
		}
	}
	for (int i = 0; i < 2; i++)
		MRC_T_EQ(mrc_shard_join(sh[i], 2), 0);
	/* Each QP to its owner; every shard of its host agrees who that is. */
	for (int j = 0; j < DSP_PAIRS; j++)
		for (int i = 0; i < 2; i++) {
			const unsigned int owner =
				i == 0 ? (unsigned int)j % 2 : (unsigned int)j / 2;
			struct mrc_qp *qp = p[j].h[i].qp;

			MRC_T_EQ(mrc_shard_add_qp(sh[i][1 - owner], qp, p[0].now), -EINVAL);
			MRC_T_EQ(mrc_shard_add_qp(sh[i][owner], qp, p[0].now), 0);
			MRC_T_ASSERT(mrc_shard_owns(sh[i][owner], mrc_qp_qpn(qp)) &&
					     !mrc_shard_owns(sh[i][1 - owner], mrc_qp_qpn(qp)),
				"QP 0x%x has one owner", mrc_qp_qpn(qp));
		}
	for (int j = 0; j < DSP_PAIRS; j++)
		for (uint32_t k = 0; k < DSP_MSGS; k++)
			for (int i = 0; i < 2; i++) {
				struct mrc_test_host *s = &p[j].h[i], *r = &p[j].h[1 - i];
				const size_t off = (size_t)i * DSP_MSGS * DSP_MSG + k * DSP_MSG;

				mrc_test_fill(s, off, DSP_MSG, k + 100u * (uint32_t)(2 * j + i));
				MRC_T_EQ(
					mrc_qp_post_write(s->qp, k, s->mem + off, DSP_MSG, s->key,
						(uint64_t)(uintptr_t)r->mem + off, r->key, true, k),
					0);
			}
	uint64_t now = p[0].now;
	bool all = false;

	/* stall_peer: host 0's shard 1 is away 3 ms with packets in flight (its lcore). */
	const uint64_t stall_from = now + 20 * US, stall_to = stall_from + 3000 * US;

	for (int step = 0; step < 200000 && !all; step++) {
		now += 200;
		for (int i = 0; i < 2; i++)
			for (int q = 0; q < 2; q++)
				if (!stall_peer || i != 0 || q != 1 || now < stall_from ||
					now >= stall_to)
					mrc_shard_iterate(sh[i][q], now, &p[0].rand);
		all = true;
		for (int j = 0; j < DSP_PAIRS; j++)
			for (int i = 0; i < 2; i++) {
				struct mrc_cqe e[32];
				unsigned int n;

				while ((n = mrc_cq_poll(p[j].h[i].cq, e, 32)) > 0)
					for (unsigned int k = 0; k < n; k++) {
						MRC_T_EQ(e[k].status, MRC_CQE_OK);
						if (e[k].opcode != MRC_CQE_RECV_IMM)
							done[j][i]++;
					}
				all &= done[j][i] == DSP_MSGS;
			}
	}
	MRC_T_ASSERT(all, "every message completed by %.1f us", now / 1e3);
	uint64_t out[2] = {0, 0}, in[2] = {0, 0};

	for (int j = 0; j < DSP_PAIRS; j++)
		for (int i = 0; i < 2; i++) {
			const size_t off = (size_t)i * DSP_MSGS * DSP_MSG;

			MRC_T_MEMEQ(
				p[j].h[1 - i].mem + off, p[j].h[i].mem + off, DSP_MSGS * DSP_MSG);
		}
	for (int i = 0; i < 2; i++)
		for (int q = 0; q < 2; q++) {
			const struct mrc_shard_counters *c = mrc_shard_counters(sh[i][q]);

			MRC_T_EQ(c->rx_unknown_qpn, 0);
			MRC_T_EQ(c->rx_misdispatched, 0);
			MRC_T_EQ(c->rx_dispatch_full, 0);
			MRC_T_EQ(c->rx_handoff, 0);
			MRC_T_EQ(mrc_shard_n_qps(sh[i][q]), DSP_PAIRS / 2);
			MRC_T_ASSERT(c->rx_dispatched_out > 0, "host %d shard %d dispatched", i, q);
			MRC_T_ASSERT(c->cyc_dispatch > 0 && c->cyc_rx > 0 && c->cyc_qp_input > 0 &&
					     c->cyc_output > 0 && c->cyc_tx > 0,
				"every step counted its cycles");
			MRC_T_ASSERT(c->cyc_total >= c->cyc_rx + c->cyc_dispatch + c->cyc_qp_input +
							     c->cyc_timers + c->cyc_output +
							     c->cyc_tx,
				"the steps fit in the total");
			out[i] += c->rx_dispatched_out;
			in[i] += c->rx_dispatched_in;
		}
	/* What one shard of a host passed on, the other took: nothing lost or read twice. */
	for (int i = 0; i < 2; i++)
		MRC_T_U64_EQ(in[i], out[i]);
	/*
	 * Answers for host 0's shard 0 waited in shard 1's rx queue while shard 1
	 * was away: shard 0's timers must not take that for loss (its input
	 * horizon waits for its peer's). Without mrc_shard_join, pair 2 resent.
	 * Host 1's QPs whose answers come from that shard see a peer host away
	 * 3 ms, as a remote host's absence looks: their timers fire, rightly.
	 */
	for (int j = 0; j < DSP_PAIRS; j++)
		for (int i = 0; i < (stall_peer ? 1 : 2); i++) {
			MRC_T_U64_EQ(mrc_qp_counters(p[j].h[i].qp)->tx_retx_pkts, 0);
			MRC_T_U64_EQ(mrc_qp_rel_tx(p[j].h[i].qp)->stats.rto_fired, 0);
		}
	if (stall_peer)
		MRC_T_ASSERT(mrc_shard_counters(sh[0][0])->horizon_held > 0,
			"shard 0 held its horizon for its peer");
	printf("  4 QP pairs, half with the peer's owner on the other index%s: %llu + %llu "
	       "packets dispatched, done at %.1f us\n",
		stall_peer ? ", a shard away 3 ms" : "", (unsigned long long)out[0],
		(unsigned long long)out[1], now / 1e3);

	for (int step = 0; step < 1000; step++) { /* the last answers land */
		now += 1000;
		for (int i = 0; i < 2; i++)
			for (int q = 0; q < 2; q++)
				mrc_shard_iterate(sh[i][q], now, &p[0].rand);
	}
	for (int j = 0; j < DSP_PAIRS; j++)
		for (int i = 0; i < 2; i++) {
			const unsigned int owner =
				i == 0 ? (unsigned int)j % 2 : (unsigned int)j / 2;

			MRC_T_EQ(mrc_shard_del_qp(sh[i][owner], p[j].h[i].qp), 0);
		}
	for (int i = 0; i < 2; i++)
		for (int q = 0; q < 2; q++) {
			struct rte_mbuf *m = NULL;

			mrc_shard_free(sh[i][q]);
			while (rte_ring_dequeue(wire[i][q], (void **)&m) == 0)
				rte_pktmbuf_free(m);
			while (rte_ring_dequeue(inbound[i][q], (void **)&m) == 0)
				rte_pktmbuf_free(m);
			rte_ring_free(inbound[i][q]);
		}
	for (int j = 0; j < DSP_PAIRS; j++) {
		MRC_T_EQ(rte_mempool_avail_count(p[j].pool), p[j].pool->size);
		mrc_test_pair_destroy(&p[j]);
	}
	return MRC_TEST_OK;
}

static int
test_dispatches_to_the_owner(void)
{
	return dispatch_case(false);
}

static int
test_horizon_waits_for_the_other_shards(void)
{
	return dispatch_case(true);
}

/*
 * A full inbound ring: the packets it cannot take are dropped and counted
 * by reason; a packet for another shard with no ring for it in the table
 * goes to the hand-off ring as before.
 */
static int
test_counts_dispatch_it_cannot_make(void)
{
	static struct lone l;
	struct rte_ring *tiny = rte_ring_create("dsp_tiny", 2, SOCKET_ID_ANY, RING_F_SC_DEQ);
	struct rte_mbuf *m = NULL;
	const struct mrc_shard_counters *c;
	const char *why = NULL;
	struct mrc_shard *s1;

	MRC_T_ASSERT(tiny != NULL, "ring");
	MRC_T_RUN(lone_make(&l, 2, 0, true, false));
	/* Remake shard 0 with a dispatch table: shard 1's inbound ring holds one packet. */
	{
		struct mrc_shard_cfg cfg = {.n_planes = 1,
			.port_id = {l.port},
			.qpn_base = 0x100,
			.max_qps = 8,
			.n_shards = 2,
			.tsc_hz = MRC_TEST_HZ,
			.wire = l.p.wire,
			.socket = SOCKET_ID_ANY,
			.handoff = l.handoff,
			.dispatch = {NULL, tiny}};

		mrc_shard_free(l.s);
		l.s = mrc_shard_create(&cfg, l.p.now, &why);
		MRC_T_ASSERT(l.s != NULL, "shard: %s", why);
		/* shard 1, the owner of the ring (never iterated here) */
		cfg.shard_index = 1;
		cfg.handoff = NULL;
		s1 = mrc_shard_create(&cfg, l.p.now, &why);
		MRC_T_ASSERT(s1 != NULL, "shard 1: %s", why);
	}
	for (int k = 0; k < 3; k++)
		MRC_T_RUN(lone_receive(&l, "probe_srv6", 0x101));
	l.p.now += 1000;
	mrc_shard_iterate(l.s, l.p.now, &l.p.rand);
	c = mrc_shard_counters(l.s);
	MRC_T_EQ(c->rx_pkts, 3);
	MRC_T_EQ(c->rx_dispatched_out, 1);
	MRC_T_EQ(c->rx_dispatch_full, 2);
	MRC_T_EQ(rte_ring_count(tiny), 1);
	MRC_T_EQ(rte_ring_dequeue(tiny, (void **)&m), 0);
	rte_pktmbuf_free(m);
	mrc_shard_free(s1);
	rte_ring_free(tiny);
	MRC_T_RUN(lone_free(&l));
	return MRC_TEST_OK;
}

/*
 * Software dispatch places a packet by the QPN in its BTH alone, before any
 * parse: the shard that reads a packet of its peer's QP passes it on as it
 * came, counting no verdict, and the owner parses it, checks its ICRC and
 * counts the verdict, once. (The reader used to parse and check the ICRC of
 * every packet it read, for the owner too: with every host pair on one rx
 * queue, one worker did every packet's CRC.) A damaged packet is refused
 * by the owner; a frame that is no MRC packet stays with its reader.
 */
static int
test_owner_parses_what_is_passed_on(void)
{
	static struct lone l;
	struct rte_ring *in1 = rte_ring_create("dsp_in1", 64, SOCKET_ID_ANY, RING_F_SC_DEQ);
	const struct mrc_wire_rx_stats *v0, *v1;
	const struct mrc_shard_counters *c;
	struct rte_mbuf *m = NULL;
	const char *why = NULL;
	struct mrc_shard *s1;
	uint64_t sum0 = 0;

	MRC_T_ASSERT(in1 != NULL, "ring");
	MRC_T_RUN(lone_make(&l, 2, 0, true, false));
	{
		struct mrc_shard_cfg cfg = {.n_planes = 1,
			.port_id = {l.port},
			.qpn_base = 0x100,
			.max_qps = 8,
			.n_shards = 2,
			.tsc_hz = MRC_TEST_HZ,
			.wire = l.p.wire,
			.socket = SOCKET_ID_ANY,
			.handoff = l.handoff,
			.dispatch = {NULL, in1}};

		mrc_shard_free(l.s);
		l.s = mrc_shard_create(&cfg, l.p.now, &why);
		MRC_T_ASSERT(l.s != NULL, "shard: %s", why);
		/* shard 1 reads no port: its inbound ring only */
		cfg.shard_index = 1;
		cfg.rx_queue = MRC_SHARD_NO_RX_QUEUE;
		s1 = mrc_shard_create(&cfg, l.p.now, &why);
		MRC_T_ASSERT(s1 != NULL, "shard 1: %s", why);
	}
	/* QPN 0x101 is shard 1's (by number); no QP of that number exists there. */
	MRC_T_RUN(lone_receive(&l, "write_only_zero_len_plain", 0x101));
	MRC_T_RUN(lone_receive(&l, "probe_srv6", 0x101));
	MRC_T_RUN(lone_receive(&l, "sack_srv6", 0x101));
	/* ... the same, its last byte before the ICRC flipped: the ICRC no longer matches */
	MRC_T_RUN(lone_receive(&l, "sack_srv6", 0x101));
	{
		struct rte_mbuf *bad = NULL;
		unsigned int n = rte_ring_count(l.wire);

		/* the last one queued: rotate the ring to reach it */
		for (unsigned int k = 0; k < n; k++) {
			MRC_T_EQ(rte_ring_dequeue(l.wire, (void **)&bad), 0);
			if (k == n - 1) {
				uint8_t *b = rte_pktmbuf_mtod(bad, uint8_t *);

				b[rte_pktmbuf_data_len(bad) - 5] ^= 0x01;
			}
			MRC_T_EQ(rte_ring_enqueue(l.wire, bad), 0);
		}
	}
	l.p.now += 1000;
	mrc_shard_iterate(l.s, l.p.now, &l.p.rand);
	c = mrc_shard_counters(l.s);
	v0 = mrc_shard_rx_verdicts(l.s);
	MRC_T_EQ(c->rx_pkts, 4);
	MRC_T_EQ(c->rx_dispatched_out, 4);
	for (unsigned int r = 0; r < MRC_WIRE_REJECT_MAX; r++)
		sum0 += v0->pkts[r];
	MRC_T_U64_EQ(sum0, 0); /* the reader parsed none of them */
	MRC_T_EQ(rte_ring_count(in1), 4);

	mrc_shard_iterate(s1, l.p.now, &l.p.rand);
	c = mrc_shard_counters(s1);
	v1 = mrc_shard_rx_verdicts(s1);
	MRC_T_EQ(c->rx_dispatched_in, 4);
	MRC_T_U64_EQ(v1->pkts[MRC_WIRE_OK], 3);
	MRC_T_U64_EQ(v1->pkts[MRC_WIRE_BAD_ICRC], 1);
	MRC_T_EQ(c->rx_unknown_qpn, 3); /* parsed at its owner, which has no such QP */
	MRC_T_EQ(c->rx_misdispatched, 0);
	MRC_T_EQ(rte_ring_count(in1), 0);
	while (rte_ring_dequeue(in1, (void **)&m) == 0)
		rte_pktmbuf_free(m);
	mrc_shard_free(s1);
	rte_ring_free(in1);
	MRC_T_RUN(lone_free(&l));
	return MRC_TEST_OK;
}

/*
 * Retiring a QP with messages in flight: every message not acknowledged
 * completes FLUSHED on its CQ (none vanishes), the QP is out of the shard
 * (its peer's answers now count as unknown QPN), reset (its in-flight ring
 * returned), and no ERROR event is reported: a retire is not a failure.
 */
static int
test_retires_a_qp_flushing_what_is_in_flight(void)
{
	static struct mrc_test_pair p;
	struct mrc_test_pair_cfg pc;
	struct mrc_shard *sh[2];
	struct rte_ring *wire[2], *events;
	struct mrc_cqe e[16];
	unsigned int ok = 0, flushed = 0, n;
	int rc = mrc_test_eal_init("test_shard");

	if (rc != 0)
		return rc;
	mrc_test_pair_cfg_defaults(&pc);
	pc.n_planes = 1;
	MRC_T_EQ(mrc_test_pair_create(&p, &pc), 0);
	events = rte_ring_create("shard_ev_ret", 16, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	MRC_T_ASSERT(events != NULL, "event ring");
	MRC_T_RUN(joined_shards(&p, sh, wire, events));
	for (uint32_t k = 0; k < 3; k++)
		MRC_T_EQ(mrc_qp_post_write(p.h[0].qp, k, p.h[0].mem + k * MSG, MSG, p.h[0].key,
				 (uint64_t)(uintptr_t)p.h[1].mem + k * MSG, p.h[1].key, true, k),
			0);
	for (int step = 0; step < 3; step++) {
		p.now += US;
		for (int i = 0; i < 2; i++)
			mrc_shard_iterate(sh[i], p.now, &p.rand);
	}
	MRC_T_ASSERT(mrc_qp_trk_held(p.h[0].qp), "packets are in flight");
	MRC_T_EQ(mrc_shard_retire_qp(sh[0], p.h[0].qp), 0);
	MRC_T_EQ(mrc_shard_retire_qp(sh[0], p.h[0].qp), -ENOENT);
	MRC_T_EQ(mrc_qp_state(p.h[0].qp), MRC_QP_RESET);
	MRC_T_ASSERT(!mrc_qp_trk_held(p.h[0].qp), "its in-flight ring went back");
	while ((n = mrc_cq_poll(p.h[0].cq, e, RTE_DIM(e))) > 0)
		for (unsigned int k = 0; k < n; k++) {
			MRC_T_EQ(e[k].qpn, mrc_qp_qpn(p.h[0].qp));
			ok += e[k].status == MRC_CQE_OK;
			flushed += e[k].status == MRC_CQE_FLUSHED;
		}
	MRC_T_EQ(ok + flushed, 3);
	MRC_T_ASSERT(flushed >= 1, "%u messages flushed", flushed);
	for (int step = 0; step < 100; step++) {
		p.now += US;
		for (int i = 0; i < 2; i++)
			mrc_shard_iterate(sh[i], p.now, &p.rand);
	}
	MRC_T_EQ(mrc_cq_poll(p.h[0].cq, e, RTE_DIM(e)), 0);
	MRC_T_ASSERT(mrc_shard_counters(sh[0])->rx_unknown_qpn > 0, "answers to it are refused");
	MRC_T_EQ(mrc_shard_counters(sh[0])->qp_errors, 0);
	MRC_T_EQ(rte_ring_count(events), 0);
	for (int i = 0; i < 2; i++) {
		struct rte_mbuf *m = NULL;

		if (i == 1)
			MRC_T_EQ(mrc_shard_del_qp(sh[i], p.h[i].qp), 0);
		mrc_shard_free(sh[i]);
		while (rte_ring_dequeue(wire[i], (void **)&m) == 0)
			rte_pktmbuf_free(m);
	}
	rte_ring_free(events);
	MRC_T_EQ(rte_mempool_avail_count(p.pool), p.pool->size);
	mrc_test_pair_destroy(&p);
	return MRC_TEST_OK;
}

static const struct mrc_test_case cases[] = {
	MRC_TEST_CASE(test_path_rtt_buckets),
	MRC_TEST_CASE(test_two_hosts_over_fabric),
	MRC_TEST_CASE(test_plane_dies_seen_through_link_status),
	MRC_TEST_CASE(test_two_hosts_with_nic_tx_room),
	MRC_TEST_CASE(test_plane_dies_with_nic_tx_room),
	MRC_TEST_CASE(test_owns_only_its_share_of_qpns),
	MRC_TEST_CASE(test_hands_off_what_it_does_not_own),
	MRC_TEST_CASE(test_refuses_single_producer_hand_off),
	MRC_TEST_CASE(test_refuses_single_producer_event_ring),
	MRC_TEST_CASE(test_shards_share_the_event_ring),
	MRC_TEST_CASE(test_counts_hand_offs_it_cannot_make),
	MRC_TEST_CASE(test_counts_pending_qpns_apart),
	MRC_TEST_CASE(test_exception_path),
	MRC_TEST_CASE(test_nic_tx_room_from_descriptors),
	MRC_TEST_CASE(test_refusal_counted_once),
	MRC_TEST_CASE(test_destination_addresses_shared),
	MRC_TEST_CASE(test_answer_waiting_for_room_is_not_parked),
	MRC_TEST_CASE(test_nic_tx_room_staging_only),
	MRC_TEST_CASE(test_posts_before_output_leave_in_the_same_pass),
	MRC_TEST_CASE(test_counts_posts_waiting_for_the_output_round),
	MRC_TEST_CASE(test_takes_qps_through_its_request_ring),
	MRC_TEST_CASE(test_runs_calls_on_its_owner),
	MRC_TEST_CASE(test_stall_is_not_loss),
	MRC_TEST_CASE(test_rx_backlog_is_not_loss),
	MRC_TEST_CASE(test_reports_qp_errors),
	MRC_TEST_CASE(test_fail_qp_reports_at_once),
	MRC_TEST_CASE(test_dispatches_to_the_owner),
	MRC_TEST_CASE(test_horizon_waits_for_the_other_shards),
	MRC_TEST_CASE(test_counts_dispatch_it_cannot_make),
	MRC_TEST_CASE(test_owner_parses_what_is_passed_on),
	MRC_TEST_CASE(test_retires_a_qp_flushing_what_is_in_flight),
};

MRC_TEST_MAIN("host_shard", cases)
