#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# A QP that goes to ERROR is reported, not left dead and silent: the two
# hosts of config/examples/null.ini send into net_null ports, so nothing is
# ever acknowledged, and with a retry budget of one expiry every sending QP
# gives up (RETRY_EXCEEDED). mrcd must exit 1 (messages failed), log each
# such QP with its flow, count them in the summary and in --json
# (qps_in_error), and leave its runtime directory clean.
# Usage: qp_error.sh MRCD_BINARY WORKDIR
set -euo pipefail
mrcd=$(realpath "$1")
work=$2
src=$(realpath "$(dirname "$0")/../..")
mkdir -p "$work"
cd "$work"
rm -f summary.json
if [ "$(nproc)" -lt 2 ]; then
	echo "qp_error: needs 2 CPUs (main + worker lcore); skipping"
	exit 77
fi
set +e
"$mrcd" -- -f "$src/config/examples/null.ini" --set transport.retry_linear=1 \
	--set transport.retry_exp=0 --duration 1 --json summary.json > err.log 2>&1
rc=$?
set -e
grep -v '^EAL\|^TELEMETRY' err.log | tail -n 14
fails=0
[ "$rc" = 1 ] || { echo "qp_error: FAIL: mrcd exited $rc, want 1 (messages failed)"; fails=$((fails + 1)); }
logged=$(grep -c 'went to ERROR (retry count exceeded): the sending end of flow' err.log || true)
/usr/bin/python3 - summary.json "$logged" <<'PY' || fails=$((fails + 1))
import json, sys
s = json.load(open(sys.argv[1]))
logged = int(sys.argv[2])
flows, qerr, m = s["flows"], s["qps_in_error"], s["messages"]
bad = []
if qerr != flows:
    bad.append(f"qps_in_error {qerr}, want {flows} (every sending QP)")
if logged != flows:
    bad.append(f"{logged} QPs logged as gone to ERROR, want {flows}")
if m["failed"] == 0:
    bad.append(f"no message failed: {m}")
for b in bad:
    print("qp_error: FAIL:", b)
print(f"qp_error: {qerr} QPs in error reported, {logged} logged, {m['failed']} messages failed")
sys.exit(1 if bad else 0)
PY
grep -q "QPs in error: " err.log || { echo "qp_error: FAIL: no 'QPs in error' line in the summary"; fails=$((fails + 1)); }
[ "$fails" = 0 ]
