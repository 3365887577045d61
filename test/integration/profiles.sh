#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# EV and CC profiles on a running mrcd (doc/control.md, "Profiles"). One
# mrcd runs hosts 0 and 1 of the emulated fabric with the application
# channel and the control socket, no generator traffic. Through mrcctl:
#   - profile list shows the two defaults, online;
#   - as an unprivileged user (setpriv, when run as root) profile add is
#     refused (not-permitted) and nothing is added;
#   - CC profile 1 is added (fixed window, 20 KB) and brought online in two
#     steps; a step that is not one (init to online) is refused;
#   - two mrc-app-test processes (hosts 0 and 1) make their QPs with CC
#     profile 1 (MRC_QP_CC_PROFILE_ID); the client first tries an id mrcd
#     does not have and must get EINVAL with its QP left in RESET;
#   - while they run, /mrc/apps shows each QP's cc_profile 1 and a window
#     of 20,000 bytes, profile show and /mrc/profiles count 2 QPs, and
#     removing the profile, or taking it back to init, is refused (in-use);
#   - once they have gone, it counts 0 QPs and can be removed;
#   - mrcctl events streamed each change that was made, and no refused one.
# Then a second, short run: EV profile 1 and CC profile 2 from the
# configuration file, picked by the traffic profile ([profile] ev_profile,
# cc_profile): online from the start, counting the generator's 4 QPs, whose
# senders have their 288 EVs and fixed window; an id the configuration lacks
# is refused by mrcd --check.
# Usage: profiles.sh MRCD MRCCTL APP_TEST WORKDIR
set -euo pipefail
mrcd=$(realpath "$1")
mrcctl=$(realpath "$2")
app=$(realpath "$3")
work=$4
. "$(dirname "$0")/lib.sh"
mkdir -p "$work"
cd "$work"
rm -f mrcd.log server.log client.log answers.json events.txt
if [ "$(nproc)" -lt 2 ]; then
	echo "profiles: needs 2 CPUs; skipping"
	exit 77
fi
# The control socket where an unprivileged user can reach it.
sockdir=$(mktemp -d /tmp/mrcd-prof-test.XXXXXX)
chmod 755 "$sockdir"
sock=$sockdir/control.sock
asock=$PWD/apps.sock
group=none
if [ "$(id -u)" = 0 ] && getent group nogroup > /dev/null; then
	group=nogroup
fi
"$mrcd" -- --set daemon.apps_socket="$asock" --set control.socket="$sock" \
	--set control.group="$group" --set telemetry.console=false \
	--profile none --scenario none --duration 0 > mrcd.log 2>&1 &
mpid=$!
trap 'kill -TERM $mpid 2>/dev/null || true; rm -rf "$sockdir"' EXIT
tel=
for _ in $(seq 150); do
	tel=$(mrc_sock mrcd.log)
	[ -n "$tel" ] && [ -S "$tel" ] && [ -S "$sock" ] && [ -S "$asock" ] && break
	sleep 0.1
done
[ -S "$asock" ] && [ -S "$sock" ] || { cat mrcd.log; echo "profiles: FAIL: no sockets"; exit 1; }
port=$((20000 + $$ % 20000))
fails=0
timeout 90 /usr/bin/python3 - "$mrc_telemetry" "$tel" "$mrcctl" "$sock" "$group" "$app" \
	"$asock" "$port" > answers.json <<'PY' || fails=$((fails + 1))
import importlib.util, json, os, subprocess, sys, time
spec = importlib.util.spec_from_file_location("tel", sys.argv[1])
tel = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tel)
c = tel.Client(sys.argv[2])
mrcctl, sock, group, app, asock, port = sys.argv[3:9]
bad = []
def q(cmd):
    return list(c.query(cmd).values())[0]
def ctl(*args, user=False):
    cmd = [mrcctl, "-s", sock, *args]
    if user:
        cmd = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", *cmd]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=20)
    print(json.dumps({"cmd": args, "rc": p.returncode, "out": p.stdout.strip(),
                      "err": p.stderr.strip()}), flush=True)
    return p.returncode, p.stdout.strip(), p.stderr.strip()
def expect(cond, what):
    if not cond:
        bad.append(what)
        print("profiles: FAIL:", what, file=sys.stderr)
def profiles():
    rc, out, _ = ctl("profile", "list")
    return {(p["kind"], p["id"]): p for p in json.loads(out)["profiles"]} if rc == 0 else {}

evs = subprocess.Popen([mrcctl, "-s", sock, "events"], stdout=open("events.txt", "w"))
time.sleep(0.3)
ps = profiles()
expect(set(ps) == {("ev", 0), ("cc", 0)} and all(p["state"] == "online" for p in ps.values()),
       f"the defaults: {ps}")
