#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# A two-host cluster launched by Open MPI: `mpirun -np 2` starts one mrcd
# per rank with one configuration for both, which names neither process's
# host number (no hosts, first_host or cluster_hosts): each takes its host
# and the cluster's size from its rank and size. They meet in mrc-fabric
# (2 hosts x 4 planes over memif), which kills plane 1 for good 0.1 s after
# both are connected. When telemetry shows both hosts done, all get SIGTERM
# at once. mrc-report merges the two --json summaries. Checked: without
# MRCD_LAUNCH_SHARED_NODE=1 two ranks on one node are refused with a clear
# error; each rank said which host it runs, and they are 0 and 1; every
# message completed; the report has both hosts, and its worst paths are
# plane 1's, every one of them ahead of every other plane's.
# On 2 CPUs three pollers share them, placed as in fabric_process.sh.
# Usage: cluster_mpirun.sh MRC_FABRIC MRCD MRC_REPORT WORKDIR
set -euo pipefail
fabric=$(realpath "$1")
mrcd=$(realpath "$2")
report=$(realpath "$3")
work=$4
. "$(dirname "$0")/lib.sh"
if ! command -v mpirun > /dev/null; then
	echo "cluster_mpirun: no mpirun (Debian's openmpi-bin; scripts/setup.sh installs it); skipping"
	exit 77
fi
if [ "$(nproc)" -lt 2 ]; then
	echo "cluster_mpirun: needs 2 CPUs; skipping"
	exit 77
fi
rm -rf "$work"
mkdir -p "$work"
cd "$work"
mpi=(mpirun -np 2 --bind-to none)
[ "$(id -u)" = 0 ] && mpi+=(--allow-run-as-root)
msgs=40
cat > profile.ini << P
[profile]
pattern = pairs
msg_kb = 1024
outstanding = 4
messages = $msgs
verify = true
; paced well below the links, so that the three pollers sharing 2 CPUs keep up
; and only the dead plane loses packets
rate_gbps = 0.3
P
cat > scenario.ini << 'S'
[scenario]
name = plane1-dies
description = plane 1 down for good, 0.1 s after the hosts connect

[event.down]
at = 100ms
element = plane
plane = 1
action = down
S
dir=/run/mrcd-test-mpirun-$$
mkdir -p "$dir"
pids=()
cleanup() {
	kill -KILL "${pids[@]}" 2> /dev/null || true
	rm -rf "$dir"
}
trap cleanup EXIT
# Queues deep enough for both windows, so that only the dead plane loses
# packets (the windows are fixed: nothing else would keep them short).
mrc_fabric_cluster "$fabric" "$dir" 1 "queue_kb = 1024
trim_kb = 0
ecn_kmax_kb = 0"
fab=$mrc_fabric_pid
# One configuration for the cluster: the fabric's [ports] of both hosts, each
# host's memif devices named apart; no host numbers in [daemon].
{
	cat << C
[daemon]
planes = 4
duration_s = 0
profile = $PWD/profile.ini
scenario = none

[ports]
mode = ethdev
close_delay_ms = 1500
rx_mbuf_data_room = 4736
C
	for h in 0 1; do
		for p in 0 1 2 3; do
			echo "h$h.p$p = net_memif$h$p"
			echo "vdev.$((h * 4 + p)) = net_memif$h$p,role=client,socket=$dir/h$h.sock,id=$p,bsize=8192"
		done
	done
	cat << 'C'

[cc]
; Three pollers share 2 CPUs here: scheduling, not queues, sets the RTT, and
; a delay-based window would collapse on it. This test is about delivery.
algorithm = fixed
fixed_cwnd_kb = 256

[fabric]
link_gbps = 1

[telemetry]
timeseries = none
prometheus = none
console = false
C
} > cluster.ini
fails=0
fail() {
	echo "cluster_mpirun: FAIL: $*"
	fails=$((fails + 1))
}

# Two ranks on one node, not said to be allowed: refused, naming why.
set +e
"${mpi[@]}" "$mrcd" -- -f cluster.ini --check > refused.log 2>&1
rc=$?
set -e
if [ "$rc" = 0 ] || ! grep -q 'OMPI_COMM_WORLD_LOCAL_SIZE=2: more than one mrcd on this node' refused.log; then
	fail "two ranks on one node were not refused (mpirun exited $rc)"
	tail -5 refused.log
