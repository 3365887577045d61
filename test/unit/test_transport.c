/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * The transport as the daemon runs it (a lib/host shard per host) over the
 * emulated fabric (drivers/fabric) on a fake clock: hosts on 8 planes of
 * 100 Gb/s, 4 T1s per plane, a little jitter on every link, real packets
 * through the real codec, seeded randomness, so every run is the same
 * (test/lib/mrc_test_fabric.h). Each scenario moves messages and checks
 * that every byte arrives exactly once, no QP errs, every mbuf comes back,
 * and that the paths, EVs and counters tell the story the protocol
 * promises: spraying without spurious resends, even load, random loss
 * survived, the reference modes (ECMP, go-back-N) under loss, black-holed
 * paths retired and re-admitted, a dead plane left alone, trims (in the
 * fabric, and of an incast at the last hop) NACKed and resent without
 * blaming the path, ECN moving traffic off a path, and a sender under its
 * EV floor on dead planes finding the healed ones.
 */

#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>

#include "mrc_fabric.h"
#include "mrc_rel_rx.h"
#include "mrc_rel_tx.h"
#include "mrc_test.h"
#include "mrc_test_fabric.h"
#include "mrc_test_qp.h"

#define US  1000ull
#define MSG (256u * 1024)
#define MEM (64 * MSG) /* per host: 64 messages, then the offsets wrap */

/* One pair's traffic, h[0] -> h[1]. */
struct flow {
	struct mrc_test_pair p;
	struct mrc_test_pair_cfg pcfg;
	uint32_t posted, done[2], errors;
	uint8_t wr_done[4096];
};

struct drive {
	struct mrc_test_net net;
	struct mrc_test_net_cfg ncfg;
	struct flow f[2];
	unsigned int n_flows;
	uint64_t first_drop_ns, first_bad_ns; /* black hole: first drop, first EV retired */
	uint64_t skips;			      /* trims: EVs the senders skipped */
};

/*
 * The network of these tests: 8 planes, 4 T1s, 100 ns of jitter per link;
 * the shards keep the NIC tx room rule, as the daemon does over the fabric.
 */
static void
net_defaults(struct drive *d, unsigned int n_hosts, uint64_t seed, bool ecn)
{
	mrc_test_net_cfg_defaults(&d->ncfg);
	d->ncfg.fabric.n_hosts = (uint16_t)n_hosts;
	d->ncfg.fabric.n_planes = 8;
	d->ncfg.fabric.n_t1 = 4;
	d->ncfg.fabric.link_jitter_ns = 100;
	d->ncfg.fabric.seed = seed;
	if (!ecn)
		d->ncfg.fabric.ecn_kmax_bytes = 0;
	d->ncfg.seed = seed;
}

/*
 * Loss on every host's NIC link (host -> T0), every plane: each packet
 * crosses exactly one, so `loss` is the end-to-end loss of every packet,
 * data and control alike.
 */
static int
set_host_loss(struct drive *d, double loss)
{
	for (unsigned int h = 0; h < d->net.n_hosts; h++)
		for (unsigned int pl = 0; pl < d->net.fcfg.n_planes; pl++) {
			const struct mrc_fabric_target t = {.elem = MRC_FABRIC_ELEM_HOST_LINK,
				.dir = MRC_FABRIC_DIR_UP,
				.plane = (uint8_t)pl,
				.a = (uint16_t)h};

			MRC_T_EQ(mrc_fabric_set_loss(d->net.fab, &t, loss), 0);
		}
	return MRC_TEST_OK;
}

/* The attributes every flow starts from: 8 planes of 100 Gb/s, a 10 us base RTT. */
static void
flow_attr(struct mrc_test_pair_cfg *pc, uint64_t seed, uint8_t paths, uint8_t reliability)
{
	pc->mem_len = MEM;
	pc->seed = seed;
	pc->attr.cc.link_bps = 800000000000ull;
	pc->attr.cc.base_rtt_ns = 10000;
	pc->attr.paths = paths;
	pc->attr.reliability = reliability;
	if (paths == MRC_QP_PATHS_ECMP)
		pc->attr.cc.link_bps = 100000000000ull; /* one path, one plane */
}

/* Add flow k from fabric host a to b, its pair configured by flow_attr then `tune`. */
static int
add_flow(struct drive *d, uint8_t a, uint8_t b, uint64_t seed, uint8_t paths, uint8_t rel,
	void (*tune)(struct mrc_test_pair_cfg *))
{
	struct flow *f = &d->f[d->n_flows];

	mrc_test_net_pair_cfg(&d->net, d->n_flows, a, b, &f->pcfg);
	flow_attr(&f->pcfg, seed, paths, rel);
	if (tune != NULL)
		tune(&f->pcfg);
	MRC_T_EQ(mrc_test_pair_create(&f->p, &f->pcfg), 0);
	MRC_T_EQ(mrc_test_net_add_pair(&d->net, &f->p, &f->pcfg), 0);
	d->n_flows++;
	return MRC_TEST_OK;
}

/*
 * Two hosts, one flow 0 -> 1 (the most common setup). `room`: the NIC tx
 * room rule, as the daemon over the fabric; without it, as the daemon on
 * NIC ports that tell nothing of their queues.
 */
static int
setup_room(struct drive *d, double loss, uint64_t seed, bool ecn, uint8_t paths, uint8_t rel,
	bool room)
{
	int rc = mrc_test_eal_init("test_transport");

	if (rc != 0)
		return rc;
	memset(d, 0, sizeof(*d));
	net_defaults(d, 2, seed, ecn);
	d->ncfg.nic_room = room;
	MRC_T_EQ(mrc_test_net_create(&d->net, &d->ncfg), 0);
	MRC_T_RUN(set_host_loss(d, loss));
	MRC_T_RUN(add_flow(d, 0, 1, seed, paths, rel, NULL));
	return MRC_TEST_OK;
}

