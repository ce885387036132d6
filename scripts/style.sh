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
# shellcheck disable=SC2046
perl "$cache/scripts/checkpatch.pl" --no-tree --terse --show-types \
	--ignore SPDX_LICENSE_TAG,FILE_PATH_CHANGES -f $(ls src/*.c include/*.h) || bad=1
echo "== make W=1 C=2 (sparse)"
make -s -C "$kdir" M="$top" clean >/dev/null
out=$(make -s -C "$kdir" M="$top" W=1 C=2 modules 2>&1 | grep -v '^\s*$' | grep -v 'Skipping BTF generation' || true)
if [ -n "$out" ]; then
	echo "$out"
	bad=1
fi
[ $bad = 0 ] && echo "style: clean"
exit $bad
