#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run one suite: prepare its images on the host, boot the guest on them,
# collect the RESULT lines, e2fsck every disk, scan the kernel log.
#   usage: run-suite.sh NAME INITRD
# A suite with no NAME.guest is host-only: its checks are the host_pass /
# host_fail calls of prepare and verify, and no guest boots.
# Prints PASS:/FAIL:/SKIP: and INFO lines; writes "passed failed skipped"
# to $RESULTS/NAME.counts.  Exit 1 on any failure.
set -euo pipefail

SUITE=$1
initrd=$2
TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
KVER=$("$TOP/scripts/kver.sh")
HOSTBIN=$BUILD/tests/hostbin
RESULTS=${EXT2HOLE_RESULTS:-$TOP/results}
# Each run has its own work dir, so concurrent runs never share images.
WORK=$BUILD/work/${EXT2HOLE_RUN_ID:-$$}/$SUITE
log=$WORK/console.log
RES_FILE=$WORK/results
EXT2HOLE_INITRD=$initrd
export SUITE TOP BUILD KVER HOSTBIN WORK RES_FILE EXT2HOLE_INITRD

rm -rf "$WORK"
mkdir -p "$WORK/in" "$WORK/out" "$RESULTS"
: >"$RES_FILE"
# shellcheck source=tests/host-lib.sh
source "$TOP/tests/host-lib.sh"

# The suite's host side runs in its own bash so that `set -e` holds inside
# prepare and verify; prepare hands its variables back through a file.
suite_bash() {	# suite_bash FUNCTION
	bash -c 'set -euo pipefail
		source "$TOP/tests/host-lib.sh"
		DISKS=(); FSCK_SKIP=(); TIMEOUT=300; APPEND=""
		source "$TOP/tests/suites/$SUITE.host"
		[ -f "$WORK/.vars" ] && source "$WORK/.vars"
		cd "$WORK"
		if [ "$1" = prepare ]; then
			prepare
			declare -p DISKS FSCK_SKIP TIMEOUT APPEND >"$WORK/.vars"
		elif declare -F verify >/dev/null; then
			verify
		fi' suite_bash "$1"
}

guest_ok=0
if ! suite_bash prepare >"$WORK/prepare.log" 2>&1; then
	record FAIL prepare "host-side prepare failed: $(tail -n 5 "$WORK/prepare.log" | tr '\n' ' ')"
elif [ ! -f "$TOP/tests/suites/$SUITE.guest" ]; then
	# A suite without a .guest is host-only: prepare (and verify) make
	# its checks with host_pass/host_fail; no guest boots.  Their output
	# (INFO lines too) stands in for the console log.
	suite_bash verify >>"$WORK/verify.log" 2>&1 ||
		record FAIL verify "host-side verify failed: $(tail -n 3 "$WORK/verify.log" | tr '\n' ' ')"
	cat "$WORK/prepare.log" "$WORK/verify.log" >"$log" 2>/dev/null || true
