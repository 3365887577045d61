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
#include <rte_vect.h>
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
 * shifted left by one.
 *
 * The last 128-bit block is reduced in registers rather than through the
 * table loop: every ICRC is at least two such calls (headers, payload), and
 * at 256 B payloads the table loop's share of them was a third of a
 * worker's time. 128 -> 96 bits by lo * (x^96 mod P), 96 -> 64 by the low
 * word * (x^64 mod P), then Barrett: q = floor(R / P) from mu = x^64 div P,
 * and R - q * P is the CRC. Only the tail under 16 bytes takes the table.
 */
static uint64_t k_fold512_lo, k_fold512_hi, k_fold128_lo, k_fold128_hi, k_fold64;
static uint64_t k_barrett_mu, k_barrett_poly;
static uint64_t k_fold2048_lo, k_fold2048_hi;
/* Advance a block past 16 * 2^i bytes: for a second run folded on its own (fold_piece). */
#define ADV_MAX 20
static uint64_t k_adv_lo[ADV_MAX], k_adv_hi[ADV_MAX];

#define CRC32_POLY_NORMAL_33 0x104C11DB7ull /* x^32 + ... + 1, 33 bits */

static uint64_t
reflect_bits(uint64_t v, unsigned int n)
{
	uint64_t r = 0;

	for (unsigned int b = 0; b < n; b++)
		r |= ((v >> b) & 1u) << (n - 1 - b);
	return r;
}

/* a * b mod P, both polynomials of degree < 32 in the normal (unreflected) representation. */
static uint32_t
gf2_mulmod(uint32_t a, uint32_t b)
{
	uint32_t r = 0;

	for (int i = 31; i >= 0; i--) {
		r = (r << 1) ^ ((r & 0x80000000u) ? 0x04C11DB7u : 0);
		if ((b >> i) & 1u)
			r ^= a;
	}
	return r;
}

/* x^n mod P in the reflected domain, as a 33-bit multiplier (square and multiply). */
static uint64_t
reflected_xpow_mod(unsigned int n)
{
	uint32_t r = 1, sq = 2; /* x^0 and x^1, normal representation */

	for (; n > 0; n >>= 1) {
		if (n & 1u)
			r = gf2_mulmod(r, sq);
		sq = gf2_mulmod(sq, sq);
	}
	return reflect_bits(r, 32) << 1;
}

/* floor(x^64 / P) by long division over GF(2): a polynomial of degree 32. */
static uint64_t
x64_div_poly(void)
{
	unsigned __int128 rem = (unsigned __int128)1 << 64;
	uint64_t q = 0;

	for (int d = 64; d >= 32; d--) {
		if ((uint64_t)(rem >> d) & 1u) {
			rem ^= (unsigned __int128)CRC32_POLY_NORMAL_33 << (d - 32);
			q |= 1ull << (d - 32);
		}
	}
	return q;
}

__attribute__((target("pclmul,sse4.1"))) static inline __m128i
fold(__m128i x, __m128i k)
{
	return _mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00), _mm_clmulepi64_si128(x, k, 0x11));
}

/* The CRC register (no inversion) of the 16 bytes in x from a zero start. */
__attribute__((target("pclmul,sse4.1"))) static inline uint32_t
reduce128(__m128i x)
{
	const __m128i low32 = _mm_setr_epi32(-1, 0, -1, 0);
	const __m128i k96 = _mm_set_epi64x(0, (long long)k_fold128_hi);
	const __m128i k64 = _mm_set_epi64x(0, (long long)k_fold64);
	const __m128i bar = _mm_set_epi64x((long long)k_barrett_mu, (long long)k_barrett_poly);
	__m128i t;

	t = _mm_clmulepi64_si128(x, k96, 0x00);
	x = _mm_xor_si128(_mm_srli_si128(x, 8), t);
	t = _mm_srli_si128(x, 4);
	x = _mm_xor_si128(_mm_clmulepi64_si128(_mm_and_si128(x, low32), k64, 0x00), t);
	t = _mm_clmulepi64_si128(_mm_and_si128(x, low32), bar, 0x10);
	t = _mm_clmulepi64_si128(_mm_and_si128(t, low32), bar, 0x00);
	return (uint32_t)_mm_extract_epi32(_mm_xor_si128(x, t), 1);
}

