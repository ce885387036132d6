# SPDX-License-Identifier: GPL-2.0
# Indexed-directory images (host side), for the htree and readdir suites.
# shellcheck shell=bash

# htree_full_img FILE: an image whose /full holds 47100 names of 255
# bytes in two index levels, the dx_root and all but its last dx_node
# full, every leaf too full for one more such name (an add of one cannot
# keep the index); every 471st name in $WORK/in/names.full.  The
# directory is written linear by debugfs (a file whose blocks are made here, turned into a
# directory), then e2fsck -fyD fixes the link counts and indexes it: 15700
# leaves of three 255-byte names (e2fsck leaves 20% of a leaf free) need
# 124 dx_nodes of 127, the root's limit.
htree_full_img() {
	local f=$1 a b d
	rm -rf "$WORK/tree"
	mkdir -p "$WORK/tree"
	touch "$WORK/tree/f0" "$WORK/tree/f1"
	mkimg "$f" 40M -b 1024 -N 2048 -O dir_index -d "$WORK/tree"
	a=$(debugfs -R "stat /f0" "$f" 2>/dev/null | sed -n 's/^Inode: \([0-9]*\) .*/\1/p')
	b=$(debugfs -R "stat /f1" "$f" 2>/dev/null | sed -n 's/^Inode: \([0-9]*\) .*/\1/p')
	d=$(debugfs -R ffi "$f" 2>&1 | sed -n 's/^Free inode found: \([0-9]*\).*/\1/p')
	# '.' (inode d) and '..' in block 0, then three names a block
	perl -e '
		my ($dot, $a, $b, $n) = @ARGV;
		sub ent {
			my ($ino, $name, $rec, $ft) = @_;
			return pack("VvCC", $ino, $rec, length($name), $ft) . $name .
			       ("\0" x ($rec - 8 - length($name)));
		}
		binmode STDOUT;
		print ent($dot, ".", 12, 2), ent(2, "..", 1012, 2);
		for my $k (0 .. 3 * $n - 1) {
			my $name = sprintf("full%06d-", $k);
			$name .= "w" x (255 - length($name));
			print ent($k % 2 ? $a : $b, $name, $k % 3 < 2 ? 264 : 496, 1);
		}' "$d" "$a" "$b" 15700 >"$WORK/full.dir"
	printf 'write %s full\nsif /full mode 040755\nsif /full links_count 2\n' \
		"$WORK/full.dir" | debugfs -w -f - "$f" >/dev/null 2>&1
	rm -f "$WORK/full.dir"
	e2fsck -fyD "$f" >/dev/null 2>&1 || true
	e2fsck -fn "$f" >/dev/null 2>&1
	awk 'BEGIN { for (k = 0; k < 47100; k += 471) {
		s = sprintf("full%06d-", k); while (length(s) < 255) s = s "w"; print s } }' \
		>"$WORK/in/names.full"
}
