#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# Render every golden capture with mrc-dump and diff against expected.txt:
# the parser's view of each packet (and each refusal) is part of the golden
# record. Usage: check_text.sh MRC_DUMP DATA_DIR
set -eu
dump=$1
dir=$2
out=$(mktemp)
trap 'rm -f "$out"' EXIT
# mrc-dump exits 1 because rejects.pcap holds refused packets on purpose.
(cd "$dir" && LC_ALL=C ls *.pcap | while read -r f; do
	echo "== $f"
	"$dump" "$f" || true
done) > "$out"
if diff -u "$dir/expected.txt" "$out"; then
	echo "golden_text: 1 passed, 0 failed"
else
	echo "golden_text: 0 passed, 1 failed (if intended: scripts/golden-update.sh)"
	exit 1
fi
