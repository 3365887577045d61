#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# A QP that goes to ERROR is reported, and its generator flow brought back
# on a new QP pair, within bounds. Five runs, each with a retry budget of one
# expiry, so a sending QP that hears nothing gives up (RETRY_EXCEEDED):
#
#  1. null: the two hosts of config/examples/null.ini send into net_null
#     ports, so nothing is ever acknowledged. Each flow fails, is brought
#     back, fails again ... until it has failed more than 3 times within
#     10 s, then stays down. mrcd must exit 1 (messages failed), log each
#     QP gone to ERROR with its flow, count them (qps_in_error: 4 per flow),
#     count 3 recoveries per flow and one "too_often" each, and account for
#     every message (posted = failed, none lost).
#  2. blackout: the emulated fabric black-holes everything for 90 ms
#     (config/scenarios/fabric-blackout.ini made 30 ms longer, so that a
#     worker whose round trips a busy host stretched still times out in
#     it, yet shorter than the 100 ms a flow waits before its new pair,
#     which must not fail again). Both flows' sending QPs give
#     up; each flow is brought back once the fabric works, on the spare
#     QPNs, and completes messages again: the summary counts 2 recoveries,
#     none failed, posted = completed + failed with none lost, at most 4
#     (outstanding) failed per flow, every byte at the receivers checked
#     with no error, and messages completed after the recovery (messages
#     numbered from the "from message S" of the log on). While it runs,
#     /mrc/host counts one recovery per host, /mrc/qps lists the new pairs'
#     QPNs and the retired 0x100 is not answered.
#  3. blackout, two workers per host: the same recoveries and checks, each
#     flow's new pair on spare QPNs owned by the shard that lists its ends.
#  4. blackout, two workers per host, peer_shard = other: each flow's ends are
#     on different shard indexes, and so are its new pair's QPs: the same
#     recoveries and checks as 2.
#  5. blackout, two workers per host, peer_shard = half, 8 flows: half of
#     them on one shard index, half on two; all 8 recovered, checked as 2.
# Usage: qp_error.sh MRCD_BINARY WORKDIR
set -euo pipefail
mrcd=$(realpath "$1")
work=$2
src=$(realpath "$(dirname "$0")/../..")
mkdir -p "$work"
cd "$work"
rm -f null.json blackout.json blackout2w.json split.json half.json telemetry.json
if [ "$(nproc)" -lt 2 ]; then
	echo "qp_error: needs 2 CPUs (main + worker lcore); skipping"
	exit 77
fi
# check_recovered NAME: NAME.json and NAME.log of a blackout run in which every flow
# was brought back once, ran on and had every byte it completed checked.
check_recovered() {
	local name=$1 resumed
	# The message each recovered flow resumed from, summed over flows (one recovery each).
	resumed=$(sed -n 's/.* recovered on QPs .*, from message \([0-9]*\)$/\1/p' "$name.log" |
		awk '{ s += $1 } END { print s + 0 }')
	/usr/bin/python3 - "$name.json" "$resumed" "$name" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
resumed, name = int(sys.argv[2]), sys.argv[3]
flows, qerr, m = s["flows"], s["qps_in_error"], s["messages"]
rec, why = s["flows_recovered"], s["recover_failed"]
msg = 1024 * 1024  # the built-in profile's messages
bad = []
if rec != flows or qerr != flows:
    bad.append(f"flows_recovered {rec}, qps_in_error {qerr}: want {flows} each (one per flow)")
if sum(why.values()) != 0:
    bad.append(f"recover_failed {why}: want none")
if m["lost"] != 0 or m["posted"] != m["completed"] + m["failed"]:
    bad.append(f"messages {m}: want posted = completed + failed, none lost")
if not 1 <= m["failed"] <= 4 * flows:
    bad.append(f"{m['failed']} messages failed: want 1..{4 * flows} (those in flight)")
# Messages numbered below each flow's restart point either completed or failed.
after = m["completed"] - (resumed - m["failed"])
if after < flows:
    bad.append(f"{after} messages completed after the recoveries: want some on each flow")
if s["verify_errors"] != 0:
    bad.append(f"{s['verify_errors']} verify errors")
# Every completed message was checked at its receiver; a failed one may have arrived too.
if not m["completed"] * msg <= s["bytes_verified"] <= (m["completed"] + m["failed"]) * msg:
    bad.append(f"bytes_verified {s['bytes_verified']} is not that of the "
               f"{m['completed']} completed messages (+ up to {m['failed']} failed)")
for b in bad:
    print(f"qp_error: FAIL: {name}:", b)
print(f"qp_error: {name}: {rec} flows recovered, {after} messages completed after, "
      f"{m['failed']} failed, {m['lost']} lost, {s['bytes_verified']} bytes verified")
sys.exit(1 if bad else 0)
PY
}

