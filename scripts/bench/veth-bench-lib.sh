# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# Sourced by scripts/bench/bench-veth-failover.sh and bench-veth-loss.sh: checks
# (exit 77 when this machine cannot run them), the packages MPTCP needs,
# the namespaces of scripts/netns/veth-paths.sh under a prefix of this process,
# removed at exit whatever happens, and the trial runner in the background
# so that a signal (bench.sh's time budget) reaches the cleanup at once.
# The caller sets: name (for messages), build, paths, rate, queue_kb.

veth_skip() { echo "bench-$name: $*; skipping"; exit 77; }

veth_check() {
	[ "$(id -u)" = 0 ] || veth_skip "needs root (network namespaces)"
	[ -x "$build/app/mrcd/mrcd" ] && [ -x "$build/test/bench/bench_stream" ] ||
		{ echo "bench-$name: $build is not built (ninja -C $build)" >&2; exit 1; }
	[ "$(sysctl -n net.mptcp.enabled 2>/dev/null)" = 1 ] || veth_skip "this kernel has no MPTCP (net.mptcp.enabled)"
	# What MPTCP needs, installed when missing (Debian): mptcpize, nft, ip mptcp.
	local need=()
	command -v mptcpize >/dev/null || need+=(mptcpd)
	command -v nft >/dev/null || need+=(nftables)
	ip mptcp limits show >/dev/null 2>&1 || need+=(iproute2)
	/usr/bin/python3 -c 'import matplotlib' 2>/dev/null || need+=(python3-matplotlib)
	if [ ${#need[@]} -gt 0 ]; then
		echo "bench-$name: installing ${need[*]}"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" > /dev/null 2>&1 ||
			{ apt-get update -qq > /dev/null 2>&1 &&
			  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" > /dev/null 2>&1; } ||
			veth_skip "could not install ${need[*]}"
	fi
	# Namespaces left behind by a benchmark that was killed (their owner is gone).
	local ns owner
	for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep -E '^vethb[0-9]+-(a|b|s[0-9]+)$' || true); do
		owner=${ns#vethb}
		owner=${owner%%-*}
		kill -0 "$owner" 2>/dev/null || ip netns del "$ns" 2>/dev/null || true
	done
	prefix=vethb$$
	ip netns add "$prefix-probe" 2>/dev/null || veth_skip "cannot create network namespaces"
	ip netns del "$prefix-probe"
}

veth_cleanup() {
	set +e
	if [ -n "${runner:-}" ]; then
		kill -TERM "$runner" 2>/dev/null
		wait "$runner" 2>/dev/null
	fi
	"$root/scripts/netns/veth-paths.sh" down "$prefix" 2>/dev/null || true
	# VETH_KEEP=1 keeps every trial's configs, logs, --json and time series.
	if [ "${VETH_KEEP:-0}" = 1 ]; then echo "bench-$name: trial files kept in $work"; else rm -rf "$work"; fi
}

veth_up() {
	work=$(mktemp -d /tmp/bench-veth.XXXXXX)
	trap veth_cleanup EXIT
	trap 'exit 143' TERM
	trap 'exit 130' INT
	"$root/scripts/netns/veth-paths.sh" up "$prefix" "$paths" "$rate" "$queue_kb"
	"$root/scripts/netns/veth-paths.sh" mptcp "$prefix" "$paths"
}

# veth_run ARGS...: scripts/bench/bench_veth.py in the background, waited for.
veth_run() {
	/usr/bin/python3 "$root/scripts/bench/bench_veth.py" "$@" --prefix "$prefix" --paths "$paths" \
		--work "$work" --mrcd "$build/app/mrcd/mrcd" --stream "$build/test/bench/bench_stream" &
	runner=$!
	wait "$runner"
	local rc=$?
	runner=
	return $rc
}
