#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Stage "pack": the tools of bin/tools.sh and the guest scripts as one
# tarball, for a machine that cannot build them, to measure its own kernel
# there: tar xf futex-tools-REV.tar.gz; sudo futex-tools-REV/guest/native.sh DIR
#
#   futex-tools-REV/guest/	run.sh, lib.sh, evidence.sh, native.sh,
#				steps/, FORMAT.md, kselftest-needs, and
#				settings (configs/settings: the defaults)
#   futex-tools-REV/tools/	kselftest/, guest-bin/, perf, tools-rev
#
# REV is the commit the tools were built from; the tarball goes to $OUT.
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
need tar gzip

for f in kselftest guest-bin perf; do
	[ -e "$OUT/$f" ] || die "pack: $OUT/$f missing; run bin/tools.sh first"
done
rev=$(cat "$OUT/tools-rev" 2>/dev/null) || die "pack: $OUT/tools-rev missing; run bin/tools.sh first"
name=futex-tools-$rev
stage=$BUILD/pack
tarball=$OUT/$name.tar.gz

rm -rf "$stage"
mkdir -p "$stage/$name/guest" "$stage/$name/tools"
cp -a "$TOP/guest/run.sh" "$TOP/guest/lib.sh" "$TOP/guest/evidence.sh" \
	"$TOP/guest/native.sh" "$TOP/guest/steps" "$TOP/guest/FORMAT.md" \
	"$TOP/guest/kselftest-needs" \
	"$stage/$name/guest/"
cp "$SETTINGS" "$stage/$name/guest/settings"
cp -a "$OUT/kselftest" "$OUT/guest-bin" "$OUT/perf" "$stage/$name/tools/"
# For the results' machine section there (guest/native.sh).
echo "$rev" >"$stage/$name/tools/tools-rev"
tar -C "$stage" -czf "$tarball.new" --owner=0 --group=0 "$name"
mv "$tarball.new" "$tarball"
rm -rf "$stage"
progress "pack: $tarball"
