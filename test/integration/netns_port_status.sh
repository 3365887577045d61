#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# Port status over real kernel links and Linux SRv6 routers (the topology of
# netns_srv6.sh: two hosts, two planes, one T1): host 0 (A) writes 60 1 MiB
# messages to host 1 (B), paced to last about 2.5 s. Once B's start is over
# (A acknowledged B's announcement that both its ports are up), B's plane-0
# T0 is told to drop, once (nftables, a 1-per-hour limit), the next endpoint
# request that tells A "only port 1 up", and then B's operator takes B's
# plane-1 port down (mrcctl port): B must send its update again. Armed only
# then, the rule cannot catch B's own start announcement, which says "only
# port 1 up" too when B's plane-1 link comes up a moment after its start.
# When A is done, B stops and starts again with both ports up (a new
# epoch): A must learn it.
# Checked: every mrcd exits 0; every message completes, none lost or failed,
# every byte verified at B; the router dropped exactly one request; B
# counted a retry and no timeout; A took the new mask after B sent its
# update and before B had an answer, and so did A's shard, which had sent on
# plane 1 before and sent nothing there after until B came back (both logs
# stamp CLOCK_MONOTONIC); after B's restart A's mask of B is 0x3 again.
# Needs root, network namespaces, nftables and seg6local NEXT-C-SID: else
# exit 77.
# Usage: netns_port_status.sh MRCD WORKDIR MRCCTL
set -euo pipefail
mrcd=$(realpath "$1")
work=$2
mrcctl=$(realpath "$3")
src=$(realpath "$(dirname "$0")/../..")
topo=$src/scripts/netns/netns-topology.sh
. "$(dirname "$0")/lib.sh"
mkdir -p "$work"
cd "$work"
rm -f ./*.json ./*.log host*.ini

skip() { echo "netns_port_status: $*; skipping"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root"
command -v ip >/dev/null || skip "needs iproute2"
command -v nft >/dev/null || skip "needs nftables (nft)"
[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"
pfx=nq$$
pfx=${pfx:0:8}
probe=$pfx-probe
ip netns add "$probe" 2>/dev/null || skip "cannot create network namespaces"
ip -n "$probe" link set lo up
if ! ip -n "$probe" -6 route add fcbb:0:100::/48 encap seg6local action End flavors next-csid \
	lblen 32 nflen 16 dev lo 2>/dev/null; then
	ip netns del "$probe"
	skip "this kernel or iproute2 has no seg6local NEXT-C-SID"
fi
ip netns del "$probe"

msgs=60
cat > profile.ini <<P
[profile]
pattern = incast
incast_target = 1
msg_kb = 1024
outstanding = 4
rate_gbps = 0.2
messages = $msgs
verify = true
P
pids=()
dir=/run/mrcd-test-nps-$$
mkdir -p "$dir"
cleanup() {
	kill -KILL "${pids[@]}" 2>/dev/null || true
	"$topo" down --prefix "$pfx" >/dev/null 2>&1 || true
	rm -rf "$dir"
}
trap cleanup EXIT
"$topo" up --prefix "$pfx" --planes 2 --t1s 1 --conf-dir "$PWD" --profile profile.ini
for h in 0 1; do
	sed -i 's/^\[daemon\]$/[daemon]\nduration_s = 0/' host$h.ini
	printf '\n[cc]\nalgorithm = fixed\nfixed_cwnd_kb = 512\n' >> host$h.ini
	printf '\n[telemetry]\ntimeseries = none\nprometheus = none\n' >> host$h.ini
done
# B's first run: its control socket where the test can reach it (its operator
# takes its plane-1 port down below).
printf '\n[control]\nsocket = %s/h1-control.sock\n' "$dir" | cat host1.ini - > host1a.ini
t0b=$pfx-p0-t0-1
ip netns exec "$pfx-h0" "$mrcd" --lcores=0@0,1@1 -- -f host0.ini --json h0.json > h0.log 2>&1 &
pids+=($!)
ip netns exec "$pfx-h1" "$mrcd" --lcores=0@1,1@0 -- -f host1a.ini --json h1.json > h1.log 2>&1 &
pids+=($!)
t_start=$SECONDS
fails=0
# B's start is over when A took B's announcement that both ports are up (B
# may have said "only port 1 up" first, its plane-1 link a moment late).
for _ in $(seq 200); do
	grep -q 'host 0 took port-status update [0-9]* (planes 0x3)' h1.log && break
	kill -0 "${pids[0]}" 2>/dev/null && kill -0 "${pids[1]}" 2>/dev/null || break
	sleep 0.1
done
if ! grep -q 'host 0 took port-status update [0-9]* (planes 0x3)' h1.log; then
	echo "netns_port_status: FAIL: A never took B's start announcement (both ports up) in 20 s"
	fails=$((fails + 1))
fi
# Only now: B's plane-0 T0 drops the next port-status request (BTH opcode 0xd8
# to QP 2, ERTH op 0) whose mask says only port 1 is up; later copies pass.
# Offsets from the outer IPv6 header: SRv6 mode puts the whole RoCEv2 packet
# (inner IPv6, UDP, BTH, ERTH) behind it, and one T1 needs no SRH (next
# header 41).
ip netns exec "$t0b" nft -f - <<'NFT'
table inet mrcdrill {
	chain pre {
		type filter hook prerouting priority 0;
		iifname "h1" @nh,48,8 41 @nh,368,8 17 @nh,656,16 4791 @nh,704,8 0xd8 @nh,744,24 2 \
			@nh,800,2 0 @nh,832,32 1 limit rate 1/hour burst 1 packets counter drop
	}
}
NFT
# Then B's operator takes B's plane-1 port down, while A still sends (the
# checks below fail when A sent nothing after: proves nothing).
timeout 10 "$mrcctl" -s "$dir/h1-control.sock" port host=all plane=1 state=down > port_down.txt 2>&1 || true
echo "netns_port_status: B's plane-1 port taken down $(((SECONDS - t_start) )) s after the hosts started: $(cat port_down.txt)"
deadline=$((SECONDS + 60))
while [ $SECONDS -lt $deadline ]; do
	[ "$(mrc_msgs_completed h0.log)" = $msgs ] && break
	kill -0 "${pids[0]}" 2>/dev/null && kill -0 "${pids[1]}" 2>/dev/null || break
	sleep 0.2
done
# B stops, then starts again with both ports up: A must learn it.
kill -TERM "${pids[1]}" 2>/dev/null || true
set +e
wait "${pids[1]}"
rc=$?
set -e
if [ "$rc" != 0 ]; then
	echo "netns_port_status: FAIL: host 1's first mrcd exited $rc"
	grep -v -- '--vdev\|mp action\|^EAL' h1.log | tail -12
	fails=$((fails + 1))
fi
ip netns exec "$pfx-h1" "$mrcd" --lcores=0@1,1@0 -- -f host1.ini --json h1b.json > h1b.log 2>&1 &
pids[1]=$!
for _ in $(seq 200); do
	grep -q "host 1's planes are 0x3 (were 0x1" h0.log && break
	kill -0 "${pids[0]}" 2>/dev/null && kill -0 "${pids[1]}" 2>/dev/null || break
	sleep 0.1
done
kill -TERM "${pids[@]}" 2>/dev/null || true
set +e
for h in 0 1; do
	wait "${pids[$h]}"
	rc=$?
	if [ "$rc" != 0 ]; then
		echo "netns_port_status: FAIL: host $h's (last) mrcd exited $rc"
		grep -v -- '--vdev\|mp action\|^EAL' h$h.log h1b.log | tail -12
		fails=$((fails + 1))
	fi
done
set -e
dropped=$(ip netns exec "$t0b" nft list table inet mrcdrill | sed -n 's/.*counter packets \([0-9]*\) .*/\1/p')
echo "netns_port_status: B's plane-0 T0 dropped ${dropped:-?} port-status request(s)"
if [ "${dropped:-0}" != 1 ]; then
	echo "netns_port_status: FAIL: the router dropped ${dropped:-no} requests, not 1"
	fails=$((fails + 1))