/*
 * With VPCLMULQDQ (AVX-512), the same folding runs on four 128-bit lanes per
 * instruction: four zmm accumulators take 256 bytes a round, each lane
 * advanced by 2048 bits, then they fold into one 512-bit value and its four
 * lanes into one 128-bit block for the path above. Worth it from a few
 * hundred bytes: a 4 KiB payload is checked about 3x faster than with four
 * xmm lanes, and the ICRC is most of the per-byte cost of the datapath.
 */
#define VCLMUL_MIN_LEN 256

static bool use_vclmul;

__attribute__((target("avx512f,avx512vl,vpclmulqdq"))) static inline __m512i
fold_zmm(__m512i x, __m512i k)
{
	return _mm512_xor_si512(
		_mm512_clmulepi64_epi128(x, k, 0x00), _mm512_clmulepi64_epi128(x, k, 0x11));
}

/* Fold len >= 256 bytes at p, carry XORed into the first block, to one block; *done = bytes used.
 */
__attribute__((target("avx512f,avx512vl,vpclmulqdq,pclmul,sse4.1"))) static __m128i
fold_bulk_zmm(__m128i carry, const uint8_t *p, size_t len, size_t *done)
{
	const __m512i k2048 = _mm512_broadcast_i32x4(
		_mm_set_epi64x((long long)k_fold2048_hi, (long long)k_fold2048_lo));
	const __m512i k512 = _mm512_broadcast_i32x4(
		_mm_set_epi64x((long long)k_fold512_hi, (long long)k_fold512_lo));
	const __m128i k128 = _mm_set_epi64x((long long)k_fold128_hi, (long long)k_fold128_lo);
	const uint8_t *start = p;
	__m512i z0, z1, z2, z3;
	__m128i x;

	z0 = _mm512_xor_si512(_mm512_loadu_si512(p), _mm512_zextsi128_si512(carry));
	z1 = _mm512_loadu_si512(p + 64);
	z2 = _mm512_loadu_si512(p + 128);
	z3 = _mm512_loadu_si512(p + 192);
	p += 256;
	len -= 256;
	while (len >= 256) {
		z0 = _mm512_xor_si512(fold_zmm(z0, k2048), _mm512_loadu_si512(p));
		z1 = _mm512_xor_si512(fold_zmm(z1, k2048), _mm512_loadu_si512(p + 64));
		z2 = _mm512_xor_si512(fold_zmm(z2, k2048), _mm512_loadu_si512(p + 128));
		z3 = _mm512_xor_si512(fold_zmm(z3, k2048), _mm512_loadu_si512(p + 192));
		p += 256;
		len -= 256;
	}
	z0 = _mm512_xor_si512(fold_zmm(z0, k512), z1);
	z0 = _mm512_xor_si512(fold_zmm(z0, k512), z2);
	z0 = _mm512_xor_si512(fold_zmm(z0, k512), z3);
	while (len >= 64) {
		z0 = _mm512_xor_si512(fold_zmm(z0, k512), _mm512_loadu_si512(p));
		p += 64;
		len -= 64;
	}
	x = _mm512_extracti32x4_epi32(z0, 0);
	x = _mm_xor_si128(fold(x, k128), _mm512_extracti32x4_epi32(z0, 1));
	x = _mm_xor_si128(fold(x, k128), _mm512_extracti32x4_epi32(z0, 2));
	x = _mm_xor_si128(fold(x, k128), _mm512_extracti32x4_epi32(z0, 3));
	*done = (size_t)(p - start);
	return x;
}

/*
 * Fold the whole blocks at p (len a multiple of 16, at least 16) to one
 * block, `carry` XORed into the first: a running CRC register (linearity
 * lets it ride in the first bytes) or the blocks before, already advanced.
 */
