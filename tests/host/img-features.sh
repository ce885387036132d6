#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# img-features.sh IMG...: one line per image: name, block size, inode size,
# revision and feature list (from dumpe2fs -h), for the test logs.
set -euo pipefail
for img in "$@"; do
	dumpe2fs -h "$img" 2>/dev/null | awk -v n="$(basename "$img")" -F':[ \t]*' '
		/^Block size/ { bs = $2 }
		/^Inode size/ { is = $2 }
		/^Filesystem revision/ { rev = $2 }
		/^Filesystem features/ { feat = $2 }
		END { gsub(/ /, ",", feat); sub(/ .*/, "", rev)
		      printf "%s bs=%s isize=%s rev=%s features=%s\n", n, bs, is ? is : 128, rev, feat }'
done
