#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# The built-in demo, shortened: mrcd with no config options runs 2 hosts x 8
# planes on the emulated fabric with plane 3 failing at 2 s. Checked from
# its --json summary: nothing lost or corrupted, data verified, every plane
# used, plane 3 visibly less than the others (it was down for the last
# second), and the daemon exits 0 (which also means every mempool was full
# again at exit). Usage: demo.sh MRCD_BINARY WORKDIR
set -euo pipefail
mrcd=$(realpath "$1")
work=$2
scripts=$(realpath "$(dirname "$0")/../../scripts")
mkdir -p "$work"
cd "$work"
rm -f summary.json mrcd-timeseries.jsonl mrcd.prom telemetry*.json telemetry*.err
if [ "$(nproc)" -lt 2 ]; then
	echo "demo: needs 2 CPUs (main + worker lcore); skipping"
	exit 77
fi
set +e
"$mrcd" -- --duration 3 --json summary.json > demo.log 2>&1 &
pid=$!
# While it runs, the telemetry commands answer from the workers' snapshots.
tel=$scripts/mrc-telemetry.py
sock=
for _ in $(seq 50); do
	sock=$(grep -o '/var/run/dpdk/[^ ]*/dpdk_telemetry.v2' demo.log 2>/dev/null)
	[ -n "$sock" ] && [ -S "$sock" ] && break
	sleep 0.1
done
sleep 1.5
/usr/bin/python3 "$tel" -s "$sock" /mrc/info /mrc/config /mrc/hosts /mrc/planes \
	/mrc/host,0 /mrc/host,1 /mrc/qps /mrc/fabric /mrc/qp,0x100 /mrc/qp,0x101 \
	/mrc/evs,0x100 /mrc/ports,0 /mrc/drops,1 /mrc/links /mrc/links,32 > telemetry.json 2> telemetry.err
tel_rc=$?
tel_bad_rc=1
for bad in /mrc/host,7 /mrc/qp,0x104 /mrc/qp,0xff /mrc/evs,x /mrc/ports,2 /mrc/drops,-1 /mrc/qps,4; do
	/usr/bin/python3 "$tel" -s "$sock" $bad > /dev/null 2>> telemetry-bad.err
	r=$?
	[ "$r" = 1 ] || { echo "demo: $bad answered (exit $r)"; tel_bad_rc=$r; }
done
wait $pid
rc=$?
set -e
tail -n 12 demo.log
if [ "$rc" != 0 ]; then
	echo "demo: mrcd exited $rc"
	echo "0 passed, 1 failed"
	exit 1
fi
if [ "$tel_rc" != 0 ]; then
	cat telemetry.err
	echo "demo: FAIL: telemetry query exited $tel_rc"
	echo "0 passed, 1 failed"
	exit 1
fi
if [ "$tel_bad_rc" != 1 ]; then
	echo "demo: FAIL: telemetry answered a query about something that does not exist"
	exit 1
fi
/usr/bin/python3 - summary.json mrcd-timeseries.jsonl telemetry.json <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
fails = []
def check(cond, what):
    if not cond:
        fails.append(what)
t = json.load(open(sys.argv[3]))
check(t["/mrc/info"]["phase"] == "running" and t["/mrc/info"]["hosts"] == 2,
      f"telemetry /mrc/info: {t['/mrc/info']}")
check(t["/mrc/hosts"] == [0, 1], f"telemetry /mrc/hosts: {t['/mrc/hosts']}")
check(len(t["/mrc/planes"]) == 8 and min(t["/mrc/planes"]) > 0,
      f"telemetry /mrc/planes: {t['/mrc/planes']}")
for n in (0, 1):
    h = t[f"/mrc/host,{n}"]
    check(h["host"] == n and h["bytes_sent"] > 0 and h["verify_errors"] == 0,
          f"telemetry /mrc/host,{n}: {h}")
check(len(t["/mrc/qps"]) == 4, f"telemetry /mrc/qps: {t['/mrc/qps']}")
check(t["/mrc/fabric"]["delivered_pkts"] > 0, "telemetry /mrc/fabric: nothing delivered")
q0, q1 = t["/mrc/qp,0x100"], t["/mrc/qp,0x101"]
check(q0["role"] == "sender" and q0["state"] == "RTS" and q0["tx_data_pkts"] > 0,
      f"telemetry /mrc/qp,0x100: {q0}")
