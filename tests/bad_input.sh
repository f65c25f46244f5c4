# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Bad input must end with one clear line and a non-zero exit. Each case
# runs a stage in a scratch $BUILD against a tiny fake kernel tree or a
# stub QEMU, so no kernel is built. Sourced by tests/check.sh.

# fails_with PATTERN CMD...: CMD must fail, say PATTERN on its last line
# (make's own lines aside) and print no other error line.
fails_with()
{
	local pattern=$1 out

	shift
	if out=$("$@" 2>&1); then
		echo "unexpectedly succeeded: $*"
		return 1
	fi
	echo "$out"
	out=$(echo "$out" | grep -v '^make\(\[[0-9]*\]\)\?: ')
	[ "$(echo "$out" | grep -c '^error: ')" -le 1 ] &&
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

# patch_does_not_apply KIND PATCH: a fake tree to which PATCH, the only
# one of its KIND (series or fixes), cannot apply.
patch_does_not_apply()
{
	local tmp

	tmp=$(mktemp -d)
	fake_kernel "$tmp/linux"
	mkdir "$tmp/series" "$tmp/fixes"
	cp "$2" "$tmp/$1/"
	fails_with "$(basename "$2") does not apply" \
		env BUILD="$tmp/build" SERIES="$tmp/series" FIXES="$tmp/fixes" KERNEL_SRC="$tmp/linux" \
		"$TOP/bin/tree.sh"
	local rc=$?
	rm -rf "$tmp"
	return $rc
}

series_does_not_apply() { patch_does_not_apply series "$(series_patches | head -n 1)"; }
fix_does_not_apply() { patch_does_not_apply fixes "$(fixes_patches | head -n 1)"; }

# b4_misses_a_patch: the b4 check of a posted series that lacks its last
# patch: b4 and git am take the rest, and the tree is not patched's.
b4_misses_a_patch()
{
	local tmp

	tmp=$(mktemp -d)
	mkdir "$tmp/series"
	cp "$SERIES/0000-cover-letter.patch" "$tmp/series/"
	series_patches | head -n -1 | xargs cp -t "$tmp/series/"
	fails_with "differs from patched" env SERIES="$tmp/series" "$TOP/bin/b4.sh"
	local rc=$?
	rm -rf "$tmp"
	return $rc
}

# fake_qemu DIR KVM TCG: a qemu-system-x86_64 in DIR that logs each call
# to DIR/calls and acts as the accelerator it is given says:
#	works	a guest that prints a console line and ends its tests
#	slow	the same, ending 5 s after its console line
#	silent	accepts the paused probe, then prints nothing for ever (KVM
#		where /dev/kvm opens but no guest runs)
#	firmware  the firmware prints, the kernel never does
#	nohost	aborts at -cpu host
#	hang	prints a console line, then nothing for ever; its monitor
#		answers with the registers of tests/data/vcpus/
#	exit	ends at once without a word
fake_qemu()
{
	mkdir -p "$1"
	cat >"$1/qemu-system-x86_64" <<-EOS
	#!/bin/bash
	echo "\$*" >>"$1/calls"
	kind=$3 serial=() paused= cpu= fw=/dev/null mon=
	while [ \$# -gt 0 ]; do
		case \$1 in
		-accel)	case \$2 in kvm*) kind=$2 ;; esac; shift ;;
		-cpu)	cpu=\$2; shift ;;
		-monitor) mon=\${2#unix:}; mon=\${mon%%,*}; shift ;;
		-serial) serial+=("\${2#file:}"); shift ;;
		-chardev) fw=\${2##*path=}; shift ;;
		-S)	paused=1 ;;
		esac
		shift
	done
	if [ "\$kind" = nohost ] && [ "\$cpu" = host ]; then
		echo "qemu-system-x86_64: CPU model 'host' requires KVM or HVF" >&2
		exit 1
	fi
	[ -z "\$paused" ] || exit 0
	case \$kind in
	works|slow|hang|firmware) echo "SeaBIOS (fake)" >"\$fw" ;;
	esac
	case \$kind in
	works|slow|hang) echo "Linux version fake" >"\${serial[0]}" ;;
	esac
	case \$kind in
	works)	printf '==> end <==\\ndone\\n' >"\${serial[1]}" ;;
	slow)	sleep 5; printf '==> end <==\\ndone\\n' >"\${serial[1]}" ;;
	hang)	echo \$\$ >qemu.pid
		exec python3 "$TOP/tests/fake_monitor.py" "\$mon" "$TOP/tests/data/vcpus/registers.txt" ;;
	silent|firmware) exec sleep 600 ;;
	esac
	EOS
	chmod +x "$1/qemu-system-x86_64"
}

