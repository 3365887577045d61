#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# Goodput under random loss (issue 6, item 4): 0, 0.1%, 1% and 5% random
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
# Usage: scripts/bench-loss.sh [BUILD_DIR] [REPS] [SEEDS]
set -euo pipefail
cd "$(dirname "$0")/.."
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
# Run mrcd; when other mrcd instances hold every free CPU, wait for one (up to a minute).
run_mrcd() {
	local cfg=$1 out=$2
	for _ in $(seq 60); do
		if (cd "$tmp" && "$mrcd" -- -f "$cfg" --json "$out" > "$tmp/log" 2>&1); then
			return 0
		fi
		grep -qE 'already poll|another mrcd' "$tmp/log" || break
		sleep 1
	done
	echo "bench-loss: $cfg: mrcd failed:" >&2
	tail -5 "$tmp/log" >&2
}

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
			cfg=$tmp/$mode-$loss.ini
			sed -e "s/^loss = .*/loss = $loss/" -e "s/^paths = .*/paths = $paths/" \
				-e "s/^reliability = .*/reliability = $rel/" \
				-e "s#^profile = \.\./#profile = $root/config/#" config/bench/loss.ini > "$cfg"
			run_mrcd "$cfg" "$tmp/$mode-$loss-$r.json"
		done
	done
done
/usr/bin/python3 - "$tmp" "$reps" "$seeds" "$levels" "$modes" "$fake_modes" <<'PY'
import json, os, statistics, sys
tmp, reps, seeds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
levels, daemon_modes, fake_modes = sys.argv[4].split(), sys.argv[5].split(), sys.argv[6].split()
out = {"bench": "loss", "loss_levels": [float(x) for x in levels],
       "fake_clock": {"tool": "test/bench/bench_fabric_qps", "seeds": seeds, "qps": 8,
                      "link_gbps": 100, "outstanding": 2, "msg_kib": 256, "modes": {}},
       "daemon": {"config": "config/bench/loss.ini", "reps": reps, "link_gbps": 0.25,
                  "modes": {}}}


def load(p):
    return json.load(open(p)) if os.path.exists(p) and os.path.getsize(p) else None


def summarise(kind, name, n, modes):
    """Median goodput and median per-repetition ratio to the lossless run."""
    runs = {(m, l): [load(f"{tmp}/{name(m, l, i)}") for i in range(1, n + 1)]
            for m in modes for l in levels}
    res = {}
    print(f"{kind}:\n{'mode':>11} | " + " | ".join(f"loss {float(l) * 100:g}%: Gb/s ratio" for l in levels))
    for m in modes:
        # A run that could not start (CPU taken by another mrcd) is left out, not zero.
        good = {l: [x["goodput_gbps"] if x else None for x in runs[m, l]] for l in levels}
        ratio = {l: statistics.median([good[l][i] / good["0"][i] for i in range(n)
                                       if good[l][i] is not None and good["0"][i]] or [0.0])
                 for l in levels}
        med = {l: statistics.median([g for g in good[l] if g is not None] or [0.0]) for l in levels}
        res[m] = {"goodput_gbps": {str(float(l)): med[l] for l in levels},
                  "ratio": {str(float(l)): ratio[l] for l in levels},
                  "goodput_runs": {str(float(l)): good[l] for l in levels}}
        if kind == "fake clock":
            ok = {l: [x for x in runs[m, l] if x] for l in levels}
            res[m]["lost_by"] = {str(float(l)): {k: statistics.median([x["lost_by"][k] for x in ok[l]])
                                                 for k in (ok[l][0]["lost_by"] if ok[l] else {})}
                                 for l in levels}
            for key in ("retx_pkts", "probes", "rx_dup_pkts"):
                res[m][key] = {str(float(l)): statistics.median([x[key] for x in ok[l]] or [0])
                               for l in levels}
        if kind == "daemon":
            res[m]["all_delivered_and_verified"] = all(
                x["messages"]["lost"] == 0 and x["messages"]["failed"] == 0 and
                x["verify_errors"] == 0 for l in levels for x in runs[m, l] if x)
            res[m]["runs_missing"] = sum(x is None for l in levels for x in runs[m, l])
            res[m]["retransmits"] = {str(float(l)): statistics.median(
                [x["retransmits"] for x in runs[m, l] if x] or [0]) for l in levels}
        print(f"{m:>11} | " + " | ".join(f"{med[l]:8.3f} {ratio[l]:6.3f}"
                                          for l in levels))
    return res


out["fake_clock"]["modes"] = summarise("fake clock", lambda m, l, i: f"fake-{m}-{l}-{i}.json",
                                      seeds, fake_modes)
out["daemon"]["modes"] = summarise("daemon", lambda m, l, i: f"{m}-{l}-{i}.json", reps,
                                   daemon_modes)
json.dump(out, open("results/bench-loss.json", "w"), indent=1)
PY
/usr/bin/python3 scripts/plot-bench.py loss results/bench-loss.json results/bench-loss.png
echo "bench-loss: wrote results/bench-loss.json and results/bench-loss.png"
