#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run the suites of tests/suites.list (or those named) in QEMU guests and
# end with the line "N passed, N failed".  Exit 1 on any failure.
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP"
BUILD=${BUILD:-$TOP/build}
RESULTS=${EXT2HOLE_RESULTS:-$TOP/results}
export BUILD EXT2HOLE_RESULTS=$RESULTS

if [ $# -gt 0 ]; then
	suites=("$@")
else
	mapfile -t suites < <(grep -v '^\s*\(#\|$\)' tests/suites.list)
fi

start=$(date +%s)
scripts/fetch-kernel.sh >/dev/null
if [ -z "${EXT2HOLE_STOCK_KO:-}" ]; then
	scripts/build-baseline.sh >/dev/null ||
		echo "check.sh: baseline ext2stock did not build; stock targets will be skipped" >&2
fi
initrd=$BUILD/initramfs.cpio.gz
scripts/mkinitramfs.sh "$initrd"

mkdir -p "$RESULTS"
passed=0 failed=0 skipped=0
for s in "${suites[@]}"; do
	if [ ! -f "tests/suites/$s.host" ]; then
		echo "FAIL: $s (no tests/suites/$s.host)"
		failed=$((failed + 1))
		continue
	fi
	echo "=== suite $s"
	t0=$(date +%s)
	tests/run-suite.sh "$s" "$initrd" || true
	read -r p f k <"$RESULTS/$s.counts"
	echo "=== suite $s: $p passed, $f failed, $k skipped ($(($(date +%s) - t0))s)"
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + k))
done
echo "make check: $(($(date +%s) - start))s; logs in $RESULTS/"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ] && [ "$passed" -gt 0 ]
