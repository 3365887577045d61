/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRC_FLOW_H
#define MRC_FLOW_H

/**
 * @file
 * The one door to rte_flow (doc/steering.md).
 *
 * Every flow rule mrcd creates, destroys or flushes goes through a
 * struct mrc_flow_ops, so the same code runs against a NIC and against the
 * emulation:
 *
 *  - mrc_flow_ops_real: rte_flow_create/destroy/flush on the port; errors
 *    come back as -errno with the driver's rte_flow_error message.
 *  - mrc_flow_ops_rec: the recording backend. It accepts the steering rule
 *    (mrc_steer.h: ingress, ETH / IPV6 dst exact, QUEUE) on any valid port
 *    whose queue index exists, and keeps the rules per port in a table
 *    (mrc_flow_rec_table()). The emulated NIC (mrc_nic_emu.h) reads that
 *    table to put each packet on the rx queue a rule names, which is how
 *    net_ring ports - which answer ENOSYS to rte_flow - steer in tests and
 *    in the emulated fabric and loop modes. It also accepts the egress
 *    encap rule (mrc_encap.h: egress, META exact, RAW_DECAP of the L2
 *    header, RAW_ENCAP of L2 + IPv6 [+ SRH]) and keeps those by key
 *    (mrc_flow_rec_encap_table()) for the emulated NIC's tx side. Anything
 *    else it refuses with -ENOTSUP and says what.
 *
 * Threads: create/destroy/flush run on the control thread (one at a time).
 * The recording table is read by data-path lcores without locks: a change
 * is written into a second copy and published with one release store, so a
 * reader sees the rules before or after, never half a rule. Two changes in
 * quick succession may overwrite the copy a slow reader still reads; change
 * rules before traffic starts or after it stops (as mrcd does: at start).
 */

#include <stddef.h>
#include <stdint.h>

#include <rte_flow.h>

/** Why a call failed: -errno and the backend's (or driver's) words. */
struct mrc_flow_err {
	int code;      /**< 0 or -errno */
	char msg[256]; /**< "" when code is 0 */
};

/** A created rule: the backend's handle (opaque). */
struct mrc_flow;

struct mrc_flow_ops {
	const char *name; /**< "rte_flow", "recording" */
	/** A rule, or NULL with *err filled. */
	struct mrc_flow *(*create)(uint16_t port, const struct rte_flow_attr *attr,
		const struct rte_flow_item pattern[], const struct rte_flow_action actions[],
		struct mrc_flow_err *err);
	/** 0, or -errno with *err filled. */
	int (*destroy)(uint16_t port, struct mrc_flow *flow, struct mrc_flow_err *err);
	/** Every rule of the port; 0, or -errno with *err filled. */
	int (*flush)(uint16_t port, struct mrc_flow_err *err);
};

extern const struct mrc_flow_ops mrc_flow_ops_real;
extern const struct mrc_flow_ops mrc_flow_ops_rec;

/* ---- the recording backend's table, for the emulated NIC ---- */

/** Rules one port can hold in the recording backend. */
#define MRC_FLOW_REC_MAX_RULES 32

/** A port's recorded steering rules, as the data path reads them. */
struct mrc_flow_rec_rules {
	uint16_t n;
	uint16_t queue[MRC_FLOW_REC_MAX_RULES];
	uint8_t dst[MRC_FLOW_REC_MAX_RULES][16]; /**< outer IPv6 destination, exact */
};

/**
 * Egress encap rules one port can hold in the recording backend: a rule per
 * (destination, EV flow-label half, class), 4 classes, is 80 per QP and
 * plane with the default 160 EVs on 8 planes, and as many again for the
 * answers of the QP at the other end (doc/offload.md, "The rule budget").
 */
#define MRC_FLOW_REC_MAX_ENCAP 4096
/** Most bytes one encap rule adds (mrc_encap.h: MRC_ENCAP_MAX_LEN). */
#define MRC_FLOW_REC_ENCAP_LEN 256

/** What one recorded encap rule does to a packet. */
struct mrc_flow_rec_encap_hdr {
	uint16_t decap_len; /**< L2 bytes the packet loses */
	uint16_t len;	    /**< bytes it gains in their place: L2, outer IPv6 [+ SRH] */
	uint8_t bytes[MRC_FLOW_REC_ENCAP_LEN];
};

/** A port's recorded encap rules, sorted by key, as the data path reads them. */
struct mrc_flow_rec_encap {
	uint16_t n;
	uint32_t key[MRC_FLOW_REC_MAX_ENCAP];
	const struct mrc_flow_rec_encap_hdr *hdr[MRC_FLOW_REC_MAX_ENCAP];
};

/**
 * The encap rules recorded for `port` now (never NULL for a port below
 * RTE_MAX_ETHPORTS, NULL above). Read it again per burst.
 */
const struct mrc_flow_rec_encap *mrc_flow_rec_encap_table(uint16_t port);

/**
 * The same, held for one burst: the backend changes no copy a reader holds
 * (mrcd makes and replaces rules while the emulated NIC runs). Release it
 * with mrc_flow_rec_encap_release() and the `held` it gave. NULL for a port
 * above RTE_MAX_ETHPORTS (nothing to release).
 */
const struct mrc_flow_rec_encap *mrc_flow_rec_encap_hold(uint16_t port, unsigned int *held);
void mrc_flow_rec_encap_release(uint16_t port, unsigned int held);

/** The header of `key` in `t`, or NULL: no rule (binary search, n <= 256). */
static inline const struct mrc_flow_rec_encap_hdr *
mrc_flow_rec_encap_find(const struct mrc_flow_rec_encap *t, uint32_t key)
{
	unsigned int lo = 0, hi = t->n;

	while (lo < hi) {
		const unsigned int mid = (lo + hi) / 2;

		if (t->key[mid] == key)
			return t->hdr[mid];
		if (t->key[mid] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/**
 * The rules recorded for `port` now (n == 0: none; never NULL for a port
 * below RTE_MAX_ETHPORTS, NULL above). Read it again per burst: a change
 * publishes a new copy.
 */
const struct mrc_flow_rec_rules *mrc_flow_rec_table(uint16_t port);

/** Encap rules recorded for `port` (0 for an unknown port). */
unsigned int mrc_flow_rec_encap_count(uint16_t port);

/** Rules recorded for `port` (0 for an unknown port). */
unsigned int mrc_flow_rec_count(uint16_t port);

/** Forget every recorded rule of every port (tests; the ports' own close does not). */
void mrc_flow_rec_reset(void);

#endif /* MRC_FLOW_H */
