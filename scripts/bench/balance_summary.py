#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
"""Medians of scripts/bench/bench-balance.sh's runs into results/bench-balance.json,
and its table.

    balance_summary.py TMPDIR SEEDS   (TMPDIR: <paths>-<load>-<seed>.json)
"""
import glob, json, statistics, sys
tmp, seeds = sys.argv[1], int(sys.argv[2])
keys = ["plane_jain_median", "plane_maxmean_median", "link_jain_median", "link_maxmean_median",
        "plane_jain_worst", "link_jain_worst", "uplink_gbps"]
out = {"bench": "balance", "qps": 8, "planes": 8, "t1s": 4, "link_gbps": 100, "window_ms": 1,
       "windows_per_run": 10, "seeds": seeds, "msg_kib": 256, "results": {}}
print(f"{'load':>5} {'paths':>6} | {'plane Jain':>10} {'max/mean':>8} | {'T0-T1 Jain':>10} "
      f"{'max/mean':>8} | {'worst Jain p/l':>14} | {'uplink Gb/s':>11}")
for load in (2, 4):
    for paths in ("spray", "ecmp"):
        runs = [json.load(open(f)) for f in sorted(glob.glob(f"{tmp}/{paths}-{load}-*.json"))]
        med = {k: statistics.median(r[k] for r in runs) for k in keys}
        med["runs"] = runs
        out["results"][f"{paths}_outstanding{load}"] = med
        print(f"{load:>5} {paths:>6} | {med['plane_jain_median']:10.4f} "
              f"{med['plane_maxmean_median']:8.3f} | {med['link_jain_median']:10.4f} "
              f"{med['link_maxmean_median']:8.3f} | {med['plane_jain_worst']:6.3f} "
              f"{med['link_jain_worst']:6.3f} | {med['uplink_gbps']:11.1f}")
json.dump(out, open("results/bench-balance.json", "w"), indent=1)
