#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# The soak benchmark (scripts/bench/bench-soak.sh) run short: the demo for
# 20 s, sampled every 2 s; memory must stay flat, no message may be lost or
# fail, no QP may end in ERROR (scripts/bench/soak.py --check).
# Usage: soak.sh MRCD_BINARY WORKDIR
set -euo pipefail
mrcd=$(realpath "$1")
work=$2
src=$(realpath "$(dirname "$0")/../..")
mkdir -p "$work"
cd "$work"
if [ "$(nproc)" -lt 2 ]; then
	echo "soak: needs 2 CPUs (main + worker lcore); skipping"
	exit 77
fi
/usr/bin/python3 "$src/scripts/bench/soak.py" "$mrcd" --seconds 20 --interval 2 --json soak.json \
	--check
