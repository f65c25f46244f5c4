#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check: make selftest and the series' tests, as TAP, ending with
# "N passed, N failed". Builds a debug kernel at the base and at every
# patch, boots base and patched, and judges what the guests reported.
set -eu
# shellcheck source=../bin/lib.sh
. "$(dirname "$0")/../bin/lib.sh"
# shellcheck source=../bin/debian.sh
. "$(dirname "$0")/../bin/debian.sh"
# shellcheck source=tap.sh
. "$(dirname "$0")/tap.sh"
# shellcheck source=bad_input.sh
. "$(dirname "$0")/bad_input.sh"
# shellcheck source=litmus.sh
. "$(dirname "$0")/litmus.sh"

# The guests run what configs/scenarios gives them: a KST_TESTS of the
# user's would shorten their kselftest plan (check-native sets its own).
unset KST_TESTS
CHECK=$RESULTS/check
BIN=$TOP/bin
# maintained FILE: the FUTEX SUBSYSTEM entry of MAINTAINERS covers FILE, as
# get_maintainer.pl reads it (folders and patterns alike).
maintained()
{
	(cd "$TREE" && perl scripts/get_maintainer.pl --no-git --no-git-fallback \
		--no-email --no-l --no-rolestats --subsystem -f "$1") |
		grep -q -x 'FUTEX SUBSYSTEM'
}

# checkpatch PATCH: no error, warning or check, as a patch from the kernel
# tree; and no error either where a reviewer runs it on series/ in this
# repository, which tracks PATCH, so checkpatch reads it as a source file.
# Four warnings are decided here instead: a tree made from the source
# package has no history before its base, so the commits a changelog cites
# cannot be looked up there (a user's git tree has them, and there they are
# checked); a new file needs no MAINTAINERS change when the FUTEX
# SUBSYSTEM entry already covers it, which checkpatch does not look up;
# Originally-by:, which Documentation/process/maintainer-tip.rst lists
# among the tip tree's tags and checkpatch does not know; and ENOSYS in a
# patch to the selftests alone, where it is what the kernel returned for
# an operation it does not know, not a code the patch returns.
checkpatch()
{
	local ignore=UNKNOWN_COMMIT_ID f

	git -C "$TREE" rev-parse -q --verify upstream~1 >/dev/null && ignore=
	grep '^diff --git ' "$1" | grep -q -v ' a/tools/testing/selftests/' ||
		ignore=${ignore:+$ignore,}ENOSYS
	while IFS= read -r f; do
		maintained "$f" || { echo "$f: no MAINTAINERS entry covers it" >&2; return 1; }
		ignore=${ignore:+$ignore,}FILE_PATH_CHANGES
	done < <(awk '/^--- \/dev\/null$/ { getline; sub(/^\+\+\+ b\//, ""); print }' "$1")
	(cd "$TREE" && perl scripts/checkpatch.pl --strict --no-tree --terse --show-types \
		${ignore:+--ignore="$ignore"} "$1") | tip_tags &&
	(cd "$TOP" && perl "$TREE/scripts/checkpatch.pl" --strict --no-tree --terse \
		--show-types ${ignore:+--ignore="$ignore"} "$(realpath --relative-to="$TOP" "$1")") |
		tip_tags
}

# tip_tags: checkpatch's report, less its warning on an Originally-by: tag;
# fails if anything else is left.
tip_tags()
{
	! grep -v -E 'BAD_SIGN_OFF: Non-standard signature: Originally-by:|^total: ' |
		grep -E 'ERROR|WARNING|CHECK'
}

export_roundtrip()
{
	local tmp

	tmp=$(mktemp -d)
	"$BIN/export.sh" "$tmp/series" "$tmp/fixes" &&
		diff -r "$SERIES" "$tmp/series" >&2 &&
		diff -r "$FIXES" "$tmp/fixes" >&2
	local rc=$?
	rm -rf "$tmp"
	return $rc
}

# native_runs: the native mode, twice on this machine's own kernel with
# short settings, and the comparison of the two (a measurement of that
# kernel: whether it runs, records and compares is what is judged here,
# by bin/verdicts.py with the guests' results).
native_runs()
{
	"$BIN/scenario.sh" check-native "$CHECK/native-1" &&
		"$BIN/scenario.sh" check-native "$CHECK/native-2" &&
		python3 "$BIN/compare.py" "$CHECK/native-1" "$CHECK/native-2" -o "$CHECK/native-compare"
}

