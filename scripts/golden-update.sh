#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# Regenerate the golden captures, their rendering and the fuzz seed corpora
# after an INTENDED change to what goes on the wire. Review `git diff`
# (mrc-dump text is in test/golden/data/expected.txt) and say in the commit
# why the bytes changed. Usage: scripts/golden-update.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
ninja -C "$build" test/golden/gen_golden test/fuzz/gen_corpus app/mrc-dump/mrc-dump >/dev/null
data=test/golden/data
"$build/test/golden/gen_golden" --write "$data"
"$build/test/fuzz/gen_corpus" test/fuzz/corpus/pkt test/fuzz/corpus/srv6 test/fuzz/corpus/nd
(cd "$data" && LC_ALL=C ls ./*.pcap | sed 's|^\./||' | while read -r f; do
	echo "== $f"
	"../../../$build/app/mrc-dump/mrc-dump" "$f" || true
done) > "$data/expected.txt"
git status --short -- "$data" test/fuzz/corpus