fi

# The cluster: one command line for both ranks (each polls on the CPU of its rank's number,
# as fabric_process.sh places its two hosts).
"${mpi[@]}" -x MRCD_LAUNCH_SHARED_NODE=1 sh -c \
	'r=$OMPI_COMM_WORLD_RANK; exec "$0" --lcores=0@$r,1@$r -- -f cluster.ini --json "summary-$OMPI_COMM_WORLD_RANK.json" > "rank-$OMPI_COMM_WORLD_RANK.log" 2>&1' \
	"$mrcd" > mpirun.log 2>&1 &
mpirun_pid=$!
pids+=("$mpirun_pid")
deadline=$((SECONDS + 120))
while [ $SECONDS -lt $deadline ]; do
	done_n=0
	for r in 0 1; do
		[ "$(mrc_msgs_completed rank-$r.log)" = $msgs ] && done_n=$((done_n + 1))
	done
	[ "$done_n" = 2 ] && break
	kill -0 "$mpirun_pid" 2> /dev/null || break
	sleep 0.2
done
ranks=()
for r in 0 1; do
	p=$(grep -o -m1 'file-prefix=mrcd_[0-9]*' "rank-$r.log" 2> /dev/null | sed -n '1s/.*mrcd_//p')
	[ -n "$p" ] && ranks+=("$p")
done
kill -TERM "${ranks[@]}" "$fab" 2> /dev/null || true
set +e
wait "$mpirun_pid"
mrc=$?
wait "$fab"
frc=$?
set -e
[ "$mrc" = 0 ] || { fail "mpirun exited $mrc"; tail -8 rank-0.log rank-1.log mpirun.log; }
[ "$frc" = 0 ] || { fail "mrc-fabric exited $frc"; tail -5 fabric.log; }
for r in 0 1; do
	grep -q "Open MPI: rank $r of 2: this process runs hosts $r..$r of a cluster of 2" "rank-$r.log" ||
		fail "rank $r did not take host $r of 2 from its rank"
done
set +e
"$report" --json report.json summary-0.json summary-1.json > report.txt
rrc=$?
set -e
head -20 report.txt
[ "$rrc" = 0 ] || fail "mrc-report exited $rrc (messages failed or lost, or a summary unreadable)"
/usr/bin/python3 - report.json "$msgs" << 'PY' || fails=$((fails + 1))
import json, sys
r = json.load(open(sys.argv[1]))
msgs = int(sys.argv[2])
bad = []
hosts = [h["host"] for h in r["hosts"]]
if hosts != [0, 1]:
    bad.append(f"hosts {hosts}, want [0, 1]")
for h in r["hosts"]:
    if h["messages_completed"] != msgs or h["messages_failed"] or h["messages_lost"]:
        bad.append(f"host {h['host']}: {h['messages_completed']} completed, "
                   f"{h['messages_failed']} failed, {h['messages_lost']} lost")
paths = r["paths"]
p1 = [p for p in paths if p["plane"] == 1]
if len(p1) != 4:
    bad.append(f"plane 1 has {len(p1)} paths in the report, want its 4 T1s")
worst = paths[:len(p1)]
if any(p["plane"] != 1 for p in worst):
    bad.append("the worst paths are not plane 1's: " +
               ", ".join(f"{p['path']} ({p['lost']} lost)" for p in worst))
if any(p["lost"] == 0 for p in p1):
    bad.append("a path of plane 1 lost nothing: " + ", ".join(p["path"] for p in p1))
for b in bad:
    print("cluster_mpirun: FAIL:", b)
print("cluster_mpirun: worst paths " + ", ".join(
    f"{p['path']} ({p['lost']} lost of {p['data_pkts_sent']})" for p in paths[:5]))
sys.exit(1 if bad else 0)
PY
echo "cluster_mpirun: $((fails == 0 ? 1 : 0)) passed, $fails failed"
[ "$fails" = 0 ]
