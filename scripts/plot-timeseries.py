#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
"""Turn mrcd's JSON-lines time series into PNG charts.

    scripts/plot-timeseries.py [mrcd-timeseries.jsonl] [-o PREFIX]

writes PREFIX-planes.png (throughput per plane over time, fault events
marked) and PREFIX-evs.png (EVs by state over time). Needs Debian's
python3-matplotlib (scripts/setup.sh installs it).
"""
import argparse
import json
import re
import sys

import matplotlib

matplotlib.use("Agg")  # files only: no display needed
import matplotlib.pyplot as plt  # noqa: E402


def load(path):
    samples, events = [], []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as e:
                sys.exit(f"plot-timeseries: {path}:{n}: not JSON: {e}")
            if "event" in rec:
                events.append(rec)
            elif "plane_gbps" in rec:
                samples.append(rec)
    if not samples:
        sys.exit(f"plot-timeseries: {path}: no samples (is it an mrcd time series?)")
    return samples, events


def mark_events(ax, events):
    for e in events:
        down = re.search(r"\b(down|blackhole)\b", e["event"])
        ax.axvline(e["t"], color="red" if down else "green", linestyle="--", linewidth=1)
        ax.annotate(e["event"], (e["t"], ax.get_ylim()[1]), rotation=90, va="top", ha="right",
                    fontsize=7, color="red" if down else "green")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("series", nargs="?", default="mrcd-timeseries.jsonl")
    ap.add_argument("-o", "--output", default="mrcd", help="prefix of the PNG files (default mrcd)")
    a = ap.parse_args()
    samples, events = load(a.series)
    t = [s["t"] for s in samples]
    planes = len(samples[0]["plane_gbps"])

    fig, ax = plt.subplots(figsize=(10, 5))
    for p in range(planes):
        ax.plot(t, [s["plane_gbps"][p] for s in samples], label=f"plane {p}", linewidth=1)
    ax.plot(t, [sum(s["plane_gbps"]) for s in samples], label="total", color="black", linewidth=2)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("Gb/s (both directions)")
    ax.set_title("mrcd: throughput per plane")
    top = max(sum(s["plane_gbps"]) for s in samples)
    ax.set_ylim(0, top * 1.35)
    ax.grid(alpha=0.3)
    ax.legend(ncol=5, fontsize=8, loc="upper left")
    mark_events(ax, events)
    fig.tight_layout()
    fig.savefig(f"{a.output}-planes.png", dpi=110)

    fig, ax = plt.subplots(figsize=(10, 4))
    for state, color in (("good", "tab:green"), ("skip", "tab:orange"), ("bad", "tab:red"),
                         ("denied", "tab:gray")):
        ax.plot(t, [s["ev"][state] for s in samples], label=state, color=color)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("EVs")
    ax.set_title("mrcd: EVs by state (all QPs)")
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    mark_events(ax, events)
    fig.tight_layout()
    fig.savefig(f"{a.output}-evs.png", dpi=110)
    print(f"plot-timeseries: wrote {a.output}-planes.png and {a.output}-evs.png "
          f"({len(samples)} samples, {len(events)} events)")


if __name__ == "__main__":
    main()