fails=0
one_retry=(--set transport.retry_linear=1 --set transport.retry_exp=0)
sed 's/^at = 560ms$/at = 590ms/' "$src/config/scenarios/fabric-blackout.ini" > blackout90.ini
grep -q '^at = 590ms$' blackout90.ini || { echo "qp_error: fabric-blackout.ini no longer ends at 560ms"; exit 1; }

# 1. Nothing ever arrives: every flow fails, comes back, and stays down at the bound.
set +e
"$mrcd" -- -f "$src/config/examples/null.ini" "${one_retry[@]}" --duration 2 \
	--json null.json > null.log 2>&1
rc=$?
set -e
grep -v '^EAL\|^TELEMETRY\|^mrcd.ctrl: host . plane' null.log | tail -n 24
[ "$rc" = 1 ] || { echo "qp_error: FAIL: null: mrcd exited $rc, want 1 (messages failed)"; fails=$((fails + 1)); }
logged=$(grep -c 'went to ERROR (retry count exceeded): the sending end of flow' null.log || true)
down=$(grep -c 'is not brought back: it failed more than 3 times within 10 s' null.log || true)
/usr/bin/python3 - null.json "$logged" "$down" <<'PY' || fails=$((fails + 1))
import json, sys
s = json.load(open(sys.argv[1]))
logged, down = int(sys.argv[2]), int(sys.argv[3])
flows, qerr, m = s["flows"], s["qps_in_error"], s["messages"]
rec, why = s["flows_recovered"], s["recover_failed"]
bad = []
if qerr != 4 * flows:
    bad.append(f"qps_in_error {qerr}, want {4 * flows} (each flow: 3 recoveries, then down)")
if logged != qerr:
    bad.append(f"{logged} QPs logged as gone to ERROR, want {qerr}")
if rec != 3 * flows:
    bad.append(f"flows_recovered {rec}, want {3 * flows}")
if why["too_often"] != flows or sum(why.values()) != flows or down != flows:
    bad.append(f"recover_failed {why} ({down} logged), want too_often = {flows}, nothing else")
if m["completed"] != 0 or m["failed"] == 0 or m["failed"] != m["posted"] or m["lost"] != 0:
    bad.append(f"messages {m}: want every posted message failed, none lost")
for b in bad:
    print("qp_error: FAIL: null:", b)
print(f"qp_error: null: {qerr} QPs in error, {logged} logged, {rec} recoveries, "
      f"{why['too_often']} flows down, {m['failed']} of {m['posted']} messages failed")
sys.exit(1 if bad else 0)
PY
grep -q "QPs in error: .*flows recovered on a new QP pair: " null.log ||
	{ echo "qp_error: FAIL: null: no 'QPs in error ... flows recovered' line in the summary"; fails=$((fails + 1)); }

# 2. A 60 ms blackout of the whole fabric: both flows fail, come back, and run on.
set +e
"$mrcd" -- --set "daemon.scenario=$PWD/blackout90.ini" "${one_retry[@]}" \
	--duration 3 --json blackout.json > blackout.log 2>&1 &
pid=$!
# Once the flows are back (by about 0.7 s), telemetry shows the new pairs and the counts.
sock=
for _ in $(seq 50); do
	sock=$(grep -o '/var/run/dpdk/[^ ]*/dpdk_telemetry.v2' blackout.log 2>/dev/null)
	[ -n "$sock" ] && [ -S "$sock" ] && break
	sleep 0.1
done
sleep 2
/usr/bin/python3 "$src/scripts/mrc-telemetry.py" -s "$sock" /mrc/host,0 /mrc/host,1 /mrc/qps \
	> telemetry.json 2> telemetry.err