check(q1["role"] == "receiver" and q1["rx_data_pkts"] > 0 and q1["rx_bad_rkey"] == 0,
      f"telemetry /mrc/qp,0x101: {q1}")
# The sender's reliability state: PSNs sent and acknowledged, the receiver's expected PSN.
check(all(k in q0 for k in ("snd_una", "snd_nxt", "inflight_pkts", "retries", "since_ack_us"))
      and q0["rel_error"] == 0 and q0["cwnd_bytes"] > 0 and "rx_epsn" in q1,
      f"telemetry /mrc/qp reliability state: {q0}, {q1}")
e = t["/mrc/evs,0x100"]
per_state = [e[k] for k in ("per_plane_good", "per_plane_skip", "per_plane_assumed_bad",
                            "per_plane_denied")]
check(sum(map(sum, per_state)) == e["slots"] == 160 and len(per_state[0]) == 8,
      f"telemetry /mrc/evs: {e}")
check(len(e["retired_evs"]) == e["retired_listed"] <= e["retired"],
      f"telemetry /mrc/evs retired list: {e}")
p = t["/mrc/ports,0"]
check(len(p["port_id"]) == 8 and all(x > 0 for x in p["tx_pkts"]), f"telemetry /mrc/ports,0: {p}")
lk = t["/mrc/links"]
links = {k: v for k, v in lk.items() if k not in ("fields", "next")}
check(lk["fields"][:3] == ["state", "tx_pkts", "tx_bytes"] and len(links) == 32 and lk["next"] == 32,
      f"telemetry /mrc/links: {list(lk)[:5]}")
check(all(len(v) == len(lk["fields"]) for v in links.values()), "telemetry /mrc/links: ragged rows")
check(sum(v[1] for v in links.values()) > 0, "telemetry /mrc/links: no link carried anything")
check(len(t["/mrc/links,32"]) > 2, "telemetry /mrc/links,32: empty page")
dr = t["/mrc/drops,1"]
check(dr["rx_parsed_ok"] > 0 and dr["rx_bad_icrc"] == 0 and dr["rx_unknown_qpn"] == 0,
      f"telemetry /mrc/drops,1: {dr}")
# Telemetry is a mid-run sample: it cannot exceed the final totals.
verified = sum(t[f"/mrc/host,{n}"]["bytes_verified"] for n in (0, 1))
check(0 < verified <= s["bytes_verified"],
      f"telemetry verified {verified} vs final {s['bytes_verified']}")
m = s["messages"]
check(m["completed"] > 100, f"only {m['completed']} messages completed")
check(0 < s["worker_cpu_share"] <= 1.05, f"worker CPU share {s['worker_cpu_share']}")
check(m["lost"] == 0 and m["failed"] == 0, f"messages lost {m['lost']}, failed {m['failed']}")
check(s["verify_errors"] == 0, f"{s['verify_errors']} messages corrupted")
check(any(k.startswith("fabric_drop") for k in s["drops"]) and "port_imissed" not in s["drops"],
      f"the emulated fabric's drops, and no port drops, in the summary: {s['drops']}")
check(s["bytes_verified"] >= m["completed"] * 1024 * 1024 * 0.9, "data not verified")
g = s["plane_gbps"]
check(len(g) == 8 and min(g) > 0, f"a plane carried nothing: {g}")
others = sum(g[:3] + g[4:]) / 7
check(g[3] < 0.9 * others, f"plane 3 ({g[3]:.3f}) not below the others ({others:.3f})")
lines = [json.loads(l) for l in open(sys.argv[2])]
check(any("event" in l and "plane 3 down" in l["event"] for l in lines), "no fault event in the time series")
check(sum(1 for l in lines if "plane_gbps" in l) >= 10, "time series too short")
for f in fails:
    print("demo: FAIL:", f)
print(f"demo: {0 if fails else 1} passed, {1 if fails else 0} failed")
sys.exit(1 if fails else 0)
PY
# The charts people look at come from the same series.
/usr/bin/python3 "$scripts/plot/plot.py" timeseries mrcd-timeseries.jsonl -o demo
for f in demo-planes.png demo-evs.png; do
	[ -s "$f" ] || { echo "demo: $f not written"; exit 1; }
done
