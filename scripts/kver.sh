#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Print the packaged kernel release ext2hole targets (e.g. 6.1.0-57-amd64).
# KVER in the environment wins; otherwise the release that Debian's
# linux-headers-amd64 metapackage depends on.  Never `uname -r`.
set -euo pipefail

if [ -n "${KVER:-}" ]; then
	echo "$KVER"
	exit 0
fi
resolve() {
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
	echo "kver.sh: cannot resolve linux-headers-amd64 (run apt-get update?)" >&2
	exit 1
fi
echo "$dep"
