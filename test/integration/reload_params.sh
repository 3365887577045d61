#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# A reload of the profile keys that apply live (doc/service.md, "Reload"):
# mrcd --service, two hosts back to back ([ports] mode = loop), pairs with
# 2 QPs each way, 64 KiB messages, every byte verified. SIGHUPs in turn:
#   msg_kb 64 -> 16        every message completed after it is 16 KiB
#                          (bytes over messages, between two telemetry
#                          snapshots), and /mrc/info says msg_kb 16;
#   rate_gbps 0 -> 0.2     host 0's message rate falls to its two QPs' pace
#                          (checked when the closed loop ran at more than
#                          twice that before);
#   size_mix 8:1, 32:1     every message after it is 8 or 32 KiB, some of
#                          each; the rate back to a closed loop;
#   msg_kb 128, no mix     refused: it would not fit the 64 KiB slots;
#   a scenario             refused: no emulated fabric in loop mode;
#   messages = 1           every flow stops (more than one already sent),
#                          and then each host has verified exactly the
#                          bytes the other sent, with no error;
#   messages = 0           the stopped flows post again;
#   qps_per_peer 2 -> 3    a flow added each way, its messages of the
#                          mix's sizes and checked with them.
# The QPs are the same until then; at SIGTERM it exits 0, every message
# posted completed, none failed or lost, no verify error.
# Usage: reload_params.sh MRCD_BINARY WORKDIR
set -euo pipefail
mrcd=$(realpath "$1")
work=$2
. "$(dirname "$0")/lib.sh"
rm -rf "$work"
mkdir -p "$work"
work=$(realpath "$work")
t=$work/t
mkdir -p "$t"
fails=0
fail() {
	echo "reload_params: FAIL: $*"
	fails=$((fails + 1))
}
pid=
trap '[ -n "$pid" ] && kill -KILL "$pid" 2> /dev/null || true' EXIT

