#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Stage "tools": user space for the guest, built from the patched tree so
# the tests and benchmarks of the series run on both kernels.
#   $OUT/kselftest	futex kselftests, installed with kselftest's runner,
#			linked with a static libnuma from Debian sid's numactl
#   $OUT/perf		static perf (bench only: no libraries it can do without)
#   $OUT/guest-bin	the harness's own guest programs (guest/*.c) and
#			preloaded libraries (guest/lib/*.c)
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=debian.sh
. "$(dirname "$0")/debian.sh"
need ar gcc make pkg-config rsync tar

# Everything perf can leave out, so that it links statically anywhere.
PERF_MIN="NO_LIBELF=1 NO_LIBTRACEEVENT=1 NO_JEVENTS=1 NO_LIBPYTHON=1
	NO_LIBPERL=1 NO_SDT=1 NO_LIBUNWIND=1 NO_LIBDW=1 NO_SLANG=1 NO_GTK2=1
	NO_LIBNUMA=1 NO_LIBCAP=1 NO_LIBBPF=1 NO_BPF_SKEL=1 NO_LIBCRYPTO=1
	NO_LIBZSTD=1 NO_LZMA=1 NO_ZLIB=1 NO_AUXTRACE=1 NO_DEMANGLE=1
	NO_LIBLLVM=1 NO_CAPSTONE=1 NO_BABELTRACE=1 NO_LIBDEBUGINFOD=1
	NO_LIBPFM4=1 NO_SHELLCHECK=1 NO_RUST=1"

# run LOG LABEL CMD...: run quietly; on failure show the end of the log.
run()
{
	local log=$1 label=$2

	shift 2
	if ! "$@" >"$log" 2>&1; then
		tail -n 20 "$log" >&2
		die "tools: $label failed (full log: $log)"
	fi
}

NUMA=$BUILD/numa

