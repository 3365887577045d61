# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# Shared by the integration scripts (source it).

_mrc_lib_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mrc_telemetry=$_mrc_lib_dir/../../scripts/mrc-telemetry.py

# mrc_sock LOG: the telemetry socket the mrcd writing LOG announced ("" before).
mrc_sock() {
	grep -o '/var/run/dpdk/[^ ]*/dpdk_telemetry.v2' "$1" 2>/dev/null | head -1 || true
}

# mrc_tel SOCK COMMAND KEY: KEY of COMMAND's reply on the telemetry socket
# SOCK; none while it does not answer.
mrc_tel() {
	timeout 10 /usr/bin/python3 "$mrc_telemetry" -s "$1" "$2" 2> /dev/null |
		/usr/bin/python3 -c "import json,sys; print(list(json.load(sys.stdin).values())[0]['$3'])" 2> /dev/null || echo none
}

# mrc_qpns SOCK: the QP numbers /mrc/qps lists on the telemetry socket SOCK
# (its first page), sorted, on one line; none while it does not answer.
mrc_qpns() {
	timeout 10 /usr/bin/python3 "$mrc_telemetry" -s "$1" /mrc/qps 2> /dev/null |
		/usr/bin/python3 -c "import json,sys; print(' '.join(sorted(k for k in list(json.load(sys.stdin).values())[0] if k != 'next')))" 2> /dev/null || echo none
}

# mrc_wait_apps SOCK LOG: wait up to 10 s until the mrcd writing LOG has
# made its applications' socket SOCK and announced its telemetry; 1 if not.
mrc_wait_apps() {
	for _ in $(seq 100); do
		[ -S "$1" ] && [ -n "$(mrc_sock "$2")" ] && return 0
		sleep 0.1
	done
	return 1
}

# mrc_apps_sessions LOG: the application sessions /mrc/apps of the mrcd
# writing LOG lists; ? while it does not answer.
mrc_apps_sessions() {
	timeout 10 /usr/bin/python3 "$mrc_telemetry" -s "$(mrc_sock "$1")" /mrc/apps 2>/dev/null |
		/usr/bin/python3 -c 'import json,sys; print(list(json.load(sys.stdin).values())[0]["sessions"])' 2>/dev/null || echo "?"
}

# mrc_apps_gone LOG: wait up to 5 s until /mrc/apps lists no session (an
# ended program's regions go once no packet holds them); prints the last count.
mrc_apps_gone() {
	local n='?'
	for _ in $(seq 50); do
		n=$(mrc_apps_sessions "$1")
		[ "$n" = 0 ] && break
		sleep 0.1
	done
	echo "$n"
}

# mrc_stop PID LOG: stop the mrcd writing LOG with SIGTERM; returns its exit
# status, and shows the log's tail when that is not 0.
mrc_stop() {
	local rc=0
	kill -TERM "$1" 2>/dev/null || true
	wait "$1" || rc=$?
	[ "$rc" = 0 ] || tail -20 "$2"
	return "$rc"
}

# mrc_msgs_completed LOG: messages the first host of the mrcd writing LOG has
# completed, read over telemetry; 0 until it answers.
mrc_msgs_completed() {
	local s out
	s=$(mrc_sock "$1")
	[ -n "$s" ] || { echo 0; return; }
	# A daemon that does not answer must not hang the caller's loop.
	out=$(timeout 10 /usr/bin/python3 "$mrc_telemetry" -s "$s" /mrc/host,0 2>&1) || true
	# The last answer, whatever it was, beside the log: a test that waited in
	# vain shows it (mrc_last_answer).
	printf '%s %s\n' "$(date +%T.%N)" "${out:0:600}" > "$1.answer"
	printf '%s' "$out" |
		/usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin); print(list(d.values())[0]["msgs_completed"])' 2>/dev/null || echo 0
}

# mrc_last_answer LOG: what the last mrc_msgs_completed on LOG was told, for a failure message.
mrc_last_answer() {
	cat "$1.answer" 2>/dev/null || echo "(never asked)"
}

# mrc_dump_state LOG OUT: everything the mrcd writing LOG can tell about its
# hosts, ports, drops and each of its QPs (counters, PSNs, window, retries,
# EVs), as one JSON object per line into OUT. For a transfer that stands
# still: taken before the daemon is killed, it says which QP waits on what.
mrc_dump_state() {
	local s
	s=$(mrc_sock "$1")
	[ -n "$s" ] || { echo "no telemetry socket in $1" > "$2"; return 0; }
	timeout 60 /usr/bin/python3 - "$mrc_telemetry" "$s" > "$2" 2>&1 <<'PY' || true
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("tel", sys.argv[1])
tel = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tel)
c = tel.Client(sys.argv[2])
def q(cmd):
    r = c.query(cmd)
    print(json.dumps(r, sort_keys=True))
    return list(r.values())[0] if isinstance(r, dict) and r else None
info = q("/mrc/info")
for h in q("/mrc/hosts") or []:
    for cmd in ("/mrc/host", "/mrc/ports", "/mrc/drops"):
        q(f"{cmd},{h}")