__attribute__((target("pclmul,sse4.1"))) static __m128i
fold_blocks(__m128i carry, const uint8_t *p, size_t len, bool wide)
{
	const __m128i k512 = _mm_set_epi64x((long long)k_fold512_hi, (long long)k_fold512_lo);
	const __m128i k128 = _mm_set_epi64x((long long)k_fold128_hi, (long long)k_fold128_lo);
	__m128i x0;

	if (len >= VCLMUL_MIN_LEN && wide) {
		size_t done;

		x0 = fold_bulk_zmm(carry, p, len, &done);
		p += done;
		len -= done;
	} else {
		x0 = _mm_xor_si128(_mm_loadu_si128((const __m128i *)p), carry);
		p += 16;
		len -= 16;
	}
	if (len >= 48) {
		__m128i x1 = _mm_loadu_si128((const __m128i *)p);
		__m128i x2 = _mm_loadu_si128((const __m128i *)(p + 16));
		__m128i x3 = _mm_loadu_si128((const __m128i *)(p + 32));

		p += 48;
		len -= 48;
		while (len >= 64) {
			x0 = _mm_xor_si128(fold(x0, k512), _mm_loadu_si128((const __m128i *)p));
			x1 = _mm_xor_si128(
				fold(x1, k512), _mm_loadu_si128((const __m128i *)(p + 16)));
			x2 = _mm_xor_si128(
				fold(x2, k512), _mm_loadu_si128((const __m128i *)(p + 32)));
			x3 = _mm_xor_si128(
				fold(x3, k512), _mm_loadu_si128((const __m128i *)(p + 48)));
			p += 64;
			len -= 64;
		}
		x0 = _mm_xor_si128(fold(x0, k128), x1);
		x0 = _mm_xor_si128(fold(x0, k128), x2);
		x0 = _mm_xor_si128(fold(x0, k128), x3);
	}
	while (len >= 16) {
		x0 = _mm_xor_si128(fold(x0, k128), _mm_loadu_si128((const __m128i *)p));
		p += 16;
		len -= 16;
	}
	return x0;
}

/* len >= 16. */
__attribute__((target("pclmul,sse4.1"))) static uint32_t
crc32_clmul(uint32_t crc, const uint8_t *p, size_t len, bool wide)
{
	const size_t whole = len & ~(size_t)15;

	return crc32_table(reduce128(fold_blocks(_mm_cvtsi32_si128((int)crc), p, whole, wide)),
		p + whole, len - whole);
}

static bool use_clmul;

RTE_INIT(mrc_crc32_clmul_init)
{
	k_fold512_lo = reflected_xpow_mod(512 + 32);
	k_fold512_hi = reflected_xpow_mod(512 - 32);
	k_fold128_lo = reflected_xpow_mod(128 + 32);
	k_fold128_hi = reflected_xpow_mod(128 - 32);
	k_fold64 = reflected_xpow_mod(64);
	k_fold2048_lo = reflected_xpow_mod(2048 + 32);
	k_fold2048_hi = reflected_xpow_mod(2048 - 32);
	for (unsigned int i = 0; i < ADV_MAX; i++) {
		k_adv_lo[i] = reflected_xpow_mod((128u << i) + 32);
		k_adv_hi[i] = reflected_xpow_mod((128u << i) - 32);
	}
	k_barrett_mu = reflect_bits(x64_div_poly(), 33);
	k_barrett_poly = reflect_bits(CRC32_POLY_NORMAL_33, 33);
	use_clmul = rte_cpu_get_flag_enabled(RTE_CPUFLAG_PCLMULQDQ) > 0 &&
		    rte_cpu_get_flag_enabled(RTE_CPUFLAG_SSE4_1) > 0;
	/*
	 * rte_cpu_get_flag_enabled() reads CPUID only; a hypervisor or kernel
	 * may show AVX-512 there yet not enable its register state (XCR0), and
	 * the first zmm instruction would then fault. The compiler's check
	 * asks XCR0 too.
	 */
	__builtin_cpu_init();
	use_vclmul = use_clmul && rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX512F) > 0 &&
		     rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX512VL) > 0 &&
		     rte_cpu_get_flag_enabled(RTE_CPUFLAG_VPCLMULQDQ) > 0 &&
		     __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
		     __builtin_cpu_supports("vpclmulqdq");
}
#else
static const bool use_clmul, use_vclmul;
#endif

