#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# Scale: memory per idle and per active QP, and 1k, 10k
# and 64k QP pairs on one core with traffic spread over all of them (256
# pairs in flight at a time, each pair idle -> active -> idle in turn; 4 x
# 1 KiB packets per message; lib/qp, packets delivered one pass over the
# active pairs after they were sent). All QPs lend in-flight rings from one
# pool of 2 x 256 (mrc_trk_pool.h), and Write-with-immediate tables from
# another as large (a responder holds one only while an immediate waits;
# these messages carry none), and control answer rings from a third (a QP
# holds one only while a SACK or NACK waits for its tx burst). Per scale:
# packets per CPU-second, message completion p50 / p99, how often a QP waited for a ring, resends.
# Same-run reference: every QP with rings and a table of its own
# (--private-rings, the layout before they were lent) at the scales that fit.
# The idle QP's memory is also given part by part (idle_qp_parts). A scale whose QPs
# would not fit in MEM_MB (default 2048) of DPDK heap is not run and is
# recorded with what it would need.
# Then the daemon itself: mrcd with config/examples/scale.ini (2 hosts in
# loop mode, one worker lcore, on 2 MiB hugepages as users run it: 128 to
# 10,000 flows fit in the 512 that scripts/setup.sh reserves, 65,536 flows
# need about 2.2 GiB; mrcd falls back to 4 KiB pages by itself when fewer
# are free than it needs, and the run then says so; NO_HUGE=1 asks for
# --no-huge) and config/profiles/scale-64k.ini
# at 128, 1,024, 10,000 and 65,536 flows (as many QPs sending, as many
# receiving), 256 flows per host in flight at a time, 1 KiB messages, every
# byte verified, DAEMON_S seconds (default 3) per run, on the worker as it
# is and on one slowed by SLOW_US (default 50) us a pass: messages per
# worker CPU-second and their ratio to the same setting's 128 flows,
# completion p50 / p99, heap and peak RSS per QP, resends as a share of the
# data packets sent (the links lose nothing, so every resend is spurious),
# flows that never completed a message. One more run per setting, 128
# flows each cycling through COLD_BUFFERS (default 79; 0 skips it) message
# buffers at each end ([profile] buffers), as many buffers as 10,000 flows
# have: the rate with 10,000 flows' buffers out of the caches and 128
# flows' QP state in them, which tells the buffers' share of what 10,000
# flows cost from the QPs'. It is not the baseline of any ratio.
# On the worker as it is, the flow counts in SWEEP (default 2,000, 4,000,
# 6,000 and 8,000) run too, each against the same 128 flows: where between
# 1,024 and 10,000 flows this machine's rate falls, as the flows' state and
# buffers outgrow its L2 and then its share of the L3 (no goal applies to
# them; SWEEP= skips them).
# Writes results/bench-scale.json and results/bench-scale.png. With CACHE=1
# it then runs scripts/bench/bench-scale-cache.sh, the same daemon settings
# under callgrind's cache simulator, for the cache misses per message beside
# the rates (slow: about 45 minutes; LOCK is passed on).
# Usage: scripts/bench/bench-scale.sh [BUILD_DIR]
#   (MEM_MB=2048 RUNS=3 DAEMON_S=3 SLOW_US=50 COLD_BUFFERS=79 CACHE=0 NO_HUGE=0
#    SWEEP="2000 4000 6000 8000")
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
bin=$build/test/bench/bench_scale
[ -x "$bin" ] || { echo "bench-scale: $bin not built (ninja -C $build)" >&2; exit 1; }
sweep=${SWEEP-2000 4000 6000 8000}
for f in $sweep; do
	case $f in
	'' | *[!0-9]*)
		echo "bench-scale: SWEEP: '$f' is not a flow count" >&2
		exit 1
		;;
	esac
	if [ "$f" -lt 2 ] || [ $((f % 2)) != 0 ]; then
		echo "bench-scale: SWEEP: $f flows: give an even count of at least 2 (half each way)" >&2
		exit 1
	fi
