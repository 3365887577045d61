#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# mrc-nic-probe on the virtual ports this machine has (net_ring, net_null):
# it exits 0, prints the offload matrix, and its JSON says for each port
# that neither steering nor SRv6 encap is offered, with the driver's
# reason, and what RSS net_null declares (IPv6 and IPv6/UDP).
# Usage: nic_probe.sh MRC_NIC_PROBE_BINARY WORKDIR
set -euo pipefail
probe=$(realpath "$1")
work=$2
mkdir -p "$work"
cd "$work"
rm -f probe.json
"$probe" -l 0 --no-huge -m 256 --no-pci --no-shconf --no-telemetry \
	--log-level='*:warning' --file-prefix="nic_probe_$$" \
	--vdev=net_ring0 --vdev=net_null0 -- --json probe.json > probe.log 2>&1 || {
	echo "nic_probe: FAIL: exit $?"
	cat probe.log
	exit 1
}
cat probe.log
grep -q "SRv6 encap (egress)    no   port 0: rte_flow_create" probe.log
python3 - probe.json <<'PY'
import json, sys
ports = json.load(open(sys.argv[1]))["ports"]
assert [p["driver"] for p in ports] == ["net_ring", "net_null"], ports
for p in ports:
    assert p["steering"] is False and p["encap"] is False, p
    assert "Function not implemented" in p["steering_why"], p
    assert "Function not implemented" in p["encap_why"], p
    assert p["encap_unverified"] is False and p["tx_desc_status"] is False, p
assert ports[1]["rss_ipv6"] and ports[1]["rss_ipv6_udp"], ports[1]
assert not ports[0]["rss_ipv6"], ports[0]
print("nic_probe: ok")
PY
