#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
"""Gather results/*.json into results/summary.json, draw results/*.png and
rewrite README's benchmark table (between <!-- bench:begin --> and
<!-- bench:end -->). Run by scripts/bench.sh; safe to run alone on whatever
result files exist. Known benchmarks get their own rows; a result file this
script does not know yet still gets one row listing its numbers."""

import argparse
import datetime
import glob
import json
import os
import sys

BEGIN, END = "<!-- bench:begin -->", "<!-- bench:end -->"


def fmt(v, digits=3):
    if v is None:
        return "-"
    if isinstance(v, int) and not isinstance(v, bool) and abs(v) >= 1e6:
        v = float(v)
    if isinstance(v, float):
        if abs(v) >= 1e6:
            return f"{v / 1e6:,.2f} M"
        if abs(v) >= 100:
            return f"{v:,.0f}"
        return f"{v:.{digits}g}"
    if isinstance(v, int):
        return f"{v:,}"
    return str(v)


def rows_rate(r):
    p, b = r["packet_rate"], r["byte_rate"]
    cmd = "`scripts/bench-rate.sh`"
    out = [("datapath packet rate, 256 B payload (data packets placed per worker CPU-second)",
            f"{fmt(p['mrc_pps_per_core'])}pps",
            f"testpmd io {fmt(p['testpmd_io_pps_per_core'])}pps",
            fmt(p["ratio_vs_testpmd_io"]), ">= 0.5", cmd)]
    if p.get("testpmd_macswap_pps_per_core"):
        out.append(("same, against a forwarder that touches each packet",
                    f"{fmt(p['mrc_pps_per_core'])}pps",
                    f"testpmd macswap {fmt(p['testpmd_macswap_pps_per_core'])}pps",
                    fmt(p["ratio_vs_testpmd_macswap"]), "", cmd))
    out.append(("datapath byte rate, 4 KiB payload (goodput per worker CPU-second)",
                f"{fmt(b['mrc_gbps_per_core'])} Gb/s",
                f"memcpy {fmt(b['memcpy_gbps'])} Gb/s", fmt(b["ratio_vs_memcpy"]), ">= 0.5",
                cmd))
    return out


def rows_scale(r):
    cmd = "`scripts/bench-scale.sh`"
    ref = r.get("reference_private_rings", {})
    refs = {s["qp_pairs"]: s for s in ref.get("scales", [])}
    idle_ref = ref.get("bytes_per_idle_qp")
    out = [("memory per idle QP (RTS, nothing in flight)", f"{fmt(r['bytes_per_idle_qp'])} B",
            f"private ring {fmt(idle_ref)} B" if idle_ref else "",
            fmt(r["bytes_per_idle_qp"] / idle_ref) if idle_ref else "", "<= 4096 B", cmd),
           ("memory per active QP (in-flight ring lent)",
            f"{fmt(r['bytes_per_active_qp'])} B", "", "", "", cmd)]
    for s in r.get("scales", []):
        rs = refs.get(s["qp_pairs"])
        out.append((f"{fmt(s['qp_pairs'])} QP pairs on one worker, {s['active_pairs']} active "
                    f"at a time, {s['payload_bytes']} B",
                    f"{fmt(s['pps'])} pps, message p50 {fmt(s['msg_us_p50'])} us, "
                    f"p99 {fmt(s['msg_us_p99'])} us",
                    f"private rings {fmt(rs['pps'])} pps" if rs else "",
                    fmt(s["pps"] / rs["pps"]) if rs else "",
                    "64k QPs per worker" if s["qp_pairs"] >= 65536 else "", cmd))
    for d in r.get("daemon", {}).get("scales", []):
        if not d.get("runs"):
            continue
        out.append((f"mrcd, {fmt(d['flows'])} flows ({fmt(d['qps'])} QPs) on one worker, 256 "
                    f"per host in flight, 1 KiB, verified",
                    f"{fmt(d['msgs_per_cpu_s'])} msgs per CPU-s, p50 {fmt(d['msg_us_p50'])} us, "
                    f"p99 {fmt(d['msg_us_p99'])} us; heap {fmt(d['heap_bytes_per_qp'])} B per QP"
                    + ("" if d["all_delivered_and_verified"] and
                       not d["flows_without_completion"] else "; NOT ALL DELIVERED"),
                    "", "", "64k QPs per worker" if d["flows"] >= 65536 else "",
                    "`scripts/bench-scale.sh`"))
    for s in r.get("not_fitting", []):
        out.append((f"{fmt(s['qp_pairs'])} QP pairs on one worker",
                    f"not run: needs {fmt(s['need_mb'])} MB of DPDK heap "
                    f"(budget {fmt(s['mem_mb'])} MB)", "", "",
                    "64k QPs per worker" if s["qp_pairs"] >= 65536 else "", cmd))
    return out


