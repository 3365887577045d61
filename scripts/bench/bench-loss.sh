#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# Goodput under random loss: 0, 0.1%, 1% and 5% random
# loss on every link of the emulated fabric, in two modes: MRC (paths =
# spray, reliability = sack) and the reference, plain RoCEv2 RC (paths =
# ecmp, reliability = gbn: one path, go-back-N). The figure is each mode's
# goodput divided by its own lossless goodput. Measured twice:
#  - fake clock: test/bench/bench_fabric_qps, 8 QPs from host 0 to host 1
#    over 8 planes x 4 T1s of 100 Gb/s, 2 x 256 KiB in flight per QP, 6 ms
#    of fabric time after 1 ms of warm-up; the machine's load cannot touch
#    it (a seed gives the same numbers every time); median over SEEDS seeds,
#    with how rel found the losses (per-EV order incl. probe answers, time,
#    per-packet timeout, RTO, NACK, rewind), resends, probes and the
#    receivers' duplicates (spurious resends);
#  - the daemon in real time: config/bench/loss.ini (the demo's 2 hosts x 8
#    planes of 0.25 Gb/s, 1 MiB writes both ways, every byte verified). The
#    machine is shared, so a repetition runs all eight cases back to back
#    and each ratio is against the lossless run of the same repetition;
#    median over REPS repetitions.
# Writes results/bench-loss.json and results/bench-loss.png.
# Usage: scripts/bench/bench-loss.sh [BUILD_DIR] [REPS] [SEEDS]
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
build=${1:-build}
reps=${2:-3}
seeds=${3:-3}
mrcd=$root/$build/app/mrcd/mrcd
bin=$root/$build/test/bench/bench_fabric_qps
for b in "$mrcd" "$bin"; do
	[ -x "$b" ] || { echo "bench-loss: $b not built (ninja -C $build)" >&2; exit 1; }
done
mkdir -p results
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
name=loss
cfg=$root/config/bench/loss.ini
# shellcheck source=mrcd-run-lib.sh
. "$root/scripts/bench/mrcd-run-lib.sh"

levels="0 0.001 0.01 0.05"
modes="spray_sack ecmp_gbn"
# The fake clock also runs MRC with its rule of retiring the EV of every
# silent loss ([transport] order_loss_retires), to show what keeping the
# EVs of path-proven losses is worth.
fake_modes="spray_sack spray_retire ecmp_gbn"
echo "bench-loss: fake clock, 100 Gb/s fabric, $seeds seeds"
for s in $(seq 1 "$seeds"); do
	for mode in $fake_modes; do
		case $mode in
		spray_retire) args=(--paths spray --reliability sack --order-loss-retires) ;;
		*) args=(--paths "${mode%_*}" --reliability "${mode#*_}") ;;
		esac
		for loss in $levels; do
			"$bin" "${args[@]}" --loss "$loss" --qps 8 \
				--outstanding 2 --windows 6 --seed "$s" 2>/dev/null | grep -v '^EAL' \
				> "$tmp/fake-$mode-$loss-$s.json"
		done
	done
done
echo "bench-loss: the daemon in real time, 0.25 Gb/s fabric, $reps repetitions"
for r in $(seq 1 "$reps"); do
	for mode in $modes; do
		for loss in $levels; do
			paths=${mode%_*} rel=${mode#*_}
			run_mrcd "$tmp/$mode-$loss-$r.json" fabric.loss="$loss" \
				transport.paths="$paths" transport.reliability="$rel"
		done
	done
done
/usr/bin/python3 scripts/bench/loss_summary.py "$tmp" "$reps" "$seeds" "$levels" "$modes" "$fake_modes"
/usr/bin/python3 scripts/bench/machine.py results/bench-loss.json
/usr/bin/python3 scripts/plot/plot.py loss results/bench-loss.json results/bench-loss.png
echo "bench-loss: wrote results/bench-loss.json and results/bench-loss.png"
