#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
"""scripts/test.sh's closing line: counts of meson's test log by result.

    test_summary.py BUILD/meson-logs/testlog.json
"""
import json, sys
counts = {}
for line in open(sys.argv[1]):
    r = json.loads(line).get("result", "")
    counts[r] = counts.get(r, 0) + 1
ok = counts.get("OK", 0) + counts.get("EXPECTEDFAIL", 0)
bad = sum(v for k, v in counts.items() if k in ("FAIL", "TIMEOUT", "ERROR", "UNEXPECTEDPASS"))
print(f"tests: {ok} passed, {bad} failed, {counts.get('SKIP', 0)} skipped")
