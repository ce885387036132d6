#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install what building and testing ext2hole needs, when it is missing.
# Runs as root on Debian 12 (apt-get); as another user it only reports.
#   deps.sh build   compiler and the packaged headers: the module and the
#                   static test programs (plain `make`)
#   deps.sh [all]   that, and what the guest needs: QEMU, busybox-static,
#                   e2fsprogs, the kernel source for the ext2stock baseline
#   deps.sh debug   all of that, and what building a whole kernel from
#                   linux-source needs (make check-debug)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/kernel-lib.sh
source "$here/kernel-lib.sh"

kver=$("$here/kver.sh" 2>/dev/null || true)
if [ -z "$kver" ]; then
	# A fresh machine has no package lists yet: resolve after an update.
	if [ "$(id -u)" = 0 ]; then
		apt-get update -q >/dev/null
		kver=$("$here/kver.sh")
	else
		echo "deps.sh: cannot resolve the packaged kernel; run as root" >&2
		exit 1
	fi
fi

# The 6.12 headers depend on their linux-image package, so installing them
# also puts that kernel in the host's /boot (the host never boots it here).
series=$(kseries "$kver")
pkgs=(make gcc libc6-dev "linux-headers-$kver")
if [ "${1:-all}" != build ]; then
	pkgs+=("linux-source-$series" qemu-system-x86 busybox-static e2fsprogs
	       dmsetup kmod cpio xz-utils gzip attr acl fio xfsprogs quota
	       checkpolicy)
fi
if [ "${1:-all}" = debug ]; then
	pkgs+=(flex bison bc libelf-dev libssl-dev rsync)
fi
# shellcheck disable=SC2206  # a list of package names
pkgs+=(${EXT2HOLE_EXTRA_PKGS:-})
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "deps.sh: missing packages (run as root to install): ${missing[*]}" >&2
	exit 1
fi
echo "deps.sh: installing ${#missing[@]} packages: ${missing[*]} (apt-get; a few minutes on a fresh machine)"
export DEBIAN_FRONTEND=noninteractive
# apt's own lines are long; one progress line per package set up
apt_install() {
	apt-get install -y -q --no-install-recommends "$@" 2>&1 |
		sed -un 's/^Setting up \([^ ]*\) .*/deps.sh:   set up \1/p'
	return "${PIPESTATUS[0]}"
}
if ! apt_install "${missing[@]}"; then
	apt-get update -q >/dev/null
	apt_install "${missing[@]}"
fi
