#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash # busybox ash, which has "local" too
# Step hold: how long a replacement of the private hash holds the lock of
# a bucket with 0, 1, 1,000 and 100,000 waiters queued in it
# (guest/futex_hold.c), in the CPU time of the replacing thread. Booted
# with ICOUNT=1 (scenario hold), the times are instructions. It judges
# nothing: the section is for people.
set -u
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

log "hold: replacements of the private hash with waiters queued in one bucket"
"$GUEST_BIN/futex_hold" 0 1 1000 100000 2>&1 | section hold
