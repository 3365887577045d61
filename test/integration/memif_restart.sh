#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# A memif peer that goes and comes back, fast, several times: two mrcd
# processes joined by mrc-fabric (2 hosts x 4 planes); host 0 (A) stays,
# host 1 (B) is stopped and started again 3 times in a row, each new B
# started as soon as the last one is gone. After each start: B finishes its
# start (its control socket answers) within 30 s, and traffic flows both
# ways through the fabric: A's endpoint EV probe of B on plane 0 is answered
# by B, and B's of A. At the end the fabric counted B's memif ports
# connecting 4 times and going 4 times, A's once, and packets both ways
# for each host. When B does not come
# back, the test shows where B's threads and the fabric's wait (the restart
# drill of port_status.sh once stood still, under load, until A was gone).
# Usage: memif_restart.sh MRC_FABRIC MRCD WORKDIR MRCCTL
set -euo pipefail
fabric=$(realpath "$1")
mrcd=$(realpath "$2")
work=$3
mrcctl=$(realpath "$4")
. "$(dirname "$0")/lib.sh"
mkdir -p "$work"
cd "$work"
rm -f ./*.json ./*.log ./*.status ./*.pid
if [ "$(nproc)" -lt 2 ]; then
	echo "memif_restart: needs 2 CPUs; skipping"
	exit 77
fi
restarts=3
# A writes 4 messages to the first B and is done; the probes are the traffic after.
cat > profile.ini <<P
[profile]
pattern = incast
incast_target = 1
msg_kb = 64
outstanding = 2
messages = 4
P
cat > scenario.ini <<S
[scenario]
name = memif-restart
description = no faults: B's restarts are the test
S
mrc_run_dir mr
mrc_fabric_cluster "$fabric" "$dir" 1
fab=$mrc_fabric_pid
fails=0
fail() {
	echo "memif_restart: FAIL: $*"
	fails=$((fails + 1))
}
mrc_spawn h0.status "$mrcd" --lcores=0@0,1@0 -- -f "$dir/host0.ini" --json h0.json > h0.log 2>&1
a=$mrc_spawned
pids+=($a)
# probe SOCK HOST PEER: one endpoint EV probe (EV 0), from the daemon on SOCK
# (HOST as the port_status drill names it there) to host PEER, answered with the
# peer's service time, tried for 5 s (a peer just started may not send yet)
probe() {
	local out end=$((SECONDS + 5))
	while [ $SECONDS -lt $end ]; do
		out=$(timeout 5 "$mrcctl" -s "$1" probe host="$2" peer="$3" ev=0 2>&1) || true
		case $out in *'"svc_ns"'*) return 0 ;; esac
		sleep 0.1
	done
	echo "$out"
	return 1
}
for i in $(seq 0 $restarts); do
	mrc_spawn h1-$i.status "$mrcd" --lcores=0@1,1@1 -- -f "$dir/host1.ini" --json h1-$i.json > h1-$i.log 2>&1
	b=$mrc_spawned
	pids+=($b)
	t0=$SECONDS
	if ! mrc_wait_ctl "$mrcctl" "$dir/host1-control.sock" 30; then
		fail "B's start $i did not finish in 30 s (its control socket never answered); the machine's threads, then B's, the fabric's and A's:"
		mrc_dump_cpus
		mrc_dump_threads $b
		mrc_dump_threads $fab
		mrc_dump_threads $a
		grep -E 'memif (connected|gone)' fabric.log || true
		break
	fi
	out=$(probe "$dir/host0-control.sock" 0 1) || fail "start $i: A's probe of B not answered: $out"
	out=$(probe "$dir/host1-control.sock" 0 0) || fail "start $i: B's probe of A not answered: $out"
	echo "memif_restart: B's start $i: control socket up in $((SECONDS - t0)) s, probes answered both ways"
	if [ "$i" = 0 ]; then
		# A's messages go to the first B only: a B stopped under them would lose them.
		for _ in $(seq 300); do
			[ "$(mrc_msgs_completed h0.log)" = 4 ] && break
			sleep 0.1
		done
		[ "$(mrc_msgs_completed h0.log)" = 4 ] || fail "A did not complete its 4 messages to the first B in 30 s"
	fi
	[ "$i" = $restarts ] && break
	kill -TERM $b
	if ! mrc_wait_dead $b 15; then
		# seen: B in D for more than 15 s at exit, and the next B's start in D in
		# hugetlb_fault meanwhile
		fail "B ($i) still runs 15 s after SIGTERM; the machine's threads, then B's:"
		mrc_dump_cpus
		mrc_dump_threads $b
	fi
	[ "$(mrc_status h1-$i.status 30)" = 0 ] || fail "B's mrcd ($i) exited $(cat h1-$i.status 2>/dev/null)"
done
kill -TERM $b $a 2>/dev/null || true
mrc_wait_dead $b 15 || fail "the last B still runs 15 s after SIGTERM"
mrc_wait_dead $a 15 || fail "A still runs 15 s after SIGTERM"
kill -TERM $fab 2>/dev/null || true
set +e
wait $fab
rc=$?
set -e
[ "$rc" = 0 ] || fail "mrc-fabric exited $rc"
[ "$(mrc_status h0.status 30)" = 0 ] || fail "A's mrcd exited $(cat h0.status 2>/dev/null)"
grep -A 12 'summary,' fabric.log | grep -E 'host [01]:|plane [0-3]: memif' || true
/usr/bin/python3 - $((restarts + 1)) <<'PY' || fails=$((fails + 1))
import json, sys
n = int(sys.argv[1])
bad = []
try:
    att = json.load(open("fabric.json"))["attachments"]
except (OSError, ValueError, KeyError) as e:
    att = []
    bad.append(f"fabric.json: {e}")
# Each port's connects and disconnects; the traffic per host: this little of
# it (A's 4 messages, SACKs, probes on EV 0, port-status announcements)
# need not cross every plane both ways.
both = {}
for x in att:
    want = 1 if x["host"] == 0 else n
    if x["connects"] != want or x["disconnects"] != want:
        bad.append(f"host {x['host']} plane {x['plane']}: {x['connects']} connects, "
                   f"{x['disconnects']} disconnects, not {want} each")
    f, t = both.get(x["host"], (0, 0))
    both[x["host"]] = (f + x["from_host_pkts"], t + x["to_host_pkts"])
for h in (0, 1):
    f, t = both.get(h, (0, 0))
    if f == 0 or t == 0:
        bad.append(f"host {h}: nothing crossed the fabric one way: {f} packets from it, {t} to it")
for b in bad:
    print("memif_restart: FAIL:", b)
sys.exit(1 if bad else 0)
PY
echo "memif_restart: $((fails == 0 ? 1 : 0)) passed, $fails failed"
[ "$fails" = 0 ]
