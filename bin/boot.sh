#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Stage "boot": boot one kernel with the initramfs under QEMU (KVM when
# /dev/kvm is usable, TCG otherwise), let guest/run.sh run STEPS, and
# split what it reported into DIR/<section> files.
#
# Usage: bin/boot.sh KERNEL DIR STEPS
#	KERNEL	a folder of $OUT holding bzImage (e.g. base, patched-debug)
#	DIR	where console.log, results.txt and the sections go
#	STEPS	comma-separated guest/run.sh steps (kselftest,precheck,waiters,perf)
#
# Settings: VCPUS (8), MEM (MiB, 2048), BOOT_TIMEOUT (s, whole guest run),
# KST_TIMEOUT (s, each kselftest), RUNS and BENCH_SECS (perf bench),
# SOAK_SECS (s, the soak step).
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
need qemu-system-x86_64 timeout

VCPUS=${VCPUS:-8}
MEM=${MEM:-2048}
BOOT_TIMEOUT=${BOOT_TIMEOUT:-2400}
KST_TIMEOUT=${KST_TIMEOUT:-300}
RUNS=${RUNS:-5}
BENCH_SECS=${BENCH_SECS:-5}
SOAK_SECS=${SOAK_SECS:-300}

kernel=$OUT/${1:?kernel}/bzImage
dir=${2:?result dir}
steps=${3:?steps}
[ -f "$kernel" ] || die "boot: $kernel missing; build it first"
[ -f "$OUT/initramfs.cpio.gz" ] || die "boot: $OUT/initramfs.cpio.gz missing"

# KVM when QEMU can start a guest with the host's CPU on it, else TCG.
# ACCEL=tcg or ACCEL=kvm overrides the probe.
accel()
{
	local a=${ACCEL:-}

	if [ -z "$a" ]; then
		a=tcg
		if [ -c /dev/kvm ] && echo quit | timeout 20 qemu-system-x86_64 -accel kvm \
			-cpu host -machine pc -nodefaults -display none -monitor stdio -S \
			>/dev/null 2>&1; then
			a=kvm
		fi
	fi
	case $a in
	kvm)	echo "-accel kvm -cpu host" ;;
	tcg)	echo "-accel tcg,thread=multi -cpu max" ;;
	*)	die "boot: ACCEL=$a; use kvm or tcg" ;;
	esac
}

# Two sockets of half the CPUs, each its own NUMA node with half the memory,
# as on a small server; one node when VCPUS is odd.
topology()
{
	local half=$((VCPUS / 2)) mhalf=$((MEM / 2))

	if [ "$VCPUS" -lt 2 ] || [ $((VCPUS % 2)) != 0 ]; then
		echo "-smp $VCPUS"
		return 0
	fi
	echo "-smp $VCPUS,sockets=2,cores=$half,threads=1"
	echo "-object memory-backend-ram,id=m0,size=${mhalf}M"
	echo "-numa node,nodeid=0,cpus=0-$((half - 1)),memdev=m0"
	echo "-object memory-backend-ram,id=m1,size=$((MEM - mhalf))M"
	echo "-numa node,nodeid=1,cpus=$half-$((VCPUS - 1)),memdev=m1"
}

# split: results.txt sections into one file each.
split_results()
{
	awk -v dir="$dir" '
		/^==> .* <==$/ { f = substr($0, 5, length($0) - 8); gsub(/[ \/]/, "_", f); f = dir "/" f; printf "" > f; next }
		f { print >> f }
	' "$dir/results.txt"
}

# Under emulation with more vCPUs than host cores, a vCPU that holds a lock
# may not run for seconds while others spin on it, even during boot, and
# RCU reports that as a stall after its default 21 s. Allow 60 s there: a
# kernel that really hangs still fails the guest's test timeouts.
stall_timeout()
{
	case $1 in
	*tcg*) [ "$VCPUS" -le "$(nproc)" ] || echo " rcupdate.rcu_cpu_stall_timeout=60" ;;
	esac
}

rm -rf "$dir"
mkdir -p "$dir"
touch "$dir/console.log" "$dir/results.txt"
name=$1
acc=$(accel)
topo=$(topology)
progress "boot: $name, $VCPUS vCPUs, $(echo "$acc" | cut -d' ' -f2 | cut -d, -f1), steps $steps"
echo "$acc" >"$dir/accel"
rc=0
# shellcheck disable=SC2086 # acc and topo are lists of options
timeout --foreground -k 10 "$BOOT_TIMEOUT" \
	qemu-system-x86_64 $acc $topo -m "$MEM" \
		-kernel "$kernel" -initrd "$OUT/initramfs.cpio.gz" \
		-append "console=ttyS0 panic=-1 loglevel=6$(stall_timeout "$acc") steps=$steps kst_timeout=$KST_TIMEOUT runs=$RUNS bench_secs=$BENCH_SECS soak_secs=$SOAK_SECS" \
		-display none -monitor none -no-reboot \
		-serial file:"$dir/console.log" -serial file:"$dir/results.txt" \
		</dev/null >"$dir/qemu.log" 2>&1 || rc=$?
if [ $rc = 124 ] || [ $rc = 137 ]; then
	# QEMU can open /dev/kvm where no guest ever runs (nested
	# virtualisation that does not work): say so instead of blaming the kernel.
	case $acc in
	*kvm*)	[ -s "$dir/console.log" ] ||
			die "boot: $name printed nothing within ${BOOT_TIMEOUT}s under KVM; try ACCEL=tcg" ;;
	esac
	tail -n 15 "$dir/console.log" >&2
	die "boot: $name did not finish within ${BOOT_TIMEOUT}s (console: $dir/console.log)"
fi
[ $rc = 0 ] || die "boot: qemu failed for $name: $(tail -n 1 "$dir/qemu.log")"
# The serial line turns each newline into CR LF.
sed -i 's/\r$//' "$dir/results.txt"
if ! grep -q '^==> end <==$' "$dir/results.txt"; then
	tail -n 15 "$dir/console.log" >&2
	die "boot: $name stopped before its tests ended (console: $dir/console.log)"
fi
split_results
progress "boot: $name done"
