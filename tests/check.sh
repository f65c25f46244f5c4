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

# The kernels, the guests and the judge (configs/plans/check), each a TAP
# line of this run's.
export LOGS
TAP_N=$n TAP_PASSED=$passed TAP_FAILED=$failed "$BIN/plan.sh" --tap check "$CHECK"
