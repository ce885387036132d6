#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check-dkms: the .deb, end to end, without touching the host's own
# package set and without loading anything into the host's kernel.
#
#  1. scripts/deb.sh builds build/ext2hole-dkms_<v>_all.deb; lintian
#     must find no error or warning that the overrides do not explain.
#  2. A throwaway Debian 12 root (debootstrap --variant=minbase bookworm,
#     from the mirror the host's apt already uses) with dkms, gcc, make and
#     linux-headers-$KVER is unpacked from a cache
#     (/var/cache/ext2hole/dkms-root-$KVER.tar.*; made on first use).
#  3. In that root (chroot): dpkg -i the .deb; its postinst must have DKMS
#     build and install ext2hole.ko for $KVER (the chroot sees the host's
#     `uname -r`, which has no headers there, so DKMS must pick $KVER).
#     The tree in /usr/src builds with plain `make KVER=` and installs
#     with `make install DESTDIR=` (no scripts/ there, no apt-get).
#  4. That very .ko is booted in the QEMU guest: EXT2HOLE_KO=<it>
#     tests/check.sh dkms-smoke (mount a 1 KiB ext2 image, read it back,
#     check /sys/module/ext2hole/version and the .ko's checksum).
#  5. dpkg --purge ext2hole-dkms must leave no trace in the root.
#
# Prints RESULT-style PASS/FAIL lines and `N passed, N failed`; exits 1 on
# any failure.  Must run as root (debootstrap, chroot).
#
#   scripts/check-dkms.sh               the check
#   scripts/check-dkms.sh --wrong-name  self-test: the same check on a .deb
#                                       whose dkms.conf names ext2holex; it
#                                       must FAIL (exit 1)
#   EXT2HOLE_DKMS_KEEP=1                keep the work root afterwards
#   EXT2HOLE_DEBIAN_MIRROR=URL          override the derived mirror
#   EXT2HOLE_SECURITY_MIRROR=URL        override the derived security mirror
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
export BUILD
cd "$TOP"

KVER=$(scripts/kver.sh)
export KVER
SUITE=bookworm
CACHE_DIR=/var/cache/ext2hole
WORKDIR=$BUILD/dkms
ROOT=$WORKDIR/root
LOG=$WORKDIR/check-dkms.log

wrong=0
case "${1:-}" in
"") ;;
--wrong-name) wrong=1 ;;
*) echo "usage: $0 [--wrong-name]" >&2; exit 2 ;;
esac

die() { echo "check-dkms: $*" >&2; exit 2; }
[ "$(id -u)" = 0 ] || die "must run as root (debootstrap, chroot)"

npass=0
nfail=0
pass() { echo "PASS dkms/$1${2:+ $2}"; npass=$((npass + 1)); }
fail() { echo "FAIL dkms/$1 $2"; nfail=$((nfail + 1)); }
check() {
	local name=$1
	shift
	if "$@" >>"$LOG" 2>&1; then pass "$name"; else fail "$name" "'$*' failed"; fi
}
t0=$(date +%s)

# ---------------------------------------------------------------- mounts

# Everything mounted below $1, deepest first.
mounts_under() {
	awk -v r="$1" '$5 == r || index($5, r "/") == 1 { print $5 }' \
		/proc/self/mountinfo | sort -r
}

umount_all() {
	local m
	[ -d "$1" ] || return 0
	for m in $(mounts_under "$(realpath "$1")"); do
		umount "$m" 2>/dev/null || umount -l "$m" || true
	done
}

# rm -rf a root only when nothing is mounted inside it any more.
safe_rmroot() {
	[ -e "$1" ] || return 0
	umount_all "$1"
	if [ -n "$(mounts_under "$(realpath "$1")")" ]; then
		die "refusing to remove $1: still mounted: $(mounts_under "$(realpath "$1")")"
	fi
	rm -rf --one-file-system "$1"
}

mount_root() {
	mountpoint -q "$1/proc" || mount -t proc proc "$1/proc"
}

