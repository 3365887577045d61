#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# mrcd as installed and as systemd starts it (doc/service.md):
# 1. `meson install --destdir` puts every file where the manual says (and
#    mrcctl's page when the tree has mrcctl); the unit is hardened as said.
# 2. The unit's ExecStart command line, its paths moved into the destdir,
#    run as systemd would: from /, with STATE_DIRECTORY and
#    RUNTIME_DIRECTORY set to temporary directories and little else. First
#    with the installed configuration (no traffic of its own), then with a
#    profile named in it. Checked: it runs until stopped; its pid file;
#    telemetry answers from the runtime directory; SIGHUP with nothing
#    changed keeps every QP and the traffic going; SIGHUP after the profile
#    changed is refused with a log line naming the change, every QP kept;
#    SIGTERM drains and exits 0 with nothing lost; log lines carry the
#    journal's <N> level prefix; the pid file goes at exit; and nothing is
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
unitdir=$prefix/lib/systemd/system
want=("$bindir/mrcd" "$bindir/mrc-fabric" "$bindir/mrc-dump" "$bindir/mrc-report"
	"$sysconfdir/mrcd/mrcd.ini" "$unitdir/mrcd.service"
	"$mandir/man8/mrcd.8" "$mandir/man1/mrc-fabric.1" "$mandir/man1/mrc-dump.1"
	"$mandir/man1/mrc-report.1" "$datadir/mrcd/profiles/default.ini"
	"$datadir/mrcd/scenarios/plane3-fail.ini" "$datadir/mrcd/examples/single-host-ethdev.ini")
[ -d "$src/app/mrcctl" ] && want+=("$bindir/mrcctl" "$mandir/man1/mrcctl.1")
for f in "${want[@]}"; do
	[ -f "$dest$f" ] || fail "install: $f missing"
done
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
conf=$dest$sysconfdir/mrcd/mrcd.ini
echo "service: installed ${#want[@]} files; ExecStart: ${cmd[*]}"

# --- 2. the service, started as systemd would ---
state=$work/state
run=$work/run
root_before=$(ls -A /)
# start LOG: the unit's command line from /, systemd's variables, in the background
start() {
	(cd / && exec env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
		STATE_DIRECTORY="$state" RUNTIME_DIRECTORY="$run" \
		${MRC_NO_HUGE:+MRC_NO_HUGE=$MRC_NO_HUGE} INVOCATION_ID=test \
		"${cmd[@]}" > "$1.out" 2> "$1.err") &
	pid=$!
	for _ in $(seq 100); do
		[ -s "$run/mrcd.pid" ] && grep -q 'running until stopped' "$1.out" 2> /dev/null && break
		kill -0 "$pid" 2> /dev/null || break
		sleep 0.1
	done
	[ "$(cat "$run/mrcd.pid" 2> /dev/null)" = "$pid" ] || fail "$1: pid file says '$(cat "$run/mrcd.pid" 2> /dev/null)', not $pid"
	[ -d "/var/run/dpdk/mrcd_$pid" ] && fail "$1: DPDK's runtime directory is in /var/run/dpdk, not $run"
	sock=$run/dpdk/mrcd_$pid/dpdk_telemetry.v2
	[ -S "$sock" ] || fail "$1: no telemetry socket at $sock"
}
host0() { # KEY: /mrc/host,0's value
	timeout 10 /usr/bin/python3 "$mrc_telemetry" -s "$sock" /mrc/host,0 2> /dev/null |
		/usr/bin/python3 -c "import json,sys; print(list(json.load(sys.stdin).values())[0]['$1'])" 2> /dev/null || echo none
}
stop() { # LOG: SIGTERM, exit 0, pid file gone
	kill -TERM "$pid"
	set +e
	wait "$pid"
	local rc=$?
	set -e
	[ "$rc" = 0 ] || { fail "$1: exited $rc"; tail -5 "$1.err" "$1.out"; }
	[ -e "$run/mrcd.pid" ] && fail "$1: pid file left behind"
	[ -e "$run/dpdk/mrcd_$pid" ] && fail "$1: DPDK's runtime directory left behind"
	grep -q '^<5>mrcd.ctrl: Terminated: stopping, draining' "$1.err" ||
		fail "$1: no drain notice with its journal level (<5>)"
}

# a. As installed: hosts and ports, no traffic, until stopped.
start "$work/idle"
sleep 1
[ "$(host0 msgs_posted)" = 0 ] || fail "idle: posted $(host0 msgs_posted) messages with profile none"
kill -HUP "$pid"
sleep 0.5
grep -q '^<5>mrcd.ctrl: SIGHUP: configuration, profile and scenario unchanged' "$work/idle.err" ||
	fail "idle: SIGHUP not answered as nothing to reload"
kill -0 "$pid" 2> /dev/null || fail "idle: SIGHUP stopped it"
stop "$work/idle"
grep -q 'messages: 0 posted' "$work/idle.out" || fail "idle: the summary does not say 0 posted"

# b. With a profile named in the installed configuration.
cat > "$dest$sysconfdir/mrcd/traffic.ini" << 'P'
[profile]
pattern = pairs
msg_kb = 256
outstanding = 2
verify = true
P
sed -i 's/^profile = none/profile = traffic.ini/' "$conf"
start "$work/traffic"
sleep 1
qps=$(host0 qps)
done1=$(host0 msgs_completed)
kill -HUP "$pid"
sleep 1
grep -q '^<5>mrcd.ctrl: SIGHUP: configuration, profile and scenario unchanged: nothing to reload, every QP kept' "$work/traffic.err" ||
	fail "traffic: SIGHUP with nothing changed not answered so"
sed -i 's/^msg_kb = 256/msg_kb = 128/' "$dest$sysconfdir/mrcd/traffic.ini"
kill -HUP "$pid"
sleep 1
grep -q "^<4>mrcd.ctrl: SIGHUP: refused a change (profile .*traffic.ini: 'msg_kb = 256' -> 'msg_kb = 128')" "$work/traffic.err" ||
	fail "traffic: the changed profile was not refused by name"
qps2=$(host0 qps)
done2=$(host0 msgs_completed)
[ "$qps" = "$qps2" ] && [ "$qps" != none ] && [ "$qps" -gt 0 ] || fail "traffic: QPs $qps before the SIGHUPs, $qps2 after"
[ "$done2" != none ] && [ "$done1" != none ] && [ "$done2" -gt "$done1" ] ||
	fail "traffic: messages completed $done1 before the SIGHUPs, $done2 after: the traffic stopped"
stop "$work/traffic"
grep -E 'messages: [1-9][0-9]* posted, [0-9]+ completed, 0 failed, 0 lost' "$work/traffic.out" ||
	fail "traffic: the summary says messages failed or were lost"

# Nothing outside the state and runtime directories.
[ "$(ls -A /)" = "$root_before" ] || fail "/ changed: $(diff <(echo "$root_before") <(ls -A /) || true)"
extra=$(cd "$state" && ls -A | grep -v -x -e mrcd-timeseries.jsonl -e mrcd.prom || true)
[ -z "$extra" ] || fail "state directory holds unexpected files: $extra"
[ -s "$state/mrcd-timeseries.jsonl" ] && [ -s "$state/mrcd.prom" ] ||
	fail "the time series and the Prometheus file are not in the state directory"
echo "service: idle and traffic runs: started, reloaded ($qps QPs kept, messages $done1 -> $done2), stopped"
echo "service: $((fails == 0 ? 1 : 0)) passed, $fails failed"
[ "$fails" = 0 ]
