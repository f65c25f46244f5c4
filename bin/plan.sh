#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Carry out a plan of configs/plans/: its kernels built, its guests booted
# into its folder, its comparisons and judgements, step after step, in
# the order bin/plan.py expands it to. Holds an flock on build/ while it
# runs: two plans would check out commits in the same tree. The tree is
# left at the series (branch futex-series) afterwards.
#
# Usage: bin/plan.sh [--dry-run] [--tap] PLAN [DIR]
#	--dry-run	print the steps and their commands, run nothing
#	--tap		each step a TAP line (tests/tap.sh), numbered on from
#			TAP_N, TAP_PASSED and TAP_FAILED, ending with the
#			counts (make check)
#	PLAN		a file of configs/plans/
#	DIR		the plan's result folder (results/PLAN unless given)
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

dry='' tap=''
while [ $# -gt 0 ]; do
	case $1 in
	--dry-run)	dry=1 ;;
	--tap)		tap=1 ;;
	-*)		die "plan: unknown option $1" ;;
	*)		break ;;
	esac
	shift
done
plan=${1:?plan}
dir=${2:-$RESULTS/$plan}
BIN=$TOP/bin
# For bin/plan.py: where the kernels are, and the tree a judge may read.
export BUILD OUT TREE

if [ -n "$tap" ]; then
	# shellcheck source=../tests/tap.sh
	. "$TOP/tests/tap.sh"
	n=${TAP_N:-0} passed=${TAP_PASSED:-0} failed=${TAP_FAILED:-0}
	: "${LOGS:=$RESULTS/$plan/logs}"
	mkdir -p "$LOGS"
fi

# fail MESSAGE: the plan cannot go on; with --tap, a failed test and the
# report's counts before the error line.
fail()
{
	[ -z "$tap" ] || { not_ok "plan $plan" "$1"; finish || true; }
	die "plan $plan: $1"
}

# The plan is expanded by bin/plan.py: on a machine without python3, the
# stage deps, which installs it, runs before the plan does.
command -v python3 >/dev/null || [ -n "$dry" ] || "$BIN/deps.sh" ||
	fail "cannot install what bin/plan.py needs"

# For {PATCH_FILES}: the patches of fixes/ and series/.
PLAN_PATCH_FILES=$(fixes_patches; series_patches)
export PLAN_PATCH_FILES

# patched: the tree's commit "patched", if it has one.
patched()
{
	git -C "$TREE" rev-parse -q --verify patched 2>/dev/null || true
}

# expand: the plan's steps, in $steps, one a line, with {PATCHES} the
# series' commits where the tree holds them (PLAN_SERIES); the commit
# they end at in $expanded_at.
expand()
{
	local out

	unset PLAN_SERIES
	expanded_at=$(patched)
	if [ -n "$expanded_at" ]; then
		PLAN_SERIES=$(series_kernels) || fail "cannot list the series' commits in $TREE"
		export PLAN_SERIES
	fi
	out=$(python3 "$BIN/plan.py" ${dry:+--dry-run} "$plan" "$dir" 2>&1) ||
		fail "$(echo "$out" | tail -n 1 | sed 's/^error: plan: //')"
	mapfile -t steps <<<"$out"
}
expand

# step_command KIND ARGS...: the command of one step, as words on stdout,
# one a line.
step_command()
{
	local kind=$1

	shift
	case $kind in
	stage|start) printf '%s\n' "${@:2}" ;;
	join)	printf '%s\n' wait "$1" ;;
	build)	printf '%s\n' "$BIN/build.sh" "$1" "$3" "$4" ;;
	boot)	printf '%s\n' "$BIN/scenario.sh" "$@" ;;
	mutant)	printf '%s\n' "$BIN/mutant.sh" "$@" ;;
	lockcheck) printf '%s\n' "$BIN/lockcheck.sh" "$@" ;;
	compare) printf '%s\n' "$BIN/compare.py" "$@" ;;
	judge)	printf '%s\n' python3 "$BIN/verdicts.py" "$@" ;;
	latest)	printf '%s\n' ln -sfn "$(realpath -m "$1")" "$RESULTS/latest" ;;
	clean)	printf '%s\n' rm -rf "$@" ;;
	same)	printf '%s\n' true ;;
	esac
}

