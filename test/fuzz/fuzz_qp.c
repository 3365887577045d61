/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Fuzz a connected QP pair with arbitrary interleavings of real traffic
 * and crafted packets: data with wild PSNs, addresses, rkeys and lengths,
 * probes, SACKs with wild cumulative ACKs, offsets, bitmaps, EVs, MPRs,
 * echoes and penalties, NACKs with any reason, transport ACKs with any
 * syndrome (and the responder's window lowered and raised).
 * Crafted packets go through the real builder and parser,
 * exactly as a hostile peer's would. After every step:
 *  - nothing outside the responder's registered region changes (guard bytes
 *    on both sides of it, in the same allocation);
 *  - no message completes twice or without having been posted;
 *  - the requester never counts more acknowledged packets than it sent, and
 *    keeps in flight no more than the peer's window (its advertised window
 *    never beyond the negotiated one);
 *  - no mbuf leaks once the pair is drained.
 * EAL and the pair are set up once; each input starts from freshly
 * connected QPs: MRC's own modes (with TSETH, dynamic MPR and ALWAYS_SKIP
 * after two marks), or the reference modes (one ECMP path,
 * go-back-N) when the input's unused tail (size % 16 bytes) ends in an
 * odd byte, so existing seeds keep their meaning.
 */

#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>

#include "fuzz.h"
#include "mrc_rel_tx.h"
#include "mrc_test_qp.h"

#define GUARD  4096
#define REGION (256 * 1024)

static struct mrc_test_pair pair;
static struct mrc_test_pair_cfg pcfg;
static bool ready;
static uint32_t region_key;
static uint8_t *region;

static int
setup(void)
{
	if (mrc_test_eal_init("fuzz_qp") != 0)
		return -1;
	mrc_test_pair_cfg_defaults(&pcfg);
	pcfg.n_planes = 4;
	mrc_qp_attr_defaults(&pcfg.attr, 4, MRC_TEST_HZ);
	pcfg.attr.mpr = 1; /* small windows: wild PSNs reach the edges */
	pcfg.attr.peer_mpr = 1;
	pcfg.attr.wimm = 4;
	pcfg.attr.peer_wimm = 4;
	pcfg.attr.timeout = 2;
	pcfg.attr.retry_linear = 2;
	pcfg.attr.retry_exp = 2;
	pcfg.mtu = 256;
	pcfg.mem_len = REGION + 2 * GUARD;
	if (mrc_test_pair_create(&pair, &pcfg) != 0)
		return -1;
	/* The responder exposes only the middle: guards on both sides, same allocation. */
	struct mrc_test_host *h = &pair.h[1];

	mrc_mr_deregister(h->mrs, h->key);
	region = h->mem + GUARD;
	region_key = mrc_mr_register(
		h->mrs, region, REGION, 0, MRC_MR_ACCESS_REMOTE_WRITE | MRC_MR_ACCESS_LOCAL_READ);
	return region_key != 0 ? 0 : -1;
}

/* Fresh QPs for each input. */
static void
reconnect(bool ref_modes)
{
	struct mrc_qp_attr a = pcfg.attr;

	a.paths = ref_modes ? MRC_QP_PATHS_ECMP : MRC_QP_PATHS_SPRAY;
	a.reliability = ref_modes ? MRC_QP_REL_GBN : MRC_QP_REL_SACK;
	/* MRC's options in spray mode: stamps and echoes, a window that moves, quick verdicts. */
	a.tseth = !ref_modes;
	a.dyn_mpr = !ref_modes;
	a.peer_dyn_mpr = !ref_modes;
	a.always_skip_marks = ref_modes ? 0 : 2;
	a.mpr = ref_modes ? 1 : 2; /* room to lower it to 1 (NACK NO_BITMAP beyond) */

	for (int i = 0; i < 2; i++) {
		struct mrc_qp *qp = pair.h[i].qp;
		struct mrc_cqe e[64];

		mrc_qp_modify(qp, MRC_QP_ERROR, NULL, pair.now, &pair.rand, NULL);
		mrc_qp_modify(qp, MRC_QP_RESET, NULL, pair.now, &pair.rand, NULL);
		a.dest_qpn = 0x100 + (1 - i);
		for (int to = MRC_QP_INIT; to <= MRC_QP_RTS; to++)
			FUZZ_CHECK(mrc_qp_modify(qp, (enum mrc_qp_state)to, &a, pair.now,
					   &pair.rand, NULL) == 0,
				"reconnect");
		while (mrc_cq_poll(pair.h[i].cq, e, 64) > 0)
			;
	}
	memset(pair.h[1].mem, 0, pair.h[1].mem_len);
}

