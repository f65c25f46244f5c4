#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash # busybox ash, which has "local" too
# shellcheck disable=SC2154 # the settings: guest/run.sh exports them
# Step soak: a soak of soak_secs seconds in all: stress-ng's futex
# stressor, then perf bench futex wake, wake-parallel, requeue and lock-pi
# in a loop, a fifth of the time each. Every run must end on its own
# within its time plus a minute: a lost wakeup leaves a thread blocked and
# the run with it. Without stress-ng or perf the step reports an error
# line for it: the soak is not done then.
set -u
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

stress=$GUEST_TMP/stress.txt
out=$GUEST_TMP/soak.txt
each=$((soak_secs / 5))

[ "$each" -gt 0 ] || each=1
{
	if command -v stress-ng >/dev/null; then
		log "soak: stress-ng --futex $(nproc) for ${each}s" >&2
		rc=0
		bounded $((each + 60)) stress-ng --futex "$(nproc)" \
			--timeout "${each}s" --metrics-brief >"$stress" 2>&1 || rc=$?
		sed 's/^/# /' "$stress"
		echo "stress-ng rc=$rc"
	else
		echo "error no stress-ng in the image"
	fi
	[ -x "$PERF" ] || echo "error no perf in the image ($PERF)"
	[ ! -x "$PERF" ] || for b in wake wake-parallel requeue lock-pi; do
		log "soak: perf bench futex $b for ${each}s" >&2
		end=$(($(date +%s) + each))
		n=0
		rc=0
		while [ "$(date +%s)" -lt $end ] && [ $rc = 0 ]; do
			bounded 60 "$PERF" bench futex $b -s >/dev/null 2>&1 || rc=$?
			n=$((n + 1))
		done
		echo "perf $b runs=$n rc=$rc"
	done
} >"$out"
section soak <"$out"
