#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# The doc check: every shell block of README.md and doc/*.md is run, so the
# commands the manual shows are commands that work. CI runs it after
# scripts/test.sh, from a clean clone with the tree built in build/.
#
# The convention, for whoever writes the docs (only fenced blocks count;
# indented code blocks are never run):
#
#   ```sh                    run: bash, from the repository root, with
#   ```bash                  `set -e`, so any failing command fails the
#   ```shell                 block (a pipeline's status is its last
#                            command's, as a reader typing it sees); each
#                            block alone in a fresh shell (no variables or
#                            `cd` carried over from an earlier one), stdin
#                            closed, at most 120 s
#   ```sh timeout=600        the same with another time bound, in seconds
#   ```sh no-run:REASON      not run here, because it needs what CI lacks;
#                            REASON is one of
#                              nic      a real NIC (DPDK ports on hardware)
#                              systemd  a service manager to install into
#                              cluster  several machines
#                              netns    network namespaces and root (the
#                                       netns suites run these setups
#                                       themselves)
#                              slow     longer than CI gives one block (the
#                                       whole test suite, a fuzz or
#                                       sanitizer build: CI runs those as
#                                       steps of its own)
#                            the output below lists every such block (file,
#                            line, reason): it is the one list of them
#   ```text                  output shown as a sample: never run, nor is a
#                            block of any other language (ini, c, ...)
#
# Anything else after sh/bash/shell (a misspelt marker, an unknown reason)
# is an error, as is a fence left open. A block should write its files
# under /tmp or build/: files it leaves in the work tree are reported.
#
# Usage: scripts/doc-check.sh [--list] [FILE.md...]   (default: README.md doc/*.md)
#   --list  extract and list the blocks without running any
# Exit status: 0 when every runnable block exits 0; 1 otherwise, or when a
# marker is wrong.
set -uo pipefail
cd "$(dirname "$0")/.."
list=0
files=()
while [ $# -gt 0 ]; do
	case $1 in
	--list) list=1; shift ;;
	-h|--help) sed -n '4,40p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "doc-check: unknown option $1 (see --help)" >&2; exit 2 ;;
	*) files+=("$1"); shift ;;
	esac
done
if [ ${#files[@]} -eq 0 ]; then
	files=(README.md)
	for f in doc/*.md; do [ -e "$f" ] && files+=("$f"); done
fi
work=$(mktemp -d /tmp/doc-check.XXXXXX)
trap 'rm -rf "$work"' EXIT
rc=0
/usr/bin/python3 scripts/lib/doc_blocks.py "$work" "${files[@]}" || rc=1

untracked() { git status --porcelain --untracked-files=all 2>/dev/null | sed -n 's/^?? //p' | sort; }
untracked > "$work/before"
ran=0 failed=0 skipped=()
while IFS=$'\t' read -r id file line kind reason timeout; do
	if [ "$kind" = no-run ]; then
		skipped+=("$file:$line: $reason")
		continue
	fi
	if [ $list = 1 ]; then
		echo "doc-check: $file:$line: runnable (timeout ${timeout} s)"
		continue
	fi
	t0=$(date +%s)
	timeout --kill-after=10 "$timeout" bash -c 'set -e; . "$1"' doc-block "$work/$id.sh" \
		< /dev/null > "$work/$id.log" 2>&1
	st=$?
	dt=$(($(date +%s) - t0))
	ran=$((ran + 1))
	if [ $st = 0 ]; then
		echo "doc-check: $file:$line: ok (${dt} s)"
		continue
	fi
	failed=$((failed + 1))
	rc=1
	case $st in
	124|137) echo "doc-check: $file:$line: FAILED: still running after ${timeout} s" ;;
	*) echo "doc-check: $file:$line: FAILED: exit status $st after ${dt} s" ;;
	esac
	sed 's/^/    | /' "$work/$id.sh"
	tail -n 20 "$work/$id.log" | sed 's/^/    > /'
done < "$work/index.tsv"

untracked > "$work/after"
left=$(comm -13 "$work/before" "$work/after")
[ -n "$left" ] && echo "doc-check: files the blocks left in the work tree:" && sed 's/^/    /' <<<"$left"
if [ ${#skipped[@]} -gt 0 ]; then
	echo "doc-check: not run here (file:line: what it needs):"
	printf '    %s\n' "${skipped[@]}"
fi
echo "doc-check: ${#files[@]} file(s), $ran block(s) run, $failed failed, ${#skipped[@]} not run"
exit $rc
