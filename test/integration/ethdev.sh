#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# mrcd on real DPDK ports ([ports] mode = ethdev), no emulated fabric:
#  1. memif-pair: two hosts joined back to back by eight net_memif links.
#     Every message completes, every byte is verified, every plane carries
#     traffic, and neither the parser nor the ports drop anything.
#  2. null: sixteen net_null ports. Sends vanish and host 1 receives
#     all-zero garbage: mrcd must refuse the garbage by reason (bad_ethertype),
#     back off instead of resending into the void at line rate, report the
#     posted messages as not completed, exit 1 for it, and still get every
#     mbuf back (no "not returned" line).
# Usage: ethdev.sh MRCD_BINARY WORKDIR
set -euo pipefail
mrcd=$(realpath "$1")
work=$2
cfg=$(realpath "$(dirname "$0")/../../config/examples")
mkdir -p "$work"
cd "$work"
rm -f memif.json null.json
if [ "$(nproc)" -lt 2 ]; then
	echo "ethdev: needs 2 CPUs (main + worker lcore); skipping"
	exit 77
fi
fails=0

set +e
"$mrcd" -- -f "$cfg/memif-pair.ini" --duration 2 --json memif.json > memif.log 2>&1
rc=$?
set -e
grep -E "links up|link still|summary|messages:|data:|drops:" memif.log || true
if [ "$rc" != 0 ]; then
	echo "ethdev: FAIL: memif-pair: mrcd exited $rc"
	tail -n 20 memif.log
	fails=$((fails + 1))
fi

set +e
"$mrcd" -- -f "$cfg/null.ini" --duration 2 --json null.json > null.log 2>&1
rc=$?
set -e
grep -E "summary|messages:|transport:|drops:" null.log || true
if [ "$rc" != 1 ]; then
	echo "ethdev: FAIL: null: mrcd exited $rc; 1 expected (nothing can complete)"
	tail -n 20 null.log
	fails=$((fails + 1))
fi
if grep -q "not returned" memif.log null.log; then
	echo "ethdev: FAIL: mbufs not returned at exit"
	fails=$((fails + 1))
fi

/usr/bin/python3 - memif.json null.json <<'PY' || fails=$((fails + 1))
import json, os, sys
bad = []
if os.path.exists(sys.argv[1]):
    s = json.load(open(sys.argv[1]))
    m, dr = s["messages"], s["drops"]
    if m["completed"] < 100 or m["lost"] or m["failed"] or s["verify_errors"]:
        bad.append(f"memif-pair: messages {m}, verify errors {s['verify_errors']}")
    if s["bytes_verified"] < m["completed"] * 1024 * 1024 * 0.9:
        bad.append("memif-pair: data not verified")
    if len(s["plane_gbps"]) != 8 or min(s["plane_gbps"]) <= 0:
        bad.append(f"memif-pair: a plane carried nothing: {s['plane_gbps']}")
    if dr["parser"] or dr["port_ierrors"] or dr["port_oerrors"] or dr["port_imissed"]:
        bad.append(f"memif-pair: drops {dr}")
    if any(k.startswith("fabric_") for k in dr):
        bad.append(f"memif-pair: fabric counters without a fabric: {sorted(dr)}")
    print(f"ethdev: memif-pair: {m['completed']} messages, {s['goodput_gbps']:.2f} Gb/s goodput, "
          f"{s['retransmits']} resent")
else:
    bad.append("memif-pair: no summary")
if os.path.exists(sys.argv[2]):
    s = json.load(open(sys.argv[2]))
    m = s["messages"]
    if m["posted"] == 0 or m["completed"] != 0 or m["lost"] != m["posted"]:
        bad.append(f"null: messages {m}: every posted message should be reported lost")
    if s["drops"]["parser"] == 0:
        bad.append("null: host 1's garbage frames were not counted")
    # 2 QPs x 1024 packets in flight; resending the window every packet
    # timeout for 2 s would be millions. Backing off keeps it to tens of
    # thousands: fail well above that.
    if s["retransmits"] > 200000:
        bad.append(f"null: {s['retransmits']} resends into the void: no backoff")
    print(f"ethdev: null: {m['posted']} posted, 0 completed as expected, "
          f"{s['retransmits']} resent, {s['drops']['parser']} garbage frames refused")
else:
    bad.append("null: no summary")
for b in bad:
    print("ethdev: FAIL:", b)
sys.exit(1 if bad else 0)
PY
echo "ethdev: $((fails == 0 ? 1 : 0)) passed, $fails failed"
[ "$fails" = 0 ]
