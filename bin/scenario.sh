#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Stage "boot" by name: run one line of configs/scenarios, a guest run
# (bin/boot.sh) or a run on this machine's own kernel (bin/native.sh), with
# the vCPUs, topology, steps and settings that line gives.
#
# Usage: bin/scenario.sh [--print] NAME DIR [KERNEL]
#	--print	print the command instead of running it
#	NAME	a scenario of configs/scenarios
#	DIR	where its results go
#	KERNEL	the kernel folder of build/out, for a scenario whose
#		KERNEL is "*" (and in place of the one it names)
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

SCENARIOS=$CONFIGS/scenarios

print=
if [ "${1:-}" = --print ]; then
	print=1
	shift
fi
name=${1:?scenario}
dir=${2:?result dir}
kernel_arg=${3:-}

# lookup NAME: the fields of NAME's line, or nothing.
lookup()
{
	awk -v n="$1" '$1 == n && NF >= 6 { $1 = ""; print; exit }' "$SCENARIOS"
}

# setting WORD: WORD itself when it is a value, else the value of the
# setting it names.
setting()
{
	case $1 in
	[A-Z]*)	echo "${!1}" ;;
	*)	echo "$1" ;;
	esac
}

line=$(lookup "$name")
[ -n "$line" ] || die "scenario: no scenario '$name' in $SCENARIOS"
read -r kernel vcpus topology steps settings <<<"$line"
read -r -a extra <<<"$settings"
[ "${extra[*]}" != - ] || extra=()
if [ -n "$kernel_arg" ]; then
	kernel=$kernel_arg
elif [ "$kernel" = "*" ]; then
	die "scenario: $name needs a kernel folder of $OUT"
fi
if [ "$kernel" = - ]; then
	# make native STEPS=...: the user's steps before the scenario's.
	cmd=(env STEPS="${STEPS:-$steps}" "${extra[@]}" "$TOP/bin/native.sh" "$dir")
else
	cmd=(env VCPUS="$(setting "$vcpus")" TOPOLOGY="$(setting "$topology")" "${extra[@]}"
		"$TOP/bin/boot.sh" "$kernel" "$dir" "$steps")
fi
if [ -n "$print" ]; then
	echo "${cmd[*]#"$TOP/"}"
	exit 0
fi
exec "${cmd[@]}"