# print_plan: the steps and their commands, as --dry-run prints them.
print_plan()
{
	local i=0 row w cmd at

	echo "plan $plan into ${dir#"$TOP/"}: ${#steps[@]} steps"
	for row in "${steps[@]}"; do
		IFS=$'\t' read -r -a w <<<"$row"
		i=$((i + 1))
		mapfile -t cmd < <(step_command "${w[1]}" "${w[@]:3}")
		at=
		[ "${w[1]}" != build ] || at=" (at ${w[4]} in ${w[5]#"$TOP/"})"
		printf '%2d %s%s\n   %s%s%s\n' "$i" "${w[2]}" \
			"$([ "${w[0]}" = go ] && echo '; the plan goes on if it fails')" \
			"${cmd[*]//"$TOP/"/}" "$at" \
			"$([ "${w[1]}" != build ] || [ "${w[7]}" = - ] || echo "; beside it: bin/build.sh ${w[7]} ${w[5]#"$TOP/"} ${w[7]}")"
	done
}

if [ -n "$dry" ]; then
	print_plan
	exit 0
fi

mkdir -p "$BUILD"
exec 9>"$BUILD/.plan.lock"
flock -n 9 || fail "another plan is running (it holds $BUILD/.plan.lock)"
# The stages started in the background: their pids and logs, by name.
declare -A started_pid started_log
# on_exit: the background stages end, each says where its output is, and
# the tree is back on the series.
# shellcheck disable=SC2317 # run at exit
on_exit()
{
	local name

	wait
	for name in "${!started_log[@]}"; do
		if [ -n "$tap" ]; then
			echo "# $name: ${started_log[$name]}"
		else
			progress "plan $plan: $name's output: ${started_log[$name]}"
		fi
	done
	git -C "$TREE" checkout -q futex-series 2>/dev/null || true
}
trap on_exit EXIT

# plan_txt: a plan that writes results leaves itself beside them.
plan_txt()
{
	if printf '%s\n' "${steps[@]}" | cut -f 2 |
		grep -q -v -x -e build -e same -e stage -e start -e join; then
		mkdir -p "$dir"
		print_plan >"$dir/plan.txt"
	fi
}
plan_txt

# joined PID LOG: the exit status of PID, a job of this shell, and its
# output, which it wrote to LOG.
# shellcheck disable=SC2317 # run by step()
joined()
{
	local rc=0

	wait "$1" || rc=$?
	cat "$2"
	return "$rc"
}

# retold NAME LOG RC WHAT: the TAP lines of stage NAME, which it wrote to
# LOG, as this run's, each named after it; a stage that ended with status
# RC, not 0, and no failed test of its own fails as test WHAT.
retold()
{
	local name=$1 log=$2 rc=$3 what=$4 line

	while IFS= read -r line; do
		case $line in
		"ok "[0-9]*" - "*)	ok "$name: ${line#* - }" ;;
		"not ok "[0-9]*" - "*)	not_ok "$name: ${line#* - }" ;;
		*)			echo "# $line" ;;
		esac
	done <"$log"
	[ "$rc" = 0 ] || grep -q '^not ok ' "$log" ||
		not_ok "$what" "exit status $rc: $(tail -n 1 "$log")"
}

# judged ARGS...: the judge's verdicts as TAP lines of this run; its
# last one says whether each planned verdict was given, so a judge that
# stopped before it (a traceback) fails here.
judged()
{
	local out=$LOGS/verdicts.out line

	python3 "$BIN/verdicts.py" "$@" >"$out" 2>&1 || true
	while IFS= read -r line; do
		case $line in
		"ok "*)		ok "${line#ok }" ;;
		"not ok "*)	not_ok "${line#not ok }" ;;
		*)		echo "# $line" ;;
		esac
	done <"$out"
	grep -q '^\(not \)\?ok the judge gave each of its' "$out" ||
		not_ok "guest results are judged" "$(tail -n 1 "$out")"
}

