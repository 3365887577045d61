#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# The time series does not grow without bound: the demo for 3 s with a
# sample every 10 ms and [telemetry] timeseries_max_kb = 16. The file
# must have been rotated (FILE.1 exists), neither file may pass the cap by
# more than one line, every line of both must be JSON, and the newest
# sample (the end of the run) is in FILE, or ends FILE.1 when FILE holds
# only the fault timeline written at the close.
# Usage: timeseries_cap.sh MRCD_BINARY WORKDIR
set -euo pipefail
mrcd=$(realpath "$1")
work=$2
mkdir -p "$work"
cd "$work"
rm -f ts.jsonl ts.jsonl.1
if [ "$(nproc)" -lt 2 ]; then
	echo "timeseries_cap: needs 2 CPUs (main + worker lcore); skipping"
	exit 77
fi
"$mrcd" -- --duration 3 --set telemetry.timeseries=ts.jsonl --set telemetry.timeseries_max_kb=16 \
	--set telemetry.timeseries_interval_ms=10 --set lcores.stats_interval_ms=1 \
	--set telemetry.prometheus=none > cap.log 2>&1 ||
	{ tail -n 20 cap.log; echo "timeseries_cap: FAIL: mrcd exited non-zero"; exit 1; }
/usr/bin/python3 - ts.jsonl <<'PY'
import json, os, sys
path = sys.argv[1]
fails = []
if not os.path.exists(path + ".1"):
    fails.append("never rotated: no " + path + ".1")
for f in (path, path + ".1"):
    if not os.path.exists(f):
        continue
    size = os.path.getsize(f)
    lines = open(f).read().splitlines()
    longest = max((len(l) + 1 for l in lines), default=0)
    if size > 16 * 1024 + longest:
        fails.append(f"{f}: {size} bytes, over the 16 KiB cap by more than a line")
    for n, l in enumerate(lines, 1):
        try:
            json.loads(l)
        except ValueError as e:
            fails.append(f"{f}:{n}: not JSON: {e}")
            break
def samples(f):
    if not os.path.exists(f):
        return []
    return [json.loads(l) for l in open(f).read().splitlines() if '"plane_gbps"' in l]
# The newest sample is in FILE, or, when the run's last sample filled FILE
# and it rotated just before the fault timeline (written at the close), it
# ends FILE.1 and FILE holds the timeline alone.
cur, old = samples(path), samples(path + ".1")
newest = (cur or old)[-1] if (cur or old) else None
if newest is None or newest["t"] < 2.5:
    fails.append(f"{path} does not end with the run's last samples")
elif cur and old and cur[-1]["t"] < old[-1]["t"]:
    fails.append(f"{path} holds older samples than {path}.1")
for f in fails:
    print("timeseries_cap: FAIL:", f)
print(f"timeseries_cap: {path} {os.path.getsize(path)} B, {path}.1 "
      f"{os.path.getsize(path + '.1') if os.path.exists(path + '.1') else 0} B")
sys.exit(1 if fails else 0)
PY
