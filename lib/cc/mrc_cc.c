/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * The algorithm registry and the checks every algorithm shares.
 *
 * Built-in algorithms live in a const table that references their ops, so
 * linking this file (which every user of mrc_cc_find() does) links them too;
 * a static library would silently drop an algorithm that only registered
 * itself from a constructor. Extra algorithms go into a small static table
 * (no allocation) through mrc_cc_register(), which is control-plane code run
 * before the workers start; lookups happen at QP creation, not per packet.
 */

#include <errno.h>
#include <string.h>

#include <rte_common.h>

#include "mrc_cc_priv.h"
#include "mrc_time.h"

static const struct mrc_cc_ops *const builtin[] = {
	&mrc_cc_nscc_ops,
	&mrc_cc_fixed_ops,
};

/* Registered at init by the control thread, read-only once workers run. */
static const struct mrc_cc_ops *registered[MRC_CC_REGISTRY_MAX];
static unsigned int n_registered;

static bool
name_ok(const char *name)
{
	if (name == NULL || name[0] == '\0')
		return false;
	return memchr(name, '\0', MRC_CC_NAME_MAX) != NULL;
}

const struct mrc_cc_ops *
mrc_cc_find(const char *name)
{
	if (!name_ok(name))
		return NULL;
	for (unsigned int i = 0; i < RTE_DIM(builtin); i++)
		if (strcmp(builtin[i]->name, name) == 0)
			return builtin[i];
	for (unsigned int i = 0; i < n_registered; i++)
		if (strcmp(registered[i]->name, name) == 0)
			return registered[i];
	return NULL;
}

int
mrc_cc_register(const struct mrc_cc_ops *ops)
{
	if (ops == NULL || !name_ok(ops->name) || ops->priv_size > MRC_CC_PRIV_MAX ||
		ops->init == NULL || ops->on_ack == NULL || ops->on_trim == NULL ||
		ops->on_loss == NULL || ops->on_timeout == NULL || ops->cwnd == NULL ||
		ops->stats == NULL)
		return -EINVAL;
	if (mrc_cc_find(ops->name) != NULL)
		return -EEXIST;
	if (n_registered == RTE_DIM(registered))
		return -ENOSPC;
	registered[n_registered++] = ops;
	return 0;
}

unsigned int
mrc_cc_list(const struct mrc_cc_ops **out, unsigned int n)
{
	unsigned int k = 0;

	for (unsigned int i = 0; i < RTE_DIM(builtin); i++, k++)
		if (k < n)
			out[k] = builtin[i];
	for (unsigned int i = 0; i < n_registered; i++, k++)
		if (k < n)
			out[k] = registered[i];
	return k;
}

uint64_t
mrc_cc_bdp_bytes(uint64_t link_bps, uint32_t base_rtt_ns)
{
	return mrc_muldiv_u64(link_bps, base_rtt_ns, 8 * MRC_NS_PER_S);
}

int
mrc_cc_params_check(const struct mrc_cc_params *p, const char **why)
{
	const char *msg = NULL;

	/*
	 * The bounds keep every product in the algorithms inside 64 bits (see
	 * MRC_CC_CWND_LIMIT_BYTES) and the ns -> tsc factor inside 32 bits;
	 * they are far outside anything a real network uses.
	 */
	if (p->mtu_bytes < 64 || p->mtu_bytes > 65535)
		msg = "mtu_bytes must be 64..65535";
	else if (p->base_rtt_ns < 128 || p->base_rtt_ns > 100 * 1000 * 1000)
		msg = "base_rtt_ns must be 128 ns..100 ms";
	else if (p->link_bps == 0 || p->link_bps > UINT64_C(100) * 1000 * 1000 * 1000 * 1000)
		msg = "link_bps must be 1 b/s..100 Tb/s";
	else if (p->tsc_hz < 1000 * 1000 || p->tsc_hz > UINT64_C(16) * 1000 * 1000 * 1000)
		msg = "tsc_hz must be 1 MHz..16 GHz";
	else if (p->gamma_pm > 1000)
		msg = "gamma_pm must be 0..1000";
	else if (p->max_md_jump_pm > 1000)
		msg = "max_md_jump_pm must be 0..1000";
	else if (p->fi_scale_pm > 1000)
		msg = "fi_scale_pm must be 0..1000";
	else if (p->qa_gate > 31)
		msg = "qa_gate must be 0..31";
	else if (p->ecn_widespread_pct > 100)
		msg = "ecn_widespread_pct must be 0..100";
	else if (p->target_qdelay_ns > 1000 * 1000 * 1000)
		msg = "target_qdelay_ns must be at most 1 s";
	else if (p->adjust_period_ns > 1000 * 1000 * 1000)
		msg = "adjust_period_ns must be at most 1 s";
	else if (p->max_cwnd_bytes > MRC_CC_CWND_LIMIT_BYTES ||
		 p->fixed_cwnd_bytes > MRC_CC_CWND_LIMIT_BYTES)
		msg = "windows must be at most 1 GiB";
	if (why != NULL)
		*why = msg;
	return msg == NULL ? 0 : -EINVAL;
}

int
mrc_cc_init_ops(struct mrc_cc *cc, const struct mrc_cc_ops *ops, const struct mrc_cc_params *p)
{
	int rc;

	cc->ops = NULL;
	if (ops == NULL || ops->priv_size > sizeof(cc->priv))
		return -EINVAL;
	memset(cc->priv, 0, sizeof(cc->priv));
	rc = ops->init(cc->priv, p);
	if (rc == 0)
		cc->ops = ops;
	return rc;
}

int
mrc_cc_init(struct mrc_cc *cc, const char *name, const struct mrc_cc_params *p)
{
	const struct mrc_cc_ops *ops = mrc_cc_find(name);

	if (ops == NULL) {
		cc->ops = NULL;
		return -ENOENT;
	}
	return mrc_cc_init_ops(cc, ops, p);
}
