#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Fetch Debian's packaged kernel image for KVER and unpack vmlinuz and its
# modules into the cache (outside the clone).  Prints the unpacked root.
#   /var/cache/ext2hole/kernel/<KVER>/root/boot/vmlinuz-<KVER>
#   /var/cache/ext2hole/kernel/<KVER>/root/lib/modules/<KVER>/
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)

kver=$("$here/kver.sh")
cache=${EXT2HOLE_CACHE:-/var/cache/ext2hole}/kernel/$kver
root=$cache/root
if [ -f "$root/.complete" ]; then
	echo "$root"
	exit 0
fi
mkdir -p "$cache"
rm -rf "$root" "$cache"/*.deb
cd "$cache"
# The signed image is the usual one; -unsigned carries the same kernel.
for pkg in "linux-image-$kver" "linux-image-$kver-unsigned"; do
	if apt-get download "$pkg" >/dev/null 2>&1; then
		break
	fi
done
deb=$(ls ./*.deb 2>/dev/null | head -n 1)
if [ -z "$deb" ]; then
	echo "fetch-kernel.sh: cannot download linux-image-$kver" >&2
	exit 1
fi
dpkg-deb -x "$deb" "$root"
# The package's postinst runs depmod; do it here for the unpacked tree.
depmod -b "$root" "$kver"
touch "$root/.complete"
echo "$root"