# joined PID LOG: the exit status of PID, a job of this shell, and its
# output, which it wrote to LOG.
joined()
{
	local rc=0

	wait "$1" || rc=$?
	cat "$2"
	return $rc
}

tap_logs "$CHECK/logs"
progress "check: starting (logs in $LOGS)"

stage "dependencies are installed" "$BIN/deps.sh" check
# make selftest runs beside the stages up to the kernel builds, which
# spend most of their time on one core (unpacking, git, perl, herd7),
# and its TAP lines join this run's there.
selftest_out=$LOGS/selftest.out
"$TOP/tests/selftest.sh" >"$selftest_out" 2>&1 &
selftest=$!
trap 'wait; echo "# make selftest: $selftest_out"' EXIT
stage "base tree is obtained" "$BIN/base.sh"
stage "series applies with git am" "$BIN/tree.sh"
for p in $(fixes_patches) $(series_patches); do
	t "checkpatch --strict: $(basename "$p")" checkpatch "$p" || true
done
t "export regenerates series/ and fixes/ byte for byte" export_roundtrip || true
# With no git configuration but the tree's, as on a fresh machine, where
# b4 once stopped for want of a user.name.
t "b4 am of fixes/ and series/ as mail threads, then git am, gives base and patched (no git identity set)" \
	env GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 "$BIN/b4.sh" || true
t "b4 check of a series that lacks its last patch fails" b4_misses_a_patch || true
t "the futex documentation is valid reST" \
	rst2html --halt=warning --report=warning "$TREE/Documentation/locking/futex-hash.rst" /dev/null || true
t "LKMM litmus tests of the orderings give their Result: lines" litmus || true

# The guests' programs first, from the series' tree at "patched": the
# kernels below check out other commits of it.
stage "kselftests, perf and guest programs build" "$BIN/tools.sh"
rm -rf "$CHECK"/native-*
t "native mode runs on this machine's kernel twice and compares the runs" native_runs || true
t "the tools pack as one tarball" "$BIN/pack.sh" || true
t "futex_io_uring skips every case, saying why, without io_uring or its futex operations" io_uring_missing_skips || true
stage "initramfs is packed" "$BIN/initramfs.sh"
rc=0
wait "$selftest" || rc=$?
while IFS= read -r line; do
	case $line in
	"ok "[0-9]*" - "*)	ok "selftest: ${line#* - }" ;;
	"not ok "[0-9]*" - "*)	not_ok "selftest: ${line#* - }" ;;
	*)			echo "# $line" ;;
	esac
done <"$selftest_out"
[ "$rc" = 0 ] || grep -q '^not ok ' "$selftest_out" ||
	not_ok "make selftest runs to its end" "exit status $rc: $(tail -n 1 "$selftest_out")"

# Every debug kernel builds in the series' tree, one commit after the
# other, so that each compiles only what its commit changed: the stable
# patches alone (tag stable, without fixes/, where each fix's test must
# fail and the stable patches' tests must pass) and the kernels of
# bin/lockcheck.sh, which differ from it in kernel/futex/ alone; then the
# base and each patch. From the patch that changes
# include/linux/futex_types.h on, most objects compile again, once.
# Leave the tree where bin/tree.sh put it whatever happens below, once
# the build beside the debug one is over.
trap 'wait; git -C "$TREE" checkout -q futex-series 2>/dev/null || true' EXIT
rm -rf "$CHECK/stable"
git -C "$TREE" checkout -q --detach stable ||
	{ not_ok "checkout of stable" "git checkout stable failed"; finish; exit 1; }
stage "debug kernel builds on $(git -C "$TREE" describe --always upstream) with the series' stable patches alone" \
	"$BIN/build.sh" stable-debug "$TREE" debug
# v6's stable patch took a waitqueue's lock in a reference put made with
# curr->pi_lock held; the stable patches must not (bin/lockcheck.sh).
rm -rf "$CHECK/lockcheck"
stage "debug kernels forced to put a hash reference under pi_lock, the stable patches and tests/lockcheck/'s bugs, boot" \
	"$BIN/lockcheck.sh" "$CHECK/lockcheck"
