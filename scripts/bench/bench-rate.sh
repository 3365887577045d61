#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# Datapath packet rate and byte rate per worker core:
# mrcd with two hosts joined back to back over net_ring ports ([ports] mode
# = loop), both hosts on one worker lcore, WRITE-with-immediate messages in
# a closed loop both ways (build, ICRC, parse, ICRC check, placement, SACKs,
# completions at both ends; no payload verification):
#   packet rate: 256 B payload (the smallest MTU), data packets placed per
#     CPU-second of the worker, against dpdk-testpmd io forwarding (and
#     macswap, which touches each packet) on two looped net_ring ports with
#     one forwarding lcore, per CPU-second of that lcore;
#   byte rate: 4 KiB payload, goodput per CPU-second of the worker, against
#     one core's memcpy of the same bytes in 4 KiB pieces.
# Medians over rounds; each round measures MRC and its references together.
# Writes results/bench-rate.json and results/bench-rate.png.
# Usage: scripts/bench/bench-rate.sh [BUILD_DIR]   (RUNS=5 SECONDS_PER_RUN=3)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
if ! command -v dpdk-testpmd >/dev/null && [ "$(id -u)" = 0 ]; then
	echo "bench-rate: installing dpdk-dev for dpdk-testpmd (the packet-rate reference)"
	apt-get install -y -q dpdk-dev >/dev/null || true
fi
/usr/bin/python3 scripts/bench/bench_rate.py --build "$build" --runs "${RUNS:-5}" \
	--seconds "${SECONDS_PER_RUN:-3}"
/usr/bin/python3 scripts/bench/machine.py results/bench-rate.json
/usr/bin/python3 scripts/plot/plot.py rate results/bench-rate.json results/bench-rate.png
echo "bench-rate: wrote results/bench-rate.json and results/bench-rate.png"
