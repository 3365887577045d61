#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# Failover on the emulated fabric (issue 6, item 3), fake clock:
# test/bench/bench_failover, 8 QP pairs from host 0 to host 1 over 8 planes x
# 4 T1s of 100 Gb/s, 8 x 64 KiB WRITE-with-immediate in flight per QP (line
# rate), every byte verified. At 2 ms one fault, each in its own run:
#   plane     a whole plane DOWN (both hosts see their port go down)
#   plane-bh  a whole plane black-holed (ports stay up: the host cannot see it)
#   link      one T0-T1 cable DOWN (the hosts cannot see it)
#   t1-bh     one T1 switch black-holed (up, forwards nothing)
# (With two hosts, a T0-T1 cable and its T1 carry the same paths, so link and
# t1-bh differ only in how the fabric counts the drops.) Per fault, median
# over SEEDS seeds (the seed also picks the plane and the T1):
#   ev_retired_us   fault -> first EV retired (ASSUMED_BAD) on any QP
#   recovered_us    fault -> start of the first 10 us window from which every
#                   later 50 us run of windows averages >= 95% of (pre-fault
#                   goodput x surviving capacity), goodput = payload placed at
#                   the receiver (surviving capacity: 7/8 for a plane, all of
#                   it for a link or a T1, which the other 3 T1s carry)
#   stall_msg_us    largest gap between successive message completions at the
#                   receiver (any QP) after the fault; stall_msg_qp_us the
#                   worst single QP's; stall_pkt_us between data packets placed
#   msgs_lost       posted - completed after a drain (goal 0)
# and, for the faults the host cannot see, one long run (20 ms after the
# fault) for the steady cost of a dead element: EV probes per second, packets
# the fabric drops there per second, data packets resent after the fault.
# Writes results/bench-failover.json and results/bench-failover.png.
# Usage: scripts/bench-failover.sh [BUILD_DIR] [SEEDS]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
seeds=${2:-3}
bin=$build/test/bench/bench_failover
[ -x "$bin" ] || { echo "bench-failover: $bin not built (ninja -C $build)" >&2; exit 1; }
mkdir -p results
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# One run; tried again if the EAL could not start (another benchmark held its memory).
run() {
	local out=$1
	shift
	for _ in 1 2 3; do
		"$bin" "$@" 2>/dev/null | grep -v '^EAL' > "$out" || true
		[ -s "$out" ] && return 0
		sleep 1
	done
	echo "bench-failover: $bin $* printed nothing" >&2
	return 1
}
faults="plane plane-bh link t1-bh"
echo "bench-failover: fake clock, 8 QPs at line rate, fault at 2 ms, $seeds seeds"
run "$tmp/none-1.json" --fault none --seed 1 --series
for f in $faults; do
	for s in $(seq 1 "$seeds"); do
		run "$tmp/$f-$s.json" --fault "$f" --seed "$s" --series
		# Half the data in flight: still line rate, half the queueing delay.
		run "$tmp/o4-$f-$s.json" --fault "$f" --seed "$s" --outstanding 4
	done
done
echo "bench-failover: steady cost of an unseen dead element, 20 ms after the fault"
for f in plane-bh link; do
	run "$tmp/long-$f.json" --fault "$f" --seed 1 --after-us 20000
done
/usr/bin/python3 - "$tmp" "$seeds" "$faults" <<'PY'
import json, statistics, sys
tmp, seeds, faults = sys.argv[1], int(sys.argv[2]), sys.argv[3].split()
load = lambda p: json.load(open(p))
med = lambda v: statistics.median(v) if v else None
keys = ["ev_retired_us", "recovered_us", "stall_msg_us", "stall_msg_qp_us", "stall_pkt_us",
        "goodput_before_gbps", "goodput_after_gbps"]
ref = load(f"{tmp}/none-1.json")
out = {"bench": "failover", "tool": "test/bench/bench_failover", "seeds": seeds,
       "qps": ref["qps"], "outstanding": ref["outstanding"], "msg_bytes": ref["msg_bytes"],
       "link_gbps": 100, "planes": 8, "t1s": 4, "fault_us": ref["fault_us"],
       "bin_us": ref["bin_us"], "hold_us": ref["hold_us"], "goal_recovered_us": 100,
       "no_fault": {k: ref[k] for k in ("goodput_before_gbps", "stall_msg_before_us",
                                        "stall_pkt_before_us", "msgs_lost")},
       "faults": {}}
print(f"{'fault':>9} | {'EV retired':>10} | {'recovered':>9} | {'stall msg':>9} | "
      f"{'stall QP':>8} | {'stall pkt':>9} | lost | verified MiB | resent")