git -C "$TREE" checkout -q --detach base ||
	{ not_ok "checkout of base" "git checkout base failed"; finish; exit 1; }
stage "debug kernel builds at base" "$BIN/build.sh" base-debug "$TREE" debug
kernels=$(series_kernels) ||
	{ not_ok "series commits are listed" "git rev-list base..patched failed"; finish; exit 1; }
mapfile -t kernels <<<"$kernels"
total=${#kernels[@]}
small_log=$LOGS/small.out
for row in "${kernels[@]}"; do
	read -r i c same <<<"$row"
	name=patch-$i-debug
	[ "$i" = "$total" ] && name=patched-debug
	subject=$(git -C "$TREE" log -1 --format=%s "$c")
	# A patch that changes nothing the kernel build reads (a kselftest,
	# perf, documentation) leaves the kernel of the patch before it; the
	# last one is built all the same, as the patched kernel.
	if [ "$i" != "$total" ] && [ -n "$same" ]; then
		ok "debug kernel after patch $i is patch $((i - 1))'s (tools/, Documentation/ only): $subject"
		continue
	fi
	git -C "$TREE" checkout -q --detach "$c" ||
		{ not_ok "checkout of patch $i" "git checkout $c failed"; finish; exit 1; }
	# kernel/futex/ without the private hash builds beside the debug
	# kernel, in an object folder of its own: either spends much of its
	# time on one core, linking or walking the tree.
	"$BIN/build.sh" small "$TREE" small >"$small_log" 2>&1 &
	small=$!
	stage "debug kernel builds after patch $i: $subject" \
		"$BIN/build.sh" "$name" "$TREE" debug
	t "kernel/futex builds after patch $i without the private hash, with W=1 and -Werror, its kernel-doc clean" \
		joined "$small" "$small_log" || true
done
git -C "$TREE" checkout -q futex-series

stage "debug kernel with the stable patches alone boots and runs the tests of both" \
	"$BIN/scenario.sh" check-stable "$CHECK/stable"
stage "base debug kernel boots and runs the tests" \
	"$BIN/scenario.sh" check-base "$CHECK/base"
stage "patched debug kernel boots and runs the tests" \
	"$BIN/scenario.sh" check-patched "$CHECK/patched"
# The private hash tests with more than 16 vCPUs (configs/scenarios says
# why 18), on the SNC-like topology.
stage "patched debug kernel boots with 18 vCPUs in 6 NUMA nodes and runs the private hash tests" \
	"$BIN/scenario.sh" check-many "$CHECK/patched-many"

# One mutant of make mutants, to keep that target honest: the patched
# debug kernel with futex_q_unlock() keeping its waiter count; and the
# patched debug kernel in the same scenario, the control, which must pass
# every check a mutant names. The scenario is check-mutant, the steps of
# the check that catches it: the patched guest above runs the rest of
# scenario mutant's steps. No plain kernel: the series changes
# mm_struct, so a plain patched kernel shares few objects with the debug
# ones and would be a third kernel compiled from cold. What needs one,
# instructions per futex call under icount, is make icount's and make
# run's.
MUTANT=b-unlock-keeps-waiter-count
rm -rf "$CHECK/mutants" "$CHECK/mutant-control"
stage "patched debug kernel with mutant $MUTANT builds and runs the tests" \
	"$BIN/mutant.sh" "$MUTANT" "$CHECK/mutants/$MUTANT" debug check-mutant
stage "patched debug kernel runs the mutant's tests unmutated (the control)" \
	"$BIN/scenario.sh" check-mutant "$CHECK/mutant-control" patched-debug

# The judge's verdicts as this run's TAP lines; it plans them, and its
# last one says whether each planned verdict was given: a judge that
# stopped before it (a traceback) fails here.
verdicts=$LOGS/verdicts.out
python3 "$BIN/verdicts.py" "$CHECK" "$TREE" >"$verdicts" 2>&1 || true
while IFS= read -r line; do
	case $line in
	"ok "*)		ok "${line#ok }" ;;
	"not ok "*)	not_ok "${line#not ok }" ;;
	*)		echo "# $line" ;;
	esac
done <"$verdicts"
grep -q '^\(not \)\?ok the judge gave each of its' "$verdicts" ||
	not_ok "guest results are judged" "$(tail -n 1 "$verdicts")"
finish
