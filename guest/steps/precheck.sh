#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash # busybox ash, which has "local" too
# shellcheck disable=SC2154 # the settings: guest/run.sh exports them
# Step precheck: how many mismatched waits reach the hash bucket (the
# probe on $probe).
set -u
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

n=10000

# hits: how often the probe fired so far.
hits()
{
	awk -v p=futex_bucket '$1 == p { print $2 }' "$TRACING/kprobe_profile"
}

kprobe precheck futex_bucket "p:futex_bucket $probe" || exit 0
echo 1 >"$TRACING/events/kprobes/futex_bucket/enable"
for kind in private shared; do
	before=$(hits)
	if "$GUEST_BIN/futex_mismatch" "$kind" $n; then
		after=$(hits)
		echo "$kind waits=$n bucket=$((after - before))"
	else
		echo "error futex_mismatch $kind failed"
	fi
done | section precheck
echo 0 >"$TRACING/events/kprobes/futex_bucket/enable"
echo "-:futex_bucket" >>"$TRACING/kprobe_events"