for f in faults:
    runs = [load(f"{tmp}/{f}-{s}.json") for s in range(1, seeds + 1)]
    r = {k: med([x[k] for x in runs if x[k] >= 0]) for k in keys}
    r["recovered_all"] = all(x["recovered"] for x in runs)
    r["surviving_fraction"] = runs[0]["surviving_fraction"]
    r["msgs_lost"] = sum(x["msgs_lost"] for x in runs)
    r["verify_errors"] = sum(x["verify_errors"] for x in runs)
    r["bytes_verified"] = sum(x["bytes_verified"] for x in runs)
    r["resent_pkts"] = med([x["after_fault"]["resent_pkts"] for x in runs])
    r["fabric_dropped_at_fault"] = med([x["after_fault"]["fabric_dropped_at_fault"] for x in runs])
    r["runs"] = [{k: x[k] for k in keys + ["seed", "plane", "t1", "msgs_lost"]} for x in runs]
    r["series_gbps"] = runs[0]["series_gbps"]
    r["target_gbps"] = runs[0]["target_gbps"]
    out["faults"][f] = r
    print(f"{f:>9} | {r['ev_retired_us']:8.1f}us | {r['recovered_us']:7.1f}us | "
          f"{r['stall_msg_us']:7.1f}us | {r['stall_msg_qp_us']:6.1f}us | {r['stall_pkt_us']:7.1f}us |"
          f" {r['msgs_lost']:4d} | {r['bytes_verified'] / 2**20:12.0f} | {r['resent_pkts']}")
out["outstanding_4"] = {}
print("with 4 messages in flight per QP instead of 8:")
for f in faults:
    runs = [load(f"{tmp}/o4-{f}-{s}.json") for s in range(1, seeds + 1)]
    r = {k: med([x[k] for x in runs if x[k] >= 0]) for k in keys}
    r["msgs_lost"] = sum(x["msgs_lost"] for x in runs)
    r["verify_errors"] = sum(x["verify_errors"] for x in runs)
    r["srtt_us"] = med([x["qp0_at_fault"]["srtt_us"] for x in runs])
    r["reorder_window_us"] = med([x["qp0_at_fault"]["reorder_window_us"] for x in runs])
    out["outstanding_4"][f] = r
    print(f"{f:>9} | {r['ev_retired_us']:8.1f}us | {r['recovered_us']:7.1f}us | "
          f"{r['stall_msg_us']:7.1f}us | {r['stall_msg_qp_us']:6.1f}us | {r['stall_pkt_us']:7.1f}us |"
          f" {r['msgs_lost']:4d} | srtt {r['srtt_us']} us, reorder window {r['reorder_window_us']} us")
for f in faults:
    x = load(f"{tmp}/{f}-1.json")
    out["faults"][f]["srtt_us"] = x["qp0_at_fault"]["srtt_us"]
    out["faults"][f]["reorder_window_us"] = x["qp0_at_fault"]["reorder_window_us"]
for f in ("plane-bh", "link"):
    x = load(f"{tmp}/long-{f}.json")
    out["faults"][f]["steady"] = dict(x["steady"], after_us=x["after_us"],
                                      resent_pkts=x["after_fault"]["resent_pkts"],
                                      plane_outs=x["after_fault"].get("plane_outs"))
    print(f"{f:>9}: from {x['steady']['from_us_after_fault']:.0f} us to {x['after_us']} us after "
          f"the fault: {x['steady']['ev_probes_per_s']:.0f} EV probes/s, "
          f"{x['steady']['fabric_drops_per_s']:.0f} packets/s dropped there; "
          f"{x['after_fault']['resent_pkts']} data packets resent in all")
json.dump(out, open("results/bench-failover.json", "w"), indent=1)
PY
/usr/bin/python3 - <<'PY'
import json
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
r = json.load(open("results/bench-failover.json"))
w, t0 = r["bin_us"], r["fault_us"]
names = {"plane": "plane down (ports show it)", "plane-bh": "plane black-holed (unseen)",
         "link": "T0-T1 link down (unseen)", "t1-bh": "T1 black-holed (unseen)"}
fig, axs = plt.subplots(2, 2, figsize=(11, 7), sharex=True, sharey=True)
for ax, (f, x) in zip(axs.flat, r["faults"].items()):
    s = x["series_gbps"]
    ts = [b * w - t0 for b in range(len(s))]
    keep = [i for i, t in enumerate(ts) if -200 <= t <= 600]
    ax.step([ts[i] for i in keep], [s[i] for i in keep], where="post", color="tab:blue",
            label=f"goodput at the receiver, {w} us windows")
    ax.axvline(0, color="tab:red", label="fault")
    ax.axhline(x["target_gbps"], color="tab:gray", ls="--", label="95% of surviving capacity")
    if x["recovered_us"] is not None:
        ax.axvline(x["runs"][0]["recovered_us"], color="tab:green", ls=":",
                   label="recovered (this seed)")
    ax.axvspan(0, r["goal_recovered_us"], color="tab:orange", alpha=0.08, label="goal: 100 us")
    ax.set_title(f"{names.get(f, f)}: recovered {x['recovered_us']:.0f} us (median)", fontsize=10)
    ax.set_ylim(0, 850)
    ax.grid(alpha=0.3)
for ax in axs[1]:
    ax.set_xlabel("us from the fault (fake clock)")
for ax in axs[:, 0]:
    ax.set_ylabel("Gb/s")
axs[0][0].legend(fontsize=7, loc="lower right")
fig.suptitle(f"failover on the emulated fabric: {r['qps']} QPs, 8 planes x 4 T1s, 100 Gb/s links "
             f"(seed 1 shown; medians of {r['seeds']} seeds)", fontsize=10)
fig.tight_layout()
fig.savefig("results/bench-failover.png", dpi=100)
PY
echo "bench-failover: wrote results/bench-failover.json and results/bench-failover.png"
