# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
"""The checks of slow_worker.sh on mrcd's --json summary (argument 1)."""
import json
import sys

s = json.load(open(sys.argv[1]))
m = s["messages"]
fails = []


def check(cond, what):
    if not cond:
        fails.append(what)


check(s["flows"] == 1024, f"flows {s['flows']}, want 1024")
check(m["completed"] > 0 and m["posted"] == m["completed"] and m["lost"] == 0 and m["failed"] == 0,
      f"messages {m}")
check(s["verify_errors"] == 0 and s["bytes_verified"] == 1024 * m["completed"],
      f"verified {s['bytes_verified']} bytes, {s['verify_errors']} errors, "
      f"for {m['completed']} 1 KiB messages")
check(s["flows_without_completion"] == 0,
      f"{s['flows_without_completion']} flows never completed a message")
sent = s["data_pkts_sent"]
check(sent > 0 and s["retransmits"] * 1000 < sent,
      f"{s['retransmits']} resent of {sent} data packets: 0.1% at most on a loss-free link")
for f in fails:
    print("slow_worker: FAIL:", f)
print(f"slow_worker: {m['completed']} messages, {s['msgs_per_s']:.0f}/s, "
      f"{s['retransmits']} resent of {sent} data packets, worker at "
      f"{100 * s['worker_cpu_share']:.0f}% of a CPU")
sys.exit(1 if fails else 0)
