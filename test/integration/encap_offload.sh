#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# [ports] encap_offload (doc/offload.md): each port is probed with the
# egress encap rule and says what it answered.
#   fabric-auto: the emulated fabric's ports (recording backend) accept the
#                rule; the run still completes and verifies every byte;
#   null-auto:   net_null ports (rte_flow: ENOSYS) fall back, saying why
#                (nothing completes on them: mrcd exits 1);
#   null-on:     the same ports refuse to start, naming the port, its
#                driver and the driver's reason;
#   loop-auto:   plain mode (loop pairs, one worker): nothing to offload;
#   fabric-off:  the default probes nothing and says so.
# Usage: encap_offload.sh MRCD_BINARY WORKDIR
set -euo pipefail
mrcd=$(realpath "$1")
work=$2
src=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$work"
cd "$work"
rm -f ./*.json ./*.log
common=(--duration 1 --set telemetry.timeseries=none --set telemetry.prometheus=none)
fails=0
run() { # NAME EXIT_STATUS CONFIG ARGS...
	local name=$1 want=$2 cfg=$3 rc=0
	shift 3
	"$mrcd" -- -f "$cfg" "${common[@]}" "$@" --json "$name.json" > "$name.log" 2>&1 || rc=$?
	if [ "$rc" != "$want" ]; then
		echo "encap_offload: FAIL: $name: mrcd exited $rc, $want expected"
		grep -v -- '--vdev' "$name.log" | tail -15
		fails=$((fails + 1))
	fi
}
run fabric-auto 0 "$src/config/mrcd.ini" --set transport.encap=srv6 --set ports.encap_offload=auto
run null-auto 1 "$src/config/examples/null.ini" --set transport.encap=srv6 \
	--set ports.encap_offload=auto
run loop-auto 0 "$src/config/examples/loop.ini" --set ports.encap_offload=auto
run fabric-off 0 "$src/config/mrcd.ini" --set transport.encap=srv6
/usr/bin/python3 - <<'PY' || fails=$((fails + 1))
import json, sys
want = {  # run: (rule accepted, words the why must hold)
    "fabric-auto": (True, "recording probe: rule accepted"),
    "null-auto": (False, "auto: rte_flow probe"),
    "loop-auto": (False, "auto: [transport] encap = plain"),
    "fabric-off": (False, "[ports] encap_offload = off"),
}
bad = []
for name, (ok, words) in want.items():
    try:
        s = json.load(open(name + ".json"))
    except (OSError, ValueError) as e:
        bad.append(f"{name}: {e}")
        continue
    m = s["messages"]
    if name != "null-auto" and (m["completed"] == 0 or m["failed"] or s["verify_errors"]):
        bad.append(f"{name}: messages {m}, {s['verify_errors']} verify errors")
    if not s["ports"]:
        bad.append(f"{name}: no ports")
    for p in s["ports"]:
        if p["encap_offload"] != "software" or p["encap_rule_accepted"] != ok \
                or words not in p["encap_why"]:
            bad.append(f"{name}: port {p}")
    print(f"encap_offload: {name}: {len(s['ports'])} ports: {s['ports'][0]['encap_why']}")
for b in bad:
    print("encap_offload: FAIL:", b)
sys.exit(1 if bad else 0)
PY
for name in fabric-auto null-auto loop-auto; do
	grep -q 'SRv6 encap in software' "$name.log" ||
		{ echo "encap_offload: FAIL: $name: no start-up line for encap"; fails=$((fails + 1)); }
done
# encap_offload = on where the port refuses the rule: refused, naming port and reason.
if "$mrcd" -- -f "$src/config/examples/null.ini" "${common[@]}" --set transport.encap=srv6 \
	--set ports.encap_offload=on > null-on.log 2>&1; then
	echo "encap_offload: FAIL: encap_offload = on started on net_null ports"
	fails=$((fails + 1))
elif ! grep -Eq 'port [0-9]+ \(net_null\): \[ports\] encap_offload = on, but rte_flow probe: .+' \
	null-on.log; then
	echo "encap_offload: FAIL: encap_offload = on refused without its reason:"
	tail -5 null-on.log
	fails=$((fails + 1))
fi
echo "encap_offload: $((fails == 0 ? 1 : 0)) passed, $fails failed"
[ "$fails" = 0 ]
