#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
"""mrc-report: merge the per-host `mrcd --json` summaries of a cluster into
one report: a table per host and a table per path (plane, T1), the worst
paths first, and the same as JSON (doc/service.md, "One report for the
cluster").

A path's rows from every host are added up (a path is a plane and a T1 of
the fabric, whichever host sent on it). A path is worse the larger the
share of its packets declared lost; ties go to the larger share resent,
then of ECN echoes and trims.
"""

import argparse
import json
import sys

LOSS_KEYS = ("tx_data_pkts", "tx_retx_pkts", "tx_probes", "lost", "ecn_echoes", "trims",
             "rtt_samples")


def load(path):
    with open(path) as f:
        s = json.load(f)
    if not isinstance(s, dict):
        raise ValueError("not an mrcd --json summary (not a JSON object)")
    for key in ("messages", "path_counters", "first_host", "hosts"):
        if key not in s:
            raise ValueError(f"no '{key}': not an mrcd --json summary of this version")
    first, n = s["first_host"], s["hosts"]
    for i, row in enumerate(s["path_counters"]):
        for key in ("host", "plane", "t1") + LOSS_KEYS:
            if key not in row:
                raise ValueError(f"path_counters row {i}: no '{key}'")
        if not first <= row["host"] < first + n:
            raise ValueError(f"path_counters row {i}: host {row['host']}, but this summary's "
                             f"process runs hosts {first}..{first + n - 1}")
    return s


def overlap(files):
    """The first host two summaries both claim, as an error text; None when none does.
    Two processes that took the same host number (a launcher's variables, or a
    configuration naming first_host, copied to two nodes) would be added up as one."""
    owner = {}
    for name, s in files:
        for h in range(s["first_host"], s["first_host"] + s["hosts"]):
            if h in owner:
                return (f"host {h} is in {owner[h]} and in {name}: each host's summary "
                        f"must come from one process")
            owner[h] = name
    return None


def path_name(plane, t1):
    return f"p{plane}_{'direct' if t1 == 'direct' else 't' + str(t1)}"


def ratio(a, b):
    return a / b if b else 0.0


def merge(files):
    """The cluster report as a dict, from [(file name, summary)]."""
    hosts, paths = [], {}
    for name, s in files:
        first, n = s["first_host"], s["hosts"]
        per_host = {h: {k: 0 for k in LOSS_KEYS} for h in range(first, first + n)}
        for row in s["path_counters"]:
            key = (row["plane"], row["t1"])
            p = paths.setdefault(key, {"plane": row["plane"], "t1": row["t1"],
                                       "hosts": set(), **{k: 0 for k in LOSS_KEYS}})
            p["hosts"].add(row["host"])
            for k in LOSS_KEYS:
                p[k] += row[k]
                per_host[row["host"]][k] += row[k]
        m = s["messages"]
        for h, c in sorted(per_host.items()):
            sent = c["tx_data_pkts"] + c["tx_retx_pkts"]
            hosts.append({
                "host": h, "file": name, "process_hosts": f"{first}..{first + n - 1}",
                "messages_posted": m["posted"], "messages_completed": m["completed"],
                "messages_failed": m["failed"], "messages_lost": m["lost"],
                "goodput_gbps": s.get("goodput_gbps", 0.0),
                "retransmits": s.get("retransmits", 0),
                "ev_states": s.get("ev_states", {}),
                "data_pkts_sent": sent, "lost_on_paths": c["lost"],
                "loss_share": ratio(c["lost"], sent)})
    rows = []
    for p in paths.values():
        sent = p["tx_data_pkts"] + p["tx_retx_pkts"]
        rows.append({**p, "path": path_name(p["plane"], p["t1"]), "hosts": sorted(p["hosts"]),
                     "data_pkts_sent": sent, "loss_share": ratio(p["lost"], sent),
                     "retx_share": ratio(p["tx_retx_pkts"], sent),
                     "congestion_share": ratio(p["ecn_echoes"] + p["trims"], sent)})
    rows.sort(key=lambda r: (-r["loss_share"], -r["retx_share"], -r["congestion_share"],
                             r["plane"], str(r["t1"])))
    for i, r in enumerate(rows):
        r["rank"] = i + 1
    return {"hosts": sorted(hosts, key=lambda h: h["host"]), "paths": rows,
            "summaries": [name for name, _ in files],
            "messages_failed": sum(h["messages_failed"] for h in hosts),
            "messages_lost": sum(h["messages_lost"] for h in hosts)}


