#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# mrcd as installed and as systemd starts it (doc/service.md):
# 1. `meson install --destdir` puts every file where the manual says, and
#    nothing the manual does not name; the unit is hardened as said (and
#    passes `systemd-analyze verify` where that is installed).
# 2. The unit's ExecStart command line, its paths moved into the destdir,
#    run as systemd would: from /, with STATE_DIRECTORY and
#    RUNTIME_DIRECTORY set to temporary directories and little else. First
#    with the installed configuration (no traffic of its own), then with a
#    profile named in it. Checked: it runs until stopped; its pid file (a
#    second service on the same directories refused, naming the first);
#    telemetry answers from the runtime directory; SIGHUP with nothing
#    changed keeps every QP and the traffic going; a reload that removes a
#    flow and adds one (incast onto host 1 with two QPs), then one back to
#    pairs: the QP that stays keeps its counters (telemetry before and
#    after), the removed flow's QPs go, the new ones carry messages; a
#    changed outstanding and a broken profile are refused by name, the process
#    running on unchanged; `mrcctl reload` of a scenario (none -> plane 1
#    down 100 ms after the reload, up 400 ms after): the fabric's log says
#    both exactly that long after it took the timeline, its counter of
#    applied faults moves, QP 0x100 keeps sending; a broken scenario is
#    refused by SIGHUP and mrcctl (exit 1, its line named), the fabric
#    untouched; an unchanged mrcctl reload says so; the reloads are
#    counted (telemetry, summary);
#    systemd's notify socket (an abstract socket a python3 listener reads)
#    gets READY=1, RELOADING=1 / READY=1 per reload, STOPPING=1, in order;
#    SIGINT (idle) and SIGTERM (traffic) drain and exit 0 with nothing lost;
#    every log line carries the journal's <N> level prefix; the pid file goes at exit; and nothing is
#    written outside the state and runtime directories (/ and the EAL's
#    default runtime directory stay untouched).
# Usage: service.sh BUILD_DIR SOURCE_DIR WORKDIR
set -euo pipefail
build=$(realpath "$1")
src=$(realpath "$2")
work=$3
. "$(dirname "$0")/lib.sh"
if [ "$(nproc)" -lt 2 ]; then
	echo "service: needs 2 CPUs (main + worker lcore); skipping"
	exit 77
fi
rm -rf "$work"
mkdir -p "$work"
work=$(realpath "$work")
dest=$work/dest
fails=0
fail() {
	echo "service: FAIL: $*"
	fails=$((fails + 1))
}

# --- 1. the install ---
meson install -C "$build" --destdir "$dest" --no-rebuild > "$work/install.log" 2>&1 ||
	{ cat "$work/install.log"; fail "meson install"; exit 1; }
opt() { meson introspect "$build" --buildoptions |
	/usr/bin/python3 -c "import json,sys; print([o['value'] for o in json.load(sys.stdin) if o['name']=='$1'][0])"; }
prefix=$(opt prefix)
abs() { case "$1" in /*) echo "$1" ;; *) echo "$prefix/$1" ;; esac; }
bindir=$(abs "$(opt bindir)")
sysconfdir=$(abs "$(opt sysconfdir)")
mandir=$(abs "$(opt mandir)")
datadir=$(abs "$(opt datadir)")
libdir=$(abs "$(opt libdir)")
includedir=$(abs "$(opt includedir)")
unitdir=$prefix/lib/systemd/system
# Every file doc/service.md's "Install" table names (the library's from sdk.md)...
want=("$bindir/mrcd" "$bindir/mrc-fabric" "$bindir/mrc-dump" "$bindir/mrc-report"
	"$bindir/mrcctl" "$bindir/mrc-nic-probe" "$bindir/mrc-encap-check"
	"$bindir/mrc_write_bw" "$bindir/mrc_write_lat" "$bindir/mrc-run"
	"$sysconfdir/mrcd/mrcd.ini" "$unitdir/mrcd.service"
	"$mandir/man8/mrcd.8" "$mandir/man1/mrc-fabric.1" "$mandir/man1/mrc-dump.1"
	"$mandir/man1/mrc-report.1" "$mandir/man1/mrcctl.1" "$datadir/mrcd/demo.ini"
	"$libdir/lib_mrc.so" "$libdir/lib_mrc.so.1" "$libdir/pkgconfig/mrc.pc"
	"$libdir/mrcd/verbs/libibverbs.so.1" "$includedir/mrc.h" "$includedir/mrc_api_ver.h")
for d in profiles scenarios examples; do
	for f in "$src/config/$d"/*; do want+=("$datadir/mrcd/$d/${f##*/}"); done
