#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# Cache misses per message of the daemon at 128, 1,024, 10,000 and 65,536
# flows: the setting of bench-scale.sh (config/examples/scale.ini,
# config/profiles/scale-64k.ini, 256 flows per host in flight, 1 KiB
# messages, verified), run under valgrind's callgrind with its cache
# simulator. A count, not a timing: it needs no quiet machine,
# and it is slow (valgrind runs mrcd about 50 times slower), so each flow
# count runs a fixed number of messages per flow, twice (M and 2 M), and
# what is given per message is the difference between the two runs over the
# difference in messages: the QPs' set-up and their first touch cancel out.
# Only the worker's per-pass work is counted: the shard's iteration less
# the QP set-up requests it carries out, which holds the completions and
# the generator's posts (run between its input and its output round:
# mrc_shard_set_before_output); the snapshot sweep, a fixed cost per
# millisecond, is not.
# Simulated caches: this machine's L1d (48 KiB, 12-way) and one core's L2
# (2 MiB, 16-way) as the last level, since the L2 is what one worker has
# to itself. Per message: L2 misses (reads and writes). Instructions and
# L1d misses are not given: the idle passes between the last message and
# the stop (a second or more of polling, with the snapshot sweep) count in
# them, so their difference between the two runs is noise, at times below
# zero.
# A second series at 128, 1,024 and 10,000 flows takes a 16 MiB last level
# instead (L3_MIB): the share of the shared L3 a worker finds, which
# test/bench/bench_memlat measures (a chase's latency steps from L3's to
# memory's between 16 and 48 MiB on the benchmark machine). Its misses are
# the ones that go to memory: they tell whether a flow count's state still
# fits in the L3, which is where a miss costs a few nanoseconds in
# parallel instead of a memory access.
# Writes results/bench-scale-cache.json (figures for flow counts this run
# does not measure are kept from the file), which bench_report.py sets beside
# bench-scale's rates in doc/performance.md. mrcd claims its CPUs: on a
# machine shared with other mrcd runs, LOCK=FILE holds that file's flock
# over each mrcd run (not over the whole script).
# Usage: scripts/bench/bench-scale-cache.sh [BUILD_DIR]
#   (FLOWS="128 1024 10000 65536"; MSGS="64 8 1 1": messages per flow for each;
#    L3_MIB=16, L3_FLOWS="128 1024 10000", L3_MSGS="64 8 1": the second
#    series, L3_MIB=0 skips it; an empty FLOWS= or L3_FLOWS= runs none of
#    that series, whose figures stay as they are in the file; LOCK=FILE:
#    see above; KEEP=1 keeps the callgrind files for callgrind_annotate)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
[ -x "$build/app/mrcd/mrcd" ] || {
	echo "bench-scale-cache: $build/app/mrcd/mrcd not built (ninja -C $build)" >&2
	exit 1
}
mrcd=$(realpath "$build/app/mrcd/mrcd")
command -v valgrind > /dev/null || {
	echo "bench-scale-cache: valgrind not installed (apt-get install valgrind)" >&2
	exit 1
}
read -r -a flows <<< "${FLOWS-128 1024 10000 65536}"
read -r -a msgs <<< "${MSGS-64 8 1 1}"
[ "${#flows[@]}" = "${#msgs[@]}" ] || {
	echo "bench-scale-cache: FLOWS has ${#flows[@]} entries, MSGS ${#msgs[@]}" >&2
	exit 1
}
l3_mib=${L3_MIB:-16}
read -r -a l3_flows <<< "${L3_FLOWS-128 1024 10000}"
read -r -a l3_msgs <<< "${L3_MSGS-64 8 1}"
[ "${#l3_flows[@]}" = "${#l3_msgs[@]}" ] || {
	echo "bench-scale-cache: L3_FLOWS has ${#l3_flows[@]} entries, L3_MSGS ${#l3_msgs[@]}" >&2
	exit 1
}
# callgrind wants a power of two sets (size / 16 ways / 64 B lines)
case $l3_mib in
0 | 4 | 8 | 16 | 32 | 64 | 128 | 256) ;;
*)
	echo "bench-scale-cache: L3_MIB=$l3_mib: give 0 (skip) or a power of two from 4 to 256" >&2
	exit 1
	;;
