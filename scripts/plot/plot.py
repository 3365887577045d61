#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
"""mrcd's charts, one subcommand each; every benchmark and the demo draw here.

    scripts/plot/plot.py loss|balance|incast|failover|rate|scale RESULTS.json OUT.png
        the fabric benchmarks (scripts/bench/bench-NAME.sh write RESULTS.json)
    scripts/plot/plot.py veth-failover|veth-loss RESULTS.json OUT.png
        the veth benchmarks: prints their table, then draws
    scripts/plot/plot.py timeseries [mrcd-timeseries.jsonl] [-o PREFIX]
        mrcd's JSON-lines time series: PREFIX-planes.png (throughput per plane,
        fault events marked) and PREFIX-evs.png (EVs by state)
    scripts/plot/plot.py paths [mrcd-timeseries.jsonl] [-o PREFIX] [--host H]
        path health from the same file: PREFIX-paths.png, a heat map per
        measure (packets lost, mean RTT; gray: no sample) with a row per
        (plane, T1) path and time across, fault events marked; all hosts
        summed (RTT: their mean) unless --host

Needs Debian's python3-matplotlib (scripts/setup.sh installs it); without it
the veth subcommands still print their tables and the others say so.
"""
import argparse
import json
import re
import sys

plt = None  # matplotlib.pyplot once pyplot() has loaded it


def pyplot():
    """matplotlib's pyplot for files only (no display), or None when missing."""
    global plt
    if plt is None:
        try:
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot
            plt = matplotlib.pyplot
        except ImportError:
            return None
    return plt


def fmt(v):
    """A number for a title: 3 significant digits."""
    return "-" if v is None else f"{v:.3g}"


def bars(ax, groups, series, values, colors):
    """Grouped bars: values[s][g] for series s at group g."""
    width = 0.8 / len(series)
    for i, s in enumerate(series):
        xs = [g + (i - (len(series) - 1) / 2) * width for g in range(len(groups))]
        b = ax.bar(xs, values[i], width, label=s, color=colors[i])
        ax.bar_label(b, fmt="%.3g", fontsize=7)
    ax.set_xticks(range(len(groups)), groups)
    ax.grid(axis="y", alpha=0.3)


# ---- the fabric benchmarks ----

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


def failover(r, out):
    """Goodput against time around each fault, seed 1 (scripts/bench/bench-failover.sh)."""
    w, t0 = r["bin_us"], r["fault_us"]
    names = {"plane": "plane down (ports show it)", "plane-bh": "plane black-holed (unseen)",
             "link": "T0-T1 link down (unseen)", "t1-bh": "T1 black-holed (unseen)"}
    fig, axs = plt.subplots(2, 2, figsize=(11, 7), sharex=True, sharey=True)
    for ax, (f, x) in zip(axs.flat, r["faults"].items()):
        s = x["series_gbps"]
        ts = [b * w - t0 for b in range(len(s))]
        keep = [i for i, t in enumerate(ts) if -200 <= t <= 600]
        ax.step([ts[i] for i in keep], [s[i] for i in keep], where="post", color="tab:blue",
                label=f"goodput at the receiver, {w} us windows")
        ax.axvline(0, color="tab:red", label="fault")
        ax.axhline(x["target_gbps"], color="tab:gray", ls="--", label="95% of surviving capacity")
        if x["recovered_us"] is not None:
            ax.axvline(x["runs"][0]["recovered_us"], color="tab:green", ls=":",
                       label="recovered (this seed)")
        ax.axvspan(0, r["goal_recovered_us"], color="tab:orange", alpha=0.08, label="goal: 100 us")
        ax.set_title(f"{names.get(f, f)}: recovered {x['recovered_us']:.0f} us (median)", fontsize=10)
        ax.set_ylim(0, 850)
        ax.grid(alpha=0.3)
    for ax in axs[1]:
        ax.set_xlabel("us from the fault (fake clock)")
    for ax in axs[:, 0]:
        ax.set_ylabel("Gb/s")
    axs[0][0].legend(fontsize=7, loc="lower right")
    fig.suptitle(f"failover on the emulated fabric: {r['qps']} QPs, 8 planes x 4 T1s, 100 Gb/s links "
                 f"(seed 1 shown; medians of {r['seeds']} seeds)", fontsize=10)
    fig.tight_layout()
    fig.savefig(out, dpi=100)


