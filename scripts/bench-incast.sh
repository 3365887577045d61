#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# Incast tail (issue 6, item 6): 7:1 incast on the daemon
# (config/bench/incast.ini: 8 hosts x 4 planes of 0.25 Gb/s, hosts 1..7
# each write 256 KiB messages to host 0 with 2 in flight, every byte
# verified), trimming on ([fabric] trim_kb = 32, [cc] trimming = true)
# against off (trim_kb = 0: tail drop at the 64 KB queue limit, trimming =
# false). Figures: p50, p99 and max message completion time (post to
# completion, the daemon's histogram: 16 buckets per octave, a percentile
# is its bucket's upper edge, so up to 6% high) divided by the ideal fair
# share:
#
#   ideal = senders x in flight x message wire bytes / C + base RTT
#
# C = planes x link rate is host 0's last-hop capacity, the bottleneck;
# with a fair 1/7 share each sender's QP moves one message per
# 2 x 7 x message / C, and a message waits for the one posted before it,
# so post-to-completion takes `in flight` of those. Wire bytes per 4 KiB
# packet: 4096 + 150 of headers (SRv6, inner IPv6, UDP, BTH, METH, RETH,
# ICRC) + 24 of framing. The machine is shared: each repetition runs both
# cases back to back; medians over REPS repetitions. Writes
# results/bench-incast.json and results/bench-incast.png.
# Usage: scripts/bench-incast.sh [BUILD_DIR] [REPS]
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
build=${1:-build}
reps=${2:-3}
mrcd=$root/$build/app/mrcd/mrcd
[ -x "$mrcd" ] || { echo "bench-incast: $mrcd not built (ninja -C $build)" >&2; exit 1; }
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

for r in $(seq 1 "$reps"); do
	for mode in trim_on trim_off; do
		cfg=$tmp/$mode.ini
		if [ $mode = trim_on ]; then kb=32 tr=true; else kb=0 tr=false; fi
		sed -e "s/^trim_kb = .*/trim_kb = $kb/" -e "s/^trimming = .*/trimming = $tr/" \
			-e "s#^profile = \.\./#profile = $root/config/#" config/bench/incast.ini > "$cfg"
		run_mrcd "$cfg" "$tmp/$mode-$r.json"
	done
done
/usr/bin/python3 - "$tmp" "$reps" <<'PY'
import json, os, statistics, sys
tmp, reps = sys.argv[1], int(sys.argv[2])
senders, inflight, msg, planes, gbps, mtu = 7, 2, 256 * 1024, 4, 0.25, 4096
hdr, frame, delay_ns, sack = 150, 24, 1000, 150
wire = -(-msg // mtu) * (mtu + hdr + frame)
cap = planes * gbps * 1e9
ser = lambda b: b * 8 / (gbps * 1e9) * 1e6  # us on one link
base_rtt = 4 * (2 * delay_ns / 1e3 + ser(mtu + hdr + frame) + ser(sack + frame))
ideal = senders * inflight * wire * 8 / cap * 1e6 + base_rtt
out = {"bench": "incast", "config": "config/bench/incast.ini", "reps": reps, "senders": senders,
       "in_flight": inflight, "msg_kib": msg // 1024, "capacity_gbps": cap / 1e9,
       "ideal_us": ideal, "base_rtt_us": base_rtt, "modes": {}}
print(f"ideal fair-share completion time: {ideal:.0f} us (base RTT {base_rtt:.0f} us)")
print(f"{'mode':>9} | {'p50 us':>8} {'p99 us':>8} {'max us':>8} | {'p50/ideal':>9} {'p99/ideal':>9} "
      f"{'max/ideal':>9} | {'goodput':>7} {'resent':>7}")
for m in ("trim_on", "trim_off"):
    runs = [json.load(open(p)) for p in (f"{tmp}/{m}-{r}.json" for r in range(1, reps + 1))
            if os.path.exists(p) and os.path.getsize(p)]
    if not runs:
        continue
    res = {"runs": runs}
    for s in ("p50", "p99", "max"):
        res[f"{s}_us"] = statistics.median(x["completion_us"][s] for x in runs)
        res[f"{s}_over_ideal"] = statistics.median(x["completion_us"][s] / ideal for x in runs)
    res["goodput_gbps"] = statistics.median(x["goodput_gbps"] for x in runs)
    res["retransmits"] = statistics.median(x["retransmits"] for x in runs)
    res["all_delivered_and_verified"] = all(x["messages"]["lost"] == 0 and x["verify_errors"] == 0
                                            for x in runs)
    out["modes"][m] = res
    print(f"{m:>9} | {res['p50_us']:8.0f} {res['p99_us']:8.0f} {res['max_us']:8.0f} | "
          f"{res['p50_over_ideal']:9.3f} {res['p99_over_ideal']:9.3f} {res['max_over_ideal']:9.3f} | "
          f"{res['goodput_gbps']:7.3f} {res['retransmits']:7.0f}")
json.dump(out, open("results/bench-incast.json", "w"), indent=1)
PY
/usr/bin/python3 scripts/plot-bench.py incast results/bench-incast.json results/bench-incast.png
echo "bench-incast: wrote results/bench-incast.json and results/bench-incast.png"
