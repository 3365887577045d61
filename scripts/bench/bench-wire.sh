#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# What the wire codec costs per packet: wall-clock ns (median of several
# runs, noisy on a shared machine) and instructions under callgrind, which
# are repeatable whatever else the machine does. Instructions per packet are
# (Ir(2N) - Ir(N)) / N, so setup and valgrind's own start-up cancel out.
# Usage: scripts/bench/bench-wire.sh [BUILD_DIR]   (writes results/bench-wire.json)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
bin=$build/test/bench/bench_wire
[ -x "$bin" ] || { echo "bench-wire: $bin not built (run scripts/setup.sh)" >&2; exit 1; }
mkdir -p results
"$bin" --runs 7 --json results/bench-wire.json
/usr/bin/python3 scripts/bench/machine.py results/bench-wire.json

if ! command -v valgrind >/dev/null; then
	echo "bench-wire: valgrind not installed, skipping instruction counts (apt-get install valgrind)"
	exit 0
fi
n=20000
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ir() { # op iterations -> total instructions
	valgrind --tool=callgrind --callgrind-out-file="$tmp/cg" "$bin" --op "$1" --iters "$2" \
		>/dev/null 2>"$tmp/log"
	sed -n 's/^summary: //p' "$tmp/cg"
}
printf '%-22s %12s\n' op instr/pkt
json="{"
for op in build-data-64 parse-data-64 build-data-4k parse-data-4k parse-data-4k-noicrc \
	build-sack parse-sack icrc-4k icrc-4k-clmul128 icrc-4k-table memcpy-4k; do
	a=$(ir "$op" "$n")
	b=$(ir "$op" $((2 * n)))
	per=$(( (b - a) / n ))
	printf '%-22s %12d\n' "$op" "$per"
	json="$json\"$op\": $per, "
done
echo "${json%, }}" > results/bench-wire-instructions.json
/usr/bin/python3 scripts/bench/machine.py results/bench-wire-instructions.json
echo "bench-wire: wrote results/bench-wire.json and results/bench-wire-instructions.json"
