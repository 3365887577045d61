#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
"""Print and plot the veth benchmarks' results (scripts/bench-veth-*.sh).

  plot-veth.py failover results/bench-veth-failover.json OUT.png
      goodput vs time around the fault, MPTCP and mrcd, every repetition
  plot-veth.py loss results/bench-veth-loss.json OUT.png
      goodput under random loss / lossless goodput, per mode"""

import json
import sys


def failover(r, png, plt):
    n = r["paths"]
    for stack, m in r["median"].items():
        print(f"{stack:6} stall {m['stall_ms']:8.2f} ms (median of {m['runs']}), goodput "
              f"{m['goodput_before_gbps']:.3f} -> {m['goodput_after_gbps']:.3f} Gb/s = "
              f"{m['after_over_before']:.3f} of before (surviving capacity {(n - 1) / n:.3f}), "
              f"{m['msgs_lost']} messages lost, {m['verify_errors']} verify errors")
    if plt is None:
        return
    fig, ax = plt.subplots(2, 1, figsize=(9, 6.5), sharex=True)
    cap = n * r["path_mbit"] / 1e3
    for k, (stack, color) in enumerate((("mrcd", "tab:blue"), ("mptcp", "tab:orange"))):
        runs = r["runs"].get(stack, [])
        med = r["median"].get(stack)
        for run in runs:
            t = [x[0] * 1e3 for x in run["timeline_gbps"]]
            g = [x[1] for x in run["timeline_gbps"]]
            typical = med is not None and run["stall_ms"] == med["stall_ms"]  # drawn dark
            ax[k].plot(t, g, color=color, alpha=0.9 if typical else 0.35, lw=1.2,
                       label=f"repetition {run['rep']}: stall {run['stall_ms']:.1f} ms")
        ax[k].axhline(cap, color="gray", ls=":", lw=1)
        ax[k].axhline(cap * (n - 1) / n, color="gray", ls="--", lw=1)
        ax[k].axvline(0, color="red", lw=1)
        title = "mrcd (spray + SACK, net_af_packet)" if stack == "mrcd" else \
            "Linux MPTCP (mptcpize, cubic, one subflow per path)"
        if med:
            title += f": median stall {med['stall_ms']:.1f} ms, after/before " \
                     f"{med['after_over_before']:.2f}"
        ax[k].set_title(title, fontsize=10)
        ax[k].set_ylabel(f"goodput, Gb/s ({r.get('bin_ms', 50)} ms bins)")
        ax[k].set_ylim(0, cap * 1.6)
        ax[k].legend(fontsize=8, loc="upper right")
    ax[1].set_xlabel(f"ms from the black hole on path {r['fault_path']} (red); dotted: {n} paths' "
                     f"capacity, dashed: {n - 1} paths'")
    fig.suptitle(f"{n} veth paths of {r['path_mbit']} Mbit/s, {r['fault']} on one path, 64 KiB "
                 "messages", fontsize=11)
    fig.tight_layout()
    fig.savefig(png, dpi=100)


def loss(r, png, plt):
    levels = [str(x) for x in r["loss_pct"]]
    print(f"{'mode':>11} | " + " | ".join(f"loss {l}%: Gb/s ratio" for l in levels))
    for m, v in r["modes"].items():
        print(f"{m:>11} | " + " | ".join(f"{v['goodput_gbps'][l]:8.3f} {v['ratio'][l]:6.3f}"
                                          for l in levels))
    if plt is None:
        return
    names = {"spray_sack": "mrcd spray + SACK (MRC)", "ecmp_gbn": "mrcd ECMP + go-back-N (RoCEv2)",
             "mptcp": "Linux MPTCP"}
    fig, ax = plt.subplots(figsize=(8, 4.5))
    width = 0.8 / len(r["modes"])
    lv = levels[1:]
    for i, (m, v) in enumerate(r["modes"].items()):
        xs = [j + (i - (len(r["modes"]) - 1) / 2) * width for j in range(len(lv))]
        ax.bar(xs, [v["ratio"][l] for l in lv], width, label=names.get(m, m))
    ax.set_xticks(range(len(lv)))
    ax.set_xticklabels([f"{l}% loss" for l in lv])
    ax.axhline(0.99, color="gray", ls=":", lw=1)
    ax.axhline(0.9, color="gray", ls="--", lw=1)
    ax.set_ylabel("goodput / lossless goodput")
    ax.set_ylim(0, 1.15)
    ax.set_title(f"random loss on every one of {r['paths']} veth paths ({r['path_mbit']} Mbit/s); "
                 f"median of {r['reps']}", fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(png, dpi=100)


def main():
    what, path, png = sys.argv[1:4]
    r = json.load(open(path))
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot-veth: matplotlib missing (apt-get install python3-matplotlib): no plot")
        plt = None
    (failover if what == "failover" else loss)(r, png, plt)
    return 0


if __name__ == "__main__":
    sys.exit(main())
