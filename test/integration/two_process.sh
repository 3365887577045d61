#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# One cluster, two processes: host 0 and host 1 each run in their own mrcd,
# joined by eight net_memif links (host 0 the memif server of each). Nothing
# is exchanged between them but packets: QPNs, region layouts and keys are
# derived from the same config at both ends. Each sends 150 1 MiB messages
# (a message count, so neither depends on when the other stops); when
# telemetry shows both done, both get SIGTERM at once, and each waits
# close_delay_ms after its workers stop before closing its ports. (In DPDK
# 22.11 a memif peer that closes while the other side is inside an rx burst
# can crash the poller, because the disconnect unmaps the shared rings under
# it; the two drains can differ by up to drain_ms, 500 ms.) Both wait the
# same time, so each closes while its peer's disconnect arrives: mrcd closes
# memif ports on the EAL interrupt thread, where net_memif handles that
# disconnect (app/common/mrcd_ports_close.c). Checked: both exit 0 (every mempool
# full again), every message completes, every byte is verified at the
# receiving process, and the two instances poll on different CPUs (or one
# shares the other's sleeping main CPU through --lcores).
# Usage: two_process.sh MRCD_BINARY WORKDIR
set -euo pipefail
mrcd=$(realpath "$1")
work=$2
. "$(dirname "$0")/lib.sh"
mkdir -p "$work"
cd "$work"
rm -f h?.json h?.log
if [ "$(nproc)" -lt 2 ]; then
	echo "two_process: needs 2 CPUs; skipping"
	exit 77
fi
sock=/run/mrcd-test-2p-$$.sock
cat > profile.ini <<'P'
[profile]
pattern = pairs
msg_kb = 1024
outstanding = 4
messages = 150
verify = true
P
for h in 0 1; do
	role=$([ $h = 0 ] && echo server || echo client)
	{
		printf '[daemon]\nhosts = 1\nplanes = 8\nfirst_host = %s\ncluster_hosts = 2\n' $h
		printf 'duration_s = 0\nprofile = %s/profile.ini\nscenario = none\n\n' "$PWD"
		printf '[ports]\nmode = ethdev\nrx_mbuf_data_room = 4736\nclose_delay_ms = 1500\n'
		for p in 0 1 2 3 4 5 6 7; do
			echo "vdev.$p = net_memif$p,role=$role,id=$p,socket=$sock,bsize=8192"
			echo "h$h.p$p = net_memif$p"
		done
		printf '\n[transport]\nencap = plain\n\n[telemetry]\ntimeseries = none\nprometheus = none\n'
	} > h$h.ini
done
"$mrcd" -- -f h0.ini --set control.socket="$PWD/h0.sock" --json h0.json > h0.log 2>&1 &
pid0=$!
sleep 0.3
"$mrcd" -- -f h1.ini --set control.socket="$PWD/h1.sock" --json h1.json > h1.log 2>&1 &
pid1=$!
# Both done (150 messages each way completed), or 60 s: then stop both at once.
for _ in $(seq 600); do
	done_n=0
	for h in 0 1; do
		[ "$(mrc_msgs_completed h$h.log)" = 150 ] && done_n=$((done_n + 1))
	done
	[ "$done_n" = 2 ] && break
	kill -0 $pid0 2>/dev/null && kill -0 $pid1 2>/dev/null || break
	sleep 0.1
done
kill -TERM $pid0 $pid1 2>/dev/null || true
set +e
wait $pid0
rc0=$?
wait $pid1
rc1=$?
set -e
fails=0
for h in 0 1; do
	grep -E "EAL |links up|link still|messages:|data:|transport:" h$h.log | sed 's/--vdev=[^ ]* //g' || true
done
[ "$rc0" = 0 ] || { echo "two_process: FAIL: host 0's mrcd exited $rc0"; tail -5 h0.log; fails=$((fails + 1)); }
[ "$rc1" = 0 ] || { echo "two_process: FAIL: host 1's mrcd exited $rc1"; tail -5 h1.log; fails=$((fails + 1)); }
/usr/bin/python3 - h0.json h1.json <<'PY' || fails=$((fails + 1))
import json, sys
bad = []
for f in sys.argv[1:]:
    try:
        s = json.load(open(f))
    except (OSError, ValueError) as e:
        bad.append(f"{f}: {e}")
        continue
    m = s["messages"]
    if m["posted"] != 150 or m["completed"] != 150 or m["lost"] or m["failed"]:
        bad.append(f"{f}: messages {m}")
    if s["bytes_verified"] != 150 * 1024 * 1024 or s["verify_errors"]:
        bad.append(f"{f}: verified {s['bytes_verified']} bytes, {s['verify_errors']} errors")
    print(f"two_process: {f}: {m['completed']} messages out, {s['bytes_verified']} bytes in "
          f"verified, {s['retransmits']} resent")
for b in bad:
    print("two_process: FAIL:", b)
sys.exit(1 if bad else 0)
PY
echo "two_process: $((fails == 0 ? 1 : 0)) passed, $fails failed"
[ "$fails" = 0 ]
