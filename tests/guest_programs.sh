# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# The harness's guest programs judge on this machine's kernel, sourced by
# tests/selftest.sh: guest/futex_replace.c, run with tests/deny.c making
# one futex operation return 0 and do nothing, as a kernel that loses it
# would, must report what that loses. Where this kernel has no private
# futex hash to replace, the program skips, and these say so and pass.
# cdef comes from tests/bad_input.sh.

# Replacements per run: enough for every lane to go round, quick here.
REPLACE_RUNS=20
# A run takes about a second. One that has not ended in this many seconds
# left a thread that it found neither lost nor done: it failed, and the
# limit only ends it.
REPLACE_LIMIT=120

# replace_run TMP [NR ERRNO OP]: build guest/futex_replace.c (and
# tests/deny.c) in TMP once, run it, with futex operation OP of system
# call NR denied where given; its output in TMP/out, its status returned
# (124 where it ran past REPLACE_LIMIT).
replace_run()
{
	local tmp=$1 rc=0

	shift
	[ -x "$tmp/futex_replace" ] ||
		gcc -O2 -Wall -o "$tmp/futex_replace" "$TOP/guest/futex_replace.c" || return 99
	[ -x "$tmp/deny" ] || gcc -O2 -Wall -o "$tmp/deny" "$TOP/tests/deny.c" || return 99
	if [ $# = 3 ]; then
		timeout -k 5 $REPLACE_LIMIT "$tmp/deny" "$1" "$2" "$3" -- \
			"$tmp/futex_replace" $REPLACE_RUNS >"$tmp/out" 2>&1 || rc=$?
	else
		timeout -k 5 $REPLACE_LIMIT "$tmp/futex_replace" $REPLACE_RUNS >"$tmp/out" 2>&1 ||
			rc=$?
	fi
	cat "$tmp/out"
	[ $rc != 124 ] || echo "futex_replace did not end within $REPLACE_LIMIT s"
	return $rc
}

# replace_finds CALL ARG1 PATTERN...: with system call CALL returning 0
# and doing nothing where its second argument is ARG1 (names as
# guest/futex2.h gives them: a futex operation, or the mask of
# futex_wake()), futex_replace exits 1 and prints a line matching each
# PATTERN; an unmutated run first must pass.
replace_finds()
{
	local tmp call=$1 arg=$2 rc=1 nr code p

	shift 2
	tmp=$(mktemp -d)
	if replace_run "$tmp" && grep -q -E '^replacements=.* children_failed=0 .* lost=0 exclusion=0 errors=0$' "$tmp/out"; then
		if nr=$(cdef "$tmp" "$TOP/guest/futex2.h" "$call") &&
			code=$(cdef "$tmp" "$TOP/guest/futex2.h" "$arg"); then
			rc=0
			replace_run "$tmp" "$nr" 0 "$code" && rc=1
			for p in "$@"; do
				grep -q -E "$p" "$tmp/out" || { echo "no line matches: $p"; rc=1; }
			done
		fi
	elif grep -q '^skip: ' "$tmp/out"; then
		echo "futex_replace skips on this kernel: not checked"
		rc=0
	fi
	rm -rf "$tmp"
	return $rc
}

replace_finds_lost_wake()
{
	replace_finds SYS_futex FUTEX_WAKE_PRIVATE '^lost: wake lane [0-9]+: thread [0-9]+ asleep' \
		'^lost: requeue lane ' '^lost: waitv lane ' '^child [0-9]+: exit 2$' \
		'^replacements=20 .* lost=[1-9]'
}

replace_finds_lost_pi_handover()
{
	replace_finds SYS_futex FUTEX_UNLOCK_PI_PRIVATE '^lost: pi lane [0-9]+: thread [0-9]+ asleep in FUTEX_LOCK_PI'
}

replace_finds_shared_pi_lock()
{
	replace_finds SYS_futex FUTEX_LOCK_PI_PRIVATE '^exclusion: pi lane [0-9]+: thread [0-9]+ inside with [0-9]+$' \
		'exclusion=[1-9]'
}

# futex_wake() wakes the futex2 lane's waiters and, one way, the io_uring
# lane's, asleep in io_uring_enter() for IORING_OP_FUTEX_WAIT or _WAITV.
replace_finds_lost_futex2_wake()
{
	local tmp enter

	tmp=$(mktemp -d)
	enter=$(cdef "$tmp" sys/syscall.h SYS_io_uring_enter) || enter=none
	rm -rf "$tmp"
	replace_finds SYS_futex_wake FUTEX_BITSET_MATCH_ANY \
		'^lost: futex2 lane [0-9]+: thread [0-9]+ asleep' \
		"^lost: uring lane [0-9]+: thread [0-9]+ asleep .*; syscall $enter " \
		'^replacements=20 .* lost=[1-9]'
}
