#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
"""Medians of scripts/bench/bench-scale.sh's runs (lib/qp at each scale, with
and without lent rings, and the daemon) into results/bench-scale.json.

    scale_summary.py TMPDIR RUNS
"""
import json, os, statistics, sys
tmp, runs = sys.argv[1], int(sys.argv[2])
slow_us = int(os.environ.get("SLOW_US", "50"))
cold = int(os.environ.get("COLD_BUFFERS", "0"))
sweep = [int(f) for f in os.environ.get("SWEEP", "").split()]
FIXED = (128, 1024, 10000, 65536)  # the goal's flow counts; the others are the sweep's
MED = ("pps", "ns_per_pkt", "msg_us_p50", "msg_us_p99", "heap_bytes_per_qp")
ONE = ("qp_pairs", "active_pairs", "payload_bytes", "msg_pkts", "pairs_touched",
       "bytes_per_qp_with_pool")
SUM = ("trk_waits", "retx_pkts", "trk_lent")

def collect(prefix):
    scales, skipped, first = [], [], None
    for n in (1000, 10000, 65536):
        rs = [json.load(open(f"{tmp}/{prefix}{n}.{r}.json")) for r in range(1, runs + 1)]
        first = first or rs[0]
        if not rs[0]["fits"]:
            skipped.append({"qp_pairs": n, "need_mb": rs[0]["need_mb"],
                            "mem_mb": rs[0]["mem_mb"]})
            continue
        m = {k: statistics.median(x[k] for x in rs) for k in MED}
        m.update({k: rs[0][k] for k in ONE})
        m.update({k: sum(x[k] for x in rs) for k in SUM})
        m["trk_max_in_use"] = max(x["trk_max_in_use"] for x in rs)
        scales.append(m)
    return first, scales, skipped

def daemon(delay):
    """mrcd at each flow count with [lcores] pass_delay_us = delay: medians over the runs that
    completed, and messages per worker CPU-second against the same setting's 128 flows. On the
    worker as it is, the SWEEP flow counts too, in flow order (\"sweep\": true, no goal). Last,
    when run, 128 flows each cycling through `cold` message buffers (\"buffers\": cold)."""
    res = []
    counts = sorted(set(FIXED) | (set(sweep) if delay == 0 else set()))
    for f, bufs in [(f, 0) for f in counts] + ([(128, cold)] if cold else []):
        rs = []
        name = f"{f}b{bufs}" if bufs else f"{f}"
        for r in range(1, runs + 1):
            try:
                rs.append(json.load(open(f"{tmp}/mrcd-d{delay}-{name}.{r}.json")))
            except (OSError, ValueError):
                pass
        if not rs:
            res.append({"flows": f, "buffers": bufs, "runs": 0,
                        "sweep": f not in FIXED})
            continue
        med = lambda get: statistics.median(get(x) for x in rs)
        res.append({"flows": f, "buffers": bufs, "runs": len(rs), "qps": rs[0]["qps"],
                    "sweep": f not in FIXED,
                    # per worker CPU-second: the worker polls without pause
                    "msgs_per_cpu_s": med(lambda x: x["messages"]["completed"] /
                                          x["worker_cpu_s"]),
                    "msgs_per_s": med(lambda x: x["msgs_per_s"]),
                    "msg_us_p50": med(lambda x: x["completion_us"]["p50"]),
                    "msg_us_p99": med(lambda x: x["completion_us"]["p99"]),
                    "heap_bytes_per_qp": med(lambda x: x["heap_bytes_per_qp"]),
                    "qp_state_bytes_per_qp": med(lambda x: x["qp_state_bytes_per_qp"]),
                    "peak_rss_bytes_per_qp": med(lambda x: x["peak_rss_bytes"] / x["qps"]),
                    "retransmits": med(lambda x: x["retransmits"]),
                    "data_pkts_sent": med(lambda x: x["data_pkts_sent"]),
                    # on loop ports nothing is lost: every resend is spurious
                    "resend_share": med(lambda x: x["retransmits"] / max(x["data_pkts_sent"], 1)),
                    "spurious_losses": med(lambda x: x["spurious_losses"]),
                    "worker_cpu_share": med(lambda x: x["worker_cpu_share"]),
                    "all_delivered_and_verified": all(
                        x["messages"]["lost"] == 0 and x["messages"]["failed"] == 0 and
                        x["verify_errors"] == 0 for x in rs),
                    "flows_without_completion": max(x["flows_without_completion"] for x in rs)})
    base = res[0].get("msgs_per_cpu_s")
    for d in res:
        if base and d.get("runs"):
            d["ratio_to_128_flows"] = d["msgs_per_cpu_s"] / base
    return res
