#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash # busybox ash, which has "local" too
# Step kselftest: every test of the collection's run.sh, in its order, or
# the programs kst_tests names (comma-separated).
set -u
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

tests=""
if [ -n "${kst_tests:-}" ]; then
	tests=$(echo "$kst_tests" | tr , ' ')
else
	# shellcheck disable=SC2013 # one test name per line, no spaces
	for t in $(sed -n 's|^\./\([a-z_]*\)$|\1|p' "$KSELFTEST/futex/functional/run.sh"); do
		case " $MANY_CPUS_TESTS " in
		*" $t "*) [ "$(nproc)" -gt 16 ] || continue ;;
		esac
		tests="$tests $t"
	done
fi
# shellcheck disable=SC2086 # a list of test names
kselftest kselftest $tests
