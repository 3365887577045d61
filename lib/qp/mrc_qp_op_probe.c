/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * The operator's probe (mrc_qp.h, mrc_qp_op_probe): mrcctl asks, through
 * the shard's request ring, for one probe on one EV and its round trip.
 * It rides the EV probe slots (the answer is matched by its EV, as a
 * retired EV's probe is): mrc_qp_tx_burst() sends it, the probe's SACK or
 * mrc_qp_poll()'s timeout settles it. Nothing here waits.
 */

#include <errno.h>

#include "mrc_qp.h"
#include "mrc_qp_priv.h"
#include "mrc_time.h"

int
mrc_qp_op_probe(struct mrc_qp *qp, uint32_t ev, uint64_t now_tsc)
{
	int slot;

	if (qp->state != MRC_QP_RTS || qp->ev == NULL || qp->rtx == NULL)
		return -EPERM;
	slot = mrc_ev_find(qp->ev, ev);
	if (slot < 0 || qp->pin_slot >= 0)
		return -ENOENT;
	if (mrc_ev_state(qp->ev, slot) == MRC_EV_DENIED)
		return -EACCES;
	/* A probe of an earlier ask still out is settled as a retired EV's would be. */
	for (unsigned int i = 0; i < EV_PROBES; i++)
		qp->ev_probe[i].op = false;
	qp->op_probe_ev = ev;
	qp->op_probe_state = OP_PROBE_WANT;
	qp->op_probe_asked_tsc = now_tsc;
	qp->op_probe_rtt_tsc = 0;
	return 0;
}

int
mrc_qp_op_probe_result(const struct mrc_qp *qp, uint32_t ev, uint64_t *rtt_ns)
{
	if (qp->op_probe_ev != ev)
		return -ENOENT;
	switch (qp->op_probe_state) {
	case OP_PROBE_WANT:
	case OP_PROBE_OUT:
		return 0;
	case OP_PROBE_ANSWERED:
		*rtt_ns = mrc_tsc_to_ns(qp->op_probe_rtt_tsc, qp->tsc_hz);
		return 1;
	case OP_PROBE_TIMEOUT:
		return -ETIMEDOUT;
	case OP_PROBE_DOWN:
		return -ENETDOWN;
	default:
		return -ENOENT;
	}
}
