#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# Applications on mrcd through lib_mrc (doc/applications.md): one mrcd runs
# hosts 0 and 1 of the emulated fabric with no generator traffic, each host
# on two workers ([lcores] workers_per_host = 2, two worker lcores); two
# processes of mrc-app-test attach to it, one per host, exchange what they
# need over TCP and move 1 MiB rounds of 64 KiB WRITEs over 4 QPs (each
# QP's every 64th signalled) for 3 s, then a WRITE_WITH_IMM that the server
# receives on a posted receive; the server checks every byte of the last
# round. Plane 2 fails at 1 s and comes back at 2 s: nothing may be lost
# (each write completes successfully, the bytes are right). /mrc/apps must
# list both sessions while they run, with both workers owning some of their
# QPs; no packet may reach a shard that does not own its QP. Both sessions
# must be gone within 5 s of the programs' end (their regions released),
# and mrcd must exit 0 after, every mempool full again. (Failures on two
# workers: apps_failures_2w; apps_fabric runs one worker per host.) With
# [ports] encap_offload = auto and no generator flow, no destination has
# encap rules: every packet of the applications' QPs is built in software
# and counted in encap_pkts' sw_no_table (doc/offload.md).
# Usage: apps_channel.sh MRCD_BINARY APP_TEST_BINARY WORKDIR
set -euo pipefail
mrcd=$(realpath "$1")
app=$(realpath "$2")
work=$3
. "$(dirname "$0")/lib.sh"
mkdir -p "$work"
cd "$work"
rm -f mrcd.log server.log client.log apps.json run.json
if [ "$(nproc)" -lt 2 ]; then
	echo "apps_channel: needs 2 CPUs; skipping"
	exit 77
fi
sock=$PWD/apps.sock
cat > scenario.ini <<'S'
[scenario]
name = apps-plane2
description = plane 2 down from 1 s to 2 s

[event.down]
at = 1s
element = plane
plane = 2
action = down

[event.up]
at = 2s
element = plane
plane = 2
action = up
S
port=$((20000 + $$ % 20000))
"$mrcd" --lcores=0@0,1@0,2@1 -- --set daemon.apps_socket="$sock" \
	--set lcores.workers_per_host=2 --set lcores.workers=2 --set ports.encap_offload=auto \
	--json run.json \
	--profile none --scenario scenario.ini --duration 0 > mrcd.log 2>&1 &
mpid=$!
trap 'kill -TERM $mpid 2>/dev/null || true' EXIT
mrc_wait_apps "$sock" mrcd.log || { cat mrcd.log; echo "apps_channel: FAIL: no socket"; exit 1; }
"$app" server "$sock" 1 "$port" 1048576 65536 3 normal 4 > server.log 2>&1 &
spid=$!
"$app" client "$sock" 0 "$port" 1048576 65536 3 normal 4 > client.log 2>&1 &
cpid=$!
sleep 1.5
s=$(mrc_sock mrcd.log)
timeout 10 /usr/bin/python3 "$mrc_telemetry" -s "$s" /mrc/apps > apps.json 2>&1 || true
fails=0
wait $spid || { echo "apps_channel: FAIL: server"; fails=$((fails + 1)); }
wait $cpid || { echo "apps_channel: FAIL: client"; fails=$((fails + 1)); }
cat server.log client.log
/usr/bin/python3 - apps.json <<'PY' || fails=$((fails + 1))
import json, sys
d = list(json.load(open(sys.argv[1])).values())[0]
sess = [v for k, v in d.items() if k.startswith("session_")]
hosts = sorted(s["host"] for s in sess)
owned = [d.get(f"worker_{w}_qps", 0) for w in range(2)]
ok = d.get("sessions") == 2 and hosts == [0, 1] and all(s["n_qps"] == 4 for s in sess) \
    and sum(owned) == 8 and min(owned) > 0 \
    and all(k in d for k in ("channel_wakes", "channel_wakes_pending", "channel_wakes_failed"))
if not ok:
    print("apps_channel: FAIL: /mrc/apps:", json.dumps(d)[:2000])
    sys.exit(1)
print("apps_channel: /mrc/apps lists", d["sessions"], "sessions, hosts", hosts,
      "; application QPs per worker", owned, "; channel wake-ups so far", d["channel_wakes"])
PY
# Both programs gone: their regions too, once no packet holds them. A
# region's count gone wrong (two workers attaching at once) would hold its
# session here for good.
n=$(mrc_apps_gone mrcd.log)
[ "$n" = 0 ] || { echo "apps_channel: FAIL: /mrc/apps still lists $n sessions 5 s after the programs"; fails=$((fails + 1)); }
trap - EXIT
rc=0
mrc_stop $mpid mrcd.log || rc=$?
grep -v '^EAL\|^TELEMETRY' mrcd.log | grep -i 'applic\|error\|fail' | head -20 || true
grep -q 'plane 2 down' mrcd.log || { echo "apps_channel: FAIL: plane 2 never failed"; fails=$((fails + 1)); }
[ "$rc" = 0 ] || { echo "apps_channel: FAIL: mrcd exited $rc"; fails=$((fails + 1)); }
/usr/bin/python3 - run.json <<'PY' || fails=$((fails + 1))
import json, sys
s = json.load(open(sys.argv[1]))
bad = [f"host {x['host']} shard {x['shard']}: {k} {x[k]}" for x in s["shards"]
       for k in ("rx_misdispatched", "rx_unknown_qpn") if x[k]]
got = {(x["host"], x["shard"]): x["rx_dispatched_in"] for x in s["shards"]}
print("apps_channel: steering", sorted({p["steering"] for p in s["ports"]}),
      "; packets passed on to their owner per (host, shard)", got)
# the applications' QPs have no rules to read: each host's packets all counted as such
enc = s["encap_pkts"]
if len(enc) != 2 or any(e["sw_no_table"] == 0 or e["nic"] or e["sw_no_port"] or e["sw_no_rule"]
                        for e in enc):
    bad.append(f"encap_pkts {enc}: want every packet in sw_no_table")
print("apps_channel: encap offload on, packets of QPs without a table per host",
      [e["sw_no_table"] for e in enc])
for b in bad:
    print("apps_channel: FAIL:", b)
sys.exit(1 if bad or len(s["shards"]) != 4 else 0)
PY
[ "$fails" = 0 ] && echo "apps_channel: PASS"
exit "$fails"