/* Below one block there is nothing to fold. */
#define CLMUL_MIN_LEN 16

static enum mrc_crc32_impl crc_impl = MRC_CRC32_AUTO;

int
mrc_crc32_set_impl(enum mrc_crc32_impl impl)
{
	if ((impl == MRC_CRC32_CLMUL && !use_clmul) || (impl == MRC_CRC32_VCLMUL && !use_vclmul))
		return -ENOTSUP;
	crc_impl = impl;
	return 0;
}

/*
 * VCLMUL takes the 512-bit path where the CPU and OS have it; AUTO only when
 * the EAL also allows 512-bit vectors (--force-max-simd-bitwidth=512, which
 * mrcd passes unless told otherwise): DPDK makes AVX-512 an explicit choice,
 * since on some CPUs it lowers the clock of the whole core.
 */
static inline bool
wide_ok(void)
{
	if (!use_vclmul || crc_impl == MRC_CRC32_CLMUL)
		return false;
	return crc_impl == MRC_CRC32_VCLMUL ||
	       rte_vect_get_max_simd_bitwidth() >= RTE_VECT_SIMD_512;
}

const char *
mrc_crc32_impl_name(void)
{
	if (crc_impl == MRC_CRC32_TABLE || !use_clmul)
		return "slice-by-8";
	return wide_ok() ? "vpclmulqdq" : "pclmulqdq";
}

