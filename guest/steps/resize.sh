#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash # busybox ash, which has "local" too
# Step resize: the private hash sizing and replacement tests alone.
set -u
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

# shellcheck disable=SC2086 # a list of test names
kselftest resize futex_priv_hash futex_hash_resize futex_hash_drain
