#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make dist: build/ext2hole-<version>.tar.gz, the source tarball that
# DKMS and the .deb are made from.  It holds what a module build needs
# (Kbuild, Makefile, src/, include/, dkms.conf) plus LICENSE, README.md,
# docs/dkms.md, docs/ext2hole.5 and debian/; never build outputs or tests.
#
# Files come from the working tree; inside git only tracked or untracked
# but not ignored files are taken, so kbuild droppings never leak in.
# The tarball is reproducible (sorted, fixed owner and mtime).
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
cd "$TOP"

die() { echo "dist.sh: $*" >&2; exit 1; }

# One version, three places: dkms.conf, the module, debian/changelog.
version=$(sed -n 's/^PACKAGE_VERSION="\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' dkms.conf)
hversion=$(sed -n 's/^#define[[:space:]]*EXT2HOLE_VERSION[[:space:]]*"\([^"]*\)".*/\1/p' \
	include/ext2hole.h)
cversion=$(sed -n '1s/^ext2hole (\([^)]*\)).*/\1/p' debian/changelog)
[ -n "$version" ] || die "no PACKAGE_VERSION in dkms.conf"
[ "$version" = "$hversion" ] ||
	die "dkms.conf PACKAGE_VERSION=$version but include/ext2hole.h says $hversion"
[ "$version" = "$cversion" ] ||
	die "dkms.conf PACKAGE_VERSION=$version but debian/changelog says $cversion"

paths=(Kbuild Makefile dkms.conf LICENSE src include debian docs/dkms.md docs/ext2hole.5)
[ -e README.md ] && paths+=(README.md) || echo "dist.sh: warning: no README.md" >&2
for p in Kbuild Makefile dkms.conf LICENSE src include debian; do
	[ -e "$p" ] || die "missing $p"
done
[ -e docs/dkms.md ] || die "missing docs/dkms.md"
[ -e docs/ext2hole.5 ] || die "missing docs/ext2hole.5"

name=ext2hole-$version
stage=$BUILD/dist/$name
rm -rf "$BUILD/dist"
mkdir -p "$stage"

if git rev-parse --git-dir >/dev/null 2>&1; then
	git ls-files -z --cached --others --exclude-standard -- "${paths[@]}" |
		while IFS= read -r -d '' f; do
			[ -e "$f" ] && printf '%s\0' "$f"
		done > "$BUILD/dist/files"
	epoch=$(git log -1 --format=%ct 2>/dev/null || echo 0)
else
	find "${paths[@]}" -type f ! -name '*.o' ! -name '*.ko' ! -name '*.mod' \
		! -name '*.mod.c' ! -name '.*.cmd' ! -name '*.symvers' \
		! -name '*.order' ! -name '.*.d' -print0 > "$BUILD/dist/files"
	epoch=0
fi
epoch=${SOURCE_DATE_EPOCH:-$epoch}
tar -C "$TOP" --null -T "$BUILD/dist/files" -cf - | tar -C "$stage" -xf -

# The module must build from the staged tree alone: every object Kbuild
# names needs its source.
for o in $(grep -o 'src/[A-Za-z0-9_]*\.o' Kbuild); do
	[ -f "$stage/${o%.o}.c" ] ||
		die "Kbuild names $o but ${o%.o}.c is not in the tarball"
done

out=$BUILD/$name.tar.gz
tar -C "$BUILD/dist" --sort=name --mtime="@$epoch" --owner=0 --group=0 \
	--numeric-owner --mode='u+rwX,go+rX,go-w' -cf - "$name" | gzip -9n > "$out.tmp"
mv "$out.tmp" "$out"
echo "dist.sh: wrote $out ($(tar -tzf "$out" | grep -vc '/$') files)"
