#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash # busybox ash, which has "local" too
# Stage "guest run": runs inside the guest. Reads its plan from the kernel
# command line (variables handed to init), writes each result as a section
# "==> name <==" to the results port /dev/ttyS1, and a final "==> end <==".
#
#   steps=kselftest,quick,resize,resizebench,precheck,waiters,badinput,
#	  failfutex,soak,perf,numarace,firstrun
#					what to run, in order
#   kst_timeout=SECONDS			per-test timeout of the kselftest runner
#   runs=N bench_secs=S			perf bench futex hash repetitions/length
#   soak_secs=S				length of the soak step
#   probe=SYMBOL			bucket entry counted by the precheck step
set -u

RES=/dev/ttyS1
# Where this script and evidence.sh are (tests/bad_input.sh runs them on
# the host).
GUEST_DIR=${GUEST_DIR:-/guest}
steps=${steps:-kselftest}
kst_timeout=${kst_timeout:-300}
runs=${runs:-5}
bench_secs=${bench_secs:-5}
soak_secs=${soak_secs:-300}
probe=${probe:-futex_q_lock}

log() { echo "guest: $*"; }

# section NAME < data: one result section on the results port.
section()
{
	echo "==> $1 <=="
	cat
} >>"$RES"

# kill_tagged TAG: SIGKILL every process whose environment holds
# GUEST_RUN=TAG; a second pass for any that forked meanwhile.
kill_tagged()
{
	local p i

	for i in 1 2; do
		for p in /proc/[0-9]*; do
			tr '\0' '\n' 2>/dev/null <"$p/environ" | grep -qx "GUEST_RUN=$1" &&
				kill -9 "${p#/proc/}" 2>/dev/null
		done
	done
}

# bounded SECS CMD...: run CMD; after SECS seconds kill it and everything
# it started, found by an environment variable they all inherit. A process
# group of its own does not escape that: kselftest_harness forks each test
# into one, and when the runner's timeout kills the harness alone, the
# test keeps the runner's output pipe, and the runner, waiting for ever.
# Before killing, guest/evidence.sh records what each of those processes
# is doing, in $EVIDENCE; CMD finds that file in GUEST_EVIDENCE, for
# guest/lib/kill_evidence.c. Returns CMD's status, or 124 when it had to
# be killed.
BOUNDED=0
EVIDENCE=
bounded()
{
	local secs=$1 tag wd rc=0

	shift
	BOUNDED=$((BOUNDED + 1))
	tag=$$.$BOUNDED
	EVIDENCE=/tmp/evidence/$tag
	mkdir -p /tmp/evidence
	rm -f /tmp/bounded.killed
	(
		trap 'kill $s; exit 0' TERM
		sleep "$secs" &
		s=$!
		wait $s
		# Past the deadline: finish the killing even when CMD ends
		# meanwhile and bounded() tells this watchdog to stop.
		trap '' TERM
		touch /tmp/bounded.killed
		"$GUEST_DIR/evidence.sh" "$EVIDENCE" "$tag" "the guest's deadline of $secs s"
		kill_tagged "$tag"
	) </dev/null >/dev/null 2>&1 &
	wd=$!
	GUEST_RUN=$tag GUEST_EVIDENCE=$EVIDENCE "$@" || rc=$?
	kill $wd 2>/dev/null
	wait $wd 2>/dev/null
	[ ! -e /tmp/bounded.killed ] || rc=124
	return $rc
}

# kselftest_one TEST SECS NAME: one futex test through kselftest's runner
# with a timeout of SECS, its TAP on stdout, and how long it took ("# took
# TEST N s"). Half a minute after the runner's timeout the guest kills what
# is left and reports the test as timed out. Whatever killed a test for
# its time (kselftest_harness, the runner or the guest) left its evidence,
# reported as section "evidence NAME TEST".
kselftest_one()
{
	local t=$1 secs=$2 name=$3 t0

	echo "futex/functional:$t" >/kselftest/kselftest-list.txt
	t0=$(date +%s)
	bounded $((secs + 30)) env LD_PRELOAD="$GUEST_DIR/lib/kill_evidence.so" \
		/kselftest/run_kselftest.sh -o "$secs" 2>&1 ||
		[ $? != 124 ] ||
		echo "not ok 1 selftests: futex/functional: $t # TIMEOUT, killed by the guest $((secs + 30)) s after its start"
	echo "# took $t $(($(date +%s) - t0)) s"
	[ ! -s "$EVIDENCE" ] || section "evidence $name $t" <"$EVIDENCE"
}

# kselftest NAME TEST...: run futex tests one at a time, each with its own
# timeout, and report the TAP as section NAME.
kselftest()
{
	local name=$1 tap=/tmp/$1.tap t

	shift
	log "$name: $# futex tests, ${kst_timeout}s each"
	# The runner appends to /dev/stdout: append here too, or the two
	# file offsets overwrite each other.
	: >"$tap"
	for t in "$@"; do
		kselftest_one "$t" "$kst_timeout" "$name" >>"$tap"
	done
	section "$name" <"$tap"
}

