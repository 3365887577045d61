/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * The encap rules of a port whose next hop neighbour discovery resolves
 * (mrcd_encap_nd.c, doc/offload.md "Ports whose next hop is resolved"):
 * kept as a book at setup, made when the MAC is known, taken out and made
 * again when it changes. No daemon state in here, so a unit test drives it
 * with the recording backend and counters of its own.
 */

#ifndef MRCD_ENCAP_ND_H
#define MRCD_ENCAP_ND_H

#include <stdbool.h>
#include <stdint.h>

#include "mrc_encap.h"
#include "mrc_flow.h"

/** Workers whose passes a grace waits on, at most. */
#define MRCD_ENCAP_ND_MAX_PASSES 64

/** One rule the port should hold: its key and bytes as built at setup. */
struct mrcd_encap_nd_rule {
	uint32_t key;
	uint32_t dest; /**< the caller's: which destination's bitmap has its bit */
	uint16_t fl;   /**< the EV flow-label half */
	uint16_t len;
	uint8_t hdr[MRC_ENCAP_MAX_LEN]; /**< L2 first: bytes 0..5 are the next hop's MAC */
};

/** Where a port's step left it. */
enum mrcd_encap_nd_event {
	MRCD_ENCAP_ND_NOTHING = 0,
	MRCD_ENCAP_ND_OUT,   /**< unpublished: the workers build in software; grace begins */
	MRCD_ENCAP_ND_GRACE, /**< waiting for every worker to pass */
	MRCD_ENCAP_ND_GONE,  /**< the old rules destroyed; no MAC to make new ones with */
	MRCD_ENCAP_ND_MADE,  /**< rules made with the MAC and published (first time) */
	MRCD_ENCAP_ND_REMADE /**< the same, again (a new MAC, or the next hop back) */
};

/** What the port's owner does for it. */
struct mrcd_encap_nd_env {
	void *ctx;
	/** Show the port's rule bitmaps to the workers' tables (on), or none (off). */
	void (*publish)(void *ctx, bool on);
	/** A rule was refused: its flow-label half's bit off (the port is unpublished). */
	void (*refused)(
		void *ctx, const struct mrcd_encap_nd_rule *r, const struct mrc_flow_err *err);
	/** Each worker's pass counter (it only grows); a grace ends when each moved by 2. */
	const uint64_t *passes[MRCD_ENCAP_ND_MAX_PASSES];
	unsigned int n_passes;
};

/** One port's state; zero it, then set ops and port. Control thread only. */
struct mrcd_encap_nd {
	const struct mrc_flow_ops *ops;
	uint16_t port;
	struct mrcd_encap_nd_rule *book;
	struct mrc_flow **made; /**< the rules the port holds now (n_made) */
	unsigned int n_book, cap_book, n_made;
	uint64_t mac;	  /**< the MAC the made rules carry (mrc_qp_mac_word), 0: none made */
	bool live;	  /**< published */
	bool draining;	  /**< unpublished, waiting for the workers */
	bool refused;	  /**< a rule was refused this make: no more tried */
	uint32_t makes;	  /**< times rules were made */
	uint32_t remakes; /**< makes after the first */
	uint32_t fails;	  /**< rules refused */
	uint64_t grace_from[MRCD_ENCAP_ND_MAX_PASSES];
};

/** Add a rule to the book (made on the next step with a MAC); 0 or -ENOMEM. */
int mrcd_encap_nd_book(struct mrcd_encap_nd *e, uint32_t key, uint32_t dest, uint16_t fl,
	const uint8_t *hdr, size_t len);

/**
 * One step toward rules that carry `mac` (mrc_qp_mac_word; 0: the next hop
 * is not known, the port is down): a different MAC than the rules carry
 * unpublishes them and starts a grace; once every worker passed, they are
 * destroyed; then, with a MAC, the book's rules are made with it and
 * published. Called every tick; cheap when nothing changes.
 */
enum mrcd_encap_nd_event mrcd_encap_nd_step(
	struct mrcd_encap_nd *e, const struct mrcd_encap_nd_env *env, uint64_t mac);

/** Destroy every rule the port holds and free the book (teardown). Rules left. */
unsigned int mrcd_encap_nd_free(struct mrcd_encap_nd *e, struct mrc_flow_err *err);

#endif /* MRCD_ENCAP_ND_H */
