#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash # busybox ash, which has "local" too
# shellcheck disable=SC2154 # the settings: guest/run.sh exports them
# Step precheck: how many mismatched waits reach the hash bucket (the
# probe on $probe, by default the function that counts a waiter on its
# bucket and locks it), and, as the control, how many matched waits whose
# timeout has expired do: all of them, on any kernel, or the probe counts
# nothing. Each line gives the waits futex_mismatch saw end as they must
# (waits=), what the probe counted meanwhile (bucket=) and how many were
# asked for (requested=).
set -u
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

n=10000

# hits: how often the probe fired so far.
hits()
{
	awk -v p=futex_bucket '$1 == p { print $2 }' "$TRACING/kprobe_profile"
}

# count KIND [matched]: one line for futex_mismatch KIND N [matched].
count()
{
	local before after out

	before=$(hits)
	if out=$("$GUEST_BIN/futex_mismatch" "$1" $n ${2:+"$2"}); then
		after=$(hits)
		echo "${2:+$2 }$1 $out bucket=$((after - before)) requested=$n"
	else
		echo "error futex_mismatch $1 ${2:-mismatched} failed: $out"
	fi
}

# futex_q_lock(), or _futex_q_lock() where futex_q_lock() is the wrapper
# that tells context analysis which lock it returns.
if [ -z "$probe" ]; then
	probe=futex_q_lock
	! grep -q ' _futex_q_lock$' /proc/kallsyms 2>/dev/null || probe=_futex_q_lock
fi

kprobe precheck futex_bucket "p:futex_bucket $probe" || exit 0
echo 1 >"$TRACING/events/kprobes/futex_bucket/enable"
for kind in private shared; do
	count $kind
	count $kind matched
done | section precheck
echo 0 >"$TRACING/events/kprobes/futex_bucket/enable"
echo "-:futex_bucket" >>"$TRACING/kprobe_events"
