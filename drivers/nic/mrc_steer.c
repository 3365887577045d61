/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/* The steering rule, its probe and the per-worker set (mrc_steer.h). */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "mrc_ev_path.h"
#include "mrc_steer.h"

void
mrc_steer_rule_build(struct mrc_steer_rule *r, const uint8_t dst[16], uint16_t queue)
{
	memset(r, 0, sizeof(*r));
	r->attr.ingress = 1;
	memcpy(r->ip_spec.hdr.dst_addr, dst, 16);
	memset(r->ip_mask.hdr.dst_addr, 0xff, 16);
	r->pattern[0].type = RTE_FLOW_ITEM_TYPE_ETH; /* any Ethernet frame */
	r->pattern[1].type = RTE_FLOW_ITEM_TYPE_IPV6;
	r->pattern[1].spec = &r->ip_spec;
	r->pattern[1].mask = &r->ip_mask;
	r->pattern[2].type = RTE_FLOW_ITEM_TYPE_END;
	r->queue.index = queue;
	r->actions[0].type = RTE_FLOW_ACTION_TYPE_QUEUE;
	r->actions[0].conf = &r->queue;
	r->actions[1].type = RTE_FLOW_ACTION_TYPE_END;
}

struct mrc_flow *
mrc_steer_install(const struct mrc_flow_ops *ops, uint16_t port, const uint8_t dst[16],
	uint16_t queue, struct mrc_flow_err *err)
{
	struct mrc_steer_rule r;

	mrc_steer_rule_build(&r, dst, queue);
	return ops->create(port, &r.attr, r.pattern, r.actions, err);
}

int
mrc_steer_probe(const struct mrc_flow_ops *ops, uint16_t port, const uint8_t dst[16],
	uint16_t queue, struct mrc_flow_err *err)
{
	struct mrc_flow_err derr, local;
	struct mrc_flow *f;

	if (err == NULL)
		err = &local;
	err->code = 0;
	f = mrc_steer_install(ops, port, dst, queue, err);
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

int
mrc_steer_workers(const struct mrc_flow_ops *ops, uint16_t port, uint32_t block, unsigned int plane,
	uint8_t host, unsigned int n_workers, struct mrc_flow **flows, struct mrc_flow_err *err)
{
	uint8_t dst[16];

	if (n_workers > MRC_EV_MAX_WORKERS || n_workers > UINT16_MAX ||
		mrc_ev_worker_addr(block, plane, host, 0, dst) != 0) {
		if (err != NULL) {
			err->code = -EINVAL;
			snprintf(err->msg, sizeof(err->msg),
				"port %u: %u workers on plane %u: at most %u workers, plane < %u",
				port, n_workers, plane, MRC_EV_MAX_WORKERS, MRC_EV_MAX_PLANES);
		}
		return -EINVAL;
	}
	for (unsigned int k = 0; k < n_workers; k++) {
		(void)mrc_ev_worker_addr(block, plane, host, (uint8_t)k, dst);
		flows[k] = mrc_steer_install(ops, port, dst, (uint16_t)k, err);
		if (flows[k] == NULL) {
			const int rc = err != NULL && err->code != 0 ? err->code : -EIO;

			while (k-- > 0)
				(void)ops->destroy(port, flows[k], NULL);
			return rc;
		}
	}
	return 0;
}
