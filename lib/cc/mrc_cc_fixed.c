/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * "fixed": a constant congestion window.
 *
 * For bring-up and tests: the window is fixed_cwnd_bytes (default 1.5 x BDP,
 * the same as NSCC's MaxWnd, at least one MTU) whatever the network says, so
 * a test of the QP or the fabric sees exactly the in-flight volume it
 * configured. The signals are still counted, so a test can check that the QP
 * delivered them.
 */

#include <assert.h>
#include <errno.h>

#include <rte_common.h>

#include "mrc_cc_priv.h"

struct fixed_cc {
	uint32_t cwnd_bytes;
	uint32_t base_rtt_ns;
	uint32_t acks;
	uint32_t ecn_acks;
	uint32_t trims;
	uint32_t losses;
	uint32_t timeouts;
	uint32_t penalties;
	uint8_t last_pen;
};

static_assert(sizeof(struct fixed_cc) <= MRC_CC_PRIV_MAX, "fixed state fits struct mrc_cc");

static int
fixed_init(void *priv, const struct mrc_cc_params *p)
{
	struct fixed_cc *f = priv;
	uint64_t w;

	if (mrc_cc_params_check(p, NULL) != 0)
		return -EINVAL;
	w = p->fixed_cwnd_bytes;
	if (w == 0)
		w = mrc_cc_bdp_bytes(p->link_bps, p->base_rtt_ns) * 3 / 2;
	if (w < p->mtu_bytes)
		w = p->mtu_bytes;
	if (w > MRC_CC_CWND_LIMIT_BYTES)
		return -ERANGE;
	*f = (struct fixed_cc){.cwnd_bytes = (uint32_t)w, .base_rtt_ns = p->base_rtt_ns};
	return 0;
}

static void
fixed_on_ack(void *priv, const struct mrc_cc_ack *a, uint64_t now_tsc)
{
	struct fixed_cc *f = priv;

	RTE_SET_USED(now_tsc);
	f->acks++;
	f->ecn_acks += a->ecn;
	/* Count penalty episodes the way NSCC does: a 0 -> non-zero edge. */
	if (a->rcv_cwnd_pen != 0 && f->last_pen == 0)
		f->penalties++;
	f->last_pen = a->rcv_cwnd_pen;
}

static void
fixed_on_trim(void *priv, uint32_t bytes, bool lasthop, uint64_t now_tsc)
{
	struct fixed_cc *f = priv;

	RTE_SET_USED(bytes);
	RTE_SET_USED(lasthop);
	RTE_SET_USED(now_tsc);
	f->trims++;
}

static void
fixed_on_loss(void *priv, uint32_t bytes, uint64_t now_tsc)
{
	struct fixed_cc *f = priv;

	RTE_SET_USED(bytes);
	RTE_SET_USED(now_tsc);
	f->losses++;
}

static void
fixed_on_timeout(void *priv, uint64_t now_tsc)
{
	struct fixed_cc *f = priv;

	RTE_SET_USED(now_tsc);
	f->timeouts++;
}

static uint32_t
fixed_cwnd(const void *priv)
{
	const struct fixed_cc *f = priv;

	return f->cwnd_bytes;
}

static void
fixed_stats(const void *priv, struct mrc_cc_stats *out)
{
	const struct fixed_cc *f = priv;

	*out = (struct mrc_cc_stats){
		.acks = f->acks,
		.ecn_acks = f->ecn_acks,
		.trims = f->trims,
		.losses = f->losses,
		.timeouts = f->timeouts,
		.penalties = f->penalties,
		.cwnd_bytes = f->cwnd_bytes,
		.min_cwnd_bytes = f->cwnd_bytes,
		.max_cwnd_bytes = f->cwnd_bytes,
		.base_rtt_ns = f->base_rtt_ns,
	};
}

const struct mrc_cc_ops mrc_cc_fixed_ops = {
	.name = MRC_CC_FIXED,
	.priv_size = sizeof(struct fixed_cc),
	.init = fixed_init,
	.on_ack = fixed_on_ack,
	.on_trim = fixed_on_trim,
	.on_loss = fixed_on_loss,
	.on_timeout = fixed_on_timeout,
	.cwnd = fixed_cwnd,
	.stats = fixed_stats,
};
