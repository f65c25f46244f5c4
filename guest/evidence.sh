#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash # busybox ash, which has "local" too
# evidence.sh OUT TAG [WHY]: append to OUT what every process of the guest
# run TAG (GUEST_RUN=TAG in its environment, see bounded() in lib.sh) is
# doing, before it is killed: for each thread its state, wchan, system
# call and kernel stack, and for a thread in a futex system call the
# futex words it names, read from /proc/PID/mem.
set -u

# words PID ADDR N: N 32-bit words of PID's memory at ADDR, in hex.
words()
{
	dd if="/proc/$1/mem" bs=4 skip=$(($2 / 4)) count="$3" 2>/dev/null |
		od -An -tx4 | xargs
}

# futex_words PID SYSCALL-LINE: the words a futex system call names:
# futex()'s uaddr and, for the requeue operations, uaddr2; futex_wait()'s
# value and, with FUTEX2_NUMA, the node word after it; every entry of
# futex_waitv()'s vector.
futex_words()
{
	local pid=$1 nr a0 a1 a3 a4 i n e

	# shellcheck disable=SC2086 # the fields of /proc/PID/syscall
	set -- $2
	nr=$1 a0=$2 a1=$3 a3=$5 a4=$6
	case $nr in
	202)
		echo "futex $a0: $(words "$pid" "$a0" 1)"
		case $((a1 & 127)) in
		3|4|11|12) echo "futex2 $a4: $(words "$pid" "$a4" 1)" ;;
		esac
		;;
	455)
		if [ $((a3 & 4)) = 0 ]; then
			echo "futex $a0: $(words "$pid" "$a0" 1)"
		else
			echo "futex $a0: $(words "$pid" "$a0" 2) (value, node)"
		fi
		;;
	449)
		n=$((a1 < 128 ? a1 : 128))
		i=0
		while [ $i -lt $n ]; do
			# struct futex_waitv: u64 val, u64 uaddr, u32 flags, u32
			# shellcheck disable=SC2046 # six words
			set -- $(words "$pid" $((a0 + i * 24)) 6)
			e=0x$4$3
			echo "futex_waitv[$i] $e: $(words "$pid" "$e" 1) (expected 0x$2$1, flags 0x$5)"
			i=$((i + 1))
		done
		;;
	esac
}

# thread PID TID: what one thread is doing; its user and system time, in
# clock ticks, tell a thread that loops in the kernel from one that runs,
# and its pending signals one that ignores a SIGKILL. The files are read
# with the shell's own read, forking nothing: a test that ran out of time
# may have a hundred threads, and under emulation a fork per file made the
# record take longer than the test.
thread()
{
	local pid=$1 d=/proc/$1/task/$2 stat state sc='' comm='' wchan='' line sig=''

	read -r stat 2>/dev/null <"$d/stat" || return 0
	state=${stat##*) }
	read -r sc 2>/dev/null <"$d/syscall" || :
	read -r comm 2>/dev/null <"$d/comm" || :
	# wchan ends without a newline, which read reports as an error.
	read -r wchan 2>/dev/null <"$d/wchan" || :
	echo "thread $2 ($comm): state ${state%% *}, wchan $wchan"
	while read -r line; do
		case $line in
		SigPnd:*|ShdPnd:*)
			# shellcheck disable=SC2086 # name and mask, not the tab
			set -- $line
			sig="$sig$1 $2 "
			;;
		esac
	done 2>/dev/null <"$d/status"
	# shellcheck disable=SC2086 # the fields of /proc/PID/stat after comm
	set -- $state
	echo "  utime ${12:-?} stime ${13:-?}, $sig"
	echo "  syscall $sc"
	case $sc in
	202\ *|449\ *|455\ *) futex_words "$pid" "$sc" | sed 's/^/  /' ;;
	esac
	while read -r line; do
		echo "  stack $line"
	done 2>/dev/null <"$d/stack"
}

main()
{
	local out=$1 tag=$2 why=${3:-} p cmd

	{
		echo "evidence at $(cut -d' ' -f1 /proc/uptime) s of uptime${why:+: $why}"
		for p in /proc/[0-9]*; do
			# Not this script, which inherited the tag.
			[ "${p#/proc/}" != $$ ] || continue
			# Nor a kernel thread, which has no command line and no
			# environment: the shell's own read tells, forking nothing.
			cmd=
			read -r cmd 2>/dev/null <"$p/cmdline" || [ -n "$cmd" ] || continue
			tr '\0' '\n' 2>/dev/null <"$p/environ" | grep -qx "GUEST_RUN=$tag" ||
				continue
			echo "process ${p#/proc/}: $(tr '\0' ' ' <"$p/cmdline" 2>/dev/null)"
			for t in "$p"/task/*; do
				thread "${p#/proc/}" "${t##*/}"
			done
		done
	} >>"$out"
}

main "$@"
