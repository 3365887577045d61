#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# A reload of the message sizes across processes (doc/service.md, "Reload"):
# host 0 and host 1 each in their own mrcd --service, joined by four
# net_memif links, pairs with 2 QPs each way, 64 KiB messages, every byte
# verified. Each process gets its SIGHUP at its own moment, 0.3 s apart, so
# for that while one sends messages of the new sizes to a receiver that
# still has the old ones:
#   msg_kb 64 -> 16        (host 0 first) every message each host sent and
#                          each host verified afterwards is 16 KiB (bytes
#                          over messages between two telemetry snapshots);
#   size_mix 8:1, 32:1     (host 1 first) every one 8 or 32 KiB, some of
#                          each, at both ends of both flows;
#   verify false           refused by both, naming the flow to the other
#                          process (a receiver would check what its sender
#                          no longer fills);
#   qps_per_peer 2 -> 1    (host 0 first) a flow each way goes: each
#                          process drains the sending ends it has and keeps
#                          the receiving ends until the other's sender has
#                          drained; then each lists only the QPs of the
#                          flows kept, which still carry messages;
#   qps_per_peer 1 -> 2    (host 1 first) a flow each way comes back, on
#                          new QPNs both processes compute alike (the first
#                          two pairs after the applications' QPNs): each
#                          makes its ends; a sender whose receiver is not
#                          made yet is resent to (its packets counted
#                          rx_pending_qpn there); then both new flows
#                          carry messages;
#   QPs to ERROR           (mrcctl fail at host 0) the sending end of the
#                          added 0 -> 1, then the receiving end of the added
#                          1 -> 0: each flow comes back on a spare pair the
#                          two processes agree on by flow-recovery requests,
#                          which name it by the number the reload gave it
#                          alike at both, and its new QPs carry messages;
#   qps_per_peer 2 -> 1    (host 0 first) the added flows go again, on the
#                          QPs they recovered to, as the start's did; the
#                          start's q 0 flows still carry;
#   messages = 1           every flow stops; then each host has verified
#                          exactly the bytes and messages the other sent.
# Then both stop (SIGTERM), each gone within 30 s: every message posted
# completed or failed (those in flight at a drill, at most 2 per process),
# none lost, each exits 0 or, with some failed, 1; each receiver verified
# what its sender completed (and up to the failed ones more), no verify
# error; each process counts both flows recovered and none left failed; 6
# reloads taken and 1 refused each. Without recovery of the flows a reload
# added, both stay failed (other_process).
# Usage: reload_process.sh MRCD_BINARY WORKDIR MRCCTL
set -euo pipefail
mrcd=$(realpath "$1")
work=$2
mrcctl=$(realpath "$3")
. "$(dirname "$0")/lib.sh"
if [ "$(nproc)" -lt 2 ]; then
	echo "reload_process: needs 2 CPUs; skipping"
	exit 77
fi
rm -rf "$work"
mkdir -p "$work"
work=$(realpath "$work")
t=$work/t
mkdir -p "$t"
# A short path: a memif socket's name must fit sockaddr_un.
msock=/tmp/mrcd-test-rp-$$.sock
fails=0
fail() {
	echo "reload_process: FAIL: $*"
	fails=$((fails + 1))
}
pid=(0 0)
cleanup() {
	for p in "${pid[@]}"; do
		[ "$p" != 0 ] && kill -KILL "$p" 2> /dev/null || true
	done
	rm -f "$msock"
}
trap cleanup EXIT

