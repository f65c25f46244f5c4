#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make selftest: the harness's own tests, as TAP, in a few minutes: the
# unit tests over captured results, the judge's mutation check, the
# scripts through shellcheck, and bad input against fake kernel trees and
# a stub QEMU. No kernel is fetched, built or booted. make check runs them
# beside its first stages.
set -eu
# shellcheck source=../bin/lib.sh
. "$(dirname "$0")/../bin/lib.sh"
# shellcheck source=tap.sh
. "$(dirname "$0")/tap.sh"
# shellcheck source=bad_input.sh
. "$(dirname "$0")/bad_input.sh"
# shellcheck source=stale_kernel.sh
. "$(dirname "$0")/stale_kernel.sh"
# shellcheck source=guest_programs.sh
. "$(dirname "$0")/guest_programs.sh"

BIN=$TOP/bin

# many_vcpus: make run boots its second pair of guests with MANY_VCPUS
# vCPUs (32 unless set) on the SNC-like topology.
many_vcpus()
{
	"$BIN/plan.sh" --dry-run run x | grep -q -x '   bin/scenario.sh base-many x/base-many' &&
		"$BIN/plan.sh" --dry-run run x | grep -q -x '   bin/scenario.sh patched-many x/patched-many' &&
		"$BIN/scenario.sh" --print patched-many x |
		grep -x 'env VCPUS=32 TOPOLOGY=snc3 bin/boot.sh patched x resize,resizebench,refstate' &&
		MANY_VCPUS=12 "$BIN/scenario.sh" --print base-many x |
		grep -x 'env VCPUS=12 TOPOLOGY=snc3 bin/boot.sh base x resize,resizebench,refstate'
}

tap_logs "$RESULTS/selftest/logs"
progress "selftest: starting (logs in $LOGS)"
stage "dependencies are installed" "$BIN/deps.sh" check
t "harness scripts are shellcheck-clean" \
	shellcheck -x "$BIN"/*.sh "$TOP"/tests/*.sh "$TOP"/guest/init "$TOP"/guest/*.sh \
		"$TOP"/guest/steps/*.sh || true
t "the results parse, compare and render (unit tests)" \
	python3 -m unittest discover -s "$TOP/tests" -p 'test_*.py' || true
t "each condition of the judge, edited, fails a unit test (mutation check)" \
	python3 "$TOP/tests/judge_mutation.py" || true
t "a KERNEL_SRC that is no kernel tree is refused" bad_kernel_src || true
t "a series that does not apply names the patch" series_does_not_apply || true
[ -z "$(fixes_patches)" ] ||
	t "a fix that does not apply names the patch" fix_does_not_apply || true
t "a missing kernel is reported before booting" kernel_missing || true
t "a file that an assembler .incbin reads is compiled again when it changes, not taken from ccache" \
	incbin_compiled_afresh || true
t "a bzImage that holds another build's kernel than the one just linked is refused" \
	stale_image_refused || true
t "a hung guest is stopped at BOOT_TIMEOUT, and its vCPUs are reported from QEMU's monitor" guest_hangs || true
t "a guest that stops early is reported" guest_dies_early || true
t "a KVM that runs no guest costs PROBE_TIMEOUT once, then TCG" kvm_silent_falls_back || true
t "a KVM that refuses -cpu host means TCG at once" kvm_refused_falls_back || true
t "no /dev/kvm means TCG at once" no_kvm_means_tcg || true
t "ACCEL=kvm on a KVM that runs no guest fails within PROBE_TIMEOUT" kvm_silent_forced || true
t "ACCEL=kvm on a KVM that refuses -cpu host fails at once" kvm_refused_forced || true
t "a KVM that ran a guest is kept; a kernel silent under it fails fast" kvm_works || true
t "bad settings are refused before any work, one line each" bad_settings || true
t "a guest's qemu.cmd runs its QEMU command again" qemu_cmd_replays || true
t "a kernel's debug options bring their boot arguments, to it alone" debug_args_follow_config || true
t "a guest under TCG skips the boot-time timer check and the TSC's watchdog, one under KVM does not" \
	tcg_args_under_tcg_alone || true
t "an icount guest records the -icount options QEMU ran it under" icount_accel_recorded || true
t "make run boots its second pair of guests with MANY_VCPUS vCPUs, SNC-like" many_vcpus || true
t "a second plan is refused while one runs, and a plan that does not exist is named" plan_is_alone || true
t "futex_replace reports a waiter that a lost FUTEX_WAKE leaves asleep" replace_finds_lost_wake || true
t "futex_replace reports a PI waiter that a lost FUTEX_UNLOCK_PI leaves asleep" \
	replace_finds_lost_pi_handover || true
t "futex_replace reports two inside a PI lock that a lost FUTEX_LOCK_PI let in" \
	replace_finds_shared_pi_lock || true
t "futex_replace reports futex2 and io_uring waiters that a lost futex_wake() leaves asleep" \
	replace_finds_lost_futex2_wake || true
t "a guest test that escapes its process group is killed at its deadline" test_escapes_its_group || true
t "a kselftest case that times out leaves its futex waiter's state and words" evidence_of_test_timeout || true
t "a guest run killed at its deadline leaves its futex waiter's state and words" evidence_of_guest_deadline || true
finish
