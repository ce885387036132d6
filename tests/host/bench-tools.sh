# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# bench_tools_img OUT: a read-only ext2 image holding Debian's fio with its
# shared libraries (bin/fio, lib/*), for the bench suites.  fio needs about
# 80 MiB of libraries, so it rides on a disk of its own instead of the
# initramfs every suite boots.  The guest runs it through the image's own
# loader: lib/ld-linux-x86-64.so.2 --library-path lib bin/fio.
# The image is cached in $BUILD/bench, keyed by fio's package version.
bench_tools_img() {
	local out=$1 fio ver cache stage lib kib
	fio=$(command -v fio) || { echo "bench-tools: fio is not installed (make deps)" >&2; return 1; }
	ver=$(dpkg-query -W -f='${Version}' fio 2>/dev/null || "$fio" --version)
	cache=$BUILD/bench/tools-$ver.img
	if [ ! -f "$cache" ]; then
		mkdir -p "$BUILD/bench"
		stage=$(mktemp -d "$BUILD/bench/stage.XXXXXX")
		mkdir -p "$stage/bin" "$stage/lib"
		cp -L "$fio" "$stage/bin/fio"
		for lib in $(ldd "$fio" | grep -o '/[^ ]*'); do
			cp -L "$lib" "$stage/lib/$(basename "$lib")"
		done
		kib=$(du -sk "$stage" | cut -f1)
		rm -f "$cache.tmp"
		truncate -s "$((kib * 5 / 4 + 8192))K" "$cache.tmp"
		mke2fs -q -F -t ext2 -b 4096 -d "$stage" "$cache.tmp"
		rm -rf "$stage"
		mv "$cache.tmp" "$cache"
	fi
	cp --sparse=always "$cache" "$out"
}
