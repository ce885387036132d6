# SPDX-License-Identifier: GPL-2.0
#
# ext2hole: out-of-tree ext2 with the seed series' hole semantics.
# Kbuild says what is built; this file drives kbuild and the test harness.
#
# KVER is the packaged kernel the module is built for and the guest boots.
# By default it is the one Debian's linux-headers-amd64 depends on; never
# `uname -r`: the build host does not run the target kernel.  KSERIES=6.1
# or KSERIES=6.12 picks the newest packaged release of that series.

KVER ?= $(shell KSERIES='$(KSERIES)' scripts/kver.sh)
KDIR ?= /usr/src/linux-headers-$(KVER)
BUILD ?= $(CURDIR)/build
export KVER KDIR BUILD

.PHONY: all module modules deps deps-build tests run check soak fuzz crash bench check-debug \
	check-dkms check-matrix dist deb style clean help \
	fstests fstests-full fstests-ci

all: module

# Packages: deps-build for the module and test programs (compiler,
# headers), deps for everything the guests need as well.
deps:
	scripts/deps.sh all

deps-build:
	scripts/deps.sh build

module modules: deps-build
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

# Static test programs that run inside the guest.
tests: deps-build
	$(MAKE) -C tests BUILD=$(BUILD)

run: deps module tests
	scripts/demo.sh

check: deps module tests
	tests/check.sh $(SUITES)

soak: deps module tests
	EXT2HOLE_SOAK=1 tests/check.sh fsx stress

fuzz: deps module tests
	tests/check.sh fuzz

# The whole suite on the newest release of each supported series, one
# "N passed, N failed" line per series, then the total.
# SERIES="6.12" limits it to some series (default: 6.1 6.12).
check-matrix: deps
	scripts/check-matrix.sh $(SERIES)

# the crash suite with EXT2HOLE_CRASH_N (up to 12) more timed crashes
crash: deps module tests
	EXT2HOLE_CRASH_N=$${EXT2HOLE_CRASH_N:-12} tests/check.sh crash

# The suites on a KASAN/lockdep/kmemleak kernel built from linux-source
# (cached in /var/cache/ext2hole/debug); SUITES="a b" to pick some.
check-debug: deps
	scripts/check-debug.sh $(SUITES)

# fstests (scripts/fstests.sh) in the guest on ext2hole (mkwrite=alloc and
# noalloc) and the ext4 driver: the curated default selection, any named
# set (FSTESTS="generic/113 generic/363"), the whole auto group, or the
# bounded CI subset.  FSTESTS_LANES="alloc" picks lanes.
FSTESTS_LANES ?= alloc noalloc ext4
fstests: deps module
	scripts/fstests.sh -l "$(FSTESTS_LANES)" $(FSTESTS)

fstests-full: deps module
	scripts/fstests.sh -s full -l "$(FSTESTS_LANES)"

fstests-ci: deps module
	EXT2HOLE_FSTESTS_JOBS=$${EXT2HOLE_FSTESTS_JOBS:-2} scripts/fstests.sh -s ci -l "$${FSTESTS_CI_LANES:-alloc noalloc}"

# The benchmark harness belongs to the performance issue; until it lands
# the target says so instead of failing on a missing script.
bench:
	@if [ -x scripts/bench.sh ]; then $(MAKE) deps module tests && scripts/bench.sh; \
	else echo "make bench: not available yet (no scripts/bench.sh; see README, Status)"; exit 2; fi

# Packaging (scripts/dist.sh, deb.sh, check-dkms.sh): the tarball, the
# ext2hole-dkms .deb, and the .deb installed with DKMS in a throwaway
# Debian 12 root whose module then boots in the guest (needs root).
dist:
	scripts/dist.sh

deb:
	scripts/deb.sh

check-dkms: deps
	scripts/check-dkms.sh

style:
	scripts/style.sh

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean 2>/dev/null
	-$(MAKE) -C tests clean BUILD=$(BUILD) 2>/dev/null
	rm -rf $(BUILD) results

help:
	@echo "make            build ext2hole.ko for KVER=$(KVER)"
	@echo "make run        build, boot the packaged kernel in QEMU, show the guarantees"
	@echo "make check      the whole test suite; ends with 'N passed, N failed, N skipped'"
	@echo "make check KSERIES=6.12   the same on the newest packaged 6.12 kernel"
	@echo "make check-matrix  the suite on 6.1 and on 6.12, a line per series and a total"
	@echo "                 (check and check-matrix: SUITES=\"a b\" picks suites; check-matrix SERIES=6.12 one series)"
	@echo "make soak       longer fsx/stress runs"
	@echo "make fuzz       hostile-image fuzzing (EXT2HOLE_SEED=, EXT2HOLE_FUZZ_N=)"
	@echo "make crash      the crash suite plus 12 timed crashes (EXT2HOLE_SEED=, EXT2HOLE_CRASH_N=)"
	@echo "make bench      benchmarks (not available yet: says so)"
	@echo "make check-debug  the suite on a KASAN/lockdep kernel built from linux-source"
	@echo "make check-dkms   install the .deb with DKMS in a throwaway root, boot the result"
	@echo "make dist / deb   source tarball / ext2hole-dkms .deb"
	@echo "make style      checkpatch, W=1, sparse"
	@echo "make fstests    fstests in the guest: ext2hole (alloc, noalloc) and the ext4 driver"
	@echo "                (FSTESTS=\"generic/113 ...\" runs a named set, FSTESTS_LANES=alloc)"
	@echo "make fstests-full  fstests' whole auto group (hours); make fstests-ci: the CI subset"
