# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
#
# Sourced by the benchmarks that run the daemon on a config of config/bench/
# (bench-loss.sh, bench-incast.sh). The caller sets: name (for messages),
# mrcd (the binary), root (the source tree), tmp (a scratch folder) and cfg
# (the config file).
#
# run_mrcd OUT SET...: mrcd -f $cfg --json OUT, the run's keys given as
# --set options; when other mrcd instances hold every free CPU, wait for
# one (up to a minute). A run that fails is reported and leaves no OUT.
run_mrcd() {
	local out=$1 sets=()
	shift
	for kv in "$@"; do sets+=(--set "$kv"); done
	for _ in $(seq 60); do
		if (cd "$tmp" && "$mrcd" -- -f "$cfg" --json "$out" "${sets[@]}" > "$tmp/log" 2>&1); then
			return 0
		fi
		grep -qE 'already poll|another mrcd' "$tmp/log" || break
		sleep 1
	done
	echo "bench-$name: mrcd $*: failed:" >&2
	tail -5 "$tmp/log" >&2
}
