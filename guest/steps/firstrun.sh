#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash # busybox ash, which has "local" too
# Step firstrun: futex_numa_mpol first, then every test of step kselftest:
# a guest of make boots, which boots each kernel again and again to see
# whether the first run after boot hangs.
set -u
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

kselftest firstrun futex_numa_mpol
sh "$(dirname "$0")/kselftest.sh"
