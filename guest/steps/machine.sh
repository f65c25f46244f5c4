#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash # busybox ash, which has "local" too
# shellcheck disable=SC2154 # the settings: guest/run.sh exports them
# Step machine, always first: what the numbers of the other steps were
# measured on, from /sys and /proc, as "key: value" lines (guest/FORMAT.md).
set -u
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

NODES=/sys/devices/system/node

# config_hash: the sha256 of the running kernel's config, where the kernel
# or /boot has it, else the one handed in (config_sha), else nothing.
config_hash()
{
	local boot

	boot=/boot/config-$(uname -r)
	if [ -r /proc/config.gz ]; then
		zcat /proc/config.gz | sha256sum
	elif [ -r "$boot" ]; then
		sha256sum <"$boot"
	elif [ -n "${config_sha:-}" ]; then
		echo "$config_sha"
	fi | cut -d' ' -f1
}

# nodes: the NUMA node numbers, in order.
nodes()
{
	local n

	for n in "$NODES"/node[0-9]*; do
		[ -d "$n" ] && echo "${n##*/node}"
	done | sort -n
}

{
	echo "release: $(uname -r)"
	echo "cpus: $(nproc)"
	echo "online: $(cat /sys/devices/system/cpu/online)"
	echo "nodes: $(nodes | wc -l)"
	for n in $(nodes); do
		echo "node$n: cpus $(cat "$NODES/node$n/cpulist"); distances $(cat "$NODES/node$n/distance")"
	done
	sha=$(config_hash)
	echo "config: ${sha:+sha256 }${sha:-unavailable}"
	echo "tools: ${tools_rev:-unknown}"
	echo "runner: $runner"
} | section machine
