#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# A QP gone to ERROR whose flow's other end is in another process is brought
# back on a spare pair both processes agree on (endpoint flow-recovery
# requests, doc/protocol.md "Flow recovery"). Two mrcd processes joined by
# mrc-fabric (2 hosts x 4 planes): A runs host 0, B host 1, one flow each
# way, paced so that both still send when the drills come. Two drills, one
# at a time, both on B (mrcctl fail):
#
#  1. the receiving end of A -> B fails: B retires it and tells A, A (the
#     sender's process leads) retires its sending QP, asks B for its end of
#     a spare pair, and resumes once B made it;
#  2. the sending end of B -> A fails: B leads, A makes the receiving end.
#
# Twice: one worker per host, then two with each flow's receiving end on the
# other shard index ([lcores] peer_shard = other), so the spare pair both
# processes agree on must be placed as the flow is at each end.
#
# Each flow comes back once (flows_recovered 2 at A and 2 at B, none given
# up: a recovery is counted at each end), on QPNs of the spare range, and
# sends on: every message completes or failed (those in flight at a drill,
# at most 4 per drill), none lost, every byte that completed checked at its
# receiver with no error, and messages complete after the drills. Without
# cross-process recovery each drill leaves its flow down (other_process).
#
# The first round then, every message done, fails B's sending end of B -> A
# until B gives the flow up (too_often): A must count it given up too, told
# by B's GIVE_UP (about 1 s more).
#
# A third round stops B's process (SIGSTOP) and fails A's sending end of
# A -> B: A asks B's process for a new pair, gets no answer, and gives the
# flow up (no_answer, after 9 tries over about 1 s), then tells B's process
# so, unanswered too (about 1 s more). B then runs again: it makes its end
# of the pair the MAKE queued for it names and says yes, which makes A send
# its GIVE_UP again; B counts the flow given up for the same reason. B -> A
# sends on to its last message; nothing is lost at either end.
# Usage: xrecover.sh MRC_FABRIC MRCD WORKDIR MRCCTL
set -euo pipefail
fabric=$(realpath "$1")
mrcd=$(realpath "$2")
work=$3
mrcctl=$(realpath "$4")
. "$(dirname "$0")/lib.sh"
mkdir -p "$work"
cd "$work"
rm -rf one split mute
if [ "$(nproc)" -lt 2 ]; then
	echo "xrecover: needs 2 CPUs; skipping"
	exit 77
