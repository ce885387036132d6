#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the baseline: stock fs/ext2 from Debian's packaged linux-source,
# with its filesystem type renamed to "ext2stock", as an out-of-tree module
# for KVER.  It is built in the cache, never in (or committed to) the clone;
# the result is copied to $BUILD/baseline/ext2stock.ko.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)

kver=$("$here/kver.sh")
kdir=${KDIR:-/usr/src/linux-headers-$kver}
build=${BUILD:-$PWD/build}
tarball=$(ls /usr/src/linux-source-6.1.tar.xz)
srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1)
dir=${EXT2HOLE_CACHE:-/var/cache/ext2hole}/baseline/$srcver-$kver

if [ ! -f "$dir/ext2stock.ko" ]; then
	rm -rf "$dir"
	mkdir -p "$dir"
	tar -xJf "$tarball" -C "$dir" --strip-components=3 \
		linux-source-6.1/fs/ext2
	sed -i -e 's/\.name\t\t= "ext2",/.name\t\t= "ext2stock",/' \
	       -e 's/MODULE_ALIAS_FS("ext2");/MODULE_ALIAS_FS("ext2stock");/' \
		"$dir/super.c"
	grep -q '"ext2stock"' "$dir/super.c" || {
		echo "build-baseline.sh: could not rename the type" >&2
		exit 1
	}
	cat > "$dir/Kbuild" <<'KB'
obj-m := ext2stock.o
ext2stock-y := balloc.o dir.o file.o ialloc.o inode.o ioctl.o namei.o \
	       super.o symlink.o
KB
	make -s -C "$kdir" M="$dir" modules >"$dir/build.log" 2>&1 || {
		cat "$dir/build.log" >&2
		exit 1
	}
fi
mkdir -p "$build/baseline"
cp "$dir/ext2stock.ko" "$build/baseline/ext2stock.ko"
echo "$build/baseline/ext2stock.ko"
