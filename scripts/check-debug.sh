#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check-debug.sh - run the test suites on the debug kernel (KASAN, lockdep,
# kmemleak, DEBUG_VM, KFENCE, hung-task, fault injection), or with
# EXT2HOLE_DEBUG_FLAVOUR=kcsan on the KCSAN kernel (lockdep, no KASAN):
# build/kcsan and results/kcsan instead of build/debug and results/debug.
# A KCSAN report ("BUG: KCSAN: data-race in ...") fails the suite.
#
# 1. scripts/debug-kernel.sh builds (or finds) the kernel in
#    /var/cache/ext2hole/debug/<srcver>-<confighash>/.
# 2. ext2hole.ko is built against that tree from a copy of the sources in
#    build/debug/mod-<kernel> (the repo's src/ stays the normal build's),
#    and the ext2stock baseline from the same tree's fs/ext2 in
#    build/debug/baseline-<kernel>; <kernel> is the cache directory's name.
# 3. tests/check.sh runs with BUILD=build/debug, results in results/debug/,
#    every suite's TIMEOUT multiplied by EXT2HOLE_TIMEOUT_SCALE (default 6),
#    extra kernel command-line words in EXT2HOLE_APPEND (see below).
#
# usage: scripts/check-debug.sh [SUITE...]
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP"
FLAVOUR=${EXT2HOLE_DEBUG_FLAVOUR:-kasan}
export EXT2HOLE_DEBUG_FLAVOUR=$FLAVOUR
# the KCSAN lane builds and reports beside the debug lane
case $FLAVOUR in
kcsan) DBUILD=$TOP/build/kcsan ;;
*) DBUILD=$TOP/build/debug ;;
esac
JOBS=${EXT2HOLE_JOBS:-2}

eval "$(scripts/debug-kernel.sh | grep -E '^(DIR|TREE|KERNEL|RELEASE|MODDIR)=')"
[ -f "$KERNEL" ] && [ -n "$RELEASE" ] || { echo "check-debug.sh: no debug kernel" >&2; exit 1; }
echo "check-debug.sh: kernel $RELEASE ($KERNEL)"
# module and baseline builds are kept per kernel (the cache directory's
# name), so that a lane run on one series never loads what was built for
# the other
KEY=$(basename "$DIR")

# the module, from a copy of the sources
mkdir -p "$DBUILD/mod-$KEY"
rsync -a --delete --exclude '*.o' --exclude '*.cmd' --exclude '*.ko' \
	"$TOP/Kbuild" "$TOP/src" "$TOP/include" "$DBUILD/mod-$KEY/"
# Kbuild takes the module version from debian/changelog
mkdir -p "$DBUILD/mod-$KEY/debian"
cp "$TOP/debian/changelog" "$DBUILD/mod-$KEY/debian/changelog"
nice -n 19 make -s -j"$JOBS" -C "$TREE" M="$DBUILD/mod-$KEY" modules W=1
KO=$DBUILD/mod-$KEY/ext2hole.ko

# the baseline: stock fs/ext2 of the same tree, type renamed
STOCK=$DBUILD/baseline-$KEY/ext2stock.ko
if [ ! -f "$STOCK" ] || [ "$TREE/fs/ext2/super.c" -nt "$STOCK" ] ||
   [ "$KERNEL" -nt "$STOCK" ]; then
	rm -rf "$DBUILD/baseline-$KEY"
	mkdir -p "$DBUILD/baseline-$KEY"
	cp "$TREE"/fs/ext2/*.[ch] "$DBUILD/baseline-$KEY/"
	sed -i -e 's/\.name\t\t= "ext2",/.name\t\t= "ext2stock",/' \
	       -e 's/MODULE_ALIAS_FS("ext2");/MODULE_ALIAS_FS("ext2stock");/' \
		"$DBUILD/baseline-$KEY/super.c"
	# the tree's own object list (6.12 adds trace.o), as module ext2stock
	# shellcheck disable=SC2016  # make variables, not shell ones
	sed -e 's/^obj-\$(CONFIG_EXT2_FS)[ \t]*+= ext2\.o/obj-m := ext2stock.o/' \
	    -e 's/^ext2-/ext2stock-/' "$TREE/fs/ext2/Makefile" >"$DBUILD/baseline-$KEY/Kbuild"
	if ! grep -q '"ext2stock"' "$DBUILD/baseline-$KEY/super.c" ||
	   ! nice -n 19 make -s -j"$JOBS" -C "$TREE" M="$DBUILD/baseline-$KEY" modules \
		>"$DBUILD/baseline-$KEY/build.log" 2>&1; then
		echo "check-debug.sh: baseline did not build; stock targets will be skipped" >&2
		STOCK=$DBUILD/baseline-$KEY/missing.ko
	fi
fi

make -s -C tests BUILD="$DBUILD"

mkdir -p "$DBUILD/empty"
export BUILD=$DBUILD
export EXT2HOLE_KERNEL=$KERNEL
export EXT2HOLE_KO=$KO
export EXT2HOLE_STOCK_KO=$STOCK
export EXT2HOLE_MODDIR=$MODDIR
export EXT2HOLE_KVER_GUEST=$RELEASE
# test modules (tests/kmod) are built against the debug tree
export EXT2HOLE_KMOD_KDIR=$TREE
export EXT2HOLE_TIMEOUT_SCALE=${EXT2HOLE_TIMEOUT_SCALE:-6}
export EXT2HOLE_RESULTS=${EXT2HOLE_RESULTS:-$TOP/results/$(basename "$DBUILD")}
export EXT2HOLE_QEMU_MEM=${EXT2HOLE_QEMU_MEM:-2048}
# TCG + KASAN + lockdep run ACPI's AML far too slowly: the PCI IRQ routing
# method (_PRT) hits its 30 s loop timeout per device, the boot takes
# minutes and reports soft lockups.  Route PCI IRQs from the BIOS table
# (acpi=noirq; ACPI stays for poweroff) and give the soft-lockup and RCU
# stall detectors room for a slow emulated CPU.  The hung-task detector
# keeps the harness's 60 s.
export EXT2HOLE_APPEND="${EXT2HOLE_APPEND:-} acpi=noirq watchdog_thresh=60 rcupdate.rcu_cpu_stall_timeout=300"
# TCG's "max" CPU has LA57, so these kernels (CONFIG_X86_5LEVEL=y) boot
# with 5-level paging.  Two boots of ~80 per whole-suite run (one on each
# series) reported "KASAN: wild-memory-access in do_raw_spin_lock" at
# 0.005 s, in an edge IRQ taken inside identify_cpu(), long before any
# module loads, at a 5-level direct-map address (ff11...); the taint then
# turned lockdep off for that boot.  The lanes test ext2hole, not 5-level
# paging: give the guest 4-level paging (la57=off).
export EXT2HOLE_TCG_CPU_FLAGS=${EXT2HOLE_TCG_CPU_FLAGS-,la57=off}
# The debug kernel's boot banners are not reports (the runner's default
# list plus RCU's).
export EXT2HOLE_SPLAT_IGNORE=${EXT2HOLE_SPLAT_IGNORE:-'Lock dependency validator|lockdep: .*(table|MAX_|classes)|KASAN: .*(initialized|enabled)|kmemleak: Kernel memory leak detector|RCU lockdep checking is enabled'}
exec tests/check.sh "$@"