static void
deliver(struct rte_mbuf *m, int to)
{
	struct mrc_pkt v;

	if (mrc_pkt_parse(m, &pair.wire, &v) != MRC_WIRE_OK) {
		rte_pktmbuf_free(m);
		return;
	}
	mrc_qp_rx(pair.h[to].qp, m, &v, pair.now);
}

/* Move real traffic: host `from`'s next burst to the other host. */
static void
pump(int from, uint32_t planes)
{
	struct rte_mbuf *pk[32];
	uint16_t n = mrc_qp_tx_burst(pair.h[from].qp, pair.now, planes, &pair.rand, pk, 32);

	for (uint16_t k = 0; k < n; k++)
		deliver(pk[k], 1 - from);
}

/* Build a crafted packet from `v` (payload of `len` bytes) and deliver it. */
static void
inject(struct mrc_pkt *v, uint16_t len, int to)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pair.pool);

	if (m == NULL)
		return;
	if (len > 0) {
		uint8_t *d = (uint8_t *)rte_pktmbuf_append(m, len);

		if (d == NULL) {
			rte_pktmbuf_free(m);
			return;
		}
		memset(d, 0xab, len);
	}
	v->eth_src = (struct rte_ether_addr){{2, 0, 0, 0, 0, 1}};
	v->eth_dst = (struct rte_ether_addr){{2, 0, 0, 0, 0, 2}};
	v->ip.hop_limit = 64;
	v->bth.pkey = MRC_BTH_DEFAULT_PKEY;
	v->bth.dqpn = 0x100 + (uint32_t)to;
	if (mrc_pkt_build(m, v, &pair.wire, NULL) != 0) {
		rte_pktmbuf_free(m);
		return;
	}
	deliver(m, to);
}