first, scales, skipped = collect("")
rfirst, rscales, rskipped = collect("ref-")
out = {"bench": "scale", "runs": runs,
       "bytes_per_idle_qp": first["bytes_per_idle_qp"],
       "bytes_per_active_qp": first.get("bytes_per_active_qp", first["bytes_per_idle_qp"]),
       "bytes_per_qp_steps": {k: first.get(f"bytes_per_qp_{k}") for k in
                              ("created", "init", "rtr")},
       "idle_qp_parts": first.get("idle_qp_parts"),
       "imm_table_bytes": first.get("imm_table_bytes"),
       "heap_bytes_per_qp": first["heap_bytes_per_qp"],
       "trk_pool": {k: first.get(k) for k in ("trk_blocks", "trk_block_bytes",
                                              "trk_pool_bytes")},
       "scales": scales, "not_fitting": skipped,
       "reference_private_rings": {"bytes_per_idle_qp": rfirst["bytes_per_idle_qp"],
                                   "idle_qp_parts": rfirst.get("idle_qp_parts"),
                                   "heap_bytes_per_qp": rfirst["heap_bytes_per_qp"],
                                   "scales": rscales, "not_fitting": rskipped},
       "daemon": {"config": "config/examples/scale.ini",
                  "profile": "config/profiles/scale-64k.ini", "scales": daemon(0),
                  "slowed": {"pass_delay_us": slow_us, "scales": daemon(slow_us)}}}
json.dump(out, open("results/bench-scale.json", "w"), indent=1)
for s in skipped:
    print(f"bench-scale: {s['qp_pairs']} QP pairs: not run, would need {s['need_mb']:.0f} MB "
          f"(MEM_MB={s['mem_mb']})")
for s in rskipped:
    print(f"bench-scale: {s['qp_pairs']} QP pairs with private rings: not run, would need "
          f"{s['need_mb']:.0f} MB (MEM_MB={s['mem_mb']})")
ref = {s["qp_pairs"]: s for s in rscales}
for s in scales:
    r = ref.get(s["qp_pairs"])
    vs = f"; private rings {r['pps']:.0f} pps (ratio {s['pps'] / r['pps']:.2f})" if r else ""
    print(f"bench-scale: {s['qp_pairs']} pairs: {s['pps']:.0f} pps, message p50 "
          f"{s['msg_us_p50']:.0f} us, p99 {s['msg_us_p99']:.0f} us, waits {s['trk_waits']}, "
          f"resends {s['retx_pkts']}{vs}")
for label, ds in (("", out["daemon"]["scales"]),
                  (f", worker slowed {slow_us} us a pass", out["daemon"]["slowed"]["scales"])):
    for d in ds:
        bufs = f", {d['buffers']} buffers each" if d.get("buffers") else ""
        if not d["runs"]:
            print(f"bench-scale: mrcd{label}, {d['flows']} flows{bufs}: no run completed")
            continue
        print(f"bench-scale: mrcd{label}, {d['flows']} flows{bufs} ({d['qps']} QPs): "
              f"{d['msgs_per_cpu_s']:.0f} messages per worker CPU-second "
              f"({d.get('ratio_to_128_flows', 0):.2f} of 128 flows), p50 {d['msg_us_p50']:.0f} "
              f"us, p99 {d['msg_us_p99']:.0f} us, heap {d['heap_bytes_per_qp']:.0f} B per QP, "
              f"resends {d['retransmits']:.0f} ({100 * d['resend_share']:.3f}% of data packets), "
              f"flows that never completed {d['flows_without_completion']}, all verified: "
              f"{d['all_delivered_and_verified']}")
parts = out["idle_qp_parts"] or {}
print("bench-scale: idle QP by part: " + ", ".join(f"{k} {v}" for k, v in parts.items() if v))
print(f"bench-scale: {out['bytes_per_idle_qp']} bytes per idle QP "
      f"(private rings: {rfirst['bytes_per_idle_qp']}), {out['bytes_per_active_qp']} per active "
      f"QP; wrote results/bench-scale.json")
