# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034 # the variables are for the scripts that source this
# Common settings and helpers for the stage scripts. Sourced, not run.
#
# Every path the stages share is defined here, so each stage script only
# says what it does. All output lives below $BUILD (ignored by git).

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
RESULTS=${RESULTS:-$TOP/results}
SERIES=${SERIES:-$TOP/series}
FIXES=${FIXES:-$TOP/fixes}	# fixes the series' tests need, below "base"
CONFIGS=$TOP/configs

TREE=$BUILD/tree		# git tree: base commit + series, at "patched"
TREE_BASE=$BUILD/tree-base	# worktree of the same repository at "base"
OUT=$BUILD/out			# kernels, initramfs and tools to boot by hand
JOBS=${JOBS:-$(($(nproc) + 1))}

export CCACHE_DIR=${CCACHE_DIR:-$BUILD/ccache}
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G}
# Object directories live inside their worktree, so the compiler sees the
# same relative paths for the base and the patched tree and ccache shares
# every object the series does not touch.
export CCACHE_BASEDIR=$BUILD
export CCACHE_NOHASHDIR=1
# Depend mode: a miss costs the compilation alone, where ccache would run
# the preprocessor first to hash its output; Kbuild's -Wp,-MMD gives
# ccache the headers to hash. The series changes include/linux/futex_types.h,
# which mm_struct embeds, so base and patched share few objects and
# make check compiles three kernels from cold on a fresh clone: the
# kernel/ folder took 100 s this way and 134 s without on two cores.
export CCACHE_DEPEND=1

# Fixed identities and dates make the tree's commit ids, and with them
# the exported series, reproducible.
export GIT_COMMITTER_NAME="futex series harness"
export GIT_COMMITTER_EMAIL="harness@localhost"

STAGE_T0=${STAGE_T0:-$(date +%s)}
export STAGE_T0

# progress MESSAGE...: one line with the time since the job started.
progress()
{
	local t=$(($(date +%s) - STAGE_T0))

	printf '[%3d:%02d] %s\n' $((t / 60)) $((t % 60)) "$*"
}

# die MESSAGE...: the one line that says what failed and where; exit 1.
die()
{
	printf 'error: %s\n' "$*" >&2
	exit 1
}

# need CMD...: fail clearly when a command the stage relies on is missing.
need()
{
	local c

	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 ||
			die "'$c' not found; run 'make deps' (as root) first"
	done
}

# image_payload BZIMAGE: the kernel a gzip-compressed bzImage carries,
# decompressed, found through its boot protocol header
# (Documentation/arch/x86/boot.rst): its magic "HdrS" at 0x202,
# setup_sects at 0x1f1, payload_offset and payload_length at 0x248 and
# 0x24c. The payload ends with the
# kernel's length, which gzip reports as trailing garbage (status 2).
image_payload()
{
	local img=$1 sects off len

	[ "$(od -An -c -j $((0x202)) -N4 "$img" | tr -d ' ')" = HdrS ] || return 1
	sects=$(od -An -tu1 -j $((0x1f1)) -N1 "$img")
	[ "$sects" -ne 0 ] || sects=4
	off=$(od -An -tu4 -j $((0x248)) -N4 "$img")
	len=$(od -An -tu4 -j $((0x24c)) -N4 "$img")
	tail -c +$(((sects + 1) * 512 + off + 1)) "$img" | head -c "$len" |
		gzip -dcq || [ $? = 2 ]
}

# build_of FILE: which build a linked kernel is, from its "Linux version"
# banner ("build #14 SMP PREEMPT Sat Dec  5 15:20:08 UTC 2026"), or "no
# kernel".
build_of()
{
	strings -n 16 "$1" | sed -n '/^Linux version .* #[0-9]/{s/.* #/build #/p;q}' | grep . ||
		echo "no kernel"
}