def rate(r, out):
    """Packet and byte rate per core against their references (bench-rate.sh)."""
    fig, ax = plt.subplots(1, 2, figsize=(10, 4))
    p, b = r["packet_rate"], r["byte_rate"]
    names, vals = ["MRC (mrcd)"], [p["mrc_pps_per_core"] / 1e6]
    for k, label in (("testpmd_macswap_pps_per_core", "testpmd macswap"),
                     ("testpmd_io_pps_per_core", "testpmd io")):
        if p.get(k):
            names.append(label)
            vals.append(p[k] / 1e6)
    ax[0].bar(names, vals, color=["tab:blue"] + ["tab:gray"] * (len(vals) - 1))
    ax[0].set_yscale("log")
    ax[0].set_ylabel("Mpps per core (CPU-second)")
    ax[0].set_title(f"packet rate, {p['payload_bytes']} B payload")
    ax[1].bar(["MRC (mrcd)", "memcpy"], [b["mrc_gbps_per_core"], b["memcpy_gbps"]],
              color=["tab:blue", "tab:gray"])
    ax[1].set_ylabel("Gb/s per core (CPU-second)")
    ax[1].set_title(f"byte rate, {b['payload_bytes']} B payload")
    fig.suptitle(f"median of {r['runs']} rounds; ratios: "
                 f"{fmt(p.get('ratio_vs_testpmd_io'))} (io), "
                 f"{fmt(b['ratio_vs_memcpy'])} (memcpy)")
    fig.tight_layout()
    fig.savefig(out, dpi=100)


def scale(s, out):
    """Throughput and completion times against QP pairs (bench-scale.sh)."""
    if not s.get("scales"):
        sys.exit("plot scale: no scale was run")
    fig, ax = plt.subplots(1, 2, figsize=(10, 4))
    q = [x["qp_pairs"] for x in s["scales"]]
    ax[0].plot(q, [x["pps"] / 1e6 for x in s["scales"]], "o-", label="rings lent (pool)")
    ref = s.get("reference_private_rings", {}).get("scales", [])
    if ref:
        ax[0].plot([x["qp_pairs"] for x in ref], [x["pps"] / 1e6 for x in ref], "s--",
                   label="a ring per QP (reference)")
        ax[0].legend()
    ax[0].set_ylim(bottom=0)
    ax[0].set_xscale("log")
    ax[0].set_xlabel("QP pairs on one worker")
    ax[0].set_ylabel("Mpps delivered")
    ax[0].set_title("throughput")
    ax[1].plot(q, [x["msg_us_p50"] for x in s["scales"]], "o-", label="p50")
    ax[1].plot(q, [x["msg_us_p99"] for x in s["scales"]], "o-", label="p99")
    ax[1].set_xscale("log")
    ax[1].set_yscale("log")
    ax[1].set_xlabel("QP pairs on one worker")
    ax[1].set_ylabel("message completion, us")
    ax[1].legend()
    ax[1].set_title(f"idle QP {s['bytes_per_idle_qp']} B, active {s['bytes_per_active_qp']} B")
    fig.tight_layout()
    fig.savefig(out, dpi=100)


# ---- the veth benchmarks (each prints its table first) ----


def veth_failover(r, png):
    """Goodput against time around the fault, MPTCP and mrcd, every repetition."""
    n = r["paths"]
    for stack, m in r["median"].items():
        print(f"{stack:6} stall {m['stall_ms']:8.2f} ms (median of {m['runs']}), goodput "
              f"{m['goodput_before_gbps']:.3f} -> {m['goodput_after_gbps']:.3f} Gb/s = "
              f"{m['after_over_before']:.3f} of before (surviving capacity {(n - 1) / n:.3f}), "
              f"{m['msgs_lost']} messages lost, {m['verify_errors']} verify errors")
    if png is None:
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


def veth_loss(r, png):
    """Goodput under random loss / lossless goodput, per mode."""
    levels = [str(x) for x in r["loss_pct"]]
    print(f"{'mode':>11} | " + " | ".join(f"loss {l}%: Gb/s ratio" for l in levels))
    for m, v in r["modes"].items():
        print(f"{m:>11} | " + " | ".join(f"{v['goodput_gbps'][l]:8.3f} {v['ratio'][l]:6.3f}"
                                          for l in levels))
    if png is None:
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


# ---- mrcd's time series ----


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
                sys.exit(f"plot timeseries: {path}:{n}: not JSON: {e}")
            if "event" in rec:
                events.append(rec)
            elif "plane_gbps" in rec:
                samples.append(rec)
    if not samples:
        sys.exit(f"plot timeseries: {path}: no samples (is it an mrcd time series?)")
    return samples, events


def mark_events(ax, events):
    for e in events:
        down = re.search(r"\b(down|blackhole)\b", e["event"])
        ax.axvline(e["t"], color="red" if down else "green", linestyle="--", linewidth=1)
        ax.annotate(e["event"], (e["t"], ax.get_ylim()[1]), rotation=90, va="top", ha="right",
                    fontsize=7, color="red" if down else "green")


def timeseries(argv):
    ap = argparse.ArgumentParser(prog="plot.py timeseries",
                                 description="mrcd's time series as PNG charts")
    ap.add_argument("series", nargs="?", default="mrcd-timeseries.jsonl")
    ap.add_argument("-o", "--output", default="mrcd", help="prefix of the PNG files (default mrcd)")
    a = ap.parse_args(argv)
    if pyplot() is None:
        sys.exit("plot: matplotlib missing (apt-get install python3-matplotlib)")
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
    print(f"plot timeseries: wrote {a.output}-planes.png and {a.output}-evs.png "
          f"({len(samples)} samples, {len(events)} events)")


