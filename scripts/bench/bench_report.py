#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
"""Write doc/performance.md from the per-figure results/bench-*.json, and the
headline figures in README.md between <!-- perf:begin --> and <!-- perf:end -->
(README is left alone when it has no such markers). Run by scripts/bench.sh
(and `scripts/bench.sh --report-only`); safe to run alone on whatever result
files exist. Each figure reads only its own file, so a rerun of one benchmark
changes only its own section. Known benchmarks get their own rows and a line
saying why they are measured; a result file this script does not know yet
still gets a section listing its numbers. The page carries no dates and no
history: the same files give the same page."""

import argparse
import glob
import json
import os
import sys

BEGIN, END = "<!-- perf:begin -->", "<!-- perf:end -->"


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
    cmd = "`scripts/bench/bench-rate.sh`"
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
    cmd = "`scripts/bench/bench-scale.sh`"
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
    daemon = r.get("daemon", {})
    slowed = daemon.get("slowed", {})
    for label, ds in (("", daemon.get("scales", [])),
                      (f", worker slowed {slowed.get('pass_delay_us')} us a pass",
                       slowed.get("scales", []))):
        base = next((d for d in ds if d.get("flows") == 128 and not d.get("buffers") and
                     d.get("runs")), None)
        for d in ds:
            if not d.get("runs"):
                continue
            share = d.get("resend_share")
            # 128 flows with as many message buffers as 10,000 flows: the buffers' part
            bufs = (f", each cycling through {fmt(d['buffers'])} message buffers (as many as "
                    f"{fmt(d['flows'] * d['buffers'])} flows have)" if d.get("buffers") else "")
            out.append((f"mrcd{label}, {fmt(d['flows'])} flows ({fmt(d['qps'])} QPs){bufs} on "
                        f"one worker, 256 per host in flight, 1 KiB, verified",
                        f"{fmt(d['msgs_per_cpu_s'])} msgs per CPU-s, p50 "
                        f"{fmt(d['msg_us_p50'])} us, p99 {fmt(d['msg_us_p99'])} us; heap "
                        f"{fmt(d['heap_bytes_per_qp'])} B per QP"
                        + (f"; resends {100 * share:.3f}% of data packets"
                           if share is not None else "")
                        + ("" if d["all_delivered_and_verified"] and
                           not d["flows_without_completion"] else "; NOT ALL DELIVERED"),
                        f"128 flows {fmt(base['msgs_per_cpu_s'])} msgs per CPU-s"
                        if base and d is not base else "",
                        fmt(d["ratio_to_128_flows"]) if "ratio_to_128_flows" in d and
                        d is not base else "",
                        # the sweep's counts show where the rate falls; no goal names them
                        ">= 0.8 of 128 flows, resends < 0.1%"
                        if d["flows"] > 128 and not d.get("sweep") else "",
                        "`scripts/bench/bench-scale.sh`"))
    # bench-scale-cache.json, under callgrind: counted, so it holds on any machine's load.
    # Two series: one core's L2 as the last level, then a worker's share of the L3,
    # whose misses go to memory.
    cache = r.get("cache", {})
    l3 = cache.get("l3", {})
    series = [(cache.get("scales", []), "simulated L2 misses per message (callgrind, one "
               f"core's {cache.get('last_level', '?').split(',')[0]} as the last level)"),
              (l3.get("scales", []), "simulated misses per message past a "
               f"{l3.get('mib', '?')} MiB last level (callgrind; a worker's share of the L3, "
               "so these go to memory)")]
    for rows, what in series:
        for c in rows:
            out.append((f"mrcd, {fmt(c['flows'])} flows, {what}",
                        f"{fmt(c['l2_miss_per_msg'])} misses",
                        "", "", "", "`scripts/bench/bench-scale-cache.sh`"))
    for s in r.get("not_fitting", []):
        out.append((f"{fmt(s['qp_pairs'])} QP pairs on one worker",
                    f"not run: needs {fmt(s['need_mb'])} MB of DPDK heap "
                    f"(budget {fmt(s['mem_mb'])} MB)", "", "",
                    "64k QPs per worker" if s["qp_pairs"] >= 65536 else "", cmd))
    return out


def rows_qp(r):
    cmd = "`scripts/bench/bench-qp.sh`"
    return [("transport per delivered 4 KiB packet, 1 QP pair (no network)",
             f"{fmt(r.get('ns_per_pkt_1qp'))} ns", f"{fmt(r.get('instr_per_pkt'))} instructions",
             "", "", cmd),
            ("same, 1,000 QP pairs", f"{fmt(r.get('ns_per_pkt_1000qp'))} ns", "", "", "", cmd)]


