#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash # busybox ash, which has "local" too
# shellcheck disable=SC2154 # the settings: guest/run.sh exports them
# Step hash: perf bench futex hash: mismatched waits (with 2 hash buckets,
# the default size and shared futexes), requeues that take hb->lock, and
# wakes that find nobody, also with 64 threads ramping up without a
# barrier. runs runs of bench_secs each, as bench sections of group hash.
set -u
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

# NAME THREADS OPTIONS: one row each; THREADS "-" where perf picks them.
HASH_BENCHES="
wait-b2		-	-O wait -b 2
wait		-	-O wait
wait-shared	-	-O wait -S
requeue-b2	-	-O requeue -b 2
requeue		-	-O requeue
wake		-	-O wake
wake-ramp64	64	-O wake -R -t 64
"

need_perf hash || exit 0
bench_limit "$bench_secs"
while read -r name threads args; do
	[ -n "$name" ] || continue
	for i in $(seq "$runs"); do
		# shellcheck disable=SC2086 # $args is a list of options
		bench hash "$name" "$i" "$runs" "$threads" \
			"$PERF" bench futex hash -r "$bench_secs" $args
	done
done <<EOF_BENCHES
$HASH_BENCHES
EOF_BENCHES
