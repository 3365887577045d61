#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# Port status with two workers per host: two mrcd processes joined by
# mrc-fabric (2 hosts x 4 planes, net_memif with 2 queue pairs per port,
# software steering), [lcores] workers = workers_per_host = 2 on both.
# Host 0 (A) writes 12 1 MiB messages on each of 4 QPs to host 1 (B),
# paced to last about 1 s; at 400 ms B's plane-1 cable goes down (the fabric drops what
# crosses it; B takes its port down itself: admin_down_planes) and B tells A;
# the cable is back at 500 ms and B's port at 600 ms (admin_down_ms), and B
# tells A again.
# Checked: both exit 0; every message completes, none lost or failed, every
# byte verified at B; A learned B's new mask; EACH of A's two shards (on two
# workers) took that mask generation within BOUND_MS of A learning it and
# before B had A's answer (A answers once every worker took it), its QPs had
# sent on plane 1 before it, sent nothing on plane 1 until B's port was back,
# kept sending on the other planes meanwhile, and sent on plane 1 again
# after (the shards' "peer_gens" in --json, doc/telemetry.md).
# Usage: port_status_workers.sh MRC_FABRIC MRCD WORKDIR
set -euo pipefail
fabric=$(realpath "$1")
mrcd=$(realpath "$2")
work=$3
. "$(dirname "$0")/lib.sh"
mkdir -p "$work"
cd "$work"
rm -f ./*.json ./*.log host*.ini
if [ "$(nproc)" -lt 2 ]; then
	echo "port_status_workers: needs 2 CPUs; skipping"
	exit 77
fi
qps=4
msgs=12 # per QP
total=$((qps * msgs))
# Seven threads poll on 2 CPUs here: a worker may wait a scheduler slice or
# more before its next pass. The bound is about that, not the engine.
bound_ms=100
cat > profile.ini <<P
[profile]
pattern = incast
incast_target = 1
msg_kb = 1024
outstanding = 4
qps_per_peer = $qps
; per QP: 12 MiB at 0.1 Gb/s lasts about 1 s, past the fault (400 to 600 ms)
rate_gbps = 0.1
messages = $msgs
verify = true
P
cat > scenario.ini <<S
[scenario]
name = port-status-workers
description = B's plane-1 cable down at 400 ms, back at 500 ms

[event.b_down]
at = 400ms
element = host_link
plane = 1
host = 1
action = down

[event.b_up]
at = 500ms
element = host_link
plane = 1
host = 1
action = up
S
mrc_run_dir psw
# lib.sh's cluster, with two workers per host dispatching in software
mrc_fabric_cluster "$fabric" "$dir" 1 "$(printf '\n[lcores]\nworkers = 2\nworkers_per_host = 2\n\n[ports]\nsteering = software')"
fab=$mrc_fabric_pid
"$mrcd" --lcores=0@0,1@0,2@0 -- -f "$dir/host0.ini" --json h0.json > h0.log 2>&1 &
a=$!
pids+=($a)
sed -e 's/^admin_down_planes = .*/admin_down_planes = 2/' \
	-e 's/^admin_down_at_ms = .*/admin_down_at_ms = 400/' \
	-e 's/^admin_down_ms = .*/admin_down_ms = 200/' "$dir/host1.ini" > h1.ini
grep -q '^admin_down_ms = 200' h1.ini || { echo "port_status_workers: host1.ini has no admin_down_planes"; exit 1; }
"$mrcd" --lcores=0@1,1@1,2@1 -- -f h1.ini --json h1.json > h1.log 2>&1 &
b=$!
pids+=($b)
fails=0
fail() {
	echo "port_status_workers: FAIL: $*"
	fails=$((fails + 1))
}
deadline=$((SECONDS + 60))
while [ $SECONDS -lt $deadline ]; do
	[ "$(mrc_msgs_completed h0.log)" = $total ] && break
	kill -0 $a 2>/dev/null && kill -0 $b 2>/dev/null || break
	sleep 0.1