done
for f in "${want[@]}"; do
	[ -f "$dest$f" ] || fail "install: $f missing"
done
# ... and nothing the table does not name (the library's versioned file and the verbs
# front's link name are sdk.md's): a file installed anew gets its line in the manual.
while IFS= read -r f; do
	f=${f#"$dest"}
	case " ${want[*]} " in *" $f "*) continue ;; esac
	case "$f" in "$libdir"/lib_mrc.so.1.* | "$libdir/mrcd/verbs/libibverbs.so") continue ;; esac
	fail "install: $f is installed but not in doc/service.md's table"
done < <(find "$dest" -type f -o -type l)
for x in mrcd mrc-fabric mrc-dump mrc-report; do
	[ -x "$dest$bindir/$x" ] || fail "install: $bindir/$x not executable"
done
"$dest$bindir/mrc-report" --help > /dev/null || fail "install: mrc-report --help"
unit=$dest$unitdir/mrcd.service
for line in "CapabilityBoundingSet=" "LimitMEMLOCK=infinity" "Restart=on-failure" \
	"StateDirectory=mrcd" "RuntimeDirectory=mrcd" "ExecReload=/bin/kill -HUP \$MAINPID" \
	"ProtectSystem=strict" "NoNewPrivileges=yes" "After=dev-hugepages.mount"; do
	grep -q "^$line" "$unit" || fail "unit: no '$line'"
done
exec_start=$(sed -n 's/^ExecStart=//p' "$unit")
case "$exec_start" in
"$bindir/mrcd "*"--service"*) ;;
*) fail "unit: ExecStart '$exec_start' is not $bindir/mrcd --service" ;;
esac
# The command line with its installed paths moved into the destdir.
cmd=()
for w in $exec_start; do
	if [ "${w#/}" != "$w" ] && [ -e "$dest$w" ]; then cmd+=("$dest$w"); else cmd+=("$w"); fi
done
# systemd's own check of the unit, where systemd-analyze is (not in CI's container):
# with its ExecStart moved into the destdir, any word from it (an unknown key, a bad
# value, a command that is not there) fails the test, not only its exit status.
if command -v systemd-analyze > /dev/null; then
	mkdir -p "$work/unit"
	sed "s#^ExecStart=$bindir/mrcd#ExecStart=$dest$bindir/mrcd#" "$unit" > "$work/unit/mrcd.service"
	set +e
	said=$(cd / && systemd-analyze verify --man=no "$work/unit/mrcd.service" 2>&1)
	rc=$?
	set -e
	[ "$rc" = 0 ] && [ -z "$said" ] || fail "unit: systemd-analyze verify exited $rc: $said"
fi
conf=$dest$sysconfdir/mrcd/mrcd.ini
echo "service: installed ${#want[@]} files; ExecStart: ${cmd[*]}"

