#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Stage "tools": user space for the guest, built from the patched tree so
# the tests and benchmarks of the series run on both kernels.
#   $OUT/kselftest	futex kselftests, installed with kselftest's runner
#   $OUT/perf		static perf (bench only: no libraries it can do without);
#			skipped with PERF=0 (make check needs no perf)
#   $OUT/guest-bin	the harness's own guest programs (guest/*.c)
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
need gcc make rsync

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

mkdir -p "$BUILD/obj/kselftest" "$BUILD/obj/perf" "$OUT/guest-bin"

progress "tools: futex kselftests"
rm -rf "$OUT/kselftest"
run "$BUILD/obj/kselftest.log" "building the futex kselftests" \
	make -C "$TREE/tools/testing/selftests" TARGETS=futex \
		O="$BUILD/obj/kselftest" INSTALL_PATH="$OUT/kselftest" install

if [ "${PERF:-1}" != 0 ]; then
	progress "tools: static perf"
	# shellcheck disable=SC2086 # PERF_MIN is a list of make variables
	run "$BUILD/obj/perf.log" "building perf" \
		make -C "$TREE/tools/perf" O="$BUILD/obj/perf" LDFLAGS=-static \
			$PERF_MIN -j"$JOBS" perf
	cp "$BUILD/obj/perf/perf" "$OUT/perf"
fi

progress "tools: guest programs"
for c in "$TOP"/guest/*.c; do
	run "$BUILD/obj/guest.log" "compiling $(basename "$c")" \
		gcc -O2 -Wall -Wextra -Werror -o "$OUT/guest-bin/$(basename "$c" .c)" "$c"
done
