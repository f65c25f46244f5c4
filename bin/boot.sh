#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Stage "boot": boot one kernel with the initramfs under QEMU (KVM once a
# guest has been seen to run under it, TCG otherwise: see accel.sh), let
# guest/run.sh run STEPS, and keep what it reported in DIR/results.txt
# (guest/FORMAT.md; bin/parse_results.py reads it). DIR/accel says which
# accelerator the guest ran under, DIR/qemu.cmd is the QEMU command line,
# to run the guest again by hand.
#
# Usage: bin/boot.sh KERNEL DIR STEPS
#	KERNEL	a folder of $OUT holding bzImage (e.g. base, patched-debug)
#	DIR	where console.log, results.txt and qemu.cmd go
#	STEPS	comma-separated guest/steps/ (kselftest,precheck,waiters,hash)
#
# Settings: those of configs/settings, and ICOUNT
# (1: count instead of time, for step icount: TCG on one thread with
# -icount shift=0,sleep=off, so that the guest's clock advances one
# nanosecond per instruction it executes; VCPUS must be 1, and ACCEL and
# the KVM probe do not apply).
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=accel.sh
. "$(dirname "$0")/accel.sh"
need qemu-system-x86_64 timeout python3

# Absolute: QEMU and bin/vcpus.py run in the result folder.
[ ! -d "$OUT" ] || OUT=$(cd "$OUT" && pwd)
kernel=$OUT/${1:?kernel}/bzImage
dir=${2:?result dir}
steps=${3:?steps}
[ -f "$kernel" ] || die "boot: $kernel missing; build it first"
[ -f "$OUT/initramfs.cpio.gz" ] || die "boot: $OUT/initramfs.cpio.gz missing"

# numa_node ID FIRST LAST MIB: one NUMA node with CPUs FIRST..LAST and its
# own memory.
numa_node()
{
	echo "-object memory-backend-ram,id=m$1,size=$4M"
	echo "-numa node,nodeid=$1,cpus=$2-$3,memdev=m$1"
}

# Two sockets of half the CPUs each (TOPOLOGY=numa2: a NUMA node per
# socket, as on a small server; snc3: three nodes per socket, as Sub-NUMA
# Clustering makes them, with SNC-like distances: 12 between the nodes of
# a socket, 21 across sockets). One node when VCPUS is odd (numa2).
topology()
{
	local half=$((VCPUS / 2)) per=1 nodes n socket first last i j d

	[ "$TOPOLOGY" = numa2 ] || per=3
	if [ "$VCPUS" -lt 2 ] || [ $((VCPUS % 2)) != 0 ]; then
		echo "-smp $VCPUS"
		return 0
	fi
	nodes=$((2 * per))
	echo "-smp $VCPUS,sockets=2,cores=$half,threads=1"
	# Node n of a socket gets its share of the socket's CPUs, the
	# remainder going to the last ones.
	for n in $(seq 0 $((nodes - 1))); do
		i=$((n % per))
		socket=$((n / per))
		first=$((socket * half + i * half / per))
		last=$((socket * half + (i + 1) * half / per - 1))
		numa_node "$n" "$first" "$last" $((MEM / nodes + (n == nodes - 1 ? MEM % nodes : 0)))
	done
	for i in $(seq 0 $((nodes - 1))); do
		for j in $(seq $((i + 1)) $((nodes - 1))); do
			d=21
			[ $((i / per)) != $((j / per)) ] || d=12
			echo "-numa dist,src=$i,dst=$j,val=$d"
		done
	done
}

# snc_vendor ACCEL: with TOPOLOGY=snc3 under TCG, an Intel CPU. Its
# socket's last-level cache then spans three nodes, as on an Intel machine
# with Sub-NUMA Clustering, and the kernel takes it for SNC (match_llc()):
# the cache counts as the node's own. Another vendor's CPU in that layout
# gets a topology_sane() warning on the console at boot. (KVM's -cpu host
# is the host's CPU: an AMD host warns there.)
snc_vendor()
{
	[ "$TOPOLOGY" != snc3 ] || [ "$1" != tcg ] || echo ",vendor=GenuineIntel"
}

