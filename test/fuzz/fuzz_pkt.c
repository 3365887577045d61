/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Fuzz the packet parser, then hold it to a round-trip oracle:
 *  - the same bytes cut into mbuf segments (at points the input chooses)
 *    parse to the same verdict and the same view as the flat buffer;
 *  - whatever is accepted formats without overflow, and rebuilds;
 *  - the rebuilt packet parses with a verified ICRC to the same key fields,
 *    and rebuilding that gives identical bytes (the canonical form is a
 *    fixed point).
 * The ICRC check is off for the first parse: random inputs almost never
 * carry a valid ICRC, and everything before it is what we want reached.
 *
 * Every input also goes through the emulated NIC (drivers/nic): its
 * classifier puts a frame whose outer destination a rule names on that
 * rule's queue, other IPv6 frames on the queue their RSS hash picks, and
 * anything short of its destination or not IPv6 on queue 0 (counted
 * unparsed), reading only the first
 * segment; its switch-uSID consumption changes nothing but the outer
 * destination and hop limit, and leaves the parser's verdict as it was.
 *
 * And through the software dispatch's look at the BTH (mrc_pkt_peek_dqpn):
 * it never claims a frame the parser calls not MRC, and finds the parser's
 * dqpn in every packet the parser accepts, in one segment or cut.
 */

#include <string.h>

#include "fuzz.h"
#include "mrc_nic_emu.h"
#include "mrc_test_mbuf.h"
#include "mrc_wire_pkt.h"

#define MAX_IN	 (16 * 1024)
#define HEADROOM 1024

static size_t
rebuild(const struct mrc_pkt *v, const uint8_t *payload, const struct mrc_wire_cfg *cfg,
	uint8_t *out, size_t cap)
{
	struct rte_mbuf *m = mrc_test_mbuf_alloc(HEADROOM, (uint16_t)(v->payload_len + 8));
	size_t len;
	int rc;

	FUZZ_CHECK(m != NULL, "alloc");
	if (v->payload_len > 0)
		memcpy(rte_pktmbuf_append(m, (uint16_t)v->payload_len), payload, v->payload_len);
	rc = mrc_pkt_build(m, v, cfg, NULL);
	FUZZ_CHECK(rc == 0, "an accepted packet must rebuild (rc %d)", rc);
	len = mrc_test_mbuf_flatten(m, out, cap);
	mrc_test_mbuf_free(m);
	FUZZ_CHECK(len <= cap, "rebuilt packet of %zu bytes", len);
	return len;
}

/* Offsets in a frame: EtherType, IPv6 version, hop limit, destination. */
#define NIC_DA	54 - 16
#define NIC_MIN 54

static void
nic_oracle(const uint8_t *data, size_t size, const size_t *cuts, unsigned int n_cuts,
	const struct mrc_wire_cfg *cfg, enum mrc_wire_rx verdict)
{
	static uint8_t after[MAX_IN];
	struct mrc_flow_rec_rules rules = {.n = 2, .queue = {1, 2}};
	struct mrc_nic_emu_counters c = {0};
	struct rte_mbuf *m = mrc_test_mbuf_from(data, size, cuts, n_cuts, 0);
	const uint16_t first = m != NULL ? m->data_len : 0;
	bool ipv6;
	uint16_t q;
	struct mrc_pkt v;

	FUZZ_CHECK(m != NULL, "alloc");
	memset(rules.dst[1], 0xa5, 16);
	if (size >= NIC_MIN)
		memcpy(rules.dst[0], data + NIC_DA, 16); /* a rule for this very frame */
	ipv6 = first >= NIC_MIN && data[12] == 0x86 && data[13] == 0xdd && (data[14] >> 4) == 6;
	mrc_nic_emu_classify(&rules, &m, 1, 3, &q, &c);
	FUZZ_CHECK(q == (ipv6 ? 1 : 0), "queue %u (IPv6 in the first segment: %d)", q, ipv6);
	FUZZ_CHECK(c.steered_pkts == (ipv6 ? 1u : 0u) && c.unparsed_pkts == (ipv6 ? 0u : 1u),
		"counted wrong");
	mrc_test_mbuf_free(m);

	m = mrc_test_mbuf_from(data, size, NULL, 0, 0);
	FUZZ_CHECK(m != NULL, "alloc");
	mrc_nic_emu_consume_switch_usids(m);
	FUZZ_CHECK(mrc_test_mbuf_flatten(m, after, sizeof(after)) == size, "length changed");
	mrc_test_mbuf_free(m);
	for (size_t i = 0; i < size; i++)
		FUZZ_CHECK(after[i] == data[i] || i == 21 || (i >= NIC_DA && i < NIC_MIN),
			"byte %zu changed", i);
	FUZZ_CHECK(mrc_pkt_parse_buf(after, (uint16_t)size, cfg, &v) == verdict,
		"consuming switch uSIDs changed the verdict");
}

