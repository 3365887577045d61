# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
"""What port_status.sh and netns_port_status.sh check alike: B's update reached A
between B's first request and B's first answer, and each of A's shards took the
new mask in that interval and stopped using the plane. Each failure is appended
to `bad`; each figure printed with the test's name."""
import json
import re


class Checks:
    def __init__(self, name):
        self.name = name
        self.bad = []

    def load(self, f):
        try:
            return json.load(open(f))
        except (OSError, ValueError) as e:
            self.bad.append(f"{f}: {e}")
            return None

    def mono(self, log, pattern, after=0):
        """The monotonic stamp of the first line of `log` matching and stamped at
        `after` or later, and the round trip it says an answer took (None when it
        says none)."""
        for line in open(log):
            if re.search(pattern, line):
                m = re.search(r"monotonic (\d+) ns", line)
                r = re.search(r"answered in (\d+) ns", line)
                if int(m.group(1)) < after:
                    continue
                return int(m.group(1)), int(r.group(1)) if r else None
        self.bad.append(f"{log}: no line matching {pattern!r}")
        return None, None

    def learned(self, t_down, t_learn, t_ack, rtt):
        """A learned B's mask between B's first copy of the update and B's first
        answer. Under load copies are resent before an answer comes and answers
        arrive out of order, so the answer B matched first need not be for the copy
        A took: the bound is B's first copy and B's first answer."""
        if not t_down <= t_learn <= t_ack:
            self.bad.append(f"A learned at {t_learn}, outside [B's first request {t_down}, "
                            f"B's first answer {t_ack}]")
        print(f"{self.name}: B took its port down; {(t_learn - t_down) / 1e3:.1f} us later "
              f"A learned it, {(t_ack - t_learn) / 1e3:.1f} us before B had an answer (the "
              f"answer's round trip {rtt / 1e3:.1f} us)")

    def stopped(self, a, t_learn, t_ack, first_gen=1):
        """Each of A's shards took the change of B's mask A learned at t_learn
        (generation `first_gen`: B's start may have changed it before) after A
        learned it (a worker stamps the take after it read the generation; 1 ms of
        slack for the CPUs' clocks) and before B had A's answer, had sent on plane 1 before, sent
        nothing there until the next change (B back) and kept sending on the others."""
        bad = self.bad
        for s in (s for s in (a or {}).get("shards", []) if s["host"] == 0):
            k, gens = s["shard"], s["peer_gens"]
            at = [i for i, g in enumerate(gens) if g["gen"] == first_gen]
            if not at:
                bad.append(f"A shard {k}: did not take generation {first_gen} of the peers' "
                           f"masks: {gens}")
                continue
            gens = gens[at[0]:]
            g = gens[0]
            # the QPs' own packets: the control thread's frames (neighbour discovery with
            # the T0, answers) also leave through the shard, on any plane whose port is up
            before = g["plane_qp_tx_pkts_at"]
            nxt = gens[1]["plane_qp_tx_pkts_at"] if len(gens) > 1 else s["plane_qp_tx_pkts"]
            after = [x - y for x, y in zip(nxt, before)]
            print(f"{self.name}: A shard {k} took B's mask "
                  f"{(g['mono_ns'] - t_learn) / 1e3:.1f} us after A learned it, "
                  f"{(t_ack - g['mono_ns']) / 1e3:.1f} us before B had the answer; its QPs' "
                  f"packets per plane before {before}, until B came back {after}")
            if not t_learn - 1_000_000 <= g["mono_ns"] <= t_ack:
                bad.append(f"A shard {k}: took B's mask at {g['mono_ns']}, outside [A learned "
                           f"it {t_learn} - 1 ms, B had the answer {t_ack}]")
            if before[1] == 0:
                bad.append(f"A shard {k}: sent nothing on plane 1 before: proves nothing")
            if after[1] != 0:
                bad.append(f"A shard {k}: sent {after[1]} packets on plane 1 after it took "
                           "the mask")
            if sum(after) == 0:
                bad.append(f"A shard {k}: sent nothing after the change: proves nothing")