# image_holds BZIMAGE VMLINUX_BIN: succeed if the bzImage carries
# VMLINUX_BIN, the kernel the build linked and compressed (followed by its
# relocations where the kernel has them); else fail, saying on stdout
# which kernel each holds.
image_holds()
{
	local img=$1 bin=$2 payload

	payload=$(mktemp)
	if ! image_payload "$img" >"$payload" 2>/dev/null ||
	   ! cmp -s -n "$(stat -c %s "$bin")" "$payload" "$bin"; then
		echo "the bzImage holds $(build_of "$payload"), not the kernel just linked, $(build_of "$bin")"
		rm -f "$payload"
		return 1
	fi
	rm -f "$payload"
}

# fixes_patches: the fixes in order.
fixes_patches()
{
	[ ! -d "$FIXES" ] || find "$FIXES" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' | sort
}

# series_patches: the patches of the series in order, without the cover.
series_patches()
{
	find "$SERIES" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' \
		! -name '0000-*' | sort
}

# whole NAME MIN MAX WHAT: an unset or empty NAME is left to its default;
# any other value must be a whole number from MIN to MAX.
whole()
{
	local v=${!1:-}

	[ -n "$v" ] || return 0
	if ! [[ $v =~ ^[1-9][0-9]{0,6}$|^0$ ]] || [ "$v" -lt "$2" ] || [ "$v" -gt "$3" ]; then
		die "$1=$v: $4, a whole number from $2 to $3"
	fi
}

# guest_settings: the settings of the guest's steps that are set, as
# guest/run.sh reads them (kst_timeout=300 ...); run.sh has the defaults.
guest_settings()
{
	local v

	for v in RUNS BENCH_SECS KST_TIMEOUT KST_TESTS SCALE_RUNS SCALE_SECS SOAK_SECS; do
		[ -z "${!v:-}" ] || echo "${v,,}=${!v}"
	done
}

# snc_vcpus NAME WHAT: an unset NAME, or an even number of at least 6, a
# CPU for each of the three nodes of two sockets.
snc_vcpus()
{
	local v=${!1:-}

	[ -z "$v" ] || { [ "$v" -ge 6 ] && [ $((v % 2)) = 0 ]; } ||
		die "$1=$v: $2, an even number of at least 6"
}

# The settings, checked before any stage does work (doc/running.md: Settings).
check_settings()
{
	whole VCPUS 1 255 "guest vCPUs"
	whole MANY_VCPUS 1 255 "vCPUs of the second pair of guests"
	whole COST_VCPUS 1 255 "vCPUs of the guests of make cost"
	whole MEM 512 1048576 "guest memory in MiB"
	whole RUNS 1 1000 "perf bench repetitions"
	whole BENCH_SECS 1 3600 "seconds of each perf bench run"
	whole SCALE_RUNS 1 1000 "runs of each point of the scaling curves"
	whole SCALE_SECS 1 3600 "seconds of each run of the scaling curves"
	whole SOAK_SECS 5 86400 "seconds of the soak"
	whole KST_TIMEOUT 1 86400 "seconds for each kselftest program"
	whole BOOT_TIMEOUT 1 86400 "seconds for a whole guest run"
	whole PROBE_TIMEOUT 1 3600 "seconds a KVM guest has to print its first console line"
	whole JOBS 1 4096 "parallel compile jobs"
	whole BOOTS 1 1000 "boots of each kernel in make boots"
	case ${TOPOLOGY:-} in
	""|numa2|snc3) ;;
	*)	die "TOPOLOGY=$TOPOLOGY: numa2 (two sockets, a NUMA node each) or snc3 (three nodes a socket)" ;;
	esac
	# Two sockets of three nodes: make run's MANY_VCPUS guests always.
	[ "${TOPOLOGY:-}" != snc3 ] || snc_vcpus VCPUS "guest vCPUs with TOPOLOGY=snc3"
	snc_vcpus MANY_VCPUS "vCPUs of the second pair of guests (TOPOLOGY snc3)"
	[[ ${KST_TESTS:-} =~ ^[a-z0-9_,]*$ ]] ||
		die "KST_TESTS=$KST_TESTS: futex kselftest programs, comma-separated"
	case ${ACCEL:-} in
	""|kvm|tcg) ;;
	*)	die "ACCEL=$ACCEL: kvm, tcg, or unset to use KVM where a guest runs under it" ;;
	esac
}
check_settings