if group != "none":
    rc, _, err = ctl("profile", "add", "kind=cc", "id=1", "algorithm=fixed", user=True)
    expect(rc == 1 and "not-permitted" in err and "may not add profiles: read only" in err,
           f"unprivileged add: {rc} {err}")
    rc, _, _ = ctl("profile", "list", user=True)
    expect(rc == 0, "unprivileged list")
    expect(("cc", 1) not in profiles(), "a refused add added nothing")
rc, out, _ = ctl("profile", "add", "kind=cc", "id=1", "algorithm=fixed", "fixed_cwnd_kb=20")
expect(rc == 0 and json.loads(out)["state"] == "init", f"add: {out}")
rc, _, err = ctl("profile", "state", "kind=cc", "id=1", "state=online")
expect(rc == 1 and "bad-state" in err, f"init -> online: {err}")
for st in ("offline", "online"):
    rc, out, _ = ctl("profile", "state", "kind=cc", "id=1", f"state={st}")
    expect(rc == 0 and json.loads(out)["state"] == st, f"-> {st}: {out}")

env = dict(os.environ, MRC_APP_TEST_CC_PROFILE="1")
srv = subprocess.Popen([app, "server", asock, "1", port, "1048576", "65536", "3"], env=env,
                       stdout=open("server.log", "w"), stderr=subprocess.STDOUT)
cli = subprocess.Popen([app, "client", asock, "0", port, "1048576", "65536", "3"],
                       env=dict(env, MRC_APP_TEST_BAD_PROFILE="9"),
                       stdout=open("client.log", "w"), stderr=subprocess.STDOUT)
qps = []
for _ in range(60):
    time.sleep(0.1)
    a = q("/mrc/apps")
    sess = [v["session"] for k, v in a.items() if k.startswith("session_")]
    qps = [v for s in sess for k, v in q(f"/mrc/apps,{s}").items() if k.startswith("qp_")]
    if len(qps) == 2 and all("cwnd_bytes" in v and v.get("state") == "RTS" for v in qps):
        break
print(json.dumps({"app_qps": qps}), flush=True)
expect(len(qps) == 2 and all(v.get("cc_profile") == 1 and v.get("ev_profile") == 0 for v in qps),
       "/mrc/apps: each QP's profiles")
expect(all(v.get("cwnd_bytes") == 20000 for v in qps), "the QPs' window is the profile's")
rc, out, _ = ctl("profile", "show", "kind=cc", "id=1")
expect(rc == 0 and json.loads(out)["qps"] == 2, f"show counts the QPs: {out}")
tp = q("/mrc/profiles")
print(json.dumps({"profiles": tp}), flush=True)
expect(tp.get("cc_1", {}).get("qps") == 2 and tp.get("ev_0", {}).get("qps") == 2,
       "/mrc/profiles counts")
rc, _, err = ctl("profile", "del", "kind=cc", "id=1")
expect(rc == 1 and "in-use" in err, f"del in use: {err}")
rc, _, _ = ctl("profile", "state", "kind=cc", "id=1", "state=offline")
expect(rc == 0, "online -> offline in use")
rc, _, err = ctl("profile", "state", "kind=cc", "id=1", "state=init")
expect(rc == 1 and "in-use" in err, f"offline -> init in use: {err}")
rc, _, err = ctl("profile", "del", "kind=cc", "id=1")
expect(rc == 1 and "in-use" in err, f"del offline in use: {err}")
expect(srv.wait(timeout=30) == 0, "the server")
expect(cli.wait(timeout=30) == 0, "the client")
for _ in range(50):
    if profiles().get(("cc", 1), {}).get("qps") == 0:
        break
    time.sleep(0.1)
expect(profiles().get(("cc", 1), {}).get("qps") == 0, "the QPs gone, the count is 0")
rc, out, _ = ctl("profile", "del", "kind=cc", "id=1")
expect(rc == 0 and '"removed":true' in out, f"del: {out}")
time.sleep(0.3)
evs.terminate()
evs.wait(timeout=10)
ops = [json.loads(l) for l in open("events.txt") if '"op":"profile"' in l]
print(json.dumps({"events": ops}), flush=True)
expect([(e["do"], e["state"]) for e in ops] ==
       [("add", "init"), ("state", "offline"), ("state", "online"), ("state", "offline"),
        ("del", "none")] and all(e["kind"] == "cc" and e["id"] == 1 for e in ops),
       "the event stream has each change, and no refused one")
sys.exit(1 if bad else 0)
PY
cat server.log client.log 2>/dev/null || true
grep -q "refused EINVAL, QP still in RESET" client.log ||
	{ echo "profiles: FAIL: the client's unknown profile was not refused"; fails=$((fails + 1)); }
kill -TERM $mpid
set +e
wait $mpid
rc=$?
set -e
trap 'rm -rf "$sockdir"' EXIT
[ "$rc" = 0 ] || { echo "profiles: FAIL: mrcd exited $rc"; tail -20 mrcd.log; fails=$((fails + 1)); }

