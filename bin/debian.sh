# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Packages from Debian suites this machine does not follow (trixie-backports,
# sid), through a private apt sources list and state directory made from
# the mirrors the system's apt already uses: the system's apt
# configuration is left alone. Sourced after lib.sh.

APTDIR=$BUILD/dl/apt
DEBIAN_SUITES="trixie-backports sid"

# Debian archive URIs the system's apt uses (not -security or -updates).
mirrors()
{
	# shellcheck disable=SC2016 # apt's own $(FIELD) syntax
	apt-get indextargets --format '$(REPO_URI) $(RELEASE)' 2>/dev/null |
		awk '$2 !~ /-/ { print $1 }' | sort -u
}

# apt_private apt-get|apt-cache ARGS...: run apt on the private state.
apt_private()
{
	local cmd=$1

	shift
	"$cmd" -q -o Dir::Etc::SourceList="$APTDIR/sources.list" \
		-o Dir::Etc::SourceParts="$APTDIR/parts" \
		-o Dir::State="$APTDIR" -o Dir::State::Lists="$APTDIR/lists" \
		-o Dir::State::status=/dev/null -o Dir::Cache="$APTDIR/cache" \
		-o Debug::NoLocking=1 "$@"
}

# apt_private_update: write the private sources list (binary and source
# packages of $DEBIAN_SUITES) and fetch its indexes. Fails when no mirror
# answers; dies when this machine's apt names no Debian mirror.
apt_private_update()
{
	local uri suite kind

	mkdir -p "$APTDIR/lists/partial" "$APTDIR/cache/archives/partial" "$APTDIR/parts"
	for uri in $(mirrors); do
		for suite in $DEBIAN_SUITES; do
			for kind in deb deb-src; do
				echo "$kind [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $uri $suite main"
			done
		done
	done >"$APTDIR/sources.list.new"
	[ -s "$APTDIR/sources.list.new" ] ||
		die "no Debian mirror found in this machine's apt sources"
	mv "$APTDIR/sources.list.new" "$APTDIR/sources.list"
	apt_private apt-get update >"$APTDIR/update.log" 2>&1
}

# newest_version PKG [src]: the newest version of binary package PKG (or
# of source package PKG) in any suite, whatever apt's pinning prefers.
newest_version()
{
	local what=Packages

	[ "${2:-}" != src ] || what=Sources
	apt_private apt-cache madison "$1" 2>/dev/null |
		awk -F'|' -v what="$what" '$3 ~ what { gsub(/ /, "", $2); print $2 }' |
		sort -V | tail -n 1
}
