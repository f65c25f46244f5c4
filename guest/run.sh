#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash # busybox ash, which has "local" too
# Stage "guest run": runs inside the guest (guest/init), or on the machine
# itself (guest/native.sh). Reads its plan from the environment (in the
# guest, variables of the kernel command line handed to init), runs step
# machine, then each step of the plan, each a script of its own,
# steps/NAME.sh, and writes what they report as sections "==> name <=="
# to $RES (guest/lib.sh), in the format of guest/FORMAT.md.
#
#   steps=STEP,...			what to run, in order: each
#					steps/STEP.sh
#   kst_timeout=SECONDS ...		each guest setting of configs/settings,
#					in lower case
#   probe=SYMBOL			bucket entry counted by the precheck step
#   tools_rev=REV config_sha=SHA256	for step machine: the tools' commit,
#					the kernel config's hash
#   runner=qemu|native			where this runs
#   dmesg_mark=TEXT			a line in the kernel log: only what
#					follows it goes to section dmesg
set -u
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# defaults: each guest setting of configs/settings, exported, and at its
# default where the host left it unset. bin/lib.sh passes every one; the table is read
# here for guest/native.sh run by hand, from this tree or from the
# tarball of bin/pack.sh, which carries it as settings beside this script.
defaults()
{
	local f name def where lc

	for f in "$GUEST_DIR/settings" "$GUEST_DIR/../configs/settings" ""; do
		[ ! -f "$f" ] || break
	done
	[ -n "$f" ] || return 0
	while IFS='	' read -r name def _ where _; do
		[ "$where" = guest ] || continue
		lc=$(echo "$name" | tr '[:upper:]' '[:lower:]')
		export "${lc?}"
		case $def in
		"("*) continue ;;
		esac
		eval "[ -n \"\${$lc:-}\" ] || $lc=\$def"
	done <"$f"
}
defaults

steps=${steps:-kselftest}
kst_tests=${kst_tests:-}
probe=${probe:-}
tools_rev=${tools_rev:-unknown}
config_sha=${config_sha:-}
runner=${runner:-qemu}
dmesg_mark=${dmesg_mark:-}
export steps kst_tests probe tools_rev config_sha runner

# step NAME: run steps/NAME.sh, or say that there is no such step.
step()
{
	local f=$GUEST_DIR/steps/$1.sh rc=0

	if [ ! -f "$f" ]; then
		skip "$1" "no such step ($f)"
		return
	fi
	sh "$f" || rc=$?
	[ $rc = 0 ] || log "step $1 failed with status $rc"
}

# kernel_log: the kernel log; with dmesg_mark, what follows its last
# occurrence. When the mark has left the ring buffer, every line still
# there is younger than it.
kernel_log()
{
	dmesg | awk -v m="$dmesg_mark" '
		m != "" && index($0, m) { n = 0; next }
		{ line[n++] = $0 }
		END { for (i = 0; i < n; i++) print line[i] }'
}

uname -a | section uname
echo "$(nproc) cpus" | section cpus
step machine
for s in $(echo "$steps" | tr , ' '); do
	[ "$s" != machine ] || continue
	log "step $s"
	step "$s"
done
kernel_log | section dmesg
echo "done" | section end
