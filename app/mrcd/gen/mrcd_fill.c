/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: the worker lcores (a post fills its message, a receive checks
 * it); the main lcore once, at load, to choose the path. See mrcd_gen.h.
 *
 * Every message of a verified profile is written and read here in full:
 * 256 KiB twice per message in the incast benchmark, on the one worker that
 * also runs the emulated fabric and every host. The 64-bit multiply of each
 * word is the cost; while it runs no host sends or answers, the round trips
 * the congestion control measures stretch by as much, and the incast's tail
 * grows with it. So the words are computed as wide as the CPU and the EAL
 * allow (test/bench/bench_fill.c; 256 KiB fill / check on the 2-vCPU Xeon
 * of doc/performance.md):
 *   - AVX-512 (AVX512F + AVX512DQ's 64-bit multiply): eight words at once,
 *     5.6 / 6.7 us;
 *   - AVX2 (AMD Zen 2/3, Intel parts without AVX-512): four words at once,
 *     the 64-bit multiply made of three 32 x 32 -> 64 ones, 10.4 / 12.4 us;
 *   - any CPU: four independent words a turn, 13.5 / 15.7 us.
 * All three write the same bytes, so processes on different CPUs check
 * each other's messages.
 */
#include <stdbool.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cpuflags.h>
#include <rte_vect.h>
#ifdef RTE_ARCH_X86
#include <immintrin.h>
#endif

#include "mrcd_gen.h"

#ifdef RTE_ARCH_X86
static bool avx512_cpu; /* the CPU and OS run AVX512F and AVX512DQ */
static bool avx2_cpu;	/* the CPU and OS run AVX2 */

RTE_INIT(mrcd_fill_init)
{
	/*
	 * CPUID alone may show AVX-512 or AVX2 whose register state the OS did
	 * not enable; the compiler's check asks XCR0 too (as lib/wire/mrc_icrc.c).
	 */
	__builtin_cpu_init();
	avx512_cpu = rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX512F) > 0 &&
		     rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX512DQ) > 0 &&
		     __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq");
	avx2_cpu = rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX2) > 0 && __builtin_cpu_supports("avx2");
}

/* mrcd_gen_word_mix() on eight words. */
__attribute__((target("avx512f,avx512dq"))) static inline __m512i
mix8(__m512i x)
{
	const __m512i k = _mm512_set1_epi64((long long)0x9e3779b97f4a7c15ull);

	x = _mm512_xor_si512(x, _mm512_srli_epi64(x, 31));
	x = _mm512_mullo_epi64(x, k);
	return _mm512_xor_si512(x, _mm512_srli_epi64(x, 29));
}

/* Words 0 .. n8 x 8 - 1 of the message whose base is `base`. */
__attribute__((target("avx512f,avx512dq"))) static void
fill_avx512(uint8_t *buf, uint32_t n8, uint64_t base)
{
	const __m512i b = _mm512_set1_epi64((long long)base), step = _mm512_set1_epi64(8);
	__m512i j = _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7);

	for (uint32_t i = 0; i < n8; i++) {
		_mm512_storeu_si512(buf + (size_t)i * 64, mix8(_mm512_xor_si512(b, j)));
		j = _mm512_add_epi64(j, step);
	}
}

/* Whether those words are all there; differences are gathered, not branched on. */
__attribute__((target("avx512f,avx512dq"))) static bool
check_avx512(const uint8_t *buf, uint32_t n8, uint64_t base)
{
	const __m512i b = _mm512_set1_epi64((long long)base), step = _mm512_set1_epi64(8);
	__m512i j = _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7), diff = _mm512_setzero_si512();

	for (uint32_t i = 0; i < n8; i++) {
		const __m512i got = _mm512_loadu_si512(buf + (size_t)i * 64);

		diff = _mm512_or_si512(diff, _mm512_xor_si512(got, mix8(_mm512_xor_si512(b, j))));
		j = _mm512_add_epi64(j, step);
	}
	return _mm512_test_epi64_mask(diff, diff) == 0;
}