start = 0
while start is not None:
    page = q(f"/mrc/qps,{start}") or {}
    start = page.pop("next", None)
    for qpn in page:
        q(f"/mrc/qp,{int(qpn, 16)}")
        q(f"/mrc/evs,{int(qpn, 16)}")
PY
}

# mrc_dump_threads PID: each thread of PID (or of its one child: `ip netns
# exec` may still be its parent) with its state and kernel wait channel (and
# its kernel stack when it is in D, readable as root), then every thread's
# stack when gdb is installed. Says whether a worker
# runs, or sleeps in a system call it should never block in.
mrc_dump_threads() {
	local pid=$1 t c
	[ -d "/proc/$pid" ] || { echo "process $pid: gone"; return 0; }
	c=$(awk '{print $1}' "/proc/$pid/task/$pid/children" 2>/dev/null || true)
	[ -n "$c" ] && pid=$c
	for t in /proc/"$pid"/task/*; do
		[ -d "$t" ] || continue
		echo "thread ${t##*/} $(cat "$t/comm" 2>/dev/null) state $(awk '{print $3}' "$t/stat" 2>/dev/null)" \
			"wchan $(cat "$t/wchan" 2>/dev/null) utime+stime $(awk '{print $14 + $15}' "$t/stat" 2>/dev/null)"
		# in the kernel (root only): where a thread in D waits, and on what
		case $(awk '{print $3}' "$t/stat" 2>/dev/null) in
		D) sed 's/^/    kernel: /' "$t/stack" 2>/dev/null | head -16 || true ;;
		esac
	done
	if command -v gdb > /dev/null; then
		timeout 20 gdb -p "$pid" -batch -ex 'thread apply all bt 12' 2>/dev/null |
			grep -E '^(Thread|#)' || true
		# gdb stops a thread in D only when it leaves D: a gdb timed out by then
		# leaves the process stopped (seen: T for good, deaf to SIGTERM)
		kill -CONT "$pid" 2>/dev/null || true
	fi
}

# mrc_wait_dead PID SECONDS: wait until PID has exited (gone, a zombie its
# parent has not reaped yet, or dead while being reaped), at most SECONDS;
# 1, and the state it is in, if it still runs then.
# Not `wait PID`: on a loaded machine the reaping itself, in the kernel
# (release_task flushing the dead process's /proc entries from the dentry
# cache, in the waiting shell's context), was seen to take 2 to 14 s after
# the process had exited, and a test that times a daemon's exit by `wait`
# counts that against the daemon. Collect the exit status with `wait` after.
mrc_wait_dead() {
	local pid=$1 end=$((SECONDS + $2)) st
	while [ $SECONDS -lt "$end" ]; do
		st=$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null) || true
		# Z: exited, not reaped; X: being reaped (the slow part above)
		case $st in '' | Z | X) return 0 ;; esac
		sleep 0.05
	done
	echo "process $pid: state $st after $2 s"
	return 1
}

# mrc_spawn STATUS CMD...: start CMD in the background under a subshell that
# reaps it and writes its exit status to the file STATUS; CMD's pid is then in
# mrc_spawned. The test's own shell never reaps CMD, so the reaping's stall
# (above) cannot hold the test between two of its steps; mrc_status reads
# the status. Redirect the call as CMD's output should go.
mrc_spawn() {
	local st=$1
	shift
	rm -f "$st" "$st.pid"
	(
		"$@" &
		echo $! > "$st.pid"
		rc=0
		wait $! || rc=$?
		echo "$rc" > "$st"
	) &
	for _ in $(seq 200); do
		[ -s "$st.pid" ] && break
		sleep 0.01
	done
	mrc_spawned=$(cat "$st.pid")
}

# mrc_status STATUS SECONDS: the exit status mrc_spawn's reaper wrote to the
# file STATUS, waiting for it at most SECONDS; "none" if it never came.
mrc_status() {
	local end=$((SECONDS + $2))
	while [ ! -s "$1" ] && [ $SECONDS -lt "$end" ]; do
		sleep 0.05
	done
	cat "$1" 2>/dev/null || echo none
}

# mrc_run_dir NAME: the folder /run/mrcd-test-NAME-<pid> for memif sockets
# and host configs, in dir, and an empty array pids; at exit every process
# in pids is killed and the folder removed (the test's trap: it sets none).
mrc_run_dir() {
	dir=/run/mrcd-test-$1-$$
	mkdir -p "$dir"
	pids=()
	trap 'kill -KILL "${pids[@]}" 2>/dev/null || true; rm -rf "$dir"' EXIT
}

