#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# Goodput under random loss on real kernel links:
# the N paths of scripts/netns/veth-paths.sh (a bridge namespace per path, tbf at
# RATE Mbit/s), an nftables `numgen random mod 1000 < K drop` rule in every
# path's switch (both directions) for 0.1%, 1% and 5% loss, and three
# columns, each divided by its own lossless goodput of the same repetition:
#  - mrcd, MRC's default: paths = spray, reliability = sack;
#  - mrcd, the reference: paths = ecmp + reliability = gbn (one path per
#    QP, plain RoCEv2 RC go-back-N);
#  - Linux MPTCP (mptcpize, one subflow per path, cubic).
# Host 0 streams 64 KiB messages to host 1 for RUN seconds; goodput is
# counted at the receiver after the first second. Median of REPS.
# Writes results/bench-veth-loss.json and .png. Needs root, network
# namespaces and an MPTCP kernel (else exit 77).
# Usage: scripts/bench/bench-veth-loss.sh [BUILD_DIR] [--paths N] [--reps R] [--rate MBIT] [--run-s S]
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
name=veth-loss
build=build paths=4 reps=3 rate=100 queue_kb=128 run_s=2.5
while [ $# -gt 0 ]; do
	case $1 in
	--paths) paths=$2; shift 2 ;;
	--reps) reps=$2; shift 2 ;;
	--rate) rate=$2; shift 2 ;;
	--run-s) run_s=$2; shift 2 ;;
	-h|--help) sed -n '4,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "bench-$name: unknown option $1" >&2; exit 2 ;;
	*) build=$1; shift ;;
	esac
done
[[ $paths =~ ^[2-8]$ ]] || { echo "bench-$name: --paths 2..8" >&2; exit 2; }
build=$(realpath "$build")
. scripts/bench/veth-bench-lib.sh
veth_check
veth_up
echo "bench-$name: $paths paths of $rate Mbit/s, loss 0.1/1/5% on every path, $reps repetitions"
# Only the default setting feeds README's table; others go to results/tmp/.
out=results/bench-$name.json
[ "$paths" = 4 ] || out=results/tmp/bench-$name-p$paths.json
veth_run loss --reps "$reps" --run-s "$run_s" --levels 0,1,10,50 --out "$out" \
	--meta "{\"bench\": \"veth-loss\", \"paths\": $paths, \"path_mbit\": $rate, \"queue_kb\": $queue_kb, \"reps\": $reps, \"run_s\": $run_s, \"msg_kib\": 64, \"tcp_cc\": \"cubic\"}"
/usr/bin/python3 scripts/bench/machine.py "$out"
/usr/bin/python3 scripts/plot/plot.py veth-loss "$out" "${out%.json}.png"
echo "bench-$name: wrote $out and ${out%.json}.png"
