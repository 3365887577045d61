#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# Port status over real kernel links and Linux SRv6 routers (the topology of
# netns_srv6.sh: two hosts, two planes, one T1): host 0 (A) writes 60 1 MiB
# messages to host 1 (B), paced to last about 1.3 s; 500 ms into its run B
# takes its plane-1 port down ([ports] admin_down_planes). Checked: both
# exit 0; every message completes, none lost or failed, every byte verified
# at B; B told A (its update answered, no timeout), and A took the new mask
# after B sent the request A answered and before the answer reached B (both
# logs stamp CLOCK_MONOTONIC). The request's loss and B's restart are
# drilled over mrc-fabric (port_status.sh), which can drop one request.
# Needs root, network namespaces and seg6local NEXT-C-SID: else exit 77.
# Usage: netns_port_status.sh MRCD WORKDIR
set -euo pipefail
mrcd=$(realpath "$1")
work=$2
src=$(realpath "$(dirname "$0")/../..")
topo=$src/scripts/netns/netns-topology.sh
. "$(dirname "$0")/lib.sh"
mkdir -p "$work"
cd "$work"
rm -f ./*.json ./*.log host*.ini

skip() { echo "netns_port_status: $*; skipping"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root"
command -v ip >/dev/null || skip "needs iproute2"
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
rate_gbps = 0.4
messages = $msgs
verify = true
P
pids=()
cleanup() {
	kill -KILL "${pids[@]}" 2>/dev/null || true
	"$topo" down --prefix "$pfx" >/dev/null 2>&1 || true
}
trap cleanup EXIT
"$topo" up --prefix "$pfx" --planes 2 --t1s 1 --conf-dir "$PWD" --profile profile.ini
for h in 0 1; do
	sed -i 's/^\[daemon\]$/[daemon]\nduration_s = 0/' host$h.ini
	printf '\n[cc]\nalgorithm = fixed\nfixed_cwnd_kb = 512\n' >> host$h.ini
	printf '\n[telemetry]\ntimeseries = none\nprometheus = none\n' >> host$h.ini
done
sed -i 's/^\[ports\]$/[ports]\nadmin_down_planes = 2\nadmin_down_at_ms = 500/' host1.ini
grep -q '^admin_down_planes = 2' host1.ini || { echo "netns_port_status: no [ports] in host1.ini"; exit 1; }
ip netns exec "$pfx-h0" "$mrcd" --lcores=0@0,1@1 -- -f host0.ini --json h0.json > h0.log 2>&1 &
pids+=($!)
ip netns exec "$pfx-h1" "$mrcd" --lcores=0@1,1@0 -- -f host1.ini --json h1.json > h1.log 2>&1 &
pids+=($!)
deadline=$((SECONDS + 60))
while [ $SECONDS -lt $deadline ]; do
	[ "$(mrc_msgs_completed h0.log)" = $msgs ] && break
	kill -0 "${pids[0]}" 2>/dev/null && kill -0 "${pids[1]}" 2>/dev/null || break
	sleep 0.2
done
kill -TERM "${pids[@]}" 2>/dev/null || true
fails=0
set +e
for h in 0 1; do
	wait "${pids[$h]}"
	rc=$?
	if [ "$rc" != 0 ]; then
		echo "netns_port_status: FAIL: host $h's mrcd exited $rc"
		grep -v -- '--vdev\|mp action\|^EAL' h$h.log | tail -12
		fails=$((fails + 1))
	fi
done
set -e
grep -h 'planes\|port-status' h0.log h1.log || true
/usr/bin/python3 - "$msgs" <<'PY' || fails=$((fails + 1))
import json, re, sys
msgs = int(sys.argv[1])
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
            m = re.search(r"monotonic (\d+) ns", line)
            r = re.search(r"answered in (\d+) ns", line)
            return int(m.group(1)), int(r.group(1)) if r else None
    bad.append(f"{log}: no line matching {pattern!r}")
    return None, None
a, b = load("h0.json"), load("h1.json")
if a is not None:
    m = a["messages"]
    if m["posted"] != msgs or m["completed"] != msgs or m["lost"] or m["failed"]:
        bad.append(f"A: messages {m}")
    if a["endpoint"]["peers"]["1"]["planes"] != 0x1:
        bad.append(f"A: B's planes at the end {a['endpoint']['peers']['1']}, not 0x1")
if b is not None:
    if b["bytes_verified"] != msgs * 1024 * 1024 or b["verify_errors"]:
        bad.append(f"B: verified {b['bytes_verified']} bytes, {b['verify_errors']} errors")
    if b["endpoint"]["timeouts"] != 0:
        bad.append(f"B: endpoint {b['endpoint']}")
t_learn, _ = mono("h0.log", r"host 1's planes are 0x1 \(were 0x3")
t_ack, rtt = mono("h1.log", r"host 0 took port-status update \d+ \(planes 0x1\)")
t_down, _ = mono("h1.log", r"host 1: planes 0x1 \(were 0x3\)")
if None not in (t_learn, t_ack, rtt, t_down):
    sent = t_ack - rtt
    if not (sent - 2000 <= t_learn <= t_ack):
        bad.append(f"A learned at {t_learn}, outside B's request's round trip "
                   f"[{sent}, {t_ack}]")
    print(f"netns_port_status: B took its port down; {(t_learn - t_down) / 1e3:.1f} us later "
          f"A stopped using the plane, {(t_learn - sent) / 1e3:.1f} us after B sent the "
          f"request it took (round trip {rtt / 1e3:.1f} us)")
for x in bad:
    print("netns_port_status: FAIL:", x)
sys.exit(1 if bad else 0)
PY
echo "netns_port_status: $((fails == 0 ? 1 : 0)) passed, $fails failed"
[ "$fails" = 0 ]
