#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash # busybox ash, which has "local" too
# Step exitpi: a thread exits owning a PI futex with a waiter while a
# replacement of the private hash waits for a reference, and
# PR_FUTEX_HASH_SET_SLOTS waits with it (guest/futex_exitpi.c). The
# kernels of make lockcheck force the retry of exit_pi_state_list() that
# drops a hash reference with curr->pi_lock held; lockdep, on the console,
# says whether that put took a sleeping lock. A run that outlives
# DEADLINE is killed, and what its threads were doing is reported.
set -u
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

DEADLINE=300

out=$GUEST_TMP/exitpi.txt
log "exitpi: a PI futex's owner exits while a replacement waits for a reference"
rc=0
bounded $DEADLINE "$GUEST_BIN/futex_exitpi" >"$out" 2>&1 || rc=$?
{
	cat "$out"
	echo "rc=$rc"
} | section exitpi
[ ! -s "$EVIDENCE" ] || section "evidence exitpi futex_exitpi" <"$EVIDENCE"
