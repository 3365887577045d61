/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: the main lcore, from the neighbour discovery tick (mrcd_nd.c
 * through mrcd_encap_nd_tick) and at setup and teardown.
 *
 * A port whose next hop neighbour discovery resolves cannot have its rules
 * at setup: a rule's bytes start with the next hop's MAC. So at setup each
 * rule goes in a book (its key and the bytes mrc_qp_encap_hdr() built), and
 * the port shows its workers no rules (they build in software, counted in
 * sw_no_port). When the MAC is known the book's rules are made with it
 * (bytes 0..5 replaced: what the software build writes once the QPs read
 * the same MAC from the next-hop table) and only then published.
 *
 * When the MAC changes, or the next hop is lost, the rules must go, and a
 * key has no spare bit for a generation: the old and the new rule of a key
 * cannot both exist. So: unpublish (the workers build in software from their
 * next packet on), wait until every worker has passed its loop twice since
 * (a packet keyed before is then built and handed to the port), destroy the
 * old rules, make the new ones, publish. A keyed packet still queued at the
 * port when its rule is remade gets the new rule's bytes (the same key),
 * which carry the MAC it should have had anyway.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mrcd_encap_nd.h"

int
mrcd_encap_nd_book(struct mrcd_encap_nd *e, uint32_t key, uint32_t dest, uint16_t fl,
	const uint8_t *hdr, size_t len)
{
	struct mrcd_encap_nd_rule *r;

	if (len < 6 || len > MRC_ENCAP_MAX_LEN)
		return -EINVAL;
	if (e->n_book == e->cap_book) {
		const unsigned int cap = e->cap_book ? 2 * e->cap_book : 64;
		struct mrcd_encap_nd_rule *b = realloc(e->book, cap * sizeof(*b));
		struct mrc_flow **m;

		if (b == NULL)
			return -ENOMEM;
		e->book = b;
		m = realloc(e->made, cap * sizeof(*m));
		if (m == NULL)
			return -ENOMEM;
		e->made = m;
		e->cap_book = cap;
	}
	r = &e->book[e->n_book++];
	r->key = key;
	r->dest = dest;
	r->fl = fl;
	r->len = (uint16_t)len;
	memcpy(r->hdr, hdr, len);
	return 0;
}

static void
grace_start(struct mrcd_encap_nd *e, const struct mrcd_encap_nd_env *env)
{
	for (unsigned int i = 0; i < env->n_passes && i < MRCD_ENCAP_ND_MAX_PASSES; i++)
		e->grace_from[i] = __atomic_load_n(env->passes[i], __ATOMIC_ACQUIRE);
}

/* Has every worker begun its loop twice since the grace began? */
static bool
grace_over(const struct mrcd_encap_nd *e, const struct mrcd_encap_nd_env *env)
{
	for (unsigned int i = 0; i < env->n_passes && i < MRCD_ENCAP_ND_MAX_PASSES; i++)
		if (__atomic_load_n(env->passes[i], __ATOMIC_ACQUIRE) < e->grace_from[i] + 2)
			return false;
	return true;
}

static unsigned int
destroy_made(struct mrcd_encap_nd *e, struct mrc_flow_err *err)
{
	unsigned int left = 0;

	for (unsigned int i = 0; i < e->n_made; i++)
		if (e->ops->destroy(e->port, e->made[i], err) != 0)
			left++;
	e->n_made = 0;
	e->mac = 0;
	return left;
}

static void
make(struct mrcd_encap_nd *e, const struct mrcd_encap_nd_env *env, uint64_t mac)
{
	e->refused = false;
	for (unsigned int i = 0; i < e->n_book; i++) {
		struct mrcd_encap_nd_rule *r = &e->book[i];
		struct mrc_flow_err err = {0};
		struct mrc_flow *f = NULL;

		memcpy(r->hdr, &mac, 6); /* as mrc_qp_tx.c reads the next-hop table */
		if (!e->refused)
			f = mrc_encap_install(e->ops, e->port, r->key, r->hdr, r->len, &err);
		if (f == NULL) {
			if (!e->refused)
				e->fails++;
			e->refused = true; /* a port that refused one is asked for no more */
			env->refused(env->ctx, r, &err);
			continue;
		}
		e->made[e->n_made++] = f;
	}
	e->mac = mac;
}

enum mrcd_encap_nd_event
mrcd_encap_nd_step(struct mrcd_encap_nd *e, const struct mrcd_encap_nd_env *env, uint64_t mac)
{
	enum mrcd_encap_nd_event ev = MRCD_ENCAP_ND_NOTHING;

	if (e->live && mac == e->mac)
		return MRCD_ENCAP_ND_NOTHING;
	if (e->live) {
		env->publish(env->ctx, false);
		e->live = false;
		e->draining = true;
		grace_start(e, env);
		return MRCD_ENCAP_ND_OUT;
	}
	if (e->draining) {
		struct mrc_flow_err err = {0};

		if (!grace_over(e, env))
			return MRCD_ENCAP_ND_GRACE;
		(void)destroy_made(e, &err);
		e->draining = false;
		ev = MRCD_ENCAP_ND_GONE;
	}
	if (mac == 0 || e->n_book == 0)
		return ev;
	make(e, env, mac);
	env->publish(env->ctx, true);
	e->live = true;
	if (e->makes++ > 0)
		e->remakes++;
	return e->makes > 1 ? MRCD_ENCAP_ND_REMADE : MRCD_ENCAP_ND_MADE;
}

unsigned int
mrcd_encap_nd_free(struct mrcd_encap_nd *e, struct mrc_flow_err *err)
{
	const unsigned int left = e->ops != NULL ? destroy_made(e, err) : 0;

	free(e->book);
	free(e->made);
	e->book = NULL;
	e->made = NULL;
	e->n_book = e->cap_book = 0;
	e->live = e->draining = false;
	return left;
}
