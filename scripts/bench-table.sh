#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The benchmark table from the guest's raw figures (lines "rep target
# figure value", tests/suites/bench.guest).
#   usage: bench-table.sh [-m] [-c N] [-p DATFILE] RAW
#   -m       a Markdown table (one row per figure) instead of the text one
#   -c N     check: every target that ran has every figure N times, each a
#            positive number; exit 1 (the gaps on stderr) otherwise.  Speed
#            is never judged.
#   -p FILE  also write the scaling data for gnuplot: per figure family
#            (extgap, meta) and size, the median cost in microseconds per
#            operation of each target
# Per figure and target: min, median and max over the repetitions.  Ratios
# are speeds relative to a baseline (above 1: faster than it): median over
# median, with the spread [worst, best] = [min/max, max/min] of the two
# (for latencies, figures named *_us, baseline over target).  Paired
# ratios (a second table): the repetitions are interleaved, so repetition
# i of two targets ran close together; the ratio of each such pair, median
# [min-max] over the repetitions.  alloc against noalloc is the A/A
# control on the figures where both policies run the same code (buffered
# I/O, metadata: everything but mmap.* and trunc.*): how far apart two
# identical targets come out on this host.
set -euo pipefail

md=0 check=0 dat=''
while getopts 'mc:p:' opt; do
	case $opt in
	m) md=1 ;;
	c) check=$OPTARG ;;
	p) dat=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
raw=${1:?usage: bench-table.sh [-m] [-c N] [-p DATFILE] RAW}

