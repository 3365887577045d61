#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# A slow worker does not collapse: mrcd with config/examples/scale.ini (two
# hosts back to back in loop mode, one worker lcore, so no packet can be
# lost on a link) and 1,024 flows with 256 per host in flight, the worker
# slowed by [lcores] pass_delay_us = 50 (every pass spins 50 us more, as a
# slower or shared core would). The host's own queues then hold packets for
# milliseconds. Checked from the --json summary: every message posted
# completes, verified byte for byte, every flow completes messages, and
# resends stay under 0.1% of the data packets sent (before the timers
# waited for the host, most of them were resent: the collapse).
# Usage: slow_worker.sh MRCD_BINARY WORKDIR
set -euo pipefail
mrcd=$(realpath "$1")
work=$2
src=$(realpath "$(dirname "$0")/../..")
mkdir -p "$work"
cd "$work"
rm -f summary.json
if [ "$(nproc)" -lt 2 ]; then
	echo "slow_worker: needs 2 CPUs (main + worker lcore); skipping"
	exit 77
fi
set +e
"$mrcd" --no-huge -- -f "$src/config/examples/scale.ini" --set profile.qps_per_peer=512 \
	--set lcores.pass_delay_us=50 --duration 3 --json summary.json > slow.log 2>&1
rc=$?
set -e
grep -v '^EAL\|^TELEMETRY' slow.log | tail -n 16
if [ "$rc" != 0 ]; then
	echo "slow_worker: FAIL: mrcd exited $rc"
	exit 1
fi
/usr/bin/python3 "$src/test/integration/check_slow_worker.py" summary.json
