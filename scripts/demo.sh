#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# The one command that sets up and runs the built-in demo: installs what is
# missing and builds (scripts/setup.sh), then runs mrcd with its defaults -
# 2 hosts x 8 planes on the emulated fabric, 1 MiB writes both ways, plane 3
# failing at 2 s and back at 4 s, 6 s in all. Extra arguments go to mrcd
# (e.g. scripts/demo.sh -- --duration 20 --json summary.json).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --build-dir "${BUILD_DIR:-build}" >&2
exec "${BUILD_DIR:-build}/app/mrcd/mrcd" "$@"