# fake_boot TMP KVM TCG [VAR=VALUE...]: bin/boot.sh with fake_qemu in TMP,
# a fake kernel, a /dev/kvm that opens (/dev/null), short timeouts and one
# run (STAGE_T0) for every call with the same TMP.
fake_boot()
{
	local tmp=$1

	mkdir -p "$tmp/build/out/k"
	touch "$tmp/build/out/k/bzImage" "$tmp/build/out/initramfs.cpio.gz"
	cp "$TOP/tests/data/vcpus/System.map" "$tmp/build/out/k/"
	fake_qemu "$tmp/bin" "$2" "$3"
	[ -f "$tmp/t0" ] || date +%s >"$tmp/t0"
	shift 3
	env PATH="$tmp/bin:$PATH" BUILD="$tmp/build" KVM_DEV=/dev/null STAGE_T0="$(cat "$tmp/t0")" \
		BOOT_TIMEOUT=3 PROBE_TIMEOUT=3 ACCEL= "$@" \
		"$TOP/bin/boot.sh" k "$tmp/run" kselftest
}

# boot_fails PATTERN KVM TCG [VAR=VALUE...]: fake_boot must fail with
# PATTERN.
boot_fails()
{
	local tmp pattern=$1

	shift
	tmp=$(mktemp -d)
	fails_with "$pattern" fake_boot "$tmp" "$@"
	local rc=$?
	rm -rf "$tmp"
	return $rc
}

# A guest that outlives BOOT_TIMEOUT is stopped, and the error names
# where its vCPUs were, which the output shows from QEMU's monitor.
guest_hangs()
{
	local tmp rc=1

	tmp=$(mktemp -d)
	fails_with "did not finish within 3s (console: .*, vCPUs: $tmp/run/vcpus.txt)$" \
		fake_boot "$tmp" works hang ACCEL=tcg >"$tmp/out" 2>&1 &&
		grep -x 'CPU 1: read_hpet+0x89 irqs off, read_hpet+0x89 irqs off, read_hpet+0x89 irqs off' "$tmp/out" &&
		grep -x 'CPU 6: user, user, user' "$tmp/run/vcpus.txt" &&
		! kill -0 "$(cat "$tmp/run/qemu.pid")" 2>/dev/null && rc=0
	cat "$tmp/out"
	rm -rf "$tmp"
	return $rc
}

guest_dies_early()
{
	boot_fails "stopped before its tests ended" works exit ACCEL=tcg
}

# boot_falls_back KVM [VAR=VALUE...]: with the accelerator left to the
# probe, a KVM of that kind ends under TCG, with a line saying why, well
# within BOOT_TIMEOUT (60 s), and the next guest of the same run does not
# try KVM at all. Only a KVM that passed the paused probe gets a guest.
boot_falls_back()
{
	local tmp kind=$1 t0=$SECONDS rc=1

	shift
	tmp=$(mktemp -d)
	if fake_boot "$tmp" "$kind" works BOOT_TIMEOUT=60 "$@" >"$tmp/out" 2>&1; then
		cat "$tmp/out" "$tmp/run/accel" "$tmp/bin/calls"
		grep -q "KVM unusable" "$tmp/out" && grep -q "^tcg (KVM unusable: " "$tmp/run/accel" &&
			{ [ "$kind" = silent ] || ! grep -v -- ' -S$' "$tmp/bin/calls" | grep -q 'accel kvm'; } &&
			: >"$tmp/bin/calls" &&
			fake_boot "$tmp" "$kind" works BOOT_TIMEOUT=60 "$@" &&
			! grep "accel kvm" "$tmp/bin/calls" &&
			[ $((SECONDS - t0)) -lt 20 ] && rc=0
	else
		cat "$tmp/out"
	fi
	echo "took $((SECONDS - t0)) s"
	rm -rf "$tmp"
	return $rc
}

kvm_silent_falls_back() { boot_falls_back silent; }
kvm_refused_falls_back() { boot_falls_back nohost; }
no_kvm_means_tcg() { boot_falls_back works KVM_DEV=/nonexistent; }

# ACCEL=kvm on a KVM that cannot run the guest fails within seconds.
kvm_silent_forced()
{
	local t0=$SECONDS

	boot_fails "printed nothing within 3s under KVM, nor did its firmware; use ACCEL=tcg" \
		silent works BOOT_TIMEOUT=60 ACCEL=kvm &&
		[ $((SECONDS - t0)) -lt 20 ]
}

