#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Stage "b4": take fixes/ and series/ as a maintainer takes a posted series.
# Each becomes one mail thread in a local mbox (the patches as
# format-patch wrote them, a Message-ID each, replies to the first), goes
# through Debian's b4 ("b4 am -m MBOX") and is applied with git am: fixes/
# onto upstream, series/ onto that. The results must be the tree's "base"
# and "patched" commits, tree for tree, and b4 must have found the cover
# letter, every patch and every patch's Signed-off-by.
#
# Usage: bin/b4.sh	(after bin/tree.sh)
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

need b4 git

tmp=$(mktemp -d)
work=$tmp/tree
trap 'rm -rf "$tmp"' EXIT

# thread NAME PATCH...: the patches as one thread in $tmp/NAME.mbox, each
# with Message-ID <NAME-NNNN@localhost>, the others in reply to the first.
# Folded headers are unfolded: b4 0.12 refuses a Subject that spans lines.
thread()
{
	local name=$1 first="" p id

	shift
	for p in "$@"; do
		id="<$name-$(basename "$p" | cut -c1-4)@localhost>"
		[ -n "$first" ] || first=$id
		awk -v id="$id" -v first="$first" '
			NR == 1 {
				print; print "Message-ID: " id
				if (id != first)
					print "In-Reply-To: " first "\nReferences: " first
				hdr = 1; next
			}
			hdr && /^[ \t]/ { held = held $0; next }
			hdr { if (NR > 2) print held; held = $0; if ($0 == "") { print; hdr = 0 }; next }
			{ print }' "$p"
		echo
	done >"$tmp/$name.mbox"
	echo "$first"
}

# take NAME ONTO COMMIT COUNT PATCH...: b4 am of thread NAME, git am of its
# result onto ONTO; the tree must be COMMIT's, b4 must count COUNT patches.
take()
{
	local name=$1 onto=$2 want=$3 count=$4 msgid mbx n

	shift 4
	msgid=$(thread "$name" "$@")
	mkdir -p "$tmp/$name"
	# b4 am stops with a traceback where git has no user.name and
	# user.email (a fresh machine): the harness's identity (bin/lib.sh).
	(cd "$TREE" && GIT_CONFIG_COUNT=2 \
		GIT_CONFIG_KEY_0=user.name GIT_CONFIG_VALUE_0="$GIT_COMMITTER_NAME" \
		GIT_CONFIG_KEY_1=user.email GIT_CONFIG_VALUE_1="$GIT_COMMITTER_EMAIL" \
		b4 am -C -m "$tmp/$name.mbox" -o "$tmp/$name" "$msgid") \
		>"$tmp/$name.log" 2>&1 || { cat "$tmp/$name.log"; die "b4: b4 am of $name failed"; }
	grep -q "^Total patches: $count\$" "$tmp/$name.log" ||
		{ cat "$tmp/$name.log"; die "b4: b4 did not find the $count patches of $name"; }
	mbx=$(find "$tmp/$name" -name '*.mbx')
	[ -n "$mbx" ] || die "b4: b4 wrote no mbox for $name"
	n=$(grep -c '^Signed-off-by: ' "$mbx")
	[ "$n" -ge "$count" ] || die "b4: $name: $n Signed-off-by lines for $count patches"
	git -C "$work" checkout -q --detach "$onto"
	git -C "$work" am -q "$mbx" >"$tmp/$name.am" 2>&1 ||
		{ cat "$tmp/$name.am"; die "b4: git am of b4's $name mbox onto $onto failed"; }
	git -C "$work" diff --quiet "$want" HEAD ||
		die "b4: $name through b4 and git am differs from $want"
	progress "b4: $count patches of $name through b4 am and git am give $want's tree"
}

git -C "$TREE" rev-parse -q --verify patched >/dev/null ||
	die "b4: $TREE has no patched commit; run bin/tree.sh first"
# A clone sharing the tree's objects, with only the files the patches
# touch checked out: git am needs a work tree, and a whole kernel's
# checkout took longer than the rest of this stage.
git clone -q --shared --no-checkout "$TREE" "$work"
mapfile -t touched < <(sed -n 's|^diff --git a/\([^ ]*\) b/\([^ ]*\)$|/\1\n/\2|p' \
	"$SERIES"/*.patch "$FIXES"/*.patch 2>/dev/null | sort -u)
git -C "$work" sparse-checkout set --no-cone "${touched[@]}"
git -C "$work" checkout -q --detach upstream

mapfile -t fixes < <(fixes_patches)
if [ "${#fixes[@]}" -gt 0 ]; then
	take fixes upstream base "${#fixes[@]}" "${fixes[@]}"
else
	git -C "$work" checkout -q --detach base
fi
mapfile -t patches < <(series_patches)
cover=$SERIES/0000-cover-letter.patch
[ -f "$cover" ] || die "b4: series/ has no cover letter"
take series HEAD patched "${#patches[@]}" "$cover" "${patches[@]}"
grep -q '^Cover: ' "$tmp/series.log" || die "b4: b4 did not take the cover letter"