host() { # HOST: "snapshot_ms posted completed bytes_sent bytes_verified verify_errors"
	timeout 10 /usr/bin/python3 "$mrc_telemetry" -s "$sock" "/mrc/host,$1" 2> /dev/null |
		/usr/bin/python3 -c "import json,sys; h=list(json.load(sys.stdin).values())[0]; print(*(h[k] for k in ('snapshot_ms','msgs_posted','msgs_completed','bytes_sent','bytes_verified','verify_errors')))" 2> /dev/null ||
		echo none
}
info() { mrc_tel "$sock" /mrc/info "$1"; } # KEY: its value in /mrc/info
qps() { mrc_qpns "$sock"; }
# HUP PATTERN: SIGHUP, then wait for the reload's log line (ERE), which must come.
n_hup=0
hup() {
	n_hup=$((n_hup + 1))
	kill -HUP "$pid"
	for _ in $(seq 50); do
		[ "$(grep -c 'SIGHUP: ' "$t.err")" -ge "$n_hup" ] && break
		sleep 0.1
	done
	grep 'SIGHUP: ' "$t.err" | tail -1 | grep -E -q "$1" ||
		{ fail "reload $n_hup: wanted /$1/, got: $(grep 'SIGHUP: ' "$t.err" | tail -1)"; }
}
# Wait until the workers took the last reload's parameters (n lines so far).
n_took=0
took() {
	n_took=$((n_took + 1))
	for _ in $(seq 50); do
		[ "$(grep -c "every worker took the generator's new parameters" "$t.err")" -ge "$n_took" ] && break
		sleep 0.1
	done
	[ "$(grep -c "every worker took the generator's new parameters" "$t.err")" -ge "$n_took" ] ||
		fail "the workers never took the parameters of reload $n_hup"
}
# WINDOW NAME: host 0 over about a second, from 0.3 s after now; sets dm (messages
# completed), db (bytes of those), dt (ms between the snapshots).
window() {
	local a b
	sleep 0.3
	a=($(host 0))
	sleep 1
	b=($(host 0))
	if [ "${a[0]}" = none ] || [ "${b[0]}" = none ]; then
		fail "$1: no telemetry"
		dm=0 db=0 dt=1
		return
	fi
	dt=$((b[0] - a[0])) dm=$((b[2] - a[2])) db=$((b[3] - a[3]))
	[ "$dt" -gt 0 ] || dt=1
	echo "reload_params: $1: $dm messages, $db bytes in $dt ms"
}

cat > "$t/traffic.ini" << 'P'
[profile]
pattern = pairs
qps_per_peer = 2
msg_kb = 64
outstanding = 2
verify = true
P
cp "$(dirname "$0")/../../config/scenarios/link-flap.ini" "$t/drill.ini"
cat > "$t/mrcd.ini" << C
[daemon]
hosts = 2
planes = 4
profile = $t/traffic.ini
scenario = none
[ports]
mode = loop
[lcores]
workers = 1
[transport]
encap = plain
[telemetry]
timeseries = none
prometheus = none
console = false
C
(exec env STATE_DIRECTORY="$t/state" RUNTIME_DIRECTORY="$t/run" \
	"$mrcd" --log-level=mrcd.ctrl:info -- --service -f "$t/mrcd.ini" \
	--json "$t/summary.json" > "$t.out" 2> "$t.err") &
pid=$!
for _ in $(seq 100); do
	grep -q 'running until stopped' "$t.out" 2> /dev/null && break
	kill -0 "$pid" 2> /dev/null || break
	sleep 0.1
done
sock=$t/run/dpdk/mrcd_$pid/dpdk_telemetry.v2
sleep 0.5
q0=$(qps)
[ "$q0" = "0x100 0x101 0x102 0x103 0x104 0x105 0x106 0x107" ] || fail "QPs at start '$q0'"
window "64 KiB"
[ "$dm" -gt 0 ] && [ "$db" = $((dm * 65536)) ] || fail "at start: $db bytes for $dm messages of 64 KiB"

sed -i 's/^msg_kb = 64/msg_kb = 16/' "$t/traffic.ini"
hup "SIGHUP: reloaded the profile .*traffic.ini: msg_kb 64 -> 16; the flows kept keep their QPs"
took
window "16 KiB"
closed=$((dm * 1000 / dt))
[ "$dm" -gt 0 ] && [ "$db" = $((dm * 16384)) ] || fail "msg_kb 16: $db bytes for $dm messages, not 16 KiB each"
[ "$(info msg_kb)" = 16 ] || fail "msg_kb 16: /mrc/info says msg_kb $(info msg_kb)"

# 0.2 Gb/s per QP of 16 KiB messages: 1525.9 a second each, host 0 sends on two.
printf 'rate_gbps = 0.2\n' >> "$t/traffic.ini"
hup "SIGHUP: reloaded the profile .*traffic.ini: rate_gbps 0 -> 0.2;"
took
window "0.2 Gb/s"
paced=$((dm * 1000 / dt))
if [ "$closed" -gt 6104 ]; then
	[ "$paced" -gt 0 ] && [ "$paced" -le 3967 ] ||
		fail "rate_gbps 0.2: host 0 completed $paced messages/s (closed loop $closed), at most 3052 (+30%) wanted"
else
	echo "reload_params: the closed loop ran at $closed messages/s, too slow to tell the pace ($paced)"
fi
[ "$db" = $((dm * 16384)) ] || fail "rate_gbps 0.2: $db bytes for $dm messages"

sed -i -e '/^rate_gbps/d' "$t/traffic.ini"
printf 'size_mix = 8:1, 32:1\n' >> "$t/traffic.ini"
hup "SIGHUP: reloaded the profile .*traffic.ini: size_mix '' -> '8:1, 32:1', rate_gbps 0.2 -> 0;"
took
window "8 and 32 KiB"
r=$((db - dm * 8192))
[ "$dm" -gt 0 ] && [ "$r" -gt 0 ] && [ "$db" -lt $((dm * 32768)) ] && [ $((r % 24576)) = 0 ] ||
	fail "size_mix 8:1, 32:1: $db bytes for $dm messages, not 8 or 32 KiB each, some of both"

# Refused, nothing changed: a message larger than a slot; a scenario with no fabric.
sed -i -e '/^size_mix/d' -e 's/^msg_kb = 16/msg_kb = 128/' "$t/traffic.ini"
hup "SIGHUP: refused a change \(profile .*traffic.ini: msg_kb = 16 -> 128: its largest message \(128 KiB\) would not fit a message slot, 64 KiB, made at start\)"
sed -i -e 's/^msg_kb = 128/msg_kb = 16/' "$t/traffic.ini"
printf 'size_mix = 8:1, 32:1\n' >> "$t/traffic.ini"
sed -i "s|^scenario = none|scenario = $t/drill.ini|" "$t/mrcd.ini"
hup "SIGHUP: refused a change \(scenario none -> .*drill.ini: \[ports\] mode = loop: no emulated fabric in this process"
sed -i "s|^scenario = .*|scenario = none|" "$t/mrcd.ini"
window "after the refusals"
r=$((db - dm * 8192))
[ "$dm" -gt 0 ] && [ "$r" -gt 0 ] && [ $((r % 24576)) = 0 ] ||
	fail "after the refusals: $db bytes for $dm messages, not the mix of 8 and 32 KiB"

# Every flow has sent more than one message: messages = 1 stops them all.
printf 'messages = 1\n' >> "$t/traffic.ini"
hup "SIGHUP: reloaded the profile .*traffic.ini: messages 0 -> 1;"
took
sleep 0.5
h0=($(host 0))
h1=($(host 1))
sleep 0.3
h0b=($(host 0))
echo "reload_params: stopped: host 0 ${h0[*]}, host 1 ${h1[*]}"
[ "${h0[1]}" = "${h0b[1]}" ] && [ "${h0[1]}" = "${h0[2]}" ] ||
	fail "messages = 1: host 0 still posts, or has some in flight: ${h0[*]} then ${h0b[*]}"
[ "${h0[3]}" = "${h1[4]}" ] && [ "${h1[3]}" = "${h0[4]}" ] && [ "${h0[3]}" -gt 0 ] ||
	fail "messages = 1: host 0 sent ${h0[3]} bytes, host 1 verified ${h1[4]}; host 1 sent ${h1[3]}, host 0 verified ${h0[4]}"
[ "${h0[5]}" = 0 ] && [ "${h1[5]}" = 0 ] || fail "verify errors: host 0 ${h0[5]}, host 1 ${h1[5]}"

sed -i 's/^messages = 1/messages = 0/' "$t/traffic.ini"
hup "SIGHUP: reloaded the profile .*traffic.ini: messages 1 -> 0;"
took
sleep 0.5
s=($(host 0))
[ "${s[1]}" -gt "${h0[1]}" ] || fail "messages = 0: host 0 posted ${h0[1]} then ${s[1]}: the stopped flows did not post again"
[ "$(qps)" = "$q0" ] || fail "the QPs changed: '$q0' -> '$(qps)'"

# A flow added after the sizes changed sends and is checked with the new ones.
sed -i 's/^qps_per_peer = 2/qps_per_peer = 3/' "$t/traffic.ini"
hup "SIGHUP: reloaded the profile .*traffic.ini: 4 flows kept, 0 removed, 2 added;"
for _ in $(seq 50); do grep -q "reload: the flows' changes are done" "$t.err" && break; sleep 0.1; done
grep -q "reload: the flows' changes are done" "$t.err" || fail "the flows' changes never finished"
sleep 0.5
q1=$(qps)
[ "$(echo "$q1" | wc -w)" = 12 ] || fail "QPs after adding a flow each way: '$q1'"
for h in 0 1; do
	s=($(host $h))
	[ "${s[5]}" = 0 ] || fail "host $h: ${s[5]} verify errors after flows were added"
done

kill -TERM "$pid"
set +e
wait "$pid"
rc=$?
set -e
pid=
[ "$rc" = 0 ] || { fail "exited $rc"; tail -5 "$t.err" "$t.out"; }
/usr/bin/python3 - "$t/summary.json" << 'PY' || fail "the summary"
import json, sys
s = json.load(open(sys.argv[1]))
m = s["messages"]
bad = []
if m["completed"] == 0 or m["lost"] or m["failed"] or m["posted"] != m["completed"]:
    bad.append(f"messages {m}")
if s["bytes_verified"] == 0 or s["verify_errors"]:
    bad.append(f"{s['bytes_verified']} bytes verified, {s['verify_errors']} errors")
if s.get("reloads") != {"ok": 6, "refused": 2}:
    bad.append(f"reloads {s.get('reloads')}")
for b in bad:
    print(f"reload_params: FAIL: {b}")
print(f"reload_params: {m['completed']} messages, {s['bytes_verified']} bytes verified")
sys.exit(1 if bad else 0)
PY
echo "reload_params: $((fails == 0 ? 1 : 0)) passed, $fails failed"
[ "$fails" = 0 ]
