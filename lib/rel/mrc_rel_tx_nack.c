/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Requester-side reliability, NACKs: which reasons make a packet lost at
 * once, which cost a retry, which end the connection and which are
 * ignored. Separate from the SACK handling because a NACK names one PSN
 * and judges it by its reason code alone: none of the SACK's loss rules
 * or RTT sampling apply.
 */

#include <rte_common.h>

#include "mrc_rel_tx.h"
#include "mrc_rel_tx_priv.h"
#include "mrc_seq.h"

int
mrc_rel_tx_on_nack(struct mrc_rel_tx *tx, const struct mrc_nack_view *n, uint64_t now_tsc,
	const struct mrc_rel_tx_ops *ops, void *ctx)
{
	const uint32_t psn = n->nack_psn & MRC_PSN_MASK;
	const uint16_t i = (uint16_t)(psn & tx->mask);
	bool costs = false;

	RTE_SET_USED(now_tsc);
	tx->stats.nacks++;
	switch (n->reason) {
	case MRC_NACK_UNEXP_EVENT:
		tx->error = MRC_REL_ERR_REMOTE_OP;
		return -MRC_REL_ERR_REMOTE_OP;
	case MRC_NACK_TRIMMED:
	case MRC_NACK_TRIMMED_LASTHOP:
		break;
	case MRC_NACK_NO_BITMAP:
	case MRC_NACK_NO_PKT_BUFFER:
	case MRC_NACK_NO_RESOURCE:
	case MRC_NACK_PSN_OOR_WINDOW:
		costs = true;
		break;
	case MRC_NACK_PSN_SEQ_ERR:
		if (tx->gbn)
			break;
		tx->stats.nacks_ignored++;
		return 0;
	default:
		tx->stats.nacks_ignored++;
		return 0;
	}
	if (!outstanding(tx, psn) || pkt_state(&ring(tx)[i]) != PKT_INFLIGHT) {
		tx->stats.nacks_ignored++;
		return 0;
	}
	mrc_rel_tx_mark_lost(tx, i, MRC_REL_LOSS_NACK, ops, ctx);
	if (tx->gbn)
		mrc_rel_tx_rewind_from(tx, mrc_psn_add(psn, 1), ops, ctx);
	if (costs && !spend_retry(tx))
		return -MRC_REL_ERR_RETRY_EXCEEDED;
	return 0;
}
