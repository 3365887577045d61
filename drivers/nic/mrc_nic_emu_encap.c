/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/* The emulated NIC's egress encapsulation (mrc_nic_emu.h, doc/offload.md). */

#include <string.h>

#include <rte_ip.h>

#include "mrc_encap.h"
#include "mrc_nic_emu.h"

void
mrc_nic_emu_encap(const struct mrc_flow_rec_encap *t, struct rte_mbuf *const *pkts, uint16_t n,
	struct mrc_nic_emu_counters *c)
{
	/* No one registered tx metadata in this process: no packet carries a key. */
	if (rte_flow_dynf_metadata_mask == 0)
		return;
	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		const struct mrc_flow_rec_encap_hdr *h;
		struct rte_ipv6_hdr *ip;
		uint32_t key;
		uint8_t *p;

		if (!mrc_encap_get_key(m, &key))
			continue;
		m->ol_flags &= ~RTE_MBUF_DYNFLAG_TX_METADATA;
		h = t != NULL && t->n != 0 ? mrc_flow_rec_encap_find(t, key) : NULL;
		if (unlikely(h == NULL)) {
			c->encap_nomatch_pkts++;
			continue;
		}
		/* Grow by what the rule adds beyond the L2 header it replaces. */
		if (unlikely(!RTE_MBUF_DIRECT(m) || rte_mbuf_refcnt_read(m) != 1 ||
			     m->data_len < h->decap_len ||
			     rte_pktmbuf_headroom(m) < h->len - h->decap_len)) {
			c->encap_noroom_pkts++;
			continue;
		}
		p = (uint8_t *)rte_pktmbuf_prepend(m, (uint16_t)(h->len - h->decap_len));
		memcpy(p, h->bytes, h->len);
		/* The rule's L2 is as long as the one it replaced (the backend checks). */
		ip = (struct rte_ipv6_hdr *)(p + h->decap_len);
		ip->payload_len = rte_cpu_to_be_16(
			(uint16_t)(m->pkt_len - h->decap_len - sizeof(struct rte_ipv6_hdr)));
		c->encap_pkts++;
	}
}

void
mrc_nic_emu_encap_port(
	uint16_t port, struct rte_mbuf *const *pkts, uint16_t n, struct mrc_nic_emu_counters *c)
{
	const struct mrc_flow_rec_encap *t;
	unsigned int held;

	if (rte_flow_dynf_metadata_mask == 0)
		return; /* no key anywhere: not even the hold */
	t = mrc_flow_rec_encap_hold(port, &held);
	if (t == NULL)
		return;
	mrc_nic_emu_encap(t, pkts, n, c);
	mrc_flow_rec_encap_release(port, held);
}
