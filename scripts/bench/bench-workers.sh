#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# Several workers per host: goodput and packet rate of two hosts joined back
# to back ([ports] mode = loop, 8 planes, 4 KiB payloads, 1 MiB
# WRITE-with-immediate messages, 4 QPs per direction, no verification):
#   1 worker:  both hosts on one worker (CPU 1), main's lcore on CPU 0;
#   2 workers: [lcores] workers_per_host = 2, shard k of both hosts on
#              worker k; worker 0 has CPU 0, worker 1 shares CPU 1 with
#              main's lcore and the stats thread (--lcores 0@1,1@0,2@1:
#              under software steering worker 0 reads every packet, worker
#              1 only what it is passed, so it has room for them); half the flows'
#              far ends owned by the other worker index ([lcores]
#              peer_shard = half). Each link is an emulated NIC pair with 2
#              queues: with software steering the emulated NIC's RSS puts
#              each host pair on one queue (both of them on queue 0, as
#              the hash falls) and the shard reading it passes the other's
#              packets on through its inbound ring (counted); with flow
#              steering (SRv6, the rules mrcd installs) each lands on its
#              owner's queue;
#   main:      with MAIN_BUILD set (a build of main), its mrcd with 1 worker,
#              in the same round, for the ratio to the tree's 1-worker figure.
# Per worker CPU-second rates divide by the workers' CPU time; the dispatch
# share is the shards' dispatch cycles (the engine's per-step counters) over
# the CPU each worker got. Medians over RUNS rounds (default 3) of
# SECONDS_PER_RUN (default 3); with MRCD_LOCK set, each mrcd run holds that
# flock. Writes results/bench-workers.json.
# Usage: scripts/bench/bench-workers.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
args=(--build "$build" --runs "${RUNS:-3}" --seconds "${SECONDS_PER_RUN:-3}")
[ -n "${MAIN_BUILD:-}" ] && args+=(--main-build "$MAIN_BUILD")
[ -n "${MRCD_LOCK:-}" ] && args+=(--lock "$MRCD_LOCK")
/usr/bin/python3 scripts/bench/bench_workers.py "${args[@]}"
/usr/bin/python3 scripts/bench/machine.py results/bench-workers.json
echo "bench-workers: wrote results/bench-workers.json"