/*
 * mrcd_gen_word_mix() on four words. AVX2 multiplies 32 x 32 -> 64 bits
 * only; of x * k mod 2^64 only xlo * klo and the low halves of the cross
 * products xlo * khi + xhi * klo (shifted up 32) remain, so three of those
 * multiplies make the 64-bit one exactly.
 */
__attribute__((target("avx2"))) static inline __m256i
mix4(__m256i x)
{
	const __m256i klo = _mm256_set1_epi64x(0x7f4a7c15), khi = _mm256_set1_epi64x(0x9e3779b9);
	__m256i lo, cross;

	x = _mm256_xor_si256(x, _mm256_srli_epi64(x, 31));
	lo = _mm256_mul_epu32(x, klo);
	cross = _mm256_add_epi64(
		_mm256_mul_epu32(_mm256_srli_epi64(x, 32), klo), _mm256_mul_epu32(x, khi));
	x = _mm256_add_epi64(lo, _mm256_slli_epi64(cross, 32));
	return _mm256_xor_si256(x, _mm256_srli_epi64(x, 29));
}

/* Words 0 .. n4 x 4 - 1 of the message whose base is `base`. */
__attribute__((target("avx2"))) static void
fill_avx2(uint8_t *buf, uint32_t n4, uint64_t base)
{
	const __m256i b = _mm256_set1_epi64x((long long)base), step = _mm256_set1_epi64x(4);
	__m256i j = _mm256_setr_epi64x(0, 1, 2, 3);

	for (uint32_t i = 0; i < n4; i++) {
		_mm256_storeu_si256(
			(__m256i *)(void *)(buf + (size_t)i * 32), mix4(_mm256_xor_si256(b, j)));
		j = _mm256_add_epi64(j, step);
	}
}

__attribute__((target("avx2"))) static bool
check_avx2(const uint8_t *buf, uint32_t n4, uint64_t base)
{
	const __m256i b = _mm256_set1_epi64x((long long)base), step = _mm256_set1_epi64x(4);
	__m256i j = _mm256_setr_epi64x(0, 1, 2, 3), diff = _mm256_setzero_si256();

	for (uint32_t i = 0; i < n4; i++) {
		const __m256i got =
			_mm256_loadu_si256((const __m256i *)(const void *)(buf + (size_t)i * 32));

		diff = _mm256_or_si256(diff, _mm256_xor_si256(got, mix4(_mm256_xor_si256(b, j))));
		j = _mm256_add_epi64(j, step);
	}
	return _mm256_testz_si256(diff, diff) != 0;
}
#else
static const bool avx512_cpu, avx2_cpu;
#endif

static int path_choice = MRCD_FILL_AUTO; /* set for tests */

int
mrcd_gen_fill_set_path(int path)
{
	switch (path) {
	case MRCD_FILL_AUTO:
	case MRCD_FILL_SCALAR:
		break;
	case MRCD_FILL_AVX512:
		if (!avx512_cpu)
			return -1;
		break;
	case MRCD_FILL_AVX2:
		if (!avx2_cpu)
			return -1;
		break;
	default:
		return -1;
	}
	path_choice = path;
	return 0;
}

/*
 * As lib/wire/mrc_icrc.c: vectors only as wide as the EAL allows (mrcd
 * asks; --force-max-simd-bitwidth=256 leaves AVX2, 64 the scalar loop).
 */
static inline int
path(void)
{
	const uint16_t simd = rte_vect_get_max_simd_bitwidth();

	if (path_choice != MRCD_FILL_AUTO)
		return path_choice;
	if (avx512_cpu && simd >= RTE_VECT_SIMD_512)
		return MRCD_FILL_AVX512;
	if (avx2_cpu && simd >= RTE_VECT_SIMD_256)
		return MRCD_FILL_AVX2;
	return MRCD_FILL_SCALAR;
}

/*
 * The bytes from j on that no vector path wrote: whole words, four to a
 * turn (fewer loop instructions a word; the four multiplies are
 * independent), then single words, then a cut one.
 */