kvm_refused_forced()
{
	boot_fails "ACCEL=kvm, but QEMU refuses a KVM guest with -cpu host" nohost works ACCEL=kvm
}

# A KVM that runs guests is kept for the run: a guest that runs on past
# PROBE_TIMEOUT is left alone, and one whose kernel prints nothing is a
# kernel that does not boot, reported after PROBE_TIMEOUT.
kvm_works()
{
	local tmp rc=1

	tmp=$(mktemp -d)
	if fake_boot "$tmp" works works && grep -q '^kvm$' "$tmp/run/accel" &&
		fake_boot "$tmp" slow works BOOT_TIMEOUT=60 && grep -q '^kvm$' "$tmp/run/accel"; then
		fails_with "though its firmware ran, and KVM ran an earlier guest of this run: a kernel that does not boot" \
			fake_boot "$tmp" firmware works BOOT_TIMEOUT=60 && rc=0
	fi
	rm -rf "$tmp"
	return $rc
}

# A guest under TCG boots with the arguments a kernel on KVM needs not
# (bin/boot.sh's tcg_args); a guest under KVM boots without them.
tcg_args_under_tcg_alone()
{
	local tmp rc=1 args=' no_timer_check tsc=nowatchdog '

	tmp=$(mktemp -d)
	if fake_boot "$tmp" works works ACCEL=tcg && grep -q -e "$args" "$tmp/bin/calls"; then
		rm -f "$tmp/bin/calls"
		fake_boot "$tmp" works works && grep -q '^kvm$' "$tmp/run/accel" &&
			grep -q -e ' console=ttyS0 ' "$tmp/bin/calls" &&
			! grep -q -e "$args" "$tmp/bin/calls" && rc=0
	fi
	rm -rf "$tmp"
	return $rc
}

# An icount guest records the -icount options it ran under, those
# bin/accel.sh gives QEMU.
icount_accel_recorded()
{
	local tmp rc=1 opts

	tmp=$(mktemp -d)
	if fake_boot "$tmp" works works ICOUNT=1 VCPUS=1; then
		opts=$(grep -o -e ' -icount [^ ]*' "$tmp/bin/calls" | sort -u)
		[ -n "$opts" ] && grep -qxF "tcg icount (${opts# -icount })" "$tmp/run/accel" && rc=0
	fi
	rm -rf "$tmp"
	return $rc
}

# Each setting is checked before any stage runs, with one line that names
# it and what it takes.
bad_settings()
{
	local s tmp rc=0

	for s in VCPUS=0 MANY_VCPUS=x MEM=1G RUNS=0 BENCH_SECS=-1 SOAK_SECS=1 \
		KST_TIMEOUT=5s BOOT_TIMEOUT=1h PROBE_TIMEOUT=0 JOBS=08 ACCEL=hvf \
		TOPOLOGY=snc2 SCALE_RUNS=0 SCALE_SECS=2s KST_TESTS=futex_wait/ MANY_VCPUS=33; do
		# shellcheck disable=SC2016 # $1 is the inner shell's
		fails_with "^error: $s: " env "$s" bash -c '. "$1"' sh "$TOP/bin/lib.sh" || return 1
	done
	# make run's first stage: nothing has run before the line.
	tmp=$(mktemp -d)
	fails_with "^error: VCPUS=abc: " make -C "$TOP" deps VCPUS=abc &&
		fails_with "^error: VCPUS=9: guest vCPUs with TOPOLOGY=snc3, an even number of at least 6$" \
			make -C "$TOP" deps VCPUS=9 TOPOLOGY=snc3 &&
		fails_with "^error: scenario: no scenario 'nope' in " "$TOP/bin/scenario.sh" nope x &&
		fails_with "^error: VCPUS=9: guest vCPUs with TOPOLOGY=snc3, an even number of at least 6$" \
			fake_boot "$tmp" works works VCPUS=9 TOPOLOGY=snc3 || rc=1
	rm -rf "$tmp"
	return $rc
}

# The QEMU command a guest ran is in its qemu.cmd, and running that file
# runs the same command again.
qemu_cmd_replays()
{
	local tmp rc=1

	tmp=$(mktemp -d)
	if fake_boot "$tmp" works works ACCEL=tcg TOPOLOGY=snc3 VCPUS=6; then
		PATH="$tmp/bin:$PATH" bash "$tmp/run/qemu.cmd"
		cat "$tmp/run/qemu.cmd" "$tmp/bin/calls"
		grep -q -- '-numa dist,src=2,dst=3,val=21' "$tmp/bin/calls" &&
			[ "$(sort -u "$tmp/bin/calls" | wc -l)" = 1 ] &&
			[ "$(wc -l <"$tmp/bin/calls")" = 2 ] && rc=0
	fi
	rm -rf "$tmp"
	return $rc
}

