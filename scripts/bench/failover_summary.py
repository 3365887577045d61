#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
"""Medians of scripts/bench/bench-failover.sh's runs into results/bench-failover.json,
and its tables.

    failover_summary.py TMPDIR SEEDS "FAULT ..."
"""
import json, statistics, sys
tmp, seeds, faults = sys.argv[1], int(sys.argv[2]), sys.argv[3].split()
load = lambda p: json.load(open(p))
med = lambda v: statistics.median(v) if v else None
keys = ["ev_retired_us", "recovered_us", "stall_msg_us", "stall_msg_qp_us", "stall_pkt_us",
        "goodput_before_gbps", "goodput_after_gbps"]
ref = load(f"{tmp}/none-1.json")
out = {"bench": "failover", "tool": "test/bench/bench_failover", "seeds": seeds,
       "qps": ref["qps"], "outstanding": ref["outstanding"], "msg_bytes": ref["msg_bytes"],
       "link_gbps": 100, "planes": 8, "t1s": 4, "fault_us": ref["fault_us"],
       "bin_us": ref["bin_us"], "hold_us": ref["hold_us"], "goal_recovered_us": 100,
       "no_fault": {k: ref[k] for k in ("goodput_before_gbps", "stall_msg_before_us",
                                        "stall_pkt_before_us", "msgs_lost")},
       "faults": {}}
print(f"{'fault':>9} | {'EV retired':>10} | {'recovered':>9} | {'stall msg':>9} | "
      f"{'stall QP':>8} | {'stall pkt':>9} | lost | verified MiB | resent")
for f in faults:
    runs = [load(f"{tmp}/{f}-{s}.json") for s in range(1, seeds + 1)]
    r = {k: med([x[k] for x in runs if x[k] >= 0]) for k in keys}
    r["recovered_all"] = all(x["recovered"] for x in runs)
    r["surviving_fraction"] = runs[0]["surviving_fraction"]
    r["msgs_lost"] = sum(x["msgs_lost"] for x in runs)
    r["verify_errors"] = sum(x["verify_errors"] for x in runs)
    r["bytes_verified"] = sum(x["bytes_verified"] for x in runs)
    r["resent_pkts"] = med([x["after_fault"]["resent_pkts"] for x in runs])
    r["fabric_dropped_at_fault"] = med([x["after_fault"]["fabric_dropped_at_fault"] for x in runs])
    r["runs"] = [{k: x[k] for k in keys + ["seed", "plane", "t1", "msgs_lost"]} for x in runs]
    r["series_gbps"] = runs[0]["series_gbps"]
    r["target_gbps"] = runs[0]["target_gbps"]
    out["faults"][f] = r
    print(f"{f:>9} | {r['ev_retired_us']:8.1f}us | {r['recovered_us']:7.1f}us | "
          f"{r['stall_msg_us']:7.1f}us | {r['stall_msg_qp_us']:6.1f}us | {r['stall_pkt_us']:7.1f}us |"
          f" {r['msgs_lost']:4d} | {r['bytes_verified'] / 2**20:12.0f} | {r['resent_pkts']}")
out["outstanding_4"] = {}
print("with 4 messages in flight per QP instead of 8:")
for f in faults:
    runs = [load(f"{tmp}/o4-{f}-{s}.json") for s in range(1, seeds + 1)]
    r = {k: med([x[k] for x in runs if x[k] >= 0]) for k in keys}
    r["msgs_lost"] = sum(x["msgs_lost"] for x in runs)
    r["verify_errors"] = sum(x["verify_errors"] for x in runs)
    r["srtt_us"] = med([x["qp0_at_fault"]["srtt_us"] for x in runs])
    r["reorder_window_us"] = med([x["qp0_at_fault"]["reorder_window_us"] for x in runs])
    out["outstanding_4"][f] = r
    print(f"{f:>9} | {r['ev_retired_us']:8.1f}us | {r['recovered_us']:7.1f}us | "
          f"{r['stall_msg_us']:7.1f}us | {r['stall_msg_qp_us']:6.1f}us | {r['stall_pkt_us']:7.1f}us |"
          f" {r['msgs_lost']:4d} | srtt {r['srtt_us']} us, reorder window {r['reorder_window_us']} us")
for f in faults:
    x = load(f"{tmp}/{f}-1.json")
    out["faults"][f]["srtt_us"] = x["qp0_at_fault"]["srtt_us"]
    out["faults"][f]["reorder_window_us"] = x["qp0_at_fault"]["reorder_window_us"]
for f in ("plane-bh", "link"):
    x = load(f"{tmp}/long-{f}.json")
    out["faults"][f]["steady"] = dict(x["steady"], after_us=x["after_us"],
                                      resent_pkts=x["after_fault"]["resent_pkts"],
                                      plane_outs=x["after_fault"].get("plane_outs"))
    print(f"{f:>9}: from {x['steady']['from_us_after_fault']:.0f} us to {x['after_us']} us after "
          f"the fault: {x['steady']['ev_probes_per_s']:.0f} EV probes/s, "
          f"{x['steady']['fabric_drops_per_s']:.0f} packets/s dropped there; "
          f"{x['after_fault']['resent_pkts']} data packets resent in all")
json.dump(out, open("results/bench-failover.json", "w"), indent=1)
