#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install the Debian packages the harness needs; a no-op when all are there.
#
# Usage: bin/deps.sh [check]	("check" adds what only the tests need)
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

pkgs="bc bison build-essential busybox-static ccache cpio flex git
	gnuplot-nox gzip libelf-dev libnuma-dev libssl-dev perl pkg-config
	python3 qemu-system-x86 rsync rt-tests stress-ng sysbench xz-utils zstd"
[ "${1:-}" = check ] && pkgs="$pkgs b4 python3-docutils shellcheck time"

missing()
{
	local p

	for p in $pkgs; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
			grep -q '^install ok installed$' || echo "$p"
	done
}

todo=$(missing | tr '\n' ' ')
[ -n "$todo" ] || exit 0
[ "$(id -u)" = 0 ] ||
	die "missing packages: $todo; install them or run 'make deps' as root"
progress "deps: installing $todo"
export DEBIAN_FRONTEND=noninteractive
apt-get -qq update >/dev/null ||
	die "deps: apt-get update failed; is a Debian mirror reachable?"
# shellcheck disable=SC2086 # word splitting is the point
apt-get -qq install -y --no-install-recommends $todo >/dev/null ||
	die "deps: apt-get install $todo failed"
