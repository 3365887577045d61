/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#include <errno.h>
#include <stddef.h>

#include "mrc_wire_pkt.h"

void
mrc_wire_cfg_defaults(struct mrc_wire_cfg *cfg)
{
	*cfg = (struct mrc_wire_cfg){
		.dscp =
			{
				.no_trim = 0,
				.trimmable = 4,
				.trimmable_retx = 8,
				.trimmed = 12,
				.trimmed_lasthop = 16,
				.control = 46,
			},
		.ev_split = MRC_EV_SPLIT_SPORT_LOW,
		.sack_bit_order = MRC_SACK_BIT_LSB0,
		.verify_icrc = true,
		.udp_checksum = false,
	};
}

int
mrc_wire_cfg_check(const struct mrc_wire_cfg *cfg, const char **why)
{
	const struct mrc_dscp_map *d = &cfg->dscp;
	const uint8_t all[] = {d->no_trim, d->trimmable, d->trimmable_retx, d->trimmed,
		d->trimmed_lasthop, d->control};
	const char *msg = NULL;

	for (size_t i = 0; i < RTE_DIM(all); i++)
		if (all[i] > 63)
			msg = "DSCP values are 6 bits (0..63)";
	/*
	 * The receiver recognises a trimmed packet by its DSCP alone, so the two
	 * trimmed code points must differ from each other and from every code
	 * point a sender uses.
	 */
	for (size_t i = 0; i < RTE_DIM(all); i++) {
		if (i == 3 || i == 4)
			continue;
		if (all[i] == d->trimmed || all[i] == d->trimmed_lasthop)
			msg = "trimmed and trimmed_lasthop DSCPs must differ from the DSCPs "
			      "senders use";
	}
	if (d->trimmed == d->trimmed_lasthop)
		msg = "trimmed and trimmed_lasthop DSCPs must differ";
	if (cfg->ev_split != MRC_EV_SPLIT_SPORT_LOW && cfg->ev_split != MRC_EV_SPLIT_SPORT_HIGH)
		msg = "unknown EV split";
	if (cfg->sack_bit_order != MRC_SACK_BIT_LSB0 && cfg->sack_bit_order != MRC_SACK_BIT_MSB0)
		msg = "unknown SACK bitmap bit order";
	if (why != NULL)
		*why = msg;
	return msg == NULL ? 0 : -EINVAL;
}

static const char *const reject_names[MRC_WIRE_REJECT_MAX] = {[MRC_WIRE_OK] = "ok",
#define MRC_WIRE_REJECT_NAME(up, low, help) [MRC_WIRE_##up] = #low,
	MRC_WIRE_REJECTS(MRC_WIRE_REJECT_NAME)
#undef MRC_WIRE_REJECT_NAME
};

static const char *const reject_help[MRC_WIRE_REJECT_MAX] = {
	[MRC_WIRE_OK] = "the packet parsed and its ICRC matched",
#define MRC_WIRE_REJECT_HELP(up, low, help) [MRC_WIRE_##up] = help,
	MRC_WIRE_REJECTS(MRC_WIRE_REJECT_HELP)
#undef MRC_WIRE_REJECT_HELP
};

const char *
mrc_wire_reject_name(enum mrc_wire_rx reason)
{
	return (unsigned int)reason < MRC_WIRE_REJECT_MAX ? reject_names[reason] : "invalid";
}

const char *
mrc_wire_reject_help(enum mrc_wire_rx reason)
{
	return (unsigned int)reason < MRC_WIRE_REJECT_MAX ? reject_help[reason] : "invalid";
}

const char *
mrc_opcode_name(uint8_t op)
{
	switch (op) {
	case MRC_OP_WRITE_FIRST:
		return "WRITE_FIRST";
	case MRC_OP_WRITE_MIDDLE:
		return "WRITE_MIDDLE";
	case MRC_OP_WRITE_LAST:
		return "WRITE_LAST";
	case MRC_OP_WRITE_LAST_IMM:
		return "WRITE_LAST_IMM";
	case MRC_OP_WRITE_ONLY:
		return "WRITE_ONLY";
	case MRC_OP_WRITE_ONLY_IMM:
		return "WRITE_ONLY_IMM";
	case MRC_OP_ACK:
		return "ACK";
	case MRC_OP_EP_REQUEST:
		return "EP_REQUEST";
	case MRC_OP_EP_RESPONSE:
		return "EP_RESPONSE";
	case MRC_OP_SACK:
		return "SACK";
	case MRC_OP_NACK:
		return "NACK";
	case MRC_OP_PROBE:
		return "PROBE";
	default:
		return NULL;
	}
}

const char *
mrc_nack_reason_name(uint8_t reason)
{
	switch (reason) {
#define MRC_NACK_NAME(name, code, help) \
	case code:                      \
		return #name;
		MRC_NACK_REASONS(MRC_NACK_NAME)
#undef MRC_NACK_NAME
	default:
		return NULL;
	}
}
