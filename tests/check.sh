#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run the suites of tests/suites.list (or those named) in QEMU guests and
# end with the line "N passed, N failed".  Exit 1 on any failure.
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tests/host-lib.sh
source "$TOP/tests/host-lib.sh"
run_env run

if [ $# -gt 0 ]; then
	suites=("$@")
else
	mapfile -t suites < <(grep -v '^\s*\(#\|$\)' tests/suites.list)
fi

live=${EXT2HOLE_LIVE:-}
if [ -z "$live" ]; then
	if [ -t 1 ]; then live=1; else live=0; fi
fi

start=$(date +%s)
echo "check.sh: kernel image ${KVER:-$(scripts/kver.sh)} (fetched once, cached under /var/cache/ext2hole/kernel)"
scripts/fetch-kernel.sh >/dev/null
if [ -z "${EXT2HOLE_STOCK_KO:-}" ]; then
	echo "check.sh: ext2stock baseline module (built once from linux-source, a few minutes; cached)"
	scripts/build-baseline.sh >/dev/null ||
		echo "check.sh: baseline ext2stock did not build; stock targets will be skipped" >&2
fi
# Old runs' images go; this run's stay for inspection.
find "$BUILD/work" -mindepth 1 -maxdepth 1 -mmin +120 -exec rm -rf {} + 2>/dev/null || true
rm -rf "$BUILD/work/$EXT2HOLE_RUN_ID"
mkdir -p "$BUILD/work/$EXT2HOLE_RUN_ID"
initrd=$BUILD/work/$EXT2HOLE_RUN_ID/initramfs.cpio
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
	sout=$BUILD/work/$EXT2HOLE_RUN_ID/$s.out
	# Live progress: the guest's RESULT lines as it prints them (on a
	# terminal, or with EXT2HOLE_LIVE=1); the verdicts that count, with the
	# host's e2fsck and kernel-log checks, follow when the suite ends.
	livepid=''
	if [ "$live" = 1 ]; then
		clog=$BUILD/work/$EXT2HOLE_RUN_ID/$s/console.log
		(tail -n +1 -F "$clog" 2>/dev/null |
		 sed -un 's/\r//g; s/^RESULT \(PASS\|FAIL\|SKIP\) \([^ ]*\).*/  [guest] \1 \2/p') 2>/dev/null &
		livepid=$!
	fi
	tests/run-suite.sh "$s" "$initrd" >"$sout" 2>&1 || true
	if [ -n "$livepid" ]; then
		pkill -P "$livepid" tail 2>/dev/null || true
		{ wait "$livepid"; } 2>/dev/null || true
	fi
	grep -av '^COUNTS ' "$sout" || true
	p='' f='' k=''
	read -r p f k < <(sed -n 's/^COUNTS //p' "$sout" | tail -n 1) || true
	if [ -z "${p:-}" ]; then p=0 f=1 k=0; echo "FAIL: $s (runner crashed)"; fi
	echo "=== suite $s: $p passed, $f failed, $k skipped ($(($(date +%s) - t0))s)"
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + k))
done
echo "make check: $(($(date +%s) - start))s; logs in $RESULTS/"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ] && [ "$passed" -gt 0 ]