# futex_priv_hash checks the automatic increase of the private hash only
# with more than 16 CPUs, and skips the rest of its test below that: step
# resize runs it in a guest with more CPUs.
MANY_CPUS_TESTS="futex_priv_hash"

# Every test of the collection's run.sh, in its order.
step_kselftest()
{
	local t tests=""

	# shellcheck disable=SC2013 # one test name per line, no spaces
	for t in $(sed -n 's|^\./\([a-z_]*\)$|\1|p' /kselftest/futex/functional/run.sh); do
		case " $MANY_CPUS_TESTS " in
		*" $t "*) [ "$(nproc)" -gt 16 ] || continue ;;
		esac
		tests="$tests $t"
	done
	# shellcheck disable=SC2086 # a list of test names
	kselftest kselftest $tests
}

# The kselftests of what the series changes, for a sanitizer kernel in
# make check: refused waits and their error precedence, waits, wakes,
# requeues, futex_waitv and the private hash replacement, under load, with
# a futex operation stalled in a fault and with a starved reference holder.
# Same section as step kselftest.
QUICK_TESTS="futex_wait_wouldblock futex_wait futex_requeue futex_waitv
futex_hash_resize futex_hash_drain"

step_quick()
{
	# shellcheck disable=SC2086 # a list of test names
	kselftest kselftest $QUICK_TESTS
}

# The private hash sizing and replacement tests alone.
step_resize()
{
	# shellcheck disable=SC2086 # a list of test names
	kselftest resize $MANY_CPUS_TESTS futex_hash_resize futex_hash_drain
}

# Private hash replacement under load: time to the auto-scaled size after a
# ramp and PR_FUTEX_HASH_SET_SLOTS latency, each with the load's ops/s after
# it, at 16, 64 and 256 threads; then, in the steady state after a ramp to
# 64 threads, how the hash references were counted, from a histogram of the
# state that futex_private_hash_put() finds as the references are dropped
# (0 FR_PERCPU, 1 FR_ATOMIC, 2 FR_DRAIN, 3 FR_STALLED where the kernel has
# them): every reference taken is dropped there, and unlike
# futex_ref_get() it is out of line on every kernel.
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
	if echo "p:$ev futex_private_hash_put state=+0(%di):s32" >>$t/kprobe_events 2>/dev/null &&
	   echo 'hist:keys=state:pause' >$t/events/kprobes/$ev/trigger; then
		log "resizebench: reference states after a ramp to 64 threads"
		/guest/bin/futex_resize_bench ramp 64 "$bench_secs" \
			$t/events/kprobes/$ev/trigger >/dev/null 2>&1
		sed -n 's/^{ state: *\(-*[0-9]*\) } hitcount: *\([0-9]*\)$/refstate state=\1 hits=\2/p' \
			$t/events/kprobes/$ev/hist >>/tmp/resizebench.txt
		echo '!hist:keys=state' >$t/events/kprobes/$ev/trigger
		echo "-:$ev" >>$t/kprobe_events
	else
		echo "error no kprobe on futex_private_hash_put" >>/tmp/resizebench.txt
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

# A corpus of malformed futex calls, one line per call with its result,
# for comparing kernels (tests/verdicts.py).
step_badinput()
{
	log "badinput: malformed futex calls"
	timeout 120 /guest/bin/futex_badinput >/tmp/badinput.txt 2>&1 ||
		echo "error futex_badinput failed or timed out" >>/tmp/badinput.txt
	section badinput </tmp/badinput.txt
}

# Fault injection (CONFIG_FAIL_FUTEX): with fail_futex failing one in ten
# of its call sites (key lookups, user access in the PI and requeue code),
# run futex kselftests, the malformed calls and stress-ng's futex stressor
# (for a fifth of soak_secs). Their results do not matter: an injected
# fault fails calls that would have worked, and a test whose waker failed
# may wait until kselftest_harness kills it after 30 s. What matters is
# that every program ends by then, 30 s for each of its test cases: one
# that outlives that has a task that not even SIGKILL ends, hung in the
# kernel. Also that faults were injected (a kretprobe hist on
# should_fail_futex() counts them) and, in the verdict, that the console
# stays clean. futex_requeue_pi (24 cases) and futex_hash_resize can take
# minutes this way; they run only in a soak of 300 s or more (make soak).
FAIL_TESTS="futex_wait_timeout futex_wait_wouldblock futex_wait futex_requeue
futex_waitv futex_lock_pi_exiting"
FAIL_TESTS_LONG="futex_requeue_pi futex_hash_resize"

# cases TEST: how many test cases a kselftest_harness program has (at most).
cases()
{
	/kselftest/futex/functional/"$1" -l 2>&1 | grep -c -v '^[#-]'
}

