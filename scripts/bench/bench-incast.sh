#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# Incast tail: 7:1 incast, 8 hosts x 4 planes of
# 0.25 Gb/s, hosts 1..7 each writing 256 KiB messages to host 0 with 2 in
# flight, trimming on ([fabric] trim_kb = 32, [cc] trimming = true) against
# off (trim_kb = 0: tail drop at the 64 KB queue limit, trimming = false).
# Figures: p50, p99 and max message completion time (post to completion)
# divided by the ideal fair share:
#
#   ideal = senders x in flight x message wire bytes / C + base RTT
#
# C = planes x link rate is host 0's last-hop capacity, the bottleneck;
# with a fair 1/7 share each sender's QP moves one message per
# 2 x 7 x message / C, and a message waits for the one posted before it,
# so post-to-completion takes `in flight` of those. Wire bytes per 4 KiB
# packet: 4096 + 150 of headers (SRv6, inner IPv6, UDP, BTH, METH, RETH,
# ICRC) + 24 of framing.
#
# Two measurements of the same network:
#  - fake clock (the headline): test/bench/bench_incast, real QPs on the
#    emulated fabric, 2 s of fabric time per run, exact percentiles,
#    median over SEEDS seeds; deterministic, whatever the machine's load;
#  - the daemon (config/bench/incast.ini, every byte verified), median over
#    REPS repetitions, both cases back to back in each. Its histogram has 128
#    buckets per octave; a percentile is interpolated within its bucket
#    (mrcd_hist_pct), so it can be off by up to a bucket (0.8%) when samples
#    bunch at one end (with 16 it read the p99 here 2% high).
# Writes results/bench-incast.json and results/bench-incast.png.
# Usage: scripts/bench/bench-incast.sh [BUILD_DIR] [REPS] [SEEDS]
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
build=${1:-build}
reps=${2:-3}
seeds=${3:-5}
mrcd=$root/$build/app/mrcd/mrcd
bin=$root/$build/test/bench/bench_incast
for b in "$mrcd" "$bin"; do
	[ -x "$b" ] || { echo "bench-incast: $b not built (ninja -C $build)" >&2; exit 1; }
done
mkdir -p results
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

name=incast
cfg=$root/config/bench/incast.ini
# shellcheck source=mrcd-run-lib.sh
. "$root/scripts/bench/mrcd-run-lib.sh"

for s in $(seq 1 "$seeds"); do
	for mode in trim_on trim_off; do
		if [ $mode = trim_on ]; then kb=32; else kb=0; fi
		"$bin" --ms 2000 --seed "$s" --trim-kb $kb > "$tmp/fake-$mode-$s.json" 2> /dev/null ||
			echo "bench-incast: bench_incast --seed $s --trim-kb $kb failed" >&2
	done
done
for r in $(seq 1 "$reps"); do
	for mode in trim_on trim_off; do
		if [ $mode = trim_on ]; then kb=32 tr=true; else kb=0 tr=false; fi
		run_mrcd "$tmp/$mode-$r.json" fabric.trim_kb=$kb cc.trimming=$tr
	done
done
/usr/bin/python3 scripts/bench/incast_summary.py "$tmp" "$reps" "$seeds"
/usr/bin/python3 scripts/bench/machine.py results/bench-incast.json
/usr/bin/python3 scripts/plot/plot.py incast results/bench-incast.json results/bench-incast.png
echo "bench-incast: wrote results/bench-incast.json and results/bench-incast.png"