static void
fill_scalar(uint8_t *buf, uint32_t j, uint32_t len, uint64_t base)
{
	uint64_t i = j / 8;
	const uint64_t n = len / 8;

	for (; i + 4 <= n; i += 4) {
		const uint64_t w0 = mrcd_gen_word_mix(base ^ i),
			       w1 = mrcd_gen_word_mix(base ^ (i + 1)),
			       w2 = mrcd_gen_word_mix(base ^ (i + 2)),
			       w3 = mrcd_gen_word_mix(base ^ (i + 3));

		/* word by word: one 32-byte copy of an array went through the stack */
		memcpy(buf + i * 8, &w0, 8);
		memcpy(buf + i * 8 + 8, &w1, 8);
		memcpy(buf + i * 8 + 16, &w2, 8);
		memcpy(buf + i * 8 + 24, &w3, 8);
	}
	for (; i < n; i++) {
		const uint64_t w = mrcd_gen_word_mix(base ^ i);

		memcpy(buf + i * 8, &w, 8);
	}
	if (i * 8 < len) {
		const uint64_t w = mrcd_gen_word_mix(base ^ i);

		memcpy(buf + i * 8, &w, len - i * 8);
	}
}

/* Differences are gathered four words a turn, as the vector paths do. */
static bool
check_scalar(const uint8_t *buf, uint32_t j, uint32_t len, uint64_t base)
{
	uint64_t i = j / 8, diff = 0;
	const uint64_t n = len / 8;

	for (; i + 4 <= n; i += 4) {
		uint64_t g0, g1, g2, g3;

		memcpy(&g0, buf + i * 8, 8);
		memcpy(&g1, buf + i * 8 + 8, 8);
		memcpy(&g2, buf + i * 8 + 16, 8);
		memcpy(&g3, buf + i * 8 + 24, 8);
		diff |= (g0 ^ mrcd_gen_word_mix(base ^ i)) |
			(g1 ^ mrcd_gen_word_mix(base ^ (i + 1))) |
			(g2 ^ mrcd_gen_word_mix(base ^ (i + 2))) |
			(g3 ^ mrcd_gen_word_mix(base ^ (i + 3)));
	}
	for (; i < n; i++) {
		uint64_t got;

		memcpy(&got, buf + i * 8, 8);
		diff |= got ^ mrcd_gen_word_mix(base ^ i);
	}
	if (i * 8 < len) {
		const uint64_t w = mrcd_gen_word_mix(base ^ i);

		return diff == 0 && memcmp(buf + i * 8, &w, len - i * 8) == 0;
	}
	return diff == 0;
}

void
mrcd_gen_fill(uint8_t *buf, uint32_t len, uint32_t flow, uint64_t seq)
{
	const uint64_t base = mrcd_gen_word_base(flow, seq);
	uint32_t j = 0;

#ifdef RTE_ARCH_X86
	switch (path()) {
	case MRCD_FILL_AVX512:
		fill_avx512(buf, len / 64, base);
		j = len / 64 * 64;
		break;
	case MRCD_FILL_AVX2:
		fill_avx2(buf, len / 32, base);
		j = len / 32 * 32;
		break;
	default:
		break;
	}
#endif
	fill_scalar(buf, j, len, base);
}

bool
mrcd_gen_check(const uint8_t *buf, uint32_t len, uint32_t flow, uint64_t seq)
{
	const uint64_t base = mrcd_gen_word_base(flow, seq);
	uint32_t j = 0;

#ifdef RTE_ARCH_X86
	switch (path()) {
	case MRCD_FILL_AVX512:
		if (!check_avx512(buf, len / 64, base))
			return false;
		j = len / 64 * 64;
		break;
	case MRCD_FILL_AVX2:
		if (!check_avx2(buf, len / 32, base))
			return false;
		j = len / 32 * 32;
		break;
	default:
		break;
	}
#endif
	return check_scalar(buf, j, len, base);
}