def rows_qp(r):
    cmd = "`scripts/bench-qp.sh`"
    return [("transport per delivered 4 KiB packet, 1 QP pair (no network)",
             f"{fmt(r.get('ns_per_pkt_1qp'))} ns", f"{fmt(r.get('instr_per_pkt'))} instructions",
             "", "", cmd),
            ("same, 1,000 QP pairs", f"{fmt(r.get('ns_per_pkt_1000qp'))} ns", "", "", "", cmd)]


def rows_fabric(r):
    cmd = "`scripts/bench-fabric.sh`"
    return [("emulated fabric per forwarded packet, 32 in flight",
             f"{fmt(r.get('ns_per_pkt_32'))} ns", f"{fmt(r.get('instr_per_pkt'))} instructions",
             "", "", cmd),
            ("same, 512 in flight", f"{fmt(r.get('ns_per_pkt_512'))} ns", "", "", "", cmd)]


def rows_wire(r):
    cmd = "`scripts/bench-wire.sh`"
    ns = r.get("ns_per_pkt", {})
    return [("build / parse+ICRC of a 4 KiB SRv6 WRITE",
             f"{fmt(ns.get('build-data-4k'))} / {fmt(ns.get('parse-data-4k'))} ns",
             f"memcpy 4 KiB {fmt(ns.get('memcpy-4k'))} ns",
             f"ICRC = {fmt(r.get('icrc_over_memcpy'))} x memcpy", "", cmd)]


def rows_veth_failover(r):
    cmd = "`scripts/bench-veth-failover.sh`"
    m, t = r["median"]["mrcd"], r["median"]["mptcp"]
    n = r["paths"]
    return [(f"veth failover: receiver stall after a black hole on 1 of {n} paths "
             f"({r['path_mbit']} Mbit/s each), mrcd over net_af_packet",
             f"{fmt(m['stall_ms'])} ms", f"Linux MPTCP {fmt(t['stall_ms'])} ms",
             fmt(m["stall_ms"] / t["stall_ms"]) if t["stall_ms"] else "", "", cmd),
            (f"same, goodput after / before (surviving capacity {fmt((n - 1) / n)}); messages lost",
             f"{fmt(m['after_over_before'])}; {m['msgs_lost']} lost",
             f"MPTCP {fmt(t['after_over_before'])}; {t['msgs_lost']} lost", "", "nothing lost",
             cmd)]


def rows_veth_loss(r):
    cmd = "`scripts/bench-veth-loss.sh`"
    md = r["modes"]
    out = []
    for pct, goal in (("0.1", ">= 0.99"), ("1.0", ">= 0.9"), ("5.0", "")):
        out.append((f"veth goodput at {pct}% random loss on every path / lossless "
                    f"({r['paths']} paths of {r['path_mbit']} Mbit/s)",
                    f"{fmt(md['spray_sack']['ratio'][pct])}",
                    f"ECMP + go-back-N {fmt(md['ecmp_gbn']['ratio'][pct])}, "
                    f"MPTCP {fmt(md['mptcp']['ratio'][pct])}", "", goal, cmd))
    return out


