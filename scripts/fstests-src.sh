#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fstests-src.sh - print the path of the pinned fstests source tarball
# (a git archive of the suite, unpacked as xfstests/), finding it in turn:
#
#  1. EXT2HOLE_FSTESTS_TARBALL, when set (it must exist);
#  2. shared/fstests/xfstests-<short>.tar.xz beside the clone (the
#     project's machines have it there, as a build input);
#  3. the cache, /var/cache/ext2hole/fstests/src/xfstests-<commit>.tar.xz;
#  4. fstests' public git (EXT2HOLE_FSTESTS_GIT, else kernel.org's
#     xfstests-dev and then the kdave/xfstests mirror): a shallow fetch
#     of the pinned commit, checked (the fetched commit's id must be the
#     pin: git names a commit by the hash of its content, tree included),
#     archived into the cache.
#
# When none of them gives the source it says so, naming both ways, and
# exits 1.  Messages go to stderr; stdout is the path only.
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
# The pin: kdave/xfstests 63a29724a85f1999e49bf0a9bf0d22643b6116e5
# (2025-12-23).  Moving it is a change of a build input: say so in the
# commit and run the fstests lane again.
# EXT2HOLE_FSTESTS_COMMIT is for testing this script only.
COMMIT=${EXT2HOLE_FSTESTS_COMMIT:-63a29724a85f1999e49bf0a9bf0d22643b6116e5}
SHORT=${COMMIT:0:8}
CACHE=${EXT2HOLE_CACHE:-/var/cache/ext2hole}/fstests/src
NAME=xfstests-$SHORT.tar.xz
GITS=${EXT2HOLE_FSTESTS_GIT:-https://git.kernel.org/pub/scm/fs/xfs/xfstests-dev.git https://github.com/kdave/xfstests.git}
GIT_TIMEOUT=${EXT2HOLE_FSTESTS_GIT_TIMEOUT:-300}

say() { echo "fstests-src: $*" >&2; }

if [ -n "${EXT2HOLE_FSTESTS_TARBALL:-}" ]; then
	[ -f "$EXT2HOLE_FSTESTS_TARBALL" ] || {
		say "EXT2HOLE_FSTESTS_TARBALL=$EXT2HOLE_FSTESTS_TARBALL does not exist"
		exit 1
	}
	echo "$EXT2HOLE_FSTESTS_TARBALL"
	exit 0
fi
shared=$(cd "$TOP/.." && pwd)/shared/fstests/$NAME
if [ -f "$shared" ]; then
	echo "$shared"
	exit 0
fi
if [ -f "$CACHE/$NAME" ]; then
	echo "$CACHE/$NAME"
	exit 0
fi

if ! command -v git >/dev/null && [ "$(id -u)" = 0 ]; then
	say "installing git"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q git >&2 || true
fi
command -v git >/dev/null || {
	say "git is not installed"
	GITS=
}
mkdir -p "$CACHE"
exec 9>"$CACHE/.lock"
flock 9
# another run may have fetched it while this one waited
if [ -f "$CACHE/$NAME" ]; then
	echo "$CACHE/$NAME"
	exit 0
fi
tried=()
for url in $GITS; do
	tmp=$(mktemp -d "$CACHE/git.XXXXXX")
	say "fetching $COMMIT from $url"
	if git -C "$tmp" init -q &&
	   timeout "$GIT_TIMEOUT" git -C "$tmp" fetch -q --depth 1 "$url" "$COMMIT" &&
	   [ "$(git -C "$tmp" rev-parse "FETCH_HEAD^{commit}")" = "$COMMIT" ] &&
	   git -C "$tmp" archive --format=tar --prefix=xfstests/ FETCH_HEAD |
		xz -T0 -c >"$tmp/$NAME" &&
	   xz -t "$tmp/$NAME"; then
		mv "$tmp/$NAME" "$CACHE/$NAME"
		rm -rf "$tmp"
		say "cached $CACHE/$NAME"
		echo "$CACHE/$NAME"
		exit 0
	fi
	rm -rf "$tmp"
	tried+=("$url")
done
say "no fstests source: neither the pinned tarball ($shared, or"
say "  EXT2HOLE_FSTESTS_TARBALL=<a git archive of $COMMIT with prefix xfstests/>)"
say "  nor fstests' git (${tried[*]:-git missing}; EXT2HOLE_FSTESTS_GIT=<url>) gave commit $COMMIT"
exit 1
