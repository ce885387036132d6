#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make fstests / fstests-full / fstests-ci: the public fstests suite in
# QEMU guests booted from the packaged kernel, one lane per driver setup:
#
#   alloc    ext2hole, -o mkwrite=alloc,acl,user_xattr (the default policy)
#   noalloc  ext2hole, -o mkwrite=noalloc,acl,user_xattr
#   ext4     the ext4 driver mounting the same kind of image (-t ext2): the reference
#   ext2stock  stock fs/ext2 of the same kernel's source, built as module
#            ext2stock (scripts/build-baseline.sh), -o acl,user_xattr: the
#            second control (not in the default lanes)
#
# TEST (/dev/vdb) and SCRATCH (/dev/vdc) are 1 KiB-block ext2 (mke2fs -t ext2
# -b 1024); fstests runs with FSTYP=ext2 and, in the ext2hole lanes, mount(8)
# hands every ext2 mount to /sbin/mount.ext2 (tests/fstests/mount.ext2), which
# mounts it as ext2hole (ext2stock in that lane).  Each lane proves it:
# every TEST/SCRATCH mount in the helper's log says the lane's type in
# /proc/mounts and the kernel log has no ext4 mount of vdb/vdc (the ext4
# lane: the reverse).
#
# The project's own tests in fstests' format, tests/fstests/local/NNN
# (run as local/NNN), go into the fstests tree of every lane, with the
# test programs they call (tests/prog, built by make tests) in its src/;
# the full and ci selections include them.
#
#   scripts/fstests.sh [-s default|ci|full] [-l "alloc noalloc ext4"] [-S I/N|all/N] [-R] [TEST...]
#
# -R makes the summaries again from results/fstests/ without booting.
# -S I/N runs shard I of N: every Nth test of the selection's sorted list,
# starting at the Ith (round robin, so that the slow tests spread), with
# its results in results/fstests/<selection>-<I>of<N>/.  A sharded run is
# resumable: a lane whose results there are complete for the same tests,
# lane options, kernel and fstests source is not run again (set
# EXT2HOLE_FSTESTS_REDO=1 to run it anyway).  -S all/N runs shards 1..N
# in turn, each resumable, then the table of all of them
# (scripts/fstests-table.sh) in results/fstests/<selection>-of<N>.md.
# Named tests run as given (no expunge list); a selection (-s, default
# "default") is tests/fstests/<selection> minus tests/fstests/expunge ("full"
# is fstests' whole auto group for ext2).  A test still running after
# EXT2HOLE_FSTESTS_TEST_TIMEOUT seconds (default 900; tests/fstests/timeouts
# gives tests known to be slow under TCG their own limit), or
# EXT2HOLE_FSTESTS_HUNG_SECS (default 60, also the guest's
# kernel.hung_task_timeout_secs) after a hung-task report, is a failure: the blocked tasks are dumped, and the lane
# boots again for the tests that are left.  Results: results/fstests/<lane>/
# (fstests' check.log, .out.bad, .full, .dmesg; our console, kernel log,
# mounts log, summary.txt) and results/fstests/summary.txt.  The last line
# is "N passed, N failed, N notrun"; exit 1 on any failure.  Per lane,
# results.tsv is the machine-readable record: "# key value" lines (lane,
# driver, options, selection, kernel, fstests, wall), then one line a test,
# TEST<tab>STATUS<tab>SECONDS<tab>REASON, STATUS one of pass, fail, hang
# (killed at its timeout or after a hung-task report), notrun, expunged.
# EXT2HOLE_FSTESTS_JOBS=N runs up to N lanes at once (default 3: all of
# them; each guest keeps about one host CPU busy).
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP"
BUILD=${BUILD:-$TOP/build}
RESULTS=${EXT2HOLE_RESULTS:-$TOP/results}/fstests
PER_TEST=${EXT2HOLE_FSTESTS_TEST_TIMEOUT:-900}

