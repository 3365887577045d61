#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# SRv6 encap by the NIC ([ports] encap_offload = auto) against software
# headers (off), alternated in one run on the emulated fabric (the demo
# config, SRv6, 100 Gb/s links so the CPU is the bottleneck): medians of
# goodput, goodput per worker CPU-second and the workers' output-step
# cycles per packet, and their ratios (doc/offload.md). RUNS rounds
# (default 3) of SECONDS_PER_RUN (default 3); with MRCD_LOCK set, each mrcd
# run holds that flock. Writes results/bench-encap.json.
# Usage: scripts/bench/bench-encap.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
args=(--build "$build" --runs "${RUNS:-3}" --seconds "${SECONDS_PER_RUN:-3}")
[ -n "${MRCD_LOCK:-}" ] && args+=(--lock "$MRCD_LOCK")
/usr/bin/python3 scripts/bench/bench_encap.py "${args[@]}"
/usr/bin/python3 scripts/bench/machine.py results/bench-encap.json
echo "bench-encap: wrote results/bench-encap.json"