def rows_fabric(r):
    cmd = "`scripts/bench/bench-fabric.sh`"
    return [("emulated fabric per forwarded packet, 32 in flight",
             f"{fmt(r.get('ns_per_pkt_32'))} ns", f"{fmt(r.get('instr_per_pkt'))} instructions",
             "", "", cmd),
            ("same, 512 in flight", f"{fmt(r.get('ns_per_pkt_512'))} ns", "", "", "", cmd)]


def rows_wire(r):
    cmd = "`scripts/bench/bench-wire.sh`"
    ns = r.get("ns_per_pkt", {})
    rows = [("build / parse+ICRC of a 4 KiB SRv6 WRITE",
             f"{fmt(ns.get('build-data-4k'))} / {fmt(ns.get('parse-data-4k'))} ns",
             f"memcpy 4 KiB {fmt(ns.get('memcpy-4k'))} ns",
             f"ICRC = {fmt(r.get('icrc_over_memcpy'))} x memcpy", "", cmd)]
    ir = r.get("instructions")  # bench-wire-instructions.json, under callgrind
    if ir:
        rows.append(("same, instructions per packet (callgrind: repeatable)",
                     f"{fmt(ir.get('build-data-4k'))} / {fmt(ir.get('parse-data-4k'))}",
                     f"memcpy 4 KiB {fmt(ir.get('memcpy-4k'))}",
                     f"parse without ICRC {fmt(ir.get('parse-data-4k-noicrc'))}", "", cmd))
    return rows


def rows_veth_failover(r):
    cmd = "`scripts/bench/bench-veth-failover.sh`"
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
    cmd = "`scripts/bench/bench-veth-loss.sh`"
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
    cmd = "`scripts/bench/bench-incast.sh`"
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
    cmd = "`scripts/bench/bench-failover.sh`"
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
    cmd = "`scripts/bench/bench-loss.sh`"
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
    cmd = "`scripts/bench/bench-balance.sh`"
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


def rows_soak(r):
    v = r.get("verdict", {})
    series = r.get("series", [])
    m = v.get("messages", {})
    return [(f"soak: the demo for {fmt(r.get('seconds'))} s, a sample every "
             f"{fmt(r.get('interval_s'))} s",
             f"RSS median {fmt(v.get('rss_kb_median_first_half', 0) / 1024)} -> "
             f"{fmt(v.get('rss_kb_median_second_half', 0) / 1024)} MiB, mbufs out at most "
             f"{fmt(v.get('pool_in_use_max_first_half'))} -> "
             f"{fmt(v.get('pool_in_use_max_second_half'))}; {fmt(m.get('completed'))} messages, "
             f"{fmt(m.get('lost'))} lost, {fmt(m.get('failed'))} failed, "
             f"{fmt(v.get('qps_in_error'))} QPs in error ({len(series)} samples)",
             "first half against second half", "",
             "flat memory, 0 lost" + ("" if v.get("ok") else ": NOT MET"),
             "`scripts/bench/bench-soak.sh`")]


