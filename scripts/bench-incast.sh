#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# Incast tail (issue 6, item 6): 7:1 incast, 8 hosts x 4 planes of
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
#    REPS repetitions, both cases back to back in each. Its histogram has 16
#    buckets per octave; a percentile is interpolated within its bucket
#    (mrcd_hist_pct), so it can be off by up to a bucket (6%) when samples
#    bunch at one end.
# Writes results/bench-incast.json and results/bench-incast.png.
# Usage: scripts/bench-incast.sh [BUILD_DIR] [REPS] [SEEDS]
set -euo pipefail
cd "$(dirname "$0")/.."
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

# Run mrcd; when other mrcd instances hold every free CPU, wait for one (up to a minute).
run_mrcd() {
	local cfg=$1 out=$2
	for _ in $(seq 60); do
		if (cd "$tmp" && "$mrcd" -- -f "$cfg" --json "$out" > "$tmp/log" 2>&1); then
			return 0
		fi
		grep -qE 'already poll|another mrcd' "$tmp/log" || break
		sleep 1
	done
	echo "bench-incast: $cfg: mrcd failed:" >&2
	tail -5 "$tmp/log" >&2
}

for s in $(seq 1 "$seeds"); do
	for mode in trim_on trim_off; do
		if [ $mode = trim_on ]; then kb=32; else kb=0; fi
		"$bin" --ms 2000 --seed "$s" --trim-kb $kb > "$tmp/fake-$mode-$s.json" 2> /dev/null ||
			echo "bench-incast: bench_incast --seed $s --trim-kb $kb failed" >&2
	done
done
for r in $(seq 1 "$reps"); do
	for mode in trim_on trim_off; do
		cfg=$tmp/$mode.ini
		if [ $mode = trim_on ]; then kb=32 tr=true; else kb=0 tr=false; fi
		sed -e "s/^trim_kb = .*/trim_kb = $kb/" -e "s/^trimming = .*/trimming = $tr/" \
			-e "s#^profile = \.\./#profile = $root/config/#" config/bench/incast.ini > "$cfg"
		run_mrcd "$cfg" "$tmp/$mode-$r.json"
	done
done
/usr/bin/python3 - "$tmp" "$reps" "$seeds" <<'PY'
import json, os, statistics, sys
tmp, reps, seeds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
senders, inflight, msg, planes, gbps, mtu = 7, 2, 256 * 1024, 4, 0.25, 4096
hdr, frame, delay_ns, sack = 150, 24, 1000, 150
wire = -(-msg // mtu) * (mtu + hdr + frame)
cap = planes * gbps * 1e9
ser = lambda b: b * 8 / (gbps * 1e9) * 1e6  # us on one link
base_rtt = 4 * (2 * delay_ns / 1e3 + ser(mtu + hdr + frame) + ser(sack + frame))
ideal = senders * inflight * wire * 8 / cap * 1e6 + base_rtt
out = {"bench": "incast", "config": "config/bench/incast.ini", "reps": reps, "seeds": seeds,
       "senders": senders, "in_flight": inflight, "msg_kib": msg // 1024,
       "capacity_gbps": cap / 1e9, "ideal_us": ideal, "base_rtt_us": base_rtt,
       "modes": {}, "daemon": {}}
print(f"ideal fair-share completion time: {ideal:.0f} us (base RTT {base_rtt:.0f} us)")
hdr_line = (f"{'':>6} {'mode':>9} | {'p50 us':>8} {'p99 us':>8} {'max us':>8} | {'p50/ideal':>9} "
            f"{'p99/ideal':>9} {'max/ideal':>9} | {'goodput':>7} {'resent':>7}")
print(hdr_line)
med = statistics.median
for m in ("trim_on", "trim_off"):
    runs = [json.load(open(p)) for p in (f"{tmp}/fake-{m}-{s}.json" for s in range(1, seeds + 1))
            if os.path.exists(p) and os.path.getsize(p)]
    if not runs:
        continue
    res = {"source": "test/bench/bench_incast (fake clock, 2 s of fabric time per seed)"}
    for s in ("p50", "p99", "max"):
        res[f"{s}_us"] = med(x[f"{s}_us"] for x in runs)
        res[f"{s}_over_ideal"] = med(x[f"{s}_over_ideal"] for x in runs)
    res["goodput_gbps"] = med(x["goodput_gbps"] for x in runs)
    res["retransmits"] = med(sum(q["resent"] for q in x["per_sender"]) for x in runs)
    res["trims"] = med(x["fabric_trims"] for x in runs)
    res["drops"] = med(x["fabric_drops"] for x in runs)
    res["packets"] = med(sum(q["pkts"] for q in x["per_sender"]) for x in runs)
    res["jain_10ms_mean"] = med(x["jain_10ms_mean"] for x in runs)
    res["jain_10ms_min"] = med(x["jain_10ms_min"] for x in runs)
    res["msgs"] = med(x["msgs"] for x in runs)
    res["runs"] = runs
    out["modes"][m] = res
    print(f"{'fake':>6} {m:>9} | {res['p50_us']:8.0f} {res['p99_us']:8.0f} {res['max_us']:8.0f} | "
          f"{res['p50_over_ideal']:9.3f} {res['p99_over_ideal']:9.3f} {res['max_over_ideal']:9.3f} | "
          f"{res['goodput_gbps']:7.3f} {res['retransmits']:7.0f}")
for m in ("trim_on", "trim_off"):
    runs = [json.load(open(p)) for p in (f"{tmp}/{m}-{r}.json" for r in range(1, reps + 1))
            if os.path.exists(p) and os.path.getsize(p)]
    if not runs:
        continue
    res = {"source": "mrcd -f config/bench/incast.ini (3 s, wall clock)", "runs": runs}
    for s in ("p50", "p99", "max"):
        res[f"{s}_us"] = med(x["completion_us"][s] for x in runs)
        res[f"{s}_over_ideal"] = med(x["completion_us"][s] / ideal for x in runs)
    res["goodput_gbps"] = med(x["goodput_gbps"] for x in runs)
    res["retransmits"] = med(x["retransmits"] for x in runs)
    res["all_delivered_and_verified"] = all(x["messages"]["lost"] == 0 and x["verify_errors"] == 0
                                            for x in runs)
    out["daemon"][m] = res
    print(f"{'mrcd':>6} {m:>9} | {res['p50_us']:8.0f} {res['p99_us']:8.0f} {res['max_us']:8.0f} | "
          f"{res['p50_over_ideal']:9.3f} {res['p99_over_ideal']:9.3f} {res['max_over_ideal']:9.3f} | "
          f"{res['goodput_gbps']:7.3f} {res['retransmits']:7.0f}")
json.dump(out, open("results/bench-incast.json", "w"), indent=1)
PY
/usr/bin/python3 scripts/plot-bench.py incast results/bench-incast.json results/bench-incast.png
echo "bench-incast: wrote results/bench-incast.json and results/bench-incast.png"
