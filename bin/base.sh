#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Stage "base": obtain the unpatched kernel source.
#
# With KERNEL_SRC=<kernel git tree> that tree is used as it is (read only;
# KERNEL_REV picks the commit, default HEAD). Otherwise the newest Debian
# linux-source-$KVER package is downloaded with a private apt sources list
# and state directory made from the mirrors this machine's apt already
# uses, so the system's apt configuration is left alone.
#
# Output: $BUILD/dl/linux-source.tar.xz and $BUILD/dl/VERSION, or nothing
# for KERNEL_SRC.
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=debian.sh
. "$(dirname "$0")/debian.sh"

# The kernel the series is for; a tree of another is KERNEL_SRC's.
KVER=7.3
PKG=linux-source-$KVER
DL=$BUILD/dl

check_user_tree()
{
	if [ ! -f "$KERNEL_SRC/Makefile" ] || [ ! -f "$KERNEL_SRC/kernel/futex/waitwake.c" ]; then
		die "base: KERNEL_SRC=$KERNEL_SRC is not a kernel source tree"
	fi
	git -C "$KERNEL_SRC" rev-parse --verify -q "${KERNEL_REV:-HEAD}^{commit}" >/dev/null ||
		die "base: KERNEL_SRC=$KERNEL_SRC has no commit '${KERNEL_REV:-HEAD}'"
	progress "base: using $KERNEL_SRC at $(git -C "$KERNEL_SRC" describe --always "${KERNEL_REV:-HEAD}")"
}

fetch_debian()
{
	local ver="" deb

	# The newest version in any suite, whatever apt's pinning prefers.
	if apt_private_update; then
		ver=$(newest_version "$PKG")
	fi
	if [ -z "$ver" ]; then
		# Offline rerun: keep what was downloaded before.
		[ -f "$DL/VERSION" ] && [ -f "$DL/linux-source.tar.xz" ] && {
			progress "base: mirror unavailable, reusing $(cat "$DL/VERSION")"
			return 0
		}
		die "base: package $PKG not found on the mirrors (see $APTDIR/update.log)"
	fi
	if [ "$(cat "$DL/VERSION" 2>/dev/null)" = "$PKG $ver" ] && [ -f "$DL/linux-source.tar.xz" ]; then
		progress "base: $PKG $ver already here"
		return 0
	fi

	progress "base: downloading $PKG $ver"
	rm -f "$DL"/*.deb
	(cd "$DL" && apt_private apt-get download "$PKG=$ver" >"$APTDIR/download.log" 2>&1) ||
		die "base: downloading $PKG $ver failed (see $APTDIR/download.log)"
	deb=$(ls "$DL"/"${PKG}"_*.deb 2>/dev/null) ||
		die "base: apt-get download left no $PKG .deb in $DL"
	rm -rf "$DL/x"
	dpkg-deb -x "$deb" "$DL/x" || die "base: cannot unpack $deb"
	mv "$DL/x/usr/src/$PKG.tar.xz" "$DL/linux-source.tar.xz" ||
		die "base: $deb holds no usr/src/$PKG.tar.xz"
	rm -rf "$DL/x" "$deb"
	echo "$PKG $ver" >"$DL/VERSION"
}

mkdir -p "$DL"
if [ -n "${KERNEL_SRC:-}" ]; then
	check_user_tree
else
	fetch_debian
fi
