#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The scaling plot of make bench: cost per operation (median, microseconds)
# against size, one panel per workload family (extgap: extending writes
# with a gap, per write; meta: create + write 4 KiB + unlink, per file),
# one line per target.  A flat line is a per-operation cost that does not
# grow with size.
#   usage: bench-plot.sh DATFILE PNG TITLE
set -euo pipefail
dat=$1 png=$2 title=$3

# The targets are the header's words after "# family size".
read -r -a tg < <(head -n 1 "$dat" | cut -d' ' -f4-)
panel() {	# panel FAMILY LABEL
	local i plot=''
	for i in "${!tg[@]}"; do
		plot+="${plot:+, }\"< grep '^$1 ' $dat\" using 2:$((i + 3)) with linespoints title '${tg[$i]}'"
	done
	printf 'set title "%s"\nplot %s\n' "$2" "$plot"
}
gnuplot <<GP
set terminal pngcairo size 1000,420 noenhanced
set output "$png"
set multiplot layout 1,2 title "ext2hole bench scaling: $title"
set logscale xy
set xlabel "size (operations)"
set ylabel "microseconds per operation (median)"
set key top left
set grid
$(panel extgap "extending 4 KiB writes past a 3000-byte gap")
$(panel meta "create, write 4 KiB, unlink (per file)")
unset multiplot
GP