# --- 2. the service, started as systemd would ---
state=$work/state
run=$work/run
root_before=$(ls -A /)
# systemd's notify socket: an abstract name, each datagram a line of LOG.notify ('|' for
# newlines); the listener goes at the end of the test
notify_name=mrcd-test-notify-$$
listener=
trap '[ -n "$listener" ] && kill "$listener" 2> /dev/null || true' EXIT
listen() { # LOG
	if [ -n "$listener" ]; then
		kill "$listener" 2> /dev/null || true
		wait "$listener" 2> /dev/null || true
	fi
	: > "$1.notify"
	/usr/bin/python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind("\0" + sys.argv[1])
print("bound", flush=True)
with open(sys.argv[2], "a") as out:
    while True:
        out.write(s.recv(4096).decode().replace("\n", "|") + "\n")
        out.flush()
' "$notify_name" "$1.notify" > "$1.listener" &
	listener=$!
	for _ in $(seq 50); do grep -q bound "$1.listener" 2> /dev/null && break; sleep 0.1; done
}
# the notify messages' first keys, in order: READY=1, RELOADING=1, STOPPING=1
notified() { sed -n 's/^\(READY=1\|RELOADING=1\|STOPPING=1\).*/\1/p' "$1.notify" | tr '\n' ' '; }
# start LOG: the unit's command line from /, systemd's variables, in the background
# (each naming two directories, as systemd does for a unit that asks for two: the
# first is mrcd's, the second must stay untouched)
start() {
	listen "$1"
	(cd / && exec env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
		STATE_DIRECTORY="$state:$work/state-b" RUNTIME_DIRECTORY="$run:$work/run-b" \
		NOTIFY_SOCKET="@$notify_name" \
		${MRC_NO_HUGE:+MRC_NO_HUGE=$MRC_NO_HUGE} INVOCATION_ID=test \
		"${cmd[@]}" > "$1.out" 2> "$1.err") &
	pid=$!
	for _ in $(seq 100); do
		[ -s "$run/mrcd.pid" ] && grep -q 'running until stopped' "$1.out" 2> /dev/null &&
			grep -q '^READY=1' "$1.notify" && break
		kill -0 "$pid" 2> /dev/null || break
		sleep 0.1
	done
	grep -q '^READY=1|STATUS=[0-9]* hosts, [0-9]* flows; messages' "$1.notify" ||
		fail "$1: no READY=1 with a STATUS= summary on the notify socket"
	[ "$(cat "$run/mrcd.pid" 2> /dev/null)" = "$pid" ] || fail "$1: pid file says '$(cat "$run/mrcd.pid" 2> /dev/null)', not $pid"
	[ -d "/var/run/dpdk/mrcd_$pid" ] && fail "$1: DPDK's runtime directory is in /var/run/dpdk, not $run"
	sock=$run/dpdk/mrcd_$pid/dpdk_telemetry.v2
	[ -S "$sock" ] || fail "$1: no telemetry socket at $sock"
}
tele() { mrc_tel "$sock" "$1" "$2"; } # COMMAND KEY: its value
host0() { tele /mrc/host,0 "$1"; } # KEY: /mrc/host,0's value
qps() { mrc_qpns "$sock"; } # our QPNs, sorted, on one line (two flows a page is plenty)
hup() { # LOG PATTERN: SIGHUP, then wait for the (next) log line (-E) it should bring
	local n0
	n0=$(grep -cE "$2" "$1.err" || true)
	kill -HUP "$pid"
	for _ in $(seq 50); do
		[ "$(grep -cE "$2" "$1.err" || true)" -gt "$n0" ] && return 0
		sleep 0.1
	done
	fail "$1: SIGHUP did not bring '$2'"
	grep 'SIGHUP' "$1.err" | tail -2
}
stop() { # LOG [SIGNAL]: SIGTERM (or SIGINT), exit 0, pid file gone
	local sig=${2:-TERM} said=Terminated
	[ "$sig" = INT ] && said=Interrupt
	kill -"$sig" "$pid"
	set +e
	wait "$pid"
	local rc=$?
	set -e
	[ "$rc" = 0 ] || { fail "$1: exited $rc"; tail -5 "$1.err" "$1.out"; }
	[ -e "$run/mrcd.pid" ] && fail "$1: pid file left behind"
	[ -e "$run/dpdk/mrcd_$pid" ] && fail "$1: DPDK's runtime directory left behind"
	grep -q "^<5>mrcd.ctrl: $said: stopping, draining" "$1.err" ||
		fail "$1: no drain notice for SIG$sig with its journal level (<5>)"
	# every log line with its level for the journal, DPDK's too
	local bare
	bare=$(grep -v '^<[0-7]>' "$1.err" || true)
	[ -z "$bare" ] || fail "$1: log lines without a journal level: $(echo "$bare" | head -3)"
}

# a. As installed: hosts and ports, no traffic, until stopped.
start "$work/idle"
# A second service on the same runtime directory: refused by the pid file's lock,
# naming the first, before it touches anything (the first's pid file stays).
set +e
(cd / && exec env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin STATE_DIRECTORY="$state" \
	RUNTIME_DIRECTORY="$run" ${MRC_NO_HUGE:+MRC_NO_HUGE=$MRC_NO_HUGE} timeout 30 "${cmd[@]}" \
	> "$work/second.out" 2> "$work/second.err")
rc=$?
set -e
[ "$rc" = 1 ] && grep -q "^<3>mrcd.ctrl: service: another mrcd runs from $run (pid $pid): stop it first" \
	"$work/second.err" || fail "second service: exit $rc, '$(tail -2 "$work/second.err")'"
