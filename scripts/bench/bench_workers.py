#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
"""Goodput and packet rate with 1 and 2 workers per host. Driven by
scripts/bench/bench-workers.sh; see there for what is measured.

Each round runs, one after the other: main's mrcd (when --main-build is
given) and this tree's with one worker for both hosts, then this tree's
with two workers per host on two workers, with software steering and with
(emulated) flow steering. Ratios are taken within
a round; medians over rounds are reported. Rates per CPU-second divide by
the CPU time the worker threads got, goodput by wall time.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile


def log(msg):
    print(f"bench-workers: {msg}", flush=True)


def write_cfg(tmp, mtu, msg_kb, outstanding, qps):
    prof = os.path.join(tmp, "profile.ini")
    with open(prof, "w") as f:
        f.write("[profile]\npattern = pairs\n"
                f"msg_kb = {msg_kb}\noutstanding = {outstanding}\nqps_per_peer = {qps}\n"
                "opcode = write_imm\nverify = false\n")
    cfg = os.path.join(tmp, "loop.ini")
    with open(cfg, "w") as f:
        f.write(f"[daemon]\nhosts = 2\nplanes = 8\nprofile = {prof}\nscenario = none\n"
                "drain_ms = 5000\n[ports]\nmode = loop\n"
                f"[transport]\nencap = plain\nmtu = {mtu}\n"
                "[telemetry]\nconsole = false\ntimeseries = none\nprometheus = none\n")
    return cfg


# Each variant: the build ("main" or "tree"), EAL lcores (main's lcore and the
# workers'), and the keys over the config. The main lcore wakes about every
# millisecond when idle (it woke every 200 us: 8-11% of the CPU it shares)
# and the stats thread (a control thread: it follows the main lcore's CPU when
# the workers take every CPU) every 10 ms; together about 3-4% of the CPU
# they share, most of it the cost of waking, not the work. With two workers
# they share worker 1's: under software steering worker 0 reads every packet
# of this bench (RSS puts both host pairs on queue 0) and worker 1 only what
# it is passed, so worker 1 is the one with room for them. With one worker
# they have CPU 0 and the worker CPU 1, as before.
VARIANTS = {
    "main_1w": ("main", "0@0,1@1", []),
    "tree_1w": ("tree", "0@0,1@1", []),
    "tree_2w_soft": ("tree", "0@1,1@0,2@1",
                     ["lcores.workers=2", "lcores.workers_per_host=2", "lcores.peer_shard=half",
                      "ports.steering=software"]),
    # Flow rules need a per-worker address, so SRv6 (the emulated NIC shifts the
    # micro-SIDs the switches would): a few more header bytes per packet.
    "tree_2w_flow": ("tree", "0@1,1@0,2@1",
                     ["lcores.workers=2", "lcores.workers_per_host=2", "lcores.peer_shard=half",
                      "ports.steering=flow", "transport.encap=srv6"]),
}
MAPPING = {
    "main_1w": "main lcore 0 on CPU 0, worker 0 (both hosts) on CPU 1",
    "tree_1w": "main lcore 0 on CPU 0, worker 0 (both hosts) on CPU 1",
    "tree_2w_soft": "worker 0 (shard 0 of both hosts, which reads their queues) on CPU 0, "
                    "main lcore 0, the stats thread and worker 1 (shard 1 of both hosts) on CPU 1",
    "tree_2w_flow": "worker 0 (shard 0 of both hosts) on CPU 0, "
                    "main lcore 0, the stats thread and worker 1 (shard 1 of both hosts) on CPU 1",
}


def run(mrcd, cfg, lcores, sets, seconds, out_json, lock):
    cmd = ([] if not lock else ["flock", lock]) + [mrcd, f"--lcores={lcores}", "--", "-f",
                                                    cfg, "--duration", str(seconds)]
    for s in sets:
        cmd += ["--set", s]
    cmd += ["--json", out_json]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=seconds + 600)
    if r.returncode != 0 or not os.path.exists(out_json):
        raise RuntimeError(f"mrcd failed ({r.returncode}): {' '.join(cmd)}\n{r.stdout[-2000:]}")
    with open(out_json) as f:
        s = json.load(f)
    wall = s["duration_s"]
    cpu = s["worker_cpu_s"]
    row = {"goodput_gbps": s["goodput_gbps"],
           "pps_wall": s["data_pkts_placed"] / (s["duration_s"] + s["drain_s"]),
           "gbps_per_cpu_s": s["data_bytes_placed"] * 8 / cpu / 1e9,
           "pps_per_cpu_s": s["data_pkts_placed"] / cpu,
           "worker_cpu_s": cpu, "wall_s": wall, "retransmits": s["retransmits"],
           # The least CPU any worker got, as a share of the run: well under 1, the
           # worker shared its CPU (with the main lcore, or with whatever else ran).
           "worker_cpu_share_min": min(s.get("worker_cpu_s_each") or [cpu]) /
                                   (wall + s["drain_s"]),
           "lost": s["messages"]["lost"]}
    # The main lcore, the stats thread and the rest share worker 0's CPU (2 workers) or
    # have CPU 0 (1 worker): what they took while the workers ran, as a share of the run.
    if "process_cpu_s" in s:
        row["others_cpu_s"] = max(s["process_cpu_s"] - cpu, 0.0)
        row["others_share"] = row["others_cpu_s"] / (wall + s["drain_s"])
    if "shards" in s:
        sh = s["shards"]
        hz = s["tsc_hz"]
        each = s["worker_cpu_s_each"]
        row["crossed_pkts"] = sum(x["rx_dispatched_out"] for x in sh)
        row["rx_pkts"] = sum(x["rx_pkts"] for x in sh)
        row["dispatch_drops"] = sum(x["rx_dispatch_full"] for x in sh)
        # The dispatch share of each worker's cycles: its shards' dispatch cycles
        # (passing packets on, taking and re-parsing them) over the TSC cycles of
        # the run. Both are wall-clock TSC, so time the worker was descheduled
        # counts on both sides (dividing by its CPU time would count it only on top).
        run_cyc = (s["duration_s"] + s["drain_s"]) * hz
        shares = []
        for w in range(len(each)):
            cyc = sum(x["cyc_dispatch"] for x in sh if x["worker"] == w)
            shares.append(cyc / run_cyc if run_cyc > 0 else 0.0)
        row["dispatch_share_of_worker"] = shares
        row["dispatch_share_of_shard_max"] = max(x["share"]["dispatch"] for x in sh)
    return row


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--main-build", default="", help="a build of main, for the same-run ratio")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seconds", type=int, default=3)
    ap.add_argument("--lock", default="", help="flock this file around each mrcd run")
    ap.add_argument("--out", default="results/bench-workers.json")
    a = ap.parse_args()
    bins = {"tree": os.path.join(a.build, "app/mrcd/mrcd")}
    if a.main_build:
        bins["main"] = os.path.join(a.main_build, "app/mrcd/mrcd")
    for b in bins.values():
        if not os.access(b, os.X_OK):
            sys.exit(f"bench-workers: {b} not built")
    if os.cpu_count() < 2:
        log("needs 2 CPUs; skipping")
        sys.exit(77)
    shape = {"mtu": 4096, "msg_kb": 1024, "outstanding": 4, "qps": 4}
    rounds = []
    with tempfile.TemporaryDirectory(prefix="bench-workers.") as tmp:
        cfg = write_cfg(tmp, **shape)
        for r in range(a.runs):
            row = {}
            for name, (which, lcores, sets) in VARIANTS.items():
                if which not in bins:
                    continue
                try:
                    row[name] = run(bins[which], cfg, lcores, sets, a.seconds,
                                    os.path.join(tmp, f"{name}.json"), a.lock)
                except (RuntimeError, subprocess.TimeoutExpired) as e:
                    log(f"round {r + 1}: {name}: {e}")
                    row = None
                    break
            if row is None:
                continue
            for name, x in row.items():
                if x["worker_cpu_share_min"] < 0.8:  # the main lcore takes ~4%
                    log(f"round {r + 1}: {name}: a worker got only "
                        f"{x['worker_cpu_share_min']:.0%} of the run's CPU: other processes "
                        "shared its CPU, and its figures measure that")
            one = row["tree_1w"]["goodput_gbps"]
            row["ratio_2w_over_1w"] = row["tree_2w_soft"]["goodput_gbps"] / one if one else None
            row["ratio_2w_flow_over_1w"] = (row["tree_2w_flow"]["goodput_gbps"] / one
                                            if one else None)
            if "main_1w" in row and row["main_1w"]["goodput_gbps"]:
                row["ratio_1w_over_main"] = one / row["main_1w"]["goodput_gbps"]
                row["ratio_1w_over_main_per_cpu_s"] = (row["tree_1w"]["gbps_per_cpu_s"] /
                                                      row["main_1w"]["gbps_per_cpu_s"])
            rounds.append(row)
            t = row["tree_2w_soft"]
            log(f"round {r + 1}: goodput 1 worker {one:.2f} Gb/s"
                + (f" (main {row['main_1w']['goodput_gbps']:.2f})" if "main_1w" in row else "")
                + f", 2 workers per host {t['goodput_gbps']:.2f} Gb/s "
                f"(x{row['ratio_2w_over_1w']:.2f}); {t['crossed_pkts']} of {t['rx_pkts']} "
                f"packets crossed workers; dispatch {max(t['dispatch_share_of_worker']):.1%} "
                f"of a worker's cycles at most")
    if not rounds:
        sys.exit("bench-workers: no round completed")
    summary = {}
    for name in VARIANTS:
        rows = [r[name] for r in rounds if name in r]
        if not rows:
            continue
        summary[name] = {k: med([x[k] for x in rows]) for k in
                         ("goodput_gbps", "pps_wall", "gbps_per_cpu_s", "pps_per_cpu_s",
                          "worker_cpu_s", "worker_cpu_share_min", "retransmits", "lost")}
        summary[name]["lcores"] = MAPPING[name]
        if "others_cpu_s" in rows[0]:
            summary[name]["others_cpu_s"] = med([x.get("others_cpu_s") for x in rows])
            summary[name]["others_share"] = med([x.get("others_share") for x in rows])
        if "crossed_pkts" in rows[0]:
            summary[name]["crossed_pkts"] = med([x["crossed_pkts"] for x in rows])
            summary[name]["crossed_share"] = med(
                [x["crossed_pkts"] / x["rx_pkts"] for x in rows if x["rx_pkts"]])
            summary[name]["dispatch_share_of_worker_max"] = med(
                [max(x["dispatch_share_of_worker"]) for x in rows])
            summary[name]["dispatch_share_of_shard_max"] = med(
                [x["dispatch_share_of_shard_max"] for x in rows])
    out = {"bench": "workers", "shape": shape, "seconds": a.seconds, "runs": len(rounds),
           "summary": summary,
           "ratio_2w_over_1w": med([r.get("ratio_2w_over_1w") for r in rounds]),
           "ratio_2w_flow_over_1w": med([r.get("ratio_2w_flow_over_1w") for r in rounds]),
           "ratio_1w_over_main": med([r.get("ratio_1w_over_main") for r in rounds]),
           "ratio_1w_over_main_per_cpu_s": med([r.get("ratio_1w_over_main_per_cpu_s")
                                                for r in rounds]),
           "load_avg_1min": os.getloadavg()[0],
           "goals": {"ratio_2w_over_1w": ">= 1.7", "dispatch_share_of_worker": "< 0.15",
                     "ratio_1w_over_main": "within 5%"},
           "dispatch_share_note": "dispatch TSC cycles of a worker's shards over the run's TSC "
                                  "cycles",
           "rounds": rounds}
    os.makedirs(os.path.dirname(a.out) or ".", exist_ok=True)
    with open(a.out, "w") as f:
        json.dump(out, f, indent=1)
    for name, s in summary.items():
        log(f"{name}: {s['goodput_gbps']:.2f} Gb/s goodput, {s['pps_wall'] / 1e6:.3f} Mpps, "
            f"{s['gbps_per_cpu_s']:.1f} Gb/s and {s['pps_per_cpu_s'] / 1e6:.3f} Mpps per worker "
            f"CPU-second ({s['lcores']})")
    log(f"2 workers / 1 worker goodput: x{out['ratio_2w_over_1w']:.2f} with software "
        f"steering, x{out['ratio_2w_flow_over_1w']:.2f} with (emulated) flow steering "
        "(goal >= 1.7)")
    if out["ratio_1w_over_main"] is not None:
        log(f"1 worker, this tree / main: {out['ratio_1w_over_main']:.3f} in goodput, "
            f"{out['ratio_1w_over_main_per_cpu_s']:.3f} per worker CPU-second (goal within 5%)")
    t = summary["tree_2w_soft"]
    if "others_share" in t:
        log(f"main lcore, stats and other threads: {t['others_share']:.1%} of a CPU during the "
            f"run (2 workers: on worker 1's CPU); the least CPU a worker got: "
            f"{t['worker_cpu_share_min']:.1%} of the run")
    log(f"software dispatch: {t['crossed_share']:.1%} of packets crossed workers, "
        f"{t['dispatch_share_of_worker_max']:.1%} of a worker's cycles at most (goal < 15%), "
        f"{t['dispatch_share_of_shard_max']:.1%} of a shard's iteration cycles")


if __name__ == "__main__":
    main()
