#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
"""SRv6 encap by the NIC against software headers, same run (bench-encap.sh).

Alternates the two modes RUNS times on the emulated fabric (the demo
config, SRv6, links fast enough that the CPU is the bottleneck) and
prints medians: goodput, goodput per worker CPU-second, and the cycles
a packet costs in the workers' output step (where packets are built;
from the engine's per-step counters, the fabric's work excluded). The
fabric plays the NIC on the same CPU, so goodput per CPU-second counts
the NIC's encap as CPU work too; the output step does not.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys


def run(build, mode, seconds, lock, out):
    cmd = [os.path.join(build, "app", "mrcd", "mrcd"), "--", "-f", "config/mrcd.ini",
           "--duration", str(seconds), "--set", "telemetry.timeseries=none",
           "--set", "telemetry.prometheus=none", "--set", "transport.encap=srv6",
           "--set", f"ports.encap_offload={mode}", "--set", "fabric.link_gbps=100",
           "--json", out]
    if lock:
        cmd = ["flock", lock] + cmd
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(out) as f:
        s = json.load(f)
    cpu = sum(s["worker_cpu_s_each"])
    out_cyc = sum(sh["cycles"] * sh["share"]["output"] for sh in s["shards"])
    sent = sum(sum(sh["plane_tx_pkts"]) for sh in s["shards"])
    nic = sum(e["nic"] for e in s["encap_pkts"])
    if s["verify_errors"] or s["messages"]["failed"]:
        sys.exit(f"bench-encap: {mode}: {s['verify_errors']} verify errors, {s['messages']}")
    return {"goodput_gbps": s["goodput_gbps"], "gbps_per_cpu_s": s["goodput_gbps"] / cpu,
            "output_cycles_per_pkt": out_cyc / sent if sent else 0, "pkts_sent": sent,
            "pkts_by_rules": nic}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seconds", type=int, default=3)
    ap.add_argument("--lock")
    a = ap.parse_args()
    res = {"off": [], "auto": []}
    for r in range(a.runs):
        for mode in ("off", "auto"):
            res[mode].append(run(a.build, mode, a.seconds, a.lock, f"/tmp/bench-encap-{mode}.json"))
            print(f"bench-encap: round {r + 1} {mode}: {res[mode][-1]}", flush=True)
    med = {m: {k: statistics.median(x[k] for x in v) for k in v[0]} for m, v in res.items()}
    ratio = {k: med["auto"][k] / med["off"][k] for k in
             ("goodput_gbps", "gbps_per_cpu_s", "output_cycles_per_pkt") if med["off"][k]}
    for m, name in (("off", "software"), ("auto", "NIC (emulated)")):
        x = med[m]
        print(f"bench-encap: headers by {name:15s}: {x['goodput_gbps']:.3f} Gb/s, "
              f"{x['gbps_per_cpu_s']:.3f} Gb/s per worker CPU-s, "
              f"{x['output_cycles_per_pkt']:.0f} output cycles/pkt, "
              f"{x['pkts_by_rules']:.0f} of {x['pkts_sent']:.0f} pkts by rules")
    print("bench-encap: NIC / software: " +
          ", ".join(f"{k} {v:.3f}" for k, v in ratio.items()))
    os.makedirs("results", exist_ok=True)
    with open("results/bench-encap.json", "w") as f:
        json.dump({"runs": res, "median": med, "ratio_nic_over_software": ratio,
                   "seconds": a.seconds, "load_avg": os.getloadavg()}, f, indent=1)


if __name__ == "__main__":
    main()
