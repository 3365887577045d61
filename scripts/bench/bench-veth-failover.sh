#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# Failover on real kernel links: Linux MPTCP
# against mrcd on the very same N veth paths, the same black hole, the same
# receiver-stall definition. Two hosts (network namespaces) are joined by N
# paths, each through a "switch" namespace (a Linux bridge whose ports tbf
# shapes to RATE Mbit/s with a QUEUE-KB queue; scripts/netns/veth-paths.sh).
# Host 0 streams 64 KiB messages to host 1 for WARM + PRE + POST seconds;
# WARM + PRE in, an nftables rule in path 1's switch (bridge family,
# forward chain) drops every frame of that path. Per repetition, one run of
#  - MPTCP: test/bench/bench_stream under `mptcpize run` at both ends, the
#    in-kernel path manager with one subflow per path (host 1 signals its
#    other addresses), TCP congestion control cubic; the receiver stamps
#    every completed message with CLOCK_MONOTONIC;
#  - mrcd: one process per host on net_af_packet, one plane per path,
#    WRITE-with-immediate messages (spray + SACK, the default), every byte
#    verified; the receiver keeps its longest waits between messages on the
#    same clock (--json recv_gaps) and a 10 ms time series.
# Measured for both, from the receiver's completions: the stall (the
# longest gap between successive messages that ended after the fault),
# goodput in the PRE seconds before the fault and from 0.5 s after it to
# the end (should be (N-1)/N of before), messages lost. Median of REPS.
#
# Why the fault is in a middle namespace: an AF_PACKET (ETH_P_ALL) socket
# gets its copy of a frame before the netdev ingress hook runs, so an nft
# drop on the receiving host's own port black-holes the kernel's TCP but
# not mrcd. `--fault pitfall` runs exactly that, to show it.
#
# Writes results/bench-veth-failover.json and .png. Needs root, network
# namespaces and an MPTCP kernel (else exit 77); installs mptcpd, nftables
# and iproute2 when missing.
# Usage: scripts/bench/bench-veth-failover.sh [BUILD_DIR] [--paths N] [--reps R]
#            [--rate MBIT] [--queue-kb KB] [--fault blackhole|linkdown|pitfall]
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
name=veth-failover
build=build paths=4 reps=3 rate=100 queue_kb=128 fault=blackhole
while [ $# -gt 0 ]; do
	case $1 in
	--paths) paths=$2; shift 2 ;;
	--reps) reps=$2; shift 2 ;;
	--rate) rate=$2; shift 2 ;;
	--queue-kb) queue_kb=$2; shift 2 ;;
	--fault) fault=$2; shift 2 ;;
	-h|--help) sed -n '4,36p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "bench-$name: unknown option $1" >&2; exit 2 ;;
	*) build=$1; shift ;;
	esac
done
[[ $paths =~ ^[2-8]$ ]] || { echo "bench-$name: --paths 2..8" >&2; exit 2; }
build=$(realpath "$build")
. scripts/bench/veth-bench-lib.sh
veth_check
veth_up
echo "bench-$name: $paths paths of $rate Mbit/s, $fault on path 1, $reps repetitions"
# Only the default setting feeds README's table; others go to results/tmp/.
out=results/bench-$name.json
[ "$fault" = blackhole ] && [ "$paths" = 4 ] || out=results/tmp/bench-$name-$fault-p$paths.json
mkdir -p results/tmp
veth_run failover --reps "$reps" --fault "$fault" --out "$out" \
	--meta "{\"bench\": \"veth-failover\", \"paths\": $paths, \"path_mbit\": $rate, \"queue_kb\": $queue_kb, \"fault\": \"$fault\", \"fault_path\": 1, \"msg_kib\": 64, \"tcp_cc\": \"cubic\", \"mrcd_mode\": \"spray_sack\", \"pre_s\": 1.0, \"post_s\": 1.5, \"settle_s\": 0.5, \"bin_ms\": 50}"
/usr/bin/python3 scripts/bench/machine.py "$out"
/usr/bin/python3 scripts/plot/plot.py veth-failover "$out" "${out%.json}.png"
echo "bench-$name: wrote $out and ${out%.json}.png"