# futex_numa_mpol needs libnuma 2.0.18 or later, bookworm has 2.0.16. Build
# the static library from the newest numactl source on the mirrors (its
# release tarball, which has no generated build system: the six files of
# the library and the two definitions configure would make are all it
# takes). Reused when it is current or the mirrors cannot be reached.
libnuma()
{
	local ver="" f

	if apt_private_update; then
		ver=$(newest_version numactl src)
	fi
	if [ -z "$ver" ]; then
		[ -f "$NUMA/lib/libnuma.a" ] ||
			die "tools: source package numactl not found on the mirrors (see $APTDIR/update.log)"
		progress "tools: mirror unavailable, reusing $(cat "$NUMA/VERSION")"
		return 0
	fi
	if [ "$(cat "$NUMA/VERSION" 2>/dev/null)" = "numactl $ver" ] && [ -f "$NUMA/lib/libnuma.a" ]; then
		return 0
	fi
	progress "tools: libnuma from numactl $ver"
	rm -rf "$NUMA"
	mkdir -p "$NUMA/src" "$NUMA/lib" "$NUMA/include" "$NUMA/pkgconfig"
	(cd "$NUMA" && apt_private apt-get source --download-only --tar-only \
		"numactl=$ver") >"$NUMA/download.log" 2>&1 ||
		die "tools: downloading numactl $ver's source failed (see $NUMA/download.log)"
	tar -xf "$NUMA"/numactl_*.orig.tar.* -C "$NUMA/src" --strip-components=1 ||
		die "tools: cannot unpack numactl $ver's source in $NUMA"
	printf '#define TLS __thread\n#define HAVE_ATTRIBUTE_SYMVER 1\n' >"$NUMA/src/config.h"
	for f in libnuma syscall distance affinity sysfs rtnetlink; do
		run "$NUMA/build.log" "compiling libnuma's $f.c" \
			gcc -O2 -I"$NUMA/src" -c "$NUMA/src/$f.c" -o "$NUMA/src/$f.o"
	done
	ar rcs "$NUMA/lib/libnuma.a" "$NUMA"/src/*.o
	cp "$NUMA/src/numa.h" "$NUMA/src/numaif.h" "$NUMA/include/"
	cat >"$NUMA/pkgconfig/numa.pc" <<-EOF_PC
		prefix=$NUMA
		Name: numa
		Description: NUMA policy library (static, from numactl $ver)
		Version: $(cat "$NUMA/src/VERSION")
		Cflags: -I\${prefix}/include
		Libs: -L\${prefix}/lib -lnuma
	EOF_PC
	echo "numactl $ver" >"$NUMA/VERSION"
	# The kselftests' objects do not know they were built without it.
	rm -rf "$BUILD/obj/kselftest"
}

# Only what guest/ has now: a removed program does not linger in the image.
rm -rf "$OUT/guest-bin"
mkdir -p "$BUILD/obj/kselftest" "$BUILD/obj/perf" "$OUT/guest-bin"

libnuma
progress "tools: futex kselftests"
rm -rf "$OUT/kselftest"
# The kselftests build against the tree's own UAPI headers (io_uring's
# futex operations are newer than the system's), installed outside the
# source tree as its kernels are built.
run "$BUILD/obj/headers.log" "installing the tree's UAPI headers" \
	make -C "$TREE" O="$BUILD/obj/headers" INSTALL_HDR_PATH="$BUILD/obj/headers/usr" \
		headers_install
# The futex Makefile asks pkg-config for libnuma's version and links with
# -lnuma: the private numa.pc and a directory with only libnuma.a in it.
PKG_CONFIG_PATH=$NUMA/pkgconfig CFLAGS="-I$NUMA/include" LDFLAGS="-L$NUMA/lib" \
	run "$BUILD/obj/kselftest.log" "building the futex kselftests" \
	make -C "$TREE/tools/testing/selftests" TARGETS=futex/functional -j"$JOBS" \
		KHDR_INCLUDES="-isystem $BUILD/obj/headers/usr/include" \
		O="$BUILD/obj/kselftest" INSTALL_PATH="$OUT/kselftest" install
# The programs the futex Makefile builds, as make reads TEST_GEN_PROGS:
# each guest's folder records them (bin/describe.sh), and the judge wants
# each of them run.
# shellcheck disable=SC2016 # make, not the shell, expands them
make -s --no-print-directory -C "$TREE/tools/testing/selftests/futex/functional" \
	--eval 'futex-programs: ; @echo $(notdir $(TEST_GEN_PROGS))' futex-programs \
	>"$OUT/kselftest-programs" || die "tools: the futex Makefile lists no programs"
[ -s "$OUT/kselftest-programs" ] || die "tools: the futex Makefile lists no programs"

progress "tools: static perf"
# shellcheck disable=SC2086 # PERF_MIN is a list of make variables
run "$BUILD/obj/perf.log" "building perf" \
	make -C "$TREE/tools/perf" O="$BUILD/obj/perf" LDFLAGS=-static \
		$PERF_MIN -j"$JOBS" perf
cp "$BUILD/obj/perf/perf" "$OUT/perf"

progress "tools: guest programs"
for c in "$TOP"/guest/*.c; do
	run "$BUILD/obj/guest.log" "compiling $(basename "$c")" \
		gcc -O2 -Wall -Wextra -Werror -o "$OUT/guest-bin/$(basename "$c" .c)" "$c"
done
mkdir -p "$OUT/guest-bin/lib"
for c in "$TOP"/guest/lib/*.c; do
	run "$BUILD/obj/guest.log" "compiling $(basename "$c")" \
		gcc -O2 -Wall -Wextra -Werror -shared -fPIC \
			-o "$OUT/guest-bin/lib/$(basename "$c" .c).so" "$c" -ldl
done
# The commit the tools were built from, for the results' machine section.
git -C "$TREE" rev-parse --short=12 HEAD >"$OUT/tools-rev"
