#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash # busybox ash, which has "local" too
# Step waiters: waits aborted in every way leave no waiter count behind:
# wakes with nobody waiting see hb->waiters == 0 on their bucket, so
# futex_wake() skips hb->lock, and a real waiter is still woken. The event
# records the count of the bucket futex_hash() returns, for futex_aborted's
# operations only.
set -u
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

ev=futex_hb_busy

kprobe waiters $ev "r:$ev futex_hash waiters=+0(\$retval):s32" \
	filter 'waiters != 0 && comm == "futex_aborted"' || exit 0
for kind in private shared; do
	"$GUEST_BIN/futex_aborted" "$kind" 1000 $ev 2>&1 ||
		echo "error futex_aborted $kind failed"
done | section waiters
echo "-:$ev" >>"$TRACING/kprobe_events"
