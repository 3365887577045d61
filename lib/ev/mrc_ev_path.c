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
		return 0;
	}
	if (tmpl->n_t1 == 0)
		return -EINVAL;
	uplink = mrc_ev_layout_uplink(layout, ev);
	out->n = 4;
	out->usid[0] = mrc_ev_usid(plane, MRC_USID_TIER_T0, tmpl->src_t0);
	out->usid[1] = mrc_ev_usid(plane, MRC_USID_TIER_T1, (uint8_t)(uplink % tmpl->n_t1));
	out->usid[2] = mrc_ev_usid(plane, MRC_USID_TIER_T0, tmpl->dst_t0);
	out->usid[3] = mrc_ev_usid(plane, MRC_USID_TIER_HOST, tmpl->dst_host);
	return 0;
}
