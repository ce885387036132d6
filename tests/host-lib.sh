# SPDX-License-Identifier: GPL-2.0
# Host-side helpers for tests/suites/*.host (sourced by tests/run-suite.sh)
# and for the scripts that run suites (tests/check.sh, scripts/bench.sh).
# RES_FILE and SUITE come from the runner.

# run_env PREFIX: in TOP, the run's BUILD, RESULTS and EXT2HOLE_RUN_ID
# (PREFIX and the shell's pid unless set), exported for tests/run-suite.sh.
run_env() {
	cd "$TOP" || return
	BUILD=${BUILD:-$TOP/build}
	RESULTS=${EXT2HOLE_RESULTS:-$TOP/results}
	EXT2HOLE_RUN_ID=${EXT2HOLE_RUN_ID:-$1$$}
	export BUILD EXT2HOLE_RESULTS=$RESULTS EXT2HOLE_RUN_ID
}

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

# Kernel reports that fail a test, and the debug kernel's boot banners of
# its checkers, which are not reports (EXT2HOLE_SPLAT_IGNORE overrides).
SPLAT_PAT='WARNING:|BUG:|Oops|Call Trace|hung_task|blocked for more than|KASAN|lockdep|possible circular locking|possible recursive locking|suspected memory leak|general protection fault|Kernel panic'
SPLAT_IGNORE=${EXT2HOLE_SPLAT_IGNORE:-'Lock dependency validator|RCU lockdep checking is enabled|lockdep: .*(table|MAX_|classes)|KASAN: .*(initialized|enabled)|kmemleak: Kernel memory leak detector'}

# KCSAN's reports of races inside the core kernel (tests/kcsan-known): a
# regular expression matching their "data-race in A / B" lines, either
# order, or "data-race in A+off/len" for an entry of one function; one
# that matches nothing when the list is empty.
KCSAN_KNOWN=${EXT2HOLE_KCSAN_KNOWN:-$(dirname "${BASH_SOURCE[0]}")/kcsan-known}
known_race_re() {
	local pair a b re=
	while IFS=$'\t' read -r pair _; do
		case $pair in '#'* | '') continue ;; esac
		a=${pair%% / *} b=${pair##* / }
		a=${a//./\\.} b=${b//./\\.}
		a=${a//\[/\\[} b=${b//\[/\\[}
		a=${a//\]/\\]} b=${b//\]/\\]}
		if [ "$a" = "$pair" ]; then
			# one function: a race at unknown origin (a device's write)
			re="$re${re:+|}data-race in $a(\\+0x[0-9a-f]+/0x[0-9a-f]+)?\$"
		else
			re="$re${re:+|}data-race in ($a / $b|$b / $a)\$"
		fi
	done <"$KCSAN_KNOWN"
	echo "${re:-^\$.}"
}
KCSAN_KNOWN_RE=$( [ -r "$KCSAN_KNOWN" ] && known_race_re || echo '^$.')

# kernel_splats < LINES: the reports among kernel log LINES (at most 5),
# leaving out the banners and the known kernel-internal races.
kernel_splats() {
	grep -aE "$SPLAT_PAT" | grep -avE "$SPLAT_IGNORE" |
		grep -avE "$KCSAN_KNOWN_RE" | head -n 5 || true
}

# KCSAN reports of a control driver: a report (from its "BUG: KCSAN:" line
# to the closing "=====" line) whose stacks name ext2stock's or the ext4
# driver's functions, or iomap's direct I/O (the ext4 driver's; ext2hole
# does its direct I/O through blockdev_direct_IO()), and no ext2hole
# function is the control's own race, not ext2hole's.  kcsan_controls_out < LINES drops those reports;
# kcsan_control_races < LINES prints their "BUG: KCSAN:" lines.
kcsan_control_awk='
	function flush(ctl) {
		ctl = blk ~ /\[ext2stock\]| ext4_[a-z_]+\+0x|iomap_dio_/ &&
			blk !~ /\[ext2hole\]/
		if (ctl == want) printf "%s", blk
		blk = ""; on = 0
	}
	/BUG: KCSAN:/ { if (on) flush(); on = 1; blk = $0 "\n"; next }
	on { blk = blk $0 "\n"; if ($0 ~ /====================/) flush(); next }
	!want { print }
	END { if (on) flush() }'
kcsan_controls_out() { awk -v want=0 "$kcsan_control_awk"; }
kcsan_control_races() {
	awk -v want=1 "$kcsan_control_awk" | grep -ao 'BUG: KCSAN: .*' | sort -u || true
}

# known_races < LINES: the known kernel-internal races among LINES, once each
known_races() {
	grep -aoE "$KCSAN_KNOWN_RE" | sort -u || true
}

# The guest's markers (splats_tolerated / splats_end in tests/lib.sh, in
# the kernel log through /dev/kmsg) around a stock driver's run that may
# WARN on purpose (a control target under I/O errors): the kernel lines
# between them are its reports, shown as INFO rather than failures.
# untolerated_lines / tolerated_lines < LINES: the lines outside / inside.
untolerated_lines() {
	awk '/ext2hole-test: splats tolerated:/ { t = 1; next }
	     /ext2hole-test: splats end/ { t = 0; next } !t'
}
tolerated_lines() {
	awk '/ext2hole-test: splats tolerated:/ { t = 1; next }
	     /ext2hole-test: splats end/ { t = 0; next } t'
}

# console_kernel_lines LOG: the kernel's (timestamped) lines of a console log
console_kernel_lines() {
	tr -d '\r\0' <"$1" | grep -aE '^\[ *[0-9]+\.[0-9]+\]' || true
}

# early_guest_death LOG: true when the guest kernel panicked before /init
# began the suite and before ext2hole.ko was loaded (no module list of the
# report names it), i.e. nothing of the project had run yet.
early_guest_death() {
	local text
	text=$(tr -d '\r\0' <"$1")
	grep -aq '^EXT2HOLE-SUITE-BEGIN ' <<<"$text" && return 1
	grep -aq 'Kernel panic' <<<"$text" || return 1
	! grep -a 'Modules linked in:' <<<"$text" | grep -q 'ext2hole'
}
