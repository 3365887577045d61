#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# mrc_write_bw and mrc_write_lat (tools/perftest, doc/perftest.md) built as an
# outside program is: the plain Makefile, against the SDK folder (mrc.h,
# mrc_api_ver.h, lib_mrc.so side by side) and Debian's libibverbs, into a
# scratch folder; then run unchanged over mrcd through the verbs front.
#   one:    one mrcd runs hosts 0 and 1 of the emulated fabric; the server
#           on host 1, the client on host 0;
#   fabric: two mrcd processes (one host each) joined through mrc-fabric
#           over net_memif.
# mrc_write_bw sweeps 1 B .. 64 MiB in powers of 4 (-D per size, so the
# sweep spans the fault), every byte checked by the server; a plane fails
# under it (one: plane 2 from 1 s to 2.5 s; fabric: plane 1 for good, 0.5 s
# after the hosts connect) and nothing may be lost: every write completes
# successfully, no byte is wrong, exit 0. mrc_write_lat then runs small
# sizes (1 B .. 4 KiB), its bytes checked too. The daemons must exit 0.
# Usage: apps_perftest.sh one|fabric MRCD MRC_FABRIC SDK_DIR TOOLS_SRC WORKDIR
#   SDK_DIR: build/sdk (mrc.h, mrc_api_ver.h, lib_mrc.so and mrc-run)
set -euo pipefail
# meson puts the verbs front's folder on the library path of a test that depends on
# it: mrcd must never load the front (its EAL's mlx5 driver needs the real library).
unset LD_LIBRARY_PATH
mode=$1
mrcd=$(realpath "$2")
fabric=$(realpath "$3")
sdk=$(realpath "$4")
src=$(realpath "$5")
work=$6
. "$(dirname "$0")/lib.sh"
mkdir -p "$work"
cd "$work"
rm -rf bin ./*.log ./*.json ./*.ini
if [ "$(nproc)" -lt 2 ]; then
	echo "apps_perftest: needs 2 CPUs; skipping"
	exit 77
fi
for f in mrc.h mrc_api_ver.h lib_mrc.so mrc-run; do
	[ -e "$sdk/$f" ] || { echo "apps_perftest: FAIL: $sdk/$f missing (the SDK folder)"; exit 1; }
done

# Built as any MRC program would be: make, the SDK and -libverbs, nothing of mrcd's tree.
mkdir -p bin
san=()
# A sanitizer build's lib_mrc needs its runtime first: the program is built with it too.
# (ldd into a string first: grep -q leaving early would SIGPIPE ldd, and
# pipefail would then read "no sanitizer".)
if [[ $(ldd "$sdk/lib_mrc.so") == *libasan* ]]; then
	san=(CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer"
		LDFLAGS="-fsanitize=address,undefined")
fi
make -s -C "$src" SDK="$sdk" O="$work/bin" "${san[@]}" > make.log 2>&1 || {
	cat make.log
	echo "apps_perftest: FAIL: make"
	exit 1
}
bw=$work/bin/mrc_write_bw
lat=$work/bin/mrc_write_lat
# A bad command line: exit 2, the message naming the option's value.
for bad in "-s 5x" "-p 70000" "-n 0" "-t 0" "--step 3"; do
	set +e
	# shellcheck disable=SC2086 # the option and its value are two words
	msg=$("$bw" $bad 2>&1 >/dev/null)
	rc=$?
	set -e
	val=${bad#* }
	if [ "$rc" != 2 ] || ! grep -q "'$val'" <<<"$msg"; then
		echo "apps_perftest: FAIL: mrc_write_bw $bad: exit $rc, '$msg'"
		exit 1
	fi
done
[[ $("$lat" --help) == *'round trip'* ]] || { echo "apps_perftest: FAIL: mrc_write_lat --help"; exit 1; }

# launch SOCKET CMD...: CMD under mrc-run, on the verbs front of the mrcd whose
# application socket is SOCKET (its hosts are the devices mrc_<host>).
launch() {
	local sock=$1
	shift
	"$sdk/mrc-run" --socket "$sock" "$@"
}

pids=()
dir=/run/mrcd-test-perftest-$$
cleanup() {
	kill -KILL "${pids[@]}" 2>/dev/null || true
	rm -rf "$dir"
}
trap cleanup EXIT
port=$((20000 + $$ % 20000))
fails=0

if [ "$mode" = one ]; then
	cat > scenario.ini <<'S'
[scenario]
name = perftest-plane2
description = plane 2 down from 1 s to 2.5 s

[event.down]
at = 1s
element = plane
plane = 2
action = down

[event.up]
at = 2500ms
element = plane
plane = 2
action = up
S
	sock_c=$PWD/apps.sock
	sock_s=$sock_c
	dev_c=mrc_0 dev_s=mrc_1
	# 10 Gb/s links: the sweep's bytes, not the emulated links, set its length.
	"$mrcd" -- --set daemon.apps_socket="$sock_c" --set fabric.link_gbps=10 \
		--profile none --scenario scenario.ini --duration 0 > mrcd.log 2>&1 &
	pids+=($!)
	for _ in $(seq 100); do
		[ -S "$sock_c" ] && break
		sleep 0.1
	done
	[ -S "$sock_c" ] || { cat mrcd.log; echo "apps_perftest: FAIL: no socket"; exit 1; }
else
	cat > profile.ini <<'P'
[profile]
pattern = pairs
msg_kb = 4
outstanding = 1
messages = 1
P
	cat > scenario.ini <<'S'
[scenario]
name = plane1-dies
description = plane 1 down for good, 0.5 s after the hosts connect

[event.down]
at = 500ms
element = plane
plane = 1
action = down
S
	mkdir -p "$dir"
	mrc_fabric_cluster "$fabric" "$dir" 2
	"$mrcd" --lcores=0@0,1@0 -- -f "$dir/host0.ini" --profile none \
		--set daemon.apps_socket="$dir/a0.sock" > h0.log 2>&1 &
	pids+=($!)
	"$mrcd" --lcores=0@1,1@1 -- -f "$dir/host1.ini" --profile none \
		--set daemon.apps_socket="$dir/a1.sock" > h1.log 2>&1 &
	pids+=($!)
	for _ in $(seq 100); do
		[ -S "$dir/a0.sock" ] && [ -S "$dir/a1.sock" ] && break
		sleep 0.1
	done
	sock_c=$dir/a0.sock sock_s=$dir/a1.sock
	dev_c=mrc_0 dev_s=mrc_1
fi

# pair NAME TOOL ARGS...: the server on host 1, the client on host 0; both must exit 0.
pair() {
	local name=$1 tool=$2 spid
	shift 2
	launch "$sock_s" "$tool" -d "$dev_s" -p "$port" > "$name-server.log" 2>&1 &
	spid=$!
	if ! launch "$sock_c" timeout 120 "$tool" -d "$dev_c" -p "$port" "$@" localhost \
		> "$name.log" 2>&1; then
		echo "apps_perftest: FAIL: $name client"
		fails=$((fails + 1))
	fi
	wait "$spid" || { echo "apps_perftest: FAIL: $name server"; fails=$((fails + 1)); }
	cat "$name.log"
	port=$((port + 1))
}

t0=$(date +%s.%N)
pair bw "$bw" -a --step 4 -D 0.25 --json
t1=$(date +%s.%N)
pair lat "$lat" -a --step 4 -s 4096 -n 200
/usr/bin/python3 - bw.log bw-server.log lat.log "$t0" "$t1" <<'PY' || fails=$((fails + 1))
import json, sys
bw = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
sizes = [r["bytes"] for r in bw["results"]]
want = [4 ** k for k in range(14)]
ok = True
if sizes != want:
    print(f"apps_perftest: FAIL: bw sizes {sizes}, want {want}")
    ok = False
bad = sum(r["wrong_bytes"] for r in bw["results"])
checked = sum(int(l.split()[6]) for l in open(sys.argv[2]) if l.startswith("server:"))
if bad != 0 or checked < sum(want):
    print(f"apps_perftest: FAIL: bw {bad} wrong bytes, {checked} checked")
    ok = False
print(f"apps_perftest: bw {len(sizes)} sizes, {checked} bytes checked at the server, "
      f"{bad} wrong; {float(sys.argv[5]) - float(sys.argv[4]):.1f} s")
lat = [l for l in open(sys.argv[3]) if l.strip() and l.split()[0].isdigit()]
if len(lat) != 7 or any(l.split()[-1] != "0" for l in lat):
    print("apps_perftest: FAIL: lat rows", lat)
    ok = False
sys.exit(0 if ok else 1)
PY
kill -TERM "${pids[@]}" 2>/dev/null || true
set +e
for i in "${!pids[@]}"; do
	wait "${pids[$i]}"
	rc=$?
	[ "$rc" = 0 ] || { echo "apps_perftest: FAIL: daemon $i exited $rc"; fails=$((fails + 1)); }
done
set -e
pids=()
if [ "$mode" = one ]; then
	grep -q 'plane 2 down' mrcd.log || { echo "apps_perftest: FAIL: plane 2 never failed"; fails=$((fails + 1)); }
else
	/usr/bin/python3 - fabric.json <<'PY' || fails=$((fails + 1))
import json, sys
f = json.load(open(sys.argv[1]))
down, events = f["fabric"]["drop_down"], [e["what"] for e in f["events"]]
print(f"apps_perftest: the dead plane dropped {down} packets; events {events}")
if not any(e.startswith("plane 1 down") for e in events) or down == 0:
    print("apps_perftest: FAIL: plane 1 did not die under the transfer")
    sys.exit(1)
PY
fi
[ "$fails" = 0 ] && echo "apps_perftest ($mode): PASS"
exit "$fails"
