#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs inside the guest, chrooted into the fstests root (fstests.guest):
# one boot of one lane.  Reads /ext2hole-in/lane.conf (LANE, DRIVER,
# MOUNT_OPTS, BOOT, PER_TEST_TIMEOUT, HUNG_SECS), /ext2hole-in/tests,
# /ext2hole-in/timeouts (per-test limits) and /ext2hole-in/kconfig (the
# kernel's config), runs ./check on them, and keeps everything on the root disk, which the
# host reads back with debugfs:
#   /xfstests/results/          fstests' own results (check.log, .out.bad, .full, .dmesg)
#   /ext2hole-out/check.out.N   check's output of boot N
#   /ext2hole-out/kmsg.N        the whole kernel log of boot N
#   /ext2hole-out/mounts.log    every mount the ext2hole helper made
#   /ext2hole-out/hung          "TEST SECONDS" of a test that hung
# A test still running after PER_TEST_TIMEOUT seconds (or its own limit in
# timeouts), or HUNG_SECS after
# a hung-task report, is a hang: blocked tasks are dumped (sysrq-w), the
# log saved as results/<test>.hung.dmesg, and the guest powers off at once
# (a deadlocked filesystem would block any sync or unmount); the host
# boots again for the tests that are left.
set -uo pipefail

IN=/ext2hole-in
OUT=/ext2hole-out
# shellcheck source=/dev/null
. "$IN/lane.conf"
mkdir -p "$OUT" /mnt/test /mnt/scratch
# No udev in the guest: libdevmapper makes the /dev/mapper nodes itself
# (else dmsetup creates the device and no node appears: every dm-error,
# dm-flakey and dm-log-writes test fails with "special device
# /dev/mapper/... does not exist")
export DM_DISABLE_UDEV=1
# the guest kernel's config: without it fstests' _require_kernel_config
# (every quota test) says "Could not locate kernel config file"
[ -f "$IN/kconfig" ] && export KCONFIG_PATH=$IN/kconfig
cd /xfstests || exit 1

if [ ! -f .ext2hole-patched ]; then
	patch -p1 <"$IN/fstests.patch" || { echo "run-in-root: fstests.patch does not apply"; exit 1; }
	touch .ext2hole-patched
fi
# the project's local tests (local/NNN) and the programs they call
rm -rf tests/local
mkdir -p tests/local
cp "$IN"/local/[0-9][0-9][0-9] "$IN"/local/[0-9][0-9][0-9].out tests/local/
{
	echo "# QA groups control file, made by run-in-root.sh from _begin_fstest"
	for t in tests/local/[0-9][0-9][0-9]; do
		echo "${t##*/} $(sed -n 's/^_begin_fstest //p' "$t")"
	done
} >tests/local/group.list
install -m 755 "$IN"/local/bin/* src/
if [ "$DRIVER" != ext4 ]; then
	install -m 755 "$IN/mount.ext2" /sbin/mount.ext2
else
	rm -f /sbin/mount.ext2
fi
cat >local.config <<CONF
export FSTYP=ext2
export TEST_DEV=/dev/vdb
export TEST_DIR=/mnt/test
export SCRATCH_DEV=/dev/vdc
export SCRATCH_MNT=/mnt/scratch
export MKFS_OPTIONS="-b 1024"
export MOUNT_OPTIONS="$MOUNT_OPTS"
export TEST_FS_MOUNT_OPTS="$MOUNT_OPTS"
CONF

sysctl -q kernel.hung_task_timeout_secs="$HUNG_SECS"
sysctl -q kernel.hung_task_panic=0
kmsg=$OUT/kmsg.$BOOT
dmesg -w >"$kmsg" 2>&1 &
kpid=$!

expunge=()
[ -s "$IN/expunge" ] && expunge=(-E "$IN/expunge")
mapfile -t tests <"$IN/tests"
echo "run-in-root: lane $LANE boot $BOOT: ${#tests[@]} tests, driver $DRIVER, options '${MOUNT_OPTS}'"
./check "${expunge[@]}" "${tests[@]}" >"$OUT/check.out.$BOOT" 2>&1 &
cpid=$!
tail -n +1 -f "$OUT/check.out.$BOOT" --pid=$cpid &

# The running test: the last one check has started (it prints the name
# when a test starts, the verdict when it ends).  Not from ps: reading a
# process's cmdline takes its mmap lock, which a deadlocked test may hold.
running() {
	tr -d '\r' <"$OUT/check.out.$BOOT" | awk '/^[a-z0-9]+\/[0-9]+([ \t]|$)/ { t = $1 }
		END { print t }'
}
hungcount() { grep -c 'blocked for more than' "$kmsg" 2>/dev/null || true; }
# Tasks in uninterruptible sleep now: none means a slow test, not a stuck
# one.  /proc/PID/stat takes no lock of the task's (cmdline would take
# its mmap lock); the name may hold spaces, so the state is the field
# after the last ")".
blocked() {
	cat /proc/[0-9]*/stat 2>/dev/null | sed 's/.*) //' | awk '$1 == "D"' | wc -l
}

hang() {	# hang TEST SECONDS WHY
	local t=$1 secs=$2 why=$3
	echo "run-in-root: $t hung ($why after ${secs}s): dumping blocked tasks, powering off"
	echo w >/proc/sysrq-trigger
	sleep 5
	echo "$t $secs $why" >>"$OUT/hung"
	mkdir -p "results/$(dirname "$t")"
	awk -v m="run fstests $t at" 'index($0, m) { keep = 1 } keep' "$kmsg" \
		>"results/$t.hung.dmesg"
	sync -f "$OUT/hung"
	sync -f "results/$t.hung.dmesg"
	echo o >/proc/sysrq-trigger
	sleep 60
}

# A test's time limit: its line in $IN/timeouts ("TEST SECONDS # why":
# tests that are slow under TCG, not stuck), else PER_TEST_TIMEOUT.
limit_of() {
	local s
	s=$(awk -v t="$1" '$1 == t { print $2; exit }' "$IN/timeouts" 2>/dev/null)
	echo "${s:-$PER_TEST_TIMEOUT}"
}

# Elapsed time is counted here, from the moment a test is first seen.
seen='' since=0 base=0 t0=0 limit=$PER_TEST_TIMEOUT
while kill -0 "$cpid" 2>/dev/null; do
	sleep 5
	t=$(running)
	[ -n "$t" ] || continue
	now=$(date +%s)
	if [ "$t" != "$seen" ]; then
		seen=$t since=0 base=$(hungcount) t0=$now limit=$(limit_of "$t")
	fi
	et=$((now - t0))
	if [ "$et" -ge "$limit" ]; then
		hang "$t" "$et" "per-test timeout ${limit}s, $(blocked) task(s) in D state"
	fi
	if [ "$since" = 0 ] && [ "$(hungcount)" -gt "$base" ]; then
		since=$et
	fi
	if [ "$since" != 0 ] && [ "$et" -ge $((since + HUNG_SECS)) ]; then
		hang "$t" "$et" "hung-task report at ${since}s"
	fi
done
wait "$cpid"
echo "run-in-root: check exited $?"
umount /mnt/scratch 2>/dev/null
umount /mnt/test 2>/dev/null
sleep 2
kill "$kpid" 2>/dev/null
sync
