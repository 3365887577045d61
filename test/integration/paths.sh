#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# Per-path counters against the fabric. Two hosts on different T0s (so
# every packet crosses a T1) exchange a fixed number of messages while
# config/scenarios/uplink-down.ini takes down plane 1's link T0 0 -> T1 2
# for 600 ms. Once every message is done (nothing in flight), however long
# a loaded machine takes, asks /mrc/paths of each host and /mrc/links, stops
# mrcd with SIGTERM, and checks:
#   - host 0's path (1, 2) detected losses; no other path lost more than a
#     few (none fails; a resend or a late SACK may be judged lost);
#   - for every (plane, T1) and host, the data packets the engine counted
#     sent on that path (first transmissions plus resends) equal EXACTLY the
#     data packets the fabric counted handed to the host's T0 -> that T1
#     uplink, and the direct column (same T0) sent nothing;
#   - control: the fabric's control packets on an uplink are at least the
#     probes the engine sent on that path (SACKs and NACKs also count there);
#   - /mrc/path,<plane>,<t1> agrees with /mrc/paths, and bad parameters get
#     an error naming the value.
# Usage: paths.sh MRCD_BINARY WORKDIR
set -euo pipefail
mrcd=$(realpath "$1")
work=$2
src=$(realpath "$(dirname "$0")/../..")
. "$(dirname "$0")/lib.sh"
mkdir -p "$work"
cd "$work"
rm -f paths.log summary.json answers.json
if [ "$(nproc)" -lt 2 ]; then
	echo "paths: needs 2 CPUs (main + worker lcore); skipping"
	exit 77
fi
cat > profile.ini <<INI
; each host sends 3000 messages of 64 KiB to the other, 2 Gb/s per QP
[profile]
pattern = pairs
msg_kb = 64
qps_per_peer = 1
outstanding = 4
rate_gbps = 2
messages = 3000
verify = true
INI
cat > paths.ini <<INI
[daemon]
hosts = 2
planes = 2
duration_s = 60
profile = $work/profile.ini
scenario = $src/config/scenarios/uplink-down.ini
[fabric]
t1s = 3
hosts_per_t0 = 1
[lcores]
stats_interval_ms = 20
[telemetry]
timeseries = none
prometheus = none
INI
set +e
"$mrcd" -- -f paths.ini --json summary.json > paths.log 2>&1 &
pid=$!
sock=
for _ in $(seq 100); do
	sock=$(mrc_sock paths.log)
	[ -n "$sock" ] && [ -S "$sock" ] && break
	sleep 0.1
done
timeout 90 /usr/bin/python3 - "$mrc_telemetry" "$sock" > answers.json <<'PY'
import importlib.util, json, sys, time
spec = importlib.util.spec_from_file_location("tel", sys.argv[1])
tel = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tel)
c = tel.Client(sys.argv[2])
def q(cmd):
    return list(c.query(cmd).values())[0]
# The socket comes with the EAL, the /mrc/ commands a little later.
for _ in range(200):
    if isinstance(q("/mrc/info"), dict):
        break
    time.sleep(0.05)
# Every message done on both hosts, then the snapshots of a quiet engine.
for _ in range(1000):
    if all(q(f"/mrc/host,{h}")["msgs_completed"] >= 3000 for h in (0, 1)):
        break
    time.sleep(0.05)
time.sleep(0.3)
out = {"paths": {}, "links": {}, "path": {}}
for h in (0, 1):
    page, start = {}, 0
    while start is not None:
        r = q(f"/mrc/paths,{h},{start}")
        start = r.pop("next", None)
        page.update(r)
    out["paths"][h] = page
start = 0
while start is not None:
    r = q(f"/mrc/links,{start}")
    start = r.pop("next", None)
    out["links"].update(r)
