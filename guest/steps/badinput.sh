#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash # busybox ash, which has "local" too
# Step badinput: a corpus of malformed futex calls, one line per call with
# its result, for comparing kernels (bin/verdicts.py).
set -u
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

out=$GUEST_TMP/badinput.txt

log "badinput: malformed futex calls"
timeout 120 "$GUEST_BIN/futex_badinput" >"$out" 2>&1 ||
	echo "error futex_badinput failed or timed out" >>"$out"
section badinput <"$out"
