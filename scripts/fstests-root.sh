#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The fstests root: a Debian 12 root (debootstrap --variant=minbase from the
# host's Debian mirror) with the packages of tests/fstests/packages and
# fstests built from the pinned source tarball, as an ext4 disk image that
# the guest mounts (vda) and chroots into.  Prints the image's path.
#
#   /var/cache/ext2hole/fstests/<tarball sha256:16>-<package set sha256:12>/root.img
#
# Cached outside the clone, keyed by the tarball and the package set, and
# built under a lock (concurrent runs wait for one build).  Needs root.
#   EXT2HOLE_FSTESTS_TARBALL   the source (default: scripts/fstests-src.sh)
#   EXT2HOLE_DEBIAN_MIRROR     override the derived mirror
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
SUITE=bookworm
PKGLIST=$TOP/tests/fstests/packages
CACHE=${EXT2HOLE_CACHE:-/var/cache/ext2hole}/fstests
# shellcheck source=scripts/debian-mirror.sh
source "$TOP/scripts/debian-mirror.sh"

die() { echo "fstests-root: $*" >&2; exit 2; }
[ "$(id -u)" = 0 ] || die "must run as root (debootstrap, chroot)"
# The pinned fstests source (a build input, like a package): the tarball
# beside the clone, EXT2HOLE_FSTESTS_TARBALL, or fetched from fstests' git
# and cached (scripts/fstests-src.sh).
TARBALL=$("$TOP/scripts/fstests-src.sh") || die "no fstests source (above)"

mapfile -t pkgs < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$PKGLIST")
tsum=$(sha256sum "$TARBALL" | cut -c1-16)
psum=$(printf '%s\n' "$SUITE" "${pkgs[@]}" | sha256sum | cut -c1-12)
dir=$CACHE/$tsum-$psum
img=$dir/root.img
if [ -f "$dir/.complete" ]; then
	echo "$img"
	exit 0
fi

need=()
command -v debootstrap >/dev/null || need+=(debootstrap)
command -v mke2fs >/dev/null || need+=(e2fsprogs)
command -v xz >/dev/null || need+=(xz-utils)
if [ ${#need[@]} -gt 0 ]; then
	echo "fstests-root: installing ${need[*]} on the host" >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		-o DPkg::Lock::Timeout=600 "${need[@]}" >&2
fi

mkdir -p "$CACHE"
exec 9>"$CACHE/.lock"
flock 9
if [ -f "$dir/.complete" ]; then	# another run built it while we waited
	echo "$img"
	exit 0
fi

tmp=$dir/root
log=$dir/build.log
umount_all() {
	local m
	[ -d "$tmp" ] || return 0
	awk -v r="$tmp" 'index($5, r) == 1 { print $5 }' /proc/self/mountinfo | sort -r |
	while read -r m; do
		umount "$m" 2>/dev/null || umount -l "$m" || true
	done
}
trap umount_all EXIT
umount_all
rm -rf --one-file-system "$dir"
mkdir -p "$tmp"
: >"$log"

mirror=${EXT2HOLE_DEBIAN_MIRROR:-$(host_mirror "")}
upd=$(host_mirror -updates)
sec=$(host_mirror -security)
[ -n "$mirror" ] || die "no Debian mirror for $SUITE in the host's APT sources"
proxy=$(apt-config dump Acquire::http::Proxy | sed -n 's/^Acquire::http::Proxy "\(.*\)";$/\1/p')
if [ -n "$proxy" ] && [ -z "${http_proxy:-}" ]; then
	export http_proxy=$proxy
fi
echo "fstests-root: building $dir from $mirror (about 15 minutes; log: $log)" >&2
debootstrap --variant=minbase "$SUITE" "$tmp" "$mirror" >>"$log" 2>&1 || {
	tail -n 20 "$log" >&2; die "debootstrap failed (log: $log)"; }
{
	echo "deb $mirror $SUITE main"
	[ -z "$upd" ] || echo "deb $upd $SUITE-updates main"
	[ -z "$sec" ] || echo "deb $sec $SUITE-security main"
} >"$tmp/etc/apt/sources.list"
{
	[ -z "$proxy" ] || echo "Acquire::http::Proxy \"$proxy\";"
	echo 'APT::Install-Recommends "false";'
} >"$tmp/etc/apt/apt.conf.d/90ext2hole"

mount -t proc proc "$tmp/proc"
in_root() { chroot "$tmp" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
	LANG=C.UTF-8 HOME=/root DEBIAN_FRONTEND=noninteractive "$@"; }
in_root sh -c "apt-get update -q && apt-get install -y -q ${pkgs[*]} &&
	apt-get clean && rm -rf /var/lib/apt/lists/*" >>"$log" 2>&1 || {
	tail -n 20 "$log" >&2; die "installing the packages failed (log: $log)"; }

# fstests itself, built in the root; its users (README: fsgqa, fsgqa2,
# 123456-fsgqa) exist in the root.
xz -dc "$TARBALL" | tar -C "$tmp" -xf -
[ -x "$tmp/xfstests/check" ] || die "the tarball has no xfstests/check"
in_root sh -c 'cd /xfstests && make -j2' >>"$log" 2>&1 || {
	tail -n 30 "$log" >&2; die "building fstests failed (log: $log)"; }
if [ ! -x "$tmp/xfstests/ltp/fsx" ] || [ ! -x "$tmp/xfstests/src/aio-dio-regress/aio-dio-eof-race" ]; then
	die "fstests built without ltp/fsx or aio tests (log: $log)"
fi
in_root sh -c 'useradd -m fsgqa && useradd -m fsgqa2 && useradd -m 123456-fsgqa &&
	groupadd -f fsgqa' >>"$log" 2>&1 || die "adding the fstests users failed"
umount_all

# The image: the root plus room for results (ext4, 4 KiB blocks; the
# guest mounts it with the packaged ext4 driver).
kb=$(du -sk --one-file-system "$tmp" | cut -f1)
truncate -s $(((kb * 12 / 10 + 1536 * 1024) / 1024))M "$img.tmp"
mke2fs -q -F -t ext4 -L fstests-root -d "$tmp" "$img.tmp" >>"$log" 2>&1 ||
	die "mke2fs -d failed (log: $log)"
mv "$img.tmp" "$img"
rm -rf --one-file-system "$tmp"
{ echo "tarball $TARBALL"; echo "mirror $mirror"; echo "packages ${pkgs[*]}"; date -u; } >"$dir/info"
touch "$dir/.complete"
echo "$img"
