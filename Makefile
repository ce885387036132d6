# SPDX-License-Identifier: GPL-2.0
#
# ext2hole: out-of-tree ext2 with correct mmap and hole semantics when the
# block size is smaller than the page size.
# Kbuild says what is built; this file drives kbuild and the test harness.
#
# KVER is the packaged kernel the module is built for and the guest boots.
# By default it is the one Debian's linux-headers-amd64 depends on; never
# `uname -r`: the build host does not run the target kernel.  KSERIES=6.1
# or KSERIES=6.12 picks the newest packaged release of that series.
#
# A tree without scripts/ is the module's sources alone: the `make dist`
# tarball, or /usr/src/ext2hole-<version> from the .deb.  There `make`
# builds, and `make install` installs, for the running kernel (`uname -r`)
# or KVER=, against /lib/modules/$(KVER)/build, as any out-of-tree module
# does; nothing is installed with apt-get.  (DKMS never runs this file: its
# MAKE line in dkms.conf calls kbuild itself.)

ifneq ($(wildcard $(CURDIR)/scripts/kver.sh),)
KVER ?= $(shell KSERIES='$(KSERIES)' scripts/kver.sh)
KDIR ?= /usr/src/linux-headers-$(KVER)
DEPS_BUILD := deps-build
else
KVER ?= $(shell uname -r)
KDIR ?= /lib/modules/$(KVER)/build
DEPS_BUILD :=
endif
BUILD ?= $(CURDIR)/build
export KVER KDIR BUILD

# make install: the module into $(DESTDIR)/lib/modules/$(KVER)/$(MODDIR)/,
# then depmod for that tree; fsck.ext2hole and the man pages under
# $(DESTDIR)$(PREFIX) when the tree has them (the one in /usr/src has not).
DESTDIR ?=
MODDIR ?= updates
PREFIX ?= /usr/local
SBINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
DEPMOD ?= $(or $(shell PATH="$$PATH:/usr/sbin:/sbin" command -v depmod),/sbin/depmod)

# The module and the test programs build in parallel (-j of the machine's
# cores) unless make was given -j itself (then its jobserver shares them).
JOBS ?= $(shell nproc 2>/dev/null || echo 1)
PAR = $(if $(findstring jobserver,$(MAKEFLAGS)),,-j$(JOBS))

.PHONY: all module modules install deps deps-build tests run check soak fuzz crash bench check-debug check-kcsan \
	check-dkms check-matrix dist deb style clean help \
	fstests fstests-full fstests-ci fstests-table

all: module

# Packages: deps-build for the module and test programs (compiler,
# headers), deps for everything the guests need as well.
deps:
	scripts/deps.sh all

deps-build:
	scripts/deps.sh build

module modules: $(DEPS_BUILD)
	$(MAKE) $(PAR) -C $(KDIR) M=$(CURDIR) modules

install: module
	install -D -m 644 ext2hole.ko $(DESTDIR)/lib/modules/$(KVER)/$(MODDIR)/ext2hole.ko
	$(DEPMOD) -b $(or $(DESTDIR),/) $(KVER)
	if [ -f tools/fsck.ext2hole ]; then \
		install -D -m 755 tools/fsck.ext2hole $(DESTDIR)$(SBINDIR)/fsck.ext2hole; fi
	if [ -f docs/ext2hole.5 ]; then \
		install -D -m 644 docs/ext2hole.5 $(DESTDIR)$(MANDIR)/man5/ext2hole.5; fi
	if [ -f docs/fsck.ext2hole.8 ]; then \
		install -D -m 644 docs/fsck.ext2hole.8 $(DESTDIR)$(MANDIR)/man8/fsck.ext2hole.8; fi

# Static test programs that run inside the guest.
tests: deps-build
	$(MAKE) -C tests BUILD=$(BUILD) $(PAR)

run: deps module tests
	scripts/demo.sh

check: deps module tests
	tests/check.sh $(SUITES)

soak: deps module tests
	EXT2HOLE_SOAK=1 tests/check.sh fsx stress load

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
check-debug:
	scripts/deps.sh debug
	scripts/check-debug.sh $(SUITES)

