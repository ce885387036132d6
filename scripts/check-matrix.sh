#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check-matrix: for the newest packaged release of each supported
# series, one after the other: a W=1 build of the module against its
# headers (any warning is a failure), then the whole suite (make check)
# with its own results directory (results/matrix/<series>/).  Prints one
# line per series and then the total, the last line "N passed, N failed".
#   usage: scripts/check-matrix.sh [SERIES...]     (default: 6.1 6.12)
# EXT2HOLE_MATRIX_BUILD_ONLY="6.1": series that get the W=1 build only (CI
# runs the 6.1 suite as plain make check before this).
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP"
BUILD=${BUILD:-$TOP/build}
series=("$@")
[ ${#series[@]} -gt 0 ] || series=(6.1 6.12)
mkdir -p "$BUILD"

tp=0 tf=0 lines=()
for s in "${series[@]}"; do
	kver=$(env -u KVER KSERIES="$s" scripts/kver.sh) || {
		lines+=("$s: no packaged release found: 0 passed, 1 failed")
		tf=$((tf + 1))
		continue
	}
	log=$BUILD/matrix-$s.log
	echo "=== check-matrix: $s ($kver), log $log"
	t0=$(date +%s)
	KVER=$kver scripts/deps.sh
	wdir=$BUILD/matrix-w1-$s
	rm -rf "$wdir"
	mkdir -p "$wdir/src" "$wdir/include"
	cp Kbuild "$wdir/"
	cp src/*.c "$wdir/src/"
	cp include/*.h "$wdir/include/"
	w1=$(make -s -C "/usr/src/linux-headers-$kver" M="$wdir" W=1 modules 2>&1 |
		grep -v 'Skipping BTF' | grep -E 'warning|error' || true)
	if [ -n "$w1" ]; then
		echo "$w1"
		lines+=("$s ($kver): W=1 build: $(echo "$w1" | wc -l) warnings/errors")
		tf=$((tf + 1))
	else
		lines+=("$s ($kver): W=1 build clean")
	fi
	case " ${EXT2HOLE_MATRIX_BUILD_ONLY:-} " in
	*" $s "*)
		lines+=("$s ($kver): suite not run here (EXT2HOLE_MATRIX_BUILD_ONLY)")
		continue ;;
	esac
	rc=0
	# KDIR and KVER on the command line: an outer make exports its own.
	EXT2HOLE_RESULTS=$TOP/results/matrix/$s EXT2HOLE_RUN_ID=matrix-$s \
		make -s KVER="$kver" KDIR="/usr/src/linux-headers-$kver" check \
		2>&1 | tee "$log" || rc=$?
	secs=$(($(date +%s) - t0))
	p='' f='' k=''
	read -r p f k < <(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped$/\1 \2 \3/p' \
		"$log" | tail -n 1) || true
	if [ -z "$p" ]; then p=0 f=1 k=0; fi
	[ "$rc" != 0 ] && [ "$f" = 0 ] && f=1
	lines+=("$s ($kver, $((secs / 60))m$((secs % 60))s): $p passed, $f failed, $k skipped")
	tp=$((tp + p)) tf=$((tf + f))
done
echo "=== check-matrix"
for l in "${lines[@]}"; do echo "$l"; done
echo "$tp passed, $tf failed"
[ "$tf" = 0 ] && [ "$tp" -gt 0 ]
