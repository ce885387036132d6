#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the guest initramfs: busybox, the packaged kernel's modules listed
# in initramfs/modules.list with their dependencies, ext2hole.ko and the
# ext2stock baseline, the test programs and suites, and e2fsprogs.
# Modules and test programs go in without their debug information (symbol
# tables stay: a guest's oops still names functions), and the archive is
# not compressed: the guest kernel unpacks 35 MB of plain cpio in a
# fraction of a second under QEMU TCG, where gunzip took some 4 s of
# every boot (measured 2026-12-07 on 6.1 and 6.12).
#   usage: mkinitramfs.sh OUTPUT.cpio
# Env: EXT2HOLE_KO, EXT2HOLE_STOCK_KO, EXT2HOLE_MODDIR (root holding
# lib/modules/<kver>), EXT2HOLE_KVER_GUEST.
set -euo pipefail

out=$1
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
kver=${EXT2HOLE_KVER_GUEST:-$("$top/scripts/kver.sh")}
moddir=${EXT2HOLE_MODDIR:-$("$top/scripts/fetch-kernel.sh")}
ko=${EXT2HOLE_KO:-$top/ext2hole.ko}
stock=${EXT2HOLE_STOCK_KO:-$build/baseline/ext2stock.ko}

stage=$(mktemp -d "$build/initramfs.XXXXXX")
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/{bin,sbin,etc,proc,sys,dev,tmp,mnt,in,out,lib,lib64,tests/bin,tests/suites}
mkdir -p "$stage/lib/modules/$kver"

cp /bin/busybox "$stage/bin/busybox"
cp "$top/initramfs/init" "$stage/init"
chmod 755 "$stage/init"
# mktemp -d makes the root 0700: non-root test users (runas) need to reach /tests.
chmod 755 "$stage"

# Packaged modules, dependencies first.
mods=$moddir/lib/modules/$kver
: >"$stage/etc/modules.load"
declare -A seen=()
add_module() {
	local path=$1 dep
	[ -n "${seen[$path]:-}" ] && return 0
	seen[$path]=1
	for dep in $(awk -F': *' -v m="$path" '$1 == m { print $2 }' "$mods/modules.dep"); do
		add_module "$dep"
	done
	mkdir -p "$stage/lib/modules/$kver/$(dirname "$path")"
	case $path in
	*.ko.xz)	# 6.12's modules: unpacked, busybox insmod wants plain ELF
		xz -dc "$mods/$path" >"$stage/lib/modules/$kver/${path%.xz}"
		echo "${path%.xz}" >>"$stage/etc/modules.load" ;;
	*)
		cp "$mods/$path" "$stage/lib/modules/$kver/$path"
		echo "$path" >>"$stage/etc/modules.load" ;;
	esac
}
if [ -f "$mods/modules.dep" ]; then
	while read -r name; do
		case "$name" in ''|'#'*) continue ;; esac
		path=$(awk -F: -v n="$name" '{
			f = $1; sub(".*/", "", f); sub("\\.ko.*$", "", f)
			gsub("-", "_", f); m = n; gsub("-", "_", m)
			if (f == m) { print $1; exit }
		}' "$mods/modules.dep")
		[ -n "$path" ] && add_module "$path"
	done <"$top/initramfs/modules.list"
fi

[ -f "$ko" ] || { echo "mkinitramfs.sh: $ko missing (make module)" >&2; exit 1; }
strip --strip-debug -o "$stage/lib/ext2hole.ko" "$ko"
[ -f "$stock" ] && strip --strip-debug -o "$stage/lib/ext2stock.ko" "$stock"

# e2fsprogs and any extra binaries, with their shared libraries.
copy_bin() {
	local bin=$1 lib
	[ -x "$bin" ] || return 0
	cp "$bin" "$stage/sbin/"
	for lib in $(ldd "$bin" 2>/dev/null | grep -o '/[^ ]*'); do
		mkdir -p "$stage$(dirname "$lib")"
		cp -L "$lib" "$stage$lib"
	done
}
for list in "$top/initramfs/bins.list" "$top/initramfs/extra-bins.list"; do
	[ -f "$list" ] || continue
	while read -r b; do
		case "$b" in ''|'#'*) continue ;; esac
		copy_bin "$b"
	done <"$list"
done

for b in "$build"/tests/bin/*; do
	[ -f "$b" ] || continue
	strip --strip-debug -o "$stage/tests/bin/${b##*/}" "$b" 2>/dev/null ||
		cp "$b" "$stage/tests/bin/"
done
cp "$top"/tests/suites/*.guest "$stage/tests/suites/" 2>/dev/null || true
# The fstests lane's guest side (scripts/fstests.sh), run as suite "fstests".
cp "$top"/tests/fstests/*.guest "$stage/tests/suites/" 2>/dev/null || true
cp "$top/tests/lib.sh" "$stage/tests/lib.sh"

(cd "$stage" && find . | cpio -o -H newc --quiet) >"$out.tmp"
mv "$out.tmp" "$out"
