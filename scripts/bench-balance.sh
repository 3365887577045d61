#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# Load balance (issue 6, item 5): Jain's fairness index and max/mean of the
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
# Usage: scripts/bench-balance.sh [BUILD_DIR] [SEEDS]
set -euo pipefail
cd "$(dirname "$0")/.."
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
/usr/bin/python3 - "$tmp" "$seeds" <<'PY'
import glob, json, statistics, sys
tmp, seeds = sys.argv[1], int(sys.argv[2])
keys = ["plane_jain_median", "plane_maxmean_median", "link_jain_median", "link_maxmean_median",
        "plane_jain_worst", "link_jain_worst", "uplink_gbps"]
out = {"bench": "balance", "qps": 8, "planes": 8, "t1s": 4, "link_gbps": 100, "window_ms": 1,
       "windows_per_run": 10, "seeds": seeds, "msg_kib": 256, "results": {}}
print(f"{'load':>5} {'paths':>6} | {'plane Jain':>10} {'max/mean':>8} | {'T0-T1 Jain':>10} "
      f"{'max/mean':>8} | {'worst Jain p/l':>14} | {'uplink Gb/s':>11}")
for load in (2, 4):
    for paths in ("spray", "ecmp"):
        runs = [json.load(open(f)) for f in sorted(glob.glob(f"{tmp}/{paths}-{load}-*.json"))]
        med = {k: statistics.median(r[k] for r in runs) for k in keys}
        med["runs"] = runs
        out["results"][f"{paths}_outstanding{load}"] = med
        print(f"{load:>5} {paths:>6} | {med['plane_jain_median']:10.4f} "
              f"{med['plane_maxmean_median']:8.3f} | {med['link_jain_median']:10.4f} "
              f"{med['link_maxmean_median']:8.3f} | {med['plane_jain_worst']:6.3f} "
              f"{med['link_jain_worst']:6.3f} | {med['uplink_gbps']:11.1f}")
json.dump(out, open("results/bench-balance.json", "w"), indent=1)
PY
/usr/bin/python3 scripts/plot-bench.py balance results/bench-balance.json results/bench-balance.png
echo "bench-balance: wrote results/bench-balance.json and results/bench-balance.png"