static int
setup_full(struct drive *d, double loss, uint64_t seed, bool ecn, uint8_t paths, uint8_t rel)
{
	return setup_room(d, loss, seed, ecn, paths, rel, true);
}

static int
setup_ecn(struct drive *d, double loss, uint64_t seed, bool ecn)
{
	return setup_full(d, loss, seed, ecn, MRC_QP_PATHS_SPRAY, MRC_QP_REL_SACK);
}

static int
setup(struct drive *d, double loss, uint64_t seed)
{
	return setup_ecn(d, loss, seed, true);
}

/* Free everything; every mbuf of every pool must be back. */
static int
teardown(struct drive *d)
{
	MRC_T_ASSERT(mrc_test_net_free(&d->net), "the fabric's pool is full");
	for (unsigned int k = 0; k < d->n_flows; k++) {
		struct mrc_test_pair *p = &d->f[k].p;

		MRC_T_EQ(rte_mempool_avail_count(p->pool), p->pool->size);
		mrc_test_pair_destroy(p);
	}
	return MRC_TEST_OK;
}

/* Post `n` messages of MSG bytes on flow `k` (every other one with immediate). */
static int
post_on(struct drive *d, unsigned int k, unsigned int n)
{
	struct flow *f = &d->f[k];
	struct mrc_test_host *s = &f->p.h[0], *r = &f->p.h[1];

	for (unsigned int i = 0; i < n; i++, f->posted++) {
		size_t off = (size_t)(f->posted % 64) * MSG;

		MRC_T_ASSERT(f->posted < RTE_DIM(f->wr_done), "room to count completions");
		mrc_test_fill(s, off, MSG, f->posted + 1000u * k);
		MRC_T_EQ(mrc_qp_post_write(s->qp, f->posted, s->mem + off, MSG, s->key,
				 (uint64_t)(uintptr_t)r->mem + off, r->key, f->posted & 1,
				 f->posted),
			0);
	}
	return MRC_TEST_OK;
}

static int
post(struct drive *d, unsigned int n)
{
	return post_on(d, 0, n);
}

static void
poll_cqs(struct drive *d)
{
	struct mrc_cqe e[64];

	for (unsigned int k = 0; k < d->n_flows; k++)
		for (int i = 0; i < 2; i++) {
			struct flow *f = &d->f[k];
			unsigned int n;

			while ((n = mrc_cq_poll(f->p.h[i].cq, e, RTE_DIM(e))) > 0)
				for (unsigned int j = 0; j < n; j++) {
					if (e[j].status != MRC_CQE_OK)
						f->errors++;
					else if (e[j].opcode != MRC_CQE_RECV_IMM &&
						 e[j].wr_id < RTE_DIM(f->wr_done))
						f->wr_done[e[j].wr_id]++;
					f->done[i]++;
				}
		}
}

/* Step until every QP is idle and the fabric empty, or `limit_ns` passes. */
static void
drive(struct drive *d, uint64_t limit_ns)
{
	const uint64_t end = d->net.now + limit_ns;
	const struct mrc_ev_pool *pool = mrc_qp_ev_pool(d->f[0].p.h[0].qp);

	while (d->net.now < end) {
		mrc_test_net_step(&d->net);
		poll_cqs(d);
		if (d->first_drop_ns == 0 && mrc_fabric_counters(d->net.fab)->drop_blackhole > 0)
			d->first_drop_ns = d->net.now;
		if (d->first_drop_ns != 0 && d->first_bad_ns == 0 &&
			mrc_ev_counters(pool)->retired > 0)
			d->first_bad_ns = d->net.now;
		if (mrc_test_net_idle(&d->net))
			break;
	}
}

/* Every message posted on flow k completed once, and its receiver holds what was sent. */
static int
check_flow(struct drive *d, unsigned int k)
{
	struct flow *f = &d->f[k];

	MRC_T_EQ(f->errors, 0);
	for (uint32_t w = 0; w < f->posted; w++)
		MRC_T_ASSERT(f->wr_done[w] == 1, "flow %u: message %u completed %u times", k, w,
			f->wr_done[w]);
	MRC_T_MEMEQ(f->p.h[1].mem, f->p.h[0].mem, (size_t)RTE_MIN(f->posted, 64u) * MSG);
	MRC_T_EQ(mrc_qp_state(f->p.h[0].qp), MRC_QP_RTS);
	MRC_T_EQ(mrc_qp_state(f->p.h[1].qp), MRC_QP_RTS);
	MRC_T_EQ(mrc_qp_counters(f->p.h[1].qp)->imm_delivered, f->posted / 2);
	return MRC_TEST_OK;
}

/*
 * Every flow delivered, and the engine saw nothing it should not: no
 * packet for an unknown QP, no parse rejects, no packet a plane could not
 * stage, nothing the fabric could not route.
 */
static int
check_delivered(struct drive *d)
{
	const struct mrc_fabric_counters *fc = mrc_fabric_counters(d->net.fab);

	for (unsigned int k = 0; k < d->n_flows; k++)
		MRC_T_RUN(check_flow(d, k));
	for (unsigned int h = 0; h < d->net.n_hosts; h++) {
		const struct mrc_wire_rx_stats *vs = mrc_shard_rx_verdicts(d->net.shard[h]);

		MRC_T_EQ(mrc_shard_counters(d->net.shard[h])->rx_unknown_qpn, 0);
		MRC_T_EQ(mrc_shard_counters(d->net.shard[h])->tx_dropped, 0);
		for (int r = 1; r < MRC_WIRE_REJECT_MAX; r++)
			MRC_T_EQ(vs->pkts[r], 0);
	}
	MRC_T_EQ(fc->drop_no_route + fc->drop_unparseable + fc->drop_shared_header +
			 fc->drop_hop_limit + fc->drop_host_rx_full + fc->drop_no_mbuf +
			 fc->drop_no_room,
		0);
	return MRC_TEST_OK;
}