def rows_workers(r):
    cmd = "`scripts/bench/bench-workers.sh`"
    s = r["summary"]
    one, two = s["tree_1w"], s["tree_2w_soft"]
    out = [("goodput, 2 hosts in loop mode, 4 KiB payloads: 2 workers per host (software "
            "steering: RSS by host pair, which puts both of this bench's on one queue; half the far "
            "ends on the other worker) / 1 worker",
            f"{fmt(two['goodput_gbps'])} Gb/s", f"1 worker {fmt(one['goodput_gbps'])} Gb/s",
            fmt(r["ratio_2w_over_1w"]), ">= 1.7", cmd),
           ("same with (emulated) flow steering, SRv6",
            f"{fmt(s['tree_2w_flow']['goodput_gbps'])} Gb/s" if "tree_2w_flow" in s else "",
            f"1 worker {fmt(one['goodput_gbps'])} Gb/s", fmt(r.get("ratio_2w_flow_over_1w")),
            ">= 1.7", cmd),
           ("2 workers, software steering, per worker CPU-second",
            f"{fmt(two['gbps_per_cpu_s'])} Gb/s, "
            f"{fmt(two['pps_per_cpu_s'])}pps", f"1 worker {fmt(one['gbps_per_cpu_s'])} Gb/s, "
            f"{fmt(one['pps_per_cpu_s'])}pps", "", "", cmd),
           ("software dispatch: share of a worker's cycles (packets that crossed workers: "
            f"{fmt(100 * two['crossed_share'])}%)",
            f"{fmt(100 * two['dispatch_share_of_worker_max'])}%", "", "", "< 15%", cmd)]
    if two.get("others_share") is not None:
        least = two.get("worker_cpu_share_min")
        out.append(("2 workers: CPU the main lcore, stats and other threads took, share of the "
                    f"run ({two['lcores']})" +
                    ("" if least is None else
                     f" (the least CPU a worker got: {fmt(100 * least)}% of the run)"),
                    f"{fmt(100 * two['others_share'])}%", "", "", "", cmd))
    if "main_1w" in s:
        out.append(("1 worker: this tree / main, same run", f"{fmt(one['goodput_gbps'])} Gb/s",
                    f"main {fmt(s['main_1w']['goodput_gbps'])} Gb/s",
                    fmt(r["ratio_1w_over_main"]), "within 5%", cmd))
        if r.get("ratio_1w_over_main_per_cpu_s") is not None:
            out.append(("same, per worker CPU-second", f"{fmt(one['gbps_per_cpu_s'])} Gb/s",
                        f"main {fmt(s['main_1w']['gbps_per_cpu_s'])} Gb/s",
                        fmt(r["ratio_1w_over_main_per_cpu_s"]), "within 5%", cmd))
    return out


def rows_apps(r):
    cmd = "`scripts/bench/bench-apps.sh`"
    out = []
    for size, s in r["summary"].items():
        out.append((f"application (mrc_write_bw through the API) / mrcd's generator, "
                    f"{int(size) // 1024} KiB writes, loop mode, per worker CPU-second",
                    f"{fmt(s['app_gbps_per_cpu_s'])} Gb/s (wall {fmt(s['app_goodput_gbps'])} Gb/s "
                    f"with the worker on {fmt(100 * s['worker_share'])}% of its CPU; the "
                    f"applications' own CPU {fmt(s['app_cpu_per_s'])} s per s)",
                    f"generator {fmt(s['gen_gbps_per_cpu_s'])} Gb/s",
                    fmt(s["ratio_app_over_gen_per_cpu_s"]), ">= 0.8", cmd))
    lat = r.get("latency_1k") or {}
    if lat:
        out.append(("1 KiB write latency: application round trip (mrc_write_lat, twice its "
                    "one-way figure) / generator completion time, p50 and p99",
                    f"p50 {fmt(lat['app_rtt_p50_us'])} us, p99 {fmt(lat['app_rtt_p99_us'])} us",
                    f"p50 {fmt(lat['gen_p50_us'])} us, p99 {fmt(lat['gen_p99_us'])} us",
                    fmt(lat["app_rtt_p50_us"] / lat["gen_p50_us"]) if lat.get("gen_p50_us")
                    else "", "", cmd))
    sw = r.get("sweep") or []
    if sw:
        top = max(sw, key=lambda x: x["bw_avg_gbps"])
        out.append((f"mrc_write_bw -a: every power of 2 from {sw[0]['bytes']} B to "
                    f"{sw[-1]['bytes'] // (1 << 20)} MiB, once, every byte checked",
                    f"{len(sw)} sizes, {sum(x['wrong_bytes'] for x in sw)} wrong bytes; best "
                    f"{fmt(top['bw_avg_gbps'])} Gb/s at {top['bytes'] // 1024} KiB, "
                    f"{fmt(sw[0]['msg_rate_mpps'])} Mpps at {sw[0]['bytes']} B",
                    "", "", "0 wrong", cmd))
    return out


def rows_encap(r):
    cmd = "`scripts/bench/bench-encap.sh`"
    m, q = r["median"], r["ratio_nic_over_software"]
    load = r.get("load_avg") or []
    return [("SRv6 encapsulation by the (emulated) NIC's egress rules / built in software, "
             "goodput, loop mode, one worker" +
             (f" (load average {fmt(load[0])} at the run)" if load else ""),
             f"{fmt(m['auto']['goodput_gbps'])} Gb/s, {fmt(m['auto']['pkts_by_rules'])} "
             "packets by rules",
             f"software {fmt(m['off']['goodput_gbps'])} Gb/s", fmt(q["goodput_gbps"]), "", cmd),
            ("same, the worker's output step, cycles per packet",
             f"{fmt(m['auto']['output_cycles_per_pkt'])}",
             f"software {fmt(m['off']['output_cycles_per_pkt'])}",
             fmt(q["output_cycles_per_pkt"]), "", cmd)]


