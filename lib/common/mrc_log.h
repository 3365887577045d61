/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRC_LOG_H
#define MRC_LOG_H

/*
 * Logging: one DPDK dynamic log type per module.
 *
 * Each module owns a log type named "mrc.<module>" ("mrc.wire", "mrc.rel",
 * ...), so an operator can turn up one module without drowning in the others:
 *
 *   mrcd --log-level='mrc.rel:debug' ...      one module
 *   mrcd --log-level='mrc.*:info' ...         all of the transport
 *
 * A module does, in exactly one of its .c files,
 *
 *   MRC_LOG_TYPE_DEFINE(wire);
 *
 * and in its private or public header
 *
 *   MRC_LOG_TYPE_DECLARE(wire);
 *
 * then logs with
 *
 *   MRC_LOG(wire, ERR, "bad header length %u", len);
 *
 * which prints "mrc.wire: bad header length 12" and a newline (so format
 * strings carry no "\n"). The type is registered by a constructor before
 * main(), so logging works before rte_eal_init() too (to stderr).
 *
 * Hot paths (per packet, per timer) must not log in production builds. They
 * use MRC_LOG_DP(), which, like RTE_LOG_DP, is removed at compile time when
 * the level is above RTE_LOG_DP_LEVEL (INFO in Debian's build), so DEBUG
 * datapath traces cost nothing unless DPDK is rebuilt with a higher level.
 * The arguments are still type-checked, so they cannot rot.
 *
 * Note for static libraries: the constructor lives in the object file that
 * holds MRC_LOG_TYPE_DEFINE; put it in a file whose symbols are referenced
 * (any file that logs is), or the linker will leave it out.
 */

#include <rte_log.h>

/* The log type variable of `module`: an int set once by a constructor. */
#define MRC_LOG_TYPE_DECLARE(module) extern int mrc_logtype_##module

/* Define and register "mrc.<module>" with default level NOTICE. */
#define MRC_LOG_TYPE_DEFINE(module) RTE_LOG_REGISTER(mrc_logtype_##module, mrc.module, NOTICE)

/* Same, with another default level (a level name: ERR, WARNING, INFO, ...). */
#define MRC_LOG_TYPE_DEFINE_LEVEL(module, level) \
	RTE_LOG_REGISTER(mrc_logtype_##module, mrc.module, level)

/*
 * MRC_LOG(module, LEVEL, fmt, args...): LEVEL is a level name without the
 * RTE_LOG_ prefix. The fmt must be a string literal. The trailing "" argument
 * lets a call without args compile in strict C11 (no GNU ", ##__VA_ARGS__");
 * "%.0s" prints nothing for it.
 */
#define MRC_LOG(module, level, ...) MRC_LOG_IMPL_(module, level, __VA_ARGS__, "")
#define MRC_LOG_IMPL_(module, level, fmt, ...)                                                     \
	rte_log(RTE_LOG_##level, (uint32_t)mrc_logtype_##module, "mrc." #module ": " fmt "%.0s\n", \
		__VA_ARGS__)

/* Datapath variant: compiled out when LEVEL > RTE_LOG_DP_LEVEL. */
#define MRC_LOG_DP(module, level, ...) \
	(void)((RTE_LOG_##level <= RTE_LOG_DP_LEVEL) ? MRC_LOG(module, level, __VA_ARGS__) : 0)

/* lib/common's own log type, "mrc.common". */
MRC_LOG_TYPE_DECLARE(common);

#endif /* MRC_LOG_H */
