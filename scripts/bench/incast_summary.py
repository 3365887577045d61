#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
"""The ideal fair share and the medians of scripts/bench/bench-incast.sh's runs
(fake clock and daemon) into results/bench-incast.json, and its table.

    incast_summary.py TMPDIR REPS SEEDS
"""
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