def rows_incast(r):
    cmd = "`scripts/bench-incast.sh`"
    out = []
    for key, src in (("modes", "fake clock"), ("daemon", "mrcd")):
        for m, name in (("trim_on", "trimming on"), ("trim_off", "trimming off")):
            x = r.get(key, {}).get(m)
            if x:
                out.append((f"7:1 incast, message completion / ideal fair share, {name} ({src})",
                            f"p50 {fmt(x['p50_over_ideal'])}, p99 {fmt(x['p99_over_ideal'])}, "
                            f"max {fmt(x['max_over_ideal'])}",
                            f"ideal {fmt(r['ideal_us'] / 1e3)} ms", "",
                            "p99 <= 1.1" if m == "trim_on" else "", cmd))
    return out


def rows_failover(r):
    cmd = "`scripts/bench-failover.sh`"
    names = {"plane": "a plane down", "plane-bh": "a plane black-holed (unseen by hosts)",
             "link": "a T0-T1 link down", "t1-bh": "a T1 black-holed"}
    out = []
    for f, x in r["faults"].items():
        out.append((f"failover (fake clock), {names.get(f, f)}: fault -> first EV retired, "
                    f"-> surviving capacity; receiver stall; messages lost",
                    f"{fmt(x['ev_retired_us'])} us, {fmt(x['recovered_us'])} us; "
                    f"{fmt(x['stall_msg_us'])} us (worst QP {fmt(x['stall_msg_qp_us'])} us); "
                    f"{x['msgs_lost']}", "", "", "<= 100 us, 0 lost", cmd))
    return out


def rows_loss(r):
    cmd = "`scripts/bench-loss.sh`"
    out = []
    for key, src in (("fake_clock", "fake clock, 8 planes x 100 Gb/s"),
                     ("daemon", "mrcd, 8 planes x 0.25 Gb/s")):
        md = r.get(key, {}).get("modes", {})
        mrc, gbn = md.get("spray_sack", {}).get("ratio", {}), md.get("ecmp_gbn", {}).get("ratio", {})
        retire = md.get("spray_retire", {}).get("ratio", {})
        for pct, lvl, goal in (("0.1", "0.001", ">= 0.99"), ("1", "0.01", ">= 0.9"),
                               ("5", "0.05", "")):
            if lvl in mrc:
                ref = f"go-back-N on one path {fmt(gbn.get(lvl))}"
                if lvl in retire:
                    ref += f", retiring every lost EV {fmt(retire[lvl])}"
                out.append((f"goodput at {pct}% random loss on every link / lossless ({src})",
                            fmt(mrc[lvl]), ref, "", goal, cmd))
    return out


def rows_balance(r):
    cmd = "`scripts/bench-balance.sh`"
    res = r.get("results", {})
    out = []
    for k in sorted(res):
        if not k.startswith("spray_"):
            continue
        x, e = res[k], res.get("ecmp_" + k[len("spray_"):], {})
        depth = k.rsplit("outstanding", 1)[-1]
        out.append((f"load balance, Jain's index of bytes per plane / per T0-T1 link over "
                    f"{r.get('window_ms', 1)} ms windows, {r.get('qps')} QPs, {depth} messages "
                    f"in flight each (max/mean)",
                    f"{fmt(x['plane_jain_median'])} / {fmt(x['link_jain_median'])} "
                    f"({fmt(x['plane_maxmean_median'])} / {fmt(x['link_maxmean_median'])})",
                    f"ECMP pinning {fmt(e.get('plane_jain_median'))} / "
                    f"{fmt(e.get('link_jain_median'))}", "", ">= 0.99" if depth == "2" else "",
                    cmd))
    return out


KNOWN = {"bench-rate": rows_rate, "bench-scale": rows_scale, "bench-qp": rows_qp,
         "bench-fabric": rows_fabric, "bench-wire": rows_wire,
         "bench-veth-failover": rows_veth_failover, "bench-veth-loss": rows_veth_loss,
         "bench-incast": rows_incast, "bench-failover": rows_failover,
         "bench-loss": rows_loss, "bench-balance": rows_balance}
