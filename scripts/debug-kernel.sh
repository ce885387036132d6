#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# debug-kernel.sh - build (or locate) the KASAN/lockdep/kmemleak debug kernel,
# or with EXT2HOLE_DEBUG_FLAVOUR=kcsan the KCSAN/lockdep one.
#
# The kernel comes from the packaged linux-source-SERIES tarball of KVER's
# version (SERIES 6.1 or 6.12, scripts/kernel-lib.sh), configured with
# `make tinyconfig` + scripts/debug.config (merge_config.sh), and is cached
# outside the repo in /var/cache/ext2hole/debug/<srcver>-<confighash>/
# (KCSAN: <srcver>-kcsan-<confighash>/):
#
#   linux-source-SERIES/  the configured, built tree (build external modules here)
#   bzImage             copy of arch/x86/boot/bzImage
#   release             `make kernelrelease`
#   modroot/            modules_install root (EXT2HOLE_MODDIR); no modules, all =y
#   build.log, build.time
#
# Usage: scripts/debug-kernel.sh [--print|--force]
#   --print  only print KEY=VALUE lines (DIR, TREE, KERNEL, RELEASE, MODDIR) and
#            exit 0 if the kernel is built, 1 if not
#   --force  rebuild even if cached
# Heavy work runs under `nice -n 19` with at most -j${EXT2HOLE_JOBS:-2}.
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/kernel-lib.sh
source "$TOP/scripts/kernel-lib.sh"
KVER=$("$TOP/scripts/kver.sh")
SERIES=$(kseries "$KVER")
CACHE=${EXT2HOLE_DEBUG_CACHE:-/var/cache/ext2hole/debug}
FLAVOUR=${EXT2HOLE_DEBUG_FLAVOUR:-kasan}
JOBS=${EXT2HOLE_JOBS:-2}
BASE=tinyconfig
# The fragment: debug.config, and for KCSAN scripts/kcsan.config after it
# (a symbol set twice keeps the later line).
# A series may add its own (scripts/debug-SERIES.config), merged next.
FRAGS=("$TOP/scripts/debug.config")
[ -f "$TOP/scripts/debug-$SERIES.config" ] && FRAGS+=("$TOP/scripts/debug-$SERIES.config")
case $FLAVOUR in
kasan) ;;
kcsan) FRAGS+=("$TOP/scripts/kcsan.config") ;;
*) echo "debug-kernel.sh: EXT2HOLE_DEBUG_FLAVOUR is kasan or kcsan" >&2; exit 2 ;;
esac
frag_merged() {
	awk '{ sym = $0
	       if (sym ~ /^# CONFIG_.* is not set$/) { sub(/^# /, "", sym); sub(/ is not set$/, "", sym) }
	       else if (sym ~ /^CONFIG_/) sub(/=.*/, "", sym)
	       else next
	       if (!(sym in line)) order[++n] = sym
	       line[sym] = $0 }
	     END { for (i = 1; i <= n; i++) print line[order[i]] }' "${FRAGS[@]}"
}

mode=build
case "${1:-}" in
--print) mode=print ;;
--force) mode=force ;;
"") ;;
*) echo "usage: $0 [--print|--force]" >&2; exit 2 ;;
esac

if [ -n "${EXT2HOLE_LINUX_SOURCE:-}" ]; then
	TARBALL=$EXT2HOLE_LINUX_SOURCE
	srcver=$(stat -c %Y "$TARBALL")
else
	srcver=$(kpkgver "$KVER")
	TARBALL=
fi
# the KASAN kernel keeps the cache name it always had
if [ "$FLAVOUR" = kasan ]; then
	hash=$( { echo "base=$BASE"; cat "${FRAGS[@]}"; } | sha256sum | cut -c1-12)
	DIR=$CACHE/$srcver-$hash
else
	hash=$( { echo "base=$BASE"; frag_merged; } | sha256sum | cut -c1-12)
	DIR=$CACHE/$srcver-$FLAVOUR-$hash
fi
TREE=$DIR/linux-source-$SERIES

print_vars() {
	echo "DIR=$DIR"
	echo "TREE=$TREE"
	echo "KERNEL=$DIR/bzImage"
	echo "RELEASE=$(cat "$DIR/release" 2>/dev/null || true)"
	echo "MODDIR=$DIR/modroot"
}

if [ "$mode" = print ]; then
	print_vars
	[ -f "$DIR/bzImage" ] && [ -f "$DIR/release" ]
	exit
