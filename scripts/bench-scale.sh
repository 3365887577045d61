#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# Scale (issue 6, item 7): memory per idle and per active QP, and 1k, 10k
# and 64k QP pairs on one core with traffic spread over all of them (256
# pairs in flight at a time, each pair idle -> active -> idle in turn; 4 x
# 1 KiB packets per message; lib/qp with packets handed straight across, as
# bench-qp). Per scale: packets per CPU-second and message completion p50 /
# p99. A scale whose QPs would not fit in MEM_MB (default 2048) of DPDK heap
# is not run and is recorded with what it would need.
# Writes results/bench-scale.json.
# Usage: scripts/bench-scale.sh [BUILD_DIR]   (MEM_MB=2048 RUNS=3)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
bin=$build/test/bench/bench_scale
[ -x "$bin" ] || { echo "bench-scale: $bin not built (ninja -C $build)" >&2; exit 1; }
mem=${MEM_MB:-2048}
runs=${RUNS:-3}
mkdir -p results
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for n in 1000 10000 65536; do
	for r in $(seq "$runs"); do
		"$bin" --qps "$n" --active 256 --pkts 400000 --mem-mb "$mem" > "$tmp/$n.$r.json"
	done
	echo "bench-scale: $n QP pairs: $(cat "$tmp/$n.1.json")"
done
/usr/bin/python3 - "$tmp" "$runs" <<'PY'
import json, statistics, sys
tmp, runs = sys.argv[1], int(sys.argv[2])
scales, skipped, first = [], [], None
for n in (1000, 10000, 65536):
    rs = [json.load(open(f"{tmp}/{n}.{r}.json")) for r in range(1, runs + 1)]
    first = first or rs[0]
    if not rs[0]["fits"]:
        skipped.append({"qp_pairs": n, "need_mb": rs[0]["need_mb"], "mem_mb": rs[0]["mem_mb"]})
        continue
    m = {k: statistics.median(x[k] for x in rs)
         for k in ("pps", "ns_per_pkt", "msg_us_p50", "msg_us_p99", "heap_bytes_per_qp")}
    m.update({k: rs[0][k] for k in ("qp_pairs", "active_pairs", "payload_bytes", "msg_pkts",
                                    "pairs_touched")})
    scales.append(m)
out = {"bench": "scale", "runs": runs,
       "bytes_per_idle_qp": first["bytes_per_idle_qp"],
       "bytes_per_active_qp": first.get("bytes_per_active_qp", first["bytes_per_idle_qp"]),
       "bytes_per_qp_steps": {k: first.get(f"bytes_per_qp_{k}") for k in
                              ("created", "init", "rtr")},
       "heap_bytes_per_qp": first["heap_bytes_per_qp"],
       "scales": scales, "not_fitting": skipped}
json.dump(out, open("results/bench-scale.json", "w"), indent=1)
for s in skipped:
    print(f"bench-scale: {s['qp_pairs']} QP pairs: not run, would need {s['need_mb']:.0f} MB "
          f"(MEM_MB={s['mem_mb']})")
print(f"bench-scale: {out['bytes_per_idle_qp']} bytes per idle QP, "
      f"{out['bytes_per_active_qp']} per active QP; wrote results/bench-scale.json")
PY
