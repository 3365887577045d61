/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRCD_LOG_H
#define MRCD_LOG_H

/*
 * The daemon's messages: one DPDK log type per side, as the libraries have
 * one per module (lib/common/mrc_log.h, whose shape this follows):
 *
 *   mrcd.ctrl    control/ and main.c: start, ports, the run, teardown
 *   mrcd.stats   stats/: the outputs' files
 *
 * Each is registered at NOTICE, so errors, warnings and notices show by
 * default and `--log-level=mrcd.ctrl:warning` (or `mrcd.*:error`) quiets
 * them. MRCD_LOG(ctrl, ERR, "host %u: ...", h) prints "mrcd.ctrl: host 0:
 * ..." and a newline. Before the EAL starts they go to stderr, after it to
 * the EAL's log stream (stdout and syslog).
 *
 * What the daemon reports rather than logs (the banner, the console line,
 * the summary, --check, --help) is output, printed on stdout as it is.
 * Workers do not log: nothing per packet, and a worker has nothing to say
 * that its counters do not.
 */

#include <rte_log.h>

#define MRCD_LOG_TYPE_DECLARE(side) extern int mrcd_logtype_##side

/* In exactly one .c file of the side (one whose symbols are referenced). */
#define MRCD_LOG_TYPE_DEFINE(side) RTE_LOG_REGISTER(mrcd_logtype_##side, mrcd.side, NOTICE)

#define MRCD_LOG(side, level, ...) MRCD_LOG_IMPL_(side, level, __VA_ARGS__, "")
#define MRCD_LOG_IMPL_(side, level, fmt, ...)                                                    \
	rte_log(RTE_LOG_##level, (uint32_t)mrcd_logtype_##side, "mrcd." #side ": " fmt "%.0s\n", \
		__VA_ARGS__)

MRCD_LOG_TYPE_DECLARE(ctrl);
MRCD_LOG_TYPE_DECLARE(stats);

#endif /* MRCD_LOG_H */