fi
n=1500
# 64 KiB messages at 0.25 Gb/s: about 480 a second each way, 3 s in all
cat > profile.ini <<P
[profile]
pattern = pairs
msg_kb = 64
outstanding = 4
rate_gbps = 0.25
messages = $n
verify = true
P
cat > scenario.ini <<S
[scenario]
name = xrecover
description = no faults: the drills are the test
S
mrc_run_dir xr
fails=0
fail() {
	echo "xrecover: FAIL: $*"
	fails=$((fails + 1))
}
# host LOG KEY[+KEY]: KEY of /mrc/host,0 of the mrcd writing LOG (its only
# host), or the sum of two; a read that takes 2 s or more is said on stderr
# (the telemetry thread shares a CPU with polling workers here)
host() {
	local s t0=$SECONDS
	s=$(mrc_sock "$1")
	timeout 10 /usr/bin/python3 "$mrc_telemetry" -s "$s" /mrc/host,0 2>/dev/null |
		/usr/bin/python3 -c "import json,sys; h=list(json.load(sys.stdin).values())[0]; print(sum(h[k] for k in '$2'.split('+')))" 2>/dev/null || echo 0
	[ $((SECONDS - t0)) -lt 2 ] || echo "xrecover: $1's telemetry took $((SECONDS - t0)) s to answer $2" >&2
}
# replies LOG: how the stats thread of the mrcd writing LOG has answered (/mrc/info)
replies() {
	timeout 10 /usr/bin/python3 "$mrc_telemetry" -s "$(mrc_sock "$1")" /mrc/info 2>/dev/null |
		/usr/bin/python3 -c "import json,sys; i=list(json.load(sys.stdin).values())[0]; print(*(f'{k} {i[k]}' for k in ('replies_served','replies_timed_out','stats_passes','control_passes')))" 2>/dev/null ||
		echo "no answer to /mrc/info"
}
# recovered LOG: flows the mrcd writing LOG logged as recovered (cheaper than
# telemetry, whose thread shares a CPU with polling workers here)
recovered() {
	grep -c ' recovered on QPs ' "$1" 2>/dev/null || true
}
# wait_for LOG KEY VALUE SECONDS: until KEY of LOG's host is at least VALUE
wait_for() {
	local end=$((SECONDS + $4))
	while [ $SECONDS -lt "$end" ]; do
		[ "$(host "$1" "$2")" -ge "$3" ] && return 0
		sleep 0.1
	done
	return 1
}
# qps LOG: "RECEIVER SENDER", the QPNs of the flows' ends of the mrcd
# writing LOG (its only host), from /mrc/qps
qps() {
	timeout 10 /usr/bin/python3 "$mrc_telemetry" -s "$(mrc_sock "$1")" /mrc/qps 2>/dev/null |
		/usr/bin/python3 -c '
import json, sys
q = list(json.load(sys.stdin).values())[0]
role = {v.split(", ")[-1]: k for k, v in q.items() if k != "next"}
print(role.get("receiver", "none"), role.get("sender", "none"))' 2>/dev/null || echo "none none"
}
# round NAME WORKERS [FABRIC_LINES [MUTE]]: one fabric (FABRIC_LINES added to
# its config, which it hands to the hosts), A and B with WORKERS workers per
# host, the two drills on B and the checks; with MUTE, the drill on A while
# B is stopped instead. In folder NAME.
round() {
	local name=$1 w=$2 lines=${3:-} muted=${4:-} lc_a lc_b a b sa sb recv_qpn send_qpn end da db ra rb
	mkdir -p "$name"
	cd "$name"
	cp ../profile.ini ../scenario.ini .
	mkdir -p "$dir/$name"
	mrc_fabric_cluster "$fabric" "$dir/$name" 10 "$lines"
	lc_a=0@0,1@0
	lc_b=0@1,1@1
	[ "$w" = 1 ] || { lc_a=$lc_a,2@0; lc_b=$lc_b,2@1; }
	mrc_spawn a.status "$mrcd" --lcores=$lc_a -- -f "$dir/$name/host0.ini" --json a.json > a.log 2>&1
	a=$mrc_spawned
	pids+=($a)
	mrc_spawn b.status "$mrcd" --lcores=$lc_b -- -f "$dir/$name/host1.ini" --json b.json > b.log 2>&1
	b=$mrc_spawned
	pids+=($b)
	sa=$dir/$name/host0-control.sock
	sb=$dir/$name/host1-control.sock
	mrc_wait_ctl "$mrcctl" "$sa" 30 || fail "$name: A's control socket never answered"
	mrc_wait_ctl "$mrcctl" "$sb" 30 || fail "$name: B's control socket never answered"
	# B's QPs: its flow's sender (B -> A) and receiver (A -> B); with MUTE, A's
	read -r recv_qpn send_qpn <<< "$(qps "$([ -z "$muted" ] && echo b.log || echo a.log)")"
	echo "xrecover: $name: $([ -z "$muted" ] && echo B || echo A) receives on $recv_qpn, sends on $send_qpn"
	wait_for a.log msgs_completed 20 10 || fail "$name: A completed no messages in 10 s"
	wait_for b.log msgs_completed 20 10 || fail "$name: B completed no messages in 10 s"
	if [ -z "$muted" ]; then
		drill "$name: the receiving end of A -> B" "$sb" "$recv_qpn" 1
		drill "$name: the sending end of B -> A" "$sb" "$send_qpn" 2
	else
		mute "$name: the sending end of A -> B, B stopped" "$sa" "$b" "$send_qpn"
	fi
	# Both flows sent on after: all n messages done at both (completed or failed), 20 s at
	# most; with MUTE, at B (A's flow is given up).
	end=$((SECONDS + 20))
	while [ $SECONDS -lt $end ]; do
		da=$(host a.log msgs_completed+msgs_failed)
		db=$(host b.log msgs_completed+msgs_failed)
		{ [ "$da" -ge $n ] || [ -n "$muted" ]; } && [ "$db" -ge $n ] && break
		kill -0 $a 2>/dev/null && kill -0 $b 2>/dev/null || break
		sleep 0.1
	done
	[ $SECONDS -lt $end ] ||
		echo "xrecover: $name: not every message done in 20 s (A $da, B $db of $n); A: $(replies a.log); B: $(replies b.log)"
	[ "$name" != one ] || give_up "$name" "$sb"
	kill -TERM $a $b 2>/dev/null || true
	mrc_wait_dead $a 15 || fail "$name: A still runs 15 s after SIGTERM"
	mrc_wait_dead $b 15 || fail "$name: B still runs 15 s after SIGTERM"
	kill -TERM $mrc_fabric_pid 2>/dev/null || true
	ra=$(mrc_status a.status 30)
	rb=$(mrc_status b.status 30)
	# 1: some messages failed (those in flight at a drill), which the JSON checks
	case $ra in 0 | 1) ;; *) fail "$name: A's mrcd exited $ra" ;; esac
	case $rb in 0 | 1) ;; *) fail "$name: B's mrcd exited $rb" ;; esac
	grep -h 'flow-recovery\|recovered on QPs\|not brought back\|retiring QP\|went to ERROR\|spare pair\|gave it up' a.log b.log || true
	if [ -n "$muted" ]; then
		check_mute "$name" || fails=$((fails + 1))
		cd ..
		return
	fi
	check "$name" "$([ "$name" = one ] && echo 1 || echo 0)" || fails=$((fails + 1))
	# The new pairs are spares: past the flows' own QPNs (0x100-0x103).
	for l in a.log b.log; do
		grep -q 'recovered on QPs 0x10[4-9a-f]\|recovered on QPs 0x1[1-9a-f]' $l ||
			fail "$name: $l: no flow recovered on a spare pair's QPNs"
	done
	cd ..
}
# mute DESC SOCK B_PID QPN: stop B's process, fail QPN (A's sending end) of
# host 0 of the mrcd on SOCK (A); A must give the flow up unanswered and
# stop telling B's process so; B, running again, must hear it all the same
mute() {
	local out t0=$SECONDS
	kill -STOP "$3"
	out=$(timeout 10 "$mrcctl" -s "$2" fail host=0 qpn="$4" 2>&1) || true
	case $out in *'"state":"error"'*) ;; *) fail "$1: mrcctl fail qpn=$4: $out" ;; esac
	until grep -q 'did not answer [0-9]* requests saying the flow was given up' a.log ||
		[ $((SECONDS - t0)) -ge 10 ]; do
		sleep 0.1
	done
	kill -CONT "$3"
	if ! grep -q 'is not brought back: the other end.s process did not answer' a.log ||
		! grep -q 'did not answer [0-9]* requests saying the flow was given up' a.log; then
		fail "$1: with B stopped, A did not give A -> B up and stop telling B in 10 s:" \
			"$(grep -h 'not brought back\|did not answer' a.log)"
		return
	fi
	until grep -q 'is not brought back' b.log || [ $((SECONDS - t0)) -ge 15 ]; do sleep 0.1; done
	if grep -q "process gave it up" b.log &&
		grep -q 'is not brought back: the other end.s process did not answer' b.log &&
		grep -q 'after we gave the flow up: telling it again' a.log; then
		echo "xrecover: $1: A gave A -> B up unanswered, B made its end once running again," \
			"A told it again, B counted it given up; $((SECONDS - t0 + 1)) s in all"
	else
		fail "$1: B did not count A -> B given up (no_answer): $(grep -h 'not brought back' b.log)"
	fi
}
# check_mute NAME: the summaries of the MUTE round: A -> B given up (no_answer)
# at both ends, none recovered by A; B -> A every message done; none lost
check_mute() {
	/usr/bin/python3 - a.json b.json $n "$1" <<'PY'
import json, sys
n, name = int(sys.argv[3]), sys.argv[4]
msg = 64 * 1024
bad = []
s = {}
for f in sys.argv[1:3]:
    try:
        s[f] = json.load(open(f))
    except (OSError, ValueError) as e:
        bad.append(f"{f}: {e}")
        continue
    m, rec, why = s[f]["messages"], s[f]["flows_recovered"], s[f]["recover_failed"]
    if why.get("no_answer") != 1 or sum(why.values()) != 1:
        bad.append(f"{f}: recover_failed {why}: want no_answer 1, no other")
    # B may make its end of the pair A's queued MAKE named before the GIVE_UP
    # comes (counted recovered at its end); A never resumes on it.
    if rec > (0 if f == sys.argv[1] else 1):
        bad.append(f"{f}: flows_recovered {rec}")
    if m["lost"] != 0 or m["completed"] + m["failed"] != m["posted"]:
        bad.append(f"{f}: messages {m}: want each posted completed or failed, none lost")
    if f == sys.argv[2] and m["posted"] != n:
        bad.append(f"{f}: B -> A posted {m['posted']} messages, want {n}")
    if m["failed"] > 4:
        bad.append(f"{f}: {m['failed']} messages failed: want at most 4")
    if s[f]["verify_errors"] != 0:
        bad.append(f"{f}: {s[f]['verify_errors']} verify errors")
    print(f"xrecover: {name}: {f}: recover_failed {why}, {m['completed']} messages "
          f"completed, {m['failed']} failed, {m['lost']} lost, "
          f"{s[f]['bytes_verified']} bytes verified")
if len(s) == 2:
    sa, sb = s[sys.argv[1]], s[sys.argv[2]]
    for snd, rcv, way in ((sa, sb, "A -> B"), (sb, sa, "B -> A")):
        c, fl = snd["messages"]["completed"], snd["messages"]["failed"]
        if not c * msg <= rcv["bytes_verified"] <= (c + fl) * msg:
            bad.append(f"{way}: {rcv['bytes_verified']} bytes verified, not those of the "
                       f"{c} messages completed (+ up to {fl} failed)")
for b in bad:
    print(f"xrecover: FAIL: {name}:", b)
sys.exit(1 if bad else 0)
PY
}
# drill DESC SOCK QPN WANT: fail QPN of host 0 of the mrcd on SOCK (B); each
# process then counts WANT flows recovered
drill() {
	local out
	if out=$(mrc_drill "$mrcctl" "$2" "$3" "$4" a.log b.log); then
		echo "xrecover: $1: recovered at both ends within $out s"
	else
		fail "$1: $out"
	fi
}
# give_up NAME SOCK: once every message is done, fail B's sending end of
# B -> A again, each time the QP it last recovered to, until B gives the flow
# up (more than 3 failures within 10 s: too_often). A, whose end of it still
# runs, must hear it from B (GIVE_UP) and count the flow given up for the
# same reason; without GIVE_UP it counts nothing.
give_up() {
	local k=0 qpn n0 end
	while [ $k -lt 6 ]; do
		grep -q 'is not brought back' b.log && break
		k=$((k + 1))
		qpn=$(sed -n 's/.* recovered on QPs \(0x[0-9a-f]*\) -> .*(its sending end.*/\1/p' b.log | tail -1)
		n0=$(recovered b.log)
		timeout 10 "$mrcctl" -s "$2" fail host=0 qpn="$qpn" > /dev/null 2>&1 || true
		end=$((SECONDS + 3))
		while [ $SECONDS -lt $end ]; do
			grep -q 'is not brought back' b.log && break
			[ "$(recovered b.log)" -gt "$n0" ] && [ "$(recovered a.log)" -ge "$(recovered b.log)" ] && break
			sleep 0.1
		done
	done
	end=$((SECONDS + 3))
	until grep -q 'is not brought back' a.log || [ $SECONDS -ge $end ]; do sleep 0.1; done
	if ! grep -q 'is not brought back: it failed more than' b.log; then
		fail "$1: B did not give B -> A up after $k more failures"
	elif ! grep -q "process gave it up" a.log ||
		! grep -q 'is not brought back: it failed more than' a.log; then
		fail "$1: A did not count B -> A given up (too_often): $(grep -h 'not brought back' a.log)"
	else
		echo "xrecover: $1: B gave B -> A up after $k more failures; A counted it"
	fi
}
# check NAME GAVE_UP: the summaries of a round; GAVE_UP 1: B -> A was given up
# (too_often) at both after recovering more times
check() {
	/usr/bin/python3 - a.json b.json $n "$1" "$2" <<'PY'
import json, sys
n, name, gave_up = int(sys.argv[3]), sys.argv[4], sys.argv[5] == "1"
msg = 64 * 1024
bad = []
for f in sys.argv[1:3]:
    try:
        s = json.load(open(f))
    except (OSError, ValueError) as e:
        bad.append(f"{f}: {e}")
        continue
    m, rec, why = s["messages"], s["flows_recovered"], s["recover_failed"]
    if gave_up:
        if rec < 2 or why.get("too_often") != 1 or sum(why.values()) != 1:
            bad.append(f"{f}: flows_recovered {rec}, recover_failed {why}: want 2 or more, "
                       "too_often 1")
    elif rec != 2 or sum(why.values()) != 0:
        bad.append(f"{f}: flows_recovered {rec}, recover_failed {why}: want 2, none")
    if m["lost"] != 0 or m["posted"] != n or m["completed"] + m["failed"] != n:
        bad.append(f"{f}: messages {m}: want {n} posted, each completed or failed, none lost")
    # at most the 4 in flight at the drill of this process's flow
    if m["failed"] > 4:
        bad.append(f"{f}: {m['failed']} messages failed: want at most 4")
    if s["verify_errors"] != 0:
        bad.append(f"{f}: {s['verify_errors']} verify errors")
    print(f"xrecover: {name}: {f}: {rec} flows recovered, {m['completed']} messages completed, "
          f"{m['failed']} failed, {m['lost']} lost, {s['bytes_verified']} bytes verified")
# What one process completed, the other verified: every byte of it (a failed
# message may have arrived whole, too).
try:
    sa, sb = (json.load(open(f)) for f in sys.argv[1:3])
    for snd, rcv, way in ((sa, sb, "A -> B"), (sb, sa, "B -> A")):
        c, fl = snd["messages"]["completed"], snd["messages"]["failed"]
        if not c * msg <= rcv["bytes_verified"] <= (c + fl) * msg:
            bad.append(f"{way}: {rcv['bytes_verified']} bytes verified, not those of the "
                       f"{c} messages completed (+ up to {fl} failed)")
except (OSError, ValueError, KeyError) as e:
    bad.append(str(e))
for b in bad:
    print(f"xrecover: FAIL: {name}:", b)
sys.exit(1 if bad else 0)
PY
}
round one 1
# two workers per host, each flow's receiving end on the other shard index:
# the spare pair both processes agree on is placed as the flow is
round split 2 "$(printf '\n[lcores]\nworkers = 2\nworkers_per_host = 2\npeer_shard = other\n\n[ports]\nsteering = software')"
round mute 1 "" mute
echo "xrecover: $((fails == 0 ? 1 : 0)) passed, $fails failed"
[ "$fails" = 0 ]