# guest_plan: what guest/run.sh is to do, as variables on the kernel
# command line (init gets them in its environment): the steps, their
# settings, and what the guest cannot find out itself, the tools' commit
# and the kernel config's hash (guest/steps/machine.sh).
guest_plan()
{
	local config=$OUT/$name/config

	echo "steps=$steps" "$(guest_settings | tr '\n' ' ')"\
		"tools_rev=$(cat "$OUT/tools-rev" 2>/dev/null || echo unknown)" \
		"config_sha=$( [ ! -f "$config" ] || sha256sum <"$config" | cut -d' ' -f1)"
}

# tcg_args ACCEL: what a kernel under emulation needs on its command line.
# It cannot tell that it runs in a virtual machine, and a vCPU that the
# host does not run for a while trips three of its waits:
# - The timer check at boot (timer_irq_works()) wants four ticks within
#   40e9/HZ TSC cycles, or it gives up on the IO-APIC and panics, "IO-APIC
#   + timer doesn't work!". A kernel on KVM skips it (no_timer_check, set
#   by arch/x86/kernel/kvm.c); so does this one.
# - The clocksource watchdog's check of the TSC against another CPU spins
#   with interrupts off until that CPU answers its IPI, or until
#   ktime_get_raw_fast_ns() has counted a timeout; and until the
#   timekeeper leaves jiffies for the TSC, that clock counts jiffies. The
#   switch itself is a stop_machine() (timekeeping_notify()): a check that
#   starts on a CPU which has acknowledged the stop, while the others
#   already wait in it with interrupts off, waits for an answer that no
#   CPU can give, on a clock that no tick moves. QEMU's TSC is one clock
#   for every vCPU, so tsc=nowatchdog loses no check there.
# - With more vCPUs than host cores, a vCPU that holds a lock may not run
#   for seconds while others spin on it, even during boot, and RCU reports
#   that as a stall after its default 21 s. Allow 60 s there: a kernel
#   that really deadlocks is still reported, and stopped (below), a
#   minute into it.
#
# Under icount, one vCPU whose clock counts its own instructions meets
# none of them, and its instruction counts stay those of earlier runs.
tcg_args()
{
	case $1 in
	*tcg*)
		echo -n " no_timer_check tsc=nowatchdog"
		[ "$VCPUS" -le "$(nproc)" ] || echo -n " rcupdate.rcu_cpu_stall_timeout=60" ;;
	esac
}

# An RCU stall panics the guest, which ends QEMU (panic=-1, -no-reboot): a
# kernel that deadlocks leaves its CPUs spinning, every task that touches
# the locks joins them, and the guest would otherwise run until
# BOOT_TIMEOUT. The stall's report in the console is the evidence, and
# any stall already fails the console's check.
STALL_PANIC=sysctl.kernel.panic_on_rcu_stall=1

# What a kernel's own debug options need on its command line, a line each:
# the option, then the argument. DETECT_HUNG_TASK (configs/debug.config):
# like the stall, a panic after the report of a task blocked
# uninterruptibly for two minutes; such a task cannot be killed, so the
# guest's own deadlines may not end the run, and nothing would show why.
# KASAN: every report, not only the first, so that one at boot does not
# hide a later one in futex code (tests/mutants/i-*); and 4-level paging:
# with the 5-level paging that QEMU's -cpu max offers, the KASAN kernel
# reported a wild-memory-access in every interrupt taken during
# identify_cpu() at early boot, so that with kasan_multi_shot it never
# got past it (42587 reports in 12 minutes, 8 vCPUs under TCG); with
# no5lvl it booted with none.
DEBUG_ARGS="CONFIG_DETECT_HUNG_TASK sysctl.kernel.hung_task_panic=1
CONFIG_KASAN kasan_multi_shot
CONFIG_KASAN no5lvl"

# debug_args: the arguments of DEBUG_ARGS whose option the kernel has.
debug_args()
{
	local opt arg

	while read -r opt arg; do
		! grep -q -x "$opt=y" "$OUT/$name/config" 2>/dev/null || echo -n " $arg"
	done <<<"$DEBUG_ARGS"
}