in_root() { chroot "$ROOT" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
	LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"; }

cleanup() {
	umount_all "$ROOT"
	umount_all "$CACHE_DIR/dkms-root-$KVER.tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ------------------------------------------------------ mirror discovery

# host_mirror ""|-updates|-security: the host's Debian mirror for SUITE
# shellcheck source=scripts/debian-mirror.sh
source "$TOP/scripts/debian-mirror.sh"

# ------------------------------------------------------------ the root

install_host_tools() {
	local need=()
	command -v debootstrap >/dev/null || need+=(debootstrap)
	command -v zstd >/dev/null || need+=(zstd)
	command -v modinfo >/dev/null || need+=(kmod)
	command -v lintian >/dev/null || need+=(lintian)
	if [ ${#need[@]} -gt 0 ]; then
		echo "check-dkms: installing ${need[*]} on the host"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
			--no-install-recommends -o DPkg::Lock::Timeout=600 "${need[@]}"
	fi
}

make_root_cache() {
	local tmp=$CACHE_DIR/dkms-root-$KVER.tmp mirror sec upd valid proxy
	mirror=${EXT2HOLE_DEBIAN_MIRROR:-$(host_mirror "")}
	sec=${EXT2HOLE_SECURITY_MIRROR:-$(host_mirror -security)}
	upd=$(host_mirror -updates)
	[ -n "$mirror" ] || die "no Debian mirror for $SUITE in the host's APT sources"
	echo "check-dkms: making the DKMS root for $KVER from $mirror" \
		"(security: ${sec:-none}); this takes a few minutes"

	# Replicate the host's APT transport settings that matter offline-ish.
	proxy=$(apt-config dump Acquire::http::Proxy | sed -n 's/^Acquire::http::Proxy "\(.*\)";$/\1/p')
	valid=$(apt-config dump Acquire::Check-Valid-Until |
		sed -n 's/^Acquire::Check-Valid-Until "\(.*\)";$/\1/p')
	if [ -n "$proxy" ] && [ -z "${http_proxy:-}" ]; then
		export http_proxy=$proxy
	fi

	safe_rmroot "$tmp"
	mkdir -p "$tmp"
	debootstrap --variant=minbase "$SUITE" "$tmp" "$mirror" \
		>"$WORKDIR/debootstrap.log" 2>&1 || {
		tail -n 30 "$WORKDIR/debootstrap.log" >&2
		die "debootstrap failed (log: $WORKDIR/debootstrap.log)"
	}

	{
		echo "deb $mirror $SUITE main"
		[ -z "$upd" ] || echo "deb $upd $SUITE-updates main"
		[ -z "$sec" ] || echo "deb $sec $SUITE-security main"
	} >"$tmp/etc/apt/sources.list"
	{
		[ -z "$proxy" ] || echo "Acquire::http::Proxy \"$proxy\";"
		[ -z "$valid" ] || echo "Acquire::Check-Valid-Until \"$valid\";"
		echo 'APT::Install-Recommends "false";'
	} >"$tmp/etc/apt/apt.conf.d/90ext2hole"

	mount_root "$tmp"
	local rc=0
	chroot "$tmp" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
		DEBIAN_FRONTEND=noninteractive sh -c "
		apt-get update -q &&
		apt-get install -y -q linux-headers-$KVER dkms gcc make kmod &&
		apt-get clean && rm -rf /var/lib/apt/lists/*" \
		>"$WORKDIR/root-apt.log" 2>&1 || rc=$?
	umount_all "$tmp"
	if [ $rc != 0 ]; then
		tail -n 30 "$WORKDIR/root-apt.log" >&2
		die "installing headers/dkms in the root failed (log: $WORKDIR/root-apt.log)"
	fi
	[ -e "$tmp/lib/modules/$KVER/build/Makefile" ] ||
		die "linux-headers-$KVER did not provide /lib/modules/$KVER/build"

	tar -C "$tmp" --one-file-system -cf - . | zstd -q -T2 -3 -o "$ROOT_CACHE.tmp"
	mv "$ROOT_CACHE.tmp" "$ROOT_CACHE"
	safe_rmroot "$tmp"
}

# ----------------------------------------------------------------- main

mkdir -p "$WORKDIR" "$CACHE_DIR"
rm -rf "$WORKDIR/results" "$WORKDIR"/make.log "$WORKDIR"/guest.out \
	"$WORKDIR"/dpkg-*.log "$WORKDIR/ext2hole.ko"
: >"$LOG"
install_host_tools
ROOT_CACHE=$CACHE_DIR/dkms-root-$KVER.tar.zst

# 1. the package
VERSION=$(scripts/version.sh)
if [ $wrong = 1 ]; then
	echo "check-dkms: SELF-TEST with a dkms.conf naming ext2holex: this run must FAIL"
	scripts/deb.sh --wrong-name >>"$LOG" 2>&1 || die "deb.sh --wrong-name failed (log: $LOG)"
	DEB=$BUILD/wrong-name/ext2hole-dkms_${VERSION}_all.deb
else
	scripts/deb.sh >>"$LOG" 2>&1 || { tail -n 20 "$LOG"; die "deb.sh failed"; }
	DEB=$BUILD/ext2hole-dkms_${VERSION}_all.deb
fi
pass deb-built "$(basename "$DEB") ($(($(date +%s) - t0))s)"

# lintian, Debian's checks, on the source package and the .deb (the
# .changes names both): no error or warning, and every tag of any level
# that remains is explained in debian/source/lintian-overrides or
# debian/ext2hole-dkms.lintian-overrides.
lout=$WORKDIR/lintian.log
lrc=0
changes=
for c in "$(dirname "$DEB")"/deb/ext2hole_"${VERSION}"_*.changes; do
	[ -f "$c" ] && changes=$c && break
done
if [ -z "$changes" ]; then
	fail lintian "no ext2hole_${VERSION}_*.changes next to the .deb (deb.sh builds source and binary)"
else
	lintian --fail-on error,warning --pedantic -I --show-overrides "$changes" >"$lout" 2>&1 || lrc=$?
	grep -v '^running with root privileges' "$lout" | sed 's/^/INFO lintian: /' || true
	cat "$lout" >>"$LOG"
	nbad=$(grep -c '^[EWIPX]: ' "$lout" || true)
	nover=$(grep -c '^O: ' "$lout" || true)
	if [ "$lrc" = 0 ] && [ "$nbad" = 0 ]; then
		pass lintian "$(basename "$changes"): no tag but $nover overridden with a reason"
	else
		fail lintian "lintian rc=$lrc, $nbad tags not overridden (log: $lout)"
	fi
fi

# 2. the root (cached)
exec 9>"$CACHE_DIR/dkms-root-$KVER.lock"
flock 9
[ -f "$ROOT_CACHE" ] || make_root_cache
flock -u 9
echo "INFO root cache present after $(($(date +%s) - t0))s"
safe_rmroot "$ROOT"
mkdir -p "$ROOT"
zstd -q -d -c "$ROOT_CACHE" | tar -C "$ROOT" -xf -
[ -e "$ROOT/lib/modules/$KVER/build/Makefile" ] ||
	die "root cache $ROOT_CACHE has no headers for $KVER; delete it and rerun"
mount_root "$ROOT"
info_t=$(($(date +%s) - t0))
echo "INFO root ready after ${info_t}s ($(basename "$ROOT_CACHE"))"

# The root must not already know ext2hole.
[ ! -e "$ROOT/var/lib/dkms/ext2hole" ] || die "root cache is dirty (has /var/lib/dkms/ext2hole)"

# 3. install: the postinst has DKMS build for $KVER
cp "$DEB" "$ROOT/tmp/"
if in_root dpkg -i "/tmp/$(basename "$DEB")" >"$WORKDIR/dpkg-i.log" 2>&1; then
	pass dpkg-install
else
	fail dpkg-install "dpkg -i failed (log: $WORKDIR/dpkg-i.log)"
fi
cat "$WORKDIR/dpkg-i.log" >>"$LOG"

status=$(in_root dkms status -m ext2hole -v "$VERSION" -k "$KVER" 2>&1 || true)
echo "dkms status: $status" >>"$LOG"
if grep -q "ext2hole/$VERSION, $KVER, [^:]*: installed" <<<"$status"; then
	pass dkms-installed-for-kver "$KVER"
else
	fail dkms-installed-for-kver "dkms status for $KVER: '${status:-empty}'"
fi

hostrel=$(uname -r)
if [ "$hostrel" != "$KVER" ] && [ -e "$ROOT/var/lib/dkms/ext2hole/$VERSION/$hostrel" ]; then
	fail not-for-host-kernel "DKMS built for the host's $hostrel"
else
	pass not-for-host-kernel "(host runs $hostrel)"
fi

mapfile -t kos < <(cd "$ROOT" && find "lib/modules/$KVER" -name 'ext2hole.ko*' 2>/dev/null)
KO=
# DKMS compresses the module as the kernel's own are (6.12: .ko.xz).
want=lib/modules/$KVER/updates/dkms/ext2hole.ko
if [ ${#kos[@]} = 1 ] && { [ "${kos[0]}" = "$want" ] ||
	[ "${kos[0]}" = "$want.xz" ] || [ "${kos[0]}" = "$want.zst" ]; }; then
	KO=$ROOT/${kos[0]}
	pass ko-installed "/${kos[0]}"
else
	fail ko-installed "expected exactly /lib/modules/$KVER/updates/dkms/ext2hole.ko[.xz|.zst], found: ${kos[*]:-nothing}"
fi

# DKMS keeps the log of a good build under <kver>/<arch>/log/, a failed
# one stays in build/make.log.
makelog=$ROOT/var/lib/dkms/ext2hole/$VERSION/$KVER/$(uname -m)/log/make.log
if [ -f "$makelog" ] && grep -q "for kernel $KVER" "$makelog"; then
	pass make-log "${makelog#"$ROOT"}"
else
	fail make-log "no make.log for $KVER at ${makelog#"$ROOT"}"
	if [ -f "$ROOT/var/lib/dkms/ext2hole/$VERSION/build/make.log" ]; then
		cp "$ROOT/var/lib/dkms/ext2hole/$VERSION/build/make.log" "$WORKDIR/make.log"
		echo "INFO failed DKMS build log: $WORKDIR/make.log"
		tail -n 30 "$WORKDIR/make.log" >>"$LOG"
	fi
fi

if [ -n "$KO" ]; then
	vermagic=$(modinfo -F vermagic "$KO" 2>>"$LOG" || true)
	modver=$(modinfo -F version "$KO" 2>>"$LOG" || true)
	license=$(modinfo -F license "$KO" 2>>"$LOG" || true)
	if [ "${vermagic%% *}" = "$KVER" ]; then
		pass ko-vermagic "$KVER"
	else
		fail ko-vermagic "vermagic '$vermagic' is not for $KVER"
	fi
	if [ "$modver" = "$VERSION" ]; then
		pass ko-version "$modver"
	else
		fail ko-version "modinfo version '$modver' != package $VERSION"
	fi
	if [ "$license" = GPL ] || [ "$license" = "GPL v2" ]; then
		pass ko-license "$license"
	else
		fail ko-license "license '$license'"
	fi
	if grep -Eq "^(/lib/modules/[^/]*/)?updates/dkms/ext2hole\.ko(\.xz|\.zst)?:" \
		"$ROOT/lib/modules/$KVER/modules.dep"; then
		pass depmod
	else
		fail depmod "ext2hole.ko not in modules.dep"
	fi
	case $KO in
	*.xz) xz -dc "$KO" >"$WORKDIR/ext2hole.ko" ;;
	*.zst) zstd -qdc "$KO" >"$WORKDIR/ext2hole.ko" ;;
	*) cp "$KO" "$WORKDIR/ext2hole.ko" ;;
	esac
	ko_sum=$(sha256sum "$WORKDIR/ext2hole.ko" | cut -d' ' -f1)
	echo "INFO dkms-built module sha256 $ko_sum"
fi

# The tree in /usr/src builds on its own with plain make (no scripts/,
# no apt-get): `make KVER=` builds against /lib/modules/KVER/build, and
# `make install` puts the module in a DESTDIR and runs depmod there.
# Without KVER it would take `uname -r` (the host's kernel here).
src=/usr/src/ext2hole-$VERSION
if in_root sh -c "rm -rf /tmp/plain /tmp/destdir && cp -a $src /tmp/plain &&
	make -C /tmp/plain KVER=$KVER && make -C /tmp/plain install KVER=$KVER DESTDIR=/tmp/destdir" \
	>"$WORKDIR/plain-make.log" 2>&1 &&
	[ "$(modinfo -F version "$ROOT/tmp/destdir/lib/modules/$KVER/updates/ext2hole.ko" 2>/dev/null)" = "$VERSION" ] &&
	grep -q '^updates/ext2hole\.ko:' "$ROOT/tmp/destdir/lib/modules/$KVER/modules.dep"; then
	pass plain-make "make KVER=$KVER; make install DESTDIR= in $src"
else
	fail plain-make "plain make / make install in a copy of $src failed (log: $WORKDIR/plain-make.log)"
fi
cat "$WORKDIR/plain-make.log" >>"$LOG"
# (make -n still runs the recursive make, which fails: no headers for
# the host's kernel in the root.)
pout=$(in_root make -n -C "$src" 2>&1 || true)
if grep -q -- "-C /lib/modules/$(uname -r)/build M=$src modules" <<<"$pout"; then
	pass plain-make-uname "plain make takes the running kernel"
else
	fail plain-make-uname "make -n in $src does not build for \`uname -r\`: $(tail -n 2 <<<"$pout" | tr '\n' ' ')"
fi
in_root rm -rf /tmp/plain /tmp/destdir

# BUILD_EXCLUSIVE_KERNEL: another series is refused (dkms exit 77), not
# built and not failed.
xrc=0
in_root dkms build -m ext2hole -v "$VERSION" -k 5.10.0-99-amd64 \
	--kernelsourcedir "/lib/modules/$KVER/build" >>"$LOG" 2>&1 || xrc=$?
if [ "$xrc" = 77 ]; then
	pass build-exclusive "5.10 refused (exit 77)"
else
	fail build-exclusive "dkms build for 5.10.0-99-amd64 exited $xrc, want 77"
fi

# 4. boot that .ko in the guest
if [ -z "$KO" ]; then
	fail guest-smoke "no DKMS-built module to boot"
elif [ ! -x tests/check.sh ]; then
	fail guest-smoke "tests/check.sh (the guest harness) is missing"
else
	gout=$WORKDIR/guest.out
	grc=0
	# A private BUILD and results dir: the initramfs made here carries the
	# DKMS module and must not replace the one a parallel `make check` in
	# this tree is using.  No ext2stock baseline is needed.
	mkdir -p "$WORKDIR/harness"
	BUILD=$WORKDIR/harness EXT2HOLE_RESULTS=$WORKDIR/results \
		EXT2HOLE_STOCK_KO=$WORKDIR/harness/no-ext2stock.ko \
		EXT2HOLE_KO=$WORKDIR/ext2hole.ko EXT2HOLE_DKMS_KO_SHA256=$ko_sum \
		tests/check.sh dkms-smoke >"$gout" 2>&1 || grc=$?
	cat "$gout" >>"$LOG"
	# Pass the guest's verdicts through.
	grep -E '^(PASS|FAIL|SKIP): ' "$gout" | sed 's/^/  guest /' || true
	gp=$(grep -c '^PASS: ' "$gout" || true)
	gf=$(grep -c '^FAIL: ' "$gout" || true)
	if [ "$grc" = 0 ] && [ "$gp" -gt 0 ] && [ "$gf" = 0 ]; then
		pass guest-smoke "$gp guest checks passed (tests/check.sh dkms-smoke)"
	else
		fail guest-smoke "tests/check.sh dkms-smoke: rc=$grc, $gp passed, $gf failed (log: $gout, $WORKDIR/results/)"
	fi
fi

# 5. purge leaves nothing behind
if in_root dpkg --purge ext2hole-dkms >"$WORKDIR/dpkg-purge.log" 2>&1; then
	pass dpkg-purge
else
	fail dpkg-purge "dpkg --purge failed (log: $WORKDIR/dpkg-purge.log)"
fi
cat "$WORKDIR/dpkg-purge.log" >>"$LOG"
left=$(cd "$ROOT" && {
	ls -d var/lib/dkms/ext2hole usr/src/ext2hole-* 2>/dev/null
	find "lib/modules/$KVER" -name 'ext2hole.ko*' 2>/dev/null
	grep -l 'ext2hole' "lib/modules/$KVER"/modules.dep "lib/modules/$KVER"/modules.alias 2>/dev/null
	dpkg-query --admindir=var/lib/dpkg -W -f='${db:Status-Abbrev} ${Package}\n' \
		ext2hole-dkms 2>/dev/null | grep -v '^un\|^ *$'
} || true)
if [ -z "$left" ]; then
	pass purge-clean
else
	fail purge-clean "left behind: $(echo "$left" | tr '\n' ' ')"
fi

umount_all "$ROOT"
if [ -z "${EXT2HOLE_DKMS_KEEP:-}" ] && [ "$nfail" = 0 ]; then
	safe_rmroot "$ROOT"
fi

echo "INFO check-dkms took $(($(date +%s) - t0))s; log: $LOG"
[ $wrong = 0 ] || echo "INFO self-test: failures are EXPECTED in --wrong-name mode"
echo "$npass passed, $nfail failed"
[ "$nfail" = 0 ]
