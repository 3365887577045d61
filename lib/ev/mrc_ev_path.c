/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * EV -> uSID path: read the plane and uplink fields of the EV, fill the
 * template. The addressing plan is documented in mrc_ev_path.h. Per packet
 * cost is a few shifts; the layout check is a handful of compares.
 */

#include <errno.h>

#include "mrc_ev_path.h"

/* Several workers at the destination: their function uSID ends the path. */
static inline int
add_worker(const struct mrc_ev_path_tmpl *tmpl, uint32_t plane, struct mrc_usid_path *out)
{
	if (tmpl->dst_workers <= 1)
		return 0;
	if (tmpl->dst_worker >= tmpl->dst_workers)
		return -EINVAL;
	out->usid[out->n++] = mrc_ev_usid(plane, MRC_USID_TIER_WORKER, tmpl->dst_worker);
	return 0;
}

int
mrc_ev_path(const struct mrc_ev_path_tmpl *tmpl, const struct mrc_ev_layout *layout, uint32_t ev,
	struct mrc_usid_path *out)
{
	uint32_t plane, uplink;

	if (tmpl == NULL || out == NULL || mrc_ev_layout_check(layout, NULL) != 0)
		return -EINVAL;
	plane = mrc_ev_layout_plane(layout, ev);
	if (plane >= MRC_EV_MAX_PLANES)
		return -EINVAL;
	out->block = tmpl->block;
	if (tmpl->src_t0 == tmpl->dst_t0) {
		out->n = 2;
		out->usid[0] = mrc_ev_usid(plane, MRC_USID_TIER_T0, tmpl->src_t0);
		out->usid[1] = mrc_ev_usid(plane, MRC_USID_TIER_HOST, tmpl->dst_host);
		return add_worker(tmpl, plane, out);
	}
	if (tmpl->n_t1 == 0)
		return -EINVAL;
	uplink = mrc_ev_layout_uplink(layout, ev);
	out->n = 4;
	out->usid[0] = mrc_ev_usid(plane, MRC_USID_TIER_T0, tmpl->src_t0);
	out->usid[1] = mrc_ev_usid(plane, MRC_USID_TIER_T1, (uint8_t)(uplink % tmpl->n_t1));
	out->usid[2] = mrc_ev_usid(plane, MRC_USID_TIER_T0, tmpl->dst_t0);
	out->usid[3] = mrc_ev_usid(plane, MRC_USID_TIER_HOST, tmpl->dst_host);
	return add_worker(tmpl, plane, out);
}

int
mrc_ev_worker_addr(uint32_t block, unsigned int plane, uint8_t host, uint8_t worker,
	uint8_t addr[MRC_IPV6_ADDR_LEN])
{
	struct mrc_usid_path p = {.block = block, .n = 2};

	if (plane >= MRC_EV_MAX_PLANES)
		return -EINVAL;
	p.usid[0] = mrc_ev_usid(plane, MRC_USID_TIER_HOST, host);
	p.usid[1] = mrc_ev_usid(plane, MRC_USID_TIER_WORKER, worker);
	return mrc_usid_encode(&p, (uint8_t(*)[MRC_IPV6_ADDR_LEN])addr, 1) == 1 ? 0 : -EINVAL;
}