tel_rc=$?
/usr/bin/python3 "$src/scripts/mrc-telemetry.py" -s "$sock" /mrc/qp,0x100 > /dev/null 2>&1
old_rc=$?
wait $pid
rc=$?
set -e
[ "$tel_rc" = 0 ] || { cat telemetry.err; echo "qp_error: FAIL: blackout: telemetry exited $tel_rc"; fails=$((fails + 1)); }
[ "$old_rc" = 1 ] || { echo "qp_error: FAIL: blackout: /mrc/qp,0x100 (retired) answered ($old_rc)"; fails=$((fails + 1)); }
/usr/bin/python3 - telemetry.json <<'PY' || fails=$((fails + 1))
import json, sys
t = json.load(open(sys.argv[1]))
bad = []
for h in (0, 1):
    host = t[f"/mrc/host,{h}"]
    if host["flows_recovered"] != 1 or host["recover_failed"] != 0 or host["qps_in_error"] != 1:
        bad.append(f"/mrc/host,{h}: {host}: want 1 QP in error, 1 flow recovered, none failed")
qpns = sorted(int(k, 16) for k in t["/mrc/qps"])
# The flows' own QPNs are 0x100..0x103; the recovered pairs are spares from 0x104 on.
if len(qpns) != 4 or min(qpns) < 0x104:
    bad.append(f"/mrc/qps lists {[hex(q) for q in qpns]}: want the 4 QPs of the new pairs")
for b in bad:
    print("qp_error: FAIL: blackout telemetry:", b)
sys.exit(1 if bad else 0)
PY
grep -v '^EAL\|^TELEMETRY' blackout.log | tail -n 24
[ "$rc" = 1 ] || { echo "qp_error: FAIL: blackout: mrcd exited $rc, want 1 (messages failed)"; fails=$((fails + 1)); }
check_recovered blackout || fails=$((fails + 1))

# 3. The same blackout with two workers per host: each flow's ends are on shard g mod 2
#    of their hosts, and its new pair is a spare pair whose QPs live on that shard.
set +e
"$mrcd" -- --set "daemon.scenario=$PWD/blackout90.ini" "${one_retry[@]}" \
	--set lcores.workers_per_host=2 --duration 2 --json blackout2w.json > blackout2w.log 2>&1
rc=$?
set -e
grep -v '^EAL\|^TELEMETRY' blackout2w.log | tail -n 12
[ "$rc" = 1 ] || { echo "qp_error: FAIL: blackout2w: mrcd exited $rc, want 1 (messages failed)"; fails=$((fails + 1)); }
check_recovered blackout2w || fails=$((fails + 1))

# 4. Two workers per host, each flow's receiving end on the other shard index
#    (peer_shard = other): each flow comes back on a spare pair placed as it is,
#    its sending QP on one shard index and its receiving QP on the other.
set +e
"$mrcd" -- --set "daemon.scenario=$PWD/blackout90.ini" "${one_retry[@]}" \
	--set lcores.workers_per_host=2 --set lcores.peer_shard=other --duration 2 \
	--json split.json > split.log 2>&1
rc=$?
set -e
grep -v '^EAL\|^TELEMETRY' split.log | tail -n 12
[ "$rc" = 1 ] || { echo "qp_error: FAIL: split: mrcd exited $rc, want 1 (messages failed)"; fails=$((fails + 1)); }
check_recovered split || fails=$((fails + 1))
# 5. peer_shard = half with 4 QPs a pair (8 flows): half the flows on one shard
#    index, half on two, all failing at once; each comes back on a spare pair of
#    its own placement.
cat > half.ini <<'P'
[profile]
pattern = pairs
qps_per_peer = 4
P
set +e
"$mrcd" -- --set "daemon.scenario=$PWD/blackout90.ini" "${one_retry[@]}" \
	--set "daemon.profile=$PWD/half.ini" --set lcores.workers_per_host=2 \
	--set lcores.peer_shard=half --duration 2 --json half.json > half.log 2>&1
rc=$?
set -e
grep -v '^EAL\|^TELEMETRY' half.log | tail -n 6
[ "$rc" = 1 ] || { echo "qp_error: FAIL: half: mrcd exited $rc, want 1 (messages failed)"; fails=$((fails + 1)); }
check_recovered half || fails=$((fails + 1))
[ "$fails" = 0 ]
