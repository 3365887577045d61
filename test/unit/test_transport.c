/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * The transport core on a simulated multi-plane network (test/lib/mrc_sim):
 * two hosts, 8 planes of 100 Gb/s, 4 T1s per plane, real packets through
 * the real codec, a fake clock and seeded randomness, so every run is the
 * same. Each scenario moves messages and checks that every byte arrives
 * exactly once, and that the paths, EVs and counters tell the story the
 * protocol promises: spraying without spurious resends, even load, random
 * loss survived, black-holed paths retired and re-admitted, a dead plane
 * left alone, trims NACKed and resent without blaming the path, ECN moving
 * traffic off a path.
 */

#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>

#include "mrc_rel_rx.h"
#include "mrc_rel_tx.h"
#include "mrc_sim.h"
#include "mrc_test.h"
#include "mrc_test_qp.h"

#define US  1000ull
#define MSG (256u * 1024)

struct drive {
	struct mrc_test_pair p;
	struct mrc_test_pair_cfg pcfg;
	struct mrc_sim *sim;
	uint32_t port_ok[2]; /* local ports up, per host */
	uint32_t mark_plane; /* CE-mark packets on (plane, uplink), when mark_on */
	uint32_t mark_uplink;
	bool mark_on;
	uint64_t marked;
	uint32_t posted, done[2], errors;
	uint8_t wr_done[512];
	uint64_t first_drop_ns, first_bad_ns; /* black hole: first drop, first EV retired */
};

static int
setup_full(
	struct drive *d, double loss, uint64_t seed, bool ecn, uint8_t paths, uint8_t reliability)
{
	struct mrc_sim_cfg sc;
	int rc = mrc_test_eal_init("test_transport");

	if (rc != 0)
		return rc;
	memset(d, 0, sizeof(*d));
	mrc_test_pair_cfg_defaults(&d->pcfg);
	d->pcfg.mem_len = 16u << 20;
	d->pcfg.seed = seed;
	d->pcfg.attr.cc.link_bps = 800000000000ull; /* 8 planes x 100 Gb/s */
	d->pcfg.attr.cc.base_rtt_ns = 10000;
	d->pcfg.attr.paths = paths;
	d->pcfg.attr.reliability = reliability;
	if (paths == MRC_QP_PATHS_ECMP)
		d->pcfg.attr.cc.link_bps = 100000000000ull; /* one path, one plane */
	if (mrc_test_pair_create(&d->p, &d->pcfg) != 0)
		return MRC_TEST_FAIL;
	mrc_sim_cfg_defaults(&sc);
	sc.n_hosts = 2;
	sc.n_planes = 8;
	sc.n_uplinks = 4;
	sc.jitter_ns = 300;
	sc.loss_prob = loss;
	if (!ecn)
		sc.ecn_kmax_bytes = 0;
	sc.seed = seed;
	sc.wire = d->p.wire;
	sc.layout = d->pcfg.attr.ev.layout;
	d->sim = mrc_sim_create(&sc);
	if (d->sim == NULL)
		return MRC_TEST_FAIL;
	d->port_ok[0] = d->port_ok[1] = 0xff;
	return MRC_TEST_OK;
}

static int
setup_ecn(struct drive *d, double loss, uint64_t seed, bool ecn)
{
	return setup_full(d, loss, seed, ecn, MRC_QP_PATHS_SPRAY, MRC_QP_REL_SACK);
}

static int
setup_modes(struct drive *d, double loss, uint64_t seed, uint8_t paths, uint8_t reliability)
{
	return setup_full(d, loss, seed, true, paths, reliability);
}

static int
setup(struct drive *d, double loss, uint64_t seed)
{
	return setup_ecn(d, loss, seed, true);
}

static void
teardown(struct drive *d)
{
	mrc_sim_free(d->sim);
	mrc_test_pair_destroy(&d->p);
}

/* Post `n` messages of MSG bytes from host 0 to host 1 (every other one with immediate). */
static int
post(struct drive *d, unsigned int n)
{
	struct mrc_test_host *s = &d->p.h[0], *r = &d->p.h[1];

	for (unsigned int k = 0; k < n; k++, d->posted++) {
		size_t off = (size_t)(d->posted % 48) * MSG;

		mrc_test_fill(s, off, MSG, d->posted);
		MRC_T_EQ(mrc_qp_post_write(s->qp, d->posted, s->mem + off, MSG, s->key,
				 (uint64_t)(uintptr_t)r->mem + off, r->key, d->posted & 1,
				 d->posted),
			0);
	}
	return MRC_TEST_OK;
}

