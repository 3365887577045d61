#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# The node controller end to end (doc/control.md). Two hosts on different
# T0s of the emulated fabric (2 planes, 2 T1s, every packet crosses a T1)
# send to each other at 50 Mb/s per QP, two QPs each way: a load that
# the paths left after the deny below still carry (each T1 uplink and host
# port runs at 250 Mb/s), and that a worker sharing its CPU keeps up with.
# While they do, mrcctl:
#   - denies every EV of T1 1 of plane 1 on both hosts: from 100 ms after
#     the deny to the re-admit, the fabric's uplinks to that T1 (T0 0 and
#     T0 1 -> T1 1 of plane 1) carry no data packet, while the other
#     three T1s do; the goodput stays at least 0.75 of what it was before
#     (the rest is room for a worker whose CPU is shared: on an idle machine
#     the three windows measure the same to 1%);
#   - re-admits it: data crosses that T1 again, the goodput holds;
#   - `mrcctl events` saw the operator's deny and allow, and per-EV events
#     DENIED and back to GOOD on (plane 1, T1 1) only;
#   - a deny that would leave a QP no EV is refused and changes nothing;
#   - plane 0's ports set administratively down: no data on plane 0's
#     uplinks, /mrc/ports says so; its last port up cannot be set down;
#     set up again, plane 0 carries data again;
#   - as an unprivileged user (setpriv --reuid=nobody, socket group
#     nogroup, root only): status answers, deny and reload are refused
#     (not-permitted); reload of an mrcd that is not a service is refused;
#   - mrcctl probe: every EV probed on a live path answers (0 < RTT < 100 ms),
#     EVs of the denied T1 and of plane 0 set down send nothing, and a bad
#     QP, EV, path or host=all is refused;
#   - a second mrcd on the same socket refuses to start, naming it.
# Usage: ctl.sh MRCD MRCCTL WORKDIR
set -euo pipefail
mrcd=$(realpath "$1")
mrcctl=$(realpath "$2")
work=$3
src=$(realpath "$(dirname "$0")/../..")
. "$(dirname "$0")/lib.sh"
mkdir -p "$work"
cd "$work"
rm -f ctl.log summary.json answers.json events.txt
if [ "$(nproc)" -lt 2 ]; then
	echo "ctl: needs 2 CPUs (main + worker lcore); skipping"
	exit 77
fi
# The socket where an unprivileged user can reach it (the build tree may not be).
sockdir=$(mktemp -d /tmp/mrcd-ctl-test.XXXXXX)
chmod 755 "$sockdir"
sock=$sockdir/control.sock
trap 'rm -rf "$sockdir"' EXIT
group=none
if [ "$(id -u)" = 0 ] && getent group nogroup > /dev/null; then
	group=nogroup
fi
cat > profile.ini <<INI
[profile]
pattern = pairs
msg_kb = 64
qps_per_peer = 2
outstanding = 4
rate_gbps = 0.05
messages = 0
verify = true
INI
cat > ctl.ini <<INI
[daemon]
hosts = 2
planes = 2
duration_s = 11
profile = $work/profile.ini
scenario = none
[fabric]
t1s = 2
hosts_per_t0 = 1
[lcores]
stats_interval_ms = 10
[telemetry]
timeseries = none
prometheus = none
console = false
[control]
socket = $sock
group = $group
INI
set +e
"$mrcd" -- -f ctl.ini --json summary.json > ctl.log 2>&1 &
pid=$!
tel=
for _ in $(seq 100); do
	tel=$(mrc_sock ctl.log)
	[ -n "$tel" ] && [ -S "$tel" ] && [ -S "$sock" ] && break
	sleep 0.1
done
timeout 60 /usr/bin/python3 - "$mrc_telemetry" "$tel" "$mrcctl" "$sock" "$group" "$mrcd" \
	"$work" > answers.json <<'PY'
import importlib.util, json, os, subprocess, sys, time
spec = importlib.util.spec_from_file_location("tel", sys.argv[1])
tel = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tel)
c = tel.Client(sys.argv[2])
mrcctl, sock, group, mrcd, work = sys.argv[3:8]
def q(cmd):
    return list(c.query(cmd).values())[0]
def ctl(*args, user=None):
    cmd = [mrcctl, "-s", sock, *args]
    if user:
        cmd = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", *cmd]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=20)
    return {"rc": p.returncode, "out": p.stdout.strip(), "err": p.stderr.strip()}
