#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
"""Write the key reference of doc/configuration.md from mrcd's own key table.

    scripts/gen-config-doc.py [--build-dir DIR] [--check]

runs `mrcd -- --check`, which prints the effective configuration with every
key's default, unit and meaning (and the profile keys), and rewrites the
part of doc/configuration.md between <!-- config:begin --> and
<!-- config:end -->; the text around it is left as written. --check
rewrites nothing and exits 1 if the file is not what the generator would
write (for CI). Exit status 2 when mrcd cannot be run or the file lacks
the markers.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

BEGIN, END = "<!-- config:begin -->", "<!-- config:end -->"
# "default <value> (<unit or allowed values>): <meaning>", or without the
# unit. The value may contain colons and spaces (an IPv6 block, "n / 4"), so
# the form with a unit is tried first; its value never holds ": " before a
# word (that is where a meaning starts), though "...:: (in hex)" may.
DOC_UNIT_RE = re.compile(r"^default ((?:(?!: [^(]).)+?) \((.*?)\): (.*)$", re.S)
DOC_RE = re.compile(r"^default (.*?): (.*)$", re.S)
# A key named by a pattern, documented once: "h<host>.p<plane> default ...".
PATTERN_RE = re.compile(r"^(\S+<\S+) (default .*)$", re.S)


def run_check(build_dir):
    mrcd = os.path.join(build_dir, "app", "mrcd", "mrcd")
    # --check prints no line for a string key whose value is empty, only its
    # comment, which does not name it; a profile that sets the one such key
    # (size_mix) makes its name appear. Values are not documented, defaults are.
    # The EV and CC profile sections are printed only when defined: define 1.
    with tempfile.NamedTemporaryFile("w", suffix=".ini") as prof:
        prof.write("[profile]\nsize_mix = 4:1\n")
        prof.flush()
        try:
            out = subprocess.run([mrcd, "--", "--check", "--profile", prof.name,
                                  "--set", "ev_profile.1.probe_good=3",
                                  "--set", "cc_profile.1.gamma_pm=0"],
                                 capture_output=True, text=True, check=True)
        except (OSError, subprocess.CalledProcessError) as e:
            print(f"gen-config-doc: cannot run {mrcd} -- --check: {e}", file=sys.stderr)
            sys.exit(2)
    return out.stdout.splitlines()


def parse(lines):
    """Sections in order: (name, description, [(key, default, unit, meaning)])."""
    sections, cur, comment, pending = [], None, [], []
    profile = False
    for raw in lines:
        line = raw
        if line.startswith("; the profile, key by key"):
            profile = True
            comment, pending = [], []
            continue
        if profile:
            if not line.startswith("; "):
                continue
            line = line[2:]
        line = line.rstrip()
        if line == "" or line == ";":
            comment = []
            continue
        if line.startswith(";"):
            text = line[1:].strip()
            # A new key's text starts a block, or follows a pattern key's
            # (which has no line of its own); otherwise it continues one.
            if PATTERN_RE.match(text) or (text.startswith("default ") and comment and
                                          PATTERN_RE.match(comment[0])):
                flush_pattern(cur, comment)
                comment = [text]
            else:
                comment.append(text)
            pending = comment
            continue
        m = re.match(r"^\[([a-z_.0-9]+)\]$", line)
        if m:
            flush_pattern(cur, comment)
            name = m.group(1)
            if name.startswith("host."):
                if any(s[0] == "host.<n>" for s in sections):
                    cur = None  # the other hosts repeat host 0's keys
                    comment = []
                    continue
                name = "host.<n>"
            elif re.match(r"^(ev|cc)_profile\.[0-9]+$", name):
                name = name.split(".")[0] + ".<n>"
            cur = (name, " ".join(pending), [])
            sections.append(cur)
            comment = []
            continue
        m = re.match(r"^([a-z_.0-9]+) =( |$)", line)
        if m and cur is not None:
            if comment:
                key_doc(cur, m.group(1), comment)
            comment = []
    return sections


def flush_pattern(cur, comment):
    """A pattern key (h<host>.p<plane>, vdev.<n>) has a comment but no line of its own."""
    if cur is None or not comment:
        return
    m = PATTERN_RE.match(" ".join(comment))
    if m:
        key_doc(cur, m.group(1), [m.group(2)])
        comment.clear()


def key_doc(cur, key, comment):
    text = " ".join(comment)
    m = PATTERN_RE.match(text)
    if m:
        key, text = m.group(1), m.group(2)  # mac.p0 = ... documented as mac.p<plane>
        if any(k[0] == key for k in cur[2]):
            return
    m = DOC_UNIT_RE.match(text)
    if m:
        cur[2].append((key, m.group(1), m.group(2), m.group(3)))
        return
    m = DOC_RE.match(text)
    if m:
        cur[2].append((key, m.group(1), "", m.group(2)))
        return
    cur[2].append((key, "", "", text))


def cell(s):
    return s.replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")


def code(s):
    return "`" + s.replace("|", "\\|") + "`" if s else ""


def render(sections):
    out = [BEGIN,
           "<!-- Generated by scripts/gen-config-doc.py from `mrcd -- --check`; edit the key",
           "     table in app/common/mrcd_config_schema.c, not this region. -->", ""]
    for name, desc, keys in sections:
        title = "[profile] (a profile file)" if name == "profile" else f"[{name}]"
        out += [f"### {cell(title)}", ""]
        if desc:
            out += [cell(desc), ""]
        out += ["| key | default | unit or values | meaning |", "|---|---|---|---|"]
        for key, default, unit, meaning in keys:
            out.append(f"| {code(key)} | {code(default)} | {cell(unit)} | {cell(meaning)} |")
        out.append("")
    out.append(END)
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build-dir", default="build")
    ap.add_argument("--check", action="store_true",
                    help="exit 1 if doc/configuration.md is out of date; write nothing")
    args = ap.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    os.chdir(root)
    path = os.path.join("doc", "configuration.md")
    text = open(path).read()
    if BEGIN not in text or END not in text:
        print(f"gen-config-doc: {path} lacks the {BEGIN} ... {END} markers", file=sys.stderr)
        return 2
    head, rest = text.split(BEGIN, 1)
    tail = rest.split(END, 1)[1]
    new = head + render(parse(run_check(args.build_dir))) + tail
    if args.check:
        if new != text:
            print(f"gen-config-doc: {path} is out of date: run scripts/gen-config-doc.py",
                  file=sys.stderr)
            return 1
        return 0
    if new != text:
        with open(path + ".tmp", "w") as f:
            f.write(new)
        os.replace(path + ".tmp", path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
