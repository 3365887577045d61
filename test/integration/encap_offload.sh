#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# [ports] encap_offload (doc/offload.md): each port is probed with the
# egress encap rule and says what it answered; where it takes it, the
# workers' packets take the rules made as the QPs were.
#   fabric-auto: the emulated fabric's ports (recording backend) accept the
#                rule; every packet the workers send leaves without its
#                outer header, keyed to a rule, and the fabric's host ports
#                add it (the fabric counts as many encapsulations as the
#                workers keyed packets, none without a rule); every message
#                completes and verifies: the fabric routed every packet by
#                the outer header the rule wrote, the receiver read each EV
#                back from it and echoed it in SACKs that found their path;
#   null-auto:   net_null ports (rte_flow: ENOSYS) fall back, saying why
#                (nothing completes on them: mrcd exits 1);
#   null-on:     the same ports refuse to start, naming the port, its
#                driver and the driver's reason;
#   loop-auto:   plain mode (loop pairs, one worker): nothing to offload;
#   fabric-full: 4096 EVs a QP: each port's rule table fills; the port says
#                software, the refusal is counted, the packets whose EVs
#                have rules go through them and the rest in software
#                (counted), every message still verified;
#   fabric-off:  the default probes nothing and says so: every header in
#                software (the software mode the goodput line compares).
#   loop-nd:     loop pairs, two workers a host (the emulated NIC applies
#                the rules), each plane's next hop (the other host) named
#                by address only: neighbour discovery resolves its MAC, the
#                rules are made then, and every packet goes through them
#                (none in software: a plane enters rotation with its rules),
#                every key found by the loop's NIC, none remade;
#   loop-nd-down: the same, planes 0 and 1 set down by hand from 300 to
#                500 ms ([ports] admin_down_* drill): their rules are taken
#                out of use (software headers, counted in sw_no_port), a
#                grace, destroyed, and made again when the ports are back
#                (encap_remakes 1 on those ports, 0 elsewhere); no message
#                lost or failed, no keyed packet without its rule;
#   fabric-recover: a 60 ms blackout and a retry budget of one expiry: both
#                flows' QPs fail and are made again; the new QPs read their
#                destination's rules (packets on EVs without one counted in
#                sw_no_rule, none uncounted);
# Bytes on the wire identical to the software mode (mrc-encap-check): the
# fabric captures what the hosts' NICs sent in fabric-auto, fabric-off,
# fabric-recover and fabric-on-2w (two workers a host: the destination
# worker's micro-SID in each path) ([fabric] capture), and every MRC packet's outer header
# must be what the software build writes for its EV and class (loop-nd too:
# the loop pairs' NICs capture, with the MACs neighbour discovery resolved); the same
# capture with one outer byte flipped must fail, naming that packet.
# (The engine's twin, the unit test "encap", compares the two modes too.)
# Usage: encap_offload.sh MRCD_BINARY WORKDIR MRC_ENCAP_CHECK
set -euo pipefail
mrcd=$(realpath "$1")
work=$2
check=$(realpath "$3")
src=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$work"
cd "$work"
rm -f ./*.json ./*.log ./*.pcap
common=(--duration 1 --set telemetry.timeseries=none --set telemetry.prometheus=none)
fails=0
run() { # NAME EXIT_STATUS CONFIG ARGS...
	local name=$1 want=$2 cfg=$3 rc=0
	shift 3
	"$mrcd" -- -f "$cfg" "${common[@]}" "$@" --json "$name.json" > "$name.log" 2>&1 || rc=$?
	if [ "$rc" != "$want" ]; then
		echo "encap_offload: FAIL: $name: mrcd exited $rc, $want expected"
		grep -v -- '--vdev' "$name.log" | tail -15
		fails=$((fails + 1))
	fi
}
cap=(--set fabric.capture_pkts=16384)
run fabric-auto 0 "$src/config/mrcd.ini" --set transport.encap=srv6 --set ports.encap_offload=auto \
	"${cap[@]}" --set fabric.capture=fabric-auto.pcap
run null-auto 1 "$src/config/examples/null.ini" --set transport.encap=srv6 \
	--set ports.encap_offload=auto
run loop-auto 0 "$src/config/examples/loop.ini" --set ports.encap_offload=auto
run fabric-off 0 "$src/config/mrcd.ini" --set transport.encap=srv6 "${cap[@]}" \
	--set fabric.capture=fabric-off.pcap
# exits 1: the messages in flight when the QPs failed
run fabric-recover 1 "$src/config/mrcd.ini" --set transport.encap=srv6 \
	--set ports.encap_offload=auto --set transport.retry_linear=1 --set transport.retry_exp=0 \
	--set "daemon.scenario=$src/config/scenarios/fabric-blackout.ini" \
	"${cap[@]}" --set fabric.capture=fabric-recover.pcap
# 4096 EVs a QP: more rules than a port of the recording backend holds (4096)
run fabric-full 0 "$src/config/mrcd.ini" --set transport.encap=srv6 \
	--set ports.encap_offload=auto --set transport.ev_active=4096 --set transport.ev_backup=0
# Next hops by address only (loop pairs: the other host's link-local address, from its
# default MAC 02:6d:72:00:<n>:<p>): neighbour discovery resolves them, then the rules are made.
nd=()
for p in 0 1 2 3 4 5 6 7; do
	nd+=(--set "host.0.next_hop.p$p=fe80::6d:72ff:fe00:$(printf '%x' $((0x100 + p)))"
		--set "host.1.next_hop.p$p=fe80::6d:72ff:fe00:$p")
done
run loop-nd 0 "$src/config/examples/loop.ini" --set transport.encap=srv6 \
	--set ports.encap_offload=auto --set lcores.workers_per_host=2 "${nd[@]}" "${cap[@]}" \
	--set fabric.capture=loop-nd.pcap
run loop-nd-down 0 "$src/config/examples/loop.ini" --set transport.encap=srv6 \
	--set ports.encap_offload=auto --set lcores.workers_per_host=2 "${nd[@]}" \
	--set ports.admin_down_planes=3 --set ports.admin_down_at_ms=300 --set ports.admin_down_ms=200
# encap_offload = on with 2 workers a host (a table per worker and destination), and
# /mrc/ports asked while it runs
"$mrcd" -- -f "$src/config/mrcd.ini" --duration 3 --set telemetry.timeseries=none \
	--set telemetry.prometheus=none --set transport.encap=srv6 --set ports.encap_offload=on \
	--set lcores.workers_per_host=2 "${cap[@]}" --set fabric.capture=fabric-on-2w.pcap \
	--json fabric-on-2w.json > fabric-on-2w.log 2>&1 &
pid=$!
trap 'kill "$pid" 2> /dev/null || true' EXIT
sock=
for _ in $(seq 100); do
	sock=$(grep -o '/var/run/dpdk/[^ ]*/dpdk_telemetry.v2' fabric-on-2w.log 2> /dev/null || true)
	[ -n "$sock" ] && [ -S "$sock" ] && break
	sleep 0.1
