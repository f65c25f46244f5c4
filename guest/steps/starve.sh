#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash # busybox ash, which has "local" too
# Step starve: a reference on the private hash held across a replacement
# by a thread that cannot run (guest/futex_starve.c). It judges nothing
# itself: a kernel that frees the replaced hash under the reference shows
# a use-after-free on the console (make mutants' (i), under KASAN). The
# section records what the program saw and measured.
set -u
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

log "starve: a reference on the private hash held across its replacement"
"$GUEST_BIN/futex_starve" 2>&1 | section starve
