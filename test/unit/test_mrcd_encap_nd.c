/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * The encap rules of a port whose next hop neighbour discovery resolves
 * (app/mrcd/control/mrcd_encap_nd.c), driven with the recording backend and
 * the emulated NIC as the daemon drives them: nothing made before the MAC
 * is known; made with it and published; a new MAC unpublishes, waits until
 * every worker passed twice (not before), then remakes with the new MAC,
 * which is what the emulated NIC then writes; a lost next hop takes the
 * rules away; a refused rule clears its bit. And the recording backend's
 * hold: a rule change waits while the emulated NIC holds the table.
 */

#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "mrc_encap.h"
#include "mrc_flow.h"
#include "mrc_nic_emu.h"
#include "mrc_nic_loop.h"
#include "mrc_qp.h"
#include "mrc_test.h"
#include "mrc_test_mbuf.h"
#include "mrc_test_pkts.h"
#include "mrc_test_qp.h"
#include "mrc_wire.h"
#include "mrcd_encap_nd.h"

static struct rte_mempool *pool;
static struct mrc_wire_cfg wire;

/* The daemon's side, as the test keeps it. */
struct fake_owner {
	bool published;
	unsigned int publishes, refusals;
	uint16_t refused_fl;
	uint64_t pass[2]; /* two workers' loop counts */
};

static void
fake_publish(void *ctx, bool on)
{
	struct fake_owner *o = ctx;

	o->published = on;
	o->publishes++;
}

static void
fake_refused(void *ctx, const struct mrcd_encap_nd_rule *r, const struct mrc_flow_err *err)
{
	struct fake_owner *o = ctx;

	(void)err;
	o->refusals++;
	o->refused_fl = r->fl;
}