static void
set_ce(struct rte_mbuf *m, const struct mrc_pkt *v)
{
	uint8_t *b = rte_pktmbuf_mtod_offset(m, uint8_t *, v->l3_off);

	b[1] |= 0x30; /* ECN bits of the outermost IPv6 header: CE */
}

/* Advance 100 ns at a time until every posted message completed, or `limit_ns` passes. */
static void
drive(struct drive *d, uint64_t limit_ns)
{
	struct mrc_test_pair *p = &d->p;
	const uint64_t end = p->now + limit_ns;
	struct rte_mbuf *pk[64];
	struct mrc_cqe e[64];

	while (p->now < end) {
		for (uint8_t i = 0; i < 2; i++) {
			uint16_t n = mrc_qp_tx_burst(
				p->h[i].qp, p->now, d->port_ok[i], &p->rand, pk, 64);

			for (uint16_t k = 0; k < n; k++)
				mrc_sim_send(d->sim, i, (uint8_t)(1 - i), pk[k], p->now);
			mrc_qp_poll(p->h[i].qp, p->now);
		}
		for (uint8_t i = 0; i < 2; i++) {
			unsigned int n = mrc_sim_recv(d->sim, i, pk, 64, p->now);

			for (unsigned int k = 0; k < n; k++) {
				struct mrc_pkt v;

				if (mrc_pkt_parse(pk[k], &p->wire, &v) != MRC_WIRE_OK) {
					d->errors++;
					rte_pktmbuf_free(pk[k]);
					continue;
				}
				if (d->mark_on && mrc_opcode_is_data(v.bth.opcode) &&
					mrc_ev_layout_plane(&d->pcfg.attr.ev.layout, v.ev) ==
						d->mark_plane &&
					mrc_ev_layout_uplink(&d->pcfg.attr.ev.layout, v.ev) % 4 ==
						d->mark_uplink) {
					set_ce(pk[k], &v);
					v.outer.ecn = MRC_ECN_CE;
					d->marked++;
				}
				mrc_qp_rx(p->h[i].qp, pk[k], &v, p->now);
			}
		}
		for (int i = 0; i < 2; i++) {
			unsigned int n;

			while ((n = mrc_cq_poll(p->h[i].cq, e, 64)) > 0)
				for (unsigned int k = 0; k < n; k++) {
					if (e[k].status != MRC_CQE_OK)
						d->errors++;
					else if (e[k].opcode != MRC_CQE_RECV_IMM &&
						 e[k].wr_id < 512)
						d->wr_done[e[k].wr_id]++;
					d->done[i]++;
				}
		}
		if (d->first_drop_ns == 0 &&
			mrc_sim_stats(d->sim)->total.drops[MRC_SIM_DROP_BLACKHOLE] > 0)
			d->first_drop_ns = p->now;
		if (d->first_drop_ns != 0 && d->first_bad_ns == 0 &&
			mrc_ev_counters(mrc_qp_ev_pool(p->h[0].qp))->retired > 0)
			d->first_bad_ns = p->now;
		if (mrc_qp_idle(p->h[0].qp) && mrc_qp_idle(p->h[1].qp) &&
			mrc_sim_in_flight(d->sim) == 0)
			break;
		p->now += 100;
	}
}

/* Every posted message completed once, and the receiver holds exactly what was sent. */
static int
check_delivered(struct drive *d)
{
	MRC_T_EQ(d->errors, 0);
	for (uint32_t k = 0; k < d->posted; k++)
		MRC_T_ASSERT(d->wr_done[k] == 1, "message %u completed %u times", k, d->wr_done[k]);
	MRC_T_MEMEQ(d->p.h[1].mem, d->p.h[0].mem, (size_t)RTE_MIN(d->posted, 48u) * MSG);
	MRC_T_EQ(mrc_qp_state(d->p.h[0].qp), MRC_QP_RTS);
	MRC_T_EQ(mrc_qp_state(d->p.h[1].qp), MRC_QP_RTS);
	MRC_T_EQ(mrc_qp_counters(d->p.h[1].qp)->imm_delivered, d->posted / 2);
	MRC_T_EQ(rte_mempool_avail_count(d->p.pool), d->p.pool->size);
	return MRC_TEST_OK;
}

