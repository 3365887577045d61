/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRC_ICRC_H
#define MRC_ICRC_H

/**
 * @file
 * The RoCEv2 invariant CRC (doc/protocol.md, "ICRC").
 *
 * ICRC = CRC-32 with the Ethernet polynomial (bit-reflected 0xEDB88320, the
 * one zlib and the FCS use, NOT CRC-32C) over:
 *   8 bytes of 0xFF (the InfiniBand LRH a RoCEv2 packet lacks, masked)
 *   | IPv6 header | UDP header | BTH | extension headers | payload | pad
 * with the fields routers may change set to all ones first: IPv6 traffic
 * class, flow label and hop limit; the UDP checksum; BTH byte 4
 * (FECN/BECN/reserved). In SRv6 mode the covered IPv6 header is the inner
 * one: the outer header's destination changes at every hop.
 *
 * The final value is inverted and sent least significant byte first, as the
 * Ethernet FCS and Linux rxe do.
 */

#include <stddef.h>
#include <stdint.h>

#include <rte_mbuf.h>

/** CRC state after 8 bytes of 0xFF from the all-ones start (rxe's 0xDEBB20E3). */
#define MRC_ICRC_SEED 0xDEBB20E3u

/**
 * Continue a reflected CRC-32 (no pre/post inversion) over `len` bytes.
 * Uses carry-less multiplication where the CPU has it (VPCLMULQDQ on 512-bit
 * registers when the EAL's max SIMD bitwidth is 512, else PCLMULQDQ), and a
 * slice-by-8 table loop otherwise; all give identical results.
 */
uint32_t mrc_crc32_update(uint32_t crc, const void *buf, size_t len);

enum mrc_crc32_impl {
	MRC_CRC32_AUTO = 0, /**< the fastest the CPU supports (default) */
	MRC_CRC32_TABLE,    /**< force the portable table loop */
	MRC_CRC32_CLMUL,    /**< force 128-bit PCLMULQDQ (x86 only) */
	MRC_CRC32_VCLMUL,   /**< force 512-bit VPCLMULQDQ (x86 with AVX-512 only) */
};

/** Choose the implementation (tests and benchmarks); -ENOTSUP if the CPU lacks it. */
int mrc_crc32_set_impl(enum mrc_crc32_impl impl);

/** Name of the implementation in use for long buffers ("vpclmulqdq", "pclmulqdq" or "slice-by-8").
 */
const char *mrc_crc32_impl_name(void);

/** Continue the CRC over `len` bytes of `m` starting at `off` (any segmentation). */
uint32_t mrc_crc32_mbuf(uint32_t crc, const struct rte_mbuf *m, uint32_t off, uint32_t len);

/**
 * Compute the ICRC of the packet in `m` whose covered part starts at `ip_off`
 * (the inner IPv6 header) and ends `len` bytes later (before the ICRC).
 * Masks the variant fields without modifying the mbuf.
 * @return the value to send (already inverted); 0 is a valid ICRC.
 */
uint32_t mrc_icrc_calc(const struct rte_mbuf *m, uint32_t ip_off, uint32_t len);

#endif /* MRC_ICRC_H */