# The seconds that tests/fstests/timeouts gives the named tests beyond
# PER_TEST, added to the guest's limit.
slow_extra() {
	printf '%s\n' "$@" | awk -v p="$PER_TEST" '
		FILENAME == "-" { want[$1] = 1; next }
		/^#/ { next }
		($1 in want) && $2 > p { x += $2 - p }
		END { print x + 0 }' - tests/fstests/timeouts
}
HUNG_SECS=${EXT2HOLE_FSTESTS_HUNG_SECS:-60}
JOBS=${EXT2HOLE_FSTESTS_JOBS:-3}
MAXBOOTS=${EXT2HOLE_FSTESTS_MAXBOOTS:-8}
export BUILD
# shellcheck source=tests/host-lib.sh
source "$TOP/tests/host-lib.sh"

sel=default lanes="alloc noalloc ext4" resum=0 shard=''
while getopts 's:l:RS:' opt; do
	case $opt in
	s) sel=$OPTARG ;;
	S) shard=$OPTARG ;;
	R) resum=1 ;;
	l) lanes=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
named=("$@")
die() { echo "fstests: $*" >&2; exit 2; }
[ "$(id -u)" = 0 ] || die "must run as root (debootstrap and chroot for the fstests root)"
sh_i=0 sh_n=0
case $shard in
'') ;;
all/[1-9]*)
	# Every shard in turn (each one resumable), then their table.
	sh_n=${shard#all/}
	[ ${#named[@]} = 0 ] || die "-S all/N takes a selection, not named tests"
	rc=0
	for i in $(seq 1 "$sh_n"); do
		"$0" -s "$sel" -l "$lanes" -S "$i/$sh_n" || rc=1
	done
	"$TOP/scripts/fstests-table.sh" "$RESULTS/$sel"-*of"$sh_n" \
		>"$RESULTS/$sel-of$sh_n.md" || rc=1
	echo "fstests: the table of the $sh_n shards: $RESULTS/$sel-of$sh_n.md"
	exit $rc ;;
[1-9]*/[1-9]*)
	sh_i=${shard%/*} sh_n=${shard#*/}
	[ "$sh_i" -le "$sh_n" ] || die "shard $shard: I must be 1..N" ;;
*) die "-S wants I/N or all/N, not $shard" ;;
esac

start=$(date +%s)
scripts/fetch-kernel.sh >/dev/null
rootimg=$(scripts/fstests-root.sh)
# The pinned fstests source (scripts/fstests-src.sh): the tarball beside
# the clone, EXT2HOLE_FSTESTS_TARBALL, or fetched from fstests' git.
tarball=$("$TOP/scripts/fstests-src.sh") || die "no fstests source (above)"

# The selection, as an explicit sorted list.
expunge=$TOP/tests/fstests/expunge
if [ ${#named[@]} -gt 0 ]; then
	sel=named
	mapfile -t list < <(printf '%s\n' "${named[@]}")
	expunge=/dev/null
elif [ "$sel" = full ]; then
	# fstests' auto group for FSTYP=ext2: generic/ and ext4/ (check's
	# fsgroup), from each test's _begin_fstest line.
	mkdir -p "$BUILD"
	gdir=$(mktemp -d "$BUILD/fstests-groups.XXXXXX")
	xz -dc "$tarball" | tar -C "$gdir" -xf - --wildcards \
		'xfstests/tests/generic/[0-9]*' 'xfstests/tests/ext4/[0-9]*'
	mapfile -t list < <(cd "$gdir/xfstests/tests" &&
		grep -l '^_begin_fstest.* auto\( \|$\)' generic/[0-9]* ext4/[0-9]* | sort -u
		cd "$TOP/tests/fstests" &&
		grep -l '^_begin_fstest.* auto\( \|$\)' local/[0-9][0-9][0-9])
	rm -rf "$gdir"
	[ ${#list[@]} -gt 0 ] || die "no auto tests found in $tarball"
else
	[ -f "tests/fstests/$sel" ] || die "no selection tests/fstests/$sel"
	mapfile -t list < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "tests/fstests/$sel" | awk '{ print $1 }')
fi
mapfile -t list < <(printf '%s\n' "${list[@]}" | sort -t/ -k1,1 -k2,2n -u)
if [ "$sh_n" -gt 0 ]; then
	# shard I of N: the list's entries I, I+N, I+2N, ... (1-based)
	mapfile -t list < <(printf '%s\n' "${list[@]}" | awk -v i="$sh_i" -v n="$sh_n" '(NR - i) % n == 0')
	[ ${#list[@]} -gt 0 ] || die "shard $shard of $sel is empty"
	RESULTS=$RESULTS/$sel-${sh_i}of$sh_n
	sel="$sel, shard $sh_i/$sh_n"
fi

mkdir -p "$RESULTS"
# the programs of the local tests
make -s -C "$TOP/tests" BUILD="$BUILD" >/dev/null
# the ext2stock lane's module, from the same kernel's source
case " $lanes " in
*" ext2stock "*)
	scripts/build-baseline.sh >/dev/null || die "the ext2stock baseline did not build" ;;
esac
initrd=$BUILD/fstests/initramfs.cpio
mkdir -p "$BUILD/fstests"
scripts/mkinitramfs.sh "$initrd"
kver=$(scripts/kver.sh)
# The guest kernel's config, for fstests' _require_kernel_config (the
# quota tests need CONFIG_QFMT_V2): KCONFIG_PATH in run-in-root.sh.
kconfig=$(scripts/fetch-kernel.sh)/boot/config-$kver
[ -f "$kconfig" ] || { echo "fstests: no kernel config at $kconfig" >&2; exit 1; }

# ------------------------------------------------------------ one lane

lane_conf() {	# lane_conf LANE: "DRIVER OPTIONS..."
	case $1 in
	alloc) echo "ext2hole -o mkwrite=alloc,acl,user_xattr" ;;
	noalloc) echo "ext2hole -o mkwrite=noalloc,acl,user_xattr" ;;
	ext4) echo "ext4" ;;
	ext2stock) echo "ext2stock -o acl,user_xattr" ;;
	*) die "unknown lane $1 (alloc, noalloc, ext4, ext2stock)" ;;
	esac
}