# A kernel's debug options bring their boot arguments (bin/boot.sh's
# DEBUG_ARGS), and only to a kernel built with them, which alone knows
# them: the panic after a hung task's report with DETECT_HUNG_TASK
# (configs/debug.config), every KASAN report and 4-level paging with KASAN.
debug_args_follow_config()
{
	local tmp rc=0 config opt want got

	tmp=$(mktemp -d)
	mkdir -p "$tmp/build/out/k"
	for config in "" CONFIG_DETECT_HUNG_TASK CONFIG_KASAN "CONFIG_DETECT_HUNG_TASK CONFIG_KASAN"; do
		want=
		: >"$tmp/build/out/k/config"
		for opt in $config; do
			echo "$opt=y" >>"$tmp/build/out/k/config"
			case $opt in
			CONFIG_DETECT_HUNG_TASK) want="$want sysctl.kernel.hung_task_panic=1" ;;
			CONFIG_KASAN)		 want="$want kasan_multi_shot no5lvl" ;;
			esac
		done
		rm -f "$tmp/bin/calls"
		fake_boot "$tmp" works works ACCEL=tcg || rc=1
		# What boot.sh puts between the stall's panic and the log level.
		got=$(sed -n 's/.*panic_on_rcu_stall=1\(.*\) loglevel=.*/\1/p' "$tmp/bin/calls")
		echo "${config:-no debug option}: '$got', want '$want'"
		[ "$got" = "$want" ] || rc=1
	done
	rm -rf "$tmp"
	return $rc
}

# cdef DIR HEADER NAME: the value of the C constant NAME (a macro or an
# enumerator) that HEADER defines, by a program compiled in DIR.
cdef()
{
	printf '#include <stdio.h>\n#include <%s>\nint main(void) { printf("%%u\\n", (unsigned int)(%s)); }\n' \
		"$2" "$3" >"$1/cdef.c" &&
		gcc -o "$1/cdef" "$1/cdef.c" && "$1/cdef"
}

