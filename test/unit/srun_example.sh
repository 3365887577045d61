#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# The example batch script config/examples/srun-cluster.sbatch (doc/service.md,
# "Cluster launch") run as sbatch would, with stand-ins on PATH: `srun` starts
# its command once per node of a two-node job with Slurm's variables, `mrcd`
# records its command line and environment and writes a summary, and
# `mrc-report` is the real one. Checked: each node's mrcd gets the
# configuration, the time, no host number but the launcher's, and writes its
# own summary; the two are merged into report.json even when a node's mrcd
# exits 1 (it lost messages: the report is what says where), and the script
# then exits non-zero.
# Usage: srun_example.sh SOURCE_DIR WORKDIR
set -euo pipefail
src=$(realpath "$1")
work=$2
rm -rf "$work"
mkdir -p "$work/bin"
work=$(realpath "$work")
fails=0
fail() {
	echo "srun_example: FAIL: $*"
	fails=$((fails + 1))
}

# srun: the command once per node, as Slurm sets up each task; fails when a task does.
cat > "$work/bin/srun" << 'S'
#!/usr/bin/env bash
while [ $# -gt 0 ] && [ "${1#-}" != "$1" ]; do shift; done
pids=()
for n in 0 1; do
	SLURM_NODEID=$n SLURM_JOB_NUM_NODES=2 SLURM_STEP_TASKS_PER_NODE='1(x2)' "$@" &
	pids+=($!)
done
rc=0
for p in "${pids[@]}"; do wait "$p" || rc=1; done
exit $rc
S
# mrcd: its arguments and Slurm's variables to a file; a summary where --json says;
# node 1 lost a message (exit 1, as mrcd does).
cat > "$work/bin/mrcd" << 'M'
#!/usr/bin/env bash
echo "$* | node=$SLURM_NODEID of $SLURM_JOB_NUM_NODES" > "$MRCD_STUB_DIR/args-$SLURM_NODEID"
json=
while [ $# -gt 0 ]; do [ "$1" = --json ] && json=$2; shift; done
n=$SLURM_NODEID
lost=$((n == 1 ? 1 : 0))
cat > "$json" << J
{"first_host": $n, "hosts": 1, "messages": {"posted": 4, "completed": $((4 - lost)),
 "failed": 0, "lost": $lost}, "path_counters": [{"host": $n, "plane": 1, "t1": 0,
 "tx_data_pkts": 100, "tx_retx_pkts": 0, "tx_probes": 0, "lost": $((1 + n)),
 "ecn_echoes": 0, "trims": 0, "rtt_samples": 100}]}
J
exit $lost
M
ln -s "$src/scripts/mrc-report.py" "$work/bin/mrc-report"
chmod +x "$work/bin/srun" "$work/bin/mrcd"

set +e
(cd "$work" && env PATH="$work/bin:$PATH" MRCD_STUB_DIR="$work" SLURM_JOB_ID=7 \
	SLURM_SUBMIT_DIR="$work" bash "$src/config/examples/srun-cluster.sbatch" /etc/mrcd/cluster.ini 5 \
	> "$work/sbatch.log" 2>&1)
rc=$?
set -e
out=$work/mrcd-7
for n in 0 1; do
	want="-- -f /etc/mrcd/cluster.ini --duration 5 --json $out/summary-$n.json | node=$n of 2"
	[ "$(cat "$work/args-$n" 2> /dev/null)" = "$want" ] ||
		fail "node $n ran mrcd '$(cat "$work/args-$n" 2> /dev/null)', not '$want'"
	[ -s "$out/summary-$n.json" ] || fail "node $n wrote no summary"
done
/usr/bin/python3 - "$out/report.json" << 'P' || fail "report.json: not the two nodes' merged report"
import json, sys
r = json.load(open(sys.argv[1]))
assert [h["host"] for h in r["hosts"]] == [0, 1], r["hosts"]
assert r["paths"][0]["path"] == "p1_t0" and r["paths"][0]["lost"] == 3, r["paths"]
assert r["messages_lost"] == 1, r["messages_lost"]
P
grep -q 'per path (plane, T1), worst first' "$out/report.txt" 2> /dev/null || fail "no report.txt"
[ "$rc" != 0 ] || fail "the script exited 0 with a node that lost a message"
[ "$fails" = 0 ] || cat "$work/sbatch.log"
echo "srun_example: $((fails == 0 ? 1 : 0)) passed, $fails failed"
[ "$fails" = 0 ]
