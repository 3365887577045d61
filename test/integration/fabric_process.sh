#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# Three processes: mrc-fabric (the emulated fabric, 2 hosts x 4 planes,
# serving each host x plane as a net_memif port) and one mrcd per host,
# started from the host configs mrc-fabric derives. Each host writes 200
# 1 MiB messages to the other; plane 1 dies 0.2 s after both hosts are
# connected and stays dead. When telemetry shows both hosts done, all three
# get SIGTERM at once (memif peers must stop polling before any closes).
# Checked: all exit 0 (every mempool full again); every message completes
# and every byte is verified at the receiving process; the hosts retired EVs
# (packets lost on a path, EVs turned bad) and resent; the fabric applied
# the fault and dropped packets on plane 1 only, and delivered packets on
# the other planes after it. Once plane 1 is down, mrc-fabric gets SIGHUP
# with the scenario rewritten (plane 1 down at 0 ms): its fault log must
# show the clear and the new timeline's fault at the same time.
# On 2 CPUs three pollers share them: the fabric sleeps when idle
# (--idle-sleep-us) and the lcores are placed explicitly.
# Usage: fabric_process.sh MRC_FABRIC MRCD WORKDIR
set -euo pipefail
fabric=$(realpath "$1")
mrcd=$(realpath "$2")
work=$3
. "$(dirname "$0")/lib.sh"
mkdir -p "$work"
cd "$work"
rm -f ./*.json ./*.log ./*.jsonl ./*.prom host*.ini
if [ "$(nproc)" -lt 2 ]; then
	echo "fabric_process: needs 2 CPUs; skipping"
	exit 77
fi
msgs=200
cat > profile.ini <<P
[profile]
pattern = pairs
msg_kb = 1024
outstanding = 4
messages = $msgs
verify = true
P
cat > scenario.ini <<'S'
[scenario]
name = plane1-dies
description = plane 1 down for good, 0.2 s after the hosts connect

[event.down]
at = 200ms
element = plane
plane = 1
action = down
S
dir=/run/mrcd-test-fabric-$$
mkdir -p "$dir"
cleanup() {
	kill -KILL "${pids[@]}" 2>/dev/null || true
	rm -rf "$dir"
}
pids=()
trap cleanup EXIT
mrc_fabric_cluster "$fabric" "$dir" 1
"$mrcd" --lcores=0@0,1@0 -- -f "$dir/host0.ini" --json h0.json > h0.log 2>&1 &
pids+=($!)
"$mrcd" --lcores=0@1,1@1 -- -f "$dir/host1.ini" --json h1.json > h1.log 2>&1 &
pids+=($!)
# Once plane 1 is down, SIGHUP mrc-fabric with the scenario rewritten: its
# faults are cleared and the new timeline (plane 1 down at its 0 ms) runs.
for _ in $(seq 100); do grep -q 'plane 1 down (scenario.ini:event.down)' fabric.log && break; sleep 0.05; done
sed -i 's/^\[event.down\]/[event.again]/; s/^at = 200ms/at = 0ms/' scenario.ini
kill -HUP "$mrc_fabric_pid"
# Both hosts done, or 120 s: then stop all three at once.
deadline=$((SECONDS + 120))
while [ $SECONDS -lt $deadline ]; do
	done_n=0
	for h in 0 1; do
		[ "$(mrc_msgs_completed h$h.log)" = $msgs ] && done_n=$((done_n + 1))
	done
	[ "$done_n" = 2 ] && break
	for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null || break 2; done
	sleep 0.1
done
kill -TERM "${pids[@]}" 2>/dev/null || true
rcs=()
set +e
for p in "${pids[@]}"; do
	wait "$p"
	rcs+=($?)
done
set -e
fails=0
for i in 0 1 2; do
	name=$([ $i = 0 ] && echo "mrc-fabric" || echo "host $((i - 1))'s mrcd")
	log=$([ $i = 0 ] && echo fabric.log || echo h$((i - 1)).log)
	if [ "${rcs[$i]}" != 0 ]; then
		echo "fabric_process: FAIL: $name exited ${rcs[$i]}"
		grep -v -- '--vdev\|mp action' "$log" | tail -15
		fails=$((fails + 1))
	fi
done
grep -E '^mrc-fabric: (all|summary)|^  (host|fabric|faults|  )' fabric.log || true
grep -h -E 'messages:|data:|transport:' h0.log h1.log || true
/usr/bin/python3 - "$msgs" fabric.json h0.json h1.json <<'PY' || fails=$((fails + 1))
import json, sys
msgs = int(sys.argv[1])
bad = []
def load(f):
    try:
        return json.load(open(f))
    except (OSError, ValueError) as e:
        bad.append(f"{f}: {e}")
        return None
fab = load(sys.argv[2])
for f in sys.argv[3:]:
    s = load(f)
    if s is None:
        continue
    m = s["messages"]
    if m["posted"] != msgs or m["completed"] != msgs or m["lost"] or m["failed"]:
        bad.append(f"{f}: messages {m}")
    if s["bytes_verified"] != msgs * 1024 * 1024 or s["verify_errors"]:
        bad.append(f"{f}: verified {s['bytes_verified']} bytes, {s['verify_errors']} errors")
    if s["retransmits"] == 0 or s["ev_losses"] == 0:
        bad.append(f"{f}: {s['retransmits']} resent, {s['ev_losses']} losses on a path "
                   "although plane 1 died")
    print(f"fabric_process: {f}: {m['completed']} messages completed, "
          f"{s['bytes_verified']} bytes verified, {s['retransmits']} resent, "
          f"{s['ev_losses']} losses retired EVs")
if fab is not None:
    fc = fab["fabric"]
    if not any(e["what"].startswith("plane 1 down") for e in fab["events"]):
        bad.append(f"fabric: the fault was not applied: events {fab['events']}")
    # SIGHUP: the first fault, then its clear and the new timeline's at the same time
    seq = [(e["what"], e["source"]) for e in fab["events"]]
    want = [("plane 1 down", "scenario.ini:event.down"),
            ("fabric: every fault cleared", "reload:scenario.ini"),
            ("plane 1 down", "scenario.ini:event.again")]
    ev = fab["events"]
    if seq != want or ev[1]["t_s"] != ev[2]["t_s"] or ev[1]["t_s"] < ev[0]["t_s"]:
        bad.append(f"fabric: after SIGHUP the fault log is {ev}, not {want} (the last two at once)")
    if fc["drop_down"] == 0:
        bad.append("fabric: no packet was dropped by the dead plane")
    other = [l for l in fab["links"] if l["plane"] != 1 and
             (l["drop_down"] or l["drop_blackhole"])]
    if other:
        bad.append(f"fabric: fault drops outside plane 1: {other}")
    late = [a for a in fab["attachments"] if a["plane"] != 1 and a["to_host_pkts"] == 0]
    if late:
        bad.append(f"fabric: planes that delivered nothing: {late}")
    if fc["delivered_pkts"] == 0:
        bad.append("fabric: delivered nothing")
    print(f"fabric_process: fabric delivered {fc['delivered_pkts']} packets, dropped "
          f"{fc['drop_down']} on the dead plane")
for b in bad:
    print("fabric_process: FAIL:", b)
sys.exit(1 if bad else 0)
PY
echo "fabric_process: $((fails == 0 ? 1 : 0)) passed, $fails failed"
[ "$fails" = 0 ]
