#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash # busybox ash, which has "local" too
# shellcheck disable=SC2154 # the settings: guest/run.sh exports them
# Step refstate: in the steady state after a ramp to RAMP_THREADS threads
# that use futexes from the moment they exist, how the private hash
# references were counted, from a histogram of the state that
# futex_private_hash_put() finds as the references are dropped (0
# FR_PERCPU, 1 FR_ATOMIC): every reference taken is dropped there, and
# unlike futex_ref_get() it is out of line on every kernel. On 7.3.4 the
# replacement that the ramp asks for never drains and nearly every
# reference is FR_ATOMIC. Then the hash's size under the load.
set -u
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

RAMP_THREADS=64
ev=futex_ref

histogram()
{
	kprobe refstate $ev "p:$ev futex_private_hash_put state=+0(%di):s32" \
		trigger 'hist:keys=state:pause' || return 0
	log "refstate: reference states after a ramp to $RAMP_THREADS threads"
	"$GUEST_BIN/futex_resize_bench" ramp $RAMP_THREADS "$bench_secs" \
		"$TRACING/events/kprobes/$ev/trigger" >/dev/null 2>&1
	# The histogram as the kernel prints it: the host reads the counts.
	section "resizebench refstate" <"$TRACING/events/kprobes/$ev/hist"
	echo '!hist:keys=state' >"$TRACING/events/kprobes/$ev/trigger"
	echo "-:$ev" >>"$TRACING/kprobe_events"
}

histogram
# The size the hash has under the load after the ramp, and whether a
# replacement that the ramp left pending (7.3.4's) completes once the load
# pauses and another thread asks for it again.
log "refstate: the ramp's replacement after the load pauses"
"$GUEST_BIN/futex_resize_bench" retry $RAMP_THREADS "$bench_secs" 2>&1 |
	section "resizebench retry"