# step GO WHAT CMD...: one step, a TAP line with --tap; a failed step
# that is not GO ends the plan.
step()
{
	local go=$1 what=$2

	shift 2
	if [ -n "$tap" ]; then
		if [ "$go" = go ]; then
			t "$what" "$@" || true
		else
			stage "$what" "$@"
		fi
		return 0
	fi
	progress "plan $plan: $what"
	"$@" && return 0
	[ "$go" = go ] || die "plan $plan: failed: $what"
	echo "error: plan $plan: failed, judged below: $what" >&2
	return 1
}

# rc: the status of the last step, a judge's or a comparison's; a build
# beside another, or a stage in the background, that failed fails the
# plan as well.
rc=0 beside_failed=0 join_failed=0 i=0
while [ "$i" -lt "${#steps[@]}" ]; do
	row=${steps[i]}
	i=$((i + 1))
	IFS=$'\t' read -r -a w <<<"$row"
	go=${w[0]} kind=${w[1]} what=${w[2]}
	args=("${w[@]:3}")
	mapfile -t cmd < <(step_command "$kind" "${args[@]}")
	case $kind in
	same)
		if [ -n "$tap" ]; then ok "$what"; else progress "plan $plan: $what"; fi
		continue ;;
	build)
		git -C "${args[2]}" checkout -q --detach "${args[1]}" ||
			fail "git checkout ${args[1]} in ${args[2]} failed"
		# A kernel that failed to build leaves no older one to boot.
		rm -rf "${OUT:?}/${args[0]}"
		if [ "${args[4]}" != - ]; then
			if [ -n "$tap" ]; then beside_log=$LOGS/beside.out; else beside_log=$(mktemp); fi
			"$BIN/build.sh" "${args[4]}" "${args[2]}" "${args[4]}" >"$beside_log" 2>&1 &
			beside=$!
			rc=0
			step "$go" "$what" "${cmd[@]}" || rc=1
			step go "${args[5]}" joined "$beside" "$beside_log" || beside_failed=1
			[ -n "$tap" ] || rm -f "$beside_log"
			continue
		fi ;;
	clean)
		"${cmd[@]}" || fail "cannot empty its result folders"
		continue ;;
	start)
		started_log[${args[0]}]=${LOGS:-$dir}/${args[0]}.out
		mkdir -p "$(dirname "${started_log[${args[0]}]}")"
		if [ -n "$tap" ]; then echo "# $(progress "plan $plan: $what")"; else progress "plan $plan: $what"; fi
		"${cmd[@]}" >"${started_log[${args[0]}]}" 2>&1 &
		started_pid[${args[0]}]=$!
		continue ;;
	join)
		rc=0
		wait "${started_pid[${args[0]}]}" || rc=$?
		if [ -n "$tap" ]; then
			retold "${args[0]}" "${started_log[${args[0]}]}" "$rc" "$what"
		else
			progress "plan $plan: ${args[0]} has ended (its output: ${started_log[${args[0]}]})"
			[ "$rc" = 0 ] || { echo "error: plan $plan: failed: $what" >&2; join_failed=1; }
		fi
		continue ;;
	stage)
		rc=0
		step "$go" "$what" "${cmd[@]}" || rc=1
		# The stage may have made the tree, or changed its series.
		[ "$(patched)" != "$expanded_at" ] || continue
		done_steps=("${steps[@]:0:i}")
		expand
		[ "${done_steps[*]}" = "${steps[*]:0:i}" ] ||
			fail "its steps up to $what differ once expanded again"
		plan_txt
		continue ;;
	mutant)
		# A mutant applies its patch to the series.
		git -C "$TREE" checkout -q futex-series || fail "git checkout futex-series failed" ;;
	judge)
		if [ -n "$tap" ]; then
			judged "${args[@]}"
			continue
		fi ;;
	esac
	rc=0
	step "$go" "$what" "${cmd[@]}" || rc=1
done
if [ -n "$tap" ]; then
	finish
	exit
fi
[ "$beside_failed" = 0 ] && [ "$join_failed" = 0 ] || rc=1
exit $rc
