#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
"""The fenced code blocks of Markdown files, for scripts/doc-check.sh.

    doc_blocks.py OUTDIR FILE.md...

writes OUTDIR/index.tsv, one line per shell block in file order:

    ID <tab> FILE <tab> LINE <tab> run|no-run <tab> REASON (- to run) <tab> TIMEOUT_S

and, for each block to run, OUTDIR/ID.sh with its text. LINE is the line of
the opening fence. The markers are those scripts/doc-check.sh documents:
info string sh, bash or shell (run), the same followed by no-run:REASON with
REASON one of REASONS (not run, listed), optionally timeout=SECONDS; every
other block (text, ini, c, no info string) is not a shell block. A shell
block with another word in its info string, an unknown reason or a fence
left open is an error (exit 1, each named as FILE:LINE), so that a typo in a
marker cannot silently skip a block.
"""
import os
import re
import sys

SHELLS = ("sh", "bash", "shell")
REASONS = ("nic", "systemd", "cluster", "netns", "slow")
DEFAULT_TIMEOUT_S = 120
FENCE = re.compile(r"^( {0,3})(`{3,}|~{3,})(.*)$")


def blocks(path):
    """(line, info, text) of each fenced block; raises ValueError on an open fence."""
    with open(path) as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m or (m.group(2)[0] == "`" and "`" in m.group(3)):
            i += 1
            continue
        indent, fence, info = len(m.group(1)), m.group(2), m.group(3).strip()
        start, body = i + 1, []
        i += 1
        while i < len(lines):
            c = FENCE.match(lines[i])
            if c and c.group(2)[0] == fence[0] and len(c.group(2)) >= len(fence) \
                    and not c.group(3).strip():
                break
            # Content lines lose up to the fence's own indentation.
            line = lines[i]
            body.append(line[min(indent, len(line) - len(line.lstrip(" "))):])
            i += 1
        else:
            raise ValueError(f"{path}:{start}: code fence {fence} never closed")
        yield start, info, "\n".join(body) + "\n"
        i += 1


def classify(info):
    """(kind, reason, timeout) of a shell block's info string, or None for another block."""
    words = info.split()
    if not words or words[0] not in SHELLS:
        return None
    kind, reason, timeout = "run", "", DEFAULT_TIMEOUT_S
    for w in words[1:]:
        if w.startswith("no-run:"):
            reason = w[len("no-run:"):]
            if reason not in REASONS:
                raise ValueError(f"no-run reason '{reason}' is not one of {', '.join(REASONS)}")
            kind = "no-run"
        elif re.fullmatch(r"timeout=[1-9][0-9]*", w):
            timeout = int(w.split("=")[1])
        else:
            raise ValueError(f"'{w}' is not a marker (no-run:REASON or timeout=SECONDS)")
    return kind, reason, timeout


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out, files = sys.argv[1], sys.argv[2:]
    os.makedirs(out, exist_ok=True)
    errors, n = [], 0
    with open(os.path.join(out, "index.tsv"), "w") as index:
        for path in files:
            found = []
            try:
                for b in blocks(path):
                    found.append(b)
            except (OSError, ValueError) as e:
                errors.append(str(e))  # the blocks before it still count
            for line, info, text in found:
                try:
                    c = classify(info)
                except ValueError as e:
                    errors.append(f"{path}:{line}: ```{info}: {e}")
                    continue
                if c is None:
                    continue
                kind, reason, timeout = c
                n += 1
                bid = f"{n:03d}"
                if kind == "run":
                    with open(os.path.join(out, bid + ".sh"), "w") as f:
                        f.write(text)
                index.write(f"{bid}\t{path}\t{line}\t{kind}\t{reason or '-'}\t{timeout}\n")
    for e in errors:
        print(f"doc-check: {e}", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
