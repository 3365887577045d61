/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRC_WIRE_PRIV_H
#define MRC_WIRE_PRIV_H

/* Internal to lib/wire: the transport-header codec shared by parse and build. */

#include <stddef.h>
#include <stdint.h>

#include "mrc_wire_pkt.h"

/*
 * Decode the transport headers at `p` (`len` bytes available, at least
 * mrc_transport_hdr_len() of them) into `pkt`. The BTH is already decoded.
 */
enum mrc_wire_rx mrc_transport_decode(
	const uint8_t *p, const struct mrc_wire_cfg *cfg, struct mrc_pkt *pkt);

/* Encode BTH and the extension headers of `pkt` at `p`; `pad` goes in BTH.PadCnt. */
void mrc_transport_encode(
	uint8_t *p, const struct mrc_pkt *pkt, const struct mrc_wire_cfg *cfg, uint8_t pad);

/* Decode the EFRH that follows an endpoint flow recovery's ERTH or EETH. */
enum mrc_wire_rx mrc_efrh_decode(const uint8_t *p, struct mrc_ep_rec *r);

/* Decode the 12-byte BTH. */
void mrc_bth_decode(const struct mrc_bth *b, struct mrc_bth_view *v);

/* Put `bitmap` (bit i = PSN base + i) in wire order, and back (an involution). */
static inline uint64_t
mrc_sack_bitmap_wire(uint64_t bitmap, enum mrc_sack_bit_order order)
{
	uint64_t r = 0;

	if (order == MRC_SACK_BIT_LSB0)
		return bitmap;
	for (int i = 0; i < 64; i++)
		r |= ((bitmap >> i) & 1) << (63 - i);
	return r;
}

#endif /* MRC_WIRE_PRIV_H */