done
sleep 1.5
/usr/bin/python3 "$src/scripts/mrc-telemetry.py" -s "$sock" /mrc/ports,0 > ports.json 2> ports.err ||
	{ echo "encap_offload: FAIL: /mrc/ports,0: $(cat ports.err)"; fails=$((fails + 1)); }
wait "$pid" || { echo "encap_offload: FAIL: fabric-on-2w: mrcd exited $?"; fails=$((fails + 1)); }
trap - EXIT
/usr/bin/python3 - <<'PY' || fails=$((fails + 1))
import json, sys
want = {  # run: (rule accepted, words the why must hold, the ports' mode)
    "fabric-auto": (True, "recording probe: rule accepted", "nic"),
    "null-auto": (False, "auto: rte_flow probe", "software"),
    "loop-auto": (False, "auto: [transport] encap = plain", "software"),
    "fabric-off": (False, "[ports] encap_offload = off", "software"),
    "fabric-on-2w": (True, "recording probe: rule accepted", "nic"),
    "fabric-full": (True, "recording probe: rule accepted", "software"),
    "fabric-recover": (True, "recording probe: rule accepted", "nic"),
    "loop-nd": (True, "neighbour discovery resolves the next hop", "nic"),
    "loop-nd-down": (True, "neighbour discovery resolves the next hop", "nic"),
}
runs = {}
bad = []
for name, (ok, words, mode) in want.items():
    try:
        s = json.load(open(name + ".json"))
    except (OSError, ValueError) as e:
        bad.append(f"{name}: {e}")
        continue
    runs[name] = s
    m = s["messages"]
    if name != "null-auto" and (m["completed"] == 0 or s["verify_errors"]
                                or (m["failed"] and name != "fabric-recover")):
        bad.append(f"{name}: messages {m}, {s['verify_errors']} verify errors")
    if not s["ports"]:
        bad.append(f"{name}: no ports")
    full = name == "fabric-full"  # every port's table fills: one refusal each, then no more
    for p in s["ports"]:
        if p["encap_offload"] != mode or p["encap_rule_accepted"] != ok \
                or words not in p["encap_why"] or p["encap_rule_fails"] != int(full) \
                or (p["encap_rules"] > 0) != (mode == "nic" or full) \
                or (full and p["encap_rules"] != 4096):
            bad.append(f"{name}: port {p}")
    nic = sum(e["nic"] for e in s["encap_pkts"])
    sw = sum(e["sw_no_port"] + e["sw_no_rule"] for e in s["encap_pkts"])
    fab = s.get("fabric_nic", s.get("loop_nic", {"encap_pkts": 0, "encap_nomatch_pkts": 0,
                                                 "encap_noroom_pkts": 0}))
    remade = [p.get("encap_remakes") for p in s["ports"]]
    if remade != [int(name == "loop-nd-down" and p["plane"] < 2) for p in s["ports"]]:
        bad.append(f"{name}: rules remade: {remade}")
    if any(e["sw_no_table"] or e["sw_epreq"] for e in s["encap_pkts"]):
        bad.append(f"{name}: packets of QPs without a table: {s['encap_pkts']}")
    if name == "loop-nd-down":
        # planes 0 and 1 down and back: their rules out of use, destroyed, made again;
        # what was built meanwhile counted in sw_no_port; no keyed packet lacked its rule
        m = s["messages"]
        if nic == 0 or m["lost"] or m["failed"] or m["completed"] != m["posted"] \
                or any(e["sw_no_rule"] for e in s["encap_pkts"]) \
                or fab["encap_pkts"] != nic or fab["encap_nomatch_pkts"]:
            bad.append(f"{name}: messages {m}, keyed {nic}, software {sw}, fabric {fab}")
    elif name == "fabric-recover":
        # the new QPs read the rules the first pair left: through them where their EVs
        # have one, the rest in software, counted; every packet the fabric took keyed
        rec = s["flows_recovered"]
        if rec != s["flows"] or nic == 0 or sw == 0 \
                or any(e["sw_no_port"] for e in s["encap_pkts"]) \
                or fab["encap_pkts"] != nic or fab["encap_nomatch_pkts"]:
            bad.append(f"{name}: {rec} flows recovered, keyed {nic}, software {sw}, "
                       f"fabric {fab}")
    elif full:
        # the EVs with rules go through them, the rest in software, counted
        if nic == 0 or sw == 0 or any(e["sw_no_port"] for e in s["encap_pkts"]) \
                or fab["encap_pkts"] != nic or fab["encap_nomatch_pkts"]:
            bad.append(f"{name}: keyed {nic}, software {sw}, fabric {fab}")
    elif mode == "nic":
        # every packet a worker sent went through a rule (no fallback), and the
        # emulated NIC applied exactly those
        if nic == 0 or sw != 0 or fab["encap_pkts"] != nic or fab["encap_nomatch_pkts"] \
                or fab["encap_noroom_pkts"] or nic < s["data_pkts_sent"]:
            bad.append(f"{name}: keyed {nic}, software {sw}, fabric {fab}, "
                       f"data sent {s['data_pkts_sent']}")
    elif nic or fab["encap_pkts"]:
        bad.append(f"{name}: {nic} packets keyed, fabric encapsulated {fab['encap_pkts']}")
    print(f"encap_offload: {name}: {nic} packets through rules, {sw} without one; "
          f"rules on its first ports {[p['encap_rules'] for p in s['ports']][:2]}")
    print(f"encap_offload: {name}: {len(s['ports'])} ports: {s['ports'][0]['encap_why']}")
