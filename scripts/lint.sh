#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# The tree's lint, as CI runs it: every tracked C file formatted by Debian 12's
# clang-format 14 with .clang-format. Exits non-zero and names each file that
# differs. `scripts/lint.sh --fix` rewrites them in place instead.
set -euo pipefail
cd "$(dirname "$0")/.."

want_major=14
fix=0
[ "${1:-}" = "--fix" ] && fix=1

fmt=$(command -v clang-format-$want_major || command -v clang-format || true)
if [ -z "$fmt" ]; then
	echo "lint: clang-format $want_major is missing (apt-get install clang-format-$want_major)" >&2
	exit 2
fi
# Another major version breaks lines differently: refuse it rather than
# report a tree formatted by 14 as wrong.
major=$("$fmt" --version | sed -n 's/.*version \([0-9]*\)\..*/\1/p')
if [ "$major" != "$want_major" ]; then
	echo "lint: $fmt is clang-format $major; the tree is formatted with $want_major" >&2
	exit 2
fi

bad=0
while IFS= read -r f; do
	if [ $fix = 1 ]; then
		"$fmt" -i "$f"
	elif ! "$fmt" --dry-run -Werror "$f" >/dev/null 2>&1; then
		echo "lint: $f differs from .clang-format (scripts/lint.sh --fix rewrites it)" >&2
		bad=$((bad + 1))
	fi
done < <(git ls-files '*.c' '*.h')

if [ $bad -gt 0 ]; then
	echo "lint: $bad file(s) misformatted" >&2
	exit 1
fi
echo "lint: format ok"
