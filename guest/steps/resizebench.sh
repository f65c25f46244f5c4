#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash # busybox ash, which has "local" too
# shellcheck disable=SC2154 # the settings: guest/run.sh exports them
# Step resizebench: private hash replacement under load: time to the
# auto-scaled size after a ramp and PR_FUTEX_HASH_SET_SLOTS latency, each
# with the load's ops/s after it, at each of THREADS threads; then, in the
# steady state after a ramp to RAMP_THREADS, how the hash references were
# counted, from a histogram of the state that futex_private_hash_put()
# finds as the references are dropped (0 FR_PERCPU, 1 FR_ATOMIC, 2
# FR_DRAIN, 3 FR_STALLED where the kernel has them): every reference taken
# is dropped there, and unlike futex_ref_get() it is out of line on every
# kernel.
set -u
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

# The thread counts of every run (the host's table and plot take them
# from the results), and of the ramp whose reference states are counted.
THREADS="16 64 256"
RAMP_THREADS=64
ev=futex_ref
out=$GUEST_TMP/resizebench.txt

: >"$out"
for mode in ramp set; do
	for n in $THREADS; do
		log "resizebench: $mode, $n threads"
		"$GUEST_BIN/futex_resize_bench" $mode "$n" "$bench_secs" >>"$out" 2>&1
	done
done
section resizebench <"$out"
kprobe resizebench $ev "p:$ev futex_private_hash_put state=+0(%di):s32" \
	trigger 'hist:keys=state:pause' || exit 0
log "resizebench: reference states after a ramp to $RAMP_THREADS threads"
"$GUEST_BIN/futex_resize_bench" ramp $RAMP_THREADS "$bench_secs" \
	"$TRACING/events/kprobes/$ev/trigger" >/dev/null 2>&1
# The histogram as the kernel prints it: the host reads the counts.
section "resizebench refstate" <"$TRACING/events/kprobes/$ev/hist"
echo '!hist:keys=state' >"$TRACING/events/kprobes/$ev/trigger"
echo "-:$ev" >>"$TRACING/kprobe_events"