KNOWN = {"bench-apps": rows_apps, "bench-encap": rows_encap, "bench-workers": rows_workers, "bench-soak": rows_soak, "bench-rate": rows_rate, "bench-scale": rows_scale, "bench-qp": rows_qp,
         "bench-fabric": rows_fabric, "bench-wire": rows_wire,
         "bench-veth-failover": rows_veth_failover, "bench-veth-loss": rows_veth_loss,
         "bench-incast": rows_incast, "bench-failover": rows_failover,
         "bench-loss": rows_loss, "bench-balance": rows_balance}
# Read with another file (bench-wire's instruction counts) or not a figure.
SKIP = {"bench-wire-instructions", "bench-scale-cache"}

# Per figure, in page order: its title and why it is measured (one line).
FIGURES = [
    ("bench-rate", "Datapath packet and byte rate per core",
     "How many cores a host needs for its links: dpdk-testpmd forwarding on the same net_ring "
     "ports is the ceiling of any DPDK datapath, memcpy of the same bytes the ceiling of any "
     "copy."),
    ("bench-workers", "Several workers per host",
     "One core cannot carry a fast host: its QPs are sharded over workers, and a packet read "
     "by the wrong one is passed on through a ring, which must cost little against what it "
     "buys; one worker is the reference."),
    ("bench-apps", "Applications through the MRC API",
     "An MRC program hands its writes to mrcd through shared rings and registered memory: "
     "that path must cost the worker little more than mrcd's own generator moving the same "
     "bytes on the same configuration."),
    ("bench-encap", "SRv6 encapsulation offloaded",
     "Where the NIC adds the outer header from an egress rule, the worker writes less per "
     "packet; here the emulated NIC does that work on the worker's own CPU, so this checks "
     "that the offload path costs about what the software one does, not a real NIC's gain."),
    ("bench-wire", "Wire codec per packet",
     "Every packet is built or parsed and its ICRC computed once; a memcpy of the same 4 KiB "
     "says what that costs against touching the bytes at all."),
    ("bench-qp", "Transport per packet, no network",
     "The transport's own cost per delivered packet, sender and receiver on one core: the most "
     "one core can move."),
    ("bench-fabric", "Emulated fabric per forwarded packet",
     "The emulated fabric carries every test and benchmark; it must cost well under the "
     "transport, so that fabric figures measure mrcd and not the emulator."),
    ("bench-scale", "QPs per worker and memory per QP",
     "A host holds many QPs and few are busy at once: memory per idle QP bounds how many fit, "
     "and throughput must not collapse as they grow; the reference gives each QP rings of its "
     "own. Where the daemon's rate falls as flows grow, the cache misses per message counted "
     "under callgrind say why (doc/architecture.md, \"Many flows on one worker\"). The daemon "
     "runs on 2 MiB hugepages, as users run it, where the free ones hold what it needs (on the "
     "benchmark machine's 512, every flow count but 65,536, which mrcd then runs on 4 KiB "
     "pages by itself; the run says so)."),
    ("bench-failover", "Failover on the emulated fabric",
     "MRC's point: a failed plane, link or switch costs a short stall, not a connection; the "
     "goal is the surviving capacity within 100 us and no message lost."),
    ("bench-loss", "Goodput under random loss",
     "Spraying with selective repeat should lose little goodput to random loss; go-back-N on "
     "one path (plain RoCEv2 RC) is what it replaces."),
    ("bench-balance", "Load balance across planes and links",
     "Spraying should load every plane and link evenly; hashing each QP onto one path (ECMP) "
     "is the reference."),
    ("bench-incast", "7:1 incast tail",
     "Trimming turns the drops of a many-to-one burst into headers the receiver answers at "
     "once, which should keep the tail near the fair share; the same run without trimming is "
     "the reference."),
    ("bench-soak", "Soak",
     "A daemon runs for weeks: over a long run of the demo its memory must stay flat, and no "
     "message may be lost and no QP end in error."),
    ("bench-veth-failover", "Failover on kernel links (veth), against Linux MPTCP",
     "The same fault on real kernel links through net_af_packet, against Linux MPTCP on the "
     "very same paths."),
    ("bench-veth-loss", "Loss on kernel links (veth), against go-back-N and Linux MPTCP",
     "Random loss on real kernel links, each stack divided by its own lossless goodput."),
]