/* Bytes plane `pl` carried to host `h` (its T0 -> host link), and T1 `u`'s share of them. */
static uint64_t
plane_bytes_to(const struct drive *d, unsigned int pl, unsigned int h)
{
	const struct mrc_fabric_link_id id = {
		.kind = MRC_FABRIC_LINK_HOST_DOWN, .plane = (uint8_t)pl, .a = (uint16_t)h};
	struct mrc_fabric_link_counters c;

	return mrc_fabric_link_stats(d->net.fab, &id, &c) == 0 ? c.tx_bytes : 0;
}

static uint64_t
path_bytes_to(const struct drive *d, unsigned int pl, unsigned int u, unsigned int h)
{
	const struct mrc_fabric_link_id id = {.kind = MRC_FABRIC_LINK_T1_T0,
		.plane = (uint8_t)pl,
		.a = (uint16_t)u,
		.b = (uint16_t)h}; /* one host per T0: T0 h */
	struct mrc_fabric_link_counters c;

	return mrc_fabric_link_stats(d->net.fab, &id, &c) == 0 ? c.tx_bytes : 0;
}

static int
test_spraying_without_loss(void)
{
	static struct drive d;
	/* No ECN here: marks would (rightly) steer traffic and blur the spraying itself. */
	int rc = setup_ecn(&d, 0, 1, false);

	if (rc != MRC_TEST_OK)
		return rc;
	MRC_T_RUN(post(&d, 64)); /* 16 MiB: 128 data packets per (plane, T1) path */
	drive(&d, 20000 * US);
	MRC_T_RUN(check_delivered(&d));
	const struct mrc_qp_counters *c = mrc_qp_counters(d.f[0].p.h[0].qp);
	const struct mrc_rel_rx *rx = mrc_qp_rel_rx(d.f[0].p.h[1].qp);

	/* Reordering everywhere, and not one resend because of it. */
	MRC_T_ASSERT(rx->stats.ooo_pkts > c->tx_data_pkts / 10, "only %llu of %llu out of order",
		(unsigned long long)rx->stats.ooo_pkts, (unsigned long long)c->tx_data_pkts);
	MRC_T_EQ(c->tx_retx_pkts, 0);
	MRC_T_EQ(mrc_ev_counters(mrc_qp_ev_pool(d.f[0].p.h[0].qp))->retired, 0);
	/* Even load: every plane and every (plane, T1) path within 5% / 15% of the mean. */
	double mean = 0;

	for (int pl = 0; pl < 8; pl++)
		mean += (double)plane_bytes_to(&d, pl, 1) / 8;
	for (int pl = 0; pl < 8; pl++) {
		double r = plane_bytes_to(&d, pl, 1) / mean;

		MRC_T_ASSERT(r > 0.95 && r < 1.05, "plane %d carried %.3f of the mean", pl, r);
		for (int u = 0; u < 4; u++) {
			double ru = path_bytes_to(&d, pl, u, 1) / (mean / 4);

			MRC_T_ASSERT(ru > 0.85 && ru < 1.15, "path %d/%d carried %.3f of the mean",
				pl, u, ru);
		}
	}
	/* Per-EV statistics: every active EV carried its share. */
	const struct mrc_ev_pool *pool = mrc_qp_ev_pool(d.f[0].p.h[0].qp);
	uint64_t ev_pkts = 0;

	for (int sl = 0; sl < 128; sl++) {
		const struct mrc_ev_stats *es = mrc_ev_slot_stats(pool, sl);

		MRC_T_ASSERT(es != NULL, "per-EV statistics kept");
		MRC_T_ASSERT(es->tx_pkts >= 16 && es->tx_pkts <= 48, "EV slot %d sent %llu of 4096",
			sl, (unsigned long long)es->tx_pkts);
		ev_pkts += es->tx_pkts;
	}
	MRC_T_EQ(ev_pkts, c->tx_data_pkts);
	/* The fabric carried it all: nothing dropped, nothing trimmed. */
	MRC_T_EQ(mrc_fabric_counters(d.net.fab)->drop_queue, 0);
	MRC_T_EQ(mrc_fabric_counters(d.net.fab)->trims, 0);
	printf("  16 MiB in %.1f us: %llu data packets, %llu out of order at the receiver, "
	       "0 resends\n",
		d.net.now / 1e3, (unsigned long long)c->tx_data_pkts,
		(unsigned long long)rx->stats.ooo_pkts);
	return teardown(&d);
}

static int
lossy(double loss, uint64_t seed)
{
	static struct drive d;
	int rc = setup(&d, loss, seed);

	if (rc != MRC_TEST_OK)
		return rc;
	MRC_T_RUN(post(&d, 16)); /* 4 MiB */
	drive(&d, 200000 * US);
	MRC_T_RUN(check_delivered(&d));
	const struct mrc_qp_counters *c = mrc_qp_counters(d.f[0].p.h[0].qp);
	const uint64_t drops = mrc_fabric_counters(d.net.fab)->drop_loss;

	MRC_T_ASSERT(drops > 0, "%.1f%% loss and nothing lost", loss * 100);
	printf("  %.1f%% loss: %llu packets dropped, %llu resent, %llu EVs retired, done in %.1f "
	       "us\n",
		loss * 100, (unsigned long long)drops, (unsigned long long)c->tx_retx_pkts,
		(unsigned long long)mrc_ev_counters(mrc_qp_ev_pool(d.f[0].p.h[0].qp))->retired,
		d.net.now / 1e3);
	return teardown(&d);
}

