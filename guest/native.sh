#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Native mode: guest/run.sh on this machine's own running kernel instead of
# a guest's, as root, with the tools of a tools folder, writing
# OUTDIR/results.txt (guest/FORMAT.md) and OUTDIR/accel ("native").
#
# Usage: guest/native.sh OUTDIR [STEPS]
#	STEPS	comma-separated steps of guest/steps/ (default: those
#		that "steps=" sets below)
#
# TOOLS: the tools folder, with kselftest/, guest-bin/ (and guest-bin/lib/)
# and perf, as bin/tools.sh builds them in build/out and bin/pack.sh packs
# them beside guest/ (default: ../tools from here if there is one, else
# ../build/out); its tools-rev, when it has one, is the commit they were
# built from. sysbench, pi_stress and stress-ng come from PATH. The
# settings of guest/run.sh (runs, bench_secs, ...) pass through the
# environment.
set -eu

GUEST_DIR=$(cd "$(dirname "$0")" && pwd)

fail()
{
	printf 'error: %s\n' "$*" >&2
	exit 1
}

if [ $# -lt 1 ] || [ $# -gt 2 ] || [ -z "$1" ]; then
	fail "usage: $0 OUTDIR [STEPS]"
fi
out=$1
steps=${2:-kselftest,resizebench,refstate,precheck,waiters,hash,block,scale}
[[ $steps =~ ^[a-z0-9_]+(,[a-z0-9_]+)*$ ]] ||
	fail "native: STEPS=$steps: step names, comma-separated"
[ "$(id -u)" = 0 ] ||
	fail "native: must run as root (kprobes, tracefs, PI and real-time tests)"
if [ -z "${TOOLS:-}" ]; then
	TOOLS=$GUEST_DIR/../tools
	[ -d "$TOOLS" ] || TOOLS=$GUEST_DIR/../build/out
fi
for f in kselftest/run_kselftest.sh guest-bin/lib perf; do
	[ -e "$TOOLS/$f" ] ||
		fail "native: $TOOLS/$f missing: not a tools folder (build one with bin/tools.sh, or set TOOLS)"
done
TOOLS=$(cd "$TOOLS" && pwd)
# The commit the tools were built from, where the tools folder says.
tools_rev=${tools_rev:-$(cat "$TOOLS/tools-rev" 2>/dev/null || echo unknown)}
mkdir -p "$out" || fail "native: cannot create $out"
out=$(cd "$out" && pwd)

tracing=/sys/kernel/tracing
mounted=
work=$(mktemp -d)

cleanup()
{
	rm -rf "$work"
	[ -z "$mounted" ] || umount "$tracing"
}
trap cleanup EXIT

# The steps' kprobes need tracefs, mounted where the guest has it.
if ! grep -q "^[^ ]* $tracing tracefs " /proc/mounts &&
   mount -t tracefs tracefs "$tracing" 2>/dev/null; then
	mounted=1
fi

echo native >"$out/accel"
: >"$out/results.txt"
# Section dmesg holds what the kernel logged from here on; all of the log
# where the start cannot be marked.
mark="futex harness: native run $$ into $out"
if ! echo "$mark" 2>/dev/null >/dev/kmsg; then
	echo "native: cannot write to /dev/kmsg: section dmesg holds the whole kernel log" >&2
	mark=
fi

env RES="$out/results.txt" GUEST_DIR="$GUEST_DIR" GUEST_BIN="$TOOLS/guest-bin" \
	GUEST_LIB="$TOOLS/guest-bin/lib" KSELFTEST="$TOOLS/kselftest" \
	PERF="$TOOLS/perf" GUEST_TMP="$work" steps="$steps" tools_rev="$tools_rev" runner=native \
	dmesg_mark="$mark" sh "$GUEST_DIR/run.sh"
