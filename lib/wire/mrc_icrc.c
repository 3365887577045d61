/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#include <string.h>

#include <rte_common.h>
#include <rte_ip.h>
#include <rte_udp.h>

#include "mrc_icrc.h"
#include "mrc_wire.h"

/*
 * Slice-by-8: eight 256-entry tables let the loop fold eight input bytes per
 * step with independent lookups (about 1.2 cycles/byte here, against ~8 for
 * the byte-at-a-time loop). The tables are derived from the polynomial at
 * load time rather than pasted in as 8 KiB of magic numbers.
 */
#define CRC32_POLY_REFLECTED 0xEDB88320u

static uint32_t crc32_tab[8][256];

RTE_INIT(mrc_crc32_tables_init)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (CRC32_POLY_REFLECTED & (0u - (c & 1)));
		crc32_tab[0][i] = c;
	}
	for (uint32_t i = 0; i < 256; i++)
		for (int t = 1; t < 8; t++)
			crc32_tab[t][i] = (crc32_tab[t - 1][i] >> 8) ^
				crc32_tab[0][crc32_tab[t - 1][i] & 0xff];
}

uint32_t
mrc_crc32_update(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len > 0 && ((uintptr_t)p & 7) != 0) {
		crc = (crc >> 8) ^ crc32_tab[0][(crc ^ *p++) & 0xff];
		len--;
	}
	while (len >= 8) {
		uint32_t lo, hi;

		/* Byte order matters: the CRC is reflected, so fold little-endian words. */
		memcpy(&lo, p, 4);
		memcpy(&hi, p + 4, 4);
		lo = rte_cpu_to_le_32(lo) ^ crc;
		hi = rte_cpu_to_le_32(hi);
		crc = crc32_tab[7][lo & 0xff] ^ crc32_tab[6][(lo >> 8) & 0xff] ^
			crc32_tab[5][(lo >> 16) & 0xff] ^ crc32_tab[4][lo >> 24] ^
			crc32_tab[3][hi & 0xff] ^ crc32_tab[2][(hi >> 8) & 0xff] ^
			crc32_tab[1][(hi >> 16) & 0xff] ^ crc32_tab[0][hi >> 24];
		p += 8;
		len -= 8;
	}
	while (len-- > 0)
		crc = (crc >> 8) ^ crc32_tab[0][(crc ^ *p++) & 0xff];
	return crc;
}

uint32_t
mrc_crc32_mbuf(uint32_t crc, const struct rte_mbuf *m, uint32_t off, uint32_t len)
{
	/* Skip whole segments before `off`. */
	while (m != NULL && off >= m->data_len) {
		off -= m->data_len;
		m = m->next;
	}
	while (m != NULL && len > 0) {
		uint32_t n = RTE_MIN((uint32_t)m->data_len - off, len);

		crc = mrc_crc32_update(crc, rte_pktmbuf_mtod_offset(m, const uint8_t *, off), n);
		len -= n;
		off = 0;
		m = m->next;
	}
	return crc;
}

/* The ICRC-covered headers whose variant fields are masked: IPv6, UDP, BTH. */
#define ICRC_MASKED_LEN (sizeof(struct rte_ipv6_hdr) + sizeof(struct rte_udp_hdr) + \
			 sizeof(struct mrc_bth))

uint32_t
mrc_icrc_calc(const struct rte_mbuf *m, uint32_t ip_off, uint32_t len)
{
	uint8_t hdr[ICRC_MASKED_LEN];
	const uint8_t *src;
	uint32_t crc = MRC_ICRC_SEED;
	uint32_t n = RTE_MIN(len, (uint32_t)ICRC_MASKED_LEN);

	src = rte_pktmbuf_read(m, ip_off, n, hdr);
	if (src == NULL)
		return 0; /* callers have already bounded ip_off + len by pkt_len */
	if (src != hdr)
		memcpy(hdr, src, n);
	if (n == ICRC_MASKED_LEN) {
		/* version(4) stays; traffic class(8) + flow label(20) become ones. */
		hdr[0] |= 0x0f;
		hdr[1] = hdr[2] = hdr[3] = 0xff;
		hdr[7] = 0xff; /* hop limit */
		hdr[sizeof(struct rte_ipv6_hdr) + 6] = 0xff; /* UDP checksum */
		hdr[sizeof(struct rte_ipv6_hdr) + 7] = 0xff;
		hdr[sizeof(struct rte_ipv6_hdr) + sizeof(struct rte_udp_hdr) + 4] = 0xff;
	}
	crc = mrc_crc32_update(crc, hdr, n);
	if (len > n)
		crc = mrc_crc32_mbuf(crc, m, ip_off + n, len - n);
	return ~crc;
}
