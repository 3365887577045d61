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
 * word is the cost, one word at a time about 0.6 ns (21 us a 256 KiB
 * message); while it runs no host sends or answers, the round trips the
 * congestion control measures stretch by as much, and the incast's tail
 * grew with it (verify off: 1.9% of messages past 1.08 x ideal, on: 2.7%).
 * AVX-512 (its 64-bit multiply is AVX512DQ) computes eight words at once.
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
static bool wide_cpu; /* the CPU and OS run AVX512F and AVX512DQ */

RTE_INIT(mrcd_fill_init)
{
	/*
	 * CPUID alone may show AVX-512 whose register state the OS did not
	 * enable; the compiler's check asks XCR0 too (as lib/wire/mrc_icrc.c).
	 */
	__builtin_cpu_init();
	wide_cpu = rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX512F) > 0 &&
		   rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX512DQ) > 0 &&
		   __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq");
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
fill_wide(uint8_t *buf, uint32_t n8, uint64_t base)
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
check_wide(const uint8_t *buf, uint32_t n8, uint64_t base)
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
#else
static const bool wide_cpu;
#endif

static int wide_choice = -1; /* -1: the CPU's and EAL's; 0 / 1: set for tests */

int
mrcd_gen_fill_set_wide(int wide)
{
	if (wide == 1 && !wide_cpu)
		return -1;
	wide_choice = wide;
	return 0;
}

/* As lib/wire/mrc_icrc.c: 512-bit vectors only where the EAL allows them (mrcd asks). */
static inline bool
wide(void)
{
	if (wide_choice >= 0)
		return wide_choice == 1;
	return wide_cpu && rte_vect_get_max_simd_bitwidth() >= RTE_VECT_SIMD_512;
}

void
mrcd_gen_fill(uint8_t *buf, uint32_t len, uint32_t flow, uint64_t seq)
{
	uint32_t j = 0;

#ifdef RTE_ARCH_X86
	if (wide()) {
		fill_wide(buf, len / 64, mrcd_gen_word_base(flow, seq));
		j = len / 64 * 64;
	}
#endif
	for (; j + 8 <= len; j += 8) {
		uint64_t w = mrcd_gen_word(flow, seq, j / 8);

		memcpy(buf + j, &w, 8);
	}
	if (j < len) {
		uint64_t w = mrcd_gen_word(flow, seq, j / 8);

		memcpy(buf + j, &w, len - j);
	}
}

bool
mrcd_gen_check(const uint8_t *buf, uint32_t len, uint32_t flow, uint64_t seq)
{
	uint32_t j = 0;

#ifdef RTE_ARCH_X86
	if (wide()) {
		if (!check_wide(buf, len / 64, mrcd_gen_word_base(flow, seq)))
			return false;
		j = len / 64 * 64;
	}
#endif
	for (; j + 8 <= len; j += 8) {
		uint64_t w = mrcd_gen_word(flow, seq, j / 8), got;

		memcpy(&got, buf + j, 8);
		if (got != w)
			return false;
	}
	if (j < len) {
		uint64_t w = mrcd_gen_word(flow, seq, j / 8);

		return memcmp(buf + j, &w, len - j) == 0;
	}
	return true;
}