SKIP = {"summary", "bench-wire-instructions"}


def rows_generic(name, r):
    nums = [f"{k} {fmt(v)}" for k, v in r.items() if isinstance(v, (int, float))
            and not isinstance(v, bool)][:6]
    return [(name, ", ".join(nums) or "(see the JSON)", "", "", "",
             f"`scripts/{name}.sh`")]


def plot(results, outdir):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("bench-report: matplotlib missing (apt-get install python3-matplotlib): no plots")
        return []
    made = []
    r = results.get("bench-rate")
    if r:
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
        path = os.path.join(outdir, "bench-rate.png")
        fig.savefig(path, dpi=100)
        plt.close(fig)
        made.append(path)
    s = results.get("bench-scale")
    if s and s.get("scales"):
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
        path = os.path.join(outdir, "bench-scale.png")
        fig.savefig(path, dpi=100)
        plt.close(fig)
        made.append(path)
    return made


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--results", default="results")
    ap.add_argument("--status", help="JSON lines of the runner: name, status, seconds")
    ap.add_argument("--readme", help="README to rewrite between the bench markers")
    a = ap.parse_args()
    results = {}
    for path in sorted(glob.glob(os.path.join(a.results, "*.json"))):
        name = os.path.basename(path)[:-5]
        if name in SKIP:
            continue
        try:
            with open(path) as f:
                results[name] = json.load(f)
        except (OSError, ValueError) as e:
            print(f"bench-report: {path}: unreadable ({e}), left out")
    status = []
    if a.status and os.path.exists(a.status):
        with open(a.status) as f:
            status = [json.loads(line) for line in f if line.strip()]
    summary = {"generated": datetime.datetime.now().isoformat(timespec="seconds"),
               "machine": os.uname().nodename, "cpus": os.cpu_count(),
               "runs": status, "results": results}
    with open(os.path.join(a.results, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    # Its own plots, and those each benchmark drew (results/bench-*.png).
    pngs = plot(results, a.results)
    pngs = sorted(set(pngs) | {os.path.join(a.results, f) for f in os.listdir(a.results)
                               if f.startswith("bench-") and f.endswith(".png")})

    rows = []
    for name in sorted(results):
        try:
            rows += KNOWN[name](results[name]) if name in KNOWN else \
                rows_generic(name, results[name])
        except (KeyError, TypeError, ZeroDivisionError) as e:
            rows.append((name, f"(result file not understood: {e})", "", "", "",
                         f"`scripts/{name}.sh`"))
    table = ["| figure | MRC | reference (same run) | ratio | goal | reproduce |",
             "|---|---:|---:|---:|---|---|"]
    table += ["| " + " | ".join(r) + " |" for r in rows]
    st = {s["name"]: s["status"] for s in status}
    notes = [f"{n}: {v}" for n, v in st.items() if v != "ok"]
    block = [BEGIN,
             f"Generated by `scripts/bench.sh` on {summary['generated'][:10]} "
             f"({summary['cpus']} CPUs, {summary['machine']}); JSON in `results/summary.json`"
             + (", plots " + ", ".join(f"`{p}`" for p in pngs) if pngs else "") + ".",
             ""] + table
    if notes:
        block += ["", "Not measured this time: " + "; ".join(notes) + "."]
    block.append(END)
    print("\n".join(block[3:-1]))
    if a.readme:
        with open(a.readme) as f:
            text = f.read()
        if BEGIN not in text or END not in text:
            print(f"bench-report: {a.readme} has no {BEGIN} ... {END} block: not rewritten")
            return 0
        head, rest = text.split(BEGIN, 1)
        tail = rest.split(END, 1)[1]
        with open(a.readme, "w") as f:
            f.write(head + "\n".join(block) + tail)
        print(f"bench-report: rewrote the table in {a.readme}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