sock() { echo "$t/run$1/dpdk/mrcd_${pid[$1]}/dpdk_telemetry.v2"; }
# host P: process P's host, "snapshot_ms completed bytes_sent msgs_verified bytes_verified verify_errors posted failed"
host() {
	timeout 10 /usr/bin/python3 "$mrc_telemetry" -s "$(sock "$1")" /mrc/host,0 2> /dev/null |
		/usr/bin/python3 -c "import json,sys; h=list(json.load(sys.stdin).values())[0]; print(*(h[k] for k in ('snapshot_ms','msgs_completed','bytes_sent','msgs_verified','bytes_verified','verify_errors','msgs_posted','msgs_failed')))" 2> /dev/null ||
		echo none
}
# hup P N PATTERN: SIGHUP process P, then wait for its Nth reload line, which must match PATTERN (ERE).
hup() {
	local log=$t/h$1.err
	kill -HUP "${pid[$1]}"
	for _ in $(seq 50); do
		[ "$(grep -c 'SIGHUP: ' "$log")" -ge "$2" ] && break
		sleep 0.1
	done
	grep 'SIGHUP: ' "$log" | tail -1 | grep -E -q "$3" ||
		fail "host $1, reload $2: wanted /$3/, got: $(grep 'SIGHUP: ' "$log" | tail -1)"
}
# took P N: wait until process P's workers took its Nth reload's parameters.
took() {
	local log=$t/h$1.err
	for _ in $(seq 50); do
		[ "$(grep -c "every worker took the generator's new parameters" "$log")" -ge "$2" ] && return
		sleep 0.1
	done
	fail "host $1: the workers never took the parameters of reload $2"
}
# window NAME: both processes over about a second, from 0.3 s after now; sets
# sm[P] sb[P] (messages completed and their bytes, sent by P's host) and
# vm[P] vb[P] (messages verified at P's host and their bytes).
window() {
	local a0 a1 b0 b1
	sleep 0.3
	a0=($(host 0))
	a1=($(host 1))
	sleep 1
	b0=($(host 0))
	b1=($(host 1))
	if [ "${a0[0]}" = none ] || [ "${a1[0]}" = none ] || [ "${b0[0]}" = none ] || [ "${b1[0]}" = none ]; then
		fail "$1: no telemetry"
		sm=(0 0) sb=(0 0) vm=(0 0) vb=(0 0)
		return
	fi
	sm=($((b0[1] - a0[1])) $((b1[1] - a1[1])))
	sb=($((b0[2] - a0[2])) $((b1[2] - a1[2])))
	vm=($((b0[3] - a0[3])) $((b1[3] - a1[3])))
	vb=($((b0[4] - a0[4])) $((b1[4] - a1[4])))
	echo "reload_process: $1: host 0 sent ${sm[0]} (${sb[0]} B), verified ${vm[0]} (${vb[0]} B);" \
		"host 1 sent ${sm[1]} (${sb[1]} B), verified ${vm[1]} (${vb[1]} B)"
}
# each KIB NAME: every message in the window, sent or verified at either host, is KIB KiB.
each() {
	for p in 0 1; do
		[ "${sm[$p]}" -gt 0 ] && [ "${sb[$p]}" = $((sm[p] * $1 * 1024)) ] ||
			fail "$2: host $p sent ${sb[$p]} bytes in ${sm[$p]} messages, not $1 KiB each"
		[ "${vm[$p]}" -gt 0 ] && [ "${vb[$p]}" = $((vm[p] * $1 * 1024)) ] ||
			fail "$2: host $p verified ${vb[$p]} bytes in ${vm[$p]} messages, not $1 KiB each"
	done
}
# mix NAME: every message 8 or 32 KiB, some of each (bytes BYTES in MSGS messages).
mix() {
	local r=$(($2 - $3 * 8192))
	[ "$3" -gt 0 ] && [ "$r" -gt 0 ] && [ "$2" -lt $(($3 * 32768)) ] && [ $((r % 24576)) = 0 ] ||
		fail "size_mix 8:1, 32:1: $1: $2 bytes in $3 messages, not 8 or 32 KiB each, some of both"
}

cat > "$t/traffic.ini" << 'P'
[profile]
pattern = pairs
qps_per_peer = 2
msg_kb = 64
outstanding = 2
verify = true
P
for h in 0 1; do
	role=$([ $h = 0 ] && echo server || echo client)
	{
		printf '[daemon]\nhosts = 1\nplanes = 4\nfirst_host = %s\ncluster_hosts = 2\n' $h
		printf 'profile = %s/traffic.ini\nscenario = none\n\n' "$t"
		printf '[ports]\nmode = ethdev\nrx_mbuf_data_room = 4736\nclose_delay_ms = 1500\n'
		for p in 0 1 2 3; do
			echo "vdev.$p = net_memif$p,role=$role,id=$p,socket=$msock,bsize=8192"
			echo "h$h.p$p = net_memif$p"
		done
		printf '\n[transport]\nencap = plain\n\n'
		printf '[telemetry]\ntimeseries = none\nprometheus = none\nconsole = false\n'
	} > "$t/h$h.ini"
done
# Each process polls on a CPU of its own; the main lcore shares it and sleeps.
for h in 0 1; do
	(exec env STATE_DIRECTORY="$t/state$h" RUNTIME_DIRECTORY="$t/run$h" \
		"$mrcd" --lcores=0@$h,1@$h --log-level=mrcd.ctrl:info -- --service -f "$t/h$h.ini" \
		--set control.socket="$t/h$h.ctl" --json "$t/summary$h.json" > "$t/h$h.out" 2> "$t/h$h.err") &
	pid[$h]=$!
	[ $h = 0 ] && sleep 0.3
done
for h in 0 1; do
	for _ in $(seq 100); do
		grep -q 'running until stopped' "$t/h$h.out" 2> /dev/null && break
		kill -0 "${pid[$h]}" 2> /dev/null || break
		sleep 0.1
	done
done
# Until both links carry messages both ways.
for _ in $(seq 100); do
	a0=($(host 0))
	a1=($(host 1))
	[ "${a0[0]}" != none ] && [ "${a1[0]}" != none ] && [ "${a0[3]}" -gt 0 ] && [ "${a1[3]}" -gt 0 ] && break
	sleep 0.1
done
# Flow g (0 -> 1 q 0, 0 -> 1 q 1, 1 -> 0 q 0, 1 -> 0 q 1) has QPs 0x100 + 2g -> + 1.
[ "$(mrc_qpns "$(sock 0)")" = "0x100 0x102 0x105 0x107" ] || fail "host 0's QPs at start: $(mrc_qpns "$(sock 0)")"
[ "$(mrc_qpns "$(sock 1)")" = "0x101 0x103 0x104 0x106" ] || fail "host 1's QPs at start: $(mrc_qpns "$(sock 1)")"
window "64 KiB"
each 64 "at start"

sed -i 's/^msg_kb = 64/msg_kb = 16/' "$t/traffic.ini"
hup 0 1 "SIGHUP: reloaded the profile .*traffic.ini: msg_kb 64 -> 16; the flows kept keep their QPs"
sleep 0.3
hup 1 1 "SIGHUP: reloaded the profile .*traffic.ini: msg_kb 64 -> 16; the flows kept keep their QPs"
took 0 1
took 1 1
window "16 KiB"
each 16 "msg_kb 16"

printf 'size_mix = 8:1, 32:1\n' >> "$t/traffic.ini"
hup 1 2 "SIGHUP: reloaded the profile .*traffic.ini: size_mix '' -> '8:1, 32:1'; the flows kept keep their QPs"
sleep 0.3
hup 0 2 "SIGHUP: reloaded the profile .*traffic.ini: size_mix '' -> '8:1, 32:1'; the flows kept keep their QPs"
took 0 2
took 1 2
window "8 and 32 KiB"
for p in 0 1; do
	mix "host $p sent" "${sb[$p]}" "${sm[$p]}"
	mix "host $p verified" "${vb[$p]}" "${vm[$p]}"
done

sed -i 's/^verify = true/verify = false/' "$t/traffic.ini"
# (each process's first flow to or from the other: 0 -> 1)
for h in 0 1; do
	hup $h 3 "SIGHUP: refused a change \(profile .*traffic.ini: verify true -> false: flow host 0 -> 1 \(q 0\) has its other end in another process, whose receivers check by the verify in force there"
done
sed -i 's/^verify = false/verify = true/' "$t/traffic.ini"

sed -i 's/^qps_per_peer = 2/qps_per_peer = 1/' "$t/traffic.ini"
hup 0 4 "SIGHUP: reloaded the profile .*traffic.ini: 2 flows kept, 2 removed, 0 added; the flows kept keep their QPs"
sleep 0.3
hup 1 4 "SIGHUP: reloaded the profile .*traffic.ini: 2 flows kept, 2 removed, 0 added; the flows kept keep their QPs"
for h in 0 1; do
	for _ in $(seq 50); do grep -q "reload: the flows' changes are done" "$t/h$h.err" && break; sleep 0.1; done
	grep -q "reload: the flows' changes are done" "$t/h$h.err" || fail "host $h: the flows' changes never finished"
done
[ "$(mrc_qpns "$(sock 0)")" = "0x100 0x105" ] || fail "host 0's QPs after the flows q 1 went: $(mrc_qpns "$(sock 0)")"
[ "$(mrc_qpns "$(sock 1)")" = "0x101 0x104" ] || fail "host 1's QPs after the flows q 1 went: $(mrc_qpns "$(sock 1)")"
window "one flow each way"
for p in 0 1; do
	mix "host $p sent, one flow each way" "${sb[$p]}" "${sm[$p]}"
	mix "host $p verified, one flow each way" "${vb[$p]}" "${vm[$p]}"
done
sed -i 's/^qps_per_peer = 1/qps_per_peer = 2/' "$t/traffic.ini"
# Host 1 first: its sender 1 -> 0 (q 1) posts before host 0 has the receiver.
hup 1 5 "SIGHUP: reloaded the profile .*traffic.ini: 2 flows kept, 0 removed, 2 added; the flows kept keep their QPs"
sleep 0.3
hup 0 5 "SIGHUP: reloaded the profile .*traffic.ini: 2 flows kept, 0 removed, 2 added; the flows kept keep their QPs"
for h in 0 1; do
	for _ in $(seq 50); do [ "$(grep -c "reload: the flows' changes are done" "$t/h$h.err")" -ge 2 ] && break; sleep 0.1; done
	[ "$(grep -c "reload: the flows' changes are done" "$t/h$h.err")" -ge 2 ] || fail "host $h: the flows added never finished"
done
# 4 flows, 64 spare pairs, 256 applications' QPNs: the added pairs from 0x100 + 2 x (4 + 64) + 256.
[ "$(mrc_qpns "$(sock 0)")" = "0x100 0x105 0x288 0x28b" ] || fail "host 0's QPs after the flows q 1 came back: $(mrc_qpns "$(sock 0)")"
[ "$(mrc_qpns "$(sock 1)")" = "0x101 0x104 0x289 0x28a" ] || fail "host 1's QPs after the flows q 1 came back: $(mrc_qpns "$(sock 1)")"
window "two flows each way again"
for p in 0 1; do
	mix "host $p sent, two flows each way again" "${sb[$p]}" "${sm[$p]}"
	mix "host $p verified, two flows each way again" "${vb[$p]}" "${vm[$p]}"
done
# qp P QPN KEY: KEY of QP QPN at process P.
qp() {
	timeout 10 /usr/bin/python3 "$mrc_telemetry" -s "$(sock "$1")" "/mrc/qp,$2" 2> /dev/null |
		/usr/bin/python3 -c "import json,sys; print(list(json.load(sys.stdin).values())[0]['$3'])" 2> /dev/null || echo none
}
# Each new flow's sender had its packets acknowledged, each receiver took them.
for f in "0 0x288 1 0x289" "1 0x28a 0 0x28b"; do
	set -- $f
	una=$(qp "$1" "$2" snd_una)
	epsn=$(qp "$3" "$4" rx_epsn)
	echo "reload_process: added flow $2 -> $4: sender's snd_una $una, receiver's rx_epsn $epsn"
	[ "$una" != none ] && [ "$una" -gt 0 ] && [ "$epsn" != none ] && [ "$epsn" -gt 0 ] ||
		fail "added flow $2 -> $4 carried nothing: snd_una $una, rx_epsn $epsn"
done
for p in 0 1; do
	pend=$(timeout 10 /usr/bin/python3 "$mrc_telemetry" -s "$(sock $p)" /mrc/drops,0 2> /dev/null |
		/usr/bin/python3 -c "import json,sys; print(list(json.load(sys.stdin).values())[0]['rx_pending_qpn'])" 2> /dev/null || echo none)
	echo "reload_process: host $p: rx_pending_qpn $pend"
	[ "$pend" != none ] || fail "host $p: no rx_pending_qpn in /mrc/drops"
done
# drill DESC QPN WANT: fail QPN of host 0 (process 0); each process then has WANT flows recovered.
drill() {
	local out
	if out=$(mrc_drill "$mrcctl" "$t/h0.ctl" "$2" "$3" "$t/h0.err" "$t/h1.err"); then
		echo "reload_process: $1: recovered at both ends within $out s"
	else
		fail "$1: $out"
	fi
}
drill "the added 0 -> 1's sending end" 0x288 1
drill "the added 1 -> 0's receiving end" 0x28b 2
# The QPs each flow recovered to (host 0's ends), from host 0's log.
new_send=$(sed -n 's/.*(host 0 -> 1) recovered on QPs \(0x[0-9a-f]*\) -> .*/\1/p' "$t/h0.err" | tail -1)
new_recv=$(sed -n 's/.*(host 1 -> 0) recovered on QPs 0x[0-9a-f]* -> \(0x[0-9a-f]*\).*/\1/p' "$t/h0.err" | tail -1)
sleep 0.5
for f in "$new_send snd_una" "$new_recv rx_epsn"; do
	set -- $f
	v1=$(qp 0 "$1" "$2")
	sleep 0.3
	v2=$(qp 0 "$1" "$2")
	echo "reload_process: recovered QP $1 at host 0: $2 $v1, then $v2"
	[ -n "$1" ] && [ "$v1" != none ] && [ "$v2" != none ] && [ "$v2" -gt "$v1" ] ||
		fail "recovered QP '$1' at host 0 carries nothing: $2 $v1, then $v2"
done
sed -i 's/^qps_per_peer = 2/qps_per_peer = 1/' "$t/traffic.ini"
hup 0 6 "SIGHUP: reloaded the profile .*traffic.ini: 2 flows kept, 2 removed, 0 added; the flows kept keep their QPs"
sleep 0.3
hup 1 6 "SIGHUP: reloaded the profile .*traffic.ini: 2 flows kept, 2 removed, 0 added; the flows kept keep their QPs"
for h in 0 1; do
	for _ in $(seq 50); do [ "$(grep -c "reload: the flows' changes are done" "$t/h$h.err")" -ge 3 ] && break; sleep 0.1; done
	[ "$(grep -c "reload: the flows' changes are done" "$t/h$h.err")" -ge 3 ] || fail "host $h: the added flows never went"
done
[ "$(mrc_qpns "$(sock 0)")" = "0x100 0x105" ] || fail "host 0's QPs after the added flows went: $(mrc_qpns "$(sock 0)")"
[ "$(mrc_qpns "$(sock 1)")" = "0x101 0x104" ] || fail "host 1's QPs after the added flows went: $(mrc_qpns "$(sock 1)")"
window "one flow each way again"
for p in 0 1; do
	mix "host $p sent, one flow each way again" "${sb[$p]}" "${sm[$p]}"
	mix "host $p verified, one flow each way again" "${vb[$p]}" "${vm[$p]}"
done

# Each flow has sent more than one message: messages = 1 stops them both.
printf 'messages = 1\n' >> "$t/traffic.ini"
hup 0 7 "SIGHUP: reloaded the profile .*traffic.ini: messages 0 -> 1;"
hup 1 7 "SIGHUP: reloaded the profile .*traffic.ini: messages 0 -> 1;"
took 0 3
took 1 3
sleep 0.5
h0=($(host 0))
h1=($(host 1))
echo "reload_process: stopped: host 0 ${h0[*]}, host 1 ${h1[*]}"
if [ "${h0[0]}" = none ] || [ "${h1[0]}" = none ]; then
	fail "no telemetry once stopped"
else
	[ $((h0[1] + h0[7])) = "${h0[6]}" ] && [ $((h1[1] + h1[7])) = "${h1[6]}" ] ||
		fail "messages = 1: messages still in flight: host 0 ${h0[*]}, host 1 ${h1[*]}"
	# A message failed at its sender (in flight at a drill) may have been verified.
	[ "${h0[1]}" -le "${h1[3]}" ] && [ "${h1[3]}" -le $((h0[1] + h0[7])) ] && [ "${h0[2]}" -gt 0 ] &&
		[ "${h0[2]}" -le "${h1[4]}" ] && [ "${h1[4]}" -le $((h0[2] + h0[7] * 32768)) ] ||
		fail "host 0 sent ${h0[1]} messages (${h0[2]} B, ${h0[7]} failed), host 1 verified ${h1[3]} (${h1[4]} B)"
	[ "${h1[1]}" -le "${h0[3]}" ] && [ "${h0[3]}" -le $((h1[1] + h1[7])) ] && [ "${h1[2]}" -gt 0 ] &&
		[ "${h1[2]}" -le "${h0[4]}" ] && [ "${h0[4]}" -le $((h1[2] + h1[7] * 32768)) ] ||
		fail "host 1 sent ${h1[1]} messages (${h1[2]} B, ${h1[7]} failed), host 0 verified ${h0[3]} (${h0[4]} B)"
	[ "${h0[5]}" = 0 ] && [ "${h1[5]}" = 0 ] || fail "verify errors: host 0 ${h0[5]}, host 1 ${h1[5]}"
fi

# Both at once: each closes its memif ports while the other's disconnect arrives (two_process.sh).
kill -TERM "${pid[0]}" "${pid[1]}"
# Each exit is bounded (drain, the memif ports' close delay, teardown: a few
# seconds), judged by the process rather than the shell's wait (lib.sh,
# mrc_wait_dead); one still running is shown thread by thread, then killed.
for h in 0 1; do
	if ! mrc_wait_dead "${pid[$h]}" 30; then
		fail "host $h's mrcd still runs 30 s after SIGTERM; its threads:"
		mrc_dump_threads "${pid[$h]}"
		tail -5 "$t/h$h.err" "$t/h$h.out"
		kill -KILL "${pid[$h]}" 2> /dev/null || true
	fi
done
set +e
for h in 0 1; do
	wait "${pid[$h]}"
	rc=$?
	pid[$h]=0
	# 1: some messages failed (those in flight at a drill), which the summary checks
	case $rc in 0 | 1) ;; *)
		fail "host $h's mrcd exited $rc"
		tail -5 "$t/h$h.err" "$t/h$h.out"
		;;
	esac
done
set -e
/usr/bin/python3 - "$t/summary0.json" "$t/summary1.json" << 'PY' || fail "the summaries"
import json, sys
bad = []
for f in sys.argv[1:]:
    s = json.load(open(f))
    m = s["messages"]
    if m["completed"] == 0 or m["lost"] or m["failed"] > 2 or m["posted"] != m["completed"] + m["failed"]:
        bad.append(f"{f}: messages {m}: want each posted completed or failed (at most 2), none lost")
    if s["flows_recovered"] != 2 or sum(s["recover_failed"].values()) != 0:
        bad.append(f"{f}: flows recovered {s['flows_recovered']}, left failed {s['recover_failed']}")
    if s["bytes_verified"] == 0 or s["verify_errors"]:
        bad.append(f"{f}: {s['bytes_verified']} bytes verified, {s['verify_errors']} errors")
    if s.get("reloads") != {"ok": 6, "refused": 1}:
        bad.append(f"{f}: reloads {s.get('reloads')}")
    print(f"reload_process: {f}: {m['completed']} messages, {m['failed']} failed, "
          f"{s['bytes_verified']} bytes verified, {s['flows_recovered']} flows recovered")
for b in bad:
    print(f"reload_process: FAIL: {b}")
sys.exit(1 if bad else 0)
PY
echo "reload_process: $((fails == 0 ? 1 : 0)) passed, $fails failed"
[ "$fails" = 0 ]
