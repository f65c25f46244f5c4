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

# replace_run TMP [NR ERRNO OP]: build guest/futex_replace.c (and
# tests/deny.c) in TMP once, run it, with futex operation OP of system
# call NR denied where given; its output in TMP/out, its status returned.
replace_run()
{
	local tmp=$1 rc=0

	shift
	[ -x "$tmp/futex_replace" ] ||
		gcc -O2 -Wall -o "$tmp/futex_replace" "$TOP/guest/futex_replace.c" || return 99
	[ -x "$tmp/deny" ] || gcc -O2 -Wall -o "$tmp/deny" "$TOP/tests/deny.c" || return 99
	if [ $# = 3 ]; then
		"$tmp/deny" "$1" "$2" "$3" -- "$tmp/futex_replace" $REPLACE_RUNS >"$tmp/out" 2>&1 || rc=$?
	else
		"$tmp/futex_replace" $REPLACE_RUNS >"$tmp/out" 2>&1 || rc=$?
	fi
	cat "$tmp/out"
	return $rc
}

# replace_finds OP PATTERN...: with futex operation OP (a <linux/futex.h>
# name) returning 0 and doing nothing, futex_replace exits 1 and prints a
# line matching each PATTERN; an unmutated run first must pass.
replace_finds()
{
	local tmp op=$1 rc=1 nr code p

	shift
	tmp=$(mktemp -d)
	if replace_run "$tmp" && grep -q -E '^replacements=.* children_failed=0 .* lost=0 exclusion=0 errors=0$' "$tmp/out"; then
		if nr=$(cdef "$tmp" sys/syscall.h SYS_futex) && code=$(cdef "$tmp" linux/futex.h "$op"); then
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
	replace_finds FUTEX_WAKE_PRIVATE '^lost: wake lane [0-9]+: thread [0-9]+ asleep' \
		'^lost: requeue lane ' '^lost: waitv lane ' '^child [0-9]+: exit 2$' \
		'^replacements=20 .* lost=[1-9]'
}

replace_finds_lost_pi_handover()
{
	replace_finds FUTEX_UNLOCK_PI_PRIVATE '^lost: pi lane [0-9]+: thread [0-9]+ asleep in FUTEX_LOCK_PI'
}

replace_finds_shared_pi_lock()
{
	replace_finds FUTEX_LOCK_PI_PRIVATE '^exclusion: pi lane [0-9]+: thread [0-9]+ inside with [0-9]+$' \
		'exclusion=[1-9]'
}
