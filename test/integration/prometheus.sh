#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# The metrics endpoint scraped by a real Prometheus (Debian's prometheus
# package; scripts/setup.sh installs it). mrcd serves GET /metrics on a
# port of its choosing ([telemetry] metrics_listen = 127.0.0.1:0) while two
# hosts on different T0s send to each other and
# config/scenarios/uplink-down.ini takes down plane 1's link T0 0 -> T1 2
# from 200 to 800 ms; Prometheus, on a free port with a scrape config for
# that endpoint every 250 ms, stores the series. Once the checks are done,
# SIGTERM stops mrcd. Checks:
#   - every scrape this test takes itself (at least 4, before, during and
#     after the fault) passes `promtool check metrics`, and carries the
#     failed path's loss series with host, plane and t1 labels;
#   - Prometheus's HTTP API: the target is up, and the query for host 0's
#     path (plane 1, T1 2) losses answers more than zero, while every other
#     path of host 0 lost at most a few (a late SACK may be judged lost);
#   - the RTT histogram of that path has samples, and /metrics on another
#     path or method gets 404 and 405.
# Exits 77 (skipped) where prometheus or promtool is missing.
# Usage: prometheus.sh MRCD_BINARY WORKDIR
set -euo pipefail
mrcd=$(realpath "$1")
work=$2
src=$(realpath "$(dirname "$0")/../..")
. "$(dirname "$0")/lib.sh"
mkdir -p "$work"
cd "$work"
rm -rf prom-data scrapes mrcd.log prom.log result.txt
mkdir -p scrapes
if [ "$(nproc)" -lt 2 ]; then
	echo "prometheus: needs 2 CPUs (main + worker lcore); skipping"
	exit 77
fi
if ! command -v prometheus > /dev/null || ! command -v promtool > /dev/null; then
	echo "prometheus: Debian's prometheus package is not installed (scripts/setup.sh installs it); skipping"
	exit 77
fi
cat > profile.ini <<INI
; each host sends 64 KiB messages to the other, 1 Gb/s per QP, until the run ends
[profile]
pattern = pairs
msg_kb = 64
qps_per_peer = 1
outstanding = 4
rate_gbps = 1
verify = true
INI
cat > mrcd.ini <<INI
[daemon]
hosts = 2
planes = 2
duration_s = 30
profile = $work/profile.ini
scenario = $src/config/scenarios/uplink-down.ini
[fabric]
t1s = 3
hosts_per_t0 = 1
[lcores]
stats_interval_ms = 20
[telemetry]
timeseries = none
prometheus = none
console = false
metrics_listen = 127.0.0.1:0
INI

mrcd_pid=
prom_pid=
cleanup() {
	[ -n "$prom_pid" ] && kill "$prom_pid" 2> /dev/null && wait "$prom_pid" 2> /dev/null
	[ -n "$mrcd_pid" ] && kill "$mrcd_pid" 2> /dev/null && wait "$mrcd_pid" 2> /dev/null
	true
}
trap cleanup EXIT

"$mrcd" -- -f mrcd.ini > mrcd.log 2>&1 &
mrcd_pid=$!
url=
for _ in $(seq 100); do
	url=$(grep -o 'http://127.0.0.1:[0-9]*/metrics' mrcd.log | head -1 || true)
	[ -n "$url" ] && break
	kill -0 "$mrcd_pid" 2> /dev/null || break
	sleep 0.1
done
if [ -z "$url" ]; then
	cat mrcd.log
	echo "prometheus: FAIL: mrcd announced no metrics endpoint"
	exit 1
