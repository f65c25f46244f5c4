#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Stage "mutant": build the patched kernel with one deliberate bug of
# tests/mutants/ applied, and boot it in scenario mutant: the quick futex
# kselftests, a reference held across a replacement, the FUTEX2_NUMA race
# test, the guest checks of the precheck and of the waiter count, and the
# replacement stress. bin/verdicts.py --mutants then says whether they caught
# it. The tree is put back at "patched" afterwards; the one file the
# mutant changed is rebuilt by the next build of the patched kernel.
#
# Usage: bin/mutant.sh MUTANT DIR [FLAVOUR [SCENARIO]]
#	MUTANT	 a patch of tests/mutants/, without .patch
#	DIR	 where the guest's results go
#	FLAVOUR	 the kernel flavour (bin/build.sh) to build it in, instead of
#		 the one its patch names (make check: debug, the flavour it
#		 has built already); empty: the patch's
#	SCENARIO the scenario to boot it in instead of mutant (make check:
#		 check-mutant)
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

MUTANTS=$TOP/tests/mutants

name=${1:?mutant}
dir=${2:?result dir}
want=${3:-}
scenario=${4:-mutant}
patch=$MUTANTS/$name.patch
[ -f "$patch" ] || die "mutant: no $patch"

g() { git -C "$TREE" "$@"; }

if [ "$(g rev-parse HEAD)" != "$(g rev-parse patched)" ] || ! g diff --quiet HEAD; then
	die "mutant: $TREE is not a clean checkout of tag patched; run bin/tree.sh first"
fi
trap 'g checkout -q -f -- .' EXIT
g apply "$patch" || die "mutant: $name does not apply to the patched tree"
progress "mutant: $name ($(g diff --stat | tail -n 1 | sed 's/^ *//'))"
# The plain kernel, or the flavour the patch's "Flavour:" line names, for a
# check that only that kernel has (lockdep's, say), unless FLAVOUR says.
flavour=${want:-$(sed -n '/^diff --git/q; s/^Flavour: //p' "$patch")}
"$TOP/bin/build.sh" "mutant-$name" "$TREE" "${flavour:-futex}"
g checkout -q -f -- .
trap - EXIT
"$TOP/bin/scenario.sh" "$scenario" "$dir" "mutant-$name"