uint32_t
mrc_crc32_update(uint32_t crc, const void *buf, size_t len)
{
#ifdef RTE_ARCH_X86
	if (len >= CLMUL_MIN_LEN && use_clmul && crc_impl != MRC_CRC32_TABLE)
		return crc32_clmul(crc, buf, len, wide_ok());
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
#define ICRC_MASKED_LEN \
	(sizeof(struct rte_ipv6_hdr) + sizeof(struct rte_udp_hdr) + sizeof(struct mrc_bth))
/*
 * Without carry-less multiply, or when a segment cut falls inside the masked
 * headers, they are masked in a copy instead: how much of the covered part
 * is copied: the masked headers and,
 * when the segment has them, the extension headers after them (and payload
 * up to this size), so that the CRC runs over one buffer long enough to fold
 * rather than a 60-byte piece and a short one through the table loop.
 */
#define ICRC_COPY_LEN 128

#ifdef RTE_ARCH_X86
/*
 * One fold across the pieces of an ICRC: the running value stays a 128-bit
 * block from one piece to the next and is reduced to 32 bits once, at the
 * end, instead of once per piece with a table loop over each piece's last
 * bytes. The reduction is a chain of dependent multiplies, so at small
 * packets it was most of the ICRC's time. A piece whose length is not a
 * whole number of blocks (a segment cut mid-block) ends the fold there: its
 * tail takes the table and the next piece starts from that CRC.
 */
struct fold_run {
	__m128i x;    /* the blocks so far, when `have` */
	uint32_t crc; /* the CRC register, when not */
	bool have;
	bool wide;
};

__attribute__((target("pclmul,sse4.1"))) static void
fold_piece(struct fold_run *r, const uint8_t *p, size_t len)
{
	const __m128i k128 = _mm_set_epi64x((long long)k_fold128_hi, (long long)k_fold128_lo);
	size_t whole = len & ~(size_t)15;

	if (whole > 0 && r->have && (whole >> 4) < (1u << ADV_MAX)) {
		/*
		 * The piece folds on its own, from zero, while the blocks so far
		 * are advanced past it (a fold per set bit of its block count: one
		 * for a power-of-two MTU), so that the two chains of dependent
		 * multiplies overlap instead of following each other.
		 */
		__m128i x = r->x, y = fold_blocks(_mm_setzero_si128(), p, whole, r->wide);

		for (size_t b = whole >> 4, i = 0; b != 0; b >>= 1, i++)
			if (b & 1u)
				x = fold(x, _mm_set_epi64x((long long)k_adv_hi[i],
						    (long long)k_adv_lo[i]));
		r->x = _mm_xor_si128(x, y);
	} else if (whole > 0) {
		/* The blocks so far, advanced past 128 bits, ride in the next block. */
		__m128i carry = r->have ? fold(r->x, k128) : _mm_cvtsi32_si128((int)r->crc);

		r->x = fold_blocks(carry, p, whole, r->wide);
		r->have = true;
	}
	if (len > whole) {
		if (r->have)
			r->crc = reduce128(r->x);
		r->crc = crc32_table(r->crc, p + whole, len - whole);
		r->have = false;
	}
}

__attribute__((target("pclmul,sse4.1"))) static uint32_t
fold_end(const struct fold_run *r)
{
	return r->have ? reduce128(r->x) : r->crc;
}

/*
 * Ones ORed into the variant fields of the masked headers, by byte offset
 * from the IPv6 header: traffic class and flow label (the version nibble
 * stays), hop limit, UDP checksum, BTH resv8a.
 */
#define UDP_OFF sizeof(struct rte_ipv6_hdr)
#define BTH_OFF (UDP_OFF + sizeof(struct rte_udp_hdr))
static const uint8_t icrc_or[ICRC_MASKED_LEN + 16] = {[0] = 0x0f,
	[1] = 0xff,
	[2] = 0xff,
	[3] = 0xff,
	[7] = 0xff,
	[UDP_OFF + 6] = 0xff,
	[UDP_OFF + 7] = 0xff,
	[BTH_OFF + 4] = 0xff};

/*
 * The seed XORed into the first four bytes (below), laid out like icrc_or:
 * a block that starts in them takes its share.
 */
static const uint8_t icrc_seed[ICRC_MASKED_LEN + 16] = {(uint8_t)MRC_ICRC_SEED,
	(uint8_t)(MRC_ICRC_SEED >> 8), (uint8_t)(MRC_ICRC_SEED >> 16),
	(uint8_t)(MRC_ICRC_SEED >> 24)};

/* PSHUFB controls: from [16 - k], bytes move up by k and zeros come in below. */
static const uint8_t shift_up[32] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
	0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};

/*
 * The ICRC when the first segment holds all the masked headers (n >= 60 of
 * its bytes are covered): no copy. The masks are ORed into the blocks in
 * registers, and the first segment's bytes are made whole blocks by zeros
 * in front (a CRC register of zero stays zero over zero bytes, and starting
 * from the seed is starting from zero with the seed XORed into the first
 * four bytes, little-endian since the CRC is reflected), so that a header
 * segment and the payload after it fold as one run, reduced once. A copy
 * into a buffer cost a rep movs start-up and store-forwarding stalls (the
 * masked bytes written one at a time, then read 16 at a time), about half
 * of a small packet's ICRC.
 */
