/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * The recording backend (mrc_flow.h): accepts exactly the steering rule
 * and the egress encap rule shapes and keeps each port's rules, the way a NIC keeps them in its
 * classifier, for the emulated NIC to apply.
 *
 * Storage: per port, slots the handles point at (control thread only) and
 * two copies of the compact table the data path reads, flipped by a release
 * store after each change. Ports are global to the process, so is the table.
 * The encap tables change while the emulated NIC reads them (mrcd makes a
 * port's rules when neighbour discovery resolves its next hop): a reader
 * holds the copy it reads for one burst (a count per copy), and a change
 * waits until nobody holds the copy it rewrites, and, after the flip, the
 * copy it replaced (so a destroyed rule's slot is read by no one when it is
 * used again). The wait is a burst's length; only the control thread writes.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_pause.h>

#include "mrc_encap.h"
#include "mrc_flow.h"

struct mrc_flow {
	bool in_use;
	uint16_t port;
	uint16_t queue;
	uint8_t dst[16];
	/* egress encap rules only (eslot[]) */
	uint32_t key;
	struct mrc_flow_rec_encap_hdr hdr;
};

struct rec_port {
	struct mrc_flow slot[MRC_FLOW_REC_MAX_RULES];
	struct mrc_flow_rec_rules pub[2];
	unsigned int cur; /* pub[cur] is what readers see */
	struct mrc_flow eslot[MRC_FLOW_REC_MAX_ENCAP];
	struct mrc_flow_rec_encap epub[2];
	unsigned int ecur;  /* epub[ecur] is what readers see */
	unsigned int efree; /* where the last free eslot was found */
	uint32_t eheld[2];  /* readers holding epub[i] (mrc_flow_rec_encap_hold) */
};

static struct rec_port rec[RTE_MAX_ETHPORTS];

static int
refuse(struct mrc_flow_err *err, int code, uint16_t port, const char *what)
{
	if (err != NULL) {
		err->code = code;
		snprintf(err->msg, sizeof(err->msg), "port %u: recording backend: %s", port, what);
	}
	return code;
}

static bool
all_zero(const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		if (b[i] != 0)
			return false;
	return true;
}

static const struct rte_flow_item *
next_item(const struct rte_flow_item *it)
{
	while (it->type == RTE_FLOW_ITEM_TYPE_VOID)
		it++;
	return it;
}

static const struct rte_flow_action *
next_action(const struct rte_flow_action *a)
{
	while (a->type == RTE_FLOW_ACTION_TYPE_VOID)
		a++;
	return a;
}

/* The IPV6 item must match the destination exactly and nothing else. */
static bool
ipv6_dst_exact(const struct rte_flow_item *it, uint8_t dst[16])
{
	const struct rte_flow_item_ipv6 *spec = it->spec, *mask = it->mask;
	struct rte_flow_item_ipv6 m;
	uint8_t ones[16];

	if (spec == NULL || mask == NULL || it->last != NULL)
		return false;
	memset(ones, 0xff, sizeof(ones));
	if (memcmp(mask->hdr.dst_addr, ones, sizeof(ones)) != 0)
		return false;
	m = *mask;
	memset(m.hdr.dst_addr, 0, sizeof(m.hdr.dst_addr));
	if (!all_zero(&m.hdr, sizeof(m.hdr)))
		return false;
	memcpy(dst, spec->hdr.dst_addr, 16);
	return true;
}

/* 0 and the rule's address and queue, or -errno and why. */
static int
parse_rule(uint16_t port, const struct rte_flow_attr *attr, const struct rte_flow_item pattern[],
	const struct rte_flow_action actions[], uint8_t dst[16], uint16_t *queue,
	struct mrc_flow_err *err)
{
	const struct rte_flow_item *it;
	const struct rte_flow_action *a;
	struct rte_eth_dev_info info;

	if (!rte_eth_dev_is_valid_port(port))
		return refuse(err, -ENODEV, port, "no such port");
	if (attr == NULL || pattern == NULL || actions == NULL)
		return refuse(err, -EINVAL, port, "attr, pattern and actions are required");
	if (!attr->ingress || attr->egress || attr->transfer || attr->group != 0)
		return refuse(err, -ENOTSUP, port, "only ingress rules in group 0");
	it = next_item(pattern);
	if (it->type != RTE_FLOW_ITEM_TYPE_ETH ||
		(it->spec != NULL &&
			(it->mask == NULL ||
				!all_zero(it->mask, sizeof(struct rte_flow_item_eth)))))
		return refuse(err, -ENOTSUP, port, "pattern must start with ETH matching anything");
	it = next_item(it + 1);
	if (it->type != RTE_FLOW_ITEM_TYPE_IPV6 || !ipv6_dst_exact(it, dst))
		return refuse(err, -ENOTSUP, port,
			"pattern must be ETH / IPV6 with the destination exact (full mask) and "
			"nothing else");
	it = next_item(it + 1);
	if (it->type != RTE_FLOW_ITEM_TYPE_END)
		return refuse(err, -ENOTSUP, port, "nothing may follow the IPV6 item");
	a = next_action(actions);
	if (a->type != RTE_FLOW_ACTION_TYPE_QUEUE || a->conf == NULL)
		return refuse(err, -ENOTSUP, port, "the only action is QUEUE");
	*queue = ((const struct rte_flow_action_queue *)a->conf)->index;
	a = next_action(a + 1);
	if (a->type != RTE_FLOW_ACTION_TYPE_END)
		return refuse(err, -ENOTSUP, port, "nothing may follow the QUEUE action");
	if (rte_eth_dev_info_get(port, &info) != 0)
		return refuse(err, -ENODEV, port, "no device info");
	if (*queue >= info.nb_rx_queues) {
		if (err != NULL) {
			err->code = -EINVAL;
			snprintf(err->msg, sizeof(err->msg),
				"port %u: recording backend: queue %u, the port has %u rx queues",
				port, *queue, info.nb_rx_queues);
		}
		return -EINVAL;
	}
	return 0;
}

/* Rebuild the table readers do not see, then show it. */
static void
publish(struct rec_port *rp)
{
	const unsigned int next = rp->cur ^ 1u;
	struct mrc_flow_rec_rules *t = &rp->pub[next];

	t->n = 0;
	for (unsigned int i = 0; i < MRC_FLOW_REC_MAX_RULES; i++) {
		if (!rp->slot[i].in_use)
			continue;
		t->queue[t->n] = rp->slot[i].queue;
		memcpy(t->dst[t->n], rp->slot[i].dst, 16);
		t->n++;
	}
	__atomic_store_n(&rp->cur, next, __ATOMIC_RELEASE);
}

/*
 * The egress encap rule (mrc_encap.h): META exact / END, then RAW_DECAP of
 * an L2 header and RAW_ENCAP of L2 + IPv6 [+ SRH]. 0 and its parts, or
 * -errno and why.
 */
static int
parse_encap(uint16_t port, const struct rte_flow_attr *attr, const struct rte_flow_item pattern[],
	const struct rte_flow_action actions[], uint32_t *key, struct mrc_flow_rec_encap_hdr *h,
	struct mrc_flow_err *err)
{
	const struct rte_flow_item *it;
	const struct rte_flow_action *a;
	const struct rte_flow_action_raw_decap *dc;
	const struct rte_flow_action_raw_encap *ec;
	const struct rte_flow_item_meta *spec, *mask;
	size_t l2;

	if (!rte_eth_dev_is_valid_port(port))
		return refuse(err, -ENODEV, port, "no such port");
	if (pattern == NULL || actions == NULL)
		return refuse(err, -EINVAL, port, "pattern and actions are required");
	if (attr->transfer || attr->group != 0)
		return refuse(err, -ENOTSUP, port, "only egress rules in group 0");
	it = next_item(pattern);
	spec = it->spec;
	mask = it->mask;
	if (it->type != RTE_FLOW_ITEM_TYPE_META || spec == NULL || mask == NULL ||
		it->last != NULL || mask->data != UINT32_MAX)
		return refuse(err, -ENOTSUP, port,
			"egress pattern must be META with the data exact (full mask)");
	*key = spec->data;
	if (next_item(it + 1)->type != RTE_FLOW_ITEM_TYPE_END)
		return refuse(err, -ENOTSUP, port, "nothing may follow the META item");
	a = next_action(actions);
	dc = a->conf;
	if (a->type != RTE_FLOW_ACTION_TYPE_RAW_DECAP || dc == NULL)
		return refuse(err, -ENOTSUP, port, "egress actions must start with RAW_DECAP");
	a = next_action(a + 1);
	ec = a->conf;
	if (a->type != RTE_FLOW_ACTION_TYPE_RAW_ENCAP || ec == NULL || ec->data == NULL)
		return refuse(err, -ENOTSUP, port, "RAW_ENCAP with data must follow RAW_DECAP");
	if (ec->preserve != NULL)
		return refuse(err, -ENOTSUP, port, "RAW_ENCAP preserve is not supported");
	if (next_action(a + 1)->type != RTE_FLOW_ACTION_TYPE_END)
		return refuse(err, -ENOTSUP, port, "nothing may follow RAW_ENCAP");
	l2 = ec->size > MRC_FLOW_REC_ENCAP_LEN ? 0 : mrc_encap_l2_len(ec->data, ec->size);
	if (l2 == 0 || dc->size != l2) {
		if (err != NULL) {
			err->code = -ENOTSUP;
			snprintf(err->msg, sizeof(err->msg),
				"port %u: recording backend: RAW_DECAP of %zu bytes, RAW_ENCAP of "
				"%zu: want the L2 header's length, then L2 [802.1Q] + IPv6, at "
				"most %d bytes",
				port, dc->size, ec->size, MRC_FLOW_REC_ENCAP_LEN);
		}
		return -ENOTSUP;
	}
	h->decap_len = (uint16_t)dc->size;
	h->len = (uint16_t)ec->size;
	memcpy(h->bytes, ec->data, ec->size);
	return 0;
}

/*
 * Make the encap table readers do not see the one they see with `add` put
 * in (at its place by key) or `del` left out (either may be NULL), then
 * show it: one copy per change, not a sort, so a port can hold thousands.
 */
/* Until no reader holds epub[i]. */
static void
wait_unheld(struct rec_port *rp, unsigned int i)
{
	while (__atomic_load_n(&rp->eheld[i], __ATOMIC_SEQ_CST) != 0)
		rte_pause();
}

static void
publish_encap(struct rec_port *rp, const struct mrc_flow *add, const struct mrc_flow *del)
{
	const struct mrc_flow_rec_encap *cur = &rp->epub[rp->ecur];
	const unsigned int next = rp->ecur ^ 1u;
	struct mrc_flow_rec_encap *t = &rp->epub[next];
	unsigned int n = 0;
	bool put = add == NULL;

	wait_unheld(rp, next);

	for (unsigned int i = 0; i < cur->n; i++) {
		if (del != NULL && cur->hdr[i] == &del->hdr)
			continue;
		if (!put && cur->key[i] > add->key) {
			t->key[n] = add->key;
			t->hdr[n++] = &add->hdr;
			put = true;
		}
		t->key[n] = cur->key[i];
		t->hdr[n++] = cur->hdr[i];
	}
	if (!put) {
		t->key[n] = add->key;
		t->hdr[n++] = &add->hdr;
	}
	t->n = (uint16_t)n;
	__atomic_store_n(&rp->ecur, next, __ATOMIC_SEQ_CST);
	wait_unheld(rp, next ^ 1u);
}

static struct mrc_flow *
rec_encap_create(uint16_t port, const struct rte_flow_attr *attr,
	const struct rte_flow_item pattern[], const struct rte_flow_action actions[],
	struct mrc_flow_err *err)
{
	struct mrc_flow_rec_encap_hdr h;
	struct mrc_flow *free_slot = NULL;
	struct rec_port *rp;
	uint32_t key;

	if (parse_encap(port, attr, pattern, actions, &key, &h, err) != 0)
		return NULL;
	rp = &rec[port];
	if (mrc_flow_rec_encap_find(&rp->epub[rp->ecur], key) != NULL) {
		refuse(err, -EEXIST, port, "an encap rule for this key exists");
		return NULL;
	}
	/* the next free slot from where the last one was found */
	for (unsigned int i = 0; i < MRC_FLOW_REC_MAX_ENCAP && free_slot == NULL; i++) {
		struct mrc_flow *s = &rp->eslot[(rp->efree + i) % MRC_FLOW_REC_MAX_ENCAP];

		if (!s->in_use) {
			free_slot = s;
			rp->efree = (unsigned int)(s - rp->eslot);
		}
	}
	if (free_slot == NULL) {
		refuse(err, -ENOSPC, port, "encap rule table full");
		return NULL;
	}
	free_slot->in_use = true;
	free_slot->port = port;
	free_slot->key = key;
	free_slot->hdr = h;
	publish_encap(rp, free_slot, NULL);
	if (err != NULL) {
		err->code = 0;
		err->msg[0] = '\0';
	}
	return free_slot;
}

static struct mrc_flow *
rec_create(uint16_t port, const struct rte_flow_attr *attr, const struct rte_flow_item pattern[],
	const struct rte_flow_action actions[], struct mrc_flow_err *err)
{
	struct rec_port *rp;
	struct mrc_flow *free_slot = NULL;
	uint8_t dst[16];
	uint16_t queue;

	if (attr != NULL && attr->egress && !attr->ingress)
		return rec_encap_create(port, attr, pattern, actions, err);
	if (parse_rule(port, attr, pattern, actions, dst, &queue, err) != 0)
		return NULL;
	rp = &rec[port];
	for (unsigned int i = 0; i < MRC_FLOW_REC_MAX_RULES; i++) {
		struct mrc_flow *s = &rp->slot[i];

		if (s->in_use && memcmp(s->dst, dst, 16) == 0) {
			refuse(err, -EEXIST, port, "a rule for this destination exists");
			return NULL;
		}
		if (!s->in_use && free_slot == NULL)
			free_slot = s;
	}
	if (free_slot == NULL) {
		refuse(err, -ENOSPC, port, "rule table full");
		return NULL;
	}
	free_slot->in_use = true;
	free_slot->port = port;
	free_slot->queue = queue;
	memcpy(free_slot->dst, dst, 16);
	publish(rp);
	if (err != NULL) {
		err->code = 0;
		err->msg[0] = '\0';
	}
	return free_slot;
}

static int
rec_destroy(uint16_t port, struct mrc_flow *flow, struct mrc_flow_err *err)
{
	if (port >= RTE_MAX_ETHPORTS)
		return refuse(err, -ENODEV, port, "no such port");
	if (flow != NULL && flow >= rec[port].eslot &&
		flow < rec[port].eslot + MRC_FLOW_REC_MAX_ENCAP && flow->in_use) {
		publish_encap(&rec[port], NULL, flow);
		flow->in_use = false;
		return 0;
	}
	if (flow == NULL || flow < rec[port].slot ||
		flow >= rec[port].slot + MRC_FLOW_REC_MAX_RULES || !flow->in_use)
		return refuse(err, -ENOENT, port, "no such rule on this port");
	flow->in_use = false;
	publish(&rec[port]);
	return 0;
}

static int
rec_flush(uint16_t port, struct mrc_flow_err *err)
{
	if (port >= RTE_MAX_ETHPORTS)
		return refuse(err, -ENODEV, port, "no such port");
	for (unsigned int i = 0; i < MRC_FLOW_REC_MAX_RULES; i++)
		rec[port].slot[i].in_use = false;
	for (unsigned int i = 0; i < MRC_FLOW_REC_MAX_ENCAP; i++)
		rec[port].eslot[i].in_use = false;
	publish(&rec[port]);
	wait_unheld(&rec[port], rec[port].ecur ^ 1u);
	rec[port].epub[rec[port].ecur ^ 1u].n = 0;
	__atomic_store_n(&rec[port].ecur, rec[port].ecur ^ 1u, __ATOMIC_SEQ_CST);
	wait_unheld(&rec[port], rec[port].ecur ^ 1u);
	return 0;
}

const struct mrc_flow_ops mrc_flow_ops_rec = {
	.name = "recording",
	.create = rec_create,
	.destroy = rec_destroy,
	.flush = rec_flush,
};

const struct mrc_flow_rec_rules *
mrc_flow_rec_table(uint16_t port)
{
	if (port >= RTE_MAX_ETHPORTS)
		return NULL;
	return &rec[port].pub[__atomic_load_n(&rec[port].cur, __ATOMIC_ACQUIRE)];
}

const struct mrc_flow_rec_encap *
mrc_flow_rec_encap_table(uint16_t port)
{
	if (port >= RTE_MAX_ETHPORTS)
		return NULL;
	return &rec[port].epub[__atomic_load_n(&rec[port].ecur, __ATOMIC_ACQUIRE)];
}

const struct mrc_flow_rec_encap *
mrc_flow_rec_encap_hold(uint16_t port, unsigned int *held)
{
	struct rec_port *rp;

	if (port >= RTE_MAX_ETHPORTS)
		return NULL;
	rp = &rec[port];
	for (;;) {
		const unsigned int i = __atomic_load_n(&rp->ecur, __ATOMIC_SEQ_CST);

		__atomic_fetch_add(&rp->eheld[i], 1, __ATOMIC_SEQ_CST);
		/* still the current copy: a writer flipping after this waits for us */
		if (__atomic_load_n(&rp->ecur, __ATOMIC_SEQ_CST) == i) {
			*held = i;
			return &rp->epub[i];
		}
		__atomic_fetch_sub(&rp->eheld[i], 1, __ATOMIC_RELEASE);
	}
}

void
mrc_flow_rec_encap_release(uint16_t port, unsigned int held)
{
	if (port < RTE_MAX_ETHPORTS)
		__atomic_fetch_sub(&rec[port].eheld[held & 1u], 1, __ATOMIC_RELEASE);
}

unsigned int
mrc_flow_rec_encap_count(uint16_t port)
{
	const struct mrc_flow_rec_encap *t = mrc_flow_rec_encap_table(port);

	return t != NULL ? t->n : 0;
}

unsigned int
mrc_flow_rec_count(uint16_t port)
{
	const struct mrc_flow_rec_rules *t = mrc_flow_rec_table(port);

	return t != NULL ? t->n : 0;
}

void
mrc_flow_rec_reset(void)
{
	for (uint16_t p = 0; p < RTE_MAX_ETHPORTS; p++)
		(void)rec_flush(p, NULL);
}