# the concurrency suites on the KCSAN kernel (scripts/kcsan.config)
KCSAN_SUITES ?= stress punch holes fsx htree quota cgwb readdir writepath extents
check-kcsan:
	scripts/deps.sh debug
	EXT2HOLE_DEBUG_FLAVOUR=kcsan scripts/check-debug.sh $(or $(SUITES),$(KCSAN_SUITES))

# fstests (scripts/fstests.sh) in the guest on ext2hole (mkwrite=alloc and
# noalloc) and the ext4 driver: the curated default selection, any named
# set (FSTESTS="generic/113 generic/363"), the whole auto group, or the
# bounded CI subset.  FSTESTS_LANES="alloc" picks lanes.
FSTESTS_LANES ?= alloc noalloc ext4
fstests: deps module
	scripts/fstests.sh -l "$(FSTESTS_LANES)" $(FSTESTS)

# fstests-full runs the auto group in FSTESTS_SHARDS slices, each resumable
# (results/fstests/full-<i>of<N>/); SHARD=3/16 runs one slice.  The table
# of every slice run so far: make fstests-table.
FSTESTS_SHARDS ?= 16
fstests-full: deps module
	scripts/fstests.sh -s full -l "$(FSTESTS_LANES)" -S $(or $(SHARD),all/$(FSTESTS_SHARDS))

fstests-table:
	scripts/fstests-table.sh results/fstests/full-*of$(FSTESTS_SHARDS)

fstests-ci: deps module
	EXT2HOLE_FSTESTS_JOBS=$${EXT2HOLE_FSTESTS_JOBS:-2} scripts/fstests.sh -s ci -l "$${FSTESTS_CI_LANES:-alloc noalloc}"

# Benchmarks (scripts/bench.sh): every workload on ext2hole (alloc,
# noalloc), ext2stock, the ext4 driver and tmpfs in one boot, the table in
# results/bench.txt and .md.  EXT2HOLE_BENCH_N=3 repetitions by default.
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
	@echo "make install    install it in \$$DESTDIR/lib/modules/KVER/$(MODDIR)/ and run depmod,"
	@echo "                 and fsck.ext2hole in \$$DESTDIR$(SBINDIR) (DESTDIR=, KVER=)"
	@echo "make run        build, boot the packaged kernel in QEMU, show the guarantees"
	@echo "make check      the whole test suite; ends with 'N passed, N failed, N skipped'"
	@echo "make check KSERIES=6.12   the same on the newest packaged 6.12 kernel"
	@echo "make check-matrix  the suite on 6.1 and on 6.12, a line per series and a total"
	@echo "                 (check and check-matrix: SUITES=\"a b\" picks suites; check-matrix SERIES=6.12 one series)"
	@echo "make soak       longer fsx, stress and load runs"
	@echo "make fuzz       hostile-image fuzzing (EXT2HOLE_SEED=, EXT2HOLE_FUZZ_N=)"
	@echo "make crash      the crash suite plus 12 timed crashes (EXT2HOLE_SEED=, EXT2HOLE_CRASH_N=)"
	@echo "make bench      benchmarks against ext2stock, the ext4 driver and tmpfs:"
	@echo "                 table in results/bench.txt (EXT2HOLE_BENCH_N=3 repetitions)"
	@echo "make check-debug  the suite on a KASAN/lockdep kernel built from linux-source"
	@echo "make check-kcsan  the concurrency suites on a KCSAN/lockdep kernel (KCSAN_SUITES)"
	@echo "make check-dkms   install the .deb with DKMS in a throwaway root, boot the result"
	@echo "make dist / deb   source tarball / ext2hole-dkms .deb"
	@echo "make style      checkpatch, W=1, sparse"
	@echo "make fstests    fstests in the guest: ext2hole (alloc, noalloc) and the ext4 driver"
	@echo "                (FSTESTS=\"generic/113 ...\" runs a named set, FSTESTS_LANES=alloc)"
	@echo "make fstests-full  fstests' whole auto group in resumable shards (SHARD=i/N: one)"
	@echo "make fstests-table the table of the shards run so far; make fstests-ci: the CI subset"
