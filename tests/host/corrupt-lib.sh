# SPDX-License-Identifier: GPL-2.0
# Pokes into image files at exact byte offsets, little-endian (host side).
# shellcheck shell=bash

# poke_le FILE OFFSET BYTES VALUE: write VALUE as a BYTES-byte LE integer.
poke_le() {
	local f=$1 off=$2 n=$3 v=$4 i esc=''
	for ((i = 0; i < n; i++)); do
		esc+=$(printf '\\x%02x' $(((v >> (8 * i)) & 0xff)))
	done
	printf "%b" "$esc" | dd of="$f" bs=1 seek="$off" conv=notrunc status=none
}

# peek_le FILE OFFSET BYTES: print the LE integer there.
peek_le() {
	local f=$1 off=$2 n=$3 v=0 i
	local -a b
	read -r -a b < <(od -An -tu1 -j "$off" -N "$n" "$f")
	for ((i = n - 1; i >= 0; i--)); do
		v=$(((v << 8) | b[i]))
	done
	echo "$v"
}

# block_size IMG: the filesystem's block size in bytes.
block_size() {
	dumpe2fs -h "$1" 2>/dev/null | sed -n 's/^Block size: *//p'
}

# raw_inode IMG PATH: the byte offset of PATH's on-disk inode.
raw_inode() {
	local blk off
	read -r blk off < <(debugfs -R "imap $2" "$1" 2>/dev/null |
		sed -n 's/.*located at block \([0-9]*\), offset \(0x[0-9a-f]*\).*/\1 \2/p')
	echo $((blk * $(block_size "$1") + off))
}
