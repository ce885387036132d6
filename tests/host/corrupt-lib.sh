# SPDX-License-Identifier: GPL-2.0
# Little-endian pokes into image files at exact byte offsets (host side).
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