def path_rows(samples, host):
    """The (plane, T1) rows to draw, with their names: every T1 of every plane, and a
    plane's direct column only where it carried something."""
    t1s = samples[0]["paths"]["t1s"]
    hosts = samples[0]["paths"]["hosts"]
    planes = len(next(iter(hosts.values()))["sent"])
    rows = []
    for p in range(planes):
        for c in range(t1s + 1):
            if c == t1s and not any(h["sent"][p][c] for s in samples
                                    for k, h in s["paths"]["hosts"].items()
                                    if host is None or k == host):
                continue
            rows.append((p, c, f"p{p} " + ("direct" if c == t1s else f"t1 {c}")))
    return rows, planes


def path_matrix(samples, rows, host, field):
    """rows x samples: the field summed over the hosts (lost), or their mean (rtt_us)."""
    import math
    m = []
    for p, c, _ in rows:
        line = []
        for s in samples:
            vals = [h[field][p][c] for k, h in s["paths"]["hosts"].items()
                    if host is None or k == host]
            vals = [v for v in vals if v is not None]
            if field == "rtt_us":
                line.append(sum(vals) / len(vals) if vals else math.nan)
            else:
                line.append(sum(vals))
        m.append(line)
    return m


def paths(argv):
    ap = argparse.ArgumentParser(prog="plot.py paths",
                                 description="path health from mrcd's time series")
    ap.add_argument("series", nargs="?", default="mrcd-timeseries.jsonl")
    ap.add_argument("-o", "--output", default="mrcd", help="prefix of the PNG (default mrcd)")
    ap.add_argument("--host", help="one host's paths (its cluster number); default all summed")
    a = ap.parse_args(argv)
    if pyplot() is None:
        sys.exit("plot: matplotlib missing (apt-get install python3-matplotlib)")
    samples, events = load(a.series)
    samples = [s for s in samples if "paths" in s]
    if not samples:
        sys.exit(f"plot paths: {a.series}: no per-path counters in its samples")
    if a.host is not None and a.host not in samples[0]["paths"]["hosts"]:
        sys.exit(f"plot paths: host {a.host} is not in {a.series} "
                 f"(it has {', '.join(samples[0]['paths']['hosts'])})")
    rows, planes = path_rows(samples, a.host)
    t = [s["t"] for s in samples]
    # each sample covers the interval that ends at its t
    edges = [t[0] - (t[1] - t[0] if len(t) > 1 else 0.1)] + t
    import matplotlib.colors
    fig, axes = plt.subplots(2, 1, figsize=(11, 2.2 + 0.22 * len(rows) * 2), sharex=True)
    who = "all hosts" if a.host is None else f"host {a.host}"
    for ax, field, title, cmap in (
            (axes[0], "lost", f"packets declared lost per interval ({who})", "Reds"),
            (axes[1], "rtt_us", f"mean RTT, us ({who})", "viridis")):
        m = path_matrix(samples, rows, a.host, field)
        top = max((v for line in m for v in line if v == v), default=0)
        norm = None
        if field == "lost":
            norm = matplotlib.colors.Normalize(vmin=0, vmax=max(top, 1))
        cm = plt.get_cmap(cmap).copy()
        cm.set_bad("lightgray")  # no RTT sample in the interval (nothing came back)
        import numpy
        mesh = ax.pcolormesh(edges, range(len(rows) + 1), numpy.ma.masked_invalid(m), cmap=cm,
                             norm=norm, shading="flat")
        fig.colorbar(mesh, ax=ax, pad=0.01)
        ax.set_yticks([i + 0.5 for i in range(len(rows))])
        ax.set_yticklabels([r[2] for r in rows], fontsize=7)
        ax.invert_yaxis()
        for i in range(1, len(rows)):
            if rows[i][0] != rows[i - 1][0]:
                ax.axhline(i, color="gray", linewidth=1.5)
        ax.set_title(f"mrcd path health: {title}", fontsize=10)
        mark_events(ax, events)
    axes[1].set_xlabel("time (s)")
    fig.tight_layout()
    fig.savefig(f"{a.output}-paths.png", dpi=110)
    print(f"plot paths: wrote {a.output}-paths.png ({len(rows)} paths, {len(samples)} samples, "
          f"{len(events)} events)")


RESULTS = {"loss": loss, "balance": balance, "incast": incast, "failover": failover,
           "rate": rate, "scale": scale}
TABLES = {"veth-failover": veth_failover, "veth-loss": veth_loss}


def main():
    what = sys.argv[1] if len(sys.argv) > 1 else ""
    if what == "timeseries":
        return timeseries(sys.argv[2:])
    if what == "paths":
        return paths(sys.argv[2:])
    if what not in RESULTS and what not in TABLES or len(sys.argv) != 4:
        sys.exit(__doc__)
    with open(sys.argv[2]) as f:
        r = json.load(f)
    if pyplot() is None:
        if what in TABLES:
            TABLES[what](r, None)  # the table alone
        print("plot: matplotlib missing (apt-get install python3-matplotlib): no plot")
        return 0
    {**RESULTS, **TABLES}[what](r, sys.argv[3])
    return 0


if __name__ == "__main__":
    sys.exit(main())
