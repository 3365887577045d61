#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
"""An application's goodput through the MRC API against mrcd's own generator
on the same configuration, in the same run (scripts/bench/bench-apps.sh).

Configuration: 2 hosts in loop mode (8 planes), one worker with both hosts on
CPU 1, main's lcore on CPU 0; nothing but the worker's CPU limits a transfer.
Per message size (4 KiB, 64 KiB), one direction (host 0 writes to host 1):

  generator: [profile] pattern = incast to host 1, opcode write, 16
             messages outstanding on one QP, no verification, SECONDS long;
             goodput per worker CPU-second = payload bytes placed (mrcd's
             --json summary) / the worker's CPU time (its summary too);
  app:       mrc_write_bw (tools/perftest, the public API only) under
             mrc-run, server on host 1 and client on host 0, both on CPU 0,
             -D SECONDS, the server checking every byte at the end; goodput
             per worker CPU-second = the client's bytes over its timed loop
             / the worker thread's CPU time over that loop (read from
             /proc: the worker's share of the client's life, times the loop's
             length). The applications' own CPU (getrusage of both) is
             reported beside.

Small writes' latency: mrc_write_lat (1 KiB, ping-pong; half a round trip
as perftest reports, and the round trip; --yield, as both sides share CPU 0
with mrcd's main lcore) against the generator's completion
time of 1 KiB writes one at a time (post to completion: one round trip).

Medians over RUNS rounds. Each run holds LOCK (flock) when given.
"""

import argparse
import fcntl
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

SIZES = [4096, 65536]


def log(msg):
    print(f"bench-apps: {msg}", flush=True)


class Lock:
    def __init__(self, path):
        self.path, self.fd = path, None

    def __enter__(self):
        if self.path:
            self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            fcntl.flock(self.fd, fcntl.LOCK_EX)
        return self

    def __exit__(self, *a):
        if self.fd is not None:
            os.close(self.fd)


def write_cfg(tmp, msg_kb, outstanding):
    prof = os.path.join(tmp, f"profile-{msg_kb}.ini")
    with open(prof, "w") as f:
        f.write("[profile]\npattern = incast\nincast_target = 1\n"
                f"msg_kb = {msg_kb}\noutstanding = {outstanding}\nqps_per_peer = 1\n"
                "opcode = write\nverify = false\n")
    cfg = os.path.join(tmp, f"loop-{msg_kb}-{outstanding}.ini")
    with open(cfg, "w") as f:
        f.write(f"[daemon]\nhosts = 2\nplanes = 8\nprofile = {prof}\nscenario = none\n"
                "drain_ms = 5000\n[ports]\nmode = loop\n[transport]\nencap = plain\n"
                "[telemetry]\nconsole = false\ntimeseries = none\nprometheus = none\n")
    return cfg


def run_gen(a, cfg, tmp, tag):
    out = os.path.join(tmp, f"gen-{tag}.json")
    cmd = [a.mrcd, "--lcores=0@0,1@1", "--", "-f", cfg, "--duration", str(a.seconds),
           "--json", out]
    with Lock(a.lock):
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=a.seconds + 120)
    if r.returncode != 0:
        raise RuntimeError(f"mrcd (generator) failed {r.returncode}: {r.stdout[-2000:]}")
    with open(out) as f:
        return json.load(f)


