#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
"""Draw the fabric benchmarks' results (scripts/bench-{loss,balance,incast}.sh).

    scripts/plot-bench.py loss|balance|incast RESULTS.json OUT.png

One bar chart per benchmark, the issue's goal drawn as a dashed line.
Needs Debian's python3-matplotlib (scripts/setup.sh installs it).
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")  # files only: no display needed
import matplotlib.pyplot as plt  # noqa: E402


def bars(ax, groups, series, values, colors):
    """Grouped bars: values[s][g] for series s at group g."""
    width = 0.8 / len(series)
    for i, s in enumerate(series):
        xs = [g + (i - (len(series) - 1) / 2) * width for g in range(len(groups))]
        b = ax.bar(xs, values[i], width, label=s, color=colors[i])
        ax.bar_label(b, fmt="%.3g", fontsize=7)
    ax.set_xticks(range(len(groups)), groups)
    ax.grid(axis="y", alpha=0.3)


def loss(r, out):
    levels = [lv for lv in r["loss_levels"] if lv > 0]
    modes = [("spray_sack", "MRC: spray + SACK"), ("ecmp_gbn", "RoCEv2 RC: one path, go-back-N")]
    fig, axs = plt.subplots(1, 2, figsize=(11, 4.5), sharey=True)
    for ax, (kind, title) in zip(axs, [("fake_clock", "fake clock, 8 QPs, 100 Gb/s links"),
                                       ("daemon", "mrcd in real time, 0.25 Gb/s links")]):
        res = r[kind]["modes"]
        shown = [(m, n) for m, n in modes if m in res]
        if "spray_retire" in res:
            shown.insert(1, ("spray_retire", "MRC, every lost EV retired"))
        vals = [[res[m]["ratio"][str(lv)] for lv in levels] for m, _ in shown]
        bars(ax, [f"{lv * 100:g}%" for lv in levels], [n for _, n in shown], vals,
             ["tab:blue", "tab:cyan", "tab:gray"][:len(shown)])
        ax.axhline(0.99, ls="--", color="tab:green", lw=1, label="goal at 0.1%: 0.99")
        ax.axhline(0.9, ls=":", color="tab:green", lw=1, label="goal at 1%: 0.9")
        ax.set_ylim(0, 1.1)
        ax.set_xlabel("random loss on every link")
        ax.set_title(title)
        ax.legend(fontsize=7, loc="lower left")
    axs[0].set_ylabel("goodput / lossless goodput (median)")
    fig.suptitle("Goodput under loss, each mode against its own lossless run")
    fig.tight_layout()
    fig.savefig(out, dpi=120)


def balance(r, out):
    keys = [k for k in r["results"]]
    fig, axs = plt.subplots(1, 2, figsize=(10, 4.5))
    for ax, (what, label) in zip(axs, [("plane", "plane (of 8)"), ("link", "T0 -> T1 link (of 32)")]):
        vals = [[r["results"][k][f"{what}_jain_median"] for k in keys],
                [1 / r["results"][k][f"{what}_maxmean_median"] for k in keys]]
        bars(ax, [k.replace("_outstanding", "\n") + " in flight" for k in keys],
             ["Jain's index", "mean / max"], vals, ["tab:blue", "tab:orange"])
        ax.axhline(0.99, ls="--", color="tab:green", lw=1, label="goal (spray): 0.99")
        ax.set_ylim(0, 1.1)
        ax.set_title(f"bytes per {label}, 1 ms windows")
        ax.legend(fontsize=8, loc="lower left")
    fig.suptitle("Load balance: spraying vs ECMP pinning (median over windows and seeds)")
    fig.tight_layout()
    fig.savefig(out, dpi=120)


def incast(r, out):
    stats = ["p50", "p99", "max"]
    series, vals, colors = [], [], []
    for src, key, tone in (("fake clock", "modes", ("tab:blue", "tab:gray")),
                           ("mrcd", "daemon", ("tab:cyan", "silver"))):
        for (m, name), c in zip((("trim_on", "trimming on"), ("trim_off", "trimming off")), tone):
            if m in r.get(key, {}):
                series.append(f"{src}, {name}")
                vals.append([r[key][m][f"{s}_over_ideal"] for s in stats])
                colors.append(c)
    fig, ax = plt.subplots(figsize=(8, 4.5))
    bars(ax, stats, series, vals, colors)
    ax.axhline(1.0, ls="-", color="black", lw=0.8)
    ax.axhline(1.1, ls="--", color="tab:green", lw=1, label="goal p99 with trimming: 1.1")
    ax.set_ylabel("message completion time / ideal fair share")
    ax.set_title(f"7:1 incast, {r['msg_kib']} KiB messages (ideal {r['ideal_us']:.0f} us)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=120)


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ("loss", "balance", "incast"):
        sys.exit(__doc__)
    with open(sys.argv[2]) as f:
        r = json.load(f)
    {"loss": loss, "balance": balance, "incast": incast}[sys.argv[1]](r, sys.argv[3])


if __name__ == "__main__":
    main()
