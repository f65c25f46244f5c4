#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The compiler of the kernel builds (bin/build.sh passes it as CC): gcc
# through ccache, except for a source that names the assembler's .incbin.
#
# In depend mode (bin/lib.sh) ccache hashes the source and the files gcc
# lists as its dependencies; a file that .incbin reads is not among them,
# and the ccache of Debian bookworm does not look for the directive in
# that mode. arch/x86/boot/compressed/piggy.S reads the compressed kernel
# that way, and its text holds nothing but the kernel's sizes: a build
# whose compressed kernel has the same length as an earlier one's got
# that earlier piggy.o back, and with it the earlier kernel.
set -eu

for arg; do
	case $arg in
	*.c|*.S)
		if [ -f "$arg" ] && grep -q '\.incbin' "$arg"; then
			exec gcc "$@"
		fi ;;
	esac
done
exec ccache gcc "$@"
