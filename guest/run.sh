#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash # busybox ash, which has "local" too
# Stage "guest run": runs inside the guest. Reads its plan from the kernel
# command line (variables handed to init), writes each result as a section
# "==> name <==" to the results port /dev/ttyS1, and a final "==> end <==".
#
#   steps=kselftest,resize,resizebench,precheck,waiters,perf
#					what to run, in order
#   kst_timeout=SECONDS			per-test timeout of the kselftest runner
#   runs=N bench_secs=S			perf bench futex hash repetitions/length
#   probe=SYMBOL			bucket entry counted by the precheck step
set -u

RES=/dev/ttyS1
steps=${steps:-kselftest}
kst_timeout=${kst_timeout:-300}
runs=${runs:-5}
bench_secs=${bench_secs:-5}
probe=${probe:-futex_q_lock}

log() { echo "guest: $*"; }

# section NAME < data: one result section on the results port.
section()
{
	echo "==> $1 <=="
	cat
} >>"$RES"

# The futex tests one by one through kselftest's runner, each with its own
# timeout, in the order of the collection's run.sh.
step_kselftest()
{
	local list=/kselftest/kselftest-list.txt

	sed -n 's|^\./\(futex_[a-z_]*\)$|futex/functional:\1|p' \
		/kselftest/futex/functional/run.sh >$list
	log "kselftest: $(wc -l <$list) futex tests, ${kst_timeout}s each"
	# The runner appends to /dev/stdout: append here too, or the two
	# file offsets overwrite each other.
	: >/tmp/kselftest.tap
	/kselftest/run_kselftest.sh -o "$kst_timeout" >>/tmp/kselftest.tap 2>&1
	section kselftest </tmp/kselftest.tap
}

# The private hash replacement tests alone, through the same runner.
step_resize()
{
	log "resize: futex_hash_resize, ${kst_timeout}s"
	echo futex/functional:futex_hash_resize >/kselftest/kselftest-list.txt
	: >/tmp/resize.tap
	/kselftest/run_kselftest.sh -o "$kst_timeout" >>/tmp/resize.tap 2>&1
	section resize </tmp/resize.tap
}

# Private hash replacement under load: time to the auto-scaled size after a
# ramp and PR_FUTEX_HASH_SET_SLOTS latency, each with the load's ops/s after
# it, at 16, 64 and 256 threads; then, in the steady state after a ramp to
# 64 threads, how the hash references were taken, from a histogram of the
# state that futex_ref_get() finds (0 FR_PERCPU, 1 FR_ATOMIC, 2 FR_DRAIN
# where the kernel has it).
step_resizebench()
{
	local t=/sys/kernel/tracing ev=futex_ref mode n

	: >/tmp/resizebench.txt
	for mode in ramp set; do
		for n in 16 64 256; do
			log "resizebench: $mode, $n threads"
			/guest/bin/futex_resize_bench $mode $n "$bench_secs" \
				>>/tmp/resizebench.txt 2>&1
		done
	done
	if echo "p:$ev futex_ref_get state=+0(%di):s32" >>$t/kprobe_events 2>/dev/null &&
	   echo 'hist:keys=state:pause' >$t/events/kprobes/$ev/trigger; then
		log "resizebench: reference states after a ramp to 64 threads"
		/guest/bin/futex_resize_bench ramp 64 "$bench_secs" \
			$t/events/kprobes/$ev/trigger >/dev/null 2>&1
		sed -n 's/^{ state: *\(-*[0-9]*\) } hitcount: *\([0-9]*\)$/refstate state=\1 hits=\2/p' \
			$t/events/kprobes/$ev/hist >>/tmp/resizebench.txt
		echo '!hist:keys=state' >$t/events/kprobes/$ev/trigger
		echo "-:$ev" >>$t/kprobe_events
	else
		echo "error no kprobe on futex_ref_get" >>/tmp/resizebench.txt
	fi
	section resizebench </tmp/resizebench.txt
}

# hits: how often the probe fired so far.
hits()
{
	awk -v p=futex_bucket '$1 == p { print $2 }' /sys/kernel/tracing/kprobe_profile
}

# How many mismatched waits reach the hash bucket (the probe on $probe).
step_precheck()
{
	local t=/sys/kernel/tracing kind n=10000 before after

	if ! echo "p:futex_bucket $probe" >>$t/kprobe_events 2>/dev/null; then
		echo "error no kprobe on $probe" | section precheck
		return
	fi
	echo 1 >$t/events/kprobes/futex_bucket/enable
	for kind in private shared; do
		before=$(hits)
		if /guest/bin/futex_mismatch "$kind" $n; then
			after=$(hits)
			echo "$kind waits=$n bucket=$((after - before))"
		else
			echo "error futex_mismatch $kind failed"
		fi
	done | section precheck
	echo 0 >$t/events/kprobes/futex_bucket/enable
	echo "-:futex_bucket" >>$t/kprobe_events
}

# Waits aborted in every way leave no waiter count behind: wakes with nobody
# waiting see hb->waiters == 0 on their bucket, so futex_wake() skips
# hb->lock, and a real waiter is still woken. The event records the count of
# the bucket futex_hash() returns, for futex_aborted's operations only.
step_waiters()
{
	local t=/sys/kernel/tracing ev=futex_hb_busy kind

	if ! echo "r:$ev futex_hash waiters=+0(\$retval):s32" >>$t/kprobe_events 2>/dev/null ||
	   ! echo 'waiters != 0 && comm == "futex_aborted"' >$t/events/kprobes/$ev/filter; then
		echo "error no kretprobe on futex_hash" | section waiters
		return
	fi
	for kind in private shared; do
		/guest/bin/futex_aborted "$kind" 1000 $ev 2>&1 ||
			echo "error futex_aborted $kind failed"
	done | section waiters
	echo "-:$ev" >>$t/kprobe_events
}

step_perf()
{
	local args i

	for args in "-b 2" "" "-S"; do
		for i in $(seq "$runs"); do
			log "perf bench futex hash $args, run $i/$runs"
			# shellcheck disable=SC2086 # $args is a list of options
			/bin/perf bench futex hash -r "$bench_secs" $args 2>&1 |
				section "perf hash${args:+ $args} #$i"
		done
	done
}

uname -a | section uname
echo "$(nproc) cpus" | section cpus
for s in $(echo "$steps" | tr , ' '); do
	log "step $s"
	"step_$s"
done
dmesg | section dmesg
echo "done" | section end
