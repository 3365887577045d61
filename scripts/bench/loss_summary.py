#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
"""Goodput ratios of scripts/bench/bench-loss.sh's runs (fake clock and daemon)
into results/bench-loss.json, and its tables.

    loss_summary.py TMPDIR REPS SEEDS "LEVEL ..." "DAEMON_MODE ..." "FAKE_MODE ..."
"""
import json, os, statistics, sys
tmp, reps, seeds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
levels, daemon_modes, fake_modes = sys.argv[4].split(), sys.argv[5].split(), sys.argv[6].split()
out = {"bench": "loss", "loss_levels": [float(x) for x in levels],
       "fake_clock": {"tool": "test/bench/bench_fabric_qps", "seeds": seeds, "qps": 8,
                      "link_gbps": 100, "outstanding": 2, "msg_kib": 256, "modes": {}},
       "daemon": {"config": "config/bench/loss.ini", "reps": reps, "link_gbps": 0.25,
                  "modes": {}}}


def load(p):
    return json.load(open(p)) if os.path.exists(p) and os.path.getsize(p) else None


def summarise(kind, name, n, modes):
    """Median goodput and median per-repetition ratio to the lossless run."""
    runs = {(m, l): [load(f"{tmp}/{name(m, l, i)}") for i in range(1, n + 1)]
            for m in modes for l in levels}
    res = {}
    print(f"{kind}:\n{'mode':>11} | " + " | ".join(f"loss {float(l) * 100:g}%: Gb/s ratio" for l in levels))
    for m in modes:
        # A run that could not start (CPU taken by another mrcd) is left out, not zero.
        good = {l: [x["goodput_gbps"] if x else None for x in runs[m, l]] for l in levels}
        ratio = {l: statistics.median([good[l][i] / good["0"][i] for i in range(n)
                                       if good[l][i] is not None and good["0"][i]] or [0.0])
                 for l in levels}
        med = {l: statistics.median([g for g in good[l] if g is not None] or [0.0]) for l in levels}
        res[m] = {"goodput_gbps": {str(float(l)): med[l] for l in levels},
                  "ratio": {str(float(l)): ratio[l] for l in levels},
                  "goodput_runs": {str(float(l)): good[l] for l in levels}}
        if kind == "fake clock":
            ok = {l: [x for x in runs[m, l] if x] for l in levels}
            res[m]["lost_by"] = {str(float(l)): {k: statistics.median([x["lost_by"][k] for x in ok[l]])
                                                 for k in (ok[l][0]["lost_by"] if ok[l] else {})}
                                 for l in levels}
            for key in ("retx_pkts", "probes", "rx_dup_pkts"):
                res[m][key] = {str(float(l)): statistics.median([x[key] for x in ok[l]] or [0])
                               for l in levels}
        if kind == "daemon":
            res[m]["all_delivered_and_verified"] = all(
                x["messages"]["lost"] == 0 and x["messages"]["failed"] == 0 and
                x["verify_errors"] == 0 for l in levels for x in runs[m, l] if x)
            res[m]["runs_missing"] = sum(x is None for l in levels for x in runs[m, l])
            res[m]["retransmits"] = {str(float(l)): statistics.median(
                [x["retransmits"] for x in runs[m, l] if x] or [0]) for l in levels}
        print(f"{m:>11} | " + " | ".join(f"{med[l]:8.3f} {ratio[l]:6.3f}"
                                          for l in levels))
    return res


out["fake_clock"]["modes"] = summarise("fake clock", lambda m, l, i: f"fake-{m}-{l}-{i}.json",
                                      seeds, fake_modes)
out["daemon"]["modes"] = summarise("daemon", lambda m, l, i: f"{m}-{l}-{i}.json", reps,
                                   daemon_modes)
json.dump(out, open("results/bench-loss.json", "w"), indent=1)
