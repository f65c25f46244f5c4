#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash # busybox ash, which has "local" too
# Step quick: the kselftests of what the series changes, for the mutants'
# guests (scenario mutant): refused waits and their error precedence, waits,
# wakes, requeues, futex_waitv and the private hash replacement, under
# load and with a futex operation stalled in a fault, and io_uring's futex
# operations. Same section as step kselftest.
set -u
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

QUICK_TESTS="futex_wait_wouldblock futex_wait futex_requeue futex_waitv
futex_hash_resize futex_hash_drain futex_io_uring"

# shellcheck disable=SC2086 # a list of test names
kselftest kselftest $QUICK_TESTS
