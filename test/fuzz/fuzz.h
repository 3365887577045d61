/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRC_FUZZ_H
#define MRC_FUZZ_H

/*
 * Every fuzz target is a libFuzzer entry point. The same source links either
 * with -fsanitize=fuzzer (clang, -Dfuzz=true) or with replay_main.c, which
 * feeds it the checked-in corpus under plain `meson test`.
 *
 * An oracle violation is a crash on purpose: that is how a fuzzer reports.
 */

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond, ...)                                                                 \
	do {                                                                                  \
		if (!(cond)) {                                                                \
			fprintf(stderr, "oracle violated at %s:%d: %s: ", __FILE__, __LINE__, \
				#cond);                                                       \
			fprintf(stderr, __VA_ARGS__);                                         \
			fputc('\n', stderr);                                                  \
			__builtin_trap();                                                     \
		}                                                                             \
	} while (0)

#endif /* MRC_FUZZ_H */
