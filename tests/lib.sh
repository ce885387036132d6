# SPDX-License-Identifier: GPL-2.0
# Guest-side helpers for tests/suites/*.guest (busybox sh).

pass() { local n=$1; shift; echo "RESULT PASS $n $*"; }
fail() { local n=$1; shift; echo "RESULT FAIL $n ${*:-failed}"; }
skip() { local n=$1; shift; echo "RESULT SKIP $n $*"; }
info() { echo "INFO $*"; }

# check NAME cmd...: PASS when the command exits 0.
check() {
	local n=$1 out
	shift
	if out=$("$@" 2>&1); then
		pass "$n"
	else
		fail "$n" "exit $?: $(echo "$out" | tail -n 3 | tr '\n' ' ')"
	fi
}

# expect_fail NAME cmd...: PASS when the command fails.
expect_fail() {
	local n=$1 out
	shift
	if out=$("$@" 2>&1); then
		fail "$n" "succeeded unexpectedly: $(echo "$out" | tail -n 2 | tr '\n' ' ')"
	else
		pass "$n"
	fi
}

# fsck_dev DEV: e2fsck -fn on an unmounted device; prints the output on failure.
fsck_dev() {
	local out
	if out=$(e2fsck -fn "$1" 2>&1); then
		return 0
	fi
	echo "$out" | tail -n 20
	return 1
}

# have_fs TYPE: the filesystem type is registered in the guest.
have_fs() { grep -qw "$1" /proc/filesystems; }

# dev_name DEV: /dev/vdb -> vdb (the name in ext2hole's log lines and sysfs).
dev_name() { basename "$1"; }

drop_caches() { sync; echo 3 >/proc/sys/vm/drop_caches; }

# do_mount TYPE OPTS DEV: mount DEV on $M, with -o OPTS unless OPTS is empty.
do_mount() {
	if [ -n "$2" ]; then mount -t "$1" -o "$2" "$3" "$M"; else mount -t "$1" "$3" "$M"; fi
}

# verdict TGT NAME RC DETAIL [AGREES]: test NAME of suite $S, run on target
# TGT, held when RC is 0.  On ext2hole it is a result, $S/NAME PASS or FAIL
# with DETAIL; on a control target (a stock driver) it is an INFO line,
# "$S/NAME/TGT: AGREES (DETAIL)" (AGREES is "ok" unless given; no
# parentheses when DETAIL is empty) or "$S/NAME/TGT: differs: DETAIL".
verdict() {
	case $1 in
	ext2hole) if [ "$3" = 0 ]; then pass "$S/$2" "$4"; else fail "$S/$2" "$4"; fi ;;
	*) if [ "$3" = 0 ]; then info "$S/$2/$1: ${5:-ok}${4:+ ($4)}"; else info "$S/$2/$1: differs: $4"; fi ;;
	esac
}

# splats_tolerated REASON / splats_end: around a control target (a stock
# driver) that may WARN under the scenario's I/O errors: its kernel reports
# become INFO lines instead of failing the suite (tests/host-lib.sh).
# Nothing of ext2hole may run in between.
splats_tolerated() { echo "ext2hole-test: splats tolerated: $*" >/dev/kmsg; }
splats_end() { echo "ext2hole-test: splats end" >/dev/kmsg; }
