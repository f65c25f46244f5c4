#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Stage "tree": a git tree with the base source as one commit (tag
# "upstream"), the fixes of fixes/ on it (tag "base": what the series is
# tested against, as b4 would list them as prerequisites) and the series
# applied on top with git am (tag "patched"), plus a worktree of the base.
# The series' patches for stable (Cc: stable@vger.kernel.org) are applied
# to the base source alone as well (tag "stable"): they must apply and
# work without fixes/ and without the rest of the series.
# Reruns reuse the tree and re-apply the series only when it changed.
#
# The cover letter's text is kept as the branch description, so that
# bin/export.sh regenerates series/ and fixes/ byte for byte from the tree.
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

BRANCH=futex-series
# Stable dates for the base commit: the same tarball gives the same id.
BASE_DATE="@0 +0000"

g() { git -C "$TREE" "$@"; }

base_from_debian()
{
	local tarball=$BUILD/dl/linux-source.tar.xz

	[ -f "$tarball" ] || die "tree: $tarball missing; run bin/base.sh first"
	progress "tree: unpacking $(cat "$BUILD/dl/VERSION")"
	rm -rf "$TREE" "$TREE_BASE"
	mkdir -p "$TREE"
	tar -xf "$tarball" -C "$TREE" --strip-components=1
	g init -q -b "$BRANCH"
	g config gc.auto 0
	g add -A -f
	GIT_AUTHOR_NAME="Debian $(cut -d' ' -f1 "$BUILD/dl/VERSION")" \
	GIT_AUTHOR_EMAIL="debian-kernel@lists.debian.org" \
	GIT_AUTHOR_DATE="$BASE_DATE" GIT_COMMITTER_DATE="$BASE_DATE" \
		g commit -q -m "Linux $(make -s -C "$TREE" kernelversion) ($(cat "$BUILD/dl/VERSION"))"
}

base_from_user()
{
	progress "tree: cloning $KERNEL_SRC (shared objects, read only)"
	rm -rf "$TREE" "$TREE_BASE"
	git clone -q --shared --no-checkout "$KERNEL_SRC" "$TREE"
	g checkout -q -b "$BRANCH" "$(git -C "$KERNEL_SRC" rev-parse "${KERNEL_REV:-HEAD}^{commit}")"
}

# The base this run wants, as a string to compare with the last run's.
wanted_base()
{
	if [ -n "${KERNEL_SRC:-}" ]; then
		echo "git $(git -C "$KERNEL_SRC" rev-parse "${KERNEL_REV:-HEAD}^{commit}")"
	else
		echo "debian $(cat "$BUILD/dl/VERSION" 2>/dev/null)"
	fi
	# shellcheck disable=SC2046 # one name per patch
	echo "fixes $(cat /dev/null $(fixes_patches) | sha256sum)"
}

# am PATCH...: apply with git am, with the committer date of each patch's
# author date, so the same patches give the same commit ids; die naming
# the first that does not apply.
am()
{
	local p log=$BUILD/tree-am.log

	for p in "$@"; do
		if ! g am -q --committer-date-is-author-date "$p" >"$log" 2>&1; then
			g am --abort >/dev/null 2>&1 || true
			die "tree: $(basename "$p") does not apply to $(g describe --always HEAD): $(grep -m1 -E 'error:|patch failed' "$log" || tail -1 "$log")"
		fi
	done
}

# The cover letter's subject and text, up to the shortlog git adds.
cover_description()
{
	local cover

	cover=$(find "$SERIES" -maxdepth 1 -name '0000-cover-letter.patch')
	[ -n "$cover" ] || return 0
	awk '
		!body && /^Subject: / { sub(/^Subject: \[PATCH[^]]*\] /, ""); subj = $0; next }
		!body && /^ / && subj != "" { subj = subj $0; next }
		!body && /^$/ { body = 1; print subj; print ""; next }
		body && /^[^ ].* \([0-9]+\):$/ { exit }
		body { print }
	' "$cover" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'
}

# The series' patches that are marked for stable.
stable_patches()
{
	local p

	for p in $(series_patches); do
		if grep -q -i '^Cc: stable@vger.kernel.org' "$p"; then echo "$p"; fi
	done
}

apply_series()
{
	g checkout -q -f --detach upstream
	g tag -d stable >/dev/null 2>&1 || true
	# shellcheck disable=SC2046 # one name per patch
	am $(stable_patches)
	g tag -f stable >/dev/null
	g checkout -q -f "$BRANCH"
	g reset -q --hard base
	g config branch."$BRANCH".description "$(cover_description)"
	# shellcheck disable=SC2046 # one name per patch
	am $(series_patches)
	g tag -f patched >/dev/null
}

mkdir -p "$BUILD"
want=$(wanted_base)
if [ "$(cat "$BUILD/tree.base" 2>/dev/null)" != "$want" ] || ! g rev-parse -q --verify base >/dev/null 2>&1; then
	if [ -n "${KERNEL_SRC:-}" ]; then base_from_user; else base_from_debian; fi
	g tag -f upstream >/dev/null
	# shellcheck disable=SC2046 # one name per patch
	am $(fixes_patches)
	g tag -f base >/dev/null
	[ -z "$(fixes_patches)" ] ||
		progress "tree: base is $(g describe --always upstream) and fixes/ ($(fixes_patches | wc -l) patches)"
	echo "/.obj/" >>"$TREE/.git/info/exclude"
	echo "$want" >"$BUILD/tree.base"
	rm -f "$BUILD/tree.series"
fi

# Commits made in the tree and not yet exported would be lost by
# re-applying series/: refuse instead.
unexported()
{
	local tmp rc=0

	g rev-parse -q --verify patched >/dev/null || return 1
	[ "$(g rev-parse "$BRANCH")" != "$(g rev-parse patched)" ] || return 1
	tmp=$(mktemp -d)
	"$TOP/bin/export.sh" "$tmp/series" "$tmp/fixes" >/dev/null 2>&1 &&
		diff -q -r "$SERIES" "$tmp/series" >/dev/null &&
		diff -q -r "$FIXES" "$tmp/fixes" >/dev/null || rc=$?
	rm -rf "$tmp"
	[ "$rc" != 0 ]
}

if unexported; then
	die "tree: $TREE has commits that series/ lacks; run 'make export' first"
fi

sum=$(cat "$SERIES"/*.patch 2>/dev/null | sha256sum)
if [ "$(cat "$BUILD/tree.series" 2>/dev/null)" != "$sum" ] ||
   ! g rev-parse -q --verify stable >/dev/null ||
   [ "$(g rev-parse -q --verify HEAD)" != "$(g rev-parse -q --verify patched)" ]; then
	apply_series
	echo "$sum" >"$BUILD/tree.series"
	progress "tree: $(series_patches | wc -l) patches applied on $(g describe --always base), $(stable_patches | wc -l) of them on $(g describe --always upstream) too"
else
	progress "tree: series unchanged, $(g describe --always patched)"
fi

if [ ! -d "$TREE_BASE" ]; then
	g worktree prune
	g worktree add -q --detach "$TREE_BASE" base
fi