static int
test_loss_0_1_percent(void)
{
	return lossy(0.001, 11);
}

static int
test_loss_1_percent(void)
{
	return lossy(0.01, 12);
}

static int
test_loss_5_percent(void)
{
	return lossy(0.05, 13);
}

/*
 * Reference modes on the lossy network (1% on every packet, data and
 * control alike). ECMP: one EV carries everything, resends included, and
 * the pool never retires it. Go-back-N on top: every byte arrives, nothing
 * is placed out of order, and the rewinds resend more than was lost.
 */
static int
ref_lossy(bool gbn)
{
	static struct drive d;
	int rc = setup_full(
		&d, 0.01, 21, true, MRC_QP_PATHS_ECMP, gbn ? MRC_QP_REL_GBN : MRC_QP_REL_SACK);

	if (rc != MRC_TEST_OK)
		return rc;
	MRC_T_RUN(post(&d, 16)); /* 4 MiB */
	drive(&d, 400000 * US);
	MRC_T_RUN(check_delivered(&d));
	const struct mrc_qp_counters *c = mrc_qp_counters(d.f[0].p.h[0].qp);
	const struct mrc_qp_counters *rc_ = mrc_qp_counters(d.f[0].p.h[1].qp);
	const struct mrc_ev_pool *pool = mrc_qp_ev_pool(d.f[0].p.h[0].qp);
	const struct mrc_rel_tx *rtx = mrc_qp_rel_tx(d.f[0].p.h[0].qp);
	const uint64_t drops = mrc_fabric_counters(d.net.fab)->drop_loss;
	unsigned int paths = 0, evs = 0;

	/* SACKs echo the data's EV, so they share its path: one T1 of one plane saw traffic. */
	for (unsigned int pl = 0; pl < 8; pl++)
		for (unsigned int u = 0; u < 4; u++) {
			struct mrc_fabric_switch_counters sw;

			MRC_T_EQ(mrc_fabric_switch_stats(d.net.fab, 1, pl, u, &sw), 0);
			paths += sw.rx_pkts != 0;
		}
	MRC_T_EQ(paths, 1);
	for (int sl = 0; sl < mrc_ev_n_slots(pool); sl++)
		evs += mrc_ev_slot_stats(pool, sl)->tx_pkts != 0;
	MRC_T_EQ(evs, 1);
	MRC_T_ASSERT(drops > 0, "1%% loss and nothing lost");
	MRC_T_ASSERT(c->tx_retx_pkts > 0, "1%% loss and nothing resent");
	MRC_T_EQ(mrc_ev_counters(pool)->retired, 0);
	MRC_T_EQ(mrc_ev_counters(pool)->skips, 0);
	if (gbn) {
		MRC_T_EQ(mrc_qp_rel_rx(d.f[0].p.h[1].qp)->stats.ooo_pkts, 0);
		MRC_T_ASSERT(rc_->rx_oos_pkts > 0, "no gap was ever seen");
		MRC_T_ASSERT(rtx->stats.lost[MRC_REL_LOSS_REWIND] > 0, "never rewound");
		MRC_T_ASSERT(c->tx_retx_pkts > drops, "go-back-N resent %llu for %llu drops",
			(unsigned long long)c->tx_retx_pkts, (unsigned long long)drops);
	} else {
		MRC_T_EQ(rtx->stats.lost[MRC_REL_LOSS_REWIND], 0);
		MRC_T_EQ(rc_->rx_oos_pkts, 0);
	}
	printf("  %s, 1%% loss: %llu dropped, %llu resent, %llu out of sequence, done in %.1f us\n",
		gbn ? "ecmp + go-back-N" : "ecmp + SACK", (unsigned long long)drops,
		(unsigned long long)c->tx_retx_pkts, (unsigned long long)rc_->rx_oos_pkts,
		d.net.now / 1e3);
	return teardown(&d);
}

static int
test_ecmp_one_ev_under_loss(void)
{
	return ref_lossy(false);
}

static int
test_gbn_under_loss(void)
{
	return ref_lossy(true);
}

/* EVs of host 0 on plane 2 whose uplink is 1 (mod 4): the path through T1 1 of plane 2. */
static unsigned int
count_path_evs(const struct drive *d, enum mrc_ev_state want, bool active_only)
{
	const struct mrc_ev_pool *pool = mrc_qp_ev_pool(d->f[0].p.h[0].qp);
	const struct mrc_ev_layout *l = &d->f[0].pcfg.attr.ev.layout;
	unsigned int n = 0;

	for (int s = 0; s < (int)mrc_ev_n_slots(pool); s++) {
		uint32_t ev = mrc_ev_value(pool, s);

		if (mrc_ev_layout_plane(l, ev) == 2 && mrc_ev_layout_uplink(l, ev) % 4 == 1 &&
			mrc_ev_state(pool, s) == want &&
			(!active_only || mrc_ev_slot_is_active(pool, s)))
			n++;
	}
	return n;
}

/*
 * T1 1 of plane 2 black-holes every packet through it: its EVs are retired
 * quickly, replaced on the same plane, no other EV is touched, and once it
 * heals, probes re-admit them. With the NIC tx room rule, the sender's
 * per-plane queues differ by up to the room, so arrivals reorder by more
 * than a SACK's 64-PSN bitmap while the first loss holds the cumulative
 * ACK: every arrival must still be reported (mrc_rel_rx's SACK runs), or
 * packets that arrived time out and healthy planes lose their EVs (seed
 * 21 before the runs: 72 per-packet timeouts for 23 drops, planes 0 and 2
 * taken out).
 */