# guest_start ACCEL: start QEMU in the background; its pid in $qpid. The
# firmware's debug port (SeaBIOS writes to 0x402) goes to firmware.log:
# output there shows that the vCPUs ran, whatever the kernel did then.
guest_start()
{
	local opts cmd

	opts="$(accel_opts "$1")$(snc_vendor "$1") $(topology)"
	# shellcheck disable=SC2206,SC2054 # opts is a list of options; commas are QEMU's
	cmd=(qemu-system-x86_64 $opts -m "$MEM"
		-kernel "$kernel" -initrd "$OUT/initramfs.cpio.gz"
		-append "console=ttyS0 panic=-1 $STALL_PANIC$(debug_args) loglevel=6$(tcg_args "$1") $(guest_plan)"
		-display none -monitor unix:monitor.sock,server=on,wait=off -no-reboot
		-serial file:"$dir/console.log" -serial file:"$dir/results.txt"
		-chardev file,id=fw,path="$dir/firmware.log"
		-device isa-debugcon,iobase=0x402,chardev=fw)
	echo "cd ${dir@Q} && ${cmd[*]@Q}" >"$dir/qemu.cmd"
	: >"$dir/console.log"
	: >"$dir/results.txt"
	: >"$dir/firmware.log"
	# In DIR: the monitor's socket path, relative, stays within the
	# length a unix socket's path may have.
	rm -f "$dir/vcpus.txt"
	(cd "$dir" && exec "${cmd[@]}") </dev/null >"$dir/qemu.log" 2>&1 &
	qpid=$!
	deadline &
	wpid=$!
}

# deadline: BOOT_TIMEOUT seconds after the guest's start, record where
# each of its vCPUs is (vcpus.txt), and end. A guest still running then
# has outlived every deadline of its own (guest/lib.sh), so its kernel no
# longer runs the guest's programs, or QEMU is stuck. Its own process,
# which guest_wait stops when QEMU ends first; it never signals QEMU,
# whose pid only this script, which reaps it, may use.
deadline()
{
	local s=

	trap '[ -z "$s" ] || kill "$s" 2>/dev/null; exit 0' TERM INT HUP
	sleep "$BOOT_TIMEOUT" &
	s=$!
	wait "$s"
	s=
	trap - TERM INT HUP
	(cd "$dir" && "$TOP/bin/vcpus.py" monitor.sock "$OUT/$name/System.map") \
		>"$dir/vcpus.txt" 2>&1 || true
}

# guest_wait: wait for QEMU to end, or for its deadline, which stops it;
# QEMU's status in $rc, 124 when the deadline came first. Until QEMU is
# reaped here, its pid cannot name another process. Not "wait -n": bash
# 5.2's ignores a child that bash has already reaped, as when QEMU ended
# (or guest_watch killed it) before this was called, and then waits for
# the deadline; "wait PID" finds such a child's status.
guest_wait()
{
	rc=0
	while kill -0 "$qpid" 2>/dev/null && kill -0 "$wpid" 2>/dev/null; do
		sleep 0.2
	done
	if kill -0 "$qpid" 2>/dev/null; then
		wait "$wpid" 2>/dev/null || true
		wpid=
		kill "$qpid" 2>/dev/null || true
		sleep 2
		kill -9 "$qpid" 2>/dev/null || true
		wait "$qpid" 2>/dev/null || true
		qpid=
		rc=124
		return 0
	fi
	wait "$qpid" || rc=$?
	qpid=
	kill "$wpid" 2>/dev/null || true
	wait "$wpid" 2>/dev/null || true
	wpid=
}

# guest_watch: wait until the console prints (0) or QEMU ends (1), or
# stop QEMU once PROBE_TIMEOUT has passed with neither (2).
guest_watch()
{
	local end=$((SECONDS + PROBE_TIMEOUT))

	while [ ! -s "$dir/console.log" ]; do
		kill -0 "$qpid" 2>/dev/null || return 1
		if [ "$SECONDS" -ge "$end" ]; then
			kill "$qpid" 2>/dev/null || true
			guest_wait
			return 2
		fi
		sleep 0.2
	done
}

