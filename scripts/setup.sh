#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# Prepare a Debian 12 machine for mrcd and build it: install the Debian
# packages that are missing (and only those), reserve hugepages when the
# machine allows it, and configure + build with meson. Safe to run again.
set -euo pipefail

usage() {
	cat <<USAGE
Usage: scripts/setup.sh [OPTIONS]
Install what mrcd needs on Debian 12 (as root), reserve hugepages when
possible, and build.

Options:
  --build-dir DIR    meson build directory (default: build)
  --hugepages N      2 MiB hugepages to reserve (default: 512, i.e. 1 GiB; 0 = none)
  --no-build         install and reserve only
  --dev              also install the developer tools (clang + libFuzzer runtime,
                     valgrind, dpdk-testpmd) that .ci/run and the benchmarks use
  -h, --help         this text

Without hugepages everything still works: mrcd and the tests pass
--no-huge to DPDK by themselves when none are free.
Extra meson options can be passed in MRC_MESON_ARGS (e.g. -Dwerror=true).
USAGE
}

build_dir=build
hugepages=512
do_build=1
dev=0
while [ $# -gt 0 ]; do
	case "$1" in
	--build-dir) build_dir=${2:?--build-dir needs a directory}; shift 2 ;;
	--hugepages)
		hugepages=${2:?--hugepages needs a number}
		case "$hugepages" in ''|*[!0-9]*) echo "setup: --hugepages '$hugepages' is not a number" >&2; exit 2 ;; esac
		shift 2 ;;
	--no-build) do_build=0; shift ;;
	--dev) dev=1; shift ;;
	-h|--help) usage; exit 0 ;;
	*) echo "setup: unknown option '$1' (see --help)" >&2; exit 2 ;;
	esac
done

cd "$(dirname "$0")/.."

# What the build, the tests and the tools need. tshark decodes the golden
# captures; dpdk brings dpdk-telemetry.py; matplotlib draws
# scripts/plot/plot.py's charts (the demo's and the benchmarks'). dpdk-testpmd,
# the packet-rate reference of scripts/bench/bench-rate.sh, is in dpdk-dev.
# libibverbs-dev gives lib_mrc the verbs types of <infiniband/verbs.h>
# (libdpdk-dev pulls it in too; named so that lib_mrc's need is said).
# make builds examples/sdk by its own makefile in test/integration/verbs_front.sh.
# openmpi-bin's mpirun launches the cluster test (test/integration/cluster_mpirun.sh);
# the network-namespace test pings a host through mrcd's tap (iputils-ping),
# and one of its routers drops an endpoint request (nftables);
# prometheus (its server and promtool) scrapes mrcd's metrics endpoint in
# test/integration/prometheus.sh.
packages=(gcc make pkg-config meson ninja-build libdpdk-dev dpdk libnuma-dev libpcap-dev
	libibverbs-dev python3 python3-matplotlib tshark iproute2 nftables openmpi-bin iputils-ping prometheus)
if [ "$dev" = 1 ]; then
	packages+=(clang libclang-rt-14-dev valgrind dpdk-dev)
fi

missing=()
for p in "${packages[@]}"; do
	if [[ $(dpkg-query -W -f='${Status}' "$p" 2>/dev/null) != *'install ok installed'* ]]; then
		missing+=("$p")
	fi
done
if [ ${#missing[@]} -gt 0 ]; then
	if [ "$(id -u)" != 0 ]; then
		echo "setup: missing packages: ${missing[*]}" >&2
		echo "setup: run as root, or: sudo apt-get install ${missing[*]}" >&2
		exit 1
	fi
	echo "setup: installing ${missing[*]}"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
		"${missing[@]}" >/dev/null
else
	echo "setup: all ${#packages[@]} packages present"
fi

# Hugepages: best effort. Containers and CI sandboxes often refuse; that is
# fine, DPDK then runs with --no-huge.
reserve_hugepages() {
	local nr=/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages have
	[ "$hugepages" -gt 0 ] || return 0
	if [ "$(id -u)" != 0 ] || [ ! -w "$nr" ]; then
		echo "setup: cannot reserve hugepages here; DPDK will use --no-huge"
		return 0
	fi
	have=$(cat "$nr")
	if [ "$have" -lt "$hugepages" ]; then
		echo "$hugepages" > "$nr" 2>/dev/null || true
		have=$(cat "$nr")
	fi
	if ! grep -q '^[^ ]* /dev/hugepages hugetlbfs' /proc/mounts; then
		mkdir -p /dev/hugepages
		mount -t hugetlbfs nodev /dev/hugepages 2>/dev/null || true
	fi
	if [ "$have" -gt 0 ] && grep -q ' hugetlbfs ' /proc/mounts; then
		echo "setup: $have hugepages of 2 MiB reserved"
	else
		echo "setup: no hugepages available; DPDK will use --no-huge"
	fi
}
reserve_hugepages

if [ "$do_build" = 1 ]; then
	# shellcheck disable=SC2086 # MRC_MESON_ARGS is a list of options
	if [ ! -f "$build_dir/build.ninja" ]; then
		meson setup "$build_dir" ${MRC_MESON_ARGS:-}
	elif [ -n "${MRC_MESON_ARGS:-}" ]; then
		meson configure "$build_dir" ${MRC_MESON_ARGS}
	fi
	ninja -C "$build_dir"
	echo "setup: built in $build_dir"
fi
