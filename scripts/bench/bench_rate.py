#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
"""Datapath packet and byte rate per worker core, each against a reference
measured in the same run. Driven by
scripts/bench/bench-rate.sh; see there for what is measured.

Every figure divides by the CPU time of the one thread doing the work (the
mrcd worker lcore, testpmd's forwarding lcore, the memcpy loop), not by wall
time: on a shared machine a preempted thread would otherwise look slow.
Rounds interleave MRC and its references, the ratio is taken within each
round, and the medians over rounds are reported.
"""

import argparse
import glob
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

CLK_TCK = os.sysconf("SC_CLK_TCK")


def log(msg):
    print(f"bench-rate: {msg}", flush=True)


def thread_cpu_s(pid, comm):
    """utime + stime of the thread of `pid` named `comm` (clock ticks -> s)."""
    for task in glob.glob(f"/proc/{pid}/task/*"):
        try:
            with open(f"{task}/comm") as f:
                if f.read().strip() != comm:
                    continue
            with open(f"{task}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / CLK_TCK
        except OSError:
            continue
    return None


class Telemetry:
    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.sock.connect(path)
        json.loads(self.sock.recv(16384).decode())

    def query(self, cmd):
        self.sock.send(cmd.encode())
        return json.loads(self.sock.recv(65536).decode())

    def close(self):
        self.sock.close()


def testpmd_rate(mode, seconds, frame, prefix):
    """Packets forwarded per CPU-second of testpmd's one forwarding lcore:
    two net_ring ports, each looped to itself, io (or macswap) forwarding
    0 -> 1 -> 0 ..., started with one burst per port (--tx-first)."""
    cmd = ["dpdk-testpmd", "-l", "0,1", "--no-huge", "-m", "256", "--no-pci",
           f"--file-prefix={prefix}", "--vdev=net_ring0", "--vdev=net_ring1",
           "--log-level=lib.eal:error", "--", f"--forward-mode={mode}", "--tx-first",
           "--nb-cores=1", "--total-num-mbufs=8192", f"--txpkts={frame}",
           "--stats-period=3600"]
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    sock = f"/var/run/dpdk/{prefix}/dpdk_telemetry.v2"
    try:
        deadline = time.time() + 15
        while not os.path.exists(sock) and time.time() < deadline and p.poll() is None:
            time.sleep(0.05)
        if p.poll() is not None or not os.path.exists(sock):
            raise RuntimeError(f"testpmd did not start (exit {p.poll()}): {' '.join(cmd)}")
        # The socket file may be the last round's (same prefix) until this
        # testpmd replaces it: refused until then.
        while True:
            try:
                tel = Telemetry(sock)
                break
            except ConnectionRefusedError:
                if time.time() >= deadline or p.poll() is not None:
                    raise
                time.sleep(0.1)

        def sample():
            pk = sum(tel.query(f"/ethdev/stats,{i}")["/ethdev/stats"]["ipackets"]
                     for i in (0, 1))
            return pk, thread_cpu_s(p.pid, "rte-worker-1"), time.monotonic()

        time.sleep(1.0)  # links up, forwarding under way
        a = sample()
        time.sleep(seconds)
        b = sample()
        tel.close()
    finally:
        p.send_signal(signal.SIGINT)
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
    if a[1] is None or b[1] is None or b[1] <= a[1]:
        raise RuntimeError("testpmd: no CPU time for its forwarding lcore")
    pkts = b[0] - a[0]
    return {"pps_per_cpu_s": pkts / (b[1] - a[1]), "pps_wall": pkts / (b[2] - a[2]),
            "cpu_share": (b[1] - a[1]) / (b[2] - a[2])}


def mrcd_rate(mrcd, cfg, seconds, out_json):
    # CPUs named here: other mrcd instances on a shared machine may hold the
    # polling claims; the rate divides by the worker's own CPU time anyway.
    cmd = [mrcd, "-l", "0,1", "--", "-f", cfg, "--duration", str(seconds), "--json", out_json]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=seconds + 60)
    if r.returncode != 0 or not os.path.exists(out_json):
        raise RuntimeError(f"mrcd failed ({r.returncode}):\n{r.stdout[-2000:]}")
    with open(out_json) as f:
        s = json.load(f)
    cpu = s["worker_cpu_s"]
    return {"pps_per_cpu_s": s["data_pkts_placed"] / cpu,
            "gbps_per_cpu_s": s["data_bytes_placed"] * 8 / cpu / 1e9,
            "pps_wall": s["data_pkts_placed"] / (s["duration_s"] + s["drain_s"]),
            "cpu_share": cpu / (s["duration_s"] + s["drain_s"]),
            "retransmits": s["retransmits"], "lost": s["messages"]["lost"]}


