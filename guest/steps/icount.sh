#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash # busybox ash, which has "local" too
# Step icount: what each futex path costs, in instructions. Booted with
# ICOUNT=1 (bin/boot.sh), the guest's clock advances one nanosecond per
# instruction it executes, so the nanoseconds futex_icount measures around
# a loop of calls are the instructions that loop executed: the same in
# every boot of the same kernel, on any host. The host divides by the
# calls (bin/parse_results.py); elsewhere the figures are nanoseconds and
# the host says so.
set -u
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

# The calls of each cheap loop (the heavier ones run a tenth of it).
# Timer ticks that fall into a loop count with it: as the virtual clock
# is the instruction count, they fall at the same instructions in every
# boot of a kernel.
calls=100000

"$GUEST_BIN/futex_icount" $calls 2>&1 | section icount
