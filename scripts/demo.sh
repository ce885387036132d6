#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make run`: boot Debian's packaged kernel in QEMU, mount a 1 KiB-block
# ext2 image with ext2hole, and show the guarantees against stock ext2.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
build=${BUILD:-$top/build}
export EXT2HOLE_RUN_ID=demo
scripts/fetch-kernel.sh >/dev/null
scripts/build-baseline.sh >/dev/null || echo "demo: baseline ext2stock did not build; its column shows n/a" >&2
mkdir -p "$build/work/demo"
initrd=$build/work/demo/initramfs.cpio
scripts/mkinitramfs.sh "$initrd"
echo "Booting $(scripts/kver.sh) under QEMU (TCG); this takes a minute or two..."
out=$build/work/demo/demo.out
rc=0
tests/run-suite.sh demo "$initrd" >"$out" 2>&1 || rc=$?
sed -n 's/^INFO //p' "$out"
echo
# grep -c exits 1 when it counts nothing: that is the case to report
npass=$(grep -c '^PASS: ' "$out" || true)
echo "$npass checks passed"
if grep -q '^FAIL: ' "$out"; then
	grep '^FAIL: ' "$out"
	echo "demo: some checks failed; console log: results/demo.log" >&2
fi
exit "$rc"
