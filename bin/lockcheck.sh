#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Stage "lockcheck": whether a hash reference put in exit_pi_state_list(),
# with curr->pi_lock held, can take a sleeping lock. Debug kernels are
# built, each with tests/lockcheck/probe.patch, which forces the retry
# that makes that put: the control, the series' stable patches alone (tag
# stable), and each mutant of tests/lockcheck/ on the tag its Applies-to:
# line names. Each boots in scenario lockcheck (step exitpi), and
# bin/verdicts.py --lockcheck says whether lockdep caught every mutant and
# the control stayed clean. The kernels build in the series' tree, which
# is put back where it was afterwards; the files they changed are rebuilt
# by its next build.
#
# Usage: bin/lockcheck.sh DIR
#	DIR	 where the guests' results go: DIR/control, DIR/MUTANT
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

LOCKCHECK=$TOP/tests/lockcheck

dir=${1:?result dir}

g() { git -C "$TREE" "$@"; }

# kernel NAME TAG [PATCH]: build the debug kernel lockcheck-NAME from TAG,
# PATCH and the probe, and boot it into DIR/NAME.
kernel()
{
	local name=$1 tag=$2 patch=${3:-}

	g checkout -q --detach "$tag" || die "lockcheck: git checkout $tag failed"
	if [ -n "$patch" ]; then
		g apply "$patch" || die "lockcheck: $(basename "$patch") does not apply to $tag"
	fi
	g apply "$LOCKCHECK/probe.patch" || die "lockcheck: the probe does not apply to $tag with ${patch:-no patch}"
	progress "lockcheck: $name ($tag, $(g diff --stat | tail -n 1 | sed 's/^ *//'))"
	"$TOP/bin/build.sh" "lockcheck-$name" "$TREE" debug
	g checkout -q -f -- .
	rm -rf "${dir:?}/$name"
	"$TOP/bin/scenario.sh" lockcheck "$dir/$name" "lockcheck-$name"
}

if ! g diff --quiet HEAD; then
	die "lockcheck: $TREE has changes; run bin/tree.sh first"
fi
# The branch or the commit the tree is at.
was=$(g symbolic-ref -q --short HEAD || g rev-parse HEAD)
trap 'g checkout -q -f -- . && g checkout -q "$was"' EXIT
kernel control stable
for p in "$LOCKCHECK"/*.patch; do
	[ "$p" != "$LOCKCHECK/probe.patch" ] || continue
	tag=$(sed -n '/^diff --git/q; s/^Applies-to: //p' "$p")
	[ -n "$tag" ] || die "lockcheck: $p has no Applies-to: line"
	kernel "$(basename "$p" .patch)" "$tag" "$p"
done