step_failfutex()
{
	local d=/sys/kernel/debug/fail_futex t=/sys/kernel/tracing ev=futex_fail
	local out=/tmp/failfutex.txt tap=/tmp/failfutex.tap p rc secs=$((soak_secs / 5))
	local tests=$FAIL_TESTS

	[ "$secs" -gt 0 ] || secs=1
	[ "$soak_secs" -lt 300 ] || tests="$tests $FAIL_TESTS_LONG"
	if [ ! -d $d ] ||
	   ! echo "r:$ev should_fail_futex ret=\$retval:u8" >>$t/kprobe_events 2>/dev/null ||
	   ! echo 'hist:keys=ret' >$t/events/kprobes/$ev/trigger; then
		echo "error no fail_futex in debugfs or no kretprobe on should_fail_futex" |
			section failfutex
		return
	fi
	echo 10 >$d/probability
	echo 1 >$d/interval
	echo -1 >$d/times
	echo 0 >$d/verbose
	log "failfutex: $(echo "$tests" | wc -w) programs, futex_badinput and stress-ng for ${secs}s, 10% of fail_futex sites failing"
	: >$tap
	for p in $tests; do
		kselftest_one "$p" $(($(cases "$p") * 30 + 30)) failfutex >>$tap
	done
	{
		rc=0
		bounded 120 /guest/bin/futex_badinput >/dev/null 2>&1 || rc=$?
		echo "badinput rc=$rc"
		rc=0
		bounded $((secs + 60)) stress-ng --futex "$(nproc)" --timeout "${secs}s" \
			--metrics-brief >/tmp/stress.txt 2>&1 || rc=$?
		echo "stress-ng rc=$rc ops=$(awk '$4 == "futex" { print $5 }' /tmp/stress.txt)"
		echo 0 >$d/probability
		sed -n 's/^\(not \)*ok [0-9]* selftests: futex\/functional: \([a-z_]*\).*TIMEOUT.*/timeout \2/p' $tap
		echo "programs $(grep -c '^\(not \)*ok [0-9]* selftests:' $tap) of $(echo "$tests" | wc -w)"
		grep '^# took ' $tap
		sed -n 's/^{ ret: *\([01]\) } hitcount: *\([0-9]*\)$/sites ret=\1 \2/p' \
			$t/events/kprobes/$ev/hist
	} >$out
	echo '!hist:keys=ret' >$t/events/kprobes/$ev/trigger
	echo "-:$ev" >>$t/kprobe_events
	section failfutex <$out
}

# The FUTEX2_NUMA first-waiter race (fixes/), by its kselftest alone:
# make check runs it on the kernel without the fix, where it must fail.
step_numarace()
{
	kselftest numarace futex_numa_race
}

# futex_numa_mpol first, then every test of step kselftest: a guest of
# make boots, which boots each kernel again and again to see whether the
# first run after boot hangs.
step_firstrun()
{
	kselftest firstrun futex_numa_mpol
	step_kselftest
}

# A soak of soak_secs seconds in all:
# stress-ng's futex stressor, then perf bench futex wake, wake-parallel,
# requeue and lock-pi in a loop (where perf is in the image), a fifth of
# the time each. Every run must end on its own within its time plus a
# minute: a lost wakeup leaves a thread blocked and the run with it.
step_soak()
{
	local secs=$soak_secs each b end n rc

	each=$((secs / 5))
	[ "$each" -gt 0 ] || each=1
	[ -x /bin/perf ] || each=$secs
	{
		if command -v stress-ng >/dev/null; then
			log "soak: stress-ng --futex $(nproc) for ${each}s" >&2
			rc=0
			bounded $((each + 60)) stress-ng --futex "$(nproc)" \
				--timeout "${each}s" --metrics-brief >/tmp/stress.txt 2>&1 || rc=$?
			sed 's/^/# /' /tmp/stress.txt
			echo "stress-ng rc=$rc"
		else
			echo "error no stress-ng in the image"
		fi
		[ -x /bin/perf ] && for b in wake wake-parallel requeue lock-pi; do
			log "soak: perf bench futex $b for ${each}s" >&2
			end=$(($(date +%s) + each))
			n=0
			rc=0
			while [ "$(date +%s)" -lt $end ] && [ $rc = 0 ]; do
				bounded 60 /bin/perf bench futex $b -s >/dev/null 2>&1 || rc=$?
				n=$((n + 1))
			done
			echo "perf $b runs=$n rc=$rc"
		done
	} >/tmp/soak.txt
	section soak </tmp/soak.txt
}

# perf bench futex hash: mismatched waits (with 2 hash buckets, the
# default size and shared futexes), requeues that take hb->lock, and wakes
# that find nobody, also with 64 threads ramping up without a barrier.
step_perf()
{
	local args i

	for args in "-b 2" "" "-S" "-O requeue -b 2" "-O requeue" "-O wake" \
		"-O wake -R -t 64"; do
		for i in $(seq "$runs"); do
			log "perf bench futex hash $args, run $i/$runs"
			# shellcheck disable=SC2086 # $args is a list of options
			/bin/perf bench futex hash -r "$bench_secs" $args 2>&1 |
				section "perf hash${args:+ $args} #$i"
		done
	done
}

main()
{
	local s

	uname -a | section uname
	echo "$(nproc) cpus" | section cpus
	for s in $(echo "$steps" | tr , ' '); do
		log "step $s"
		"step_$s"
	done
	dmesg | section dmesg
	echo "done" | section end
}

# tests/bad_input.sh sources this file for its functions alone.
[ -n "${GUEST_RUN_LIB:-}" ] || main