def thread_cpu(pid, prefix="rte-worker"):
    """CPU seconds of pid's threads whose name starts with prefix (the worker lcores)."""
    tot, hz = 0, os.sysconf("SC_CLK_TCK")
    for t in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{t}/comm") as f:
                if not f.read().startswith(prefix):
                    continue
            with open(f"/proc/{pid}/task/{t}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            tot += int(fields[11]) + int(fields[12])  # utime, stime
        except OSError:
            continue
    return tot / hz


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def wait4(p, timeout):
    end = time.time() + timeout
    while time.time() < end:
        pid, status, ru = os.wait4(p.pid, os.WNOHANG)
        if pid == p.pid:
            p.returncode = os.waitstatus_to_exitcode(status)
            return ru.ru_utime + ru.ru_stime
        time.sleep(0.05)
    p.kill()
    raise RuntimeError(f"{p.args} did not finish in {timeout} s")


def run_app(a, cfg, tmp, tag, client_args, tool, both_args=()):
    """mrcd with no traffic of its own; the tool's server (host 1) and client (host 0)."""
    sock = os.path.join(tmp, f"apps-{tag}.sock")
    out = os.path.join(tmp, f"app-{tag}.json")
    with Lock(a.lock):
        m = subprocess.Popen([a.mrcd, "--lcores=0@0,1@1", "--", "-f", cfg, "--profile", "none",
                              "--duration", "0", "--set", f"daemon.apps_socket={sock}",
                              "--json", out],
                             stdout=open(os.path.join(tmp, f"mrcd-{tag}.log"), "w"),
                             stderr=subprocess.STDOUT)
        try:
            for _ in range(200):
                if os.path.exists(sock):
                    break
                time.sleep(0.05)
            else:
                raise RuntimeError("mrcd made no application socket")
            port = str(free_port())
            run = [a.mrc_run, "--socket", sock]
            pin = ["taskset", "-c", "0"]
            srv = subprocess.Popen(pin + run + [tool, "-d", "mrc_1", "-p", port] + list(both_args),
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            w0, c0 = time.time(), thread_cpu(m.pid)
            cli = subprocess.Popen(pin + run + [tool, "-d", "mrc_0", "-p", port] + list(both_args) +
                                   client_args +
                                   ["--json", "127.0.0.1"],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            cli_cpu = wait4(cli, 300)
            w1, c1 = time.time(), thread_cpu(m.pid)
            cout = cli.stdout.read()
            srv_cpu = wait4(srv, 30)
            sout = srv.stdout.read()
            if cli.returncode != 0 or srv.returncode != 0:
                raise RuntimeError(f"{tool}: client {cli.returncode}, server {srv.returncode}: "
                                   f"{cli.stderr.read()[-1000:]} {sout[-1000:]}")
        finally:
            m.send_signal(signal.SIGTERM)
            m.wait(timeout=60)
    res = json.loads(cout.strip().splitlines()[-1])["results"]
    return {"results": res, "worker_share": (c1 - c0) / (w1 - w0) if w1 > w0 else 0.0,
            "client_cpu_s": cli_cpu, "server_cpu_s": srv_cpu, "client_wall_s": w1 - w0,
            "server_log": sout}


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seconds", type=int, default=3)
    ap.add_argument("--lat-iters", type=int, default=5000)
    ap.add_argument("--lock", default=None)
    ap.add_argument("--out", default="results/bench-apps.json")
    a = ap.parse_args()
    a.mrcd = os.path.abspath(os.path.join(a.build, "app/mrcd/mrcd"))
    a.mrc_run = os.path.abspath(os.path.join(a.build, "sdk/mrc-run"))
    bw = os.path.abspath(os.path.join(a.build, "tools/perftest/mrc_write_bw"))
    lat = os.path.abspath(os.path.join(a.build, "tools/perftest/mrc_write_lat"))
    for f in (a.mrcd, a.mrc_run, bw, lat):
        if not os.access(f, os.X_OK):
            sys.exit(f"bench-apps: {f} not built")
    if os.cpu_count() < 2:
        sys.exit("bench-apps: needs 2 CPUs")
    tmp = tempfile.mkdtemp(prefix="bench-apps-")
    rows = {s: [] for s in SIZES}
    lat_rows = []
    for rnd in range(a.runs):
        for size in SIZES:
            cfg = write_cfg(tmp, size // 1024, 16)
            g = run_gen(a, cfg, tmp, f"{size}-{rnd}")
            gen = {"goodput_gbps": g["data_bytes_placed"] * 8 / g["duration_s"] / 1e9,
                   "gbps_per_cpu_s": g["data_bytes_placed"] * 8 / g["worker_cpu_s"] / 1e9,
                   "worker_cpu_s": g["worker_cpu_s"], "lost": g["messages"]["lost"]}
            r = run_app(a, cfg, tmp, f"bw-{size}-{rnd}",
                        ["-s", str(size), "-D", str(a.seconds)], bw)
            x = r["results"][0]
            cpu = x["seconds"] * r["worker_share"]
            app = {"goodput_gbps": x["bw_avg_gbps"],
                   "gbps_per_cpu_s": x["bytes"] * x["iterations"] * 8 / cpu / 1e9 if cpu else None,
                   "worker_share": r["worker_share"], "wrong_bytes": x["wrong_bytes"],
                   "client_cpu_s": r["client_cpu_s"], "server_cpu_s": r["server_cpu_s"],
                   "client_loop_cpu_s": x["cpu_s"], "loop_s": x["seconds"],
                   "app_cpu_per_s": (r["client_cpu_s"] + r["server_cpu_s"]) / r["client_wall_s"]}
            ratio = (app["gbps_per_cpu_s"] / gen["gbps_per_cpu_s"]
                     if app["gbps_per_cpu_s"] and gen["gbps_per_cpu_s"] else None)
            rows[size].append({"gen": gen, "app": app, "ratio": ratio})
            log(f"round {rnd + 1} {size} B: generator {gen['gbps_per_cpu_s']:.2f} Gb/s per worker "
                f"CPU-s, app {app['gbps_per_cpu_s'] or 0:.2f} (ratio {ratio or 0:.3f}); app "
                f"{app['goodput_gbps']:.2f} Gb/s, worker share {app['worker_share']:.2f}, apps' "
                f"CPU {app['app_cpu_per_s']:.2f} s/s, {app['wrong_bytes']} wrong bytes")
        cfg = write_cfg(tmp, 1, 1)
        g = run_gen(a, cfg, tmp, f"lat-{rnd}")
        r = run_app(a, cfg, tmp, f"lat-{rnd}", ["-s", "1024", "-n", str(a.lat_iters)],
                    lat, ["--yield"])
        x = r["results"][0]
        lat_rows.append({"gen_p50_us": g["completion_us"]["p50"],
                         "gen_p99_us": g["completion_us"]["p99"],
                         "app_p50_us": x["t_p50_us"], "app_p99_us": x["t_p99_us"],
                         "app_rtt_p50_us": 2 * x["t_p50_us"], "app_rtt_p99_us": 2 * x["t_p99_us"],
                         "wrong_bytes": x["wrong_bytes"]})
        log(f"round {rnd + 1} latency 1 KiB: app one-way p50 {x['t_p50_us']:.1f} us p99 "
            f"{x['t_p99_us']:.1f} us (round trip {2 * x['t_p50_us']:.1f} / "
            f"{2 * x['t_p99_us']:.1f}); generator completion p50 "
            f"{g['completion_us']['p50']:.1f} us p99 {g['completion_us']['p99']:.1f} us")
    # The sweep CI runs in powers of 4, here in every power of 2 from 1 B to
    # 64 MiB, once: bytes checked at every size, figures for the table.
    cfg = write_cfg(tmp, 64, 16)
    r = run_app(a, cfg, tmp, "sweep", ["-a"], bw)
    sweep = [{k: x[k] for k in ("bytes", "iterations", "bw_peak_gbps", "bw_avg_gbps",
                                "msg_rate_mpps", "wrong_bytes")} for x in r["results"]]
    for x in sweep:
        log(f"sweep {x['bytes']} B: {x['iterations']} writes, {x['bw_avg_gbps']:.3f} Gb/s, "
            f"{x['msg_rate_mpps']:.4f} Mpps, {x['wrong_bytes']} wrong bytes")
    summary = {}
    for size in SIZES:
        rs = rows[size]
        summary[str(size)] = {
            "gen_gbps_per_cpu_s": med([r["gen"]["gbps_per_cpu_s"] for r in rs]),
            "gen_goodput_gbps": med([r["gen"]["goodput_gbps"] for r in rs]),
            "app_gbps_per_cpu_s": med([r["app"]["gbps_per_cpu_s"] for r in rs]),
            "app_goodput_gbps": med([r["app"]["goodput_gbps"] for r in rs]),
            "app_cpu_per_s": med([r["app"]["app_cpu_per_s"] for r in rs]),
            "worker_share": med([r["app"]["worker_share"] for r in rs]),
            "ratio_app_over_gen_per_cpu_s": med([r["ratio"] for r in rs]),
            "wrong_bytes": sum(r["app"]["wrong_bytes"] for r in rs),
        }
    lat_sum = {k: med([r[k] for r in lat_rows]) for k in lat_rows[0]} if lat_rows else {}
    out = {"bench": "apps", "runs": a.runs, "seconds": a.seconds,
           "config": "2 hosts, loop mode, 8 planes; worker (both hosts) on CPU 1, main lcore "
                     "and both applications on CPU 0; host 0 writes to host 1, one QP",
           "summary": summary, "latency_1k": lat_sum, "sweep": sweep, "rounds": rows,
           "latency_rounds": lat_rows,
           "goal": "app >= 0.8 x generator per worker CPU-second"}
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    with open(a.out, "w") as f:
        json.dump(out, f, indent=1)
    for size, s in summary.items():
        log(f"{size} B writes: app {s['app_gbps_per_cpu_s']:.2f} Gb/s per worker CPU-second, "
            f"generator {s['gen_gbps_per_cpu_s']:.2f}: ratio "
            f"{s['ratio_app_over_gen_per_cpu_s']:.3f} (goal >= 0.8); apps' own CPU "
            f"{s['app_cpu_per_s']:.2f} s per s")
    if lat_sum:
        log(f"1 KiB latency: app round trip p50 {lat_sum['app_rtt_p50_us']:.1f} us p99 "
            f"{lat_sum['app_rtt_p99_us']:.1f} us; generator completion p50 "
            f"{lat_sum['gen_p50_us']:.1f} us p99 {lat_sum['gen_p99_us']:.1f} us")


if __name__ == "__main__":
    main()
