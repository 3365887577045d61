#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# mrcd over real kernel links and Linux SRv6 routers: two hosts, two planes,
# per plane a T0 per host and one T1, all network namespaces built by
# scripts/netns/netns-topology.sh (removed afterwards). Each host is an mrcd in its
# namespace on net_af_packet ports; the routers run seg6local End with
# NEXT-C-SID. Each host writes 200 1 MiB messages to the other. Checked:
#  - every message completes and every byte is verified at the receiver;
#  - plane 1's T0-T1 link, set down with `ip link` once 40 messages are
#    done, costs packets (losses retire EVs, packets are resent) and nothing
#    else, and the routers of plane 0 carried traffic after it;
#  - a capture on the T1 of plane 0, decoded by tshark, shows SRv6 uSID
#    destinations in the block over IPv6 over UDP 4791 with InfiniBand BTH;
#  - at each of the four links along host 0 -> host 1 on plane 0, the outer
#    destination the kernel produced equals what our switches' shift
#    (mrc-dump --walk, lib/wire's mrc_usid_shift) gives for the same packet;
#  - no neighbour entry is static: each host resolved its T0s (/mrc/nd) and
#    answered their solicitations, and a T0 pings host 0's plane address,
#    answered by the kernel through mrcd's exception path (a tap).
# Needs root, network namespaces and seg6local NEXT-C-SID: else exit 77.
# Usage: netns_srv6.sh MRCD MRC_DUMP WORKDIR
set -euo pipefail
mrcd=$(realpath "$1")
dump=$(realpath "$2")
work=$3
src=$(realpath "$(dirname "$0")/../..")
topo=$src/scripts/netns/netns-topology.sh
. "$(dirname "$0")/lib.sh"
mkdir -p "$work"
cd "$work"
rm -f ./*.pcap ./*.json ./*.log ./*.txt host*.ini

skip() { echo "netns_srv6: $*; skipping"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root"
command -v ip >/dev/null || skip "needs iproute2"
command -v dumpcap >/dev/null && command -v tshark >/dev/null || skip "needs tshark and dumpcap"
command -v ping >/dev/null || skip "needs ping (iputils-ping)"
[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"
pfx=ns$$
pfx=${pfx:0:8}
probe=$pfx-probe
ip netns add "$probe" 2>/dev/null || skip "cannot create network namespaces"
ip -n "$probe" link set lo up
if ! ip -n "$probe" -6 route add fcbb:0:100::/48 encap seg6local action End flavors next-csid \
	lblen 32 nflen 16 dev lo 2>/dev/null; then
	ip netns del "$probe"
	skip "this kernel or iproute2 has no seg6local NEXT-C-SID"
fi
ip netns del "$probe"

msgs=200
cat > profile.ini <<P
[profile]
pattern = pairs
msg_kb = 1024
outstanding = 4
messages = $msgs
verify = true
P
pids=()
cleanup() {
	kill -KILL "${pids[@]}" 2>/dev/null || true
	"$topo" down --prefix "$pfx" >/dev/null 2>&1 || true
}
trap cleanup EXIT
"$topo" up --prefix "$pfx" --planes 2 --t1s 1 --conf-dir "$PWD" --profile profile.ini
for h in 0 1; do
	# Delivery is what is tested here, not a window tuned to veth latencies.
	sed -i 's/^\[daemon\]$/[daemon]\nduration_s = 0/' host$h.ini
	printf '\n[cc]\nalgorithm = fixed\nfixed_cwnd_kb = 512\n' >> host$h.ini
	printf '\n[telemetry]\ntimeseries = none\nprometheus = none\n' >> host$h.ini
done

t0a=$pfx-p0-t0-0 t1=$pfx-p0-t1-0 t0b=$pfx-p0-t0-1
# Four captures along host 0 -> host 1 on plane 0, 600 packets each.
cap() { ip netns exec "$1" dumpcap -q -i "$2" -f "$3 and ip6" -c 600 -a duration:20 -w "$4" \
	> /dev/null 2>&1 & pids+=($!); }
cap "$t0a" h0 inbound hop0.pcap
cap "$t1" d0 inbound hop1.pcap
cap "$t0b" u0 inbound hop2.pcap
cap "$t0b" h1 outbound hop3.pcap
sleep 1
# Each worker on its own CPU; the main lcores sleep.
ip netns exec "$pfx-h0" "$mrcd" --lcores=0@0,1@1 -- -f host0.ini --set control.socket="$PWD/h0.sock" --json h0.json > h0.log 2>&1 &
pids+=($!)
ip netns exec "$pfx-h1" "$mrcd" --lcores=0@1,1@0 -- -f host1.ini --set control.socket="$PWD/h1.sock" --json h1.json > h1.log 2>&1 &
pids+=($!)
n=${#pids[@]}
hpids=("${pids[$((n - 2))]}" "${pids[$((n - 1))]}")

# A stall (no message completes on either host for 15 s) or the deadline
# dumps both daemons' state (QPs: PSNs, window, retries, EVs) while they
# still run, so a failure says which QP waits on what.
dump_state() {
	local h
	for h in 0 1; do
		mrc_dump_state h$h.log "state-h$h-$1.txt"
		mrc_dump_threads "${hpids[$h]}" >> "state-h$h-$1.txt"
		echo "netns_srv6: host $h's state ($1) in $PWD/state-h$h-$1.txt:"
		/usr/bin/python3 -c '
import json, sys
for l in open(sys.argv[1]):
    try:
        d = json.loads(l)
    except ValueError:
        print("  " + l.strip()); continue
    k, v = next(iter(d.items()))
    if k.startswith("/mrc/qp,") and isinstance(v, dict):
        print("  qp %#x %s %s: %s" % (v["qpn"], v["role"], v["state"], " ".join(
            f"{f}={v[f]}" for f in ("snd_una", "snd_nxt", "inflight_pkts", "lost_unsent_pkts",
                "cwnd_bytes", "can_send_new", "rel_error", "retries", "probe_wanted",
                "probe_outstanding", "since_progress_us", "since_ack_us", "rx_epsn",
                "rx_max_psn", "tx_no_ev", "tx_no_mbuf", "msgs_done") if f in v)))
    elif k.startswith(("/mrc/host,", "/mrc/drops,")) and isinstance(v, dict):
        print("  %s %s" % (k, " ".join(f"{a}={b}" for a, b in v.items()
            if not isinstance(b, (dict, list)) and b)))
' "state-h$h-$1.txt" || true
	done
}
deadline=$((SECONDS + 90))
link_down=no
next_say=$((SECONDS + 10))
last_c=
last_change=$SECONDS
dumped=no
# A step of this loop that takes seconds (a telemetry query, `ip link`) is
# named: the loop itself standing still looks like a stalled transfer.
slow() { [ $((SECONDS - $1)) -lt 5 ] || echo "netns_srv6: $2 took $((SECONDS - $1)) s (at ${SECONDS}s)"; }
while [ $SECONDS -lt $deadline ]; do
	t=$SECONDS
	c0=$(mrc_msgs_completed h0.log)
	slow $t "host 0's telemetry"
	t=$SECONDS
	c1=$(mrc_msgs_completed h1.log)
	slow $t "host 1's telemetry"
	if [ $SECONDS -ge $next_say ]; then
		echo "netns_srv6: ${SECONDS}s: messages completed: host 0 $c0, host 1 $c1"
		next_say=$((SECONDS + 10))
	fi
	if [ "$c0 $c1" != "$last_c" ] || [ -z "$(mrc_sock h0.log)" ] || [ -z "$(mrc_sock h1.log)" ]; then
		last_c="$c0 $c1"
		last_change=$SECONDS
	elif [ "$dumped" = no ] && [ $((SECONDS - last_change)) -ge 15 ]; then
		echo "netns_srv6: no message completed for 15 s (host 0 $c0, host 1 $c1)"
		dump_state stall
		dumped=yes
	fi
	if [ "$link_down" = no ] && [ "$c0" -ge 40 ]; then
		t=$SECONDS
		ip -n "$pfx-p1-t0-0" link set dev u0 down
		slow $t "ip link set down"
		link_down="after $c0 messages"
		echo "netns_srv6: plane 1's T0 0 - T1 0 link set down $link_down"
	fi
	[ "$c0" = $msgs ] && [ "$c1" = $msgs ] && break
	kill -0 "${hpids[0]}" 2>/dev/null && kill -0 "${hpids[1]}" 2>/dev/null || break
	sleep 0.2
done
if { [ "$c0" != $msgs ] || [ "$c1" != $msgs ]; } && [ "$dumped" = no ]; then
	dump_state end
fi
fwd_p0=$(ip netns exec "$t1" nstat -az Ip6OutForwDatagrams 2>/dev/null | awk '/Ip6OutForwDatagrams/ {print $2}')
# Neighbour discovery and the exception path, the daemons still running: the
# T0 pings host 0's plane-0 address (answered by the kernel through mrcd's
# tap), and has resolved it to host 0's port by ND, not by a static entry.
hs0=fcbb:0:1e00::
ping_ok=no
# The T0 may know host 0 already from host 0's own solicitation (a stale
# entry it confirms only seconds later): forget it, so this ping has to
# solicit and mrcd has to answer.
ip -n "$t0a" -6 neigh flush dev h0 > /dev/null 2>&1 || true
ip netns exec "$t0a" ping -6 -c 3 -i 0.2 -W 2 "$hs0" > ping.txt 2>&1 && ping_ok=yes
ip -n "$t0a" -6 neigh show dev h0 > t0-neigh.txt 2>&1 || true
ip -n "$pfx-h0" -6 route show > h0-routes.txt 2>&1 || true
for h in 0 1; do
	timeout 10 /usr/bin/python3 "$mrc_telemetry" -s "$(mrc_sock h$h.log)" "/mrc/nd,0" \
		> nd-h$h.json 2>&1 || true
done
kill -TERM "${hpids[@]}" 2>/dev/null || true
# A daemon that does not stop within 30 s is killed (and fails below).
for _ in $(seq 300); do
	kill -0 "${hpids[0]}" 2>/dev/null || kill -0 "${hpids[1]}" 2>/dev/null || break
	sleep 0.1
done
kill -KILL "${hpids[@]}" 2>/dev/null || true
set +e
wait "${hpids[0]}"
rc0=$?
wait "${hpids[1]}"
rc1=$?
set -e
fails=0
for h in 0 1; do
	rc=$([ $h = 0 ] && echo $rc0 || echo $rc1)
	if [ "$rc" != 0 ]; then
		echo "netns_srv6: FAIL: host $h's mrcd exited $rc"
		grep -v -- '--vdev\|mp action\|^EAL' h$h.log | tail -12
		fails=$((fails + 1))
	fi
done
grep -h -E 'messages:|data:|transport:' h0.log h1.log || true
[ "$link_down" != no ] || { echo "netns_srv6: FAIL: the transfer ended before the link went down"; fails=$((fails + 1)); }

# tshark's view of a router's capture: outer uSID DA, inner IPv6, UDP 4791, BTH.
tshark -r hop1.pcap -Y 'udp.dstport == 4791' -T fields -E separator=' ' -e ipv6.dst \
	-e udp.dstport -e infiniband.bth.opcode -e infiniband.bth.destqp -e infiniband.bth.psn \
	-e udp.srcport > tshark.txt 2>/dev/null || true
for k in 0 1 2 3; do "$dump" --walk hop$k.pcap > walk$k.txt 2>/dev/null || true; done
/usr/bin/python3 - "$msgs" "$fwd_p0" "$ping_ok" "$hs0" <<'PY' || fails=$((fails + 1))
import json, sys
msgs, fwd = int(sys.argv[1]), int(sys.argv[2] or 0)
bad = []

# Neighbour discovery: every plane's next hop resolved on both hosts, the
# T0s' solicitations answered, and the ping answered through the tap.
for h in (0, 1):
    try:
        nd = list(json.load(open(f"nd-h{h}.json")).values())[0]
    except (OSError, ValueError, IndexError, AttributeError) as e:
        bad.append(f"host {h}: /mrc/nd: {e}")
        continue
    if nd["state"] != ["reachable", "reachable"] and "failed" in nd["state"]:
        bad.append(f"host {h}: next hops {nd['state']}")
    # Host 0's plane-0 T0 solicited it for the ping (its entry flushed before);
    # elsewhere a T0 may have learned the host from the host's own solicitation.
    if h == 0 and nd["ns_answered"][0] == 0:
        bad.append(f"host 0: plane 0's T0 solicited for the ping, answered {nd['ns_answered']}")
    print(f"netns_srv6: host {h}: next hops {nd['state']} at {nd['next_hop_mac']}, "
          f"{nd['ns_answered']} solicitations answered, {nd['na_announced']} announced")
    if h == 0:
        if min(nd["not_mrc_icmp6"]) + nd["to_tap"][0] == 0 or nd["from_tap"][0] == 0:
            bad.append(f"host 0: the tap took {nd['to_tap']} frames, gave {nd['from_tap']}")
if sys.argv[3] != "yes":
    bad.append("the T0's ping of host 0's plane address was not answered: " +
               open("ping.txt").read().strip().replace("\n", " | "))
else:
    print(f"netns_srv6: the T0 pinged {sys.argv[4]}: answered through the exception path")
neigh = open("t0-neigh.txt").read()
row = [l for l in neigh.splitlines() if l.startswith(sys.argv[4] + " ")]
if not row or "02:6d:72:00:00:00" not in row[0] or "PERMANENT" in row[0]:
    bad.append(f"the T0's neighbour entry for host 0: {row or neigh.strip()}")
else:
    print(f"netns_srv6: the T0 resolved host 0 by neighbour discovery: {row[0]}")
for f in ("h0.json", "h1.json"):
    try:
        s = json.load(open(f))
    except (OSError, ValueError) as e:
        bad.append(f"{f}: {e}")
        continue
    m = s["messages"]
    if m["posted"] != msgs or m["completed"] != msgs or m["lost"] or m["failed"]:
        bad.append(f"{f}: messages {m}")
    if s["bytes_verified"] != msgs * 1024 * 1024 or s["verify_errors"]:
        bad.append(f"{f}: verified {s['bytes_verified']} bytes, {s['verify_errors']} errors")
    print(f"netns_srv6: {f}: {m['completed']} messages, {s['bytes_verified']} bytes verified, "
          f"{s['retransmits']} resent, {s['ev_losses']} losses on a path")
if not bad:
    hs = [json.load(open(f)) for f in ("h0.json", "h1.json")]
    if sum(h["ev_losses"] for h in hs) == 0 or sum(h["retransmits"] for h in hs) == 0:
        bad.append("nothing was lost on plane 1 although its T0-T1 link went down")
if fwd == 0:
    bad.append("the T1 of plane 0 forwarded nothing")

# tshark: every MRC frame on the T1 link is outer fcbb:0:... -> inner IPv6 -> UDP 4791 -> BTH.
rows = [l.split() for l in open("tshark.txt") if l.strip()]
ok = 0
for r in rows:
    das = r[0].split(",")
    if (len(das) == 2 and das[0].startswith("fcbb:0:") and r[1].split(",")[0] == "4791"
            and len(r) >= 5):
        ok += 1
if len(rows) < 100 or ok != len(rows):
    bad.append(f"tshark: {ok} of {len(rows)} frames decoded as uSID/IPv6/UDP 4791/BTH")
else:
    print(f"netns_srv6: tshark decoded {ok} frames on the T1 as SRv6 uSID over IPv6/UDP 4791/BTH")

# The kernel's destination at each hop against our shift, packet by packet.
def walks(k):
    out = {}
    for line in open(f"walk{k}.txt"):
        if line.startswith("#"):
            continue  # mrc-dump's summary
        f = line.split()
        out[(f[0], f[1], f[2])] = f[3:]
    return out
w0 = walks(0)
for k in (1, 2, 3):
    seen = walks(k)
    match = mismatch = 0
    for key, das in seen.items():
        if key not in w0 or len(w0[key]) <= k:
            continue
        if das[0] == w0[key][k]:
            match += 1
        else:
            mismatch += 1
            if mismatch <= 3:
                bad.append(f"hop {k}: packet {key}: kernel {das[0]}, ours {w0[key][k]}")
    if match < 50 or mismatch:
        bad.append(f"hop {k}: {match} destinations equal ours, {mismatch} differ")
    else:
        print(f"netns_srv6: hop {k}: the kernel's destination equals ours for all {match} "
              f"packets seen at both ends")
for b in bad:
    print("netns_srv6: FAIL:", b)
sys.exit(1 if bad else 0)
PY
echo "netns_srv6: $((fails == 0 ? 1 : 0)) passed, $fails failed"
[ "$fails" = 0 ]
