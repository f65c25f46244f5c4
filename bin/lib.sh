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
# which mm_struct embeds, so base and patched share few objects, and most
# of what a fresh clone compiles misses: the kernel/ folder took 100 s
# this way and 134 s without on two cores.
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

# series_kernels: each commit of the series in order, one line each: its
# number, its id, and "same" where it changes nothing a kernel is built
# from (tools/ and Documentation/ alone), so that the kernel of the patch
# before it stands for its own.
series_kernels()
{
	local commits c i=0

	commits=$(git -C "$TREE" rev-list --reverse base..patched) || return 1
	for c in $commits; do
		i=$((i + 1))
		if git -C "$TREE" diff --quiet "$c~1" "$c" -- . ':(exclude)tools' \
			':(exclude)Documentation'; then
			echo "$i $c same"
		else
			echo "$i $c"
		fi
	done
}

SETTINGS=$CONFIGS/settings

# settings_rows: the rows of configs/settings, tab-separated.
settings_rows()
{
	grep -v -e '^#' -e '^$' "$SETTINGS"
}

# setting_default DEFAULT: the value a setting's DEFAULT gives, or nothing
# for one in brackets.
setting_default()
{
	case $1 in
	cores)		nproc ;;
	cores+1)	echo $(($(nproc) + 1)) ;;
	"("*)		;;
	*)		echo "$1" ;;
	esac
}

# check_setting NAME TAKES WHAT: an empty NAME passes; any other value
# must be what TAKES says (configs/settings), or one line names it.
check_setting()
{
	local v=${!1:-} re

	[ -n "$v" ] || return 0
	case $2 in
	-)	;;
	/*/)	re=${2#/}
		[[ $v =~ ${re%/} ]] || die "$1=$v: $3" ;;
	*-*)	if ! [[ $v =~ ^[1-9][0-9]{0,6}$|^0$ ]] || [ "$v" -lt "${2%-*}" ] ||
		   [ "$v" -gt "${2#*-}" ]; then
			die "$1=$v: $3, a whole number from ${2%-*} to ${2#*-}"
		fi ;;
	*"|"*)	[[ "|$2|" == *"|$v|"* ]] || die "$1=$v: $3: ${2//|/ or }" ;;
	esac
}

# guest_settings: the settings of the guest's steps, as guest/run.sh reads
# them (kst_timeout=300 ...).
guest_settings()
{
	local name def takes where what

	while IFS=$'\t' read -r name def takes where what; do
		[ "$where" != guest ] || [ -z "${!name:-}" ] || echo "${name,,}=${!name}"
	done < <(settings_rows)
}

# snc_vcpus NAME WHAT: an unset NAME, or an even number of at least 6, a
# CPU for each of the three nodes of two sockets.
snc_vcpus()
{
	local v=${!1:-}

	[ -z "$v" ] || { [ "$v" -ge 6 ] && [ $((v % 2)) = 0 ]; } ||
		die "$1=$v: $2, an even number of at least 6"
}

# load_settings: before any stage does work, each setting of
# configs/settings that is set is checked, and each that is not gets its
# default; then the rules that tie two settings together.
load_settings()
{
	local name def takes where what

	while IFS=$'\t' read -r name def takes where what; do
		check_setting "$name" "$takes" "$what"
		if [ -z "${!name:-}" ]; then
			def=$(setting_default "$def")
			[ -z "$def" ] || export "$name=$def"
		fi
	done < <(settings_rows)
	# Two sockets of three nodes: make run's MANY_VCPUS guests always.
	[ "$TOPOLOGY" != snc3 ] || snc_vcpus VCPUS "guest vCPUs with TOPOLOGY=snc3"
	snc_vcpus MANY_VCPUS "vCPUs of the second pair of guests (TOPOLOGY snc3)"
}
load_settings
