#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot the packaged kernel in QEMU (KVM if a probe finds it working, else
# TCG) with a hard timeout.
#   usage: run-guest.sh -i INITRD -l LOG [-t SECONDS] [-a APPEND] [-d DISK]...
# Disks attach as virtio drives in order (vda, vdb, ...), with
# discard=unmap: a discarded range reads back as zeros, so a discard of a
# block in use shows (QEMU's default ignores discards).  The console goes
# to LOG.  Exit status: QEMU's, or 124 when the timeout killed the guest.
# Env: EXT2HOLE_KERNEL (bzImage), EXT2HOLE_PVH (0: boot the bzImage, not its
# PVH ELF), EXT2HOLE_QEMU_MEM (MiB), EXT2HOLE_SMP,
# EXT2HOLE_APPEND (extra kernel command-line words for every boot),
# EXT2HOLE_ACCEL (kvm or tcg; by default a probe looks for a working KVM),
# EXT2HOLE_TCG_CPU_FLAGS (appended to TCG's "max" CPU model, e.g. ",la57=off").
# Guests boot with init_on_alloc=0: Debian's kernels zero every page they
# allocate (CONFIG_INIT_ON_ALLOC_DEFAULT_ON), which would hide a page-cache
# folio the filesystem forgot to zero (a hole, a tail past EOF) behind the
# allocator's zeros; without it such a folio shows the stale bytes of the
# page's last user, and the tests see them.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
initrd='' log='' timeout=300 append=''
disks=()
while getopts 'i:l:t:a:d:' opt; do
	case $opt in
	i) initrd=$OPTARG ;;
	l) log=$OPTARG ;;
	t) timeout=$OPTARG ;;
	a) append=$OPTARG ;;
	d) disks+=("$OPTARG") ;;
	*) exit 2 ;;
	esac
done
[ -n "$initrd" ] && [ -n "$log" ] || { echo "usage: $0 -i INITRD -l LOG ..." >&2; exit 2; }

if [ -n "${EXT2HOLE_KERNEL:-}" ]; then
	kernel=$EXT2HOLE_KERNEL
else
	kver=$("$top/scripts/kver.sh")
	kernel=$("$top/scripts/fetch-kernel.sh")/boot/vmlinuz-$kver
fi

# PVH: QEMU can start the kernel's own ELF image (vmlinux) at its PVH entry
# point (a Xen ELF note, type 18, which Debian's CONFIG_PVH kernels carry),
# with no firmware and no self-decompression.  Under TCG that takes a boot
# to the shell from about 13 s to about 5 s (6.1 and 6.12, 2026-12-07); the
# kernel itself is the same.  The ELF is the bzImage's payload (its offset
# and length are in the setup header, at 0x248 and 0x24c), unpacked once
# next to the bzImage as BZIMAGE.pvh.  EXT2HOLE_PVH=0, or any failure
# here, boots the bzImage.
pvh_image() {	# pvh_image BZIMAGE: the PVH ELF's path, or nothing
	local bz=$1 elf=$1.pvh ss po pl tmp magic dec
	# BZIMAGE.nopvh: looked at once, no PVH entry (the debug kernels'
	# tinyconfig has no CONFIG_PVH); newer than the bzImage, or it goes
	if [ "$bz.nopvh" -nt "$bz" ]; then
		return 0
	fi
	if [ ! -s "$elf" ] || [ "$bz" -nt "$elf" ]; then
		ss=$(od -An -tu1 -j 0x1f1 -N 1 "$bz" | tr -d ' ')
		po=$(od -An -tu4 -j 0x248 -N 4 "$bz" | tr -d ' ')
		pl=$(od -An -tu4 -j 0x24c -N 4 "$bz" | tr -d ' ')
		[ -n "$ss" ] && [ -n "$po" ] && [ -n "$pl" ] || return 0
		[ "$ss" = 0 ] && ss=4
		tmp=$(mktemp "$elf.XXXXXX") || return 0
		magic=$(tail -c +$(((ss + 1) * 512 + po + 1)) "$bz" | head -c 4 | od -An -tx1 | tr -d ' ')
		case $magic in
		fd377a58) dec=(xz -dc) ;;
		1f8b08*) dec=(gzip -dc) ;;
		28b52ffd) dec=(zstd -dcq) ;;
		*) rm -f "$tmp"; return 0 ;;
		esac
		tail -c +$(((ss + 1) * 512 + po + 1)) "$bz" | head -c "$pl" |
			"${dec[@]}" >"$tmp" 2>/dev/null || true
		if LC_ALL=C readelf -n "$tmp" 2>/dev/null | grep -q '^ *Xen .*(0x00000012)'; then
			chmod 644 "$tmp" && mv -f "$tmp" "$elf"
		else
			rm -f "$tmp"
			touch "$bz.nopvh" 2>/dev/null || true
			return 0
		fi
	fi
	echo "$elf"
}
boot_kernel=$kernel
if [ "${EXT2HOLE_PVH:-1}" != 0 ]; then
	pvh=$(pvh_image "$kernel" 2>/dev/null || true)
	[ -n "$pvh" ] && boot_kernel=$pvh
fi

# KVM when it works: EXT2HOLE_ACCEL=kvm|tcg decides; by default a probe
# boots the kernel without a root under KVM with a short timeout (nested
# KVM can hang) and the answer is kept for this boot of the host.
accel=${EXT2HOLE_ACCEL:-auto}
if [ "$accel" = auto ]; then
	accel=tcg
	probe=/run/ext2hole-kvm-probe
	if [ -f "$probe" ]; then
		accel=$(cat "$probe")
	elif [ -r /dev/kvm ] && [ -w /dev/kvm ]; then
		out=$(timeout -k 2 20 qemu-system-x86_64 -accel kvm -cpu host -m 256 \
			-display none -monitor none -serial stdio -no-reboot \
			-kernel "$kernel" -append "console=ttyS0 panic=-1" </dev/null 2>&1 || true)
		if echo "$out" | grep -q 'Kernel panic'; then
			accel=kvm
		fi
		echo "$accel" >"$probe" 2>/dev/null || true
	fi
fi
case $accel in
kvm) cpu=host ;;
tcg) cpu=max${EXT2HOLE_TCG_CPU_FLAGS:-} ;;
*) echo "run-guest.sh: EXT2HOLE_ACCEL must be kvm or tcg" >&2; exit 2 ;;
esac

args=(-accel "$accel" -cpu "$cpu" -m "${EXT2HOLE_QEMU_MEM:-1024}" -smp "${EXT2HOLE_SMP:-2}"
      -display none -monitor none -serial stdio -no-reboot
      -kernel "$boot_kernel" -initrd "$initrd"
      -append "console=ttyS0 panic=-1 loglevel=5 init_on_alloc=0 ${EXT2HOLE_APPEND:-} $append")
for d in "${disks[@]}"; do
	args+=(-drive "file=$d,format=raw,if=virtio,cache=unsafe,discard=unmap")
done

rc=0
timeout -k 10 "$timeout" qemu-system-x86_64 "${args[@]}" </dev/null >"$log" 2>&1 || rc=$?
exit "$rc"