static uint32_t
rd32(const uint8_t *a)
{
	return (uint32_t)a[0] | (uint32_t)a[1] << 8 | (uint32_t)a[2] << 16 | (uint32_t)a[3] << 24;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t posted[256];
	uint8_t seen[256] = {0};
	unsigned int n_posted = 0;
	size_t i = 0;

	if (!ready) {
		FUZZ_CHECK(setup() == 0, "pair setup");
		ready = true;
	}
	reconnect(size % 16 != 0 && (data[size - 1] & 1));
	memset(posted, 0, sizeof(posted));

	while (i + 16 <= size) {
		const uint8_t *a = data + i;
		struct mrc_pkt v;

		i += 16;
		memset(&v, 0, sizeof(v));
		switch (a[0] % 9) {
		case 0: { /* post a real write from host 0 into the region */
			uint32_t len = rd32(a + 1) % 3000, off = rd32(a + 5) % (REGION - 3000);

			if (n_posted < 255 &&
				mrc_qp_post_write(pair.h[0].qp, n_posted, pair.h[0].mem, len,
					pair.h[0].key, (uint64_t)(uintptr_t)region + off,
					region_key, a[9] & 1, a[10]) == 0)
				posted[n_posted++] = 1;
			break;
		}
		case 1:
			pump(0, a[1] | 1);
			break;
		case 2:
			pump(1, a[1] | 1);
			break;
		case 3: /* crafted data towards the responder */
			v.bth.opcode = (uint8_t)(MRC_OP_WRITE_FIRST + a[1] % 6);
			v.bth.psn = rd32(a + 2) & 0xffffff;
			v.data.va =
				(uint64_t)(uintptr_t)region + (int32_t)rd32(a + 6) % (2 * REGION);
			v.data.rkey = a[10] & 1 ? region_key : rd32(a + 11);
			v.data.dma_len = rd32(a + 6);
			v.data.rqmsn = a[15];
			v.ev = rd32(a + 11);
			v.ip.ecn = a[15] & 3;
			v.bth.ts = a[14] & 1;
			v.tseth.ts = (uint16_t)rd32(a + 12);
			inject(&v, (uint16_t)(a[1] * 3 % 600), 1);
			break;
		case 4: /* crafted probe */
			v.bth.opcode = MRC_OP_PROBE;
			v.ev = rd32(a + 1);
			inject(&v, 0, a[5] & 1);
			break;
		case 5: /* crafted SACK towards the requester */
			v.bth.opcode = MRC_OP_SACK;
			v.sack.cack_psn = rd32(a + 1) & 0xffffff;
			v.sack.sack_offset = (int16_t)(rd32(a + 4) & 0xffff);
			v.sack.ack_psn_offset = (int8_t)a[6];
			memcpy(&v.sack.sack_bitmap, a + 7, 8);
			v.sack.m = a[15] % 3;
			v.sack.pr = a[15] & 4;
			v.sack.entropy = rd32(a + 11);
			v.sack.mpr = a[15] >> 3;
			v.sack.ts_echo = (uint16_t)rd32(a + 2);
			v.sack.cwnd_pen = a[14] & 0x7f;
			v.sack.rc = a[14] >> 7;
			v.ev = v.sack.entropy;
			inject(&v, 0, 0);
			break;
		case 6: /* crafted NACK */
			v.bth.opcode = MRC_OP_NACK;
			static const uint8_t reasons[] = {1, 2, 6, 7, 10, 11, 25, 0x60};
			v.nack.reason = reasons[a[1] % RTE_DIM(reasons)];
			v.nack.nack_psn = rd32(a + 2) & 0xffffff;
			v.nack.entropy = rd32(a + 6);
			inject(&v, 0, 0);
			break;
		case 8: /* crafted transport ACK or NAK, and the responder's window moves */
			v.bth.opcode = MRC_OP_ACK;
			v.aeth.syndrome = a[1];
			v.aeth.msn = rd32(a + 6) & MRC_AETH_MSN_MASK;
			v.bth.psn = rd32(a + 2) & 0xffffff;
			inject(&v, 0, 0);
			mrc_qp_set_rx_mpr(pair.h[1].qp, a[10] % 4);
			break;
		default: /* time passes */
			pair.now += (uint64_t)a[1] * 1000 + a[2];
			mrc_qp_poll(pair.h[0].qp, pair.now);
			mrc_qp_poll(pair.h[1].qp, pair.now);
			break;
		}

		/* Invariants. */
		for (size_t g = 0; g < GUARD; g++) {
			FUZZ_CHECK(pair.h[1].mem[g] == 0,
				"guard byte %zu before the region written", g);
			FUZZ_CHECK(pair.h[1].mem[GUARD + REGION + g] == 0,
				"guard byte %zu after the region written", g);
		}
		struct mrc_cqe e[64];
		unsigned int n;

		while ((n = mrc_cq_poll(pair.h[0].cq, e, 64)) > 0)
			for (unsigned int k = 0; k < n; k++) {
				FUZZ_CHECK(e[k].wr_id < n_posted && posted[e[k].wr_id],
					"completion for wr_id %llu never posted",
					(unsigned long long)e[k].wr_id);
				FUZZ_CHECK(!seen[e[k].wr_id], "wr_id %llu completed twice",
					(unsigned long long)e[k].wr_id);
				seen[e[k].wr_id] = 1;
			}
		while (mrc_cq_poll(pair.h[1].cq, e, 64) > 0)
			;
		const struct mrc_rel_tx *t = mrc_qp_rel_tx(pair.h[0].qp);

		if (t != NULL) {
			FUZZ_CHECK(t->stats.acked_pkts <= t->stats.sent_pkts,
				"acked %llu > sent %llu", (unsigned long long)t->stats.acked_pkts,
				(unsigned long long)t->stats.sent_pkts);
			FUZZ_CHECK(t->n_inflight + t->n_lost <= t->window_max,
				"in flight beyond the window");
			FUZZ_CHECK(t->window <= t->window_max && t->window > 0,
				"window %u beyond the negotiated %u", t->window, t->window_max);
		}
	}
	/* Drain everything and check the pool is whole again. */
	for (int k = 0; k < 2; k++)
		mrc_qp_modify(pair.h[k].qp, MRC_QP_ERROR, NULL, pair.now, &pair.rand, NULL);
	for (int k = 0; k < 4; k++) {
		pump(0, 0xf);
		pump(1, 0xf);
	}
	FUZZ_CHECK(rte_mempool_avail_count(pair.pool) == pair.pool->size, "mbufs leaked: %u of %u",
		rte_mempool_avail_count(pair.pool), pair.pool->size);
	return 0;
}