awk -v md="$md" -v check="$check" -v dat="$dat" '
function isnum(s) { return s ~ /^[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?$/ }
function fmt(x) {
	if (x >= 100) return sprintf("%.0f", x)
	if (x >= 10) return sprintf("%.1f", x)
	return sprintf("%.2f", x)
}
# stats(f, t): sets lo, med, hi from the values of figure f, target t
function stats(f, t,    k, n, i, j, v, a) {
	n = cnt[f, t]
	for (i = 1; i <= n; i++) a[i] = val[f, t, i]
	for (i = 2; i <= n; i++) {
		v = a[i]
		for (j = i - 1; j >= 1 && a[j] > v; j--) a[j + 1] = a[j]
		a[j + 1] = v
	}
	lo = a[1]; hi = a[n]
	med = (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
# paired(f, t, b): speed of t relative to b per repetition, "median [min-max]"
function paired(f, t, b,    r, n, i, j, v, x, a) {
	n = 0
	for (r in reps)
		if ((f, t, r) in rv && (f, b, r) in rv) {
			x = (f ~ /_us$/) ? rv[f, b, r] / rv[f, t, r] : rv[f, t, r] / rv[f, b, r]
			a[++n] = x
		}
	if (!n) return "n/a"
	for (i = 2; i <= n; i++) {
		v = a[i]
		for (j = i - 1; j >= 1 && a[j] > v; j--) a[j + 1] = a[j]
		a[j + 1] = v
	}
	return sprintf("%.2f [%.2f-%.2f]", (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2, a[1], a[n])
}
# ratio(f, t, b): speed of t relative to b, "median [worst-best]"
function ratio(f, t, b,    tl, tm, th, bl, bm, bh) {
	if (!cnt[f, t] || !cnt[f, b]) return "n/a"
	stats(f, t); tl = lo; tm = med; th = hi
	stats(f, b); bl = lo; bm = med; bh = hi
	if (f ~ /_us$/)
		return sprintf("%.2f [%.2f-%.2f]", bm / tm, bl / th, bh / tl)
	return sprintf("%.2f [%.2f-%.2f]", tm / bm, tl / bh, th / bl)
}
function unit(f) {
	if (f ~ /_us$/) return "us (lower is better)"
	if (f ~ /_MiBs$/) return "MiB/s"
	if (f ~ /_IOPS$/) return "IOPS"
	if (f ~ /^mmap\./) return "pages/s"
	return "ops/s"
}
NF == 4 {
	f = $3; t = $2
	if (!(f in fseen)) { fseen[f] = 1; figs[++nf] = f }
	if (!(t in tseen)) { tseen[t] = 1 }
	cnt[f, t]++
	val[f, t, cnt[f, t]] = $4
	rv[f, t, $1] = $4
	reps[$1] = 1
	if (!isnum($4) || $4 + 0 <= 0) bad = bad sprintf("  %s %s rep %s: not a positive number: %s\n", t, f, $1, $4)
	next
}
NF { bad = bad "  malformed line: " $0 "\n" }
END {
	nt = 0
	split("alloc order0 noalloc ext2stock ext4 tmpfs", order, " ")
	for (i = 1; i <= 6; i++) if (order[i] in tseen) tg[++nt] = order[i]
	# order0: alloc with nolargefolio (6.12), when it ran
	lf = ("order0" in tseen)
	if (md) {
		printf "| figure | unit |"
		for (j = 1; j <= nt; j++) printf " %s |", tg[j]
		print " alloc vs ext2stock | noalloc vs ext2stock | alloc vs ext4 |"
		printf "|---|---|"
		for (j = 1; j <= nt; j++) printf "---|"
		print "---|---|---|"
		for (i = 1; i <= nf; i++) {
			f = figs[i]
			printf "| %s | %s |", f, unit(f)
			for (j = 1; j <= nt; j++) {
				if (cnt[f, tg[j]]) {
					stats(f, tg[j])
					printf " %s (%s-%s) |", fmt(med), fmt(lo), fmt(hi)
				} else printf " n/a |"
			}
			printf " %s | %s | %s |\n", ratio(f, "alloc", "ext2stock"),
				ratio(f, "noalloc", "ext2stock"), ratio(f, "alloc", "ext4")
		}
		print ""
		print "Paired ratios: per repetition, median [min-max]; alloc vs noalloc is the A/A control where both run the same code (all but `mmap.*`, `trunc.*`)."
		print ""
		print "| figure | alloc vs ext2stock | noalloc vs ext2stock | alloc vs ext4 | alloc vs noalloc |"
		print "|---|---|---|---|---|"
		for (i = 1; i <= nf; i++) {
			f = figs[i]
			printf "| %s | %s | %s | %s | %s |\n", f, paired(f, "alloc", "ext2stock"),
				paired(f, "noalloc", "ext2stock"), paired(f, "alloc", "ext4"),
				paired(f, "alloc", "noalloc")
		}
		if (lf) {
			print ""
			print "Large folios: alloc (largefolio) against order0 (alloc, nolargefolio), paired, with order0 against ext2stock and ext4."
			print ""
			print "| figure | alloc vs order0 | order0 vs ext2stock | order0 vs ext4 |"
			print "|---|---|---|---|"
			for (i = 1; i <= nf; i++) {
				f = figs[i]
				printf "| %s | %s | %s | %s |\n", f, paired(f, "alloc", "order0"),
					paired(f, "order0", "ext2stock"), paired(f, "order0", "ext4")
			}
		}
	} else {
		printf "%-26s %-9s %3s %10s %10s %10s  %-20s %-20s\n", "figure", "target", "n",
			"min", "median", "max", "vs ext2stock", "vs ext4"
		for (i = 1; i <= nf; i++) {
			f = figs[i]
			for (j = 1; j <= nt; j++) {
				t = tg[j]
				if (!cnt[f, t]) continue
				stats(f, t)
				printf "%-26s %-9s %3d %10s %10s %10s  %-20s %-20s\n", f, t, cnt[f, t],
					fmt(lo), fmt(med), fmt(hi), ratio(f, t, "ext2stock"), ratio(f, t, "ext4")
			}
		}
		printf "\n# paired ratios, per repetition: median [min-max]\n"
		printf "%-26s %-20s %-20s %-20s %-20s\n", "figure", "alloc/ext2stock",
			"noalloc/ext2stock", "alloc/ext4", "alloc/noalloc (A/A)"
		for (i = 1; i <= nf; i++) {
			f = figs[i]
			printf "%-26s %-20s %-20s %-20s %-20s\n", f, paired(f, "alloc", "ext2stock"),
				paired(f, "noalloc", "ext2stock"), paired(f, "alloc", "ext4"),
				paired(f, "alloc", "noalloc")
		}
		if (lf) {
			printf "\n# large folios, paired: alloc (largefolio) against order0 (nolargefolio)\n"
			printf "%-26s %-20s %-20s %-20s\n", "figure", "alloc/order0",
				"order0/ext2stock", "order0/ext4"
			for (i = 1; i <= nf; i++) {
				f = figs[i]
				printf "%-26s %-20s %-20s %-20s\n", f, paired(f, "alloc", "order0"),
					paired(f, "order0", "ext2stock"), paired(f, "order0", "ext4")
			}
		}
	}
	if (dat != "") {
		printf "# family size" > dat
		for (j = 1; j <= nt; j++) printf " %s", tg[j] > dat
		printf "\n" > dat
		for (i = 1; i <= nf; i++) {
			f = figs[i]
			if (f !~ /^(extgap|meta)\.[0-9]+$/) continue
			split(f, p, ".")
			printf "%s %s", p[1], p[2] > dat
			for (j = 1; j <= nt; j++) {
				if (cnt[f, tg[j]]) { stats(f, tg[j]); printf " %.6g", 1e6 / med > dat }
				else printf " NaN" > dat
			}
			printf "\n" > dat
		}
	}
	if (check) {
		if (nf == 0) bad = bad "  no figures at all\n"
		if (!("alloc" in tseen) && !("noalloc" in tseen)) bad = bad "  no ext2hole target\n"
		for (i = 1; i <= nf; i++)
			for (j = 1; j <= nt; j++)
				if (cnt[figs[i], tg[j]] != check)
					bad = bad sprintf("  %s %s: %d figures, expected %d\n",
						tg[j], figs[i], cnt[figs[i], tg[j]], check)
		for (t in tseen) {
			k = 0
			for (j = 1; j <= nt; j++) if (tg[j] == t) k = 1
			if (!k) bad = bad "  unknown target " t "\n"
		}
		if (bad != "") { printf "bench-table: incomplete or bad figures:\n%s", bad > "/dev/stderr"; exit 1 }
	}
}' "$raw"