__attribute__((target("pclmul,sse4.1"))) static uint32_t
icrc_fold(const struct rte_mbuf *seg, const uint8_t *h, uint32_t n, uint32_t len, bool wide)
{
	const __m128i k128 = _mm_set_epi64x((long long)k_fold128_hi, (long long)k_fold128_lo);
	const uint32_t pad = -n & 15, blocks = (n + pad) / 16;
	struct fold_run r = {.have = true, .wide = wide};
	__m128i x;
	uint32_t k;

	x = _mm_or_si128(
		_mm_loadu_si128((const __m128i *)h), _mm_loadu_si128((const __m128i *)icrc_or));
	x = _mm_xor_si128(x, _mm_loadu_si128((const __m128i *)icrc_seed));
	x = _mm_shuffle_epi8(x, _mm_loadu_si128((const __m128i *)(shift_up + 16 - pad)));
	/* Block k starts at h[16k - pad]; those starting past the masked bytes need no mask. */
	for (k = 1; k < blocks && 16 * k - pad < ICRC_MASKED_LEN; k++) {
		const uint32_t j = 16 * k - pad;

		__m128i b = _mm_or_si128(_mm_loadu_si128((const __m128i *)(h + j)),
			_mm_loadu_si128((const __m128i *)(icrc_or + j)));

		b = _mm_xor_si128(b, _mm_loadu_si128((const __m128i *)(icrc_seed + j)));
		x = _mm_xor_si128(fold(x, k128), b);
	}
	/* The rest of the first segment follows on the same chain (one piece, one run). */
	if (k < blocks)
		x = fold_blocks(fold(x, k128), h + 16 * k - pad, (blocks - k) * 16, wide);
	r.x = x;
	/* The rest of the covered bytes, segment by segment. */
	for (len -= n, seg = seg->next; seg != NULL && len > 0; seg = seg->next) {
		const uint32_t m = RTE_MIN((uint32_t)seg->data_len, len);

		fold_piece(&r, rte_pktmbuf_mtod(seg, const uint8_t *), m);
		len -= m;
	}
	return ~fold_end(&r);
}
#endif

uint32_t
mrc_icrc_calc(const struct rte_mbuf *m, uint32_t ip_off, uint32_t len)
{
	uint8_t hdr[ICRC_COPY_LEN];
	const struct rte_mbuf *seg = m;
	uint32_t off = ip_off;
	uint32_t crc = MRC_ICRC_SEED;
	uint32_t n;

	while (seg != NULL && off >= seg->data_len) {
		off -= seg->data_len;
		seg = seg->next;
	}
	if (seg == NULL)
		return 0; /* callers have already bounded ip_off + len by pkt_len */
#ifdef RTE_ARCH_X86
	n = RTE_MIN(len, (uint32_t)seg->data_len - off);
	if (n >= ICRC_MASKED_LEN && use_clmul && crc_impl != MRC_CRC32_TABLE)
		return icrc_fold(
			seg, rte_pktmbuf_mtod_offset(seg, const uint8_t *, off), n, len, wide_ok());
#endif
	n = RTE_MIN(len, (uint32_t)ICRC_COPY_LEN);
	if (seg->data_len - off >= RTE_MIN(n, (uint32_t)ICRC_MASKED_LEN)) {
		n = RTE_MIN(n, (uint32_t)seg->data_len - off);
		memcpy(hdr, rte_pktmbuf_mtod_offset(seg, const uint8_t *, off), n);
	} else {
		/* The masked headers span segments: gather just those. */
		const uint8_t *src;

		n = RTE_MIN(len, (uint32_t)ICRC_MASKED_LEN);
		src = rte_pktmbuf_read(m, ip_off, n, hdr);
		if (src == NULL)
			return 0;
		if (src != hdr)
			memcpy(hdr, src, n);
	}
	if (n >= ICRC_MASKED_LEN) {
		/* version(4) stays; traffic class(8) + flow label(20) become ones. */
		hdr[0] |= 0x0f;
		hdr[1] = hdr[2] = hdr[3] = 0xff;
		hdr[7] = 0xff;				     /* hop limit */
		hdr[sizeof(struct rte_ipv6_hdr) + 6] = 0xff; /* UDP checksum */
		hdr[sizeof(struct rte_ipv6_hdr) + 7] = 0xff;
		hdr[sizeof(struct rte_ipv6_hdr) + sizeof(struct rte_udp_hdr) + 4] = 0xff;
	}
	crc = mrc_crc32_update(crc, hdr, n);
	if (len > n)
		crc = mrc_crc32_mbuf(crc, m, ip_off + n, len - n);
	return ~crc;
}
