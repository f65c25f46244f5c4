#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Stage "describe": after a guest run, write into its folder what judging
# it needs besides what the guest reported, so that bin/verdicts.py reads
# nothing else of the build and judges the folder again on a machine
# without the kernel tree (make recheck):
#   DIR/about	  "key value" lines: the kernel (its folder of build/out,
#		  commit and configuration's sha256), the guest's steps and
#		  settings, how many fixes lie below the series
#		  (upstream..base) and the futex kselftest programs the tools
#		  were built with;
#   DIR/badness	  the console's sha256, then each line of it that the
#		  kernel tree's rcutorture console-badness.sh flags.
#
# Usage: bin/describe.sh DIR KERNEL STEPS [SETTINGS]
#	SETTINGS  the guest's vCPUs, topology and settings, NAME=VALUE words
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

dir=${1:?result dir}
kernel=${2:?kernel folder}
steps=${3:?steps}
settings=${4:-}
scan=$TREE/tools/testing/selftests/rcutorture/bin/console-badness.sh

sum()
{
	sha256sum <"$1" | cut -d' ' -f1
}

# A fact that cannot be had here (a kernel folder without its commit, a
# tree without fixes' tags) is left out: the judge then looks it up in the
# tree, as for a folder written before this stage existed.
{
	echo "kernel $kernel"
	[ ! -f "$OUT/$kernel/commit" ] || echo "commit $(cat "$OUT/$kernel/commit")"
	[ ! -f "$OUT/$kernel/config" ] || echo "config $(sum "$OUT/$kernel/config")"
	echo "steps $steps"
	echo "settings $settings"
	n=$(git -C "$TREE" rev-list --count upstream..base 2>/dev/null) && echo "fixes $n"
	[ ! -s "$OUT/kselftest-programs" ] || echo "programs $(cat "$OUT/kselftest-programs")"
} >"$dir/about"
if [ -f "$scan" ] && [ -f "$dir/console.log" ]; then
	{
		echo "sha256 $(sum "$dir/console.log")"
		bash "$scan" <"$dir/console.log" || true
	} >"$dir/badness"
fi
