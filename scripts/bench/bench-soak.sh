#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# Soak: the demo configuration (config/mrcd.ini) for SOAK_S seconds
# (default 1800), sampled every SOAK_INTERVAL seconds (default 10): RSS,
# mbufs out of the hosts' pools, QPs in ERROR, messages posted, completed
# and failed; at the end the messages lost and the verdict (memory flat in
# the second half against the first, nothing lost or failed, no QP in
# error). CI runs the same for 20 s (test/integration, daemon_soak).
# Writes results/bench-soak.json.
# Usage: scripts/bench/bench-soak.sh [BUILD_DIR]   (SOAK_S=1800 SOAK_INTERVAL=10)
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
build=${1:-build}
mrcd=$root/$build/app/mrcd/mrcd
[ -x "$mrcd" ] || { echo "bench-soak: $mrcd not built (ninja -C $build)" >&2; exit 1; }
mkdir -p results
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && /usr/bin/python3 "$root/scripts/bench/soak.py" "$mrcd" --seconds "${SOAK_S:-1800}" \
	--interval "${SOAK_INTERVAL:-10}" --json "$root/results/bench-soak.json")
/usr/bin/python3 scripts/bench/machine.py results/bench-soak.json