try:  # /mrc/ports while fabric-on-2w ran: every port keyed, packets through rules
    t = json.load(open("ports.json"))["/mrc/ports,0"]
    if set(t["encap_offload"]) != {"nic"} or min(t["encap_rules"]) == 0 \
            or max(t["encap_rule_fails"]) or t["encap_nic_pkts"] == 0 \
            or t["encap_sw_no_port_pkts"] or t["encap_sw_no_rule_pkts"]:
        bad.append(f"/mrc/ports,0: {t}")
except (OSError, ValueError, KeyError) as e:
    bad.append(f"/mrc/ports,0: {e}")
if "fabric-auto" in runs and "fabric-off" in runs:
    def rate(s):  # goodput, and per CPU-second of the workers (which run the fabric too)
        cpu = sum(s["worker_cpu_s_each"])
        return s["goodput_gbps"], s["goodput_gbps"] / cpu if cpu else 0
    (g_nic, c_nic), (g_sw, c_sw) = rate(runs["fabric-auto"]), rate(runs["fabric-off"])
    print(f"encap_offload: goodput, 1 s each: encap by the (emulated) NIC {g_nic:.3f} Gb/s "
          f"({c_nic:.3f} per worker CPU-s), in software {g_sw:.3f} Gb/s ({c_sw:.3f}); "
          f"ratio {g_nic / g_sw if g_sw else 0:.3f}, per CPU-s {c_nic / c_sw if c_sw else 0:.3f}")
for b in bad:
    print("encap_offload: FAIL:", b)
