#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# Many flows on one worker: mrcd with config/examples/scale.ini (two hosts
# back to back in loop mode, one worker lcore, no hugepages) and 16,384
# flows (qps_per_peer 8192 each way: 32,768 QPs), 256 per host with
# messages in flight at a time, each flow sending 2 messages (about 1 s at
# 30k messages/s under ASan), in a 5 s run. Checked from the --json summary:
# the QP count asked for, every flow's 2 messages posted, completed and
# verified byte for byte (the traffic is spread over all the flows, each
# taking two turns), and mrcd exits 0
# (every mempool full again). Sized to finish in seconds under ASan on a
# shared 2-core machine; config/profiles/scale-64k.ini is the full 65,536.
# Also: a profile asking for more flows than the daemon takes, or for more
# memory than the machine has, is refused before anything starts, with a
# message naming the value and what to lower.
# Usage: scale.sh MRCD_BINARY WORKDIR
set -euo pipefail
mrcd=$(realpath "$1")
work=$2
src=$(realpath "$(dirname "$0")/../..")
mkdir -p "$work"
cd "$work"
rm -f summary.json
if [ "$(nproc)" -lt 2 ]; then
	echo "scale: needs 2 CPUs (main + worker lcore); skipping"
	exit 77
fi
sed -e 's/^qps_per_peer = .*/qps_per_peer = 8192/' -e 's/^active_flows = .*/active_flows = 256/' \
	-e 's/^messages = .*/messages = 2/' \
	"$src/config/profiles/scale-64k.ini" > scale-16k.ini
set +e
"$mrcd" --no-huge -- -f "$src/config/examples/scale.ini" --profile "$PWD/scale-16k.ini" \
	--duration 5 --json summary.json > scale.log 2>&1
rc=$?
set -e
grep -v '^EAL\|^TELEMETRY' scale.log | tail -n 16
if [ "$rc" != 0 ]; then
	echo "scale: FAIL: mrcd exited $rc"
	exit 1
fi
/usr/bin/python3 - summary.json <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
m = s["messages"]
fails = []
def check(cond, what):
    if not cond:
        fails.append(what)
check(s["flows"] == 16384, f"flows {s['flows']}, want 16384")
check(s["qps"] == 32768, f"QPs {s['qps']}, want 32768")
check(m["posted"] == 2 * 16384 and m["posted"] == m["completed"] and m["lost"] == 0 and
      m["failed"] == 0, f"messages {m}")
check(s["verify_errors"] == 0 and s["bytes_verified"] == 1024 * m["completed"],
      f"verified {s['bytes_verified']} bytes, {s['verify_errors']} errors, for {m['completed']} 1 KiB messages")
check(s["flows_without_completion"] == 0,
      f"{s['flows_without_completion']} flows never completed a message")
check(s["trk_max_in_use"] <= 4096, f"in-flight rings out at once: {s['trk_max_in_use']}")
for f in fails:
    print("scale: FAIL:", f)
print(f"scale: {s['qps']} QPs, {m['completed']} messages, {s['msgs_per_s']:.0f}/s, "
      f"{s['heap_bytes_per_qp']} B of heap per QP")
sys.exit(1 if fails else 0)
PY
# expect_refused NAME SED PATTERN WHAT: the profile with SED applied must be
# refused up front (non-zero exit) with a message matching PATTERN.
expect_refused() {
	local name=$1 edit=$2 pattern=$3 what=$4 rc
	sed -e "$edit" "$src/config/profiles/scale-64k.ini" > "$name.ini"
	set +e
	"$mrcd" --no-huge -- -f "$src/config/examples/scale.ini" --profile "$PWD/$name.ini" \
		--duration 1 > "$name.log" 2>&1
	rc=$?
	set -e
	if [ "$rc" = 0 ] || ! grep -q "$pattern" "$name.log"; then
		cat "$name.log"
		echo "scale: FAIL: $what were not refused as they should (exit $rc)"
		exit 1
	fi
	grep -m1 "$pattern" "$name.log"
}
# Too many flows: refused up front, naming the value and what to lower.
expect_refused too-many 's/^qps_per_peer = .*/qps_per_peer = 40000/' \
	"makes 80000 flows.*at most 65536: lower qps_per_peer to 32768" "80000 flows"
# Message buffers beyond any machine's memory (65,536 flows x 1 GiB, at both
# ends): refused up front with what it needs and what to lower.
expect_refused too-big 's/^msg_kb = .*/msg_kb = 1048576/' \
	"needs [0-9]* MiB: [0-9]* MiB of message buffers (65536 flows x 1 x 1048576 KiB slots, at both ends).*lower qps_per_peer, outstanding, buffers or msg_kb" \
	"128 TiB of message buffers"
echo "scale: ok"
