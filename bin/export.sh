#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Stage "export": regenerate series/ from the tree's commits (base..patched
# branch tip), with the cover letter from the branch description, and
# fixes/ from the fixes below them (upstream..base). The
# output depends neither on commit ids, nor on the git version, nor on the
# repository's size (index lines carry 12-digit ids, as the kernel's docs
# ask), so a tree made by bin/tree.sh from series/ exports series/ byte for
# byte.
#
# Usage: bin/export.sh [DIR [FIXES_DIR]]	(default: series/ and fixes/)
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

dest=${1:-$SERIES}
fixes_dest=${2:-$FIXES}
branch=futex-series
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

git -C "$TREE" rev-parse -q --verify base >/dev/null ||
	die "export: $TREE has no base; run bin/tree.sh first"
n=$(git -C "$TREE" rev-list --count "base..$branch")
[ "$n" -gt 0 ] || die "export: no commits on $branch above base"

# The cover letter is "from" the series' author at the date of its last
# patch, not from whoever runs this at the current time.
GIT_COMMITTER_NAME=$(git -C "$TREE" log -1 --format=%an "$branch")
GIT_COMMITTER_EMAIL=$(git -C "$TREE" log -1 --format=%ae "$branch")
GIT_COMMITTER_DATE=$(git -C "$TREE" log -1 --format=%ad --date=raw "$branch")
export GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL GIT_COMMITTER_DATE
git -C "$TREE" -c core.abbrev=12 format-patch -q -o "$tmp" --cover-letter \
	--cover-from-description=subject --zero-commit --no-signature \
	--base=upstream "base..$branch"
# An empty context line leaves format-patch as a lone space. checkpatch
# reads a patch that git tracks (series/ in this repository) as a source
# file and flags each one as trailing whitespace; git am and patch(1) take
# an empty line for empty context, so write it that way.
# write FROM DIR: the patches of FROM into DIR, in place of DIR's.
write()
{
	local p

	mkdir -p "$2"
	rm -f "$2"/[0-9][0-9][0-9][0-9]-*.patch
	for p in "$1"/*.patch; do
		[ -e "$p" ] || continue
		awk '/^diff --git / { diff = 1 } { print (diff && $0 == " ") ? "" : $0 }' \
			"$p" >"$2/$(basename "$p")"
	done
}
write "$tmp" "$dest"

# The fixes, each as its own patch for stable, from their author.
nfix=$(git -C "$TREE" rev-list --count upstream..base)
if [ "$nfix" -gt 0 ]; then
	GIT_COMMITTER_NAME=$(git -C "$TREE" log -1 --format=%an base)
	GIT_COMMITTER_EMAIL=$(git -C "$TREE" log -1 --format=%ae base)
	GIT_COMMITTER_DATE=$(git -C "$TREE" log -1 --format=%ad --date=raw base)
	git -C "$TREE" -c core.abbrev=12 format-patch -q -o "$tmp/fixes" \
		--zero-commit --no-signature upstream..base
fi
write "$tmp/fixes" "$fixes_dest"
progress "export: $n patches and a cover letter in $dest, $nfix fixes in $fixes_dest"
