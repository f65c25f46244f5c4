#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Stage "icount" (make icount): what each futex path costs in instructions
# at every patch boundary. The base kernel, then the kernel after each
# patch of the series that changes it (a patch of tools/ or Documentation/
# alone builds the same kernel as the one before it), each built with the
# futex config and booted in scenario icount (one vCPU, QEMU -icount); the
# last one boots twice, and its two boots must count alike. Then
# bin/compare.py --icount sets each kernel against the one before it.
#
# Usage: bin/icount.sh DIR
#	DIR	where each kernel's result folder goes (base, patch-N,
#		patch-N-again) and the summary files
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

dir=${1:?result dir}

# boot KERNEL LABEL: one icount guest of KERNEL into DIR/LABEL.
boot()
{
	"$TOP/bin/scenario.sh" icount "$dir/$2" "$1"
}

kernels=$(series_kernels) || die "icount: cannot list the series' commits in $TREE"
trap 'git -C "$TREE" checkout -q futex-series 2>/dev/null || true' EXIT
rm -rf "$dir"
"$TOP/bin/build.sh" base "$TREE_BASE" futex
boot base base
labels=("$dir/base")
mapfile -t kernels <<<"$kernels"
for row in "${kernels[@]}"; do
	read -r i c same <<<"$row"
	[ -z "$same" ] || continue
	git -C "$TREE" checkout -q --detach "$c" || die "icount: git checkout $c failed"
	"$TOP/bin/build.sh" "patch-$i" "$TREE" futex
	boot "patch-$i" "patch-$i"
	labels+=("$dir/patch-$i")
	last=$i
done
git -C "$TREE" checkout -q futex-series
boot "patch-$last" "patch-$last-again"
progress "icount: comparing ${#labels[@]} kernels"
"$TOP/bin/compare.py" --icount --fail-on-regression --repeat "$dir/patch-$last-again" -o "$dir" "${labels[@]}"
