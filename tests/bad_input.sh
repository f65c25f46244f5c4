# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Bad input must end with one clear line and a non-zero exit. Each case
# runs a stage in a scratch $BUILD against a tiny fake kernel tree or a
# stub QEMU, so no kernel is built. Sourced by tests/check.sh.

# fails_with PATTERN CMD...: CMD must fail and say PATTERN on its last line.
fails_with()
{
	local pattern=$1 out

	shift
	if out=$("$@" 2>&1); then
		echo "unexpectedly succeeded: $*"
		return 1
	fi
	echo "$out"
	echo "$out" | tail -n 1 | grep -q -- "$pattern"
}

# A two-file "kernel" git tree, enough for bin/base.sh and bin/tree.sh.
fake_kernel()
{
	local d=$1

	mkdir -p "$d/kernel/futex"
	echo "VERSION = 7" >"$d/Makefile"
	printf 'int futex_wait_setup(void)\n{\n\treturn 0;\n}\n' >"$d/kernel/futex/waitwake.c"
	git -C "$d" init -q
	git -C "$d" add -A
	git -C "$d" -c user.name=t -c user.email=t@t commit -q -m base
}

bad_kernel_src()
{
	local tmp

	tmp=$(mktemp -d)
	fails_with "is not a kernel source tree" \
		env BUILD="$tmp/build" KERNEL_SRC="$tmp" "$TOP/bin/base.sh"
	local rc=$?
	rm -rf "$tmp"
	return $rc
}

series_does_not_apply()
{
	local tmp

	tmp=$(mktemp -d)
	fake_kernel "$tmp/linux"
	mkdir "$tmp/series"
	# The first real patch of the series cannot apply to the fake tree.
	cp "$(series_patches | head -n 1)" "$tmp/series/"
	fails_with "$(basename "$(series_patches | head -n 1)") does not apply" \
		env BUILD="$tmp/build" SERIES="$tmp/series" KERNEL_SRC="$tmp/linux" \
		"$TOP/bin/tree.sh"
	local rc=$?
	rm -rf "$tmp"
	return $rc
}

# stub_qemu DIR BODY: a qemu-system-x86_64 in DIR that runs BODY.
stub_qemu()
{
	mkdir -p "$1"
	printf '#!/bin/sh\n%s\n' "$2" >"$1/qemu-system-x86_64"
	chmod +x "$1/qemu-system-x86_64"
}

# boot_fails PATTERN BODY [ACCEL]: boot.sh with a stub QEMU must fail with
# PATTERN (ACCEL defaults to tcg).
boot_fails()
{
	local tmp

	tmp=$(mktemp -d)
	mkdir -p "$tmp/build/out/k"
	touch "$tmp/build/out/k/bzImage" "$tmp/build/out/initramfs.cpio.gz"
	stub_qemu "$tmp/bin" "$2"
	fails_with "$1" env PATH="$tmp/bin:$PATH" BUILD="$tmp/build" BOOT_TIMEOUT=3 ACCEL="${3:-tcg}" \
		"$TOP/bin/boot.sh" k "$tmp/run" kselftest
	local rc=$?
	rm -rf "$tmp"
	return $rc
}

guest_hangs()
{
	boot_fails "did not finish within 3s" "sleep 30"
}

# /dev/kvm opens but no guest ever runs (nested virtualisation that does not
# work): not a kernel that hangs.
kvm_guest_silent()
{
	boot_fails "printed nothing within 3s under KVM" "sleep 30" kvm
}

# A test that leaves a process in a session of its own holding the output
# pipe, as a kselftest_harness test does when the runner's timeout kills
# only the harness: guest/run.sh's bounded() still ends it all at its
# deadline, and says so.
test_escapes_its_group()
{
	local out t0=$SECONDS

	out=$(GUEST_RUN_LIB=1 busybox sh -c '. "$1"; bounded 2 sh -c "setsid sleep 60 & sleep 60"; echo "rc=$?"' \
		sh "$TOP/guest/run.sh")
	echo "$out after $((SECONDS - t0)) s"
	[ "$out" = "rc=124" ] && [ $((SECONDS - t0)) -lt 30 ]
}

guest_dies_early()
{
	boot_fails "stopped before its tests ended" "exit 0"
}

kernel_missing()
{
	local tmp

	tmp=$(mktemp -d)
	fails_with "build it first" env BUILD="$tmp/build" "$TOP/bin/boot.sh" nokernel "$tmp/run" kselftest
	local rc=$?
	rm -rf "$tmp"
	return $rc
}