fi
target=${url#http://}
target=${target%/metrics}
# A free port for Prometheus's own web and API (bound, then let go).
prom_port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat > prom.yml <<YML
global:
  scrape_interval: 250ms
  scrape_timeout: 200ms
scrape_configs:
  - job_name: mrcd
    static_configs:
      - targets: ['$target']
YML
promtool check config prom.yml > /dev/null
prometheus --config.file=prom.yml --storage.tsdb.path=prom-data \
	--web.listen-address="127.0.0.1:$prom_port" --log.level=warn > prom.log 2>&1 &
prom_pid=$!

set +e
timeout 60 /usr/bin/python3 - "$url" "$prom_port" "$mrcd_pid" > result.txt 2>&1 <<'PY'
import json, os, re, subprocess, sys, time, urllib.parse, urllib.request
url, prom_port, mrcd_pid = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
api = f"http://127.0.0.1:{prom_port}"
fails, scrapes = [], 0
FAILED = 'host="0",plane="1",t1="2"'

def get(u, timeout=5):
    with urllib.request.urlopen(u, timeout=timeout) as r:
        return r.status, r.headers, r.read()

def scrape(tag):
    """Take one scrape of mrcd's endpoint and have promtool check it."""
    global scrapes
    st, hdr, body = get(url)
    path = f"scrapes/{scrapes:02d}-{tag}.prom"
    open(path, "wb").write(body)
    scrapes += 1
    if st != 200 or not hdr["Content-Type"].startswith("text/plain; version=0.0.4"):
        fails.append(f"scrape {path}: status {st}, type {hdr['Content-Type']}")
    r = subprocess.run(["promtool", "check", "metrics"], input=body, capture_output=True)
    if r.returncode != 0 or r.stdout.strip() or r.stderr.strip():
        fails.append(f"promtool check metrics {path}: exit {r.returncode}: "
                     f"{(r.stdout + r.stderr).decode()[:400]}")
    text = body.decode()
    if f'mrcd_path_lost_packets_total{{{FAILED},cause="ev_order"}}' not in text:
        fails.append(f"scrape {path} lacks the failed path's loss series")
    return text

def query(q):
    u = f"{api}/api/v1/query?" + urllib.parse.urlencode({"query": q})
    st, _, body = get(u)
    r = json.loads(body)
    if r.get("status") != "success":
        raise RuntimeError(f"query {q}: {r}")
    return r["data"]["result"]

def alive():
    try:
        os.kill(mrcd_pid, 0)
        return True
    except OSError:
        return False

scrape("start")
for _ in range(100):  # Prometheus up and answering
    try:
        if get(f"{api}/-/ready")[0] == 200:
            break
    except Exception:
        pass
    time.sleep(0.1)
scrape("ready")
# Wait for Prometheus to have the failed path's losses, scraping as we go.
lost_failed, t0 = 0.0, time.time()
while time.time() - t0 < 8 and alive():
    r = query(f'sum(mrcd_path_lost_packets_total{{{FAILED}}})')
    if r and float(r[0]["value"][1]) > 0:
        lost_failed = float(r[0]["value"][1])
        break
    time.sleep(0.25)
scrape("fault-seen")
time.sleep(0.6)  # a few more scrapes by Prometheus after the fault
text = scrape("after")
up = query('up{job="mrcd"}')
if not up or up[0]["value"][1] != "1":
    fails.append(f"Prometheus's target for mrcd is not up: {up}")
if lost_failed <= 0:
    fails.append(f"Prometheus has no losses for the failed path ({FAILED})")
others = query('sum by (plane, t1) (mrcd_path_lost_packets_total{host="0"})')
for s in others:
    m, v = s["metric"], float(s["value"][1])
    if (m["plane"], m["t1"]) != ("1", "2") and v > 5:
        fails.append(f"path plane {m['plane']} t1 {m['t1']} of host 0 lost {v}: only (1, 2) fails")
rtt = query(f'mrcd_path_rtt_seconds_count{{{FAILED}}}')
if not rtt or float(rtt[0]["value"][1]) <= 0:
    fails.append(f"no RTT samples for the failed path in Prometheus: {rtt}")
sent = query('sum by (plane, t1) (mrcd_path_tx_data_packets_total{host="0"})')
if len([s for s in sent if float(s["value"][1]) > 0]) != 6:
    fails.append(f"host 0 should send on all 6 (plane, T1) paths: {sent}")
for path, method, want in (("/", "GET", 404), ("/metrics", "POST", 405)):
    req = urllib.request.Request(url.replace("/metrics", path), method=method)
    try:
        urllib.request.urlopen(req, timeout=5)
        code = 200
    except urllib.error.HTTPError as e:
        code = e.code
    if code != want:
        fails.append(f"{method} {path}: {code}, want {want}")
# The endpoint counts what it answered: our scrapes and Prometheus's (200),
# the 404 and the 405 just above; this scrape itself is not in yet.
ours = scrapes
text = scrape("server-counters")
for status, least in (("200", ours), ("404", 1), ("405", 1)):
    m = re.search(r'^mrcd_metrics_http_requests_total\{status="%s"\} (\d+)$' % status, text, re.M)
    if m is None or int(m.group(1)) < least:
        fails.append(f"mrcd_metrics_http_requests_total{{status={status}}} is "
                     f"{m.group(1) if m else 'missing'}, want >= {least}")
if scrapes < 4:
    fails.append(f"only {scrapes} scrapes taken")
print(f"prometheus: {scrapes} scrapes checked by promtool; failed path lost {lost_failed:.0f} "
      f"(Prometheus API); other paths {[(s['metric']['plane'], s['metric']['t1'], s['value'][1]) for s in others]}")
for f in fails:
    print("prometheus: FAIL:", f)
sys.exit(1 if fails else 0)
PY
py_rc=$?
cat result.txt
# Done asking: SIGTERM drains and stops it (exit 0).
kill -TERM "$mrcd_pid"
wait "$mrcd_pid"
rc=$?
mrcd_pid=
set -e
tail -n 3 mrcd.log
if [ "$rc" != 0 ] || [ "$py_rc" != 0 ]; then
	echo "prometheus: FAIL: mrcd exited $rc, checks $py_rc"
	tail -n 20 prom.log
	exit 1
fi
echo "prometheus: OK"
