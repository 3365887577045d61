#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# mrcd on net_pcap ports, and hostile traffic replayed into it.
#  1. Host 0 alone (host 1 of the cluster is elsewhere) writes what it sends
#     to tx_pcap; every frame must parse whole with a good ICRC (mrc-dump),
#     and tshark with our dissector must decode them as MRC.
#  2. Host 1 alone replays that as what it receives and answers: its
#     capture holds real data packets for host 0's receiver QP and real
#     SACKs for host 0's sender QP.
#  3. mrc-hostile turns those into attacks (truncated, bad ICRC, unknown QP,
#     PSN outside the window, write outside the region, stale rkey, SACK for
#     PSNs never sent) after 4 valid data packets.
#  4. Host 0 gets that replayed. Checked with telemetry while it runs: each
#     attack is counted by its own reason, exactly once; the 4 valid
#     packets, and only they, are placed; both QPs stay usable (RTS).
# Usage: pcap_replay.sh MRCD_BINARY MRC_HOSTILE MRC_DUMP WORKDIR
set -euo pipefail
mrcd=$(realpath "$1")
hostile=$(realpath "$2")
dump=$(realpath "$3")
work=$4
src=$(realpath "$(dirname "$0")/../..")
mkdir -p "$work"
cd "$work"
rm -f ./*.pcap ./*.ini ./*.log ./*.json
if [ "$(nproc)" -lt 2 ]; then
	echo "pcap_replay: needs 2 CPUs; skipping"
	exit 77
fi
empty() { printf '\xd4\xc3\xb2\xa1\x02\x00\x04\x00\x00\x00\x00\x00\x00\x00\x00\x00\xff\xff\x00\x00\x01\x00\x00\x00' > "$1"; }
cat > profile.ini <<'P'
[profile]
pattern = pairs
msg_kb = 128
outstanding = 1
messages = 1
verify = true
P
# host_ini HOST RX0 RX1 TX0 TX1 DURATION
host_ini() {
	printf '[daemon]\nhosts = 1\nplanes = 2\nfirst_host = %s\ncluster_hosts = 2\n' "$1"
	printf 'duration_s = %s\ndrain_ms = 0\nprofile = %s/profile.ini\nscenario = none\n\n' "$6" "$PWD"
	# The captures hold what the QPs send and nothing else: no neighbour discovery.
	printf '[ports]\nmode = ethdev\nrx_mbuf_data_room = 4736\nneighbour_discovery = false\n'
	printf 'vdev.0 = net_pcap0,rx_pcap=%s,tx_pcap=%s\n' "$2" "$4"
	printf 'vdev.1 = net_pcap1,rx_pcap=%s,tx_pcap=%s\n' "$3" "$5"
	printf 'h%s.p0 = net_pcap0\nh%s.p1 = net_pcap1\n' "$1" "$1"
	printf '\n[telemetry]\ntimeseries = none\nprometheus = none\n'
}
fails=0
fail() { echo "pcap_replay: FAIL: $*"; fails=$((fails + 1)); }

# 1. Host 0 sends into a capture.
empty e0.pcap
empty e1.pcap
host_ini 0 e0.pcap e1.pcap a0.pcap a1.pcap 1 > h0.ini
"$mrcd" -- -f h0.ini > h0.log 2>&1 || true # nothing is ever acknowledged: exit 1 is expected
for p in 0 1; do
	out=$("$dump" "a$p.pcap" | tail -n 1)
	echo "pcap_replay: a$p.pcap: $out"
	n=$(echo "$out" | sed -n 's/^# \([0-9]*\) packets: \([0-9]*\) ok.*/\1 \2/p')
	set -- $n
	{ [ -n "$n" ] && [ "$1" -gt 32 ] && [ "$1" = "$2" ]; } || fail "a$p.pcap: not every frame is a whole MRC packet"
