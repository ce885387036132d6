#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fstests-table.sh - one Markdown table from the fstests lane's
# machine-readable results (scripts/fstests.sh writes
# <results>/<lane>/results.tsv): totals per target, the tests where
# ext2hole fails or hangs while the ext4 driver passes, the failures every
# target has, the notruns grouped by reason, and one row a test with each
# target's verdict and time.
#
#   scripts/fstests-table.sh DIR...
#
# Each DIR is one run (results/fstests) or one shard of one
# (results/fstests/full-3of16); the lanes under it are the targets.  A
# test met in several DIRs keeps its last verdict.  Prints to stdout;
# exits 1 when no results.tsv was found.
set -euo pipefail

files=()
for d in "$@"; do
	for f in "$d"/*/results.tsv; do
		[ -f "$f" ] && files+=("$f")
	done
done
[ ${#files[@]} -gt 0 ] || { echo "fstests-table: no results.tsv under $*" >&2; exit 1; }

awk -F '\t' -v ndirs="$#" '
function esc(s) { gsub(/\|/, "\\|", s); return s }
# the reason of a notrun, with what varies between tests made general
function why(s) {
	sub(/^.*\[not run\] */, "", s)
	# numbers made general, filesystem names kept
	gsub(/ext2/, "\001", s); gsub(/ext4/, "\002", s)
	gsub(/[0-9]+/, "N", s)
	gsub(/\001/, "ext2", s); gsub(/\002/, "ext4", s)
	gsub(/\/dev\/[a-z0-9]+/, "DEV", s)
	gsub(/generic\/N|ext4\/N/, "TEST", s)
	return substr(s, 1, 110)
}
FNR == 1 { lane = ""; shard = FILENAME; sub(/\/[^\/]*\/results\.tsv$/, "", shard) }
/^# / {
	k = $0; sub(/^# /, "", k); v = k; sub(/^[^ ]+ /, "", v); sub(/ .*$/, "", k)
	if (k == "lane") {
		lane = v
		if (!(lane in seen)) { seen[lane] = 1; order[++nl] = lane }
	} else if (k == "wall") wall[lane] += v
	else if (k == "kernel") kern[v] = 1
	else if (k == "fstests") src[v] = 1
	else if (k == "selection") { s = v; sub(/, shard.*/, "", s); sel[s] = 1 }
	else if (k == "driver") drv[lane] = v
	else if (k == "options") opt[lane] = v
	shards[shard] = 1
	next
}
{
	t = $1
	if (!(t in tseen)) { tseen[t] = 1; tests[++nt] = t }
	st[t, lane] = $2; secs[t, lane] = $3; rsn[t, lane] = $4
}
END {
	# the targets in the lane script order: alloc, noalloc, ext4, others
	m = 0
	split("alloc noalloc ext4", pref, " ")
	for (k = 1; k <= 3; k++) if (pref[k] in seen) { o2[++m] = pref[k]; used[pref[k]] = 1 }
	for (l = 1; l <= nl; l++) if (!(order[l] in used)) o2[++m] = order[l]
	for (l = 1; l <= nl; l++) order[l] = o2[l]
	ns = 0; for (s in shards) ns++
	ks = ""; for (k in kern) ks = ks (ks == "" ? "" : ", ") k
	fs = ""; for (k in src) fs = fs (fs == "" ? "" : ", ") k
	ss = ""; for (k in sel) ss = ss (ss == "" ? "" : ", ") k
	printf "fstests selection %s: %d tests from %d result directories; kernel %s; fstests %s.\n\n", ss, nt, ns, ks, fs
	# sort the tests: generic/ then ext4/, by number
	for (i = 1; i <= nt; i++) {
		split(tests[i], p, "/"); key[i] = p[1] sprintf("%06d", p[2])
	}
	for (i = 2; i <= nt; i++) {
		x = tests[i]; y = key[i]
		for (j = i - 1; j >= 1 && key[j] > y; j--) { tests[j + 1] = tests[j]; key[j + 1] = key[j] }
		tests[j + 1] = x; key[j + 1] = y
	}
	printf "| target | driver, options | pass | fail | hang | notrun | expunged | not in this run | guest time |\n"
	printf "|---|---|---|---|---|---|---|---|---|\n"
	for (l = 1; l <= nl; l++) {
		L = order[l]; np = nf = nh = nn = ne = nx = 0
		for (i = 1; i <= nt; i++) {
			s = st[tests[i], L]
			if (s == "pass") np++
			else if (s == "fail") nf++
			else if (s == "hang") nh++
			else if (s == "notrun") nn++
			else if (s == "expunged") ne++
			else nx++
		}
		o = opt[L]; o = (o == "-" || o == "") ? "" : " " o
		printf "| %s | %s%s | %d | %d | %d | %d | %d | %d | %dh%02dm |\n", L, drv[L], esc(o), np, nf, nh, nn, ne, nx, wall[L] / 3600, (wall[L] % 3600) / 60
	}
	ref = ("ext4" in seen) ? "ext4" : ""
	printf "\n## ext2hole fails or hangs where the ext4 driver passes\n\n"
	n = 0
	for (i = 1; i <= nt; i++) {
		t = tests[i]
		if (ref == "" || st[t, ref] != "pass") continue
		for (l = 1; l <= nl; l++) {
			L = order[l]
			if (L == ref || (st[t, L] != "fail" && st[t, L] != "hang")) continue
			printf "- %s on %s (%s): %s\n", t, L, st[t, L], esc(rsn[t, L]); n++
		}
	}
	if (ref == "") print "(no ext4-driver lane in these results)"
	else if (n == 0) print "None."
	printf "\n## Fails or hangs on ext2hole and on the ext4 driver\n\n"
	n = 0
	for (i = 1; i <= nt; i++) {
		t = tests[i]
		if (ref == "" || (st[t, ref] != "fail" && st[t, ref] != "hang")) continue
		line = ""
		for (l = 1; l <= nl; l++) {
			L = order[l]
			if (L != ref && (st[t, L] == "fail" || st[t, L] == "hang")) line = line " " L
		}
		if (line == "") continue
		printf "- %s:%s and ext4 (%s): %s\n", t, line, st[t, ref], esc(rsn[t, ref]); n++
	}
	if (n == 0) print "None."
	printf "\n## Not run, by reason\n\n| reason |"
	for (l = 1; l <= nl; l++) printf " %s |", order[l]
	printf "\n|---|"
	for (l = 1; l <= nl; l++) printf "---|"
	printf "\n"
	nr = 0
	for (i = 1; i <= nt; i++)
		for (l = 1; l <= nl; l++) {
			t = tests[i]; L = order[l]
			if (st[t, L] != "notrun") continue
			r = why(rsn[t, L])
			if (!(r in rseen)) { rseen[r] = 1; reasons[++nr] = r }
			rc[r, L]++
		}
	for (k = 1; k <= nr; k++) {
		printf "| %s |", esc(reasons[k])
		for (l = 1; l <= nl; l++) printf " %d |", rc[reasons[k], order[l]]
		printf "\n"
	}
	printf "\n## Every test\n\nVerdict and seconds per target; the reason where a target did not pass.\n\n| test |"
	for (l = 1; l <= nl; l++) printf " %s |", order[l]
	printf " reason |\n|---|"
	for (l = 1; l <= nl; l++) printf "---|"
	printf "---|\n"
	for (i = 1; i <= nt; i++) {
		t = tests[i]; printf "| %s |", t; note = ""
		for (l = 1; l <= nl; l++) {
			L = order[l]; s = st[t, L]
			if (s == "") { printf " - |"; continue }
			printf " %s%s |", s, (secs[t, L] != "-" && secs[t, L] != "") ? " " secs[t, L] : ""
			if (s != "pass" && note == "") note = L ": " (s == "notrun" ? why(rsn[t, L]) : substr(rsn[t, L], 1, 110))
		}
		printf " %s |\n", esc(note)
	}
}' "${files[@]}"
