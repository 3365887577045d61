#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# What the emulated fabric costs per forwarded packet on a 3-switch path
# (host tx burst, ingress, 4 link queues, 3 uSID lookups and shifts, 4 heap
# events, delivery, host rx burst): ns per packet with 32 and with 512
# packets in flight (median of runs; noisy on a shared machine), and
# instructions per packet under callgrind as (Ir(2N) - Ir(N)) / N, which
# setup and valgrind's start-up cancel out of (repeatable). Writes
# results/bench-fabric.json.
# Usage: scripts/bench/bench-fabric.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
bin=$build/test/bench/bench_fabric
[ -x "$bin" ] || { echo "bench-fabric: $bin not built (run scripts/setup.sh)" >&2; exit 1; }
mkdir -p results
out32=$("$bin" --burst 32 --pkts 1000000 --runs 7 2>/dev/null | grep -v '^EAL')
out512=$("$bin" --burst 512 --pkts 1000000 --runs 5 2>/dev/null | grep -v '^EAL')
printf '%s\n%s\n' "$out32" "$out512"
ns32=$(sed -n 's/^ *\([0-9.]*\) ns per forwarded.*/\1/p' <<<"$out32")
ns512=$(sed -n 's/^ *\([0-9.]*\) ns per forwarded.*/\1/p' <<<"$out512")
ipp=null
if command -v valgrind >/dev/null; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	n=50000
	for k in $n $((2 * n)); do
		# valgrind cannot map hugepages: the EAL runs with --no-huge here.
		MRC_NO_HUGE=1 valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.$k" \
			"$bin" --burst 32 --pkts "$k" --quiet >/dev/null 2>&1
	done
	a=$(sed -n 's/^summary: //p' "$tmp/cg.$n")
	b=$(sed -n 's/^summary: //p' "$tmp/cg.$((2 * n))")
	ipp=$(( (b - a) / n ))
	echo "  $ipp instructions per forwarded packet (callgrind, 32 in flight)"
else
	echo "bench-fabric: valgrind not installed, no instruction count (apt-get install valgrind)"
fi
printf '{"bench": "fabric", "payload_bytes": 1024, "switches": 3, "ns_per_pkt_32": %s, "ns_per_pkt_512": %s, "instr_per_pkt": %s}\n' \
	"$ns32" "$ns512" "$ipp" > results/bench-fabric.json
/usr/bin/python3 scripts/bench/machine.py results/bench-fabric.json
echo "bench-fabric: wrote results/bench-fabric.json"