# skips_every_case REASON OUTPUT: OUTPUT, a kselftest_harness program's,
# skips every case of its plan, each with REASON.
skips_every_case()
{
	local plan

	echo "$2"
	plan=$(echo "$2" | sed -n 's/^1\.\.\([0-9]*\)$/\1/p')
	[ -n "$plan" ] && [ "$plan" -gt 0 ] &&
		[ "$(echo "$2" | grep -c -F -e "# SKIP $1")" = "$plan" ] &&
		[ "$(echo "$2" | grep -c '^ok [0-9]')" = "$plan" ]
}

# futex_io_uring on a kernel without io_uring, and on one whose io_uring
# lacks the futex operations (before Linux 6.7; here IORING_REGISTER_PROBE
# fails, which leaves them unknown): every case skips and says why.
# tests/deny.c makes this machine's kernel fail the calls. The second is
# not checked where this machine's io_uring_setup() fails anyway (a
# container's seccomp profile, say): the program then skips for that.
io_uring_missing_skips()
{
	local tmp rc=1 prog=$OUT/kselftest/futex/functional/futex_io_uring
	local setup register probe enosys einval out

	tmp=$(mktemp -d)
	if setup=$(cdef "$tmp" sys/syscall.h SYS_io_uring_setup) &&
		register=$(cdef "$tmp" sys/syscall.h SYS_io_uring_register) &&
		probe=$(cdef "$tmp" linux/io_uring.h IORING_REGISTER_PROBE) &&
		enosys=$(cdef "$tmp" errno.h ENOSYS) && einval=$(cdef "$tmp" errno.h EINVAL) &&
		gcc -O2 -Wall -o "$tmp/deny" "$TOP/tests/deny.c" &&
		skips_every_case "io_uring_setup: $(perl -e '$! = shift; print "$!"' "$enosys")" \
			"$("$tmp/deny" "$setup" "$enosys" -- "$prog" 2>&1)"; then
		out=$("$tmp/deny" "$register" "$einval" "$probe" -- "$prog" 2>&1) || true
		if echo "$out" | grep -q "# SKIP io_uring_setup: "; then
			echo "$out"
			echo "io_uring_setup() fails here: the skip for want of futex operations is not checked"
			rc=0
		elif skips_every_case "io_uring has no IORING_OP_FUTEX_WAIT, _WAKE and _WAITV" "$out"; then
			rc=0
		fi
	fi
	rm -rf "$tmp"
	return $rc
}

# A test that leaves a process in a session of its own holding the output
# pipe, as a kselftest_harness test does when the runner's timeout kills
# only the harness: guest/lib.sh's bounded() still ends it all at its
# deadline, and says so.
test_escapes_its_group()
{
	local out t0=$SECONDS

	out=$(busybox sh -c '. "$1"; bounded 2 sh -c "setsid sleep 60 & sleep 60"; echo "rc=$?"' \
		sh "$TOP/guest/lib.sh")
	echo "$out after $((SECONDS - t0)) s"
	[ "$out" = "rc=124" ] && [ $((SECONDS - t0)) -lt 30 ]
}

# A futex waiter that is never woken (the word holds 42), in a process
# group of its own; with an argument, its parent kills that group after
# that many seconds, as kselftest_harness.h kills a test case that ran out
# of time.
HANG_C='#include <signal.h>
#include <stdlib.h>
#include <unistd.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <sys/wait.h>
static unsigned int word = 42;
int main(int argc, char **argv)
{
	pid_t pid = fork();

	if (pid == 0) {
		setpgid(0, 0);
		syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 42, NULL, NULL, 0);
		_exit(0);
	}
	if (argc < 2)
		return waitpid(pid, NULL, 0) < 0;
	sleep(atoi(argv[1]));
	kill(-pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return 1;
}'

# evidence_of SECS HANG-ARGS...: run the waiter above under guest/lib.sh's
# bounded() with a deadline of SECS, kill_evidence.so preloaded; print the
# evidence it left.
evidence_of()
{
	local secs=$1 tmp rc=0

	shift
	tmp=$(mktemp -d)
	printf '%s\n' "$HANG_C" >"$tmp/hang.c"
	gcc -O2 -o "$tmp/hang" "$tmp/hang.c" &&
		gcc -O2 -shared -fPIC -o "$tmp/kill_evidence.so" \
			"$TOP/guest/lib/kill_evidence.c" -ldl &&
		GUEST_DIR=$TOP/guest busybox sh -c \
			'. "$1"; shift; bounded "$@"; cat "$EVIDENCE"' sh "$TOP/guest/lib.sh" \
			"$secs" env LD_PRELOAD="$tmp/kill_evidence.so" "$tmp/hang" "$@" || rc=$?
	rm -rf "$tmp"
	return $rc
}

# What a kselftest_harness timeout leaves: the waiter's state, times,
# pending signals, system call, stack and futex word, recorded before the
# kill.
evidence_of_test_timeout()
{
	local out

	out=$(evidence_of 30 2)
	echo "$out"
	echo "$out" | grep -q '^evidence at .*: process group [0-9]* with signal 9$' &&
		echo "$out" | grep -q '^thread [0-9]* (hang): state S, wchan ' &&
		echo "$out" | grep -q '^  utime [0-9]* stime [0-9]*, SigPnd: [0-9a-f]* ShdPnd: [0-9a-f]* *$' &&
		echo "$out" | grep -q '^  syscall 202 0x[0-9a-f]* 0x80 0x2a ' &&
		echo "$out" | grep -q '^  futex 0x[0-9a-f]*: 0000002a$'
}

# What the guest's own deadline leaves, before it kills a run.
evidence_of_guest_deadline()
{
	local out

	out=$(evidence_of 2)
	echo "$out"
	echo "$out" | grep -q "^evidence at .*: the guest's deadline of 2 s$" &&
		[ "$(echo "$out" | grep -c '^  futex 0x[0-9a-f]*: 0000002a$')" = 1 ]
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

# Two plans at once would check out commits in the same tree: the second
# is refused while the first holds build/'s lock, and a plan that is not
# there is named.
plan_is_alone()
{
	local tmp rc=1

	tmp=$(mktemp -d)
	mkdir -p "$tmp/build"
	exec 8>"$tmp/build/.plan.lock"
	flock 8
	fails_with "^error: plan lockcheck: another plan is running (it holds $tmp/build/.plan.lock)$" \
		env BUILD="$tmp/build" "$TOP/bin/plan.sh" lockcheck "$tmp/r" &&
		fails_with "^error: plan nope: no plan 'nope' in configs/plans$" "$TOP/bin/plan.sh" nope && rc=0
	exec 8>&-
	rm -rf "$tmp"
	return $rc
}