done
mem=${MEM_MB:-2048}
runs=${RUNS:-3}
mkdir -p results
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run() { # OUT ARGS...
	local out=$1
	shift
	if ! "$bin" --active 256 --pkts 400000 --mem-mb "$mem" "$@" > "$tmp/out" 2> "$tmp/err"; then
		echo "bench-scale: $bin $* failed:" >&2
		tail -3 "$tmp/err" >&2
		exit 1
	fi
	grep '^{' "$tmp/out" > "$out"
}
for n in 1000 10000 65536; do
	for r in $(seq "$runs"); do
		run "$tmp/$n.$r.json" --qps "$n"
		run "$tmp/ref-$n.$r.json" --qps "$n" --private-rings
	done
	echo "bench-scale: $n QP pairs: $(cat "$tmp/$n.1.json")"
	echo "bench-scale: $n QP pairs, private rings: $(cat "$tmp/ref-$n.1.json")"
done
mrcd=$build/app/mrcd/mrcd
slow_us=${SLOW_US:-50}
cold=${COLD_BUFFERS:-79}
huge=()
[ "${NO_HUGE:-0}" != 1 ] || huge=(--no-huge)
# Each flow count on a worker as it is, then on one slowed by [lcores]
# pass_delay_us (every pass spins SLOW_US more, as a slower or shared core
# would); 128 flows (64 per host, all in flight) is each setting's baseline.
for delay in 0 "$slow_us"; do
	runs_of=(128 1024 10000 65536)
	if [ "$delay" = 0 ]; then
		for f in $sweep; do # a count the fixed ones have runs once
			case " ${runs_of[*]} " in *" $f "*) ;; *) runs_of+=("$f") ;; esac
		done
	fi
	[ "$cold" = 0 ] || runs_of+=("128b$cold")
	for run_of in "${runs_of[@]}"; do
		f=${run_of%b*} # "128b79": 128 flows, 79 buffers each
		bufs=0
		[ "$f" = "$run_of" ] || bufs=${run_of#*b}
		for r in $(seq "$runs"); do
			out="$tmp/mrcd-d$delay-$run_of.$r.json"
			if ! (cd "$tmp" && "$OLDPWD/$mrcd" "${huge[@]}" -- \
				-f "$OLDPWD/config/examples/scale.ini" \
				--profile "$OLDPWD/config/profiles/scale-64k.ini" \
				--set profile.qps_per_peer=$((f / 2)) --set lcores.pass_delay_us="$delay" \
				--set profile.buffers="$bufs" \
				--set control.socket="$tmp/ctl.sock" \
				--duration "${DAEMON_S:-3}" --json "$out" > "$tmp/mrcd.log" 2>&1); then
				echo "bench-scale: mrcd with $f flows, buffers $bufs (pass delay $delay us) failed:" >&2
				grep -v '^EAL' "$tmp/mrcd.log" | tail -3 >&2
				rm -f "$out"
			elif [ "${NO_HUGE:-0}" != 1 ] && grep -q '^mrcd.ctrl: EAL .*--no-huge' "$tmp/mrcd.log"; then
				echo "bench-scale: warning: mrcd with $f flows ran on 4 KiB pages" \
					"(--no-huge): too few hugepages free ($(grep HugePages_Free /proc/meminfo))" >&2
			fi
		done
	done
done
if [ "${CACHE:-0}" = 1 ]; then
	scripts/bench/bench-scale-cache.sh "$build"
fi
COLD_BUFFERS=$cold SLOW_US=$slow_us SWEEP=$sweep /usr/bin/python3 scripts/bench/scale_summary.py "$tmp" "$runs"
/usr/bin/python3 scripts/bench/machine.py results/bench-scale.json
/usr/bin/python3 scripts/plot/plot.py scale results/bench-scale.json results/bench-scale.png