def memcpy_rate(binary, region):
    r = subprocess.run([binary, "--bytes", str(4 << 30), "--chunk", "4096", "--region",
                        str(region)], stdout=subprocess.PIPE, text=True, check=True,
                       timeout=120)
    return json.loads(r.stdout)["gbps"]


def write_cfg(tmp, name, mtu, msg_kb, outstanding):
    prof = os.path.join(tmp, f"{name}-profile.ini")
    with open(prof, "w") as f:
        f.write("[profile]\npattern = pairs\n"
                f"msg_kb = {msg_kb}\noutstanding = {outstanding}\n"
                "opcode = write_imm\nverify = false\n")
    cfg = os.path.join(tmp, f"{name}.ini")
    with open(cfg, "w") as f:
        # A long drain: on a loaded machine the worker may get a tenth of a CPU,
        # and messages still in flight at the end would count as lost.
        f.write(f"[daemon]\nhosts = 2\nplanes = 8\nprofile = {prof}\nscenario = none\n"
                "drain_ms = 5000\n"
                "[ports]\nmode = loop\n[lcores]\nworkers = 1\n"
                f"[transport]\nencap = plain\nmtu = {mtu}\n"
                f"[telemetry]\nconsole = false\ntimeseries = none\nprometheus = none\n")
    return cfg