[ "$(cat "$run/mrcd.pid" 2> /dev/null)" = "$pid" ] || fail "second service: the pid file now says '$(cat "$run/mrcd.pid")'"
sleep 1
[ "$(host0 msgs_posted)" = 0 ] || fail "idle: posted $(host0 msgs_posted) messages with profile none"
kill -HUP "$pid"
sleep 0.5
grep -q '^<5>mrcd.ctrl: SIGHUP: configuration, profile and scenario unchanged' "$work/idle.err" ||
	fail "idle: SIGHUP not answered as nothing to reload"
kill -0 "$pid" 2> /dev/null || fail "idle: SIGHUP stopped it"
stop "$work/idle" INT
grep -q 'messages: 0 posted' "$work/idle.out" || fail "idle: the summary does not say 0 posted"
[ "$(notified "$work/idle")" = "READY=1 RELOADING=1 READY=1 STOPPING=1 " ] ||
	fail "idle: notify messages '$(notified "$work/idle")', not READY=1 RELOADING=1 READY=1 STOPPING=1"
grep -q '^RELOADING=1|MONOTONIC_USEC=[0-9][0-9]*|' "$work/idle.notify" ||
	fail "idle: RELOADING=1 without MONOTONIC_USEC"

# b. With a profile named in the installed configuration.
cat > "$dest$sysconfdir/mrcd/traffic.ini" << 'P'
[profile]
pattern = pairs
msg_kb = 256
outstanding = 2
verify = true
P
sed -i 's/^profile = none/profile = traffic.ini/' "$conf"
# the control socket (mrcctl) in the runtime directory, as nothing may go elsewhere
printf '\n[control]\nsocket = %s\n' "$run/control.sock" >> "$conf"
prof=$dest$sysconfdir/mrcd/traffic.ini
start "$work/traffic"
t=$work/traffic
sleep 1
qps=$(host0 qps)
done1=$(host0 msgs_completed)
hup "$t" '^<5>mrcd.ctrl: SIGHUP: configuration, profile and scenario unchanged: nothing to reload, every QP kept'
# Pairs over 2 hosts, one QP each: host 0 -> 1 (0x100 -> 0x101), 1 -> 0 (0x102 -> 0x103).
qpns0=$(qps)
[ "$qpns0" = "0x100 0x101 0x102 0x103" ] || fail "traffic: QPs at start '$qpns0'"
sent0=$(tele /mrc/qp,0x100 tx_data_pkts)
# Incast onto host 1 with two QPs: 0 -> 1 stays, 1 -> 0 goes, a second 0 -> 1 comes.
sed -i 's/^pattern = pairs/pattern = incast\nincast_target = 1\nqps_per_peer = 2/' "$prof"
hup "$t" '^<5>mrcd.ctrl: SIGHUP: reloaded the profile .*traffic.ini: 1 flows kept, 1 removed, 1 added'
# the removed flow's QPs rest a second before they go: then the change is done
for _ in $(seq 50); do grep -q "reload: the flows' changes are done" "$t.err" && break; sleep 0.1; done
sleep 0.5
qpns1=$(qps)
sent1=$(tele /mrc/qp,0x100 tx_data_pkts)
new_send=$(echo "$qpns1" | tr ' ' '\n' | grep -v -x -e 0x100 -e 0x101 | head -1)
case "$qpns1" in
"0x100 0x101 0x"*" 0x"*) ;;
*) fail "traffic: QPs after the first reload '$qpns1' (0x100, 0x101 and a new pair wanted)" ;;
esac
echo "$qpns1" | grep -q -w -e 0x102 -e 0x103 && fail "traffic: the removed flow's QPs are still listed: $qpns1"
[ "$sent0" != none ] && [ "$sent1" != none ] && [ "$sent1" -gt "$sent0" ] && [ "$sent0" -gt 0 ] ||
	fail "traffic: QP 0x100 sent $sent0 data packets before the reload, $sent1 after: not kept, or its counters reset"
[ "$(tele "/mrc/qp,$new_send" tx_data_pkts)" != none ] && [ "$(tele "/mrc/qp,$new_send" tx_data_pkts)" -gt 0 ] ||
	fail "traffic: the new flow's QP $new_send sent nothing ($(tele "/mrc/qp,$new_send" tx_data_pkts))"