# boot_kvm: one guest under KVM. False, with the reason in $why, when its
# console stayed empty for PROBE_TIMEOUT or QEMU ended before it printed:
# KVM runs no guest here, as far as this run knows. Once a guest's console
# has printed under KVM in this run, such a guest is a kernel that hangs
# before its console instead, and fails. firmware.log tells the two apart
# for whoever reads the line: the firmware prints long before the kernel.
boot_kvm()
{
	local w=0 proven fw="nor did its firmware"

	proven=$(accel_cached)
	guest_start kvm
	guest_watch || w=$?
	[ "$w" = 2 ] || guest_wait
	if [ -s "$dir/console.log" ]; then
		[ "$proven" = kvm ] || accel_decide kvm "$name ran"
		return 0
	fi
	[ ! -s "$dir/firmware.log" ] || fw="though its firmware ran"
	if [ "$w" = 2 ]; then
		why="$name printed nothing within ${PROBE_TIMEOUT}s under KVM, $fw"
	else
		why="QEMU ended (status $rc) under KVM before $name printed, $fw: $(tail -n 1 "$dir/qemu.log")"
	fi
	[ "$proven" != kvm ] ||
		die "boot: $why, and KVM ran an earlier guest of this run: a kernel that does not boot (console: $dir/console.log)"
	[ "${ACCEL:-}" != kvm ] || die "boot: ACCEL=kvm, but $why; use ACCEL=tcg"
	mv "$dir/qemu.log" "$dir/qemu-kvm.log"
	return 1
}

rm -rf "$dir"
mkdir -p "$dir"
# Absolute, so that qemu.cmd replays from anywhere.
dir=$(cd "$dir" && pwd)
name=$1
qpid=
wpid=
rc=0
# Ctrl-C or a kill of this script ends its guest too.
trap 'kill $qpid $wpid 2>/dev/null || true' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
if [ "${ICOUNT:-}" = 1 ]; then
	[ "$VCPUS" = 1 ] || die "boot: ICOUNT=1 counts instructions on one vCPU, not VCPUS=$VCPUS"
	acc=icount
else
	acc=$(accel_choose)
fi
progress "boot: $name, $VCPUS vCPUs, $acc, steps $steps"
if [ "$acc" = icount ]; then
	guest_start icount
	guest_wait
	acc="tcg icount ($(accel_opts icount | sed 's/.*-icount \([^ ]*\).*/\1/'))"
elif [ "$acc" = kvm ] && ! boot_kvm; then
	progress "boot: KVM unusable ($why); $name and the rest of this run under TCG"
	accel_decide tcg "$why"
	acc="tcg (KVM unusable: $why)"
	guest_start tcg
	guest_wait
elif [ "$acc" = tcg ]; then
	[ -n "${ACCEL:-}" ] || acc="tcg (KVM unusable: $(accel_why))"
	guest_start tcg
	guest_wait
fi
echo "$acc" >"$dir/accel"
# Whether its timings can decide anything: vCPUs beyond the host's cores
# time the host's scheduler (bin/compare_kernels.py).
nproc >"$dir/host_cpus"
"$(dirname "$0")/describe.sh" "$dir" "$name" "$steps" \
	"vcpus=$VCPUS topology=$TOPOLOGY $(guest_settings | tr '\n' ' ')"
if [ "$rc" = 124 ]; then
	tail -n 15 "$dir/console.log" >&2
	cat "$dir/vcpus.txt" >&2
	die "boot: $name did not finish within ${BOOT_TIMEOUT}s (console: $dir/console.log, vCPUs: $dir/vcpus.txt)"
fi
[ "$rc" = 0 ] || die "boot: qemu failed for $name: $(tail -n 1 "$dir/qemu.log")"
# The serial line turns each newline into CR LF.
sed -i 's/\r$//' "$dir/results.txt"
if ! grep -q '^==> end <==$' "$dir/results.txt"; then
	tail -n 15 "$dir/console.log" >&2
	die "boot: $name stopped before its tests ended (console: $dir/console.log)"
fi
progress "boot: $name done"
