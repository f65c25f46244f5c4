# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# TAP for tests/selftest.sh and tests/check.sh: one line per test, each
# test's output in $LOGS, ending with "N passed, N failed". Sourced.

n=0
passed=0
failed=0

finish()
{
	echo "1..$n"
	echo "$passed passed, $failed failed"
	[ "$failed" = 0 ]
}

ok()
{
	n=$((n + 1))
	passed=$((passed + 1))
	echo "ok $n - $1"
}

not_ok()
{
	n=$((n + 1))
	failed=$((failed + 1))
	echo "not ok $n - $1"
	[ -z "${2:-}" ] || echo "# $2"
}

# t NAME CMD...: one test; its output goes to a log, and a comment line
# says how long it took and when it ended. A failed one's first error line
# goes into the report, and the last lines of its log after it, where a
# guest that failed left its console's tail: a report read on another
# machine (CI's) has its evidence.
t()
{
	local name=$1 log t0=$SECONDS rc=0

	shift
	log=$LOGS/$((n + 1)).log
	if "$@" >"$log" 2>&1; then
		ok "$name"
	else
		not_ok "$name" "$(grep -m1 '^error:' "$log" || tail -n 1 "$log")"
		tail -n 40 "$log" | sed 's/^/#   /'
		rc=1
	fi
	echo "# $(progress "took $((SECONDS - t0)) s")"
	return $rc
}

# stage NAME CMD...: a test that later ones depend on; stop if it fails.
stage()
{
	t "$@" || { finish; exit 1; }
}

# tap_logs DIR: the tests' logs go to DIR, emptied first.
tap_logs()
{
	LOGS=$1
	mkdir -p "$LOGS"
	rm -f "$LOGS"/*.log
}
