#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The harness's settings, from configs/settings, for people and for make.
#
# Usage: bin/settings.sh help		one line each (make help)
#        bin/settings.sh markdown	doc/running.md's table
#        bin/settings.sh value NAME	NAME's value, its default unless set
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# shown DEFAULT: a default as people read it.
shown()
{
	case $1 in
	cores)		echo "host cores" ;;
	cores+1)	echo "host cores + 1" ;;
	"("*")")	local s=${1#(}; echo "${s%)}" ;;
	*)		echo "$1" ;;
	esac
}

# takes TAKES: what a setting takes, as people read it.
takes()
{
	case $1 in
	-)	;;
	/*/)	local re=${1#/}; echo "\`${re%/}\`" ;;
	*-*)	echo "${1%-*} to ${1#*-}" ;;
	*)	echo "${1//|/ or }" ;;
	esac
}

each()
{
	local name def take where what

	while IFS=$'\t' read -r name def take where what; do
		"$@" "$name" "$(shown "$def")" "$(takes "$take")" "$where" "$what"
	done < <(settings_rows)
}

help_line()
{
	printf '  %-14s %s (%s%s)\n' "$1" "$5" "$2" "${3:+; $3}"
}

markdown_line()
{
	echo "| \`$1\` | $2 | $3 | $5 |"
}

case ${1:-} in
help)
	echo "Settings (environment or make variables; default, and what each takes):"
	each help_line ;;
markdown)
	echo "| setting | default | takes | meaning |"
	echo "|---|---|---|---|"
	each markdown_line ;;
value)
	name=${2:?setting}
	grep -q "^$name	" "$SETTINGS" || die "settings: no setting $name in $SETTINGS"
	echo "${!name:-}" ;;
*)
	die "usage: bin/settings.sh help | markdown | value NAME" ;;
esac
