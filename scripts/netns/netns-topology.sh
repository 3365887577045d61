#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# A real multi-plane SRv6 network on one machine: network namespaces joined
# by veth pairs, Linux as the switches. Per plane, an independent two-tier
# Clos: one T0 router per host and T1 routers joined to every T0. Each
# router owns its micro-SID as a Linux seg6local End route with the
# NEXT-C-SID flavour (RFC 9800: block 32 bits, node 16 bits), exactly the
# addressing mrcd's paths and the emulated fabric use (lib/ev/mrc_ev_path.h):
#
#   uSID = (plane + 1) << 12 | tier << 8 | index    tier 0 T0, 1 T1, e host
#   host h's packet on plane p to host d, via T1 u:
#     DA fcbb:0:<T0 h>:<T1 u>:<T0 d>:<host d>::   each router shifts its uSID
#     out and routes on the next one; the last T0 delivers fcbb:0:<host d>::
#     to host d's port.
#
# Namespaces (PREFIX defaults to mrc):
#   PREFIX-h<h>            a host: interface p<p> per plane, IPv6 off (mrcd
#                          owns it through net_af_packet)
#   PREFIX-p<p>-t0-<t>     T0 t of plane p: h<t> to its host, u<u> to T1 u
#   PREFIX-p<p>-t1-<u>     T1 u of plane p: d<t> to T0 t
# Host ports have the MACs mrcd's config defaults to (host h port p
# 02:6d:72:00:h:p). No neighbour entry is static: each T0 resolves its host's
# plane address by neighbour discovery, which mrcd answers, and each host
# resolves its T0 at fd11:<p>:<t>::1 (next_hop.p<p> in its config). Links
# carry 9000-byte frames; router links are fd10:<p>:<t>:<u>::1 (T0) / ::2
# (T1).
#
# Usage:
#   netns-topology.sh up   [--prefix P] [--hosts N] [--planes N] [--t1s N] [--conf-dir DIR]
#                          [--profile FILE]
#   netns-topology.sh down [--prefix P]
#   netns-topology.sh status [--prefix P]
# `up` writes DIR/host<h>.ini (default: the current directory), an mrcd
# config per host using net_af_packet on that host's interfaces and the
# traffic profile FILE (default config/profiles/default.ini); run each as
#   ip netns exec PREFIX-h<h> mrcd -- -f DIR/host<h>.ini
# Needs root, iproute2 with seg6local NEXT-C-SID (Linux 6.1+, iproute2 6.1+).
set -euo pipefail

prefix=mrc
hosts=2
planes=2
t1s=1
conf_dir=.
profile=$(cd "$(dirname "$0")/../.." && pwd)/config/profiles/default.ini
cmd=${1:-}
[ $# -gt 0 ] && shift
while [ $# -gt 0 ]; do
	case $1 in
	--prefix) prefix=$2; shift 2 ;;
	--hosts) hosts=$2; shift 2 ;;
	--planes) planes=$2; shift 2 ;;
	--t1s) t1s=$2; shift 2 ;;
	--conf-dir) conf_dir=$2; shift 2 ;;
	--profile) profile=$(realpath "$2"); shift 2 ;;
	-h|--help) sed -n '3,40p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "netns-topology: unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
done
num() { [[ $2 =~ ^[0-9]+$ ]] && [ "$2" -ge "$3" ] && [ "$2" -le "$4" ] ||
	{ echo "netns-topology: --$1 '$2': a number in $3..$4" >&2; exit 2; }; }
num hosts "$hosts" 2 16
num planes "$planes" 1 8
num t1s "$t1s" 1 8
[[ $prefix =~ ^[a-z0-9]{1,8}$ ]] ||
	{ echo "netns-topology: --prefix '$prefix': 1 to 8 of a-z, 0-9" >&2; exit 2; }

hx() { printf '%x' "$1"; }
next_hop() { echo "fd11:$(hx "$1"):$(hx "$2")::1"; } # plane, T0: its address towards its host
usid() { hx $(( ($1 + 1) << 12 | $2 << 8 | $3 )); } # plane tier index
mac2() { printf '%02x' "$1"; }
host_ns() { echo "$prefix-h$1"; }
t0_ns() { echo "$prefix-p$1-t0-$2"; }
t1_ns() { echo "$prefix-p$1-t1-$2"; }