def links():
    out, start = {}, 0
    while start is not None:
        r = q(f"/mrc/links,{start}")
        start = r.pop("next", None)
        f = r.pop("fields")
        out.update({k: dict(zip(f, v)) for k, v in r.items()})
    return out
def goodput(secs):
    b0 = sum(q(f"/mrc/host,{h}")["bytes_verified"] for h in (0, 1)); t0 = time.monotonic()
    time.sleep(secs)
    b1 = sum(q(f"/mrc/host,{h}")["bytes_verified"] for h in (0, 1)); t1 = time.monotonic()
    return (b1 - b0) * 8 / (t1 - t0) / 1e6
UP = [f"p1_t0_t1_{t0}_1" for t0 in (0, 1)]
OTHERS = [f"p{p}_t0_t1_{t0}_{t1}" for p in (0, 1) for t0 in (0, 1) for t1 in (0, 1)
          if (p, t1) != (1, 1)]
def data(l, names):
    return {n: l[n]["offered_data_pkts"] for n in names}
out = {}
ev = subprocess.Popen([mrcctl, "-s", sock, "events"], stdout=open(os.path.join(work, "events.txt"), "w"))
time.sleep(1.0)
out["mbps_before"] = goodput(1.5)
# Probes of a live path, then of one of its EVs alone.
out["probe_path"] = ctl("probe", "host=0", "plane=0", "t1=0")
try:
    first = json.loads(out["probe_path"]["out"])["probes"][0]
    qpn, ev0 = first["qpn"], first["ev"]
except (ValueError, KeyError, IndexError):
    qpn, ev0 = "0x100", "0x1"
out["probe_one"] = ctl("probe", "host=0", f"qpn={qpn}", f"ev={ev0}")
out["deny"] = ctl("deny", "host=all", "plane=1", "t1=1")
time.sleep(0.1)
l1 = links()
# A denied path: nothing is sent on its EVs; one of them alone is refused.
out["probe_denied"] = ctl("probe", "host=0", "plane=1", "t1=1")
try:
    d = json.loads(out["probe_denied"]["out"])["probes"][0]
    out["probe_denied_one"] = ctl("probe", "host=0", f"qpn={d['qpn']}", f"ev={d['ev']}")
except (ValueError, KeyError, IndexError):
    out["probe_denied_one"] = {"rc": -1, "out": "", "err": "no EV listed"}
out["status_denied"] = ctl("status")
out["mbps_denied"] = goodput(2.0)
l2 = links()
out["qp_ev_denied"] = [q(f"/mrc/host,{h}")["ev_denied"] for h in (0, 1)]
out["paths_denied"] = q("/mrc/paths,0,0").get("denied")
out["allow"] = ctl("allow", "host=all", "plane=1", "t1=1")
time.sleep(0.3)
l3 = links()
out["mbps_after"] = goodput(1.5)
l4 = links()
out["qp_ev_after"] = [q(f"/mrc/host,{h}")["ev_denied"] for h in (0, 1)]
out["denied_window"] = {n: data(l2, [n])[n] - data(l1, [n])[n] for n in UP + OTHERS}
out["after_window"] = {n: data(l4, [n])[n] - data(l3, [n])[n] for n in UP}
# Refusals that change nothing.
out["plane0"] = ctl("deny", "host=all", "plane=0")
out["strand"] = ctl("deny", "host=0", "plane=1")
out["status_strand"] = ctl("status")
out["allow0"] = ctl("allow", "host=all", "plane=0")
# A port set down administratively: the run loop publishes it as a link down.
out["port_down"] = ctl("port", "host=all", "plane=0", "state=down")
time.sleep(0.1)
l5 = links()
out["ports_down"] = q("/mrc/ports,0")
time.sleep(0.5)
l6 = links()
out["probe_down"] = ctl("probe", "host=0", "plane=0")
out["port_last"] = ctl("port", "host=0", "plane=1", "state=down")
out["port_up"] = ctl("port", "host=all", "plane=0", "state=up")
time.sleep(0.3)
l7 = links()
time.sleep(0.5)
l8 = links()
P0 = [f"p0_t0_t1_{t0}_{t1}" for t0 in (0, 1) for t1 in (0, 1)]
out["port_down_window"] = {n: l6[n]["offered_data_pkts"] - l5[n]["offered_data_pkts"] for n in P0}
out["port_up_window"] = {n: l8[n]["offered_data_pkts"] - l7[n]["offered_data_pkts"] for n in P0}
out["bad_host"] = ctl("deny", "host=7", "plane=0")
out["bad_qp"] = ctl("deny", "host=0", "qpn=0x999", "ev=1")
out["probe_bad_qp"] = ctl("probe", "host=0", "qpn=0x999", "ev=1")
out["probe_bad_ev"] = ctl("probe", "host=0", f"qpn={qpn}", "ev=0xf0000001")
out["probe_all"] = ctl("probe", "host=all", "plane=0")
out["probe_bad_t1"] = ctl("probe", "host=0", "plane=0", "t1=2")
out["reload"] = ctl("reload")  # not a service: refused by name
if group != "none":
    out["nobody_status"] = ctl("status", user=True)
    out["nobody_deny"] = ctl("deny", "host=0", "plane=1", "t1=0", user=True)
    out["nobody_reload"] = ctl("reload", user=True)
