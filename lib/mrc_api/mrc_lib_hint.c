/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * lib_mrc: QP hints, the attributes a program may give a group of QPs.
 * mrcd keeps them and does not yet act on them, so they touch neither the
 * channel nor a QP's state: a file of their own.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mrc_lib_priv.h"

/* ---- QP hints: kept, not yet acted on ---- */

struct mrc_qp_hint *
mrc_create_qp_hint(struct mrc_context *c, struct mrc_qp_hint_init_attr *init_attr)
{
	struct mrc_qp_hint *h;

	if (c == NULL || init_attr == NULL) {
		errno = EINVAL;
		return NULL;
	}
	h = calloc(1, sizeof(*h));
	if (h == NULL)
		return NULL;
	h->ctx = c;
	h->attr = init_attr->attr;
	return h;
}

int
mrc_destroy_qp_hint(struct mrc_qp_hint *h)
{
	if (h == NULL) {
		errno = EINVAL;
		return -1;
	}
	if (h->users > 0) {
		errno = EBUSY;
		return -1;
	}
	free(h);
	return 0;
}

static void
hint_copy(struct mrc_qp_hint_attr *to, const struct mrc_qp_hint_attr *from, int mask)
{
	if (mask & MRC_QP_HINT_NUM_QPS_PER_PEER)
		to->num_qps_per_peer = from->num_qps_per_peer;
	if (mask & MRC_QP_HINT_NUM_SEND_PEERS)
		to->num_send_peers = from->num_send_peers;
	if (mask & MRC_QP_HINT_NUM_REMOTE_RECV_PEERS)
		to->num_remote_recv_peers = from->num_remote_recv_peers;
	if (mask & (int)MRC_QP_HINT_VENDOR_CFG)
		memcpy(to->vendor_cfg, from->vendor_cfg, sizeof(to->vendor_cfg));
}

int
mrc_query_qp_hint(struct mrc_qp_hint *h, struct mrc_qp_hint_attr *attr, int mask)
{
	if (h == NULL || attr == NULL) {
		errno = EINVAL;
		return -1;
	}
	hint_copy(attr, &h->attr, mask);
	return 0;
}

int
mrc_modify_qp_hint(struct mrc_qp_hint *h, struct mrc_qp_hint_attr *attr, int mask)
{
	if (h == NULL || attr == NULL) {
		errno = EINVAL;
		return -1;
	}
	hint_copy(&h->attr, attr, mask);
	return 0;
}
