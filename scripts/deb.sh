#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make deb: build/ext2hole-dkms_<version>_all.deb from the `make dist`
# tarball and debian/ (dh + dh_dkms), with dpkg-buildpackage in a copy
# under build/deb/, which also holds the source package (.dsc, .changes)
# for lintian.  Installs its build dependencies (debhelper, dh-dkms,
# dpkg-dev) with apt-get when missing: run as root then.
#
#   scripts/deb.sh                the package
#   scripts/deb.sh --wrong-name   a deliberately broken package whose
#                                 dkms.conf names ext2holex.ko (for the
#                                 check-dkms self-test), written to
#                                 build/wrong-name/ instead
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
export BUILD

die() { echo "deb.sh: $*" >&2; exit 1; }

wrong=0
case "${1:-}" in
"") ;;
--wrong-name) wrong=1 ;;
*) die "usage: $0 [--wrong-name]" ;;
esac

need=()
command -v dpkg-buildpackage >/dev/null || need+=(dpkg-dev)
command -v dh >/dev/null || need+=(debhelper)
command -v dh_dkms >/dev/null || need+=(dh-dkms)
command -v fakeroot >/dev/null || need+=(fakeroot)
if [ ${#need[@]} -gt 0 ]; then
	[ "$(id -u)" = 0 ] || die "need ${need[*]}: run as root or install them"
	echo "deb.sh: installing ${need[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		-o DPkg::Lock::Timeout=600 "${need[@]}"
fi

"$TOP/scripts/dist.sh"
version=$("$TOP/scripts/version.sh")
name=ext2hole-$version

if [ $wrong = 1 ]; then
	work=$BUILD/wrong-name/deb
	outdir=$BUILD/wrong-name
else
	work=$BUILD/deb
	outdir=$BUILD
fi
rm -rf "$work"
mkdir -p "$work"
tar -C "$work" -xzf "$BUILD/$name.tar.gz"
# The Debian build starts from dkms.conf as it is in git: dh_dkms -V
# (debian/rules) writes the changelog's version in, not dist.sh.
cp "$TOP/dkms.conf" "$work/$name/dkms.conf"
if [ $wrong = 1 ]; then
	sed -i 's/^BUILT_MODULE_NAME\[0\]=.*/BUILT_MODULE_NAME[0]="ext2holex"/' \
		"$work/$name/dkms.conf"
	grep -q '^BUILT_MODULE_NAME\[0\]="ext2holex"' "$work/$name/dkms.conf" ||
		die "could not break dkms.conf"
fi

(cd "$work/$name" && dpkg-buildpackage -us -uc -rfakeroot) > "$work/build.log" 2>&1 || {
	tail -n 40 "$work/build.log" >&2
	die "dpkg-buildpackage failed (log: $work/build.log)"
}

deb=ext2hole-dkms_${version}_all.deb
[ -f "$work/$deb" ] || die "dpkg-buildpackage made no $deb"
mkdir -p "$outdir"
cp "$work/$deb" "$outdir/$deb"

# The package must carry the sources and dkms.conf under /usr/src and
# hand them to DKMS in its maintainer scripts.
contents=$(dpkg-deb -c "$outdir/$deb")
for f in dkms.conf Kbuild Makefile include/ext2hole.h; do
	grep -q "./usr/src/$name/$f\$" <<<"$contents" ||
		die "$deb lacks /usr/src/$name/$f"
done
for o in $(grep -o 'src/[A-Za-z0-9_]*\.o' "$TOP/Kbuild"); do
	grep -q "./usr/src/$name/${o%.o}.c\$" <<<"$contents" ||
		die "Kbuild names $o but $deb lacks /usr/src/$name/${o%.o}.c"
done
# Sources only: debian/ext2hole-dkms.install names them by kind, so a
# built tree cannot leak kbuild outputs into the package.
extra=$(awk '$6 ~ "^\\./usr/src/" && $6 !~ "/$" { print $6 }' <<<"$contents" |
	grep -Ev "^\./usr/src/$name/(Kbuild|Makefile|dkms\.conf|src/[A-Za-z0-9_]+\.c|include/[A-Za-z0-9_]+\.h)\$" || true)
[ -z "$extra" ] || die "$deb ships more than sources under /usr/src: $extra"
grep -q "^\./usr/sbin/fsck\.ext2hole\$" < <(awk '{ print $6 }' <<<"$contents") ||
	die "$deb lacks /usr/sbin/fsck.ext2hole"
# dh_dkms -V wrote the changelog's version into the shipped dkms.conf.
dpkg-deb --fsys-tarfile "$outdir/$deb" | tar -xOf - "./usr/src/$name/dkms.conf" |
	grep -q "^PACKAGE_VERSION=\"$version\"\$" ||
	die "$deb: /usr/src/$name/dkms.conf does not say PACKAGE_VERSION=\"$version\""
dpkg-deb -I "$outdir/$deb" postinst | grep -q 'common.postinst' ||
	die "$deb postinst does not run DKMS"
dpkg-deb -I "$outdir/$deb" prerm | grep -q 'dkms remove' ||
	die "$deb prerm does not remove the DKMS module"
echo "deb.sh: wrote $outdir/$deb"
