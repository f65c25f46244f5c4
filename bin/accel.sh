# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# The accelerator of bin/boot.sh's guests. Sourced after lib.sh.
#
# KVM is used only once a guest has been seen to run under it: on some
# machines /dev/kvm opens and QEMU starts a paused guest with -cpu host,
# yet no guest ever prints a line. So the decision is made by the first
# guest of a run (one make invocation, told apart by STAGE_T0) and kept in
# $ACCEL_CACHE for the guests after it:
#
#   no /dev/kvm, or QEMU refuses a paused KVM guest -> TCG at once
#   the first KVM guest's console prints             -> KVM for the run
#   it prints nothing within PROBE_TIMEOUT, or QEMU
#   ends before it prints                            -> that guest and
#                                                       the rest: TCG
#
# ACCEL=tcg skips all of this. ACCEL=kvm makes each way to TCG an error,
# so a KVM that runs no guest fails within PROBE_TIMEOUT instead of after
# BOOT_TIMEOUT. KVM_DEV is for the harness's tests only.

ACCEL_CACHE=$BUILD/accel
KVM_DEV=${KVM_DEV:-/dev/kvm}

# accel_opts ACCEL: QEMU's options for kvm, tcg or icount. icount is TCG
# on one thread with the guest clock counting instructions: one nanosecond
# per instruction, and no sleep when the guest idles, so that a guest's
# CLOCK_MONOTONIC counts the instructions it executed (bin/boot.sh ICOUNT).
accel_opts()
{
	case $1 in
	kvm)	echo "-accel kvm -cpu host" ;;
	tcg)	echo "-accel tcg,thread=multi -cpu max" ;;
	icount)	echo "-accel tcg,thread=single -icount shift=0,sleep=off -cpu max" ;;
	esac
}

# kvm_refused: why KVM cannot even start a paused guest here, or nothing.
kvm_refused()
{
	local err

	[ -c "$KVM_DEV" ] || { echo "no $KVM_DEV"; return 0; }
	if [ ! -r "$KVM_DEV" ] || [ ! -w "$KVM_DEV" ]; then
		echo "$KVM_DEV is not read-writable"
		return 0
	fi
	err=$(echo quit | timeout 20 qemu-system-x86_64 -accel kvm -cpu host \
		-machine pc -nodefaults -display none -monitor stdio -S 2>&1 >/dev/null) ||
		case $? in
		124)	echo "QEMU did not start a paused KVM guest within 20 s" ;;
		*)	echo "QEMU refuses a KVM guest with -cpu host: $(echo "$err" | tail -n 1)" ;;
		esac
}

# accel_cached: the accelerator this run decided on, or nothing.
accel_cached()
{
	local t0 a

	[ -f "$ACCEL_CACHE" ] || return 0
	read -r t0 a _ <"$ACCEL_CACHE" || return 0
	[ "$t0" != "$STAGE_T0" ] || echo "$a"
}

# accel_why: why this run decided as it did.
accel_why()
{
	local why=

	[ ! -f "$ACCEL_CACHE" ] || read -r _ _ why <"$ACCEL_CACHE" || true
	echo "$why"
}

# accel_decide ACCEL WHY...: keep ACCEL for the rest of this run.
accel_decide()
{
	local a=$1

	shift
	mkdir -p "$(dirname "$ACCEL_CACHE")"
	echo "$STAGE_T0 $a $*" >"$ACCEL_CACHE.$$"
	mv "$ACCEL_CACHE.$$" "$ACCEL_CACHE"
}

# accel_choose: kvm or tcg for the next guest. Dies when ACCEL=kvm cannot
# work; says in one line why TCG was chosen the first time it is.
accel_choose()
{
	local a why

	case ${ACCEL:-} in
	tcg)	echo tcg; return 0 ;;
	kvm)	why=$(kvm_refused)
		[ -z "$why" ] || die "boot: ACCEL=kvm, but $why; use ACCEL=tcg"
		echo kvm; return 0 ;;
	esac
	a=$(accel_cached)
	[ -z "$a" ] || { echo "$a"; return 0; }
	why=$(kvm_refused)
	[ -z "$why" ] || {
		progress "boot: KVM unusable ($why); TCG for this run" >&2
		accel_decide tcg "$why"
		echo tcg; return 0
	}
	echo kvm
}