# A second, short run: CC profile 2 defined by the configuration file and
# picked by the generator's traffic profile. Its QPs count on it, online
# from the start, and a sender's window is the profile's fixed one; a
# traffic profile naming an id the configuration does not define is
# refused at start.
cat > cfg.ini <<'INI'
[telemetry]
console = false
[ev_profile.1]
ev_active = 256
[cc_profile.2]
algorithm = fixed
fixed_cwnd_kb = 30
INI
printf '[profile]\npattern = pairs\nmsg_kb = 64\nev_profile = 1\ncc_profile = 2\n' > gen.ini
printf '[profile]\ncc_profile = 3\n' > gen-bad.ini
if "$mrcd" -- -f cfg.ini --profile gen-bad.ini --scenario none --check > bad.log 2>&1; then
	echo "profiles: FAIL: a traffic profile naming cc profile 3 was taken"
	fails=$((fails + 1))
elif ! grep -q "cc_profile = 3: cc profile 3 is not defined" bad.log; then
	cat bad.log
	echo "profiles: FAIL: the refusal does not name the profile"
	fails=$((fails + 1))
fi
rm -f mrcd2.log
"$mrcd" -- -f cfg.ini --set control.socket="$sock" --set control.group="$group" \
	--profile gen.ini --scenario none --duration 0 > mrcd2.log 2>&1 &
mpid=$!
trap 'kill -TERM $mpid 2>/dev/null || true; rm -rf "$sockdir"' EXIT
tel=
for _ in $(seq 150); do
	tel=$(mrc_sock mrcd2.log)
	[ -n "$tel" ] && [ -S "$tel" ] && [ -S "$sock" ] && break
	sleep 0.1
done
[ -S "$sock" ] || { cat mrcd2.log; echo "profiles: FAIL: no control socket (2nd run)"; exit 1; }
timeout 60 /usr/bin/python3 - "$mrc_telemetry" "$tel" "$mrcctl" "$sock" >> answers.json \
	<<'PY' || fails=$((fails + 1))
import importlib.util, json, subprocess, sys, time
spec = importlib.util.spec_from_file_location("tel", sys.argv[1])
tel = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tel)
c = tel.Client(sys.argv[2])
mrcctl, sock = sys.argv[3:5]
bad = []
def q(cmd):
    return list(c.query(cmd).values())[0]
def expect(cond, what):
    if not cond:
        bad.append(what)
        print("profiles: FAIL:", what, file=sys.stderr)
p = subprocess.run([mrcctl, "-s", sock, "profile", "show", "kind=cc", "id=2"],
                   capture_output=True, text=True, timeout=20)
print(json.dumps({"gen_show": p.stdout.strip(), "err": p.stderr.strip()}), flush=True)
shown = json.loads(p.stdout) if p.returncode == 0 else {}
qps = [k for k in q("/mrc/qps") if k.startswith("0x")]
tp = q("/mrc/profiles")
print(json.dumps({"gen_qps": qps, "gen_profiles": tp}), flush=True)
# pairs over hosts 0 and 1, both ways: 2 flows, a sender and a receiver QP each
expect(len(qps) == 4, f"the generator's QPs: {qps}")
expect(shown.get("state") == "online" and shown.get("algorithm") == "fixed" and
       shown.get("fixed_cwnd_kb") == 30, f"cc profile 2 from the file, online: {shown}")
expect(shown.get("qps") == len(qps) and tp.get("cc_2", {}).get("qps") == len(qps),
       "cc profile 2 counts the generator's QPs")
expect(tp.get("ev_1", {}).get("qps") == len(qps) and tp.get("ev_0", {}).get("qps") == 0 and
       tp.get("cc_0", {}).get("qps") == 0, "the defaults count none, EV profile 1 all")
senders = [k for k, v in q("/mrc/qps").items() if k.startswith("0x") and "sender" in v]
info = [q(f"/mrc/qp,{int(k, 16)}") for k in senders]
windows = [i.get("cwnd_bytes") for i in info]
evs = [sum(v for k, v in i.items() if k.startswith("evs_")) for i in info]
print(json.dumps({"gen_windows": windows, "gen_evs": evs}), flush=True)
expect(senders and all(w == 30000 for w in windows), f"the senders' window: {windows}")
# EV profile 1: 256 active and [transport]'s 32 backups (the default has 128 active)
expect(senders and all(n == 288 for n in evs), f"the senders' EVs: {evs}")
sys.exit(1 if bad else 0)
PY
kill -TERM $mpid
set +e
wait $mpid
rc=$?
set -e
trap 'rm -rf "$sockdir"' EXIT
[ "$rc" = 0 ] || { echo "profiles: FAIL: mrcd (2nd run) exited $rc"; tail -20 mrcd2.log; fails=$((fails + 1)); }
if [ "$fails" != 0 ]; then
	cat answers.json
	echo "profiles: FAIL"
	exit 1
fi
echo "profiles: PASS"
