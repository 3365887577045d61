#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# Applications through the MRC API against mrcd's own generator, same
# configuration, same run: 2 hosts in loop mode with one worker (CPU 1) the
# limit, host 0 writing to host 1 on one QP. Goodput per worker CPU-second
# of mrc_write_bw (tools/perftest, under mrc-run; 4 KiB and 64 KiB writes)
# over the generator's (the same sizes, opcode write, 16 outstanding), with
# the applications' own CPU (getrusage); 1 KiB write latency of
# mrc_write_lat (p50, p99) against the generator's completion time. Goal:
# app >= 0.8 x generator per worker CPU-second. Medians over RUNS rounds
# (default 3) of SECONDS_PER_RUN (default 3); with MRCD_LOCK set, each mrcd
# run holds that flock. Writes results/bench-apps.json.
# Usage: scripts/bench/bench-apps.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
args=(--build "$build" --runs "${RUNS:-3}" --seconds "${SECONDS_PER_RUN:-3}")
[ -n "${MRCD_LOCK:-}" ] && args+=(--lock "$MRCD_LOCK")
/usr/bin/python3 scripts/bench/bench_apps.py "${args[@]}"
/usr/bin/python3 scripts/bench/machine.py results/bench-apps.json
echo "bench-apps: wrote results/bench-apps.json"
