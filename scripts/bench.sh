#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench: one guest boot runs every benchmark workload on every target
# (tests/suites/bench.guest: ext2hole mkwrite=alloc and noalloc, the stock
# ext2 baseline ext2stock, the ext4 driver as ext2, tmpfs), N repetitions
# interleaved, then prints the table and writes it to results/:
#   bench.raw   the figures ("rep target figure value")
#   bench.txt   min/median/max per figure and target, ratios with spread
#   bench.md    the same as a Markdown table, with the run's header
#   bench-scaling.dat/.png   cost per operation against size (gnuplot)
#   bench-counters.txt   per workload and target, what the disk saw:
#               requests, merges and sectors, read and written
#   usage: bench.sh [-t WORKDIR]   (-t: the tables again from an earlier run)
# Env: EXT2HOLE_BENCH_N (repetitions, default 3), EXT2HOLE_BENCH_SMOKE=1
# (one repetition of tiny workloads), EXT2HOLE_BENCH_SCALE (sizes, default
# "100 1000 10000"), EXT2HOLE_BENCH_READDIR_SCALE (names in the readdir
# directory, default 10000; "10000 100000" for 10^5 too),
# EXT2HOLE_BENCH_WORKLOADS (some of: fio mmapfault extgap trunc meta
# readdir fsync prealloc), EXT2HOLE_BENCH_PREALLOC_MB (prealloc sizes in
# MiB, default 64), EXT2HOLE_BENCH_TARGETS (some of: alloc noalloc
# ext2stock ext4 tmpfs order0; order0, mkwrite=alloc,nolargefolio, runs only
# when named), EXT2HOLE_BENCH_PROBES=1 (count the calls of
# ext2hole_get_block and ext2hole_data_blocks_valid per workload with
# kprobes: results/bench-probes.txt), EXT2HOLE_BENCH_MKFS (more mke2fs
# options for the disk images, e.g. "-O ^dir_index"),
# EXT2HOLE_BENCH_FIO_MB ... (tests/suites/bench.host).
# Speed is reported, never asserted: the exit status says whether every
# workload ran and every figure came out.
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tests/host-lib.sh
source "$TOP/tests/host-lib.sh"
run_env bench

# fio runs in the guest (bench-tools image); gnuplot draws the plot.
EXT2HOLE_EXTRA_PKGS="fio gnuplot-nox ${EXT2HOLE_EXTRA_PKGS:-}" scripts/deps.sh all ||
	echo "bench.sh: some packages are missing; see above" >&2
# report WORK: the tables (and plot) of a finished run in WORK, from the
# figures and the header the run left there.
report() {
	local work=$1 raw n header rc=0
	raw=$work/bench/out/bench.raw
	if [ ! -s "$raw" ]; then
		echo "bench.sh: no figures (console log: $RESULTS/bench.log)" >&2
		return 1
	fi
	n=$(cat "$work/bench/bench.n")
	header=$(cat "$work/header")
	mkdir -p "$RESULTS"
	cp "$raw" "$RESULTS/bench.raw"
	{
		echo "# ext2hole bench: $header"
		echo "# ratio = speed relative to the baseline (>1 faster): median/median [min/max - max/min]; latencies (*_us) baseline/target"
		scripts/bench-table.sh -c "$n" -p "$RESULTS/bench-scaling.dat" "$raw"
	} >"$RESULTS/bench.txt" || rc=1
	{
		echo "ext2hole bench: $header."
		echo
		echo "Cells: median (min-max) of the $n runs.  Ratios: speed relative to the"
		echo "baseline, above 1 is faster; median over median [worst-best pairing]."
		echo "Latencies (\`*_us\`): baseline over target.  Under TCG, with other"
		echo "guests on the same CPUs, differences under the spread are noise."
		echo
		scripts/bench-table.sh -m "$raw"
	} >"$RESULTS/bench.md"
	cat "$RESULTS/bench.txt"
	cp "$work/bench/out/bench.counters" "$RESULTS/bench-counters.txt" 2>/dev/null || true
	cp "$work/bench/out/bench.probes" "$RESULTS/bench-probes.txt" 2>/dev/null || true
	if command -v gnuplot >/dev/null && grep -q '^[a-z]' "$RESULTS/bench-scaling.dat"; then
		scripts/bench-plot.sh "$RESULTS/bench-scaling.dat" "$RESULTS/bench-scaling.png" \
			"$(cut -d';' -f1 "$work/header"), N=$n" ||
			echo "bench.sh: gnuplot failed" >&2
	fi
	echo "bench.sh: tables in $RESULTS/bench.txt and bench.md; console $RESULTS/bench.log"
	return $rc
}

# bench.sh -t WORK: only the tables, again, from an earlier run's WORK
# (build/work/<run id>).
if [ "${1:-}" = -t ]; then
	report "${2:?usage: bench.sh -t WORKDIR}"
	exit
fi

kver=$(scripts/kver.sh)
scripts/fetch-kernel.sh >/dev/null
scripts/build-baseline.sh >/dev/null ||
	echo "bench.sh: baseline ext2stock did not build; its column will be missing" >&2
work=$BUILD/work/$EXT2HOLE_RUN_ID
rm -rf "$work"
mkdir -p "$work" "$RESULTS"
initrd=$work/initramfs.cpio
scripts/mkinitramfs.sh "$initrd"

accel=${EXT2HOLE_ACCEL:-$(cat /run/ext2hole-kvm-probe 2>/dev/null || echo tcg)}
load0=$(cut -d' ' -f1-3 /proc/loadavg)
t0=$(date +%s)
echo "bench.sh: booting $kver ($accel); the run takes minutes under TCG..."
rc=0
tests/run-suite.sh bench "$initrd" >"$work/bench.out" 2>&1 || rc=$?
secs=$(($(date +%s) - t0))
load1=$(cut -d' ' -f1-3 /proc/loadavg)
grep -a '^\(FAIL\|SKIP\):' "$work/bench.out" || true
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
echo "kernel $kver; guest ${EXT2HOLE_SMP:-2} vCPUs, ${EXT2HOLE_QEMU_MEM:-1024} MiB; $(date -u '+%Y-%m-%d %H:%M UTC'); host: $cpu, $(nproc) CPUs; QEMU accel $accel; host load average $load0 before, $load1 after (other engineers' guests share the CPUs); N=$(cat "$work/bench/bench.n" 2>/dev/null) repetitions, interleaved; ${secs}s" >"$work/header"
report "$work" || rc=1
exit "$rc"
