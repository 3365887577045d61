#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# A reload of the flows with two workers per host (doc/service.md,
# "Reload"): mrcd --service on the emulated fabric, [lcores]
# workers_per_host = 2, once with flow steering and once with software
# steering, and once more with flow steering and peer_shard = other (each
# flow's receiving end on the next shard index, the new pairs' too). Pairs over 2 hosts with 2 QPs each way (flows 0x100 and 0x102
# from host 0, 0x104 and 0x106 from host 1, the shards alternating), then
# SIGHUP to incast onto host 1 with 4 QPs: 0x100 and 0x102 stay, host 1's
# two flows go, two flows come on spare QP pairs, one on each shard.
# Checked: the reload's line says 2 kept, 2 removed, 2 added and the new
# pairs' shards (0 and 1 sending, placed by peer_shard); the kept QP keeps counting (telemetry before and
# after); the removed QPs are gone and the new ones are in RTS and sending,
# their receivers placing data; at SIGTERM it exits 0 and the summary
# (--json) has every posted message completed, none failed or lost, every
# byte verified, and no packet dropped at a shard's dispatch.
# Usage: reload_shards.sh MRCD_BINARY WORKDIR
set -euo pipefail
mrcd=$(realpath "$1")
work=$2
. "$(dirname "$0")/lib.sh"
if [ "$(nproc)" -lt 2 ]; then
	echo "reload_shards: needs 2 CPUs; skipping"
	exit 77
fi
rm -rf "$work"
mkdir -p "$work"
work=$(realpath "$work")
fails=0
fail() {
	echo "reload_shards: FAIL: $*"
	fails=$((fails + 1))
}
pid=
trap '[ -n "$pid" ] && kill -KILL "$pid" 2> /dev/null || true' EXIT

tele() { mrc_tel "$sock" "$1" "$2"; } # COMMAND KEY: its value
qps() { mrc_qpns "$sock"; } # our QPNs, sorted, on one line

