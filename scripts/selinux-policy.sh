#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build a minimal SELinux policy for the guest kernel KVER, for the
# seclabel suite: the kernel tree's own dummy policy generator
# (scripts/selinux/mdp of Debian's linux-source of KVER's version, which
# knows that kernel's classes and initial SIDs), compiled with Debian's
# checkpolicy, plus:
#   - fs_use_xattr for ext2hole, ext2 and ext4, so that SELinux labels their
#     inodes from, and stores new labels in, security.selinux;
#   - a type transition that gives regular files created in a base_t
#     directory the type file_t, so a file's label is computed by the
#     policy rather than copied from its directory;
#   - no policy capabilities (optional; Debian 12's checkpolicy does not
#     know all of 6.12's).
# Built in the cache (keyed by source version), never in the clone; prints
# the path of the binary policy.
#   usage: selinux-policy.sh
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/kernel-lib.sh
source "$here/kernel-lib.sh"

kver=$("$here/kver.sh")
series=$(kseries "$kver")
srcver=$(kpkgver "$kver")
dir=${EXT2HOLE_CACHE:-/var/cache/ext2hole}/selinux/$srcver
out=$dir/policy.bin

if [ ! -f "$out" ]; then
	command -v checkpolicy >/dev/null || {
		echo "selinux-policy.sh: checkpolicy is missing (scripts/deps.sh installs it)" >&2
		exit 1
	}
	tarball=$(ksource "$kver")
	rm -rf "$dir"
	mkdir -p "$dir/gen/generated"
	tar -xJf "$tarball" -C "$dir" \
		"linux-source-$series/scripts/selinux/mdp" \
		"linux-source-$series/security/selinux/include" \
		"linux-source-$series/include"
	# mdp reads no CONFIG_ option that matters here: the fs_use lines it
	# would add from the configuration are added below.
	: >"$dir/gen/generated/autoconf.h"
	src=$dir/linux-source-$series
	gcc -o "$dir/mdp" -I"$dir/gen" -I"$src/include/uapi" -I"$src/include" \
		-I"$src/security/selinux/include" "$src/scripts/selinux/mdp/mdp.c"
	"$dir/mdp" "$dir/policy.conf" "$dir/file_contexts"
	grep -q '^type base_t;$' "$dir/policy.conf" &&
		grep -q '^fs_use_task pipefs ' "$dir/policy.conf" || {
		echo "selinux-policy.sh: unexpected mdp output" >&2
		exit 1
	}
	# Policy capabilities are optional, and 6.12 names some that Debian
	# 12's checkpolicy does not know: leave them out.
	sed -i -e '/^policycap /d' \
	       -e '/^type base_t;$/a type file_t;\ntype_transition base_t base_t : file file_t;' \
	       -e '0,/^fs_use_task pipefs /s//fs_use_xattr ext2hole user_u:object_r:base_t;\nfs_use_xattr ext2 user_u:object_r:base_t;\nfs_use_xattr ext4 user_u:object_r:base_t;\n&/' \
		"$dir/policy.conf"
	checkpolicy -o "$out.tmp" "$dir/policy.conf" >"$dir/checkpolicy.log" 2>&1 || {
		cat "$dir/checkpolicy.log" >&2
		exit 1
	}
	mv "$out.tmp" "$out"
	rm -rf "$src" "$dir/gen"
fi
echo "$out"
