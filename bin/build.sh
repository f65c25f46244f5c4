#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Stage "build": build one kernel from a worktree with tinyconfig plus the
# given fragments of configs/, with ccache, into <worktree>/.obj/<flavour>.
#
# Usage: bin/build.sh NAME WORKTREE FLAVOUR
#	NAME	 output folder: $OUT/NAME/{bzImage,config,System.map}
#	FLAVOUR	 "futex" (configs/futex.config), "debug" (plus debug.config),
#		 "kasan" (plus debug.config and kasan.config), "kcsan"
#		 (futex.config and kcsan.config), or "small" (futex.config and
#		 small.config: kernel/futex/ alone, with W=1 and kernel-doc of
#		 all its files, no kernel image and nothing in $OUT)
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
need ccache gcc make flex bison bc cmp gzip strings

fragments()
{
	case $1 in
	futex)	echo "$CONFIGS/futex.config" ;;
	debug)	echo "$CONFIGS/futex.config $CONFIGS/debug.config" ;;
	kasan)	echo "$CONFIGS/futex.config $CONFIGS/debug.config $CONFIGS/kasan.config" ;;
	kcsan)	echo "$CONFIGS/futex.config $CONFIGS/kcsan.config" ;;
	small)	echo "$CONFIGS/futex.config $CONFIGS/small.config" ;;
	*)	die "build: unknown flavour '$1'" ;;
	esac
}

# dropped OBJ FRAGMENTS...: the fragment lines that did not survive into
# OBJ/.config (an option whose dependencies the fragments lack); of an
# option that several fragments set, the last one's line, as
# merge_config.sh keeps it.
dropped()
{
	local obj=$1 line sym

	shift
	grep -h -E '^(CONFIG_[A-Za-z0-9_]+=|# CONFIG_[A-Za-z0-9_]+ is not set)' "$@" |
	awk '{ sym = $0; sub(/^# /, "", sym); sub(/[= ].*/, "", sym)
	       if (!(sym in line)) order[n++] = sym; line[sym] = $0 }
	     END { for (i = 0; i < n; i++) print line[order[i]] }' |
	while IFS= read -r line; do
		case $line in
		*=n)	sym=${line%%=*}
			if grep -q -x "$sym=[ym]" "$obj/.config"; then echo "$line"; fi ;;
		*)	if ! grep -q -x -F "$line" "$obj/.config"; then echo "$line"; fi ;;
		esac
	done
}

# configure OBJ SRC FLAVOUR: tinyconfig plus fragments; fails if a requested
# value did not survive (a missing dependency in the fragment).
configure()
{
	local obj=$1 src=$2 frags sum log lost

	frags=$(fragments "$3")
	# shellcheck disable=SC2086
	sum=$(cat $frags | sha256sum)
	[ -f "$obj/.config" ] && [ "$(cat "$obj/.fragments" 2>/dev/null)" = "$sum" ] && return 0
	mkdir -p "$obj"
	log=$obj/config.log
	{
		make -C "$src" O="$obj" tinyconfig
		# shellcheck disable=SC2086
		"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" $frags
		make -C "$src" O="$obj" olddefconfig
	} >"$log" 2>&1 || die "build: configuring $obj failed (see $log)"
	# shellcheck disable=SC2086
	lost=$(dropped "$obj" $frags)
	[ -z "$lost" ] ||
		die "build: $(echo "$lost" | head -n 1) did not survive into $obj/.config ($(echo "$lost" | wc -l) options)"
	echo "$sum" >"$obj/.fragments"
}

# kbuild SRC FLAVOUR LABEL: build bzImage (kernel/futex/ alone for flavour
# small); print the last lines on failure.
kbuild()
{
	local src=$1 obj=$1/.obj/$2 log target=bzImage

	[ "$2" != small ] || target="W=1 kernel/futex/"
	configure "$obj" "$src" "$2"
	log=$obj/build.log
	# shellcheck disable=SC2086 # the target's words
	if ! make -C "$src" O="$obj" CC="$TOP/bin/ccache-gcc.sh" -j"$JOBS" $target >"$log" 2>&1; then
		tail -n 20 "$log" >&2
		die "build: $3 does not build (full log: $log)"
	fi
	# kernel-doc of every file, as W=1 checks only the files it compiles.
	[ "$2" != small ] ||
		(cd "$src" && scripts/kernel-doc -none kernel/futex/*.[ch]) >>"$log" 2>&1
	# New warnings in the code the series touches count as failures.
	if grep -E '(^|[ /])kernel/futex/[^:]+:[0-9]+(:[0-9]+: warning:| )' "$log" >&2; then
		die "build: $3 adds warnings in kernel/futex, of the compiler or kernel-doc (full log: $log)"
	fi
}

build_one()
{
	local name=$1 src flavour=$3 obj why

	src=$(cd "$2" && pwd) || die "build: no worktree $2"
	obj=$src/.obj/$flavour

	progress "build: $name kernel ($flavour config, $(git -C "$src" describe --always HEAD))"
	kbuild "$src" "$flavour" "$name"
	[ "$flavour" != small ] || return 0
	# The kernel that boots is the one this build linked, or nothing.
	# bin/ccache-gcc.sh says how it once was not.
	why=$(image_holds "$obj/arch/x86/boot/bzImage" "$obj/arch/x86/boot/compressed/vmlinux.bin") ||
		die "build: $name: $why"
	mkdir -p "$OUT/$name"
	cp "$obj/arch/x86/boot/bzImage" "$obj/System.map" "$OUT/$name/"
	cp "$obj/.config" "$OUT/$name/config"
	git -C "$src" describe --always HEAD >"$OUT/$name/commit"
}

build_one "${1:?name}" "${2:?worktree}" "${3:?flavour}"
