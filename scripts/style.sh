#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The kernel-style gates: checkpatch (from the packaged linux-source),
# make W=1 and sparse (make C=2).  Prints what each finds; exit 1 if any.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
EXT2HOLE_EXTRA_PKGS=sparse scripts/deps.sh
# shellcheck source=scripts/kernel-lib.sh
source scripts/kernel-lib.sh
kver=$(scripts/kver.sh)
kdir=${KDIR:-/usr/src/linux-headers-$kver}
series=$(kseries "$kver")
# checkpatch from the source of KVER's series (6.1's cache keeps its old name)
cache=${EXT2HOLE_CACHE:-/var/cache/ext2hole}/checkpatch
[ "$series" = 6.1 ] || cache=$cache-$series
if [ ! -x "$cache/scripts/checkpatch.pl" ]; then
	mkdir -p "$cache"
	tar -xJf "$(ksource "$kver")" -C "$cache" --strip-components=1 \
		"linux-source-$series/scripts/checkpatch.pl" \
		"linux-source-$series/scripts/spelling.txt" \
		"linux-source-$series/scripts/const_structs.checkpatch"
fi
bad=0
echo "== checkpatch"
# Two warnings are waived, each in the one file where it cannot apply:
#  - include/compat.h is where an out-of-tree module has to read the
#    version it is built for (LINUX_VERSION_CODE against KERNEL_VERSION(),
#    both constants, so CONSTANT_COMPARISON too);
#  - src/super.c's ext2hole_msg() prints at the KERN_* level its caller
#    passes, as "%s" (PRINTK_WITHOUT_KERN_LEVEL cannot see it).
cp=(perl "$cache/scripts/checkpatch.pl" --no-tree --terse --show-types)
ign=SPDX_LICENSE_TAG,FILE_PATH_CHANGES
for f in src/*.c include/*.h; do
	case $f in
	include/compat.h) extra=,LINUX_VERSION_CODE,CONSTANT_COMPARISON ;;
	src/super.c) extra=,PRINTK_WITHOUT_KERN_LEVEL ;;
	*) extra= ;;
	esac
	"${cp[@]}" --ignore "$ign$extra" -f "$f" || bad=1
done
echo "== make W=1 C=2 (sparse)"
make -s -C "$kdir" M="$top" clean >/dev/null
out=$(make -s -C "$kdir" M="$top" W=1 C=2 modules 2>&1 | grep -v '^\s*$' | grep -v 'Skipping BTF generation' || true)
if [ -n "$out" ]; then
	echo "$out"
	bad=1
fi
[ $bad = 0 ] && echo "style: clean"
exit $bad