static int
test_spraying_without_loss(void)
{
	static struct drive d;
	/* No ECN here: marks would (rightly) steer traffic and blur the spraying itself. */
	int rc = setup_ecn(&d, 0, 1, false);

	if (rc != MRC_TEST_OK)
		return rc;
	MRC_T_RUN(post(&d, 32)); /* 8 MiB */
	drive(&d, 20000 * US);
	MRC_T_RUN(check_delivered(&d));
	const struct mrc_qp_counters *c = mrc_qp_counters(d.p.h[0].qp);
	const struct mrc_rel_rx *rx = mrc_qp_rel_rx(d.p.h[1].qp);
	const struct mrc_sim_stats *st = mrc_sim_stats(d.sim);

	/* Reordering everywhere, and not one resend because of it. */
	MRC_T_ASSERT(rx->stats.ooo_pkts > c->tx_data_pkts / 10, "only %llu of %llu out of order",
		(unsigned long long)rx->stats.ooo_pkts, (unsigned long long)c->tx_data_pkts);
	MRC_T_EQ(c->tx_retx_pkts, 0);
	MRC_T_EQ(mrc_ev_counters(mrc_qp_ev_pool(d.p.h[0].qp))->retired, 0);
	/* Even load: every plane and every (plane, T1) path within 5% of the mean. */
	double mean = 0;

	for (int pl = 0; pl < 8; pl++)
		mean += (double)st->plane[pl].delivered_bytes / 8;
	for (int pl = 0; pl < 8; pl++) {
		double r = st->plane[pl].delivered_bytes / mean;

		MRC_T_ASSERT(r > 0.95 && r < 1.05, "plane %d carried %.3f of the mean", pl, r);
		for (int u = 0; u < 4; u++) {
			double ru = st->path[pl][u].delivered_bytes / (mean / 4);

			MRC_T_ASSERT(ru > 0.85 && ru < 1.15, "path %d/%d carried %.3f of the mean",
				pl, u, ru);
		}
	}
	/* Per-EV statistics: every active EV carried its share, and was acknowledged. */
	const struct mrc_ev_pool *pool = mrc_qp_ev_pool(d.p.h[0].qp);
	uint64_t ev_pkts = 0;

	for (int sl = 0; sl < 128; sl++) {
		const struct mrc_ev_stats *es = mrc_ev_slot_stats(pool, sl);

		MRC_T_ASSERT(es != NULL, "per-EV statistics kept");
		MRC_T_ASSERT(es->tx_pkts >= 8 && es->tx_pkts <= 24, "EV slot %d sent %llu of 2048",
			sl, (unsigned long long)es->tx_pkts);
		ev_pkts += es->tx_pkts;
	}
	MRC_T_EQ(ev_pkts, c->tx_data_pkts);
	printf("  8 MiB in %.1f us: %llu data packets, %llu out of order at the receiver, "
	       "0 resends\n",
		d.p.now / 1e3, (unsigned long long)c->tx_data_pkts,
		(unsigned long long)rx->stats.ooo_pkts);
	teardown(&d);
	return MRC_TEST_OK;
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
	const struct mrc_qp_counters *c = mrc_qp_counters(d.p.h[0].qp);
	const struct mrc_sim_stats *st = mrc_sim_stats(d.sim);
	const uint64_t drops = st->total.drops[MRC_SIM_DROP_LOSS];

	printf("  %.1f%% loss: %llu packets dropped, %llu resent, %llu EVs retired, done in %.1f "
	       "us\n",
		loss * 100, (unsigned long long)drops, (unsigned long long)c->tx_retx_pkts,
		(unsigned long long)mrc_ev_counters(mrc_qp_ev_pool(d.p.h[0].qp))->retired,
		d.p.now / 1e3);
	teardown(&d);
	return MRC_TEST_OK;
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
	int rc = setup_modes(
		&d, 0.01, 21, MRC_QP_PATHS_ECMP, gbn ? MRC_QP_REL_GBN : MRC_QP_REL_SACK);

	if (rc != MRC_TEST_OK)
		return rc;
	MRC_T_RUN(post(&d, 16)); /* 4 MiB */
	drive(&d, 400000 * US);
	MRC_T_RUN(check_delivered(&d));
	const struct mrc_qp_counters *c = mrc_qp_counters(d.p.h[0].qp);
	const struct mrc_qp_counters *rc_ = mrc_qp_counters(d.p.h[1].qp);
	const struct mrc_sim_stats *st = mrc_sim_stats(d.sim);
	const struct mrc_ev_pool *pool = mrc_qp_ev_pool(d.p.h[0].qp);
	const struct mrc_rel_tx *rtx = mrc_qp_rel_tx(d.p.h[0].qp);
	unsigned int paths = 0, evs = 0;

	for (int pl = 0; pl < 8; pl++)
		for (int u = 0; u < 4; u++)
			paths += st->path[pl][u].sent_pkts != 0;
	MRC_T_EQ(paths, 1); /* SACKs echo the data's EV, so they share its path */
	for (int sl = 0; sl < mrc_ev_n_slots(pool); sl++)
		evs += mrc_ev_slot_stats(pool, sl)->tx_pkts != 0;
	MRC_T_EQ(evs, 1);
	MRC_T_ASSERT(c->tx_retx_pkts > 0, "1%% loss and nothing resent");
	MRC_T_EQ(mrc_ev_counters(pool)->retired, 0);
	MRC_T_EQ(mrc_ev_counters(pool)->skips, 0);
	if (gbn) {
		MRC_T_EQ(mrc_qp_rel_rx(d.p.h[1].qp)->stats.ooo_pkts, 0);
		MRC_T_ASSERT(rc_->rx_oos_pkts > 0, "no gap was ever seen");
		MRC_T_ASSERT(rtx->stats.lost[MRC_REL_LOSS_REWIND] > 0, "never rewound");
		MRC_T_ASSERT(c->tx_retx_pkts > st->total.drops[MRC_SIM_DROP_LOSS],
			"go-back-N resent %llu for %llu drops", (unsigned long long)c->tx_retx_pkts,
			(unsigned long long)st->total.drops[MRC_SIM_DROP_LOSS]);
	} else {
		MRC_T_EQ(rtx->stats.lost[MRC_REL_LOSS_REWIND], 0);
		MRC_T_EQ(rc_->rx_oos_pkts, 0);
	}
	printf("  %s, 1%% loss: %llu dropped, %llu resent, %llu out of sequence, done in %.1f us\n",
		gbn ? "ecmp + go-back-N" : "ecmp + SACK",
		(unsigned long long)st->total.drops[MRC_SIM_DROP_LOSS],
		(unsigned long long)c->tx_retx_pkts, (unsigned long long)rc_->rx_oos_pkts,
		d.p.now / 1e3);
	teardown(&d);
	return MRC_TEST_OK;
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

/* EVs of plane 2 whose uplink is 1 (mod 4): the path the black hole kills. */
static unsigned int
count_path_evs(const struct drive *d, enum mrc_ev_state want, bool active_only)
{
	const struct mrc_ev_pool *pool = mrc_qp_ev_pool(d->p.h[0].qp);
	const struct mrc_ev_layout *l = &d->pcfg.attr.ev.layout;
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

static int
test_black_hole_retire_and_readmit(void)
{
	static struct drive d;
	int rc = setup(&d, 0, 21);
	struct mrc_ev_counts cnt;

	if (rc != MRC_TEST_OK)
		return rc;
	mrc_sim_set_path_blackhole(d.sim, 2, 1, true);
	MRC_T_RUN(post(&d, 16));
	drive(&d, 100000 * US);
	MRC_T_RUN(check_delivered(&d));
	const struct mrc_ev_pool *pool = mrc_qp_ev_pool(d.p.h[0].qp);
	const struct mrc_rel_tx *rtx = mrc_qp_rel_tx(d.p.h[0].qp);

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
	printf("  black hole: first loss at %.1f us, first EV retired %.1f us later "
	       "(bound %.1f us), %u EVs of the path retired\n",
		d.first_drop_ns / 1e3, (d.first_bad_ns - d.first_drop_ns) / 1e3, bound / 1e3, bad);

	/* Heal the path; keep traffic flowing while probes run: they come back. */
	mrc_sim_set_path_blackhole(d.sim, 2, 1, false);
	for (int round = 0; round < 40 && count_path_evs(&d, MRC_EV_ASSUMED_BAD, false) > 0;
		round++) {
		MRC_T_RUN(post(&d, 1));
		drive(&d, 1000 * US);
		d.p.now += 1000 * US; /* probe rounds are paced (1 ms apart by default) */
	}
	MRC_T_EQ(count_path_evs(&d, MRC_EV_ASSUMED_BAD, false), 0);
	MRC_T_ASSERT(mrc_ev_counters(pool)->readmitted >= bad, "readmitted through probes");
	MRC_T_RUN(check_delivered(&d));
	teardown(&d);
	return MRC_TEST_OK;
}

static int
test_plane_down(void)
{
	static struct drive d;
	int rc = setup(&d, 0, 31);

	if (rc != MRC_TEST_OK)
		return rc;
	MRC_T_RUN(post(&d, 16));
	drive(&d, 20 * US); /* mid-transfer */
	/* Both ends lose plane 3: the port goes down here, the peer learns it by port status. */
	mrc_sim_set_plane(d.sim, 3, MRC_SIM_DOWN);
	d.port_ok[0] = d.port_ok[1] = 0xff & ~(1u << 3);
	mrc_qp_set_peer_planes(d.p.h[0].qp, 0xff & ~(1u << 3));
	mrc_qp_set_peer_planes(d.p.h[1].qp, 0xff & ~(1u << 3));
	const uint64_t sent_before = mrc_sim_stats(d.sim)->plane[3].sent_pkts;

	drive(&d, 100000 * US);
	MRC_T_RUN(check_delivered(&d));
	/* Not one packet offered to the dead plane after the moment it died. */
	MRC_T_EQ(mrc_sim_stats(d.sim)->plane[3].sent_pkts, sent_before);
	printf("  plane 3 down after %llu packets on it; %llu dropped in flight, %llu resent\n",
		(unsigned long long)sent_before,
		(unsigned long long)mrc_sim_stats(d.sim)->plane[3].drops[MRC_SIM_DROP_DOWN],
		(unsigned long long)mrc_qp_counters(d.p.h[0].qp)->tx_retx_pkts);
	teardown(&d);
	return MRC_TEST_OK;
}

/* Two senders into one receiver's last hops: trims, NACKs, resends; EVs only SKIP. */
static int
test_trims_nacked_not_blamed(void)
{
	static struct drive d;
	int rc = setup(&d, 0, 41);

	if (rc != MRC_TEST_OK)
		return rc;
	/* Bidirectional traffic plus a window far above the BDP overloads the links. */
	snprintf(d.pcfg.attr.cc_name, sizeof(d.pcfg.attr.cc_name), "fixed");
	d.pcfg.attr.cc.fixed_cwnd_bytes = 2u << 20;
	mrc_test_pair_destroy(&d.p);
	MRC_T_EQ(mrc_test_pair_create(&d.p, &d.pcfg), 0);
	mrc_sim_free(d.sim);
	struct mrc_sim_cfg sc;

	mrc_sim_cfg_defaults(&sc);
	sc.n_hosts = 2;
	sc.n_planes = 8;
	sc.n_uplinks = 4;
	sc.link_gbps = 25; /* slower links: the fixed window piles up */
	sc.trim_threshold_bytes = 30000;
	sc.ecn_kmax_bytes = 0;
	sc.seed = 41;
	sc.wire = d.p.wire;
	sc.layout = d.pcfg.attr.ev.layout;
	d.sim = mrc_sim_create(&sc);
	MRC_T_RUN(post(&d, 8));
	drive(&d, 200000 * US);
	MRC_T_RUN(check_delivered(&d));
	const struct mrc_sim_stats *st = mrc_sim_stats(d.sim);
	const struct mrc_qp_counters *c = mrc_qp_counters(d.p.h[0].qp);
	const struct mrc_ev_pool_counters *ec = mrc_ev_counters(mrc_qp_ev_pool(d.p.h[0].qp));

	MRC_T_ASSERT(st->total.trims > 0, "the fabric trimmed");
	MRC_T_EQ(mrc_qp_counters(d.p.h[1].qp)->rx_trimmed_pkts, st->total.trims);
	MRC_T_EQ(c->rx_nacks, st->total.trims); /* every trim NACKed */
	/* ... and resent; other loss rules may fire on a packet stuck behind the queues. */
	const struct mrc_rel_tx *rtx = mrc_qp_rel_tx(d.p.h[0].qp);

	MRC_T_ASSERT(c->tx_retx_pkts >= st->total.trims &&
			     c->tx_retx_pkts <= st->total.trims + st->total.trims / 100 + 2,
		"%llu resends for %llu trims (ev-order %llu, time %llu, timeout %llu)",
		(unsigned long long)c->tx_retx_pkts, (unsigned long long)st->total.trims,
		(unsigned long long)rtx->stats.lost[MRC_REL_LOSS_EV_ORDER],
		(unsigned long long)rtx->stats.lost[MRC_REL_LOSS_TIME],
		(unsigned long long)rtx->stats.lost[MRC_REL_LOSS_PKT_TIMEOUT]);
	MRC_T_EQ(st->total.drops[MRC_SIM_DROP_QUEUE], 0);
	MRC_T_ASSERT(ec->skips > 0, "trimmed EVs were skipped");
	MRC_T_EQ(ec->retired, 0); /* a trim is congestion, not a dead path */
	MRC_T_EQ(rtx->stats.rto_fired, 0);
	printf("  %llu trims (%llu at the last hop): %llu NACKs, %llu resends, %llu EV skips, "
	       "0 EVs retired\n",
		(unsigned long long)st->total.trims, (unsigned long long)st->total.trims_lasthop,
		(unsigned long long)c->rx_nacks, (unsigned long long)c->tx_retx_pkts,
		(unsigned long long)ec->skips);
	teardown(&d);
	return MRC_TEST_OK;
}

/* One path marks ECN on everything: traffic moves off it, nothing is lost. */
static int
test_ecn_moves_traffic_off_a_path(void)
{
	static struct drive d;
	/* Only the path under test marks: the fabric's own queue marking is off. */
	int rc = setup_ecn(&d, 0, 51, false);

	if (rc != MRC_TEST_OK)
		return rc;
	d.mark_on = true;
	d.mark_plane = 5;
	d.mark_uplink = 2;
	MRC_T_RUN(post(&d, 32));
	drive(&d, 100000 * US);
	MRC_T_RUN(check_delivered(&d));
	const struct mrc_sim_stats *st = mrc_sim_stats(d.sim);
	const struct mrc_qp_counters *c = mrc_qp_counters(d.p.h[0].qp);
	double mean = (double)st->plane[5].delivered_bytes / 4;
	double share = st->path[5][2].delivered_bytes / mean;

	MRC_T_ASSERT(d.marked > 0, "marks were made");
	MRC_T_ASSERT(c->ecn_echoes > 0, "marks were echoed");
	MRC_T_ASSERT(mrc_ev_counters(mrc_qp_ev_pool(d.p.h[0].qp))->skips > 0, "EVs were skipped");
	MRC_T_ASSERT(share < 0.8, "the marked path still carried %.2f of its plane's mean", share);
	MRC_T_EQ(c->tx_retx_pkts, 0);
	printf("  ECN on plane 5 / T1 2: %llu marks echoed, that path carried %.2f of its "
	       "plane's mean, 0 resends\n",
		(unsigned long long)c->ecn_echoes, share);
	teardown(&d);
	return MRC_TEST_OK;
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
	pool = mrc_qp_ev_pool(d.p.h[0].qp);
	MRC_T_RUN(post(&d, 8));
	drive(&d, 20 * US);
	for (uint8_t pl = 0; pl < 6; pl++)
		for (uint8_t u = 0; u < 4; u++)
			mrc_sim_set_path_blackhole(d.sim, pl, u, true);
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
	for (uint8_t pl = 0; pl < 8; pl++)
		for (uint8_t u = 0; u < 4; u++)
			mrc_sim_set_path_blackhole(d.sim, pl, u, pl >= 6);
	drive(&d, 200000 * US);
	printf("  dead planes under the floor: %llu floor holds, %llu EVs re-admitted when "
	       "the QP stood still, %u of %u messages done, %llu resent\n",
		(unsigned long long)mrc_ev_counters(pool)->floor_holds,
		(unsigned long long)mrc_ev_counters(pool)->stall_readmitted, d.done[0], d.posted,
		(unsigned long long)mrc_qp_counters(d.p.h[0].qp)->tx_retx_pkts);
	MRC_T_ASSERT(mrc_ev_counters(pool)->stall_readmitted > 0, "the pool started afresh");
	MRC_T_RUN(check_delivered(&d));
	teardown(&d);
	return MRC_TEST_OK;
}

static const struct mrc_test_case cases[] = {
	MRC_TEST_CASE(test_spraying_without_loss),
	MRC_TEST_CASE(test_loss_0_1_percent),
	MRC_TEST_CASE(test_loss_1_percent),
	MRC_TEST_CASE(test_loss_5_percent),
	MRC_TEST_CASE(test_ecmp_one_ev_under_loss),
	MRC_TEST_CASE(test_gbn_under_loss),
	MRC_TEST_CASE(test_black_hole_retire_and_readmit),
	MRC_TEST_CASE(test_plane_down),
	MRC_TEST_CASE(test_trims_nacked_not_blamed),
	MRC_TEST_CASE(test_ecn_moves_traffic_off_a_path),
	MRC_TEST_CASE(test_floor_on_dead_planes),
};

MRC_TEST_MAIN("transport", cases)
