# SPDX-License-Identifier: GPL-2.0
# Host-side helpers for tests/suites/*.host (sourced by tests/run-suite.sh).
# RES_FILE and SUITE come from the runner.

record() {	# record STATUS NAME TEXT...
	local st=$1 name=$2
	shift 2
	case "$name" in "$SUITE"/*|"$SUITE") ;; *) name=$SUITE/$name ;; esac
	echo "$st $name $*" >>"$RES_FILE"
}
host_pass() { record PASS "$@"; }
host_fail() { record FAIL "$@"; }
host_skip() { record SKIP "$@"; }

# mkimg FILE SIZE [mke2fs options...]: a fresh ext2 image (1 KiB blocks unless -b given).
mkimg() {
	local f=$1 size=$2
	shift 2
	rm -f "$f"
	truncate -s "$size" "$f"
	mke2fs -q -F -t ext2 "$@" "$f"
}
