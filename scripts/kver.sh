#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Print the packaged kernel release ext2hole targets (e.g. 6.1.0-57-amd64).
# KVER in the environment wins; then KSERIES (6.1 or 6.12): the newest
# release of that series the package lists know; otherwise the release that
# Debian's linux-headers-amd64 metapackage depends on.  Never `uname -r`.
set -euo pipefail

if [ -n "${KVER:-}" ]; then
	echo "$KVER"
	exit 0
fi

# The package-name pattern of each series' generic amd64 headers.
series_pattern() {
	case $1 in
	6.1) echo '^linux-headers-6\.1\.0-[0-9]+-amd64$' ;;
	6.12) echo '^linux-headers-6\.12\.[0-9]+\+deb12-amd64$' ;;
	*) echo "kver.sh: unknown KSERIES '$1' (6.1 or 6.12)" >&2; return 1 ;;
	esac
}

resolve() {
	if [ -n "${KSERIES:-}" ]; then
		local pat
		pat=$(series_pattern "$KSERIES") || exit 1
		apt-cache pkgnames linux-headers-"$KSERIES". 2>/dev/null |
			grep -E "$pat" | sed 's/^linux-headers-//' | sort -V | tail -n 1
		return 0
	fi
	apt-cache depends linux-headers-amd64 2>/dev/null |
		sed -n 's/^ *Depends: linux-headers-\([0-9].*-amd64\)$/\1/p' | head -n 1
}
dep=$(resolve)
if [ -z "$dep" ] && [ "$(id -u)" = 0 ]; then
	# A fresh machine has no package lists yet.
	apt-get update -q >/dev/null 2>&1 || true
	dep=$(resolve)
fi
if [ -z "$dep" ]; then
	echo "kver.sh: cannot resolve ${KSERIES:+the $KSERIES series of }linux-headers-amd64 (run apt-get update?)" >&2
	exit 1
fi
echo "$dep"
