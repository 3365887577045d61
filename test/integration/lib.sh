# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# Shared by the integration scripts (source it).

_mrc_lib_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mrc_telemetry=$_mrc_lib_dir/../../scripts/mrc-telemetry.py

# mrc_sock LOG: the telemetry socket the mrcd writing LOG announced ("" before).
mrc_sock() {
	grep -o '/var/run/dpdk/[^ ]*/dpdk_telemetry.v2' "$1" 2>/dev/null | head -1 || true
}

# mrc_msgs_completed LOG: messages the first host of the mrcd writing LOG has
# completed, read over telemetry; 0 until it answers.
mrc_msgs_completed() {
	local s
	s=$(mrc_sock "$1")
	[ -n "$s" ] || { echo 0; return; }
	/usr/bin/python3 "$mrc_telemetry" -s "$s" /mrc/host,0 2>/dev/null |
		/usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin); print(list(d.values())[0]["msgs_completed"])' 2>/dev/null || echo 0
}