def print_tables(r, top, out):
    print(f"mrc-report: {len(r['hosts'])} hosts from {len(r['summaries'])} summaries", file=out)
    print("\nper host (messages, Gb/s and resent are its process's, which runs the hosts "
          "named under 'process'):", file=out)
    print(f"{'host':>5} {'process':>8} {'posted':>9} {'completed':>10} {'failed':>7} {'lost':>6} "
          f"{'Gb/s':>8} {'resent':>8} {'pkts sent':>10} {'lost on path':>13} {'loss %':>7}  "
          f"EVs good/skip/bad/denied", file=out)
    for h in r["hosts"]:
        ev = h["ev_states"]
        print(f"{h['host']:>5} {h['process_hosts']:>8} {h['messages_posted']:>9} {h['messages_completed']:>10} "
              f"{h['messages_failed']:>7} {h['messages_lost']:>6} {h['goodput_gbps']:>8.3f} "
              f"{h['retransmits']:>8} {h['data_pkts_sent']:>10} {h['lost_on_paths']:>13} "
              f"{100 * h['loss_share']:>7.3f}  {ev.get('good', 0)}/{ev.get('skip', 0)}/"
              f"{ev.get('assumed_bad', 0)}/{ev.get('denied', 0)}", file=out)
    paths = r["paths"][:top] if top else r["paths"]
    print(f"\nper path (plane, T1), worst first{'' if not top else f', top {top}'}:",
          file=out)
    print(f"{'rank':>4} {'path':>11} {'pkts sent':>10} {'resent':>7} {'lost':>6} "
          f"{'loss %':>7} {'retx %':>7} {'ECN+trim':>9} {'probes':>7}  hosts", file=out)
    for p in paths:
        print(f"{p['rank']:>4} {p['path']:>11} {p['data_pkts_sent']:>10} {p['tx_retx_pkts']:>7} "
              f"{p['lost']:>6} {100 * p['loss_share']:>7.3f} {100 * p['retx_share']:>7.3f} "
              f"{p['ecn_echoes'] + p['trims']:>9} {p['tx_probes']:>7}  "
              f"{','.join(str(h) for h in p['hosts'])}", file=out)


def main():
    ap = argparse.ArgumentParser(
        prog="mrc-report",
        description="Merge the per-host mrcd --json summaries into one cluster report.")
    ap.add_argument("summaries", nargs="+", metavar="SUMMARY.json")
    ap.add_argument("--json", metavar="FILE",
                    help="also write the report as JSON (- = stdout, instead of the tables)")
    ap.add_argument("--top", type=int, default=0, metavar="N",
                    help="print only the N worst paths (default: all)")
    a = ap.parse_args()
    if a.top < 0:
        ap.error(f"--top {a.top}: must be 0 (every path) or more")
    files = []
    for f in a.summaries:
        try:
            files.append((f, load(f)))
        except (OSError, ValueError, TypeError) as e:
            print(f"mrc-report: {f}: {e}", file=sys.stderr)
            return 2
    err = overlap(files)
    if err:
        print(f"mrc-report: {err}", file=sys.stderr)
        return 2
    r = merge(files)
    if a.json == "-":
        json.dump(r, sys.stdout, indent=1)
        print()
    else:
        print_tables(r, a.top, sys.stdout)
        if a.json:
            with open(a.json, "w") as f:
                json.dump(r, f, indent=1)
                f.write("\n")
    return 1 if r["messages_failed"] or r["messages_lost"] else 0


if __name__ == "__main__":
    sys.exit(main())