static int
test_black_hole_retire_and_readmit(void)
{
	static struct drive d;
	int rc = setup(&d, 0, 21);
	const struct mrc_fabric_target t1 = {.elem = MRC_FABRIC_ELEM_T1, .plane = 2, .a = 1};
	struct mrc_ev_counts cnt;

	if (rc != MRC_TEST_OK)
		return rc;
	MRC_T_EQ(mrc_fabric_set_state(d.net.fab, &t1, MRC_FABRIC_BLACKHOLE), 0);
	MRC_T_RUN(post(&d, 16));
	drive(&d, 100000 * US);
	MRC_T_RUN(check_delivered(&d));
	const struct mrc_ev_pool *pool = mrc_qp_ev_pool(d.f[0].p.h[0].qp);
	const struct mrc_rel_tx *rtx = mrc_qp_rel_tx(d.f[0].p.h[0].qp);

	/* Retired within 2 RTT + the per-packet timeout of the first loss. */
	MRC_T_ASSERT(d.first_drop_ns > 0 && d.first_bad_ns > 0, "a drop and a retirement happened");
	const uint64_t bound = 2 * rtx->srtt_tsc + mrc_rel_tx_pkt_timeout(rtx);

	MRC_T_ASSERT(d.first_bad_ns - d.first_drop_ns <= bound,
		"first EV retired %llu ns after the first loss (bound %llu)",
		(unsigned long long)(d.first_bad_ns - d.first_drop_ns), (unsigned long long)bound);
	/* Keep sending until every EV of the dead path has been tried (backups promoted
	 * late have not been yet): then none is left in use on it. */
	for (int round = 0; round < 20 && count_path_evs(&d, MRC_EV_GOOD, true) > 0; round++) {
		MRC_T_RUN(post(&d, 4));
		drive(&d, 100000 * US);
	}
	MRC_T_EQ(count_path_evs(&d, MRC_EV_GOOD, true), 0);
	/*
	 * Replaced on the same plane while backups last: every active slot of
	 * plane 2 that is not usable holds an EV of the dead path (no healthy EV
	 * was retired), and the other planes lost nothing.
	 */
	MRC_T_EQ(mrc_ev_plane_counts(pool, 2, &cnt), 0);
	MRC_T_EQ(cnt.active[MRC_EV_ASSUMED_BAD], count_path_evs(&d, MRC_EV_ASSUMED_BAD, true));
	for (unsigned int pl = 0; pl < 8; pl++) {
		struct mrc_ev_counts oc;

		if (pl == 2)
			continue;
		MRC_T_EQ(mrc_ev_plane_counts(pool, pl, &oc), 0);
		MRC_T_EQ(oc.active[MRC_EV_GOOD] + oc.active[MRC_EV_SKIP], 128 / 8);
	}
	const unsigned int bad = count_path_evs(&d, MRC_EV_ASSUMED_BAD, false);

	MRC_T_ASSERT(bad > 0, "retired EVs wait to be probed");
	/* Only the black hole dropped anything, and only on T1 1 of plane 2. */
	struct mrc_fabric_switch_counters sw;

	MRC_T_EQ(mrc_fabric_switch_stats(d.net.fab, 1, 2, 1, &sw), 0);
	MRC_T_EQ(sw.drop_blackhole, mrc_fabric_counters(d.net.fab)->drop_blackhole);
	MRC_T_EQ(mrc_fabric_counters(d.net.fab)->drop_down +
			 mrc_fabric_counters(d.net.fab)->drop_loss,
		0);
	printf("  black hole: first loss at %.1f us, first EV retired %.1f us later "
	       "(bound %.1f us), %u EVs of the path retired\n",
		d.first_drop_ns / 1e3, (d.first_bad_ns - d.first_drop_ns) / 1e3, bound / 1e3, bad);

	/* Heal the path; keep traffic flowing while probes run: they come back. */
	MRC_T_EQ(mrc_fabric_set_state(d.net.fab, &t1, MRC_FABRIC_UP), 0);
	for (int round = 0; round < 40 && count_path_evs(&d, MRC_EV_ASSUMED_BAD, false) > 0;
		round++) {
		MRC_T_RUN(post(&d, 1));
		drive(&d, 1000 * US);
		d.net.now += 1000 * US; /* probe rounds are paced (1 ms apart by default) */
	}
	MRC_T_EQ(count_path_evs(&d, MRC_EV_ASSUMED_BAD, false), 0);
	MRC_T_ASSERT(mrc_ev_counters(pool)->readmitted >= bad, "readmitted through probes");
	drive(&d, 100000 * US);
	MRC_T_RUN(check_delivered(&d));
	return teardown(&d);
}

/* Like drive(), for `ns`, but flow 0 keeps `outstanding` messages posted (line rate). */
static int
drive_loaded(struct drive *d, uint64_t ns, unsigned int outstanding)
{
	const uint64_t end = d->net.now + ns;

	while (d->net.now < end) {
		if (d->f[0].posted - d->f[0].done[0] < outstanding)
			MRC_T_RUN(post(d, outstanding - (d->f[0].posted - d->f[0].done[0])));
		mrc_test_net_step(&d->net);
		poll_cqs(d);
	}
	return MRC_TEST_OK;
}

/*
 * The cable T0 1 - T1 1 of plane 2 dies under a sender at line rate: the
 * hosts cannot see it (their ports stay up), so host 0's EVs through T1 1
 * are retired by their losses. The cable heals, the load goes on, and
 * probes must bring those EVs back within a few probe rounds. Under the
 * NIC tx room rule a plane at line rate has no room most of the time,
 * which the QP sees as a port down: a probe due for a retired EV of such a
 * plane was dropped unsent and the round backed off as if nobody had
 * answered, so at line rate no retired EV was ever probed again (bench
 * failover, link fault: 0 probes/s) and the healed path stayed unused.
 */