run() { # NAME STEERING PEER_SHARD
	local name=$1 t=$work/$1 state=$work/$1/state rundir=$work/$1/run far=0
	[ "$3" = other ] && far=1 # the receiving end on the next shard index
	mkdir -p "$t"
	cat > "$t/traffic.ini" << 'P'
[profile]
pattern = pairs
qps_per_peer = 2
msg_kb = 64
outstanding = 2
verify = true
P
	cat > "$t/mrcd.ini" << C
[daemon]
profile = $t/traffic.ini
scenario = none
[lcores]
workers = 2
workers_per_host = 2
peer_shard = $3
[ports]
steering = $2
[telemetry]
timeseries = none
prometheus = none
console = false
C
	(exec env STATE_DIRECTORY="$state" RUNTIME_DIRECTORY="$rundir" \
		"$mrcd" --lcores=0@0,1@0,2@1 --log-level=mrcd.ctrl:info -- --service -f "$t/mrcd.ini" --json "$t/summary.json" \
		> "$t.out" 2> "$t.err") &
	pid=$!
	for _ in $(seq 100); do
		grep -q 'running until stopped' "$t.out" 2> /dev/null && break
		kill -0 "$pid" 2> /dev/null || break
		sleep 0.1
	done
	sock=$rundir/dpdk/mrcd_$pid/dpdk_telemetry.v2
	sleep 1
	local q0 q1 s0 s1 new
	q0=$(qps)
	[ "$q0" = "0x100 0x101 0x102 0x103 0x104 0x105 0x106 0x107" ] || fail "$name: QPs at start '$q0'"
	s0=$(tele /mrc/qp,0x100 tx_data_pkts)
	sed -i 's/^pattern = pairs/pattern = incast\nincast_target = 1/; s/^qps_per_peer = 2/qps_per_peer = 4/' \
		"$t/traffic.ini"
	kill -HUP "$pid"
	for _ in $(seq 50); do grep -q "reload: the flows' changes are done" "$t.err" && break; sleep 0.1; done
	grep -q 'SIGHUP: reloaded the profile .*traffic.ini: 2 flows kept, 2 removed, 2 added' "$t.err" ||
		{ fail "$name: the reload was not applied as 2 kept, 2 removed, 2 added"; grep SIGHUP "$t.err" | tail -2; }
	grep -q "reload: the flows' changes are done" "$t.err" || fail "$name: the flows' changes never finished"
	for k in 0 1; do
		grep -q "reload: flow host 0 -> 1 (q [23]) comes on QPs 0x[0-9a-f]* (shard $k) -> 0x[0-9a-f]* (shard $(((k + far) % 2)))" "$t.err" ||
			fail "$name: no new flow on shard $k"
	done
	sleep 1
	q1=$(qps)
	s1=$(tele /mrc/qp,0x100 tx_data_pkts)
	[ "$s0" != none ] && [ "$s1" != none ] && [ "$s0" -gt 0 ] && [ "$s1" -gt "$s0" ] ||
		fail "$name: QP 0x100 sent $s0 data packets before the reload, $s1 after: not kept, or reset"
	echo "$q1" | grep -q -w -e 0x104 -e 0x105 -e 0x106 -e 0x107 &&
		fail "$name: the removed flows' QPs are still listed: $q1"
	new=$(echo "$q1" | tr ' ' '\n' | grep -v -x -e 0x100 -e 0x101 -e 0x102 -e 0x103 | tr '\n' ' ')
	[ "$(echo "$new" | wc -w)" = 4 ] || fail "$name: QPs after the reload '$q1' (two new pairs wanted)"
	for qp in $new; do
		[ "$(tele "/mrc/qp,$qp" state)" = RTS ] || fail "$name: new QP $qp is $(tele "/mrc/qp,$qp" state)"
		# a pair's even QPN sends, the odd one receives
		local key=tx_data_pkts n
		[ $((qp & 1)) = 1 ] && key=rx_data_pkts
		n=$(tele "/mrc/qp,$qp" $key)
		[ "$n" != none ] && [ "$n" -gt 0 ] || fail "$name: new QP $qp: $key $n"
	done
	kill -TERM "$pid"
	set +e
	wait "$pid"
	local rc=$?
	set -e
	pid=
	[ "$rc" = 0 ] || { fail "$name: exited $rc"; tail -5 "$t.err" "$t.out"; }
	/usr/bin/python3 - "$t/summary.json" "$name" << 'PY' || fail "$name: the summary"
import json, sys
s = json.load(open(sys.argv[1]))
m = s["messages"]
bad = []
if m["completed"] == 0 or m["lost"] or m["failed"] or m["posted"] != m["completed"]:
    bad.append(f"messages {m}")
if s["bytes_verified"] != m["completed"] * 64 * 1024 or s["verify_errors"]:
    bad.append(f"{s['bytes_verified']} bytes verified for {m['completed']} messages, "
               f"{s['verify_errors']} errors")
if s["workers_per_host"] != 2 or len(s["shards"]) != 4:
    bad.append(f"{len(s['shards'])} shards")
for x in s["shards"]:
    for k in ("rx_misdispatched", "rx_dispatch_full"):
        if x[k]:
            bad.append(f"host {x['host']} shard {x['shard']}: {k} {x[k]}")
for b in bad:
    print(f"reload_shards: {sys.argv[2]}: FAIL: {b}")
print(f"reload_shards: {sys.argv[2]}: {m['completed']} messages, {s['bytes_verified']} bytes "
      f"verified; shards' QPs {[x['qps'] for x in s['shards']]}")
sys.exit(1 if bad else 0)
PY
	echo "reload_shards: $name: QPs $q0 -> $q1; 0x100 sent $s0 -> $s1 data packets"
}

run flow flow same
run software software same
run split flow other
echo "reload_shards: $((fails == 0 ? 1 : 0)) passed, $fails failed"
[ "$fails" = 0 ]
