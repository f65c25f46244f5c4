#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash # busybox ash, which has "local" too
# shellcheck disable=SC2154 # the settings: guest/run.sh exports them
# Step failfutex: fault injection (CONFIG_FAIL_FUTEX): with fail_futex
# failing one in ten of its call sites (key lookups, user access in the PI
# and requeue code), run futex kselftests, the malformed calls and
# stress-ng's futex stressor (for a fifth of soak_secs). Their results do
# not matter: an injected fault fails calls that would have worked, and a
# test whose waker failed may wait until kselftest_harness kills it after
# 30 s. What matters is that every program ends by then, 30 s for each of
# its test cases: one that outlives that has a task that not even SIGKILL
# ends, hung in the kernel. Also that faults were injected (a kretprobe
# hist on should_fail_futex() counts them) and, in the verdict, that the
# console stays clean.
#
# FAIL_TESTS give every wait a timeout of its own (wait, wait_bitset,
# waitv, lock_pi and wait_requeue_pi among them), so a failed wake ends
# the wait in a second and the step takes seconds. FAIL_TESTS_LONG have
# waits that only a wake ends: each failed wake costs a test case 30 s,
# and futex_requeue_pi (24 cases) can take minutes this way. They run
# only in a soak of LONG_SOAK seconds or more: make soak's at its
# default, not make check's.
#
# The programs' TAP goes raw to section "failfutex tap" (the host counts
# the programs and their timeouts there), what this step measured itself
# to section "failfutex".
set -u
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

FAIL_TESTS="futex_wait_timeout futex_waitv"
FAIL_TESTS_LONG="futex_wait_wouldblock futex_wait futex_requeue
futex_lock_pi_exiting futex_requeue_pi futex_hash_resize"
LONG_SOAK=300

d=/sys/kernel/debug/fail_futex
ev=futex_fail
out=$GUEST_TMP/failfutex.txt
tap=$GUEST_TMP/failfutex.tap
stress=$GUEST_TMP/stress.txt
secs=$((soak_secs / 5))
tests=$FAIL_TESTS

[ "$secs" -gt 0 ] || secs=1
[ "$soak_secs" -lt $LONG_SOAK ] || tests="$tests $FAIL_TESTS_LONG"
if [ ! -d $d ]; then
	skip failfutex "no fail_futex in debugfs"
	exit 0
fi
kprobe failfutex $ev "r:$ev should_fail_futex ret=\$retval:u8" trigger 'hist:keys=ret' || exit 0
echo 10 >$d/probability
echo 1 >$d/interval
echo -1 >$d/times
echo 0 >$d/verbose
n=$(echo "$tests" | wc -w)
log "failfutex: $n programs, futex_badinput and stress-ng for ${secs}s, 10% of fail_futex sites failing"
: >"$tap"
for p in $tests; do
	kselftest_one "$p" $(($(cases "$p") * 30 + 30)) failfutex >>"$tap"
done
{
	echo "listed $n"
	rc=0
	bounded 120 "$GUEST_BIN/futex_badinput" >/dev/null 2>&1 || rc=$?
	echo "badinput rc=$rc"
	rc=0
	bounded $((secs + 60)) stress-ng --futex "$(nproc)" --timeout "${secs}s" \
		--metrics-brief >"$stress" 2>&1 || rc=$?
	echo "stress-ng rc=$rc"
	sed 's/^/# /' "$stress"
	echo 0 >$d/probability
} >"$out"
# The histogram as the kernel prints it: the host reads the counts.
section "failfutex sites" <"$TRACING/events/kprobes/$ev/hist"
echo '!hist:keys=ret' >"$TRACING/events/kprobes/$ev/trigger"
echo "-:$ev" >>"$TRACING/kprobe_events"
section "failfutex tap" <"$tap"
section failfutex <"$out"