# A second daemon on the same socket stops at once, naming it.
p = subprocess.run([mrcd, "--", "-f", os.path.join(work, "ctl.ini"), "--duration", "1"],
                   capture_output=True, text=True, timeout=60)
out["second"] = {"rc": p.returncode, "log": (p.stdout + p.stderr)[-600:]}
time.sleep(0.3)
ev.terminate()
ev.wait(5)
print(json.dumps(out))
PY
tel_rc=$?
wait $pid
rc=$?
set -e
tail -n 3 ctl.log
if [ "$rc" != 0 ] || [ "$tel_rc" != 0 ]; then
	echo "ctl: FAIL: mrcd exited $rc, the driver $tel_rc"
	exit 1
fi
/usr/bin/python3 - answers.json summary.json events.txt "$group" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))
s = json.load(open(sys.argv[2]))
events = [json.loads(l) for l in open(sys.argv[3]) if l.strip()]
group = sys.argv[4]
fails = []
def ok(name, want_rc=0, has=None):
    r = a[name]
    if r["rc"] != want_rc or (has and has not in r["out"] + r["err"]):
        fails.append(f"{name}: {r}, want rc {want_rc} and '{has}'")
ok("deny", 0, '"denied_evs":')
ok("allow", 0, '"allowed_evs":')
if json.loads(a["deny"]["out"])["denied_evs"] != json.loads(a["allow"]["out"])["allowed_evs"]:
    fails.append(f"denied {a['deny']['out']}, re-admitted {a['allow']['out']}")
if '"p1_t1"' not in a["status_denied"]["out"]:
    fails.append(f"status while denied: {a['status_denied']['out']}")
if a["paths_denied"] != ["p1_t1"]:
    fails.append(f"/mrc/paths denied: {a['paths_denied']}")
if min(a["qp_ev_denied"]) == 0 or max(a["qp_ev_after"]) != 0:
    fails.append(f"/mrc/host ev_denied: {a['qp_ev_denied']} while denied, {a['qp_ev_after']} after")
for n, v in a["denied_window"].items():
    if n.startswith("p1_t0_t1_") and n.endswith("_1"):
        if v != 0:
            fails.append(f"{n}: {v} data packets crossed the denied T1")
    elif v == 0:
        fails.append(f"{n}: no data while T1 1 of plane 1 was denied")
for n, v in a["after_window"].items():
    if v == 0:
        fails.append(f"{n}: no data after the re-admit")
b, d, f = a["mbps_before"], a["mbps_denied"], a["mbps_after"]
if b <= 0 or d < 0.75 * b or f < 0.75 * b:
    fails.append(f"goodput {b:.0f} Mb/s before, {d:.0f} denied, {f:.0f} after")
ok("plane0", 0, '"denied_evs":')
ok("strand", 1, "would-strand")
if '"p0","p1_t0"' in a["status_strand"]["out"] or '"p1"' in a["status_strand"]["out"]:
    fails.append(f"a refused deny changed the table: {a['status_strand']['out']}")
ok("allow0", 0, '"allowed_evs":')
ok("port_down", 0, '"state":"down"')
ok("port_last", 1, "would-strand plane 1 is host 0's last port")
ok("port_up", 0, '"state":"up"')
pd = a["ports_down"]
if pd.get("admin_down") != 1 or pd.get("link_up") != [0, 1]:
    fails.append(f"/mrc/ports,0 with plane 0 set down: admin_down {pd.get('admin_down')}, link_up {pd.get('link_up')}")
