#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the baseline: stock fs/ext2 from Debian's packaged linux-source of
# the same version as KVER's headers (linux-source-6.1 or -6.12), with its
# filesystem type renamed to "ext2stock", as an out-of-tree module for
# KVER.  It is built in the cache (keyed by source version and KVER), never
# in (or committed to) the clone; the result is copied to
# $BUILD/baseline/ext2stock.ko.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/kernel-lib.sh
source "$here/kernel-lib.sh"

kver=$("$here/kver.sh")
kdir=${KDIR:-/usr/src/linux-headers-$kver}
build=${BUILD:-$PWD/build}
series=$(kseries "$kver")
srcver=$(kpkgver "$kver")
dir=${EXT2HOLE_CACHE:-/var/cache/ext2hole}/baseline/$srcver-$kver

if [ ! -f "$dir/ext2stock.ko" ]; then
	tarball=$(ksource "$kver")
	rm -rf "$dir"
	mkdir -p "$dir"
	tar -xJf "$tarball" -C "$dir" --strip-components=3 \
		"linux-source-$series/fs/ext2"
	sed -i -e 's/\.name\t\t= "ext2",/.name\t\t= "ext2stock",/' \
	       -e 's/MODULE_ALIAS_FS("ext2");/MODULE_ALIAS_FS("ext2stock");/' \
		"$dir/super.c"
	grep -q '"ext2stock"' "$dir/super.c" || {
		echo "build-baseline.sh: could not rename the type" >&2
		exit 1
	}
	# The tree's own object list (6.12 adds trace.o), as module ext2stock;
	# the CONFIG_EXT2_FS_* options are unset in Debian's configs.
	# shellcheck disable=SC2016  # make variables, not shell ones
	sed -e 's/^obj-\$(CONFIG_EXT2_FS)[ \t]*+= ext2\.o/obj-m := ext2stock.o/' \
	    -e 's/^ext2-/ext2stock-/' "$dir/Makefile" >"$dir/Kbuild"
	rm -f "$dir/Makefile"
	grep -q '^obj-m := ext2stock.o' "$dir/Kbuild" || {
		echo "build-baseline.sh: unexpected fs/ext2/Makefile" >&2
		exit 1
	}
	make -s -C "$kdir" M="$dir" modules >"$dir/build.log" 2>&1 || {
		cat "$dir/build.log" >&2
		exit 1
	}
fi
mkdir -p "$build/baseline"
cp "$dir/ext2stock.ko" "$build/baseline/ext2stock.ko"
echo "$build/baseline/ext2stock.ko"
