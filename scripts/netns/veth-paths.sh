#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# Two hosts joined by N paths of real kernel links, for the veth benchmarks
# (scripts/bench/bench-veth-failover.sh, bench-veth-loss.sh): network namespaces
#
#   PREFIX-a  host 0 (sender)    port p<i> on path i, MAC 02:6d:72:00:00:0<i>, 10.77.<i>.1/24
#   PREFIX-b  host 1 (receiver)  port p<i> on path i, MAC 02:6d:72:00:01:0<i>, 10.77.<i>.2/24
#   PREFIX-s<i>  the "switch" of path i: a Linux bridge joining h0 (to host 0)
#                and h1 (to host 1), each port shaped by tbf to RATE Mbit/s
#                with a QUEUE-KB queue; nft table `bridge veth` with an
#                empty forward chain `fault` that faults are added to
#
# Faults live in the switches, so the kernel's TCP (MPTCP) and mrcd on
# net_af_packet meet them alike: an AF_PACKET (ETH_P_ALL) socket takes a
# copy of a frame before the netdev ingress hook runs, so an nft drop at the
# receiving host's port would hide the fault from mrcd (try `pitfall`).
# The hosts' ports have IPv6 off (mrcd's IPv6 frames are not the kernel's)
# and IPv4 on (for MPTCP). MACs are mrcd's defaults for hosts 0 and 1.
#
# Usage:
#   veth-paths.sh up PREFIX N RATE_MBIT QUEUE_KB
#   veth-paths.sh down PREFIX
#   veth-paths.sh blackhole PREFIX PATH        drop every frame on a path
#   veth-paths.sh linkdown PREFIX PATH         set both ports of the switch down
#   veth-paths.sh loss PREFIX N PERMILLE       drop at random on every path
#   veth-paths.sh clear PREFIX N               undo the above
#   veth-paths.sh pitfall PREFIX PATH          nft netdev ingress drop on host 1's port
#   veth-paths.sh mptcp PREFIX N               MPTCP endpoints and limits
# Needs root, iproute2, nft and tc (tbf).
set -euo pipefail
usage() {
	echo "usage: veth-paths.sh up|down|blackhole|linkdown|loss|clear|pitfall|mptcp PREFIX ..." >&2
	exit 2
}
[ $# -ge 2 ] || usage
cmd=$1 pfx=$2
shift 2

sw() { echo "$pfx-s$1"; }

up() {
	local n=$1 rate=$2 queue_kb=$3 i
	ip netns add "$pfx-a"
	ip netns add "$pfx-b"
	for h in a b; do
		ip -n "$pfx-$h" link set lo up
	done
	for i in $(seq 0 $((n - 1))); do
		local s
		s=$(sw "$i")
		ip netns add "$s"
		ip -n "$s" link set lo up
		ip -n "$s" link add br0 mtu 9000 type bridge
		ip link add p"$i" netns "$pfx-a" address "02:6d:72:00:00:0$i" mtu 9000 type veth \
			peer name h0 netns "$s" mtu 9000
		ip link add p"$i" netns "$pfx-b" address "02:6d:72:00:01:0$i" mtu 9000 type veth \
			peer name h1 netns "$s" mtu 9000
		for port in h0 h1; do
			ip -n "$s" link set "$port" master br0
			ip -n "$s" link set "$port" up
			# The path's capacity, so that the links, not two shared CPUs, limit both stacks.
			ip netns exec "$s" tc qdisc add dev "$port" root tbf rate "${rate}mbit" \
				burst 32kb limit "${queue_kb}kb"
		done
		ip -n "$s" link set br0 up
		ip netns exec "$s" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
		ip netns exec "$s" nft -f - <<-NFT
			table bridge veth {
				chain fault {
					type filter hook forward priority 0; policy accept;
				}
			}
		NFT
		local hi=1
		for h in a b; do
			ip netns exec "$pfx-$h" sysctl -qw "net.ipv6.conf.p$i.disable_ipv6=1"
			ip -n "$pfx-$h" addr add "10.77.$i.$hi/24" dev "p$i"
			ip -n "$pfx-$h" link set "p$i" up
			hi=2
		done
	done
}

down() {
	local n
	for n in $(ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^$pfx-(a|b|s[0-9]+)$" || true); do
		ip netns del "$n" 2>/dev/null || true
	done
}

# MPTCP, the kernel's in-kernel path manager: host 1 announces its address
# on every other path (signal endpoints), host 0 accepts them and opens one
# subflow to each, so one connection uses all N paths.
mptcp() {
	local n=$1 i
	for i in $(seq 1 $((n - 1))); do
		ip -n "$pfx-b" mptcp endpoint add "10.77.$i.2" dev "p$i" signal
	done
	ip -n "$pfx-b" mptcp limits set subflows $((n - 1)) add_addr_accepted 0
	ip -n "$pfx-a" mptcp limits set subflows $((n - 1)) add_addr_accepted $((n - 1))
}

case $cmd in
up) down; up "$@" ;;
down) down ;;
blackhole) ip netns exec "$(sw "$1")" nft add rule bridge veth fault counter drop ;;
linkdown) for port in h0 h1; do ip -n "$(sw "$1")" link set "$port" down; done ;;
loss)
	for i in $(seq 0 $(($1 - 1))); do
		ip netns exec "$(sw "$i")" nft add rule bridge veth fault numgen random mod 1000 \< "$2" counter drop
	done ;;
clear)
	for i in $(seq 0 $(($1 - 1))); do
		ip netns exec "$(sw "$i")" nft flush chain bridge veth fault
		for port in h0 h1; do ip -n "$(sw "$i")" link set "$port" up; done
	done
	ip netns exec "$pfx-b" nft delete table netdev vethpit 2>/dev/null || true ;;
pitfall)
	ip netns exec "$pfx-b" nft -f - <<-NFT
		table netdev vethpit {
			chain in {
				type filter hook ingress device p$1 priority 0; policy accept;
				counter drop
			}
		}
	NFT
	;;
mptcp) mptcp "$@" ;;
*) usage ;;
esac
