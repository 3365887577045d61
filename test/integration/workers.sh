#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# Several workers per host ([lcores] workers_per_host = 2), software
# steering: the shard that reads a packet of another shard's QP passes it
# on through that shard's inbound ring.
#   loop-half:  loop ports (an emulated NIC pair, 2 queues each way:
#               RSS puts each host pair on one), 2 workers, half the flows
#               with the far end's owner on the other index;
#   loop-other: both shards of each host on one worker, every flow's far
#               end on the other index;
#   loop-flow:  the same links with flow steering (SRv6): no packet may
#               need passing on;
#   memif:      the two hosts joined by net_memif ports with 2 queue pairs;
#   fabric-flow, fabric-software: the emulated fabric (2 queues per host
#               port) through the demo's plane 3 failure, with flow
#               steering (the fabric applies the rules mrcd installs: no
#               packet may need passing on) and with software steering
#               (RSS spreads host pairs over the queues and each shard
#               passes on what is the other's);
#   flow on loop ports: [ports] steering = flow is refused with its reason.
# Checked from --json: every message completes and every byte is verified;
# the shards' QPs add up to the host's and each shard has some (each QP has
# one owner); no packet reached a shard that does not own its QP, none was
# for an unknown QP, none dropped at a full inbound ring; what a host's
# shards passed on, they took (a few may still wait at the stop); packets
# did cross where the placement says they must (none with flow steering);
# each port says its steering, 2 rx queues, and why.
# Usage: workers.sh MRCD_BINARY WORKDIR
set -euo pipefail
mrcd=$(realpath "$1")
work=$2
src=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$work"
cd "$work"
rm -f ./*.json ./*.log
if [ "$(nproc)" -lt 2 ]; then
	echo "workers: needs 2 CPUs; skipping"
	exit 77
fi
common=(--set lcores.workers_per_host=2 --set profile.qps_per_peer=4
	--set profile.msg_kb=256 --set telemetry.timeseries=none --set telemetry.prometheus=none)
fails=0
run() { # NAME LCORES CONFIG SECONDS ARGS...
	local name=$1 lcores=$2 cfg=$3 secs=$4
	shift 4
	if ! "$mrcd" --lcores="$lcores" -- -f "$cfg" --duration "$secs" "${common[@]}" "$@" --json "$name.json" \
		> "$name.log" 2>&1; then
		echo "workers: FAIL: $name: mrcd exited non-zero"
		grep -v -- '--vdev' "$name.log" | tail -15
		fails=$((fails + 1))
	fi
	grep -E "messages:|data:|transport:| shard [0-9] on worker" "$name.log" || true
}
run loop-half 0@0,1@0,2@1 "$src/config/examples/loop.ini" 2 \
	--set lcores.workers=2 --set lcores.peer_shard=half
run loop-other 0@0,1@1 "$src/config/examples/loop.ini" 2 \
	--set lcores.workers=1 --set lcores.peer_shard=other
run loop-flow 0@0,1@0,2@1 "$src/config/examples/loop.ini" 2 \
	--set lcores.workers=2 --set lcores.peer_shard=half --set ports.steering=flow \
	--set transport.encap=srv6
run memif 0@0,1@0,2@1 "$src/config/examples/memif-pair.ini" 2 \
	--set lcores.workers=2 --set lcores.peer_shard=half --set ports.rx_pool_mbufs=32767
# the demo's network and scenario: plane 3 down at 2 s, up at 4 s
run fabric-flow 0@0,1@0,2@1 "$src/config/mrcd.ini" 5 \
	--set lcores.workers=2 --set ports.steering=flow
run fabric-software 0@0,1@0,2@1 "$src/config/mrcd.ini" 5 \
	--set lcores.workers=2 --set ports.steering=software
/usr/bin/python3 - loop-half.json loop-other.json loop-flow.json memif.json fabric-flow.json \
	fabric-software.json <<'PY' || fails=$((fails + 1))
import json, sys
bad = []
for f in sys.argv[1:]:
    try:
        s = json.load(open(f))
    except (OSError, ValueError) as e:
        bad.append(f"{f}: {e}")
        continue
    m = s["messages"]
    if m["completed"] == 0 or m["lost"] or m["failed"] or m["posted"] != m["completed"]:
        bad.append(f"{f}: messages {m}")
    if s["bytes_verified"] != m["completed"] * 256 * 1024 or s["verify_errors"]:
        bad.append(f"{f}: {s['bytes_verified']} bytes verified for {m['completed']} messages, "
                   f"{s['verify_errors']} errors")
    sh = s["shards"]
    if s["workers_per_host"] != 2 or len(sh) != 2 * s["hosts"]:
        bad.append(f"{f}: {len(sh)} shards for {s['hosts']} hosts")
    if sum(x["qps"] for x in sh) != s["qps"] or any(x["qps"] == 0 for x in sh):
        bad.append(f"{f}: the shards' QPs {[x['qps'] for x in sh]} are not the {s['qps']} QPs")
    for x in sh:
        for k in ("rx_misdispatched", "rx_unknown_qpn", "rx_dispatch_full"):
            if x[k]:
                bad.append(f"{f}: host {x['host']} shard {x['shard']}: {k} {x[k]}")
    crossed = 0
    for h in range(s["hosts"]):
        out = sum(x["rx_dispatched_out"] for x in sh if x["host"] == h)
        got = sum(x["rx_dispatched_in"] for x in sh if x["host"] == h)
        if got > out or out - got > 4096:
            bad.append(f"{f}: host {h}: {out} passed on, {got} taken")
        crossed += out
    flow = "flow" in f
    if flow and crossed:
        bad.append(f"{f}: {crossed} packets passed on, though every port steers by flow")
    if not flow and crossed == 0:
        bad.append(f"{f}: no packet crossed between shards, though some must")
    for p in s["ports"]:
        if p["steering"] != ("flow" if flow else "software") or p["rx_queues"] != 2 \
                or not p["why"]:
            bad.append(f"{f}: port {p}")
    if "fabric" in f and (s["retransmits"] == 0 or s["ev_losses"] == 0):
        bad.append(f"{f}: {s['retransmits']} resent, {s['ev_losses']} losses on a path "
                   "although plane 3 died")
    print(f"workers: {f}: {m['completed']} messages, {s['bytes_verified']} bytes verified, "
          f"{crossed} packets passed between shards, "
          f"dispatch share {[x['share']['dispatch'] for x in sh]}")
for b in bad:
    print("workers: FAIL:", b)
sys.exit(1 if bad else 0)
PY
# steering = flow cannot be had on loop ports with plain encapsulation: refused, saying why.
if "$mrcd" --lcores=0@0,1@1 -- -f "$src/config/examples/loop.ini" --duration 1 "${common[@]}" \
	--set ports.steering=flow > flow.log 2>&1; then
	echo "workers: FAIL: steering = flow started on net_ring ports"
	fails=$((fails + 1))
elif ! grep -q 'steering = flow, but \[transport\] encap = plain' flow.log; then
	echo "workers: FAIL: steering = flow refused without its reason:"
	tail -5 flow.log
	fails=$((fails + 1))
fi
echo "workers: $((fails == 0 ? 1 : 0)) passed, $fails failed"
[ "$fails" = 0 ]