static int
test_link_heals_under_load(void)
{
	static struct drive d;
	int rc = setup(&d, 0, 61);
	const struct mrc_fabric_target link = {
		.elem = MRC_FABRIC_ELEM_LINK, .plane = 2, .a = 1, .b = 1};
	const unsigned int outstanding = 16;
	const struct mrc_qp_counters *c;
	uint64_t probes_before, heal_ns, back_ns = 0;
	unsigned int bad;

	if (rc != MRC_TEST_OK)
		return rc;
	c = mrc_qp_counters(d.f[0].p.h[0].qp);
	MRC_T_RUN(drive_loaded(&d, 200 * US, outstanding));
	MRC_T_EQ(mrc_fabric_set_state(d.net.fab, &link, MRC_FABRIC_DOWN), 0);
	MRC_T_RUN(drive_loaded(&d, 1000 * US, outstanding));
	bad = count_path_evs(&d, MRC_EV_ASSUMED_BAD, false);
	MRC_T_ASSERT(bad > 0, "EVs of the dead path retired");
	MRC_T_EQ(mrc_fabric_set_state(d.net.fab, &link, MRC_FABRIC_UP), 0);
	heal_ns = d.net.now;
	probes_before = c->tx_ev_probes;
	/*
	 * The bound: the probe rounds backed off while the path was dead (at
	 * most 2^MRC_EV_PROBE_MAX_SHIFT intervals to the next), then
	 * probe_good_needed rounds of answers, a round an interval apart.
	 */
	const uint64_t interval_ns = d.f[0].pcfg.attr.ev.probe_interval_tsc; /* 1 tick = 1 ns */
	const uint64_t bound_ns =
		interval_ns * ((1u << MRC_EV_PROBE_MAX_SHIFT) + MRC_EV_DEF_PROBE_GOOD_NEEDED + 2);

	while (d.net.now - heal_ns < bound_ns) {
		MRC_T_RUN(drive_loaded(&d, 50 * US, outstanding));
		if (count_path_evs(&d, MRC_EV_ASSUMED_BAD, false) == 0) {
			back_ns = d.net.now - heal_ns;
			break;
		}
	}
	printf("  link T0 1 - T1 1 of plane 2 down 1 ms at line rate: %u EVs retired, %llu EV "
	       "probes after it healed, all back after %.0f us (bound %.0f us), %u messages\n",
		bad, (unsigned long long)(c->tx_ev_probes - probes_before), back_ns / 1e3,
		bound_ns / 1e3, d.f[0].posted);
	MRC_T_ASSERT(c->tx_ev_probes > probes_before, "retired EVs were probed after the heal");
	MRC_T_ASSERT(back_ns > 0, "%u EVs of the healed path still retired %.0f us after it healed",
		count_path_evs(&d, MRC_EV_ASSUMED_BAD, false), (d.net.now - heal_ns) / 1e3);
	drive(&d, 100000 * US);
	MRC_T_RUN(check_delivered(&d));
	return teardown(&d);
}

/*
 * Plane 3 dies mid-transfer: both hosts' ports go down, the control side
 * reads it at once and tells the peers. Not one packet is offered to the
 * dead plane from then on.
 */
static int
test_plane_down(void)
{
	static struct drive d;
	int rc = setup(&d, 0, 31);
	uint64_t sent_before = 0, sent_after = 0;

	if (rc != MRC_TEST_OK)
		return rc;
	MRC_T_RUN(post(&d, 16));
	drive(&d, 20 * US); /* mid-transfer */
	MRC_T_EQ(mrc_fabric_set_plane(d.net.fab, 3, MRC_FABRIC_DOWN), 0);
	mrc_test_net_links(&d.net);
	for (unsigned int h = 0; h < 2; h++) {
		MRC_T_EQ(d.net.port_mask[h], 0xff & ~(1u << 3));
		sent_before += mrc_shard_plane_counters(d.net.shard[h], 3)->tx_pkts;
	}
	MRC_T_ASSERT(sent_before > 0, "traffic was flowing on plane 3");
	drive(&d, 100000 * US);
	MRC_T_RUN(check_delivered(&d));
	for (unsigned int h = 0; h < 2; h++)
		sent_after += mrc_shard_plane_counters(d.net.shard[h], 3)->tx_pkts;
	MRC_T_U64_EQ(sent_after, sent_before);
	printf("  plane 3 down after %llu packets on it; %llu dropped in flight, %llu resent\n",
		(unsigned long long)sent_before,
		(unsigned long long)mrc_fabric_counters(d.net.fab)->drop_down,
		(unsigned long long)mrc_qp_counters(d.f[0].p.h[0].qp)->tx_retx_pkts);
	return teardown(&d);
}

/* A window far above the BDP: the queues pile up. */
static void
fixed_big_window(struct mrc_test_pair_cfg *pc)
{
	snprintf(pc->attr.cc_name, sizeof(pc->attr.cc_name), "fixed");
	pc->attr.cc.fixed_cwnd_bytes = 2u << 20;
	pc->attr.cc.link_bps = 200000000000ull; /* 8 planes x 25 Gb/s */
}

/*
 * Two senders with windows far above the BDP on 25 Gb/s links, trimming
 * above 30 KB, no ECN. mid: hosts 0 and 1 (T0 0) to hosts 2 and 3 (T0 1)
 * through the one T1 of each plane: T0 0 -> T1 is 2:1 overloaded, the last
 * hops are not. last: hosts 0 and 2 to host 1 (a T0 each, 4 T1s): only
 * host 1's last hops are 2:1 overloaded. Every trim is NACKed and resent,
 * nothing is dropped, no EV is retired and no timer fires: a trim is
 * congestion, not a dead path.
 */