done
# Heuristics first, as the golden suite and doc/captures.md do: otherwise
# tshark decodes a packet by its lower UDP port, and an endpoint request
# whose EV put 2269 in its source port reads as MIKEY.
if command -v tshark > /dev/null; then
	bad=$(tshark -X lua_script:"$src/scripts/wireshark/mrc.lua" -o udp.try_heuristic_first:TRUE -r a0.pcap -Y '!mrc || _ws.malformed' 2>/dev/null | wc -l)
	mrc=$(tshark -X lua_script:"$src/scripts/wireshark/mrc.lua" -o udp.try_heuristic_first:TRUE -r a0.pcap -Y 'mrc' 2>/dev/null | wc -l)
	echo "pcap_replay: tshark: $mrc MRC frames, $bad not MRC or malformed"
	{ [ "$mrc" -gt 32 ] && [ "$bad" = 0 ]; } || fail "tshark does not read a0.pcap as MRC"
fi

# 2. Host 1 receives that and answers.
host_ini 1 a0.pcap a1.pcap b0.pcap b1.pcap 1 > h1.ini
"$mrcd" -- -f h1.ini > h1.log 2>&1 || true

# 3. Attacks built from host 1's real packets.
"$hostile" b0.pcap hostile.pcap 0x103 0x100 | tee hostile.txt || { fail "mrc-hostile"; exit 1; }

# 4. Replayed into host 0.
# It runs 6 s; the query comes 1 s after traffic starts. mrcd may take long
# to start on a busy machine: wait for what matters, its telemetry socket
# and its "running" line, for up to 60 s, and say so if it never comes.
host_ini 0 hostile.pcap e1.pcap c0.pcap c1.pcap 6 > h0r.ini
"$mrcd" -- -f h0r.ini > h0r.log 2>&1 &
pid=$!
sock=
for _ in $(seq 600); do
	sock=$(grep -o '/var/run/dpdk/[^ ]*/dpdk_telemetry.v2' h0r.log 2>/dev/null || true)
	[ -n "$sock" ] && [ -S "$sock" ] && grep -q "running" h0r.log && break
	kill -0 $pid 2>/dev/null || break
	sock=
	sleep 0.1
done
if [ -z "$sock" ]; then
	fail "mrcd did not start within 60 s (or exited): $(tail -n 3 h0r.log)"
	kill $pid 2>/dev/null || true
	wait $pid || true
	exit 1
fi
sleep 1
/usr/bin/python3 "$src/scripts/mrc-telemetry.py" -s "$sock" /mrc/drops,0 /mrc/qp,0x103 \
	/mrc/qp,0x100 > tel.json || fail "telemetry query"
wait $pid || true
/usr/bin/python3 - tel.json <<'PY' || fails=$((fails + 1))
import json, sys
t = json.load(open(sys.argv[1]))
d, r, s = t["/mrc/drops,0"], t["/mrc/qp,0x103"], t["/mrc/qp,0x100"]
want = [
    ("truncated frames refused by the parser", d["rx_truncated"], 2),
    ("bad ICRC refused by the parser", d["rx_bad_icrc"], 1),
    ("unknown QPN counted by the host", d["rx_unknown_qpn"], 1),
    ("PSN outside the window (NACKed)", r["rx_oor_pkts"], 1),
    ("writes outside the region or with a stale rkey", r["rx_bad_rkey"], 2),
    ("valid data packets placed", r["rx_data_pkts"], 4),
    ("bytes placed", r["rx_data_bytes"], 4 * 4096),
    ("duplicates", r["rx_dup_pkts"], 0),
    ("SACK for PSNs never sent, ignored", s["rx_sacks_refused"], 1),
    ("SACKs accepted by the sender", s["rx_sacks"] - s["rx_sacks_refused"], 0),
]
others = {k: v for k, v in d.items() if k.startswith("rx_") and k not in
          ("rx_parsed_ok", "rx_truncated", "rx_bad_icrc", "rx_unknown_qpn") and v}
bad = [f"{what}: {got}, expected {exp}" for what, got, exp in want if got != exp]
if others:
    bad.append(f"other parser rejects: {others}")
if r["state"] != "RTS" or s["state"] != "RTS":
    bad.append(f"QP states {r['state']} / {s['state']}, expected RTS")
for what, got, exp in want:
    print(f"pcap_replay: {what}: {got}")
for b in bad:
    print("pcap_replay: FAIL:", b)
sys.exit(1 if bad else 0)
PY
grep -q "not returned" h0.log h1.log h0r.log && fail "mbufs not returned at exit"
echo "pcap_replay: $((fails == 0 ? 1 : 0)) passed, $fails failed"
[ "$fails" = 0 ]
