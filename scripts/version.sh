#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Print ext2hole's version: the top line of debian/changelog, less any
# Debian revision (what dh_dkms -V and Kbuild take).  The one place the
# version is written; everything else derives from it.
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
v=$(sed -n "1s/^ext2hole //p" "$TOP/debian/changelog" | cut -d"(" -f2 | cut -d")" -f1 | sed "s/-[^-]*$//")
if [ -z "$v" ]; then
	echo "version.sh: no version on the first line of $TOP/debian/changelog" >&2
	exit 1
fi
echo "$v"