[ "$(tele "/mrc/qp,$new_send" state)" = RTS ] || fail "traffic: new QP $new_send is $(tele "/mrc/qp,$new_send" state)"
# Back to pairs: the second 0 -> 1 goes, 1 -> 0 comes back on a new pair.
sed -i -e '/^incast_target = 1/d' -e '/^qps_per_peer = 2/d' -e 's/^pattern = incast/pattern = pairs/' "$prof"
hup "$t" '^<5>mrcd.ctrl: SIGHUP: reloaded the profile .*traffic.ini: 1 flows kept, 1 removed, 1 added'
for _ in $(seq 50); do [ "$(grep -c "reload: the flows' changes are done" "$t.err")" = 2 ] && break; sleep 0.1; done
sleep 0.5
[ "$(tele /mrc/qp,0x100 tx_data_pkts)" -gt "$sent1" ] || fail "traffic: QP 0x100 stopped after the second reload"
[ "$(qps | wc -w)" = 4 ] || fail "traffic: QPs after the second reload '$(qps)'"
# Refused: a key that lays out every flow's slots, and a profile that does not load; nothing changes.
qpns2=$(qps)
sed -i 's/^outstanding = 2/outstanding = 4/' "$prof"
hup "$t" "^<4>mrcd.ctrl: SIGHUP: refused a change \(profile .*traffic.ini: outstanding = 2 -> 4: each flow's message slots"
sed -i -e 's/^outstanding = 4/outstanding = 2/' -e 's/^pattern = pairs/pattern = bogus/' "$prof"
hup "$t" "^<3>mrcd.ctrl: SIGHUP: refused: profile: .*traffic.ini.*bogus.*Still running as before"
sed -i 's/^pattern = bogus/pattern = pairs/' "$prof"
kill -0 "$pid" 2> /dev/null || fail "traffic: a refused reload stopped it"
[ "$(qps)" = "$qpns2" ] || fail "traffic: a refused reload changed the QPs: '$qpns2' -> '$(qps)'"
[ "$(tele /mrc/info reloads_ok)" = 3 ] && [ "$(tele /mrc/info reloads_refused)" = 2 ] ||
	fail "traffic: /mrc/info counts $(tele /mrc/info reloads_ok) reloads taken, $(tele /mrc/info reloads_refused) refused; 3 and 2 wanted"
# c. The scenario reloaded mid-run by mrcctl reload: none -> plane 1 down 100 ms after the
# fabric takes it, up 300 ms later; a broken one refused (SIGHUP and mrcctl), nothing changed.
ctl=$dest$bindir/mrcctl
cat > "$dest$sysconfdir/mrcd/drill.ini" << 'S'
[event.p1-down]
at = 100ms
element = plane
plane = 1
action = down

[event.p1-up]
at = 400ms
element = plane
plane = 1
action = up
S
applied0=$(tele /mrc/fabric events_applied)
sentc0=$(tele /mrc/qp,0x100 tx_data_pkts)
sed -i 's/^scenario = none/scenario = drill.ini/' "$conf"
out=$("$ctl" -s "$run/control.sock" reload 2>&1) || fail "scenario: mrcctl reload exited $?: $out"
case "$out" in
*'"reload":"applied"'*'the scenario none -> '*'drill.ini: 2 changes from now'*) ;;
*) fail "scenario: mrcctl reload answered '$out'" ;;
esac
for _ in $(seq 30); do grep -q 'plane 1 up (drill.ini:event.p1-up)' "$t.err" && break; sleep 0.1; done
# fabric times (ns): the take (its t = 0), the two changes; exact, the fabric's own clock
ns() { sed -n "s/.*mrc.fabric: .*: t=\([0-9]*\)\.\([0-9]*\) s: $1.*/\1\2/p" "$t.err" | sed -n '1s/^0*//p'; }
t_take=$(ns 'fault timeline replaced (reload:drill.ini)')
t_down=$(ns 'plane 1 down (drill.ini:event.p1-down)')
t_up=$(ns 'plane 1 up (drill.ini:event.p1-up)')
[ -n "$t_take" ] && [ -n "$t_down" ] && [ -n "$t_up" ] &&
	[ $((t_down - t_take)) = 100000000 ] && [ $((t_up - t_take)) = 400000000 ] ||
	fail "scenario: the fabric took it at '$t_take' ns, plane 1 down at '$t_down', up at '$t_up': not +100 ms and +400 ms"
grep -q '^<5>mrcd.ctrl: reload: the fabric runs scenario .*drill.ini from its t=' "$t.err" ||
	fail "scenario: control did not see the fabric take the timeline"
grep -q '^<5>mrcd.ctrl: mrcctl reload: reloaded the scenario none -> .*drill.ini: 2 changes from now' "$t.err" ||
	fail "scenario: no log line for mrcctl's reload"
