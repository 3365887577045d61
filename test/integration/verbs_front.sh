#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# The verbs front (doc/sdk.md):
# 1. it exports every public name and version node Debian's libibverbs.so.1
#    does (objdump -T of both; a name or node the real one has and the front
#    lacks fails the test);
# 2. mrcd never loads it: neither its link map (ldd) nor, while it runs, its
#    mappings name the front;
# 3. a program built against the real header and -libverbs lists no mrc_
#    device on its own, and under mrc-run lists mrcd's hosts (mrc_0, mrc_1)
#    and passes verbs-front-test's checks on mrc_0 and mrc_1;
# 4. the SDK (doc/sdk.md): examples/sdk built by its plain makefile against
#    BUILD/sdk runs under mrc-run; after `meson install --destdir`,
#    `pkg-config --cflags --libs mrc` builds it against the installed files.
# Usage: verbs_front.sh MRCD_BINARY TEST_BINARY FRONT_LIBRARY MRC_RUN BUILD EXAMPLE_DIR WORKDIR
set -euo pipefail
mrcd=$(realpath "$1")
prog=$(realpath "$2")
front=$(realpath "$3")
mrc_run=$(realpath "$4")
build=$(realpath "$5")
example=$(realpath "$6")
work=$7
. "$(dirname "$0")/lib.sh"
# meson puts the libraries a test depends on (the front among them) on
# LD_LIBRARY_PATH; the test chooses where the front is loaded itself.
unset LD_LIBRARY_PATH
mkdir -p "$work"
cd "$work"
rm -rf mrcd.log mrcd.ldd real.txt front.txt list.txt dest mrc_devinfo mrc_devinfo_pc
fails=0
fail() {
	echo "verbs_front: FAIL: $*"
	fails=$((fails + 1))
}

# 1. The symbol set: "name version" pairs, old versions in parentheses as objdump shows them.
real=$(ldconfig -p | awk '$1 == "libibverbs.so.1" && /x86-64/ {p = $NF} END {print p}')
if [ -z "$real" ] || [ "$real" = "$(dirname "$front")/libibverbs.so.1" ]; then
	real=/usr/lib/x86_64-linux-gnu/libibverbs.so.1
fi
[ -f "$real" ] || { echo "verbs_front: no libibverbs.so.1 installed (apt-get install libibverbs1)"; exit 77; }
syms() {
	objdump -T "$1" | awk '$4 != "*UND*" && /IBVERBS_1\./ {print $(NF - 1), $NF}' | sort -u
}
syms "$real" > real.txt
syms "$front" > front.txt
missing=$(comm -23 real.txt front.txt)
[ -z "$missing" ] || fail "the front lacks what $real exports: $(echo "$missing" | tr '\n' ' ')"
echo "verbs_front: $(wc -l < real.txt) public symbols and nodes of $real, all in the front"

# 2. mrcd's link map.
ldd "$mrcd" > mrcd.ldd
if grep "$(dirname "$front")" mrcd.ldd; then fail "mrcd links the front"; fi

# 3. Without the front, then under mrc-run.
"$prog" list > list.txt 2>&1 || fail "list without the front failed: $(cat list.txt)"
if grep -q '^mrc_' list.txt; then fail "the real libibverbs lists mrc_ devices"; fi

sock=$PWD/apps.sock
"$mrcd" -- --set daemon.apps_socket="$sock" --profile none --scenario none \
	--duration 0 > mrcd.log 2>&1 &
mpid=$!
trap 'kill -TERM $mpid 2>/dev/null || true' EXIT
for _ in $(seq 100); do
	[ -S "$sock" ] && break
	sleep 0.1
done
[ -S "$sock" ] || { cat mrcd.log; echo "verbs_front: FAIL: no socket"; exit 1; }
if grep -q "$(dirname "$front")" "/proc/$mpid/maps"; then fail "mrcd mapped the front"; fi
"$mrc_run" --socket "$sock" "$prog" list > list.txt 2>&1 || fail "list under mrc-run failed"
echo "verbs_front: devices under mrc-run: $(tr '\n' ' ' < list.txt)"
[ "$(cat list.txt)" = "$(printf 'mrc_0\nmrc_1')" ] || fail "want devices mrc_0 and mrc_1"
for d in mrc_0 mrc_1; do
	MRC_SOCKET=$sock "$mrc_run" "$prog" check $d || fail "checks on $d"
done

# 4. The SDK, as an outside program's makefile uses it. A sanitizer build's
# lib_mrc needs its runtime loaded first: the program is built with it too.
# (The environment, not make's command line: the makefile adds to them.)
san=()
# (ldd into a string first: grep -q leaving early would SIGPIPE ldd, and
# pipefail would then read "no sanitizer".)
if [[ $(ldd "$build/sdk/lib_mrc.so") == *libasan* ]]; then
	san=(CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer"
		LDFLAGS="-fsanitize=address,undefined")
fi
if env "${san[@]}" make -s -C "$example" SDK="$build/sdk" O="$PWD" > make.log 2>&1; then
	"$mrc_run" --socket "$sock" ./mrc_devinfo || fail "mrc_devinfo built against build/sdk"
else
	fail "examples/sdk does not build against build/sdk: $(cat make.log)"
fi
if meson install -C "$build" --destdir "$PWD/dest" --no-rebuild > install.log 2>&1; then
	pc=$(dirname "$(find dest -name mrc.pc -print -quit)")
	flags=$(PKG_CONFIG_SYSROOT_DIR=$PWD/dest PKG_CONFIG_PATH=$PWD/$pc \
		pkg-config --cflags --libs mrc) || fail "pkg-config --cflags --libs mrc"
	echo "verbs_front: pkg-config --cflags --libs mrc: $flags"
	# shellcheck disable=SC2086 # the flags are words
	cc -o mrc_devinfo_pc "$example/mrc_devinfo.c" $flags ||
		fail "mrc_devinfo does not build with pkg-config's flags"
	for f in mrc.h mrc_api_ver.h lib_mrc.so mrc-run libibverbs.so.1; do
		[ -n "$(find dest -name $f -print -quit)" ] || fail "meson install put no $f"
	done
else
	fail "meson install --destdir: $(tail -5 install.log)"
fi
trap - EXIT
mrc_stop $mpid mrcd.log || fail "mrcd exited $?"
[ "$fails" = 0 ] && echo "verbs_front: PASS"
exit "$fails"