static int
trim_run(struct drive *d, bool last)
{
	uint64_t trims, rx_trimmed = 0, nacks = 0, retx = 0, retired = 0, rto = 0;
	uint64_t ev_order = 0, by_time = 0, timeout = 0;
	int rc = mrc_test_eal_init("test_transport");

	if (rc != 0)
		return rc;
	memset(d, 0, sizeof(*d));
	net_defaults(d, last ? 3 : 4, 41, false);
	if (!last) {
		d->ncfg.fabric.hosts_per_t0 = 2;
		d->ncfg.fabric.n_t1 = 1;
	}
	d->ncfg.fabric.link_gbps = 25; /* slower links: the fixed windows pile up */
	d->ncfg.fabric.trim_threshold_bytes = 30000;
	MRC_T_EQ(mrc_test_net_create(&d->net, &d->ncfg), 0);
	MRC_T_RUN(add_flow(
		d, 0, last ? 1 : 2, 41, MRC_QP_PATHS_SPRAY, MRC_QP_REL_SACK, fixed_big_window));
	MRC_T_RUN(add_flow(d, last ? 2 : 1, last ? 1 : 3, 42, MRC_QP_PATHS_SPRAY, MRC_QP_REL_SACK,
		fixed_big_window));
	MRC_T_RUN(post_on(d, 0, 8));
	MRC_T_RUN(post_on(d, 1, 8));
	drive(d, 200000 * US);
	MRC_T_RUN(check_delivered(d));
	const struct mrc_fabric_counters *fc = mrc_fabric_counters(d->net.fab);

	trims = fc->trims;
	for (unsigned int k = 0; k < 2; k++) {
		const struct mrc_qp_counters *c = mrc_qp_counters(d->f[k].p.h[0].qp);
		const struct mrc_ev_pool_counters *ec =
			mrc_ev_counters(mrc_qp_ev_pool(d->f[k].p.h[0].qp));
		const struct mrc_rel_tx *rtx = mrc_qp_rel_tx(d->f[k].p.h[0].qp);

		rx_trimmed += mrc_qp_counters(d->f[k].p.h[1].qp)->rx_trimmed_pkts;
		nacks += c->rx_nacks;
		retx += c->tx_retx_pkts;
		d->skips += ec->skips;
		retired += ec->retired;
		rto += rtx->stats.rto_fired;
		ev_order += rtx->stats.lost[MRC_REL_LOSS_EV_ORDER];
		by_time += rtx->stats.lost[MRC_REL_LOSS_TIME];
		timeout += rtx->stats.lost[MRC_REL_LOSS_PKT_TIMEOUT];
	}
	MRC_T_ASSERT(trims > 100, "the fabric trimmed (%llu)", (unsigned long long)trims);
	MRC_T_EQ(fc->trims_lasthop, last ? trims : 0); /* where the two flows meet */
	MRC_T_EQ(rx_trimmed, trims);
	MRC_T_EQ(nacks, trims); /* every trim NACKed */
	/* ... and resent; other loss rules may fire on a packet stuck behind the queues. */
	MRC_T_ASSERT(retx >= trims && retx <= trims + trims / 100 + 2,
		"%llu resends for %llu trims (ev-order %llu, time %llu, timeout %llu)",
		(unsigned long long)retx, (unsigned long long)trims, (unsigned long long)ev_order,
		(unsigned long long)by_time, (unsigned long long)timeout);
	MRC_T_EQ(fc->drop_queue, 0);
	MRC_T_EQ(fc->drop_loss + fc->drop_down + fc->drop_blackhole, 0);
	MRC_T_EQ(retired, 0);
	MRC_T_EQ(rto, 0);
	printf("  2:1 %s: %llu trims, %llu NACKs, %llu resends, %llu EV skips, 0 EVs retired\n",
		last ? "at the last hop (incast)" : "at T0 -> T1", (unsigned long long)trims,
		(unsigned long long)nacks, (unsigned long long)retx, (unsigned long long)d->skips);
	return MRC_TEST_OK;
}

/* Trimmed mid-fabric: the EV that met the queue is skipped (SKIP), never retired. */
static int
test_trims_nacked_not_blamed(void)
{
	static struct drive d;
	int rc = trim_run(&d, false);

	if (rc != MRC_TEST_OK)
		return rc;
	MRC_T_ASSERT(d.skips > 0, "trimmed EVs were skipped");
	return teardown(&d);
}

/* Trimmed at the destination's own link (incast): not a property of the path, no EV moves. */
static int
test_incast_trims_last_hop_move_no_ev(void)
{
	static struct drive d;
	int rc = trim_run(&d, true);

	if (rc != MRC_TEST_OK)
		return rc;
	MRC_T_EQ(d.skips, 0);
	return teardown(&d);
}

/*
 * One path marks ECN on everything it carries: traffic moves off it,
 * nothing is lost. Only the path under test marks: the fabric's own queue
 * marking is off. Run with the NIC tx room rule, as the daemon over the
 * fabric (the marked path carried 0.68 of its plane's mean), and without
 * it, as on NIC ports that tell nothing of their queues (0.52).
 */