applied1=$(tele /mrc/fabric events_applied)
[ "$applied1" != none ] && [ "$applied1" -ge $((applied0 + 2)) ] ||
	fail "scenario: the fabric applied $applied0 -> $applied1 fault changes (2 more wanted)"
sentc1=$(tele /mrc/qp,0x100 tx_data_pkts)
[ "$sentc1" != none ] && [ "$sentc1" -gt "$sentc0" ] ||
	fail "scenario: QP 0x100 sent $sentc0 -> $sentc1 data packets across the scenario's reload"
cat > "$dest$sysconfdir/mrcd/bad.ini" << 'S'
[event.x]
at = 1s
element = plane
plane = 99
action = down
S
sed -i 's/^scenario = drill.ini/scenario = bad.ini/' "$conf"
hup "$t" "^<3>mrcd.ctrl: SIGHUP: refused: scenario: .*bad.ini:4: \[event.x\] plane: '99' is out of range.*Still running as before"
set +e
out=$("$ctl" -s "$run/control.sock" reload 2>&1)
rc=$?
set -e
[ "$rc" = 1 ] && echo "$out" | grep -q "^mrcctl: bad-file scenario: .*bad.ini:4: \[event.x\] plane: '99' is out of range" ||
	fail "scenario: mrcctl reload of a broken scenario: exit $rc, '$out'"
[ "$(grep -c 'fault timeline replaced' "$t.err")" = 1 ] || fail "scenario: a refused scenario reached the fabric"
sed -i 's/^scenario = bad.ini/scenario = drill.ini/' "$conf"
out=$("$ctl" -s "$run/control.sock" reload 2>&1) || fail "scenario: mrcctl reload exited $?: $out"
case "$out" in *'"reload":"unchanged"'*) ;; *) fail "scenario: an unchanged reload answered '$out'" ;; esac
echo "service: scenario reloaded by mrcctl: fabric t=$t_take ns, plane 1 down at +$(((t_down - t_take) / 1000000)) ms, up at +$(((t_up - t_take) / 1000000)) ms; QP 0x100 $sentc0 -> $sentc1 data packets"
qps2=$(host0 qps)
done2=$(host0 msgs_completed)
[ "$qps" = "$qps2" ] && [ "$qps" != none ] && [ "$qps" -gt 0 ] || fail "traffic: QPs $qps before the SIGHUPs, $qps2 after"
[ "$done2" != none ] && [ "$done1" != none ] && [ "$done2" -gt "$done1" ] ||
	fail "traffic: messages completed $done1 before the SIGHUPs, $done2 after: the traffic stopped"
stop "$t"
grep -E 'messages: [1-9][0-9]* posted, [0-9]+ completed, 0 failed, 0 lost' "$t.out" ||
	fail "traffic: the summary says messages failed or were lost"
grep -q 'reloads (SIGHUP): 5 taken, 4 refused' "$t.out" || fail "traffic: the summary does not count the reloads"
grep -q 'data: [0-9]* bytes verified at the receivers, 0 errors' "$t.out" ||
	fail "traffic: the receivers found errors"
want="READY=1$(printf ' RELOADING=1 READY=1%.0s' $(seq 9)) STOPPING=1 "
[ "$(notified "$t")" = "$want" ] || fail "traffic: notify messages '$(notified "$t")', not '$want'"

# Nothing outside the state and runtime directories.
[ "$(ls -A /)" = "$root_before" ] || fail "/ changed: $(diff <(echo "$root_before") <(ls -A /) || true)"
[ -e "$work/state-b" ] || [ -e "$work/run-b" ] &&
	fail "the second of the directories systemd listed was used: $(ls -d "$work"/*-b)"
extra=$(cd "$state" && ls -A | grep -v -x -e mrcd-timeseries.jsonl -e mrcd.prom || true)
[ -z "$extra" ] || fail "state directory holds unexpected files: $extra"
[ -s "$state/mrcd-timeseries.jsonl" ] && [ -s "$state/mrcd.prom" ] ||
	fail "the time series and the Prometheus file are not in the state directory"
echo "service: idle and traffic runs: started, reloaded (QPs $qpns0 -> $qpns1 -> $qpns2; 0x100 sent $sent0 -> $sent1 data packets; messages $done1 -> $done2), stopped"
echo "service: $((fails == 0 ? 1 : 0)) passed, $fails failed"
[ "$fails" = 0 ]
