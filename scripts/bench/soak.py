#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
"""Soak: the demo configuration for a long run, sampled as it goes.

Runs mrcd (config/mrcd.ini, the demo: 2 hosts x 8 planes on the emulated
fabric, plane 3 failing and coming back) for --seconds, and every
--interval seconds records, from /proc and mrcd's own telemetry, its
resident memory (RSS), the mbufs out of each host's pools, the QPs in
ERROR, and the messages posted, completed and failed. At the end: the
summary's messages lost, and a verdict: memory flat (RSS and pool use in
the second half no higher than in the first, within --rss-slack-kb), no
message lost or failed, no QP in error.

  soak.py MRCD [--seconds 1800] [--interval 10] [--json OUT] [--check]

--check exits 1 when the verdict fails (the short CI run uses it). mrcd's
log and summary go to soak.log and soak-summary.json in the current folder.
"""
import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import time



def telemetry(path):
    """A connected DPDK telemetry socket: query(cmd) returns the JSON reply."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.connect(path)
    hello = json.loads(s.recv(16384).decode())
    size = hello.get("max_output_len", 16384) + 1024

    def query(cmd):
        s.send(cmd.encode())
        reply = json.loads(s.recv(size).decode())
        return next(iter(reply.values()))  # keyed by the command without its parameter
    return query


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("mrcd")
    ap.add_argument("--seconds", type=int, default=1800)
    ap.add_argument("--interval", type=float, default=10)
    ap.add_argument("--json", help="write the series and verdict here")
    ap.add_argument("--check", action="store_true", help="exit 1 when the verdict fails")
    ap.add_argument("--rss-slack-kb", type=int, default=2048,
                    help="growth of the median RSS from the first half to the second that "
                         "still counts as flat")
    args = ap.parse_args()
    if args.seconds < 4 * args.interval:
        ap.error(f"--seconds {args.seconds} gives fewer than 4 samples at --interval "
                 f"{args.interval}")
    log = open("soak.log", "w")
    p = subprocess.Popen([args.mrcd, "--", "--duration", str(args.seconds), "--json",
                          "soak-summary.json", "--set", "telemetry.timeseries=none",
                          "--set", "telemetry.prometheus=none"],
                         stdout=log, stderr=subprocess.STDOUT)
    sock, t0 = None, time.monotonic()
    while sock is None and time.monotonic() - t0 < 60 and p.poll() is None:
        with open("soak.log") as f:
            for line in f:
                if "telemetry socket" in line:
                    cand = line.split()[-1]
                    if os.path.exists(cand):
                        sock = cand
        time.sleep(0.2)
    if sock is None:
        p.kill()
        sys.exit("soak: mrcd did not start (see soak.log)")
    query = telemetry(sock)
    hosts = query("/mrc/hosts")
    samples, start = [], time.monotonic()
    print(f"soak: mrcd {p.pid}, {len(hosts)} hosts, {args.seconds} s, a sample every "
          f"{args.interval} s", flush=True)
    while p.poll() is None:
        time.sleep(args.interval)
        try:
            hs = [query(f"/mrc/host,{h}") for h in hosts]
            rss = rss_kb(p.pid)
            # A daemon tearing down its hosts answers null (or nothing) for them.
            if not all(isinstance(h, dict) for h in hs):
                raise ValueError(f"/mrc/host answered {hs!r}")
        except (OSError, ValueError, KeyError, StopIteration) as e:
            if p.poll() is None:
                print(f"soak: telemetry: {e!r}", flush=True)
            break  # mrcd is stopping
        s = {"t": round(time.monotonic() - start, 1), "rss_kb": rss,
             "pool_in_use": sum(h["rx_pool_in_use"] + h["tx_pool_in_use"] for h in hs),
             "qps_in_error": sum(h["qps_in_error"] for h in hs),
             "posted": sum(h["msgs_posted"] for h in hs),
             "completed": sum(h["msgs_completed"] for h in hs),
             "failed": sum(h["msgs_failed"] for h in hs)}
        samples.append(s)
        print(f"soak: {s['t']:7.1f} s  RSS {s['rss_kb'] / 1024:7.1f} MiB  mbufs out "
              f"{s['pool_in_use']:6d}  QPs in error {s['qps_in_error']}  messages "
              f"{s['completed']} of {s['posted']}, {s['failed']} failed", flush=True)
    rc = p.wait()
    summary = json.load(open("soak-summary.json")) if os.path.exists("soak-summary.json") else {}
    msgs = summary.get("messages", {})
    half = len(samples) // 2
    first, second = samples[:half], samples[half:]
    verdict = {"exit_status": rc,
               "messages": msgs,
               "qps_in_error": summary.get("qps_in_error"),
               "samples": len(samples)}
    bad = []
    if rc != 0:
        bad.append(f"mrcd exited {rc}")
    if not msgs or msgs.get("lost") or msgs.get("failed"):
        bad.append(f"messages {msgs}")
    if summary.get("qps_in_error"):
        bad.append(f"{summary['qps_in_error']} QPs in error")
    if len(samples) >= 4:
        r1 = statistics.median(s["rss_kb"] for s in first)
        r2 = statistics.median(s["rss_kb"] for s in second)
        m1 = max(s["pool_in_use"] for s in first)
        m2 = max(s["pool_in_use"] for s in second)
        verdict.update({"rss_kb_median_first_half": r1, "rss_kb_median_second_half": r2,
                        "pool_in_use_max_first_half": m1, "pool_in_use_max_second_half": m2})
        if r2 > r1 + args.rss_slack_kb:
            bad.append(f"RSS grew: median {r1} KiB in the first half, {r2} KiB in the second")
        if m2 > 2 * m1 + 64:
            bad.append(f"mbufs out grew: at most {m1} in the first half, {m2} in the second")
    else:
        bad.append(f"only {len(samples)} samples")
    verdict["ok"] = not bad
    verdict["problems"] = bad
    if args.json:
        json.dump({"bench": "soak", "seconds": args.seconds, "interval_s": args.interval,
                   "config": "config/mrcd.ini", "series": samples, "verdict": verdict},
                  open(args.json, "w"), indent=1)
    for b in bad:
        print("soak: FAIL:", b)
    print(f"soak: {'flat memory, nothing lost' if not bad else 'problems found'}; "
          f"{msgs.get('completed', 0)} messages completed, {len(samples)} samples")
    sys.exit(1 if bad and args.check else 0)


if __name__ == "__main__":
    main()
