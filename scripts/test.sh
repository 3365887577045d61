#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# The one command that runs every test suite: sets up what is missing
# (scripts/setup.sh), builds, runs `meson test`, and ends with a one-line
# summary. Extra arguments go to `meson test` (e.g. --suite unit, or a test
# name). Benchmarks are not tests: see scripts/bench/bench-wire.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build}

scripts/setup.sh --build-dir "$build_dir" --hugepages "${MRC_HUGEPAGES:-512}"

rc=0
meson test -C "$build_dir" --print-errorlogs --num-processes 2 "$@" || rc=$?

# One closing line a person (and CI) can read: counts from meson's log.
/usr/bin/python3 scripts/lib/test_summary.py "$build_dir/meson-logs/testlog.json" || true
exit $rc
