#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# Load balance: Jain's fairness index and max/mean of the
# bytes each plane and each T0 -> T1 link carried in 1 ms windows, 8 QPs
# from host 0 to host 1 over 8 planes x 4 T1s of 100 Gb/s, spraying (MRC)
# against ECMP-style pinning ([transport] paths = ecmp: each QP hashed onto
# one EV). test/bench/bench_fabric_qps drives the QPs and the emulated fabric
# on a fake clock, so a window is exactly 1 ms of fabric time whatever the
# machine is doing; each seed draws other QP numbers (ECMP's hash) and EVs.
# Two loads: 2 x 256 KiB messages in flight per QP (about line rate) and 4
# (overload: queues reach the trim threshold). Figures are medians over the
# windows of a run, then over the seeds. Writes results/bench-balance.json
# and results/bench-balance.png.
# Usage: scripts/bench/bench-balance.sh [BUILD_DIR] [SEEDS]
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
seeds=${2:-5}
bin=$build/test/bench/bench_fabric_qps
[ -x "$bin" ] || { echo "bench-balance: $bin not built (ninja -C $build)" >&2; exit 1; }
mkdir -p results
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for load in 2 4; do
	for paths in spray ecmp; do
		for s in $(seq 1 "$seeds"); do
			"$bin" --paths "$paths" --qps 8 --windows 10 --outstanding "$load" --seed "$s" \
				2>/dev/null | grep -v '^EAL' > "$tmp/$paths-$load-$s.json"
		done
	done
done
/usr/bin/python3 scripts/bench/balance_summary.py "$tmp" "$seeds"
/usr/bin/python3 scripts/bench/machine.py results/bench-balance.json
/usr/bin/python3 scripts/plot/plot.py balance results/bench-balance.json results/bench-balance.png
echo "bench-balance: wrote results/bench-balance.json and results/bench-balance.png"
