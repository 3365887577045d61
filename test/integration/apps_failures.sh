#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# Applications on mrcd when things go wrong (doc/applications.md), on one
# mrcd with hosts 0 and 1 of the emulated fabric:
#  1. bad requests: mrc-app-test in `bad` mode. A SEND, a wrong lkey,
#     memory no region holds, a region of another protection domain of
#     the program and a post on a QP in RESET each fail alone with
#     EINVAL and complete nothing, and the transfer after them works; a write
#     with a wrong rkey completes IBV_WC_REM_ACCESS_ERR, the QP goes to ERROR
#     with IBV_EVENT_QP_FATAL, and a write after it is flushed.
#  1b. hostile requests written straight into the shared rings (a bad
#     opcode, keys not its own, memory past its region, a region of its
#     other protection domain, an rkey of mrcd's own memory at the peer, a
#     scribbled ring head), a malformed socket message, a second HELLO for the other
#     host, and receives flushed without end (the worker must go on with
#     its other work meanwhile): each refused with its verbs error
#     and counted by reason in /mrc/apps (the QP to ERROR, brought back by
#     the program), then the transfer works; and a second session of the
#     client, to host 1, whose HELLO says it is pid 1: /mrc/apps shows every
#     session with the pid and uid the kernel gives its socket (the
#     client's twice, the server's once), never the HELLO's.
#  1c. 16 connections that never say HELLO (every session slot): each
#     closed by mrcd after 5 s and counted, so that step 2's programs attach.
#  2. an application killed mid-transfer (SIGKILL): mrcd lets its session go
#     (its QPs to ERROR, its regions released once no packet holds them:
#     /mrc/apps no longer lists it), and a new pair of processes then moves its
#     data as if nothing happened; mrcd exits 0 at the end, every mbuf back.
#  3. mrcd stopped under a transferring pair (SIGTERM): both programs see
#     their outstanding work complete IBV_WC_WR_FLUSH_ERR and
#     IBV_EVENT_DEVICE_FATAL, and exit 0 within seconds (nothing hangs).
# With WORKERS 2 each host runs on two workers (two worker lcores) and
# the programs use 4 QPs, so both workers own some of each program's QPs.
# Usage: apps_failures.sh MRCD_BINARY APP_TEST_BINARY WORKDIR [WORKERS]
set -euo pipefail
mrcd=$(realpath "$1")
app=$(realpath "$2")
work=$3
workers=${4:-1}
case "$workers" in
1) wargs=(--) qps=1 ;;
2) wargs=(--lcores=0@0,1@0,2@1 -- --set lcores.workers_per_host=2 --set lcores.workers=2) qps=4 ;;
*) echo "apps_failures: WORKERS $workers: 1 or 2"; exit 2 ;;
esac
. "$(dirname "$0")/lib.sh"
mkdir -p "$work"
cd "$work"
rm -f ./*.log ./*.json
if [ "$(nproc)" -lt 2 ]; then
	echo "apps_failures: needs 2 CPUs; skipping"
	exit 77
fi
sock=$PWD/apps.sock
port=$((20000 + $$ % 20000))
fails=0
fail() { echo "apps_failures: FAIL: $*"; fails=$((fails + 1)); }

start_mrcd() { # LOG
	"$mrcd" "${wargs[@]}" --set daemon.apps_socket="$sock" --profile none --scenario none --duration 0 > "$1" 2>&1 &
	mpid=$!
	mrc_wait_apps "$sock" "$1" && return 0
	cat "$1"
	return 1
}

start_mrcd mrcd1.log || { echo "apps_failures: FAIL: mrcd did not start"; exit 1; }
trap 'kill -TERM $mpid 2>/dev/null || true' EXIT

# 1. Bad requests.
"$app" server "$sock" 1 "$port" 65536 4096 0.2 normal $qps > bad_server.log 2>&1 &
spid=$!
# A client that fails leaves its server waiting for it: the server is stopped.
"$app" client "$sock" 0 "$port" 65536 4096 0.2 bad $qps > bad_client.log 2>&1 ||
	{ fail "bad requests: client"; kill -TERM $spid 2> /dev/null || true; }
wait $spid || fail "bad requests: server"
cat bad_client.log
[ "$(grep -c "as expected" bad_client.log)" = 12 ] || fail "bad requests: want 12 checks"

# 1b. Hostile writes into the shared rings and a malformed socket message: each refused,
# counted by reason in /mrc/apps, and the transfer after them works.
port=$((port + 1))
"$app" server "$sock" 1 "$port" 65536 4096 0.2 normal $qps > hostile_server.log 2>&1 &
spid=$!
"$app" client "$sock" 0 "$port" 65536 4096 0.2 hostile $qps > hostile_client.log 2>&1 &
cpid=$!
for _ in $(seq 100); do
	grep -q 'hostile: done' hostile_client.log && break
	sleep 0.1
done
s=$(mrc_sock mrcd1.log)
timeout 10 /usr/bin/python3 - "$mrc_telemetry" "$s" "$cpid" "$spid" <<'PY' || fail "hostile: counters"
import importlib.util, os, sys
spec = importlib.util.spec_from_file_location("tel", sys.argv[1])
tel = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tel)
c = tel.Client(sys.argv[2])
apps = list(c.query("/mrc/apps").values())[0]
sess = [v for k, v in apps.items() if k.startswith("session_") and v["host"] == 0]
if len(sess) != 1:
    sys.exit(f"apps_failures: one session on host 0 wanted: {apps}")
s = sess[0]
detail = list(c.query(f"/mrc/apps,{s['session']}").values())[0]
qps = [v for k, v in detail.items() if k.startswith("qp_")]
want = {"refused_wqe_opcode": 1, "refused_wqe_key": 3, "refused_ring_index": 1}
got = {k: sum(q[k] for q in qps) for k in want}
print("apps_failures: hostile: refused", got, "and socket messages",
      s.get("refused_msg_size", 0))
if any(got[k] < want[k] for k in want) or s.get("refused_msg_size", 0) < 1:
    sys.exit("apps_failures: FAIL: hostile requests not counted by reason")
# who each session is: the kernel's word, not the HELLO's (the second one says pid 1)
client, server = int(sys.argv[3]), int(sys.argv[4])
who = sorted((v["pid"], v["uid"]) for k, v in apps.items() if k.startswith("session_"))
want_who = sorted([(client, os.getuid())] * 2 + [(server, os.getuid())])
print("apps_failures: hostile: sessions (pid, uid)", who)
if who != want_who:
    sys.exit(f"apps_failures: FAIL: sessions (pid, uid) {who}, want {want_who}")
PY
wait $cpid || { fail "hostile: client"; kill -TERM $spid 2> /dev/null || true; }
wait $spid || fail "hostile: server"
cat hostile_client.log
[ "$(grep -c "as expected" hostile_client.log)" = 19 ] || fail "hostile: want 19 checks"

# 1c. Every session slot taken by connections that never say HELLO: mrcd closes
# each after 5 s (counted), so applications can attach again.
timeout 20 /usr/bin/python3 - "$sock" "$mrc_telemetry" "$(mrc_sock mrcd1.log)" <<'PY' || fail "silent connections"
import importlib.util, select, socket, sys, time
conns = []
for _ in range(16):
    c = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    c.connect(sys.argv[1])
    conns.append(c)
t0 = time.monotonic()
open_ = set(conns)
while open_ and time.monotonic() - t0 < 12:
    ready, _, _ = select.select(list(open_), [], [], 0.5)
    for c in ready:
        if c.recv(64) == b"":
            open_.discard(c)
took = time.monotonic() - t0
print(f"apps_failures: silent connections: {16 - len(open_)} of 16 closed by mrcd in {took:.1f} s")
if open_:
    sys.exit("apps_failures: FAIL: connections without HELLO hold their session slots")
spec = importlib.util.spec_from_file_location("tel", sys.argv[2])
tel = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tel)
apps = list(tel.Client(sys.argv[3]).query("/mrc/apps").values())[0]
if apps.get("sessions_no_hello", 0) < 16:
    sys.exit(f"apps_failures: FAIL: sessions_no_hello {apps.get('sessions_no_hello')}")
PY

# 2. A client killed mid-transfer; then a new pair.
port=$((port + 1))
"$app" server "$sock" 1 "$port" 1048576 65536 5 normal $qps > kill_server.log 2>&1 &
spid=$!
"$app" client "$sock" 0 "$port" 1048576 65536 5 normal $qps > kill_client.log 2>&1 &
cpid=$!
sleep 1.5
kill -KILL $cpid
wait $cpid 2>/dev/null || true
kill -TERM $spid 2>/dev/null || true
wait $spid 2>/dev/null || true
n=$(mrc_apps_gone mrcd1.log)
[ "$n" = 0 ] || fail "killed: /mrc/apps still lists $n sessions"
grep -q 'gone: its QPs to ERROR' mrcd1.log || fail "killed: mrcd did not notice"
port=$((port + 1))
"$app" server "$sock" 1 "$port" 1048576 65536 1 normal $qps > after_server.log 2>&1 &
spid=$!
"$app" client "$sock" 0 "$port" 1048576 65536 1 normal $qps > after_client.log 2>&1 || fail "after the kill: client"
wait $spid || fail "after the kill: server"
cat after_server.log after_client.log
mrc_stop $mpid mrcd1.log || fail "mrcd exited $? after the kill (mbufs not back?)"
grep -i 'not returned' mrcd1.log && fail "mbufs not returned"

# 3. mrcd stopped under a pair.
port=$((port + 1))
start_mrcd mrcd2.log || { echo "apps_failures: FAIL: mrcd did not start again"; exit 1; }
"$app" server "$sock" 1 "$port" 1048576 65536 30 die $qps > die_server.log 2>&1 &
spid=$!
"$app" client "$sock" 0 "$port" 1048576 65536 30 die $qps > die_client.log 2>&1 &
cpid=$!
sleep 1.5
t0=$(date +%s.%N)
kill -TERM $mpid
wait $mpid || true
trap - EXIT
wait $cpid || fail "mrcd stopped: client"
wait $spid || fail "mrcd stopped: server"
t1=$(date +%s.%N)
cat die_client.log die_server.log
/usr/bin/python3 -c "import sys; sys.exit(0 if $t1 - $t0 < 10 else 1)" ||
	fail "mrcd stopped: the programs took more than 10 s to see it"
[ "$fails" = 0 ] && echo "apps_failures: PASS"
exit "$fails"
