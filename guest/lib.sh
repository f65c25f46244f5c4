# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash # busybox ash, which has "local" too
# shellcheck disable=SC2034,SC2154 # variables for the steps; the settings: guest/run.sh exports them
# The helpers of guest/run.sh and its steps (guest/steps/*.sh), which
# source this file; tests/bad_input.sh sources it for bounded(). Every
# section goes to $RES in the format of guest/FORMAT.md.
#
# Where things are: in the guest (bin/initramfs.sh) the defaults below;
# guest/native.sh points them at a tools folder on the machine itself.
#   RES		the results port or file
#   GUEST_DIR	these scripts and evidence.sh
#   GUEST_BIN	the harness's own programs (guest/*.c)
#   GUEST_LIB	its preloaded libraries (guest/lib/*.c)
#   KSELFTEST	the installed futex kselftests and their runner
#   PERF	perf
#   GUEST_TMP	scratch files of the run
RES=${RES:-/dev/ttyS1}
GUEST_DIR=${GUEST_DIR:-/guest}
GUEST_BIN=${GUEST_BIN:-/guest/bin}
GUEST_LIB=${GUEST_LIB:-/guest/lib}
KSELFTEST=${KSELFTEST:-/kselftest}
PERF=${PERF:-/bin/perf}
GUEST_TMP=${GUEST_TMP:-/tmp}
export RES GUEST_DIR GUEST_BIN GUEST_LIB KSELFTEST PERF GUEST_TMP

TRACING=/sys/kernel/tracing

log() { echo "guest: $*"; }

# section NAME < data: one result section.
section()
{
	echo "==> $1 <=="
	cat
} >>"$RES"

# skip STEP REASON: STEP, or part of it, cannot run here; the host says
# so instead of dropping its rows.
skip()
{
	log "$1: skipped: $2"
	echo "$1: $2" | section skip
}

# tracefs_why: why a kprobe could not be set, where tracefs tells, for a
# skip line.
tracefs_why()
{
	if [ ! -e "$TRACING/README" ]; then
		echo " (tracefs not mounted)"
	elif [ ! -e "$TRACING/kprobe_events" ]; then
		echo " (no kprobe events in this kernel)"
	fi
}

