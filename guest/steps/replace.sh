#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash # busybox ash, which has "local" too
# Step replace: every kind of private futex operation at once while the
# private hash is replaced REPLACEMENTS times without pause, with forks
# and signals in the mix (guest/futex_replace.c), with panic_on_warn set:
# a WARN on the way ends the guest, and the console tells why. The
# program decides from the kernel's state whether a waiter was lost or a
# PI lock let two in; the section is its output and its exit status. A
# run that outlives DEADLINE has hung in a way the program does not
# recognise: it is killed, and what its threads were doing is reported.
set -u
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

REPLACEMENTS=200
DEADLINE=600
WARN=/proc/sys/kernel/panic_on_warn

out=$GUEST_TMP/replace.txt
log "replace: every private futex operation during $REPLACEMENTS replacements of the hash"
warn=$(cat $WARN 2>/dev/null) || warn=
[ -z "$warn" ] || echo 1 >$WARN
rc=0
bounded $DEADLINE "$GUEST_BIN/futex_replace" $REPLACEMENTS >"$out" 2>&1 || rc=$?
[ -z "$warn" ] || echo "$warn" >$WARN
{
	cat "$out"
	echo "rc=$rc"
} | section replace
[ ! -s "$EVIDENCE" ] || section "evidence replace futex_replace" <"$EVIDENCE"
