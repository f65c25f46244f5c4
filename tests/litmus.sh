# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# The ordering arguments of the series as LKMM litmus tests (tests/litmus/),
# run with herd7 and the tree's tools/memory-model through its own
# scripts/checklitmus.sh, which compares herd7's verdict with each file's
# "Result:" line. herdtools7 is packaged in Debian sid only: its package
# and sid's libc6 are unpacked into $BUILD/herd and herd7 runs with sid's
# own dynamic loader, so nothing is installed. Sourced by tests/check.sh
# after lib.sh and debian.sh.

HERD=$BUILD/herd

# herd_install: $HERD/bin/herd7, a wrapper that runs sid's herd7.
herd_install()
{
	local pkg ver root=$HERD/root lib

	[ -x "$HERD/bin/herd7" ] && return 0
	apt_private_update || die "litmus: Debian mirror unavailable (see $APTDIR/update.log)"
	rm -rf "$HERD"
	mkdir -p "$HERD/deb" "$HERD/bin"
	for pkg in herdtools7 libc6; do
		ver=$(newest_version "$pkg")
		[ -n "$ver" ] || die "litmus: $pkg not found on the mirrors"
		(cd "$HERD/deb" && apt_private apt-get download "$pkg=$ver") \
			>"$HERD/download.log" 2>&1 ||
			die "litmus: downloading $pkg $ver failed (see $HERD/download.log)"
	done
	for pkg in "$HERD"/deb/*.deb; do
		dpkg-deb -x "$pkg" "$root" || die "litmus: cannot unpack $pkg"
	done
	lib=$root/usr/lib/x86_64-linux-gnu
	[ -x "$lib/ld-linux-x86-64.so.2" ] || die "litmus: sid's libc6 has no loader in $lib"
	# sid's libc first, then this system's for the rest (libgmp).
	cat >"$HERD/bin/herd7" <<-EOF_HERD
		#!/bin/sh
		exec "$lib/ld-linux-x86-64.so.2" --library-path "$lib:/usr/lib/x86_64-linux-gnu" \\
			"$root/usr/bin/herd7" -set-libdir "$root/usr/share/herdtools7/herd" "\$@"
	EOF_HERD
	chmod +x "$HERD/bin/herd7"
	rm -rf "$HERD/deb"
}

# litmus: every tests/litmus/*.litmus gives the result its Result: line
# names, as checklitmus.sh judges it from the tree's tools/memory-model.
litmus()
{
	local lkmm=$TREE/tools/memory-model dest=$BUILD/litmus f rel

	herd_install
	rm -rf "$dest"
	mkdir -p "$dest"
	cp "$TOP"/tests/litmus/*.litmus "$dest/"
	for f in "$dest"/*.litmus; do
		rel=$(realpath --relative-to="$lkmm" "$f")
		(cd "$lkmm" && PATH=$HERD/bin:$PATH LKMM_DESTDIR=. scripts/checklitmus.sh "$rel") || return 1
	done
}
