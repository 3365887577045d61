#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# What the transport costs per delivered data packet, sender and receiver
# together on one core (build, parse, placement, SACKs, completions): ns per
# packet with 1 and with 1,000 active QP pairs (median of runs; noisy), and
# instructions per packet under callgrind as (Ir(2N) - Ir(N)) / N
# (repeatable). Memory per QP is printed too. Writes results/bench-qp.json.
# Usage: scripts/bench/bench-qp.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
bin=$build/test/bench/bench_qp
[ -x "$bin" ] || { echo "bench-qp: $bin not built (run scripts/setup.sh)" >&2; exit 1; }
mkdir -p results
out1=$("$bin" --qps 1 --pkts 200000 --runs 7 2>/dev/null | grep -v '^EAL')
out1k=$("$bin" --qps 1000 --pkts 200000 --runs 3 2>/dev/null | grep -v '^EAL')
printf '%s\n%s\n' "$out1" "$out1k"
ns1=$(sed -n 's/^ *\([0-9.]*\) ns per delivered.*/\1/p' <<<"$out1")
ns1k=$(sed -n 's/^ *\([0-9.]*\) ns per delivered.*/\1/p' <<<"$out1k")
mem=$(sed -n 's/.*memory per QP in RTS: \([0-9]*\) bytes.*/\1/p' <<<"$out1")
ipp=null
if command -v valgrind >/dev/null; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	n=20000
	for k in $n $((2 * n)); do
		# valgrind cannot map hugepages: the EAL runs with --no-huge here.
		MRC_NO_HUGE=1 valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.$k" \
			"$bin" --qps 1 --pkts "$k" --quiet >/dev/null 2>&1
	done
	a=$(sed -n 's/^summary: //p' "$tmp/cg.$n")
	b=$(sed -n 's/^summary: //p' "$tmp/cg.$((2 * n))")
	ipp=$(( (b - a) / n ))
	echo "  $ipp instructions per delivered data packet (callgrind, 1 QP pair)"
else
	echo "bench-qp: valgrind not installed, no instruction count (apt-get install valgrind)"
fi
printf '{"bench": "qp", "payload_bytes": 4096, "ns_per_pkt_1qp": %s, "ns_per_pkt_1000qp": %s, "instr_per_pkt": %s, "bytes_per_qp_rts": %s}\n' \
	"$ns1" "$ns1k" "$ipp" "$mem" > results/bench-qp.json
/usr/bin/python3 scripts/bench/machine.py results/bench-qp.json
echo "bench-qp: wrote results/bench-qp.json"
