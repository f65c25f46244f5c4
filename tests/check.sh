#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check: make selftest and the series' tests, as TAP, ending with
# "N passed, N failed": the plan configs/plans/check, each step a test.
# Builds a debug kernel at the base and at every patch, boots base and
# patched, and judges what the guests reported.
set -eu
# shellcheck source=../bin/lib.sh
. "$(dirname "$0")/../bin/lib.sh"
# shellcheck source=tap.sh
. "$(dirname "$0")/tap.sh"

# The guests run what configs/scenarios gives them: a KST_TESTS of the
# user's would shorten their kselftest plan (check-native sets its own).
unset KST_TESTS
tap_logs "$RESULTS/check/logs"
progress "check: starting (logs in $LOGS)"
export LOGS
exec "$TOP/bin/plan.sh" --tap check "$RESULTS/check"
