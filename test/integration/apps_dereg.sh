#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# Deregistering a region right after its writes completed (doc/applications.md,
# "Memory"): one mrcd runs hosts 0 and 1 of the emulated fabric on two workers
# each, with 20 ms links, so packets stay on the wire for 80 ms. The client
# (mrc-app-test in flush mode) posts 32 writes of 64 KiB, puts its QP in
# ERROR at once, takes every completion (flushed while its packets are still
# in the fabric) and deregisters its region: verbs lets it go after the
# completions, so that must succeed the first time (it failed EBUSY while
# any packet held the region). mrcd must then let the pages go once the
# packets are gone: /mrc/apps lists no session within 5 s of both programs'
# end, and mrcd exits 0, every mbuf back in its pool.
# Usage: apps_dereg.sh MRCD_BINARY APP_TEST_BINARY WORKDIR
set -euo pipefail
mrcd=$(realpath "$1")
app=$(realpath "$2")
work=$3
. "$(dirname "$0")/lib.sh"
mkdir -p "$work"
cd "$work"
rm -f ./*.log ./*.json
if [ "$(nproc)" -lt 2 ]; then
	echo "apps_dereg: needs 2 CPUs; skipping"
	exit 77
fi
sock=$PWD/apps.sock
port=$((20000 + $$ % 20000))
fails=0
fail() { echo "apps_dereg: FAIL: $*"; fails=$((fails + 1)); }

"$mrcd" --lcores=0@0,1@0,2@1 -- --set daemon.apps_socket="$sock" \
	--set lcores.workers_per_host=2 --set lcores.workers=2 \
	--set fabric.link_delay_ns=20000000 --set fabric.max_in_flight=64 \
	--profile none --scenario none --duration 0 > mrcd.log 2>&1 &
mpid=$!
trap 'kill -TERM $mpid 2>/dev/null || true' EXIT
mrc_wait_apps "$sock" mrcd.log || { cat mrcd.log; echo "apps_dereg: FAIL: no socket"; exit 1; }
"$app" server "$sock" 1 "$port" 65536 65536 1 flush > server.log 2>&1 &
spid=$!
"$app" client "$sock" 0 "$port" 65536 65536 1 flush > client.log 2>&1 &
cpid=$!
wait $spid || fail "server"
wait $cpid || fail "client"
cat server.log client.log
grep -q "deregistered at once" client.log || fail "the client's region was not deregistered at once"
sessions=$(mrc_apps_gone mrcd.log)
[ "$sessions" = 0 ] || fail "/mrc/apps still lists $sessions session(s) 5 s after both programs ended"
trap - EXIT
mrc_stop $mpid mrcd.log || fail "mrcd exited $?"
[ "$fails" = 0 ] && echo "apps_dereg: PASS"
exit "$fails"