static int
setup(struct mrc_nic_loop **l, uint16_t *port)
{
	const struct mrc_nic_loop_cfg lc = {.name = "endq", .n_queues = 2, .ring_size = 64};
	struct rte_mempool *pools[2];
	const char *why = NULL;
	int rc = mrc_test_eal_init("test_mrcd_encap_nd");

	if (rc != 0)
		return rc;
	mrc_wire_cfg_defaults(&wire);
	if (pool == NULL)
		pool = rte_pktmbuf_pool_create(
			"encap_nd_test", 255, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	MRC_T_ASSERT(pool != NULL, "mbuf pool");
	mrc_flow_rec_reset();
	MRC_T_EQ(mrc_encap_meta_register(), 0);
	pools[0] = pools[1] = pool;
	*l = mrc_nic_loop_create(&lc, &why);
	MRC_T_ASSERT(*l != NULL, "loop: %s", why);
	MRC_T_EQ(mrc_nic_loop_start(*l, pools, &why), 0);
	*port = mrc_nic_loop_port(*l, 0);
	return MRC_TEST_OK;
}

/* The destination MAC the emulated NIC writes for a packet keyed `key` on `port`. */
static int
nic_dst(uint16_t port, const struct mrc_test_sample *s, uint32_t key, uint8_t mac[6],
	uint64_t *nomatch)
{
	struct mrc_test_sample o = *s;
	struct mrc_nic_emu_counters c = {0};
	struct rte_mbuf *m;

	o.pkt.flags |= MRC_PKT_F_NIC_ENCAP;
	m = mrc_test_sample_build(&o, &wire, NULL, 0);
	MRC_T_ASSERT(m != NULL, "offload build");
	mrc_encap_set_key(m, key);
	mrc_nic_emu_encap_port(port, &m, 1, &c);
	memcpy(mac, rte_pktmbuf_mtod(m, uint8_t *), 6);
	*nomatch = c.encap_nomatch_pkts;
	mrc_test_mbuf_free(m);
	return MRC_TEST_OK;
}

static uint64_t
word(const uint8_t *mac)
{
	uint64_t w = 0;

	memcpy(&w, mac, 6);
	return w;
}

static int
test_remake(void)
{
	static const uint8_t mac_a[6] = {0x02, 0xaa, 0, 0, 0, 1},
			     mac_b[6] = {0x02, 0xbb, 0, 0, 0, 2};
	struct mrcd_encap_nd e = {0};
	struct fake_owner o = {0};
	struct mrcd_encap_nd_env env = {
		.ctx = &o, .publish = fake_publish, .refused = fake_refused};
	struct mrc_test_sample s;
	struct mrc_nic_loop *l;
	uint8_t hdr[MRC_ENCAP_MAX_LEN], got[6];
	uint64_t nomatch;
	uint16_t port;
	size_t len;
	int rc = setup(&l, &port);

	if (rc != 0)
		return rc;
	env.passes[0] = &o.pass[0];
	env.passes[1] = &o.pass[1];
	env.n_passes = 2;
	e.ops = &mrc_flow_ops_rec;
	e.port = port;
	MRC_T_EQ(mrc_test_sample_get(0, &s), 0);
	len = mrc_pkt_encap_hdr(&s.pkt, &wire, hdr, sizeof(hdr));
	MRC_T_ASSERT(len > 14, "encap header");
	/* 4 flow-label halves x 4 classes, booked at setup with the config's MAC */
	for (uint16_t fl = 0; fl < 4; fl++)
		for (unsigned int cls = 0; cls < 4; cls++)
			MRC_T_EQ(
				mrcd_encap_nd_book(&e, mrc_qp_encap_key(UINT32_C(1) << 31, fl, cls),
					0, fl, hdr, len),
				0);
	MRC_T_EQ(e.n_book, 16);

	/* The next hop not known: nothing made, nothing shown. */
	MRC_T_EQ(mrcd_encap_nd_step(&e, &env, 0), MRCD_ENCAP_ND_NOTHING);
	MRC_T_EQ(mrc_flow_rec_encap_count(port), 0);
	MRC_T_ASSERT(!o.published && o.publishes == 0, "published before the MAC");

	/* Resolved: made with its MAC, then published. */
	MRC_T_EQ(mrcd_encap_nd_step(&e, &env, word(mac_a)), MRCD_ENCAP_ND_MADE);
	MRC_T_EQ(mrc_flow_rec_encap_count(port), 16);
	MRC_T_ASSERT(o.published && e.live, "published");
	MRC_T_EQ(nic_dst(port, &s, mrc_qp_encap_key(UINT32_C(1) << 31, 2, 1), got, &nomatch), 0);
	MRC_T_ASSERT(memcmp(got, mac_a, 6) == 0 && nomatch == 0, "the NIC writes MAC A");
	/* The rest of the bytes are the booked ones. */
	MRC_T_ASSERT(memcmp(e.book[5].hdr + 6, hdr + 6, len - 6) == 0, "bytes after the MAC");
	MRC_T_EQ(mrcd_encap_nd_step(&e, &env, word(mac_a)), MRCD_ENCAP_ND_NOTHING);
	MRC_T_EQ(e.remakes, 0);

	/* A new MAC: out of use at once; the old rules stay until every worker passed twice. */
	MRC_T_EQ(mrcd_encap_nd_step(&e, &env, word(mac_b)), MRCD_ENCAP_ND_OUT);
	MRC_T_ASSERT(!o.published, "unpublished");
	MRC_T_EQ(mrc_flow_rec_encap_count(port), 16);
	MRC_T_EQ(mrcd_encap_nd_step(&e, &env, word(mac_b)), MRCD_ENCAP_ND_GRACE);
	o.pass[0] += 5; /* one worker passes, the other does not */
	o.pass[1] += 1;
	MRC_T_EQ(mrcd_encap_nd_step(&e, &env, word(mac_b)), MRCD_ENCAP_ND_GRACE);
	MRC_T_EQ(mrc_flow_rec_encap_count(port), 16);
	MRC_T_ASSERT(!o.published, "published in the grace");
	o.pass[1] += 1;
	MRC_T_EQ(mrcd_encap_nd_step(&e, &env, word(mac_b)), MRCD_ENCAP_ND_REMADE);
	MRC_T_EQ(mrc_flow_rec_encap_count(port), 16);
	MRC_T_ASSERT(o.published, "published again");
	MRC_T_EQ(e.remakes, 1);
	MRC_T_EQ(nic_dst(port, &s, mrc_qp_encap_key(UINT32_C(1) << 31, 3, 0), got, &nomatch), 0);
	MRC_T_ASSERT(memcmp(got, mac_b, 6) == 0 && nomatch == 0, "the NIC writes MAC B");

	/* Lost: out, then gone after the grace; back: made again. */
	MRC_T_EQ(mrcd_encap_nd_step(&e, &env, 0), MRCD_ENCAP_ND_OUT);
	o.pass[0] += 2;
	o.pass[1] += 2;
	MRC_T_EQ(mrcd_encap_nd_step(&e, &env, 0), MRCD_ENCAP_ND_GONE);
	MRC_T_EQ(mrc_flow_rec_encap_count(port), 0);
	MRC_T_ASSERT(!o.published, "published without rules");
	MRC_T_EQ(nic_dst(port, &s, mrc_qp_encap_key(UINT32_C(1) << 31, 3, 0), got, &nomatch), 0);
	MRC_T_EQ(nomatch, 1);
	MRC_T_EQ(mrcd_encap_nd_step(&e, &env, word(mac_a)), MRCD_ENCAP_ND_REMADE);
	MRC_T_EQ(e.remakes, 2);
	MRC_T_EQ(mrc_flow_rec_encap_count(port), 16);

	/* A refused rule (its key taken): counted, its bit cleared, no more asked. */
	MRC_T_EQ(mrcd_encap_nd_book(&e, mrc_qp_encap_key(UINT32_C(1) << 31, 0, 0), 0, 9, hdr, len),
		0);
	MRC_T_EQ(mrcd_encap_nd_book(&e, mrc_qp_encap_key(UINT32_C(1) << 31, 9, 0), 0, 10, hdr, len),
		0);
	MRC_T_EQ(mrcd_encap_nd_step(&e, &env, word(mac_b)), MRCD_ENCAP_ND_OUT);
	o.pass[0] += 2;
	o.pass[1] += 2;
	MRC_T_EQ(mrcd_encap_nd_step(&e, &env, word(mac_b)), MRCD_ENCAP_ND_REMADE);
	MRC_T_EQ(e.fails, 1);
	MRC_T_EQ(o.refusals, 2); /* the refused one and the one after it */
	MRC_T_EQ(o.refused_fl, 10);
	MRC_T_EQ(mrc_flow_rec_encap_count(port), 16);

	MRC_T_EQ(mrcd_encap_nd_free(&e, NULL), 0);
	MRC_T_EQ(mrc_flow_rec_encap_count(port), 0);
	mrc_nic_loop_free(l);
	mrc_flow_rec_reset();
	return MRC_TEST_OK;
}

struct holder {
	uint16_t port;
	volatile bool holding, released;
};

static void *
hold_a_while(void *arg)
{
	struct holder *h = arg;
	unsigned int held;

	(void)mrc_flow_rec_encap_hold(h->port, &held);
	h->holding = true;
	usleep(50 * 1000);
	h->released = true;
	mrc_flow_rec_encap_release(h->port, held);
	return NULL;
}

/* A rule change waits while the emulated NIC (another thread) holds the table. */
static int
test_hold(void)
{
	struct mrc_test_sample s;
	struct mrc_nic_loop *l;
	struct holder h = {0};
	struct mrc_flow_err err;
	struct mrc_flow *f;
	uint8_t hdr[MRC_ENCAP_MAX_LEN];
	pthread_t t;
	size_t len;
	int rc = setup(&l, &h.port);

	if (rc != 0)
		return rc;
	MRC_T_EQ(mrc_test_sample_get(0, &s), 0);
	len = mrc_pkt_encap_hdr(&s.pkt, &wire, hdr, sizeof(hdr));
	f = mrc_encap_install(&mrc_flow_ops_rec, h.port, 5, hdr, len, &err);
	MRC_T_ASSERT(f != NULL, "install: %s", err.msg);
	MRC_T_EQ(pthread_create(&t, NULL, hold_a_while, &h), 0);
	while (!h.holding)
		usleep(100);
	/* the flip is done; the change returns only once the reader let go */
	MRC_T_EQ(mrc_flow_ops_rec.destroy(h.port, f, &err), 0);
	MRC_T_ASSERT(h.released, "the rule went while the table was held");
	MRC_T_EQ(pthread_join(t, NULL), 0);
	MRC_T_EQ(mrc_flow_rec_encap_count(h.port), 0);
	mrc_nic_loop_free(l);
	mrc_flow_rec_reset();
	return MRC_TEST_OK;
}

static const struct mrc_test_case cases[] = {
	MRC_TEST_CASE(test_remake),
	MRC_TEST_CASE(test_hold),
};

MRC_TEST_MAIN("mrcd_encap_nd", cases)