esac
mkdir -p results
tmp=$(mktemp -d)
pid=
# Stopped early (a benchmark budget, Ctrl-C): stop the mrcd under valgrind too.
trap '[ -z "$pid" ] || kill -INT "$pid" 2> /dev/null; [ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM
[ -z "${KEEP:-}" ] || echo "bench-scale-cache: keeping $tmp"
src=$PWD
lock=()
[ -z "${LOCK:-}" ] || lock=(flock --no-fork "$LOCK")
# One series: FLOWS-like list fl, MSGS-like list ms, a last level of mib MiB.
series() {
	local mib=$1
	local -a fl ms
	read -r -a fl <<< "$2"
	read -r -a ms <<< "$3"
	for i in "${!fl[@]}"; do
		f=${fl[$i]}
		for k in 1 2; do
			m=$((k * ms[i]))
			out=$tmp/l$mib.f$f.m$k
			# Toggles nest: entering mrc_shard_take_requests inside
			# mrc_shard_iterate turns counting off until it returns.
			# mrcd runs until its duration: it is stopped (SIGINT, a clean stop
			# with drain and summary) once the console counts every message.
			# flock --no-fork becomes valgrind, which becomes mrcd: one pid.
			(cd "$tmp" && exec "${lock[@]}" valgrind --tool=callgrind --cache-sim=yes \
				--D1=49152,12,64 --LL=$((mib * 1048576)),16,64 --collect-atstart=no \
				--toggle-collect=mrc_shard_iterate --toggle-collect=mrc_shard_take_requests \
				--callgrind-out-file="$out.cg" \
				"$mrcd" --no-huge -- -f "$src/config/examples/scale.ini" \
				--profile "$src/config/profiles/scale-64k.ini" \
				--set profile.qps_per_peer=$((f / 2)) --set profile.messages="$m" \
				--set control.socket="$out.sock" \
				--duration 3600 --json "$out.json") > "$out.log" 2>&1 &
			pid=$!
			while kill -0 "$pid" 2> /dev/null; do
				if grep -q "| msgs $((f * m))\$" "$out.log"; then
					kill -INT "$pid"
					break
				fi
				sleep 1
			done
			if ! wait "$pid"; then
				pid=
				echo "bench-scale-cache: mrcd with $f flows, $m messages per flow failed:" >&2
				grep -v '^EAL\|^==' "$out.log" | tail -3 >&2
				exit 1
			fi
			pid=
			grep '^summary:\|^events:' "$out.cg" > "$out.totals"
		done
		echo "bench-scale-cache: $f flows done ($mib MiB last level)"
	done
}
series 2 "${flows[*]}" "${msgs[*]}"
[ "$l3_mib" = 0 ] || series "$l3_mib" "${l3_flows[*]}" "${l3_msgs[*]}"
l3_spec=
[ "$l3_mib" = 0 ] || l3_spec="$l3_mib:${l3_flows[*]}:${l3_msgs[*]}"
/usr/bin/python3 - "$tmp" results/bench-scale-cache.json "2:${flows[*]}:${msgs[*]}" "$l3_spec" <<'PY'
import json, sys
tmp, dst, l2_spec, l3_spec = sys.argv[1:5]

def load(mib, f, k):
    ev = tot = None
    for line in open(f"{tmp}/l{mib}.f{f}.m{k}.totals"):
        key, _, rest = line.partition(":")
        if key == "events":
            ev = rest.split()
        elif key == "summary":
            tot = [int(x) for x in rest.split()]
    s = json.load(open(f"{tmp}/l{mib}.f{f}.m{k}.json"))
    return dict(zip(ev, tot)), s

def series(spec):
    """Rows of one series ("MiB:flows:msgs"), and the flow counts it ran."""
    mib, flows, msgs = spec.split(":")
    rows = []
    for f, m in zip(flows.split(), msgs.split()):
        (c1, s1), (c2, s2) = load(mib, f, 1), load(mib, f, 2)
        n = s2["messages"]["completed"] - s1["messages"]["completed"]
        per = lambda key: (c2[key] - c1[key]) / n
        rows.append({"flows": int(f), "qps": s2["qps"], "msgs_per_flow": [int(m), 2 * int(m)],
                     "messages": n,
                     "l2_miss_per_msg": per("DLmr") + per("DLmw"),
                     "l2_read_miss_per_msg": per("DLmr"),
                     "retransmits": s2["retransmits"],
                     "all_completed": all(s["messages"]["posted"] == s["messages"]["completed"]
                                          for s in (s1, s2))})
    return int(mib), rows, flows.split()

def merge(rows, ran, old):
    # Flow counts run another time (FLOWS) are kept: each may run on its own.
    rows += [r for r in old if str(r["flows"]) not in ran]
    rows.sort(key=lambda r: r["flows"])
    return rows

try:
    prev = json.load(open(dst))
except (OSError, ValueError):
    prev = {}
_, rows, ran = series(l2_spec)
out = {"bench": "scale-cache", "tool": "valgrind callgrind --cache-sim=yes",
       "l1d": "48 KiB, 12-way, 64 B lines", "last_level": "2 MiB, 16-way (one core's L2)",
       "counted": "mrc_shard_iterate (with the completions and posts it runs) less mrc_shard_take_requests",
       "scales": merge(rows, ran, prev.get("scales", []))}
old_l3 = prev.get("l3", {})
if l3_spec:
    mib, rows, ran = series(l3_spec)
    same = old_l3.get("mib") == mib
    out["l3"] = {"mib": mib,
                 "last_level": f"{mib} MiB, 16-way (a worker's share of the L3): its misses go to memory",
                 "scales": merge(rows, ran, old_l3.get("scales", []) if same else [])}
elif old_l3:
    out["l3"] = old_l3
json.dump(out, open(dst, "w"), indent=1)
l3 = out.get("l3", {})
for label, rows in (("L2", out["scales"]), (f"{l3.get('mib')} MiB last-level", l3.get("scales", []))):
    for r in rows:
        print(f"bench-scale-cache: {r['flows']} flows: {r['l2_miss_per_msg']:.1f} {label} "
              f"misses per message ({r['messages']} messages)")
PY
/usr/bin/python3 scripts/bench/machine.py results/bench-scale-cache.json