# parse_check DIR: "TEST STATUS SECONDS REASON" for every test of the
# lane's check.out.* (the blocks check prints per test), before hang/crash
# records.  SECONDS is the last "Ns" of the block (check prints the
# previous run's time first when it has one), "-" when there is none.
parse_check() {
	cat "$1"/check.out.* 2>/dev/null | tr -d '\r' | awk '
	function flush() {
		if (cur == "") return
		st = "unknown"
		if (txt ~ /\[expunged\]/) st = "expunged"
		else if (txt ~ /\[not run\]/) st = "notrun"
		else if (txt ~ /output mismatch|\[failed|_check_|something found|\[dumped core\]/) st = "fail"
		else if (txt ~ /[0-9]+s( |$)/) st = "pass"
		r = txt; gsub(/[ \t]+/, " ", r); sub(/^ /, "", r)
		secs = "-"
		n = split(r, w, " ")
		for (k = n; k >= 1; k--)
			if (w[k] ~ /^[0-9]+s$/) { secs = substr(w[k], 1, length(w[k]) - 1); break }
		print cur, st, secs, substr(r, 1, 160)
		cur = ""
	}
	/^[a-z0-9]+\/[0-9]+([ \t]|$)/ { flush(); cur = $1; txt = substr($0, length($1) + 1); next }
	/^(Ran|Not run|Failures|Passed all|SECTION|run-in-root|FSTYP|PLATFORM|MKFS_OPTIONS|MOUNT_OPTIONS)/ { flush(); next }
	cur != "" { txt = txt " " $0 }
	END { flush() }'
}

run_lane() {
	local lane=$1 conf driver opts lw res boot=0 t0 rc timeout todo started last hungline guest
	conf=$(lane_conf "$lane")
	driver=${conf%% *}
	opts=''
	[ "$conf" = "$driver" ] || opts=${conf#* }
	lw=$BUILD/fstests/$lane
	res=$RESULTS/$lane
	rm -rf "$lw" "$res"
	mkdir -p "$lw" "$res"
	t0=$(date +%s)
	echo "$t0" >"$res/.start"
	echo "=== fstests lane $lane: driver $driver ${opts:+($opts) }${#list[@]} tests ($sel)"
	cp --sparse=always "$rootimg" "$lw/root.img"
	# No journal: after a forced power-off the host reads what the guest
	# synced with debugfs, which does not replay a journal.
	tune2fs -O ^has_journal "$lw/root.img" >/dev/null
	: >"$lw/extra"		# TEST STATUS REASON recorded by this script
	todo=("${list[@]}")
	while [ ${#todo[@]} -gt 0 ] && [ $boot -lt "$MAXBOOTS" ]; do
		boot=$((boot + 1))
		rm -rf "$lw/in" "$lw/in.tar" "$lw/out.img" "$lw/test.img" "$lw/scratch.img"
		mkdir -p "$lw/in"
		mkimg "$lw/test.img" 2G -b 1024
		mkimg "$lw/scratch.img" 3G -b 1024
		truncate -s 16M "$lw/out.img"
		printf '%s\n' "${todo[@]}" >"$lw/in/tests"
		cp "$expunge" "$lw/in/expunge"
		grep -v '^#' tests/fstests/timeouts >"$lw/in/timeouts" || true
		cp "$kconfig" "$lw/in/kconfig"
		cp tests/fstests/run-in-root.sh tests/fstests/mount.ext2 tests/fstests/fstests.patch "$lw/in/"
		mkdir -p "$lw/in/local/bin"
		cp tests/fstests/local/[0-9][0-9][0-9] tests/fstests/local/[0-9][0-9][0-9].out "$lw/in/local/"
		cp "$BUILD/tests/bin/dirgrow" "$BUILD/tests/bin/diostale" "$lw/in/local/bin/"
		cat >"$lw/in/lane.conf" <<-CONF
		LANE=$lane
		DRIVER=$driver
		MOUNT_OPTS='$opts'
		BOOT=$boot
		PER_TEST_TIMEOUT=$PER_TEST
		HUNG_SECS=$HUNG_SECS
		CONF
		(cd "$lw/in" && tar -cf "$lw/in.tar" .)
		timeout=$((900 + PER_TEST + 120 * ${#todo[@]} + $(slow_extra "${todo[@]}")))
		echo "--- $lane boot $boot: ${#todo[@]} tests (guest limit ${timeout}s)"
		rc=0
		# In the background, so that an interrupted run stops its guest:
		# timeout(1) runs QEMU in a process group of its own.
		EXT2HOLE_QEMU_MEM=${EXT2HOLE_QEMU_MEM:-2048} \
		scripts/run-guest.sh -i "$initrd" -l "$lw/console.$boot.log" -t "$timeout" \
			-a "ext2hole.suite=fstests ext2hole.ndisks=3 log_buf_len=16M" \
			-d "$lw/root.img" -d "$lw/test.img" -d "$lw/scratch.img" \
			-d "$lw/in.tar" -d "$lw/out.img" &
		guest=$!
		trap 'pkill -TERM -P "$guest"; exit 130' INT TERM
		wait "$guest" || rc=$?
		trap - INT TERM
		cp "$lw/console.$boot.log" "$res/"
		debugfs -R "dump /ext2hole-out/check.out.$boot $lw/check.out.$boot" "$lw/root.img" >/dev/null 2>&1 || true
		debugfs -R "dump /ext2hole-out/hung $lw/hung" "$lw/root.img" >/dev/null 2>&1 || true
		mapfile -t started < <(tr -d '\r' <"$lw/check.out.$boot" 2>/dev/null |
			grep -oE '^[a-z0-9]+/[0-9]+' || true)
		if tr -d '\r' <"$lw/console.$boot.log" | grep -aq '^run-in-root: check exited'; then
			todo=()
			continue
		fi
		# The boot ended early: the last test it started hung or killed it.
		if [ ${#started[@]} = 0 ]; then
			echo "${todo[0]} fail guest: boot $boot started no test (qemu rc=$rc; console.$boot.log)" >>"$lw/extra"
			last=${todo[0]}
		else
			last=${started[${#started[@]} - 1]}
			hungline=$(grep -s "^$last " "$lw/hung" | tail -n 1 || true)
			if [ -n "$hungline" ]; then
				echo "$last hang HUNG: ${hungline#"$last" } (blocked tasks: $last.hung.dmesg)" >>"$lw/extra"
			elif [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
				echo "$last hang guest timeout after ${timeout}s (console.$boot.log)" >>"$lw/extra"
			else
				echo "$last fail guest died (qemu rc=$rc; console.$boot.log)" >>"$lw/extra"
			fi
		fi
		echo "--- $lane boot $boot ended at $last: $(tail -n 1 "$lw/extra" | cut -d' ' -f3-)"
		mapfile -t todo < <(printf '%s\n' "${todo[@]}" |
			grep -vxF -f <(printf '%s\n' "${started[@]}" "$last") || true)
	done
	for t in "${todo[@]}"; do
		echo "$t fail not reached: $MAXBOOTS boots used" >>"$lw/extra"
	done

	# Everything back from the root disk.
	debugfs -R "rdump /xfstests/results $lw" "$lw/root.img" >/dev/null 2>&1 || true
	debugfs -R "rdump /ext2hole-out $lw" "$lw/root.img" >/dev/null 2>&1 || true
	cp -a "$lw/results/." "$res/" 2>/dev/null || true
	cp "$lw"/ext2hole-out/* "$res/" 2>/dev/null || true
	cp "$lw"/check.out.* "$lw/extra" "$res/" 2>/dev/null || true
	local wall=$(($(date +%s) - t0))
	echo "$wall" >"$res/.wall"
	summarize "$lane" "$driver" "$opts" "$res" "$wall"
	lane_key "$lane" >"$res/.done"
}

# lane_key LANE: what a finished lane's results were made from (tests,
# lane options, kernel, fstests source), for resuming a sharded run.
lane_key() {
	{ printf '%s\n' "${list[@]}"; lane_conf "$1"; echo "$kver"; basename "$tarball"; } |
		sha256sum | cut -c1-16
}

# ---------------------------------------------------------- the verdicts

summarize() {	# summarize LANE DRIVER OPTS RESDIR WALL
	local lane=$1 driver=$2 opts=$3 res=$4 wall=$5 t st why seg splat secs
	local -A status=() reason=() tsecs=() hsecs=()
	while read -r t st secs why; do
		status[$t]=$st tsecs[$t]=$secs reason[$t]=$why
	done < <(parse_check "$res")
	# a hang's seconds: "TEST SECONDS WHY" in the guest's hung file
	while read -r t secs why; do hsecs[$t]=$secs; done < <(cat "$res/hung" 2>/dev/null || true)
	while read -r t st why; do
		status[$t]=$st reason[$t]=$why tsecs[$t]=${hsecs[$t]:--}
	done <"$res/extra"
	# check's own lists win over the per-line reading.
	while read -r t; do
		[ "${status[$t]:-}" = fail ] || { status[$t]=fail reason[$t]="listed in Failures"; }
	done < <(sed -n 's/^Failures: //p' "$res"/check.out.* 2>/dev/null | tr ' ' '\n' | sed '/^$/d')
	# Kernel reports, per test (fstests writes "run fstests T at" to kmsg).
	cat "$res"/kmsg.* 2>/dev/null >"$res/kmsg.all" || true
	local other=''
	while IFS= read -r seg; do
		t=${seg%% *}
		splat=$(awk -v m="run fstests $t at" 'index($0, m) { on = 1; next }
			/run fstests [a-z0-9]+\/[0-9]+ at/ { on = 0 } on' "$res/kmsg.all" | kernel_splats)
		[ -n "$splat" ] || continue
		if [ "${status[$t]:-}" != fail ] && [ "${status[$t]:-}" != hang ]; then
			status[$t]=fail reason[$t]="kernel log: $(echo "$splat" | head -n 2 | tr '\n' ' ' | cut -c1-200)"
		fi
	done < <(printf '%s\n' "${list[@]}")
	splat=$(awk '/run fstests [a-z0-9]+\/[0-9]+ at/ { exit } { print }' "$res/kmsg.all" | kernel_splats)
	[ -z "$splat" ] || other="kernel log before the first test: $(echo "$splat" | head -n 1)"

	# Which driver served TEST and SCRATCH.
	local proof nmounts bad ext4m e2hm
	[ -f "$res/mounts.log" ] || : >"$res/mounts.log"	# the ext4 lane has no helper
	nmounts=$(awk '$2 ~ /^\/dev\/vd[bc]$/' "$res/mounts.log" | wc -l)
	bad=$(awk -v t="$driver" '$1 == 0 && $2 ~ /^\/dev\/vd[bc]$/ && $4 != t' "$res/mounts.log" | head -n 3)
	ext4m=$(grep -acE 'EXT4-fs \(vd[bc]\): mounted' "$res/kmsg.all" || true)
	e2hm=$(grep -acE 'ext2hole \(vd[bc]\)' "$res/kmsg.all" || true)
	if [ "$driver" = ext2stock ]; then
		if [ "$nmounts" -gt 0 ] && [ -z "$bad" ] && [ "$ext4m" = 0 ] && [ "$e2hm" = 0 ]; then
			proof="PASS: $nmounts TEST/SCRATCH mounts, all ext2stock in /proc/mounts; no ext4 or ext2hole mount of vdb/vdc in the kernel log"
		else
			proof="FAIL: $nmounts helper mounts, wrong type: ${bad:-none}; ext4 mounts of vdb/vdc in the kernel log: $ext4m, ext2hole lines: $e2hm"
		fi
	elif [ "$driver" = ext2hole ]; then
		if [ "$nmounts" -gt 0 ] && [ -z "$bad" ] && [ "$ext4m" = 0 ]; then
			proof="PASS: $nmounts TEST/SCRATCH mounts, all ext2hole in /proc/mounts; no ext4 mount of vdb/vdc in the kernel log"
		else
			proof="FAIL: $nmounts helper mounts, wrong type: ${bad:-none}; ext4 mounts of vdb/vdc in the kernel log: $ext4m"
		fi
	else
		if [ "$ext4m" -gt 0 ] && [ "$e2hm" = 0 ] && [ "$nmounts" = 0 ]; then
			proof="PASS: $ext4m ext4-driver mounts of vdb/vdc, none by ext2hole"
		else
			proof="FAIL: ext4 mounts $ext4m, ext2hole log lines $e2hm, helper mounts $nmounts"
		fi
	fi

	local np=0 nf=0 nn=0 ne=0 nh=0
	{
		printf '# %s %s\n' lane "$lane" driver "$driver" options "${opts:--}" \
			selection "$sel" kernel "$kver" fstests "$(basename "$tarball")" wall "$wall"
	} >"$res/results.tsv"
	{
		echo "fstests lane $lane: driver $driver${opts:+ $opts}; selection $sel (${#list[@]} tests)"
		echo "kernel $kver; $(date -u '+%Y-%m-%d %H:%M UTC'); fstests $(basename "$tarball")"
		for t in "${list[@]}"; do
			st=${status[$t]:-fail}
			[ -n "${status[$t]:-}" ] || reason[$t]="no result"
			[ "$st" = unknown ] && { st=fail; reason[$t]="unrecognised result: ${reason[$t]}"; }
			case $st in
			pass) np=$((np + 1)) ;;
			notrun) nn=$((nn + 1)) ;;
			expunged) ne=$((ne + 1)) ;;
			hang) nf=$((nf + 1)) nh=$((nh + 1)) ;;
			*) st=fail nf=$((nf + 1)) ;;
			esac
			printf '%-8s %-13s %s\n' "${st^^}" "$t" "${reason[$t]}"
			printf '%s\t%s\t%s\t%s\n' "$t" "$st" "${tsecs[$t]:--}" "${reason[$t]}" >>"$res/results.tsv"
		done
		echo "mount proof: $proof"
		case $proof in FAIL*) nf=$((nf + 1)) ;; esac
		if [ -n "$other" ]; then echo "FAIL kernel-log: $other"; nf=$((nf + 1)); fi
		echo "lane $lane: $np passed, $nf failed ($nh hung), $nn notrun, $ne expunged; wall ${wall}s"
	} >"$res/summary.txt"
	grep -E '^(FAIL|HANG|mount proof|lane )' "$res/summary.txt"
	echo "$lane $np $nf $nn $ne $wall" >>"$RESULTS/.lanes"
}

# ----------------------------------------------------------------- main

rm -f "$RESULTS/.lanes"
for lane in $lanes; do lane_conf "$lane" >/dev/null; done
resummarize() {	# resummarize LANE: the verdicts again from saved results
	local conf o w
	conf=$(lane_conf "$1")
	o=''
	[ "$conf" = "${conf%% *}" ] || o=${conf#* }
	w=$(cat "$RESULTS/$1/.wall" 2>/dev/null ||
		echo $(($(stat -c %Y "$RESULTS/$1"/console.*.log | sort -n | tail -n 1) -
			$(cat "$RESULTS/$1/.start"))))
	summarize "$1" "${conf%% *}" "$o" "$RESULTS/$1" "$w"
}
if [ "$sh_n" -gt 0 ] && [ "$resum" = 0 ] && [ -z "${EXT2HOLE_FSTESTS_REDO:-}" ]; then
	# A sharded run resumes: lanes this shard finished before are kept.
	left=''
	for lane in $lanes; do
		if [ "$(cat "$RESULTS/$lane/.done" 2>/dev/null)" = "$(lane_key "$lane")" ]; then
			echo "=== fstests lane $lane: $sel done before, kept (EXT2HOLE_FSTESTS_REDO=1 runs it again)"
			resummarize "$lane"
		else
			left="$left $lane"
		fi
	done
	lanes=$left
fi
if [ "$resum" = 1 ]; then
	# -R: the verdicts again from the saved results, no guest.
	for lane in $lanes; do resummarize "$lane"; done
elif [ "$JOBS" -gt 1 ]; then
	# Lanes side by side, their output prefixed: the wall time of the
	# slowest lane instead of the sum (each guest is mostly one busy vCPU).
	# Each lane is one background subshell; its trap stops its guest.
	pids=()
	trap 'kill "${pids[@]}" 2>/dev/null; wait; exit 130' INT TERM
	for lane in $lanes; do
		while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do sleep 5; done
		run_lane "$lane" > >(sed -u "s/^/[$lane] /") 2>&1 &
		pids+=($!)
	done
	for p in "${pids[@]}"; do wait "$p" || true; done
	trap - INT TERM
else
	for lane in $lanes; do run_lane "$lane"; done
fi
P=0 F=0 N=0
{
	echo "fstests ($sel, ${#list[@]} tests) on $kver, $(date -u '+%Y-%m-%d %H:%M UTC'), total $(($(date +%s) - start))s"
	printf '%-8s %6s %6s %6s %8s %6s\n' lane pass fail notrun expunged wall
	while read -r lane p f n e w; do
		printf '%-8s %6s %6s %6s %8s %5ss\n' "$lane" "$p" "$f" "$n" "$e" "$w"
		P=$((P + p)) F=$((F + f)) N=$((N + n))
	done <"$RESULTS/.lanes"
} | tee "$RESULTS/summary.txt"
read -r P F N < <(awk '{ p += $2; f += $3; n += $4 } END { print p + 0, f + 0, n + 0 }' "$RESULTS/.lanes")
echo "$P passed, $F failed, $N notrun"
[ "$F" = 0 ]
