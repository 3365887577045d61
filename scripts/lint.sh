#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# The tree's lint, as CI runs it; every check runs, each names what it finds:
#  format    every tracked C file formatted by Debian 12's clang-format 14
#            with .clang-format;
#  spdx      every tracked file that can hold a comment has an
#            SPDX-License-Identifier line in its first 3 lines (after a
#            shebang; Markdown writes it as
#            <!-- SPDX-License-Identifier: BSD-3-Clause -->); data is exempt:
#            LICENSE itself, *.json, *.pcap, *.png, fuzz corpora and the golden
#            rendering test/golden/data/expected.txt;
#  spelling  Debian 12's codespell 2.2.2 with its default dictionaries over
#            the same files (docs, comments, messages; identifiers it takes
#            for typos are in `spell_ok` below, each with its reason);
#  pipes     no shell script under `set -o pipefail` ends a pipeline in
#            `grep -q` or `head` after a command that may still be writing:
#            the reader leaving early kills the writer with SIGPIPE, and
#            pipefail turns a match into a failure, at random (write such a
#            test as [[ $(cmd) == *text* ]], or grep -m1 on a file). A
#            pipeline fed by echo or printf, or ended by `|| true`, is fine.
# Exits 1 when a check fails, 2 when a tool is missing or another version.
# `scripts/lint.sh --fix` rewrites misformatted C files in place first.
set -euo pipefail
cd "$(dirname "$0")/.."

want_format=14
want_codespell=2.2.2
# Words codespell would "correct" that are right here:
#   ser          serialisation delay, in names (ser_ns)
#   ect          ECN-Capable Transport, the ECN codepoints ECT(0)/ECT(1)
#   clos         a Clos network (the fabric's topology)
#   inflight     bytes in flight, in names (inflight_bytes)
#   unparseable  the drop counters drop_unparseable / MRC_SIM_DROP_UNPARSEABLE
#   transprt     a misspelt section a unit test feeds the config loader
#   nd           IPv6 neighbour discovery (ND), in names (mrc_nd_*, /mrc/nd)
#   damon        the kernel's DAMON memory monitor, which .ci/run pauses
spell_ok=ser,ect,clos,inflight,unparseable,transprt,nd,damon
fix=0
[ "${1:-}" = "--fix" ] && fix=1
failed=()

# Data, not text that can carry a comment.
exempt() {
	case $1 in
	LICENSE | *.json | *.pcap | *.png | test/fuzz/corpus/* | test/golden/data/expected.txt) return 0 ;;
	esac
	return 1
}

# ---- format ----
fmt=$(command -v clang-format-$want_format || command -v clang-format || true)
if [ -z "$fmt" ]; then
	echo "lint: clang-format $want_format is missing (apt-get install clang-format-$want_format)" >&2
	exit 2
fi
# Another major version breaks lines differently: refuse it rather than
# report a tree formatted by 14 as wrong.
major=$("$fmt" --version | sed -n 's/.*version \([0-9]*\)\..*/\1/p')
if [ "$major" != "$want_format" ]; then
	echo "lint: $fmt is clang-format $major; the tree is formatted with $want_format" >&2
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
	echo "lint: format: $bad file(s) misformatted" >&2
	failed+=(format)
else
	echo "lint: format ok"
fi

# ---- SPDX ----
texts=()
bad=0
while IFS= read -r f; do
	[ -f "$f" ] || continue # deleted in the work tree, not yet in the index
	exempt "$f" && continue
	texts+=("$f")
	if ! head -n 3 "$f" | grep -qE 'SPDX-License-Identifier: [A-Za-z0-9]'; then
		echo "lint: $f: no SPDX-License-Identifier line in its first 3 lines" >&2
		bad=$((bad + 1))
	fi
done < <(git ls-files)
if [ $bad -gt 0 ]; then
	echo "lint: spdx: $bad file(s) without a licence line (add '<comment> SPDX-License-Identifier: BSD-3-Clause')" >&2
	failed+=(spdx)
else
	echo "lint: spdx ok (${#texts[@]} files)"
fi

# ---- spelling ----
cs=$(command -v codespell || true)
if [ -z "$cs" ]; then
	echo "lint: codespell $want_codespell is missing (apt-get install codespell)" >&2
	exit 2
fi
# Dictionaries change between releases: refuse another one rather than
# fail (or pass) the tree on words the pinned one does not know.
version=$("$cs" --version)
if [ "$version" != "$want_codespell" ]; then
	echo "lint: $cs is codespell $version; the tree is checked with $want_codespell" >&2
	exit 2
fi
if ! "$cs" --ignore-words-list "$spell_ok" -- "${texts[@]}" >&2; then
	echo "lint: spelling: fix the words above (or, for an identifier, add it to spell_ok in $0)" >&2
	failed+=(spelling)
else
	echo "lint: spelling ok"
fi

# ---- pipes ----
bad=0
while IFS= read -r f; do
	[ -f "$f" ] || continue
	[ "$f" = scripts/lint.sh ] && continue # its patterns below, not pipelines
	grep -q 'pipefail' "$f" || continue
	while IFS= read -r hit; do
		line=${hit#*:}
		case $line in
		*'|| true'*) continue ;;
		esac
		# The command that feeds the early reader: what precedes its pipe,
		# from the start of the pipeline ($(, if, !, && or a line start).
		feed=$(sed -E 's/[|] *(grep +-[A-Za-z]*q|head)\b.*//; s/.*(\$\(|&&|\bif |! |;)//; s/^[[:space:]]*//' <<< "$line")
		case $feed in
		echo\ * | printf\ *) continue ;;
		esac
		echo "lint: $f:${hit%%:*}: a pipeline ends in grep -q or head under pipefail: $line" >&2
		bad=$((bad + 1))
	done < <(grep -nE '[|] *(grep +-[A-Za-z]*q|head)\b' "$f" || true)
done < <(git ls-files '*.sh' '.ci/run' 'scripts/*')
if [ $bad -gt 0 ]; then
	echo "lint: pipes: $bad pipeline(s) that can fail at random (see the note at the top of $0)" >&2
	failed+=(pipes)
else
	echo "lint: pipes ok"
fi

if [ ${#failed[@]} -gt 0 ]; then
	echo "lint: failed: ${failed[*]}" >&2
	exit 1
fi