sys.exit(1 if bad else 0)
PY
# Every captured packet's outer header is the software build's, in both modes; a flipped
# byte is found.
for name in fabric-auto fabric-off fabric-recover fabric-on-2w; do
	w=1
	[ "$name" = fabric-on-2w ] && w=2 # the destination worker's micro-SID in every path
	if ! "$check" -f "$src/config/mrcd.ini" --set transport.encap=srv6 \
		--set "lcores.workers_per_host=$w" "$name.pcap" \
		> "$name.check" 2>&1 ||
		! grep -Eq '^mrc-encap-check: 16384 packets: 16384 MRC SRv6 packets checked, 16384 match' \
			"$name.check"; then
		echo "encap_offload: FAIL: $name: the capture is not the software build:"
		grep -v '^EAL' "$name.check" | tail -3
		fails=$((fails + 1))
	else
		tail -1 "$name.check"
	fi
done
# loop-nd: the loop pairs' NICs captured what they sent; the outer headers are the software
# build's once the QPs send to the MACs neighbour discovery found (the other host's ports), and
# not the configured peer_mac's (the rules were made with the resolved MAC).
mac=()
for p in 0 1 2 3 4 5 6 7; do
	mac+=(--set "host.0.peer_mac.p$p=02:6d:72:00:01:0$p" --set "host.1.peer_mac.p$p=02:6d:72:00:00:0$p")
done
loopset=(-f "$src/config/examples/loop.ini" --set transport.encap=srv6 --set lcores.workers_per_host=2)
if ! "$check" "${loopset[@]}" "${mac[@]}" loop-nd.pcap > loop-nd.check 2>&1 ||
	! grep -Eq '^mrc-encap-check: 16384 packets: ([0-9]{5}) MRC SRv6 packets checked, \1 match' \
		loop-nd.check; then
	echo "encap_offload: FAIL: loop-nd: the capture is not the software build:"
	grep -v '^EAL' loop-nd.check | tail -3
	fails=$((fails + 1))
else
	tail -1 loop-nd.check
fi
rc=0
"$check" "${loopset[@]}" loop-nd.pcap > loop-nd-config-mac.check 2>&1 || rc=$?
if [ "$rc" != 1 ] || ! grep -q 'MISMATCH .*(Ethernet destination)' \
	loop-nd-config-mac.check; then
	echo "encap_offload: FAIL: loop-nd: the rules do not carry the resolved MAC (exit $rc)"
	fails=$((fails + 1))
fi
/usr/bin/python3 - fabric-auto.pcap bad.pcap <<'PY'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
off = 24
for _ in range(99):  # to packet 100
    off += 16 + int.from_bytes(b[off + 8:off + 12], "little")
b[off + 16 + 14 + 39] ^= 1  # its outer IPv6 destination's last byte
open(sys.argv[2], "wb").write(b)
PY
rc=0
"$check" -f "$src/config/mrcd.ini" --set transport.encap=srv6 bad.pcap > bad.check 2>&1 || rc=$?
if [ "$rc" != 1 ] || ! grep -q '^bad.pcap: packet 100: MISMATCH .*byte 53 (outer IPv6 destination)' \
	bad.check; then
	echo "encap_offload: FAIL: a flipped byte in packet 100 went unseen (exit $rc):"
	tail -3 bad.check
	fails=$((fails + 1))
fi
grep -q 'encap rule 4097 (key 0x[0-9a-f]*) refused after 4096: .*table full' fabric-full.log ||
	{ echo "encap_offload: FAIL: fabric-full: no line for the refused rule"; fails=$((fails + 1)); }
for name in null-auto loop-auto; do
	grep -q 'SRv6 encap in software' "$name.log" ||
		{ echo "encap_offload: FAIL: $name: no start-up line for encap"; fails=$((fails + 1)); }
done
grep -q 'SRv6 encap by the NIC' fabric-auto.log ||
	{ echo "encap_offload: FAIL: fabric-auto: no start-up line for encap"; fails=$((fails + 1)); }
# encap_offload = on where the port refuses the rule: refused, naming port and reason.
if "$mrcd" -- -f "$src/config/examples/null.ini" "${common[@]}" --set transport.encap=srv6 \
	--set ports.encap_offload=on > null-on.log 2>&1; then
	echo "encap_offload: FAIL: encap_offload = on started on net_null ports"
	fails=$((fails + 1))
elif ! grep -Eq 'port [0-9]+ \(net_null\): \[ports\] encap_offload = on, but rte_flow probe: .+' \
	null-on.log; then
	echo "encap_offload: FAIL: encap_offload = on refused without its reason:"
	tail -5 null-on.log
	fails=$((fails + 1))
fi
echo "encap_offload: $((fails == 0 ? 1 : 0)) passed, $fails failed"
[ "$fails" = 0 ]