else
	# shellcheck source=/dev/null
	source "$WORK/.vars"
	timeout=$((TIMEOUT * ${EXT2HOLE_TIMEOUT_SCALE:-1}))
	(cd "$WORK/in" && tar -cf "$WORK/in.tar" .)
	rm -f "$WORK/out.img"
	truncate -s 256M "$WORK/out.img"
	dargs=()
	for d in "${DISKS[@]}"; do dargs+=(-d "$d"); done
	start=$(date +%s)
	for attempt in 1 2; do
		rc=0
		"$TOP/scripts/run-guest.sh" -i "$initrd" -l "$log" -t "$timeout" \
			-a "ext2hole.suite=$SUITE ext2hole.ndisks=${#DISKS[@]} $APPEND" \
			"${dargs[@]}" -d "$WORK/in.tar" -d "$WORK/out.img" || rc=$?
		# One more boot only when the kernel died before the suite began
		# and before ext2hole was loaded (no disk was mounted yet): TCG
		# occasionally breaks 6.12's early text patching ("Oops: int3").
		if [ $attempt = 2 ] || ! early_guest_death "$log"; then
			break
		fi
		mv "$log" "$log.boot1"
		echo "INFO $SUITE: the guest kernel died before the suite began, without ext2hole loaded; booted again (first console: $log.boot1)"
		truncate -s 0 "$WORK/out.img"
		truncate -s 256M "$WORK/out.img"
	done
	secs=$(($(date +%s) - start))
	tar -xf "$WORK/out.img" -C "$WORK/out" 2>/dev/null || true

	tr -d '\r\0' <"$log" | sed -n 's/^RESULT \(PASS\|FAIL\|SKIP\) /\1 /p' |
	while read -r st name rest; do
		record "$st" "$name" "$rest"
	done
	if ! tr -d '\r\0' <"$log" | grep -aq "^EXT2HOLE-SUITE-END $SUITE"; then
		if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
			record FAIL guest "guest hung: killed after ${timeout}s"
		else
			record FAIL guest "guest did not finish the suite (qemu rc=$rc, ${secs}s)"
		fi
	else
		guest_ok=1
		# A guest script that stopped halfway must not pass by silence.
		grc=$(tr -d '\r\0' <"$log" | sed -n 's/^EXT2HOLE-SUITE-RC //p' | tail -n 1)
		if [ "${grc:-x}" != 0 ]; then
			record FAIL guest-script "the guest script ended with status ${grc:-unknown}"
		fi
	fi
	# Kernel splats fail the suite, on the console or in dmesg (host-lib.sh).
	splat=$( (console_kernel_lines "$log"
		  cat "$WORK/out/dmesg.txt" 2>/dev/null) | untolerated_lines |
		kcsan_controls_out | kernel_splats)
	tolerated=$( (console_kernel_lines "$log"
		      cat "$WORK/out/dmesg.txt" 2>/dev/null) | tolerated_lines |
		    grep -aE "$SPLAT_PAT" | grep -avE "$SPLAT_IGNORE" |
		    sed 's/^\[ *[0-9.]*\] //' | sort -u | head -n 6 || true)
	known=$( (console_kernel_lines "$log"
		  cat "$WORK/out/dmesg.txt" 2>/dev/null) | known_races | tr '\n' ';')
	if [ -n "$known" ]; then
		echo "INFO $SUITE/kernel-log: KCSAN, known races inside the core kernel (tests/kcsan-known): $known"
	fi
	known=$( (console_kernel_lines "$log"
		  cat "$WORK/out/dmesg.txt" 2>/dev/null) | kcsan_control_races | tr '\n' ';')
	if [ -n "$known" ]; then
		echo "INFO $SUITE/kernel-log: KCSAN, a control driver's own races (ext2stock, the ext4 driver): $known"
	fi
	if [ -n "$tolerated" ]; then
		echo "INFO $SUITE/kernel-log: tolerated (a control target's own reports, not a failure): $(echo "$tolerated" | tr '\n' ' ' | cut -c1-400)"
	fi
	if [ -s "$WORK/out/kmemleak.txt" ]; then
		splat="$splat kmemleak: $(head -n 3 "$WORK/out/kmemleak.txt" | tr '\n' ' ')"
	fi
	if [ -n "$splat" ]; then
		record FAIL kernel-log "$(echo "$splat" | tr '\n' ' ' | cut -c1-400)"
	else
		record PASS kernel-log "clean (${secs}s)"
	fi
	# e2fsck -fn on every disk that is not corrupt on purpose.
	for d in "${DISKS[@]}"; do
		skipd=0
		for s in "${FSCK_SKIP[@]}"; do [ "$s" = "$d" ] && skipd=1; done
		[ $skipd = 1 ] && continue
		if out=$(e2fsck -fn "$d" 2>&1); then
			record PASS "e2fsck:$(basename "$d")"
		else
			record FAIL "e2fsck:$(basename "$d")" "$(echo "$out" | grep -v '^Pass\|^e2fsck\|^$' | head -n 4 | tr '\n' ' ')"
		fi
	done
	if [ $guest_ok = 1 ]; then
		suite_bash verify >>"$WORK/verify.log" 2>&1 ||
			record FAIL verify "host-side verify failed: $(tail -n 3 "$WORK/verify.log" | tr '\n' ' ')"
	fi
fi

tr -d '\r\0' <"$log" 2>/dev/null | grep -a '^INFO ' || true
if [ ! -s "$RES_FILE" ]; then
	record FAIL results "the suite printed no RESULT line"
fi
p=$(grep -c '^PASS ' "$RES_FILE" || true)
f=$(grep -c '^FAIL ' "$RES_FILE" || true)
s=$(grep -c '^SKIP ' "$RES_FILE" || true)
sed -e 's/^\(PASS\|FAIL\|SKIP\) /\1: /' "$RES_FILE"
cp "$log" "$RESULTS/$SUITE.log" 2>/dev/null || true
cp "$WORK/out/dmesg.txt" "$RESULTS/$SUITE.dmesg" 2>/dev/null || true
cp "$RES_FILE" "$RESULTS/$SUITE.results"
echo "COUNTS $p $f $s"
[ "$f" = 0 ]
