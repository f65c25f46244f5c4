#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash # busybox ash, which has "local" too
# shellcheck disable=SC2154 # the settings: guest/run.sh exports them
# Step resizebench: private hash replacement under load: time to the
# auto-scaled size after a ramp and PR_FUTEX_HASH_SET_SLOTS latency, to
# 256 slots and from there to 16, each with the load's ops/s after it, at
# each of THREADS threads. Step
# refstate counts how the references are taken after a ramp.
set -u
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

# The thread counts of every run (the host's table and plot take them
# from the results).
THREADS="16 64 256"
out=$GUEST_TMP/resizebench.txt

: >"$out"
for mode in ramp set shrink; do
	for n in $THREADS; do
		log "resizebench: $mode, $n threads"
		"$GUEST_BIN/futex_resize_bench" $mode "$n" "$bench_secs" >>"$out" 2>&1
	done
done
section resizebench <"$out"
