/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * NSCC's configuration: the window bounds, target delay and gains derived
 * from the network (mrc_cc_nscc.c has the algorithm that uses them).
 *
 * The numbers, for a network of link speed L (the slowest on the path) and
 * unloaded RTT base_rtt (UEC defaults; every one can be overridden):
 *
 *   BDP            = L x base_rtt
 *   MaxWnd         = 1.5 x BDP, and the initial window (start at "full")
 *   target_qdelay  = 0.75 x base_rtt if the switches trim, else 1.0 x base_rtt
 *   scaling_a      = BDP / 150000 B      (150000 B = 100 Gb/s x 12 us, the
 *   scaling_b      = target_qdelay / 12 us  reference network the gains were
 *                    (MRC: / base_rtt when  tuned on)
 *                    that is longer)
 *   alpha          = 4.0 x scaling_a x scaling_b x MTU / target_qdelay
 *   fi             = 5 MTU x scaling_a        eta = 0.15 MTU x scaling_a
 *   gamma          = 0.8,  max_md_jump = 0.5, fi_scale = 0.25, qa_gate = 3
 *   qa_threshold   = off when trimming, else 4 x target_qdelay
 *   adjust period  = 8 MTU of acked bytes or 1 base_rtt, whichever first
 *
 * For 100 Gb/s, 10 us, 4096 B (no trimming): BDP 125000 B, MaxWnd 187500 B,
 * target 10 us, a = b = 0.833, alpha = 1.138 B/ns (so at most 11377 B of
 * proportional increase per window), fi 17066 B, eta 512 B, quick adapt
 * below 23437 B per period, adjust every 32768 B or 10 us.
 */

#include <errno.h>
#include <string.h>

#include <rte_common.h>

#include "mrc_cc_priv.h"

int
mrc_cc_nscc_derive(const struct mrc_cc_params *p, struct mrc_cc_nscc_cfg *out)
{
	unsigned __int128 ref = (unsigned __int128)MRC_NSCC_REF_BDP_BYTES * MRC_NSCC_REF_RTT_NS;
	struct mrc_cc_nscc_cfg c;
	uint64_t bdp, max, target, v;

	if (mrc_cc_params_check(p, NULL) != 0)
		return -EINVAL;
	memset(&c, 0, sizeof(c));
	bdp = mrc_cc_bdp_bytes(p->link_bps, p->base_rtt_ns);
	max = p->max_cwnd_bytes != 0 ? p->max_cwnd_bytes : bdp * 3 / 2;
	if (max < p->mtu_bytes)
		max = p->mtu_bytes;
	if (max > MRC_CC_CWND_LIMIT_BYTES)
		return -ERANGE;
	target = p->target_qdelay_ns;
	if (target == 0)
		target = p->trimming_enabled ? (uint64_t)p->base_rtt_ns * 3 / 4 : p->base_rtt_ns;

	c.bdp_bytes = bdp;
	c.mtu_bytes = p->mtu_bytes;
	c.base_rtt_ns = p->base_rtt_ns;
	c.max_cwnd_bytes = (uint32_t)max;
	c.target_qdelay_ns = (uint32_t)target;
	c.scaling_a_pm = (uint32_t)RTE_MIN(bdp * 1000 / MRC_NSCC_REF_BDP_BYTES, UINT32_MAX);
	c.scaling_b_pm =
		(uint32_t)(target * 1000 / RTE_MAX(p->base_rtt_ns, (uint32_t)MRC_NSCC_REF_RTT_NS));

	/*
	 * alpha = 4 x a x b x MTU / target = 4 x MTU x BDP / (150000 B x 12 us):
	 * target cancels out. In Q16.16 bytes per ns. MRC: on a network slower
	 * than 12 us the 12 us becomes base_rtt (b = target / base_rtt), see
	 * the top of this file.
	 */
	if (p->base_rtt_ns > MRC_NSCC_REF_RTT_NS)
		ref = (unsigned __int128)MRC_NSCC_REF_BDP_BYTES * p->base_rtt_ns;
	v = (uint64_t)((unsigned __int128)4 * p->mtu_bytes * bdp * 65536 / ref);
	if (v > UINT32_MAX)
		return -ERANGE;
	c.alpha_q16 = (uint32_t)v;
	c.pi_max_bytes = (uint32_t)RTE_MIN(
		(unsigned __int128)4 * p->mtu_bytes * bdp * target / ref, UINT32_MAX);

	v = p->fi_bytes != 0 ? p->fi_bytes : 5 * p->mtu_bytes * bdp / MRC_NSCC_REF_BDP_BYTES;
	if (v > MRC_CC_CWND_LIMIT_BYTES)
		return -ERANGE;
	c.fi_bytes = (uint32_t)v;
	/* 0.15 MTU x a = 15 x MTU x BDP / (100 x 150000 B) */
	v = p->eta_bytes != 0 ? p->eta_bytes
			      : 15 * p->mtu_bytes * bdp / (100 * MRC_NSCC_REF_BDP_BYTES);
	if (v > MRC_CC_CWND_LIMIT_BYTES)
		return -ERANGE;
	c.eta_bytes = (uint32_t)v;

	c.gamma_pm = p->gamma_pm != 0 ? p->gamma_pm : 800;
	c.max_md_jump_pm = p->max_md_jump_pm != 0 ? p->max_md_jump_pm : 500;
	c.fi_scale_pm = p->fi_scale_pm != 0 ? p->fi_scale_pm : 250;
	c.qa_gate = p->qa_gate != 0 ? p->qa_gate : 3;
	if (p->qa_threshold_ns == UINT32_MAX)
		c.qa_threshold_ns = 0;
	else if (p->qa_threshold_ns != 0)
		c.qa_threshold_ns = p->qa_threshold_ns;
	else
		c.qa_threshold_ns = p->trimming_enabled ? 0 : (uint32_t)(4 * target);
	c.adjust_bytes_threshold =
		p->adjust_bytes_threshold != 0 ? p->adjust_bytes_threshold : 8 * p->mtu_bytes;
	c.adjust_period_ns = p->adjust_period_ns != 0 ? p->adjust_period_ns : p->base_rtt_ns;
	c.fast_delay_ns = RTE_MIN((uint32_t)MRC_NSCC_FAST_DELAY_NS, c.target_qdelay_ns / 2);
	c.ecn_widespread_pct =
		p->disable_ecn_gate ? 0 : (p->ecn_widespread_pct != 0 ? p->ecn_widespread_pct : 25);
	c.disable_qa = p->disable_qa;
	*out = c;
	return 0;
}