static void
peek_oracle(const uint8_t *data, size_t size, const size_t *cuts, unsigned int n_cuts,
	enum mrc_wire_rx verdict, const struct mrc_pkt *v)
{
	for (int cut = 0; cut < 2; cut++) {
		struct rte_mbuf *m = mrc_test_mbuf_from(data, size, cuts, cut ? n_cuts : 0, 0);
		uint32_t q = 0;
		bool found;

		FUZZ_CHECK(m != NULL, "alloc");
		found = mrc_pkt_peek_dqpn(m, &q);
		mrc_test_mbuf_free(m);
		FUZZ_CHECK(!found || (verdict != MRC_WIRE_BAD_ETHERTYPE &&
					     verdict != MRC_WIRE_BAD_NEXT_HEADER &&
					     verdict != MRC_WIRE_NOT_ROCE),
			"peek took a frame the parser calls %s", mrc_wire_reject_name(verdict));
		FUZZ_CHECK(verdict != MRC_WIRE_OK || (cut && !found) || (found && q == v->bth.dqpn),
			"peek found %d, dqpn 0x%x, parse 0x%x", found, q, v->bth.dqpn);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t b2[MAX_IN + 2048], b3[MAX_IN + 2048];
	static char l1[4096], l2[4096];
	struct mrc_wire_cfg cfg;
	struct mrc_pkt v, vc, v2;
	enum mrc_wire_rx rc, rcc;
	size_t cuts[2];
	unsigned int n_cuts = 0;

	if (size > MAX_IN)
		return 0;
	mrc_wire_cfg_defaults(&cfg);
	cfg.verify_icrc = false;
	/* The last input byte steers the knobs, so both settings are explored. */
	if (size > 0 && (data[size - 1] & 0x80)) {
		cfg.ev_split = MRC_EV_SPLIT_SPORT_HIGH;
		cfg.sack_bit_order = MRC_SACK_BIT_MSB0;
	}

	rc = mrc_pkt_parse_buf(data, (uint16_t)size, &cfg, &v);
	FUZZ_CHECK((unsigned int)rc < MRC_WIRE_REJECT_MAX, "verdict %d out of range", rc);

	/* The same bytes in three segments. */
	if (size > 2) {
		cuts[0] = 1 + data[0] % (size - 1);
		cuts[1] = cuts[0] + (size - cuts[0]) / 2;
		n_cuts = cuts[1] > cuts[0] && cuts[1] < size ? 2 : 1;
	}
	struct rte_mbuf *m = mrc_test_mbuf_from(data, size, cuts, n_cuts, 0);

	FUZZ_CHECK(m != NULL, "alloc");
	rcc = mrc_pkt_parse(m, &cfg, &vc);
	mrc_test_mbuf_free(m);
	FUZZ_CHECK(rcc == rc, "segmented parse says %s, flat says %s", mrc_wire_reject_name(rcc),
		mrc_wire_reject_name(rc));
	nic_oracle(data, size, cuts, n_cuts, &cfg, rc);
	peek_oracle(data, size, cuts, n_cuts, rc, &v);
	if (rc != MRC_WIRE_OK)
		return 0;

	int n1 = mrc_pkt_format(l1, sizeof(l1), &v);

	mrc_pkt_format(l2, sizeof(l2), &vc);
	FUZZ_CHECK(n1 > 0 && (size_t)n1 < sizeof(l1), "line of %d bytes", n1);
	FUZZ_CHECK(strcmp(l1, l2) == 0, "segmented view differs:\n%s\n%s", l1, l2);
	FUZZ_CHECK(v.payload_off + v.payload_len <= size, "payload outside the input");

	size_t n2 = rebuild(&v, data + v.payload_off, &cfg, b2, sizeof(b2));

	cfg.verify_icrc = true;
	rc = mrc_pkt_parse_buf(b2, (uint16_t)n2, &cfg, &v2);
	FUZZ_CHECK(rc == MRC_WIRE_OK, "rebuilt packet refused: %s", mrc_wire_reject_name(rc));
	FUZZ_CHECK(v2.bth.opcode == v.bth.opcode && v2.bth.psn == v.bth.psn &&
			   v2.bth.dqpn == v.bth.dqpn && v2.ev == v.ev && v2.flags == v.flags &&
			   v2.payload_len == v.payload_len,
		"rebuilt packet changed its key fields");
	size_t n3 = rebuild(&v2, b2 + v2.payload_off, &cfg, b3, sizeof(b3));

	FUZZ_CHECK(n3 == n2 && memcmp(b2, b3, n2) == 0, "rebuild is not a fixed point");
	return 0;
}
