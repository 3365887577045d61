#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# [lcores] stats_interval_ms is how often the workers publish snapshots:
# with 250 ms, the snapshot /mrc/host,0 answers from moves in steps of about
# 250 ms however often it is asked (every 20 ms here), and the run still
# drains at once and loses nothing (the drain reads snapshots every ms).
# Usage: stats_interval.sh MRCD_BINARY WORKDIR
set -euo pipefail
mrcd=$(realpath "$1")
work=$2
src=$(realpath "$(dirname "$0")/../..")
. "$(dirname "$0")/lib.sh"
mkdir -p "$work"
cd "$work"
rm -f stats.log summary.json samples.json
if [ "$(nproc)" -lt 2 ]; then
	echo "stats_interval: needs 2 CPUs (main + worker lcore); skipping"
	exit 77
fi
cat > stats.ini <<INI
; the demo's 2 hosts x 8 planes and traffic, no faults, snapshots every 250 ms
[daemon]
duration_s = 3
profile = $src/config/profiles/default.ini
scenario = none
[lcores]
stats_interval_ms = 250
[telemetry]
timeseries_interval_ms = 250
timeseries = none
prometheus = none
INI
set +e
"$mrcd" -- -f stats.ini --json summary.json > stats.log 2>&1 &
pid=$!
sock=
for _ in $(seq 50); do
	sock=$(mrc_sock stats.log)
	[ -n "$sock" ] && [ -S "$sock" ] && break
	sleep 0.1
done
sleep 0.5
# 60 questions 20 ms apart: about 1.2 s of snapshots.
timeout 30 /usr/bin/python3 - "$mrc_telemetry" "$sock" > samples.json <<'PY'
import importlib.util, json, sys, time
spec = importlib.util.spec_from_file_location("tel", sys.argv[1])
tel = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tel)
c = tel.Client(sys.argv[2])
out = []
for _ in range(60):
    h = c.query("/mrc/host,0")
    out.append(list(h.values())[0]["snapshot_ms"])
    time.sleep(0.02)
print(json.dumps(out))
PY
tel_rc=$?
wait $pid
rc=$?
set -e
tail -n 6 stats.log
if [ "$rc" != 0 ] || [ "$tel_rc" != 0 ]; then
	echo "stats_interval: FAIL: mrcd exited $rc, telemetry $tel_rc"
	exit 1
fi
/usr/bin/python3 - samples.json summary.json <<'PY'
import json, sys
ms = json.load(open(sys.argv[1]))
s = json.load(open(sys.argv[2]))
fails = []
distinct = sorted(set(ms))
steps = [b - a for a, b in zip(distinct, distinct[1:])]
# 1.2 s of asking sees about 5 snapshots, not 60: 250 ms apart, never closer (a loaded
# machine may stretch a gap, so only the typical one is bounded above).
if len(distinct) < 3:
    fails.append(f"{len(distinct)} distinct snapshots in 60 answers: {distinct}")
elif min(steps) < 200 or sorted(steps)[len(steps) // 2] > 1000:
    fails.append(f"snapshots not 250 ms apart: {steps}")
m = s["messages"]
if m["lost"] or m["failed"] or m["completed"] < 10:
    fails.append(f"messages: {m}")
if s["drain_s"] > 0.2:
    fails.append(f"the drain took {s['drain_s']} s: it should not wait for a snapshot tick")
for f in fails:
    print("stats_interval: FAIL:", f)
print(f"stats_interval: snapshots at {distinct} ms; drain {s['drain_s']} s")
sys.exit(1 if fails else 0)
PY
