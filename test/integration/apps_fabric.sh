#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# Applications on two mrcd processes joined through mrc-fabric
# (doc/applications.md): mrc-fabric serves 2 hosts x 4 planes over
# net_memif, one mrcd per host each with its own application socket, and a
# lib_mrc program on each (mrc-app-test: the server on host 1, the client on
# host 0) moves 1 MiB rounds of 64 KiB WRITEs for 2 s, every 64th signalled,
# then a WRITE_WITH_IMM the server receives on a posted receive and checks
# the last round byte by byte; plane 1 dies 0.5 s after the hosts connect and
# stays dead, so nothing may be lost across it. All three daemons then get
# SIGTERM and must exit 0.
# Usage: apps_fabric.sh MRC_FABRIC MRCD APP_TEST WORKDIR
set -euo pipefail
fabric=$(realpath "$1")
mrcd=$(realpath "$2")
app=$(realpath "$3")
work=$4
. "$(dirname "$0")/lib.sh"
mkdir -p "$work"
cd "$work"
rm -f ./*.json ./*.log host*.ini
if [ "$(nproc)" -lt 2 ]; then
	echo "apps_fabric: needs 2 CPUs; skipping"
	exit 77
fi
# mrc-fabric reads the cluster's profile; the two mrcd run none (no generator traffic).
cat > profile.ini <<'P'
[profile]
pattern = pairs
msg_kb = 4
outstanding = 1
messages = 1
P
cat > scenario.ini <<'S'
[scenario]
name = plane1-dies
description = plane 1 down for good, 0.5 s after the hosts connect

[event.down]
at = 500ms
element = plane
plane = 1
action = down
S
mrc_run_dir apps-fabric
mrc_fabric_cluster "$fabric" "$dir" 1
"$mrcd" --lcores=0@0,1@0 -- -f "$dir/host0.ini" --profile none --set daemon.apps_socket="$dir/a0.sock" \
	> h0.log 2>&1 &
pids+=($!)
"$mrcd" --lcores=0@1,1@1 -- -f "$dir/host1.ini" --profile none --set daemon.apps_socket="$dir/a1.sock" \
	> h1.log 2>&1 &
pids+=($!)
for _ in $(seq 100); do
	[ -S "$dir/a0.sock" ] && [ -S "$dir/a1.sock" ] && break
	sleep 0.1
done
port=$((20000 + $$ % 20000))
fails=0
"$app" server "$dir/a1.sock" 1 "$port" 1048576 65536 2 > server.log 2>&1 &
spid=$!
"$app" client "$dir/a0.sock" 0 "$port" 1048576 65536 2 > client.log 2>&1 || {
	echo "apps_fabric: FAIL: client"
	fails=$((fails + 1))
}
wait $spid || { echo "apps_fabric: FAIL: server"; fails=$((fails + 1)); }
cat server.log client.log
kill -TERM "${pids[@]}" 2>/dev/null || true
set +e
for i in 0 1 2; do
	wait "${pids[$i]}"
	rc=$?
	[ "$rc" = 0 ] || { echo "apps_fabric: FAIL: process $i exited $rc"; fails=$((fails + 1)); }
done
set -e
/usr/bin/python3 - fabric.json <<'PY' || fails=$((fails + 1))
import json, sys
f = json.load(open(sys.argv[1]))
down, events = f["fabric"]["drop_down"], [e["what"] for e in f["events"]]
print(f"apps_fabric: the dead plane dropped {down} packets; events {events}")
if not any(e.startswith("plane 1 down") for e in events) or down == 0:
    print("apps_fabric: FAIL: plane 1 did not die under the transfer")
    sys.exit(1)
PY
[ "$fails" = 0 ] && echo "apps_fabric: PASS"
exit "$fails"
