#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Stage "native" (make native): the guest's steps on this machine's own
# running kernel, with the tools of bin/tools.sh, by guest/native.sh; one
# progress line per step, what the steps log on stderr. At the end, the
# result folder (results.txt, accel).
#
# Usage: bin/native.sh [DIR]	(default results/native-<release>-<date>)
#
# Settings: those of configs/settings that make native names (STEPS,
# NATIVE_DIR and the guest settings); as root.
set -eu -o pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

[ $# -le 1 ] || die "usage: bin/native.sh [DIR]"
dir=${1:-$RESULTS/native-$(uname -r)-$(date +%Y%m%d-%H%M%S)}
steps=${STEPS:-}
for s in ${steps//,/ }; do
	[[ $s =~ ^[a-z0-9_]+$ && -f $TOP/guest/steps/$s.sh ]] ||
		die "STEPS=$steps: no step '$s' in guest/steps/"
done
# guest/native.sh reads the tools' commit from $OUT/tools-rev itself.
mapfile -t settings < <(guest_settings)

progress "native: $(uname -r), $(nproc) CPUs, steps ${steps:-default}"
env TOOLS="$OUT" "${settings[@]}" "$TOP/guest/native.sh" "$dir" ${steps:+"$steps"} |
	while IFS= read -r line; do
		case $line in
		"guest: step "*)	progress "native: ${line#guest: }" ;;
		*)			printf '%s\n' "$line" >&2 ;;
		esac
	done
progress "native: results in $dir"
