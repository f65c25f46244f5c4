# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# The kernel a guest boots must be the one its build linked. Once it was
# not: ccache gave back an earlier build's piggy.o (bin/ccache-gcc.sh).
# Sourced by tests/selftest.sh.

# rodata_after CC: compile a .S that .incbin's a file, change the file,
# compile again with CC in ccache's depend mode, as bin/build.sh does;
# print what the object holds.
rodata_after()
{
	local cc=$1 word

	rm -rf ccache piggy.o
	for word in first second; do
		echo $word >payload
		CCACHE_DIR=$PWD/ccache CCACHE_DEPEND=1 $cc -Wp,-MMD,piggy.d -c piggy.S -o piggy.o
	done
	objcopy -O binary -j .rodata piggy.o rodata
	cat rodata
}

# incbin_compiled_afresh: bin/ccache-gcc.sh gives the object of the file
# as it is now; plain ccache, the misbehaviour, is reported beside it.
incbin_compiled_afresh()
{
	local tmp plain ours

	tmp=$(mktemp -d)
	(
		cd "$tmp" || exit
		printf '.section .rodata\n.incbin "payload"\n' >piggy.S
		plain=$(rodata_after "ccache gcc")
		ours=$(rodata_after "$TOP/bin/ccache-gcc.sh")
		echo "plain ccache: $plain; bin/ccache-gcc.sh: $ours (second is right)"
		[ "$ours" = second ]
	)
	local rc=$?
	rm -rf "$tmp"
	return $rc
}

# fake_images DIR: DIR/vmlinux.bin, a "kernel" of build #14, and three
# bzImages of one setup sector and a gzip payload with its length after
# it, as Kbuild packs them: fresh (that kernel), relocs (that kernel and
# relocations after it) and stale (the kernel of build #8).
fake_images()
{
	python3 - "$1" <<'PY'
import gzip, struct, sys

d = sys.argv[1]


def kernel(n):
    banner = f"Linux version 7.3.4+ (root@vm) (gcc) #{n} SMP PREEMPT Sat Dec  5 13:18:22 UTC 2026\n"
    return b"\x7fELF" + bytes(60) + banner.encode() + bytes(range(256)) * 64


def image(payload):
    z = gzip.compress(payload, mtime=0) + struct.pack("<I", len(payload))
    setup = bytearray(1024)
    setup[0x1f1] = 1
    setup[0x202:0x206] = b"HdrS"
    struct.pack_into("<II", setup, 0x248, 0, len(z))
    return bytes(setup) + z


for name, data in (("vmlinux.bin", kernel(14)), ("fresh", image(kernel(14))),
                   ("relocs", image(kernel(14) + b"\1\2\3\4")), ("stale", image(kernel(8)))):
    with open(f"{d}/{name}", "wb") as f:
        f.write(data)
PY
}

# stale_image_refused: image_holds (bin/build.sh's check) passes the
# fresh images and names both builds for the stale one.
stale_image_refused()
{
	local tmp out rc=1

	tmp=$(mktemp -d)
	if fake_images "$tmp" &&
	   image_holds "$tmp/fresh" "$tmp/vmlinux.bin" &&
	   image_holds "$tmp/relocs" "$tmp/vmlinux.bin" &&
	   ! out=$(image_holds "$tmp/stale" "$tmp/vmlinux.bin"); then
		echo "$out"
		echo "$out" | grep -q 'holds build #8 SMP.*, not the kernel just linked, build #14 SMP' && rc=0
	fi
	rm -rf "$tmp"
	return $rc
}