done
sleep 0.2
kill -TERM $fab $a $b 2>/dev/null || true
# Each stops within its drain and close delay (2 s); name a process that does
# not, with its threads' backtraces where gdb is installed. Running: its
# leader is not a zombie, or it is one whose other threads still run (an exit
# in progress). A process this shell has reaped already (bash reaps children
# as they exit) has no /proc entry: done. One read of its stat decides, and
# "stuck" is decided by the wait running out, never by a later second look: a
# check that raced the reaping (/proc/PID there, its stat gone a moment later)
# once named a process that had exited 2 s after SIGTERM.
alive() {
	local st
	st=$(sed -n 's/^.*) \([A-Za-z]\) .*/\1/p' "/proc/$1/stat" 2>/dev/null || true)
	[ -n "$st" ] || return 1
	[ "$st" != Z ] || [ "$(ls "/proc/$1/task" 2>/dev/null | wc -l)" -gt 1 ]
}
stuck=()
for _ in $(seq 200); do
	stuck=()
	for p in $fab $a $b; do
		alive "$p" && stuck+=("$p")
	done
	[ ${#stuck[@]} = 0 ] && break
	sleep 0.1
done
for p in "${stuck[@]}"; do
	fail "process $p still running 20 s after SIGTERM"
	for t in /proc/"$p"/task/*; do
		echo "  thread $(cut -d' ' -f1-3 "$t/stat" 2>/dev/null) in $(cat "$t/wchan" 2>/dev/null)"
	done
	if command -v gdb > /dev/null; then
		gdb -batch -ex 'thread apply all bt' -p "$p" 2>&1 | grep -E '^(Thread|#)' || true
	fi
	kill -KILL "$p" 2>/dev/null || true
done
set +e
for p in $fab $a $b; do
	wait "$p"
	rc=$?
	[ "$rc" = 0 ] || fail "process $p exited $rc"
done
set -e
grep -h 'planes are\|port-status' h0.log h1.log || true
/usr/bin/python3 - "$total" "$bound_ms" <<'PY' || fails=$((fails + 1))
import json, re, sys
msgs, bound_ms = int(sys.argv[1]), int(sys.argv[2])
bad = []
def load(f):
    try:
        return json.load(open(f))
    except (OSError, ValueError) as e:
        bad.append(f"{f}: {e}")
        return None
def mono(log, pattern):
    for line in open(log):
        if re.search(pattern, line):
            return int(re.search(r"monotonic (\d+) ns", line).group(1))
    bad.append(f"{log}: no line matching {pattern!r}")
    return None
t_learn = mono("h0.log", r"host 1's planes are 0xd \(were 0xf")
# B's first answer: A answers only once every one of its workers took the mask
t_ack = mono("h1.log", r"host 0 took port-status update \d+ \(planes 0xd\)")
a, b = load("h0.json"), load("h1.json")
if a is not None:
    m = a["messages"]
    if m["posted"] != msgs or m["completed"] != msgs or m["lost"] or m["failed"]:
        bad.append(f"A: messages {m}")
    # An answer waits for A's workers unless they took the mask while control was
    # still logging it (another CPU): how many waited varies, none may skip the wait.
    if a["endpoint"]["held_full"]:
        bad.append(f"A: {a['endpoint']['held_full']} port-status answers sent before "
                   "A's workers took the mask (16 were waiting)")
    shards = [s for s in a["shards"] if s["host"] == 0]
    if len(shards) != 2 or len({s["worker"] for s in shards}) != 2:
        bad.append(f"A: shards {[(s['shard'], s['worker']) for s in shards]}, not 2 on 2 workers")
    for s in shards:
        k, gens = s["shard"], s["peer_gens"]
        if s["qps"] == 0:
            bad.append(f"A shard {k}: no QPs")
        if len(gens) < 2 or gens[0]["gen"] != 1:
            bad.append(f"A shard {k}: did not take B's two changes (down, up): {gens}")
            continue
        g1, g2 = gens[0], gens[1]
        # the QPs' own packets per plane: before the change, while plane 1 was down, after
        before = g1["plane_qp_tx_pkts_at"]
        down = [x - y for x, y in zip(g2["plane_qp_tx_pkts_at"], before)]
        up = [x - y for x, y in zip(s["plane_qp_tx_pkts"], g2["plane_qp_tx_pkts_at"])]
        if t_learn is not None:
            lag = (g1["mono_ns"] - t_learn) / 1e6
            print(f"port_status_workers: A shard {k} (worker {s['worker']}) took generation "
                  f"1 {lag:.3f} ms after A learned B's mask; its QPs' packets per plane "
                  f"before {before}, while down {down}, after B's port was back {up}")
            if not (-1.0 <= lag <= bound_ms):
                bad.append(f"A shard {k}: took the mask {lag:.3f} ms after A learned it, "
                           f"not within {bound_ms} ms")
        if t_ack is not None and g1["mono_ns"] > t_ack:
            bad.append(f"A shard {k}: took the mask {(g1['mono_ns'] - t_ack) / 1e3:.1f} "
                       "us after B had A's answer: A answered before all its workers stopped "
                       "using the plane")
        if before[1] == 0:
            bad.append(f"A shard {k}: sent nothing on plane 1 before: proves nothing")
        if down[1] != 0:
            bad.append(f"A shard {k}: sent {down[1]} packets on plane 1 while B said it was down")
        if sum(down) == 0:
            bad.append(f"A shard {k}: sent nothing while plane 1 was down: proves nothing")
        if up[1] == 0:
            bad.append(f"A shard {k}: sent nothing on plane 1 after B said it was up again "
                       f"(after: {up})")
if b is not None and (b["bytes_verified"] != msgs * 1024 * 1024 or b["verify_errors"]):
    bad.append(f"B: verified {b['bytes_verified']} bytes, {b['verify_errors']} errors")
for x in bad:
    print("port_status_workers: FAIL:", x)
sys.exit(1 if bad else 0)
PY
echo "port_status_workers: $((fails == 0 ? 1 : 0)) passed, $fails failed"
[ "$fails" = 0 ]
