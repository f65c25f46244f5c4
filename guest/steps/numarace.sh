#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash # busybox ash, which has "local" too
# Step numarace: the FUTEX2_NUMA first-waiter race (fixes/), by its
# kselftest alone: make check runs it on the kernel without the fix, where
# it must fail.
set -u
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

kselftest numarace futex_numa_race