if any(v != 0 for v in a["port_down_window"].values()):
    fails.append(f"data on plane 0 while its ports were down: {a['port_down_window']}")
if any(v == 0 for v in a["port_up_window"].values()):
    fails.append(f"no data on plane 0 once its ports were up again: {a['port_up_window']}")
ok("bad_host", 1, "no-such-host host '7'")
ok("bad_qp", 1, "no-such-qp QP 0x999")
# probe: a live path answers (every probe, 0 < RTT < 100 ms), a denied one sends nothing,
# a plane whose ports are down sends nothing, bad EVs and paths are refused.
ok("probe_path", 0, '"probes":[')
ok("probe_one", 0, '"rtt_ns":')
try:
    pp = json.loads(a["probe_path"]["out"])
    rtts = [p["rtt_ns"] for p in pp["probes"]] + [json.loads(a["probe_one"]["out"])["rtt_ns"]]
    if pp["probed"] == 0 or pp["answered"] != pp["probed"] or pp["evs"] < pp["probed"]:
        fails.append(f"probe of a live path: {a['probe_path']['out']}")
    if any(r is None or not 0 < r < 100e6 for r in rtts):
        fails.append(f"probe RTTs out of (0, 100 ms): {rtts}")
except (ValueError, KeyError, TypeError) as e:
    fails.append(f"probe answers: {e}: {a['probe_path']}, {a['probe_one']}")
    rtts = []
ok("probe_denied", 0, '"answered":0')
pd_ = json.loads(a["probe_denied"]["out"] or "{}")
if not pd_.get("probes") or any(p.get("result") != "denied" for p in pd_["probes"]):
    fails.append(f"probe of a denied path: {a['probe_denied']['out']}")
ok("probe_denied_one", 1, "path-denied")
ok("probe_down", 0, '"answered":0')
pdn = json.loads(a["probe_down"]["out"] or "{}")
if not pdn.get("probes") or any(p.get("result") != "plane down" for p in pdn["probes"]):
    fails.append(f"probe of a plane set down: {a['probe_down']['out']}")
ok("probe_bad_qp", 1, "no-such-qp QP 0x999")
ok("probe_bad_ev", 1, "no-such-ev EV 0xf0000001")
if a["probe_all"]["rc"] == 0 or "probe needs one host" not in a["probe_all"]["err"]:
    fails.append(f"probe host=all: {a['probe_all']}")
if a["probe_bad_t1"]["rc"] == 0 or "no-such-path" not in a["probe_bad_t1"]["err"]:
    fails.append(f"probe t1=2: {a['probe_bad_t1']}")
if group != "none":
    ok("nobody_status", 0, '"admin":false')
    ok("nobody_deny", 1, "not-permitted")
    ok("nobody_reload", 1, "may not reload")
ok("reload", 1, "not-service mrcd reloads only as a service (--service)")
sec = a["second"]
if sec["rc"] == 0 or "socket of a running mrcd" not in sec["log"]:
    fails.append(f"a second mrcd on the socket: {sec}")
ops = [(e["op"], e.get("plane"), e.get("t1")) for e in events if "op" in e]
if ("port", 0, None) not in ops:
    fails.append(f"events: no port change in {ops}")
for want in (("deny", 1, 1), ("allow", 1, 1)):
    if want not in ops:
        fails.append(f"events: no {want} in {ops}")
evs = [e for e in events if "op" not in e]
down = [e for e in evs if e["to"] == "DENIED" and (e["plane"], e["t1"]) == (1, 1)]
back = [e for e in evs if e["from"] == "DENIED" and (e["plane"], e["t1"]) == (1, 1)]
denied_n = json.loads(a["deny"]["out"])["denied_evs"]
if len(down) != denied_n or len(back) != denied_n:
    fails.append(f"events: {len(down)} DENIED and {len(back)} back on (1, 1), want {denied_n} each")
m = s["messages"]
if m["failed"] or m["completed"] == 0:
    fails.append(f"messages: {m}")
print(f"ctl: goodput {b:.0f} Mb/s before, {d:.0f} with T1 1 of plane 1 denied, {f:.0f} after; "
      f"{denied_n} EVs denied and re-admitted; {len(evs)} EV events")
if rtts:
    print(f"ctl: probe RTTs {min(rtts)} .. {max(rtts)} ns over {len(rtts)} answers")
for x in fails:
    print("ctl: FAIL:", x)
if not fails:
    print("ctl: OK")
sys.exit(1 if fails else 0)
PY
