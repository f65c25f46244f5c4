#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Stage "initramfs": pack busybox, the guest scripts, the kselftests, perf,
# stress-ng, sysbench, pi_stress and the harness's guest programs, with the
# shared libraries they need, into $OUT/initramfs.cpio.gz. One image serves
# every kernel.
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
need busybox cpio gzip ldd stress-ng sysbench pi_stress

ROOT=$BUILD/initramfs
IMG=$OUT/initramfs.cpio.gz

# copy_libs DIR: copy the shared libraries of every ELF under DIR.
copy_libs()
{
	local f lib

	find "$1" -type f -perm -u+x | while read -r f; do
		ldd "$f" 2>/dev/null | awk '/=>/ { print $3 } /^\t\/.*ld-linux/ { print $1 }'
	done | sort -u | while read -r lib; do
		[ -f "$lib" ] || continue
		mkdir -p "$ROOT$(dirname "$lib")"
		cp -L "$lib" "$ROOT$lib"
	done
}

for d in "$OUT/kselftest" "$OUT/guest-bin"; do
	[ -e "$d" ] || die "initramfs: $d missing; run bin/tools.sh first"
done

progress "initramfs: packing"
rm -rf "$ROOT"
mkdir -p "$ROOT"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,guest/bin,lib64}
cp /bin/busybox "$ROOT/bin/busybox"
for a in $(busybox --list-full); do
	[ -e "$ROOT/$a" ] || ln -s /bin/busybox "$ROOT/$a"
done
# kselftest's runner wants coreutils' timeout (--foreground).
rm -f "$ROOT/usr/bin/timeout"
cp /usr/bin/timeout "$ROOT/usr/bin/timeout"
cp "$TOP/guest/init" "$ROOT/init"
cp "$TOP/guest/run.sh" "$TOP/guest/lib.sh" "$TOP/guest/evidence.sh" \
	"$TOP/guest/kselftest-needs" "$ROOT/guest/"
cp -a "$TOP/guest/steps" "$ROOT/guest/steps"
cp -a "$OUT/guest-bin/." "$ROOT/guest/bin/"
mv "$ROOT/guest/bin/lib" "$ROOT/guest/lib"
cp -a "$OUT/kselftest" "$ROOT/kselftest"
[ ! -f "$OUT/perf" ] || cp "$OUT/perf" "$ROOT/bin/perf"
# stress-ng for the soak step, sysbench and pi_stress for the block step,
# with their libraries (copy_libs below; sysbench's LuaJIT is one of them).
for p in stress-ng sysbench pi_stress; do
	cp "$(command -v "$p")" "$ROOT/usr/bin/$p"
done
copy_libs "$ROOT"
# glibc loads libgcc_s at run time for pthread_exit() and cancellation.
lib=$(gcc -print-file-name=libgcc_s.so.1)
lib=$(readlink -f "$lib")
[ -f "$lib" ] || die "initramfs: libgcc_s.so.1 not found"
cp "$lib" "$ROOT/lib/x86_64-linux-gnu/libgcc_s.so.1"
(cd "$ROOT" && find . | cpio -o -H newc --quiet | gzip -1) >"$IMG.new"
mv "$IMG.new" "$IMG"
progress "initramfs: $(du -h "$IMG" | cut -f1) in $IMG"
