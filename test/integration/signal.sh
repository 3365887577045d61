#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# SIGTERM and SIGINT mid-run (then SIGHUP, below): mrcd stops posting, drains what is in flight
# within its bound, prints the summary and exits 0. Exit 0 is itself a leak
# check: mrcd fails its exit when any mempool is not full again after the
# QPs are destroyed. Also checked: nothing lost, the run really was cut short,
# and the runtime directory (telemetry socket included) is gone afterwards.
# Usage: signal.sh MRCD_BINARY WORKDIR
set -euo pipefail
mrcd=$(realpath "$1")
work=$2
mkdir -p "$work"
cd "$work"
if [ "$(nproc)" -lt 2 ]; then
	echo "signal: needs 2 CPUs (main + worker lcore); skipping"
	exit 77
fi
fails=0
for sig in TERM INT; do
	rm -f "summary-$sig.json"
	"$mrcd" -- --duration 60 --json "summary-$sig.json" > "signal-$sig.log" 2>&1 &
	pid=$!
	dir=
	for _ in $(seq 50); do
		dir=$(grep -o '/var/run/dpdk/[^ ,]*' "signal-$sig.log" 2>/dev/null | head -1 || true)
		grep -q "^ *1.0s" "signal-$sig.log" 2>/dev/null && break
		sleep 0.1
	done
	sleep 0.5 # traffic in flight
	kill -"$sig" "$pid"
	set +e
	wait "$pid"
	rc=$?
	set -e
	tail -n 8 "signal-$sig.log"
	if [ "$rc" != 0 ]; then
		echo "signal: FAIL: SIG$sig: mrcd exited $rc (a mempool not full again, or messages lost)"
		fails=$((fails + 1))
		continue
	fi
	grep -q "stopping, draining" "signal-$sig.log" ||
		{ echo "signal: FAIL: SIG$sig: no drain message"; fails=$((fails + 1)); }
	if [ -n "$dir" ] && [ -e "$dir" ]; then
		echo "signal: FAIL: SIG$sig: runtime directory $dir left behind"
		fails=$((fails + 1))
	fi
	/usr/bin/python3 - "summary-$sig.json" "$sig" <<'PY' || fails=$((fails + 1))
import json, sys
s = json.load(open(sys.argv[1]))
m = s["messages"]
bad = []
if not 0.5 < s["duration_s"] < 20:
    bad.append(f"ran {s['duration_s']} s: the signal did not cut the 60 s run short")
if not 0 <= s["drain_s"] <= 0.5:
    bad.append(f"drain took {s['drain_s']} s")
if m["completed"] == 0 or m["lost"] != 0 or m["failed"] != 0 or m["posted"] != m["completed"]:
    bad.append(f"messages {m}")
if s["verify_errors"] != 0:
    bad.append(f"{s['verify_errors']} verify errors")
for b in bad:
    print(f"signal: FAIL: SIG{sys.argv[2]}: {b}")
print(f"signal: SIG{sys.argv[2]}: ran {s['duration_s']:.2f} s, drained in "
      f"{s['drain_s'] * 1e3:.1f} ms, {m['completed']} messages, none lost")
sys.exit(1 if bad else 0)
PY
done

# SIGHUP (outside service mode) and SIGUSR1 mean nothing: said in its log and ignored,
# the run goes on to its end (3 s) and exits 0. Their default action would
# kill it at once, with no drain, no summary and the runtime directory left.
rm -f summary-HUP.json
"$mrcd" -- --duration 3 --json summary-HUP.json > signal-HUP.log 2>&1 &
pid=$!
for _ in $(seq 600); do
	grep -q "^ *1.0s" signal-HUP.log 2>/dev/null && break
	sleep 0.1
done
kill -HUP "$pid"
sleep 0.2
kill -USR1 "$pid" 2>/dev/null || true
set +e
wait "$pid"
rc=$?
set -e
if [ "$rc" != 0 ]; then
	echo "signal: FAIL: SIGHUP: mrcd exited $rc"
	fails=$((fails + 1))
elif ! grep -q "Hangup: mrcd reloads only as a service (--service); ignored" signal-HUP.log ||
	! grep -q "User defined signal 1: mrcd has no use for this signal; ignored" signal-HUP.log; then
	echo "signal: FAIL: SIGHUP/SIGUSR1 not reported as ignored"
	fails=$((fails + 1))
elif ! /usr/bin/python3 -c 'import json, sys; s = json.load(open(sys.argv[1])); sys.exit(0 if s["duration_s"] >= 2.9 and s["messages"]["lost"] == 0 else 1)' summary-HUP.json; then
	echo "signal: FAIL: SIGHUP cut the run short or lost messages"
	fails=$((fails + 1))
else
	echo "signal: SIGHUP and SIGUSR1 ignored, the run went on to its end"
fi
echo "signal: $((3 - fails)) passed, $fails failed"
[ "$fails" = 0 ]
