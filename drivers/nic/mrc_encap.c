/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/* The egress encap rule and its probe (mrc_encap.h). */

#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_ether.h>
#include <rte_errno.h>
#include <rte_ip.h>

#include "mrc_encap.h"

static_assert(MRC_ENCAP_MAX_LEN == MRC_FLOW_REC_ENCAP_LEN, "the recording backend holds any rule");

size_t
mrc_encap_l2_len(const uint8_t *hdr, size_t len)
{
	const struct rte_ether_hdr *eh = (const struct rte_ether_hdr *)hdr;
	size_t l2 = sizeof(*eh);
	rte_be16_t type;

	if (len < sizeof(*eh))
		return 0;
	type = eh->ether_type;
	if (type == RTE_BE16(RTE_ETHER_TYPE_VLAN)) {
		const struct rte_vlan_hdr *vh = (const struct rte_vlan_hdr *)(eh + 1);

		if (len < l2 + sizeof(*vh))
			return 0;
		type = vh->eth_proto;
		l2 += sizeof(*vh);
	}
	if (type != RTE_BE16(RTE_ETHER_TYPE_IPV6) || len < l2 + sizeof(struct rte_ipv6_hdr) ||
		(hdr[l2] >> 4) != 6)
		return 0;
	return l2;
}

int
mrc_encap_rule_build(struct mrc_encap_rule *r, uint32_t key, const uint8_t *hdr, size_t len)
{
	const size_t l2 = mrc_encap_l2_len(hdr, len);

	memset(r, 0, sizeof(*r));
	if (l2 == 0 || len > sizeof(r->bytes))
		return -EINVAL;
	memcpy(r->bytes, hdr, len);
	r->attr.egress = 1;
	r->meta_spec.data = key;
	r->meta_mask.data = UINT32_MAX;
	r->pattern[0].type = RTE_FLOW_ITEM_TYPE_META;
	r->pattern[0].spec = &r->meta_spec;
	r->pattern[0].mask = &r->meta_mask;
	r->pattern[1].type = RTE_FLOW_ITEM_TYPE_END;
	/* The packet's own L2 header goes: its size is all the NIC needs. */
	r->decap.data = NULL;
	r->decap.size = l2;
	r->encap.data = r->bytes;
	r->encap.preserve = NULL;
	r->encap.size = len;
	r->actions[0].type = RTE_FLOW_ACTION_TYPE_RAW_DECAP;
	r->actions[0].conf = &r->decap;
	r->actions[1].type = RTE_FLOW_ACTION_TYPE_RAW_ENCAP;
	r->actions[1].conf = &r->encap;
	r->actions[2].type = RTE_FLOW_ACTION_TYPE_END;
	return 0;
}

struct mrc_flow *
mrc_encap_install(const struct mrc_flow_ops *ops, uint16_t port, uint32_t key, const uint8_t *hdr,
	size_t len, struct mrc_flow_err *err)
{
	struct mrc_encap_rule r;

	if (mrc_encap_rule_build(&r, key, hdr, len) != 0) {
		if (err != NULL) {
			err->code = -EINVAL;
			snprintf(err->msg, sizeof(err->msg),
				"port %u: encap header of %zu bytes: want Ethernet [802.1Q] + "
				"IPv6, at most %d bytes",
				port, len, MRC_ENCAP_MAX_LEN);
		}
		return NULL;
	}
	return ops->create(port, &r.attr, r.pattern, r.actions, err);
}

int
mrc_encap_meta_register(void)
{
	return rte_flow_dynf_metadata_register() == 0 ? 0 : -rte_errno;
}

int
mrc_encap_probe(const struct mrc_flow_ops *ops, uint16_t port, uint32_t key, const uint8_t *hdr,
	size_t len, struct mrc_flow_err *err)
{
	struct mrc_flow_err derr, local;
	struct mrc_flow *f;
	int rc;

	if (err == NULL)
		err = &local;
	err->code = 0;
	err->msg[0] = '\0';
	rc = mrc_encap_meta_register();
	if (rc != 0) {
		err->code = rc;
		snprintf(err->msg, sizeof(err->msg), "port %u: rte_flow_dynf_metadata_register: %s",
			port, strerror(-rc));
		return rc;
	}
	f = mrc_encap_install(ops, port, key, hdr, len, err);
	if (f == NULL)
		return err->code != 0 ? err->code : -EIO;
	if (ops->destroy(port, f, &derr) != 0) {
		err->code = -EIO;
		snprintf(err->msg, sizeof(err->msg), "created, then not destroyed: %.200s",
			derr.msg);
		return -EIO;
	}
	return 0;
}
