#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
"""mrc-report on summaries written here (doc/service.md, "One report for the
cluster"), so that its merge, order and refusals are checked where mpirun is
missing too (cluster_mpirun checks it on a real two-host run). Each case
prints a line; the last line counts them.

Usage: test_mrc_report.py MRC_REPORT WORKDIR
"""

import json
import os
import subprocess
import sys

report, work = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)
fails = passes = 0


def check(ok, what):
    global fails, passes
    print(f"{'ok' if ok else 'FAIL'}: {what}")
    if ok:
        passes += 1
    else:
        fails += 1


def row(host, plane, t1, sent, retx=0, lost=0, ecn=0, trims=0):
    return {"host": host, "plane": plane, "t1": t1, "tx_data_pkts": sent,
            "tx_data_bytes": sent * 4096, "tx_retx_pkts": retx, "tx_probes": 1, "lost": lost,
            "ecn_echoes": ecn, "trims": trims, "rtt_samples": sent}


def summary(name, first, n, rows, failed=0):
    s = {"first_host": first, "hosts": n, "path_counters": rows,
         "messages": {"posted": 10, "completed": 10 - failed, "failed": failed, "lost": 0},
         "goodput_gbps": 1.5, "retransmits": 3, "ev_states": {"good": 8}}
    path = os.path.join(work, name)
    with open(path, "w") as f:
        json.dump(s, f)
    return path


def run(*args):
    p = subprocess.run([report, *args], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


# Two processes, one host each, two planes of two T1s. Plane 1 T1 0 lost the most
# (by share), then plane 1 T1 1; plane 0 T1 1 only resent, plane 0 T1 0 only saw ECN.
a = summary("a.json", 0, 1, [row(0, 0, 0, 1000, ecn=5), row(0, 0, 1, 1000, retx=4),
                             row(0, 1, 0, 100, lost=10), row(0, 1, 1, 1000, lost=2)])
b = summary("b.json", 1, 1, [row(1, 0, 0, 1000, ecn=5), row(1, 0, 1, 1000, retx=4),
                             row(1, 1, 0, 100, lost=10), row(1, 1, 1, 1000, lost=2)])
rc, out, err = run("--json", "-", a, b)
check(rc == 0, f"two clean summaries: exit {rc} {err.strip()}")
r = json.loads(out) if rc == 0 else {"hosts": [], "paths": []}
check([h["host"] for h in r["hosts"]] == [0, 1], f"hosts {[h['host'] for h in r['hosts']]}")
order = [p["path"] for p in r["paths"]]
check(order == ["p1_t0", "p1_t1", "p0_t1", "p0_t0"], f"paths worst first: {order}")
p = r["paths"][0] if r["paths"] else {}
check(p.get("lost") == 20 and p.get("data_pkts_sent") == 200 and p.get("hosts") == [0, 1],
      f"p1_t0 sums both hosts' rows: {p.get('lost')} lost of {p.get('data_pkts_sent')}, "
      f"hosts {p.get('hosts')}")
rc, out, err = run("--top", "2", a, b)
lines = out.splitlines()
at = next((i for i, l in enumerate(lines) if l.startswith("per path")), len(lines))
ranked = [l.split()[1] for l in lines[at + 2:] if l.strip()]
check(rc == 0 and ranked == ["p1_t0", "p1_t1"], f"--top 2 prints {ranked}")
jf = os.path.join(work, "report.json")
rc, out, err = run("--json", jf, a, b)
check(rc == 0 and json.load(open(jf)) == r, "--json FILE holds what --json - printed")

# A host that failed messages: exit 1.
c = summary("c.json", 1, 1, [row(1, 0, 0, 10)], failed=2)
rc, out, err = run(a, c)
check(rc == 1, f"a host with failed messages: exit {rc}")

# Refused (exit 2, naming what): the same host in two summaries (two processes that
# both took host 0, or one file given twice), a bad --top, a row without a counter.
rc, out, err = run(a, a)
check(rc == 2 and "host 0" in err and "a.json" in err,
      f"host 0 in two summaries: exit {rc}, '{err.strip()}'")
d = summary("d.json", 0, 2, [row(0, 0, 0, 10)])
rc, out, err = run(d, b)
check(rc == 2 and "host 1" in err and "d.json" in err and "b.json" in err,
      f"host 1 in a process of hosts 0..1 and in another: exit {rc}, '{err.strip()}'")
rc, out, err = run("--top", "-1", a)
check(rc == 2 and "-1" in err, f"--top -1: exit {rc}, '{err.strip()}'")
bad = summary("bad.json", 0, 1, [{"host": 0, "plane": 0, "t1": 0}])
rc, out, err = run(bad)
check(rc == 2 and "bad.json" in err and "tx_data_pkts" in err and "Traceback" not in err,
      f"a path row without its counters: exit {rc}, '{err.strip()[-160:]}'")
outside = summary("outside.json", 0, 1, [row(3, 0, 0, 10)])
rc, out, err = run(outside)
check(rc == 2 and "host 3" in err and "0..0" in err,
      f"a row of a host the summary does not run: exit {rc}, '{err.strip()}'")

print(f"mrc_report: {passes} passed, {fails} failed")
sys.exit(1 if fails else 0)
