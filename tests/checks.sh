#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The checks of make check that need no kernel build: the series' patches
# through checkpatch, b4 and git am, its documentation and orderings, the
# packed tools. Each is a step of configs/plans/check, named in
# configs/stages, which says what it checks.
#
# Usage: tests/checks.sh NAME [ARG...]
set -eu
# shellcheck source=../bin/lib.sh
. "$(dirname "$0")/../bin/lib.sh"
# shellcheck source=../bin/debian.sh
. "$(dirname "$0")/../bin/debian.sh"
# shellcheck source=bad_input.sh
. "$(dirname "$0")/bad_input.sh"
# shellcheck source=litmus.sh
. "$(dirname "$0")/litmus.sh"

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

# export: bin/export.sh gives series/ and fixes/ again, byte for byte.
export_roundtrip()
{
	local tmp

	tmp=$(mktemp -d)
	"$BIN/export.sh" "$tmp/series" "$tmp/fixes" &&
		diff -r "$SERIES" "$tmp/series" >&2 &&
		diff -r "$FIXES" "$tmp/fixes" >&2
	local rc=$?
	rm -rf "$tmp"
	return "$rc"
}

# b4: with no git configuration but the tree's, as on a fresh machine,
# where b4 once stopped for want of a user.name.
b4_fresh()
{
	env GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 "$BIN/b4.sh"
}

rst()
{
	rst2html --halt=warning --report=warning "$TREE/Documentation/locking/futex-hash.rst" /dev/null
}

# check NAME [ARG]: the check NAME.
check()
{
	case $1 in
	checkpatch)	checkpatch "${2:?patch}" ;;
	export)		export_roundtrip ;;
	b4)		b4_fresh ;;
	b4-misses)	b4_misses_a_patch ;;
	rst)		rst ;;
	litmus)		litmus ;;
	io-uring-skips)	io_uring_missing_skips ;;
	*)		die "checks: no check '$1' (see configs/stages)" ;;
	esac
}

# As a condition, as tests/tap.sh runs a test: a check that fails midway
# still cleans up after itself.
if check "${1:-}" "${@:2}"; then
	exit 0
fi
exit 1
