#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# Every benchmark, one command: runs each scripts/bench/bench-*.sh in turn
# (the set is discovered, so new ones join by being there), each under a
# time budget; each writes its own results/bench-NAME.json (with the machine
# it ran on) and plot. Then scripts/bench/bench_report.py writes
# doc/performance.md from every results/bench-*.json present, and the
# headline figures between <!-- perf:begin --> and <!-- perf:end --> in
# README.md (left alone when the markers are absent). Benchmarks measure; a
# failed or timed-out one is reported and the rest still run.
# Exit status: 0 when the report was written, even if a benchmark failed.
#
# Usage: scripts/bench.sh [--build-dir DIR] [--budget S] [--total S] [--no-readme] [NAME...]
#        scripts/bench.sh --report-only [--no-readme]
#   NAME: run only these (wire, qp, rate, ...); the report still covers
#   every result file present.
#   --budget S     seconds one benchmark may take (default 300; the soak takes
#                  SOAK_S, default 1800, and a margin; scale-cache, which runs
#                  only with CACHE=1, 3600)
#   --total S      seconds for all of them (default 3600); the rest are skipped
#   --report-only  run nothing: regenerate the docs from results/*.json
set -uo pipefail
cd "$(dirname "$0")/.."
build=build budget=300 total=3600 readme=1 report_only=0
only=()
while [ $# -gt 0 ]; do
	case $1 in
	--build-dir) build=${2:?--build-dir needs a directory}; shift 2 ;;
	--budget) budget=${2:?--budget needs seconds}; shift 2 ;;
	--total) total=${2:?--total needs seconds}; shift 2 ;;
	--no-readme) readme=0; shift ;;
	--report-only) report_only=1; shift ;;
	-h|--help) sed -n '4,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "bench: unknown option $1 (see --help)" >&2; exit 2 ;;
	*) only+=("$1"); shift ;;
	esac
done
report() {
	local args=(--doc doc/performance.md)
	[ "$readme" = 1 ] && args+=(--readme README.md)
	[ -n "${1:-}" ] && args+=(--status "$1")
	/usr/bin/python3 scripts/bench/bench_report.py "${args[@]}"
}
if [ "$report_only" = 1 ]; then
	report
	exit
fi
for v in "$budget" "$total"; do
	[[ $v =~ ^[1-9][0-9]*$ ]] || { echo "bench: '$v' is not a number of seconds" >&2; exit 2; }
done
if [ ! -x "$build/app/mrcd/mrcd" ]; then
	echo "bench: $build is not built; building (ninja -C $build)"
	[ -d "$build" ] || meson setup "$build" >/dev/null || exit 1
	ninja -C "$build" -j2 >/dev/null || { echo "bench: build failed" >&2; exit 1; }
fi
mkdir -p results/tmp
status=results/tmp/status.jsonl
: > "$status"
start=$(date +%s)
scripts=(scripts/bench/bench-*.sh)
n=${#scripts[@]} i=0
for s in "${scripts[@]}"; do
	name=$(basename "$s" .sh)
	name=${name#bench-}
	i=$((i + 1))
	if [ ${#only[@]} -gt 0 ] && ! printf '%s\n' "${only[@]}" | grep -qx "$name"; then
		continue
	fi
	left=$((total - ($(date +%s) - start)))
	if [ ! -x "$s" ] && [ ! -r "$s" ]; then
		echo "[$i/$n] $name: missing, skipped"
		echo "{\"name\": \"$name\", \"status\": \"missing\", \"seconds\": 0}" >> "$status"
		continue
	fi
	if [ "$left" -le 10 ]; then
		echo "[$i/$n] $name: skipped, the total budget (${total} s) is spent"
		echo "{\"name\": \"$name\", \"status\": \"skipped\", \"seconds\": 0}" >> "$status"
		continue
	fi
	b=$((budget < left ? budget : left))
	# The cache count runs mrcd under valgrind for about 45 minutes: only when asked.
	if [ "$name" = scale-cache ] && [ "${CACHE:-0}" != 1 ]; then
		echo "[$i/$n] $name: skipped (slow: CACHE=1 runs it)"
		echo "{\"name\": \"$name\", \"status\": \"skipped\", \"seconds\": 0}" >> "$status"
		continue
	fi
	if [ "$name" = scale-cache ]; then
		b=$((3600 < left ? 3600 : left))
	fi
	# The soak runs SOAK_S seconds (default 1800): its budget is that, and a margin.
	if [ "$name" = soak ]; then
		b=$((${SOAK_S:-1800} + 120))
		[ "$b" -le "$left" ] || b=$left
	fi
	echo "[$i/$n] $name: running (budget ${b} s) ..."
	t0=$(date +%s)
	timeout --kill-after=10 "$b" bash "$s" "$build" > "results/tmp/$name.log" 2>&1
	rc=$?
	dt=$(($(date +%s) - t0))
	case $rc in
	0) st=ok ;;
	77) st=skipped ;; # cannot run here (no root, no network namespaces, ...)
	124|137) st=timeout ;;
	*) st=failed ;;
	esac
	echo "[$i/$n] $name: $st in ${dt} s (log: results/tmp/$name.log)"
	[ "$st" = ok ] || tail -5 "results/tmp/$name.log" | sed 's/^/    /'
	echo "{\"name\": \"$name\", \"status\": \"$st\", \"rc\": $rc, \"seconds\": $dt}" >> "$status"
done
echo "bench: all done in $(($(date +%s) - start)) s; writing the report"
report "$status"