# kprobe STEP EVENT DEFINITION [FILE VALUE]: add the kprobe event EVENT
# (DEFINITION, as kprobe_events takes it) and write VALUE to its FILE
# (filter, trigger); where either fails, remove it again and skip STEP.
kprobe()
{
	local kind=kprobe

	case $3 in
	r:*) kind=kretprobe ;;
	esac
	if echo "$3" 2>/dev/null >>"$TRACING/kprobe_events" &&
	   { [ $# -lt 5 ] || echo "$5" 2>/dev/null >"$TRACING/events/kprobes/$2/$4"; }; then
		return 0
	fi
	echo "-:$2" 2>/dev/null >>"$TRACING/kprobe_events"
	skip "$1" "no $kind on $(echo "$3" | cut -d' ' -f2)$(tracefs_why)"
	return 1
}

# need_perf STEP: perf is there, or STEP is skipped.
need_perf()
{
	[ -x "$PERF" ] && return 0
	skip "$1" "$PERF not installed"
	return 1
}

# kill_tagged TAG: SIGKILL every process whose environment holds
# GUEST_RUN=TAG; a second pass for any that forked meanwhile.
kill_tagged()
{
	local p

	for _ in 1 2; do
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
	EVIDENCE=$GUEST_TMP/evidence/$tag
	mkdir -p "$GUEST_TMP/evidence"
	# Each step is a process of its own: a later step can get the pid
	# of an earlier one, and with it the tag and the file.
	rm -f "$EVIDENCE" "$GUEST_TMP/bounded.killed"
	(
		trap 'kill $s; exit 0' TERM
		sleep "$secs" &
		s=$!
		wait $s
		# Past the deadline: finish the killing even when CMD ends
		# meanwhile and bounded() tells this watchdog to stop.
		trap '' TERM
		touch "$GUEST_TMP/bounded.killed"
		"$GUEST_DIR/evidence.sh" "$EVIDENCE" "$tag" "the guest's deadline of $secs s"
		kill_tagged "$tag"
	) </dev/null >/dev/null 2>&1 &
	wd=$!
	GUEST_RUN=$tag GUEST_EVIDENCE=$EVIDENCE "$@" || rc=$?
	kill $wd 2>/dev/null
	wait $wd 2>/dev/null
	[ ! -e "$GUEST_TMP/bounded.killed" ] || rc=124
	return $rc
}

# kselftest_one TEST SECS NAME: one futex test through kselftest's runner
# (run_kselftest.sh -t) with a timeout of SECS, its TAP on stdout, and how
# long it took ("# took TEST N s"). Half a minute after the runner's
# timeout the guest kills what is left and reports the test as timed out.
# Whatever killed a test for its time (kselftest_harness, the runner or
# the guest) left its evidence, reported as section "evidence NAME TEST".
kselftest_one()
{
	local t=$1 secs=$2 name=$3 t0

	t0=$(date +%s)
	bounded $((secs + 30)) env LD_PRELOAD="$GUEST_LIB/kill_evidence.so" \
		"$KSELFTEST/run_kselftest.sh" -o "$secs" -t "futex/functional:$t" 2>&1 ||
		[ $? != 124 ] ||
		echo "not ok 1 selftests: futex/functional: $t # TIMEOUT, killed by the guest $((secs + 30)) s after its start"
	echo "# took $t $(($(date +%s) - t0)) s"
	[ ! -s "$EVIDENCE" ] || section "evidence $name $t" <"$EVIDENCE"
}

# kselftest_programs: the futex kselftest programs as installed, in the
# order of the runner's list (the Makefile's TEST_GEN_PROGS); not the
# collection's run.sh, which runs them all again.
kselftest_programs()
{
	sed -n 's|^futex/functional:||p' "$KSELFTEST/kselftest-list.txt" | grep -v -x 'run\.sh'
}

# online_nodes: how many NUMA nodes this machine has online (1 without NUMA).
online_nodes()
{
	set -- /sys/devices/system/node/node[0-9]*
	if [ -e "$1" ]; then echo $#; else echo 1; fi
}

# needs_why TEST: why this machine is too small for TEST, by the one rule
# of kselftest-needs (beside this file), or nothing. The host's judge reads
# the same file.
needs_why()
{
	awk -v t="$1" -v cpus="$(nproc)" -v nodes="$(online_nodes)" '
		/^#/ || NF < 3 || $1 != t { next }
		cpus < $2 { printf "needs %d CPUs, %d online\n", $2, cpus; exit }
		nodes < $3 { printf "needs %d NUMA nodes, %d online\n", $3, nodes; exit }
	' "$GUEST_DIR/kselftest-needs"
}

# kselftest NAME TEST...: run futex tests one at a time, each with its own
# timeout, and report the TAP as section NAME. Section "plan NAME" comes
# first: each TEST on a line, or "TEST not run: why" for one this machine
# is too small for; the host compares it with what ran.
kselftest()
{
	local name=$1 tap=$GUEST_TMP/$1.tap plan=$GUEST_TMP/$1.plan t why

	shift
	log "$name: $# futex tests, ${kst_timeout}s each"
	# The runner appends to /dev/stdout: append here too, or the two
	# file offsets overwrite each other.
	: >"$tap"
	: >"$plan"
	for t in "$@"; do
		why=$(needs_why "$t")
		if [ -n "$why" ]; then
			echo "$t not run: $why" >>"$plan"
			continue
		fi
		echo "$t" >>"$plan"
	done
	section "plan $name" <"$plan"
	# shellcheck disable=SC2013 # one test name per line, no spaces
	for t in $(grep -v ' not run: ' "$plan"); do
		kselftest_one "$t" "$kst_timeout" "$name" >>"$tap"
	done
	section "$name" <"$tap"
}

# cases TEST: how many test cases a kselftest_harness program has (at most).
cases()
{
	"$KSELFTEST/futex/functional/$1" -l 2>&1 | grep -c -v '^[#-]'
}

# bench_limit SECS: the limit of bench() for runs of SECS seconds each.
# A lost wakeup leaves a run blocked: bench() kills it after its time
# several times over, plus a minute for the runs of perf without one.
BENCH_LIMIT=600
bench_limit()
{
	BENCH_LIMIT=$(($1 * 4 + 60))
}

# bench GROUP NAME RUN RUNS THREADS CMD...: run CMD once, killed after
# $BENCH_LIMIT seconds (each benchmark step sets it, bench_limit()),
# and report it as one "bench" section: what it was, the command line and
# its raw output. What a killed run was doing goes to section "evidence
# GROUP NAME".
bench()
{
	local group=$1 name=$2 run=$3 runs=$4 threads=$5 out rc=0

	shift 5
	out=$GUEST_TMP/bench.out
	log "$group $name, run $run/$runs: $*"
	bounded "$BENCH_LIMIT" "$@" </dev/null >"$out" 2>&1 || rc=$?
	{
		echo "# bench group=$group name=$name run=$run runs=$runs threads=$threads"
		echo "\$ $*"
		cat "$out"
		echo "# rc $rc"
	} | section bench
	[ ! -s "$EVIDENCE" ] || section "evidence $group $name" <"$EVIDENCE"
}