fi

# One builder at a time per cache entry; later callers wait for it and
# then find the kernel cached.
mkdir -p "$DIR"
exec 9>"$DIR/.lock"
if ! flock -n 9; then
	echo "debug-kernel.sh: another build of $DIR is running; waiting" >&2
	flock 9
fi

if [ "$mode" = build ] && [ -f "$DIR/bzImage" ] && [ -f "$DIR/release" ]; then
	echo "debug kernel cached:" >&2
	print_vars
	exit 0
fi

mkdir -p "$DIR"
start=$(date +%s)
# A built tree of the same source under another config hash is a cheaper
# start than a fresh extraction: olddefconfig below rewrites .config, and
# kbuild's per-option dependencies rebuild only the objects the changed
# options reach (minutes instead of most of an hour).  Copied, never
# hard-linked: the build rewrites objects in place.
if [ ! -f "$TREE/.ext2hole-extracted" ] && [ -z "${EXT2HOLE_DEBUG_NOSEED:-}" ]; then
	for seed in "$CACHE/$srcver"-*/linux-source-"$SERIES"; do
		if [ "$seed" = "$TREE" ] || [ ! -f "$seed/.ext2hole-extracted" ] ||
		   [ ! -f "$(dirname "$seed")/bzImage" ]; then
			continue
		fi
		echo "seeding $TREE from $seed" >&2
		rm -rf "$TREE"
		nice -n 19 cp -a "$seed" "$TREE"
		break
	done
fi
if [ ! -f "$TREE/.ext2hole-extracted" ]; then
	[ -n "$TARBALL" ] || TARBALL=$(ksource "$KVER")
	echo "extracting $TARBALL -> $DIR" >&2
	rm -rf "$TREE"
	nice -n 19 tar -xJf "$TARBALL" -C "$DIR"
	touch "$TREE/.ext2hole-extracted"
fi

cd "$TREE"
nice -n 19 make -s $BASE >/dev/null
FRAG=$DIR/fragment.config
frag_merged >"$FRAG"
nice -n 19 scripts/kconfig/merge_config.sh -m .config "$FRAG" >"$DIR/merge.log" 2>&1
nice -n 19 make -s olddefconfig

# Every option the fragment asks for must have survived olddefconfig.
missing=0
while IFS= read -r line; do
	case "$line" in
	CONFIG_*=*) want=$line ;;
	"# CONFIG_"*" is not set") want=$line ;;
	*) continue ;;
	esac
	sym=${want#\# }
	sym=${sym%%=*}
	sym=${sym%% *}
	got=$(grep -E "^($sym=|# $sym is not set)" .config || true)
	if [ "$want" != "$got" ] && ! { [ -z "$got" ] && [ "${want#\# }" != "$want" ]; }; then
		echo "config: wanted '$want', got '${got:-<absent>}'" >&2
		missing=$((missing + 1))
	fi
done <"$FRAG"
[ "$missing" -eq 0 ] || echo "WARNING: $missing requested options did not stick" >&2

echo "building in $TREE (nice -n 19 make -j$JOBS), log $DIR/build.log" >&2
bstart=$(date +%s)
nice -n 19 make -j"$JOBS" >"$DIR/build.log" 2>&1 &
mpid=$!
# a line a minute: the build takes most of an hour on two cores
while kill -0 "$mpid" 2>/dev/null; do
	for _ in $(seq 60); do
		kill -0 "$mpid" 2>/dev/null || break
		sleep 1
	done
	kill -0 "$mpid" 2>/dev/null &&
		echo "debug-kernel.sh: $((($(date +%s) - bstart) / 60)) min, $(grep -c '^  CC' "$DIR/build.log") files compiled" >&2
done
wait "$mpid" || {
	tail -30 "$DIR/build.log" >&2
	exit 1
}
rm -rf "$DIR/modroot"
nice -n 19 make -s INSTALL_MOD_PATH="$DIR/modroot" modules_install >>"$DIR/build.log" 2>&1
make -s kernelrelease >"$DIR/release"
cp arch/x86/boot/bzImage "$DIR/bzImage"
end=$(date +%s)
echo "total=$((end - start))s compile=$((end - bstart))s jobs=$JOBS" >"$DIR/build.time"
echo "debug kernel built in $((end - start))s (compile $((end - bstart))s)" >&2
print_vars
