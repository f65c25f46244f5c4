#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash # busybox ash, which has "local" too
# shellcheck disable=SC2154 # the settings: guest/run.sh exports them
# Step scale: how perf bench futex hash scales with its threads, at 1, 2,
# 4, ... up to every CPU (nproc itself too when it is no power of two):
# mismatched waits on 2 hash buckets, requeues that take hb->lock and
# wakes that find nobody. scale_runs runs of scale_secs each, as bench
# sections of group scale.
set -u
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

# NAME OPTIONS: one curve each.
SCALE_BENCHES="
wait-b2		-O wait -b 2
requeue		-O requeue
wake		-O wake
"

# thread_counts: the powers of two below nproc, then nproc.
thread_counts()
{
	local t=1 n

	n=$(nproc)
	while [ $t -lt "$n" ]; do
		echo $t
		t=$((t * 2))
	done
	echo "$n"
}

need_perf scale || exit 0
bench_limit "$scale_secs"
while read -r name args; do
	[ -n "$name" ] || continue
	for t in $(thread_counts); do
		for i in $(seq "$scale_runs"); do
			# shellcheck disable=SC2086 # $args is a list of options
			bench scale "$name" "$i" "$scale_runs" "$t" \
				"$PERF" bench futex hash -r "$scale_secs" -t "$t" $args
		done
	done
done <<EOF_BENCHES
$SCALE_BENCHES
EOF_BENCHES