# mrc_fabric_cluster FABRIC DIR LINK_GBPS [FABRIC_LINES]: the cluster of the
# tests that join mrcd processes through mrc-fabric: 2 hosts x 4 planes, the
# profile.ini and scenario.ini of the current folder, links of LINK_GBPS,
# FABRIC_LINES (key = value lines) added to [fabric]. Writes it to
# fabric.ini, starts FABRIC on it in the background with its log in
# fabric.log and its summary in fabric.json, its ports' sockets and the host
# configs (DIR/host<h>.ini) in DIR, and returns once it has written them (or
# after 10 s). The fabric's pid is in mrc_fabric_pid, and added to the
# caller's array pids before the wait, so that the caller's trap, which kills
# them, cannot miss it.
# Its two polling lcores take CPUs 0 and 1: on 2 CPUs it shares them with the
# mrcd processes, so it sleeps when idle (--idle-sleep-us).
mrc_fabric_cluster() {
	local fabric=$1 dir=$2 gbps=$3 extra=${4:-}
	{
		cat <<C
[daemon]
hosts = 2
planes = 4
duration_s = 0
profile = $PWD/profile.ini
scenario = $PWD/scenario.ini

[fabric]
link_gbps = $gbps
C
		[ -z "$extra" ] || printf '%s\n' "$extra"
		cat <<'C'

[cc]
; Several pollers share 2 CPUs: scheduling, not queues, sets the RTT, and a
; delay-based window would collapse on it. These tests are about delivery.
algorithm = fixed
fixed_cwnd_kb = 256

[telemetry]
timeseries = none
prometheus = none
C
	} > fabric.ini
	"$fabric" --lcores=0@0,1@1 -- -f fabric.ini --dir "$dir" --idle-sleep-us 20 \
		--json fabric.json > fabric.log 2>&1 &
	mrc_fabric_pid=$!
	pids+=("$mrc_fabric_pid")
	for _ in $(seq 100); do
		[ -f "$dir/host1.ini" ] && grep -q 'start each host' fabric.log && return 0
		sleep 0.1
	done
}

# mrc_wait_ctl MRCCTL SOCK SECONDS: wait until the mrcd serving the control
# socket SOCK answers `status` (its control thread runs: it is past its
# start, ports included), at most SECONDS; 1 if it never did. A socket
# bound but not served yet takes the request and stays silent: each try is
# bounded.
mrc_wait_ctl() {
	local end=$((SECONDS + $3))
	while [ $SECONDS -lt "$end" ]; do
		timeout 2 "$1" -s "$2" status > /dev/null 2>&1 && return 0
		sleep 0.1
	done
	return 1
}

# mrc_drill MRCCTL SOCK QPN WANT LOG_A LOG_B: put QPN of host 0 of the mrcd
# serving the control socket SOCK in ERROR (mrcctl fail), then wait at most
# 5 s until the mrcd writing LOG_A and the one writing LOG_B have each
# logged WANT flows recovered. 0 with the seconds it took on stdout; 1 with
# why not.
mrc_drill() {
	local out t0=$SECONDS ra rb
	out=$(timeout 10 "$1" -s "$2" fail host=0 qpn="$3" 2>&1) || true
	case $out in *'"state":"error"'*) ;; *)
		echo "mrcctl fail qpn=$3: $out"
		return 1
		;;
	esac
	while :; do
		ra=$(grep -c ' recovered on QPs ' "$5" 2> /dev/null || true)
		rb=$(grep -c ' recovered on QPs ' "$6" 2> /dev/null || true)
		if [ "$ra" -ge "$4" ] && [ "$rb" -ge "$4" ]; then
			echo $((SECONDS - t0 + 1))
			return 0
		fi
		if [ $((SECONDS - t0)) -ge 5 ]; then
			echo "not recovered at both ends in 5 s: $ra and $rb of $4;" \
				"$(grep -h 'not brought back' "$5" "$6")"
			return 1
		fi
		sleep 0.1
	done
}

# mrc_dump_cpus: every thread on the machine that used CPU lately, the CPU it
# last ran on, its scheduling class, priority and nice, state and kernel wait
# channel, busiest first. A start that stands still while another process
# runs (seen: B's start resumed the moment A exited or gdb stopped A) shows
# who holds the CPU it waits for. Touches no process: take it first.
mrc_dump_cpus() {
	echo "threads by CPU use (psr: last CPU), load $(cut -d' ' -f1-3 /proc/loadavg):"
	ps -eLo pid,tid,psr,pcpu,cls,rtprio,ni,stat,wchan:22,comm --sort=-pcpu 2>/dev/null | head -40 || true
	# every thread of the machine in the kernel now (D: waiting; R with a kernel
	# stack: working there), with that stack: who holds what a stuck start waits on
	local t st stk
	for t in /proc/[0-9]*/task/[0-9]*; do
		st=$(awk '{print $3}' "$t/stat" 2>/dev/null) || continue
		case $st in D | R) ;; *) continue ;; esac
		stk=$(head -14 "$t/stack" 2>/dev/null) || continue
		[ -n "$stk" ] || continue
		# preempted on its way back to user space: not working in the kernel
		case $stk in *irqentry_exit_to_user_mode*) [ "$(printf '%s\n' "$stk" | wc -l)" -gt 2 ] || continue ;; esac
		echo "in the kernel: ${t#/proc/} $(cat "$t/comm" 2>/dev/null) state $st cpu $(awk '{print $39}' "$t/stat" 2>/dev/null)"
		printf '%s\n' "$stk" | sed 's/^/    /'
	done
}
