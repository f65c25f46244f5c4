#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash # busybox ash, which has "local" too
# shellcheck disable=SC2154 # the settings: guest/run.sh exports them
# Step block: the paths where futex waiters really block and are woken:
# perf bench futex wake, wake-parallel and requeue (a thread per CPU, perf's
# default), lock-pi, sysbench's mutex and threads tests (pthread mutexes
# and condition variables, a thread per CPU) and rt-tests' pi_stress
# (priority inheritance under SCHED_FIFO). runs runs each, as bench
# sections of group block. A program that is not there is skipped, once,
# and the others still run.
set -u
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

missing=" "

# block NAME THREADS CMD...: runs runs of CMD, or a skip line when its
# program is missing.
block()
{
	local name=$1 threads=$2 i

	shift 2
	case $missing in
	*" $1 "*) return 0 ;;
	esac
	if ! command -v "$1" >/dev/null; then
		missing="$missing$1 "
		skip block "$1 not installed"
		return 0
	fi
	for i in $(seq "$runs"); do
		bench block "$name" "$i" "$runs" "$threads" "$@"
	done
}

bench_limit "$bench_secs"
cpus=$(nproc)
block perf-wake - "$PERF" bench futex wake
block perf-wake-parallel - "$PERF" bench futex wake-parallel
block perf-requeue - "$PERF" bench futex requeue
block perf-lock-pi - "$PERF" bench futex lock-pi -r "$bench_secs"
block sysbench-mutex "$cpus" sysbench mutex --threads="$cpus" run
block sysbench-threads "$cpus" sysbench threads --threads="$cpus" --time="$bench_secs" run
block pi_stress - pi_stress --duration="$bench_secs" --quiet