def rows_generic(name, r):
    nums = [f"{k} {fmt(v)}" for k, v in r.items() if isinstance(v, (int, float))
            and not isinstance(v, bool)][:6]
    return [(name, ", ".join(nums) or "(see the JSON)", "", "", "", f"`scripts/bench/{name}.sh`")]


def machine_line(r):
    """The machine a result file says it ran on."""
    m = r.get("machine") if isinstance(r, dict) else None
    if not isinstance(m, dict):  # absent, or an older file's host name
        return "machine not recorded"
    yes = lambda v: "yes" if v else "no"
    return (f"{m.get('cpu_model', 'unknown CPU')}; AVX-512 {yes(m.get('avx512'))}, "
            f"AVX2 {yes(m.get('avx2'))}; {m.get('nproc', '?')} of {m.get('cpus', '?')} CPUs")


def cell(v):
    return str(v).replace("|", "/")


def table(rows):
    out = ["| figure | MRC | reference (same run) | ratio | goal |",
           "|---|---:|---:|---:|---|"]
    out += ["| " + " | ".join(cell(c) for c in r[:5]) + " |" for r in rows]
    return out


def figure_rows(name, r):
    try:
        return KNOWN[name](r) if name in KNOWN else rows_generic(name, r)
    except (KeyError, TypeError, ZeroDivisionError, IndexError) as e:
        return [(name, f"(result file not understood: {e})", "", "", "", "")]


def page(results, results_dir, doc_dir):
    """doc/performance.md, as lines."""
    order = [f for f in FIGURES if f[0] in results]
    order += [(n, n, "") for n in sorted(results) if n not in dict((f[0], 1) for f in FIGURES)]
    rel = os.path.relpath(results_dir, doc_dir)
    out = ["<!-- SPDX-License-Identifier: BSD-3-Clause -->",
           "<!-- Generated by scripts/bench.sh from results/bench-*.json: do not edit. -->",
           "<!-- `scripts/bench.sh --report-only` rewrites it from the files. -->",
           "",
           "# Performance",
           "",
           "Each figure below comes from its own `results/bench-NAME.json`, written by "
           "`scripts/bench/bench-NAME.sh`, and is set against a reference measured in the same "
           "run on the same machine: the ratio is the figure, the absolute numbers depend on the "
           "machine. `scripts/bench.sh` runs every benchmark and rewrites this page; "
           "`scripts/bench.sh --report-only` rewrites it from the files alone. Wall-clock "
           "figures are medians of several runs on a shared machine; fake-clock figures "
           "(failover, loss, balance, incast) do not depend on the machine's load.",
           "",
           "## Machines",
           "",
           "The CPU each result was measured on, and the features that change the datapath "
           "(the ICRC folds 512 bits at a time with AVX-512 and VPCLMULQDQ, 256 with AVX2; a verified "
           "profile fills and checks its messages eight words at a time with AVX-512, four with AVX2).",
           "",
           "| result | CPU, features, CPUs used |",
           "|---|---|"]
    out += [f"| `{n}.json` | {cell(machine_line(results[n]))} |" for n, _, _ in order]
    for name, title, why in order:
        r = results[name]
        out += ["", f"## {title}", ""]
        if why:
            out += [f"Why: {why[0].lower() if why[1:2].islower() else why[0]}{why[1:]}", ""]
        m = machine_line(r)
        out += [f"Machine: {m}." if m != "machine not recorded" else "Machine not recorded.", ""]
        out += table(figure_rows(name, r))
        png = os.path.join(results_dir, name + ".png")
        if os.path.exists(png):
            out += ["", f"![{title}]({rel}/{name}.png)"]
        out += ["", f"Reproduce: `scripts/bench/{name}.sh`; numbers: "
                    f"[`results/{name}.json`]({rel}/{name}.json)."]
    return out


