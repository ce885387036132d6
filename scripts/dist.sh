#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make dist: build/ext2hole-<version>.tar.gz, the source tarball that
# DKMS and the .deb are made from.  It holds what a module build needs
# (Kbuild, Makefile, src/, include/, dkms.conf) plus LICENSE, README.md
# and the docs/ it links to (docs/dkms.md and the man pages among them),
# tools/fsck.ext2hole and debian/; never
# build outputs or tests.  Its dkms.conf has the version written in (from
# debian/changelog, in place of #MODULE_VERSION#), so the unpacked tree
# is ready for `dkms add` as it is; debian/rules does the same with
# dh_dkms -V when the .deb is built.
#
# Files come from the working tree; inside git only tracked or untracked
# but not ignored files are taken, so kbuild droppings never leak in.
# The tarball is reproducible (sorted, fixed owner and mtime).
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
cd "$TOP"

die() { echo "dist.sh: $*" >&2; exit 1; }

# One version, in debian/changelog; the tarball's dkms.conf gets it
# written in (below), the module reads it through Kbuild.
version=$(scripts/version.sh)
grep -q '^PACKAGE_VERSION="#MODULE_VERSION#"$' dkms.conf ||
	die "dkms.conf must say PACKAGE_VERSION=\"#MODULE_VERSION#\" (the version lives in debian/changelog)"
if grep -q '^#define[[:space:]]*EXT2HOLE_VERSION[[:space:]]*"' include/*.h; then
	die "include/ defines EXT2HOLE_VERSION; Kbuild sets it from debian/changelog"
fi

paths=(Kbuild Makefile dkms.conf LICENSE src include debian docs tools/fsck.ext2hole)
[ -e README.md ] && paths+=(README.md) || echo "dist.sh: warning: no README.md" >&2
for p in Kbuild Makefile dkms.conf LICENSE src include debian tools/fsck.ext2hole; do
	[ -e "$p" ] || die "missing $p"
done
[ -e docs/dkms.md ] || die "missing docs/dkms.md"
[ -e docs/ext2hole.5 ] || die "missing docs/ext2hole.5"
[ -e docs/fsck.ext2hole.8 ] || die "missing docs/fsck.ext2hole.8"

name=ext2hole-$version
stage=$BUILD/dist/$name
rm -rf "$BUILD/dist"
mkdir -p "$stage"

# Git's file list only when this tree is a checkout's top: a copy of the
# tree inside another checkout (CI's 6.12 lane, or a tarball unpacked in
# a home directory kept in git) would get that checkout's list.
if [ "$(git rev-parse --show-toplevel 2>/dev/null)" = "$(pwd -P)" ]; then
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

sed -i "s/^PACKAGE_VERSION=\"#MODULE_VERSION#\"\$/PACKAGE_VERSION=\"$version\"/" "$stage/dkms.conf"
grep -q "^PACKAGE_VERSION=\"$version\"\$" "$stage/dkms.conf" ||
	die "could not write the version into the tarball's dkms.conf"

out=$BUILD/$name.tar.gz
tar -C "$BUILD/dist" --sort=name --mtime="@$epoch" --owner=0 --group=0 \
	--numeric-owner --mode='u+rwX,go+rX,go-w' -cf - "$name" | gzip -9n > "$out.tmp"
mv "$out.tmp" "$out"
echo "dist.sh: wrote $out ($(tar -tzf "$out" | grep -vc '/$') files)"
