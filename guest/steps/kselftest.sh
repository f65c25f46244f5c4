#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash # busybox ash, which has "local" too
# Step kselftest: every futex kselftest program the runner's list holds,
# in its order, or the programs kst_tests names (comma-separated); those
# the machine is too small for are planned as not run (guest/lib.sh).
set -u
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

if [ -n "${kst_tests:-}" ]; then
	tests=$(echo "$kst_tests" | tr , ' ')
else
	tests=$(kselftest_programs)
fi
# shellcheck disable=SC2086 # a list of test names
kselftest kselftest $tests