our_namespaces() { ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^$prefix-(h[0-9]+|p[0-9]+-t[01]-[0-9]+)$" || true; }

down() {
	local n
	for n in $(our_namespaces); do
		ip netns del "$n" 2>/dev/null || true
	done
}

status() {
	local n
	for n in $(our_namespaces); do
		echo "== $n"
		ip -n "$n" -br link show | grep -v '^lo' || true
		ip -n "$n" -6 route show | grep -E 'seg6local|fcbb' || true
	done
}

router_ns_setup() {
	local ns=$1
	ip netns add "$ns"
	ip -n "$ns" link set lo up
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.forwarding=1 net.ipv6.conf.all.seg6_enabled=1 \
		net.ipv6.conf.default.seg6_enabled=1 net.ipv6.conf.all.accept_dad=0 \
		net.ipv6.conf.default.accept_dad=0 net.ipv6.conf.all.keep_addr_on_down=1
}

# The local SID: End with NEXT-C-SID. It matches on the destination whatever
# the ingress; it must name a real interface (on lo Linux never runs it: the
# packets count as Ip6InNoRoutes).
local_sid() {
	local ns=$1 sid=$2 dev=$3
	ip -n "$ns" -6 route add "fcbb:0:$sid::/48" encap seg6local action End \
		flavors next-csid lblen 32 nflen 16 dev "$dev"
}

up() {
	local p h t u
	down
	for h in $(seq 0 $((hosts - 1))); do
		ip netns add "$(host_ns "$h")"
		ip -n "$(host_ns "$h")" link set lo up
	done
	for p in $(seq 0 $((planes - 1))); do
		for t in $(seq 0 $((hosts - 1))); do router_ns_setup "$(t0_ns "$p" "$t")"; done
		for u in $(seq 0 $((t1s - 1))); do router_ns_setup "$(t1_ns "$p" "$u")"; done
		# Host t <-> T0 t.
		for t in $(seq 0 $((hosts - 1))); do
			local hns t0 hmac
			hns=$(host_ns "$t")
			t0=$(t0_ns "$p" "$t")
			hmac=02:6d:72:00:$(mac2 "$t"):$(mac2 "$p")
			# The T0's port keeps the MAC the kernel gives it: only neighbour
			# discovery can tell the host what it is.
			ip link add "p$p" netns "$hns" address "$hmac" mtu 9000 type veth \
				peer name "h$t" netns "$t0" mtu 9000
			# The host's kernel keeps off the wire: mrcd owns the port.
			ip netns exec "$hns" sysctl -qw "net.ipv6.conf.p$p.disable_ipv6=1"
			ip -n "$hns" link set "p$p" up
			ip -n "$t0" link set "h$t" up
			# The last hop: the fully shifted DA is the host's uSID alone.
			local hs
			hs=$(usid "$p" 14 "$t")
			ip -n "$t0" -6 route add "fcbb:0:$hs::/48" dev "h$t"
			# The host's next hop: mrcd resolves it, and answers for its
			# own addresses, by neighbour discovery (no static entries).
			ip -n "$t0" addr add "$(next_hop "$p" "$t")/64" dev "h$t" nodad
			local_sid "$t0" "$(usid "$p" 0 "$t")" "h$t"
		done
		# T0 t <-> T1 u.
		for t in $(seq 0 $((hosts - 1))); do
			for u in $(seq 0 $((t1s - 1))); do
				local t0 t1 net
				t0=$(t0_ns "$p" "$t")
				t1=$(t1_ns "$p" "$u")
				net=fd10:$(hx "$p"):$(hx "$t"):$(hx "$u")
				ip link add "u$u" netns "$t0" mtu 9000 type veth peer name "d$t" netns "$t1" mtu 9000
				ip -n "$t0" addr add "$net::1/64" dev "u$u" nodad
				ip -n "$t1" addr add "$net::2/64" dev "d$t" nodad
				ip -n "$t0" link set "u$u" up
				ip -n "$t1" link set "d$t" up
				ip -n "$t0" -6 route add "fcbb:0:$(usid "$p" 1 "$u")::/48" via "$net::2" dev "u$u"
				ip -n "$t1" -6 route add "fcbb:0:$(usid "$p" 0 "$t")::/48" via "$net::1" dev "d$t"
			done
		done
		for u in $(seq 0 $((t1s - 1))); do local_sid "$(t1_ns "$p" "$u")" "$(usid "$p" 1 "$u")" d0; done
	done
	write_configs
	echo "netns-topology: $hosts hosts x $planes planes, $t1s T1 per plane, up (prefix $prefix);" \
		"host configs in $conf_dir/host<h>.ini; run each host as"
	for h in $(seq 0 $((hosts - 1))); do
		echo "  ip netns exec $(host_ns "$h") mrcd -- -f $conf_dir/host$h.ini"
	done
}

# A host's mrcd config: its ports are net_af_packet on p<plane>, with ring
# frames big enough for a 4 KiB-payload packet in one piece; its next hops
# resolved by neighbour discovery, and what is not MRC given to a tap per
# port (mrch<h>p<p>: ping the host's plane addresses, tcpdump its ports).
write_configs() {
	local h p
	mkdir -p "$conf_dir"
	for h in $(seq 0 $((hosts - 1))); do
		{
			echo "; host $h of the netns topology '$prefix' (scripts/netns/netns-topology.sh)"
			printf '[daemon]\nhosts = 1\nfirst_host = %s\ncluster_hosts = %s\nplanes = %s\n' \
				"$h" "$hosts" "$planes"
			printf 'profile = %s\nscenario = none\n\n[ports]\nmode = ethdev\nrx_mbuf_data_room = 9344\ntap = true\n' "$profile"
			for p in $(seq 0 $((planes - 1))); do
				echo "vdev.$p = net_af_packet$p,iface=p$p,blocksz=65536,framesz=8192,framecnt=1024,qpairs=1"
				echo "h$h.p$p = net_af_packet$p"
			done
			printf '\n[fabric]\n; the topology the paths are built for (no emulated fabric runs)\n'
			printf 't1s = %s\nhosts_per_t0 = 1\n' "$t1s"
			printf '\n[transport]\nencap = srv6\n'
			printf '\n[host.%s]\n' "$h"
			for p in $(seq 0 $((planes - 1))); do
				echo "next_hop.p$p = $(next_hop "$p" "$h")"
			done
		} > "$conf_dir/host$h.ini"
	done
}

case $cmd in
up) up ;;
down) down; echo "netns-topology: prefix $prefix removed" ;;
status) status ;;
*) echo "usage: netns-topology.sh up|down|status [options] (see --help)" >&2; exit 2 ;;
esac
