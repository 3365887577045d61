#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# Failover on the emulated fabric, fake clock:
# test/bench/bench_failover, 8 QP pairs from host 0 to host 1 over 8 planes x
# 4 T1s of 100 Gb/s, 8 x 64 KiB WRITE-with-immediate in flight per QP (line
# rate), every byte verified. At 2 ms one fault, each in its own run:
#   plane     a whole plane DOWN (both hosts see their port go down)
#   plane-bh  a whole plane black-holed (ports stay up: the host cannot see it)
#   link      one T0-T1 cable DOWN (the hosts cannot see it)
#   t1-bh     one T1 switch black-holed (up, forwards nothing)
# (With two hosts, a T0-T1 cable and its T1 carry the same paths, so link and
# t1-bh differ only in how the fabric counts the drops.) Per fault, median
# over SEEDS seeds (the seed also picks the plane and the T1):
#   ev_retired_us   fault -> first EV retired (ASSUMED_BAD) on any QP
#   recovered_us    fault -> start of the first 10 us window from which every
#                   later 50 us run of windows averages >= 95% of (pre-fault
#                   goodput x surviving capacity), goodput = payload placed at
#                   the receiver (surviving capacity: 7/8 for a plane, all of
#                   it for a link or a T1, which the other 3 T1s carry)
#   stall_msg_us    largest gap between successive message completions at the
#                   receiver (any QP) after the fault; stall_msg_qp_us the
#                   worst single QP's; stall_pkt_us between data packets placed
#   msgs_lost       posted - completed after a drain (goal 0)
# and, for the faults the host cannot see, one long run (20 ms after the
# fault) for the steady cost of a dead element: EV probes per second, packets
# the fabric drops there per second, data packets resent after the fault.
# Writes results/bench-failover.json and results/bench-failover.png.
# Usage: scripts/bench/bench-failover.sh [BUILD_DIR] [SEEDS]
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
seeds=${2:-3}
bin=$build/test/bench/bench_failover
[ -x "$bin" ] || { echo "bench-failover: $bin not built (ninja -C $build)" >&2; exit 1; }
mkdir -p results
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# One run; tried again if the EAL could not start (another benchmark held its memory).
run() {
	local out=$1
	shift
	for _ in 1 2 3; do
		"$bin" "$@" 2>/dev/null | grep -v '^EAL' > "$out" || true
		[ -s "$out" ] && return 0
		sleep 1
	done
	echo "bench-failover: $bin $* printed nothing" >&2
	return 1
}
faults="plane plane-bh link t1-bh"
echo "bench-failover: fake clock, 8 QPs at line rate, fault at 2 ms, $seeds seeds"
run "$tmp/none-1.json" --fault none --seed 1 --series
for f in $faults; do
	for s in $(seq 1 "$seeds"); do
		run "$tmp/$f-$s.json" --fault "$f" --seed "$s" --series
		# Half the data in flight: still line rate, half the queueing delay.
		run "$tmp/o4-$f-$s.json" --fault "$f" --seed "$s" --outstanding 4
	done
done
echo "bench-failover: steady cost of an unseen dead element, 20 ms after the fault"
for f in plane-bh link; do
	run "$tmp/long-$f.json" --fault "$f" --seed 1 --after-us 20000
done
/usr/bin/python3 scripts/bench/failover_summary.py "$tmp" "$seeds" "$faults"
/usr/bin/python3 scripts/bench/machine.py results/bench-failover.json
/usr/bin/python3 scripts/plot/plot.py failover results/bench-failover.json results/bench-failover.png
echo "bench-failover: wrote results/bench-failover.json and results/bench-failover.png"