def headline(results):
    """README's few figures: the strongest claim of each area, with its reference."""
    rows = []
    r = results.get("bench-rate")
    if r:
        p, b = r["packet_rate"], r["byte_rate"]
        rows.append(("packets per worker core, 256 B", f"{fmt(p['mrc_pps_per_core'])}pps",
                     f"testpmd macswap {fmt(p.get('testpmd_macswap_pps_per_core'))}pps"))
        rows.append(("goodput per worker core, 4 KiB", f"{fmt(b['mrc_gbps_per_core'])} Gb/s",
                     f"memcpy {fmt(b['memcpy_gbps'])} Gb/s"))
    r = results.get("bench-failover")
    if r and "plane-bh" in r.get("faults", {}):
        x = r["faults"]["plane-bh"]
        rows.append(("a plane black-holed: back to surviving capacity (fake clock)",
                     f"{fmt(x['recovered_us'])} us, {x['msgs_lost']} messages lost",
                     f"goal {r.get('goal_recovered_us', 100)} us"))
    r = results.get("bench-loss")
    if r:
        md = r.get("fake_clock", {}).get("modes", {})
        mrc = md.get("spray_sack", {}).get("ratio", {}).get("0.01")
        gbn = md.get("ecmp_gbn", {}).get("ratio", {}).get("0.01")
        if mrc is not None:
            rows.append(("goodput at 1% loss / lossless (fake clock)", fmt(mrc),
                         f"go-back-N on one path {fmt(gbn)}"))
    r = results.get("bench-incast")
    if r and "trim_on" in r.get("modes", {}):
        on, off = r["modes"]["trim_on"], r["modes"].get("trim_off", {})
        rows.append(("7:1 incast, p99 completion / fair share (fake clock)",
                     fmt(on["p99_over_ideal"]), f"trimming off {fmt(off.get('p99_over_ideal'))}"))
    r = results.get("bench-scale")
    if r:
        rows.append(("memory per idle QP", f"{fmt(r['bytes_per_idle_qp'])} B",
                     f"private rings {fmt(r.get('reference_private_rings', {}).get('bytes_per_idle_qp'))} B"))
    out = ["| figure | mrcd | reference (same run) |", "|---|---:|---:|"]
    out += ["| " + " | ".join(cell(c) for c in x) + " |" for x in rows]
    machines = {}
    for n in sorted(results):
        machines.setdefault(machine_line(results[n]), []).append(n[len("bench-"):])
    where = [m if len(machines) == 1 else f"{m} ({', '.join(ns)})" for m, ns in machines.items()]
    out += ["", "Measured on: " + "; ".join(where) + ". Every figure, its reference and "
            "why: [doc/performance.md](doc/performance.md)."]
    return out


def replace_region(path, begin, end, lines):
    with open(path) as f:
        text = f.read()
    if begin not in text or end not in text:
        print(f"bench-report: {path} has no {begin} ... {end} block: left alone")
        return False
    head, rest = text.split(begin, 1)
    tail = rest.split(end, 1)[1]
    new = head + begin + "\n" + "\n".join(lines) + "\n" + end + tail
    if new != text:
        with open(path, "w") as f:
            f.write(new)
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--results", default="results")
    ap.add_argument("--status", help="JSON lines of the runner: name, status, seconds")
    ap.add_argument("--doc", default="doc/performance.md", help="the page to write")
    ap.add_argument("--readme", help="README to update between the perf markers")
    a = ap.parse_args()
    results = {}
    for path in sorted(glob.glob(os.path.join(a.results, "bench-*.json"))):
        name = os.path.basename(path)[:-5]
        if name in SKIP:
            continue
        try:
            with open(path) as f:
                results[name] = json.load(f)
        except (OSError, ValueError) as e:
            print(f"bench-report: {path}: unreadable ({e}), left out")
    extra = os.path.join(a.results, "bench-wire-instructions.json")
    if "bench-wire" in results and os.path.exists(extra):
        with open(extra) as f:
            results["bench-wire"]["instructions"] = json.load(f)
    extra = os.path.join(a.results, "bench-scale-cache.json")
    if "bench-scale" in results and os.path.exists(extra):
        with open(extra) as f:
            results["bench-scale"]["cache"] = json.load(f)
    if a.status and os.path.exists(a.status):
        with open(a.status) as f:
            for s in (json.loads(line) for line in f if line.strip()):
                if s.get("status") != "ok":
                    print(f"bench-report: {s['name']}: {s['status']} this run; its section "
                          "shows the result file as it is")
    doc_dir = os.path.dirname(a.doc) or "."
    os.makedirs(doc_dir, exist_ok=True)
    with open(a.doc, "w") as f:
        f.write("\n".join(page(results, a.results, doc_dir)) + "\n")
    print(f"bench-report: wrote {a.doc} ({len(results)} result files)")
    if a.readme and os.path.exists(a.readme):
        if replace_region(a.readme, BEGIN, END, headline(results)):
            print(f"bench-report: rewrote the headline figures in {a.readme}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
