/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cpuflags.h>
#include <rte_ip.h>
#include <rte_udp.h>
#ifdef RTE_ARCH_X86
#include <immintrin.h>
#endif

#include "mrc_icrc.h"
#include "mrc_wire.h"

/*
 * Portable path, slice-by-8: eight 256-entry tables let the loop fold eight input bytes per
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

static uint32_t
crc32_table(uint32_t crc, const void *buf, size_t len)
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

#ifdef RTE_ARCH_X86
/*
 * Carry-less multiplication folding (the method of Intel's "Fast CRC
 * Computation for Generic Polynomials Using PCLMULQDQ"), about 10x the
 * table loop on large buffers. The CRC is linear, so a 16-byte block A
 * followed by more data can be replaced by any 16 bytes congruent to
 * A * x^128 (mod P) XORed into the next block: with A split in 64-bit
 * halves that is lo(A) * (x^160 mod P) + hi(A) * (x^96 mod P), two
 * PCLMULQDQs. Four lanes folded 512 bits at a time hide the multiplier
 * latency. In the bit-reflected domain each constant is reflected and
 * shifted left by one. Instead of a Barrett reduction, the last folded
 * block (a 16-byte message with the same CRC as everything before it)
 * and the tail go through the table loop.
 */
static uint64_t k_fold512_lo, k_fold512_hi, k_fold128_lo, k_fold128_hi;

/* x^n mod P in the reflected domain, as a 33-bit multiplier. */
static uint64_t
reflected_xpow_mod(unsigned int n)
{
	uint32_t r = 1; /* normal (unreflected) representation of x^0 */

	for (unsigned int i = 0; i < n; i++)
		r = (r << 1) ^ ((r & 0x80000000u) ? 0x04C11DB7u : 0);
	uint32_t rev = 0;

	for (int b = 0; b < 32; b++)
		rev |= ((r >> b) & 1u) << (31 - b);
	return (uint64_t)rev << 1;
}

__attribute__((target("pclmul,sse4.1"))) static inline __m128i
fold(__m128i x, __m128i k)
{
	return _mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00), _mm_clmulepi64_si128(x, k, 0x11));
}

__attribute__((target("pclmul,sse4.1"))) static uint32_t
crc32_clmul(uint32_t crc, const uint8_t *p, size_t len)
{
	const __m128i k512 = _mm_set_epi64x((long long)k_fold512_hi, (long long)k_fold512_lo);
	const __m128i k128 = _mm_set_epi64x((long long)k_fold128_hi, (long long)k_fold128_lo);
	__m128i x0, x1, x2, x3;
	uint8_t last[16];

	/* len >= 64 here. Linearity lets the running CRC ride in the first block. */
	x0 = _mm_xor_si128(_mm_loadu_si128((const __m128i *)p), _mm_cvtsi32_si128((int)crc));
	x1 = _mm_loadu_si128((const __m128i *)(p + 16));
	x2 = _mm_loadu_si128((const __m128i *)(p + 32));
	x3 = _mm_loadu_si128((const __m128i *)(p + 48));
	p += 64;
	len -= 64;
	while (len >= 64) {
		x0 = _mm_xor_si128(fold(x0, k512), _mm_loadu_si128((const __m128i *)p));
		x1 = _mm_xor_si128(fold(x1, k512), _mm_loadu_si128((const __m128i *)(p + 16)));
		x2 = _mm_xor_si128(fold(x2, k512), _mm_loadu_si128((const __m128i *)(p + 32)));
		x3 = _mm_xor_si128(fold(x3, k512), _mm_loadu_si128((const __m128i *)(p + 48)));
		p += 64;
		len -= 64;
	}
	x0 = _mm_xor_si128(fold(x0, k128), x1);
	x0 = _mm_xor_si128(fold(x0, k128), x2);
	x0 = _mm_xor_si128(fold(x0, k128), x3);
	while (len >= 16) {
		x0 = _mm_xor_si128(fold(x0, k128), _mm_loadu_si128((const __m128i *)p));
		p += 16;
		len -= 16;
	}
	_mm_storeu_si128((__m128i *)last, x0);
	return crc32_table(crc32_table(0, last, sizeof(last)), p, len);
}

static bool use_clmul;

RTE_INIT(mrc_crc32_clmul_init)
{
	k_fold512_lo = reflected_xpow_mod(512 + 32);
	k_fold512_hi = reflected_xpow_mod(512 - 32);
	k_fold128_lo = reflected_xpow_mod(128 + 32);
	k_fold128_hi = reflected_xpow_mod(128 - 32);
	use_clmul = rte_cpu_get_flag_enabled(RTE_CPUFLAG_PCLMULQDQ) > 0 &&
		rte_cpu_get_flag_enabled(RTE_CPUFLAG_SSE4_1) > 0;
}
#else
static const bool use_clmul;
#endif

/* Below this the table loop wins: folding has a fixed start-up cost. */
#define CLMUL_MIN_LEN 64

static enum mrc_crc32_impl crc_impl = MRC_CRC32_AUTO;

int
mrc_crc32_set_impl(enum mrc_crc32_impl impl)
{
	if (impl == MRC_CRC32_CLMUL && !use_clmul)
		return -ENOTSUP;
	crc_impl = impl;
	return 0;
}

const char *
mrc_crc32_impl_name(void)
{
	return crc_impl != MRC_CRC32_TABLE && use_clmul ? "pclmulqdq" : "slice-by-8";
}

uint32_t
mrc_crc32_update(uint32_t crc, const void *buf, size_t len)
{
#ifdef RTE_ARCH_X86
	if (len >= CLMUL_MIN_LEN && use_clmul && crc_impl != MRC_CRC32_TABLE)
		return crc32_clmul(crc, buf, len);
#endif
	return crc32_table(crc, buf, len);
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