out["path"] = q("/mrc/path,1,2")
out["path_direct"] = q("/mrc/path,0,direct")
out["errors"] = [q(x) for x in ("/mrc/paths,9", "/mrc/path,5,0", "/mrc/path,0,7", "/mrc/path,0,x", "/mrc/path,1")]
print(json.dumps(out))
PY
tel_rc=$?
# Done asking (the run lasts until told): SIGTERM drains and stops it.
kill -TERM $pid
wait $pid
rc=$?
set -e
tail -n 4 paths.log
if [ "$rc" != 0 ] || [ "$tel_rc" != 0 ]; then
	echo "paths: FAIL: mrcd exited $rc, telemetry $tel_rc"
	exit 1
fi
/usr/bin/python3 - answers.json summary.json <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))
s = json.load(open(sys.argv[2]))
fails = []
lf = a["links"]["fields"]
def link(plane, t0, t1):
    v = a["links"][f"p{plane}_t0_t1_{t0}_{t1}"]
    return dict(zip(lf, v))
lost_fields = [f for f in a["paths"]["0"]["fields"] if f.startswith("lost_by_")]
summary = []
for h in ("0", "1"):
    p = a["paths"][h]
    f = p["fields"]
    t1s = p["t1s"]
    if t1s != 3:
        fails.append(f"host {h}: t1s {t1s}, want 3")
    for plane in (0, 1):
        d = dict(zip(f, p[f"p{plane}_direct"]))
        if d["tx_data_pkts"] or d["tx_retx_pkts"]:
            fails.append(f"host {h} p{plane}_direct sent data: {d}")
        for t1 in range(t1s):
            c = dict(zip(f, p[f"p{plane}_t{t1}"]))
            l = link(plane, int(h), t1)
            sent = c["tx_data_pkts"] + c["tx_retx_pkts"]
            lost = sum(c[x] for x in lost_fields)
            summary.append(f"h{h} p{plane} t{t1}: sent {sent} (retx {c['tx_retx_pkts']}) fabric {l['offered_data_pkts']} "
                           f"lost {lost} probes {c['tx_probes']} ctrl {l['offered_ctrl_pkts']} rtt {c['rtt_samples']}")
            if sent != l["offered_data_pkts"]:
                fails.append(f"host {h} path ({plane}, {t1}): engine sent {sent} data packets, "
                             f"fabric counted {l['offered_data_pkts']}")
            if c["tx_probes"] > l["offered_ctrl_pkts"]:
                fails.append(f"host {h} path ({plane}, {t1}): {c['tx_probes']} probes > fabric control "
                             f"{l['offered_ctrl_pkts']}")
            if sent == 0 or c["rtt_samples"] == 0:
                fails.append(f"host {h} path ({plane}, {t1}): no traffic or no RTT sample: {c}")
            if (h, plane, t1) == ("0", 1, 2):
                if lost == 0 or l["drop_down"] == 0:
                    fails.append(f"failed path: {lost} losses, fabric drop_down {l['drop_down']}")
                failed_lost = lost
            elif lost > 5:
                fails.append(f"host {h} path ({plane}, {t1}) lost {lost}: only (1, 2) of host 0 fails")
pf = a["path"].pop("fields")
if a["path"]["path"] != "p1_t2" or a["path"]["host0"] != a["paths"]["0"]["p1_t2"]:
    fails.append(f"/mrc/path,1,2 {a['path']} differs from /mrc/paths,0")
if a["path_direct"]["path"] != "p0_direct":
    fails.append(f"/mrc/path,0,direct: {a['path_direct']}")
want = ["host '9'", "plane '5'", "t1 '7'", "t1 'x'", "'1': give"]
for e, w in zip(a["errors"], want):
    if not isinstance(e, dict) or w not in e.get("error", ""):
        fails.append(f"error reply {e} does not name {w}")
m = s["messages"]
if m["lost"] or m["failed"] or m["completed"] < 6000:
    fails.append(f"messages: {m}")
print("\n".join(summary))
for f in fails:
    print("paths: FAIL:", f)
if not fails:
    print(f"paths: OK: per-path data counts equal the fabric's on all 12 uplink paths; "
          f"failed path lost {failed_lost}")
sys.exit(1 if fails else 0)
PY