fi
grep -h 'planes\|port-status' h0.log h1.log h1b.log || true
/usr/bin/python3 - "$msgs" "$src/test/integration" <<'PY' || fails=$((fails + 1))
import json, re, sys
sys.path.insert(0, sys.argv[2])
from port_status_check import Checks
msgs = int(sys.argv[1])
chk = Checks("netns_port_status")
bad, load, mono = chk.bad, chk.load, chk.mono
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
    if a["endpoint"]["peers"]["1"]["planes"] != 0x3:
        bad.append(f"A: B's planes at the end {a['endpoint']['peers']['1']}, not 0x3 "
                   "(B restarted with both ports up)")
if b is not None:
    if b["bytes_verified"] != msgs * 1024 * 1024 or b["verify_errors"]:
        bad.append(f"B: verified {b['bytes_verified']} bytes, {b['verify_errors']} errors")
    e = b["endpoint"]
    if e["retries"] < 1 or e["timeouts"] != 0:
        bad.append(f"B: {e['retries']} retries, {e['timeouts']} timeouts: the lost request "
                   "was not sent again, or never answered")
# B's operator took the port down (B's start may have said "only port 1 up" too, but
# as a change from 0x0): what A learned and B was answered from then on.
t_down, _ = mono("h1.log", r"host 1: planes 0x1 \(were 0x3\)")
t_learn, _ = mono("h0.log", r"host 1's planes are 0x1 \(were 0x3", t_down or 0)
t_ack, rtt = mono("h1.log", r"host 0 took port-status update \d+ \(planes 0x1\)", t_down or 0)
if None not in (t_learn, t_ack, rtt, t_down):
    # Between B's first copy of the update and B's first answer, A learned it, and each of
    # A's shards took it and stopped using plane 1 until B came back (port_status_check.py).
    # The generation: one more than A's changes of B's mask before it (B's start's).
    gen = sum(1 for l in open("h0.log") if re.search(r"host 1's planes are 0x[0-9a-f]+ \(were", l)
              and int(re.search(r"monotonic (\d+) ns", l).group(1)) < t_learn) + 1
    chk.learned(t_down, t_learn, t_ack, rtt)
    chk.stopped(a, t_learn, t_ack, gen)
took = [l for l in open("h1.log")
        if re.search(r"host 0 took port-status update \d+ \(planes 0x1\)", l)
        and int(re.search(r"monotonic (\d+) ns", l).group(1)) >= (t_down or 0)]
if not took or not re.search(r"after ([2-9]|\d\d+) requests", took[0]):
    bad.append(f"B: its update was not sent again after the router dropped it: {took}")
t_again, _ = mono("h0.log", r"host 1's planes are 0x3 \(were 0x1")
if t_again is not None:
    print("netns_port_status: B restarted with both ports up; A learned it again")
for x in bad:
    print("netns_port_status: FAIL:", x)
sys.exit(1 if bad else 0)
PY
echo "netns_port_status: $((fails == 0 ? 1 : 0)) passed, $fails failed"
[ "$fails" = 0 ]
