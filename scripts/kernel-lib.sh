#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Sourced by the scripts: what a packaged kernel release belongs to.
#   kseries KVER      6.1 or 6.12 (the series include/compat.h supports)
#   kpkgver KVER      the Debian version of linux-headers-KVER (= of its
#                     linux-image and of the matching linux-source-SERIES)
#   ksource KVER      the path of linux-source-SERIES.tar.xz of that same
#                     version: /usr/src's when the installed package matches,
#                     else downloaded (apt-get download) into
#                     /var/cache/ext2hole/source/<version>/
# The tarball's top directory is linux-source-SERIES.

kseries() {
	case $1 in
	6.1.0-*-amd64) echo 6.1 ;;
	6.12.*+deb12-amd64) echo 6.12 ;;
	*) echo "kernel-lib: $1 is not a packaged 6.1.0-* or 6.12.*+deb12 amd64 release" >&2
	   return 1 ;;
	esac
}

kpkgver() {
	local v
	v=$(dpkg-query -W -f='${Version}' "linux-headers-$1" 2>/dev/null || true)
	[ -n "$v" ] || v=$(apt-cache show --no-all-versions "linux-headers-$1" 2>/dev/null |
		sed -n 's/^Version: //p' | head -n 1)
	[ -n "$v" ] || { echo "kernel-lib: no package linux-headers-$1" >&2; return 1; }
	echo "$v"
}

ksource() {
	local series ver have dir deb
	series=$(kseries "$1") || return 1
	ver=$(kpkgver "$1") || return 1
	have=$(dpkg-query -W -f='${Version}' "linux-source-$series" 2>/dev/null || true)
	if [ "$have" = "$ver" ] && [ -f "/usr/src/linux-source-$series.tar.xz" ]; then
		echo "/usr/src/linux-source-$series.tar.xz"
		return 0
	fi
	dir=${EXT2HOLE_CACHE:-/var/cache/ext2hole}/source/$ver
	if [ ! -f "$dir/linux-source-$series.tar.xz" ]; then
		mkdir -p "$dir"
		(cd "$dir" && rm -f ./*.deb &&
		 apt-get download "linux-source-$series=$ver" >/dev/null 2>&1) || {
			echo "kernel-lib: cannot download linux-source-$series=$ver" >&2
			return 1
		}
		deb=$(ls "$dir"/*.deb)
		dpkg-deb --fsys-tarfile "$deb" |
			tar -xf - -O "./usr/src/linux-source-$series.tar.xz" \
			>"$dir/linux-source-$series.tar.xz.tmp"
		mv "$dir/linux-source-$series.tar.xz.tmp" "$dir/linux-source-$series.tar.xz"
		rm -f "$deb"
	fi
	echo "$dir/linux-source-$series.tar.xz"
}
