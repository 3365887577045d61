/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRC_QP_DEFAULTS_H
#define MRC_QP_DEFAULTS_H

/*
 * The transport's defaults, in one place. mrc_qp_attr_defaults() sets them,
 * so the tests and the benchmarks run them; mrcd's configuration schema
 * shows them as the defaults of its [transport] keys (mrcd --check), so a
 * config that leaves a key out gets the library's value. Plain literals
 * only: the schema turns them into text with RTE_STR(). A config that needs
 * another value sets it and says why beside it (config/mrcd.ini).
 */

#include "mrc_ev.h"

#define MRC_QP_DEF_MTU		4096 /* payload bytes per data packet */
#define MRC_QP_DEF_EV_ACTIVE	MRC_EV_DEF_N_ACTIVE
#define MRC_QP_DEF_EV_BACKUP	MRC_EV_DEF_N_BACKUP
#define MRC_QP_DEF_PROBE_GOOD	MRC_EV_DEF_PROBE_GOOD_NEEDED
#define MRC_QP_DEF_EV_RESHUFFLE 1
/*
 * An ECN echo arrives about an RTT after the packet. At line rate a
 * rotation (128 picks) is shorter than that (~5 us at 800 Gb/s against
 * ~10 us), so skipping only the rest of the current rotation would move
 * nothing: the pool's maximum, three, makes a marked EV miss its next turns
 * until the echo of the skip's effect can come back.
 */
#define MRC_QP_DEF_SKIP_ROTATIONS 3
/*
 * Random loss retires an EV per lost packet (doc/protocol.md, "EV
 * lifecycle"); past the
 * backup set its slot stays retired, and since picks follow the GOOD EVs,
 * its plane then carries less than the others (plane max/mean 1.03 at 0.1%
 * loss per link, 1.17 at 1%, in bench_fabric_qps). Probe rounds every
 * 200 us rather than the EV pool's 1 ms re-admit a sound EV (3 good
 * answers) within about 0.5 ms. The cost: one small probe per retired EV per
 * round, at most EV_PROBES out at once. Where the RTT is longer than a round
 * (0.25 Gb/s links: ~0.6 ms), a config sets more.
 */
#define MRC_QP_DEF_PROBE_INTERVAL_US  200
#define MRC_QP_DEF_MPR		      8	  /* x 128 PSNs: the receive window advertised */
#define MRC_QP_DEF_WIMM		      128 /* Write-with-immediate messages tracked at once */
#define MRC_QP_DEF_ACK_EVERY	      4	  /* SACK after this many new packets ... */
#define MRC_QP_DEF_ACK_DELAY_US	      2	  /* ... or when the oldest has waited this long */
#define MRC_QP_DEF_TRIM_NACK	      1
#define MRC_QP_DEF_PATH_ORDER	      1
#define MRC_QP_DEF_ORDER_LOSS_RETIRES 0
/*
 * Marked packets in a row on one EV before the responder answers
 * ALWAYS_SKIP (doc/protocol.md, "EV lifecycle"): each mark already makes
 * the requester skip the EV for skip_rotations rotations, so eight marks
 * with no unmarked packet between span some 24 rotations of a path that
 * marks whatever the skips do. Retiring it costs a spare and probes.
 */
#define MRC_QP_DEF_ALWAYS_SKIP_MARKS 8
/* Dynamic MPR and TSETH are off unless both ends agree out of band (mrc_qp_attr). */
#define MRC_QP_DEF_DYN_MPR 0
#define MRC_QP_DEF_TSETH   0
/* Retransmit timer, 1.024 us x 2^timeout: 8 = 262 us, for a 100 Gb/s fabric. */
#define MRC_QP_DEF_TIMEOUT	8
#define MRC_QP_DEF_RETRY_LINEAR 7
#define MRC_QP_DEF_RETRY_EXP	25 /* MRC_REL_RETRY_EXP_INFINITE: forever */

#endif /* MRC_QP_DEFAULTS_H */