def med(xs):
    return statistics.median(xs) if xs else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--seconds", type=int, default=3)
    ap.add_argument("--out", default="results/bench-rate.json")
    a = ap.parse_args()
    if a.runs < 1 or a.seconds < 1:
        sys.exit("bench-rate: --runs and --seconds must be at least 1")
    mrcd = os.path.join(a.build, "app/mrcd/mrcd")
    memcpy_bin = os.path.join(a.build, "test/bench/bench_memcpy")
    for b in (mrcd, memcpy_bin):
        if not os.access(b, os.X_OK):
            sys.exit(f"bench-rate: {b} not built (ninja -C {a.build})")
    have_testpmd = subprocess.run(["sh", "-c", "command -v dpdk-testpmd"],
                                  stdout=subprocess.DEVNULL).returncode == 0
    if not have_testpmd:
        log("dpdk-testpmd not installed (apt-get install dpdk-dev): no packet-rate reference")

    small = {"mtu": 256, "msg_kb": 64, "outstanding": 8}
    big = {"mtu": 4096, "msg_kb": 1024, "outstanding": 4}
    # A 256 B payload in a plain-encap WRITE: Ethernet 14 + IPv6 40 + UDP 8 +
    # BTH 12 + RETH 16 + MRC's own headers, then the ICRC: about 360 bytes.
    frame = 360
    region = 2 * big["msg_kb"] * 1024 * big["outstanding"]
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-rate.") as tmp:
        cfg_small = write_cfg(tmp, "small", **small)
        cfg_big = write_cfg(tmp, "big", **big)
        failed = []
        for r in range(a.runs):
            row = {}
            # A round is measured whole or not at all: its ratios pair MRC with
            # references taken beside it. One that fails (hugepages taken by
            # another process, say) is reported and the others still count.
            try:
                if have_testpmd:
                    pfx = f"bench_rate_{os.getpid()}"
                    row["testpmd_io"] = testpmd_rate("io", a.seconds, frame, pfx)
                    row["testpmd_macswap"] = testpmd_rate("macswap", a.seconds, frame, pfx)
                row["mrc_small"] = mrcd_rate(mrcd, cfg_small, a.seconds,
                                             os.path.join(tmp, "s.json"))
                row["memcpy_gbps"] = memcpy_rate(memcpy_bin, region)
                row["mrc_4k"] = mrcd_rate(mrcd, cfg_big, a.seconds, os.path.join(tmp, "b.json"))
            except (RuntimeError, subprocess.SubprocessError, OSError, KeyError,
                    ValueError) as e:
                first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
                log(f"round {r + 1}/{a.runs}: failed, left out: {first}")
                failed.append({"round": r + 1, "error": str(e)[-2000:]})
                continue
            rows.append(row)
            msg = (f"round {r + 1}/{a.runs}: MRC {row['mrc_small']['pps_per_cpu_s'] / 1e6:.2f} "
                   f"Mpps/core (256 B)")
            if have_testpmd:
                msg += (f", testpmd io {row['testpmd_io']['pps_per_cpu_s'] / 1e6:.1f}, macswap "
                        f"{row['testpmd_macswap']['pps_per_cpu_s'] / 1e6:.1f} Mpps/core")
            msg += (f"; MRC {row['mrc_4k']['gbps_per_cpu_s']:.1f} Gb/s/core (4 KiB), memcpy "
                    f"{row['memcpy_gbps']:.0f} Gb/s")
            log(msg)

    if not rows:
        sys.exit(f"bench-rate: every round failed; the last: {failed[-1]['error']}")

    def col(key, field):
        return [x[key][field] for x in rows if key in x]

    res = {
        "bench": "rate",
        "runs": a.runs, "rounds_measured": len(rows), "failed_rounds": failed,
        "seconds_per_run": a.seconds,
        "cpus": os.cpu_count(),
        "packet_rate": {
            "payload_bytes": small["mtu"], "msg_kb": small["msg_kb"],
            "mrc_pps_per_core": med(col("mrc_small", "pps_per_cpu_s")),
            "mrc_cpu_share": med(col("mrc_small", "cpu_share")),
            "testpmd_io_pps_per_core": med(col("testpmd_io", "pps_per_cpu_s")),
            "testpmd_macswap_pps_per_core": med(col("testpmd_macswap", "pps_per_cpu_s")),
            "ratio_vs_testpmd_io": med([x["mrc_small"]["pps_per_cpu_s"] /
                                        x["testpmd_io"]["pps_per_cpu_s"]
                                        for x in rows if "testpmd_io" in x]),
            "ratio_vs_testpmd_macswap": med([x["mrc_small"]["pps_per_cpu_s"] /
                                             x["testpmd_macswap"]["pps_per_cpu_s"]
                                             for x in rows if "testpmd_macswap" in x]),
            "retransmits": sum(col("mrc_small", "retransmits")),
        },
        "byte_rate": {
            "payload_bytes": big["mtu"], "msg_kb": big["msg_kb"],
            "mrc_gbps_per_core": med(col("mrc_4k", "gbps_per_cpu_s")),
            "mrc_cpu_share": med(col("mrc_4k", "cpu_share")),
            "memcpy_gbps": med([x["memcpy_gbps"] for x in rows]),
            "memcpy_region_bytes": region,
            "ratio_vs_memcpy": med([x["mrc_4k"]["gbps_per_cpu_s"] / x["memcpy_gbps"]
                                    for x in rows]),
            "retransmits": sum(col("mrc_4k", "retransmits")),
        },
        "rounds": rows,
    }
    os.makedirs(os.path.dirname(a.out) or ".", exist_ok=True)
    with open(a.out, "w") as f:
        json.dump(res, f, indent=1)
    pr, br = res["packet_rate"], res["byte_rate"]
    log(f"packet rate: MRC {pr['mrc_pps_per_core'] / 1e6:.2f} Mpps per core (256 B payload)"
        + (f"; testpmd io {pr['testpmd_io_pps_per_core'] / 1e6:.1f} Mpps, ratio "
           f"{pr['ratio_vs_testpmd_io']:.4f}; macswap "
           f"{pr['testpmd_macswap_pps_per_core'] / 1e6:.1f} Mpps, ratio "
           f"{pr['ratio_vs_testpmd_macswap']:.3f}" if have_testpmd else ""))
    log(f"byte rate: MRC {br['mrc_gbps_per_core']:.1f} Gb/s per core (4 KiB payload); "
        f"memcpy {br['memcpy_gbps']:.0f} Gb/s, ratio {br['ratio_vs_memcpy']:.3f}")
    log(f"wrote {a.out}")


if __name__ == "__main__":
    main()