static int
ecn_moves_traffic(bool room)
{
	static struct drive d;
	int rc = setup_room(&d, 0, 51, false, MRC_QP_PATHS_SPRAY, MRC_QP_REL_SACK, room);
	const struct mrc_fabric_target t1 = {.elem = MRC_FABRIC_ELEM_T1, .plane = 5, .a = 2};

	if (rc != MRC_TEST_OK)
		return rc;
	MRC_T_EQ(mrc_fabric_set_mark(d.net.fab, &t1, 1.0), 0);
	MRC_T_RUN(post(&d, 32));
	drive(&d, 100000 * US);
	MRC_T_RUN(check_delivered(&d));
	const struct mrc_qp_counters *c = mrc_qp_counters(d.f[0].p.h[0].qp);
	const double mean = (double)plane_bytes_to(&d, 5, 1) / 4;
	const double share = path_bytes_to(&d, 5, 2, 1) / mean;
	struct mrc_fabric_switch_counters sw;

	MRC_T_EQ(mrc_fabric_switch_stats(d.net.fab, 1, 5, 2, &sw), 0);
	MRC_T_ASSERT(sw.ecn_marks > 0, "marks were made");
	MRC_T_EQ(mrc_fabric_counters(d.net.fab)->ecn_marks, sw.ecn_marks); /* there only */
	MRC_T_ASSERT(c->ecn_echoes > 0, "marks were echoed");
	MRC_T_ASSERT(
		mrc_ev_counters(mrc_qp_ev_pool(d.f[0].p.h[0].qp))->skips > 0, "EVs were skipped");
	MRC_T_ASSERT(share < 0.8, "the marked path still carried %.2f of its plane's mean", share);
	MRC_T_EQ(c->tx_retx_pkts, 0);
	printf("  ECN on plane 5 / T1 2 (%s the NIC room rule): %llu marks, %llu echoed, that path "
	       "carried %.2f of its plane's mean, 0 resends\n",
		room ? "with" : "without", (unsigned long long)sw.ecn_marks,
		(unsigned long long)c->ecn_echoes, share);
	return teardown(&d);
}

static int
test_ecn_moves_traffic_off_a_path(void)
{
	MRC_T_RUN(ecn_moves_traffic(true));
	return ecn_moves_traffic(false);
}

/*
 * Two faults in a row that the hosts cannot see (black holes: every port
 * stays up, like a T0-T1 link down behind the T0). Planes 0-5 fail first:
 * their EVs are retired until the floor (ev_min_active, 32 = planes 6 and
 * 7's active EVs) holds the rest. Planes 0-5 heal, and planes 6-7 fail
 * before a probe could re-admit anything. Every usable EV is now on a dead
 * plane, and stays usable: the floor, and a peer that hears nothing and so
 * reveals no loss but the QP timer's. The sender must still find the healed
 * planes and finish (it once stood still for good, no error, no progress:
 * no retired EV is probed while the QP timer has fired).
 */
static int
test_floor_on_dead_planes(void)
{
	static struct drive d;
	int rc = setup(&d, 0, 51);
	const struct mrc_ev_pool *pool;

	if (rc != MRC_TEST_OK)
		return rc;
	pool = mrc_qp_ev_pool(d.f[0].p.h[0].qp);
	MRC_T_RUN(post(&d, 8));
	drive(&d, 20 * US);
	for (unsigned int pl = 0; pl < 6; pl++)
		MRC_T_EQ(mrc_fabric_set_plane(d.net.fab, pl, MRC_FABRIC_BLACKHOLE), 0);
	/* Until every usable EV of host 0 left is on planes 6 and 7. */
	for (int i = 0; i < 2000; i++) {
		struct mrc_ev_counts c;
		unsigned int usable_low = 0;

		for (uint8_t pl = 0; pl < 6; pl++) {
			MRC_T_EQ(mrc_ev_plane_counts(pool, pl, &c), 0);
			usable_low += c.active[MRC_EV_GOOD] + c.active[MRC_EV_SKIP];
		}
		if (usable_low == 0)
			break;
		drive(&d, 1 * US);
	}
	MRC_T_ASSERT(mrc_ev_counters(pool)->retired > 0, "planes 0-5's EVs retired");
	for (unsigned int pl = 0; pl < 8; pl++)
		MRC_T_EQ(mrc_fabric_set_plane(
				 d.net.fab, pl, pl >= 6 ? MRC_FABRIC_BLACKHOLE : MRC_FABRIC_UP),
			0);
	drive(&d, 200000 * US);
	printf("  dead planes under the floor: %llu floor holds, %llu EVs re-admitted when "
	       "the QP stood still, %u of %u messages done, %llu resent\n",
		(unsigned long long)mrc_ev_counters(pool)->floor_holds,
		(unsigned long long)mrc_ev_counters(pool)->stall_readmitted, d.f[0].done[0],
		d.f[0].posted, (unsigned long long)mrc_qp_counters(d.f[0].p.h[0].qp)->tx_retx_pkts);
	MRC_T_ASSERT(mrc_ev_counters(pool)->stall_readmitted > 0, "the pool started afresh");
	MRC_T_RUN(check_delivered(&d));
	return teardown(&d);
}

static const struct mrc_test_case cases[] = {
	MRC_TEST_CASE(test_spraying_without_loss),
	MRC_TEST_CASE(test_loss_0_1_percent),
	MRC_TEST_CASE(test_loss_1_percent),
	MRC_TEST_CASE(test_loss_5_percent),
	MRC_TEST_CASE(test_ecmp_one_ev_under_loss),
	MRC_TEST_CASE(test_gbn_under_loss),
	MRC_TEST_CASE(test_black_hole_retire_and_readmit),
	MRC_TEST_CASE(test_link_heals_under_load),
	MRC_TEST_CASE(test_plane_down),
	MRC_TEST_CASE(test_trims_nacked_not_blamed),
	MRC_TEST_CASE(test_incast_trims_last_hop_move_no_ev),
	MRC_TEST_CASE(test_ecn_moves_traffic_off_a_path),
	MRC_TEST_CASE(test_floor_on_dead_planes),
};

MRC_TEST_MAIN("transport", cases)
